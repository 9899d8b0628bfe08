// SPDX-License-Identifier: GPL-2.0
/*
 * Feeding a trace decoder from AUX samples with positions: each hidden
 * AUX event's stream gets a decoder queue of its own, and each sample adds
 * to it only the trace that no sample before it had, as a buffer that
 * follows the one before unless trace was lost between them.
 *
 * From a file, the trace can be queued before any event is delivered, as
 * slices of the file (one small buffer per sample, as for upstream's AUX
 * samples), and decoded as a full trace is.  Otherwise, each sample's new
 * trace is queued as a copy when the session delivers the sample.  Either
 * way the decoder frees each buffer once it has decoded it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/zalloc.h>
#include <linux/perf_event.h>

#include "../auxtrace.h"
#include "../debug.h"
#include "../evlist.h"
#include "../evsel.h"
#include "../event.h"
#include "../session.h"
#include "queue.h"
#include "resolve.h"

/**
 * auxsample__has_positions - whether the AUX samples of @evlist have positions
 * @evlist: the session's events
 *
 * Returns the number of events that took AUX samples if all of them asked
 * for positions, 0 if none did, or -EINVAL (with an error message) for a
 * recording that mixes the two, which perf record does not make: its
 * samples could not be told apart in one decoder.
 */
int auxsample__has_positions(struct evlist *evlist)
{
	unsigned int with = 0, without = 0;
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		if (!(evsel->core.attr.sample_type & PERF_SAMPLE_AUX))
			continue;
		if (evsel->core.attr.aux_sample_flags & PERF_AUX_SAMPLE_POSITION)
			with++;
		else
			without++;
	}
	if (with && without) {
		pr_err("AUX samples: %u events have trace positions and %u do not: cannot decode both in one recording\n",
		       with, without);
		return -EINVAL;
	}
	return with;
}

/*
 * Whose a sample's trace is: a hidden event of a per-CPU sampler traces
 * every task on its CPU (@pid and @tid -1), one of a per-task sampler (or
 * an inherited copy) just one thread.
 */
static void auxsample__owner(struct perf_session *session,
			     struct perf_sample *sample, pid_t *pid, pid_t *tid,
			     int *cpu)
{
	struct perf_sample_id *sid = evlist__id2sid(session->evlist, sample->id);

	*pid = sample->pid;
	*tid = sample->tid;
	*cpu = -1;
	if (sid) {
		*cpu = sid->cpu.cpu;
		if (sid->tid == -1) {
			*pid = -1;
			*tid = -1;
		}
	}
}

/* The buffer for trace of @pid/@tid/@cpu, but for its data */
static void auxsample__proto(struct auxtrace_buffer *proto, pid_t pid,
			     pid_t tid, int cpu, u64 reference)
{
	memset(proto, 0, sizeof(*proto));
	proto->pid = pid;
	proto->tid = tid;
	proto->cpu.cpu = cpu;
	proto->reference = reference;
}

/*
 * Queue what a sample adds to its stream: a copy of it from @trace, or,
 * with @trace NULL, the slice of the file at @proto's data_offset.
 * Returns the queue, -1 if the sample adds nothing, -E2BIG for a stream
 * that the sample's task or CPU cannot have, or -ENOMEM.
 */
static int auxsample__add(struct auxsample_resolver *r,
			  struct auxtrace_queues *queues,
			  struct perf_session *session,
			  const struct auxsample_pos *pos,
			  struct auxtrace_buffer *proto, const void *trace)
{
	/* A hidden event traces a task (per-task streams) or a CPU */
	u64 owner = (u64)(u32)proto->tid << 32 | (u32)proto->cpu.cpu;
	struct auxsample_piece piece;
	struct auxsample_stream *s;
	bool started;
	int err;

	err = auxsample_resolver__owned_stream(r, pos->stream, owner, &s);
	if (err)
		return err;
	/*
	 * A task's stream follows it from CPU to CPU: its trace is no one
	 * CPU's, whichever CPU's sampler took the sample.
	 */
	if (proto->tid != -1)
		proto->cpu.cpu = -1;
	started = s->started;
	auxsample_stream__add(s, pos, &piece);
	if (!piece.len)
		return -1;

	proto->consecutive = started && !piece.lost;
	proto->lost = piece.lost;
	if (trace) {
		err = auxtrace_queues__add_copy(queues, s->idx, proto,
						(const u8 *)trace + piece.skip,
						piece.len);
	} else {
		proto->data_offset += piece.skip;
		proto->size = piece.len;
		err = auxtrace_queues__add_buffer(queues, session, s->idx,
						  proto, NULL);
	}
	return err ?: (int)s->idx;
}

