/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the core trace selftests (core_trace_lib.c): ask for core
 * trace, point core dumps at a directory of their own, and read the notes
 * of a core file, each thread's NT_PERF_TRACE and its NT_PRSTATUS.
 */
#ifndef CORE_TRACE_LIB_H
#define CORE_TRACE_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#define MAX_NOTES	16

/* A core's NT_PERF_TRACE notes, and its NT_PRSTATUS thread ids and IPs. */
struct core_notes {
	struct perf_core_trace_note	*trace[MAX_NOTES];
	size_t				nr_trace;
	pid_t				tid[MAX_NOTES];
	uint64_t			ip[MAX_NOTES];	/* x86-64, arm64 */
	size_t				nr_tid;
	void				*file;
	size_t				size;
};

int core_trace_set(int type, uint64_t config, uint32_t size, uint64_t flags);
pid_t core_trace_fork(int type, uint64_t config, uint32_t size);
int core_dir_make(char *dir, char *saved, size_t len);
int core_dir_remove(const char *dir, const char *saved);
int core_notes_read(const char *path, struct core_notes *cn);
int core_notes_wait(pid_t pid, const char *dir, struct core_notes *cn,
		    char *why, size_t len);
void core_notes_free(struct core_notes *cn);
const struct perf_core_trace_note *core_notes_of(const struct core_notes *cn,
						 pid_t tid);

#endif /* CORE_TRACE_LIB_H */
