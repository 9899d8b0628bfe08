// SPDX-License-Identifier: GPL-2.0
/*
 * PR_SET_CORE_TRACE with ptsim: each thread keeps its latest trace, and a
 * core dump holds it in an NT_PERF_TRACE note per thread.
 *
 * A crashing child spins in spin_early() until a timer of its own CPU
 * time fires, then in spin_late() about as long, then writes through
 * NULL; its note must hold ptsim's records of spin_late() alone, without
 * a gap, newest last.  The
 * crash cases point kernel.core_pattern at a directory of their own, or
 * pipe the core to this program (--save FILE), and put the pattern back.
 *
 * The kselftest_harness.h of this kernel runs a test even when its fixture
 * setup skipped it, so each test starts by checking _metadata->skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/elf.h>
#include <intel-pt.h>

#include "../kselftest_harness.h"
#include "core_trace_lib.h"
#include "ptsim_lib.h"

#define TRACE_SIZE	4096
#define TICK_US		500000

static int ticks;

static void on_tick(int sig)
{
	__atomic_store_n(&ticks, 1, __ATOMIC_RELAXED);
}

/*
 * The spins happen in these functions themselves, so that every IP ptsim
 * records while they run lies in them (selftests build without
 * optimization: nothing is inlined).  spin_early() counts its loops until
 * a timer tick; spin_late() loops as many times, without a signal that
 * would take it elsewhere.
 */
static unsigned long spin_early(void)
{
	unsigned long n = 0;

	while (!__atomic_load_n(&ticks, __ATOMIC_RELAXED))
		n++;
	return n;
}

static void spin_late(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		asm volatile("" : : "r" (i) : "memory");
}

/* Threads that spin until the dump stops them. */
static void spin_forever(void)
{
	for (;;)
		asm volatile("" : : : "memory");
}

/* Where the crash writes: nothing is mapped there. */
int *crash_address;

static void crash(void)
{
	*crash_address = 0;
}

static void spin_and_crash(rlim_t core);

/*
 * The calls that lead to the crash, newest first: spin_late() returns into
 * spin_and_crash(), which calls crash().  The records of the thread that
 * crashes lie in spin_late() and, after it, at the crash (under QEMU TCG a
 * tick often waits for the translation of code run for the first time, as
 * the crash's, to end).  Those of a thread that spins until the dump stops
 * it lie in spin_forever().
 */
#define NR_CRASH_CALLS	3
static struct ptsim_range crash_text[NR_CRASH_CALLS], forever_text[1];

static int spin_ranges(void)
{
	return ptsim_func_range("crash", (uintptr_t)crash, &crash_text[0]) ||
	       ptsim_func_range("spin_and_crash", (uintptr_t)spin_and_crash,
				&crash_text[1]) ||
	       ptsim_func_range("spin_late", (uintptr_t)spin_late,
				&crash_text[2]) ||
	       ptsim_func_range("spin_forever", (uintptr_t)spin_forever,
				&forever_text[0]);
}

static int get_core_trace(struct prctl_core_trace *ct)
{
	return prctl(PR_GET_CORE_TRACE, ct, sizeof(*ct), 0, 0) ? -errno : 0;
}

/* A page that a parent and its children share, to tell pids. */
static pid_t *shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void set_core_limit(rlim_t core)
{
	struct rlimit lim = { core, core };

	if (setrlimit(RLIMIT_CORE, &lim))
		_exit(103);
}

/*
 * RLIMIT_CORE @core, and the tick that ends spin_early(): after TICK_US of
 * the calling thread's own CPU time, so that however many tasks share its
 * CPU, the spins run long enough for ptsim's records of them to fill a
 * note.  Half a second: a TCG guest whose CPUs are all busy delivers
 * ptsim's ticks less often than every 100 us (some 40 times less, with
 * three more busy tasks than its two CPUs).
 */
static void start_spins(rlim_t core)
{
	struct itimerspec its = { .it_value = { 0, TICK_US * 1000 } };
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM,
	};
	timer_t timer;

	set_core_limit(core);
	signal(SIGALRM, on_tick);
	sev._sigev_un._tid = syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) ||
	    timer_settime(timer, 0, &its, NULL))
		_exit(105);
}

/* The spins, then SIGSEGV, with RLIMIT_CORE @core; never returns. */
static void spin_and_crash(rlim_t core)
{
	start_spins(core);
	spin_late(spin_early());
	crash();
	_exit(100);
}

/*
 * abort() through a pointer that the dynamic linker set at load time (not
 * static: the compiler must load it): a first call through the PLT would
 * run thousands of instructions of lazy binding between spin_and_abort()
 * and abort().
 */
void (*abort_now)(void) = abort;

