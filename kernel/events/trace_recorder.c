// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware trace recorder: every CPU's latest hardware trace, kept from
 * boot (hwtrace= on the command line) or from when root turns it on, read
 * live without tools, frozen when asked, at an oops or in a panic.
 *
 * While it runs, each online CPU has a hidden AUX event (aux_sample.c) of
 * one AUX PMU that can tell trace positions (intel_pt, ptsim), in
 * overwrite mode, with a buffer of buffer_size_kb, charged to the user who
 * turned it on.  Beside it each CPU has a frozen copy: a header (struct
 * perf_hwtrace_header) and room for as much trace, physically contiguous
 * and allocated up front, so that the CPU can fill it where nothing may be
 * allocated: at an oops, in a panic, in an NMI.
 *
 * The files, in tracefs (hwtrace/, next to ftrace's own controls of the
 * same kind: tracing_on, buffer_size_kb, per_cpu/):
 *
 *   pmu, config, buffer_size_kb, mode	the settings; writing one drops
 *		the trace recorded with the old ones (EBUSY while tracing)
 *   tracing_on	1 starts the recorder; 0 freezes it: each CPU copies its
 *		trace, then stops; 1 again goes on with the same streams
 *   freeze_on_event	a perf event whose first overflow while recording
 *		freezes the recorder: a tracepoint's ID (events/SYSTEM/NAME/id),
 *		or its perf_event_attr fields type=,config=,config1=,config2=,
 *		bp_type=,period=; or none (a setting)
 *   freeze_on_oops	1: a CPU that oopses freezes its copy there
 *   per_cpu/cpuN/trace	CPU N's latest trace: taken when the file is
 *		opened while the CPU traces, its frozen copy once it stopped
 *
 * A panic freezes the copy of the CPU that panics; the architecture's
 * crash paths freeze the others' (perf_hwtrace_crash_cpu()), the hard
 * lockup detector that of the CPU it finds stuck
 * (perf_hwtrace_lockup_cpu()), and a reboot freezes them all.  A CPU that
 * froze already keeps what it has: each copy is made once a run.  With a
 * store (hwtrace_store=), the copies live in it and the next boot reads
 * them (trace_recorder_store.c).
 *
 * Locking: hwtrace_mutex serializes the settings, the state and the CPUs'
 * events and copies.  It nests inside the CPU hotplug lock (the hotplug
 * callbacks run with it held) and outside perf_event_context::mutex.
 * A CPU freezes its own copy with IRQs disabled; hc->frozen says it did,
 * and whether it is done.
 * The crash paths read a CPU's event and copy without the mutex: they are
 * cleared before they are freed, and freed after an RCU grace period.
 * The freeze_on_event events have a mutex of their own: see "Triggers".
 */

#include <linux/buildid.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/crash_core.h>
#include <linux/io.h>
#include <linux/irq_work.h>
#include <linux/kdebug.h>
#include <linux/panic_notifier.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/sched/user.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracefs.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <asm/sections.h>

#include "internal.h"

#define HWTRACE_DEFAULT_SIZE	SZ_64K
/*
 * A frozen copy is one physically contiguous allocation: with its header,
 * at most 1 MiB (an order-8 allocation).
 */
#define HWTRACE_MAX_SIZE	(SZ_1M - PAGE_SIZE)

/* A CPU's hwtrace_cpu::frozen */
enum {
	HWTRACE_LIVE,
	HWTRACE_FREEZING,
	HWTRACE_FROZEN_DONE,
};

enum hwtrace_state {
	HWTRACE_OFF,		/* no events, no copies */
	HWTRACE_ON,		/* tracing */
	HWTRACE_FROZEN,		/* stopped; the copies hold the trace */
};

/*
 * freeze_on_event: the perf event whose overflow freezes the recorder, in
 * the fields of perf_event_attr of these names (config1 is bp_addr, config2
 * bp_len); a period of 0 is none.  A tracepoint is PERF_TYPE_TRACEPOINT,
 * its ID the config, with a period of 1.
 */
struct hwtrace_trigger {
	u32	type;
	u32	bp_type;
	u64	config;
	u64	config1;
	u64	config2;
	u64	period;
};

struct hwtrace_cfg {
	char			pmu[32];
	u64			config;
	u32			size;
	bool			kernel;
	bool			user;
	struct hwtrace_trigger	trigger;	/* freeze_on_event */
};

/**
 * struct hwtrace_cpu - a CPU's part of the recorder
 * @event: its hidden AUX event, while it is online and the recorder has
 *	buffers
 * @hdr: its frozen copy: the header, then the trace
 * @copy: the room of @hdr, for perf_aux_copy()
 * @frozen: HWTRACE_LIVE; HWTRACE_FREEZING while the CPU fills @hdr;
 *	HWTRACE_FROZEN_DONE once @hdr holds the trace up to where it stopped
 * @trigger: its freeze_on_event event, made as @trigger_attr says after
 *	the CPU came online for the @trigger_gen'th time
 * @online_gen: how many times the CPU came online
 */
struct hwtrace_cpu {
	struct perf_event		*event;
	struct perf_hwtrace_header	*hdr;
	struct perf_aux_copy		copy;
	atomic_t			frozen;
	struct perf_event		*trigger;
	struct hwtrace_trigger		trigger_attr;
	unsigned int			trigger_gen;
	unsigned int			online_gen;
};

