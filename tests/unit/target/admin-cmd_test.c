/* Admin commands of an NVM subsystem controller through the loop transport: Get Log
 * Page, Keep Alive, Abort, and what is refused (AERs: target/aen, Set/Get Features:
 * target/features, Identify: target/identify). */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/admin_fixture.h"

/* CNS 08h, I/O Command Set Independent Identify Namespace: ready (a Linux 6.x host that
 * reads it treats a namespace without NRDY as not ready), shared, its ANA group, no
 * reservations here, no volatile cache (RAM). */
/* CNS 08h of an NSID without an active namespace, 0 or FFFFFFFFh: Invalid Namespace or
 * Format (nvmet_req_find_ns). */
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
	/* As counted by queues that are gone. */
	admin_ctrl()->io_done.host_reads = 5;
	admin_ctrl()->io_done.host_writes = 7;
	admin_ctrl()->io_done.units_read = 11;      /* 512 B units: 1 thousand, rounded up */
	admin_ctrl()->io_done.units_written = 2001; /* 3 thousands, rounded up */
	struct nvme_smart_log s;
	CU_ASSERT_EQUAL_FATAL(admin_get_log(NVME_LOG_LID_SMART, NVME_NSID_ALL, 0, &s, sizeof(s)),
			      0);
	CU_ASSERT_EQUAL(s.critical_warning, 0);
	CU_ASSERT_EQUAL(s.temperature[0] | s.temperature[1] << 8, 323);
	CU_ASSERT_EQUAL(s.avail_spare, 100);
	CU_ASSERT_EQUAL(s.spare_thresh, 10);
	CU_ASSERT_EQUAL(s.host_reads[0], 5);
	CU_ASSERT_EQUAL(s.host_writes[0], 7);
	CU_ASSERT_EQUAL(s.data_units_read[0], 1);
	CU_ASSERT_EQUAL(s.data_units_written[0], 3);
	CU_ASSERT(admin_all_zero(s.host_reads + 1, 15));
	/* 16 bytes from offset 32: Data Units Read. */
	uint8_t w[16];
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_SMART, 0, 32, w, sizeof(w)), 0);
	CU_ASSERT_EQUAL(w[0], 1);
	CU_ASSERT(admin_all_zero(w + 1, 15));
	fx_teardown(&admin_fx);
}

/* Data Units Read / Written of the SMART log (bytes 47:32, 63:48) after a host read and
 * wrote known sizes on namespace 1 (512 B blocks): "in thousands of 512-byte units,
 * rounded up" (NVMe Base 2.x, SMART / Health Information log). */
static uint64_t smart_units(bool written)
{
	struct nvme_smart_log s;
	CU_ASSERT_EQUAL_FATAL(admin_get_log(NVME_LOG_LID_SMART, NVME_NSID_ALL, 0, &s, sizeof(s)),
			      0);
	const uint8_t *f = written ? s.data_units_written : s.data_units_read;
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | f[i];
	CU_ASSERT(admin_all_zero(f + 8, 8));
	return v;
}

/* @nlb blocks of 512 B from LBA @slba of namespace 1, 128 at a time (64 KiB commands). */
static void move_blocks(struct fxq *q, uint8_t opcode, uint32_t slba, uint32_t nlb)
{
	static uint8_t buf[128 * 512];
	while (nlb) {
		uint32_t n = nlb > 128 ? 128 : nlb;
		struct nvme_sqe c = admin_mk(opcode, 1, slba, 0);
		c.cdw12 = htole32(n - 1);
		CU_ASSERT_EQUAL_FATAL(fx_cmd(q, &c, buf, n * 512, NULL), 0);
		slba += n;
		nlb -= n;
	}
}

