#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cs_etm.sh BUILD: in the arm64 guest (run-guest.sh -a arm64), Linux's
# stock ETE and TRBE drivers on TCG's ETE and TRBE (qemu/0009, 0010), and
# perf's cs_etm on them, decoded by perf with OpenCSD: the instructions of
# a known program exactly, upstream's own CoreSight test, and perf record
# -Acs_etm's; recordings that cs_etm_parity.sh checks on the host; the
# PMU's inst_retired (qemu/0012), exact, under the mission's command; and
# TRBE trace from a pipe and from a core dump.  TAP.
. "$(dirname "$0")/lib/guest.sh"
perf=$1/perf-arm64/perf
tests=$1/arm64-tests
tree=$1/linux
kernel=$1/kernel-arm64
loops=10000
long_insns=$((2 * 5000000 + 4))	# loop_long's (LOOPS=5000000: arm64-root.sh)

# Each CPU's ETE and TRBE found, the TRBE's interrupt requested.
probed() {
	cpus=$(grep -c ^processor /proc/cpuinfo)
	dmesg | grep 'ete v1.0 initialized'
	[ "$(dmesg | grep -c 'CPU[0-9]*: ete v1.0 initialized')" = "$cpus" ] &&
	for cpu in $(seq 0 $((cpus - 1))); do
		[ -e /sys/bus/coresight/devices/trbe$cpu ] &&
		[ -e /sys/bus/event_source/devices/cs_etm/sinks/trbe$cpu ] || return 1
	done &&
	grep arm_trbe /proc/interrupts
}

# loop.arm64.S's flow, as perf decodes it instruction by instruction:
# 2 * LOOPS + 4 instructions, loop_top and loop_branch LOOPS times each.
# (Its branch samples are no oracle: perf turns the taken branch before an
# interrupt into a trace-on sample after it.)
instructions() {
	"$perf" record -q -o "$tmp/loop.data" -e cs_etm//u --per-thread \
		"$tests/loop" &&
	"$perf" script -i "$tmp/loop.data" --itrace=i1 -F ip > "$tmp/i" &&
	for sym in loop_top loop_branch; do
		addr=$(awk -v s=$sym '$3 == s { sub(/^0+/, "", $1); print $1 }' "$tests/loop.sym")
		eval $sym=$(awk -v a="$addr" '{ sub(/^ *0*/, "") } $0 == a { n++ } END { print n + 0 }' "$tmp/i")
	done &&
	echo "$(wc -l < "$tmp/i") instructions (want $((2 * loops + 4))), loop_top $loop_top, loop_branch $loop_branch (want $loops)" &&
	[ "$(wc -l < "$tmp/i")" = $((2 * loops + 4)) ] &&
	[ "$loop_top" = $loops ] && [ "$loop_branch" = $loops ]
}

# Exact user-mode counts of inst_retired, which QEMU's translated code
# counts (qemu/0012): loop_long's 2 * LOOPS + 4 across a second's
# interrupts (and any moves between the CPUs), lfsr's the instructions
# perf decodes from its full trace (its 26 page faults: a store that
# faults retires once, when it is run again), and a sampler every 100003
# instructions takes floor((2 * LOOPS + 4) / 100003) samples of
# loop_long, in the loop (--per-thread: one event that follows the task;
# perf's default, an event per CPU, keeps each CPU's remainder).  Its
# periods that ended as the task was preempted were lost until arm_pmu
# reported the overflows that stopping a counter finds.
counts() {
	stat_is "$tests/loop_long" $long_insns &&
	"$perf" record -q -o "$tmp/f.data" -e cs_etm//u --per-thread "$tests/lfsr" &&
	stat_is "$tests/lfsr" "$("$perf" script -i "$tmp/f.data" --itrace=i1 -F ip | wc -l)" &&
	"$perf" record -q -o "$tmp/s.data" -e inst_retired:u -c 100003 \
		--per-thread "$tests/loop_long" &&
	"$perf" script -i "$tmp/s.data" -F ip,sym > "$tmp/s" &&
	want=$((long_insns / 100003)) &&
	echo "$(wc -l < "$tmp/s") samples (want $want), $(grep -c loop_ "$tmp/s") in the loop" &&
	[ "$(wc -l < "$tmp/s")" = $want ] && [ "$(grep -c loop_ "$tmp/s")" = $want ]
}

