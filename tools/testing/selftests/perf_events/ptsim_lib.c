// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the ptsim selftests; see ptsim_lib.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/elf.h>

#include "ptsim_lib.h"

#define LOSS_FLAGS	(PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL)

/* The type of the PMU named @pmu, or -1 if this kernel has none. */
int ptsim_pmu_type(const char *pmu)
{
	char path[128];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/* The ptsim PMU's type, or -1 if this kernel has none. */
int ptsim_type(void)
{
	return ptsim_pmu_type("ptsim");
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

/* Run the calling thread on @cpu only.  Returns 0 or -errno. */
int ptsim_pin_cpu(int cpu)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	return sched_setaffinity(0, sizeof(cpus), &cpus) ? -errno : 0;
}

/*
 * ptsim takes AUX samples (pmu::snapshot_aux) only when it is built in, not
 * as a module: see PTSIM_AUX_SAMPLING in drivers/hwtracing/ptsim/ptsim.h.
 * Only a loadable module has an initstate in sysfs.
 */
bool ptsim_can_sample(void)
{
	return access("/sys/module/ptsim/initstate", F_OK) != 0;
}

/*
 * A software sampling event of @config (PERF_COUNT_SW_*), disabled, that
 * counts user space only and copies @aux_size bytes of trace into each
 * sample (PERF_SAMPLE_AUX is added to @sample_type).  The caller names the
 * trace: a group leader, or a PMU in attr->aux_sample_type.
 */
void ptsim_sampler_attr(struct perf_event_attr *attr, uint64_t config,
			uint64_t period, uint64_t sample_type,
			uint32_t aux_size)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = config;
	attr->sample_period = period;
	attr->sample_type = sample_type | PERF_SAMPLE_AUX;
	attr->aux_sample_size = aux_size;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static bool take(const uint8_t *rec, size_t size, size_t *pos, void *to,
		 size_t len)
{
	if (len > size - *pos)
		return false;
	memcpy(to, rec + *pos, len);
	*pos += len;
	return true;
}

/* Parse the @size byte PERF_RECORD_SAMPLE @rec into @s. */
static int parse_sample(const uint8_t *rec, size_t size, uint64_t type,
			struct ptsim_sample *s)
{
	size_t pos = sizeof(struct perf_event_header);
	uint32_t u32[2];
	uint64_t len;

	memset(s, 0, sizeof(*s));
	if ((type & PERF_SAMPLE_IP) && !take(rec, size, &pos, &s->ip, 8))
		return -EPROTO;
	if (type & PERF_SAMPLE_TID) {
		if (!take(rec, size, &pos, u32, 8))
			return -EPROTO;
		s->pid = u32[0];
		s->tid = u32[1];
	}
	if ((type & PERF_SAMPLE_TIME) && !take(rec, size, &pos, &s->time, 8))
		return -EPROTO;
	if ((type & PERF_SAMPLE_ADDR) && !take(rec, size, &pos, &s->addr, 8))
		return -EPROTO;
	if (type & PERF_SAMPLE_CPU) {
		if (!take(rec, size, &pos, u32, 8))
			return -EPROTO;
		s->cpu = u32[0];
	}
	if ((type & PERF_SAMPLE_PERIOD) &&
	    !take(rec, size, &pos, &s->period, 8))
		return -EPROTO;
	if (type & PERF_SAMPLE_STACK_USER) {
		/* { u64 size; char data[size]; u64 dyn_size if size; } */
		if (!take(rec, size, &pos, &len, 8) || len > size - pos)
			return -EPROTO;
		pos += len;
		if (len && (!take(rec, size, &pos, &s->stack, 8) ||
			    s->stack > len))
			return -EPROTO;
	}
	if (type & PERF_SAMPLE_AUX) {
		/* { u64 size; char data[size]; }, size a multiple of 8 */
		if (!take(rec, size, &pos, &len, 8) || len > size - pos ||
		    len % 8)
			return -EPROTO;
		if (len)
			ptsim_stream_add(&s->aux, rec + pos, len, 0);
		pos += len;
	}
	return pos == size ? 0 : -EPROTO;
}

/*
 * Read the records from data_tail to data_head of @m, the ring buffer of an
 * event that samples @sample_type (bits of PTSIM_SAMPLE_TYPES only), and
 * hand the space back to the kernel.  Each PERF_RECORD_SAMPLE is appended
 * to @ss, or only counted if @ss is NULL; the samples PERF_RECORD_LOST
 * reports are added to @lost, if not NULL.  Returns the number of samples
 * read, -EINVAL for a sample_type it does not parse, -EPROTO for a record
 * that is not what that sample_type makes, or -ENOMEM.
 */
int ptsim_read_samples(struct ptsim_map *m, uint64_t sample_type,
		       struct ptsim_samples *ss, uint64_t *lost)
{
	uint64_t head = __atomic_load_n(&m->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = m->pg->data_tail;
	const uint8_t *data = ptsim_data(m);
	struct perf_event_header hdr;
	uint8_t *rec = NULL;
	int nr = 0, err = 0;

	if (sample_type & ~PTSIM_SAMPLE_TYPES)
		return -EINVAL;
	/* A record is at most U16_MAX bytes long. */
	if (ss) {
		rec = malloc(UINT16_MAX);
		if (!rec)
			return -ENOMEM;
	}

	for (; tail < head; tail += hdr.size) {
		ptsim_ring_read(data, m->data_size, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail) {
			err = -EPROTO;
			break;
		}
		if (hdr.type == PERF_RECORD_LOST && lost) {
			/* { header; u64 id; u64 lost; } */
			uint64_t id_lost[2];

			if (hdr.size < sizeof(hdr) + sizeof(id_lost)) {
				err = -EPROTO;
				break;
			}
			ptsim_ring_read(data, m->data_size, tail + sizeof(hdr),
					id_lost, sizeof(id_lost));
			*lost += id_lost[1];
		}
		if (hdr.type != PERF_RECORD_SAMPLE)
			continue;
		nr++;
		if (!ss)
			continue;

		ss->s = realloc(ss->s, (ss->nr + 1) * sizeof(*ss->s));
		if (!ss->s) {
			perror("realloc");
			exit(1);
		}
		ptsim_ring_read(data, m->data_size, tail, rec, hdr.size);
		err = parse_sample(rec, hdr.size, sample_type, &ss->s[ss->nr]);
		if (err) {
			ptsim_stream_free(&ss->s[ss->nr].aux);
			break;
		}
		ss->nr++;
	}
	__atomic_store_n(&m->pg->data_tail, tail, __ATOMIC_RELEASE);
	free(rec);
	return err ? err : nr;
}

void ptsim_samples_free(struct ptsim_samples *ss)
{
	size_t i;

	for (i = 0; i < ss->nr; i++)
		ptsim_stream_free(&ss->s[i].aux);
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}

/* The executable mappings of this process.  Returns 0 or -errno. */
int ptsim_text_ranges(struct ptsim_ranges *text)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long start, end;
	char *line = NULL, perms[5];
	size_t len = 0;

	memset(text, 0, sizeof(*text));
	if (!f)
		return -errno;
	while (getline(&line, &len, f) > 0) {
		if (sscanf(line, "%llx-%llx %4s", &start, &end, perms) != 3 ||
		    perms[2] != 'x')
			continue;
		text->r = realloc(text->r, (text->nr + 1) * sizeof(*text->r));
		if (!text->r) {
			perror("realloc");
			exit(1);
		}
		text->r[text->nr].start = start;
		text->r[text->nr].end = end;
		text->nr++;
	}
	free(line);
	fclose(f);
	return text->nr ? 0 : -ENOENT;
}

bool ptsim_in_range(const struct ptsim_range *r, uint64_t ip)
{
	return ip >= r->start && ip < r->end;
}

bool ptsim_in_ranges(const struct ptsim_ranges *text, uint64_t ip)
{
	size_t i;

	for (i = 0; i < text->nr; i++)
		if (ptsim_in_range(&text->r[i], ip))
			return true;
	return false;
}

void ptsim_ranges_free(struct ptsim_ranges *text)
{
	free(text->r);
	memset(text, 0, sizeof(*text));
}

/*
 * The value of the line "@key:\t<value>" of /proc/self/fdinfo/@fd, without
 * its newline, into the @len bytes at @val.  Returns 0; -ENOENT if there is
 * no such line; -EPROTO if the key is not followed by a colon and a tab,
 * or the value does not fit; or another -errno.
 */
int ptsim_fdinfo(int fd, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key), n = 0;
	char path[64], *line = NULL;
	int err = -ENOENT;
	ssize_t got;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while ((got = getline(&line, &n, f)) > 0) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		if (line[got - 1] == '\n')
			line[--got] = '\0';
		if (line[klen + 1] != '\t' ||
		    snprintf(val, len, "%s", line + klen + 2) >= (int)len)
			err = -EPROTO;
		else
			err = 0;
		break;
	}
	free(line);
	fclose(f);
	return err;
}

