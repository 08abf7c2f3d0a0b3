/*
 * The LBA range lock of fused Compare and Write (target/lba-lock.c), through the whole
 * stack (tests/unit/target/fixture.h) on namespace 1 served by a backend that holds each
 * I/O until the test ends it: the Compare and Write starts only once the commands
 * executing before it are done; commands arriving meanwhile on its blocks (or on the
 * whole namespace: Dataset Management) wait until it is over, those on other blocks run.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "target/lba-lock.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

struct lock_fx {
	struct fx fx;
	struct fxq q[3]; /* I/O queues 1-3 */
	struct fx_held_bdev *h;
	struct nvmf_bdev *ram;
};

static struct nvmf_ns *ns1(struct lock_fx *f)
{
	return nvmf_subsys_ns(f->fx.tgt.subsys[0], 1);
}

static struct lock_fx *setup(void)
{
	struct lock_fx *f = calloc(1, sizeof(*f));
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_FATAL(fx_setup(&f->fx) == 0);
	CU_ASSERT_FATAL(fx_connect_admin(&f->fx) == 0);
	for (uint16_t i = 0; i < 3; i++) {
		fx_queue_init(&f->fx, &f->q[i]);
		CU_ASSERT_EQUAL_FATAL(fx_connect(&f->q[i], (uint16_t)(i + 1), 31, FX_SUBNQN,
						 FX_HOSTNQN, f->fx.cntlid, 0, NULL, NULL),
				      0);
	}
	f->h = fx_held_bdev_new(512, 1u << 20, NULL);
	f->ram = ns1(f)->bdev;
	ns1(f)->bdev = &f->h->b;
	return f;
}

static void teardown(struct lock_fx *f)
{
	nvmf_bdev_close(ns1(f)->bdev);
	ns1(f)->bdev = f->ram;
	fx_teardown(&f->fx); /* nvmf_bdev_close freed f->h */
	free(f);
}

static struct nvme_sqe rw(uint8_t opcode, uint8_t fuse, uint64_t slba, uint16_t cid)
{
	return fx_rw_sqe(opcode, fuse, 1, slba, 1, cid);
}

/* End the held I/O of @op at block @lba (a read returns @fill bytes), then run the
 * target. */
static void finish(struct lock_fx *f, enum nvmf_bdev_op op, uint64_t lba, uint8_t fill)
{
	struct nvmf_bdev_io *io = fx_held_find(f->h, op, lba * 512);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io);
	fx_held_end(f->h, io, fill);
	nvmf_loop_drive(&f->fx.tgt);
}

static bool held(struct lock_fx *f, enum nvmf_bdev_op op, uint64_t lba)
{
	return fx_held_find(f->h, op, lba * 512) != NULL;
}

static void compare_and_write_waits_for_executing_io_and_holds_back_new_io(void)
{
	struct lock_fx *f = setup();
	uint8_t cmp[512], data[512];
	memset(cmp, 7, sizeof(cmp));
	memset(data, 9, sizeof(data));
	struct fx_cmd w, a, b, r;
	/* A Write on queue 1 is in the backend, on other blocks than the pair's: the pair
	 * still waits for it (it was executing when the pair asked). */
	struct nvme_sqe wc = rw(nvme_cmd_write, 0, 100, 1);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[0], &w, &wc, data, 512), 0);
	CU_ASSERT_EQUAL_FATAL(f->h->submits, 1);
	/* The Compare and Write on queue 2. */
	struct nvme_sqe ac = rw(nvme_cmd_compare, 1, 5, 2), bc = rw(nvme_cmd_write, 2, 5, 3);
	CU_ASSERT_EQUAL_FATAL(fx_submit(&f->q[1], &a, &ac, cmp, 512), 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[1], &b, &bc, data, 512), 0);
	CU_ASSERT_EQUAL(f->h->submits, 1); /* waits for the Write */
	/* A Read of the pair's block on queue 3 arrives while the lock is being taken: it
	 * waits. */
	struct nvme_sqe rc = rw(nvme_cmd_read, 0, 5, 4);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[2], &r, &rc, NULL, 512), 0);
	CU_ASSERT_EQUAL(f->h->submits, 1);
	/* The Write ends: the pair's read of block 5 goes, not the Read. */
	finish(f, NVMF_BDEV_WRITE, 100, 0);
	CU_ASSERT_TRUE(fx_done(&w));
	CU_ASSERT_EQUAL_FATAL(f->h->submits, 2);
	CU_ASSERT_TRUE(held(f, NVMF_BDEV_READ, 5));
	/* It matches: the pair's write, still not the Read. */
	finish(f, NVMF_BDEV_READ, 5, 7);
	CU_ASSERT_EQUAL_FATAL(f->h->submits, 3);
	CU_ASSERT_TRUE(held(f, NVMF_BDEV_WRITE, 5));
	CU_ASSERT_FALSE(fx_done(&r));
	/* The pair ends, then the Read runs. */
	finish(f, NVMF_BDEV_WRITE, 5, 0);
	CU_ASSERT_TRUE_FATAL(fx_done(&a));
	CU_ASSERT_TRUE_FATAL(fx_done(&b));
	CU_ASSERT_EQUAL(a.status, 0);
	CU_ASSERT_EQUAL(b.status, 0);
	CU_ASSERT_EQUAL_FATAL(f->h->submits, 4);
	CU_ASSERT_TRUE(held(f, NVMF_BDEV_READ, 5));
	finish(f, NVMF_BDEV_READ, 5, 0);
	CU_ASSERT_TRUE(fx_done(&r));
	CU_ASSERT_EQUAL(r.status, 0);
	teardown(f);
}

