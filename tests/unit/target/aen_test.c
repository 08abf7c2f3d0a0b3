/* Asynchronous events (target/aen.c, NVMe Base 2.0 section 5.2) through the loop
 * transport: AERs parked until an event, the event's CQE dword 0, the masking until its
 * log is read, the changed namespace list, the AER limit and failing parked AERs. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "target/admin.h"
#include "tests/unit/target/fixture.h"

#define CSPEC(sc) (nvme_status(NVME_SCT_CMD_SPECIFIC, (sc)) | NVME_SC_DNR)

static struct fx F;

static void setup(void)
{
	CU_ASSERT_FATAL(fx_setup(&F) == 0);
	CU_ASSERT_FATAL(fx_connect_admin(&F) == 0);
}

static struct nvmf_tgt_ctrl *ctrl(void)
{
	return fx_ctrl(&F);
}

static struct nvme_sqe mk(uint8_t opc, uint32_t nsid, uint32_t c10, uint32_t c11)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opc;
	c.command_id = 0x1234;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32(c10);
	c.cdw11 = htole32(c11);
	return c;
}

static int get_log(uint8_t lid, uint32_t nsid, uint64_t off, void *buf, uint32_t len)
{
	uint32_t numd = len / 4 - 1;
	struct nvme_sqe c =
		mk(nvme_admin_get_log_page, nsid, lid | (numd & 0xffff) << 16, numd >> 16);
	c.cdw12 = htole32((uint32_t)off);
	c.cdw13 = htole32((uint32_t)(off >> 32));
	memset(buf, 0xff, len);
	return fx_cmd(&F.admin, &c, buf, len, NULL);
}

static int set_feat(uint32_t c10, uint32_t c11, uint32_t *dw0)
{
	struct nvme_cqe cqe;
	struct nvme_sqe c = mk(nvme_admin_set_features, 0, c10, c11);
	int st = fx_cmd(&F.admin, &c, NULL, 0, &cqe);
	if (dw0)
		*dw0 = le32toh(cqe.result.u32);
	return st;
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* An Asynchronous Event Request on the admin queue, left outstanding: @h says whether
 * (and how) it completed. */
static void submit_aer(struct fx_cmd *h)
{
	struct nvme_sqe c = mk(nvme_admin_async_event, 0, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&F.admin, h, &c, NULL, 0), 0);
}

static void aer_stays_parked_until_a_namespace_changes(void)
{
	setup();
	CU_ASSERT_EQUAL(set_feat(NVME_FEAT_FID_ASYNC_EVENT, 1u << 8, NULL), 0);
	struct fx_cmd a1, a2;
	submit_aer(&a1);
	CU_ASSERT_FALSE(fx_done(&a1));
	nvmf_tgt_ctrl_notify_ns_changed(ctrl(), 2);
	CU_ASSERT_TRUE_FATAL(fx_done(&a1));
	CU_ASSERT_EQUAL(le16toh(a1.cqe.status), 0);
	CU_ASSERT_EQUAL(le32toh(a1.cqe.result.u32), 0x00040002u);
	/* Masked until the log is read: the next change only adds to the list. */
	submit_aer(&a2);
	nvmf_tgt_ctrl_notify_ns_changed(ctrl(), 1);
	CU_ASSERT_FALSE(fx_done(&a2));
	__le32 list[1024];
	CU_ASSERT_EQUAL_FATAL(
		get_log(NVME_LOG_LID_CHANGED_NS, NVME_NSID_ALL, 0, list, sizeof(list)), 0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 1); /* ascending */
	CU_ASSERT_EQUAL(le32toh(list[1]), 2);
	CU_ASSERT(all_zero(list + 2, sizeof(list) - 8));
	/* Reading cleared the list and re-armed the notice. */
	nvmf_tgt_ctrl_notify_ns_changed(ctrl(), 1);
	CU_ASSERT_TRUE(fx_done(&a2));
	CU_ASSERT_EQUAL(get_log(NVME_LOG_LID_CHANGED_NS, 0, 0, list, sizeof(list)), 0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 1);
	CU_ASSERT_EQUAL(le32toh(list[1]), 0);
	fx_teardown(&F);
}

static void namespace_change_with_notices_disabled_completes_no_aer(void)
{
	setup();
	struct fx_cmd a;
	submit_aer(&a);
	nvmf_tgt_ctrl_notify_ns_changed(ctrl(), 1);
	CU_ASSERT_FALSE(fx_done(&a));
	CU_ASSERT_EQUAL(ctrl()->nr_changed_ns, 1); /* the log still records it */
	fx_teardown(&F);
}

static void changed_namespace_log_overflow_reports_ffffffff(void)
{
	setup();
	for (uint32_t n = 1; n <= NVMF_CHANGED_NS_MAX + 1; n++)
		nvmf_tgt_ctrl_notify_ns_changed(ctrl(), n);
	__le32 list[1024];
	CU_ASSERT_EQUAL(get_log(NVME_LOG_LID_CHANGED_NS, 0, 0, list, sizeof(list)), 0);
	CU_ASSERT_EQUAL(le32toh(list[0]), 0xffffffffu);
	CU_ASSERT(all_zero(list + 1, sizeof(list) - 4));
	fx_teardown(&F);
}