static DEFINE_PER_CPU(struct hwtrace_cpu, hwtrace_cpus);
static DEFINE_MUTEX(hwtrace_mutex);
static enum hwtrace_state hwtrace_state;
static struct hwtrace_cfg hwtrace_cfg = {
	.size	= HWTRACE_DEFAULT_SIZE,
	.kernel	= true,
	.user	= true,
};

static bool hwtrace_freeze_on_oops = true;
static struct user_struct *hwtrace_user;
/* What every copy's header starts with, made when the recorder starts. */
static struct perf_hwtrace_header hwtrace_hdr;
/* Where kdump finds the copies: see hwtrace_vmcoreinfo(). */
static u64 *hwtrace_copies_phys;
/* The CPUs' events and copies may be used without the mutex. */
static bool hwtrace_published;
/* Each start and resume begins a new session, never 0 ... */
static u32 hwtrace_session;
/* ... and a freeze_on_event event's hit says which it froze (0: none). */
static atomic_t hwtrace_fired;

static void hwtrace_trigger_changed(void);

/*
 * @cpu's hidden event as the settings say; whether the PMU can give
 * positioned copies is checked as it is created.
 */
static struct perf_event *hwtrace_event_create(int cpu)
{
	struct perf_event_attr attr = {
		.size			= sizeof(attr),
		.type			= hwtrace_hdr.type,
		.config			= hwtrace_cfg.config,
		.exclude_kernel		= !hwtrace_cfg.kernel,
		.exclude_user		= !hwtrace_cfg.user,
		.exclude_hv		= 1,
		.aux_sample_flags	= PERF_AUX_SAMPLE_POSITION,
	};

	return perf_aux_hidden_create_kernel(&attr, cpu, NULL,
					     hwtrace_cfg.size, hwtrace_user);
}

static size_t hwtrace_copy_bytes(void)
{
	return perf_aux_copy_pages(sizeof(hwtrace_hdr), hwtrace_cfg.size) *
	       PAGE_SIZE;
}

/* The room of a frozen copy: the store's, or pages of its own. */
static void *hwtrace_copy_room(int cpu, phys_addr_t *phys)
{
	void *buf = hwtrace_store_slot(cpu, phys);

	if (buf)
		return buf;
	buf = alloc_pages_exact(hwtrace_copy_bytes(),
				GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (buf)
		*phys = virt_to_phys(buf);
	return buf;
}

static void hwtrace_copy_room_free(int cpu, void *buf)
{
	phys_addr_t phys;

	if (buf != hwtrace_store_slot(cpu, &phys))
		free_pages_exact(buf, hwtrace_copy_bytes());
}

/* Give @cpu its frozen copy, if it has none yet. */
static int hwtrace_copy_alloc(int cpu)
{
	struct hwtrace_cpu *hc = per_cpu_ptr(&hwtrace_cpus, cpu);
	phys_addr_t phys;
	void *buf;
	int ret;

	if (hc->hdr)
		return 0;
	buf = hwtrace_copy_room(cpu, &phys);
	if (!buf)
		return -ENOMEM;
	ret = perf_aux_copy_init(&hc->copy, buf, sizeof(hwtrace_hdr),
				 hwtrace_cfg.size);
	if (ret) {
		hwtrace_copy_room_free(cpu, buf);
		return ret;
	}
	WRITE_ONCE(hc->hdr, buf);
	if (hwtrace_copies_phys)
		hwtrace_copies_phys[cpu] = phys;
	return 0;
}

/*
 * Copy @event's latest trace into @c, whose buffer starts with a header,
 * and fill the header in.  On @event's CPU, IRQs disabled.
 */
static void hwtrace_take(struct perf_aux_copy *c, struct perf_event *event,
			 u64 flags)
{
	struct perf_hwtrace_header *hdr = c->buf;
	struct perf_aux_sample_position pos;

	pos = perf_aux_copy(c, event);
	*hdr = hwtrace_hdr;
	hdr->cpu = smp_processor_id();
	hdr->flags |= flags;
	if (pos.offset)
		hdr->flags |= PERF_HWTRACE_WRAPPED;
	hdr->stream = event->id;
	hdr->offset = pos.offset;
	hdr->size = pos.size;
	hdr->time = event->clock();
}

/*
 * Freeze this CPU's copy, unless it froze already: the first to claim it
 * fills it, and only then says it is done, for readers on other CPUs.
 * Any context, maybe NMI; the copy is taken with IRQs disabled.
 */
static void hwtrace_freeze_this_cpu(u64 flags)
{
	struct hwtrace_cpu *hc;
	struct perf_event *event;
	unsigned long irqs;

	local_irq_save(irqs);
	hc = this_cpu_ptr(&hwtrace_cpus);
	event = READ_ONCE(hc->event);
	if (READ_ONCE(hwtrace_published) && event && READ_ONCE(hc->hdr) &&
	    atomic_cmpxchg(&hc->frozen, HWTRACE_LIVE, HWTRACE_FREEZING) ==
	    HWTRACE_LIVE) {
		hwtrace_take(&hc->copy, event, PERF_HWTRACE_FROZEN | flags);
		hwtrace_store_seal(hc->hdr);
		atomic_set_release(&hc->frozen, HWTRACE_FROZEN_DONE);
	}
	local_irq_restore(irqs);
}

/**
 * perf_hwtrace_crash_cpu - freeze this CPU's hardware trace at a crash
 *
 * For the architecture's crash paths, on each CPU that they stop; before
 * they stop the CPU's trace themselves.
 *
 * Context: any, maybe NMI.
 */
void perf_hwtrace_crash_cpu(void)
{
	hwtrace_freeze_this_cpu(PERF_HWTRACE_CRASH);
}

/**
 * perf_hwtrace_lockup_cpu - freeze this CPU's hardware trace at a hard lockup
 *
 * For the hard lockup detector, on the CPU it finds stuck, before it
 * reports: the copy ends with the code that held the CPU with interrupts
 * off, and the NMI that found it.  The CPU may recover; its copy stays.
 *
 * Context: NMI.
 */
void perf_hwtrace_lockup_cpu(void)
{
	hwtrace_freeze_this_cpu(PERF_HWTRACE_LOCKUP);
}

static void hwtrace_freeze_ipi(void *unused)
{
	hwtrace_freeze_this_cpu(0);
}

/* Drop the event of @cpu, keeping its copy. */
static void hwtrace_event_drop(int cpu)
{
	struct hwtrace_cpu *hc = per_cpu_ptr(&hwtrace_cpus, cpu);
	struct perf_event *event = hc->event;

	if (!event)
		return;
	WRITE_ONCE(hc->event, NULL);
	synchronize_rcu();
	perf_event_release_kernel(event);
}

/* Drop every event and copy: the recorder has nothing. */
static void hwtrace_drop(void)
{
	struct hwtrace_cpu *hc;
	int cpu;

	lockdep_assert_held(&hwtrace_mutex);
	/* One grace period for all: then nothing reaches them. */
	WRITE_ONCE(hwtrace_published, false);
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		hc = per_cpu_ptr(&hwtrace_cpus, cpu);
		if (hc->event)
			perf_event_release_kernel(hc->event);
		hc->event = NULL;
		hc = per_cpu_ptr(&hwtrace_cpus, cpu);
		if (!hc->hdr)
			continue;
		if (hwtrace_copies_phys)
			hwtrace_copies_phys[cpu] = 0;
		perf_aux_copy_exit(&hc->copy);
		hwtrace_store_unseal(cpu);
		hwtrace_copy_room_free(cpu, hc->hdr);
		hc->hdr = NULL;
		atomic_set(&hc->frozen, HWTRACE_LIVE);
	}
	free_uid(hwtrace_user);
	hwtrace_user = NULL;
	hwtrace_state = HWTRACE_OFF;
	hwtrace_trigger_changed();
}

