# SPDX-License-Identifier: GPL-2.0
#
# What the perf tests that record ptsim, the simulated Intel PT, share.
#
# ptsim_test_setup NAME skips the test (exit 2) when there is no ptsim PMU
# or no C compiler for its workload, else names the PMU's pmu_dir, makes
# temp_dir, removed when the test exits, and names perfdata, outfile and
# errfile in it.
#
# ptsim_awk_hex is an awk function, hex(s), that reads a "0x..." number as
# perf script prints it, or gives -1: put it ahead of an awk program.

ptsim_test_setup()
{
	pmu_dir=/sys/bus/event_source/devices/ptsim
	if [ ! -d "${pmu_dir}" ] ; then
		echo "Skip: no ptsim PMU (${pmu_dir} does not exist)"
		exit 2
	fi

	if ! command -v cc > /dev/null 2>&1 ; then
		echo "Skip: no C compiler (cc) to build the workload"
		exit 2
	fi

	# Not /tmp/perf-*: perf takes the symbols of such files from perf map
	# files
	temp_dir=$(mktemp -d "/tmp/__perf_test_$1.XXXXXXXXXX")
	perfdata="${temp_dir}/perf.data"
	outfile="${temp_dir}/out.txt"
	errfile="${temp_dir}/err.txt"
	trap ptsim_trap_cleanup EXIT TERM INT
}

ptsim_cleanup()
{
	trap - EXIT TERM INT
	rm -rf "${temp_dir}"
}

ptsim_trap_cleanup()
{
	ptsim_cleanup
	exit 1
}

ptsim_awk_hex='
	function hex(s,    i, d, v) {
		v = 0
		s = tolower(s)
		if (substr(s, 1, 2) != "0x")
			return -1
		for (i = 3; i <= length(s); i++) {
			d = index("0123456789abcdef", substr(s, i, 1))
			if (!d)
				return -1
			v = v * 16 + d - 1
		}
		return v
	}'
