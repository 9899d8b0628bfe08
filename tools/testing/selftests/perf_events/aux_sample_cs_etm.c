// SPDX-License-Identifier: GPL-2.0
/*
 * AUX samples of a hidden CoreSight event (attr.aux_sample_type names
 * cs_etm; the sink is the CPU's TRBE), checked with OpenCSD's ETE decoder:
 * a sampler of this task's user-mode CPU time, its page faults, or its
 * instructions, takes, in each sample, the newest trace of a hidden cs_etm
 * event with its position in the stream.  Each sample's trace must decode
 * over this process's code only and end where the sample was taken:
 * user-mode tracing stops at the exception that took it (the timer's or
 * the PMU's interrupt, the data abort), so its last exception is that one,
 * with the sample's IP as its preferred return address.  Samples that share part of the stream
 * must hold the same bytes there.  Skips where there is no cs_etm PMU.
 *
 * One exception to the end at the IP: the TRBE stops when it has filled
 * its buffer (FILL mode, which the driver uses) until its interrupt is
 * handled, and what the trace unit writes meanwhile is lost.  A sample
 * taken then, as the timer's interrupt may be when it comes with the
 * TRBE's, holds trace that ends where a lap of the buffer does, without
 * the exception that took it.  Such samples must be few.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "cs_etm_decode.h"
#include "ptsim_lib.h"
#include "../kselftest_harness.h"

/* Room for a round's samples (a few hundred, 4 KiB each) */
#define DATA_PAGES	1024
#define DEADLINE	60		/* seconds of sampling at most */
#define MAX_ROUNDS	1000

FIXTURE(cs_etm_sample) {
	int			fd;
	struct ptsim_map	map;
	struct ptsim_samples	ss;
	struct ptsim_ranges	text;
	ocsd_ete_cfg		cfg;
	uint64_t		ring;	/* the hidden event's buffer, bytes */
};

/*
 * The sampler: this task's CPU time, sampled from the timer's interrupt,
 * or its page faults, sampled in the fault handler, in rounds of work
 * until there are about a hundred of either (OpenCSD takes a fifth of a
 * second for each in TCG), the faults' sharing most of their trace with
 * the sample before, the timer's some.
 */
FIXTURE_VARIANT(cs_etm_sample) {
	__u32		type;
	__u64		config;
	__u64		period;
	unsigned int	faults;		/* in a round of work, or 0 */
	unsigned int	min_samples;
};

FIXTURE_VARIANT_ADD(cs_etm_sample, cpu_clock) {
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_CPU_CLOCK,
	.period = 200000,		/* ns */
	.min_samples = 100,
};

FIXTURE_VARIANT_ADD(cs_etm_sample, page_faults) {
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_PAGE_FAULTS,
	.period = 1,
	.faults = 100,
	.min_samples = 200,
};

FIXTURE_VARIANT_ADD(cs_etm_sample, instructions) {
	.type = PERF_TYPE_HARDWARE,
	.config = PERF_COUNT_HW_INSTRUCTIONS,
	.period = 5003,		/* samples close enough to overlap */
	.min_samples = 100,
};

#define TRACE_SIZE	4096

FIXTURE_SETUP(cs_etm_sample)
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
		.aux_sample_size = TRACE_SIZE,
		.aux_sample_flags = PERF_AUX_SAMPLE_POSITION,
	};
	int type = ptsim_pmu_type("cs_etm");

	self->fd = -1;
	if (type < 0)
		SKIP(return, "no cs_etm PMU");
	if (access(CS_ETM_TRBE_SYSFS, F_OK))
		SKIP(return, "no TRBE, the only sink that fills AUX samples");
	ASSERT_EQ(cs_etm_ete_config(&self->cfg), 0)
		TH_LOG("cs_etm has no ETE ID registers in sysfs");
	attr.aux_sample_type = type;
	self->fd = ptsim_open(&attr, 0, -1, -1);
	ASSERT_GE(self->fd, 0) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(ptsim_map(self->fd, &self->map, DATA_PAGES, 0, false), 0);
	ASSERT_EQ(ptsim_text_ranges(&self->text), 0);
	ASSERT_EQ(ptsim_fdinfo_u64(self->fd, "aux_sample_pages", &self->ring), 0);
	self->ring *= sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(cs_etm_sample)
{
	if (self->fd < 0)
		return;
	ptsim_ranges_free(&self->text);
	ptsim_samples_free(&self->ss);
	ptsim_unmap(&self->map);
	close(self->fd);
}

