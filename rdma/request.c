/* SPDX-License-Identifier: MIT */
/*
 * The life of one command on an RDMA queue (NVMe-oF 1.1 section 7.3, RDMA binding), as an
 * explicit state machine in the manner of SPDK's target:
 *
 *   RECV completes -> NEW: nvmf_req_init() (the core validates; it may answer at once)
 *     -> decode the SGL (nvme/sgl.h)
 *        none / in-capsule (data points into the receive buffer, no copy) -> execute
 *        keyed -> NEED_BUFFER (registered pool) -> host to controller: NEED_READ ->
 *                 TRANSFER_H2C (RDMA READ, at most ORD in flight) -> execute
 *                 controller to host: execute
 *   EXECUTING (core/backend) -> ops->queue_response() -> EXECUTED: the RECV is chained
 *     for repost (the capsule is no longer needed), then, within the host's HRQSIZE
 *     budget, COMPLETING: RDMA WRITE (unsignaled) + SEND [WITH_INV] chained on the QP
 *   End of the poll pass: receives posted, then one ibv_post_send per QP with only its
 *     last SEND signaled (rdma/poll-group.c).
 *   A signaled SEND completes -> it and every SEND posted before it on the QP: FREE
 *     (buffers back to the pool, waiters served).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "nvme/sgl.h"
#include "rdma/internal.h"

#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))

static void req_execute(struct nvmf_rdma_req *r);
static void req_need_buffer(struct nvmf_rdma_req *r);
static void post_response(struct nvmf_rdma_req *r);

void nvmf_rdma_req_release(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_queue *q = r->q;
	bool kick = false;
	if (r->buf) {
		nvmf_rdma_pgd_buf_put(q->pgd, r->buf, r->buf_cls);
		r->buf = NULL;
		kick = true;
	}
	/* On a live queue the capsule was reposted already. A dying queue's own receives die
	 * with it; a shared receive goes back to the SRQ. */
	if (r->recv && r->recv->rq->srq)
		nvmf_rdma_rq_repost(q->pg, r->recv);
	r->recv = NULL;
	r->req.data = NULL;
	r->state = NVMF_RDMA_REQ_FREE;
	TAILQ_INSERT_HEAD(&q->free_reqs, r, link);
	if (kick)
		nvmf_rdma_pgd_kick(q->pgd);
}

/* The queue cannot go on (post failed, transfer error): drop this request with it. */
static void req_fail_queue(struct nvmf_rdma_req *r, const char *why)
{
	nvmf_rdma_queue_disconnect(r->q, why);
	nvmf_rdma_req_release(r);
}

/* The core is single threaded but for the I/O path: on a worker thread, Fabrics commands
 * (Connect attaches the queue to its controller) run under the transport's core lock. */
static bool core_lock(struct nvmf_rdma_queue *q, const struct nvme_sqe *sqe)
{
	if (!q->pg->worker || sqe->opcode != nvme_admin_fabrics)
		return false;
	pthread_mutex_lock(&q->t->core_lock);
	return true;
}

static void req_execute(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_queue *q = r->q;
	r->state = NVMF_RDMA_REQ_EXECUTING;
	q->executing++;
	bool locked = core_lock(q, r->req.cmd);
	nvmf_req_execute(&r->req);
	if (locked)
		pthread_mutex_unlock(&q->t->core_lock);
}

/* Chained for the end of the pass; at most ORD READs are outstanding (req_need_read). */
static void post_read(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_queue *q = r->q;
	r->data_wr.wr_id = (uintptr_t)&r->read_ctx;
	r->data_wr.opcode = IBV_WR_RDMA_READ;
	r->data_wr.send_flags = IBV_SEND_SIGNALED;
	r->data_wr.wr.rdma.remote_addr = r->raddr;
	r->data_wr.wr.rdma.rkey = r->rkey;
	r->data_sge.addr = (uintptr_t)r->buf;
	r->data_sge.length = r->xfer_len;
	nvmf_rdma_queue_chain(q, &r->data_wr, &r->data_wr, NULL);
	q->reads_inflight++;
	r->state = NVMF_RDMA_REQ_TRANSFER_H2C;
}

/* Host data in: an RDMA READ now, or queued when the QP's ORD is used up. */
static void req_need_read(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_queue *q = r->q;
	if (q->reads_inflight < q->max_reads && TAILQ_EMPTY(&q->pending_reads)) {
		post_read(r);
		return;
	}
	r->state = NVMF_RDMA_REQ_NEED_READ;
	TAILQ_INSERT_TAIL(&q->pending_reads, r, link);
}

