#!/bin/sh
# perf record -A: AUX samples from hidden AUX events
# SPDX-License-Identifier: GPL-2.0
#
# perf record -A PMU gives every sampling event, in each of its samples, the
# latest trace of a hidden AUX event of PMU that the kernel runs for it, with
# the position of that trace in its stream, and perf script rebuilds each
# hidden event's stream from the samples.  With ptsim, whose trace is a PTW
# packet with a sequence number (1, 2, 3, ... per hidden event) and a FUP
# with the interrupted IP at each tick, record a workload of four threads,
# each spinning in a function of its own.  Check that perf script shows the
# ptwrites of each (thread, CPU) stream with no gap that it does not report
# as lost trace and no repeat (an overlap of two samples not removed), each
# thread's in its own function, and before the samples that carried them;
# that the bytes that perf script -v counts as lost are those that the
# errors report, also with samples too small to hold all the trace, and
# with perf record --overwrite, whose rings lose their oldest samples (and
# which an AUX event itself is refused); that with -a, the workload's
# trace in the streams of the CPUs resolves to its functions; that the
# group-leader form (--aux-sample-group, which takes terms outside config,
# and -A on a kernel without hidden AUX events)
# records a group led by ptsim, with ptwrites; that -A for a PMU that cannot
# tell trace positions records hidden AUX samples without them, with
# ptwrites; that perf script gives an error event for a garbled position
# header and goes on, and perf script -D shows position headers; that perf
# record counts the samples without trace as the kernel does; and that -A
# refuses a PMU that does not exist, a PMU that cannot take AUX samples, a
# sample size too large, a configuration the PMU refuses, terms outside
# config, modifiers, and samplers of other modes, which cannot share a
# hidden event.  perf learns what
# the kernel and the PMU can do from sysfs: the other kernels and PMUs are
# fake sysfs trees (SYSFS_PATH) that lack what they would lack.

set -e

. "$(dirname "$0")"/lib/ptsim.sh

ptsim_test_setup aux_sample
workload="${temp_dir}/aux_sample_work"
err=0

# Milliseconds that each thread of the workload spins
spin_ms=300

# A sample size too small for the trace between two samples: trace is lost
small_size=64

# The main thread and three others each spin in a function of their own
# (different, so that the compiler cannot merge them), then join.
cat << _end_of_file_ | cc -O1 -pthread -o "${workload}" -xc -
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink[4];
static long spin_ms = 300;

static long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 +
	       (now.tv_nsec - start->tv_nsec) / 1000000;
}

#define SPIN_FUNC(name, n)					\\
__attribute__((noinline)) void *name(void *arg)			\\
{								\\
	struct timespec start;					\\
	unsigned long i;					\\
								\\
	clock_gettime(CLOCK_MONOTONIC, &start);			\\
	do {							\\
		for (i = 0; i < 100000; i++)			\\
			sink[n] += i;				\\
	} while (ms_since(&start) < spin_ms);			\\
	return arg;						\\
}

SPIN_FUNC(auxs_spin_main, 0)
SPIN_FUNC(auxs_spin_1, 1)
SPIN_FUNC(auxs_spin_2, 2)
SPIN_FUNC(auxs_spin_3, 3)

