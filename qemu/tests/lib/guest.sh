# SPDX-License-Identifier: GPL-2.0
# Sourced by the emulator's guest tests: TAP output (tap.sh) and their
# set-up.  Sets perf (BUILD/perf/perf).
. "$(dirname "$0")/lib/tap.sh"
perf=$1/perf/perf

# loop.S with LOOPS iterations, as $tmp/loop
build_loop() {	# LOOPS
	gcc -nostdlib -static -DLOOPS="$1" -o "$tmp/loop" "$here/loop.S"
}

# The kernel's sampling heuristics: perf_cpu_time_max_percent PERCENT (0
# off, 25 the default), with the sample rate back at its default
# (writable only while the heuristic is on).
heuristics() {	# PERCENT
	echo 25 > /proc/sys/kernel/perf_cpu_time_max_percent &&
	echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate &&
	echo "$1" > /proc/sys/kernel/perf_cpu_time_max_percent
}

echo 2 > /proc/sys/kernel/perf_event_paranoid
# A debug kernel under TCG takes milliseconds per PMI, and the kernel then
# lowers the sample rate and throttles sampling events: its heuristic, not
# the emulator's doing.  Earlier tests of the same boot may have lowered
# it already: back to the default, then the heuristic off.
heuristics 0
