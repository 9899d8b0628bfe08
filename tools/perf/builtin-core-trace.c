// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-core-trace.c
 *
 * Builtin command: run a command with hardware trace kept for its core dump
 *
 * perf core-trace -e PMU[/config/][u] -m SIZE -- COMMAND asks the kernel
 * (prctl PR_SET_CORE_TRACE) to keep the latest SIZE bytes of each thread's
 * trace of PMU, in this process and every process it starts, and to put
 * them in the core dump; then it runs COMMAND in its place.  perf script
 * -i CORE decodes them.  See Documentation/admin-guide/perf/core-trace.rst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/prctl.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "perf.h"
#include "util/debug.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/parse-events.h"
#include "util/units.h"

static const char * const core_trace_usage[] = {
	"perf core-trace [<options>] -- <command> [<args>]",
	NULL
};

/*
 * The event's PMU and config, and whether it traces kernel mode: that of
 * perf's event modifiers (intel_pt// both, intel_pt//u user mode only).
 * The kernel takes no other term, and user mode is always traced.
 */
static int core_trace__event(const char *str, struct prctl_core_trace *ct)
{
	struct evlist *evlist = evlist__new();
	struct perf_event_attr *attr;
	int err = -EINVAL;

	if (!evlist)
		return -ENOMEM;
	if (parse_event(evlist, str) || evlist->core.nr_entries != 1) {
		pr_err("core-trace: cannot take '%s' as one event\n", str);
		goto out;
	}
	attr = &evlist__first(evlist)->core.attr;
	if (attr->config1 || attr->config2) {
		pr_err("core-trace: '%s': core trace takes config terms only\n", str);
		goto out;
	}
	if (attr->exclude_user) {
		pr_err("core-trace: '%s' does not trace user mode\n", str);
		goto out;
	}
	ct->type = attr->type;
	ct->config = attr->config;
	ct->flags = attr->exclude_kernel ? 0 : PR_CORE_TRACE_KERNEL;
	err = 0;
out:
	evlist__delete(evlist);
	return err;
}

static void core_trace__explain(int err, const char *event, bool kernel)
{
	switch (err) {
	case EINVAL:
		pr_err("core-trace: the size is not a multiple of 8 up to 1M,\n"
		       "or this kernel has no core trace (PR_SET_CORE_TRACE)\n");
		break;
	case EOPNOTSUPP:
	case ENOENT:
		pr_err("core-trace: %s cannot keep trace for core dumps\n", event);
		break;
	case EACCES:
		if (kernel)
			pr_err("core-trace: kernel-mode trace not allowed (perf_event_paranoid):\n"
			       "trace user mode only (%s with the u modifier)\n", event);
		else
			pr_err("core-trace: trace not allowed (perf_event_paranoid above 2,\n"
			       "or a security module)\n");
		break;
	case EPERM:
		pr_err("core-trace: the trace buffers are over this user's mlock limits\n"
		       "(perf_event_mlock_kb, ulimit -l)\n");
		break;
	case EBUSY:
		pr_err("core-trace: %s is in use by another event of a thread\n", event);
		break;
	default:
		pr_err("core-trace: PR_SET_CORE_TRACE: %s\n", strerror(err));
		break;
	}
}

int cmd_core_trace(int argc, const char **argv)
{
	static struct parse_tag size_tags[] = {
		{ .tag = 'B', .mult = 1 },
		{ .tag = 'K', .mult = 1 << 10 },
		{ .tag = 'M', .mult = 1 << 20 },
		{ .tag = 0 },
	};
	struct prctl_core_trace ct;
	const char *event = "intel_pt//u", *size = "64K";
	unsigned long bytes;
	char *end;
	int err;
	const struct option options[] = {
	OPT_STRING('e', "event", &event, "pmu",
		   "the AUX PMU to trace with, and its config (default: intel_pt//u)"),
	OPT_STRING('m', "size", &size, "size",
		   "bytes of trace to keep per thread, B/K/M (default: 64K)"),
	OPT_END()
	};

	argc = parse_options(argc, argv, options, core_trace_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_with_options(core_trace_usage, options);

	/* A number of bytes, or of KiB or MiB with the suffix */
	bytes = strtoul(size, &end, 10);
	if (end == size || *end)
		bytes = parse_tag_value(size, size_tags);
	if (bytes == (unsigned long)-1 || bytes > UINT32_MAX) {
		pr_err("core-trace: bad size '%s'\n", size);
		return -EINVAL;
	}
	ct.size = bytes;
	if (core_trace__event(event, &ct))
		return -EINVAL;

	if (prctl(PR_SET_CORE_TRACE, &ct, sizeof(ct), 0, 0)) {
		err = errno;
		core_trace__explain(err, event, ct.flags & PR_CORE_TRACE_KERNEL);
		return -err;
	}
	/* perf blocks SIGWINCH for itself: not for the command */
	pthread__unblock_sigwinch();
	execvp(argv[0], (char **)argv);
	err = errno;
	pr_err("core-trace: cannot run %s: %s\n", argv[0], strerror(err));
	return -err;
}
