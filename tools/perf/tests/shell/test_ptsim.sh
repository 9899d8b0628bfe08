#!/bin/sh
# ptsim (simulated Intel PT) ptwrite decoding
# SPDX-License-Identifier: GPL-2.0
#
# ptsim is a software PMU whose AUX data is an Intel PT stream: at each tick
# of a timer, a PTW packet with a sequence number (1, 2, 3, ... per event)
# followed by a FUP with the IP that the tick interrupted.  Record a workload
# that spins first in one known function and then in another, and check that
# perf script shows the ptwrites without a gap in the sequence numbers, with
# IPs in the workload, in the first function and then in the second.

set -e

. "$(dirname "$0")"/lib/ptsim.sh

ptsim_test_setup ptsim
workload="${temp_dir}/ptsim_work"
err=0

# Milliseconds that the workload spins in each of its two functions
spin_ms=500

# ptsim ticks every 100us by default, but a guest with a coarse clock may
# tick only every few milliseconds: ask for few records.
min_records=5

cat << _end_of_file_ | cc -O1 -o "${workload}" -xc -
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 +
	       (now.tv_nsec - start->tv_nsec) / 1000000;
}

#define SPIN_FUNC(name)						\\
__attribute__((noinline)) void name(long ms)			\\
{								\\
	struct timespec start;					\\
	unsigned long i;					\\
								\\
	clock_gettime(CLOCK_MONOTONIC, &start);			\\
	do {							\\
		for (i = 0; i < 100000; i++)			\\
			sink += i;				\\
	} while (ms_since(&start) < ms);			\\
}

SPIN_FUNC(ptsim_work_first)
SPIN_FUNC(ptsim_work_second)

int main(int argc, char *argv[])
{
	long ms = argc > 1 ? atol(argv[1]) : 500;

	ptsim_work_first(ms);
	ptsim_work_second(ms);
	return 0;
}
_end_of_file_

# Check the output of perf script -F pid,tid,cpu,ip,sym,dso,synth --itrace=w:
#
#   PID/TID [CPU]  IP: 1 payload: SEQ [PRINTABLE-PAYLOAD] IP SYM (DSO)
#
# The sequence numbers go up by one from 1, per CPU with per-cpu mmaps (an
# event per CPU), else for the one event.  Per-thread, all records belong to
# the workload's thread and every IP is in a mapping of it.  In either case,
# the workload's IPs are in ptsim_work_first, then in ptsim_work_second.
check_ptwrites()
{
	per_cpu=$1

	awk -v per_cpu="${per_cpu}" -v min_records="${min_records}" \
	    -v workload="(${workload})" "${ptsim_awk_hex}"'
	function fail(msg) {
		if (errors++ < 10)
			printf "%s: %s\n", msg, $0
	}
	{
		for (i = 1; i < NF; i++)
			if ($i == "payload:")
				break
		if (i == NF) {
			fail("Not a ptwrite")
			next
		}
		records++
		seq = hex($(i + 1))
		key = per_cpu ? $2 : "all"
		if (seq != last[key] + 1)
			fail("Sequence number " seq " after " last[key] + 0)
		last[key] = seq
		sym = $(NF - 1)
		dso = $NF
		if (!per_cpu) {
			if (!pid_tid)
				pid_tid = $1
			if ($1 != pid_tid)
				fail("Record of another thread than " pid_tid)
			if (dso == "([unknown])")
				fail("IP in no mapping")
		}
		if (dso != workload)
			next
		if (sym == "ptsim_work_first") {
			if (second)
				fail("ptsim_work_first after ptsim_work_second")
			first++
		} else if (sym == "ptsim_work_second") {
			second++
		}
	}
	END {
		printf "%d ptwrites, %d in ptsim_work_first, %d in ptsim_work_second\n",
		       records, first, second
		if (first < min_records || second < min_records) {
			printf "Too few ptwrites in ptsim_work_first or ptsim_work_second\n"
			errors++
		}
		if (!per_cpu && first + second < records / 2) {
			printf "Most ptwrites not in ptsim_work_first or ptsim_work_second\n"
			errors++
		}
		exit errors != 0
	}' "${outfile}"
}

test_ptsim()
{
	mode=$1
	shift

	echo "--- Test ptsim ptwrites (${mode}) ---"

	if ! perf record -o "${perfdata}" "$@" -e ptsim//u -- \
			"${workload}" ${spin_ms} > "${errfile}" 2>&1 ; then
		cat "${errfile}"
		echo "perf record failed"
		err=1
		return
	fi

	perf script -i "${perfdata}" --itrace=e > "${errfile}" 2>&1
	if [ -s "${errfile}" ] ; then
		head "${errfile}"
		echo "Decoding errors"
		err=1
	fi

	perf script -i "${perfdata}" --itrace=w -F pid,tid,cpu,ip,sym,dso,synth \
		> "${outfile}"

	if [ "${mode}" = "per-cpu" ] ; then
		per_cpu=1
	else
		per_cpu=0
	fi

	if ! check_ptwrites ${per_cpu} ; then
		echo "Most frequent symbols:"
		awk '{ print $(NF - 1), $NF }' "${outfile}" | sort | uniq -c |
			sort -rn | head
		echo "Bad ptwrites (${mode})"
		err=1
	fi
}

# With per-cpu mmaps, the thread of a ptwrite is told by its time stamp and
# the context switch events.  But ptsim's stream has time stamps only in its
# PSB+, the events of the threads of a process may go on across a switch
# between them without a new PSB+ (perf swaps their equivalent contexts), and
# the clock may be coarse (as in a guest with a jiffies clocksource), so a
# ptwrite may be taken to belong to another thread.  So the thread and its
# mappings are only checked per-thread, where there is no doubt.
test_ptsim per-cpu
test_ptsim per-thread --per-thread

ptsim_cleanup
exit ${err}
