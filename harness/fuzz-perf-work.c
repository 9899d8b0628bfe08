// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of harness/fuzz-perf-seeds.sh: "spin N" or "crash N": two
 * threads spin N and N/2 times, with system calls between branches, then
 * "crash" dereferences NULL.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;
static int *volatile null_ptr;

__attribute__((noinline)) void fz_spin(unsigned long n)
{
	while (n--)
		sink += n & 3 ? getppid() : n;
}

__attribute__((noinline)) void fz_crash(void)
{
	*null_ptr = 1;
}

static void *fz_thread(void *arg)
{
	fz_spin((unsigned long)arg);
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 5000;
	pthread_t thread;

	pthread_create(&thread, NULL, fz_thread, (void *)(n / 2));
	fz_spin(n);
	pthread_join(thread, NULL);
	if (argc > 1 && !strcmp(argv[1], "crash"))
		fz_crash();
	return 0;
}
