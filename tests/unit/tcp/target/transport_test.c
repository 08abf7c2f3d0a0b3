/* The NVMe/TCP target transport (tcp/target/) over loopback sockets, driven by raw PDUs:
 * connection initialization, Connect and admin commands, writes in the capsule and
 * through R2T/H2CData, reads through C2HData, digests, discovery (TCP transport 1.0). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "nvme/disc_log.h"
#include "tcp/target/internal.h"
#include "tests/unit/suites.h"
#include "tests/unit/tcp/fixture.h"
#include "nvme/fabrics.h"

/* Boot (MAXH2CDATA @maxh2cdata, 0: the default), dial, handshake and connect the admin
 * queue (enabled): 0 or -1. */
static int admin_up_h2c(struct tt *t, struct ttc *a, uint8_t dgst, uint32_t maxh2cdata,
			uint16_t *cntlid)
{
	if (tt_boot(t, "127.0.0.1", 8192, maxh2cdata) || tt_dial(t, a) ||
	    tt_handshake(a, 0, dgst, NULL))
		return -1;
	if (tt_connect(a, TT_SUBNQN, 0, 0xffff, cntlid) != 0 || tt_enable(a) != 0)
		return -1;
	return 0;
}

/* The same with the default MAXH2CDATA. */
static int admin_up(struct tt *t, struct ttc *a, uint8_t dgst, uint16_t *cntlid)
{
	return admin_up_h2c(t, a, dgst, 0, cntlid);
}

/* An I/O queue (qid 1) of controller @cntlid on a new connection. */
static int io_up(struct tt *t, struct ttc *q, uint8_t hpda, uint8_t dgst, uint16_t cntlid)
{
	if (tt_dial(t, q) || tt_handshake(q, hpda, dgst, NULL))
		return -1;
	return tt_connect(q, TT_SUBNQN, 1, cntlid, NULL) == 0 ? 0 : -1;
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed);
}

/* Write @n bytes at @slba through R2T/H2CData PDUs of at most @chunk bytes, as each R2T
 * asks. Returns the CapsuleResp status or -1; *@r2ts counts the R2Ts. */
static int write_r2t(struct ttc *q, uint64_t slba, const uint8_t *data, uint32_t n, uint32_t chunk,
		     unsigned *r2ts)
{
	struct nvme_sqe sqe;
	tt_rw_sqe(q, &sqe, nvme_cmd_write, false, slba, n / 512);
	if (tt_capsule(q, &sqe, NULL, 0, false, false))
		return -1;
	uint32_t done = 0;
	*r2ts = 0;
	while (done < n) {
		uint8_t p[64];
		int len = tt_recv_pdu(q, p, sizeof(p));
		const struct nvme_tcp_r2t *r = (const void *)p;
		if (len <= 0 || r->ch.type != NVME_TCP_R2T || r->cccid != sqe.command_id ||
		    le32toh(r->r2to) != done || !le32toh(r->r2tl) || le32toh(r->r2tl) > n - done)
			return -1;
		(*r2ts)++;
		uint32_t end = done + le32toh(r->r2tl);
		while (done < end) {
			uint32_t k = end - done < chunk ? end - done : chunk;
			if (tt_h2c_data(q, sqe.command_id, le16toh(r->ttag), done, data + done, k,
					done + k == end))
				return -1;
			done += k;
		}
	}
	struct nvme_cqe cqe;
	return tt_rsp(q, &cqe);
}

static int read_back(struct ttc *q, uint64_t slba, uint8_t *out, uint32_t n)
{
	struct nvme_sqe sqe;
	tt_rw_sqe(q, &sqe, nvme_cmd_read, false, slba, n / 512);
	if (tt_capsule(q, &sqe, NULL, 0, false, false))
		return -1;
	return tt_read_data(q, out, n);
}

static void icreq_gets_icresp_with_the_digests_asked_and_maxh2cdata(void)
{
	static const uint8_t dgsts[] = { 0, NVME_TCP_DGST_HDR, NVME_TCP_DGST_DATA,
					 NVME_TCP_DGST_HDR | NVME_TCP_DGST_DATA };
	struct tt t;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 65536), 0);
	for (unsigned i = 0; i < sizeof(dgsts); i++) {
		struct ttc c;
		uint32_t maxh2c = 0;
		CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &c), 0);
		/* tt_handshake checks PFV 0, CPDA 0 and that the digests are those asked. */
		CU_ASSERT_EQUAL(tt_handshake(&c, 3, dgsts[i], &maxh2c), 0);
		CU_ASSERT_EQUAL(maxh2c, 65536);
		tt_close(&c);
	}
	tt_teardown(&t);
}

