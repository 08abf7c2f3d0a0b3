/* Admin commands of an NVM subsystem controller through the loop transport: Identify,
 * Get Log Page, Keep Alive, Abort, and what is refused (AERs: target/aen,
 * Set/Get Features: target/features). */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/admin_fixture.h"

/* ---- Identify ---- */

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
	CU_ASSERT_EQUAL(le16toh(id.oncs),
			NVME_CTRL_ONCS_COMPARE | NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES);
	CU_ASSERT_EQUAL(id.vwc, 0); /* RAM namespaces have no cache */
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
	CU_ASSERT_EQUAL_FATAL(admin_identify(NVME_IDENTIFY_CNS_NS, 2, &id), 0);
	CU_ASSERT_EQUAL(le64toh(id.nsze), (1u << 20) / 4096);
	CU_ASSERT_EQUAL(id.lbaf[0].ds, 12);
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

/* CNS 08h, I/O Command Set Independent Identify Namespace: ready (a Linux 6.x host that
 * reads it treats a namespace without NRDY as not ready), shared, its ANA group, no
 * reservations here, no volatile cache (RAM). */
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

/* CNS 08h of an NSID without an active namespace, 0 or FFFFFFFFh: Invalid Namespace or
 * Format (nvmet_req_find_ns). */
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

/* ---- Get Log Page ---- */

static void error_log_lists_failed_commands_newest_first(void)
{
	admin_setup();
	for (uint16_t i = 0; i < 3; i++) {
		struct nvme_sqe c = admin_mk(0xc0, 0, 0, 0);
		c.command_id = (uint16_t)(0x100 + i);
		CU_ASSERT_EQUAL(admin_cmd(c, NULL, 0, NULL), GEN(NVME_SC_INVALID_OPCODE));
	}
	struct nvme_error_log_page e[64];
	CU_ASSERT_EQUAL_FATAL(admin_get_log(NVME_LOG_LID_ERROR, 0, 0, e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(le64toh(e[0].error_count), 3);
	CU_ASSERT_EQUAL(e[0].cmdid, 0x102);
	CU_ASSERT_EQUAL(le16toh(e[0].sqid), 0);
	CU_ASSERT_EQUAL(le16toh(e[0].status_field), GEN(NVME_SC_INVALID_OPCODE) << 1);
	CU_ASSERT_EQUAL(le64toh(e[2].error_count), 1);
	CU_ASSERT_EQUAL(e[2].cmdid, 0x100);
	CU_ASSERT(admin_all_zero(&e[3], sizeof(e) - 3 * sizeof(e[0])));
	/* One entry at a non-zero offset: the second newest. */
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_ERROR, 0, 64, e, 64), 0);
	CU_ASSERT_EQUAL(le64toh(e[0].error_count), 2);
	CU_ASSERT_EQUAL(e[0].cmdid, 0x101);
	fx_teardown(&admin_fx);
}

static void error_log_keeps_the_newest_64_after_wrapping(void)
{
	admin_setup();
	for (int i = 0; i < 70; i++)
		CU_ASSERT_EQUAL(admin_cmd(admin_mk(0xc0, 0, 0, 0), NULL, 0, NULL),
				GEN(NVME_SC_INVALID_OPCODE));
	struct nvme_error_log_page e[64];
	CU_ASSERT_EQUAL_FATAL(admin_get_log(NVME_LOG_LID_ERROR, 0, 0, e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(le64toh(e[0].error_count), 70);
	CU_ASSERT_EQUAL(le64toh(e[63].error_count), 7);
	fx_teardown(&admin_fx);
}

static void smart_log_reports_controller_counters(void)
{
	admin_setup();
	admin_ctrl()->host_reads = 5;
	admin_ctrl()->host_writes = 7;
	admin_ctrl()->units_read = 11;
	admin_ctrl()->units_written = 13;
	struct nvme_smart_log s;
	CU_ASSERT_EQUAL_FATAL(admin_get_log(NVME_LOG_LID_SMART, NVME_NSID_ALL, 0, &s, sizeof(s)),
			      0);
	CU_ASSERT_EQUAL(s.critical_warning, 0);
	CU_ASSERT_EQUAL(s.temperature[0] | s.temperature[1] << 8, 323);
	CU_ASSERT_EQUAL(s.avail_spare, 100);
	CU_ASSERT_EQUAL(s.spare_thresh, 10);
	CU_ASSERT_EQUAL(s.host_reads[0], 5);
	CU_ASSERT_EQUAL(s.host_writes[0], 7);
	CU_ASSERT_EQUAL(s.data_units_read[0], 11);
	CU_ASSERT_EQUAL(s.data_units_written[0], 13);
	CU_ASSERT(admin_all_zero(s.host_reads + 1, 15));
	/* 16 bytes from offset 32: Data Units Read. */
	uint8_t w[16];
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_SMART, 0, 32, w, sizeof(w)), 0);
	CU_ASSERT_EQUAL(w[0], 11);
	CU_ASSERT(admin_all_zero(w + 1, 15));
	fx_teardown(&admin_fx);
}

