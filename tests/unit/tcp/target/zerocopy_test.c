/* Zero-copy sends of the NVMe/TCP target (tcp/target/zerocopy.c, Linux MSG_ZEROCOPY):
 * which C2HData go zero-copy, the falling back once the kernel copies (it always does
 * on the loopback), and that no command's buffer goes back to the group while the
 * kernel may still send from it: not when its answer left, not when the connection
 * dies, only when the kernel's notification comes or the connection is reset. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcp/target/internal.h"
#include "tests/unit/suites.h"
#include "tests/unit/tcp/fixture.h"

enum { LEN = 65536 };

static uint64_t clock_ms;

static uint64_t fake_clock(const struct nvmf_clock *clock)
{
	(void)clock;
	return clock_ms;
}

/* The connection of I/O queue 1 (on the main group: one thread). */
static struct nvmf_tcp_conn *io_conn(struct tt *t)
{
	struct nvmf_tcp_conn *c = tt_main_tpg(t)->conns;
	while (c && c->qid != 1)
		c = c->next;
	return c;
}

/* @n bytes of a pattern (seeded @seed) written at LBA 0 in 8 KiB in-capsule writes. */
static int write_pattern(struct ttc *q, uint8_t *w, uint32_t n, unsigned seed)
{
	for (uint32_t i = 0; i < n; i++)
		w[i] = (uint8_t)(i * 31 + seed);
	for (uint32_t off = 0; off < n; off += 8192) {
		struct nvme_sqe sqe;
		struct nvme_cqe cqe;
		tt_rw_sqe(q, &sqe, nvme_cmd_write, true, off / 512, 16);
		if (tt_capsule(q, &sqe, w + off, 8192, false, false) || tt_rsp(q, &cqe))
			return -1;
	}
	return 0;
}

static int read_at0(struct ttc *q, uint8_t *r, uint32_t n)
{
	struct nvme_sqe sqe;
	memset(r, 0, n);
	tt_rw_sqe(q, &sqe, nvme_cmd_read, false, 0, n / 512);
	return tt_capsule(q, &sqe, NULL, 0, false, false) ? -1 : tt_read_data(q, r, n);
}

/* Reads below the threshold copy; one at or above it goes zero-copy, and the loopback's
 * "copied" notification turns zero-copy off for the connection; every read is equal to
 * what was written and every buffer is back. */
