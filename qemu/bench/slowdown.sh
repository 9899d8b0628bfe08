#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slowdown.sh BUILD [LOOPS]: what counting and tracing cost in a guest of
# the patched QEMU, as ratios within one run: a counted loop alone, under
# perf stat -e instructions:u (translated code counts), and under perf
# record of the trace unit in user mode (translated code traces).  On x86,
# loop.S (2 * LOOPS + 4 instructions) and intel_pt//u; in the arm64 guest,
# loop.arm64.S as arm64-root.sh built it long (loop_long) and cs_etm//u
# (translated code counts inst_retired: 0012).  Best of three runs each.  Not a test: make bench runs it.
here=$(cd "$(dirname "$0")/../tests" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$(uname -m)" = aarch64 ]; then
	perf=$1/perf-arm64/perf
	loop=$1/arm64-tests/loop_long
	loops=5000000
	tracer=cs_etm//u
else
	perf=$1/perf/perf
	loop=$tmp/loop
	loops=${2:-20000000}
	tracer=intel_pt//u
	gcc -nostdlib -static -DLOOPS="$loops" -o "$loop" "$here/loop.S" || exit 1
fi
echo 2 > /proc/sys/kernel/perf_event_paranoid

# Milliseconds since boot, to 10 ms (BusyBox's date has no %N)
now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

best() {	# COMMAND...: the shortest of three runs, in ms
	b=
	for i in 1 2 3; do
		t0=$(now_ms)
		"$@" > /dev/null 2>&1 || exit 1
		t=$(($(now_ms) - t0))
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b"
}

plain=$(best "$loop")
echo "loop, $((2 * loops + 4)) instructions: alone 1.00 ($plain ms)"
counted=$(best "$perf" stat -e instructions:u "$loop")
awk -v p="$plain" -v c="$counted" 'BEGIN {
	printf "under perf stat -e instructions:u: %.2f\n", c / p }'
traced=$(best "$perf" record -q -o "$tmp/trace.data" -e "$tracer" "$loop")
awk -v p="$plain" -v t="$traced" -v e="$tracer" 'BEGIN {
	printf "under perf record -e %s: %.2f\n", e, t / p
}'
