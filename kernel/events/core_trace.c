// SPDX-License-Identifier: GPL-2.0
/*
 * Core trace: the latest hardware trace of each thread, in its core dump.
 *
 * prctl(PR_SET_CORE_TRACE) names an AUX PMU that can take AUX samples and
 * tell their positions (Intel PT, ptsim), its config and a number of bytes.
 * Every thread of the calling process gets a hidden AUX event of that PMU
 * (aux_sample.c), in overwrite mode, with a buffer of its own that holds
 * that many bytes, charged like every hidden buffer to the caller's user;
 * so does every thread and child process it creates later, at fork (one
 * the limits refuse a buffer goes without).  The setting stays across
 * exec, each thread's trace started afresh (perf_core_trace_exec()),
 * except one that makes the process undumpable (setuid), after which
 * perf_event_exit_task() drops it with the rest of the task's perf events.
 *
 * When the process dumps core and RLIMIT_CORE is not 0, each thread copies
 * its trace out as it stops for the dump (perf_core_trace_snapshot(), from
 * coredump_task_exit() and do_coredump()), on its own CPU while its event
 * still runs, through the PMU's ->snapshot_aux() as an AUX sample does;
 * the ELF core writer then takes each copy as that thread's NT_PERF_TRACE
 * note (perf_core_trace_take()).  An undumpable process never gets there.
 *
 * Locking: core_trace_mutex serializes all changes of tasks'
 * ->perf_core_trace but a task's own at exit, which task_lock() orders
 * against them: a task that is PF_EXITING gets no new core trace.  The
 * mutex nests outside perf_event_context::mutex (events are created and
 * released under it), and inside exec_update_lock (perf_core_trace_exec()).
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/prctl.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/user.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "internal.h"

/* The most trace a thread may keep for its core dump. */
#define CORE_TRACE_MAX_SIZE	SZ_1M

/* A setting, shared by the threads and processes it applies to. */
struct core_trace_cfg {
	refcount_t		ref;
	struct prctl_core_trace	req;
	struct perf_event_attr	attr;
	struct user_struct	*user;
	const struct cred	*cred;	/* the caller's */
};

/**
 * struct perf_core_trace - a thread's core trace
 * @cfg: the setting it follows
 * @event: its hidden AUX event, or NULL if it could not have one (at fork)
 * @note: its NT_PERF_TRACE note, once it stopped for a core dump
 * @note_size: bytes in @note
 */
struct perf_core_trace {
	struct core_trace_cfg	*cfg;
	struct perf_event	*event;
	void			*note;
	size_t			note_size;
};

static DEFINE_MUTEX(core_trace_mutex);
/* prctl()s changing settings; see perf_core_trace_fork(). */
static atomic_t core_trace_walks = ATOMIC_INIT(0);

static void core_trace_cfg_put(struct core_trace_cfg *cfg)
{
	if (refcount_dec_and_test(&cfg->ref)) {
		free_uid(cfg->user);
		put_cred(cfg->cred);
		kfree(cfg);
	}
}

static void core_trace_free(struct perf_core_trace *ct)
{
	if (!ct)
		return;
	if (ct->event)
		perf_event_release_kernel(ct->event);
	kvfree(ct->note);
	core_trace_cfg_put(ct->cfg);
	kfree(ct);
}

/* A core trace of @task as @cfg asks; its event may fail, with the errno. */
static struct perf_core_trace *core_trace_new(struct task_struct *task,
					      struct core_trace_cfg *cfg,
					      int *err)
{
	struct perf_core_trace *ct = kzalloc(sizeof(*ct), GFP_KERNEL);
	struct perf_event *event;

	*err = -ENOMEM;
	if (!ct)
		return NULL;
	refcount_inc(&cfg->ref);
	ct->cfg = cfg;

	event = perf_aux_hidden_create_kernel(&cfg->attr, -1, task,
					      cfg->req.size, cfg->user);
	*err = PTR_ERR_OR_ZERO(event);
	if (!*err)
		ct->event = event;
	return ct;
}

