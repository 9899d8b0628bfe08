// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware trace in core dumps: perf script -i core.PID
 *
 * A process that kept hardware trace for its core dump (prctl
 * PR_SET_CORE_TRACE, Documentation/userspace-api/perf_core_trace.rst) dumps
 * core with an NT_PERF_TRACE note per thread: a struct perf_core_trace_note,
 * then the thread's latest trace, oldest byte first.  perf reads such a core
 * as it reads a perf.data file in pipe mode, from a stream that this file
 * makes out of the core:
 *
 *   - the attr of the trace PMU's event (user mode only unless the notes say
 *     kernel mode was traced), the PMU's name in a PMU_MAPPINGS feature and
 *     an AUXTRACE_INFO for the Intel PT decoder;
 *   - a COMM for each thread with trace, named as the process (NT_PRPSINFO);
 *   - an MMAP2 for each file mapping (NT_FILE), executable where the core's
 *     PT_LOAD of it is, and one for the vDSO (NT_AUXV), so that the decoder
 *     reads the code from the program's own files;
 *   - for each thread, in the order of the notes (the thread that dumped
 *     core first): an AUXTRACE with its trace, a truncated AUX record if the
 *     trace had wrapped (older trace was lost), then an EXIT.  The events
 *     have no time, so the decoder decodes per thread at the thread's EXIT:
 *     each thread's flow comes whole, ending where the thread stopped.
 *
 * The stream goes to an anonymous temporary file, read as a pipe.  Anything in the core
 * that does not add up is an error naming the core: the core is mapped, and
 * each part of it is read only once it is known to be all in the file.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/procfs.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/auxvec.h>
#include <linux/bits.h>
#include <linux/elf.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <internal/lib.h>

#include "auxtrace.h"
#include "core-trace.h"
#include "data.h"
#include "debug.h"
#include "event.h"
#include "header.h"
#include "intel-pt.h"

#ifndef NT_FILE
#define NT_FILE		0x46494c45
#endif
#ifndef NT_PERF_TRACE
#define NT_PERF_TRACE	0x50455246
#endif

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define CORE_TRACE_ELFDATA	ELFDATA2LSB
#else
#define CORE_TRACE_ELFDATA	ELFDATA2MSB
#endif

/*
 * The stream's only event id, and the type of its event: a number of this
 * stream alone (its attr and PMU mapping), not that of the PMU on this
 * machine, which may not have one.
 */
#define CORE_TRACE_ID		1
#define CORE_TRACE_PMU_TYPE	PERF_TYPE_MAX

/*
 * The config bits that the decoder looks at are those of IA32_RTIT_CTL
 * (Intel SDM vol. 3C, 33.2.8.2), which intel_pt and ptsim take as config.
 * They are set here, not read from this machine's PMU: a core may be read
 * where the PMU that traced it is not.
 */
#define RTIT_CTL_CYC_EN		BIT_ULL(1)
#define RTIT_CTL_MTC_EN		BIT_ULL(9)
#define RTIT_CTL_TSC_EN		BIT_ULL(10)
#define RTIT_CTL_DIS_RETC	BIT_ULL(11)
#define RTIT_CTL_MTC_FREQ	(0xfULL << 14)

/* A PT_LOAD: where a mapping is, and its protection */
struct core_trace_load {
	u64				vaddr;
	u64				memsz;
	u32				flags;
};

struct core_trace_thread {
	struct perf_core_trace_note	note;
	const void			*trace;
};

struct core_trace {
	const char			*path;
	const char			*map;
	size_t				size;
	const char			*phdrs;
	size_t				nr_phdrs;
	struct core_trace_load		*loads;
	size_t				nr_loads;
	int				out;
	pid_t				pid;
	char				comm[16];
	u64				vdso;
	const char			*nt_file;
	size_t				nt_file_size;
	struct core_trace_thread	*threads;
	size_t				nr_threads;
	union perf_event		*event;
};

