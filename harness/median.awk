# SPDX-License-Identifier: GPL-2.0
# The benchmarks' median: of a[1..n], which it sorts.  Loaded with -f
# before the program that calls it (harness/bench-*.sh).
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return a[int((n + 1) / 2)]
}
