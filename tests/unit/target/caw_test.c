/*
 * Fused Compare and Write (target/caw.c) through the whole stack: a host (libnvmf's
 * queue code) sends the two halves back to back on one I/O queue of the loop transport
 * (fx_submit for the first, fx_start for the second, so the target sees them adjacent),
 * and each half's CQE is checked, then what the namespace holds.
 *
 * Namespace 1: RAM, 512 B blocks, 1 MiB (tests/unit/target/fixture.h).
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

#define ST(sct, sc) ((int)nvme_status((sct), (sc)))
#define GEN(sc)     ST(NVME_SCT_GENERIC, (sc))
#define DNR(st)     ((int)((st) | NVME_SC_DNR))
#define FUSE_FIRST  1
#define FUSE_SECOND 2

struct caw_fx {
	struct fx fx;
	struct fxq q; /* I/O queue 1 */
	struct fx_cmd h1, h2;
};

static struct caw_fx *setup(void)
{
	struct caw_fx *f = calloc(1, sizeof(*f));
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_FATAL(fx_setup(&f->fx) == 0);
	CU_ASSERT_FATAL(fx_connect_admin(&f->fx) == 0);
	fx_queue_init(&f->fx, &f->q);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&f->q, 1, 31, FX_SUBNQN, FX_HOSTNQN, f->fx.cntlid, 0, NULL, NULL), 0);
	return f;
}

static void teardown(struct caw_fx *f)
{
	fx_teardown(&f->fx);
	free(f);
}

static struct nvme_sqe rw(uint8_t opcode, uint8_t fuse, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	return fx_rw_sqe(opcode, fuse, nsid, slba, nlb, 0x40);
}

/* Send @a then @b adjacent on queue 1 and run the target; both must be answered. */
static void pair(struct caw_fx *f, const struct nvme_sqe *a, const void *da, uint32_t la,
		 const struct nvme_sqe *b, const void *db, uint32_t lb)
{
	CU_ASSERT_EQUAL_FATAL(fx_submit(&f->q, &f->h1, a, da, la), 0);
	struct nvme_sqe b2 = *b;
	b2.command_id = (uint16_t)(a->command_id + 1);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q, &f->h2, &b2, db, lb), 0);
	CU_ASSERT_FATAL(fx_done(&f->h1));
	CU_ASSERT_FATAL(fx_done(&f->h2));
}

static void write_blocks(struct caw_fx *f, uint64_t slba, uint32_t nlb, uint8_t v)
{
	uint8_t buf[4096];
	memset(buf, v, sizeof(buf));
	struct nvme_sqe c = rw(nvme_cmd_write, 0, 1, slba, nlb);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->q, &c, buf, nlb * 512, NULL), 0);
}

/* Whether every byte of blocks [slba, slba + nlb) reads @v. */
static bool blocks_are(struct caw_fx *f, uint64_t slba, uint32_t nlb, uint8_t v)
{
	uint8_t buf[4096];
	struct nvme_sqe c = rw(nvme_cmd_read, 0, 1, slba, nlb);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->q, &c, buf, nlb * 512, NULL), 0);
	for (uint32_t i = 0; i < nlb * 512; i++)
		if (buf[i] != v)
			return false;
	return true;
}

/* A Compare and Write of @nlb blocks at @slba expecting @old, writing @new. */
static void caw(struct caw_fx *f, uint64_t slba, uint32_t nlb, uint8_t old, uint8_t new)
{
	uint8_t cmp[2048], data[2048];
	memset(cmp, old, sizeof(cmp));
	memset(data, new, sizeof(data));
	struct nvme_sqe a = rw(nvme_cmd_compare, FUSE_FIRST, 1, slba, nlb);
	struct nvme_sqe b = rw(nvme_cmd_write, FUSE_SECOND, 1, slba, nlb);
	pair(f, &a, cmp, nlb * 512, &b, data, nlb * 512);
}

static void matching_compare_writes_and_both_halves_succeed(void)
{
	struct caw_fx *f = setup();
	write_blocks(f, 8, 4, 0xaa);
	caw(f, 8, 4, 0xaa, 0x55);
	CU_ASSERT_EQUAL(f->h1.status, 0);
	CU_ASSERT_EQUAL(f->h2.status, 0);
	CU_ASSERT(blocks_are(f, 8, 4, 0x55));
	teardown(f);
}

