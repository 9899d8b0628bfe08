/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lfsr.S for arm64: a program whose flow never repeats for long.  LOOPS
 * times, a step of a 31-bit Galois LFSR of maximal period (x^31 + x^28 +
 * 1), then a call to one or to zero by the bit it shifted out, so that a
 * piece of its flow tells where in the run it lies (cs_etm.sh lays -A
 * samples' flow on a full trace's).  Every STRIDE steps, and once more
 * before it exits, it writes to a page it has not touched: a page fault
 * at known points of its flow, for a sampler that does not depend on
 * time.  Static, no libc.
 */
#define LOOPS	50000
#define STRIDE	2048
#define PAGE	4096

	.globl	_start, one, zero
_start:
	ldr	w1, =LOOPS
	mov	w0, #1
	mov	w2, #0x48000000
	adrp	x3, pages
1:	tst	w1, #STRIDE - 1
	b.ne	4f
	strb	w0, [x3]
	add	x3, x3, #PAGE
4:	tst	w0, #1
	lsr	w0, w0, #1
	b.eq	2f
	eor	w0, w0, w2
	bl	one
	b	3f
2:	bl	zero
3:	subs	w1, w1, #1
	b.ne	1b
	strb	w0, [x3]
	mov	x0, #0
	mov	x8, #93			/* exit */
	svc	#0

	.type	one, @function
one:	ret
	.size	one, . - one

	.type	zero, @function
zero:	ret
	.size	zero, . - zero

	.bss
	.balign	PAGE
pages:	.skip	PAGE * (LOOPS / STRIDE + 2)
