// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX sample resolver (util/auxsample/resolve.c) against samples cut
 * the way the kernel cuts them: each one a struct perf_aux_sample_position,
 * padding, and the trace bytes that end it.  Whatever the cuts (adjacent,
 * overlapping, with gaps, out of order, of two streams at once), the pieces
 * must give back exactly the bytes that were sampled, in order, and the
 * stream's counters must be what the cuts imply.  The streams are real
 * traces: Intel PT, libipt's test streams, from $PERF_TEST_LIBIPT_DIR, and
 * CoreSight, OpenCSD's snapshots of hardware captures, from
 * $PERF_TEST_OPENCSD_DIR: the resolver does not look into the trace.
 */
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/types.h>

#include "debug.h"
#include "evlist.h"
#include "evsel.h"
#include "tests.h"
#include "util/auxsample/queue.h"
#include "util/auxsample/resolve.h"

#ifndef U64_MAX
#define U64_MAX		((u64)~0ULL)
#endif

#define HDR_SIZE	sizeof(struct perf_aux_sample_position)
/* Shorter trace files only go into the stream of all of them. */
#define MIN_STREAM	64
/* Cuts of each stream in each scenario. */
#define ROUNDS		8
#define NR_FUZZ		20000

static int __printf(1, 2) fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	veprintf(1, verbose, fmt, ap);
	va_end(ap);
	return TEST_FAIL;
}

/* u64 is unsigned long on some arches: this prints with %llu anywhere. */
static unsigned long long ull(u64 v)
{
	return v;
}

/* Pseudo-random, and the same on every run: an LCG. */
static u32 rnd(u64 *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed >> 33;
}

/* Below @n, which is not 0. */
static u64 below(u64 *seed, u64 n)
{
	return rnd(seed) % n;
}

/* One time in @n; never if @n is 0. */
static bool one_in(u64 *seed, unsigned int n)
{
	return n && !below(seed, n);
}

static u64 rnd64(u64 *seed)
{
	u64 hi = rnd(seed);

	return hi << 33 | (u64)rnd(seed) << 2 | below(seed, 4);
}

/* FNV-1a: each file's cuts are its own. */
static u64 name_seed(const char *name)
{
	u64 h = 0xcbf29ce484222325ULL;

	while (*name)
		h = (h ^ (u8)*name++) * 0x100000001b3ULL;
	return h;
}

/* A stream as its hidden event wrote it, and as its samples give it back. */
struct stream {
	const char	*name;
	const u8	*data;
	u64		len;
	u64		id;
	u64		base;		/* stream offset of data[0] */
	/* What the cuts imply */
	u8		*seen;		/* 1 for each byte that a sample has */
	u8		*want;		/* data, less the bytes no sample has */
	u64		want_len;
	u64		nr_samples;
	u64		nr_stale;
	u64		overlap;
	u64		lost;
	u64		start;
	u64		end;
	bool		started;
	/* What the pieces gave */
	u8		*got;
	u64		got_len;
	u64		at;		/* stream offset of the next new byte */
	u64		lost_sum;	/* of piece.lost */
	bool		any;		/* some piece had new bytes */
	bool		taken;		/* the resolver has the stream */
};

static int stream__init(struct stream *st, const char *name, const u8 *data,
			u64 len)
{
	memset(st, 0, sizeof(*st));
	st->name = name;
	st->data = data;
	st->len = len;
	st->seen = malloc(len);
	st->want = malloc(len);
	st->got = malloc(len);
	if (!st->seen || !st->want || !st->got)
		return fail("out of memory\n");
	return 0;
}

static void stream__exit(struct stream *st)
{
	free(st->seen);
	free(st->want);
	free(st->got);
}

static void stream__reset(struct stream *st, u64 id, u64 base)
{
	st->id = id;
	st->base = base;
	st->want_len = 0;
	st->nr_samples = 0;
	st->nr_stale = 0;
	st->overlap = 0;
	st->lost = 0;
	st->start = 0;
	st->end = 0;
	st->started = false;
	st->got_len = 0;
	st->at = 0;
	st->lost_sum = 0;
	st->any = false;
	st->taken = false;
}

static struct stream *stream_of(struct stream *sts, int nr, u64 id)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (sts[i].id == id)
			return &sts[i];
	}
	return NULL;
}

/* One sample: where its trace sits, and the padding ahead of it. */
struct cut {
	struct auxsample_pos	pos;	/* first: see cut__cmp() */
	u64			pad;
};

struct cuts {
	struct cut	*v;
	size_t		nr;
	size_t		alloc;
};

static int cuts__push(struct cuts *c, const struct cut *cut)
{
	if (c->nr == c->alloc) {
		size_t alloc = c->alloc ? 2 * c->alloc : 64;
		struct cut *v = realloc(c->v, alloc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->alloc = alloc;
	}
	c->v[c->nr++] = *cut;
	return 0;
}

/* The kernel pads the trace to 8 bytes; a sampler may leave more room. */
static int cuts__add(struct cuts *c, u64 stream, u64 offset, u64 size,
		     u64 words)
{
	struct cut cut = {
		.pos	= { .stream = stream, .offset = offset, .size = size },
		.pad	= (8 - size % 8) % 8 + 8 * words,
	};

	return cuts__push(c, &cut);
}

/* Add @b to @a, keeping the order of each: two streams' samples. */
static int cuts__merge(struct cuts *a, const struct cuts *b, u64 *seed)
{
	struct cuts m = { .nr = 0 };
	size_t i = 0, j = 0;
	int err = 0;

	while (!err && (i < a->nr || j < b->nr)) {
		if (j == b->nr || (i < a->nr && below(seed, 2)))
			err = cuts__push(&m, &a->v[i++]);
		else
			err = cuts__push(&m, &b->v[j++]);
	}
	free(a->v);
	*a = m;
	return err;
}

/*
 * Stream order of two samples: by stream, then by the first byte, then
 * longest first.  Sorting by it puts samples that came out of order back
 * into stream order, in which each one's bytes before the end of those
 * before it are overlap.
 */
static int pos__cmp(const struct auxsample_pos *a,
		    const struct auxsample_pos *b)
{
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return 0;
}

static int cut__cmp(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;

	return pos__cmp(&x->pos, &y->pos);
}

/* Out of order, then back in stream order as perf would put them. */
static int cuts__shuffle_and_sort(struct cuts *c, u64 *seed)
{
	struct cut tmp;
	size_t i, j;

	for (i = c->nr; i > 1; i--) {
		j = below(seed, i);
		tmp = c->v[i - 1];
		c->v[i - 1] = c->v[j];
		c->v[j] = tmp;
	}
	qsort(c->v, c->nr, sizeof(*c->v), cut__cmp);

	/* By stream, then by the first byte, then longest first. */
	for (i = 1; i < c->nr; i++) {
		const struct auxsample_pos *p = &c->v[i - 1].pos;
		const struct auxsample_pos *q = &c->v[i].pos;

		if (p->stream < q->stream)
			continue;
		if (p->stream == q->stream && p->offset < q->offset)
			continue;
		if (p->stream == q->stream && p->offset == q->offset &&
		    p->size >= q->size)
			continue;
		return fail("sorted out of stream order at sample %zu\n", i);
	}
	return 0;
}

/*
 * The longest sample or gap: up to a third of the stream, down to a
 * 48th, so that there are a few samples or many.
 */
static u64 longest(const struct stream *st, u64 *seed)
{
	u64 n = st->len / (3 << below(seed, 5));

	return n ? n : 1;
}

/* How to cut a stream.  "1 in N" with N 0 is never. */
struct knobs {
	unsigned int	overlap;	/* 1 in N samples reach back */
	unsigned int	dup;		/* 1 in N are followed by a stale one */
	unsigned int	gap;		/* 1 in N follow bytes no sample has */
	unsigned int	empty;		/* 1 in N are followed by a size 0 one */
	unsigned int	pad;		/* 1 to N more words of padding */
	unsigned int	kernel;		/* one size, strides up to N times it */
};

static u64 words(const struct knobs *k, u64 *seed)
{
	return k->pad ? 1 + below(seed, k->pad) : 0;
}

/*
 * As a sampler with one aux_sample_size cuts: each sample is the last
 * size bytes, or all the stream has, when it is taken.  Strides up to the
 * size leave no gap, and neither does a first sample from offset 0.
 */
static int cut_kernel(struct cuts *c, const struct stream *st,
		      const struct knobs *k, u64 *seed)
{
	u64 size = 1 + below(seed, longest(st, seed));
	u64 end = 1 + below(seed, k->kernel * size), off;
	int err;

	for (;;) {
		end = min(end, st->len);
		off = end > size ? end - size : 0;
		err = cuts__add(c, st->id, st->base + off, end - off,
				words(k, seed));
		if (err || end == st->len)
			return err;
		end += 1 + below(seed, k->kernel * size);
	}
}

/*
 * Samples in stream order: each starts at or after the one before, and
 * ends after all before it unless it is a stale copy or part of the last.
 */
static int cut_stream(struct cuts *c, const struct stream *st,
		      const struct knobs *k, u64 *seed)
{
	u64 max = longest(st, seed), at = 0, last = 0, off, size, end;
	bool gapped;
	size_t nr = 0;
	int err = 0;

	if (k->kernel)
		return cut_kernel(c, st, k, seed);
	/* One of size 0 first: it must not start the stream. */
	if (k->empty)
		err = cuts__add(c, st->id, rnd64(seed), 0, words(k, seed));
	/* Bytes before the first sample are lost: streams start at 0. */
	if (k->gap && one_in(seed, 2))
		at = 1 + below(seed, max);

	while (!err && at < st->len) {
		/* Always one gap, after the first sample; never filled. */
		gapped = (k->gap && nr == 1) || one_in(seed, k->gap);
		if (gapped)
			at += 1 + below(seed, max);
		if (at >= st->len)
			break;
		off = at;
		if (nr && !gapped && one_in(seed, k->overlap))
			off = at - 1 - below(seed, at - last);
		size = min(at - off + 1 + below(seed, max), st->len - off);
		end = off + size;
		err = cuts__add(c, st->id, st->base + off, size,
				words(k, seed));
		nr++;
		last = off;

		if (!err && one_in(seed, k->dup)) {
			/* A copy, or a part: wholly inside, so stale. */
			if (one_in(seed, 2)) {
				off += below(seed, size);
				size = 1 + below(seed, end - off);
			}
			err = cuts__add(c, st->id, st->base + off, size,
					words(k, seed));
			last = off;
		}
		if (!err && one_in(seed, k->empty))
			err = cuts__add(c, st->id, rnd64(seed), 0,
					words(k, seed));
		at = end;
	}
	return err;
}

/*
 * What the cuts of @st imply, worked out from which bytes they hold: the
 * stream rebuilt is the data less the bytes no sample has; the lost bytes
 * are those between its first sample and its end; overlap is all else.
 */
static int expect(struct stream *st, const struct cuts *c)
{
	u64 sum = 0, last = 0, i;
	size_t n;

	memset(st->seen, 0, st->len);
	for (n = 0; n < c->nr; n++) {
		const struct auxsample_pos *p = &c->v[n].pos;

		if (p->stream != st->id)
			continue;
		st->nr_samples++;
		if (!p->size)
			continue;
		if (p->offset < st->base || p->size > st->len ||
		    p->offset - st->base > st->len - p->size)
			return fail("test: sample %zu is not in the stream\n",
				    n);
		if (st->started && p->offset < last)
			return fail("test: sample %zu is out of order\n", n);
		if (!st->started) {
			st->started = true;
			st->start = p->offset;
			st->end = p->offset;
		}
		if (p->offset + p->size <= st->end)
			st->nr_stale++;
		else
			st->end = p->offset + p->size;
		last = p->offset;
		sum += p->size;
		memset(st->seen + (p->offset - st->base), 1, p->size);
	}

	for (i = 0; i < st->len; i++) {
		if (st->seen[i])
			st->want[st->want_len++] = st->data[i];
	}
	st->overlap = sum - st->want_len;
	if (st->started)
		st->lost = st->end - st->want_len;
	return 0;
}

/* Parse one sample, add it to its stream, and keep what it adds. */
static int take(struct auxsample_resolver *r, struct stream *st,
		const u8 *buf, u64 len, const struct cut *cut)
{
	const struct auxsample_pos *want = &cut->pos;
	unsigned int nr_streams = r->nr_streams;
	struct auxsample_piece piece;
	struct auxsample_stream *s;
	struct auxsample_pos pos;
	const void *trace;
	int err;
	u64 at;

	err = auxsample__parse(buf, len, false, &pos, &trace);
	if (err)
		return fail("parse failed: %d\n", err);
	if (pos.stream != want->stream || pos.offset != want->offset ||
	    pos.size != want->size)
		return fail("parsed as stream %#llx offset %#llx size %llu\n",
			    ull(pos.stream), ull(pos.offset), ull(pos.size));
	if (trace != buf + HDR_SIZE + cut->pad)
		return fail("trace at byte %td of the sample, not %zu\n",
			    (const u8 *)trace - buf, HDR_SIZE + cut->pad);

	s = auxsample_resolver__stream(r, pos.stream);
	if (!s || s->id != pos.stream)
		return fail("no stream for id %#llx\n", ull(pos.stream));
	/* A new stream is numbered in the order of first samples. */
	if (!st->taken && (r->nr_streams != nr_streams + 1 ||
			   s->idx != nr_streams))
		return fail("new stream: number %u of %u streams, not %u\n",
			    s->idx, r->nr_streams, nr_streams);
	if (st->taken && r->nr_streams != nr_streams)
		return fail("stream %#llx made again\n", ull(pos.stream));
	st->taken = true;
	auxsample_stream__add(s, &pos, &piece);
	if (piece.skip > pos.size || piece.len > pos.size - piece.skip)
		return fail("piece skip %llu len %llu is past the sample\n",
			    ull(piece.skip), ull(piece.len));
	if (!piece.len) {
		if (piece.lost || (!pos.size && piece.skip))
			return fail("piece with no bytes: skip %llu lost %llu\n",
				    ull(piece.skip), ull(piece.lost));
		return 0;
	}

	/* Where the new bytes are, and where they should be. */
	at = pos.offset + piece.skip;
	/* The stream starts at 0: the first piece follows what it lost. */
	if (!st->any) {
		st->any = true;
		st->at = 0;
		if (piece.skip)
			return fail("first piece: skip %llu\n",
				    ull(piece.skip));
	}
	if (at - st->at != piece.lost)
		return fail("new bytes at %#llx, %llu lost after %#llx\n",
			    ull(at), ull(piece.lost), ull(st->at));
	if (piece.len > st->len - st->got_len)
		return fail("%llu new bytes after %llu: past the stream\n",
			    ull(piece.len), ull(st->got_len));

	memcpy(st->got + st->got_len, (const u8 *)trace + piece.skip,
	       piece.len);
	st->got_len += piece.len;
	st->at = at + piece.len;
	st->lost_sum += piece.lost;
	return 0;
}

/* A counter of stream @s, and what it should be. */
static int same(const struct auxsample_stream *s, const char *what, u64 got,
		u64 want)
{
	if (got == want)
		return 0;
	return fail("stream %#llx: %s %#llx, not %#llx\n",
		    ull(s->id), what, ull(got), ull(want));
}

static int check_stream(const struct auxsample_stream *s,
			const struct stream *st)
{
	u64 i;
	int err;

	err = same(s, "samples", s->nr_samples, st->nr_samples) ?:
	      same(s, "stale samples", s->nr_stale, st->nr_stale) ?:
	      same(s, "overlap", s->overlap, st->overlap) ?:
	      same(s, "lost", s->lost, st->lost) ?:
	      same(s, "lost by the pieces", st->lost_sum, st->lost) ?:
	      same(s, "started", s->started, st->started) ?:
	      same(s, "start", s->start, st->start) ?:
	      same(s, "end", s->end, st->end) ?:
	      same(s, "bytes rebuilt", st->got_len, st->want_len);
	if (err || !memcmp(st->got, st->want, st->want_len))
		return err;

	for (i = 0; st->got[i] == st->want[i]; i++)
		;
	return fail("stream %#llx: rebuilt byte %llu is %#x, not %#x\n",
		    ull(s->id), ull(i), st->got[i], st->want[i]);
}

static int check(struct auxsample_resolver *r, struct stream *sts, int nr)
{
	struct auxsample_stream *s;
	unsigned int nr_streams = 0, want = 0;
	struct stream *st;
	u64 last = 0;
	int i, err;

	for (s = auxsample_resolver__first(r); s;
	     s = auxsample_stream__next(s)) {
		if (nr_streams && s->id <= last)
			return fail("stream %#llx after %#llx\n",
				    ull(s->id), ull(last));
		st = stream_of(sts, nr, s->id);
		if (!st || !st->nr_samples)
			return fail("stream %#llx had no samples\n",
				    ull(s->id));
		last = s->id;
		nr_streams++;
	}
	for (i = 0; i < nr; i++)
		want += !!sts[i].nr_samples;
	if (nr_streams != want || r->nr_streams != want)
		return fail("%u streams, %u counted, not %u\n",
			    nr_streams, r->nr_streams, want);

	for (i = 0; i < nr; i++) {
		st = &sts[i];
		s = auxsample_resolver__stream(r, st->id);
		if (!s || r->nr_streams != want)
			return fail("stream %#llx not found\n",
				    ull(st->id));
		err = check_stream(s, st);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Make each cut's sample as the kernel writes it: the header, padding
 * (random, so that it shows if taken for trace), then the trace.
 */
static int resolve(struct stream *sts, int nr, const struct cuts *c,
		   u64 *seed)
{
	struct perf_aux_sample_position hdr;
	struct auxsample_resolver r;
	u8 *buf = NULL, *p;
	size_t n;
	u64 len, i;
	int err = 0;

	auxsample_resolver__init(&r, 0);
	for (n = 0; !err && n < c->nr; n++) {
		const struct cut *cut = &c->v[n];
		struct stream *st = stream_of(sts, nr, cut->pos.stream);

		len = HDR_SIZE + cut->pad + cut->pos.size;
		if (!st) {
			err = fail("test: no stream %#llx\n",
				   ull(cut->pos.stream));
			break;
		}
		p = realloc(buf, len);
		if (!p) {
			err = fail("out of memory\n");
			break;
		}
		buf = p;
		hdr.stream = cut->pos.stream;
		hdr.offset = cut->pos.offset;
		hdr.size = cut->pos.size;
		memcpy(buf, &hdr, HDR_SIZE);
		for (i = 0; i < cut->pad; i++)
			buf[HDR_SIZE + i] = rnd(seed);
		if (cut->pos.size)
			memcpy(buf + HDR_SIZE + cut->pad,
			       st->data + (cut->pos.offset - st->base),
			       cut->pos.size);

		err = take(&r, st, buf, len, cut);
		if (err)
			pr_debug("  sample %zu of %zu: stream %#llx offset %#llx size %llu padding %llu\n",
				 n, c->nr, ull(cut->pos.stream),
				 ull(cut->pos.offset), ull(cut->pos.size),
				 ull(cut->pad));
	}
	if (!err)
		err = check(&r, sts, nr);
	auxsample_resolver__exit(&r);
	free(buf);
	return err;
}

struct scenario {
	const char	*name;
	struct knobs	k;
	bool		two;		/* a second stream, interleaved */
	bool		shuffle;	/* out of order, then sorted */
	bool		whole;		/* the samples have every byte */
	bool		top;		/* the stream ends at offset U64_MAX */
};

static const struct scenario scenarios[] = {
	{ .name = "adjacent", .whole = true },
	{ .name = "partial overlap", .k = { .overlap = 1 }, .whole = true },
	{ .name = "some overlap", .k = { .overlap = 3 }, .whole = true },
	{ .name = "full overlap", .k = { .dup = 1, .overlap = 3 },
	  .whole = true },
	{ .name = "gap", .k = { .gap = 3 } },
	{ .name = "gap and overlap", .k = { .gap = 4, .overlap = 2, .dup = 3 } },
	{ .name = "padding", .k = { .pad = 4, .overlap = 3 }, .whole = true },
	{ .name = "size 0", .k = { .empty = 2, .overlap = 3 }, .whole = true },
	{ .name = "kernel, no gap", .k = { .kernel = 1 }, .whole = true },
	{ .name = "kernel", .k = { .kernel = 2 } },
	{ .name = "two streams", .k = { .overlap = 2, .dup = 4, .empty = 4 },
	  .two = true, .whole = true },
	{ .name = "two streams, gaps",
	  .k = { .overlap = 2, .dup = 4, .gap = 4, .empty = 4, .pad = 2 },
	  .two = true },
	{ .name = "out of order", .k = { .overlap = 2, .dup = 3, .empty = 4 },
	  .shuffle = true, .whole = true },
	{ .name = "out of order, two streams, gaps",
	  .k = { .overlap = 2, .dup = 3, .gap = 4, .empty = 4 },
	  .two = true, .shuffle = true },
	{ .name = "top of u64", .k = { .overlap = 2, .dup = 3, .gap = 4 },
	  .top = true },
};

/* Cut @sts[0] (and @sts[1]) as @sc says, resolve, and compare. */
static int run_scenario(const struct scenario *sc, bool top,
			struct stream *sts, u64 *seed, u64 *nr_samples)
{
	struct cuts c = { .nr = 0 }, c2 = { .nr = 0 };
	int nr = sc->two ? 2 : 1, i, err;
	u64 id;

	for (i = 0; i < nr; i++) {
		/* Ids at both ends of u64, never 0. */
		id = i ? U64_MAX - below(seed, 16) : 1 + below(seed, 1 << 30);
		stream__reset(&sts[i], id, top || sc->top ?
			      U64_MAX - sts[i].len : rnd64(seed) >> 16);
	}

	err = cut_stream(&c, &sts[0], &sc->k, seed);
	if (!err && nr == 2)
		err = cut_stream(&c2, &sts[1], &sc->k, seed);
	if (!err && nr == 2)
		err = cuts__merge(&c, &c2, seed);
	if (err) {
		err = fail("out of memory\n");
		goto out;
	}
	if (sc->shuffle) {
		err = cuts__shuffle_and_sort(&c, seed);
		if (err)
			goto out;
	}
	for (i = 0; !err && i < nr; i++)
		err = expect(&sts[i], &c);
	if (!err)
		err = resolve(sts, nr, &c, seed);

	/* And the cuts were what the scenario is about. */
	for (i = 0; !err && i < nr; i++) {
		const struct stream *st = &sts[i];

		if (sc->whole && (st->got_len != st->len ||
				  memcmp(st->got, st->data, st->len)))
			err = fail("stream %#llx is not whole\n",
				   ull(st->id));
		else if (sc->k.gap && st->want_len == st->len)
			err = fail("test: stream %#llx has no gap\n",
				   ull(st->id));
	}
	*nr_samples += c.nr;
out:
	free(c.v);
	free(c2.v);
	return err;
}

/* Every scenario, ROUNDS times, on @a (and @b as the second stream). */
static int run_scenarios(const char *a_name, const u8 *a, u64 a_len,
			 const char *b_name, const u8 *b, u64 b_len,
			 bool top, u64 *nr_samples)
{
	u64 seed = name_seed(a_name);
	struct stream sts[2];
	size_t n;
	int err, round;

	memset(sts, 0, sizeof(sts));
	err = stream__init(&sts[0], a_name, a, a_len);
	if (!err)
		err = stream__init(&sts[1], b_name, b, b_len);
	for (n = 0; !err && n < ARRAY_SIZE(scenarios); n++) {
		for (round = 0; !err && round < ROUNDS; round++) {
			err = run_scenario(&scenarios[n], top, sts, &seed,
					   nr_samples);
			if (err)
				pr_debug("%s (%llu bytes), %s: %s, round %d\n",
					 a_name, ull(a_len), b_name,
					 scenarios[n].name, round);
		}
	}
	stream__exit(&sts[0]);
	stream__exit(&sts[1]);
	return err;
}

struct trace_file {
	char	*name;
	u8	*data;
	u64	len;
};

/* @dir/@name, known to the test as @name. */
static int trace_file__read(struct trace_file *f, const char *dir,
			    const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	u64 got = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		pr_debug("%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return TEST_FAIL;
	}
	f->name = strdup(name);
	f->len = st.st_size;
	f->data = malloc(f->len ? f->len : 1);
	while (f->data && got < f->len) {
		n = read(fd, f->data + got, f->len - got);
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (!f->name || !f->data || got != f->len)
		return fail("%s: read %llu of %llu bytes\n",
			    path, ull(got), ull(f->len));
	return 0;
}

struct trace_files {
	struct trace_file	*f;
	int			nr;
	int			alloc;
};

static void trace_files__free(struct trace_files *tf)
{
	int i;

	for (i = 0; i < tf->nr; i++) {
		free(tf->f[i].name);
		free(tf->f[i].data);
	}
	free(tf->f);
}

/* One more file, read from @dir/@name. */
static int trace_files__add(struct trace_files *tf, const char *dir,
			    const char *name)
{
	struct trace_file *f;

	int alloc = tf->alloc ? 2 * tf->alloc : 32;

	if (tf->nr == tf->alloc) {
		f = realloc(tf->f, alloc * sizeof(*f));
		if (!f)
			return fail("out of memory\n");
		tf->f = f;
		tf->alloc = alloc;
	}
	f = &tf->f[tf->nr++];
	memset(f, 0, sizeof(*f));
	return trace_file__read(f, dir, name);
}

/*
 * All files one after the other, as one more stream; then only the streams
 * of MIN_STREAM bytes or more stay.
 */
static int trace_files__finish(struct trace_files *tf, const char *what)
{
	struct trace_file all = { .name = strdup(what) }, *f;
	u64 total = 0;
	int i, nr = 0;

	for (i = 0; i < tf->nr; i++)
		total += tf->f[i].len;
	all.data = malloc(total + 1);
	f = realloc(tf->f, (tf->nr + 1) * sizeof(*f));
	if (f) {
		tf->f = f;
		tf->alloc = tf->nr + 1;
	}
	if (!all.name || !all.data || !f) {
		free(all.name);
		free(all.data);
		return fail("out of memory\n");
	}
	for (i = 0; i < tf->nr; i++) {
		memcpy(all.data + all.len, tf->f[i].data, tf->f[i].len);
		all.len += tf->f[i].len;
	}

	for (i = 0; i < tf->nr; i++) {
		if (tf->f[i].len >= MIN_STREAM) {
			tf->f[nr++] = tf->f[i];
		} else {
			free(tf->f[i].name);
			free(tf->f[i].data);
		}
	}
	tf->f[nr++] = all;
	tf->nr = nr;
	return 0;
}

static int is_pt(const struct dirent *d)
{
	size_t len = strlen(d->d_name);

	return len > 3 && !strcmp(d->d_name + len - 3, ".pt");
}

static int is_dir(const struct dirent *d)
{
	return d->d_type == DT_DIR && d->d_name[0] != '.';
}

/*
 * The trace buffers of the DS-5 snapshot in @dir/@snap: the file= lines of
 * its trace.ini, each a CoreSight formatter stream (as an ETB, ETR or TPIU
 * keeps it) or a single source's.
 */
static int snapshot_add(struct trace_files *tf, const char *dir,
			const char *snap)
{
	char path[PATH_MAX], line[512];
	int err = 0;
	FILE *ini;

	snprintf(path, sizeof(path), "%s/%s/trace.ini", dir, snap);
	ini = fopen(path, "r");
	if (!ini)
		return 0;
	while (!err && fgets(line, sizeof(line), ini)) {
		if (strncmp(line, "file=", 5))
			continue;
		line[strcspn(line, "\r\n")] = '\0';
		/* Known to the test by snapshot and file. */
		snprintf(path, sizeof(path), "%s/%s", snap, line + 5);
		err = trace_files__add(tf, dir, path);
	}
	fclose(ini);
	return err;
}

/* Where a test finds trace streams. */
struct trace_source {
	const char	*env;	/* names the directory */
	int		(*filter)(const struct dirent *d);
	/* @name, an entry of the directory @dir that @filter takes */
	int		(*add)(struct trace_files *tf, const char *dir,
			       const char *name);
	const char	*all;	/* the stream of all of them */
};

/* libipt's test streams: the .pt files. */
static const struct trace_source libipt = {
	.env	= "PERF_TEST_LIBIPT_DIR",
	.filter	= is_pt,
	.add	= trace_files__add,
	.all	= "all .pt files",
};

/* OpenCSD's snapshots of CoreSight hardware: the subdirectories. */
static const struct trace_source opencsd = {
	.env	= "PERF_TEST_OPENCSD_DIR",
	.filter	= is_dir,
	.add	= snapshot_add,
	.all	= "all trace buffers",
};

static int trace_files__load(struct trace_files *tf, const char *dir,
			     const struct trace_source *src)
{
	struct dirent **names;
	int i, n, err = 0;

	n = scandir(dir, &names, src->filter, alphasort);
	if (n < 0) {
		pr_debug("cannot list %s: %s\n", dir, strerror(errno));
		return TEST_SKIP;
	}
	for (i = 0; i < n; i++) {
		if (!err)
			err = src->add(tf, dir, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	if (!err && !tf->nr) {
		pr_debug("no trace streams in %s\n", dir);
		return TEST_SKIP;
	}
	return err ?: trace_files__finish(tf, src->all);
}

/*
 * The streams of @src, each cut in every scenario, with the next one as
 * the second stream.
 */
static int rebuild_streams(const struct trace_source *src)
{
	const char *dir = getenv(src->env);
	struct trace_files tf = {};
	struct trace_file *f, *g;
	u64 nr_samples = 0, bytes = 0;
	int i, err;

	if (!dir || !*dir) {
		pr_debug("%s is not set: no trace streams\n", src->env);
		return TEST_SKIP;
	}
	err = trace_files__load(&tf, dir, src);
	for (i = 0; !err && i < tf.nr; i++) {
		f = &tf.f[i];
		g = &tf.f[(i + 1) % tf.nr];
		err = run_scenarios(f->name, f->data, f->len,
				    g->name, g->data, g->len, false,
				    &nr_samples);
		bytes += f->len;
	}
	if (!err)
		pr_debug("%d streams, %llu bytes, cut %zu ways: %llu samples\n",
			 tf.nr, ull(bytes), ARRAY_SIZE(scenarios) * ROUNDS,
			 ull(nr_samples));
	trace_files__free(&tf);
	return err;
}

static int test__auxsample_libipt(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	return rebuild_streams(&libipt);
}

static int test__auxsample_opencsd(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	return rebuild_streams(&opencsd);
}

/* A sample's header as a recording of either byte order has it. */
static void put_hdr(void *buf, u64 stream, u64 offset, u64 size, bool swap)
{
	struct perf_aux_sample_position hdr = {
		.stream	= swap ? bswap_64(stream) : stream,
		.offset	= swap ? bswap_64(offset) : offset,
		.size	= swap ? bswap_64(size) : size,
	};

	memcpy(buf, &hdr, HDR_SIZE);
}

/* Parse, and check the result against what the header says. */
static int try_parse(const u8 *buf, u64 len, bool swap, u64 stream,
		     u64 offset, u64 size, int want)
{
	struct auxsample_pos pos;
	const void *trace;
	int err;

	err = auxsample__parse(buf, len, swap, &pos, &trace);
	if (err != want)
		return fail("parse gave %d, not %d\n", err, want);
	if (err)
		return 0;
	if (pos.stream != stream || pos.offset != offset || pos.size != size)
		return fail("parsed as stream %#llx offset %#llx size %#llx\n",
			    ull(pos.stream), ull(pos.offset), ull(pos.size));
	if (trace != buf + len - size)
		return fail("trace at %td, not %llu\n",
			    (const u8 *)trace - buf, ull(len - size));
	return 0;
}

static const struct parse_case {
	const char	*what;
	u64		len;		/* of the sample */
	u64		stream;
	u64		offset;
	u64		size;
	int		ret;
} parse_cases[] = {
	{ "no bytes",			0, 1, 0, 0, -EINVAL },
	{ "1 byte",			1, 1, 0, 0, -EINVAL },
	{ "shorter than the header",	HDR_SIZE - 1, 1, 0, 0, -EINVAL },
	{ "the header, size 0",		HDR_SIZE, 1, 0, 0, 0 },
	{ "the header, size 1",		HDR_SIZE, 1, 0, 1, -EINVAL },
	{ "size fills the room",	64, 1, 0, 64 - HDR_SIZE, 0 },
	{ "size 1 past the room",	64, 1, 0, 65 - HDR_SIZE, -EINVAL },
	{ "size 1 short of the room",	64, 1, 0, 63 - HDR_SIZE, 0 },
	{ "size U64_MAX",		64, 1, 0, U64_MAX, -EINVAL },
	{ "size wraps the room",	64, 1, 0, U64_MAX - HDR_SIZE + 1,
					-EINVAL },
	{ "offset + size wraps",	64, 1, U64_MAX, 1, -EINVAL },
	{ "offset + size is 2^64",	64, 1, U64_MAX - 7, 8, -EINVAL },
	{ "offset + size wraps far",	64, 1, U64_MAX - 3, 40, -EINVAL },
	{ "offset + size is U64_MAX",	64, 1, U64_MAX - 8, 8, 0 },
	{ "offset U64_MAX, size 0",	64, 1, U64_MAX, 0, 0 },
	{ "stream 0 with trace",	64, 0, 0, 8, -EINVAL },
	{ "stream 0, size 0",		64, 0, 12345, 0, 0 },
	{ "stream U64_MAX",		64, U64_MAX, 7, 40, 0 },
};

/*
 * Random samples, many with near-valid headers: each is refused with
 * -EINVAL or read right, and what is read can go to the resolver.
 */
static int fuzz_parse(void)
{
	struct auxsample_resolver r;
	struct perf_aux_sample_position h;
	struct auxsample_piece piece;
	struct auxsample_stream *s;
	struct auxsample_pos pos;
	u64 seed = 1, len, i;
	const void *trace;
	bool swap, ok;
	int n, err = 0;
	u8 *buf;

	auxsample_resolver__init(&r, 0);
	for (n = 0; !err && n < NR_FUZZ; n++) {
		len = below(&seed, 96);
		swap = below(&seed, 2);
		buf = malloc(len ? len : 1);
		if (!buf) {
			err = fail("out of memory\n");
			break;
		}
		for (i = 0; i < len; i++)
			buf[i] = rnd(&seed);
		if (len >= HDR_SIZE && !one_in(&seed, 4)) {
			h.stream = one_in(&seed, 4) ? 0 : rnd64(&seed);
			h.offset = one_in(&seed, 3) ?
				   U64_MAX - below(&seed, 64) : rnd64(&seed);
			h.size = one_in(&seed, 4) ?
				 0 : below(&seed, len - HDR_SIZE + 3);
			put_hdr(buf, h.stream, h.offset, h.size, swap);
		}
		memset(&h, 0, sizeof(h));
		if (len >= HDR_SIZE) {
			memcpy(&h, buf, HDR_SIZE);
			if (swap) {
				h.stream = bswap_64(h.stream);
				h.offset = bswap_64(h.offset);
				h.size = bswap_64(h.size);
			}
		}
		ok = len >= HDR_SIZE && h.size <= len - HDR_SIZE &&
		     h.offset + h.size >= h.offset && (h.stream || !h.size);

		err = try_parse(buf, len, swap, h.stream, h.offset, h.size,
				ok ? 0 : -EINVAL);
		if (!err && ok) {
			auxsample__parse(buf, len, swap, &pos, &trace);
			s = auxsample_resolver__stream(&r, pos.stream);
			if (!s) {
				err = fail("out of memory\n");
			} else {
				auxsample_stream__add(s, &pos, &piece);
				if (piece.skip > pos.size ||
				    piece.len > pos.size - piece.skip)
					err = fail("piece past the sample\n");
			}
		}
		if (err)
			pr_debug("  fuzz sample %d: %llu bytes, swap %d\n",
				 n, ull(len), swap);
		free(buf);
	}
	auxsample_resolver__exit(&r);
	return err;
}

static int test__auxsample_garbled(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	const struct parse_case *pc;
	u64 buf[16], i;
	size_t n;
	int swap, err;

	for (n = 0; n < ARRAY_SIZE(parse_cases); n++) {
		pc = &parse_cases[n];
		for (swap = 0; swap < 2; swap++) {
			for (i = 0; i < ARRAY_SIZE(buf); i++)
				buf[i] = 0x5a5a5a5a5a5a5a5aULL * (i + 1);
			put_hdr(buf, pc->stream, pc->offset, pc->size, swap);
			err = try_parse((const u8 *)buf, pc->len, swap,
					pc->stream, pc->offset, pc->size,
					pc->ret);
			if (err) {
				pr_debug("  %s, %s byte order\n", pc->what,
					 swap ? "other" : "same");
				return err;
			}
		}
	}

	/* Swapped, but read as it is: the size is then far too big. */
	put_hdr(buf, 1, 0x0102030405060708ULL, 8, true);
	err = try_parse((const u8 *)buf, 64, false, 0, 0, 0, -EINVAL);
	if (err) {
		pr_debug("  swapped header read unswapped\n");
		return err;
	}

	return fuzz_parse();
}

/* Samples near the top of u64, and what each must add. */
static const struct top_sample {
	u64	offset;
	u64	size;
	u64	skip;
	u64	len;
	u64	lost;
} top_samples[] = {
	{ U64_MAX - 64, 32, 0, 32, U64_MAX - 64 },	/* the first */
	{ U64_MAX - 40, 24, 8, 16, 0 },		/* 8 bytes overlap */
	{ U64_MAX - 12, 2, 0, 2, 4 },		/* after 4 lost */
	{ U64_MAX - 10, 10, 0, 10, 0 },		/* adjacent, to the top */
	{ U64_MAX - 5, 5, 5, 0, 0 },		/* stale */
	{ U64_MAX - 1, 1, 1, 0, 0 },		/* stale: the last byte */
	{ U64_MAX, 0, 0, 0, 0 },		/* size 0 */
};

static int top_resolve(void)
{
	struct auxsample_resolver r;
	struct auxsample_piece piece;
	struct auxsample_stream *s;
	struct auxsample_pos pos;
	const struct top_sample *t;
	const void *trace;
	u64 buf[16];
	size_t n;
	int err = 0;

	auxsample_resolver__init(&r, 0);
	s = auxsample_resolver__stream(&r, 42);
	if (!s)
		err = fail("out of memory\n");
	for (n = 0; !err && n < ARRAY_SIZE(top_samples); n++) {
		t = &top_samples[n];
		put_hdr(buf, 42, t->offset, t->size, false);
		err = auxsample__parse(buf, HDR_SIZE + 64, false, &pos, &trace);
		if (err) {
			err = fail("sample %zu: parse gave %d\n", n, err);
			break;
		}
		auxsample_stream__add(s, &pos, &piece);
		if (piece.skip != t->skip || piece.len != t->len ||
		    piece.lost != t->lost)
			err = fail("sample %zu: skip %llu len %llu lost %llu\n",
				   n, ull(piece.skip), ull(piece.len),
				   ull(piece.lost));
	}
	if (!err)
		err = same(s, "start", s->start, U64_MAX - 64) ?:
		      same(s, "end", s->end, U64_MAX) ?:
		      same(s, "samples", s->nr_samples,
			   ARRAY_SIZE(top_samples)) ?:
		      same(s, "stale samples", s->nr_stale, 2) ?:
		      same(s, "overlap", s->overlap, 14) ?:
		      same(s, "lost", s->lost, U64_MAX - 64 + 4);
	auxsample_resolver__exit(&r);
	return err;
}

static int test__auxsample_wrap(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	struct auxsample_pos a = { 1, U64_MAX, 1 }, b = { 1, 0, 1 };
	u64 buf[16], seed = 7, nr_samples = 0;
	u64 d, size;
	u8 data[4096];
	size_t i;
	int err;

	/* Exhaustively, at the top: offset + size up to U64_MAX is fine. */
	for (d = 0; d < 32; d++) {
		for (size = 0; size <= 32; size++) {
			put_hdr(buf, 1, U64_MAX - d, size, false);
			err = try_parse((const u8 *)buf, sizeof(buf), false,
					1, U64_MAX - d, size,
					size <= d ? 0 : -EINVAL);
			if (err) {
				pr_debug("  offset U64_MAX - %llu, size %llu\n",
					 ull(d), ull(size));
				return err;
			}
		}
	}

	err = top_resolve();
	if (err)
		return err;

	/* Stream order of offsets and sizes far apart: no subtraction. */
	if (pos__cmp(&a, &b) <= 0 || pos__cmp(&b, &a) >= 0)
		return fail("offset U64_MAX sorts before offset 0\n");
	a.offset = 0;
	a.size = U64_MAX;
	if (pos__cmp(&a, &b) >= 0 || pos__cmp(&b, &a) <= 0)
		return fail("size U64_MAX sorts after size 1\n");
	a.stream = U64_MAX;
	if (pos__cmp(&a, &b) <= 0 || pos__cmp(&b, &a) >= 0)
		return fail("stream U64_MAX sorts before stream 1\n");
	if (pos__cmp(&a, &a))
		return fail("a sample is not in order with itself\n");

	/* Every scenario, with the streams ending at U64_MAX. */
	for (i = 0; i < sizeof(data); i++)
		data[i] = rnd(&seed);
	err = run_scenarios("pseudo-random", data, sizeof(data) / 2,
			    "pseudo-random 2", data + sizeof(data) / 2,
			    sizeof(data) / 2, true, &nr_samples);
	if (!err)
		pr_debug("%llu samples at the top of u64: rebuilt\n",
			 ull(nr_samples));
	return err;
}

/* @nr_pos events with positions, @nr_plain without, one with no AUX. */
static int has_positions(int nr_pos, int nr_plain)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type = PERF_SAMPLE_IP,
	};
	struct evlist *evlist = evlist__new();
	struct evsel *evsel;
	int i, ret = -ENOMEM;

	if (!evlist)
		return -ENOMEM;
	for (i = -1; i < nr_pos + nr_plain; i++) {
		if (i >= 0) {
			attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_AUX;
			attr.aux_sample_size = 4096;
			attr.aux_sample_flags = i < nr_pos ?
						PERF_AUX_SAMPLE_POSITION : 0;
		}
		evsel = evsel__new(&attr);
		if (!evsel)
			goto out;
		evlist__add(evlist, evsel);
	}
	ret = auxsample__has_positions(evlist);
out:
	evlist__delete(evlist);
	return ret;
}

static int test__auxsample_mixed(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	static const struct {
		int nr_pos, nr_plain, ret;
	} cases[] = {
		{ 0, 0, 0 }, { 0, 2, 0 }, { 2, 0, 2 }, { 1, 1, -EINVAL },
		{ 2, 1, -EINVAL }, { 1, 2, -EINVAL },
	};
	size_t n;
	int ret;

	for (n = 0; n < ARRAY_SIZE(cases); n++) {
		ret = has_positions(cases[n].nr_pos, cases[n].nr_plain);
		if (ret != cases[n].ret)
			return fail("%d events with positions, %d without: %d, not %d\n",
				    cases[n].nr_pos, cases[n].nr_plain, ret,
				    cases[n].ret);
	}
	return 0;
}

/*
 * A task or CPU has at most one stream per event with AUX samples: with
 * two events, owner 1 gets streams 10 and 11 but not 12, which owner 2
 * gets; a known stream is found whoever asks; without a limit, any number.
 */
static int test__auxsample_owners(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	static const struct {
		u64 id, owner;
		int ret;
	} steps[] = {
		{ 10, 1, 0 }, { 11, 1, 0 }, { 12, 1, -E2BIG }, { 12, 2, 0 },
		{ 10, 1, 0 }, { 11, 2, 0 }, { 13, 2, 0 }, { 14, 2, -E2BIG },
	};
	struct auxsample_resolver r;
	struct auxsample_stream *s;
	int ret, err = 0;
	size_t n;

	auxsample_resolver__init(&r, 2);
	for (n = 0; !err && n < ARRAY_SIZE(steps); n++) {
		ret = auxsample_resolver__owned_stream(&r, steps[n].id,
						       steps[n].owner, &s);
		if (ret != steps[n].ret || (!ret && s->id != steps[n].id))
			err = fail("stream %llu of owner %llu: %d, not %d\n",
				   ull(steps[n].id), ull(steps[n].owner), ret,
				   steps[n].ret);
	}
	if (!err && (r.nr_refused != 2 || r.nr_streams != 4))
		err = fail("%llu refused, %u streams, not 2 and 4\n",
			   ull(r.nr_refused), r.nr_streams);
	auxsample_resolver__exit(&r);

	auxsample_resolver__init(&r, 0);
	for (n = 0; !err && n < 100; n++) {
		if (auxsample_resolver__owned_stream(&r, n, 1, &s))
			err = fail("stream %zu of 100 refused without a limit\n", n);
	}
	auxsample_resolver__exit(&r);
	return err;
}

/*
 * perf test runs a subtest only if its description matches too: each one
 * names the suite.
 */
static struct test_case auxsample_tests[] = {
	TEST_CASE_REASON("AUX sample resolver rebuilds libipt streams byte-exact",
			 auxsample_libipt,
			 "set PERF_TEST_LIBIPT_DIR to a dir of .pt files"),
	TEST_CASE_REASON("AUX sample resolver rebuilds CoreSight captures byte-exact",
			 auxsample_opencsd,
			 "set PERF_TEST_OPENCSD_DIR to a dir of DS-5 snapshots"),
	TEST_CASE("AUX sample resolver refuses garbled samples",
		  auxsample_garbled),
	TEST_CASE("AUX sample resolver at the top of u64", auxsample_wrap),
	TEST_CASE("AUX sample resolver refuses samples with and without positions",
		  auxsample_mixed),
	TEST_CASE("AUX sample resolver refuses more streams per task or CPU than events",
		  auxsample_owners),
	{ .name = NULL, }
};

struct test_suite suite__auxsample = {
	.desc = "AUX sample resolver",
	.test_cases = auxsample_tests,
};
