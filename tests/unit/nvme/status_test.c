/* Status names, formatting and the errno mapping. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "nvme/status.h"
#include "tests/unit/suites.h"

static void generic_statuses_have_their_short_names(void)
{
	static const struct {
		nvme_status_t st;
		const char *name;
	} cases[] = {
		{ 0x000, "SUCCESS" },          { 0x001, "INVALID_OPCODE" },
		{ 0x002, "INVALID_FIELD" },    { 0x006, "INTERNAL" },
		{ 0x007, "ABORT_REQ" },        { 0x00b, "INVALID_NS" },
		{ 0x00c, "CMD_SEQ_ERROR" },    { 0x00f, "DATA_SGL_LEN_INVALID" },
		{ 0x011, "SGL_INVALID_TYPE" }, { 0x016, "SGL_INVALID_OFFSET" },
		{ 0x080, "LBA_RANGE" },        { 0x081, "CAP_EXCEEDED" },
		{ 0x082, "NS_NOT_READY" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CU_ASSERT_STRING_EQUAL(nvme_status_name(cases[i].st, false), cases[i].name);
		CU_ASSERT_STRING_EQUAL(nvme_status_name(cases[i].st, true), cases[i].name);
	}
}

static void command_specific_and_media_statuses_have_their_names(void)
{
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x101, false), "INVALID_QID");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x102, false), "INVALID_QUEUE_SIZE");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x109, false), "INVALID_LOG_PAGE");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x10d, false), "FEATURE_NOT_SAVEABLE");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x280, false), "WRITE_FAULT");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x281, false), "UNRECOVERED_READ_ERROR");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x285, false), "COMPARE_FAILED");
}

static void fabrics_hint_picks_connect_names_for_codes_80h_to_84h(void)
{
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x180, true), "CONNECT_FORMAT");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x181, true), "CONNECT_CTRL_BUSY");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x182, true), "CONNECT_INVALID_PARAM");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x183, true), "CONNECT_RESTART_DISC");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x184, true), "CONNECT_INVALID_HOST");
	/* The same codes from an NVM command mean something else. */
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x180, false), "CONFLICTING_ATTRIBUTES");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x182, false), "WRITE_TO_READ_ONLY_RANGE");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x184, false), "UNKNOWN");
}

static void dnr_more_and_crd_bits_do_not_change_the_name(void)
{
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x002 | NVME_SC_DNR, false), "INVALID_FIELD");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x182 | NVME_SC_DNR | NVME_SC_MORE, true),
			       "CONNECT_INVALID_PARAM");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x080 | NVME_SC_CRD, false), "LBA_RANGE");
}

static void unnamed_codes_are_unknown(void)
{
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x0ff, false), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x199, true), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(nvme_status_name(0x7ff, true), "UNKNOWN");
}

static void format_shows_name_and_flag_bits(void)
{
	char buf[NVME_STATUS_STR_MAX];

	CU_ASSERT_STRING_EQUAL(nvme_status_format(0x002, false, buf, sizeof(buf)), "INVALID_FIELD");
	CU_ASSERT_STRING_EQUAL(nvme_status_format(0x4002, false, buf, sizeof(buf)),
			       "INVALID_FIELD|DNR");
	CU_ASSERT_STRING_EQUAL(nvme_status_format(0x6182, true, buf, sizeof(buf)),
			       "CONNECT_INVALID_PARAM|DNR|MORE");
}

static void format_shows_sct_and_sc_of_unknown_codes(void)
{
	char buf[NVME_STATUS_STR_MAX];

	CU_ASSERT_STRING_EQUAL(nvme_status_format(0x199, true, buf, sizeof(buf)),
			       "UNKNOWN(sct=0x1,sc=0x99)");
	CU_ASSERT_STRING_EQUAL(nvme_status_format(0x77ff, true, buf, sizeof(buf)),
			       "UNKNOWN(sct=0x7,sc=0xff)|DNR|MORE");
	CU_ASSERT_TRUE(strlen(buf) < NVME_STATUS_STR_MAX);
}

