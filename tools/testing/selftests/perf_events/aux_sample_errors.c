// SPDX-License-Identifier: GPL-2.0
/*
 * The errors of AUX sampling through a hidden AUX event (the attr fields
 * aux_sample_type and aux_sample_config), what an unprivileged user may
 * do with it (with ptsim, Intel PT and CoreSight), and upstream's group-leader
 * form with an attr of the size before those fields.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <endian.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
/*
 * The decoder of this architecture's trace units: Intel PT's (ptsim's and
 * intel_pt's) with libipt on x86, where Debian builds it, ETE's (cs_etm's)
 * with OpenCSD on arm64.
 */
#ifdef __aarch64__
#define HAVE_OPENCSD
#else
#define HAVE_LIBIPT
#include <intel-pt.h>
#endif

#include "../kselftest_harness.h"
#include "ptsim_lib.h"
#ifdef HAVE_OPENCSD
#include "cs_etm_decode.h"
#endif

#define SAMPLE_SIZE	4096
#define PERIOD_NS	1000000

/* The hardware trace of each PMU */
enum trace_kind { TRACE_PTSIM, TRACE_INTEL_PT, TRACE_CS_ETM };

static bool decodes(enum trace_kind kind)
{
#ifdef HAVE_LIBIPT
	if (kind != TRACE_CS_ETM)
		return true;
#endif
#ifdef HAVE_OPENCSD
	if (kind == TRACE_CS_ETM)
		return true;
#endif
	return false;
}

static const char no_decoder[] = "no decoder of its trace on this architecture";

/* The trace of AUX PMU @type */
static enum trace_kind trace_kind_of(int type)
{
	if (type == ptsim_type())
		return TRACE_PTSIM;
	if (type == ptsim_pmu_type("cs_etm"))
		return TRACE_CS_ETM;
	return TRACE_INTEL_PT;
}

/* A sampler of the hidden AUX event of PMU @type that opens, on task-clock. */
static void sampler_of_errors_attr(struct perf_event_attr *attr, int type)
{
	ptsim_sampler_attr(attr, PERF_COUNT_SW_TASK_CLOCK, PERIOD_NS,
			   PERF_SAMPLE_IP, SAMPLE_SIZE);
	attr->aux_sample_type = type;
}

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
	sampler_of_errors_attr(&self->attr, self->type);
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
	/* As unknown as the bytes past its attr are to Linux 6.1: E2BIG. */
	self->attr.__reserved_4 = 1;
	ASSERT_EQ(open_errno(&self->attr, -1), E2BIG);

	/* For any event. */
	plain_attr(&plain);
	ASSERT_EQ(open_errno(&plain, -1), 0);
	plain.__reserved_4 = 1ULL << 63;
	ASSERT_EQ(open_errno(&plain, -1), E2BIG);
}