/* While a pair holds blocks 8-15: a Read of blocks 100-103 and a Flush run at once (and
 * do not hold the pair up), a Write overlapping one block (15) and a Dataset Management
 * (the whole namespace) wait until the pair is done. */
static void only_commands_on_the_pairs_blocks_wait(void)
{
	struct lock_fx *f = setup();
	uint8_t cmp[8 * 512], data[8 * 512], wd[2 * 512];
	memset(cmp, 7, sizeof(cmp));
	memset(data, 9, sizeof(data));
	memset(wd, 1, sizeof(wd));
	struct fx_cmd a, b, r, fl, ow, dsm;
	struct nvme_sqe ac = rw(nvme_cmd_compare, 1, 8, 1), bc = rw(nvme_cmd_write, 2, 8, 2);
	ac.cdw12 = bc.cdw12 = htole32(7); /* 8 blocks, 0's based */
	CU_ASSERT_EQUAL_FATAL(fx_submit(&f->q[1], &a, &ac, cmp, sizeof(cmp)), 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[1], &b, &bc, data, sizeof(data)), 0);
	CU_ASSERT_TRUE_FATAL(held(f, NVMF_BDEV_READ, 8)); /* granted: the pair's read */
	struct nvme_sqe rc = rw(nvme_cmd_read, 0, 100, 3);
	rc.cdw12 = htole32(3);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[0], &r, &rc, NULL, 4 * 512), 0);
	CU_ASSERT_TRUE(held(f, NVMF_BDEV_READ, 100)); /* other blocks: runs */
	struct nvme_sqe fc = rw(nvme_cmd_flush, 0, 0, 4);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[2], &fl, &fc, NULL, 0), 0);
	struct nvme_sqe wc = rw(nvme_cmd_write, 0, 15, 5);
	wc.cdw12 = htole32(1); /* blocks 15-16: one in the pair's range */
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[2], &ow, &wc, wd, sizeof(wd)), 0);
	struct nvme_dsm_range range = { .nlb = htole32(1), .slba = htole64(900) };
	struct nvme_sqe dc = rw(nvme_cmd_dsm, 0, 0, 6);
	dc.cdw10 = 0; /* one range, 0's based */
	dc.cdw11 = htole32(NVME_DSMGMT_AD);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[0], &dsm, &dc, &range, sizeof(range)), 0);
	CU_ASSERT_FALSE(held(f, NVMF_BDEV_WRITE, 15));
	CU_ASSERT_FALSE(held(f, NVMF_BDEV_DISCARD, 900 * 512 / 512));
	CU_ASSERT_FALSE(fx_done(&ow));
	CU_ASSERT_FALSE(fx_done(&dsm));
	/* The pair goes on while the Read of other blocks is still in the backend. */
	finish(f, NVMF_BDEV_READ, 8, 7);
	CU_ASSERT_TRUE_FATAL(held(f, NVMF_BDEV_WRITE, 8));
	CU_ASSERT_FALSE(held(f, NVMF_BDEV_WRITE, 15));
	finish(f, NVMF_BDEV_WRITE, 8, 0);
	CU_ASSERT_TRUE_FATAL(fx_done(&b));
	CU_ASSERT_EQUAL(b.status, 0);
	/* Released: the overlapping Write and the DSM run. */
	CU_ASSERT_TRUE_FATAL(held(f, NVMF_BDEV_WRITE, 15));
	finish(f, NVMF_BDEV_WRITE, 15, 0);
	CU_ASSERT_TRUE(fx_done(&ow));
	CU_ASSERT_EQUAL(ow.status, 0);
	CU_ASSERT_TRUE_FATAL(held(f, NVMF_BDEV_DISCARD, 900));
	finish(f, NVMF_BDEV_DISCARD, 900, 0);
	CU_ASSERT_TRUE(fx_done(&dsm));
	finish(f, NVMF_BDEV_READ, 100, 3);
	CU_ASSERT_TRUE(fx_done(&r));
	CU_ASSERT_EQUAL(r.status, 0);
	teardown(f);
}