/*
 * Make @ct the core trace of @task, unless @task is exiting: it may have
 * been through perf_core_trace_exit() already.  Returns what the caller
 * must free: the core trace @task had, or @ct.
 */
static struct perf_core_trace *core_trace_swap(struct task_struct *task,
					       struct perf_core_trace *ct)
{
	struct perf_core_trace *old = ct;

	task_lock(task);
	if (!(task->flags & PF_EXITING)) {
		old = task->perf_core_trace;
		task->perf_core_trace = ct;
	}
	task_unlock(task);
	return old;
}

/* Give @task the core trace @cfg asks for, or none for a NULL @cfg. */
static int core_trace_set_task(struct task_struct *task,
			       struct core_trace_cfg *cfg)
{
	struct perf_core_trace *ct;
	int ret;

	lockdep_assert_held(&core_trace_mutex);
	/* The old one goes first: an exclusive PMU has one event a task. */
	core_trace_free(core_trace_swap(task, NULL));
	if (!cfg)
		return 0;

	ct = core_trace_new(task, cfg, &ret);
	if (ret) {
		core_trace_free(ct);
		return ret;
	}
	core_trace_free(core_trace_swap(task, ct));
	return 0;
}

static struct core_trace_cfg *core_trace_cfg_of(struct task_struct *task)
{
	struct core_trace_cfg *cfg;

	task_lock(task);
	cfg = task->perf_core_trace ? task->perf_core_trace->cfg : NULL;
	task_unlock(task);
	return cfg;
}

/*
 * A thread of the caller's process, with a reference, that does not follow
 * @cfg yet.  A thread that another one creates while the caller walks them
 * is found here, or copies @cfg at fork from a creator that has it already.
 */
static struct task_struct *core_trace_next(struct core_trace_cfg *cfg)
{
	struct task_struct *t, *found = NULL;