TEST_F(aux_sample_errors, unknown_aux_sample_flags)
{
	struct perf_event_attr plain;

	if (_metadata->skip)
		return;
	self->attr.aux_sample_flags = PERF_AUX_SAMPLE_NEW << 1;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
	/* New trace is told by positions. */
	self->attr.aux_sample_flags = PERF_AUX_SAMPLE_NEW;
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

/* A counting event takes no samples to put trace in. */
TEST_F(aux_sample_errors, counting_event)
{
	if (_metadata->skip)
		return;
	self->attr.sample_period = 0;
	ASSERT_EQ(open_errno(&self->attr, -1), EINVAL);
}

/* A PMU that cannot set up the hidden event's buffer. */
TEST_F(aux_sample_errors, setup_aux_fails)
{
	if (_metadata->skip)
		return;
	ASSERT_EQ(ptsim_knob_set("fail_setup_aux", true), 0);
	EXPECT_EQ(open_errno(&self->attr, -1), ENOMEM);
	ASSERT_EQ(ptsim_knob_set("fail_setup_aux", false), 0);
	ASSERT_EQ(open_errno(&self->attr, -1), 0);
}

/* The first line of @path, "" if it cannot be read. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
}

/* Support is told in sysfs, not left to errnos. */
TEST_F(aux_sample_errors, caps_in_sysfs)
{
	char buf[64];

	if (_metadata->skip)
		return;
	read_line("/sys/bus/event_source/aux_sample_flags", buf, sizeof(buf));
	EXPECT_STREQ(buf, "0x3\n");
	read_line(PTSIM_SYSFS "/caps/aux_sample", buf, sizeof(buf));
	EXPECT_STREQ(buf, "1\n");
	read_line(PTSIM_SYSFS "/caps/aux_position", buf, sizeof(buf));
	EXPECT_STREQ(buf, "1\n");
	/* ptsim's own caps are still there. */
	EXPECT_EQ(access(PTSIM_SYSFS "/caps/max_subleaf", F_OK), 0);
	/* A PMU without an AUX area has neither. */
	EXPECT_NE(access("/sys/bus/event_source/devices/software/caps/aux_sample",
			 F_OK), 0);
}

/*
 * Spin until the ring buffer holds @nr samples of SAMPLE_SIZE bytes of
 * trace, for 3 s at most: on a loaded machine the task may run for far
 * less than the time it spins, and a kernel that finds its samples slow
 * to take lowers perf_event_max_sample_rate, down to one sample a tick
 * (HZ), throttling a sampler of PERIOD_NS.
 */
static void spin_for_samples(const struct ptsim_map *m, unsigned int nr)
{
	for (int i = 0; i < 100; i++) {
		ptsim_spin(30);
		if (__atomic_load_n(&m->pg->data_head, __ATOMIC_ACQUIRE) >=
		    nr * SAMPLE_SIZE)
			return;
	}
}

/* Take @nr samples into a fresh ring buffer of @fd, which is enabled. */
static int sample_for(int fd, struct ptsim_map *data, unsigned int nr)
{
	if (ptsim_map(fd, data, 256, 0, false))
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -1;
	spin_for_samples(data, nr);
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * A PMU that reports positions but has no trace to give writes a header
 * and padding: the sample carries no trace, and counts as a miss.
 */
TEST_F(aux_sample_errors, no_trace_is_a_miss)
{
	struct ptsim_samples ss = {};
	struct ptsim_map data;
	uint64_t misses = 0;
	int fd;

	if (_metadata->skip)
		return;
	self->attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
	fd = ptsim_open(&self->attr, 0, -1, -1);
	ASSERT_GE(fd, 0) TH_LOG("sampler: %s", strerror(errno));
	ASSERT_EQ(ptsim_knob_set("snapshot_no_trace", true), 0);
	EXPECT_EQ(sample_for(fd, &data, 1), 0);
	ASSERT_EQ(ptsim_knob_set("snapshot_no_trace", false), 0);
	ASSERT_GT(ptsim_read_samples(&data, PERF_SAMPLE_IP | PERF_SAMPLE_AUX,
				     &ss, NULL), 0);
	ASSERT_EQ(ptsim_fdinfo_u64(fd, "aux_sample_misses", &misses), 0);
	EXPECT_EQ(misses, ss.nr);
	ptsim_samples_free(&ss);
	ptsim_unmap(&data);
	close(fd);
}

/* Whether the @len bytes at @p are all zero. */
static bool all_zero(const uint8_t *p, size_t len)
{
	while (len--) {
		if (*p++)
			return false;
	}
	return true;
}

/*
 * A PMU that reports positions may also write nothing, not even a header,
 * when it has no trace: the core fills the field with zero bytes (with
 * positions, a header that reports no trace), and the sample counts as a
 * miss, with positions or without.
 */
TEST_F(aux_sample_errors, no_position_is_a_miss)
{
	static const uint32_t flags[] = { 0, PERF_AUX_SAMPLE_POSITION };
	struct ptsim_samples ss;
	struct ptsim_map data;
	uint64_t misses, len;
	size_t i, k, sized, carrying;
	int fd;

	if (_metadata->skip)
		return;
	for (k = 0; k < ARRAY_SIZE(flags); k++) {
		self->attr.aux_sample_flags = flags[k];
		len = SAMPLE_SIZE + (flags[k] ?
			sizeof(struct perf_aux_sample_position) : 0);
		fd = ptsim_open(&self->attr, 0, -1, -1);
		ASSERT_GE(fd, 0) TH_LOG("sampler: %s", strerror(errno));
		ASSERT_EQ(ptsim_knob_set("no_positions", true), 0);
		EXPECT_EQ(sample_for(fd, &data, 1), 0);
		ASSERT_EQ(ptsim_knob_set("no_positions", false), 0);
		memset(&ss, 0, sizeof(ss));
		ASSERT_GT(ptsim_read_samples(&data,
					     PERF_SAMPLE_IP | PERF_SAMPLE_AUX,
					     &ss, NULL), 0);
		/* Samples that were not sized for trace have no field. */
		for (i = sized = carrying = 0; i < ss.nr; i++) {
			struct ptsim_stream *aux = &ss.s[i].aux;

			if (!aux->len)
				continue;
			sized++;
			EXPECT_EQ(aux->len, len);
			if (!all_zero(aux->data, aux->len))
				carrying++;
		}
		EXPECT_GT(sized, 0);
		EXPECT_EQ(carrying, 0) TH_LOG("flags %#x: %zu of %zu samples carry data",
					      flags[k], carrying, sized);
		ASSERT_EQ(ptsim_fdinfo_u64(fd, "aux_sample_misses", &misses),
			  0);
		EXPECT_EQ(misses, ss.nr) TH_LOG("flags %#x", flags[k]);
		ptsim_samples_free(&ss);
		ptsim_unmap(&data);
		close(fd);
	}
}

#define PT_PSB_LEN	16
#define PT_TSC_OPC	0x19
#define TSC_MASK	((1ULL << 56) - 1)	/* a TSC packet's 7 bytes */

/* The TSC of the last PSB+ in @s, -1 if it has none. */
static int64_t last_psb_tsc(const struct ptsim_stream *s)
{
	static const uint8_t psb[2] = { 0x02, 0x82 };
	uint64_t tsc = 0;
	size_t i, j;

	for (i = s->len; i-- > 0;) {
		if (i + PT_PSB_LEN + 8 > s->len)
			continue;
		for (j = 0; j < PT_PSB_LEN; j++)
			if (s->data[i + j] != psb[j % 2])
				break;
		if (j < PT_PSB_LEN || s->data[i + PT_PSB_LEN] != PT_TSC_OPC)
			continue;
		memcpy(&tsc, s->data + i + PT_PSB_LEN + 1, 7);
		return le64toh(tsc);
	}
	return -1;
}

/*
 * The hidden event keeps the sampler's clock: CLOCK_TAI, far from the
 * default perf clock, so that the trace's time stamps (ptsim writes the
 * perf clock into its TSC packets) are those of the samples.
 */
TEST_F(aux_sample_errors, trace_time_follows_clockid)
{
	struct ptsim_samples ss = {};
	struct ptsim_map data;
	int fd, checked = 0;
	int64_t tsc;
	size_t i;

	if (_metadata->skip)
		return;
	self->attr.sample_type |= PERF_SAMPLE_TIME;
	self->attr.use_clockid = 1;
	self->attr.clockid = CLOCK_TAI;
	fd = ptsim_open(&self->attr, 0, -1, -1);
	ASSERT_GE(fd, 0) TH_LOG("sampler: %s", strerror(errno));
	EXPECT_EQ(sample_for(fd, &data, 30), 0);
	ASSERT_GT(ptsim_read_samples(&data, PERF_SAMPLE_IP | PERF_SAMPLE_TIME |
				     PERF_SAMPLE_AUX, &ss, NULL), 0);
	for (i = 0; i < ss.nr; i++) {
		uint64_t ago;

		tsc = last_psb_tsc(&ss.s[i].aux);
		if (tsc < 0)
			continue;
		/* The PSB+ came before the sample, by less than a second. */
		ago = (ss.s[i].time - tsc) & TSC_MASK;
		EXPECT_LT(ago, 1000000000ULL)
			TH_LOG("sample %zu at %llu: PSB+ TSC %llu", i,
			       (unsigned long long)ss.s[i].time,
			       (unsigned long long)tsc);
		checked++;
	}
	EXPECT_GT(checked, 5);
	ptsim_samples_free(&ss);
	ptsim_unmap(&data);
	close(fd);
}

/* What check_samples() decodes with */
struct decoder {
	enum trace_kind		kind;
	struct ptsim_ranges	text;	/* this process's code */
#ifdef HAVE_LIBIPT
	struct pt_image		*image;	/* intel_pt's: libipt's view of it */
#endif
#ifdef HAVE_OPENCSD
	ocsd_ete_cfg		ete;	/* cs_etm's: the ETE's ID registers */
#endif
};

/* 0, or -1 with the reason in @why. */
static int decoder_init(struct decoder *d, enum trace_kind kind, char *why,
			size_t len)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->kind = kind;
	if (!decodes(kind)) {
		snprintf(why, len, "%s", no_decoder);
		return -1;
	}
	ret = ptsim_text_ranges(&d->text);
	if (ret) {
		snprintf(why, len, "/proc/self/maps: %s", strerror(-ret));
		return -1;
	}
#ifdef HAVE_LIBIPT
	if (kind == TRACE_INTEL_PT)
		d->image = ptsim_self_image(&d->text);
	if (kind == TRACE_INTEL_PT && !d->image) {
		snprintf(why, len, "no libipt image of this process");
		return -1;
	}
#endif
#ifdef HAVE_OPENCSD
	if (kind == TRACE_CS_ETM && cs_etm_ete_config(&d->ete)) {
		snprintf(why, len, "no ETE ID registers in sysfs");
		return -1;
	}
#endif
	return 0;
}

static void decoder_fini(struct decoder *d)
{
#ifdef HAVE_LIBIPT
	if (d->image)
		pt_image_free(d->image);
#endif
	ptsim_ranges_free(&d->text);
}

/*
 * Decode the trace of sample @s and check it: ptsim's decodes with
 * contiguous sequence numbers and user IPs only; Intel PT decodes over
 * this process's code and, if it holds an instruction, ends at the
 * sample's IP (ptsim_flow_check()); ETE decodes over this process's code
 * only and, if it holds an instruction, ends with the exception that took
 * the sample at its IP.  Returns 0 with the records or instructions it
 * holds in @insns, or -1 with the reason in @why.
 */
static int decode_sample(struct decoder *d, const struct ptsim_sample *s,
			 uint64_t *insns, char *why, size_t len)
{
	*insns = 0;
#ifdef HAVE_LIBIPT
	if (d->kind == TRACE_PTSIM) {
		struct ptsim_trace t = {};
		int ret = ptsim_sample_trace(s, &t, &d->text);

		if (ret)
			snprintf(why, len, "%s", t.error);
		*insns = t.nr;
		ptsim_trace_free(&t);
		return ret;
	}
	if (d->kind == TRACE_INTEL_PT) {
		struct ptsim_flow f;

		snprintf(why, len, "no instruction");
		if (ptsim_flow_check(s->aux.data, s->aux.len, s->ip, d->image,
				     &f, why, len))
			return -1;
		*insns = f.insns;
		return 0;
	}
#endif
#ifdef HAVE_OPENCSD
	if (d->kind == TRACE_CS_ETM) {
		struct cs_etm_flow f = { .text = &d->text };

		if (cs_etm_decode(s->aux.data, s->aux.len, &d->ete, &f, why,
				  len))
			return -1;
		*insns = f.ranges;
		if (f.outside)
			snprintf(why, len, "%zu of %zu ranges not in our code, e.g. %#llx",
				 f.outside, f.ranges,
				 (unsigned long long)f.outside_at);
		else if (f.nacc)
			snprintf(why, len, "code at %#llx not readable",
				 (unsigned long long)f.nacc_at);
		else if (f.ranges && !cs_etm_ends_at(&f, s->ip))
			snprintf(why, len, "ip %#llx: exception to %#llx, %zu ranges after",
				 (unsigned long long)s->ip,
				 (unsigned long long)f.exc_ret, f.after);
		else
			return 0;
		return -1;
	}
#endif
	snprintf(why, len, "%s", no_decoder);
	return -1;
}

/*
 * Read the samples in @m and check each: @size bytes of trace that
 * decode_sample() takes.  With @first_empty, the first samples may have
 * no records or instructions yet, but not all: a task clock that expires
 * in the enabling ioctl, or whose interrupts under TCG on a loaded host
 * take longer than its period, samples at the return to user mode,
 * before the task ran an instruction.  Returns the number of samples,
 * or -1 with the reason in @why.
 */
static int check_samples(struct ptsim_map *m, uint64_t sample_type,
			 size_t size, bool first_empty, enum trace_kind kind,
			 char *why, size_t len)
{
	struct ptsim_samples ss = {};
	bool started = !first_empty;	/* a sample had records */
	struct decoder d;
	char what[200];
	uint64_t lost = 0, insns;
	int ret, i;

	if (decoder_init(&d, kind, why, len)) {
		decoder_fini(&d);
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
		} else if (decode_sample(&d, &ss.s[i], &insns, what,
					 sizeof(what))) {
			snprintf(why, len, "sample %d: %s", i, what);
			ret = -1;
		} else if (!insns && started) {
			snprintf(why, len, "sample %d: no records or instructions",
				 i);
			ret = -1;
		}
		started |= insns > 0;
	}
	if (ret > 0 && !started) {
		snprintf(why, len, "no sample has trace");
		ret = -1;
	}
	if (lost)
		ret = -1;
	decoder_fini(&d);
	ptsim_samples_free(&ss);
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
	if (!decodes(TRACE_PTSIM))
		SKIP(return, "ptsim: %s", no_decoder);
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
	spin_for_samples(&data, 20);
	ASSERT_EQ(ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP),
		  0);

	/* The leader traced from the enable only. */
	nr = check_samples(&data, PERF_SAMPLE_IP, SAMPLE_SIZE, true,
			   TRACE_PTSIM, why, sizeof(why));
	EXPECT_GE(nr, 20) TH_LOG("%s", why);

	ptsim_unmap(&data);
	ptsim_unmap(&aux);
	close(fd);
	close(leader);
}

