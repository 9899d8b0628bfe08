#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# flow.sh BUILD: what TCG's Intel PT writes is what the CPU executed, told
# by two programs this project did not write: libipt's instruction decoder
# turns the trace of a program with signals, syscalls, indirect calls and
# a fork (flow.c) into its instruction flow, and flowcmp.py matches that
# flow against QEMU's own log of the translation blocks it ran.  The
# guest must run on one vCPU with QEMU logging them:
#   -smp 1 -d exec,nochain -dfilter 0x10000000..0x10ffffff -D OUT/exec.log
# (OUT: the run's dir, /tmp/out here).  TAP.  A flow that does not match
# is left in OUT with the program and its recording.
. "$(dirname "$0")/lib/guest.sh"
log=/tmp/out/exec.log

# The program, traced; its exit status says every signal arrived.
record() {
	gcc -O1 -static -no-pie -Wl,-Ttext-segment=0x10000000 -o "$tmp/flow" "$here/flow.c" &&
	gcc -O2 -o "$tmp/ptdecode" "$here/ptdecode.c" -lipt &&
	"$perf" record -q -m,4M -o "$tmp/pt.data" -e intel_pt//u "$tmp/flow" fork
}

# Each CPU's trace as raw bytes, $tmp/pt.CPU: perf -D dumps each AUXTRACE
# event's header (ending "cpu: N") and then its bytes at 8-digit offsets.
split_streams() {
	"$perf" report -i "$tmp/pt.data" -D 2>/dev/null | awk -v dir="$tmp" '
		/PERF_RECORD_AUXTRACE size:/ { cpu = $NF }
		/^\. +[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]: / {
			for (i = 3; i <= NF && $i ~ /^[0-9a-f][0-9a-f]$/; i++)
				printf "%s", $i > (dir "/pt." cpu ".hex")
		}' &&
	for hex in "$tmp"/pt.*.hex; do
		python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read()))' \
			< "$hex" > "${hex%.hex}" || return 1
	done
}

# libipt's flow of each CPU's trace against what that CPU ran.
compare() {
	split_streams || return 1
	for raw in "$tmp"/pt.[0-9]*; do
		case $raw in *.hex) continue ;; esac
		cpu=${raw##*.}
		"$tmp/ptdecode" -e "$raw" "$tmp/flow" > "$tmp/flow.$cpu" &&
		python3 "$here/flowcmp.py" "$tmp/flow.$cpu" "$log" "$cpu" \
			10000000 11000000 ||
			{ cp "$tmp/flow" "$tmp/pt.data" "$tmp/flow.$cpu" /tmp/out; return 1; }
	done
}

echo "1..2"
[ -f "$log" ] || { echo "Bail out! no QEMU exec log at $log"; exit 1; }
check "perf record -e intel_pt//u of a program with signals, syscalls, indirect calls, a fork" record &&
check "libipt's flow of its trace is what QEMU ran" compare
exit $failed
