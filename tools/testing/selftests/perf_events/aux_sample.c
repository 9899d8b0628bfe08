// SPDX-License-Identifier: GPL-2.0
/*
 * AUX sampling through a hidden AUX event: a software sampler with
 * PERF_SAMPLE_AUX names ptsim in attr.aux_sample_type, and the kernel runs
 * a ptsim event for it, in overwrite mode into a buffer nobody maps, whose
 * latest trace goes into every sample.
 *
 * The samples must decode, hold contiguous sequence numbers that never go
 * back, end in what the task did just before the sample, and come from the
 * task's own trace, for threads and forked children too.  Samplers alike
 * share one hidden event and one charged buffer; fdinfo tells which.
 *
 * The workload runs in two phase functions, phase_a() and phase_b(): each
 * spins, then writes to a page it has never touched, NR_TOUCH times over.
 * A page-faults sampler turns each write into a sample, whose address tells
 * which phase took it and whose trace must end in that phase.  The extent
 * of the functions comes from the program's symbol table.
 *
 * The tests of the trace in the samples (fixture aux_sample_pmu) run on
 * Intel PT too, where the PMU is there: libipt decodes each sample's trace
 * over this process's code, and its last instructions stand for ptsim's
 * records (they must end in the phase, at the sample's IP).
 *
 * The kselftest_harness.h of this kernel runs a test even when its fixture
 * setup skipped it, so each test starts by checking _metadata->skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <intel-pt.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define SAMPLE_SIZE	4096
#define DATA_PAGES	256
#define CPU_DATA_PAGES	1024	/* a per-CPU sampler sees every task */
#define NR_TOUCH	8	/* page faults per phase */
/*
 * The spinning before each of them outlasts the longest a CPU's timers can
 * stall: when hrtimer_interrupt() finds its timers expired again three
 * times over (a debug kernel in an emulator on a busy host does), it defers
 * them by the time it spent, up to 100 ms, and ptsim's with them.  A tick
 * then still lands in the phase before its write.
 */
#define SPIN_US		105000
#define TASK_CLOCK_NS	10000000
#define POS_SLOW_NS	500000000	/* the buffer wraps between samples */
#define POS_SPIN_MS	3000
#define NR_FDS		3

/* What the page-fault samples carry. */
#define FAULT_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_ADDR)

struct phase {
	char		*mem;		/* NR_TOUCH pages, untouched */
	size_t		page;
	unsigned long	spin;		/* loop iterations before each write */
};

/*
 * Everything a phase does happens in the phase function itself, so that
 * every IP ptsim records while it runs lies in it: the spin is written out
 * rather than called (selftests build without optimization, so a helper
 * would not be inlined).  The memory clobber keeps the write after the
 * spin.  The value written differs between the phases so that a compiler
 * that merges identical functions keeps them apart.
 */
#define DEFINE_PHASE(name, tag)						\
static void name(const struct phase *p)					\
{									\
	unsigned long i;						\
	int n;								\
									\
	for (n = 0; n < NR_TOUCH; n++) {				\
		for (i = 0; i < p->spin; i++)				\
			asm volatile("" : : "r" (i) : "memory");	\
		p->mem[n * p->page] = (tag);				\
	}								\
}

DEFINE_PHASE(phase_a, 'A')
DEFINE_PHASE(phase_b, 'B')

/* The test's state, which the helpers take. */
struct env {
	const char		*pmu;	/* the hidden events' */
	int			type;
	struct pt_image		*image;	/* this process, for Intel PT */
	size_t			page;
	struct ptsim_ranges	text;	/* executable mappings */
	struct ptsim_ranges	phases;	/* phase_a(), phase_b() */
	struct phase		a, b;
	int			fd[NR_FDS];
	struct ptsim_map	map[NR_FDS];
	bool			mlock_saved;
	long			mlock_kb;
};

FIXTURE(aux_sample)
{
	struct env	e;
};

/* The samples of one ring buffer and the decoded trace of each. */
struct run {
	struct ptsim_samples	ss;
	struct ptsim_trace	*t;
};

