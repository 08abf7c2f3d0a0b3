/* The NVMe/TCP host transport's receive state machine (tcp/host/rx.c) against the scripted
 * controller: C2HData at DATAO, the SUCCESS flag, data digests; and every PDU a controller
 * must not send: a connection error (H2CTermReq with the spec's FES, every command failed
 * with -ECONNRESET), never a byte written outside the command's buffer. TCP transport 1.0
 * sections 3.3 and 3.6. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/unit/suites.h"
#include "tests/unit/tcp/host/io_fixture.h"

static void script_reads(struct fake_ctrl *f)
{
	struct io_case *c = f->arg;
	uint16_t cid;
	if (fc_icreq(f, NULL))
		return;
	/* 1: two C2HData, then a CapsuleResp. */
	if (read_capsule(f, 0, &cid) || fc_send_c2h(f, cid, 0, c->data, 4096, 4096, 0) ||
	    fc_send_c2h(f, cid, 4096, c->data + 4096, 4096, 4096, NVME_TCP_F_DATA_LAST) ||
	    fc_send_rsp(f, cid, 0, 0))
		return;
	/* 2: one C2HData with SUCCESS: no CapsuleResp. */
	if (read_capsule(f, 1, &cid) || fc_send_c2h(f, cid, 0, c->data, 8192, 8192,
						    NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS))
		return;
	/* 3: an error status after no data. */
	if (read_capsule(f, 2, &cid) || fc_send_rsp(f, cid, 0x0281, 0))
		return;
	c->eof = fc_eof(f);
}

