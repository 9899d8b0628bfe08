#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-decode.sh [ROUNDS]: perf's decoding of AUX-sample recordings, ours
# against upstream's, on ptsim and on QEMU's Intel PT.  In one guest boot,
# record harness/demo/spin.c for ROUNDS (default 25) and 4*ROUNDS rounds,
# four times each: with our perf as 'perf record -Aptsim -e cpu-clock:u'
# and 'perf record -Aintel_pt -e instructions:u' (samples with positions),
# and with the base perf (build/perf-base: the tree before the perf -A
# work, BASE_REV, in the worktree build/linux-base) in upstream's
# group-leader form '-e {ptsim//u,cpu-clock:u} --aux-sample=4096' and
# '-e {intel_pt//u,instructions:u} --aux-sample=4096'.  Then, on the host,
# for each PMU, time 'perf script' of each recording (--itrace=we on ptsim:
# ptwrites, --itrace=b on Intel PT: branches; median of RUNS=3; the base
# perf on the group form, ours on both) and print MB of AUX samples (the
# sum of the samples' AUX sizes, from perf report -D), seconds, MB/s, peak
# RSS and peak heap (valgrind massif, one run), the ours/upstream ratios,
# each decoder's long/short ratios, what each decoder decoded (ptsim: the
# ptwrites, with the gaps in their sequence numbers; Intel PT: the branches,
# their share in hot() and warm(), and the errors) and the per-stream line
# of 'perf script -v' of the -A recordings.  Peak RSS includes the
# perf.data file, which perf maps whole.
# KERNEL= picks another bzImage (default: the plain kernel), PERIOD= the
# cpu-clock period in ns (default 100000), PERIOD_PT= the instructions
# period (default ROUNDS * 80000: spin runs some 24M instructions a round,
# so the short recording has about 300 samples; under TCG each sample is
# slow).  Files: build/bench-decode/.
set -euo pipefail

. "$(dirname "$0")/common.sh"
short=${1:-25}
long=$((4 * short))
period=${PERIOD:-100000}
period_pt=${PERIOD_PT:-$((short * 80000))}
runs=${RUNS:-3}
# The tree before the perf -A work: the parent of its first patch.
base_rev=${BASE_REV:-$(git -C "$tree" log --format=%H -1 \
	--grep='^perf auxsample: Rebuild trace streams')^}
perf=$build/perf/perf
base=$build/perf-base/perf
work=$build/bench-decode
guest=$work/guest

# The base perf, built as the Makefile's perf target builds ours.
if [ -d "$build/linux-base" ] &&
   [ "$(git -C "$build/linux-base" rev-parse HEAD)" != \
     "$(git -C "$tree" rev-parse "$base_rev^{commit}")" ]; then
	git -C "$tree" worktree remove --force "$build/linux-base"
fi
if [ ! -d "$build/linux-base" ]; then
	git -C "$tree" worktree prune
	git -C "$tree" worktree add --detach "$build/linux-base" "$base_rev"
fi
mkdir -p "$work" "$build/perf-base"
make -s -C "$build/linux-base/tools/perf" O="$build/perf-base" \
	-j"${JOBS:-$(nproc)}" NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBBPF=1 \
	NO_GTK2=1 NO_LIBBABELTRACE=1 CORESIGHT=1 WERROR=0 \
	CC="ccache gcc" HOSTCC="ccache gcc" > "$work/base-build.log" 2>&1 ||
	{ cat "$work/base-build.log" >&2; exit 1; }

gcc -O1 -g -o "$work/spin" "$repo/harness/demo/spin.c"
rm -rf "$guest"

# Record into the guest's tmpfs, then copy out: not over 9p while recording.
"$repo/harness/run-guest.sh" -o "$guest" -t 2400 \
	-k "${KERNEL:-$build/kernel/arch/x86/boot/bzImage}" "
