/* SPDX-License-Identifier: MIT */
/*
 * Connection of one host queue over rdma_cm, the way the Linux host does it
 * (drivers/nvme/host/rdma.c, nvme_rdma_route_resolved): RDMA_PS_TCP cm_id on a
 * private event channel, address and route resolved with 3 s timeouts, a PD per device,
 * CQ + completion channel + RC QP per queue, one 16-byte RECV per queue entry posted
 * BEFORE rdma_connect (the target may answer as soon as it is established), CM REQ private
 * data {RECFMT 0, QID, HRQSIZE = size, HSQSIZE = size - 1}, responder_resources = the
 * device's max_qp_rd_atom (the target RDMA READs write data from us), initiator_depth 0
 * (we never READ), retry and RNR retry 7, flow control on.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include "nvme/rdma-cm.h"
#include "rdma/host/host.h"
#include "util/addr.h"
#include "util/clock.h"
#include "util/deadline.h"

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Next CM event of @q within @timeout_ms. 0 with *ev (ack it), -ETIMEDOUT or -errno. */
static int cm_wait(struct nvmf_rh_queue *q, int timeout_ms, struct rdma_cm_event **ev)
{
	int64_t deadline = (int64_t)nvmf_mono_ms() + timeout_ms;
	for (;;) {
		if (rdma_get_cm_event(q->ec, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		int left = nvmf_deadline_left_ms(deadline);
		if (!left)
			return -ETIMEDOUT;
		struct pollfd pfd = { .fd = q->ec->fd, .events = POLLIN };
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			return -errno;
	}
}

/*
 * Wait for @want; any other event is an error named after @what. Returns 0 (the event is
 * acked), or -errno with @err set. REJECTED is decoded (NVMe/RDMA reject status).
 */
static int cm_expect(struct nvmf_rh_queue *q, enum rdma_cm_event_type want, int timeout_ms,
		     const char *what, char *err, size_t errlen)
{
	struct rdma_cm_event *ev;
	int rc = cm_wait(q, timeout_ms, &ev);
	if (rc) {
		snprintf(err, errlen, "%s %s: %s", what, q->peer,
			 rc == -ETIMEDOUT ? "timed out" : strerror(-rc));
		return rc;
	}
	if (ev->event == want) {
		rdma_ack_cm_event(ev);
		return 0;
	}
	char why[160];
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		rc = nvmf_rh_reject_msg(ev->status, ev->param.conn.private_data,
					ev->param.conn.private_data_len, why, sizeof(why));
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		/* status is -errno here (-ETIMEDOUT when nobody answered). */
		rc = ev->status < 0 ? ev->status : -EHOSTUNREACH;
		snprintf(why, sizeof(why), "%s (%s)", rdma_event_str(ev->event), strerror(-rc));
		break;
	default:
		rc = -ECONNRESET;
		snprintf(why, sizeof(why), "unexpected %s (status %d)", rdma_event_str(ev->event),
			 ev->status);
		break;
	}
	rdma_ack_cm_event(ev);
	snprintf(err, errlen, "%s %s: %s", what, q->peer, why);
	return rc;
}

/* Buffers, CQ and QP of a resolved queue; the RECVs posted. */
static int create_resources(struct nvmf_rh_queue *q, char *err, size_t errlen)
{
	struct ibv_context *verbs = q->id->verbs;
	struct nvmf_rdma_dev *dev = q->dev;
	const char *name = ibv_get_device_name(verbs->device);

	q->cc = ibv_create_comp_channel(verbs);
	if (!q->cc || set_nonblock(q->cc->fd)) {
		snprintf(err, errlen, "%s: completion channel: %s", name, strerror(errno));
		return -ENOMEM;
	}
	q->nslots = 2u * q->size;
	uint32_t send_wr = q->nslots + 1;
	if (send_wr > (uint32_t)dev->attr.max_qp_wr)
		send_wr = (uint32_t)dev->attr.max_qp_wr;
	int cqe = (int)(q->size + 1 + send_wr);
	if (cqe > dev->attr.max_cqe)
		cqe = dev->attr.max_cqe;
	int vec = verbs->num_comp_vectors > 0 ? q->qid % verbs->num_comp_vectors : 0;
	q->cq = ibv_create_cq(verbs, cqe, q, q->cc, vec);
	if (!q->cq) {
		snprintf(err, errlen, "%s: ibv_create_cq %d entries: %s", name, cqe,
			 strerror(errno));
		return -ENOMEM;
	}
	struct ibv_qp_init_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.qp_context = q;
	attr.send_cq = q->cq;
	attr.recv_cq = q->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = q->size + 1u;
	attr.cap.max_send_sge = 2; /* SQE + in-capsule data */
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(q->id, dev->pd, &attr)) {
		snprintf(err, errlen, "%s: rdma_create_qp (send %u, recv %u): %s", name, send_wr,
			 q->size + 1u, strerror(errno));
		return errno ? -errno : -ENOMEM;
	}
	q->qp_created = true;

	/* Receive buffers: one CQE each, registered once. */
	size_t rsp_len = (size_t)q->size * NVME_CQE_SIZE;
	q->rsp = aligned_alloc(64, (rsp_len + 63) / 64 * 64);
	q->rwr = calloc(q->size, sizeof(*q->rwr));
	q->rsge = calloc(q->size, sizeof(*q->rsge));
	/* Capsule buffers: one SQE per slot. */
	size_t sqe_len = (size_t)q->nslots * NVME_SQE_SIZE;
	q->sqe_mem = aligned_alloc(64, sqe_len);
	q->slots = calloc(q->nslots, sizeof(*q->slots));
	q->free_slots = calloc(q->nslots, sizeof(*q->free_slots));
	if (!q->rsp || !q->rwr || !q->rsge || !q->sqe_mem || !q->slots || !q->free_slots) {
		snprintf(err, errlen, "out of memory for %u queue entries", q->size);
		return -ENOMEM;
	}
	memset(q->rsp, 0, rsp_len);
	memset(q->sqe_mem, 0, sqe_len);
	q->rsp_mr = ibv_reg_mr(dev->pd, q->rsp, rsp_len, IBV_ACCESS_LOCAL_WRITE);
	q->sqe_mr = ibv_reg_mr(dev->pd, q->sqe_mem, sqe_len, 0);
	if (!q->rsp_mr || !q->sqe_mr) {
		snprintf(err, errlen, "%s: ibv_reg_mr: %s", name, strerror(errno));
		return -ENOMEM;
	}
	int rc = nvmf_rh_pool_init(&q->pool, dev->pd, q->size);
	if (rc) {
		snprintf(err, errlen, "%s: bounce buffers (%u x %u bytes): %s", name, q->size,
			 NVMF_RH_SMALL_BUF, strerror(-rc));
		return rc;
	}
	for (uint32_t i = 0; i < q->nslots; i++) {
		struct nvmf_rh_slot *s = &q->slots[i];
		s->sqe = (struct nvme_sqe *)((uint8_t *)q->sqe_mem + (size_t)i * NVME_SQE_SIZE);
		s->sge[0].addr = (uintptr_t)s->sqe;
		s->sge[0].length = NVME_SQE_SIZE;
		s->sge[0].lkey = q->sqe_mr->lkey;
		s->wr.wr_id = (uint64_t)NVMF_RH_WR_SEND << 32 | i;
		s->wr.sg_list = s->sge;
		s->wr.num_sge = 1;
		s->wr.opcode = IBV_WR_SEND;
		s->wr.send_flags = IBV_SEND_SIGNALED; /* the slot is reused only after it */
		q->free_slots[q->nfree++] = q->nslots - 1 - i;
	}
	for (uint32_t i = 0; i < q->size; i++) {
		q->rsge[i].addr = (uintptr_t)&q->rsp[i];
		q->rsge[i].length = NVME_CQE_SIZE;
		q->rsge[i].lkey = q->rsp_mr->lkey;
		q->rwr[i].wr_id = (uint64_t)NVMF_RH_WR_RECV << 32 | i;
		q->rwr[i].sg_list = &q->rsge[i];
		q->rwr[i].num_sge = 1;
		rc = nvmf_rh_post_recv(q, i);
		if (rc) {
			snprintf(err, errlen, "%s: ibv_post_recv: %s", name, strerror(rc));
			return -rc;
		}
	}
	return 0;
}

