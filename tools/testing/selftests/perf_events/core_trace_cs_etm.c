// SPDX-License-Identifier: GPL-2.0
/*
 * PR_SET_CORE_TRACE on CoreSight (cs_etm, whose sink is each CPU's TRBE),
 * checked with OpenCSD's ETE decoder.  A child that asked for its latest
 * user-mode trace calls a function many times, more trace than its buffer
 * keeps, then writes through NULL.  Its core's note must hold the latest
 * TRACE_SIZE bytes of its trace, older trace overwritten; the trace must
 * decode over this program's code only and end with the data abort, whose
 * preferred return address is the instruction that faulted: the IP in the
 * core's registers.  Each thread of a crashing process gets a note whose
 * trace decodes.  Skips where there is no cs_etm PMU with a TRBE.
 *
 * The kselftest_harness.h of this kernel runs a test even when its fixture
 * setup skipped it, so each test starts by checking _metadata->skip.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "../kselftest_harness.h"
#include "core_trace_lib.h"
#include "cs_etm_decode.h"
#include "ptsim_lib.h"

#define TRACE_SIZE	4096
/* Calls of step(): some 100 KB of trace, much more than TRACE_SIZE */
#define STEPS		100000
#define NR_SPINNERS	2

/* Not inlined: selftests build without optimization */
static void step(void)
{
	asm volatile("" : : : "memory");
}

/* Where the crash writes: nothing is mapped there. */
int *crash_address;

static void crash(void)
{
	*crash_address = 0;
}

/* STEPS calls, then SIGSEGV; never returns. */
static void step_and_crash(void)
{
	struct rlimit lim = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned long i;

	if (setrlimit(RLIMIT_CORE, &lim))
		_exit(103);
	for (i = 0; i < STEPS; i++)
		step();
	crash();
	_exit(100);
}

static pthread_barrier_t spinners;

/* A thread that spins until the dump stops it. */
static void *spinning_thread(void *arg)
{
	pthread_barrier_wait(&spinners);
	for (;;)
		step();
	return NULL;
}

FIXTURE(core_trace_cs_etm) {
	int			type;
	ocsd_ete_cfg		cfg;
	struct ptsim_ranges	text;
	char			dir[64];
	char			pattern[256];	/* the one to put back */
	bool			pattern_saved;
};

FIXTURE_SETUP(core_trace_cs_etm)
{
	self->type = ptsim_pmu_type("cs_etm");
	if (self->type < 0)
		SKIP(return, "no cs_etm PMU");
	if (access(CS_ETM_TRBE_SYSFS, F_OK))
		SKIP(return, "no TRBE, the only sink that keeps core trace");
	if (geteuid())
		SKIP(return, "needs root: kernel.core_pattern");
	ASSERT_EQ(cs_etm_ete_config(&self->cfg), 0)
		TH_LOG("cs_etm has no ETE ID registers in sysfs");
	ASSERT_EQ(ptsim_text_ranges(&self->text), 0);
	strcpy(self->dir, "/tmp/core_trace_cs_etm.XXXXXX");
	ASSERT_EQ(core_dir_make(self->dir, self->pattern, sizeof(self->pattern)), 0);
	self->pattern_saved = true;
}

FIXTURE_TEARDOWN(core_trace_cs_etm)
{
	if (!self->pattern_saved)
		return;
	EXPECT_EQ(core_dir_remove(self->dir, self->pattern), 0);
	ptsim_ranges_free(&self->text);
}

/* The IP in the registers of thread @tid in @cn, or 0. */
static uint64_t ip_of(const struct core_notes *cn, pid_t tid)
{
	size_t i;

	for (i = 0; i < cn->nr_tid; i++)
		if (cn->tid[i] == tid)
			return cn->ip[i];
	return 0;
}

/*
 * Check that thread @tid's note in @cn holds cs_etm trace, all it could
 * keep, older trace overwritten, that decodes over this program's code
 * (@text) into @f.
 */
static void check_note(struct __test_metadata *_metadata,
		       ocsd_ete_cfg *cfg, const struct ptsim_ranges *text,
		       const struct core_notes *cn, pid_t tid,
		       struct cs_etm_flow *f)
{
	const struct perf_core_trace_note *note = core_notes_of(cn, tid);
	char why[160];

