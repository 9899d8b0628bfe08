#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ete.sh BUILD: what TCG's ETE writes into its TRBE is what the CPU
# executed, told by a decoder this project did not write: ete.S, a
# bare-metal program on the virt board, traces itself (branches of every
# kind, a data abort, WFI and an IRQ, SVC, an undefined instruction, ERET
# to EL0, a WFI that traps and back) and writes
# its trace buffer and the ETE's ID registers out by semihosting; Debian's
# OpenCSD (trc_pkt_lister, from a snapshot made of those registers and the
# program's image) decodes it, and etecmp.py matches the instructions
# against QEMU's own log of what it ran.  Once with EL0 and EL1 traced,
# once with EL0 alone (TRFCR_EL1), where each exception leaves a gap, and
# once with EL0 and EL1 under -icount, once where an interrupt comes as
# collection starts; and a buffer that fills, one with no room, and a
# CPU reset with the TRBE's interrupt asserted.
# Runs on the host, with BUILD/qemu/qemu-system-aarch64.  TAP.
. "$(dirname "$0")/lib/tap.sh"
qemu=$(cd "$1" && pwd)/qemu/qemu-system-aarch64
load=0x40080000

# ete.S as $tmp/MODE/ete.elf, its text as ete.bin, its symbols as ete.sym
build() {	# MODE [CPPFLAGS]
	d=$tmp/$1
	mkdir -p "$d" &&
	cpp -P -DTBUF_SIZE=65536 -DLOOPS=300 ${2:-} "$here/ete.S" > "$d/ete.s" &&
	aarch64-linux-gnu-as -o "$d/ete.o" "$d/ete.s" &&
	aarch64-linux-gnu-ld -Ttext=$load -e _start -o "$d/ete.elf" "$d/ete.o" &&
	aarch64-linux-gnu-objcopy -O binary -j .text "$d/ete.elf" "$d/ete.bin" &&
	aarch64-linux-gnu-nm "$d/ete.elf" > "$d/ete.sym"
}

# Run it in DIR (semihosting writes trace.bin and regs.bin there)
run() {		# DIR [QEMU_ARGS...]
	dir=$1
	shift
	(cd "$dir" && timeout 60 "$qemu" -M virt,gic-version=2 -cpu max -m 256 \
		-display none -monitor none -serial none -nic none \
		-semihosting-config enable=on,target=native \
		-kernel ete.elf "$@")
}

# regs.bin's 8-byte words, in order, as hex
reg() {		# FILE INDEX
	od -An -tx8 -j $(($2 * 8)) -N 8 "$1" | tr -d ' '
}

# The snapshot trc_pkt_lister reads: the core's image, the ETE's
# registers as the program read them, the trace as raw TRBE data.
snapshot() {	# DIR
	d=$1
	s=$d/snapshot
	mkdir -p "$s"
	cp "$d/ete.bin" "$d/trace.bin" "$s/"
	printf '[snapshot]\nversion=1.0\n\n[device_list]\ndevice0=cpu_0.ini\ndevice1=ete_0.ini\n\n[trace]\nmetadata=trace.ini\n' > "$s/snapshot.ini"
	printf '[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=trbe0\nfile=trace.bin\nformat=source_data\n\n[source_buffers]\nete_0=trbe0\n\n[core_trace_sources]\ncpu_0=ete_0\n' > "$s/trace.ini"
	printf '[device]\nname=cpu_0\nclass=core\ntype=ARM-AA64\n\n[regs]\nPC(size:64)=%s\n\n[dump1]\nfile=ete.bin\naddress=%s\nlength=0x%x\n' \
		$load $load "$(stat -c %s "$d/ete.bin")" > "$s/cpu_0.ini"
	r=$d/regs.bin
	printf '[device]\nname=ete_0\nclass=trace_source\ntype=ETE\n\n[regs]\n' > "$s/ete_0.ini"
	printf 'TRCIDR0=0x%s\nTRCIDR1=0x%s\nTRCIDR2=0x%s\nTRCIDR8=0x%s\nTRCCONFIGR=0x%s\nTRCTRACEIDR=0x%s\nTRCDEVARCH=0x%s\n' \
		"$(reg "$r" 0)" "$(reg "$r" 1)" "$(reg "$r" 2)" "$(reg "$r" 3)" \
		"$(reg "$r" 9)" "$(reg "$r" 10)" "$(reg "$r" 11)" >> "$s/ete_0.ini"
}

# The same program twice: its trace as it runs normally, and QEMU's log
# of every instruction it executed (one per block); both traces must be
# the same bytes but for timestamps (when TS is on: not in el0 mode).
# TRBSR_EL1 must be as given, and the ETE idle after its disable
# (TRCSTATR.IDLE).  QEMU_ARGS go to both runs.
trace() {	# MODE TRBSR [QEMU_ARGS...]
	d=$tmp/$1
	want=$2
	shift 2
	run "$d" "$@" &&
	mv "$d/trace.bin" "$d/trace.fast" &&
	run "$d" "$@" -singlestep -d exec,nochain,int -D "$d/exec.log" &&
	{ [ "$d" != "$tmp/el0" ] || cmp "$d/trace.fast" "$d/trace.bin"; } &&
	echo "trace: $(stat -c %s "$d/trace.bin") bytes, TRBSR_EL1 $(reg "$d/regs.bin" 12), TRCSTATR $(reg "$d/regs.bin" 13)" &&
	[ "$(reg "$d/regs.bin" 12)" = "$want" ] &&
	[ "$(reg "$d/regs.bin" 13)" = 0000000000000003 ] &&
	snapshot "$d" &&
	(cd "$d" && trc_pkt_lister -ss_dir snapshot -src_name trbe0 \
		-decode_only -logstdout) > "$d/decode.txt"
}