int nvmf_rh_queue_connect(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			  uint16_t size, char *err, size_t errlen)
{
	if (size < 2) {
		snprintf(err, errlen, "queue %u: size %u: a queue has at least 2 entries", qid,
			 size);
		return -EINVAL;
	}
	struct sockaddr_storage ss;
	int rc = nvmf_rh_parse_addr(opts->traddr, opts->trsvcid, &ss, err, errlen);
	if (rc)
		return rc;
	struct nvmf_rh_queue *q = calloc(1, sizeof(*q));
	if (!q) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	hq->tpriv = q;
	q->hq = hq;
	q->qid = qid;
	q->size = size;
	nvmf_sockaddr_str((const struct sockaddr *)&ss, q->peer, sizeof(q->peer));

	q->ec = rdma_create_event_channel();
	if (!q->ec || set_nonblock(q->ec->fd)) {
		rc = errno ? -errno : -ENODEV;
		snprintf(err, errlen,
			 "rdma_create_event_channel: %s (no RDMA device, or rdma_ucm not loaded?)",
			 strerror(errno));
		goto fail;
	}
	if (rdma_create_id(q->ec, &q->id, q, RDMA_PS_TCP)) {
		rc = -errno;
		snprintf(err, errlen, "rdma_create_id: %s", strerror(errno));
		goto fail;
	}
	if (rdma_resolve_addr(q->id, NULL, (struct sockaddr *)&ss, NVMF_RH_CM_TIMEOUT_MS)) {
		rc = -errno;
		snprintf(err, errlen, "rdma_resolve_addr %s: %s", q->peer, strerror(errno));
		goto fail;
	}
	/* The CM times out itself after 3 s; the extra second only guards against a CM
	 * that never reports. */
	rc = cm_expect(q, RDMA_CM_EVENT_ADDR_RESOLVED, NVMF_RH_CM_TIMEOUT_MS + 1000,
		       "rdma_resolve_addr", err, errlen);
	if (rc)
		goto fail;
	if (rdma_resolve_route(q->id, NVMF_RH_CM_TIMEOUT_MS)) {
		rc = -errno;
		snprintf(err, errlen, "rdma_resolve_route %s: %s", q->peer, strerror(errno));
		goto fail;
	}
	rc = cm_expect(q, RDMA_CM_EVENT_ROUTE_RESOLVED, NVMF_RH_CM_TIMEOUT_MS + 1000,
		       "rdma_resolve_route", err, errlen);
	if (rc)
		goto fail;
	q->dev = nvmf_rdma_dev_get(q->id->verbs, err, errlen);
	if (!q->dev) {
		rc = -ENODEV;
		goto fail;
	}
	rc = create_resources(q, err, errlen);
	if (rc)
		goto fail;

	struct nvme_rdma_cm_req req;
	nvme_rdma_cm_build_req(&req, qid, size);
	struct rdma_conn_param p;
	memset(&p, 0, sizeof(p));
	p.private_data = &req;
	p.private_data_len = sizeof(req);
	int rd = q->dev->attr.max_qp_rd_atom;
	p.responder_resources = (uint8_t)(rd > 255 ? 255 : rd < 0 ? 0 : rd);
	p.initiator_depth = 0;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	p.flow_control = 1;
	if (rdma_connect(q->id, &p)) {
		rc = -errno;
		snprintf(err, errlen, "rdma_connect %s: %s", q->peer, strerror(errno));
		goto fail;
	}
	int tmo = opts->timeout_ms > 0 ? opts->timeout_ms : NVMF_RH_CONNECT_TIMEOUT;
	char why[256];
	rc = cm_expect(q, RDMA_CM_EVENT_ESTABLISHED, tmo, "rdma_connect", why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "queue %u: %s", qid, why);
		goto fail;
	}
	q->connected = true;
	return 0;