/* The request holds its buffer: move data in, or execute. */
static void req_have_buffer(struct nvmf_rdma_req *r)
{
	r->req.data = r->buf;
	if (r->req.dir == NVMF_XFER_H2C)
		req_need_read(r);
	else
		req_execute(r);
}

static void req_need_buffer(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_pg_dev *pgd = r->q->pgd;
	if (r->xfer_len > r->q->dev->pool.max_size) {
		/* The core bounds transfers by MDTS; anything larger has no buffer at all. */
		nvmf_req_complete_dnr(&r->req, nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD));
		return;
	}
	/* FIFO: nobody overtakes a request already waiting. */
	if (TAILQ_EMPTY(&pgd->buf_waiters)) {
		r->buf = nvmf_rdma_pgd_buf_get(pgd, r->xfer_len, &r->buf_cls);
		if (r->buf) {
			req_have_buffer(r);
			return;
		}
	}
	r->state = NVMF_RDMA_REQ_NEED_BUFFER;
	TAILQ_INSERT_TAIL(&pgd->buf_waiters, r, link);
}

void nvmf_rdma_pgd_kick(struct nvmf_rdma_pg_dev *pgd)
{
	struct nvmf_rdma_req *r;
	while ((r = TAILQ_FIRST(&pgd->buf_waiters))) {
		r->buf = nvmf_rdma_pgd_buf_get(pgd, r->xfer_len, &r->buf_cls);
		if (!r->buf)
			return;
		TAILQ_REMOVE(&pgd->buf_waiters, r, link);
		req_have_buffer(r);
	}
}

/* NEW: a capsule arrived in @recv. */
static void req_start(struct nvmf_rdma_req *r, struct nvmf_rdma_recv *recv)
{
	struct nvmf_rdma_queue *q = r->q;
	TAILQ_REMOVE(&q->free_reqs, r, link);
	r->state = NVMF_RDMA_REQ_NEW;
	r->recv = recv;
	r->buf = NULL;
	r->keyed = false;
	r->invalidate = false;
	r->xfer_len = 0;
	r->req.data = NULL;
	bool locked = core_lock(q, recv->sqe);
	bool ok = nvmf_req_init(&r->req, &q->sq, recv->sqe, r->cqe);
	if (locked)
		pthread_mutex_unlock(&q->t->core_lock);
	if (!ok)
		return;  /* answered with an error already (queue_response ran) */

	struct nvme_sgl_info sgl;
	/* An SRQ receive may hold more than this queue's port allows: count only that. */
	uint32_t incapsule = recv->byte_len - NVME_SQE_SIZE;
	if (incapsule > q->inline_size)
		incapsule = q->inline_size;
	nvme_status_t st = nvme_sgl_parse(recv->sqe, q->inline_size ? incapsule : 0,
					  r->req.dir == NVMF_XFER_H2C, &sgl);
	if (st) {
		nvmf_req_complete(&r->req, st);
		return;
	}
	r->req.sgl_len = sgl.len;
	switch (sgl.kind) {
	case NVME_SGL_KIND_INCAPSULE:
		/* Zero copy: the data stays in the receive buffer until the response. */
		r->req.data = (uint8_t *)recv->inline_buf + sgl.offset;
		req_execute(r);
		return;
	case NVME_SGL_KIND_KEYED:
		r->keyed = true;
		r->raddr = sgl.addr;
		r->rkey = sgl.key;
		r->invalidate = sgl.invalidate;
		/* A length the command does not match fails in nvmf_req_execute() before any
		 * data is touched: no buffer, no transfer. */
		if (sgl.len != r->req.data_len || r->req.dir == NVMF_XFER_NONE || !sgl.len) {
			req_execute(r);
			return;
		}
		r->xfer_len = sgl.len;
		req_need_buffer(r);
		return;
	case NVME_SGL_KIND_NONE:
	default:
		req_execute(r);
		return;
	}
}

static void post_response(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_queue *q = r->q;
	struct ibv_send_wr *first = &r->send_wr;
	nvme_status_t st = le16toh(r->cqe->status) >> 1;

	if (r->invalidate && q->dev->send_with_inv) {
		r->send_wr.opcode = IBV_WR_SEND_WITH_INV;
		r->send_wr.invalidate_rkey = r->rkey;
	} else {
		r->send_wr.opcode = IBV_WR_SEND;
	}
	/* Signaled only if it ends up last in this pass's chain (nvmf_rdma_queue_flush). */
	r->send_wr.send_flags = q->inline_send ? IBV_SEND_INLINE : 0;
	r->send_wr.next = NULL;
	if (!st && r->req.dir == NVMF_XFER_C2H && r->buf && r->xfer_len) {
		/* Data first, on the same QP: RC ordering puts it in place before the CQE. */
		r->data_wr.wr_id = (uintptr_t)&r->write_ctx;
		r->data_wr.opcode = IBV_WR_RDMA_WRITE;
		r->data_wr.send_flags = 0;
		r->data_wr.wr.rdma.remote_addr = r->raddr;
		r->data_wr.wr.rdma.rkey = r->rkey;
		r->data_sge.addr = (uintptr_t)r->buf;
		r->data_sge.length = r->xfer_len;
		r->data_wr.next = &r->send_wr;
		first = &r->data_wr;
	}
	nvmf_rdma_queue_chain(q, first, &r->send_wr, &r->send_wr);
	q->sends_inflight++;
	r->state = NVMF_RDMA_REQ_COMPLETING;
	TAILQ_INSERT_TAIL(&q->completing, r, link);
}

