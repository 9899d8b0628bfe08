// SPDX-License-Identifier: GPL-2.0
/*
 * AUX sampling through a hidden AUX event against upstream's group-leader
 * form, both taking ptsim trace into task-clock samples of a busy loop:
 *
 *  group:  { ptsim leader, overwrite AUX mmap of 8 pages or more, as many
 *            as the sample size needs; task-clock sampler }
 *  hidden: a task-clock sampler with attr.aux_sample_type = ptsim
 *  new:    the same with PERF_AUX_SAMPLE_POSITION | PERF_AUX_SAMPLE_NEW,
 *          each sample taking only the trace written since the one before
 *
 * at aux_sample_size 4, 16 and 60 KiB.  The loop also runs untraced, and
 * traced by a ptsim event alone, which is the trace both forms pay for,
 * and beside a hidden sampler that stays disabled, whose hidden event must
 * idle: its slowdown against the untraced loop is what an idle hidden
 * event costs.
 * For each form: the loop's slowdown against the untraced loop, and the
 * cost per sample, that is the time over the ptsim-alone loop divided by
 * the number of samples.  Then as ratios hidden/group and new/hidden.  All
 * figures are medians over interleaved rounds of ratios taken within a
 * round.
 *
 * Then the latency of opening and closing a hidden sampler while 1, 100
 * and 1000 other users hold hidden events: as many children, each of a
 * user of its own, holding a hidden ptsim sampler on itself.  Finding or
 * creating the sampler's hidden event must not cost more with more of
 * them.  The figures are the latencies with 100 and 1000 others relative
 * to that with 1, medians over rounds of ratios within a round.  This part
 * needs root (it sets perf_event_paranoid and ptsim's "unprivileged" knob,
 * and restores them).
 *
 * The forms can be compared with another trace PMU than ptsim: PMU names
 * it (intel_pt, say), whose config 0 must trace; the latencies are
 * ptsim's only.
 *
 * Usage: aux_sample_bench [rounds [forms|open [PMU]]]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "ptsim_lib.h"

#define WORK		(200 * 1000 * 1000UL)
#define CHUNK		(250 * 1000UL)	/* iterations between two drains */
#define PERIOD_NS	200000		/* task-clock sample period */
#define DATA_PAGES	2048
#define MAX_ROUNDS	64

static const unsigned int sizes[] = { 4 << 10, 16 << 10, 60 << 10 };
#define NR_SIZES	ARRAY_SIZE(sizes)

enum form { UNTRACED, PTSIM_ALONE, GROUP, HIDDEN, NEW, IDLE };
#define NR_SAMPLING	3	/* GROUP, HIDDEN, NEW */

static const char * const form_name[NR_SAMPLING] = { "group", "hidden", "new" };

struct setup {
	int			leader;
	int			sampler;
	struct ptsim_map	aux;
	struct ptsim_map	data;
};

struct result {
	double		time;
	uint64_t	samples;
	uint64_t	lost;
};

static int ptsim;		/* the trace PMU's type, ptsim's or PMU's */
static const char *pmu = "ptsim";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void busy(unsigned long n)
{
	unsigned long i;

	/* The empty asm keeps the compiler from dropping the loop. */
	for (i = 0; i < n; i++)
		asm volatile("" : : "r" (i));
}

/* AUX pages the kernel gives a hidden event for @size: a power of two. */
static size_t hidden_pages(unsigned int size)
{
	size_t page = sysconf(_SC_PAGESIZE), n = 1;

	while (n * page < size)
		n *= 2;
	return n;
}

static int open_leader(struct setup *s, size_t aux_pages)
{
	struct perf_event_attr attr;

	ptsim_attr(&attr, ptsim, 0, 0);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	s->leader = ptsim_open(&attr, 0, -1, -1);
	if (s->leader < 0)
		return -1;
	/* Overwrite mode: the samples take the trace, nobody drains it. */
	return ptsim_map(s->leader, &s->aux, 1, aux_pages, true) ? -1 : 0;
}

