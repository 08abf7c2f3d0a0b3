/*
 * The request state machine of the RDMA target (rdma/target/request.c) on the fake
 * device: where each command's data comes from and goes to (keyed SGL by RDMA READ and
 * WRITE, in-capsule data from the receive buffer), the SGL errors the binding requires,
 * and how responses go out (SEND or SEND_WITH_INV, one signaled SEND per post retiring
 * the earlier ones).
 */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/fault/fault.h"
#include "tests/unit/rdma/fixture.h"
#include "tests/unit/suites.h"

#define SC_DNR                  0x4000u
#define ST_INVALID_FIELD        (SC_DNR | NVME_SC_INVALID_FIELD)
#define ST_SGL_INVALID_OFFSET   (SC_DNR | NVME_SC_SGL_INVALID_OFFSET)
#define ST_DATA_SGL_LEN_INVALID (SC_DNR | NVME_SC_SGL_INVALID_DATA)

static void fill(void *p, size_t len, uint8_t seed)
{
	uint8_t *b = p;
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed + i * 7 + (i >> 9));
}

/* The send WRs of post @post on @h's QP: their first index and count. */
static unsigned post_wrs(const struct rxq *h, unsigned post, unsigned *first)
{
	unsigned n = 0;
	for (unsigned i = 0; i < h->qp->sq_len; i++)
		if (h->qp->sq[i].post == post && !n++)
			*first = i;
	return n;
}

static void keyed_write_reads_host_data_before_execute(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t *data = rx_host_alloc(&x, 4096);
	fill(data, 4096, 1);
	uint32_t key;
	unsigned reads = fv_count(io->qp, IBV_WR_RDMA_READ);
	uint16_t cid = rxq_write(io, 8, data, 4096, NVME_SGL_KEYED_INV, &key);

	/* One pass: the READ of the host's buffer is posted, nothing written yet. */
	rx_poll(&x);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_READ), reads + 1);
	const struct fv_send *rd = &io->qp->sq[io->qp->sq_len - 1];
	CU_ASSERT_EQUAL(rd->opcode, IBV_WR_RDMA_READ);
	CU_ASSERT_EQUAL(rd->remote_addr, (uintptr_t)data);
	CU_ASSERT_EQUAL(rd->rkey, key);
	CU_ASSERT_EQUAL(rd->sge.length, 4096);
	CU_ASSERT_EQUAL(rd->sge.lkey, x.dev.pool.mr->lkey);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_TRANSFER_H2C), 1);
	static const uint8_t zero[4096];
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 8 * 512, zero, 4096), 0);
	CU_ASSERT_EQUAL(fv_inflight(io->qp, IBV_WR_SEND), 0);

	/* The host answers the READ; the next pass executes and responds. */
	CU_ASSERT_EQUAL(fv_host_run(io->qp, 1), 1);
	rx_poll(&x);
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 8 * 512, data, 4096), 0);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	rx_teardown(&x);
}

static void keyed_read_chains_rdma_write_before_its_send_in_one_post(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	fill(rx_ns_data(&x) + 16 * 512, 4096, 9);
	uint8_t *buf = rx_host_alloc(&x, 4096);
	uint32_t key;
	unsigned reads = fv_count(io->qp, IBV_WR_RDMA_READ), first = 0;
	uint16_t cid = rxq_read(io, 16, buf, 4096, NVME_SGL_KEYED_ADDR, &key);

	rx_poll(&x);
	CU_ASSERT_EQUAL(post_wrs(io, x.fd->posts, &first), 2);
	const struct fv_send *w = &io->qp->sq[first], *s = w + 1;
	CU_ASSERT_EQUAL(w->opcode, IBV_WR_RDMA_WRITE);
	CU_ASSERT_EQUAL(w->remote_addr, (uintptr_t)buf);
	CU_ASSERT_EQUAL(w->rkey, key);
	CU_ASSERT_EQUAL(w->sge.length, 4096);
	CU_ASSERT_EQUAL(s->opcode, IBV_WR_SEND);
	CU_ASSERT(s->flags & IBV_SEND_SIGNALED);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_READ), reads); /* nothing to fetch */

	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	CU_ASSERT_EQUAL(memcmp(buf, rx_ns_data(&x) + 16 * 512, 4096), 0);
	rx_teardown(&x);
}

