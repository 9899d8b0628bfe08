#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the build, the guest and the tests need (Debian 12).
set -euo pipefail

# QEMU is built from Debian's source (harness/qemu.sh): its build
# dependencies, and the firmware from Debian's binary packages.
pkgs=(linux-source-6.1 qemu-system-data seabios dpkg-dev meson ninja-build
      libglib2.0-dev libpixman-1-dev libfdt-dev libcap-ng-dev libattr1-dev
      busybox-static flex bison bc cpio
      rsync ccache libelf-dev libssl-dev libdw-dev libipt-dev
      libopencsd-dev libopencsd-bin libcap-dev libnuma-dev libzstd-dev
      libunwind-dev libslang2-dev systemtap-sdt-dev python3 python3-dev kexec-tools
      python3-setuptools python3-ply python3-git gcc make time valgrind clang
      binutils-aarch64-linux-gnu gcc-aarch64-linux-gnu g++-aarch64-linux-gnu)

# install also upgrades: a newer linux-source-6.1 from the registry is used
# (harness/tree.sh says so when it differs from harness/base.version).
export DEBIAN_FRONTEND=noninteractive
# apt-get source needs deb-src entries: the same registries as the deb ones.
if ! grep -Eqs '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/*; then
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
			> /etc/apt/sources.list.d/aux-sample-src.sources
	else
		sed -n 's/^deb /deb-src /p' /etc/apt/sources.list \
			> /etc/apt/sources.list.d/aux-sample-src.list
	fi
fi
# arm64 packages are downloaded (never installed) for the arm64 guest's
# perf (harness/perf-arm64.sh) and root (harness/arm64-root.sh).
dpkg --add-architecture arm64
apt-get update -q
apt-get install -y -q --no-install-recommends "${pkgs[@]}"