static void smart_log_for_one_namespace_returns_invalid_field(void)
{
	admin_setup();
	struct nvme_smart_log s;
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_SMART, 1, 0, &s, sizeof(s)),
			GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&admin_fx);
}

static void firmware_slot_log_shows_slot_1_active(void)
{
	admin_setup();
	struct nvme_firmware_slot fw;
	CU_ASSERT_EQUAL_FATAL(admin_get_log(NVME_LOG_LID_FW_SLOT, 0, 0, &fw, sizeof(fw)), 0);
	CU_ASSERT_EQUAL(fw.afi, 1);
	CU_ASSERT_EQUAL(memcmp(fw.frs[0], "0.1     ", 8), 0);
	CU_ASSERT(admin_all_zero(fw.frs[1], sizeof(fw.frs) - 8));
	fx_teardown(&admin_fx);
}

static void effects_log_marks_implemented_commands(void)
{
	admin_setup();
	struct nvme_cmd_effects_log *l = malloc(sizeof(*l));
	CU_ASSERT_EQUAL_FATAL(admin_get_log(NVME_LOG_LID_CMD_EFFECTS, 0, 0, l, sizeof(*l)), 0);
	CU_ASSERT_EQUAL(le32toh(l->acs[nvme_admin_identify]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(le32toh(l->acs[nvme_admin_keep_alive]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(le32toh(l->acs[nvme_admin_ns_mgmt]), 0);
	CU_ASSERT_EQUAL(le32toh(l->iocs[nvme_cmd_read]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(le32toh(l->iocs[nvme_cmd_write]),
			NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	CU_ASSERT_EQUAL(le32toh(l->iocs[nvme_cmd_write_zeroes]),
			NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	CU_ASSERT_EQUAL(le32toh(l->iocs[nvme_cmd_verify]), 0);
	/* The I/O part alone, from its offset. */
	__le32 io[4];
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_CMD_EFFECTS, 0, 1024, io, sizeof(io)), 0);
	CU_ASSERT_EQUAL(le32toh(io[nvme_cmd_write]),
			NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	CU_ASSERT_EQUAL(le32toh(io[3]), 0);
	free(l);
	fx_teardown(&admin_fx);
}

static void get_log_past_the_end_returns_invalid_field(void)
{
	admin_setup();
	uint8_t b[8];
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_SMART, 0, 516, b, 4),
			GEN(NVME_SC_INVALID_FIELD));
	/* At the end exactly: nothing left, zeroes. */
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_SMART, 0, 512, b, 8), 0);
	CU_ASSERT(admin_all_zero(b, 8));
	fx_teardown(&admin_fx);
}

static void get_log_longer_than_the_log_is_zero_filled(void)
{
	admin_setup();
	uint8_t b[1024];
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_FW_SLOT, 0, 0, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(b[0], 1);
	CU_ASSERT(admin_all_zero(b + 512, 512));
	fx_teardown(&admin_fx);
}

static void get_log_with_unaligned_offset_returns_invalid_field(void)
{
	admin_setup();
	uint8_t b[4];
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_SMART, 0, 2, b, 4), GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&admin_fx);
}

static void get_log_beyond_mdts_returns_invalid_field(void)
{
	admin_setup();
	/* NUMD = 2^20 dwords = 4 MiB > 1 MiB (MDTS 8); no data needed: parse rejects. */
	struct nvme_sqe c =
		admin_mk(nvme_admin_get_log_page, 0, NVME_LOG_LID_ERROR | 0xffffu << 16, 0xf);
	CU_ASSERT_EQUAL(admin_cmd(c, NULL, 0, NULL), GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&admin_fx);
}

static void unknown_log_page_returns_invalid_log_page(void)
{
	admin_setup();
	uint8_t b[16];
	CU_ASSERT_EQUAL(admin_get_log(0x42, 0, 0, b, sizeof(b)), CSPEC(NVME_SC_INVALID_LOG_PAGE));
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_DISCOVER, 0, 0, b, sizeof(b)),
			CSPEC(NVME_SC_INVALID_LOG_PAGE));
	fx_teardown(&admin_fx);
}

/* ---- other commands ---- */

