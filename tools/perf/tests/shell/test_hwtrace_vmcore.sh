#!/bin/sh
# Hardware trace recorder: perf script -i /proc/vmcore, or of hwtrace/previous/
# SPDX-License-Identifier: GPL-2.0
#
# In the kdump kernel of a kernel that crashed while its hardware trace
# recorder ran Intel PT, or ptsim, in kernel mode, perf script reads every CPU's
# frozen copy from /proc/vmcore, with the crashed kernel's text as it ran
# from the dump and its symbols from its vmlinux (PERF_TEST_VMLINUX, or
# where perf looks for one by its build ID); from the recorder's store,
# hwtrace/previous/, where it has one (the vmcore lacks the store): in the
# boot after a panic that reset the machine, with the text where this
# boot of the same kernel has it, or in the kdump kernel; and
#
#   - each CPU's trace decodes with no error but the trace lost ahead of
#     it, at most one branch in a hundred from unknown code;
#   - after an oops (the crashed kernel's log, from vmcore-dmesg, has its
#     "RIP: 0010:FUNCTION+OFFSET/LENGTH"): one CPU's flow takes the fault,
#     an interrupt at that very instruction, then enters oops_begin(), and
#     never oops_end(), which comes after the recorder froze it;
#   - after a panic with no oops (sysrq's c): one CPU's flow enters
#     sysrq_handle_crash(), panic() and native_machine_crash_shutdown(),
#     in that order, and never machine_kexec(), which comes after the
#     freeze; after a reboot, sysrq_handle_crash(), panic() and the
#     recorder's panic notifier, and never emergency_restart();
#   - after a hard lockup that panicked (the log has "Watchdog detected
#     hard LOCKUP" and the RIP where the watchdog's NMI found the CPU):
#     one CPU's flow takes an interrupt at that very instruction, then
#     enters perf_hwtrace_lockup_cpu(), and never nmi_panic();
#   - after a soft lockup that panicked, on ptsim, lkdtm's SOFTLOCKUP
#     (the log has "BUG: soft lockup - CPU#N stuck"): the records of each
#     CPU, the IPs that ptsim's ticks interrupted, numbered without a gap
#     after the lost trace, at most one in a hundred in unknown code;
#     those of CPU N, and no other's, are mostly in lkdtm_SOFTLOCKUP(),
#     and so is one of its last four: it spun there, interrupts on, until
#     the panic.
#
# Elsewhere (no /proc/vmcore, no hwtrace/previous/) it skips:
# harness/check.sh runs it in the capture kernels of its kdump guests and
# in the boot after its reboot guest's panic.

. "$(dirname "$0")"/lib/ptsim.sh

vmcore=/proc/vmcore
previous=/sys/kernel/tracing/hwtrace/previous

if [ ! -r ${vmcore} ] && [ ! -d ${previous} ] ; then
	echo "Skip: neither a kdump kernel (no ${vmcore}) nor a boot after a crash (no ${previous})"
	exit 2
fi
if [ -r ${vmcore} ] && ! command -v vmcore-dmesg > /dev/null 2>&1 ; then
	echo "Skip: no vmcore-dmesg (kexec-tools), which the test needs"
	exit 2
fi

temp_dir=$(mktemp -d /tmp/__perf_test_hwtrace_vmcore.XXXXXXXXXX)
trap 'rm -rf "${temp_dir}"; exit 1' EXIT TERM INT

if [ -d ${previous} ] ; then
	input=${temp_dir}/previous
	cat ${previous}/cpu*/trace > "${input}"
	echo "From the store: $(ls ${previous} | wc -w) CPUs' trace in ${previous}"
else
	input=${vmcore}
fi
# The oops' RIP, as the crashed kernel's log has it: FUNCTION+OFFSET
rip=
stuck=
stuck_cpu=
if [ -r ${vmcore} ] ; then
	vmcore-dmesg ${vmcore} > "${temp_dir}/dmesg" 2>&1
	rip=$(sed -n 's/.*RIP: 0010:\([^/ ]*\)\/.*/\1/p' "${temp_dir}/dmesg" | head -1)
fi
if [ ! -r ${vmcore} ] ; then
	path="sysrq_handle_crash panic hwtrace_panic"
	never="emergency_restart"
elif grep -q 'Watchdog detected hard LOCKUP' "${temp_dir}/dmesg" ; then
	echo "The lockup: $(grep -m1 'RIP: 0010:' "${temp_dir}/dmesg")"
	path="perf_hwtrace_lockup_cpu"
	never="nmi_panic"
elif grep -q 'BUG: soft lockup' "${temp_dir}/dmesg" ; then
	echo "The soft lockup: $(grep -m1 'BUG: soft lockup' "${temp_dir}/dmesg")"
	stuck=lkdtm_SOFTLOCKUP
	stuck_cpu=$(sed -n 's/.*BUG: soft lockup - CPU#\([0-9]*\) stuck.*/\1/p' \
		    "${temp_dir}/dmesg" | head -1)
elif [ -n "${rip}" ] ; then
	echo "The oops: $(grep -m1 'RIP: 0010:' "${temp_dir}/dmesg")"
	path="oops_begin"
	never="oops_end"
elif grep -q 'Kernel panic - not syncing' "${temp_dir}/dmesg" ; then
	echo "The panic: $(grep -m1 'Kernel panic - not syncing' "${temp_dir}/dmesg")"
	path="sysrq_handle_crash panic native_machine_crash_shutdown"
	never="machine_kexec"
else
	echo "The crashed kernel's log has neither an oops nor a panic"
	exit 1
fi

# decode ITRACE FIELDS: every CPU's decode, as it streams out of perf (a
# debug kernel's megabyte of Intel PT a CPU is some hundred megabytes of
# text)
decode()
{
	perf script -i "${input}" ${PERF_TEST_VMLINUX:+--vmlinux="${PERF_TEST_VMLINUX}"} \
		--itrace="$1" -F "$2" 2> "${temp_dir}/err"
}

# What both checks below share: fail(MSG) prints the first ten failures;
# a decoding error is one, but for a CPU's first lost trace (that of a
# copy that wrapped), after which its decode starts again (synced[CPU]).
decode_errors_awk='
	function fail(msg) {
		if (errors++ < 10)
			print msg
	}
	/^ *instruction trace error / {
		cpu = $0
		sub(/.* cpu /, "", cpu)
		cpu = sprintf("[%03d]", cpu)
		if ($0 !~ /code 8: Lost trace data$/ || lost[cpu]++)
			fail("Decoding error: " $0)
		synced[cpu] = 0
		next
	}
'

# ptsim's records: [CPU]  IP: 1 payload: SEQ  IP SYM
check_ticks()
{
	awk -v stuck="${stuck}" -v stuck_cpu="${stuck_cpu}" \
		"${ptsim_awk_hex}${decode_errors_awk}"'
	$2 != "IP:" || $4 != "payload:" {
		fail("Not a ptsim record: " $0)
		next
	}
	{
		cpu = $1
		seq = hex($5)
		if (synced[cpu] && seq != last[cpu] + 1)
			fail(cpu ": record " seq " after " last[cpu])
		synced[cpu] = 1
		last[cpu] = seq
		n = ++records[cpu]
		if ($NF == "[unknown]")
			unknown[cpu]++
		if ($NF == stuck) {
			in_fn[cpu]++
			last_in[cpu] = n
		}
	}
	END {
		for (cpu in records) {
			n = records[cpu]
			printf "%s: %d records, %d from unknown code, ", cpu, n, unknown[cpu]
			printf "%d in %s, the last %d from the end\n",
			       in_fn[cpu], stuck, n - last_in[cpu]
			if (n < 1000 || unknown[cpu] * 100 > n)
				fail(cpu ": too few records, or too many from unknown code")
			if (!in_fn[cpu])
				continue
			found++
			if (stuck_cpu == "" || cpu != sprintf("[%03d]", stuck_cpu))
				fail(cpu ": in " stuck "(), but CPU " stuck_cpu " is stuck")
			if (in_fn[cpu] * 2 <= n || n - last_in[cpu] >= 4)
				fail(cpu ": the records do not end stuck in " stuck "()")
		}
		if (found != 1)
			fail(found + 0 " CPUs have records in " stuck "()")
		exit errors != 0
	}'
}

# Intel PT's branches: [CPU] FLAGS... FROM_IP FROM_SYM+OFF => TO_IP TO_SYM+OFF
check_branches()
{
	awk -v rip="${rip}" -v path="${path}" -v never="${never}" "${decode_errors_awk}"'
	{
		for (arrow = 1; arrow <= NF && $arrow != "=>"; arrow++)
			;
		if (arrow > NF) {
			fail("Not a branch: " $0)
			next
		}
		cpu = $1
		from = $(arrow - 1)
		to = $NF
		branches[cpu]++
		if (from == "[unknown]")
			unknown[cpu]++
		if (rip != "" && from == rip && $0 ~ / int /) {
			print "The decode: " $0
			crash_cpu = cpu
			step[cpu] = 1
			next
		}
		if (rip == "" && to == steps[step[cpu] + 1] "+0x0") {
			step[cpu]++
			if (step[cpu] == 1)
				print "The decode: " $0
			if (step[cpu] == nr_steps)
				crash_cpu = cpu
			next
		}
		if (rip != "" && cpu == crash_cpu && to == steps[1] "+0x0")
			reached = 1
		if (cpu == crash_cpu && to == never "+0x0")
			fail(cpu ": the flow enters " never "(), past the freeze: " $0)
	}
	BEGIN {
		nr_steps = split(path, steps)
	}
	END {
		for (cpu in branches) {
			n = branches[cpu]
			printf "%s: %d branches, %d from unknown code\n", cpu, n, unknown[cpu]
			if (n < 1000 || unknown[cpu] * 100 > n)
				fail(cpu ": too few branches, or too many from unknown code")
		}
		if (crash_cpu == "" && rip != "")
			fail("No CPU'\''s flow takes the fault at " rip)
		else if (crash_cpu == "")
			fail("No CPU'\''s flow goes through " path)
		else if (rip != "" && !reached)
			fail(crash_cpu ": after the fault, the flow never enters " path "()")
		exit errors != 0
	}'
}

if [ -n "${stuck}" ] ; then
	decode we cpu,ip,sym,synth | check_ticks
else
	decode be cpu,ip,sym,symoff,addr,flags | check_branches
fi
err=$?
if grep -q -v '^Warning:\|instruction trace errors$' "${temp_dir}/err" ; then
	cat "${temp_dir}/err"
	err=1
fi

trap - EXIT TERM INT
rm -rf "${temp_dir}"
exit ${err}
