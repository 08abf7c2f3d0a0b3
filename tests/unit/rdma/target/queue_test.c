/*
 * The end of an RDMA queue (rdma/target/queue.c): whatever state its commands are in
 * when it dies, each request is finished exactly once, every buffer and receive goes back,
 * the core releases the queue and the poll group frees it; what completes afterwards is
 * dropped. Queues die by disconnect, by a failed work request, by a failed post, by a
 * malformed capsule. On an SRQ a dying queue waits for LAST_WQE_REACHED, so that what its
 * QP took from the SRQ comes back before the QP is destroyed.
 */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <string.h>
#include "nvme/sgl.h"
#include "rdma/target/internal.h"
#include "rdma/target/transport.h"
#include "tests/unit/rdma/fixture.h"
#include "tests/unit/suites.h"

static const struct rx_opts small_pool = { .buffers_small = 1, .buffers_large = 1 };

/* SRQ receives the device holds, as the transport and the fake device count them. */
static void assert_srq_full(struct rx *x)
{
	struct nvmf_rdma_rq *srq = x->pg->devs ? x->pg->devs->srq : NULL;
	if (!srq)
		return;
	CU_ASSERT_EQUAL(srq->posted, srq->depth);
	CU_ASSERT_EQUAL(fv_posted(&fv_srq_of(srq->srq)->rq), srq->depth);
}

/* Completions only: no messages, no reaping, so the dying queue can be looked at. */
static void reap_completions(struct rx *x)
{
	nvmf_rdma_pg_poll_cqs(x->pg, 1024);
	nvmf_rdma_pg_flush_op(&x->pg->base);
}

/* One command in each state a request can wait in, on an I/O queue of HRQSIZE 1, ORD 1
 * and a pool of a few buffers; then the queue is disconnected. */
static void disconnect_in_every_state(bool srq)
{
	struct rx x;
	struct rx_opts o = small_pool;
	o.no_srq = !srq;
	struct rxq *io = rx_setup_io(&x, &o, 32, 1, 1);
	struct nvmf_rdma_queue *q = io->q;
	unsigned released = x.released;

	rxq_read(io, 0, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_ADDR, NULL); /* SEND posted */
	rxq_flush(io); /* waits for a send slot */
	rx_poll(&x);
	rx_hold_backend(&x, true);
	rxq_read(io, 8, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_ADDR,
		 NULL); /* in the backend */
	rxq_write(io, 16, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_INV,
		  NULL); /* READ posted */
	rx_poll(&x);
	unsigned left = rx_pool_free(&x);
	for (unsigned i = 0; i < left; i++) /* wait for a READ slot */
		rxq_write(io, 24 + i * 8, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_INV, NULL);
	rxq_write(io, 200, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_INV, NULL); /* no buffer */
	rx_poll(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_COMPLETING), 1);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_READY_TO_COMPLETE), 1);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_EXECUTING), 1);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_TRANSFER_H2C), 1);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_READ), left);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_BUFFER), 1);
	CU_ASSERT_EQUAL(rx_pool_free(&x), 0);

	nvmf_rdma_queue_disconnect(q, "test");
	CU_ASSERT_EQUAL(q->state, NVMF_RDMA_Q_DYING);
	/* What only waited is finished at once; the rest once its WR flushed or the backend
	 * answered. */
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_BUFFER) +
				rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_READ) +
				rxq_reqs_in(io, NVMF_RDMA_REQ_READY_TO_COMPLETE),
			0);
	reap_completions(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_EXECUTING), 1);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_FREE), q->nreq - 1);
	CU_ASSERT_EQUAL(rx_release_backend(&x), 1);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_FREE), q->nreq);
	CU_ASSERT_EQUAL(q->sends_inflight, 0);
	CU_ASSERT_EQUAL(q->reads_inflight, 0);
	if (!srq)
		CU_ASSERT_EQUAL(q->own_rq.posted, 0); /* its own receives flushed */
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	CU_ASSERT_EQUAL(rx_pool_double_puts(&x), 0);

	rx_run(&x);
	CU_ASSERT_EQUAL(x.released, released + 1);
	CU_ASSERT_PTR_NULL(io->q); /* reaped */
	CU_ASSERT_EQUAL(x.pg->ndying, 0);
	CU_ASSERT_EQUAL(io->nresp, 1); /* only the Connect was ever answered */
	assert_srq_full(&x);
	rx_teardown(&x);
}