/* ops->queue_response: the core is done with @req (status, result set in the CQE). */
static void rdma_queue_response(struct nvmf_req *req)
{
	struct nvmf_rdma_req *r = req->transport_priv;
	struct nvmf_rdma_queue *q = r->q;
	if (r->state == NVMF_RDMA_REQ_EXECUTING)
		q->executing--;
	r->state = NVMF_RDMA_REQ_EXECUTED;
	if (q->state == NVMF_RDMA_Q_DYING) {
		nvmf_rdma_req_release(r);  /* the host is gone: the response is dropped */
		return;
	}
	/* The capsule (and its in-capsule data) is consumed: give the slot back to the
	 * host before it can learn from the CQE that it may send again. */
	if (r->recv) {
		nvmf_rdma_rq_repost(q->pg, r->recv);
		r->recv = NULL;
	}
	if (q->sends_inflight < q->max_sends && TAILQ_EMPTY(&q->pending_sends))
		post_response(r);
	else
		TAILQ_INSERT_TAIL(&q->pending_sends, r, link);
}

/* ops->delete_ctrl: disconnect every queue of @ctrl; each one reaps itself later. */
static void rdma_delete_ctrl(struct nvmf_tgt_ctrl *ctrl)
{
	for (unsigned i = 0; i <= ctrl->max_qid; i++) {
		struct nvmf_sq *sq = ctrl->sqs ? ctrl->sqs[i] : NULL;
		if (sq && sq->transport_priv)
			nvmf_rdma_queue_disconnect_any(sq->transport_priv, "controller deleted");
	}
}

const struct nvmf_transport_ops nvmf_rdma_ops = {
	.name = "rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.msdbd = 1,
	.keyed_sgl = true,
	.queue_response = rdma_queue_response,
	.delete_ctrl = rdma_delete_ctrl,
};

void nvmf_rdma_queue_drop_waiting(struct nvmf_rdma_queue *q)
{
	struct nvmf_rdma_req *r, *next;
	for (r = TAILQ_FIRST(&q->pgd->buf_waiters); r; r = next) {
		next = TAILQ_NEXT(r, link);
		if (r->q != q)
			continue;
		TAILQ_REMOVE(&q->pgd->buf_waiters, r, link);
		nvmf_rdma_req_release(r);
	}
	while ((r = TAILQ_FIRST(&q->pending_reads))) {
		TAILQ_REMOVE(&q->pending_reads, r, link);
		nvmf_rdma_req_release(r);
	}
	while ((r = TAILQ_FIRST(&q->pending_sends))) {
		TAILQ_REMOVE(&q->pending_sends, r, link);
		nvmf_rdma_req_release(r);
	}
	struct nvmf_rdma_recv *recv;
	while ((recv = STAILQ_FIRST(&q->pending_recvs))) {
		STAILQ_REMOVE_HEAD(&q->pending_recvs, link);
		if (recv->rq->srq)
			nvmf_rdma_rq_repost(q->pg, recv);
	}
}

static void wc_recv(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_queue *q,
		    struct nvmf_rdma_recv *recv, const struct ibv_wc *wc)
{
	struct nvmf_rdma_rq *rq = recv->rq;
	rq->posted--;
	if (wc->status != IBV_WC_SUCCESS) {
		if (q && wc->status != IBV_WC_WR_FLUSH_ERR)
			nvmf_rdma_queue_disconnect(q, ibv_wc_status_str(wc->status));
		if (rq->srq)
			nvmf_rdma_rq_repost(pg, recv);  /* shared: other queues still need it */
		return;
	}
	if (!q || q->state == NVMF_RDMA_Q_DYING) {
		if (rq->srq)
			nvmf_rdma_rq_repost(pg, recv);
		return;
	}
	if (wc->byte_len < NVME_SQE_SIZE) {
		/* nvmet treats a short capsule as fatal for the queue as well. */
		if (rq->srq)
			nvmf_rdma_rq_repost(pg, recv);
		nvmf_rdma_queue_disconnect(q, "capsule shorter than 64 bytes");
		return;
	}
	recv->byte_len = wc->byte_len;
	struct nvmf_rdma_req *r = TAILQ_FIRST(&q->free_reqs);
	if (!r) {
		STAILQ_INSERT_TAIL(&q->pending_recvs, recv, link);
		return;
	}
	req_start(r, recv);
}