static void unknown_admin_opcode_returns_invalid_opcode_with_dnr(void)
{
	admin_setup();
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_ns_mgmt, 0, 0, 0), NULL, 0, &cqe),
			GEN(NVME_SC_INVALID_OPCODE));
	CU_ASSERT(le16toh(cqe.status) & 0x8000); /* DNR on the wire: status bit 15 */
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_format_nvm, 1, 0, 0), NULL, 0, NULL),
			GEN(NVME_SC_INVALID_OPCODE));
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_create_sq, 0, 0, 0), NULL, 0, NULL),
			GEN(NVME_SC_INVALID_OPCODE));
	fx_teardown(&admin_fx);
}

static void admin_command_before_cc_enable_returns_cmd_seq_error(void)
{
	CU_ASSERT_FATAL(fx_setup(&admin_fx) == 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&admin_fx.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff,
					 5000, &admin_fx.cntlid, NULL),
			      0);
	uint8_t b[4096];
	CU_ASSERT_EQUAL(admin_identify(NVME_IDENTIFY_CNS_CTRL, 0, b), GEN(NVME_SC_CMD_SEQ_ERROR));
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_keep_alive, 0, 0, 0), NULL, 0, NULL),
			GEN(NVME_SC_CMD_SEQ_ERROR));
	fx_teardown(&admin_fx);
}

static void abort_reports_command_not_aborted(void)
{
	admin_setup();
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL(
		admin_cmd(admin_mk(nvme_admin_abort_cmd, 0, 0x1234u << 16, 0), NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32) & 1, 1);
	fx_teardown(&admin_fx);
}

static void keep_alive_refreshes_the_timer(void)
{
	admin_setup();
	admin_fx.now += 4000;
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_keep_alive, 0, 0, 0), NULL, 0, NULL), 0);
	CU_ASSERT_EQUAL(admin_ctrl()->last_keep_alive_ms, admin_fx.now);
	fx_teardown(&admin_fx);
}

static void keep_alive_with_timer_disabled_returns_kat_invalid(void)
{
	admin_setup();
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_KATO, 0, NULL), 0);
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_keep_alive, 0, 0, 0), NULL, 0, NULL),
			GEN(NVME_SC_KAT_INVALID));
	fx_teardown(&admin_fx);
}

static void changed_namespace_log_with_rae_keeps_the_list(void)
{
	admin_setup();
	nvmf_tgt_ctrl_notify_ns_changed(admin_ctrl(), 2);
	__le32 list[4];
	struct nvme_sqe c = admin_mk(nvme_admin_get_log_page, 0,
				     NVME_LOG_LID_CHANGED_NS | 1u << 15 | 3u << 16, 0);
	CU_ASSERT_EQUAL(admin_cmd(c, list, sizeof(list), NULL), 0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 2);
	CU_ASSERT_EQUAL(admin_ctrl()->nr_changed_ns, 1);
	fx_teardown(&admin_fx);
}

const struct unit_test admin_cmd_tests[] = {
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
	{ "error_log_lists_failed_commands_newest_first",
	  error_log_lists_failed_commands_newest_first },
	{ "error_log_keeps_the_newest_64_after_wrapping",
	  error_log_keeps_the_newest_64_after_wrapping },
	{ "smart_log_reports_controller_counters", smart_log_reports_controller_counters },
	{ "smart_log_for_one_namespace_returns_invalid_field",
	  smart_log_for_one_namespace_returns_invalid_field },
	{ "firmware_slot_log_shows_slot_1_active", firmware_slot_log_shows_slot_1_active },
	{ "effects_log_marks_implemented_commands", effects_log_marks_implemented_commands },
	{ "get_log_past_the_end_returns_invalid_field",
	  get_log_past_the_end_returns_invalid_field },
	{ "get_log_longer_than_the_log_is_zero_filled",
	  get_log_longer_than_the_log_is_zero_filled },
	{ "get_log_with_unaligned_offset_returns_invalid_field",
	  get_log_with_unaligned_offset_returns_invalid_field },
	{ "get_log_beyond_mdts_returns_invalid_field", get_log_beyond_mdts_returns_invalid_field },
	{ "unknown_log_page_returns_invalid_log_page", unknown_log_page_returns_invalid_log_page },
	{ "unknown_admin_opcode_returns_invalid_opcode_with_dnr",
	  unknown_admin_opcode_returns_invalid_opcode_with_dnr },
	{ "admin_command_before_cc_enable_returns_cmd_seq_error",
	  admin_command_before_cc_enable_returns_cmd_seq_error },
	{ "abort_reports_command_not_aborted", abort_reports_command_not_aborted },
	{ "keep_alive_refreshes_the_timer", keep_alive_refreshes_the_timer },
	{ "keep_alive_with_timer_disabled_returns_kat_invalid",
	  keep_alive_with_timer_disabled_returns_kat_invalid },
	{ "changed_namespace_log_with_rae_keeps_the_list",
	  changed_namespace_log_with_rae_keeps_the_list },
	{ NULL, NULL },
};
