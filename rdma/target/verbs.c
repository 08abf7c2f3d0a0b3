/* SPDX-License-Identifier: MIT */
/* The verbs table of the target transport, as libibverbs and librdmacm provide it
 * (see struct nvmf_rdma_verbs). Most verbs are static inline in the headers: wrapped. */
#include <errno.h>
#include "rdma/target/internal.h"

static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

static int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return ibv_post_recv(qp, wr, bad);
}

static int post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return ibv_post_srq_recv(srq, wr, bad);
}

static int poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}

static int qp_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	return ibv_modify_qp(qp, &attr, IBV_QP_STATE);
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return ibv_reg_mr(pd, addr, len, access);
}

static struct ibv_cq *create_cq(struct ibv_context *ctx, int cqe, void *cq_ctx,
				struct ibv_comp_channel *ch)
{
	return ibv_create_cq(ctx, cqe, cq_ctx, ch, 0);
}

static struct ibv_qp *create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
				struct ibv_qp_init_attr *attr)
{
	return rdma_create_qp(id, pd, attr) ? NULL : id->qp;
}

static void destroy_qp(struct rdma_cm_id *id, struct ibv_qp *qp)
{
	(void)qp;
	rdma_destroy_qp(id);
}

static int req_notify_cq(struct ibv_cq *cq)
{
	return ibv_req_notify_cq(cq, 0);
}

static void ack_channel(struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq;
	void *ctx;
	while (ibv_get_cq_event(ch, &cq, &ctx) == 0)
		ibv_ack_cq_events(cq, 1);
}

const struct nvmf_rdma_verbs nvmf_rdma_verbs_real = {
	.post_send = post_send,
	.post_recv = post_recv,
	.post_srq_recv = post_srq_recv,
	.poll_cq = poll_cq,
	.qp_error = qp_error,
	.req_notify_cq = req_notify_cq,
	.ack_channel = ack_channel,
	.reg_mr = reg_mr,
	.dereg_mr = ibv_dereg_mr,
	.create_channel = ibv_create_comp_channel,
	.destroy_channel = ibv_destroy_comp_channel,
	.create_cq = create_cq,
	.resize_cq = ibv_resize_cq,
	.destroy_cq = ibv_destroy_cq,
	.create_srq = ibv_create_srq,
	.destroy_srq = ibv_destroy_srq,
	.create_qp = create_qp,
	.destroy_qp = destroy_qp,
	.create_event_channel = rdma_create_event_channel,
	.destroy_event_channel = rdma_destroy_event_channel,
	.get_cm_event = rdma_get_cm_event,
	.ack_cm_event = rdma_ack_cm_event,
	.accept = rdma_accept,
	.reject = rdma_reject,
	.disconnect = rdma_disconnect,
	.migrate_id = rdma_migrate_id,
	.destroy_id = rdma_destroy_id,
	.get_async_event = ibv_get_async_event,
	.ack_async_event = ibv_ack_async_event,
};
