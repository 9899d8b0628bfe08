// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware trace recorder's copies: perf script -i FILE
 *
 * The kernel's hardware trace recorder (Documentation/admin-guide/perf/
 * hwtrace.rst) gives each CPU's latest trace as a struct perf_hwtrace_header
 * then the trace, oldest byte first: live in tracefs (hwtrace/per_cpu/cpuN/
 * trace), and from a vmcore after a crash.  perf reads a file of one or
 * more such copies (several CPUs' files put end to end) as it reads a
 * perf.data file in pipe mode, from a stream (util/trace-stream.c) that
 * this file makes of it:
 *
 *   - the attr of the recorder's event (its PMU, config and modes), the
 *     PMU's name and an AUXTRACE_INFO for the Intel PT decoder, per CPU;
 *   - the kernel's map: an MMAP2 of [kernel.kallsyms] from the copies'
 *     _stext, with the kernel's build ID, its pgoff the run-time address
 *     of _stext, from which perf relocates vmlinux by the kernel's KASLR
 *     offset;
 *   - for each copy, an AUXTRACE of its CPU's trace, and a truncated AUX
 *     record if older trace was lost.
 *
 * The events have no time: the decoder decodes each CPU's trace whole, at
 * the end.  Nothing says which tasks ran, so user-mode trace does not
 * decode.  Anything that does not add up is an error naming the file.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include "data.h"
#include "debug.h"
#include "event.h"
#include "hwtrace.h"
#include "intel-pt.h"
#include "trace-stream.h"

#define HWTRACE_KERNEL_MAP	"[kernel.kallsyms]_stext"

struct hwtrace {
	struct trace_stream		ts;
	struct perf_hwtrace_header	hdr;	/* the first copy's */
};

/* The copy at @pos of the file, its header in @hdr; its length, or < 0 */
static long hwtrace__copy(struct hwtrace *ht, size_t pos, struct perf_hwtrace_header *hdr)
{
	size_t left = ht->ts.size - pos;

	memset(hdr, 0, sizeof(*hdr));
	memcpy(hdr, ht->ts.map + pos, min(left, sizeof(*hdr)));
	if (left < sizeof(*hdr) || hdr->magic != PERF_HWTRACE_MAGIC)
		return trace_stream__err(&ht->ts,
					 "garbled: not a hardware trace recorder's copy where one should start");
	if (hdr->version < 1 || hdr->hdr_size < sizeof(*hdr) || hdr->hdr_size > left ||
	    hdr->size > left - hdr->hdr_size || hdr->build_id_size > sizeof(hdr->build_id) ||
	    !memchr(hdr->pmu, '\0', sizeof(hdr->pmu)))
		return trace_stream__err(&ht->ts,
					 "a copy's header is garbled, or the file is cut short");
	return hdr->hdr_size + hdr->size;
}

/* Every copy is of the same recorder: its PMU, config, modes and kernel */
static int hwtrace__check(struct hwtrace *ht, const struct perf_hwtrace_header *hdr)
{
	const u64 modes = PERF_HWTRACE_KERNEL | PERF_HWTRACE_USER;
	const struct perf_hwtrace_header *first = &ht->hdr;

	if (strcmp(hdr->pmu, "intel_pt") && strcmp(hdr->pmu, PTSIM_PMU_NAME)) {
		pr_err("%s: the trace is from %s: perf decodes only intel_pt and %s trace from the hardware trace recorder\n",
		       ht->ts.path, hdr->pmu, PTSIM_PMU_NAME);
		return -EINVAL;
	}
	if (hdr != first &&
	    (strcmp(hdr->pmu, first->pmu) || hdr->config != first->config ||
	     (hdr->flags ^ first->flags) & modes || hdr->kernel_text != first->kernel_text ||
	     hdr->build_id_size != first->build_id_size ||
	     memcmp(hdr->build_id, first->build_id, hdr->build_id_size)))
		return trace_stream__err(&ht->ts,
					 "its copies are of different recorders or kernels");
	return 0;
}

/*
 * The kernel from its _stext up, with its build ID: perf finds its vmlinux
 * by that, and relocates its symbols to where _stext was.
 */
static int hwtrace__write_kernel_map(struct hwtrace *ht)
{
	struct perf_record_mmap2 *ev = &ht->ts.event->mmap2;
	const struct perf_hwtrace_header *hdr = &ht->hdr;

	memset(ev, 0, sizeof(*ev));
	ev->header.type = PERF_RECORD_MMAP2;
	ev->header.misc = PERF_RECORD_MISC_KERNEL;
	ev->pid = -1;
	ev->start = hdr->kernel_text;
	ev->len = ~0ULL - hdr->kernel_text;
	ev->pgoff = hdr->kernel_text;
	ev->prot = PROT_READ | PROT_EXEC;
	if (hdr->build_id_size) {
		ev->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		ev->build_id_size = hdr->build_id_size;
		memcpy(ev->build_id, hdr->build_id, hdr->build_id_size);
	}
	strcpy(ev->filename, HWTRACE_KERNEL_MAP);
	return trace_stream__write_event(&ht->ts, offsetof(typeof(*ev), filename) +
					 sizeof(HWTRACE_KERNEL_MAP), -1, 0, -1);
}

static int hwtrace__write_stream(struct hwtrace *ht)
{
	struct perf_hwtrace_header hdr;
	struct trace_stream_pmu pmu;
	size_t pos;
	long len;
	u32 idx;
	int err;

	len = hwtrace__copy(ht, 0, &ht->hdr);
	if (len < 0)
		return len;
	err = hwtrace__check(ht, &ht->hdr);
	if (err)
		return err;
	pmu = (struct trace_stream_pmu){
		.name		= ht->hdr.pmu,
		.config		= ht->hdr.config,
		.kernel		= ht->hdr.flags & PERF_HWTRACE_KERNEL,
		.user		= ht->hdr.flags & PERF_HWTRACE_USER,
		.per_cpu	= true,
	};
	if (pmu.user)
		pr_warning("%s: user mode was traced too, which perf cannot decode from the recorder: expect errors there\n",
			   ht->ts.path);
	err = trace_stream__write_pmu(&ht->ts, &pmu) ?: hwtrace__write_kernel_map(ht);

	for (pos = 0, idx = 0; !err && pos < ht->ts.size; pos += len, idx++) {
		const char *copy = ht->ts.map + pos;

		len = hwtrace__copy(ht, pos, &hdr);
		if (len < 0)
			return len;
		err = hwtrace__check(ht, &hdr) ?:
		      trace_stream__write_trace(&ht->ts, copy + hdr.hdr_size, hdr.size,
						hdr.offset, hdr.flags & PERF_HWTRACE_WRAPPED,
						idx, -1, -1, hdr.cpu);
	}
	return err;
}

/**
 * hwtrace__is_hwtrace - whether @path starts with a hardware trace
 * recorder's copy
 * @path: a file perf is asked to read
 *
 * Opening a CPU's file in tracefs takes a copy: this one is not the one read.
 */
bool hwtrace__is_hwtrace(const char *path)
{
	u32 magic;

	return trace_stream__peek(path, &magic, sizeof(magic)) &&
	       magic == PERF_HWTRACE_MAGIC;
}

/**
 * hwtrace__open - read @data's file of hardware trace recorder copies as a
 * pipe-mode stream made of them
 * @data: the file perf was asked to read
 *
 * Returns 0, or an error, reported.
 */
int hwtrace__open(struct perf_data *data)
{
	struct hwtrace ht;
	int err;

	err = trace_stream__begin(&ht.ts, data) ?: hwtrace__write_stream(&ht);
	return trace_stream__end(&ht.ts, data, err);
}