static void keyed_writes_read_back_the_same_data_at_every_buffer_size(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	static const uint32_t sizes[] = { 512, 4096, 8192, 128u << 10, 256u << 10 };
	uint64_t slba = 0;
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i];
		uint8_t *out = rx_host_alloc(&x, len), *in = rx_host_alloc(&x, len);
		fill(out, len, (uint8_t)(i + 3));
		uint16_t w = rxq_write(io, slba, out, len, NVME_SGL_KEYED_INV, NULL);
		rx_run(&x);
		uint16_t r = rxq_read(io, slba, in, len, NVME_SGL_KEYED_INV, NULL);
		rx_run(&x);
		CU_ASSERT_EQUAL(rxq_status(io, w), 0);
		CU_ASSERT_EQUAL(rxq_status(io, r), 0);
		CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
		CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + slba * 512, out, len), 0);
		slba += len / 512;
	}
	rx_teardown(&x);
}

/* A Write of 4 KiB at LBA 8 whose data is in the capsule at @offset. */
static uint16_t incapsule_write(struct rxq *io, uint32_t offset, uint32_t sgl_len,
				const uint8_t *data, size_t sent)
{
	struct nvme_sqe c;
	rx_cmd_rw(&c, nvme_cmd_write, 8, 4096);
	rx_sgl_incapsule(&c, offset, sgl_len);
	return rxq_send(io, &c, data, sent);
}

static void incapsule_write_at_offset_0_takes_the_receive_buffer_without_a_read(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t data[4096];
	fill(data, sizeof(data), 5);
	unsigned reads = fv_count(io->qp, IBV_WR_RDMA_READ);
	uint16_t cid = incapsule_write(io, 0, 4096, data, sizeof(data));
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_READ), reads);
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 8 * 512, data, sizeof(data)), 0);
	rx_teardown(&x);
}

static void incapsule_write_at_a_nonzero_offset_takes_the_data_at_that_offset(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t data[512 + 4096];
	memset(data, 0xee, 512);
	fill(data + 512, 4096, 6);
	unsigned reads = fv_count(io->qp, IBV_WR_RDMA_READ);
	uint16_t cid = incapsule_write(io, 512, 4096, data, sizeof(data));
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_READ), reads);
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 8 * 512, data + 512, 4096), 0);
	rx_teardown(&x);
}

static void incapsule_data_beyond_the_received_bytes_is_sgl_offset_invalid(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t data[4096];
	fill(data, sizeof(data), 7);
	uint16_t short_data = incapsule_write(io, 0, 4096, data, 2048);
	uint16_t past_end = incapsule_write(io, 1024, 4096, data, 4096);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, short_data), ST_SGL_INVALID_OFFSET);
	CU_ASSERT_EQUAL(rxq_status(io, past_end), ST_SGL_INVALID_OFFSET);
	static const uint8_t zero[4096];
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 8 * 512, zero, sizeof(zero)), 0);
	rx_teardown(&x);
}

static void incapsule_data_on_a_read_is_invalid_field(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t data[4096] = { 0 };
	struct nvme_sqe c;
	rx_cmd_rw(&c, nvme_cmd_read, 8, 4096);
	rx_sgl_incapsule(&c, 0, 4096);
	unsigned writes = fv_count(io->qp, IBV_WR_RDMA_WRITE);
	uint16_t cid = rxq_send(io, &c, data, sizeof(data));
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), ST_INVALID_FIELD);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_WRITE), writes);
	rx_teardown(&x);
}

