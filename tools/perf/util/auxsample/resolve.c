// SPDX-License-Identifier: GPL-2.0
/*
 * AUX samples of hidden AUX events (perf record -A) turned back into the
 * trace streams they were cut from.
 *
 * A sampler opened with PERF_AUX_SAMPLE_POSITION gets, ahead of the trace
 * in each PERF_SAMPLE_AUX field, the id of the hidden event that wrote the
 * trace and the stream offset of its first byte (struct
 * perf_aux_sample_position): the kernel counts every byte the hidden event
 * writes.  So, per stream and in stream order, a sample overlaps the one
 * before by exactly the bytes below the end of what was seen so far, and
 * follows a gap of exactly the bytes between that end and its start.  No
 * searching for packets is needed, and nothing is guessed.
 *
 * The samples of a stream arrive in time order, which is stream order: the
 * end of the trace a hidden event gives never goes back.  A stream starts
 * at offset 0, when its hidden event is created, so the trace before the
 * first sample that holds any is lost too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <byteswap.h>
#include <linux/perf_event.h>

#include "resolve.h"

/**
 * auxsample__parse - read the position header of an AUX sample
 * @data: the PERF_SAMPLE_AUX data of the sample
 * @len: its length
 * @needs_swap: the recording has the other byte order
 * @pos: the position, filled in
 * @trace: the first trace byte, filled in
 *
 * Returns 0, or -EINVAL if the sample cannot hold what its header says.
 * A header that says 0 bytes of trace (the hidden event was not running)
 * is valid.
 */
int auxsample__parse(const void *data, u64 len, bool needs_swap,
		     struct auxsample_pos *pos, const void **trace)
{
	struct perf_aux_sample_position hdr;

	if (len < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, data, sizeof(hdr));
	if (needs_swap) {
		hdr.stream = bswap_64(hdr.stream);
		hdr.offset = bswap_64(hdr.offset);
		hdr.size = bswap_64(hdr.size);
	}
	if (hdr.size > len - sizeof(hdr) || hdr.offset + hdr.size < hdr.offset)
		return -EINVAL;
	if (hdr.size && !hdr.stream)
		return -EINVAL;

	pos->stream = hdr.stream;
	pos->offset = hdr.offset;
	pos->size = hdr.size;
	*trace = (const u8 *)data + len - hdr.size;
	return 0;
}

/*
 * A hidden event traces one task or CPU, for the samplers there that share
 * it: at most one of each event.  So a task or CPU, an owner, has at most
 * as many streams as the recording has events with AUX samples.
 */
struct auxsample_owner {
	struct rb_node	node;
	u64		key;
	unsigned int	nr_streams;
};

/**
 * auxsample_resolver__init - a resolver with no streams yet
 * @r: the resolver
 * @max_per_owner: the most streams one owner may have (the events with AUX
 *                 samples), or 0 for no limit
 */
void auxsample_resolver__init(struct auxsample_resolver *r,
			      unsigned int max_per_owner)
{
	r->streams = RB_ROOT;
	r->owners = RB_ROOT;
	r->nr_streams = 0;
	r->max_per_owner = max_per_owner;
	r->nr_no_trace = 0;
	r->nr_refused = 0;
}

void auxsample_resolver__exit(struct auxsample_resolver *r)
{
	struct rb_node *n = rb_first(&r->streams);

	while (n) {
		struct auxsample_stream *s = rb_entry(n, struct auxsample_stream,
						      node);

		n = rb_next(n);
		rb_erase(&s->node, &r->streams);
		free(s);
	}
	n = rb_first(&r->owners);
	while (n) {
		struct auxsample_owner *o = rb_entry(n, struct auxsample_owner,
						     node);

		n = rb_next(n);
		rb_erase(&o->node, &r->owners);
		free(o);
	}
	r->nr_streams = 0;
}

/* Streams by id, owners by key: rb_find() and rb_add() order them so. */
static int auxsample__cmp(u64 a, u64 b)
{
	return a < b ? -1 : a > b;
}

static int auxsample_stream__cmp(const void *id, const struct rb_node *n)
{
	return auxsample__cmp(*(const u64 *)id,
			      rb_entry(n, struct auxsample_stream, node)->id);
}

static bool auxsample_stream__less(struct rb_node *a, const struct rb_node *b)
{
	return auxsample_stream__cmp(&rb_entry(a, struct auxsample_stream, node)->id,
				     b) < 0;
}

/**
 * auxsample_resolver__find - the stream of hidden event @id, if any
 * @r: the resolver
 * @id: the stream field of a position header
 */