/* What a sampler's fdinfo says about its hidden event. */
struct hidden {
	char		pmu[32];
	uint64_t	id;
	uint64_t	pages;
	uint64_t	users;
	uint64_t	misses;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* NR_TOUCH pages of a phase, never touched, one fault per page. */
static void *phase_pages(size_t page)
{
	void *p = mmap(NULL, NR_TOUCH * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, NR_TOUCH * page, MADV_NOHUGEPAGE);
	return p;
}

/* A user-space sampler of @config that takes trace of PMU @type, SAMPLE_SIZE. */
static void hidden_attr(struct perf_event_attr *attr, int type,
			uint64_t config, uint64_t period, uint64_t sample_type)
{
	ptsim_sampler_attr(attr, config, period, sample_type, SAMPLE_SIZE);
	attr->aux_sample_type = type;
}

/*
 * Loop iterations that make a phase spin about SPIN_US per page, as the
 * tests run it: traced by a hidden event of PMU @type (the samples come
 * by task time, and tracing slows a phase, TCG's Intel PT tenfold).
 */
static unsigned long calibrate(size_t page, int type)
{
	struct phase p = { .page = page, .spin = 1UL << 16 };
	struct perf_event_attr attr;
	double t, best = 0;
	int i, fd;

	hidden_attr(&attr, type, PERF_COUNT_SW_TASK_CLOCK, UINT64_MAX >> 2,
		    PERF_SAMPLE_IP);
	fd = ptsim_open(&attr, 0, -1, -1);
	if (fd < 0)
		return 0;
	p.mem = phase_pages(page);
	if (!p.mem || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		close(fd);
		return 0;
	}
	/* Fault the pages in: only the spinning is timed. */
	phase_a(&p);
	for (i = 0; i < 5; i++) {
		t = now_us();
		phase_a(&p);
		t = now_us() - t;
		if (!i || t < best)
			best = t;
	}
	close(fd);
	munmap(p.mem, NR_TOUCH * page);
	if (best <= 0)
		best = 1;
	return (1UL << 16) * (SPIN_US * NR_TOUCH / best) + 1000;
}

/* The fixtures' set-up, for hidden events of @pmu. */
static void env_setup(struct __test_metadata *_metadata, struct env *e,
		      const char *pmu)
{
	struct ptsim_range fn[2];
	unsigned long spin;
	int i;

	for (i = 0; i < NR_FDS; i++)
		e->fd[i] = -1;
	e->pmu = pmu;
	e->type = ptsim_pmu_type(pmu);
	if (e->type < 0)
		SKIP(return, "no %s PMU", pmu);
	if (e->type == ptsim_type() && !ptsim_can_sample())
		SKIP(return, "ptsim is a module: no AUX sampling");
	if (ptsim_func_range("phase_a", (uintptr_t)phase_a, &fn[0]) ||
	    ptsim_func_range("phase_b", (uintptr_t)phase_b, &fn[1]))
		SKIP(return, "no symbol table for phase_a() and phase_b()");
	e->phases.r = malloc(sizeof(fn));
	ASSERT_NE(e->phases.r, NULL);
	memcpy(e->phases.r, fn, sizeof(fn));
	e->phases.nr = 2;

	/*
	 * One CPU: samples in time order, and the CPU that the samplers of
	 * the inheritance tests are bound to (see NOTE in their comment).
	 */
	ASSERT_EQ(ptsim_pin_cpu(0), 0);
	ASSERT_EQ(ptsim_text_ranges(&e->text), 0);
	if (e->type != ptsim_type()) {
		e->image = ptsim_self_image(&e->text);
		ASSERT_NE(e->image, NULL);
	}

	e->page = sysconf(_SC_PAGESIZE);
	spin = calibrate(e->page, e->type);
	ASSERT_NE(spin, 0);
	e->a.mem = phase_pages(e->page);
	e->b.mem = phase_pages(e->page);
	ASSERT_NE(e->a.mem, NULL);
	ASSERT_NE(e->b.mem, NULL);
	e->a.page = e->page;
	e->b.page = e->page;
	e->a.spin = spin;
	e->b.spin = spin;
}

static void env_teardown(struct __test_metadata *_metadata, struct env *e)
{
	int i;

	for (i = 0; i < NR_FDS; i++) {
		ptsim_unmap(&e->map[i]);
		if (e->fd[i] >= 0)
			close(e->fd[i]);
	}
	if (e->a.mem)
		munmap(e->a.mem, NR_TOUCH * e->page);
	if (e->b.mem)
		munmap(e->b.mem, NR_TOUCH * e->page);
	if (e->mlock_saved)
		EXPECT_EQ(ptsim_sysctl_set("perf_event_mlock_kb",
					   e->mlock_kb), 0);
	if (e->image)
		pt_image_free(e->image);
	ptsim_ranges_free(&e->text);
	ptsim_ranges_free(&e->phases);
}

/*
 * aux_sample: the tests of the hidden events' bookkeeping, on ptsim, which
 * any number of hidden events may use at once.  aux_sample_pmu: the tests
 * of the trace in the samples, on ptsim and on Intel PT, whose trace is
 * decoded with libipt (instructions, not ptsim's numbered records).
 */
FIXTURE_SETUP(aux_sample)
{
	env_setup(_metadata, &self->e, "ptsim");
}

FIXTURE_TEARDOWN(aux_sample)
{
	env_teardown(_metadata, &self->e);
}

FIXTURE(aux_sample_pmu)
{
	struct env	e;
};

FIXTURE_VARIANT(aux_sample_pmu)
{
	const char	*pmu;
	uint64_t	task_clock_ns;	/* task_clock_samples' period */
};

FIXTURE_VARIANT_ADD(aux_sample_pmu, ptsim)
{
	.pmu = "ptsim",
	.task_clock_ns = TASK_CLOCK_NS,
};

/* libipt decodes each sample, in the test's own (emulated) time: fewer */
FIXTURE_VARIANT_ADD(aux_sample_pmu, intel_pt)
{
	.pmu = "intel_pt",
	.task_clock_ns = 4 * TASK_CLOCK_NS,
};

FIXTURE_SETUP(aux_sample_pmu)
{
	env_setup(_metadata, &self->e, variant->pmu);
}

FIXTURE_TEARDOWN(aux_sample_pmu)
{
	env_teardown(_metadata, &self->e);
}

#define FN_A(e)	(&(e)->phases.r[0])
#define FN_B(e)	(&(e)->phases.r[1])

/* Open sampler @i, and map @pages of ring buffer for it unless 0. */
static void open_sampler(struct __test_metadata *_metadata, struct env *e,
			 int i, struct perf_event_attr *attr, pid_t pid,
			 int cpu, size_t pages)
{
	e->fd[i] = ptsim_open(attr, pid, cpu, -1);
	ASSERT_GE(e->fd[i], 0) TH_LOG("sampler %d: %s", i, strerror(errno));
	if (pages)
		ASSERT_EQ(ptsim_map(e->fd[i], &e->map[i], pages, 0,
				    false), 0);
}

static void close_sampler(struct env *e, int i)
{
	ptsim_unmap(&e->map[i]);
	close(e->fd[i]);
	e->fd[i] = -1;
}

static void enable(struct __test_metadata *_metadata, struct env *e, int nr,
		   bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int i;

	for (i = 0; i < nr; i++)
		ASSERT_EQ(ioctl(e->fd[i], req, 0), 0);
}

static void hidden_info(struct __test_metadata *_metadata,
			const struct env *e, int fd, struct hidden *h)
{
	ASSERT_EQ(ptsim_fdinfo(fd, "aux_sample_pmu", h->pmu, sizeof(h->pmu)),
		  0);
	ASSERT_STREQ(h->pmu, e->pmu);
	ASSERT_EQ(ptsim_fdinfo_u64(fd, "aux_sample_id", &h->id), 0);
	ASSERT_NE(h->id, 0);
	ASSERT_EQ(ptsim_fdinfo_u64(fd, "aux_sample_pages", &h->pages), 0);
	ASSERT_EQ(ptsim_fdinfo_u64(fd, "aux_sample_users", &h->users), 0);
	ASSERT_EQ(ptsim_fdinfo_u64(fd, "aux_sample_misses", &h->misses), 0);
}

static uint64_t last_seq(const struct ptsim_trace *t)
{
	return t->rec[t->nr - 1].seq;
}

static uint64_t last_ip(const struct ptsim_trace *t)
{
	return t->nr ? t->rec[t->nr - 1].ip : 0;
}

/*
 * Intel PT trace of sample @s as records: the IPs of the last instructions
 * libipt decodes from it over @image (at most PTSIM_FLOW_LAST, all user
 * mode, numbered in order).  It must end where the interrupt or fault that
 * took the sample disabled it, at the sample's IP.  Returns 0, or -1 with
 * the reason in @t->error.
 */
static int pt_sample_trace(const struct ptsim_sample *s, struct ptsim_trace *t,
			   struct pt_image *image)
{
	struct ptsim_flow f;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (ptsim_flow_check(s->aux.data, s->aux.len, s->ip, image, &f,
			     t->error, sizeof(t->error)))
		return -1;
	t->nr = f.insns < PTSIM_FLOW_LAST ? f.insns : PTSIM_FLOW_LAST;
	t->rec = calloc(t->nr + 1, sizeof(*t->rec));
	if (!t->rec)
		return -1;
	for (i = 0; i < t->nr; i++) {
		t->rec[i].seq = i;
		t->rec[i].ip = ptsim_flow_ip(&f, t->nr - 1 - i);
	}
	return 0;
}

/*
 * Read and decode every sample of sampler @k.  Each holds SAMPLE_SIZE
 * bytes of trace (no sample misses it: the hidden event runs whenever its
 * samplers do), which decodes: ptsim's with contiguous sequence numbers
 * and, if @text is given, user IPs only, Intel PT's as pt_sample_trace()
 * says.  The last sequence number of a ptsim sample is at least that of
 * the one before of the same trace: with @per_task, each task has a trace
 * of its own.
 */
static void check_run(struct __test_metadata *_metadata, struct env *e,
		      int k, uint64_t sample_type,
		      const struct ptsim_ranges *text, bool per_task,
		      struct run *run)
{
	uint64_t lost = 0;
	size_t i, j;

	ASSERT_GE(ptsim_read_samples(&e->map[k], sample_type | PERF_SAMPLE_AUX,
				     &run->ss, &lost), 0);
	ASSERT_EQ(lost, 0);
	run->t = calloc(run->ss.nr + 1, sizeof(*run->t));
	ASSERT_NE(run->t, NULL);

