/*
 * The reservation commands through the whole target (target/resv-cmd.c): what each
 * command answers on the wire, what Report shows afterwards, the malformed commands,
 * two hosts and two controllers of one host, and Preempt and Abort waiting for the
 * commands admitted before it. The rules in detail are tests/unit/nvme/resv_test.c's;
 * the access each host keeps, the notifications and the features are resv_test.c's.
 */
#include <CUnit/CUnit.h>
#include <string.h>
#include "target/resv.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/resv_fixture.h"

#define WE            NVME_RESERVATION_RTYPE_WE
#define EA            NVME_RESERVATION_RTYPE_EA
#define WERO          NVME_RESERVATION_RTYPE_WERO
#define ACQUIRE       NVME_RESERVATION_RACQA_ACQUIRE
#define PREEMPT       NVME_RESERVATION_RACQA_PREEMPT
#define PREEMPT_ABORT NVME_RESERVATION_RACQA_PREEMPT_AND_ABORT

static struct rf R;

static void setup(void)
{
	CU_ASSERT_EQUAL_FATAL(rf_boot(&R, NULL), 0);
	rf_host_up(&R, &R.a, FX_HOSTNQN, 0xa1);
	rf_host_up(&R, &R.b, FX_OTHER_HOSTNQN, 0xb2);
}

static void teardown(void)
{
	rf_teardown(&R);
}

/* The report of RF_NS as host @h reads it: header and up to 4 entries. */
struct report {
	struct nvme_resv_status hdr;
	struct nvme_registered_ctrl_ext e[4];
};

static int report(struct rf_host *h, struct report *r)
{
	return rf_report(h, RF_NS, r, sizeof(*r));
}

static unsigned regctl(const struct report *r)
{
	return r->hdr.regctl[0] | (unsigned)r->hdr.regctl[1] << 8;
}

/* ---- parsing ---- */

static void reservation_commands_on_a_namespace_without_reservations_are_invalid_opcode(void)
{
	setup();
	struct report r;
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_PLAIN, 0, 0, 1), RF_GEN(NVME_SC_INVALID_OPCODE));
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_PLAIN, ACQUIRE, WE, 1, 0),
			RF_GEN(NVME_SC_INVALID_OPCODE));
	CU_ASSERT_EQUAL(rf_release(&R.a, RF_PLAIN, 0, WE, 1), RF_GEN(NVME_SC_INVALID_OPCODE));
	CU_ASSERT_EQUAL(rf_report(&R.a, RF_PLAIN, &r, sizeof(r)), RF_GEN(NVME_SC_INVALID_OPCODE));
	/* An inactive namespace is Invalid Namespace, as for any I/O command. */
	CU_ASSERT_EQUAL(rf_register(&R.a, 9, 0, 0, 1), RF_GEN(NVME_SC_INVALID_NS));
	teardown();
}

static void report_without_eds_is_host_identifier_inconsistent_format(void)
{
	setup();
	uint8_t buf[64];
	struct nvme_sqe c = rf_sqe(nvme_cmd_resv_report, RF_NS, sizeof(buf) / 4 - 1, 0);
	CU_ASSERT_EQUAL(fx_cmd(&R.a.io, &c, buf, sizeof(buf), NULL), RF_GEN(NVME_SC_HOSTID_FORMAT));
	teardown();
}

static void report_numd_below_the_header_or_above_mdts_is_invalid_field(void)
{
	setup();
	uint8_t buf[64];
	struct nvme_sqe c = rf_sqe(nvme_cmd_resv_report, RF_NS, 60 / 4 - 1, NVME_RESV_REPORT_EDS);
	CU_ASSERT_EQUAL(fx_cmd(&R.a.io, &c, buf, 60, NULL), RF_GEN(NVME_SC_INVALID_FIELD));
	/* MDTS 8: 1 MiB; one dword more is refused before any data moves. */
	c = rf_sqe(nvme_cmd_resv_report, RF_NS, (1u << 20) / 4, NVME_RESV_REPORT_EDS);
	CU_ASSERT_EQUAL(fx_cmd(&R.a.io, &c, buf, sizeof(buf), NULL), RF_GEN(NVME_SC_INVALID_FIELD));
	teardown();
}