/*
 * Start tracing on @cpu, online, with a copy of its own.  A copy it froze
 * before stays until it traces again: then it is no longer a frozen one,
 * for kdump either.
 */
static int hwtrace_cpu_start(int cpu)
{
	struct hwtrace_cpu *hc = per_cpu_ptr(&hwtrace_cpus, cpu);
	struct perf_event *event;
	int ret;

	ret = hwtrace_copy_alloc(cpu);
	if (ret)
		return ret;
	if (hc->event) {
		perf_event_enable(hc->event);
	} else {
		event = hwtrace_event_create(cpu);
		if (IS_ERR(event))
			return PTR_ERR(event);
		WRITE_ONCE(hc->event, event);
	}
	hwtrace_store_unseal(cpu);
	memset(hc->hdr, 0, sizeof(*hc->hdr));
	atomic_set(&hc->frozen, HWTRACE_LIVE);
	return 0;
}

/* What every header of this run says. */
static void hwtrace_hdr_init(int type)
{
	struct perf_hwtrace_header *hdr = &hwtrace_hdr;

	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = PERF_HWTRACE_MAGIC;
	hdr->version = PERF_HWTRACE_VERSION;
	hdr->hdr_size = sizeof(*hdr);
	hdr->type = type;
	hdr->config = hwtrace_cfg.config;
	if (hwtrace_cfg.kernel)
		hdr->flags |= PERF_HWTRACE_KERNEL;
	if (hwtrace_cfg.user)
		hdr->flags |= PERF_HWTRACE_USER;
	hdr->kernel_text = (unsigned long)_stext;
#if IS_ENABLED(CONFIG_STACKTRACE_BUILD_ID) || IS_ENABLED(CONFIG_CRASH_CORE)
	memcpy(hdr->build_id, vmlinux_build_id, sizeof(hdr->build_id));
	if (memchr_inv(hdr->build_id, 0, sizeof(hdr->build_id)))
		hdr->build_id_size = sizeof(hdr->build_id);
#endif
	strscpy(hdr->pmu, hwtrace_cfg.pmu, sizeof(hdr->pmu));
}

/*
 * How the trace's time stamps convert to perf clock, as the PMU tells a
 * user page of @event (Intel PT's TSC packets).
 */
static void hwtrace_hdr_time(struct perf_event *event)
{
	struct perf_event_mmap_page *pg = kzalloc(sizeof(*pg), GFP_KERNEL);

	if (!pg)
		return;
	arch_perf_update_userpage(event, pg, 0);
	if (pg->cap_user_time_zero) {
		hwtrace_hdr.time_zero = pg->time_zero;
		hwtrace_hdr.time_mult = pg->time_mult;
		hwtrace_hdr.time_shift = pg->time_shift;
		hwtrace_hdr.flags |= PERF_HWTRACE_TIME_ZERO;
	}
	kfree(pg);
}

/* Recording begins: a new session, which no trigger froze yet. */
static void hwtrace_record(void)
{
	if (!++hwtrace_session)
		hwtrace_session = 1;
	atomic_set(&hwtrace_fired, 0);
	hwtrace_state = HWTRACE_ON;
}

