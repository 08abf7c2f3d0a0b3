/* SPDX-License-Identifier: MIT */
/*
 * The life of one command on an RDMA queue (NVMe-oF 1.1 section 7.3, RDMA binding) as one
 * state function, nvmf_rdma_req_process(), in the manner of SPDK's target; the states and
 * their transitions are listed in internal.h. Events move a request into a state and call
 * the function: a receive (NEW), a buffer or a READ or send slot coming free, an RDMA READ
 * completing, the core answering (queue_response), a SEND completing. Everything that
 * waits waits in FIFO order: nobody overtakes a request already waiting.
 *
 * The core's answer may come while the request is being advanced (an error found at
 * init, a backend that completes inline): queue_response then only moves the state and
 * the running nvmf_rdma_req_process() carries on, so the recursion never nests.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "nvme/sgl.h"
#include "rdma/target/internal.h"

/* ---- waiting in line ---- */

/* Park @r at the tail of @list (it waits for a buffer, a READ or a send slot). */
#define WAIT(list, r)                                 \
	do {                                          \
		TAILQ_INSERT_TAIL((list), (r), link); \
		(r)->queued = true;                   \
	} while (0)

/* Take the head of @list off the line and let it go first. */
static struct nvmf_rdma_req *resume_first(struct nvmf_rdma_req_list *list)
{
	struct nvmf_rdma_req *r = TAILQ_FIRST(list);
	if (r) {
		TAILQ_REMOVE(list, r, link);
		r->queued = false;
		r->resumed = true;
	}
	return r;
}

/* The core accepted @r but it will not execute (its queue died): forget it there. */
static void req_abandon(struct nvmf_rdma_req *r)
{
	if (r->in_core) {
		r->in_core = false;
		nvmf_req_abandon(&r->req);
	}
	r->state = NVMF_RDMA_REQ_COMPLETED;
}

/* May @r take a free slot of @list's kind now? Only if nobody waits before it. */
#define MY_TURN(r, list) ((r)->resumed || TAILQ_EMPTY(list))

/*
 * The state function: one step per state, repeated while the state changes; a state
 * that waits (for a buffer, a slot, a completion, the core) leaves it unchanged. On a
 * dying queue a request still waiting is abandoned and an answer dropped.
 */
