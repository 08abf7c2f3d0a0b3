/* The table of registered memory regions of an RDMA device context (rdma/device.c):
 * sorted insertion and removal, lookup of the region that holds a whole buffer. Pure
 * table code, no verbs: the MR pointers are left NULL. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include "rdma/device.h"
#include "tests/unit/suites.h"

static struct nvmf_rdma_region region(uintptr_t addr, size_t len, uint32_t key)
{
	struct nvmf_rdma_region r = {
		.addr = addr, .len = len, .lkey = key, .rkey = key, .refs = 1
	};
	return r;
}

/* Table with [0x1000,0x2000) key 1, [0x8000,0x10000) key 2, [0x3000,0x4000) key 3. */
static struct nvmf_rdma_regions *three_regions(void)
{
	struct nvmf_rdma_region a = region(0x1000, 0x1000, 1), b = region(0x8000, 0x8000, 2),
				c = region(0x3000, 0x1000, 3);
	struct nvmf_rdma_regions *t1 = nvmf_rdma_regions_with(NULL, &a);
	struct nvmf_rdma_regions *t2 = nvmf_rdma_regions_with(t1, &b);
	struct nvmf_rdma_regions *t3 = nvmf_rdma_regions_with(t2, &c);
	free(t1);
	free(t2);
	return t3;
}

static void region_table_stays_sorted_by_address(void)
{
	struct nvmf_rdma_regions *t = three_regions();
	CU_ASSERT_EQUAL(t->n, 3);
	CU_ASSERT_EQUAL(t->r[0].addr, 0x1000);
	CU_ASSERT_EQUAL(t->r[1].addr, 0x3000);
	CU_ASSERT_EQUAL(t->r[2].addr, 0x8000);
	struct nvmf_rdma_regions *u = nvmf_rdma_regions_without(t, 1);
	CU_ASSERT_EQUAL(u->n, 2);
	CU_ASSERT_EQUAL(u->r[0].addr, 0x1000);
	CU_ASSERT_EQUAL(u->r[1].addr, 0x8000);
	CU_ASSERT_EQUAL(t->n, 3); /* the old table is untouched */
	free(t);
	free(u);
}

static void buffer_inside_a_region_finds_it_and_one_crossing_its_end_does_not(void)
{
	struct nvmf_rdma_regions *t = three_regions();
	const struct nvmf_rdma_region *r = nvmf_rdma_region_find(t, (void *)0x3000, 0x1000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->rkey, 3);
	r = nvmf_rdma_region_find(t, (void *)0x9000, 0x200);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->rkey, 2);
	CU_ASSERT_PTR_NULL(nvmf_rdma_region_find(t, (void *)0x3800, 0x801)); /* one byte past */
	CU_ASSERT_PTR_NULL(nvmf_rdma_region_find(t, (void *)0x2000, 0x10));  /* in a gap */
	CU_ASSERT_PTR_NULL(nvmf_rdma_region_find(t, (void *)0x800, 0x10));   /* before all */
	CU_ASSERT_PTR_NULL(nvmf_rdma_region_find(t, (void *)0x1000, 0));     /* no data */
	CU_ASSERT_PTR_NULL(nvmf_rdma_region_find(NULL, (void *)0x1000, 1));
	CU_ASSERT_PTR_NULL(nvmf_rdma_region_find(t, (void *)UINTPTR_MAX, 2)); /* wraps */
	free(t);
}

static void buffer_in_an_outer_region_is_found_past_a_smaller_overlapping_one(void)
{
	struct nvmf_rdma_region outer = region(0x10000, 0x10000, 7),
				inner = region(0x14000, 0x1000, 8);
	struct nvmf_rdma_regions *t1 = nvmf_rdma_regions_with(NULL, &outer);
	struct nvmf_rdma_regions *t = nvmf_rdma_regions_with(t1, &inner);
	const struct nvmf_rdma_region *r = nvmf_rdma_region_find(t, (void *)0x14800, 0x2000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->rkey, 7);
	free(t1);
	free(t);
}

static void region_index_matches_start_and_length(void)
{
	struct nvmf_rdma_regions *t = three_regions();
	CU_ASSERT_EQUAL(nvmf_rdma_regions_index(t, (void *)0x3000, 0x1000), 1);
	CU_ASSERT_EQUAL(nvmf_rdma_regions_index(t, (void *)0x3000, 0), 1);
	CU_ASSERT_EQUAL(nvmf_rdma_regions_index(t, (void *)0x3000, 0x800), -1);
	CU_ASSERT_EQUAL(nvmf_rdma_regions_index(t, (void *)0x3001, 0), -1);
	CU_ASSERT_EQUAL(nvmf_rdma_regions_index(NULL, (void *)0x3000, 0), -1);
	free(t);
}

const struct unit_test rdma_device_tests[] = {
	{ "region_table_stays_sorted_by_address", region_table_stays_sorted_by_address },
	{ "buffer_inside_a_region_finds_it_and_one_crossing_its_end_does_not",
	  buffer_inside_a_region_finds_it_and_one_crossing_its_end_does_not },
	{ "buffer_in_an_outer_region_is_found_past_a_smaller_overlapping_one",
	  buffer_in_an_outer_region_is_found_past_a_smaller_overlapping_one },
	{ "region_index_matches_start_and_length", region_index_matches_start_and_length },
	{ NULL, NULL },
};
