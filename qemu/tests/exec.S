/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two programs that exec one into the other, with different code at the
 * same addresses (static, no libc, text at 0x401000 in both): "exec_a
 * exec_b" calls before() LOOPS times, then execs exec_b, which calls
 * after() LOOPS times and exits.  A decoder that walks exec_a's trace over
 * exec_b's code, or the other way round, goes wrong at once.
 */
#ifndef LOOPS
#define LOOPS 20000
#endif
	.globl _start
_start:
	mov	$LOOPS, %ebx
#ifdef AFTER
1:	call	after
	dec	%ebx
	jnz	1b
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall
after:
	ret
#else
	nop
1:	call	before
	dec	%ebx
	jnz	1b
	mov	16(%rsp), %rdi	/* execve(argv[1], &argv[1], NULL) */
	lea	16(%rsp), %rsi
	xor	%edx, %edx
	mov	$59, %eax
	syscall
	mov	$60, %eax	/* exit(1) if that failed */
	mov	$1, %edi
	syscall
before:
	nop
	ret
#endif
