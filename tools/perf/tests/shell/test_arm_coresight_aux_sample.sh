#!/bin/sh
# Arm CoreSight: perf record -A cs_etm, the ETE's trace in samples
# SPDX-License-Identifier: GPL-2.0
#
# perf record -Acs_etm gives each sample of a sampling event the latest
# trace of a hidden cs_etm event (a TRBE sink's, raw ETE) with its position
# in the event's stream, and perf script decodes the samples' trace laid
# end to end, the overlap between samples dropped.  Record perf's brstack
# workload, whose loop runs a known number of instructions, with samples
# every 20,000 of its instructions that hold all its trace (a timer's
# period would span more trace on a faster machine, and take more samples
# per instruction on a slower one), and with --per-thread cs_etm for
# reference: the samples decode to the workload's functions, and, where
# perf reports no trace lost between samples, to as many instructions in
# them as the reference.  Then with samples too small for the trace between them:
# perf reports the trace lost, and decodes no more instructions of the
# loop than the reference.

caps=/sys/bus/event_source/devices/cs_etm/caps
[ -e "$caps/aux_sample" ] && [ -e "$caps/aux_position" ] || {
	echo "No cs_etm hidden AUX events with positions: skip"
	exit 2
}

err=0
dir=$(mktemp -d /tmp/__perf_test.aux_cs_etm.XXXXXX)
trap 'rm -rf "$dir"' EXIT TERM INT

loops=5000
work="perf test -w brstack $loops"

# The instructions decoded in the brstack workload's functions (not the
# samples there), one a line, into FLOW, and perf script -v's account of
# the AUX samples into FLOW.v; prints how many.
brstack_flow() {	# PERF.DATA FLOW
	perf script -v -i "$1" --itrace=i1 -F event,ip,sym 2> "$2.v" |
		sed -n 's/^ *instructions:[a-zA-Z]*: *\([0-9a-f]* brstack_.*\)/\1/p' > "$2"
	wc -l < "$2"
}

# Where the flow of -A recording DATA first differs from the reference's,
# with what perf script shows there (samples, errors), for the log.
first_difference() {	# PERF.DATA
	diff=$(cmp "$dir/ref.flow" "$dir/a.flow" | sed -n 's/.* line \([0-9]*\).*/\1/p')
	[ -n "$diff" ] || return
	echo "brstack_* instruction $diff differs from the reference's; the reference:"
	sed -n "$((diff > 5 ? diff - 5 : 1)),$((diff + 5))p" "$dir/ref.flow"
	echo "the -A recording:"
	perf script -i "$1" --itrace=ei1 -F event,ip,sym 2>&1 |
		awk -v n="$diff" '/^ *instructions.* brstack_/ { i++ }
			i >= n - 5 && i <= n + 5'
}

# The trace lost between the samples of the recording brstack_flow()
# decoded into FLOW.
lost_bytes() {		# FLOW
	sed -n 's/^AUX samples:.*trace lost between them: \([0-9]*\) bytes.*/\1/p' "$1.v"
}

fail() {
	echo "FAIL: $*"
	err=1
}

if ! perf record -q -o "$dir/ref.data" -e cs_etm//u --per-thread -- $work; then
	echo "perf record -e cs_etm//u failed: skip"
	exit 2
fi
ref=$(brstack_flow "$dir/ref.data" "$dir/ref.flow")
echo "Reference: $ref instructions in brstack_*"
[ "$ref" -gt 0 ] || fail "no brstack_* instructions in the reference"

for size in 60000 4096; do
	perf record -q -o "$dir/a.data" -m 1M -Acs_etm \
		-e instructions/period=20000/u --aux-sample=$size -- $work ||
		{ fail "perf record -Acs_etm --aux-sample=$size"; continue; }
	got=$(brstack_flow "$dir/a.data" "$dir/a.flow")
	lost=$(lost_bytes "$dir/a.flow")
	echo "--aux-sample=$size: $got instructions in brstack_*, ${lost:-?} bytes of trace lost"
	[ -n "$lost" ] || fail "perf script -v says nothing of the AUX samples"
	[ "$got" -gt 0 ] || fail "no brstack_* instructions decoded"
	if [ "$lost" = 0 ]; then
		[ "$got" = "$ref" ] || {
			fail "$got instructions, $ref in the reference"
			first_difference "$dir/a.data"
		}
	else
		[ "$got" -le "$ref" ] || fail "more instructions ($got) than the reference ($ref)"
		perf script -i "$dir/a.data" --itrace=e 2>/dev/null |
			grep -q 'Lost trace data' || fail "trace lost but not reported"
	fi
done

exit $err
