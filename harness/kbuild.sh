#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh OUTDIR FRAGMENT...: configure (tinyconfig + fragments) and build
# the assembled tree out of tree in OUTDIR, with ccache: bzImage, or with
# KARCH=arm64 an arm64 Image (cross-compiled).  Fails when a symbol a
# fragment asks for did not make it into .config (merge_config.sh drops
# symbols with unmet dependencies silently).
set -euo pipefail

. "$(dirname "$0")/common.sh"
mkdir -p "$1"
out=$(cd "$1" && pwd)
shift
frags=()
for f; do
	frags+=("$(realpath "$f")")
done
set -- "${frags[@]}"
kmake=(make -C "$tree" O="$out" -j"$(nproc)" HOSTCC="ccache gcc")
if [ "${KARCH:-x86}" = arm64 ]; then
	kmake+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
		CC="ccache aarch64-linux-gnu-gcc")
	image=Image
else
	kmake+=(CC="ccache gcc")
	image=bzImage
fi

frag_sum=$(cat "$@" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.fragments" 2>/dev/null)" != "$frag_sum" ]; then
	"${kmake[@]}" -s tinyconfig
	(cd "$out" && "$tree/scripts/kconfig/merge_config.sh" -m .config "$@") >/dev/null
	"${kmake[@]}" -s olddefconfig
	missing=0
	for sym in $(grep -h '^CONFIG_' "$@" | cut -d= -f1 | sort -u); do
		want=$(grep -h "^$sym=" "$@" | tail -1)
		if [ "${want#*=}" = n ]; then
			grep -q "^$sym=" "$out/.config" || continue
		else
			grep -qx "$want" "$out/.config" && continue
		fi
		echo "kbuild: $want did not make it into $out/.config" >&2
		missing=1
	done
	[ $missing = 0 ] || exit 1
	echo "$frag_sum" > "$out/.fragments"
fi

"${kmake[@]}" -s $image headers
