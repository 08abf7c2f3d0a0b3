// SPDX-License-Identifier: MIT
/* One JSON-RPC exchange on the control socket: connect, send the request, read the first
 * answer line (the server answers each request with one line, control/rpc-server.h). One
 * deadline covers the whole exchange so a stuck target cannot hang a script. A server
 * that refuses a client (too many) writes its error and closes without reading: the
 * send then fails, but the error is still there to read. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "app/nvmf-targetctl/targetctl.h"
#include "util/clock.h"
#include "util/deadline.h"

/* An answer longer than this is not one the target would send. */
#define MAX_ANSWER (64u << 20)

/* Wait for @events on @fd until @deadline (ms, -1: none). 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		int ms = deadline >= 0 ? nvmf_deadline_left_ms(deadline) : -1;
		struct pollfd p = { .fd = fd, .events = events };
		int n = poll(&p, 1, ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 && deadline >= 0 && (int64_t)nvmf_mono_ms() < deadline)
			continue; /* poll's longest wait ran out, not the deadline */
		return n < 0 ? -1 : n > 0;
	}
}

/* Send @len bytes of @p. TCTL_CLIENT_OK; TCTL_CLIENT_FAILED with @err; *closed set when
 * the failure is the peer's close (EPIPE, ECONNRESET), after which an answer it wrote
 * before closing may still be read. */
static enum tctl_client_rc send_request(int fd, const char *p, size_t len, int64_t deadline,
					bool *closed, char *err, size_t errlen)
{
	*closed = false;
	while (len) {
		int w = wait_fd(fd, POLLOUT, deadline);
		if (w <= 0) {
			snprintf(err, errlen, "send: %s", w ? strerror(errno) : "timed out");
			return TCTL_CLIENT_FAILED;
		}
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			*closed = errno == EPIPE || errno == ECONNRESET;
			snprintf(err, errlen, "send: %s", strerror(errno));
			return TCTL_CLIENT_FAILED;
		}
		p += n;
		len -= (size_t)n;
	}
	return TCTL_CLIENT_OK;
}

/* The @len bytes in @buf (room for a NUL after them) read before the peer closed: the
 * answer if they are one whole JSON value (a last line without its '\n'). */
static bool complete_at_close(char *buf, size_t len)
{
	if (!len)
		return false;
	buf[len] = 0;
	json_t *v = json_loadb(buf, len, 0, NULL);
	json_decref(v);
	return v != NULL;
}

/* Read up to the first '\n' (or to the peer's close after a whole JSON value) into a
 * malloc'ed *answer without the '\n'. */
static enum tctl_client_rc read_line(int fd, int64_t deadline, unsigned timeout_s, char **answer,
				     char *err, size_t errlen)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *b = cap < MAX_ANSWER ? realloc(buf, cap ? cap * 2 : 8192) : NULL;
			if (!b) {
				snprintf(err, errlen,
					 cap < MAX_ANSWER ? "out of memory" :
							    "the answer is longer than %u bytes",
					 MAX_ANSWER);
				break;
			}
			buf = b;
			cap = cap ? cap * 2 : 8192;
		}
		int w = wait_fd(fd, POLLIN, deadline);
		if (w <= 0) {
			if (w)
				snprintf(err, errlen, "poll: %s", strerror(errno));
			else
				snprintf(err, errlen, "no answer within %u s (--timeout SECS)",
					 timeout_s);
			break;
		}
		ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* A close with our request unread shows as ECONNRESET once its data is read. */
		bool closed = !n || (n < 0 && errno == ECONNRESET);
		if (closed && complete_at_close(buf, len)) {
			*answer = buf;
			return TCTL_CLIENT_OK;
		}
		if (n <= 0) {
			if (closed)
				snprintf(err, errlen, "the target closed the connection %s",
					 len ? "in the middle of its answer" : "without answering");
			else
				snprintf(err, errlen, "recv: %s", strerror(errno));
			break;
		}
		char *nl = memchr(buf + len, '\n', (size_t)n);
		len += (size_t)n;
		if (nl) {
			*nl = 0;
			*answer = buf;
			return TCTL_CLIENT_OK;
		}
	}
	free(buf);
	return TCTL_CLIENT_FAILED;
}

enum tctl_client_rc tctl_client_call(const char *path, unsigned timeout_s, const char *request,
				     size_t len, char **answer, char *err, size_t errlen)
{
	*answer = NULL;
	int64_t deadline = timeout_s ? (int64_t)nvmf_mono_ms() + (int64_t)timeout_s * 1000 : -1;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s", strerror(ENAMETOOLONG));
		return TCTL_CLIENT_NOCONN;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	/* Non-blocking: connect() to a server whose backlog is full would block forever. */
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(err, errlen, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return TCTL_CLIENT_NOCONN;
	}
	bool closed;
	enum tctl_client_rc rc = send_request(fd, request, len, deadline, &closed, err, errlen);
	if (rc == TCTL_CLIENT_OK) {
		rc = read_line(fd, deadline, timeout_s, answer, err, errlen);
	} else if (closed) {
		/* What the server said before closing explains the failed send better; with
		 * nothing to read, the send's error stands. */
		char why[256];
		if (read_line(fd, deadline, timeout_s, answer, why, sizeof(why)) == TCTL_CLIENT_OK)
			rc = TCTL_CLIENT_OK;
	}
	close(fd);
	return rc;
}