/* Sample @s's position and trace; false if it has none. */
static bool sample_trace(struct __test_metadata *_metadata,
			 const struct ptsim_sample *s,
			 struct perf_aux_sample_position *pos,
			 const uint8_t **trace)
{
	if (!s->aux.len)
		return false;
	EXPECT_GE(s->aux.len, sizeof(*pos));
	if (s->aux.len < sizeof(*pos))
		return false;
	memcpy(pos, s->aux.data, sizeof(*pos));
	EXPECT_LE(pos->size, s->aux.len - sizeof(*pos));
	if (!pos->size || pos->size > s->aux.len - sizeof(*pos))
		return false;
	*trace = s->aux.data + s->aux.len - pos->size;
	return true;
}

/*
 * Whether sample @s's trace, after @prev's in the stream, holds the same
 * bytes where the two overlap.  Adds the overlap to @shared.
 */
static bool agrees(const struct perf_aux_sample_position *prev,
		   const uint8_t *prev_trace,
		   const struct perf_aux_sample_position *pos,
		   const uint8_t *trace, uint64_t *shared)
{
	uint64_t from = pos->offset > prev->offset ? pos->offset : prev->offset;
	uint64_t to = prev->offset + prev->size;

	if (pos->offset + pos->size < to)
		to = pos->offset + pos->size;
	if (from >= to)
		return true;
	*shared += to - from;
	return !memcmp(prev_trace + (from - prev->offset),
		       trace + (from - pos->offset), to - from);
}

/*
 * Check every sample of @ss: its trace decodes over this process's code,
 * its last exception returns to the sample's IP with no instruction traced
 * after it, its position does not go back, and what it shares with the
 * sample before agrees.  Each round of sampling enables the sampler, which
 * restarts the hidden event (it idles while the sampler is disabled); the
 * first samples of a round (it starts at sample @round[r], r < @rounds)
 * may come before the task ran one instruction since: the timer expired
 * in the ioctl, and in TCG its interrupts can take longer than its period,
 * so that the next one comes at the return to user mode.  Their trace
 * holds no instruction, only exceptions, all at the same IP.
 */
