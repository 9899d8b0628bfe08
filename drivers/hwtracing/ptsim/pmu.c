// SPDX-License-Identifier: GPL-2.0
/*
 * ptsim: a simulated Intel PT unit -- the PMU.
 *
 * Each ptsim event has its own pinned hard IRQ hrtimer, armed in ->start()
 * and cancelled in ->stop(), so records are written only while the event is
 * scheduled in, on its CPU.  Each tick that does not hit an excluded context
 * generates one record (PTW with a sequence number, FUP with the interrupted
 * IP; see packet.c), preceded by a PSB+ when one is due.  A record is never
 * split by a PSB+.
 *
 * AUX buffer handling:
 *
 *  - Normal mode: ->start() takes an AUX handle and records go at its head.
 *    When a record does not fit in what the handle has left, the handle is
 *    ended (committing the data) and a new one is taken, which sees the
 *    space the consumer has freed since.  If even that cannot hold it, the
 *    handle is ended with PERF_AUX_FLAG_TRUNCATED and the record is dropped;
 *    each tick tries again.  Like Intel PT's PMI at handle->wakeup, the
 *    handle is also renewed once the data crosses the wakeup watermark, so
 *    the consumer sees data while tracing goes on.  The perf core disables
 *    the event when it finds the buffer full (in both
 *    perf_aux_output_begin() and a TRUNCATED perf_aux_output_end()), so
 *    tracing normally stops soon after the first lost record, until the
 *    event is enabled again.  (In 6.1 that disable is lost for events on
 *    CPU 0: ring_buffer.c sets event->pending_disable to the CPU number,
 *    which __perf_pending_irq() tests as a flag.  The event then goes on
 *    dropping records, without reporting the gap again, until room frees
 *    up.)
 *
 *  - Overwrite mode: the handle taken in ->start() is held until ->stop(),
 *    and records go round the whole buffer.  ->stop() reports the absolute
 *    (never wrapped) offset of the end of the trace as the new aux_head.
 *
 * Every generated record consumes a sequence number, including one that is
 * dropped, so a gap in the sequence numbers is exactly the loss that the
 * AUX records report.  Each gap is reported once, where it starts: by a
 * TRUNCATED AUX record or, when no handle could be had to carry that flag,
 * by PERF_AUX_FLAG_PARTIAL on the event's next AUX record.  A PSB+ follows
 * every gap.
 *
 * The event's count is the number of records generated, that is the last
 * sequence number.
 */
#include <linux/bitfield.h>
#include <linux/capability.h>
#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/topology.h>

#include <asm/irq_regs.h>

#include "ptsim.h"

/*
 * Knobs in debugfs (ptsim/), for tests, the way netdevsim has them:
 *
 *  - unprivileged: let users without CAP_PERFMON create ptsim events.
 *    Each event runs a 10 us hrtimer, unthrottled, so by default only
 *    perfmon_capable() users may.
 *  - fail_setup_aux: ->setup_aux() fails, as when a PMU has no memory
 *    for its buffer.
 *  - snapshot_no_trace: ->snapshot_aux() finds no trace, as around
 *    ->add() or ->del(): the samples carry a position (if asked for)
 *    of no bytes and padding.
 *  - no_positions: ->snapshot_aux() of a hidden AUX event reports no
 *    position and writes nothing, which a PMU that tells positions may
 *    do when it has no trace: the perf core fills the samples' room with
 *    zero bytes.
 */
static bool ptsim_unprivileged;
static bool ptsim_fail_setup_aux;
static bool ptsim_snapshot_no_trace;
static bool ptsim_no_positions;
static struct dentry *ptsim_debugfs;

static struct pmu ptsim_pmu;

/*
 * The ptsim events that hold an AUX handle, protected by ptsim_writers_lock.
 *
 * The perf core allows one AUX transaction per ring buffer at a time and
 * WARNs on a nested perf_aux_output_begin().  Intel PT never nests because
 * one PT event at most runs per CPU; ptsim events may run side by side and
 * may share a ring buffer (PERF_EVENT_IOC_SET_OUTPUT between events of one
 * CPU or one task, and inherited events other than hidden AUX events write
 * into their parent's buffer, possibly from other CPUs).  So an event takes
 * a handle only when no other event holds one on the same buffer, and drops
 * its records meanwhile.
 *
 * The lock is taken with IRQs disabled (pmu callbacks, hrtimer callback),
 * never from NMI.
 */