/* Commands' blocks as the lock reads them from the SQE. */
static void command_ranges_are_slba_and_nlb_or_the_whole_namespace(void)
{
	uint64_t s, e;
	struct nvme_sqe c = rw(nvme_cmd_read, 0, 0x123456789ull & 0xffffffff, 1);
	c.cdw11 = htole32(1);
	c.cdw12 = htole32(0x80000000u | 15); /* FUA set: only bits 15:0 count */
	CU_ASSERT_TRUE(nvmf_lba_cmd_range(&c, &s, &e));
	CU_ASSERT_EQUAL(s, 0x123456789ull);
	CU_ASSERT_EQUAL(e, 0x123456789ull + 16);
	c.opcode = nvme_cmd_dsm;
	CU_ASSERT_FALSE(nvmf_lba_cmd_range(&c, &s, &e));
	CU_ASSERT_EQUAL(s, 0);
	CU_ASSERT_EQUAL(e, UINT64_MAX);
	c.opcode = 0xc1; /* vendor specific, as a passthru drive may take */
	CU_ASSERT_FALSE(nvmf_lba_cmd_range(&c, &s, &e));
	c.opcode = nvme_cmd_flush;
	CU_ASSERT_TRUE(nvmf_lba_cmd_range(&c, &s, &e));
	CU_ASSERT_EQUAL(s, e);
	/* A range past the top stops at it. */
	c = rw(nvme_cmd_write, 0, 0xffffffff, 1);
	c.cdw11 = htole32(0xffffffff);
	CU_ASSERT_TRUE(nvmf_lba_cmd_range(&c, &s, &e));
	CU_ASSERT_EQUAL(e, UINT64_MAX);
}

static void every_group_knows_the_namespace_lock(void)
{
	struct lock_fx *f = setup();
	struct nvmf_ns_lba *l = ns1(f)->lba;
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_EQUAL(l->npgs, f->fx.tgt.npgs);
	for (unsigned i = 0; i < l->npgs; i++) {
		CU_ASSERT_EQUAL(l->pg[i].active[0], 0);
		CU_ASSERT_EQUAL(l->pg[i].active[1], 0);
		CU_ASSERT_FALSE(l->pg[i].gated);
		CU_ASSERT_PTR_EQUAL(l->pg[i].pg, f->fx.tgt.pgs[i]);
	}
	teardown(f);
}

const struct unit_test lba_lock_tests[] = {
	{ "compare_and_write_waits_for_executing_io_and_holds_back_new_io",
	  compare_and_write_waits_for_executing_io_and_holds_back_new_io },
	{ "only_commands_on_the_pairs_blocks_wait", only_commands_on_the_pairs_blocks_wait },
	{ "command_ranges_are_slba_and_nlb_or_the_whole_namespace",
	  command_ranges_are_slba_and_nlb_or_the_whole_namespace },
	{ "every_group_knows_the_namespace_lock", every_group_knows_the_namespace_lock },
	{ NULL, NULL },
};
