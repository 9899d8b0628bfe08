// SPDX-License-Identifier: GPL-2.0
/*
 * The mlock limits of hidden AUX buffers hold across users under load.
 *
 * USERS unprivileged users at once, each PROCS processes of THREADS
 * threads, open hidden ptsim samplers on their own threads and enable
 * them, pass them over a socket to the next user's processes (which hold
 * them a while, then close them), and fork children that take core trace,
 * for SECONDS, and then until every user has been refused at its limits
 * and a sampler has been passed (a loaded machine may take longer to get
 * there), but no more than GRACE seconds longer.  Each user has an
 * allowance of perf_event_mlock_kb per online CPU plus RLIMIT_MEMLOCK,
 * small enough that the users spend much of the run refused at it.
 *
 * A ledger in shared memory counts, for each user, the pages that the
 * kernel certainly charges it: a hidden buffer's from just after the open
 * that made it or found it until just before the close of the last fd of
 * its samplers, in hand or in flight (the buffer's hidden event id, which
 * fdinfo shows, names it), and a core trace buffer's from just after the
 * prctl() to just before its process exits.  The ledger is never above the
 * user's charge, so a ledger above the allowance, checked at every
 * addition, is a kernel that granted a buffer over the limits.
 *
 * Before the run and after it, with every process of the run gone but one
 * that keeps each user's struct alive, each user must be able to take its
 * whole allowance, and not a page more: nothing the run did is still
 * charged.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define USERS		4
#define PROCS		4	/* per user */
#define THREADS		2	/* per process */
#define SECONDS		8
#define GRACE		60	/* more seconds, at most, to see it all */
#define FIRST_UID	61000
#define HELD_FDS	4	/* fds a thread holds for other users */
#define HOLDINGS	1024

/* A hidden event's buffer that samplers' fds, in hand or in flight, hold. */
struct holding {
	uint64_t	id;		/* the hidden event's */
	int		holders;	/* 0: a free slot */
	int		user;
	long		pages;
};

/* What the run's processes share. */
struct ledger {
	int		lock;
	struct holding	holding[HOLDINGS];
	long		held[USERS];	/* pages certainly charged to it now */
	long		most[USERS];	/* the most it held at once */
	long		over[USERS];	/* additions over its allowance */
	long		granted[USERS];	/* buffers made */
	long		refused[USERS];	/* EPERM */
	long		passed[USERS];	/* fds received from the user before */
	long		mlock_pages;	/* perf_event_mlock_kb */
	long		rlimit_pages;	/* RLIMIT_MEMLOCK */
	long		allowance;	/* pages */
	int		type;		/* ptsim's */
	double		end;		/* CLOCK_MONOTONIC: SECONDS on */
	int		mailbox[USERS][2];	/* datagram sockets: [1] is user's */
};

static struct ledger *ledger;

