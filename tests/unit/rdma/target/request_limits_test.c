/*
 * What a request of the RDMA target waits for (rdma/target/request.c): a data buffer from
 * the registered pool, an RDMA READ slot (the negotiated ORD), a send slot (the host's
 * HRQSIZE receives). Each limit holds, everybody waits in FIFO order, and everything
 * completes once the resource comes back.
 */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/fault/fault.h"
#include "tests/unit/rdma/fixture.h"
#include "tests/unit/suites.h"

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
static void assert_answered_in_order(const struct rxq *h, unsigned from, const uint16_t *cid, unsigned n)
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
		cid[i] = rxq_read(io, (uint64_t)i * 8, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_ADDR, NULL);
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
		io->qp->reads_max = 0;   /* the Connect's READ is not part of this */
		for (unsigned i = 0; i < N; i++) {
			data[i] = rx_host_alloc(&x, 4096);
			memset(data[i], (int)(0x60 + i), 4096);
			cid[i] = rxq_write(io, (uint64_t)i * 8, data[i], 4096, NVME_SGL_KEYED_INV, NULL);
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
		cid[i] = rxq_flush(io);   /* no data, answered at once by the RAM backend */
	rx_poll(&x);
	CU_ASSERT_EQUAL(fv_inflight(io->qp, IBV_WR_SEND), 4);
	CU_ASSERT_EQUAL(rxq_reqs_in(io, NVMF_RDMA_REQ_READY_TO_COMPLETE), N - 4);
	rx_poll(&x);                                   /* no SEND completion: nothing more */
	CU_ASSERT_EQUAL(fv_inflight(io->qp, IBV_WR_SEND), 4);
	CU_ASSERT_EQUAL(rx_host(&x), 4 + 4);           /* 4 SENDs run, 4 responses read */
	rx_poll(&x);                                   /* their completion frees 4 slots */
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
	nvmf_fault_detach(x.tgt.subsys[0]->ns[1]->bdev);    /* rx_teardown sets the ops */
	rx_teardown(&x);
}

const struct unit_test rdma_request_limits_tests[] = {
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