static void keyed_sgl_of_another_length_moves_no_data_and_is_data_sgl_length_invalid(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t *buf = rx_host_alloc(&x, 8192);
	fill(buf, 8192, 8);
	struct nvme_sqe c;
	rx_cmd_rw(&c, nvme_cmd_write, 8, 4096);
	rx_sgl_keyed(&c, NVME_SGL_KEYED_ADDR, buf, 8192, rx_key(&x, buf, 8192));
	unsigned reads = fv_count(io->qp, IBV_WR_RDMA_READ),
		 writes = fv_count(io->qp, IBV_WR_RDMA_WRITE);
	uint16_t w = rxq_send(io, &c, NULL, 0);
	rx_cmd_rw(&c, nvme_cmd_read, 8, 4096);
	rx_sgl_keyed(&c, NVME_SGL_KEYED_ADDR, buf, 2048, rx_key(&x, buf, 2048));
	uint16_t r = rxq_send(io, &c, NULL, 0);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, w), ST_DATA_SGL_LEN_INVALID);
	CU_ASSERT_EQUAL(rxq_status(io, r), ST_DATA_SGL_LEN_INVALID);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_READ), reads);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_WRITE), writes);
	rx_teardown(&x);
}

static void command_refused_at_decode_moves_no_data(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t *buf = rx_host_alloc(&x, 4096);
	struct nvme_sqe c;
	rx_cmd_rw(&c, nvme_cmd_write, RX_NS_BYTES / 512 - 4, 4096); /* past the namespace end */
	rx_sgl_keyed(&c, NVME_SGL_KEYED_INV, buf, 4096, rx_key(&x, buf, 4096));
	unsigned reads = fv_count(io->qp, IBV_WR_RDMA_READ);
	uint16_t cid = rxq_send(io, &c, NULL, 0);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid) & 0xff, NVME_SC_LBA_RANGE);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_READ), reads);
	rx_teardown(&x);
}

static void invalidate_sgl_is_answered_with_send_with_invalidate_of_its_rkey(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t *buf = rx_host_alloc(&x, 4096);
	fill(buf, 4096, 10);
	uint32_t wkey, rkey;
	uint16_t w = rxq_write(io, 0, buf, 4096, NVME_SGL_KEYED_INV, &wkey);
	rx_run(&x);
	uint8_t *back = rx_host_alloc(&x, 4096);
	uint16_t r = rxq_read(io, 0, back, 4096, NVME_SGL_KEYED_INV, &rkey);
	rx_run(&x);
	const struct fv_resp *wr = rxq_resp(io, w), *rr = rxq_resp(io, r);
	CU_ASSERT_FATAL(wr && rr);
	CU_ASSERT(wr->with_inv);
	CU_ASSERT_EQUAL(wr->inv_rkey, wkey);
	CU_ASSERT(rr->with_inv);
	CU_ASSERT_EQUAL(rr->inv_rkey, rkey);
	CU_ASSERT_FALSE(fv_host_key_valid(x.fd, wkey));
	CU_ASSERT_FALSE(fv_host_key_valid(x.fd, rkey));
	/* The data went out before the key was invalidated (same QP, in order). */
	CU_ASSERT_EQUAL(memcmp(back, buf, 4096), 0);
	rx_teardown(&x);
}

static void address_sgl_is_answered_with_a_plain_send(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t *buf = rx_host_alloc(&x, 4096);
	uint32_t key;
	unsigned inv = fv_count(io->qp, IBV_WR_SEND_WITH_INV); /* the Connect's */
	uint16_t w = rxq_write(io, 0, buf, 4096, NVME_SGL_KEYED_ADDR, &key);
	rx_run(&x);
	const struct fv_resp *resp = rxq_resp(io, w);
	CU_ASSERT_FATAL(resp != NULL);
	CU_ASSERT_FALSE(resp->with_inv);
	CU_ASSERT(fv_host_key_valid(x.fd, key));
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_SEND_WITH_INV), inv);
	rx_teardown(&x);
}

