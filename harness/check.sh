#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the project's test run (make check).  checkpatch on the series
# beside the perf tests $HOST_PERF_TESTS and the emulator's ETE test on the
# host, then, in two lanes of debug-kernel guests side by side: the
# kselftest suites $SUITES with the emulator's tests $QEMU_TESTS
# (qemu/tests), the emulator's flow test, a check that the harness itself
# reports a guest WARNING as a failure and the hardware trace recorder's
# kselftest in a guest booted with hwtrace=, and its kdump tests through a
# hard lockup and, on ptsim, a soft lockup; and the perf tests $PERF_TESTS
# with the emulator's tests $QEMU_PERF_TESTS, the recorder's kdump test
# through an oops and a panic, then the arm64 debug kernel's guest with
# the kselftest suites $ARM64_SUITES (make selftests-arm64) and the
# emulator's tests $ARM64_QEMU_TESTS, whose -Acs_etm recordings the host
# decodes for their parity check.
# Ends with "N passed, N failed, N skipped" (each skip is listed with its
# reason).
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

# What a TAP log says about its failed case N: the lines between the
# result before it and the one after it (kselftest_harness prints its
# diagnostics before "not ok", qemu/tests after), at most 40 of them.
tap_diagnostics() {	# LOG N
	awk -v n="$2" '/^(not )?ok [0-9]+ / {
			if (found) exit
			if ($0 ~ "^not ok " n " ") { found = 1; printf "%s", block }
			block = ""
			next
		}
		{ if (found) print; else block = block $0 "\n" }' "$1" |
		tail -40 | sed 's/^/    /'
}

# One kselftest program's TAP log: one result per "ok"/"not ok" line; a
# program that failed without saying which case failed, printed no result
# at all, or fewer than its plan ("1..N") says, counts as a failure.
tap_results() {	# NAME LOG RC
	local name=$1 log=$2 rc=$3 line bad=0 any=0 plan ran
	while read -r line; do
		any=1
		case $line in
		"not ok "*)
			result FAIL "$name: ${line#not ok }"
			tap_diagnostics "$log" "$(echo "$line" | cut -d' ' -f3)"
			bad=1 ;;
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
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | head -1)
	ran=$(grep -a -c -E '^(not )?ok [0-9]+ ' "$log")
	if [ -n "$plan" ] && [ "$ran" -lt "$plan" ]; then
		result FAIL "$name: $ran of its $plan tests ran (status $rc)"
	fi
}

# checkpatch (one core) runs beside the host's tests (one core).
"$repo/harness/checkpatch.sh" > "$results/checkpatch.log" 2>&1 &
checkpatch=$!

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

