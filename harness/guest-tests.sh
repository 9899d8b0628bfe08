#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-tests.sh BUILD SUITE...: run inside the guest (harness/check.sh boots
# it).  Runs the test programs of each kselftest suite built under
# BUILD/selftests/SUITE (as listed in its tests.list, made by "make
# selftests" from the suite's emit_tests), each under its suite's timeout,
# and leaves tests/SUITE.PROG.log and .rc in the run's directory.
build=$1
shift
mkdir -p /tmp/out/tests
for suite; do
	dir=$build/selftests/$suite
	limit=$(sed -n "s/^timeout=//p" "$build/linux/tools/testing/selftests/$suite/settings" 2>/dev/null)
	[ -n "$limit" ] || limit=45
	for prog in $(cat "$dir/tests.list"); do
		name=$suite.$prog
		echo "guest-tests: $name"
		(cd "$dir" && timeout -k 5 "$limit" "./$prog") \
			> "/tmp/out/tests/$name.log" 2>&1
		echo $? > "/tmp/out/tests/$name.rc"
	done
done
