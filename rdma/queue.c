/* SPDX-License-Identifier: MIT */
/*
 * One NVMe queue = one RC QP on its poll group's CQ and SRQ for the device.
 * Sizing follows the NVMe/RDMA binding as the Linux host uses it (docs/wire-contract.md):
 * a RECV for each of the host's HSQSIZE+1 capsules, posted before the accept; at most
 * HRQSIZE responses in flight; RDMA READs limited by the negotiated ORD.
 * Response (CQE) buffers are one allocation registered once per queue when the host
 * connects, never per command; capsules land in the SRQ's receives (rdma/rq.c).
 * Work requests are chained during a poll pass and posted once at its end, with only
 * the last SEND signaled (nvmf_rdma_queue_flush).
 * Teardown (nvmf_rdma_queue_disconnect -> nvmf_rdma_queue_reap): the QP goes to the error
 * state so every posted WR completes with a flush error; once none is left and no request
 * is in the backend the core is told (nvmf_sq_destroy) and everything is freed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <time.h>
#include "rdma/internal.h"

#define QUEUE_FLUSH_TIMEOUT_MS 5000

static uint64_t now_ms(void)
{
	return nvmf_rdma_now_us() / 1000;
}

static void init_requests(struct nvmf_rdma_queue *q)
{
	TAILQ_INIT(&q->free_reqs);
	for (uint32_t i = 0; i < q->nreq; i++) {
		struct nvmf_rdma_req *r = &q->reqs[i];
		r->q = q;
		r->state = NVMF_RDMA_REQ_FREE;
		r->cqe = (struct nvme_cqe *)((uint8_t *)q->mem + (size_t)i * NVME_CQE_SIZE);
		r->req.transport_priv = r;
		r->send_ctx.type = NVMF_RDMA_WR_SEND;
		r->read_ctx.type = NVMF_RDMA_WR_READ;
		r->write_ctx.type = NVMF_RDMA_WR_WRITE;
		r->send_sge.addr = (uintptr_t)r->cqe;
		r->send_sge.length = NVME_CQE_SIZE;
		r->send_sge.lkey = q->mr->lkey;
		r->send_wr.wr_id = (uintptr_t)&r->send_ctx;
		r->send_wr.sg_list = &r->send_sge;
		r->send_wr.num_sge = 1;
		r->data_wr.sg_list = &r->data_sge;
		r->data_wr.num_sge = 1;
		r->data_sge.lkey = q->dev->pool.mr->lkey;
		TAILQ_INSERT_TAIL(&q->free_reqs, r, link);
	}
}

static int create_qp(struct nvmf_rdma_queue *q, uint32_t send_wr, char *err, size_t errlen)
{
	struct ibv_qp_init_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.qp_context = q;
	attr.send_cq = q->pgd->cq;
	attr.recv_cq = q->pgd->cq;
	attr.srq = q->rq->srq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = q->rq->srq ? 0 : q->recv_depth + 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = q->rq->srq ? 0 : (q->inline_size ? 2 : 1);
	attr.cap.max_inline_data = NVME_CQE_SIZE;
	if (rdma_create_qp(q->id, q->dev->pd, &attr)) {
		/* Some devices cannot send inline: try again without. */
		attr.cap.max_inline_data = 0;
		if (rdma_create_qp(q->id, q->dev->pd, &attr)) {
			snprintf(err, errlen, "rdma_create_qp (send %u, recv %u%s): %s", send_wr,
				 q->recv_depth + 1, q->rq->srq ? " on the SRQ" : "", strerror(errno));
			return -1;
		}
	}
	q->inline_send = attr.cap.max_inline_data >= NVME_CQE_SIZE;
	q->qp_num = q->id->qp->qp_num;
	return 0;
}

