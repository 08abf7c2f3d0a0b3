/*
 * Reservations as the hosts live them (target/resv.c): which I/O each host may do under
 * every type (the conflict matrix, through real commands), the notifications on log 80h
 * and their event, the Reservation Notification Mask and Reservation Persistence
 * features, Identify, and a namespace that comes back at the same nsid.
 */
#include <CUnit/CUnit.h>
#include <string.h>
#include "target/namespace.h"
#include "target/resv.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/resv_fixture.h"

#define WE      NVME_RESERVATION_RTYPE_WE
#define EA      NVME_RESERVATION_RTYPE_EA
#define WERO    NVME_RESERVATION_RTYPE_WERO
#define EARO    NVME_RESERVATION_RTYPE_EARO
#define WEAR    NVME_RESERVATION_RTYPE_WEAR
#define EAAR    NVME_RESERVATION_RTYPE_EAAR
#define ACQUIRE NVME_RESERVATION_RACQA_ACQUIRE
#define PREEMPT NVME_RESERVATION_RACQA_PREEMPT

#define REG_PREEMPTED NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED
#define RELEASED      NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED
#define PREEMPTED     NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED

/* CQE dword 0 of a Reservation Log Page Available event: I/O command specific status
 * (6), information 0, log page 80h. */
#define AEN_RESV 0x00800006u

static struct rf R;

/* Hosts A (holder to be), B (registrant) and C (never registered). */
static void setup(void)
{
	CU_ASSERT_EQUAL_FATAL(rf_boot(&R, NULL), 0);
	rf_host_up(&R, &R.a, FX_HOSTNQN, 0xa1);
	rf_host_up(&R, &R.b, FX_OTHER_HOSTNQN, 0xb2);
	rf_host_up(&R, &R.c, RF_HOST_C, 0xc3);
}

static void teardown(void)
{
	rf_teardown(&R);
}

static void register_a_and_b(void)
{
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
}

static bool allowed(struct rf_host *h, uint8_t opcode)
{
	int st = rf_io(h, RF_NS, opcode);
	CU_ASSERT_TRUE(st == 0 || st == RF_CONFLICT);
	return st == 0;
}

/* ---- the conflict matrix ---- */

/* For every type: reads (Read, Compare) and writes (Write, Write Zeroes, Dataset
 * Management, Flush) by the holder, a registrant and a host not registered. */
static void conflict_matrix_holds_for_every_type(void)
{
	static const struct {
		uint8_t type;
		bool reg_read, reg_write, other_read, other_write;
	} m[] = {
		{ WE, true, false, true, false },  { EA, false, false, false, false },
		{ WERO, true, true, true, false }, { EARO, true, true, false, false },
		{ WEAR, true, true, true, false }, { EAAR, true, true, false, false },
	};
	static const uint8_t reads[] = { nvme_cmd_read, nvme_cmd_compare };
	static const uint8_t writes[] = { nvme_cmd_write, nvme_cmd_write_zeroes, nvme_cmd_dsm,
					  nvme_cmd_flush };
	for (size_t t = 0; t < sizeof(m) / sizeof(m[0]); t++) {
		setup(); /* a fresh RAM namespace: zeroes, which Compare expects */
		register_a_and_b();
		CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, m[t].type, 0xa, 0), 0);
		for (size_t i = 0; i < sizeof(reads); i++) {
			CU_ASSERT_TRUE(allowed(&R.a, reads[i]));
			CU_ASSERT_EQUAL(allowed(&R.b, reads[i]), m[t].reg_read);
			CU_ASSERT_EQUAL(allowed(&R.c, reads[i]), m[t].other_read);
		}
		for (size_t i = 0; i < sizeof(writes); i++) {
			CU_ASSERT_TRUE(allowed(&R.a, writes[i]));
			CU_ASSERT_EQUAL(allowed(&R.b, writes[i]), m[t].reg_write);
			CU_ASSERT_EQUAL(allowed(&R.c, writes[i]), m[t].other_write);
		}
		/* The namespace without reservations is nobody's business. */
		CU_ASSERT_EQUAL(rf_io(&R.c, RF_PLAIN, nvme_cmd_write), 0);
		/* Reservation commands are never refused by the reservation. */
		uint8_t rep[64];
		CU_ASSERT_EQUAL(rf_report(&R.c, RF_NS, rep, sizeof(rep)), 0);
		/* Released: everyone again. */
		CU_ASSERT_EQUAL(rf_release(&R.a, RF_NS, 0, m[t].type, 0xa), 0);
		CU_ASSERT_TRUE(allowed(&R.c, nvme_cmd_write));
		CU_ASSERT_TRUE(allowed(&R.c, nvme_cmd_read));
		teardown();
	}
}

