/* SPDX-License-Identifier: MIT */
/*
 * What this machine's loopback TCP and memory allow one core, so that a native NVMe/TCP
 * benchmark (bench/local-run) can be read against the machine's own limits: a target on
 * 127.0.0.1 cannot move more bytes than one connection between two pinned threads does,
 * nor answer a QD1 command faster than a bare request/response of the same sizes.
 *
 *   tcp-limit stream --size BYTES --secs S --server-cpu C --client-cpu C [--dir send|recv]
 *                    [--poll]
 *       one connection (TCP_NODELAY); send: the client writes BYTES messages as fast as
 *       it can, the server reads each into one BYTES buffer; recv: the server writes, the
 *       client reads (the read direction of a target, whose server sends the data).
 *       Prints mbps (1e6 bytes/s), msgs_per_s and the server thread's CPU seconds (user +
 *       system, RUSAGE_THREAD) per GB (1e9 bytes) moved. --poll: both sides spin on
 *       non-blocking sends and receives (as our polling target and host do).
 *   tcp-limit rr --req BYTES --resp BYTES --secs S --server-cpu C --client-cpu C [--poll]
 *       QD1 ping-pong: the client sends req bytes, the server answers resp bytes. Prints
 *       round trips per second, mean/p50/p99 round-trip microseconds and the server's CPU
 *       microseconds per round trip. --poll: both sides spin on non-blocking receives
 *       instead of sleeping in recv (as a polling host and a busy target do), so no
 *       wake-up of a sleeping thread is in the round trip.
 *   tcp-limit memcpy --size BYTES --secs S --cpu C
 *       one core copying BYTES blocks out of a 256 MiB source (not cache resident) into
 *       one destination block: mbps.
 *
 * Each mode prints one JSON line on stdout. Exit status: 0 measured, 1 a system call
 * failed (message on stderr), 2 bad arguments (message and usage on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_MSG = 64 << 20, SRC_BYTES = 256 << 20 };

static const char usage[] =
	"Usage: tcp-limit stream --size BYTES --secs S --server-cpu C --client-cpu C "
	"[--dir send|recv] [--poll]\n"
	"       tcp-limit rr --req BYTES --resp BYTES --secs S --server-cpu C --client-cpu C "
	"[--poll]\n"
	"       tcp-limit memcpy --size BYTES --secs S --cpu C\n"
	"Loopback TCP and memcpy limits of this machine, one JSON line each (bench/local-run).\n"
	"BYTES: 1 .. 67108864; S: seconds (> 0, <= 3600, decimals allowed); C: a CPU this\n"
	"process may run on.\n";

/* The options of every mode; -1 (or NULL) when not given. */
struct opts {
	const char *mode;
	long size, req, resp, server_cpu, client_cpu, cpu;
	double secs;
	bool recv; /* --dir recv: the server sends */
	bool poll; /* rr --poll: spin on MSG_DONTWAIT receives */
};

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "tcp-limit: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\n%s", usage);
	return 2;
}