stat_is() {	# PROGRAM INSTRUCTIONS
	count=$("$perf" stat -x, -e inst_retired:u "$1" 2>&1 >/dev/null | cut -d, -f1) &&
	echo "$1: perf stat $count, want $2" && [ "$count" = "$2" ]
}

# The mission's command: samples of cpu_cycles and inst_retired, user and
# kernel mode, carry trace that perf decodes (the kernel's from its
# vmlinux) with no error but a reported loss; and as users run it with
# :u (perf's default frequency), each event's samples decode to ls's own
# branches.  The kernel's sampling heuristics on, as users have them.
# Fixed periods in kernel mode: cycles are the guest's clock (upstream
# QEMU's 1 GHz), and at perf's default frequency the PMIs, which copy
# trace in a debug kernel under TCG, take about as long as the cycles
# between them: with the heuristics off, ls / ran for minutes and wrote
# 900 MB, and under make check's load this check outlived cs_etm.sh's
# 20 minutes.
mission() {
	heuristics 25
	"$perf" record -q -o "$tmp/m.data" -Acs_etm \
		-e cpu_cycles/period=10000000/,inst_retired/period=1000000/ -- ls / > /dev/null &&
	"$perf" record -q -o "$tmp/u.data" -Acs_etm -e cpu_cycles:u,inst_retired:u -- ls / > /dev/null
	rc=$?
	heuristics 0
	[ $rc = 0 ] &&
	decoded m '[kernel.kallsyms]' && decoded u /bin/busybox
}

decoded() {	# NAME DSO: NAME.data's samples of both events decode to DSO's branches
	"$perf" script -i "$tmp/$1.data" -k "$kernel/vmlinux" --itrace=b -F event,ip,dso > "$tmp/$1.b" 2> "$tmp/$1.err" &&
	awk -v dso="($2)" '
		/instruction trace error/ && !/Lost trace data/ { print; bad = 1 }
		$1 ~ /^cpu_cycles/ { cycles++ }
		$1 ~ /^inst_retired/ { insns++ }
		$1 ~ /^branches/ && $NF == dso { branches++ }
		END {
			printf "%d cpu_cycles and %d inst_retired samples, %d branches in %s\n", cycles, insns, branches, dso
			exit bad || !cycles || !insns || !branches
		}' "$tmp/$1.b"
}

# A perf shell test, run by perf test from the tree, with this perf first
# in PATH: the one test whose description has PATTERN must say Ok.
perf_test() {	# PATTERN
	(cd "$tree/tools/perf" &&
	 PATH=$(dirname "$perf"):$PATH "$perf" test -v "$1") > "$tmp/pt" 2>&1
	cat "$tmp/pt"
	[ "$(grep -c ': Ok$' "$tmp/pt")" = 1 ] && ! grep -q ': FAILED!$' "$tmp/pt"
}

# Upstream's test_arm_coresight.sh.  (Its path test walks etm* devices
# only, none of them ETEs in 6.1.)
upstream() {
	perf_test 'Check Arm CoreSight trace data'
}

# test_arm_coresight_aux_sample.sh: perf record -Acs_etm decodes as a
# full recording does.
aux_sample() {
	perf_test 'perf record -A cs_etm'
}

# The recordings of the parity check, which the host decodes
# (cs_etm_parity.sh: gapcmp.py needs Python, which this guest has not):
# lfsr's full trace, and -A samples at its page faults (every 2048 steps,
# some 13 KB of trace apart) of 4 KiB, too small for the trace between
# them, and of 60000 bytes, which hold it.  (A timer sampler made the
# trace between samples depend on the host's speed: 4 KiB samples lost
# none on a slow host.)
parity() {
	dir=/tmp/out/cs_etm_parity
	mkdir -p "$dir" &&
	"$perf" record -q -o "$dir/full.data" -e cs_etm//u --per-thread \
		"$tests/lfsr" &&
	for size in 4096 60000; do
		"$perf" record -q -o "$dir/aux$size.data" -Acs_etm \
			--aux-sample=$size -e page-faults/period=1/u \
			"$tests/lfsr" || return 1
	done
}

