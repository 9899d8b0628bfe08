# SPDX-License-Identifier: GPL-2.0
# Sourced by the harness scripts: where things are.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$repo/build}
tree=$build/linux

# This repo's files that are new to the kernel tree: everything under the
# kernel's own top-level directories.
overlay_files() {
	git -C "$repo" ls-files -- arch block certs crypto Documentation \
		drivers fs include init io_uring ipc kernel lib mm net rust \
		samples scripts security sound tools usr virt
}

# patches/series without comments and blank lines: "PATCH [NEWFILE...]".
series_lines() {
	[ -f "$repo/patches/series" ] || return 0
	grep -v -e '^#' -e '^[[:space:]]*$' "$repo/patches/series" || true
}
