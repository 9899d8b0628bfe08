// SPDX-License-Identifier: GPL-2.0
/*
 * AUX sampling through hidden AUX events.
 *
 * A sampling event with PERF_SAMPLE_AUX names an AUX PMU in
 * attr.aux_sample_type and attr.aux_sample_config.  For it the kernel runs
 * a hidden AUX event of that PMU on the sampler's task or CPU, in overwrite
 * mode, with a buffer nobody maps, and copies its latest aux_sample_size
 * bytes into each sample (perf_prepare_sample_aux() and
 * perf_aux_sample_output() in core.c, as for an AUX group leader).
 *
 * One hidden event serves every sampler on the same task or CPU that asks
 * for the same PMU, config and filter bits and fits its buffer; the last
 * sampler to go releases it.  A hidden event with attr.inherit is inherited
 * like any other; each inherited copy gets a buffer of its own here, at
 * fork, and the inherited samplers are pointed at it.
 *
 * The buffers, inherited ones included, are charged to the user of the
 * sampler that created the hidden event, like an mmap() of the same size
 * except that what exceeds perf_event_mlock_kb goes to the user's
 * locked_vm and not to an mm (rb_alloc_kernel()); only samplers of the
 * same user share a hidden event.  The samplers' fdinfo shows them.
 *
 * A hidden event that samplers made idles while none of them is enabled:
 * see perf_aux_sample_state().
 *
 * Locking: aux_hidden_mutex serializes the table of hidden events, their
 * users counts and the original samplers' ->aux_event links.  It is held
 * for lookups in one bucket of the table, keyed by task, CPU and user, and
 * never while a hidden event is created or released.  It nests outside
 * perf_event_context::mutex.
 */

#include <linux/hashtable.h>
#include <linux/log2.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "internal.h"

/**
 * struct perf_aux_hidden - a hidden AUX event and the samplers it serves
 * @node: in aux_hidden_table, once the event is created
 * @event: the hidden event (inherited copies point here too)
 * @attr: the attributes it was created with, the key samplers must match
 * @task: the task it traces (kept by the event's hw.target), NULL per CPU
 * @cpu: the CPU it counts on, or -1 (always, for a task)
 * @user: the user its buffers are charged to
 * @nr_pages: AUX pages in its buffer and in each inherited copy's
 * @users: original samplers linked to it
 * @sampler: while it is created, the sampler asking (none for
 *	perf_aux_hidden_create_kernel())
 */
struct perf_aux_hidden {
	struct hlist_node	node;
	struct perf_event	*event;
	struct perf_event_attr	attr;
	struct task_struct	*task;
	int			cpu;
	struct user_struct	*user;
	int			nr_pages;
	unsigned int		users;
	const struct perf_event	*sampler;
};

static DEFINE_MUTEX(aux_hidden_mutex);
static DEFINE_HASHTABLE(aux_hidden_table, 10);

static unsigned long aux_hidden_key(const struct perf_aux_hidden *h)
{
	return (unsigned long)h->task ^ (unsigned long)h->user ^ h->cpu;
}

static void aux_hidden_free(struct perf_aux_hidden *h)
{
	free_uid(h->user);
	kfree(h);
}

/**
 * perf_aux_sample_check_attr - check the hidden-sampler fields of an attr
 * @attr: the attributes copied from user space
 *
 * Context: process context, from perf_copy_attr().
 * Return: 0, or -EINVAL for a combination the interface does not define.
 */
int perf_aux_sample_check_attr(const struct perf_event_attr *attr)
{
	if (attr->aux_sample_flags & ~(PERF_AUX_SAMPLE_POSITION |
					PERF_AUX_SAMPLE_NEW))
		return -EINVAL;

	/* What is new is told by positions. */
	if ((attr->aux_sample_flags & PERF_AUX_SAMPLE_NEW) &&
	    !(attr->aux_sample_flags & PERF_AUX_SAMPLE_POSITION))
		return -EINVAL;

	if (!attr->aux_sample_type)
		return attr->aux_sample_config || attr->aux_sample_flags ?
		       -EINVAL : 0;

	/* A counting event takes no samples to put trace in. */
	if (!(attr->sample_type & PERF_SAMPLE_AUX) || !attr->sample_period)
		return -EINVAL;

	/* A sample record holds at most U16_MAX bytes. */
	if (!attr->aux_sample_size ||
	    attr->aux_sample_size > U16_MAX - perf_aux_sample_header(attr))
		return -EINVAL;

	if (attr->aux_output)
		return -EINVAL;

	return 0;
}

