/* The poll group's qp_num -> queue map (rdma/target/poll-group.c): completions of the shared CQ
 * and SRQ find their queue through it, and a removed queue must never be found again. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include "rdma/target/internal.h"
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

const struct unit_test poll_group_tests[] = {
	{ "map_finds_every_queue_across_growth_and_removal", map_finds_every_queue_across_growth_and_removal },
	{ NULL, NULL },
};