void nvmf_rdma_req_process(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_queue *q = r->q;
	enum nvmf_rdma_req_state before;
	r->in_process = true;
	do {
		before = r->state;
		bool dying = q->state == NVMF_RDMA_Q_DYING;
		switch (r->state) {
		case NVMF_RDMA_REQ_NEW: {
			/* The capsule to the core, then where its data is (nvme/sgl.c). */
			struct nvmf_rdma_recv *recv = r->recv;
			r->buf = NULL;
			r->invalidate = false;
			r->xfer_len = 0;
			r->req.data = NULL;
			if (!nvmf_sq_accepting(&q->sq)) {
				/* The target is stopping: not started, never answered; the host
				 * resubmits it after it reconnects. */
				nvmf_rdma_rq_repost(q->pg, recv);
				r->recv = NULL;
				r->state = NVMF_RDMA_REQ_COMPLETED;
				break;
			}
			if (!nvmf_req_init(&r->req, &q->sq, recv->sqe, r->cqe))
				break; /* answered already: queue_response moved us to EXECUTED */
			r->in_core = true;
			/* An SRQ receive may hold more than this queue's port allows. */
			uint32_t incapsule = recv->byte_len - NVME_SQE_SIZE;
			if (incapsule > q->inline_size)
				incapsule = q->inline_size;
			struct nvme_sgl_info sgl;
			nvme_status_t st = nvme_sgl_parse(recv->sqe, incapsule,
							  r->req.dir == NVMF_XFER_H2C, &sgl);
			if (st) {
				nvmf_req_complete(&r->req, st);
				break;
			}
			r->req.sgl_len = sgl.len;
			r->state = NVMF_RDMA_REQ_READY_TO_EXECUTE;
			if (sgl.kind == NVME_SGL_KIND_INCAPSULE) {
				/* Zero copy: the data stays in the receive buffer until the response. */
				r->req.data = (uint8_t *)recv->inline_buf + sgl.offset;
			} else if (sgl.kind == NVME_SGL_KIND_KEYED) {
				r->raddr = sgl.addr;
				r->rkey = sgl.key;
				r->invalidate = sgl.invalidate;
				/* A length the command does not match fails in nvmf_req_execute()
				 * before any data is touched: no buffer, no transfer. */
				if (sgl.len != r->req.data_len || r->req.dir == NVMF_XFER_NONE ||
				    !sgl.len)
					break;
				if (sgl.len > q->dev->pool.max_size) {
					/* The core bounds transfers by MDTS; larger has no buffer. */
					nvmf_req_complete_dnr(&r->req,
							      nvme_generic(NVME_SC_INVALID_FIELD));
					break;
				}
				r->xfer_len = sgl.len;
				r->state = NVMF_RDMA_REQ_NEED_BUFFER;
			}
			break;
		}
		case NVMF_RDMA_REQ_NEED_BUFFER:
			/* A registered pool buffer of the transfer size, in FIFO order. */
			if (dying) {
				req_abandon(r);
				break;
			}
			if (!r->buf) {
				if (r->queued)
					break;
				if (MY_TURN(r, &q->pgd->buf_waiters))
					r->buf = nvmf_rdma_pgd_buf_get(q->pgd, r->xfer_len,
								       &r->buf_cls);
				r->resumed = false;
				if (!r->buf) {
					WAIT(&q->pgd->buf_waiters, r);
					break;
				}
			}
			/* The data WR's addresses, for the RDMA READ or WRITE that moves it. */
			r->data_wr.wr.rdma.remote_addr = r->raddr;
			r->data_wr.wr.rdma.rkey = r->rkey;
			r->data_sge.addr = (uintptr_t)r->buf;
			r->data_sge.length = r->xfer_len;
			r->req.data = r->buf;
			r->state = r->req.dir == NVMF_XFER_H2C ? NVMF_RDMA_REQ_NEED_READ :
								 NVMF_RDMA_REQ_READY_TO_EXECUTE;
			break;
		case NVMF_RDMA_REQ_NEED_READ:
			/* Host data in: an RDMA READ, at most ORD in flight, in FIFO order. */
			if (dying) {
				req_abandon(r);
				break;
			}
			if (r->queued)
				break;
			if (!MY_TURN(r, &q->pending_reads) || q->reads_inflight >= q->max_reads) {
				r->resumed = false;
				WAIT(&q->pending_reads, r);
				break;
			}
			r->resumed = false;
			r->data_wr.wr_id = (uintptr_t)&r->read_ctx;
			r->data_wr.opcode = IBV_WR_RDMA_READ;
			r->data_wr.send_flags = IBV_SEND_SIGNALED;
			nvmf_rdma_queue_chain(q, &r->data_wr, &r->data_wr, NULL);
			q->reads_inflight++;
			r->state = NVMF_RDMA_REQ_TRANSFER_H2C;
			break;
		case NVMF_RDMA_REQ_READY_TO_EXECUTE:
			if (dying) {
				req_abandon(r);
				break;
			}
			r->state = NVMF_RDMA_REQ_EXECUTING;
			nvmf_req_execute(&r->req); /* may answer at once: state EXECUTED */
			break;
		case NVMF_RDMA_REQ_EXECUTED:
			if (dying) {
				r->state =
					NVMF_RDMA_REQ_COMPLETED; /* the host is gone: drop the answer */
				break;
			}
			/* The capsule is consumed: give its receive back to the host before it can
			 * learn from the CQE that it may send again. */
			if (r->recv) {
				nvmf_rdma_rq_repost(q->pg, r->recv);
				r->recv = NULL;
			}
			r->state = NVMF_RDMA_REQ_READY_TO_COMPLETE;
			break;
		case NVMF_RDMA_REQ_READY_TO_COMPLETE: {
			/* Data out and the CQE within the host's HRQSIZE budget: RDMA WRITE
			 * (unsignaled) and SEND [WITH_INV] chained on the QP, signaled only if last
			 * in the pass's chain (nvmf_rdma_queue_flush). RC ordering puts the data in
			 * place before the CQE. */
			if (dying) {
				r->state = NVMF_RDMA_REQ_COMPLETED;
				break;
			}
			if (r->queued)
				break;
			if (!MY_TURN(r, &q->pending_sends) || q->sends_inflight >= q->max_sends) {
				r->resumed = false;
				WAIT(&q->pending_sends, r);
				break;
			}
			r->resumed = false;
			struct ibv_send_wr *first = &r->send_wr;
			if (r->invalidate && q->dev->dev->send_with_inv) {
				r->send_wr.opcode = IBV_WR_SEND_WITH_INV;
				r->send_wr.invalidate_rkey = r->rkey;
			} else {
				r->send_wr.opcode = IBV_WR_SEND;
			}
			r->send_wr.send_flags = q->inline_send ? IBV_SEND_INLINE : 0;
			r->send_wr.next = NULL;
			if (!r->cqe->status && r->req.dir == NVMF_XFER_C2H && r->buf &&
			    r->xfer_len) {
				r->data_wr.wr_id = (uintptr_t)&r->write_ctx;
				r->data_wr.opcode = IBV_WR_RDMA_WRITE;
				r->data_wr.send_flags = 0;
				r->data_wr.next = &r->send_wr;
				first = &r->data_wr;
			}
			nvmf_rdma_queue_chain(q, first, &r->send_wr, &r->send_wr);
			q->sends_inflight++;
			r->state = NVMF_RDMA_REQ_COMPLETING;
			TAILQ_INSERT_TAIL(&q->completing, r, link);
			break;
		}
		case NVMF_RDMA_REQ_COMPLETED: {
			/* FREE: buffer back (waiters served); a receive still held goes back to its
			 * SRQ (a dying queue's own receives die with its QP). */
			bool kick = r->buf != NULL;
			if (r->buf) {
				nvmf_rdma_pgd_buf_put(q->pgd, r->buf, r->buf_cls);
				r->buf = NULL;
			}
			if (r->recv && r->recv->rq->srq)
				nvmf_rdma_rq_repost(q->pg, r->recv);
			r->recv = NULL;
			r->req.data = NULL;
			r->state = NVMF_RDMA_REQ_FREE;
			TAILQ_INSERT_HEAD(&q->free_reqs, r, link);
			if (kick && !TAILQ_EMPTY(&q->pgd->buf_waiters))
				nvmf_rdma_pgd_kick(q->pgd);
			break;
		}
		case NVMF_RDMA_REQ_FREE:
		case NVMF_RDMA_REQ_TRANSFER_H2C: /* waiting for the READ's completion */
		case NVMF_RDMA_REQ_EXECUTING:    /* waiting for the core */
		case NVMF_RDMA_REQ_COMPLETING:   /* waiting for a SEND completion */
			break;
		}
	} while (r->state != before && r->state != NVMF_RDMA_REQ_FREE);
	r->in_process = false;
}

