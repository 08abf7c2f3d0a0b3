/* The controller of target/ctrl.c through the loop transport: its cntlid, the property
 * space (CAP, VS, CC, CSTS), CC.EN and shutdown, the keep-alive timeout, and the cntlid
 * freed when the admin queue disconnects. */
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

static int prop_get(struct fxq *q, uint32_t off, bool size8, uint64_t *val)
{
	struct nvme_sqe c;
	struct nvme_cqe cqe;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	((uint8_t *)&c)[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_property_get;
	((uint8_t *)&c)[NVMF_PROP_ATTRIB] = size8;
	uint32_t o = htole32(off);
	memcpy((uint8_t *)&c + NVMF_PROP_OFFSET, &o, 4);
	int st = fx_cmd(q, &c, NULL, 0, &cqe);
	*val = le64toh(cqe.result.u64);
	return st;
}

static int prop_set_cc(struct fxq *q, uint32_t cc)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	((uint8_t *)&c)[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_property_set;
	uint32_t o = htole32(NVMF_PROP_CC), v = htole32(cc);
	memcpy((uint8_t *)&c + NVMF_PROP_OFFSET, &o, 4);
	memcpy((uint8_t *)&c + NVMF_PROP_VALUE, &v, 4);
	return fx_cmd(q, &c, NULL, 0, NULL);
}
static void admin_connect_assigns_cntlid_and_cc_enable_sets_rdy(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0);
	CU_ASSERT(F.cntlid >= 1 && F.cntlid <= 0xffef);
	uint64_t csts = 0;
	CU_ASSERT_EQUAL(prop_get(&F.admin, NVMF_PROP_CSTS, false, &csts), 0);
	CU_ASSERT_EQUAL(csts & 1, 1);
	fx_teardown(&F);
}

static void property_get_cap_reports_mqes_timeout_and_nvm_css(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0);
	uint64_t cap = 0, vs = 0;
	CU_ASSERT_EQUAL(prop_get(&F.admin, NVMF_PROP_CAP, true, &cap), 0);
	CU_ASSERT_EQUAL(cap & 0xffff, 127);      /* MQES, 0's based */
	CU_ASSERT_EQUAL((cap >> 24) & 0xff, 15); /* TO: 7.5 s */
	CU_ASSERT(((cap >> 37) & 1) == 1);       /* CSS: NVM command set */
	CU_ASSERT_EQUAL(prop_get(&F.admin, NVMF_PROP_VS, false, &vs), 0);
	CU_ASSERT_EQUAL(vs, 0x00020000);
	/* CAP with a 4-byte access and an unknown offset are invalid fields */
	CU_ASSERT_EQUAL(prop_get(&F.admin, 0x30, false, &vs),
			SC(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD) | NVME_SC_DNR);
	fx_teardown(&F);
}

static void property_set_of_anything_but_cc_returns_invalid_field(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0);
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	((uint8_t *)&c)[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_property_set;
	((uint8_t *)&c)[NVMF_PROP_OFFSET] = NVMF_PROP_CSTS;
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, NULL, 0, NULL),
			SC(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD) | NVME_SC_DNR);
	fx_teardown(&F);
}

static void cc_enable_with_wrong_queue_entry_sizes_sets_cfs_not_rdy(void)
{
	setup();
	CU_ASSERT_EQUAL(
		fx_connect(&F.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, &F.cntlid, NULL), 0);
	CU_ASSERT_EQUAL(prop_set_cc(&F.admin, 1u | (7u << 16) | (4u << 20)), 0);
	uint64_t csts = 0;
	prop_get(&F.admin, NVMF_PROP_CSTS, false, &csts);
	CU_ASSERT_EQUAL(csts & 3, 2); /* CFS, not RDY */
	fx_teardown(&F);
}

static void shutdown_notification_reports_shutdown_complete(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0);
	CU_ASSERT_EQUAL(prop_set_cc(&F.admin, 1u | (6u << 16) | (4u << 20) | (1u << 14)), 0);
	uint64_t csts = 0;
	prop_get(&F.admin, NVMF_PROP_CSTS, false, &csts);
	CU_ASSERT_EQUAL((csts >> 2) & 3, 2); /* SHST: shutdown processing complete */
	fx_teardown(&F);
}

static void keep_alive_timeout_tears_the_association_down(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0); /* KATO 5000 ms */
	F.now += 4000;
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&F));
	F.now += 6000;
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&F));
	/* The association is gone with its queues: CSTS as the controller had it then. */
	uint64_t csts = F.down_csts;
	CU_ASSERT_EQUAL(csts & 2, 2); /* CFS */
	fx_teardown(&F);
}

/* An I/O controller whose host connected with KATO 0 keeps no keep-alive timer (as
 * nvmet): only the transport's connection loss ends it. */
static void io_controller_with_kato_0_never_times_out(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&F.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, &F.cntlid, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(&F.admin), 0);
	CU_ASSERT_EQUAL(fx_ctrl(&F)->kato_ms, 0);
	F.now += 24u * 3600 * 1000;
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&F));
	CU_ASSERT_PTR_NOT_NULL(fx_ctrl(&F));
	fx_teardown(&F);
}

static void failing_commands_refresh_the_keep_alive_timer(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0); /* KATO 5000 ms */
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = 0x7e; /* not an admin opcode */
	for (int i = 0; i < 4; i++) {
		F.now += 4000;
		CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, NULL, 0, NULL),
				SC(NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE) | NVME_SC_DNR);
		nvmf_tgt_check_keep_alive(&F.tgt);
	}
	CU_ASSERT_FALSE(fx_admin_deleted(&F));
	fx_teardown(&F);
}

static void disconnecting_the_admin_queue_frees_the_cntlid(void)
{
	setup();
	CU_ASSERT_EQUAL(fx_connect_admin(&F), 0);
	CU_ASSERT_PTR_NOT_NULL(nvmf_tgt_ctrl_find(&F.tgt, FX_SUBNQN, F.cntlid));
	fx_disconnect(&F.admin);
	CU_ASSERT_PTR_NULL(nvmf_tgt_ctrl_find(&F.tgt, FX_SUBNQN, F.cntlid));
	CU_ASSERT_PTR_NULL(F.tgt.ctrls);
	fx_teardown(&F);
}

const struct unit_test target_ctrl_tests[] = {
	{ "admin_connect_assigns_cntlid_and_cc_enable_sets_rdy",
	  admin_connect_assigns_cntlid_and_cc_enable_sets_rdy },
	{ "property_get_cap_reports_mqes_timeout_and_nvm_css",
	  property_get_cap_reports_mqes_timeout_and_nvm_css },
	{ "property_set_of_anything_but_cc_returns_invalid_field",
	  property_set_of_anything_but_cc_returns_invalid_field },
	{ "cc_enable_with_wrong_queue_entry_sizes_sets_cfs_not_rdy",
	  cc_enable_with_wrong_queue_entry_sizes_sets_cfs_not_rdy },
	{ "shutdown_notification_reports_shutdown_complete",
	  shutdown_notification_reports_shutdown_complete },
	{ "keep_alive_timeout_tears_the_association_down",
	  keep_alive_timeout_tears_the_association_down },
	{ "io_controller_with_kato_0_never_times_out", io_controller_with_kato_0_never_times_out },
	{ "failing_commands_refresh_the_keep_alive_timer",
	  failing_commands_refresh_the_keep_alive_timer },
	{ "disconnecting_the_admin_queue_frees_the_cntlid",
	  disconnecting_the_admin_queue_frees_the_cntlid },
	{ NULL, NULL },
};
