#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job (make demo): boot the patched kernel and look at a known
# program (harness/demo/spin.c: ~3/4 of its time in hot(), ~1/4 in warm())
# with the perf built from the same tree: a cpu-clock profile, then its
# trace from ptsim, the simulated Intel PT unit, decoded by perf's Intel PT
# decoder, per function.  KERNEL= picks another bzImage.
set -euo pipefail

. "$(dirname "$0")/common.sh"
mkdir -p "$build/demo"
gcc -O1 -g -o "$build/demo/spin" "$repo/harness/demo/spin.c"

exec "$repo/harness/run-guest.sh" \
	-k "${KERNEL:-$build/kernel/arch/x86/boot/bzImage}" -t 900 "
set -e
perf=$build/perf/perf
spin=$build/demo/spin
echo '== kernel'; uname -r
echo '== cpu-clock profile of spin'
\$perf record -q -e cpu-clock:u -F 2000 -o /tmp/prof.data -- \$spin
\$perf report -i /tmp/prof.data --stdio --sort sym 2>/dev/null | grep -v '^#' | grep -v '^\$' | head -5
echo '== ptsim trace of spin: ptwrite records per function'
\$perf record -q -e ptsim//u -o /tmp/pt.data -- \$spin
\$perf script -i /tmp/pt.data --itrace=w -F ip,sym 2>/dev/null | awk '{ print \$2 }' | sort | uniq -c | sort -rn | head -5
echo '== the first records, decoded (sequence number, IP, symbol)'
\$perf script -i /tmp/pt.data --itrace=w -F synth,ip,sym 2>/dev/null | grep -m5 -E 'hot|warm'
"