int main(int argc, char *argv[])
{
	void *(*spin[3])(void *) = { auxs_spin_1, auxs_spin_2, auxs_spin_3 };
	pthread_t threads[3];
	int i;

	if (argc > 1)
		spin_ms = atol(argv[1]);
	for (i = 0; i < 3; i++) {
		if (pthread_create(&threads[i], NULL, spin[i], NULL))
			return 1;
	}
	auxs_spin_main(NULL);
	for (i = 0; i < 3; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
_end_of_file_

# Check the output of perf script -F tid,cpu,event,synth,ip,sym --itrace=we:
#
#   TID [CPU]  ptwrite:  IP: 1 payload: SEQ [PRINTABLE-PAYLOAD] IP SYM
#   TID [-01]  cpu-clock:u:  IP SYM          (or page-faults:u:)
#   instruction trace error type 1 time T cpu CPU pid P tid TID ip 0 code 8:
#     Lost trace data: N bytes before this AUX sample
#
# Each (TID, CPU) is the stream of a hidden event: its sequence numbers go
# up by one from 1, except after a loss of trace, which must be reported by
# an error of that TID and CPU, where they jump ahead.  Every other line and
# any other error is a failure.  Unless @lossy, at least 3 threads have
# ptwrites, some sample comes right after a ptwrite of its thread (its
# trace comes before it), and at least 3 threads have ptwrites in a spin
# function of the workload, each in one function of its own.  If @lossy,
# some trace was lost.
check_script()
{
	lossy=$1

	awk -v lossy="${lossy}" "${ptsim_awk_hex}"'
	function field(name,    i) {
		for (i = 1; i < NF; i++)
			if ($i == name)
				return $(i + 1)
		return ""
	}
	function fail(msg) {
		if (errors++ < 10)
			printf "%s: %s\n", msg, $0
	}
	BEGIN {
		lost_re = "Lost trace data: ([1-9][0-9]* bytes before this AUX sample|"
		lost_re = lost_re "all after this AUX sample \\(byte [0-9]+\\))$"
	}
	/^ *instruction trace error / {
		if ($0 !~ lost_re) {
			fail("Decoding error")
			next
		}
		lost[field("tid") ":" field("cpu")] = 1
		prev[field("tid")] = "error"
		nr_lost++
		next
	}
	$3 == "ptwrite:" {
		tid = $1
		cpu = $2
		gsub(/[][]/, "", cpu)
		key = tid ":" (cpu + 0)
		seq = hex(field("payload:"))
		if (seq < 1)
			fail("Bad payload")
		else if (!(key in last)) {
			if (seq != 1 && !lost[key])
				fail("Stream starts at " seq " with no loss reported")
		} else if (seq == last[key])
			fail("Payload " seq " again (overlap not removed)")
		else if (seq < last[key])
			fail("Payload " seq " after " last[key])
		else if (seq != last[key] + 1 && !lost[key])
			fail("Payload " seq " after " last[key] " with no loss reported")
		last[key] = seq
		lost[key] = 0
		ptwrites++
		if (!tid_ptwrites[tid]++)
			nr_tids++
		if ($NF ~ /^auxs_spin_/)
			spin[tid, $NF]++
		prev[tid] = "ptwrite"
		next
	}
	$3 == "cpu-clock:u:" || $3 == "page-faults:u:" {
		samples++
		if (prev[$1] == "ptwrite")
			after_ptwrite++
		prev[$1] = "sample"
		next
	}
	{
		fail("Unexpected line")
	}
	END {
		for (k in spin) {
			split(k, a, SUBSEP)
			if (tid_spin[a[1]] != "")
				tid_spin[a[1]] = tid_spin[a[1]] ","
			tid_spin[a[1]] = tid_spin[a[1]] a[2]
			spin_tids[a[2]]++
		}
		for (tid in tid_spin) {
			printf "Thread %s: ptwrites in %s\n", tid, tid_spin[tid]
			if (index(tid_spin[tid], ",")) {
				printf "Thread %s has ptwrites in several spin functions\n", tid
				errors++
			} else if (spin_tids[tid_spin[tid]] > 1) {
				printf "%s has ptwrites of several threads\n", tid_spin[tid]
				errors++
			} else {
				spinners++
			}
		}
		printf "%d ptwrites of %d threads, %d losses of trace, ", ptwrites,
		       nr_tids, nr_lost
		printf "%d samples (%d right after a ptwrite)\n", samples, after_ptwrite
		if (!ptwrites) {
			printf "No ptwrites\n"
			errors++
		}
		if (lossy) {
			if (!nr_lost) {
				printf "No trace lost with %s\n", lossy
				errors++
			}
			exit errors != 0
		}
		if (nr_tids < 3) {
			printf "Ptwrites of fewer than 3 threads\n"
			errors++
		}
		if (!after_ptwrite) {
			printf "No sample right after a ptwrite of its thread\n"
			errors++
		}
		if (spinners < 3) {
			printf "Fewer than 3 threads with ptwrites in their spin function\n"
			errors++
		}
		exit errors != 0
	}' "${outfile}"
}

# The lost bytes of all streams as perf script -v counts them are those that
# the "Lost trace data" errors of the output of check_script() report.
check_lost()
{
	vfile=$1

	reported=$(awk '/Lost trace data: [0-9]+ bytes/ {
		for (i = 1; i < NF; i++)
			if ($i == "data:")
				n += $(i + 1)
	} END { print n + 0 }' "${outfile}")
	counted=$(awk '/^AUX samples of stream .* lost$/ {
		n += $(NF - 1)
		streams++
	} END { print n + 0, streams + 0 }' "${vfile}")
	streams=${counted#* }
	counted=${counted% *}
	echo "${streams} streams, ${counted} bytes lost, ${reported} reported lost"
	if [ "${streams}" -eq 0 ] ; then
		echo "No stream statistics from perf script -v"
		return 1
	fi
	if [ "${counted}" -ne "${reported}" ] ; then
		echo "Streams lost ${counted} bytes, errors report ${reported}"
		return 1
	fi
}

# perf script of the recording through check_script() (@lossy: see there)
# and check_lost(); @what ends the messages of failures.
check_streams()
{
	what=$1
	lossy=$2

	# -v adds the statistics of each stream to stderr, not to the output
	perf script -v -i "${perfdata}" --itrace=we \
		-F tid,cpu,event,synth,ip,sym > "${outfile}" 2> "${errfile}"
	if ! check_script "${lossy}" ; then
		echo "Bad ptwrites or samples${what}"
		err=1
	fi
	if ! check_lost "${errfile}" ; then
		grep '^AUX samples of stream' "${errfile}" || true
		echo "Lost trace does not add up${what}"
		err=1
	fi
}

# perf record -A ptsim [--aux-sample=SIZE] [--aux-sample-overlap], perf
# script, and the checks.  The samples carry positions, and without
# --aux-sample-overlap only the trace that is new.
test_hidden()
{
	size=$1
	overlap=$2

	echo "--- Test perf record -A ptsim${size:+ --aux-sample=${size}} ${overlap} ---"

	if ! perf record -A ptsim ${size:+--aux-sample=${size}} ${overlap} \
			-e cpu-clock:u,page-faults:u -o "${perfdata}" -- \
			"${workload}" ${spin_ms} > "${errfile}" 2>&1 ; then
		cat "${errfile}"
		echo "perf record -A ptsim failed"
		err=1
		return
	fi

	if [ -z "${size}" ] ; then
		perf evlist -v -i "${perfdata}" > "${outfile}"
		flags=0x3
		[ -n "${overlap}" ] && flags=0x1
		if ! awk -v type="$(cat "${pmu_dir}/type")" -v flags="${flags}" '
		/^(cpu-clock|page-faults):u: / {
			events++
			if ($0 ~ "aux_sample_type: " type "(,|$)" &&
			    $0 ~ "aux_sample_flags: " flags "(,|$)")
				ok++
		}
		END { exit events != 2 || ok != 2 }' "${outfile}" ; then
			cat "${outfile}"
			echo "Events without hidden ptsim AUX samples with positions"
			err=1
		fi
	fi

	check_streams "" "${size:+${size}-byte samples}"
	perf script -i "${perfdata}" --itrace=we > /dev/null 2> "${errfile}"
	if ! check_summary "${errfile}" ; then
		echo "No right summary of AUX samples without -v"
		err=1
	fi
}

# Without -v, perf script ends with one line about all AUX samples: its
# lost bytes and streams are what check_lost() found with -v.
check_summary()
{
	summary=$(grep '^AUX samples: ' "$1") || return 1
	echo "${summary}"
	want="^AUX samples: [0-9]+, [0-9]+ without trace;"
	want="${want} trace lost between them: ${counted} bytes; streams: ${streams}$"
	echo "${summary}" | grep -q -E "${want}"
}

# perf record -A ptsim --overwrite, perf record's flight recorder: rings
# overwritten oldest first, read at the end, of 64 pages so that they are
# (a sample there keeps the room of a whole --aux-sample, 4 KiB).
# The samples that remain hold the streams from some point on; the trace of
# those overwritten must be reported lost, and what remains decodes with no
# gap that is not.  An AUX event itself cannot be recorded so (perf writes
# to its ring, and an overwrite ring is mapped read-only): refused.
# Rings of 16 pages keep some 15 samples each, of their latest trace whole
# (aux_sample_flags 0x1: samples of new trace only, 0x3, would keep as
# much room each with a few bytes, too few to decode from): hundreds of
# ptwrites.
record_overwrite()
{
	if ! perf record -A ptsim --overwrite -m "$1" -e cpu-clock:u \
			-o "${perfdata}" -- "${workload}" ${spin_ms} \
			> "${errfile}" 2>&1 ; then
		cat "${errfile}"
		echo "perf record -A ptsim --overwrite -m $1 failed"
		err=1
		return 1
	fi
}

test_overwrite()
{
	echo "--- Test perf record -A ptsim --overwrite ---"

	record_overwrite 64 || return
	check_streams " with --overwrite" "overwrite rings"
	expect_error "cannot use --overwrite" -e ptsim//u --overwrite

	record_overwrite 16 || return
	# each thread's ptwrites once: overlap decoded twice would not count
	ptwrites=$(perf script -i "${perfdata}" --itrace=we -F tid,synth \
		   2> /dev/null | grep 'payload:' | sort -u | wc -l)
	echo "16 pages: ${ptwrites} ptwrites"
	if ! perf evlist -v -i "${perfdata}" |
	     grep -q -E 'aux_sample_flags: 0x1(,|$)' ||
	   [ "${ptwrites}" -lt 100 ] ; then
		perf evlist -v -i "${perfdata}"
		echo "Overwrite rings of 16 pages: too little trace"
		err=1
	fi
}

# A sysfs for perf record (SYSFS_PATH="${sysfs}"): links to all of /sys
# but for bus/event_source and the caps of ptsim, made of links too, less
# what another kernel (@kernel) would not have there: "old", Linux 6.1,
# which has no hidden AUX events (no bus/event_source/aux_sample_flags, no
# caps/aux_sample or caps/aux_position); "nopos", ptsim as a PMU that
# cannot tell trace positions, as Intel PT (no caps/aux_position);
# "nosample", ptsim as a PMU that cannot take AUX samples (neither caps).
# This is what perf reads to know what -A can do; the kernel it then opens
# the events on is the real one.
fake_sysfs()
{
	kernel=$1
	sysfs="${temp_dir}/sysfs-${kernel}"
	caps=bus/event_source/devices/ptsim/caps

	rm -rf "${sysfs}"
	mkdir -p "${sysfs}/${caps}"
	link_sysfs "" bus
	link_sysfs bus event_source
	link_sysfs bus/event_source devices
	link_sysfs bus/event_source/devices ptsim
	link_sysfs bus/event_source/devices/ptsim caps
	link_sysfs "${caps}" ""

	case "${kernel}" in
	old)
		rm -f "${sysfs}/bus/event_source/aux_sample_flags" \
			"${sysfs}/${caps}/aux_sample" "${sysfs}/${caps}/aux_position"
		;;
	nopos)
		rm -f "${sysfs}/${caps}/aux_position"
		;;
	nosample)
		rm -f "${sysfs}/${caps}/aux_sample" "${sysfs}/${caps}/aux_position"
		;;
	esac
}

