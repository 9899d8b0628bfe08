/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the ptsim selftests: open ptsim events, map their buffers,
 * collect the AUX data the kernel reports or the AUX samples it takes
 * (ptsim_lib.c, which the tests of other trace units use too), and decode
 * it with libipt into the records ptsim wrote, a PTW sequence number and
 * the IP of its FUP, or into instruction flow (ptsim_decode.c).
 */
#ifndef PTSIM_LIB_H
#define PTSIM_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
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

int ptsim_pmu_type(const char *pmu);
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
int ptsim_pin_cpu(int cpu);

/*
 * AUX sampling, in a group led by a ptsim event or through a hidden ptsim
 * event (attr.aux_sample_type): pmu::snapshot_aux needs ptsim built in.
 */
bool ptsim_can_sample(void);
void ptsim_sampler_attr(struct perf_event_attr *attr, uint64_t config,
			uint64_t period, uint64_t sample_type,
			uint32_t aux_size);

/* The sample_type bits ptsim_read_samples() parses. */
#define PTSIM_SAMPLE_TYPES	(PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
				 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |	\
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |	\
				 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_AUX)

/* A PERF_RECORD_SAMPLE; what its sample_type leaves out is 0. */
struct ptsim_sample {
	uint64_t		ip;
	uint32_t		pid;
	uint32_t		tid;
	uint64_t		time;
	uint64_t		addr;
	uint32_t		cpu;
	uint64_t		period;
	uint64_t		stack;	/* user stack bytes dumped */
	struct ptsim_stream	aux;	/* PERF_SAMPLE_AUX data, one chunk */
};

struct ptsim_samples {
	struct ptsim_sample	*s;
	size_t			nr;
};

/* Address ranges [start, end). */
struct ptsim_range {
	uint64_t	start;
	uint64_t	end;
};

struct ptsim_ranges {
	struct ptsim_range	*r;
	size_t			nr;
};

int ptsim_read_samples(struct ptsim_map *m, uint64_t sample_type,
		       struct ptsim_samples *ss, uint64_t *lost);
void ptsim_samples_free(struct ptsim_samples *ss);
int ptsim_sample_trace(const struct ptsim_sample *s, struct ptsim_trace *t,
		       const struct ptsim_ranges *text);
int ptsim_text_ranges(struct ptsim_ranges *text);
bool ptsim_in_range(const struct ptsim_range *r, uint64_t ip);
bool ptsim_in_ranges(const struct ptsim_ranges *text, uint64_t ip);
void ptsim_ranges_free(struct ptsim_ranges *text);
/*
 * Intel PT with branches, as perf's "pt,branch" asks: config:0 says that
 * config:13 (BranchEn) means what it says.
 */
#define PTSIM_PT_BRANCH		((1ULL << 13) | 1)

/* The instruction flow that libipt decodes from Intel PT. */
#define PTSIM_FLOW_LAST		1024
struct ptsim_flow {
	uint64_t	insns;
	/* where an interrupt last disabled it, or a system call returns to */
	uint64_t	disabled_ip;
	int		error;		/* libipt's, after the first sync */
	uint64_t	last_ip[PTSIM_FLOW_LAST];	/* a ring of the last */
};

struct pt_image;
struct pt_image *ptsim_self_image(struct ptsim_ranges *text);
void ptsim_flow_decode(const uint8_t *trace, size_t len,
		       struct pt_image *image, struct ptsim_flow *f);
int ptsim_flow_check(const uint8_t *trace, size_t len, uint64_t ip,
		     struct pt_image *image, struct ptsim_flow *f,
		     char *why, size_t why_len);
uint64_t ptsim_flow_ip(const struct ptsim_flow *f, size_t n);

int ptsim_func_range(const char *name, uintptr_t addr, struct ptsim_range *r);

/* /proc/self/fdinfo/FD lines "key:\tvalue" */
int ptsim_fdinfo(int fd, const char *key, char *val, size_t len);
int ptsim_fdinfo_u64(int fd, const char *key, uint64_t *val);

/*
 * Drop the calling process to user and group @uid, without supplementary
 * groups or capabilities, with RLIMIT_MEMLOCK @memlock bytes (or as it
 * is, if @memlock is PTSIM_KEEP_MEMLOCK).  Returns 0 or -errno.
 */
#define PTSIM_KEEP_MEMLOCK	(~(rlim_t)0)
int ptsim_become_user(uid_t uid, rlim_t memlock);

/*
 * Run @fn(@attr) in a child that drops to user and group nobody as
 * ptsim_become_user() does.  Returns its exit code, or -1.
 */
#define PTSIM_NOBODY		65534
typedef int (*ptsim_nobody_fn)(struct perf_event_attr *attr);
int ptsim_as_nobody(ptsim_nobody_fn fn, struct perf_event_attr *attr,
		    rlim_t memlock);

/* ptsim's debugfs knobs (ptsim/NAME), booleans. */
int ptsim_knob_get(const char *name, bool *on);
int ptsim_knob_set(const char *name, bool on);

/* Files under /proc/sys/kernel/ holding one number. */
int ptsim_sysctl_get(const char *name, long *val);
int ptsim_sysctl_set(const char *name, long val);
int ptsim_sysctl_str_get(const char *name, char *buf, size_t len);
int ptsim_sysctl_str_set(const char *name, const char *val);

/* Work in this process's own code: a loop with calls and branches. */
void ptsim_work(unsigned long n);
int ptsim_sample_round(int fd, struct ptsim_map *map, uint64_t sample_type,
		       struct ptsim_samples *ss, unsigned int faults,
		       unsigned long n, uint64_t *lost);

/* Benchmarks: CLOCK_MONOTONIC in seconds; the median of @n values */
double ptsim_now(void);
double ptsim_median(double *v, int n);

#endif
