// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware trace recorder's copies: perf script -i FILE
 *
 * The kernel's hardware trace recorder (Documentation/admin-guide/perf/
 * hwtrace.rst) gives each CPU's latest trace as a struct perf_hwtrace_header
 * then the trace, oldest byte first: live in tracefs (hwtrace/per_cpu/cpuN/
 * trace), and from a vmcore after a crash.  perf reads a file of one or
 * more such copies (several CPUs' files put end to end) as it reads a
 * perf.data file in pipe mode, from a stream (util/trace-stream.c) that
 * this file makes of it:
 *
 *   - the attr of the recorder's event (its PMU, config and modes), the
 *     PMU's name and an AUXTRACE_INFO for the Intel PT decoder, per CPU;
 *   - the kernel's map: an MMAP2 of [kernel.kallsyms] from the copies'
 *     _stext, with the kernel's build ID, its pgoff the run-time address
 *     of _stext, from which perf relocates vmlinux by the kernel's KASLR
 *     offset;
 *   - the kernel's text as it ran, in TEXT_POKE events: from a crash dump,
 *     or for copies of an earlier boot of the running kernel (after a
 *     reboot), from /proc/kcore;
 *   - for each copy, an AUXTRACE of its CPU's trace, and a truncated AUX
 *     record if older trace was lost.
 *
 * The events have no time: the decoder decodes each CPU's trace whole, at
 * the end.  Nothing says which tasks ran, so user-mode trace does not
 * decode.  Anything that does not add up is an error naming the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/zalloc.h>

#include "build-id.h"
#include "data.h"
#include "debug.h"
#include "elf-core.h"
#include "event.h"
#include "hwtrace.h"
#include "intel-pt.h"
#include "trace-stream.h"

#define HWTRACE_KERNEL_MAP	"[kernel.kallsyms]_stext"

struct hwtrace {
	struct trace_stream		*ts;
	const struct elf_core		*dump;	/* a crash dump's, or NULL */
	const char			*copies; /* end to end */
	size_t				size;
	struct perf_hwtrace_header	hdr;	/* the first copy's */
};

/* The copy at @pos of the file, its header in @hdr; its length, or < 0 */
static long hwtrace__copy(struct hwtrace *ht, size_t pos, struct perf_hwtrace_header *hdr)
{
	size_t left = ht->size - pos;

	memset(hdr, 0, sizeof(*hdr));
	memcpy(hdr, ht->copies + pos, min(left, sizeof(*hdr)));
	if (left < sizeof(*hdr) || hdr->magic != PERF_HWTRACE_MAGIC)
		return trace_stream__err(ht->ts,
					 "garbled: not a hardware trace recorder's copy where one should start");
	if (hdr->version < 1 || hdr->hdr_size < sizeof(*hdr) || hdr->hdr_size > left ||
	    hdr->size > left - hdr->hdr_size || hdr->build_id_size > sizeof(hdr->build_id) ||
	    !memchr(hdr->pmu, '\0', sizeof(hdr->pmu)))
		return trace_stream__err(ht->ts,
					 "a copy's header is garbled, or the file is cut short");
	return hdr->hdr_size + hdr->size;
}

/* Every copy is of the same recorder: its PMU, config, modes and kernel */
static int hwtrace__check(struct hwtrace *ht, const struct perf_hwtrace_header *hdr)
{
	const u64 modes = PERF_HWTRACE_KERNEL | PERF_HWTRACE_USER;
	const struct perf_hwtrace_header *first = &ht->hdr;

	if (strcmp(hdr->pmu, "intel_pt") && strcmp(hdr->pmu, PTSIM_PMU_NAME)) {
		pr_err("%s: the trace is from %s: perf decodes only intel_pt and %s trace from the hardware trace recorder\n",
		       ht->ts->path, hdr->pmu, PTSIM_PMU_NAME);
		return -EINVAL;
	}
	if (hdr != first &&
	    (strcmp(hdr->pmu, first->pmu) || hdr->config != first->config ||
	     (hdr->flags ^ first->flags) & modes || hdr->kernel_text != first->kernel_text ||
	     hdr->build_id_size != first->build_id_size ||
	     memcmp(hdr->build_id, first->build_id, hdr->build_id_size)))
		return trace_stream__err(ht->ts,
					 "its copies are of different recorders or kernels");
	return 0;
}

/*
 * The kernel from its _stext up, with its build ID: perf finds its vmlinux
 * by that, and relocates its symbols to where _stext was.
 */
static int hwtrace__write_kernel_map(struct hwtrace *ht)
{
	struct perf_record_mmap2 *ev = &ht->ts->event->mmap2;
	const struct perf_hwtrace_header *hdr = &ht->hdr;

	memset(ev, 0, sizeof(*ev));
	ev->header.type = PERF_RECORD_MMAP2;
	ev->header.misc = PERF_RECORD_MISC_KERNEL;
	ev->pid = -1;
	ev->start = hdr->kernel_text;
	ev->len = ~0ULL - hdr->kernel_text;
	ev->pgoff = hdr->kernel_text;
	ev->prot = PROT_READ | PROT_EXEC;
	if (hdr->build_id_size) {
		ev->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		ev->build_id_size = hdr->build_id_size;
		memcpy(ev->build_id, hdr->build_id, hdr->build_id_size);
	}
	strcpy(ev->filename, HWTRACE_KERNEL_MAP);
	return trace_stream__write_event(ht->ts, offsetof(typeof(*ev), filename) +
					 sizeof(HWTRACE_KERNEL_MAP), -1, 0, -1);
}

/*
 * A kernel's crash dump (a vmcore: /proc/vmcore in the kdump kernel, or a
 * copy of it) is an ELF core with a VMCOREINFO note, whose line
 *
 *	HWTRACE=<table>,<nr>
 *
 * (hex, decimal) says where the crashed kernel's recorder kept its copies:
 * @table is the physical address of @nr 64-bit physical addresses, CPU by
 * CPU, of each CPU's copy, or 0.  The dump's PT_LOADs hold the crashed
 * kernel's memory at their p_paddr.
 */
#define HWTRACE_VMCOREINFO	"HWTRACE="

/*
 * The crashed kernel's memory at @addr, physical (@phys) or virtual, and in
 * @left how much of it the dump's segment has from there; or NULL
 */
static const char *hwtrace__mem(const struct elf_core *ec, u64 addr, bool phys, u64 *left)
{
	struct elf64_phdr phdr;
	const char *seg;
	u64 start;
	size_t i;

	for (i = 0; i < ec->nr_phdrs; i++) {
		elf_core__phdr(ec, i, &phdr);
		start = phys ? phdr.p_paddr : phdr.p_vaddr;
		if (phdr.p_type != PT_LOAD || addr < start || addr - start >= phdr.p_filesz)
			continue;
		seg = elf_core__at(ec, phdr.p_offset, phdr.p_filesz);
		if (!seg)
			continue;
		*left = phdr.p_filesz - (addr - start);
		return seg + (addr - start);
	}
	return NULL;
}

/* @size bytes at physical address @pa of the crashed kernel, or NULL */
static const char *hwtrace__phys(const struct elf_core *ec, u64 pa, u64 size)
{
	const char *mem;
	u64 left;

	mem = hwtrace__mem(ec, pa, true, &left);
	return mem && size <= left ? mem : NULL;
}

static int hwtrace__find_vmcoreinfo(void *ctx, const struct elf64_note *nhdr,
				    const char *name, const char *desc)
{
	char **info = ctx;

	if (!elf_core__note_is(nhdr, name, "VMCOREINFO"))
		return 0;
	*info = strndup(desc, nhdr->n_descsz);
	return *info ? 1 : -ENOMEM;
}

/* The crash dump's VMCOREINFO in @info, NUL-terminated, or NULL if none */
static void hwtrace__vmcoreinfo(struct elf_core *ec, const char *map, size_t size,
				char **info)
{
	*info = NULL;
	if (!elf_core__read(ec, map, size))
		elf_core__notes(ec, hwtrace__find_vmcoreinfo, info);
}

/* Append the copy at physical address @pa, of CPU @cpu, to ht->copies */
static int hwtrace__gather_copy(struct hwtrace *ht, const struct elf_core *ec, u64 pa,
				u32 cpu)
{
	struct perf_hwtrace_header hdr;
	const char *copy;
	u64 len = 0;
	char *copies;

	copy = hwtrace__phys(ec, pa, sizeof(hdr));
	if (copy) {
		memcpy(&hdr, copy, sizeof(hdr));
		len = hdr.size > SIZE_MAX - hdr.hdr_size ? 0 : hdr.hdr_size + hdr.size;
		copy = hwtrace__phys(ec, pa, len);
	}
	if (!copy || !len || hdr.magic != PERF_HWTRACE_MAGIC || hdr.cpu != cpu) {
		pr_err("%s: CPU %u's copy of the hardware trace recorder is garbled or not in the dump\n",
		       ht->ts->path, cpu);
		return -EINVAL;
	}
	copies = realloc((char *)ht->copies, ht->size + len);
	if (!copies)
		return trace_stream__err(ht->ts, "no memory for the recorder's copies");
	memcpy(copies + ht->size, copy, len);
	ht->copies = copies;
	ht->size += len;
	return 0;
}

/*
 * The kernel patches its text as it runs (alternatives, static keys,
 * ftrace's call sites), and vmlinux has it as built: the decoder would walk
 * code that never ran.  So a crash dump's stream gives the text as the
 * crashed kernel had it, from _stext to the end of the dump's segment of
 * it, in TEXT_POKE events, which perf applies to what it reads of vmlinux
 * as it does those of perf record --kcore.
 */
#define HWTRACE_TEXT_CHUNK	32768

/* The kernel's text at @text was @bytes, @len of them */
static int hwtrace__poke_text(struct hwtrace *ht, u64 text, const char *bytes, u64 len)
{
	struct perf_record_text_poke_event *ev = &ht->ts->event->text_poke;
	u64 off, n;
	int err = 0;

	for (off = 0; !err && off < len; off += n) {
		n = min(len - off, (u64)HWTRACE_TEXT_CHUNK);
		memset(ev, 0, sizeof(*ev));
		ev->header.type = PERF_RECORD_TEXT_POKE;
		ev->header.misc = PERF_RECORD_MISC_KERNEL;
		ev->addr = text + off;
		ev->new_len = n;
		memcpy(ev->bytes, bytes + off, n);
		err = trace_stream__write_event(ht->ts, offsetof(typeof(*ev), bytes) + n,
						-1, -1, -1);
	}
	return err;
}

/*
 * @len bytes of the running kernel's memory at @addr, from /proc/kcore
 * (freed by the caller); NULL if it cannot have them
 */
static char *hwtrace__kcore(u64 addr, u64 len)
{
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	char *bytes = NULL;
	int fd, i;

	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0)
		return NULL;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		eh.e_phnum = 0;
	for (i = 0; i < eh.e_phnum && !bytes; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    len > ph.p_filesz || addr - ph.p_vaddr > ph.p_filesz - len)
			continue;
		bytes = malloc(len);
		if (bytes && pread(fd, bytes, len, ph.p_offset + addr - ph.p_vaddr) != (ssize_t)len)
			zfree(&bytes);
	}
	close(fd);
	return bytes;
}

