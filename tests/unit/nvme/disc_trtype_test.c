/* The per-transport-type facts of a discovery log entry (nvme/disc_trtype.c): a config's
 * transport name to TRTYPE, each type's TSAS (NVMe-oF 1.1 figures 39 and 40), and a
 * referral's whole record, as laid out in the log. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "nvme/disc_trtype.h"
#include "tests/unit/suites.h"

static void transport_names_parse_to_their_trtype(void)
{
	uint8_t t = 0;
	CU_ASSERT_EQUAL(nvmf_disc_trtype_parse("rdma", &t), 0);
	CU_ASSERT_EQUAL(t, NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(nvmf_disc_trtype_parse("tcp", &t), 0);
	CU_ASSERT_EQUAL(t, NVMF_TRTYPE_TCP);
	CU_ASSERT_EQUAL(nvmf_disc_trtype_parse("loop", &t), 0);
	CU_ASSERT_EQUAL(t, NVMF_TRTYPE_LOOP);
}

static void unknown_or_null_transport_name_is_einval_and_leaves_trtype(void)
{
	uint8_t t = 77;
	CU_ASSERT_EQUAL(nvmf_disc_trtype_parse("fc", &t), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_disc_trtype_parse("RDMA", &t), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_disc_trtype_parse("", &t), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_disc_trtype_parse(NULL, &t), -EINVAL);
	CU_ASSERT_EQUAL(t, 77);
}

static void rdma_tsas_is_connected_qp_unspecified_prtype_rdma_cm(void)
{
	struct nvmf_disc_rec r;
	memset(&r, 0, sizeof(r));
	r.trtype = NVMF_TRTYPE_RDMA;
	r.tcp_sectype = 9; /* another type's field: cleared */
	nvmf_disc_tsas(&r);
	CU_ASSERT_EQUAL(r.rdma_qptype, NVMF_RDMA_QPTYPE_CONNECTED);
	CU_ASSERT_EQUAL(r.rdma_prtype, NVMF_RDMA_PRTYPE_NOT_SPECIFIED);
	CU_ASSERT_EQUAL(r.rdma_cms, NVMF_RDMA_CMS_RDMA_CM);
	CU_ASSERT_EQUAL(r.rdma_pkey, 0);
	CU_ASSERT_EQUAL(r.tcp_sectype, 0);
	CU_ASSERT_EQUAL(r.trtype, NVMF_TRTYPE_RDMA);
}

static void tcp_and_loop_tsas_clear_what_an_rdma_record_left(void)
{
	struct nvmf_disc_rec r;
	memset(&r, 0, sizeof(r));
	r.trtype = NVMF_TRTYPE_RDMA;
	nvmf_disc_tsas(&r);
	r.trtype = NVMF_TRTYPE_TCP;
	nvmf_disc_tsas(&r);
	CU_ASSERT_EQUAL(r.tcp_sectype, NVMF_TCP_SECTYPE_NONE);
	CU_ASSERT_EQUAL(r.rdma_qptype, 0);
	CU_ASSERT_EQUAL(r.rdma_prtype, 0);
	CU_ASSERT_EQUAL(r.rdma_cms, 0);
	r.trtype = NVMF_TRTYPE_RDMA;
	nvmf_disc_tsas(&r);
	r.trtype = NVMF_TRTYPE_LOOP;
	nvmf_disc_tsas(&r);
	CU_ASSERT_EQUAL(r.rdma_qptype + r.rdma_prtype + r.rdma_cms + r.rdma_pkey + r.tcp_sectype,
			0);
}

