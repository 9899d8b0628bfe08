/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TRACE_STREAM_H
#define __PERF_TRACE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct perf_data;
union perf_event;

/*
 * A pipe-mode perf.data stream that perf makes of a file that holds hardware
 * trace without being a perf.data file (a core file, the hardware trace
 * recorder's copies), and then reads as it reads a pipe.
 */
/* ... of up to this many bytes, its id sample included (header.size is a u16) */
#define TRACE_STREAM_EVENT_MAX	65536

struct trace_stream {
	const char		*path;	/* the file it is made of, for errors */
	const char		*map;	/* that file, mapped or read */
	size_t			size;
	bool			read;	/* read into memory, not mapped */
	bool			per_cpu; /* its trace is of CPUs: samples have CPU */
	u64			aux_flags; /* of its trace, for AUX records */
	int			out;	/* the stream: an anonymous file */
	union perf_event	*event;	/* the event being written: */
};

/* What the trace was of, for the stream's attr and AUXTRACE_INFO */
struct trace_stream_pmu {
	const char		*name;
	u64			config;
	bool			kernel;	/* kernel mode was traced */
	bool			user;	/* user mode was traced */
	bool			per_cpu; /* the trace is a CPU's, not a thread's */
};

bool trace_stream__peek(const char *path, void *buf, size_t size);
int trace_stream__err(struct trace_stream *ts, const char *what);
int trace_stream__errno(struct trace_stream *ts, const char *what);
int trace_stream__begin(struct trace_stream *ts, struct perf_data *data);
int trace_stream__end(struct trace_stream *ts, struct perf_data *data, int err);
int trace_stream__write(struct trace_stream *ts, const void *buf, size_t size);
int trace_stream__write_event(struct trace_stream *ts, size_t size, u32 pid, u32 tid,
			      u32 cpu);
bool trace_stream__decodes(const char *pmu);
int trace_stream__write_pmu(struct trace_stream *ts, const struct trace_stream_pmu *pmu);
int trace_stream__write_trace(struct trace_stream *ts, const void *trace, u64 size,
			      u64 offset, bool wrapped, u32 idx, u32 pid, u32 tid,
			      u32 cpu);

#endif /* __PERF_TRACE_STREAM_H */