/*
 * Copies of an earlier boot of the running kernel (hwtrace/previous/,
 * after a reboot: the same build ID, another _stext) ran the code that
 * this boot runs, moved by KASLR, patched at run time alike: the stream
 * gives it, from /proc/kcore where this boot has it, at the copies'
 * addresses, as a crash dump's is given.
 */
static int hwtrace__write_moved_text(struct hwtrace *ht)
{
	const struct perf_hwtrace_header *hdr = &ht->hdr;
	char running[SBUILD_ID_SIZE], theirs[SBUILD_ID_SIZE];
	struct build_id bid;
	u64 stext, etext;
	char *bytes;
	int err;

	build_id__init(&bid, hdr->build_id, hdr->build_id_size);
	build_id__sprintf(&bid, theirs);
	if (kallsyms__get_function_start("/proc/kallsyms", "_stext", &stext) ||
	    kallsyms__get_function_start("/proc/kallsyms", "_etext", &etext) ||
	    stext == hdr->kernel_text || etext <= stext ||
	    sysfs__sprintf_build_id("", running) < 0 || strcmp(running, theirs))
		return 0;
	bytes = hwtrace__kcore(stext, etext - stext);
	if (!bytes) {
		pr_warning("%s: the text of the kernel that ran it is not in /proc/kcore: the decoder reads it as built, in vmlinux\n",
			   ht->ts->path);
		return 0;
	}
	err = hwtrace__poke_text(ht, hdr->kernel_text, bytes, etext - stext);
	free(bytes);
	return err;
}