# A guest's results: its programs' results, then whether it ended cleanly.
guest_results() {	# NAME
	local dir=$results/$1 rcfile t
	echo "== in the debug kernel: $1"
	for rcfile in "$dir"/tests/*.rc; do
		[ -f "$rcfile" ] || continue
		t=$(basename "$rcfile" .rc)
		case $t in
		perf-test.*)
			perf_test_results "$t" "${rcfile%.rc}.log" "$(cat "$rcfile")" ;;
		*)
			tap_results "$t" "${rcfile%.rc}.log" "$(cat "$rcfile")" ;;
		esac
	done
	if [ "$(cat "$dir.rc")" = 0 ]; then
		result PASS "guest $1: test run ended with no kernel splat"
	else
		result FAIL "guest $1: test run status $(cat "$dir.rc")"
		tail -20 "$dir.log" | sed 's/^/    /'
	fi
}

# Boot a debug-kernel guest (x86, or ARCH) running guest-tests.sh ARGS;
# its status goes to results/NAME.rc.
start_guest() {	# NAME SUITES QEMU_TESTS PERF_TESTS [QEMU_ARGS [ARCH]]
	"$repo/harness/run-guest.sh" -a "${6:-x86}" -t 2400 -o "$results/$1" -x "${5:-}" \
		"$repo/harness/guest-tests.sh" "$build" "'$2'" "'$3'" "'$4'" \
		> "$results/$1.log" 2>&1
	echo $? > "$results/$1.rc"
}

# The hardware trace recorder through a crash: a guest that records every
# CPU's kernel-mode trace from boot (RECORDER: Intel PT, $pt_recorder, or
# ptsim) crashes (HOW: an oops with oops=panic, a panic, a hard lockup
# with hardlockup_panic, or on ptsim a soft lockup with softlockup_panic)
# by running CRASH, its kernel booted with KERNEL_ARGS too; its capture
# kernel decodes the trace from /proc/vmcore, or from the store if
# KERNEL_ARGS give one, with libipt or ptsim's decoder (hwtrace_kdump),
# then with perf (perf test vmcore); the status is hwtrace_kdump's.
pt_recorder=hwtrace=intel_pt,config=0x2001,size=1020,kernel
hwtrace_kdump() {	# HOW RECORDER CRASH [KERNEL_ARGS]
	"$repo/harness/run-guest.sh" -K -t 1200 -o "$results/hwtrace-kdump-$1" \
		-c "$2 crashkernel=384M oops=panic${4:+ $4}" \
		"HWTRACE_KDUMP_CRASH=$1 PERF_TEST_VMLINUX=$build/kernel-debug/vmlinux sh $repo/harness/kdump.sh $build/kernel-debug/arch/x86/boot/bzImage '$3' sh -c 'cd $build/selftests/perf_events && ./hwtrace_kdump; rc=\$?; cd $build/linux/tools/perf && $build/perf/perf test -v vmcore; exit \$rc'" \
		> "$results/hwtrace-kdump-$1.log" 2>&1
	echo $? > "$results/hwtrace-kdump-$1.rc"
}

# The recorder's store across warm reboots: a guest that records every
# CPU's kernel-mode Intel PT from boot into a store (hwtrace_store=, 4 MiB
# at 1.75 GiB) panics, and QEMU resets it with its memory; the next boot
# decodes the trace of the panic from hwtrace/previous/ with libipt
# (hwtrace_kdump), then with perf (perf test vmcore), garbles the store
# and panics; the third refuses it and reboots; the fourth reads what the
# reboot froze (hwtrace_store.sh).
hwtrace_reboot() {
	"$repo/harness/run-guest.sh" -R -t 1200 -o "$results/hwtrace-reboot" \
		-c "memmap=4M\$0x70000000 hwtrace_store=4M@0x70000000 $pt_recorder" \
		"cd $build/selftests/perf_events && HWTRACE_STORE_DECODE='cd $tree/tools/perf && $build/perf/perf test -v vmcore' PERF_TEST_VMLINUX=$build/kernel-debug/vmlinux sh $repo/harness/reboot.sh sh $tree/tools/testing/selftests/perf_events/hwtrace_store.sh" \
		> "$results/hwtrace-reboot.log" 2>&1
	echo $? > "$results/hwtrace-reboot.rc"
}

# perf tests that need no kernel of ours, only perf's decoders, run on the
# host: under TCG they would take ten times as long.
echo "== on the host: perf test"
for t in $HOST_PERF_TESTS; do
	log=$results/host-perf-test.$t.log
	(cd "$tree/tools/perf" && PATH=$build/perf:$PATH \
		PERF_TEST_LIBIPT_DIR=$repo/../shared/testdata/libipt \
		"$build/perf/perf" test -v "$t") > "$log" 2>&1
	perf_test_results "perf-test.$t" "$log" $?
	# Its own count, skips with their reasons in the log.
	grep -a '^# pass [0-9]*, skip [0-9]*, fail [0-9]*$' "$log" | sed 's/^#/   /'
done

# The emulator's tests that boot no kernel of ours: the arm64 ETE and
# TRBE tracing a bare-metal program, decoded by OpenCSD (seconds).
echo "== on the host: qemu/tests/ete.sh"
log=$results/ete.log
sh "$repo/qemu/tests/ete.sh" "$build" > "$log" 2>&1
tap_results qemu-ete "$log" $?

# make fuzz-perf's findings: perf script must refuse each, under valgrind.
echo "== on the host: harness/fuzz-perf-cases.sh"
log=$results/fuzz-perf-cases.log
sh "$repo/harness/fuzz-perf-cases.sh" "$build/perf/perf" > "$log" 2>&1
tap_results fuzz-perf-cases "$log" $?

wait $checkpatch
echo "== checkpatch"
while read -r verdict name; do
	case $verdict in
	PASS | FAIL) result "$verdict" "$name" ;;
	*) echo "$verdict $name" ;;
	esac
done < "$results/checkpatch.log"

# Each guest is one TCG thread: two at a time use both cores, in two
# lanes of about the same length (some 50 minutes): the kselftests'
# guest, flow.sh's (one vCPU, QEMU logging the blocks it runs), the
# harness's own check, the recorder's boot-time and reboot guests and its
# lockups' kdump guests; beside them the perf tests' guest, the
# recorder's other kdump guests and the arm64 guest.
{
	start_guest kselftests "$SUITES" "$QEMU_TESTS" ""
	start_guest flow "" flow "" \
		"-smp 1 -d exec,nochain -dfilter 0x10000000..0x10ffffff -D $results/flow/exec.log"
	"$repo/harness/run-guest.sh" -t 300 -o "$results/warn" \
		'echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT' \
		> "$results/warn.log" 2>&1
	echo $? > "$results/warn.rc"
	# The hardware trace recorder started at boot (hwtrace=): its
	# kselftest again, in a guest booted so.
	"$repo/harness/run-guest.sh" -c "hwtrace=ptsim,size=32" -t 600 \
		-o "$results/hwtrace-boot" \
		"cd $build/selftests/perf_events && ./hwtrace" \
		> "$results/hwtrace-boot.log" 2>&1
	echo $? > "$results/hwtrace-boot.rc"
	hwtrace_reboot
	# The NMI watchdog finds a CPU stuck with interrupts off within a
	# second or two: watchdog_thresh=1.
	hwtrace_kdump lockup "$pt_recorder" \
		'echo 1 > /proc/sys/kernel/hardlockup_panic; echo HARDLOCKUP > /sys/kernel/debug/provoke-crash/DIRECT' \
		'nmi_watchdog=1 watchdog_thresh=1'
	# ptsim's records are the IPs its ticks interrupt: a CPU that spins
	# with interrupts on until the soft lockup detector (off at boot,
	# run-guest.sh's nosoftlockup) panics shows where it was stuck.
	hwtrace_kdump softlockup hwtrace=ptsim,size=64,kernel \
		'cd /proc/sys/kernel; echo 1 > softlockup_panic; echo 1 > watchdog_thresh; echo 1 > soft_watchdog; echo SOFTLOCKUP > /sys/kernel/debug/provoke-crash/DIRECT'
} &
kselftests_lane=$!
{
	start_guest perf-tests "" "$QEMU_PERF_TESTS" "$PERF_TESTS"
	hwtrace_kdump oops "$pt_recorder" 'echo ACCESS_NULL > /sys/kernel/debug/provoke-crash/DIRECT'
	# The panic's guest keeps its copies in a store too: its capture
	# kernel, booted with the same store, reads them there.
	hwtrace_kdump panic "$pt_recorder" 'echo c > /proc/sysrq-trigger' \
		'memmap=4M$0x70000000 hwtrace_store=4M@0x70000000'
	start_guest arm64 "$ARM64_SUITES" "$ARM64_QEMU_TESTS" "" "" arm64
} &
perf_tests_lane=$!
wait $kselftests_lane
guest_results kselftests
guest_results flow
tap_results hwtrace-boot "$results/hwtrace-boot.log" "$(cat "$results/hwtrace-boot.rc")"
tap_results hwtrace-reboot "$results/hwtrace-reboot.log" "$(cat "$results/hwtrace-reboot.rc")"
perf_test_results "hwtrace-reboot: perf-test.vmcore" \
	"$results/hwtrace-reboot.log" "$(cat "$results/hwtrace-reboot.rc")"
wait $perf_tests_lane
guest_results perf-tests
for how in oops panic lockup softlockup; do
	tap_results hwtrace-kdump-$how "$results/hwtrace-kdump-$how.log" \
		"$(cat "$results/hwtrace-kdump-$how.rc")"
	perf_test_results "hwtrace-kdump-$how: perf-test.vmcore" \
		"$results/hwtrace-kdump-$how.log" "$(cat "$results/hwtrace-kdump-$how.rc")"
done
guest_results arm64
echo "== on the host: qemu/tests/cs_etm_parity.sh (the arm64 guest's recordings)"
log=$results/cs_etm_parity.log
sh "$repo/qemu/tests/cs_etm_parity.sh" "$build" "$results/arm64/cs_etm_parity" \
	> "$log" 2>&1
tap_results qemu-cs_etm_parity "$log" $?

echo "== harness"
if [ "$(cat "$results/warn.rc")" = 1 ] &&
   grep -q 'kernel splat' "$results/warn.log"; then
	result PASS "harness: a kernel WARNING in the guest fails the run"
else
	result FAIL "harness: a kernel WARNING in the guest was not reported (status $(cat "$results/warn.rc"))"
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