static void default_maxh2cdata_is_128_kib(void)
{
	struct tt t;
	struct ttc c;
	uint32_t maxh2c = 0;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &c), 0);
	CU_ASSERT_EQUAL(tt_handshake(&c, 0, 0, &maxh2c), 0);
	CU_ASSERT_EQUAL(maxh2c, 131072);
	tt_close(&c);
	tt_teardown(&t);
}

static void connect_then_identify_controller_comes_in_c2hdata(void)
{
	struct tt t;
	struct ttc a;
	uint16_t cntlid = 0;
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, 0, &cntlid), 0);
	CU_ASSERT_NOT_EQUAL(cntlid, 0);
	struct nvme_sqe sqe;
	tt_sqe(&a, &sqe, nvme_admin_identify, false, 4096);
	sqe.cdw10 = htole32(NVME_IDENTIFY_CNS_CTRL);
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&a, &sqe, NULL, 0, false, false), 0);
	struct nvme_id_ctrl id;
	CU_ASSERT_EQUAL(tt_read_data(&a, &id, sizeof(id)), 0);
	CU_ASSERT_STRING_EQUAL(id.subnqn, TT_SUBNQN);
	CU_ASSERT_EQUAL(le16toh(id.cntlid), cntlid);
	/* No keyed SGLs on TCP; in-capsule offsets on I/O queues; IOCCSZ from the port. */
	CU_ASSERT_EQUAL(le32toh(id.sgls) & NVME_CTRL_SGLS_KEYED, 0);
	CU_ASSERT_EQUAL(le32toh(id.ioccsz), (64 + 8192) / 16);
	CU_ASSERT_EQUAL(id.msdbd, 1);
	tt_close(&a);
	tt_teardown(&t);
}

static void write_in_capsule_reads_back_through_c2hdata(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	uint8_t w[4096], r[4096];
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, 0, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 0, 0, cntlid), 0);
	fill(w, sizeof(w), 3);
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	tt_rw_sqe(&q, &sqe, nvme_cmd_write, true, 8, 8);
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, w, sizeof(w), false, false), 0);
	CU_ASSERT_EQUAL(tt_rsp(&q, &cqe), 0);
	CU_ASSERT_EQUAL(cqe.command_id, sqe.command_id);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_id), 1);
	memset(r, 0, sizeof(r));
	CU_ASSERT_EQUAL(read_back(&q, 8, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* With MAXH2CDATA 4096, a 16 KiB write takes one R2T for all of it, answered by four
 * H2CData PDUs of 4 KiB. */
static void write_through_r2t_and_h2cdata_reads_back(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	unsigned r2ts = 0;
	static uint8_t w[16384], r[16384];
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 0, 4096), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &a), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&a, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(&a, TT_SUBNQN, 0, 0xffff, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(tt_enable(&a), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &q), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&q, 0, 0, NULL), 0);
	q.connect_r2t = true; /* no in-capsule data on this port's I/O queues */
	CU_ASSERT_EQUAL_FATAL(tt_connect(&q, TT_SUBNQN, 1, cntlid, NULL), 0);
	fill(w, sizeof(w), 11);
	CU_ASSERT_EQUAL(write_r2t(&q, 100, w, sizeof(w), 4096, &r2ts), 0);
	CU_ASSERT_EQUAL(r2ts, 1);
	CU_ASSERT_EQUAL(read_back(&q, 100, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* Header and data digests both ways, an HPDA of 32 bytes for C2H data, H2CData PDUs
 * smaller than the R2T. */
static void digests_and_hpda_on_writes_and_reads(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	unsigned r2ts = 0;
	static uint8_t w[65536], r[65536];
	const uint8_t dg = NVME_TCP_DGST_HDR | NVME_TCP_DGST_DATA;
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, dg, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 7, dg, cntlid), 0);
	fill(w, sizeof(w), 5);
	CU_ASSERT_EQUAL(write_r2t(&q, 0, w, sizeof(w), 8192, &r2ts), 0);
	CU_ASSERT_EQUAL(r2ts, 1);
	CU_ASSERT_EQUAL(read_back(&q, 0, r, sizeof(r)), 0); /* checks PDO % 32, digests */
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	tt_rw_sqe(&q, &sqe, nvme_cmd_write, true, 200, 2);
	CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, w, 1024, false, false), 0);
	CU_ASSERT_EQUAL(tt_rsp(&q, &cqe), 0);
	CU_ASSERT_EQUAL(read_back(&q, 200, r, 1024), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, 1024), 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* A data digest error fails the command with Transient Transport Error (retryable); the
 * connection stays and the data was not written. */