static int open_form(enum form f, unsigned int size, struct setup *s)
{
	struct perf_event_attr attr;
	size_t pages = hidden_pages(size);

	memset(s, 0, sizeof(*s));
	s->leader = -1;
	s->sampler = -1;
	switch (f) {
	case UNTRACED:
		return 0;
	case PTSIM_ALONE:
		return open_leader(s, 8);
	case GROUP:
		if (open_leader(s, pages < 8 ? 8 : pages))
			return -1;
		break;
	case HIDDEN:
	case NEW:
	case IDLE:
		break;
	}

	ptsim_sampler_attr(&attr, PERF_COUNT_SW_TASK_CLOCK, PERIOD_NS,
			   PERF_SAMPLE_IP, size);
	if (f == NEW)
		attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION |
					PERF_AUX_SAMPLE_NEW;
	if (f != GROUP) {
		attr.aux_sample_type = ptsim;
	} else {
		/* Enabled with its leader. */
		attr.disabled = 0;
	}
	s->sampler = ptsim_open(&attr, 0, -1, s->leader);
	if (s->sampler < 0)
		return -1;
	return ptsim_map(s->sampler, &s->data, DATA_PAGES, 0, false) ? -1 : 0;
}

static void close_form(struct setup *s)
{
	ptsim_unmap(&s->data);
	ptsim_unmap(&s->aux);
	if (s->sampler >= 0)
		close(s->sampler);
	if (s->leader >= 0)
		close(s->leader);
}

/* Count the samples taken so far and hand their room back. */
static void drain(struct setup *s, struct result *r)
{
	int nr;

	if (s->sampler < 0)
		return;
	nr = ptsim_read_samples(&s->data, PERF_SAMPLE_IP | PERF_SAMPLE_AUX,
				NULL, &r->lost);
	if (nr < 0) {
		fprintf(stderr, "aux_sample_bench: bad ring buffer: %s\n",
			strerror(-nr));
		exit(1);
	}
	r->samples += nr;
}

static void run(enum form f, unsigned int size, struct result *r)
{
	int fd, flags = 0;
	struct setup s;
	unsigned long done;
	double t0;

	if (open_form(f, size, &s)) {
		fprintf(stderr, "aux_sample_bench: form %d, %u bytes: %s\n",
			f, size, strerror(errno));
		exit(1);
	}
	fd = s.leader >= 0 ? s.leader : s.sampler;
	if (f == GROUP)
		flags = PERF_IOC_FLAG_GROUP;
	memset(r, 0, sizeof(*r));

	/* An idle sampler is never enabled, so its hidden event idles. */
	if (fd >= 0 && f != IDLE)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, flags);
	t0 = now();
	for (done = 0; done < WORK; done += CHUNK) {
		busy(CHUNK);
		drain(&s, r);
	}
	r->time = now() - t0;
	if (fd >= 0 && f != IDLE)
		ioctl(fd, PERF_EVENT_IOC_DISABLE, flags);
	drain(&s, r);
	close_form(&s);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return v[n / 2];
}

/* Seconds per sample of @x over the loop traced by the PMU @alone */
static double sample_cost(const struct result *x, const struct result *alone)
{
	return (x->time - alone->time) / (x->samples ?: 1);
}

/* The hidden forms' comparison with the group-leader form. */
static void bench_forms(int rounds)
{
	static struct result base[MAX_ROUNDS], alone[MAX_ROUNDS];
	static struct result idle[MAX_ROUNDS];
	static struct result res[NR_SIZES][NR_SAMPLING][MAX_ROUNDS];
	double slow[NR_SAMPLING][MAX_ROUNDS], cost[NR_SAMPLING][MAX_ROUNDS];
	double rslow[MAX_ROUNDS], rcost[MAX_ROUNDS], ncost[MAX_ROUNDS];
	double v[MAX_ROUNDS];
	uint64_t lost = 0;
	int r, i, k;

	/* Within a round, every form; the sampling forms take turns. */
	for (r = 0; r < rounds; r++) {
		run(UNTRACED, 0, &base[r]);
		run(PTSIM_ALONE, sizes[0], &alone[r]);
		run(IDLE, sizes[NR_SIZES - 1], &idle[r]);
		for (i = 0; i < (int)NR_SIZES; i++) {
			for (k = 0; k < NR_SAMPLING; k++) {
				int f = (k + r) % NR_SAMPLING;

				run(GROUP + f, sizes[i], &res[i][f][r]);
				lost += res[i][f][r].lost;
			}
		}
	}

	printf("aux_sample_bench: %lu iterations of a busy loop, task-clock samples every %d us,\n",
	       WORK, PERIOD_NS / 1000);
	printf("median of %d rounds of ratios within a round\n\n", rounds);
	for (r = 0; r < rounds; r++)
		v[r] = alone[r].time / base[r].time;
	printf("%-22s %10s %10s %12s\n", "", "slowdown", "samples",
	       "us/sample");
	printf("%-13s %-8s %10.3f\n", pmu, "alone", median(v, rounds));
	for (r = 0; r < rounds; r++)
		v[r] = idle[r].time / base[r].time;
	printf("%2u KiB %-15s %10.3f\n", sizes[NR_SIZES - 1] >> 10,
	       "idle sampler", median(v, rounds));

	for (i = 0; i < (int)NR_SIZES; i++) {
		for (k = 0; k < NR_SAMPLING; k++) {
			for (r = 0; r < rounds; r++) {
				struct result *x = &res[i][k][r];

				slow[k][r] = x->time / base[r].time;
				cost[k][r] = x->samples ?
					(x->time - alone[r].time) * 1e6 /
					x->samples : 0;
				v[r] = x->samples;
			}
			printf("%2u KiB %-15s %10.3f %10.0f %12.2f\n",
			       sizes[i] >> 10, form_name[k],
			       median(slow[k], rounds), median(v, rounds),
			       median(cost[k], rounds));
		}
	}

	printf("\n%-22s %10s %12s %12s\n", "hidden/group", "slowdown",
	       "us/sample", "new/hidden");
	for (i = 0; i < (int)NR_SIZES; i++) {
		for (r = 0; r < rounds; r++) {
			double gc = sample_cost(&res[i][0][r], &alone[r]);
			double hc = sample_cost(&res[i][1][r], &alone[r]);
			double nc = sample_cost(&res[i][2][r], &alone[r]);

			rslow[r] = res[i][1][r].time / res[i][0][r].time;
			rcost[r] = gc > 0 ? hc / gc : 0;
			ncost[r] = hc > 0 ? nc / hc : 0;
		}
		printf("%2u KiB %-15s %10.3f %12.3f %12.3f\n", sizes[i] >> 10,
		       "", median(rslow, rounds), median(rcost, rounds),
		       median(ncost, rounds));
	}
	if (lost)
		printf("\nwarning: %llu samples lost: the figures undercount\n",
		       (unsigned long long)lost);
}

/*
 * Other users' hidden events, in tiers: tier t holds others[t] children
 * in all, with those of the tiers before it.  A child of tier t waits for
 * the end of file on release[t], which the parent closes to let the tier
 * go, and reports on ready whether it opened its sampler (0, or an errno).
 */
#define OTHERS_UID	10000
#define OTHERS_SIZE	8	/* a 1-page buffer each */
#define OPENS		300	/* timed opens and closes at each point */

static const unsigned int others[] = { 1, 100, 1000 };
#define NR_TIERS	ARRAY_SIZE(others)
#define MAX_OTHERS	1000

struct others {
	pid_t		pid[MAX_OTHERS];
	unsigned int	nr;
	int		ready[2];
	int		release[NR_TIERS][2];
};

/* Open/close latencies in seconds. */
struct latency {
	double	open;
	double	close;
};

/* A hidden ptsim sampler on task-clock, of the benchmark's or an other's. */
static void open_attr(struct perf_event_attr *attr, uint32_t aux_size)
{
	ptsim_sampler_attr(attr, PERF_COUNT_SW_TASK_CLOCK, PERIOD_NS,
			   PERF_SAMPLE_IP, aux_size);
	attr->aux_sample_type = ptsim;
}