static DEFINE_RAW_SPINLOCK(ptsim_writers_lock);
static LIST_HEAD(ptsim_writers);

/* Intel PT PAD packets, to fill what an AUX sample has no trace for. */
static const u8 ptsim_pads[256];

/*
 * Take an AUX handle for @ev.  IRQs are disabled, on the event's CPU.
 *
 * The output buffer is looked up without holding it, only to compare it
 * with the buffers of the current writers.  A ring_buffer_attach() of a
 * running event between this look-up and the one in perf_aux_output_begin()
 * could still make the latter see a busy buffer; the core then WARNs and
 * refuses, as it would for any AUX PMU.
 */
static bool ptsim_begin(struct ptsim_event *ev)
{
	struct perf_event *event = ev->event;
	struct perf_event *output = perf_buffer_event(event);
	struct perf_buffer *rb = READ_ONCE(output->rb);
	struct ptsim_event *iter;
	struct ptsim_buf *buf = NULL;

	if (!rb)
		return false;

	raw_spin_lock(&ptsim_writers_lock);
	list_for_each_entry(iter, &ptsim_writers, node) {
		if (iter->handle.rb == rb)
			goto unlock;
	}
	buf = perf_aux_output_begin(&ev->handle, event);
	if (buf)
		list_add(&ev->node, &ptsim_writers);
unlock:
	raw_spin_unlock(&ptsim_writers_lock);
	if (!buf)
		return false;

	ev->buf = buf;
	ev->pos = ev->handle.head;
	WRITE_ONCE(ev->reserved, ev->pos);
	WRITE_ONCE(ev->committed, ev->pos);
	if (ev->lost) {
		perf_aux_output_flag(&ev->handle, PERF_AUX_FLAG_PARTIAL);
		ev->lost = false;
	}
	/* Publish to ptsim_snapshot_aux() once the above is in place. */
	barrier();
	WRITE_ONCE(ev->active, true);
	return true;
}

/* End @ev's AUX handle, committing what was written.  IRQs are disabled. */
static void ptsim_end(struct ptsim_event *ev)
{
	struct ptsim_buf *buf = ev->buf;
	unsigned long size = ev->pos - ev->handle.head;

	/* Keep ptsim_snapshot_aux() off the pages before dropping them. */
	WRITE_ONCE(ev->active, false);
	barrier();

	/*
	 * In overwrite mode the core takes the new aux_head from the handle;
	 * the size, capped at the buffer size, is what this handle wrote.
	 */
	if (buf->overwrite) {
		ev->handle.head = ev->pos;
		size = min(size, buf->size);
	}

	/* The trace must be visible before the aux_head that covers it. */
	smp_wmb();
	perf_aux_output_end(&ev->handle, size);

	raw_spin_lock(&ptsim_writers_lock);
	list_del_init(&ev->node);
	raw_spin_unlock(&ptsim_writers_lock);
}

/* Bytes that still fit in a normal mode handle. */
static unsigned long ptsim_room(struct ptsim_event *ev)
{
	return ev->handle.size - (ev->pos - ev->handle.head);
}

/*
 * Write @len bytes at the head of @ev's handle.  ptsim_snapshot_aux() may
 * interrupt this at any point: it copies only trace below ->committed and
 * keeps clear of the bytes being overwritten, which lie below ->reserved
 * minus the buffer size.
 */
static void ptsim_commit(struct ptsim_event *ev, const u8 *bytes, size_t len)
{
	struct ptsim_buf *buf = ev->buf;
	unsigned long end = ev->pos + len;

	WRITE_ONCE(ev->reserved, end);
	barrier();
	ptsim_buf_write(buf, ev->pos, bytes, len);
	barrier();
	WRITE_ONCE(ev->committed, end);
	WRITE_ONCE(buf->filled, min(buf->filled + len, buf->size));
	ev->pos = end;
}

