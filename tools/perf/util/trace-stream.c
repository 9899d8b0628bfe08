// SPDX-License-Identifier: GPL-2.0
/*
 * Streams that perf makes of files that hold hardware trace but are not
 * perf.data files (util/core-trace.c: core files; util/hwtrace.c: the
 * hardware trace recorder's copies): a perf.data stream in pipe mode,
 * written to an anonymous temporary file that is then read as a pipe, so
 * that perf script and perf report decode the trace as they decode a
 * recording's.
 *
 * A stream has one event, the trace PMU's, with a type number of the
 * stream's own (its attr and PMU mapping say it), not that of the PMU on
 * this machine, which may have none.  No event has a time, which perf
 * takes as none: the decoder decodes each queue whole, at its thread's
 * EXIT or at the end.
 *
 * The file is mapped, as perf.data files are opened: owned by the user or
 * root unless forced.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/bits.h>
#include <linux/coresight-pmu.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <internal/lib.h>

#include "auxtrace.h"
#include "cpumap.h"
#include "cs-etm.h"
#include "data.h"
#include "debug.h"
#include "event.h"
#include "header.h"
#include "intel-pt.h"
#include "pmu.h"
#include "trace-stream.h"

#define TRACE_STREAM_ID		1
#define TRACE_STREAM_PMU_TYPE	PERF_TYPE_MAX

/*
 * The config bits that the decoder looks at are those of IA32_RTIT_CTL
 * (Intel SDM vol. 3C, 33.2.8.2), which intel_pt and ptsim take as config.
 * They are set here, not read from this machine's PMU: a file may be read
 * where the PMU that traced it is not.
 */
#define RTIT_CTL_CYC_EN		BIT_ULL(1)
#define RTIT_CTL_MTC_EN		BIT_ULL(9)
#define RTIT_CTL_TSC_EN		BIT_ULL(10)
#define RTIT_CTL_DIS_RETC	BIT_ULL(11)
#define RTIT_CTL_MTC_FREQ	(0xfULL << 14)

int trace_stream__err(struct trace_stream *ts, const char *what)
{
	pr_err("%s: %s\n", ts->path, what);
	return -EINVAL;
}

/* An error of a system call on the file, or on the stream made of it */
int trace_stream__errno(struct trace_stream *ts, const char *what)
{
	char sbuf[STRERR_BUFSIZE];
	int err = errno;

	pr_err("%s: %s: %s\n", ts->path, what, str_error_r(err, sbuf, sizeof(sbuf)));
	return -err;
}

int trace_stream__write(struct trace_stream *ts, const void *buf, size_t size)
{
	if (writen(ts->out, buf, size) != (ssize_t)size)
		return trace_stream__errno(ts, "cannot write the stream read from it");
	return 0;
}

/*
 * Write ts->event, @size bytes of it, then its id sample: TID, TIME (0:
 * none), CPU in a per-CPU stream, and IDENTIFIER.
 */
int trace_stream__write_event(struct trace_stream *ts, size_t size, u32 pid, u32 tid,
			      u32 cpu)
{
	const u32 pid_tid[2] = { pid, tid }, cpu_res[2] = { cpu, 0 };
	u64 id[4];
	size_t n = 0;

	memcpy(&id[n++], pid_tid, sizeof(u64));
	id[n++] = 0;
	if (ts->per_cpu)
		memcpy(&id[n++], cpu_res, sizeof(u64));
	id[n++] = TRACE_STREAM_ID;

	size = PERF_ALIGN(size, sizeof(u64));
	ts->event->header.size = size + n * sizeof(u64);
	return trace_stream__write(ts, ts->event, size) ?:
	       trace_stream__write(ts, id, n * sizeof(u64));
}