/* A write through one R2T whose single H2CData PDU (@n data bytes, both digests) arrives
 * in pieces, the target running between them: its header and the first bytes, most of
 * the data, then the rest with the digest split. The data goes straight from the socket
 * into the command's buffer once the header is checked. Returns the CapsuleResp status
 * or -1. */
static int write_h2c_in_pieces(struct ttc *q, uint64_t slba, const uint8_t *w, uint32_t n,
			       bool bad_ddgst)
{
	struct nvme_sqe sqe;
	tt_rw_sqe(q, &sqe, nvme_cmd_write, false, slba, n / 512);
	if (tt_capsule(q, &sqe, NULL, 0, false, false))
		return -1;
	uint8_t p[64] = { 0 };
	const struct nvme_tcp_r2t *r2t = (const void *)p;
	if (tt_recv_pdu(q, p, sizeof(p)) <= 0 || r2t->ch.type != NVME_TCP_R2T ||
	    le32toh(r2t->r2tl) != n)
		return -1;
	uint32_t plen;
	uint8_t *pdu =
		tt_h2c_pdu(q, sqe.command_id, le16toh(r2t->ttag), 0, w, n, true, bad_ddgst, &plen);
	if (!pdu)
		return -1;
	uint32_t hend = (uint32_t)sizeof(struct nvme_tcp_data) + NVME_TCP_DIGEST_LEN;
	const uint32_t cut[] = { hend + 100, plen / 2, plen - 2, plen };
	uint32_t off = 0;
	int rc = 0;
	for (unsigned i = 0; i < 4 && !rc; i++) {
		rc = tt_send(q, pdu + off, cut[i] - off);
		off = cut[i];
		tt_drive(q->t);
	}
	free(pdu);
	struct nvme_cqe cqe;
	return rc ? -1 : tt_rsp(q, &cqe);
}

/* H2CData data received straight into the command's buffer reads back, with the data
 * digest checked over it there. */