/* Turn the recorder on from nothing: every online CPU, or none. */
static int hwtrace_start(void)
{
	int cpu, type, ret = 0;

	lockdep_assert_cpus_held();
	lockdep_assert_held(&hwtrace_mutex);
	type = perf_pmu_type(hwtrace_cfg.pmu);
	if (type < 0)
		return type;
	ret = hwtrace_store_begin(hwtrace_copy_bytes());
	if (ret)
		return ret;
	hwtrace_hdr_init(type);
	hwtrace_user = get_current_user();
	hwtrace_record();
	for_each_online_cpu(cpu) {
		ret = hwtrace_cpu_start(cpu);
		if (ret)
			break;
	}
	if (ret) {
		hwtrace_drop();
		return ret;
	}
	hwtrace_hdr_time(per_cpu(hwtrace_cpus, cpumask_first(cpu_online_mask)).event);
	/* The header is whole: the crash paths may copy now. */
	WRITE_ONCE(hwtrace_published, true);
	return 0;
}

/* Freeze every CPU's copy, then stop their trace. */
static void hwtrace_freeze(void)
{
	int cpu;

	lockdep_assert_cpus_held();
	lockdep_assert_held(&hwtrace_mutex);
	on_each_cpu(hwtrace_freeze_ipi, NULL, 1);
	for_each_online_cpu(cpu) {
		if (per_cpu(hwtrace_cpus, cpu).event)
			perf_event_disable(per_cpu(hwtrace_cpus, cpu).event);
	}
	hwtrace_state = HWTRACE_FROZEN;
	hwtrace_trigger_changed();
}

/*
 * Go on after a freeze, with the same streams.  A CPU that cannot (one
 * that came online meanwhile, on a PMU taken there) keeps its frozen copy,
 * as one that comes online and cannot trace does; the first error is
 * returned.
 */
static int hwtrace_resume(void)
{
	int cpu, err, ret = 0;

	for_each_online_cpu(cpu) {
		err = hwtrace_cpu_start(cpu);
		ret = ret ?: err;
	}
	hwtrace_record();
	return ret;
}

/*
 * Triggers.  With freeze_on_event set, each online CPU counts that event
 * (a tracepoint, a counter, a breakpoint), while the recorder records, in
 * a kernel event of its own.  A hit, its overflow, freezes the copy of the CPU it happens on,
 * there, flagged PERF_HWTRACE_TRIGGER, and then hwtrace_fired_work the
 * others, if the session it froze is still recording.
 *
 * Making a tracepoint event may register the tracepoint, which takes
 * event_mutex and then the CPU hotplug lock; the hotplug callbacks and the
 * recorder's changes of state run with that lock (and hwtrace_mutex) held.
 * So the events are made and released with no lock of the recorder's
 * held: by hwtrace_trigger_sync(), under hwtrace_trigger_mutex once it has
 * read the state under hwtrace_mutex, called by the writer of tracing_on
 * once recording and by hwtrace_trigger_work, which every other change
 * queues; and one, disabled, by the writer of freeze_on_event, to try it.
 * hwtrace_trigger_sync() gives each CPU that is online while the recorder
 * records an event of the one set, and releases the rest.
 * perf takes a CPU's events off it when it goes offline, and one made for
 * a CPU on its way down is on none: an event made before the CPU last came
 * online (hwtrace_cpu::online_gen) is released and made again.
 */
static DEFINE_MUTEX(hwtrace_trigger_mutex);

/* A trigger's hit froze its CPU: freeze the others, in that session. */
static void hwtrace_fired_fn(struct work_struct *work)
{
	cpus_read_lock();
	mutex_lock(&hwtrace_mutex);
	if (hwtrace_state == HWTRACE_ON &&
	    atomic_read(&hwtrace_fired) == hwtrace_session)
		hwtrace_freeze();
	mutex_unlock(&hwtrace_mutex);
	cpus_read_unlock();
}

static DECLARE_WORK(hwtrace_fired_work, hwtrace_fired_fn);

static void hwtrace_fired_irq_work(struct irq_work *work)
{
	schedule_work(&hwtrace_fired_work);
}

static DEFINE_IRQ_WORK(hwtrace_fired_irq, hwtrace_fired_irq_work);

/*
 * A hit of the freeze_on_event event, on the CPU it happened on.
 * Context: the event's overflow, preemption disabled: a tracepoint's, a
 * hardware counter's NMI, a breakpoint's debug exception.
 */
static void hwtrace_trigger_hit(struct perf_event *event,
				struct perf_sample_data *data,
				struct pt_regs *regs)
{
	hwtrace_freeze_this_cpu(PERF_HWTRACE_TRIGGER);
	if (!atomic_cmpxchg(&hwtrace_fired, 0, READ_ONCE(hwtrace_session)))
		irq_work_queue(&hwtrace_fired_irq);
}

static struct perf_event *
hwtrace_trigger_create(int cpu, const struct hwtrace_trigger *t, bool disabled)
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= t->type,
		.config		= t->config,
		.config1	= t->config1,
		.config2	= t->config2,
		.bp_type	= t->bp_type,
		.sample_period	= t->period,
		.pinned		= 1,
		.disabled	= disabled,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL,
						hwtrace_trigger_hit, NULL);
}