/*
 * The id sample of every event that is not a user event: TID, TIME and
 * IDENTIFIER.  The time is 0, which perf takes as none: errors show 0.
 */
struct core_trace_id {
	u32	pid;
	u32	tid;
	u64	time;
	u64	id;
};

static int core_trace__err(struct core_trace *ct, const char *what)
{
	pr_err("%s: %s\n", ct->path, what);
	return -EINVAL;
}

/* An error of a system call on the core, or on the stream made of it */
static int core_trace__errno(struct core_trace *ct, const char *what)
{
	char sbuf[STRERR_BUFSIZE];
	int err = errno;

	pr_err("%s: %s: %s\n", ct->path, what, str_error_r(err, sbuf, sizeof(sbuf)));
	return -err;
}

static int core_trace__write(struct core_trace *ct, const void *buf, size_t size)
{
	if (writen(ct->out, buf, size) != (ssize_t)size)
		return core_trace__errno(ct, "cannot write the stream read from it");
	return 0;
}

/* Write ct->event, @size bytes of it, then its id sample for thread @tid */
static int core_trace__write_event(struct core_trace *ct, size_t size, u32 tid)
{
	struct core_trace_id id = {
		.pid	= ct->pid,
		.tid	= tid,
		.id	= CORE_TRACE_ID,
	};

	size = PERF_ALIGN(size, sizeof(u64));
	ct->event->header.size = size + sizeof(id);
	return core_trace__write(ct, ct->event, size) ?:
	       core_trace__write(ct, &id, sizeof(id));
}

/* The threads' notes name one PMU and config: that of the process's prctl */
static int core_trace__write_attr(struct core_trace *ct)
{
	const struct perf_core_trace_note *note = &ct->threads[0].note;
	struct perf_record_header_attr *ev = &ct->event->attr;
	struct perf_event_attr *attr = &ev->attr;

	memset(ev, 0, sizeof(*ev) + sizeof(u64));
	ev->header.type = PERF_RECORD_HEADER_ATTR;
	ev->header.size = sizeof(*ev) + sizeof(u64);
	attr->size = sizeof(*attr);
	attr->type = CORE_TRACE_PMU_TYPE;
	attr->config = note->config;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_IDENTIFIER;
	attr->sample_id_all = 1;
	attr->exclude_kernel = !(note->flags & PERF_CORE_TRACE_KERNEL);
	attr->exclude_hv = 1;
	ev->id[0] = CORE_TRACE_ID;
	return core_trace__write(ct, ev, ev->header.size);
}

/* HEADER_PMU_MAPPINGS: one PMU, its type and name (as do_write_string()) */
static int core_trace__write_pmu_mapping(struct core_trace *ct)
{
	const char *name = ct->threads[0].note.pmu;
	struct perf_record_header_feature *ev = &ct->event->feat;
	u32 len = PERF_ALIGN(strlen(name) + 1, 64);
	u32 *data = (u32 *)ev->data;
	size_t size = sizeof(*ev) + 3 * sizeof(u32) + len;

	memset(ev, 0, PERF_ALIGN(size, sizeof(u64)));
	ev->header.type = PERF_RECORD_HEADER_FEATURE;
	ev->header.size = PERF_ALIGN(size, sizeof(u64));
	ev->feat_id = HEADER_PMU_MAPPINGS;
	data[0] = 1;
	data[1] = CORE_TRACE_PMU_TYPE;
	data[2] = len;
	strcpy((char *)&data[3], name);
	return core_trace__write(ct, ev, ev->header.size);
}

/*
 * What perf record's intel_pt_info_fill() gives, for a trace without time:
 * per-thread, snapshot mode, no TSC conversion, no address filter and no
 * event trace (the word after the filter).
 */