static void invalidate_sgl_on_a_device_without_remote_invalidation_gets_a_plain_send(void)
{
	struct rx x;
	struct rx_opts o = { .no_send_with_inv = true };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	uint8_t *buf = rx_host_alloc(&x, 4096);
	uint32_t key;
	uint16_t w = rxq_write(io, 0, buf, 4096, NVME_SGL_KEYED_INV, &key);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, w), 0);
	CU_ASSERT_FALSE(rxq_resp(io, w)->with_inv);
	CU_ASSERT(fv_host_key_valid(x.fd, key)); /* the host invalidates it itself */
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_SEND_WITH_INV), 0);
	rx_teardown(&x);
}

static void responses_of_one_pass_go_in_one_post_with_only_the_last_send_signaled(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint16_t cid[3];
	for (int i = 0; i < 3; i++)
		cid[i] = rxq_read(io, (uint64_t)i * 8, rx_host_alloc(&x, 4096), 4096,
				  NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	unsigned first = 0;
	CU_ASSERT_EQUAL_FATAL(post_wrs(io, x.fd->posts, &first), 6);
	for (unsigned i = 0; i < 6; i++) {
		const struct fv_send *s = &io->qp->sq[first + i];
		CU_ASSERT_EQUAL(s->opcode, i % 2 ? IBV_WR_SEND : IBV_WR_RDMA_WRITE);
		CU_ASSERT_EQUAL(!!(s->flags & IBV_SEND_SIGNALED), i == 5);
	}
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_COMPLETING), 3);
	/* One completion, of the last SEND, retires all three. */
	CU_ASSERT_EQUAL(fv_host_run(io->qp, 100), 6);
	struct ibv_cq *cq = io->qp->qp.send_cq;
	struct fv_cq *fcq = container_of(cq, struct fv_cq, cq);
	CU_ASSERT_EQUAL(fcq->len - fcq->head, 1);
	rx_poll(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_COMPLETING), 0);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_FREE), io->q->nreq);
	CU_ASSERT_EQUAL(io->q->sends_inflight, 0);
	rxq_read_responses(io);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(rxq_status(io, cid[i]), 0);
	rx_teardown(&x);
}

static void send_completion_retires_only_the_sends_posted_before_it(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	rxq_read(io, 0, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_ADDR, NULL);
	rxq_read(io, 8, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x); /* post A: WRITE SEND WRITE SEND* */
	rxq_read(io, 16, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x); /* post B: WRITE SEND* */
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_COMPLETING), 3);
	CU_ASSERT_EQUAL(fv_host_run(io->qp, 4), 4); /* only post A reaches the host */
	rx_poll(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_COMPLETING), 1);
	CU_ASSERT_EQUAL(io->q->sends_inflight, 1);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_COMPLETING), 0);
	CU_ASSERT_EQUAL(io->nresp - 1, 3); /* and the Connect's */
	rx_teardown(&x);
}

static void request_contexts_retired_by_a_later_send_are_reused(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 4, 4, 4); /* 8 request contexts */
	uint8_t *buf = rx_host_alloc(&x, 4096);
	for (int round = 0; round < 10; round++) {
		uint16_t cid[4];
		for (int i = 0; i < 4; i++)
			cid[i] =
				rxq_write(io, (uint64_t)i * 8, buf, 4096, NVME_SGL_KEYED_INV, NULL);
		rx_run(&x);
		for (int i = 0; i < 4; i++)
			CU_ASSERT_EQUAL(rxq_status(io, cid[i]), 0);
		CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_FREE), io->q->nreq);
	}
	rx_teardown(&x);
}