static void register_with_data_of_another_length_is_sgl_data_length_invalid(void)
{
	setup();
	uint8_t d[16] = { 0 };
	struct nvme_sqe c = rf_sqe(nvme_cmd_resv_register, RF_NS, 0, 0);
	CU_ASSERT_EQUAL(fx_cmd(&R.a.io, &c, d, 8, NULL), RF_GEN(NVME_SC_SGL_INVALID_DATA));
	c = rf_sqe(nvme_cmd_resv_acquire, RF_NS, rf_cdw10(ACQUIRE, false, WE, 0), 0);
	CU_ASSERT_EQUAL(fx_cmd(&R.a.io, &c, d, 12, NULL), RF_GEN(NVME_SC_SGL_INVALID_DATA));
	c = rf_sqe(nvme_cmd_resv_release, RF_NS, rf_cdw10(0, false, WE, 0), 0);
	CU_ASSERT_EQUAL(fx_cmd(&R.a.io, &c, d, 4, NULL), RF_GEN(NVME_SC_SGL_INVALID_DATA));
	struct report r;
	CU_ASSERT_EQUAL(report(&R.a, &r), 0);
	CU_ASSERT_EQUAL(regctl(&r), 0);
	teardown();
}

/* nvme-cli sends Release with the spec's 8 bytes, the Linux block layer (pr_ops) 16. */
static void release_takes_8_or_16_bytes_of_data(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0x11), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 0x11, 0), 0);
	uint8_t d[16] = { 0x11 };
	struct nvme_sqe c = rf_sqe(nvme_cmd_resv_release, RF_NS, rf_cdw10(0, false, WE, 0), 0);
	CU_ASSERT_EQUAL(fx_cmd(&R.a.io, &c, d, 16, NULL), 0);
	struct report r;
	CU_ASSERT_EQUAL(report(&R.a, &r), 0);
	CU_ASSERT_EQUAL(r.hdr.rtype, 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 0x11, 0), 0);
	CU_ASSERT_EQUAL(rf_release(&R.a, RF_NS, 0, WE, 0x11), 0);
	CU_ASSERT_EQUAL(report(&R.a, &r), 0);
	CU_ASSERT_EQUAL(r.hdr.rtype, 0);
	teardown();
}

/* ---- the commands on the wire ---- */

static void register_acquire_and_report_show_registrants_holder_and_generation(void)
{
	setup();
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_NS, 0, 0, 0xaaaa), 0);
	CU_ASSERT_EQUAL(rf_register(&R.b, RF_NS, 0, 0, 0xbbbb), 0);
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 0xaaaa, 0), 0);
	struct report r;
	CU_ASSERT_EQUAL_FATAL(report(&R.b, &r), 0);
	CU_ASSERT_EQUAL(le32toh(r.hdr.gen), 2); /* two registers, no acquire */
	CU_ASSERT_EQUAL(r.hdr.rtype, WE);
	CU_ASSERT_EQUAL(regctl(&r), 2);
	CU_ASSERT_EQUAL(r.hdr.ptpls, 0);
	CU_ASSERT_EQUAL(le16toh(r.e[0].cntlid), 0xffff);
	CU_ASSERT_EQUAL(r.e[0].rcsts, 1);
	CU_ASSERT_EQUAL(le64toh(r.e[0].rkey), 0xaaaa);
	CU_ASSERT_EQUAL(memcmp(r.e[0].hostid, R.a.id, 16), 0);
	CU_ASSERT_EQUAL(r.e[1].rcsts, 0);
	CU_ASSERT_EQUAL(le64toh(r.e[1].rkey), 0xbbbb);
	CU_ASSERT_EQUAL(memcmp(r.e[1].hostid, R.b.id, 16), 0);
	/* What the host did not ask for is zero, not stale. */
	CU_ASSERT_EQUAL(le16toh(r.e[2].cntlid), 0);
	teardown();
}

static void report_cut_by_numd_counts_every_registrant(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 1), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 2), 0);
	uint8_t buf[64 + 64];
	CU_ASSERT_EQUAL_FATAL(rf_report(&R.a, RF_NS, buf, sizeof(buf)), 0);
	const struct nvme_resv_status *h = (const void *)buf;
	CU_ASSERT_EQUAL(h->regctl[0], 2);
	const struct nvme_registered_ctrl_ext *e = (const void *)(buf + 64);
	CU_ASSERT_EQUAL(le64toh(e->rkey), 1);
	teardown();
}

