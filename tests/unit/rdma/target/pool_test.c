/* The RDMA target's registered data buffers (rdma/target/pool.c) on the fake device: size
 * classes up to the max transfer, one registration for all, the smallest free class that
 * fits, a buffer released twice refused and counted, everything deregistered at the end. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "tests/unit/rdma/fake_verbs.h"
#include "tests/unit/suites.h"

static void classes_stop_at_the_max_transfer_under_one_registration(void)
{
	struct fv_dev *d = fv_dev_new();
	struct nvmf_rdma_pool p;
	char err[256] = "";
	/* 1 MiB: 4 KiB x 8, 128 KiB x 4, 1 MiB x max(4 / 4, 4). */
	CU_ASSERT_EQUAL_FATAL(nvmf_rdma_pool_init(&p, &fake_verbs, &d->pd, -1, 1u << 20, 8, 4,
						  false, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(p.ncls, 3);
	CU_ASSERT_EQUAL(p.cls[0].size, 4096);
	CU_ASSERT_EQUAL(p.cls[0].count, 8);
	CU_ASSERT_EQUAL(p.cls[1].size, 128u << 10);
	CU_ASSERT_EQUAL(p.cls[1].count, 4);
	CU_ASSERT_EQUAL(p.cls[2].size, 1u << 20);
	CU_ASSERT_EQUAL(p.cls[2].count, 4);
	CU_ASSERT_EQUAL(p.len, 8 * 4096u + 4 * (128u << 10) + 4 * (1u << 20));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p.mr);
	CU_ASSERT_PTR_EQUAL(p.mr->addr, p.mem);
	CU_ASSERT_EQUAL(p.mr->length, p.len);
	CU_ASSERT_EQUAL(fv_dev_live(d), 1); /* one MR */
	nvmf_rdma_pool_fini(&p);
	CU_ASSERT_EQUAL(fv_dev_live(d), 0);
	/* 5000 bytes: rounded up to 8 KiB; the 128 KiB class is above it and goes. */
	CU_ASSERT_EQUAL_FATAL(nvmf_rdma_pool_init(&p, &fake_verbs, &d->pd, -1, 5000, 0, 0, false,
						  err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(p.ncls, 2);
	CU_ASSERT_EQUAL(p.cls[0].count, 1024); /* defaults */
	CU_ASSERT_EQUAL(p.cls[1].size, 8192);
	CU_ASSERT_EQUAL(p.cls[1].count, 16);
	CU_ASSERT_EQUAL(p.max_size, 8192);
	nvmf_rdma_pool_fini(&p);
	CU_ASSERT_EQUAL(d->violations, 0);
	fv_dev_free(d);
}

static void get_takes_the_smallest_free_class_that_fits(void)
{
	struct fv_dev *d = fv_dev_new();
	struct nvmf_rdma_pool p;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_rdma_pool_init(&p, &fake_verbs, &d->pd, -1, 256u << 10, 2, 4,
						  false, err, sizeof(err)),
			      0);
	unsigned cls = 99;
	void *a = nvmf_rdma_pool_get(&p, 512, &cls);
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_EQUAL(cls, 0);
	CU_ASSERT_EQUAL((uintptr_t)a % NVMF_RDMA_ALIGN, 0);
	void *b = nvmf_rdma_pool_get(&p, 4096, &cls);
	CU_ASSERT_EQUAL(cls, 0);
	CU_ASSERT_PTR_NOT_EQUAL(a, b);
	/* Class 0 empty: the next larger one serves a small request. */
	void *c = nvmf_rdma_pool_get(&p, 100, &cls);
	CU_ASSERT_PTR_NOT_NULL(c);
	CU_ASSERT_EQUAL(cls, 1);
	/* 200 KiB: only the max-transfer class holds it. */
	void *e = nvmf_rdma_pool_get(&p, 200u << 10, &cls);
	CU_ASSERT_PTR_NOT_NULL(e);
	CU_ASSERT_EQUAL(cls, 2);
	CU_ASSERT_PTR_NULL(nvmf_rdma_pool_get(&p, (256u << 10) + 1, &cls)); /* above the max */
	CU_ASSERT_TRUE(nvmf_rdma_pool_put(&p, a, 0));
	CU_ASSERT_PTR_EQUAL(nvmf_rdma_pool_get(&p, 1, &cls), a); /* the one given back */
	CU_ASSERT_EQUAL(cls, 0);
	nvmf_rdma_pool_fini(&p);
	fv_dev_free(d);
}

static void a_buffer_released_twice_is_refused_and_counted(void)
{
	struct fv_dev *d = fv_dev_new();
	struct nvmf_rdma_pool p;
	struct nvmf_rdma_pool_stats st;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_rdma_pool_init(&p, &fake_verbs, &d->pd, -1, 128u << 10, 4, 4,
						  false, err, sizeof(err)),
			      0);
	nvmf_rdma_pool_stats(&p, &st);
	CU_ASSERT_EQUAL(st.count, 8);
	CU_ASSERT_EQUAL(st.nfree, 8);
	unsigned cls;
	void *a = nvmf_rdma_pool_get(&p, 4096, &cls);
	nvmf_rdma_pool_stats(&p, &st);
	CU_ASSERT_EQUAL(st.nfree, 7);
	CU_ASSERT_TRUE(nvmf_rdma_pool_put(&p, a, cls));
	CU_ASSERT_FALSE(nvmf_rdma_pool_put(&p, a, cls)); /* twice: would serve two requests */
	/* A buffer of another class given as class 0 lies beyond its buffers: refused too. */
	void *big = nvmf_rdma_pool_get(&p, 64u << 10, &cls);
	CU_ASSERT_EQUAL(cls, 1);
	CU_ASSERT_FALSE(nvmf_rdma_pool_put(&p, big, 0));
	nvmf_rdma_pool_stats(&p, &st);
	CU_ASSERT_EQUAL(st.double_puts, 2);
	CU_ASSERT_EQUAL(st.nfree, 7); /* nothing was kept twice */
	CU_ASSERT_TRUE(nvmf_rdma_pool_put(&p, big, 1));
	nvmf_rdma_pool_fini(&p);
	nvmf_rdma_pool_stats(&p, &st); /* finished: all zero */
	CU_ASSERT_EQUAL(st.count, 0);
	fv_dev_free(d);
}