static void response_is_sent_inline_when_the_qp_allows_and_from_registered_memory_otherwise(void)
{
	for (int no_inline = 0; no_inline < 2; no_inline++) {
		struct rx x;
		struct rx_opts o = { .no_inline = no_inline };
		struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
		CU_ASSERT_EQUAL(io->q->inline_send, !no_inline);
		uint16_t cid =
			rxq_write(io, 0, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_ADDR, NULL);
		rx_run(&x);
		CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
		const struct fv_send *s = &io->qp->sq[io->qp->sq_len - 1];
		CU_ASSERT_EQUAL(s->opcode, IBV_WR_SEND);
		CU_ASSERT_EQUAL(!!(s->flags & IBV_SEND_INLINE), !no_inline);
		if (no_inline)
			CU_ASSERT_EQUAL(s->sge.lkey, io->q->mr->lkey);
		rx_teardown(&x);
	}
}

static void io_queue_connect_data_may_travel_in_the_capsule(void)
{
	struct rx x;
	CU_ASSERT_EQUAL_FATAL(rx_setup(&x, NULL), 0);
	rx_admin(&x);
	struct rxq *io = rxq_create(&x, 1, 32, 32, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io);
	uint16_t cid = rxq_connect(io, x.cntlid, true);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	CU_ASSERT_EQUAL(fv_count(io->qp, IBV_WR_RDMA_READ), 0);
	uint16_t w = rxq_write(io, 0, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_INV, NULL);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, w), 0);
	rx_teardown(&x);
}

/*
 * What a request of the RDMA target waits for (rdma/target/request.c): a data buffer from
 * the registered pool, an RDMA READ slot (the negotiated ORD), a send slot (the host's
 * HRQSIZE receives). Each limit holds, everybody waits in FIFO order, and everything
 * completes once the resource comes back.
 */

#define NCMD_MAX 32

/* The smallest pool the configuration gives: a few buffers. */
static const struct rx_opts small_pool = { .buffers_small = 1, .buffers_large = 1 };

/* The remote addresses of @h's RDMA READs (or WRITEs) from WR @from on, in posting order. */
static unsigned transfers(const struct rxq *h, enum ibv_wr_opcode op, unsigned from, uint64_t *addr,
			  unsigned max)
{
	unsigned n = 0;
	for (unsigned i = from; i < h->qp->sq_len && n < max; i++)
		if (h->qp->sq[i].opcode == op)
			addr[n++] = h->qp->sq[i].remote_addr;
	return n;
}

/* @h's responses from response @from on are those of @cid[0..@n), in that order, each
 * a success. */
static void assert_answered_in_order(const struct rxq *h, unsigned from, const uint16_t *cid,
				     unsigned n)
{
	CU_ASSERT_EQUAL_FATAL(h->nresp - from, n);
	for (unsigned i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(h->resp[from + i].cqe.command_id, cid[i]);
		CU_ASSERT_EQUAL(le16toh(h->resp[from + i].cqe.status) >> 1, 0);
	}
}

static void commands_beyond_the_buffer_pool_wait_in_fifo_order_and_all_complete(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, &small_pool, 32, 32, 16);
	unsigned nbuf = rx_pool_free(&x), n = nbuf + 3;
	CU_ASSERT_FATAL(nbuf < 16 && n <= NCMD_MAX);
	uint8_t *data[NCMD_MAX];
	uint16_t cid[NCMD_MAX];
	unsigned wr0 = io->qp->sq_len;
	for (unsigned i = 0; i < n; i++) {
		data[i] = rx_host_alloc(&x, 4096);
		memset(data[i], (int)(0x30 + i), 4096);
		cid[i] = rxq_write(io, (uint64_t)i * 8, data[i], 4096, NVME_SGL_KEYED_INV, NULL);
	}
	rx_poll(&x);
	CU_ASSERT_EQUAL(rx_pool_free(&x), 0);
	CU_ASSERT_EQUAL(fv_inflight(io->qp, IBV_WR_RDMA_READ), nbuf);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_BUFFER), 3);
	rx_run(&x);
	for (unsigned i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(rxq_status(io, cid[i]), 0);
		CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + i * 8 * 512, data[i], 4096), 0);
	}
	/* The waiting commands fetched their data in the order they arrived. */
	uint64_t addr[NCMD_MAX];
	CU_ASSERT_EQUAL_FATAL(transfers(io, IBV_WR_RDMA_READ, wr0, addr, NCMD_MAX), n);
	for (unsigned i = 0; i < n; i++)
		CU_ASSERT_EQUAL(addr[i], (uintptr_t)data[i]);
	CU_ASSERT_EQUAL(rx_pool_free(&x), nbuf);
	rx_teardown(&x);
}

