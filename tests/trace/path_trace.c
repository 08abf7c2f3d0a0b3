/*
 * make path-trace: the functions of the target one 4 KiB command passes through, on each
 * transport, RAM namespace:
 *   rdma-keyed     RDMA write, keyed SGL (the data fetched with an RDMA READ)
 *   rdma-incapsule RDMA write, data in the capsule (SGL 0x01)
 *   rdma-read      RDMA read, keyed SGL (the data sent with an RDMA WRITE)
 *     on the unit tests' fake device (tests/unit/rdma/): from the poll pass that reaps
 *     the capsule's RECV completion to the post of its response SEND;
 *   tcp-incapsule  NVMe/TCP write, data in the CapsuleCmd PDU
 *   tcp-r2t        NVMe/TCP write through R2T and one H2CData PDU
 *   tcp-read       NVMe/TCP read (C2HData, then CapsuleResp unless SUCCESS was set)
 *     over loopback sockets (tests/unit/tcp/fixture.c): from the pass that reads the
 *     command PDU to the one that sends the answer (the R2T write: also the pass that
 *     sends the R2T and the one that reads the H2CData PDU; the host's own work between
 *     passes is not traced).
 * Built with -finstrument-functions (TRACE=1): every function entry while tracing is on is
 * recorded with its call site, and scripts/path-trace turns the addresses into the list of
 * distinct functions, their files and the calls that cross from one layer to another.
 * Each traced command follows an identical untraced one, so that nothing first-time (pool
 * caches, CQ set-up) shows up in its path; a pass that found no work is left out.
 *
 * Output, one line per recorded entry: "<path> <function address> <call site>" (hex).
 */
#include <CUnit/Basic.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "rdma/target/internal.h"
#include "tests/unit/rdma/fixture.h"
#include "tests/unit/tcp/fixture.h"

#define MAX_EVENTS 65536

/* The recorder's state: the one object of this tool. */
static struct trace {
	bool on;
	unsigned n;
	struct {
		void *fn, *site;
	} ev[MAX_EVENTS];
} tr;

void __cyg_profile_func_enter(void *fn, void *site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *fn, void *site) __attribute__((no_instrument_function));

void __cyg_profile_func_enter(void *fn, void *site)
{
	if (tr.on && tr.n < MAX_EVENTS) {
		tr.ev[tr.n].fn = fn;
		tr.ev[tr.n].site = site;
		tr.n++;
	}
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

/* Print what was recorded under @name, and start afresh. A full buffer fails: the
 * path would be cut. */
static void trace_emit(const char *name)
{
	CU_ASSERT(tr.n > 0 && tr.n < MAX_EVENTS);
	for (unsigned i = 0; i < tr.n; i++)
		printf("%s %p %p\n", name, tr.ev[i].fn, tr.ev[i].site);
	tr.n = 0;
}

/* RDMA: passes of the target (traced) and of the host (not) until @cid's response is read.
 * The group's look at the CM and asynchronous events, once a millisecond of real time,
 * is put off meanwhile: periodic work, not the command's, which would otherwise land in
 * a traced pass now and then. */
static void trace_until_answered(struct rx *x, struct rxq *io, uint16_t cid, const char *name)
{
	uint64_t cm_next_us = x->pg->cm_next_us;
	x->pg->cm_next_us = UINT64_MAX;
	tr.n = 0;
	for (int i = 0; i < 100 && rxq_status(io, cid) == RX_NO_RESPONSE; i++) {
		unsigned before = tr.n;
		tr.on = true;
		int work = rx_poll(x);
		tr.on = false;
		if (!work) /* an idle pass is no part of the path */
			tr.n = before;
		rx_host(x);
	}
	x->pg->cm_next_us = cm_next_us;
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	trace_emit(name);
}

static void trace_rdma(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io);
	uint8_t *data = rx_host_alloc(&x, 4096), *in = rx_host_alloc(&x, 4096);
	memset(data, 0x5a, 4096);

	for (int traced = 0; traced < 2; traced++) {
		uint16_t cid = rxq_write(io, 8, data, 4096, NVME_SGL_KEYED_INV, NULL);
		if (traced)
			trace_until_answered(&x, io, cid, "rdma-keyed");
		rx_run(&x); /* its SEND completion: not part of the next command's path */
		CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	}
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 8 * 512, data, 4096), 0);

	for (int traced = 0; traced < 2; traced++) {
		struct nvme_sqe c;
		rx_cmd_rw(&c, nvme_cmd_write, 16, 4096);
		rx_sgl_incapsule(&c, 0, 4096);
		uint16_t cid = rxq_send(io, &c, data, 4096);
		if (traced)
			trace_until_answered(&x, io, cid, "rdma-incapsule");
		rx_run(&x);
		CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	}
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 16 * 512, data, 4096), 0);

	for (int traced = 0; traced < 2; traced++) {
		memset(in, 0, 4096);
		uint16_t cid = rxq_read(io, 8, in, 4096, NVME_SGL_KEYED_ADDR, NULL);
		if (traced)
			trace_until_answered(&x, io, cid, "rdma-read");
		rx_run(&x);
		CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
		CU_ASSERT_EQUAL(memcmp(in, data, 4096), 0);
	}
	rx_teardown(&x);
}

