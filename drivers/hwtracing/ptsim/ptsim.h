/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptsim: a simulated Intel PT unit.
 *
 * ptsim is a software PMU with AUX area support.  While one of its events is
 * scheduled in, a per-event hrtimer writes a genuine Intel PT packet stream
 * into the event's AUX buffer: the stream a real PT unit would produce with
 * BranchEn=0, PTWEn=1, FUPonPTW=1 and TSCEn=1 for a program that executes a
 * PTWRITE of a rising sequence number at every timer tick.  This lets perf
 * AUX tracing and AUX sampling be exercised on machines without trace
 * hardware.
 *
 * Execution contexts (all on the CPU the event is scheduled on):
 *
 *  - The pmu callbacks (add, del, start, stop, read) run with IRQs disabled.
 *  - The hrtimer callback runs in hard IRQ context, so it never interleaves
 *    with the pmu callbacks above.
 *  - pmu::snapshot_aux() runs with IRQs disabled but may be called from NMI,
 *    so it can interrupt any of the above at any instruction.  It only
 *    reads state that the other paths publish with WRITE_ONCE() in an order
 *    enforced by barrier(); it takes no locks.
 *
 * event_init, setup_aux and free_aux run in process context.
 */
#ifndef _PTSIM_H
#define _PTSIM_H

#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/perf_event.h>
#include <linux/types.h>

/*
 * attr.config uses Intel PT's RTIT_CTL bit positions, so that tooling can
 * treat a ptsim config as an Intel PT one.  fup_on_ptw, tsc and ptw describe
 * what ptsim always does and are accepted either way; branch tracing is not
 * simulated, so branch=1 is rejected.
 */
#define PTSIM_CONFIG_FUP_ON_PTW		BIT_ULL(5)
#define PTSIM_CONFIG_TSC		BIT_ULL(10)
#define PTSIM_CONFIG_PTW		BIT_ULL(12)
#define PTSIM_CONFIG_BRANCH		BIT_ULL(13)
#define PTSIM_CONFIG_PSB_PERIOD		GENMASK_ULL(27, 24)
#define PTSIM_CONFIG_MASK		(PTSIM_CONFIG_FUP_ON_PTW |	\
					 PTSIM_CONFIG_TSC |		\
					 PTSIM_CONFIG_PTW |		\
					 PTSIM_CONFIG_PSB_PERIOD)

/* attr.config1: microseconds between two records, 0 for the default. */
#define PTSIM_CONFIG1_INTERVAL		GENMASK_ULL(19, 0)

/* PSB every 2^(psb_period + 11) bytes; caps/psb_periods advertises 0..5. */
#define PTSIM_PSB_PERIOD_MAX		5
#define PTSIM_PSB_PERIOD_SHIFT		11

#define PTSIM_INTERVAL_DEFAULT_US	100
#define PTSIM_INTERVAL_MIN_US		10

/* PSB (16) + TSC (8) + CBR (4) + MODE.Exec (2) + PSBEND (2) */
#define PTSIM_PSB_PLUS_LEN		32
/* PTW with an 8 byte payload (10) + FUP with a full 8 byte IP (9) */
#define PTSIM_RECORD_LEN		19
#define PTSIM_MAX_WRITE_LEN		(PTSIM_PSB_PLUS_LEN + PTSIM_RECORD_LEN)

/*
 * perf_output_copy() and perf_output_copy_aux() are not exported to modules
 * by this kernel, so pmu::snapshot_aux (AUX sampling) is only provided when
 * ptsim is built in.  Everything else works the same either way.
 */
#ifdef MODULE
#define PTSIM_AUX_SAMPLING		0
#else
#define PTSIM_AUX_SAMPLING		1
#endif

/**
 * struct ptsim_buf - an AUX buffer, the pmu::setup_aux private data
 * @pages:	The AUX pages, owned by the perf core; PAGE_SIZE bytes each.
 * @nr_pages:	Number of pages, a power of two.
 * @size:	Buffer size in bytes, nr_pages << PAGE_SHIFT.
 * @overwrite:	Overwrite (snapshot) mode: the writer wraps around freely.
 * @filled:	Number of bytes of trace that end at the committed head of
 *		the writer, capped at @size; bytes of the buffer that were
 *		never written are zero, i.e. Intel PT PAD packets.
 *
 * A buffer can be shared by several ptsim events through
 * PERF_EVENT_IOC_SET_OUTPUT, but only one of them holds an AUX handle on it
 * at any time (see ptsim_begin()), and only that one writes @filled.
 */
struct ptsim_buf {
	void			**pages;
	int			nr_pages;
	unsigned long		size;
	bool			overwrite;
	unsigned long		filled;
};

/**
 * struct ptsim_event - per-event state, perf_event::pmu_private
 * @event:	The perf event.
 * @timer:	Pinned hard IRQ hrtimer; armed only between start and stop.
 * @interval:	Nanoseconds between two records.
 * @left:	Nanoseconds that were left of the current interval at the
 *		last stop, 0 for a full interval.
 * @psb_period:	Bytes between two PSB+ sequences.
 * @seq:	Sequence number of the last record generated (written or
 *		dropped); the first record carries 1.
 * @handle:	AUX output handle, held while @active.
 * @buf:	The buffer of @handle, valid while @active.
 * @node:	Entry on the list of events that hold an AUX handle.
 * @pos:	Absolute AUX offset at which the next byte goes.
 * @reserved:	Absolute AUX offset up to which bytes are being written.
 * @committed:	Absolute AUX offset of the end of the last complete record.
 * @psb_bytes:	Bytes written since the start of the last PSB.
 * @active:	@handle is held; cleared before it is ended.
 * @need_psb:	The next record must be preceded by a PSB+: tracing into a
 *		buffer (re)starts or the stream has a gap.
 * @gap:	Records were dropped since the last one written.
 * @lost:	The current gap has not been reported yet; the next AUX
 *		record gets PERF_AUX_FLAG_PARTIAL.
 *
 * Everything but @event, @interval and @psb_period is written only on the
 * event's CPU, by the pmu callbacks and the hrtimer callback, with IRQs
 * disabled.  @active, @buf, @handle.rb, @reserved, @committed and
 * @buf->filled are also read by ptsim_snapshot_aux(), which may run in NMI
 * on top of the writer, so they are published with WRITE_ONCE() in this
 * order: @reserved is raised before the bytes below it are written,
 * @committed follows once they are, and @active is set after, and cleared
 * before, any change of @handle.
 */
struct ptsim_event {
	struct perf_event		*event;
	struct hrtimer			timer;
	u64				interval;
	s64				left;
	unsigned long			psb_period;
	u64				seq;
	struct perf_output_handle	handle;
	struct ptsim_buf		*buf;
	struct list_head		node;
	unsigned long			pos;
	unsigned long			reserved;
	unsigned long			committed;
	unsigned long			psb_bytes;
	bool				active;
	bool				need_psb;
	bool				gap;
	bool				lost;
};

size_t ptsim_encode_psb_plus(u8 *p, u64 tsc);
size_t ptsim_encode_record(u8 *p, u64 seq, u64 ip);
void ptsim_buf_write(struct ptsim_buf *buf, unsigned long pos,
		     const void *data, size_t len);

#endif /* _PTSIM_H */
