#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz-perf: AFL++ on perf's readers of hostile files, perf built with
# ASan and UBSan ($build/perf-afl, the Makefile's rule).  Two targets, run
# side by side for FUZZ_PERF_SECONDS each (3600 unless set):
#   file: perf script -i FILE --itrace=bew, which reads perf.data files
#         (the AUX samples of perf record -A: position headers, the
#         resolver, the Intel PT and ptsim decoders), process cores with
#         core trace, and the hardware trace recorder's copies, alone and
#         in a kernel's crash dump (harness/mini-vmcore.py);
#   pipe: perf script -i - --itrace=bew, the input on stdin (pipe mode).
# Their seeds are recorded in the x86 debug guest (harness/fuzz-perf-seeds.sh,
# once), and each, as each of the findings kept in harness/fuzz-perf-cases/,
# must read without a sanitizer's report; the dictionary
# names the formats' magics and fields.  Findings go to
# $build/fuzz-perf/TARGET/default/{crashes,hangs}; the run fails if there
# are any, and prints the executions of each target and each crash's report.
# The run before's are in TARGET.prev.
set -euo pipefail
shopt -s nullglob

. "$(dirname "$0")/common.sh"
out=$build/fuzz-perf
perf=$build/perf-afl/perf
seconds=${FUZZ_PERF_SECONDS:-3600}
mkdir -p "$out"

if [ ! -s "$out/seeds/file/pt.A" ]; then
	gcc -O1 -g -pthread -o "$out/fz_work" "$repo/harness/fuzz-perf-work.c"
	"$repo/harness/run-guest.sh" -t 1200 -o "$out/seeds" \
		"$repo/harness/fuzz-perf-seeds.sh /tmp/out $build/perf/perf $out/fz_work"
fi
for pmu in intel_pt ptsim; do
	[ -s "$out/seeds/file/vmcore.$pmu" ] ||
		python3 "$repo/harness/mini-vmcore.py" "$out/seeds/file/vmcore.$pmu" \
			"$out/seeds/file/hwtrace.$pmu"
done

cat > "$out/perf.dict" << 'EOF'
perf_data="PERFILE2"
hwtrace="HWTR"
elf="\x7fELF"
note_core="CORE\x00"
note_linux="LINUX\x00"
note_vmcoreinfo="VMCOREINFO\x00"
vmcoreinfo_hwtrace="HWTRACE="
nt_perf_trace="\x46\x52\x45\x50"
pmu_pt="intel_pt\x00"
pmu_ptsim="ptsim\x00"
pmu_etm="cs_etm\x00"
psb="\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82"
psbend="\x02\x23"
attr_size_ver9="\x98\x00\x00\x00"
rec_auxtrace_info="\x46\x00\x00\x00"
rec_auxtrace="\x47\x00\x00\x00"
rec_aux="\x0b\x00\x00\x00"
all_ones="\xff\xff\xff\xff\xff\xff\xff\xff"
EOF

# A finding is an abort (ASan, UBSan) or a hang, not perf's own errors.
export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0:allocator_may_return_null=1:malloc_context_size=0
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:symbolize=0
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
export PERF_CONFIG_NOSYSTEM=1 HOME=$out
itrace=--itrace=bew

# replay TARGET FILE...: perf script of each FILE as TARGET reads it; says
# which abort, with the sanitizer's report, and fails if any does.
replay()
{
	local target=$1 file rc status=0
	shift
	for file in "$@"; do
		rc=0
		if [ "$target" = pipe ]; then
			"$perf" script -i - "$itrace" < "$file" > /dev/null \
				2> "$out/replay.err" || rc=$?
		else
			"$perf" script -i "$file" "$itrace" > /dev/null \
				2> "$out/replay.err" || rc=$?
		fi
		# perf's own errors are -errno (1, or 193 and above)
		case $rc in
		129 | 1[3-5][0-9]) ;;
		*) continue ;;
		esac
		echo "$target: $file: perf script died"
		grep -m 3 -E 'ERROR: AddressSanitizer|runtime error|SUMMARY' "$out/replay.err"
		status=1
	done
	return $status
}

# A run starts afresh (afl-fuzz refuses an output directory with results):
# the last run's output goes to TARGET.prev.
fuzz() # TARGET ARGS...
{
	local target=$1
	shift
	rm -rf "$out/$target.prev"
	if [ -d "$out/$target" ]; then
		mv "$out/$target" "$out/$target.prev"
	fi
	timeout --foreground $((seconds + 300)) \
		afl-fuzz -i "$out/seeds/$target" -o "$out/$target" \
		-x "$out/perf.dict" -m none -t 5000 -V "$seconds" -- \
		"$perf" script "$@" "$itrace" > "$out/$target.log" 2>&1 || true
}

replay file "$out"/seeds/file/* "$repo"/harness/fuzz-perf-cases/file/*
replay pipe "$out"/seeds/pipe/* "$repo"/harness/fuzz-perf-cases/pipe/*
fuzz file -i @@ &
fuzz pipe -i - &
wait

status=0
for target in file pipe; do
	dir=$out/$target/default
	execs=$(awk '$1 == "execs_done" { print $3 }' "$dir/fuzzer_stats")
	found=$(find "$dir/crashes" "$dir/hangs" -type f -name 'id:*' | wc -l)
	echo "fuzz-perf $target: $execs executions, $found crashes and hangs"
	[ "$found" = 0 ] || status=1
	replay "$target" "$dir"/crashes/id:* 2> /dev/null || true
done
exit $status
