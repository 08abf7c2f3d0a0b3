/* The control socket's server (control/rpc-server.c) on a real Unix socket: answers one
 * line per request, streams split and joined, several clients, mode 0600, a stale socket
 * removed, a live one or a non-socket refused, oversized requests, stop. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <signal.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control/rpc-server.h"
#include "tests/unit/suites.h"

struct env {
	char dir[64], path[96];
	struct nvmf_rpc_server srv;
	unsigned runs; /* calls that went through the run hook */
};

static void m_echo(void *ctx, struct nvmf_rpc_call *call)
{
	(void)ctx;
	nvmf_rpc_result(call, json_deep_copy(call->params));
}

static const struct nvmf_rpc_method methods[] = {
	{ "echo", m_echo, NULL }, /* its parameters back */
	{ NULL, NULL, NULL },
};

static void run_hook(void *run_ctx, void (*fn)(void *), void *arg)
{
	struct env *e = run_ctx;
	e->runs++;
	fn(arg);
}

static void env_start(struct env *e)
{
	memset(e, 0, sizeof(*e));
	strcpy(e->dir, "/tmp/nvmf-rpc-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(e->dir));
	snprintf(e->path, sizeof(e->path), "%s/ctl.sock", e->dir);
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_rpc_server_start(&e->srv, e->path, methods, NULL, run_hook, e,
						    err, sizeof(err)),
			      0);
}

static void env_stop(struct env *e)
{
	nvmf_rpc_server_stop(&e->srv);
	CU_ASSERT_EQUAL(access(e->path, F_OK), -1); /* the socket file is gone */
	rmdir(e->dir);
}

static int client(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void put(int fd, const char *s)
{
	CU_ASSERT_EQUAL((size_t)write(fd, s, strlen(s)), strlen(s));
}

/* One response line (without '\n') within 5 s, in @out; returns its length or -1 on EOF
 * or timeout. */
static int get_line(int fd, char *out, size_t cap)
{
	size_t n = 0;
	while (n + 1 < cap) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 5000) != 1)
			return -1;
		ssize_t r = read(fd, out + n, 1);
		if (r <= 0)
			return -1;
		if (out[n] == '\n') {
			out[n] = 0;
			return (int)n;
		}
		n++;
	}
	return -1;
}

#define ECHO(id, v) \
	"{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"v\":" #v "},\"id\":" #id "}"

static void each_request_gets_one_line_and_the_socket_is_0600(void)
{
	struct env e;
	env_start(&e);
	struct stat st;
	CU_ASSERT_EQUAL(lstat(e.path, &st), 0);
	CU_ASSERT_TRUE(S_ISSOCK(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(st.st_uid, geteuid());
	int fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	char line[512];
	put(fd, ECHO(1, 5));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_STRING_EQUAL(line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"v\":5}}");
	CU_ASSERT_EQUAL(e.runs, 1);
	close(fd);
	env_stop(&e);
}

static void joined_and_split_requests_are_answered_in_order(void)
{
	struct env e;
	env_start(&e);
	int fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	char line[512];
	/* two in one write, whitespace and a notification between them */
	put(fd, ECHO(1, 10) "\n  {\"jsonrpc\":\"2.0\",\"method\":\"echo\"}" ECHO(2, 20));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"id\":1,\"result\":{\"v\":10}"));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"id\":2,\"result\":{\"v\":20}"));
	/* one request in three writes, answered once complete */
	put(fd, "{\"jsonrpc\":\"2.0\",\"met");
	usleep(20000);
	put(fd, "hod\":\"echo\",\"params\":{\"v\":");
	usleep(20000);
	put(fd, "30},\"id\":3}");
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"id\":3,\"result\":{\"v\":30}"));
	/* garbage: -32700, then the connection is closed (the stream cannot be resynchronised) */
	put(fd, "{]\n" ECHO(4, 40));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"code\":-32700"));
	CU_ASSERT_EQUAL(get_line(fd, line, sizeof(line)), -1);
	CU_ASSERT_EQUAL(e.runs, 5); /* the notification ran too; request 4 never did */
	close(fd);
	env_stop(&e);
}

