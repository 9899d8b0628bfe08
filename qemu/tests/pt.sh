#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pt.sh BUILD: in a guest of the patched QEMU, the stock intel_pt driver on
# TCG's Intel PT (qemu/0004, 0006, 0007): it probes with what CPUID 0x14
# says, perf's decoder finds in the trace of a program exactly the
# instructions and branches it ran, so does libipt's, also with CYC, with
# address filters and with a TraceStop range, PSBFreq spaces PSBs, and perf
# record -A gets trace into samples, at exact positions, decoded in time
# order, also those of per-CPU hidden events with context switches, keeps
# Intel PT's recording options (the sideband of every CPU, the config
# checked against the caps), and decodes to the branches, branch stacks
# and call chains that a full trace gives, and where samples lose trace,
# to its branches but for a gap at each loss reported.  TAP.
. "$(dirname "$0")/lib/guest.sh"
loops=100000
caps=/sys/bus/event_source/devices/intel_pt/caps

# CPUID 0x14 as the emulator sets it: ToPA with multiple entries, CR3
# filtering, CYC of all 16 thresholds and PSB of all 16 frequencies, IP
# filtering with 2 address ranges, MTC of all 16 periods, PTWRITE,
# nothing else.
probed() {
	for c in topa_output topa_multiple_entries cr3_filtering psb_cyc \
		 ip_filtering mtc ptwrite; do
		[ "$(cat $caps/$c)" = 1 ] || { echo "$c: $(cat $caps/$c)"; return 1; }
	done
	for c in power_event_trace event_trace tnt_disable single_range_output \
		 output_subsys payloads_lip; do
		[ "$(cat $caps/$c)" = 0 ] || { echo "$c: $(cat $caps/$c)"; return 1; }
	done
	for c in mtc_periods cycle_thresholds psb_periods; do
		[ "$(cat $caps/$c)" = ffff ] || { echo "$c: $(cat $caps/$c)"; return 1; }
	done
	[ "$(cat $caps/num_address_ranges)" = 2 ] || { echo "num_address_ranges: $(cat $caps/num_address_ranges)"; return 1; }
}

# perf's default configuration: TSC and MTC, whose CTC perf takes from
# CPUID 0x15 (TSC = 128 CTC here); PSB+ has TSC and TMA.
record() {
	"$perf" record -q -o "$tmp/pt.data" -e intel_pt//u "$tmp/loop" &&
	"$perf" report -i "$tmp/pt.data" -D > "$tmp/pt.dump" 2>/dev/null &&
	grep 'TSC:CTC numerator *128$' "$tmp/pt.dump" &&
	grep -m1 ' TMA ' "$tmp/pt.dump" && grep -m1 ' MTC ' "$tmp/pt.dump"
}

# The instructions loop.S of LOOPS iterations retires, in order, one
# address per line.
flow() {	# [LOOPS]
	awk -v n="${1:-$loops}" 'BEGIN {
		print "401000"
		for (i = 0; i < n; i++)
			print "401005\n401007"
		print "401009\n40100e\n401010"
	}'
}

# The instruction flow perf decodes from a recording, one address per line.
perf_flow() {	# PERF.DATA
	"$perf" script -i "$1" --itrace=i0nse -F ip > "$tmp/perf.flow" &&
	! grep -i error "$tmp/perf.flow" &&
	sed 's/^ *//' "$tmp/perf.flow"
}

# Every instruction the program retired, decoded by perf from its trace,
# in order and nothing lost; as many as instructions:u counts.
instructions() {
	perf_flow "$tmp/pt.data" > "$tmp/insns" &&
	flow | cmp - "$tmp/insns" &&
	decoded=$(wc -l < "$tmp/insns") &&
	counted=$("$perf" stat -x, -e instructions:u "$tmp/loop" 2>&1 >/dev/null | cut -d, -f1) &&
	echo "decoded $decoded, instructions:u $counted, want $((2 * loops + 4))" &&
	[ "$decoded" = "$counted" ] && [ "$decoded" = $((2 * loops + 4)) ]
}

