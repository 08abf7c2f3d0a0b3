/* The NVMe/TCP host transport's send side (tcp/host/tx.c): a write within the in-capsule
 * size travels in the CapsuleCmd, a larger one in H2CData PDUs of at most MAXH2CDATA
 * answering each R2T (TCP transport 1.0 sections 3.3, 3.6.2); capsules queued by submit
 * and written together by the next flush, a short write resumed, the PDUs of a command that
 * ended copied (half written) or dropped (not begun); the H2CTermReq the host sends on a
 * protocol error; the FES names in messages. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/unit/suites.h"
#include "tests/unit/tcp/host/io_fixture.h"

static void script_writes(struct fake_ctrl *f)
{
	struct io_case *c = f->arg;
	uint16_t cid;
	if (fc_icreq(f, NULL))
		return;
	/* 1: in-capsule. */
	if (read_capsule(f, 0, &cid) || fc_send_rsp(f, cid, 0, 0))
		return;
	/* 2: R2T in two parts, the first split by MAXH2CDATA. */
	if (read_capsule(f, 1, &cid))
		return;
	uint8_t *got = calloc(1, c->len);
	c->h2c_pdus[0] =
		fc_send_r2t(f, cid, 5, 0, 6000) ? -1 : fc_read_h2c(f, cid, 5, got, c->len, 4096);
	c->h2c_pdus[1] = fc_send_r2t(f, cid, 6, 6000, c->len - 6000) ?
				 -1 :
				 fc_read_h2c(f, cid, 6, got, c->len, 4096);
	c->h2c_ok = !memcmp(got, c->data, c->len);
	free(got);
	fc_send_rsp(f, cid, 0, 0);
	c->eof = fc_eof(f);
}

