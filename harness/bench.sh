#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the benchmarks, in the plain (non-debug) QEMU kernel (the
# emulated PMU's and PT's cost last), then perf's decoding of AUX-sample
# recordings (bench-decode.sh), what a sample costs it against the
# number of streams (bench-streams.sh), and what -A samples copy against
# the trace they bring, of new trace only and overlapping
# (bench-overlap.sh), and what the hardware trace recorder costs a
# kernel-heavy workload and a live read (bench-recorder.sh), and what
# perf record -A as a flight recorder costs and takes to dump
# (bench-flight.sh), and what -Acs_etm's samples cost and decode at in
# the arm64 guest (bench-cs-etm.sh).
# Figures are ratios within one run, never absolute times.
set -euo pipefail

. "$(dirname "$0")/common.sh"
bench=$build/selftests/perf_events
"$repo/harness/run-guest.sh" -k "$build/kernel/arch/x86/boot/bzImage" -t 2400 \
	"$bench/ptsim_bench ${ROUNDS:-5} && $bench/aux_sample_bench ${ROUNDS:-5} && $bench/aux_sample_bench ${ROUNDS:-5} forms intel_pt && $bench/core_trace_bench ${ROUNDS:-5} && $bench/core_trace_bench ${ROUNDS:-5} intel_pt && $repo/qemu/bench/slowdown.sh $build"
# The emulated ETE's cost, in the arm64 guest (its kernel is the debug one)
"$repo/harness/run-guest.sh" -a arm64 -t 900 "sh $repo/qemu/bench/slowdown.sh $build"
"$repo/harness/bench-decode.sh"
"$repo/harness/bench-streams.sh"
"$repo/harness/bench-overlap.sh"
"$repo/harness/bench-recorder.sh"
"$repo/harness/bench-flight.sh"
"$repo/harness/bench-cs-etm.sh"