/* The spins, then abort(): SIGABRT, which libc sends by a system call. */
static void spin_and_abort(void)
{
	start_spins(RLIM_INFINITY);
	spin_late(spin_early());
	abort_now();
}

/*
 * A thread of a crashing process: its tid, then it spins until the dump
 * stops it.  The spinners and the thread that crashes start together at
 * the barrier: that one waits blocked, so that its note has only its
 * spins.
 */
static pthread_barrier_t spinners;

static void *spinning_thread(void *arg)
{
	*(pid_t *)arg = syscall(SYS_gettid);
	pthread_barrier_wait(&spinners);
	spin_forever();
	return NULL;
}

/* The thread of a process that crashes: its tid, then the crash. */
static void *crashing_thread(void *arg)
{
	__atomic_store_n((pid_t *)arg, syscall(SYS_gettid), __ATOMIC_RELAXED);
	spin_and_crash(RLIM_INFINITY);
	return NULL;
}

/*
 * Check that @note is of thread @tid, from PMU @pmu, with all the trace
 * asked for and earlier trace overwritten.  Returns NULL or what is wrong,
 * in @why.
 */
static const char *check_header(const struct perf_core_trace_note *note,
				pid_t tid, const char *pmu, char *why,
				size_t len)
{
	if (note->hdr_size == sizeof(*note) && note->tid == tid &&
	    !strcmp(note->pmu, pmu) && note->size == TRACE_SIZE &&
	    note->flags == PERF_CORE_TRACE_WRAPPED && note->offset)
		return NULL;
	snprintf(why, len,
		 "header: hdr_size %u tid %u (want %d) pmu %.32s size %llu offset %llu flags %#llx",
		 note->hdr_size, note->tid, tid, note->pmu,
		 (unsigned long long)note->size,
		 (unsigned long long)note->offset,
		 (unsigned long long)note->flags);
	return why;
}

/*
 * Check that @note is a ptsim trace of thread @tid (check_header()) whose
 * records all lie in the @nr ranges of @text, most of them in the last,
 * newest last and without a gap.  Returns NULL or what is wrong, in @why.
 */
static const char *check_note(const struct perf_core_trace_note *note,
			      pid_t tid, struct ptsim_range *text, size_t nr,
			      char *why, size_t len)
{
	struct ptsim_range *main_text = &text[nr - 1];
	struct ptsim_ranges ranges = { text, nr };
	struct ptsim_sample s = {};
	struct ptsim_trace t;
	const char *ret;
	size_t i, in_main = 0;

	ret = check_header(note, tid, "ptsim", why, len);
	if (ret)
		return ret;
	ptsim_stream_add(&s.aux, note + 1, note->size, 0);
	if (ptsim_sample_trace(&s, &t, &ranges)) {
		snprintf(why, len, "trace: %s", t.error);
		ret = why;
	} else {
		for (i = 0; i < t.nr; i++)
			in_main += ptsim_in_range(main_text, t.rec[i].ip);
		if (in_main < 8 || in_main < t.nr / 2) {
			snprintf(why, len, "trace: %zu of %zu records in %#llx-%#llx",
				 in_main, t.nr,
				 (unsigned long long)main_text->start,
				 (unsigned long long)main_text->end);
			ret = why;
		}
	}
	ptsim_trace_free(&t);
	ptsim_stream_free(&s.aux);
	return ret;
}

/* Copy standard input to @path: the core pipe's helper. */
static int save_stdin(const char *path)
{
	char buf[65536];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ssize_t n;

	if (fd < 0)
		return 1;
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return 2;
	return close(fd) || n < 0 ? 3 : 0;
}

/* Put ptsim's type in @type; say why the tests cannot run, if they cannot. */
static const char *cannot_run(int *type)
{
	*type = ptsim_type();
	if (*type < 0)
		return "no ptsim PMU (CONFIG_PTSIM)";
	if (!ptsim_can_sample())
		return "ptsim is a module: no AUX sampling";
	if (geteuid())
		return "needs root: kernel.core_pattern, sysctls, user nobody";
	return NULL;
}

FIXTURE(core_trace)
{
	int	type;
	char	exe[PATH_MAX];	/* this program */
	char	dir[64];
	char	pattern[256];	/* the one to put back */
	bool	pattern_saved;
	long	pipe_limit;	/* kernel.core_pipe_limit, to put back */
	bool	pipe_limit_saved;
};

FIXTURE_SETUP(core_trace)
{
	const char *why = cannot_run(&self->type);
	ssize_t len;

	if (why)
		SKIP(return, "%s", why);
	if (spin_ranges())
		SKIP(return, "no symbol table for spin_late(), spin_forever()");
	len = readlink("/proc/self/exe", self->exe, sizeof(self->exe) - 1);
	ASSERT_GT(len, 0);
	self->exe[len] = 0;
	strcpy(self->dir, "/tmp/core_trace.XXXXXX");
	ASSERT_EQ(core_dir_make(self->dir, self->pattern, sizeof(self->pattern)), 0);
	self->pattern_saved = true;
}