/* The kernel's text as it ran: from the crash dump, or moved from this boot */
static int hwtrace__write_text(struct hwtrace *ht)
{
	const char *bytes;
	u64 len;

	if (!ht->dump)
		return hwtrace__write_moved_text(ht);
	bytes = hwtrace__mem(ht->dump, ht->hdr.kernel_text, false, &len);
	if (!bytes) {
		pr_warning("%s: the kernel's text is not in the dump: the decoder reads it as built, in vmlinux\n",
			   ht->ts->path);
		return 0;
	}
	return hwtrace__poke_text(ht, ht->hdr.kernel_text, bytes, len);
}

static int hwtrace__write_stream(struct hwtrace *ht)
{
	struct perf_hwtrace_header hdr;
	struct trace_stream_pmu pmu;
	size_t pos;
	long len;
	u32 idx;
	int err;

	len = hwtrace__copy(ht, 0, &ht->hdr);
	if (len < 0)
		return len;
	err = hwtrace__check(ht, &ht->hdr);
	if (err)
		return err;
	pmu = (struct trace_stream_pmu){
		.name		= ht->hdr.pmu,
		.config		= ht->hdr.config,
		.kernel		= ht->hdr.flags & PERF_HWTRACE_KERNEL,
		.user		= ht->hdr.flags & PERF_HWTRACE_USER,
		.per_cpu	= true,
	};
	if (pmu.user)
		pr_warning("%s: user mode was traced too, which perf cannot decode from the recorder: expect errors there\n",
			   ht->ts->path);
	err = trace_stream__write_pmu(ht->ts, &pmu) ?: hwtrace__write_kernel_map(ht) ?:
	      hwtrace__write_text(ht);

	for (pos = 0, idx = 0; !err && pos < ht->size; pos += len, idx++) {
		const char *copy = ht->copies + pos;

		len = hwtrace__copy(ht, pos, &hdr);
		if (len < 0)
			return len;
		err = hwtrace__check(ht, &hdr) ?:
		      trace_stream__write_trace(ht->ts, copy + hdr.hdr_size, hdr.size,
						hdr.offset, hdr.flags & PERF_HWTRACE_WRAPPED,
						idx, -1, -1, hdr.cpu);
	}
	return err;
}

