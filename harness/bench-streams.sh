#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-streams.sh [PERF]: what an -A sample costs perf script against the
# number of streams the recording has.  Made-up recordings
# (tools/perf/tests/shell/lib/aux_sample_synth.py, libipt's loop-tnt-64
# stream over and over) of N and 4*N samples (N=${SAMPLES:-5000}): all in
# one stream, and each in a stream of a thread of its own that exits after
# it (no timestamps: decoded task by task, at each exit, from a file);
# each decoded from a file and from a pipe (perf inject), median CPU
# seconds of RUNS=3 'perf script --itrace=i0nse' and peak RSS.  Prints
# each one's cost per sample, the 4*N/N ratio of that cost (1 if a sample
# costs the same however many streams came before it; more if each
# sample walked every stream), and streams/one at each length.  On the
# host: decoding alone.  PERF defaults to build/perf/perf.
set -euo pipefail

. "$(dirname "$0")/common.sh"
perf=${1:-$build/perf/perf}
n=${SAMPLES:-5000}
runs=${RUNS:-3}
data=$repo/../shared/testdata/libipt
synth=$tree/tools/perf/tests/shell/lib/aux_sample_synth.py
work=$build/bench-streams
mkdir -p "$work"

name=${STREAM:-loop-tnt-64}
org=$(awk '$1 == "org" { print $2; exit }' "$data/$name.ptt")
len=$(stat -c %s "$data/$name.pt")
size=96
stride=43

# median CPU seconds (user + sys) and peak RSS (KiB) of perf script of $1
# (a pipe-format file read from stdin with "pipe")
measure() {	# FILE [pipe]
	local in=$1 i
	[ "${2:-}" = pipe ] && in=-
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%U %S %M' -o "$work/time" \
			"$perf" script -i "$in" --itrace=i0nse -F event,ip \
			< "$1" > /dev/null 2>&1
		awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$work/time"
	done | sort -n | sed -n "$(((runs + 1) / 2))p"
}

declare -A cost
printf '%-8s %-7s %-5s %8s %10s %14s\n' samples streams mode "CPU s" "RSS MiB" "us/sample"
for samples in "$n" $((4 * n)); do
	for kind in one threads; do
		f=$work/$kind.$samples
		opt=()
		[ "$kind" = threads ] && opt=(--threads)
		python3 "$synth" --pt "$data/$name.pt" --bin "$data/$name.bin" \
			--org "$org" --size $size --stride $stride \
			--repeat $((samples * stride / len + 1)) "${opt[@]}" -o "$f"
		"$perf" inject -i "$f" -o - > "$f.pipe"
		for mode in file pipe; do
			if [ "$mode" = pipe ]; then
				read -r sec rss < <(measure "$f.pipe" pipe)
			else
				read -r sec rss < <(measure "$f")
			fi
			us=$(echo "$sec * 1000000 / $samples" | bc -l)
			cost[$samples.$kind.$mode]=$us
			printf '%-8s %-7s %-5s %8.3f %10.1f %14.2f\n' "$samples" \
				"$kind" "$mode" "$sec" "$(echo "$rss / 1024" | bc -l)" "$us"
		done
	done
done
for kind in one threads; do
	for mode in file pipe; do
		printf '%s, %s: cost per sample at %d samples / at %d: x%.2f\n' \
			"$kind" "$mode" $((4 * n)) "$n" \
			"$(echo "${cost[$((4 * n)).$kind.$mode]} / ${cost[$n.$kind.$mode]}" | bc -l)"
	done
done
for samples in "$n" $((4 * n)); do
	for mode in file pipe; do
		printf '%d samples, %s: a stream per sample / one stream: x%.2f\n' \
			"$samples" "$mode" \
			"$(echo "${cost[$samples.threads.$mode]} / ${cost[$samples.one.$mode]}" | bc -l)"
	done
done
