/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_AUXSAMPLE_QUEUE_H
#define __PERF_AUXSAMPLE_QUEUE_H

#include <linux/types.h>

struct auxsample_resolver;
struct auxtrace_queues;
struct evlist;
struct perf_sample;
struct perf_session;

int auxsample__has_positions(struct evlist *evlist);
int auxsample__queue(struct auxsample_resolver *r,
		     struct auxtrace_queues *queues,
		     struct perf_session *session,
		     struct perf_sample *sample, u64 reference);
void auxsample__print_stats(struct auxsample_resolver *r);

#endif /* __PERF_AUXSAMPLE_QUEUE_H */
