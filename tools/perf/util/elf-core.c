// SPDX-License-Identifier: GPL-2.0
/*
 * ELF core files that perf reads hardware trace from: a process's core
 * (util/core-trace.c) and a kernel's crash dump, a vmcore (util/hwtrace.c).
 *
 * The file is in memory whole, mapped or read; each part of it is read only
 * once it is known to be all in the file, so a garbled or truncated core is
 * an error, never a read past it.  Nothing here prints: after an error,
 * ec->err says what is wrong, for the caller to report with the file's name.
 * 64-bit cores of perf's own byte order only.
 */
#include <errno.h>
#include <string.h>
#include <linux/kernel.h>

#include "elf-core.h"

static int elf_core__err(struct elf_core *ec, const char *what)
{
	ec->err = what;
	return -EINVAL;
}

/**
 * elf_core__at - @size bytes at @offset of the core
 * @ec: the core
 * @offset: where they start in the file
 * @size: how many
 *
 * Returns them, or NULL if they are not all in the file.
 */
const char *elf_core__at(const struct elf_core *ec, u64 offset, u64 size)
{
	if (offset > ec->size || size > ec->size - offset)
		return NULL;
	return ec->map + offset;
}

/**
 * elf_core__phdr - the core's program header @idx
 * @ec: the core, read by elf_core__read()
 * @idx: below ec->nr_phdrs
 * @phdr: where it goes
 */
void elf_core__phdr(const struct elf_core *ec, size_t idx, struct elf64_phdr *phdr)
{
	memcpy(phdr, ec->phdrs + idx * sizeof(*phdr), sizeof(*phdr));
}

/*
 * The program headers, e_phnum of them, unless there are PN_XNUM or more:
 * then e_phnum is PN_XNUM and the first section header's sh_info has the
 * number (ELF gABI).
 */
static int elf_core__read_phdrs(struct elf_core *ec, const struct elf64_hdr *ehdr)
{
	struct elf64_shdr shdr;
	const char *p;

	ec->nr_phdrs = ehdr->e_phnum;
	if (ec->nr_phdrs == PN_XNUM) {
		p = elf_core__at(ec, ehdr->e_shoff, sizeof(shdr));
		if (!p)
			return elf_core__err(ec, "its section headers are not in the file");
		memcpy(&shdr, p, sizeof(shdr));
		ec->nr_phdrs = shdr.sh_info;
	}
	if (ehdr->e_phentsize != sizeof(struct elf64_phdr))
		return elf_core__err(ec, "its program headers are garbled");
	ec->phdrs = elf_core__at(ec, ehdr->e_phoff,
				 ec->nr_phdrs * sizeof(struct elf64_phdr));
	if (!ec->phdrs)
		return elf_core__err(ec, "its program headers are not all in the file");
	return 0;
}

/**
 * elf_core__read - read the ELF header and program headers of a core
 * @ec: the core
 * @map: the file, in memory
 * @size: its size
 *
 * Returns 0, or -EINVAL with ec->err set.
 */
int elf_core__read(struct elf_core *ec, const char *map, size_t size)
{
	struct elf64_hdr ehdr;

	memset(ec, 0, sizeof(*ec));
	ec->map = map;
	ec->size = size;
	if (size < sizeof(ehdr) || memcmp(map, ELFMAG, SELFMAG))
		return elf_core__err(ec, "not an ELF core file");
	memcpy(&ehdr, map, sizeof(ehdr));
	if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 || sizeof(long) != 8 ||
	    ehdr.e_ident[EI_DATA] != ELF_CORE_ELFDATA)
		return elf_core__err(ec,
				     "perf reads trace from 64-bit cores of its byte order only");
	return elf_core__read_phdrs(ec, &ehdr);
}

/*
 * The notes of a PT_NOTE segment: each a header, then its name and its
 * descriptor, each padded to 4 bytes, all within the segment.
 */
static int elf_core__segment_notes(struct elf_core *ec, const struct elf64_phdr *phdr,
				   elf_core__note_fn fn, void *ctx)
{
	const char *notes = elf_core__at(ec, phdr->p_offset, phdr->p_filesz);
	u64 offset, name, desc, next;
	struct elf64_note nhdr;
	int ret = 0;

	if (!notes)
		return elf_core__err(ec, "its notes are not all in the file: truncated?");

	for (offset = 0; !ret && offset < phdr->p_filesz; offset = next) {
		if (phdr->p_filesz - offset < sizeof(nhdr))
			return elf_core__err(ec, "its notes are garbled");
		memcpy(&nhdr, notes + offset, sizeof(nhdr));
		name = offset + sizeof(nhdr);
		desc = name + PERF_ALIGN((u64)nhdr.n_namesz, 4);
		next = desc + PERF_ALIGN((u64)nhdr.n_descsz, 4);
		if (next > phdr->p_filesz)
			return elf_core__err(ec, "its notes are garbled");
		ret = fn(ctx, &nhdr, notes + name, notes + desc);
	}
	return ret;
}

/**
 * elf_core__notes - call @fn with each note of the core's PT_NOTE segments
 * @ec: the core, read by elf_core__read()
 * @fn: called with each note, its name and its descriptor, all in the file
 * @ctx: @fn's
 *
 * Returns 0 after the last note, what @fn returned if not 0, or -EINVAL
 * with ec->err set if the notes are garbled.
 */
int elf_core__notes(struct elf_core *ec, elf_core__note_fn fn, void *ctx)
{
	struct elf64_phdr phdr;
	size_t i;
	int ret = 0;

	ec->err = NULL;
	for (i = 0; !ret && i < ec->nr_phdrs; i++) {
		elf_core__phdr(ec, i, &phdr);
		if (phdr.p_type == PT_NOTE)
			ret = elf_core__segment_notes(ec, &phdr, fn, ctx);
	}
	return ret;
}

/**
 * elf_core__note_is - whether a note is @owner's (its name)
 * @nhdr: the note
 * @name: its name, n_namesz bytes
 * @owner: the name asked about: "CORE", "LINUX", "VMCOREINFO"
 */
bool elf_core__note_is(const struct elf64_note *nhdr, const char *name, const char *owner)
{
	return nhdr->n_namesz == strlen(owner) + 1 && !memcmp(name, owner, nhdr->n_namesz);
}
