#!/bin/bash
# AUX samples: libipt's Intel PT conformance streams through perf's decoder
# SPDX-License-Identifier: GPL-2.0
#
# test_aux_sample_libipt.sh [DATADIR]
#
# Feed libipt's Intel PT conformance streams (DATADIR, or
# $PERF_TEST_LIBIPT_DIR; the test is skipped without either) through perf's
# decoder of AUX samples with positions (perf record -A): each stream
# NAME.pt is cut into AUX samples of a synthetic perf.data
# (lib/aux_sample_synth.py), with NAME.bin mapped at the org address of
# NAME.ptt, and perf script's instruction flow must be libipt's,
# NAME-ptxed*.exp.  A stream without a ptxed .exp is not a flow test and is
# not counted.  Four variants per stream:
#
#   whole    one sample holds the whole stream
#   overlap  samples end on packet boundaries, as real ones do (stopping the
#            trace flushes whole packets), taken from NAME-ptdump*.exp: the
#            next 1, 2, 3, 1, ... packets, as many as fit in $SIZE bytes;
#            each holds the $SIZE bytes before its end, so samples overlap
#            and their starts cut packets anywhere
#   gap      the stream, $GAP bytes of PAD that no sample holds, the stream
#            again, one sample each
#   cuts     samples of $STRIDE bytes, one after the other, which end
#            anywhere, even inside packets: a robustness check only, perf
#            script must exit 0 (decode errors and another flow allowed)
#
# "Equal" means: perf script exits 0; the addresses of the instructions it
# shows (--itrace=i0ns: every instruction) are, in order and in number, the
# address lines of the .exp ("? " speculative ones included), twice for gap;
# where the .exp gives an instruction count ("insn: N.", ptxed --stat), perf
# shows that many (twice that for gap).  No trace may be lost but in gap,
# which must report exactly one "Lost trace data: $GAP bytes" error and
# count $GAP bytes lost.  overlap must show the instructions whole shows,
# and no decoder error that whole does not show.  (It may show fewer: where
# a sample ends on a PSB, the decoder's look for a FUP in the PSB+ does not
# reach into the next sample's bytes, and after a decoding error it may
# resynchronize past one that whole reports.)  cuts only checks that perf
# script exits 0 (a signal is a failure).
#
# The .exp with a -cpu_F_M[_S] infix (when there is no plain one) puts
# GenuineIntel,F,M,S in the recording's CPUID; ptxed's --filter:addrN
# options become perf's address filter for NAME.bin.  A stream is skipped
# only if it is listed below and its whole variant fails with the symptom
# listed.
#
# Last, a made-up recording of the last stream: the trace over and over,
# cut as for cuts into $MADE_UP samples, each in a stream of its own.  A
# task or CPU has one stream per event: all samples but the first must be
# refused (error events, and a count of them), and perf script must decode
# it within $MADE_UP_KB KiB of address space, as it does the same samples
# in one stream: a decoder per stream (a 64 KiB event buffer each) would
# need more.  Then the same samples each of a thread of its own, which
# exits after it, from the file (decoded at each thread's exit, for there
# are no timestamps) and through a pipe: no sample is refused, both give
# the same events, and as each thread's decoder is set up no sooner than
# needed and freed when it exits, perf script decodes either in
# $MADE_UP_KB KiB.
#
# TAP on stdout.  Exit status 0 if no test failed, 2 if skipped.

set -uo pipefail

# perf test gives its shell tests -v, with -v.
case ${1:--} in
-*) DATADIR=${PERF_TEST_LIBIPT_DIR:-} ;;
*) DATADIR=$1 ;;
esac
PERF=${PERF:-perf}
SIZE=${SIZE:-24}
STRIDE=${STRIDE:-16}
GAP=${GAP:-40}
MADE_UP=${MADE_UP:-20000}
MADE_UP_KB=${MADE_UP_KB:-1048576}
HERE=$(cd "$(dirname "$0")" && pwd)
SYNTH="$HERE/lib/aux_sample_synth.py"

if [ -z "$DATADIR" ] || ! compgen -G "$DATADIR/*.ptt" > /dev/null; then
	echo "no libipt streams: give their directory or set PERF_TEST_LIBIPT_DIR"
	exit 2
fi
# The path of the code in the recording's mmaps and address filters: one
# perf takes as it is (no "..", no symbolic links).
DATADIR=$(cd "$DATADIR" && pwd -P)
if ! python3 -c '' 2> /dev/null; then
	echo "no python3"
	exit 2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/libipt_streams.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT

# NAME (a shell pattern) -> "symptom (ERE on perf's errors)|reason"
known_gap() {
	local bad=code\ 3:\ Bad\ packet nogo=code\ 5:\ Failed\ to\ get\ instruction

	case $1 in
	*trig*)
		echo "$bad|TRIG packets: perf's packet decoder" \
			"(intel-pt-pkt-decoder.c) does not know them" ;;
	int-eretu|ptet-int-eretu|ptet-int-int-erets-eretu)
		echo "$nogo|FRED ERETU/ERETS (F3/F2 0F 01 CA): perf's x86" \
			"instruction decoder does not know them (takes them" \
			"for CLAC, no branch) and walks on past them" ;;
	tip_pgd-jmpabs)
		echo "$nogo|APX JMPABS (REX2 D5 00 A1 imm64): perf's x86" \
			"instruction decoder does not know REX2" ;;
	tip_pgd-direct_call|tip_pgd-tnt_not_taken|tip_pgd-exstop-tip_pge|\
	tip_pgd-mwait-pwre-exstop-pwrx-tip_pge)
		echo "code [56]: |TIP.PGD after a direct or conditional" \
			"branch: perf's decoder binds it to the branch only" \
			"if the recording's address filter puts the target" \
			"outside (pgd_ip in intel_pt_walk_tip()), and the" \
			"stream comes with no filter" ;;
	bdm64-tnt-ind_call-xabort|skd007|skd010-tip)
		echo "code [567]: |erratum ${1%%-*}: perf's decoder has no" \
			"workaround for it (its only one is" \
			"INTEL_PT_FUP_WITH_NLIP, for 6/92)" ;;
	ptxed-resync-psb-bad_status-psb)
		echo "$nogo|a PSB+ whose MODE.EXEC contradicts the code:" \
			"ptxed reports a bad status update and resyncs; perf" \
			"decodes by the ELF class of the mapping and does not" \
			"check MODE.EXEC" ;;
	ptxed-resync-*)
		echo "code [56]: |tests ptxed's recovery after a decode" \
			"error (--resync-on-error); perf's decoder recovers" \
			"its own way and shows other instructions after the" \
			"error" ;;
	esac
}

# Sample ends for overlap: offsets of the packets in ptdump listing $1,
# walked 1, 2, 3, 1, ... packets at a time, but no more than fit in $3
# bytes, and the end of the stream, $2.  Comma-separated.
packet_ends() {
	local len=$2 size=$3 off last=0 b=() ends=() prev=0 i=0 j k=0
	while read -r off; do
		off=$((off))
		[ "$off" -gt "$last" ] && [ "$off" -lt "$len" ] && b+=("$off") &&
			last=$off
	done < <(sed -n -E 's/^([0-9a-f]{16}) .*/0x\1/p' "$1")
	b+=("$len")
	while [ $i -lt ${#b[@]} ]; do
		k=$((k % 3 + 1))
		j=$i
		while [ $((j + 1)) -lt $((i + k)) ] && [ $((j + 1)) -lt ${#b[@]} ] &&
		      [ $((b[j + 1] - prev)) -le "$size" ]; do
			j=$((j + 1))
		done
		ends+=("${b[j]}")
		prev=${b[j]}
		i=$((j + 1))
	done
	(IFS=,; echo "${ends[*]}")
}

# The addresses of the .exp, one a line, without leading zeros.
exp_flow() {
	sed -n -E 's/^(\? )?0*([0-9a-f]+)$/\2/p' "$1"
}

# perf script's instruction addresses, and its decoder errors.
perf_flow() {
	awk '$1 ~ /^instructions/ { sub(/^0+/, "", $2); print $2 }' "$1"
}
perf_errors() {
	grep -E 'instruction trace error' "$1" | grep -v 'Lost trace data'
}

# ptxed's --filter:addrN_{cfg,a,b} options as perf's filter, for file $2
# mapped at $3.
ptxed_filter() {
	local opts cfg a b kind n sep=""
	opts=$(sed -n 's/^; *opt:ptxed //p' "$1")
	for n in 0 1 2 3; do
		cfg=$(sed -n -E "s/.*--filter:addr${n}_cfg ([0-9]+).*/\1/p" <<<"$opts")
		[ -n "$cfg" ] || continue
		a=$(sed -n -E "s/.*--filter:addr${n}_a ([0-9a-fx]+).*/\1/p" <<<"$opts")
		b=$(sed -n -E "s/.*--filter:addr${n}_b ([0-9a-fx]+).*/\1/p" <<<"$opts")
		kind=filter
		[ "$cfg" = 2 ] && kind=stop
		printf '%s%s %#x/%#x@%s' "$sep" "$kind" $((a - $3)) $((b - a + 1)) "$2"
		sep=","
	done
}

# Generate variant $2 of stream $1 (files under $WORK/$1.$2.*), decode it.
# Returns perf's exit status.
run_variant() {
	local name=$1 variant=$2 base="$WORK/$1.$2" args=() extra=()

	case $variant in
	whole)   args=(--size "$PT_LEN" --stride "$PT_LEN") ;;
	overlap) args=(--size "$SIZE" --ends "$(packet_ends "$PTDUMP" "$PT_LEN" "$SIZE")") ;;
	gap)     args=(--size "$PT_LEN" --stride "$PT_LEN" --gap "$GAP") ;;
	cuts)    args=(--size "$STRIDE" --stride "$STRIDE") ;;
	esac
	[ -n "$CPUID" ] && args+=(--cpuid "$CPUID")
	[ -n "$FILTER" ] && args+=(--filter "$FILTER")
	[ -n "$EXTRA" ] && read -ra extra <<<"$EXTRA" && args+=("${extra[@]}")
	if ! python3 "$SYNTH" --pt "$DATADIR/$name.pt" --bin "$BIN" \
			--org "$ORG" "${args[@]}" -o "$base.data" \
			2> "$base.err"; then
		echo "aux_sample_synth.py failed: $(head -1 "$base.err")" > "$base.why"
		return 2
	fi
	nice "$PERF" script -i "$base.data" --itrace=i0nse -F event,ip \
		> "$base.out" 2> "$base.err"
}

