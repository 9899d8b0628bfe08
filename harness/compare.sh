#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compare.sh (make compare): upstream's own suites whole, with the series and
# without it, in one run.  The base tree (the tree's base tag, in the
# worktree $BUILD/linux-upstream) gets its debug kernel from the same config
# fragments less the series' own symbols ($BUILD/kernel-upstream), its perf
# built as make perf builds the series' ($PERF_FLAGS, from the Makefile:
# $BUILD/perf-upstream) and its perf_events kselftests
# ($BUILD/selftests-upstream).  Two guests side by side run the whole
# `perf test` and the base's perf_events kselftests (harness/compare-guest.sh),
# one with the series (the debug kernel, perf and kselftests that make
# builds), one without.  Every test or test case that passes without the
# series must pass with it; each that does not runs again (see RERUNS), and
# a regression fails the run.  The guests' runs are in
# $BUILD/compare/NAME.guest; the table of every test's two first results in
# $BUILD/compare/table.
set -uo pipefail

. "$(dirname "$0")/common.sh"
base=$build/linux-upstream
out=$build/compare
tag=$(git -C "$tree" describe --tags --abbrev=0 --match 'base-*' HEAD) || exit 1

build_base() {
	[ -d "$base" ] || git -C "$tree" worktree add -q --detach "$base" "$tag" || return
	git -C "$base" checkout -q --detach "$tag" || return
	mkdir -p "$out/configs"
	for f in guest x86 debug kdump; do
		grep -v -E '^CONFIG_(PERF_HWTRACE|PTSIM|PERF_AUX_SAMPLE_KUNIT_TEST)=' \
			"$repo/harness/configs/$f.config" > "$out/configs/$f.config"
	done
	TREE=$base "$repo/harness/kbuild.sh" "$build/kernel-upstream" \
		"$out"/configs/{guest,x86,debug,kdump}.config || return
	mkdir -p "$build/perf-upstream" "$build/selftests-upstream"
	eval make -s -C "$base/tools/perf" O="$build/perf-upstream" \
		-j"$(nproc)" "$PERF_FLAGS" || return
	make -s -C "$base/tools/testing/selftests/perf_events" \
		OUTPUT="$build/selftests-upstream" \
		KHDR_INCLUDES="-isystem $build/kernel-upstream/usr/include" || return
	make -s --no-print-directory -C "$base/tools/testing/selftests/perf_events" \
		emit_tests OUTPUT="$build/selftests-upstream" | cut -d: -f2 \
		> "$build/selftests-upstream/tests.list"
}

# SUFFIX KS_LIST [PERF_LIST TIMES]: the guests series$SUFFIX and
# base$SUFFIX side by side (compare-guest.sh), each with its kernel, tree,
# perf and kselftests; until both end.
guests() {
	local suffix=$1 name kernel

	shift
	for name in series base; do
		rm -rf "${out:?}/$name$suffix.guest"
		if [ $name = series ]; then
			set -- "$build/kernel-debug/arch/x86/boot/bzImage" "$tree" \
				"$build/perf/perf" "$build/selftests/perf_events" "$@"
		else
			set -- "$build/kernel-upstream/arch/x86/boot/bzImage" "$base" \
				"$build/perf-upstream/perf" "$build/selftests-upstream" "${@:5}"
		fi
		kernel=$1
		"$repo/harness/run-guest.sh" -k "$kernel" -t 5400 -o "$out/$name$suffix.guest" \
			"$repo/harness/compare-guest.sh" "$2" "$3" "$4" "$5" "$name$suffix" \
			"${@:6}" > "$out/$name$suffix.log" 2>&1 &
	done
	wait
	cat "$out/series$suffix.log" "$out/base$suffix.log" | grep run-guest
}

# A guest's results, one per line: "NAME<TAB>RESULT", NAME a perf test's
# (or subtest's) description or a kselftest case's, RESULT Ok, FAILED or
# Skip for perf tests (a test killed at its timeout: FAILED), ok, not ok or
# skip for the kselftests.
results() {
	local dir=$out/$1.guest/$1 f

	for f in "$dir"/perf-test.*.log; do
		[ -e "$f" ] || continue
		if [ "$(cat "${f%.log}.rc")" = 124 ]; then
			printf 'perf test %s\tFAILED\n' "$(top_test "$f")"
			continue
		fi
		sed -n 's/^ *[0-9][0-9.:]*: \(.*[^ ]\) *: \([A-Za-z][A-Za-z]*\).*/perf test \1\t\2/p' "$f"
	done
	for f in "$dir"/ks.*.log; do
		[ -e "$f" ] || continue
		sed -n -e "s/^ok [0-9]* \([^#]*[^# ]\) *# SKIP.*/kselftest \1\tskip/p" \
			-e "t" -e "s/^\(not ok\|ok\) [0-9]* \([^#]*[^# ]\).*/kselftest \2\t\1/p" "$f"
	done
}

