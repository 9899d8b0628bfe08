// SPDX-License-Identifier: GPL-2.0
/*
 * perf record -A PMU[/TERMS/]: every sampling event of the command line
 * takes, in each of its samples, the latest trace of a hidden AUX event of
 * PMU that the kernel runs for it (attr.aux_sample_type), with the
 * position of that trace in its stream (PERF_AUX_SAMPLE_POSITION) when the
 * PMU can tell it, and then only the trace that is new since the sample
 * before (PERF_AUX_SAMPLE_NEW) if the kernel can do that, no event writes
 * to an overwrite ring and --aux-sample-overlap does not say otherwise.
 * A kernel without hidden AUX events gets the same recording in the
 * group-leader form: PMU leads a group of all the events (also asked for
 * with --aux-sample-group).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <api/fs/fs.h>
#include <internal/xyarray.h>

#include "../cloexec.h"
#include "../debug.h"
#include "../evlist.h"
#include "../evsel.h"
#include "../evsel_config.h"
#include "../parse-events.h"
#include "../pmu.h"
#include "../record.h"
#include "../../perf-sys.h"
#include "record.h"

#define AUXSAMPLE_DEFAULT_SIZE	4096
#define AUXSAMPLE_MAX_SIZE	(60 * 1024)	/* as for the group-leader form */

enum auxsample_form {
	AUXSAMPLE_HIDDEN_NEW,		/* ... exact positions, new trace only */
	AUXSAMPLE_HIDDEN_POSITION,	/* hidden AUX event, exact positions */
	AUXSAMPLE_HIDDEN,		/* hidden AUX event, no positions */
	AUXSAMPLE_GROUP,		/* AUX event as group leader */
};

/* The AUX event of @spec, parsed as if given to -e, alone in @tmp. */
static struct evsel *auxsample__parse_pmu(struct evlist *tmp, const char *spec)
{
	struct parse_events_error err;
	struct perf_pmu *pmu;
	struct evsel *evsel;
	size_t len = strcspn(spec, "/");
	char *name = strndup(spec, len), *event;
	const char *modifiers;
	int ret;

	if (!name)
		return NULL;
	pmu = perf_pmu__find(name);
	if (!pmu) {
		pr_err("-A %s: no such PMU\n", spec);
		free(name);
		return NULL;
	}

	/*
	 * The hidden event traces what each event counts, as that event's
	 * modifiers say: modifiers of the PMU, after the terms' closing '/',
	 * would be ignored.
	 */
	modifiers = strrchr(spec, '/');
	if (modifiers && modifiers != spec + len && modifiers[1]) {
		pr_err("-A %s: a hidden AUX event takes no modifiers: it traces what each event counts (give them to the events, as in -e cycles:u)\n",
		       spec);
		free(name);
		return NULL;
	}

	/* "PMU" is "PMU//" */
	if (spec[len])
		event = strdup(spec);
	else if (asprintf(&event, "%s//", name) < 0)
		event = NULL;
	free(name);
	if (!event)
		return NULL;

	parse_events_error__init(&err);
	ret = parse_events(tmp, event, &err);
	if (ret)
		parse_events_error__print(&err, event);
	parse_events_error__exit(&err);
	free(event);
	if (ret)
		return NULL;

	if (tmp->core.nr_entries != 1) {
		pr_err("-A %s: give one PMU, not a list of events\n", spec);
		return NULL;
	}
	evsel = evlist__first(tmp);
	if (evsel->core.attr.type != pmu->type) {
		pr_err("-A %s: not an event of PMU %s\n", spec, pmu->name);
		return NULL;
	}
	return evsel;
}

/* The trace bytes per sample: --aux-sample=SIZE, else the default. */
static int auxsample__size(const char *str, u32 *size)
{
	u32 max = AUXSAMPLE_MAX_SIZE;
	unsigned long sz = AUXSAMPLE_DEFAULT_SIZE;
	char *end;

	if (str && *str) {
		sz = strtoul(str, &end, 0);
		if (*end || !sz || sz > max) {
			pr_err("--aux-sample=%s: the size must be 1 to %u bytes\n",
			       str, max);
			return -EINVAL;
		}
	}
	*size = sz;
	return 0;
}

