/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bare-metal program for QEMU's virt board (-cpu max, EL1, MMU off)
 * that traces itself with the emulated ETE into the emulated TRBE and
 * writes what it got through semihosting:
 *   trace.bin  the trace buffer, TRBBASER_EL1 to TRBPTR_EL1
 *   regs.bin   TRCIDR0-2, TRCIDR8-13, TRCCONFIGR, TRCTRACEIDR,
 *              TRCDEVARCH, TRBSR_EL1, TRCSTATR, TRBPTR_EL1's offset in
 *              the buffer and GICD_ISPENDR0, 8 bytes each
 * The buffer is TBUF_SIZE bytes, in fill mode: the whole of it is written
 * out if it filled (TRBSR_EL1.WRAP).  LOOPS sets the first loop's count.
 * Built with -DEMPTY_BUFFER, the buffer's limit is its base, in wrap
 * mode (CONSTRAINED UNPREDICTABLE: QEMU stops collection, full, at once).
 * Built with -DSTART_IRQ, the buffer starts stopped, and collection
 * starts (at collection_on) with the TRBE's interrupt asserted and
 * unmasked: it is taken before traced_begin runs, where a start is due.
 * Built with -DCPU_RESET (for -smp 2), it traces nothing, but exits with
 * whether CPU 0's TRBE interrupt is still pending after CPU 0's reset
 * (cpu_reset below).
 * Built with -DEL0_ONLY, TRFCR_EL1 traces EL0 alone (the EL1 handlers
 * are a gap, each exception and return seen from EL0) and without
 * timestamps, else EL0 and EL1 with them.
 *
 * What runs while tracing: a counted loop (B.NE), CBZ/CBNZ/TBZ/TBNZ both
 * ways, BL/RET, BLR and BR through a table, a data abort, WFI and the
 * timer's IRQ, SVC, UDF (an undefined instruction trap), ERET to EL0, a
 * WFI there that traps (SCTLR_EL1.nTWI clear) and an SVC back, all
 * between the labels traced_begin and traced_end, which ete.sh checks
 * the decode against.
 */

#define TRCPRGCTLR	s2_1_c0_c1_0
#define TRCSTATR	s2_1_c0_c3_0
#define TRCCONFIGR	s2_1_c0_c4_0
#define TRCSYNCPR	s2_1_c0_c13_0
#define TRCTRACEIDR	s2_1_c0_c0_1
#define TRCVICTLR	s2_1_c0_c0_2
#define TRCIDR0		s2_1_c0_c8_7
#define TRCIDR1		s2_1_c0_c9_7
#define TRCIDR2		s2_1_c0_c10_7
#define TRCIDR8		s2_1_c0_c0_6
#define TRCIDR9		s2_1_c0_c1_6
#define TRCIDR10	s2_1_c0_c2_6
#define TRCIDR11	s2_1_c0_c3_6
#define TRCIDR12	s2_1_c0_c4_6
#define TRCIDR13	s2_1_c0_c5_6
#define TRCOSLAR	s2_1_c1_c0_4
#define TRCDEVARCH	s2_1_c7_c15_6
#define TRFCR_EL1	s3_0_c1_c2_1
#define TRBLIMITR_EL1	s3_0_c9_c11_0
#define TRBPTR_EL1	s3_0_c9_c11_1
#define TRBBASER_EL1	s3_0_c9_c11_2
#define TRBSR_EL1	s3_0_c9_c11_3

#define GICD		0x08000000	/* the virt board's GICv2 */
#define GICC		0x08010000
#define TIMER_INTID	27		/* the EL1 virtual timer's PPI */
#define TRBE_INTID	21		/* the TRBE's PPI */

