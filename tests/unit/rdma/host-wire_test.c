/* The RDMA host transport's pure helpers (rdma/host-wire.c): CM REQ private data, reject
 * messages, data pointer encoding, in-capsule sizing, address parsing, region tables. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "rdma/host.h"
#include "tests/unit/suites.h"

static void cm_req_of_io_queue_carries_qid_hrqsize_size_and_hsqsize_size_minus_one(void)
{
	struct nvme_rdma_cm_req r;
	memset(&r, 0xaa, sizeof(r));
	nvmf_rh_build_cm_req(&r, 3, 128);
	const uint8_t *b = (const uint8_t *)&r;
	CU_ASSERT_EQUAL(b[0] | b[1] << 8, 0);     /* recfmt */
	CU_ASSERT_EQUAL(b[2] | b[3] << 8, 3);     /* qid */
	CU_ASSERT_EQUAL(b[4] | b[5] << 8, 128);   /* hrqsize, 1's based */
	CU_ASSERT_EQUAL(b[6] | b[7] << 8, 127);   /* hsqsize, 0's based */
	for (unsigned i = 8; i < 32; i++)         /* cntlid and reserved: zero, as Linux */
		CU_ASSERT_EQUAL(b[i], 0);
}

static void cm_req_of_admin_queue_is_hrqsize_32_hsqsize_31(void)
{
	struct nvme_rdma_cm_req r;
	nvmf_rh_build_cm_req(&r, 0, 32);
	CU_ASSERT_EQUAL(le16toh(r.qid), 0);
	CU_ASSERT_EQUAL(le16toh(r.hrqsize), 32);
	CU_ASSERT_EQUAL(le16toh(r.hsqsize), 31);
}

static void consumer_reject_with_private_data_names_the_nvme_rdma_status(void)
{
	uint8_t pdata[148] = { 0, 0, 4, 0 };   /* IB pads REJ private data to 148 bytes */
	char msg[160];
	CU_ASSERT_EQUAL(nvmf_rh_reject_msg(NVMF_RH_IB_REJ_CONSUMER, pdata, sizeof(pdata), msg, sizeof(msg)),
			-ECONNREFUSED);
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target: NVMe/RDMA status 4 (invalid HSQSIZE)");
	pdata[2] = 6;
	nvmf_rh_reject_msg(-ECONNREFUSED, pdata, 4, msg, sizeof(msg));   /* iWARP form */
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target: NVMe/RDMA status 6 (no resources)");
}

static void consumer_reject_without_private_data_says_no_status(void)
{
	char msg[160];
	uint8_t short_data[3] = { 0 };
	CU_ASSERT_EQUAL(nvmf_rh_reject_msg(NVMF_RH_IB_REJ_CONSUMER, NULL, 0, msg, sizeof(msg)), -ECONNREFUSED);
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target (no NVMe/RDMA status)");
	nvmf_rh_reject_msg(NVMF_RH_IB_REJ_CONSUMER, short_data, sizeof(short_data), msg, sizeof(msg));
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target (no NVMe/RDMA status)");
}

static void reject_for_a_port_nobody_listens_on_says_so(void)
{
	char msg[160];
	uint8_t pdata[148] = { 0, 0, 4, 0 };   /* not a consumer reject: data ignored */
	CU_ASSERT_EQUAL(nvmf_rh_reject_msg(NVMF_RH_IB_REJ_INVALID_SID, pdata, sizeof(pdata), msg, sizeof(msg)),
			-ECONNREFUSED);
	CU_ASSERT_STRING_EQUAL(msg, "rejected: nothing listens on that port (invalid service ID) (CM reason 8)");
	nvmf_rh_reject_msg(99, NULL, 0, msg, sizeof(msg));
	CU_ASSERT_STRING_EQUAL(msg, "rejected: CM reason 99");
}