static void disconnect_with_commands_in_every_state_finishes_each_once_with_srq(void)
{
	disconnect_in_every_state(true);
}

static void disconnect_with_commands_in_every_state_finishes_each_once_without_srq(void)
{
	disconnect_in_every_state(false);
}

static void admin_queue_loss_ends_the_association_and_frees_every_queue(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	struct rxq *admin = x.queues[0];
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_async_event;
	c.flags = NVME_CMD_PSDT_SGL_MPTR;
	rx_sgl_keyed(&c, NVME_SGL_KEYED_ADDR, NULL, 0, 0);
	uint16_t aer = rxq_send(admin, &c, NULL, 0);
	rx_hold_backend(&x, true);
	rxq_write(io, 0, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_INV, NULL);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(admin, NVMF_RDMA_REQ_EXECUTING), 1); /* the AER, parked */
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_EXECUTING), 1);

	nvmf_rdma_queue_disconnect(admin->q, "test");
	rx_run(&x);
	CU_ASSERT_PTR_NULL(admin->q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q); /* dying: its write is still in the backend */
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_DYING);
	rx_release_backend(&x);
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(rxq_status(admin, aer), RX_NO_RESPONSE); /* dropped: the host is gone */
	CU_ASSERT_PTR_NULL(x.tgt.ctrls);
	rx_teardown(&x);
}

/* A keyed @opcode (Write: RDMA READ, Read: RDMA WRITE) under an rkey the host never
 * registered: the transfer fails with a remote access error and takes the queue down,
 * with a good Write behind it. */
static void bad_rkey(uint8_t opcode)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t *buf = rx_host_alloc(&x, 4096);
	unsigned wr0 = io->qp->sq_len;
	struct nvme_sqe c;
	rx_cmd_rw(&c, opcode, 0, 4096);
	rx_sgl_keyed(&c, NVME_SGL_KEYED_INV, buf, 4096, 0xbad);
	uint16_t bad = rxq_send(io, &c, NULL, 0);
	uint16_t good = rxq_write(io, 8, buf, 4096, NVME_SGL_KEYED_INV, NULL);
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(rxq_status(io, bad), RX_NO_RESPONSE);
	CU_ASSERT_EQUAL(rxq_status(io, good), RX_NO_RESPONSE);
	if (opcode == nvme_cmd_read) {
		/* The failed WRITE's SEND behind it was flushed, never delivered. */
		CU_ASSERT_EQUAL(io->qp->sq[wr0].opcode, IBV_WR_RDMA_WRITE);
		CU_ASSERT_EQUAL(io->qp->sq[wr0 + 1].opcode, IBV_WR_SEND_WITH_INV);
		CU_ASSERT(io->qp->sq[wr0 + 1].flushed);
	}
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	CU_ASSERT_EQUAL(rx_pool_double_puts(&x), 0);
	assert_srq_full(&x);
	rx_teardown(&x);
}

static void failed_rdma_read_disconnects_the_queue(void)
{
	bad_rkey(nvme_cmd_write);
}

static void failed_rdma_write_disconnects_the_queue_and_its_send_is_flushed(void)
{
	bad_rkey(nvme_cmd_read);
}

/* Three commands whose WRs go in one post; the device refuses WR @fail_at of it. */
static void post_send_failure(bool reads, int fail_at, bool device_ran_the_rest)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	unsigned wrs = io->qp->sq_len, released = x.released;
	for (int i = 0; i < 3; i++) {
		void *buf = rx_host_alloc(&x, 4096);
		if (reads)
			rxq_read(io, (uint64_t)i * 8, buf, 4096, NVME_SGL_KEYED_ADDR, NULL);
		else
			rxq_write(io, (uint64_t)i * 8, buf, 4096, NVME_SGL_KEYED_INV, NULL);
	}
	x.fd->fail_post_send_at = fail_at;
	x.fd->exec_on_post = device_ran_the_rest;
	rx_poll(&x);
	x.fd->exec_on_post = false;
	CU_ASSERT_EQUAL(io->qp->sq_len - wrs, (unsigned)fail_at); /* what was posted */
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_DYING);
	reap_completions(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_FREE), io->q->nreq);
	rx_run(&x);
	CU_ASSERT_EQUAL(x.released, released + 1);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	CU_ASSERT_EQUAL(rx_pool_double_puts(&x), 0);
	assert_srq_full(&x);
	rx_teardown(&x);
}

