#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-recorder.sh [ROUNDS]: what the hardware trace recorder costs, in
# the plain kernel.  Two kernel-heavy workloads, `perf bench syscall
# basic` (getppid() in a loop) and a fork/exec loop (/bin/true run by the
# shell), with every CPU's kernel and user trace recorded in 256 KiB
# buffers, against the same workload with the recorder off: on ptsim, and
# on the emulated Intel PT, whose cost is the emulator's, not a CPU's.
# Then live reads, `cat` of one CPU's copy 20 times (header and 256 KiB
# of trace each) against `cat` of as many bytes from a tmpfs file 20
# times, recording going on.
# Ratios within a round, medians of ROUNDS (default 5) interleaved
# rounds.  The time from a panic to every CPU frozen is not measured
# here (it would need a crash per round).  Files: build/bench-recorder/.
set -euo pipefail

. "$(dirname "$0")/common.sh"
rounds=${1:-5}
work=$build/bench-recorder
mkdir -p "$work"
rm -rf "$work/guest"

"$repo/harness/run-guest.sh" -o "$work/guest" -t 2400 \
	-k "${KERNEL:-$build/kernel/arch/x86/boot/bzImage}" "
set -e
perf=$build/perf/perf
hw=/sys/kernel/tracing/hwtrace
now() { date +%s%N; }
syscalls() { \$perf bench syscall basic --loop 1000000; }
forks() { i=0; while [ \$i -lt 200 ]; do /bin/true; i=\$((i + 1)); done; }
# PMU CONFIG: the recorder on, or off with no PMU
record() {
	echo 0 > \$hw/tracing_on
	[ \$1 = off ] && return
	echo \$1 > \$hw/pmu
	echo \$2 > \$hw/config
	echo 256 > \$hw/buffer_size_kb
	echo kernel,user > \$hw/mode
	echo 1 > \$hw/tracing_on
}
# Nanoseconds COMMAND takes, its output dropped
took() { t0=\$(now); \"\$@\" > /dev/null; echo \$((\$(now) - t0)); }
head -c \$((256 * 1024 + 4096)) /dev/urandom > /tmp/plain
# 20 reads in one cat: each open of a CPU's file takes a copy
copies=\$(for i in \$(seq 20); do echo \$hw/per_cpu/cpu0/trace; done)
plains=\$(for i in \$(seq 20); do echo /tmp/plain; done)
for r in \$(seq $rounds); do
	for pmu in off ptsim intel_pt; do
		case \$pmu in intel_pt) config=0x2001 ;; *) config=0 ;; esac
		record \$pmu \$config
		echo \"\$r \$pmu syscalls \$(took syscalls)\"
		echo \"\$r \$pmu forks \$(took forks)\"
		[ \$pmu = off ] && continue
		echo \"\$r \$pmu read \$(took cat \$copies)\"
		echo \"\$r \$pmu plain \$(took cat \$plains)\"
	done
done
record off
" > "$work/times"

# Per round, each figure against its baseline; the medians.
awk -f "$repo/harness/median.awk" -f /dev/stdin "$work/times" <<'EOF'
$1 ~ /^[0-9]+$/ && NF == 4 { t[$1, $2, $3] = $4; rounds = $1 > rounds ? $1 : rounds }
END {
	print "bench-recorder: median of " rounds " rounds of ratios within a round"
	print "(Intel PT is emulated: its figures are the emulator's cost)"
	split("ptsim intel_pt", pmus, " ")
	for (p = 1; p <= 2; p++) {
		pmu = pmus[p]
		split("syscalls forks", ws, " ")
		for (w = 1; w <= 2; w++) {
			for (r = 1; r <= rounds; r++)
				v[r] = t[r, pmu, ws[w]] / t[r, "off", ws[w]]
			printf "%-9s %-9s recording / off      %6.3f\n", pmu, ws[w], median(v, rounds)
		}
		for (r = 1; r <= rounds; r++)
			v[r] = t[r, pmu, "read"] / t[r, pmu, "plain"]
		printf "%-9s live read of a CPU / tmpfs file  %6.3f\n", pmu, median(v, rounds)
	}
}
EOF