/* Seconds of CLOCK_MONOTONIC. */
static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* User + system CPU seconds of the calling thread. */
static double thread_cpu_s(void)
{
	struct rusage u;
	if (getrusage(RUSAGE_THREAD, &u))
		return 0;
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
	       (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

/* Pins the calling thread to @cpu; 0, or an errno value. */
static int pin(long cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET((int)cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

/* Parses a whole decimal number in [lo, hi] into *v; false when it is not one. */
static bool parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

/* Whether this process may run on @cpu. */
static bool cpu_allowed(long cpu)
{
	cpu_set_t s;
	if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(s), &s))
		return false;
	return CPU_ISSET((int)cpu, &s);
}

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .size = -1,
			    .req = -1,
			    .resp = -1,
			    .server_cpu = -1,
			    .client_cpu = -1,
			    .cpu = -1,
			    .secs = -1 };
	if (argc < 2)
		return bad("%s%s", "a mode is needed (stream, rr or memcpy)", "");
	o->mode = argv[1];
	if (strcmp(o->mode, "stream") && strcmp(o->mode, "rr") && strcmp(o->mode, "memcpy"))
		return bad("unknown mode '%s'%s", o->mode, "");
	for (int i = 2; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(k, "--poll")) {
			o->poll = true;
			i--;
			continue;
		}
		if (!v)
			return bad("%s needs a value%s", k, "");
		long *num = !strcmp(k, "--size")       ? &o->size :
			    !strcmp(k, "--req")        ? &o->req :
			    !strcmp(k, "--resp")       ? &o->resp :
			    !strcmp(k, "--server-cpu") ? &o->server_cpu :
			    !strcmp(k, "--client-cpu") ? &o->client_cpu :
			    !strcmp(k, "--cpu")        ? &o->cpu :
							 NULL;
		if (num) {
			bool is_cpu = num == &o->server_cpu || num == &o->client_cpu ||
				      num == &o->cpu;
			if (is_cpu ? !parse_long(v, 0, CPU_SETSIZE - 1, num) :
				     !parse_long(v, 1, MAX_MSG, num))
				return bad(is_cpu ? "%s: '%s' is not a CPU number" :
						    "%s: '%s' is not a byte count in 1..67108864",
					   k, v);
			if (is_cpu && !cpu_allowed(*num))
				return bad("%s: this process may not run on CPU %s", k, v);
		} else if (!strcmp(k, "--secs")) {
			char *end;
			errno = 0;
			o->secs = strtod(v, &end);
			if (errno || end == v || *end || !(o->secs > 0 && o->secs <= 3600))
				return bad("%s: '%s' is not a number of seconds in (0, 3600]", k,
					   v);
		} else if (!strcmp(k, "--dir")) {
			if (strcmp(v, "send") && strcmp(v, "recv"))
				return bad("%s: '%s' is neither send nor recv", k, v);
			o->recv = !strcmp(v, "recv");
		} else {
			return bad("unknown option '%s'%s", k, "");
		}
	}
	bool stream = !strcmp(o->mode, "stream"), rr = !strcmp(o->mode, "rr");
	if (o->secs < 0)
		return bad("%s needs --secs%s", o->mode, "");
	if ((stream || !rr) && o->size < 0)
		return bad("%s needs --size%s", o->mode, "");
	if (rr && (o->req < 0 || o->resp < 0))
		return bad("rr needs --req and --resp%s%s", "", "");
	if ((stream || rr) && (o->server_cpu < 0 || o->client_cpu < 0))
		return bad("%s needs --server-cpu and --client-cpu%s", o->mode, "");
	if (!stream && !rr && o->cpu < 0)
		return bad("memcpy needs --cpu%s%s", "", "");
	if (!stream && o->recv)
		return bad("--dir is for stream only%s%s", "", "");
	if (!rr && !stream && o->poll)
		return bad("--poll is for rr and stream only%s%s", "", "");
	if (stream ? o->req >= 0 || o->resp >= 0 || o->cpu >= 0 :
	    rr     ? o->size >= 0 || o->cpu >= 0 :
		     o->req >= 0 || o->resp >= 0 || o->server_cpu >= 0 || o->client_cpu >= 0)
		return bad("an option of another mode was given to %s%s", o->mode, "");
	return 0;
}

/* Sends all @n bytes; 0, or -1 (errno set; EPIPE when the peer closed). */
static int send_all(int fd, const char *p, size_t n, bool poll)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL | (poll ? MSG_DONTWAIT : 0));
		if (k < 0 &&
		    (errno == EINTR || (poll && (errno == EAGAIN || errno == EWOULDBLOCK))))
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Receives what came, up to @n bytes (the whole message, or a part), spinning without
 * sleeping when @poll: > 0 bytes, 0 the peer closed, -1 error (errno). */
static ssize_t recv_some(int fd, char *p, size_t n, bool poll)
{
	for (;;) {
		ssize_t k = recv(fd, p, n, poll ? MSG_DONTWAIT : 0);
		if (k >= 0 ||
		    !(errno == EINTR || (poll && (errno == EAGAIN || errno == EWOULDBLOCK))))
			return k;
	}
}

/* Receives exactly @n bytes, spinning without sleeping when @poll; 1 done, 0 the peer
 * closed first, -1 error (errno). */
static int recv_all(int fd, char *p, size_t n, bool poll)
{
	while (n) {
		ssize_t k = recv_some(fd, p, n, poll);
		if (k <= 0)
			return (int)k;
		p += k;
		n -= (size_t)k;
	}
	return 1;
}

