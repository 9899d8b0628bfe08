// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer of what the hidden AUX sampler and core trace add to the
 * kernel: perf_event_attr's aux_sample_* fields and PR_SET_CORE_TRACE /
 * PR_GET_CORE_TRACE, with values valid, invalid and in between,
 * interleaved with what a process does to its events: mmap and munmap of
 * their rings, ioctls, reads, dup and close, fork, threads, exec (of a
 * setuid copy too), exits and crashes with core dumps, fds passed between
 * two users over SCM_RIGHTS, memlock limits, CPU affinity and, as root,
 * ptsim's fault knobs, perf_event_mlock_kb and CPU hotplug.
 *
 * Each run is two actors joined by a socket: two root processes, or two
 * unprivileged users at once.  An actor's choices come from a seed, so a
 * run replays (the scheduling of its processes aside).  A run passes when
 * every actor ends, no process died of a signal it did not raise, and
 * after it every user can map exactly the whole perf_event_mlock_kb
 * allowance again: nothing the run did is still charged.  Oopses, WARNs,
 * KASAN, lockdep and kmemleak reports are the harness's to catch, on the
 * console.
 *
 *	aux_fuzz				the kselftests: short runs
 *	aux_fuzz --seed S --ops N [--users]	a long run, its figures
 *
 * The kselftest_harness.h of this kernel runs a test even when its fixture
 * setup skipped it, so each test starts by checking _metadata->skip.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define NR_FDS		24
#define NR_MAPS		16
#define NR_KIDS		4
#define NR_THREADS	2
#define MAX_DEPTH	3	/* forks and execs below an actor */
#define USER_A		PTSIM_NOBODY
#define USER_B		(PTSIM_NOBODY - 1)

/* What all actors of a run did, in memory shared across their forks. */
struct fuzz_stats {
	unsigned long	ops, opened, mapped, forks, execs, threads, crashes;
	unsigned long	passed, prctls, killed;	/* prctls that succeeded */
};

struct fuzz_map {
	void		*addr;
	size_t		len;
	bool		writable;
};

struct actor {
	uint64_t	rng;
	bool		root;		/* may touch knobs, sysctls, CPUs */
	bool		thread;		/* may not fork, exec or make threads */
	int		depth;
	int		sock;		/* to the other actor's processes */
	int		fd[NR_FDS];	/* -1: free */
	struct fuzz_map	map[NR_MAPS];	/* addr NULL: free */
	pid_t		kid[NR_KIDS];	/* 0: free */
	pthread_t	tid[NR_THREADS];
	bool		tid_used[NR_THREADS];
};

static struct fuzz_stats *stats;
static int types[4];		/* ptsim, intel_pt if any, software, hardware */
static int nr_types;
static const char *self_exe;
/* The run's directory: its cores, its setuid-root copy of this program. */
static char work_dir[32];
static char setuid_copy[sizeof(work_dir) + 8];

