/* NVMe/RDMA CM private data: which connect requests are rejected with which status, and
 * what the accept/reject data carries (rdma/cm-private.c). */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <string.h>
#include "rdma/cm-private.h"
#include "target/core.h"
#include "tests/unit/suites.h"

static const struct nvmf_rdma_cm_limits lim = {
	.admin_queue_size = NVMF_ADMIN_QUEUE_SIZE, .io_queue_size = 128, .max_qid = 4,
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

static int parse(const void *p, size_t len, struct nvmf_rdma_cm_conn *c)
{
	return nvmf_rdma_cm_parse_req(p, len, &lim, c);
}

static void private_data_shorter_than_32_bytes_is_rejected_with_invalid_len(void)
{
	struct nvmf_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 32, 31), 31, &c), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(parse(NULL, 32, &c), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 32, 31), 0, &c), NVME_RDMA_CM_INVALID_LEN);
}

static void nonzero_recfmt_is_rejected_with_invalid_recfmt(void)
{
	struct nvmf_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(1, 0, 32, 31), 32, &c), NVME_RDMA_CM_INVALID_RECFMT);
	/* recfmt is checked before anything else in the data */
	CU_ASSERT_EQUAL(parse(cm_req(0x100, 999, 0, 0), 32, &c), NVME_RDMA_CM_INVALID_RECFMT);
}

static void linux_admin_queue_request_is_accepted_with_32_receives(void)
{
	struct nvmf_rdma_cm_conn c;
	memset(&c, 0xff, sizeof(c));
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 32, 31), 32, &c), 0);
	CU_ASSERT_EQUAL(c.qid, 0);
	CU_ASSERT_EQUAL(c.recv_depth, 32);
	CU_ASSERT_EQUAL(c.hrqsize, 32);
	CU_ASSERT_EQUAL(c.cntlid, 0);
}

static void padded_private_data_longer_than_32_bytes_is_accepted(void)
{
	struct nvmf_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 128, 127), 56, &c), 0);
	CU_ASSERT_EQUAL(c.qid, 1);
	CU_ASSERT_EQUAL(c.recv_depth, 128);
}

static void admin_hsqsize_above_32_entries_is_rejected_with_invalid_hsqsize(void)
{
	struct nvmf_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 33, 32), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 128, 127), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
}

static void io_hsqsize_above_port_max_queue_size_is_rejected_with_invalid_hsqsize(void)
{
	struct nvmf_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 129, 128), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
	/* exactly the port's limit is fine; the admin limit does not apply to I/O queues */
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 128, 127), 32, &c), 0);
	CU_ASSERT_EQUAL(parse(cm_req(0, 2, 64, 63), 32, &c), 0);
	CU_ASSERT_EQUAL(c.recv_depth, 64);
}

static void zero_hsqsize_is_rejected_with_invalid_hsqsize(void)
{
	struct nvmf_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 0, 32, 0), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 32, 0), 32, &c), NVME_RDMA_CM_INVALID_HSQSIZE);
	CU_ASSERT_EQUAL(parse(cm_req(0, 1, 2, 1), 32, &c), 0);
}

static void io_qid_above_max_qid_is_rejected_with_invalid_qid(void)
{
	struct nvmf_rdma_cm_conn c;
	CU_ASSERT_EQUAL(parse(cm_req(0, 5, 128, 127), 32, &c), NVME_RDMA_CM_INVALID_QID);
	CU_ASSERT_EQUAL(parse(cm_req(0, 0xffff, 128, 127), 32, &c), NVME_RDMA_CM_INVALID_QID);
	CU_ASSERT_EQUAL(parse(cm_req(0, 4, 128, 127), 32, &c), 0);
}

static void hrqsize_below_hsqsize_plus_one_is_rejected_with_invalid_hrqsize(void)
{
	struct nvmf_rdma_cm_conn c;
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
	nvmf_rdma_cm_build_rep(&rep, 0x0180);
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
	nvmf_rdma_cm_build_rej(&rej, NVME_RDMA_CM_INVALID_HSQSIZE);
	const uint8_t *p = (const uint8_t *)&rej;
	CU_ASSERT_EQUAL(sizeof(rej), 4);
	CU_ASSERT_EQUAL(p[0] | p[1] << 8, 0);
	CU_ASSERT_EQUAL(p[2], 0x04);
	CU_ASSERT_EQUAL(p[3], 0);
	CU_ASSERT_STRING_EQUAL(nvmf_rdma_cm_status_str(NVME_RDMA_CM_INVALID_HSQSIZE), "invalid HSQSIZE");
	CU_ASSERT_STRING_EQUAL(nvmf_rdma_cm_status_str(99), "unknown");
}

