# SPDX-License-Identifier: GPL-2.0
#
# AUX-area sampling for Linux perf: build, boot and test harness.
# See README.md.  Every build goes to $(BUILD); nothing is written elsewhere.

BUILD      ?= $(CURDIR)/build
export BUILD
# ccache hits across clones: paths below here are hashed relative.
export CCACHE_BASEDIR := $(CURDIR)
TREE       := $(BUILD)/linux
KDEBUG     := $(BUILD)/kernel-debug
KQEMU      := $(BUILD)/kernel
PERF_OUT   := $(BUILD)/perf
JOBS       ?= $(shell nproc)
SELFTESTS  := perf_events
# The emulator's tests (qemu/tests/NAME.sh): in the kselftests' guest,
# in the perf tests' guest, and in the arm64 guest.
QEMU_TESTS := pmu pt
QEMU_PERF_TESTS := aux_record
ARM64_QEMU_TESTS := cs_etm
# The kselftests built for the arm64 guest (SUITE/PROGRAM): those of the
# CoreSight units, which only it has, aux_sample_errors (on arm64 its
# unprivileged cases run on cs_etm), and sample_at_switch, whose lost
# samples only arm64's PMU interrupt (an ordinary one) showed.
ARM64_SELFTESTS := perf_events/aux_sample_cs_etm perf_events/core_trace_cs_etm \
	perf_events/aux_sample_errors perf_events/sample_at_switch
# perf test description patterns: the project's perf tests and upstream's
# Intel PT test (test_intel_pt.sh, "Miscellaneous Intel PT testing");
# "dumps" is test_core_trace.sh, "Hardware trace in core dumps"; "daemon"
# upstream's daemon.sh, perf daemon's, which the flight recorder runs under;
# "augmented" perf trace's BPF-augmented syscalls.
PERF_TESTS := ptsim resolver hidden dumps recorder Miscellaneous daemon \
	      augmented
# perf tests of decoding alone, run on the host.
HOST_PERF_TESTS := conformance

PERF_FLAGS := NO_LIBPERL=1 NO_GTK2=1 \
	      NO_LIBBABELTRACE=1 CORESIGHT=1 WERROR=0 \
	      CC="ccache gcc" HOSTCC="ccache gcc"

.PHONY: all tree kernel kernel-debug perf selftests qemu check demo bench \
	arm64 kernel-arm64 perf-arm64 arm64-root selftests-arm64 \
	compare fuzz perf-afl fuzz-perf checkpatch export deps clean

all: kernel-debug perf selftests qemu arm64

# The packages (Debian 12, root): once, and again when the list changes.
DEPS_STAMP := $(BUILD)/.deps-installed
deps: $(DEPS_STAMP)
$(DEPS_STAMP): harness/deps.sh
	harness/deps.sh
	mkdir -p $(BUILD) && touch $@

tree: $(DEPS_STAMP)
	harness/tree.sh

# Debian's QEMU with qemu/series (Intel PT and the PMU for TCG).
qemu: $(DEPS_STAMP)
	harness/qemu.sh

kernel: tree
	harness/kbuild.sh $(KQEMU) harness/configs/guest.config harness/configs/x86.config

kernel-debug: tree
	harness/kbuild.sh $(KDEBUG) harness/configs/guest.config harness/configs/x86.config \
		harness/configs/debug.config harness/configs/kdump.config

# The arm64 guest: its debug kernel, perf (static, with OpenCSD), root and
# the kselftests that have something to test there.
arm64: kernel-arm64 perf-arm64 arm64-root selftests-arm64

kernel-arm64: tree
	KARCH=arm64 harness/kbuild.sh $(BUILD)/kernel-arm64 harness/configs/guest.config \
		harness/configs/arm64.config harness/configs/debug.config

perf-arm64: tree
	harness/perf-arm64.sh

arm64-root: $(DEPS_STAMP)
	harness/arm64-root.sh

perf: tree
	mkdir -p $(PERF_OUT)
	$(MAKE) -s -C $(TREE)/tools/perf O=$(PERF_OUT) -j$(JOBS) $(PERF_FLAGS)

