#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-decode.sh [ROUNDS]: perf's decoding of AUX-sample recordings, ours
# against upstream's.  In one guest boot, record harness/demo/spin.c for
# ROUNDS (default 25) and 4*ROUNDS rounds, each twice: with our perf as
# 'perf record -Aptsim -e cpu-clock:u' (samples with positions) and with the
# base perf (build/perf-base: the tree before the perf -A work, BASE_REV, in
# the worktree build/linux-base) in upstream's group-leader form
# '-e {ptsim//u,cpu-clock:u} --aux-sample=4096'.  Then, on the host, time
# 'perf script --itrace=we' of each (median of RUNS=3; the base perf on the
# group form, ours on both) and print MB of AUX samples (the sum of the
# samples' AUX sizes, from perf report -D), seconds, MB/s, peak RSS and peak
# heap (valgrind massif, one run), the ours/upstream ratios, each decoder's
# long/short ratios, the ptwrites decoded from each (with the gaps in their
# sequence numbers) and the per-stream line of 'perf script -v'.  Peak RSS
# includes the perf.data file, which perf maps whole.
# KERNEL= picks another bzImage (default: the plain kernel), PERIOD= the
# cpu-clock period in ns (default 100000).  Files: build/bench-decode/.
set -euo pipefail

. "$(dirname "$0")/common.sh"
short=${1:-25}
long=$((4 * short))
period=${PERIOD:-100000}
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
"$repo/harness/run-guest.sh" -o "$guest" -t 1200 \
	-k "${KERNEL:-$build/kernel/arch/x86/boot/bzImage}" "
set -e
cd /tmp
$perf version > /dev/null; $base version > /dev/null; $work/spin 1 > /dev/null
for n in $short $long; do
	echo \"== spin \$n: perf record -Aptsim, then the group form\"
	/usr/bin/time -f '   %e s' $perf record -q -Aptsim -e cpu-clock:u \
		-c $period -o /tmp/a.data -- $work/spin \$n
	cp /tmp/a.data /tmp/out/ours-\$n.data && rm /tmp/a.data
	/usr/bin/time -f '   %e s' $base record -q \
		-e '{ptsim//u,cpu-clock:u}' -c $period --aux-sample=4096 \
		-o /tmp/b.data -- $work/spin \$n
	cp /tmp/b.data /tmp/out/group-\$n.data && rm /tmp/b.data
done"

# Sum of the AUX sizes of the samples (-A samples: 24 bytes of position
# ahead of the trace, counted).
aux_bytes() {
	"$perf" report -D -i "$1" 2>/dev/null | awk '
		/PERF_RECORD_/ { in_sample = /PERF_RECORD_SAMPLE/ }
		in_sample && / data: size [0-9]+ bytes/ {
			for (i = 1; i < NF; i++)
				if ($i == "size")
					sum += $(i + 1)
			in_sample = 0
		}
		END { print sum + 0 }'
}

# decode PERF FILE: the medians of RUNS decodes' wall seconds, CPU seconds
# (user + sys; bash's time, to the ms) and peak RSS (KiB, /usr/bin/time),
# then the peak heap (bytes) of one more decode under massif.
decode() {
	local TIMEFORMAT='%3R %3U %3S'
	for i in $(seq "$runs"); do
		{ time /usr/bin/time -f %M -o "$work/rss" "$1" script \
			--itrace=we -i "$2" > /dev/null 2>> "$work/decode.err"; } \
			2> "$work/time"
		cat "$work/time" "$work/rss" | tr "\n" " "; echo
	done | awk '{ print $1, $2 + $3, $4 }' > "$work/times"
	valgrind -q --tool=massif --massif-out-file="$work/massif" \
		"$1" script --itrace=we -i "$2" > /dev/null 2> /dev/null
	for col in 1 2 3; do
		cut -d' ' -f$col "$work/times" | sort -n |
			sed -n "$(((runs + 1) / 2))p"
	done | tr '\n' ' '
	awk -F= '/^mem_heap_B=/ { h = $2 }
		 /^mem_heap_extra_B=/ { if (h + $2 > m) m = h + $2 }
		 END { print m + 0 }' "$work/massif"
}

rm -f "$work/decode.err"
declare -A mb secs cpu rss heap
printf '\n%-10s %-6s %-8s %7s %7s %7s %7s %8s %8s\n' recording form decoder \
	"AUX MB" seconds "MB/s" "CPU s" "RSS MiB" "heap MiB"
for n in $short $long; do
	for run in "ours-$n ours -A" "group-$n upstream group" "group-$n ours group"; do
		set -- $run
		f=$guest/$1.data
		bin=$perf
		[ "$2" = upstream ] && bin=$base
		read -r s c m h <<< "$(decode "$bin" "$f")"
		k="$n $2 $3"
		mb[$k]=$(awk -v b="$(aux_bytes "$f")" 'BEGIN { printf "%.1f", b / 1e6 }')
		secs[$k]=$s
		cpu[$k]=$c
		rss[$k]=$m
		heap[$k]=$h
		awk -v r="spin $n" -v f="$3" -v d="$2" -v mb="${mb[$k]}" \
		    -v s="$s" -v c="$c" -v m="$m" -v h="$h" 'BEGIN {
			printf "%-10s %-6s %-8s %7.1f %7.3f %7.1f %7.3f %8.1f %8.2f\n",
			       r, f, d, mb, s, (s > 0 ? mb / s : 0), c,
			       m / 1024, h / 1048576 }'
	done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
per() { awk -v mb="${mb[$1]}" -v s="$2" 'BEGIN { print (s > 0 ? mb / s : 0) }'; }
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
		       'BEGIN { printf (s > t ? "%.0f" : "-"), (s > t ? (m - n) / (s - t) : 0) }')"
done

echo
echo "decoded: ptwrites; their sequence numbers (per ptsim event, i.e. per CPU)"
echo "go up by one from 1, so gaps and the last number per CPU tell what was lost"
for n in $short $long; do
	for run in "ours-$n ours" "group-$n upstream" "group-$n ours"; do
		set -- $run
		bin=$perf
		[ "$2" = upstream ] && bin=$base
		"$bin" script --itrace=we -F cpu,synth -i "$guest/$1.data" \
			2>/dev/null | awk -v r="$1.data" -v d="$2" '
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
				printf "  %-16s %-8s %6d ptwrites, %d gaps, %d errors, last:",
				       r, d, w, g, e
				for (c in last)
					printf " %s %d", c, last[c]
				print ""
			}'
	done
done
echo
echo "per stream, perf script -v of the -A recordings"
for n in $short $long; do
	echo "  ours-$n.data:"
	"$perf" script -v --itrace=we -i "$guest/ours-$n.data" 2>&1 >/dev/null |
		grep 'AUX samples of' | sed 's/^/    /'
done
if [ -s "$work/decode.err" ]; then
	echo
	echo "decoders' stderr ($work/decode.err), first lines:"
	sort "$work/decode.err" | uniq -c | sort -rn | head -5
fi