struct auxsample_stream *auxsample_resolver__find(struct auxsample_resolver *r,
						  u64 id)
{
	struct rb_node *n = rb_find(&id, &r->streams, auxsample_stream__cmp);

	return n ? rb_entry(n, struct auxsample_stream, node) : NULL;
}

/**
 * auxsample_resolver__stream - the stream of hidden event @id
 * @r: the resolver
 * @id: the stream field of a position header
 *
 * Returns the stream, new and empty the first time, or NULL when out of
 * memory.
 */
struct auxsample_stream *auxsample_resolver__stream(struct auxsample_resolver *r,
						    u64 id)
{
	struct auxsample_stream *s = auxsample_resolver__find(r, id);

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->id = id;
	s->idx = r->nr_streams++;
	rb_add(&s->node, &r->streams, auxsample_stream__less);
	return s;
}

static int auxsample_owner__cmp(const void *key, const struct rb_node *n)
{
	return auxsample__cmp(*(const u64 *)key,
			      rb_entry(n, struct auxsample_owner, node)->key);
}

static bool auxsample_owner__less(struct rb_node *a, const struct rb_node *b)
{
	return auxsample_owner__cmp(&rb_entry(a, struct auxsample_owner, node)->key,
				    b) < 0;
}

/* The owner of key @key, new with no streams the first time, or NULL. */
static struct auxsample_owner *auxsample_resolver__owner(struct auxsample_resolver *r,
							 u64 key)
{
	struct rb_node *n = rb_find(&key, &r->owners, auxsample_owner__cmp);
	struct auxsample_owner *o;

	if (n)
		return rb_entry(n, struct auxsample_owner, node);
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->key = key;
	rb_add(&o->node, &r->owners, auxsample_owner__less);
	return o;
}

/**
 * auxsample_resolver__owned_stream - the stream of hidden event @id of @owner
 * @r: the resolver
 * @id: the stream field of a position header
 * @owner: a key for the task or CPU that the hidden event traces
 * @s: the stream, filled in: new and empty the first time
 *
 * A new stream that would give @owner more than @r->max_per_owner cannot
 * be one the kernel wrote: it is refused, and counted, so that a garbled
 * or made-up file with a new stream in every sample costs no more than one
 * with a new task in every sample.
 *
 * Returns 0, -E2BIG for a refused stream, or -ENOMEM.
 */
int auxsample_resolver__owned_stream(struct auxsample_resolver *r, u64 id,
				     u64 owner, struct auxsample_stream **s)
{
	struct auxsample_owner *o = NULL;

	*s = auxsample_resolver__find(r, id);
	if (*s)
		return 0;
	if (r->max_per_owner) {
		o = auxsample_resolver__owner(r, owner);
		if (!o)
			return -ENOMEM;
		if (o->nr_streams >= r->max_per_owner) {
			r->nr_refused++;
			return -E2BIG;
		}
	}
	*s = auxsample_resolver__stream(r, id);
	if (!*s)
		return -ENOMEM;
	if (o)
		o->nr_streams++;
	return 0;
}

struct auxsample_stream *auxsample_resolver__first(struct auxsample_resolver *r)
{
	struct rb_node *n = rb_first(&r->streams);

	return n ? rb_entry(n, struct auxsample_stream, node) : NULL;
}

struct auxsample_stream *auxsample_stream__next(struct auxsample_stream *s)
{
	struct rb_node *n = rb_next(&s->node);

	return n ? rb_entry(n, struct auxsample_stream, node) : NULL;
}

/**
 * auxsample_stream__add - take the next sample of a stream
 * @s: the stream of @pos
 * @pos: the sample's position
 * @piece: what the sample adds: its bytes from @piece->skip on, for
 *         @piece->len bytes, after @piece->lost bytes that no sample has
 *
 * A sample that ends at or before what the stream has adds nothing (it
 * repeats trace, or came late) and is counted as stale.
 */
void auxsample_stream__add(struct auxsample_stream *s,
			   const struct auxsample_pos *pos,
			   struct auxsample_piece *piece)
{
	u64 end = pos->offset + pos->size;

	memset(piece, 0, sizeof(*piece));
	s->nr_samples++;
	if (!pos->size)
		return;

	/* The stream starts at 0: what came before the first sample is lost. */
	if (!s->started) {
		s->started = true;
		s->start = pos->offset;
	}
	if (end <= s->end) {
		s->nr_stale++;
		s->overlap += pos->size;
		piece->skip = pos->size;
		return;
	}
	if (pos->offset > s->end) {
		piece->lost = pos->offset - s->end;
		s->lost += piece->lost;
	} else {
		piece->skip = s->end - pos->offset;
		s->overlap += piece->skip;
	}
	piece->len = end - pos->offset - piece->skip;
	s->end = end;
}
