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

void auxsample_resolver__init(struct auxsample_resolver *r)
{
	r->streams = RB_ROOT;
	r->nr_streams = 0;
	r->nr_no_trace = 0;
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
	r->nr_streams = 0;
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
	struct rb_node **p = &r->streams.rb_node, *parent = NULL;
	struct auxsample_stream *s;

	while (*p) {
		parent = *p;
		s = rb_entry(parent, struct auxsample_stream, node);
		if (id == s->id)
			return s;
		p = id < s->id ? &parent->rb_left : &parent->rb_right;
	}

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->id = id;
	s->idx = r->nr_streams++;
	rb_link_node(&s->node, parent, p);
	rb_insert_color(&s->node, &r->streams);
	return s;
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
