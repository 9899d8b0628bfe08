/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_AUXSAMPLE_RECORD_H
#define __PERF_AUXSAMPLE_RECORD_H

struct evlist;
struct record_opts;

int auxsample__record_setup(struct evlist *evlist, struct record_opts *opts,
			    const char *spec);

#endif /* __PERF_AUXSAMPLE_RECORD_H */