# The instruction flow libipt (ptdecode.c) decodes from a recording of
# PROGRAM, one address per line.  libipt decodes one raw stream; a
# per-CPU recording of a task that moved between CPUs is one per CPU,
# which only a decoder with the sideband (perf) can interleave, so
# libipt's is recorded --per-thread: one buffer that follows the task.
# perf -D dumps the AUX area's bytes packet by packet, at 8-digit offsets
# (events are dumped at 4-digit ones).
libipt_flow() {	# PROGRAM PERF-RECORD-OPTIONS...
	prog=$1
	shift
	"$perf" record -q --per-thread -o "$tmp/t.data" "$@" "$prog" &&
	"$perf" report -i "$tmp/t.data" -D 2>/dev/null |
		awk '/^\. +[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]: / {
			for (i = 3; i <= NF && $i ~ /^[0-9a-f][0-9a-f]$/; i++)
				printf "%s", $i
		}' |
		python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read()))' \
		> "$tmp/raw" &&
	ptdecode "$tmp/raw" "$prog"
}

# libipt's instruction flow of a raw trace stream of PROGRAM.
ptdecode() {	# RAW PROGRAM
	[ -x "$tmp/ptdecode" ] || gcc -O2 -o "$tmp/ptdecode" "$here/ptdecode.c" -lipt &&
	"$tmp/ptdecode" "$1" "$2"
}

# The same, decoded by libipt from the raw trace.
libipt() {
	libipt_flow "$tmp/loop" -e intel_pt//u > "$tmp/libipt" &&
	flow | cmp - "$tmp/libipt"
}

# CYC (every packet's, threshold 0): perf and libipt still decode exactly
# the instructions loop.S retired, and perf's timestamps, which CYC now
# times between MTCs, never go back.
cyc() {
	"$perf" record -q -o "$tmp/c.data" -e intel_pt/cyc,cyc_thresh=0/u "$tmp/loop" &&
	cycs=$("$perf" report -i "$tmp/c.data" -D 2>/dev/null | grep -c ' CYC 0x') &&
	echo "$cycs CYC packets" && [ "$cycs" -gt 0 ] &&
	perf_flow "$tmp/c.data" > "$tmp/c.perf" && flow | cmp - "$tmp/c.perf" &&
	libipt_flow "$tmp/loop" -e intel_pt/cyc,cyc_thresh=0/u > "$tmp/c.libipt" &&
	flow | cmp - "$tmp/c.libipt" &&
	"$perf" script -i "$tmp/c.data" --itrace=i100ns -F time --ns > "$tmp/c.time" &&
	tr -d ' :' < "$tmp/c.time" | sort -c -n
}

# PSBFreq: psb_period=2 puts a PSB once 8 KiB have gone out since the
# last (sooner only where the trace was enabled again).
psb_period() {
	"$perf" record -q -o "$tmp/p.data" -e intel_pt/psb_period=2/u "$tmp/loop" &&
	"$perf" report -i "$tmp/p.data" -D 2>/dev/null |
		awk 'function hex(s, i, n) {
				for (i = 1; i <= length(s); i++)
					n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return n
			}
			/PERF_RECORD_AUXTRACE size:/ { last = -1 }
			/^\. +[0-9a-f]+: +02 82 02 82/ {
				off = hex(substr($2, 1, length($2) - 1))
				if (last >= 0) {
					d = off - last
					if (d > max) max = d
				}
				last = off
			}
			END { print "longest distance between PSBs:", max
				exit !(max >= 8192 && max <= 8192 + 64) }'
}

# ranges.S's instructions in f and in h (from h to where it leaves its
# range: by the jnz when ECX is odd, by the ret when it is even).
filtered_flow() {
	awk -v n=$rloops 'BEGIN {
		for (i = n; i > 0; i--) {
			print "401021\n401022\n401023\n401026"
			if (i % 2 == 0)
				print "401028"
		}
	}'
}

# ranges.S's instructions up to the call of g.
stopped_flow() {
	awk -v n=$rloops 'BEGIN {
		print "401000"
		for (i = n; i > 0; i--) {
			print "401005\n401021\n401022\n40100a\n401023\n401026"
			print (i % 2 ? "401029" : "401028")
			print "40100f\n401011"
		}
		print "401013"
	}'
}

# perf and libipt decode a recording of ranges.S with address filter
# FILTER to exactly WANT's instruction flow.
ranges_decode() {	# FILTER WANT
	"$perf" record -q -o "$tmp/r.data" -e intel_pt//u --filter "$1" "$tmp/ranges" &&
	"$perf" report -i "$tmp/r.data" -D 2>/dev/null | grep -c -E ' (TIP.PG[DE]|TRACESTOP) ' &&
	"$2" > "$tmp/r.want" &&
	perf_flow "$tmp/r.data" > "$tmp/r.perf" && cmp "$tmp/r.want" "$tmp/r.perf" &&
	libipt_flow "$tmp/ranges" -e intel_pt//u --filter "$1" > "$tmp/r.libipt" &&
	cmp "$tmp/r.want" "$tmp/r.libipt"
}

