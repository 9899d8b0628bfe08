#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fuzz-perf-cases.sh PERF: make fuzz-perf's findings, kept in
# harness/fuzz-perf-cases/{file,pipe}/ (an AFL++ input each, or made from a
# seed by hand), read by PERF script under valgrind, as perf script -i FILE
# or -i - reads them.  Each must end within two minutes, read or refused
# with perf's own error, with no signal and no invalid access.  TAP.  (Under valgrind, a
# read before a buffer that perf allocated larger than the event goes
# unseen: make fuzz-perf replays the cases under ASan too.)
perf=$1
cases=$(dirname "$0")/fuzz-perf-cases
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PERF_CONFIG_NOSYSTEM=1 HOME=$tmp

set -- "$cases"/file/* "$cases"/pipe/*
echo "TAP version 13"
echo "1..$#"
n=0
failed=0
for input; do
	n=$((n + 1))
	name="$(basename "$(dirname "$input")")/$(basename "$input")"
	if [ "${name%%/*}" = pipe ]; then
		from=-
	else
		from=$input
	fi
	timeout 120 valgrind -q --error-exitcode=99 "$perf" script -i "$from" \
		--itrace=bew < "$input" > /dev/null 2> "$tmp/err"
	rc=$?
	case $rc in
	99) why="an invalid access (valgrind)" ;;
	124) why="still reading after 120 s" ;;
	129 | 1[3-5][0-9]) why="died of signal $((rc - 128))" ;;
	*) why= ;; # perf's errors are -errno: 1, or 193 and above
	esac
	if [ -z "$why" ] && [ $rc = 0 ]; then
		echo "ok $n $name: perf reads it, unhurt"
		continue
	elif [ -z "$why" ]; then
		echo "ok $n $name: perf refuses it ($(tail -1 "$tmp/err"))"
		continue
	fi
	echo "not ok $n $name: $why"
	sed 's/^/# /' "$tmp/err" | tail -20
	failed=1
done
exit $failed
