// SPDX-License-Identifier: GPL-2.0
/*
 * A task's sampling counter gives one sample per period, also for the
 * periods that end just before the task is preempted.
 *
 * A real-time thread on the task's CPU preempts it a thousand times: a
 * thread on another CPU wakes it through a pipe, which interrupts the
 * task's CPU with an IPI, and on its way out of the interrupt the kernel
 * switches the task out with interrupts masked.  When the task's counter
 * overflowed just before, its own overflow interrupt is still pending
 * then (arm64's PMU interrupt is an ordinary one, and an emulated PMU
 * raises it late), and a PMU driver that clears the overflow when it
 * stops the counter, without reporting it, loses that period's sample
 * with no PERF_RECORD_LOST to say so: under QEMU's TCG, about one
 * preemption in seven did.  The samples must be exactly the counter's
 * periods.  Perf's CPU-time limit is off meanwhile, so that no sample is
 * throttled either.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define PERIOD		7001	/* user instructions */
#define PREEMPTIONS	1000

static int stop;

struct pipes {
	int	wake[2];	/* waker -> preempter */
	int	done[2];	/* preempter -> waker */
};

/* The real-time thread: runs once per byte from the waker, then sleeps. */
static void *preempter(void *arg)
{
	struct pipes *p = arg;
	char c;

	while (read(p->wake[0], &c, 1) == 1 && write(p->done[1], &c, 1) == 1)
		;
	return NULL;
}

/* On another CPU: wakes the preempter PREEMPTIONS times, then stops the task. */
static void *waker(void *arg)
{
	struct pipes *p = arg;
	char c = 0;
	int i;

	for (i = 0; i < PREEMPTIONS; i++)
		if (write(p->wake[1], &c, 1) != 1 || read(p->done[0], &c, 1) != 1)
			break;
	close(p->wake[1]);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start @fn on @cpu, as SCHED_FIFO if @fifo. */
static int thread_start(pthread_t *t, void *(*fn)(void *), void *arg, int cpu,
			bool fifo)
{
	struct sched_param prio = { .sched_priority = 1 };
	pthread_attr_t attr;
	cpu_set_t cpus;
	int err;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	if (fifo) {
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &prio);
	}
	err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}

FIXTURE(unthrottled) {
	long	max_rate;
	long	max_percent;
};

FIXTURE_SETUP(unthrottled)
{
	self->max_rate = 0;
	ASSERT_EQ(ptsim_sysctl_get("perf_cpu_time_max_percent",
				   &self->max_percent), 0);
	ASSERT_EQ(ptsim_sysctl_get("perf_event_max_sample_rate",
				   &self->max_rate), 0);
	/* The rate is read-only while the limit is 0 or 100. */
	if (self->max_percent && self->max_percent != 100)
		ASSERT_EQ(ptsim_sysctl_set("perf_event_max_sample_rate",
					   1000000), 0);
	ASSERT_EQ(ptsim_sysctl_set("perf_cpu_time_max_percent", 0), 0);
}

FIXTURE_TEARDOWN(unthrottled)
{
	if (!self->max_rate)
		return;
	ptsim_sysctl_set("perf_cpu_time_max_percent", self->max_percent);
	if (self->max_percent && self->max_percent != 100)
		ptsim_sysctl_set("perf_event_max_sample_rate", self->max_rate);
}

TEST_F(unthrottled, one_sample_per_period_across_preemptions)
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= PERF_TYPE_HARDWARE,
		.config		= PERF_COUNT_HW_INSTRUCTIONS,
		.sample_period	= PERIOD,
		.sample_type	= PERF_SAMPLE_IP,
		.disabled	= 1,
		.exclude_kernel	= 1,
		.exclude_hv	= 1,
	};
	uint64_t count, lost = 0;
	struct ptsim_map map;
	struct pipes p;
	struct rusage ru;
	pthread_t pre, wak;
	int fd, err, n, samples = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: no IPIs");
	ASSERT_EQ(ptsim_pin_cpu(0), 0);
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0 && (errno == ENOENT || errno == EOPNOTSUPP))
		SKIP(return, "no hardware instructions counter");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ptsim_map(fd, &map, 64, 0, false), 0);
	ASSERT_EQ(pipe(p.wake), 0);
	ASSERT_EQ(pipe(p.done), 0);
	err = thread_start(&pre, preempter, &p, 0, true);
	if (err == EPERM)
		SKIP(return, "no SCHED_FIFO for this user");
	ASSERT_EQ(err, 0);

	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	ASSERT_EQ(thread_start(&wak, waker, &p, 1, false), 0);
	/* Busy, and reading the samples as they come */
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		n = ptsim_read_samples(&map, PERF_SAMPLE_IP, NULL, &lost);
		ASSERT_GE(n, 0);
		samples += n;
	}
	ASSERT_EQ(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	pthread_join(wak, NULL);
	pthread_join(pre, NULL);
	ASSERT_EQ(getrusage(RUSAGE_THREAD, &ru), 0);

	ASSERT_EQ(read(fd, &count, sizeof(count)), sizeof(count));
	n = ptsim_read_samples(&map, PERF_SAMPLE_IP, NULL, &lost);
	ASSERT_GE(n, 0);
	samples += n;
	TH_LOG("%llu instructions, %ld preemptions: %d samples, %llu lost (want %llu, 0)",
	       (unsigned long long)count, ru.ru_nivcsw, samples,
	       (unsigned long long)lost, (unsigned long long)count / PERIOD);
	ASSERT_GE(ru.ru_nivcsw, PREEMPTIONS * 9 / 10);
	ASSERT_EQ(lost, 0);
	ASSERT_EQ(samples, count / PERIOD);
	ptsim_unmap(&map);
	close(fd);
}

TEST_HARNESS_MAIN