static void count(unsigned long *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

/* xorshift64*: every choice of an actor comes from its state. */
static uint64_t rnd(struct actor *a)
{
	a->rng ^= a->rng >> 12;
	a->rng ^= a->rng << 25;
	a->rng ^= a->rng >> 27;
	return a->rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(struct actor *a, uint64_t n)
{
	return n ? rnd(a) % n : 0;
}

static bool chance(struct actor *a, unsigned int percent)
{
	return below(a, 100) < percent;
}

static void actor_init(struct actor *a, uint64_t seed, bool root, int sock)
{
	memset(a, 0, sizeof(*a));
	a->rng = seed * 0x9e3779b97f4a7c15ULL | 1;
	a->root = root;
	a->sock = sock;
	for (int i = 0; i < NR_FDS; i++)
		a->fd[i] = -1;
}

/*
 * A child of @parent: its own choices, its fds, none of its kids and none
 * of its rings (perf's mappings are not copied at fork).
 */
static void actor_fork(struct actor *a, struct actor *parent)
{
	*a = *parent;
	a->rng = rnd(parent) ^ 0xa5a5a5a5a5a5a5a5ULL;
	a->depth++;
	memset(a->map, 0, sizeof(a->map));
	memset(a->kid, 0, sizeof(a->kid));
	memset(a->tid_used, 0, sizeof(a->tid_used));
}

static int any_fd(struct actor *a)
{
	return a->fd[below(a, NR_FDS)];
}

/* Keep @fd in a free slot, closing a random one if there is none. */
static void keep_fd(struct actor *a, int fd)
{
	int i = below(a, NR_FDS);

	for (int j = 0; j < NR_FDS; j++)
		if (a->fd[j] < 0)
			i = j;
	if (a->fd[i] >= 0)
		close(a->fd[i]);
	a->fd[i] = fd;
}

static void keep_map(struct actor *a, void *addr, size_t len, bool w)
{
	struct fuzz_map *m = &a->map[below(a, NR_MAPS)];

	for (int j = 0; j < NR_MAPS; j++)
		if (!a->map[j].addr)
			m = &a->map[j];
	if (m->addr)
		munmap(m->addr, m->len);
	*m = (struct fuzz_map){ addr, len, w };
}

static uint32_t any_type(struct actor *a)
{
	if (chance(a, 5))
		return rnd(a);
	if (chance(a, 10))
		return PERF_TYPE_TRACEPOINT;
	return types[below(a, nr_types)];
}

static uint64_t any_config(struct actor *a, uint32_t type)
{
	static const uint64_t sw[] = {
		PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK,
		PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_DUMMY,
	};
	static const uint64_t hw[] = {
		PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
		PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	};

	if (chance(a, 5))
		return rnd(a);
	if (type == PERF_TYPE_SOFTWARE)
		return sw[below(a, ARRAY_SIZE(sw))];
	if (type == PERF_TYPE_HARDWARE)
		return hw[below(a, ARRAY_SIZE(hw))];
	if (type == PERF_TYPE_TRACEPOINT)
		return below(a, 2000);
	/* ptsim, intel_pt: a few bits of RTIT_CTL's; BranchEn mostly */
	return (chance(a, 70) ? 1ULL << 13 : 0) | (rnd(a) & 0x33000601ULL);
}

static uint32_t any_size(struct actor *a)
{
	static const uint32_t v[] = {
		0, 1, 7, 8, 64, 4095, 4096, 16384, 65536, 1 << 20, 1U << 31,
		UINT32_MAX,
	};

	return chance(a, 10) ? rnd(a) : v[below(a, ARRAY_SIZE(v))];
}

/* attr.size and what follows the struct: zero, or not (E2BIG). */
static void fuzz_size(struct actor *a, struct perf_event_attr *attr,
		      uint8_t *tail, size_t tail_len)
{
	static const uint32_t v[] = {
		0, PERF_ATTR_SIZE_VER5, PERF_ATTR_SIZE_VER6,
		PERF_ATTR_SIZE_VER7, PERF_ATTR_SIZE_VER8, PERF_ATTR_SIZE_VER9,
		PERF_ATTR_SIZE_VER9, PERF_ATTR_SIZE_VER9 + 8, 4096,
	};

	attr->size = chance(a, 3) ? below(a, 4200) : v[below(a, ARRAY_SIZE(v))];
	if (chance(a, 5))
		tail[below(a, tail_len)] = rnd(a);
}

static void fuzz_sampling(struct actor *a, struct perf_event_attr *attr)
{
	static const uint64_t periods[] = { 1, 100, 10000, 100000, 1000000 };

	attr->freq = chance(a, 20);
	attr->sample_period = periods[below(a, ARRAY_SIZE(periods))];
	if (attr->freq || chance(a, 10))
		attr->sample_period = below(a, attr->freq ? 200000 : -1ULL);
	attr->sample_type = rnd(a) & (chance(a, 50) ? 0x3ffffULL : 0x10f);
	if (chance(a, 75))
		attr->sample_type |= PERF_SAMPLE_AUX;
	attr->sample_stack_user = chance(a, 80) ? below(a, 8192) : rnd(a);
	attr->sample_regs_user = chance(a, 80) ? 0xff : rnd(a);
	attr->read_format = below(a, 32);
	attr->wakeup_events = below(a, 4);
	attr->watermark = chance(a, 20);
	attr->aux_watermark = chance(a, 80) ? 0 : rnd(a);
	attr->precise_ip = chance(a, 10) ? below(a, 4) : 0;
	attr->use_clockid = chance(a, 10);
	attr->clockid = chance(a, 80) ? below(a, 12) : (int32_t)rnd(a);
}

/* The hidden sampler's fields, and the flags around them. */
static void fuzz_aux(struct actor *a, struct perf_event_attr *attr)
{
	static const uint32_t flags[2] = { 0, PERF_AUX_SAMPLE_POSITION };

	attr->aux_sample_size = any_size(a);
	if (chance(a, 80)) {
		attr->aux_sample_type = any_type(a);
		attr->aux_sample_config = any_config(a, attr->aux_sample_type);
	}
	attr->aux_sample_flags = chance(a, 90) ? flags[below(a, 2)] : rnd(a);
	attr->__reserved_4 = chance(a, 3) ? rnd(a) : 0;
	attr->disabled = chance(a, 40);
	attr->inherit = chance(a, 40);
	attr->inherit_thread = attr->inherit && chance(a, 20);
	attr->enable_on_exec = chance(a, 15);
	attr->remove_on_exec = chance(a, 10);
	attr->exclude_kernel = chance(a, 85);
	attr->exclude_hv = 1;
	attr->mmap = chance(a, 20);
	attr->comm = chance(a, 20);
	attr->task = chance(a, 20);
	attr->context_switch = chance(a, 10);
}

static pid_t any_pid(struct actor *a)
{
	switch (below(a, 10)) {
	case 0:
		return -1;
	case 1:
		return getppid();
	case 2:
	case 3:
		return a->kid[below(a, NR_KIDS)];
	default:
		return 0;
	}
}

/* Any value in every field: most fail perf_event_open()'s checks. */
static void random_attr(struct actor *a, struct perf_event_attr *attr,
			uint8_t *tail, size_t tail_len)
{
	attr->type = any_type(a);
	attr->config = any_config(a, attr->type);
	fuzz_sampling(a, attr);
	fuzz_aux(a, attr);
	fuzz_size(a, attr, tail, tail_len);
}

/* A hidden sampler of ptsim or intel_pt that opens as it is. */
static void sampler_attr(struct actor *a, struct perf_event_attr *attr)
{
	static const uint64_t sw[] = {
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CPU_CLOCK,
	};
	static const uint64_t ns[] = { 20000, 100000, 1000000 };
	static const uint32_t size[] = { 64, 256, 4096, 16384, 65536 };

	ptsim_sampler_attr(attr, sw[below(a, ARRAY_SIZE(sw))],
			   ns[below(a, ARRAY_SIZE(ns))],
			   PERF_SAMPLE_IP | PERF_SAMPLE_TID | (rnd(a) & 0x180),
			   size[below(a, ARRAY_SIZE(size))]);
	if (chance(a, 20)) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_INSTRUCTIONS;
		attr->sample_period = 10000 << below(a, 6);
	}
	attr->aux_sample_type = types[below(a, nr_types - 2)];
	attr->aux_sample_config = chance(a, 70) ? PTSIM_PT_BRANCH : 0;
	attr->aux_sample_flags = chance(a, 50) ? PERF_AUX_SAMPLE_POSITION : 0;
	attr->disabled = chance(a, 30);
	attr->inherit = chance(a, 40);
}

/* One field of a sampler that opens, changed. */
static void mutate(struct actor *a, struct perf_event_attr *attr)
{
	switch (below(a, 8)) {
	case 0:
		attr->size = chance(a, 50) ? PERF_ATTR_SIZE_VER8 :
					     below(a, 256);
		break;
	case 1:
		attr->sample_type ^= 1ULL << below(a, 20);
		break;
	case 2:
		attr->aux_sample_size = any_size(a);
		break;
	case 3:
		attr->aux_sample_type = any_type(a);
		break;
	case 4:
		attr->aux_sample_config = rnd(a);
		break;
	case 5:
		attr->aux_sample_flags = rnd(a);
		break;
	case 6:
		attr->__reserved_4 = rnd(a);
		break;
	default:
		attr->remove_on_exec = chance(a, 50);
		attr->enable_on_exec = chance(a, 50);
		attr->use_clockid = 1;
		attr->clockid = below(a, 12);
	}
}

/*
 * Half the attrs are samplers that open, up to two fields changed,
 * mostly on the task itself; the rest random.
 */
static void op_open(struct actor *a)
{
	union {
		struct perf_event_attr	attr;
		uint8_t			raw[4096 + 64];
	} u = {};
	unsigned long flags = chance(a, 50) ? PERF_FLAG_FD_CLOEXEC : 0;
	bool sampler = chance(a, 50);
	int cpu = sampler || chance(a, 75) ? -1 : (int)below(a, 3);
	pid_t pid = sampler && chance(a, 80) ? 0 : any_pid(a);
	int group = chance(a, sampler ? 5 : 25) ? any_fd(a) : -1;
	int fd;

	if (sampler) {
		sampler_attr(a, &u.attr);
		for (int i = below(a, 3); i > 0; i--)
			mutate(a, &u.attr);
	} else {
		random_attr(a, &u.attr, u.raw + sizeof(u.attr),
			    sizeof(u.raw) - sizeof(u.attr));
	}
	if (pid < 0 && cpu < 0)
		cpu = below(a, 2);
	if (chance(a, 5))
		flags |= chance(a, 50) ? PERF_FLAG_FD_NO_GROUP :
					 PERF_FLAG_FD_OUTPUT;
	fd = syscall(__NR_perf_event_open, &u.attr, pid, cpu, group, flags);
	if (fd >= 0) {
		count(&stats->opened);
		keep_fd(a, fd);
	}
}

/* A ring of 1 + 2^n pages (or any number), and an AUX area after it. */
static void op_mmap(struct actor *a)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t pages = chance(a, 85) ? 1 + (1 << below(a, 7)) : below(a, 40);
	bool w = chance(a, 70);
	int prot = PROT_READ | (w ? PROT_WRITE : 0);
	struct perf_event_mmap_page *pg;
	int fd = any_fd(a);
	size_t aux;
	void *p;

	p = mmap(NULL, pages * ps, prot, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return;
	count(&stats->mapped);
	keep_map(a, p, pages * ps, w);
	if (!w || !pages || chance(a, 40))
		return;
	pg = p;
	aux = chance(a, 85) ? (1 << below(a, 6)) * ps : below(a, 1 << 20);
	pg->aux_offset = chance(a, 90) ? pages * ps : rnd(a) & ~(ps - 1);
	pg->aux_size = aux;
	p = mmap(NULL, aux, chance(a, 50) ? prot : PROT_READ, MAP_SHARED, fd,
		 pg->aux_offset);
	if (p != MAP_FAILED)
		keep_map(a, p, aux, false);
}

static void op_munmap(struct actor *a)
{
	struct fuzz_map *m = &a->map[below(a, NR_MAPS)];
	long ps = sysconf(_SC_PAGESIZE);

	if (!m->addr)
		return;
	/* perf refuses to split its mappings (EINVAL): the ring stays */
	if (m->len > (size_t)ps && chance(a, 20) &&
	    munmap((char *)m->addr + m->len - ps, ps))
		return;
	munmap(m->addr, m->len);
	m->addr = NULL;
}

/* Bogus tails in a ring's user page; or read what the kernel wrote. */
static void op_poke(struct actor *a)
{
	struct fuzz_map *m = &a->map[below(a, NR_MAPS)];
	struct perf_event_mmap_page *pg = m->addr;
	uint8_t *b = m->addr;

	if (!m->addr)
		return;
	if (!m->writable || chance(a, 50)) {
		__atomic_load_n(b + below(a, m->len), __ATOMIC_RELAXED);
		return;
	}
	if (chance(a, 50))
		pg->data_tail = chance(a, 50) ? pg->data_head : rnd(a);
	else
		pg->aux_tail = chance(a, 50) ? pg->aux_head : rnd(a);
}

static void op_ioctl(struct actor *a)
{
	static const unsigned long cmds[] = {
		PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE,
		PERF_EVENT_IOC_RESET, PERF_EVENT_IOC_REFRESH,
		PERF_EVENT_IOC_PERIOD, PERF_EVENT_IOC_SET_OUTPUT,
		PERF_EVENT_IOC_ID, PERF_EVENT_IOC_PAUSE_OUTPUT,
		PERF_EVENT_IOC_SET_FILTER,
	};
	unsigned long cmd = cmds[below(a, ARRAY_SIZE(cmds))];
	uint64_t val = chance(a, 70) ? below(a, 100000) : rnd(a);
	char filter[32] = "filter 0x1000/0x1000";
	int fd = any_fd(a);

	switch (cmd) {
	case PERF_EVENT_IOC_PERIOD:
	case PERF_EVENT_IOC_ID:
		ioctl(fd, cmd, chance(a, 95) ? &val : (void *)1);
		break;
	case PERF_EVENT_IOC_SET_OUTPUT:
		ioctl(fd, cmd, chance(a, 80) ? any_fd(a) : -1);
		break;
	case PERF_EVENT_IOC_SET_FILTER:
		ioctl(fd, cmd, filter);
		break;
	default:
		ioctl(fd, cmd, chance(a, 80) ? below(a, 3) :
			       PERF_IOC_FLAG_GROUP);
	}
}

static void op_read(struct actor *a)
{
	char buf[512];

	if (read(any_fd(a), buf, below(a, sizeof(buf) + 1)) < 0)
		return;
}

static void op_close(struct actor *a)
{
	int i = below(a, NR_FDS);

	if (a->fd[i] >= 0)
		close(a->fd[i]);
	a->fd[i] = -1;
}

static void op_dup(struct actor *a)
{
	int fd = dup(any_fd(a));

	if (fd >= 0)
		keep_fd(a, fd);
}

static void op_prctl(struct actor *a)
{
	struct prctl_core_trace ct = {
		.type = any_type(a),
		.size = chance(a, 60) ? 8 << below(a, 14) : any_size(a),
		.flags = chance(a, 80) ? below(a, 2) : rnd(a),
	};
	void *arg = chance(a, 95) ? &ct : chance(a, 50) ? NULL : (void *)8;
	unsigned long size = chance(a, 90) ? sizeof(ct) : below(a, 64);
	unsigned long more = chance(a, 95) ? 0 : rnd(a);
	int option = chance(a, 70) ? PR_SET_CORE_TRACE : PR_GET_CORE_TRACE;

	ct.config = any_config(a, ct.type);
	if (!prctl(option, arg, size, more, 0))
		count(&stats->prctls);
}

/* Run for a while, so that samplers fire and trace is written. */
static void op_spin(struct actor *a)
{
	if (chance(a, 50))
		ptsim_spin(below(a, 3));
	else
		for (int i = below(a, 200); i > 0; i--)
			syscall(__NR_getppid);
}

static void op_affinity(struct actor *a)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(below(a, 2), &set);
	if (chance(a, 30))
		CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void op_rlimit(struct actor *a)
{
	static const rlim_t v[] = { 0, 64 << 10, 1 << 20, RLIM_INFINITY };
	struct rlimit lim = { v[below(a, ARRAY_SIZE(v))], RLIM_INFINITY };
	struct rlimit now;

	if (getrlimit(RLIMIT_MEMLOCK, &now))
		return;
	lim.rlim_max = now.rlim_max;
	if (lim.rlim_cur > lim.rlim_max)
		lim.rlim_cur = lim.rlim_max;
	setrlimit(chance(a, 70) ? RLIMIT_MEMLOCK : RLIMIT_CORE, &lim);
}

/* Send an fd to the other actor's processes, or take one they sent. */
static void op_pass(struct actor *a)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} c = {};
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.buf, .msg_controllen = sizeof(c.buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int fd = any_fd(a);

	if (chance(a, 50) && fd >= 0) {
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		if (sendmsg(a->sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
			count(&stats->passed);
		return;
	}
	if (recvmsg(a->sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0)
		return;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_type == SCM_RIGHTS) {
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		keep_fd(a, fd);
	}
}

/* ptsim's debugfs knobs: its faults, and whether users may open it. */
static const char * const knobs[] = {
	"fail_setup_aux", "snapshot_no_trace", "no_positions", "unprivileged",
};

static void cpu1_online(bool on)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu1/online", "w");

	if (f) {
		fputs(on ? "1" : "0", f);
		fclose(f);
	}
}

/* Root: ptsim's fault knobs, the mlock allowance, CPU 1 on and off line. */
static void op_admin(struct actor *a)
{
	static const long kb[] = { 0, 8, 132, 516, 100000 };

	if (!a->root)
		return;
	if (chance(a, 80))
		ptsim_knob_set(knobs[below(a, ARRAY_SIZE(knobs))],
			       chance(a, 30));
	else if (chance(a, 80))
		ptsim_sysctl_set("perf_event_mlock_kb",
				 kb[below(a, ARRAY_SIZE(kb))]);
	else
		cpu1_online(chance(a, 50));
}

static void run(struct actor *a, unsigned long ops);

/* The fds and rings of an actor that ends before its process. */
static void actor_drop(struct actor *a)
{
	for (int i = 0; i < NR_FDS; i++)
		if (a->fd[i] >= 0)
			close(a->fd[i]);
	for (int i = 0; i < NR_MAPS; i++)
		if (a->map[i].addr)
			munmap(a->map[i].addr, a->map[i].len);
}

static void *thread_main(void *arg)
{
	struct actor *a = arg;

	run(a, below(a, 20) + 1);
	actor_drop(a);
	free(a);
	return NULL;
}

/* A thread of its own choices, fds and rings. */
static void op_thread(struct actor *a)
{
	int i = below(a, NR_THREADS);
	struct actor *t;

	if (a->thread)
		return;
	if (a->tid_used[i])
		pthread_join(a->tid[i], NULL);
	a->tid_used[i] = false;
	t = malloc(sizeof(*t));
	if (!t)
		return;
	actor_init(t, rnd(a), a->root, a->sock);
	t->thread = true;
	t->depth = a->depth;
	if (pthread_create(&a->tid[i], NULL, thread_main, t)) {
		free(t);
		return;
	}
	a->tid_used[i] = true;
	count(&stats->threads);
}

/* Exec this program (or its setuid copy) to go on as --child. */
static void child_exec(struct actor *a)
{
	char seed[32], ops[32];
	const char *path = chance(a, 30) ? setuid_copy : self_exe;

	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)rnd(a));
	snprintf(ops, sizeof(ops), "%llu", (unsigned long long)below(a, 30));
	count(&stats->execs);
	execl(path, path, "--child", seed, ops, (char *)NULL);
	_exit(0);
}

