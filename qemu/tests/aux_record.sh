#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# aux_record.sh BUILD: perf record -Aintel_pt, on TCG's Intel PT, in perf
# record's other ways of choosing what to record: --per-thread, -p,
# inherited by the children of a command, --switch-output by size and by
# signal, --overwrite dumped by a signal, a control command, perf daemon
# and an event (one that -A samples too), a group of samplers, a normal
# and an overwrite channel in one session; perf inject --merge of the
# files of a session; the files of a session tracing everything, each
# decoded alone; and perf report's decoding of such a recording.
# pt.sh has the exactness of positions and decoding for the plain case.
# TAP.
. "$(dirname "$0")/lib/guest.sh"
lloops=1000000
sampled="-Aintel_pt/mtc=0/ --aux-sample=4096 -e instructions:u -c 20000"

# Whether the instruction addresses on stdin, one per line, are a piece
# of the flow of loop.S (pt.sh's flow()), nothing left out or repeated:
# each address is one the one before can be followed by.  Prints their
# number.
loop_piece() {
	awk 'BEGIN {
		next_of["401000"] = "401005"
		next_of["401005"] = "401007"
		next_of["401007"] = "401005 401009"
		next_of["401009"] = "40100e"
		next_of["40100e"] = "401010"
	}
	NR > 1 && index(next_of[last], $1) == 0 {
		print "line " NR ": " $1 " after " last; bad = 1; exit
	}
	{ last = $1 }
	END { if (bad) exit 1; print NR }'
}

# The instructions perf script decodes from -A recording DATA (perf
# script --itrace=i0nse -F event,ip), without the samplers' own samples:
# perf names the instructions it synthesizes after the hidden event's
# modes (instructions:uH); error events go to $tmp/errors.
decoded() {	# DATA
	"$perf" script -i "$1" --itrace=i0nse -F event,ip 2> /dev/null |
		awk '$1 == "instruction" { print > "'"$tmp/errors"'"; next }
		     $1 == "instructions:uH:" { print $2 }'
}

# --per-thread: a hidden event per task, no per-CPU buffers, the loop's
# exact flow as from a per-CPU recording (pt.sh's check 13).
per_thread() {
	rm -f "$tmp/errors"
	taskset -c 0 "$perf" record -q --per-thread -o "$tmp/t.data" \
		-Aintel_pt/mtc=0/ --aux-sample=4096 -e instructions:u -c 20000 \
		-m 1024 -- "$tmp/long" &&
	decoded "$tmp/t.data" > "$tmp/t.flow" && ! [ -e "$tmp/errors" ] &&
	insns=$(loop_piece < "$tmp/t.flow") &&
	echo "$insns instructions decoded, want more than $((2 * lloops + 4 - 20000))" &&
	head -1 "$tmp/t.flow" | grep -x 401000 &&
	[ "$insns" -gt $((2 * lloops + 4 - 20000)) ]
}

# -p: attached to a loop already running, for a second, 4 KiB of trace
# in a sample every million instructions: each sample's trace decodes to
# the loop's two instructions, with no error but the trace lost between
# samples.
attach() {
	build_loop 2000000000 || return 1
	taskset -c 0 "$tmp/loop" &
	pid=$!
	taskset -c 1 "$perf" record -q -p $pid -o "$tmp/p.data" -Aintel_pt \
		--aux-sample=4096 -e instructions:u -c 1000000 -- sleep 1
	rc=$?
	kill $pid && wait $pid
	rm -f "$tmp/errors"
	[ $rc = 0 ] && decoded "$tmp/p.data" > "$tmp/p.flow" &&
	! grep -v 'code 8: Lost trace data' "$tmp/errors" 2> /dev/null &&
	insns=$(wc -l < "$tmp/p.flow") && echo "$insns instructions decoded" &&
	[ "$insns" -gt 10000 ] &&
	sort -u "$tmp/p.flow" | tr '\n' ' ' | grep -x '401005 401007 '
}

# Inherited: exec.S's two programs (different code at the same
# addresses), children of a shell, take turns on CPU 0.  Each child has
# a hidden event and a stream of its own; each stream decodes against
# its own program, with no error.
inherit() {
	taskset -c 0 "$perf" record -q -o "$tmp/i.data" -Aintel_pt \
		--aux-sample=61440 -e instructions:u -c 100000 -- \
		sh -c "$tmp/spin_b & $tmp/spin_a /bin/true; wait" &&
	"$perf" script -i "$tmp/i.data" --itrace=be -F comm,ip,sym \
		> "$tmp/i.txt" 2> "$tmp/i.err" &&
	! grep 'trace error' "$tmp/i.txt" | grep -v 'code 8: Lost trace data' &&
	a=$(grep -c '^ *spin_a .* before' "$tmp/i.txt") &&
	b=$(grep -c '^ *spin_b .* after' "$tmp/i.txt") &&
	streams=$(sed -n 's/^AUX samples: .* streams: \([0-9]*\)$/\1/p' "$tmp/i.err") &&
	echo "branches: $a in spin_a's before(), $b in spin_b's after(); $streams streams" &&
	[ "$a" -gt 1000 ] && [ "$b" -gt 1000 ] && [ "$streams" -ge 2 ]
}

# --switch-output: the samples of all the files, laid at their positions
# (aux_stream.py), make up the hidden event's stream with no byte left
# out, and the first file decodes on its own to the loop's flow from its
# start, with no error but the report that the trace after its last sample
# is in none of its samples (it is in the next file's).  (Whether later
# files have samples depends on when perf reads: switch_signal() decodes
# them.)  perf's buffer (-m 128: 512 KiB) holds all the samples, and
# perf reads it when half full, so the first switch comes before the end.
switch_output() {
	mkdir "$tmp/so" &&
	taskset -c 0 "$perf" record -q -o "$tmp/so/s.data" --switch-output=64K \
		-Aintel_pt/mtc=0/ --aux-sample=4096 -e instructions:u -c 20000 \
		-m 128 -- "$tmp/long" 2> /dev/null &&
	files=$(ls "$tmp"/so/s.data.* | wc -l) && echo "$files files" &&
	[ "$files" -ge 2 ] &&
	for f in "$tmp"/so/s.data.*; do
		"$perf" report -i "$f" -D 2> /dev/null
	done | python3 "$here/aux_stream.py" "$tmp/so.raw" &&
	rm -f "$tmp/errors" &&
	decoded "$(ls "$tmp"/so/s.data.* | head -1)" > "$tmp/so.flow" &&
	! grep -v 'code 8: Lost trace data: all after this AUX sample' "$tmp/errors" 2> /dev/null &&
	head -1 "$tmp/so.flow" | grep -x 401000 &&
	insns=$(loop_piece < "$tmp/so.flow") && echo "first file: $insns instructions" &&
	[ "$insns" -gt 100000 ]
}

# Whether COMMAND... succeeds within 60 s, tried every 0.1 s.
await() {
	tries=600
	until "$@"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || { echo "not so after 60 s: $*"; return 1; }
		sleep 0.1
	done
}

# Whether task PID is blocked in read(2).
in_read() {	# PID
	read -r nr rest < "/proc/$1/syscall" && [ "$nr" = 0 ]
}

# Whether perf has written N files into directory DIR.
files() {	# DIR N
	[ "$(ls "$1"/s.data.* 2> /dev/null | wc -l)" -ge "$2" ]
}

# SIGUSR2 to perf record: a switch, whose file perf writes some time
# after.
dump_signal() {
	kill -USR2 $rec
}

# phases.S, 1M iterations, a wait on a pipe, 100,000 more, under perf
# record --switch-output=signal with OPTIONs ($sampled: -A), into DIR:
# perf switches files, asked to by the command DUMP, while the program
# waits, and after it has exited.
# Nothing else is recorded after the first switch but the shell's wait
# and read: no context switches, which -Aintel_pt records on every CPU
# and a busy CPU has thousands of.  All on CPU 0: one ring, whose
# records perf reads in order.  Sets $phases to the program's PID.
phases_recorded() {	# DIR DUMP OPTION...
	dir=$1
	dump=$2
	shift 2
	mkdir "$dir" && mkfifo "$dir/go" "$dir/end" || return 1
	exec 4<> "$dir/end"
	taskset -c 0 "$perf" record -q -o "$dir/s.data" \
		--switch-output=signal --no-switch-events "$@" \
		-- sh -c "$tmp/phases < $dir/go; read x < $dir/end" &
	rec=$!
	exec 3<> "$dir/go"
	await eval 'phases=$(pgrep -x phases) && in_read $phases' &&
	$dump && await files "$dir" 1 && echo >&3 &&
	await eval 'sh=$(pgrep -x -P $rec sh) && in_read $sh' &&
	$dump && await files "$dir" 2 && echo >&4 && wait $rec
	ok=$?
	exec 3>&- 4>&-
	[ $ok = 0 ] || { kill $rec 2> /dev/null; wait $rec; return 1; }
}

# Whether file N of DIR decodes with no error in the program's trace but
# the reports of trace in other files, into $tmp/flow; sets $f to it, and
# adds the number of its instructions to DIR/decoded.
decodes_alone() {	# DIR N
	f=$(ls "$1"/s.data.* | sed -n "$2p")
	rm -f "$tmp/errors"
	decoded "$f" > "$tmp/flow" &&
	! grep " pid $phases .*code [0-79]" "$tmp/errors" 2> /dev/null &&
	insns=$(wc -l < "$tmp/flow") && echo "$insns" >> "$1/decoded" &&
	echo "file $2: $insns instructions"
}

# --switch-output=signal: each file describes the tasks it has records of
# as the files before it left them, not as /proc has them at the switch.
# perf reads its ring when woken (at half of it, 2 MiB: never here) or
# signalled, and then only with 64 KiB in it (--mmap-flush, after -m: a
# flush before it is capped at a quarter of the default ring): the first
# phase's samples (some 180 KiB) go to the first file; the second's (some
# 20 KiB) are still in the ring at the second switch and go to the last
# file, which has no mmap of the program, and decodes only if perf
# described the program there.  With --buildid-mmap, whose build IDs
# the descriptions keep.
switch_signal() {
	phases_recorded "$tmp/sw" dump_signal $sampled -m 1024 --mmap-flush=64K \
		--buildid-mmap &&
	[ "$(ls "$tmp"/sw/s.data.* | wc -l)" = 3 ] &&
	decodes_alone "$tmp/sw" 1 && decodes_alone "$tmp/sw" 2 &&
	decodes_alone "$tmp/sw" 3 && grep -q -x 401020 "$tmp/flow" &&
	vdso_named "$f" && build_id_kept
}

# The program's mappings as DATA describes them name its vdso as the
# kernel did, [vdso], not as perf's copy of it (/tmp/perf-vdso.so-*),
# which perf script takes for a file (and fails to decode code there).
vdso_named() {	# DATA
	"$perf" script -i "$1" --no-itrace --show-mmap-events 2> /dev/null |
		grep '^ *phases .*PERF_RECORD_MMAP2' > "$tmp/mmaps"
	cat "$tmp/mmaps"
	grep -q ' \[vdso\]$' "$tmp/mmaps" && ! grep -q perf-vdso "$tmp/mmaps"
}

# With --buildid-mmap, the program's mapping as vdso_named() found it
# names its file by the build ID of the file's note, as the kernel's
# records did, not by a device and inode (which such records lack).
build_id_kept() {
	bid=$(readelf -n "$tmp/phases" | awk '$1 == "Build" { print $3 }') &&
	echo "phases: build ID $bid" && [ -n "$bid" ] &&
	grep -q "<$bid>\]: r-xp $tmp/phases\$" "$tmp/mmaps"
}

# The COMM and MMAP2 records of the program in DATA (not decoding).
described() {	# DATA
	"$perf" script -i "$1" --no-itrace --show-task-events \
		--show-mmap-events 2> /dev/null |
		grep -c 'PERF_RECORD_\(COMM\|MMAP2\).*phases'
}

# perf inject --merge of switch_signal()'s three files (which it decoded
# one by one): one file that decodes as they do, with no error but the
# reports of lost trace, to no fewer instructions than they (where a file
# starts, the merged trace decodes on from where the file before ended,
# also before the first PSB; they were as many here), and that describes
# the program once: its COMM and MMAP2 as it ran (2), not again for each
# file after the first (4 more).
merge() {
	files=$(ls "$tmp"/sw/s.data.*) && [ "$(echo "$files" | wc -l)" = 3 ] &&
	[ "$(wc -l < "$tmp/sw/decoded")" = 3 ] &&
	"$perf" inject --merge -o "$tmp/merged.data" $files &&
	for f in $files; do
		echo "$f: $(described "$f") COMM and MMAP2 of phases"
	done &&
	sum=$(awk '{ sum += $1 } END { print sum }' "$tmp/sw/decoded") &&
	echo "the files: $sum instructions" &&
	rm -f "$tmp/errors" && decoded "$tmp/merged.data" > "$tmp/flow" &&
	c=$(wc -l < "$tmp/flow") && d=$(described "$tmp/merged.data") &&
	echo "merged: $c instructions, $d COMM and MMAP2 of phases" &&
	! grep " pid $phases .*code [0-79]" "$tmp/errors" 2> /dev/null &&
	grep -q -x 401005 "$tmp/flow" && grep -q -x 401020 "$tmp/flow" &&
	[ "$c" -ge $sum ] && [ "$d" = 2 ]
}

# The laps of phases.S's two loops in the trace of DATA.
laps() {	# DATA
	"$perf" script -i "$1" --itrace=i0ns -F ip |
	awk '$1 == "401005" { first++ } $1 == "401020" { second++ }
	     END { print first + 0, second + 0 }'
}

# The same session tracing everything (-e intel_pt//u, no -A; with the
# task's switches, by which the decoder knows the task): each file's
# header indexes the AUXTRACE records of that file, through which perf
# script reads the trace, so the second file, of the second phase,
# decodes on its own to that loop, each of its 100,000 laps.  (Its index
# had the first file's entries too, offsets into another file: "failed
# to process type: 70", nothing decoded; patch 0106.)
full_trace() {
	phases_recorded "$tmp/ft" dump_signal --switch-events \
		-e intel_pt/mtc=0/u &&
	set -- $(laps "$(ls "$tmp"/ft/s.data.* | sed -n 2p)") &&
	echo "file 2: $1 laps of the first loop, $2 of the second" &&
	[ "$1" = 0 ] && [ "$2" = 100000 ]
}

# perf inject --merge of full_trace()'s files: the AUXTRACE records of
# every file go into the merged file's index, so it decodes to the laps
# the files decode to one by one, of both loops.  (Before, those of the
# files after the first went into their own sessions' indexes, which
# are freed: the merged file indexed the first file's only, and decoded
# to none of the second loop.)
full_merge() {
	"$perf" inject --merge -o "$tmp/ft/merged.data" "$tmp"/ft/s.data.* &&
	for f in "$tmp"/ft/s.data.*; do laps "$f"; done > "$tmp/ft/laps" &&
	laps "$tmp/ft/merged.data" >> "$tmp/ft/laps" &&
	awk 'NR > 1 { first += f; second += s }
	     { f = $1; s = $2 }
	     END { printf "the files: %d and %d laps, merged: %d and %d\n",
			  first, second, f, s
		   exit f != first || s != second || s != 100000 }' "$tmp/ft/laps"
}

# --overwrite: the samples' ring (-m 16: 64 KiB, some 15 samples) is
# read only at a switch, and keeps the newest samples: the first file
# of DIR has the end of the first phase (of its 100 samples, not the
# first, whose trace starts at the program's first instruction), the
# second the whole second phase (10 samples), from the instruction
# after the read.  The program's mmaps were recorded before either
# window: each file decodes on its own only if perf kept them.
newest_dumped() {	# DIR
	decodes_alone "$1" 1 && ! head -1 "$tmp/flow" | grep -x 401000 &&
	samples=$("$perf" script -i "$f" --itrace=e -F event 2> /dev/null |
		grep -c instructions:u:) &&
	echo "file 1: $samples samples" &&
	[ "$samples" -ge 10 ] && [ "$samples" -lt 100 ] &&
	decodes_alone "$1" 2 && grep -q -x 40101b "$tmp/flow" &&
	grep -q -x 401020 "$tmp/flow"
}

overwrite() {
	phases_recorded "$tmp/ow" dump_signal $sampled --overwrite -m 16 &&
	newest_dumped "$tmp/ow"
}

# The control command 'snapshot' (fd 5), acked (fd 6) once the file is
# written.
dump_control() {
	was=$(ls "$dir" | grep -c '^s\.data\.')
	echo snapshot >&5 &&
	ack=$(timeout 60 head -n 1 <&6) && [ "$ack" = ack ] &&
	files "$dir" $((was + 1))
}

# --control=fifo: the command 'snapshot' dumps the --overwrite ring as
# SIGUSR2 does.
control() {
	mkfifo "$tmp/ctl" "$tmp/ack" && exec 5<> "$tmp/ctl" 6<> "$tmp/ack" ||
		return 1
	phases_recorded "$tmp/co" dump_control $sampled --overwrite -m 16 \
		--control=fifo:"$tmp/ctl","$tmp/ack" &&
	newest_dumped "$tmp/co"
	ok=$?
	exec 5>&- 6>&-
	return $ok
}

# perf daemon: a system-wide session of -Aintel_pt --overwrite (-m 16
# per CPU: the program runs alone on CPU 0, the test on CPU 1), dumped
# by 'perf daemon signal' while the program waits, and by 'perf daemon
# stop' after it has exited: the dumps are those of overwrite().
daemon() {
	base=$tmp/dm
	mkdir "$base" && mkfifo "$base/go" || return 1
	cat > "$base/config" <<-EOF
	[daemon]
	base=$base
	[session-fr]
	run = -a -o s.data --overwrite -m 16 --switch-output=signal --no-switch-events -Aintel_pt/mtc=0/ --aux-sample=4096 -e instructions:u -c 20000
	EOF
	taskset -pc 1 $$ > /dev/null &&
	perf_daemon start &&
	await eval 'perf_daemon ping | grep -q "^OK"' &&
	exec 3<> "$base/go" && { taskset -c 0 "$tmp/phases" <&3 & } &&
	phases=$! && await in_read $phases &&
	perf_daemon signal --session fr &&
	await files "$base/session-fr" 1 && echo >&3 && wait $phases &&
	perf_daemon stop && await files "$base/session-fr" 2 &&
	newest_dumped "$base/session-fr"
	ok=$?
	exec 3>&-
	perf_daemon stop 2> /dev/null
	[ $ok = 0 ] || cat "$base/session-fr/output"
	taskset -pc 0-1 $$ > /dev/null
	return $ok
}

# perf daemon COMMAND with daemon()'s config, for at most 60 s.
perf_daemon() {	# COMMAND OPTION...
	cmd=$1
	shift
	timeout 60 "$perf" daemon "$cmd" --config "$base/config" "$@"
}

# --switch-output-event: sync(2), which the shell's sync runs after the
# program has exited, dumps the --overwrite ring (-m 32, some 30
# samples) with no signal sent: the dump has the newest samples of the
# program, of both its loops, and decodes on its own.  (A uprobe in the
# program would be a trigger closer to its trace, but the trace of a
# probed instruction, run out of line in the [uprobes] page, does not
# decode.)
switch_event() {
	mkdir "$tmp/se" && mkfifo "$tmp/se/go" || return 1
	taskset -c 0 "$perf" record -q -o "$tmp/se/s.data" --no-switch-events \
		--overwrite -m 32 --switch-output-event=syscalls:sys_enter_sync \
		-Aintel_pt/mtc=0/ --aux-sample=4096 -e instructions:u -c 20000 \
		-- sh -c "$tmp/phases < $tmp/se/go; sync" &
	rec=$!
	exec 3<> "$tmp/se/go"
	await eval 'phases=$(pgrep -x phases) && in_read $phases' && echo >&3
	exec 3>&-
	wait $rec &&
	[ "$(ls "$tmp"/se/s.data.* | wc -l)" = 2 ] &&
	decodes_alone "$tmp/se" 1 && grep -q -x 401005 "$tmp/flow" &&
	grep -q -x 401020 "$tmp/flow"
}

# A trigger that -A samples too: phases.S's sched_yield(2) between its
# loops (-DTRIGGER; nothing else in the guest calls it) is both the
# --switch-output-event and a sampler (:u, as the other sampler: they
# share the task's hidden event), so the dump, taken while the program
# waits in its read, ends with the trigger's own sample, whose trace
# decodes to the first loop up to the system call at trigger; nothing of
# the second loop, which goes to the last file.
trigger_event() {
	mkdir "$tmp/te" && mkfifo "$tmp/te/go" || return 1
	exec 3<> "$tmp/te/go"
	taskset -c 0 "$perf" record -q -o "$tmp/te/s.data" --no-switch-events \
		--overwrite -m 32 \
		--switch-output-event=syscalls:sys_enter_sched_yield \
		-Aintel_pt/mtc=0/ --aux-sample=4096 -e instructions/period=20000/u \
		-e syscalls:sys_enter_sched_yield:u -- "$tmp/trigger" <&3 &
	rec=$!
	await eval 'phases=$(pgrep -x trigger) && in_read $phases' &&
	await files "$tmp/te" 1 && echo >&3
	ok=$?
	exec 3>&-
	wait $rec && [ $ok = 0 ] &&
	[ "$(ls "$tmp"/te/s.data.* | wc -l)" = 2 ] &&
	decodes_alone "$tmp/te" 1 &&
	"$perf" script -i "$f" --itrace=i0ns -F event,ip 2> /dev/null |
	awk -v at="$(nm "$tmp/trigger" | awk '$3 == "trigger" { sub(/^0+/, "", $1); print $1 }')" '
		$1 == "instructions:uH:" { last = $2; n++ }
		$2 == "401027" { print "the second loop at line " NR; bad = 1 }
		{ event = $1 }
		$1 == "syscalls:sys_enter_sched_yield:" { before = last; m = n }
		END {
			printf "%d instructions, the last sample %s, after %s (the trigger at %s)\n",
				n, event, before, at
			exit bad || m < 1000 || event != "syscalls:sys_enter_sched_yield:" ||
				before != at
		}'
}

# A group of samplers, the mission's events: perf gives its leader
# enable_on_exec and not its members, and they share the task's hidden
# event (intel_pt, exclusive, had refused the members' own with EBUSY);
# the samples of both carry the loop's trace.  Not pinned: the task's
# hidden event follows it to any CPU.
group() {
	rm -f "$tmp/errors"
	"$perf" record -q -o "$tmp/g.data" -Aintel_pt/mtc=0/ \
		--aux-sample=4096 -e '{cycles,instructions}:u' -c 200000 \
		-- "$tmp/long" &&
	"$perf" script -i "$tmp/g.data" -F event 2> /dev/null |
	awk '$1 == "cycles:" { c++ } $1 == "instructions:" { i++ }
	     END { printf "samples: %d of cycles, %d of instructions\n", c, i
		   exit !c || !i }' &&
	decoded "$tmp/g.data" > "$tmp/g.flow" &&
	! grep -v 'code 8: Lost trace data' "$tmp/errors" 2> /dev/null &&
	insns=$(loop_piece < "$tmp/g.flow") && echo "$insns instructions" &&
	[ "$insns" -gt 100000 ]
}

# Hybrid channels (seed 004): a session with the same sampler in a
# normal channel and in an overwrite channel, each sample with -A's
# trace.  perf stops reading (its workload SIGSTOPs it) until the
# workload has exited: the normal ring keeps the oldest samples and
# counts those it drops (the kernel's lost count of the event: perf's
# LOST_SAMPLES, per event in perf report --stats), which with the kept
# make the samples of a recording that drops none; the overwrite ring
# keeps the newest, all after the normal ring's, and drops the oldest
# uncounted, as overwrite channels do; the trace lost between the
# samples is counted.  On one CPU: each CPU's rings keep their own
# oldest and newest.
hybrid_recorded() {	# KILL PAGES
	taskset -c 0 "$perf" record -q -o "$tmp/h$1.data" -m "$2" \
		-Aintel_pt/mtc=0/ --aux-sample=4096 \
		-e instructions/period=20000,no-overwrite/u \
		-e instructions/period=20000,overwrite/u -- \
		sh -c "kill $1 \$PPID; \"\$0\"" "$tmp/long" &
	rec=$!
	# Stopped, perf reaps nothing: its workload, once it has exited
	# (and taken its last samples), stays a zombie.
	[ "$1" = -0 ] || await eval 'w=$(pgrep -P $rec) &&
		grep -q "^State:.Z" /proc/$w/status'
	ok=$?
	kill -CONT $rec
	wait $rec && [ $ok = 0 ] &&
	"$perf" report -i "$tmp/h$1.data" --stats > "$tmp/h$1.stats" &&
	"$perf" script -i "$tmp/h$1.data" --itrace=e -F time,event \
		> "$tmp/h$1.samples" 2> "$tmp/h$1.err"
}

