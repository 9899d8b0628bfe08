/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the ptsim selftests: open ptsim events, map their buffers,
 * collect the AUX data the kernel reports, and decode it with libipt into
 * the records ptsim wrote (a PTW sequence number and the IP of its FUP).
 */
#ifndef PTSIM_LIB_H
#define PTSIM_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define PTSIM_SYSFS	"/sys/bus/event_source/devices/ptsim"

/* attr.config1: microseconds between two records. */
#define PTSIM_INTERVAL(us)	((uint64_t)(us))
/* attr.config: PSB every 2^(n + 11) bytes. */
#define PTSIM_PSB_PERIOD(n)	((uint64_t)(n) << 24)
#define PTSIM_BRANCH		0x2000ULL	/* config:13 */

/* A stretch of trace and the AUX record flags the kernel gave it. */
struct ptsim_chunk {
	size_t		end;	/* offset in the stream just past the chunk */
	uint64_t	flags;	/* PERF_AUX_FLAG_* */
};

/* AUX data in the order the kernel reported it. */
struct ptsim_stream {
	uint8_t			*data;
	size_t			len;
	struct ptsim_chunk	*chunk;
	size_t			nr_chunks;
};

struct ptsim_rec {
	uint64_t	seq;
	uint64_t	ip;
	size_t		chunk;
};

/* What the decoder found in a stream. */
struct ptsim_trace {
	struct ptsim_rec	*rec;
	size_t			nr;
	unsigned int		nr_psb;
	unsigned int		nr_errors;
	char			error[128];	/* the first error */
};

/* An event's ring buffer and AUX area (none if it has no AUX pages). */
struct ptsim_map {
	struct perf_event_mmap_page	*pg;
	size_t				data_size;
	uint8_t				*aux;
	size_t				aux_size;
	uint64_t			aux_tail;	/* normal mode */
};

int ptsim_type(void);
void ptsim_attr(struct perf_event_attr *attr, int type, uint64_t config,
		uint64_t config1);
int ptsim_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group);
int ptsim_map(int fd, struct ptsim_map *m, size_t data_pages,
	      size_t aux_pages, bool overwrite);
void ptsim_unmap(struct ptsim_map *m);
void ptsim_ring_read(const uint8_t *ring, size_t size, uint64_t off,
		     void *to, size_t len);
const uint8_t *ptsim_data(const struct ptsim_map *m);
int ptsim_collect(struct ptsim_map *m, struct ptsim_stream *s);
int ptsim_snapshot(struct ptsim_map *m, struct ptsim_stream *s);
void ptsim_stream_add(struct ptsim_stream *s, const void *data, size_t len,
		      uint64_t flags);
void ptsim_stream_free(struct ptsim_stream *s);
int ptsim_decode(const struct ptsim_stream *s, struct ptsim_trace *t);
void ptsim_trace_free(struct ptsim_trace *t);
long ptsim_unreported_gap(const struct ptsim_stream *s,
			  const struct ptsim_trace *t);
void ptsim_spin(unsigned int ms);

#endif
