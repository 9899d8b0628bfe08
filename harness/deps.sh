#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the build, the guest and the tests need (Debian 12).
set -euo pipefail

pkgs=(linux-source-6.1 qemu-system-x86 busybox-static flex bison bc cpio
      rsync ccache libelf-dev libssl-dev libdw-dev libipt-dev
      libopencsd-dev libopencsd-bin libcap-dev libnuma-dev libzstd-dev
      libunwind-dev libslang2-dev systemtap-sdt-dev python3 python3-ply python3-git gcc make time valgrind)

# install also upgrades: a newer linux-source-6.1 from the registry is used
# (harness/tree.sh says so when it differs from harness/base.version).
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${pkgs[@]}"