static int trace_stream__write_attr(struct trace_stream *ts,
				    const struct trace_stream_pmu *pmu)
{
	struct perf_record_header_attr *ev = &ts->event->attr;
	struct perf_event_attr *attr = &ev->attr;

	memset(ev, 0, sizeof(*ev) + sizeof(u64));
	ev->header.type = PERF_RECORD_HEADER_ATTR;
	ev->header.size = sizeof(*ev) + sizeof(u64);
	attr->size = sizeof(*attr);
	attr->type = TRACE_STREAM_PMU_TYPE;
	attr->config = pmu->config;
	/* No event has a time: cs_etm decodes each thread whole (timeless) */
	if (!strcmp(pmu->name, "cs_etm"))
		attr->config &= ~BIT_ULL(ETM_OPT_TS);
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_IDENTIFIER;
	if (pmu->per_cpu)
		attr->sample_type |= PERF_SAMPLE_CPU;
	attr->sample_id_all = 1;
	attr->exclude_kernel = !pmu->kernel;
	attr->exclude_user = !pmu->user;
	attr->exclude_hv = 1;
	ev->id[0] = TRACE_STREAM_ID;
	return trace_stream__write(ts, ev, ev->header.size);
}

/* HEADER_PMU_MAPPINGS: one PMU, its type and name (as do_write_string()) */
static int trace_stream__write_pmu_mapping(struct trace_stream *ts, const char *name)
{
	struct perf_record_header_feature *ev = &ts->event->feat;
	u32 len = PERF_ALIGN(strlen(name) + 1, 64);
	u32 *data = (u32 *)ev->data;
	size_t size = sizeof(*ev) + 3 * sizeof(u32) + len;

	memset(ev, 0, PERF_ALIGN(size, sizeof(u64)));
	ev->header.type = PERF_RECORD_HEADER_FEATURE;
	ev->header.size = PERF_ALIGN(size, sizeof(u64));
	ev->feat_id = HEADER_PMU_MAPPINGS;
	data[0] = 1;
	data[1] = TRACE_STREAM_PMU_TYPE;
	data[2] = len;
	strcpy((char *)&data[3], name);
	return trace_stream__write(ts, ev, ev->header.size);
}

/*
 * What perf record's intel_pt_info_fill() gives, for a trace without time:
 * snapshot mode, no TSC conversion, no address filter and no event trace
 * (the word after the filter).
 */
static int trace_stream__write_auxtrace_info(struct trace_stream *ts, bool per_cpu)
{
	struct perf_record_auxtrace_info *ev = &ts->event->auxtrace_info;
	size_t size = sizeof(*ev) + (INTEL_PT_AUXTRACE_PRIV_MAX + 1) * sizeof(u64);

	memset(ev, 0, size);
	ev->header.type = PERF_RECORD_AUXTRACE_INFO;
	ev->header.size = size;
	ev->type = PERF_AUXTRACE_INTEL_PT;
	ev->priv[INTEL_PT_PMU_TYPE] = TRACE_STREAM_PMU_TYPE;
	ev->priv[INTEL_PT_TSC_BIT] = RTIT_CTL_TSC_EN;
	ev->priv[INTEL_PT_NORETCOMP_BIT] = RTIT_CTL_DIS_RETC;
	ev->priv[INTEL_PT_SNAPSHOT_MODE] = 1;
	ev->priv[INTEL_PT_PER_CPU_MMAPS] = per_cpu;
	ev->priv[INTEL_PT_MTC_BIT] = RTIT_CTL_MTC_EN;
	ev->priv[INTEL_PT_MTC_FREQ_BITS] = RTIT_CTL_MTC_FREQ;
	ev->priv[INTEL_PT_CYC_BIT] = RTIT_CTL_CYC_EN;
	return trace_stream__write(ts, ev, size);
}

/*
 * The TRCCONFIGR bits of the ETM options in a cs_etm config, as perf record
 * sets them (cs_etmv4_get_config()): they say which optional packets the
 * trace has.
 */