static void large_reads_go_zero_copy_until_the_kernel_copies(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	static uint8_t w[LEN], r[LEN];
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_two_queues(&t, &a, &q, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(write_pattern(&q, w, LEN, 3), 0);
	struct nvmf_tcp_conn *c = io_conn(&t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->zc_min, NVMF_DEFAULT_ZEROCOPY);
	CU_ASSERT_EQUAL_FATAL(read_at0(&q, r, NVMF_DEFAULT_ZEROCOPY / 2), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, NVMF_DEFAULT_ZEROCOPY / 2), 0);
	CU_ASSERT_EQUAL(c->zc_sends, 0);
	CU_ASSERT_EQUAL_FATAL(read_at0(&q, r, LEN), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, LEN), 0);
	tt_drive(&t);
	CU_ASSERT_TRUE(c->zc_sends >= 1);
	CU_ASSERT_TRUE(c->zc_copied);
	CU_ASSERT_EQUAL(c->zc_min, 0);
	CU_ASSERT_EQUAL(c->zc_count, 0);
	uint32_t sends = c->zc_sends;
	CU_ASSERT_EQUAL_FATAL(read_at0(&q, r, LEN), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, LEN), 0);
	tt_drive(&t);
	CU_ASSERT_EQUAL(c->zc_sends, sends);
	CU_ASSERT_EQUAL(tt_main_tpg(&t)->bufs_held, 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* nvmf_zerocopy_threshold 0: the socket is never asked for zero-copy. */
static void threshold_zero_never_asks_for_zero_copy(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	static uint8_t w[LEN], r[LEN];
	CU_ASSERT_EQUAL_FATAL(tt_boot_zc(&t, "127.0.0.1", 8192, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_two_queues(&t, &a, &q, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(write_pattern(&q, w, LEN, 5), 0);
	struct nvmf_tcp_conn *c = io_conn(&t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NULL(c->zc);
	int on = 1;
	socklen_t len = sizeof(on);
	CU_ASSERT_EQUAL(getsockopt(c->fd, SOL_SOCKET, SO_ZEROCOPY, &on, &len), 0);
	CU_ASSERT_EQUAL(on, 0);
	CU_ASSERT_EQUAL_FATAL(read_at0(&q, r, LEN), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, LEN), 0);
	CU_ASSERT_EQUAL(c->zc_sends, 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* A target on the fake clock (at 1000 ms) and a host with a tiny receive buffer that
 * does not read: the read's data send is held by the kernel (its tail cannot leave), so
 * its command keeps its buffer; *@cp is its connection. */
static int boot_with_a_held_read(struct tt *t, struct ttc *a, struct ttc *q,
				 struct nvmf_tcp_conn **cp)
{
	static uint8_t w[LEN];
	uint16_t cntlid;
	if (tt_boot(t, "127.0.0.1", 8192, 0))
		return -1;
	clock_ms = 1000;
	t->tgt.clock.now_ms = fake_clock;
	if (tt_two_queues(t, a, q, &cntlid) || write_pattern(q, w, LEN, 9))
		return -1;
	int small = 4096;
	setsockopt(q->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	struct nvme_sqe sqe;
	tt_rw_sqe(q, &sqe, nvme_cmd_read, false, 0, LEN / 512);
	if (tt_capsule(q, &sqe, NULL, 0, false, false))
		return -1;
	tt_drive(t);
	*cp = io_conn(t);
	return *cp && (*cp)->zc_count ? 0 : -1;
}

/* An H2CData for a transfer tag that has no R2T: the target ends the connection. */
static int protocol_error(struct ttc *q)
{
	uint8_t d[4] = { 0 };
	return tt_h2c_data(q, 1, 77, 0, d, sizeof(d), true);
}

/* The connection dies (a protocol error) while the kernel holds a send: the buffer is
 * not back until the connection is reset, NVMF_TCP_ZC_DRAIN_MS later, and then it is;
 * the host sees the reset. */
static void dead_connection_holding_sends_is_reset_after_the_drain_time(void)
{
	struct tt t;
	struct ttc a, q;
	struct nvmf_tcp_conn *c;
	CU_ASSERT_EQUAL_FATAL(boot_with_a_held_read(&t, &a, &q, &c), 0);
	struct nvmf_tcp_tpg *tpg = tt_main_tpg(&t);
	CU_ASSERT_EQUAL_FATAL(protocol_error(&q), 0);
	tt_drive(&t);
	CU_ASSERT_PTR_EQUAL(tpg->zc_drain, c); /* dead, released by the core, parked */
	CU_ASSERT_TRUE(tpg->bufs_held >= 1);
	clock_ms += NVMF_TCP_ZC_DRAIN_MS / 2;
	tt_drive(&t);
	CU_ASSERT_PTR_EQUAL(tpg->zc_drain, c);
	CU_ASSERT_TRUE(tpg->bufs_held >= 1);
	clock_ms += NVMF_TCP_ZC_DRAIN_MS;
	tt_drive(&t);
	CU_ASSERT_PTR_NULL(tpg->zc_drain);
	CU_ASSERT_EQUAL(tpg->bufs_held, 0);
	/* What reached the host's buffer, then the reset. */
	char buf[4096];
	ssize_t n;
	while ((n = recv(q.fd, buf, sizeof(buf), 0)) > 0)
		;
	CU_ASSERT_EQUAL(n, -1);
	CU_ASSERT_EQUAL(errno, ECONNRESET);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* The host resets the connection while the kernel holds a send: the reset frees the
 * send, its notification comes, and the connection is freed at the next look, long
 * before the drain time. */
static void host_reset_lets_the_held_send_go(void)
{
	struct tt t;
	struct ttc a, q;
	struct nvmf_tcp_conn *c;
	CU_ASSERT_EQUAL_FATAL(boot_with_a_held_read(&t, &a, &q, &c), 0);
	struct nvmf_tcp_tpg *tpg = tt_main_tpg(&t);
	tt_close(&q); /* unread data: the close is a reset */
	for (int i = 0; i < 4; i++) {
		clock_ms += NVMF_TCP_ZC_DRAIN_TICK_MS;
		tt_drive(&t);
	}
	CU_ASSERT_PTR_NULL(tpg->zc_drain);
	CU_ASSERT_EQUAL(tpg->bufs_held, 0);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&t.tgt), 1); /* the admin queue */
	tt_close(&a);
	tt_teardown(&t);
}

/* The target stops while a dead connection waits for its sends: it is reset and freed
 * (the sanitizer build finds a leak otherwise). */
static void target_stop_frees_parked_connections(void)
{
	struct tt t;
	struct ttc a, q;
	struct nvmf_tcp_conn *c;
	CU_ASSERT_EQUAL_FATAL(boot_with_a_held_read(&t, &a, &q, &c), 0);
	CU_ASSERT_EQUAL_FATAL(protocol_error(&q), 0);
	tt_drive(&t);
	CU_ASSERT_PTR_EQUAL(tt_main_tpg(&t)->zc_drain, c);
	tt_teardown(&t);
	close(q.fd);
	close(a.fd);
}

/* The ring, without sockets: a command is released once its answer left and every send
 * of its buffer is notified, in whatever order the notifications come, across the wrap
 * of the kernel's 32-bit numbering. */
static void commands_are_released_after_their_answer_and_all_their_sends(void)
{
	struct nvmf_tgt tgt = { .log = { .level = { NVMF_LOG_ERROR, NVMF_LOG_ERROR, NVMF_LOG_ERROR,
						    NVMF_LOG_ERROR, NVMF_LOG_ERROR,
						    NVMF_LOG_ERROR } } };
	struct nvmf_tcp_transport tr = { .base = { .tgt = &tgt } };
	struct nvmf_tcp_conn conn = { .t = &tr, .zc_min = 4096, .zc_cap = 8 };
	struct nvmf_tcp_req r[2] = { { .conn = &conn, .state = NVMF_TCP_REQ_SENDING },
				     { .conn = &conn, .state = NVMF_TCP_REQ_SENDING } };
	struct nvmf_tcp_zc_slot slots[8];
	conn.zc = slots;
	conn.busy_reqs = 2;
	conn.zc_head_id = UINT32_MAX - 1; /* the next sends are numbered ...fe, ...ff, 0 */
	nvmf_tcp_zc_sent(&conn, &r[0]);
	nvmf_tcp_zc_sent(&conn, &r[0]);
	nvmf_tcp_zc_sent(&conn, &r[1]);
	nvmf_tcp_req_release(&r[0]);
	CU_ASSERT_EQUAL(r[0].state, NVMF_TCP_REQ_SENDING); /* held */
	nvmf_tcp_zc_complete(&conn, 0, 0, false);          /* r[1]'s, before the others */
	CU_ASSERT_EQUAL(r[1].state, NVMF_TCP_REQ_SENDING); /* not answered yet */
	CU_ASSERT_EQUAL(conn.zc_count, 3);                 /* the head is still out */
	nvmf_tcp_req_release(&r[1]);
	CU_ASSERT_EQUAL(r[1].state, NVMF_TCP_REQ_FREE); /* nothing held any more */
	nvmf_tcp_zc_complete(&conn, 100, 200, false);   /* not ours: ignored */
	nvmf_tcp_zc_complete(&conn, UINT32_MAX - 1, UINT32_MAX - 1, false);
	CU_ASSERT_EQUAL(r[0].state, NVMF_TCP_REQ_SENDING); /* one send still out */
	nvmf_tcp_zc_complete(&conn, UINT32_MAX, UINT32_MAX, true);
	CU_ASSERT_EQUAL(r[0].state, NVMF_TCP_REQ_FREE);
	CU_ASSERT_EQUAL(conn.zc_count, 0);
	CU_ASSERT_EQUAL(conn.zc_head_id, 1);
	CU_ASSERT_EQUAL(conn.busy_reqs, 0);
	CU_ASSERT_EQUAL(conn.zc_min, 0); /* copied: off from now on */
	CU_ASSERT_FALSE(nvmf_tcp_zc_room(&conn));
}

const struct unit_test tcp_zerocopy_tests[] = {
	{ "large_reads_go_zero_copy_until_the_kernel_copies",
	  large_reads_go_zero_copy_until_the_kernel_copies },
	{ "threshold_zero_never_asks_for_zero_copy", threshold_zero_never_asks_for_zero_copy },
	{ "dead_connection_holding_sends_is_reset_after_the_drain_time",
	  dead_connection_holding_sends_is_reset_after_the_drain_time },
	{ "host_reset_lets_the_held_send_go", host_reset_lets_the_held_send_go },
	{ "target_stop_frees_parked_connections", target_stop_frees_parked_connections },
	{ "commands_are_released_after_their_answer_and_all_their_sends",
	  commands_are_released_after_their_answer_and_all_their_sends },
	{ NULL, NULL },
};