# IP filtering, two ranges: perf's filters on f and h.
ip_filter() {
	ranges_decode "filter f @ $tmp/ranges , filter h @ $tmp/ranges" filtered_flow
}

# TraceStop: the trace of the whole program ends where g is called.
trace_stop() {
	ranges_decode "tracestop g @ $tmp/ranges" stopped_flow
}

# The loop's taken branches, exactly: jnz back loops - 1 times.
branches() {
	"$perf" script -i "$tmp/pt.data" --itrace=be -F ip,addr > "$tmp/br" &&
	! grep -i error "$tmp/br" &&
	taken=$(grep -c -E '^ *401007 => +401005$' "$tmp/br") &&
	echo "jnz taken $taken times, want $((loops - 1))" &&
	[ "$taken" = $((loops - 1)) ]
}

# PTWRITE (ptw.S): perf finds each payload at the PTWRITE that wrote it,
# with branch tracing off (PTW packets alone) and on.
ptwrite() {
	gcc -nostdlib -static -o "$tmp/ptw" "$here/ptw.S" || return 1
	printf '0x1122334455667788 40100a\n0xcafef00d 401017\n' > "$tmp/w.want"
	for branch in 0 1; do
		"$perf" record -q -o "$tmp/w.data" -e "intel_pt/ptw,fup_on_ptw,branch=$branch/u" "$tmp/ptw" &&
		"$perf" script -i "$tmp/w.data" --itrace=we -F ip,synth > "$tmp/w" &&
		cat "$tmp/w" &&
		awk '{ print $4, $5 }' "$tmp/w" | cmp - "$tmp/w.want" || return 1
	done
}

# The mission's command: samples of cycles and instructions carry PT.  A
# fixed period: at the default 4000 Hz, a debug kernel under TCG spends
# nearly all its time in PMIs that copy trace.
aux_sample() {
	"$perf" record -q -o "$tmp/a.data" -Aintel_pt -e cycles,instructions -c 1000000 -- ls / &&
	"$perf" report -i "$tmp/a.data" -D > "$tmp/a.txt" 2>&1 &&
	samples=$(grep -c 'Intel Processor Trace data: size [1-9]' "$tmp/a.txt") &&
	echo "$samples samples with trace" && [ "$samples" -gt 0 ] &&
	grep -m1 -E '^\. +[0-9a-f]+: +02 82 02 82' "$tmp/a.txt"
}

# Trace positions (-A on intel_pt, pt.c): the samples of instructions:u
# every PERIOD instructions of a long loop (some 270 KiB of trace) each
# hold the last SIZE bytes of a hidden buffer that the trace goes round
# many times: 2 pages for 256 and 4096 bytes, 16 for 61440.  Each sample
# holds more than was written since the one before, so laid at their
# positions the samples must leave no byte of the stream out and agree
# byte for byte where they overlap (aux_stream.py); the stream they make
# up must decode (libipt), and perf's exact path must decode the samples,
# to exactly the instructions the loop retired up to its last sample.
# TERMS: MTC packets come with time, not instructions: off where samples
# are small.  perf's buffer (-m) takes all samples before perf reads them.
positions() {	# SIZE PERIOD TERMS
	sampled_stream "$@" > "$tmp/s.stream" && cat "$tmp/s.stream" &&
	flow $lloops > "$tmp/s.want" &&
	ptdecode "$tmp/s.raw" "$tmp/long" > "$tmp/s.libipt" &&
	sampled_flow libipt "$tmp/s.libipt" "$2" &&
	"$perf" script -i "$tmp/s.data" --itrace=i0nse -F event,ip > "$tmp/s.perf" &&
	first_loss "$tmp/s.perf" "$tmp/s.stream" &&
	decoded_ips "$tmp/s.perf" > "$tmp/s.flow" &&
	sampled_flow perf "$tmp/s.flow" "$2"
}

# perf script's output PERF has no error, but where the trace before the
# first sample did not fit in it (an interrupt, say, added packets): one
# loss of the bytes before the first sample, where the stream that
# aux_stream.py made (its output STREAM) starts.
first_loss() {	# PERF STREAM
	start=$(sed -n 's/.* stream bytes \([0-9]*\) to .*/\1/p' "$2") &&
	! grep -i error "$1" |
		grep -v "code 8: Lost trace data: $start bytes before this AUX sample" &&
	[ "$(grep -c -i error "$1")" -le 1 ]
}

