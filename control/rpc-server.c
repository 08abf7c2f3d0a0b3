// SPDX-License-Identifier: MIT
/* The control socket's server (see rpc-server.h): one thread, poll() over the listening
 * socket, a stop eventfd and the clients. It knows no target (the CLI's tests serve with
 * it too), so its own two failures go to stderr directly, in the target log's format
 * (component control, target/log.h). */
#include "control/rpc-server.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "util/clock.h"
#include "util/log.h"

#define SEND_TIMEOUT_S 5 /* a client that does not read its answers is dropped */

static void client_close(struct nvmf_rpc_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->buf) /* requests may have carried secrets (host_dhchap_set) */
		explicit_bzero(c->buf, c->cap);
	free(c->buf);
	*c = (struct nvmf_rpc_client){ .fd = -1 };
}

/* Whole @len bytes, or false (the client is then closed by the caller). */
static bool send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool send_line(int fd, char *resp)
{
	bool ok = send_all(fd, resp, strlen(resp)) && send_all(fd, "\n", 1);
	free(resp);
	return ok;
}

/* One request, on the owner's thread through srv->run: a parsed value, or the bytes of
 * one that is not JSON (for its -32700 answer). */
struct job {
	struct nvmf_rpc_server *srv;
	json_t *req;
	const char *text;
	size_t len;
	char *resp;
};

static void job_run(void *arg)
{
	struct job *j = arg;
	const struct nvmf_rpc_server *srv = j->srv;
	j->resp = j->req ? nvmf_rpc_answer(srv->methods, srv->ctx, j->req) :
			   nvmf_rpc_handle(srv->methods, srv->ctx, j->text, j->len);
}

static char *dispatch(struct nvmf_rpc_server *srv, struct job *j)
{
	j->srv = srv;
	if (srv->run)
		srv->run(srv->run_ctx, job_run, j);
	else
		job_run(j);
	srv->calls++;
	return j->resp;
}

/* Is there, from byte @off on, a whole object or array (or something else, which the
 * framer judges)? Scans only bytes not looked at before. */
static bool may_be_complete(struct nvmf_rpc_client *c, size_t off)
{
	if (c->scanned < off)
		c->scanned = off;
	for (; c->scanned < c->len; c->scanned++) {
		char ch = c->buf[c->scanned];
		if (ch == '\0')
			return true; /* never JSON, wherever it is: the framer refuses it now */
		if (!c->started) {
			if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')
				continue;
			if (ch != '{' && ch != '[')
				return true; /* a scalar or garbage: the framer says */
			c->started = true;
			c->depth = 1;
		} else if (c->in_str) {
			if (c->esc)
				c->esc = false;
			else if (ch == '\\')
				c->esc = true;
			else if (ch == '"')
				c->in_str = false;
		} else if (ch == '"') {
			c->in_str = true;
		} else if (ch == '{' || ch == '[') {
			c->depth++;
		} else if ((ch == '}' || ch == ']') && --c->depth == 0) {
			c->scanned++;
			return true;
		}
	}
	return false;
}

static void scan_reset(struct nvmf_rpc_client *c, size_t at)
{
	c->scanned = at;
	c->depth = 0;
	c->started = c->in_str = c->esc = false;
}

/* Answer every complete request in @c's buffer. False: close the client. */
static bool client_serve(struct nvmf_rpc_server *srv, struct nvmf_rpc_client *c)
{
	size_t off = 0;
	bool ok = true;
	while (ok && off < c->len && may_be_complete(c, off)) {
		struct job j = { .text = c->buf + off };
		enum nvmf_rpc_frame f = nvmf_rpc_frame(j.text, c->len - off, &j.len, &j.req);
		if (f == NVMF_RPC_FRAME_MORE)
			break;
		char *resp = dispatch(srv, &j);
		if (resp)
			ok = send_line(c->fd, resp);
		off += j.len;
		scan_reset(c, off);
		/* Not JSON: where the next request would start is unknowable. */
		if (f == NVMF_RPC_FRAME_BAD)
			ok = false;
	}
	memmove(c->buf, c->buf + off, c->len - off);
	explicit_bzero(c->buf + c->len - off, off); /* what was answered: it may hold secrets */
	c->len -= off;
	c->scanned -= off < c->scanned ? off : c->scanned;
	if (ok && c->len > NVMF_RPC_MAX_REQUEST) {
		char msg[96];
		snprintf(msg, sizeof(msg), "request: longer than %u bytes; connection closed",
			 NVMF_RPC_MAX_REQUEST);
		char *resp = nvmf_rpc_error_text(NVMF_RPC_INVALID_REQUEST, msg);
		if (resp)
			send_line(c->fd, resp);
		return false;
	}
	return ok;
}

