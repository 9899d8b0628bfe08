#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-flight.sh [ROUNDS]: what perf as a flight recorder with hardware
# trace costs, in the plain kernel on the emulated Intel PT.  A loop
# (qemu/tests/loop.S, 5M iterations) runs alone, then beside a
# system-wide `perf record -a -Aintel_pt -e instructions:u -c 20000`
# that writes every sample to its file, then beside the same recording
# as a flight recorder (--overwrite -m 16 --switch-output=signal), which
# keeps the newest samples in memory and writes nothing until asked.
# Then one dump of the flight recorder, asked for with the --control
# command 'snapshot' and acked once written: how long it takes against
# the loop's time, and its size.  Intel PT is emulated, so the cost of
# tracing is the emulator's; what the ratios compare is the two ways of
# keeping samples.  Ratios within a round, medians of ROUNDS (default 5)
# rounds.  Files: build/bench-flight/.
set -euo pipefail

. "$(dirname "$0")/common.sh"
rounds=${1:-5}
work=$build/bench-flight
mkdir -p "$work"
rm -rf "$work/guest"

"$repo/harness/run-guest.sh" -o "$work/guest" -t 2400 \
	-k "${KERNEL:-$build/kernel/arch/x86/boot/bzImage}" "
set -e
cd /tmp
perf=$build/perf/perf
echo 2 > /proc/sys/kernel/perf_event_paranoid
echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
gcc -nostdlib -static -DLOOPS=5000000 -o loop $repo/qemu/tests/loop.S
now() { date +%s%N; }
took() { t0=\$(now); \"\$@\"; echo \$((\$(now) - t0)); }
mkfifo ctl ack
exec 5<>ctl 6<>ack
# Whether perf record answers the control command ping
ready() { echo ping >&5 && [ \"\$(timeout 60 head -n 1 <&6)\" = ack ]; }
# MODE: perf record -a in the background, until stop
start() {
	rm -rf rec && mkdir rec
	case \$1 in
	file) set -- ;;
	flight) set -- --overwrite -m 16 --switch-output=signal ;;
	esac
	\$perf record -q -a -o rec/s.data --control=fifo:ctl,ack \"\$@\" \\
		-Aintel_pt/mtc=0/ --aux-sample=4096 -e instructions:u -c 20000 &
	ready
}
# perf record acks stop too
stop() { echo stop >&5 && timeout 60 head -n 1 <&6 > /dev/null; wait; }
for r in \$(seq $rounds); do
	echo \"\$r off loop \$(took ./loop)\"
	start file
	echo \"\$r file loop \$(took ./loop)\"
	stop
	start flight
	echo \"\$r flight loop \$(took ./loop)\"
	echo \"\$r flight dump \$(took sh -c 'echo snapshot >&5; timeout 60 head -n 1 <&6 > /dev/null')\"
	echo \"\$r flight size \$(cat rec/s.data.* | wc -c)\"
	stop
done
" > "$work/times"

# Per round, each time against the loop's alone; the medians.
awk -f "$repo/harness/median.awk" -f /dev/stdin "$work/times" <<'EOF'
$1 ~ /^[0-9]+$/ && NF == 4 { t[$1, $2, $3] = $4; rounds = $1 > rounds ? $1 : rounds }
END {
	print "bench-flight: median of " rounds " rounds of ratios within a round"
	print "(Intel PT is emulated: tracing costs what the emulator costs)"
	for (r = 1; r <= rounds; r++) {
		f[r] = t[r, "file", "loop"] / t[r, "off", "loop"]
		o[r] = t[r, "flight", "loop"] / t[r, "off", "loop"]
		d[r] = t[r, "flight", "dump"] / t[r, "off", "loop"]
		s[r] = t[r, "flight", "size"]
	}
	printf "loop beside -a -A, every sample to a file / alone   %6.3f\n", median(f, rounds)
	printf "loop beside -a -A --overwrite (flight) / alone      %6.3f\n", median(o, rounds)
	printf "one dump, asked to acked / the loop alone           %6.3f\n", median(d, rounds)
	printf "one dump, bytes                                     %6d\n", median(s, rounds)
}
EOF
