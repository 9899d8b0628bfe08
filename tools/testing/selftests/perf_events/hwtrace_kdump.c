// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware trace recorder after a crash, read as a tool would find
 * it: from /proc/vmcore in the kdump kernel, through VMCOREINFO's
 * HWTRACE= line, never through the crashed kernel's debug info; or from
 * the recorder's store (hwtrace_store=), in hwtrace/previous/: after the
 * reboot that followed a panic, or in the capture kernel, booted with the
 * same hwtrace_store= (the vmcore lacks the store, memory the kernel kept
 * from itself and kdump does not dump).
 *
 * Run in the capture kernel, or in the boot after, of a kernel that
 * recorded Intel PT of kernel mode (hwtrace=intel_pt,config=0x2001,...,
 * kernel), or ptsim's (hwtrace=ptsim,...,kernel), and crashed as
 * HWTRACE_KDUMP_CRASH says (harness/kdump.sh, harness/reboot.sh and
 * check.sh arrange it).  Every CPU it had froze its copy in the crash
 * paths; the copy of the CPU that crashed shows the crash (crash_flow):
 * Intel PT's decodes, with libipt, over the crashed kernel's text as the
 * vmcore holds it, or, after a reboot, as this kernel (the same build)
 * has it in /proc/kcore; ptsim's records, the IPs its ticks interrupted,
 * end where the CPU was stuck.  With neither /proc/vmcore nor
 * hwtrace/previous/, skips.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <intel-pt.h>

#include "../kselftest_harness.h"
#include "ptsim_lib.h"

#define VMCORE		"/proc/vmcore"
#define KCORE		"/proc/kcore"
#define PREVIOUS	"/sys/kernel/tracing/hwtrace/previous"
#define MAX_CPUS	64	/* the most CPUs this test reads copies of */
/* x86-64's kernel text mapping: __START_KERNEL_map */
#define KERNEL_MAP	0xffffffff80000000ULL

struct vmcore {
	int		fd;
	Elf64_Phdr	*ph;
	unsigned int	nr_ph;
	char		*info;		/* VMCOREINFO's text */
};

/* Read @len bytes at address @addr, virtual or physical, of the core. */
static int core_read(const struct vmcore *vc, uint64_t addr, bool virt,
		     void *to, size_t len)
{
	const Elf64_Phdr *ph;
	uint64_t start;
	unsigned int i;

	for (i = 0; i < vc->nr_ph; i++) {
		ph = &vc->ph[i];
		start = virt ? ph->p_vaddr : ph->p_paddr;
		if (ph->p_type != PT_LOAD || addr < start ||
		    addr + len > start + ph->p_filesz)
			continue;
		if (pread(vc->fd, to, len, ph->p_offset + addr - start) !=
		    (ssize_t)len)
			return -EIO;
		return 0;
	}
	return -ENOENT;
}

/* Read @len bytes at physical address @pa of the crashed kernel. */
static int vmcore_read(const struct vmcore *vc, uint64_t pa, void *to,
		       size_t len)
{
	return core_read(vc, pa, false, to, len);
}

/* A note of the vmcore's PT_NOTE segments. */
struct vmcore_note {
	uint32_t	type;
	uint32_t	namesz;
	uint32_t	descsz;
	const char	*name;
	const char	*desc;
};

/* Call @fn with each note until it returns non-zero; returns that, or 0. */
typedef int (*vmcore_note_fn)(const struct vmcore_note *n, void *ctx);