static int core_trace__write_auxtrace_info(struct core_trace *ct)
{
	struct perf_record_auxtrace_info *ev = &ct->event->auxtrace_info;
	size_t size = sizeof(*ev) + (INTEL_PT_AUXTRACE_PRIV_MAX + 1) * sizeof(u64);

	memset(ev, 0, size);
	ev->header.type = PERF_RECORD_AUXTRACE_INFO;
	ev->header.size = size;
	ev->type = PERF_AUXTRACE_INTEL_PT;
	ev->priv[INTEL_PT_PMU_TYPE] = CORE_TRACE_PMU_TYPE;
	ev->priv[INTEL_PT_TSC_BIT] = RTIT_CTL_TSC_EN;
	ev->priv[INTEL_PT_NORETCOMP_BIT] = RTIT_CTL_DIS_RETC;
	ev->priv[INTEL_PT_SNAPSHOT_MODE] = 1;
	ev->priv[INTEL_PT_MTC_BIT] = RTIT_CTL_MTC_EN;
	ev->priv[INTEL_PT_MTC_FREQ_BITS] = RTIT_CTL_MTC_FREQ;
	ev->priv[INTEL_PT_CYC_BIT] = RTIT_CTL_CYC_EN;
	return core_trace__write(ct, ev, size);
}

static int core_trace__write_comm(struct core_trace *ct, u32 tid)
{
	struct perf_record_comm *ev = &ct->event->comm;

	memset(ev, 0, sizeof(*ev));
	ev->header.type = PERF_RECORD_COMM;
	ev->pid = ct->pid;
	ev->tid = tid;
	memcpy(ev->comm, ct->comm, sizeof(ev->comm));
	return core_trace__write_event(ct, sizeof(*ev), tid);
}

static int core_trace__cmp_load(const void *a, const void *b)
{
	const struct core_trace_load *la = a, *lb = b;

	return la->vaddr < lb->vaddr ? -1 : la->vaddr > lb->vaddr;
}

/*
 * The PT_LOADs, sorted by address: a core may have tens of thousands of
 * mappings, each with one.
 */
static int core_trace__read_loads(struct core_trace *ct)
{
	struct elf64_phdr phdr;
	size_t i;

	ct->loads = calloc(ct->nr_phdrs ?: 1, sizeof(*ct->loads));
	if (!ct->loads)
		return core_trace__err(ct, "no memory for its program headers");
	for (i = 0; i < ct->nr_phdrs; i++) {
		memcpy(&phdr, ct->phdrs + i * sizeof(phdr), sizeof(phdr));
		if (phdr.p_type != PT_LOAD)
			continue;
		ct->loads[ct->nr_loads].vaddr = phdr.p_vaddr;
		ct->loads[ct->nr_loads].memsz = phdr.p_memsz;
		ct->loads[ct->nr_loads++].flags = phdr.p_flags;
	}
	qsort(ct->loads, ct->nr_loads, sizeof(*ct->loads), core_trace__cmp_load);
	return 0;
}

/* The core's PT_LOAD at @vaddr, or NULL */
static const struct core_trace_load *
core_trace__find_load(struct core_trace *ct, u64 vaddr)
{
	struct core_trace_load key = { .vaddr = vaddr, };

	return bsearch(&key, ct->loads, ct->nr_loads, sizeof(key), core_trace__cmp_load);
}

static int core_trace__write_mmap(struct core_trace *ct, u64 start, u64 end,
				  u64 pgoff, const char *filename)
{
	struct perf_record_mmap2 *ev = &ct->event->mmap2;
	const struct core_trace_load *load = core_trace__find_load(ct, start);
	size_t len = strnlen(filename, PATH_MAX - 1);

	memset(ev, 0, sizeof(*ev));
	ev->header.type = PERF_RECORD_MMAP2;
	ev->header.misc = PERF_RECORD_MISC_USER;
	ev->pid = ct->pid;
	ev->tid = ct->pid;
	ev->start = start;
	ev->len = end - start;
	ev->pgoff = pgoff;
	ev->flags = MAP_PRIVATE;
	if (load) {
		ev->prot = (load->flags & PF_R ? PROT_READ : 0) |
			   (load->flags & PF_W ? PROT_WRITE : 0) |
			   (load->flags & PF_X ? PROT_EXEC : 0);
	}
	memcpy(ev->filename, filename, len);
	return core_trace__write_event(ct, offsetof(typeof(*ev), filename) + len + 1,
				       ct->pid);
}