/* Give @cpu the trigger it should have: @t's event, or none (@want). */
static int hwtrace_trigger_sync_cpu(int cpu, bool want,
				    const struct hwtrace_trigger *t)
{
	struct hwtrace_cpu *hc = per_cpu_ptr(&hwtrace_cpus, cpu);
	unsigned int gen = READ_ONCE(hc->online_gen);
	struct perf_event *event;

	lockdep_assert_held(&hwtrace_trigger_mutex);
	if (hc->trigger && (!want || memcmp(&hc->trigger_attr, t, sizeof(*t)) ||
			    hc->trigger_gen != gen)) {
		perf_event_release_kernel(hc->trigger);
		hc->trigger = NULL;
	}
	if (!want || hc->trigger)
		return 0;
	event = hwtrace_trigger_create(cpu, t, false);
	if (IS_ERR(event))
		return PTR_ERR(event);
	hc->trigger = event;
	hc->trigger_attr = *t;
	hc->trigger_gen = gen;
	return 0;
}

/*
 * Make every CPU's trigger what the recorder's state says, as it is now;
 * each change of it after this is read calls this again.  Returns the
 * first error: a CPU that cannot have its trigger has none.
 */
static int hwtrace_trigger_sync(void)
{
	struct hwtrace_trigger t;
	int cpu, err, ret = 0;
	bool on;

	mutex_lock(&hwtrace_trigger_mutex);
	mutex_lock(&hwtrace_mutex);
	t = hwtrace_cfg.trigger;
	on = hwtrace_state == HWTRACE_ON && t.period;
	mutex_unlock(&hwtrace_mutex);
	for_each_possible_cpu(cpu) {
		err = hwtrace_trigger_sync_cpu(cpu, on && cpu_online(cpu), &t);
		ret = ret ?: err;
	}
	mutex_unlock(&hwtrace_trigger_mutex);
	return ret;
}

static void hwtrace_trigger_work_fn(struct work_struct *work)
{
	int ret = hwtrace_trigger_sync();

	if (ret)
		pr_warn("hwtrace: a CPU has no freeze_on_event event: %d\n", ret);
}

static DECLARE_WORK(hwtrace_trigger_work, hwtrace_trigger_work_fn);

/* The state, the setting or the online CPUs changed. */
static void hwtrace_trigger_changed(void)
{
	schedule_work(&hwtrace_trigger_work);
}

/* Whether @t can be a trigger: an error if not. */
static int hwtrace_trigger_check(const struct hwtrace_trigger *t)
{
	struct perf_event *event;

	if (!t->period)
		return 0;
	event = hwtrace_trigger_create(raw_smp_processor_id(), t, true);
	if (IS_ERR(event))
		return PTR_ERR(event);
	perf_event_release_kernel(event);
	return 0;
}

static int hwtrace_set_on(bool on)
{
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&hwtrace_mutex);
	if (on && hwtrace_state == HWTRACE_OFF)
		ret = hwtrace_start();
	else if (on && hwtrace_state == HWTRACE_FROZEN)
		ret = hwtrace_resume();
	else if (!on && hwtrace_state == HWTRACE_ON)
		hwtrace_freeze();
	mutex_unlock(&hwtrace_mutex);
	cpus_read_unlock();
	/* Armed before the write returns */
	if (on && !ret && hwtrace_trigger_sync())
		pr_warn("hwtrace: a CPU has no freeze_on_event event\n");
	return ret;
}

static int hwtrace_cpu_online(unsigned int cpu)
{
	mutex_lock(&hwtrace_mutex);
	/* A CPU that cannot trace stays up: its file gives no trace. */
	if (hwtrace_state == HWTRACE_ON && hwtrace_cpu_start(cpu))
		pr_warn("hwtrace: CPU %u does not trace\n", cpu);
	/* A trigger made before now is not on it: see "Triggers" */
	per_cpu(hwtrace_cpus, cpu).online_gen++;
	hwtrace_trigger_changed();
	mutex_unlock(&hwtrace_mutex);
	return 0;
}

/* A CPU going away keeps its trace up to here in its frozen copy. */
static int hwtrace_cpu_offline(unsigned int cpu)
{
	mutex_lock(&hwtrace_mutex);
	hwtrace_freeze_this_cpu(0);
	hwtrace_event_drop(cpu);
	hwtrace_trigger_changed();
	mutex_unlock(&hwtrace_mutex);
	return 0;
}

static int hwtrace_panic(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	perf_hwtrace_crash_cpu();
	return NOTIFY_DONE;
}

static struct notifier_block hwtrace_panic_nb = {
	.notifier_call	= hwtrace_panic,
	.priority	= INT_MAX,	/* before the others add to the trace */
};

static int hwtrace_die(struct notifier_block *nb, unsigned long action,
		       void *data)
{
	if (action == DIE_OOPS && READ_ONCE(hwtrace_freeze_on_oops))
		perf_hwtrace_crash_cpu();
	return NOTIFY_DONE;
}

static struct notifier_block hwtrace_die_nb = {
	.notifier_call	= hwtrace_die,
	.priority	= INT_MAX,
};

/* A reboot freezes the recorder: the store keeps the trace up to here. */
static int hwtrace_reboot(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	hwtrace_set_on(false);
	return NOTIFY_DONE;
}

static struct notifier_block hwtrace_reboot_nb = {
	.notifier_call	= hwtrace_reboot,
};

/* A CPU's trace, as its file was opened. */
struct hwtrace_snapshot {
	void		*buf;
	size_t		len;
};

struct hwtrace_live {
	struct perf_aux_copy	copy;
	int			done;
};

static void hwtrace_live_ipi(void *data)
{
	struct hwtrace_live *live = data;
	struct perf_event *event = this_cpu_read(hwtrace_cpus.event);

	if (event &&
	    atomic_read(this_cpu_ptr(&hwtrace_cpus.frozen)) == HWTRACE_LIVE) {
		hwtrace_take(&live->copy, event, 0);
		live->done = 1;
	}
}