static void check_samples(struct __test_metadata *_metadata,
			  struct ptsim_samples *ss, const size_t *round,
			  size_t rounds, struct ptsim_ranges *text,
			  ocsd_ete_cfg *cfg, uint64_t ring, size_t min)
{
	struct perf_aux_sample_position prev = { 0 }, pos;
	const uint8_t *prev_trace = NULL, *trace;
	uint64_t shared = 0, with_trace = 0, no_trace = 0, full = 0;
	uint64_t empty = 0, still_ip = 0;
	bool still = false;	/* no instruction yet in this round */
	char why[160];
	size_t i, r = 0;

	for (i = 0; i < ss->nr; i++) {
		const struct ptsim_sample *s = &ss->s[i];
		struct cs_etm_flow f = { .text = text };

		while (r < rounds && round[r] <= i) {
			if (round[r++] == i) {
				still = true;
				still_ip = s->ip;
			}
		}
		if (!sample_trace(_metadata, s, &pos, &trace)) {
			no_trace++;
			continue;
		}
		with_trace++;
		EXPECT_EQ(cs_etm_decode(trace, pos.size, cfg, &f, why,
					sizeof(why)), 0)
			TH_LOG("sample %zu: %s", i, why);
		if (!f.ranges && still && s->ip == still_ip)
			empty++;
		else
			EXPECT_GT(f.ranges, 0)
				TH_LOG("sample %zu at %#llx: no instructions (%s %#llx)",
				       i, (unsigned long long)s->ip,
				       still ? "its round began at" : "after some, round at",
				       (unsigned long long)still_ip);
		if (f.ranges)
			still = false;
		EXPECT_EQ(f.outside, 0)
			TH_LOG("sample %zu: %zu of %zu ranges not in our code, e.g. %#llx",
			       i, f.outside, f.ranges,
			       (unsigned long long)f.outside_at);
		EXPECT_EQ(f.nacc, 0)
			TH_LOG("sample %zu: code at %#llx not readable", i,
			       (unsigned long long)f.nacc_at);
		/* At a full buffer: see the top of this file */
		if (!cs_etm_ends_at(&f, s->ip) && !((pos.offset + pos.size) % ring))
			full++;
		else
			EXPECT_TRUE(cs_etm_ends_at(&f, s->ip))
				TH_LOG("sample %zu, ip %#llx: exception to %#llx, %zu ranges after",
				       i, (unsigned long long)s->ip,
				       (unsigned long long)f.exc_ret, f.after);

		if (prev_trace && prev.stream == pos.stream) {
			EXPECT_GE(pos.offset + pos.size, prev.offset + prev.size)
				TH_LOG("sample %zu goes back in the stream", i);
			EXPECT_TRUE(agrees(&prev, prev_trace, &pos, trace,
					   &shared))
				TH_LOG("samples %zu and %zu disagree where they overlap",
				       i - 1, i);
		}
		prev = pos;
		prev_trace = trace;
	}
	EXPECT_GE(with_trace, min)
		TH_LOG("%llu of %zu samples have trace", (unsigned long long)with_trace,
		       ss->nr);
	EXPECT_LE(full * 20, with_trace)
		TH_LOG("%llu samples end at a full buffer", (unsigned long long)full);
	/* The check of positions checked something. */
	EXPECT_GT(shared, 0) TH_LOG("no two samples share trace");
	TH_LOG("%zu samples in %zu rounds, %llu with trace, %llu without, %llu B shared",
	       ss->nr, rounds, (unsigned long long)with_trace,
	       (unsigned long long)no_trace, (unsigned long long)shared);
	TH_LOG("of those with trace: %llu at a full buffer, %llu before an instruction",
	       (unsigned long long)full, (unsigned long long)empty);
}

TEST_F(cs_etm_sample, trace_decodes_and_ends_at_sample_ip)
{
	unsigned long n = variant->faults ? 200 : 40000;
	double end = ptsim_now() + DEADLINE;
	size_t round[MAX_ROUNDS], rounds = 0;

	if (self->fd < 0)
		return;
	while (self->ss.nr < variant->min_samples && ptsim_now() < end) {
		uint64_t lost = 0;

		ASSERT_LT(rounds, MAX_ROUNDS);
		round[rounds++] = self->ss.nr;
		ASSERT_EQ(ptsim_sample_round(self->fd, &self->map,
					     PERF_SAMPLE_IP | PERF_SAMPLE_AUX,
					     &self->ss, variant->faults, n,
					     &lost), 0);
		ASSERT_EQ(lost, 0);
	}
	ASSERT_GE(self->ss.nr, variant->min_samples);
	check_samples(_metadata, &self->ss, round, rounds, &self->text,
		      &self->cfg, self->ring, variant->min_samples);
}

/*
 * The group form of AUX sampling, a sampler with aux_sample_size in a
 * group that a cs_etm event leads, is refused: its samples must be
 * filled, and only a TRBE sink can copy trace into them.
 */
TEST(group_form_refused)
{
	struct perf_event_attr leader = {
		.size = sizeof(leader),
		.exclude_kernel = 1,
		.disabled = 1,
	};
	struct perf_event_attr sampler = {
		.size = sizeof(sampler),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_AUX,
		.exclude_kernel = 1,
		.aux_sample_size = TRACE_SIZE,
	};
	int type = ptsim_pmu_type("cs_etm");
	int fd, sfd;

	if (type < 0)
		SKIP(return, "no cs_etm PMU");
	leader.type = type;
	fd = ptsim_open(&leader, 0, -1, -1);
	ASSERT_GE(fd, 0) TH_LOG("perf_event_open(cs_etm): %s", strerror(errno));
	sfd = ptsim_open(&sampler, 0, -1, fd);
	EXPECT_EQ(sfd, -1);
	EXPECT_EQ(errno, EINVAL);
	if (sfd >= 0)
		close(sfd);
	close(fd);
}

TEST_HARNESS_MAIN
