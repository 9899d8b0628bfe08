// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the core trace selftests; see core_trace_lib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/elf.h>

#include "core_trace_lib.h"
#include "ptsim_lib.h"

/* PR_SET_CORE_TRACE: @size bytes per thread from PMU @type; 0 or -errno */
int core_trace_set(int type, uint64_t config, uint32_t size, uint64_t flags)
{
	struct prctl_core_trace ct = {
		.type = type, .size = size, .config = config, .flags = flags,
	};

	return prctl(PR_SET_CORE_TRACE, &ct, sizeof(ct), 0, 0) ? -errno : 0;
}

/*
 * fork(), and in the child ask for @size bytes of trace per thread from
 * PMU @type with @config (exit 101 if refused).  Returns what fork() does.
 */
pid_t core_trace_fork(int type, uint64_t config, uint32_t size)
{
	pid_t pid = fork();

	if (!pid && core_trace_set(type, config, size, 0))
		_exit(101);
	return pid;
}

/*
 * Make directory @dir (a mkdtemp() template) and point kernel.core_pattern
 * into it ("@dir/core.%p"), the pattern it had saved in @saved, @len bytes.
 * Returns 0, or -1 with the pattern as it was.
 */
int core_dir_make(char *dir, char *saved, size_t len)
{
	char pattern[256];

	if (!mkdtemp(dir) || ptsim_sysctl_str_get("core_pattern", saved, len))
		return -1;
	snprintf(pattern, sizeof(pattern), "%s/core.%%p", dir);
	return ptsim_sysctl_str_set("core_pattern", pattern) ? -1 : 0;
}

/* Put kernel.core_pattern @saved back and remove @dir.  Returns 0 or -1. */
int core_dir_remove(const char *dir, const char *saved)
{
	int ret = ptsim_sysctl_str_set("core_pattern", saved);
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) || ret ? -1 : 0;
}

/* Unmap @cn's core. */
void core_notes_free(struct core_notes *cn)
{
	if (cn->file)
		munmap(cn->file, cn->size);
	memset(cn, 0, sizeof(*cn));
}

/*
 * The IP's place among the registers of an NT_PRSTATUS note: rip is the
 * 17th of x86-64's struct user_regs_struct, pc the 33rd of arm64's struct
 * user_pt_regs.
 */
#if defined(__x86_64__)
#define PRSTATUS_IP	16
#elif defined(__aarch64__)
#define PRSTATUS_IP	32
#endif

/*
 * The thread id and IP in an NT_PRSTATUS note: struct elf_prstatus has
 * pr_pid after 32 bytes and the registers after 112.
 */
static void read_prstatus(struct core_notes *cn, const uint8_t *desc,
			  size_t size)
{
	if (size < 32 + sizeof(pid_t))
		return;
	memcpy(&cn->tid[cn->nr_tid], desc + 32, sizeof(pid_t));
#ifdef PRSTATUS_IP
	if (size >= 112 + (PRSTATUS_IP + 1) * sizeof(uint64_t))
		memcpy(&cn->ip[cn->nr_tid], desc + 112 + PRSTATUS_IP * sizeof(uint64_t),
		       sizeof(uint64_t));
#endif
	cn->nr_tid++;
}

/* Collect the notes of one PT_NOTE segment, inside the file; -1 if malformed. */
static int read_note_segment(struct core_notes *cn, const struct elf64_phdr *ph)
{
	size_t off = 0, namesz, descsz;
	const uint8_t *seg;
	struct elf64_note nh;
	void *desc;

	seg = (const uint8_t *)cn->file + ph->p_offset;
	while (off + sizeof(nh) <= ph->p_filesz) {
		memcpy(&nh, seg + off, sizeof(nh));
		namesz = (nh.n_namesz + 3) & ~3UL;
		descsz = (nh.n_descsz + 3) & ~3UL;
		off += sizeof(nh);
		if (namesz + descsz > ph->p_filesz - off)
			return -1;
		desc = (void *)(seg + off + namesz);
		if (nh.n_type == NT_PERF_TRACE && cn->nr_trace < MAX_NOTES)
			cn->trace[cn->nr_trace++] = desc;
		if (nh.n_type == NT_PRSTATUS && cn->nr_tid < MAX_NOTES)
			read_prstatus(cn, desc, nh.n_descsz);
		off += namesz + descsz;
	}
	return 0;
}

/*
 * Map core file @path and find its notes.  Returns 0 or -1, also if the
 * file is shorter than its segments: a core not yet wholly written.
 */
int core_notes_read(const char *path, struct core_notes *cn)
{
	const struct elf64_hdr *eh;
	const struct elf64_phdr *ph;
	struct stat st;
	int fd, i, ret = 0;

	memset(cn, 0, sizeof(*cn));
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)sizeof(*eh)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	cn->size = st.st_size;
	cn->file = mmap(NULL, cn->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (cn->file == MAP_FAILED) {
		cn->file = NULL;
		return -1;
	}
	eh = cn->file;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_type != ET_CORE ||
	    eh->e_phoff > cn->size ||
	    eh->e_phnum > (cn->size - eh->e_phoff) / sizeof(*ph))
		return -1;
	ph = (const struct elf64_phdr *)((const uint8_t *)cn->file + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_offset > cn->size ||
		    ph[i].p_filesz > cn->size - ph[i].p_offset)
			return -1;
	for (i = 0; i < eh->e_phnum && !ret; i++)
		if (ph[i].p_type == PT_NOTE)
			ret = read_note_segment(cn, &ph[i]);
	return ret;
}

/* The note of thread @tid in @cn, or NULL. */
const struct perf_core_trace_note *core_notes_of(const struct core_notes *cn,
						 pid_t tid)
{
	size_t i;

	for (i = 0; i < cn->nr_trace; i++)
		if (cn->trace[i]->tid == tid)
			return cn->trace[i];
	return NULL;
}

/*
 * Wait for @pid, which must dump core in @dir (core_dir_make()), and read
 * its core into @cn.  Returns 0, or -1 with what went wrong in @why.
 */
int core_notes_wait(pid_t pid, const char *dir, struct core_notes *cn,
		    char *why, size_t len)
{
	char path[128];
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		snprintf(why, len, "waitpid: %s", strerror(errno));
		return -1;
	}
	if (!WIFSIGNALED(status) || !WCOREDUMP(status)) {
		snprintf(why, len, "status %#x: no core dump", status);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/core.%d", dir, pid);
	if (core_notes_read(path, cn)) {
		snprintf(why, len, "%s: not a core file", path);
		return -1;
	}
	return 0;
}
