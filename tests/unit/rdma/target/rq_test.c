/*
 * Receive queues of the RDMA target (rdma/target/rq.c): one shared receive queue per poll
 * group and device (nvmf_target.srq, the default), or HSQSIZE + 1 receives of each
 * queue's own. Either way the capsules land, in-capsule data included, and every receive
 * is posted again before the response that lets the host send its next capsule.
 */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/unit/rdma/fixture.h"
#include "tests/unit/suites.h"

/* Receives the device holds for @h's QP. */
static unsigned device_recvs(const struct rxq *h)
{
	const struct ibv_srq *srq = h->qp->qp.srq;
	return fv_posted(srq ? &fv_srq_of((struct ibv_srq *)srq)->rq : &h->qp->rq);
}

static void serve_io(bool srq)
{
	struct rx x;
	struct rx_opts o = { .no_srq = !srq };
	CU_ASSERT_EQUAL_FATAL(rx_setup(&x, &o), 0);
	struct rxq *admin = rx_admin(&x);
	struct rxq *io = rxq_create(&x, 1, 16, 16, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io);
	struct nvmf_rdma_rq *shared = x.pg->devs->srq;
	if (srq) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(shared);
		CU_ASSERT_PTR_EQUAL(io->q->rq, shared);
		CU_ASSERT_PTR_EQUAL(io->qp->qp.srq, admin->qp->qp.srq); /* one for every queue */
		CU_ASSERT_EQUAL(fv_posted(&io->qp->rq), 0);
	} else {
		CU_ASSERT_PTR_NULL(shared);
		CU_ASSERT_PTR_EQUAL(io->q->rq, &io->q->own_rq);
		/* A receive for each capsule the host may send, posted before any arrives. */
		CU_ASSERT_EQUAL(device_recvs(io), 16);
		CU_ASSERT_EQUAL(io->q->own_rq.inline_size, x.tgt.ports[0]->inline_size);
	}
	unsigned full = device_recvs(io);
	uint16_t cid = rxq_connect(io, x.cntlid, false);
	rx_run(&x);
	CU_ASSERT_EQUAL_FATAL(rxq_status(io, cid), 0);

	uint8_t *out = rx_host_alloc(&x, 8192), *in = rx_host_alloc(&x, 8192);
	memset(out, 0x5c, 8192);
	uint16_t w = rxq_write(io, 0, out, 8192, NVME_SGL_KEYED_INV, NULL);
	struct nvme_sqe c;
	rx_cmd_rw(&c, nvme_cmd_write, 16, 8192); /* in-capsule, the port's full 8 KiB */
	rx_sgl_incapsule(&c, 0, 8192);
	uint16_t ic = rxq_send(io, &c, out, 8192);
	rx_run(&x);
	uint16_t r = rxq_read(io, 0, in, 8192, NVME_SGL_KEYED_INV, NULL);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, w), 0);
	CU_ASSERT_EQUAL(rxq_status(io, ic), 0);
	CU_ASSERT_EQUAL(rxq_status(io, r), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 16 * 512, out, 8192), 0);

	/* Every receive is back, and each response left after its capsule's receive. */
	CU_ASSERT_EQUAL(device_recvs(io), full);
	CU_ASSERT_EQUAL(io->q->rq->posted, full);
	const struct fv_send *last = &io->qp->sq[io->qp->sq_len - 1];
	CU_ASSERT_EQUAL(last->opcode, IBV_WR_SEND_WITH_INV);
	CU_ASSERT_EQUAL(last->recvs_posted, full);
	rx_teardown(&x);
}

static void shared_receive_queue_serves_keyed_and_incapsule_io(void)
{
	serve_io(true);
}

static void own_receive_queue_serves_keyed_and_incapsule_io(void)
{
	serve_io(false);
}

static void capsule_larger_than_its_receive_disconnects_the_queue(void)
{
	for (int srq = 0; srq < 2; srq++) {
		struct rx x;
		struct rx_opts o = { .no_srq = !srq };
		struct rxq *io = rx_setup_io(&x, &o, 16, 16, 16);
		static uint8_t data[NVMF_RDMA_MAX_INLINE];
		struct nvme_sqe c;
		rx_cmd_rw(&c, nvme_cmd_write, 0, sizeof(data));
		rx_sgl_incapsule(&c, 0, sizeof(data)); /* more than the port's 8 KiB */
		uint16_t cid = rxq_send(io, &c, data, sizeof(data));
		rx_run(&x);
		CU_ASSERT_PTR_NULL(io->q);
		CU_ASSERT_EQUAL(rxq_status(io, cid), RX_NO_RESPONSE);
		if (srq)
			CU_ASSERT_EQUAL(x.pg->devs->srq->posted, x.pg->devs->srq->depth);
		rx_teardown(&x);
	}
}

const struct unit_test rdma_rq_tests[] = {
	{ "shared_receive_queue_serves_keyed_and_incapsule_io",
	  shared_receive_queue_serves_keyed_and_incapsule_io },
	{ "own_receive_queue_serves_keyed_and_incapsule_io",
	  own_receive_queue_serves_keyed_and_incapsule_io },
	{ "capsule_larger_than_its_receive_disconnects_the_queue",
	  capsule_larger_than_its_receive_disconnects_the_queue },
	{ NULL, NULL },
};
