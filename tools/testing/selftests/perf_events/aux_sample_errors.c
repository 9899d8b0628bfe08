// SPDX-License-Identifier: GPL-2.0
/*
 * The errors of AUX sampling through a hidden AUX event (the attr fields
 * aux_sample_type and aux_sample_config), what an unprivileged user may
 * do with it, and upstream's group-leader form with an attr of the size
 * before those fields.
 *
 * Where an errno could also come from something other than the check under
 * test, a test first shows that the attr opens without the fault.
 *
 * The kselftest_harness.h of this kernel runs a test even when its fixture
 * setup skipped it, so each test starts by checking _metadata->skip.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define SAMPLE_SIZE	4096
#define PERIOD_NS	1000000
#define NOBODY		65534

FIXTURE(aux_sample_errors)
{
	int			type;
	struct perf_event_attr	attr;	/* a hidden sampler that opens */
};

FIXTURE_SETUP(aux_sample_errors)
{
	self->type = ptsim_type();
	if (self->type < 0)
		SKIP(return, "no ptsim PMU (CONFIG_PTSIM)");
	if (!ptsim_can_sample())
		SKIP(return, "ptsim is a module: no AUX sampling");
	ptsim_sampler_attr(&self->attr, PERF_COUNT_SW_TASK_CLOCK, PERIOD_NS,
			   PERF_SAMPLE_IP, SAMPLE_SIZE);
	self->attr.aux_sample_type = self->type;
}

FIXTURE_TEARDOWN(aux_sample_errors)
{
}

