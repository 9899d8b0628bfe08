#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kdump.sh KERNEL CRASH COMMAND...: a kdump run in a guest (run-guest.sh
# -K, its kernel booted with crashkernel=).  In the first kernel: load
# KERNEL as the capture kernel, with this kernel's command line less
# crashkernel=, hwtrace= and the NMI watchdog, on one CPU, and crash by
# running the shell command CRASH.  In the capture kernel (it has
# /proc/vmcore), which runs this again: COMMAND.
if [ -e /proc/vmcore ]; then
	shift 2
	exec "$@"
fi
args=
for a in $(cat /proc/cmdline); do
	case $a in
	crashkernel=* | hwtrace=* | nmi_watchdog=*) ;;
	*) args="$args $a" ;;
	esac
done
kexec -p "$1" --append="$args nr_cpus=1 irqpoll reset_devices nmi_watchdog=0" || exit 1
# The console's marker: run-guest.sh -K checks it for splats up to here.
echo "kdump.sh: crashing on purpose" > /dev/kmsg
sh -c "$2"
echo "kdump: still alive after the crash" >&2
exit 1
