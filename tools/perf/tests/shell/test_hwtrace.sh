#!/bin/sh
# Hardware trace recorder: perf script -i of its copies
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's hardware trace recorder runs Intel PT (the emulated one) in
# kernel mode on every CPU while a workload calls getppid() in a loop,
# then freezes it.  perf script reads the copies:
#
#   - each CPU's file, live from tracefs, with the code from /proc/kcore:
#     the CPU's branches, in the kernel's symbols through its KASLR
#     offset, with no decoding error but the lost trace ahead of a copy
#     that wrapped;
#   - all of them put end to end, as one file: the same, CPU by CPU;
#   - copies cut short, with a garbled header, of two recorders, or of a
#     PMU that perf does not decode: an error naming the file, never a
#     crash; trace bytes overwritten at random: never a crash.
# The CPU that ran the workload has its getppid() calls.  Then, with
# freeze_on_event set to a counter's overflow (every ten millionth
# instruction of a CPU), the first CPU to get there froze in the
# overflow's NMI: its copy, flagged as the trigger's, decodes to the NMI's
# entry and then the recorder's trigger.  Then, where there
# is ptsim, its kernel-mode trace (a ptwrite of a sequence number at each
# tick, with the interrupted IP): each CPU's ptwrites, numbered without a
# gap after the lost trace, in the kernel's symbols.

. "$(dirname "$0")"/lib/ptsim.sh

hwtrace=/sys/kernel/tracing/hwtrace
pmu=intel_pt

if [ "$(id -u)" != 0 ] ; then
	echo "Skip: needs root to run the recorder"
	exit 2
fi
if [ ! -d /sys/kernel/tracing/hwtrace ] ; then
	mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null
fi
if [ ! -d ${hwtrace} ] ; then
	echo "Skip: no hardware trace recorder (CONFIG_PERF_HWTRACE)"
	exit 2
fi
if [ ! -d /sys/bus/event_source/devices/${pmu} ] ; then
	echo "Skip: no ${pmu} PMU"
	exit 2
fi
for tool in cc chrt cmp dd od shuf ; do
	if ! command -v ${tool} > /dev/null 2>&1 ; then
		echo "Skip: no ${tool}, which the test needs"
		exit 2
	fi
done
if [ "$(cat ${hwtrace}/tracing_on)" = 1 ] ; then
	echo "Skip: the recorder is in use"
	exit 2
fi

temp_dir=$(mktemp -d /tmp/__perf_test_hwtrace.XXXXXXXXXX)
errfile="${temp_dir}/err.txt"
workload="${temp_dir}/getppid_loop"
err=0

# Turn the recorder off, with no trigger, and drop its copies (a setting
# write does)
recorder_off()
{
	echo 0 > ${hwtrace}/tracing_on
	echo none > ${hwtrace}/freeze_on_event
	echo ${pmu} > ${hwtrace}/pmu
}

cleanup()
{
	trap - EXIT TERM INT
	recorder_off 2> /dev/null
	rm -rf "${temp_dir}"
}

trap 'cleanup; exit 1' EXIT TERM INT

# The workload freezes the recorder itself, right after its loop
cat << _end_of_file_ | cc -O1 -o "${workload}" -xc -
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd = open(argv[1], O_WRONLY);
	int i;

	for (i = 0; i < 2000; i++)
		syscall(SYS_getppid);
	return fd < 0 || write(fd, "0", 1) != 1;
}
_end_of_file_

recorder_off
echo 0x2001 > ${hwtrace}/config
echo 64 > ${hwtrace}/buffer_size_kb
echo kernel > ${hwtrace}/mode
echo 1 > ${hwtrace}/tracing_on
# Real-time, so that no other task (in a debug kernel, kmemleak's scan, say)
# runs on its CPU between its last getppid() and the freeze and fills the copy
if ! chrt -f 1 "${workload}" ${hwtrace}/tracing_on ; then
	echo "The workload could not freeze the recorder"
	err=1
fi

# decode INPUT OUTPUT [ITRACE FIELDS]: perf script's branches (or what
# ITRACE says, in FIELDS) and errors of INPUT
decode()
{
	perf script -i "$1" --itrace="${3:-be}" -F "${4:-cpu,ip,sym,addr}" \
		> "$2" 2> "${errfile}"
}

