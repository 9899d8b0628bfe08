#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the project's test run (make check).  checkpatch on the series,
# then the kselftest suites $SUITES and the perf tests $PERF_TESTS inside the
# booted debug kernel, then a check that the harness itself reports a guest
# WARNING as a failure.  Ends with "N passed, N failed, N skipped" (each
# skip is listed with its reason).
set -uo pipefail

. "$(dirname "$0")/common.sh"
results=$build/check
rm -rf "$results"
mkdir -p "$results"
passed=0
failed=0
skipped=0

result() {	# PASS|FAIL|SKIP NAME...
	local verdict=$1
	shift
	echo "$verdict $*"
	case $verdict in
	PASS) passed=$((passed + 1)) ;;
	FAIL) failed=$((failed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	esac
}

# One kselftest program's TAP log: one result per "ok"/"not ok" line; a
# program that failed without saying which case failed, or printed no
# result at all, counts as a failure.
tap_results() {	# NAME LOG RC
	local name=$1 log=$2 rc=$3 line bad=0 any=0
	while read -r line; do
		any=1
		case $line in
		"not ok "*) result FAIL "$name: ${line#not ok }"; bad=1 ;;
		*"# SKIP"*) result SKIP "$name: ${line#ok }" ;;
		*) result PASS "$name: ${line#ok }" ;;
		esac
	done < <(grep -a -E '^(not )?ok [0-9]+ ' "$log")
	if [ "$rc" = 4 ] && [ $any = 0 ]; then
		result SKIP "$name: $(tail -1 "$log")"
	elif [ $any = 0 ]; then
		result FAIL "$name: no TAP result (status $rc)"
		sed 's/^/    /' "$log" | tail -20
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ $bad = 0 ]; then
		result FAIL "$name: exited with status $rc"
		sed 's/^/    /' "$log" | tail -20
	fi
}

echo "== checkpatch"
while read -r verdict name; do
	case $verdict in
	PASS | FAIL) result "$verdict" "$name" ;;
	*) echo "$verdict $name" ;;
	esac
done < <("$repo/harness/checkpatch.sh")

# One "perf test -v" run: one result per test it ran (its closing line,
# "DESCRIPTION: Ok", "...: FAILED!" or "...: Skip (reason)").
perf_test_results() {	# NAME LOG RC
	local name=$1 log=$2 rc=$3 line any=0
	while read -r line; do
		any=1
		case $line in
		*": Ok") result PASS "$name: $line" ;;
		*": Skip"*) result SKIP "$name: $line" ;;
		*) result FAIL "$name: $line"; tail -30 "$log" | sed 's/^/    /' ;;
		esac
	done < <(grep -a -E ': (Ok|FAILED!|Skip.*)$' "$log")
	if [ $any = 0 ]; then
		result FAIL "$name: ran no test (status $rc)"
		tail -20 "$log" | sed 's/^/    /'
	fi
}

echo "== in the debug kernel: kselftests $SUITES; perf tests $PERF_TESTS"
"$repo/harness/run-guest.sh" -t 2400 -o "$results/guest" \
	"$repo/harness/guest-tests.sh" "$build" "'$SUITES'" "'$PERF_TESTS'" \
	> "$results/guest.log" 2>&1
guest_rc=$?
for rcfile in "$results"/guest/tests/*.rc; do
	[ -f "$rcfile" ] || continue
	t=$(basename "$rcfile" .rc)
	case $t in
	perf-test.*)
		perf_test_results "$t" "${rcfile%.rc}.log" "$(cat "$rcfile")" ;;
	*)
		tap_results "$t" "${rcfile%.rc}.log" "$(cat "$rcfile")" ;;
	esac
done
if [ $guest_rc = 0 ]; then
	result PASS "guest: test run ended with no kernel splat"
else
	result FAIL "guest: test run status $guest_rc"
	tail -20 "$results/guest.log" | sed 's/^/    /'
fi

echo "== harness"
"$repo/harness/run-guest.sh" -t 300 -o "$results/warn" \
	'echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT' \
	> "$results/warn.log" 2>&1
warn_rc=$?
if [ $warn_rc = 1 ] && grep -q 'kernel splat' "$results/warn.log"; then
	result PASS "harness: a kernel WARNING in the guest fails the run"
else
	result FAIL "harness: a kernel WARNING in the guest was not reported (status $warn_rc)"
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