static u64 core_trace__word(const char *desc, size_t i)
{
	unsigned long word;

	memcpy(&word, desc + i * sizeof(word), sizeof(word));
	return word;
}

/*
 * NT_FILE: count, page size, then count (start, end, file offset in pages)
 * and count file names, each ending in a NUL, all within the note.
 */
static int core_trace__write_mmaps(struct core_trace *ct)
{
	const char *desc = ct->nt_file, *name, *desc_end = desc + ct->nt_file_size;
	const size_t word = sizeof(unsigned long);
	u64 nr, pgsize, i;
	int err = 0;

	if (ct->nt_file_size < 2 * word)
		return core_trace__err(ct, "its NT_FILE note is too short");
	nr = core_trace__word(desc, 0);
	pgsize = core_trace__word(desc, 1);
	if (nr > (ct->nt_file_size / word - 2) / 3)
		return core_trace__err(ct, "its NT_FILE note is garbled: too many files");

	name = desc + (2 + 3 * nr) * word;
	for (i = 0; i < nr && !err; i++) {
		u64 start = core_trace__word(desc, 2 + 3 * i);
		u64 end = core_trace__word(desc, 3 + 3 * i);
		u64 pgoff = core_trace__word(desc, 4 + 3 * i) * pgsize;
		size_t len = strnlen(name, desc_end - name);

		if (name + len == desc_end || end <= start)
			return core_trace__err(ct, "its NT_FILE note is garbled");
		err = core_trace__write_mmap(ct, start, end, pgoff, name);
		name += len + 1;
	}
	return err;
}

/* The vDSO, which perf finds as its own: the same kernel has the same one */
static int core_trace__write_vdso_mmap(struct core_trace *ct)
{
	const struct core_trace_load *load;

	load = ct->vdso ? core_trace__find_load(ct, ct->vdso) : NULL;
	if (!load)
		return 0;
	return core_trace__write_mmap(ct, load->vaddr, load->vaddr + load->memsz,
				      0, "[vdso]");
}

/*
 * A thread's trace: its AUXTRACE (the data after it, padded to 8 bytes with
 * Intel PT PAD packets), a truncated AUX record if older trace was lost to
 * the buffer wrapping, and its EXIT, at which the decoder decodes it.
 */
static int core_trace__write_thread(struct core_trace *ct, size_t idx)
{
	static const char pad[sizeof(u64)];
	const struct core_trace_thread *t = &ct->threads[idx];
	union perf_event *ev = ct->event;
	u64 size = PERF_ALIGN(t->note.size, sizeof(u64));
	int err;

	memset(ev, 0, sizeof(ev->auxtrace));
	ev->auxtrace.header.type = PERF_RECORD_AUXTRACE;
	ev->auxtrace.header.size = sizeof(ev->auxtrace);
	ev->auxtrace.size = size;
	ev->auxtrace.offset = t->note.offset;
	ev->auxtrace.idx = idx;
	ev->auxtrace.tid = t->note.tid;
	ev->auxtrace.cpu = -1;
	err = core_trace__write(ct, ev, sizeof(ev->auxtrace)) ?:
	      core_trace__write(ct, t->trace, t->note.size) ?:
	      core_trace__write(ct, pad, size - t->note.size);
	if (err)
		return err;

	if (t->note.flags & PERF_CORE_TRACE_WRAPPED) {
		memset(ev, 0, sizeof(ev->aux));
		ev->aux.header.type = PERF_RECORD_AUX;
		ev->aux.aux_offset = t->note.offset;
		ev->aux.aux_size = t->note.size;
		ev->aux.flags = PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_OVERWRITE;
		err = core_trace__write_event(ct, sizeof(ev->aux), t->note.tid);
		if (err)
			return err;
	}

	memset(ev, 0, sizeof(ev->fork));
	ev->fork.header.type = PERF_RECORD_EXIT;
	ev->fork.pid = ct->pid;
	ev->fork.ppid = ct->pid;
	ev->fork.tid = t->note.tid;
	ev->fork.ptid = t->note.tid;
	return core_trace__write_event(ct, sizeof(ev->fork), t->note.tid);
}