set -e
cd /tmp
$perf version > /dev/null; $base version > /dev/null; $work/spin 1 > /dev/null
# record NAME PERF OPTION...: spin \$n into /tmp/out/NAME-\$n.data.  Each
# recording starts at the boot's sample rate limit: PMIs that copy trace
# take ms under TCG, and the kernel lowers the limit for the rest of the
# boot (it throttles, and the recordings after would have fewer samples).
rate=\$(cat /proc/sys/kernel/perf_event_max_sample_rate)
record() {
	name=\$1 bin=\$2
	shift 2
	echo \$rate > /proc/sys/kernel/perf_event_max_sample_rate
	/usr/bin/time -f '   %e s' \$bin record -q -o /tmp/r.data \"\$@\" \
		-- $work/spin \$n
	cp /tmp/r.data /tmp/out/\$name-\$n.data && rm /tmp/r.data
}
for n in $short $long; do
	echo \"== spin \$n: perf record -Aptsim, then the group form\"
	record ptsim-ours $perf -Aptsim -e cpu-clock:u -c $period
	record ptsim-group $base -e '{ptsim//u,cpu-clock:u}' -c $period \
		--aux-sample=4096
	echo \"== spin \$n: perf record -Aintel_pt, then the group form\"
	record intel_pt-ours $perf -Aintel_pt -e instructions:u -c $period_pt
	record intel_pt-group $base -e '{intel_pt//u,instructions:u}' \
		-c $period_pt --aux-sample=4096
done"

# decode PERF FILE ITRACE: the medians of RUNS decodes' wall seconds, CPU
# seconds (user + sys; bash's time, to the ms) and peak RSS (KiB,
# /usr/bin/time), then the peak heap (bytes) of one more decode under massif.
decode() {
	local TIMEFORMAT='%3R %3U %3S'
	for i in $(seq "$runs"); do
		{ time /usr/bin/time -f %M -o "$work/rss" "$1" script \
			--itrace="$3" -i "$2" > /dev/null 2>> "$work/decode.err"; } \
			2> "$work/time"
		cat "$work/time" "$work/rss" | tr "\n" " "; echo
	done | awk '{ print $1, $2 + $3, $4 }' > "$work/times"
	valgrind -q --tool=massif --massif-out-file="$work/massif" \
		"$1" script --itrace="$3" -i "$2" > /dev/null 2> /dev/null
	for col in 1 2 3; do
		cut -d' ' -f$col "$work/times" | sort -n |
			sed -n "$(((runs + 1) / 2))p"
	done | tr '\n' ' '
	awk -F= '/^mem_heap_B=/ { h = $2 }
		 /^mem_heap_extra_B=/ { if (h + $2 > m) m = h + $2 }
		 END { print m + 0 }' "$work/massif"
}

# The decodes of each length: "RECORDING DECODER", the recording's form
# (ours: -A, group: upstream's) and whose perf decodes it.
decodes="ours ours
group upstream
group ours"
decoder_bin() { if [ "$1" = upstream ]; then echo "$base"; else echo "$perf"; fi; }
form() { if [ "$1" = ours ]; then echo -A; else echo group; fi; }

# ratio A B: A / B; per KEY SECONDS: MB per second of table's decode KEY.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
per() { awk -v mb="${mb[$1]}" -v s="$2" 'BEGIN { print (s > 0 ? mb / s : 0) }'; }

# table PMU ITRACE: time perf script --itrace=ITRACE of the PMU's
# recordings, print a row per decode, then the ratios.
table() {
	local -A mb secs cpu rss heap
	local n rec dec f k s c m h up d
	printf '%-10s %-6s %-8s %7s %7s %7s %7s %8s %8s\n' recording form \
		decoder "AUX MB" seconds "MB/s" "CPU s" "RSS MiB" "heap MiB"
	for n in $short $long; do
		while read -r rec dec; do
			f=$guest/$1-$rec-$n.data
			read -r s c m h <<< "$(decode "$(decoder_bin "$dec")" "$f" "$2")"
			k="$n $dec $(form "$rec")"
			mb[$k]=$(awk -v b="$(aux_bytes "$perf" "$f")" 'BEGIN { printf "%.3f", b / 1e6 }')
			secs[$k]=$s
			cpu[$k]=$c
			rss[$k]=$m
			heap[$k]=$h
			awk -v r="spin $n" -v f="$(form "$rec")" -v d="$dec" \
			    -v mb="${mb[$k]}" -v s="$s" -v c="$c" -v m="$m" -v h="$h" 'BEGIN {
				printf "%-10s %-6s %-8s %7.2f %7.3f %7.2f %7.3f %8.1f %8.2f\n",
				       r, f, d, mb, s, (s > 0 ? mb / s : 0), c,
				       m / 1024, h / 1048576 }'
		done <<< "$decodes"
	done

	echo
	echo "ours/upstream (upstream: base perf on the group form)"
	for n in $short $long; do
		up="$n upstream group"
		for k in "$n ours -A" "$n ours group"; do
			printf '  spin %-4s %-11s MB/s x%s, MB per CPU s x%s, peak RSS x%s, peak heap x%s\n' \
				"$n" "${k#$n }:" \
				"$(ratio "$(per "$k" "${secs[$k]}")" "$(per "$up" "${secs[$up]}")")" \
				"$(ratio "$(per "$k" "${cpu[$k]}")" "$(per "$up" "${cpu[$up]}")")" \
				"$(ratio "${rss[$k]}" "${rss[$up]}")" \
				"$(ratio "${heap[$k]}" "${heap[$up]}")"
		done
	done
	echo "spin $long / spin $short; MB/s from spin $short to spin $long (perf's start-up cancels out)"
	for d in "ours -A" "upstream group" "ours group"; do
		printf '  %-15s AUX MB x%s, peak RSS x%s, peak heap x%s; %s MB/s\n' "$d:" \
			"$(ratio "${mb[$long $d]}" "${mb[$short $d]}")" \
			"$(ratio "${rss[$long $d]}" "${rss[$short $d]}")" \
			"$(ratio "${heap[$long $d]}" "${heap[$short $d]}")" \
			"$(awk -v m="${mb[$long $d]}" -v n="${mb[$short $d]}" \
			       -v s="${secs[$long $d]}" -v t="${secs[$short $d]}" \
			       'BEGIN { printf (s > t ? "%.3g" : "-"), (s > t ? (m - n) / (s - t) : 0) }')"
	done
}