fail:
	nvmf_rh_queue_disconnect(hq);
	return rc;
}

void nvmf_rh_queue_disconnect(struct nvmf_hq *hq)
{
	struct nvmf_rh_queue *q = hq->tpriv;
	if (!q)
		return;
	if (q->connected)
		rdma_disconnect(q->id); /* QP to error, DREQ to the target */
	if (q->qp_created)
		rdma_destroy_qp(q->id);
	if (q->cq)
		ibv_destroy_cq(q->cq); /* every CQ event was acked in wait() */
	if (q->cc)
		ibv_destroy_comp_channel(q->cc);
	if (q->rsp_mr)
		ibv_dereg_mr(q->rsp_mr);
	if (q->sqe_mr)
		ibv_dereg_mr(q->sqe_mr);
	if (q->icd_mr)
		ibv_dereg_mr(q->icd_mr);
	nvmf_rh_pool_fini(&q->pool);
	free(q->rsp);
	free(q->rwr);
	free(q->rsge);
	free(q->sqe_mem);
	free(q->icd_mem);
	free(q->slots);
	free(q->free_slots);
	if (q->id)
		rdma_destroy_id(q->id); /* every CM event was acked */
	if (q->ec)
		rdma_destroy_event_channel(q->ec);
	nvmf_rdma_dev_put(q->dev); /* after the MRs and QP: they hold the PD */
	free(q);
	hq->tpriv = NULL;
}
