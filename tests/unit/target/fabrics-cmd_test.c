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

/* A subsystem open to any host: the only check a host NQN then meets is its form. */
static void setup_any_host(void)
{
	memset(&F, 0, sizeof(F));
	struct nvmf_subsys_config *s = fx_cfg_subsys(&F.cfg, FX_SUBNQN, NULL, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_expose(fx_cfg_loop_port(&F.cfg, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	CU_ASSERT_FATAL(fx_boot(&F, "127.0.0.1", "4420") == 0);
}

#define SECRET_HOSTNQN "nqn.2026-12.io.x:DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G0+/8=:"
#define SECRET_SUBNQN  "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"

/* A DH-HMAC-CHAP secret sent as the host NQN is no name, even where any host may
 * connect: refused at the hostnqn field, no controller made, and the log line shows the
 * NQN with the secret replaced. */
static void connect_with_a_secret_as_hostnqn_is_refused_at_hostnqn_and_not_logged(void)
{
	setup_any_host();
	struct nvme_cqe cqe;
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int st = fx_connect(&F.admin, 0, 31, FX_SUBNQN, SECRET_HOSTNQN, 0xffff, 0, NULL, &cqe);
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(st, CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 512); /* IATTR=1, IPO=hostnqn */
	CU_ASSERT_PTR_NULL(nvmf_tgt_ctrl_find(&F.tgt, FX_SUBNQN, 1));
	CU_ASSERT_PTR_NULL(strstr(out.text, "DHHC-1"));
	CU_ASSERT_PTR_NULL(strstr(out.text, "ab3CAVbCYQ"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out.text, "(port 1, queue 0) refused: its host NQN "
						"\"nqn.2026-12.io.x:<secret>\" holds a secret"));
	fx_teardown(&F);
}

/* The same for a TLS PSK sent as the subsystem NQN: refused at the subnqn field. */
static void connect_with_a_secret_as_subnqn_is_refused_at_subnqn_and_not_logged(void)
{
	setup_any_host();
	struct nvme_cqe cqe;
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int st = fx_connect(&F.admin, 0, 31, SECRET_SUBNQN, FX_HOSTNQN, 0xffff, 0, NULL, &cqe);
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(st, CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 256); /* IATTR=1, IPO=subnqn */
	CU_ASSERT_PTR_NULL(strstr(out.text, "NVMeTLSkey-1"));
	CU_ASSERT_PTR_NULL(strstr(out.text, "VRLbtnN9"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(out.text, "refused: its subsystem NQN \"<secret>\" holds a secret"));
	fx_teardown(&F);
}

/* An I/O queue's Connect is checked the same way, before its controller is looked up. */
static void io_connect_with_a_secret_as_hostnqn_is_refused_at_hostnqn(void)
{
	setup_any_host();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&F), 0);
	struct fxq io;
	struct nvme_cqe cqe;
	struct fx_stderr out;
	fx_queue_init(&F, &io);
	fx_stderr_begin(&out);
	int st = fx_connect(&io, 1, 31, FX_SUBNQN, SECRET_HOSTNQN, F.cntlid, 0, NULL, &cqe);
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(st, CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 512);
	CU_ASSERT_PTR_NULL(strstr(out.text, "ab3CAVbCYQ"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out.text, "(port 1, queue 1) refused: its host NQN"));
	fx_teardown(&F);
}

/* A queue in a TLS secure channel (ops->tls_peer, faked on the loop transport): its
 * Connect must name the PSK identity's host and subsystem. */
static const char *tls_host, *tls_sub;
static bool fake_tls_peer(const struct nvmf_sq *sq, const char **hostnqn, const char **subnqn)
{
	(void)sq;
	*hostnqn = tls_host;
	*subnqn = tls_sub;
	return true;
}

static int tls_connect(const char *id_host, const char *id_sub, struct nvme_cqe *cqe)
{
	static struct nvmf_transport_ops ops;
	struct nvmf_transport *t = F.tgt.transports[0];
	ops = *t->ops;
	ops.tls_peer = fake_tls_peer;
	t->ops = &ops;
	tls_host = id_host;
	tls_sub = id_sub;
	return fx_connect(&F.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, NULL, cqe);
}

static void tls_connect_as_the_identitys_host_and_subsystem_succeeds(void)
{
	setup();
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL(tls_connect(FX_HOSTNQN, FX_SUBNQN, &cqe), 0);
	fx_teardown(&F);
}

static void tls_connect_as_another_host_is_invalid_param_at_hostnqn(void)
{
	setup();
	struct nvme_cqe cqe;
	/* FX_HOSTNQN is allowed: only the identity (another host's PSK) refuses it. */
	CU_ASSERT_EQUAL(tls_connect(FX_OTHER_HOSTNQN, FX_SUBNQN, &cqe), CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 512); /* IATTR=1, IPO=hostnqn */
	CU_ASSERT_PTR_NULL(F.tgt.ctrls);
	fx_teardown(&F);
}

static void tls_connect_to_another_subsystem_is_invalid_param_at_subnqn(void)
{
	setup();
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL(tls_connect(FX_HOSTNQN, "nqn.2026-11.io.nvmf-rdma:other", &cqe),
			CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), (1u << 16) | 256); /* IATTR=1, IPO=subnqn */
	CU_ASSERT_PTR_NULL(F.tgt.ctrls);
	fx_teardown(&F);
}

const struct unit_test target_fabrics_tests[] = {
	{ "tls_connect_as_the_identitys_host_and_subsystem_succeeds",
	  tls_connect_as_the_identitys_host_and_subsystem_succeeds },
	{ "tls_connect_as_another_host_is_invalid_param_at_hostnqn",
	  tls_connect_as_another_host_is_invalid_param_at_hostnqn },
	{ "tls_connect_to_another_subsystem_is_invalid_param_at_subnqn",
	  tls_connect_to_another_subsystem_is_invalid_param_at_subnqn },
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
	{ "connect_with_a_secret_as_hostnqn_is_refused_at_hostnqn_and_not_logged",
	  connect_with_a_secret_as_hostnqn_is_refused_at_hostnqn_and_not_logged },
	{ "connect_with_a_secret_as_subnqn_is_refused_at_subnqn_and_not_logged",
	  connect_with_a_secret_as_subnqn_is_refused_at_subnqn_and_not_logged },
	{ "io_connect_with_a_secret_as_hostnqn_is_refused_at_hostnqn",
	  io_connect_with_a_secret_as_hostnqn_is_refused_at_hostnqn },
	{ NULL, NULL },
};
