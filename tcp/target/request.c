/* SPDX-License-Identifier: MIT */
/*
 * One command on an NVMe/TCP connection (TCP transport 1.0 section 3.3 "data transfer"):
 * the CapsuleCmd is decoded by the core (nvmf_req_init), its data pointer here
 * (nvme_sgl_parse_tcp). Write data comes in the capsule, or is asked for with one R2T for
 * all of it (as nvmet and SPDK; every MAXR2T allows one) and arrives in H2CData PDUs of
 * at most MAXH2CDATA bytes each, checked against the command and the R2T before a byte
 * is copied. Read data leaves in one C2HData PDU (as nvmet), then the CapsuleResp; or,
 * when the core says the CQE holds nothing but "success" (req->cqe_optional: the queue
 * disabled SQ flow control, so there is no SQHD to report, status 0, DW0/DW1 0), that
 * C2HData carries LAST_PDU and SUCCESS and no CapsuleResp follows (TCP transport 1.0
 * section 3.6.2.8; nvmet sets SUCCESS on such queues too, and the Linux host takes it
 * only with LAST_PDU, completing the command with status 0 and result 0): one PDU less
 * per read.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "nvme/sgl.h"
#include "tcp/target/internal.h"

void nvmf_tcp_pdu_build(struct nvmf_tcp_conn *conn, struct nvmf_tcp_tx *tx, uint8_t type,
			uint8_t flags, const void *data, uint32_t dlen)
{
	bool dd = dlen && conn->cp.ddgst;

	tx->hlen = nvme_tcp_pdu_hdr(tx->hdr, type, flags, conn->cp.hdgst, conn->cp.ddgst,
				    conn->hpda, dlen);
	tx->data = data;
	tx->dlen = dlen;
	tx->ddgst_len = dd ? NVME_TCP_DIGEST_LEN : 0;
	if (dd) {
		uint32_t d = htole32(nvme_tcp_digest(data, dlen));
		memcpy(tx->ddgst, &d, sizeof(d));
	}
	tx->next = NULL;
	tx->done = NULL;
	tx->zc_req = NULL;
}

void nvmf_tcp_req_release(struct nvmf_tcp_req *r)
{
	struct nvmf_tcp_conn *conn = r->conn;
	if (r->zc_refs) {             /* the kernel still reads its buffer */
		r->zc_release = true; /* nvmf_tcp_zc_complete releases it */
		return;
	}
	if (r->buf)
		nvmf_tcp_buf_put(conn->tpg, r->buf, r->buf_len);
	r->buf = NULL;
	r->buf_len = 0;
	r->state = NVMF_TCP_REQ_FREE;
	r->next_free = conn->free_reqs;
	conn->free_reqs = r;
	conn->busy_reqs--;
}

void nvmf_tcp_conn_drop_reqs(struct nvmf_tcp_conn *conn)
{
	/* Queued PDUs first: a response's command is released with it. */
	for (struct nvmf_tcp_tx *tx = conn->tx_head, *next; tx; tx = next) {
		next = tx->next;
		if (tx->done)
			nvmf_tcp_req_release(tx->done);
	}
	conn->tx_head = conn->tx_tail = NULL;
	conn->tx_bytes = 0;
	conn->tx_off = 0;
	for (uint32_t i = 0; i < conn->nreqs; i++) {
		struct nvmf_tcp_req *r = &conn->reqs[i];
		if (r->state == NVMF_TCP_REQ_H2C_DATA) {
			nvmf_req_abandon(&r->req);
			nvmf_tcp_req_release(r);
		}
	}
}

/* The R2T of @r: all its data from where it stands. MAXH2CDATA bounds each H2CData
 * PDU, not the R2T (TCP transport 1.0 section 3.6.2.3): the host sends the R2T's data in
 * as many PDUs as that takes, so a large write costs one round trip, not one per
 * MAXH2CDATA. */
