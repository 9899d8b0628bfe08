// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware trace recorder (kernel/events/trace_recorder.c): its tracefs
 * controls, every CPU's live trace with exact positions, freezing and
 * going on, CPU hotplug, and hwtrace= at boot; on ptsim, and on Intel PT
 * decoded with libipt to where it froze: the system call that wrote
 * tracing_on or hit the freeze_on_event tracepoint, or the instruction
 * of a freeze_on_event breakpoint; freeze_on_event on a counter's
 * overflow, in its NMI.
 *
 * The tests run as root, unpinned, and leave the recorder off with the
 * settings it had.  The kselftest_harness.h of this kernel runs a test even
 * when its fixture setup skipped it, so each test starts by checking
 * _metadata->skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <intel-pt.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define HW_DIR		"/sys/kernel/tracing/hwtrace"
#define HW_SIZE_KB	16
#define HW_GETPPID	"/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id"

static const char * const hw_knobs[] = {
	"pmu", "config", "buffer_size_kb", "mode", "freeze_on_event",
	"freeze_on_oops",
};

/* Write @val to hwtrace/@name, or to @name if absolute: 0 or -errno. */
static int hw_set(const char *name, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s%s", *name == '/' ? "" : HW_DIR "/",
		 name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Read hwtrace/@name, or @name if absolute, into @buf, without its newline. */
static int hw_get(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%s", *name == '/' ? "" : HW_DIR "/",
		 name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A CPU's trace file, read at once: header and trace. */
struct hw_copy {
	struct perf_hwtrace_header	hdr;
	uint8_t				*trace;
};

/* Read CPU @cpu's trace: 0, or -errno (-ENODATA: it has none). */
static int hw_read(int cpu, struct hw_copy *c)
{
	size_t cap = 2 * 1024 * 1024, len = 0;
	uint8_t *buf = malloc(cap);
	char path[128];
	ssize_t n;
	int fd;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), HW_DIR "/per_cpu/cpu%d/trace", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		free(buf);
		return fd < 0 ? -errno : -ENOMEM;
	}
	/* Small reads: the file is one snapshot, however it is read. */
	while ((n = read(fd, buf + len, 1000)) > 0 && len + n + 1000 < cap)
		len += n;
	close(fd);
	if (n < 0 || len < sizeof(c->hdr)) {
		free(buf);
		return -EIO;
	}
	memcpy(&c->hdr, buf, sizeof(c->hdr));
	if (c->hdr.hdr_size < sizeof(c->hdr) ||
	    c->hdr.hdr_size + c->hdr.size != len) {
		free(buf);
		return -EBADMSG;
	}
	c->trace = malloc(c->hdr.size + 1);
	memcpy(c->trace, buf + c->hdr.hdr_size, c->hdr.size);
	free(buf);
	return 0;
}

static void hw_copy_free(struct hw_copy *c)
{
	free(c->trace);
	c->trace = NULL;
}

/* Turn the recorder off and drop its buffers (a setting write does). */
static void hw_reset(void)
{
	char pmu[64];

	hw_set("tracing_on", "0");
	if (!hw_get("pmu", pmu, sizeof(pmu)) && *pmu)
		hw_set("pmu", pmu);
}

/*
 * Set the recorder up, off, for @pmu with @config in @mode, @size_kb a CPU,
 * frozen by tracepoint @trigger (an ID, or "none"): 0 or -errno.
 */
static int hw_configure(const char *pmu, const char *config, const char *mode,
			unsigned int size_kb, const char *trigger)
{
	char kb[16];
	int ret;

	hw_reset();
	snprintf(kb, sizeof(kb), "%u", size_kb);
	ret = hw_set("pmu", pmu);
	if (!ret)
		ret = hw_set("config", config);
	if (!ret)
		ret = hw_set("buffer_size_kb", kb);
	if (!ret)
		ret = hw_set("mode", mode);
	return ret ? ret : hw_set("freeze_on_event", trigger);
}

/* Start recording @pmu with @config in @mode: 0 or -errno. */
static int hw_start_kb(const char *pmu, const char *config, const char *mode,
		       unsigned int size_kb)
{
	int ret = hw_configure(pmu, config, mode, size_kb, "none");

	return ret ? ret : hw_set("tracing_on", "1");
}

