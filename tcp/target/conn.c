/* SPDX-License-Identifier: MIT */
/*
 * One NVMe/TCP connection of the target (TCP transport 1.0 sections 3.3, 3.6): its
 * receive buffer and the PDUs found in it, the connection initialization (ICReq ->
 * ICResp), fatal errors (C2HTermReq, section 3.6.2.3 and 3.7) and teardown.
 *
 * Received bytes are parsed one whole PDU at a time: the common header is checked
 * (nvme_tcp_check_ch) before its lengths are trusted, then the whole PDU is waited for
 * (the buffer holds the largest one this connection accepts), its header digest checked
 * and the PDU handled. Data is copied out of the buffer into the command's own buffer;
 * but an H2CData PDU whose header is in and whose data is still coming is checked at
 * once, and the rest of its data received straight into its command's buffer (one copy
 * less for large writes, which arrive in pieces). While write data flows that way, each
 * recv() into the buffer asks for a few headers' worth only (NVMF_TCP_RX_PEEK), so that
 * the next large H2CData PDU is found partial and takes the same path.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "tcp/target/internal.h"

static uint32_t max3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t m = a > b ? a : b;
	return m > c ? m : c;
}

struct nvmf_tcp_conn *nvmf_tcp_conn_alloc(struct nvmf_tcp_transport *t, struct nvmf_tcp_tpg *tpg,
					  int fd, struct nvmf_port *port)
{
	struct nvmf_tcp_conn *conn = calloc(1, sizeof(*conn));
	if (!conn)
		return NULL;
	conn->ev.kind = NVMF_TCP_EV_CONN;
	conn->t = t;
	conn->tpg = tpg;
	conn->fd = fd;
	conn->port = port;
	nvmf_port_attrs(port, &conn->pa);
	conn->state = NVMF_TCP_CONN_ICREQ;
	conn->tls_phase = conn->pa.tls ? NVMF_TCP_TLS_SNIFF : NVMF_TCP_TLS_NONE;
	conn->maxh2cdata = conn->pa.maxh2cdata;
	/* Until the first CapsuleCmd names the queue, it may be an admin queue (8 KiB of
	 * in-capsule data) or an I/O queue (the port's size): take the larger. */
	conn->cp.rx_is_ctrl = true;
	conn->cp.rx_max_data = max3(NVME_TCP_ADMIN_CCSZ, conn->pa.inline_size, conn->maxh2cdata);
	conn->rcap = NVMF_TCP_RX_SLACK + conn->cp.rx_max_data + 2 * NVME_TCP_DIGEST_LEN;
	conn->rbuf = malloc(conn->rcap);
	if (!conn->rbuf) {
		free(conn);
		return NULL;
	}
	return conn;
}

int nvmf_tcp_conn_set_queue(struct nvmf_tcp_conn *conn, uint16_t qid)
{
	uint32_t n = qid ? conn->pa.queue_size : conn->pa.admin_queue_size;
	conn->qid = qid;
	conn->icsz = qid ? conn->pa.inline_size : NVME_TCP_ADMIN_CCSZ;
	conn->cp.rx_max_data = conn->icsz > conn->maxh2cdata ? conn->icsz : conn->maxh2cdata;
	conn->reqs = calloc(n, sizeof(*conn->reqs));
	if (!conn->reqs)
		return -ENOMEM;
	conn->nreqs = n;
	for (uint32_t i = n; i-- > 0;) {
		struct nvmf_tcp_req *r = &conn->reqs[i];
		r->conn = conn;
		r->ttag = (uint16_t)i;
		r->next_free = conn->free_reqs;
		conn->free_reqs = r;
	}
	NVMF_PROBE_QUEUE_CONNECT("tcp", conn, qid);
	return 0;
}

void nvmf_tcp_unlink(struct nvmf_tcp_conn **pp, struct nvmf_tcp_conn *conn, size_t link_off)
{
	while (*pp) {
		if (*pp == conn) {
			*pp = *(struct nvmf_tcp_conn **)((char *)conn + link_off);
			return;
		}
		pp = (struct nvmf_tcp_conn **)((char *)*pp + link_off);
	}
}