static int vmcore_notes(const struct vmcore *vc, vmcore_note_fn fn, void *ctx)
{
	const Elf64_Nhdr *nh;
	size_t off, size;
	unsigned int i;
	int ret = 0;
	char *buf;

	for (i = 0; i < vc->nr_ph && !ret; i++) {
		if (vc->ph[i].p_type != PT_NOTE)
			continue;
		size = vc->ph[i].p_filesz;
		buf = malloc(size);
		if (pread(vc->fd, buf, size, vc->ph[i].p_offset) != (ssize_t)size)
			size = 0;
		for (off = 0; !ret && off + sizeof(*nh) <= size;) {
			nh = (const void *)(buf + off);
			off += sizeof(*nh) + ((nh->n_namesz + 3) & ~3U);
			if (off + nh->n_descsz > size)
				break;
			ret = fn(&(struct vmcore_note){
					.type = nh->n_type,
					.namesz = nh->n_namesz,
					.descsz = nh->n_descsz,
					.name = (const char *)(nh + 1),
					.desc = buf + off,
				 }, ctx);
			off += (nh->n_descsz + 3) & ~3U;
		}
		free(buf);
	}
	return ret;
}

static int find_vmcoreinfo(const struct vmcore_note *n, void *ctx)
{
	char **info = ctx;

	if (n->namesz != sizeof("VMCOREINFO") ||
	    memcmp(n->name, "VMCOREINFO", n->namesz))
		return 0;
	*info = strndup(n->desc, n->descsz);
	return 1;
}

static int vmcore_open(struct vmcore *vc, const char *path)
{
	Elf64_Ehdr eh;

	memset(vc, 0, sizeof(*vc));
	vc->fd = open(path, O_RDONLY);
	if (vc->fd < 0)
		return -errno;
	if (pread(vc->fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -EINVAL;
	vc->nr_ph = eh.e_phnum;
	vc->ph = calloc(vc->nr_ph, sizeof(*vc->ph));
	if (pread(vc->fd, vc->ph, vc->nr_ph * sizeof(*vc->ph), eh.e_phoff) !=
	    (ssize_t)(vc->nr_ph * sizeof(*vc->ph)))
		return -EIO;
	vmcore_notes(vc, find_vmcoreinfo, &vc->info);
	return vc->info ? 0 : -ENOENT;
}

/* A number of VMCOREINFO: "@key=VALUE" (@base 16 or 10). */
static int vmcore_number(const struct vmcore *vc, const char *key, int base,
			 unsigned long long *val)
{
	char *p = strstr(vc->info, key);

	if (!p || (p != vc->info && p[-1] != '\n'))
		return -ENOENT;
	*val = strtoull(p + strlen(key), NULL, base);
	return 0;
}

/*
 * The crashed kernel's text, read from the vmcore once: libipt asks for
 * every instruction.  x86-64 maps it at __START_KERNEL_map + phys_base.
 */
struct kernel_text {
	uint64_t	start;		/* the crashed kernel's _stext */
	uint64_t	size;
	uint8_t		*bytes;
};

static int read_kernel_text(uint8_t *buffer, size_t size,
			    const struct pt_asid *asid, uint64_t ip,
			    void *context)
{
	const struct kernel_text *kt = context;

	if (ip < kt->start || ip >= kt->start + kt->size)
		return -pte_nomap;
	if (size > kt->start + kt->size - ip)
		size = kt->start + kt->size - ip;
	memcpy(buffer, kt->bytes + (ip - kt->start), size);
	return size;
}

/*
 * A function's address range in the crashed kernel, from the capture
 * kernel's kallsyms: it is the same build, whose text KASLR put @kaslr
 * bytes further in the crashed one.
 */
static int kernel_func(const char *name, uint64_t kaslr, struct ptsim_range *r)
{
	unsigned long long addr, start = 0, next = ~0ULL;
	char line[256], type, sym[128];
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) != 3)
			continue;
		if (!strcmp(sym, name))
			start = addr;
		else if (start && addr > start && addr < next)
			next = addr;
	}
	fclose(f);
	if (!start || next == ~0ULL)
		return -ENOENT;
	r->start = start + kaslr;
	r->end = next + kaslr;
	return 0;
}

