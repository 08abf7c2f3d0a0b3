/* Queues and the request lifecycle (target/core.c) through the loop transport: only
 * Connect before a queue is connected, and SQHD in the CQEs, with and without SQ flow
 * control. */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "nvme/fabrics.h"

#define SC(sct, sc) nvme_status(sct, sc)

static struct fx F;

static void setup(void)
{
	CU_ASSERT_FATAL(fx_setup(&F) == 0);
}

/* A one-block Read of namespace 1 on @q; the CQE into @cqe. */
static int read_block(struct fxq *q, struct nvme_cqe *cqe)
{
	struct nvme_sqe c;
	uint8_t buf[512];
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_cmd_read;
	c.nsid = htole32(1);
	return fx_cmd(q, &c, buf, sizeof(buf), cqe);
}
static void command_before_connect_returns_invalid_opcode(void)
{
	setup();
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_identify;
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, NULL, 0, NULL),
			SC(NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE) | NVME_SC_DNR);
	fx_teardown(&F);
}

/* SQ flow control (NVMe Base 4.1, NVMe-oF 1.1 section 2.4.1): SQHD in every CQE moves
 * with each command fetched, modulo the queue's size, counting from the Connect. */
static void connect_without_sqflow_disable_reports_sqhd_in_every_cqe(void)
{
	setup();
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL_FATAL(fx_connect(&F.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 5000,
					 &F.cntlid, &cqe),
			      0);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 1);
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0); /* Property Set CC, Get CSTS: 2 and 3 */
	memset(&cqe, 0, sizeof(cqe));
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	((uint8_t *)&c)[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_property_get;
	((uint8_t *)&c)[NVMF_PROP_OFFSET] = NVMF_PROP_CSTS;
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 4);
	/* An I/O queue of 4 entries counts on its own and wraps at 4. */
	struct fxq io;
	fx_queue_init(&F, &io);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&io, 1, 3, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe),
			      0);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 1);
	static const uint16_t want[] = { 2, 3, 0, 1 };
	for (unsigned i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(read_block(&io, &cqe), 0);
		CU_ASSERT_EQUAL(le16toh(cqe.sq_head), want[i]);
	}
	fx_disconnect(&io);
	fx_teardown(&F);
}

/* CATTR bit 2 (NVMe-oF 1.1 Figure 20): the queue runs without SQ flow control. Its
 * Connect response's SQHD is FFFFh, every later CQE's 0 (reserved), as nvmet answers;
 * each queue decides for itself (the admin queue without it keeps reporting SQHD). */
static void connect_with_sqflow_disable_answers_sqhd_ffff_then_0(void)
{
	setup();
	struct nvme_cqe cqe;
	F.connect_cattr = NVMF_CONNECT_CATTR_SQFLOW_DISABLE;
	CU_ASSERT_EQUAL_FATAL(fx_connect(&F.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 5000,
					 &F.cntlid, &cqe),
			      0);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 0xffff);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32) & 0xffff, F.cntlid);
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	((uint8_t *)&c)[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_property_get;
	((uint8_t *)&c)[NVMF_PROP_OFFSET] = NVMF_PROP_CSTS;
	memset(&cqe, 0xa5, sizeof(cqe));
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 0);
	/* A failing command too. */
	memset(&c, 0, sizeof(c));
	c.opcode = 0xc3; /* no such admin command */
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, NULL, 0, &cqe),
			SC(NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE) | NVME_SC_DNR);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 0);
	struct fxq io1, io2;
	fx_queue_init(&F, &io1);
	fx_queue_init(&F, &io2);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&io1, 1, 3, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe), 0);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 0xffff);
	for (unsigned i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(read_block(&io1, &cqe), 0);
		CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 0);
	}
	/* The second I/O queue keeps SQ flow control: its SQHD moves. */
	F.connect_cattr = 0;
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&io2, 2, 3, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe), 0);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 1);
	CU_ASSERT_EQUAL(read_block(&io2, &cqe), 0);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 2);
	fx_disconnect(&io1);
	fx_disconnect(&io2);
	fx_teardown(&F);
}

const struct unit_test target_core_tests[] = {
	{ "command_before_connect_returns_invalid_opcode",
	  command_before_connect_returns_invalid_opcode },
	{ "connect_without_sqflow_disable_reports_sqhd_in_every_cqe",
	  connect_without_sqflow_disable_reports_sqhd_in_every_cqe },
	{ "connect_with_sqflow_disable_answers_sqhd_ffff_then_0",
	  connect_with_sqflow_disable_answers_sqhd_ffff_then_0 },
	{ NULL, NULL },
};
