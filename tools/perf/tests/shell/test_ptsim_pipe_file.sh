#!/bin/sh
# ptsim: perf script -i - of a pipe-mode perf.data file
# SPDX-License-Identifier: GPL-2.0
#
# perf record -o - writes a pipe-mode perf.data; perf script -i - reads it
# from a pipe, or from the file itself on stdin, which perf script reads as
# a pipe but can seek.  Record a busy shell loop's ptsim trace (a PTW packet
# with a sequence number, 1, 2, 3, ..., at each tick of a timer) in pipe
# mode to a file, and check that perf script gives the same ptwrites read
# either way, with no decoding error and no gap in the sequence numbers.

. "$(dirname "$0")"/lib/ptsim.sh

ptsim_test_setup ptsim_pipe_file
piped="${temp_dir}/piped.txt"
err=0

if ! perf record -o - --per-thread -e ptsim//u -- \
		sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done' \
		> "${perfdata}" 2> "${errfile}" ; then
	cat "${errfile}"
	echo "perf record -o - failed"
	ptsim_cleanup
	exit 1
fi

cat "${perfdata}" |
	perf script -i - --itrace=we -F synth > "${piped}" 2> "${errfile}"
perf script -i - --itrace=we -F synth < "${perfdata}" > "${outfile}" \
	2> "${errfile}"

if ! cmp -s "${piped}" "${outfile}" ; then
	diff "${piped}" "${outfile}" | head
	echo "perf script -i - < FILE differs from cat FILE | perf script -i -"
	err=1
fi

# Each line "IP: 1 payload: SEQ", SEQ going up by one from 1
if ! awk "${ptsim_awk_hex}"'
	$3 != "payload:" || hex($4) != NR {
		printf "Not ptwrite %d: %s\n", NR, $0
		exit 1
	}
	END {
		printf "%d ptwrites\n", NR
		exit NR < 10
	}' "${outfile}" ; then
	echo "Bad ptwrites from the file on stdin"
	err=1
fi

ptsim_cleanup
exit ${err}