/*
 * Drop a record for want of a handle.  A gap is reported once: here by the
 * PERF_AUX_FLAG_PARTIAL that ptsim_begin() puts on the next handle.
 */
static void ptsim_drop(struct ptsim_event *ev)
{
	if (!ev->gap)
		ev->lost = true;
	ev->gap = true;
	ev->need_psb = true;
}

/* Write (or drop) record @seq for @ip.  Hard IRQ, on the event's CPU. */
static void ptsim_write_record(struct ptsim_event *ev, u64 seq, u64 ip)
{
	u8 bytes[PTSIM_MAX_WRITE_LEN];
	size_t len;
	bool psb;

	if (!ev->active && !ptsim_begin(ev)) {
		ptsim_drop(ev);
		return;
	}

	psb = ev->need_psb || ev->psb_bytes >= ev->psb_period;
	len = PTSIM_RECORD_LEN + (psb ? PTSIM_PSB_PLUS_LEN : 0);

	if (!ev->buf->overwrite && len > ptsim_room(ev)) {
		/* Commit, then see whether the consumer has made room. */
		ptsim_end(ev);
		if (!ptsim_begin(ev)) {
			ptsim_drop(ev);
			return;
		}
		if (len > ptsim_room(ev)) {
			/* No room: drop, reporting the gap where it starts. */
			if (!ev->gap)
				perf_aux_output_flag(&ev->handle,
						     PERF_AUX_FLAG_TRUNCATED);
			ptsim_end(ev);
			ev->gap = true;
			ev->need_psb = true;
			return;
		}
	}

	len = 0;
	if (psb) {
		/*
		 * The TSC packet carries the event's perf clock in ns:
		 * local_clock() unless attr.use_clockid picked another one.
		 * It is monotonic on a CPU and NMI safe, and it is the clock
		 * of the event's sample and sideband time stamps (AUX,
		 * ITRACE_START, SWITCH records), so tooling can order the
		 * trace against them without any TSC conversion.
		 */
		len = ptsim_encode_psb_plus(bytes, ev->event->clock());
		ev->psb_bytes = 0;
	}
	len += ptsim_encode_record(bytes + len, seq, ip);

	ptsim_commit(ev, bytes, len);
	ev->psb_bytes += len;
	ev->need_psb = false;
	ev->gap = false;

	/*
	 * Past the wakeup watermark, commit so that the consumer is woken
	 * and sees the data; the stream goes on seamlessly in the new
	 * handle.  If none can be had, the next tick will find out.
	 */
	if (!ev->buf->overwrite &&
	    (long)(ev->pos - ev->handle.wakeup) >= 0) {
		ptsim_end(ev);
		ptsim_begin(ev);
	}
}

static bool ptsim_excluded(struct perf_event *event, struct pt_regs *regs)
{
	if (user_mode(regs))
		return event->attr.exclude_user;
	return event->attr.exclude_kernel;
}

/*
 * The hrtimer callback, in hard IRQ context on the event's CPU.  The timer
 * is armed only between ->start() and ->stop(), which cancels it, and the
 * pmu callbacks run with IRQs disabled, so this never runs concurrently
 * with them.
 */
static enum hrtimer_restart ptsim_tick(struct hrtimer *timer)
{
	struct ptsim_event *ev = container_of(timer, struct ptsim_event, timer);
	struct perf_event *event = ev->event;
	struct pt_regs *regs = get_irq_regs();

	if (regs && !ptsim_excluded(event, regs)) {
		ev->seq++;
		local64_inc(&event->count);
		ptsim_write_record(ev, ev->seq, instruction_pointer(regs));
	}

	hrtimer_forward_now(timer, ns_to_ktime(ev->interval));
	return HRTIMER_RESTART;
}

