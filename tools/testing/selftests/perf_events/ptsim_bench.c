// SPDX-License-Identifier: GPL-2.0
/*
 * ptsim's own cost, so that benchmarks of the AUX sampling path can tell it
 * apart: how much a busy loop slows down while ptsim traces it, next to a
 * bare hrtimer event (cpu-clock) of the same period, and how many bytes of
 * trace ptsim writes per second.  Results are ratios to the untraced loop
 * within one run; each figure is the median of ROUNDS interleaved rounds.
 *
 * Usage: ptsim_bench [rounds]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "ptsim_lib.h"

#define WORK	(50 * 1000 * 1000UL)

enum mode { NONE, CPU_CLOCK, PTSIM_100US, PTSIM_10US, NR_MODES };

static const char * const mode_name[NR_MODES] = {
	"no event", "cpu-clock, 100 us period", "ptsim, 100 us (default)",
	"ptsim, 10 us",
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void busy(void)
{
	unsigned long i;

	/* The empty asm keeps the compiler from dropping the loop. */
	for (i = 0; i < WORK; i++)
		asm volatile("" : : "r" (i));
}

static int open_mode(enum mode m, struct ptsim_map *map)
{
	struct perf_event_attr attr;
	int fd;

	memset(map, 0, sizeof(*map));
	switch (m) {
	case CPU_CLOCK:
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.sample_period = 100000;
		attr.disabled = 1;
		return ptsim_open(&attr, 0, -1, -1);
	case PTSIM_100US:
	case PTSIM_10US:
		ptsim_attr(&attr, ptsim_type(), 0,
			   m == PTSIM_10US ? PTSIM_INTERVAL(10) : 0);
		fd = ptsim_open(&attr, 0, -1, -1);
		/* Overwrite mode: nobody has to drain it. */
		if (fd >= 0 && ptsim_map(fd, map, 1, 64, true)) {
			close(fd);
			return -1;
		}
		return fd;
	default:
		return -1;
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	double t[NR_MODES][64], bytes[NR_MODES][64];
	cpu_set_t cpus;
	int r, m;

	if (rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: ptsim_bench [rounds: 1..64]\n");
		return 1;
	}
	if (ptsim_type() < 0) {
		fprintf(stderr, "ptsim_bench: no ptsim PMU (CONFIG_PTSIM)\n");
		return 4;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);

	for (r = 0; r < rounds; r++) {
		for (m = 0; m < NR_MODES; m++) {
			struct ptsim_map map;
			int fd = -1;
			double t0;

			if (m != NONE) {
				fd = open_mode(m, &map);
				if (fd < 0) {
					fprintf(stderr, "%s: %s\n", mode_name[m],
						strerror(errno));
					return 1;
				}
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			}
			t0 = now();
			busy();
			t[m][r] = now() - t0;
			bytes[m][r] = 0;
			if (fd >= 0) {
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
				if (map.pg)
					bytes[m][r] = map.pg->aux_head;
				ptsim_unmap(&map);
				close(fd);
			}
		}
	}

	printf("ptsim_bench: %lu iterations of a busy loop, median of %d rounds\n",
	       WORK, rounds);
	printf("%-28s %10s %14s\n", "", "time ratio", "trace KiB/s");
	for (m = 0; m < NR_MODES; m++) {
		double ratio[64], rate[64];

		for (r = 0; r < rounds; r++) {
			ratio[r] = t[m][r] / t[NONE][r];
			rate[r] = bytes[m][r] / t[m][r] / 1024;
		}
		qsort(ratio, rounds, sizeof(double), cmp);
		qsort(rate, rounds, sizeof(double), cmp);
		printf("%-28s %10.3f %14.1f\n", mode_name[m],
		       ratio[rounds / 2], rate[rounds / 2]);
	}
	return 0;
}
