// SPDX-License-Identifier: GPL-2.0
/*
 * Intel PT decoding for the ptsim selftests, with libipt; see ptsim_lib.h.
 * The helpers that need no decoder are in ptsim_lib.c, which tests of other
 * trace units use too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>

#include "ptsim_lib.h"

static size_t chunk_of(const struct ptsim_stream *s, uint64_t off)
{
	size_t i;

	for (i = 0; i < s->nr_chunks; i++)
		if (off < s->chunk[i].end)
			return i;
	return s->nr_chunks;
}

static void decode_error(struct ptsim_trace *t, uint64_t off, const char *what)
{
	if (!t->nr_errors++)
		snprintf(t->error, sizeof(t->error), "offset %llu: %s",
			 (unsigned long long)off, what);
}

static void add_rec(struct ptsim_trace *t, uint64_t seq, uint64_t ip,
		    size_t chunk)
{
	if (!(t->nr & (t->nr + 1))) {
		t->rec = realloc(t->rec, 2 * (t->nr + 1) * sizeof(*t->rec));
		if (!t->rec) {
			perror("realloc");
			exit(1);
		}
	}
	t->rec[t->nr].seq = seq;
	t->rec[t->nr].ip = ip;
	t->rec[t->nr].chunk = chunk;
	t->nr++;
}

/*
 * Decode @s packet by packet from its first PSB.  ptsim writes PSB+ (PSB,
 * TSC, CBR, MODE.Exec, PSBEND), PAD, and records: a PTW with the IP bit set
 * followed by the FUP of its IP.  Anything else, a PTW without its FUP or a
 * FUP without its PTW is an error; after an error decoding resumes at the
 * next PSB.  Returns 0, or -1 if there was an error (see @t->error).
 */
int ptsim_decode(const struct ptsim_stream *s, struct ptsim_trace *t)
{
	struct pt_packet_decoder *dec;
	struct pt_config config;
	struct pt_packet pkt;
	bool pending = false;
	uint64_t seq = 0, off = 0;
	int err;

	memset(t, 0, sizeof(*t));
	if (!s->len)
		return 0;
	pt_config_init(&config);
	config.begin = s->data;
	config.end = s->data + s->len;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec) {
		decode_error(t, 0, "pt_pkt_alloc_decoder failed");
		return -1;
	}

	for (;;) {
		err = pt_pkt_sync_forward(dec);
		if (err == -pte_eos)
			break;
		if (err < 0) {
			decode_error(t, 0, pt_errstr(pt_errcode(err)));
			break;
		}
		pending = false;
		for (;;) {
			pt_pkt_get_offset(dec, &off);
			err = pt_pkt_next(dec, &pkt, sizeof(pkt));
			if (err < 0)
				break;
			if (pkt.type == ppt_psb)
				t->nr_psb++;
			switch (pkt.type) {
			case ppt_psb:
			case ppt_psbend:
			case ppt_tsc:
			case ppt_cbr:
			case ppt_mode:
			case ppt_pad:
				if (pending)
					decode_error(t, off, "PTW without FUP");
				pending = false;
				break;
			case ppt_ptw:
				if (pending || !pkt.payload.ptw.ip ||
				    pkt.payload.ptw.plc != 1)
					decode_error(t, off, "bad PTW");
				seq = pkt.payload.ptw.payload;
				pending = true;
				break;
			case ppt_fup:
				if (!pending) {
					decode_error(t, off, "FUP without PTW");
					break;
				}
				add_rec(t, seq, pkt.payload.ip.ip,
					chunk_of(s, off));
				pending = false;
				break;
			default:
				decode_error(t, off, "unexpected packet");
				break;
			}
		}
		if (err == -pte_eos)
			break;
		decode_error(t, off, pt_errstr(pt_errcode(err)));
	}
	pt_pkt_free_decoder(dec);
	return t->nr_errors ? -1 : 0;
}

void ptsim_trace_free(struct ptsim_trace *t)
{
	free(t->rec);
	memset(t, 0, sizeof(*t));
}

/* The code the trace runs in is this process's: read it from memory. */
static int read_code(uint8_t *buffer, size_t size,
		     const struct pt_asid *asid, uint64_t ip, void *context)
{
	const struct ptsim_ranges *text = context;
	size_t i;

	for (i = 0; i < text->nr; i++) {
		if (!ptsim_in_range(&text->r[i], ip))
			continue;
		if (size > text->r[i].end - ip)
			size = text->r[i].end - ip;
		memcpy(buffer, (const void *)(uintptr_t)ip, size);
		return size;
	}
	return -pte_nomap;
}

/*
 * A libipt image of this process's code in @text (ptsim_text_ranges()),
 * read from its memory, or NULL.  A child that fork() made and did not
 * exec runs the same code at the same addresses.
 */