static void read_data_lands_at_datao_success_flag_completes_without_capsuleresp(void)
{
	struct fake_ctrl f = { 0 };
	struct io_case c = { .len = 8192 };
	struct th_result r;
	uint8_t *data = malloc(c.len), *buf = malloc(c.len);
	fc_pattern(data, c.len, 2);
	c.data = data;
	struct th_host *h = connect_host(&f, &c, script_reads, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	for (int i = 0; i < 3; i++) {
		memset(buf, 0xee, c.len);
		CU_ASSERT_EQUAL(th_submit(h, OPC_READ, buf, c.len, &r, NULL), 0);
		th_wait(h, &r);
		CU_ASSERT_TRUE(r.done);
		if (i < 2) {
			CU_ASSERT_EQUAL(r.status, 0);
			CU_ASSERT_EQUAL(memcmp(buf, data, c.len), 0);
		} else {
			CU_ASSERT_EQUAL(r.status, 0x0281); /* as the controller said */
		}
	}
	th_close(h);
	fc_join(&f);
	CU_ASSERT_EQUAL(f.errors, 0);
	CU_ASSERT_EQUAL(c.sgl_type[0], NVME_SGL_TCP_TRANSPORT);
	CU_ASSERT_EQUAL(c.sgl_len[0], 8192);
	CU_ASSERT_TRUE(c.eof);
	free(data);
	free(buf);
}

/* ---- 1 MiB both ways, digests, CPDA padding ---- */

static void script_ddgst(struct fake_ctrl *f)
{
	struct io_case *c = f->arg;
	uint16_t cid;
	if (fc_icreq(f, NULL) || read_capsule(f, 0, &cid) ||
	    fc_send_c2h(f, cid, 0, c->data, 4096, 4096, NVME_TCP_F_DATA_LAST | FC_BAD_DDGST) ||
	    fc_send_rsp(f, cid, 0, 0))
		return;
	if (read_capsule(f, 1, &cid) ||
	    fc_send_c2h(f, cid, 0, c->data, 4096, 4096,
			NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS | FC_BAD_DDGST))
		return;
	if (read_capsule(f, 2, &cid) || fc_send_c2h(f, cid, 0, c->data, 4096, 4096,
						    NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS))
		return;
	c->eof = fc_eof(f);
}

static void data_digest_mismatch_fails_the_command_with_data_transfer_error_only(void)
{
	struct fake_ctrl f = { .ddgst = true };
	struct io_case c = { .len = 4096 };
	struct th_result r;
	uint8_t *buf = malloc(c.len);
	c.data = malloc(c.len);
	fc_pattern(c.data, c.len, 4);
	struct th_host *h = connect_host(&f, &c, script_ddgst, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(th_submit(h, OPC_READ, buf, c.len, &r, NULL), 0);
		th_wait(h, &r);
		CU_ASSERT_TRUE(r.done);
		/* Generic status Data Transfer Error (04h), then a good read on the same queue. */
		CU_ASSERT_EQUAL(r.status, i < 2 ? 0x0004 : 0);
	}
	CU_ASSERT_EQUAL(memcmp(buf, c.data, c.len), 0);
	CU_ASSERT_FALSE(th_queue(h)->dead);
	th_close(h);
	fc_join(&f);
	CU_ASSERT_EQUAL(f.errors, 0);
	CU_ASSERT_TRUE(c.eof);
	free(buf);
	free(c.data);
}

/* ---- what a controller must not send ---- */

enum bad_pdu {
	BAD_C2H_BEYOND_BUFFER,
	BAD_C2H_UNKNOWN_CCCID,
	BAD_C2H_OUT_OF_ORDER,
	BAD_C2H_DATAL,
	BAD_C2H_FOR_WRITE,
	BAD_R2T_FOR_READ,
	BAD_R2T_BEYOND_WRITE,
	BAD_R2T_ZERO,
	BAD_R2T_TWICE,
	BAD_RSP_UNKNOWN_CID,
	BAD_TYPE,
	BAD_HDGST,
	BAD_TERM,
	BAD_EOF,
	BAD_C2H_SUCCESS_NOT_LAST,
	BAD_C2H_SUCCESS_SHORT,
};

static void script_bad(struct fake_ctrl *f)
{
	struct io_case *c = f->arg;
	uint16_t cid;
	if (fc_icreq(f, NULL) || read_capsule(f, 0, &cid))
		return;
	uint8_t junk[8192];
	memset(junk, 0x5a, sizeof(junk));
	switch (c->step) {
	case BAD_C2H_BEYOND_BUFFER:
		fc_send_c2h(f, cid, 0, junk, 8192, 8192, NVME_TCP_F_DATA_LAST);
		break;
	case BAD_C2H_UNKNOWN_CCCID:
		fc_send_c2h(f, (uint16_t)(cid + 17), 0, junk, 512, 512, 0);
		break;
	case BAD_C2H_OUT_OF_ORDER:
		fc_send_c2h(f, cid, 512, junk, 512, 512, 0);
		break;
	case BAD_C2H_DATAL:
		fc_send_c2h(f, cid, 0, junk, 512, 1024, 0);
		break;
	case BAD_C2H_SUCCESS_NOT_LAST:
		fc_send_c2h(f, cid, 0, junk, c->len, c->len, NVME_TCP_F_DATA_SUCCESS);
		break;
	case BAD_C2H_SUCCESS_SHORT:
		fc_send_c2h(f, cid, 0, junk, 512, 512,
			    NVME_TCP_F_DATA_SUCCESS | NVME_TCP_F_DATA_LAST);
		break;
	case BAD_C2H_FOR_WRITE:
		fc_send_c2h(f, cid, 0, junk, 512, 512, 0);
		break;
	case BAD_R2T_FOR_READ:
		fc_send_r2t(f, cid, 1, 0, 512);
		break;
	case BAD_R2T_BEYOND_WRITE:
		fc_send_r2t(f, cid, 1, 2048, 4096);
		break;
	case BAD_R2T_ZERO:
		fc_send_r2t(f, cid, 1, 0, 0);
		break;
	case BAD_R2T_TWICE: {
		/* Both R2Ts in one write: the host reads them together. */
		struct nvme_tcp_r2t two[2];
		memset(two, 0, sizeof(two));
		for (int i = 0; i < 2; i++) {
			two[i].ch.type = NVME_TCP_R2T;
			two[i].ch.hlen = sizeof(two[i]);
			two[i].ch.plen = htole32(sizeof(two[i]));
			two[i].cccid = cid;
			two[i].ttag = htole16((uint16_t)i);
			two[i].r2tl = htole32(4096);
		}
		fc_write(f, two, sizeof(two));
		break;
	}
	case BAD_RSP_UNKNOWN_CID:
		fc_send_rsp(f, (uint16_t)(cid + 3), 0, 0);
		break;
	case BAD_TYPE: {
		struct nvme_tcp_rsp r;
		memset(&r, 0, sizeof(r));
		r.ch.type = 0x77;
		r.ch.hlen = sizeof(r);
		r.ch.plen = htole32(sizeof(r));
		fc_write(f, &r, sizeof(r));
		break;
	}
	case BAD_HDGST:
		fc_send_rsp(f, cid, 0, FC_BAD_HDGST);
		break;
	case BAD_TERM:
		fc_send_term(f, NVME_TCP_FES_PDU_SEQUENCE, 0);
		break;
	case BAD_EOF:
		break;
	}
	if (c->step == BAD_TERM || c->step == BAD_EOF) {
		close(f->fd);
		f->fd = -1;
		return;
	}
	read_term(f);
}

/* Run @step against a @opc command of 4096 bytes in the middle of a guarded buffer:
 * the command fails with -ECONNRESET, the guard is untouched; *@c gets what the
 * controller saw, @why the queue's message. */
static void run_bad(enum bad_pdu step, uint8_t opc, bool hdgst, struct io_case *c, char *why,
		    size_t whylen)
{
	struct fake_ctrl f = { .hdgst = hdgst };
	struct th_result r;
	uint8_t *mem = malloc(3 * 4096), *buf = mem + 4096;
	memset(mem, 0xa5, 3 * 4096);
	memset(c, 0, sizeof(*c));
	c->step = step;
	c->len = 4096;
	c->data = buf;
	struct th_host *h = connect_host(&f, c, script_bad, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(th_submit(h, opc, buf, 4096, &r, NULL), 0);
	th_wait(h, &r);
	CU_ASSERT_TRUE(r.done);
	CU_ASSERT_EQUAL(r.status, -ECONNRESET);
	struct nvmf_th_queue *q = th_queue(h);
	CU_ASSERT_TRUE(q->dead);
	snprintf(why, whylen, "%s", q->err);
	/* The queue stays dead: nothing more is sent or taken. */
	CU_ASSERT_EQUAL(th_submit(h, opc, buf, 4096, &r, NULL), -ECONNRESET);
	th_close(h);
	fc_join(&f);
	bool guard = true;
	for (size_t i = 0; i < 4096; i++)
		if (mem[i] != 0xa5 || mem[2 * 4096 + i] != 0xa5)
			guard = false;
	CU_ASSERT_TRUE(guard);
	free(mem);
}

static void c2hdata_beyond_the_buffer_is_a_connection_error_not_a_write(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_C2H_BEYOND_BUFFER, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_DATA_OUT_OF_RANGE);
	CU_ASSERT_TRUE(c.eof);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "bytes 0..8191 beyond its 4096-byte buffer"));
}