# Link each entry of /sys/@dir but @skip from the same directory of the
# fake sysfs.
link_sysfs()
{
	dir=$1
	skip=$2

	for f in "/sys/${dir:+${dir}/}"* ; do
		if [ "${f##*/}" != "${skip}" ] ; then
			ln -s "${f}" "${sysfs}/${dir}"
		fi
	done
}

# perf record ARGS... with the sysfs of fake_sysfs @kernel, or /sys if "".
record_on()
{
	kernel=$1
	shift

	if [ -z "${kernel}" ] ; then
		perf record "$@"
		return
	fi
	fake_sysfs "${kernel}"
	SYSFS_PATH="${sysfs}" perf record "$@"
}

# perf record -A ptsim on a kernel without hidden AUX events, as the fake
# sysfs shows one (@kernel "old"), or asked for the group-leader form: a
# group led by ptsim, whose ptwrites perf script shows.
test_group()
{
	kernel=$1

	if [ "${kernel}" = "old" ] ; then
		echo "--- Test perf record -A ptsim on a kernel without hidden AUX events ---"
		set -- old -A ptsim
	else
		# A term outside config, which only the group form takes
		echo "--- Test perf record --aux-sample-group -A ptsim/interval=200/ ---"
		set -- "" --aux-sample-group -A ptsim/interval=200/
	fi

	if ! record_on "$@" -e cpu-clock:u -o "${perfdata}" -- \
			"${workload}" ${spin_ms} > "${errfile}" 2>&1 ; then
		cat "${errfile}"
		shift
		echo "perf record $* failed${kernel:+ (${kernel} kernel)}"
		err=1
		return
	fi
	if [ "${kernel}" = "old" ] &&
	   ! grep -m1 "no hidden AUX events: recording in the group-leader form" \
			"${errfile}" ; then
		cat "${errfile}"
		echo "No warning that -A falls back to the group-leader form"
		err=1
	fi

	perf evlist -g -i "${perfdata}" > "${outfile}"
	if ! grep -Eq '^\{ptsim/[^,]*/,cpu-clock:u\}$' "${outfile}" ; then
		cat "${outfile}"
		echo "ptsim does not lead a group with cpu-clock:u"
		err=1
	fi

	count_ptwrites "in the group-leader form"
}