/*
 * Copy @cpu's trace into @buf: its latest while it traces, else its frozen
 * copy.  Returns the bytes copied, header included, -ENODATA for none, or
 * -EAGAIN while the CPU freezes its copy.
 */
static ssize_t hwtrace_read_cpu(int cpu, void *buf)
{
	struct hwtrace_cpu *hc = per_cpu_ptr(&hwtrace_cpus, cpu);
	struct hwtrace_live live = {};
	struct perf_hwtrace_header *hdr = buf;
	int ret;

	lockdep_assert_held(&hwtrace_mutex);
	if (hc->event && atomic_read(&hc->frozen) == HWTRACE_LIVE) {
		ret = perf_aux_copy_init(&live.copy, buf, sizeof(*hdr),
					 hwtrace_cfg.size);
		if (ret)
			return ret;
		smp_call_function_single(cpu, hwtrace_live_ipi, &live, 1);
		perf_aux_copy_exit(&live.copy);
		if (live.done)
			return sizeof(*hdr) + hdr->size;
	}
	/* It froze (or stopped to go offline), maybe right now. */
	if (!hc->hdr || atomic_read(&hc->frozen) == HWTRACE_LIVE)
		return -ENODATA;
	if (atomic_read_acquire(&hc->frozen) != HWTRACE_FROZEN_DONE)
		return -EAGAIN;
	memcpy(buf, hc->hdr, sizeof(*hdr) + hc->hdr->size);
	return sizeof(*hdr) + hdr->size;
}

static int hwtrace_trace_open(struct inode *inode, struct file *file)
{
	int cpu = (long)inode->i_private;
	struct hwtrace_snapshot *snap;
	ssize_t len = -ENODATA;

	snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;

	cpus_read_lock();
	mutex_lock(&hwtrace_mutex);
	if (hwtrace_state != HWTRACE_OFF) {
		snap->buf = __vmalloc(hwtrace_copy_bytes(),
				      GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		len = snap->buf ? hwtrace_read_cpu(cpu, snap->buf) : -ENOMEM;
	}
	mutex_unlock(&hwtrace_mutex);
	cpus_read_unlock();

	if (len < 0) {
		vfree(snap->buf);
		kfree(snap);
		return len;
	}
	snap->len = len;
	file->private_data = snap;
	return 0;
}

static ssize_t hwtrace_trace_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct hwtrace_snapshot *snap = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, snap->buf, snap->len);
}

static int hwtrace_trace_release(struct inode *inode, struct file *file)
{
	struct hwtrace_snapshot *snap = file->private_data;

	vfree(snap->buf);
	kfree(snap);
	return 0;
}

static const struct file_operations hwtrace_trace_fops = {
	.open		= hwtrace_trace_open,
	.read		= hwtrace_trace_read,
	.llseek		= default_llseek,
	.release	= hwtrace_trace_release,
};

/*
 * The settings' files.  Each shows and parses one setting; writing one
 * drops what the recorder holds, which it must not while it traces.
 */
enum hwtrace_knob {
	HWTRACE_PMU,
	HWTRACE_CONFIG,
	HWTRACE_SIZE,
	HWTRACE_MODE,
	HWTRACE_TRIGGER,
	HWTRACE_ON_KNOB,
	HWTRACE_OOPS,
};

/* A knob's value, read or written, ends within this many bytes */
#define HWTRACE_KNOB_MAX	192

static int hwtrace_show_trigger(char *buf, size_t len,
				const struct hwtrace_trigger *t)
{
	const struct hwtrace_trigger tp = {
		.type = PERF_TYPE_TRACEPOINT, .config = t->config, .period = 1,
	};

	if (!t->period)
		return scnprintf(buf, len, "none\n");
	if (!memcmp(t, &tp, sizeof(tp)))
		return scnprintf(buf, len, "%llu\n", t->config);
	return scnprintf(buf, len,
			 "type=%u,config=%#llx,config1=%#llx,config2=%#llx,bp_type=%u,period=%llu\n",
			 t->type, t->config, t->config1, t->config2, t->bp_type,
			 t->period);
}

static int hwtrace_show(char *buf, size_t len, enum hwtrace_knob knob)
{
	const struct hwtrace_cfg *cfg = &hwtrace_cfg;

	switch (knob) {
	case HWTRACE_PMU:
		return scnprintf(buf, len, "%s\n", cfg->pmu);
	case HWTRACE_CONFIG:
		return scnprintf(buf, len, "%#llx\n", cfg->config);
	case HWTRACE_SIZE:
		return scnprintf(buf, len, "%u\n", cfg->size / SZ_1K);
	case HWTRACE_MODE:
		return scnprintf(buf, len, "%s%s%s\n",
				 cfg->kernel ? "kernel" : "",
				 cfg->kernel && cfg->user ? "," : "",
				 cfg->user ? "user" : "");
	case HWTRACE_TRIGGER:
		return hwtrace_show_trigger(buf, len, &cfg->trigger);
	case HWTRACE_ON_KNOB:
		return scnprintf(buf, len, "%d\n", hwtrace_state == HWTRACE_ON);
	case HWTRACE_OOPS:
		return scnprintf(buf, len, "%d\n", hwtrace_freeze_on_oops);
	}
	return 0;
}