# Check variant $2 of stream $1 as described at the top; say why not in
# $WORK/$1.$2.why.  Returns 0 if equal.
check_variant() {
	local name=$1 variant=$2 base="$WORK/$1.$2" rc want=$EXP_FLOW
	local want_n=$EXP_INSN lost_want=0 lost_msgs lost_sum lost_one got k w g
	local extra

	run_variant "$name" "$variant"
	rc=$?
	[ -e "$base.why" ] && return 1
	if [ $rc -ne 0 ]; then
		{
			if [ $rc -gt 128 ]; then
				echo "perf script died of signal $((rc - 128))"
			else
				echo "perf script exit status $rc"
			fi
			tail -2 "$base.err"
		} > "$base.why"
		return 1
	fi
	[ "$variant" = cuts ] && return 0
	if [ "$variant" = gap ]; then
		want=$(printf '%s\n%s' "$EXP_FLOW" "$EXP_FLOW" | sed '/^$/d')
		[ -n "$want_n" ] && want_n=$((2 * want_n))
		lost_want=$GAP
	fi

	got=$(perf_flow "$base.out")
	if [ "$got" != "$want" ] && [ -n "$want" ]; then
		# "differ: byte B, line L" or "EOF on F after byte B, line L"
		k=$(cmp <(echo "$want") <(echo "$got") 2>&1 | sed -n -E \
			-e 's/.*EOF on .* line ([0-9]+).*/\1+1/p' \
			-e 's/.*differ: .* line ([0-9]+).*/\1/p')
		k=$((k))
		{
			w=$(sed -n "${k:-1}p" <<<"$want")
			g=$(sed -n "${k:-1}p" <<<"$got")
			echo "instruction flow differs at instruction ${k:-?}:" \
				"want ${w:-nothing} got ${g:-nothing}" \
				"($(grep -c . <<<"$want") wanted," \
				"$(grep -c . <<<"$got") shown)"
			perf_errors "$base.out" | head -2
		} > "$base.why"
		return 1
	fi
	if [ -n "$want_n" ] && [ "$(grep -c . <<<"$got")" != "$want_n" ]; then
		echo "perf shows $(grep -c . <<<"$got") instructions, ptxed $want_n" > "$base.why"
		return 1
	fi
	if [ -z "$want" ] && [ -z "$want_n" ] && [ -n "$got" ]; then
		echo "ptxed shows no instruction, perf $(grep -c . <<<"$got")" > "$base.why"
		return 1
	fi

	lost_msgs=$(grep -c 'Lost trace data' "$base.out")
	lost_sum=$(sed -n -E 's/.*trace lost between them: ([0-9]+) bytes.*/\1/p' "$base.err")
	if [ "$lost_sum" != "$lost_want" ]; then
		echo "perf counts ${lost_sum:-no} bytes lost, want $lost_want" > "$base.why"
		return 1
	fi
	if [ "$lost_want" = 0 ] && [ "$lost_msgs" != 0 ]; then
		echo "perf reports lost trace:" \
			"$(grep -m1 'Lost trace data' "$base.out")" > "$base.why"
		return 1
	fi
	lost_one="Lost trace data: $lost_want bytes before this AUX sample"
	if [ "$lost_want" != 0 ] &&
	   [ "$(grep -c "$lost_one" "$base.out")" != 1 ]; then
		echo "want one '$lost_one' error, perf gives $lost_msgs:" \
			"$(grep -m1 'Lost trace data' "$base.out")" > "$base.why"
		return 1
	fi

	if [ "$variant" = overlap ]; then
		extra=$(comm -13 <(perf_errors "$WORK/$name.whole.out" | sort) \
				 <(perf_errors "$base.out" | sort))
		if [ -n "$extra" ]; then
			echo "decoder errors that the whole stream does not have:" > "$base.why"
			head -2 <<<"$extra" >> "$base.why"
			return 1
		fi
	fi
	return 0
}

