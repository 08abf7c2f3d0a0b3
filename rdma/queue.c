/* SPDX-License-Identifier: MIT */
/*
 * One NVMe queue = one RC QP with its own CQ (on the device's completion channel).
 * Sizing follows the NVMe/RDMA binding as the Linux host uses it (docs/wire-contract.md):
 * a RECV for each of the host's HSQSIZE+1 capsules, posted before the accept; at most
 * HRQSIZE responses in flight; RDMA READs limited by the negotiated ORD.
 * Capsule and response buffers are one allocation registered once per queue when the
 * host connects, never per command.
 * Teardown (nvmf_rdma_queue_disconnect -> nvmf_rdma_queue_reap): the QP goes to the error
 * state so every posted WR completes with a flush error; once none is left and no request
 * is in the backend the core is told (nvmf_sq_destroy) and everything is freed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rdma/internal.h"

#define QUEUE_FLUSH_TIMEOUT_MS 5000

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static uint64_t now_ms(void)
{
	return nvmf_rdma_now_us() / 1000;
}

static void init_requests(struct nvmf_rdma_queue *q, uint8_t *cqes)
{
	TAILQ_INIT(&q->free_reqs);
	for (uint32_t i = 0; i < q->nreq; i++) {
		struct nvmf_rdma_req *r = &q->reqs[i];
		r->q = q;
		r->state = NVMF_RDMA_REQ_FREE;
		r->cqe = (struct nvme_cqe *)(cqes + (size_t)i * NVME_CQE_SIZE);
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

static void init_recvs(struct nvmf_rdma_queue *q, uint8_t *sqes, uint8_t *inl, size_t stride)
{
	for (uint32_t i = 0; i < q->recv_depth; i++) {
		struct nvmf_rdma_recv *r = &q->recvs[i];
		r->wr.type = NVMF_RDMA_WR_RECV;
		r->q = q;
		r->sqe = (struct nvme_sqe *)(sqes + (size_t)i * NVME_SQE_SIZE);
		r->sge[0].addr = (uintptr_t)r->sqe;
		r->sge[0].length = NVME_SQE_SIZE;
		r->sge[0].lkey = q->mr->lkey;
		r->rwr.wr_id = (uintptr_t)&r->wr;
		r->rwr.sg_list = r->sge;
		r->rwr.num_sge = 1;
		if (q->inline_size) {
			/* Second SGE: in-capsule data lands page aligned, ready for O_DIRECT. */
			r->inline_buf = inl + (size_t)i * stride;
			r->sge[1].addr = (uintptr_t)r->inline_buf;
			r->sge[1].length = q->inline_size;
			r->sge[1].lkey = q->mr->lkey;
			r->rwr.num_sge = 2;
		}
	}
}

static int create_qp(struct nvmf_rdma_queue *q, uint32_t send_wr, char *err, size_t errlen)
{
	struct ibv_qp_init_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.qp_context = q;
	attr.send_cq = q->cq;
	attr.recv_cq = q->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = q->recv_depth + 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = q->inline_size ? 2 : 1;
	attr.cap.max_inline_data = NVME_CQE_SIZE;
	if (rdma_create_qp(q->id, q->dev->pd, &attr)) {
		/* Some devices cannot send inline: try again without. */
		attr.cap.max_inline_data = 0;
		if (rdma_create_qp(q->id, q->dev->pd, &attr)) {
			snprintf(err, errlen, "rdma_create_qp (send %u, recv %u): %s", send_wr,
				 q->recv_depth + 1, strerror(errno));
			return -1;
		}
	}
	q->inline_send = attr.cap.max_inline_data >= NVME_CQE_SIZE;
	return 0;
}