static u64 trace_stream__trcconfigr(u64 config)
{
	static const struct {
		u64	opt;
		u64	trcconfigr;
	} map[] = {
		{ BIT_ULL(ETM_OPT_CYCACC),	BIT_ULL(ETM4_CFG_BIT_CYCACC) },
		{ BIT_ULL(ETM_OPT_CTXTID),	BIT_ULL(ETM4_CFG_BIT_CTXTID) },
		{ BIT_ULL(ETM_OPT_TS),		BIT_ULL(ETM4_CFG_BIT_TS) },
		{ BIT_ULL(ETM_OPT_RETSTK),	BIT_ULL(ETM4_CFG_BIT_RETSTK) },
		{ BIT_ULL(ETM_OPT_CTXTID2),	BIT_ULL(ETM4_CFG_BIT_VMID) |
						BIT_ULL(ETM4_CFG_BIT_VMID_OPT) },
		{ BIT_ULL(ETM_OPT_BRANCH_BROADCAST), BIT_ULL(ETM4_CFG_BIT_BB) },
	};
	u64 trcconfigr = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (config & map[i].opt)
			trcconfigr |= map[i].trcconfigr;
	}
	return trcconfigr;
}

/* An ETE's TRCDEVARCH, ARCHVER and ARCHPART (ETE: 5 and 0xA13) */
#define TRCDEVARCH_ARCH		GENMASK(15, 0)
#define TRCDEVARCH_ARCH_ETE	0x5a13

/* The ETE ID registers in the metadata, as the cs_etm PMU's sysfs has them */
static const char * const trace_stream__ete_regs[] = {
	[CS_ETMV4_TRCIDR0]		= "trcidr/trcidr0",
	[CS_ETMV4_TRCIDR1]		= "trcidr/trcidr1",
	[CS_ETMV4_TRCIDR2]		= "trcidr/trcidr2",
	[CS_ETMV4_TRCIDR8]		= "trcidr/trcidr8",
	[CS_ETMV4_TRCAUTHSTATUS]	= "mgmt/trcauthstatus",
	[CS_ETE_TRCDEVARCH]		= "mgmt/trcdevarch",
};

/* @cpu's ETE ID registers into @meta, or false if it has no ETE here */
static bool trace_stream__read_ete(struct perf_pmu *pmu, int cpu, __u64 *meta)
{
	char path[64];
	unsigned int val;
	size_t i;

	for (i = CS_ETMV4_TRCIDR0; i < ARRAY_SIZE(trace_stream__ete_regs); i++) {
		snprintf(path, sizeof(path), "cpu%d/%s", cpu, trace_stream__ete_regs[i]);
		if (perf_pmu__scan_file(pmu, path, "%x", &val) != 1)
			return false;
		meta[i] = val;
	}
	return (meta[CS_ETE_TRCDEVARCH] & TRCDEVARCH_ARCH) == TRCDEVARCH_ARCH_ETE;
}

/*
 * What perf record's cs_etm_info_fill() gives for one ETE: the trace unit
 * of a TRBE, the only cs_etm sink that serves hidden AUX events, whose
 * trace is raw ETE (not in CoreSight frames, PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW).
 * How its packets are encoded depends on the ETE's ID registers, which no
 * file holds: they are read from this machine's cs_etm PMU, from its first
 * CPU that has an ETE.  A core with cs_etm trace is decoded where it was
 * dumped, or on a machine with the same trace unit.
 */
static int trace_stream__write_cs_etm_info(struct trace_stream *ts,
					   const struct trace_stream_pmu *pmu)
{
	struct perf_record_auxtrace_info *ev = &ts->event->auxtrace_info;
	size_t size = sizeof(*ev) + (CS_HEADER_VERSION_MAX + CS_ETE_PRIV_MAX) * sizeof(u64);
	__u64 *meta = &ev->priv[CS_HEADER_VERSION_MAX];
	struct perf_pmu *cs_etm = perf_pmu__find("cs_etm");
	int cpu;

	memset(ev, 0, size);
	for (cpu = 0; cs_etm && cpu < cpu__max_cpu().cpu; cpu++) {
		if (trace_stream__read_ete(cs_etm, cpu, meta))
			break;
	}
	if (!cs_etm || cpu == cpu__max_cpu().cpu)
		return trace_stream__err(ts,
			"its ETE trace decodes with this machine's ETE ID registers: none here");

	ev->header.type = PERF_RECORD_AUXTRACE_INFO;
	ev->header.size = size;
	ev->type = PERF_AUXTRACE_CS_ETM;
	ev->priv[CS_HEADER_VERSION] = CS_HEADER_CURRENT_VERSION;
	ev->priv[CS_PMU_TYPE_CPUS] = (u64)TRACE_STREAM_PMU_TYPE << 32 | 1;
	ev->priv[CS_ETM_SNAPSHOT] = 1;
	meta[CS_ETM_MAGIC] = __perf_cs_ete_magic;
	meta[CS_ETM_CPU] = cpu;
	meta[CS_ETM_NR_TRC_PARAMS] = CS_ETE_PRIV_MAX - CS_ETM_COMMON_BLK_MAX_V1;
	meta[CS_ETMV4_TRCCONFIGR] = trace_stream__trcconfigr(pmu->config);
	meta[CS_ETMV4_TRCTRACEIDR] = coresight_get_trace_id(cpu);
	return trace_stream__write(ts, ev, size);
}