/* Bytes waiting on the host's socket. */
static int readable(const struct ttc *q)
{
	int n = 0;
	return ioctl(q->fd, FIONREAD, &n) ? -1 : n;
}

/* TCP: passes of the target (traced if @traced) until at least @want bytes wait on the
 * host's socket (the PDUs the target sends on loopback are there when its send returns). */
static void tcp_passes(struct tt *t, struct ttc *q, int want, bool traced)
{
	struct nvmf_pg *pg = nvmf_tgt_main_pg(&t->tgt); /* not part of the target's path */
	for (int i = 0; i < 100 && readable(q) < want; i++) {
		unsigned before = tr.n;
		tr.on = traced;
		int work = nvmf_pg_poll(pg);
		tr.on = false;
		if (!work) /* an idle pass (say, before the socket showed the PDU) */
			tr.n = before;
	}
	CU_ASSERT(readable(q) >= want);
}

/* A read's answer: C2HData (its header and 4 KiB), then a CapsuleResp unless the
 * C2HData carried SUCCESS. */
static void tcp_read_passes(struct tt *t, struct ttc *q, bool traced)
{
	const int c2h = (int)sizeof(struct nvme_tcp_data) + 4096;
	tcp_passes(t, q, c2h, traced);
	struct nvme_tcp_data h;
	if (recv(q->fd, &h, sizeof(h), MSG_PEEK) == (ssize_t)sizeof(h) &&
	    !(h.ch.flags & NVME_TCP_F_DATA_SUCCESS))
		tcp_passes(t, q, c2h + (int)sizeof(struct nvme_tcp_rsp), traced);
}

/* The TCP target's clock while tracing: stopped, so that no timer (the keep-alive tick,
 * every 100 ms of real time) runs in a traced pass and shows up in a command's path. The
 * RDMA fixture has a test clock of its own. */
static uint64_t stopped_clock(const struct nvmf_clock *clock)
{
	(void)clock;
	return 1;
}

static void trace_tcp(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid = 0;
	uint8_t data[4096], in[4096];
	struct nvme_sqe sqe;
	memset(data, 0xa5, sizeof(data));
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	t.tgt.clock.now_ms = stopped_clock;
	CU_ASSERT_EQUAL_FATAL(tt_two_queues(&t, &a, &q, &cntlid), 0);

	for (int traced = 0; traced < 2; traced++) {
		tt_rw_sqe(&q, &sqe, nvme_cmd_write, true, 8, 8);
		CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, data, sizeof(data), false, false), 0);
		tcp_passes(&t, &q, (int)sizeof(struct nvme_tcp_rsp), traced);
		if (traced)
			trace_emit("tcp-incapsule");
		CU_ASSERT_EQUAL(tt_rsp(&q, &q.cqe), 0);
	}

	for (int traced = 0; traced < 2; traced++) {
		tt_rw_sqe(&q, &sqe, nvme_cmd_write, false, 16, 8);
		CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
		tcp_passes(&t, &q, (int)sizeof(struct nvme_tcp_r2t), traced);
		struct nvme_tcp_r2t r;
		CU_ASSERT_EQUAL_FATAL(tt_recv_pdu(&q, &r, sizeof(r)), (int)sizeof(r));
		CU_ASSERT_EQUAL_FATAL(r.ch.type, NVME_TCP_R2T);
		CU_ASSERT_EQUAL(le32toh(r.r2tl), sizeof(data));
		CU_ASSERT_EQUAL(tt_h2c_data(&q, sqe.command_id, le16toh(r.ttag), 0, data,
					    sizeof(data), true),
				0);
		tcp_passes(&t, &q, (int)sizeof(struct nvme_tcp_rsp), traced);
		if (traced)
			trace_emit("tcp-r2t");
		CU_ASSERT_EQUAL(tt_rsp(&q, &q.cqe), 0);
	}

	for (int traced = 0; traced < 2; traced++) {
		memset(in, 0, sizeof(in));
		tt_rw_sqe(&q, &sqe, nvme_cmd_read, false, 16, 8);
		CU_ASSERT_EQUAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
		tcp_read_passes(&t, &q, traced);
		if (traced)
			trace_emit("tcp-read");
		CU_ASSERT_EQUAL(tt_read_data(&q, in, sizeof(in)), 0);
		CU_ASSERT_EQUAL(memcmp(in, data, sizeof(in)), 0);
	}
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	CU_pSuite s = CU_add_suite("path_trace", NULL, NULL);
	if (!s || !CU_add_test(s, "trace_rdma", trace_rdma) ||
	    !CU_add_test(s, "trace_tcp", trace_tcp))
		return 2;
	CU_basic_set_mode(CU_BRM_SILENT);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	if (failed)
		fprintf(stderr, "path-trace: %u assertion(s) failed\n", failed);
	return failed ? 1 : 0;
}