	for (i = 0; i < run->ss.nr; i++) {
		const struct ptsim_sample *s = &run->ss.s[i];
		struct ptsim_trace *t = &run->t[i];

		ASSERT_EQ(s->aux.len, SAMPLE_SIZE) TH_LOG("sample %zu", i);
		if (e->image) {
			EXPECT_EQ(pt_sample_trace(s, t, e->image), 0)
				TH_LOG("sample %zu (tid %u): %s", i, s->tid,
				       t->error);
			continue;
		}
		EXPECT_EQ(ptsim_sample_trace(s, t, text), 0)
			TH_LOG("sample %zu (tid %u): %s", i, s->tid, t->error);
		if (!t->nr)
			continue;
		for (j = i; j-- > 0;) {
			if (!run->t[j].nr ||
			    (per_task && run->ss.s[j].tid != s->tid))
				continue;
			EXPECT_GE(last_seq(t), last_seq(&run->t[j]))
				TH_LOG("sample %zu goes back to record %llu from %llu",
				       i, (unsigned long long)last_seq(t),
				       (unsigned long long)last_seq(&run->t[j]));
			break;
		}
	}
}

static void run_free(struct run *run)
{
	size_t i;

	for (i = 0; run->t && i < run->ss.nr; i++)
		ptsim_trace_free(&run->t[i]);
	free(run->t);
	ptsim_samples_free(&run->ss);
}

static size_t count_in(const struct ptsim_trace *t,
		       const struct ptsim_range *fn)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr; i++)
		n += ptsim_in_range(fn, t->rec[i].ip);
	return n;
}

/*
 * Whether trace @t ends in @fn: it has records in @fn, and none after the
 * first of them lies elsewhere.  With @ours, only records in @ours count
 * (a per-CPU trace holds other tasks' records too).
 */
static bool ends_in(const struct ptsim_trace *t, const struct ptsim_range *fn,
		    const struct ptsim_ranges *ours)
{
	bool seen = false;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		uint64_t ip = t->rec[i].ip;

		if (ours && !ptsim_in_ranges(ours, ip))
			continue;
		if (ptsim_in_range(fn, ip))
			seen = true;
		else if (seen)
			return false;
	}
	return seen;
}

/*
 * The samples of the writes of phase @p, which ran @fn: one per page, with
 * the IP of the write, from task @tid (any if 0), and a trace that ends in
 * @fn (see ends_in() for @ours) with no record in @never, if given.
 */
static void check_phase(struct __test_metadata *_metadata,
			const struct run *run, const struct phase *p,
			const struct ptsim_range *fn,
			const struct ptsim_range *never,
			const struct ptsim_ranges *ours, pid_t tid)
{
	uint64_t start = (uintptr_t)p->mem;
	unsigned int seen = 0, n;
	size_t i;

	for (i = 0; i < run->ss.nr; i++) {
		const struct ptsim_sample *s = &run->ss.s[i];
		const struct ptsim_trace *t = &run->t[i];

		if (s->addr < start || s->addr >= start + NR_TOUCH * p->page)
			continue;
		n = (s->addr - start) / p->page;
		EXPECT_EQ(s->addr, start + n * p->page);
		EXPECT_FALSE(seen & (1U << n)) TH_LOG("page %u faulted twice", n);
		seen |= 1U << n;
		EXPECT_TRUE(ptsim_in_range(fn, s->ip))
			TH_LOG("write %u at IP %#llx", n,
			       (unsigned long long)s->ip);
		if (tid)
			EXPECT_EQ(s->tid, tid);
		EXPECT_TRUE(ends_in(t, fn, ours))
			TH_LOG("write %u: %zu records, last IP %#llx, not in [%#llx, %#llx)",
			       n, t->nr, (unsigned long long)last_ip(t),
			       (unsigned long long)fn->start,
			       (unsigned long long)fn->end);
		if (never)
			EXPECT_EQ(count_in(t, never), 0)
				TH_LOG("write %u: trace holds the other phase",
				       n);
	}
	EXPECT_EQ(seen, (1U << NR_TOUCH) - 1);
}

/* One task-clock sampler: all samples carry trace that checks out. */
TEST_F(aux_sample_pmu, task_clock_samples)
{
	struct env *e = &self->e;
	struct perf_event_attr attr;
	struct run run = {};
	struct hidden h;
	size_t i, nr;

	if (_metadata->skip)
		return;
	hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK,
		    variant->task_clock_ns, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	open_sampler(_metadata, e, 0, &attr, 0, -1, DATA_PAGES);
	hidden_info(_metadata, e, e->fd[0], &h);
	EXPECT_EQ(h.pages, 2);
	EXPECT_EQ(h.users, 1);
	EXPECT_EQ(h.misses, 0);

	enable(_metadata, e, 1, true);
	phase_a(&e->a);
	phase_b(&e->b);
	enable(_metadata, e, 1, false);

	check_run(_metadata, e, 0, PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		  &e->text, false, &run);
	nr = run.ss.nr;
	/* 2 * NR_TOUCH * SPIN_US of task time: half the samples at least */
	EXPECT_GE(nr, 2 * NR_TOUCH * SPIN_US / (variant->task_clock_ns / 1000) / 2);
	for (i = 0; i < nr; i++) {
		/* The hidden event traced from before the first sample. */
		EXPECT_GT(run.t[i].nr, 0) TH_LOG("sample %zu has no trace", i);
		EXPECT_TRUE(ptsim_in_ranges(&e->text, run.ss.s[i].ip));
	}
	/* ptsim's records are numbered through the trace */
	if (!e->image && nr > 1 && run.t[0].nr && run.t[nr - 1].nr)
		EXPECT_GT(last_seq(&run.t[nr - 1]), last_seq(&run.t[0]));

	hidden_info(_metadata, e, e->fd[0], &h);
	EXPECT_EQ(h.misses, 0);
	run_free(&run);
}

/* The trace of a sample ends in the phase the task was running. */
TEST_F(aux_sample_pmu, trace_ends_in_preceding_phase)
{
	struct env *e = &self->e;
	struct perf_event_attr attr;
	struct run run = {};

	if (_metadata->skip)
		return;
	hidden_attr(&attr, e->type, PERF_COUNT_SW_PAGE_FAULTS, 1,
		    FAULT_TYPE);
	open_sampler(_metadata, e, 0, &attr, 0, -1, DATA_PAGES);

	enable(_metadata, e, 1, true);
	phase_a(&e->a);
	phase_b(&e->b);
	enable(_metadata, e, 1, false);

	check_run(_metadata, e, 0, FAULT_TYPE, &e->text, false, &run);
	/* B has not run yet when A writes; B's trace may start in A. */
	check_phase(_metadata, &run, &e->a, FN_A(e), FN_B(e), NULL, 0);
	check_phase(_metadata, &run, &e->b, FN_B(e), NULL, NULL, 0);
	run_free(&run);
}

