/* NVMe/RDMA CM private data: which connect requests are rejected with which status, and
 * what the accept/reject data carries (nvme/rdma-cm.c); the host's side: the request it
 * sends and the status it reads out of a reject. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <string.h>
#include "nvme/rdma-cm.h"
#include "tests/unit/suites.h"

static const struct nvme_rdma_cm_limits lim = {
	.admin_queue_size = 32,
	.io_queue_size = 128,
	.max_qid = 4,
};

/* The 32 bytes a host sends, in a 64-byte zeroed buffer (the CM may deliver padding). */
static uint8_t buf[64];
static const void *cm_req(uint16_t recfmt, uint16_t qid, uint16_t hrqsize, uint16_t hsqsize)
{
	struct nvme_rdma_cm_req r;
	memset(&r, 0, sizeof(r));
	r.recfmt = htole16(recfmt);
	r.qid = htole16(qid);
	r.hrqsize = htole16(hrqsize);
	r.hsqsize = htole16(hsqsize);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &r, sizeof(r));
	return buf;
}

static int parse(const void *p, size_t len, struct nvme_rdma_cm_conn *c)
{
	return nvme_rdma_cm_parse_req(p, len, &lim, c);
}

static void private_data_shorter_than_32_bytes_is_rejected_with_invalid_len(void)
{
	struct nvme_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 32, 31), 31, &c), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(parse(NULL, 32, &c), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 32, 31), 0, &c), NVME_RDMA_CM_INVALID_LEN);
}

static void nonzero_recfmt_is_rejected_with_invalid_recfmt(void)
{
	struct nvme_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(1, 0, 32, 31), 32, &c), NVME_RDMA_CM_INVALID_RECFMT);
	/* recfmt is checked before anything else in the data */
	CU_ASSERT_EQUAL(parse(cm_req(0x100, 999, 0, 0), 32, &c), NVME_RDMA_CM_INVALID_RECFMT);
}

static void linux_admin_queue_request_is_accepted_with_32_receives(void)
{
	struct nvme_rdma_cm_conn c;
	memset(&c, 0xff, sizeof(c));
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 32, 31), 32, &c), 0);
	CU_ASSERT_EQUAL(c.qid, 0);
	CU_ASSERT_EQUAL(c.recv_depth, 32);
	CU_ASSERT_EQUAL(c.hrqsize, 32);
	CU_ASSERT_EQUAL(c.cntlid, 0);
}

static void padded_private_data_longer_than_32_bytes_is_accepted(void)
{
	struct nvme_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 128, 127), 56, &c), 0);
	CU_ASSERT_EQUAL(c.qid, 1);
	CU_ASSERT_EQUAL(c.recv_depth, 128);
}

static void admin_hsqsize_above_32_entries_is_rejected_with_invalid_hsqsize(void)
{
	struct nvme_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 33, 32), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 128, 127), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
}

static void io_hsqsize_above_port_max_queue_size_is_rejected_with_invalid_hsqsize(void)
{
	struct nvme_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 129, 128), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
	/* exactly the port's limit is fine; the admin limit does not apply to I/O queues */
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 128, 127), 32, &c), 0);
	CU_ASSERT_EQUAL(parse(cm_req(0, 2, 64, 63), 32, &c), 0);
	CU_ASSERT_EQUAL(c.recv_depth, 64);
}

static void zero_hsqsize_is_rejected_with_invalid_hsqsize(void)
{
	struct nvme_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 32, 0), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 32, 0), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 2, 1), 32, &c), 0);
}

static void io_qid_above_max_qid_is_rejected_with_invalid_qid(void)
{
	struct nvme_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 5, 128, 127), 32, &c), NVME_RDMA_CM_INVALID_QID);
	CU_ASSERT_EQUAL(parse(cm_req(0, 0xffff, 128, 127), 32, &c), NVME_RDMA_CM_INVALID_QID);
	CU_ASSERT_EQUAL(parse(cm_req(0, 4, 128, 127), 32, &c), 0);
}

