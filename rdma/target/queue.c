/* SPDX-License-Identifier: MIT */
/*
 * One NVMe queue = one RC QP on its poll group's CQ and SRQ for the device.
 * Sizing follows the NVMe/RDMA transport binding's CM private data (HRQSIZE, HSQSIZE) as
 * the Linux host uses it (drivers/nvme/host/rdma.c, nvme_rdma_route_resolved):
 * a RECV for each of the host's HSQSIZE+1 capsules, posted before the accept; at most
 * HRQSIZE responses in flight; RDMA READs limited by the negotiated ORD.
 * Response (CQE) buffers are one allocation registered once per queue when the host
 * connects, never per command; capsules land in the SRQ's receives (rq.c).
 * Work requests are chained during a poll pass and posted once at its end, with only
 * the last SEND signaled (nvmf_rdma_queue_flush).
 * Teardown (nvmf_rdma_queue_disconnect -> nvmf_rdma_queue_reap): the QP goes to the error
 * state so every posted WR completes with a flush error, the core is told at once
 * (nvmf_sq_destroy) and drains what it holds; once it released the queue and the WRs
 * have flushed, everything is freed. On an SRQ the QP may also hold receives it took from
 * the SRQ for messages in flight; they come back (flushed) before the device raises
 * IBV_EVENT_QP_LAST_WQE_REACHED, and a QP destroyed before that may lose them to the SRQ
 * for good (IB spec; the kernel's ib_drain_qp and SPDK wait for the event too): the queue
 * waits for it (async.c) on devices that raise it, up to the flush timeout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/target/internal.h"

#define QUEUE_FLUSH_TIMEOUT_MS 5000

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
	const struct nvmf_rdma_verbs *v = q->t->verbs;
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
	q->qp = v->create_qp(q->id, q->dev->dev->pd, &attr);
	if (!q->qp) {
		/* Some devices cannot send inline: try again without. */
		attr.cap.max_inline_data = 0;
		q->qp = v->create_qp(q->id, q->dev->dev->pd, &attr);
		if (!q->qp) {
			snprintf(err, errlen, "rdma_create_qp (send %u, recv %u%s): %s", send_wr,
				 q->recv_depth + 1, q->rq->srq ? " on the SRQ" : "",
				 strerror(errno));
			return -1;
		}
	}
	q->inline_send = attr.cap.max_inline_data >= NVME_CQE_SIZE;
	q->qp_num = q->qp->qp_num;
	return 0;
}

static void queue_free(struct nvmf_rdma_queue *q)
{
	const struct nvmf_rdma_verbs *v = q->t->verbs;
	if (q->qp)
		v->destroy_qp(q->id, q->qp);
	if (q->id)
		v->destroy_id(q->id);
	if (q->cq_share)
		nvmf_rdma_pg_release_cq(q->pgd, q->cq_share);
	if (q->rq == &q->own_rq || q->own_rq.mem)
		nvmf_rdma_rq_fini(&q->own_rq);
	if (q->mr)
		v->dereg_mr(q->mr);
	free(q->mem);
	free(q->reqs);
	free(q);
}