static void ledger_lock(void)
{
	while (__atomic_exchange_n(&ledger->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void ledger_unlock(void)
{
	__atomic_store_n(&ledger->lock, 0, __ATOMIC_RELEASE);
}

/* Under the lock: @pages more charged to @user; is it over? */
static void ledger_add(int user, long pages)
{
	ledger->held[user] += pages;
	if (ledger->held[user] > ledger->most[user])
		ledger->most[user] = ledger->held[user];
	if (ledger->held[user] > ledger->allowance)
		ledger->over[user]++;
}

/* The buffer of hidden event @id, charged to @user, has one holder more. */
static void hold(int user, uint64_t id, long pages)
{
	struct holding *free = NULL, *h;

	ledger_lock();
	for (h = ledger->holding; h < ledger->holding + HOLDINGS; h++) {
		if (h->holders && h->id == id)
			break;
		if (!h->holders && !free)
			free = h;
	}
	if (h == ledger->holding + HOLDINGS && free) {
		*free = (struct holding){ id, 0, user, pages };
		ledger_add(user, pages);
		h = free;
	}
	if (h < ledger->holding + HOLDINGS)
		h->holders++;
	ledger_unlock();
}

/* One holder of hidden event @id less, before it closes its fd. */
static void unhold(uint64_t id)
{
	struct holding *h;

	ledger_lock();
	for (h = ledger->holding; h < ledger->holding + HOLDINGS; h++)
		if (h->holders && h->id == id && !--h->holders)
			ledger->held[h->user] -= h->pages;
	ledger_unlock();
}

static void count(long *counter)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

/* A buffer of 2, 4 or 8 AUX pages. */
static uint32_t pick_pages(unsigned int *seed)
{
	return 2 << (rand_r(seed) % 3);
}

/* A sampler's fd and the id of its hidden event. */
struct sampler {
	int		fd;	/* -1: none */
	uint64_t	id;
};

/* A thread's state: its own sampler and those it holds for others. */
struct actor {
	int		user;
	unsigned int	seed;
	struct sampler	own;
	struct sampler	held[HELD_FDS];
};

static void drop(struct sampler *s)
{
	if (s->fd < 0)
		return;
	unhold(s->id);
	close(s->fd);
	s->fd = -1;
}

/*
 * A sampler of this thread's task clock, through a hidden ptsim event of
 * this thread (its buffer charged with its user page).
 */
static void open_own(struct actor *a)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;
	uint64_t pages;

	drop(&a->own);
	ptsim_sampler_attr(&attr, PERF_COUNT_SW_TASK_CLOCK, 100000,
			   PERF_SAMPLE_IP, pick_pages(&a->seed) * ps);
	attr.aux_sample_type = ledger->type;
	a->own.fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (a->own.fd < 0) {
		if (errno == EPERM)
			count(&ledger->refused[a->user]);
		return;
	}
	count(&ledger->granted[a->user]);
	if (ptsim_fdinfo_u64(a->own.fd, "aux_sample_id", &a->own.id) ||
	    ptsim_fdinfo_u64(a->own.fd, "aux_sample_pages", &pages)) {
		close(a->own.fd);
		a->own.fd = -1;
		return;
	}
	hold(a->user, a->own.id, pages + 1);
	ioctl(a->own.fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* Hand this thread's sampler, and its holding, to the next user. */
static void pass_own(struct actor *a)
{
	int to = ledger->mailbox[(a->user + 1) % USERS][0];
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { &a->own.id, sizeof(a->own.id) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	if (a->own.fd < 0)
		return;
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &a->own.fd, sizeof(int));
	if (sendmsg(to, &msg, MSG_DONTWAIT) != sizeof(a->own.id)) {
		drop(&a->own);
		return;
	}
	close(a->own.fd);
	a->own.fd = -1;
}

/* Take a sampler the user before passed, in place of a random one held. */
static void take_passed(struct actor *a)
{
	struct sampler *s = &a->held[rand_r(&a->seed) % HELD_FDS];
	int from = ledger->mailbox[a->user][1];
	char cbuf[CMSG_SPACE(sizeof(int))];
	uint64_t id;
	struct iovec iov = { &id, sizeof(id) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;

	if (recvmsg(from, &msg, MSG_DONTWAIT) != sizeof(id))
		return;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return;
	drop(s);
	memcpy(&s->fd, CMSG_DATA(cmsg), sizeof(int));
	s->id = id;
	count(&ledger->passed[a->user]);
	ioctl(s->fd, rand_r(&a->seed) % 2 ? PERF_EVENT_IOC_DISABLE :
					    PERF_EVENT_IOC_ENABLE, 0);
}

/*
 * A child with core trace of its one thread, for a while; it closes the
 * fds it inherits, so that the ledger's holders stay the only ones.
 */
static void core_child(struct actor *a)
{
	struct prctl_core_trace ct = {
		.type = ledger->type,
		.size = pick_pages(&a->seed) * sysconf(_SC_PAGESIZE),
	};
	long pages = ct.size / sysconf(_SC_PAGESIZE) + 1;
	pid_t pid = fork();

	if (pid) {
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return;
	}
	close_range(3, ~0U, 0);
	if (prctl(PR_SET_CORE_TRACE, &ct, sizeof(ct), 0, 0)) {
		if (errno == EPERM)
			count(&ledger->refused[a->user]);
		_exit(0);
	}
	count(&ledger->granted[a->user]);
	ledger_lock();
	ledger_add(a->user, pages);
	ledger_unlock();
	ptsim_work(1000 + rand_r(&a->seed) % 20000);
	ledger_lock();
	ledger->held[a->user] -= pages;
	ledger_unlock();
	_exit(0);
}

/* Has the run gone on long enough to have seen what it is for? */
static bool run_over(void)
{
	double now = ptsim_now();
	long passed = 0;

	if (now < ledger->end)
		return false;
	if (now >= ledger->end + GRACE)
		return true;
	for (int user = 0; user < USERS; user++) {
		if (!__atomic_load_n(&ledger->refused[user], __ATOMIC_RELAXED))
			return false;
		passed += __atomic_load_n(&ledger->passed[user],
					  __ATOMIC_RELAXED);
	}
	return passed > 0;
}

static void *actor_run(void *arg)
{
	struct actor *a = arg;

	while (!run_over()) {
		switch (rand_r(&a->seed) % 16) {
		case 0 ... 5:
			open_own(a);
			break;
		case 6 ... 7:
			pass_own(a);
			break;
		case 8 ... 9:
			drop(&a->own);
			break;
		case 10 ... 11:
			take_passed(a);
			break;
		case 12 ... 14:
			drop(&a->held[rand_r(&a->seed) % HELD_FDS]);
			break;
		default:
			core_child(a);
		}
		ptsim_work(rand_r(&a->seed) % 2000);
	}
	drop(&a->own);
	for (int i = 0; i < HELD_FDS; i++)
		drop(&a->held[i]);
	return NULL;
}

/* A process of @user: THREADS actors; its exit code says if all started. */
static int process_run(int user, int proc)
{
	struct actor a[THREADS];
	pthread_t t[THREADS];
	int i, started;

	if (ptsim_become_user(FIRST_UID + user,
			      ledger->rlimit_pages * sysconf(_SC_PAGESIZE)))
		return 10;
	for (i = 0; i < THREADS; i++) {
		a[i] = (struct actor){
			.user = user, .seed = user * 1000 + proc * 100 + i,
			.own.fd = -1,
		};
		for (int j = 0; j < HELD_FDS; j++)
			a[i].held[j].fd = -1;
	}
	for (started = 0; started < THREADS; started++)
		if (pthread_create(&t[started], NULL, actor_run, &a[started]))
			break;
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return started == THREADS ? 0 : 11;
}

/*
 * A process of each user that lives until pipe @hold's write end closes,
 * so that what the run leaves charged outlives the rest with the user's
 * struct.  It holds no socket: what is in flight there goes with them.
 */
static int keep_users(const int *hold)
{
	for (int user = 0; user < USERS; user++) {
		pid_t pid = fork();
		char c;

		if (pid < 0)
			return -1;
		if (pid)
			continue;
		close(hold[1]);
		for (int i = 0; i < USERS; i++) {
			close(ledger->mailbox[i][0]);
			close(ledger->mailbox[i][1]);
		}
		if (ptsim_become_user(FIRST_UID + user, PTSIM_KEEP_MEMLOCK))
			_exit(1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	return 0;
}

/*
 * In a child of user @user, with RLIMIT_MEMLOCK 0 for a start: rings of
 * 1 + 8 pages on as many dummy events as there are CPUs take the whole
 * perf_event_mlock_kb allowance, and a ring of 1 + 1 more gets EPERM;
 * then, with RLIMIT_MEMLOCK back, a hidden buffer of 8 pages and its user
 * page take it whole, and one of 2 + 1 more gets EPERM.
 */
static int allowance_child(int user)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1,
	};
	long ps = sysconf(_SC_PAGESIZE);
	struct rlimit lim = { 0, ledger->rlimit_pages * ps };
	int cpus = ledger->mlock_pages ? sysconf(_SC_NPROCESSORS_ONLN) : 0;
	int fd, i;

	if (ptsim_become_user(FIRST_UID + user, lim.rlim_max) ||
	    setrlimit(RLIMIT_MEMLOCK, &lim))
		return 20;
	for (i = 0; i <= cpus; i++) {
		fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd < 0)
			return 21;
		if (mmap(NULL, (i < cpus ? ledger->mlock_pages : 2) * ps,
			 PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
		    MAP_FAILED)
			break;
	}
	if (i != cpus || errno != EPERM)
		return 22;	/* perf_event_mlock_kb not whole */
	lim.rlim_cur = lim.rlim_max;
	if (setrlimit(RLIMIT_MEMLOCK, &lim))
		return 23;
	for (i = ledger->rlimit_pages ? 0 : 1; i < 2; i++) {
		ptsim_sampler_attr(&attr, PERF_COUNT_SW_TASK_CLOCK, 100000,
				   PERF_SAMPLE_IP, (i ? 2 : 8) * ps);
		attr.aux_sample_type = ledger->type;
		attr.aux_sample_config = PTSIM_PSB_PERIOD(i);
		if (syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0) < 0)
			break;
	}
	if (i != 1 || errno != EPERM)
		return 24;	/* RLIMIT_MEMLOCK not whole */
	return 0;
}

static int allowance_whole(int user)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(allowance_child(user));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(limits)
{
	long	paranoid, mlock_kb;
	bool	unprivileged;	/* ptsim's debugfs knob */
	bool	saved;
};

/* The allowance: perf_event_mlock_kb per CPU, RLIMIT_MEMLOCK, or both. */
FIXTURE_VARIANT(limits)
{
	long	mlock_pages;	/* a ring of 1 + 8, or 0 */
	long	rlimit_pages;	/* a buffer of 8 + 1, or 0 */
};

FIXTURE_VARIANT_ADD(limits, mlock_kb)
{
	.mlock_pages = 9,
};

FIXTURE_VARIANT_ADD(limits, rlimit)
{
	.rlimit_pages = 9,
};

FIXTURE_VARIANT_ADD(limits, both)
{
	.mlock_pages = 9,
	.rlimit_pages = 9,
};

FIXTURE_SETUP(limits)
{
	if (geteuid())
		SKIP(return, "needs root to set sysctls and become users");
	if (ptsim_type() < 0 || !ptsim_can_sample())
		SKIP(return, "no ptsim built in");
	ledger = mmap(NULL, sizeof(*ledger), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(ledger, MAP_FAILED);
	ledger->type = ptsim_type();
	ledger->mlock_pages = variant->mlock_pages;
	ledger->rlimit_pages = variant->rlimit_pages;
	ledger->allowance = variant->mlock_pages *
			    sysconf(_SC_NPROCESSORS_ONLN) +
			    variant->rlimit_pages;
	for (int user = 0; user < USERS; user++)
		ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0,
				     ledger->mailbox[user]), 0);

	ASSERT_EQ(ptsim_sysctl_get("perf_event_paranoid", &self->paranoid), 0);
	ASSERT_EQ(ptsim_sysctl_get("perf_event_mlock_kb", &self->mlock_kb), 0);
	ASSERT_EQ(ptsim_knob_get("unprivileged", &self->unprivileged), 0);
	/* Last: the teardown does not run if the setup fails. */
	self->saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_paranoid", 2), 0);
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb",
				   variant->mlock_pages *
				   sysconf(_SC_PAGESIZE) / 1024),
		  0);
	ASSERT_EQ(ptsim_knob_set("unprivileged", true), 0);
}

FIXTURE_TEARDOWN(limits)
{
	if (!self->saved)
		return;
	EXPECT_EQ(ptsim_sysctl_set("perf_event_paranoid", self->paranoid), 0);
	EXPECT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", self->mlock_kb), 0);
	EXPECT_EQ(ptsim_knob_set("unprivileged", self->unprivileged), 0);
}

TEST_F_TIMEOUT(limits, held_within_allowance_and_all_freed, 120)
{
	pid_t pid[USERS * PROCS];
	int hold[2], status, i, user;
	long passed = 0;

	ASSERT_EQ(pipe(hold), 0);
	ASSERT_EQ(keep_users(hold), 0);
	close(hold[0]);
	for (user = 0; user < USERS; user++)
		ASSERT_EQ(allowance_whole(user), 0);

	ledger->end = ptsim_now() + SECONDS;
	for (i = 0; i < USERS * PROCS; i++) {
		pid[i] = fork();
		ASSERT_GE(pid[i], 0);
		if (!pid[i])
			_exit(process_run(i / PROCS, i % PROCS));
	}
	for (i = 0; i < USERS * PROCS; i++) {
		ASSERT_EQ(waitpid(pid[i], &status, 0), pid[i]);
		EXPECT_EQ(status, 0);
	}
	TH_LOG("the run took %.1f s", ptsim_now() - ledger->end + SECONDS);
	for (user = 0; user < USERS; user++) {
		close(ledger->mailbox[user][0]);
		close(ledger->mailbox[user][1]);
	}

	for (user = 0; user < USERS; user++) {
		TH_LOG("uid %d: %ld buffers made, %ld refused, %ld passed in",
		       FIRST_UID + user, ledger->granted[user],
		       ledger->refused[user], ledger->passed[user]);
		TH_LOG("uid %d: at most %ld of %ld pages held, %ld times over",
		       FIRST_UID + user, ledger->most[user], ledger->allowance,
		       ledger->over[user]);
		EXPECT_EQ(ledger->over[user], 0);
		EXPECT_GT(ledger->refused[user], 0);
		EXPECT_EQ(allowance_whole(user), 0);
		passed += ledger->passed[user];
	}
	EXPECT_GT(passed, 0);
	close(hold[1]);
}

TEST_HARNESS_MAIN