static void format_truncates_to_the_buffer(void)
{
	char buf[6];

	nvme_status_format(0x002, false, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "INVAL");
}

static void eio_maps_to_media_errors_by_direction(void)
{
	CU_ASSERT_EQUAL(nvme_status_from_errno(-EIO, false), 0x281);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-EIO, true), 0x280);
}

static void enospc_einval_eopnotsupp_erofs_map_with_dnr(void)
{
	CU_ASSERT_EQUAL(nvme_status_from_errno(-ENOSPC, true), 0x081 | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-EINVAL, false), 0x002 | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-EOPNOTSUPP, true), 0x001 | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-EROFS, true), 0x020 | NVME_SC_DNR);
	/* Ceph's EBLOCKLISTED (ESHUTDOWN, 108): this path is fenced off, another may serve:
	 * Asymmetric Access Inaccessible (SCT 3h, 02h), no DNR, so the host retries there. */
	CU_ASSERT_EQUAL(nvme_status_from_errno(-ESHUTDOWN, true), 0x302);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-108, false), 0x302);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-ETIMEDOUT, false), 0x006); /* as before */
}

/* A write past the file size limit: a write fault the host should not retry, never
 * Capacity Exceeded or LBA Out of Range (the namespace is neither full nor overrun). */
static void efbig_maps_to_write_fault_with_dnr(void)
{
	CU_ASSERT_EQUAL(nvme_status_from_errno(-EFBIG, true), 0x280 | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-EFBIG, false), 0x006 | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvme_status_from_errno(EFBIG, true), 0x280 | NVME_SC_DNR);
}

static void other_errors_map_to_internal_and_zero_to_success(void)
{
	CU_ASSERT_EQUAL(nvme_status_from_errno(0, true), 0);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-ENOMEM, false), 0x006);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-EBADF, true), 0x006);
	CU_ASSERT_EQUAL(nvme_status_from_errno(-12345, true), 0x006);
}

static void positive_errno_reads_as_negative(void)
{
	CU_ASSERT_EQUAL(nvme_status_from_errno(EIO, true), nvme_status_from_errno(-EIO, true));
	CU_ASSERT_EQUAL(nvme_status_from_errno(ENOSPC, true), 0x081 | NVME_SC_DNR);
}

const struct unit_test nvme_status_tests[] = {
	{ "generic_statuses_have_their_short_names", generic_statuses_have_their_short_names },
	{ "command_specific_and_media_statuses_have_their_names",
	  command_specific_and_media_statuses_have_their_names },
	{ "fabrics_hint_picks_connect_names_for_codes_80h_to_84h",
	  fabrics_hint_picks_connect_names_for_codes_80h_to_84h },
	{ "dnr_more_and_crd_bits_do_not_change_the_name",
	  dnr_more_and_crd_bits_do_not_change_the_name },
	{ "unnamed_codes_are_unknown", unnamed_codes_are_unknown },
	{ "format_shows_name_and_flag_bits", format_shows_name_and_flag_bits },
	{ "format_shows_sct_and_sc_of_unknown_codes", format_shows_sct_and_sc_of_unknown_codes },
	{ "format_truncates_to_the_buffer", format_truncates_to_the_buffer },
	{ "eio_maps_to_media_errors_by_direction", eio_maps_to_media_errors_by_direction },
	{ "enospc_einval_eopnotsupp_erofs_map_with_dnr",
	  enospc_einval_eopnotsupp_erofs_map_with_dnr },
	{ "efbig_maps_to_write_fault_with_dnr", efbig_maps_to_write_fault_with_dnr },
	{ "other_errors_map_to_internal_and_zero_to_success",
	  other_errors_map_to_internal_and_zero_to_success },
	{ "positive_errno_reads_as_negative", positive_errno_reads_as_negative },
	{ NULL, NULL },
};
