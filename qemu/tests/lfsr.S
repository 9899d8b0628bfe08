/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program whose flow never repeats for long: LOOPS times, a step of a
 * 31-bit Galois LFSR of maximal period (x^31 + x^28 + 1), then a call to
 * one or to zero by the bit it shifted out.  No 31 steps in a row call the
 * same sequence as any other 31 of the run, so a piece of its flow tells
 * where in the run it lies (pt.sh lays -A samples' flow on a full
 * trace's).  With MIGRATE, it moves itself to the other of CPUs 0 and 1
 * every 16384 steps, at migrate (a place for a probe).  Static, no libc: nothing else runs in user mode.
 */
#ifndef LOOPS
#define LOOPS 200000
#endif
	.globl	_start, one, zero
_start:
	mov	$LOOPS, %ecx
	mov	$1, %eax
1:	shr	%eax
	jnc	2f
	xor	$0x48000000, %eax
	call	one
	jmp	3f
2:	call	zero
3:
#ifdef MIGRATE
	/* Every 16384 steps, to the other CPU: sched_setaffinity(0, 8, &mask) */
	test	$0x3fff, %ecx
	jnz	4f
	.globl	migrate
	.type	migrate, @function
migrate:
	push	%rax
	push	%rcx
	mov	%ecx, %edx
	shr	$14, %edx
	and	$1, %edx
	inc	%edx
	push	%rdx
	mov	$203, %eax
	xor	%edi, %edi
	mov	$8, %esi
	mov	%rsp, %rdx
	syscall
	pop	%rdx
	pop	%rcx
	pop	%rax
4:
#endif
	dec	%ecx
	jnz	1b
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall

	.type	one, @function
one:	ret
	.size	one, . - one

	.type	zero, @function
zero:	ret
	.size	zero, . - zero