struct pt_image *ptsim_self_image(struct ptsim_ranges *text)
{
	struct pt_image *image = pt_image_alloc(NULL);

	if (image && pt_image_set_callback(image, read_code, text)) {
		pt_image_free(image);
		image = NULL;
	}
	return image;
}

static int drain_events(struct pt_insn_decoder *dec, int status,
			struct ptsim_flow *f)
{
	struct pt_event ev;

	while (status & pts_event_pending) {
		status = pt_insn_event(dec, &ev, sizeof(ev));
		if (status < 0)
			return status;
		/* An interrupt (FUP, TIP.PGD): disabled at the FUP's IP */
		if (ev.type == ptev_async_disabled)
			f->disabled_ip = ev.variant.async_disabled.at;
	}
	return status;
}

/* Decode Intel PT @trace from its first PSB to its end, over @image. */
void ptsim_flow_decode(const uint8_t *trace, size_t len,
		       struct pt_image *image, struct ptsim_flow *f)
{
	struct pt_config config;
	struct pt_insn_decoder *dec;
	struct pt_insn insn;
	int status;

	memset(f, 0, sizeof(*f));
	pt_config_init(&config);
	config.begin = (uint8_t *)trace;
	config.end = (uint8_t *)trace + len;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec) {
		f->error = -pte_nomem;
		return;
	}
	pt_insn_set_image(dec, image);
	status = pt_insn_sync_forward(dec);
	while (status >= 0) {
		status = drain_events(dec, status, f);
		if (status < 0 || (status & pts_eos))
			break;
		status = pt_insn_next(dec, &insn, sizeof(insn));
		if (status < 0)
			break;
		f->last_ip[f->insns++ % PTSIM_FLOW_LAST] = insn.ip;
		/* A system call leaves user mode, back to after it. */
		if (insn.iclass == ptic_far_call)
			f->disabled_ip = insn.ip + insn.size;
	}
	if (status < 0 && status != -pte_eos)
		f->error = status;
	pt_insn_free_decoder(dec);
}

/*
 * Decode Intel PT @trace of a sample taken at @ip, over @image, into @f,
 * and check it: no libipt error and, if it holds an instruction, disabled
 * by the interrupt or fault that took the sample, at @ip, or by a system
 * call that returns to @ip (the sample a task takes at its exit).  Returns 0, or
 * -1 with the reason in @why.
 */
int ptsim_flow_check(const uint8_t *trace, size_t len, uint64_t ip,
		     struct pt_image *image, struct ptsim_flow *f,
		     char *why, size_t why_len)
{
	ptsim_flow_decode(trace, len, image, f);
	if (f->error) {
		snprintf(why, why_len, "%s", pt_errstr(pt_errcode(f->error)));
		return -1;
	}
	if (f->insns && f->disabled_ip != ip) {
		snprintf(why, why_len, "trace disabled at %#llx, sample at %#llx",
			 (unsigned long long)f->disabled_ip,
			 (unsigned long long)ip);
		return -1;
	}
	return 0;
}

/* The IP of the @n-th instruction from the end of @f (0: the last), or 0. */
uint64_t ptsim_flow_ip(const struct ptsim_flow *f, size_t n)
{
	if (n >= f->insns || n >= PTSIM_FLOW_LAST)
		return 0;
	return f->last_ip[(f->insns - 1 - n) % PTSIM_FLOW_LAST];
}

/*
 * Decode the trace in AUX sample @s into @t (nothing for a sample without
 * trace) and check what holds for every sample of ptsim's trace: it
 * decodes, its sequence numbers go up by one from record to record, and,
 * if @text is given, every IP lies in it.  Returns 0, or -1 with the first
 * problem in @t->error.
 */
int ptsim_sample_trace(const struct ptsim_sample *s, struct ptsim_trace *t,
		       const struct ptsim_ranges *text)
{
	long gap;
	size_t i;

	if (ptsim_decode(&s->aux, t))
		return -1;

	/* One chunk without loss flags: any jump is a hole. */
	gap = ptsim_unreported_gap(&s->aux, t);
	if (gap >= 0) {
		snprintf(t->error, sizeof(t->error),
			 "record %ld: sequence number %llu after %llu", gap,
			 (unsigned long long)t->rec[gap].seq,
			 (unsigned long long)t->rec[gap - 1].seq);
		t->nr_errors++;
		return -1;
	}

	for (i = 0; text && i < t->nr; i++) {
		if (ptsim_in_ranges(text, t->rec[i].ip))
			continue;
		snprintf(t->error, sizeof(t->error),
			 "record %zu (sequence number %llu): IP %#llx is not user text",
			 i, (unsigned long long)t->rec[i].seq,
			 (unsigned long long)t->rec[i].ip);
		t->nr_errors++;
		return -1;
	}
	return 0;
}