/*
 * A user stack dump as large as a sample record can hold: the kernel cuts
 * it to what fits with the fields around it, and the trace gets what room
 * is left, which is none.
 */
#define STACK_FILLS_RECORD	65488
#define FULL_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_STACK_USER)

/*
 * Sample with @attr (in group @group, which @leader enables, or alone) and
 * check that every record parses and that no sample carries trace.
 * Returns the number of samples, or -1 with the reason in @why.
 */
static int full_stack_samples(struct perf_event_attr *attr, int group,
			      char *why, size_t len)
{
	int enabler, fd, nr = -1;
	struct ptsim_samples ss = {};
	struct ptsim_map data;
	size_t i;

	fd = ptsim_open(attr, 0, -1, group);
	if (fd < 0) {
		snprintf(why, len, "sampler: %s", strerror(errno));
		return -1;
	}
	if (ptsim_map(fd, &data, 256, 0, false)) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		goto out_close;
	}
	enabler = group >= 0 ? group : fd;
	if (ioctl(enabler, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP)) {
		snprintf(why, len, "enable: %s", strerror(errno));
		goto out_unmap;
	}
	ptsim_spin(20);
	ioctl(enabler, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	nr = ptsim_read_samples(&data, FULL_TYPE | PERF_SAMPLE_AUX, &ss, NULL);
	if (nr < 0)
		snprintf(why, len, "bad ring buffer: %s", strerror(-nr));
	for (i = 0; nr > 0 && i < ss.nr; i++) {
		if (ss.s[i].aux.len) {
			snprintf(why, len, "sample %zu: %zu bytes of trace",
				 i, ss.s[i].aux.len);
			nr = -1;
		} else if (!ss.s[i].stack) {
			snprintf(why, len, "sample %zu: no user stack", i);
			nr = -1;
		}
	}
	ptsim_samples_free(&ss);
out_unmap:
	ptsim_unmap(&data);
out_close:
	close(fd);
	return nr;
}