static void post_send_failure_disconnects_and_finishes_the_unposted_reads(void)
{
	post_send_failure(false, 1, false);
}

static void post_send_failure_disconnects_and_finishes_the_unposted_responses(void)
{
	post_send_failure(true, 3, false); /* WRITE SEND WRITE | SEND WRITE SEND */
	post_send_failure(true, 0, false);
}

/* The SEND before the refused one was posted unsignaled and has already run: no
 * completion will ever name it. */
static void post_send_failure_retires_unsignaled_sends_the_device_already_ran(void)
{
	post_send_failure(true, 3, true);
}

static void capsule_shorter_than_64_bytes_disconnects_the_queue(void)
{
	for (int srq = 0; srq < 2; srq++) {
		struct rx x;
		struct rx_opts o = { .no_srq = !srq };
		struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
		struct nvme_sqe c;
		rx_cmd_rw(&c, nvme_cmd_write, 0, 4096);
		CU_ASSERT_EQUAL(fv_host_send(io->qp, &c, 32), 0);
		rx_poll(&x);
		CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
		CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_DYING);
		rx_run(&x);
		CU_ASSERT_PTR_NULL(io->q);
		CU_ASSERT_EQUAL(io->nresp, 1); /* the Connect's only */
		assert_srq_full(&x);
		rx_teardown(&x);
	}
}

static void late_completions_of_a_freed_queue_are_dropped(void)
{
	for (int srq = 0; srq < 2; srq++) {
		struct rx x;
		struct rx_opts o = { .no_srq = !srq };
		struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
		uint32_t qp_num = io->q->qp_num;
		/* Addresses inside the queue's memory, freed with it: never to be followed. */
		uint64_t send_ctx = (uintptr_t)&io->q->reqs[0].send_ctx;
		uint64_t own_recv = srq ? 0 : (uintptr_t)&io->q->own_rq.recvs[0].wr;
		nvmf_rdma_queue_disconnect(io->q, "test");
		rx_run(&x);
		CU_ASSERT_PTR_NULL_FATAL(io->q);
		struct ibv_cq *cq = x.pg->devs->cq;
		struct ibv_wc wc = { .wr_id = send_ctx,
				     .status = IBV_WC_WR_FLUSH_ERR,
				     .qp_num = qp_num };
		fv_inject(cq, &wc);
		if (srq) {
			/* A capsule the SRQ took for the QP just before it went: the receive is
			 * the group's and goes back to the SRQ. */
			wc = (struct ibv_wc){ .wr_id = fv_srq_take(x.pg->devs->srq->srq),
					      .status = IBV_WC_SUCCESS,
					      .opcode = IBV_WC_RECV,
					      .byte_len = 64,
					      .qp_num = qp_num };
		} else {
			wc = (struct ibv_wc){ .wr_id = own_recv,
					      .status = IBV_WC_WR_FLUSH_ERR,
					      .opcode = IBV_WC_RECV,
					      .qp_num = qp_num };
		}
		fv_inject(cq, &wc);
		unsigned nfree = rx_pool_free(&x);
		rx_run(&x);
		CU_ASSERT_EQUAL(rx_pool_free(&x), nfree);
		assert_srq_full(&x);
		rx_teardown(&x);
	}
}

/* Entries of @q's free list, counted up to one more than there are requests (a cycle). */
static unsigned free_list_len(const struct nvmf_rdma_queue *q)
{
	unsigned n = 0;
	for (const struct nvmf_rdma_req *r = TAILQ_FIRST(&q->free_reqs); r && n <= q->nreq;
	     r = TAILQ_NEXT(r, link))
		n++;
	return n;
}

/* A keyed Write (its READ in flight) or Read (its SEND in flight) on a queue that is
 * then disconnected on a device whose flushes do not come: the queue stays. */
static struct rxq *die_unflushed(struct rx *x, uint8_t opcode, enum nvmf_rdma_req_state inflight)
{
	struct rxq *io = rx_setup_io(x, NULL, 32, 32, 16);
	void *buf = rx_host_alloc(x, 4096);
	if (opcode == nvme_cmd_write)
		rxq_write(io, 0, buf, 4096, NVME_SGL_KEYED_INV, NULL);
	else
		rxq_read(io, 0, buf, 4096, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, inflight), 1);
	x->fd->hold_flush = true;
	nvmf_rdma_queue_disconnect(io->q, "test");
	rx_run(x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	return io;
}