/*
 * The copies of @nr_cpus CPUs: in the vmcore @vc, at @phys, or in
 * hwtrace/previous/ (@store).  @vc is the crashed kernel's memory in a
 * capture kernel (@kdump), else this kernel's.
 */
struct copies {
	struct vmcore	vc;
	uint64_t	*phys;
	unsigned int	nr_cpus;
	bool		store;
	bool		kdump;
};

FIXTURE(kdump) {
	struct copies c;
};

FIXTURE_SETUP(kdump)
{
	struct copies *c = &self->c;
	unsigned long long table;
	char *p;
	int n;

	c->store = !access(PREVIOUS, R_OK);
	c->kdump = !access(VMCORE, R_OK);
	if (!c->store && !c->kdump)
		SKIP(return, "neither a kdump kernel (no " VMCORE
		     ") nor a boot after a crash (no " PREVIOUS ")");
	ASSERT_EQ(0, vmcore_open(&c->vc, c->kdump ? VMCORE : KCORE));
	if (c->store) {
		/* A capture kernel may have fewer CPUs than the store. */
		c->nr_cpus = MAX_CPUS;
		return;
	}
	p = strstr(c->vc.info, "HWTRACE=");
	ASSERT_NE(NULL, p) TH_LOG("VMCOREINFO names no hardware trace recorder");
	n = sscanf(p, "HWTRACE=%llx,%u", &table, &c->nr_cpus);
	ASSERT_EQ(2, n);
	ASSERT_LT(0, c->nr_cpus);
	ASSERT_GE(MAX_CPUS, c->nr_cpus);
	c->phys = calloc(c->nr_cpus, sizeof(*c->phys));
	ASSERT_EQ(0, vmcore_read(&c->vc, table, c->phys,
				 c->nr_cpus * sizeof(*c->phys)));
}

FIXTURE_TEARDOWN(kdump)
{
	struct copies *c = &self->c;

	free(c->phys);
	free(c->vc.info);
	free(c->vc.ph);
	if (c->vc.fd > 0)
		close(c->vc.fd);
}

/*
 * Read @len bytes at @off of @cpu's copy: -ENOENT if it has none (after a
 * reboot, no file in hwtrace/previous/).
 */
