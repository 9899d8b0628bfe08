#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-tests.sh BUILD "SUITE..." "QEMU_TEST..." "PERF_TEST..."
#
# Run inside the guest (harness/check.sh boots it).  Runs the test programs
# of each kselftest SUITE built under BUILD/selftests/SUITE (as listed in
# its tests.list, made by "make selftests" from the suite's emit_tests),
# each under its suite's timeout, and with them collects the results of the
# KUnit suites that ran at boot; then the emulator's tests
# qemu/tests/QEMU_TEST.sh; then "perf test -v" for each PERF_TEST (a
# description pattern), from the tree's tools/perf so that perf finds its
# shell tests.  Any list may be empty.  Leaves tests/NAME.log and
# tests/NAME.rc in the run's dir.
build=$1
out=/tmp/out/tests
mkdir -p $out

# The arm64 guest's are built apart (make selftests-arm64).
selftests=$build/selftests
[ "$(uname -m)" != aarch64 ] || selftests=$build/selftests-arm64
for suite in $2; do
	dir=$selftests/$suite
	limit=$(sed -n "s/^timeout=//p" "$build/linux/tools/testing/selftests/$suite/settings" 2>/dev/null)
	[ -n "$limit" ] || limit=45
	# The suite's limit is for hardware; TCG with KASAN is slower.
	limit=$((limit * 5))
	for prog in $(cat "$dir/tests.list"); do
		name=$suite.$prog
		echo "guest-tests: $name ($(date +%T))"
		(cd "$dir" && timeout -k 5 "$limit" "./$prog") > $out/$name.log 2>&1
		echo $? > $out/$name.rc
	done
done

# KUnit suites ran at boot; their cases' results are in debugfs.
[ -z "$2" ] || for d in /sys/kernel/debug/kunit/*/; do
	[ -f "$d/results" ] || continue
	name=kunit.$(basename "$d")
	echo "guest-tests: $name ($(date +%T))"
	sed -n 's/^    //p' "$d/results" > $out/$name.log
	echo 0 > $out/$name.rc
done

# The shell tests' waits are for hardware (patch "perf test: Let
# PERF_TEST_WAIT_SCALE lengthen the shell tests' waits"): TCG with KASAN.
# The emulator's tests run some of them too.
export PERF_TEST_WAIT_SCALE=10

# The emulator's own tests (qemu/tests): TAP, like the kselftests.  pt.sh
# takes some 10 minutes beside the perf tests' guest, aux_record.sh 15 on
# a loaded machine (its 17 checks).
for t in $3; do
	name=qemu.$t
	echo "guest-tests: $name ($(date +%T))"
	timeout -k 5 1800 "$(dirname "$0")/../qemu/tests/$t.sh" "$build" > $out/$name.log 2>&1
	echo $? > $out/$name.rc
done

testdata=$(cd "$(dirname "$0")/../../shared/testdata" && pwd)
export PERF_TEST_LIBIPT_DIR=$testdata/libipt PERF_TEST_OPENCSD_DIR=$testdata/opencsd
# A debug kernel under TCG takes milliseconds per PMI, and the kernel then
# lowers perf_event_max_sample_rate (upstream's test_intel_pt.sh then got
# 1250 Hz, whose first period is longer than its uname): its heuristic, as
# for the emulator's tests (qemu/tests/lib/guest.sh): back to the default,
# then the heuristic off.
echo 25 > /proc/sys/kernel/perf_cpu_time_max_percent
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
# perf compiles BPF programs (perf trace -e PROG.c) against the running
# kernel's build directory, which no /lib/modules link names here.
kbuild=$build/kernel-debug
[ "$(uname -m)" != aarch64 ] || kbuild=$build/kernel-arm64
printf '[llvm]\n\tkbuild-dir = %s\n' "$kbuild" > "$HOME/.perfconfig"
for t in $4; do
	echo "guest-tests: perf test $t ($(date +%T))"
	(cd "$build/linux/tools/perf" && timeout -k 5 900 "$build/perf/perf" test -v "$t") \
		> $out/perf-test.$t.log 2>&1
	echo $? > $out/perf-test.$t.rc
done