# The description of the top-level perf test that log @1 is of.
top_test() {
	head -n 1 "$1" | sed 's/^ *[0-9]*: *//; s/ *:.*//'
}

# results(), a name's second and later occurrences numbered, sorted for join.
numbered() {
	results "$1" | awk -F '\t' -v OFS='\t' '++seen[$1] > 1 { $1 = $1 " #" seen[$1] } 1' |
		LC_ALL=C sort -t "$(printf '\t')" -k1,1
}

# How many times NAME (numbering dropped) is Ok or ok in guest @2's results.
passes() {
	results "$2" | awk -F '\t' -v name="${1% #*}" \
		'$1 == name && ($2 == "Ok" || $2 == "ok") { n++ } END { print n + 0 }'
}

# The tests that results NAME (numbering dropped) came from, to run again:
# perf tests' top-level descriptions in rerun-perf, kselftest programs in
# rerun-ks.
rerun_lists() {
	local name f

	: > "$out/rerun-perf"
	: > "$out/rerun-ks"
	while IFS= read -r name; do
		name=${name% #*}
		for f in "$out"/series.guest/series/perf-test.*.log; do
			grep -qF ": ${name#perf test } " "$f" && top_test "$f" >> "$out/rerun-perf"
		done
		for f in "$out"/series.guest/series/ks.*.log; do
			grep -qF " ${name#kselftest }" "$f" &&
				basename "$f" | sed 's/^ks\.//; s/\.[0-9]*\.log$//' >> "$out/rerun-ks"
		done
	done
	sort -u -o "$out/rerun-perf" "$out/rerun-perf"
	sort -u -o "$out/rerun-ks" "$out/rerun-ks"
}

build_base > "$out.build.log" 2>&1 || {
	echo "compare: the base's kernel, perf or kselftests did not build ($out.build.log)"
	tail -n 20 "$out.build.log"
	exit 1
}
guests "" "$build/selftests-upstream/tests.list"
if grep -q "kernel splat" "$out/series.log"; then
	echo "compare: a kernel splat with the series ($out/series.guest/console.log)"
	exit 1
fi
numbered series > "$out/series.results"
numbered base > "$out/base.results"
LC_ALL=C join -t "$(printf '\t')" -a 2 -e - -o 0,2.2,1.2 \
	"$out/series.results" "$out/base.results" > "$out/table"
echo "compare: $(wc -l < "$out/base.results") results without the series," \
	"$(wc -l < "$out/series.results") with it"
failed=$(awk -F '\t' '($2 == "Ok" || $2 == "ok") && $3 != $2 { print $1 }' "$out/table")
if [ -z "$failed" ]; then
	echo "compare: every test that passes without the series passes with it"
	exit 0
fi

# Upstream's suites have flaky tests: each test that passed without the
# series and not with it runs RERUNS more times on each.  A regression is
# one that never passes with the series while it passes without it, or
# that fails with the series while it always passes without it.
RERUNS=5
echo "compare: passed without the series, not with it; each again $RERUNS times:"
echo "$failed"
echo "$failed" | rerun_lists
guests -rerun "$out/rerun-ks" "$out/rerun-perf" $RERUNS
regressions=
while IFS= read -r name; do
	with=$(passes "$name" series-rerun)
	without=$(passes "$name" base-rerun)
	echo "compare: $name: passed $without of $RERUNS times without the series, $with with it"
	if { [ "$with" = 0 ] && [ "$without" != 0 ]; } ||
	   { [ "$without" = $RERUNS ] && [ "$with" != $RERUNS ]; }; then
		regressions="$regressions$name; "
	fi
done <<< "$failed"
if [ -n "$regressions" ]; then
	echo "compare: regressions: $regressions"
	exit 1
fi
echo "compare: no regression: each test that passed without the series and not with it is as flaky without it"