static void keyed_sgl_is_type_0x40_with_24_bit_length_and_rkey_and_psdt_01(void)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	nvmf_rh_sgl_keyed(&sqe, 0x1122334455667788ull, 0x123456, 0xa1b2c3d4);
	const uint8_t *d = (const uint8_t *)&sqe + 24;
	CU_ASSERT_EQUAL(le64toh(sqe.dptr.addr), 0x1122334455667788ull);
	CU_ASSERT_EQUAL(d[8], 0x56);
	CU_ASSERT_EQUAL(d[9], 0x34);
	CU_ASSERT_EQUAL(d[10], 0x12);
	CU_ASSERT_EQUAL(nvme_sgl_keyed_key(&sqe.dptr), 0xa1b2c3d4);
	CU_ASSERT_EQUAL(d[15], 0x40);             /* never 0x4F: our keys stay valid */
	CU_ASSERT_EQUAL(sqe.flags, 0x40);
}

static void keyed_sgl_of_no_data_is_all_zero_but_type_0x40(void)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0xff, sizeof(sqe));
	nvmf_rh_sgl_keyed(&sqe, 0x1000, 0, 0x55);
	const uint8_t *d = (const uint8_t *)&sqe.dptr;
	for (unsigned i = 0; i < 15; i++)
		CU_ASSERT_EQUAL(d[i], 0);
	CU_ASSERT_EQUAL(d[15], 0x40);
	CU_ASSERT_EQUAL(sqe.flags, 0x43);         /* PSDT 01b, FUSE bits kept */
}

static void incapsule_sgl_is_type_0x01_at_offset_0_with_byte_length(void)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0xff, sizeof(sqe));
	nvmf_rh_sgl_incapsule(&sqe, 4096);
	CU_ASSERT_EQUAL(le64toh(sqe.dptr.addr), 0);
	CU_ASSERT_EQUAL(le32toh(sqe.dptr.unkeyed.length), 4096);
	CU_ASSERT_EQUAL(sqe.dptr.unkeyed.rsvd[0] | sqe.dptr.unkeyed.rsvd[1] | sqe.dptr.unkeyed.rsvd[2], 0);
	CU_ASSERT_EQUAL(sqe.dptr.unkeyed.type, 0x01);
	CU_ASSERT_EQUAL(sqe.flags & 0xc0, 0x40);
}

static void incapsule_size_is_ioccsz_times_16_minus_64_capped_at_16_kib(void)
{
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(0), 0);
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(3), 0);
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(4), 0);        /* SQE only */
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(260), 4096);   /* nvmet default */
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(516), 8192);
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(100000), NVMF_RH_MAX_INCAPSULE);
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(UINT32_MAX), NVMF_RH_MAX_INCAPSULE);
}