/* "kernel", "user" or both, comma-separated. */
static int hwtrace_parse_mode(char *s, struct hwtrace_cfg *cfg)
{
	char *word;

	cfg->kernel = false;
	cfg->user = false;
	while ((word = strsep(&s, ","))) {
		if (!strcmp(word, "kernel"))
			cfg->kernel = true;
		else if (!strcmp(word, "user"))
			cfg->user = true;
		else
			return -EINVAL;
	}
	return cfg->kernel || cfg->user ? 0 : -EINVAL;
}

enum hwtrace_trigger_key {
	HWTRACE_KEY_TYPE,
	HWTRACE_KEY_CONFIG,
	HWTRACE_KEY_CONFIG1,
	HWTRACE_KEY_CONFIG2,
	HWTRACE_KEY_BP_TYPE,
	HWTRACE_KEY_PERIOD,
};

static const char * const hwtrace_trigger_keys[] = {
	[HWTRACE_KEY_TYPE]	= "type",
	[HWTRACE_KEY_CONFIG]	= "config",
	[HWTRACE_KEY_CONFIG1]	= "config1",
	[HWTRACE_KEY_CONFIG2]	= "config2",
	[HWTRACE_KEY_BP_TYPE]	= "bp_type",
	[HWTRACE_KEY_PERIOD]	= "period",
};

/* Set @t's field @key (of hwtrace_trigger_keys, or < 0: none) to @val. */
static int hwtrace_set_trigger_key(struct hwtrace_trigger *t, int key, u64 val)
{
	u32 *u32_field = NULL;

	switch (key) {
	case HWTRACE_KEY_TYPE:
		u32_field = &t->type;
		break;
	case HWTRACE_KEY_BP_TYPE:
		u32_field = &t->bp_type;
		break;
	case HWTRACE_KEY_CONFIG:
		t->config = val;
		return 0;
	case HWTRACE_KEY_CONFIG1:
		t->config1 = val;
		return 0;
	case HWTRACE_KEY_CONFIG2:
		t->config2 = val;
		return 0;
	case HWTRACE_KEY_PERIOD:
		t->period = val;
		return 0;
	default:
		return -EINVAL;
	}
	if (val > U32_MAX)
		return -EINVAL;
	*u32_field = val;
	return 0;
}

/*
 * freeze_on_event: "none", a tracepoint's ID, or KEY=VALUE pairs,
 * comma-separated, of hwtrace_trigger_keys (the period 1 unless given).
 */
static int hwtrace_parse_trigger(const char *str, struct hwtrace_trigger *t)
{
	char buf[HWTRACE_KNOB_MAX], *s = buf, *word, *val;
	u64 v;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!strcmp(str, "none"))
		return 0;
	t->period = 1;
	if (!strchr(str, '=')) {
		t->type = PERF_TYPE_TRACEPOINT;
		return kstrtou64(str, 0, &t->config);
	}
	strscpy(buf, str, sizeof(buf));
	while ((val = strsep(&s, ","))) {
		word = strsep(&val, "=");
		if (!val)
			return -EINVAL;
		ret = kstrtou64(val, 0, &v) ?:
		      hwtrace_set_trigger_key(t, match_string(hwtrace_trigger_keys,
							      ARRAY_SIZE(hwtrace_trigger_keys),
							      word), v);
		if (ret)
			return ret;
	}
	return t->period ? 0 : -EINVAL;
}

/* Parse @s, stripped, as @knob's value into @cfg. */
static int hwtrace_parse(char *s, enum hwtrace_knob knob,
			 struct hwtrace_cfg *cfg)
{
	unsigned int kb;
	int ret;

	switch (knob) {
	case HWTRACE_PMU:
		if (!*s || strlen(s) >= sizeof(cfg->pmu))
			return -EINVAL;
		strscpy(cfg->pmu, s, sizeof(cfg->pmu));
		return 0;
	case HWTRACE_CONFIG:
		return kstrtou64(s, 0, &cfg->config);
	case HWTRACE_SIZE:
		ret = kstrtouint(s, 0, &kb);
		if (ret)
			return ret;
		if (!kb || kb > HWTRACE_MAX_SIZE / SZ_1K)
			return -EINVAL;
		cfg->size = kb * SZ_1K;
		return 0;
	case HWTRACE_MODE:
		return hwtrace_parse_mode(s, cfg);
	case HWTRACE_TRIGGER:
		return hwtrace_parse_trigger(s, &cfg->trigger);
	default:
		return -EINVAL;
	}
}

static int hwtrace_store(char *s, enum hwtrace_knob knob)
{
	struct hwtrace_cfg cfg;
	bool val;
	int ret;

	if (knob == HWTRACE_ON_KNOB || knob == HWTRACE_OOPS) {
		ret = kstrtobool(s, &val);
		if (ret)
			return ret;
		if (knob == HWTRACE_OOPS) {
			WRITE_ONCE(hwtrace_freeze_on_oops, val);
			return 0;
		}
		return hwtrace_set_on(val);
	}
	/* A trigger is tried with no lock held: see "Triggers". */
	if (knob == HWTRACE_TRIGGER) {
		ret = hwtrace_parse(s, knob, &cfg) ?:
		      hwtrace_trigger_check(&cfg.trigger);
		if (ret)
			return ret;
	}

	mutex_lock(&hwtrace_mutex);
	cfg = hwtrace_cfg;
	ret = hwtrace_parse(s, knob, &cfg);
	if (!ret && hwtrace_state == HWTRACE_ON)
		ret = -EBUSY;
	if (!ret) {
		if (hwtrace_state == HWTRACE_FROZEN)
			hwtrace_drop();
		hwtrace_cfg = cfg;
	}
	mutex_unlock(&hwtrace_mutex);
	return ret;
}