struct nvmf_rdma_queue *nvmf_rdma_queue_create(struct nvmf_rdma_poll_group *pg,
					       struct nvmf_rdma_device *dev, struct nvmf_port *port,
					       struct rdma_cm_id *id,
					       const struct nvmf_rdma_cm_conn *conn,
					       uint32_t ord, char *err, size_t errlen)
{
	struct nvmf_rdma_pg_dev *pgd = nvmf_rdma_pg_dev_get(pg, dev, err, errlen);
	if (!pgd)
		return NULL;
	struct nvmf_rdma_queue *q = calloc(1, sizeof(*q));
	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct nvmf_rdma_transport *t = pg->t;
	q->t = t;
	q->pg = pg;
	q->pgd = pgd;
	q->dev = dev;
	q->id = id;
	q->qid = conn->qid;
	q->state = NVMF_RDMA_Q_CONNECTING;
	q->recv_depth = conn->recv_depth;
	q->nreq = 2u * conn->recv_depth;  /* a response may still be sending when the next
					   * capsule for its slot arrives */
	q->max_sends = conn->hrqsize < q->nreq ? conn->hrqsize : q->nreq;
	q->max_reads = ord ? ord : 1;
	q->inline_size = conn->qid ? nvmf_rdma_port_inline_size(port->cfg) : 0;
	q->wr_tailp = &q->wr_head;
	TAILQ_INIT(&q->pending_reads);
	TAILQ_INIT(&q->pending_sends);
	TAILQ_INIT(&q->completing);
	STAILQ_INIT(&q->pending_recvs);
	nvmf_sq_init(&q->sq, t->tgt, port, &nvmf_rdma_ops);
	q->sq.transport_priv = q;
	q->sq.io = pg->io;
	q->uid = __atomic_add_fetch(&t->next_uid, 1, __ATOMIC_RELAXED);
	struct sockaddr *la = rdma_get_local_addr(id);
	if (la)
		memcpy(&q->sq.local_addr, la, la->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));

	/* CQEs: one registration per queue, made when the host connects. */
	q->mem_len = (size_t)q->nreq * NVME_CQE_SIZE;
	q->reqs = calloc(q->nreq, sizeof(*q->reqs));
	if (!q->reqs || posix_memalign(&q->mem, NVMF_RDMA_ALIGN, q->mem_len)) {
		q->mem = NULL;
		snprintf(err, errlen, "out of memory for %u queue entries", q->recv_depth);
		goto fail;
	}
	memset(q->mem, 0, q->mem_len);
	q->mr = ibv_reg_mr(dev->pd, q->mem, q->mem_len, IBV_ACCESS_LOCAL_WRITE);
	if (!q->mr) {
		snprintf(err, errlen, "ibv_reg_mr %zu bytes: %s", q->mem_len, strerror(errno));
		goto fail;
	}
	if (pgd->srq && q->inline_size <= pgd->srq->inline_size) {
		q->rq = pgd->srq;
	} else {
		if (nvmf_rdma_rq_init(&q->own_rq, dev->pd, false, q, q->recv_depth, q->inline_size,
				      err, errlen))
			goto fail;
		q->rq = &q->own_rq;
	}

	uint32_t send_wr = 2 * q->max_sends + q->max_reads + 1;  /* WRITE+SEND each, READs */
	if (send_wr > (uint32_t)dev->attr.max_qp_wr)
		send_wr = (uint32_t)dev->attr.max_qp_wr;
	/* The CQ takes this QP's send completions and, without an SRQ, its receives. */
	uint32_t share = send_wr + (q->rq->srq ? 0 : q->recv_depth + 1);
	if (nvmf_rdma_pg_reserve_cq(pgd, share, err, errlen))
		goto fail;
	q->cq_share = share;
	if (create_qp(q, send_wr, err, errlen))
		goto fail;

	init_requests(q);
	/* Every RECV before the accept: the host may send as soon as it sees ESTABLISHED. */
	if (!q->rq->srq) {
		int rc = nvmf_rdma_rq_post_all(q->rq);
		if (rc) {
			snprintf(err, errlen, "ibv_post_recv: %s", strerror(rc));
			goto fail;
		}
	}
	if (nvmf_rdma_pg_add_queue(pg, q)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	id->context = q;
	return q;
fail:
	q->id = NULL;  /* the caller rejects and destroys the cm_id */
	if (id->qp)
		rdma_destroy_qp(id);
	nvmf_rdma_queue_free(q);
	return NULL;
}

void nvmf_rdma_queue_free(struct nvmf_rdma_queue *q)
{
	if (q->id) {
		if (q->id->qp)
			rdma_destroy_qp(q->id);
		rdma_destroy_id(q->id);
	}
	if (q->cq_share)
		nvmf_rdma_pg_release_cq(q->pgd, q->cq_share);
	if (q->rq == &q->own_rq || q->own_rq.mem)
		nvmf_rdma_rq_fini(&q->own_rq);
	if (q->mr)
		ibv_dereg_mr(q->mr);
	free(q->mem);
	free(q->reqs);
	free(q);
}

void nvmf_rdma_queue_chain(struct nvmf_rdma_queue *q, struct ibv_send_wr *first,
			   struct ibv_send_wr *last, struct ibv_send_wr *send)
{
	last->next = NULL;
	*q->wr_tailp = first;
	q->wr_tailp = &last->next;
	if (send)
		q->last_send = send;
	if (!q->dirty) {
		q->dirty = true;
		q->next_dirty = q->pg->dirty_q;
		q->pg->dirty_q = q;
	}
}

/* A WR that never reached the device: undo what chaining it counted. */
static void unpost(struct nvmf_rdma_queue *q, struct ibv_send_wr *wr)
{
	struct nvmf_rdma_wr *ctx = (struct nvmf_rdma_wr *)(uintptr_t)wr->wr_id;
	if (ctx->type == NVMF_RDMA_WR_SEND) {
		struct nvmf_rdma_req *r = (struct nvmf_rdma_req *)((char *)ctx - offsetof(struct nvmf_rdma_req, send_ctx));
		/* Only this one: SENDs before it were posted and will still complete. */
		TAILQ_REMOVE(&q->completing, r, link);
		q->sends_inflight--;
		nvmf_rdma_req_release(r);
	} else if (ctx->type == NVMF_RDMA_WR_READ) {
		struct nvmf_rdma_req *r = (struct nvmf_rdma_req *)((char *)ctx - offsetof(struct nvmf_rdma_req, read_ctx));
		q->reads_inflight--;
		nvmf_rdma_req_release(r);
	}
}