/* ops->queue_response: the core is done with @req (status, result set in the CQE). */
void nvmf_rdma_queue_response(struct nvmf_req *req)
{
	struct nvmf_rdma_req *r = container_of(req, struct nvmf_rdma_req, req);
	r->in_core = false;
	r->state = NVMF_RDMA_REQ_EXECUTED;
	if (!r->in_process)
		nvmf_rdma_req_process(r);
}

/* ---- events ---- */

void nvmf_rdma_pgd_kick(struct nvmf_rdma_pg_dev *pgd)
{
	struct nvmf_rdma_req *r;
	while ((r = TAILQ_FIRST(&pgd->buf_waiters))) {
		void *buf = nvmf_rdma_pgd_buf_get(pgd, r->xfer_len, &r->buf_cls);
		if (!buf)
			return;
		/* Its turn was for the buffer only: not resume_first, whose mark would let it
		 * pass those already waiting for a READ or send slot. */
		TAILQ_REMOVE(&pgd->buf_waiters, r, link);
		r->queued = false;
		r->buf = buf;
		nvmf_rdma_req_process(r);
	}
}

void nvmf_rdma_queue_drop_waiting(struct nvmf_rdma_queue *q)
{
	struct nvmf_rdma_req *r, *next;
	for (r = TAILQ_FIRST(&q->pgd->buf_waiters); r; r = next) {
		next = TAILQ_NEXT(r, link);
		if (r->q != q)
			continue;
		TAILQ_REMOVE(&q->pgd->buf_waiters, r, link);
		r->queued = false;
		nvmf_rdma_req_process(r); /* dying: abandoned, freed */
	}
	while ((r = resume_first(&q->pending_reads)))
		nvmf_rdma_req_process(r);
	while ((r = resume_first(&q->pending_sends)))
		nvmf_rdma_req_process(r);
	struct nvmf_rdma_recv *recv;
	while ((recv = STAILQ_FIRST(&q->pending_recvs))) {
		STAILQ_REMOVE_HEAD(&q->pending_recvs, link);
		if (recv->rq->srq)
			nvmf_rdma_rq_repost(q->pg, recv);
	}
}