# check_cpu CPU FILE PTWRITES MIN: the decode in FILE of CPU's copy is all
# of that CPU, its first line maybe its lost trace, then at least MIN
# branches, or if PTWRITES ptsim's ptwrites numbered without a gap:
#
#   [CPU]  IP: 1 payload: SEQ [PRINTABLE-PAYLOAD] IP SYM
#
# at most one in a hundred from unknown code
check_cpu()
{
	awk -v cpu="$1" -v ptw="$3" -v min="$4" "${ptsim_awk_hex}"'
	function fail(msg) {
		if (errors++ < 10)
			printf "cpu %d: %s: %s\n", cpu, msg, $0
	}
	/^ *instruction trace error / {
		if ($0 !~ / cpu [0-9]+ .*code 8: Lost trace data$/ || NR > 1)
			fail("Decoding error")
		if ($0 !~ (" cpu " cpu " "))
			fail("Another CPU")
		next
	}
	{
		if ($1 != sprintf("[%03d]", cpu))
			fail("Another CPU")
		if (ptw && ($2 != "IP:" || $4 != "payload:")) {
			fail("Not a ptwrite")
			next
		}
		if (ptw) {
			seq = hex($5)
			if (records && seq != last + 1)
				fail("Sequence number " seq " after " last)
			last = seq
		}
		records++
		if ((ptw ? $NF : $3) == "[unknown]")
			unknown++
	}
	END {
		if (records < min)
			printf "cpu %d: %d records\n", cpu, records
		else if (unknown * 100 > records)
			printf "cpu %d: %d of %d records from unknown code\n",
			       cpu, unknown, records
		else if (!errors)
			exit 0
		exit 1
	}' "$2"
}

# decode_cpus PTWRITES MIN [ITRACE FIELDS]: each CPU's file, as check_cpu
# says; their decodes end to end in each.txt, the files in all.hwtrace
decode_cpus()
{
	: > "${temp_dir}/all.hwtrace"
	: > "${temp_dir}/each.txt"
	for copy in ${hwtrace}/per_cpu/cpu*/trace ; do
		cpu=$(echo "${copy}" | sed 's/.*cpu\([0-9]*\).*/\1/')
		if ! decode "${copy}" "${temp_dir}/cpu.txt" "$3" "$4" ; then
			cat "${errfile}"
			echo "perf script cannot read CPU ${cpu}'s copy"
			err=1
			continue
		fi
		check_cpu "${cpu}" "${temp_dir}/cpu.txt" "$1" "$2" || err=1
		cat "${temp_dir}/cpu.txt" >> "${temp_dir}/each.txt"
		cat "${copy}" >> "${temp_dir}/all.hwtrace"
	done
}

decode_cpus 0 1000
if ! grep -q ' __x64_sys_getppid ' "${temp_dir}/each.txt" ; then
	echo "No CPU's trace has the workload's getppid(); each CPU's most branches from:"
	awk '$1 ~ /^\[/ { n[$1 " " $3]++ } END { for (k in n) print n[k], k }' \
		"${temp_dir}/each.txt" | sort -k2,2 -k1,1nr | awk '++c[$2] <= 5'
	err=1
fi

# The same branches, CPU by CPU, and the same losses (reported as each
# copy is read, ahead of all the decoding)
decode "${temp_dir}/all.hwtrace" "${temp_dir}/all.txt"
for f in all each ; do
	grep -v ' trace error ' "${temp_dir}/${f}.txt" > "${temp_dir}/${f}.branches"
	grep ' trace error ' "${temp_dir}/${f}.txt" | sort > "${temp_dir}/${f}.errors"
done
if ! cmp -s "${temp_dir}/all.branches" "${temp_dir}/each.branches" ||
   ! cmp -s "${temp_dir}/all.errors" "${temp_dir}/each.errors" ; then
	echo "The copies put end to end do not decode as each alone"
	diff "${temp_dir}/each.txt" "${temp_dir}/all.txt" | head -5
	err=1
fi

# perf died of a signal: exit status 128 + the signal (its errors are
# -errno, 193 and above)
killed()
{
	[ "$1" -gt 128 ] && [ "$1" -lt 160 ]
}

# expect_error WHAT FILE: perf script refuses FILE, naming it, unhurt
expect_error()
{
	perf script -i "$2" --itrace=be > /dev/null 2> "${errfile}"
	status=$?
	if [ ${status} = 0 ] || killed ${status} ||
	   ! grep -q "^$2: " "${errfile}" ; then
		cat "${errfile}"
		echo "$1: exit status ${status}, not an error naming the file"
		err=1
	fi
}

copy0="${temp_dir}/cpu0.hwtrace"
cat ${hwtrace}/per_cpu/cpu0/trace > "${copy0}"
size=$(stat -c %s "${copy0}")
bad="${temp_dir}/bad.hwtrace"

head -c 100 "${copy0}" > "${bad}"
expect_error "A header cut short" "${bad}"
head -c $((size - 1)) "${copy0}" > "${bad}"
expect_error "A copy cut short" "${bad}"
cat "${copy0}" "${copy0}" | head -c $((size + 8)) > "${bad}"
expect_error "A second copy cut short" "${bad}"

# garble OFFSET BYTES: the copy with BYTES (octal escapes) at OFFSET
garble()
{
	cp "${copy0}" "${bad}"
	printf "$2" | dd of="${bad}" bs=1 seek="$1" conv=notrunc 2> /dev/null
}

garble 4 '\000\000'
expect_error "Version 0" "${bad}"
garble 6 '\377\377'
expect_error "A header size that does not add up" "${bad}"
garble 112 'cs_etm\000'
expect_error "A PMU perf does not decode" "${bad}"
garble 16 '\377'
cat "${copy0}" "${bad}" > "${temp_dir}/two.hwtrace"
expect_error "Copies of two recorders" "${temp_dir}/two.hwtrace"

# Trace overwritten at random: the decoder's errors, but no crash
hdr_size=$(od -An -tu2 -j6 -N2 "${copy0}" | tr -d ' ')
for i in 1 2 3 4 5 ; do
	cp "${copy0}" "${bad}"
	shuf -i "${hdr_size}-$((size - 1))" -n 64 | while read -r at ; do
		printf '\377' | dd of="${bad}" bs=1 seek="${at}" conv=notrunc 2> /dev/null
	done
	perf script -i "${bad}" --itrace=be > /dev/null 2> "${errfile}"
	status=$?
	if killed ${status} ; then
		cat "${errfile}"
		echo "Garbled trace: perf script died with status ${status}"
		err=1
	fi
done

# Whether the recorder froze within 10 s
froze()
{
	for i in $(seq 100) ; do
		[ "$(cat ${hwtrace}/tracing_on)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

if [ -d /sys/bus/event_source/devices/cpu ] ; then
	recorder_off
	echo 0x2001 > ${hwtrace}/config
	echo 64 > ${hwtrace}/buffer_size_kb
	echo kernel > ${hwtrace}/mode
	echo "type=0,config=1,period=10000000" > ${hwtrace}/freeze_on_event
	echo 1 > ${hwtrace}/tracing_on
	if ! froze ; then
		echo "No CPU retired ten million instructions in 10 s"
		err=1
	fi
	hits=0
	for copy in ${hwtrace}/per_cpu/cpu*/trace ; do
		# The header's flags, at byte 24: PERF_HWTRACE_TRIGGER is 0x40
		flags=$(od -An -tu8 -j24 -N8 "${copy}" | tr -d ' ')
		[ $((flags & 0x40)) = 0 ] && continue
		hits=$((hits + 1))
		decode "${copy}" "${temp_dir}/trigger.txt" be ip,sym,addr
		if ! awk '$NF == "asm_exc_nmi" { nmi = NR }
			  $NF == "hwtrace_trigger_hit" && nmi { hit = 1 }
			  END { exit !hit }' "${temp_dir}/trigger.txt" ; then
			echo "${copy}: no NMI's entry and then the trigger"
			tail -5 "${temp_dir}/trigger.txt"
			err=1
		fi
	done
	if [ ${hits} = 0 ] ; then
		echo "No copy is flagged as the trigger's"
		err=1
	fi
fi

if [ -d /sys/bus/event_source/devices/ptsim ] ; then
	recorder_off
	echo ptsim > ${hwtrace}/pmu
	echo 0 > ${hwtrace}/config
	echo 16 > ${hwtrace}/buffer_size_kb
	echo kernel > ${hwtrace}/mode
	echo 1 > ${hwtrace}/tracing_on
	sleep 1
	"${workload}" ${hwtrace}/tracing_on || err=1
	decode_cpus 1 50 we cpu,ip,sym,synth
fi

cleanup
exit ${err}
