# SPDX-License-Identifier: GPL-2.0
# Sourced by the emulator's tests: TAP output.  Sets here (the tests'
# folder) and tmp (removed at exit).
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# ok if COMMAND succeeds, else its output; each result is preceded by how
# long it took, as a TAP comment.
check() {	# NAME COMMAND...
	name=$1
	shift
	n=$((n + 1))
	tap_start=$(date +%s)
	if "$@" > "$tmp/out" 2>&1; then
		echo "# $(($(date +%s) - tap_start)) s"
		echo "ok $n $name"
		return 0
	fi
	echo "# $(($(date +%s) - tap_start)) s"
	echo "not ok $n $name"
	sed 's/^/# /' "$tmp/out"
	failed=1
	return 1
}

echo "TAP version 13"
