/* The devices' asynchronous events (rdma/target/async.c) on the fake device: the main
 * group reads and acks every one; a QP's error disconnects its queue, on the group that
 * owns it; SRQ, CQ, port and device events are logged and change nothing; an event of a
 * QP that is not the transport's is only acked. */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/unit/rdma/fixture.h"
#include "tests/unit/suites.h"

/* QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR: the QP is in error, the queue cannot go on. It is
 * disconnected and freed (its LAST_WQE_REACHED follows the error state), the core told. */
static void qp_error_events_disconnect_the_queue(void)
{
	static const enum ibv_event_type types[] = {
		IBV_EVENT_QP_FATAL,
		IBV_EVENT_QP_REQ_ERR,
		IBV_EVENT_QP_ACCESS_ERR,
	};
	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct rx x;
		struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
		unsigned released = x.released;
		fv_async_event(x.fd, types[i], &io->qp->qp);
		rx_run(&x);
		CU_ASSERT_PTR_NULL(io->q);
		CU_ASSERT_TRUE(io->qp->destroyed);
		CU_ASSERT_EQUAL(x.released, released + 1);
		CU_ASSERT_EQUAL(x.fd->async_taken, 2); /* the error, then LAST_WQE_REACHED */
		CU_ASSERT_EQUAL(x.fd->async_acked, 2);
		CU_ASSERT_EQUAL(rx_stats(&x).srq_posted, rx_stats(&x).srq_depth);
		rx_teardown(&x);
	}
}

/* Path migration, COMM_EST and the like are only logged; the queue goes on. */
static void other_qp_events_leave_the_queue_alone(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	fv_async_event(x.fd, IBV_EVENT_COMM_EST, &io->qp->qp);
	fv_async_event(x.fd, IBV_EVENT_PATH_MIG, &io->qp->qp);
	rx_run(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_LIVE);
	CU_ASSERT_EQUAL(x.fd->async_acked, 2);
	uint16_t cid = rxq_flush(io);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	rx_teardown(&x);
}

/* A QP on a CQ of no poll group of ours (a libnvmf host queue in the same process, say):
 * acked, nothing else. */
static void event_of_a_qp_not_ours_is_only_acked(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	struct ibv_cq *cq = fake_verbs.create_cq(&x.fd->ctx, 16, NULL, NULL);
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 }
	};
	struct ibv_qp *qp = fake_verbs.create_qp(NULL, &x.fd->pd, &a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	fv_async_event(x.fd, IBV_EVENT_QP_FATAL, qp);
	rx_run(&x);
	CU_ASSERT_EQUAL(x.fd->async_acked, 1);
	CU_ASSERT_EQUAL(fv_qp_of(qp)->events_unacked, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_LIVE);
	fake_verbs.destroy_qp(NULL, qp);
	fake_verbs.destroy_cq(cq);
	rx_teardown(&x);
}

/* SRQ limit and SRQ error, a CQ error, port and device events: logged, acked; the queues
 * and the SRQ's fill are as they were. */
static void srq_cq_port_and_device_events_are_logged_and_acked(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	struct nvmf_rdma_pg_dev *d = x.pg->devs;
	fv_async_event(x.fd, IBV_EVENT_SRQ_LIMIT_REACHED, d->srq->srq);
	fv_async_event(x.fd, IBV_EVENT_SRQ_ERR, d->srq->srq);
	fv_async_event(x.fd, IBV_EVENT_CQ_ERR, d->cq);
	fv_async_event(x.fd, IBV_EVENT_PORT_ERR, NULL);
	fv_async_event(x.fd, IBV_EVENT_PORT_ACTIVE, NULL);
	fv_async_event(x.fd, IBV_EVENT_DEVICE_FATAL, NULL);
	rx_run(&x);
	CU_ASSERT_EQUAL(x.fd->async_taken, 6);
	CU_ASSERT_EQUAL(x.fd->async_acked, 6);
	CU_ASSERT_EQUAL(x.dev.async_events, 6);
	CU_ASSERT_EQUAL(fv_async_pending(x.fd), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_LIVE);
	CU_ASSERT_EQUAL(rx_stats(&x).srq_posted, rx_stats(&x).srq_depth);
	CU_ASSERT_EQUAL(rx_srq_on_device(&x), rx_stats(&x).srq_depth);
	rx_teardown(&x);
}

/* With I/O groups the main group reads the event, and the group owning the QP does the
 * queue's bookkeeping, by message: nothing changes until that group runs a pass; then the
 * queue is disconnected there, and freed there after its LAST_WQE_REACHED (read by the
 * main group again). */
static void event_of_a_queue_on_an_io_group_is_handled_by_that_group(void)
{
	struct rx x;
	struct rx_opts o = { .threads = 2 };
	CU_ASSERT_FATAL(rx_setup(&x, &o) == 0);
	CU_ASSERT_EQUAL_FATAL(x.tgt.npgs, 3);
	struct nvmf_pg *core1 = x.tgt.pgs[1];
	struct nvmf_rdma_poll_group *pg1 =
		(struct nvmf_rdma_poll_group *)nvmf_pg_tpg(core1, &x.t->base);
	struct nvme_rdma_cm_conn conn = { .qid = 1, .recv_depth = 32, .hrqsize = 32 };
	char err[256];
	__atomic_add_fetch(&core1->nqueues, 1, __ATOMIC_RELAXED);
	struct nvmf_rdma_queue *q = nvmf_rdma_queue_create(pg1, &x.dev, x.tgt.ports[0], NULL, &conn,
							   16, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	q->state = NVMF_RDMA_Q_LIVE;
	struct fv_qp *qp = fv_qp_of(q->qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pg1->devs->srq);
	fv_async_event(x.fd, IBV_EVENT_QP_FATAL, &qp->qp);
	rx_poll(&x); /* the main group reads it */
	CU_ASSERT_EQUAL(x.fd->async_acked, 1);
	CU_ASSERT_EQUAL(q->state, NVMF_RDMA_Q_LIVE); /* not the main group's queue */
	nvmf_pg_poll(core1);
	CU_ASSERT_EQUAL(q->state, NVMF_RDMA_Q_DYING);
	for (int i = 0; i < 50 && pg1->queues; i++) {
		rx_poll(&x);
		nvmf_pg_poll(core1);
	}
	CU_ASSERT_PTR_NULL(pg1->queues);
	CU_ASSERT_TRUE(qp->destroyed);
	CU_ASSERT_EQUAL(pg1->last_wqe_events, 1);
	CU_ASSERT_EQUAL(x.fd->async_acked, 2);
	struct nvmf_rdma_pg_stats st;
	nvmf_rdma_pg_stats(pg1, &st);
	CU_ASSERT_EQUAL(st.srq_posted, st.srq_depth);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&x.tgt), 0);
	rx_teardown(&x);
}

const struct unit_test rdma_async_tests[] = {
	{ "qp_error_events_disconnect_the_queue", qp_error_events_disconnect_the_queue },
	{ "other_qp_events_leave_the_queue_alone", other_qp_events_leave_the_queue_alone },
	{ "event_of_a_qp_not_ours_is_only_acked", event_of_a_qp_not_ours_is_only_acked },
	{ "srq_cq_port_and_device_events_are_logged_and_acked",
	  srq_cq_port_and_device_events_are_logged_and_acked },
	{ "event_of_a_queue_on_an_io_group_is_handled_by_that_group",
	  event_of_a_queue_on_an_io_group_is_handled_by_that_group },
	{ NULL, NULL },
};
