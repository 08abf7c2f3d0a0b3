/* One command on an NVMe/TCP target connection (tcp/target/request.c): H2CData checked
 * against its command and R2T before a byte is copied (TCP transport 1.0 sections 3.6.2.3
 * and 3.6.2.7, the FES and FEI of Figure 13), and the PDU headers the target builds. The
 * whole write and read paths over loopback: transport_test.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "tcp/target/internal.h"
#include "tests/unit/suites.h"
#include "tests/unit/tcp/target/conn_fixture.h"

/* A write waiting for its data (R2T sent): returns its command id and the R2T's ttag. */
static int write_waiting(struct ttc *q, uint32_t len, uint16_t *cid, uint16_t *ttag)
{
	struct nvme_sqe sqe;
	tt_sqe(q, &sqe, nvme_cmd_write, false, len);
	sqe.nsid = htole32(1);
	sqe.cdw12 = htole32(len / 512 - 1);
	if (tt_capsule(q, &sqe, NULL, 0, false, false))
		return -1;
	struct nvme_tcp_r2t r;
	if (tt_recv_pdu(q, &r, sizeof(r)) != (int)sizeof(r) || r.ch.type != NVME_TCP_R2T)
		return -1;
	*cid = sqe.command_id;
	*ttag = le16toh(r.ttag);
	return 0;
}

static void h2cdata_for_an_unknown_ttag_is_invalid_header_at_ttag(void)
{
	struct tt t;
	struct ttc a, q;
	uint8_t d[512] = { 0 };
	uint16_t cid, ttag;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	CU_ASSERT_EQUAL(tt_h2c_data(&q, 7, 5, 0, d, sizeof(d), true), 0); /* nothing asked */
	expect_term(&q, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_data, ttag));
	tt_close(&a);
	tt_teardown(&t);
	/* And a ttag that exists, with another command's id. */
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	CU_ASSERT_EQUAL_FATAL(write_waiting(&q, 1024, &cid, &ttag), 0);
	CU_ASSERT_EQUAL(tt_h2c_data(&q, (uint16_t)(cid + 1), ttag, 0, d, sizeof(d), false), 0);
	expect_term(&q, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_data, cccid));
	tt_close(&a);
	tt_teardown(&t);
}

static void h2cdata_not_at_the_next_offset_is_data_out_of_range(void)
{
	struct tt t;
	struct ttc a, q;
	uint8_t d[512] = { 0 };
	uint16_t cid, ttag;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	CU_ASSERT_EQUAL_FATAL(write_waiting(&q, 1024, &cid, &ttag), 0);
	CU_ASSERT_EQUAL(tt_h2c_data(&q, cid, ttag, 512, d, sizeof(d), true), 0);
	expect_term(&q, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0);
	tt_close(&a);
	tt_teardown(&t);
}

static void h2cdata_beyond_the_command_is_data_out_of_range(void)
{
	struct tt t;
	struct ttc a, q;
	static uint8_t d[2048];
	uint16_t cid, ttag;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	CU_ASSERT_EQUAL_FATAL(write_waiting(&q, 1024, &cid, &ttag), 0);
	CU_ASSERT_EQUAL(tt_h2c_data(&q, cid, ttag, 0, d, sizeof(d), true), 0);
	expect_term(&q, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0);
	/* The command waiting for its data was abandoned: nothing is left. */
	tt_close(&a);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&t.tgt), 0);
	tt_teardown(&t);
}

/* MAXH2CDATA 4096 while the queue takes 8 KiB in the capsule: an 8 KiB H2CData PDU
 * passes the common header's size check and is refused against MAXH2CDATA. */
static void h2cdata_above_maxh2cdata_is_r2t_limit_exceeded(void)
{
	struct tt t;
	struct ttc a, q;
	static uint8_t d[8192];
	uint16_t cid, ttag;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 4096), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	CU_ASSERT_EQUAL_FATAL(write_waiting(&q, 8192, &cid, &ttag), 0);
	CU_ASSERT_EQUAL(tt_h2c_data(&q, cid, ttag, 0, d, sizeof(d), true), 0);
	expect_term(&q, NVME_TCP_FES_R2T_LIMIT_EXCEEDED, 0);
	tt_close(&a);
	tt_teardown(&t);
}

static void h2cdata_with_datal_not_its_data_length_is_invalid_header_at_datal(void)
{
	struct tt t;
	struct ttc a, q;
	uint8_t pdu[24 + 512];
	uint16_t cid, ttag;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	CU_ASSERT_EQUAL_FATAL(write_waiting(&q, 1024, &cid, &ttag), 0);
	memset(pdu, 0, sizeof(pdu));
	struct nvme_tcp_data *h = (void *)pdu;
	h->ch.type = NVME_TCP_H2C_DATA;
	h->ch.hlen = sizeof(*h);
	h->ch.pdo = sizeof(*h);
	h->ch.plen = htole32(sizeof(pdu));
	h->cccid = cid;
	h->ttag = htole16(ttag);
	h->datal = htole32(1024);
	CU_ASSERT_EQUAL(tt_send(&q, pdu, sizeof(pdu)), 0);
	expect_term(&q, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_data, datal));
	tt_close(&a);
	tt_teardown(&t);
}

/* An H2CData PDU with no data at all (PLEN its header, DATAL 0) for a write waiting
 * for 1 KiB: its common header is refused at PLEN, so no H2CData handler ever sees
 * a PDU without data. */
