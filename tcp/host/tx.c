/* SPDX-License-Identifier: MIT */
/*
 * The send side of the NVMe/TCP host transport (TCP transport 1.0 sections 3.3, 3.6.2):
 * commands with something to send wait on a FIFO; their PDUs are built in turn (header and
 * digest, padding to PDO, data straight from the command's buffer, data digest). Up to
 * NVMF_TH_TX_BATCH PDUs (several commands' capsules, H2CData) are built ahead on a ring and
 * written together with one non-blocking sendmsg: one system call per poll pass, not one
 * per command. A CapsuleCmd carries a write's data when it fits the queue's in-capsule
 * size; other data goes in H2CData PDUs of at most MAXH2CDATA bytes answering an R2T, the
 * last of them flagged LAST.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "nvme/sgl.h"
#include "tcp/host/host.h"

const char *nvmf_th_fes_str(unsigned fes)
{
	switch (fes) {
	case NVME_TCP_FES_INVALID_HEADER:
		return "invalid header field";
	case NVME_TCP_FES_PDU_SEQUENCE:
		return "PDU sequence error";
	case NVME_TCP_FES_HDR_DIGEST:
		return "header digest error";
	case NVME_TCP_FES_DATA_OUT_OF_RANGE:
		return "data transfer out of range";
	case NVME_TCP_FES_R2T_LIMIT_EXCEEDED:
		return "R2T limit exceeded";
	case NVME_TCP_FES_UNSUPPORTED_PARAM:
		return "unsupported parameter";
	default:
		return "unknown status";
	}
}

void nvmf_th_tx_queue(struct nvmf_th_queue *q, struct nvmf_th_cmd *c)
{
	if (c->in_txq)
		return;
	TAILQ_INSERT_TAIL(&q->txq, c, link);
	c->in_txq = true;
}

bool nvmf_th_tx_pending(const struct nvmf_th_queue *q)
{
	return q->tx_count || !TAILQ_EMPTY(&q->txq) || (q->tls && nvmf_tls_tx_pending(q->tls));
}

/* The Transport SGL Data Block (5Ah) for data not in the capsule (section 3.3.2):
 * address 0, @len bytes; PSDT 01b as for every SGL, FUSE kept. */
static void set_transport_sgl(struct nvme_sqe *sqe, uint32_t len)
{
	memset(&sqe->dptr, 0, sizeof(sqe->dptr));
	sqe->dptr.unkeyed.length = htole32(len);
	sqe->dptr.unkeyed.type = NVME_SGL_TCP_TRANSPORT;
	sqe->flags = (uint8_t)((sqe->flags & 0x03u) | NVME_CMD_PSDT_SGL_MPTR);
}

/* Common header, header digest and padding of a PDU of @type into t->hdr; @data bytes
 * of data (0: none) follow at the PDO the controller's CPDA asks for. */
static void build_hdr(const struct nvmf_th_queue *q, struct nvmf_th_txpdu *t, uint8_t type,
		      uint8_t flags, uint32_t data)
{
	t->hdr_len =
		nvme_tcp_pdu_hdr(t->hdr, type, flags, q->rxp.hdgst, q->rxp.ddgst, q->cpda, data);
	t->ddgst_len = data && q->rxp.ddgst ? NVME_TCP_DIGEST_LEN : 0;
}

static void set_data(struct nvmf_th_txpdu *t, const uint8_t *data, uint32_t len)
{
	t->data = data;
	t->data_len = len;
	if (t->ddgst_len) {
		uint32_t d = htole32(nvme_tcp_digest(data, len));
		memcpy(t->ddgst, &d, sizeof(d));
	}
}

/* The next PDU of the FIFO's first command into @t; false when the FIFO is empty. */
static bool next_pdu(struct nvmf_th_queue *q, struct nvmf_th_txpdu *t)
{
	struct nvmf_th_cmd *c = TAILQ_FIRST(&q->txq);

	if (!c)
		return false;
	TAILQ_REMOVE(&q->txq, c, link);
	c->in_txq = false;
	t->dropped = false;
	t->owner = c;
	t->data = NULL;
	t->data_len = 0;
	t->off = 0;

	struct nvmf_hcmd *cmd = c->cmd;
	if (!c->capsule_out) {
		/* CapsuleCmd: the SQE as the core built it, with our data pointer. */
		struct nvme_tcp_cmd *pdu = (struct nvme_tcp_cmd *)t->hdr;
		uint32_t icd = c->incapsule ? cmd->len : 0;
		pdu->sqe = cmd->sqe;
		if (icd)
			nvme_sgl_set_incapsule(&pdu->sqe, 0, icd);
		else
			set_transport_sgl(&pdu->sqe, cmd->len);
		build_hdr(q, t, NVME_TCP_CMD, 0, icd);
		if (icd) {
			set_data(t, cmd->buf, icd);
			c->sent = icd;
		}
		c->capsule_out = true;
		return true;
	}
	/* H2CData: the next piece of the R2T being answered. */
	uint32_t n = c->r2t_left < q->maxh2cdata ? c->r2t_left : q->maxh2cdata;
	struct nvme_tcp_data *pdu = (struct nvme_tcp_data *)t->hdr;
	pdu->cccid = cmd->sqe.command_id;
	pdu->ttag = htole16(c->ttag);
	pdu->datao = htole32(c->r2t_off);
	pdu->datal = htole32(n);
	memset(pdu->rsvd, 0, sizeof(pdu->rsvd));
	build_hdr(q, t, NVME_TCP_H2C_DATA, n == c->r2t_left ? NVME_TCP_F_DATA_LAST : 0, n);
	set_data(t, (const uint8_t *)cmd->buf + c->r2t_off, n);
	c->r2t_off += n;
	c->r2t_left -= n;
	c->sent = c->r2t_off;
	if (c->r2t_left)
		nvmf_th_tx_queue(q, c); /* behind the others: commands share the link */
	return true;
}

static struct nvmf_th_txpdu *tx_slot(struct nvmf_th_queue *q, unsigned i)
{
	return &q->tx[(q->tx_head + i) % NVMF_TH_TX_BATCH];
}

/* The oldest PDU is written (or dropped): off the ring. */
static void pdu_done(struct nvmf_th_queue *q)
{
	struct nvmf_th_txpdu *t = &q->tx[q->tx_head];
	free(t->copy);
	t->copy = NULL;
	t->owner = NULL;
	t->dropped = false;
	q->tx_head = (q->tx_head + 1) % NVMF_TH_TX_BATCH;
	q->tx_count--;
}

/* The iovecs of what the ring has not written yet (dropped PDUs skipped), into @iov
 * (3 per PDU at most). Returns how many. */
static int ring_iov(struct nvmf_th_queue *q, struct iovec *iov)
{
	int n = 0;
	for (unsigned k = 0; k < q->tx_count; k++) {
		const struct nvmf_th_txpdu *t = tx_slot(q, k);
		if (t->dropped)
			continue;
		uint32_t off = t->off;
		const uint8_t *part[3] = { t->hdr, t->data, t->ddgst };
		uint32_t len[3] = { t->hdr_len, t->data_len, t->ddgst_len };
		for (int i = 0; i < 3; i++) {
			if (off >= len[i]) {
				off -= len[i];
				continue;
			}
			iov[n].iov_base = (void *)(part[i] + off);
			iov[n].iov_len = len[i] - off;
			off = 0;
			n++;
		}
	}
	return n;
}

/* @w bytes went out: the PDUs they finish leave the ring, the next one keeps its offset.
 * Returns whether everything the ring held was written. */
static bool ring_advance(struct nvmf_th_queue *q, size_t w)
{
	while (q->tx_count) {
		struct nvmf_th_txpdu *t = &q->tx[q->tx_head];
		if (t->dropped) {
			pdu_done(q);
			continue;
		}
		uint32_t left = t->hdr_len + t->data_len + t->ddgst_len - t->off;
		if (w < left) {
			t->off += (uint32_t)w;
			return false;
		}
		w -= left;
		pdu_done(q);
	}
	return true;
}

int nvmf_th_tx_flush(struct nvmf_th_queue *q)
{
	struct iovec iov[3 * NVMF_TH_TX_BATCH];

	while (!q->dead) {
		/* Build what the FIFO has behind what is still being written. */
		while (q->tx_count < NVMF_TH_TX_BATCH && next_pdu(q, tx_slot(q, q->tx_count)))
			q->tx_count++;
		int n = ring_iov(q, iov);
		if (!n) {
			while (q->tx_count) /* only dropped PDUs */
				pdu_done(q);
			return 0;
		}
		ssize_t w = nvmf_th_sendv(q, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return nvmf_th_fail(q, "send: %s", strerror(errno));
		}
		/* A short write: the socket is full, try again in the next pass. */
		if (!ring_advance(q, (size_t)w))
			return 0;
	}
	return -1;
}

int nvmf_th_tx_forget(struct nvmf_th_queue *q, struct nvmf_th_cmd *c)
{
	if (c->in_txq) {
		TAILQ_REMOVE(&q->txq, c, link);
		c->in_txq = false;
	}
	for (unsigned k = 0; k < q->tx_count; k++) {
		struct nvmf_th_txpdu *t = tx_slot(q, k);
		if (t->owner != c)
			continue;
		t->owner = NULL;
		if (t->off == 0) {
			t->dropped = true; /* not started: the stream does not miss it */
			continue;
		}
		if (!t->data_len)
			continue;
		t->copy = malloc(t->data_len);
		if (!t->copy)
			return nvmf_th_fail(q, "out of memory for a PDU in flight");
		memcpy(t->copy, t->data, t->data_len);
		t->data = t->copy;
	}
	return 0;
}

void nvmf_th_send_term(struct nvmf_th_queue *q, enum nvme_tcp_fes fes, uint32_t fei,
		       const void *hdr, uint32_t hlen)
{
	uint8_t buf[sizeof(struct nvme_tcp_term) + NVME_TCP_TERM_MAX_DATA];
	struct nvme_tcp_term *term = (struct nvme_tcp_term *)buf;

	if (q->fd < 0 || (q->tx_count && q->tx[q->tx_head].off))
		return; /* a half-written PDU: the stream cannot take another now */
	if (hlen > NVME_TCP_TERM_MAX_DATA)
		hlen = NVME_TCP_TERM_MAX_DATA;
	memset(term, 0, sizeof(*term));
	term->ch.type = NVME_TCP_H2C_TERM;
	term->ch.hlen = sizeof(*term);
	term->ch.plen = htole32((uint32_t)sizeof(*term) + hlen);
	term->fes = htole16((uint16_t)fes);
	term->fei = htole32(fei);
	memcpy(buf + sizeof(*term), hdr, hlen);
	/* One try: the connection is being given up anyway. */
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(*term) + hlen };
	(void)!nvmf_th_sendv(q, &iov, 1);
}