static void ptsim_start(struct perf_event *event, int flags)
{
	struct ptsim_event *ev = event->pmu_private;
	s64 period = ev->left ? ev->left : ev->interval;

	event->hw.state = 0;
	ev->left = 0;

	/* Tracing into a buffer (re)starts: the first record gets a PSB+. */
	ev->need_psb = true;
	if (!ev->active)
		ptsim_begin(ev);

	hrtimer_start(&ev->timer, ns_to_ktime(period),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void ptsim_stop(struct perf_event *event, int flags)
{
	struct ptsim_event *ev = event->pmu_private;
	s64 left;

	if (event->hw.state & PERF_HES_STOPPED)
		return;

	/*
	 * Keep the rest of the interval for the next ->start(), so that an
	 * event that runs in slices shorter than the interval still ticks.
	 */
	left = ktime_to_ns(hrtimer_get_remaining(&ev->timer));
	ev->left = clamp_t(s64, left, 1, ev->interval);
	hrtimer_cancel(&ev->timer);

	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;

	/* Emits PERF_RECORD_AUX with what was written since ->start(). */
	if (ev->active)
		ptsim_end(ev);
}

static int ptsim_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		ptsim_start(event, PERF_EF_RELOAD);
	return 0;
}

static void ptsim_del(struct perf_event *event, int flags)
{
	ptsim_stop(event, PERF_EF_UPDATE);
}

/* The count is kept up to date by ptsim_tick(). */
static void ptsim_read(struct perf_event *event)
{
}

/*
 * AUX sampling: copy the most recent trace of @event's buffer into the
 * sample that @handle is writing.  IRQs are disabled, and this may be an
 * NMI that interrupted ptsim_commit() or the handle changes in
 * ptsim_write_record() on this CPU.  The trace copied ends at the last
 * complete record (->committed), and goes back no further than the bytes
 * the writer may be overwriting.
 *
 * perf_aux_sample_output() has already sized the sample for @size bytes (or
 * for what perf_aux_snapshot_position() leaves of them to a sample of new
 * trace only) and WARNs if fewer than @size - 7 are returned, so whatever
 * cannot be trace (less than @size written yet, no AUX handle held because
 * the buffer is full or in use by another event, ...) is made up with PAD
 * packets before the trace.  The trace's position in the stream is exact: ->committed
 * counts every byte the event wrote (PERF_PMU_CAP_AUX_POSITION).
 */
static long ptsim_snapshot_aux(struct perf_event *event,
			       struct perf_output_handle *handle,
			       unsigned long size)
{
	struct ptsim_event *ev = event->pmu_private;
	unsigned long trace = 0, to = 0, pad;
	long ret;

	/* A group leader's samples must be filled: see above. */
	if (READ_ONCE(ptsim_no_positions) && event->aux_hidden)
		return 0;

	if (READ_ONCE(ev->active) && !READ_ONCE(ptsim_snapshot_no_trace)) {
		struct ptsim_buf *buf = READ_ONCE(ev->buf);
		unsigned long busy;

		to = READ_ONCE(ev->committed);
		busy = READ_ONCE(ev->reserved) - to;
		trace = min3(size, READ_ONCE(buf->filled), buf->size - busy);
	}

	trace = perf_aux_snapshot_position(handle, event, to, trace, &size);

	/*
	 * Padding goes first, as in the last @size bytes of a real Intel
	 * PT buffer that holds less trace than that: the sample then ends
	 * with the trace, which is where tools look for its end.
	 */
	for (pad = size - trace; pad; pad -= ret) {
		ret = min_t(unsigned long, pad, sizeof(ptsim_pads));
		perf_output_copy(handle, ptsim_pads, ret);
	}

	if (trace) {
		ret = perf_output_copy_aux(&ev->handle, handle, to - trace, to);
		if (ret < 0)
			return ret;
	}

	return size;
}

static void *ptsim_setup_aux(struct perf_event *event, void **pages,
			     int nr_pages, bool overwrite)
{
	int node = event->cpu == -1 ? NUMA_NO_NODE : cpu_to_node(event->cpu);
	struct ptsim_buf *buf;

	/* perf_mmap() only allows a power of two AUX pages. */
	if (nr_pages <= 0 || !is_power_of_2(nr_pages) ||
	    READ_ONCE(ptsim_fail_setup_aux))
		return NULL;

	buf = kzalloc_node(sizeof(*buf), GFP_KERNEL, node);
	if (!buf)
		return NULL;

	buf->pages = pages;
	buf->nr_pages = nr_pages;
	buf->size = (unsigned long)nr_pages << PAGE_SHIFT;
	buf->overwrite = overwrite;
	return buf;
}

static void ptsim_free_aux(void *data)
{
	kfree(data);
}

static void ptsim_event_destroy(struct perf_event *event)
{
	kfree(event->pmu_private);
}

static int ptsim_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	int node = event->cpu == -1 ? NUMA_NO_NODE : cpu_to_node(event->cpu);
	struct ptsim_event *ev;
	u64 psb, interval;

	if (attr->type != ptsim_pmu.type)
		return -ENOENT;

	if (!READ_ONCE(ptsim_unprivileged) && !perfmon_capable())
		return -EACCES;

	/* There is no counter to overflow: no sampling. */
	if (is_sampling_event(event))
		return -EINVAL;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;

	if (attr->config & ~PTSIM_CONFIG_MASK ||
	    attr->config1 & ~PTSIM_CONFIG1_INTERVAL || attr->config2)
		return -EINVAL;

	psb = FIELD_GET(PTSIM_CONFIG_PSB_PERIOD, attr->config);
	if (psb > PTSIM_PSB_PERIOD_MAX)
		return -EINVAL;

	interval = FIELD_GET(PTSIM_CONFIG1_INTERVAL, attr->config1);
	if (!interval)
		interval = PTSIM_INTERVAL_DEFAULT_US;
	else if (interval < PTSIM_INTERVAL_MIN_US)
		return -EINVAL;

	ev = kzalloc_node(sizeof(*ev), GFP_KERNEL, node);
	if (!ev)
		return -ENOMEM;

	ev->event = event;
	ev->interval = interval * NSEC_PER_USEC;
	ev->psb_period = 1UL << (psb + PTSIM_PSB_PERIOD_SHIFT);
	INIT_LIST_HEAD(&ev->node);
	hrtimer_init(&ev->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ev->timer.function = ptsim_tick;

	event->pmu_private = ev;
	event->destroy = ptsim_event_destroy;
	return 0;
}

PMU_FORMAT_ATTR(fup_on_ptw,	"config:5");
PMU_FORMAT_ATTR(tsc,		"config:10");
PMU_FORMAT_ATTR(ptw,		"config:12");
PMU_FORMAT_ATTR(branch,		"config:13");
PMU_FORMAT_ATTR(psb_period,	"config:24-27");
PMU_FORMAT_ATTR(interval,	"config1:0-19");

static struct attribute *ptsim_format_attrs[] = {
	&format_attr_fup_on_ptw.attr,
	&format_attr_tsc.attr,
	&format_attr_ptw.attr,
	&format_attr_branch.attr,
	&format_attr_psb_period.attr,
	&format_attr_interval.attr,
	NULL,
};

static const struct attribute_group ptsim_format_group = {
	.name	= "format",
	.attrs	= ptsim_format_attrs,
};

/*
 * caps/: the capabilities of the simulated unit, named and printed (in hex)
 * like intel_pt's, so that tooling can read them the same way.
 */
struct ptsim_cap_attr {
	struct device_attribute	attr;
	u32			value;
};

static ssize_t ptsim_cap_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct ptsim_cap_attr *cap = container_of(attr, struct ptsim_cap_attr,
						  attr);

	return sysfs_emit(buf, "%x\n", cap->value);
}