/**
 * auxsample__check - count an AUX sample with a position as it is delivered
 * @r: the session's resolver
 * @session: the session
 * @sample: the sample
 * @pos: its position, filled in
 * @trace: its first trace byte, filled in
 *
 * Returns 0 for a sample with trace, -1 for one without (counted as such),
 * or -EINVAL for one whose header does not fit in it.
 */
int auxsample__check(struct auxsample_resolver *r,
		     struct perf_session *session, struct perf_sample *sample,
		     struct auxsample_pos *pos, const void **trace)
{
	/* No room was left for trace: a miss, as a header that says 0 bytes */
	if (!sample->aux_sample.size) {
		r->nr_no_trace++;
		return -1;
	}
	if (auxsample__parse(sample->aux_sample.data, sample->aux_sample.size,
			     session->header.needs_swap, pos, trace))
		return -EINVAL;
	if (!pos->size) {
		r->nr_no_trace++;
		return -1;
	}
	return 0;
}

/**
 * auxsample__delivered - note an AUX sample with trace as its stream's last
 * @r: the session's resolver
 * @session: the session
 * @sample: a sample of a stream @r has, delivered in time order
 *
 * The kernel has each sampler of a task take a sample at the task's exit
 * (period 0), whose trace reaches the exit: a stream whose last sample is
 * another ends with trace that no sample holds.
 */
void auxsample__delivered(struct auxsample_resolver *r,
			  struct perf_session *session,
			  struct perf_sample *sample)
{
	struct auxsample_stream *s;
	struct auxsample_pos pos;
	const void *trace;

	if (!sample->aux_sample.size ||
	    auxsample__parse(sample->aux_sample.data, sample->aux_sample.size,
			     session->header.needs_swap, &pos, &trace) ||
	    !pos.size)
		return;
	s = auxsample_resolver__find(r, pos.stream);
	if (!s)
		return;
	s->last.time = sample->time;
	auxsample__owner(session, sample, &s->last.pid, &s->last.tid,
			 &s->last.cpu);
	s->last.at_exit = !sample->period;
}

/**
 * auxsample__queue - queue the new trace of an AUX sample as it is delivered
 * @r: the session's resolver
 * @queues: the decoder's queues; stream N (in order of first sight) goes
 *          to queue N
 * @session: the session
 * @sample: the sample
 * @reference: the decoder's timestamp of the sample
 *
 * Returns the queue that got new trace, -1 if the sample had none, or
 * -EINVAL for a sample whose header does not fit in it, -E2BIG for one of
 * a stream refused (see auxsample_resolver__owned_stream()), or -ENOMEM.
 */
int auxsample__queue(struct auxsample_resolver *r,
		     struct auxtrace_queues *queues,
		     struct perf_session *session,
		     struct perf_sample *sample, u64 reference)
{
	struct auxtrace_buffer proto;
	struct auxsample_pos pos;
	const void *trace;
	pid_t pid, tid;
	int cpu, err;

	err = auxsample__check(r, session, sample, &pos, &trace);
	if (err)
		return err;
	auxsample__owner(session, sample, &pid, &tid, &cpu);
	auxsample__proto(&proto, pid, tid, cpu, reference);
	return auxsample__add(r, queues, session, &pos, &proto, trace);
}

/*
 * In a file, the trace of every sample can be queued before any event is
 * delivered, as slices of the file: then the decoder runs in time order
 * with the sideband (mmap, comm, exec, switches), as it does for a full
 * trace, and trace from before an exec is decoded against the image that
 * ran it.  First all samples are read (auxsample__slice()), then sorted
 * into stream order and queued (auxsample__queue_slices()): the samples of
 * a stream can reach the file out of order, through the ring buffers of
 * different CPUs.
 */
struct auxsample_slice {
	struct auxsample_pos	pos;
	u64			data_offset;	/* of its first trace byte */
	u64			reference;
	pid_t			pid;
	pid_t			tid;
	int			cpu;
};

/**
 * auxsample__slice - note where a sample's trace is in the file
 * @slices: the slices so far
 * @session: the session
 * @sample: a sample read before delivery
 * @data_offset: file offset of its PERF_SAMPLE_AUX data
 * @reference: the decoder's timestamp of the sample
 *
 * Samples without trace, or with a header that does not fit, are left to
 * auxsample__check() at delivery.  Returns 0 or -ENOMEM.
 */
