/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A static arm64 program that crashes at a known instruction: LOOPS
 * iterations of a loop that calls ct_step() (more trace than a small core
 * trace buffer keeps), then ct_call_a() calls ct_call_b(), which calls
 * ct_crash(), whose store to address 0 (ct_fault) faults: SIGSEGV.
 */
#ifndef LOOPS
#define LOOPS	20000
#endif

	.globl	_start, ct_step, ct_call_a, ct_call_b, ct_crash, ct_fault
_start:
	ldr	x19, =LOOPS
1:	bl	ct_step
	subs	x19, x19, #1
	b.ne	1b
	bl	ct_call_a
	mov	x0, #0
	mov	x8, #93			/* exit, if the store did not fault */
	svc	#0

ct_step:
	add	x20, x20, #1
	ret

ct_call_a:
	stp	x29, x30, [sp, #-16]!
	bl	ct_call_b
	ldp	x29, x30, [sp], #16
	ret

ct_call_b:
	stp	x29, x30, [sp, #-16]!
	bl	ct_crash
	ldp	x29, x30, [sp], #16
	ret

ct_crash:
	mov	x0, #0
ct_fault:
	str	x20, [x0]
	ret