/* Whether sysfs lists capability @cap ("1") of @pmu. */
static bool auxsample__pmu_cap(struct perf_pmu *pmu, const char *cap)
{
	char name[32];
	int val;

	snprintf(name, sizeof(name), "caps/%s", cap);
	return perf_pmu__scan_file(pmu, name, "%d", &val) == 1 && val;
}

/*
 * The form that the kernel says, in sysfs, it can do: bus/event_source/
 * aux_sample_flags (the aux_sample_flags bits it knows) is there iff it has
 * hidden AUX events, and a PMU that can serve as one has caps/aux_sample,
 * and caps/aux_position if it tells trace positions.  Samples of new trace
 * only if @new and the kernel knows them.
 */
static int auxsample__form(const char *spec, const struct perf_event_attr *aux,
			   bool new, enum auxsample_form *form)
{
	unsigned long long flags;
	struct perf_pmu *pmu;

	if (sysfs__read_ull("bus/event_source/aux_sample_flags", &flags)) {
		*form = AUXSAMPLE_GROUP;
		return 0;
	}

	pmu = perf_pmu__find_by_type(aux->type);
	if (!pmu || !auxsample__pmu_cap(pmu, "aux_sample")) {
		pr_err("-A %s: this PMU cannot take AUX samples\n", spec);
		return -EOPNOTSUPP;
	}

	if (!(flags & PERF_AUX_SAMPLE_POSITION) ||
	    !auxsample__pmu_cap(pmu, "aux_position"))
		*form = AUXSAMPLE_HIDDEN;
	else if ((flags & PERF_AUX_SAMPLE_NEW) && new)
		*form = AUXSAMPLE_HIDDEN_NEW;
	else
		*form = AUXSAMPLE_HIDDEN_POSITION;
	return 0;
}

/* The aux_sample_flags of the samplers of @form. */
static u32 auxsample__flags(enum auxsample_form form)
{
	switch (form) {
	case AUXSAMPLE_HIDDEN_NEW:
		return PERF_AUX_SAMPLE_POSITION | PERF_AUX_SAMPLE_NEW;
	case AUXSAMPLE_HIDDEN_POSITION:
		return PERF_AUX_SAMPLE_POSITION;
	case AUXSAMPLE_HIDDEN:
	case AUXSAMPLE_GROUP:
	default:
		return 0;
	}
}

/*
 * Open the hidden AUX event of @form that the events will have, with a
 * sampler on this thread that is never enabled, for a configuration that
 * the PMU refuses to be told as such.  What the sampler is not allowed to
 * do here, say, the real events will tell.
 */
static int auxsample__check(const char *spec,
			    const struct perf_event_attr *aux, u32 size,
			    enum auxsample_form form)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1000000,
		.sample_type = PERF_SAMPLE_AUX,
		.aux_sample_size = size,
		.aux_sample_type = aux->type,
		.aux_sample_config = aux->config,
		.aux_sample_flags = auxsample__flags(form),
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd, err;

	fd = sys_perf_event_open(&attr, 0, -1, -1,
				 perf_event_open_cloexec_flag());
	if (fd >= 0) {
		close(fd);
		return 0;
	}

	err = errno;
	switch (err) {
	case EINVAL:
		pr_err("-A %s: the kernel refuses a hidden AUX event of this configuration\n",
		       spec);
		return -EINVAL;
	case E2BIG:
	case EOPNOTSUPP:
		pr_err("-A %s: the kernel refuses the hidden AUX event that sysfs offers: %s\n",
		       spec, strerror(err));
		return -err;
	default:
		pr_debug("-A %s: checking the hidden AUX event: %s\n",
			 spec, strerror(err));
		return 0;
	}
}

/*
 * Whether an event of @evlist writes to an overwrite ring (its overwrite
 * term, or --overwrite without a no-overwrite term).  There a sample of
 * new trace only keeps the room of all the --aux-sample size (the kernel
 * reserves it before it knows how much is new), so the ring keeps no more
 * samples than of the latest trace, and the newest of them, with a few
 * bytes each, seldom hold a PSB from which to decode.
 */