static void a_conflict_is_counted_in_the_error_log_and_the_data_is_untouched(void)
{
	setup();
	register_a_and_b();
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 0xa, 0), 0);
	uint8_t w[512], r[512];
	memset(w, 0x77, sizeof(w));
	struct nvme_sqe c = rf_sqe(nvme_cmd_write, RF_NS, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&R.c.io, &c, w, sizeof(w), NULL), RF_CONFLICT);
	c = rf_sqe(nvme_cmd_read, RF_NS, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&R.c.io, &c, r, sizeof(r), NULL), 0);
	CU_ASSERT_NOT_EQUAL(r[0], 0x77);
	struct nvme_error_log_page e;
	uint32_t numd = sizeof(e) / 4 - 1;
	c = rf_sqe(nvme_admin_get_log_page, 0, NVME_LOG_LID_ERROR | numd << 16, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.c.admin, &c, &e, sizeof(e), NULL), 0);
	CU_ASSERT_EQUAL(le16toh(e.status_field) >> 1, RF_CONFLICT);
	CU_ASSERT_EQUAL(le32toh(e.nsid), RF_NS);
	teardown();
}

/* ---- notifications, log 80h, the event ---- */

static void preempted_host_gets_a_registration_preempted_page_on_each_controller(void)
{
	setup();
	rf_host_up(&R, &R.a2, FX_HOSTNQN, 0xa1);
	register_a_and_b();
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 0xa, 0), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.b, RF_NS, PREEMPT, WE, 0xb, 0xa), 0);
	struct nvme_resv_notification_log log;
	struct rf_host *ctrls[] = { &R.a, &R.a2 };
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(rf_log80(ctrls[i], &log, false), 0);
		CU_ASSERT_EQUAL(le64toh(log.lpc), 1);
		CU_ASSERT_EQUAL(log.rnlpt, REG_PREEMPTED);
		CU_ASSERT_EQUAL(log.nalp, 0);
		CU_ASSERT_EQUAL(le32toh(log.nsid), RF_NS);
	}
	/* The preempting host and the bystander hear nothing. */
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, 0);
	CU_ASSERT_EQUAL(le64toh(log.lpc), 0);
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.c, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, 0);
	teardown();
}

static void release_and_clear_notify_the_other_registrants(void)
{
	setup();
	register_a_and_b();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.c, RF_NS, 0, 0, 0xc), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WERO, 0xa, 0), 0);
	CU_ASSERT_EQUAL_FATAL(rf_release(&R.a, RF_NS, 0, WERO, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_release(&R.c, RF_NS, 1, 0, 0xc), 0);
	struct nvme_resv_notification_log log;
	/* B: Reservation Released, then Reservation Preempted (the clear). */
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, RELEASED);
	CU_ASSERT_EQUAL(le64toh(log.lpc), 1);
	CU_ASSERT_EQUAL(log.nalp, 1);
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, PREEMPTED);
	CU_ASSERT_EQUAL(le64toh(log.lpc), 2);
	CU_ASSERT_EQUAL(log.nalp, 0);
	/* A (who released) only the clear; C (who cleared) only the release. */
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.a, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, PREEMPTED);
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.a, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, 0);
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.c, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, RELEASED);
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.c, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, 0);
	teardown();
}

