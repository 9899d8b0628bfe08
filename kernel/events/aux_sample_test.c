// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the parts of AUX sampling that stand alone: the checks
 * of the hidden-sampler attr fields and the mlock charge of ring buffers.
 */

#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm_types.h>
#include <linux/perf_event.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>

#include "internal.h"

/* A sampler that asks for 4 KiB samples from AUX PMU type 42. */
static void hidden_sampler(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_TASK_CLOCK;
	attr->sample_period = 1000000;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_AUX;
	attr->aux_sample_type = 42;
	attr->aux_sample_config = 0x1400;
	attr->aux_sample_size = 4096;
}

static void check_attr_accepts(struct kunit *test)
{
	struct perf_event_attr attr;

	hidden_sampler(&attr);
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), 0);

	attr.aux_sample_size = 1;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), 0);
	attr.aux_sample_size = U16_MAX;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), 0);

	attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
	attr.aux_sample_size = U16_MAX - sizeof(struct perf_aux_sample_position);
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), 0);
	attr.aux_sample_flags |= PERF_AUX_SAMPLE_NEW;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), 0);

	/* Neither field: the group-leader form, or no AUX sample at all. */
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = PERF_SAMPLE_AUX;
	attr.aux_sample_size = 4096;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), 0);
	attr.sample_type = 0;
	attr.aux_sample_size = 0;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), 0);
}

static void check_attr_rejects(struct kunit *test)
{
	struct perf_event_attr attr;

	/* A counting event takes no samples. */
	hidden_sampler(&attr);
	attr.sample_period = 0;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	hidden_sampler(&attr);
	attr.aux_sample_flags = PERF_AUX_SAMPLE_NEW << 1;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	/* New trace is told by positions. */
	hidden_sampler(&attr);
	attr.aux_sample_flags = PERF_AUX_SAMPLE_NEW;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	hidden_sampler(&attr);
	attr.aux_sample_type = 0;
	attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	/* The header must fit with the trace in a sample record. */
	hidden_sampler(&attr);
	attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
	attr.aux_sample_size = U16_MAX;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	hidden_sampler(&attr);
	attr.sample_type &= ~PERF_SAMPLE_AUX;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	hidden_sampler(&attr);
	attr.aux_sample_type = 0;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	hidden_sampler(&attr);
	attr.aux_sample_size = 0;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	hidden_sampler(&attr);
	attr.aux_sample_size = U16_MAX + 1;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);

	hidden_sampler(&attr);
	attr.aux_output = 1;
	KUNIT_EXPECT_EQ(test, perf_aux_sample_check_attr(&attr), -EINVAL);
}

struct mlock_fixture {
	struct user_struct	*user;
	struct mm_struct	*mm;
	int			saved_mlock;
	unsigned long		limit;	/* pages the user may lock */
};

static int mlock_init(struct kunit *test)
{
	struct mlock_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->user = kunit_kzalloc(test, sizeof(*f->user), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->user);
	f->mm = kunit_kzalloc(test, sizeof(*f->mm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->mm);

	/* 16 KiB per CPU; restored in mlock_exit(). */
	f->saved_mlock = sysctl_perf_event_mlock;
	sysctl_perf_event_mlock = 16;
	f->limit = (16 >> (PAGE_SHIFT - 10)) * num_online_cpus();
	test->priv = f;
	return 0;
}

static void mlock_exit(struct kunit *test)
{
	struct mlock_fixture *f = test->priv;

	sysctl_perf_event_mlock = f->saved_mlock;
}

static void mlock_within_allowance(struct kunit *test)
{
	struct mlock_fixture *f = test->priv;
	unsigned long pinned = 99;

	KUNIT_ASSERT_EQ(test, rb_mlock_charge(f->user, f->mm, f->limit,
					      &pinned), 0);
	KUNIT_EXPECT_EQ(test, pinned, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->perf_mlock),
			f->limit);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->mm->pinned_vm), 0);

	rb_mlock_uncharge(f->user, f->mm, f->limit, pinned);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->perf_mlock), 0);
}