hybrid() {
	hybrid_recorded -0 1024 && hybrid_recorded -STOP 4 &&
	grep -E "trace lost between them: [1-9]" "$tmp/h-STOP.err" &&
	awk '
		function channel(ev) {
			if (ev ~ /,no-overwrite\//)
				return "normal"
			return ev ~ /,overwrite\// ? "overwrite" : "other"
		}
		FNR == 1 { run = FILENAME ~ /h-0\./ ? "0" : ""; ch = "other" }
		/ stats:$/ { ch = channel($1) run }
		$1 == "LOST_SAMPLES" { lost[ch] = $3 }
		FILENAME ~ /samples$/ && $2 ~ /^instructions.period/ {
			ch = channel($2) run; kept[ch]++
			if (!(ch in first)) first[ch] = $1 + 0
			last[ch] = $1 + 0
		}
		END {
			n0 = kept["normal0"]
			n = kept["normal"] + lost["normal"]
			printf "none dropped: %d samples of each (%d, %d)\n",
				n0, lost["normal0"], kept["overwrite0"]
			printf "normal: %d kept, %d dropped, %d in all, from %f to %f\n",
				kept["normal"], lost["normal"], n, first["normal"], last["normal"]
			printf "overwrite: %d kept, %d counted dropped, from %f to %f\n",
				kept["overwrite"], lost["overwrite"], first["overwrite"],
				last["overwrite"]
			tol = n0 / 50 + 2
			exit !(n0 > 50 && !lost["normal0"] && kept["overwrite0"] == n0 &&
			       lost["normal"] > 0 && n - n0 <= tol && n0 - n <= tol &&
			       !lost["overwrite"] && kept["overwrite"] >= 2 &&
			       kept["overwrite"] < n0 / 2 &&
			       first["overwrite"] > last["normal"])
		}' "$tmp/h-0.stats" "$tmp/h-0.samples" "$tmp/h-STOP.stats" \
		"$tmp/h-STOP.samples"
}

# perf report with its default --itrace (instructions every 100 us,
# power events...): the instructions it synthesizes, an event beside the
# sampler's own (instructions:u), are all in the loop's code.
report() {
	taskset -c 0 "$perf" record -q -o "$tmp/r.data" -Aintel_pt \
		--aux-sample=61440 -e instructions:u -c 200000 -m 1024 -- "$tmp/long" &&
	"$perf" report -i "$tmp/r.data" --stdio --sort dso,sym > "$tmp/r.txt" 2>&1 &&
	grep -E "^# Samples: |^ +[0-9.]+%" "$tmp/r.txt" &&
	awk '/^# Samples: / { ev = $NF; next }
	     ev ~ /^.instructions:u[^u]/ && /%/ { print; exit }' "$tmp/r.txt" |
		grep -E '^ +100\.00% .* long +\[\.\] _start *$'
}

# perf record writing where every write waits, here the guest's 9p output
# directory (a user's NFS home is such a place).  Intel PT's sideband, the
# context switches of every CPU, has perf's own switches as it writes;
# left on after the workload exits, they kept perf from ever finding its
# rings empty (a 0.4 s workload took 35 s under -e intel_pt//u, 180 s
# under -A, writing MBs of perf's switches).  Each must end within a
# minute, its file less than a MB.
slow_fs() {
	for events in "-e intel_pt/branch=0/u" \
		      "-Aintel_pt --aux-sample=4096 -e instructions:u -c 200000"; do
		rm -f /tmp/out/slow.data
		timeout -s KILL 60 "$perf" record -q -o /tmp/out/slow.data \
			$events -- "$tmp/long" || return 1
		size=$(stat -c %s /tmp/out/slow.data) &&
		rm /tmp/out/slow.data &&
		echo "$events: $size bytes" && [ "$size" -lt 1000000 ] || return 1
	done
}

echo "1..17"
build_loop $lloops && mv "$tmp/loop" "$tmp/long" || exit 1
gcc -nostdlib -static -DLOOPS1=1000000 -DLOOPS2=100000 \
	-o "$tmp/phases" "$here/phases.S" || exit 1
gcc -nostdlib -static -DTRIGGER -DLOOPS1=1000000 -DLOOPS2=100000 \
	-o "$tmp/trigger" "$here/phases.S" || exit 1
gcc -nostdlib -static -DLOOPS=500000 -o "$tmp/spin_a" "$here/exec.S" || exit 1
gcc -nostdlib -static -DAFTER -DLOOPS=500000 -o "$tmp/spin_b" "$here/exec.S" || exit 1
check "-Aintel_pt --per-thread: the loop's exact flow" per_thread
check "-Aintel_pt -p: samples of a loop already running decode to its two instructions" attach
check "-Aintel_pt of a command's children: a stream each, each decoded against its own code" inherit
check "-Aintel_pt --switch-output: the files' samples make up the stream, the first file decodes" switch_output
check "-Aintel_pt --switch-output=signal: each file decodes on its own, also one with the trace of a task that had exited" switch_signal
check "perf inject --merge of those files: their decode, each program's record once" merge
check "-e intel_pt//u --switch-output=signal: a file of the trace after the first decodes on its own" full_trace
check "perf inject --merge of those files: the laps they decode to, of both loops" full_merge
check "-Aintel_pt --overwrite: each dump has the newest samples, and decodes on its own" overwrite
check "-Aintel_pt --overwrite --control=fifo: the command 'snapshot' dumps as SIGUSR2 does, acked once written" control
check "-Aintel_pt -a --overwrite under perf daemon: perf daemon signal and stop dump as SIGUSR2 does" daemon
check "-Aintel_pt --overwrite --switch-output-event: a system call dumps the newest samples, which decode on their own" switch_event
check "-Aintel_pt --overwrite --switch-output-event=TP with TP -A sampled: the dump ends with the trigger's own trace" trigger_event
check "-Aintel_pt -e '{cycles,instructions}:u': a group's samplers share the hidden event" group
check "-Aintel_pt with a normal and an overwrite channel: the oldest kept and the drops counted, the newest kept" hybrid
check "perf report of an -Aintel_pt recording: its default --itrace" report
check "-Aintel_pt and intel_pt writing to 9p: perf record ends with its workload" slow_fs
exit $failed
