/* Identify of an NVM subsystem controller (target/identify.c) through the loop transport:
 * the controller and namespace data structures, the active namespace list, the namespace
 * identification descriptors, and what is refused (unknown CNS, invalid NSID, short SGL). */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/admin_fixture.h"

static void identify_controller_has_the_fields_the_linux_host_checks(void)
{
	admin_setup();
	struct nvme_id_ctrl id;
	CU_ASSERT_EQUAL_FATAL(admin_identify(NVME_IDENTIFY_CNS_CTRL, 0, &id), 0);
	CU_ASSERT(le32toh(id.ioccsz) >= 4);
	CU_ASSERT_EQUAL(le32toh(id.ioccsz), (64 + 8192) / 16);
	CU_ASSERT_EQUAL(le32toh(id.iorcsz), 1);
	CU_ASSERT_EQUAL(le16toh(id.icdoff), 0);
	CU_ASSERT_EQUAL(le32toh(id.sgls), 1u | 1u << 2 | 1u << 20);
	CU_ASSERT_EQUAL(le16toh(id.kas), NVMF_KAS);
	CU_ASSERT_EQUAL(le16toh(id.cntlid), admin_fx.cntlid);
	CU_ASSERT_STRING_EQUAL(id.subnqn, FX_SUBNQN);
	CU_ASSERT_EQUAL(id.cntrltype, NVME_CTRL_CNTRLTYPE_IO);
	CU_ASSERT_EQUAL(id.sqes, 0x66);
	CU_ASSERT_EQUAL(id.cqes, 0x44);
	CU_ASSERT_EQUAL(le16toh(id.maxcmd), 128);
	CU_ASSERT_EQUAL(le32toh(id.nn), NVMF_MAX_NSID);
	CU_ASSERT_EQUAL(le16toh(id.oncs), NVME_CTRL_ONCS_COMPARE | NVME_CTRL_ONCS_DSM |
						  NVME_CTRL_ONCS_WRITE_ZEROES |
						  NVME_CTRL_ONCS_VERIFY | NVME_CTRL_ONCS_COPY);
	CU_ASSERT_EQUAL(le16toh(id.ocfs), 1); /* Copy descriptor format 0h */
	CU_ASSERT_EQUAL(id.vwc, 0);           /* RAM namespaces have no cache */
	CU_ASSERT_EQUAL(id.mdts, 8);
	CU_ASSERT_EQUAL(id.aerl, NVMF_AERL);
	CU_ASSERT_EQUAL(id.elpe, NVMF_ERROR_LOG_ENTRIES - 1);
	CU_ASSERT_EQUAL(id.lpa, NVME_CTRL_LPA_CMD_EFFECTS | NVME_CTRL_LPA_EXTENDED);
	CU_ASSERT_EQUAL(id.frmw, 0x3);
	CU_ASSERT_EQUAL(le32toh(id.oaes), NVME_CTRL_OAES_NA | NVME_CTRL_OAES_ANA);
	CU_ASSERT_EQUAL(id.msdbd, 1);
	CU_ASSERT_EQUAL(id.acl, 3);
	CU_ASSERT_EQUAL(le32toh(id.ver), admin_ctrl()->subsys->vs);
	CU_ASSERT_EQUAL(memcmp(id.mn, "nvmf-rdma", 9), 0);
	CU_ASSERT_EQUAL(id.mn[39], ' '); /* space padded, not NUL */
	CU_ASSERT_EQUAL(memcmp(id.fr, "0.1     ", 8), 0);
	fx_teardown(&admin_fx);
}

static void identify_controller_reports_vwc_when_a_backend_has_a_cache(void)
{
	admin_setup();
	admin_ctrl()->subsys->ns[2]->bdev->volatile_cache = true;
	struct nvme_id_ctrl id;
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_CTRL, 0, &id), 0);
	CU_ASSERT_EQUAL(id.vwc, NVME_CTRL_VWC_PRESENT);
	admin_ctrl()->subsys->ns[2]->bdev->volatile_cache = false;
	fx_teardown(&admin_fx);
}

static void identify_namespace_reports_size_and_its_block_format(void)
{
	admin_setup();
	struct nvme_id_ns id;
	CU_ASSERT_EQUAL_FATAL(admin_identify(NVME_IDENTIFY_CNS_NS, 1, &id), 0);
	CU_ASSERT_EQUAL(le64toh(id.nsze), (1u << 20) / 512);
	CU_ASSERT_EQUAL(le64toh(id.ncap), (1u << 20) / 512);
	CU_ASSERT_EQUAL(le64toh(id.nuse), (1u << 20) / 512);
	CU_ASSERT_EQUAL(id.nlbaf, 0);
	CU_ASSERT_EQUAL(id.flbas, 0);
	CU_ASSERT_EQUAL(id.lbaf[0].ds, 9);
	CU_ASSERT_EQUAL(id.lbaf[0].ms, 0);
	CU_ASSERT_EQUAL(id.dlfeat, 0x09);
	CU_ASSERT_EQUAL(id.nmic, NVME_NS_NMIC_SHARED);
	CU_ASSERT(admin_all_zero(id.lbaf + 1, sizeof(id.lbaf) - sizeof(id.lbaf[0])));
	/* Copy: MDTS (1 MiB) in blocks, over at most 128 ranges (MSRC 0's based). */
	CU_ASSERT_EQUAL(le16toh(id.mssrl), 2048);
	CU_ASSERT_EQUAL(le32toh(id.mcl), 2048);
	CU_ASSERT_EQUAL(id.msrc, 127);
	CU_ASSERT_EQUAL_FATAL(admin_identify(NVME_IDENTIFY_CNS_NS, 2, &id), 0);
	CU_ASSERT_EQUAL(le64toh(id.nsze), (1u << 20) / 4096);
	CU_ASSERT_EQUAL(id.lbaf[0].ds, 12);
	CU_ASSERT_EQUAL(le16toh(id.mssrl), 256);
	CU_ASSERT_EQUAL(le32toh(id.mcl), 256);
	CU_ASSERT_EQUAL(id.msrc, 127);
	fx_teardown(&admin_fx);
}

static void identify_namespace_copies_nguid_and_eui64(void)
{
	admin_setup();
	struct nvmf_ns *ns = admin_ctrl()->subsys->ns[1];
	for (int i = 0; i < 16; i++)
		ns->nguid[i] = (uint8_t)(0x10 + i);
	for (int i = 0; i < 8; i++)
		ns->eui64[i] = (uint8_t)(0x40 + i);
	ns->has_nguid = ns->has_eui64 = true;
	struct nvme_id_ns id;
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS, 1, &id), 0);
	CU_ASSERT_EQUAL(memcmp(id.nguid, ns->nguid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(id.eui64, ns->eui64, 8), 0);
	fx_teardown(&admin_fx);
}

static void identify_inactive_namespace_returns_zeroes(void)
{
	admin_setup();
	struct nvme_id_ns id;
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS, 3, &id), 0);
	CU_ASSERT(admin_all_zero(&id, sizeof(id)));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS, NVMF_MAX_NSID, &id), 0);
	CU_ASSERT(admin_all_zero(&id, sizeof(id)));
	fx_teardown(&admin_fx);
}

static void identify_namespace_with_invalid_nsid_returns_invalid_ns(void)
{
	admin_setup();
	struct nvme_id_ns id;
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS, 0, &id), GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS, NVMF_MAX_NSID + 1, &id),
			GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS, NVME_NSID_ALL, &id),
			GEN(NVME_SC_INVALID_NS));
	fx_teardown(&admin_fx);
}

static void active_namespace_list_starts_after_the_given_nsid(void)
{
	admin_setup();
	__le32 list[1024];
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0, list), 0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 1);
	CU_ASSERT_EQUAL(le32toh(list[1]), 2);
	CU_ASSERT(admin_all_zero(list + 2, sizeof(list) - 8));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 1, list), 0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 2);
	CU_ASSERT(admin_all_zero(list + 1, sizeof(list) - 4));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 2, list), 0);
	CU_ASSERT(admin_all_zero(list, sizeof(list)));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0xfffffffe, list),
			GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, NVME_NSID_ALL, list),
			GEN(NVME_SC_INVALID_NS));
	fx_teardown(&admin_fx);
}

static void namespace_descriptors_list_eui64_nguid_uuid_and_csi(void)
{
	admin_setup();
	struct nvmf_ns *ns = admin_ctrl()->subsys->ns[1];
	for (int i = 0; i < 16; i++)
		ns->nguid[i] = (uint8_t)(0x10 + i);
	for (int i = 0; i < 8; i++)
		ns->eui64[i] = (uint8_t)(0x40 + i);
	ns->has_nguid = ns->has_eui64 = true;
	CU_ASSERT_FATAL(ns->has_uuid); /* tgt.c always derives one */
	uint8_t b[4096];
	CU_ASSERT_EQUAL_FATAL(admin_identify(NVME_IDENTIFY_CNS_NS_DESC_LIST, 1, b), 0);
	/* EUI64 @0 (4+8), NGUID @12 (4+16), UUID @32 (4+16), CSI @52 (4+1). */
	CU_ASSERT(b[0] == NVME_NIDT_EUI64 && b[1] == 8 && b[2] == 0 && b[3] == 0);
	CU_ASSERT_EQUAL(memcmp(b + 4, ns->eui64, 8), 0);
	CU_ASSERT(b[12] == NVME_NIDT_NGUID && b[13] == 16);
	CU_ASSERT_EQUAL(memcmp(b + 16, ns->nguid, 16), 0);
	CU_ASSERT(b[32] == NVME_NIDT_UUID && b[33] == 16);
	CU_ASSERT_EQUAL(memcmp(b + 36, ns->uuid, 16), 0);
	CU_ASSERT(b[52] == NVME_NIDT_CSI && b[53] == 1 && b[56] == NVME_CSI_NVM);
	CU_ASSERT(admin_all_zero(b + 57, sizeof(b) - 57));
	/* Namespace 2 has only its UUID, then CSI. */
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS_DESC_LIST, 2, b), 0);
	CU_ASSERT(b[0] == NVME_NIDT_UUID && b[20] == NVME_NIDT_CSI);
	CU_ASSERT(admin_all_zero(b + 25, sizeof(b) - 25));
	fx_teardown(&admin_fx);
}

