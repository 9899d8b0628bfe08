// SPDX-License-Identifier: GPL-2.0
/*
 * The demo's known workload: two functions with a known share of the work,
 * so a profile of it can be checked by eye (hot ~3/4, warm ~1/4).
 * An optional argument sets the number of rounds (20 by default).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static void __attribute__((noinline)) warm(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static void __attribute__((noinline)) hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i * 2654435761UL;
}

int main(int argc, char *argv[])
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;

	for (int round = 0; round < rounds; round++) {
		hot(3000000);
		warm(1000000);
	}
	printf("spin: done (%lu)\n", sink);
	return 0;
}