# The addresses of the instructions perf decoded, from perf script -F
# event,ip output PERF: not the samplers' own samples, nor error events
# (" instruction trace error type 1 ...").
decoded_ips() {	# PERF
	awk '$1 != "instructions:u:" && $1 != "instruction" { print $2 }' "$1"
}

# Record the long loop with -A and lay the samples' trace at their
# positions ($tmp/s.raw), with aux_stream.py's option.
sampled_stream() {	# SIZE PERIOD TERMS [OPTION]
	taskset -c 0 "$perf" record -q -o "$tmp/s.data" -Aintel_pt/$3/ \
		--aux-sample="$1" -e instructions:u -c "$2" -m 1024 -- "$tmp/long" &&
	"$perf" report -i "$tmp/s.data" -D 2>/dev/null |
		python3 "$here/aux_stream.py" $4 "$tmp/s.raw"
}

# Positions count every lap of the hidden buffer, also when no sample
# looks at it for laps on end (the PMIs at each half of it do): 256-byte
# samples every 200000 instructions, some 13 KiB of trace apart, in a
# 2-page buffer, end where 60 KiB samples as often, that leave nothing
# out, end: as far as timer interrupts, which add packets, let them (2%).
laps() {
	sampled_stream 61440 200000 mtc=0 > "$tmp/l.all" &&
	sampled_stream 256 200000 mtc=0 --gaps > "$tmp/l.some" &&
	cat "$tmp/l.all" "$tmp/l.some" &&
	all=$(sed -n 's/.* to \([0-9]*\),.*/\1/p' "$tmp/l.all") &&
	some=$(sed -n 's/.* to \([0-9]*\),.*/\1/p' "$tmp/l.some") &&
	[ $((some * 50)) -gt $((all * 49)) ] && [ $((some * 50)) -lt $((all * 51)) ]
}

# FLOW, decoded by DECODER, is the loop's flow ($tmp/s.want) up to its
# last sample: all of it but less than PERIOD instructions at the end.
sampled_flow() {	# DECODER FLOW PERIOD
	got=$(wc -l < "$2") && want=$(wc -l < "$tmp/s.want") &&
	echo "$1: $got of the loop's $want instructions" &&
	[ "$got" -gt $((want - $3)) ] && head -n "$got" "$tmp/s.want" | cmp - "$2"
}

# An exec in the middle of a sample's trace: exec_a (exec.S: 100007
# instructions) execs exec_b, and the first sample, 993 instructions into
# exec_b, holds the end of exec_a's trace too.  perf decodes the trace in
# time order with the exec, so each part against its own program (the two
# have different code at the same addresses): no decoding error, exec_a's
# branches, then exec_b's.
exec_mid() {
	taskset -c 0 "$perf" record -q -o "$tmp/x.data" -Aintel_pt \
		--aux-sample=61440 -e instructions:u -c 101000 -- \
		"$tmp/exec_a" "$tmp/exec_b" &&
	"$perf" script -i "$tmp/x.data" --itrace=be -F ip,sym,dso > "$tmp/x.txt" &&
	! grep -i error "$tmp/x.txt" | grep -v 'code 8: Lost trace data' &&
	a=$(grep -c 'exec_a)' "$tmp/x.txt") && b=$(grep -c 'exec_b)' "$tmp/x.txt") &&
	echo "branches: $a in exec_a, $b in exec_b" &&
	[ "$a" -gt 1000 ] && [ "$b" -gt 1000 ] &&
	awk '/exec_b\)/ { b = 1 } /exec_a\)/ && b { print "exec_a after exec_b:", $0; exit 1 }' "$tmp/x.txt"
}

# perf record -A into a pipe, perf script out of it: the samples' trace is
# decoded as each sample comes, to the same exact flow as from a file
# (check 13's).
pipe() {
	taskset -c 0 "$perf" record -q -o - -Aintel_pt/mtc=0/ --aux-sample=4096 \
		-e instructions:u -c 20000 -m 1024 -- "$tmp/long" |
		"$perf" script -i - --itrace=i0nse -F event,ip > "$tmp/p.perf" &&
	flow $lloops > "$tmp/s.want" &&
	! grep -i error "$tmp/p.perf" &&
	decoded_ips "$tmp/p.perf" > "$tmp/p.flow" &&
	sampled_flow perf "$tmp/p.flow" 20000
}