static void unregistering_the_holder_of_a_registrants_only_type_tells_the_others(void)
{
	setup();
	register_a_and_b();
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, EARO, 0xa, 0), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, rf_cdw10(1, false, 0, 0), 0xa, 0), 0);
	struct nvme_resv_notification_log log;
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, RELEASED);
	CU_ASSERT_TRUE(allowed(&R.c, nvme_cmd_read));
	teardown();
}

static void log_80h_gives_one_page_per_read_with_count_and_pages_left(void)
{
	setup();
	register_a_and_b();
	/* Three notices for B: preempted by key three times over. */
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, PREEMPT, WE, 0xa, 0xb), 0);
		CU_ASSERT_EQUAL_FATAL(rf_release(&R.a, RF_NS, 0, WE, 0xa), 0);
		CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	}
	struct nvme_resv_notification_log log;
	for (unsigned i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, true), 0);
		CU_ASSERT_EQUAL(le64toh(log.lpc), i + 1);
		CU_ASSERT_EQUAL(log.nalp, 2 - i);
		CU_ASSERT_EQUAL(log.rnlpt, REG_PREEMPTED);
		for (size_t k = 0; k < sizeof(log.rsvd16); k++)
			CU_ASSERT_EQUAL_FATAL(log.rsvd16[k], 0);
	}
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, true), 0);
	CU_ASSERT_EQUAL(le64toh(log.lpc), 0);
	CU_ASSERT_EQUAL(log.rnlpt, NVME_RESV_NOTIFY_RNLPT_EMPTY);
	teardown();
}

static void pages_beyond_the_queue_are_lost_and_the_count_shows_the_gap(void)
{
	setup();
	register_a_and_b();
	for (unsigned i = 0; i < NVMF_RESV_LOG_PAGES + 2; i++) {
		CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, PREEMPT, WE, 0xa, 0xb), 0);
		CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	}
	struct nvme_resv_notification_log log;
	for (unsigned i = 0; i < NVMF_RESV_LOG_PAGES; i++)
		CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, true), 0);
	CU_ASSERT_EQUAL(le64toh(log.lpc), NVMF_RESV_LOG_PAGES);
	CU_ASSERT_EQUAL(log.nalp, 0);
	/* One more: stored with count 67, two were lost (65, 66). */
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, PREEMPT, WE, 0xa, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, true), 0);
	CU_ASSERT_EQUAL(le64toh(log.lpc), NVMF_RESV_LOG_PAGES + 3);
	teardown();
}

static void a_notice_completes_a_parked_aer_once_until_the_log_is_read(void)
{
	setup();
	register_a_and_b();
	struct fx_cmd aer;
	struct nvme_sqe c = rf_sqe(nvme_admin_async_event, 0, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&R.b.admin, &aer, &c, NULL, 0), 0);
	CU_ASSERT_FALSE(fx_done(&aer));
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, PREEMPT, WE, 0xa, 0xb), 0);
	CU_ASSERT_TRUE_FATAL(fx_done(&aer));
	CU_ASSERT_EQUAL(aer.status, 0);
	CU_ASSERT_EQUAL(le32toh(aer.cqe.result.u32), AEN_RESV);
	/* Masked until log 80h is read with RAE clear: a second notice sends none. */
	CU_ASSERT_EQUAL_FATAL(fx_start(&R.b.admin, &aer, &c, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, PREEMPT, WE, 0xa, 0xb), 0);
	CU_ASSERT_FALSE(fx_done(&aer));
	struct nvme_resv_notification_log log;
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, true), 0); /* RAE set: still masked */
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, PREEMPT, WE, 0xa, 0xb), 0);
	CU_ASSERT_FALSE(fx_done(&aer));
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.b, &log, false), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, PREEMPT, WE, 0xa, 0xb), 0);
	CU_ASSERT_TRUE(fx_done(&aer));
	CU_ASSERT_EQUAL(le32toh(aer.cqe.result.u32), AEN_RESV);
	teardown();
}