static int hw_start(const char *pmu, const char *config, const char *mode)
{
	return hw_start_kb(pmu, config, mode, HW_SIZE_KB);
}

static int nr_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_CONF);
}

/* What every copy of a run says. */
static void check_header(struct __test_metadata *_metadata,
			 const struct hw_copy *c, int cpu, int type,
			 uint64_t config)
{
	ASSERT_EQ(PERF_HWTRACE_MAGIC, c->hdr.magic);
	ASSERT_EQ(PERF_HWTRACE_VERSION, c->hdr.version);
	ASSERT_EQ(cpu, c->hdr.cpu);
	ASSERT_EQ(type, c->hdr.type);
	ASSERT_EQ(config, c->hdr.config);
	ASSERT_NE(0, c->hdr.stream);
	ASSERT_LE(c->hdr.size, 1024 * 1024);
	ASSERT_EQ(!!c->hdr.offset, !!(c->hdr.flags & PERF_HWTRACE_WRAPPED));
	ASSERT_NE(0, c->hdr.time);
}

/* @c's trace decodes as ptsim's, records numbered without a gap. */
static void check_ptsim(struct __test_metadata *_metadata,
			const struct hw_copy *c)
{
	struct ptsim_stream s = {};
	struct ptsim_trace t;

	ptsim_stream_add(&s, c->trace, c->hdr.size, 0);
	ASSERT_EQ(0, ptsim_decode(&s, &t)) TH_LOG("cpu %u: %s", c->hdr.cpu,
						  t.error);
	ASSERT_LT(0, t.nr) TH_LOG("cpu %u: no records in %llu bytes",
				  c->hdr.cpu, (unsigned long long)c->hdr.size);
	ASSERT_GT(0, ptsim_unreported_gap(&s, &t))
		TH_LOG("cpu %u: records missing", c->hdr.cpu);
	ptsim_trace_free(&t);
	ptsim_stream_free(&s);
}

/*
 * Two copies of one stream agree byte for byte where they overlap: their
 * positions are exact.  Returns the bytes compared.
 */
static uint64_t check_overlap(struct __test_metadata *_metadata,
			      const struct hw_copy *a, const struct hw_copy *b)
{
	uint64_t from = a->hdr.offset > b->hdr.offset ? a->hdr.offset :
			b->hdr.offset;
	uint64_t end_a = a->hdr.offset + a->hdr.size;
	uint64_t end_b = b->hdr.offset + b->hdr.size;
	uint64_t to = end_a < end_b ? end_a : end_b;

	if (a->hdr.stream != b->hdr.stream || from >= to)
		return 0;
	EXPECT_EQ(0, memcmp(a->trace + (from - a->hdr.offset),
			    b->trace + (from - b->hdr.offset), to - from))
		TH_LOG("cpu %u: copies differ in [%llu, %llu)", a->hdr.cpu,
		       (unsigned long long)from, (unsigned long long)to);
	return to - from;
}

/*
 * Booted with hwtrace=PMU,size=KB (make check boots a guest so), the
 * recorder traces every CPU from boot with those settings.  First: the
 * fixture's tests turn it off.
 */