/*
 * Reap kid @i, or see that it still runs (@flags WNOHANG).  A kid that
 * died of a signal it did not raise itself (abort(), a trap) is counted.
 */
static void reap(struct actor *a, int i, int flags)
{
	int status;
	pid_t pid = a->kid[i] > 0 ? waitpid(a->kid[i], &status, flags) : -1;

	if (pid > 0 && WIFSIGNALED(status) && WTERMSIG(status) != SIGABRT &&
	    WTERMSIG(status) != SIGILL)
		count(&stats->killed);
	if (pid)
		a->kid[i] = 0;
}

/* A child that runs for a while and exits, crashes or execs. */
static void op_fork(struct actor *a)
{
	int i = below(a, NR_KIDS);
	struct actor kid;
	pid_t pid;

	if (a->thread || a->depth >= MAX_DEPTH)
		return;
	reap(a, i, 0);
	actor_fork(&kid, a);
	pid = fork();
	if (pid)
		a->kid[i] = pid > 0 ? pid : 0;
	if (pid > 0)
		count(&stats->forks);
	if (pid)
		return;
	if (kid.root && chance(&kid, 10))
		kid.root = ptsim_become_user(USER_A, PTSIM_KEEP_MEMLOCK) != 0;
	run(&kid, below(&kid, 40) + 1);
	if (chance(&kid, 15))
		child_exec(&kid);
	if (chance(&kid, 15)) {
		count(&stats->crashes);
		if (chance(&kid, 50))
			abort();
		__builtin_trap();
	}
	_exit(0);
}

