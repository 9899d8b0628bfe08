/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two loops, of LOOPS1 and LOOPS2 iterations, with a read of a byte from
 * stdin between them: a test holds the program between its two phases
 * until it writes to the pipe.  With -DTRIGGER, a sched_yield(2) at the
 * label trigger comes before the read: a tracepoint a test can watch for
 * that nothing else in its guest calls.  Static, no libc.
 */
	.globl _start
_start:
	mov	$LOOPS1, %ecx
1:	dec	%ecx
	jnz	1b
#ifdef TRIGGER
	mov	$24, %eax	/* sched_yield() */
	.globl trigger
trigger:
	syscall
#endif
	sub	$8, %rsp	/* read(0, rsp, 1) */
	xor	%eax, %eax
	xor	%edi, %edi
	mov	%rsp, %rsi
	mov	$1, %edx
	syscall
	mov	$LOOPS2, %ecx	/* the system call clobbered rcx */
2:	dec	%ecx
	jnz	2b
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall
