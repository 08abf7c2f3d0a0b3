/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/TCP transport's part of a poll group: an epoll set of the group's sockets
 * (level triggered; its descriptor is one of the group's wait descriptors, so an idle
 * group sleeps until a socket has something), the connections with bytes to parse or
 * PDUs to send, and a cache of data buffers. Sends are batched: PDUs queued during a
 * pass leave in one sendmsg per connection in pg_flush, unless the connection's list
 * reaches NVMF_TCP_TX_EARLY_BYTES (queue_response sends it then); a socket that takes no
 * more gets EPOLLOUT asked until it does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include "tcp/target/internal.h"

#define EVENTS_PER_PASS 64
#define IOV_PER_SEND    64

/* ---- data buffers ---- */

void *nvmf_tcp_buf_get(struct nvmf_tcp_tpg *tpg, uint32_t len, uint32_t *cap)
{
	void *buf = NULL;
	uint32_t size = len ? len : 1;
	for (unsigned i = 0; i < NVMF_TCP_BUF_CLASSES; i++) {
		struct nvmf_tcp_buf_cache *c = &tpg->cache[i];
		if (c->size < len)
			continue;
		size = c->size;
		if (c->count)
			buf = c->free[--c->count];
		break;
	}
	size = (size + NVMF_TCP_ALIGN - 1) & ~(NVMF_TCP_ALIGN - 1);
	if (!buf && posix_memalign(&buf, NVMF_TCP_ALIGN, size))
		return NULL;
	*cap = size;
	tpg->bufs_held++;
	return buf;
}

void nvmf_tcp_buf_put(struct nvmf_tcp_tpg *tpg, void *buf, uint32_t cap)
{
	tpg->bufs_held--;
	for (unsigned i = 0; i < NVMF_TCP_BUF_CLASSES; i++) {
		struct nvmf_tcp_buf_cache *c = &tpg->cache[i];
		if (c->size == cap && c->count < c->max) {
			c->free[c->count++] = buf;
			return;
		}
	}
	free(buf);
}

/* ---- sockets ---- */

static int epoll_set(struct nvmf_tcp_tpg *tpg, int op, int fd, struct nvmf_tcp_ev *ev, bool out)
{
	struct epoll_event e = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = ev };
	return epoll_ctl(tpg->epfd, op, fd, &e) ? -errno : 0;
}

int nvmf_tcp_epoll_add(struct nvmf_tcp_tpg *tpg, int fd, struct nvmf_tcp_ev *ev, bool out)
{
	return epoll_set(tpg, EPOLL_CTL_ADD, fd, ev, out);
}

int nvmf_tcp_epoll_mod(struct nvmf_tcp_tpg *tpg, int fd, struct nvmf_tcp_ev *ev, bool out)
{
	return epoll_set(tpg, EPOLL_CTL_MOD, fd, ev, out);
}

void nvmf_tcp_conn_kick(struct nvmf_tcp_conn *conn)
{
	if (conn->rx_kick)
		return;
	conn->rx_kick = true;
	conn->kick_next = conn->tpg->kick;
	conn->tpg->kick = conn;
}

void nvmf_tcp_tx_queue(struct nvmf_tcp_conn *conn, struct nvmf_tcp_tx *tx)
{
	tx->next = NULL;
	if (conn->tx_tail)
		conn->tx_tail->next = tx;
	else
		conn->tx_head = tx;
	conn->tx_tail = tx;
	conn->tx_bytes += tx->hlen + tx->dlen + tx->ddgst_len;
	if (!conn->tx_dirty) {
		conn->tx_dirty = true;
		conn->dirty_next = conn->tpg->dirty;
		conn->tpg->dirty = conn;
	}
}

/* The next sendmsg's iovecs, from the head of @conn's send list: each PDU's header, data
 * and data digest (the parts not sent yet) as long as they fit; but a data part that goes
 * zero-copy (queue_response marked it big enough, zero-copy is still on and a slot of the
 * ring is free; else it is copied like the rest) is sent alone, so the batch ends before
 * it. *@zc: this one is that data part; *@more: bytes follow it in the list. */
