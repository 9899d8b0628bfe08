/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program whose user-mode instruction and branch counts are known:
 * one instruction, LOOPS iterations of dec/jnz, three more (the last,
 * syscall, ends it): 2 * LOOPS + 4 instructions retired, LOOPS + 1
 * branches (the jnz's, taken or not, and the syscall).  With PAUSE, a
 * pause in each iteration too: 3 * LOOPS + 4 instructions.
 * Static, no libc: nothing else runs in user mode.
 */
#ifndef LOOPS
#define LOOPS 1000000
#endif
	.globl _start
_start:
	mov	$LOOPS, %ecx
1:	dec	%ecx
#ifdef PAUSE
	pause
#endif
	jnz	1b
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall
