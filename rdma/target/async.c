/* SPDX-License-Identifier: MIT */
/*
 * The devices' asynchronous events (ibv_get_async_event on each device context's
 * async_fd, non-blocking). The main poll group reads them, as it reads the listeners' CM
 * events, and acks each at once: ibv_destroy_qp waits for the acks of its QP's events, so
 * an event held while its queue's group tears the QP down would hang that group.
 *
 * An event about a QP or an SRQ concerns the poll group that owns it; the main group
 * finds that group through the registry of the groups' device parts (t->pgds: the QP's
 * send CQ, the SRQ) and hands it the event by message, with the QP's number and address
 * to compare, never to follow (the queue may be gone when the message runs). There:
 *
 *   QP_LAST_WQE_REACHED   the QP, in error, takes no more receives from its SRQ: a dying
 *                         queue waits for it before its QP is destroyed, or receives the
 *                         device still holds for it would be lost to the SRQ (IB spec,
 *                         and as the kernel's ib_drain_qp and SPDK wait for it)
 *   QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR   the queue is disconnected, with a log line
 *   SRQ_LIMIT_REACHED, SRQ_ERR   logged with the SRQ's fill; reposts waiting go out now
 * Events of the device (DEVICE_FATAL, PORT_ERR, PORT_ACTIVE, ...) and CQ errors are
 * logged. A QP no group of ours owns (a host queue of libnvmf in the same process) is
 * only acked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "rdma/target/internal.h"

#define ASYNC_BUDGET 64 /* events per device per look */

/* An event for the group owning its object, by message. */
struct async_msg {
	struct nvmf_rdma_pg_dev *pgd; /* the owner's part on the device */
	enum ibv_event_type type;
	struct ibv_qp *qp; /* compared with the queue's, never followed */
	uint32_t qp_num;
};

bool nvmf_rdma_is_qp_event(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return true;
	default:
		return false;
	}
}

/* On the owner's thread: the event of the QP numbered @qp_num, if its queue still exists. */
static void qp_event(struct nvmf_rdma_poll_group *pg, enum ibv_event_type type, struct ibv_qp *qp,
		     uint32_t qp_num)
{
	struct nvmf_rdma_queue *q = nvmf_rdma_pg_find_qp(pg, qp_num);
	if (!q || q->qp != qp)
		return; /* freed already (after its flush timeout) */
	switch (type) {
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		q->last_wqe = true;
		pg->last_wqe_events++;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
		if (q->state == NVMF_RDMA_Q_DYING)
			NVMF_RDMA_LOG(pg->t, NVMF_LOG_INFO,
				      "host %s, queue %u (cntlid %u): %s while "
				      "disconnecting",
				      q->sq.peer[0] ? q->sq.peer : "?", q->qid,
				      (unsigned)nvmf_sq_cntlid(&q->sq), ibv_event_type_str(type));
		nvmf_rdma_queue_disconnect(q, ibv_event_type_str(type));
		break;
	case IBV_EVENT_COMM_EST:
		break; /* a capsule before the CM's ESTABLISHED: served all the same */
	default:
		NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "host %s, queue %u (cntlid %u): %s",
			      q->sq.peer[0] ? q->sq.peer : "?", q->qid,
			      (unsigned)nvmf_sq_cntlid(&q->sq), ibv_event_type_str(type));
		break;
	}
}

/* On the owner's thread: an event of its SRQ on @pgd's device. */
static void srq_event(struct nvmf_rdma_pg_dev *pgd, enum ibv_event_type type)
{
	struct nvmf_rdma_rq *rq = pgd->srq;
	uint32_t chained = 0;
	for (struct ibv_recv_wr *w = rq->head; w; w = w->next)
		chained++;
	NVMF_RDMA_LOG(
		pgd->pg->t, NVMF_LOG_WARNING,
		"poll group %u, device %s: %s (shared receives: %u of %u posted, %u to repost)",
		pgd->pg->base.pg->index, pgd->dev->dev->name, ibv_event_type_str(type), rq->posted,
		rq->depth, chained);
	nvmf_rdma_rq_kick(pgd->pg, rq);
}

static void async_msg_run(void *arg)
{
	struct async_msg *m = arg;
	if (nvmf_rdma_is_qp_event(m->type))
		qp_event(m->pgd->pg, m->type, m->qp, m->qp_num);
	else
		srq_event(m->pgd, m->type);
	free(m);
}

/* The group part whose CQ is @cq or whose SRQ is @srq (under t->pgd_lock), or NULL. */
static struct nvmf_rdma_pg_dev *owner_of(struct nvmf_rdma_transport *t, const struct ibv_cq *cq,
					 const struct ibv_srq *srq)
{
	for (struct nvmf_rdma_pg_dev *d = t->pgds; d; d = d->all_next)
		if ((cq && d->cq == cq) || (srq && d->srq && d->srq->srq == srq))
			return d;
	return NULL;
}

/* Hand the event of @pgd's QP or SRQ to its group (on the main group: at once). */
static void dispatch(struct nvmf_rdma_poll_group *main_pg, struct nvmf_rdma_pg_dev *pgd,
		     const struct ibv_async_event *ev)
{
	bool qp = nvmf_rdma_is_qp_event(ev->event_type);
	if (pgd->pg == main_pg) {
		if (qp)
			qp_event(main_pg, ev->event_type, ev->element.qp, ev->element.qp->qp_num);
		else
			srq_event(pgd, ev->event_type);
		return;
	}
	struct async_msg *m = malloc(sizeof(*m));
	if (m) {
		*m = (struct async_msg){ .pgd = pgd,
					 .type = ev->event_type,
					 .qp = qp ? ev->element.qp : NULL,
					 .qp_num = qp ? ev->element.qp->qp_num : 0 };
		if (!nvmf_pg_send(pgd->pg->base.pg, async_msg_run, m))
			return;
		free(m);
	}
	/* A dying queue still ends at its flush timeout; a fatal QP reports errors too. */
	NVMF_RDMA_LOG(pgd->pg->t, NVMF_LOG_ERROR,
		      "device %s: %s for poll group %u dropped (out of memory)",
		      pgd->dev->dev->name, ibv_event_type_str(ev->event_type),
		      pgd->pg->base.pg->index);
}

static void handle(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_device *dev,
		   const struct ibv_async_event *ev)
{
	struct nvmf_rdma_transport *t = pg->t;
	const char *name = dev->dev->name;
	enum ibv_event_type type = ev->event_type;
	if (nvmf_rdma_is_qp_event(type) || type == IBV_EVENT_SRQ_ERR ||
	    type == IBV_EVENT_SRQ_LIMIT_REACHED) {
		bool qp = nvmf_rdma_is_qp_event(type);
		/* The registry's lock covers the look-up only: a group's part lives until the
		 * target's shutdown, after the last pass of this group. */
		pthread_mutex_lock(&t->pgd_lock);
		struct nvmf_rdma_pg_dev *pgd = qp ? owner_of(t, ev->element.qp->send_cq, NULL) :
						    owner_of(t, NULL, ev->element.srq);
		pthread_mutex_unlock(&t->pgd_lock);
		if (pgd)
			dispatch(pg, pgd, ev);
		else if (!qp)
			NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "device %s: %s on an SRQ not ours",
				      name, ibv_event_type_str(type));
		return; /* a QP not ours: a host queue of this process */
	}
	switch (type) {
	case IBV_EVENT_CQ_ERR: {
		pthread_mutex_lock(&t->pgd_lock);
		struct nvmf_rdma_pg_dev *pgd = owner_of(t, ev->element.cq, NULL);
		int group = pgd ? (int)pgd->pg->base.pg->index : -1;
		pthread_mutex_unlock(&t->pgd_lock);
		if (group >= 0)
			NVMF_RDMA_LOG(
				pg->t, NVMF_LOG_ERROR,
				"device %s: completion queue error (poll group %d): its queues will fail",
				name, group);
		break;
	}
	case IBV_EVENT_DEVICE_FATAL:
		NVMF_RDMA_LOG(
			pg->t, NVMF_LOG_ERROR,
			"device %s: fatal device error: its queues will fail and it must be reset",
			name);
		break;
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_GID_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
		NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "device %s port %d: %s", name,
			      ev->element.port_num, ibv_event_type_str(type));
		break;
	default:
		NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "device %s: %s", name,
			      ibv_event_type_str(type));
		break;
	}
}

int nvmf_rdma_process_async_events(struct nvmf_rdma_poll_group *pg)
{
	const struct nvmf_rdma_verbs *v = pg->t->verbs;
	int n = 0;
	for (struct nvmf_rdma_device *d = pg->t->devices; d; d = d->next) {
		struct ibv_async_event ev;
		for (int k = 0; k < ASYNC_BUDGET && v->get_async_event(d->dev->verbs, &ev) == 0;
		     k++) {
			handle(pg, d, &ev);
			v->ack_async_event(&ev);
			d->async_events++;
			n++;
		}
	}
	return n;
}