static void c2hdata_for_a_command_not_outstanding_or_a_write_is_a_connection_error(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_C2H_UNKNOWN_CCCID, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(c.term_fei, 8); /* CCCID */
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "which is not outstanding"));
	run_bad(BAD_C2H_FOR_WRITE, OPC_WRITE, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "which reads no data"));
}

static void c2hdata_out_of_order_or_with_wrong_datal_is_a_connection_error(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_C2H_OUT_OF_ORDER, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_DATA_OUT_OF_RANGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "at DATAO 512, expected 0"));
	run_bad(BAD_C2H_DATAL, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(c.term_fei, 16); /* DATAL */
}

/* SUCCESS would complete the command: without LAST_PDU (Linux refuses it too), or with
 * bytes of the read still missing, it is a connection error, not a command completed
 * with part of its data. */
static void c2hdata_success_without_last_pdu_or_short_is_a_connection_error(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_C2H_SUCCESS_NOT_LAST, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(c.term_fei, 1); /* FLAGS */
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "flags 0x08"));
	run_bad(BAD_C2H_SUCCESS_SHORT, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(c.term_fei, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "SUCCESS before its last byte"));
}

static void r2t_for_a_read_beyond_the_write_or_of_0_bytes_is_a_connection_error(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_R2T_FOR_READ, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	run_bad(BAD_R2T_BEYOND_WRITE, OPC_WRITE, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_DATA_OUT_OF_RANGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "asks for bytes 2048..6143 of 4096"));
	run_bad(BAD_R2T_ZERO, OPC_WRITE, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(c.term_fei, 16); /* R2TL */
}