static void smart_data_units_are_thousands_of_512_byte_units_rounded_up(void)
{
	admin_setup();
	struct fxq q;
	fx_queue_init(&admin_fx, &q);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&q, 1, 31, FX_SUBNQN, FX_HOSTNQN, admin_fx.cntlid, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL(smart_units(false), 0); /* nothing moved: 0 */
	CU_ASSERT_EQUAL(smart_units(true), 0);
	move_blocks(&q, nvme_cmd_write, 0, 1); /* one 512 B unit: 1 */
	CU_ASSERT_EQUAL(smart_units(true), 1);
	move_blocks(&q, nvme_cmd_write, 1, 999); /* 1000 units: still 1 */
	CU_ASSERT_EQUAL(smart_units(true), 1);
	move_blocks(&q, nvme_cmd_write, 1000, 1); /* 1001: 2 */
	CU_ASSERT_EQUAL(smart_units(true), 2);
	move_blocks(&q, nvme_cmd_write, 1001, 1047); /* 2048 units, 1 MiB in all: 3 */
	CU_ASSERT_EQUAL(smart_units(true), 3);
	move_blocks(&q, nvme_cmd_read, 0, 1024); /* 512 KiB read: 1024 units, 2 */
	CU_ASSERT_EQUAL(smart_units(false), 2);
	CU_ASSERT_EQUAL(smart_units(true), 3);
	fx_teardown(&admin_fx);
}

/* The SMART log's Host Write Commands (bytes 95:80, the low 8 here). */
static uint64_t smart_host_writes(void)
{
	struct nvme_smart_log s;
	CU_ASSERT_EQUAL_FATAL(admin_get_log(NVME_LOG_LID_SMART, NVME_NSID_ALL, 0, &s, sizeof(s)),
			      0);
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | s.host_writes[i];
	return v;
}

/* Each queue counts its own commands; the log sums the controller's queues, and a
 * queue's counts stay in the sum after it is gone. */
static void smart_counters_sum_queues_and_outlive_them(void)
{
	admin_setup();
	struct fxq q1, q2;
	fx_queue_init(&admin_fx, &q1);
	fx_queue_init(&admin_fx, &q2);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&q1, 1, 31, FX_SUBNQN, FX_HOSTNQN, admin_fx.cntlid, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&q2, 2, 31, FX_SUBNQN, FX_HOSTNQN, admin_fx.cntlid, 0, NULL, NULL), 0);
	move_blocks(&q1, nvme_cmd_write, 0, 256); /* two commands */
	move_blocks(&q2, nvme_cmd_write, 0, 128); /* one */
	CU_ASSERT_EQUAL(smart_host_writes(), 3);
	CU_ASSERT_EQUAL(smart_units(true), 1); /* 384 units */
	fx_disconnect(&q1);
	/* Its detach reaches the controller while the admin queue's commands run. */
	CU_ASSERT_EQUAL(smart_host_writes(), 3);
	CU_ASSERT_EQUAL(smart_host_writes(), 3);
	move_blocks(&q2, nvme_cmd_write, 0, 1);
	CU_ASSERT_EQUAL(smart_host_writes(), 4);
	CU_ASSERT_EQUAL(admin_ctrl()->io_done.host_writes, 2); /* q1's, folded in */
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
	CU_ASSERT_EQUAL(le32toh(l->iocs[nvme_cmd_verify]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(le32toh(l->iocs[nvme_cmd_copy]),
			NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC);
	CU_ASSERT_EQUAL(le32toh(l->iocs[nvme_cmd_write_uncor]), 0);
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
	{ "error_log_lists_failed_commands_newest_first",
	  error_log_lists_failed_commands_newest_first },
	{ "error_log_keeps_the_newest_64_after_wrapping",
	  error_log_keeps_the_newest_64_after_wrapping },
	{ "smart_log_reports_controller_counters", smart_log_reports_controller_counters },
	{ "smart_data_units_are_thousands_of_512_byte_units_rounded_up",
	  smart_data_units_are_thousands_of_512_byte_units_rounded_up },
	{ "smart_counters_sum_queues_and_outlive_them",
	  smart_counters_sum_queues_and_outlive_them },
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
