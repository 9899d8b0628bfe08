#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh [-a arm64] [-k KERNEL] [-c KERNEL_ARGS] [-K | -R] [-t SECONDS] [-o DIR] [-x QEMU_ARGS] COMMAND...
#
# Boot KERNEL under this project's QEMU ($BUILD/qemu, harness/qemu.sh: TCG
# with an Intel PMU and Intel PT, 2 vCPUs) with the host's root read-only over
# virtio-9p, run COMMAND in the guest under sh, print its output and exit
# with its status.  With -a arm64: the arm64 debug kernel on the virt
# board (-cpu max: the ETE and TRBE), its root $BUILD/arm64-root
# (harness/arm64-root.sh) with this repository and $BUILD at their paths.  The run fails (status 1) when the console shows a kernel
# splat (oops, BUG, WARNING, KASAN, lockdep, kmemleak, hung task, RCU stall),
# and ends with status 124 when the guest does not finish within SECONDS.
# DIR keeps the run's files: cmd, output, rc and console.log.  QEMU_ARGS
# (split at blanks) go to QEMU after the harness's own, which they
# override; KERNEL_ARGS go at the end of the kernel's command line.  -K
# is a kdump run (harness/kdump.sh): the first kernel crashes on purpose,
# so its console is checked for splats up to kdump.sh's marker, and the
# capture kernel's from its boot.  -R is a warm-reboot run
# (harness/reboot.sh, which counts the boots in DIR/boots), checked the
# same way, crash by crash: a panic resets the guest, its memory kept,
# and it boots again; the guest powers off at the end.  The root is mounted cache=loose:
# nothing changes it while a guest runs, and without a page cache every
# exec re-read its libraries over 9p (perf --version took 10.8 s in the
# debug kernel, 1.9 s with it).
set -uo pipefail

. "$(dirname "$0")/common.sh"
arch=x86
kernel=
timeout=600
out=
extra=
cmdline=
kdump=
reboot=-no-reboot
end=

while getopts a:k:c:KRt:o:x: opt; do
	case $opt in
	a) arch=$OPTARG ;;
	k) kernel=$OPTARG ;;
	c) cmdline=$OPTARG ;;
	K) kdump=1 ;;
	R) kdump=1 reboot= end=" guest_end=poweroff" ;;
	t) timeout=$OPTARG ;;
	o) out=$OPTARG ;;
	x) extra=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: run-guest.sh [-a arm64] [-k KERNEL] [-c KERNEL_ARGS] [-K | -R] [-t SECONDS] [-o DIR] [-x QEMU_ARGS] COMMAND..." >&2; exit 2; }

ninep=trans=virtio,version=9p2000.L,msize=512000,cache=loose
debug="panic=-1 rcupdate.rcu_cpu_stall_timeout=300 hung_task_timeout_secs=600"
case $arch in
x86)
	kernel=${kernel:-$build/kernel-debug/arch/x86/boot/bzImage}
	qemu=${QEMU:-$build/qemu/qemu-system-x86_64}
	# An Intel CPU (the emulated PMU and PT are Intel's) of a model no
	# kernel or perf quirk list names.
	machine=(-L /usr/share/qemu -L /usr/share/seabios
		 -cpu max,vendor=GenuineIntel,family=6,model=127,stepping=0,la57=off)
	# The NMI watchdog (it takes a PMU counter) and the soft lockup
	# detector are off; a run turns the first on with nmi_watchdog=1.
	append="console=ttyS0 root=hostroot rootfstype=9p rootflags=$ninep ro init=$repo/harness/guest-init.sh acpi=noirq tsc=reliable nmi_watchdog=0 nosoftlockup $debug"
	roots=(-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap)
	;;
arm64)
	kernel=${kernel:-$build/kernel-arm64/arch/arm64/boot/Image}
	qemu=${QEMU:-$build/qemu/qemu-system-aarch64}
	machine=(-M virt,gic-version=3 -cpu max)
	append="console=ttyAMA0 root=hostroot rootfstype=9p rootflags=$ninep ro init=/init $debug"
	roots=(-virtfs "local,path=$build/arm64-root,mount_tag=hostroot,security_model=none,readonly=on"
	       -virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on,multidevs=remap"
	       -virtfs "local,path=$build,mount_tag=build,security_model=none,readonly=on,multidevs=remap")
	;;
*)
	echo "run-guest: no such guest architecture: $arch" >&2
	exit 2 ;;
esac
[ -f "$kernel" ] || { echo "run-guest: no kernel at $kernel" >&2; exit 2; }
[ -x "$qemu" ] || { echo "run-guest: no QEMU at $qemu (make qemu)" >&2; exit 2; }

if [ -z "$out" ]; then
	mkdir -p "$build/guest"
	out=$(mktemp -d "$build/guest/run.XXXXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/output" "$out/rc" "$out/console.log" "$out/boots" "$out/boots.log"
printf '%s\n' "$*" > "$out/cmd"

timeout --foreground -k 10 "$timeout" "$qemu" "${machine[@]}" -nic none \
	-accel tcg,thread=single -smp 2 -m 2048 $reboot \
	-display none -monitor none -serial "file:$out/console.log" \
	-kernel "$kernel" -append "$append${cmdline:+ $cmdline}$end" "${roots[@]}" \
	-virtfs "local,path=$out,mount_tag=out,security_model=none" $extra
qemu_rc=$?

[ -f "$out/output" ] && cat "$out/output"

console=$out/console.log
if [ -n "$kdump" ]; then
	# From each crash on purpose to the next kernel's boot, a splat is
	# what was asked for.
	if ! grep -a -q ': crashing on purpose' "$console" ||
	   [ "$(grep -a -c 'Linux version' "$console")" -lt 2 ]; then
		echo "run-guest: the first kernel did not crash on purpose, or the next did not boot ($console)" >&2
		exit 1
	fi
	console=$out/checked-console.log
	awk '/: crashing on purpose/ { skip = 1 } /Linux version/ { skip = 0 } !skip' \
		"$out/console.log" > "$console"
fi
splat='Oops|BUG:|WARNING:|KASAN|kernel BUG|Kernel panic|unreferenced object|INFO: task .* blocked|rcu: INFO:|Call [Tt]race:'
if grep -Eq "$splat" "$console"; then
	echo "run-guest: kernel splat on the console ($console):" >&2
	grep -E -m5 "$splat" "$console" >&2
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
