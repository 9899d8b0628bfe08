#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: aux_fuzz's long runs in the debug kernel (KASAN, lockdep,
# kmemleak: run-guest.sh fails on any splat), FUZZ_OPS operations for each
# of a run's two actors (250000 unless set) from seed FUZZ_SEED (1), as
# root, then as two users from the next seed.  make check runs the short
# ones (the aux_fuzz kselftest).
set -euo pipefail

. "$(dirname "$0")/common.sh"
fuzz=$build/selftests/perf_events/aux_fuzz
ops=${FUZZ_OPS:-250000}
seed=${FUZZ_SEED:-1}
"$repo/harness/run-guest.sh" -t "${FUZZ_TIMEOUT:-86400}" \
	"cd /tmp && $fuzz --seed $seed --ops $ops && $fuzz --seed $((seed + 1)) --ops $ops --users"