FIXTURE_TEARDOWN(core_trace)
{
	if (!self->pattern_saved)
		return;
	if (self->pipe_limit_saved)
		EXPECT_EQ(ptsim_sysctl_set("core_pipe_limit", self->pipe_limit),
			  0);
	EXPECT_EQ(core_dir_remove(self->dir, self->pattern), 0);
}

/* Wait for @pid, which must have dumped core; read its core. */
static void wait_core(struct __test_metadata *_metadata, const char *dir,
		      pid_t pid, struct core_notes *cn)
{
	char why[160];

	ASSERT_EQ(core_notes_wait(pid, dir, cn, why, sizeof(why)), 0)
		TH_LOG("%s", why);
}

TEST_F(core_trace, set_get_off)
{
	struct prctl_core_trace ct;

	if (_metadata->skip)
		return;
	ASSERT_EQ(core_trace_set(self->type, 0, TRACE_SIZE, 0), 0);
	ASSERT_EQ(get_core_trace(&ct), 0);
	EXPECT_EQ(ct.type, self->type);
	EXPECT_EQ(ct.size, TRACE_SIZE);
	EXPECT_EQ(ct.config, 0);
	EXPECT_EQ(ct.flags, 0);
	ASSERT_EQ(prctl(PR_SET_CORE_TRACE, NULL, 0, 0, 0), 0);
	ASSERT_EQ(get_core_trace(&ct), 0);
	EXPECT_EQ(ct.size, 0);
}