/* ---- feature 82h: Reservation Notification Mask ---- */

static void notification_mask_suppresses_its_types_per_controller(void)
{
	setup();
	rf_host_up(&R, &R.a2, FX_HOSTNQN, 0xa1);
	register_a_and_b();
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_MASK, RF_NS,
				    NVME_FEAT_RESV_NOTIFY_REGPRE, &dw0),
			0);
	CU_ASSERT_EQUAL(dw0, NVME_FEAT_RESV_NOTIFY_REGPRE);
	CU_ASSERT_EQUAL(rf_get_feat(&R.a, NVME_FEAT_FID_RESV_MASK, RF_NS, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, NVME_FEAT_RESV_NOTIFY_REGPRE);
	CU_ASSERT_EQUAL(rf_get_feat(&R.a2, NVME_FEAT_FID_RESV_MASK, RF_NS, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.b, RF_NS, PREEMPT, WE, 0xb, 0xa), 0);
	struct nvme_resv_notification_log log;
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.a, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, 0); /* masked on this controller */
	CU_ASSERT_EQUAL_FATAL(rf_log80(&R.a2, &log, false), 0);
	CU_ASSERT_EQUAL(log.rnlpt, REG_PREEMPTED); /* not on the host's other one */
	teardown();
}

static void notification_mask_for_every_namespace_and_its_refusals(void)
{
	setup();
	uint32_t dw0;
	uint32_t all = NVME_FEAT_RESV_NOTIFY_REGPRE | NVME_FEAT_RESV_NOTIFY_RESREL |
		       NVME_FEAT_RESV_NOTIFY_RESPRE;
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_MASK, NVME_NSID_ALL, all, NULL), 0);
	CU_ASSERT_EQUAL(rf_get_feat(&R.a, NVME_FEAT_FID_RESV_MASK, RF_NS, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, all);
	/* Bit 0 and bits above 3 are reserved. */
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_MASK, RF_NS, 1, NULL),
			RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_MASK, RF_NS, 1u << 4, NULL),
			RF_GEN(NVME_SC_INVALID_FIELD));
	/* A namespace without reservations (nvmet: Invalid Field), none at all, no nsid. */
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_MASK, RF_PLAIN, 2, NULL),
			RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_get_feat(&R.a, NVME_FEAT_FID_RESV_MASK, RF_PLAIN, NULL),
			RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_MASK, 9, 2, NULL),
			RF_GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_MASK, 0, 2, NULL),
			RF_GEN(NVME_SC_INVALID_NS));
	CU_ASSERT_EQUAL(rf_get_feat(&R.a, NVME_FEAT_FID_RESV_MASK, NVME_NSID_ALL, NULL),
			RF_GEN(NVME_SC_INVALID_NS));
	/* Capabilities: per namespace, changeable, not saveable. */
	struct nvme_cqe cqe;
	struct nvme_sqe c =
		rf_sqe(nvme_admin_get_features, RF_NS, NVME_FEAT_FID_RESV_MASK | 3u << 8, 0);
	CU_ASSERT_EQUAL(fx_cmd(&R.a.admin, &c, NULL, 0, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32),
			(1u << 1) | (1u << 2)); /* namespace specific, changeable */
	teardown();
}

/* ---- feature 83h without a state file ---- */

static void persistence_cannot_be_turned_on_without_a_state_file(void)
{
	setup();
	uint32_t dw0 = 1;
	CU_ASSERT_EQUAL(rf_get_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, RF_NS, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, RF_NS, 1, NULL),
			RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, RF_NS, 0, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, RF_NS, 2, NULL),
			RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_get_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, RF_PLAIN, NULL),
			RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_get_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, 0, NULL),
			RF_GEN(NVME_SC_INVALID_NS));
	teardown();
}