static void h2cdata_arriving_in_pieces_goes_to_the_command_and_reads_back(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	static uint8_t w[65536], r[65536];
	const uint8_t dg = NVME_TCP_DGST_HDR | NVME_TCP_DGST_DATA;
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, dg, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 0, dg, cntlid), 0);
	fill(w, sizeof(w), 23);
	CU_ASSERT_EQUAL(write_h2c_in_pieces(&q, 300, w, sizeof(w), false), 0);
	struct nvme_sqe sqe;
	tt_rw_sqe(&q, &sqe, nvme_cmd_read, false, 300, sizeof(r) / 512);
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL(tt_read_data(&q, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* Writes whose data comes as many H2CData PDUs sent back to back, cut into pieces that
 * end anywhere (mid-header, mid-data, mid-digest): after one PDU's data went straight to
 * the command the target receives only a few headers' worth into its buffer, and the
 * next PDU's data must still land whole and in order (data read back equals data
 * written, two commands in a row, digests on). */
static void h2cdata_pdus_back_to_back_in_odd_pieces_read_back(void)
{
	enum { LEN = 131072, PDU = 16384, CUT = 5001 };
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	static uint8_t w[LEN], r[LEN], stream[LEN + 16 * 64];
	const uint8_t dg = NVME_TCP_DGST_HDR | NVME_TCP_DGST_DATA;
	CU_ASSERT_EQUAL_FATAL(admin_up_h2c(&t, &a, dg, PDU, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 0, dg, cntlid), 0);
	for (unsigned round = 0; round < 2; round++) {
		fill(w, sizeof(w), 31 + round);
		struct nvme_sqe sqe;
		tt_rw_sqe(&q, &sqe, nvme_cmd_write, false, 8, LEN / 512);
		CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
		uint8_t p[64] = { 0 };
		const struct nvme_tcp_r2t *r2t = (const void *)p;
		CU_ASSERT_FATAL(tt_recv_pdu(&q, p, sizeof(p)) > 0 && r2t->ch.type == NVME_TCP_R2T &&
				le32toh(r2t->r2tl) == LEN);
		uint32_t slen = 0;
		for (uint32_t off = 0; off < LEN; off += PDU) {
			uint32_t plen;
			uint8_t *pdu = tt_h2c_pdu(&q, sqe.command_id, le16toh(r2t->ttag), off,
						  w + off, PDU, off + PDU == LEN, false, &plen);
			CU_ASSERT_FATAL(pdu != NULL && slen + plen <= sizeof(stream));
			memcpy(stream + slen, pdu, plen);
			slen += plen;
			free(pdu);
		}
		for (uint32_t off = 0; off < slen; off += CUT) {
			uint32_t k = slen - off < CUT ? slen - off : CUT;
			CU_ASSERT_EQUAL_FATAL(tt_send(&q, stream + off, k), 0);
			tt_drive(&t);
		}
		struct nvme_cqe cqe;
		CU_ASSERT_EQUAL(tt_rsp(&q, &cqe), 0);
		memset(r, 0, sizeof(r));
		CU_ASSERT_EQUAL(read_back(&q, 8, r, LEN), 0);
		CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	}
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* A read of more than NVMF_TCP_TX_EARLY_BYTES is sent as soon as it is queued, not at the
 * end of the pass: the whole namespace (1 MiB) written, then read back in one command
 * (more than the socket takes at once: the rest leaves on EPOLLOUT), byte for byte; the
 * send list is empty afterwards. */
static void a_read_larger_than_the_early_send_size_reads_back_whole(void)
{
	enum { LEN = 1 << 20 };
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	unsigned r2ts;
	static uint8_t w[LEN], r[LEN];
	_Static_assert(LEN > NVMF_TCP_TX_EARLY_BYTES, "the read is sent early");
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, NVME_TCP_DGST_DATA, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 0, NVME_TCP_DGST_DATA, cntlid), 0);
	fill(w, sizeof(w), 41);
	CU_ASSERT_EQUAL_FATAL(write_r2t(&q, 0, w, LEN, 65536, &r2ts), 0);
	CU_ASSERT_EQUAL(read_back(&q, 0, r, LEN), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, LEN), 0);
	tt_drive(&t);
	struct nvmf_tcp_conn *c = tt_main_tpg(&t)->conns;
	for (; c; c = c->next) {
		CU_ASSERT_PTR_NULL(c->tx_head);
		CU_ASSERT_EQUAL(c->tx_bytes, 0);
	}
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* The same with a wrong data digest: the command fails (Transient Transport Error, the
 * host may retry), nothing of it is written, and the connection goes on. */