static bool client_read(struct nvmf_rpc_server *srv, struct nvmf_rpc_client *c)
{
	if (c->cap - c->len < 4096) {
		size_t cap = c->cap ? c->cap * 2 : 8192;
		char *b = realloc(c->buf, cap + 1);
		if (!b)
			return false;
		c->buf = b;
		c->cap = cap;
	}
	ssize_t n = read(c->fd, c->buf + c->len, c->cap - c->len);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n == 0) {
		/* The client is done sending: say so if it left half a request. */
		size_t i = 0;
		while (i < c->len && c->buf[i] && strchr(" \t\r\n", c->buf[i])) /* not NUL */
			i++;
		if (i < c->len) {
			char *resp = nvmf_rpc_error_text(NVMF_RPC_PARSE_ERROR,
							 "the stream ended inside a "
							 "request (it is incomplete)");
			if (resp)
				send_line(c->fd, resp);
		}
		return false;
	}
	if (n < 0)
		return false;
	c->len += (size_t)n;
	c->last_ms = nvmf_mono_ms();
	return client_serve(srv, c);
}

static void accept_one(struct nvmf_rpc_server *srv)
{
	int fd = accept4(srv->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	/* The socket is 0600, but it exists for a moment before the chmod: check the peer. */
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    (cred.uid != srv->uid && cred.uid)) {
		srv->refused++;
		close(fd);
		return;
	}
	struct timeval tv = { .tv_sec = SEND_TIMEOUT_S };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (unsigned i = 0; i < NVMF_RPC_MAX_CLIENTS; i++) {
		if (srv->clients[i].fd < 0) {
			srv->clients[i].fd = fd;
			srv->clients[i].last_ms = nvmf_mono_ms();
			scan_reset(&srv->clients[i], 0);
			return;
		}
	}
	char msg[64];
	snprintf(msg, sizeof(msg), "too many clients (%u); try again later", NVMF_RPC_MAX_CLIENTS);
	char *resp = nvmf_rpc_error_text(NVMF_RPC_REFUSED, msg);
	if (resp)
		send_line(fd, resp);
	srv->refused++;
	close(fd);
}

static void *serve(struct nvmf_rpc_server *srv);

static void *server_thread(void *arg)
{
	struct nvmf_rpc_server *srv = arg;
	void *r = serve(srv);
	__atomic_store_n(&srv->exited, true, __ATOMIC_RELEASE);
	return r;
}

static void *serve(struct nvmf_rpc_server *srv)
{
	struct pollfd pfd[2 + NVMF_RPC_MAX_CLIENTS];
	for (;;) {
		unsigned n = 0, who[NVMF_RPC_MAX_CLIENTS];
		pfd[n++] = (struct pollfd){ .fd = srv->stop_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = srv->lfd, .events = POLLIN };
		for (unsigned i = 0; i < NVMF_RPC_MAX_CLIENTS; i++) {
			if (srv->clients[i].fd >= 0) {
				who[n - 2] = i;
				pfd[n++] = (struct pollfd){ .fd = srv->clients[i].fd,
							    .events = POLLIN };
			}
		}
		if (poll(pfd, n, n > 2 ? 1000 : -1) < 0) {
			if (errno == EINTR)
				continue;
			/* No target here: errors are written at every level. */
			nvmf_logger_write(NULL, NVMF_LOGC_CONTROL, NVMF_LOG_ERROR,
					  "control socket %s: poll: %s", srv->path,
					  strerror(errno));
			return NULL;
		}
		if (pfd[0].revents)
			return NULL;
		uint64_t now = nvmf_mono_ms();
		for (unsigned k = 2; k < n; k++) {
			struct nvmf_rpc_client *c = &srv->clients[who[k - 2]];
			if (pfd[k].revents) {
				if (!client_read(srv, c))
					client_close(c);
			} else if (now - c->last_ms >
				   __atomic_load_n(&srv->idle_ms, __ATOMIC_ACQUIRE)) {
				char msg[64];
				snprintf(msg, sizeof(msg), "idle for %u s; connection closed",
					 __atomic_load_n(&srv->idle_ms, __ATOMIC_ACQUIRE) / 1000);
				char *resp = nvmf_rpc_error_text(NVMF_RPC_REFUSED, msg);
				if (resp)
					send_line(c->fd, resp);
				client_close(c);
			}
		}
		if (pfd[1].revents & POLLIN)
			accept_one(srv);
	}
}