static void op_reap(struct actor *a)
{
	reap(a, below(a, NR_KIDS), chance(a, 50) ? WNOHANG : 0);
}

static void (* const ops[])(struct actor *a) = {
	op_open, op_open, op_open, op_open, op_mmap, op_mmap, op_mmap,
	op_munmap, op_poke, op_poke, op_ioctl, op_ioctl, op_ioctl, op_read,
	op_close, op_close, op_dup, op_prctl, op_prctl, op_spin, op_spin,
	op_affinity, op_rlimit, op_pass, op_pass, op_admin, op_thread,
	op_fork, op_fork, op_reap,
};

/* @n operations, then the actor's threads and children are waited for. */
static void run(struct actor *a, unsigned long n)
{
	while (n--) {
		uint64_t next = rnd(a) | 1;

		/* what an op drew cannot shift the choices after it */
		ops[below(a, ARRAY_SIZE(ops))](a);
		a->rng = next;
		count(&stats->ops);
	}
	for (int i = 0; i < NR_THREADS; i++)
		if (a->tid_used[i])
			pthread_join(a->tid[i], NULL);
	for (int i = 0; i < NR_KIDS; i++)
		reap(a, i, 0);
	memset(a->tid_used, 0, sizeof(a->tid_used));
}

/* After an exec: the perf fds it kept are the new image's to use. */
static void adopt_fds(struct actor *a)
{
	char link[64];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	ssize_t len;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		len = readlinkat(dirfd(dir), d->d_name, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = 0;
		if (!strcmp(link, "anon_inode:[perf_event]"))
			keep_fd(a, atoi(d->d_name));
	}
	closedir(dir);
}