static void h2cdata_arriving_in_pieces_with_a_bad_data_digest_fails_retryably(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	static uint8_t w[32768], r[32768], z[32768];
	const uint8_t dg = NVME_TCP_DGST_HDR | NVME_TCP_DGST_DATA;
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, dg, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 0, dg, cntlid), 0);
	fill(w, sizeof(w), 41);
	CU_ASSERT_EQUAL(write_h2c_in_pieces(&q, 600, w, sizeof(w), true), NVME_SC_TRAN_TPORT_ERROR);
	struct nvme_sqe sqe;
	tt_rw_sqe(&q, &sqe, nvme_cmd_read, false, 600, sizeof(r) / 512);
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL(tt_read_data(&q, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(memcmp(z, r, sizeof(r)), 0); /* the RAM namespace starts zeroed */
	CU_ASSERT_EQUAL(write_h2c_in_pieces(&q, 600, w, sizeof(w), false), 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

static void data_digest_error_fails_the_command_with_transient_transport_error(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	uint8_t w[1024], r[1024];
	const uint8_t dg = NVME_TCP_DGST_DATA;
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, 0, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 0, dg, cntlid), 0);
	fill(w, sizeof(w), 9);
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	tt_rw_sqe(&q, &sqe, nvme_cmd_write, true, 40, 2);
	CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, w, sizeof(w), false, true), 0);
	CU_ASSERT_EQUAL(tt_rsp(&q, &cqe), NVME_SC_TRAN_TPORT_ERROR);
	CU_ASSERT_EQUAL(read_back(&q, 40, r, sizeof(r)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* A transport SGL whose length is not the command's: Data SGL Length Invalid, no R2T. */
static void sgl_length_mismatch_is_data_sgl_length_invalid(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, 0, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 0, 0, cntlid), 0);
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	tt_rw_sqe(&q, &sqe, nvme_cmd_write, false, 0, 2);
	sqe.dptr.unkeyed.length = htole32(512);
	CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL(tt_rsp(&q, &cqe), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	/* A keyed SGL means nothing on TCP. */
	tt_rw_sqe(&q, &sqe, nvme_cmd_read, false, 0, 1);
	sqe.dptr.keyed.type = NVME_SGL_KEYED_ADDR;
	CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL(tt_rsp(&q, &cqe), NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* The discovery log over TCP: trtype TCP, IPv4, a wildcard port's traddr as the address
 * the host dialed, trsvcid, TSAS sectype none. */
static void discovery_log_lists_the_tcp_port(void)
{
	struct tt t;
	struct ttc d;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "0.0.0.0", 8192, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &d), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&d, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(&d, NVME_DISC_SUBSYS_NAME, 0, 0xffff, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_enable(&d), 0);
	static uint8_t log[4096];
	struct nvme_sqe sqe;
	tt_sqe(&d, &sqe, nvme_admin_get_log_page, false, sizeof(log));
	sqe.cdw10 = htole32(NVME_LOG_LID_DISCOVER | ((sizeof(log) / 4 - 1) << 16));
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&d, &sqe, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL_FATAL(tt_read_data(&d, log, sizeof(log)), 0);
	struct nvmf_disc_log_hdr h;
	CU_ASSERT_EQUAL_FATAL(nvmf_disc_log_decode_header(log, sizeof(log), &h), 0);
	CU_ASSERT_FATAL(h.numrec >= 1);
	bool found = false;
	for (uint64_t i = 0; i < h.numrec && i < 3; i++) {
		struct nvmf_disc_rec rec;
		struct nvmf_disc_strs strs;
		nvmf_disc_log_decode_entry(
			log + NVMF_DISC_LOG_HDR_SIZE + i * NVMF_DISC_LOG_ENTRY_SIZE, &rec, &strs);
		if (strcmp(rec.subnqn, TT_SUBNQN))
			continue;
		found = true;
		char svc[8];
		snprintf(svc, sizeof(svc), "%u", t.port);
		CU_ASSERT_EQUAL(rec.trtype, NVMF_TRTYPE_TCP);
		CU_ASSERT_EQUAL(rec.adrfam, NVMF_ADDR_FAMILY_IP4);
		CU_ASSERT_STRING_EQUAL(rec.traddr, "127.0.0.1");
		CU_ASSERT_STRING_EQUAL(rec.trsvcid, svc);
		CU_ASSERT_EQUAL(rec.tcp_sectype, NVMF_TCP_SECTYPE_NONE);
	}
	CU_ASSERT_TRUE(found);
	tt_close(&d);
	tt_teardown(&t);
}

/* A queue whose Connect disabled SQ flow control (CATTR bit 2): a successful read's last
 * C2HData carries LAST_PDU and SUCCESS and no CapsuleResp follows (TCP transport 1.0
 * section 3.6.2.8), with digests too; writes, failed reads and commands without data
 * still get their CapsuleResp (SQHD 0: reserved); the next command's answer is the next
 * PDU (no CapsuleResp was left behind). A queue without the bit reads as before. */
static void sqflow_disabled_read_ends_with_c2hdata_success_and_no_capsuleresp(void)
{
	struct tt t;
	struct ttc a, q, plain;
	uint16_t cntlid;
	static uint8_t w[65536], r[65536];
	const uint8_t dg = NVME_TCP_DGST_HDR | NVME_TCP_DGST_DATA;
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, 0, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &q), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&q, 0, dg, NULL), 0);
	q.cattr = NVMF_CONNECT_CATTR_SQFLOW_DISABLE;
	CU_ASSERT_EQUAL_FATAL(tt_connect(&q, TT_SUBNQN, 1, cntlid, NULL), 0);
	CU_ASSERT_EQUAL(le16toh(q.cqe.sq_head), 0xffff);
	fill(w, sizeof(w), 11);
	unsigned r2ts;
	CU_ASSERT_EQUAL(write_r2t(&q, 0, w, sizeof(w), 16384, &r2ts), 0);
	for (unsigned i = 0; i < 3; i++) { /* more than once: each command is freed */
		memset(r, 0, sizeof(r));
		CU_ASSERT_EQUAL(read_back(&q, 0, r, sizeof(r)), 0);
		CU_ASSERT_TRUE(q.success);
		CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	}
	/* A write's answer is a CapsuleResp, and the very next PDU. */
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	tt_rw_sqe(&q, &sqe, nvme_cmd_write, true, 300, 1);
	CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, w, 512, false, false), 0);
	CU_ASSERT_EQUAL(tt_rsp(&q, &cqe), 0);
	CU_ASSERT_EQUAL(cqe.command_id, sqe.command_id);
	CU_ASSERT_EQUAL(le16toh(cqe.sq_head), 0);
	/* A read that fails: no data, a CapsuleResp with the status. */
	tt_rw_sqe(&q, &sqe, nvme_cmd_read, false, 2048, 1); /* 1 MiB = blocks 0..2047 */
	CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL(tt_read_data(&q, r, 512), NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_FALSE(q.success);
	/* The same data read on a queue of the same controller that kept SQ flow control. */
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &plain), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&plain, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(&plain, TT_SUBNQN, 2, cntlid, NULL), 0);
	CU_ASSERT_NOT_EQUAL(le16toh(plain.cqe.sq_head), 0xffff);
	memset(r, 0, sizeof(r));
	CU_ASSERT_EQUAL(read_back(&plain, 0, r, sizeof(r)), 0);
	CU_ASSERT_FALSE(plain.success);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
	tt_close(&plain);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* The admin queue may disable SQ flow control too (the Linux host's --disable-sqflow
 * does it on every queue): Identify's data comes in one C2HData with SUCCESS. */
