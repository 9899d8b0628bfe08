// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware trace recorder's store: its frozen copies kept across a
 * warm reboot.
 *
 * With hwtrace_store=SIZE@ADDR, and that range of physical memory kept from
 * the kernel (memmap=SIZE$ADDR on x86), the recorder keeps each CPU's
 * frozen copy (trace_recorder.c) in the range rather than in memory of its
 * own.  A reboot that keeps memory (a warm reset, the reboot after a panic)
 * leaves them to the next boot, which checks the store before anything
 * writes it and offers each copy that passes, with the trace up to where
 * its CPU froze, as hwtrace/previous/cpuN/trace, in the format of the live
 * files.
 *
 * The store is a header, a seal per slot, and a slot per possible CPU:
 *
 *   struct hwtrace_store | seal[nr_slots] | (to a page) | slot 0 | slot 1 ...
 *
 * The header says the store's geometry and the kernel's build; its CRC
 * covers it.  The recorder writes it when it starts, with every seal and
 * slot zeroed.  A CPU that freezes its copy seals it: the copy's length
 * and CRC go in its seal.  The next boot trusts nothing else: it reads the
 * copies only if the header is whole (its magic, version, size and CRC), of
 * this region, of this kernel build, its slots in the region, and then
 * only those whose seal and header agree with their slot and their CPU.
 * What fails is refused, said in the kernel log, never read past the
 * region, and left as it is until the recorder next starts.
 *
 * The range is mapped write-combining, as pstore's RAM backend maps its
 * own: what a CPU writes reaches memory without a flush of its caches,
 * which a reset does not do.  A CPU seals its copy with a write barrier.
 *
 * Locking: the store is laid out under the recorder's hwtrace_mutex, and
 * read before the recorder can start; a CPU seals its own slot in any
 * context, NMI included.
 */

#include <linux/buildid.h>
#include <linux/crc32.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracefs.h>
#include <linux/vmalloc.h>

#include "internal.h"

#define HWTRACE_STORE_MAGIC	0x524f545352545748ULL	/* "HWTRSTOR" */
#define HWTRACE_STORE_VERSION	1

/* A slot's copy, as its CPU sealed it: 0 bytes for none. */
struct hwtrace_store_seal {
	u32	len;
	u32	crc;
};

/* The start of the store; hwtrace_store_crc() covers it up to @crc. */
struct hwtrace_store {
	u64	magic;		/* HWTRACE_STORE_MAGIC */
	u32	version;	/* HWTRACE_STORE_VERSION */
	u32	hdr_size;	/* sizeof(struct hwtrace_store) */
	u64	size;		/* of the region */
	u64	slots;		/* offset of slot 0, whole pages */
	u32	slot_size;	/* bytes, whole pages */
	u32	nr_slots;	/* one a possible CPU */
	u32	build_id_size;
	u8	build_id[BUILD_ID_SIZE_MAX];	/* the kernel's */
	u32	crc;
	u32	reserved;
	struct hwtrace_store_seal seal[];
};

static phys_addr_t store_phys;
static u64 store_size;
static struct hwtrace_store *store;

/* The previous boot's copies that passed, one a slot (len 0: none). */
struct hwtrace_previous {
	void	*buf;
	u32	len;
};

static struct hwtrace_previous *previous;

/* The CRC of @len bytes at @p, as zlib's crc32() reckons it. */
static u32 hwtrace_crc(const void *p, size_t len)
{
	return crc32_le(~0U, p, len) ^ ~0U;
}

static u32 hwtrace_store_crc(const struct hwtrace_store *s)
{
	return hwtrace_crc(s, offsetof(struct hwtrace_store, crc));
}

static void *hwtrace_store_slot_at(const struct hwtrace_store *s, u32 slot)
{
	return (void *)s + s->slots + (u64)slot * s->slot_size;
}

/* This kernel's build ID, or none. */
static void hwtrace_build_id(const u8 **id, u32 *size)
{
	*id = NULL;
	*size = 0;
#if IS_ENABLED(CONFIG_STACKTRACE_BUILD_ID) || IS_ENABLED(CONFIG_CRASH_CORE)
	*id = vmlinux_build_id;
	*size = BUILD_ID_SIZE_MAX;
#endif
}

/*
 * Whether store header @s (a copy), of a region of @size bytes, can be
 * trusted by a kernel of this build ID: NULL if its seals and slots lie
 * within the region and are this kernel's; why not, otherwise.
 */
static const char *hwtrace_store_check(const struct hwtrace_store *s,
				       u64 size, const u8 *build_id,
				       u32 build_id_size)
{
	u64 table;

	if (s->magic != HWTRACE_STORE_MAGIC)
		return "it never held the recorder's trace";
	if (s->version != HWTRACE_STORE_VERSION)
		return "of another version";
	if (s->hdr_size != sizeof(*s) || s->reserved)
		return "its header is garbled";
	if (s->crc != hwtrace_store_crc(s))
		return "its header's checksum is wrong";
	if (s->size != size)
		return "made for a region of another size";
	if (s->build_id_size != build_id_size ||
	    memcmp(s->build_id, build_id, build_id_size))
		return "of another kernel build";
	table = sizeof(*s) + (u64)s->nr_slots * sizeof(s->seal[0]);
	if (!s->nr_slots || !s->slot_size || !PAGE_ALIGNED(s->slot_size) ||
	    !PAGE_ALIGNED(s->slots) || s->slots < table || s->slots > size ||
	    div64_u64(size - s->slots, s->slot_size) < s->nr_slots)
		return "its slots are garbled";
	return NULL;
}