# ptwrites PERF FILE: the ptwrites perf decodes from a ptsim recording.
ptwrites() {
	"$1" script --itrace=we -F cpu,synth -i "$2" 2>/dev/null | awk '
		function hex(s,    i, v) {
			v = 0
			s = tolower(s)
			for (i = 3; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef",
						   substr(s, i, 1)) - 1
			return v
		}
		/instruction trace error/ { e++; next }
		/ payload: / {
			for (i = 1; i < NF; i++)
				if ($i == "payload:")
					p = hex($(i + 1))
			if (p != last[$1] + 1)
				g++
			last[$1] = p
			w++
		}
		END {
			printf "%6d ptwrites, %d gaps, %d errors, last:", w, g, e
			for (c in last)
				printf " %s %d", c, last[c]
			print ""
		}'
}

# branches PERF FILE: the samples of an Intel PT recording and the branches
# perf decodes from them.
branches() {
	"$1" script --itrace=be -F event,ip,sym -i "$2" 2>/dev/null | awk '
		/instruction trace error/ { e++; next }
		$1 ~ /^instructions/ { n++ }
		$1 ~ /^branches/ { b++; f[$NF]++ }
		END {
			printf "%5d samples, %8d branches, %.0f%% in hot, %.0f%% in warm, %d errors\n",
			       n, b, 100 * f["hot"] / (b ? b : 1),
			       100 * f["warm"] / (b ? b : 1), e
		}'
}

# decoded PMU ITRACE COUNT: COUNT PERF FILE of each decode, then the
# per-stream lines of perf script -v --itrace=ITRACE of the -A recordings.
decoded() {
	local n rec dec
	for n in $short $long; do
		while read -r rec dec; do
			printf '  %-22s %-8s ' "$1-$rec-$n.data" "$dec"
			"$3" "$(decoder_bin "$dec")" "$guest/$1-$rec-$n.data"
		done <<< "$decodes"
	done
	echo
	echo "per stream, perf script -v of the -A recordings"
	for n in $short $long; do
		echo "  $1-ours-$n.data:"
		"$perf" script -v --itrace="$2" -i "$guest/$1-ours-$n.data" 2>&1 >/dev/null |
			grep 'AUX samples of' | sed 's/^/    /'
	done
}

rm -f "$work/decode.err"
echo
echo "== ptsim: perf script --itrace=we"
table ptsim we
echo
echo "decoded: ptwrites; their sequence numbers (per ptsim event, i.e. per CPU)"
echo "go up by one from 1, so gaps and the last number per CPU tell what was lost"
decoded ptsim we ptwrites

echo
echo "== Intel PT (QEMU's): perf script --itrace=b, PERIOD_PT=$period_pt"
table intel_pt b
echo
echo "decoded: samples, branches (spin has ~3/4 of its branches in hot(), ~1/4 in warm())"
echo "and errors (on -A: Lost trace data, between samples)"
decoded intel_pt b branches

if [ -s "$work/decode.err" ]; then
	echo
	echo "decoders' stderr ($work/decode.err), first lines:"
	sort "$work/decode.err" | uniq -c | sort -rn | head -5
fi