#define PTSIM_CAP(_name, _value)					\
	static struct ptsim_cap_attr ptsim_cap_##_name = {		\
		.attr	= __ATTR(_name, 0444, ptsim_cap_show, NULL),	\
		.value	= _value,					\
	}

PTSIM_CAP(max_subleaf, 1);
PTSIM_CAP(cr3_filtering, 0);
PTSIM_CAP(psb_cyc, 0);
PTSIM_CAP(ip_filtering, 0);
PTSIM_CAP(mtc, 0);
PTSIM_CAP(ptwrite, 1);
PTSIM_CAP(power_event_trace, 0);
PTSIM_CAP(event_trace, 0);
PTSIM_CAP(tnt_disable, 0);
PTSIM_CAP(topa_output, 0);
PTSIM_CAP(topa_multiple_entries, 0);
PTSIM_CAP(single_range_output, 0);
PTSIM_CAP(output_subsys, 0);
PTSIM_CAP(payloads_lip, 0);
PTSIM_CAP(num_address_ranges, 0);
PTSIM_CAP(mtc_periods, 0);
PTSIM_CAP(cycle_thresholds, 0);
PTSIM_CAP(psb_periods, GENMASK(PTSIM_PSB_PERIOD_MAX, 0));

static struct attribute *ptsim_cap_attrs[] = {
	&ptsim_cap_max_subleaf.attr.attr,
	&ptsim_cap_cr3_filtering.attr.attr,
	&ptsim_cap_psb_cyc.attr.attr,
	&ptsim_cap_ip_filtering.attr.attr,
	&ptsim_cap_mtc.attr.attr,
	&ptsim_cap_ptwrite.attr.attr,
	&ptsim_cap_power_event_trace.attr.attr,
	&ptsim_cap_event_trace.attr.attr,
	&ptsim_cap_tnt_disable.attr.attr,
	&ptsim_cap_topa_output.attr.attr,
	&ptsim_cap_topa_multiple_entries.attr.attr,
	&ptsim_cap_single_range_output.attr.attr,
	&ptsim_cap_output_subsys.attr.attr,
	&ptsim_cap_payloads_lip.attr.attr,
	&ptsim_cap_num_address_ranges.attr.attr,
	&ptsim_cap_mtc_periods.attr.attr,
	&ptsim_cap_cycle_thresholds.attr.attr,
	&ptsim_cap_psb_periods.attr.attr,
	NULL,
};

