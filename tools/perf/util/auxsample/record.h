/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_AUXSAMPLE_RECORD_H
#define __PERF_AUXSAMPLE_RECORD_H

#include <linux/compiler.h>

struct evlist;
struct record_opts;

int auxsample__record_setup(struct evlist *evlist, struct record_opts *opts,
			    const char *spec);
#ifdef HAVE_AUXTRACE_SUPPORT
void auxsample__print_misses(struct evlist *evlist);
#else
static inline void auxsample__print_misses(struct evlist *evlist __maybe_unused)
{
}
#endif

#endif /* __PERF_AUXSAMPLE_RECORD_H */
