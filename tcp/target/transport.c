/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/TCP target transport object: listening sockets (one per port, IPv4 or IPv6,
 * non-blocking, in the main group's epoll set), accepted connections until the core can
 * place them, discovery log entries, and the ops table the core sees.
 *
 * A connection's queue id is only known from the Fabrics Connect in its first
 * CapsuleCmd (TCP transport 1.0 section 3.3: one connection per queue, no id in ICReq).
 * So the main group reads the ICReq, answers it and waits for that capsule's whole PDU;
 * then the connection leaves the main group's epoll set and nvmf_tgt_new_queue() places
 * it; the group that takes it parses the capsule from the bytes already buffered.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include "nvme/fabrics.h"
#include "tcp/target/internal.h"
#include "util/addr.h"
#include "util/ephemeral.h"

#define LISTEN_BACKLOG 128

static struct nvmf_tcp_tpg *main_tpg(struct nvmf_tcp_transport *t)
{
	return (struct nvmf_tcp_tpg *)nvmf_pg_tpg(nvmf_transport_main_pg(&t->base), &t->base);
}

static struct nvmf_transport *
tcp_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts, char *err, size_t errlen)
{
	(void)tgt, (void)opts; /* pg_create reads t->opts, which the core keeps */
	struct nvmf_tcp_transport *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "tcp transport: out of memory");
		return NULL;
	}
	/* Receive buffers are made per connection: any port added live gets its size. */
	t->base.live_max_inline = NVMF_TCP_MAX_INLINE;
	return &t->base;
}

static void tcp_destroy(struct nvmf_transport *base)
{
	struct nvmf_tcp_transport *t = (struct nvmf_tcp_transport *)base;
	struct nvmf_tcp_listener *l;
	while ((l = t->listeners)) {
		t->listeners = l->next;
		close(l->fd);
		free(l);
	}
	free(t);
}

/* ---- listeners ---- */

/* Why a bind to port @svc may have failed with @err, for the message ("" when nothing to
 * add): a privileged port, or one in the kernel's ephemeral range, where any outgoing
 * connection of the machine may hold it. */
static void bind_hint(int err, long svc, char *out, size_t len)
{
	long lo = 0, hi = -1;
	if (err == EADDRINUSE && nvmf_ephemeral_range(NULL, &lo, &hi))
		hi = -1;
	if (err == EACCES && svc < 1024)
		snprintf(out, len, " (ports below 1024 need root or CAP_NET_BIND_SERVICE)");
	else if (err == EADDRINUSE && svc >= lo && svc <= hi)
		snprintf(out, len,
			 " (%ld-%ld is the kernel's ephemeral port range: an outgoing "
			 "connection may hold it; choose a port outside it)",
			 lo, hi);
	else
		out[0] = '\0';
}

