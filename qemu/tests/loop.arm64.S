/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A static arm64 program of known control flow: LOOPS iterations of a
 * counted loop (its B.NE, loop_branch, taken LOOPS - 1 times back to
 * loop_top, then not), then exit(0).  2 * LOOPS + 4 instructions.
 */
#ifndef LOOPS
#define LOOPS	10000
#endif

	.globl	_start, loop_top, loop_branch
_start:
	ldr	x0, =LOOPS
loop_top:
	subs	x0, x0, #1
loop_branch:
	b.ne	loop_top
	mov	x0, #0
	mov	x8, #93			/* exit */
	svc	#0
