#!/bin/sh
# perf trace shows openat's filename with augmented_raw_syscalls.c
# SPDX-License-Identifier: GPL-2.0
#
# perf trace compiles tools/perf/examples/bpf/augmented_raw_syscalls.c
# with clang against the kernel's build directory and loads it on the
# raw_syscalls tracepoints; the program copies what a syscall's pointer
# arguments point to into its samples, so the trace shows openat's
# filename, not an address.  The compile takes the kernel's build
# directory from llvm.kbuild-dir of the user's perf config or from
# /lib/modules/$(uname -r)/build, and perf's BPF headers from this tree.

. "$(dirname "$0")"/lib/probe.sh

skip_if_no_perf_trace || exit 2
if ! perf version --build-options | grep -q 'bpf: \[ on'; then
	echo "perf trace augmented syscalls test [Skipped: perf without BPF]"
	exit 2
fi
if ! command -v clang > /dev/null; then
	echo "perf trace augmented syscalls test [Skipped: no clang]"
	exit 2
fi
kbuild=$(perf config llvm.kbuild-dir | sed -n 's/^llvm.kbuild-dir=//p')
if [ ! -f "${kbuild:-/lib/modules/$(uname -r)/build}/include/generated/autoconf.h" ]; then
	echo "perf trace augmented syscalls test [Skipped: no kernel build directory]"
	exit 2
fi

perf_src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/perf-test-augmented.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The home of this run's perf config: the user's build directory, and
# the headers that perf install would have put under its prefix.
cat > "$tmp/.perfconfig" <<EOF
[llvm]
	clang-opt = -I$perf_src/include/bpf
EOF
[ -z "$kbuild" ] || printf '\tkbuild-dir = %s\n' "$kbuild" >> "$tmp/.perfconfig"

file=$tmp/augmented-filename
echo augmented > "$file"
HOME=$tmp perf trace -e "$perf_src/examples/bpf/augmented_raw_syscalls.c" \
	-e openat -- cat "$file" > /dev/null 2> "$tmp/trace"
err=$?
line=$(grep " cat/[0-9]* openat(.*filename: \"$file\")" "$tmp/trace")
if [ $err -ne 0 ] || [ -z "$line" ]; then
	echo "perf trace exited $err, and no openat of $file:"
	cat "$tmp/trace"
	exit 1
fi
echo "$line"
exit 0