/* fdinfo: the PMU, the buffer size for a sample size, one user. */
TEST_F(aux_sample, fdinfo_describes_hidden_event)
{
	struct env *e = &self->e;
	static const struct {
		uint32_t	size;
		uint64_t	pages;
	} sizes[] = {
		{ 8, 2 }, { 4096, 2 }, { 4104, 2 }, { 12288, 4 },
		{ 32768, 8 }, { 65528, 16 }, { 65535, 16 },
	};
	struct perf_event_attr attr;
	struct hidden h;
	char buf[32];
	size_t i;

	if (_metadata->skip)
		return;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK,
			    TASK_CLOCK_NS, PERF_SAMPLE_IP);
		attr.aux_sample_size = sizes[i].size;
		open_sampler(_metadata, e, 0, &attr, 0, -1, 0);
		hidden_info(_metadata, e, e->fd[0], &h);
		EXPECT_EQ(h.pages, sizes[i].pages)
			TH_LOG("aux_sample_size %u", sizes[i].size);
		EXPECT_EQ(h.users, 1);
		EXPECT_EQ(h.misses, 0);
		close_sampler(e, 0);
	}

	/* A sampler without a hidden event shows none. */
	ptsim_sampler_attr(&attr, PERF_COUNT_SW_TASK_CLOCK, TASK_CLOCK_NS,
			   PERF_SAMPLE_IP, 0);
	attr.sample_type &= ~PERF_SAMPLE_AUX;
	open_sampler(_metadata, e, 0, &attr, 0, -1, 0);
	EXPECT_EQ(ptsim_fdinfo(e->fd[0], "aux_sample_pmu", buf,
			       sizeof(buf)), -ENOENT);
	EXPECT_EQ(ptsim_fdinfo(e->fd[0], "aux_sample_id", buf,
			       sizeof(buf)), -ENOENT);
}

/* Sort (time, last sequence number) pairs by time. */
static int cmp_time(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * A task-clock and a page-faults sampler alike share one hidden event:
 * same id, two users, and one trace, in which a sequence number has the
 * same IP whichever sampler saw it, and which never goes back in time.
 */
TEST_F(aux_sample, like_samplers_share_hidden_event)
{
	struct env *e = &self->e;
	uint64_t min = UINT64_MAX, max = 0, *ip_of;
	size_t r, i, k, nr = 0, common = 0;
	uint64_t (*order)[2];
	bool *ip_from0;
	struct perf_event_attr attr;
	struct run run[2] = {};
	struct hidden h[2];

	if (_metadata->skip)
		return;
	hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK,
		    TASK_CLOCK_NS, FAULT_TYPE);
	open_sampler(_metadata, e, 0, &attr, 0, -1, DATA_PAGES);
	hidden_attr(&attr, e->type, PERF_COUNT_SW_PAGE_FAULTS, 1,
		    FAULT_TYPE);
	open_sampler(_metadata, e, 1, &attr, 0, -1, DATA_PAGES);
	hidden_info(_metadata, e, e->fd[0], &h[0]);
	hidden_info(_metadata, e, e->fd[1], &h[1]);
	EXPECT_EQ(h[0].id, h[1].id);
	EXPECT_EQ(h[0].users, 2);
	EXPECT_EQ(h[1].users, 2);
	EXPECT_EQ(h[0].pages, 2);
	EXPECT_EQ(h[1].pages, 2);

	enable(_metadata, e, 2, true);
	phase_a(&e->a);
	phase_b(&e->b);
	enable(_metadata, e, 2, false);

	for (r = 0; r < 2; r++) {
		check_run(_metadata, e, r, FAULT_TYPE, &e->text,
			  false, &run[r]);
		for (i = 0; i < run[r].ss.nr; i++) {
			const struct ptsim_trace *t = &run[r].t[i];

			for (k = 0; k < t->nr; k++) {
				if (t->rec[k].seq < min)
					min = t->rec[k].seq;
				if (t->rec[k].seq > max)
					max = t->rec[k].seq;
			}
			nr += t->nr > 0;
		}
	}
	check_phase(_metadata, &run[1], &e->a, FN_A(e), FN_B(e), NULL, 0);
	check_phase(_metadata, &run[1], &e->b, FN_B(e), NULL, NULL, 0);
	ASSERT_GT(nr, 0);

	/*
	 * One trace: a sequence number has one IP, whichever sample holds
	 * it.  ip_of[] maps them, from the task-clock samples first.
	 */
	ip_of = calloc(max - min + 1, sizeof(*ip_of));
	ip_from0 = calloc(max - min + 1, sizeof(*ip_from0));
	ASSERT_NE(ip_of, NULL);
	ASSERT_NE(ip_from0, NULL);
	for (r = 0; r < 2; r++) {
		for (i = 0; i < run[r].ss.nr; i++) {
			const struct ptsim_trace *t = &run[r].t[i];

			for (k = 0; k < t->nr; k++) {
				uint64_t *ip = &ip_of[t->rec[k].seq - min];

				if (!*ip) {
					*ip = t->rec[k].ip;
					continue;
				}
				EXPECT_EQ(*ip, t->rec[k].ip)
					TH_LOG("record %llu",
					       (unsigned long long)t->rec[k].seq);
				if (r && ip_from0[t->rec[k].seq - min])
					common++;
			}
		}
		if (!r)
			for (k = 0; k < max - min + 1; k++)
				ip_from0[k] = !!ip_of[k];
	}
	free(ip_of);
	free(ip_from0);
	/* The page-fault samples overlap the task-clock ones. */
	EXPECT_GE(common, 2 * NR_TOUCH);

	/* ... whose samples, in time order, never go back. */
	order = calloc(nr, sizeof(*order));
	ASSERT_NE(order, NULL);
	for (k = 0, r = 0; r < 2; r++) {
		for (i = 0; i < run[r].ss.nr; i++) {
			if (!run[r].t[i].nr)
				continue;
			order[k][0] = run[r].ss.s[i].time;
			order[k][1] = last_seq(&run[r].t[i]);
			k++;
		}
	}
	qsort(order, nr, sizeof(*order), cmp_time);
	for (k = 1; k < nr; k++)
		EXPECT_GE(order[k][1], order[k - 1][1])
			TH_LOG("at time %llu", (unsigned long long)order[k][0]);
	free(order);
	run_free(&run[0]);
	run_free(&run[1]);

	/* The last user keeps it. */
	close_sampler(e, 0);
	hidden_info(_metadata, e, e->fd[1], &h[0]);
	EXPECT_EQ(h[0].id, h[1].id);
	EXPECT_EQ(h[0].users, 1);
}

/*
 * Open two samplers differing as @change makes them: they share one hidden
 * event if @share, else each has its own.
 */
static void expect_sharing(struct __test_metadata *_metadata, struct env *e,
			   void (*change)(struct perf_event_attr *attr),
			   bool share)
{
	struct perf_event_attr attr;
	struct hidden h[2];

	hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK,
		    TASK_CLOCK_NS, PERF_SAMPLE_IP);
	open_sampler(_metadata, e, 0, &attr, 0, -1, 0);
	change(&attr);
	open_sampler(_metadata, e, 1, &attr, 0, -1, 0);
	hidden_info(_metadata, e, e->fd[0], &h[0]);
	hidden_info(_metadata, e, e->fd[1], &h[1]);
	if (share) {
		EXPECT_EQ(h[0].id, h[1].id);
		EXPECT_EQ(h[0].users, 2);
	} else {
		EXPECT_NE(h[0].id, h[1].id);
		EXPECT_EQ(h[0].users, 1);
		EXPECT_EQ(h[1].users, 1);
	}
}

static void include_hv(struct perf_event_attr *attr)
{
	attr->exclude_hv = 0;
}

static void psb_period(struct perf_event_attr *attr)
{
	attr->aux_sample_config = PTSIM_PSB_PERIOD(1);
}