struct nvmf_rdma_queue *nvmf_rdma_queue_create(struct nvmf_rdma_poll_group *pg,
					       struct nvmf_rdma_device *dev, struct nvmf_port *port,
					       struct rdma_cm_id *id,
					       const struct nvme_rdma_cm_conn *conn, uint32_t ord,
					       char *err, size_t errlen)
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
	const struct nvmf_rdma_verbs *v = t->verbs;
	q->t = t;
	q->pg = pg;
	q->pgd = pgd;
	q->dev = dev;
	q->qid = conn->qid;
	q->state = NVMF_RDMA_Q_CONNECTING;
	q->recv_depth = conn->recv_depth;
	q->nreq = 2u * conn->recv_depth; /* a response may still be sending when the next
					   * capsule for its slot arrives */
	q->max_sends = conn->hrqsize < q->nreq ? conn->hrqsize : q->nreq;
	q->max_reads = ord ? ord : 1;
	struct nvmf_port_attrs pa;
	nvmf_port_attrs(port, &pa);
	q->inline_size = conn->qid ? pa.inline_size : 0;
	q->wr_tailp = &q->wr_head;
	q->post_tailp = &q->post_head;
	/* I/O queues only: an admin command's data is small and its latency is what counts. */
	q->post_offload = conn->qid && (t->post_thread > 0 || (t->post_thread < 0 && dev->soft));
	if (q->post_offload && !pg->poster.running &&
	    nvmf_rdma_poster_start(&pg->poster, v, pg->base.pg, t->post_bytes, !t->post_manual,
				   t->post_cpus_set ? &t->post_cpus : NULL, err, errlen))
		goto fail;
	TAILQ_INIT(&q->pending_reads);
	TAILQ_INIT(&q->pending_sends);
	TAILQ_INIT(&q->completing);
	STAILQ_INIT(&q->pending_recvs);

	/* CQEs: one registration per queue, made when the host connects. */
	q->mem_len = (size_t)q->nreq * NVME_CQE_SIZE;
	q->reqs = calloc(q->nreq, sizeof(*q->reqs));
	if (!q->reqs || posix_memalign(&q->mem, NVMF_RDMA_ALIGN, q->mem_len)) {
		q->mem = NULL;
		snprintf(err, errlen, "out of memory for %u queue entries", q->recv_depth);
		goto fail;
	}
	memset(q->mem, 0, q->mem_len);
	q->mr = v->reg_mr(dev->dev->pd, q->mem, q->mem_len, IBV_ACCESS_LOCAL_WRITE);
	if (!q->mr) {
		snprintf(err, errlen, "ibv_reg_mr %zu bytes: %s", q->mem_len, strerror(errno));
		goto fail;
	}
	if (pgd->srq && q->inline_size <= pgd->srq->inline_size) {
		q->rq = pgd->srq;
	} else {
		if (nvmf_rdma_rq_init(&q->own_rq, v, dev->dev->pd, false, q, q->recv_depth,
				      q->inline_size, err, errlen))
			goto fail;
		q->rq = &q->own_rq;
	}

	uint32_t send_wr = 2 * q->max_sends + q->max_reads + 1; /* WRITE+SEND each, READs */
	if (send_wr > (uint32_t)dev->dev->attr.max_qp_wr) {
		/* Smaller QPs than the host allows: fewer responses and READs in flight, so
		 * that every WR the queue may have outstanding still fits. */
		send_wr = (uint32_t)dev->dev->attr.max_qp_wr;
		if (q->max_reads > (send_wr - 1) / 3)
			q->max_reads = (send_wr - 1) / 3 ? (send_wr - 1) / 3 : 1;
		q->max_sends = send_wr > q->max_reads + 1 ? (send_wr - 1 - q->max_reads) / 2 : 0;
		if (!q->max_sends) {
			snprintf(err, errlen, "device QPs of %u send WRs are too small", send_wr);
			goto fail;
		}
	}
	/* The CQ takes this QP's send completions and, without an SRQ, its receives. */
	uint32_t share = send_wr + (q->rq->srq ? 0 : q->recv_depth + 1);
	if (nvmf_rdma_pg_reserve_cq(pgd, share, err, errlen))
		goto fail;
	q->cq_share = share;
	q->id = id;
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
	nvmf_sq_init(&q->sq, pg->base.pg, port, &t->base);
	q->sq.transport_priv = q;
	if (id)
		id->context = q;
	return q;
fail:
	if (q->qp)
		v->destroy_qp(id, q->qp);
	q->qp = NULL;
	q->id = NULL; /* the caller rejects and destroys the cm_id */
	queue_free(q);
	return NULL;
}

void nvmf_rdma_queue_chain(struct nvmf_rdma_queue *q, struct ibv_send_wr *first,
			   struct ibv_send_wr *last, struct ibv_send_wr *send)
{
	last->next = NULL;
	*q->wr_tailp = first;
	q->wr_tailp = &last->next;
	if (send)
		q->last_send = send;
	/* What the poster goes by; queues without one (a hardware device) skip it. */
	for (struct ibv_send_wr *w = q->post_offload ? first : NULL; w; w = w->next)
		if (w->opcode == IBV_WR_RDMA_WRITE && w->sg_list[0].length > q->wr_max)
			q->wr_max = w->sg_list[0].length;
	if (!q->dirty) {
		q->dirty = true;
		q->next_dirty = q->pg->dirty_q;
		q->pg->dirty_q = q;
	}
}

void nvmf_rdma_queue_unpost(struct ibv_send_wr *bad)
{
	while (bad) {
		struct ibv_send_wr *next = bad->next;
		struct nvmf_rdma_wr *ctx = (struct nvmf_rdma_wr *)(uintptr_t)bad->wr_id;
		struct nvmf_rdma_req *r =
			ctx->type == NVMF_RDMA_WR_SEND ?
				container_of(ctx, struct nvmf_rdma_req, send_ctx) :
			ctx->type == NVMF_RDMA_WR_READ ?
				container_of(ctx, struct nvmf_rdma_req, read_ctx) :
				NULL;
		if (r)
			nvmf_rdma_req_unpost(r, ctx->type);
		bad = next;
	}
}

void nvmf_rdma_queue_flush(struct nvmf_rdma_queue *q)
{
	struct ibv_send_wr *wr = q->wr_head, *bad = NULL;
	uint32_t largest = q->wr_max;
	q->wr_head = NULL;
	q->wr_tailp = &q->wr_head;
	q->wr_max = 0;
	if (!wr)
		return;
	/* One completion for the chain: the last SEND's. It retires every earlier SEND of
	 * the queue (RC completes in order); READs are signaled on their own. */
	struct ibv_send_wr *send = q->last_send;
	if (send)
		send->send_flags |= IBV_SEND_SIGNALED;
	q->last_send = NULL;
	/* A dying queue's chain is finished here, unless earlier ones are with the poster. */
	if (q->post_offload &&
	    (q->state != NVMF_RDMA_Q_DYING ||
	     __atomic_load_n(&q->post_pending, __ATOMIC_ACQUIRE)) &&
	    nvmf_rdma_poster_take(&q->pg->poster, q, wr, send, largest))
		return;
	if (q->state == NVMF_RDMA_Q_DYING) {
		bad = wr;
	} else {
		int rc = q->t->verbs->post_send(q->qp, wr, &bad);
		if (!rc)
			return;
		nvmf_rdma_queue_disconnect(q, "ibv_post_send failed");
	}
	nvmf_rdma_queue_unpost(bad);
}

void nvmf_rdma_queue_disconnect(struct nvmf_rdma_queue *q, const char *why)
{
	if (q->state == NVMF_RDMA_Q_DYING)
		return;
	if (why)
		NVMF_RDMA_LOG(q->t, NVMF_LOG_WARNING,
			      "host %s, queue %u (cntlid %u): disconnecting: %s",
			      q->sq.peer[0] ? q->sq.peer : "?", q->qid,
			      (unsigned)nvmf_sq_cntlid(&q->sq), why);
	if (why)
		NVMF_PROBE_CONN_ERROR("rdma", q, q->qid, why);
	else
		NVMF_PROBE_CONN_DISCONNECT("rdma", q, q->qid, "");
	q->state = NVMF_RDMA_Q_DYING;
	q->dying_since_ms = nvmf_clock_ms(q->t->clock);
	q->pg->ndying++;
	/* Error state flushes every posted WR; rdma_disconnect also tells the host. */
	if (q->qp)
		q->t->verbs->qp_error(q->qp);
	if (q->id)
		q->t->verbs->disconnect(q->id);
	nvmf_rdma_queue_drop_waiting(q);
	/* No capsule of this queue reaches the core from now on. */
	nvmf_sq_destroy(&q->sq);
}

/* After the flush timeout: READs that never completed hold their requests in the core;
 * nothing will complete them now. */
static void abandon_stuck_reads(struct nvmf_rdma_queue *q)
{
	for (uint32_t i = 0; i < q->nreq && q->reads_inflight; i++) {
		struct nvmf_rdma_req *r = &q->reqs[i];
		if (r->state == NVMF_RDMA_REQ_TRANSFER_H2C)
			nvmf_rdma_req_unpost(r, NVMF_RDMA_WR_READ);
	}
}

/* Freed at the flush timeout: SENDs that never completed still hold their requests and
 * pool buffers; nothing will retire them now. */
static void retire_stuck_sends(struct nvmf_rdma_queue *q)
{
	struct nvmf_rdma_req *r;
	while ((r = TAILQ_FIRST(&q->completing))) {
		TAILQ_REMOVE(&q->completing, r, link);
		q->sends_inflight--;
		r->state = NVMF_RDMA_REQ_COMPLETED;
		nvmf_rdma_req_process(r);
	}
}

bool nvmf_rdma_queue_reap(struct nvmf_rdma_queue *q, uint64_t now, bool force)
{
	if (q->state != NVMF_RDMA_Q_DYING || q->dirty ||
	    (q->post_offload && nvmf_rdma_poster_busy(&q->pg->poster, q)))
		return false;
	uint32_t recvs = q->rq == &q->own_rq ? q->own_rq.posted : 0;
	bool last_wqe_due = q->rq->srq && q->qp && q->dev->last_wqe_event && !q->last_wqe;
	bool flushed = !recvs && !q->sends_inflight && !q->reads_inflight && !last_wqe_due;
	bool timed_out = force || now - q->dying_since_ms >= QUEUE_FLUSH_TIMEOUT_MS;
	if (!flushed && !timed_out)
		return false;
	if (!flushed && !q->released)
		abandon_stuck_reads(q);
	/* A request in the backend still points at this queue: the core releases the queue
	 * only once none is left. */
	if (!q->released)
		return false;
	if (!flushed) {
		NVMF_RDMA_LOG(
			q->t, NVMF_LOG_WARNING,
			"host %s, queue %u: %u recv / %u send / %u read WRs "
			"never flushed%s; freeing anyway",
			q->sq.peer[0] ? q->sq.peer : "?", q->qid, recvs, q->sends_inflight,
			q->reads_inflight,
			last_wqe_due ?
				", no LAST_WQE_REACHED (shared receives it held may be lost)" :
				"");
		if (last_wqe_due)
			q->pg->last_wqe_timeouts++;
		retire_stuck_sends(q);
	}
	/* Out of the qp_num map first: a late completion of this QP is then dropped. */
	nvmf_rdma_pg_remove_queue(q->pg, q);
	q->pg->ndying--;
	queue_free(q);
	return true;
}