static void h2cdata_without_data_is_invalid_header_at_plen(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cid, ttag;
	CU_ASSERT_EQUAL_FATAL(boot_and_dial(&t, &a, 0), 0);
	CU_ASSERT_EQUAL_FATAL(io_queue(&t, &a, &q, 0), 0);
	CU_ASSERT_EQUAL_FATAL(write_waiting(&q, 1024, &cid, &ttag), 0);
	struct nvme_tcp_data h;
	memset(&h, 0, sizeof(h));
	h.ch.type = NVME_TCP_H2C_DATA;
	h.ch.hlen = sizeof(h);
	h.ch.pdo = sizeof(h);
	h.ch.plen = htole32(sizeof(h));
	h.cccid = cid;
	h.ttag = htole16(ttag);
	CU_ASSERT_EQUAL(tt_send(&q, &h, sizeof(h)), 0);
	expect_term(&q, NVME_TCP_FES_INVALID_HEADER, offsetof(struct nvme_tcp_ch, plen));
	tt_close(&a);
	tt_teardown(&t);
}

/* Three of the target's PDU headers as nvmf_tcp_pdu_build completes them. */
static void pdu_headers_carry_the_connections_digests_and_the_hosts_alignment(void)
{
	struct nvmf_tcp_conn *conn = calloc(1, sizeof(*conn));
	CU_ASSERT_PTR_NOT_NULL_FATAL(conn);
	static struct nvmf_tcp_tx tx;
	uint8_t data[100];
	memset(data, 0x3c, sizeof(data));
	/* No digests, no alignment: C2HData's header (24 bytes), then the data. */
	memset(&tx, 0xff, sizeof(tx));
	nvmf_tcp_pdu_build(conn, &tx, NVME_TCP_C2H_DATA, NVME_TCP_F_DATA_LAST, data, sizeof(data));
	const struct nvme_tcp_ch *ch = (const void *)tx.hdr;
	CU_ASSERT_EQUAL(tx.hlen, 24);
	CU_ASSERT_EQUAL(ch->type, NVME_TCP_C2H_DATA);
	CU_ASSERT_EQUAL(ch->flags, NVME_TCP_F_DATA_LAST);
	CU_ASSERT_EQUAL(ch->pdo, 24);
	CU_ASSERT_EQUAL(le32toh(ch->plen), 24 + sizeof(data));
	CU_ASSERT_PTR_EQUAL(tx.data, data);
	CU_ASSERT_EQUAL(tx.dlen, sizeof(data));
	CU_ASSERT_EQUAL(tx.ddgst_len, 0);
	CU_ASSERT_PTR_NULL(tx.next); /* a fresh item: no stale links */
	CU_ASSERT_PTR_NULL(tx.done);
	CU_ASSERT_PTR_NULL(tx.zc_req);
	/* Both digests and HPDA 7 (32 bytes): header, its digest, padding to 32, the data,
	 * the data's CRC32C little endian. */
	conn->cp.hdgst = conn->cp.ddgst = true;
	conn->hpda = 7;
	nvmf_tcp_pdu_build(conn, &tx, NVME_TCP_C2H_DATA, 0, data, sizeof(data));
	CU_ASSERT_EQUAL(tx.hlen, 32);
	CU_ASSERT_EQUAL(ch->pdo, 32);
	CU_ASSERT_EQUAL(ch->flags & (NVME_TCP_F_HDGST | NVME_TCP_F_DDGST),
			NVME_TCP_F_HDGST | NVME_TCP_F_DDGST);
	CU_ASSERT_EQUAL(le32toh(ch->plen), 32 + sizeof(data) + NVME_TCP_DIGEST_LEN);
	CU_ASSERT_EQUAL(tx.ddgst_len, NVME_TCP_DIGEST_LEN);
	uint32_t want = htole32(nvme_tcp_digest(data, sizeof(data)));
	CU_ASSERT_EQUAL(memcmp(tx.ddgst, &want, sizeof(want)), 0);
	/* An R2T carries no data: no data digest, whatever the connection has. */
	nvmf_tcp_pdu_build(conn, &tx, NVME_TCP_R2T, 0, NULL, 0);
	CU_ASSERT_EQUAL(tx.ddgst_len, 0);
	CU_ASSERT_EQUAL(ch->type, NVME_TCP_R2T);
	CU_ASSERT_EQUAL(le32toh(ch->plen), tx.hlen);
	free(conn);
}

const struct unit_test tcp_target_request_tests[] = {
	{ "h2cdata_for_an_unknown_ttag_is_invalid_header_at_ttag",
	  h2cdata_for_an_unknown_ttag_is_invalid_header_at_ttag },
	{ "h2cdata_not_at_the_next_offset_is_data_out_of_range",
	  h2cdata_not_at_the_next_offset_is_data_out_of_range },
	{ "h2cdata_beyond_the_command_is_data_out_of_range",
	  h2cdata_beyond_the_command_is_data_out_of_range },
	{ "h2cdata_above_maxh2cdata_is_r2t_limit_exceeded",
	  h2cdata_above_maxh2cdata_is_r2t_limit_exceeded },
	{ "h2cdata_with_datal_not_its_data_length_is_invalid_header_at_datal",
	  h2cdata_with_datal_not_its_data_length_is_invalid_header_at_datal },
	{ "h2cdata_without_data_is_invalid_header_at_plen",
	  h2cdata_without_data_is_invalid_header_at_plen },
	{ "pdu_headers_carry_the_connections_digests_and_the_hosts_alignment",
	  pdu_headers_carry_the_connections_digests_and_the_hosts_alignment },
	{ NULL, NULL },
};