static void several_clients_are_served_at_once(void)
{
	struct env e;
	env_start(&e);
	int a = client(e.path), b = client(e.path);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	char line[512];
	put(a, "{\"jsonrpc\":\"2.0\",\"method\":\"echo\","); /* a stays incomplete */
	put(b, ECHO(7, 70));
	CU_ASSERT(get_line(b, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"id\":7,"));
	put(a, "\"id\":8}");
	CU_ASSERT(get_line(a, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"id\":8,\"result\":{}"));
	close(a);
	close(b);
	env_stop(&e);
}

static void stale_socket_is_replaced_live_one_and_other_files_refused(void)
{
	struct env e;
	env_start(&e);
	char err[256] = "";
	struct nvmf_rpc_server second;
	/* live: refused, and the first one still serves */
	CU_ASSERT_EQUAL(nvmf_rpc_server_start(&second, e.path, methods, NULL, NULL, NULL, err,
					      sizeof(err)),
			-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "a running target answers there"));
	int fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	char line[512];
	put(fd, ECHO(1, 1));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	close(fd);
	env_stop(&e);

	/* stale: a socket nobody listens on (bound, closed, left behind) */
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(strcpy(e.dir, "/tmp/nvmf-rpc-XXXXXX")));
	snprintf(e.path, sizeof(e.path), "%s/ctl.sock", e.dir);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", e.path);
	CU_ASSERT_EQUAL_FATAL(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(s);
	CU_ASSERT_EQUAL(nvmf_rpc_server_start(&e.srv, e.path, methods, NULL, NULL, NULL, err,
					      sizeof(err)),
			0);
	fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	put(fd, ECHO(2, 2));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"id\":2,"));
	close(fd);
	env_stop(&e);

	/* a regular file: refused and left as it was */
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(strcpy(e.dir, "/tmp/nvmf-rpc-XXXXXX")));
	snprintf(e.path, sizeof(e.path), "%s/ctl.sock", e.dir);
	FILE *f = fopen(e.path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("keep me", f);
	fclose(f);
	CU_ASSERT_EQUAL(nvmf_rpc_server_start(&e.srv, e.path, methods, NULL, NULL, NULL, err,
					      sizeof(err)),
			-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "exists and is not a socket"));
	struct stat st;
	CU_ASSERT_EQUAL(stat(e.path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 7);
	unlink(e.path);
	/* a path longer than sun_path */
	char longp[200];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = 0;
	CU_ASSERT_EQUAL(nvmf_rpc_server_start(&e.srv, longp, methods, NULL, NULL, NULL, err,
					      sizeof(err)),
			-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "the path must be 1 to 107 bytes"));
	CU_ASSERT_EQUAL(nvmf_rpc_server_start(&e.srv, "/nonexistent-dir/x.sock", methods, NULL,
					      NULL, NULL, err, sizeof(err)),
			-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bind"));
	rmdir(e.dir);
}

static void oversized_request_is_refused_and_the_connection_closed(void)
{
	struct env e;
	env_start(&e);
	int fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	/* a string that never ends, a little over the limit */
	size_t n = NVMF_RPC_MAX_REQUEST + 8192;
	char *big = malloc(n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memset(big, 'x', n);
	memcpy(big, "{\"jsonrpc\":\"2.0\",\"method\":\"", 27);
	big[n] = 0;
	size_t off = 0;
	while (off < n) {
		ssize_t w = send(fd, big + off, n - off, MSG_NOSIGNAL);
		if (w <= 0)
			break; /* the server may close before we are done */
		off += (size_t)w;
	}
	free(big);
	char line[512];
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"code\":-32600"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "longer than 1048576 bytes"));
	CU_ASSERT_EQUAL(get_line(fd, line, sizeof(line)), -1); /* then EOF */
	close(fd);
	/* the server goes on */
	fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	put(fd, ECHO(9, 9));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	close(fd);
	env_stop(&e);
	CU_ASSERT_EQUAL(client(e.path), -1);
}

