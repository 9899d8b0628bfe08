#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# compare-guest.sh TREE PERF SELFTESTS KS_LIST NAME [PERF_LIST TIMES]
#
# Run inside a guest that harness/compare.sh boots, into /tmp/out/NAME, each
# test under a timeout: the perf_events kselftests that file KS_LIST names,
# from SELFTESTS (ks.PROG.I.log and .rc), and every perf test that PERF
# lists, one top-level test at a time (perf-test.N.I.log and .rc), from
# TREE/tools/perf, where perf finds its shell tests.  With PERF_LIST: only
# the perf tests whose descriptions that file holds, one a line, and all
# of them TIMES times.
tree=$1
perf=$2
selftests=$3
ks_list=$4
out=/tmp/out/$5
perf_list=$6
times=${7:-1}
mkdir -p "$out"

# As guest-tests.sh: TCG with KASAN takes milliseconds per PMI.
echo 25 > /proc/sys/kernel/perf_cpu_time_max_percent
echo 100000 > /proc/sys/kernel/perf_event_max_sample_rate
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
export PERF_TEST_WAIT_SCALE=10

# NAME COMMAND...: COMMAND's output in NAME.log, its status in NAME.rc.
run() {
	name=$1
	shift
	echo "compare-guest: $name ($(date +%T))"
	timeout -k 5 900 "$@" > "$out/$name.log" 2>&1 < /dev/null
	echo $? > "$out/$name.rc"
}

cd "$tree/tools/perf" || exit 1
if [ -z "$perf_list" ]; then
	"$perf" test list 2>&1 |
		sed -n 's/^ *\([0-9][0-9]*\):.*/\1/p' | sort -un > "$out/perf-tests"
fi
i=0
while [ $i -lt "$times" ]; do
	i=$((i + 1))
	for prog in $(cat "$ks_list"); do
		run "ks.$prog.$i" sh -c "cd '$selftests' && exec './$prog'"
	done
	if [ -z "$perf_list" ]; then
		for n in $(cat "$out/perf-tests"); do
			run "perf-test.$n.$i" "$perf" test "$n"
		done
		continue
	fi
	n=0
	while read -r desc; do
		n=$((n + 1))
		run "perf-test.$n.$i" "$perf" test "$desc"
	done < "$perf_list"
done
