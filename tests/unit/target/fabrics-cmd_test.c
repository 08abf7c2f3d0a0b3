/* Connect through the loop transport (libnvmf's queue code as the host, the target in
 * driven mode). The controller it creates, its properties and state machine: target/ctrl;
 * SQHD and commands before Connect: target/core. */
#include <CUnit/CUnit.h>
#include <string.h>
#include "nvme/sgl.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "nvme/fabrics.h"

#define SC(sct, sc) nvme_status(sct, sc)
#define CONNECT_INVALID_PARAM \
	(SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_PARAM) | NVME_SC_DNR)

static struct fx F;

static void setup(void)
{
	CU_ASSERT_FATAL(fx_setup(&F) == 0);
}

static void connect_with_unknown_subnqn_returns_invalid_param_at_subnqn(void)
{
	setup();
	struct nvme_cqe cqe;
	int st = fx_connect(&F.admin, 0, 31, "nqn.2026-11.io.nvmf-rdma:nope", FX_HOSTNQN, 0xffff, 0,
			    NULL, &cqe);
	CU_ASSERT_EQUAL(st, CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 256); /* IATTR=1, IPO=subnqn */
	fx_teardown(&F);
}

static void connect_from_host_not_allowed_returns_invalid_host(void)
{
	setup();
	struct nvme_cqe cqe;
	int st = fx_connect(&F.admin, 0, 31, FX_SUBNQN, FX_OTHER_HOSTNQN, 0xffff, 0, NULL, &cqe);
	CU_ASSERT_EQUAL(st, SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST) | NVME_SC_DNR);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 512);
	fx_teardown(&F);
}

static void admin_connect_with_cntlid_other_than_ffff_returns_invalid_param(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0);
	struct fxq second;
	struct nvme_cqe cqe;
	fx_queue_init(&F, &second);
	int st = fx_connect(&second, 0, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe);
	CU_ASSERT_EQUAL(st, CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 16); /* IATTR=1, IPO=cntlid */
	fx_teardown(&F);
}

static void connect_with_nonzero_recfmt_returns_connect_format(void)
{
	setup();
	struct nvme_sqe c;
	struct nvmf_connect_data d;
	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	c.opcode = nvme_admin_fabrics;
	((uint8_t *)&c)[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	((uint8_t *)&c)[NVMF_CONNECT_RECFMT] = 1;
	((uint8_t *)&c)[NVMF_CONNECT_SQSIZE] = 31;
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, &d, sizeof(d), NULL),
			SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_FORMAT) | NVME_SC_DNR);
	fx_teardown(&F);
}

static void admin_connect_with_sqsize_above_32_entries_returns_invalid_param(void)
{
	setup();
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL(fx_connect(&F.admin, 0, 32, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, NULL, &cqe),
			CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), NVMF_CONNECT_SQSIZE); /* IATTR=0, SQE offset */
	CU_ASSERT_EQUAL(fx_connect(&F.admin, 0, 0, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, NULL, &cqe),
			CONNECT_INVALID_PARAM);
	fx_teardown(&F);
}

static void connect_data_shorter_than_1024_bytes_returns_data_sgl_length_invalid(void)
{
	setup();
	struct nvme_sqe c;
	uint8_t d[512] = { 0 };
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	((uint8_t *)&c)[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	((uint8_t *)&c)[NVMF_CONNECT_SQSIZE] = 31;
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, d, sizeof(d), NULL),
			SC(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_DATA) | NVME_SC_DNR);
	fx_teardown(&F);
}

static void io_connect_checks_cntlid_qid_sqsize_and_duplicates(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0);
	struct fxq io1, io2;
	struct nvme_cqe cqe;
	fx_queue_init(&F, &io1);
	fx_queue_init(&F, &io2);
	/* unknown controller */
	CU_ASSERT_EQUAL(fx_connect(&io1, 1, 127, FX_SUBNQN, FX_HOSTNQN, F.cntlid + 1, 0, NULL,
				   &cqe),
			CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 16);
	/* qid above the subsystem's qid_max (4) */
	CU_ASSERT_EQUAL(fx_connect(&io1, 5, 127, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe),
			CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), NVMF_CONNECT_QID);
	/* sqsize beyond MQES (port max_queue_size 128 -> sqsize <= 127) */
	CU_ASSERT_EQUAL(fx_connect(&io1, 1, 128, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe),
			CONNECT_INVALID_PARAM);
	/* a different host cannot join this association */
	CU_ASSERT_EQUAL(fx_connect(&io1, 1, 127, FX_SUBNQN, FX_OTHER_HOSTNQN, F.cntlid, 0, NULL,
				   &cqe),
			CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(fx_connect(&io1, 1, 127, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe),
			0);
	CU_ASSERT_EQUAL(fx_connect(&io2, 1, 127, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe),
			SC(NVME_SCT_GENERIC, NVME_SC_CMD_SEQ_ERROR) | NVME_SC_DNR);
	fx_disconnect(&io1);
	fx_teardown(&F);
}