static int next_iov(const struct nvmf_tcp_conn *conn, struct iovec *iov, bool *zc, bool *more)
{
	const struct nvmf_tcp_tx *tx = conn->tx_head;
	uint32_t off = conn->tx_off;
	int n = 0;
	*zc = false;
	for (; tx && n + 3 <= IOV_PER_SEND; tx = tx->next, off = 0) {
		bool tx_zc = tx->zc_req && nvmf_tcp_zc_room(conn);
		if (tx_zc && off >= tx->hlen && off < tx->hlen + tx->dlen) {
			/* Only the head is sent from the middle (every PDU has a
			 * header, so off is 0 further on): n is 0 here. */
			iov[0].iov_base = (void *)((const uint8_t *)tx->data + (off - tx->hlen));
			iov[0].iov_len = tx->hlen + tx->dlen - off;
			*zc = true;
			*more = tx->ddgst_len || tx->next;
			return 1;
		}
		if (tx_zc && off < tx->hlen) {
			iov[n].iov_base = (void *)(tx->hdr + off);
			iov[n].iov_len = tx->hlen - off;
			n++;
			break; /* tx stays: its data follows */
		}
		const struct {
			const void *p;
			uint32_t n;
		} part[3] = {
			{ tx->hdr, tx->hlen },
			{ tx->data, tx->dlen },
			{ tx->ddgst, tx->ddgst_len },
		};
		for (int i = 0; i < 3; i++) {
			if (off >= part[i].n) {
				off -= part[i].n;
				continue;
			}
			iov[n].iov_base = (void *)((const uint8_t *)part[i].p + off);
			iov[n].iov_len = part[i].n - off;
			off = 0;
			n++;
		}
	}
	*more = tx != NULL;
	return n;
}

/* The socket took no more: ask for EPOLLOUT. */
static void want_out(struct nvmf_tcp_conn *conn)
{
	if (!conn->pollout && conn->state != NVMF_TCP_CONN_DEAD) {
		conn->pollout = true;
		nvmf_tcp_epoll_mod(conn->tpg, conn->fd, &conn->ev, true);
	}
}

int nvmf_tcp_conn_flush(struct nvmf_tcp_conn *conn)
{
	/* A TLS record the channel staged goes first: bytes after it wait. */
	if (conn->tls && nvmf_tls_tx_pending(conn->tls) && nvmf_tls_flush(conn->tls)) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
			want_out(conn);
			return 0;
		}
		return -errno;
	}
	while (conn->tx_head) {
		struct iovec iov[IOV_PER_SEND];
		bool zc, more;
		int n = next_iov(conn, iov, &zc, &more);
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		/* More PDUs than one call takes: tell TCP more follows. */
		int flags = MSG_NOSIGNAL | MSG_DONTWAIT | (more ? MSG_MORE : 0);
		ssize_t sent = conn->tls ? nvmf_tls_sendv(conn->tls, iov, n) :
					   sendmsg(conn->fd, &msg, flags | (zc ? MSG_ZEROCOPY : 0));
		if (sent < 0 && zc && errno == ENOBUFS) { /* over the pinned-memory limits: copy */
			if (!conn->zc_nobufs)
				NVMF_TCP_LOG(
					conn->t, NVMF_LOG_DEBUG,
					"host %s, queue %u: a zero-copy send was "
					"refused (ENOBUFS: RLIMIT_MEMLOCK or net.core.optmem_max reached): "
					"copied, as are the next ones so refused",
					conn->peer, conn->qid);
			conn->zc_nobufs = true;
			sent = sendmsg(conn->fd, &msg, flags);
			zc = false;
		}
		if (sent < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				want_out(conn);
				return 0;
			}
			return -errno;
		}
		if (zc && sent > 0)
			nvmf_tcp_zc_sent(conn, conn->tx_head->zc_req);
		size_t left = (size_t)sent;
		while (left && conn->tx_head) {
			struct nvmf_tcp_tx *h = conn->tx_head;
			uint32_t rem = h->hlen + h->dlen + h->ddgst_len - conn->tx_off;
			if (left < rem) {
				conn->tx_off += (uint32_t)left;
				break;
			}
			left -= rem;
			conn->tx_off = 0;
			conn->tx_bytes -= h->hlen + h->dlen + h->ddgst_len;
			conn->tx_head = h->next;
			if (!conn->tx_head)
				conn->tx_tail = NULL;
			if (h->done) /* the response left: the command is done */
				nvmf_tcp_req_release(h->done);
		}
	}
	if (conn->tls && nvmf_tls_tx_pending(conn->tls)) { /* staged: the rest later */
		want_out(conn);
		return 0;
	}
	if (conn->pollout && conn->state != NVMF_TCP_CONN_DEAD) {
		conn->pollout = false;
		nvmf_tcp_epoll_mod(conn->tpg, conn->fd, &conn->ev, false);
	}
	return 0;
}