/* A referral record laid out in a log: every field at its wire place, TSAS by type. */
static void referral_record_lays_out_as_nvmet_lists_a_referral(void)
{
	struct nvmf_disc_rec r;
	CU_ASSERT_EQUAL_FATAL(nvmf_disc_referral(&r, "rdma", AF_INET6, "fd00::7", "4420",
						 NVMF_TREQ_REQUIRED, 9, 32),
			      0);
	size_t len = nvmf_disc_log_size(1);
	uint8_t *buf = malloc(len);
	CU_ASSERT_FATAL(buf != NULL);
	nvmf_disc_log_build(buf, 5, &r, 1);
	const struct nvmf_disc_log_entry *e = (const void *)(buf + NVMF_DISC_LOG_HDR_SIZE);
	CU_ASSERT_EQUAL(e->trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(e->adrfam, NVMF_ADDR_FAMILY_IP6);
	CU_ASSERT_EQUAL(e->subtype, NVME_NQN_DISC);
	CU_ASSERT_EQUAL(e->treq, NVMF_TREQ_REQUIRED);
	CU_ASSERT_EQUAL(le16toh(e->portid), 9);
	CU_ASSERT_EQUAL(le16toh(e->cntlid), 0xffff);
	CU_ASSERT_EQUAL(le16toh(e->asqsz), 32);
	CU_ASSERT_EQUAL(le16toh(e->eflags), 0);
	CU_ASSERT_STRING_EQUAL(e->trsvcid, "4420");
	CU_ASSERT_STRING_EQUAL(e->traddr, "fd00::7");
	CU_ASSERT_STRING_EQUAL(e->subnqn, NVMF_DISC_NQN);
	CU_ASSERT_EQUAL(e->tsas.rdma.qptype, NVMF_RDMA_QPTYPE_CONNECTED);
	CU_ASSERT_EQUAL(e->tsas.rdma.prtype, NVMF_RDMA_PRTYPE_NOT_SPECIFIED);
	CU_ASSERT_EQUAL(e->tsas.rdma.cms, NVMF_RDMA_CMS_RDMA_CM);
	free(buf);
}

static void tcp_referral_has_ipv4_family_and_sectype_none(void)
{
	struct nvmf_disc_rec r;
	memset(&r, 0xa5, sizeof(r));
	CU_ASSERT_EQUAL_FATAL(nvmf_disc_referral(&r, "tcp", AF_INET, "10.1.2.3", "8009", 0, 0, 32),
			      0);
	CU_ASSERT_EQUAL(r.trtype, NVMF_TRTYPE_TCP);
	CU_ASSERT_EQUAL(r.adrfam, NVMF_ADDR_FAMILY_IP4);
	CU_ASSERT_EQUAL(r.tcp_sectype, NVMF_TCP_SECTYPE_NONE);
	CU_ASSERT_EQUAL(r.rdma_qptype, 0);
	CU_ASSERT_STRING_EQUAL(r.traddr, "10.1.2.3");
	CU_ASSERT_STRING_EQUAL(r.trsvcid, "8009");
}

static void referral_of_unknown_transport_is_einval_and_zeroed(void)
{
	struct nvmf_disc_rec r, zero;
	memset(&r, 0xa5, sizeof(r));
	memset(&zero, 0, sizeof(zero));
	CU_ASSERT_EQUAL(nvmf_disc_referral(&r, "fc", AF_INET, "10.1.2.3", "4420", 0, 0, 32),
			-EINVAL);
	CU_ASSERT_EQUAL(memcmp(&r, &zero, sizeof(r)), 0);
}

const struct unit_test disc_trtype_tests[] = {
	{ "transport_names_parse_to_their_trtype", transport_names_parse_to_their_trtype },
	{ "unknown_or_null_transport_name_is_einval_and_leaves_trtype",
	  unknown_or_null_transport_name_is_einval_and_leaves_trtype },
	{ "rdma_tsas_is_connected_qp_unspecified_prtype_rdma_cm",
	  rdma_tsas_is_connected_qp_unspecified_prtype_rdma_cm },
	{ "tcp_and_loop_tsas_clear_what_an_rdma_record_left",
	  tcp_and_loop_tsas_clear_what_an_rdma_record_left },
	{ "referral_record_lays_out_as_nvmet_lists_a_referral",
	  referral_record_lays_out_as_nvmet_lists_a_referral },
	{ "tcp_referral_has_ipv4_family_and_sectype_none",
	  tcp_referral_has_ipv4_family_and_sectype_none },
	{ "referral_of_unknown_transport_is_einval_and_zeroed",
	  referral_of_unknown_transport_is_einval_and_zeroed },
	{ NULL, NULL },
};