# perf record -a (here -C 0) -Aintel_pt: a hidden event per CPU traces
# every task on it.  Two programs with different code at the same
# addresses (exec.S's two kinds, looping long) take turns on CPU 0; perf
# records context switches, as for a plain Intel PT event, and decodes the
# CPU's trace in time order with them, each part against the program that
# ran it: branches of both, no decoding error.
cpu_wide() {
	taskset -c 1 "$perf" record -q -o "$tmp/c.data" -C 0 -Aintel_pt \
		--aux-sample=61440 -e instructions:u -c 100000 -- \
		sh -c "taskset -c 0 $tmp/spin_b & taskset -c 0 $tmp/spin_a /bin/true; wait" &&
	"$perf" script -i "$tmp/c.data" --itrace=be -F comm,ip,sym > "$tmp/c.txt" &&
	! grep -i error "$tmp/c.txt" | grep -v 'code 8: Lost trace data' &&
	a=$(grep -c '^ *spin_a .* before' "$tmp/c.txt") &&
	b=$(grep -c '^ *spin_b .* after' "$tmp/c.txt") &&
	echo "branches: $a in spin_a's before(), $b in spin_b's after()" &&
	[ "$a" -gt 1000 ] && [ "$b" -gt 1000 ] &&
	runs=$(awk '$1 ~ /^spin_[ab]$/ && $1 != last { n++; last = $1 } END { print n }' "$tmp/c.txt") &&
	echo "$runs runs of one program's branches" && [ "$runs" -ge 2 ]
}

# A sysfs for perf (SYSFS_PATH) at $tmp/sys: links to all of /sys but
# for the directories on the way to PATH, made of links too, less PATH.
sysfs_without() {	# PATH (under /sys)
	src=/sys dst=$tmp/sys rest=$1
	rm -rf "$dst"
	while [ -n "$rest" ]; do
		next=${rest%%/*}
		rest=${rest#"$next"}
		rest=${rest#/}
		mkdir -p "$dst" || return 1
		for f in "$src"/*; do
			[ "${f##*/}" = "$next" ] || ln -s "$f" "$dst/" || return 1
		done
		src=$src/$next dst=$dst/$next
	done
}

# Hidden Intel PT events have the shortest PSB period (2 KiB), whatever
# the config says: perf refuses a psb_period term.  A sample without a
# position must hold a PSB+ to be decoded on its own: perf warns when the
# sample size may be too small for that period, as for --aux-sample.
# Samples with positions continue each other: no warning.  Intel PT as a
# PMU that cannot tell positions is one without caps/aux_position.
aux_psb() {
	! "$perf" record -o "$tmp/w.data" -Aintel_pt/psb_period=4/ \
		-e instructions:u -- true > "$tmp/w.txt" 2>&1 &&
	grep 'psb_period cannot be set' "$tmp/w.txt" &&
	sysfs_without bus/event_source/devices/intel_pt/caps/aux_position &&
	SYSFS_PATH="$tmp/sys" "$perf" record -o "$tmp/w.data" -Aintel_pt \
		--aux-sample=2048 -e instructions:u -- true > "$tmp/w.txt" 2>&1 &&
	grep 'sample size (2048) may be too small for PSB period (2048)' "$tmp/w.txt" &&
	"$perf" record -o "$tmp/w.data" -Aintel_pt --aux-sample=2048 \
		-e instructions:u -- true > "$tmp/w.txt" 2>&1 &&
	! grep 'may be too small' "$tmp/w.txt"
}