# The ID registers say ETE (TRCDEVARCH 0x47705a13) and what perf needs.
ids() {
	d=$tmp/all
	echo "TRCDEVARCH 0x$(reg "$d/regs.bin" 11) TRCIDR0 0x$(reg "$d/regs.bin" 0) TRCIDR2 0x$(reg "$d/regs.bin" 2)"
	[ "$(reg "$d/regs.bin" 11)" = 0000000047705a13 ]
}

# A buffer that fills: the TRBE stopped with a buffer-full event (IRQ,
# WRAP, S, BSC 1: TRBSR_EL1 0x520001), its pointer back at the base, its
# interrupt (PPI 5, INTID 21) pending, its 4 KiB the start of the trace.
filled() {
	r=$tmp/fill/regs.bin
	echo "TRBPTR_EL1 at $(reg "$r" 14), GICD_ISPENDR0 $(reg "$r" 15)"
	[ "$(reg "$r" 14)" = 0000000000000000 ] &&
	[ $((0x$(reg "$r" 15) >> 21 & 1)) = 1 ] &&
	python3 "$here/etecmp.py" --prefix "$tmp/fill/decode.txt" \
		"$tmp/fill/exec.log" "$tmp/fill/ete.sym" ""
}

# A buffer with no room (LIMIT its base), in wrap mode: the first trace
# stops collection, full (IRQ, S, BSC 1, not WRAP: TRBSR_EL1 0x420001),
# the pointer where it was and the interrupt pending, and the program
# ends (the TRBE once wrapped round such a buffer for ever).
empty() {
	d=$tmp/empty
	run "$d" &&
	r=$d/regs.bin &&
	echo "TRBSR_EL1 $(reg "$r" 12), TRBPTR_EL1 at $(reg "$r" 14), GICD_ISPENDR0 $(reg "$r" 15)" &&
	[ "$(reg "$r" 12)" = 0000000000420001 ] &&
	[ "$(reg "$r" 14)" = 0000000000000000 ] &&
	[ $((0x$(reg "$r" 15) >> 21 & 1)) = 1 ]
}

# CPU 0's reset (PSCI CPU_OFF, CPU_ON) lowers its TRBE's interrupt:
# ete.S exits with its pending bit after the reset.
cpu_reset() {
	run "$tmp/reset" -smp 2
}

# Decoded from EL0 and EL1: a data fault, an IRQ, a call (SVC #1), a trap
# (UDF), a trap from EL0 (WFI: no atom for it), a call from EL0.
decode_all() {	# [MODE]
	d=$tmp/${1:-all}
	python3 "$here/etecmp.py" "$d/decode.txt" "$d/exec.log" \
		"$d/ete.sym" 0xc,0xe,0x2,0x3,0x3,0x2
}

# Collection starts with the TRBE's interrupt pending: it is taken
# before traced_begin runs, its exception after the start (TraceOn,
# traced_begin with its context), where the decoder sees it (one before
# the start, it drops); then the same as above.
decode_start_irq() {
	python3 "$here/etecmp.py" "$tmp/startirq/decode.txt" \
		"$tmp/startirq/exec.log" "$tmp/startirq/ete.sym" \
		0xe,0xc,0xe,0x2,0x3,0x3,0x2
}

# EL0 alone: only the user code, its WFI's trap and its SVC the only
# exceptions seen.
decode_el0() {
	python3 "$here/etecmp.py" "$tmp/el0/decode.txt" "$tmp/el0/exec.log" \
		"$tmp/el0/ete.sym" 0x3,0x2 user sync_handler
}

check "build ete.S" build all && check "build ete.S, EL0 only" build el0 -DEL0_ONLY
check "build ete.S, a buffer that fills" build fill "-DTBUF_SIZE=4096 -DLOOPS=5000"
check "build ete.S, for -icount" build icount
check "build ete.S, a buffer with no room" build empty -DEMPTY_BUFFER
check "build ete.S, an interrupt as collection starts" build startirq -DSTART_IRQ
check "build ete.S, a CPU reset" build reset -DCPU_RESET
check "trace EL0 and EL1, with timestamps" trace all 0000000000000000
check "trace EL0 alone, the same bytes twice" trace el0 0000000000000000
check "trace into a buffer that fills" trace fill 0000000000520001
check "trace EL0 and EL1 under -icount shift=0" \
	trace icount 0000000000000000 -icount shift=0
check "trace with an interrupt as collection starts" \
	trace startirq 0000000000000000
check "ID registers" ids
check "OpenCSD decodes EL0 and EL1 to what QEMU ran" decode_all
check "OpenCSD decodes EL0 to what QEMU ran there" decode_el0
check "OpenCSD decodes -icount's trace to what QEMU ran" decode_all icount
check "an exception where a start is due follows the start" decode_start_irq
check "a full buffer stops, interrupts, and decodes" filled
check "a buffer with no room stops at once, full" empty
check "a CPU's reset lowers its TRBE's interrupt" cpu_reset
echo "1..$n"
exit $failed