/*
 * The latest bytes of trace a sampler of new trace only gets, of the
 * @trace before @end that the PMU has: those after the end of the previous
 * such sample of @rb's event into the same output buffer, rounded up to 8
 * bytes with older ones (the field's length stays a multiple of 8 with no
 * more than 7 bytes of padding), or all it has for a sample into another
 * buffer than the previous one.
 */
static u64 aux_sample_new(struct perf_output_handle *handle,
			  struct perf_buffer *rb, u64 end, u64 trace)
{
	u64 new = trace;

	if (rb->aux_sample_out == handle->rb->id && rb->aux_sample_end <= end)
		new = min(trace, round_up(end - rb->aux_sample_end, 8));
	rb->aux_sample_out = handle->rb->id;
	rb->aux_sample_end = end;
	return new;
}

/**
 * perf_aux_snapshot_position - choose a snapshot's trace, say where it sits
 * @handle: the sample's output handle, as passed to ->snapshot_aux()
 * @aux_event: the AUX event whose trace is copied
 * @end: stream offset just past the latest byte of trace
 * @trace: how many of the latest bytes the PMU has to copy, at most *@room
 * @room: the room ->snapshot_aux() was given; in a sample of new trace
 *	only (PERF_AUX_SAMPLE_NEW), lowered to what the trace needs
 *
 * A PMU with PERF_PMU_CAP_AUX_POSITION calls this from ->snapshot_aux()
 * before it copies anything, and then fills *@room: padding first, if the
 * trace is shorter, and the returned number of the latest bytes of trace
 * last.  Stream offsets count every byte @aux_event wrote since it was
 * created, across wraps of its buffer and across ->stop()/->start().  The
 * header goes into the sample only if the sampler asked for it
 * (PERF_AUX_SAMPLE_POSITION); a PMU with no trace (@trace 0) counts the
 * sample in the sampler's aux_sample_misses, a sample of new trace only
 * that finds none does not.
 *
 * Context: ->snapshot_aux(), IRQs disabled, maybe NMI, with a reference
 * on @aux_event's buffer.
 * Return: the number of trace bytes to copy.
 */
u64 perf_aux_snapshot_position(struct perf_output_handle *handle,
			       struct perf_event *aux_event, u64 end,
			       u64 trace, unsigned long *room)
{
	u32 flags = handle->event->attr.aux_sample_flags;
	struct perf_aux_sample_position pos = {
		.stream = aux_event->id,
		.offset = end - trace,
		.size = trace,
	};

	if (!trace) {
		perf_aux_sample_miss(handle->event);
	} else if (flags & PERF_AUX_SAMPLE_NEW) {
		/* Held by the caller of ->snapshot_aux(). */
		pos.size = aux_sample_new(handle,
					  rcu_dereference_sched(aux_event->rb),
					  end, trace);
		pos.offset = end - pos.size;
		*room = round_up(pos.size, 8);
	}
	if (flags & PERF_AUX_SAMPLE_POSITION)
		perf_output_copy(handle, &pos, sizeof(pos));
	return pos.size;
}
EXPORT_SYMBOL_GPL(perf_aux_snapshot_position);

/*
 * Enough AUX pages to hold @size bytes of trace, a power of two, and at
 * least two: a PMU that tells trace positions must see its output wrap,
 * and needs a region of the buffer to write while it looks at the other
 * (arch/x86/events/intel/pt.c).
 */
static int aux_sample_pages(u32 size)
{
	return roundup_pow_of_two(max_t(u32, DIV_ROUND_UP(size, PAGE_SIZE), 2));
}

/*
 * The hidden event for a sampler: trace what the sampler sees, from the
 * same processes, with the same clock.  It is enabled from the start, and
 * runs while a sampler of it is enabled (perf_aux_sample_state()), so
 * that samplers that differ only in how they are enabled share it: perf
 * gives a group's leader enable_on_exec, and its members follow it.
 */