/* After the flush timeout the reaper abandons a READ that never flushed; its flush may
 * still come before the core has released the queue. */
static void read_flushed_after_the_flush_timeout_is_ignored(void)
{
	struct rx x;
	struct rxq *io = die_unflushed(&x, nvme_cmd_write, NVMF_RDMA_REQ_TRANSFER_H2C);
	CU_ASSERT_FALSE(io->q->released); /* the READ holds it in the core */
	nvmf_rdma_pg_reap(x.pg, true);    /* the flush timeout */
	CU_ASSERT_EQUAL(io->q->reads_inflight, 0);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_FREE), io->q->nreq);
	fv_flush(io->qp); /* ... and the flush comes after all */
	reap_completions(&x);
	CU_ASSERT_EQUAL(io->q->reads_inflight, 0);
	CU_ASSERT_EQUAL(free_list_len(io->q), io->q->nreq);
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	x.fd->hold_flush = false;
	rx_teardown(&x);
}

/* A queue freed at the flush timeout with SENDs that never completed: their buffers go
 * back to the pool. */
static void queue_freed_at_the_flush_timeout_returns_the_buffers_of_unflushed_sends(void)
{
	struct rx x;
	struct rxq *io = die_unflushed(&x, nvme_cmd_read, NVMF_RDMA_REQ_COMPLETING);
	CU_ASSERT(io->q->released); /* released, but its SEND never flushed */
	nvmf_rdma_pg_reap(x.pg, true);
	rx_poll(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	fv_flush(io->qp); /* late: dropped */
	rx_run(&x);
	CU_ASSERT_EQUAL(rx_pool_double_puts(&x), 0);
	x.fd->hold_flush = false;
	rx_teardown(&x);
}

/* A device whose QPs hold fewer WRs than 2 x HRQSIZE + ORD: the queue keeps fewer
 * responses and READs in flight rather than overflow its send queue. */
static void send_queue_smaller_than_the_host_allows_is_never_overflowed(void)
{
	struct rx x;
	struct rx_opts o = { .max_qp_wr = 16 };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	CU_ASSERT(io->qp->cap.max_send_wr <= 16);
	enum { N = 24 };
	uint16_t cid[2 * N];
	for (unsigned i = 0; i < N; i++) {
		cid[i] = rxq_read(io, (uint64_t)i * 8, rx_host_alloc(&x, 4096), 4096,
				  NVME_SGL_KEYED_ADDR, NULL);
		cid[N + i] = rxq_write(io, (uint64_t)i * 8 + 1024, rx_host_alloc(&x, 4096), 4096,
				       NVME_SGL_KEYED_INV, NULL);
		if (i % 8 == 7)
			rx_run(&x);
	}
	rx_run(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_LIVE);
	for (unsigned i = 0; i < 2 * N; i++)
		CU_ASSERT_EQUAL(rxq_status(io, cid[i]), 0);
	rx_teardown(&x);
}

/* The target stopping (the core's quiesce, target/target.c): a capsule that arrives is
 * dropped unanswered with its receive given back and nothing reaching the namespace; the
 * read already in the backend is answered with its data, and the queue reports its
 * answer busy until the host took the SEND. */
static void stopping_queue_drops_new_capsules_and_reports_answers_on_the_wire(bool srq)
{
	struct rx x;
	struct rx_opts o = { .no_srq = !srq };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	struct nvmf_rdma_queue *q = io->q;
	bool (*busy)(const struct nvmf_sq *) = nvmf_rdma_transport_ops.queue_busy;
	CU_ASSERT_PTR_NOT_NULL_FATAL(busy);
	uint8_t *ns = rx_ns_data(&x);
	for (unsigned i = 0; i < 4096; i++)
		ns[i] = (uint8_t)(i * 7 + 1);

	rx_hold_backend(&x, true);
	uint8_t *rbuf = rx_host_alloc(&x, 4096);
	uint16_t rcid = rxq_read(io, 0, rbuf, 4096, NVME_SGL_KEYED_INV, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_EXECUTING), 1);
	CU_ASSERT_FALSE(busy(&q->sq)); /* in the core, not on the wire */
	struct nvmf_tpg_stats st;
	nvmf_rdma_pg_stats_op(&x.pg->base, &st);
	CU_ASSERT_EQUAL(st.bufs_held, 1); /* the read's buffer */
	CU_ASSERT_EQUAL(st.queues, 2);

	q->sq.quiescing = true; /* what the core's quiesce message does */
	uint8_t *wbuf = rx_host_alloc(&x, 4096);
	memset(wbuf, 0xee, 4096);
	uint16_t wcid = rxq_write(io, 8, wbuf, 4096, NVME_SGL_KEYED_INV, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_FREE), q->nreq - 1); /* only the read */
	CU_ASSERT_EQUAL(x.nheld, 1);
	CU_ASSERT_FALSE(busy(&q->sq));

	CU_ASSERT_EQUAL(rx_release_backend(&x), 1);
	rx_poll(&x);
	CU_ASSERT_TRUE(busy(&q->sq)); /* WRITE + SEND posted, not completed */
	rx_host(&x);
	rx_poll(&x);
	CU_ASSERT_FALSE(busy(&q->sq));
	CU_ASSERT_EQUAL(rxq_status(io, rcid), 0);
	CU_ASSERT_EQUAL(memcmp(rbuf, ns, 4096), 0);
	CU_ASSERT_EQUAL(rxq_status(io, wcid), RX_NO_RESPONSE);
	static const uint8_t zero[4096];
	CU_ASSERT_EQUAL(memcmp(ns + 8 * 512, zero, sizeof(zero)), 0); /* never written */
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_FREE), q->nreq);
	if (!srq)
		CU_ASSERT_EQUAL(q->own_rq.posted, q->recv_depth);
	assert_srq_full(&x);
	nvmf_rdma_pg_stats_op(&x.pg->base, &st);
	CU_ASSERT_EQUAL(st.bufs_held, 0);
	CU_ASSERT_EQUAL(st.dying, 0);
	CU_ASSERT_EQUAL(st.recv_posted, st.recv_depth);
	CU_ASSERT_EQUAL(st.recv_depth, srq ? x.pg->devs->srq->depth : 0);
	rx_teardown(&x);
}