static const struct attribute_group ptsim_cap_group = {
	.name	= "caps",
	.attrs	= ptsim_cap_attrs,
};

static const struct attribute_group *ptsim_attr_groups[] = {
	&ptsim_format_group,
	&ptsim_cap_group,
	NULL,
};

static struct pmu ptsim_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_sw_context,
	/*
	 * Not EXCLUSIVE: ptsim events do not share any hardware, so several
	 * can run at once, each tracing into its own buffer.  NO_INTERRUPT:
	 * there are no overflow interrupts to sample with.  NO_NMI: the
	 * perf clock is read in the hrtimer only, so any clockid will do.
	 */
	.capabilities	= PERF_PMU_CAP_ITRACE | PERF_PMU_CAP_NO_INTERRUPT |
			  PERF_PMU_CAP_NO_NMI | PERF_PMU_CAP_AUX_POSITION,
	.attr_groups	= ptsim_attr_groups,
	.event_init	= ptsim_event_init,
	.add		= ptsim_add,
	.del		= ptsim_del,
	.start		= ptsim_start,
	.stop		= ptsim_stop,
	.read		= ptsim_read,
	.setup_aux	= ptsim_setup_aux,
	.free_aux	= ptsim_free_aux,
	.snapshot_aux	= PTSIM_AUX_SAMPLING ? ptsim_snapshot_aux : NULL,
};

static int __init ptsim_init(void)
{
	int ret = perf_pmu_register(&ptsim_pmu, "ptsim", -1);

	if (ret)
		return ret;
	ptsim_debugfs = debugfs_create_dir("ptsim", NULL);
	debugfs_create_bool("unprivileged", 0600, ptsim_debugfs,
			    &ptsim_unprivileged);
	debugfs_create_bool("fail_setup_aux", 0600, ptsim_debugfs,
			    &ptsim_fail_setup_aux);
	debugfs_create_bool("snapshot_no_trace", 0600, ptsim_debugfs,
			    &ptsim_snapshot_no_trace);
	debugfs_create_bool("no_positions", 0600, ptsim_debugfs,
			    &ptsim_no_positions);
	return 0;
}
module_init(ptsim_init);

static void __exit ptsim_exit(void)
{
	debugfs_remove_recursive(ptsim_debugfs);
	perf_pmu_unregister(&ptsim_pmu);
}
module_exit(ptsim_exit);

MODULE_DESCRIPTION("Simulated Intel PT: a software AUX PMU writing a PT stream");
MODULE_LICENSE("GPL");
