#!/bin/sh
# ptsim: perf script -i - of a pipe-mode perf.data file
# SPDX-License-Identifier: GPL-2.0
#
# perf record -o - writes a pipe-mode perf.data; perf script -i - reads it
# from a pipe, or from the file itself (-i FILE, or -i - < FILE), which perf
# script reads as a pipe but can seek.  Record a busy shell loop's ptsim
# trace (a PTW packet with a sequence number, 1, 2, 3, ..., at each tick of
# a timer) in pipe mode to a file, and check that perf script gives the
# same ptwrites read each way, with no decoding error and no gap in the
# sequence numbers, and that each way reads it without decoding
# (--no-itrace) without an error.

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

# script_pipe_file HOW OUTPUT [OPTIONS]: perf script OPTIONS of the file,
# read HOW: "pipe" (cat FILE | perf script -i -), "stdin" (-i - < FILE) or
# "path" (-i FILE); any error ends the test.
script_pipe_file()
{
	how=$1
	out=$2
	shift 2
	case ${how} in
	pipe)	cat "${perfdata}" | perf script -i - "$@" > "${out}" 2> "${errfile}" ;;
	stdin)	perf script -i - "$@" < "${perfdata}" > "${out}" 2> "${errfile}" ;;
	path)	perf script -i "${perfdata}" "$@" > "${out}" 2> "${errfile}" ;;
	esac
	rc=$?
	if [ ${rc} -ne 0 ] || grep -q "unexpected end\|failed to process" "${errfile}" ; then
		cat "${errfile}"
		echo "perf script $* of the file (${how}) failed (${rc})"
		ptsim_cleanup
		exit 1
	fi
}

script_pipe_file pipe "${piped}" --itrace=we -F synth
for how in stdin path ; do
	script_pipe_file ${how} "${outfile}" --itrace=we -F synth
	if ! cmp -s "${piped}" "${outfile}" ; then
		diff "${piped}" "${outfile}" | head
		echo "perf script (${how}) differs from cat FILE | perf script -i -"
		err=1
	fi
done

# Without decoding, the trace after each AUXTRACE event is read past
for how in pipe stdin path ; do
	script_pipe_file ${how} /dev/null --no-itrace
done

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