# perf record to a pipe: a TRBE's trace is raw ETE, which only the AUX
# records say, and perf reads those after the trace from a pipe.  The
# loop's instructions decode from the pipe as from a file.
pipe() {
	"$perf" record -q -o "$tmp/file.data" -e cs_etm//u --per-thread "$tests/loop" &&
	"$perf" script -i "$tmp/file.data" --itrace=i1 -F ip > "$tmp/file.i" &&
	"$perf" record -q -o - -e cs_etm//u --per-thread "$tests/loop" > "$tmp/pipe.data" &&
	"$perf" script -i - --itrace=i1 -F ip < "$tmp/pipe.data" > "$tmp/pipe.i" &&
	echo "$(wc -l < "$tmp/pipe.i") instructions from a pipe, $(wc -l < "$tmp/file.i") from a file" &&
	[ -s "$tmp/pipe.i" ] && cmp "$tmp/file.i" "$tmp/pipe.i"
}

# perf core-trace -e cs_etm//u keeps 4 KiB of crash.arm64.S's latest trace
# for its core dump (its loop makes more: the trace wrapped); perf script
# -i CORE decodes it: loop branches (and at an interrupt a trace-off, to
# 0, and a trace-on, from 0: 1 run in 25), then the calls of ct_call_a,
# ct_call_b and ct_crash, and the last instruction is the one before
# ct_fault's store, which faulted.
core() {
	pattern=$(cat /proc/sys/kernel/core_pattern)
	echo "$tmp/core.%p" > /proc/sys/kernel/core_pattern
	(ulimit -c unlimited && exec "$perf" core-trace -e cs_etm//u -m 4K -- "$tests/crash")
	rc=$?
	echo "$pattern" > /proc/sys/kernel/core_pattern
	set -- "$tmp"/core.*
	echo "crash exited $rc (SIGSEGV: 139), core $1"
	[ $rc = 139 ] && [ -f "$1" ] &&
	"$perf" script -i "$1" --itrace=b -F ip,sym,addr > "$tmp/core.b" &&
	"$perf" script -i "$1" --itrace=i1 -F ip > "$tmp/core.i" &&
	fault=$(awk '$3 == "ct_fault" { print $1 }' "$tests/crash.sym") &&
	awk -v ip="$(tail -n 1 "$tmp/core.i" | tr -d ' ')" \
	    -v want="$(printf %x $((0x$fault - 4)))" -v lines="$(wc -l < "$tmp/core.b")" '
		{ to = $4 == "0" ? "0" : $5 }	# a trace-off: 0, else the symbol
		NR > lines - 3 { calls = calls " " $2 "=>" to; next }
		$2 !~ /^(_start|ct_step|\[unknown\])$/ || to !~ /^(_start|ct_step|0)$/ {
			print "not the loop: " $0; bad = 1
		}
		{ loop++ }
		END {
			print loop " loop branches, then" calls "; last instruction " ip " (want " want ")"
			exit bad || loop < 1000 || ip != want ||
			     calls != " _start=>ct_call_a ct_call_a=>ct_call_b ct_call_b=>ct_crash"
		}' "$tmp/core.b"
}

check "the ETE and TRBE drivers probe" probed
check "perf record -e cs_etm//u decodes a loop's instructions exactly" instructions
check "upstream's test_arm_coresight.sh" upstream
check "perf record -Acs_etm decodes as a full recording (test_arm_coresight_aux_sample.sh)" aux_sample
check "perf record -Acs_etm and -e cs_etm//u of lfsr, for the host's parity check" parity
check "inst_retired counts and samples a loop's user instructions exactly" counts
check "perf record -Acs_etm -e cpu_cycles,inst_retired -- ls /: the samples' trace decodes" mission
check "perf record -e cs_etm//u to a pipe decodes as to a file" pipe
check "perf core-trace -e cs_etm//u: perf script -i CORE ends at the crash" core
echo "1..$n"
exit $failed
