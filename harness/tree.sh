#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the kernel tree: Debian's linux-source-6.1, plus this repo's new
# files at their kernel paths, plus patches/series applied in order.  The
# result is a git tree in $BUILD/linux: commit 1 is the base, commit 2 adds
# the new files, then one commit per patch.  Edit and commit there, then run
# harness/export.sh to bring the work back into this repo.
set -euo pipefail

. "$(dirname "$0")/common.sh"
pinned=$(cat "$repo/harness/base.version")
tarball=/usr/src/linux-source-6.1.tar.xz
gitc=(git -c user.name="aux-sample harness" -c user.email=harness@localhost)

have=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
if [ -z "$have" ] || [ ! -f "$tarball" ]; then
	echo "tree: linux-source-6.1 is not installed (apt-get install linux-source-6.1)" >&2
	exit 1
fi
if [ "$have" != "$pinned" ]; then
	echo "tree: NOTE: base is linux-source-6.1 $have; harness/base.version pins $pinned (tested)" >&2
fi

want=$(inputs_hash)

if [ -f "$stamp" ]; then
	read -r got_hash got_head < "$stamp"
	if [ "$(git -C "$tree" rev-parse HEAD)" != "$got_head" ] ||
	   [ -n "$(git -C "$tree" status --porcelain)" ]; then
		echo "tree: $tree has work not exported (harness/export.sh); building it as it is" >&2
		exit 0
	fi
	[ "$got_hash" = "$want" ] && exit 0
fi

if ! git -C "$tree" rev-parse -q --verify "refs/tags/base-$have" >/dev/null 2>&1; then
	echo "tree: unpacking linux-source-6.1 $have"
	rm -rf "$tree" "$build/linux-source-6.1"
	mkdir -p "$build"
	tar -C "$build" -xf "$tarball"
	mv "$build/linux-source-6.1" "$tree"
	# Debian's tarball ignores every top-level entry (its packaging repo
	# tracks only debian/); drop that stanza so new files can be added.
	sed -i '/^# Debian packaging/,$d' "$tree/.gitignore"
	git -C "$tree" init -q
	# checkpatch.pl leaves its cache of CamelCase words in the tree.
	echo '.checkpatch-camelcase.*' >> "$tree/.git/info/exclude"
	git -C "$tree" add -A
	"${gitc[@]}" -C "$tree" commit -q -m "Linux $have (Debian linux-source-6.1)"
	git -C "$tree" tag "base-$have"
fi

echo "tree: assembling $tree"
git -C "$tree" checkout -q -B work "base-$have"
git -C "$tree" reset -q --hard
git -C "$tree" clean -q -fdx
git -C "$tree" am --abort >/dev/null 2>&1 || true

# Each series line is "PATCH [NEWFILE...]": the patch's changes to upstream
# files, plus the new files it adds, make one commit.
add_new_files() {
	local f
	for f; do
		mkdir -p "$tree/$(dirname "$f")"
		cp -p "$repo/$f" "$tree/$f"
		git -C "$tree" add "$f"
	done
}

while read -r p files; do
	# A patch that only adds new files is a message without a diff:
	# git am stops on it, and --allow-empty makes it a commit.
	if ! "${gitc[@]}" -C "$tree" am -q --whitespace=nowarn "$repo/patches/$p" 2>/dev/null &&
	   ! "${gitc[@]}" -C "$tree" am -q --allow-empty 2>/dev/null; then
		echo "tree: patches/$p does not apply to linux-source-6.1 $have" >&2
		git -C "$tree" am --show-current-patch=diff >&2 || true
		git -C "$tree" am --abort
		exit 1
	fi
	# shellcheck disable=SC2086
	add_new_files $files
	"${gitc[@]}" -C "$tree" commit -q --amend --allow-empty --no-edit
done < <(series_lines)

# New files no patch claims yet: one commit at the end, to be placed.
unclaimed=$(comm -23 <(overlay_files | sort) <(series_lines | tr ' ' '\n' | sort))
if [ -n "$unclaimed" ]; then
	echo "tree: WARNING: new files in no patch of patches/series:" $unclaimed >&2
	# shellcheck disable=SC2086
	add_new_files $unclaimed
	"${gitc[@]}" -C "$tree" commit -q -m "UNCLAIMED: new files in no patch of patches/series"
fi

mark_assembled
echo "tree: $(series_lines | wc -l) patches applied on $have"
