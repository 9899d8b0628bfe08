#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cs_etm_parity.sh BUILD DIR: pt.sh's parity checks for -Acs_etm, on the
# recordings cs_etm.sh made in the arm64 guest (DIR, its output's
# cs_etm_parity), decoded here by the host's perf with OpenCSD (the
# guest's perf decodes the same, a hundred times slower) and compared
# by gapcmp.py, which the guest has no Python for.  The branches of
# lfsr.arm64.S's samples (at its page faults, some 13 KB of trace apart)
# are a full trace's, but for gaps, each where perf reports lost trace:
# with 4 KiB samples, too small for the trace between them, some are
# lost and every loss is reported; with 60000 bytes, none is, and the
# samples hold the whole run.  TAP.
. "$(dirname "$0")/lib/tap.sh"
perf=$1/perf/perf
dir=$2

branches() {	# NAME, decoded once
	[ -s "$tmp/$1.b" ] && return
	"$perf" script -i "$dir/$1.data" --itrace=be -F event,ip,addr \
		> "$tmp/$1.b" 2> "$tmp/$1.err" ||
		{ cat "$tmp/$1.err"; rm -f "$tmp/$1.b"; return 1; }
}

losses() {
	branches full && branches aux4096 &&
	python3 "$here/gapcmp.py" --cs-etm "$tmp/full.b" "$tmp/aux4096.b" &&
	grep -q 'Lost trace data' "$tmp/aux4096.b"
}

whole() {
	branches full && branches aux60000 &&
	python3 "$here/gapcmp.py" --cs-etm --whole "$tmp/full.b" "$tmp/aux60000.b"
}

check "-Acs_etm, 4 KiB samples: a full trace's branches but for gaps, each at a reported loss" losses
check "-Acs_etm, 60000-byte samples: the full trace's branches, all of them" whole
echo "1..$n"
exit $failed