static int tcp_listen(struct nvmf_transport *base, struct nvmf_port *port, char *err, size_t errlen)
{
	struct nvmf_tcp_transport *t = (struct nvmf_tcp_transport *)base;
	struct nvmf_port_attrs pa;
	nvmf_port_attrs(port, &pa);
	const char *svc = pa.trsvcid[0] ? pa.trsvcid : "4420";
	int family = pa.adrfam == AF_INET6 ? AF_INET6 : AF_INET;
	const char *host = pa.traddr[0] ? pa.traddr : (family == AF_INET6 ? "::" : "0.0.0.0");
	const char *lb = family == AF_INET6 ? "[" : "", *rb = family == AF_INET6 ? "]" : "";
	struct addrinfo hints = { .ai_family = family,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	int rc = getaddrinfo(host, svc, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "address %s:%s: %s", host, svc, gai_strerror(rc));
		return -1;
	}
	struct nvmf_tcp_listener *l = calloc(1, sizeof(*l));
	if (!l) {
		freeaddrinfo(ai);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	l->ev.kind = NVMF_TCP_EV_LISTENER;
	l->port = port;
	l->portid = pa.portid;
	const char *what = "socket";
	int one = 1;
	l->fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0)
		goto fail;
	/* A restarted target binds again while old connections linger in TIME_WAIT. */
	setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* "::" must not take the IPv4 port too: a 0.0.0.0 port may exist beside it. */
	if (family == AF_INET6)
		setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	what = "bind";
	if (bind(l->fd, ai->ai_addr, ai->ai_addrlen))
		goto fail;
	what = "listen";
	if (listen(l->fd, LISTEN_BACKLOG))
		goto fail;
	what = "epoll";
	if ((rc = nvmf_tcp_epoll_add(main_tpg(t), l->fd, &l->ev, false))) {
		errno = -rc;
		goto fail;
	}
	freeaddrinfo(ai);
	nvmf_port_set_priv(port, l);
	l->next = t->listeners;
	t->listeners = l;
	return 0; /* the daemon (or the control call) says "listening on", once per port */
fail:;
	int e = errno;
	char hint[160];
	bind_hint(e, strtol(svc, NULL, 10), hint, sizeof(hint));
	snprintf(err, errlen, "%s %s%s%s:%s: %s%s", what, lb, host, rb, svc, strerror(e), hint);
	freeaddrinfo(ai);
	if (l->fd >= 0)
		close(l->fd);
	free(l);
	return -1;
}

static void tcp_stop_listen(struct nvmf_transport *base, struct nvmf_port *port)
{
	struct nvmf_tcp_transport *t = (struct nvmf_tcp_transport *)base;
	/* Only a stopping target takes no new queue at all; a port removed live leaves the
	 * other ports accepting. */
	if (nvmf_transport_stopping(base))
		__atomic_store_n(&t->shutting_down, true, __ATOMIC_RELAXED);
	for (struct nvmf_tcp_listener **pp = &t->listeners; *pp; pp = &(*pp)->next) {
		struct nvmf_tcp_listener *l = *pp;
		if (l->port != port)
			continue;
		*pp = l->next;
		nvmf_port_set_priv(port, NULL);
		epoll_ctl(main_tpg(t)->epfd, EPOLL_CTL_DEL, l->fd, NULL);
		close(l->fd);
		free(l);
		return;
	}
}

int nvmf_tcp_port_bound(const struct nvmf_port *port, struct sockaddr_storage *out)
{
	const struct nvmf_tcp_listener *l = nvmf_port_priv(port);
	struct nvmf_port_attrs pa;
	nvmf_port_attrs(port, &pa);
	socklen_t len = sizeof(*out);
	memset(out, 0, sizeof(*out));
	if (!l || strcmp(pa.trtype, "tcp"))
		return -ENOENT;
	return getsockname(l->fd, (struct sockaddr *)out, &len) ? -errno : 0;
}

/* ---- connections before the core has them ---- */

/* accept() on @l failed with @err for a reason the next call may share (no descriptor,
 * no memory): the connection stays in the backlog and the level-triggered listener
 * stays ready, so polling it again at once would spin the main group. It leaves the
 * epoll set for NVMF_TCP_ACCEPT_REST_MS; the first failure of a run is logged. */
static void accept_rest(struct nvmf_tcp_tpg *tpg, struct nvmf_tcp_listener *l, int err)
{
	if (!l->accept_failing)
		NVMF_TCP_LOG(tpg->t, NVMF_LOG_WARNING,
			     "port %u: accept: %s: new connections wait in "
			     "the backlog, tried again every %u ms%s",
			     l->portid, strerror(err), NVMF_TCP_ACCEPT_REST_MS,
			     err == EMFILE || err == ENFILE ? " (raise the open files limit)" : "");
	l->accept_failing = true;
	if (l->resting)
		return;
	epoll_ctl(tpg->epfd, EPOLL_CTL_DEL, l->fd, NULL);
	l->resting = true;
	if (!tpg->accept_resume_ms)
		tpg->accept_resume_ms = tpg->base.pg->now_ms + NVMF_TCP_ACCEPT_REST_MS;
}

