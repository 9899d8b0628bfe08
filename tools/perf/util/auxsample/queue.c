// SPDX-License-Identifier: GPL-2.0
/*
 * Feeding a trace decoder from AUX samples with positions: each hidden
 * AUX event's stream gets a decoder queue of its own, and each sample adds
 * to it only the trace that no sample before it had, as a buffer that
 * follows the one before unless trace was lost between them.  Samples are
 * queued as the session delivers them, and the decoder frees each buffer
 * once it has decoded it, so memory does not grow with the recording.
 */
#include <errno.h>
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
 * Returns 1 if every event that took AUX samples asked for positions, 0 if
 * none did, or -EINVAL (with an error message) for a recording that mixes
 * the two, which perf record does not make: its samples could not be told
 * apart in one decoder.
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
	return with ? 1 : 0;
}

/**
 * auxsample__queue - queue the new trace of an AUX sample with a position
 * @r: the session's resolver
 * @queues: the decoder's queues; stream N (in order of first sight) goes
 *          to queue N
 * @session: the session
 * @sample: the sample
 * @reference: the decoder's timestamp of the sample
 *
 * Returns the queue that got new trace, -1 if the sample had none, or
 * -EINVAL for a sample whose header does not fit in it, or -ENOMEM.
 */
int auxsample__queue(struct auxsample_resolver *r,
		     struct auxtrace_queues *queues,
		     struct perf_session *session,
		     struct perf_sample *sample, u64 reference)
{
	struct auxtrace_buffer proto = {
		.pid = sample->pid,
		.tid = sample->tid,
		.cpu = { -1 },
		.reference = reference,
	};
	struct auxsample_piece piece;
	struct auxsample_stream *s;
	struct perf_sample_id *sid;
	struct auxsample_pos pos;
	const void *trace;
	bool started;
	int err;

	/* No room was left for trace: a miss, as a header that says 0 bytes */
	if (!sample->aux_sample.size) {
		r->nr_no_trace++;
		return -1;
	}
	if (auxsample__parse(sample->aux_sample.data, sample->aux_sample.size,
			     session->header.needs_swap, &pos, &trace))
		return -EINVAL;
	if (!pos.size) {
		r->nr_no_trace++;
		return -1;
	}

	s = auxsample_resolver__stream(r, pos.stream);
	if (!s)
		return -ENOMEM;
	started = s->started;
	auxsample_stream__add(s, &pos, &piece);
	if (!piece.len)
		return -1;

	/*
	 * A hidden event of a per-CPU sampler traces every task on its CPU;
	 * one of a per-task sampler, or an inherited copy, just one thread.
	 */
	sid = evlist__id2sid(session->evlist, sample->id);
	if (sid) {
		proto.cpu = sid->cpu;
		if (sid->tid == -1) {
			proto.pid = -1;
			proto.tid = -1;
		}
	}
	proto.consecutive = started && !piece.lost;
	proto.lost = piece.lost;

	err = auxtrace_queues__add_copy(queues, s->idx, &proto,
					(const u8 *)trace + piece.skip,
					piece.len);
	return err ?: (int)s->idx;
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
}
