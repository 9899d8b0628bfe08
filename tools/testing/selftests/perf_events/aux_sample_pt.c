// SPDX-License-Identifier: GPL-2.0
/*
 * AUX samples of a hidden Intel PT event (attr.aux_sample_type names
 * intel_pt), checked with libipt's instruction decoder: a sampler of this
 * task's user-mode instructions, or of its page faults, takes, in each
 * sample, the newest trace of a hidden intel_pt event with its position
 * in the stream.  Each sample's trace must decode without error over this
 * process's code, and end where the sample was taken: user-mode tracing is
 * disabled at the interrupt or fault that took the sample, at the sample's
 * IP.  So also after the hidden event's trace reached a ToPA STOP and a
 * sleep scheduled it out.  Skips where there is no intel_pt PMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <intel-pt.h>
#include <linux/perf_event.h>

#include "ptsim_lib.h"
#include "../kselftest_harness.h"

#define PERIOD		100000		/* instructions between samples */
/* Room for a round's samples (a few hundred, up to 8 KiB each) */
#define DATA_PAGES	1024
#define MAX_ROUNDS	20

FIXTURE(pt_sample) {
	int			fd;
	struct ptsim_map	map;
	struct ptsim_samples	ss;
	struct ptsim_ranges	text;
	struct pt_image		*image;
};

/*
 * The sampler: a counter of user-mode instructions, whose samples are
 * taken in NMIs, or page faults, whose samples are taken in the fault
 * handler, where a PMI of the hidden event comes as soon as it is raised.
 * Each sample stops and restarts the trace.  The page_faults variant
 * faults after about a whole hidden buffer (2 pages) of trace, and
 * samples that much: now and then a restart's PSB+ ends a half of the
 * buffer, and the PMI that raises must move the ToPA STOP on before the
 * output reaches it, half a buffer later, or trace is lost there, in the
 * next sample's trace (pt_event_snapshot_aux()).
 */
FIXTURE_VARIANT(pt_sample) {
	__u32		type;
	__u64		config;
	__u64		period;
	__u32		trace_size;
	unsigned int	faults;		/* in a round of work, or 0 */
	unsigned int	min_samples;
};

FIXTURE_VARIANT_ADD(pt_sample, instructions) {
	.type = PERF_TYPE_HARDWARE,
	.config = PERF_COUNT_HW_INSTRUCTIONS,
	.period = PERIOD,
	.trace_size = 4096,
	.min_samples = 5,
};

FIXTURE_VARIANT_ADD(pt_sample, page_faults) {
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_PAGE_FAULTS,
	.period = 1,
	.trace_size = 8192,
	.faults = 100,
	.min_samples = 500,
};

FIXTURE_SETUP(pt_sample)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = variant->type,
		.config = variant->config,
		.sample_period = variant->period,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_AUX,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.aux_sample_size = variant->trace_size,
		.aux_sample_config = PTSIM_PT_BRANCH,
		.aux_sample_flags = PERF_AUX_SAMPLE_POSITION,
	};
	int type = ptsim_pmu_type("intel_pt");

	self->fd = -1;
	if (type < 0)
		SKIP(return, "no intel_pt PMU");
	attr.aux_sample_type = type;
	self->fd = ptsim_open(&attr, 0, -1, -1);
	ASSERT_GE(self->fd, 0) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(ptsim_map(self->fd, &self->map, DATA_PAGES, 0, false), 0);
	ASSERT_EQ(ptsim_text_ranges(&self->text), 0);
	self->image = ptsim_self_image(&self->text);
	ASSERT_NE(self->image, NULL);
}

FIXTURE_TEARDOWN(pt_sample)
{
	if (self->fd < 0)
		return;
	pt_image_free(self->image);
	ptsim_ranges_free(&self->text);
	ptsim_samples_free(&self->ss);
	ptsim_unmap(&self->map);
	close(self->fd);
}

/* Where the trace of sample @s ends in its stream, or 0 */
static uint64_t stream_end(const struct ptsim_sample *s)
{
	struct perf_aux_sample_position pos;

	if (s->aux.len < sizeof(pos))
		return 0;
	memcpy(&pos, s->aux.data, sizeof(pos));
	return pos.offset + pos.size;
}