static void mlock_excess_is_pinned(struct kunit *test)
{
	struct mlock_fixture *f = test->priv;
	unsigned long pinned;

	KUNIT_ASSERT_EQ(test, rb_mlock_charge(f->user, f->mm, f->limit + 3,
					      &pinned), 0);
	KUNIT_EXPECT_EQ(test, pinned, 3);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->perf_mlock),
			f->limit);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->mm->pinned_vm), 3);

	/* A second buffer is all pinned. */
	KUNIT_ASSERT_EQ(test, rb_mlock_charge(f->user, f->mm, 2, &pinned), 0);
	KUNIT_EXPECT_EQ(test, pinned, 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->mm->pinned_vm), 5);

	rb_mlock_uncharge(f->user, f->mm, 2, 2);
	rb_mlock_uncharge(f->user, f->mm, f->limit + 3, 3);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->perf_mlock), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->mm->pinned_vm), 0);
}

/* The allowance shrank below what the user holds: all new pages pin. */
static void mlock_lowered_allowance(struct kunit *test)
{
	struct mlock_fixture *f = test->priv;
	unsigned long pinned;

	atomic_long_set(&f->user->perf_mlock, f->limit + 10);
	KUNIT_ASSERT_EQ(test, rb_mlock_charge(f->user, f->mm, 4, &pinned), 0);
	KUNIT_EXPECT_EQ(test, pinned, 4);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->perf_mlock),
			f->limit + 10);
	rb_mlock_uncharge(f->user, f->mm, 4, pinned);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->mm->pinned_vm), 0);
}

/* Without an mm (a buffer nobody maps) the excess locks the user's pages. */
static void mlock_no_mm_locks_user(struct kunit *test)
{
	struct mlock_fixture *f = test->priv;
	unsigned long pinned;

	KUNIT_ASSERT_EQ(test, rb_mlock_charge(f->user, NULL, f->limit + 3,
					      &pinned), 0);
	KUNIT_EXPECT_EQ(test, pinned, 3);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->perf_mlock),
			f->limit);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->locked_vm), 3);

	rb_mlock_uncharge(f->user, NULL, f->limit + 3, pinned);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->perf_mlock), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->locked_vm), 0);
}

/* ... within RLIMIT_MEMLOCK, for a task without CAP_IPC_LOCK. */
static void mlock_no_mm_over_rlimit(struct kunit *test)
{
	unsigned long rlim = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct mlock_fixture *f = test->priv;
	const struct cred *old;
	unsigned long pinned;
	struct cred *cred;

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_IPC_LOCK);
	old = override_creds(cred);

	KUNIT_EXPECT_EQ(test, rb_mlock_charge(f->user, NULL,
					      f->limit + rlim + 1, &pinned),
			-EPERM);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->perf_mlock), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&f->user->locked_vm), 0);

	if (rb_mlock_charge(f->user, NULL, f->limit + rlim, &pinned) == 0) {
		KUNIT_EXPECT_EQ(test, pinned, rlim);
		rb_mlock_uncharge(f->user, NULL, f->limit + rlim, pinned);
	} else {
		KUNIT_FAIL(test, "the allowance plus RLIMIT_MEMLOCK is refused");
	}

	revert_creds(old);
	put_cred(cred);
}

static struct kunit_case check_attr_cases[] = {
	KUNIT_CASE(check_attr_accepts),
	KUNIT_CASE(check_attr_rejects),
	{}
};

static struct kunit_suite check_attr_suite = {
	.name = "perf_aux_sample_attr",
	.test_cases = check_attr_cases,
};

static struct kunit_case mlock_cases[] = {
	KUNIT_CASE(mlock_within_allowance),
	KUNIT_CASE(mlock_excess_is_pinned),
	KUNIT_CASE(mlock_lowered_allowance),
	KUNIT_CASE(mlock_no_mm_locks_user),
	KUNIT_CASE(mlock_no_mm_over_rlimit),
	{}
};

static struct kunit_suite mlock_suite = {
	.name = "perf_rb_mlock",
	.init = mlock_init,
	.exit = mlock_exit,
	.test_cases = mlock_cases,
};

kunit_test_suites(&check_attr_suite, &mlock_suite);

MODULE_LICENSE("GPL");
