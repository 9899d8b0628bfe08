#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job (make demo): boot the patched kernel and look at a known
# program (harness/demo/spin.c: ~3/4 of its time in hot(), ~1/4 in warm())
# with the perf built from the same tree: perf record -Aptsim takes
# cpu-clock and page-fault samples, each with the latest trace of a hidden
# ptsim event (ptsim: the simulated Intel PT unit); perf script shows each
# sample after the trace that led up to it, overlap between samples removed
# and loss counted exactly.  Then the same with Intel PT (QEMU's, see
# qemu/): perf record -Aintel_pt -e cycles:u,instructions:u of spin shows
# each sample after the branches its trace led up to it with
# (harness/demo/branches.awk), and the mission's own command, perf record
# -Aintel_pt -e cycles,instructions -- ls, its per-stream totals.
# KERNEL= picks another bzImage.
set -euo pipefail

. "$(dirname "$0")/common.sh"
mkdir -p "$build/demo"
gcc -O1 -g -o "$build/demo/spin" "$repo/harness/demo/spin.c"

exec "$repo/harness/run-guest.sh" \
	-k "${KERNEL:-$build/kernel/arch/x86/boot/bzImage}" -t 900 "
set -e
perf=$build/perf/perf
cd /tmp
echo '== kernel'; uname -r
echo '== perf record -Aptsim -e cpu-clock:u,page-faults:u -- spin'
\$perf record -q -Aptsim -e cpu-clock:u,page-faults:u -o /tmp/a.data -- $build/demo/spin
\$perf evlist -v -i /tmp/a.data | sed 's/,.*aux_sample_size/ ... aux_sample_size/'
echo '== samples after the trace that led up to each (ptwrite sequence numbers, functions)'
echo '   (the first 5 in hot() or warm(), then the first 8 whose trace crosses between them)'
\$perf script -i /tmp/a.data --itrace=we -F event,synth,ip,sym 2>/dev/null | awk '
	/ptwrite/ {
		for (i = 1; i < NF; i++)
			if (\$i == \"payload:\")
				seq = \$(i + 1)
		if (!n++)
			first = seq
		last = seq
		if (\$NF != prev)
			path = path (path == \"\" ? \"\" : \">\") \$NF
		prev = \$NF
		next
	}
	/Lost trace data/ { print \"   \", \$0; next }
	/cpu-clock|page-faults/ {
		k++
		if ((\$NF ~ /^(hot|warm)\$/ && shown++ < 5) ||
		    (path ~ /(hot|warm)>(hot|warm)/ && crossed++ < 8))
			printf \"%5d %-14s in %-22s after %s %s\n\", k, \$1, \$NF,
			       n ? \"records \" first \"..\" last : \"no new records\",
			       substr(path, 1, 60)
		n = 0; path = \"\"; prev = \"\"
	}'
echo '== per hidden event stream: overlap removed and trace lost, exactly'
\$perf script -v -i /tmp/a.data --itrace=we 2>&1 >/dev/null | grep 'AUX samples of'
echo
echo '== Intel PT: perf record -Aintel_pt -e cycles:u,instructions:u --aux-sample=16384 -- spin 4'
\$perf record -q -Aintel_pt -e cycles:u,instructions:u --aux-sample=16384 -o /tmp/p.data -- $build/demo/spin 4
echo '== samples after the branches that led up to them (from the trace in the samples alone):'
echo '   the first 3 in hot() or warm(), then the first 3 after a call or return between them'
\$perf script -i /tmp/p.data --itrace=b -F event,ip,sym,symoff,addr,flags 2>/dev/null |
	awk -v EVENTS='cycles:u|instructions:u' -v FUNCS='hot|warm' -v SHOW=3 \\
	    -v BRANCHES=3 -f $repo/harness/demo/branches.awk
echo '== per hidden event stream: overlap removed and trace lost, exactly'
\$perf script -v -i /tmp/p.data --itrace=b 2>&1 >/dev/null | grep 'AUX samples of'
echo
echo '== the mission: perf record -Aintel_pt -e cycles,instructions -- ls /'
\$perf record -q -Aintel_pt -e cycles,instructions -o /tmp/l.data -- ls / > /dev/null
\$perf script -v -i /tmp/l.data --itrace=b 2>&1 >/dev/null | grep 'AUX samples of'
"
