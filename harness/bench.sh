#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the benchmarks, in the plain (non-debug) QEMU kernel.
# Figures are ratios within one run, never absolute times.
set -euo pipefail

. "$(dirname "$0")/common.sh"
exec "$repo/harness/run-guest.sh" -k "$build/kernel/arch/x86/boot/bzImage" -t 1200 \
	"$build/selftests/perf_events/ptsim_bench ${ROUNDS:-5}"