static void sqflow_disabled_admin_queue_gets_identify_with_success(void)
{
	struct tt t;
	struct ttc a;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &a), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&a, 0, 0, NULL), 0);
	a.cattr = NVMF_CONNECT_CATTR_SQFLOW_DISABLE;
	CU_ASSERT_EQUAL_FATAL(tt_connect(&a, TT_SUBNQN, 0, 0xffff, NULL), 0);
	CU_ASSERT_EQUAL(le16toh(a.cqe.sq_head), 0xffff);
	CU_ASSERT_EQUAL_FATAL(tt_enable(&a), 0);
	static uint8_t id[4096];
	struct nvme_sqe sqe;
	tt_sqe(&a, &sqe, nvme_admin_identify, false, sizeof(id));
	sqe.cdw10 = htole32(NVME_IDENTIFY_CNS_CTRL);
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&a, &sqe, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL(tt_read_data(&a, id, sizeof(id)), 0);
	CU_ASSERT_TRUE(a.success);
	const struct nvme_id_ctrl *ic = (const void *)id;
	CU_ASSERT_EQUAL(memcmp(ic->subnqn, TT_SUBNQN, sizeof(TT_SUBNQN)), 0);
	tt_close(&a);
	tt_teardown(&t);
}

/* The core sees a closed connection as a queue gone: the controller goes with its admin
 * queue, and nothing of the transport is left. */
static void closed_connections_release_their_queues(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, 0, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(io_up(&t, &q, 0, 0, cntlid), 0);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&t.tgt), 2);
	tt_close(&q);
	tt_close(&a);
	tt_drive(&t);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&t.tgt), 0);
	CU_ASSERT_PTR_NULL(t.tgt.ctrls);
	struct nvmf_tpg_stats st;
	const struct nvmf_pg *pg = nvmf_tgt_main_pg(&t.tgt);
	pg->tpg[0]->transport->ops->pg_stats(pg->tpg[0], &st);
	CU_ASSERT_EQUAL(st.queues, 0);
	CU_ASSERT_EQUAL(st.bufs_held, 0);
	tt_teardown(&t);
}

static struct nvmf_sq *io_sq(struct tt *t)
{
	for (struct nvmf_sq *sq = nvmf_tgt_main_pg(&t->tgt)->sqs; sq; sq = sq->pg_next)
		if (sq->qid == 1)
			return sq;
	return NULL;
}