TEST_F(core_trace, bad_arguments_get_errnos)
{
	struct prctl_core_trace ct = { .type = self->type, .size = TRACE_SIZE };
	uint8_t big[sizeof(ct) + 8] = {};

	if (_metadata->skip)
		return;
	EXPECT_EQ(core_trace_set(self->type, 0, TRACE_SIZE, 2), -EINVAL);
	EXPECT_EQ(core_trace_set(self->type, 0, 0, 0), -EINVAL);
	EXPECT_EQ(core_trace_set(self->type, 0, 12, 0), -EINVAL);
	EXPECT_EQ(core_trace_set(self->type, 0, 2 << 20, 0), -EINVAL);
	EXPECT_EQ(core_trace_set(INT_MAX, 0, TRACE_SIZE, 0), -ENOENT);
	/* A PMU that cannot take AUX samples. */
	EXPECT_EQ(core_trace_set(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				 TRACE_SIZE, 0), -EOPNOTSUPP);
	EXPECT_EQ(prctl(PR_SET_CORE_TRACE, &ct, sizeof(ct) - 8, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(prctl(PR_SET_CORE_TRACE, &ct, sizeof(ct), 1, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(prctl(PR_SET_CORE_TRACE, NULL, sizeof(ct), 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(prctl(PR_SET_CORE_TRACE, 8, sizeof(ct), 0, 0), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(prctl(PR_GET_CORE_TRACE, &ct, sizeof(ct) - 8, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	/* A bigger struct is fine if what this kernel does not know is 0. */
	memcpy(big, &ct, sizeof(ct));
	big[sizeof(ct)] = 1;
	EXPECT_EQ(prctl(PR_SET_CORE_TRACE, big, sizeof(big), 0, 0), -1);
	EXPECT_EQ(errno, E2BIG);
	big[sizeof(ct)] = 0;
	EXPECT_EQ(prctl(PR_SET_CORE_TRACE, big, sizeof(big), 0, 0), 0);
	/* A failed call leaves the process without a core trace. */
	EXPECT_EQ(core_trace_set(INT_MAX, 0, TRACE_SIZE, 0), -ENOENT);
	ASSERT_EQ(get_core_trace(&ct), 0);
	EXPECT_EQ(ct.size, 0);
}

/* One thread, set up before the crash: its note ends in spin_late(). */
TEST_F(core_trace, crash_note_holds_latest_trace)
{
	struct core_notes cn;
	char why[256];
	pid_t pid;

	if (_metadata->skip)
		return;
	pid = core_trace_fork(self->type, 0, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid)
		spin_and_crash(RLIM_INFINITY);
	wait_core(_metadata, self->dir, pid, &cn);
	ASSERT_EQ(cn.nr_trace, 1);
	EXPECT_EQ(check_note(cn.trace[0], pid, crash_text, NR_CRASH_CALLS, why, sizeof(why)),
		  NULL) TH_LOG("%s", why);
	core_notes_free(&cn);
}

/*
 * The functions, newest first, that the last instructions of @f ran in,
 * each once, from those in @calls; -1 for an instruction in none.  Returns
 * how many it found, at most @max.
 */
static size_t flow_calls(const struct ptsim_flow *f,
			 const struct ptsim_range *calls, size_t nr,
			 int *found, size_t max)
{
	size_t n, i, nr_found = 0;
	uint64_t ip;
	int fn;

	for (n = 0; nr_found < max && (ip = ptsim_flow_ip(f, n)); n++) {
		for (fn = -1, i = 0; i < nr && fn < 0; i++)
			if (ptsim_in_range(&calls[i], ip))
				fn = i;
		if (!nr_found || found[nr_found - 1] != fn)
			found[nr_found++] = fn;
	}
	return nr_found;
}

/*
 * On Intel PT (QEMU's, in make check): a child traced with branches ends
 * its spins with a crash (or with abort() if @do_abort); libipt decodes
 * the note of the thread that ended, over this program's code (the forked
 * child runs it at the same addresses), into @f.  @cn is the core's.
 */
static void intel_pt_crash_flow(struct __test_metadata *_metadata,
				const char *dir, int type, bool do_abort,
				struct core_notes *cn, struct ptsim_flow *f)
{
	struct ptsim_ranges text;
	struct pt_image *image;
	char why[256];
	pid_t pid;

	pid = core_trace_fork(type, PTSIM_PT_BRANCH, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (do_abort)
			spin_and_abort();
		spin_and_crash(RLIM_INFINITY);
	}
	wait_core(_metadata, dir, pid, cn);
	ASSERT_EQ(cn->nr_trace, 1);
	ASSERT_EQ(check_header(cn->trace[0], pid, "intel_pt", why,
			       sizeof(why)), NULL) TH_LOG("%s", why);

	ASSERT_EQ(ptsim_text_ranges(&text), 0);
	image = ptsim_self_image(&text);
	ASSERT_NE(image, NULL);
	ptsim_flow_decode((const uint8_t *)(cn->trace[0] + 1),
			  cn->trace[0]->size, image, f);
	pt_image_free(image);
	ptsim_ranges_free(&text);
	EXPECT_EQ(f->error, 0) TH_LOG("libipt: %s", pt_errstr(pt_errcode(f->error)));
	EXPECT_GT(f->insns, 0);
}

/*
 * A crash: the flow's last functions are spin_late(), spin_and_crash() and
 * crash(), and it ends exactly at the instruction that faulted (the IP in
 * the core's registers), where the page fault disabled user-mode tracing.
 */
TEST_F(core_trace, intel_pt_flow_ends_at_the_fault)
{
	int type = ptsim_pmu_type("intel_pt"), found[NR_CRASH_CALLS];
	struct core_notes cn;
	struct ptsim_flow f;
	size_t i, nr;

	if (_metadata->skip)
		return;
	if (type < 0)
		SKIP(return, "no intel_pt PMU");
	intel_pt_crash_flow(_metadata, self->dir, type, false, &cn, &f);
	EXPECT_EQ(f.disabled_ip, cn.ip[0])
		TH_LOG("trace disabled at %#llx, the fault at %#llx",
		       (unsigned long long)f.disabled_ip,
		       (unsigned long long)cn.ip[0]);
	nr = flow_calls(&f, crash_text, NR_CRASH_CALLS, found, NR_CRASH_CALLS);
	ASSERT_EQ(nr, NR_CRASH_CALLS);
	for (i = 0; i < nr; i++)
		EXPECT_EQ(found[i], i) TH_LOG("call %zu", i);
	core_notes_free(&cn);
}

/*
 * abort(): the flow goes from spin_late() to spin_and_abort() into libc,
 * where it ends at a system call (that sends SIGABRT, or unblocks it):
 * user-mode tracing stops there, and the IP in the core's registers is
 * that of the instruction after it.
 */
TEST_F(core_trace, intel_pt_abort_ends_at_a_syscall)
{
	int type = ptsim_pmu_type("intel_pt"), found[3];
	struct ptsim_range abort_text[2];
	struct core_notes cn;
	struct ptsim_flow f;
	uint64_t last;

	if (_metadata->skip)
		return;
	if (type < 0)
		SKIP(return, "no intel_pt PMU");
	ASSERT_EQ(ptsim_func_range("spin_and_abort", (uintptr_t)spin_and_abort,
				   &abort_text[0]), 0);
	abort_text[1] = crash_text[2];	/* spin_late() */
	intel_pt_crash_flow(_metadata, self->dir, type, true, &cn, &f);
	last = ptsim_flow_ip(&f, 0);
	/* The child ran this process's libc at the same addresses */
	ASSERT_NE(last, 0);
	EXPECT_EQ(memcmp((void *)(uintptr_t)last, "\x0f\x05", 2), 0)
		TH_LOG("the flow ends at %#llx, not at a syscall",
		       (unsigned long long)last);
	EXPECT_EQ(last + 2, cn.ip[0])
		TH_LOG("the flow ends at %#llx, the core's IP is %#llx",
		       (unsigned long long)last, (unsigned long long)cn.ip[0]);
	ASSERT_EQ(flow_calls(&f, abort_text, 2, found, 3), 3)
		TH_LOG("%llu instructions, the last %d kept",
		       (unsigned long long)f.insns, PTSIM_FLOW_LAST);
	EXPECT_EQ(found[0], -1);	/* libc */
	EXPECT_EQ(found[1], 0);		/* spin_and_abort() */
	EXPECT_EQ(found[2], 1);		/* spin_late() */
	core_notes_free(&cn);
}

/*
 * Threads created before and after the prctl each get a note, in which
 * the trace of the thread that crashed ends in spin_late() and the
 * others' in spin_forever().
 */
TEST_F(core_trace, every_thread_has_a_note)
{
	struct core_notes cn;
	pid_t *tids;
	pthread_t thread;
	char why[256];
	pid_t pid;
	int i;

	if (_metadata->skip)
		return;
	tids = shared_page();
	ASSERT_NE(tids, NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		/* One thread before the prctl, one after. */
		pthread_barrier_init(&spinners, NULL, 3);
		if (pthread_create(&thread, NULL, spinning_thread, &tids[0]))
			_exit(102);
		if (core_trace_set(self->type, 0, TRACE_SIZE, 0))
			_exit(101);
		if (pthread_create(&thread, NULL, spinning_thread, &tids[1]))
			_exit(102);
		pthread_barrier_wait(&spinners);
		spin_and_crash(RLIM_INFINITY);
	}
	wait_core(_metadata, self->dir, pid, &cn);
	ASSERT_EQ(cn.nr_trace, 3);
	EXPECT_EQ(cn.nr_tid, 3);
	/* The thread that dumps core comes first. */
	EXPECT_EQ(cn.trace[0]->tid, pid);
	EXPECT_EQ(check_note(core_notes_of(&cn, pid), pid, crash_text, NR_CRASH_CALLS, why,
			     sizeof(why)), NULL) TH_LOG("%s", why);
	for (i = 0; i < 2; i++) {
		ASSERT_NE(core_notes_of(&cn, tids[i]), NULL)
			TH_LOG("no note of thread %d", tids[i]);
		EXPECT_EQ(check_note(core_notes_of(&cn, tids[i]), tids[i],
				     forever_text, 1, why, sizeof(why)), NULL)
			TH_LOG("thread %d: %s", tids[i], why);
	}
	core_notes_free(&cn);
	munmap(tids, 4096);
}

/*
 * A thread other than the main one crashes: it dumps core, its note comes
 * first and ends in spin_late(), and the main thread's, spinning, second.
 */
TEST_F(core_trace, crash_in_a_second_thread)
{
	struct core_notes cn;
	pthread_t thread;
	char why[256];
	pid_t *tid;
	pid_t pid;

	if (_metadata->skip)
		return;
	tid = shared_page();
	ASSERT_NE(tid, NULL);
	pid = core_trace_fork(self->type, 0, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (pthread_create(&thread, NULL, crashing_thread, tid))
			_exit(102);
		spin_forever();
	}
	wait_core(_metadata, self->dir, pid, &cn);
	ASSERT_EQ(cn.nr_trace, 2);
	EXPECT_EQ(cn.trace[0]->tid, *tid);
	EXPECT_EQ(check_note(core_notes_of(&cn, *tid), *tid, crash_text,
			     NR_CRASH_CALLS, why, sizeof(why)), NULL)
		TH_LOG("crashing thread: %s", why);
	ASSERT_NE(core_notes_of(&cn, pid), NULL);
	EXPECT_EQ(check_note(core_notes_of(&cn, pid), pid, forever_text, 1, why,
			     sizeof(why)), NULL) TH_LOG("main thread: %s", why);
	core_notes_free(&cn);
	munmap(tid, 4096);
}

/*
 * An exec that makes the process undumpable (a setuid program) drops the
 * setting; one that does not keeps it.  Nobody asks for the trace and
 * runs a copy of this program, setuid root or not, which exits with
 * PR_GET_CORE_TRACE's size (--get).
 */
static int nobody_execs(struct perf_event_attr *attr)
{
	const char *copy = (const char *)(uintptr_t)attr->config1;

	if (core_trace_set(attr->type, 0, TRACE_SIZE, 0))
		return 100;
	execl(copy, copy, "--get", NULL);
	return 101;
}

static int exec_get(void)
{
	struct prctl_core_trace ct;

	if (get_core_trace(&ct))
		return 255;
	return ct.size ? 1 : 0;
}

/*
 * A child process inherits the setting: the grandchild that crashes has a
 * note.  Its parent reaps it and tells its pid through @shared.
 */
TEST_F(core_trace, fork_keeps_it)
{
	struct core_notes cn;
	pid_t *shared;
	char path[128], why[256];
	int status;
	pid_t pid;

	if (_metadata->skip)
		return;
	shared = shared_page();
	ASSERT_NE(shared, NULL);
	pid = core_trace_fork(self->type, 0, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid) {
		pid = fork();
		if (!pid)
			spin_and_crash(RLIM_INFINITY);
		*shared = pid;
		_exit(waitpid(pid, &status, 0) == pid && WCOREDUMP(status) ?
		      0 : 103);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("status %#x", status);
	snprintf(path, sizeof(path), "%s/core.%d", self->dir, *shared);
	ASSERT_EQ(core_notes_read(path, &cn), 0) TH_LOG("%s: not a core file", path);
	ASSERT_EQ(cn.nr_trace, 1);
	EXPECT_EQ(check_note(cn.trace[0], *shared, crash_text, NR_CRASH_CALLS, why,
			     sizeof(why)), NULL) TH_LOG("%s", why);
	core_notes_free(&cn);
	munmap(shared, 4096);
}

/* The program that --crash runs tells its crash_text on fd 3. */
static void crash_after_exec(void)
{
	if (spin_ranges() ||
	    write(3, crash_text, sizeof(crash_text)) != sizeof(crash_text))
		_exit(104);
	close(3);
	spin_and_crash(RLIM_INFINITY);
}

/*
 * An exec starts the trace afresh: a child with 32 KiB of trace spins long
 * enough to fill that (some 400 ms of ptsim's records every 100 us), then
 * execs this program, which crashes at once (--crash-now), well before it
 * could fill it again.  The note holds only trace from after the exec: a
 * stream from offset 0 that has not wrapped.
 */
TEST_F(core_trace, exec_starts_the_trace_afresh)
{
	const uint32_t size = 32 * 1024;
	struct core_notes cn;
	pid_t pid;

	if (_metadata->skip)
		return;
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (core_trace_set(self->type, 0, size, 0))
			_exit(101);
		start_spins(RLIM_INFINITY);
		spin_late(spin_early());
		execl(self->exe, self->exe, "--crash-now", NULL);
		_exit(102);
	}
	wait_core(_metadata, self->dir, pid, &cn);
	ASSERT_EQ(cn.nr_trace, 1);
	EXPECT_EQ(cn.trace[0]->flags & PERF_CORE_TRACE_WRAPPED, 0);
	EXPECT_EQ(cn.trace[0]->offset, 0);
	EXPECT_LT(cn.trace[0]->size, size);
	core_notes_free(&cn);
}

TEST_F(core_trace, exec_keeps_it)
{
	struct ptsim_range text[NR_CRASH_CALLS];
	struct core_notes cn;
	char why[256];
	int fds[2];
	pid_t pid;

	if (_metadata->skip)
		return;
	ASSERT_EQ(pipe(fds), 0);
	pid = core_trace_fork(self->type, 0, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (dup2(fds[1], 3) != 3)
			_exit(101);
		execl(self->exe, self->exe, "--crash", NULL);
		_exit(102);
	}
	close(fds[1]);
	ASSERT_EQ(read(fds[0], text, sizeof(text)), sizeof(text));
	close(fds[0]);
	wait_core(_metadata, self->dir, pid, &cn);
	ASSERT_EQ(cn.nr_trace, 1);
	EXPECT_EQ(check_note(cn.trace[0], pid, text, NR_CRASH_CALLS, why,
			     sizeof(why)), NULL) TH_LOG("%s", why);
	core_notes_free(&cn);
}

/* gdb reads a core with notes: the crash's backtrace. */
TEST_F(core_trace, gdb_reads_the_core)
{
	char cmd[2 * PATH_MAX], line[512], out[4096] = "";
	struct core_notes cn;
	bool crash_frame = false;
	FILE *gdb;
	pid_t pid;

	if (_metadata->skip)
		return;
	if (system("gdb --version >/dev/null 2>&1"))
		SKIP(return, "no gdb");
	pid = core_trace_fork(self->type, 0, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid)
		spin_and_crash(RLIM_INFINITY);
	wait_core(_metadata, self->dir, pid, &cn);
	ASSERT_EQ(cn.nr_trace, 1);
	core_notes_free(&cn);

	snprintf(cmd, sizeof(cmd), "gdb -nx -batch -ex bt %s %s/core.%d 2>&1",
		 self->exe, self->dir, pid);
	gdb = popen(cmd, "r");
	ASSERT_NE(gdb, NULL);
	while (fgets(line, sizeof(line), gdb)) {
		strncat(out, line, sizeof(out) - strlen(out) - 1);
		if (strstr(line, "in spin_and_crash"))
			crash_frame = true;
	}
	EXPECT_EQ(pclose(gdb), 0);
	EXPECT_TRUE(crash_frame) TH_LOG("no spin_and_crash() frame:\n%s", out);
}

/* An undumpable process writes no core, trace or not. */
TEST_F(core_trace, undumpable_writes_nothing)
{
	char path[128];
	int status;
	pid_t pid;

	if (_metadata->skip)
		return;
	pid = core_trace_fork(self->type, 0, TRACE_SIZE);
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
			_exit(101);
		spin_and_crash(RLIM_INFINITY);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFSIGNALED(status) && !WCOREDUMP(status))
		TH_LOG("status %#x", status);
	snprintf(path, sizeof(path), "%s/core.%d", self->dir, pid);
	EXPECT_NE(access(path, F_OK), 0);
}

/*
 * A core piped to a helper (this program, --save FILE) has the note;
 * without it: with RLIMIT_CORE 0, which a pipe ignores, and from a
 * process that changed its credentials since it asked for the trace
 * (root that became nobody and made itself dumpable again).  With
 * kernel.core_pipe_limit 0 the kernel does not wait for the helper, and
 * the crashed child can be reaped before its core is on disk: a non-zero
 * limit makes the dump, hence the child's exit, wait for the helper.
 */
TEST_F(core_trace, pipe_has_notes_if_rlimit_core_and_creds_allow)
{
	static const struct {
		rlim_t		core;
		bool		drop;	/* to nobody */
		size_t		notes;
	} cases[] = {
		{ RLIM_INFINITY, false, 1 },
		{ 0, false, 0 },
		{ RLIM_INFINITY, true, 0 },
	};
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	char pattern[PATH_MAX + 128], path[128], why[256];
	struct core_notes cn;
	int status, i;
	pid_t pid;

	if (_metadata->skip)
		return;
	ASSERT_EQ(ptsim_sysctl_get("core_pipe_limit", &self->pipe_limit), 0);
	self->pipe_limit_saved = true;
	ASSERT_EQ(ptsim_sysctl_set("core_pipe_limit", 16), 0);
	snprintf(pattern, sizeof(pattern), "|%s --save %s/pipe.%%p", self->exe,
		 self->dir);
	ASSERT_EQ(ptsim_sysctl_str_set("core_pattern", pattern), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pid = core_trace_fork(self->type, 0, TRACE_SIZE);
		ASSERT_GE(pid, 0);
		if (!pid) {
			/* Nobody may not raise RLIMIT_CORE: root does. */
			if (cases[i].drop &&
			    (setrlimit(RLIMIT_CORE, &unlimited) ||
			     ptsim_become_user(PTSIM_NOBODY, PTSIM_KEEP_MEMLOCK) ||
			     prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)))
				_exit(102);
			spin_and_crash(cases[i].core);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_TRUE(WIFSIGNALED(status) && WCOREDUMP(status))
			TH_LOG("case %d: status %#x: no core dump", i, status);
		snprintf(path, sizeof(path), "%s/pipe.%d", self->dir, pid);
		ASSERT_EQ(core_notes_read(path, &cn), 0)
			TH_LOG("%s: not a core file", path);
		EXPECT_EQ(cn.nr_tid, 1);
		EXPECT_EQ(cn.nr_trace, cases[i].notes) TH_LOG("case %d", i);
		if (cn.nr_trace && cases[i].notes)
			EXPECT_EQ(check_note(cn.trace[0], pid, crash_text,
					     NR_CRASH_CALLS, why, sizeof(why)),
				  NULL) TH_LOG("%s", why);
		core_notes_free(&cn);
	}
}

/*
 * As user nobody, without capabilities, at perf_event_paranoid 2 and
 * with ptsim open to unprivileged users; the teardown puts back the
 * sysctls and ptsim's knob.
 */
FIXTURE(core_trace_unpriv)
{
	int			type;
	long			paranoid, mlock_kb;
	bool			unprivileged, saved;
	struct perf_event_attr	attr;	/* type, config, size: what to ask */
};

FIXTURE_SETUP(core_trace_unpriv)
{
	const char *why = cannot_run(&self->type);

	if (why)
		SKIP(return, "%s", why);
	self->attr.type = self->type;
	self->attr.aux_sample_size = 4096;
	self->attr.exclude_kernel = 1;
	ASSERT_EQ(ptsim_sysctl_get("perf_event_paranoid", &self->paranoid), 0);
	ASSERT_EQ(ptsim_sysctl_get("perf_event_mlock_kb", &self->mlock_kb), 0);
	ASSERT_EQ(ptsim_knob_get("unprivileged", &self->unprivileged), 0);
	/* Last: the teardown does not run if the setup fails. */
	self->saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_paranoid", 2), 0);
	ASSERT_EQ(ptsim_knob_set("unprivileged", true), 0);
}

FIXTURE_TEARDOWN(core_trace_unpriv)
{
	if (!self->saved)
		return;
	EXPECT_EQ(ptsim_sysctl_set("perf_event_paranoid", self->paranoid), 0);
	EXPECT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", self->mlock_kb), 0);
	EXPECT_EQ(ptsim_knob_set("unprivileged", self->unprivileged), 0);
}

/* The errno of asking for @attr's trace, 0 if granted. */
static int nobody_set(struct perf_event_attr *attr)
{
	return -core_trace_set(attr->type, attr->config, attr->aux_sample_size,
			       attr->exclude_kernel ? 0 : PR_CORE_TRACE_KERNEL);
}

TEST_F(core_trace_unpriv, kernel_trace_is_eacces)
{
	if (_metadata->skip)
		return;
	ASSERT_EQ(ptsim_as_nobody(nobody_set, &self->attr, PTSIM_KEEP_MEMLOCK),
		  0);
	self->attr.exclude_kernel = 0;
	ASSERT_EQ(ptsim_as_nobody(nobody_set, &self->attr, PTSIM_KEEP_MEMLOCK),
		  EACCES);
}

/* A copy of this program, root's, with @mode; 0 or -1. */
static int copy_self(const char *to, mode_t mode)
{
	char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY), out = -1;
	ssize_t n = -1;

	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out < 0 || close(out) || n < 0)
		return -1;
	return chmod(to, mode);
}

TEST_F(core_trace_unpriv, setuid_exec_drops_it)
{
	static const char copy[] = "/tmp/core_trace.setuid";

	if (_metadata->skip)
		return;
	self->attr.config1 = (uintptr_t)copy;
	ASSERT_EQ(copy_self(copy, 04755), 0);
	EXPECT_EQ(ptsim_as_nobody(nobody_execs, &self->attr,
				  PTSIM_KEEP_MEMLOCK), 0) TH_LOG("setuid");
	ASSERT_EQ(chmod(copy, 0755), 0);
	EXPECT_EQ(ptsim_as_nobody(nobody_execs, &self->attr,
				  PTSIM_KEEP_MEMLOCK), 1) TH_LOG("not setuid");
	unlink(copy);
}

static void *blocked_thread(void *arg)
{
	char c;

	return read(*(int *)arg, &c, 1) ? NULL : NULL;
}

/*
 * Two threads at two pages each, within three pages of RLIMIT_MEMLOCK:
 * the second buffer is refused, the first one undone and refunded, so
 * that one thread alone gets its buffer afterwards.
 */
static int nobody_over_limit(struct perf_event_attr *attr)
{
	struct prctl_core_trace ct;
	pthread_t thread;
	int fds[2], ret;

	if (pipe(fds) || pthread_create(&thread, NULL, blocked_thread, &fds[0]))
		return 100;
	ret = nobody_set(attr);
	if (get_core_trace(&ct) || ct.size)
		return 101;
	close(fds[1]);
	pthread_join(thread, NULL);
	if (nobody_set(attr))
		return 102;
	return ret;
}

TEST_F(core_trace_unpriv, mlock_limit_is_eperm_and_undone)
{
	if (_metadata->skip)
		return;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", 0), 0);
	ASSERT_EQ(ptsim_as_nobody(nobody_over_limit, &self->attr,
				  3 * getpagesize()), EPERM);
}

static void *no_op(void *arg)
{
	return arg;
}

/*
 * A thread and a child process created over the limits run without trace:
 * the caller's buffer (two pages) fits in three pages of RLIMIT_MEMLOCK,
 * theirs do not, and neither creation fails for it.
 */
static int nobody_forks_over_limit(struct perf_event_attr *attr)
{
	pthread_t thread;
	int status;
	pid_t pid;

	if (nobody_set(attr))
		return 100;
	if (pthread_create(&thread, NULL, no_op, NULL) ||
	    pthread_join(thread, NULL))
		return 101;
	pid = fork();
	if (!pid)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return 102;
	return 0;
}

TEST_F(core_trace_unpriv, fork_over_limit_runs_without_trace)
{
	if (_metadata->skip)
		return;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", 0), 0);
	ASSERT_EQ(ptsim_as_nobody(nobody_forks_over_limit, &self->attr,
				  3 * getpagesize()), 0);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--crash-now")) {
		set_core_limit(RLIM_INFINITY);
		crash();
	}
	if (argc == 2 && !strcmp(argv[1], "--crash"))
		crash_after_exec();
	if (argc == 3 && !strcmp(argv[1], "--save"))
		return save_stdin(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--get"))
		return exec_get();
	return test_harness_run(argc, argv);
}