/*
 * Records past 64 KiB: the AUX size word and position header come after a
 * user stack that took all the room.  Without the trace the same attr gives
 * records of 65528 bytes; the AUX field must not wrap the record's u16 size
 * (upstream's group form included) but carry no trace.
 */
TEST_F(aux_sample_errors, stack_fills_record)
{
	char why[256] = "";
	int leader;
	struct ptsim_map aux;

	if (_metadata->skip)
		return;
	self->attr.sample_type = FULL_TYPE | PERF_SAMPLE_AUX;
	self->attr.sample_stack_user = STACK_FILLS_RECORD;

	EXPECT_GT(full_stack_samples(&self->attr, -1, why, sizeof(why)), 0)
		TH_LOG("hidden form: %s", why);

	self->attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;
	EXPECT_GT(full_stack_samples(&self->attr, -1, why, sizeof(why)), 0)
		TH_LOG("hidden form, positions: %s", why);

	self->attr.aux_sample_flags = 0;
	self->attr.aux_sample_type = 0;
	self->attr.disabled = 0;
	leader = open_leader(self->type);
	ASSERT_GE(leader, 0) TH_LOG("ptsim: %s", strerror(errno));
	ASSERT_EQ(ptsim_map(leader, &aux, 1, 8, true), 0);
	EXPECT_GT(full_stack_samples(&self->attr, leader, why, sizeof(why)), 0)
		TH_LOG("group form: %s", why);
	ptsim_unmap(&aux);
	close(leader);
}