static int copy_read(const struct copies *c, unsigned int cpu,
		     uint64_t off, void *to, size_t len)
{
	char path[128];
	ssize_t got;
	int fd;

	if (!c->store)
		return c->phys[cpu] ?
		       vmcore_read(&c->vc, c->phys[cpu] + off, to, len) :
		       -ENOENT;
	snprintf(path, sizeof(path), PREVIOUS "/cpu%u/trace", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	got = pread(fd, to, len, off);
	close(fd);
	return got == (ssize_t)len ? 0 : -EIO;
}

/*
 * CPU @cpu's frozen copy: its header, and its trace (freed by the caller);
 * NULL if it has none.
 */
static uint8_t *read_copy(struct __test_metadata *_metadata,
			  const struct copies *c, unsigned int cpu,
			  struct perf_hwtrace_header *hdr)
{
	uint8_t *trace;
	int ret;

	ret = copy_read(c, cpu, 0, hdr, sizeof(*hdr));
	if (ret == -ENOENT)
		return NULL;
	EXPECT_EQ(0, ret);
	EXPECT_EQ(PERF_HWTRACE_MAGIC, hdr->magic);
	EXPECT_EQ(PERF_HWTRACE_VERSION, hdr->version);
	EXPECT_EQ(cpu, hdr->cpu);
	EXPECT_GE(1024 * 1024, hdr->size);
	if (ret || hdr->magic != PERF_HWTRACE_MAGIC || hdr->size > 1024 * 1024)
		return NULL;
	trace = malloc(hdr->size + 1);
	EXPECT_EQ(0, copy_read(c, cpu, hdr->hdr_size, trace, hdr->size));
	return trace;
}

/*
 * The registers the crash saved for each CPU (NT_PRSTATUS), x86-64: the
 * RIP of struct elf_prstatus' pr_reg.  Returns how many, at most @max.
 */
#define PRSTATUS_RIP	(112 + 16 * 8)

struct saved_rips {
	uint64_t	*rip;
	int		nr, max;
};

static int find_rip(const struct vmcore_note *n, void *ctx)
{
	struct saved_rips *r = ctx;

	if (n->type == NT_PRSTATUS && n->descsz >= PRSTATUS_RIP + 8 &&
	    r->nr < r->max)
		memcpy(&r->rip[r->nr++], n->desc + PRSTATUS_RIP, 8);
	return 0;
}

static int vmcore_rips(const struct vmcore *vc, uint64_t *rip, int max)
{
	struct saved_rips r = { rip, 0, max };

	vmcore_notes(vc, find_rip, &r);
	return r.nr;
}

/*
 * Every CPU the crashed kernel stopped (each saved its registers: one
 * NT_PRSTATUS each; after a reboot, as many as this kernel has, booted
 * the same) froze its copy in the crash paths, but a CPU that the hard
 * lockup detector froze before (the panic then kept its copy).
 */
TEST_F(kdump, every_cpu_frozen)
{
	struct perf_hwtrace_header hdr;
	unsigned int cpu, frozen = 0;
	uint64_t rip[MAX_CPUS];
	uint8_t *trace;

	if (_metadata->skip)
		return;
	for (cpu = 0; cpu < self->c.nr_cpus; cpu++) {
		trace = read_copy(_metadata, &self->c, cpu, &hdr);
		if (!trace)
			continue;
		EXPECT_TRUE(hdr.flags & PERF_HWTRACE_FROZEN)
			TH_LOG("cpu %u: flags %#llx", cpu,
			       (unsigned long long)hdr.flags);
		/* Frozen once: at the crash, or at the lockup before it. */
		EXPECT_EQ(1, !!(hdr.flags & PERF_HWTRACE_CRASH) +
			     !!(hdr.flags & PERF_HWTRACE_LOCKUP))
			TH_LOG("cpu %u: flags %#llx", cpu,
			       (unsigned long long)hdr.flags);
		EXPECT_LT(0, hdr.size) TH_LOG("cpu %u: no trace", cpu);
		frozen++;
		free(trace);
	}
	EXPECT_EQ(!self->c.kdump ? sysconf(_SC_NPROCESSORS_ONLN) :
				vmcore_rips(&self->c.vc, rip, MAX_CPUS), frozen);
}

/*
 * A decoded flow: where its instructions were first in each of the
 * functions asked about, and where it took a fault at @fault_ip.
 */
#define NR_FN	4

struct crash_flow {
	struct ptsim_range	fn[NR_FN];
	uint64_t		first[NR_FN];	/* 1 + instruction index */
	uint64_t		fault_ip;
	uint64_t		fault;		/* 1 + instruction index */
	uint64_t		insns;
	int			error;		/* libipt's, after the first sync */
};

static void flow_event(const struct pt_event *ev, struct crash_flow *cf)
{
	if (ev->type == ptev_async_branch && !cf->fault &&
	    ev->variant.async_branch.from == cf->fault_ip)
		cf->fault = cf->insns + 1;
}

/* Decode @trace from its first PSB to its end or its first error. */
static void decode_crash_flow(const uint8_t *trace, size_t len,
			      struct pt_image *image, struct crash_flow *cf)
{
	struct pt_config config;
	struct pt_insn_decoder *dec;
	struct pt_insn insn;
	struct pt_event ev;
	int status, i;

	pt_config_init(&config);
	config.begin = (uint8_t *)trace;
	config.end = (uint8_t *)trace + len;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec) {
		cf->error = -pte_nomem;
		return;
	}
	pt_insn_set_image(dec, image);
	status = pt_insn_sync_forward(dec);
	while (status >= 0 && !(status & pts_eos)) {
		while (status >= 0 && (status & pts_event_pending)) {
			status = pt_insn_event(dec, &ev, sizeof(ev));
			if (status >= 0)
				flow_event(&ev, cf);
		}
		if (status < 0 || (status & pts_eos))
			break;
		status = pt_insn_next(dec, &insn, sizeof(insn));
		if (status < 0)
			break;
		cf->insns++;
		for (i = 0; i < NR_FN; i++)
			if (!cf->first[i] && ptsim_in_range(&cf->fn[i], insn.ip))
				cf->first[i] = cf->insns;
	}
	if (status < 0 && status != -pte_eos)
		cf->error = status;
	pt_insn_free_decoder(dec);
}