static void page_faults(struct perf_event_attr *attr)
{
	attr->config = PERF_COUNT_SW_PAGE_FAULTS;
	attr->sample_period = 1;
}

/* As perf opens a group's leader: enabled by the task's next exec. */
static void enabled_on_exec(struct perf_event_attr *attr)
{
	attr->disabled = 1;
	attr->enable_on_exec = 1;
}

/* A sampler of another event with the same bits shares (see above). */
TEST_F(aux_sample, other_event_same_bits_shares)
{
	if (!_metadata->skip)
		expect_sharing(_metadata, &self->e, page_faults, true);
}

/*
 * Samplers that differ only in how they are enabled share: a group's
 * leader and its members (intel_pt, an exclusive PMU, refused the second
 * hidden event with EBUSY).
 */
TEST_F(aux_sample, enable_on_exec_shares)
{
	if (!_metadata->skip)
		expect_sharing(_metadata, &self->e, enabled_on_exec, true);
}

TEST_F(aux_sample, exclude_bits_split_hidden_events)
{
	if (!_metadata->skip)
		expect_sharing(_metadata, &self->e, include_hv, false);
}

TEST_F(aux_sample, config_splits_hidden_events)
{
	if (!_metadata->skip)
		expect_sharing(_metadata, &self->e, psb_period, false);
}

/*
 * A sampler that asks for more than an existing buffer holds gets its own
 * hidden event; one that asks for less shares the larger buffer.
 */
TEST_F(aux_sample, sample_size_picks_buffer)
{
	struct env *e = &self->e;
	struct perf_event_attr attr;
	struct hidden h[3];
	int i;

	if (_metadata->skip)
		return;
	hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK,
		    TASK_CLOCK_NS, PERF_SAMPLE_IP);
	attr.aux_sample_size = 4096;
	open_sampler(_metadata, e, 0, &attr, 0, -1, 0);
	attr.aux_sample_size = 16384;
	open_sampler(_metadata, e, 1, &attr, 0, -1, 0);
	attr.aux_sample_size = 8192;
	open_sampler(_metadata, e, 2, &attr, 0, -1, 0);
	for (i = 0; i < 3; i++)
		hidden_info(_metadata, e, e->fd[i], &h[i]);

	EXPECT_NE(h[0].id, h[1].id);
	EXPECT_EQ(h[0].pages, 2);
	EXPECT_EQ(h[0].users, 1);
	EXPECT_EQ(h[1].id, h[2].id);
	EXPECT_EQ(h[1].pages, 4);
	EXPECT_EQ(h[2].pages, 4);
	EXPECT_EQ(h[1].users, 2);
	EXPECT_EQ(h[2].users, 2);
}

/*
 * What the hidden buffers of a user's samplers are charged: with
 * perf_event_mlock_kb at 0, all of a hidden event's buffer, its AUX pages
 * and one, goes to the user's locked pages, here limited by RLIMIT_MEMLOCK
 * to exactly one such buffer.  The user's charge is not visible in /proc,
 * so it is measured by what still opens.  Returns 0 or the failed step.
 */
#define PIN_SIZE	12288	/* 4 AUX pages */
#define PIN_PAGES	(4 + 1)

static int one_buffer_allowed(struct perf_event_attr *attr)
{
	int a, b, c;

	a = ptsim_open(attr, 0, -1, -1);
	if (a < 0)
		return 2;
	/* Shares the hidden event and its charge. */
	attr->config = PERF_COUNT_SW_PAGE_FAULTS;
	attr->sample_period = 1;
	b = ptsim_open(attr, 0, -1, -1);
	if (b < 0)
		return 3;
	/* Needs a hidden event of its own: over the limit. */
	attr->exclude_hv = 0;
	if (ptsim_open(attr, 0, -1, -1) >= 0 || errno != EPERM)
		return 4;
	/* Refunded when the last sampler goes, not before. */
	close(a);
	if (ptsim_open(attr, 0, -1, -1) >= 0 || errno != EPERM)
		return 5;
	close(b);
	c = ptsim_open(attr, 0, -1, -1);
	if (c < 0)
		return 6;
	close(c);
	return 0;
}

TEST_F(aux_sample, buffers_charged_to_user_once)
{
	struct env *e = &self->e;
	struct perf_event_attr attr;
	bool unprivileged;
	long paranoid;

	if (_metadata->skip)
		return;
	if (geteuid())
		SKIP(return, "needs root for perf_event_mlock_kb");
	ASSERT_EQ(ptsim_sysctl_get("perf_event_mlock_kb", &e->mlock_kb), 0);
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", 0), 0);
	e->mlock_saved = true;
	ASSERT_EQ(ptsim_sysctl_get("perf_event_paranoid", &paranoid), 0);
	ASSERT_EQ(ptsim_knob_get("unprivileged", &unprivileged), 0);
	ASSERT_EQ(ptsim_sysctl_set("perf_event_paranoid", 2), 0);
	ASSERT_EQ(ptsim_knob_set("unprivileged", true), 0);

	hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK,
		    TASK_CLOCK_NS, PERF_SAMPLE_IP);
	attr.aux_sample_size = PIN_SIZE;
	EXPECT_EQ(ptsim_as_nobody(one_buffer_allowed, &attr,
				  PIN_PAGES * e->page), 0);
	EXPECT_EQ(ptsim_knob_set("unprivileged", unprivileged), 0);
	EXPECT_EQ(ptsim_sysctl_set("perf_event_paranoid", paranoid), 0);
}

/*
 * The inheritance tests: a page-faults sampler with attr.inherit bound to
 * CPU 0 (NOTE: perf_mmap() refuses a per-task inherited event with cpu -1)
 * and every task on CPU 0.  Another task runs phase_b() while this one
 * runs phase_a(), taking turns on the CPU: each task's samples must end in
 * its own phase and never hold the other's, which only the other task's
 * trace has.
 */
static void open_inherited(struct __test_metadata *_metadata, struct env *e)
{
	struct perf_event_attr attr;

	hidden_attr(&attr, e->type, PERF_COUNT_SW_PAGE_FAULTS, 1,
		    FAULT_TYPE);
	attr.inherit = 1;
	open_sampler(_metadata, e, 0, &attr, 0, 0, DATA_PAGES);
	enable(_metadata, e, 1, true);
}

/*
 * Whether sample @i of @run holds no trace: no ptsim records, or no Intel
 * PT at all (only zeros; the trace of a fault on the first instruction
 * back in user mode, say, holds packets but no instruction).
 */
static bool no_trace(const struct env *e, const struct run *run, size_t i)
{
	const struct ptsim_stream *aux = &run->ss.s[i].aux;
	size_t k;

	if (!e->image)
		return !run->t[i].nr;
	for (k = 0; k < aux->len; k++)
		if (aux->data[k])
			return false;
	return true;
}

static void check_inherited(struct __test_metadata *_metadata, struct env *e,
			    pid_t other)
{
	struct run run = {};
	uint64_t empty = 0;
	struct hidden h;
	size_t i;

	enable(_metadata, e, 1, false);
	check_run(_metadata, e, 0, FAULT_TYPE, &e->text, true, &run);
	check_phase(_metadata, &run, &e->a, FN_A(e), FN_B(e), NULL,
		    syscall(SYS_gettid));
	check_phase(_metadata, &run, &e->b, FN_B(e), FN_A(e), NULL, other);

	/*
	 * A task's first samples can come before its copy of the hidden
	 * event wrote anything (how many depends on when its timer first
	 * fires): exactly those carry no trace, and are the misses.
	 */
	for (i = 0; i < run.ss.nr; i++)
		empty += no_trace(e, &run, i);
	run_free(&run);
	hidden_info(_metadata, e, e->fd[0], &h);
	EXPECT_EQ(h.users, 1);
	EXPECT_EQ(h.misses, empty);
}

