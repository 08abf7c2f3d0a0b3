/* SPDX-License-Identifier: MIT */
/*
 * The receive side of the NVMe/TCP host transport (TCP transport 1.0 sections 3.3, 3.6):
 * a state machine over the byte stream. The 8-byte common header is checked first
 * (nvme_tcp_check_ch) before any length in it is trusted; then the rest of the header up
 * to PDO (data PDUs) or PLEN, its digest, and the PDU's own fields against the command it
 * names. C2HData payload goes straight into the command's buffer at DATAO: copied out of
 * the receive buffer when it came in one read with its header, else read into the
 * buffer itself (on a plain socket one recvmsg takes the rest of the payload there and
 * what follows into the receive buffer).
 *
 * What the controller gets wrong is a connection error (an H2CTermReq with the FES, then
 * the queue is dead: every command fails with -ECONNRESET), never a write outside a
 * command's buffer: a PDU for a command id that is not outstanding, data out of order or
 * beyond the buffer, read data for a write, an R2T for a read or beyond the write, a
 * second R2T while one is answered (we announce MAXR2T 0), a header digest mismatch, a
 * C2HData whose SUCCESS flag would end its command without LAST_PDU (nvme_tcp_check_ch;
 * Linux refuses it too) or before its last byte (section 3.6.2.8). A data digest
 * mismatch fails only its command, with Data Transfer Error (as Linux does), SUCCESS or
 * not. SUCCESS is taken on any queue, as Linux does, though a controller sets it only
 * where the host disabled SQ flow control (nvmf_ctrl_opts.disable_sqflow).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "tcp/host/host.h"

/* Generic status Data Transfer Error (NVMe Base 2.0 Figure 102, SC 04h), in the CQE's
 * status field (bit 0 is the phase tag). */
#define TH_STATUS_DATA_XFER_ERROR ((uint16_t)(0x04u << 1))

int nvmf_th_fail(struct nvmf_th_queue *q, const char *fmt, ...)
{
	if (q->dead)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(q->err, sizeof(q->err), fmt, ap);
	va_end(ap);
	q->dead = true;
	/* Before ICResp the caller of connect reports it; later nobody else would. */
	if (q->ic_done)
		fprintf(stderr, "nvmf-tcp host: queue %u (%s): %s\n", q->qid, q->peer, q->err);
	return -1;
}

/* A protocol error of the controller: H2CTermReq with @fes/@fei and the header, then dead. */
static int proto_fail(struct nvmf_th_queue *q, enum nvme_tcp_fes fes, uint32_t fei, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));
static int proto_fail(struct nvmf_th_queue *q, enum nvme_tcp_fes fes, uint32_t fei, const char *fmt,
		      ...)
{
	char what[NVMF_TH_ERR_MAX - 48];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	nvmf_th_send_term(q, fes, fei, q->hdr, q->hdr_have);
	return nvmf_th_fail(q, "%s (H2CTermReq FES %u: %s)", what, (unsigned)fes,
			    nvmf_th_fes_str(fes));
}

static void next_pdu(struct nvmf_th_queue *q)
{
	q->phase = NVMF_TH_RX_HDR;
	q->hdr_have = 0;
	q->hdr_need = sizeof(struct nvme_tcp_ch);
	q->rx_cmd = NULL;
}

/* The outstanding command with id @cid, or NULL. */
static struct nvmf_th_cmd *lookup(struct nvmf_th_queue *q, uint16_t cid)
{
	if (cid >= q->size || !q->cmds[cid].cmd)
		return NULL;
	return &q->cmds[cid];
}

/* @c ends with @cqe: off the send side, its data error applied, the core told. */
static int complete(struct nvmf_th_queue *q, struct nvmf_th_cmd *c, const struct nvme_cqe *in)
{
	struct nvme_cqe cqe = *in;

	if (nvmf_th_tx_forget(q, c))
		return -1;
	if (c->data_err)
		cqe.status = htole16(TH_STATUS_DATA_XFER_ERROR);
	c->cmd = NULL;
	q->completions++;
	nvmf_hq_complete(q->hq, &cqe);
	return 0;
}

static int on_icresp(struct nvmf_th_queue *q)
{
	const struct nvme_tcp_icresp *r = (const void *)q->hdr;
	uint16_t pfv = le16toh(r->pfv);
	uint32_t maxh2c = le32toh(r->maxh2cdata);
	uint8_t want = (uint8_t)((q->rxp.hdgst ? NVME_TCP_DGST_HDR : 0) |
				 (q->rxp.ddgst ? NVME_TCP_DGST_DATA : 0));

	q->ic_rc = -EPROTO;
	if (pfv != NVME_TCP_PFV_1_0)
		return nvmf_th_fail(q, "unsupported PFV %u (only 0, version 1.0)", pfv);
	if (r->cpda > NVME_TCP_MAX_PDA)
		return nvmf_th_fail(q, "CPDA %u out of range (0..%u)", r->cpda, NVME_TCP_MAX_PDA);
	if (r->dgst != want)
		return nvmf_th_fail(q,
				    "digests granted (header %s, data %s) differ from those "
				    "requested (header %s, data %s)",
				    r->dgst & NVME_TCP_DGST_HDR ? "on" : "off",
				    r->dgst & NVME_TCP_DGST_DATA ? "on" : "off",
				    q->rxp.hdgst ? "on" : "off", q->rxp.ddgst ? "on" : "off");
	if (maxh2c < NVME_TCP_MIN_MAXH2CDATA || maxh2c % 4)
		return nvmf_th_fail(q,
				    "MAXH2CDATA %u: at least %u bytes, a multiple of 4, required",
				    maxh2c, NVME_TCP_MIN_MAXH2CDATA);
	q->cpda = r->cpda;
	q->maxh2cdata = maxh2c;
	q->ic_rc = 0;
	q->ic_done = true;
	return 0;
}

static int on_term(struct nvmf_th_queue *q)
{
	const struct nvme_tcp_term *t = (const void *)q->hdr;
	unsigned fes = le16toh(t->fes);

	if (!q->ic_done)
		q->ic_rc = -ECONNREFUSED; /* the controller refused our ICReq */
	return nvmf_th_fail(q,
			    "the controller terminated the connection: C2HTermReq FES %u (%s), "
			    "FEI %u",
			    fes, nvmf_th_fes_str(fes), le32toh(t->fei));
}

static int on_rsp(struct nvmf_th_queue *q)
{
	const struct nvme_tcp_rsp *r = (const void *)q->hdr;
	struct nvme_cqe cqe = r->cqe;
	struct nvmf_th_cmd *c = lookup(q, cqe.command_id);

	if (!c)
		return proto_fail(
			q, NVME_TCP_FES_INVALID_HEADER,
			offsetof(struct nvme_tcp_rsp, cqe) + offsetof(struct nvme_cqe, command_id),
			"CapsuleResp for command id %u, which is not outstanding", cqe.command_id);
	next_pdu(q);
	return complete(q, c, &cqe);
}

static int on_c2h(struct nvmf_th_queue *q)
{
	const struct nvme_tcp_data *d = (const void *)q->hdr;
	struct nvmf_th_cmd *c = lookup(q, d->cccid);
	uint32_t datao = le32toh(d->datao), datal = le32toh(d->datal);
	uint32_t n = nvme_tcp_data_len(&d->ch, &q->rxp);

	if (!c || c->cmd->write || !c->cmd->len)
		return proto_fail(q, NVME_TCP_FES_INVALID_HEADER,
				  offsetof(struct nvme_tcp_data, cccid),
				  "C2HData for command id %u, %s", d->cccid,
				  !c ? "which is not outstanding" : "which reads no data");
	if (datal != n)
		return proto_fail(
			q, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_data, datal),
			"C2HData for command id %u: DATAL %u but the PDU carries %u bytes",
			d->cccid, datal, n);
	if (datao != c->rcvd)
		return proto_fail(
			q, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0,
			"C2HData for command id %u at DATAO %u, expected %u (data in order)",
			d->cccid, datao, c->rcvd);
	if ((uint64_t)datao + datal > c->cmd->len)
		return proto_fail(
			q, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0,
			"C2HData for command id %u: bytes %u..%llu beyond its %u-byte buffer",
			d->cccid, datao, (unsigned long long)datao + datal - 1, c->cmd->len);
	/* SUCCESS completes the command: with every byte in (nvme_tcp_check_ch saw LAST_PDU
	 * beside it). */
	if ((d->ch.flags & NVME_TCP_F_DATA_SUCCESS) && datao + datal != c->cmd->len)
		return proto_fail(q, NVME_TCP_FES_INVALID_HEADER,
				  offsetof(struct nvme_tcp_ch, flags),
				  "C2HData for command id %u: SUCCESS before its last byte (bytes "
				  "%u..%u of %u)",
				  d->cccid, datao, datao + datal - 1, c->cmd->len);
	q->rx_cmd = c;
	q->rx_cid = d->cccid;
	q->rx_flags = d->ch.flags;
	q->data_left = datal;
	q->data_dst = (uint8_t *)c->cmd->buf + datao;
	q->crc = NVME_TCP_CRC32C_INIT;
	q->phase = NVMF_TH_RX_DATA;
	c->rcvd += datal; /* checked against the buffer above */
	return 0;
}

static int on_r2t(struct nvmf_th_queue *q)
{
	const struct nvme_tcp_r2t *r = (const void *)q->hdr;
	struct nvmf_th_cmd *c = lookup(q, r->cccid);
	uint32_t off = le32toh(r->r2to), len = le32toh(r->r2tl);

	if (!c || !c->cmd->write || !c->cmd->len || c->incapsule)
		return proto_fail(q, NVME_TCP_FES_INVALID_HEADER,
				  offsetof(struct nvme_tcp_r2t, cccid), "R2T for command id %u, %s",
				  r->cccid,
				  !c             ? "which is not outstanding" :
				  !c->cmd->write ? "which is a read" :
				  c->incapsule   ? "whose data went in the capsule" :
						   "which writes no data");
	if (!c->capsule_out)
		return proto_fail(q, NVME_TCP_FES_PDU_SEQUENCE, 0,
				  "R2T for command id %u before its capsule was sent", r->cccid);
	if (!len)
		return proto_fail(q, NVME_TCP_FES_INVALID_HEADER,
				  offsetof(struct nvme_tcp_r2t, r2tl),
				  "R2T for command id %u asks for 0 bytes", r->cccid);
	if (c->r2t_left || c->in_txq)
		return proto_fail(q, NVME_TCP_FES_R2T_LIMIT_EXCEEDED, 0,
				  "R2T for command id %u while its previous R2T is still answered "
				  "(MAXR2T 0: one at a time)",
				  r->cccid);
	if (off < c->sent || (uint64_t)off + len > c->cmd->len)
		return proto_fail(
			q, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0,
			"R2T for command id %u asks for bytes %u..%llu of %u (%u already sent)",
			r->cccid, off, (unsigned long long)off + len - 1, c->cmd->len, c->sent);
	c->ttag = le16toh(r->ttag);
	c->r2t_off = off;
	c->r2t_left = len;
	nvmf_th_tx_queue(q, c);
	next_pdu(q);
	return 0;
}

/* The whole header (and its digest) is in q->hdr. */
static int on_header(struct nvmf_th_queue *q)
{
	const struct nvme_tcp_ch *ch = (const void *)q->hdr;

	if (q->rxp.hdgst && nvme_tcp_pdu_has_hdgst(ch->type)) {
		uint32_t got;
		memcpy(&got, q->hdr + ch->hlen, sizeof(got));
		got = le32toh(got);
		if (got != nvme_tcp_digest(q->hdr, ch->hlen))
			return proto_fail(q, NVME_TCP_FES_HDR_DIGEST, got,
					  "header digest mismatch on a PDU of type 0x%02x",
					  ch->type);
	}
	switch (ch->type) {
	case NVME_TCP_ICRESP:
		next_pdu(q);
		return on_icresp(q);
	case NVME_TCP_C2H_TERM:
		return on_term(q);
	case NVME_TCP_RSP:
		return on_rsp(q);
	case NVME_TCP_C2H_DATA:
		return on_c2h(q);
	case NVME_TCP_R2T:
		return on_r2t(q);
	default: /* nvme_tcp_check_ch let no other type through */
		return proto_fail(q, NVME_TCP_FES_INVALID_HEADER, 0, "PDU type 0x%02x", ch->type);
	}
}

/* The common header arrived: check it, then how much header follows. */
static int on_ch(struct nvmf_th_queue *q)
{
	const struct nvme_tcp_ch *ch = (const void *)q->hdr;
	uint32_t fei = 0;
	enum nvme_tcp_fes fes = nvme_tcp_check_ch(ch, &q->rxp, !q->ic_done, &fei, NULL);

	if (fes != NVME_TCP_FES_NONE) {
		if (!q->ic_done)
			q->ic_rc = -EPROTO;
		return proto_fail(q, fes, fei,
				  "bad PDU header: type 0x%02x flags 0x%02x hlen %u "
				  "pdo %u plen %u, field at byte %u",
				  ch->type, ch->flags, ch->hlen, ch->pdo, le32toh(ch->plen), fei);
	}
	q->hdr_need = ch->type == NVME_TCP_C2H_DATA ? ch->pdo : le32toh(ch->plen);
	return 0;
}

/* The C2HData payload (and digest) is all in: account for it. */
static int data_done(struct nvmf_th_queue *q, bool digest_ok)
{
	struct nvmf_th_cmd *c = q->rx_cmd;
	uint8_t flags = q->rx_flags;
	uint16_t cid = q->rx_cid;

	if (!digest_ok && !c->data_err) {
		c->data_err = true;
		fprintf(stderr,
			"nvmf-tcp host: queue %u (%s): data digest mismatch in C2HData of "
			"command id %u: it fails with Data Transfer Error\n",
			q->qid, q->peer, cid);
	}
	next_pdu(q);
	if (!(flags & NVME_TCP_F_DATA_SUCCESS))
		return 0;
	/* SUCCESS: the command completed without a CapsuleResp (section 3.3.4). */
	struct nvme_cqe cqe;
	memset(&cqe, 0, sizeof(cqe));
	cqe.command_id = cid;
	cqe.sq_id = htole16(q->qid);
	return complete(q, c, &cqe);
}

static int data_end(struct nvmf_th_queue *q)
{
	if (!q->rxp.ddgst)
		return data_done(q, true);
	q->phase = NVMF_TH_RX_DDGST;
	q->dd_have = 0;
	return 0;
}

static int data_in(struct nvmf_th_queue *q, const uint8_t *src, uint32_t n)
{
	if (src != q->data_dst)
		memcpy(q->data_dst, src, n);
	if (q->rxp.ddgst)
		q->crc = nvme_tcp_crc32c(q->crc, q->data_dst, n);
	q->data_dst += n;
	q->data_left -= n;
	return q->data_left ? 0 : data_end(q);
}

/* Take what the receive buffer holds for the current phase. */
static int consume(struct nvmf_th_queue *q)
{
	const uint8_t *p = q->rxbuf + q->rx_off;
	uint32_t avail = q->rx_len - q->rx_off, take;

	switch (q->phase) {
	case NVMF_TH_RX_HDR:
		take = q->hdr_need - q->hdr_have;
		take = take < avail ? take : avail;
		memcpy(q->hdr + q->hdr_have, p, take);
		q->rx_off += take;
		q->hdr_have += take;
		if (q->hdr_have < q->hdr_need)
			return 0;
		if (q->hdr_need == sizeof(struct nvme_tcp_ch)) {
			if (on_ch(q))
				return -1;
			if (q->hdr_have < q->hdr_need)
				return 0;
		}
		return on_header(q);
	case NVMF_TH_RX_DATA:
		take = q->data_left < avail ? q->data_left : avail;
		q->rx_off += take;
		return data_in(q, p, take);
	case NVMF_TH_RX_DDGST:
		take = NVME_TCP_DIGEST_LEN - q->dd_have;
		take = take < avail ? take : avail;
		memcpy(q->dd + q->dd_have, p, take);
		q->rx_off += take;
		q->dd_have += take;
		if (q->dd_have < NVME_TCP_DIGEST_LEN)
			return 0;
		uint32_t got;
		memcpy(&got, q->dd, sizeof(got));
		return data_done(q, le32toh(got) == nvme_tcp_crc32c_final(q->crc));
	}
	return -1;
}

int nvmf_th_rx(struct nvmf_th_queue *q, unsigned max)
{
	/* A plain socket that filled less than asked has nothing more now: the next pass
	 * reads again, without a recv here that would only say EAGAIN. */
	bool drained = false;

	q->completions = 0;
	while (!q->dead) {
		if (max && q->completions >= max)
			return 0;
		if (q->rx_off < q->rx_len) {
			if (consume(q))
				return -1;
			continue;
		}
		if (drained)
			return 0;
		/* Empty: refill. In a C2HData payload the rest of it goes where it belongs:
		 * on a plain socket with what follows it into the receive buffer in the same
		 * recvmsg; through TLS alone, when large. */
		bool data = q->phase == NVMF_TH_RX_DATA;
		bool both = data && !q->tls;
		bool direct = data && q->tls && q->data_left >= NVMF_TH_DIRECT_MIN;
		struct iovec iov[2] = { { .iov_base = q->data_dst, .iov_len = q->data_left },
					{ .iov_base = q->rxbuf, .iov_len = NVMF_TH_RXBUF } };
		size_t want = both   ? (size_t)q->data_left + NVMF_TH_RXBUF :
			      direct ? q->data_left :
				       NVMF_TH_RXBUF;
		q->rx_off = q->rx_len = 0;
		ssize_t n = both   ? nvmf_th_recvv(q, iov, 2) :
			    direct ? nvmf_th_recv(q, q->data_dst, want) :
				     nvmf_th_recv(q, q->rxbuf, want);
		if (n == 0)
			return nvmf_th_fail(q, "connection closed by the controller");
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return nvmf_th_fail(q, "recv: %s", strerror(errno));
		}
		drained = !q->tls && (size_t)n < want;
		uint32_t got = (uint32_t)n, in_data = 0;
		if (both || direct) {
			in_data = got < q->data_left ? got : q->data_left;
			if (data_in(q, q->data_dst, in_data))
				return -1;
		}
		q->rx_len = got - in_data; /* what followed the payload, at rxbuf's start */
	}
	return -1;
}