struct nvmf_rdma_queue *nvmf_rdma_queue_create(struct nvmf_rdma_transport *t,
					       struct nvmf_rdma_device *dev, struct nvmf_port *port,
					       struct rdma_cm_id *id,
					       const struct nvmf_rdma_cm_conn *conn,
					       uint32_t ord, char *err, size_t errlen)
{
	struct nvmf_rdma_queue *q = calloc(1, sizeof(*q));
	if (!q) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	q->t = t;
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
	TAILQ_INIT(&q->pending_reads);
	TAILQ_INIT(&q->pending_sends);
	STAILQ_INIT(&q->pending_recvs);
	nvmf_sq_init(&q->sq, t->tgt, port, &nvmf_rdma_ops);
	q->sq.transport_priv = q;
	struct sockaddr *la = rdma_get_local_addr(id);
	if (la)
		memcpy(&q->sq.local_addr, la, la->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));

	/* Buffers: SQEs, CQEs, then page-aligned in-capsule areas; one registration. */
	size_t stride = align_up(q->inline_size, NVMF_RDMA_ALIGN);
	size_t cqe_off = (size_t)q->recv_depth * NVME_SQE_SIZE;
	size_t inl_off = align_up(cqe_off + (size_t)q->nreq * NVME_CQE_SIZE, NVMF_RDMA_ALIGN);
	q->mem_len = inl_off + stride * q->recv_depth;
	q->recvs = calloc(q->recv_depth, sizeof(*q->recvs));
	q->reqs = calloc(q->nreq, sizeof(*q->reqs));
	if (!q->recvs || !q->reqs || posix_memalign(&q->mem, NVMF_RDMA_ALIGN, q->mem_len)) {
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

	uint32_t send_wr = 2 * q->max_sends + q->max_reads + 1;  /* WRITE+SEND each, READs */
	if (send_wr > (uint32_t)dev->attr.max_qp_wr)
		send_wr = (uint32_t)dev->attr.max_qp_wr;
	int cqe = (int)(q->recv_depth + 1 + send_wr);
	if (cqe > dev->attr.max_cqe)
		cqe = dev->attr.max_cqe;
	q->cq = ibv_create_cq(dev->verbs, cqe, q, dev->channel, 0);
	if (!q->cq) {
		snprintf(err, errlen, "ibv_create_cq %d entries: %s", cqe, strerror(errno));
		goto fail;
	}
	if (create_qp(q, send_wr, err, errlen))
		goto fail;

	init_requests(q, (uint8_t *)q->mem + cqe_off);
	init_recvs(q, q->mem, (uint8_t *)q->mem + inl_off, stride);
	/* Every RECV before the accept: the host may send as soon as it sees ESTABLISHED. */
	for (uint32_t i = 0; i < q->recv_depth; i++) {
		int rc = nvmf_rdma_queue_post_recv(q, &q->recvs[i]);
		if (rc) {
			snprintf(err, errlen, "ibv_post_recv: %s", strerror(rc));
			goto fail;
		}
	}
	id->context = q;
	q->next = t->queues;
	t->queues = q;
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
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->mr)
		ibv_dereg_mr(q->mr);
	free(q->mem);
	free(q->recvs);
	free(q->reqs);
	free(q);
}

int nvmf_rdma_queue_post_recv(struct nvmf_rdma_queue *q, struct nvmf_rdma_recv *r)
{
	struct ibv_recv_wr *bad;
	int rc = ibv_post_recv(q->id->qp, &r->rwr, &bad);
	if (!rc)
		q->recv_posted++;
	return rc;
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
	struct nvmf_ctrl *ctrl = q->sq.ctrl;
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
	struct nvmf_ctrl *ctrl = q->sq.ctrl;
	if (ctrl && q->qid == 0)
		for (unsigned i = 0; i < ctrl->nr_aer && n; i++)
			if (ctrl->aer[i] && ctrl->aer[i]->sq == &q->sq)
				n--;
	return n;
}

bool nvmf_rdma_queue_reap(struct nvmf_rdma_queue *q, uint64_t now, bool force)
{
	if (q->state != NVMF_RDMA_Q_DYING)
		return false;
	bool flushed = !q->recv_posted && !q->sends_inflight && !q->reads_inflight;
	if (!flushed && !force && now - q->dying_since_ms < QUEUE_FLUSH_TIMEOUT_MS)
		return false;
	/* A request in the backend still points at this queue: never free under it. */
	if (in_backend(q))
		return false;
	if (!q->sq_destroyed) {
		take_back_aers(q);
		q->sq_destroyed = true;
		nvmf_sq_destroy(&q->sq);
		if (q->executing)
			return false;
	}
	if (!flushed)
		NVMF_RDMA_LOG("queue %u: %u recv / %u send / %u read WRs never flushed; freeing anyway\n",
			      q->qid, q->recv_posted, q->sends_inflight, q->reads_inflight);
	struct nvmf_rdma_queue **pp = &q->t->queues;
	while (*pp && *pp != q)
		pp = &(*pp)->next;
	if (*pp)
		*pp = q->next;
	nvmf_rdma_queue_free(q);
	return true;
}