static int core_trace__write_stream(struct core_trace *ct)
{
	size_t i;
	int err;

	ct->event = zalloc(sizeof(*ct->event));
	if (!ct->event)
		return core_trace__err(ct, "no memory to make a stream of it");

	err = perf_header__write_pipe(ct->out) ?:
	      core_trace__write_attr(ct) ?:
	      core_trace__write_pmu_mapping(ct) ?:
	      core_trace__write_auxtrace_info(ct);
	for (i = 0; i < ct->nr_threads && !err; i++)
		err = core_trace__write_comm(ct, ct->threads[i].note.tid);
	err = err ?: core_trace__write_mmaps(ct) ?: core_trace__write_vdso_mmap(ct);
	for (i = 0; i < ct->nr_threads && !err; i++)
		err = core_trace__write_thread(ct, i);

	zfree(&ct->event);
	return err;
}

/*
 * An NT_PERF_TRACE note: a header of hdr_size bytes (this perf knows the
 * fields of the first version; later ones may be longer), then the trace.
 * Every thread's names the PMU and config of the first.
 */
static int core_trace__add_thread(struct core_trace *ct, const char *desc, size_t size)
{
	struct core_trace_thread *t;

	t = realloc(ct->threads, (ct->nr_threads + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	ct->threads = t;
	t += ct->nr_threads;

	memset(&t->note, 0, sizeof(t->note));
	memcpy(&t->note, desc, min(size, sizeof(t->note)));
	if (size < sizeof(t->note) || t->note.hdr_size < sizeof(t->note) ||
	    t->note.hdr_size > size || t->note.size > size - t->note.hdr_size ||
	    !memchr(t->note.pmu, '\0', sizeof(t->note.pmu)))
		return core_trace__err(ct, "an NT_PERF_TRACE note is garbled");
	if (strcmp(t->note.pmu, "intel_pt") && strcmp(t->note.pmu, PTSIM_PMU_NAME)) {
		pr_err("%s: the trace is from %s: perf decodes only intel_pt and %s trace from cores\n",
		       ct->path, t->note.pmu, PTSIM_PMU_NAME);
		return -EINVAL;
	}
	if (ct->nr_threads && (strcmp(t->note.pmu, ct->threads[0].note.pmu) ||
			       t->note.config != ct->threads[0].note.config ||
			       (t->note.flags ^ ct->threads[0].note.flags) &
			       PERF_CORE_TRACE_KERNEL))
		return core_trace__err(ct, "its NT_PERF_TRACE notes name different events");
	t->trace = desc + t->note.hdr_size;
	ct->nr_threads++;
	return 0;
}

static int core_trace__read_auxv(struct core_trace *ct, const char *desc, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size / sizeof(unsigned long); i += 2) {
		if (core_trace__word(desc, i) == AT_SYSINFO_EHDR)
			ct->vdso = core_trace__word(desc, i + 1);
	}
	return 0;
}

static int core_trace__read_note(struct core_trace *ct, const struct elf64_note *nhdr,
				 const char *name, const char *desc)
{
	bool is_core = nhdr->n_namesz == sizeof("CORE") &&
		       !memcmp(name, "CORE", sizeof("CORE"));
	bool is_linux = nhdr->n_namesz == sizeof("LINUX") &&
			!memcmp(name, "LINUX", sizeof("LINUX"));
	prpsinfo_t psinfo;

	switch (nhdr->n_type) {
	case NT_PRPSINFO:
		if (!is_core || nhdr->n_descsz < sizeof(psinfo))
			return 0;
		memcpy(&psinfo, desc, sizeof(psinfo));
		ct->pid = psinfo.pr_pid;
		memcpy(ct->comm, psinfo.pr_fname, sizeof(ct->comm) - 1);
		return 0;
	case NT_FILE:
		if (!is_core)
			return 0;
		ct->nt_file = desc;
		ct->nt_file_size = nhdr->n_descsz;
		return 0;
	case NT_AUXV:
		if (!is_core)
			return 0;
		return core_trace__read_auxv(ct, desc, nhdr->n_descsz);
	case NT_PERF_TRACE:
		if (!is_linux)
			return 0;
		return core_trace__add_thread(ct, desc, nhdr->n_descsz);
	default:
		return 0;
	}
}

/* @size bytes at @offset of the core, or NULL if they are not all in it */
static const char *core_trace__at(struct core_trace *ct, u64 offset, u64 size)
{
	if (offset > ct->size || size > ct->size - offset)
		return NULL;
	return ct->map + offset;
}

/*
 * The notes of a PT_NOTE segment: each a header, then its name and its
 * descriptor, each padded to 4 bytes, all within the segment.
 */
static int core_trace__read_notes(struct core_trace *ct, const struct elf64_phdr *phdr)
{
	const char *notes = core_trace__at(ct, phdr->p_offset, phdr->p_filesz);
	u64 offset, name, desc, next;
	struct elf64_note nhdr;
	int err = 0;

	if (!notes)
		return core_trace__err(ct, "its notes are not all in the file: truncated?");

	for (offset = 0; !err && offset < phdr->p_filesz; offset = next) {
		if (phdr->p_filesz - offset < sizeof(nhdr))
			return core_trace__err(ct, "its notes are garbled");
		memcpy(&nhdr, notes + offset, sizeof(nhdr));
		name = offset + sizeof(nhdr);
		desc = name + PERF_ALIGN((u64)nhdr.n_namesz, 4);
		next = desc + PERF_ALIGN((u64)nhdr.n_descsz, 4);
		if (next > phdr->p_filesz)
			return core_trace__err(ct, "its notes are garbled");
		err = core_trace__read_note(ct, &nhdr, notes + name, notes + desc);
	}
	return err;
}

/*
 * The program headers, e_phnum of them, unless there are PN_XNUM or more:
 * then e_phnum is PN_XNUM and the first section header's sh_info has the
 * number (ELF gABI).
 */
static int core_trace__read_phdrs(struct core_trace *ct, const struct elf64_hdr *ehdr)
{
	struct elf64_shdr shdr;
	const char *p;

	ct->nr_phdrs = ehdr->e_phnum;
	if (ct->nr_phdrs == PN_XNUM) {
		p = core_trace__at(ct, ehdr->e_shoff, sizeof(shdr));
		if (!p)
			return core_trace__err(ct, "its section headers are not in the file");
		memcpy(&shdr, p, sizeof(shdr));
		ct->nr_phdrs = shdr.sh_info;
	}
	if (ehdr->e_phentsize != sizeof(struct elf64_phdr))
		return core_trace__err(ct, "its program headers are garbled");
	ct->phdrs = core_trace__at(ct, ehdr->e_phoff, ct->nr_phdrs * sizeof(struct elf64_phdr));
	if (!ct->phdrs)
		return core_trace__err(ct, "its program headers are not all in the file");
	return 0;
}

/* 64-bit cores of perf's byte order, with trace, a process and its files */
static int core_trace__read(struct core_trace *ct)
{
	struct elf64_hdr ehdr;
	struct elf64_phdr phdr;
	size_t i;
	int err;

	if (ct->size < sizeof(ehdr))
		return core_trace__err(ct, "not an ELF core file");
	memcpy(&ehdr, ct->map, sizeof(ehdr));
	if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 || sizeof(long) != 8 ||
	    ehdr.e_ident[EI_DATA] != CORE_TRACE_ELFDATA)
		return core_trace__err(ct,
				       "perf reads trace from 64-bit cores of its byte order only");

	err = core_trace__read_phdrs(ct, &ehdr) ?: core_trace__read_loads(ct);
	for (i = 0; !err && i < ct->nr_phdrs; i++) {
		memcpy(&phdr, ct->phdrs + i * sizeof(phdr), sizeof(phdr));
		if (phdr.p_type == PT_NOTE)
			err = core_trace__read_notes(ct, &phdr);
	}
	if (err)
		return err;
	if (!ct->nr_threads)
		return core_trace__err(ct,
				       "no hardware trace in this core (PR_SET_CORE_TRACE off)");
	if (!ct->pid)
		return core_trace__err(ct, "no process (NT_PRPSINFO note) in this core");
	if (!ct->nt_file)
		return core_trace__err(ct, "no file mappings (NT_FILE note) in this core");
	if (ct->threads[0].note.flags & PERF_CORE_TRACE_KERNEL)
		pr_warning("%s: kernel mode was traced too, which perf cannot decode from a core: expect errors there\n",
			   ct->path);
	return 0;
}