static void aux_hidden_attr(struct perf_event_attr *attr,
			    const struct perf_event_attr *sampler)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = sampler->aux_sample_type;
	attr->config = sampler->aux_sample_config;
	attr->exclude_user = sampler->exclude_user;
	attr->exclude_kernel = sampler->exclude_kernel;
	attr->exclude_hv = sampler->exclude_hv;
	attr->exclude_idle = sampler->exclude_idle;
	attr->exclude_host = sampler->exclude_host;
	attr->exclude_guest = sampler->exclude_guest;
	attr->inherit = sampler->inherit;
	attr->inherit_thread = sampler->inherit_thread;
	attr->remove_on_exec = sampler->remove_on_exec;
	attr->use_clockid = sampler->use_clockid;
	attr->clockid = sampler->clockid;
}

/* Whether @pmu can give the positions that @sampler may ask for. */
static bool aux_hidden_can_position(struct pmu *pmu,
				    const struct perf_event_attr *sampler)
{
	return !(sampler->aux_sample_flags & PERF_AUX_SAMPLE_POSITION) ||
	       (pmu->capabilities & PERF_PMU_CAP_AUX_POSITION);
}

/*
 * Called by perf_event_create_kernel_aux() before the event is installed.
 * What the event must give is what its sampler asks or, without one, what
 * it asks itself.
 */
static int aux_hidden_prepare(struct perf_event *event, void *data)
{
	struct perf_aux_hidden *h = data;
	const struct perf_event_attr *sampler =
		h->sampler ? &h->sampler->attr : &h->attr;
	struct perf_buffer *rb;
	int ret;

	if (!event->pmu->snapshot_aux ||
	    !aux_hidden_can_position(event->pmu, sampler))
		return -EOPNOTSUPP;

	/* Its time stamps are the sampler's (inherited copies take them). */
	if (sampler->use_clockid) {
		ret = perf_event_set_clock(event, sampler->clockid);
		if (ret)
			return ret;
	}

	/* Before the buffer: the PMU's ->setup_aux() may look. */
	event->aux_hidden = h;
	/* Samplers tell when it runs; the kernel's own copies always do. */
	event->aux_idles = !!h->sampler;
	rb = rb_alloc_kernel(event, h->nr_pages, h->user);
	if (IS_ERR(rb))
		return PTR_ERR(rb);

	/*
	 * Not ring_buffer_attach(): nobody polls a hidden event, and its
	 * inherited copies, unlike other inherited events, own a buffer.
	 */
	rcu_assign_pointer(event->rb, rb);
	return 0;
}

/*
 * A hidden event in the table that can serve @want's sampler, with one
 * more user, or NULL.  Not one that exec, exit or hotplug took out of its
 * context.
 */
static struct perf_aux_hidden *aux_hidden_get(const struct perf_aux_hidden *want)
{
	struct perf_aux_hidden *h;

	lockdep_assert_held(&aux_hidden_mutex);
	hash_for_each_possible(aux_hidden_table, h, node, aux_hidden_key(want)) {
		if (h->task != want->task || h->cpu != want->cpu ||
		    h->user != want->user || h->nr_pages < want->nr_pages ||
		    memcmp(&h->attr, &want->attr, sizeof(h->attr)))
			continue;
		if (READ_ONCE(h->event->state) < PERF_EVENT_STATE_OFF ||
		    !(READ_ONCE(h->event->attach_state) & PERF_ATTACH_CONTEXT))
			continue;
		h->users++;
		return h;
	}
	return NULL;
}

/* Drop a user of @h; the last one releases the hidden event. */
static void aux_hidden_put(struct perf_aux_hidden *h)
{
	struct perf_event *event = NULL;

	mutex_lock(&aux_hidden_mutex);
	if (!--h->users) {
		hash_del(&h->node);
		event = h->event;
	}
	mutex_unlock(&aux_hidden_mutex);

	/* Takes the hidden event's context mutex; frees @h. */
	if (event)
		perf_event_release_kernel(event);
}

/*
 * The hidden event that @sampler asks for, on @task, not yet created.
 * A task's hidden event follows it on every CPU, also for a sampler bound
 * to one (perf opens a task's samplers once per CPU): the task's trace is
 * one stream, whose samples on any CPU say what it did before, and whose
 * end, in the sample it takes at exit (perf_aux_sample_exit()), is not
 * left behind on a CPU it last ran on before it moved.
 */
static struct perf_aux_hidden *aux_hidden_alloc(struct perf_event *sampler,
						struct task_struct *task)
{
	struct perf_aux_hidden *h = kzalloc(sizeof(*h), GFP_KERNEL);

	if (!h)
		return NULL;
	aux_hidden_attr(&h->attr, &sampler->attr);
	h->task = task;
	h->cpu = task ? -1 : sampler->cpu;
	h->user = get_current_user();
	h->nr_pages = aux_sample_pages(sampler->attr.aux_sample_size);
	h->users = 1;
	h->sampler = sampler;
	return h;
}

/*
 * Create @new's hidden event, outside aux_hidden_mutex: the PMU's
 * event_init and the buffer's allocation may take long.  Two samplers
 * alike that race here each get a hidden event of their own.
 */
static int aux_hidden_create(struct perf_aux_hidden *new)
{
	struct perf_event *event;

	event = perf_event_create_kernel_aux(&new->attr, new->cpu, new->task,
					     aux_hidden_prepare, new);
	if (IS_ERR(event))
		return PTR_ERR(event);

	new->event = event;
	new->sampler = NULL;
	mutex_lock(&aux_hidden_mutex);
	hash_add(aux_hidden_table, &new->node, aux_hidden_key(new));
	mutex_unlock(&aux_hidden_mutex);
	return 0;
}

/*
 * A hidden event that idles (->aux_idles: one that samplers made, not one
 * of perf_aux_hidden_create_kernel()) is stopped while none of its
 * samplers is enabled, so that its trace costs nothing while nobody can
 * sample it.  Each hidden event, and each inherited copy, counts its
 * enabled samplers (state INACTIVE or ACTIVE) in ->aux_samplers_on: a
 * link counts the state it finds, and a linked sampler's state changes
 * only in perf_event_set_state(), under its context's lock, which calls
 * perf_aux_sample_state().
 *
 * Only the CPU that runs the hidden event stops or restarts it, with IRQs
 * disabled (aux_hidden_idle_check()): when a sampler's state changes
 * there (an enable or a disable is carried out on the CPU where the task
 * runs, or on a per-CPU sampler's CPU), when a sampler is scheduled in
 * there, and when the hidden event itself is (->add() without
 * PERF_EF_START).  So a sampler enabled from another CPU while its task is
 * being scheduled in, which may find the hidden event just added stopped,
 * starts it when it is scheduled in itself; one bound to a CPU where the
 * task does not run leaves it so until the task's next context switch.
 *
 * A restart is told by the trace itself, as after any context switch: a
 * PSB+ on ptsim, TIP.PGE on Intel PT; the stream's offsets run on, so a
 * sample after it may hold trace from before the stop.
 */
static void aux_hidden_idle_check(struct perf_event *hidden)
{
	bool idle;

	if (READ_ONCE(hidden->state) != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(hidden->oncpu) != smp_processor_id())
		return;
	idle = !atomic_read(&hidden->aux_samplers_on);
	if (idle == hidden->aux_idle)
		return;

	perf_pmu_disable(hidden->pmu);
	if (idle)
		hidden->pmu->stop(hidden, PERF_EF_UPDATE);
	else
		hidden->pmu->start(hidden, 0);
	perf_pmu_enable(hidden->pmu);
	hidden->aux_idle = idle;
}

/* Count @sampler, linked to @hidden, if it is enabled. */
static void aux_hidden_count(struct perf_event *hidden,
			     const struct perf_event *sampler, int sign)
{
	if (hidden->aux_idles && sampler->state >= PERF_EVENT_STATE_INACTIVE)
		atomic_add(sign, &hidden->aux_samplers_on);
}

/**
 * perf_aux_sample_state - let a sampler's new state start or stop its
 *	hidden AUX event
 * @sampler: an event with attr.aux_sample_type, still in its old state
 * @state: the state it goes to
 *
 * Context: perf_event_set_state(): @sampler's context lock held, IRQs
 * disabled.  A hidden event read from the link stays until an RCU grace
 * period after it is cut.
 */
