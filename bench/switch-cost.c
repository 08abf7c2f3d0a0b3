/* SPDX-License-Identifier: MIT */
/*
 * What the machine charges for the steps a user-space target adds to a command's path,
 * so a benchmark's latency rows can be read: a system call, and a one-byte pipe round
 * trip between two processes and between two threads, on one CPU and across two.
 * Over loopback the kernel's host and target never leave kernel context; a user-space
 * target adds an address-space switch (one CPU) or a wake-up of another CPU (two) each
 * way. Under QEMU's TCG each costs tens of microseconds (its software TLB is flushed on
 * an address-space switch), against about one on hardware.
 *
 *   switch-cost            prints "name value" lines, values in microseconds (means)
 *
 * bench/guest.sh runs it on CPU 0 and on CPUs 0,1 and keeps the lines in meta.tsv.
 * Exit status 1 when a pipe, fork or thread cannot be made.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { SYSCALLS = 20000, ROUND_TRIPS = 2000 };

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* The echoing side: reads a byte from to[0], writes it to back[1], until EOF. */
struct pipes {
	int to[2], back[2];
};

static void *echo(void *arg)
{
	struct pipes *p = arg;
	char c;
	while (read(p->to[0], &c, 1) == 1 && write(p->back[1], &c, 1) == 1)
		;
	return NULL;
}

/* Mean microseconds of a round trip to the echoing side. */
static double round_trips(struct pipes *p)
{
	char c = 'x';
	double t = now_us();
	for (int i = 0; i < ROUND_TRIPS; i++)
		if (write(p->to[1], &c, 1) != 1 || read(p->back[0], &c, 1) != 1)
			return -1;
	return (now_us() - t) / ROUND_TRIPS;
}

static int open_pipes(struct pipes *p)
{
	return pipe(p->to) || pipe(p->back) ? -1 : 0;
}

static void close_pipes(struct pipes *p)
{
	close(p->to[0]);
	close(p->to[1]);
	close(p->back[0]);
	close(p->back[1]);
}

int main(void)
{
	double t = now_us();
	for (int i = 0; i < SYSCALLS; i++)
		syscall(SYS_getppid); /* a real system call: glibc caches nothing for it */
	printf("syscall_us %.2f\n", (now_us() - t) / SYSCALLS);

	struct pipes p;
	if (open_pipes(&p)) {
		perror("switch-cost: pipe");
		return 1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("switch-cost: fork");
		return 1;
	}
	if (pid == 0) {
		/* Only the parent's write ends may stay open, or EOF never comes. */
		close(p.to[1]);
		close(p.back[0]);
		echo(&p);
		_exit(0);
	}
	double procs = round_trips(&p);
	close_pipes(&p);
	waitpid(pid, NULL, 0);

	pthread_t th;
	if (open_pipes(&p) || pthread_create(&th, NULL, echo, &p)) {
		perror("switch-cost: thread");
		return 1;
	}
	double threads = round_trips(&p);
	close(p.to[1]);
	pthread_join(th, NULL);
	close(p.to[0]);
	close(p.back[0]);
	close(p.back[1]);
	if (procs < 0 || threads < 0) {
		fprintf(stderr, "switch-cost: a round trip failed\n");
		return 1;
	}
	printf("pipe_round_trip_processes_us %.2f\n", procs);
	printf("pipe_round_trip_threads_us %.2f\n", threads);
	return 0;
}
