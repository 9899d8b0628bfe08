// SPDX-License-Identifier: GPL-2.0
/*
 * Bad ptsim attributes and buffers get an errno, never a kernel splat.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

FIXTURE(ptsim_errors)
{
	int			type;
	struct perf_event_attr	attr;
};

FIXTURE_SETUP(ptsim_errors)
{
	self->type = ptsim_type();
	if (self->type < 0)
		SKIP(return, "no ptsim PMU (CONFIG_PTSIM)");
	ptsim_attr(&self->attr, self->type, 0, 0);
}

FIXTURE_TEARDOWN(ptsim_errors)
{
}

static int open_errno(struct perf_event_attr *attr)
{
	int fd = ptsim_open(attr, 0, -1, -1);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

TEST_F(ptsim_errors, defaults_open)
{
	ASSERT_EQ(open_errno(&self->attr), 0);
}

TEST_F(ptsim_errors, pt_terms_that_describe_ptsim_open)
{
	/* fup_on_ptw, tsc, ptw: what ptsim always does */
	self->attr.config = (1ULL << 5) | (1ULL << 10) | (1ULL << 12) |
			    PTSIM_PSB_PERIOD(5);
	self->attr.config1 = PTSIM_INTERVAL(10);
	ASSERT_EQ(open_errno(&self->attr), 0);
}

TEST_F(ptsim_errors, unknown_config_bit)
{
	self->attr.config = 1ULL << 0;
	ASSERT_EQ(open_errno(&self->attr), EINVAL);
	self->attr.config = 1ULL << 63;
	ASSERT_EQ(open_errno(&self->attr), EINVAL);
}

TEST_F(ptsim_errors, branch_tracing)
{
	self->attr.config = PTSIM_BRANCH;
	ASSERT_EQ(open_errno(&self->attr), EINVAL);
}

TEST_F(ptsim_errors, psb_period_out_of_range)
{
	self->attr.config = PTSIM_PSB_PERIOD(6);
	ASSERT_EQ(open_errno(&self->attr), EINVAL);
}

TEST_F(ptsim_errors, interval_too_short_or_wide)
{
	self->attr.config1 = PTSIM_INTERVAL(9);
	ASSERT_EQ(open_errno(&self->attr), EINVAL);
	self->attr.config1 = 1ULL << 20;
	ASSERT_EQ(open_errno(&self->attr), EINVAL);
}

TEST_F(ptsim_errors, config2)
{
	self->attr.config2 = 1;
	ASSERT_EQ(open_errno(&self->attr), EINVAL);
}

TEST_F(ptsim_errors, sampling_ptsim_itself)
{
	self->attr.sample_period = 1000;
	ASSERT_EQ(open_errno(&self->attr), EINVAL);
}

TEST_F(ptsim_errors, aux_size_not_power_of_two)
{
	struct ptsim_map m;
	int fd = ptsim_open(&self->attr, 0, -1, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ptsim_map(fd, &m, 1, 3, false), -EINVAL);
	close(fd);
}

/*
 * Each ptsim event runs an unthrottled 10 us timer: only CAP_PERFMON may
 * create one, unless root says otherwise in debugfs.
 */
TEST_F(ptsim_errors, unprivileged_is_eacces)
{
	bool saved;

	if (geteuid())
		SKIP(return, "needs root to become nobody");
	ASSERT_EQ(ptsim_knob_get("unprivileged", &saved), 0);
	self->attr.exclude_kernel = 1;
	self->attr.exclude_hv = 1;

	ASSERT_EQ(ptsim_knob_set("unprivileged", false), 0);
	EXPECT_EQ(ptsim_as_nobody(open_errno, &self->attr, PTSIM_KEEP_MEMLOCK), EACCES);
	ASSERT_EQ(ptsim_knob_set("unprivileged", true), 0);
	EXPECT_EQ(ptsim_as_nobody(open_errno, &self->attr, PTSIM_KEEP_MEMLOCK), 0);
	ASSERT_EQ(ptsim_knob_set("unprivileged", saved), 0);
}

/* A PMU that cannot set up its buffer: the mmap() fails cleanly. */
TEST_F(ptsim_errors, setup_aux_fails)
{
	struct ptsim_map m;
	int fd = ptsim_open(&self->attr, 0, -1, -1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ptsim_knob_set("fail_setup_aux", true), 0);
	EXPECT_EQ(ptsim_map(fd, &m, 1, 4, false), -ENOMEM);
	ASSERT_EQ(ptsim_knob_set("fail_setup_aux", false), 0);
	ASSERT_EQ(ptsim_map(fd, &m, 1, 4, false), 0);
	ptsim_unmap(&m);
	close(fd);
}

TEST_HARNESS_MAIN
