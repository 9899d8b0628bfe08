#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: aux_fuzz's long runs in the debug kernel (KASAN, lockdep,
# kmemleak: run-guest.sh fails on any splat), FUZZ_OPS operations for each
# of a run's two actors (250000 unless set): as root from seed FUZZ_SEED
# (1) and as two users from the next seed, in two guests side by side.
# make check runs the short ones (the aux_fuzz kselftest).
set -euo pipefail

. "$(dirname "$0")/common.sh"
fuzz=$build/selftests/perf_events/aux_fuzz
ops=${FUZZ_OPS:-250000}
seed=${FUZZ_SEED:-1}
out=$build/fuzz
mkdir -p "$out"
"$repo/harness/run-guest.sh" -t "${FUZZ_TIMEOUT:-86400}" -o "$out/root" \
	"cd /tmp && $fuzz --seed $seed --ops $ops" &
root=$!
"$repo/harness/run-guest.sh" -t "${FUZZ_TIMEOUT:-86400}" -o "$out/users" \
	"cd /tmp && $fuzz --seed $((seed + 1)) --ops $ops --users" &
users=$!
status=0
wait $root || status=1
wait $users || status=1
exit $status
