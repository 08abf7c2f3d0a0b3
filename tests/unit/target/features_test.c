/* Set / Get Features of an NVM subsystem controller (target/features.c) through the loop
 * transport: Arbitration, Power Management, Temperature Threshold, Error Recovery, Number
 * of Queues, Write Atomicity Normal, Keep Alive Timer, Asynchronous Event Configuration,
 * Volatile Write Cache, Host Identifier, and what is refused (save, unknown features,
 * the interrupt features a fabric has not, SEL). */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/admin_fixture.h"

static void number_of_queues_grant_is_capped_by_qid_max(void)
{
	admin_setup();
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_NUM_QUEUES, 63 | 63u << 16, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 3 | 3u << 16); /* fixture qid_max 4 */
	CU_ASSERT_EQUAL(admin_ctrl()->nr_io_queues, 4);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_NUM_QUEUES, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 3 | 3u << 16);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_NUM_QUEUES, 1 | 1u << 16, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 1 | 1u << 16);
	CU_ASSERT_EQUAL(admin_ctrl()->nr_io_queues, 2);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_NUM_QUEUES, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 1 | 1u << 16);
	fx_teardown(&admin_fx);
}

static void number_of_queues_ffff_returns_invalid_field(void)
{
	admin_setup();
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_NUM_QUEUES, 0xffff, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_NUM_QUEUES, 0xffffu << 16, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&admin_fx);
}

static void number_of_queues_after_an_io_queue_exists_returns_cmd_seq_error(void)
{
	admin_setup();
	struct fxq io;
	fx_queue_init(&admin_fx, &io);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&io, 1, 31, FX_SUBNQN, FX_HOSTNQN, admin_fx.cntlid, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_NUM_QUEUES, 0, NULL),
			GEN(NVME_SC_CMD_SEQ_ERROR));
	fx_disconnect(&io);
	fx_teardown(&admin_fx);
}

static void keep_alive_timer_feature_round_trips_in_whole_seconds(void)
{
	admin_setup();
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_KATO, 2500, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_KATO, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 3000);
	CU_ASSERT_EQUAL(admin_ctrl()->kato_ms, 3000);
	fx_teardown(&admin_fx);
}

static void async_event_config_round_trips_and_rejects_unsupported_bits(void)
{
	admin_setup();
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_ASYNC_EVENT, 1u << 8, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_ASYNC_EVENT, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 1u << 8);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_ASYNC_EVENT, 1u << 9, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_ctrl()->aen_cfg, 1u << 8);
	fx_teardown(&admin_fx);
}

static void volatile_write_cache_feature_needs_a_cache(void)
{
	admin_setup();
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_VOLATILE_WC, 1, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	admin_ctrl()->subsys->ns[1]->bdev->volatile_cache = true;
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_VOLATILE_WC, 1, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_VOLATILE_WC, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 1);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_VOLATILE_WC, 0, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_VOLATILE_WC, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	admin_ctrl()->subsys->ns[1]->bdev->volatile_cache = false;
	fx_teardown(&admin_fx);
}

static void host_identifier_reads_the_connect_hostid_and_cannot_be_set(void)
{
	admin_setup();
	uint8_t hid[16];
	memset(hid, 0, sizeof(hid));
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_get_features, 0, NVME_FEAT_FID_HOST_ID, 1),
				  hid, 16, NULL),
			0);
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(hid[i], 0xa0 + i); /* what fx_connect sends */
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_get_features, 0, NVME_FEAT_FID_HOST_ID, 0),
				  hid, 16, NULL),
			GEN(NVME_SC_INVALID_FIELD)); /* EXHID clear: 64-bit ID unsupported */
	CU_ASSERT_EQUAL(admin_cmd(admin_mk(nvme_admin_set_features, 0, NVME_FEAT_FID_HOST_ID, 1),
				  hid, 16, NULL),
			GEN(NVME_SC_CMD_SEQ_ERROR));
	fx_teardown(&admin_fx);
}

static void set_features_with_save_returns_feature_not_saveable(void)
{
	admin_setup();
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_KATO | 1u << 31, 1000, NULL),
			CSPEC(NVME_SC_FEATURE_NOT_SAVEABLE));
	fx_teardown(&admin_fx);
}

/* A feature this target does not have, and the interrupt features, which do not apply to
 * a fabric (no interrupts; nvmet answers the same). */
static void unknown_feature_returns_invalid_field(void)
{
	admin_setup();
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_LBA_RANGE, 0, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TIMESTAMP, 0, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_IRQ_COALESCE, 0, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_IRQ_COALESCE, 0, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_IRQ_CONFIG, 0, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&admin_fx);
}

/* 01h: AB 111b (no limit) at first; what the host sets reads back, reserved bits 7:3
 * dropped. */
static void arbitration_reads_back_what_was_set(void)
{
	admin_setup();
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_ARBITRATION, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 7);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_ARBITRATION, 0x112233fa, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_ARBITRATION, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0x11223302);
	fx_teardown(&admin_fx);
}

/* 02h: one power state (NPSS 0), no workload hints: 0 reads and sets, anything else is
 * Invalid Field and changes nothing. */
static void power_management_has_only_power_state_zero(void)
{
	admin_setup();
	uint32_t dw0 = 0xffffffff;
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_POWER_MGMT, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_POWER_MGMT, 0, NULL), 0);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_POWER_MGMT, 1, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_POWER_MGMT, 1u << 5, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_POWER_MGMT, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	fx_teardown(&admin_fx);
}

#define THSEL_UNDER (1u << 20)

/* The SMART log's critical warning byte. */
static uint8_t smart_critical_warning(void)
{
	struct nvme_smart_log log;
	CU_ASSERT_EQUAL(admin_get_log(NVME_LOG_LID_SMART, NVME_NSID_ALL, 0, &log, sizeof(log)), 0);
	return log.critical_warning;
}