# Decode parity: ranges.S recorded twice, with a full trace (-e
# intel_pt//u beside samples of instructions:u) and with -A samples big
# enough to hold all the trace between them, the samples at the same
# instructions.  Up to the last sample, perf script --itrace=b shows the
# same branches of the program from both (but for the trace's disables
# and enables around interrupts, to and from address 0, which fall where
# they may), --itrace=i the same instructions, and --itrace=L and G give
# each sample the same branch stack (but for those disables and enables:
# an interrupt within a sample's last 64 branches, in either run, puts
# them among its entries; the first 56 others are compared) and call
# chain.  The -A recording
# has one sample more, at the exit (see perf_aux_sample_exit()), whose
# trace holds the rest: its flow may end with the exit's system call,
# which the full trace's does not show.
parity() {
	gcc -nostdlib -static -DLOOPS=20000 -o "$tmp/r" "$here/ranges.S" &&
	taskset -c 0 "$perf" record -q -o "$tmp/full.data" -e intel_pt//u \
		-e instructions:u -c 10007 "$tmp/r" &&
	taskset -c 0 "$perf" record -q -o "$tmp/aux.data" -Aintel_pt \
		--aux-sample=61440 -e instructions:u -c 10007 -m 1024 "$tmp/r" &&
	for f in full aux; do
		"$perf" script -i "$tmp/$f.data" --itrace=be -F event,ip,addr \
			> "$tmp/$f.b" 2> /dev/null &&
		! grep -i error "$tmp/$f.b" &&
		awk '$1 ~ /^branches/ && $2 != 0 && $4 != 0 { print $2, $4 }' \
			"$tmp/$f.b" > "$tmp/$f.br" &&
		"$perf" script -i "$tmp/$f.data" --itrace=i0ns -F ip \
			> "$tmp/$f.i" 2> /dev/null &&
		"$perf" script -i "$tmp/$f.data" --itrace=L -F event,ip,brstack \
			> "$tmp/$f.Lall" 2> /dev/null &&
		awk '{
			line = $1 " " $2
			for (i = 3; i <= NF && kept < 56; i++)
				if ($i !~ /(^|\/)0x0\//) {
					line = line " " $i
					kept++
				}
			print line
			kept = 0
		}' "$tmp/$f.Lall" > "$tmp/$f.L" &&
		"$perf" script -i "$tmp/$f.data" --itrace=G -F event,ip,sym \
			> "$tmp/$f.G" 2> /dev/null || return 1
	done
	full=$(wc -l < "$tmp/full.br") && aux=$(wc -l < "$tmp/aux.br") &&
	fulli=$(wc -l < "$tmp/full.i") && auxi=$(wc -l < "$tmp/aux.i") &&
	samples=$(grep -c instructions "$tmp/full.L") &&
	[ "$(grep -c instructions "$tmp/aux.L")" = $((samples + 1)) ] &&
	head -n "$samples" "$tmp/aux.L" > "$tmp/aux.L1" &&
	awk -v n="$samples" 'BEGIN { RS = ""; ORS = "\n\n" } NR <= n' \
		"$tmp/aux.G" > "$tmp/aux.G1" &&
	awk 'BEGIN { RS = ""; ORS = "\n\n" } 1' "$tmp/full.G" > "$tmp/full.G1" &&
	stacks=$(grep -c '0x.*/0x.*/.*0x.*/0x' "$tmp/aux.L1") &&
	chains=$(grep -c -E '^[[:space:]]+[0-9a-f]+ _start$' "$tmp/aux.G1") &&
	echo "branches: $full from the full trace, $aux from the samples;" \
		"instructions: $fulli and $auxi;" \
		"$samples samples and the exit's, $stacks with branch stacks, $chains with call chains" &&
	[ "$aux" -gt $((full * 9 / 10)) ] && head -n "$aux" "$tmp/full.br" | cmp - "$tmp/aux.br" &&
	[ "$auxi" -gt $((fulli * 9 / 10)) ] && [ "$auxi" -le $((fulli + 1)) ] &&
	both=$fulli && { [ "$auxi" -ge "$both" ] || both=$auxi; } &&
	head -n "$both" "$tmp/full.i" > "$tmp/full.i1" &&
	head -n "$both" "$tmp/aux.i" | cmp - "$tmp/full.i1" &&
	[ "$samples" -gt 10 ] && [ "$stacks" = "$samples" ] && [ "$chains" = "$samples" ] &&
	cmp "$tmp/full.L" "$tmp/aux.L1" && cmp "$tmp/full.G1" "$tmp/aux.G1"
}

# Parity where trace is lost: lfsr.S recorded with a full trace and with
# -A samples of 4 KiB every 100007 instructions, some 80 KiB of trace
# apart (TCG's Intel PT compresses no return).  The samples' branches are the full trace's but for gaps, each
# where perf reports lost trace: no branch is left out unreported, and
# after each reported loss some are (gapcmp.py).
losses() {
	taskset -c 0 "$perf" record -q -o "$tmp/gf.data" -e intel_pt//u "$tmp/lfsr" &&
	taskset -c 0 "$perf" record -q -o "$tmp/ga.data" -Aintel_pt \
		--aux-sample=4096 -e instructions:u -c 100007 -m 1024 "$tmp/lfsr" &&
	for f in gf ga; do
		"$perf" script -i "$tmp/$f.data" --itrace=be -F event,ip,addr \
			> "$tmp/$f.b" 2> /dev/null || return 1
	done &&
	python3 "$here/gapcmp.py" "$tmp/gf.b" "$tmp/ga.b"
}