names=()
for ptt in "$DATADIR"/*.ptt; do
	[ -e "$ptt" ] || continue
	name=$(basename "$ptt" .ptt)
	if [ -e "$DATADIR/$name-ptxed.exp" ] ||
	   compgen -G "$DATADIR/$name-ptxed-cpu_*.exp" > /dev/null; then
		names+=("$name")
	fi
done

# A made-up recording ($1) of the last stream: the trace over and over,
# cut into $MADE_UP samples of $STRIDE bytes, with aux_sample_synth.py's
# options $2...
made_up() {	# OUTPUT OPTION...
	local out=$1

	shift
	python3 "$SYNTH" --pt "$DATADIR/$name.pt" --bin "$BIN" --org "$ORG" \
		--size "$STRIDE" --stride "$STRIDE" \
		--repeat $((MADE_UP * STRIDE / PT_LEN + 1)) "$@" -o "$out"
}

# perf script of recording $1 (in pipe format with "pipe") in $MADE_UP_KB
# KiB of address space, to $1.out and $1.err; if it fails, what it said,
# as TAP comments.
script_in_limit() {	# RECORDING [pipe]
	local in=$1

	[ "${2:-}" = pipe ] && in=-
	(ulimit -v "$MADE_UP_KB" &&
	 "$PERF" script -i "$in" --itrace=i0nse -F event,ip < "$1" \
		> "$1.out" 2> "$1.err") && return 0
	echo "# perf script of $(basename "$1") failed:"
	tail -2 "$1.err" | sed 's/^/# /'
	return 1
}

# The first made-up recording described at the top.
check_made_up() {
	local base="$WORK/made_up" refused

	made_up "$base.one" && made_up "$base.many" --new-streams &&
	script_in_limit "$base.one" && script_in_limit "$base.many" || return 1
	refused=$(grep -c 'AUX sample of a stream its task or CPU cannot have' \
		"$base.many.out")
	echo "# $refused samples refused"
	grep -q "^AUX samples: $((refused + 1))," "$base.one.err" &&
	grep -q "^AUX samples of streams .* cannot have .*: $refused, not decoded" \
		"$base.many.err"
}

# The second: each sample of a thread that exits after it, from the file
# and through a pipe (perf inject), where each sample's trace is decoded
# as it comes.
check_threads() {
	local base="$WORK/threads" streams

	made_up "$base.data" --threads &&
	"$PERF" inject -i "$base.data" -o - > "$base" &&
	script_in_limit "$base" pipe && script_in_limit "$base.data" || return 1
	# The file's errors come at each thread's exit, the pipe's at its sample
	if ! cmp -s <(sort "$base.out") <(sort "$base.data.out") ; then
		echo "# the file and the pipe decode differently"
		return 1
	fi
	streams=$(sed -n 's/^AUX samples: \([0-9]*\),.* streams: \([0-9]*\)$/\1 \2/p' \
		"$base.err")
	echo "# samples and streams: $streams"
	[ "${streams% *}" -ge "$MADE_UP" ] && [ "${streams% *}" = "${streams#* }" ] &&
	! grep -q 'cannot have' "$base.out" "$base.err"
}

# The third: the last stream cut as for cuts, its last sample not the one
# the kernel takes at the task's exit (lost, or the recording ended
# first): perf reports the trace after it as lost, once, up to the end.
check_no_exit() {
	local base="$WORK/no_exit"

	python3 "$SYNTH" --pt "$DATADIR/$name.pt" --bin "$BIN" --org "$ORG" \
		--size "$STRIDE" --stride "$STRIDE" --no-exit -o "$base" &&
	script_in_limit "$base" || return 1
	grep 'Lost trace data' "$base.out" | sed 's/^/# /'
	[ "$(grep -c 'Lost trace data' "$base.out")" = 1 ] &&
	grep -q "Lost trace data: all after this AUX sample (byte $PT_LEN)\$" "$base.out"
}

VARIANTS=(whole overlap gap cuts)
EXTRA=${EXTRA:-}
echo "TAP version 13"
echo "1..$(( ${#names[@]} * ${#VARIANTS[@]} + 3 ))"
echo "# $("$PERF" version 2>/dev/null); overlap: size $SIZE; gap: $GAP;" \
	"cuts: $STRIDE bytes"

n=0 failed=0 passed=0 skipped=0
for name in "${names[@]}"; do
	exp="$DATADIR/$name-ptxed.exp"
	CPUID=""
	if [ ! -e "$exp" ]; then
		exp=$(compgen -G "$DATADIR/$name-ptxed-cpu_*.exp" | sort | head -1)
		fms=${exp##*-ptxed-cpu_}
		fms=${fms%.exp}
		IFS=_ read -r fam mod step <<<"$fms"
		CPUID="GenuineIntel,$fam,$mod,${step:-0}"
	fi
	PTDUMP="$DATADIR/$name-ptdump${exp##*-ptxed}"
	[ -e "$PTDUMP" ] || PTDUMP="$DATADIR/$name-ptdump.exp"
	ORG=$(awk '$1 == "org" { print $2; exit }' "$DATADIR/$name.ptt")
	BIN="$DATADIR/$name.bin"
	PT_LEN=$(stat -c %s "$DATADIR/$name.pt")
	FILTER=$(ptxed_filter "$DATADIR/$name.ptt" "$BIN" "$((ORG))")
	EXP_FLOW=$(exp_flow "$exp")
	EXP_INSN=$(sed -n -E 's/^insn: *([0-9]+)\.$/\1/p' "$exp")

	skip=""
	for variant in "${VARIANTS[@]}"; do
		n=$((n + 1))
		label="$name $variant"
		[ "$variant" = overlap ] && label+=" size=$SIZE ends on packets"
		[ "$variant" = gap ] && label+=" gap=$GAP"
		[ "$variant" = cuts ] &&
			label+=" of $STRIDE bytes (only checks that perf survives)"
		if [ -n "$skip" ]; then
			echo "ok $n $label # SKIP ${skip#*|}"
			skipped=$((skipped + 1))
			continue
		fi
		if check_variant "$name" "$variant"; then
			echo "ok $n $label"
			passed=$((passed + 1))
			continue
		fi
		known=$(known_gap "$name")
		if [ "$variant" = whole ] && [ -n "$known" ] &&
		   perf_errors "$WORK/$name.whole.out" | grep -qE "${known%%|*}"; then
			skip=$known
			echo "ok $n $label # SKIP ${skip#*|}"
			skipped=$((skipped + 1))
			continue
		fi
		echo "not ok $n $label"
		sed 's/^/# /' "$WORK/$name.$variant.why"
		failed=$((failed + 1))
	done
	[ -n "${KEEP:-}" ] || rm -f "$WORK/$name".*
done

for check in "made_up|made up: a new stream in each of its samples, refused" \
	       "threads|threads: a thread per sample, each freed when it exits" \
	       "no_exit|no sample at the exit: the trace after the last reported lost"; do
	n=$((n + 1))
	label="$name ${check#*|}"
	if "check_${check%%|*}"; then
		echo "ok $n $label"
		passed=$((passed + 1))
	else
		echo "not ok $n $label"
		failed=$((failed + 1))
	fi
done

echo "# pass $passed, skip $skipped, fail $failed"
[ $failed -eq 0 ]