static void hrqsize_below_hsqsize_plus_one_is_rejected_with_invalid_hrqsize(void)
{
	struct nvme_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 127, 127), 32, &c), NVME_RDMA_CM_INVALID_HRQSIZE);
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 0, 31), 32, &c), NVME_RDMA_CM_INVALID_HRQSIZE);
	/* a host with more receives than it needs is fine */
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 256, 127), 32, &c), 0);
	CU_ASSERT_EQUAL(c.hrqsize, 256);
}

static void accept_data_carries_crqsize_little_endian(void)
{
	struct nvme_rdma_cm_rep rep;
	memset(&rep, 0xaa, sizeof(rep));
	nvme_rdma_cm_build_rep(&rep, 0x0180);
	const uint8_t *p = (const uint8_t *)&rep;
	CU_ASSERT_EQUAL(p[0], 0);
	CU_ASSERT_EQUAL(p[1], 0);
	CU_ASSERT_EQUAL(p[2], 0x80);
	CU_ASSERT_EQUAL(p[3], 0x01);
	for (size_t i = 4; i < sizeof(rep); i++)
		CU_ASSERT_EQUAL(p[i], 0);
}

static void reject_data_carries_status_little_endian(void)
{
	struct nvme_rdma_cm_rej rej;
	nvme_rdma_cm_build_rej(&rej, NVME_RDMA_CM_INVALID_HSQSIZE);
	const uint8_t *p = (const uint8_t *)&rej;
	CU_ASSERT_EQUAL(sizeof(rej), 4);
	CU_ASSERT_EQUAL(p[0] | p[1] << 8, 0);
	CU_ASSERT_EQUAL(p[2], 0x04);
	CU_ASSERT_EQUAL(p[3], 0);
	CU_ASSERT_STRING_EQUAL(nvme_rdma_cm_status_str(NVME_RDMA_CM_INVALID_HSQSIZE),
			       "invalid HSQSIZE");
	CU_ASSERT_STRING_EQUAL(nvme_rdma_cm_status_str(99), "unknown");
}

static void cm_req_of_io_queue_carries_qid_hrqsize_size_and_hsqsize_size_minus_one(void)
{
	struct nvme_rdma_cm_req r;
	memset(&r, 0xaa, sizeof(r));
	nvme_rdma_cm_build_req(&r, 3, 128);
	const uint8_t *b = (const uint8_t *)&r;
	CU_ASSERT_EQUAL(b[0] | b[1] << 8, 0);   /* recfmt */
	CU_ASSERT_EQUAL(b[2] | b[3] << 8, 3);   /* qid */
	CU_ASSERT_EQUAL(b[4] | b[5] << 8, 128); /* hrqsize, 1's based */
	CU_ASSERT_EQUAL(b[6] | b[7] << 8, 127); /* hsqsize, 0's based */
	for (unsigned i = 8; i < 32; i++)       /* cntlid and reserved: zero, as Linux */
		CU_ASSERT_EQUAL(b[i], 0);
}

static void cm_req_of_admin_queue_is_hrqsize_32_hsqsize_31(void)
{
	struct nvme_rdma_cm_req r;
	nvme_rdma_cm_build_req(&r, 0, 32);
	CU_ASSERT_EQUAL(le16toh(r.qid), 0);
	CU_ASSERT_EQUAL(le16toh(r.hrqsize), 32);
	CU_ASSERT_EQUAL(le16toh(r.hsqsize), 31);
}