# -A as users run it: the kernel's default sampling heuristics (which
# throttle these samplers in a debug kernel under TCG), perf's default
# ring (no -m), no pinning, 16 KiB samples, and a program that moves
# between the CPUs (lfsr.S with MIGRATE: 12 moves).  The samples'
# branches are a full trace's, from the first to the last before the
# program's exit, but for a gap at each loss perf reports (gapcmp.py
# --whole), and perf decodes every sample that the recording holds.  With
# a perf buffer (-m) too small for the samples, samples are lost: the gaps
# they leave must be reported, by the positions of the samples after them
# or, where the exit's was lost too, as the trace after the last sample
# perf kept (which perf test conformance's no_exit case tests for sure).
users() {	# SAMPLER...: perf record's options for the sampler
	heuristics 25 && users_record "$@"
	ret=$?
	heuristics 0
	return $ret
}

# A tracepoint sampler: a uprobe event at lfsr.S's migrate (12 hits), of
# user mode as its hits are; 1.5 MiB of trace between its samples.
probe_users() {
	"$perf" probe -q -x "$tmp/lfsr_move" -a migrate && users -e probe_lfsr_move:migrate:u
	ret=$?
	"$perf" probe -q -d 'probe_lfsr_move:*'
	return $ret
}

# The branches of a full trace of lfsr_move, which are the same in every
# run: recorded for the first case, kept for the others.
users_full() {
	[ -s "$tmp/uf.b" ] && return
	moves=$("$perf" stat -x, -e cpu-migrations "$tmp/lfsr_move" 2>&1 >/dev/null | cut -d, -f1) &&
	echo "$moves moves" && [ "$moves" -ge 6 ] &&
	"$perf" record -q -o "$tmp/uf.data" -e intel_pt//u "$tmp/lfsr_move" &&
	"$perf" script -i "$tmp/uf.data" --itrace=be -F event,ip,addr \
		> "$tmp/uf.b" 2> /dev/null || { rm -f "$tmp/uf.b"; return 1; }
}

