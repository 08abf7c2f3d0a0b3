/* The poll group's qp_num -> queue map (rdma/target/poll-group.c): completions of the shared CQ
 * and SRQ find their queue through it, and a removed queue must never be found again. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/target/internal.h"
#include "tests/unit/rdma/fixture.h"
#include "tests/unit/suites.h"

#define NQ 200

static void map_finds_every_queue_across_growth_and_removal(void)
{
	struct nvmf_rdma_poll_group pg;
	static struct nvmf_rdma_queue q[NQ];
	CU_ASSERT_EQUAL_FATAL(nvmf_rdma_pg_init(&pg, NULL), 0);
	/* QP numbers as devices hand them out: dense, plus some that collide in the hash. */
	for (unsigned i = 0; i < NQ; i++) {
		q[i].qp_num = (i % 2) ? 0x11 + i : 0x11 + i * 64;
		CU_ASSERT_EQUAL(nvmf_rdma_pg_add_queue(&pg, &q[i]), 0);
	}
	CU_ASSERT_EQUAL(pg.nqueues, NQ);
	CU_ASSERT(pg.qp_map_size >= 2 * NQ);
	for (unsigned i = 0; i < NQ; i++)
		CU_ASSERT_PTR_EQUAL(nvmf_rdma_pg_find_qp(&pg, q[i].qp_num), &q[i]);
	/* Remove every third queue: they are gone, every other one is still found. */
	for (unsigned i = 0; i < NQ; i += 3)
		nvmf_rdma_pg_remove_queue(&pg, &q[i]);
	for (unsigned i = 0; i < NQ; i++)
		CU_ASSERT_PTR_EQUAL(nvmf_rdma_pg_find_qp(&pg, q[i].qp_num), i % 3 ? &q[i] : NULL);
	unsigned listed = 0;
	for (struct nvmf_rdma_queue *p = pg.queues; p; p = p->next)
		listed++;
	CU_ASSERT_EQUAL(listed, pg.nqueues);
	CU_ASSERT_EQUAL(pg.nqueues, NQ - (NQ + 2) / 3);
	/* A QP number never added is not found; removing twice is harmless. */
	CU_ASSERT_PTR_NULL(nvmf_rdma_pg_find_qp(&pg, 0xfffff));
	nvmf_rdma_pg_remove_queue(&pg, &q[0]);
	CU_ASSERT_EQUAL(pg.nqueues, NQ - (NQ + 2) / 3);
	nvmf_rdma_pg_fini(&pg);
}

/* Two I/O queues on one CQ and one SRQ: each capsule reaches the queue its completion's
 * qp_num names, each response goes out on that queue's QP, one post per QP per pass. */
static void queues_sharing_a_cq_and_srq_each_get_their_own_completions(void)
{
	struct rx x;
	struct rxq *a = rx_setup_io(&x, NULL, 16, 16, 16);
	struct rxq *b = rx_io(&x, 16, 16, 16);
	CU_ASSERT_PTR_EQUAL(a->qp->qp.recv_cq, b->qp->qp.recv_cq);
	CU_ASSERT_PTR_EQUAL(a->qp->qp.srq, b->qp->qp.srq);
	CU_ASSERT_NOT_EQUAL(a->qp->qp.qp_num, b->qp->qp.qp_num);
	enum { N = 4 };
	uint8_t *in[2][N];
	uint16_t cid[2][N];
	for (unsigned i = 0; i < N; i++) {
		for (unsigned k = 0; k < 2; k++) {
			struct rxq *h = k ? b : a;
			uint64_t slba = (uint64_t)(k * N + i) * 8;
			memset(rx_ns_data(&x) + slba * 512, (int)(0x10 * k + i + 1), 4096);
			in[k][i] = rx_host_alloc(&x, 4096);
			cid[k][i] = rxq_read(h, slba, in[k][i], 4096, NVME_SGL_KEYED_INV, NULL);
		}
	}
	unsigned posts = x.fd->posts;
	rx_poll(&x);
	CU_ASSERT_EQUAL(x.fd->posts, posts + 2); /* one post_send per QP */
	rx_run(&x);
	for (unsigned k = 0; k < 2; k++) {
		struct rxq *h = k ? b : a;
		for (unsigned i = 0; i < N; i++) {
			uint64_t slba = (uint64_t)(k * N + i) * 8;
			CU_ASSERT_EQUAL(rxq_status(h, cid[k][i]), 0);
			CU_ASSERT_EQUAL(memcmp(in[k][i], rx_ns_data(&x) + slba * 512, 4096), 0);
		}
		CU_ASSERT_EQUAL(h->nresp, 1 + N); /* the Connect's and its own */
	}
	rx_teardown(&x);
}

/* Each queue reserves room in the group's CQ for every WR it may have outstanding (flush
 * errors report unsignaled ones too); the CQ grows for them and gets it back as they go. */
static void cq_grows_for_each_queue_and_gets_its_entries_back_when_it_goes(void)
{
	struct rx x;
	CU_ASSERT_EQUAL_FATAL(rx_setup(&x, NULL), 0);
	struct rxq *h[6];
	for (unsigned i = 0; i < 6; i++) {
		h[i] = rxq_create(&x, (uint16_t)(i + 1), 128, 128, 16);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h[i]);
	}
	struct nvmf_rdma_pg_dev *d = x.pg->devs;
	uint32_t srq_share = d->srq->depth, q_share = h[0]->q->cq_share;
	CU_ASSERT_EQUAL(q_share, 2 * 128 + 16 + 1);
	CU_ASSERT_EQUAL(d->cq_used, srq_share + 6 * q_share);
	CU_ASSERT(d->cq_size >= d->cq_used);
	CU_ASSERT_EQUAL((uint32_t)d->cq->cqe, d->cq_size); /* resized on the device */
	for (unsigned i = 0; i < 6; i++)
		nvmf_rdma_queue_disconnect(h[i]->q, NULL);
	rx_run(&x);
	CU_ASSERT_PTR_NULL(x.pg->queues);
	CU_ASSERT_EQUAL(d->cq_used, srq_share);
	rx_teardown(&x);
}

const struct unit_test poll_group_tests[] = {
	{ "map_finds_every_queue_across_growth_and_removal",
	  map_finds_every_queue_across_growth_and_removal },
	{ "queues_sharing_a_cq_and_srq_each_get_their_own_completions",
	  queues_sharing_a_cq_and_srq_each_get_their_own_completions },
	{ "cq_grows_for_each_queue_and_gets_its_entries_back_when_it_goes",
	  cq_grows_for_each_queue_and_gets_its_entries_back_when_it_goes },
	{ NULL, NULL },
};