static void miscompare_fails_both_halves_and_writes_nothing(void)
{
	struct caw_fx *f = setup();
	write_blocks(f, 8, 4, 0xaa);
	caw(f, 8, 4, 0xab, 0x55);
	CU_ASSERT_EQUAL(f->h1.status, DNR(ST(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED)));
	CU_ASSERT_EQUAL(f->h2.status, GEN(NVME_SC_FUSED_FAIL));
	CU_ASSERT(blocks_are(f, 8, 4, 0xaa));
	teardown(f);
}

static void lone_second_returns_missing_fused(void)
{
	struct caw_fx *f = setup();
	write_blocks(f, 0, 1, 0x11);
	uint8_t data[512] = { 0 };
	struct nvme_sqe b = rw(nvme_cmd_write, FUSE_SECOND, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &b, data, sizeof(data), NULL), GEN(NVME_SC_FUSED_MISSING));
	CU_ASSERT(blocks_are(f, 0, 1, 0x11));
	teardown(f);
}

static void first_followed_by_a_normal_command_returns_missing_fused(void)
{
	struct caw_fx *f = setup();
	write_blocks(f, 0, 1, 0x11);
	uint8_t cmp[512], data[512];
	memset(cmp, 0x11, sizeof(cmp));
	memset(data, 0x22, sizeof(data));
	struct nvme_sqe a = rw(nvme_cmd_compare, FUSE_FIRST, 1, 0, 1);
	struct nvme_sqe b = rw(nvme_cmd_write, 0, 1, 0, 1);
	pair(f, &a, cmp, 512, &b, data, 512);
	CU_ASSERT_EQUAL(f->h1.status, GEN(NVME_SC_FUSED_MISSING));
	CU_ASSERT_EQUAL(f->h2.status, 0);
	CU_ASSERT(blocks_are(f, 0, 1, 0x22));
	teardown(f);
}

static void first_refused_by_its_checks_fails_the_second(void)
{
	struct caw_fx *f = setup();
	uint8_t buf[512] = { 0 };
	/* Past the end of the 2048-block namespace. */
	struct nvme_sqe a = rw(nvme_cmd_compare, FUSE_FIRST, 1, 4096, 1);
	struct nvme_sqe b = rw(nvme_cmd_write, FUSE_SECOND, 1, 4096, 1);
	pair(f, &a, buf, 512, &b, buf, 512);
	CU_ASSERT_EQUAL(f->h1.status, DNR(GEN(NVME_SC_LBA_RANGE)));
	CU_ASSERT_EQUAL(f->h2.status, GEN(NVME_SC_FUSED_FAIL));
	teardown(f);
}

static void halves_on_different_blocks_return_invalid_field(void)
{
	struct caw_fx *f = setup();
	write_blocks(f, 0, 2, 0x11);
	uint8_t cmp[1024], data[1024];
	memset(cmp, 0x11, sizeof(cmp));
	memset(data, 0x22, sizeof(data));
	struct nvme_sqe a = rw(nvme_cmd_compare, FUSE_FIRST, 1, 0, 1);
	struct nvme_sqe b = rw(nvme_cmd_write, FUSE_SECOND, 1, 1, 1);
	pair(f, &a, cmp, 512, &b, data, 512);
	CU_ASSERT_EQUAL(f->h1.status, DNR(GEN(NVME_SC_INVALID_FIELD)));
	CU_ASSERT_EQUAL(f->h2.status, DNR(GEN(NVME_SC_INVALID_FIELD)));
	a = rw(nvme_cmd_compare, FUSE_FIRST, 1, 0, 2);
	b = rw(nvme_cmd_write, FUSE_SECOND, 1, 0, 1);
	pair(f, &a, cmp, 1024, &b, data, 512);
	CU_ASSERT_EQUAL(f->h1.status, DNR(GEN(NVME_SC_INVALID_FIELD)));
	CU_ASSERT_EQUAL(f->h2.status, DNR(GEN(NVME_SC_INVALID_FIELD)));
	CU_ASSERT(blocks_are(f, 0, 2, 0x11));
	teardown(f);
}