struct worker {
	const struct phase	*phase;
	pid_t			tid;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->tid = syscall(SYS_gettid);
	phase_b(w->phase);
	return NULL;
}

TEST_F(aux_sample_pmu, threads_sample_own_trace)
{
	struct env *e = &self->e;
	struct worker w = { .phase = &e->b };
	pthread_t thread;

	if (_metadata->skip)
		return;
	open_inherited(_metadata, e);
	ASSERT_EQ(pthread_create(&thread, NULL, worker_main, &w), 0);
	phase_a(&e->a);
	ASSERT_EQ(pthread_join(thread, NULL), 0);
	check_inherited(_metadata, e, w.tid);
}

TEST_F(aux_sample_pmu, forked_child_samples_own_trace)
{
	struct env *e = &self->e;
	int status;
	pid_t pid;

	if (_metadata->skip)
		return;
	open_inherited(_metadata, e);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		phase_b(&e->b);
		_exit(0);
	}
	phase_a(&e->a);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	check_inherited(_metadata, e, pid);
}

/*
 * A sampler that never overflows still gives each task one sample at its
 * exit, with period 0, at the task's last user IP, and the trace that
 * led there: here a forked child's, which ran phase B and exited.  Trace
 * written after a sampler's last overflow is in no other sample (the
 * kernel may have throttled the sampler since), and without this one
 * nothing would say that there was any.
 */
TEST_F(aux_sample_pmu, exit_takes_a_last_sample)
{
	const uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_PERIOD;
	struct env *e = &self->e;
	struct perf_event_attr attr;
	struct run run = {};
	int status;
	pid_t pid;

	if (_metadata->skip)
		return;
	hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK, UINT64_MAX >> 2,
		    type);
	attr.inherit = 1;
	open_sampler(_metadata, e, 0, &attr, 0, 0, DATA_PAGES);
	enable(_metadata, e, 1, true);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		phase_b(&e->b);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	enable(_metadata, e, 1, false);

	/* Its trace decodes and, on Intel PT, ends at the sample's IP. */
	check_run(_metadata, e, 0, type, &e->text, true, &run);
	ASSERT_EQ(run.ss.nr, 1);
	EXPECT_EQ(run.ss.s[0].tid, pid);
	EXPECT_EQ(run.ss.s[0].period, 0);
	/* ptsim: phase B in it; Intel PT: its last 1024 instructions, libc's */
	if (!e->image)
		EXPECT_GT(count_in(&run.t[0], FN_B(e)), 0);
	run_free(&run);
}

/*
 * Freeing in either order: this task's inherited sampler, and so the
 * hidden event, goes while forked children that inherited both still run
 * (their copies are freed with the original), or the children exit first
 * (their copies go before it).  Neither order may touch memory the other
 * freed, which KASAN in the debug kernel would report.  The children drop
 * their references to the sampler's file (fd and mapping) at once, so
 * that closing it here releases it.
 */
#define NR_CHILDREN	3

static void spinning_child(struct env *e, int ran, int stop)
{
	char c = 0;

	close_sampler(e, 0);
	phase_b(&e->b);
	if (write(ran, &c, 1) != 1)
		_exit(1);
	/*
	 * Until the end of file on @stop, and a little after; behind the
	 * parent, which meanwhile decodes the samples on the same CPU.
	 */
	errno = 0;
	if (nice(19) == -1 && errno)
		_exit(1);
	while (read(stop, &c, 1) < 0 && errno == EAGAIN)
		ptsim_spin(1);
	ptsim_spin(10);
	_exit(0);
}