static void address_without_trsvcid_gets_port_4420(void)
{
	struct sockaddr_storage ss;
	char err[128];
	CU_ASSERT_EQUAL(nvmf_rh_parse_addr("169.254.77.1", NULL, &ss, err, sizeof(err)), 0);
	const struct sockaddr_in *in = (const void *)&ss;
	CU_ASSERT_EQUAL(in->sin_family, AF_INET);
	CU_ASSERT_EQUAL(ntohs(in->sin_port), 4420);
	CU_ASSERT_EQUAL(ntohl(in->sin_addr.s_addr), 0xa9fe4d01u);
	CU_ASSERT_EQUAL(nvmf_rh_parse_addr("169.254.77.1", "", &ss, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ntohs(in->sin_port), 4420);
}

static void ipv6_address_and_port_are_parsed(void)
{
	struct sockaddr_storage ss;
	char err[128];
	CU_ASSERT_EQUAL(nvmf_rh_parse_addr("fd77::1", "4421", &ss, err, sizeof(err)), 0);
	const struct sockaddr_in6 *in6 = (const void *)&ss;
	CU_ASSERT_EQUAL(in6->sin6_family, AF_INET6);
	CU_ASSERT_EQUAL(ntohs(in6->sin6_port), 4421);
	CU_ASSERT_EQUAL(in6->sin6_addr.s6_addr[0], 0xfd);
	CU_ASSERT_EQUAL(in6->sin6_addr.s6_addr[15], 1);
}

static void hostname_or_missing_traddr_is_einval_with_message(void)
{
	struct sockaddr_storage ss;
	char err[128];
	CU_ASSERT_EQUAL(nvmf_rh_parse_addr("localhost", "4420", &ss, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "traddr 'localhost': not a numeric IPv4 or IPv6 address");
	CU_ASSERT_EQUAL(nvmf_rh_parse_addr("[fd77::1]", "4420", &ss, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_rh_parse_addr(NULL, "4420", &ss, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "traddr missing");
}

static void bad_trsvcid_is_einval_naming_it(void)
{
	struct sockaddr_storage ss;
	char err[128];
	const char *bad[] = { "abc", "0", "65536", "-1", "44x", " 4420" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(nvmf_rh_parse_addr("10.0.0.1", bad[i], &ss, err, sizeof(err)), -EINVAL);
		char want[128];
		snprintf(want, sizeof(want), "trsvcid '%s': not a port number (1-65535)", bad[i]);
		CU_ASSERT_STRING_EQUAL(err, want);
	}
	CU_ASSERT_EQUAL(nvmf_rh_parse_addr("10.0.0.1", "65535", &ss, err, sizeof(err)), 0);
}

static struct nvmf_rh_region region(uintptr_t addr, size_t len, uint32_t key)
{
	struct nvmf_rh_region r = { .addr = addr, .len = len, .lkey = key, .rkey = key, .refs = 1 };
	return r;
}

/* Table with [0x1000,0x2000) key 1, [0x8000,0x10000) key 2, [0x3000,0x4000) key 3. */
static struct nvmf_rh_regions *three_regions(void)
{
	struct nvmf_rh_region a = region(0x1000, 0x1000, 1), b = region(0x8000, 0x8000, 2),
			      c = region(0x3000, 0x1000, 3);
	struct nvmf_rh_regions *t1 = nvmf_rh_regions_with(NULL, &a);
	struct nvmf_rh_regions *t2 = nvmf_rh_regions_with(t1, &b);
	struct nvmf_rh_regions *t3 = nvmf_rh_regions_with(t2, &c);
	free(t1);
	free(t2);
	return t3;
}

static void region_table_stays_sorted_by_address(void)
{
	struct nvmf_rh_regions *t = three_regions();
	CU_ASSERT_EQUAL(t->n, 3);
	CU_ASSERT_EQUAL(t->r[0].addr, 0x1000);
	CU_ASSERT_EQUAL(t->r[1].addr, 0x3000);
	CU_ASSERT_EQUAL(t->r[2].addr, 0x8000);
	struct nvmf_rh_regions *u = nvmf_rh_regions_without(t, 1);
	CU_ASSERT_EQUAL(u->n, 2);
	CU_ASSERT_EQUAL(u->r[0].addr, 0x1000);
	CU_ASSERT_EQUAL(u->r[1].addr, 0x8000);
	CU_ASSERT_EQUAL(t->n, 3);                 /* the old table is untouched */
	free(t);
	free(u);
}

static void buffer_inside_a_region_finds_it_and_one_crossing_its_end_does_not(void)
{
	struct nvmf_rh_regions *t = three_regions();
	const struct nvmf_rh_region *r = nvmf_rh_region_find(t, (void *)0x3000, 0x1000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->rkey, 3);
	r = nvmf_rh_region_find(t, (void *)0x9000, 0x200);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->rkey, 2);
	CU_ASSERT_PTR_NULL(nvmf_rh_region_find(t, (void *)0x3800, 0x801));   /* one byte past */
	CU_ASSERT_PTR_NULL(nvmf_rh_region_find(t, (void *)0x2000, 0x10));    /* in a gap */
	CU_ASSERT_PTR_NULL(nvmf_rh_region_find(t, (void *)0x800, 0x10));     /* before all */
	CU_ASSERT_PTR_NULL(nvmf_rh_region_find(t, (void *)0x1000, 0));       /* no data */
	CU_ASSERT_PTR_NULL(nvmf_rh_region_find(NULL, (void *)0x1000, 1));
	CU_ASSERT_PTR_NULL(nvmf_rh_region_find(t, (void *)UINTPTR_MAX, 2));  /* wraps */
	free(t);
}

static void buffer_in_an_outer_region_is_found_past_a_smaller_overlapping_one(void)
{
	struct nvmf_rh_region outer = region(0x10000, 0x10000, 7), inner = region(0x14000, 0x1000, 8);
	struct nvmf_rh_regions *t1 = nvmf_rh_regions_with(NULL, &outer);
	struct nvmf_rh_regions *t = nvmf_rh_regions_with(t1, &inner);
	const struct nvmf_rh_region *r = nvmf_rh_region_find(t, (void *)0x14800, 0x2000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->rkey, 7);
	free(t1);
	free(t);
}

static void region_index_matches_start_and_length(void)
{
	struct nvmf_rh_regions *t = three_regions();
	CU_ASSERT_EQUAL(nvmf_rh_regions_index(t, (void *)0x3000, 0x1000), 1);
	CU_ASSERT_EQUAL(nvmf_rh_regions_index(t, (void *)0x3000, 0), 1);
	CU_ASSERT_EQUAL(nvmf_rh_regions_index(t, (void *)0x3000, 0x800), -1);
	CU_ASSERT_EQUAL(nvmf_rh_regions_index(t, (void *)0x3001, 0), -1);
	CU_ASSERT_EQUAL(nvmf_rh_regions_index(NULL, (void *)0x3000, 0), -1);
	free(t);
}

const struct unit_test rdma_host_wire_tests[] = {
	{"cm_req_of_io_queue_carries_qid_hrqsize_size_and_hsqsize_size_minus_one",
	 cm_req_of_io_queue_carries_qid_hrqsize_size_and_hsqsize_size_minus_one},
	{"cm_req_of_admin_queue_is_hrqsize_32_hsqsize_31", cm_req_of_admin_queue_is_hrqsize_32_hsqsize_31},
	{"consumer_reject_with_private_data_names_the_nvme_rdma_status",
	 consumer_reject_with_private_data_names_the_nvme_rdma_status},
	{"consumer_reject_without_private_data_says_no_status", consumer_reject_without_private_data_says_no_status},
	{"reject_for_a_port_nobody_listens_on_says_so", reject_for_a_port_nobody_listens_on_says_so},
	{"keyed_sgl_is_type_0x40_with_24_bit_length_and_rkey_and_psdt_01",
	 keyed_sgl_is_type_0x40_with_24_bit_length_and_rkey_and_psdt_01},
	{"keyed_sgl_of_no_data_is_all_zero_but_type_0x40", keyed_sgl_of_no_data_is_all_zero_but_type_0x40},
	{"incapsule_sgl_is_type_0x01_at_offset_0_with_byte_length",
	 incapsule_sgl_is_type_0x01_at_offset_0_with_byte_length},
	{"incapsule_size_is_ioccsz_times_16_minus_64_capped_at_16_kib",
	 incapsule_size_is_ioccsz_times_16_minus_64_capped_at_16_kib},
	{"address_without_trsvcid_gets_port_4420", address_without_trsvcid_gets_port_4420},
	{"ipv6_address_and_port_are_parsed", ipv6_address_and_port_are_parsed},
	{"hostname_or_missing_traddr_is_einval_with_message", hostname_or_missing_traddr_is_einval_with_message},
	{"bad_trsvcid_is_einval_naming_it", bad_trsvcid_is_einval_naming_it},
	{"region_table_stays_sorted_by_address", region_table_stays_sorted_by_address},
	{"buffer_inside_a_region_finds_it_and_one_crossing_its_end_does_not",
	 buffer_inside_a_region_finds_it_and_one_crossing_its_end_does_not},
	{"buffer_in_an_outer_region_is_found_past_a_smaller_overlapping_one",
	 buffer_in_an_outer_region_is_found_past_a_smaller_overlapping_one},
	{"region_index_matches_start_and_length", region_index_matches_start_and_length},
	{NULL, NULL},
};
