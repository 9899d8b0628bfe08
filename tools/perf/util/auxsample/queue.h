/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_AUXSAMPLE_QUEUE_H
#define __PERF_AUXSAMPLE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct auxsample_pos;
struct auxsample_resolver;
struct auxtrace_queues;
struct evlist;
struct perf_sample;
struct perf_session;

struct auxsample_slice;

/* Where the trace of each sample is in the file: see queue.c. */
struct auxsample_slices {
	struct auxsample_slice	*slice;
	size_t			nr;
	size_t			alloc;
	bool			per_cpu;	/* some came from per-CPU streams */
};

int auxsample__has_positions(struct evlist *evlist);
int auxsample__check(struct auxsample_resolver *r,
		     struct perf_session *session, struct perf_sample *sample,
		     struct auxsample_pos *pos, const void **trace);
void auxsample__delivered(struct auxsample_resolver *r,
			  struct perf_session *session,
			  struct perf_sample *sample);
int auxsample__queue(struct auxsample_resolver *r,
		     struct auxtrace_queues *queues,
		     struct perf_session *session,
		     struct perf_sample *sample, u64 reference);
int auxsample__slice(struct auxsample_slices *slices,
		     struct perf_session *session, struct perf_sample *sample,
		     u64 data_offset, u64 reference);
int auxsample__queue_slices(struct auxsample_slices *slices,
			    struct auxsample_resolver *r,
			    struct auxtrace_queues *queues,
			    struct perf_session *session);
void auxsample__slices_exit(struct auxsample_slices *slices);
void auxsample__print_stats(struct auxsample_resolver *r);

#endif /* __PERF_AUXSAMPLE_QUEUE_H */