/* The address of @path (shorter than sun_path: checked by nvmf_rpc_server_start). */
static struct sockaddr_un sun_of(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, path, strlen(path) + 1);
	return sa;
}

/* Is a server answering on @path? Removes a dead one's socket. 0 = free now. */
static int claim_path(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "control socket %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen,
			 "control socket %s: exists and is not a socket; not touching it", path);
		return -1;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "control socket %s: socket: %s", path, strerror(errno));
		return -1;
	}
	struct sockaddr_un sa = sun_of(path);
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	int e = errno;
	close(fd);
	if (!rc) {
		snprintf(err, errlen,
			 "control socket %s: a running target answers there "
			 "(another nvmf-target? choose another path)",
			 path);
		return -1;
	}
	if (e != ECONNREFUSED) {
		snprintf(err, errlen, "control socket %s: %s", path, strerror(e));
		return -1;
	}
	/* Nobody listens: left by a target that died. */
	if (unlink(path) && errno != ENOENT) {
		snprintf(err, errlen, "control socket %s: stale, cannot remove: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int nvmf_rpc_server_start(struct nvmf_rpc_server *srv, const char *path,
			  const struct nvmf_rpc_method *methods, void *ctx, nvmf_rpc_run_fn run,
			  void *run_ctx, char *err, size_t errlen)
{
	*srv = (struct nvmf_rpc_server){ .lfd = -1,
					 .stop_fd = -1,
					 .uid = geteuid(),
					 .idle_ms = NVMF_RPC_IDLE_MS,
					 .methods = methods,
					 .ctx = ctx,
					 .run = run,
					 .run_ctx = run_ctx };
	for (unsigned i = 0; i < NVMF_RPC_MAX_CLIENTS; i++)
		srv->clients[i].fd = -1;
	size_t len = strlen(path);
	if (!len || len >= sizeof(srv->path)) {
		snprintf(err, errlen, "control socket %s: the path must be 1 to %zu bytes", path,
			 sizeof(srv->path) - 1);
		return -1;
	}
	memcpy(srv->path, path, len + 1);
	if (claim_path(path, err, errlen))
		return -1;
	struct sockaddr_un sa = sun_of(path);
	srv->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	srv->stop_fd = eventfd(0, EFD_CLOEXEC);
	const char *step = "socket";
	if (srv->lfd < 0 || srv->stop_fd < 0)
		goto fail;
	step = "bind";
	if (bind(srv->lfd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	step = "chmod 0600";
	if (chmod(path, 0600))
		goto fail_unlink;
	step = "listen";
	if (listen(srv->lfd, NVMF_RPC_MAX_CLIENTS))
		goto fail_unlink;
	int rc = pthread_create(&srv->thread, NULL, server_thread, srv);
	if (rc) {
		errno = rc;
		step = "thread";
		goto fail_unlink;
	}
	srv->started = true;
	return 0;
fail_unlink:;
	int e = errno;
	unlink(path);
	errno = e;
fail:
	snprintf(err, errlen, "control socket %s: %s: %s", path, step, strerror(errno));
	if (srv->lfd >= 0)
		close(srv->lfd);
	if (srv->stop_fd >= 0)
		close(srv->stop_fd);
	srv->lfd = srv->stop_fd = -1;
	return -1;
}

void nvmf_rpc_server_stop(struct nvmf_rpc_server *srv)
{
	nvmf_rpc_server_stop_pumping(srv, NULL, NULL);
}

void nvmf_rpc_server_stop_pumping(struct nvmf_rpc_server *srv, void (*pump)(void *arg), void *arg)
{
	if (!srv->started)
		return;
	uint64_t one = 1;
	if (write(srv->stop_fd, &one, sizeof(one)) != sizeof(one))
		nvmf_logger_write(NULL, NVMF_LOGC_CONTROL, NVMF_LOG_ERROR,
				  "control socket %s: cannot wake its thread", srv->path);
	while (pump && !__atomic_load_n(&srv->exited, __ATOMIC_ACQUIRE))
		pump(arg);
	pthread_join(srv->thread, NULL);
	for (unsigned i = 0; i < NVMF_RPC_MAX_CLIENTS; i++)
		client_close(&srv->clients[i]);
	close(srv->lfd);
	close(srv->stop_fd);
	unlink(srv->path);
	srv->lfd = srv->stop_fd = -1;
	srv->started = false;
}