# perf script shows ptwrites of the recording (@what).
count_ptwrites()
{
	perf script -i "${perfdata}" --itrace=w -F tid,event,synth \
		> "${outfile}" 2> "${errfile}"
	ptwrites=$(grep -c ' ptwrite: ' "${outfile}" || true)
	echo "${ptwrites} ptwrites"
	if [ "${ptwrites}" -eq 0 ] ; then
		head "${errfile}"
		echo "No ptwrites $1"
		err=1
	fi
}

# perf record -A ptsim for a PMU that cannot tell trace positions, as the
# fake sysfs shows ptsim: hidden AUX events without positions, with a
# warning, whose samples perf script decodes as upstream does.
test_no_positions()
{
	echo "--- Test perf record -A ptsim where the PMU cannot tell positions ---"

	if ! record_on nopos -A ptsim -e cpu-clock:u -o "${perfdata}" -- \
			"${workload}" ${spin_ms} > "${errfile}" 2>&1 ; then
		cat "${errfile}"
		echo "perf record -A ptsim failed (no positions)"
		err=1
		return
	fi
	if ! grep -m1 "overlap between samples will be guessed" "${errfile}" ; then
		cat "${errfile}"
		echo "No warning that overlap will be guessed"
		err=1
	fi

	perf evlist -v -i "${perfdata}" > "${outfile}"
	if ! grep -q "aux_sample_type: $(cat "${pmu_dir}/type")" "${outfile}" ||
	   grep -q "aux_sample_flags" "${outfile}" ; then
		cat "${outfile}"
		echo "Not hidden AUX samples without positions"
		err=1
	fi

	count_ptwrites "from samples without positions"
}