static void second_r2t_while_the_first_is_answered_exceeds_maxr2t_0(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_R2T_TWICE, OPC_WRITE, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_R2T_LIMIT_EXCEEDED);
}

static void capsuleresp_for_no_outstanding_command_is_a_connection_error(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_RSP_UNKNOWN_CID, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(c.term_fei, 20); /* the CQE's command id */
}

static void unknown_pdu_type_or_header_digest_mismatch_is_a_connection_error(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_TYPE, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(c.term_fei, 0); /* PDU-Type */
	run_bad(BAD_HDGST, OPC_READ, true, &c, why, sizeof(why));
	CU_ASSERT_EQUAL(c.term_fes, NVME_TCP_FES_HDR_DIGEST);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "header digest mismatch"));
}

static void c2htermreq_or_eof_fails_every_command_with_connection_reset(void)
{
	struct io_case c;
	char why[256];
	run_bad(BAD_TERM, OPC_READ, false, &c, why, sizeof(why));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "C2HTermReq FES 2 (PDU sequence error)"));
	run_bad(BAD_EOF, OPC_WRITE, false, &c, why, sizeof(why));
	CU_ASSERT_STRING_EQUAL(why, "connection closed by the controller");
}

/* ---- many PDUs in one read, one PDU over many reads ---- */

/*
 * The controller's answers to 8 reads (C2HData with the data, then CapsuleResp): those
 * of the first 4 arrive in one piece and one poll completes all 4 (one recv, the PDUs
 * parsed out of the receive buffer); the rest arrive 7 bytes at a time, headers and data
 * split anywhere, a poll after each piece: every command completes once, its data in
 * place.
 */
