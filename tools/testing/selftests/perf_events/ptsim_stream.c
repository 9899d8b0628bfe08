// SPDX-License-Identifier: GPL-2.0
/*
 * ptsim's trace, read through the AUX area as perf record reads it: it must
 * be an Intel PT stream that libipt decodes without error, whose records
 * carry sequence numbers without a gap the kernel did not report, and IPs
 * of the traced context only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define SPIN_MS		300
/* The lowest address of the x86_64 kernel half. */
#define KERNEL_START	0xffff800000000000ULL

FIXTURE(ptsim_stream)
{
	int			fd;
	struct ptsim_map	map;
	struct ptsim_stream	stream;
	struct ptsim_trace	trace;
};

FIXTURE_VARIANT(ptsim_stream)
{
	bool	per_cpu;
	bool	overwrite;
	bool	user_only;
	size_t	aux_pages;
};

FIXTURE_VARIANT_ADD(ptsim_stream, task)
{
	.aux_pages = 64,
};

FIXTURE_VARIANT_ADD(ptsim_stream, task_user)
{
	.user_only = true,
	.aux_pages = 64,
};

FIXTURE_VARIANT_ADD(ptsim_stream, task_overwrite)
{
	.overwrite = true,
	.aux_pages = 2,
};

FIXTURE_VARIANT_ADD(ptsim_stream, cpu)
{
	.per_cpu = true,
	.aux_pages = 64,
};

FIXTURE_VARIANT_ADD(ptsim_stream, cpu_overwrite)
{
	.per_cpu = true,
	.overwrite = true,
	.aux_pages = 2,
};

FIXTURE_SETUP(ptsim_stream)
{
	struct perf_event_attr attr;
	int type = ptsim_type();
	cpu_set_t cpus;

	memset(self, 0, sizeof(*self));
	self->fd = -1;
	if (type < 0)
		SKIP(return, "no ptsim PMU (CONFIG_PTSIM)");

	/* A per-CPU event traces CPU 0: run there. */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(sched_setaffinity(0, sizeof(cpus), &cpus), 0);

	ptsim_attr(&attr, type, 0, 0);
	attr.exclude_kernel = variant->user_only;
	self->fd = ptsim_open(&attr, variant->per_cpu ? -1 : 0,
			      variant->per_cpu ? 0 : -1, -1);
	ASSERT_GE(self->fd, 0) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(ptsim_map(self->fd, &self->map, 8, variant->aux_pages,
			    variant->overwrite), 0);
}

FIXTURE_TEARDOWN(ptsim_stream)
{
	ptsim_trace_free(&self->trace);
	ptsim_stream_free(&self->stream);
	ptsim_unmap(&self->map);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(ptsim_stream, decodes)
{
	uint64_t count = 0;
	size_t i;
	int nr;

	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ptsim_spin(SPIN_MS);
	ASSERT_EQ(ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0), 0);

	nr = variant->overwrite ? ptsim_snapshot(&self->map, &self->stream) :
				  ptsim_collect(&self->map, &self->stream);
	ASSERT_GT(nr, 0);

	EXPECT_EQ(ptsim_decode(&self->stream, &self->trace), 0)
		TH_LOG("%u decode errors, first at %s",
		       self->trace.nr_errors, self->trace.error);
	ASSERT_GT(self->trace.nr, 10);
	/*
	 * psb_period=0: a PSB+ is due after 2 KiB, and comes before the next
	 * record, so at most 2048 + 51 (PSB+ and record) bytes apart.
	 */
	EXPECT_GE(self->trace.nr_psb, self->stream.len / (2048 + 51));
	EXPECT_EQ(ptsim_unreported_gap(&self->stream, &self->trace), -1);

	/* The event counts records: the last one written carries the count. */
	ASSERT_EQ(read(self->fd, &count, sizeof(count)), sizeof(count));
	EXPECT_EQ(self->trace.rec[self->trace.nr - 1].seq, count);
	/* Normal mode holds all the trace, from the first record on. */
	EXPECT_TRUE(variant->overwrite || self->trace.rec[0].seq == 1);

	for (i = 0; variant->user_only && i < self->trace.nr; i++) {
		ASSERT_LT(self->trace.rec[i].ip, KERNEL_START)
			TH_LOG("record %llu has kernel IP %llx",
			       (unsigned long long)self->trace.rec[i].seq,
			       (unsigned long long)self->trace.rec[i].ip);
	}
}

/* Record user-mode trace of this task for @ms into @s (normal mode). */
static int record_task(struct ptsim_stream *s, uint64_t config1,
		       size_t aux_pages, unsigned int ms)
{
	struct perf_event_attr attr;
	struct ptsim_map map;
	int fd, nr;

	ptsim_attr(&attr, ptsim_type(), 0, config1);
	fd = ptsim_open(&attr, 0, -1, -1);
	if (fd < 0)
		return -errno;
	if (ptsim_map(fd, &map, 1, aux_pages, false) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		close(fd);
		return -errno;
	}
	ptsim_spin(ms);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	nr = ptsim_collect(&map, s);
	ptsim_unmap(&map);
	close(fd);
	return nr;
}

