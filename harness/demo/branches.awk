# SPDX-License-Identifier: GPL-2.0
#
# The demo's view of perf script --itrace=b -F event,ip,sym,symoff,addr,flags
# of a perf record -A intel_pt recording: samples of the samplers (EVENTS,
# a regular expression), each after the branches that its trace shows
# leading up to it.  Shown: the first SHOW samples in one of FUNCS (a
# regular expression) with the last BRANCHES branches before them, then
# the first SHOW whose trace, since the sample before, has a call or
# return from or to one of FUNCS, with the last of those.
function sym(s) { sub(/\+0x[0-9a-f]+$/, "", s); return s }

/^ *branches/ {
	if ($0 ~ /tr strt|tr end/)
		next
	# flags..., from, from's symbol, =>, to, to's symbol
	arrow = index($0, "=>")
	n = split(substr($0, 1, arrow - 1), f)
	split(substr($0, arrow + 2), t)
	kind = f[2]
	for (i = 3; i < n - 1; i++)
		kind = kind " " f[i]
	line[nr++ % BRANCHES] = sprintf("%-8s %28s  ->  %s", kind, f[n], t[2])
	if (kind ~ /call|return/ &&
	    (sym(f[n]) ~ "^(" FUNCS ")$" || sym(t[2]) ~ "^(" FUNCS ")$")) {
		crossing = line[(nr - 1) % BRANCHES]
		after = 0
	} else {
		after++
	}
	next
}

$1 ~ "^(" EVENTS "):$" {
	samples++
	event = substr($1, 1, length($1) - 1)
	if (crossing != "" && crossings++ < SHOW) {
		printf "sample %d, %s at %s, after\n    %s\n", samples, event,
		       $NF, crossing
		if (after)
			printf "    and %d branches more\n", after
	} else if (nr && sym($NF) ~ "^(" FUNCS ")$" && inside++ < SHOW) {
		printf "sample %d, %s at %s, after\n", samples, event, $NF
		for (i = nr - BRANCHES; i < nr; i++)
			if (i >= 0)
				print "    " line[i % BRANCHES]
	}
	nr = 0
	crossing = ""
}

END { printf "%d samples\n", samples }