/* A request that gets its buffer from a SEND completion (the pool was empty) must not take
 * a send slot ahead of responses already waiting for one. */
static void buffer_waiter_served_by_a_send_completion_does_not_overtake_waiting_responses(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, &small_pool, 32, 2, 16);
	unsigned nbuf = rx_pool_free(&x), n = nbuf + 2, r0 = io->nresp;
	CU_ASSERT_FATAL(nbuf > 2 && n <= NCMD_MAX);
	uint16_t cid[NCMD_MAX];
	for (unsigned i = 0; i < n; i++)
		cid[i] = rxq_read(io, (uint64_t)i * 8, rx_host_alloc(&x, 4096), 4096,
				  NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_COMPLETING), 2);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_READY_TO_COMPLETE), nbuf - 2);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_BUFFER), 2);
	rx_run(&x);
	assert_answered_in_order(io, r0, cid, n);
	CU_ASSERT(io->qp->sends_max <= 2);
	rx_teardown(&x);
}

static void rdma_reads_never_exceed_ord_and_waiting_reads_go_in_order(void)
{
	for (uint32_t ord = 1; ord <= 2; ord++) {
		struct rx x;
		struct rxq *io = rx_setup_io(&x, NULL, 32, 32, ord);
		enum { N = 6 };
		uint8_t *data[N];
		uint16_t cid[N];
		unsigned wr0 = io->qp->sq_len;
		io->qp->reads_max = 0; /* the Connect's READ is not part of this */
		for (unsigned i = 0; i < N; i++) {
			data[i] = rx_host_alloc(&x, 4096);
			memset(data[i], (int)(0x60 + i), 4096);
			cid[i] = rxq_write(io, (uint64_t)i * 8, data[i], 4096, NVME_SGL_KEYED_INV,
					   NULL);
		}
		rx_poll(&x);
		CU_ASSERT_EQUAL(fv_inflight(io->qp, IBV_WR_RDMA_READ), ord);
		CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_READ), N - ord);
		rx_run(&x);
		CU_ASSERT(io->qp->reads_max <= ord);
		uint64_t addr[N];
		CU_ASSERT_EQUAL_FATAL(transfers(io, IBV_WR_RDMA_READ, wr0, addr, N), N);
		for (unsigned i = 0; i < N; i++) {
			CU_ASSERT_EQUAL(addr[i], (uintptr_t)data[i]);
			CU_ASSERT_EQUAL(rxq_status(io, cid[i]), 0);
			CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + i * 8 * 512, data[i], 4096), 0);
		}
		rx_teardown(&x);
	}
}

static void responses_never_exceed_hrqsize_and_the_rest_wait_for_send_completions(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 4, 16);
	enum { N = 10 };
	uint16_t cid[N];
	unsigned r0 = io->nresp;
	io->qp->sends_max = 0;
	for (unsigned i = 0; i < N; i++)
		cid[i] = rxq_flush(io); /* no data, answered at once by the RAM backend */
	rx_poll(&x);
	CU_ASSERT_EQUAL(fv_inflight(io->qp, IBV_WR_SEND), 4);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_READY_TO_COMPLETE), N - 4);
	rx_poll(&x); /* no SEND completion: nothing more */
	CU_ASSERT_EQUAL(fv_inflight(io->qp, IBV_WR_SEND), 4);
	CU_ASSERT_EQUAL(rx_host(&x), 4 + 4); /* 4 SENDs run, 4 responses read */
	rx_poll(&x);                         /* their completion frees 4 slots */
	CU_ASSERT_EQUAL(fv_inflight(io->qp, IBV_WR_SEND), 4);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_READY_TO_COMPLETE), N - 8);
	rx_run(&x);
	assert_answered_in_order(io, r0, cid, N);
	CU_ASSERT(io->qp->sends_max <= 4);
	CU_ASSERT_EQUAL(io->qp->rnr, 0);
	rx_teardown(&x);
}