TEST(boot_param)
{
	char cmdline[4096], *arg, want[64], got[64];
	struct hw_copy c;
	unsigned int kb;
	int fd, cpu;
	ssize_t n;

	fd = open("/proc/cmdline", O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	ASSERT_LT(0, n);
	cmdline[n] = '\0';
	arg = strstr(cmdline, "hwtrace=");
	if (!arg || sscanf(arg, "hwtrace=%63[^,],size=%u", want, &kb) != 2)
		SKIP(return, "not booted with hwtrace=PMU,size=KB");

	ASSERT_EQ(0, hw_get("tracing_on", got, sizeof(got)));
	EXPECT_STREQ("1", got);
	ASSERT_EQ(0, hw_get("pmu", got, sizeof(got)));
	EXPECT_STREQ(want, got);
	ASSERT_EQ(0, hw_get("buffer_size_kb", got, sizeof(got)));
	EXPECT_EQ(kb, strtoul(got, NULL, 0));
	for (cpu = 0; cpu < nr_cpus(); cpu++) {
		ASSERT_EQ(0, hw_read(cpu, &c));
		check_header(_metadata, &c, cpu, ptsim_pmu_type(want), 0);
		/* Since boot, more than a buffer's worth. */
		EXPECT_TRUE(c.hdr.flags & PERF_HWTRACE_WRAPPED);
		EXPECT_EQ(kb * 1024, c.hdr.size);
		if (!strcmp(want, "ptsim"))
			check_ptsim(_metadata, &c);
		hw_copy_free(&c);
	}
}

FIXTURE(hwtrace) {
	char saved[ARRAY_SIZE(hw_knobs)][64];
	int ptsim;
};

FIXTURE_SETUP(hwtrace)
{
	size_t i;

	if (access(HW_DIR, F_OK))
		SKIP(return, "no hardware trace recorder (CONFIG_PERF_HWTRACE)");
	if (geteuid())
		SKIP(return, "the recorder is root's");
	for (i = 0; i < ARRAY_SIZE(hw_knobs); i++)
		ASSERT_EQ(0, hw_get(hw_knobs[i], self->saved[i],
				    sizeof(self->saved[i])));
	self->ptsim = ptsim_type();
	hw_reset();
}

FIXTURE_TEARDOWN(hwtrace)
{
	size_t i;

	if (_metadata->skip)
		return;
	hw_reset();
	for (i = 0; i < ARRAY_SIZE(hw_knobs); i++)
		if (*self->saved[i])
			hw_set(hw_knobs[i], self->saved[i]);
	hw_set("/sys/devices/system/cpu/cpu1/online", "1");
}

/* Root's files only; unprivileged users cannot even open them. */
static int nobody_opens(struct perf_event_attr *unused)
{
	static const char * const files[] = {
		HW_DIR "/tracing_on", HW_DIR "/pmu", HW_DIR "/per_cpu/cpu0/trace",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		if (open(files[i], O_RDONLY) >= 0 || errno != EACCES)
			return 1;
	return 0;
}

/* freeze_on_event set to @set reads back as @want */
static void check_trigger(struct __test_metadata *_metadata, const char *set,
			  const char *want)
{
	char got[192];

	ASSERT_EQ(0, hw_set("freeze_on_event", set));
	ASSERT_EQ(0, hw_get("freeze_on_event", got, sizeof(got)));
	EXPECT_STREQ(want, got);
}

TEST_F(hwtrace, settings)
{
	char big[64], id[32], tp[64];
	struct hw_copy c;

	if (_metadata->skip)
		return;
	if (self->ptsim < 0)
		SKIP(return, "no ptsim PMU");

	memset(big, 'a', 40);
	big[40] = '\0';
	EXPECT_EQ(-EINVAL, hw_set("pmu", ""));
	EXPECT_EQ(-EINVAL, hw_set("pmu", big));
	EXPECT_EQ(-EINVAL, hw_set("config", "x"));
	EXPECT_EQ(-EINVAL, hw_set("buffer_size_kb", "0"));
	EXPECT_EQ(-EINVAL, hw_set("buffer_size_kb", "1021"));
	EXPECT_EQ(-EINVAL, hw_set("mode", "nothing"));
	EXPECT_EQ(-EINVAL, hw_set("mode", ","));
	EXPECT_EQ(-EINVAL, hw_set("tracing_on", "2"));
	EXPECT_EQ(-EINVAL, hw_set("freeze_on_event", "x"));
	EXPECT_EQ(-EINVAL, hw_set("freeze_on_event", "18446744073709551615"));
	/* No tracepoint has that ID: perf says so */
	EXPECT_EQ(-EINVAL, hw_set("freeze_on_event", "4000000000"));
	EXPECT_EQ(-EINVAL, hw_set("freeze_on_event", "type=1,config=2,period=0"));
	EXPECT_EQ(-EINVAL, hw_set("freeze_on_event", "type=1,config"));
	EXPECT_EQ(-EINVAL, hw_set("freeze_on_event", "type=1,colour=2"));
	EXPECT_EQ(-EINVAL, hw_set("freeze_on_event", "type=4294967296"));
	EXPECT_EQ(-EINVAL, hw_set("freeze_on_event", "type=1,,config=2"));
	/* No PMU of that type */
	EXPECT_EQ(-ENOENT, hw_set("freeze_on_event", "type=4000,config=0"));
	check_trigger(_metadata, "type=1,config=0x2,period=5",
		      "type=1,config=0x2,config1=0x0,config2=0x0,bp_type=0,period=5");
	/* A tracepoint's reads as its ID alone */
	if (!hw_get(HW_GETPPID, id, sizeof(id))) {
		snprintf(tp, sizeof(tp), "type=2,config=%s", id);
		check_trigger(_metadata, tp, id);
	}
	EXPECT_EQ(0, hw_set("freeze_on_event", "none"));
	EXPECT_EQ(-ENODATA, hw_read(0, &c));

	/* A PMU that is not there, or cannot tell positions of its trace. */
	EXPECT_EQ(-ENOENT, hw_start("no_such_pmu", "0", "kernel,user"));
	EXPECT_EQ(-EOPNOTSUPP, hw_start("software", "0", "kernel,user"));
	EXPECT_EQ(-ENODATA, hw_read(0, &c));

	ASSERT_EQ(0, hw_start("ptsim", "0", "user"));
	EXPECT_EQ(-EBUSY, hw_set("buffer_size_kb", "32"));
	EXPECT_EQ(-EBUSY, hw_set("pmu", "intel_pt"));
	EXPECT_EQ(0, hw_set("tracing_on", "1"));
	EXPECT_EQ(0, ptsim_as_nobody(nobody_opens, NULL, PTSIM_KEEP_MEMLOCK));

	/* Frozen, a setting goes through and drops the trace. */
	EXPECT_EQ(0, hw_set("tracing_on", "0"));
	ASSERT_EQ(0, hw_read(0, &c));
	hw_copy_free(&c);
	EXPECT_EQ(0, hw_set("buffer_size_kb", "32"));
	EXPECT_EQ(-ENODATA, hw_read(0, &c));
}

/*
 * Every CPU's file gives its latest ptsim trace, read in small pieces:
 * whole records, none missing; read again later, the same stream, further
 * on, and the same bytes where the two copies overlap.  They must: a
 * 256 KiB buffer holds about a second of ptsim's records (a tick every
 * 100 us), and the reads are milliseconds apart.
 */
TEST_F(hwtrace, ptsim_live)
{
	struct hw_copy a, b;
	int cpu;

	if (_metadata->skip)
		return;
	if (self->ptsim < 0)
		SKIP(return, "no ptsim PMU");

	ASSERT_EQ(0, hw_start_kb("ptsim", "0", "kernel,user", 256));
	for (cpu = 0; cpu < nr_cpus(); cpu++) {
		ptsim_spin(20);
		ASSERT_EQ(0, hw_read(cpu, &a));
		ptsim_spin(2);
		ASSERT_EQ(0, hw_read(cpu, &b));
		check_header(_metadata, &a, cpu, self->ptsim, 0);
		check_header(_metadata, &b, cpu, self->ptsim, 0);
		EXPECT_EQ(PERF_HWTRACE_KERNEL | PERF_HWTRACE_USER,
			  a.hdr.flags & ~(PERF_HWTRACE_WRAPPED |
					  PERF_HWTRACE_TIME_ZERO));
		EXPECT_STREQ("ptsim", a.hdr.pmu);
		EXPECT_EQ(a.hdr.stream, b.hdr.stream);
		EXPECT_LT(a.hdr.offset + a.hdr.size, b.hdr.offset + b.hdr.size);
		EXPECT_LT(a.hdr.time, b.hdr.time);
		check_ptsim(_metadata, &a);
		check_ptsim(_metadata, &b);
		EXPECT_LT(0, check_overlap(_metadata, &a, &b))
			TH_LOG("cpu %d: the copies do not overlap", cpu);
		hw_copy_free(&a);
		hw_copy_free(&b);
	}
}

/* The header says where the kernel's text lies and which build it is. */
TEST_F(hwtrace, kernel_identity)
{
	unsigned long long addr, stext = 0;
	unsigned char note[4096];
	char line[256], type, name[128];
	struct hw_copy c;
	ssize_t n;
	FILE *f;
	int fd;

	if (_metadata->skip)
		return;
	if (self->ptsim < 0)
		SKIP(return, "no ptsim PMU");

	f = fopen("/proc/kallsyms", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_stext"))
			stext = addr;
	fclose(f);
	ASSERT_NE(0, stext);

	fd = open("/sys/kernel/notes", O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, note, sizeof(note));
	close(fd);

	ASSERT_EQ(0, hw_start("ptsim", "0", "kernel"));
	ASSERT_EQ(0, hw_read(0, &c));
	EXPECT_EQ(stext, c.hdr.kernel_text);
	EXPECT_EQ(PERF_HWTRACE_KERNEL,
		  c.hdr.flags & (PERF_HWTRACE_KERNEL | PERF_HWTRACE_USER));
	ASSERT_EQ(20, c.hdr.build_id_size);
	/* The GNU build-ID note: namesz 4, descsz 20, type 3, "GNU". */
	EXPECT_NE(NULL, memmem(note, n > 0 ? n : 0, c.hdr.build_id, 20));
	hw_copy_free(&c);
}

/*
 * tracing_on=0 freezes every CPU: its copy stays as it was, however long
 * and however often it is read.  1 goes on with the same streams.
 */
TEST_F(hwtrace, freeze_and_go_on)
{
	struct hw_copy a, b;
	int cpu;

	if (_metadata->skip)
		return;
	if (self->ptsim < 0)
		SKIP(return, "no ptsim PMU");

	ASSERT_EQ(0, hw_start("ptsim", "0", "kernel,user"));
	ptsim_spin(50);
	ASSERT_EQ(0, hw_set("tracing_on", "0"));
	for (cpu = 0; cpu < nr_cpus(); cpu++) {
		ASSERT_EQ(0, hw_read(cpu, &a));
		ptsim_spin(20);
		ASSERT_EQ(0, hw_read(cpu, &b));
		EXPECT_TRUE(a.hdr.flags & PERF_HWTRACE_FROZEN);
		EXPECT_FALSE(a.hdr.flags & PERF_HWTRACE_CRASH);
		EXPECT_EQ(0, memcmp(&a.hdr, &b.hdr, sizeof(a.hdr)));
		EXPECT_EQ(0, memcmp(a.trace, b.trace, a.hdr.size));
		check_ptsim(_metadata, &a);
		hw_copy_free(&b);

		ASSERT_EQ(0, hw_set("tracing_on", "1"));
		ptsim_spin(20);
		ASSERT_EQ(0, hw_read(cpu, &b));
		ASSERT_EQ(0, hw_set("tracing_on", "0"));
		EXPECT_FALSE(b.hdr.flags & PERF_HWTRACE_FROZEN);
		EXPECT_EQ(a.hdr.stream, b.hdr.stream);
		EXPECT_LT(a.hdr.offset + a.hdr.size, b.hdr.offset + b.hdr.size);
		hw_copy_free(&a);
		hw_copy_free(&b);
	}
}

/*
 * A CPU that goes offline keeps its trace up to there; back online it
 * traces again, in a new stream.
 */
TEST_F(hwtrace, hotplug)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	struct hw_copy off, on;

	if (_metadata->skip)
		return;
	if (self->ptsim < 0)
		SKIP(return, "no ptsim PMU");
	if (access(online, W_OK))
		SKIP(return, "CPU 1 cannot go offline");

	ASSERT_EQ(0, hw_start("ptsim", "0", "kernel,user"));
	ptsim_spin(20);
	ASSERT_EQ(0, hw_set(online, "0"));
	ptsim_spin(20);
	ASSERT_EQ(0, hw_read(1, &off));
	EXPECT_TRUE(off.hdr.flags & PERF_HWTRACE_FROZEN);
	check_ptsim(_metadata, &off);

	ASSERT_EQ(0, hw_set(online, "1"));
	ptsim_spin(50);
	ASSERT_EQ(0, hw_read(1, &on));
	EXPECT_FALSE(on.hdr.flags & PERF_HWTRACE_FROZEN);
	EXPECT_NE(off.hdr.stream, on.hdr.stream);
	check_ptsim(_metadata, &on);
	hw_copy_free(&off);
	hw_copy_free(&on);
}

/*
 * System call @nr(@a1, @a2, @a3); its return address in @after, where
 * user-mode tracing stops.
 */
static long syscall_here(long nr, long a1, const void *a2, long a3,
			 uint64_t *after)
{
	long ret;

	asm volatile("lea 1f(%%rip), %1\n"
		     "syscall\n"
		     "1:\n"
		     : "=a" (ret), "=&r" (*after)
		     : "0" (nr), "D" (a1), "S" (a2), "d" (a3)
		     : "rcx", "r11", "memory");
	return ret;
}

/* This process's code for libipt, and where ptsim_work() is */
struct hw_self {
	struct ptsim_ranges	text;
	struct pt_image		*image;
	struct ptsim_range	work;
};

static void hw_self_init(struct __test_metadata *_metadata,
			 struct hw_self *self)
{
	ASSERT_EQ(0, ptsim_text_ranges(&self->text));
	self->image = ptsim_self_image(&self->text);
	ASSERT_NE(NULL, self->image);
	ASSERT_EQ(0, ptsim_func_range("ptsim_work", (uintptr_t)ptsim_work,
				      &self->work));
}

static void hw_self_free(struct hw_self *self)
{
	pt_image_free(self->image);
	ptsim_ranges_free(&self->text);
}

/*
 * Whether @c's Intel PT, decoded by libipt over this process's code, is
 * ptsim_work() and then user-mode tracing stopped at @stop: where a
 * system call returns to, or the instruction a breakpoint hit.
 */
static bool ends_at(struct __test_metadata *_metadata, const struct hw_copy *c,
		    const struct hw_self *self, uint64_t stop)
{
	struct ptsim_flow f;
	bool worked = false;
	size_t i;

	ptsim_flow_decode(c->trace, c->hdr.size, self->image, &f);
	if (!f.insns || f.disabled_ip != stop)
		return false;
	EXPECT_EQ(0, f.error)
		TH_LOG("cpu %u: %s", c->hdr.cpu, pt_errstr(pt_errcode(f.error)));
	for (i = 0; i < PTSIM_FLOW_LAST; i++)
		worked |= ptsim_in_range(&self->work, ptsim_flow_ip(&f, i));
	EXPECT_TRUE(worked) TH_LOG("cpu %u: no work before %#llx", c->hdr.cpu,
				   (unsigned long long)stop);
	return true;
}

/*
 * Intel PT, user mode: the process works, then freezes the recorder by
 * writing tracing_on.  The CPU it did that on kept a trace that libipt
 * decodes, over this process's memory, to the work and then the system
 * call that froze it, and no other CPU's trace ends there.
 */
TEST_F(hwtrace, intel_pt_freeze)
{
	int type = ptsim_pmu_type("intel_pt"), found = 0, fd, cpu;
	struct hw_self me;
	struct hw_copy c;
	uint64_t after;

	if (_metadata->skip)
		return;
	if (type < 0)
		SKIP(return, "no intel_pt PMU");
	hw_self_init(_metadata, &me);

	ASSERT_EQ(0, hw_start("intel_pt", "0x2001", "user"));
	fd = open(HW_DIR "/tracing_on", O_WRONLY);
	ASSERT_LE(0, fd);
	ptsim_work(100000);
	ASSERT_EQ(1, syscall_here(SYS_write, fd, "0", 1, &after));
	close(fd);

	for (cpu = 0; cpu < nr_cpus(); cpu++) {
		ASSERT_EQ(0, hw_read(cpu, &c));
		check_header(_metadata, &c, cpu, type, 0x2001);
		EXPECT_TRUE(c.hdr.flags & PERF_HWTRACE_FROZEN);
		EXPECT_EQ(PERF_HWTRACE_USER,
			  c.hdr.flags & (PERF_HWTRACE_KERNEL | PERF_HWTRACE_USER));
		found += ends_at(_metadata, &c, &me, after);
		hw_copy_free(&c);
	}
	EXPECT_EQ(1, found);
	hw_self_free(&me);
}

/*
 * Whether the recorder froze within 10 s (the CPUs other than the one that
 * hit a trigger freeze from a work item), calling getppid() each 10 ms if
 * @poke.
 */
static bool hw_froze(bool poke)
{
	char on[8];
	int i;

	for (i = 0; i < 1000; i++) {
		if (poke)
			syscall(SYS_getppid);
		if (!hw_get("tracing_on", on, sizeof(on)) && !strcmp(on, "0"))
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * After a trigger froze the recorder of Intel PT (@type) in user mode:
 * every CPU's copy is frozen, exactly one flagged as the trigger's; returns
 * how many of those decode to the work and then end at @stop.
 */
static int trigger_ends_at(struct __test_metadata *_metadata,
			   const struct hw_self *me, int type, uint64_t stop)
{
	int cpu, ret, hit = 0, found = 0;
	struct hw_copy c;

	for (cpu = 0; cpu < nr_cpus(); cpu++) {
		ret = hw_read(cpu, &c);
		EXPECT_EQ(0, ret) TH_LOG("cpu %d: no copy", cpu);
		if (ret)
			continue;
		check_header(_metadata, &c, cpu, type, 0x2001);
		EXPECT_TRUE(c.hdr.flags & PERF_HWTRACE_FROZEN);
		if (c.hdr.flags & PERF_HWTRACE_TRIGGER) {
			hit++;
			found += ends_at(_metadata, &c, me, stop);
		}
		hw_copy_free(&c);
	}
	EXPECT_EQ(1, hit);
	return found;
}

/*
 * Intel PT, user mode, freeze_on_event set to the getppid() system call's
 * entry: the process works, then calls getppid().  The recorder freezes by
 * itself: the CPU the call was made on there, its copy flagged as the
 * trigger's, with a trace that libipt decodes to the work and then that
 * system call; the others a moment later, not flagged.
 */
TEST_F(hwtrace, intel_pt_freeze_on_event)
{
	int type = ptsim_pmu_type("intel_pt");
	char id[32], got[32];
	struct hw_self me;
	uint64_t after;
	long ppid;

	if (_metadata->skip)
		return;
	if (type < 0)
		SKIP(return, "no intel_pt PMU");
	if (hw_get(HW_GETPPID, id, sizeof(id)))
		SKIP(return, "no syscalls/sys_enter_getppid tracepoint");
	hw_self_init(_metadata, &me);

	ASSERT_EQ(0, hw_configure("intel_pt", "0x2001", "user", HW_SIZE_KB,
				  id));
	ASSERT_EQ(0, hw_get("freeze_on_event", got, sizeof(got)));
	ASSERT_STREQ(id, got);
	/*
	 * The only getppid() while recording: one after it, on a CPU that the
	 * work item has not frozen yet, would freeze that one too, flagged.
	 */
	ppid = getppid();
	ASSERT_EQ(0, hw_set("tracing_on", "1"));
	ptsim_work(100000);
	ASSERT_EQ(ppid, syscall_here(SYS_getppid, 0, NULL, 0, &after));
	ASSERT_TRUE(hw_froze(false));

	EXPECT_EQ(1, trigger_ends_at(_metadata, &me, type, after));
	hw_self_free(&me);
}

/*
 * freeze_on_event on a CPU that went offline and came back while the
 * recorder recorded: it has its trigger again, made by a work item, and
 * a hit there freezes the recorder with that CPU's copy flagged.
 */
TEST_F(hwtrace, trigger_after_hotplug)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	struct hw_copy c;
	char id[32];

	if (_metadata->skip)
		return;
	if (self->ptsim < 0)
		SKIP(return, "no ptsim PMU");
	if (access(online, W_OK))
		SKIP(return, "CPU 1 cannot go offline");
	if (hw_get(HW_GETPPID, id, sizeof(id)))
		SKIP(return, "no syscalls/sys_enter_getppid tracepoint");

	ASSERT_EQ(0, hw_configure("ptsim", "0", "kernel,user", HW_SIZE_KB, id));
	ASSERT_EQ(0, hw_set("tracing_on", "1"));
	ASSERT_EQ(0, hw_set(online, "0"));
	ASSERT_EQ(0, hw_set(online, "1"));
	ASSERT_EQ(0, ptsim_pin_cpu(1));
	ASSERT_TRUE(hw_froze(true));
	ASSERT_EQ(0, hw_read(1, &c));
	EXPECT_EQ(PERF_HWTRACE_FROZEN | PERF_HWTRACE_TRIGGER,
		  c.hdr.flags & (PERF_HWTRACE_FROZEN | PERF_HWTRACE_TRIGGER));
	check_ptsim(_metadata, &c);
	hw_copy_free(&c);
}

/* Where a freeze_on_event breakpoint is: called once the work is done */
static void hw_marker(void)
{
	asm volatile("" : : : "memory");
}

/* Call hw_marker() through a pointer the compiler cannot see through */
static void hw_marker_call(void)
{
	void (*fn)(void) = hw_marker;

	asm volatile("" : "+r" (fn));
	fn();
}

/*
 * Intel PT, user mode, freeze_on_event set to an execution breakpoint on
 * hw_marker(): the process works, then calls it.  The CPU it ran on froze
 * in the breakpoint's debug exception, its copy flagged as the trigger's,
 * with a trace that libipt decodes to the work and then hw_marker()'s
 * first instruction, where user-mode tracing stopped.
 */
TEST_F(hwtrace, intel_pt_freeze_on_breakpoint)
{
	int type = ptsim_pmu_type("intel_pt");
	struct hw_self me;
	char bp[128];

	if (_metadata->skip)
		return;
	if (type < 0)
		SKIP(return, "no intel_pt PMU");
	hw_self_init(_metadata, &me);

	snprintf(bp, sizeof(bp), "type=%d,bp_type=%d,config1=%#lx,config2=%zu",
		 PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X, (unsigned long)hw_marker,
		 sizeof(long));
	ASSERT_EQ(0, hw_configure("intel_pt", "0x2001", "user", HW_SIZE_KB,
				  bp));
	ASSERT_EQ(0, hw_set("tracing_on", "1"));
	ptsim_work(100000);
	hw_marker_call();
	ASSERT_TRUE(hw_froze(false));

	EXPECT_EQ(1, trigger_ends_at(_metadata, &me, type, (uintptr_t)hw_marker));
	hw_self_free(&me);
}

/*
 * freeze_on_event on a counter's overflow: ptsim, kernel and user mode,
 * and a trigger every ten million instructions of a CPU.  The first CPU
 * to retire that many froze its copy in the overflow's NMI, flagged as
 * the trigger's, with its trace whole up to there; the others followed.
 */
TEST_F(hwtrace, freeze_on_overflow)
{
	struct hw_copy c;
	int cpu, hit = 0;

	if (_metadata->skip)
		return;
	if (self->ptsim < 0)
		SKIP(return, "no ptsim PMU");
	if (ptsim_pmu_type("cpu") < 0)
		SKIP(return, "no hardware PMU (cpu) to count instructions");

	ASSERT_EQ(0, hw_configure("ptsim", "0", "kernel,user", HW_SIZE_KB,
				  "type=0,config=1,period=10000000"));
	ASSERT_EQ(0, hw_set("tracing_on", "1"));
	ptsim_work(1000000);
	ASSERT_TRUE(hw_froze(false));

	for (cpu = 0; cpu < nr_cpus(); cpu++) {
		ASSERT_EQ(0, hw_read(cpu, &c));
		EXPECT_TRUE(c.hdr.flags & PERF_HWTRACE_FROZEN);
		if (c.hdr.flags & PERF_HWTRACE_TRIGGER) {
			hit++;
			check_ptsim(_metadata, &c);
		}
		hw_copy_free(&c);
	}
	EXPECT_LE(1, hit);
}

TEST_HARNESS_MAIN