/* 0 if @attr opens (in group @group), else the errno. */
static int open_errno(struct perf_event_attr *attr, int group)
{
	int fd = ptsim_open(attr, 0, -1, group);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

/* A ptsim event to lead a group, -1 and errno on failure. */
static int open_leader(int type)
{
	struct perf_event_attr attr;

	ptsim_attr(&attr, type, 0, 0);
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return ptsim_open(&attr, 0, -1, -1);
}

TEST_F(aux_sample_errors, hidden_sampler_opens)
{
	if (_metadata->skip)
		return;
	ASSERT_EQ(open_errno(&self->attr, -1), 0);
}

TEST_F(aux_sample_errors, aux_type_without_sample_aux)
{
	if (_metadata->skip)
		return;
	self->attr.sample_type &= ~PERF_SAMPLE_AUX;
	self->attr.aux_sample_size = 0;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
	self->attr.aux_sample_config = PTSIM_PSB_PERIOD(1);
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
}

/* A sampler without AUX sampling that opens but for aux_sample_config. */
TEST_F(aux_sample_errors, aux_config_without_sample_aux)
{
	if (_metadata->skip)
		return;
	self->attr.sample_type &= ~PERF_SAMPLE_AUX;
	self->attr.aux_sample_size = 0;
	self->attr.aux_sample_type = 0;
	ASSERT_EQ(open_errno(&self->attr, -1), 0);
	self->attr.aux_sample_config = PTSIM_PSB_PERIOD(1);
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
}

/* Upstream's form, which opens, but for aux_sample_config. */
TEST_F(aux_sample_errors, aux_config_without_aux_type)
{
	int leader;

	if (_metadata->skip)
		return;
	leader = open_leader(self->type);
	ASSERT_GE(leader, 0) TH_LOG("ptsim: %s", strerror(errno));
	self->attr.aux_sample_type = 0;
	EXPECT_EQ(open_errno(&self->attr, leader), 0);
	self->attr.aux_sample_config = PTSIM_PSB_PERIOD(1);
	EXPECT_EQ(open_errno(&self->attr, leader), EINVAL);
	close(leader);
}

/* A task-clock counter that anyone may open on themselves. */
static void plain_attr(struct perf_event_attr *attr)
{
	ptsim_attr(attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

TEST_F(aux_sample_errors, reserved_4_set)
{
	struct perf_event_attr plain;

	if (_metadata->skip)
		return;
	self->attr.__reserved_4 = 1;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);

	/* For any event. */
	plain_attr(&plain);
	ASSERT_EQ(open_errno(&plain, -1), 0);
	plain.__reserved_4 = 1ULL << 63;
	ASSERT_EQ(open_errno(&plain, -1), EINVAL);
}

TEST_F(aux_sample_errors, unknown_aux_sample_flags)
{
	struct perf_event_attr plain;

	if (_metadata->skip)
		return;
	self->attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION << 1;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);

	/* Only for a hidden sampler. */
	plain_attr(&plain);
	plain.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
	ASSERT_EQ(open_errno(&plain, -1), EINVAL);
}

TEST_F(aux_sample_errors, position_header_too_big)
{
	const uint32_t hdr = sizeof(struct perf_aux_sample_position);

	if (_metadata->skip)
		return;
	self->attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
	self->attr.aux_sample_size = UINT16_MAX - hdr + 1;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
	self->attr.aux_sample_size = UINT16_MAX - hdr;
	ASSERT_EQ(open_errno(&self->attr, -1), 0);
}

TEST_F(aux_sample_errors, aux_sample_size_zero)
{
	if (_metadata->skip)
		return;
	self->attr.aux_sample_size = 0;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
}

/* A sample record holds at most U16_MAX bytes. */
TEST_F(aux_sample_errors, aux_sample_size_too_large)
{
	if (_metadata->skip)
		return;
	self->attr.aux_sample_size = 65535;
	ASSERT_EQ(open_errno(&self->attr, -1), 0);
	self->attr.aux_sample_size = 65536;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
	self->attr.aux_sample_size = UINT32_MAX;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
}

TEST_F(aux_sample_errors, aux_output_with_aux_type)
{
	if (_metadata->skip)
		return;
	self->attr.aux_output = 1;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
}

/* AUX samples come from an AUX group leader or a hidden event, not both. */
TEST_F(aux_sample_errors, aux_type_under_aux_leader)
{
	int leader;

	if (_metadata->skip)
		return;
	leader = open_leader(self->type);
	ASSERT_GE(leader, 0) TH_LOG("ptsim: %s", strerror(errno));
	EXPECT_EQ(open_errno(&self->attr, leader), EINVAL);
	self->attr.aux_sample_type = 0;
	EXPECT_EQ(open_errno(&self->attr, leader), 0);
	close(leader);
}

/* A type above every registered PMU's, -1 if sysfs does not list them. */
static int unused_pmu_type(void)
{
	DIR *dir = opendir("/sys/bus/event_source/devices");
	struct dirent *d;
	int type, max = -1;
	char path[512];
	FILE *f;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/type", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &type) == 1 && type > max)
			max = type;
		fclose(f);
	}
	closedir(dir);
	return max < 0 ? -1 : max + 1000;
}

TEST_F(aux_sample_errors, aux_type_not_a_pmu)
{
	int type;

	if (_metadata->skip)
		return;
	type = unused_pmu_type();
	ASSERT_GT(type, 0);
	self->attr.aux_sample_type = type;
	ASSERT_EQ(open_errno(&self->attr, -1), ENOENT);
}

/* cpu-clock exists, but has no AUX area to take samples from. */
TEST_F(aux_sample_errors, aux_type_without_snapshot)
{
	if (_metadata->skip)
		return;
	self->attr.aux_sample_type = PERF_TYPE_SOFTWARE;
	self->attr.aux_sample_config = PERF_COUNT_SW_CPU_CLOCK;
	ASSERT_EQ(open_errno(&self->attr, -1), EOPNOTSUPP);
	self->attr.aux_sample_config = PERF_COUNT_SW_DUMMY;
	ASSERT_EQ(open_errno(&self->attr, -1), EOPNOTSUPP);
}

/*
 * Read the samples in @m and check each: @size bytes of trace (or, with
 * @first_empty, the first sample may have none yet), which decodes with
 * contiguous sequence numbers and user IPs only.  Returns the number of
 * samples, or -1 with the reason in @why.
 */