static void host_request_is_accepted_by_the_target_parser_as_it_was_built(void)
{
	struct nvme_rdma_cm_req r;
	struct nvme_rdma_cm_conn c;
	nvme_rdma_cm_build_req(&r, 4, 128);
	CU_ASSERT_EQUAL(parse(&r, sizeof(r), &c), 0);
	CU_ASSERT_EQUAL(c.qid, 4);
	CU_ASSERT_EQUAL(c.recv_depth, 128); /* HSQSIZE + 1 = the host's queue size */
	CU_ASSERT_EQUAL(c.hrqsize, 128);
	CU_ASSERT_EQUAL(c.cntlid, 0);
	nvme_rdma_cm_build_req(&r, 0, 32);
	CU_ASSERT_EQUAL(parse(&r, sizeof(r), &c), 0);
	CU_ASSERT_EQUAL(c.recv_depth, 32);
}

static void reject_status_reads_back_from_padded_reject_data(void)
{
	uint8_t pdata[148]; /* IB pads REJ private data to 148 bytes */
	struct nvme_rdma_cm_rej rej;
	memset(pdata, 0xee, sizeof(pdata));
	nvme_rdma_cm_build_rej(&rej, NVME_RDMA_CM_NO_RSC);
	memcpy(pdata + 1, &rej, sizeof(rej)); /* unaligned, as the CM may hand it over */
	CU_ASSERT_EQUAL(nvme_rdma_cm_parse_rej(pdata + 1, sizeof(pdata) - 1), NVME_RDMA_CM_NO_RSC);
	CU_ASSERT_EQUAL(nvme_rdma_cm_parse_rej(pdata + 1, sizeof(rej)), NVME_RDMA_CM_NO_RSC);
	const uint8_t big[4] = { 0, 0, 0x34, 0x12 }; /* STS little endian, any value */
	CU_ASSERT_EQUAL(nvme_rdma_cm_parse_rej(big, sizeof(big)), 0x1234);
}

static void reject_data_shorter_than_4_bytes_or_missing_has_no_status(void)
{
	const uint8_t three[3] = { 0, 0, 4 };
	CU_ASSERT_EQUAL(nvme_rdma_cm_parse_rej(three, sizeof(three)), -1);
	CU_ASSERT_EQUAL(nvme_rdma_cm_parse_rej(three, 0), -1);
	CU_ASSERT_EQUAL(nvme_rdma_cm_parse_rej(NULL, 4), -1);
}

/* The host offers no RDMA READ responder resources: nothing could fetch write data or the
 * admin Connect's data (always keyed), so the request is refused with Invalid IRD (07h),
 * as SPDK does; a device that cannot issue READs is out of resources. */
static void host_ird_0_is_rejected_with_invalid_ird(void)
{
	uint32_t ord = 77;
	CU_ASSERT_EQUAL(nvme_rdma_cm_read_depth(0, 16, &ord), NVME_RDMA_CM_INVALID_IRD);
	CU_ASSERT_EQUAL(NVME_RDMA_CM_INVALID_IRD, 0x07);
	CU_ASSERT_EQUAL(nvme_rdma_cm_read_depth(0, 0, &ord), NVME_RDMA_CM_INVALID_IRD);
	CU_ASSERT_EQUAL(nvme_rdma_cm_read_depth(4, 0, &ord), NVME_RDMA_CM_NO_RSC);
	CU_ASSERT_EQUAL(ord, 77); /* untouched on a reject */
}

/* Otherwise the depth is clamped, never refused (nvmet: min(initiator_depth,
 * max_qp_init_rd_atom)): the smaller of what the host serves and the device issues. */
static void read_depth_is_the_smaller_of_host_ird_and_device_max_ord(void)
{
	uint32_t ord = 0;
	CU_ASSERT_EQUAL(nvme_rdma_cm_read_depth(128, 16, &ord), 0);
	CU_ASSERT_EQUAL(ord, 16);
	CU_ASSERT_EQUAL(nvme_rdma_cm_read_depth(4, 16, &ord), 0);
	CU_ASSERT_EQUAL(ord, 4);
	CU_ASSERT_EQUAL(nvme_rdma_cm_read_depth(1, 1, &ord), 0);
	CU_ASSERT_EQUAL(ord, 1);
	CU_ASSERT_EQUAL(nvme_rdma_cm_read_depth(255, 255, &ord), 0);
	CU_ASSERT_EQUAL(ord, 255);
}