/* ---- Identify and the effects log ---- */

static void identify_reports_oncs_rescap_and_the_effects_log_the_commands(void)
{
	setup();
	struct nvme_id_ctrl id;
	struct nvme_sqe c = rf_sqe(nvme_admin_identify, 0, NVME_IDENTIFY_CNS_CTRL, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.a.admin, &c, &id, sizeof(id), NULL), 0);
	CU_ASSERT_TRUE(le16toh(id.oncs) & NVME_CTRL_ONCS_RESERVATIONS);
	CU_ASSERT_TRUE(le32toh(id.ctratt) & NVME_CTRL_CTRATT_128_ID);
	struct nvme_id_ns ns;
	c = rf_sqe(nvme_admin_identify, RF_NS, NVME_IDENTIFY_CNS_NS, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.a.admin, &c, &ns, sizeof(ns), NULL), 0);
	/* Every type, IEKEY as since 1.3; no PTPL without a state file. */
	CU_ASSERT_EQUAL(ns.rescap, 0xfe);
	CU_ASSERT_EQUAL(ns.nmic, NVME_NS_NMIC_SHARED);
	/* The command set independent data (CNS 08h) says the same. */
	struct nvme_id_independent_id_ns ind;
	c = rf_sqe(nvme_admin_identify, RF_NS, NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.a.admin, &c, &ind, sizeof(ind), NULL), 0);
	CU_ASSERT_EQUAL(ind.rescap, 0xfe);
	c = rf_sqe(nvme_admin_identify, RF_PLAIN, NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.a.admin, &c, &ind, sizeof(ind), NULL), 0);
	CU_ASSERT_EQUAL(ind.rescap, 0);
	c = rf_sqe(nvme_admin_identify, RF_PLAIN, NVME_IDENTIFY_CNS_NS, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.a.admin, &c, &ns, sizeof(ns), NULL), 0);
	CU_ASSERT_EQUAL(ns.rescap, 0);
	static struct nvme_cmd_effects_log eff;
	c = rf_sqe(nvme_admin_get_log_page, 0,
		   NVME_LOG_LID_CMD_EFFECTS | (sizeof(eff) / 4 - 1) << 16, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.a.admin, &c, &eff, sizeof(eff), NULL), 0);
	CU_ASSERT_EQUAL(le32toh(eff.iocs[nvme_cmd_resv_register]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(le32toh(eff.iocs[nvme_cmd_resv_report]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(le32toh(eff.iocs[nvme_cmd_resv_acquire]), NVME_CMD_EFFECTS_CSUPP);
	CU_ASSERT_EQUAL(le32toh(eff.iocs[nvme_cmd_resv_release]), NVME_CMD_EFFECTS_CSUPP);
	struct nvme_supported_log_pages sup;
	c = rf_sqe(nvme_admin_get_log_page, 0,
		   NVME_LOG_LID_SUPPORTED_LOG_PAGES | (sizeof(sup) / 4 - 1) << 16, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.a.admin, &c, &sup, sizeof(sup), NULL), 0);
	CU_ASSERT_EQUAL(le32toh(sup.lid_support[NVME_LOG_LID_RESERVATION]) & 1, 1);
	teardown();
}

static void a_subsystem_without_reservations_does_not_claim_them(void)
{
	static struct fx f;
	CU_ASSERT_EQUAL_FATAL(fx_setup(&f), 0); /* two namespaces, neither with reservations */
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&f), 0);
	struct nvme_id_ctrl id;
	struct nvme_sqe c = rf_sqe(nvme_admin_identify, 0, NVME_IDENTIFY_CNS_CTRL, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&f.admin, &c, &id, sizeof(id), NULL), 0);
	CU_ASSERT_FALSE(le16toh(id.oncs) & NVME_CTRL_ONCS_RESERVATIONS);
	fx_teardown(&f);
}

