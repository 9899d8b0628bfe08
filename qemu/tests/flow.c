// SPDX-License-Identifier: GPL-2.0
/*
 * A program for the instruction-flow comparison (flow.sh): signals,
 * syscalls, indirect calls, and with the argument "fork" a fork, whose
 * child computes and takes a signal of its own.  flow.sh links it static at
 * 0x10000000 (not position independent), where no other program's code
 * is (Debian's python3 is at 0x400000).  Exits 0 if every signal arrived.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void on_signal(int sig)
{
	hits += sig == SIGUSR1;
}

static int add(int x)
{
	return x + 3;
}

static int sub(int x)
{
	return x - 1;
}

static int twice(int x)
{
	return x * 2;
}

static int (*const volatile ops[])(int) = { add, sub, twice };

/* @n indirect calls */
static int work(int n)
{
	int i, x = 1;

	for (i = 0; i < n; i++)
		x = ops[i % 3](x) & 0xffff;
	return x;
}

int main(int argc, char **argv)
{
	int i, status;
	pid_t child;

	signal(SIGUSR1, on_signal);
	for (i = 0; i < 10; i++) {
		raise(SIGUSR1);
		getppid();
		work(50);
	}
	if (argc < 2 || strcmp(argv[1], "fork"))
		return hits != 10;
	child = fork();
	if (child == 0) {
		work(500);
		raise(SIGUSR1);
		_exit(hits != 11);
	}
	work(500);
	if (waitpid(child, &status, 0) != child || status)
		return 1;
	return hits != 10;
}