/* Target and host in turn until each of @cid[0..@n) has its answer (a refused retry is
 * no work, so one rx_run may settle early). */
static void run_until_answered(struct rx *x, const struct rxq *h, const uint16_t *cid, unsigned n)
{
	for (unsigned round = 0; round < 1000; round++) {
		unsigned waiting = 0;
		for (unsigned i = 0; i < n; i++)
			waiting += rxq_status(h, cid[i]) == RX_NO_RESPONSE;
		if (!waiting)
			return;
		rx_run(x);
	}
	CU_FAIL("commands left without an answer");
}

/*
 * The smallest pools the configuration allows (nvmf_target.buffers_small 16,
 * buffers_large 1: 16 x 4 KiB, 1 x 128 KiB and 4 x the MDTS size), 128 keyed writes of
 * 4, 16 and 64 KiB at once, then 128 reads of them, on a RAM namespace that refuses
 * every third submit as a full ring would (tests/fault): every command waits its turn,
 * none fails, the data reads back, and every buffer returns to the pool.
 */
static void commands_far_beyond_the_smallest_pools_all_complete_with_a_busy_backend(void)
{
	static const struct rx_opts smallest = { .buffers_small = 16, .buffers_large = 1 };
	enum { N = 128 };
	struct rx x;
	struct rxq *io = rx_setup_io(&x, &smallest, N, N, 16);
	CU_ASSERT_EQUAL(rx_pool_size(&x), 16 + 1 + 4);
	nvmf_fault_reset();
	CU_ASSERT_EQUAL_FATAL(nvmf_fault_attach(x.tgt.subsys[0]->ns[1]->bdev, 1), 0);
	struct nvmf_fault_rule busy = nvmf_fault_rule(1, NVMF_FAULT_ANY_OP, NVMF_FAULT_BUSY);
	busy.every = 3;
	int id = nvmf_fault_add(&busy);

	uint8_t *out[N], *in[N];
	uint32_t len[N];
	uint64_t slba[N], at = 0;
	uint16_t cid[N];
	for (unsigned i = 0; i < N; i++) {
		len[i] = i % 32 == 31 ? 64u << 10 : i % 10 == 9 ? 16u << 10 : 4096;
		slba[i] = at / 512;
		at += len[i];
		out[i] = rx_host_alloc(&x, len[i]);
		in[i] = rx_host_alloc(&x, len[i]);
		for (uint32_t b = 0; b < len[i]; b++)
			out[i][b] = (uint8_t)(i * 37 + b * 11 + (b >> 9));
	}
	CU_ASSERT_FATAL(at <= RX_NS_BYTES);
	for (unsigned i = 0; i < N; i++)
		cid[i] = rxq_write(io, slba[i], out[i], len[i], NVME_SGL_KEYED_INV, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(rx_pool_free(&x), 0);
	CU_ASSERT(rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_BUFFER) > 64);
	run_until_answered(&x, io, cid, N);
	for (unsigned i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(rxq_status(io, cid[i]), 0);
		CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + slba[i] * 512, out[i], len[i]), 0);
	}
	for (unsigned i = 0; i < N; i++)
		cid[i] = rxq_read(io, slba[i], in[i], len[i], NVME_SGL_KEYED_ADDR, NULL);
	run_until_answered(&x, io, cid, N);
	for (unsigned i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(rxq_status(io, cid[i]), 0);
		CU_ASSERT_EQUAL(memcmp(in[i], out[i], len[i]), 0);
	}
	CU_ASSERT(nvmf_fault_fired(id) >= 2 * N / 3);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_NEED_BUFFER), 0);
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	nvmf_fault_reset();
	nvmf_fault_detach(x.tgt.subsys[0]->ns[1]->bdev); /* rx_teardown sets the ops */
	rx_teardown(&x);
}