/* ---- the group's part ---- */

struct nvmf_tpg *nvmf_tcp_pg_create(struct nvmf_transport *t, struct nvmf_pg *pg, char *err,
				    size_t errlen)
{
	struct nvmf_tcp_tpg *tpg = calloc(1, sizeof(*tpg));
	if (!tpg) {
		snprintf(err, errlen, "tcp: out of memory");
		return NULL;
	}
	tpg->t = (struct nvmf_tcp_transport *)t;
	_Static_assert((4096u << (NVMF_TCP_BUF_CLASSES - 1)) >= NVMF_TCP_MAX_XFER,
		       "the largest class holds the largest transfer");
	bool nomem = false;
	for (unsigned i = 0; i < NVMF_TCP_BUF_CLASSES; i++) {
		uint32_t size = 4096u << i, max = NVMF_TCP_BUF_CACHE_BYTES / size;
		tpg->cache[i].size = size;
		tpg->cache[i].max = max < 2 ? 2 : max > 256 ? 256 : max;
		tpg->cache[i].free = calloc(tpg->cache[i].max, sizeof(void *));
		nomem |= !tpg->cache[i].free;
	}
	tpg->epfd = epoll_create1(EPOLL_CLOEXEC);
	int rc = tpg->epfd < 0 ? -errno : nvmf_pg_add_wait_fd(pg, tpg->epfd);
	if (rc || nomem) {
		snprintf(err, errlen, "tcp: poll group %u: %s", pg->index,
			 rc ? strerror(-rc) : "out of memory");
		nvmf_tcp_pg_destroy(&tpg->base);
		return NULL;
	}
	return &tpg->base;
}

static void reap(struct nvmf_tcp_tpg *tpg)
{
	struct nvmf_tcp_conn *c;
	while ((c = tpg->reap)) {
		tpg->reap = c->next;
		if (c->zc_count) /* the kernel still holds some of its buffers */
			nvmf_tcp_zc_park(c);
		else
			nvmf_tcp_conn_free(c);
	}
}

void nvmf_tcp_pg_destroy(struct nvmf_tpg *base)
{
	struct nvmf_tcp_tpg *tpg = (struct nvmf_tcp_tpg *)base;
	struct nvmf_tcp_conn *c;
	reap(tpg);
	nvmf_tcp_zc_drain_all(tpg);
	while ((c = tpg->pending)) {
		tpg->pending = c->next;
		nvmf_tcp_conn_free(c);
	}
	/* Queues the core never released (a stuck shutdown): their memory stays, the
	 * sockets close. */
	for (c = tpg->conns; c; c = c->next)
		if (c->fd >= 0) {
			close(c->fd);
			c->fd = -1;
		}
	for (unsigned i = 0; i < NVMF_TCP_BUF_CLASSES; i++) {
		struct nvmf_tcp_buf_cache *bc = &tpg->cache[i];
		while (bc->free && bc->count)
			free(bc->free[--bc->count]);
		free(bc->free);
	}
	if (tpg->epfd >= 0) {
		if (tpg->base.pg)
			nvmf_pg_del_wait_fd(tpg->base.pg, tpg->epfd);
		close(tpg->epfd);
	}
	free(tpg);
}

