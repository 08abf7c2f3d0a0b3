/* libnvmf admin commands: namespace info, active namespace list, Get Log Page windows,
 * features - through the loop host transport. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

static struct lpf F;

static void setup(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
}

static void ns_info_reports_size_block_size_and_uuid(void)
{
	setup();
	struct nvmf_ns_info info;
	CU_ASSERT_EQUAL_FATAL(nvmf_ns_info(F.ctrl, 1, &info), 0);
	CU_ASSERT_EQUAL(info.nsid, 1);
	CU_ASSERT_EQUAL(info.block_size, 512);
	CU_ASSERT_EQUAL(info.nsze, (16u << 20) / 512);
	CU_ASSERT_EQUAL(info.uuid[0], 0x10); /* loop_host: uuid[k] = 0x10 * nsid + k */
	CU_ASSERT_EQUAL(info.uuid[15], 0x1f);
	CU_ASSERT_EQUAL_FATAL(nvmf_ns_info(F.ctrl, 2, &info), 0);
	CU_ASSERT_EQUAL(info.block_size, 4096);
	CU_ASSERT_EQUAL(info.nsze, (1u << 20) / 4096);
	CU_ASSERT_EQUAL(info.uuid[0], 0x20);
	lpf_teardown(&F);
}

static void ns_info_of_inactive_namespace_returns_invalid_ns(void)
{
	setup();
	struct nvmf_ns_info info;
	int rc = nvmf_ns_info(F.ctrl, 5, &info);
	CU_ASSERT_EQUAL(rc & 0x7ff, NVME_SC_INVALID_NS);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_strerror(rc), "INVALID_NS"));
	CU_ASSERT_EQUAL(nvmf_ns_info(F.ctrl, 0, &info), -EINVAL);
	lpf_teardown(&F);
}

static void active_ns_lists_active_nsids_ascending(void)
{
	setup();
	uint32_t ids[8];
	size_t n = 0;
	CU_ASSERT_EQUAL(nvmf_active_ns(F.ctrl, ids, 8, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(ids[0], 1);
	CU_ASSERT_EQUAL(ids[1], 2);
	CU_ASSERT_EQUAL(nvmf_active_ns(F.ctrl, ids, 1, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	lpf_teardown(&F);
}

static void get_log_page_at_an_offset_returns_that_window(void)
{
	setup();
	/* Put two entries into the Error Information log (64 B each): reads past the end. */
	uint8_t blk[512];
	CU_ASSERT_NOT_EQUAL(nvmf_read(F.ctrl, 1, 1u << 30, 1, blk), 0);
	CU_ASSERT_NOT_EQUAL(nvmf_read(F.ctrl, 1, 1u << 31, 1, blk), 0);
	uint8_t whole[4096], part[128];
	CU_ASSERT_EQUAL_FATAL(nvmf_get_log_page(F.ctrl, NVME_LOG_LID_ERROR, 0xffffffff, 0, whole,
						sizeof(whole)),
			      0);
	CU_ASSERT_EQUAL_FATAL(nvmf_get_log_page(F.ctrl, NVME_LOG_LID_ERROR, 0xffffffff, 64, part,
						sizeof(part)),
			      0);
	CU_ASSERT_EQUAL(memcmp(whole + 64, part, sizeof(part)), 0);
	/* The entries are there: error counts 2 and 1 (newest first). */
	uint64_t c0, c1;
	memcpy(&c0, whole, 8);
	memcpy(&c1, part, 8);
	CU_ASSERT_EQUAL(le64toh(c0), 2);
	CU_ASSERT_EQUAL(le64toh(c1), 1);
	/* LPO and NUMD are dword based. */
	CU_ASSERT_EQUAL(nvmf_get_log_page(F.ctrl, NVME_LOG_LID_ERROR, 0, 2, part, 64), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_get_log_page(F.ctrl, NVME_LOG_LID_ERROR, 0, 0, part, 63), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_ctrl_errmsg(F.ctrl), "multiples of 4"));
	lpf_teardown(&F);
}

static void features_round_trip(void)
{
	setup();
	uint32_t v = 0;
	CU_ASSERT_EQUAL(nvmf_get_features(F.ctrl, NVME_FEAT_FID_KATO, 0, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 5000); /* the default KATO */
	CU_ASSERT_EQUAL(nvmf_set_features(F.ctrl, NVME_FEAT_FID_KATO, 0, 3000, NULL), 0);
	CU_ASSERT_EQUAL(nvmf_get_features(F.ctrl, NVME_FEAT_FID_KATO, 0, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 3000);
	/* RAM namespaces have no volatile cache to switch. */
	int wc = nvmf_set_features(F.ctrl, NVME_FEAT_FID_VOLATILE_WC, 0, 0, NULL);
	CU_ASSERT_EQUAL(wc & 0x7ff, NVME_SC_INVALID_FIELD);
	int rc = nvmf_get_features(F.ctrl, 0x7e, 0, 0, &v);
	CU_ASSERT_EQUAL(rc & 0x7ff, NVME_SC_INVALID_FIELD);
	lpf_teardown(&F);
}

static void identify_controller_is_kept_in_wire_format(void)
{
	setup();
	const struct nvme_id_ctrl *id = nvmf_ctrl_id(F.ctrl);
	CU_ASSERT_EQUAL(id->cntrltype, NVME_CTRL_CNTRLTYPE_IO);
	CU_ASSERT_NOT_EQUAL(le32toh(id->sgls) & NVME_CTRL_SGLS_KEYED, 0);
	CU_ASSERT_EQUAL(strncmp(id->subnqn, LH_SUBNQN, strlen(LH_SUBNQN)), 0);
	uint8_t raw[4096];
	CU_ASSERT_EQUAL(nvmf_identify(F.ctrl, NVME_IDENTIFY_CNS_CTRL, 0, raw), 0);
	CU_ASSERT_EQUAL(memcmp(raw, id, 4096), 0);
	lpf_teardown(&F);
}

const struct unit_test initiator_admin_tests[] = {
	{ "ns_info_reports_size_block_size_and_uuid", ns_info_reports_size_block_size_and_uuid },
	{ "ns_info_of_inactive_namespace_returns_invalid_ns",
	  ns_info_of_inactive_namespace_returns_invalid_ns },
	{ "active_ns_lists_active_nsids_ascending", active_ns_lists_active_nsids_ascending },
	{ "get_log_page_at_an_offset_returns_that_window",
	  get_log_page_at_an_offset_returns_that_window },
	{ "features_round_trip", features_round_trip },
	{ "identify_controller_is_kept_in_wire_format",
	  identify_controller_is_kept_in_wire_format },
	{ NULL, NULL },
};