/* Shutdown waits while a queue is busy (ops->queue_busy). A read's answer handed to the
 * kernel is not delivered yet: while the host does not read (its receive buffer small and
 * full), the answer sits unacknowledged in the target's send queue, where a reset (the
 * host writing to the socket after the target closed it) would lose it. The queue stays
 * busy until the host's TCP acknowledged every byte, and the host then has the whole
 * answer. */
static void a_read_answer_the_host_has_not_acknowledged_keeps_the_queue_busy(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	unsigned r2ts = 0;
	static uint8_t w[131072], r[131072];
	CU_ASSERT_EQUAL_FATAL(admin_up(&t, &a, 0, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial_rcvbuf(&t, &q, 4096), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&q, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(&q, TT_SUBNQN, 1, cntlid, NULL), 0);
	fill(w, sizeof(w), 23);
	CU_ASSERT_EQUAL_FATAL(write_r2t(&q, 0, w, sizeof(w), sizeof(w), &r2ts), 0);
	struct nvmf_sq *sq = io_sq(&t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sq);
	const struct nvmf_transport_ops *ops = sq->transport->ops;
	struct nvme_sqe sqe;
	tt_rw_sqe(&q, &sqe, nvme_cmd_read, false, 0, sizeof(r) / 512);
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
	for (int i = 0; i < 8; i++)
		tt_drive(&t);
	/* Answered as far as the core knows; not delivered. */
	CU_ASSERT_EQUAL(sq->inflight, 0);
	CU_ASSERT_TRUE(ops->queue_busy(sq));
	/* The host reads: the whole answer, then the acknowledgements free the queue. */
	CU_ASSERT_EQUAL(tt_read_data(&q, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(r)), 0);
	for (int i = 0; i < 2000 && ops->queue_busy(sq); i++) { /* a delayed ACK: ms */
		tt_drive(&t);
		usleep(1000);
	}
	CU_ASSERT_FALSE(ops->queue_busy(sq));
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

const struct unit_test tcp_target_tests[] = {
	{ "a_read_larger_than_the_early_send_size_reads_back_whole",
	  a_read_larger_than_the_early_send_size_reads_back_whole },
	{ "h2cdata_pdus_back_to_back_in_odd_pieces_read_back",
	  h2cdata_pdus_back_to_back_in_odd_pieces_read_back },
	{ "icreq_gets_icresp_with_the_digests_asked_and_maxh2cdata",
	  icreq_gets_icresp_with_the_digests_asked_and_maxh2cdata },
	{ "default_maxh2cdata_is_128_kib", default_maxh2cdata_is_128_kib },
	{ "connect_then_identify_controller_comes_in_c2hdata",
	  connect_then_identify_controller_comes_in_c2hdata },
	{ "write_in_capsule_reads_back_through_c2hdata",
	  write_in_capsule_reads_back_through_c2hdata },
	{ "write_through_r2t_and_h2cdata_reads_back", write_through_r2t_and_h2cdata_reads_back },
	{ "digests_and_hpda_on_writes_and_reads", digests_and_hpda_on_writes_and_reads },
	{ "h2cdata_arriving_in_pieces_goes_to_the_command_and_reads_back",
	  h2cdata_arriving_in_pieces_goes_to_the_command_and_reads_back },
	{ "h2cdata_arriving_in_pieces_with_a_bad_data_digest_fails_retryably",
	  h2cdata_arriving_in_pieces_with_a_bad_data_digest_fails_retryably },
	{ "data_digest_error_fails_the_command_with_transient_transport_error",
	  data_digest_error_fails_the_command_with_transient_transport_error },
	{ "sgl_length_mismatch_is_data_sgl_length_invalid",
	  sgl_length_mismatch_is_data_sgl_length_invalid },
	{ "discovery_log_lists_the_tcp_port", discovery_log_lists_the_tcp_port },
	{ "closed_connections_release_their_queues", closed_connections_release_their_queues },
	{ "sqflow_disabled_read_ends_with_c2hdata_success_and_no_capsuleresp",
	  sqflow_disabled_read_ends_with_c2hdata_success_and_no_capsuleresp },
	{ "sqflow_disabled_admin_queue_gets_identify_with_success",
	  sqflow_disabled_admin_queue_gets_identify_with_success },
	{ "a_read_answer_the_host_has_not_acknowledged_keeps_the_queue_busy",
	  a_read_answer_the_host_has_not_acknowledged_keeps_the_queue_busy },
	{ NULL, NULL },
};