/* How far KASLR put the crashed kernel's text from the capture kernel's. */
static int crashed_kaslr(struct __test_metadata *_metadata,
			 const struct copies *c, uint64_t *kaslr)
{
	struct perf_hwtrace_header hdr;
	struct ptsim_range stext;
	unsigned int cpu;
	uint8_t *trace;

	if (kernel_func("_stext", 0, &stext))
		return -ENOENT;
	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		trace = read_copy(_metadata, c, cpu, &hdr);
		if (!trace)
			continue;
		free(trace);
		*kaslr = hdr.kernel_text - stext.start;
		return 0;
	}
	return -ENODATA;
}

/*
 * How the crash came, as HWTRACE_KDUMP_CRASH says (harness/check.sh):
 * "panic", sysrq's c: the flow goes through the function that
 * panicked, panic() and the crash shutdown, which froze it; "oops",
 * lkdtm's ACCESS_NULL with panic_on_oops: through the function that read
 * NULL, its fault at the RIP the crash saved (a page fault, or with KASAN
 * a general protection fault on its shadow), the oops and the report
 * whose die notifier froze it, before oops_end() went on to kdump;
 * "reboot", sysrq's c with no kdump kernel: through the function that
 * panicked, panic() and the recorder's panic notifier, which froze it,
 * before panic() reset the machine; "lockup", lkdtm's HARDLOCKUP with the
 * NMI watchdog and hardlockup_panic: through the function that spun with
 * interrupts off, and from the watchdog's NMI on that CPU into the
 * recorder, which froze it (flagged PERF_HWTRACE_LOCKUP), before
 * nmi_panic().  The first three functions in order; the flow must not
 * reach the fourth.  "softlockup", on ptsim: see tick_flow().
 */
enum crash_how {
	CRASH_PANIC, CRASH_OOPS, CRASH_REBOOT, CRASH_LOCKUP, CRASH_SOFTLOCKUP
};

static const char * const crash_names[] = {
	"panic", "oops", "reboot", "lockup", "softlockup"
};

static const char * const crash_fns[][NR_FN] = {
	[CRASH_PANIC] = { "sysrq_handle_crash", "panic",
			  "native_machine_crash_shutdown", "machine_kexec" },
	[CRASH_OOPS] = { "lkdtm_ACCESS_NULL", "oops_begin", "__die_body",
			 "oops_end" },
	[CRASH_REBOOT] = { "sysrq_handle_crash", "panic", "hwtrace_panic",
			   "emergency_restart" },
	[CRASH_LOCKUP] = { "lkdtm_HARDLOCKUP", "perf_hwtrace_lockup_cpu",
			   "hwtrace_take", "nmi_panic" },
};

/* The kernel's text as the crashed kernel ran it, into @kt. */
static int crashed_text(const struct copies *c, uint64_t kaslr,
			struct kernel_text *kt)
{
	struct ptsim_range text, etext;
	unsigned long long phys_base;
	uint64_t at;
	int ret;

