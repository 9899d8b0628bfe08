/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AUX samples of hidden AUX events (perf record -A) turned back into the
 * trace streams they were cut from.
 */
#ifndef __PERF_AUXSAMPLE_RESOLVE_H
#define __PERF_AUXSAMPLE_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/rbtree.h>
#include <linux/types.h>

/* Where the trace of one AUX sample sits: struct perf_aux_sample_position. */
struct auxsample_pos {
	u64	stream;		/* id of the hidden AUX event that wrote it */
	u64	offset;		/* stream offset of its first byte */
	u64	size;		/* its length, the end of the sample */
};

/* What one sample adds to its stream. */
struct auxsample_piece {
	u64	skip;		/* leading trace bytes the stream already has */
	u64	len;		/* new bytes, after those */
	u64	lost;		/* bytes nobody sampled, just before them */
};

/* One hidden event's stream, as far as its samples rebuilt it. */
struct auxsample_stream {
	struct rb_node	node;
	u64		id;
	u64		start;		/* offset of the first byte seen */
	u64		end;		/* offset just past the last byte seen */
	u64		nr_samples;
	u64		nr_stale;	/* samples with no byte past @end */
	u64		overlap;	/* bytes dropped as already seen */
	u64		lost;		/* bytes missing between samples */
	unsigned int	idx;		/* 0 for the first stream seen, 1, ... */
	bool		started;
	/* the last sample with trace delivered, in time order */
	struct {
		u64	time;
		pid_t	pid, tid;	/* -1: a CPU's stream */
		int	cpu;
		bool	at_exit;	/* its task's last (period 0) */
	} last;
};

struct auxsample_resolver {
	struct rb_root	streams;
	struct rb_root	owners;		/* streams per task or CPU: resolve.c */
	unsigned int	nr_streams;
	unsigned int	max_per_owner;
	u64		nr_no_trace;	/* samples that carried no trace */
	u64		nr_refused;	/* samples of streams refused */
};

int auxsample__parse(const void *data, u64 len, bool needs_swap,
		     struct auxsample_pos *pos, const void **trace);

void auxsample_resolver__init(struct auxsample_resolver *r,
			      unsigned int max_per_owner);
void auxsample_resolver__exit(struct auxsample_resolver *r);
struct auxsample_stream *auxsample_resolver__find(struct auxsample_resolver *r,
						  u64 id);
struct auxsample_stream *auxsample_resolver__stream(struct auxsample_resolver *r,
						    u64 id);
int auxsample_resolver__owned_stream(struct auxsample_resolver *r, u64 id,
				     u64 owner, struct auxsample_stream **s);
struct auxsample_stream *auxsample_resolver__first(struct auxsample_resolver *r);
struct auxsample_stream *auxsample_stream__next(struct auxsample_stream *s);

void auxsample_stream__add(struct auxsample_stream *s,
			   const struct auxsample_pos *pos,
			   struct auxsample_piece *piece);

#endif /* __PERF_AUXSAMPLE_RESOLVE_H */
