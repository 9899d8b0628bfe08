/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program for Intel PT's address ranges: LOOPS times, a call to f and
 * a call to h, which leaves its own range by a taken jnz (to h_odd) when
 * ECX is odd and by its ret when it is even; then a call to g.  pt.sh
 * filters on f and h (two ranges) and stops the trace at g.  Static, no
 * libc: nothing else runs in user mode.
 */
#ifndef LOOPS
#define LOOPS 1000
#endif
	.globl	_start, f, h, h_odd, g
_start:
	mov	$LOOPS, %ecx
1:	call	f
	call	h
	dec	%ecx
	jnz	1b
	call	g
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall

	.type	f, @function
f:	nop
	ret
	.size	f, . - f

	.type	h, @function
h:	test	$1, %cl
	jnz	h_odd
	ret
	.size	h, . - h

	.type	h_odd, @function
h_odd:	ret
	.size	h_odd, . - h_odd

	.type	g, @function
g:	nop
	ret
	.size	g, . - g