static void pmus_init(void)
{
	int pt = ptsim_pmu_type("intel_pt");

	nr_types = 0;
	types[nr_types++] = ptsim_type();
	if (pt >= 0)
		types[nr_types++] = pt;
	types[nr_types++] = PERF_TYPE_SOFTWARE;
	types[nr_types++] = PERF_TYPE_HARDWARE;
}

static struct fuzz_stats *stats_map(void)
{
	void *p = mmap(NULL, sizeof(struct fuzz_stats), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * --child SEED OPS: an exec'd actor, with no socket and figures of its own.
 * Run as the setuid copy, it goes on as the user who ran it: the exec is
 * what is tested, and the copy does no more for anyone than they could.
 */
static int child_main(char **argv)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct actor a;

	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		return 1;
	stats = stats_map();
	if (!stats)
		return 1;
	pmus_init();
	self_exe = "/proc/self/exe";
	actor_init(&a, strtoull(argv[2], NULL, 0), !uid, -1);
	a.depth = MAX_DEPTH;
	adopt_fds(&a);
	run(&a, strtoul(argv[3], NULL, 0));
	return 0;
}

/*
 * Whether user @uid, without capabilities or RLIMIT_MEMLOCK, can map the
 * whole perf_event_mlock_kb allowance and not a page more: true only if
 * nothing of it is charged any more.  The allowance is made one ring of
 * 1 + 32 pages per online CPU.  Runs in a child; root's user drops its
 * capabilities instead of its uid.
 */
static int allowance_child(uid_t uid, int cpus)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct caps[2] = {};
	long ps = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1,
	};
	int fd, i;

	if (ptsim_become_user(uid, 0) ||
	    (!uid && syscall(__NR_capset, &hdr, caps)))
		return 10;
	for (i = 0; i <= cpus; i++) {
		fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd < 0)
			return 11;
		if (mmap(NULL, (i < cpus ? 33 : 2) * ps, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0) == MAP_FAILED)
			return i < cpus ? 12 : errno == EPERM ? 0 : 13;
	}
	return 14;	/* a page more than the allowance mapped */
}