#define SYS_OPEN	0x01
#define SYS_CLOSE	0x02
#define SYS_WRITE	0x05
#define SYS_EXIT	0x18

	.macro semihost op
	mov	w0, #\op
	hlt	#0xf000
	.endm

	/* Enable the GIC with PPI \intid unmasked (clobbers x1, w2) */
	.macro gic_enable intid
	ldr	x1, =GICD
	mov	w2, #1
	str	w2, [x1]			/* GICD_CTLR */
	mov	w2, #(1 << \intid)
	str	w2, [x1, #0x100]		/* GICD_ISENABLER0 */
	ldr	x1, =GICC
	mov	w2, #0xff
	str	w2, [x1, #4]			/* GICC_PMR */
	mov	w2, #1
	str	w2, [x1]			/* GICC_CTLR */
	.endm

	.text
	.globl	_start
_start:
	ldr	x0, =stack_top
	mov	sp, x0
#ifdef CPU_RESET
	b	cpu_reset
#endif
	adr	x0, vectors
	msr	vbar_el1, x0
	mrs	x0, sctlr_el1
	bic	x0, x0, #(1 << 16)	/* nTWI: WFI at EL0 traps */
	msr	sctlr_el1, x0

	/* The trace buffer: fill mode, enabled */
	ldr	x0, =tbuf
	msr	TRBBASER_EL1, x0
	msr	TRBPTR_EL1, x0
#ifdef EMPTY_BUFFER
	orr	x0, x0, #(1 << 1 | 1)	/* wrap mode, LIMIT the base */
#else
	add	x0, x0, #TBUF_SIZE
	orr	x0, x0, #1
#endif
	msr	TRBLIMITR_EL1, x0
#ifdef START_IRQ
	mov	x0, #(1 << 17)		/* S: collection stopped */
	msr	TRBSR_EL1, x0
	gic_enable TRBE_INTID
#else
	msr	TRBSR_EL1, xzr
#endif

	/* The trace unit: unlocked, ViewInst on TRUE, A-sync every 256 bytes */
#ifdef EL0_ONLY
	mov	x0, #1
#else
	mov	x0, #3
#endif
	msr	TRFCR_EL1, x0
	msr	TRCOSLAR, xzr
#ifdef EL0_ONLY
	mov	x0, #(1 << 6)		/* CID */
#else
	mov	x0, #(1 << 6 | 1 << 11)	/* CID, TS */
#endif
	msr	TRCCONFIGR, x0
	mov	x0, #0x10
	msr	TRCTRACEIDR, x0
	mov	x0, #8
	msr	TRCSYNCPR, x0
	mov	x0, #1
	msr	TRCVICTLR, x0
	mov	x0, #0x42
	msr	contextidr_el1, x0
	mov	x0, #1
	msr	TRCPRGCTLR, x0
#ifdef START_IRQ
	isb
	msr	daifclr, #2
	mov	x0, #(1 << 22)		/* IRQ, and S clear: collecting */
collection_on:
	msr	TRBSR_EL1, x0
#endif
traced_begin:				/* the first instruction traced */
	isb
	bl	work
	svc	#1
	udf	#7
	bl	to_el0
	isb
traced_end:
	msr	TRCPRGCTLR, xzr
1:	mrs	x0, TRCSTATR
	tbz	x0, #0, 1b
	msr	TRBLIMITR_EL1, xzr
	isb

	/* What the hardware says about itself */
	adr	x1, regs
	mrs	x0, TRCIDR0
	mrs	x2, TRCIDR1
	mrs	x3, TRCIDR2
	stp	x0, x2, [x1], #16
	mrs	x0, TRCIDR8
	stp	x3, x0, [x1], #16
	mrs	x0, TRCIDR9
	mrs	x2, TRCIDR10
	stp	x0, x2, [x1], #16
	mrs	x0, TRCIDR11
	mrs	x2, TRCIDR12
	stp	x0, x2, [x1], #16
	mrs	x0, TRCIDR13
	mrs	x2, TRCCONFIGR
	stp	x0, x2, [x1], #16
	mrs	x0, TRCTRACEIDR
	mrs	x2, TRCDEVARCH
	stp	x0, x2, [x1], #16
	mrs	x0, TRBSR_EL1
	mrs	x2, TRCSTATR
	stp	x0, x2, [x1], #16
	ldr	x20, =tbuf
	mrs	x21, TRBPTR_EL1
	sub	x21, x21, x20
	ldr	x2, =GICD
	ldr	w2, [x2, #0x200]		/* GICD_ISPENDR0 */
	stp	x21, x2, [x1], #16

	mrs	x0, TRBSR_EL1
	tbz	x0, #20, 1f			/* TRBSR_EL1.WRAP: it filled */
	mov	x21, #TBUF_SIZE
1:	adr	x19, name_trace
	bl	write_file
	adr	x19, name_regs
	adr	x20, regs
	mov	x21, #(16 * 8)
	bl	write_file
	adr	x1, exit_block
	semihost SYS_EXIT
	b	.

/* write_file: x19 name, x20 buffer, x21 length; through semihosting */
write_file:
	adr	x1, params
	str	x19, [x1]
	mov	x0, #5			/* "wb" */
	str	x0, [x1, #8]
	mov	x0, x19
1:	ldrb	w2, [x0], #1
	cbnz	w2, 1b
	sub	x0, x0, x19
	sub	x0, x0, #1
	str	x0, [x1, #16]
	semihost SYS_OPEN
	mov	x22, x0
	adr	x1, params
	stp	x22, x20, [x1]
	str	x21, [x1, #16]
	semihost SYS_WRITE
	adr	x1, params
	str	x22, [x1]
	semihost SYS_CLOSE
	ret

/* The traced work: every kind of direct and indirect branch */
work:
	stp	x29, x30, [sp, #-16]!
	mov	x0, #LOOPS
1:	subs	x0, x0, #1
	b.ne	1b
	mov	x1, #0
	cbz	x1, 2f
	nop
2:	cbnz	x1, 3f
	mov	x1, #4
	tbz	x1, #2, 3f
	tbnz	x1, #2, 3f
	nop
3:	bl	leaf
	adr	x2, leaf
	blr	x2
	adr	x3, table
	mov	x4, #0
4:	ldr	x5, [x3, x4, lsl #3]
	br	x5
back:	add	x4, x4, #1
	cmp	x4, #3
	b.lo	4b

	/* A data abort: a load from where there is no memory */
	mov	x1, #(1 << 32)
	ldr	x2, [x1]

	/*
	 * WFI until the virtual timer's interrupt is pending (masked, so
	 * it is taken exactly where it is unmasked, after the MSR)
	 */
	gic_enable TIMER_INTID
	mov	x2, #1000
	msr	cntv_tval_el0, x2
	mov	x2, #1
	msr	cntv_ctl_el0, x2
	wfi
	msr	daifclr, #2
	msr	daifset, #2
	ldp	x29, x30, [sp], #16
	ret

leaf:
	add	x6, x6, #1
	ret

case0:	b	back
case1:	nop
	b	back
case2:	nop
	nop
	b	back

	.balign	8
table:	.quad	case0, case1, case2

/* ERET to EL0 at user, which calls SVC #9 to come back here */
to_el0:
	adr	x0, user
	msr	elr_el1, x0
	msr	spsr_el1, xzr		/* EL0t, interrupts unmasked */
	ldr	x0, =user_stack_top
	msr	sp_el0, x0
	mov	x7, x30
	eret
el0_back:
	mov	x30, x7
	ret

user:
	mov	x0, #3
1:	subs	x0, x0, #1
	b.ne	1b
	wfi			/* traps, and returns past itself */
	svc	#9
	b	.		/* the SVC handler does not return here */

/*
 * Exceptions to EL1: SVC #9 from EL0 goes back to el0_back at EL1, any
 * other SVC returns past it, as does a UDF, a trapped WFI or a data
 * abort.
 */
sync_handler:
	mrs	x9, esr_el1
	lsr	x10, x9, #26
	cmp	x10, #0x15		/* SVC from AArch64 */
	b.ne	skip
	and	x11, x9, #0xffff
	cmp	x11, #9
	b.ne	done
	mov	x9, #(5 << 0)		/* EL1h */
	msr	spsr_el1, x9
	adr	x9, el0_back
	msr	elr_el1, x9
	eret
skip:	mrs	x9, elr_el1
	add	x9, x9, #4
	msr	elr_el1, x9
done:	eret

/*
 * The timer's interrupt: acknowledged, the timer off, ended.  The TRBE's
 * (START_IRQ): its event cleared, and IRQs masked again on the return.
 */
irq_handler:
	ldr	x9, =GICC
	ldr	w10, [x9, #0xc]		/* GICC_IAR */
#ifdef START_IRQ
	cmp	w10, #TRBE_INTID
	b.ne	1f
	msr	TRBSR_EL1, xzr
	mrs	x11, spsr_el1
	orr	x11, x11, #(1 << 7)
	msr	spsr_el1, x11
	b	2f
#endif
1:	msr	cntv_ctl_el0, xzr
2:	str	w10, [x9, #0x10]	/* GICC_EOIR */
	eret

#ifdef CPU_RESET
#define PSCI_CPU_OFF	0x84000002
#define PSCI_CPU_ON	0xc4000003	/* SMC64 */
/*
 * A CPU's reset lowers its TRBE's interrupt: CPU 0 asserts it
 * (TRBSR_EL1.IRQ) and powers itself off, CPU 1 powers it on again (PSCI
 * through HVC, the virt board's conduit without EL2 and EL3: CPU_ON
 * resets the CPU, not the GIC), and CPU 0 exits with the PPI's pending
 * bit in GICD_ISPENDR0 (banked per CPU): 0 if the reset lowered it.
 */
cpu_reset:
	mov	x0, #(1 << 22)
	msr	TRBSR_EL1, x0
	ldr	x0, =PSCI_CPU_ON
	mov	x1, #1
	adr	x2, 1f
	mov	x3, #0
	hvc	#0
	ldr	x0, =PSCI_CPU_OFF
	hvc	#0
	b	.
1:	ldr	x0, =PSCI_CPU_ON	/* CPU 1: until CPU 0 is off */
	mov	x1, #0
	adr	x2, 2f
	mov	x3, #0
	hvc	#0
	cbnz	x0, 1b
	b	.
2:	ldr	x1, =GICD
	ldr	w2, [x1, #0x200]		/* GICD_ISPENDR0 */
	ubfx	x2, x2, #TRBE_INTID, #1
	adr	x1, exit_block
	str	x2, [x1, #8]
	semihost SYS_EXIT
	b	.
#endif

	.balign	2048
vectors:
	.rept	4			/* current EL, SP0 */
	b	.
	.balign	128
	.endr
	b	sync_handler		/* current EL, SPx: synchronous */
	.balign	128
	b	irq_handler		/* current EL, SPx: IRQ */
	.balign	128
	.rept	2
	b	.
	.balign	128
	.endr
	b	sync_handler		/* lower EL, AArch64: synchronous */
	.balign	128
	.rept	3
	b	.
	.balign	128
	.endr

	.data
name_trace:	.asciz	"trace.bin"
name_regs:	.asciz	"regs.bin"
	.balign	8
exit_block:	.quad	0x20026, 0	/* ADP_Stopped_ApplicationExit, 0 */
params:		.quad	0, 0, 0
regs:		.skip	16 * 8

	.bss
	.balign	4096
tbuf:		.skip	TBUF_SIZE
		.skip	4096
stack_top:
		.skip	4096
user_stack_top:
