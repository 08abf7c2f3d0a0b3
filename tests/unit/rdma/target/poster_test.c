/* SPDX-License-Identifier: MIT */
/* rdma/target/poster.c: which chains the poll group hands to its posting thread, the order
 * a queue's WRs reach the device in, a failed post of the poster, and a queue the poster
 * still holds WRs of. The poster runs without a thread here: rx_poll drains it after each
 * pass, or leaves it to the test (x.hold_poster). */
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/rdma/fixture.h"

#define BIG (128u << 10) /* above NVMF_RDMA_POST_THREAD_BYTES */

/* Namespace bytes [0, len) set to a pattern; returns the namespace's memory. */
static uint8_t *fill_ns(struct rx *x, size_t len)
{
	uint8_t *ns = rx_ns_data(x);
	for (size_t i = 0; i < len; i++)
		ns[i] = (uint8_t)(i * 7 + 3);
	return ns;
}

/* On soft RoCE (auto), a 4 KiB read's chain is posted by the group at once; a 128 KiB
 * read's goes to the poster, and so does a 4 KiB read queued behind it: the device sees
 * both only when the poster posts, in the order they were handed over, and the data reads
 * back. */
static void large_chain_goes_to_the_poster_and_a_later_small_one_waits_behind_it(void)
{
	struct rx x;
	struct rx_opts o = { .rxe = true };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	CU_ASSERT_TRUE_FATAL(io->q->post_offload);
	uint8_t *ns = fill_ns(&x, 2 * BIG);
	x.hold_poster = true;

	uint8_t *small = rx_host_alloc(&x, 4096);
	unsigned before = io->qp->sq_len;
	uint16_t c0 = rxq_read(io, 0, small, 4096, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(io->qp->sq_len, before + 2); /* WRITE + SEND, inline */
	CU_ASSERT_EQUAL(io->q->post_pending, 0);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, c0), 0);
	CU_ASSERT_EQUAL(memcmp(small, ns, 4096), 0);

	uint8_t *big = rx_host_alloc(&x, BIG), *after = rx_host_alloc(&x, 4096);
	before = io->qp->sq_len;
	uint16_t c1 = rxq_read(io, 0, big, BIG, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(io->qp->sq_len, before); /* with the poster */
	CU_ASSERT_EQUAL(io->q->post_pending, 1);
	uint16_t c2 = rxq_read(io, BIG / 512, after, 4096, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(io->qp->sq_len, before); /* behind the large one */
	CU_ASSERT_EQUAL(io->q->post_pending, 2);
	CU_ASSERT_EQUAL(x.pg->poster.handed, 2);

	nvmf_rdma_poster_drain(&x.pg->poster);
	CU_ASSERT_EQUAL(io->q->post_pending, 0);
	CU_ASSERT_EQUAL_FATAL(io->qp->sq_len, before + 4);
	CU_ASSERT_EQUAL(io->qp->sq[before].sge.length, BIG); /* the large WRITE first */
	CU_ASSERT_EQUAL(io->qp->sq[before + 2].sge.length, 4096);
	CU_ASSERT_EQUAL(io->qp->sq[before].post, io->qp->sq[before + 3].post); /* one post */
	x.hold_poster = false;
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, c1), 0);
	CU_ASSERT_EQUAL(rxq_status(io, c2), 0);
	CU_ASSERT_EQUAL(memcmp(big, ns, BIG), 0);
	CU_ASSERT_EQUAL(memcmp(after, ns + BIG, 4096), 0);
	/* Answered in the order they were sent. */
	CU_ASSERT_EQUAL_FATAL(io->nresp >= 2, true);
	CU_ASSERT_EQUAL(io->resp[io->nresp - 2].cqe.command_id, c1);
	CU_ASSERT_EQUAL(io->resp[io->nresp - 1].cqe.command_id, c2);
	rx_teardown(&x);
}

/* Twenty 4 KiB reads answered in one pass (80 KiB in all): each RDMA WRITE is small, so
 * the chain is posted by the group at once. */
static void burst_of_small_answers_is_posted_by_the_group(void)
{
	struct rx x;
	struct rx_opts o = { .rxe = true };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	uint8_t *ns = fill_ns(&x, 20 * 4096);
	x.hold_poster = true;
	uint8_t *buf = rx_host_alloc(&x, 20 * 4096);
	unsigned before = io->qp->sq_len;
	for (unsigned i = 0; i < 20; i++)
		rxq_read(io, i * 8, buf + i * 4096, 4096, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(io->qp->sq_len, before + 40);
	CU_ASSERT_EQUAL(io->qp->sq[before].post, io->qp->sq[before + 39].post); /* one post */
	CU_ASSERT_EQUAL(x.pg->poster.handed, 0);
	rx_run(&x);
	CU_ASSERT_EQUAL(memcmp(buf, ns, 20 * 4096), 0);
	rx_teardown(&x);
}

/* A large write's RDMA READ is posted by the group: its post sends one request packet
 * (the data comes back through the host's responder), nothing to hand over. */
static void large_write_reads_its_data_without_the_poster(void)
{
	struct rx x;
	struct rx_opts o = { .rxe = true };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	uint8_t *src = rx_host_alloc(&x, BIG);
	for (size_t i = 0; i < BIG; i++)
		src[i] = (uint8_t)(i * 13 + 1);
	x.hold_poster = true;
	unsigned before = io->qp->sq_len;
	uint16_t cid = rxq_write(io, 8, src, BIG, NVME_SGL_KEYED_INV, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL_FATAL(io->qp->sq_len, before + 1);
	CU_ASSERT_EQUAL(io->qp->sq[before].opcode, IBV_WR_RDMA_READ);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 8 * 512, src, BIG), 0);
	CU_ASSERT_EQUAL(x.pg->poster.handed, 0);
	rx_teardown(&x);
}

/* auto: a hardware device's queues post inline and no thread starts; "on" gives them the
 * poster; "off" keeps soft RoCE inline. */
static void post_thread_setting_picks_the_queues(void)
{
	static const struct {
		struct rx_opts o;
		bool offload;
	} cases[] = {
		{ { .rxe = false }, false },
		{ { .rxe = false, .post_thread_on = true }, true },
		{ { .rxe = true, .post_thread_off = true }, false },
		{ { .rxe = true }, true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rx x;
		struct rxq *io = rx_setup_io(&x, &cases[i].o, 32, 32, 16);
		CU_ASSERT_EQUAL(io->q->post_offload, cases[i].offload);
		CU_ASSERT_EQUAL(x.pg->poster.running, cases[i].offload);
		uint8_t *big = rx_host_alloc(&x, BIG);
		fill_ns(&x, BIG);
		uint16_t cid = rxq_read(io, 0, big, BIG, NVME_SGL_KEYED_ADDR, NULL);
		rx_run(&x);
		CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
		CU_ASSERT_EQUAL(memcmp(big, rx_ns_data(&x), BIG), 0);
		CU_ASSERT_EQUAL(x.pg->poster.handed, cases[i].offload ? 1u : 0u);
		rx_teardown(&x);
	}
}

/* The device refuses a WR of the poster's post: the group disconnects the queue on its
 * next pass and finishes the requests whose WRs never reached the device; every buffer
 * comes back and the queue is freed. */
static void failed_post_of_the_poster_disconnects_and_finishes_the_requests(void)
{
	struct rx x;
	struct rx_opts o = { .rxe = true };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	unsigned released = x.released, before = io->qp->sq_len;
	fill_ns(&x, 2 * BIG);
	x.hold_poster = true;
	for (int i = 0; i < 2; i++)
		rxq_read(io, (uint64_t)i * (BIG / 512), rx_host_alloc(&x, BIG), BIG,
			 NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL(io->q->post_pending, 1); /* both responses in one chain */
	x.fd->fail_post_send_at = 1;             /* the first SEND is refused */
	nvmf_rdma_poster_drain(&x.pg->poster);
	CU_ASSERT_EQUAL(io->qp->sq_len, before + 1);     /* the first WRITE only */
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_LIVE); /* the group has not looked yet */
	CU_ASSERT_TRUE(nvmf_rdma_poster_busy(&x.pg->poster, io->q)); /* not to be freed */
	x.hold_poster = false;
	rx_poll(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_DYING);
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(x.released, released + 1);
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	CU_ASSERT_EQUAL(rx_pool_double_puts(&x), 0);
	rx_teardown(&x);
}

/* A dying queue whose chain the poster still holds is not freed, not even after the
 * flush timeout: the poster would post WRs of freed memory. Once posted, it is. */
static void queue_is_not_freed_while_the_poster_holds_its_chain(void)
{
	struct rx x;
	struct rx_opts o = { .rxe = true };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	x.hold_poster = true;
	rxq_read(io, 0, rx_host_alloc(&x, BIG), BIG, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL_FATAL(io->q->post_pending, 1);
	nvmf_rdma_queue_disconnect(io->q, "test");
	rx_run(&x);
	x.now += 60000; /* far beyond the flush timeout */
	rx_run(&x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(io->q->post_pending, 1);
	x.hold_poster = false;
	rx_run(&x); /* posted to the QP in error: flushed */
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	CU_ASSERT_EQUAL(rx_pool_double_puts(&x), 0);
	rx_teardown(&x);
}

/* The real thread: a post_send that records the wr_ids it is given, slowly, so that the
 * group hands chains over while an earlier one is being posted. The test thread posts the
 * chains the poster does not take through it too, as the group would. */
#define TH_WRS 600
static uint64_t th_seen[TH_WRS];
static unsigned th_nseen, th_posts;
static pthread_mutex_t th_lock = PTHREAD_MUTEX_INITIALIZER;

static void record(const struct ibv_send_wr *wr)
{
	pthread_mutex_lock(&th_lock);
	for (; wr; wr = wr->next)
		if (th_nseen < TH_WRS)
			th_seen[th_nseen++] = wr->wr_id;
	th_posts++;
	pthread_mutex_unlock(&th_lock);
}

static int recording_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	(void)bad;
	record(wr);
	usleep(200);
	return 0;
}

/* Three queues hand over 200 chains in turn while the thread posts (large ones, and small
 * ones, which it takes only while an earlier chain of their queue is still with it; the
 * others the test posts at once): each queue's WRs reach the device in the order they were
 * made, none twice, none lost; stopping posts what is still waiting; only the last SEND of
 * each post stays signaled. */
static void threaded_poster_posts_each_queues_chains_in_order(void)
{
	struct nvmf_rdma_verbs v = fake_verbs;
	v.post_send = recording_post_send;
	struct nvmf_rdma_poster p;
	char err[128];
	th_nseen = th_posts = 0;
	CU_ASSERT_EQUAL_FATAL(
		nvmf_rdma_poster_start(&p, &v, NULL, 65536, true, NULL, err, sizeof(err)), 0);
	static struct nvmf_rdma_queue q[3];
	static struct ibv_send_wr wr[200];
	static bool inline_posted[200];
	memset(q, 0, sizeof(q));
	memset(wr, 0, sizeof(wr));
	memset(inline_posted, 0, sizeof(inline_posted));
	for (int i = 0; i < 3; i++)
		q[i].post_tailp = &q[i].post_head;
	unsigned inline_posts = 0;
	for (unsigned i = 0; i < 200; i++) {
		struct nvmf_rdma_queue *qi = &q[i % 3];
		wr[i].wr_id = ((uint64_t)(i % 3) << 32) | i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		if (!nvmf_rdma_poster_take(&p, qi, &wr[i], &wr[i], i % 5 ? 4096 : 131072)) {
			record(&wr[i]);
			inline_posted[i] = true;
			inline_posts++;
		}
		if (i % 7 == 0)
			usleep(100);
	}
	nvmf_rdma_poster_stop(&p);
	CU_ASSERT_EQUAL(th_nseen, 200); /* every WR once (checked below: in order, so once) */
	CU_ASSERT_EQUAL(p.handed, 200 - inline_posts);
	CU_ASSERT_TRUE(p.posts < p.handed); /* chains waiting together went in one post */
	CU_ASSERT_TRUE(inline_posts > 0 && inline_posts < 160);
	uint64_t last[3] = { 0, 0, 0 };
	bool first[3] = { true, true, true };
	for (unsigned k = 0; k < th_nseen; k++) {
		unsigned qi = (unsigned)(th_seen[k] >> 32), i = (unsigned)th_seen[k];
		CU_ASSERT_FATAL(qi < 3);
		CU_ASSERT_TRUE(first[qi] || i > last[qi]);
		first[qi] = false;
		last[qi] = i;
	}
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(q[i].post_pending, 0);
		CU_ASSERT_PTR_NULL(q[i].post_head);
	}
	unsigned signaled = 0;
	for (unsigned i = 0; i < 200; i++)
		signaled += !inline_posted[i] && (wr[i].send_flags & IBV_SEND_SIGNALED);
	CU_ASSERT_EQUAL(signaled, p.posts); /* one per post: its last SEND */
}

/* A post of the poster fails while the group hands over the queue's next chain: that chain
 * must not reach the device after the refused WRs. It waits with them; the group
 * disconnects the queue, finishes every request once, and the queue is freed. */
struct mid_post {
	struct rx *x;
	struct rxq *io;
	uint16_t cid;
};

static void read_during_the_post(void *arg)
{
	struct mid_post *m = arg;
	m->cid = rxq_read(m->io, 0, rx_host_alloc(m->x, 4096), 4096, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(m->x); /* the group's pass: the 4 KiB answer goes behind the 128 KiB one */
}

static void chain_handed_over_during_a_failed_post_never_reaches_the_device(void)
{
	struct rx x;
	struct rx_opts o = { .rxe = true };
	struct rxq *io = rx_setup_io(&x, &o, 32, 32, 16);
	unsigned released = x.released, before = io->qp->sq_len;
	fill_ns(&x, BIG);
	x.hold_poster = true;
	uint16_t big = rxq_read(io, 0, rx_host_alloc(&x, BIG), BIG, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x);
	CU_ASSERT_EQUAL_FATAL(io->q->post_pending, 1);
	struct mid_post m = { &x, io, 0 };
	x.fd->on_post = read_during_the_post;
	x.fd->on_post_arg = &m;
	x.fd->fail_post_send_at = 1; /* the 128 KiB answer's SEND */
	nvmf_rdma_poster_drain(&x.pg->poster);
	CU_ASSERT_EQUAL(io->q->post_pending, 2);     /* both, until the group has looked */
	CU_ASSERT_EQUAL(io->qp->sq_len, before + 1); /* the 128 KiB WRITE only */
	nvmf_rdma_poster_drain(&x.pg->poster);       /* nothing more of the queue is posted */
	rxq_read(io, 8, rx_host_alloc(&x, 4096), 4096, NVME_SGL_KEYED_ADDR, NULL);
	rx_poll(&x); /* fails the queue; its late chain waits with the refused ones */
	CU_ASSERT_EQUAL(io->qp->sq_len, before + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(io->q);
	CU_ASSERT_EQUAL(io->q->state, NVMF_RDMA_Q_DYING);
	x.hold_poster = false;
	rx_run(&x);
	CU_ASSERT_PTR_NULL(io->q);
	CU_ASSERT_EQUAL(x.released, released + 1);
	CU_ASSERT_EQUAL(rxq_status(io, big), RX_NO_RESPONSE);
	CU_ASSERT_EQUAL(rxq_status(io, m.cid), RX_NO_RESPONSE);
	CU_ASSERT_EQUAL(rx_pool_free(&x), rx_pool_size(&x));
	CU_ASSERT_EQUAL(rx_pool_double_puts(&x), 0);
	rx_teardown(&x);
}

const struct unit_test rdma_poster_tests[] = {
	{ "chain_handed_over_during_a_failed_post_never_reaches_the_device",
	  chain_handed_over_during_a_failed_post_never_reaches_the_device },
	{ "threaded_poster_posts_each_queues_chains_in_order",
	  threaded_poster_posts_each_queues_chains_in_order },
	{ "large_chain_goes_to_the_poster_and_a_later_small_one_waits_behind_it",
	  large_chain_goes_to_the_poster_and_a_later_small_one_waits_behind_it },
	{ "burst_of_small_answers_is_posted_by_the_group",
	  burst_of_small_answers_is_posted_by_the_group },
	{ "large_write_reads_its_data_without_the_poster",
	  large_write_reads_its_data_without_the_poster },
	{ "post_thread_setting_picks_the_queues", post_thread_setting_picks_the_queues },
	{ "failed_post_of_the_poster_disconnects_and_finishes_the_requests",
	  failed_post_of_the_poster_disconnects_and_finishes_the_requests },
	{ "queue_is_not_freed_while_the_poster_holds_its_chain",
	  queue_is_not_freed_while_the_poster_holds_its_chain },
	{ NULL, NULL },
};