static void ird_and_ord_statuses_are_named_after_the_depth_refused(void)
{
	CU_ASSERT_EQUAL(NVME_RDMA_CM_INVALID_ORD, 0x08);
	CU_ASSERT_STRING_EQUAL(nvme_rdma_cm_status_str(NVME_RDMA_CM_INVALID_IRD),
			       "invalid IRD: the host's RDMA READ responder resources");
	CU_ASSERT_STRING_EQUAL(nvme_rdma_cm_status_str(NVME_RDMA_CM_INVALID_ORD),
			       "invalid ORD: the host's RDMA READ initiator depth");
}

const struct unit_test nvme_rdma_cm_tests[] = {
	{ "host_ird_0_is_rejected_with_invalid_ird", host_ird_0_is_rejected_with_invalid_ird },
	{ "read_depth_is_the_smaller_of_host_ird_and_device_max_ord",
	  read_depth_is_the_smaller_of_host_ird_and_device_max_ord },
	{ "ird_and_ord_statuses_are_named_after_the_depth_refused",
	  ird_and_ord_statuses_are_named_after_the_depth_refused },
	{ "private_data_shorter_than_32_bytes_is_rejected_with_invalid_len",
	  private_data_shorter_than_32_bytes_is_rejected_with_invalid_len },
	{ "nonzero_recfmt_is_rejected_with_invalid_recfmt",
	  nonzero_recfmt_is_rejected_with_invalid_recfmt },
	{ "linux_admin_queue_request_is_accepted_with_32_receives",
	  linux_admin_queue_request_is_accepted_with_32_receives },
	{ "padded_private_data_longer_than_32_bytes_is_accepted",
	  padded_private_data_longer_than_32_bytes_is_accepted },
	{ "admin_hsqsize_above_32_entries_is_rejected_with_invalid_hsqsize",
	  admin_hsqsize_above_32_entries_is_rejected_with_invalid_hsqsize },
	{ "io_hsqsize_above_port_max_queue_size_is_rejected_with_invalid_hsqsize",
	  io_hsqsize_above_port_max_queue_size_is_rejected_with_invalid_hsqsize },
	{ "zero_hsqsize_is_rejected_with_invalid_hsqsize",
	  zero_hsqsize_is_rejected_with_invalid_hsqsize },
	{ "io_qid_above_max_qid_is_rejected_with_invalid_qid",
	  io_qid_above_max_qid_is_rejected_with_invalid_qid },
	{ "hrqsize_below_hsqsize_plus_one_is_rejected_with_invalid_hrqsize",
	  hrqsize_below_hsqsize_plus_one_is_rejected_with_invalid_hrqsize },
	{ "accept_data_carries_crqsize_little_endian", accept_data_carries_crqsize_little_endian },
	{ "reject_data_carries_status_little_endian", reject_data_carries_status_little_endian },
	{ "cm_req_of_io_queue_carries_qid_hrqsize_size_and_hsqsize_size_minus_one",
	  cm_req_of_io_queue_carries_qid_hrqsize_size_and_hsqsize_size_minus_one },
	{ "cm_req_of_admin_queue_is_hrqsize_32_hsqsize_31",
	  cm_req_of_admin_queue_is_hrqsize_32_hsqsize_31 },
	{ "host_request_is_accepted_by_the_target_parser_as_it_was_built",
	  host_request_is_accepted_by_the_target_parser_as_it_was_built },
	{ "reject_status_reads_back_from_padded_reject_data",
	  reject_status_reads_back_from_padded_reject_data },
	{ "reject_data_shorter_than_4_bytes_or_missing_has_no_status",
	  reject_data_shorter_than_4_bytes_or_missing_has_no_status },
	{ NULL, NULL },
};