void perf_aux_sample_state(struct perf_event *sampler,
			   enum perf_event_state state)
{
	struct perf_event *hidden = READ_ONCE(sampler->aux_event);
	bool was = sampler->state >= PERF_EVENT_STATE_INACTIVE;
	bool on = state >= PERF_EVENT_STATE_INACTIVE;

	if (!hidden || !hidden->aux_idles)
		return;
	if (on != was)
		atomic_add(on ? 1 : -1, &hidden->aux_samplers_on);
	else if (state != PERF_EVENT_STATE_ACTIVE)
		return;
	aux_hidden_idle_check(hidden);
}

/**
 * perf_aux_hidden_idle - whether a hidden AUX event is to be added stopped
 * @event: a hidden event with ->aux_idles, being scheduled in
 *
 * Context: event_sched_in(), IRQs disabled.
 * Return: true while none of its samplers is enabled.
 */
bool perf_aux_hidden_idle(struct perf_event *event)
{
	event->aux_idle = !atomic_read(&event->aux_samplers_on);
	return event->aux_idle;
}

/**
 * perf_aux_sample_attach - give a sampler its hidden AUX event
 * @sampler: a new event with attr.aux_sample_type, not yet installed
 * @task: the task it will count, or NULL for a per-CPU event
 *
 * Find the hidden event that fits @sampler or create one, and link
 * @sampler->aux_event to it.  perf_aux_sample_detach() undoes it, from
 * perf_event_release_kernel().
 *
 * Context: process context, no perf_event_context::mutex held.
 * Return: 0; -ENOENT if no PMU has type aux_sample_type; -EOPNOTSUPP if
 * it cannot take AUX samples, or cannot tell their positions and
 * PERF_AUX_SAMPLE_POSITION is asked for; -EINVAL for a clock it cannot
 * use; -EPERM over the mlock limits; -EBUSY if an exclusive PMU is taken;
 * -ENOMEM; or another error from the PMU.
 */
int perf_aux_sample_attach(struct perf_event *sampler,
			   struct task_struct *task)
{
	struct perf_aux_hidden *new, *h;
	int ret;

	new = aux_hidden_alloc(sampler, task);
	if (!new)
		return -ENOMEM;

	mutex_lock(&aux_hidden_mutex);
	h = aux_hidden_get(new);
	mutex_unlock(&aux_hidden_mutex);

	if (h) {
		aux_hidden_free(new);
	} else {
		ret = aux_hidden_create(new);
		if (ret) {
			aux_hidden_free(new);
			return ret;
		}
		h = new;
	}

	if (!aux_hidden_can_position(h->event->pmu, &sampler->attr)) {
		aux_hidden_put(h);
		return -EOPNOTSUPP;
	}
	/* Not in its context yet: its state cannot change under this. */
	WRITE_ONCE(sampler->aux_event, h->event);
	aux_hidden_count(h->event, sampler, 1);
	return 0;
}

/**
 * perf_aux_hidden_create_kernel - create a hidden AUX event without samplers
 * @attr: its attributes; its aux_sample_flags say what the PMU must give
 * @cpu: the CPU it traces, or -1 for a task
 * @task: the task it traces, or NULL for a CPU
 * @size: the bytes of trace its buffer must hold
 * @user: the user its buffer is charged to
 *
 * For the kernel's own copies of a task's or a CPU's trace (core_trace.c,
 * trace_recorder.c), taken with perf_aux_copy().  Nothing else finds or
 * shares it; release it with perf_event_release_kernel().
 *
 * Context: process context, no perf_event_context::mutex held.
 * Return: the event, or an ERR_PTR() with the errnos of
 * perf_aux_sample_attach().
 */
struct perf_event *perf_aux_hidden_create_kernel(struct perf_event_attr *attr,
						 int cpu,
						 struct task_struct *task,
						 u32 size,
						 struct user_struct *user)
{
	struct perf_aux_hidden *h = kzalloc(sizeof(*h), GFP_KERNEL);
	struct perf_event *event;

	if (!h)
		return ERR_PTR(-ENOMEM);
	h->attr = *attr;
	h->task = task;
	h->cpu = cpu;
	h->user = get_uid(user);
	h->nr_pages = aux_sample_pages(size);