void nvmf_tcp_accept_resume(struct nvmf_tcp_tpg *tpg)
{
	if (tpg->base.pg->now_ms < tpg->accept_resume_ms)
		return;
	tpg->accept_resume_ms = 0;
	for (struct nvmf_tcp_listener *l = tpg->t->listeners; l; l = l->next) {
		if (!l->resting)
			continue;
		l->resting = false;
		int rc = nvmf_tcp_epoll_add(tpg, l->fd, &l->ev, false);
		if (rc)
			accept_rest(tpg, l, -rc);
	}
}

int nvmf_tcp_accept(struct nvmf_tcp_tpg *tpg, struct nvmf_tcp_listener *l)
{
	struct nvmf_tcp_transport *t = tpg->t;
	int n = 0;
	for (;;) {
		struct sockaddr_storage peer = { 0 };
		socklen_t plen = sizeof(peer);
		int fd = accept4(l->fd, (struct sockaddr *)&peer, &plen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			/* ECONNABORTED: that host gave up before we took it; the next may wait. */
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				accept_rest(tpg, l, errno);
			return n;
		}
		n++;
		if (l->accept_failing) {
			l->accept_failing = false;
			NVMF_TCP_LOG(t, NVMF_LOG_INFO, "port %u: accepting connections again",
				     l->portid);
		}
		if (__atomic_load_n(&t->shutting_down, __ATOMIC_RELAXED)) {
			close(fd);
			continue;
		}
		/* Small PDUs (R2T, CapsuleResp) must not wait for Nagle. */
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		struct nvmf_tcp_conn *conn = nvmf_tcp_conn_alloc(t, tpg, fd, l->port);
		if (!conn) {
			char who[64];
			nvmf_sockaddr_str((const struct sockaddr *)&peer, who, sizeof(who));
			NVMF_TCP_LOG(t, NVMF_LOG_ERROR,
				     "host %s (port %u): connection closed: out of "
				     "memory for it",
				     who, l->portid);
			close(fd);
			continue;
		}
		nvmf_sockaddr_str((const struct sockaddr *)&peer, conn->peer, sizeof(conn->peer));
		NVMF_PROBE_CONN_ACCEPT("tcp", conn, conn->peer);
		socklen_t llen = sizeof(conn->local);
		getsockname(fd, (struct sockaddr *)&conn->local, &llen);
		conn->born_ms = tpg->base.pg->now_ms;
		int rc = nvmf_tcp_epoll_add(tpg, fd, &conn->ev, false);
		if (rc) {
			NVMF_TCP_LOG(t, NVMF_LOG_ERROR,
				     "host %s (port %u): connection closed: epoll: %s", conn->peer,
				     l->portid, strerror(-rc));
			nvmf_tcp_conn_free(conn);
			continue;
		}
		conn->next = tpg->pending;
		tpg->pending = conn;
	}
}

void nvmf_tcp_pending_expire(struct nvmf_tcp_tpg *tpg)
{
	uint64_t now = tpg->base.pg->now_ms;
	for (struct nvmf_tcp_conn *c = tpg->pending, *next; c; c = next) {
		next = c->next;
		if (now - c->born_ms > NVMF_TCP_HANDSHAKE_MS)
			nvmf_tcp_conn_kill(
				c, NVMF_LOG_WARNING,
				c->tls_phase == NVMF_TCP_TLS_HANDSHAKE ?
					"TLS handshake not done within 10 s: connection closed" :
					"no ICReq and Connect within 10 s: connection closed");
	}
}