void nvmf_tcp_conn_free(struct nvmf_tcp_conn *conn)
{
	struct nvmf_tcp_tpg *tpg = conn->tpg;
	if (tpg) {
		if (conn->rx_kick)
			nvmf_tcp_unlink(&tpg->kick, conn,
					offsetof(struct nvmf_tcp_conn, kick_next));
		if (conn->tx_dirty)
			nvmf_tcp_unlink(&tpg->dirty, conn,
					offsetof(struct nvmf_tcp_conn, dirty_next));
	}
	nvmf_tls_free(conn->tls);
	free(conn->tls_host);
	free(conn->tls_sub);
	if (conn->fd >= 0)
		close(conn->fd);
	for (uint32_t i = 0; i < conn->nreqs; i++)
		if (conn->reqs[i].buf && tpg)
			nvmf_tcp_buf_put(tpg, conn->reqs[i].buf, conn->reqs[i].buf_len);
	free(conn->reqs);
	free(conn->zc);
	free(conn->rbuf);
	free(conn);
}

void nvmf_tcp_conn_reap(struct nvmf_tcp_conn *conn)
{
	conn->next = conn->tpg->reap;
	conn->tpg->reap = conn;
}

void nvmf_tcp_conn_kill(struct nvmf_tcp_conn *conn, enum nvmf_log_level level, const char *why)
{
	if (conn->state == NVMF_TCP_CONN_DEAD)
		return;
	bool handed = conn->sq_inited;
	conn->state = NVMF_TCP_CONN_DEAD;
	conn->rx_req = NULL; /* its request is dropped below */
	if (level <= NVMF_LOG_WARNING)
		NVMF_PROBE_CONN_ERROR("tcp", conn, conn->qid, why ? why : "");
	else
		NVMF_PROBE_CONN_DISCONNECT("tcp", conn, conn->qid, why ? why : "");
	if (why && handed)
		NVMF_TCP_LOG(conn->t, level, "host %s, queue %u: %s", conn->peer, conn->qid, why);
	else if (why) /* no Connect seen: the queue is not known */
		NVMF_TCP_LOG(conn->t, level, "host %s (port %u, before its Connect): %s",
			     conn->peer, conn->pa.portid, why);
	epoll_ctl(conn->tpg->epfd, EPOLL_CTL_DEL, conn->fd, NULL);
	/* Unread input would make the close a reset, which can discard a C2HTermReq still
	 * in flight; take it, then end our side after what was queued. */
	char sink[4096];
	for (int i = 0; i < 16 && recv(conn->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	shutdown(conn->fd, SHUT_RDWR);
	if (!handed) {
		nvmf_tcp_unlink(&conn->tpg->pending, conn, offsetof(struct nvmf_tcp_conn, next));
		nvmf_tcp_conn_reap(conn);
		return;
	}
	nvmf_tcp_conn_drop_reqs(conn);
	conn->in_kill = true;
	nvmf_sq_destroy(&conn->sq);
	conn->in_kill = false;
	if (conn->released) {
		nvmf_tcp_unlink(&conn->tpg->conns, conn, offsetof(struct nvmf_tcp_conn, next));
		nvmf_tcp_conn_reap(conn);
	}
}

void nvmf_tcp_conn_fatal(struct nvmf_tcp_conn *conn, enum nvme_tcp_fes fes, uint32_t fei,
			 const void *hdr, uint32_t hdr_len)
{
	if (conn->state == NVMF_TCP_CONN_DEAD)
		return;
	struct nvmf_tcp_tx *tx = &conn->term;
	struct nvme_tcp_term *term = (struct nvme_tcp_term *)tx->hdr;
	uint32_t n = hdr_len < NVME_TCP_TERM_MAX_DATA ? hdr_len : NVME_TCP_TERM_MAX_DATA;
	memset(tx, 0, sizeof(*tx));
	term->ch.type = NVME_TCP_C2H_TERM;
	term->ch.hlen = sizeof(*term);
	term->ch.plen = htole32((uint32_t)sizeof(*term) + n);
	term->fes = htole16((uint16_t)fes);
	term->fei = htole32(fei);
	if (n)
		memcpy(tx->hdr + sizeof(*term), hdr, n);
	tx->hlen = (uint32_t)sizeof(*term) + n;
	nvmf_tcp_tx_queue(conn, tx);
	nvmf_tcp_conn_flush(conn);
	char why[200];
	uint8_t type = hdr_len ? *(const uint8_t *)hdr : 0u;
	/* 0x16 first on a port without TLS: a host that wants TLS, not a broken one. */
	bool hello = type == 0x16 && conn->state == NVMF_TCP_CONN_ICREQ;
	snprintf(why, sizeof(why),
		 "%s in a PDU of type 0x%02x: C2HTermReq FES %u FEI %u sent, connection closed",
		 hello ? "a TLS ClientHello on a port without TLS (addr.tsas is not \"tls1.3\")" :
			 "protocol error",
		 type, (unsigned)fes, fei);
	nvmf_tcp_conn_kill(conn, NVMF_LOG_WARNING, why);
}

/* ICReq (TCP transport 1.0 section 3.6.2.1, Figure 15): answer with ICResp. */
static void on_icreq(struct nvmf_tcp_conn *conn, const struct nvme_tcp_icreq *req)
{
	if (le16toh(req->pfv) != NVME_TCP_PFV_1_0) {
		nvmf_tcp_conn_fatal(conn, NVME_TCP_FES_UNSUPPORTED_PARAM,
				    offsetof(struct nvme_tcp_icreq, pfv), req, sizeof(*req));
		return;
	}
	if (req->hpda > NVME_TCP_MAX_PDA) {
		nvmf_tcp_conn_fatal(conn, NVME_TCP_FES_INVALID_HEADER,
				    offsetof(struct nvme_tcp_icreq, hpda), req, sizeof(*req));
		return;
	}
	/* Both digests are supported: the host gets what it asked for. MAXR2T needs
	 * nothing: a command has one R2T outstanding at most (for all its data), which
	 * every value allows. Our own data alignment (CPDA) is 0: H2C data right after the header. */
	conn->hpda = req->hpda;
	conn->cp.hdgst = req->dgst & NVME_TCP_DGST_HDR;
	conn->cp.ddgst = req->dgst & NVME_TCP_DGST_DATA;
	conn->cp.rx_pda = 0;
	struct nvmf_tcp_tx *tx = &conn->icresp;
	struct nvme_tcp_icresp *resp = (struct nvme_tcp_icresp *)tx->hdr;
	memset(tx, 0, sizeof(*tx));
	resp->ch.type = NVME_TCP_ICRESP;
	resp->ch.hlen = sizeof(*resp);
	resp->ch.plen = htole32(sizeof(*resp));
	resp->pfv = htole16(NVME_TCP_PFV_1_0);
	resp->cpda = 0;
	resp->dgst = (uint8_t)((conn->cp.hdgst ? NVME_TCP_DGST_HDR : 0) |
			       (conn->cp.ddgst ? NVME_TCP_DGST_DATA : 0));
	resp->maxh2cdata = htole32(conn->maxh2cdata);
	tx->hlen = sizeof(*resp);
	nvmf_tcp_tx_queue(conn, tx);
	conn->state = NVMF_TCP_CONN_CONNECT;
}

static bool digest_ok(const uint8_t *p, uint32_t len, uint32_t *got)
{
	uint32_t want;
	memcpy(got, p + len, sizeof(*got));
	*got = le32toh(*got);
	want = nvme_tcp_digest(p, len);
	return want == *got;
}

/* The header digest of the PDU at @p, header digests being on: when its type has one, a
 * mismatch ends the connection (C2HTermReq Header Digest Error, FEI the digest received).
 * Callers test conn->cp.hdgst first: without digests there is nothing to do. */
static bool hdr_digest_ok(struct nvmf_tcp_conn *conn, const uint8_t *p)
{
	const struct nvme_tcp_ch *ch = (const void *)p;
	uint32_t got;
	if (!nvme_tcp_pdu_has_hdgst(ch->type) || digest_ok(p, ch->hlen, &got))
		return true;
	nvmf_tcp_conn_fatal(conn, NVME_TCP_FES_HDR_DIGEST, got, p, ch->hlen + NVME_TCP_DIGEST_LEN);
	return false;
}

/* One whole PDU at @p (checked common header; @dlen bytes of data, as the check gave).
 * Returns false to stop parsing: the connection is dead, or (*gone) was handed over with
 * this PDU left unconsumed. */
static bool handle_pdu(struct nvmf_tcp_conn *conn, const uint8_t *p, uint32_t dlen, bool *gone)
{
	const struct nvme_tcp_ch *ch = (const void *)p;
	uint32_t got;
	if (conn->cp.hdgst && !hdr_digest_ok(conn, p))
		return false;
	/* Its data, when it has some (an H2CData PDU always has: nvme_tcp_check_ch). */
	const uint8_t *data = p + ch->pdo;
	bool ddgst_ok = !dlen || !conn->cp.ddgst || digest_ok(data, dlen, &got);
	switch (ch->type) {
	case NVME_TCP_ICREQ:
		on_icreq(conn, (const struct nvme_tcp_icreq *)p);
		return conn->state != NVMF_TCP_CONN_DEAD;
	case NVME_TCP_CMD:
		if (conn->state == NVMF_TCP_CONN_CONNECT) {
			/* The queue's id is known now: the core places it; the capsule stays in
			 * the buffer for the group that takes the connection. */
			*gone = true;
			nvmf_tcp_handoff(conn);
			return false;
		}
		nvmf_tcp_capsule(conn, (const struct nvme_tcp_cmd *)p, data, dlen, ddgst_ok);
		return conn->state != NVMF_TCP_CONN_DEAD;
	case NVME_TCP_H2C_DATA: {
		/* Checked against its command and R2T, then copied into its buffer. */
		const struct nvme_tcp_data *pdu = (const void *)p;
		struct nvmf_tcp_req *r = nvmf_tcp_h2c_check(conn, pdu, dlen);
		if (!r)
			return false;
		memcpy((uint8_t *)r->buf + le32toh(pdu->datao), data, dlen);
		nvmf_tcp_h2c_arrived(conn, r, dlen, ddgst_ok);
		return true;
	}
	case NVME_TCP_H2C_TERM: {
		const struct nvme_tcp_term *t = (const void *)p;
		char why[96];
		snprintf(why, sizeof(why),
			 "the host terminated the connection (H2CTermReq FES %u FEI %u)",
			 le16toh(t->fes), le32toh(t->fei));
		nvmf_tcp_conn_kill(conn, NVMF_LOG_WARNING, why);
		return false;
	}
	default: /* nvme_tcp_check_ch let no other type through */
		nvmf_tcp_conn_fatal(conn, NVME_TCP_FES_INVALID_HEADER,
				    offsetof(struct nvme_tcp_ch, type), p, ch->hlen);
		return false;
	}
}

/* An H2CData PDU at @p (@dlen bytes of data, as its checked common header gave) with
 * only @avail of its bytes buffered, its header (and header digest) among them: check it
 * and take its data straight into the command's buffer from now on (conn->rx_req).
 * False when the connection was terminated. */
static bool rx_direct_begin(struct nvmf_tcp_conn *conn, const uint8_t *p, uint32_t dlen,
			    uint32_t avail)
{
	const struct nvme_tcp_ch *ch = (const void *)p;
	if (conn->cp.hdgst && !hdr_digest_ok(conn, p))
		return false;
	const struct nvme_tcp_data *pdu = (const void *)p;
	struct nvmf_tcp_req *r = nvmf_tcp_h2c_check(conn, pdu, dlen);
	if (!r)
		return false;
	uint32_t have = avail - ch->pdo; /* < dlen + its digest: the PDU is not whole */
	uint32_t n = have < dlen ? have : dlen;
	conn->rx_req = r;
	conn->rx_datao = le32toh(pdu->datao);
	conn->rx_datal = dlen;
	conn->rx_got = n;
	conn->rx_ddgst_got = have - n;
	memcpy((uint8_t *)r->buf + conn->rx_datao, p + ch->pdo, n);
	memcpy(conn->rx_ddgst, p + ch->pdo + n, have - n);
	return true;
}

/* Receive into the command's buffer for conn->rx_req: returns the bytes received (0 at
 * EOF, -1 with errno), and once its data and digest are all in, hands them on. */
static ssize_t rx_direct(struct nvmf_tcp_conn *conn, uint32_t *want)
{
	struct nvmf_tcp_req *r = conn->rx_req;
	uint32_t dgst_len = conn->cp.ddgst ? NVME_TCP_DIGEST_LEN : 0;
	uint8_t *dst;
	if (conn->rx_got < conn->rx_datal) {
		dst = (uint8_t *)r->buf + conn->rx_datao + conn->rx_got;
		*want = conn->rx_datal - conn->rx_got;
	} else {
		dst = conn->rx_ddgst + conn->rx_ddgst_got;
		*want = dgst_len - conn->rx_ddgst_got;
	}
	/* *want > 0: rx_direct_begin took a PDU that was not whole, and a call that
	 * completes it hands it on before returning. */
	ssize_t n = conn->tls ? nvmf_tcp_tls_recv(conn, dst, *want) :
				recv(conn->fd, dst, *want, MSG_DONTWAIT);
	if (n <= 0)
		return n;
	if (conn->rx_got < conn->rx_datal)
		conn->rx_got += (uint32_t)n;
	else
		conn->rx_ddgst_got += (uint32_t)n;
	if (conn->rx_got < conn->rx_datal || conn->rx_ddgst_got < dgst_len)
		return n;
	bool ok = true;
	if (dgst_len) {
		uint32_t sent;
		memcpy(&sent, conn->rx_ddgst, sizeof(sent));
		ok = le32toh(sent) ==
		     nvme_tcp_digest((uint8_t *)r->buf + conn->rx_datao, conn->rx_datal);
	}
	conn->rx_req = NULL;
	conn->rx_was_direct = true;
	nvmf_tcp_h2c_arrived(conn, r, conn->rx_datal, ok);
	return n;
}

int nvmf_tcp_conn_parse(struct nvmf_tcp_conn *conn, bool *gone)
{
	int n = 0;
	*gone = false;
	while (conn->state != NVMF_TCP_CONN_DEAD &&
	       conn->rlen - conn->roff >= sizeof(struct nvme_tcp_ch)) {
		const uint8_t *p = conn->rbuf + conn->roff;
		const struct nvme_tcp_ch *ch = (const void *)p;
		uint32_t avail = conn->rlen - conn->roff, fei, dlen;
		enum nvme_tcp_fes fes = nvme_tcp_check_ch(
			ch, &conn->cp, conn->state == NVMF_TCP_CONN_ICREQ, &fei, &dlen);
		if (fes != NVME_TCP_FES_NONE) {
			uint32_t hl = ch->hlen ? ch->hlen : sizeof(*ch);
			nvmf_tcp_conn_fatal(conn, fes, fei, p, hl < avail ? hl : avail);
			return n + 1;
		}
		uint32_t plen = le32toh(ch->plen);
		if (avail < plen) {
			/* A write's data still coming: the rest goes straight to its command. */
			if (ch->type == NVME_TCP_H2C_DATA && conn->state == NVMF_TCP_CONN_LIVE &&
			    avail >= ch->pdo) {
				n++;
				if (!rx_direct_begin(conn, p, dlen, avail))
					return n;
				conn->roff = conn->rlen;
			}
			break;
		}
		n++;
		if (!handle_pdu(conn, p, dlen, gone))
			return n;
		conn->roff += plen;
	}
	if (conn->state == NVMF_TCP_CONN_DEAD)
		return n;
	/* Keep what is left of a partial PDU at the start: the buffer holds a whole one. */
	if (conn->roff == conn->rlen) {
		conn->roff = conn->rlen = 0;
	} else if (conn->roff) {
		memmove(conn->rbuf, conn->rbuf + conn->roff, conn->rlen - conn->roff);
		conn->rlen -= conn->roff;
		conn->roff = 0;
	}
	return n;
}

int nvmf_tcp_conn_readable(struct nvmf_tcp_conn *conn, bool *gone)
{
	int work = 0;
	*gone = false;
	if (conn->tls_phase == NVMF_TCP_TLS_SNIFF || conn->tls_phase == NVMF_TCP_TLS_HANDSHAKE) {
		work = nvmf_tcp_tls_readable(conn);
		if (conn->tls_phase != NVMF_TCP_TLS_NONE && conn->tls_phase != NVMF_TCP_TLS_UP)
			return work;
	}
	/* A few rounds at most, so that one busy connection does not starve the others. */
	for (int round = 0; round < 4 && conn->state != NVMF_TCP_CONN_DEAD; round++) {
		/* Into the command's buffer while an H2CData PDU's data is coming, else
		 * into rbuf. */
		bool direct = conn->rx_req != NULL;
		uint32_t want;
		ssize_t n;
		if (direct) {
			n = rx_direct(conn, &want);
		} else {
			want = conn->rcap - conn->rlen;
			if (!want) /* cannot happen: the buffer holds the largest PDU accepted */
				break;
			if (conn->rx_was_direct && want > NVMF_TCP_RX_PEEK)
				want = NVMF_TCP_RX_PEEK;
			conn->rx_was_direct = false;
			/* The plain path calls recv itself (no extra call per read). */
			n = conn->tls ? nvmf_tcp_tls_recv(conn, conn->rbuf + conn->rlen, want) :
					recv(conn->fd, conn->rbuf + conn->rlen, want, MSG_DONTWAIT);
		}
		if (n == 0) {
			nvmf_tcp_conn_kill(
				conn, NVMF_LOG_INFO,
				direct ?
					"the host closed the connection in the middle of an H2CData PDU" :
				conn->state == NVMF_TCP_CONN_LIVE ?
					"the host closed the connection" :
					NULL);
			return work + 1;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				char why[96];
				snprintf(why, sizeof(why), "receive: %s", strerror(errno));
				nvmf_tcp_conn_kill(conn, NVMF_LOG_WARNING, why);
				work++;
			}
			return work;
		}
		if (direct) {
			work++;
			if ((uint32_t)n < want && conn->rx_req)
				break; /* the socket has no more now */
			continue;
		}
		conn->rlen += (uint32_t)n;
		work += nvmf_tcp_conn_parse(conn, gone) + 1;
		if (*gone || (uint32_t)n < want)
			break;
	}
	return work;
}