/*
 * Sample in rounds of @faults (ptsim_sample_round()) until there are @min
 * samples, and check every sample's trace: it decodes, and ends at the
 * sample's IP.  With faults, the first round's positions tell how much
 * trace ptsim_work() writes, and the rounds after work for @trace_size bytes
 * between faults.
 */
static void sample_and_check(struct __test_metadata *_metadata, int fd,
			     struct ptsim_map *map, struct ptsim_samples *ss,
			     struct pt_image *image, unsigned int faults,
			     uint64_t trace_size, size_t min)
{
	uint64_t with_trace = 0, no_data = 0, empty_at = 0, bytes;
	unsigned long n = faults ? 10000 : PERIOD * 5;
	int round;
	size_t i;

	for (round = 0; round < MAX_ROUNDS; round++) {
		size_t first = ss->nr;
		uint64_t lost = 0;

		ASSERT_EQ(ptsim_sample_round(fd, map, PERF_SAMPLE_IP |
					     PERF_SAMPLE_AUX, ss, faults, n,
					     &lost), 0);
		ASSERT_EQ(lost, 0);
		if (ss->nr >= min)
			break;
		if (round || !faults || ss->nr < first + 2)
			continue;
		bytes = (stream_end(&ss->s[ss->nr - 1]) -
			 stream_end(&ss->s[first])) / (ss->nr - first - 1);
		ASSERT_GT(bytes, 0);
		n = n * trace_size / bytes + 1;
	}
	ASSERT_GE(ss->nr, min);

	for (i = 0; i < ss->nr; i++) {
		const struct ptsim_sample *s = &ss->s[i];
		struct perf_aux_sample_position pos;
		struct ptsim_flow d;
		char why[128];

		/*
		 * A miss (the hidden event was not running here) has no AUX
		 * data at all, or a header that says no trace.
		 */
		if (!s->aux.len) {
			no_data++;
			continue;
		}
		ASSERT_GE(s->aux.len, sizeof(pos));
		memcpy(&pos, s->aux.data, sizeof(pos));
		ASSERT_LE(pos.size, s->aux.len - sizeof(pos));
		if (!pos.size) {
			empty_at = pos.offset;
			continue;
		}
		with_trace++;
		EXPECT_EQ(ptsim_flow_check(s->aux.data + s->aux.len - pos.size,
					   pos.size, s->ip, image, &d, why,
					   sizeof(why)), 0)
			TH_LOG("sample %zu of %zu (ip %#llx): %s", i, ss->nr,
			       (unsigned long long)s->ip, why);
		EXPECT_GT(d.insns, 0) TH_LOG("sample %zu", i);
	}
	EXPECT_GE(with_trace, min)
		TH_LOG("%llu of %zu samples have trace; %llu no AUX data, %s %llu",
		       (unsigned long long)with_trace, ss->nr,
		       (unsigned long long)no_data,
		       "the others an empty header, the last at stream offset",
		       (unsigned long long)empty_at);
}

TEST_F(pt_sample, trace_decodes_and_ends_at_sample_ip)
{
	if (self->fd < 0)
		return;
	sample_and_check(_metadata, self->fd, &self->map, &self->ss,
			 self->image, variant->faults, variant->trace_size,
			 variant->min_samples);
}

/*
 * The hidden event traces from its creation on, its sampler enabled or
 * not, and the trace reaches the ToPA STOP that ends the first half of its
 * buffer (pt_buffer_mark_laps()).  A sleep then schedules it out, which
 * ends its output handle: it must come back, with trace for the samples.
 * Not on CPU 0 if there is another: there, 6.1 loses the disable that the
 * core asks for at the end of a handle (pending_disable, the CPU number,
 * is tested as a flag), which would hide a hidden event disabled.
 */
TEST_F(pt_sample, trace_after_a_stop_and_a_sleep)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (self->fd < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpus > 1 ? cpus - 1 : 0, &set);
	ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	ptsim_work(PERIOD);
	usleep(10000);
	sample_and_check(_metadata, self->fd, &self->map, &self->ss,
			 self->image, variant->faults, variant->trace_size,
			 variant->min_samples);
}

TEST_HARNESS_MAIN