static void reserved_fuse_wrong_opcode_and_admin_return_invalid_field(void)
{
	struct caw_fx *f = setup();
	uint8_t buf[512] = { 0 };
	struct nvme_sqe c = rw(nvme_cmd_write, 3, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, 512, NULL), DNR(GEN(NVME_SC_INVALID_FIELD)));
	c = rw(nvme_cmd_read, FUSE_FIRST, 1, 0, 1);
	CU_ASSERT_EQUAL(fx_cmd(&f->q, &c, buf, 512, NULL), DNR(GEN(NVME_SC_INVALID_FIELD)));
	/* A first, then a second that is not a Write: both fail. */
	struct nvme_sqe a = rw(nvme_cmd_compare, FUSE_FIRST, 1, 0, 1);
	struct nvme_sqe b = rw(nvme_cmd_compare, FUSE_SECOND, 1, 0, 1);
	pair(f, &a, buf, 512, &b, buf, 512);
	CU_ASSERT_EQUAL(f->h1.status, GEN(NVME_SC_FUSED_MISSING));
	CU_ASSERT_EQUAL(f->h2.status, DNR(GEN(NVME_SC_INVALID_FIELD)));
	/* Admin commands are never fused: Identify Controller with FUSE 01b. */
	struct nvme_sqe id;
	memset(&id, 0, sizeof(id));
	id.opcode = nvme_admin_identify;
	id.flags = FUSE_FIRST;
	id.cdw10 = htole32(NVME_IDENTIFY_CNS_CTRL);
	CU_ASSERT_EQUAL(fx_cmd(&f->fx.admin, &id, NULL, 4096, NULL),
			DNR(GEN(NVME_SC_INVALID_FIELD)));
	teardown(f);
}

static void queue_ending_with_a_lone_first_half_is_released(void)
{
	struct caw_fx *f = setup();
	uint8_t cmp[512] = { 0 };
	struct nvme_sqe a = rw(nvme_cmd_compare, FUSE_FIRST, 1, 0, 1);
	CU_ASSERT_EQUAL_FATAL(fx_start(&f->q, &f->h1, &a, cmp, sizeof(cmp)), 0);
	CU_ASSERT_FALSE(fx_done(&f->h1)); /* waits for its second */
	unsigned before = nvmf_tgt_live_queues(&f->fx.tgt);
	fx_disconnect(&f->q);
	nvmf_loop_drive(&f->fx.tgt);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&f->fx.tgt), before - 1);
	teardown(f);
}

static void identify_reports_compare_and_write(void)
{
	struct caw_fx *f = setup();
	struct nvme_id_ctrl id;
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_identify;
	c.cdw10 = htole32(NVME_IDENTIFY_CNS_CTRL);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f->fx.admin, &c, &id, sizeof(id), NULL), 0);
	CU_ASSERT_EQUAL(le16toh(id.fuses) & NVME_CTRL_FUSES_COMPARE_AND_WRITE,
			NVME_CTRL_FUSES_COMPARE_AND_WRITE);
	CU_ASSERT(le16toh(id.acwu) > 0);
	teardown(f);
}

const struct unit_test caw_tests[] = {
	{ "matching_compare_writes_and_both_halves_succeed",
	  matching_compare_writes_and_both_halves_succeed },
	{ "miscompare_fails_both_halves_and_writes_nothing",
	  miscompare_fails_both_halves_and_writes_nothing },
	{ "lone_second_returns_missing_fused", lone_second_returns_missing_fused },
	{ "first_followed_by_a_normal_command_returns_missing_fused",
	  first_followed_by_a_normal_command_returns_missing_fused },
	{ "first_refused_by_its_checks_fails_the_second",
	  first_refused_by_its_checks_fails_the_second },
	{ "halves_on_different_blocks_return_invalid_field",
	  halves_on_different_blocks_return_invalid_field },
	{ "reserved_fuse_wrong_opcode_and_admin_return_invalid_field",
	  reserved_fuse_wrong_opcode_and_admin_return_invalid_field },
	{ "queue_ending_with_a_lone_first_half_is_released",
	  queue_ending_with_a_lone_first_half_is_released },
	{ "identify_reports_compare_and_write", identify_reports_compare_and_write },
	{ NULL, NULL },
};