static int check_samples(struct ptsim_map *m, uint64_t sample_type,
			 size_t size, bool first_empty, char *why, size_t len)
{
	struct ptsim_samples ss = {};
	struct ptsim_trace t = {};
	struct ptsim_ranges text;
	uint64_t lost = 0;
	int ret, i;

	ret = ptsim_text_ranges(&text);
	if (ret) {
		snprintf(why, len, "/proc/self/maps: %s", strerror(-ret));
		return -1;
	}
	ret = ptsim_read_samples(m, sample_type | PERF_SAMPLE_AUX, &ss, &lost);
	if (ret < 0)
		snprintf(why, len, "bad ring buffer: %s", strerror(-ret));
	else if (lost)
		snprintf(why, len, "%llu samples lost",
			 (unsigned long long)lost);
	for (i = 0; ret > 0 && i < (int)ss.nr; i++) {
		if (ss.s[i].aux.len != size) {
			snprintf(why, len, "sample %d: %zu bytes of trace",
				 i, ss.s[i].aux.len);
			ret = -1;
		} else if (ptsim_sample_trace(&ss.s[i], &t, &text)) {
			snprintf(why, len, "sample %d: %s", i, t.error);
			ret = -1;
		} else if (!t.nr && (i || !first_empty)) {
			snprintf(why, len, "sample %d: no records", i);
			ret = -1;
		}
		ptsim_trace_free(&t);
	}
	if (lost)
		ret = -1;
	ptsim_samples_free(&ss);
	ptsim_ranges_free(&text);
	return ret;
}

/*
 * An attr of PERF_ATTR_SIZE_VER7, before __reserved_4 and the hidden
 * sampler's fields, with junk where they would be, still takes AUX samples
 * from a ptsim group leader as before.
 */
TEST_F(aux_sample_errors, old_attr_size_group_form)
{
	struct ptsim_map aux, data;
	char why[256] = "";
	int leader, fd, nr;

	if (_metadata->skip)
		return;
	leader = open_leader(self->type);
	ASSERT_GE(leader, 0) TH_LOG("ptsim: %s", strerror(errno));
	ASSERT_EQ(ptsim_map(leader, &aux, 1, 8, true), 0);

	self->attr.size = PERF_ATTR_SIZE_VER7;
	self->attr.disabled = 0;
	self->attr.__reserved_4 = ~0ULL;
	self->attr.aux_sample_type = ~0U;
	self->attr.aux_sample_flags = ~0U;
	self->attr.aux_sample_config = ~0ULL;
	fd = ptsim_open(&self->attr, 0, -1, leader);
	ASSERT_GE(fd, 0) TH_LOG("sampler: %s", strerror(errno));
	ASSERT_EQ(ptsim_map(fd, &data, 128, 0, false), 0);

	/* A sample per ms, about 4 kB each. */
	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	ptsim_spin(50);
	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP),
		  0);

	/* The leader traced from the enable only. */
	nr = check_samples(&data, PERF_SAMPLE_IP, SAMPLE_SIZE, true, why,
			   sizeof(why));
	EXPECT_GE(nr, 20) TH_LOG("%s", why);

	ptsim_unmap(&data);
	ptsim_unmap(&aux);
	close(fd);
	close(leader);
}

/*
 * Unprivileged use: a child that is user and group nobody, without
 * capabilities, at perf_event_paranoid 2.  The sysctls are set here and
 * restored by the teardown.
 */
FIXTURE(aux_sample_unpriv)
{
	int			type;
	long			paranoid, mlock_kb;
	bool			paranoid_saved, mlock_saved;
	struct perf_event_attr	attr;
};

FIXTURE_SETUP(aux_sample_unpriv)
{
	self->type = ptsim_type();
	if (self->type < 0)
		SKIP(return, "no ptsim PMU (CONFIG_PTSIM)");
	if (!ptsim_can_sample())
		SKIP(return, "ptsim is a module: no AUX sampling");
	if (geteuid())
		SKIP(return, "needs root to set sysctls and become nobody");
	ptsim_sampler_attr(&self->attr, PERF_COUNT_SW_TASK_CLOCK, PERIOD_NS,
			   PERF_SAMPLE_IP, SAMPLE_SIZE);
	self->attr.aux_sample_type = self->type;

	ASSERT_EQ(ptsim_sysctl_get("perf_event_paranoid", &self->paranoid), 0);
	ASSERT_EQ(ptsim_sysctl_get("perf_event_mlock_kb", &self->mlock_kb), 0);
	/* Last: the teardown does not run if the setup fails. */
	ASSERT_EQ(ptsim_sysctl_set("perf_event_paranoid", 2), 0);
	self->paranoid_saved = true;
}