/* 04h: the Composite Temperature's over threshold is WCTEMP (343 K) and its under
 * threshold 0 K at first; each reads back as set, in dword 0 with its TMPSEL/THSEL; a
 * threshold the temperature (323 K) crosses raises the SMART temperature warning.
 * Another sensor, or a reserved THSEL, is Invalid Field; TMPSEL Fh sets every sensor,
 * the Composite here. */
static void temperature_threshold_round_trips_and_warns_when_crossed(void)
{
	admin_setup();
	uint32_t dw0 = 0;
	uint8_t id[4096];
	CU_ASSERT_EQUAL_FATAL(admin_identify(NVME_IDENTIFY_CNS_CTRL, 0, id), 0);
	CU_ASSERT_EQUAL(le16toh(((struct nvme_id_ctrl *)id)->wctemp), 343);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TEMP_THRESH, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 343);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TEMP_THRESH, THSEL_UNDER, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, THSEL_UNDER | 0);
	CU_ASSERT_EQUAL(smart_critical_warning(), 0);

	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_TEMP_THRESH, 300, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TEMP_THRESH, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 300);
	CU_ASSERT_EQUAL(smart_critical_warning(), NVME_SMART_CRIT_TEMPERATURE);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_TEMP_THRESH, 0xfu << 16 | 350, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TEMP_THRESH, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 350);
	CU_ASSERT_EQUAL(smart_critical_warning(), 0);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_TEMP_THRESH, THSEL_UNDER | 330, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TEMP_THRESH, THSEL_UNDER, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, THSEL_UNDER | 330);
	CU_ASSERT_EQUAL(smart_critical_warning(), NVME_SMART_CRIT_TEMPERATURE);

	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TEMP_THRESH, 1u << 16, NULL),
			GEN(NVME_SC_INVALID_FIELD)); /* sensor 1: none */
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TEMP_THRESH, 0xfu << 16, NULL),
			GEN(NVME_SC_INVALID_FIELD)); /* "all sensors": a Set's only */
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_TEMP_THRESH, 2u << 20 | 300, NULL),
			GEN(NVME_SC_INVALID_FIELD)); /* THSEL 10b reserved */
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_TEMP_THRESH, 8u << 16 | 300, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_TEMP_THRESH, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 350);
	fx_teardown(&admin_fx);
}

/* 05h: TLER 0 at first, reads back as set with NSID 0 (SPDK's identify asks so) or an
 * active NSID; DULBE needs NSFEAT bit 2, which no namespace reports: Invalid Field. */
static void error_recovery_reads_back_and_refuses_dulbe(void)
{
	admin_setup();
	uint32_t dw0 = 0xffffffff;
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_ERR_RECOVERY, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_ERR_RECOVERY, 30, NULL), 0);
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL(
		admin_cmd(admin_mk(nvme_admin_get_features, 1, NVME_FEAT_FID_ERR_RECOVERY, 0), NULL,
			  0, &cqe),
		0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32), 30);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_ERR_RECOVERY, 1u << 16 | 5, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_ERR_RECOVERY, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 30);
	fx_teardown(&admin_fx);
}

/* 0Ah: DN 0 at first, reads back as set. */
static void write_atomicity_normal_reads_back_what_was_set(void)
{
	admin_setup();
	uint32_t dw0 = 0xffffffff;
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_WRITE_ATOMIC, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_WRITE_ATOMIC, 1, NULL), 0);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_WRITE_ATOMIC, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 1);
	fx_teardown(&admin_fx);
}

static void get_features_select_supported_reports_changeable(void)
{
	admin_setup();
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_KATO | 3u << 8, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 1u << 2);
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_KATO | 4u << 8, 0, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	fx_teardown(&admin_fx);
}

const struct unit_test features_tests[] = {
	{ "number_of_queues_grant_is_capped_by_qid_max",
	  number_of_queues_grant_is_capped_by_qid_max },
	{ "number_of_queues_ffff_returns_invalid_field",
	  number_of_queues_ffff_returns_invalid_field },
	{ "number_of_queues_after_an_io_queue_exists_returns_cmd_seq_error",
	  number_of_queues_after_an_io_queue_exists_returns_cmd_seq_error },
	{ "keep_alive_timer_feature_round_trips_in_whole_seconds",
	  keep_alive_timer_feature_round_trips_in_whole_seconds },
	{ "async_event_config_round_trips_and_rejects_unsupported_bits",
	  async_event_config_round_trips_and_rejects_unsupported_bits },
	{ "volatile_write_cache_feature_needs_a_cache",
	  volatile_write_cache_feature_needs_a_cache },
	{ "host_identifier_reads_the_connect_hostid_and_cannot_be_set",
	  host_identifier_reads_the_connect_hostid_and_cannot_be_set },
	{ "set_features_with_save_returns_feature_not_saveable",
	  set_features_with_save_returns_feature_not_saveable },
	{ "unknown_feature_returns_invalid_field", unknown_feature_returns_invalid_field },
	{ "arbitration_reads_back_what_was_set", arbitration_reads_back_what_was_set },
	{ "power_management_has_only_power_state_zero",
	  power_management_has_only_power_state_zero },
	{ "temperature_threshold_round_trips_and_warns_when_crossed",
	  temperature_threshold_round_trips_and_warns_when_crossed },
	{ "error_recovery_reads_back_and_refuses_dulbe",
	  error_recovery_reads_back_and_refuses_dulbe },
	{ "write_atomicity_normal_reads_back_what_was_set",
	  write_atomicity_normal_reads_back_what_was_set },
	{ "get_features_select_supported_reports_changeable",
	  get_features_select_supported_reports_changeable },
	{ NULL, NULL },
};
