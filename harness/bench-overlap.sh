#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-overlap.sh: what -A samples copy against the trace they bring, with
# samples of new trace only (perf record -A's default where the kernel has
# PERF_AUX_SAMPLE_NEW) and without (--aux-sample-overlap: each sample's
# latest --aux-sample bytes), in one guest boot.  harness/demo/spin.c recorded
# with -Aptsim -e cpu-clock:u and with -Aintel_pt -e instructions:u, with
# 4, 16 and 60 KiB samples, and the mission's 'perf record -Aintel_pt -e
# cycles:u,instructions:u -- ls /' with 4 KiB, each both ways.  Prints, for
# each recording, its samples, the bytes of their AUX fields (headers and
# padding included: perf report -D), the trace they bring that no sample
# before had (perf script -v: each stream's end less its start and what
# was lost), their ratio (1 if no byte is copied twice), the perf.data
# size and the recording's CPU seconds (perf record and the program, user
# and system); then new/overlap ratios of the last two.  KERNEL= picks
# another bzImage (default: the plain kernel); PERIOD= the cpu-clock
# period in ns (100000), PERIOD_PT= the instructions period (400000).
# Files: build/bench-overlap/.
set -euo pipefail

. "$(dirname "$0")/common.sh"
perf=$build/perf/perf
work=$build/bench-overlap
guest=$work/guest
period=${PERIOD:-100000}
period_pt=${PERIOD_PT:-400000}
mkdir -p "$work"
gcc -O1 -g -o "$work/spin" "$repo/harness/demo/spin.c"
rm -rf "$guest"

# Record into the guest's tmpfs, then copy out: not over 9p while recording.
"$repo/harness/run-guest.sh" -o "$guest" -t 2400 \
	-k "${KERNEL:-$build/kernel/arch/x86/boot/bzImage}" "
set -e
cd /tmp
echo 2 > /proc/sys/kernel/perf_event_paranoid
$perf version > /dev/null; $work/spin 1 > /dev/null; ls / > /dev/null
rate=\$(cat /proc/sys/kernel/perf_event_max_sample_rate)
# record NAME OPTION...: both ways, into /tmp/out/NAME-{new,overlap}.data,
# each from the boot's sample rate limit (the kernel lowers it as PMIs
# that copy trace take long under TCG).
record() {
	name=\$1
	shift
	for mode in new overlap; do
		opt=
		[ \$mode = overlap ] && opt=--aux-sample-overlap
		echo \$rate > /proc/sys/kernel/perf_event_max_sample_rate
		/usr/bin/time -o /tmp/out/\$name-\$mode.time -f '%U %S' \
			$perf record -q -o /tmp/r.data \$opt \"\$@\" > /dev/null
		cp /tmp/r.data /tmp/out/\$name-\$mode.data && rm /tmp/r.data
	done
}
for size in 4096 16384 61440; do
	record ptsim-\$size -Aptsim --aux-sample=\$size -e cpu-clock:u \
		-c $period -- $work/spin 25
	record intel_pt-\$size -Aintel_pt --aux-sample=\$size \
		-e instructions:u -c $period_pt -- $work/spin 25
done
record mission-4096 -Aintel_pt -e cycles:u,instructions:u -- ls /
" > "$work/guest.log" || { cat "$work/guest.log"; exit 1; }

# new NAME: samples and the bytes of new trace of the recording's streams.
new_trace() {
	"$perf" script -v --itrace=e -i "$1" 2>&1 >/dev/null | awk '
		/^AUX samples of stream / {
			for (i = 1; i < NF; i++) {
				if ($(i + 1) == "samples")
					n += $i
				if ($i == "bytes")
					trace += $(i + 3) - $(i + 1)
				if ($(i + 1) == "lost")
					trace -= $i
			}
		}
		END { print n + 0, trace + 0 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

printf '%-16s %-8s %8s %12s %12s %8s %12s %8s\n' recording mode samples \
	"AUX bytes" "new trace" ratio perf.data "CPU s"
for f in "$guest"/*-new.data; do
	name=$(basename "$f" -new.data)
	for mode in new overlap; do
		data=$guest/$name-$mode.data
		read -r n trace < <(new_trace "$data")
		aux=$(aux_bytes "$perf" "$data")
		size=$(stat -c %s "$data")
		cpu=$(awk '{ print $1 + $2 }' "$guest/$name-$mode.time")
		printf '%-16s %-8s %8s %12s %12s %8s %12s %8s\n' "$name" "$mode" \
			"$n" "$aux" "$trace" "$(ratio "$aux" "$trace")" "$size" "$cpu"
		eval "size_$mode=$size cpu_$mode=$cpu"
	done
	echo "$name: perf.data new/overlap $(ratio "$size_new" "$size_overlap"), CPU seconds new/overlap $(ratio "$cpu_new" "$cpu_overlap")"
done
