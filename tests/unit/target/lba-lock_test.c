/*
 * The namespace lock of fused Compare and Write (target/lba-lock.c), through the whole
 * stack (tests/unit/target/fixture.h) on namespace 1 served by a backend that holds each
 * I/O until the test ends it: the Compare and Write starts only once the commands
 * executing before it are done, and commands arriving meanwhile wait until it is over.
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
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.flags = fuse;
	c.command_id = cid;
	c.nsid = htole32(1);
	c.cdw10 = htole32((uint32_t)slba);
	return c;
}

/* End the I/O the held backend has (a read returns @fill bytes), then run the target. */
static void finish_io(struct lock_fx *f, uint8_t fill)
{
	struct nvmf_bdev_io *io = f->h->io;
	if (io->op == NVMF_BDEV_READ)
		memset(io->buf, fill, io->len);
	io->done_bytes = io->len;
	io->done(io, 0);
	nvmf_loop_drive(&f->fx.tgt);
}

static void compare_and_write_waits_for_executing_io_and_holds_back_new_io(void)
{
	struct lock_fx *f = setup();
	uint8_t cmp[512], data[512];
	memset(cmp, 7, sizeof(cmp));
	memset(data, 9, sizeof(data));
	struct fx_cmd w, a, b, r;
	/* A Write on queue 1 is in the backend. */
	struct nvme_sqe wc = rw(nvme_cmd_write, 0, 100, 1);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[0], &w, &wc, data, 512), 0);
	CU_ASSERT_EQUAL_FATAL(f->h->submits, 1);
	/* The Compare and Write on queue 2 (other blocks: the lock is the namespace's). */
	struct nvme_sqe ac = rw(nvme_cmd_compare, 1, 5, 2), bc = rw(nvme_cmd_write, 2, 5, 3);
	CU_ASSERT_EQUAL_FATAL(fx_submit(&f->q[1], &a, &ac, cmp, 512), 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[1], &b, &bc, data, 512), 0);
	CU_ASSERT_EQUAL(f->h->submits, 1); /* waits for the Write */
	/* A Read on queue 3 arrives while the lock is being taken: it waits. */
	struct nvme_sqe rc = rw(nvme_cmd_read, 0, 200, 4);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q[2], &r, &rc, NULL, 512), 0);
	CU_ASSERT_EQUAL(f->h->submits, 1);
	/* The Write ends: the pair's read of block 5 goes, not the Read. */
	finish_io(f, 0);
	CU_ASSERT_TRUE(fx_done(&w));
	CU_ASSERT_EQUAL_FATAL(f->h->submits, 2);
	CU_ASSERT_EQUAL(f->h->io->op, NVMF_BDEV_READ);
	CU_ASSERT_EQUAL(f->h->io->offset, 5 * 512);
	/* It matches: the pair's write, still not the Read. */
	finish_io(f, 7);
	CU_ASSERT_EQUAL_FATAL(f->h->submits, 3);
	CU_ASSERT_EQUAL(f->h->io->op, NVMF_BDEV_WRITE);
	CU_ASSERT_FALSE(fx_done(&r));
	/* The pair ends, then the Read runs. */
	finish_io(f, 0);
	CU_ASSERT_TRUE_FATAL(fx_done(&a));
	CU_ASSERT_TRUE_FATAL(fx_done(&b));
	CU_ASSERT_EQUAL(a.status, 0);
	CU_ASSERT_EQUAL(b.status, 0);
	CU_ASSERT_EQUAL_FATAL(f->h->submits, 4);
	CU_ASSERT_EQUAL(f->h->io->offset, 200 * 512);
	finish_io(f, 0);
	CU_ASSERT_TRUE(fx_done(&r));
	CU_ASSERT_EQUAL(r.status, 0);
	teardown(f);
}

static void every_group_knows_the_namespace_lock(void)
{
	struct lock_fx *f = setup();
	struct nvmf_ns_lba *l = ns1(f)->lba;
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_EQUAL(l->npgs, f->fx.tgt.npgs);
	for (unsigned i = 0; i < l->npgs; i++) {
		CU_ASSERT_EQUAL(l->pg[i].active, 0);
		CU_ASSERT_FALSE(l->pg[i].gated);
		CU_ASSERT_PTR_EQUAL(l->pg[i].pg, f->fx.tgt.pgs[i]);
	}
	teardown(f);
}

const struct unit_test lba_lock_tests[] = {
	{ "compare_and_write_waits_for_executing_io_and_holds_back_new_io",
	  compare_and_write_waits_for_executing_io_and_holds_back_new_io },
	{ "every_group_knows_the_namespace_lock", every_group_knows_the_namespace_lock },
	{ NULL, NULL },
};