static struct ibv_mr *no_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	(void)pd;
	(void)addr;
	(void)len;
	(void)access;
	errno = ENOMEM;
	return NULL;
}

static void a_registration_the_device_refuses_fails_init_naming_it(void)
{
	struct fv_dev *d = fv_dev_new();
	struct nvmf_rdma_verbs v = fake_verbs;
	v.reg_mr = no_mr;
	struct nvmf_rdma_pool p;
	char err[256] = "";
	CU_ASSERT_EQUAL(nvmf_rdma_pool_init(&p, &v, &d->pd, -1, 128u << 10, 2, 2, false, err,
					    sizeof(err)),
			-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "data buffer pool: ibv_reg_mr "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, strerror(ENOMEM)));
	CU_ASSERT_PTR_NULL(p.mem); /* everything given back */
	CU_ASSERT_EQUAL(p.ncls, 0);
	fv_dev_free(d);
}

const struct unit_test rdma_pool_tests[] = {
	{ "classes_stop_at_the_max_transfer_under_one_registration",
	  classes_stop_at_the_max_transfer_under_one_registration },
	{ "get_takes_the_smallest_free_class_that_fits",
	  get_takes_the_smallest_free_class_that_fits },
	{ "a_buffer_released_twice_is_refused_and_counted",
	  a_buffer_released_twice_is_refused_and_counted },
	{ "a_registration_the_device_refuses_fails_init_naming_it",
	  a_registration_the_device_refuses_fails_init_naming_it },
	{ NULL, NULL },
};
