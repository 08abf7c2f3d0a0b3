/* libnvmf error text and host identity defaults (initiator/errors.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "tests/unit/suites.h"

static void strerror_names_connect_invalid_param_with_codes_and_dnr(void)
{
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(0x4182),
			       "CONNECT_INVALID_PARAM (sct 0x1, sc 0x82, DNR)");
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(0x4184),
			       "CONNECT_INVALID_HOST (sct 0x1, sc 0x84, DNR)");
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(0x0080), "LBA_RANGE (sct 0x0, sc 0x80)");
}

/* 80h-85h of SCT 1 are Connect's for nvmf_strerror and the NVM commands' for
 * nvmf_io_strerror: a Copy past MCL is not "restart discovery". */
static void io_strerror_reads_command_specific_codes_as_nvm_commands(void)
{
	CU_ASSERT_STRING_EQUAL(nvmf_io_strerror(0x4183),
			       "CMD_SIZE_LIMIT_EXCEEDED (sct 0x1, sc 0x83, DNR)");
	CU_ASSERT_STRING_EQUAL(nvmf_io_strerror(0x4182),
			       "WRITE_TO_READ_ONLY_RANGE (sct 0x1, sc 0x82, DNR)");
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(0x4183),
			       "CONNECT_RESTART_DISC (sct 0x1, sc 0x83, DNR)");
	CU_ASSERT_STRING_EQUAL(nvmf_io_strerror(0x0285), "COMPARE_FAILED (sct 0x2, sc 0x85)");
	CU_ASSERT_STRING_EQUAL(nvmf_io_strerror(0), "success");
}

static void strerror_of_unnamed_status_keeps_the_values(void)
{
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(0x01ee), "unknown status (sct 0x1, sc 0xee)");
}

static void strerror_of_negative_errno_is_the_errno_text(void)
{
	char want[128];
	snprintf(want, sizeof(want), "%s", strerror(ECONNRESET));
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(-ECONNRESET), want);
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(0), "success");
}

/* A scratch directory standing in for /etc/nvme. */
static char dir[64];

static void mkdir_scratch(void)
{
	snprintf(dir, sizeof(dir), "/tmp/nvmf-hostid-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
}

static void put(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void rm_scratch(void)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/hostnqn", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/hostid", dir);
	unlink(p);
	rmdir(dir);
}

static void host_identity_comes_from_hostnqn_and_hostid_files(void)
{
	mkdir_scratch();
	put("hostnqn", "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555\n");
	put("hostid", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\n");
	char nqn[NVMFH_NQN_FIELD], err[128];
	uint8_t id[16];
	CU_ASSERT_EQUAL(nvmfh_host_identity(dir, NULL, NULL, nqn, id, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(
		nqn, "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555");
	CU_ASSERT_EQUAL(id[0], 0xaa);
	CU_ASSERT_EQUAL(id[15], 0xee);
	rm_scratch();
}

static void host_id_is_taken_from_a_uuid_hostnqn_without_hostid_file(void)
{
	mkdir_scratch();
	put("hostnqn", "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555");
	char nqn[NVMFH_NQN_FIELD], err[128];
	uint8_t id[16];
	CU_ASSERT_EQUAL(nvmfh_host_identity(dir, NULL, NULL, nqn, id, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(id[0], 0x11);
	CU_ASSERT_EQUAL(id[15], 0x55);
	rm_scratch();
}

static void host_identity_is_generated_when_nothing_is_configured(void)
{
	mkdir_scratch();
	char nqn[NVMFH_NQN_FIELD], nqn2[NVMFH_NQN_FIELD], err[128];
	uint8_t id[16], id2[16];
	CU_ASSERT_EQUAL(nvmfh_host_identity(dir, NULL, NULL, nqn, id, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(strncmp(nqn, "nqn.2014-08.org.nvmexpress:uuid:", 32), 0);
	CU_ASSERT_EQUAL(strlen(nqn), 32 + 36);
	CU_ASSERT_EQUAL(id[6] >> 4, 4); /* UUID version 4 */
	char hex[3];
	snprintf(hex, sizeof(hex), "%02x", id[0]);
	CU_ASSERT_EQUAL(strncmp(nqn + 32, hex, 2), 0); /* the NQN carries the host ID */
	CU_ASSERT_EQUAL(nvmfh_host_identity(dir, NULL, NULL, nqn2, id2, err, sizeof(err)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(id, id2, 16), 0); /* random */
	rm_scratch();
}

static void given_host_identity_wins_over_files(void)
{
	mkdir_scratch();
	put("hostnqn", "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555");
	const uint8_t given[16] = { 9, 9, 9 };
	char nqn[NVMFH_NQN_FIELD], err[128];
	uint8_t id[16];
	CU_ASSERT_EQUAL(nvmfh_host_identity(dir, "nqn.2026-01.io.example:me", given, nqn, id, err,
					    sizeof(err)),
			0);
	CU_ASSERT_STRING_EQUAL(nqn, "nqn.2026-01.io.example:me");
	CU_ASSERT_EQUAL(memcmp(id, given, 16), 0);
	rm_scratch();
}

static void bad_hostid_file_or_long_hostnqn_is_einval_with_message(void)
{
	mkdir_scratch();
	put("hostid", "not-a-uuid");
	char nqn[NVMFH_NQN_FIELD], err[256] = "";
	uint8_t id[16];
	CU_ASSERT_EQUAL(nvmfh_host_identity(dir, NULL, NULL, nqn, id, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "hostid"));
	char longnqn[300];
	memset(longnqn, 'a', sizeof(longnqn));
	memcpy(longnqn, "nqn.", 4);
	longnqn[240] = 0;
	CU_ASSERT_EQUAL(nvmfh_host_identity(NULL, longnqn, NULL, nqn, id, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "at most 223"));
	rm_scratch();
}

const struct unit_test initiator_errors_tests[] = {
	{ "strerror_names_connect_invalid_param_with_codes_and_dnr",
	  strerror_names_connect_invalid_param_with_codes_and_dnr },
	{ "io_strerror_reads_command_specific_codes_as_nvm_commands",
	  io_strerror_reads_command_specific_codes_as_nvm_commands },
	{ "strerror_of_unnamed_status_keeps_the_values",
	  strerror_of_unnamed_status_keeps_the_values },
	{ "strerror_of_negative_errno_is_the_errno_text",
	  strerror_of_negative_errno_is_the_errno_text },
	{ "host_identity_comes_from_hostnqn_and_hostid_files",
	  host_identity_comes_from_hostnqn_and_hostid_files },
	{ "host_id_is_taken_from_a_uuid_hostnqn_without_hostid_file",
	  host_id_is_taken_from_a_uuid_hostnqn_without_hostid_file },
	{ "host_identity_is_generated_when_nothing_is_configured",
	  host_identity_is_generated_when_nothing_is_configured },
	{ "given_host_identity_wins_over_files", given_host_identity_wins_over_files },
	{ "bad_hostid_file_or_long_hostnqn_is_einval_with_message",
	  bad_hostid_file_or_long_hostnqn_is_einval_with_message },
	{ NULL, NULL },
};
