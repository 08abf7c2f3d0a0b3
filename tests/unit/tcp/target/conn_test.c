/* Bad PDUs sent to the NVMe/TCP target's connection (tcp/target/conn.c): each gets a
 * C2HTermReq with the FES and FEI of TCP transport 1.0 Figure 13, then the connection is
 * closed (never a crash or a hang); an H2CTermReq from the host closes it too. H2CData
 * checked against its command: request_test.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/tcp/target/conn_fixture.h"

static void icreq_with_pfv_1_is_unsupported_parameter_at_pfv(void)
{
	struct tt t;
	struct ttc c;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &c, 0), 0);
	CU_ASSERT_EQUAL(tt_icreq(&c, 1, 0, 0), 0);
	expect_term(&c, NVME_TCP_FES_UNSUPPORTED_PARAM, offsetof(struct nvme_tcp_icreq, pfv));
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&t.tgt), 0);
	tt_teardown(&t);
}

static void icreq_with_hpda_32_is_invalid_header_at_hpda(void)
{
	struct tt t;
	struct ttc c;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &c, 0), 0);
	CU_ASSERT_EQUAL(tt_icreq(&c, 0, 32, 0), 0);
	expect_term(&c, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_icreq, hpda));
	tt_teardown(&t);
}

static void capsule_before_icreq_is_a_pdu_sequence_error(void)
{
	struct tt t;
	struct ttc c;
	struct nvme_sqe sqe;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &c, 0), 0);
	tt_sqe(&c, &sqe, nvme_admin_identify, false, 0);
	CU_ASSERT_EQUAL(tt_capsule(&c, &sqe, NULL, 0, false, false), 0);
	expect_term(&c, NVME_TCP_FES_PDU_SEQUENCE, 0);
	tt_teardown(&t);
}

static void second_icreq_is_a_pdu_sequence_error(void)
{
	struct tt t;
	struct ttc c;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &c, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&c, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(tt_icreq(&c, 0, 0, 0), 0);
	expect_term(&c, NVME_TCP_FES_PDU_SEQUENCE, 0);
	tt_teardown(&t);
}

static void unknown_pdu_type_is_invalid_header_at_type(void)
{
	struct tt t;
	struct ttc c;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &c, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&c, 0, 0, NULL), 0);
	struct nvme_tcp_ch ch = { .type = 0x0c, .hlen = 8, .plen = htole32(8) };
	CU_ASSERT_EQUAL(tt_send(&c, &ch, sizeof(ch)), 0);
	expect_term(&c, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_ch, type));
	tt_teardown(&t);
}

static void capsule_with_a_wrong_hlen_is_invalid_header_at_hlen(void)
{
	struct tt t;
	struct ttc c;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &c, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&c, 0, 0, NULL), 0);
	struct nvme_tcp_cmd cmd;
	memset(&cmd, 0, sizeof(cmd));
	cmd.ch.type = NVME_TCP_CMD;
	cmd.ch.hlen = 64;
	cmd.ch.plen = htole32(sizeof(cmd));
	CU_ASSERT_EQUAL(tt_send(&c, &cmd, sizeof(cmd)), 0);
	expect_term(&c, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_ch, hlen));
	tt_teardown(&t);
}

/* FEI of a header digest error: the digest received. */
static void header_digest_error_terminates_with_hdr_digest(void)
{
	struct tt t;
	struct ttc a, q;
	struct nvme_sqe sqe;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, NVME_TCP_DGST_HDR), 0);
	tt_sqe(&q, &sqe, nvme_cmd_flush, false, 0);
	sqe.nsid = htole32(1);
	CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, NULL, 0, true, false), 0);
	struct nvme_tcp_cmd hdr = { .ch = { .type = NVME_TCP_CMD,
					    .flags = NVME_TCP_F_HDGST,
					    .hlen = sizeof(hdr),
					    .plen = htole32(sizeof(hdr) + 4) },
				    .sqe = sqe };
	expect_term(&q, NVME_TCP_FES_HDR_DIGEST, nvme_tcp_digest(&hdr, sizeof(hdr)) ^ 1u);
	tt_close(&a);
	tt_teardown(&t);
}

/* The same on an H2CData PDU whose header is in and whose data is still coming (the
 * target checks it then, to receive the data straight into the command's buffer). */
static void header_digest_error_on_a_partial_h2cdata_terminates_with_hdr_digest(void)
{
	struct tt t;
	struct ttc a, q;
	struct nvme_sqe sqe;
	static uint8_t d[1024];
	uint8_t r2t[sizeof(struct nvme_tcp_r2t) + NVME_TCP_DIGEST_LEN];
	uint32_t plen, dig;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, NVME_TCP_DGST_HDR), 0);
	tt_sqe(&q, &sqe, nvme_cmd_write, false, sizeof(d));
	sqe.nsid = htole32(1);
	sqe.cdw12 = htole32(sizeof(d) / 512 - 1);
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL_FATAL(tt_recv_pdu(&q, r2t, sizeof(r2t)), (int)sizeof(r2t));
	const struct nvme_tcp_r2t *r = (const void *)r2t;
	CU_ASSERT_EQUAL_FATAL(r->ch.type, NVME_TCP_R2T);
	uint8_t *pdu = tt_h2c_pdu(&q, sqe.command_id, le16toh(r->ttag), 0, d, sizeof(d), true,
				  false, &plen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pdu);
	pdu[sizeof(struct nvme_tcp_data)] ^= 1; /* the header digest's low byte */
	memcpy(&dig, pdu + sizeof(struct nvme_tcp_data), sizeof(dig));
	/* The header, its digest and some of the data: the rest never comes. */
	CU_ASSERT_EQUAL(tt_send(&q, pdu, sizeof(struct nvme_tcp_data) + NVME_TCP_DIGEST_LEN + 100),
			0);
	free(pdu);
	expect_term(&q, NVME_TCP_FES_HDR_DIGEST, le32toh(dig));
	tt_close(&a);
	tt_teardown(&t);
}

/* In-capsule data larger than the queue takes: the common header's PLEN is refused. */
static void capsule_data_beyond_the_receive_limit_is_invalid_header_at_plen(void)
{
	struct tt t;
	struct ttc a, q;
	static uint8_t d[135168];
	struct nvme_sqe sqe;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	tt_sqe(&q, &sqe, nvme_cmd_write, true, sizeof(d));
	sqe.nsid = htole32(1);
	CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, d, sizeof(d), false, false), 0);
	expect_term(&q, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_ch, plen));
	tt_close(&a);
	tt_teardown(&t);
}

static void h2c_termreq_from_the_host_closes_the_connection(void)
{
	struct tt t;
	struct ttc a, q;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	struct nvme_tcp_term term = { .ch = { .type = NVME_TCP_H2C_TERM,
					      .hlen = sizeof(term),
					      .plen = htole32(sizeof(term)) },
				      .fes = htole16(NVME_TCP_FES_PDU_SEQUENCE) };
	CU_ASSERT_EQUAL(tt_send(&q, &term, sizeof(term)), 0);
	CU_ASSERT_TRUE(tt_closed(&q));
	tt_drive(&t);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&t.tgt), 1); /* the admin queue stays */
	tt_close(&a);
	tt_teardown(&t);
}

const struct unit_test tcp_target_errors_tests[] = {
	{ "icreq_with_pfv_1_is_unsupported_parameter_at_pfv",
	  icreq_with_pfv_1_is_unsupported_parameter_at_pfv },
	{ "icreq_with_hpda_32_is_invalid_header_at_hpda",
	  icreq_with_hpda_32_is_invalid_header_at_hpda },
	{ "capsule_before_icreq_is_a_pdu_sequence_error",
	  capsule_before_icreq_is_a_pdu_sequence_error },
	{ "second_icreq_is_a_pdu_sequence_error", second_icreq_is_a_pdu_sequence_error },
	{ "unknown_pdu_type_is_invalid_header_at_type",
	  unknown_pdu_type_is_invalid_header_at_type },
	{ "capsule_with_a_wrong_hlen_is_invalid_header_at_hlen",
	  capsule_with_a_wrong_hlen_is_invalid_header_at_hlen },
	{ "header_digest_error_terminates_with_hdr_digest",
	  header_digest_error_terminates_with_hdr_digest },
	{ "header_digest_error_on_a_partial_h2cdata_terminates_with_hdr_digest",
	  header_digest_error_on_a_partial_h2cdata_terminates_with_hdr_digest },
	{ "capsule_data_beyond_the_receive_limit_is_invalid_header_at_plen",
	  capsule_data_beyond_the_receive_limit_is_invalid_header_at_plen },
	{ "h2c_termreq_from_the_host_closes_the_connection",
	  h2c_termreq_from_the_host_closes_the_connection },
	{ NULL, NULL },
};
