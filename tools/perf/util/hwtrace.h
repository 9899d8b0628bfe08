/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_HWTRACE_H
#define __PERF_HWTRACE_H

#include <stdbool.h>

struct perf_data;

bool hwtrace__is_hwtrace(const char *path);
int hwtrace__open(struct perf_data *data);

#endif /* __PERF_HWTRACE_H */