static void namespace_descriptors_of_inactive_nsid_return_invalid_ns(void)
{
	admin_setup();
	uint8_t b[4096];
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS_DESC_LIST, 3, b),
			GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_NS_DESC_LIST, 0, b),
			GEN(NVME_SC_INVALID_NS));
	fx_teardown(&admin_fx);
}

static void identify_cs_independent_namespace_reports_ready_shared_and_its_group(void)
{
	admin_setup();
	struct nvme_id_independent_id_ns id;
	CU_ASSERT_EQUAL_FATAL(admin_identify(NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 2, &id), 0);
	CU_ASSERT_EQUAL(id.nstat, 1); /* NRDY */
	CU_ASSERT_EQUAL(id.nmic, NVME_NS_NMIC_SHARED);
	CU_ASSERT_EQUAL(le32toh(id.anagrpid), 1);
	CU_ASSERT_EQUAL(id.rescap, 0);
	CU_ASSERT_EQUAL(id.nsfeat, 1u << 5); /* VWCNP */
	CU_ASSERT_EQUAL(id.nsattr, 0);
	CU_ASSERT(admin_all_zero(id.rsvd15, sizeof(id.rsvd15)));
	fx_teardown(&admin_fx);
}

static void identify_cs_independent_namespace_of_no_namespace_returns_invalid_ns(void)
{
	admin_setup();
	uint8_t buf[NVME_IDENTIFY_DATA_SIZE];
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 3, buf),
			GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 0, buf),
			GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, NVME_NSID_ALL, buf),
			GEN(NVME_SC_INVALID_NS));
	fx_teardown(&admin_fx);
}

static void identify_with_unknown_cns_returns_invalid_field(void)
{
	admin_setup();
	uint8_t b[4096];
	CU_ASSERT_EQUAL(admin_identify(0x10, 0, b), GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_identify(0x04, 0, b), GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&admin_fx);
}

static void identify_with_short_sgl_returns_sgl_length_invalid(void)
{
	admin_setup();
	uint8_t b[512];
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_identify, 0, NVME_IDENTIFY_CNS_CTRL, 0), b,
				  sizeof(b), NULL),
			GEN(NVME_SC_SGL_INVALID_DATA));
	fx_teardown(&admin_fx);
}

const struct unit_test identify_tests[] = {
	{ "identify_controller_has_the_fields_the_linux_host_checks",
	  identify_controller_has_the_fields_the_linux_host_checks },
	{ "identify_controller_reports_vwc_when_a_backend_has_a_cache",
	  identify_controller_reports_vwc_when_a_backend_has_a_cache },
	{ "identify_namespace_reports_size_and_its_block_format",
	  identify_namespace_reports_size_and_its_block_format },
	{ "identify_namespace_copies_nguid_and_eui64", identify_namespace_copies_nguid_and_eui64 },
	{ "identify_inactive_namespace_returns_zeroes",
	  identify_inactive_namespace_returns_zeroes },
	{ "identify_namespace_with_invalid_nsid_returns_invalid_ns",
	  identify_namespace_with_invalid_nsid_returns_invalid_ns },
	{ "active_namespace_list_starts_after_the_given_nsid",
	  active_namespace_list_starts_after_the_given_nsid },
	{ "namespace_descriptors_list_eui64_nguid_uuid_and_csi",
	  namespace_descriptors_list_eui64_nguid_uuid_and_csi },
	{ "namespace_descriptors_of_inactive_nsid_return_invalid_ns",
	  namespace_descriptors_of_inactive_nsid_return_invalid_ns },
	{ "identify_cs_independent_namespace_reports_ready_shared_and_its_group",
	  identify_cs_independent_namespace_reports_ready_shared_and_its_group },
	{ "identify_cs_independent_namespace_of_no_namespace_returns_invalid_ns",
	  identify_cs_independent_namespace_of_no_namespace_returns_invalid_ns },
	{ "identify_with_unknown_cns_returns_invalid_field",
	  identify_with_unknown_cns_returns_invalid_field },
	{ "identify_with_short_sgl_returns_sgl_length_invalid",
	  identify_with_short_sgl_returns_sgl_length_invalid },
	{ NULL, NULL },
};