static void client_past_the_limit_is_told_and_closed(void)
{
	struct env e;
	env_start(&e);
	int fds[NVMF_RPC_MAX_CLIENTS];
	char line[512];
	for (unsigned i = 0; i < NVMF_RPC_MAX_CLIENTS; i++) {
		fds[i] = client(e.path);
		CU_ASSERT_FATAL(fds[i] >= 0);
		put(fds[i], ECHO(1, 1)); /* answered: the server has taken this client */
		CU_ASSERT(get_line(fds[i], line, sizeof(line)) > 0);
	}
	int extra = client(e.path);
	CU_ASSERT_FATAL(extra >= 0);
	CU_ASSERT(get_line(extra, line, sizeof(line)) > 0);
	CU_ASSERT_STRING_EQUAL(line, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32003,"
				     "\"message\":\"too many clients (16); try again later\"}}");
	CU_ASSERT_EQUAL(get_line(extra, line, sizeof(line)), -1); /* then EOF */
	close(extra);
	/* a slot freed is a slot for the next one */
	close(fds[0]);
	usleep(50000);
	fds[0] = client(e.path);
	CU_ASSERT_FATAL(fds[0] >= 0);
	put(fds[0], ECHO(2, 2));
	CU_ASSERT(get_line(fds[0], line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"id\":2,"));
	for (unsigned i = 0; i < NVMF_RPC_MAX_CLIENTS; i++)
		close(fds[i]);
	CU_ASSERT_EQUAL(e.srv.refused, 1);
	env_stop(&e);
}

/* Another user's connection is closed unanswered (SO_PEERCRED), even past the file mode.
 * As root (CI), a child of uid 65534 connects; as another user, the server is told it
 * belongs to a different uid, so this test's own connection is the stranger's. */
static void connection_of_another_user_is_refused(void)
{
	struct env e;
	env_start(&e);
	CU_ASSERT_EQUAL(chmod(e.dir, 0755), 0);
	CU_ASSERT_EQUAL(chmod(e.path, 0666), 0); /* only the peer check stands in the way */
	if (geteuid() == 0) {
		pid_t pid = fork();
		CU_ASSERT_FATAL(pid >= 0);
		if (pid == 0) {
			/* The server may close before the write: EPIPE, not death by SIGPIPE. */
			signal(SIGPIPE, SIG_IGN);
			if (setgid(65534) || setuid(65534))
				_exit(2);
			int fd = client(e.path);
			if (fd < 0)
				_exit(3);
			char line[256];
			(void)!write(fd, ECHO(1, 1), strlen(ECHO(1, 1)));
			_exit(get_line(fd, line, sizeof(line)) < 0 ? 0 :
								     1); /* 0: closed, no answer */
		}
		int status = -1;
		CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
		CU_ASSERT_TRUE(WIFEXITED(status));
		CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	} else {
		__atomic_store_n(&e.srv.uid, geteuid() + 1, __ATOMIC_RELEASE);
		int fd = client(e.path);
		CU_ASSERT_FATAL(fd >= 0);
		char line[256];
		put(fd, ECHO(1, 1));
		CU_ASSERT_EQUAL(get_line(fd, line, sizeof(line)), -1);
		close(fd);
	}
	CU_ASSERT_EQUAL(e.runs, 0);
	CU_ASSERT_EQUAL(__atomic_load_n(&e.srv.refused, __ATOMIC_ACQUIRE), 1);
	env_stop(&e);
}

/* A client that ends its stream inside a request is told; one that stays silent past
 * the idle time is told and closed; a request arriving one byte at a time is answered
 * once, when complete. */