	ASSERT_NE(note, NULL) TH_LOG("no note of thread %d", tid);
	EXPECT_EQ(note->hdr_size, sizeof(*note));
	EXPECT_STREQ(note->pmu, "cs_etm");
	EXPECT_EQ(note->size, TRACE_SIZE);
	EXPECT_EQ(note->flags, PERF_CORE_TRACE_WRAPPED);
	EXPECT_GT(note->offset, 0);

	memset(f, 0, sizeof(*f));
	f->text = text;
	ASSERT_EQ(cs_etm_decode((const uint8_t *)(note + 1), note->size,
				cfg, f, why, sizeof(why)), 0)
		TH_LOG("thread %d: %s", tid, why);
	EXPECT_GT(f->ranges, 100) TH_LOG("thread %d", tid);
	EXPECT_EQ(f->outside, 0)
		TH_LOG("thread %d: %zu of %zu ranges not in our code, e.g. %#llx",
		       tid, f->outside, f->ranges,
		       (unsigned long long)f->outside_at);
	EXPECT_EQ(f->nacc, 0)
		TH_LOG("thread %d: code at %#llx not readable", tid,
		       (unsigned long long)f->nacc_at);
}

/* The crashing thread's trace ends with the abort at the faulting store. */
static void check_crash(struct __test_metadata *_metadata,
			const struct core_notes *cn, pid_t tid,
			const struct cs_etm_flow *f)
{
	uint64_t ip = ip_of(cn, tid);

	ASSERT_NE(ip, 0) TH_LOG("no registers of thread %d", tid);
	EXPECT_TRUE(cs_etm_ends_at(f, ip))
		TH_LOG("fault at %#llx; the last exception returns to %#llx, %zu ranges after it",
		       (unsigned long long)ip, (unsigned long long)f->exc_ret,
		       f->after);
}

TEST_F(core_trace_cs_etm, crash_trace_ends_at_the_fault)
{
	struct core_notes cn;
	struct cs_etm_flow f;
	char why[160];
	pid_t pid;

	if (_metadata->skip)
		return;
	pid = core_trace_fork(self->type, 0, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid)
		step_and_crash();
	ASSERT_EQ(core_notes_wait(pid, self->dir, &cn, why, sizeof(why)), 0)
		TH_LOG("%s", why);
	EXPECT_EQ(cn.nr_trace, 1);
	check_note(_metadata, &self->cfg, &self->text, &cn, pid, &f);
	check_crash(_metadata, &cn, pid, &f);
	core_notes_free(&cn);
}

/*
 * Threads created after the prctl each get a note of their own, whose
 * trace decodes; the crashing thread's, first, ends at the fault.
 */
TEST_F(core_trace_cs_etm, every_thread_has_a_note)
{
	struct core_notes cn;
	struct cs_etm_flow f;
	pthread_t thread;
	char why[160];
	pid_t pid;
	size_t i;
	int n;

	if (_metadata->skip)
		return;
	pid = core_trace_fork(self->type, 0, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid) {
		pthread_barrier_init(&spinners, NULL, NR_SPINNERS + 1);
		for (n = 0; n < NR_SPINNERS; n++)
			if (pthread_create(&thread, NULL, spinning_thread, NULL))
				_exit(102);
		pthread_barrier_wait(&spinners);
		step_and_crash();
	}
	ASSERT_EQ(core_notes_wait(pid, self->dir, &cn, why, sizeof(why)), 0)
		TH_LOG("%s", why);
	ASSERT_EQ(cn.nr_trace, NR_SPINNERS + 1);
	EXPECT_EQ(cn.nr_tid, NR_SPINNERS + 1);
	EXPECT_EQ(cn.trace[0]->tid, pid);
	for (i = 0; i < cn.nr_trace; i++) {
		check_note(_metadata, &self->cfg, &self->text, &cn,
			   cn.trace[i]->tid, &f);
		if (cn.trace[i]->tid == pid)
			check_crash(_metadata, &cn, pid, &f);
	}
	core_notes_free(&cn);
}

TEST_HARNESS_MAIN