/* The table of VMCOREINFO's HWTRACE= line: @nr CPUs' copies' addresses */
static const char *hwtrace__table(struct hwtrace *ht, const char *info, unsigned int *nr)
{
	unsigned long long pa;
	const char *line, *table;

	line = strstr(info, HWTRACE_VMCOREINFO);
	while (line && line != info && line[-1] != '\n')
		line = strstr(line + 1, HWTRACE_VMCOREINFO);
	if (!line) {
		trace_stream__err(ht->ts,
				  "the crashed kernel ran no hardware trace recorder (no HWTRACE= in VMCOREINFO)");
		return NULL;
	}
	table = NULL;
	if (sscanf(line, HWTRACE_VMCOREINFO "%llx,%u", &pa, nr) == 2)
		table = hwtrace__phys(ht->dump, pa, (u64)*nr * sizeof(u64));
	if (!table)
		trace_stream__err(ht->ts,
				  "the hardware trace recorder's table is garbled or not in the dump");
	return table;
}

/*
 * The crash dump's copies, end to end at ht->copies (to be freed), the dump
 * read into @ec, at ht->dump
 */
static int hwtrace__gather(struct hwtrace *ht, struct elf_core *ec)
{
	const char *table;
	unsigned int nr = 0, cpu;
	char *info;
	int err = 0;
	u64 pa;

	hwtrace__vmcoreinfo(ec, ht->ts->map, ht->ts->size, &info);
	if (!info)
		return trace_stream__err(ht->ts,
					 ec->err ?: "not a kernel's crash dump (no VMCOREINFO)");
	ht->dump = ec;
	table = hwtrace__table(ht, info, &nr);
	if (!table)
		err = -EINVAL;
	for (cpu = 0; !err && cpu < nr; cpu++) {
		memcpy(&pa, table + cpu * sizeof(pa), sizeof(pa));
		if (pa)
			err = hwtrace__gather_copy(ht, ec, pa, cpu);
	}
	if (!err && !ht->size)
		err = trace_stream__err(ht->ts, "no CPU's copy in the dump: none froze");
	free(info);
	return err;
}

/**
 * hwtrace__is_hwtrace - whether @path is a file of hardware trace recorder
 * copies, or a kernel's crash dump
 * @path: a file perf is asked to read
 *
 * Opening a CPU's file in tracefs takes a copy: this one is not the one read.
 */
bool hwtrace__is_hwtrace(const char *path)
{
	struct elf_core ec;
	struct stat st;
	bool dump;
	char *info, *map;
	u32 magic;
	int fd;

	if (!trace_stream__peek(path, &magic, sizeof(magic)))
		return false;
	if (magic == PERF_HWTRACE_MAGIC)
		return true;
	if (memcmp(&magic, ELFMAG, SELFMAG))
		return false;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	map = fstat(fd, &st) ? MAP_FAILED :
	      mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	hwtrace__vmcoreinfo(&ec, map, st.st_size, &info);
	dump = info;
	free(info);
	munmap(map, st.st_size);
	return dump;
}

/**
 * hwtrace__open - read @data's file of hardware trace recorder copies, or
 * the copies in a kernel's crash dump, as a pipe-mode stream made of them
 * @data: the file perf was asked to read
 *
 * Returns 0, or an error, reported.
 */
int hwtrace__open(struct perf_data *data)
{
	struct trace_stream ts;
	struct hwtrace ht = { .ts = &ts, };
	struct elf_core ec;
	bool dump;
	int err;

	err = trace_stream__begin(&ts, data);
	dump = !err && ts.size >= SELFMAG && !memcmp(ts.map, ELFMAG, SELFMAG);
	if (dump) {
		err = hwtrace__gather(&ht, &ec);
	} else {
		ht.copies = ts.map;
		ht.size = ts.size;
	}
	err = err ?: hwtrace__write_stream(&ht);
	if (dump)
		free((char *)ht.copies);
	return trace_stream__end(&ts, data, err);
}