static void fifth_aer_returns_async_limit_and_fail_aers_aborts_the_rest(void)
{
	setup();
	struct fx_cmd a[NVMF_AERL + 2];
	for (int i = 0; i <= NVMF_AERL; i++) {
		submit_aer(&a[i]);
		CU_ASSERT_FALSE(fx_done(&a[i]));
	}
	submit_aer(&a[NVMF_AERL + 1]);
	CU_ASSERT_TRUE(fx_done(&a[NVMF_AERL + 1]));
	CU_ASSERT_EQUAL(le16toh(a[NVMF_AERL + 1].cqe.status) >> 1, CSPEC(NVME_SC_ASYNC_LIMIT));
	nvmf_tgt_ctrl_fail_aers(ctrl(), nvme_status(NVME_SCT_GENERIC, NVME_SC_ABORT_REQ));
	for (int i = 0; i <= NVMF_AERL; i++) {
		CU_ASSERT_TRUE(fx_done(&a[i]));
		CU_ASSERT_EQUAL(le16toh(a[i].cqe.status) >> 1,
				nvme_status(NVME_SCT_GENERIC, NVME_SC_ABORT_REQ));
	}
	CU_ASSERT_EQUAL(ctrl()->nr_aer, 0);
	fx_teardown(&F);
}

/* An event with no AER outstanding waits: the next AER completes at once with it. */
static void event_before_any_aer_completes_the_next_aer(void)
{
	setup();
	CU_ASSERT_EQUAL(set_feat(NVME_FEAT_FID_ASYNC_EVENT, 1u << 8, NULL), 0);
	nvmf_tgt_ctrl_notify_ns_changed(ctrl(), 1);
	struct fx_cmd a;
	submit_aer(&a);
	CU_ASSERT_TRUE_FATAL(fx_done(&a));
	CU_ASSERT_EQUAL(le16toh(a.cqe.status), 0);
	CU_ASSERT_EQUAL(le32toh(a.cqe.result.u32), 0x00040002u); /* notice, NS changed, 04h */
	fx_teardown(&F);
}

/* Reservation Log Page Available has no enable bit (figure 149): it is reported with
 * Asynchronous Event Configuration left at 0, as I/O Command Specific Status. */
static void reservation_log_event_needs_no_enable_bit(void)
{
	setup();
	struct fx_cmd a, b;
	submit_aer(&a);
	nvmf_tgt_ctrl_aen(ctrl(), NVMF_AEN_RESV_LOG);
	CU_ASSERT_TRUE_FATAL(fx_done(&a));
	CU_ASSERT_EQUAL(le16toh(a.cqe.status), 0);
	CU_ASSERT_EQUAL(le32toh(a.cqe.result.u32),
			(uint32_t)NVME_AER_CSS | (uint32_t)NVME_AER_CSS_NVM_RESERVATION << 8 |
				(uint32_t)NVME_LOG_LID_RESERVATION << 16);
	/* masked until its log is read */
	submit_aer(&b);
	nvmf_tgt_ctrl_aen(ctrl(), NVMF_AEN_RESV_LOG);
	CU_ASSERT_FALSE(fx_done(&b));
	nvmf_tgt_ctrl_aen_log_read(ctrl(), NVMF_AEN_RESV_LOG);
	nvmf_tgt_ctrl_aen(ctrl(), NVMF_AEN_RESV_LOG);
	CU_ASSERT_TRUE(fx_done(&b));
	fx_teardown(&F);
}

/* An NVM subsystem's controller offers SMART, namespace attribute and ANA notices; a
 * discovery controller is not reachable here (discovery tests cover its bit). */
static void nvm_controller_supports_smart_ns_attr_and_ana_notices(void)
{
	setup();
	CU_ASSERT_EQUAL(nvmf_aen_supported(ctrl()), 0xffu | 1u << 8 | 1u << 11);
	fx_teardown(&F);
}

const struct unit_test aen_tests[] = {
	{ "aer_stays_parked_until_a_namespace_changes",
	  aer_stays_parked_until_a_namespace_changes },
	{ "namespace_change_with_notices_disabled_completes_no_aer",
	  namespace_change_with_notices_disabled_completes_no_aer },
	{ "changed_namespace_log_overflow_reports_ffffffff",
	  changed_namespace_log_overflow_reports_ffffffff },
	{ "fifth_aer_returns_async_limit_and_fail_aers_aborts_the_rest",
	  fifth_aer_returns_async_limit_and_fail_aers_aborts_the_rest },
	{ "event_before_any_aer_completes_the_next_aer",
	  event_before_any_aer_completes_the_next_aer },
	{ "reservation_log_event_needs_no_enable_bit", reservation_log_event_needs_no_enable_bit },
	{ "nvm_controller_supports_smart_ns_attr_and_ana_notices",
	  nvm_controller_supports_smart_ns_attr_and_ana_notices },
	{ NULL, NULL },
};
