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
 *     an AUXTRACE_INFO for its decoder, Intel PT's or CoreSight's;
 *   - a COMM for each thread with trace, named as the process (NT_PRPSINFO);
 *   - an MMAP2 for each file mapping (NT_FILE), executable where the core's
 *     PT_LOAD of it is, and one for the vDSO (NT_AUXV), so that the decoder
 *     reads the code from the program's own files;
 *   - for each thread, in the order of the notes (the thread that dumped
 *     core first): an AUXTRACE with its trace, an AUX record if the trace
 *     had wrapped (truncated: older trace was lost) or is raw ETE, then an
 *     EXIT.  The events
 *     have no time, so the decoder decodes per thread at the thread's EXIT:
 *     each thread's flow comes whole, ending where the thread stopped.
 *
 * (util/trace-stream.c makes the stream and has perf read it.)  Anything in
 * the core that does not add up is an error naming the core: each part of
 * the mapped core is read only once it is known to be all in the file.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/procfs.h>
#include <linux/auxvec.h>
#include <linux/elf.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/string.h>

#include "core-trace.h"
#include "debug.h"
#include "elf-core.h"
#include "event.h"
#include "intel-pt.h"
#include "trace-stream.h"

#ifndef NT_FILE
#define NT_FILE		0x46494c45
#endif
#ifndef NT_PERF_TRACE
#define NT_PERF_TRACE	0x50455246
#endif

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
	struct trace_stream		ts;
	struct elf_core			ec;
	struct core_trace_load		*loads;
	size_t				nr_loads;
	pid_t				pid;
	char				comm[16];
	u64				vdso;
	const char			*nt_file;
	size_t				nt_file_size;
	struct core_trace_thread	*threads;
	size_t				nr_threads;
};

