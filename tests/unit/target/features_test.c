/* Set / Get Features of an NVM subsystem controller (target/features.c) through the loop
 * transport: Number of Queues, Keep Alive Timer, Asynchronous Event Configuration, Volatile
 * Write Cache, Host Identifier, and what is refused (save, unknown features, SEL). */
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

static void unknown_feature_returns_invalid_field(void)
{
	admin_setup();
	CU_ASSERT_EQUAL(admin_set_feat(NVME_FEAT_FID_POWER_MGMT, 0, NULL),
			GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(admin_get_feat(NVME_FEAT_FID_ARBITRATION, 0, NULL),
			GEN(NVME_SC_INVALID_FIELD));
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
	{ "get_features_select_supported_reports_changeable",
	  get_features_select_supported_reports_changeable },
	{ NULL, NULL },
};
