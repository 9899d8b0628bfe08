/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_ELF_CORE_H
#define __PERF_ELF_CORE_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/elf.h>
#include <linux/types.h>

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define ELF_CORE_ELFDATA	ELFDATA2LSB	/* perf's byte order */
#else
#define ELF_CORE_ELFDATA	ELFDATA2MSB
#endif

/* An ELF core file in memory: a process's core, or a kernel's crash dump */
struct elf_core {
	const char	*map;		/* the whole file */
	size_t		size;
	const char	*phdrs;		/* nr_phdrs of them, maybe unaligned */
	size_t		nr_phdrs;
	const char	*err;		/* after an error: what is wrong */
};

/* Called for each note; a non-zero return ends the walk with it */
typedef int (*elf_core__note_fn)(void *ctx, const struct elf64_note *nhdr,
				 const char *name, const char *desc);

int elf_core__read(struct elf_core *ec, const char *map, size_t size);
const char *elf_core__at(const struct elf_core *ec, u64 offset, u64 size);
void elf_core__phdr(const struct elf_core *ec, size_t idx, struct elf64_phdr *phdr);
int elf_core__notes(struct elf_core *ec, elf_core__note_fn fn, void *ctx);
bool elf_core__note_is(const struct elf64_note *nhdr, const char *name, const char *owner);

#endif /* __PERF_ELF_CORE_H */