static void pdus_in_one_read_and_pdus_split_across_reads_complete_each_once(void)
{
	enum { N = 8, LEN = 512, STEP = 7 };
	int peer, cap[2];
	struct th_host *h = attach_pair(&peer, 1, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	static uint8_t buf[N][LEN], want[N][LEN];
	static struct th_result r[N];
	uint16_t cid[N];
	for (int i = 0; i < N; i++) {
		fc_pattern(want[i], LEN, 20 + (unsigned)i);
		CU_ASSERT_EQUAL_FATAL(th_submit(h, OPC_READ, buf[i], LEN, &r[i], &cid[i]), 0);
	}
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&h->q, 0), 0); /* the capsules out, nothing back */
	/* The answers' bytes, made by the fake controller on a capture socketpair. */
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, cap), 0);
	struct fake_ctrl f;
	memset(&f, 0, sizeof(f));
	f.fd = cap[1];
	static uint8_t stream[N * (LEN + 64)];
	size_t at[N + 1], len = 0;
	for (int i = 0; i < N; i++) {
		at[i] = len;
		CU_ASSERT_EQUAL_FATAL(
			fc_send_c2h(&f, cid[i], 0, want[i], LEN, LEN, NVME_TCP_F_DATA_LAST), 0);
		CU_ASSERT_EQUAL_FATAL(fc_send_rsp(&f, cid[i], 0, 0), 0);
		drain_peer(cap[0], stream, sizeof(stream), &len);
	}
	at[N] = len;
	close(cap[0]);
	close(cap[1]);
	CU_ASSERT_EQUAL_FATAL(at[N], N * (LEN + 48u));
	/* The first half in one write: one poll reaps its 4 completions. */
	CU_ASSERT_EQUAL_FATAL(write(peer, stream, at[N / 2]), (ssize_t)at[N / 2]);
	CU_ASSERT_EQUAL(nvmfh_queue_poll(&h->q, 0), N / 2);
	for (int i = 0; i < N / 2; i++) {
		CU_ASSERT_TRUE(r[i].done);
		CU_ASSERT_EQUAL(r[i].status, 0);
		CU_ASSERT_EQUAL(memcmp(buf[i], want[i], LEN), 0);
	}
	/* The rest 7 bytes at a time. */
	int reaped = 0;
	for (size_t off = at[N / 2]; off < at[N]; off += STEP) {
		size_t n = at[N] - off < STEP ? at[N] - off : STEP;
		CU_ASSERT_EQUAL_FATAL(write(peer, stream + off, n), (ssize_t)n);
		int rc = nvmfh_queue_poll(&h->q, 0);
		CU_ASSERT_TRUE_FATAL(rc >= 0);
		reaped += rc;
	}
	CU_ASSERT_EQUAL(reaped, N / 2);
	for (int i = N / 2; i < N; i++) {
		CU_ASSERT_TRUE(r[i].done);
		CU_ASSERT_EQUAL(r[i].status, 0);
		CU_ASSERT_EQUAL(memcmp(buf[i], want[i], LEN), 0);
	}
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&h->q), 0);
	th_close(h);
	close(peer);
	free(h);
}

const struct unit_test tcp_host_rx_tests[] = {
	{ "read_data_lands_at_datao_success_flag_completes_without_capsuleresp",
	  read_data_lands_at_datao_success_flag_completes_without_capsuleresp },
	{ "data_digest_mismatch_fails_the_command_with_data_transfer_error_only",
	  data_digest_mismatch_fails_the_command_with_data_transfer_error_only },
	{ "c2hdata_beyond_the_buffer_is_a_connection_error_not_a_write",
	  c2hdata_beyond_the_buffer_is_a_connection_error_not_a_write },
	{ "c2hdata_for_a_command_not_outstanding_or_a_write_is_a_connection_error",
	  c2hdata_for_a_command_not_outstanding_or_a_write_is_a_connection_error },
	{ "c2hdata_out_of_order_or_with_wrong_datal_is_a_connection_error",
	  c2hdata_out_of_order_or_with_wrong_datal_is_a_connection_error },
	{ "c2hdata_success_without_last_pdu_or_short_is_a_connection_error",
	  c2hdata_success_without_last_pdu_or_short_is_a_connection_error },
	{ "r2t_for_a_read_beyond_the_write_or_of_0_bytes_is_a_connection_error",
	  r2t_for_a_read_beyond_the_write_or_of_0_bytes_is_a_connection_error },
	{ "second_r2t_while_the_first_is_answered_exceeds_maxr2t_0",
	  second_r2t_while_the_first_is_answered_exceeds_maxr2t_0 },
	{ "capsuleresp_for_no_outstanding_command_is_a_connection_error",
	  capsuleresp_for_no_outstanding_command_is_a_connection_error },
	{ "unknown_pdu_type_or_header_digest_mismatch_is_a_connection_error",
	  unknown_pdu_type_or_header_digest_mismatch_is_a_connection_error },
	{ "c2htermreq_or_eof_fails_every_command_with_connection_reset",
	  c2htermreq_or_eof_fails_every_command_with_connection_reset },
	{ "pdus_in_one_read_and_pdus_split_across_reads_complete_each_once",
	  pdus_in_one_read_and_pdus_split_across_reads_complete_each_once },
	{ NULL, NULL },
};