bool core_trace__is_core(const char *path)
{
	struct elf64_hdr ehdr;
	struct stat st;
	bool is_core;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	/* e_type is at the same offset in 32-bit ELF headers */
	is_core = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		  readn(fd, &ehdr, sizeof(ehdr)) == sizeof(ehdr) &&
		  !memcmp(ehdr.e_ident, ELFMAG, SELFMAG) &&
		  (ehdr.e_ident[EI_DATA] == CORE_TRACE_ELFDATA ?
		   ehdr.e_type : bswap_16(ehdr.e_type)) == ET_CORE;
	close(fd);
	return is_core;
}

/* An anonymous file for the stream, gone once closed */
static int core_trace__stream_file(void)
{
	FILE *f = tmpfile();
	int fd;

	if (!f)
		return -1;
	fd = dup(fileno(f));
	fclose(f);
	return fd;
}

/* Map the core, as perf.data files are opened: owned by the user or root */
static int core_trace__map(struct core_trace *ct, int fd, bool force)
{
	struct stat st;

	if (fstat(fd, &st))
		return core_trace__errno(ct, "cannot stat it");
	if (!force && st.st_uid && st.st_uid != geteuid())
		return core_trace__err(ct,
				       "not owned by current user or root (use -f to override)");
	ct->size = st.st_size;
	ct->map = mmap(NULL, ct->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (ct->map == MAP_FAILED) {
		ct->map = NULL;
		return core_trace__errno(ct, "cannot map it");
	}
	return 0;
}

int core_trace__open(struct perf_data *data)
{
	struct core_trace ct = { .path = data->path, .out = -1, };
	int fd, err;

	fd = open(ct.path, O_RDONLY);
	if (fd < 0)
		return core_trace__errno(&ct, "cannot open it");
	err = core_trace__map(&ct, fd, data->force);
	close(fd);
	if (err)
		return err;

	ct.out = core_trace__stream_file();
	if (ct.out < 0)
		err = core_trace__errno(&ct, "cannot make a stream of it");
	else
		err = core_trace__read(&ct) ?: core_trace__write_stream(&ct);
	if (!err && lseek(ct.out, 0, SEEK_SET))
		err = core_trace__errno(&ct, "cannot read the stream made of it");
	munmap((void *)ct.map, ct.size);
	free(ct.threads);
	free(ct.loads);
	if (err) {
		if (ct.out >= 0)
			close(ct.out);
		return err;
	}
	data->is_pipe = true;
	data->is_core = true;
	data->use_stdio = false;
	data->file.fd = ct.out;
	return 0;
}