static int core_trace__write_comm(struct core_trace *ct, u32 tid)
{
	struct perf_record_comm *ev = &ct->ts.event->comm;

	memset(ev, 0, sizeof(*ev));
	ev->header.type = PERF_RECORD_COMM;
	ev->pid = ct->pid;
	ev->tid = tid;
	memcpy(ev->comm, ct->comm, sizeof(ev->comm));
	return trace_stream__write_event(&ct->ts, sizeof(*ev), ct->pid, tid, -1);
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

	ct->loads = calloc(ct->ec.nr_phdrs ?: 1, sizeof(*ct->loads));
	if (!ct->loads)
		return trace_stream__err(&ct->ts, "no memory for its program headers");
	for (i = 0; i < ct->ec.nr_phdrs; i++) {
		elf_core__phdr(&ct->ec, i, &phdr);
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
	struct perf_record_mmap2 *ev = &ct->ts.event->mmap2;
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
	return trace_stream__write_event(&ct->ts, offsetof(typeof(*ev), filename) + len + 1,
					 ct->pid, ct->pid, -1);
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
		return trace_stream__err(&ct->ts, "its NT_FILE note is too short");
	nr = core_trace__word(desc, 0);
	pgsize = core_trace__word(desc, 1);
	if (nr > (ct->nt_file_size / word - 2) / 3)
		return trace_stream__err(&ct->ts, "its NT_FILE note is garbled: too many files");

	name = desc + (2 + 3 * nr) * word;
	for (i = 0; i < nr && !err; i++) {
		u64 start = core_trace__word(desc, 2 + 3 * i);
		u64 end = core_trace__word(desc, 3 + 3 * i);
		u64 pgoff = core_trace__word(desc, 4 + 3 * i) * pgsize;
		size_t len = strnlen(name, desc_end - name);

		if (name + len == desc_end || end <= start)
			return trace_stream__err(&ct->ts, "its NT_FILE note is garbled");
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

/* A thread's trace, then its EXIT, at which the decoder decodes it */
static int core_trace__write_thread(struct core_trace *ct, size_t idx)
{
	const struct core_trace_thread *t = &ct->threads[idx];
	union perf_event *ev = ct->ts.event;
	int err;

	err = trace_stream__write_trace(&ct->ts, t->trace, t->note.size, t->note.offset,
					t->note.flags & PERF_CORE_TRACE_WRAPPED, idx,
					ct->pid, t->note.tid, -1);
	if (err)
		return err;

	memset(ev, 0, sizeof(ev->fork));
	ev->fork.header.type = PERF_RECORD_EXIT;
	ev->fork.pid = ct->pid;
	ev->fork.ppid = ct->pid;
	ev->fork.tid = t->note.tid;
	ev->fork.ptid = t->note.tid;
	return trace_stream__write_event(&ct->ts, sizeof(ev->fork), ct->pid, t->note.tid, -1);
}

/* The threads' notes name one PMU and config: that of the process's prctl */
static int core_trace__write_stream(struct core_trace *ct)
{
	const struct perf_core_trace_note *note = &ct->threads[0].note;
	struct trace_stream_pmu pmu = {
		.name	= note->pmu,
		.config	= note->config,
		.kernel	= note->flags & PERF_CORE_TRACE_KERNEL,
		.user	= true,
	};
	size_t i;
	int err;

	err = trace_stream__write_pmu(&ct->ts, &pmu);
	for (i = 0; i < ct->nr_threads && !err; i++)
		err = core_trace__write_comm(ct, ct->threads[i].note.tid);
	err = err ?: core_trace__write_mmaps(ct) ?: core_trace__write_vdso_mmap(ct);
	for (i = 0; i < ct->nr_threads && !err; i++)
		err = core_trace__write_thread(ct, i);
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
		return trace_stream__err(&ct->ts, "an NT_PERF_TRACE note is garbled");
	if (!trace_stream__decodes(t->note.pmu)) {
		pr_err("%s: the trace is from %s: perf decodes only intel_pt, %s and cs_etm trace from cores\n",
		       ct->ts.path, t->note.pmu, PTSIM_PMU_NAME);
		return -EINVAL;
	}
	if (ct->nr_threads && (strcmp(t->note.pmu, ct->threads[0].note.pmu) ||
			       t->note.config != ct->threads[0].note.config ||
			       (t->note.flags ^ ct->threads[0].note.flags) &
			       PERF_CORE_TRACE_KERNEL))
		return trace_stream__err(&ct->ts, "its NT_PERF_TRACE notes name different events");
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

static int core_trace__read_note(void *ctx, const struct elf64_note *nhdr,
				 const char *name, const char *desc)
{
	bool is_core = elf_core__note_is(nhdr, name, "CORE");
	bool is_linux = elf_core__note_is(nhdr, name, "LINUX");
	struct core_trace *ct = ctx;
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

/* A core with trace, a process and its files */
static int core_trace__read(struct core_trace *ct)
{
	int err;

	err = elf_core__read(&ct->ec, ct->ts.map, ct->ts.size) ?:
	      core_trace__read_loads(ct) ?:
	      elf_core__notes(&ct->ec, core_trace__read_note, ct);
	if (err && ct->ec.err)
		return trace_stream__err(&ct->ts, ct->ec.err);
	if (err)
		return err;
	if (!ct->nr_threads)
		return trace_stream__err(&ct->ts,
					 "no hardware trace in this core (PR_SET_CORE_TRACE off)");
	if (!ct->pid)
		return trace_stream__err(&ct->ts, "no process (NT_PRPSINFO note) in this core");
	if (!ct->nt_file)
		return trace_stream__err(&ct->ts, "no file mappings (NT_FILE note) in this core");
	if (ct->threads[0].note.flags & PERF_CORE_TRACE_KERNEL)
		pr_warning("%s: kernel mode was traced too, which perf cannot decode from a core: expect errors there\n",
			   ct->ts.path);
	return 0;
}

bool core_trace__is_core(const char *path)
{
	struct elf64_hdr ehdr;

	/* e_type is at the same offset in 32-bit ELF headers */
	return trace_stream__peek(path, &ehdr, sizeof(ehdr)) &&
	       !memcmp(ehdr.e_ident, ELFMAG, SELFMAG) &&
	       (ehdr.e_ident[EI_DATA] == ELF_CORE_ELFDATA ?
		ehdr.e_type : bswap_16(ehdr.e_type)) == ET_CORE;
}

int core_trace__open(struct perf_data *data)
{
	struct core_trace ct = { .pid = 0, };
	int err;

	err = trace_stream__begin(&ct.ts, data) ?:
	      core_trace__read(&ct) ?:
	      core_trace__write_stream(&ct);
	free(ct.threads);
	free(ct.loads);
	return trace_stream__end(&ct.ts, data, err);
}