# perf record -a -A ptsim: a stream per CPU, of every task on it.  The trace
# that a sample brings goes to the sample's thread, so that the workload's
# ptwrites resolve to its functions.
test_cpu_wide()
{
	echo "--- Test perf record -a -A ptsim ---"

	if ! perf record -a -A ptsim -c 10000000 -e cpu-clock:u \
			-o "${perfdata}" -- "${workload}" 100 \
			> "${errfile}" 2>&1 ; then
		cat "${errfile}"
		echo "perf record -a -A ptsim failed"
		err=1
		return
	fi

	perf script -i "${perfdata}" --itrace=w -F comm,ip,sym,synth \
		> "${outfile}" 2> "${errfile}"
	ptwrites=$(grep -c ' auxs_spin_' "${outfile}" || true)
	echo "${ptwrites} ptwrites in the workload's functions"
	if [ "${ptwrites}" -eq 0 ] ; then
		head "${outfile}" "${errfile}"
		echo "No ptwrites of per-CPU streams in the workload's functions"
		err=1
	fi
}

# perf record -A says at its end how many samples of each event carried no
# trace, as the kernel counted them (aux_sample_misses).  With ptsim
# finding no trace to give (its snapshot_no_trace knob), that is all of
# them, as many as perf script counts without trace.
test_misses()
{
	knob=/sys/kernel/debug/ptsim/snapshot_no_trace
	echo "--- Test perf record -A's count of samples without trace ---"

	if ! echo Y > "${knob}" ; then
		echo "Cannot set ${knob}"
		err=1
		return
	fi
	if ! perf record -A ptsim -e cpu-clock:u -o "${perfdata}" -- \
			"${workload}" 50 > "${errfile}" 2>&1 ; then
		echo N > "${knob}"
		cat "${errfile}"
		echo "perf record -A ptsim failed"
		err=1
		return
	fi
	echo N > "${knob}"
	said='samples without trace (aux_sample_misses)'
	misses=$(sed -n "s/^\[ perf record: cpu-clock:u: \([0-9]*\) ${said} \]\$/\1/p" \
		"${errfile}")
	perf script -i "${perfdata}" --itrace=we > /dev/null 2> "${outfile}"
	summary=$(grep '^AUX samples: ' "${outfile}" || true)
	echo "perf record: ${misses:-no} misses; perf script: ${summary}"
	if [ -z "${misses}" ] || [ "${misses}" -eq 0 ] ||
	   ! echo "${summary}" | grep -q "^AUX samples: ${misses}, ${misses} without trace;" ; then
		cat "${errfile}"
		echo "perf record did not count the samples without trace"
		err=1
	fi
}