static void write_within_incapsule_size_goes_in_capsule_larger_one_answers_r2ts(void)
{
	struct fake_ctrl f = { .maxh2cdata = 4096 };
	struct io_case c = { .len = 10000 };
	struct th_result r;
	uint8_t *buf = malloc(c.len);
	fc_pattern(buf, c.len, 1);
	c.data = buf;
	struct th_host *h = connect_host(&f, &c, script_writes, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	/* IOCCSZ 68: 68 * 16 - 64 = 1024 bytes in the capsule. */
	nvmf_tcp_host_transport.set_incapsule(&h->q.hq, 68);
	CU_ASSERT_EQUAL(th_queue(h)->incapsule, 1024);
	CU_ASSERT_EQUAL(th_submit(h, OPC_WRITE, buf, 1024, &r, NULL), 0);
	th_wait(h, &r);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_EQUAL(th_submit(h, OPC_WRITE, buf, c.len, &r, NULL), 0);
	th_wait(h, &r);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(r.status, 0);
	th_close(h);
	fc_join(&f);
	CU_ASSERT_EQUAL(f.errors, 0);
	CU_ASSERT_EQUAL(c.sgl_type[0], NVME_SGL_INCAPSULE);
	CU_ASSERT_EQUAL(c.sgl_len[0], 1024);
	CU_ASSERT_EQUAL(c.icd_len[0], 1024);
	CU_ASSERT_TRUE(c.icd_ok[0]);
	CU_ASSERT_EQUAL(c.sgl_type[1], NVME_SGL_TCP_TRANSPORT);
	CU_ASSERT_EQUAL(c.sgl_len[1], 10000);
	CU_ASSERT_EQUAL(c.icd_len[1], 0);
	CU_ASSERT_EQUAL(c.h2c_pdus[0], 2); /* 4096 + 1904 */
	CU_ASSERT_EQUAL(c.h2c_pdus[1], 1); /* 4000 */
	CU_ASSERT_TRUE(c.h2c_ok);
	CU_ASSERT_TRUE(c.eof);
	free(buf);
}

/* ---- reads ---- */

static void fes_names_say_what_the_controller_got_wrong(void)
{
	CU_ASSERT_STRING_EQUAL(nvmf_th_fes_str(NVME_TCP_FES_INVALID_HEADER),
			       "invalid header field");
	CU_ASSERT_STRING_EQUAL(nvmf_th_fes_str(NVME_TCP_FES_PDU_SEQUENCE), "PDU sequence error");
	CU_ASSERT_STRING_EQUAL(nvmf_th_fes_str(NVME_TCP_FES_HDR_DIGEST), "header digest error");
	CU_ASSERT_STRING_EQUAL(nvmf_th_fes_str(NVME_TCP_FES_DATA_OUT_OF_RANGE),
			       "data transfer out of range");
	CU_ASSERT_STRING_EQUAL(nvmf_th_fes_str(NVME_TCP_FES_R2T_LIMIT_EXCEEDED),
			       "R2T limit exceeded");
	CU_ASSERT_STRING_EQUAL(nvmf_th_fes_str(NVME_TCP_FES_UNSUPPORTED_PARAM),
			       "unsupported parameter");
	CU_ASSERT_STRING_EQUAL(nvmf_th_fes_str(0x7f), "unknown status");
}

/* H2CTermReq (section 3.6.2.9): FES, FEI and the offending header, at most 128 bytes of it. */
static void term_carries_fes_fei_and_at_most_128_bytes_of_the_header(void)
{
	int sv[2];
	struct fake_ctrl f;
	struct nvme_tcp_icresp r;
	struct nvme_tcp_icreq ic;
	struct th_host *h = calloc(1, sizeof(*h)); /* large: not on the stack */
	char err[256];
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(&f, 0, sizeof(f));
	f.fd = sv[1];
	fc_default_icresp(&f, &r);
	CU_ASSERT_EQUAL_FATAL(fc_write(&f, &r, sizeof(r)), 0);
	CU_ASSERT_EQUAL_FATAL(th_attach(h, sv[0], 1, 16, false, false, 2000, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(fc_read(&f, &ic, sizeof(ic)), 0);
	struct nvmf_th_queue *q = th_queue(h);
	CU_ASSERT_FALSE(nvmf_th_tx_pending(q)); /* nothing queued yet */
	uint8_t hdr[200];
	for (size_t i = 0; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)i;
	nvmf_th_send_term(q, NVME_TCP_FES_PDU_SEQUENCE, 5, hdr, sizeof(hdr));
	uint8_t got[sizeof(struct nvme_tcp_term) + NVME_TCP_TERM_MAX_DATA];
	CU_ASSERT_EQUAL_FATAL(fc_read(&f, got, sizeof(got)), 0);
	const struct nvme_tcp_term *t = (const void *)got;
	CU_ASSERT_EQUAL(t->ch.type, NVME_TCP_H2C_TERM);
	CU_ASSERT_EQUAL(t->ch.hlen, sizeof(*t));
	CU_ASSERT_EQUAL(le32toh(t->ch.plen), sizeof(got));
	CU_ASSERT_EQUAL(le16toh(t->fes), NVME_TCP_FES_PDU_SEQUENCE);
	CU_ASSERT_EQUAL(le32toh(t->fei), 5);
	CU_ASSERT_EQUAL(memcmp(got + sizeof(*t), hdr, NVME_TCP_TERM_MAX_DATA), 0);
	th_close(h);
	close(sv[1]);
	free(h);
	CU_ASSERT_EQUAL(f.errors, 0);
}

/* ---- batching: capsules queued by submit, written together by the next flush ---- */

static void capsules_submitted_before_a_flush_go_out_together_in_order(void)
{
	enum { N = 40 }; /* more than one ring's worth (NVMF_TH_TX_BATCH) */
	int peer;
	struct th_host *h = attach_pair(&peer, 1, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	struct nvmf_th_queue *q = th_queue(h);
	static struct th_result r[N];
	static uint8_t buf[N][512];
	uint16_t cid[N];
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(
			th_submit(h, OPC_READ, buf[i], sizeof(buf[i]), &r[i], &cid[i]), 0);
	/* Submit only queued them: nothing on the wire, nothing built yet. */
	uint8_t b;
	CU_ASSERT_EQUAL(recv(peer, &b, 1, MSG_DONTWAIT), -1);
	CU_ASSERT_TRUE(nvmf_th_tx_pending(q));
	CU_ASSERT_EQUAL(q->tx_count, 0);
	/* One flush writes all of them (the ring refilled while the socket takes it all). */
	CU_ASSERT_EQUAL(nvmf_th_tx_flush(q), 0);
	CU_ASSERT_FALSE(nvmf_th_tx_pending(q));
	static uint8_t got[N * sizeof(struct nvme_tcp_cmd) + 1];
	size_t len = 0;
	drain_peer(peer, got, sizeof(got), &len);
	CU_ASSERT_EQUAL_FATAL(len, N * sizeof(struct nvme_tcp_cmd));
	for (int i = 0; i < N; i++) {
		const struct nvme_tcp_cmd *c = (const void *)(got + i * sizeof(*c));
		CU_ASSERT_EQUAL(c->ch.type, NVME_TCP_CMD);
		CU_ASSERT_EQUAL(le32toh(c->ch.plen), sizeof(*c));
		CU_ASSERT_EQUAL(c->sqe.command_id, cid[i]);
		CU_ASSERT_EQUAL(c->sqe.dptr.unkeyed.type, NVME_SGL_TCP_TRANSPORT);
	}
	th_close(h);
	close(peer);
	free(h);
}

/* The admin queue does not wait for a poll: its command is on the wire when submit
 * returns (an Asynchronous Event Request may never be followed by one). */
static void admin_queue_writes_its_capsule_at_submit(void)
{
	int peer;
	struct th_host *h = attach_pair(&peer, 0, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	struct th_result r;
	uint8_t buf[512];
	uint16_t cid;
	CU_ASSERT_EQUAL_FATAL(th_submit(h, OPC_READ, buf, sizeof(buf), &r, &cid), 0);
	CU_ASSERT_FALSE(nvmf_th_tx_pending(th_queue(h)));
	struct nvme_tcp_cmd got;
	CU_ASSERT_EQUAL(recv(peer, &got, sizeof(got), MSG_DONTWAIT), (ssize_t)sizeof(got));
	CU_ASSERT_EQUAL(got.ch.type, NVME_TCP_CMD);
	CU_ASSERT_EQUAL(got.sqe.command_id, cid);
	th_close(h);
	close(peer);
	free(h);
}

/*
 * A short write leaves the rest of the ring for the next flush. A command that ends while
 * its capsule is half written keeps the rest going from a copy (the stream stays whole,
 * its buffer may be reused), and one that ends before a byte of its capsule went out is
 * dropped from the ring: the controller never sees it.
 */
static void short_write_resumes_ended_commands_pdus_copied_or_dropped(void)
{
	enum { N = 3, LEN = 8192 };
	int peer;
	struct th_host *h = attach_pair(&peer, 1, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	struct nvmf_th_queue *q = th_queue(h);
	/* A small send buffer: the first sendmsg takes part of the first capsule only. */
	int small = 4096;
	CU_ASSERT_EQUAL(setsockopt(q->fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	nvmf_tcp_host_transport.set_incapsule(&h->q.hq, (LEN + 64) / 16);
	CU_ASSERT_EQUAL_FATAL(q->incapsule, LEN);
	static uint8_t buf[N][LEN], want[N][LEN];
	static struct th_result r[N];
	uint16_t cid[N];
	for (int i = 0; i < N; i++) {
		fc_pattern(buf[i], LEN, 10 + (unsigned)i);
		memcpy(want[i], buf[i], LEN);
		CU_ASSERT_EQUAL_FATAL(th_submit(h, OPC_WRITE, buf[i], LEN, &r[i], &cid[i]), 0);
	}
	CU_ASSERT_EQUAL(nvmf_th_tx_flush(q), 0);
	CU_ASSERT_EQUAL_FATAL(q->tx_count, N); /* all built, the first one begun */
	CU_ASSERT_TRUE(q->tx[q->tx_head].off > 0);
	CU_ASSERT_TRUE(q->tx[q->tx_head].off < sizeof(struct nvme_tcp_cmd) + LEN);
	/* The first and the last end now; the first's buffer is reused at once. */
	CU_ASSERT_EQUAL(nvmf_th_tx_forget(q, &q->cmds[cid[0]]), 0);
	CU_ASSERT_EQUAL(nvmf_th_tx_forget(q, &q->cmds[cid[2]]), 0);
	memset(buf[0], 0xee, LEN);
	static uint8_t got[(N + 1) * (sizeof(struct nvme_tcp_cmd) + LEN)];
	size_t len = 0;
	for (int i = 0; i < 1000 && nvmf_th_tx_pending(q); i++) {
		drain_peer(peer, got, sizeof(got), &len);
		CU_ASSERT_EQUAL_FATAL(nvmf_th_tx_flush(q), 0);
	}
	CU_ASSERT_FALSE(nvmf_th_tx_pending(q));
	drain_peer(peer, got, sizeof(got), &len);
	/* The first capsule whole with its original data, then the second, nothing more. */
	size_t one = sizeof(struct nvme_tcp_cmd) + LEN;
	CU_ASSERT_EQUAL_FATAL(len, 2 * one);
	for (int i = 0; i < 2; i++) {
		const struct nvme_tcp_cmd *c = (const void *)(got + i * one);
		CU_ASSERT_EQUAL(c->ch.type, NVME_TCP_CMD);
		CU_ASSERT_EQUAL(le32toh(c->ch.plen), one);
		CU_ASSERT_EQUAL(c->sqe.command_id, cid[i]);
		CU_ASSERT_EQUAL(c->sqe.dptr.unkeyed.type, NVME_SGL_INCAPSULE);
		CU_ASSERT_EQUAL(memcmp(got + i * one + sizeof(*c), want[i], LEN), 0);
	}
	th_close(h);
	close(peer);
	free(h);
}

const struct unit_test tcp_host_tx_tests[] = {
	{ "write_within_incapsule_size_goes_in_capsule_larger_one_answers_r2ts",
	  write_within_incapsule_size_goes_in_capsule_larger_one_answers_r2ts },
	{ "fes_names_say_what_the_controller_got_wrong",
	  fes_names_say_what_the_controller_got_wrong },
	{ "term_carries_fes_fei_and_at_most_128_bytes_of_the_header",
	  term_carries_fes_fei_and_at_most_128_bytes_of_the_header },
	{ "capsules_submitted_before_a_flush_go_out_together_in_order",
	  capsules_submitted_before_a_flush_go_out_together_in_order },
	{ "admin_queue_writes_its_capsule_at_submit", admin_queue_writes_its_capsule_at_submit },
	{ "short_write_resumes_ended_commands_pdus_copied_or_dropped",
	  short_write_resumes_ended_commands_pdus_copied_or_dropped },
	{ NULL, NULL },
};