/* The server thread's work and what it measured. */
struct server {
	const struct opts *o;
	int lfd;
	atomic_bool stop; /* stream --dir recv: the client's time is up */
	uint64_t bytes;   /* moved by the server */
	double cpu_s;     /* its CPU seconds from accept to the end */
	int err;          /* errno of a failed call, 0 */
};

static void *serve(void *arg)
{
	struct server *s = arg;
	const struct opts *o = s->o;
	int fd = accept(s->lfd, NULL, NULL);
	if (fd < 0) {
		s->err = errno;
		return NULL;
	}
	if ((s->err = pin(o->server_cpu))) { /* the client sees the close */
		close(fd);
		return NULL;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	size_t len = (size_t)(o->size > 0 ? o->size : (o->req > o->resp ? o->req : o->resp));
	char *buf = calloc(1, len);
	if (!buf) {
		s->err = ENOMEM;
		close(fd);
		return NULL;
	}
	double c0 = thread_cpu_s();
	if (!strcmp(o->mode, "stream") && !o->recv) {
		for (;;) {
			ssize_t k = recv_some(fd, buf, len, o->poll);
			if (k < 0)
				s->err = errno;
			if (k <= 0)
				break;
			s->bytes += (uint64_t)k;
		}
	} else if (!strcmp(o->mode, "stream")) {
		while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
			if (send_all(fd, buf, len, o->poll)) {
				s->err = errno;
				break;
			}
			s->bytes += len;
		}
		shutdown(fd, SHUT_WR);
	} else { /* rr */
		int r;
		while ((r = recv_all(fd, buf, (size_t)o->req, o->poll)) == 1) {
			if (send_all(fd, buf, (size_t)o->resp, o->poll)) {
				s->err = errno;
				break;
			}
			s->bytes += (uint64_t)(o->req + o->resp);
		}
		if (r < 0)
			s->err = errno;
	}
	s->cpu_s = thread_cpu_s() - c0;
	free(buf);
	close(fd);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "tcp-limit: %s: %s\n", what, strerror(err));
	return 1;
}