# perf record "$@" must fail saying something that matches @pattern.
expect_error()
{
	expect_error_on "" "$@"
}

# expect_error with the sysfs of fake_sysfs @kernel.
expect_error_on()
{
	kernel=$1
	pattern=$2
	shift 2

	if record_on "${kernel}" "$@" -o "${perfdata}" -- true \
			> "${errfile}" 2>&1 ; then
		echo "perf record $* succeeded"
		err=1
	elif ! grep -Ei -m1 -- "${pattern}" "${errfile}" ; then
		cat "${errfile}"
		echo "perf record $* failed without saying '${pattern}'"
		err=1
	fi
}

# A perf.data whose first AUX sample has a position header that claims more
# trace than the sample holds: perf script must give an error event for it
# and decode the other samples' trace, as upstream's decoders go on after
# a bad packet; perf script -D must show the position headers as such.
test_garbled()
{
	echo "--- Test perf script on a garbled -A recording ---"

	cat << _end_of_file_ | cc -o "${temp_dir}/garble" -xc -
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * argv[2]: the file offset of a PERF_RECORD_SAMPLE; argv[3]: bytes of AUX
 * data in a full sample (header and trace), which end the record.
 */
int main(int argc, char *argv[])
{
	struct { uint32_t type; uint16_t misc, size; } h;
	uint64_t bad = ~0ULL >> 1;
	FILE *f = fopen(argv[1], "r+b");
	long pos = strtol(argv[2], NULL, 0);
	long aux = strtol(argv[3], NULL, 0);

	/* The header's size field is 16 bytes into the sample's AUX data */
	if (!f || fseek(f, pos, SEEK_SET) || fread(&h, sizeof(h), 1, f) != 1 ||
	    h.type != 9 || h.size <= aux ||
	    fseek(f, pos + h.size - aux + 16, SEEK_SET) ||
	    fwrite(&bad, 8, 1, f) != 1)
		return 1;
	return fclose(f) != 0;
}
_end_of_file_

	# Samples of their full size, whose AUX data the garbler can find
	if ! perf record -A ptsim --aux-sample-overlap -e cpu-clock:u \
			-o "${perfdata}" -- "${workload}" 50 > "${errfile}" 2>&1 ; then
		cat "${errfile}"
		echo "perf record -A ptsim failed"
		err=1
		return
	fi
	# The first sample in time (perf script -D shows them in time order,
	# with their file offsets), so that trace follows it: 4096 bytes of
	# trace after a 24-byte struct perf_aux_sample_position.
	first=$(perf script -D -i "${perfdata}" 2> /dev/null | awk '
		/PERF_RECORD_SAMPLE/ {
			for (i = 1; i < NF; i++)
				if ($(i + 1) ~ /^\[0x/) {
					print $i
					exit
				}
		}')
	if ! "${temp_dir}/garble" "${perfdata}" "${first}" $((4096 + 24)) ; then
		echo "No AUX sample to garble at ${first}"
		err=1
		return
	fi
	if ! perf script -i "${perfdata}" --itrace=we > "${outfile}" \
			2> "${errfile}" ; then
		cat "${errfile}"
		echo "perf script on a garbled AUX sample failed"
		err=1
	elif ! grep -m1 "position header does not fit" "${outfile}" ; then
		echo "perf script on a garbled AUX sample gave no error event"
		err=1
	elif ! awk 'garbled && /ptwrite/ { found = 1 }
		    /position header does not fit/ { garbled = 1 }
		    END { exit !found }' "${outfile}" ; then
		echo "perf script decoded no trace after the garbled AUX sample"
		err=1
	fi
	# perf script -D shows each position header as such
	if ! perf script -D -i "${perfdata}" > "${outfile}" 2>&1 ; then
		echo "perf script -D on a garbled AUX sample failed"
		err=1
	elif ! grep -m1 "position header: does not fit" "${outfile}" ||
	     ! grep -m1 -E "position header: stream [0-9]+ offset 0x[0-9a-f]+ size 4096$" \
			"${outfile}" ; then
		echo "perf script -D does not show the position headers"
		err=1
	fi
}

test_errors()
{
	echo "--- Test perf record -A errors ---"

	expect_error "no such PMU" -A nosuchpmu
	expect_error "size" -A ptsim --aux-sample=70000
	expect_error "cannot take AUX samples" -A software
	expect_error_on nosample "cannot take AUX samples" -A ptsim
	expect_error "refuses a hidden AUX event of this configuration" \
		-A ptsim/psb_period=9/
	expect_error "only terms of config" -A ptsim/interval=200/
	expect_error "takes no modifiers" -A ptsim//u
	expect_error "takes no modifiers" -A ptsim/psb_period=1/k
	expect_error "cpu-clock:u and cpu-clock:k trace other modes" \
		-A ptsim -e cpu-clock:u -e cpu-clock:k
}

test_hidden ""
test_hidden "" --aux-sample-overlap
test_hidden ${small_size}
test_hidden ${small_size} --aux-sample-overlap
test_overwrite
test_cpu_wide
test_group
test_group old
test_no_positions
test_garbled
test_misses
test_errors

ptsim_cleanup
exit ${err}
