/* SPDX-License-Identifier: MIT */
/*
 * Zero-copy sends of large C2HData (Linux MSG_ZEROCOPY: Documentation/networking/
 * msg_zerocopy.rst). A send with MSG_ZEROCOPY pins the pages of the command's buffer
 * instead of copying them into the socket; the buffer must not change until the kernel
 * says it let go, which it does on the socket's error queue: one notification per range
 * of sends, numbered 0, 1, 2... per socket in the order they took bytes. So a command
 * whose data left that way is held (zc_refs) until its sends are notified, even after
 * its CapsuleResp left.
 *
 * Only the data part of a C2HData goes zero-copy, in a sendmsg of its own (poll-group.c
 * ends the batch before it): headers and digests live in the request and are rewritten
 * while the kernel may still hold the data. When the kernel reports it copied a send
 * anyway (SO_EE_CODE_ZEROCOPY_COPIED: loopback, or a device without scatter-gather), the
 * connection stops asking: pinning and notifying would cost without saving a copy.
 *
 * A dying connection keeps its socket open (shut down) until its sends come back: its
 * buffers cannot go back to the group's cache while TCP may still retransmit from them.
 * A host that neither reads nor resets for NVMF_TCP_ZC_DRAIN_MS has its connection reset,
 * which drops the socket's send queue and with it the kernel's hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/errqueue.h>
#include "tcp/target/internal.h"

int nvmf_tcp_zc_setup(struct nvmf_tcp_conn *conn)
{
	int one = 1;
	uint32_t min = conn->pa.zerocopy_threshold;
	conn->zc_min = 0;
	/* TLS records are built from the data (in user space, or by kTLS): no zero copy. */
	if (conn->tls)
		return 0;
	if (!min || setsockopt(conn->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		return 0; /* off, or a kernel without it (before 4.14): sends copy */
	/* A command's data may take several sends when the socket's buffer fills; twice
	 * the queue's entries covers a full queue of reads sent in two pieces each. More
	 * than that waits for notifications, copying meanwhile. */
	conn->zc_cap = 2 * conn->nreqs;
	conn->zc = calloc(conn->zc_cap, sizeof(*conn->zc));
	if (!conn->zc)
		return -ENOMEM;
	conn->zc_min = min;
	return 0;
}

bool nvmf_tcp_zc_room(const struct nvmf_tcp_conn *conn)
{
	return conn->zc_min && conn->zc_count < conn->zc_cap;
}

void nvmf_tcp_zc_sent(struct nvmf_tcp_conn *conn, struct nvmf_tcp_req *r)
{
	struct nvmf_tcp_zc_slot *s = &conn->zc[(conn->zc_head + conn->zc_count) % conn->zc_cap];
	s->req = r;
	s->done = false;
	conn->zc_count++;
	conn->zc_sends++;
	r->zc_refs++;
}

void nvmf_tcp_zc_complete(struct nvmf_tcp_conn *conn, uint32_t lo, uint32_t hi, bool copied)
{
	if (copied && !conn->zc_copied) {
		conn->zc_copied = true;
		conn->zc_min = 0; /* sends copy from now on; those held still come back */
		NVMF_TCP_LOG(
			conn->t, NVMF_LOG_DEBUG,
			"host %s, queue %u: the kernel copied a zero-copy "
			"send (loopback, or a device without scatter-gather): sending with copies",
			conn->peer, conn->qid);
	}
	/* Offsets from the head; a range that starts before it (never seen) is cut. */
	uint32_t first = lo - conn->zc_head_id, last = hi - conn->zc_head_id;
	if ((int32_t)first < 0)
		first = 0;
	if ((int32_t)last < 0 || first > last)
		return;
	for (uint32_t i = first; i <= last && i < conn->zc_count; i++) {
		struct nvmf_tcp_zc_slot *s = &conn->zc[(conn->zc_head + i) % conn->zc_cap];
		if (s->done)
			continue;
		s->done = true;
		struct nvmf_tcp_req *r = s->req;
		if (--r->zc_refs == 0 && r->zc_release) {
			r->zc_release = false;
			nvmf_tcp_req_release(r);
		}
	}
	while (conn->zc_count && conn->zc[conn->zc_head].done) {
		conn->zc_head = (conn->zc_head + 1) % conn->zc_cap;
		conn->zc_count--;
		conn->zc_head_id++;
	}
}

int nvmf_tcp_zc_reap(struct nvmf_tcp_conn *conn)
{
	int n = 0;
	/* To the end of the queue: an entry left would keep the socket's EPOLLERR up. */
	while (conn->zc) {
		union {
			char buf[CMSG_SPACE(sizeof(struct sock_extended_err)) * 2];
			struct cmsghdr align;
		} ctl;
		struct msghdr msg = { .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
		if (recvmsg(conn->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break; /* EAGAIN: nothing more now */
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct sock_extended_err ee;
			if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee.ee_errno)
				continue;
			nvmf_tcp_zc_complete(conn, ee.ee_info, ee.ee_data,
					     ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED);
			n++;
		}
	}
	return n;
}

/* Free parked @conn; while the kernel still holds sends of its, reset it first (the
 * send queue and the kernel's hold go with it). */
static void free_parked(struct nvmf_tcp_conn *conn)
{
	if (conn->zc_count) {
		struct linger l = { .l_onoff = 1, .l_linger = 0 };
		setsockopt(conn->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	nvmf_tcp_conn_free(conn);
}

static void drain_tick(void *arg)
{
	struct nvmf_tcp_tpg *tpg = arg;
	uint64_t now = tpg->base.pg->now_ms;
	for (struct nvmf_tcp_conn **pp = &tpg->zc_drain, *c; (c = *pp);) {
		nvmf_tcp_zc_reap(c);
		if (c->zc_count && now < c->zc_drain_ms) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		if (c->zc_count)
			NVMF_TCP_LOG(c->t, NVMF_LOG_WARNING,
				     "host %s, queue %u: %u zero-copy sends still "
				     "unacknowledged %u ms after the connection closed: reset",
				     c->peer, c->qid, c->zc_count, NVMF_TCP_ZC_DRAIN_MS);
		free_parked(c);
	}
	if (!tpg->zc_drain && tpg->zc_timer_on) {
		tpg->zc_timer_on = false;
		nvmf_pg_timer_stop(tpg->base.pg, &tpg->zc_timer);
	}
}

void nvmf_tcp_zc_park(struct nvmf_tcp_conn *conn)
{
	struct nvmf_tcp_tpg *tpg = conn->tpg;
	conn->zc_drain_ms = tpg->base.pg->now_ms + NVMF_TCP_ZC_DRAIN_MS;
	conn->next = tpg->zc_drain;
	tpg->zc_drain = conn;
	if (!tpg->zc_timer_on) {
		tpg->zc_timer_on = true;
		nvmf_pg_timer_start(tpg->base.pg, &tpg->zc_timer, NVMF_TCP_ZC_DRAIN_TICK_MS,
				    drain_tick, tpg);
	}
}

void nvmf_tcp_zc_drain_all(struct nvmf_tcp_tpg *tpg)
{
	struct nvmf_tcp_conn *c;
	while ((c = tpg->zc_drain)) {
		tpg->zc_drain = c->next;
		nvmf_tcp_zc_reap(c);
		free_parked(c);
	}
	if (tpg->zc_timer_on && tpg->base.pg)
		nvmf_pg_timer_stop(tpg->base.pg, &tpg->zc_timer);
	tpg->zc_timer_on = false;
}