/*
 * Whether @copy, the bytes of @slot (below @s->nr_slots) of store @s, whose
 * header passed hwtrace_store_check(), can be trusted with @seal, its seal
 * as read once: NULL if @copy is @seal->len bytes of a frozen copy of its
 * CPU's trace that its seal and header agree on; why not, otherwise.
 * @copy is read only past the check of @seal->len against the slot.
 */
static const char *hwtrace_store_check_copy(const struct hwtrace_store *s,
					    u32 slot,
					    const struct hwtrace_store_seal *seal,
					    const void *copy)
{
	const struct perf_hwtrace_header *hdr = copy;

	if (seal->len < sizeof(*hdr) || seal->len > s->slot_size)
		return "its seal is garbled";
	if (seal->crc != hwtrace_crc(hdr, seal->len))
		return "its checksum is wrong";
	if (hdr->magic != PERF_HWTRACE_MAGIC ||
	    hdr->version != PERF_HWTRACE_VERSION ||
	    hdr->hdr_size != sizeof(*hdr) || hdr->cpu != slot ||
	    hdr->size != seal->len - sizeof(*hdr) ||
	    !(hdr->flags & PERF_HWTRACE_FROZEN) ||
	    hdr->build_id_size != s->build_id_size ||
	    memcmp(hdr->build_id, s->build_id, s->build_id_size))
		return "its copy's header is garbled";
	return NULL;
}

/*
 * Keep @slot's copy for hwtrace/previous/, if it passes: copied first, in
 * one read of the region's uncached memory, then checked as kept.
 */
static void hwtrace_store_take(const struct hwtrace_store *s, u32 slot)
{
	struct hwtrace_store_seal seal = READ_ONCE(s->seal[slot]);
	u32 len = min(seal.len, s->slot_size);
	const char *why;
	void *buf;

	if (!seal.len)
		return;
	buf = vmalloc(len);
	if (!buf)
		return;
	memcpy(buf, hwtrace_store_slot_at(s, slot), len);
	why = hwtrace_store_check_copy(s, slot, &seal, buf);
	if (why) {
		vfree(buf);
		pr_warn("hwtrace: store at %pa: CPU %u's trace refused: %s\n",
			&store_phys, slot, why);
		return;
	}
	previous[slot] = (struct hwtrace_previous){ buf, seal.len };
}

/* Read the previous boot's copies, if the store can be trusted. */
static u32 hwtrace_store_read(void)
{
	struct hwtrace_store hdr;
	const u8 *build_id;
	u32 build_id_size, slot, nr = 0;
	const char *why;

	memcpy(&hdr, store, sizeof(hdr));
	hwtrace_build_id(&build_id, &build_id_size);
	why = hwtrace_store_check(&hdr, store_size, build_id, build_id_size);
	if (why) {
		pr_notice("hwtrace: store at %pa: not read: %s\n",
			  &store_phys, why);
		return 0;
	}
	/* Checked, and the region does not change: the header is @hdr's. */
	previous = kcalloc(hdr.nr_slots, sizeof(*previous), GFP_KERNEL);
	if (!previous)
		return 0;
	for (slot = 0; slot < hdr.nr_slots; slot++) {
		hwtrace_store_take(store, slot);
		nr += !!previous[slot].len;
	}
	pr_info("hwtrace: store at %pa: %u CPUs' trace of the previous boot, in hwtrace/previous/\n",
		&store_phys, nr);
	return hdr.nr_slots;
}

static ssize_t hwtrace_previous_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	const struct hwtrace_previous *p = file_inode(file)->i_private;

	return simple_read_from_buffer(ubuf, count, ppos, p->buf, p->len);
}

static const struct file_operations hwtrace_previous_fops = {
	.open	= simple_open,
	.read	= hwtrace_previous_read,
	.llseek	= default_llseek,
};

static void __init hwtrace_previous_files(struct dentry *dir, u32 nr_slots)
{
	struct dentry *d;
	char name[16];
	u32 slot;

	dir = tracefs_create_dir("previous", dir);
	for (slot = 0; dir && slot < nr_slots; slot++) {
		if (!previous[slot].len)
			continue;
		snprintf(name, sizeof(name), "cpu%u", slot);
		d = tracefs_create_dir(name, dir);
		if (d)
			tracefs_create_file("trace", 0400, d, &previous[slot],
					    &hwtrace_previous_fops);
	}
}

static u64 store_param_size;
static u64 store_param_addr;

/* hwtrace_store=SIZE@ADDR: the store's range of physical memory. */
static int __init hwtrace_store_setup(char *s)
{
	store_param_size = memparse(s, &s);
	if (*s != '@')
		return 0;
	store_param_addr = memparse(s + 1, &s);
	return 1;
}
__setup("hwtrace_store=", hwtrace_store_setup);

