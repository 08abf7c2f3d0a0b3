/* SPDX-License-Identifier: MIT */
/*
 * Receive queues. With an SRQ (the default where the device has them) one set of receives
 * serves every queue of a poll group on a device: memory grows with the group, not with
 * the number of connected queues, and a QP that goes to the error state does not flush
 * the shared receives. Without one, each queue posts its own HSQSIZE + 1 receives.
 * Each receive is a 64 B SQE plus, on I/O queues, a page-aligned in-capsule data area
 * (second SGE), so in-capsule write data is ready for O_DIRECT without a copy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/target/internal.h"

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

int nvmf_rdma_rq_init(struct nvmf_rdma_rq *rq, const struct nvmf_rdma_verbs *verbs,
		      struct ibv_pd *pd, bool shared, struct nvmf_rdma_queue *owner, uint32_t depth,
		      uint32_t inline_size, char *err, size_t errlen)
{
	memset(rq, 0, sizeof(*rq));
	rq->verbs = verbs;
	rq->owner = shared ? NULL : owner;
	rq->depth = depth;
	rq->inline_size = inline_size;
	rq->tailp = &rq->head;
	size_t stride = align_up(inline_size, NVMF_RDMA_ALIGN);
	size_t inl_off = align_up((size_t)depth * NVME_SQE_SIZE, NVMF_RDMA_ALIGN);
	rq->mem_len = inl_off + stride * depth;
	rq->recvs = calloc(depth, sizeof(*rq->recvs));
	if (!rq->recvs || posix_memalign(&rq->mem, NVMF_RDMA_ALIGN, rq->mem_len)) {
		rq->mem = NULL;
		snprintf(err, errlen, "out of memory for %u receives", depth);
		goto fail;
	}
	memset(rq->mem, 0, rq->mem_len);
	rq->mr = verbs->reg_mr(pd, rq->mem, rq->mem_len, IBV_ACCESS_LOCAL_WRITE);
	if (!rq->mr) {
		snprintf(err, errlen, "ibv_reg_mr %zu bytes (receives): %s", rq->mem_len,
			 strerror(errno));
		goto fail;
	}
	if (shared) {
		struct ibv_srq_init_attr a = { .attr = { .max_wr = depth,
							 .max_sge = inline_size ? 2 : 1 } };
		rq->srq = verbs->create_srq(pd, &a);
		if (!rq->srq) {
			snprintf(err, errlen, "ibv_create_srq %u entries: %s", depth,
				 strerror(errno));
			goto fail;
		}
	}
	uint8_t *inl = (uint8_t *)rq->mem + inl_off;
	for (uint32_t i = 0; i < depth; i++) {
		struct nvmf_rdma_recv *r = &rq->recvs[i];
		r->wr.type = NVMF_RDMA_WR_RECV;
		r->rq = rq;
		r->sqe = (struct nvme_sqe *)((uint8_t *)rq->mem + (size_t)i * NVME_SQE_SIZE);
		r->sge[0].addr = (uintptr_t)r->sqe;
		r->sge[0].length = NVME_SQE_SIZE;
		r->sge[0].lkey = rq->mr->lkey;
		r->rwr.wr_id = (uintptr_t)&r->wr;
		r->rwr.sg_list = r->sge;
		r->rwr.num_sge = 1;
		if (inline_size) {
			r->inline_buf = inl + (size_t)i * stride;
			r->sge[1].addr = (uintptr_t)r->inline_buf;
			r->sge[1].length = inline_size;
			r->sge[1].lkey = rq->mr->lkey;
			r->rwr.num_sge = 2;
		}
	}
	return 0;
fail:
	nvmf_rdma_rq_fini(rq);
	return -1;
}

void nvmf_rdma_rq_fini(struct nvmf_rdma_rq *rq)
{
	if (rq->srq)
		rq->verbs->destroy_srq(rq->srq);
	if (rq->mr)
		rq->verbs->dereg_mr(rq->mr);
	free(rq->mem);
	free(rq->recvs);
	memset(rq, 0, sizeof(*rq));
}

int nvmf_rdma_rq_post_all(struct nvmf_rdma_rq *rq)
{
	/* Set-up chains every receive and posts them as a pass's reposts are posted. */
	for (uint32_t i = 0; i < rq->depth; i++) {
		rq->recvs[i].rwr.next = NULL;
		*rq->tailp = &rq->recvs[i].rwr;
		rq->tailp = &rq->recvs[i].rwr.next;
	}
	return nvmf_rdma_rq_flush(rq);
}

void nvmf_rdma_rq_repost(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_recv *r)
{
	struct nvmf_rdma_rq *rq = r->rq;
	r->rwr.next = NULL;
	*rq->tailp = &r->rwr;
	rq->tailp = &r->rwr.next;
	if (!rq->dirty) {
		rq->dirty = true;
		rq->next_dirty = pg->dirty_rq;
		pg->dirty_rq = rq;
	}
}

void nvmf_rdma_rq_kick(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_rq *rq)
{
	if (rq->head && !rq->dirty) {
		rq->dirty = true;
		rq->next_dirty = pg->dirty_rq;
		pg->dirty_rq = rq;
	}
}

int nvmf_rdma_rq_flush(struct nvmf_rdma_rq *rq)
{
	struct ibv_recv_wr *wr = rq->head, *bad = NULL;
	rq->head = NULL;
	rq->tailp = &rq->head;
	rq->dirty = false;
	if (!wr)
		return 0;
	uint32_t n = 0;
	for (struct ibv_recv_wr *w = wr; w; w = w->next)
		n++;
	int rc = rq->srq ? rq->verbs->post_srq_recv(rq->srq, wr, &bad) :
			   rq->verbs->post_recv(rq->owner->qp, wr, &bad);
	if (rc) {
		/* Everything from @bad on was not posted: on an SRQ keep it for the next pass
		 * (nothing is lost); a queue's own receive queue dies with its QP. */
		for (struct ibv_recv_wr *w = bad; w; w = w->next)
			n--;
		if (rq->srq && bad) {
			rq->head = bad;
			while (bad->next)
				bad = bad->next;
			rq->tailp = &bad->next;
		}
	}
	rq->posted += n;
	return rc;
}
