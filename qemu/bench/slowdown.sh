#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slowdown.sh BUILD [LOOPS]: what counting and tracing cost in a guest of
# the patched QEMU, as ratios within one run: loop.S (2 * LOOPS + 4
# instructions) alone, under perf stat -e instructions:u (translated code
# counts), and under perf record -e intel_pt//u (translated code traces).
# Best of three runs each.  Not a test: make bench runs it.
perf=$1/perf/perf
here=$(cd "$(dirname "$0")/../tests" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -nostdlib -static -DLOOPS="${2:-20000000}" -o "$tmp/loop" "$here/loop.S" || exit 1
echo 2 > /proc/sys/kernel/perf_event_paranoid

best() {	# COMMAND...: the shortest of three runs, in ms
	b=
	for i in 1 2 3; do
		t0=$(date +%s%N)
		"$@" > /dev/null 2>&1 || exit 1
		t=$((($(date +%s%N) - t0) / 1000000))
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b"
}

plain=$(best "$tmp/loop")
counted=$(best "$perf" stat -e instructions:u "$tmp/loop")
traced=$(best "$perf" record -q -o "$tmp/pt.data" -e intel_pt//u "$tmp/loop")
echo "loop.S, $((2 * ${2:-20000000} + 4)) instructions: alone 1.00 ($plain ms)"
awk -v p="$plain" -v c="$counted" -v t="$traced" 'BEGIN {
	printf "under perf stat -e instructions:u: %.2f\n", c / p
	printf "under perf record -e intel_pt//u:  %.2f\n", t / p
}'