/* ---- a namespace at the same nsid again ---- */

static void a_namespace_added_again_at_the_nsid_starts_without_a_reservation(void)
{
	setup();
	register_a_and_b();
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, EA, 0xa, 0), 0);
	CU_ASSERT_EQUAL_FATAL(rf_set_feat(&R.c, NVME_FEAT_FID_RESV_MASK, RF_NS,
					  NVME_FEAT_RESV_NOTIFY_REGPRE, NULL),
			      0);
	struct nvmf_subsys *s = R.fx.tgt.subsys[0];
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_remove(&R.fx.tgt, s, RF_NS, err, sizeof(err)), 0);
	struct nvmf_ns_config nc = { .nsid = RF_NS,
				     .enable = true,
				     .kind = NVMF_BACKEND_RAM,
				     .size_bytes = 1u << 20,
				     .block_size = 512,
				     .resv_enable = true };
	uint32_t nsid;
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&R.fx.tgt, s, &nc, 1, &nsid, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++)
		rf_tick(&R);
	CU_ASSERT_TRUE(allowed(&R.c, nvme_cmd_read));
	CU_ASSERT_TRUE(allowed(&R.c, nvme_cmd_write));
	uint32_t dw0 = 1;
	CU_ASSERT_EQUAL(rf_get_feat(&R.c, NVME_FEAT_FID_RESV_MASK, RF_NS, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 0);
	uint8_t rep[64];
	CU_ASSERT_EQUAL_FATAL(rf_report(&R.c, RF_NS, rep, sizeof(rep)), 0);
	CU_ASSERT_EQUAL(((struct nvme_resv_status *)rep)->regctl[0], 0);
	teardown();
}

const struct unit_test resv_tests[] = {
	{ "conflict_matrix_holds_for_every_type", conflict_matrix_holds_for_every_type },
	{ "a_conflict_is_counted_in_the_error_log_and_the_data_is_untouched",
	  a_conflict_is_counted_in_the_error_log_and_the_data_is_untouched },
	{ "preempted_host_gets_a_registration_preempted_page_on_each_controller",
	  preempted_host_gets_a_registration_preempted_page_on_each_controller },
	{ "release_and_clear_notify_the_other_registrants",
	  release_and_clear_notify_the_other_registrants },
	{ "unregistering_the_holder_of_a_registrants_only_type_tells_the_others",
	  unregistering_the_holder_of_a_registrants_only_type_tells_the_others },
	{ "log_80h_gives_one_page_per_read_with_count_and_pages_left",
	  log_80h_gives_one_page_per_read_with_count_and_pages_left },
	{ "pages_beyond_the_queue_are_lost_and_the_count_shows_the_gap",
	  pages_beyond_the_queue_are_lost_and_the_count_shows_the_gap },
	{ "a_notice_completes_a_parked_aer_once_until_the_log_is_read",
	  a_notice_completes_a_parked_aer_once_until_the_log_is_read },
	{ "notification_mask_suppresses_its_types_per_controller",
	  notification_mask_suppresses_its_types_per_controller },
	{ "notification_mask_for_every_namespace_and_its_refusals",
	  notification_mask_for_every_namespace_and_its_refusals },
	{ "persistence_cannot_be_turned_on_without_a_state_file",
	  persistence_cannot_be_turned_on_without_a_state_file },
	{ "identify_reports_oncs_rescap_and_the_effects_log_the_commands",
	  identify_reports_oncs_rescap_and_the_effects_log_the_commands },
	{ "a_subsystem_without_reservations_does_not_claim_them",
	  a_subsystem_without_reservations_does_not_claim_them },
	{ "a_namespace_added_again_at_the_nsid_starts_without_a_reservation",
	  a_namespace_added_again_at_the_nsid_starts_without_a_reservation },
	{ NULL, NULL },
};