/* Let the children go, and reap them. */
static void stop_children(struct __test_metadata *_metadata, int stop,
			  const pid_t *pid)
{
	int i, status;

	close(stop);
	for (i = 0; i < NR_CHILDREN; i++) {
		ASSERT_EQ(waitpid(pid[i], &status, 0), pid[i]);
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
}

static void free_in_order(struct __test_metadata *_metadata, struct env *e,
			  bool sampler_first)
{
	int ran[2], stop[2], i, k;
	pid_t pid[NR_CHILDREN];
	struct run run = {};
	size_t traced[NR_CHILDREN] = {}, j;
	char c;

	open_inherited(_metadata, e);
	ASSERT_EQ(pipe(ran), 0);
	ASSERT_EQ(pipe2(stop, O_NONBLOCK), 0);
	for (i = 0; i < NR_CHILDREN; i++) {
		pid[i] = fork();
		ASSERT_GE(pid[i], 0);
		if (!pid[i]) {
			close(stop[1]);
			spinning_child(e, ran[1], stop[0]);
		}
	}
	close(stop[0]);
	for (i = 0; i < NR_CHILDREN; i++)
		ASSERT_EQ(read(ran[0], &c, 1), 1);

	if (!sampler_first)
		stop_children(_metadata, stop[1], pid);

	/* Each child's samples came with its own trace. */
	enable(_metadata, e, 1, false);
	check_run(_metadata, e, 0, FAULT_TYPE, &e->text, true, &run);
	for (j = 0; j < run.ss.nr; j++) {
		for (k = 0; k < NR_CHILDREN; k++)
			traced[k] += run.ss.s[j].tid == (uint32_t)pid[k] &&
				     run.t[j].nr;
	}
	run_free(&run);
	for (k = 0; k < NR_CHILDREN; k++)
		EXPECT_GT(traced[k], 0) TH_LOG("child %d", k);
	close_sampler(e, 0);

	if (sampler_first) {
		/* The children run on without their copies, then exit. */
		ptsim_spin(20);
		stop_children(_metadata, stop[1], pid);
	}
	close(ran[0]);
	close(ran[1]);
}

TEST_F(aux_sample_pmu, sampler_freed_before_inherited_copies)
{
	if (_metadata->skip)
		return;
	free_in_order(_metadata, &self->e, true);
}

TEST_F(aux_sample_pmu, inherited_copies_freed_before_sampler)
{
	if (_metadata->skip)
		return;
	free_in_order(_metadata, &self->e, false);
}

/*
 * A per-CPU sampler on CPU 0 gets a per-CPU hidden event there: one trace
 * of every task on CPU 0, in which this task's records must still end in
 * the phase it ran before each sample.
 */
/* What the samples of one buffer hold of their hidden event's stream. */
struct pos_stats {
	size_t		gaps;		/* samples that start after a gap */
	size_t		overlaps;	/* ... that repeat 8 bytes or more */
	size_t		empty;		/* ... with no trace */
	size_t		kept;		/* ... of new trace, not shrunk */
	uint64_t	end;		/* where the last one ends */
	uint64_t	bytes;		/* PERF_SAMPLE_AUX bytes, all of them */
};

/*
 * With PERF_AUX_SAMPLE_POSITION every sample says where its trace sits in
 * the hidden event's stream.  Consecutive samples must agree on the bytes
 * they share, and the stream rebuilt from them (each sample's bytes past
 * the end of the one before) must decode with no jump in the sequence
 * numbers between two gaps: an offset that is one byte off breaks a packet
 * or repeats a record.  A sample of new trace only (@new_only) is as long
 * as its trace, rounded up to 8 bytes, or keeps the length it reserved
 * (its ring could not take the rest back), and one with no trace starts
 * where the one before ended.
 */
static void check_positions(struct __test_metadata *_metadata,
			    const struct ptsim_samples *ss, uint64_t id,
			    bool new_only, struct pos_stats *st)
{
	const size_t hdr = sizeof(struct perf_aux_sample_position);
	struct ptsim_stream run = {};
	struct ptsim_trace t;
	uint64_t end = 0, seq = 0;
	size_t i, nr_runs = 0;

	memset(st, 0, sizeof(*st));

	for (i = 0; i <= ss->nr; i++) {
		struct perf_aux_sample_position pos = {};
		const uint8_t *trace = NULL;
		uint64_t skip = 0;

		if (i < ss->nr) {
			const struct ptsim_stream *aux = &ss->s[i].aux;

			memcpy(&pos, aux->data, hdr);
			if (new_only && aux->len == hdr + SAMPLE_SIZE &&
			    pos.size + 7 < SAMPLE_SIZE)
				st->kept++;
			else
				ASSERT_EQ(aux->len, hdr + (new_only ?
					  (pos.size + 7) / 8 * 8 : SAMPLE_SIZE))
					TH_LOG("sample %zu", i);
			st->bytes += aux->len;
			ASSERT_EQ(pos.stream, id) TH_LOG("sample %zu", i);
			ASSERT_LE(pos.size, SAMPLE_SIZE);
			ASSERT_GE(pos.offset + pos.size, end)
				TH_LOG("sample %zu ends before the one before",
				       i);
			trace = aux->data + aux->len - pos.size;
			if (!pos.size) {
				EXPECT_TRUE(!new_only || !end ||
					    pos.offset == end)
					TH_LOG("empty sample %zu at %llu, not %llu",
					       i, (unsigned long long)pos.offset,
					       (unsigned long long)end);
				st->empty++;
				continue;
			}
		}

		/* A gap, or the end: decode the run of trace before it. */
		if (i == ss->nr || pos.offset > end) {
			if (run.len) {
				ASSERT_EQ(ptsim_decode(&run, &t), 0);
				EXPECT_EQ(t.nr_errors, 0)
					TH_LOG("run %zu: %s", nr_runs, t.error);
				EXPECT_EQ(ptsim_unreported_gap(&run, &t), -1)
					TH_LOG("run %zu jumps in sequence", nr_runs);
				if (t.nr) {
					EXPECT_GT(t.rec[0].seq, seq);
					seq = t.rec[t.nr - 1].seq;
				}
				ptsim_trace_free(&t);
				ptsim_stream_free(&run);
				memset(&run, 0, sizeof(run));
				nr_runs++;
			}
			if (i == ss->nr)
				break;
			st->gaps += end != 0;
		} else {
			/* Shared bytes are the same in both samples. */
			uint64_t shared;

			skip = end - pos.offset;
			shared = skip < run.len ? skip : run.len;
			st->overlaps += skip >= 8;
			EXPECT_EQ(memcmp(run.data + run.len - shared,
					 trace + skip - shared, shared), 0)
				TH_LOG("sample %zu differs in the %llu bytes it shares",
				       i, (unsigned long long)skip);
		}
		if (pos.offset + pos.size > end) {
			ptsim_stream_add(&run, trace + skip, pos.size - skip, 0);
			end = pos.offset + pos.size;
		}
	}
	TH_LOG("%zu samples: %zu overlap, %zu after gaps, %zu empty, %zu kept; end %llu, %llu B",
	       ss->nr, st->overlaps, st->gaps, st->empty, st->kept,
	       (unsigned long long)end, (unsigned long long)st->bytes);
	EXPECT_GT(nr_runs, 0);
	st->end = end;
}

TEST_F(aux_sample, positions_rebuild_stream)
{
	struct env *e = &self->e;
	struct perf_event_attr attr;
	struct ptsim_samples ss = {};
	struct pos_stats st[2];
	uint64_t lost = 0;
	struct hidden h;
	int i;

	if (_metadata->skip)
		return;
	/*
	 * One sampler so often that its samples share trace, one so seldom
	 * that the one-page buffer wraps between its samples: both take
	 * the same hidden event's trace.
	 */
	for (i = 0; i < 2; i++) {
		hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK,
			    i ? POS_SLOW_NS : TASK_CLOCK_NS, PERF_SAMPLE_TID);
		attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
		open_sampler(_metadata, e, i, &attr, 0, -1, DATA_PAGES);
	}
	hidden_info(_metadata, e, e->fd[0], &h);
	EXPECT_EQ(h.users, 2);

	enable(_metadata, e, 2, true);
	ptsim_spin(POS_SPIN_MS);
	enable(_metadata, e, 2, false);

	for (i = 0; i < 2; i++) {
		ASSERT_GE(ptsim_read_samples(&e->map[i], PERF_SAMPLE_TID |
					     PERF_SAMPLE_AUX, &ss, &lost), 0);
		ASSERT_EQ(lost, 0);
		ASSERT_GT(ss.nr, 1);
		check_positions(_metadata, &ss, h.id, false, &st[i]);
		ptsim_samples_free(&ss);
	}

	/* Offsets count the whole stream, not the place in the buffer. */
	EXPECT_GT(st[1].end, 2 * SAMPLE_SIZE);
	EXPECT_GT(st[1].gaps, 0);
}

/*
 * Two samplers of new trace only (PERF_AUX_SAMPLE_NEW), @slow's samples
 * going to @fast's buffer (@set_output) or to a buffer of its own, with
 * @config and @period each; their samples read after @work ran.
 */
static void new_trace_run(struct __test_metadata *_metadata, struct env *e,
			  uint64_t config, const uint64_t period[2],
			  uint64_t sample_type, bool set_output,
			  void (*work)(struct env *e), struct hidden *h)
{
	struct perf_event_attr attr;
	int i;

	for (i = 0; i < 2; i++) {
		hidden_attr(&attr, e->type, config, period[i], sample_type);
		attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION |
					PERF_AUX_SAMPLE_NEW;
		open_sampler(_metadata, e, i, &attr, 0, -1,
			     i && set_output ? 0 : DATA_PAGES);
	}
	if (set_output)
		ASSERT_EQ(ioctl(e->fd[1], PERF_EVENT_IOC_SET_OUTPUT, e->fd[0]),
			  0);
	hidden_info(_metadata, e, e->fd[0], h);
	EXPECT_EQ(h->users, 2);

	enable(_metadata, e, 2, true);
	work(e);
	enable(_metadata, e, 2, false);
}

static void spin_for_positions(struct env *e)
{
	ptsim_spin(POS_SPIN_MS);
}

/* The samples of sampler @i's buffer, checked as new trace only. */
static void new_trace_check(struct __test_metadata *_metadata, struct env *e,
			    int i, uint64_t sample_type, uint64_t id,
			    struct pos_stats *st)
{
	struct ptsim_samples ss = {};
	struct hidden h;
	uint64_t lost = 0;