const struct unit_test rdma_request_tests[] = {
	{ "keyed_write_reads_host_data_before_execute",
	  keyed_write_reads_host_data_before_execute },
	{ "keyed_read_chains_rdma_write_before_its_send_in_one_post",
	  keyed_read_chains_rdma_write_before_its_send_in_one_post },
	{ "keyed_writes_read_back_the_same_data_at_every_buffer_size",
	  keyed_writes_read_back_the_same_data_at_every_buffer_size },
	{ "incapsule_write_at_offset_0_takes_the_receive_buffer_without_a_read",
	  incapsule_write_at_offset_0_takes_the_receive_buffer_without_a_read },
	{ "incapsule_write_at_a_nonzero_offset_takes_the_data_at_that_offset",
	  incapsule_write_at_a_nonzero_offset_takes_the_data_at_that_offset },
	{ "incapsule_data_beyond_the_received_bytes_is_sgl_offset_invalid",
	  incapsule_data_beyond_the_received_bytes_is_sgl_offset_invalid },
	{ "incapsule_data_on_a_read_is_invalid_field", incapsule_data_on_a_read_is_invalid_field },
	{ "keyed_sgl_of_another_length_moves_no_data_and_is_data_sgl_length_invalid",
	  keyed_sgl_of_another_length_moves_no_data_and_is_data_sgl_length_invalid },
	{ "command_refused_at_decode_moves_no_data", command_refused_at_decode_moves_no_data },
	{ "invalidate_sgl_is_answered_with_send_with_invalidate_of_its_rkey",
	  invalidate_sgl_is_answered_with_send_with_invalidate_of_its_rkey },
	{ "address_sgl_is_answered_with_a_plain_send", address_sgl_is_answered_with_a_plain_send },
	{ "invalidate_sgl_on_a_device_without_remote_invalidation_gets_a_plain_send",
	  invalidate_sgl_on_a_device_without_remote_invalidation_gets_a_plain_send },
	{ "responses_of_one_pass_go_in_one_post_with_only_the_last_send_signaled",
	  responses_of_one_pass_go_in_one_post_with_only_the_last_send_signaled },
	{ "send_completion_retires_only_the_sends_posted_before_it",
	  send_completion_retires_only_the_sends_posted_before_it },
	{ "request_contexts_retired_by_a_later_send_are_reused",
	  request_contexts_retired_by_a_later_send_are_reused },
	{ "response_is_sent_inline_when_the_qp_allows_and_from_registered_memory_otherwise",
	  response_is_sent_inline_when_the_qp_allows_and_from_registered_memory_otherwise },
	{ "io_queue_connect_data_may_travel_in_the_capsule",
	  io_queue_connect_data_may_travel_in_the_capsule },
	{ "commands_beyond_the_buffer_pool_wait_in_fifo_order_and_all_complete",
	  commands_beyond_the_buffer_pool_wait_in_fifo_order_and_all_complete },
	{ "buffer_waiter_served_by_a_send_completion_does_not_overtake_waiting_responses",
	  buffer_waiter_served_by_a_send_completion_does_not_overtake_waiting_responses },
	{ "rdma_reads_never_exceed_ord_and_waiting_reads_go_in_order",
	  rdma_reads_never_exceed_ord_and_waiting_reads_go_in_order },
	{ "responses_never_exceed_hrqsize_and_the_rest_wait_for_send_completions",
	  responses_never_exceed_hrqsize_and_the_rest_wait_for_send_completions },
	{ "commands_far_beyond_the_smallest_pools_all_complete_with_a_busy_backend",
	  commands_far_beyond_the_smallest_pools_all_complete_with_a_busy_backend },
	{ NULL, NULL },
};