/**
 * hwtrace_store_init - map the store hwtrace_store= names, if any, and
 * offer what the previous boot left in it under @dir/previous/
 * @dir: the recorder's tracefs directory, or NULL for none
 *
 * Context: process context, before the recorder can start.
 */
void __init hwtrace_store_init(struct dentry *dir)
{
	phys_addr_t phys = store_param_addr;
	u64 size = store_param_size;
	u32 nr_slots;

	if (!size)
		return;
	if (size < PAGE_SIZE || !PAGE_ALIGNED(phys) || !PAGE_ALIGNED(size) ||
	    phys + size < phys) {
		pr_err("hwtrace: hwtrace_store=%#llx@%pa: not whole pages\n",
		       size, &phys);
		return;
	}
	/* Memory the kernel has is never the store's. */
	if (region_intersects(phys, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		pr_err("hwtrace: store at %pa: the kernel's memory: keep it from the kernel (memmap=%#llx$%pa)\n",
		       &phys, size, &phys);
		return;
	}
	store = memremap(phys, size, MEMREMAP_WC);
	if (!store) {
		pr_err("hwtrace: store at %pa: cannot map it\n", &phys);
		return;
	}
	store_phys = phys;
	store_size = size;
	nr_slots = hwtrace_store_read();
	if (nr_slots && dir)
		hwtrace_previous_files(dir, nr_slots);
}

/**
 * hwtrace_store_begin - lay the store out for copies of @copy_bytes each
 * @copy_bytes: a copy's bytes, its header included, whole pages
 *
 * Zeroes every slot and seal, and writes the header: from here the store
 * holds this boot's copies, none yet.
 *
 * Context: process context, with the recorder's hwtrace_mutex held.
 * Return: 0 (also with no store), or -ENOSPC if the store cannot hold a
 * copy a possible CPU.
 */
int hwtrace_store_begin(size_t copy_bytes)
{
	const u8 *build_id;
	u64 slots;

	if (!store)
		return 0;
	slots = PAGE_ALIGN(struct_size(store, seal, nr_cpu_ids));
	if (slots + (u64)nr_cpu_ids * copy_bytes > store_size) {
		pr_err("hwtrace: store at %pa: %llu KiB, and %u CPUs' copies of %zu KiB need %llu KiB\n",
		       &store_phys, store_size / SZ_1K, nr_cpu_ids,
		       copy_bytes / SZ_1K,
		       (slots + (u64)nr_cpu_ids * copy_bytes) / SZ_1K);
		return -ENOSPC;
	}
	memset(store, 0, slots + (u64)nr_cpu_ids * copy_bytes);
	store->magic = HWTRACE_STORE_MAGIC;
	store->version = HWTRACE_STORE_VERSION;
	store->hdr_size = sizeof(*store);
	store->size = store_size;
	store->slots = slots;
	store->slot_size = copy_bytes;
	store->nr_slots = nr_cpu_ids;
	hwtrace_build_id(&build_id, &store->build_id_size);
	memcpy(store->build_id, build_id, store->build_id_size);
	store->crc = hwtrace_store_crc(store);
	/* Out of the write-combining buffers before anything runs on */
	wmb();
	return 0;
}

/**
 * hwtrace_store_slot - the store's room for @cpu's copy
 * @cpu: a possible CPU
 * @phys: set to its physical address
 *
 * Context: with the recorder's hwtrace_mutex held, after
 * hwtrace_store_begin().
 * Return: the slot, zeroed, of the size hwtrace_store_begin() was given;
 * NULL with no store.
 */
void *hwtrace_store_slot(int cpu, phys_addr_t *phys)
{
	if (!store)
		return NULL;
	*phys = store_phys + store->slots + (u64)cpu * store->slot_size;
	return hwtrace_store_slot_at(store, cpu);
}

/**
 * hwtrace_store_seal - seal this CPU's frozen copy, for the next boot
 * @hdr: its copy, in its slot, the header filled in
 *
 * Context: any, maybe NMI; on the copy's CPU, with IRQs disabled.
 */
void hwtrace_store_seal(const struct perf_hwtrace_header *hdr)
{
	struct hwtrace_store_seal *seal;
	u32 len = hdr->hdr_size + hdr->size;

	if (!store)
		return;
	seal = &store->seal[smp_processor_id()];
	WRITE_ONCE(seal->crc, hwtrace_crc(hdr, len));
	WRITE_ONCE(seal->len, len);
	/* Out of the write-combining buffers before the CPU stops */
	wmb();
}

/**
 * hwtrace_store_unseal - @cpu's slot holds no frozen copy from here
 * @cpu: a possible CPU
 *
 * Context: with the recorder's hwtrace_mutex held.
 */
void hwtrace_store_unseal(int cpu)
{
	if (!store)
		return;
	WRITE_ONCE(store->seal[cpu].len, 0);
	/* Out of the write-combining buffers before the slot is written */
	wmb();
}

#ifdef CONFIG_PERF_HWTRACE_KUNIT_TEST
#include "trace_recorder_store_test.h"
#endif