/* A decimal fdinfo value, see ptsim_fdinfo(). */
int ptsim_fdinfo_u64(int fd, const char *key, uint64_t *val)
{
	char buf[32], *end;
	int err = ptsim_fdinfo(fd, key, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (!buf[0] || *end || buf[0] == '-' || errno)
		return -EPROTO;
	return 0;
}

/* kernel.@name, to read. */
static FILE *sysctl_open(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return fopen(path, "r");
}

int ptsim_sysctl_get(const char *name, long *val)
{
	FILE *f = sysctl_open(name);
	int ret;

	if (!f)
		return -errno;
	ret = fscanf(f, "%ld", val) == 1 ? 0 : -EPROTO;
	fclose(f);
	return ret;
}

/* Write @line to the file @dir/@name: 0 or -errno. */
static int write_line(const char *dir, const char *name, const char *line)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fputs(line, f) >= 0 ? 0 : -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int ptsim_sysctl_set(const char *name, long val)
{
	char line[32];

	snprintf(line, sizeof(line), "%ld\n", val);
	return write_line("/proc/sys/kernel", name, line);
}

/* The first line of kernel.@name, without its newline: 0 or -errno. */
int ptsim_sysctl_str_get(const char *name, char *buf, size_t len)
{
	FILE *f = sysctl_open(name);
	int ret;

	if (!f)
		return -errno;
	ret = fgets(buf, len, f) ? 0 : -EPROTO;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ret;
}

int ptsim_sysctl_str_set(const char *name, const char *val)
{
	return write_line("/proc/sys/kernel", name, val);
}

#define PTSIM_DEBUGFS	"/sys/kernel/debug/ptsim"

int ptsim_knob_get(const char *name, bool *on)
{
	char path[128], c;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), PTSIM_DEBUGFS "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ret = fscanf(f, " %c", &c) == 1 ? 0 : -EIO;
	fclose(f);
	*on = c == 'Y';
	return ret;
}

