#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-cs-etm.sh [ROUNDS]: what -Acs_etm costs, in the arm64 guest (its
# only kernel is the debug one) on the emulated ETE and TRBE.  Per round,
# a loop of 40000004 instructions (loop.arm64.S, 20M iterations) runs
# alone, under a sampler of inst_retired:u every 20011 instructions (1998
# samples) without trace, with -Acs_etm samples of 64 bytes, 4, 16 and
# 60 KiB, and under a whole cs_etm//u recording.  Printed: each against
# the loop alone; and what copying 4, 16 and 60 KiB into each sample
# costs, over 64-byte samples, against what the samples themselves cost
# (the sampler's time over the loop's).  Then, on the host, perf script
# --itrace=b of 60 KiB -A samples of a 10000004-instruction loop against
# a whole recording of it: decode time (median of 3) and what each
# decoded.  Ratios within a round, medians of ROUNDS (default 5).  Files:
# build/bench-cs-etm/.
set -euo pipefail

. "$(dirname "$0")/common.sh"
rounds=${1:-5}
work=$build/bench-cs-etm
period=20011
mkdir -p "$work"
rm -rf "$work/guest"
aarch64-linux-gnu-gcc -nostdlib -static -DLOOPS=20000000 -o "$work/loop" \
	"$repo/qemu/tests/loop.arm64.S"

"$repo/harness/run-guest.sh" -a arm64 -o "$work/guest" -t 2400 "
set -e
cd /tmp
perf=$build/perf-arm64/perf
loop=$work/loop
echo 2 > /proc/sys/kernel/perf_event_paranoid
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
# ms since boot, to 10 ms (BusyBox's date has no %N)
now() { awk '{ printf \"%d\\n\", \$1 * 1000 }' /proc/uptime; }
took() { t0=\$(now); \"\$@\" > /dev/null 2>&1; echo \$((\$(now) - t0)); }
sampler() { \$perf record -q -o s.data -e inst_retired:u -c $period \"\$@\" \$loop; }
for r in \$(seq $rounds); do
	echo \"\$r alone \$(took \$loop)\"
	echo \"\$r sampler \$(took sampler)\"
	for size in 64 4096 16384 61440; do
		echo \"\$r A\$size \$(took sampler -Acs_etm --aux-sample=\$size)\"
	done
	echo \"\$r whole \$(took \$perf record -q -o w.data -e cs_etm//u --per-thread \$loop)\"
done
loop=$build/arm64-tests/loop_long
sampler -Acs_etm --aux-sample=61440
\$perf record -q -o w.data -e cs_etm//u --per-thread \$loop
cp s.data /tmp/out/a.data
cp w.data /tmp/out/w.data
" > "$work/times"

awk -f "$repo/harness/median.awk" -f /dev/stdin "$work/times" <<EOF
\$1 ~ /^[0-9]+\$/ && NF == 3 { t[\$1, \$2] = \$3; rounds = \$1 > rounds ? \$1 : rounds }
END {
	print "bench-cs-etm: median of " rounds " rounds of ratios within a round"
	print "(the arm64 debug kernel; the ETE is emulated: tracing costs what the emulator costs)"
	split("sampler A64 A4096 A16384 A61440 whole", k)
	for (i = 1; i <= 6; i++) {
		for (r = 1; r <= rounds; r++)
			x[r] = t[r, k[i]] / t[r, "alone"]
		printf "loop under %-7s / alone                          %8.3f\n", k[i], median(x, rounds)
	}
	for (i = 3; i <= 5; i++) {
		for (r = 1; r <= rounds; r++)
			x[r] = (t[r, k[i]] - t[r, "A64"]) / (t[r, "sampler"] - t[r, "alone"])
		printf "copying %-7s over A64 / the samples' own cost  %8.3f\n", k[i], median(x, rounds)
	}
}
EOF

# Decoding, on the host (perf with OpenCSD): median of 3 runs each.
decode() {	# NAME
	local i s ts=()

	for i in 1 2 3; do
		s=$(date +%s%N)
		"$build/perf/perf" script -i "$work/guest/$1.data" --itrace=b \
			-F ip,addr > "$work/$1.b" 2> /dev/null
		ts+=($(($(date +%s%N) - s)))
	done
	printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p
}
bytes() {	# NAME: the bytes of its AUXTRACE records and of its samples
	local kind size aux=0 samples=0

	while read -r kind size; do
		case $kind in
		PERF_RECORD_AUXTRACE) aux=$((aux + size)) ;;
		*) samples=$((samples + size)) ;;
		esac
	done < <("$build/perf/perf" report -D -i "$work/guest/$1.data" 2> /dev/null |
		 awk '$3 == "PERF_RECORD_AUXTRACE" { print $3, $5 }
		      / PERF_RECORD_SAMPLE\(/ { sub(/\]: PERF_RECORD_SAMPLE.*/, ""); sub(/.*\[/, "")
						 print "SAMPLE", $0 }')
	echo "$aux bytes of trace, $samples of samples"
}
a=$(decode a)
w=$(decode w)
awk -v a="$a" -v w="$w" -v ab="$(bytes a)" -v wb="$(bytes w)" \
	-v an="$(grep -c . "$work/a.b")" -v wn="$(grep -c . "$work/w.b")" 'BEGIN {
	printf "decode, perf script --itrace=b: -A 60 KiB / whole         %8.3f\n", a / w
	printf "  -A 60 KiB: %d branches from %s\n", an, ab
	printf "  whole:     %d branches from %s\n", wn, wb
}'