static bool auxsample__overwrites(struct evlist *evlist,
				  const struct record_opts *opts)
{
	struct evsel_config_term *term;
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		term = evsel__get_config_term(evsel, OVERWRITE);
		if (term ? term->val.overwrite : opts->overwrite)
			return true;
	}
	return false;
}

/* The form to record in, or an error, having said what is wrong. */
static int auxsample__choose(const char *spec,
			     const struct perf_event_attr *aux, u32 size,
			     struct evlist *evlist,
			     const struct record_opts *opts,
			     enum auxsample_form *form)
{
	bool new = !opts->aux_sample_overlap &&
		   !auxsample__overwrites(evlist, opts);
	int err;

	*form = AUXSAMPLE_GROUP;
	if (opts->aux_sample_group)
		return 0;
	err = auxsample__form(spec, aux, new, form);
	if (err || *form == AUXSAMPLE_GROUP)
		return err;

	/* A hidden AUX event takes its config from aux_sample_config alone. */
	if (aux->config1 || aux->config2) {
		pr_err("-A %s: only terms of config can be given to a hidden AUX event (--aux-sample-group takes any)\n",
		       spec);
		return -EINVAL;
	}
	return auxsample__check(spec, aux, size, *form);
}

/* Whether samplers @a and @b trace the same modes (hidden AUX events do). */
static bool auxsample__same_modes(const struct perf_event_attr *a,
				  const struct perf_event_attr *b)
{
	return a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel &&
	       a->exclude_hv == b->exclude_hv &&
	       a->exclude_idle == b->exclude_idle &&
	       a->exclude_host == b->exclude_host &&
	       a->exclude_guest == b->exclude_guest;
}

/*
 * The samplers of a task or CPU share its hidden AUX event only if they
 * trace the same modes: a second one is refused by an exclusive PMU
 * (intel_pt: EBUSY), or never runs beside the first (one ETM a CPU).
 */
static int auxsample__check_modes(struct evlist *evlist, const char *spec)
{
	struct evsel *first = evlist__first(evlist), *evsel;

	evlist__for_each_entry(evlist, evsel) {
		if (auxsample__same_modes(&first->core.attr, &evsel->core.attr))
			continue;
		pr_err("-A %s: %s and %s trace other modes, and the samplers of a task share its hidden AUX event: give them the same modifiers (such as :u)\n",
		       spec, evsel__name(first), evsel__name(evsel));
		return -EINVAL;
	}
	return 0;
}

static void auxsample__hidden(struct evlist *evlist,
			      const struct perf_event_attr *aux, u32 size,
			      enum auxsample_form form)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		struct perf_event_attr *attr = &evsel->core.attr;

		attr->aux_sample_type = aux->type;
		attr->aux_sample_config = aux->config;
		attr->aux_sample_size = size;
		attr->aux_sample_flags = auxsample__flags(form);
		evsel__set_sample_bit(evsel, AUX);
		/*
		 * A task's last sample, which the kernel takes at its exit
		 * with the trace up to it, has period 0: without the field
		 * it would read as the attr's (see auxsample__delivered()).
		 */
		evsel__set_sample_bit(evsel, PERIOD);
	}
}

/*
 * Move @aux from @tmp to the front of @evlist, leading all its events, and
 * tracing what the first of them counts, as a hidden AUX event would.
 */
static void auxsample__group(struct evlist *evlist, struct evlist *tmp,
			     struct evsel *aux)
{
	struct perf_event_attr *first = &evlist__first(evlist)->core.attr;
	struct evsel *evsel;
	int idx = 0;

	aux->core.attr.exclude_user = first->exclude_user;
	aux->core.attr.exclude_kernel = first->exclude_kernel;
	aux->core.attr.exclude_hv = first->exclude_hv;
	evlist__remove(tmp, aux);
	evlist__add(evlist, aux);
	evlist__to_front(evlist, aux);

