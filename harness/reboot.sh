#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# reboot.sh COMMAND...: run COMMAND at each boot of a warm-reboot run
# (run-guest.sh -R: QEMU resets the guest at a panic, and keeps its
# memory), with REBOOT_BOOT the boot's number, from 1.  A COMMAND that
# crashes the guest on purpose says "NAME: crashing on purpose" in the
# kernel log first: run-guest.sh checks the console for splats but from
# there to the next boot.  Every boot's output goes to the run's
# boots.log, which this prints at the end: guest-init.sh keeps only the
# last boot's.
out=/tmp/out
boot=$(($(cat $out/boots 2>/dev/null || echo 0) + 1))
echo $boot > $out/boots
echo "reboot.sh: boot $boot" > /dev/kmsg
REBOOT_BOOT=$boot "$@" >> $out/boots.log 2>&1
rc=$?
cat $out/boots.log
exit $rc