/*
 * Unprivileged use of each AUX PMU that can serve: a child that is user
 * and group nobody, without capabilities, at perf_event_paranoid 2 (and
 * allowed to use ptsim).  The sysctls and ptsim's knob are set here and
 * restored by the teardown.
 */
FIXTURE(aux_sample_unpriv)
{
	int			type;
	bool			ptsim;
	long			paranoid, mlock_kb;
	bool			paranoid_saved, mlock_saved;
	bool			unprivileged;	/* ptsim's debugfs knob */
	struct perf_event_attr	attr;
};

FIXTURE_VARIANT(aux_sample_unpriv)
{
	const char	*pmu;
};

FIXTURE_VARIANT_ADD(aux_sample_unpriv, ptsim)
{
	.pmu = "ptsim",
};

FIXTURE_VARIANT_ADD(aux_sample_unpriv, intel_pt)
{
	.pmu = "intel_pt",
};

FIXTURE_VARIANT_ADD(aux_sample_unpriv, cs_etm)
{
	.pmu = "cs_etm",
};

/* Why a case does not run on intel_pt or cs_etm */
static const char pmu_exclusive[] =
	"an exclusive PMU: one hidden event of it per task, EBUSY for more";

FIXTURE_SETUP(aux_sample_unpriv)
{
	self->type = ptsim_pmu_type(variant->pmu);
	if (self->type < 0)
		SKIP(return, "no %s PMU", variant->pmu);
	self->ptsim = self->type == ptsim_type();
	if (self->ptsim && !ptsim_can_sample())
		SKIP(return, "ptsim is a module: no AUX sampling");
#ifdef HAVE_OPENCSD
	if (trace_kind_of(self->type) == TRACE_CS_ETM &&
	    access(CS_ETM_TRBE_SYSFS, F_OK))
		SKIP(return, "no TRBE, the only sink that fills AUX samples");
#endif
	if (geteuid())
		SKIP(return, "needs root to set sysctls and become nobody");
	sampler_of_errors_attr(&self->attr, self->type);

	ASSERT_EQ(ptsim_sysctl_get("perf_event_paranoid", &self->paranoid), 0);
	ASSERT_EQ(ptsim_sysctl_get("perf_event_mlock_kb", &self->mlock_kb), 0);
	if (self->ptsim)
		ASSERT_EQ(ptsim_knob_get("unprivileged", &self->unprivileged),
			  0);
	/* Last: the teardown does not run if the setup fails. */
	ASSERT_EQ(ptsim_sysctl_set("perf_event_paranoid", 2), 0);
	self->paranoid_saved = true;
	if (self->ptsim)
		ASSERT_EQ(ptsim_knob_set("unprivileged", true), 0);
}