	event = perf_event_create_kernel_aux(&h->attr, cpu, task,
					     aux_hidden_prepare, h);
	if (IS_ERR(event)) {
		aux_hidden_free(h);
		return event;
	}
	h->event = event;
	return event;
}

/**
 * perf_aux_sample_detach - drop a sampler's hidden AUX event
 * @sampler: an original (not inherited) sampler, out of its context
 *
 * Releases the hidden event when @sampler was its last user; its buffer
 * is refunded then (perf_aux_sample_free()).
 *
 * Context: process context, no perf_event_context::mutex held.
 */
void perf_aux_sample_detach(struct perf_event *sampler)
{
	struct perf_aux_hidden *h = NULL;

	mutex_lock(&aux_hidden_mutex);
	if (sampler->aux_event) {
		h = sampler->aux_event->aux_hidden;
		/* One never installed, or removed, was left enabled */
		aux_hidden_count(sampler->aux_event, sampler, -1);
		WRITE_ONCE(sampler->aux_event, NULL);
	}
	mutex_unlock(&aux_hidden_mutex);

	if (h)
		aux_hidden_put(h);
}

/*
 * Cut the links of @hidden's inherited samplers, which it can outlive
 * (contexts of a task go one by one at exit, a remove_on_exec event goes
 * while its context runs).  A sample that read the link before keeps
 * @hidden: it is freed after an RCU grace period, which the sample, with
 * preemption disabled, holds off.
 */
static void aux_hidden_unlink(struct perf_event *hidden)
{
	struct task_struct *task = hidden->hw.target;
	struct perf_event_context *ctx;
	struct perf_event *event;
	int ctxn;

	rcu_read_lock();
	for (ctxn = 0; ctxn < perf_nr_task_contexts; ctxn++) {
		ctx = rcu_dereference(task->perf_event_ctxp[ctxn]);
		if (!ctx)
			continue;
		list_for_each_entry_rcu(event, &ctx->event_list, event_entry) {
			if (READ_ONCE(event->aux_event) == hidden)
				WRITE_ONCE(event->aux_event, NULL);
		}
	}
	rcu_read_unlock();
}

/**
 * perf_aux_sample_free - free what a hidden AUX event owns
 * @event: a hidden event or an inherited copy, on its way to being freed
 *
 * Unlinks an inherited copy's samplers, refunds and frees its buffer and,
 * for the original, the &struct perf_aux_hidden (unless
 * perf_aux_sample_attach() failed to create it, which frees that itself).
 *
 * Context: process context, from _free_event(); the event is out of its
 * context, nothing writes its buffer any more.
 */
void perf_aux_sample_free(struct perf_event *event)
{
	struct perf_buffer *rb = event->rb;

	if (event->parent)
		aux_hidden_unlink(event);

	if (rb) {
		rb_free_kernel(rb);
		RCU_INIT_POINTER(event->rb, NULL);
		ring_buffer_put(rb);	/* samplers may still hold it */
	}
	/*
	 * An inherited copy leaves the original's struct alone: the original
	 * may be freed first.  An original whose creation failed has none
	 * of its own yet: perf_aux_sample_attach() frees it.
	 */
	if (!event->parent && event->aux_hidden->event == event)
		aux_hidden_free(event->aux_hidden);
}

static struct perf_event *
aux_hidden_child(struct task_struct *child, struct perf_event *parent)
{
	struct perf_event_context *ctx;
	struct perf_event *event;
	int ctxn;

	for (ctxn = 0; ctxn < perf_nr_task_contexts; ctxn++) {
		ctx = child->perf_event_ctxp[ctxn];
		if (!ctx)
			continue;
		list_for_each_entry_rcu(event, &ctx->event_list, event_entry) {
			if (event->parent == parent)
				return event;
		}
	}
	return NULL;
}

/**
 * perf_aux_sample_inherit - set up inherited hidden events and samplers
 * @child: a new task whose perf contexts perf_event_init_task() filled in
 *
 * Give each inherited hidden event a buffer of its own (a child must not
 * write into its parent's), charged like the original's, and point each
 * inherited sampler at the hidden event inherited from its parent's.  A
 * hidden event that cannot get a buffer (the mlock limits) is dropped
 * from the child, whose samplers' samples then carry no trace: that is
 * counted, the fork does not fail for it.
 *
 * Context: process context, from copy_process(); @child does not run yet.
 * An inherited sampler in a context whose mutex is held cannot lose its
 * parent's hidden event: perf_event_release_kernel() of the parent
 * sampler takes that mutex to remove it before perf_aux_sample_detach().
 */