# Built against the debug kernel's exported uapi headers, with 5 times
# kselftest_harness' 30 s per test: TCG with KASAN is that much slower than
# hardware (guest-tests.sh gives each suite 5 times its timeout too).
selftests: kernel-debug
	for t in $(SELFTESTS); do \
		mkdir -p $(BUILD)/selftests/$$t && \
		$(MAKE) -s -C $(TREE)/tools/testing/selftests/$$t \
			OUTPUT=$(BUILD)/selftests/$$t \
			USERCFLAGS=-DTEST_TIMEOUT_DEFAULT=150 \
			KHDR_INCLUDES="-isystem $(KDEBUG)/usr/include" || exit 1; \
		$(MAKE) -s --no-print-directory \
			-C $(TREE)/tools/testing/selftests/$$t emit_tests \
			OUTPUT=$(BUILD)/selftests/$$t | cut -d: -f2 \
			> $(BUILD)/selftests/$$t/tests.list || exit 1; \
	done

# Static, against the sysroot perf-arm64 unpacks (OpenCSD); the guest runs
# each suite's tests.list as the x86 guest does.
ARM64_SYSROOT := $(BUILD)/arm64-sysroot
selftests-arm64: kernel-arm64 perf-arm64
	rm -f $(BUILD)/selftests-arm64/*/tests.list
	for t in $(ARM64_SELFTESTS); do \
		suite=$${t%%/*}; prog=$${t#*/}; \
		mkdir -p $(BUILD)/selftests-arm64/$$suite && \
		$(MAKE) -s -C $(TREE)/tools/testing/selftests/$$suite \
			ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			OUTPUT=$(BUILD)/selftests-arm64/$$suite \
			USERCFLAGS="-DTEST_TIMEOUT_DEFAULT=150 -I$(ARM64_SYSROOT)/usr/include" \
			LDFLAGS="-static -L$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu -lpthread" \
			KHDR_INCLUDES="-isystem $(BUILD)/kernel-arm64/usr/include" \
			$(BUILD)/selftests-arm64/$$suite/$$prog || exit 1; \
		echo $$prog >> $(BUILD)/selftests-arm64/$$suite/tests.list; \
	done

checkpatch: tree
	harness/checkpatch.sh

check: all
	SUITES="$(SELFTESTS)" QEMU_TESTS="$(QEMU_TESTS)" PERF_TESTS="$(PERF_TESTS)" \
		QEMU_PERF_TESTS="$(QEMU_PERF_TESTS)" ARM64_QEMU_TESTS="$(ARM64_QEMU_TESTS)" \
		ARM64_SUITES="$(sort $(patsubst %/,%,$(dir $(ARM64_SELFTESTS))))" \
		HOST_PERF_TESTS="$(HOST_PERF_TESTS)" harness/check.sh

demo: kernel perf qemu
	harness/demo.sh

bench: kernel selftests perf qemu
	harness/bench.sh

# Upstream's suites whole, with the series and without it (harness/compare.sh).
compare: kernel-debug perf selftests qemu
	PERF_FLAGS='$(PERF_FLAGS)' harness/compare.sh

# The kernel fuzzer's long runs (harness/fuzz.sh).
fuzz: kernel-debug selftests qemu
	harness/fuzz.sh

# AFL++ on perf's readers (harness/fuzz-perf.sh), perf built for it with
# ASan and UBSan; the seeds are recorded with the plain perf.  AFL++ is not
# in harness/deps.sh: nothing else needs it.  UBSan leaves out alignment
# (perf reads records where they lie, which x86 allows) and pointer-overflow
# (upstream's rb_entry() of NULL, NULL + 0 in the Intel PT decoder: both
# on every input); it reports, and harness/fuzz-perf.sh makes it abort.
AFL_UBSAN := -fsanitize=undefined -fno-sanitize=alignment,pointer-overflow \
	     -fsanitize-recover=undefined
perf-afl: tree
	command -v afl-clang-fast > /dev/null || apt-get install -y -q afl++
	mkdir -p $(BUILD)/perf-afl
	AFL_USE_ASAN=1 AFL_QUIET=1 $(MAKE) -s -C $(TREE)/tools/perf \
		O=$(BUILD)/perf-afl -j$(JOBS) $(PERF_FLAGS) NO_LIBPYTHON=1 \
		NO_LIBBPF=1 CC=afl-clang-fast HOSTCC=gcc \
		EXTRA_CFLAGS="$(AFL_UBSAN)"

fuzz-perf: perf-afl perf kernel-debug qemu
	harness/fuzz-perf.sh

export:
	harness/export.sh

clean:
	rm -rf $(BUILD)