FIXTURE_TEARDOWN(aux_sample_unpriv)
{
	if (self->paranoid_saved)
		EXPECT_EQ(ptsim_sysctl_set("perf_event_paranoid",
					   self->paranoid), 0);
	if (self->mlock_saved)
		EXPECT_EQ(ptsim_sysctl_set("perf_event_mlock_kb",
					   self->mlock_kb), 0);
	if (self->paranoid_saved && self->ptsim)
		EXPECT_EQ(ptsim_knob_set("unprivileged", self->unprivileged),
			  0);
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
	spin_for_samples(&data, 10);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		return 3;
	nr = check_samples(&data, PERF_SAMPLE_IP, SAMPLE_SIZE, true,
			   trace_kind_of(attr->aux_sample_type), why,
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
	ASSERT_EQ(ptsim_as_nobody(nobody_open, &self->attr, PTSIM_KEEP_MEMLOCK), 0);
	self->attr.exclude_kernel = 0;
	ASSERT_EQ(ptsim_as_nobody(nobody_open, &self->attr, PTSIM_KEEP_MEMLOCK), EACCES);
}

/*
 * User-only trace, all of which is this task's user text; on intel_pt and
 * cs_etm, each sample's trace ends at the sample (a task clock interrupt).
 */
TEST_F(aux_sample_unpriv, user_only_samples_decode)
{
	if (_metadata->skip)
		return;
	if (!decodes(trace_kind_of(self->type)))
		SKIP(return, "%s: %s", variant->pmu, no_decoder);
	/* Room for the ring buffer and the hidden event's buffer. */
	self->mlock_saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", 516), 0);
	ASSERT_EQ(ptsim_as_nobody(nobody_samples, &self->attr, PTSIM_KEEP_MEMLOCK), 0);
}

TEST_F(aux_sample_unpriv, mlock_limit_is_eperm)
{
	struct perf_event_attr plain = self->attr;

	if (_metadata->skip)
		return;
	self->mlock_saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", 0), 0);
	ASSERT_EQ(ptsim_as_nobody(nobody_open, &self->attr, 0), EPERM);

	/* The same sampler without a buffer to charge opens. */
	plain.sample_type &= ~PERF_SAMPLE_AUX;
	plain.aux_sample_size = 0;
	plain.aux_sample_type = 0;
	ASSERT_EQ(ptsim_as_nobody(nobody_open, &plain, 0), 0);

	/* And root may go over the limits (CAP_IPC_LOCK). */
	ASSERT_EQ(open_errno(&self->attr, -1), 0);
}

/*
 * The user's allowance for hidden buffers: perf_event_mlock_kb per online
 * CPU, plus one RLIMIT_MEMLOCK, whatever becomes of the processes and fds
 * that charged it.  A sampler of SAMPLE_SIZE bytes charges three pages (its
 * hidden event's two AUX pages and the buffer's user page).
 */
#define LIMIT_MLOCK_KB		16
#define LIMIT_MEMLOCK		(64 << 10)
#define SAMPLER_PAGES		3

static int allowed_samplers(void)
{
	long page = sysconf(_SC_PAGESIZE);
	long pages = LIMIT_MLOCK_KB * 1024 / page *
		     sysconf(_SC_NPROCESSORS_ONLN) + LIMIT_MEMLOCK / page;

	return pages / SAMPLER_PAGES;
}

/* A ptsim config valid for every @k below 96, different for each. */
static uint64_t ptsim_distinct_config(int k)
{
	static const uint64_t bit[] = { 1 << 5, 1 << 10, 1 << 12, 1 << 13 };
	uint64_t config = PTSIM_PSB_PERIOD(k % 6);
	int i;

	for (i = 0; i < 4; i++)
		if ((k / 6) & (1 << i))
			config |= bit[i];
	return config;
}

#define RTIT_CTL_TSC_EN		0x400ULL
#define RTIT_CTL_DISRETC	0x800ULL

/*
 * An Intel PT config, different for each @k below 4: TSCEn and DisRETC,
 * which every part takes.  intel_pt is exclusive, a task has one hidden
 * intel_pt event, and no test here opens more than two.
 */
static uint64_t pt_distinct_config(int k)
{
	return (k & 1 ? RTIT_CTL_TSC_EN : 0) | (k & 2 ? RTIT_CTL_DISRETC : 0);
}

#define ETM_OPT_CTXTID		0x4000ULL
#define ETM_OPT_TS		0x10000000ULL

/*
 * A cs_etm config, different for each @k below 4: context IDs and
 * timestamps, which perf itself asks for.  cs_etm is exclusive too.
 */
static uint64_t cs_etm_distinct_config(int k)
{
	return (k & 1 ? ETM_OPT_CTXTID : 0) | (k & 2 ? ETM_OPT_TS : 0);
}

/* A config of PMU @type for hidden event @k, different for each. */
static uint64_t distinct_config(int type, int k)
{
	switch (trace_kind_of(type)) {
	case TRACE_PTSIM:
		return ptsim_distinct_config(k);
	case TRACE_CS_ETM:
		return cs_etm_distinct_config(k);
	default:
		return pt_distinct_config(k);
	}
}

/* Most samplers a test opens: far past the allowance, were it not kept. */
static int max_samplers(void)
{
	return 3 * allowed_samplers() + 1;
}

static int send_fd(int sock, int fd)
{
	char buf[CMSG_SPACE(sizeof(int))] = {}, byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char buf[CMSG_SPACE(sizeof(int))] = {}, byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * Short-lived children each open a sampler on themselves, hand its fd to
 * this task and exit, until one is refused with EPERM.  Returns how many
 * fds this task then held (all closed again), or -1.
 */
static int samplers_from_children(struct perf_event_attr *attr)
{
	int i, n, fd, status, sv[2], max = max_samplers(), fds[max];
	int err = 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return -1;
	for (n = 0; n < max && !err; n++) {
		pid = fork();
		if (!pid) {
			fd = ptsim_open(attr, 0, -1, -1);
			if (fd < 0)
				_exit(errno);
			_exit(send_fd(sv[1], fd) ? 255 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status))
			err = 255;
		else
			err = WEXITSTATUS(status);
		if (!err)
			fds[n] = recv_fd(sv[0]);
		if (!err && fds[n] < 0)
			err = 255;
	}
	if (err) {
		n--;
		if (err != EPERM) {
			fprintf(stderr, "# child %d: error %d\n", n, err);
			n = -1;
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	close(sv[0]);
	close(sv[1]);
	return n;
}

/*
 * The fd-passing round twice: the second must get as many samplers as the
 * first, so closing the fds gave everything back.  Exits with the number.
 */
static int nobody_fd_passing(struct perf_event_attr *attr)
{
	int first = samplers_from_children(attr);
	int second = samplers_from_children(attr);

	if (first != second) {
		fprintf(stderr, "# %d samplers, then %d\n", first, second);
		return 255;
	}
	return first;
}

TEST_F(aux_sample_unpriv, mlock_limit_holds_across_fd_passing)
{
	if (_metadata->skip)
		return;
	self->mlock_saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", LIMIT_MLOCK_KB), 0);
	ASSERT_EQ(ptsim_as_nobody(nobody_fd_passing, &self->attr, LIMIT_MEMLOCK),
		  allowed_samplers());
}

/*
 * Open samplers of distinct hidden events on this task, from number
 * @first, until one is refused with EPERM.  Returns how many opened (and
 * stay open), or -1.
 */
static int open_distinct_samplers(struct perf_event_attr *attr, int first)
{
	int k;

	for (k = first; k < max_samplers(); k++) {
		attr->aux_sample_config = distinct_config(attr->aux_sample_type,
							  k);
		if (ptsim_open(attr, 0, -1, -1) >= 0)
			continue;
		if (errno != EPERM) {
			fprintf(stderr, "# sampler %d: %s\n", k,
				strerror(errno));
			return -1;
		}
		break;
	}
	return k - first;
}

/*
 * Two samplers of different configs on this task, which want two hidden
 * events.  Returns 0 if both open, else the errno of the second (or 255).
 */
static int nobody_two_configs(struct perf_event_attr *attr)
{
	int fd, err;

	attr->aux_sample_config = distinct_config(attr->aux_sample_type, 0);
	fd = ptsim_open(attr, 0, -1, -1);
	if (fd < 0)
		return 255;
	attr->aux_sample_config = distinct_config(attr->aux_sample_type, 1);
	err = open_errno(attr, -1);
	close(fd);
	return err;
}

/*
 * ptsim takes any number of hidden events on a task; an exclusive PMU
 * (intel_pt, cs_etm) refuses a second one with EBUSY, as it does a second
 * event of its own there.
 */
TEST_F(aux_sample_unpriv, one_hidden_event_per_task_if_exclusive)
{
	if (_metadata->skip)
		return;
	ASSERT_EQ(ptsim_as_nobody(nobody_two_configs, &self->attr,
				  PTSIM_KEEP_MEMLOCK), self->ptsim ? 0 : EBUSY);
}

#define EXEC_ENV	"AUX_SAMPLE_EXECS"
#define EXECS		3

/*
 * Open samplers until refused, then exec this program, which does the same
 * (exec_stage()) with the fds still open, EXECS times.  The last image
 * exits with the number of samplers opened in all.
 */
static int exec_round(struct perf_event_attr *attr, int left, int opened)
{
	char env[64];
	int n = open_distinct_samplers(attr, opened);

	if (n < 0)
		return 255;
	if (!left)
		return opened + n;
	snprintf(env, sizeof(env), "%d %d", left - 1, opened + n);
	setenv(EXEC_ENV, env, 1);
	execl("/proc/self/exe", "aux_sample_errors", NULL);
	return 254;
}

/* In an image exec_round() started: the next round. */
__attribute__((constructor)) static void exec_stage(void)
{
	const char *env = getenv(EXEC_ENV);
	struct perf_event_attr attr;
	int left, opened;

	if (!env)
		return;
	if (sscanf(env, "%d %d", &left, &opened) != 2)
		_exit(253);
	/* ptsim's: intel_pt and cs_etm do not run this case (pmu_exclusive) */
	sampler_of_errors_attr(&attr, ptsim_type());
	_exit(exec_round(&attr, left, opened));
}

/* Two exec rounds: the second gets as many as the first. */
static int nobody_exec(struct perf_event_attr *attr)
{
	int first, second;
	pid_t pid;

	for (int round = 0; round < 2; round++) {
		int status = 0;

		pid = fork();
		if (!pid)
			_exit(exec_round(attr, EXECS, 0));
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status))
			return 255;
		if (round)
			second = WEXITSTATUS(status);
		else
			first = WEXITSTATUS(status);
	}
	if (first != second) {
		fprintf(stderr, "# %d samplers, then %d\n", first, second);
		return 255;
	}
	return first;
}

TEST_F(aux_sample_unpriv, mlock_limit_holds_across_exec)
{
	if (_metadata->skip)
		return;
	if (!self->ptsim)
		SKIP(return, "%s", pmu_exclusive);
	self->mlock_saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", LIMIT_MLOCK_KB), 0);
	ASSERT_EQ(ptsim_as_nobody(nobody_exec, &self->attr, LIMIT_MEMLOCK),
		  allowed_samplers());
}

/*
 * A fork over the allowance: this task holds an inherited sampler and as
 * many other samplers as the allowance lets it open, so the child's copy
 * of the hidden event cannot get a buffer (the fork asks for CAP_IPC_LOCK
 * without an audit record).  The fork succeeds all the same, the copy is
 * dropped, and the child's samples carry no trace: each counts as a miss
 * of this task's sampler (which may have misses of its own).  Nothing was
 * charged for the copy, so nothing is given back: the allowance is still
 * used up once the child is gone.
 * Exits with 0, or the number of the check that failed.
 */
#define FORK_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID)
#define FORK_AUX_SIZE	64	/* small samples: none lost in 4 pages */

static int nobody_fork_over_allowance(struct perf_event_attr *attr)
{
	struct perf_event_attr inherited = *attr;
	struct ptsim_samples ss = {};
	uint64_t before, after, child = 0, lost = 0;
	struct ptsim_map data;
	int fd, n, status;
	size_t i;
	pid_t pid;

	/* An inherited event maps its ring buffer only if bound to a CPU. */
	inherited.inherit = 1;
	inherited.sample_type = FORK_TYPE | PERF_SAMPLE_AUX;
	inherited.aux_sample_size = FORK_AUX_SIZE;
	fd = ptsim_open(&inherited, 0, 0, -1);
	if (fd < 0 || ptsim_pin_cpu(0) || ptsim_map(fd, &data, 4, 0, false) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return 1;
	n = open_distinct_samplers(attr, 0);
	if (n < 0 || ptsim_fdinfo_u64(fd, "aux_sample_misses", &before))
		return 2;

	pid = fork();
	if (!pid) {
		ptsim_spin(30);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return 3;

	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) ||
	    ptsim_fdinfo_u64(fd, "aux_sample_misses", &after) ||
	    ptsim_read_samples(&data, FORK_TYPE | PERF_SAMPLE_AUX, &ss,
			       &lost) < 0 || lost)
		return 4;
	for (i = 0; i < ss.nr; i++) {
		if (ss.s[i].tid != (uint32_t)pid)
			continue;
		if (ss.s[i].aux.len)
			return 5;
		child++;
	}
	if (!child || after - before < child) {
		fprintf(stderr, "# %llu samples in the child, %llu misses\n",
			(unsigned long long)child,
			(unsigned long long)(after - before));
		return 6;
	}
	attr->aux_sample_config = distinct_config(attr->aux_sample_type, n);
	if (ptsim_open(attr, 0, -1, -1) >= 0 || errno != EPERM)
		return 7;
	return 0;
}

TEST_F(aux_sample_unpriv, fork_over_allowance_drops_copy)
{
	if (_metadata->skip)
		return;
	if (!self->ptsim)
		SKIP(return, "%s", pmu_exclusive);
	self->mlock_saved = true;
	ASSERT_EQ(ptsim_sysctl_set("perf_event_mlock_kb", LIMIT_MLOCK_KB), 0);
	ASSERT_EQ(ptsim_as_nobody(nobody_fork_over_allowance, &self->attr,
				  LIMIT_MEMLOCK), 0);
}

TEST_HARNESS_MAIN