static void statuses_of_malformed_and_refused_commands_reach_the_host(void)
{
	setup();
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_NS, rf_cdw10(3, false, 0, 0), 0, 1),
			RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_NS, rf_cdw10(0, false, 0, 1), 0, 1),
			RF_GEN(NVME_SC_INVALID_FIELD));
	/* No state file here: PTPL cannot be turned on. */
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_NS,
				    rf_cdw10(0, false, 0, NVME_RESERVATION_CPTPL_PERSIST), 0, 1),
			RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 1, 0),
			RF_CONFLICT); /* not registered */
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 1), 0);
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_NS, 0, 0, 2), RF_CONFLICT);
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_NS, rf_cdw10(1, false, 0, 0), 7, 0), RF_CONFLICT);
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, ACQUIRE, 0, 1, 0), RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, ACQUIRE, 7, 1, 0), RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, 3, WE, 1, 0), RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 2, 0), RF_CONFLICT); /* wrong key */
	CU_ASSERT_EQUAL(rf_release(&R.a, RF_NS, 2, WE, 1), RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 1, 0), 0);
	CU_ASSERT_EQUAL(rf_release(&R.a, RF_NS, 0, EA, 1), RF_GEN(NVME_SC_INVALID_FIELD));
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, ACQUIRE, EA, 1, 0), RF_CONFLICT);
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, PREEMPT, WE, 1, 0), RF_GEN(NVME_SC_INVALID_FIELD));
	/* None of them changed anything. */
	struct report r;
	CU_ASSERT_EQUAL(report(&R.a, &r), 0);
	CU_ASSERT_EQUAL(le32toh(r.hdr.gen), 1);
	CU_ASSERT_EQUAL(r.hdr.rtype, WE);
	teardown();
}

static void generation_moves_on_register_preempt_and_clear_not_acquire_or_release(void)
{
	setup();
	struct report r;
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 1), 0);                        /* 1 */
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 2), 0);                        /* 2 */
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, rf_cdw10(2, false, 0, 0), 2, 3), 0); /* 3 */
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(rf_release(&R.a, RF_NS, 0, WE, 1), 0);
	CU_ASSERT_EQUAL_FATAL(report(&R.a, &r), 0);
	CU_ASSERT_EQUAL(le32toh(r.hdr.gen), 3);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.b, RF_NS, PREEMPT, WE, 3, 1), 0); /* 4 */
	CU_ASSERT_EQUAL_FATAL(report(&R.b, &r), 0);
	CU_ASSERT_EQUAL(le32toh(r.hdr.gen), 4);
	CU_ASSERT_EQUAL(regctl(&r), 1);
	CU_ASSERT_EQUAL_FATAL(rf_release(&R.b, RF_NS, 1, 0, 3), 0); /* 5 */
	CU_ASSERT_EQUAL_FATAL(report(&R.b, &r), 0);
	CU_ASSERT_EQUAL(le32toh(r.hdr.gen), 5);
	CU_ASSERT_EQUAL(regctl(&r), 0);
	teardown();
}

/* ---- hosts and controllers ---- */

static void two_controllers_of_one_host_share_its_registration(void)
{
	setup();
	rf_host_up(&R, &R.a2, FX_HOSTNQN, 0xa1); /* host A again: same ID */
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0x77), 0);
	/* The other controller is the same registrant: same key fine, another conflicts. */
	CU_ASSERT_EQUAL(rf_register(&R.a2, RF_NS, 0, 0, 0x77), 0);
	CU_ASSERT_EQUAL(rf_register(&R.a2, RF_NS, 0, 0, 0x78), RF_CONFLICT);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a2, RF_NS, ACQUIRE, EA, 0x77, 0), 0);
	/* Both controllers of the holder's host read and write; host B does neither. */
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_write), 0);
	CU_ASSERT_EQUAL(rf_io(&R.a2, RF_NS, nvme_cmd_read), 0);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_read), RF_CONFLICT);
	struct report r;
	CU_ASSERT_EQUAL_FATAL(report(&R.b, &r), 0);
	CU_ASSERT_EQUAL(regctl(&r), 1);
	CU_ASSERT_EQUAL(r.e[0].rcsts, 1);
	/* Released through the first controller. */
	CU_ASSERT_EQUAL(rf_release(&R.a, RF_NS, 0, EA, 0x77), 0);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_read), 0);
	teardown();
}

static void a_controller_connecting_later_meets_the_reservation(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 5), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, EA, 5, 0), 0);
	rf_host_up(&R, &R.c, RF_HOST_C, 0xc3);
	CU_ASSERT_EQUAL(rf_io(&R.c, RF_NS, nvme_cmd_read), RF_CONFLICT);
	rf_host_up(&R, &R.a2, FX_HOSTNQN, 0xa1);
	CU_ASSERT_EQUAL(rf_io(&R.a2, RF_NS, nvme_cmd_read), 0);
	teardown();
}

