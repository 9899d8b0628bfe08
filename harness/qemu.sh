#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu.sh [build|export]
#
# build (the default): assemble Debian's QEMU source (the version in
# qemu/base.version) plus qemu/series as a git tree in $BUILD/qemu-src, one
# commit per patch, and build qemu-system-x86_64 and qemu-system-aarch64
# (TCG only, ccache) in $BUILD/qemu.  A tree with commits or changes of its own is built as it is.
# export: write the tree's commits back to qemu/ as the series.
set -euo pipefail

. "$(dirname "$0")/common.sh"
pinned=$(cat "$repo/qemu/base.version")
src=$build/qemu-src
out=$build/qemu
base=base-${pinned//[:~]/_}
gitc=(git -c user.name="aux-sample harness" -c user.email=harness@localhost)
qstamp=$src/.git/aux-sample-assembled

qemu_inputs_hash() {
	cat "$repo/qemu/base.version" "$repo/qemu/series" "$repo"/qemu/*.patch |
		sha256sum | cut -d' ' -f1
}

unpack() {
	local dl=$build/qemu-dl
	rm -rf "$src" "$dl"
	mkdir -p "$dl"
	echo "qemu: fetching Debian's qemu $pinned source"
	(cd "$dl" && apt-get source -q --download-only "qemu=$pinned" >/dev/null)
	dpkg-source -q -x "$dl"/qemu_*.dsc "$src" >/dev/null
	rm -rf "$dl"
	git -C "$src" init -q
	git -C "$src" add -A -f
	"${gitc[@]}" -C "$src" commit -q -m "QEMU $pinned (Debian source, its patches applied)"
	git -C "$src" tag "$base"
}

assemble() {
	local p
	if [ -f "$qstamp" ]; then
		read -r got_hash got_head < "$qstamp"
		if [ "$(git -C "$src" rev-parse HEAD)" != "$got_head" ] ||
		   [ -n "$(git -C "$src" status --porcelain)" ]; then
			echo "qemu: $src has work not exported (harness/qemu.sh export); building it as it is" >&2
			return
		fi
		[ "$got_hash" = "$(qemu_inputs_hash)" ] && return
	fi
	git -C "$src" rev-parse -q --verify "refs/tags/$base" >/dev/null 2>&1 || unpack
	echo "qemu: assembling $src"
	git -C "$src" checkout -q -B work "$base"
	git -C "$src" reset -q --hard
	git -C "$src" clean -q -fdx
	for p in $(grep -v -e '^#' -e '^[[:space:]]*$' "$repo/qemu/series"); do
		if ! "${gitc[@]}" -C "$src" am -q "$repo/qemu/$p"; then
			echo "qemu: qemu/$p does not apply to qemu $pinned" >&2
			git -C "$src" am --abort
			exit 1
		fi
	done
	echo "$(qemu_inputs_hash) $(git -C "$src" rev-parse HEAD)" > "$qstamp"
}

# What the guests need: TCG, 9p, and of the arm64 boards only virt (the
# 32-bit boards' devices are a fifth of the build).
options=(-q --target-list=x86_64-softmmu,aarch64-softmmu
	--cc="ccache gcc" --host-cc="ccache gcc" --cxx="ccache g++"
	--without-default-features --enable-tcg --enable-fdt=system
	--enable-virtfs --enable-attr --enable-cap-ng
	--with-devices-aarch64=minimal
	--disable-docs --disable-install-blobs)

# A build dir configured otherwise (its config.status quotes each option)
# is configured afresh.
configure() {
	grep -qsF -- "$(printf "'%s' " "${options[@]}")" "$out/config.status" &&
		return
	rm -rf "$out"
	mkdir -p "$out"
	(cd "$out" && "$src/configure" "${options[@]}" >/dev/null)
}

export_series() {
	rm -f "$repo"/qemu/*.patch
	git -C "$src" format-patch -q --zero-commit --no-signature \
		-o "$repo/qemu" "$base"..HEAD
	(cd "$repo/qemu" && ls -- *.patch) > "$repo/qemu/series"
	echo "$(qemu_inputs_hash) $(git -C "$src" rev-parse HEAD)" > "$qstamp"
}

case ${1:-build} in
build)
	assemble
	configure
	ninja -C "$out" qemu-system-x86_64 qemu-system-aarch64 >/dev/null
	;;
export)
	[ -z "$(git -C "$src" status --porcelain)" ] ||
		{ echo "qemu: $src has uncommitted changes" >&2; exit 1; }
	export_series
	;;
*)
	echo "usage: qemu.sh [build|export]" >&2
	exit 2
	;;
esac
