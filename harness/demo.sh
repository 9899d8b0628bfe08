#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job (make demo): boot the patched kernel and profile a known
# program with the perf built from the same tree.
set -euo pipefail

. "$(dirname "$0")/common.sh"
mkdir -p "$build/demo"
gcc -O1 -g -o "$build/demo/spin" "$repo/harness/demo/spin.c"

exec "$repo/harness/run-guest.sh" -k "$build/kernel/arch/x86/boot/bzImage" -t 600 "
set -e
perf=$build/perf/perf
uname -r
\$perf record -e cpu-clock -F 2000 -o /tmp/perf.data -- $build/demo/spin
\$perf report -i /tmp/perf.data --stdio --sort comm,dso,sym 2>/dev/null | grep -v '^#' | grep -v '^\$' | head -15
"