void nvmf_tcp_handoff(struct nvmf_tcp_conn *conn)
{
	struct nvmf_tcp_tpg *tpg = conn->tpg;
	const struct nvme_tcp_cmd *cmd = (const void *)(conn->rbuf + conn->roff);
	uint16_t qid = 0;
	/* The Connect's QID (NVMe-oF 1.1 section 3.3); any other first command goes to the
	 * admin group, where the core refuses it on an unconnected queue. */
	if (cmd->sqe.opcode == nvme_admin_fabrics &&
	    nvmf_sqe_fctype(&cmd->sqe) == nvme_fabrics_type_connect) {
		struct nvmf_connect_cmd c;
		nvmf_connect_decode(&cmd->sqe, &c);
		qid = c.qid;
	}
	conn->qid = qid;
	/* The ICResp must be out before another thread owns the socket. */
	if (nvmf_tcp_conn_flush(conn) || conn->tx_head ||
	    (conn->tls && nvmf_tls_tx_pending(conn->tls))) {
		nvmf_tcp_conn_kill(conn, NVMF_LOG_WARNING,
				   "ICResp could not be sent: connection closed");
		return;
	}
	epoll_ctl(tpg->epfd, EPOLL_CTL_DEL, conn->fd, NULL);
	nvmf_tcp_unlink(&tpg->pending, conn, offsetof(struct nvmf_tcp_conn, next));
	if (conn->tx_dirty)
		nvmf_tcp_unlink(&tpg->dirty, conn, offsetof(struct nvmf_tcp_conn, dirty_next));
	if (conn->rx_kick)
		nvmf_tcp_unlink(&tpg->kick, conn, offsetof(struct nvmf_tcp_conn, kick_next));
	conn->tx_dirty = conn->rx_kick = false;
	conn->tpg = NULL;
	if (nvmf_tgt_new_queue(&conn->t->base, tpg->base.pg, qid, conn)) {
		NVMF_TCP_LOG(conn->t, NVMF_LOG_ERROR,
			     "host %s, queue %u: connection closed: out of "
			     "memory for its hand-over",
			     conn->peer, qid);
		nvmf_tcp_conn_free(conn);
	}
}

/* ops->pg_add_queue: on the group the core chose. */
static int tcp_pg_add_queue(struct nvmf_tpg *base, void *arg)
{
	struct nvmf_tcp_tpg *tpg = (struct nvmf_tcp_tpg *)base;
	struct nvmf_tcp_conn *conn = arg;
	conn->tpg = tpg;
	const char *why = NULL;
	int rc;
	if (__atomic_load_n(&tpg->t->shutting_down, __ATOMIC_RELAXED))
		why = "shutting down";
	else if (nvmf_tcp_conn_set_queue(conn, conn->qid) || nvmf_tcp_zc_setup(conn))
		why = "out of memory";
	else if ((rc = nvmf_tcp_epoll_add(tpg, conn->fd, &conn->ev, false)))
		why = strerror(-rc);
	if (why) {
		NVMF_TCP_LOG(tpg->t, NVMF_LOG_WARNING, "host %s, queue %u: connection closed: %s",
			     conn->peer, conn->qid, why);
		nvmf_tcp_conn_free(conn);
		return -1;
	}
	nvmf_sq_init(&conn->sq, base->pg, conn->port, &tpg->t->base);
	snprintf(conn->sq.peer, sizeof(conn->sq.peer), "%s", conn->peer);
	conn->sq.transport_priv = conn;
	conn->sq_inited = true;
	conn->state = NVMF_TCP_CONN_LIVE;
	conn->next = tpg->conns;
	tpg->conns = conn;
	nvmf_tcp_conn_kick(conn); /* its first capsule is buffered already */
	return 0;
}

/* ---- the core's queue ops ---- */

static void tcp_disconnect_queue(struct nvmf_sq *sq)
{
	struct nvmf_tcp_conn *conn = sq->transport_priv;
	bool quiet = __atomic_load_n(&conn->t->shutting_down, __ATOMIC_RELAXED);
	nvmf_tcp_conn_kill(conn, NVMF_LOG_INFO, quiet ? NULL : "controller deleted");
}

