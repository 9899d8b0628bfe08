// SPDX-License-Identifier: GPL-2.0
/*
 * ptsim: Intel PT packet encoders and the writer into AUX pages.
 *
 * Packet layouts follow the Intel SDM, Vol. 3C, "Intel Processor Trace":
 * multi-byte payloads are little endian, and the 0x02 opcode prefixes the
 * extended packets (PSB, PSBEND, CBR, PTW).
 *
 * Nothing here takes locks or sleeps; the functions are called from the
 * hrtimer callback (hard IRQ) of the event that holds the AUX handle.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>

#include <asm/unaligned.h>

#include "ptsim.h"

#define PT_OPC_EXT		0x02	/* extended opcode prefix */
#define PT_EXT_PSB		0x82	/* PSB: 02 82, repeated 8 times */
#define PT_EXT_PSBEND		0x23
#define PT_EXT_CBR		0x03
#define PT_EXT_PTW		0x12
#define PT_PTW_PLC_8		BIT(5)		/* PayloadBytes 01b: 8 bytes */
#define PT_PTW_IP		BIT(7)		/* a FUP follows */
#define PT_OPC_TSC		0x19
#define PT_OPC_MODE		0x99
#define PT_MODE_EXEC_CSL	BIT(0)		/* 64-bit code segment */
#define PT_MODE_EXEC_CSD	BIT(1)		/* 32-bit default size */
#define PT_OPC_FUP		0x1d
#define PT_IPC_FULL		(6 << 5)	/* IPBytes 110b: 8 byte IP */

#define PT_PSB_REPEAT		8
#define PT_TSC_BYTES		7

/* Core:bus ratio reported by CBR; any fixed value does. */
#define PTSIM_CBR		0x20

/**
 * ptsim_encode_psb_plus() - encode a PSB+ sequence
 * @p:		Output, at least PTSIM_PSB_PLUS_LEN bytes.
 * @tsc:	Time stamp for the TSC packet; only its low 56 bits are kept.
 *
 * A PSB+ made of PSB, TSC, CBR, MODE.Exec and PSBEND.  A real unit would
 * also put a FUP with the current IP inside PSB+ when PacketEn=1, but with
 * BranchEn=0 PacketEn stays 0 (there is no TIP.PGE), so there is no FUP in
 * PSB+; the IP is only given by the FUP that follows each PTW.
 *
 * Return: number of bytes written, PTSIM_PSB_PLUS_LEN.
 */
size_t ptsim_encode_psb_plus(u8 *p, u64 tsc)
{
	u8 *start = p;
	int i;

	for (i = 0; i < PT_PSB_REPEAT; i++) {
		*p++ = PT_OPC_EXT;
		*p++ = PT_EXT_PSB;
	}

	*p++ = PT_OPC_TSC;
	for (i = 0; i < PT_TSC_BYTES; i++, tsc >>= 8)
		*p++ = tsc & 0xff;

	*p++ = PT_OPC_EXT;
	*p++ = PT_EXT_CBR;
	*p++ = PTSIM_CBR;
	*p++ = 0;

	*p++ = PT_OPC_MODE;
	*p++ = IS_ENABLED(CONFIG_64BIT) ? PT_MODE_EXEC_CSL : PT_MODE_EXEC_CSD;

	*p++ = PT_OPC_EXT;
	*p++ = PT_EXT_PSBEND;

	return p - start;
}

/**
 * ptsim_encode_record() - encode one ptsim record
 * @p:		Output, at least PTSIM_RECORD_LEN bytes.
 * @seq:	Sequence number, the PTW payload.
 * @ip:		Instruction pointer of the interrupted context, the FUP IP.
 *
 * A record is what a PTWRITE of @seq at @ip produces with PTWEn=1 and
 * FUPonPTW=1: a PTW packet with an 8 byte payload and its IP bit set,
 * followed by a FUP packet that carries the full 8 byte IP.
 *
 * Return: number of bytes written, PTSIM_RECORD_LEN.
 */
size_t ptsim_encode_record(u8 *p, u64 seq, u64 ip)
{
	p[0] = PT_OPC_EXT;
	p[1] = PT_EXT_PTW | PT_PTW_PLC_8 | PT_PTW_IP;
	put_unaligned_le64(seq, &p[2]);
	p[10] = PT_OPC_FUP | PT_IPC_FULL;
	put_unaligned_le64(ip, &p[11]);

	return PTSIM_RECORD_LEN;
}

/**
 * ptsim_buf_write() - copy bytes into an AUX buffer
 * @buf:	The buffer.
 * @pos:	Absolute AUX offset of the first byte; wraps at @buf->size.
 * @data:	Bytes to copy.
 * @len:	Number of bytes, at most @buf->size.
 *
 * The AUX pages need not be contiguous, so the copy goes page by page.  The
 * caller must hold the AUX handle of @buf, which keeps the pages allocated
 * and makes it the only writer.
 */
void ptsim_buf_write(struct ptsim_buf *buf, unsigned long pos,
		     const void *data, size_t len)
{
	while (len) {
		unsigned long off = pos & (buf->size - 1);
		size_t n = min_t(size_t, len, PAGE_SIZE - offset_in_page(off));

		memcpy(buf->pages[off >> PAGE_SHIFT] + offset_in_page(off),
		       data, n);
		pos += n;
		data += n;
		len -= n;
	}
}
