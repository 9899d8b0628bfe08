#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-arm64.sh: perf of the assembled tree for the arm64 guest, static,
# with CoreSight decoding (OpenCSD), in $BUILD/perf-arm64/perf.  Debian's
# arm64 libopencsd, libelf and zlib are downloaded and unpacked into a
# sysroot ($BUILD/arm64-sysroot), never installed: the arm64 guest has no
# libraries, and the host's amd64 ones stay as they are.
set -euo pipefail

. "$(dirname "$0")/common.sh"
out=$build/perf-arm64
sysroot=$build/arm64-sysroot
lib=$sysroot/usr/lib/aarch64-linux-gnu

# The sysroot: the -dev packages' static libraries and headers.
if [ ! -f "$sysroot/.unpacked" ]; then
	rm -rf "$sysroot"
	mkdir -p "$sysroot/debs"
	(cd "$sysroot/debs" &&
		apt-get download -q libopencsd-dev:arm64 libelf-dev:arm64 \
			zlib1g-dev:arm64 >/dev/null)
	for d in "$sysroot"/debs/*.deb; do
		dpkg-deb -x "$d" "$sysroot"
	done
	touch "$sysroot/.unpacked"
fi

# Only the perf binary: its default target also links dlfilters/*.so,
# which cannot be static.  pkg-config must not find the host's .pc files.
mkdir -p "$out"
PATH=/usr/lib/ccache:$PATH PKG_CONFIG_LIBDIR=$lib/pkgconfig \
PKG_CONFIG_SYSROOT_DIR=$sysroot PKG_CONFIG_PATH= \
make -s -C "$tree/tools/perf" O="$out" -j"$(nproc)" \
	ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CORESIGHT=1 \
	CSINCLUDES="$sysroot/usr/include" CSLIBS="$lib" \
	EXTRA_CFLAGS="-I$sysroot/usr/include -I$sysroot/usr/include/aarch64-linux-gnu" \
	LDFLAGS="-static -L$lib" \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_LIBNUMA=1 \
	NO_LIBUNWIND=1 NO_LIBDW_DWARF_UNWIND=1 NO_DWARF=1 NO_LIBDEBUGINFOD=1 \
	NO_LIBBPF=1 NO_LIBCRYPTO=1 NO_LIBAUDIT=1 NO_JEVENTS=1 NO_JVMTI=1 \
	NO_LIBBABELTRACE=1 NO_LIBZSTD=1 NO_LZMA=1 NO_LIBCAP=1 NO_DEMANGLE=1 \
	NO_SDT=1 NO_LIBPFM4=1 NO_BPF_SKEL=1 WERROR=0 "$out/perf"
grep -qx CONFIG_LIBOPENCSD=y "$out/.config-detected" ||
	{ echo "perf-arm64: built without OpenCSD" >&2; exit 1; }