static void port_queue_size_minus_one_means_default_and_is_clamped(void)
{
	struct nvmf_port_config pc;
	memset(&pc, 0, sizeof(pc));
	pc.max_queue_size = UINT32_MAX;
	CU_ASSERT_EQUAL(nvmf_rdma_port_queue_size(&pc), NVMF_DEFAULT_QUEUE_SIZE);
	pc.max_queue_size = 0;
	CU_ASSERT_EQUAL(nvmf_rdma_port_queue_size(&pc), NVMF_DEFAULT_QUEUE_SIZE);
	pc.max_queue_size = 5000;
	CU_ASSERT_EQUAL(nvmf_rdma_port_queue_size(&pc), NVMF_MAX_QUEUE_SIZE);
	pc.max_queue_size = 8;
	CU_ASSERT_EQUAL(nvmf_rdma_port_queue_size(&pc), NVMF_MIN_QUEUE_SIZE);
	pc.max_queue_size = 64;
	CU_ASSERT_EQUAL(nvmf_rdma_port_queue_size(&pc), 64);
}

static void port_inline_size_minus_one_means_default_and_zero_means_none(void)
{
	struct nvmf_port_config pc;
	memset(&pc, 0, sizeof(pc));
	pc.inline_data_size = UINT32_MAX;
	CU_ASSERT_EQUAL(nvmf_rdma_port_inline_size(&pc), NVMF_DEFAULT_INLINE);
	pc.inline_data_size = 0;
	CU_ASSERT_EQUAL(nvmf_rdma_port_inline_size(&pc), 0);
	pc.inline_data_size = 1u << 20;
	CU_ASSERT_EQUAL(nvmf_rdma_port_inline_size(&pc), NVMF_MAX_INLINE);
	pc.inline_data_size = 4096;
	CU_ASSERT_EQUAL(nvmf_rdma_port_inline_size(&pc), 4096);
}

static void port_limits_take_the_largest_qid_max_of_exposed_subsystems(void)
{
	struct nvmf_port_config pc;
	struct nvmf_subsys_config c1, c2;
	struct nvmf_subsys s1, s2, disc;
	memset(&pc, 0, sizeof(pc));
	memset(&c1, 0, sizeof(c1));
	memset(&c2, 0, sizeof(c2));
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	memset(&disc, 0, sizeof(disc));
	pc.max_queue_size = 64;
	c1.qid_max = 8;
	c2.qid_max = 16;
	s1.cfg = &c1;
	s2.cfg = &c2;
	disc.type = NVMF_SUBSYS_DISCOVERY;
	struct nvmf_subsys *list[] = { &s1, &disc, &s2 };
	struct nvmf_port port = { .cfg = &pc, .subsys = list, .n_subsys = 3 };
	struct nvmf_rdma_cm_limits l;
	nvmf_rdma_cm_port_limits(&port, &l);
	CU_ASSERT_EQUAL(l.admin_queue_size, 32);
	CU_ASSERT_EQUAL(l.io_queue_size, 64);
	CU_ASSERT_EQUAL(l.max_qid, 16);
	/* qid_max 0 in a config means the default, 128 */
	c2.qid_max = 0;
	nvmf_rdma_cm_port_limits(&port, &l);
	CU_ASSERT_EQUAL(l.max_qid, 128);
	/* a port with only discovery takes no I/O queue */
	port.subsys = (struct nvmf_subsys *[]){ &disc };
	port.n_subsys = 1;
	nvmf_rdma_cm_port_limits(&port, &l);
	CU_ASSERT_EQUAL(l.max_qid, 0);
}

const struct unit_test rdma_cm_private_tests[] = {
	{"private_data_shorter_than_32_bytes_is_rejected_with_invalid_len", private_data_shorter_than_32_bytes_is_rejected_with_invalid_len},
	{"nonzero_recfmt_is_rejected_with_invalid_recfmt", nonzero_recfmt_is_rejected_with_invalid_recfmt},
	{"linux_admin_queue_request_is_accepted_with_32_receives", linux_admin_queue_request_is_accepted_with_32_receives},
	{"padded_private_data_longer_than_32_bytes_is_accepted", padded_private_data_longer_than_32_bytes_is_accepted},
	{"admin_hsqsize_above_32_entries_is_rejected_with_invalid_hsqsize", admin_hsqsize_above_32_entries_is_rejected_with_invalid_hsqsize},
	{"io_hsqsize_above_port_max_queue_size_is_rejected_with_invalid_hsqsize", io_hsqsize_above_port_max_queue_size_is_rejected_with_invalid_hsqsize},
	{"zero_hsqsize_is_rejected_with_invalid_hsqsize", zero_hsqsize_is_rejected_with_invalid_hsqsize},
	{"io_qid_above_max_qid_is_rejected_with_invalid_qid", io_qid_above_max_qid_is_rejected_with_invalid_qid},
	{"hrqsize_below_hsqsize_plus_one_is_rejected_with_invalid_hrqsize", hrqsize_below_hsqsize_plus_one_is_rejected_with_invalid_hrqsize},
	{"accept_data_carries_crqsize_little_endian", accept_data_carries_crqsize_little_endian},
	{"reject_data_carries_status_little_endian", reject_data_carries_status_little_endian},
	{"port_queue_size_minus_one_means_default_and_is_clamped", port_queue_size_minus_one_means_default_and_is_clamped},
	{"port_inline_size_minus_one_means_default_and_zero_means_none", port_inline_size_minus_one_means_default_and_zero_means_none},
	{"port_limits_take_the_largest_qid_max_of_exposed_subsystems", port_limits_take_the_largest_qid_max_of_exposed_subsystems},
	{NULL, NULL},
};