int ptsim_knob_set(const char *name, bool on)
{
	return write_line(PTSIM_DEBUGFS, name, on ? "Y\n" : "N\n");
}

int ptsim_become_user(uid_t uid, rlim_t memlock)
{
	struct rlimit lim = { memlock, memlock };

	if (memlock != PTSIM_KEEP_MEMLOCK && setrlimit(RLIMIT_MEMLOCK, &lim))
		return -errno;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

int ptsim_as_nobody(ptsim_nobody_fn fn, struct perf_event_attr *attr,
		    rlim_t memlock)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (ptsim_become_user(PTSIM_NOBODY, memlock))
			_exit(200);
		_exit(fn(attr));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#if __SIZEOF_POINTER__ == 8
#define elf_hdr		elf64_hdr
#define elf_shdr	elf64_shdr
#define elf_sym		elf64_sym
#else
#define elf_hdr		elf32_hdr
#define elf_shdr	elf32_shdr
#define elf_sym		elf32_sym
#endif

/*
 * The extent of function @name, at @addr, from its size in the symbol table
 * of this program.  Returns 0, or -1 if there is no such symbol.
 */
int ptsim_func_range(const char *name, uintptr_t addr, struct ptsim_range *r)
{
	const struct elf_hdr *eh;
	const struct elf_shdr *sh;
	const struct elf_sym *sym;
	const char *base, *names;
	uint64_t size = 0;
	struct stat st;
	size_t i, j;
	void *map;
	int fd;

	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*eh)) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;

	base = map;
	eh = map;
	sh = (const void *)(base + eh->e_shoff);
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shoff + eh->e_shnum * sizeof(*sh) > (size_t)st.st_size)
		goto out;
	for (i = 0; i < eh->e_shnum && !size; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		sym = (const void *)(base + sh[i].sh_offset);
		names = base + sh[sh[i].sh_link].sh_offset;
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++) {
			if (ELF_ST_TYPE(sym[j].st_info) == STT_FUNC &&
			    !strcmp(names + sym[j].st_name, name)) {
				size = sym[j].st_size;
				break;
			}
		}
	}
out:
	munmap(map, st.st_size);
	if (!size)
		return -1;
	r->start = addr;
	r->end = addr + size;
	return 0;
}

static unsigned long step(unsigned long i, unsigned long acc)
{
	return i % 3 ? acc + i : acc ^ i;
}

void ptsim_work(unsigned long n)
{
	unsigned long i, acc = 0;

	for (i = 0; i < n; i++) {
		acc = step(i, acc);
		asm volatile("" : : "r" (acc) : "memory");
	}
}

/*
 * A round of work with sampler @fd enabled: ptsim_work(@n) once, or before
 * each of @faults first touches of a page.  Its samples of @sample_type go
 * to @ss, and the samples lost are added to @lost.  Returns 0, or a
 * negative errno.
 */
int ptsim_sample_round(int fd, struct ptsim_map *map, uint64_t sample_type,
		       struct ptsim_samples *ss, unsigned int faults,
		       unsigned long n, uint64_t *lost)
{
	long page = sysconf(_SC_PAGESIZE);
	char *mem = NULL;
	unsigned int i;
	int ret;

	if (faults) {
		mem = mmap(NULL, faults * page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			return -errno;
	}
	ret = ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (!ret && !faults)
		ptsim_work(n);
	for (i = 0; !ret && i < faults; i++) {
		ptsim_work(n);
		mem[i * page] = 1;
		asm volatile("" : : "r" (mem) : "memory");
	}
	if (!ret)
		ret = ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ret = ret ? -errno : 0;
	if (mem)
		munmap(mem, faults * page);
	if (!ret)
		ret = ptsim_read_samples(map, sample_type, ss, lost);
	return ret < 0 ? ret : 0;
}

/* CLOCK_MONOTONIC, in seconds. */
double ptsim_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the @n values at @v, which it sorts. */
double ptsim_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}