FIXTURE_TEARDOWN(aux_sample_unpriv)
{
	if (self->paranoid_saved)
		EXPECT_EQ(ptsim_sysctl_set("perf_event_paranoid",
					   self->paranoid), 0);
	if (self->mlock_saved)
		EXPECT_EQ(ptsim_sysctl_set("perf_event_mlock_kb",
					   self->mlock_kb), 0);
}

/* What a child does as nobody; returns its exit code. */
typedef int (*nobody_fn)(struct perf_event_attr *attr);

/*
 * Run @fn in a child that drops to nobody, with no RLIMIT_MEMLOCK if
 * @no_memlock.  Returns its exit code, or -1.
 */
static int as_nobody(nobody_fn fn, struct perf_event_attr *attr,
		     bool no_memlock)
{
	struct rlimit none = { 0, 0 };
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (no_memlock && setrlimit(RLIMIT_MEMLOCK, &none))
			_exit(200);
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(201);
		_exit(fn(attr));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The errno of opening @attr on this task, 0 if it opens. */
static int nobody_open(struct perf_event_attr *attr)
{
	return open_errno(attr, -1);
}

/* Sample user space for a while: the samples must check out. */
static int nobody_samples(struct perf_event_attr *attr)
{
	struct ptsim_map data;
	char why[256] = "";
	int fd, nr;

	fd = ptsim_open(attr, 0, -1, -1);
	if (fd < 0) {
		fprintf(stderr, "# nobody: sampler: %s\n", strerror(errno));
		return 1;
	}
	if (ptsim_map(fd, &data, 64, 0, false)) {
		fprintf(stderr, "# nobody: mmap failed\n");
		return 2;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return 3;
	ptsim_spin(30);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		return 3;
	nr = check_samples(&data, PERF_SAMPLE_IP, SAMPLE_SIZE, false, why,
			   sizeof(why));
	if (nr < 10) {
		fprintf(stderr, "# nobody: %d samples: %s\n", nr, why);
		return 4;
	}
	return 0;
}

TEST_F(aux_sample_unpriv, exclude_kernel_0_is_eacces)
{
	if (_metadata->skip)
		return;
	ASSERT_EQ(as_nobody(nobody_open, &self->attr, false), 0);
	self->attr.exclude_kernel = 0;
	ASSERT_EQ(as_nobody(nobody_open, &self->attr, false), EACCES);
}

/* User-only trace, all of which is this task's user text. */
TEST_F(aux_sample_unpriv, user_only_samples_decode)
{
	if (_metadata->skip)
		return;
	/* Room for the ring buffer and the hidden event's buffer. */
	self->mlock_saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", 516), 0);
	ASSERT_EQ(as_nobody(nobody_samples, &self->attr, false), 0);
}

TEST_F(aux_sample_unpriv, mlock_limit_is_eperm)
{
	struct perf_event_attr plain = self->attr;

	if (_metadata->skip)
		return;
	self->mlock_saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", 0), 0);
	ASSERT_EQ(as_nobody(nobody_open, &self->attr, true), EPERM);

	/* The same sampler without a buffer to charge opens. */
	plain.sample_type &= ~PERF_SAMPLE_AUX;
	plain.aux_sample_size = 0;
	plain.aux_sample_type = 0;
	ASSERT_EQ(as_nobody(nobody_open, &plain, true), 0);

	/* And root may go over the limits (CAP_IPC_LOCK). */
	ASSERT_EQ(open_errno(&self->attr, -1), 0);
}

TEST_HARNESS_MAIN