static void half_requests_and_idle_clients_are_told_and_closed(void)
{
	struct env e;
	env_start(&e);
	char line[512];
	int fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	put(fd, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"");
	CU_ASSERT_EQUAL(shutdown(fd, SHUT_WR), 0);
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_STRING_EQUAL(
		line, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
		      "\"message\":\"the stream ended inside a request (it is incomplete)\"}}");
	CU_ASSERT_EQUAL(get_line(fd, line, sizeof(line)), -1);
	close(fd);
	/* Byte by byte, a string holding braces included. */
	fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	const char *req =
		"{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"v\":\"}]{\\\"\"},\"id\":2}";
	for (const char *p = req; *p; p++)
		CU_ASSERT_EQUAL(write(fd, p, 1), 1);
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_STRING_EQUAL(line,
			       "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"v\":\"}]{\\\"\"}}");
	CU_ASSERT_EQUAL(e.runs, 1);
	/* Idle: told and closed (the limit shortened for the test). */
	__atomic_store_n(&e.srv.idle_ms, 300, __ATOMIC_RELEASE);
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "idle for 0 s; connection closed"));
	CU_ASSERT_EQUAL(get_line(fd, line, sizeof(line)), -1);
	close(fd);
	env_stop(&e);
}

/* A NUL byte, which no JSON holds, is answered -32700 naming it at once (not waited on
 * as the end of the input), with or without the rest of a request after it; the
 * connection is closed after the answer and the next client is served. */
static void nul_byte_is_a_parse_error_answered_at_once(void)
{
	struct env e;
	env_start(&e);
	char line[512];
	static const struct {
		const char *bytes;
		size_t len;
		const char *offset;
	} cases[] = {
		{ "{\"a\":\0}\n", 8, "offset 5" }, /* printf '{"a":\0}\n' */
		{ "{\"a\":\0", 6, "offset 5" },    /* nothing after it */
		{ "\0", 1, "offset 0" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = client(e.path);
		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(write(fd, cases[i].bytes, cases[i].len), (ssize_t)cases[i].len);
		CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"code\":-32700"));
		CU_ASSERT_PTR_NOT_NULL(strstr(line, "a NUL byte at"));
		CU_ASSERT_PTR_NOT_NULL(strstr(line, cases[i].offset));
		CU_ASSERT_EQUAL(get_line(fd, line, sizeof(line)), -1);
		close(fd);
	}
	/* A request answered before the NUL keeps its answer. */
	int fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	const char both[] = ECHO(1, 1) "\0";
	CU_ASSERT_EQUAL(write(fd, both, sizeof(both)), (ssize_t)sizeof(both));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_STRING_EQUAL(line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"v\":1}}");
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"code\":-32700"));
	close(fd);
	/* The next client is served as before. */
	fd = client(e.path);
	CU_ASSERT_FATAL(fd >= 0);
	put(fd, ECHO(2, 7));
	CU_ASSERT(get_line(fd, line, sizeof(line)) > 0);
	CU_ASSERT_STRING_EQUAL(line, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"v\":7}}");
	close(fd);
	env_stop(&e);
}

const struct unit_test rpc_server_tests[] = {
	{ "nul_byte_is_a_parse_error_answered_at_once",
	  nul_byte_is_a_parse_error_answered_at_once },
	{ "half_requests_and_idle_clients_are_told_and_closed",
	  half_requests_and_idle_clients_are_told_and_closed },
	{ "connection_of_another_user_is_refused", connection_of_another_user_is_refused },
	{ "each_request_gets_one_line_and_the_socket_is_0600",
	  each_request_gets_one_line_and_the_socket_is_0600 },
	{ "joined_and_split_requests_are_answered_in_order",
	  joined_and_split_requests_are_answered_in_order },
	{ "several_clients_are_served_at_once", several_clients_are_served_at_once },
	{ "stale_socket_is_replaced_live_one_and_other_files_refused",
	  stale_socket_is_replaced_live_one_and_other_files_refused },
	{ "oversized_request_is_refused_and_the_connection_closed",
	  oversized_request_is_refused_and_the_connection_closed },
	{ "client_past_the_limit_is_told_and_closed", client_past_the_limit_is_told_and_closed },
	{ NULL, NULL },
};
