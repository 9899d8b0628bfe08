#!/bin/sh
# Hardware trace in core dumps: perf script -i CORE
# SPDX-License-Identifier: GPL-2.0
#
# perf core-trace runs a workload with hardware trace kept for its core
# dump (PR_SET_CORE_TRACE).  The workload starts a thread that spins in
# ct_spin(), then calls ct_call_a(), ct_call_b() and ct_crash(), which
# writes through a NULL pointer; its main thread spins in ct_main_spin().
# perf script reads the core:
#
#   - ptsim (whose trace is a PTW packet with a sequence number, 1, 2, 3,
#     ... per thread, then a FUP with the interrupted IP, at each tick):
#     each thread's ptwrites, the crashing thread's first, each in one
#     block, after a "Lost trace data" error (4 KiB of trace wraps within
#     the spin), with no gap in the sequence numbers, mostly in the
#     thread's spin function, and never in the other thread's;
#   - Intel PT, where there is an intel_pt PMU (the emulated one): the
#     crashing thread's branches first, ending with ct_call_a(),
#     ct_call_b(), ct_crash() called in that order and the trace ending
#     ("tr end") exactly at the faulting instruction (the IP that gdb
#     reads from the core), then the main thread's;
#   - garbled cores (notes cut short, a trace note with a bad header, the
#     notes overwritten at random) and a core without trace: an error
#     naming the core, never a crash;
#   - perf core-trace with a size or an event that cannot be: an error.

. "$(dirname "$0")"/lib/ptsim.sh

if [ "$(id -u)" != 0 ] ; then
	echo "Skip: needs root to set kernel.core_pattern"
	exit 2
fi
for tool in gdb readelf shuf timeout ; do
	if ! command -v ${tool} > /dev/null 2>&1 ; then
		echo "Skip: no ${tool}, which the test reads or garbles cores with"
		exit 2
	fi
done
if ! echo x | grep -qP 'x' 2> /dev/null ; then
	echo "Skip: grep -P, which the test finds a note with, does not work"
	exit 2
fi

ptsim_test_setup core_trace
workload="${temp_dir}/core_trace_work"
pattern_file=/proc/sys/kernel/core_pattern
saved_pattern=$(cat ${pattern_file})
err=0

cleanup()
{
	echo "${saved_pattern}" > ${pattern_file}
	ptsim_cleanup
}

trap 'cleanup; exit 1' EXIT TERM INT

cat << _end_of_file_ | cc -O1 -g -pthread -o "${workload}" -xc -
#include <pthread.h>
#include <time.h>

static volatile unsigned long sink;
static int *volatile null_ptr;

static long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 +
	       (now.tv_nsec - start->tv_nsec) / 1000000;
}

__attribute__((noinline)) void ct_spin(void)
{
	struct timespec start;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (i = 0; i < 10000; i++)
			sink += i;
	} while (ms_since(&start) < 300);
}

__attribute__((noinline)) void ct_crash(void)
{
	*null_ptr = 1;
}

__attribute__((noinline)) void ct_call_b(void)
{
	sink++;
	ct_crash();
	sink++;
}

__attribute__((noinline)) void ct_call_a(void)
{
	sink++;
	ct_call_b();
	sink++;
}

static void *ct_crasher(void *arg)
{
	ct_spin();
	ct_call_a();
	return arg;
}

__attribute__((noinline)) void ct_main_spin(void)
{
	for (;;)
		sink--;
}

int main(void)
{
	pthread_t thread;

	if (pthread_create(&thread, NULL, ct_crasher, NULL))
		return 1;
	ct_main_spin();
	return 0;
}
_end_of_file_

# dump_core PMU: run the workload with 4 KiB of user-mode trace of PMU per
# thread; name its core in core, its pid in pid.  Returns non-zero if there
# is no core.
dump_core()
{
	rm -f "${temp_dir}"/core.*
	(
		ulimit -c unlimited
		perf core-trace -e "$1//u" -m 4K -- "${workload}"
	) > "${errfile}" 2>&1
	core=$(ls "${temp_dir}"/core.* 2> /dev/null)
	if [ ! -f "${core}" ] ; then
		cat "${errfile}"
		echo "No core dumped with $1 trace"
		return 1
	fi
	pid=${core##*.}
}

# Check perf script -F tid,ip,sym,synth --itrace=we of a ptsim core:
#
#   TID  IP: 1 payload: SEQ [PRINTABLE-PAYLOAD] IP SYM
#   instruction trace error type 1 time 0 cpu -1 pid P tid TID ip 0 code 8:
#     Lost trace data
check_ptsim()
{
	awk -v pid="${pid}" "${ptsim_awk_hex}"'
	function fail(msg) {
		if (errors++ < 10)
			printf "%s: %s\n", msg, $0
	}
	function field(name,    i) {
		for (i = 1; i < NF; i++)
			if ($i == name)
				return $(i + 1)
		return ""
	}
	/^ *instruction trace error / {
		if ($0 !~ /code 8: Lost trace data$/) {
			fail("Decoding error")
			next
		}
		tid = field("tid")
		if (tid == cur || tid in seen)
			fail("Loss not at the start of a thread")
		if (!nr_threads && tid == pid)
			fail("The main thread first, not the crashing one")
		order[++nr_threads] = tid
		seen[tid] = 1
		cur = tid
		last = 0
		next
	}
	{
		if ($1 != cur || $2 != "IP:" || $4 != "payload:") {
			fail("Not a ptwrite of the thread after the loss")
			next
		}
		seq = hex($5)
		if (last && seq != last + 1)
			fail("Sequence number " seq " after " last)
		last = seq
		sym = $NF
		if ((cur == pid) != (sym == "ct_main_spin"))
			fail("ptwrite at an IP in " sym)
		if (sym == "ct_spin" || sym == "ct_main_spin")
			in_spin[cur]++
		records[cur]++
	}
	END {
		if (nr_threads != 2)
			printf "%d threads with trace, not 2\n", nr_threads
		for (i = 1; i <= nr_threads; i++) {
			t = order[i]
			printf "thread %d: %d ptwrites, %d in its spin function\n",
			       t, records[t], in_spin[t]
			if (records[t] < 10 || in_spin[t] < records[t] / 2)
				errors++
		}
		exit errors || nr_threads != 2
	}' "${outfile}"
}

test_ptsim()
{
	echo "--- Test ptsim trace in a core ---"

	dump_core ptsim || { err=1; return; }
	if ! perf script -i "${core}" --itrace=we -F tid,ip,sym,synth \
			> "${outfile}" 2> "${errfile}" ; then
		cat "${errfile}"
		echo "perf script -i CORE failed"
		err=1
		return
	fi
	if ! check_ptsim ; then
		head -20 "${outfile}"
		echo "Bad ptwrites in the core"
		err=1
	fi
}

# Check perf script -F tid,flags,ip,sym,addr --itrace=be of an intel_pt
# core: the crashing thread's branches, then the main thread's; the last
# three calls of the crashing thread are to ct_call_a, ct_call_b and
# ct_crash, and its last line is "tr end" from the faulting IP.
check_intel_pt()
{
	awk -v pid="${pid}" -v fault_ip="${fault_ip}" '
	function fail(msg) {
		if (errors++ < 10)
			printf "%s: %s\n", msg, $0
	}
	/^ *instruction trace error / {
		if ($0 !~ /code 8: Lost trace data$/)
			fail("Decoding error")
		next
	}
	{
		if (!first)
			first = $1
		if ($1 != pid) {
			if (main_seen)
				fail("The crashing thread after the main thread")
			crasher = $1
			if ($2 == "call")
				calls = calls " " $NF
			last = $0
			last_ip = $(NF - 4)
		} else {
			main_seen = 1
		}
	}
	END {
		if (first == pid)
			printf "The main thread first, not the crashing one\n"
		if (!main_seen)
			printf "No trace of the main thread\n"
		n = split(calls, c, " ")
		if (c[n - 2] != "ct_call_a" || c[n - 1] != "ct_call_b" ||
		    c[n] != "ct_crash")
			printf "Last calls: %s %s %s\n", c[n - 2], c[n - 1], c[n]
		else
			ok_calls = 1
		if (last !~ / tr end / || "0x" last_ip != fault_ip)
			printf "Last branch not tr end at the fault (%s): %s\n",
			       fault_ip, last
		else
			ok_end = 1
		exit errors || first == pid || !main_seen || !ok_calls || !ok_end
	}' "${outfile}"
}

test_intel_pt()
{
	echo "--- Test intel_pt trace in a core ---"

	if [ ! -d /sys/bus/event_source/devices/intel_pt ] ; then
		echo "No intel_pt PMU: the Intel PT case is not run"
		return
	fi
	dump_core intel_pt || { err=1; return; }
	fault_ip=$(gdb -batch -ex 'printf "%#lx\n", $pc' "${workload}" "${core}" \
		   2> /dev/null | tail -1)
	if ! perf script -i "${core}" --itrace=be -F tid,flags,ip,sym,addr \
			> "${outfile}" 2> "${errfile}" ; then
		cat "${errfile}"
		echo "perf script -i CORE failed"
		err=1
		return
	fi
	if ! check_intel_pt ; then
		grep -v ' jcc ' "${outfile}" | tail -20
		echo "Bad branches in the core"
		err=1
	fi
}

# Whether exit status $1 is that of a process killed by a signal: 128 + the
# signal's number (perf's own errors end it with 255, or 256 - errno).
killed()
{
	[ "$1" -gt 128 ] && [ "$1" -lt 160 ]
}

# expect_error WHAT FILE MESSAGE: perf script fails on FILE with an error
# that names it and says MESSAGE
expect_error()
{
	perf script -i "$2" --itrace=we > "${outfile}" 2> "${errfile}"
	rc=$?
	if [ ${rc} -eq 0 ] || killed ${rc} ||
	   ! grep -q "^$2: .*$3" "${errfile}" ; then
		cat "${errfile}"
		echo "$1: perf script ended with ${rc}, not with an error saying '$3'"
		err=1
	fi
}

# The offset and size of the first PT_NOTE of core $1
notes_of()
{
	readelf -lW "$1" | awk '$1 == "NOTE" { print $2, $5; exit }'
}

test_garbled()
{
	echo "--- Test garbled cores ---"

	dump_core ptsim || { err=1; return; }
	good="${temp_dir}/good"
	mv "${core}" "${good}"
	set -- $(notes_of "${good}")
	notes_off=$(($1))
	notes_size=$(($2))
	bad="${temp_dir}/core.bad"

	head -c $((notes_off + notes_size / 2)) "${good}" > "${bad}"
	expect_error "Notes cut short" "${bad}" "truncated"

	# hdr_size after an NT_PERF_TRACE note's type ("PERF" as a
	# little-endian number) and name ("LINUX" padded to 8 bytes)
	cp "${good}" "${bad}"
	at=$(LC_ALL=C grep -obUaP 'FREPLINUX\x00\x00\x00' "${bad}" |
	     head -1 | cut -d: -f1)
	if [ -z "${at}" ] ; then
		echo "No NT_PERF_TRACE note found in the core"
		err=1
		return
	fi
	printf '\377\377\377\377' |
		dd of="${bad}" bs=1 seek=$((at + 12)) conv=notrunc 2> /dev/null
	expect_error "A trace note with a bad header" "${bad}" \
		"NT_PERF_TRACE note is garbled"

	# Random bytes over the notes: whatever they do, no crash
	for i in $(seq 10) ; do
		cp "${good}" "${bad}"
		dd if=/dev/urandom of="${bad}" bs=1 count=64 conv=notrunc \
		   seek=$((notes_off + $(shuf -i 0-$((notes_size - 64)) -n 1))) \
		   2> /dev/null
		timeout 120 perf script -i "${bad}" --itrace=we > /dev/null 2>&1
		rc=$?
		if killed ${rc} || [ ${rc} -eq 124 ] ; then
			echo "Random notes: perf script ended with ${rc} (124: hung)"
			err=1
		fi
	done

	# A core without trace
	rm -f "${temp_dir}"/core.*
	(ulimit -c unlimited ; sh -c 'kill -SEGV $$') > /dev/null 2>&1
	core=$(ls "${temp_dir}"/core.* 2> /dev/null)
	if [ -f "${core}" ] ; then
		expect_error "A core without trace" "${core}" "no hardware trace"
	else
		echo "No core dumped by sh"
		err=1
	fi
}

# refuse WHAT MESSAGE ARGS...: perf core-trace ARGS -- true fails, saying
# MESSAGE
refuse()
{
	what=$1
	message=$2
	shift 2
	if perf core-trace "$@" -- true > "${errfile}" 2>&1 ||
	   ! grep -q "${message}" "${errfile}" ; then
		cat "${errfile}"
		echo "perf core-trace $*: ${what} not refused saying '${message}'"
		err=1
	fi
}

test_refused()
{
	echo "--- Test what perf core-trace refuses ---"

	refuse "A size not a multiple of 8" "the size is not" \
		-e ptsim//u -m 12
	refuse "A size over 1M" "the size is not" -e ptsim//u -m 2M
	refuse "A PMU without AUX trace" "cpu-clock cannot keep trace" \
		-e cpu-clock -m 4K
	refuse "A bad size" "bad size" -e ptsim//u -m 4Q
}

echo "${temp_dir}/core.%p" > ${pattern_file}
test_ptsim
test_intel_pt
test_garbled
test_refused

cleanup
trap - EXIT TERM INT
exit ${err}