static void send_r2t(struct nvmf_tcp_conn *conn, struct nvmf_tcp_req *r)
{
	struct nvme_tcp_r2t *p = (struct nvme_tcp_r2t *)r->r2t.hdr;
	uint32_t len = r->req.data_len - r->h2c_done;
	memset(p, 0, sizeof(*p));
	p->cccid = r->sqe.command_id;
	p->ttag = htole16(r->ttag);
	p->r2to = htole32(r->h2c_done);
	p->r2tl = htole32(len);
	r->r2t_end = r->h2c_done + len;
	nvmf_tcp_pdu_build(conn, &r->r2t, NVME_TCP_R2T, 0, NULL, 0);
	nvmf_tcp_tx_queue(conn, &r->r2t);
}

void nvmf_tcp_capsule(struct nvmf_tcp_conn *conn, const struct nvme_tcp_cmd *pdu,
		      const uint8_t *data, uint32_t dlen, bool ddgst_ok)
{
	if (!nvmf_sq_accepting(&conn->sq)) /* stopping: dropped unanswered (transport.h) */
		return;
	struct nvmf_tcp_req *r = conn->free_reqs;
	if (!r) {
		/* More commands than the queue has entries: no FES names it better. */
		nvmf_tcp_conn_fatal(conn, NVME_TCP_FES_PDU_SEQUENCE, 0, pdu, pdu->ch.hlen);
		return;
	}
	conn->free_reqs = r->next_free;
	conn->busy_reqs++;
	r->state = NVMF_TCP_REQ_EXECUTING; /* unless it waits for H2CData (below) */
	r->sqe = pdu->sqe;
	r->h2c_done = r->r2t_end = 0;
	r->ddgst_error = false;
	struct nvmf_req *req = &r->req;
	req->transport_priv = r;
	req->data = NULL;
	if (!nvmf_req_init(req, &conn->sq, &r->sqe, &r->cqe))
		return; /* answered already */
	struct nvme_sgl_info sgl;
	/* Only what this queue's capsules may carry counts as in-capsule data. */
	nvme_status_t st = nvme_sgl_parse_tcp(&r->sqe, dlen < conn->icsz ? dlen : conn->icsz,
					      req->dir == NVMF_XFER_H2C, &sgl);
	if (st) {
		nvmf_req_complete(req, st);
		return;
	}
	req->sgl_len = sgl.len;
	/* A length the command does not match fails in nvmf_req_execute() before any data
	 * moves; so does a direction without data. */
	if (sgl.kind == NVME_SGL_KIND_NONE || sgl.len != req->data_len ||
	    req->dir == NVMF_XFER_NONE) {
		nvmf_req_execute(req);
		return;
	}
	if (sgl.kind == NVME_SGL_KIND_INCAPSULE && !ddgst_ok) { /* as nvmet: the host may retry */
		nvmf_req_complete(req, nvme_generic(NVME_SC_TRAN_TPORT_ERROR));
		return;
	}
	/* A buffer of the command's length, for the data in the capsule or to come. */
	r->buf = nvmf_tcp_buf_get(conn->tpg, req->data_len, &r->buf_len);
	if (!r->buf) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	req->data = r->buf;
	if (sgl.kind == NVME_SGL_KIND_INCAPSULE) {
		memcpy(r->buf, data + sgl.offset, sgl.len);
		nvmf_req_execute(req);
		return;
	}
	/* NVME_SGL_KIND_TRANSPORT */
	if (req->dir == NVMF_XFER_C2H) {
		nvmf_req_execute(req);
		return;
	}
	r->state = NVMF_TCP_REQ_H2C_DATA;
	send_r2t(conn, r);
}

