/* Get Log Page tables of an NVM subsystem's controller (target/log-page.c) through the
 * loop transport: Supported Log Pages (00h) lists exactly the logs the controller
 * returns, and Commands Supported and Effects (05h) exactly the commands it takes. Each
 * list is checked against what the controller does: a LID or opcode is listed if and
 * only if it is answered without Invalid Log Page / Invalid Command Opcode. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

static struct fx F;

static void setup(void)
{
	CU_ASSERT_FATAL(fx_setup(&F) == 0);
	CU_ASSERT_FATAL(fx_connect_admin(&F) == 0);
}

static int get_log(struct fxq *q, uint8_t lid, void *buf, uint32_t len)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_get_log_page;
	c.cdw10 = htole32(lid | (len / 4 - 1) << 16);
	memset(buf, 0xff, len);
	return fx_cmd(q, &c, buf, len, NULL);
}

#define INVALID_LOG_PAGE \
	(nvme_status(NVME_SCT_CMD_SPECIFIC, NVME_SC_INVALID_LOG_PAGE) | NVME_SC_DNR)
#define INVALID_OPCODE (nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE) | NVME_SC_DNR)
#define FABRICS_OPCODE 0x7f

/* 00h: LSUPP set for 00h, 01h, 02h, 03h, 04h, 05h, 0Ch, 12h, 80h, nothing else, no LID Specific bits;
 * each listed LID reads, each other one is Invalid Log Page. */
static void supported_log_pages_lists_exactly_the_logs_returned(void)
{
	setup();
	struct nvme_supported_log_pages log;
	CU_ASSERT_EQUAL_FATAL(
		get_log(&F.admin, NVME_LOG_LID_SUPPORTED_LOG_PAGES, &log, sizeof(log)), 0);
	static const uint8_t want[] = { NVME_LOG_LID_SUPPORTED_LOG_PAGES,
					NVME_LOG_LID_ERROR,
					NVME_LOG_LID_SMART,
					NVME_LOG_LID_FW_SLOT,
					NVME_LOG_LID_CHANGED_NS,
					NVME_LOG_LID_CMD_EFFECTS,
					NVME_LOG_LID_FID_SUPPORTED_EFFECTS,
					NVME_LOG_LID_ANA,
					NVME_LOG_LID_RESERVATION };
	unsigned listed = 0;
	for (unsigned lid = 0; lid < 256; lid++) {
		uint32_t e = le32toh(log.lid_support[lid]);
		CU_ASSERT(e == 0 || e == 1);
		listed += e;
		uint8_t buf[512];
		int st = get_log(&F.admin, (uint8_t)lid, buf, sizeof(buf));
		if (e) {
			CU_ASSERT_EQUAL(st, 0);
		} else {
			CU_ASSERT_EQUAL(st, INVALID_LOG_PAGE);
		}
	}
	CU_ASSERT_EQUAL(listed, sizeof(want));
	for (size_t i = 0; i < sizeof(want); i++)
		CU_ASSERT_EQUAL(le32toh(log.lid_support[want[i]]), 1);
	fx_teardown(&F);
}

/* 12h: FSUPP exactly for the features Get Features answers (SEL 011b, which every
 * feature takes without further fields), with the controller scope, the namespace scope
 * for the reservations' namespace specific ones; among them every feature NVMe Base 2.0
 * makes mandatory for an I/O controller on a fabric. */
static void fid_effects_log_lists_exactly_the_features_answered(void)
{
	setup();
	struct nvme_fid_supported_effects_log *l = malloc(sizeof(*l));
	CU_ASSERT_EQUAL_FATAL(get_log(&F.admin, NVME_LOG_LID_FID_SUPPORTED_EFFECTS, l, sizeof(*l)),
			      0);
	const uint32_t ctrl = NVME_FID_SUPPORTED_EFFECTS_FSUPP |
			      NVME_FID_SUPPORTED_EFFECTS_SCOPE_CTRL
				      << NVME_FID_SUPPORTED_EFFECTS_SCOPE_SHIFT;
	const uint32_t ns = NVME_FID_SUPPORTED_EFFECTS_FSUPP |
			    NVME_FID_SUPPORTED_EFFECTS_SCOPE_NS
				    << NVME_FID_SUPPORTED_EFFECTS_SCOPE_SHIFT;
	static const uint8_t mandatory[] = {
		NVME_FEAT_FID_ARBITRATION,  NVME_FEAT_FID_POWER_MGMT, NVME_FEAT_FID_TEMP_THRESH,
		NVME_FEAT_FID_ERR_RECOVERY, NVME_FEAT_FID_NUM_QUEUES, NVME_FEAT_FID_WRITE_ATOMIC,
		NVME_FEAT_FID_ASYNC_EVENT,  NVME_FEAT_FID_KATO,       NVME_FEAT_FID_HOST_ID,
	};
	for (size_t i = 0; i < sizeof(mandatory); i++)
		CU_ASSERT_EQUAL(le32toh(l->fid_support[mandatory[i]]), ctrl);
	for (unsigned fid = 0; fid < 256; fid++) {
		uint32_t e = le32toh(l->fid_support[fid]);
		if (fid == NVME_FEAT_FID_RESV_MASK || fid == NVME_FEAT_FID_RESV_PERSIST) {
			CU_ASSERT_EQUAL(e, ns);
		} else {
			CU_ASSERT(e == 0 || e == ctrl);
		}
		struct nvme_sqe c;
		memset(&c, 0, sizeof(c));
		c.opcode = nvme_admin_get_features;
		c.cdw10 = htole32(fid | 3u << 8);
		int st = fx_cmd(&F.admin, &c, NULL, 0, NULL);
		CU_ASSERT_EQUAL(st, e ? 0 : nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR);
	}
	free(l);
	fx_teardown(&F);
}