void perf_aux_sample_inherit(struct task_struct *child)
{
	struct perf_event *event, *tmp, *hidden;
	struct perf_event_context *ctx;
	struct perf_aux_hidden *h;
	struct perf_buffer *rb;
	int ctxn;

	for (ctxn = 0; ctxn < perf_nr_task_contexts; ctxn++) {
		ctx = child->perf_event_ctxp[ctxn];
		if (!ctx)
			continue;
		mutex_lock(&ctx->mutex);
		list_for_each_entry_safe(event, tmp, &ctx->event_list,
					 event_entry) {
			h = event->aux_hidden;
			if (!h || event->rb)
				continue;
			rb = rb_alloc_kernel(event, h->nr_pages, h->user);
			if (IS_ERR(rb))
				perf_free_event(event, ctx);
			else
				rcu_assign_pointer(event->rb, rb);
		}
		mutex_unlock(&ctx->mutex);
	}

	for (ctxn = 0; ctxn < perf_nr_task_contexts; ctxn++) {
		ctx = child->perf_event_ctxp[ctxn];
		if (!ctx)
			continue;
		mutex_lock(&ctx->mutex);
		rcu_read_lock();
		list_for_each_entry(event, &ctx->event_list, event_entry) {
			if (!event->attr.aux_sample_type || !event->parent)
				continue;
			hidden = READ_ONCE(event->parent->aux_event);
			hidden = aux_hidden_child(child, hidden);
			/* The parent's enable and disable reach it so. */
			raw_spin_lock_irq(&ctx->lock);
			WRITE_ONCE(event->aux_event, hidden);
			if (hidden)
				aux_hidden_count(hidden, event, 1);
			raw_spin_unlock_irq(&ctx->lock);
		}
		rcu_read_unlock();
		mutex_unlock(&ctx->mutex);
	}
}

/*
 * The last sample of @sampler, at its task's exit: as if it overflowed,
 * with the task's user registers and a period of 0.  Only while it and
 * its hidden event run here: a sampler throttled since its last overflow
 * still runs (throttling stops its PMU, not the event), and so does the
 * hidden event, which traced all along.
 */
static void aux_sample_exit_sample(struct perf_event *sampler,
				   struct pt_regs *regs)
{
	struct perf_event *hidden = READ_ONCE(sampler->aux_event);
	perf_overflow_handler_t overflow = READ_ONCE(sampler->overflow_handler);
	struct perf_sample_data data;
	int cpu = smp_processor_id();

	if (sampler->state != PERF_EVENT_STATE_ACTIVE ||
	    sampler->oncpu != cpu || !hidden ||
	    READ_ONCE(hidden->state) != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(hidden->oncpu) != cpu)
		return;

	perf_sample_data_init(&data, 0, 0);
	overflow(sampler, &data, regs);
}

/**
 * perf_aux_sample_exit - give each sampler of an exiting task a last sample
 * @task: the exiting task, current
 *
 * The trace a hidden event writes after its samplers' last sample is in
 * no sample, and nothing says how much there was: a sampler that the
 * kernel throttled early, or that fires rarely, would silently leave
 * out the end of its task's run, and tools would take its last sample
 * for the end of the trace.  So, before the task's events go, each of
 * its samplers takes one more sample, with the hidden event's latest
 * trace and its position: the samples then reach the task's exit, and a
 * gap before that last sample is told by the positions, as any other.
 *
 * Context: process context, from perf_event_exit_task() before any of
 * the task's events is scheduled out; not for kernel threads, which have
 * no user registers to sample.  IRQs are disabled for each context's
 * walk, so that neither the task nor any event of it moves meanwhile.
 */
