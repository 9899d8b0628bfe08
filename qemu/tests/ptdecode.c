// SPDX-License-Identifier: GPL-2.0
/*
 * ptdecode [-e] TRACE ELF: decode a raw Intel PT stream with libipt's
 * instruction decoder (not this project's, not perf's) over the executable
 * segments of a static ELF binary, and print the address of every
 * instruction it finds, one per line, in hex, from the first PSB to the
 * end.  With -e, each address is followed by the instruction's bytes and,
 * for a branch of any kind, " branch"; the events that enable and disable
 * tracing get lines of their own:
 * "enabled IP" (where the trace goes on), "disabled", "overflow".  Any
 * decode error (an image it cannot follow, a packet it does not expect)
 * ends it with status 1.
 */
#include <elf.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void *map_file(const char *path, size_t *size)
{
	struct stat st;
	void *p;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || !st.st_size) {
		perror(path);
		exit(2);
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror(path);
		exit(2);
	}
	close(fd);
	*size = st.st_size;
	return p;
}

/* The ELF's executable PT_LOAD segments, at their virtual addresses. */
static struct pt_image *load_image(const char *path)
{
	struct pt_image *image = pt_image_alloc(path);
	size_t size;
	const Elf64_Ehdr *eh = map_file(path, &size);
	const Elf64_Phdr *ph = (const void *)((const char *)eh + eh->e_phoff);
	int i, n = 0;

	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		if (pt_image_add_file(image, path, ph[i].p_offset,
				      ph[i].p_filesz, NULL, ph[i].p_vaddr) < 0) {
			fprintf(stderr, "%s: cannot add segment %d\n", path, i);
			exit(2);
		}
		n++;
	}
	if (!n) {
		fprintf(stderr, "%s: no executable segment\n", path);
		exit(2);
	}
	return image;
}

static int print_events;

static void print_event(const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_enabled:
		printf("enabled %llx\n", (unsigned long long)ev->variant.enabled.ip);
		break;
	case ptev_disabled:
		printf("disabled\n");
		break;
	case ptev_async_disabled:
		printf("disabled at %llx\n",
		       (unsigned long long)ev->variant.async_disabled.at);
		break;
	case ptev_overflow:
		printf("overflow\n");
		break;
	default:
		break;
	}
}

static void print_bytes(const struct pt_insn *insn)
{
	unsigned int i;

	printf(" ");
	for (i = 0; i < insn->size; i++)
		printf("%02x", insn->raw[i]);
	if (insn->iclass != ptic_other && insn->iclass != ptic_ptwrite)
		printf(" branch");
}

/* Take the events libipt has for us, printing those -e asks for. */
static int drain_events(struct pt_insn_decoder *dec, int status)
{
	struct pt_event ev;

	while (status & pts_event_pending) {
		status = pt_insn_event(dec, &ev, sizeof(ev));
		if (status < 0)
			return status;
		if (print_events)
			print_event(&ev);
	}
	return status;
}

int main(int argc, char **argv)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	struct pt_insn insn;
	size_t size;
	int status;

	print_events = argc == 4 && !strcmp(argv[1], "-e");
	argv += print_events;
	argc -= print_events;
	if (argc != 3) {
		fprintf(stderr, "usage: ptdecode [-e] TRACE ELF\n");
		return 2;
	}
	pt_config_init(&config);
	config.begin = map_file(argv[1], &size);
	config.end = config.begin + size;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec || pt_insn_set_image(dec, load_image(argv[2])) < 0)
		return 2;

	status = pt_insn_sync_forward(dec);
	if (status >= 0) {
		for (;;) {
			status = drain_events(dec, status);
			if (status < 0)
				break;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0)
				break;
			if (insn.speculative)
				continue;
			printf("%llx", (unsigned long long)insn.ip);
			if (print_events)
				print_bytes(&insn);
			printf("\n");
		}
		if (status == -pte_eos)
			return 0;
	}
	fprintf(stderr, "ptdecode: %s\n", pt_errstr(pt_errcode(status)));
	return 1;
}
