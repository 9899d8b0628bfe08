#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hwtrace_store.sh: the hardware trace recorder's store across warm
# reboots.  Run at each boot, REBOOT_BOOT its number (from 1), of a
# machine booted with memmap=SIZE$ADDR hwtrace_store=SIZE@ADDR
# hwtrace=intel_pt,config=0x2001,...,kernel that resets at a panic and
# keeps its memory (harness/reboot.sh, run by harness/check.sh), from the
# directory of the built selftests.  TAP.
#
#   boot 1: memory that never held the store is refused so, and gives no
#	hwtrace/previous/; then a panic;
#   boot 2: the previous boot's copies are in hwtrace/previous/, every
#	CPU's frozen in the panic, and the panicking CPU's trace decodes to
#	the panic (hwtrace_kdump, and the shell command HWTRACE_STORE_DECODE
#	if set: check.sh's runs perf's test of it); then a byte of the
#	store's header is changed through /dev/mem, and a panic;
#   boot 3: the store is refused for its header's checksum, and gives no
#	hwtrace/previous/; then a reboot(2);
#   boot 4: every CPU's trace of the previous boot is in
#	hwtrace/previous/, frozen by the reboot, not by a crash.

previous=/sys/kernel/tracing/hwtrace/previous
# The store's header: its build ID (struct hwtrace_store::build_id).
build_id_offset=44

n=0
failed=0
result() {	# OK DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=1
	fi
}

# Whether the kernel said this boot that it did not read the store, and why.
refused_for() {	# REASON
	dmesg | grep -q "hwtrace: store at .*: not read: $1\$" &&
		[ ! -e $previous ]
}

crash() {
	echo "hwtrace_store.sh: crashing on purpose" > /dev/kmsg
	sync
	echo c > /proc/sysrq-trigger
	echo "hwtrace_store.sh: still alive after the crash"
	exit 1
}

# Whether every CPU's copy in previous/ has exactly FLAGS of
# PERF_HWTRACE_FROZEN and PERF_HWTRACE_CRASH (struct perf_hwtrace_header).
frozen_as() {	# FLAGS
	for f in $previous/cpu*/trace; do
		flags=$(od -An -tu8 -j24 -N8 "$f") || return 1
		[ $((flags & 0x18)) = $(($1)) ] || return 1
	done
}

# Whether the kernel read every CPU's trace of the previous boot.
previous_read() {
	dmesg | grep -q "hwtrace: store at .*: $(nproc) CPUs' trace of the previous boot" &&
		[ "$(ls $previous | wc -l)" = "$(nproc)" ]
}

# Flip the lowest bit of the byte at physical address @addr.
flip_byte() {	# ADDR
	byte=$(dd if=/dev/mem bs=1 skip="$1" count=1 2>/dev/null | od -An -tu1)
	[ -n "$byte" ] || return 1
	printf "\\$(printf %o $((byte ^ 1)))" |
		dd of=/dev/mem bs=1 seek="$1" count=1 conv=notrunc 2>/dev/null
}

store=$(sed -n 's/.*hwtrace_store=[^@ ]*@\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -z "$store" ]; then
	echo "1..0 # SKIP not booted with hwtrace_store="
	exit 4
fi

case $REBOOT_BOOT in
1)
	echo "1..1"
	refused_for "it never held the recorder's trace"
	result $? "a store that never held the recorder's trace is refused"
	crash
	;;
2)
	echo "1..1"
	previous_read && frozen_as 0x18
	result $? "hwtrace/previous/ has every CPU's trace, frozen in the panic"
	HWTRACE_KDUMP_CRASH=reboot ./hwtrace_kdump
	[ -z "$HWTRACE_STORE_DECODE" ] || sh -c "$HWTRACE_STORE_DECODE"
	flip_byte $((store + build_id_offset)) ||
		echo "# the store's header could not be changed through /dev/mem"
	crash
	;;
3)
	echo "1..1"
	refused_for "its header's checksum is wrong"
	result $? "a store whose header's checksum is wrong is refused"
	sync
	/bin/busybox reboot -f
	echo "hwtrace_store.sh: still alive after reboot -f"
	exit 1
	;;
4)
	echo "1..1"
	previous_read && frozen_as 0x08
	result $? "hwtrace/previous/ has every CPU's trace, frozen by the reboot"
	exit $failed
	;;
*)
	echo "Bail out! boot $REBOOT_BOOT: none was planned"
	exit 1
	;;
esac