static int allowance_free(uid_t uid)
{
	int cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long old;
	int status = -1;
	pid_t pid;

	if (ptsim_sysctl_get("perf_event_mlock_kb", &old) ||
	    ptsim_sysctl_set("perf_event_mlock_kb",
			     33 * sysconf(_SC_PAGESIZE) / 1024))
		return -1;
	pid = fork();
	if (!pid)
		_exit(allowance_child(uid, cpus));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		status = -1;
	ptsim_sysctl_set("perf_event_mlock_kb", old);
	return status < 0 ? -1 : WEXITSTATUS(status);
}

/* The sysctls, knobs and CPUs a run may change, to put back. */
struct fuzz_env {
	long	paranoid, mlock_kb;
	char	pattern[256];
	bool	knob[ARRAY_SIZE(knobs)];
};

static const uid_t fuzz_uids[] = { 0, USER_A, USER_B };

static int env_save(struct fuzz_env *e)
{
	if (ptsim_sysctl_get("perf_event_paranoid", &e->paranoid) ||
	    ptsim_sysctl_get("perf_event_mlock_kb", &e->mlock_kb) ||
	    ptsim_sysctl_str_get("core_pattern", e->pattern,
				 sizeof(e->pattern)))
		return -1;
	for (int i = 0; i < ARRAY_SIZE(knobs); i++)
		if (ptsim_knob_get(knobs[i], &e->knob[i]))
			return -1;
	return 0;
}

/* A setuid-root copy of this program, made where nobody else can write. */
static int copy_setuid(void)
{
	char buf[65536];
	int in = open(self_exe, O_RDONLY);
	int out = open(setuid_copy, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
		       0700);
	ssize_t n = -1;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	if (!n)
		n = fchmod(out, 04755);
	close(in);
	close(out);
	return n ? -1 : 0;
}

/*
 * The run's directory (sticky and open to all, for the users' cores, one
 * per user, overwritten), the setuid copy in it, and the sysctls.
 */
static int env_apply(void)
{
	char pattern[sizeof(work_dir) + 16];

	strcpy(work_dir, "/tmp/aux_fuzz.XXXXXX");
	if (!mkdtemp(work_dir) || chmod(work_dir, 01777))
		return -1;
	snprintf(setuid_copy, sizeof(setuid_copy), "%s/setuid", work_dir);
	snprintf(pattern, sizeof(pattern), "%s/core.%%u", work_dir);
	return copy_setuid() ||
	       ptsim_sysctl_str_set("core_pattern", pattern) ||
	       ptsim_sysctl_set("perf_event_paranoid", 2);
}

static void env_restore(const struct fuzz_env *e)
{
	char path[sizeof(work_dir) + 16];

	cpu1_online(true);
	for (int i = 0; i < ARRAY_SIZE(knobs); i++)
		ptsim_knob_set(knobs[i], e->knob[i]);
	ptsim_sysctl_set("perf_event_paranoid", e->paranoid);
	ptsim_sysctl_set("perf_event_mlock_kb", e->mlock_kb);
	ptsim_sysctl_str_set("core_pattern", e->pattern);
	unlink(setuid_copy);
	for (int i = 0; i < ARRAY_SIZE(fuzz_uids); i++) {
		snprintf(path, sizeof(path), "%s/core.%u", work_dir,
			 fuzz_uids[i]);
		unlink(path);
	}
	rmdir(work_dir);
}

/*
 * The environment is put back by a keeper, not by the test that changed
 * it: the harness kills a test's process group when the test times out,
 * and the test's teardown does not run then.  The keeper, in a process
 * group of its own, restores it once every process of the run has closed
 * the write end of the pipe it waits on (they all inherit it).  It holds
 * lock_path's lock from before the environment was saved until it is
 * restored, so that no run saves what one before it left changed.
 */
static const char lock_path[] = "/tmp/aux_fuzz.lock";

/* Wait for the environment to be ours: the lock's fd, or -1. */
static int env_lock(void)
{
	int fd = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		      0600);

	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Hand @e and @lock to a keeper: the write end of its pipe, for this
 * process to hold until the run ends; or -1, the lock still ours.
 */
static int env_keep(const struct fuzz_env *e, int lock)
{
	int keep[2];
	pid_t pid;
	char c;

	if (pipe2(keep, O_CLOEXEC))
		return -1;
	pid = fork();
	if (!pid) {
		/* Out of the test's group before the keeper exists. */
		if (setpgid(0, 0) || fork())
			_exit(0);
		close(keep[1]);
		while (read(keep[0], &c, 1) < 0 && errno == EINTR)
			;
		env_restore(e);
		_exit(0);
	}
	close(keep[0]);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
		close(keep[1]);
		return -1;
	}
	close(lock);
	return keep[1];
}

/* End a run kept by @keep: once this returns, its environment is back. */
static void env_release(int keep)
{
	close(keep);
	close(env_lock());
}

/*
 * Keep a process of each user alive until pipe @hold's write end closes
 * (not a child of ours: its parent exits before we become a subreaper),
 * so that a charge leaked to a user outlives the run's processes with the
 * user's struct.
 */
static int keep_users(const int *hold)
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid < 0 || waitpid(pid, NULL, 0) != pid ? -1 : 0;
	for (int i = 1; i < ARRAY_SIZE(fuzz_uids); i++)
		if (!fork()) {
			close(hold[1]);
			if (!ptsim_become_user(fuzz_uids[i],
					       PTSIM_KEEP_MEMLOCK))
				while (read(hold[0], &c, 1) < 0 &&
				       errno == EINTR)
					;
			_exit(0);
		}
	_exit(0);
}

/* Start an actor's process, as root or as user @uid: its pid. */
static pid_t start_actor(uint64_t seed, unsigned long n, uid_t uid, int sock)
{
	struct actor a;
	pid_t pid = fork();

	if (pid)
		return pid;
	if (uid && ptsim_become_user(uid, 1 << 20))
		_exit(1);
	actor_init(&a, seed, !uid, sock);
	run(&a, n);
	_exit(0);
}

/*
 * Wait for both actors, then for what they left behind (reparented here):
 * the status of the first actor that did not exit 0, or 0.
 */
static int wait_actors(const pid_t *pid)
{
	int status = 0, bad = 0;

	for (int i = 0; i < 2; i++) {
		if (waitpid(pid[i], &status, 0) != pid[i])
			status = -1;
		if (!bad && (!WIFEXITED(status) || WEXITSTATUS(status)))
			bad = status ? status : -1;
	}
	while (waitpid(-1, NULL, 0) > 0)
		;
	return bad;
}

/*
 * A run: two actors of @n operations each, from @seed, as root or as two
 * users; then no process may have died of a signal it did not raise, and
 * each user's allowance must be free.  Returns NULL or what went wrong, in
 * @why.
 */
