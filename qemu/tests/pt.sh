#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pt.sh BUILD: in a guest of the patched QEMU, the stock intel_pt driver on
# TCG's Intel PT (qemu/0004): it probes with what CPUID 0x14 says, perf's
# decoder finds in the trace of a program exactly the instructions and
# branches it ran, so does libipt's, and perf record -A gets trace into
# samples.  TAP.
. "$(dirname "$0")/lib/tap.sh"
loops=100000
caps=/sys/bus/event_source/devices/intel_pt/caps

# CPUID 0x14 as the emulator sets it: ToPA with multiple entries, CR3
# filtering, MTC of all 16 periods, PTWRITE, nothing else.
probed() {
	for c in topa_output topa_multiple_entries cr3_filtering mtc ptwrite; do
		[ "$(cat $caps/$c)" = 1 ] || { echo "$c: $(cat $caps/$c)"; return 1; }
	done
	for c in psb_cyc ip_filtering power_event_trace \
		 single_range_output num_address_ranges payloads_lip; do
		[ "$(cat $caps/$c)" = 0 ] || { echo "$c: $(cat $caps/$c)"; return 1; }
	done
	[ "$(cat $caps/mtc_periods)" = ffff ] || { echo "mtc_periods: $(cat $caps/mtc_periods)"; return 1; }
}

# perf's default configuration: TSC and MTC, whose CTC perf takes from
# CPUID 0x15 (TSC = 128 CTC here); PSB+ has TSC and TMA.
record() {
	"$perf" record -q -o "$tmp/pt.data" -e intel_pt//u "$tmp/loop" &&
	"$perf" report -i "$tmp/pt.data" -D > "$tmp/pt.dump" 2>/dev/null &&
	grep 'TSC:CTC numerator *128$' "$tmp/pt.dump" &&
	grep -m1 ' TMA ' "$tmp/pt.dump" && grep -m1 ' MTC ' "$tmp/pt.dump"
}

# The instructions loop.S retires, in order, one address per line.
flow() {
	awk -v n=$loops 'BEGIN {
		print "401000"
		for (i = 0; i < n; i++)
			print "401005\n401007"
		print "401009\n40100e\n401010"
	}'
}

# Every instruction the program retired, decoded by perf from its trace,
# in order and nothing lost; as many as instructions:u counts.
instructions() {
	"$perf" script -i "$tmp/pt.data" --itrace=i0nse -F ip > "$tmp/insns" &&
	! grep -i error "$tmp/insns" &&
	sed 's/^ *//' "$tmp/insns" > "$tmp/insns.ip" &&
	flow | cmp - "$tmp/insns.ip" &&
	decoded=$(wc -l < "$tmp/insns") &&
	counted=$("$perf" stat -x, -e instructions:u "$tmp/loop" 2>&1 >/dev/null | cut -d, -f1) &&
	echo "decoded $decoded, instructions:u $counted, want $((2 * loops + 4))" &&
	[ "$decoded" = "$counted" ] && [ "$decoded" = $((2 * loops + 4)) ]
}

# The same, decoded by libipt (ptdecode.c) from the raw trace: perf -D
# dumps the AUX area's bytes packet by packet, at 8-digit offsets (events
# are dumped at 4-digit ones).
libipt() {
	gcc -O2 -o "$tmp/ptdecode" "$here/ptdecode.c" -lipt &&
	awk '/^\. +[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]: / {
			for (i = 3; i <= NF && $i ~ /^[0-9a-f][0-9a-f]$/; i++)
				printf "%s", $i
		}' "$tmp/pt.dump" |
		python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read()))' \
		> "$tmp/pt.raw" &&
	ls -l "$tmp/pt.raw" &&
	"$tmp/ptdecode" "$tmp/pt.raw" "$tmp/loop" > "$tmp/libipt" &&
	flow | cmp - "$tmp/libipt"
}

# The loop's taken branches, exactly: jnz back loops - 1 times.
branches() {
	"$perf" script -i "$tmp/pt.data" --itrace=be -F ip,addr > "$tmp/br" &&
	! grep -i error "$tmp/br" &&
	taken=$(grep -c -E '^ *401007 => +401005$' "$tmp/br") &&
	echo "jnz taken $taken times, want $((loops - 1))" &&
	[ "$taken" = $((loops - 1)) ]
}

# PTWRITE (ptw.S): perf finds each payload at the PTWRITE that wrote it,
# with branch tracing off (PTW packets alone) and on.
ptwrite() {
	gcc -nostdlib -static -o "$tmp/ptw" "$here/ptw.S" || return 1
	printf '0x1122334455667788 40100a\n0xcafef00d 401017\n' > "$tmp/w.want"
	for branch in 0 1; do
		"$perf" record -q -o "$tmp/w.data" -e "intel_pt/ptw,fup_on_ptw,branch=$branch/u" "$tmp/ptw" &&
		"$perf" script -i "$tmp/w.data" --itrace=we -F ip,synth > "$tmp/w" &&
		cat "$tmp/w" &&
		awk '{ print $4, $5 }' "$tmp/w" | cmp - "$tmp/w.want" || return 1
	done
}

# The mission's command: samples of cycles and instructions carry PT.  A
# fixed period: at the default 4000 Hz, a debug kernel under TCG spends
# nearly all its time in PMIs that copy trace.
aux_sample() {
	"$perf" record -q -o "$tmp/a.data" -Aintel_pt -e cycles,instructions -c 1000000 -- ls / &&
	"$perf" report -i "$tmp/a.data" -D > "$tmp/a.txt" 2>&1 &&
	samples=$(grep -c 'Intel Processor Trace data: size [1-9]' "$tmp/a.txt") &&
	echo "$samples samples with trace" && [ "$samples" -gt 0 ] &&
	grep -m1 -E '^\. +[0-9a-f]+: +02 82 02 82' "$tmp/a.txt"
}

echo "1..7"
build_loop $loops || exit 1
check "intel_pt driver probed with CPUID 0x14's caps" probed
if check "perf record -e intel_pt//u of a known loop: TSC, TMA and MTC" record; then
	check "perf script --itrace=i: exactly the instructions it retired" instructions
	check "perf script --itrace=b: exactly the loop's branches" branches
	check "libipt's decoder: exactly the instructions it retired" libipt
fi
check "PTWRITE: perf script --itrace=w, branches off and on" ptwrite
check "perf record -Aintel_pt -e cycles,instructions -c 1000000: samples carry PT" aux_sample
exit $failed