int nvmf_tcp_pg_poll(struct nvmf_tpg *base)
{
	struct nvmf_tcp_tpg *tpg = (struct nvmf_tcp_tpg *)base;
	int work = 0;
	bool gone;
	if (tpg->reap) /* rarely: a connection died */
		reap(tpg);
	/* Bytes already buffered (a connection just handed over with its first capsule). */
	struct nvmf_tcp_conn *k = tpg->kick;
	tpg->kick = NULL;
	while (k) {
		struct nvmf_tcp_conn *c = k;
		k = c->kick_next;
		c->rx_kick = false;
		/* A channel's buffered plaintext is read like the socket's. */
		if (c->state != NVMF_TCP_CONN_DEAD && c->tls && nvmf_tls_rx_pending(c->tls))
			work += nvmf_tcp_conn_readable(c, &gone) + 1;
		else if (c->state != NVMF_TCP_CONN_DEAD)
			work += nvmf_tcp_conn_parse(c, &gone) + 1;
	}
	if (tpg->pending)
		nvmf_tcp_pending_expire(tpg);
	if (tpg->accept_resume_ms)
		nvmf_tcp_accept_resume(tpg);
	struct epoll_event ev[EVENTS_PER_PASS];
	int n = epoll_wait(tpg->epfd, ev, EVENTS_PER_PASS, 0);
	for (int i = 0; i < n; i++) {
		struct nvmf_tcp_ev *e = ev[i].data.ptr;
		if (e->kind == NVMF_TCP_EV_LISTENER) {
			work += nvmf_tcp_accept(tpg, (struct nvmf_tcp_listener *)e);
			continue;
		}
		struct nvmf_tcp_conn *c = (struct nvmf_tcp_conn *)e;
		if (c->state == NVMF_TCP_CONN_DEAD)
			continue;
		if ((ev[i].events & EPOLLOUT) && c->tls_phase == NVMF_TCP_TLS_HANDSHAKE) {
			work += nvmf_tcp_conn_readable(c, &gone);
			continue;
		}
		if ((ev[i].events & EPOLLOUT) && c->pollout &&
		    (c->tx_head || (c->tls && nvmf_tls_tx_pending(c->tls))) && !c->tx_dirty) {
			c->tx_dirty = true;
			c->dirty_next = tpg->dirty;
			tpg->dirty = c;
			work++;
		}
		/* EPOLLERR also says zero-copy notifications wait in the error queue. */
		if ((ev[i].events & EPOLLERR) && c->zc)
			work += nvmf_tcp_zc_reap(c);
		if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			work += nvmf_tcp_conn_readable(c, &gone);
	}
	return work;
}

void nvmf_tcp_pg_flush(struct nvmf_tpg *base)
{
	struct nvmf_tcp_tpg *tpg = (struct nvmf_tcp_tpg *)base;
	/* A connection that dies here may make the core answer on others: those are sent
	 * in the same flush. */
	for (int round = 0; round < 4 && tpg->dirty; round++) {
		struct nvmf_tcp_conn *d = tpg->dirty;
		tpg->dirty = NULL;
		while (d) {
			struct nvmf_tcp_conn *c = d;
			d = c->dirty_next;
			c->tx_dirty = false;
			if (c->state == NVMF_TCP_CONN_DEAD)
				continue;
			int rc = nvmf_tcp_conn_flush(c);
			if (rc) {
				char why[96];
				snprintf(why, sizeof(why), "send: %s", strerror(-rc));
				nvmf_tcp_conn_kill(c, NVMF_LOG_WARNING, why);
			}
		}
	}
	uint32_t conns = 0, dying = 0;
	for (struct nvmf_tcp_conn *c = tpg->conns; c; c = c->next) {
		conns++;
		dying += c->state == NVMF_TCP_CONN_DEAD;
	}
	__atomic_store_n(&tpg->nconns, conns, __ATOMIC_RELAXED);
	__atomic_store_n(&tpg->ndying, dying, __ATOMIC_RELAXED);
	__atomic_store_n(&tpg->bufs_pub, tpg->bufs_held, __ATOMIC_RELAXED);
}

void nvmf_tcp_pg_stats(const struct nvmf_tpg *base, struct nvmf_tpg_stats *out)
{
	const struct nvmf_tcp_tpg *tpg = (const struct nvmf_tcp_tpg *)base;
	memset(out, 0, sizeof(*out));
	out->queues = __atomic_load_n(&tpg->nconns, __ATOMIC_RELAXED);
	out->dying = __atomic_load_n(&tpg->ndying, __ATOMIC_RELAXED);
	out->bufs_held = __atomic_load_n(&tpg->bufs_pub, __ATOMIC_RELAXED);
}
