/* libnvmf I/O: async submission with many outstanding commands, MDTS splitting, queue
 * flow control, statuses, in-capsule writes, blocking helpers - through the loop host
 * transport against our target's RAM namespaces (ns 1: 512 B blocks, ns 2: 4 KiB). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/wire.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

static struct lpf F;
static struct nvmf_queue *q;

static void setup(const struct loop_host_params *p, unsigned queue_size)
{
	/* Driven: the tests count polls and expect what was sent to have completed. */
	struct loop_host_params d = { 0 };
	if (p)
		d = *p;
	d.driven = true;
	lpf_target(&F, &d);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.queue_size = queue_size;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	q = nvmf_io_queue(F.ctrl, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
}

/* Poll q until @d has been called (at most 100000 polls, none sleeps: the target is
 * driven); a poll that fails, or the bound reached, ends the test. */
static void wait_done(struct lpf_done *d)
{
	for (int i = 0; i < 100000 && !d->calls; i++)
		CU_ASSERT_FATAL(nvmf_queue_poll(q, 0) >= 0);
	CU_ASSERT_FATAL(d->calls > 0);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed + (i >> 9));
}

static void write_then_read_back_with_32_outstanding(void)
{
	setup(NULL, 0);
	enum { N = 32, NLB = 8, BYTES = NLB * 512 };
	uint8_t *w = malloc(N * BYTES), *r = calloc(N, BYTES);
	struct lpf_done d[N];
	memset(d, 0, sizeof(d));
	fill(w, N * BYTES, 5);
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(nvmf_submit_write(q, 1, (uint64_t)i * NLB, NLB, w + i * BYTES,
							lpf_done_cb, &d[i]),
				      0);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), N);
	int reaped = 0;
	while (reaped < N) {
		int n = nvmf_queue_poll(q, 0);
		CU_ASSERT_FATAL(n >= 0);
		reaped += n;
	}
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), 0);
	for (int i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(d[i].calls, 1);
		CU_ASSERT_EQUAL(d[i].status, 0);
		CU_ASSERT_TRUE(d[i].had_cqe);
	}
	memset(d, 0, sizeof(d));
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q, 1, (uint64_t)i * NLB, NLB, r + i * BYTES,
						       lpf_done_cb, &d[i]),
				      0);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), N);
	while (nvmf_queue_outstanding(q))
		CU_ASSERT_FATAL(nvmf_queue_poll(q, 0) >= 0);
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(d[i].status, 0);
	CU_ASSERT_EQUAL(memcmp(w, r, N * BYTES), 0);
	free(w);
	free(r);
	lpf_teardown(&F);
}

static void transfer_larger_than_mdts_is_split_and_completes_once(void)
{
	setup(&(struct loop_host_params){ .mdts = 5 }, 0); /* 128 KiB */
	CU_ASSERT_EQUAL(nvmf_ctrl_max_xfer(F.ctrl), 128u << 10);
	const uint32_t bytes = 4u << 20, nlb = bytes / 512;
	uint8_t *w = malloc(bytes), *r = calloc(1, bytes);
	fill(w, bytes, 9);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_write(q, 1, 0, nlb, w, lpf_done_cb, &d), 0);
	while (nvmf_queue_outstanding(q))
		CU_ASSERT_FATAL(nvmf_queue_poll(q, 0) >= 0);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(loop_host_io_count(F.lh, nvme_cmd_write), 32);
	CU_ASSERT_EQUAL(loop_host_max_io_len(F.lh), 128u << 10);
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q, 1, 0, nlb, r, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, bytes), 0);
	free(w);
	free(r);
	lpf_teardown(&F);
}

static void split_transfer_waits_for_free_slots(void)
{
	/* 32 parts of 128 KiB through a 16-entry queue (15 outstanding at most). */
	setup(&(struct loop_host_params){ .mdts = 5 }, 16);
	CU_ASSERT_EQUAL(nvmf_ctrl_queue_size(F.ctrl), 16);
	const uint32_t bytes = 4u << 20, nlb = bytes / 512;
	uint8_t *w = malloc(bytes), *r = calloc(1, bytes);
	fill(w, bytes, 77);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_write(q, 1, 0, nlb, w, lpf_done_cb, &d), 0);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), 15);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(loop_host_io_count(F.lh, nvme_cmd_write), 32);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, nlb, r), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, bytes), 0);
	free(w);
	free(r);
	lpf_teardown(&F);
}