static void stopping_queue_drops_new_capsules_and_answers_the_rest_with_srq(void)
{
	stopping_queue_drops_new_capsules_and_reports_answers_on_the_wire(true);
}

static void stopping_queue_drops_new_capsules_and_answers_the_rest_without_srq(void)
{
	stopping_queue_drops_new_capsules_and_reports_answers_on_the_wire(false);
}

/* A QP on the SRQ may hold receives it took from the SRQ for messages still arriving when
 * it dies; the device gives them back (flushed) only before LAST_WQE_REACHED, and a QP
 * destroyed sooner loses them to the SRQ for good. The dying queue waits for the event:
 * then its receives are reposted, the SRQ is full again and nothing was lost. */
static void dying_queue_waits_for_last_wqe_and_its_srq_receives_come_back(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	struct nvmf_rdma_pg_stats st = rx_stats(&x);
	uint32_t depth = st.srq_depth;
	CU_ASSERT_EQUAL(st.srq_posted, depth);
	x.fd->hold_last_wqe = true;
	CU_ASSERT_EQUAL_FATAL(fv_srq_assign(io->qp, 3), 3);
	CU_ASSERT_EQUAL(rx_srq_on_device(&x), depth - 3);
	nvmf_rdma_queue_disconnect(io->q, "test");
	rx_run(&x);
	/* Released by the core, its WRs flushed: only the event is missing. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_TRUE(io->q->released);
	CU_ASSERT_FALSE(io->qp->destroyed);
	CU_ASSERT_EQUAL(rx_stats(&x).waiting_last_wqe, 1);
	fv_last_wqe(io->qp);
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_TRUE(io->qp->destroyed);
	st = rx_stats(&x);
	CU_ASSERT_EQUAL(st.srq_posted, depth);
	CU_ASSERT_EQUAL(rx_srq_on_device(&x), depth);
	CU_ASSERT_EQUAL(st.last_wqe_events, 1);
	CU_ASSERT_EQUAL(st.waiting_last_wqe, 0);
	CU_ASSERT_EQUAL(x.fd->srq_lost, 0);
	x.fd->hold_last_wqe = false;
	rx_teardown(&x);
}

/* Fifty hosts come, send a command, and go while messages are still arriving (1 to 4 SRQ
 * receives held by their QP), half of them with a LAST_WQE_REACHED that comes late: after
 * each death the SRQ holds its whole depth again, on the transport's count and on the
 * device's, and no receive or buffer is lost. */
static void srq_stays_full_after_many_queue_deaths(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	uint32_t depth = 0;
	for (unsigned i = 0; i < 50; i++) {
		struct fv_cm_id *c = rx_cm_connect(&x, 0, 32, 16, 0);
		CU_ASSERT_FATAL(c->accepted);
		struct nvmf_rdma_queue *q = c->id.context;
		struct fv_qp *qp = fv_qp_of(q->qp);
		fv_cm_event(c, RDMA_CM_EVENT_ESTABLISHED);
		nvmf_rdma_process_cm_events(x.pg);
		if (!depth)
			depth = rx_stats(&x).srq_depth;
		CU_ASSERT_EQUAL(rx_srq_on_device(&x), depth);
		/* A command before Connect: answered (with an error), its receive reposted. */
		struct nvme_sqe sqe;
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = nvme_admin_keep_alive;
		sqe.command_id = 7;
		fv_host_credits(qp, 32);
		CU_ASSERT_EQUAL(fv_host_send(qp, &sqe, sizeof(sqe)), 0);
		rx_run(&x);
		fv_host_run(qp, UINT_MAX);
		rx_run(&x);
		CU_ASSERT_EQUAL(qp->resp_len, 1);
		bool late = i % 2;
		unsigned held = fv_srq_assign(qp, 1 + i % 4);
		CU_ASSERT_EQUAL(held, 1 + i % 4);
		x.fd->hold_last_wqe = late;
		fv_cm_event(c, RDMA_CM_EVENT_DISCONNECTED);
		nvmf_rdma_process_cm_events(x.pg);
		rx_run(&x);
		if (late) {
			CU_ASSERT_FALSE(c->destroyed);
			CU_ASSERT_EQUAL(rx_stats(&x).waiting_last_wqe, 1);
			CU_ASSERT_EQUAL(rx_srq_on_device(&x), depth - held);
			fv_last_wqe(qp);
			rx_run(&x);
		}
		CU_ASSERT_TRUE(c->destroyed);
		CU_ASSERT_EQUAL(rx_stats(&x).srq_posted, depth);
		CU_ASSERT_EQUAL(rx_srq_on_device(&x), depth);
		CU_ASSERT_EQUAL(rx_stats(&x).queues, 0);
	}
	CU_ASSERT_EQUAL(x.fd->srq_lost, 0);
	CU_ASSERT_EQUAL(rx_stats(&x).last_wqe_events, 50);
	CU_ASSERT_EQUAL(rx_stats(&x).last_wqe_timeouts, 0);
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	x.fd->hold_last_wqe = false;
	rx_teardown(&x);
}

/* Without the event the queue is still freed at the flush timeout, and says so: what its
 * QP held of the SRQ is then lost on the device (the transport cannot know which). */
static void srq_queue_without_last_wqe_is_freed_at_the_flush_timeout(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint32_t depth = rx_stats(&x).srq_depth;
	x.fd->hold_last_wqe = true;
	CU_ASSERT_EQUAL_FATAL(fv_srq_assign(io->qp, 2), 2);
	nvmf_rdma_queue_disconnect(io->q, "test");
	rx_run(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(nvmf_rdma_pg_reap(x.pg, true), 1); /* the flush timeout */
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(rx_stats(&x).last_wqe_timeouts, 1);
	CU_ASSERT_EQUAL(x.fd->srq_lost, 2);
	CU_ASSERT_EQUAL(rx_srq_on_device(&x), depth - 2);
	x.fd->srq_lost = 0; /* seen: not the teardown's */
	x.fd->hold_last_wqe = false;
	rx_teardown(&x);
}

/* The flush timeout runs on the target's clock (tgt->clock, util/clock.h), which the test
 * moves: not freed a millisecond before the 5 s, freed at them, with no sleep. */
static void flush_timeout_follows_the_targets_clock(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	x.fd->hold_last_wqe = true;
	CU_ASSERT_EQUAL_FATAL(fv_srq_assign(io->qp, 2), 2);
	nvmf_rdma_queue_disconnect(io->q, "test");
	rx_run(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(nvmf_rdma_pg_reap(x.pg, false), 0);
	x.now += 4999;
	CU_ASSERT_EQUAL(nvmf_rdma_pg_reap(x.pg, false), 0);
	CU_ASSERT_PTR_NOT_NULL(io->q);
	x.now += 1;
	CU_ASSERT_EQUAL(nvmf_rdma_pg_reap(x.pg, false), 1);
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(rx_stats(&x).last_wqe_timeouts, 1);
	CU_ASSERT_EQUAL(x.fd->srq_lost, 2);
	x.fd->srq_lost = 0; /* seen: not the teardown's */
	x.fd->hold_last_wqe = false;
	rx_teardown(&x);
}

/* Soft RoCE (and iWARP) never raise LAST_WQE_REACHED: the dying queue does not wait for
 * it, and the device's flush at the error state gives the SRQ receives back. */
static void srq_queue_on_a_device_without_last_wqe_is_freed_once_flushed(void)
{
	struct rx x;
	struct rx_opts o = { .rxe = true };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	uint32_t depth = rx_stats(&x).srq_depth;
	CU_ASSERT_FALSE(x.dev.last_wqe_event);
	CU_ASSERT_EQUAL_FATAL(fv_srq_assign(io->qp, 2), 2);
	nvmf_rdma_queue_disconnect(io->q, "test");
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(x.fd->async_taken, 0);
	CU_ASSERT_EQUAL(rx_stats(&x).srq_posted, depth);
	CU_ASSERT_EQUAL(rx_srq_on_device(&x), depth);
	CU_ASSERT_EQUAL(rx_stats(&x).last_wqe_timeouts, 0);
	rx_teardown(&x);
}

const struct unit_test rdma_queue_tests[] = {
	{ "dying_queue_waits_for_last_wqe_and_its_srq_receives_come_back",
	  dying_queue_waits_for_last_wqe_and_its_srq_receives_come_back },
	{ "srq_stays_full_after_many_queue_deaths", srq_stays_full_after_many_queue_deaths },
	{ "srq_queue_without_last_wqe_is_freed_at_the_flush_timeout",
	  srq_queue_without_last_wqe_is_freed_at_the_flush_timeout },
	{ "flush_timeout_follows_the_targets_clock", flush_timeout_follows_the_targets_clock },
	{ "srq_queue_on_a_device_without_last_wqe_is_freed_once_flushed",
	  srq_queue_on_a_device_without_last_wqe_is_freed_once_flushed },
	{ "stopping_queue_drops_new_capsules_and_answers_the_rest_with_srq",
	  stopping_queue_drops_new_capsules_and_answers_the_rest_with_srq },
	{ "stopping_queue_drops_new_capsules_and_answers_the_rest_without_srq",
	  stopping_queue_drops_new_capsules_and_answers_the_rest_without_srq },
	{ "disconnect_with_commands_in_every_state_finishes_each_once_with_srq",
	  disconnect_with_commands_in_every_state_finishes_each_once_with_srq },
	{ "disconnect_with_commands_in_every_state_finishes_each_once_without_srq",
	  disconnect_with_commands_in_every_state_finishes_each_once_without_srq },
	{ "admin_queue_loss_ends_the_association_and_frees_every_queue",
	  admin_queue_loss_ends_the_association_and_frees_every_queue },
	{ "failed_rdma_read_disconnects_the_queue", failed_rdma_read_disconnects_the_queue },
	{ "failed_rdma_write_disconnects_the_queue_and_its_send_is_flushed",
	  failed_rdma_write_disconnects_the_queue_and_its_send_is_flushed },
	{ "post_send_failure_disconnects_and_finishes_the_unposted_reads",
	  post_send_failure_disconnects_and_finishes_the_unposted_reads },
	{ "post_send_failure_disconnects_and_finishes_the_unposted_responses",
	  post_send_failure_disconnects_and_finishes_the_unposted_responses },
	{ "post_send_failure_retires_unsignaled_sends_the_device_already_ran",
	  post_send_failure_retires_unsignaled_sends_the_device_already_ran },
	{ "capsule_shorter_than_64_bytes_disconnects_the_queue",
	  capsule_shorter_than_64_bytes_disconnects_the_queue },
	{ "late_completions_of_a_freed_queue_are_dropped",
	  late_completions_of_a_freed_queue_are_dropped },
	{ "read_flushed_after_the_flush_timeout_is_ignored",
	  read_flushed_after_the_flush_timeout_is_ignored },
	{ "queue_freed_at_the_flush_timeout_returns_the_buffers_of_unflushed_sends",
	  queue_freed_at_the_flush_timeout_returns_the_buffers_of_unflushed_sends },
	{ "send_queue_smaller_than_the_host_allows_is_never_overflowed",
	  send_queue_smaller_than_the_host_allows_is_never_overflowed },
	{ NULL, NULL },
};