static const char *fuzz(uint64_t seed, unsigned long n, bool users,
			char *why, size_t len)
{
	uid_t uid[2] = { users ? USER_A : 0, users ? USER_B : 0 };
	int sv[2], hold[2], i, ret;
	pid_t pid[2];

	pmus_init();
	for (i = 0; i < ARRAY_SIZE(fuzz_uids); i++)
		if (allowance_free(fuzz_uids[i]))
			return "an allowance not free before the run";
	if (pipe2(hold, O_CLOEXEC) || keep_users(hold) ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return "keepers, subreaper, socketpair";
	close(hold[0]);
	if (users && ptsim_knob_set("unprivileged", true))
		return "ptsim's unprivileged knob";
	for (i = 0; i < 2; i++)
		pid[i] = start_actor(seed * 2 + i, n, uid[i], sv[i]);
	close(sv[0]);
	close(sv[1]);
	ret = wait_actors(pid);
	cpu1_online(true);
	if (ret || stats->killed) {
		close(hold[1]);
		snprintf(why, len, "actor status %#x, %lu processes killed",
			 ret, stats->killed);
		return why;
	}
	for (i = 0; i < ARRAY_SIZE(fuzz_uids) && !ret; i++)
		ret = allowance_free(fuzz_uids[i]);
	close(hold[1]);
	if (!ret)
		return NULL;
	snprintf(why, len, "uid %u: allowance not free (%d)", fuzz_uids[i - 1],
		 ret);
	return why;
}

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v ? strtoul(v, NULL, 0) : def;
}

/* This program's path, for exec; stats shared by the run's processes. */
static int self_init(void)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0)
		return -1;
	exe[len] = 0;
	self_exe = strdup(exe);
	stats = stats_map();
	return self_exe && stats ? 0 : -1;
}

FIXTURE(aux_fuzz)
{
	struct fuzz_env	env;
	int		keep;
	char		why[128];
};

FIXTURE_SETUP(aux_fuzz)
{
	int lock, applied;

	self->keep = -1;
	if (ptsim_type() < 0)
		SKIP(return, "no ptsim PMU (CONFIG_PTSIM)");
	if (!ptsim_can_sample())
		SKIP(return, "ptsim is a module: no AUX sampling");
	if (geteuid())
		SKIP(return, "needs root: sysctls, knobs, users");
	ASSERT_EQ(self_init(), 0);
	lock = env_lock();
	ASSERT_GE(lock, 0);
	ASSERT_EQ(env_save(&self->env), 0);
	applied = env_apply();
	self->keep = env_keep(&self->env, lock);
	if (self->keep < 0) {
		env_restore(&self->env);
		close(lock);
	}
	ASSERT_GE(self->keep, 0);
	ASSERT_EQ(applied, 0);
}

FIXTURE_TEARDOWN(aux_fuzz)
{
	if (self->keep >= 0)
		env_release(self->keep);
}

static void print_stats(uint64_t seed, double secs)
{
	printf("# seed %llu: %lu operations in %.0f s\n",
	       (unsigned long long)seed, stats->ops, secs);
	printf("# %lu opened, %lu mapped, %lu prctls ok, %lu forks,\n",
	       stats->opened, stats->mapped, stats->prctls, stats->forks);
	printf("# %lu execs, %lu threads, %lu crashes, %lu fds passed,\n",
	       stats->execs, stats->threads, stats->crashes, stats->passed);
	printf("# %lu killed\n", stats->killed);
	fflush(stdout);
}

/* AUX_FUZZ_SEED and AUX_FUZZ_OPS (per actor) choose another run. */
static void fuzz_test(struct __test_metadata *_metadata, char *why,
		      bool users)
{
	uint64_t seed = env_ul("AUX_FUZZ_SEED", users ? 2 : 1);
	unsigned long n = env_ul("AUX_FUZZ_OPS", 400);
	double t = ptsim_now();
	const char *failed = fuzz(seed, n, users, why, 128);

	EXPECT_EQ(failed, NULL) TH_LOG("%s", failed);
	print_stats(seed, ptsim_now() - t);
}

TEST_F(aux_fuzz, as_root)
{
	if (_metadata->skip)
		return;
	fuzz_test(_metadata, self->why, false);
}

TEST_F(aux_fuzz, as_two_users)
{
	if (_metadata->skip)
		return;
	fuzz_test(_metadata, self->why, true);
}

/* --seed S --ops N [--users]: one run as the tests make it, its figures. */
static int long_main(int argc, char **argv)
{
	uint64_t seed = strtoull(argv[2], NULL, 0);
	const char *failed;
	struct fuzz_env env;
	int lock, keep;
	char why[128];
	bool users;
	double t;

	lock = env_lock();
	if (self_init() || lock < 0 || env_save(&env)) {
		fprintf(stderr, "aux_fuzz: needs root and ptsim\n");
		return 2;
	}
	keep = env_apply() ? -1 : env_keep(&env, lock);
	if (keep < 0) {
		env_restore(&env);
		fprintf(stderr, "aux_fuzz: cannot set up %s\n", work_dir);
		return 2;
	}
	t = ptsim_now();
	users = argc == 6 && !strcmp(argv[5], "--users");
	failed = fuzz(seed, strtoul(argv[4], NULL, 0), users, why,
		      sizeof(why));
	env_release(keep);
	print_stats(seed, ptsim_now() - t);
	if (failed)
		printf("# failed: %s\n", failed);
	return !!failed;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child_main(argv);
	/* The setuid copy runs actors, and nothing else. */
	if (getuid() != geteuid())
		return 2;
	if (argc >= 5 && !strcmp(argv[1], "--seed") &&
	    !strcmp(argv[3], "--ops"))
		return long_main(argc, argv);
	return test_harness_run(argc, argv);
}