static void split_transfer_reports_connection_loss_once(void)
{
	setup(&(struct loop_host_params){ .mdts = 5 }, 16);
	const uint32_t bytes = 4u << 20;
	uint8_t *w = calloc(1, bytes);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_write(q, 1, 0, bytes / 512, w, lpf_done_cb, &d), 0);
	loop_host_break(F.lh);
	CU_ASSERT_EQUAL(nvmf_queue_poll(q, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), 0);
	free(w);
	lpf_teardown(&F);
}

static void read_past_end_returns_lba_out_of_range(void)
{
	setup(NULL, 0);
	struct nvmf_ns_info info;
	CU_ASSERT_EQUAL_FATAL(nvmf_ns_info(F.ctrl, 1, &info), 0);
	uint8_t buf[1024];
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q, 1, info.nsze - 1, 2, buf, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status & 0x7ff, NVME_SC_LBA_RANGE);
	CU_ASSERT_TRUE(d.had_cqe);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_strerror(d.status), "LBA_RANGE"));
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, info.nsze, 1, buf) & 0x7ff, NVME_SC_LBA_RANGE);
	lpf_teardown(&F);
}

static void read_of_inactive_namespace_returns_invalid_ns(void)
{
	setup(NULL, 0);
	uint8_t buf[512];
	struct lpf_done d = { 0 };
	int rc = nvmf_submit_read(q, 7, 0, 1, buf, lpf_done_cb, &d);
	CU_ASSERT_EQUAL(rc & 0x7ff, NVME_SC_INVALID_NS);
	CU_ASSERT_EQUAL(d.calls, 0);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), 0);
	lpf_teardown(&F);
}

static void small_writes_travel_in_capsule(void)
{
	setup(NULL, 0); /* target in-capsule size 8 KiB */
	uint8_t buf[16384];
	fill(buf, sizeof(buf), 1);
	CU_ASSERT_EQUAL(nvmf_write(F.ctrl, 1, 0, 8, buf), 0); /* 4 KiB */
	CU_ASSERT_EQUAL(loop_host_incapsule_writes(F.lh), 1);
	CU_ASSERT_EQUAL(nvmf_write(F.ctrl, 1, 0, 32, buf), 0); /* 16 KiB: keyed SGL */
	CU_ASSERT_EQUAL(loop_host_incapsule_writes(F.lh), 1);
	uint8_t back[16384];
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 32, back), 0);
	CU_ASSERT_EQUAL(memcmp(buf, back, sizeof(buf)), 0);
	lpf_teardown(&F);
}

static void compare_write_zeroes_flush_and_dsm_complete(void)
{
	setup(NULL, 0);
	uint8_t buf[4096], other[4096], back[4096];
	fill(buf, sizeof(buf), 3);
	memcpy(other, buf, sizeof(other));
	other[100] ^= 0xff;
	CU_ASSERT_EQUAL(nvmf_write(F.ctrl, 2, 3, 1, buf), 0); /* ns 2: one 4 KiB block */
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_compare(q, 2, 3, 1, buf, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status, 0);
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_compare(q, 2, 3, 1, other, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status & 0x7ff, (NVME_SCT_MEDIA << 8) | NVME_SC_COMPARE_FAILED);
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_write_zeroes(q, 2, 3, 1, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 2, 3, 1, back), 0);
	memset(other, 0, sizeof(other));
	CU_ASSERT_EQUAL(memcmp(back, other, sizeof(back)), 0);
	CU_ASSERT_EQUAL(nvmf_flush(F.ctrl, 2), 0);
	struct nvme_dsm_range r = { .nlb = htole32(1), .slba = htole64(3) };
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_dsm(q, 2, &r, 1, NVME_DSMGMT_AD, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(nvmf_submit_dsm(q, 2, &r, 0, NVME_DSMGMT_AD, lpf_done_cb, &d), -EINVAL);
	lpf_teardown(&F);
}

/* A copy of two ranges read back at SDLBA through libnvmf, a Verify, and the statuses the
 * target answers for what it refuses (the SQEs as built are what it parses). */
static void copy_and_verify_through_the_library(void)
{
	setup(NULL, 0);
	uint8_t w[8 * 512], r[6 * 512];
	fill(w, sizeof(w), 9);
	CU_ASSERT_EQUAL_FATAL(nvmf_write(F.ctrl, 1, 0, 8, w), 0);
	struct nvme_copy_range cr[2];
	memset(cr, 0, sizeof(cr));
	cr[0].slba = htole64(6);
	cr[0].nlb = htole16(1); /* 2 blocks, 0's based */
	cr[1].slba = htole64(0);
	cr[1].nlb = htole16(3);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_copy(q, 1, 200, cr, 2, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 200, 6, r), 0);
	CU_ASSERT_EQUAL(memcmp(r, w + 6 * 512, 2 * 512), 0);
	CU_ASSERT_EQUAL(memcmp(r + 2 * 512, w, 4 * 512), 0);
	/* The blocking form, one range. */
	CU_ASSERT_EQUAL(nvmf_copy(F.ctrl, 1, 300, cr + 1, 1), 0);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 300, 4, r), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, 4 * 512), 0);
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_verify(q, 1, 0, 8, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(nvmf_verify(F.ctrl, 1, 0, 8), 0);
	struct nvmf_ns_info info;
	CU_ASSERT_EQUAL_FATAL(nvmf_ns_info(F.ctrl, 1, &info), 0);
	CU_ASSERT_EQUAL(nvmf_verify(F.ctrl, 1, info.nsze - 1, 2) & 0x7ff, NVME_SC_LBA_RANGE);
	/* 129 ranges: past MSRC (127, 0's based): Command Size Limit Exceeded. */
	struct nvme_copy_range *many = calloc(129, sizeof(*many));
	CU_ASSERT_PTR_NOT_NULL_FATAL(many);
	CU_ASSERT_EQUAL(nvmf_copy(F.ctrl, 1, 0, many, 129) & 0x7ff,
			(NVME_SCT_CMD_SPECIFIC << 8) | NVME_SC_CMD_SIZE_LIMIT_EXCEEDED);
	free(many);
	CU_ASSERT_EQUAL(nvmf_copy(F.ctrl, 1, 0, cr, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_copy(F.ctrl, 1, 0, cr, 257), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_submit_copy(q, 1, 0, NULL, 1, lpf_done_cb, &d), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_verify(F.ctrl, 1, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_submit_verify(q, 1, 0, 0x10001, lpf_done_cb, &d), -EINVAL);
	lpf_teardown(&F);
}

static void raw_command_gets_its_cqe(void)
{
	setup(NULL, 0);
	struct nvme_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = nvme_cmd_read;
	sqe.nsid = htole32(2);
	sqe.cdw10 = htole32(0);
	sqe.cdw12 = htole32(0); /* one block */
	uint8_t buf[4096];
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_raw(q, &sqe, buf, sizeof(buf), false, lpf_done_cb, &d),
			      0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status, 0);
	/* A length the command does not describe: Data SGL Length Invalid. */
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_raw(q, &sqe, buf, 512, false, lpf_done_cb, &d), 0);
	wait_done(&d);
	CU_ASSERT_EQUAL(d.status & 0x7ff, NVME_SC_SGL_INVALID_DATA);
	CU_ASSERT_EQUAL(nvmf_submit_raw(q, &sqe, buf, (1u << 20) + 4096, false, lpf_done_cb, &d),
			-EINVAL);
	lpf_teardown(&F);
}

static void bad_arguments_return_einval(void)
{
	setup(NULL, 0);
	uint8_t buf[512];
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 0, buf, lpf_done_cb, &d), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 1, NULL, lpf_done_cb, &d), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 1, buf, NULL, &d), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_submit_read(NULL, 1, 0, 1, buf, lpf_done_cb, &d), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_queue_poll(NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(d.calls, 0);
	lpf_teardown(&F);
}

/* The reservation calls send what the spec says (the target's answers prove it): a key
 * registered, a reservation held and reported with its type and key,
 * a wrong key refused with Reservation Conflict, values outside a field -EINVAL. */
static void reservation_calls_register_acquire_report_release(void)
{
	setup(&(struct loop_host_params){ .resv = true }, 0);
	CU_ASSERT_EQUAL(nvmf_resv_register(F.ctrl, 1, NVMF_RESV_REGISTER, false, 0, 0,
					   0x1122334455667788ull),
			0);
	CU_ASSERT_EQUAL(nvmf_resv_acquire(F.ctrl, 1, NVMF_RESV_ACQUIRE, 3, false, 7, 0),
			NVME_SC_RESERVATION_CONFLICT | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvmf_resv_acquire(F.ctrl, 1, NVMF_RESV_ACQUIRE, 3, false,
					  0x1122334455667788ull, 0),
			0);
	uint8_t buf[128];
	memset(buf, 0xee, sizeof(buf));
	CU_ASSERT_EQUAL(nvmf_resv_report(F.ctrl, 1, buf, sizeof(buf)), 0);
	const struct nvme_resv_status *h = (const void *)buf;
	const struct nvme_registered_ctrl_ext *e = (const void *)(buf + 64);
	CU_ASSERT_EQUAL(h->rtype, 3);
	CU_ASSERT_EQUAL(h->regctl[0], 1);
	CU_ASSERT_EQUAL(e->rcsts & 1, 1);
	CU_ASSERT_EQUAL(le64toh(e->rkey), 0x1122334455667788ull);
	CU_ASSERT_EQUAL(nvmf_resv_release(F.ctrl, 1, NVMF_RESV_RELEASE, 3, false,
					  0x1122334455667788ull),
			0);
	CU_ASSERT_EQUAL(nvmf_resv_report(F.ctrl, 1, buf, 64), 0);
	CU_ASSERT_EQUAL(h->rtype, 0);
	CU_ASSERT_EQUAL(h->regctl[0], 1);
	CU_ASSERT_EQUAL(
		nvmf_resv_release(F.ctrl, 1, NVMF_RESV_CLEAR, 0, false, 0x1122334455667788ull), 0);
	CU_ASSERT_EQUAL(nvmf_resv_report(F.ctrl, 1, buf, 64), 0);
	CU_ASSERT_EQUAL(h->regctl[0], 0);
	/* out of range: nothing sent */
	unsigned sent = loop_host_io_count(F.lh, nvme_cmd_resv_register) +
			loop_host_io_count(F.lh, nvme_cmd_resv_acquire) +
			loop_host_io_count(F.lh, nvme_cmd_resv_release) +
			loop_host_io_count(F.lh, nvme_cmd_resv_report);
	CU_ASSERT_EQUAL(nvmf_resv_register(F.ctrl, 1, 3, false, 0, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_resv_register(F.ctrl, 1, 0, false, 1, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_resv_acquire(F.ctrl, 1, 0, 0, false, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_resv_acquire(F.ctrl, 1, 0, 7, false, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_resv_release(F.ctrl, 1, NVMF_RESV_RELEASE, 0, false, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_resv_report(F.ctrl, 1, buf, 63), -EINVAL);
	CU_ASSERT_EQUAL(loop_host_io_count(F.lh, nvme_cmd_resv_register) +
				loop_host_io_count(F.lh, nvme_cmd_resv_acquire) +
				loop_host_io_count(F.lh, nvme_cmd_resv_release) +
				loop_host_io_count(F.lh, nvme_cmd_resv_report),
			sent);
	lpf_teardown(&F);
}

const struct unit_test initiator_io_tests[] = {
	{ "reservation_calls_register_acquire_report_release",
	  reservation_calls_register_acquire_report_release },
	{ "write_then_read_back_with_32_outstanding", write_then_read_back_with_32_outstanding },
	{ "transfer_larger_than_mdts_is_split_and_completes_once",
	  transfer_larger_than_mdts_is_split_and_completes_once },
	{ "split_transfer_waits_for_free_slots", split_transfer_waits_for_free_slots },
	{ "split_transfer_reports_connection_loss_once",
	  split_transfer_reports_connection_loss_once },
	{ "read_past_end_returns_lba_out_of_range", read_past_end_returns_lba_out_of_range },
	{ "read_of_inactive_namespace_returns_invalid_ns",
	  read_of_inactive_namespace_returns_invalid_ns },
	{ "small_writes_travel_in_capsule", small_writes_travel_in_capsule },
	{ "compare_write_zeroes_flush_and_dsm_complete",
	  compare_write_zeroes_flush_and_dsm_complete },
	{ "copy_and_verify_through_the_library", copy_and_verify_through_the_library },
	{ "raw_command_gets_its_cqe", raw_command_gets_its_cqe },
	{ "bad_arguments_return_einval", bad_arguments_return_einval },
	{ NULL, NULL },
};
