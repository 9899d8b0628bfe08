/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PTWRITEs of known payloads: 8 bytes from a register at 0x40100a, 4 from
 * memory at 0x401017, then exit.  Static, no libc.
 */
	.globl _start
_start:
	movabs	$0x1122334455667788, %rax
	ptwriteq %rax
	movl	$0xcafef00d, -4(%rsp)
	ptwritel -4(%rsp)
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall
