#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the assembled tree ($BUILD/linux, see harness/tree.sh) back into this
# repo.  Every commit on top of the base becomes one patch in patches/ (its
# changes to upstream files, in git format-patch form) and one line of
# patches/series naming the patch and the new files the commit adds; the new
# files themselves go to their kernel paths in this repo.
set -euo pipefail

. "$(dirname "$0")/common.sh"
base=$(git -C "$tree" describe --tags --abbrev=0 --match 'base-*' HEAD)

if [ -n "$(git -C "$tree" status --porcelain)" ]; then
	echo "export: $tree has uncommitted changes; commit them first" >&2
	exit 1
fi

# Below, a new file enters whole, in its final form, with the commit that
# adds it.  A later commit that changes it would so export as something
# other than what it is: it has to be folded into the adding commit first.
for c in $(git -C "$tree" rev-list --reverse "$base"..HEAD); do
	later=$(git -C "$tree" diff --name-only --diff-filter=M "$c^" "$c" |
		while read -r f; do
			git -C "$tree" cat-file -e "$base:$f" 2>/dev/null || echo "$f"
		done)
	if [ -n "$later" ]; then
		echo "export: '$(git -C "$tree" log -1 --format=%s "$c")' changes" \
			"new files that an earlier commit adds; fold those changes" \
			"into it (git rebase -i --autosquash):" $later >&2
		exit 1
	fi
done

# Repo files the tree no longer has go; the tree's new files win.
new=$(git -C "$tree" diff --name-only --diff-filter=A "$base" HEAD)
for f in $(overlay_files); do
	[ -e "$tree/$f" ] || git -C "$repo" rm -q "$f"
done
for f in $new; do
	mkdir -p "$repo/$(dirname "$f")"
	cp -p "$tree/$f" "$repo/$f"
done

rm -f "$repo"/patches/*.patch
mkdir -p "$repo/patches"
series=$repo/patches/series
: > "$series"
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in $(git -C "$tree" rev-list --reverse "$base"..HEAD); do
	n=$((n + 1))
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	git -C "$tree" log -1 --format=%B "$c" | grep -q '^Signed-off-by: ' ||
		echo "export: WARNING: '$subject' has no Signed-off-by" >&2
	added=$(git -C "$tree" diff --name-only --diff-filter=A "$c^" "$c")
	# A new file enters whole, in its final form, with the commit that
	# adds it; later changes to it are not patches of their own.
	changed=$(git -C "$tree" diff --name-only "$c^" "$c")
	upstream=
	[ -z "$changed" ] ||
		upstream=$(git -C "$tree" ls-tree -r --name-only "$base" -- $changed)
	name=$(basename "$(git -C "$tree" format-patch -1 --start-number "$n" -o "$tmp" "$c")")
	if [ -n "$upstream" ]; then
		# shellcheck disable=SC2086
		git -C "$tree" format-patch -1 --stdout --zero-commit \
			--no-signature "$c" -- $upstream > "$repo/patches/$name"
	else
		# Only new files: the commit message alone.
		git -C "$tree" log -1 --format=email "$c" |
			sed '1s/^From [0-9a-f]* /From 0000000000000000000000000000000000000000 /' \
			> "$repo/patches/$name"
	fi
	# shellcheck disable=SC2086
	echo "$name" $added >> "$series"
done
mark_assembled
echo "export: $n patches, $(echo "$new" | grep -c . || true) new files"