struct nvmf_tcp_req *nvmf_tcp_h2c_check(struct nvmf_tcp_conn *conn, const struct nvme_tcp_data *pdu,
					uint32_t dlen)
{
	uint16_t ttag = le16toh(pdu->ttag);
	struct nvmf_tcp_req *r = ttag < conn->nreqs ? &conn->reqs[ttag] : NULL;
	uint32_t fei = 0;
	enum nvme_tcp_fes fes = NVME_TCP_FES_NONE;
	uint32_t datao = le32toh(pdu->datao), datal = le32toh(pdu->datal);
	if (!r || r->state != NVMF_TCP_REQ_H2C_DATA) {
		fes = NVME_TCP_FES_INVALID_HEADER;
		fei = offsetof(struct nvme_tcp_data, ttag);
	} else if (pdu->cccid != r->sqe.command_id) {
		fes = NVME_TCP_FES_INVALID_HEADER;
		fei = offsetof(struct nvme_tcp_data, cccid);
	} else if (datal != dlen) {
		fes = NVME_TCP_FES_INVALID_HEADER;
		fei = offsetof(struct nvme_tcp_data, datal);
	} else if (datal > conn->maxh2cdata) {
		fes = NVME_TCP_FES_R2T_LIMIT_EXCEEDED;
	} else if (datao != r->h2c_done || datal > r->r2t_end - datao) {
		/* Not where the data stands, or beyond what the R2T asked for (which is
		 * within the command's length). */
		fes = NVME_TCP_FES_DATA_OUT_OF_RANGE;
	}
	if (fes != NVME_TCP_FES_NONE) {
		nvmf_tcp_conn_fatal(conn, fes, fei, pdu, pdu->ch.hlen);
		return NULL;
	}
	return r;
}

void nvmf_tcp_h2c_arrived(struct nvmf_tcp_conn *conn, struct nvmf_tcp_req *r, uint32_t datal,
			  bool ddgst_ok)
{
	r->h2c_done += datal;
	if (!ddgst_ok)
		r->ddgst_error = true;
	if (r->h2c_done < r->req.data_len) {
		if (r->h2c_done == r->r2t_end)
			send_r2t(conn, r);
		return;
	}
	if (r->ddgst_error) { /* every byte is here; the command fails, retryable */
		r->state = NVMF_TCP_REQ_EXECUTING;
		nvmf_req_complete(&r->req, nvme_generic(NVME_SC_TRAN_TPORT_ERROR));
		return;
	}
	r->state = NVMF_TCP_REQ_EXECUTING;
	nvmf_req_execute(&r->req);
}

void nvmf_tcp_queue_response(struct nvmf_req *req)
{
	struct nvmf_tcp_req *r = req->transport_priv;
	struct nvmf_tcp_conn *conn = r->conn;
	if (conn->state == NVMF_TCP_CONN_DEAD) { /* the answer is dropped */
		nvmf_tcp_req_release(r);
		return;
	}
	r->state = NVMF_TCP_REQ_SENDING;
	nvme_status_t st = le16toh(r->cqe.status) >> 1;
	if (!st && req->dir == NVMF_XFER_C2H && req->data_len && r->buf) {
		struct nvme_tcp_data *p = (struct nvme_tcp_data *)r->c2h.hdr;
		bool success = req->cqe_optional; /* the CQE would say nothing more */
		memset(p, 0, sizeof(*p));
		p->cccid = r->sqe.command_id;
		p->datao = 0;
		p->datal = htole32(req->data_len);
		nvmf_tcp_pdu_build(conn, &r->c2h, NVME_TCP_C2H_DATA,
				   NVME_TCP_F_DATA_LAST | (success ? NVME_TCP_F_DATA_SUCCESS : 0),
				   r->buf, req->data_len);
		if (success) /* the command is done once its data left */
			r->c2h.done = r;
		if (conn->zc_min && req->data_len >= conn->zc_min)
			r->c2h.zc_req = r;
		nvmf_tcp_tx_queue(conn, &r->c2h);
		if (success)
			goto queued;
	}
	struct nvme_tcp_rsp *p = (struct nvme_tcp_rsp *)r->rsp.hdr;
	memset(p, 0, sizeof(*p));
	p->cqe = r->cqe;
	nvmf_tcp_pdu_build(conn, &r->rsp, NVME_TCP_RSP, 0, NULL, 0);
	r->rsp.done = r;
	nvmf_tcp_tx_queue(conn, &r->rsp);
queued:
	/* Much queued: send now while the data is in the cache (r may be released by it;
	 * a broken connection is found and torn down by the pass's own flush). Not while
	 * the socket is full: EPOLLOUT says when it takes more. */
	if (conn->tx_bytes >= NVMF_TCP_TX_EARLY_BYTES && !conn->pollout)
		nvmf_tcp_conn_flush(conn);
}
