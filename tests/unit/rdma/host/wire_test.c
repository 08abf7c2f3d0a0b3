/* The RDMA host transport's pure helpers (rdma/host/wire.c): reject messages, in-capsule
 * sizing, address parsing. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include "rdma/host/host.h"
#include "tests/unit/suites.h"

static void consumer_reject_with_private_data_names_the_nvme_rdma_status(void)
{
	uint8_t pdata[148] = { 0, 0, 4, 0 }; /* IB pads REJ private data to 148 bytes */
	char msg[160];
	CU_ASSERT_EQUAL(nvmf_rh_reject_msg(NVMF_RH_IB_REJ_CONSUMER, pdata, sizeof(pdata), msg,
					   sizeof(msg)),
			-ECONNREFUSED);
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target: NVMe/RDMA status 4 (invalid HSQSIZE)");
	pdata[2] = 6;
	nvmf_rh_reject_msg(-ECONNREFUSED, pdata, 4, msg, sizeof(msg)); /* iWARP form */
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target: NVMe/RDMA status 6 (no resources)");
}

/* The target refused one of the RDMA READ depths the host offered: the message names it. */
static void consumer_reject_for_ird_or_ord_names_the_read_depth(void)
{
	uint8_t pdata[148] = { 0, 0, 7, 0 };
	char msg[160];
	CU_ASSERT_EQUAL(nvmf_rh_reject_msg(NVMF_RH_IB_REJ_CONSUMER, pdata, sizeof(pdata), msg,
					   sizeof(msg)),
			-ECONNREFUSED);
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target: NVMe/RDMA status 7 "
				    "(invalid IRD: the host's RDMA READ responder resources)");
	pdata[2] = 8;
	nvmf_rh_reject_msg(NVMF_RH_IB_REJ_CONSUMER, pdata, sizeof(pdata), msg, sizeof(msg));
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target: NVMe/RDMA status 8 "
				    "(invalid ORD: the host's RDMA READ initiator depth)");
}

static void consumer_reject_without_private_data_says_no_status(void)
{
	char msg[160];
	uint8_t short_data[3] = { 0 };
	CU_ASSERT_EQUAL(nvmf_rh_reject_msg(NVMF_RH_IB_REJ_CONSUMER, NULL, 0, msg, sizeof(msg)),
			-ECONNREFUSED);
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target (no NVMe/RDMA status)");
	nvmf_rh_reject_msg(NVMF_RH_IB_REJ_CONSUMER, short_data, sizeof(short_data), msg,
			   sizeof(msg));
	CU_ASSERT_STRING_EQUAL(msg, "rejected by target (no NVMe/RDMA status)");
}

static void reject_for_a_port_nobody_listens_on_says_so(void)
{
	char msg[160];
	uint8_t pdata[148] = { 0, 0, 4, 0 }; /* not a consumer reject: data ignored */
	CU_ASSERT_EQUAL(nvmf_rh_reject_msg(NVMF_RH_IB_REJ_INVALID_SID, pdata, sizeof(pdata), msg,
					   sizeof(msg)),
			-ECONNREFUSED);
	CU_ASSERT_STRING_EQUAL(
		msg, "rejected: nothing listens on that port (invalid service ID) (CM reason 8)");
	nvmf_rh_reject_msg(99, NULL, 0, msg, sizeof(msg));
	CU_ASSERT_STRING_EQUAL(msg, "rejected: CM reason 99");
}

static void incapsule_size_is_ioccsz_times_16_minus_64_capped_at_16_kib(void)
{
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(0), 0);
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(3), 0);
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(4), 0);      /* SQE only */
	CU_ASSERT_EQUAL(nvmf_rh_incapsule_size(260), 4096); /* nvmet default */
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
		CU_ASSERT_EQUAL(nvmf_rh_parse_addr("10.0.0.1", bad[i], &ss, err, sizeof(err)),
				-EINVAL);
		char want[128];
		snprintf(want, sizeof(want), "trsvcid '%s': not a port number (1-65535)", bad[i]);
		CU_ASSERT_STRING_EQUAL(err, want);
	}
	CU_ASSERT_EQUAL(nvmf_rh_parse_addr("10.0.0.1", "65535", &ss, err, sizeof(err)), 0);
}

const struct unit_test rdma_host_wire_tests[] = {
	{ "consumer_reject_with_private_data_names_the_nvme_rdma_status",
	  consumer_reject_with_private_data_names_the_nvme_rdma_status },
	{ "consumer_reject_for_ird_or_ord_names_the_read_depth",
	  consumer_reject_for_ird_or_ord_names_the_read_depth },
	{ "consumer_reject_without_private_data_says_no_status",
	  consumer_reject_without_private_data_says_no_status },
	{ "reject_for_a_port_nobody_listens_on_says_so",
	  reject_for_a_port_nobody_listens_on_says_so },
	{ "incapsule_size_is_ioccsz_times_16_minus_64_capped_at_16_kib",
	  incapsule_size_is_ioccsz_times_16_minus_64_capped_at_16_kib },
	{ "address_without_trsvcid_gets_port_4420", address_without_trsvcid_gets_port_4420 },
	{ "ipv6_address_and_port_are_parsed", ipv6_address_and_port_are_parsed },
	{ "hostname_or_missing_traddr_is_einval_with_message",
	  hostname_or_missing_traddr_is_einval_with_message },
	{ "bad_trsvcid_is_einval_naming_it", bad_trsvcid_is_einval_naming_it },
	{ NULL, NULL },
};