	ret = kernel_func("_stext", kaslr, &text) ?:
	      kernel_func("_etext", kaslr, &etext);
	if (ret)
		return ret;
	kt->start = text.start;
	kt->size = etext.start - text.start;
	kt->bytes = malloc(kt->size);
	if (!kt->bytes)
		return -ENOMEM;
	/* After a reboot: this kernel's text, where it has it. */
	if (!c->kdump)
		return core_read(&c->vc, kt->start - kaslr, true, kt->bytes,
				 kt->size);
	ret = vmcore_number(&c->vc, "NUMBER(phys_base)=", 10, &phys_base);
	at = kt->start - KERNEL_MAP + phys_base;
	return ret ?: vmcore_read(&c->vc, at, kt->bytes, kt->size);
}

/*
 * The flow of an Intel PT copy of @c through @crash's functions, decoded
 * by libipt over the crashed kernel's text, moved @kaslr bytes from this
 * kernel's.
 */
static void branch_flow(struct __test_metadata *_metadata,
			const struct copies *c, enum crash_how crash,
			uint64_t kaslr)
{
	const char * const *names = crash_fns[crash];
	struct perf_hwtrace_header hdr;
	unsigned int cpu, found = 0;
	struct ptsim_range fn[NR_FN];
	uint64_t rip[MAX_CPUS], fault_ip = 0;
	struct crash_flow cf;
	struct kernel_text kt;
	struct pt_image *image;
	bool oops = crash == CRASH_OOPS;
	uint8_t *trace;
	int i, nr;

	for (i = 0; i < NR_FN; i++)
		ASSERT_EQ(0, kernel_func(names[i], kaslr, &fn[i]))
			TH_LOG("no %s in kallsyms", names[i]);
	/* The oops' RIP, as the crash saved it: in the function that faulted. */
	nr = vmcore_rips(&c->vc, rip, MAX_CPUS);
	for (i = 0; oops && i < nr; i++)
		if (ptsim_in_range(&fn[0], rip[i]))
			fault_ip = rip[i];
	if (oops)
		ASSERT_NE(0, fault_ip) TH_LOG("no saved RIP in %s", names[0]);

	ASSERT_EQ(0, crashed_text(c, kaslr, &kt));
	image = pt_image_alloc("crashed kernel");
	ASSERT_EQ(0, pt_image_set_callback(image, read_kernel_text, &kt));

	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		trace = read_copy(_metadata, c, cpu, &hdr);
		if (!trace)
			continue;
		EXPECT_STREQ("intel_pt", hdr.pmu);
		memset(&cf, 0, sizeof(cf));
		memcpy(cf.fn, fn, sizeof(fn));
		cf.fault_ip = fault_ip;
		decode_crash_flow(trace, hdr.size, image, &cf);
		free(trace);
		TH_LOG("cpu %u: %llu instructions; first in %s %llu, %s %llu, %s %llu, %s %llu; "
		       "fault at %#llx: %llu; %s", cpu, (unsigned long long)cf.insns,
		       names[0], (unsigned long long)cf.first[0],
		       names[1], (unsigned long long)cf.first[1],
		       names[2], (unsigned long long)cf.first[2],
		       names[3], (unsigned long long)cf.first[3],
		       (unsigned long long)fault_ip,
		       (unsigned long long)cf.fault,
		       cf.error ? pt_errstr(pt_errcode(cf.error)) : "no error");
		if (!cf.first[1])
			continue;
		found++;
		EXPECT_EQ(0, cf.error);
		EXPECT_LT(0, cf.first[0]);
		EXPECT_LT(cf.first[0], cf.first[1]);
		EXPECT_LT(cf.first[1], cf.first[2]);
		EXPECT_EQ(0, cf.first[3]);
		EXPECT_EQ(crash == CRASH_LOCKUP ? PERF_HWTRACE_LOCKUP : 0,
			  hdr.flags & PERF_HWTRACE_LOCKUP);
		if (oops) {
			EXPECT_LT(cf.first[0], cf.fault);
			EXPECT_GT(cf.first[1], cf.fault);
		}
	}
	EXPECT_EQ(1, found) TH_LOG("no CPU's trace went through %s", names[1]);
	pt_image_free(image);
	free(kt.bytes);
}