static void preempt_moves_the_reservation_and_the_preempted_host_loses_its_writes(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 0xa, 0), 0);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_write), RF_CONFLICT);
	CU_ASSERT_EQUAL(rf_acquire(&R.b, RF_NS, PREEMPT, WE, 0xb, 0xa), 0);
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_write), RF_CONFLICT);
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_read), 0);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_write), 0);
	/* A is no longer registered: its key does nothing now. */
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 0xa, 0), RF_CONFLICT);
	teardown();
}

/* ---- Preempt and Abort ---- */

/* Namespace RF_NS served by a backend that holds every I/O until the test ends it. */
static struct fx_held_bdev *hold_ns(struct nvmf_bdev **was)
{
	struct nvmf_ns *ns = nvmf_subsys_ns(R.fx.tgt.subsys[0], RF_NS);
	struct fx_held_bdev *h = fx_held_bdev_new(512, 1u << 20, NULL);
	*was = ns->bdev;
	ns->bdev = &h->b;
	return h;
}

static void unhold_ns(struct nvmf_bdev *was)
{
	struct nvmf_ns *ns = nvmf_subsys_ns(R.fx.tgt.subsys[0], RF_NS);
	nvmf_bdev_close(ns->bdev);
	ns->bdev = was;
}

static void preempt_and_abort_completes_after_the_commands_admitted_before_it(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WE, 0xa, 0), 0);
	struct nvmf_bdev *ram;
	struct fx_held_bdev *h = hold_ns(&ram);
	/* A's write is in the backend when B preempts it. */
	struct fx_cmd w, p;
	uint8_t data[512] = { 1 };
	struct nvme_sqe wc = rf_sqe(nvme_cmd_write, RF_NS, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&R.a.io, &w, &wc, data, sizeof(data)), 0);
	CU_ASSERT_EQUAL_FATAL(h->submits, 1);
	uint8_t keys[16] = { 0xb, 0, 0, 0, 0, 0, 0, 0, 0xa };
	struct nvme_sqe pc =
		rf_sqe(nvme_cmd_resv_acquire, RF_NS, rf_cdw10(PREEMPT_ABORT, false, EA, 0), 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&R.b.io, &p, &pc, keys, sizeof(keys)), 0);
	for (int i = 0; i < 5; i++)
		rf_tick(&R);
	CU_ASSERT_FALSE(fx_done(&p));
	/* The new reservation holds already: A's new commands meet it, B's pass. */
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_read), RF_CONFLICT);
	/* Another reservation command of the namespace waits behind it. */
	struct fx_cmd rep;
	uint8_t rbuf[64];
	struct nvme_sqe rc =
		rf_sqe(nvme_cmd_resv_report, RF_NS, sizeof(rbuf) / 4 - 1, NVME_RESV_REPORT_EDS);
	CU_ASSERT_EQUAL_FATAL(fx_start(&R.b.io, &rep, &rc, NULL, sizeof(rbuf)), 0);
	rf_tick(&R);
	CU_ASSERT_FALSE(fx_done(&rep));
	/* A's write finishes: then the preempt, then the report. */
	h->io->done_bytes = h->io->len;
	h->io->done(h->io, 0);
	rf_tick(&R);
	CU_ASSERT_TRUE(fx_done(&w));
	CU_ASSERT_EQUAL(w.status, 0);
	CU_ASSERT_TRUE_FATAL(fx_done(&p));
	CU_ASSERT_EQUAL(p.status, 0);
	CU_ASSERT_TRUE_FATAL(fx_done(&rep));
	CU_ASSERT_EQUAL(rep.status, 0);
	const struct nvme_resv_status *hdr = (const void *)rep.data;
	CU_ASSERT_EQUAL(hdr->rtype, EA);
	CU_ASSERT_EQUAL(hdr->regctl[0], 1);
	unhold_ns(ram);
	teardown();
}

static void preempt_and_abort_with_nothing_in_flight_completes_at_once(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, ACQUIRE, WERO, 0xa, 0), 0);
	CU_ASSERT_EQUAL(rf_acquire(&R.b, RF_NS, PREEMPT_ABORT, WERO, 0xb, 0xa), 0);
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_write), RF_CONFLICT);
	/* Twice in a row: the epoch goes back and forth. */
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, PREEMPT_ABORT, WE, 0xa, 0xb), 0);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_write), RF_CONFLICT);
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_write), 0);
	teardown();
}