/* 05h, admin half: CSUPP exactly for the opcodes the controller takes (the command
 * tables), nothing for the others; no command has effects beyond CSUPP here. */
static void effects_log_lists_exactly_the_admin_commands_taken(void)
{
	setup();
	struct nvme_cmd_effects_log *l = malloc(sizeof(*l));
	CU_ASSERT_EQUAL_FATAL(get_log(&F.admin, NVME_LOG_LID_CMD_EFFECTS, l, sizeof(*l)), 0);
	static const uint8_t want[] = { nvme_admin_get_log_page, nvme_admin_identify,
					nvme_admin_abort_cmd,    nvme_admin_set_features,
					nvme_admin_get_features, nvme_admin_async_event,
					nvme_admin_keep_alive };
	for (unsigned opc = 0; opc < 256; opc++) {
		uint32_t e = le32toh(l->acs[opc]);
		bool listed = memchr(want, (int)opc, sizeof(want)) != NULL;
		CU_ASSERT_EQUAL(e, listed ? NVME_CMD_EFFECTS_CSUPP : 0);
		if (opc == nvme_admin_async_event || opc == FABRICS_OPCODE)
			continue; /* parks; Fabrics is not an admin opcode */
		struct nvme_sqe c;
		memset(&c, 0, sizeof(c));
		c.opcode = (uint8_t)opc;
		uint8_t buf[4096];
		int st = fx_cmd(&F.admin, &c, buf, opc & 3 ? sizeof(buf) : 0, NULL);
		if (e) {
			CU_ASSERT_NOT_EQUAL(st, INVALID_OPCODE);
		} else {
			CU_ASSERT_EQUAL(st, INVALID_OPCODE);
		}
	}
	free(l);
	fx_teardown(&F);
}

/* 05h, I/O half: CSUPP for the NVM command set, LBCC where blocks may change; the
 * reservation commands are not listed (no namespace here has reservations, so ONCS bit
 * 5 is clear and they get Invalid Opcode: tests/unit/target/resv_test.c has the
 * other case). */
static void effects_log_lists_exactly_the_io_commands_taken(void)
{
	setup();
	struct nvme_cmd_effects_log *l = malloc(sizeof(*l));
	CU_ASSERT_EQUAL_FATAL(get_log(&F.admin, NVME_LOG_LID_CMD_EFFECTS, l, sizeof(*l)), 0);
	struct fxq q;
	fx_queue_init(&F, &q);
	CU_ASSERT_EQUAL_FATAL(fx_connect(&q, 1, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, NULL),
			      0);
	for (unsigned opc = 0; opc < 256; opc++) {
		uint32_t e = le32toh(l->iocs[opc]), want = 0;
		switch (opc) {
		case nvme_cmd_flush:
		case nvme_cmd_read:
		case nvme_cmd_compare:
		case nvme_cmd_verify:
			want = NVME_CMD_EFFECTS_CSUPP;
			break;
		case nvme_cmd_write:
		case nvme_cmd_write_zeroes:
		case nvme_cmd_dsm:
		case nvme_cmd_copy:
			want = NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC;
			break;
		}
		CU_ASSERT_EQUAL(e, want);
		if (opc == FABRICS_OPCODE)
			continue;
		struct nvme_sqe c;
		memset(&c, 0, sizeof(c));
		c.opcode = (uint8_t)opc;
		c.nsid = htole32(1);
		uint8_t buf[512];
		memset(buf, 0, sizeof(buf));
		int st = fx_cmd(&q, &c, buf, opc & 3 ? sizeof(buf) : 0, NULL);
		if (e) {
			CU_ASSERT_NOT_EQUAL(st, INVALID_OPCODE);
		} else {
			CU_ASSERT_EQUAL(st, INVALID_OPCODE);
		}
	}
	free(l);
	fx_teardown(&F);
}

#define T(n)          \
	{             \
#n, n \
	}
const struct unit_test log_page_tests[] = {
	{ "fid_effects_log_lists_exactly_the_features_answered",
	  fid_effects_log_lists_exactly_the_features_answered },
	T(supported_log_pages_lists_exactly_the_logs_returned),
	T(effects_log_lists_exactly_the_admin_commands_taken),
	T(effects_log_lists_exactly_the_io_commands_taken),
	{ NULL, NULL },
};
