// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the ptsim selftests; see ptsim_lib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <intel-pt.h>

#include "ptsim_lib.h"

#define LOSS_FLAGS	(PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL)

/* The ptsim PMU's type, or -1 if this kernel has none. */
int ptsim_type(void)
{
	FILE *f = fopen(PTSIM_SYSFS "/type", "r");
	int type = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

void ptsim_attr(struct perf_event_attr *attr, int type, uint64_t config,
		uint64_t config1)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->config1 = config1;
	attr->disabled = 1;
}

int ptsim_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group, 0);
}

int ptsim_map(int fd, struct ptsim_map *m, size_t data_pages,
	      size_t aux_pages, bool overwrite)
{
	size_t page = sysconf(_SC_PAGESIZE);
	int prot = PROT_READ | (overwrite ? 0 : PROT_WRITE);
	void *p;

	memset(m, 0, sizeof(*m));
	m->data_size = data_pages * page;
	p = mmap(NULL, page + m->data_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->pg = p;
	if (!aux_pages)
		return 0;
	m->aux_size = aux_pages * page;
	m->pg->aux_offset = page + m->data_size;
	m->pg->aux_size = m->aux_size;
	p = mmap(NULL, m->aux_size, prot, MAP_SHARED, fd, m->pg->aux_offset);
	if (p == MAP_FAILED) {
		int err = -errno;

		munmap(m->pg, page + m->data_size);
		m->pg = NULL;
		return err;
	}
	m->aux = p;
	return 0;
}

void ptsim_unmap(struct ptsim_map *m)
{
	size_t page = sysconf(_SC_PAGESIZE);

	if (m->aux)
		munmap(m->aux, m->aux_size);
	if (m->pg)
		munmap(m->pg, page + m->data_size);
	memset(m, 0, sizeof(*m));
}

void ptsim_stream_add(struct ptsim_stream *s, const void *data, size_t len,
		      uint64_t flags)
{
	s->data = realloc(s->data, s->len + len);
	s->chunk = realloc(s->chunk, (s->nr_chunks + 1) * sizeof(*s->chunk));
	if (!s->data || !s->chunk) {
		perror("realloc");
		exit(1);
	}
	memcpy(s->data + s->len, data, len);
	s->len += len;
	s->chunk[s->nr_chunks].end = s->len;
	s->chunk[s->nr_chunks].flags = flags;
	s->nr_chunks++;
}

void ptsim_stream_free(struct ptsim_stream *s)
{
	free(s->data);
	free(s->chunk);
	memset(s, 0, sizeof(*s));
}

/* Copy @len bytes at offset @off of the @size byte ring at @ring. */
void ptsim_ring_read(const uint8_t *ring, size_t size, uint64_t off,
		     void *to, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)to)[i] = ring[(off + i) % size];
}

/* Append the AUX bytes [off, off + len) of @m, which may wrap. */
static void add_aux(struct ptsim_stream *s, struct ptsim_map *m,
		    uint64_t off, uint64_t len, uint64_t flags)
{
	uint8_t *tmp = malloc(len ? len : 1);

	if (!tmp) {
		perror("malloc");
		exit(1);
	}
	ptsim_ring_read(m->aux, m->aux_size, off, tmp, len);
	ptsim_stream_add(s, tmp, len, flags);
	free(tmp);
}

/* The ring buffer of data records of @m. */
const uint8_t *ptsim_data(const struct ptsim_map *m)
{
	return (const uint8_t *)m->pg + m->pg->data_offset;
}

/*
 * Normal mode: append the data of every PERF_RECORD_AUX in the ring buffer
 * to @s and hand the space back to the kernel (data_tail and aux_tail).
 * Returns the number of AUX records, or -EPROTO for one that lies outside
 * what the kernel has published.
 */
int ptsim_collect(struct ptsim_map *m, struct ptsim_stream *s)
{
	uint64_t head = __atomic_load_n(&m->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t aux_head = __atomic_load_n(&m->pg->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = m->pg->data_tail;
	const uint8_t *data = ptsim_data(m);
	int nr = 0;

	while (tail < head) {
		struct {
			struct perf_event_header hdr;
			uint64_t aux_offset, aux_size, flags;
		} rec;
		struct perf_event_header hdr;

		ptsim_ring_read(data, m->data_size, tail, &hdr, sizeof(hdr));
		if (hdr.type == PERF_RECORD_AUX && hdr.size >= sizeof(rec)) {
			ptsim_ring_read(data, m->data_size, tail, &rec,
					sizeof(rec));
			if (rec.aux_offset + rec.aux_size > aux_head ||
			    rec.aux_size > m->aux_size)
				return -EPROTO;
			add_aux(s, m, rec.aux_offset, rec.aux_size, rec.flags);
			m->aux_tail = rec.aux_offset + rec.aux_size;
			nr++;
		}
		if (!hdr.size)
			return -EPROTO;
		tail += hdr.size;
	}
	__atomic_store_n(&m->pg->data_tail, tail, __ATOMIC_RELEASE);
	__atomic_store_n(&m->pg->aux_tail, m->aux_tail, __ATOMIC_RELEASE);
	return nr;
}

/* Overwrite mode: append what the AUX area holds, oldest byte first. */
int ptsim_snapshot(struct ptsim_map *m, struct ptsim_stream *s)
{
	uint64_t head = __atomic_load_n(&m->pg->aux_head, __ATOMIC_ACQUIRE);
	uint64_t len = head < m->aux_size ? head : m->aux_size;

	add_aux(s, m, head - len, len, PERF_AUX_FLAG_OVERWRITE);
	return len;
}

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

/*
 * Sequence numbers rise by one per record.  A jump between two records is
 * loss, which the kernel must have reported: a TRUNCATED chunk from the
 * first record's chunk on, or a PARTIAL chunk from the first record's up to
 * the second's.  Returns the index of the first record after a jump that
 * was not reported (or after a step back), -1 if there is none.
 */
long ptsim_unreported_gap(const struct ptsim_stream *s,
			  const struct ptsim_trace *t)
{
	size_t i, c;

	for (i = 1; i < t->nr; i++) {
		const struct ptsim_rec *a = &t->rec[i - 1], *b = &t->rec[i];
		bool reported = false;

		if (b->seq == a->seq + 1)
			continue;
		if (b->seq <= a->seq)
			return i;
		for (c = a->chunk; c <= b->chunk && c < s->nr_chunks; c++) {
			uint64_t flags = s->chunk[c].flags;

			if ((flags & PERF_AUX_FLAG_PARTIAL) ||
			    (c < b->chunk && (flags & LOSS_FLAGS)))
				reported = true;
		}
		if (!reported)
			return i;
	}
	return -1;
}

/* Keep this CPU busy in user mode for @ms milliseconds. */
void ptsim_spin(unsigned int ms)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	do {
		for (int i = 0; i < 10000; i++)
			asm volatile("" : : "r" (i));
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
}
