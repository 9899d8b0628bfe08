#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series as it would be mailed: every commit of the assembled tree on top
# of the base, new files included, through scripts/checkpatch.pl --strict.
# The patches land in $BUILD/series.  Prints "PASS name" or "FAIL name"
# (with checkpatch's report) per patch; exits 1 on any failure.
set -uo pipefail

. "$(dirname "$0")/common.sh"
base=$(git -C "$tree" describe --tags --abbrev=0 --match 'base-*' HEAD)
out=$build/series
rm -rf "$out"
git -C "$tree" format-patch -q --zero-commit -o "$out" "$base"..HEAD
# checkpatch's SPDX check needs python3-ply: Debian's python3, not another
# one that may come first on PATH.
export PATH=/usr/bin:$PATH
# A patch's new files all have a maintainer list (MAINTAINERS' F: lines,
# not just the catch-all THE REST); prints those that do not.
new_files_maintained() {	# PATCH
	local f ok=0

	for f in $(grep -A1 '^--- /dev/null' "$1" | sed -n 's|^+++ b/||p'); do
		if ! (cd "$tree" && scripts/get_maintainer.pl --no-git \
				--no-git-fallback -f "$f") 2>/dev/null |
				grep -E '\((maintainer|supporter|reviewer|odd fixer):' |
				grep -qv "THE REST"; then
			echo "$f: no MAINTAINERS entry covers it"
			ok=1
		fi
	done
	return $ok
}

status=0
for p in "$out"/*.patch; do
	[ -f "$p" ] || continue
	# perf test reads a shell test's description from its line 2
	# (tools/perf/tests/builtin-test.c), so there, as in every upstream
	# perf shell test, the SPDX tag is on line 3: a patch of perf shell
	# tests (and their MAINTAINERS lines) is not held to line 2.
	ignore=
	if ! grep '^+++ b/' "$p" |
		grep -qv -e '^+++ b/tools/perf/tests/shell/' -e '^+++ b/MAINTAINERS$'; then
		ignore=--ignore=SPDX_LICENSE_TAG
	fi
	# User-space code calls libraries whose API is CamelCase (OpenCSD's
	# profile_CortexA): not ours to rename.  Kernel code is held to it.
	if ! grep '^+++ b/' "$p" | grep -qv -e '^+++ b/tools/' -e '^+++ b/MAINTAINERS$'; then
		ignore="$ignore --ignore=CAMELCASE"
	fi
	# The base is a tarball without upstream's history: the commits that
	# Fixes: tags name cannot be looked up.  checkpatch asks whether
	# MAINTAINERS needs updating for every new file; new_files_maintained
	# answers that below, with get_maintainer.pl.
	if report=$(cd "$tree" && scripts/checkpatch.pl --strict --quiet \
			--no-summary --ignore=UNKNOWN_COMMIT_ID \
			--ignore=FILE_PATH_CHANGES $ignore "$p" 2>&1) &&
	   report=$(new_files_maintained "$p"); then
		echo "PASS checkpatch: $(basename "$p")"
	else
		echo "FAIL checkpatch: $(basename "$p")"
		printf '%s\n' "$report" | sed 's/^/    /'
		status=1
	fi
done
exit $status