static ssize_t hwtrace_knob_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	enum hwtrace_knob knob = (long)file_inode(file)->i_private;
	char buf[HWTRACE_KNOB_MAX];
	int len;

	mutex_lock(&hwtrace_mutex);
	len = hwtrace_show(buf, sizeof(buf), knob);
	mutex_unlock(&hwtrace_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t hwtrace_knob_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	enum hwtrace_knob knob = (long)file_inode(file)->i_private;
	char buf[HWTRACE_KNOB_MAX];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	ret = hwtrace_store(strim(buf), knob);
	return ret ? ret : count;
}

static const struct file_operations hwtrace_knob_fops = {
	.open		= nonseekable_open,
	.read		= hwtrace_knob_read,
	.write		= hwtrace_knob_write,
	.llseek		= no_llseek,
};

static const char * const hwtrace_knob_names[] = {
	[HWTRACE_PMU]		= "pmu",
	[HWTRACE_CONFIG]	= "config",
	[HWTRACE_SIZE]		= "buffer_size_kb",
	[HWTRACE_MODE]		= "mode",
	[HWTRACE_TRIGGER]	= "freeze_on_event",
	[HWTRACE_ON_KNOB]	= "tracing_on",
	[HWTRACE_OOPS]		= "freeze_on_oops",
};

static struct dentry * __init hwtrace_create_files(void)
{
	struct dentry *dir, *per_cpu, *d;
	char name[16];
	long i;

	dir = tracefs_create_dir("hwtrace", NULL);
	per_cpu = dir ? tracefs_create_dir("per_cpu", dir) : NULL;
	if (!per_cpu) {
		pr_warn("hwtrace: no tracefs directory\n");
		return NULL;
	}
	for (i = 0; i < ARRAY_SIZE(hwtrace_knob_names); i++)
		tracefs_create_file(hwtrace_knob_names[i], 0600, dir,
				    (void *)i, &hwtrace_knob_fops);
	for_each_possible_cpu(i) {
		snprintf(name, sizeof(name), "cpu%ld", i);
		d = tracefs_create_dir(name, per_cpu);
		if (d)
			tracefs_create_file("trace", 0400, d, (void *)i,
					    &hwtrace_trace_fops);
	}
	return dir;
}

/*
 * For kdump: the physical address of each CPU's frozen copy (0 for none),
 * one u64 a possible CPU, in VMCOREINFO as HWTRACE=ADDR,NR_CPUS.
 */
static void __init hwtrace_vmcoreinfo(void)
{
#ifdef CONFIG_CRASH_CORE
	hwtrace_copies_phys = kcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL);
	if (hwtrace_copies_phys)
		vmcoreinfo_append_str("HWTRACE=%llx,%u\n",
				      (u64)virt_to_phys(hwtrace_copies_phys),
				      nr_cpu_ids);
#endif
}

static char hwtrace_cmdline[128] __initdata;

/*
 * hwtrace=PMU[,config=N][,size=KB][,kernel][,user]: start the recorder at
 * boot; kernel and user mode unless one of them is named.
 */
static int __init hwtrace_setup(char *s)
{
	strscpy(hwtrace_cmdline, s, sizeof(hwtrace_cmdline));
	return 1;
}
__setup("hwtrace=", hwtrace_setup);

static int __init hwtrace_parse_cmdline(char *s)
{
	struct hwtrace_cfg cfg = hwtrace_cfg;
	char *word, *val;
	int ret;

	word = strsep(&s, ",");
	ret = hwtrace_parse(word, HWTRACE_PMU, &cfg);
	cfg.kernel = false;
	cfg.user = false;
	while (!ret && (word = strsep(&s, ","))) {
		val = strchr(word, '=');
		if (val)
			*val++ = '\0';
		if (!strcmp(word, "config") && val)
			ret = hwtrace_parse(val, HWTRACE_CONFIG, &cfg);
		else if (!strcmp(word, "size") && val)
			ret = hwtrace_parse(val, HWTRACE_SIZE, &cfg);
		else if (!strcmp(word, "kernel") && !val)
			cfg.kernel = true;
		else if (!strcmp(word, "user") && !val)
			cfg.user = true;
		else
			ret = -EINVAL;
	}
	if (!cfg.kernel && !cfg.user) {
		cfg.kernel = true;
		cfg.user = true;
	}
	if (!ret)
		hwtrace_cfg = cfg;
	return ret;
}

static int __init hwtrace_init(void)
{
	int ret;

	hwtrace_vmcoreinfo();
	/* Before the recorder can start and write the store anew */
	hwtrace_store_init(hwtrace_create_files());
	atomic_notifier_chain_register(&panic_notifier_list, &hwtrace_panic_nb);
	register_die_notifier(&hwtrace_die_nb);
	register_reboot_notifier(&hwtrace_reboot_nb);
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "perf/hwtrace:online",
					hwtrace_cpu_online, hwtrace_cpu_offline);
	if (ret < 0)
		return ret;

	if (!*hwtrace_cmdline)
		return 0;
	ret = hwtrace_parse_cmdline(hwtrace_cmdline);
	if (!ret)
		ret = hwtrace_set_on(true);
	if (ret)
		pr_err("hwtrace: cannot start: %d\n", ret);
	else
		pr_info("hwtrace: recording %s, %u KiB a CPU\n",
			hwtrace_cfg.pmu, hwtrace_cfg.size / SZ_1K);
	return 0;
}
late_initcall(hwtrace_init);