users_record() {	# SAMPLER...
	users_full &&
	"$perf" record -q -o "$tmp/ua.data" -Aintel_pt --aux-sample=16384 "$@" "$tmp/lfsr_move" &&
	"$perf" script -v -i "$tmp/ua.data" --itrace=be -F event,ip,addr \
		> "$tmp/ua.b" 2> "$tmp/ua.v" &&
	held=$("$perf" report -i "$tmp/ua.data" -D 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE') &&
	grep '^AUX samples' "$tmp/ua.v" &&
	decoded=$(sed -n 's/^AUX samples: \([0-9]*\),.*/\1/p' "$tmp/ua.v") &&
	echo "samples: $held in perf.data, $decoded decoded" &&
	[ "$held" -gt 0 ] && [ "$decoded" = "$held" ] &&
	python3 "$here/gapcmp.py" --whole "$tmp/uf.b" "$tmp/ua.b"
}

# -C 0 -Aintel_pt traces CPU 0 alone, but a task that runs there may have
# started elsewhere: as for a plain Intel PT event, a tracking event
# records the sideband (comm, mmap) of every CPU.  spin_c execs on CPU 1,
# then moves to CPU 0, where its trace must decode against its code.
sideband() {
	taskset -c 1 "$perf" record -q -o "$tmp/e.data" -C 0 -Aintel_pt \
		--aux-sample=4096 -e instructions:u -c 1000000 -- sh -c \
		"taskset -c 1 $tmp/spin_c & sleep 1; taskset -p -c 0 \$! > /dev/null; sleep 1; kill \$!" &&
	"$perf" script -i "$tmp/e.data" --itrace=be -F comm,ip,sym > "$tmp/e.txt" &&
	! grep -i error "$tmp/e.txt" | grep -v 'code 8: Lost trace data' &&
	br=$(grep -c '^ *spin_c .* before' "$tmp/e.txt") &&
	echo "branches: $br in spin_c's before()" && [ "$br" -gt 1000 ]
}

# perf checks -A's config against the PMU's caps, as a plain Intel PT
# event's: here those of a CPU whose MTC has periods 0, 3, 6 and 9 only
# (mtc_periods 249), made up in a sysfs of links.
aux_config() {
	sysfs_without bus/event_source/devices/intel_pt/caps/mtc_periods &&
	echo 249 > "$tmp/sys/bus/event_source/devices/intel_pt/caps/mtc_periods" &&
	! SYSFS_PATH="$tmp/sys" "$perf" record -o "$tmp/v.data" -Aintel_pt/mtc_period=2/ \
		-e instructions:u -- true > "$tmp/v.txt" 2>&1 &&
	cat "$tmp/v.txt" &&
	grep -q 'Invalid mtc_period for intel_pt. Valid values are: 0,3,6,9' "$tmp/v.txt" &&
	SYSFS_PATH="$tmp/sys" "$perf" record -q -o "$tmp/v.data" -Aintel_pt/mtc_period=3/ \
		-e instructions:u -- true
}

rloops=1000
lloops=1000000
echo "1..27"
build_loop $lloops && mv "$tmp/loop" "$tmp/long" || exit 1
build_loop $loops || exit 1
gcc -nostdlib -static -DLOOPS=$rloops -o "$tmp/ranges" "$here/ranges.S" || exit 1
gcc -nostdlib -static -o "$tmp/exec_a" "$here/exec.S" || exit 1
gcc -nostdlib -static -DAFTER -DLOOPS=400000 -o "$tmp/exec_b" "$here/exec.S" || exit 1
gcc -nostdlib -static -DLOOPS=500000 -o "$tmp/spin_a" "$here/exec.S" || exit 1
gcc -nostdlib -static -DAFTER -DLOOPS=500000 -o "$tmp/spin_b" "$here/exec.S" || exit 1
# LOOPS=0: 2^32 calls, until killed
gcc -nostdlib -static -DLOOPS=0 -o "$tmp/spin_c" "$here/exec.S" || exit 1
gcc -nostdlib -static -o "$tmp/lfsr" "$here/lfsr.S" || exit 1
gcc -nostdlib -static -DMIGRATE -o "$tmp/lfsr_move" "$here/lfsr.S" || exit 1
check "intel_pt driver probed with CPUID 0x14's caps" probed
if check "perf record -e intel_pt//u of a known loop: TSC, TMA and MTC" record; then
	check "perf script --itrace=i: exactly the instructions it retired" instructions
	check "perf script --itrace=b: exactly the loop's branches" branches
	check "libipt's decoder: exactly the instructions it retired" libipt
fi
check "CYC: perf and libipt decode exactly the instructions, perf's time never goes back" cyc
check "PSBFreq: psb_period=2 puts PSBs 8 KiB apart" psb_period
check "IP filtering: perf record --filter on two functions, perf and libipt decode them alone" ip_filter
check "TraceStop: the trace ends where the stop range is entered" trace_stop
check "PTWRITE: perf script --itrace=w, branches off and on" ptwrite
check "perf record -Aintel_pt -e cycles,instructions -c 1000000: samples carry PT" aux_sample
check "-Aintel_pt positions: 256-byte samples, 2-page buffer, exact stream and flow" positions 256 1000 mtc=0
check "-Aintel_pt positions: 4 KiB samples, 2-page buffer, exact stream and flow" positions 4096 20000 mtc=0
check "-Aintel_pt positions: 60 KiB samples, 16-page buffer, exact stream and flow" positions 61440 200000
check "-Aintel_pt positions: samples laps of the buffer apart still count every lap" laps
check "-Aintel_pt: an exec in the middle of a sample, each part decoded against its own program" exec_mid
check "-Aintel_pt: perf record into a pipe, perf script out of it, exact flow" pipe
check "-C 0 -Aintel_pt: two programs on one CPU, each decoded against its own code" cpu_wide
check "-Aintel_pt: psb_period refused, a sample size too small for a PSB+ warned about" aux_psb
check "-Aintel_pt and a full trace: the same branches and instructions, and for each sample branch stack and call chain" parity
check "-Aintel_pt samples that lose trace: the full trace's branches but for a gap at each loss reported" losses
check "-Aintel_pt as users run it, instructions:u -c 2000: a full trace's branches to the exit but for reported gaps" users -e instructions:u -c 2000
check "-Aintel_pt as users run it, cpu-clock:u every 20 us: a full trace's branches to the exit but for reported gaps" users -e cpu-clock:u -c 20000
check "-Aintel_pt as users run it, a tracepoint sampler (a uprobe): a full trace's branches to the exit but for reported gaps" probe_users
check "-Aintel_pt with a buffer too small for its samples: a full trace's branches to the exit but for reported gaps" users -e instructions:u -c 2000 -m 8
check "-C 0 -Aintel_pt: the sideband of every CPU, for a task that exec'd on another" sideband
check "-Aintel_pt's config checked against the caps: an MTC period the CPU lacks refused" aux_config
exit $failed