int auxsample__slice(struct auxsample_slices *slices,
		     struct perf_session *session, struct perf_sample *sample,
		     u64 data_offset, u64 reference)
{
	struct auxsample_slice *sl;
	struct auxsample_pos pos;
	const void *trace;

	if (auxsample__parse(sample->aux_sample.data, sample->aux_sample.size,
			     session->header.needs_swap, &pos, &trace) ||
	    !pos.size)
		return 0;

	if (slices->nr == slices->alloc) {
		size_t alloc = slices->alloc ? 2 * slices->alloc : 1024;

		sl = reallocarray(slices->slice, alloc, sizeof(*sl));
		if (!sl)
			return -ENOMEM;
		slices->slice = sl;
		slices->alloc = alloc;
	}
	sl = &slices->slice[slices->nr++];
	sl->pos = pos;
	sl->data_offset = data_offset +
			  ((const u8 *)trace - (const u8 *)sample->aux_sample.data);
	sl->reference = reference;
	auxsample__owner(session, sample, &sl->pid, &sl->tid, &sl->cpu);
	if (sl->tid == -1)
		slices->per_cpu = true;
	return 0;
}

static int auxsample__slice_cmp(const void *a, const void *b)
{
	const struct auxsample_pos *x = &((const struct auxsample_slice *)a)->pos;
	const struct auxsample_pos *y = &((const struct auxsample_slice *)b)->pos;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->offset + x->size != y->offset + y->size)
		return x->offset + x->size < y->offset + y->size ? -1 : 1;
	return 0;
}

/**
 * auxsample__queue_slices - queue the trace of all samples, stream by stream
 * @slices: what auxsample__slice() found; emptied
 * @r: the session's resolver
 * @queues: the decoder's queues, as for auxsample__queue()
 * @session: the session
 *
 * The samples of a stream refused are left out, and left to the caller to
 * report at delivery: their stream is not in @r.  Returns 0 or -ENOMEM.
 */
int auxsample__queue_slices(struct auxsample_slices *slices,
			    struct auxsample_resolver *r,
			    struct auxtrace_queues *queues,
			    struct perf_session *session)
{
	struct auxtrace_buffer proto;
	size_t i;
	int err = 0;

	qsort(slices->slice, slices->nr, sizeof(*slices->slice),
	      auxsample__slice_cmp);
	for (i = 0; i < slices->nr && err >= -1; i++) {
		struct auxsample_slice *sl = &slices->slice[i];

		auxsample__proto(&proto, sl->pid, sl->tid, sl->cpu,
				 sl->reference);
		proto.data_offset = sl->data_offset;
		err = auxsample__add(r, queues, session, &sl->pos, &proto, NULL);
		if (err == -E2BIG)
			err = -1;
	}
	auxsample__slices_exit(slices);
	return err < -1 ? err : 0;
}

void auxsample__slices_exit(struct auxsample_slices *slices)
{
	zfree(&slices->slice);
	slices->nr = 0;
	slices->alloc = 0;
}

/*
 * What the resolver found: a summary line, and with -v one line per
 * stream.
 */
void auxsample__print_stats(struct auxsample_resolver *r)
{
	u64 samples = r->nr_no_trace, lost = 0;
	struct auxsample_stream *s;

	for (s = auxsample_resolver__first(r); s; s = auxsample_stream__next(s)) {
		samples += s->nr_samples;
		lost += s->lost;
		pr_debug("AUX samples of stream %llu: %llu samples (%llu with no new trace), bytes %llu to %llu, %llu overlapping, %llu lost\n",
			 (unsigned long long)s->id,
			 (unsigned long long)s->nr_samples,
			 (unsigned long long)s->nr_stale,
			 (unsigned long long)s->start,
			 (unsigned long long)s->end,
			 (unsigned long long)s->overlap,
			 (unsigned long long)s->lost);
	}
	if (samples)
		pr_info("AUX samples: %llu, %llu without trace; trace lost between them: %llu bytes; streams: %u\n",
			(unsigned long long)samples,
			(unsigned long long)r->nr_no_trace,
			(unsigned long long)lost, r->nr_streams);
	if (r->nr_refused)
		pr_err("AUX samples of streams that their task or CPU cannot have (more than one per event): %llu, not decoded\n",
		       (unsigned long long)r->nr_refused);
}
