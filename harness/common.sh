# SPDX-License-Identifier: GPL-2.0
# Sourced by the harness scripts: where things are.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$repo/build}
tree=${TREE:-$build/linux}

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

# What the assembled tree is made of: the base version, the new files and
# the series.  tree.sh re-assembles when it changes.
inputs_hash() {
	{
		dpkg-query -W -f='${Version}' linux-source-6.1
		overlay_files | while read -r f; do
			echo "$f"; cat "$repo/$f"
		done
		series_lines | while read -r p _; do
			echo "$p"; cat "$repo/patches/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

# The tree's HEAD is what the repo holds: see tree.sh.
stamp=$tree/.git/aux-sample-assembled
mark_assembled() {
	echo "$(inputs_hash) $(git -C "$tree" rev-parse HEAD)" > "$stamp"
}

# aux_bytes PERF FILE: the sum of the AUX sizes of FILE's samples, as
# perf report -D prints them (the fields' size words, headers included).
aux_bytes() {
	"$1" report -D -i "$2" 2>/dev/null | awk '
		/PERF_RECORD_/ { in_sample = /PERF_RECORD_SAMPLE/ }
		in_sample && / data: size [0-9]+ bytes/ {
			for (i = 1; i < NF; i++)
				if ($i == "size")
					sum += $(i + 1)
			in_sample = 0
		}
		END { print sum + 0 }'
}