/*
 * "softlockup", on ptsim (hwtrace=ptsim,...,kernel): lkdtm's SOFTLOCKUP
 * spins with interrupts on and preemption off until the soft lockup
 * detector, from its timer's interrupt on that CPU, panics
 * (softlockup_panic); the panic and the crash shutdown run with
 * interrupts off, so no tick comes after.  Each ptsim record holds the IP
 * its tick interrupted: the stuck CPU's copy is that spin to its end,
 * records numbered without a gap, most of them in lkdtm_SOFTLOCKUP (a
 * tick may land in an interrupt's softirq), and so is one of the last
 * TICK_TAIL.  No other CPU has a record there.
 */
#define TICK_TAIL	4

static void tick_flow(struct __test_metadata *_metadata,
		      const struct copies *c, uint64_t kaslr)
{
	struct perf_hwtrace_header hdr;
	unsigned int cpu, found = 0;
	struct ptsim_stream s;
	struct ptsim_trace t;
	struct ptsim_range fn;
	size_t i, in, last;
	uint8_t *trace;
	long gap;

	ASSERT_EQ(0, kernel_func("lkdtm_SOFTLOCKUP", kaslr, &fn));
	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		trace = read_copy(_metadata, c, cpu, &hdr);
		if (!trace)
			continue;
		EXPECT_STREQ("ptsim", hdr.pmu);
		memset(&s, 0, sizeof(s));
		ptsim_stream_add(&s, trace, hdr.size, 0);
		free(trace);
		EXPECT_EQ(0, ptsim_decode(&s, &t)) TH_LOG("cpu %u: %s", cpu, t.error);
		/* One chunk without loss flags: any jump is a hole. */
		gap = ptsim_unreported_gap(&s, &t);
		EXPECT_EQ(-1, gap) TH_LOG("cpu %u: a gap before record %ld", cpu, gap);
		for (i = 0, in = 0, last = 0; i < t.nr; i++) {
			if (ptsim_in_range(&fn, t.rec[i].ip)) {
				in++;
				last = i + 1;
			}
		}
		TH_LOG("cpu %u: %zu records, %zu in lkdtm_SOFTLOCKUP, the last %zu from the end",
		       cpu, t.nr, in, t.nr - last);
		if (in) {
			found++;
			EXPECT_LT(t.nr / 2, in);
			EXPECT_GT(TICK_TAIL, t.nr - last);
		}
		ptsim_trace_free(&t);
		ptsim_stream_free(&s);
	}
	EXPECT_EQ(1, found)
		TH_LOG("%u CPUs have records in lkdtm_SOFTLOCKUP", found);
}

/* libipt under TCG decodes some 100,000 instructions a second. */
TEST_F_TIMEOUT(kdump, crash_flow, 900)
{
	const char *how = getenv("HWTRACE_KDUMP_CRASH");
	enum crash_how crash;
	uint64_t kaslr;
	int i;

	if (_metadata->skip)
		return;
	for (i = 0; how && i < ARRAY_SIZE(crash_names); i++)
		if (!strcmp(how, crash_names[i]))
			break;
	ASSERT_TRUE(how && i < ARRAY_SIZE(crash_names))
		TH_LOG("HWTRACE_KDUMP_CRASH must say panic, oops, reboot, lockup or softlockup");
	crash = i;
	ASSERT_EQ(self->c.kdump, crash != CRASH_REBOOT)
		TH_LOG("kdump's crash is read in its capture kernel");
	ASSERT_EQ(0, crashed_kaslr(_metadata, &self->c, &kaslr));
	if (crash == CRASH_SOFTLOCKUP)
		tick_flow(_metadata, &self->c, kaslr);
	else
		branch_flow(_metadata, &self->c, crash, kaslr);
}

TEST_HARNESS_MAIN