	rcu_read_lock();
	for_each_thread(current, t) {
		if (t->flags & (PF_EXITING | PF_KTHREAD | PF_IO_WORKER))
			continue;
		if (core_trace_cfg_of(t) != cfg) {
			found = get_task_struct(t);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * Make every thread of the caller's process follow @cfg (none if NULL).
 * All or nothing: on an error, no thread has a core trace.  But a caller
 * being killed stops where it is and leaves the rest as it was: its
 * process may be dumping core.
 */
static int core_trace_set(struct core_trace_cfg *cfg)
{
	struct task_struct *t;
	int ret = 0;

	mutex_lock(&core_trace_mutex);
	atomic_inc(&core_trace_walks);
	/* Before a thread's core trace goes: see perf_core_trace_fork(). */
	smp_mb__after_atomic();
	while (!ret && (t = core_trace_next(cfg))) {
		ret = cfg && fatal_signal_pending(current) ? -EINTR :
		      core_trace_set_task(t, cfg);
		/* A thread that exits meanwhile needs no trace. */
		if (t->flags & PF_EXITING)
			ret = 0;
		put_task_struct(t);
	}
	while (ret && ret != -EINTR && (t = core_trace_next(NULL))) {
		core_trace_set_task(t, NULL);
		put_task_struct(t);
	}
	atomic_dec(&core_trace_walks);
	mutex_unlock(&core_trace_mutex);
	return ret;
}

/*
 * The setting that @req asks for, if the caller may have it: user-mode
 * trace as any perf event may, kernel trace as perf_event_paranoid says.
 * Whether the PMU can serve is found when the events are created.
 */
static struct core_trace_cfg *core_trace_cfg_new(const struct prctl_core_trace *req)
{
	struct core_trace_cfg *cfg;
	int ret;

	if (req->flags & ~PR_CORE_TRACE_KERNEL || !req->size ||
	    req->size > CORE_TRACE_MAX_SIZE || !IS_ALIGNED(req->size, 8))
		return ERR_PTR(-EINVAL);

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return ERR_PTR(-ENOMEM);
	cfg->req = *req;
	cfg->attr.size = sizeof(cfg->attr);
	cfg->attr.type = req->type;
	cfg->attr.config = req->config;
	cfg->attr.exclude_kernel = !(req->flags & PR_CORE_TRACE_KERNEL);
	cfg->attr.exclude_hv = 1;
	/* ->snapshot_aux() tells where the trace sits: see core_trace_copy(). */
	cfg->attr.aux_sample_flags = PERF_AUX_SAMPLE_POSITION;

	ret = perf_paranoid_any() && !capable(CAP_SYS_ADMIN) ? -EACCES :
	      security_perf_event_open(&cfg->attr, PERF_SECURITY_OPEN);
	if (!ret && !cfg->attr.exclude_kernel)
		ret = perf_allow_kernel(&cfg->attr);
	if (ret) {
		kfree(cfg);
		return ERR_PTR(ret);
	}
	refcount_set(&cfg->ref, 1);
	cfg->user = get_current_user();
	cfg->cred = get_current_cred();
	return cfg;
}

static int core_trace_prctl_set(unsigned long uaddr, unsigned long usize)
{
	struct prctl_core_trace req;
	struct core_trace_cfg *cfg;
	int ret;

	if (!uaddr)
		return usize ? -EINVAL : core_trace_set(NULL);
	if (usize < sizeof(req))
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&req, sizeof(req),
				    (void __user *)uaddr, usize);
	if (ret)
		return ret;

	cfg = core_trace_cfg_new(&req);
	if (IS_ERR(cfg))
		return PTR_ERR(cfg);
	ret = core_trace_set(cfg);
	core_trace_cfg_put(cfg);
	return ret;
}

static int core_trace_prctl_get(unsigned long uaddr, unsigned long usize)
{
	struct prctl_core_trace req = {};

	if (usize < sizeof(req))
		return -EINVAL;

	mutex_lock(&core_trace_mutex);
	if (current->perf_core_trace)
		req = current->perf_core_trace->cfg->req;
	mutex_unlock(&core_trace_mutex);

	if (copy_to_user((void __user *)uaddr, &req, sizeof(req)))
		return -EFAULT;
	return 0;
}

/**
 * perf_core_trace_prctl - PR_SET_CORE_TRACE and PR_GET_CORE_TRACE
 * @option: which of the two
 * @uaddr: a struct prctl_core_trace in user memory, NULL to turn it off
 * @usize: its size, 0 with a NULL @uaddr
 * @arg4: must be 0
 * @arg5: must be 0
 *
 * Context: process context, from prctl().
 * Return: 0; -EINVAL for bad arguments; -E2BIG for a struct with unknown
 * fields set; -EFAULT; -EACCES if perf_event_paranoid does not let the
 * caller have the trace asked for; from the events' creation, -ENOENT for
 * no such PMU, -EOPNOTSUPP for one that cannot take AUX samples with
 * positions, -EPERM over the mlock limits, -EBUSY if an exclusive PMU is
 * taken on a thread, -EINTR if the caller is being killed.
 */
int perf_core_trace_prctl(int option, unsigned long uaddr,
			  unsigned long usize, unsigned long arg4,
			  unsigned long arg5)
{
	if (arg4 || arg5)
		return -EINVAL;
	if (option == PR_GET_CORE_TRACE)
		return core_trace_prctl_get(uaddr, usize);
	return core_trace_prctl_set(uaddr, usize);
}

/**
 * perf_core_trace_fork - give a new task its creator's core trace setting
 * @task: a new thread or process, not yet running
 *
 * A task that the limits refuse a buffer keeps the setting without an
 * event: the fork does not fail for it, and its core dump has no note.
 *
 * Context: process context, from perf_event_fork() in copy_process().
 */
void perf_core_trace_fork(struct task_struct *task)
{
	struct perf_core_trace *ct = NULL;
	int err;

	if (task->flags & (PF_KTHREAD | PF_IO_WORKER))
		return;
	/*
	 * A prctl() that replaces the creator's core trace drops the old
	 * one before it makes the new one (core_trace_set_task()): while
	 * one runs, look under the mutex.
	 */
	if (!READ_ONCE(current->perf_core_trace)) {
		/* Pairs with smp_mb__after_atomic() in core_trace_set(). */
		smp_rmb();
		if (!atomic_read(&core_trace_walks))
			return;
	}

	mutex_lock(&core_trace_mutex);
	if (current->perf_core_trace && !task->perf_core_trace)
		ct = core_trace_new(task, current->perf_core_trace->cfg, &err);
	if (ct)
		core_trace_free(core_trace_swap(task, ct));
	mutex_unlock(&core_trace_mutex);
}

/**
 * perf_core_trace_exec - start a task's core trace afresh at exec
 * @task: the current task, in an exec
 *
 * Trace from before an exec is of a program that the core will not show:
 * a new event of the same setting replaces the task's.  The old one goes
 * first, as in core_trace_set_task(): an exclusive PMU has one event a
 * task, and the refund of its buffer makes room for the new one.  Should
 * the new event fail, the task goes on without trace, as a thread that the
 * limits refuse does; should memory for the new core trace fail, it keeps
 * the setting without an event.  A setuid exec is still dumpable here (its
 * credentials come later, in commit_creds()): it gets a new event too,
 * which perf_event_exit_task() then drops with the rest.
 *
 * Context: process context, from perf_event_exec(), under exec_update_lock
 * (which nests outside core_trace_mutex); @task is alone in its thread
 * group, so nothing else changes its ->perf_core_trace.
 */
void perf_core_trace_exec(struct task_struct *task)
{
	struct perf_core_trace *old, *ct;
	int err;

	if (!task->perf_core_trace || get_dumpable(task->mm) != SUID_DUMP_USER)
		return;
	/* Killed, the task will not dump core: it needs no new trace. */
	if (mutex_lock_killable(&core_trace_mutex))
		return;

	old = core_trace_swap(task, NULL);
	if (WARN_ON_ONCE(!old))
		goto unlock;
	if (old->event) {
		perf_event_release_kernel(old->event);
		old->event = NULL;
	}
	ct = core_trace_new(task, old->cfg, &err);
	if (ct) {
		core_trace_free(old);
		old = ct;
	}
	core_trace_free(core_trace_swap(task, old));
unlock:
	mutex_unlock(&core_trace_mutex);
}

/**
 * perf_core_trace_exit - drop a task's core trace
 * @task: the current task, exiting or in an exec that made it undumpable
 *
 * Context: process context, from perf_event_exit_task().
 */
void perf_core_trace_exit(struct task_struct *task)
{
	struct perf_core_trace *ct;

	task_lock(task);
	ct = task->perf_core_trace;
	task->perf_core_trace = NULL;
	task_unlock(task);
	core_trace_free(ct);
}

/*
 * Zeroed pages for a note, mapped in one piece that kvfree() frees, and
 * charged to the memory cgroup.  Not kvzalloc(): vmalloc() may give up in
 * a thread that SIGKILL is taking down, as it is the dump's other threads.
 */
static void *core_trace_note_alloc(unsigned int nr_pages)
{
	struct page **pages = kvcalloc(nr_pages, sizeof(*pages), GFP_KERNEL);
	void *note = NULL;
	unsigned int i;

	if (!pages)
		return NULL;
	for (i = 0; i < nr_pages; i++) {
		pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				      __GFP_NOWARN);
		if (!pages[i])
			break;
	}
	if (i == nr_pages)
		note = vmap(pages, nr_pages, VM_MAP | VM_MAP_PUT_PAGES,
			    PAGE_KERNEL);
	if (!note) {
		while (i--)
			__free_page(pages[i]);
		kvfree(pages);
	}
	return note;
}

/* Make @ct's note: its header, then the trace the PMU can give. */
static void core_trace_copy(struct perf_core_trace *ct)
{
	struct perf_core_trace_note *hdr;
	struct perf_aux_sample_position pos;
	struct perf_aux_copy copy;
	u32 size = ct->cfg->req.size;
	unsigned int nr_pages;
	unsigned long flags;
	void *note;

	nr_pages = perf_aux_copy_pages(sizeof(*hdr), size);
	note = core_trace_note_alloc(nr_pages);
	if (!note)
		return;
	if (perf_aux_copy_init(&copy, note, sizeof(*hdr), size)) {
		kvfree(note);
		return;
	}
	local_irq_save(flags);
	pos = perf_aux_copy(&copy, ct->event);
	local_irq_restore(flags);
	perf_aux_copy_exit(&copy);

	hdr = note;
	hdr->hdr_size = sizeof(*hdr);
	hdr->tid = task_pid_vnr(current);
	hdr->config = ct->cfg->req.config;
	hdr->offset = pos.offset;
	hdr->size = pos.size;
	if (pos.offset)
		hdr->flags |= PERF_CORE_TRACE_WRAPPED;
	if (ct->cfg->req.flags & PR_CORE_TRACE_KERNEL)
		hdr->flags |= PERF_CORE_TRACE_KERNEL;
	strscpy(hdr->pmu, ct->event->pmu->name, sizeof(hdr->pmu));

	ct->note = note;
	ct->note_size = sizeof(*hdr) + pos.size;
}

/*
 * Whether the current thread's core may hold the trace that @cfg kept: it
 * has the credentials of the caller who asked for it, who may have had
 * trace that a thread that changed its own since (a daemon's worker that
 * dropped privileges and made itself dumpable again) may not; and kernel
 * trace, if any, is still allowed.
 */
static bool core_trace_may_dump(struct core_trace_cfg *cfg)
{
	const struct cred *now = current_cred(), *then = cfg->cred;

	if (!uid_eq(now->uid, then->uid) || !uid_eq(now->euid, then->euid) ||
	    !uid_eq(now->suid, then->suid) || !uid_eq(now->fsuid, then->fsuid) ||
	    !gid_eq(now->gid, then->gid) || !gid_eq(now->egid, then->egid) ||
	    !gid_eq(now->sgid, then->sgid) || !gid_eq(now->fsgid, then->fsgid))
		return false;
	return cfg->attr.exclude_kernel || !perf_allow_kernel(&cfg->attr);
}

/**
 * perf_core_trace_snapshot - copy the current thread's trace for its core
 *
 * Called by each thread of a process that dumps core as it stops for the
 * dump, and by the thread that writes it, before the dump.  Does nothing
 * without a core trace, with RLIMIT_CORE 0 (no core file, and a core pipe
 * that honours the limit), or when the thread may no longer have the
 * trace (core_trace_may_dump()), and only copies once.
 *
 * Context: process context, in the core dump path.
 */
void perf_core_trace_snapshot(void)
{
	struct perf_core_trace *ct;

	if (!READ_ONCE(current->perf_core_trace) || !rlimit(RLIMIT_CORE))
		return;

	mutex_lock(&core_trace_mutex);
	ct = current->perf_core_trace;
	if (ct && ct->event && !ct->note && core_trace_may_dump(ct->cfg))
		core_trace_copy(ct);
	mutex_unlock(&core_trace_mutex);
}

/**
 * perf_core_trace_take - take a thread's note for the core file
 * @task: a thread of the dumping process, stopped for the dump
 * @size: set to the note's size
 *
 * Context: process context, from the ELF core writer.
 * Return: the note, which the caller frees with kvfree(), or NULL.
 */
void *perf_core_trace_take(struct task_struct *task, size_t *size)
{
	struct perf_core_trace *ct;
	void *note = NULL;

	mutex_lock(&core_trace_mutex);
	ct = task->perf_core_trace;
	if (ct && ct->note) {
		note = ct->note;
		*size = ct->note_size;
		ct->note = NULL;
	}
	mutex_unlock(&core_trace_mutex);
	return note;
}