static void wc_read(struct nvmf_rdma_queue *q, struct nvmf_rdma_req *r, const struct ibv_wc *wc)
{
	q->reads_inflight--;
	if (wc->status != IBV_WC_SUCCESS) {
		/* A failed READ leaves the QP in error: the queue is lost with it. */
		req_fail_queue(r, wc->status == IBV_WC_WR_FLUSH_ERR ? NULL : ibv_wc_status_str(wc->status));
	} else if (q->state == NVMF_RDMA_Q_DYING) {
		nvmf_rdma_req_release(r);
	} else {
		r->state = NVMF_RDMA_REQ_READY_TO_EXECUTE;
		req_execute(r);
	}
	while (q->state != NVMF_RDMA_Q_DYING && q->reads_inflight < q->max_reads &&
	       (r = TAILQ_FIRST(&q->pending_reads))) {
		TAILQ_REMOVE(&q->pending_reads, r, link);
		post_read(r);
	}
}

void nvmf_rdma_req_retire(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_queue *q = r->q;
	if (r->state != NVMF_RDMA_REQ_COMPLETING)
		return;  /* retired already by a later signaled SEND (error flushes report all) */
	struct nvmf_rdma_req *c;
	do {
		c = TAILQ_FIRST(&q->completing);
		if (!c)
			break;  /* cannot happen: every COMPLETING request is on the list */
		TAILQ_REMOVE(&q->completing, c, link);
		q->sends_inflight--;
		nvmf_rdma_req_release(c);
	} while (c != r);
}

static void wc_send(struct nvmf_rdma_queue *q, struct nvmf_rdma_req *r, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR)
		nvmf_rdma_queue_disconnect(q, ibv_wc_status_str(wc->status));
	nvmf_rdma_req_retire(r);
	while (q->state != NVMF_RDMA_Q_DYING && q->sends_inflight < q->max_sends &&
	       (r = TAILQ_FIRST(&q->pending_sends))) {
		TAILQ_REMOVE(&q->pending_sends, r, link);
		post_response(r);
	}
	struct nvmf_rdma_recv *recv;
	while (q->state != NVMF_RDMA_Q_DYING && !TAILQ_EMPTY(&q->free_reqs) &&
	       (recv = STAILQ_FIRST(&q->pending_recvs))) {
		STAILQ_REMOVE_HEAD(&q->pending_recvs, link);
		req_start(TAILQ_FIRST(&q->free_reqs), recv);
	}
}

/* Is @ctx one of the group's SRQ receives? (A completion whose queue is gone may only be
 * followed into memory that still exists.) */
static struct nvmf_rdma_recv *srq_recv(struct nvmf_rdma_poll_group *pg, uintptr_t ctx)
{
	for (struct nvmf_rdma_pg_dev *d = pg->devs; d; d = d->next) {
		struct nvmf_rdma_rq *rq = d->srq;
		if (rq && ctx >= (uintptr_t)rq->recvs && ctx < (uintptr_t)(rq->recvs + rq->depth))
			return (struct nvmf_rdma_recv *)ctx;
	}
	return NULL;
}

void nvmf_rdma_handle_wc(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_queue *q,
			 const struct ibv_wc *wc)
{
	if (!q) {
		/* The queue was freed after its flush timeout; only a shared receive is ours. */
		struct nvmf_rdma_recv *recv = srq_recv(pg, (uintptr_t)wc->wr_id);
		if (recv)
			wc_recv(pg, NULL, recv, wc);
		return;
	}
	struct nvmf_rdma_wr *ctx = (struct nvmf_rdma_wr *)(uintptr_t)wc->wr_id;
	switch (ctx->type) {
	case NVMF_RDMA_WR_RECV:
		wc_recv(pg, q, (struct nvmf_rdma_recv *)ctx, wc);
		break;
	case NVMF_RDMA_WR_READ:
		wc_read(q, container_of(ctx, struct nvmf_rdma_req, read_ctx), wc);
		break;
	case NVMF_RDMA_WR_SEND:
		wc_send(q, container_of(ctx, struct nvmf_rdma_req, send_ctx), wc);
		break;
	case NVMF_RDMA_WR_WRITE:
		/* Unsignaled: only a flush or an error reports it; its SEND reports too. */
		if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR)
			nvmf_rdma_queue_disconnect(q, ibv_wc_status_str(wc->status));
		break;
	}
}
