/* The authentication messages' layout (nvme/auth.h), field by field as Linux's
 * include/linux/nvme.h has them, and the message length helpers. */
#include <CUnit/CUnit.h>
#include <stddef.h>
#include "nvme/auth.h"
#include "tests/unit/suites.h"
#include "nvme/fabrics.h"

static void message_headers_have_the_kernels_field_offsets(void)
{
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_negotiate, t_id), 4);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_negotiate, sc_c), 6);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_negotiate, napd), 7);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_negotiate, desc), 8);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_protocol_desc, halen), 2);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_protocol_desc, idlist), 4);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_challenge, t_id), 4);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_challenge, hl), 6);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_challenge, hashid), 8);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_challenge, dhgid), 9);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_challenge, dhvlen), 10);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_challenge, cval), 16);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_reply, cvalid), 8);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_reply, seqnum), 12);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_reply, rval), 16);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_success1, hl), 6);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_success1, rvalid), 8);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_success1, rval), 16);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_failure, t_id), 4);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_failure, rescode), 6);
	CU_ASSERT_EQUAL(offsetof(struct nvme_auth_failure, rescode_exp), 7);
}

static void message_lengths_follow_hl_and_dhvlen(void)
{
	/* What the Linux host sends: one descriptor; SHA-256 and ffdhe2048. */
	CU_ASSERT_EQUAL(nvme_auth_negotiate_len(1), 72);
	CU_ASSERT_EQUAL(nvme_auth_challenge_len(32, 256), 16 + 32 + 256);
	CU_ASSERT_EQUAL(nvme_auth_challenge_len(48, 0), 64);
	/* The Reply always carries the C2 slot, valid or not. */
	CU_ASSERT_EQUAL(nvme_auth_reply_len(64, 1024), 16 + 128 + 1024);
	CU_ASSERT_EQUAL(nvme_auth_success1_len(32, 1), 48);
	CU_ASSERT_EQUAL(nvme_auth_success1_len(32, 0), 16);
}

static void ids_and_sqe_fields_have_their_spec_values(void)
{
	CU_ASSERT_EQUAL(NVME_AUTH_SECP_DHCHAP, 0xe9);
	CU_ASSERT_EQUAL(NVMF_AUTH_SQE_SECP, 43);
	CU_ASSERT_EQUAL(NVMF_AUTH_SQE_LEN, 44);
	CU_ASSERT_EQUAL(NVME_AUTH_MSG_FAILURE1, 0xf1);
	CU_ASSERT_EQUAL(NVME_AUTH_MSG_FAILURE2, 0xf0);
	CU_ASSERT_EQUAL(NVME_AUTH_DHGROUP_8192, 5);
	CU_ASSERT_EQUAL(NVME_AUTH_FAILURE_INCORRECT_MESSAGE, 7);
	CU_ASSERT_EQUAL(NVMF_CONNECT_AUTHREQ_ATR, 0x20000);
	CU_ASSERT_EQUAL(nvme_fabrics_type_auth_send, 0x05);
	CU_ASSERT_EQUAL(nvme_fabrics_type_auth_receive, 0x06);
}

const struct unit_test nvme_auth_tests[] = {
	{ "message_headers_have_the_kernels_field_offsets",
	  message_headers_have_the_kernels_field_offsets },
	{ "message_lengths_follow_hl_and_dhvlen", message_lengths_follow_hl_and_dhvlen },
	{ "ids_and_sqe_fields_have_their_spec_values", ids_and_sqe_fields_have_their_spec_values },
	{ NULL, NULL },
};