/* The SQE of an I/O queue @qid Connect (SQSIZE 15) whose data is @len bytes in the
 * capsule at @offset. */
static struct nvme_sqe incapsule_connect(uint16_t qid, uint32_t offset, uint32_t len)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c;
	p[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	p[NVMF_CONNECT_QID] = (uint8_t)qid;
	p[NVMF_CONNECT_SQSIZE] = 15;
	nvme_sgl_set_incapsule(&c, offset, len);
	return c;
}

/* Regression (fuzz_capsule, tests/fuzz/corpus/capsule/regress-connect-unaligned): the
 * Connect data was read in place, so CNTLID's le16 at an odd in-capsule offset was a
 * misaligned load (UBSan under make SANITIZE=1 unit). */
static void io_connect_with_its_data_in_the_capsule_at_an_odd_offset_succeeds(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&F), 0);
	struct nvmf_loop_raw *q = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_loop_raw_connect(&F.tgt, "127.0.0.1", "4420", 1, 16, &q), 0);
	static uint8_t icd[1024 + 3];
	memset(icd, 0xee, sizeof(icd));
	struct nvmf_connect_data d;
	fx_connect_data(&d, FX_SUBNQN, FX_HOSTNQN, F.cntlid);
	memcpy(icd + 3, &d, sizeof(d));
	struct nvme_sqe c = incapsule_connect(1, 3, sizeof(d));
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL(fx_raw_exec(&F, q, &c, icd, sizeof(icd), NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32) & 0xffff, F.cntlid);
	/* The data at the offset is what counts: a wrong cntlid there is refused. */
	struct nvmf_loop_raw *q2 = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_loop_raw_connect(&F.tgt, "127.0.0.1", "4420", 2, 16, &q2), 0);
	fx_connect_data(&d, FX_SUBNQN, FX_HOSTNQN, (uint16_t)(F.cntlid + 1));
	memcpy(icd + 3, &d, sizeof(d));
	c = incapsule_connect(2, 3, sizeof(d));
	CU_ASSERT_EQUAL(fx_raw_exec(&F, q2, &c, icd, sizeof(icd), NULL, 0, &cqe),
			CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 16);
	nvmf_loop_raw_disconnect(q2);
	nvmf_loop_raw_disconnect(q);
	fx_teardown(&F);
}

/* A refused Connect leaves the queue as it was: the bit counts only with a controller,
 * and SQHD is what any refused Connect reports (0: a queue has no size before its Connect
 * succeeds, as in nvmet), not FFFFh. */
static void refused_connect_with_sqflow_disable_reports_sqhd(void)
{
	setup();
	struct nvme_cqe cqe;
	F.connect_cattr = NVMF_CONNECT_CATTR_SQFLOW_DISABLE;
	CU_ASSERT_EQUAL(fx_connect(&F.admin, 0, 31, FX_SUBNQN, FX_OTHER_HOSTNQN, 0xffff, 0, NULL,
				   &cqe),
			SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST) | NVME_SC_DNR);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 0);
	fx_teardown(&F);
}

const struct unit_test target_fabrics_tests[] = {
	{ "connect_with_unknown_subnqn_returns_invalid_param_at_subnqn",
	  connect_with_unknown_subnqn_returns_invalid_param_at_subnqn },
	{ "connect_from_host_not_allowed_returns_invalid_host",
	  connect_from_host_not_allowed_returns_invalid_host },
	{ "admin_connect_with_cntlid_other_than_ffff_returns_invalid_param",
	  admin_connect_with_cntlid_other_than_ffff_returns_invalid_param },
	{ "connect_with_nonzero_recfmt_returns_connect_format",
	  connect_with_nonzero_recfmt_returns_connect_format },
	{ "admin_connect_with_sqsize_above_32_entries_returns_invalid_param",
	  admin_connect_with_sqsize_above_32_entries_returns_invalid_param },
	{ "connect_data_shorter_than_1024_bytes_returns_data_sgl_length_invalid",
	  connect_data_shorter_than_1024_bytes_returns_data_sgl_length_invalid },
	{ "io_connect_checks_cntlid_qid_sqsize_and_duplicates",
	  io_connect_checks_cntlid_qid_sqsize_and_duplicates },
	{ "refused_connect_with_sqflow_disable_reports_sqhd",
	  refused_connect_with_sqflow_disable_reports_sqhd },
	{ "io_connect_with_its_data_in_the_capsule_at_an_odd_offset_succeeds",
	  io_connect_with_its_data_in_the_capsule_at_an_odd_offset_succeeds },
	{ NULL, NULL },
};