/* ops->queue_busy: answers not yet delivered. sendmsg() taking a PDU only moves it into
 * the kernel's send queue (megabytes, with a host that does not read); what the host's
 * TCP has not acknowledged (SIOCOUTQ: unsent plus unacknowledged bytes) is lost if the
 * connection is reset, which a host does by writing to the socket after we closed it.
 * So an answer counts as on the wire once acknowledged, as a SEND completion does on
 * RDMA: shutdown waits (bounded) for that, and a host that resumes reading in time gets
 * every answer. */
static bool tcp_queue_busy(const struct nvmf_sq *sq)
{
	const struct nvmf_tcp_conn *conn = sq->transport_priv;
	if (conn->state == NVMF_TCP_CONN_DEAD)
		return false;
	if (conn->tx_head || (conn->tls && nvmf_tls_tx_pending(conn->tls)))
		return true;
	int unacked = 0;
	return ioctl(conn->fd, SIOCOUTQ, &unacked) == 0 && unacked > 0;
}

static void tcp_queue_released(struct nvmf_sq *sq)
{
	struct nvmf_tcp_conn *conn = sq->transport_priv;
	conn->released = true;
	if (conn->in_kill) /* conn_kill reaps it on return */
		return;
	nvmf_tcp_unlink(&conn->tpg->conns, conn, offsetof(struct nvmf_tcp_conn, next));
	nvmf_tcp_conn_reap(conn);
}

static bool tcp_pg_idle(struct nvmf_tpg *base)
{
	const struct nvmf_tcp_tpg *tpg = (const struct nvmf_tcp_tpg *)base;
	return !tpg->reap;
}

/* ops->local_addr: the address the connection was accepted on (getsockname). */
static int tcp_local_addr(const struct nvmf_sq *sq, struct sockaddr_storage *out)
{
	const struct nvmf_tcp_conn *conn = sq->transport_priv;
	if (!conn || !conn->local.ss_family)
		return -ENOTCONN;
	*out = conn->local;
	return 0;
}

/* ops->tls_peer: the PSK identity's NQNs of a connection in a secure channel. */
static bool tcp_tls_peer(const struct nvmf_sq *sq, const char **hostnqn, const char **subnqn)
{
	const struct nvmf_tcp_conn *conn = sq->transport_priv;
	if (!conn || !conn->tls || !conn->tls_host)
		return false;
	*hostnqn = conn->tls_host;
	*subnqn = conn->tls_sub;
	return true;
}

const struct nvmf_transport_ops nvmf_tcp_transport_ops = {
	.name = "tcp",
	.trtype = NVMF_TRTYPE_TCP,
	.msdbd = 1,
	.keyed_sgl = false,
	.max_queue_size = NVMF_TCP_MAX_QUEUE_SIZE,
	.max_inline = NVMF_TCP_MAX_INLINE,
	.max_xfer = NVMF_TCP_MAX_XFER,
	.create = tcp_create,
	.destroy = tcp_destroy,
	.listen = tcp_listen,
	.stop_listen = tcp_stop_listen,
	.pg_create = nvmf_tcp_pg_create,
	.pg_destroy = nvmf_tcp_pg_destroy,
	.pg_add_queue = tcp_pg_add_queue,
	.pg_poll = nvmf_tcp_pg_poll,
	.pg_flush = nvmf_tcp_pg_flush,
	.pg_idle = tcp_pg_idle,
	.pg_stats = nvmf_tcp_pg_stats,
	.queue_response = nvmf_tcp_queue_response,
	.queue_busy = tcp_queue_busy,
	.disconnect_queue = tcp_disconnect_queue,
	.queue_released = tcp_queue_released,
	.local_addr = tcp_local_addr,
	.tls_peer = tcp_tls_peer,
};