static void preempt_and_abort_that_fails_does_not_wait(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	struct nvmf_bdev *ram;
	struct fx_held_bdev *h = hold_ns(&ram);
	struct fx_cmd w;
	uint8_t data[512] = { 1 };
	struct nvme_sqe wc = rf_sqe(nvme_cmd_write, RF_NS, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&R.a.io, &w, &wc, data, sizeof(data)), 0);
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, PREEMPT_ABORT, WE, 0xa, 0x99), RF_CONFLICT);
	h->io->done_bytes = h->io->len;
	h->io->done(h->io, 0);
	rf_tick(&R);
	CU_ASSERT_TRUE(fx_done(&w));
	unhold_ns(ram);
	teardown();
}

/* With one poll group the commands run where they arrive, without a message. */
static void commands_of_queues_on_the_main_group_run_there(void)
{
	CU_ASSERT_EQUAL_FATAL(rf_boot_threads(&R, NULL, 1), 0);
	rf_host_up(&R, &R.a, FX_HOSTNQN, 0xa1);
	rf_host_up(&R, &R.b, FX_OTHER_HOSTNQN, 0xb2);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL(rf_acquire(&R.a, RF_NS, ACQUIRE, EA, 0xa, 0), 0);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_read), RF_CONFLICT);
	struct nvmf_bdev *ram;
	struct fx_held_bdev *h = hold_ns(&ram);
	struct fx_cmd w, p;
	uint8_t data[512] = { 1 };
	struct nvme_sqe wc = rf_sqe(nvme_cmd_write, RF_NS, 0, 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&R.a.io, &w, &wc, data, sizeof(data)), 0);
	uint8_t keys[16] = { 0xb, 0, 0, 0, 0, 0, 0, 0, 0xa };
	struct nvme_sqe pc =
		rf_sqe(nvme_cmd_resv_acquire, RF_NS, rf_cdw10(PREEMPT_ABORT, false, WE, 0), 0);
	CU_ASSERT_EQUAL_FATAL(fx_start(&R.b.io, &p, &pc, keys, sizeof(keys)), 0);
	rf_tick(&R);
	CU_ASSERT_FALSE(fx_done(&p));
	h->io->done_bytes = h->io->len;
	h->io->done(h->io, 0);
	rf_tick(&R);
	CU_ASSERT_TRUE(fx_done(&w));
	CU_ASSERT_TRUE_FATAL(fx_done(&p));
	CU_ASSERT_EQUAL(p.status, 0);
	unhold_ns(ram);
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_write), RF_CONFLICT);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_write), 0);
	teardown();
}

const struct unit_test resv_cmd_tests[] = {
	{ "commands_of_queues_on_the_main_group_run_there",
	  commands_of_queues_on_the_main_group_run_there },
	{ "reservation_commands_on_a_namespace_without_reservations_are_invalid_opcode",
	  reservation_commands_on_a_namespace_without_reservations_are_invalid_opcode },
	{ "report_without_eds_is_host_identifier_inconsistent_format",
	  report_without_eds_is_host_identifier_inconsistent_format },
	{ "report_numd_below_the_header_or_above_mdts_is_invalid_field",
	  report_numd_below_the_header_or_above_mdts_is_invalid_field },
	{ "register_with_data_of_another_length_is_sgl_data_length_invalid",
	  register_with_data_of_another_length_is_sgl_data_length_invalid },
	{ "release_takes_8_or_16_bytes_of_data", release_takes_8_or_16_bytes_of_data },
	{ "register_acquire_and_report_show_registrants_holder_and_generation",
	  register_acquire_and_report_show_registrants_holder_and_generation },
	{ "report_cut_by_numd_counts_every_registrant",
	  report_cut_by_numd_counts_every_registrant },
	{ "statuses_of_malformed_and_refused_commands_reach_the_host",
	  statuses_of_malformed_and_refused_commands_reach_the_host },
	{ "generation_moves_on_register_preempt_and_clear_not_acquire_or_release",
	  generation_moves_on_register_preempt_and_clear_not_acquire_or_release },
	{ "two_controllers_of_one_host_share_its_registration",
	  two_controllers_of_one_host_share_its_registration },
	{ "a_controller_connecting_later_meets_the_reservation",
	  a_controller_connecting_later_meets_the_reservation },
	{ "preempt_moves_the_reservation_and_the_preempted_host_loses_its_writes",
	  preempt_moves_the_reservation_and_the_preempted_host_loses_its_writes },
	{ "preempt_and_abort_completes_after_the_commands_admitted_before_it",
	  preempt_and_abort_completes_after_the_commands_admitted_before_it },
	{ "preempt_and_abort_with_nothing_in_flight_completes_at_once",
	  preempt_and_abort_with_nothing_in_flight_completes_at_once },
	{ "preempt_and_abort_that_fails_does_not_wait",
	  preempt_and_abort_that_fails_does_not_wait },
	{ NULL, NULL },
};