/**
 * trace_stream__decodes - whether perf makes streams of a PMU's trace
 * @pmu: the PMU's name
 */
bool trace_stream__decodes(const char *pmu)
{
	return !strcmp(pmu, "intel_pt") || !strcmp(pmu, PTSIM_PMU_NAME) ||
	       !strcmp(pmu, "cs_etm");
}

/* The trace PMU's event: its attr, its name and what its decoder needs */
int trace_stream__write_pmu(struct trace_stream *ts, const struct trace_stream_pmu *pmu)
{
	bool cs_etm = !strcmp(pmu->name, "cs_etm");

	ts->per_cpu = pmu->per_cpu;
	/* A TRBE's trace is raw ETE: AUX records say so to the decoder */
	ts->aux_flags = cs_etm ? PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW : 0;
	return trace_stream__write_attr(ts, pmu) ?:
	       trace_stream__write_pmu_mapping(ts, pmu->name) ?:
	       (cs_etm ? trace_stream__write_cs_etm_info(ts, pmu) :
			 trace_stream__write_auxtrace_info(ts, pmu->per_cpu));
}

/*
 * A queue's trace, @size bytes from @offset of its stream: an AUXTRACE (the
 * data after it, padded to 8 bytes with zeroes, as perf record pads it),
 * and an AUX record if older trace was lost to the buffer wrapping
 * (truncated) or the decoder needs the trace's format (ts->aux_flags).
 */
int trace_stream__write_trace(struct trace_stream *ts, const void *trace, u64 size,
			      u64 offset, bool wrapped, u32 idx, u32 pid, u32 tid,
			      u32 cpu)
{
	static const char pad[sizeof(u64)];
	union perf_event *ev = ts->event;
	u64 aligned = PERF_ALIGN(size, sizeof(u64));
	int err;

	memset(ev, 0, sizeof(ev->auxtrace));
	ev->auxtrace.header.type = PERF_RECORD_AUXTRACE;
	ev->auxtrace.header.size = sizeof(ev->auxtrace);
	ev->auxtrace.size = aligned;
	ev->auxtrace.offset = offset;
	ev->auxtrace.idx = idx;
	ev->auxtrace.tid = tid;
	ev->auxtrace.cpu = cpu;
	err = trace_stream__write(ts, ev, sizeof(ev->auxtrace)) ?:
	      trace_stream__write(ts, trace, size) ?:
	      trace_stream__write(ts, pad, aligned - size);
	if (err || (!wrapped && !ts->aux_flags))
		return err;

	memset(ev, 0, sizeof(ev->aux));
	ev->aux.header.type = PERF_RECORD_AUX;
	ev->aux.aux_offset = offset;
	ev->aux.aux_size = size;
	ev->aux.flags = ts->aux_flags;
	if (wrapped)
		ev->aux.flags |= PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_OVERWRITE;
	return trace_stream__write_event(ts, sizeof(ev->aux), pid, tid, cpu);
}

/* An anonymous file for the stream, gone once closed */
static int trace_stream__file(void)
{
	FILE *f = tmpfile();
	int fd;

	if (!f)
		return -1;
	fd = dup(fileno(f));
	fclose(f);
	return fd;
}

