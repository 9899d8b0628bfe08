// SPDX-License-Identifier: GPL-2.0
/*
 * What keeping trace for core dumps (PR_SET_CORE_TRACE) costs:
 *
 *  - slowdown: a process's busy loop with each thread tracing into a
 *    buffer of its own, against the same loop untraced;
 *  - dump: the time from a crash to the parent's waitpid() of a process
 *    of four threads whose core is written to a file, with the trace
 *    notes and without, and the size of the core files.
 *
 * Both with 64 KiB of trace per thread, as ratios within a round, medians
 * over interleaved rounds.  Needs root: it points kernel.core_pattern at a
 * directory of its own, and puts it back.
 *
 * Usage: core_trace_bench [rounds [PMU]] (ptsim by default; intel_pt's
 * config traces branches)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "ptsim_lib.h"

#define WORK		(100 * 1000 * 1000UL)
#define TRACE_SIZE	(64 << 10)
#define NR_THREADS	4
#define MAX_ROUNDS	64
#define CORE_DIR	"/tmp/core_trace_bench"

static int type;
static uint64_t config;

/* Where the crash writes: nothing is mapped there. */
int *crash_address;

static void busy(unsigned long n)
{
	unsigned long i;

	/* The empty asm keeps the compiler from dropping the loop. */
	for (i = 0; i < n; i++)
		asm volatile("" : : "r" (i));
}

static void *busy_thread(void *arg)
{
	for (;;)
		busy(1000);
	return NULL;
}

static int trace_on(void)
{
	struct prctl_core_trace ct = {
		.type = type, .size = TRACE_SIZE, .config = config,
	};

	return prctl(PR_SET_CORE_TRACE, &ct, sizeof(ct), 0, 0);
}

/*
 * Run @fn(@shared) in child @pid, traced or not, and wait for it.  Returns
 * the wait status, or -1.
 */
static int child(bool traced, void (*fn)(double *), double *shared,
		 pid_t *pid)
{
	int status;

	*pid = fork();
	if (!*pid) {
		if (traced && trace_on())
			_exit(100);
		fn(shared);
		_exit(0);
	}
	if (*pid < 0 || waitpid(*pid, &status, 0) != *pid)
		return -1;
	return status;
}

/* The time the loop takes, in shared[0]. */
static void loop(double *shared)
{
	double start = ptsim_now();

	busy(WORK);
	shared[0] = ptsim_now() - start;
}

/* Threads that spin, then a crash at the time in shared[0]. */
static void crash(double *shared)
{
	struct rlimit core = { RLIM_INFINITY, RLIM_INFINITY };
	pthread_t t;
	int i;

	setrlimit(RLIMIT_CORE, &core);
	for (i = 1; i < NR_THREADS; i++)
		pthread_create(&t, NULL, busy_thread, NULL);
	busy(WORK / 10);
	shared[0] = ptsim_now();
	*crash_address = 0;
}

/* Crash a child; the dump's time and core file size, or -1. */
static int dump(bool traced, double *shared, double *time, double *size)
{
	char path[64];
	struct stat st;
	int status;
	double end;
	pid_t pid;

	status = child(traced, crash, shared, &pid);
	end = ptsim_now();
	if (status < 0 || !WCOREDUMP(status))
		return -1;
	snprintf(path, sizeof(path), CORE_DIR "/core.%d", pid);
	if (stat(path, &st))
		return -1;
	unlink(path);
	*time = end - shared[0];
	*size = st.st_size;
	return 0;
}

static int bench(int rounds, double *shared)
{
	static double slow[MAX_ROUNDS], dump_time[MAX_ROUNDS];
	static double core_size[MAX_ROUNDS];
	double t[2], d[2], s[2];
	int r, traced;
	pid_t pid;

	for (r = 0; r < rounds; r++) {
		for (traced = 0; traced < 2; traced++) {
			if (child(traced, loop, shared, &pid))
				return -1;
			t[traced] = shared[0];
			if (dump(traced, shared, &d[traced], &s[traced]))
				return -1;
		}
		slow[r] = t[1] / t[0];
		dump_time[r] = d[1] / d[0];
		core_size[r] = s[1] / s[0];
	}
	printf("%d threads of 64 KiB of trace each, median of %d rounds of ratios within a round\n",
	       NR_THREADS, rounds);
	printf("slowdown of a busy loop, traced/untraced  %8.3f\n",
	       ptsim_median(slow, rounds));
	printf("core dump time, with/without trace       %8.3f\n",
	       ptsim_median(dump_time, rounds));
	printf("core file size, with/without trace       %8.3f\n",
	       ptsim_median(core_size, rounds));
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5, ret;
	const char *pmu = argc > 2 ? argv[2] : "ptsim";
	char pattern[256];
	double *shared;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "rounds: 1 to %d\n", MAX_ROUNDS);
		return KSFT_FAIL;
	}
	type = ptsim_pmu_type(pmu);
	if (type < 0) {
		printf("core_trace_bench: no %s PMU\n", pmu);
		return KSFT_SKIP;
	}
	if (strcmp(pmu, "ptsim"))
		config = PTSIM_PT_BRANCH;
	if (geteuid()) {
		printf("core_trace_bench: needs root for kernel.core_pattern\n");
		return KSFT_SKIP;
	}
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED ||
	    ptsim_sysctl_str_get("core_pattern", pattern, sizeof(pattern)) ||
	    (mkdir(CORE_DIR, 0700) && errno != EEXIST) ||
	    ptsim_sysctl_str_set("core_pattern", CORE_DIR "/core.%p")) {
		perror("core_trace_bench: set-up");
		return KSFT_FAIL;
	}
	printf("core_trace_bench: %s\n", pmu);
	ret = bench(rounds, shared);
	if (ret)
		fprintf(stderr, "core_trace_bench: a child failed\n");
	ptsim_sysctl_str_set("core_pattern", pattern);
	rmdir(CORE_DIR);
	return ret ? KSFT_FAIL : KSFT_PASS;
}
