#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fuzz-perf-seeds.sh DIR PERF WORK: in the x86 debug guest, record the seed
# corpora of harness/fuzz-perf.sh into DIR/file (inputs for perf script -i
# FILE) and DIR/pipe (for perf script -i - < FILE): perf.data files with
# the AUX samples of perf record -A on the emulated Intel PT and on ptsim,
# with and without --aux-sample-overlap, of --overwrite rings and of -a;
# process cores with core trace of both; copies of the hardware trace
# recorder; pipe-mode recordings.  The workload WORK
# (harness/fuzz-perf-work.c) is the host's, whose root the guest shares, so
# that perf script on the host finds its code.  Cores keep only their notes
# and ELF headers, to stay small.  All is written to tmpfs first, then
# copied to DIR.
set -u
out=$1
perf=$2
work=$3
dir=$(mktemp -d)
mkdir -p "$dir/file" "$dir/pipe"

# rec NAME ARGS...: perf record ARGS of a short run of the workload, a few
# samples of at most 512 bytes of trace, into DIR/file/NAME
rec()
{
	name=$1
	shift
	"$perf" record -q --aux-sample=512 "$@" -o "$dir/file/$name" -- \
		"$work" spin 400 > /dev/null 2>&1 || echo "perf record $* failed"
}

rec pt.A -Aintel_pt -e cycles:u -c 200000
rec pt.A.overlap -Aintel_pt --aux-sample-overlap -e instructions:u -c 100000
rec pt.A.two -Aintel_pt -e cycles:u,instructions:u -c 300000
rec pt.A.overwrite -Aintel_pt --overwrite -m 8 -e cycles:u -c 100000
rec ptsim.A -A ptsim -e cpu-clock:u,page-faults:u -c 2000000
rec ptsim.A.overlap -A ptsim --aux-sample-overlap -e cpu-clock:u -c 1000000
rec ptsim.A.all -a -A ptsim -e cpu-clock:u -c 5000000

# piped NAME ARGS...: the same into a pipe, into DIR/pipe/NAME
piped()
{
	name=$1
	shift
	"$perf" record -q --aux-sample=512 "$@" -o - -- "$work" spin 400 \
		> "$dir/pipe/$name" 2> /dev/null || echo "perf record $* -o - failed"
}

piped pt.A -Aintel_pt -e cycles:u -c 200000
piped ptsim.A -A ptsim -e cpu-clock:u -c 2000000

saved_pattern=$(cat /proc/sys/kernel/core_pattern)
echo "$dir/core.%p" > /proc/sys/kernel/core_pattern
for pmu in intel_pt ptsim ; do
	rm -f "$dir"/core.*
	(
		ulimit -c unlimited
		echo 0x10 > /proc/self/coredump_filter
		"$perf" core-trace -e "$pmu//u" -m 4K -- "$work" crash 400
	) > /dev/null 2>&1
	for core in "$dir"/core.* ; do
		[ -f "$core" ] && mv "$core" "$dir/file/core.$pmu"
	done
	[ -f "$dir/file/core.$pmu" ] || echo "no core with $pmu trace"
done
echo "${saved_pattern}" > /proc/sys/kernel/core_pattern

hwtrace=/sys/kernel/tracing/hwtrace
for pmu in intel_pt ptsim ; do
	echo "$pmu" > $hwtrace/pmu
	echo 8 > $hwtrace/buffer_size_kb
	echo user > $hwtrace/mode
	echo 1 > $hwtrace/tracing_on
	"$work" spin 400 > /dev/null
	echo 0 > $hwtrace/tracing_on
	cat $hwtrace/per_cpu/cpu0/trace > "$dir/file/hwtrace.$pmu" ||
		echo "no hwtrace copy of $pmu"
done
rm -rf "$out/file" "$out/pipe"
cp -r "$dir/file" "$dir/pipe" "$out/"
chmod -R a+r "$out"
ls -l "$out/file" "$out/pipe"
rm -rf "$dir"