/*
 * A file of no size but regular, as tracefs files are, is read whole into
 * memory: they give what they have when opened.
 */
static int trace_stream__read_whole(struct trace_stream *ts, int fd)
{
	size_t alloc = 0;
	char *buf = NULL, *p;
	ssize_t n;

	do {
		if (ts->size == alloc) {
			alloc = alloc ? 2 * alloc : 1 << 20;
			p = realloc(buf, alloc);
			if (!p) {
				free(buf);
				return trace_stream__err(ts, "no memory to read it");
			}
			buf = p;
		}
		n = read(fd, buf + ts->size, alloc - ts->size);
		if (n > 0)
			ts->size += n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	if (n < 0) {
		free(buf);
		return trace_stream__errno(ts, "cannot read it");
	}
	ts->map = buf;
	ts->read = true;
	return 0;
}

static int trace_stream__map(struct trace_stream *ts, int fd, bool force)
{
	struct stat st;

	if (fstat(fd, &st))
		return trace_stream__errno(ts, "cannot stat it");
	if (!force && st.st_uid && st.st_uid != geteuid())
		return trace_stream__err(ts,
					 "not owned by current user or root (use -f to override)");
	if (S_ISREG(st.st_mode) && !st.st_size)
		return trace_stream__read_whole(ts, fd);
	ts->size = st.st_size;
	ts->map = mmap(NULL, ts->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (ts->map == MAP_FAILED) {
		ts->map = NULL;
		return trace_stream__errno(ts, "cannot map it");
	}
	return 0;
}

/**
 * trace_stream__peek - read the start of a file perf may make a stream of
 * @path: the file perf is asked to read
 * @buf: where its first @size bytes go
 * @size: how many
 *
 * Returns whether @path is a regular file with @size bytes read into @buf.
 */
bool trace_stream__peek(const char *path, void *buf, size_t size)
{
	struct stat st;
	bool read;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	read = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       readn(fd, buf, size) == (ssize_t)size;
	close(fd);
	return read;
}

/**
 * trace_stream__begin - map @data's file and start a stream made of it
 * @ts: the stream
 * @data: the file perf was asked to read
 *
 * Returns 0 with the file at ts->map and the stream's header written, or an
 * error, reported; either way trace_stream__end() follows.
 */
int trace_stream__begin(struct trace_stream *ts, struct perf_data *data)
{
	int fd, err;

	memset(ts, 0, sizeof(*ts));
	ts->path = data->path;
	ts->out = -1;
	fd = open(ts->path, O_RDONLY);
	if (fd < 0)
		return trace_stream__errno(ts, "cannot open it");
	err = trace_stream__map(ts, fd, data->force);
	close(fd);
	if (err)
		return err;

	ts->out = trace_stream__file();
	if (ts->out < 0)
		return trace_stream__errno(ts, "cannot make a stream of it");
	ts->event = zalloc(TRACE_STREAM_EVENT_MAX);
	if (!ts->event)
		return trace_stream__err(ts, "no memory to make a stream of it");
	return perf_header__write_pipe(ts->out);
}

/**
 * trace_stream__end - read the stream in place of @data's file
 * @ts: the stream, begun
 * @data: the file perf was asked to read
 * @err: 0 if the stream is whole, else the error that stopped it
 *
 * Returns @err, or 0 with @data reading the stream as a pipe.
 */
int trace_stream__end(struct trace_stream *ts, struct perf_data *data, int err)
{
	zfree(&ts->event);
	if (ts->read)
		free((void *)ts->map);
	else if (ts->map)
		munmap((void *)ts->map, ts->size);
	if (!err && lseek(ts->out, 0, SEEK_SET))
		err = trace_stream__errno(ts, "cannot read the stream made of it");
	if (err) {
		if (ts->out >= 0)
			close(ts->out);
		return err;
	}
	data->is_pipe = true;
	data->is_made = true;
	data->use_stdio = false;
	data->file.fd = ts->out;
	return 0;
}