/* stream and rr: a server thread on 127.0.0.1, the client on the calling thread. */
static int run_tcp(const struct opts *o)
{
	struct server s = { .o = o, .lfd = socket(AF_INET, SOCK_STREAM, 0) };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	if (s.lfd < 0 || bind(s.lfd, (struct sockaddr *)&a, sizeof(a)) || listen(s.lfd, 1) ||
	    getsockname(s.lfd, (struct sockaddr *)&a, &alen))
		return fail("listening socket on 127.0.0.1", errno);
	int err = pin(o->client_cpu);
	if (err)
		return fail("pinning the client", err);
	pthread_t th;
	if ((err = pthread_create(&th, NULL, serve, &s)))
		return fail("server thread", err);
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		err = errno;
		shutdown(s.lfd, SHUT_RDWR);
		pthread_join(th, NULL);
		return fail("connecting to 127.0.0.1", err);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	bool stream = !strcmp(o->mode, "stream");
	size_t len = (size_t)(stream ? o->size : (o->req > o->resp ? o->req : o->resp));
	char *buf = calloc(1, len);
	size_t cap = 1 << 16, n = 0;
	double *rtt = stream ? NULL : malloc(cap * sizeof(*rtt));
	if (!buf || (!stream && !rtt))
		return fail("client buffers", ENOMEM);
	uint64_t bytes = 0;
	double t0 = now_s(), end = t0 + o->secs, t = t0, c0 = thread_cpu_s();
	if (stream && !o->recv) {
		while (t < end && !err) {
			if (send_all(fd, buf, len, o->poll))
				err = errno;
			bytes += len;
			t = now_s();
		}
		shutdown(fd, SHUT_WR);
		char c;
		while (recv(fd, &c, 1, 0) > 0) /* the server's close: all was read */
			;
		t = now_s();
	} else if (stream) {
		for (;;) {
			ssize_t k = recv_some(fd, buf, len, o->poll);
			if (k < 0)
				err = errno;
			if (k <= 0)
				break;
			bytes += (uint64_t)k;
			if (now_s() >= end)
				atomic_store(&s.stop, true);
		}
		t = now_s();
	} else {
		while (t < end) {
			if (send_all(fd, buf, (size_t)o->req, o->poll) ||
			    recv_all(fd, buf, (size_t)o->resp, o->poll) != 1) {
				err = errno ? errno : ECONNRESET;
				break;
			}
			double t1 = now_s();
			if (n == cap) {
				double *g = realloc(rtt, 2 * cap * sizeof(*rtt));
				if (!g) {
					err = ENOMEM;
					break;
				}
				rtt = g;
				cap *= 2;
			}
			rtt[n++] = (t1 - t) * 1e6;
			t = t1;
		}
		shutdown(fd, SHUT_WR);
	}
	double client_cpu = thread_cpu_s() - c0;
	if (err) { /* a server blocked in send or recv must see the end, not wait forever */
		atomic_store(&s.stop, true);
		shutdown(fd, SHUT_RDWR);
	}
	pthread_join(th, NULL);
	close(fd);
	close(s.lfd);
	free(buf);
	if (err || s.err) {
		free(rtt);
		return fail(stream ? "stream" : "round trip", err ? err : s.err);
	}
	double el = t - t0;
	if (stream) {
		uint64_t moved = o->recv ? bytes : s.bytes;
		printf("{\"mode\": \"stream\", \"poll\": %s, \"dir\": \"%s\", \"size\": %ld, \"secs\": %.3f, "
		       "\"mbps\": %.1f, \"msgs_per_s\": %.0f, \"server_cpu_s\": %.3f, "
		       "\"server_cpu_s_per_gb\": %.3f, \"client_cpu_s\": %.3f}\n",
		       o->poll ? "true" : "false", o->recv ? "recv" : "send", o->size, el,
		       (double)moved / el / 1e6, (double)moved / (double)o->size / el, s.cpu_s,
		       moved ? s.cpu_s / ((double)moved / 1e9) : 0, client_cpu);
	} else {
		if (!n) {
			free(rtt);
			return fail("round trip", ETIMEDOUT);
		}
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += rtt[i];
		qsort(rtt, n, sizeof(*rtt), cmp_double);
		printf("{\"mode\": \"rr\", \"poll\": %s, \"req\": %ld, \"resp\": %ld, \"secs\": %.3f, "
		       "\"round_trips\": %zu, \"rt_per_s\": %.0f, \"mean_us\": %.2f, "
		       "\"p50_us\": %.2f, \"p99_us\": %.2f, \"server_cpu_us_per_rt\": %.3f}\n",
		       o->poll ? "true" : "false", o->req, o->resp, el, n, (double)n / el,
		       sum / (double)n, rtt[n / 2], rtt[(size_t)((double)n * 0.99)],
		       s.cpu_s * 1e6 / (double)n);
	}
	free(rtt);
	return 0;
}

/* memcpy: BYTES blocks walked through a 256 MiB source into one destination block. */
static int run_memcpy(const struct opts *o)
{
	int err = pin(o->cpu);
	if (err)
		return fail("pinning", err);
	size_t len = (size_t)o->size, src_len = SRC_BYTES < len ? len : SRC_BYTES;
	char *src = malloc(src_len), *dst = malloc(len);
	if (!src || !dst)
		return fail("buffers", ENOMEM);
	memset(src, 1, src_len); /* every page present before the clock starts */
	memset(dst, 0, len);
	uint64_t bytes = 0;
	size_t off = 0;
	double t0 = now_s(), end = t0 + o->secs, t = t0;
	while (t < end) {
		for (int i = 0; i < 16; i++) {
			if (off + len > src_len)
				off = 0;
			memcpy(dst, src + off, len);
			__asm__ volatile("" : : "r"(dst) : "memory"); /* the copy is kept */
			off += len;
			bytes += len;
		}
		t = now_s();
	}
	printf("{\"mode\": \"memcpy\", \"size\": %ld, \"secs\": %.3f, \"mbps\": %.1f}\n", o->size,
	       t - t0, (double)bytes / (t - t0) / 1e6);
	free(src);
	free(dst);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	return !strcmp(o.mode, "memcpy") ? run_memcpy(&o) : run_tcp(&o);
}
