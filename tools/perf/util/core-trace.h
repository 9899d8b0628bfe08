/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_CORE_TRACE_H
#define __PERF_CORE_TRACE_H

#include <stdbool.h>

struct perf_data;

bool core_trace__is_core(const char *path);
int core_trace__open(struct perf_data *data);

#endif /* __PERF_CORE_TRACE_H */