	ASSERT_GE(ptsim_read_samples(&e->map[i], sample_type | PERF_SAMPLE_AUX,
				     &ss, &lost), 0);
	ASSERT_EQ(lost, 0);
	ASSERT_GT(ss.nr, 1);
	check_positions(_metadata, &ss, id, true, st);
	/*
	 * Each byte of trace once, but for the rounding up to 8 and the
	 * samples that repeat trace.
	 */
	EXPECT_LE(st->bytes, st->end +
		  (st->overlaps + st->kept) * SAMPLE_SIZE + ss.nr *
		  (sizeof(struct perf_aux_sample_position) + 7));
	ptsim_samples_free(&ss);
	/* No trace that is new is not a miss. */
	hidden_info(_metadata, e, e->fd[i], &h);
	EXPECT_EQ(h.misses, 0);
}

/*
 * Samples of new trace only that go to one buffer, the two samplers' laid
 * end to end, are the stream: no byte twice, and no gap, for the fast
 * sampler's samples come less than SAMPLE_SIZE of trace apart.
 */
TEST_F(aux_sample, new_trace_tiles_stream)
{
	const uint64_t period[2] = { TASK_CLOCK_NS, POS_SLOW_NS };
	struct pos_stats st;
	struct hidden h;

	if (_metadata->skip)
		return;
	new_trace_run(_metadata, &self->e, PERF_COUNT_SW_TASK_CLOCK, period,
		      PERF_SAMPLE_TID, true, spin_for_positions, &h);
	new_trace_check(_metadata, &self->e, 0, PERF_SAMPLE_TID, h.id, &st);
	EXPECT_EQ(st.gaps, 0);
	EXPECT_EQ(st.overlaps, 0);
	EXPECT_GT(st.end, 2 * SAMPLE_SIZE);
}

/*
 * In buffers of their own, each buffer's samples hold the trace since the
 * one before in the same buffer: the fast sampler's have no gap, although
 * the slow one's took trace between them; they overlap only after one of
 * the slow one's, whose samples are laps of the hidden buffer apart.
 */
TEST_F(aux_sample, new_trace_per_buffer)
{
	const uint64_t period[2] = { TASK_CLOCK_NS, POS_SLOW_NS };
	struct pos_stats st[2];
	struct hidden h;

	if (_metadata->skip)
		return;
	new_trace_run(_metadata, &self->e, PERF_COUNT_SW_TASK_CLOCK, period,
		      PERF_SAMPLE_TID, false, spin_for_positions, &h);
	new_trace_check(_metadata, &self->e, 0, PERF_SAMPLE_TID, h.id, &st[0]);
	new_trace_check(_metadata, &self->e, 1, PERF_SAMPLE_TID, h.id, &st[1]);
	EXPECT_EQ(st[0].gaps, 0);
	EXPECT_GT(st[1].gaps, 0);
	EXPECT_LE(st[0].overlaps, st[1].gaps + 1);
}

static void fault_phase(struct env *e)
{
	phase_a(&e->a);
}

/*
 * Two page-fault samplers into one buffer sample each fault one after the
 * other, with no trace written between: the second sample of each finds
 * none new, and still says where the stream is.  (The phase spins more
 * than SAMPLE_SIZE of trace between its faults: gaps.)
 */
TEST_F(aux_sample, new_trace_empty_samples)
{
	const uint64_t period[2] = { 1, 1 };
	struct pos_stats st;
	struct hidden h;

	if (_metadata->skip)
		return;
	new_trace_run(_metadata, &self->e, PERF_COUNT_SW_PAGE_FAULTS, period,
		      FAULT_TYPE, true, fault_phase, &h);
	new_trace_check(_metadata, &self->e, 0, FAULT_TYPE, h.id, &st);
	EXPECT_GE(st.empty, NR_TOUCH);
}

/* The stream ends of the first and the last sample in @m. */
static void stream_ends(struct __test_metadata *_metadata,
			struct ptsim_map *m, uint64_t end[2])
{
	const size_t hdr = sizeof(struct perf_aux_sample_position);
	struct perf_aux_sample_position pos;
	struct ptsim_samples ss = {};
	uint64_t lost = 0;
	size_t i;

	ASSERT_GE(ptsim_read_samples(m, PERF_SAMPLE_TID | PERF_SAMPLE_AUX,
				     &ss, &lost), 0);
	ASSERT_EQ(lost, 0);
	ASSERT_GT(ss.nr, 1);
	for (i = 0; i < ss.nr; i += ss.nr - 1) {
		ASSERT_GE(ss.s[i].aux.len, hdr);
		memcpy(&pos, ss.s[i].aux.data, hdr);
		end[!!i] = pos.offset + pos.size;
	}
	ptsim_samples_free(&ss);
}

#define IDLE_SPIN_MS	400

/*
 * A hidden event idles while none of its samplers is enabled: its stream
 * does not grow while the one sampler is disabled, the task spinning all
 * the while, and goes on when it is enabled again.  Between the last
 * sample before and the first after, there is then the trace of at most
 * two sample periods, not that of the spin (less than half of what the
 * samples before covered, against more than all of it).
 */
TEST_F(aux_sample_pmu, idles_while_samplers_disabled)
{
	struct env *e = &self->e;
	struct perf_event_attr attr;
	uint64_t end[2][2];
	int run;

	if (_metadata->skip)
		return;
	hidden_attr(&attr, e->type, PERF_COUNT_SW_TASK_CLOCK,
		    variant->task_clock_ns, PERF_SAMPLE_TID);
	attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
	open_sampler(_metadata, e, 0, &attr, 0, -1, DATA_PAGES);

	for (run = 0; run < 2; run++) {
		if (run)
			ptsim_spin(IDLE_SPIN_MS);
		enable(_metadata, e, 1, true);
		ptsim_spin(IDLE_SPIN_MS);
		enable(_metadata, e, 1, false);
		stream_ends(_metadata, &e->map[0], end[run]);
	}
	TH_LOG("samples before: %llu bytes; between: %llu",
	       (unsigned long long)(end[0][1] - end[0][0]),
	       (unsigned long long)(end[1][0] - end[0][1]));
	ASSERT_GT(end[0][1], end[0][0]);
	EXPECT_LT(end[1][0] - end[0][1], (end[0][1] - end[0][0]) / 2);
}

TEST_F(aux_sample, per_cpu_sampler)
{
	struct env *e = &self->e;
	struct perf_event_attr attr;
	struct run run = {};
	struct hidden h;

	if (_metadata->skip)
		return;
	if (geteuid())
		SKIP(return, "needs root for a per-CPU event");
	hidden_attr(&attr, e->type, PERF_COUNT_SW_PAGE_FAULTS, 1,
		    FAULT_TYPE);
	open_sampler(_metadata, e, 0, &attr, -1, 0, CPU_DATA_PAGES);
	hidden_info(_metadata, e, e->fd[0], &h);
	EXPECT_EQ(h.users, 1);

	enable(_metadata, e, 1, true);
	phase_a(&e->a);
	phase_b(&e->b);
	enable(_metadata, e, 1, false);

	/* Other tasks' IPs are not in this task's text. */
	check_run(_metadata, e, 0, FAULT_TYPE, NULL, false, &run);
	check_phase(_metadata, &run, &e->a, FN_A(e), FN_B(e),
		    &e->phases, getpid());
	check_phase(_metadata, &run, &e->b, FN_B(e), NULL,
		    &e->phases, getpid());
	run_free(&run);

	hidden_info(_metadata, e, e->fd[0], &h);
	EXPECT_EQ(h.misses, 0);
}

TEST_HARNESS_MAIN