/*
 * The sequence check itself: a stream with one record cut out, and no loss
 * reported by the kernel, must fail it.
 */
TEST(unreported_gap_is_caught)
{
	const size_t rec_len = 19;	/* PTW (10) + FUP (9) */
	struct ptsim_stream s = {}, cut = {};
	struct ptsim_trace t, tcut;
	uint64_t seq;
	uint8_t *p;
	size_t at;

	if (ptsim_type() < 0)
		SKIP(return, "no ptsim PMU (CONFIG_PTSIM)");
	ASSERT_GT(record_task(&s, 0, 16, SPIN_MS), 0);
	ASSERT_EQ(ptsim_decode(&s, &t), 0) TH_LOG("%s", t.error);
	ASSERT_GT(t.nr, 3);
	ASSERT_EQ(ptsim_unreported_gap(&s, &t), -1);

	/* Find the PTW (02 b2 <seq>) of the middle record and cut it out. */
	for (p = s.data; (p = memmem(p, s.data + s.len - p, "\x02\xb2", 2)); p++) {
		memcpy(&seq, p + 2, sizeof(seq));
		if (seq == t.rec[t.nr / 2].seq)
			break;
	}
	ASSERT_NE(p, NULL);
	at = p - s.data;
	ptsim_stream_add(&cut, s.data, at, 0);
	ptsim_stream_add(&cut, p + rec_len, s.len - at - rec_len, 0);

	ASSERT_EQ(ptsim_decode(&cut, &tcut), 0) TH_LOG("%s", tcut.error);
	EXPECT_EQ(tcut.nr, t.nr - 1);
	EXPECT_EQ(ptsim_unreported_gap(&cut, &tcut), t.nr / 2);

	/* Reported by the kernel (TRUNCATED), the same gap is fine. */
	cut.chunk[0].flags = PERF_AUX_FLAG_TRUNCATED;
	EXPECT_EQ(ptsim_unreported_gap(&cut, &tcut), -1);
	ptsim_trace_free(&tcut);
	ptsim_trace_free(&t);
	ptsim_stream_free(&cut);
	ptsim_stream_free(&s);
}

/*
 * A reader that falls behind: the kernel drops records and says so with
 * PERF_AUX_FLAG_TRUNCATED (or PARTIAL); once the reader has caught up (and enabled the
 * event again, which the core may have disabled), the sequence goes on
 * past the gap.
 */
TEST(loss_is_reported)
{
	struct ptsim_stream s = {};
	struct perf_event_attr attr;
	struct ptsim_trace t;
	struct ptsim_map map;
	bool truncated = false;
	int fd, tries;
	size_t i;

	if (ptsim_type() < 0)
		SKIP(return, "no ptsim PMU (CONFIG_PTSIM)");
	/* Two AUX pages hold ~400 records. */
	ptsim_attr(&attr, ptsim_type(), 0, PTSIM_INTERVAL(10));
	fd = ptsim_open(&attr, 0, -1, -1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ptsim_map(fd, &map, 1, 2, false), 0);

	/* Let the buffer fill up, unread, then trace on into the full one. */
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	for (tries = 0; map.pg->aux_head < map.aux_size && tries < 100; tries++)
		ptsim_spin(100);
	ptsim_spin(100);
	ASSERT_GT(ptsim_collect(&map, &s), 0);
	/* The kernel may have disabled the event on truncation: go on. */
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ptsim_spin(SPIN_MS);
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	ASSERT_GT(ptsim_collect(&map, &s), 0);
	/*
	 * The loss is told by a TRUNCATED AUX record or, if the buffer was
	 * full to the byte so that no handle could be had to say so, by
	 * PARTIAL on the next one (see drivers/hwtracing/ptsim/pmu.c).
	 */
	for (i = 0; i < s.nr_chunks; i++)
		truncated |= !!(s.chunk[i].flags & (PERF_AUX_FLAG_TRUNCATED |
						     PERF_AUX_FLAG_PARTIAL));
	ASSERT_TRUE(truncated);

	EXPECT_EQ(ptsim_decode(&s, &t), 0) TH_LOG("%s", t.error);
	ASSERT_GT(t.nr, 10);
	EXPECT_EQ(ptsim_unreported_gap(&s, &t), -1);
	/* Records were lost: the last sequence number exceeds the count. */
	EXPECT_GT(t.rec[t.nr - 1].seq, t.nr);
	ptsim_trace_free(&t);
	ptsim_stream_free(&s);
	ptsim_unmap(&map);
	close(fd);
}

TEST_HARNESS_MAIN