	/* The group's members are counted, and written out, by index. */
	evlist__for_each_entry(evlist, evsel)
		evsel->core.idx = idx++;
	evlist__set_leader(evlist);
}

/**
 * auxsample__record_setup - perf record -A
 * @evlist: the events to record, parsed already
 * @opts: the record options; --aux-sample=SIZE is consumed here
 * @spec: the argument of -A: PMU[/TERMS/]
 *
 * Returns 0 or a negative errno, having said what is wrong.
 */
int auxsample__record_setup(struct evlist *evlist, struct record_opts *opts,
			    const char *spec)
{
	/* Read by auxtrace_parse_sample_options() after this returns. */
	static char size_str[16];
	struct evsel_config_term *term;
	enum auxsample_form form;
	struct evlist *tmp;
	struct evsel *aux;
	u32 size;
	int err;

	err = auxsample__size(opts->auxtrace_sample_opts, &size);
	if (err)
		return err;

	tmp = evlist__new();
	if (!tmp)
		return -ENOMEM;
	aux = auxsample__parse_pmu(tmp, spec);
	if (!aux) {
		err = -EINVAL;
		goto out;
	}

	if (evlist->core.nr_entries == 0) {
		err = __evlist__add_default(evlist, !opts->no_samples);
		if (err)
			goto out;
	}

	term = evsel__get_config_term(aux, CFG_CHG);
	opts->aux_sampler_terms = term ? term->val.cfg_chg : 0;

	err = auxsample__choose(spec, &aux->core.attr, size, evlist, opts,
				&form);
	if (!err && form != AUXSAMPLE_GROUP)
		err = auxsample__check_modes(evlist, spec);
	if (err)
		goto out;

	switch (form) {
	case AUXSAMPLE_HIDDEN:
		pr_warning("-A %s: the PMU does not say where its samples sit in the trace: overlap between samples will be guessed\n",
			   spec);
		__fallthrough;
	case AUXSAMPLE_HIDDEN_POSITION:
	case AUXSAMPLE_HIDDEN_NEW:
		auxsample__hidden(evlist, &aux->core.attr, size, form);
		opts->auxtrace_sample_opts = NULL;
		/* Record the PMU's AUXTRACE_INFO (and every build id). */
		opts->full_auxtrace = true;
		break;
	case AUXSAMPLE_GROUP:
	default:
		if (!opts->aux_sample_group)
			pr_warning("-A %s: this kernel has no hidden AUX events: recording in the group-leader form, %s leading all the events\n",
				   spec, spec);
		auxsample__group(evlist, tmp, aux);
		snprintf(size_str, sizeof(size_str), "%u", size);
		opts->auxtrace_sample_opts = size_str;
		break;
	}
out:
	evlist__delete(tmp);
	return err;
}

/* The aux_sample_misses that sampler @fd's fdinfo shows, or -1. */
static long long auxsample__fd_misses(int fd)
{
	char path[64], line[128];
	long long misses = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "aux_sample_misses: %lld", &misses) == 1)
			break;
	}
	fclose(f);
	return misses;
}

/**
 * auxsample__print_misses - say how many samples of each event had no trace
 * @evlist: the recorded events, still open
 *
 * The kernel counts, per sampler, the samples that got no trace from its
 * hidden AUX event (aux_sample_misses in the sampler's fdinfo, with those
 * of its inherited copies): a line per event of the hidden form, their sum
 * over its file descriptors.
 */
void auxsample__print_misses(struct evlist *evlist)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		struct xyarray *fds = evsel->core.fd;
		long long misses = 0, m;
		int x, y;

		if (!evsel->core.attr.aux_sample_type || !fds)
			continue;
		for (x = 0; x < xyarray__max_x(fds); x++) {
			for (y = 0; y < xyarray__max_y(fds); y++) {
				int fd = *(int *)xyarray__entry(fds, x, y);

				m = fd < 0 ? -1 : auxsample__fd_misses(fd);
				if (m > 0)
					misses += m;
			}
		}
		fprintf(stderr,
			"[ perf record: %s: %lld samples without trace (aux_sample_misses) ]\n",
			evsel__name(evsel), misses);
	}
}