void nvmf_rdma_req_unpost(struct nvmf_rdma_req *r, enum nvmf_rdma_wr_type type)
{
	struct nvmf_rdma_queue *q = r->q;
	if (type == NVMF_RDMA_WR_SEND) {
		/* With every SEND before it: those of the same post went unsignaled and may have
		 * run already, so no completion will name them (a later completion of an earlier
		 * post finds its request no longer COMPLETING: wc_send). The queue is dying. */
		struct nvmf_rdma_req *c;
		while ((c = TAILQ_FIRST(&q->completing)) && c != r) {
			TAILQ_REMOVE(&q->completing, c, link);
			q->sends_inflight--;
			c->state = NVMF_RDMA_REQ_COMPLETED;
			nvmf_rdma_req_process(c);
		}
		TAILQ_REMOVE(&q->completing, r, link);
		q->sends_inflight--;
		r->state = NVMF_RDMA_REQ_COMPLETED;
	} else if (type == NVMF_RDMA_WR_READ) {
		q->reads_inflight--;
		req_abandon(r);
	} else {
		return; /* an RDMA WRITE: its SEND follows it in the chain */
	}
	nvmf_rdma_req_process(r);
}

/* Start requests for capsules that waited for a free request context. */
static void serve_pending_recvs(struct nvmf_rdma_queue *q)
{
	struct nvmf_rdma_recv *recv;
	while (q->state != NVMF_RDMA_Q_DYING && !TAILQ_EMPTY(&q->free_reqs) &&
	       (recv = STAILQ_FIRST(&q->pending_recvs))) {
		STAILQ_REMOVE_HEAD(&q->pending_recvs, link);
		struct nvmf_rdma_req *r = TAILQ_FIRST(&q->free_reqs);
		TAILQ_REMOVE(&q->free_reqs, r, link);
		r->recv = recv;
		r->state = NVMF_RDMA_REQ_NEW;
		nvmf_rdma_req_process(r);
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
			nvmf_rdma_rq_repost(pg, recv); /* shared: other queues still need it */
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
	if (r && STAILQ_EMPTY(&q->pending_recvs)) {
		/* Nobody waits before it and a context is free: start it at once. */
		TAILQ_REMOVE(&q->free_reqs, r, link);
		r->recv = recv;
		r->state = NVMF_RDMA_REQ_NEW;
		nvmf_rdma_req_process(r);
		return;
	}
	STAILQ_INSERT_TAIL(&q->pending_recvs, recv, link);
	serve_pending_recvs(q);
}

static void wc_read(struct nvmf_rdma_queue *q, struct nvmf_rdma_req *r, const struct ibv_wc *wc)
{
	/* A READ given up at the flush timeout (abandon_stuck_reads) may complete after all:
	 * its request is finished already (and maybe free). */
	if (r->state != NVMF_RDMA_REQ_TRANSFER_H2C)
		return;
	q->reads_inflight--;
	if (wc->status != IBV_WC_SUCCESS) {
		/* A failed READ leaves the QP in error: the queue is lost with it. */
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			nvmf_rdma_queue_disconnect(q, ibv_wc_status_str(wc->status));
		req_abandon(r);
	} else {
		r->state = NVMF_RDMA_REQ_READY_TO_EXECUTE;
	}
	nvmf_rdma_req_process(r);
	while (q->state != NVMF_RDMA_Q_DYING && q->reads_inflight < q->max_reads &&
	       !TAILQ_EMPTY(&q->pending_reads) && (r = resume_first(&q->pending_reads)))
		nvmf_rdma_req_process(r);
}

/* A signaled SEND completed (or was flushed): it and every SEND posted before it on the
 * queue are done (RC completes in order; theirs were unsignaled). */
static void wc_send(struct nvmf_rdma_queue *q, struct nvmf_rdma_req *r, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR)
		nvmf_rdma_queue_disconnect(q, ibv_wc_status_str(wc->status));
	/* Error flushes report every WR: one retired by a later signaled SEND is not
	 * COMPLETING any more. */
	if (r->state == NVMF_RDMA_REQ_COMPLETING) {
		struct nvmf_rdma_req *c;
		do {
			c = TAILQ_FIRST(&q->completing);
			if (!c)
				break; /* cannot happen: every COMPLETING request is on the list */
			TAILQ_REMOVE(&q->completing, c, link);
			q->sends_inflight--;
			c->state = NVMF_RDMA_REQ_COMPLETED;
			nvmf_rdma_req_process(c);
		} while (c != r);
	}
	while (q->state != NVMF_RDMA_Q_DYING && q->sends_inflight < q->max_sends &&
	       !TAILQ_EMPTY(&q->pending_sends) && (r = resume_first(&q->pending_sends)))
		nvmf_rdma_req_process(r);
	serve_pending_recvs(q);
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
