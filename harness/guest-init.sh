#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the QEMU guest (see harness/run-guest.sh).  The host's root is the
# guest's root, read-only over virtio-9p; the run's directory is mounted
# read-write at /tmp/out.  Runs /tmp/out/cmd, leaves its output and exit
# status there, lets kmemleak report to the console, and reboots (QEMU runs
# with -no-reboot, so that ends it), or with guest_end=poweroff on the
# kernel's command line (run-guest.sh -R, whose QEMU resets), powers off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TMPDIR=/tmp

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mkdir /tmp/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /tmp/out
ip link set lo up 2>/dev/null
hostname guest
ulimit -c 0

leaks=/sys/kernel/debug/kmemleak
[ -w $leaks ] && echo clear > $leaks

cd /tmp
sh /tmp/out/cmd > /tmp/out/output 2>&1 < /dev/null
echo $? > /tmp/out/rc

# The hardware trace recorder, if one runs, stops first: with every
# kernel branch traced (TCG's Intel PT), the scans below took minutes.
recorder=/sys/kernel/tracing/hwtrace/tracing_on
[ -w $recorder ] && echo 0 > $recorder 2> /dev/null

# kmemleak only reports objects older than 5 s; scan twice, as its docs say.
if [ -w $leaks ]; then
	sleep 6
	echo scan > $leaks
	echo scan > $leaks
	cat $leaks > /dev/console
fi
sync
/bin/busybox "${guest_end:-reboot}" -f