void nvmf_rdma_queue_flush(struct nvmf_rdma_queue *q)
{
	struct ibv_send_wr *wr = q->wr_head, *bad = NULL;
	q->wr_head = NULL;
	q->wr_tailp = &q->wr_head;
	if (!wr)
		return;
	/* One completion for the chain: the last SEND's. It retires every earlier SEND of
	 * the queue (RC completes in order); READs are signaled on their own. */
	if (q->last_send)
		q->last_send->send_flags |= IBV_SEND_SIGNALED;
	q->last_send = NULL;
	if (q->state == NVMF_RDMA_Q_DYING) {
		bad = wr;
	} else {
		int rc = ibv_post_send(q->id->qp, wr, &bad);
		if (!rc)
			return;
		nvmf_rdma_queue_disconnect(q, "ibv_post_send failed");
	}
	while (bad) {
		struct ibv_send_wr *next = bad->next;
		unpost(q, bad);
		bad = next;
	}
}

void nvmf_rdma_queue_disconnect(struct nvmf_rdma_queue *q, const char *why)
{
	if (q->state == NVMF_RDMA_Q_DYING)
		return;
	if (why)
		NVMF_RDMA_LOG("queue %u (cntlid %u): disconnecting: %s\n", q->qid,
			      q->sq.ctrl ? q->sq.ctrl->cntlid : 0, why);
	q->state = NVMF_RDMA_Q_DYING;
	q->dying_since_ms = now_ms();
	/* Error state flushes every posted WR; rdma_disconnect also tells the host. */
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	ibv_modify_qp(q->id->qp, &attr, IBV_QP_STATE);
	rdma_disconnect(q->id);
	nvmf_rdma_queue_drop_waiting(q);
}

/* AERs wait in the core (ctrl->aer[]), not in a backend, and never complete on their own:
 * take back the ones of this admin queue before the core forgets the queue. */
static void take_back_aers(struct nvmf_rdma_queue *q)
{
	struct nvmf_tgt_ctrl *ctrl = q->sq.ctrl;
	if (!ctrl || q->qid != 0)
		return;
	unsigned keep = 0;
	for (unsigned i = 0; i < ctrl->nr_aer; i++) {
		struct nvmf_req *req = ctrl->aer[i];
		if (req && req->sq == &q->sq) {
			struct nvmf_rdma_req *r = req->transport_priv;
			if (r->state == NVMF_RDMA_REQ_EXECUTING)
				q->executing--;
			nvmf_rdma_req_release(r);
			continue;
		}
		ctrl->aer[keep++] = req;
	}
	ctrl->nr_aer = keep;
}

/* Requests the backend still holds: EXECUTING ones that are not parked AERs. */
static uint32_t in_backend(struct nvmf_rdma_queue *q)
{
	uint32_t n = q->executing;
	struct nvmf_tgt_ctrl *ctrl = q->sq.ctrl;
	if (ctrl && q->qid == 0)
		for (unsigned i = 0; i < ctrl->nr_aer && n; i++)
			if (ctrl->aer[i] && ctrl->aer[i]->sq == &q->sq)
				n--;
	return n;
}

bool nvmf_rdma_queue_reap(struct nvmf_rdma_queue *q, uint64_t now, bool force)
{
	if (q->state != NVMF_RDMA_Q_DYING || q->dirty)
		return false;
	uint32_t recvs = q->rq == &q->own_rq ? q->own_rq.posted : 0;
	bool flushed = !recvs && !q->sends_inflight && !q->reads_inflight;
	if (!flushed && !force && now - q->dying_since_ms < QUEUE_FLUSH_TIMEOUT_MS)
		return false;
	/* A request in the backend still points at this queue: never free under it. */
	if (in_backend(q))
		return false;
	if (!q->sq_destroyed) {
		if (q->pg->worker)
			pthread_mutex_lock(&q->t->core_lock);
		take_back_aers(q);
		q->sq_destroyed = true;
		nvmf_sq_destroy(&q->sq);
		if (q->pg->worker)
			pthread_mutex_unlock(&q->t->core_lock);
		if (q->executing)
			return false;
	}
	if (!flushed)
		NVMF_RDMA_LOG("queue %u: %u recv / %u send / %u read WRs never flushed; freeing anyway\n",
			      q->qid, recvs, q->sends_inflight, q->reads_inflight);
	/* Out of the qp_num map first: a late completion of this QP is then dropped. */
	nvmf_rdma_pg_remove_queue(q->pg, q);
	nvmf_rdma_queue_free(q);
	return true;
}