static void other_user(struct others *o, unsigned int tier)
{
	struct perf_event_attr attr;
	unsigned int t;
	char status = 0;

	/* The end of file comes only once the parent's end is closed. */
	close(o->ready[0]);
	for (t = 0; t <= tier; t++)
		close(o->release[t][1]);

	open_attr(&attr, OTHERS_SIZE);
	if (ptsim_become_user(OTHERS_UID + o->nr, PTSIM_KEEP_MEMLOCK) ||
	    ptsim_open(&attr, 0, -1, -1) < 0)
		status = errno;
	if (write(o->ready[1], &status, 1) != 1)
		_exit(1);
	while (read(o->release[tier][0], &status, 1) > 0)
		;
	_exit(0);
}

static void others_fail(const char *what, int err)
{
	fprintf(stderr, "aux_sample_bench: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Fork the children of @tier and wait until each holds its sampler. */
static void others_add(struct others *o, unsigned int tier)
{
	unsigned int first = o->nr;
	char status;
	pid_t pid;

	if (pipe(o->release[tier]))
		others_fail("pipe", errno);
	fflush(stdout);
	fflush(stderr);
	while (o->nr < others[tier]) {
		pid = fork();
		if (pid < 0)
			others_fail("fork", errno);
		if (!pid)
			other_user(o, tier);
		o->pid[o->nr++] = pid;
	}
	close(o->release[tier][0]);
	for (; first < o->nr; first++) {
		if (read(o->ready[0], &status, 1) != 1)
			others_fail("other user", EPIPE);
		if (status)
			others_fail("other user's sampler", status);
	}
}

/* Let the children of the last tier, @tier, go. */
static void others_drop(struct others *o, unsigned int tier)
{
	unsigned int first = tier ? others[tier - 1] : 0;

	close(o->release[tier][1]);
	while (o->nr > first)
		waitpid(o->pid[--o->nr], NULL, 0);
}

static int cmp_latency_open(const void *a, const void *b)
{
	return cmp(&((const struct latency *)a)->open,
		   &((const struct latency *)b)->open);
}

static int cmp_latency_close(const void *a, const void *b)
{
	return cmp(&((const struct latency *)a)->close,
		   &((const struct latency *)b)->close);
}

/* Median latencies of OPENS opens and closes of a hidden sampler. */
static void time_opens(struct latency *lat)
{
	static struct latency l[OPENS];
	struct perf_event_attr attr;
	double t0, t1;
	int i, fd;

	open_attr(&attr, OTHERS_SIZE);
	for (i = 0; i < OPENS; i++) {
		t0 = now();
		fd = ptsim_open(&attr, 0, -1, -1);
		t1 = now();
		if (fd < 0)
			others_fail("sampler", errno);
		close(fd);
		l[i].open = t1 - t0;
		l[i].close = now() - t1;
	}
	qsort(l, OPENS, sizeof(*l), cmp_latency_open);
	lat->open = l[OPENS / 2].open;
	qsort(l, OPENS, sizeof(*l), cmp_latency_close);
	lat->close = l[OPENS / 2].close;
}

/*
 * One round: with each tier added, time the opens; then, dropping the
 * tiers again, time them once more for the smaller counts, so that a
 * drift within the round weighs on every count alike.
 */
static void open_round(struct others *o, struct latency *lat)
{
	struct latency l;
	int t;

	for (t = 0; t < (int)NR_TIERS; t++) {
		others_add(o, t);
		time_opens(&lat[t]);
	}
	for (t = NR_TIERS - 1; t > 0; t--) {
		others_drop(o, t);
		time_opens(&l);
		lat[t - 1].open = (lat[t - 1].open + l.open) / 2;
		lat[t - 1].close = (lat[t - 1].close + l.close) / 2;
	}
	others_drop(o, 0);
}

static double lat_open(const struct latency *l)
{
	return l->open;
}

static double lat_close(const struct latency *l)
{
	return l->close;
}

static double lat_total(const struct latency *l)
{
	return l->open + l->close;
}

static double (*const lat_parts[])(const struct latency *) = {
	lat_open, lat_close, lat_total,
};

#define NR_PARTS	ARRAY_SIZE(lat_parts)

static void bench_open(int rounds)
{
	static struct latency lat[MAX_ROUNDS][NR_TIERS];
	static struct others o;
	long paranoid;
	bool unpriv;
	double v[MAX_ROUNDS];
	int r, t, p;

	if (geteuid() || ptsim_sysctl_get("perf_event_paranoid", &paranoid) ||
	    ptsim_knob_get("unprivileged", &unpriv)) {
		printf("\naux_sample_bench: open/close against other users skipped:\n");
		printf("it needs root and ptsim's debugfs\n");
		return;
	}
	/* Other users may open ptsim samplers on themselves. */
	if (ptsim_sysctl_set("perf_event_paranoid", 2) ||
	    ptsim_knob_set("unprivileged", true))
		others_fail("perf_event_paranoid or ptsim knob", errno);
	if (pipe(o.ready))
		others_fail("pipe", errno);
	for (r = 0; r < rounds; r++)
		open_round(&o, lat[r]);
	close(o.ready[0]);
	close(o.ready[1]);
	ptsim_knob_set("unprivileged", unpriv);
	ptsim_sysctl_set("perf_event_paranoid", paranoid);

	printf("\naux_sample_bench: opening and closing a hidden ptsim sampler while\n");
	printf("other users hold hidden events (others: processes of a uid of their own,\n");
	printf("each holding a hidden ptsim sampler on itself).  Medians of %d rounds;\n",
	       rounds);
	printf("a round takes the median of %d opens and closes at each count.\n\n",
	       OPENS);
	printf("%-8s %10s %10s %12s | %8s %8s %10s\n", "others", "open us",
	       "close us", "open+close", "open", "close", "open+close");
	printf("%-8s %10s %10s %12s | %28s\n", "", "", "", "us",
	       "relative to 1 other");
	for (t = 0; t < (int)NR_TIERS; t++) {
		printf("%-8u", others[t]);
		for (p = 0; p < (int)NR_PARTS; p++) {
			for (r = 0; r < rounds; r++)
				v[r] = lat_parts[p](&lat[r][t]) * 1e6;
			printf(" %*.1f", p < 2 ? 10 : 12, median(v, rounds));
		}
		printf(" |");
		for (p = 0; p < (int)NR_PARTS; p++) {
			for (r = 0; r < rounds; r++)
				v[r] = lat_parts[p](&lat[r][t]) /
				       lat_parts[p](&lat[r][0]);
			printf(" %*.3f", p < 2 ? 8 : 10, median(v, rounds));
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	const char *part = argc > 2 ? argv[2] : NULL;

	if (argc > 3)
		pmu = argv[3];
	if (rounds < 1 || rounds > MAX_ROUNDS ||
	    (part && strcmp(part, "forms") && strcmp(part, "open")) ||
	    (strcmp(pmu, "ptsim") && (!part || strcmp(part, "forms")))) {
		fprintf(stderr, "usage: aux_sample_bench [rounds: 1..%d %s\n",
			MAX_ROUNDS, "[forms|open [PMU: forms only]]]");
		return 1;
	}
	ptsim = ptsim_pmu_type(pmu);
	if (ptsim < 0) {
		fprintf(stderr, "aux_sample_bench: no %s PMU\n", pmu);
		return KSFT_SKIP;
	}
	if (!strcmp(pmu, "ptsim") && !ptsim_can_sample()) {
		fprintf(stderr, "aux_sample_bench: ptsim is a module: no AUX sampling\n");
		return KSFT_SKIP;
	}
	if (ptsim_pin_cpu(0))
		perror("sched_setaffinity");

	if (!part || !strcmp(part, "forms"))
		bench_forms(rounds);
	if (!part || !strcmp(part, "open"))
		bench_open(rounds);
	return 0;
}