void perf_aux_sample_exit(struct task_struct *task)
{
	struct perf_event_context *ctx;
	struct perf_event *event;
	unsigned long flags;
	int ctxn;

	if (task->flags & PF_KTHREAD)
		return;

	for (ctxn = 0; ctxn < perf_nr_task_contexts; ctxn++) {
		local_irq_save(flags);
		ctx = task->perf_event_ctxp[ctxn];
		if (ctx) {
			raw_spin_lock(&ctx->lock);
			list_for_each_entry(event, &ctx->event_list, event_entry) {
				if (event->attr.aux_sample_type)
					aux_sample_exit_sample(event,
							       task_pt_regs(task));
			}
			raw_spin_unlock(&ctx->lock);
		}
		local_irq_restore(flags);
	}
}

/**
 * perf_aux_sample_show_fdinfo - show a sampler's hidden AUX event
 * @m: the fdinfo seq_file
 * @event: the event behind a perf file descriptor
 *
 * Context: process context.
 */
void perf_aux_sample_show_fdinfo(struct seq_file *m, struct perf_event *event)
{
	struct perf_aux_hidden *h;

	if (!event->attr.aux_sample_type)
		return;

	mutex_lock(&aux_hidden_mutex);
	if (event->aux_event) {
		h = event->aux_event->aux_hidden;
		seq_printf(m, "aux_sample_pmu:\t%s\n", h->event->pmu->name);
		seq_printf(m, "aux_sample_id:\t%llu\n", h->event->id);
		seq_printf(m, "aux_sample_pages:\t%d\n", h->nr_pages);
		seq_printf(m, "aux_sample_users:\t%u\n", h->users);
	}
	mutex_unlock(&aux_hidden_mutex);
	seq_printf(m, "aux_sample_misses:\t%lld\n",
		   atomic64_read(&event->aux_sample_misses));
}

/*
 * Support is told positively in sysfs, for tools not to guess it from
 * errnos that other kernels give for other reasons:
 * /sys/bus/event_source/aux_sample_flags, the aux_sample_flags bits this
 * kernel knows (so it has the attr fields of hidden AUX samplers), and for
 * each PMU that can serve as one, caps/aux_sample and, if it tells trace
 * positions, caps/aux_position.
 */
static ssize_t aux_sample_flags_show(struct bus_type *bus, char *buf)
{
	return sysfs_emit(buf, "%#x\n",
			  PERF_AUX_SAMPLE_POSITION | PERF_AUX_SAMPLE_NEW);
}
static BUS_ATTR_RO(aux_sample_flags);

static struct attribute *aux_sample_bus_attrs[] = {
	&bus_attr_aux_sample_flags.attr,
	NULL,
};

static const struct attribute_group aux_sample_bus_group = {
	.attrs	= aux_sample_bus_attrs,
};

const struct attribute_group *perf_aux_sample_bus_groups[] = {
	&aux_sample_bus_group,
	NULL,
};

static ssize_t aux_cap_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "1\n");
}

static struct device_attribute dev_attr_aux_sample =
	__ATTR(aux_sample, 0444, aux_cap_show, NULL);
static struct device_attribute dev_attr_aux_position =
	__ATTR(aux_position, 0444, aux_cap_show, NULL);

static struct attribute *aux_sample_caps[] = {
	&dev_attr_aux_sample.attr,
	NULL,
};

static struct attribute *aux_position_caps[] = {
	&dev_attr_aux_sample.attr,
	&dev_attr_aux_position.attr,
	NULL,
};

/**
 * perf_aux_sample_add_caps - say in sysfs what AUX samples a PMU can take
 * @pmu: a PMU whose device was just added
 *
 * Adds caps/aux_sample (and caps/aux_position) to a PMU that can serve as
 * a hidden AUX event, in the caps group that the PMU may have of its own.
 *
 * Context: process context, from pmu_dev_alloc().
 * Return: 0 or a negative errno from sysfs.
 */
int perf_aux_sample_add_caps(struct pmu *pmu)
{
	struct attribute_group group = {
		.name	= "caps",
		.attrs	= aux_sample_caps,
	};
	int ret;

	if (!pmu->snapshot_aux)
		return 0;
	if (pmu->capabilities & PERF_PMU_CAP_AUX_POSITION)
		group.attrs = aux_position_caps;

	ret = sysfs_merge_group(&pmu->dev->kobj, &group);
	if (ret == -ENOENT)
		ret = sysfs_create_group(&pmu->dev->kobj, &group);
	return ret;
}
