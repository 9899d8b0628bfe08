#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh [-k BZIMAGE] [-t SECONDS] [-o DIR] [-x QEMU_ARGS] COMMAND...
#
# Boot BZIMAGE under this project's QEMU ($BUILD/qemu, harness/qemu.sh: TCG
# with an Intel PMU and Intel PT, 2 vCPUs) with the host's root read-only over
# virtio-9p, run COMMAND in the guest under sh, print its output and exit
# with its status.  The run fails (status 1) when the console shows a kernel
# splat (oops, BUG, WARNING, KASAN, lockdep, kmemleak, hung task, RCU stall),
# and ends with status 124 when the guest does not finish within SECONDS.
# DIR keeps the run's files: cmd, output, rc and console.log.  QEMU_ARGS
# (split at blanks) go to QEMU after the harness's own, which they
# override.  The root is mounted cache=loose: nothing changes it while a
# guest runs, and without a page cache every exec re-read its libraries
# over 9p (perf --version took 10.8 s in the debug kernel, 1.9 s with it).
set -uo pipefail

. "$(dirname "$0")/common.sh"
kernel=$build/kernel-debug/arch/x86/boot/bzImage
qemu=${QEMU:-$build/qemu/qemu-system-x86_64}
# An Intel CPU (the emulated PMU and PT are Intel's) of a model no kernel or
# perf quirk list names.
cpu=max,vendor=GenuineIntel,family=6,model=127,stepping=0,la57=off
timeout=600
out=
extra=

while getopts k:t:o:x: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	t) timeout=$OPTARG ;;
	o) out=$OPTARG ;;
	x) extra=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: run-guest.sh [-k BZIMAGE] [-t SECONDS] [-o DIR] [-x QEMU_ARGS] COMMAND..." >&2; exit 2; }
[ -f "$kernel" ] || { echo "run-guest: no kernel at $kernel" >&2; exit 2; }
[ -x "$qemu" ] || { echo "run-guest: no QEMU at $qemu (make qemu)" >&2; exit 2; }

if [ -z "$out" ]; then
	mkdir -p "$build/guest"
	out=$(mktemp -d "$build/guest/run.XXXXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/output" "$out/rc" "$out/console.log"
printf '%s\n' "$*" > "$out/cmd"

timeout --foreground -k 10 "$timeout" "$qemu" \
	-L /usr/share/qemu -L /usr/share/seabios -nic none \
	-accel tcg,thread=single -cpu "$cpu" -smp 2 -m 2048 -no-reboot \
	-display none -monitor none -serial "file:$out/console.log" \
	-kernel "$kernel" \
	-append "console=ttyS0 root=hostroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro init=$repo/harness/guest-init.sh panic=-1 acpi=noirq tsc=reliable rcupdate.rcu_cpu_stall_timeout=300 hung_task_timeout_secs=600" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$out,mount_tag=out,security_model=none" $extra
qemu_rc=$?

[ -f "$out/output" ] && cat "$out/output"

splat='Oops|BUG:|WARNING:|KASAN|kernel BUG|Kernel panic|unreferenced object|INFO: task .* blocked|rcu: INFO:|Call Trace:'
if grep -Eq "$splat" "$out/console.log"; then
	echo "run-guest: kernel splat on the console ($out/console.log):" >&2
	grep -E -m5 "$splat" "$out/console.log" >&2
	exit 1
fi
if [ $qemu_rc = 124 ] || [ $qemu_rc = 137 ]; then
	echo "run-guest: guest did not finish within ${timeout}s ($out/console.log)" >&2
	exit 124
fi
if [ ! -f "$out/rc" ]; then
	echo "run-guest: guest ended without a result (qemu status $qemu_rc, $out/console.log)" >&2
	exit 1
fi
exit "$(cat "$out/rc")"
