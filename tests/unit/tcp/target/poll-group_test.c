/* The NVMe/TCP target against hosts and conditions that misbehave without a malformed
 * PDU: no descriptor left for accept, slow and vanishing senders, hosts that never read.
 * Each keeps the target serving (the same host or another) and frees what it took. */
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "tcp/target/internal.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "tests/unit/tcp/fixture.h"
#include "nvme/fabrics.h"

static uint64_t clock_ms;

static uint64_t fake_clock(const struct nvmf_clock *clock)
{
	(void)clock;
	return clock_ms;
}

/* Something in @epfd's set is ready: a group polling it has work, or spins. */
static bool epoll_ready(int epfd)
{
	struct pollfd pf = { .fd = epfd, .events = POLLIN };
	return poll(&pf, 1, 0) > 0;
}

/* Send @len bytes one send() at a time, the target running between them. */
static int send_bytewise(struct ttc *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	for (size_t i = 0; i < len; i++) {
		if (tt_send(c, p + i, 1))
			return -1;
		tt_drive(c->t);
	}
	return 0;
}

/* The status of a Keep Alive on admin queue @a: the controller still answers. */
static int keep_alive(struct ttc *a)
{
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	tt_sqe(a, &sqe, nvme_admin_keep_alive, false, 0);
	return tt_capsule(a, &sqe, NULL, 0, false, false) ? -1 : tt_rsp(a, &cqe);
}

/* accept() failing for want of a descriptor (EMFILE) leaves the connection in the
 * listener's backlog, so a level-triggered listener stays ready and every pass of the
 * main group would call accept again (a spinning group, a log line per pass). The
 * listener must rest instead, and take the waiting host once descriptors are back. */
static void accept_without_descriptors_rests_the_listener_then_serves_the_host(void)
{
	struct tt t;
	struct ttc c;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	clock_ms = 1000;
	t.tgt.clock.now_ms = fake_clock;
	tt_drive(&t);
	/* Room for the test's own socket and nothing more: the lowest free descriptor is
	 * the last one allowed. */
	int lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(lowest >= 0);
	close(lowest);
	struct rlimit old, low;
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)lowest + 1;
	CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_NOFILE, &low), 0);
	int dialed = tt_dial(&t, &c); /* accept: EMFILE */
	tt_drive(&t);
	bool spinning = epoll_ready(tt_main_tpg(&t)->epfd);
	CU_ASSERT_EQUAL(setrlimit(RLIMIT_NOFILE, &old), 0);
	CU_ASSERT_EQUAL_FATAL(dialed, 0);
	CU_ASSERT_FALSE(spinning);
	/* Descriptors are back: after the rest the host is accepted and served. */
	clock_ms += 1000;
	CU_ASSERT_EQUAL(tt_handshake(&c, 0, 0, NULL), 0);
	uint16_t cntlid;
	CU_ASSERT_EQUAL(tt_connect(&c, TT_SUBNQN, 0, 0xffff, &cntlid), 0);
	tt_close(&c);
	tt_teardown(&t);
}

/* A host that sends every PDU one byte at a time (ICReq, the Connect capsule with its
 * data, an in-capsule write) is served like any other: the data reads back. */
static void one_byte_at_a_time_sender_is_served(void)
{
	struct tt t;
	struct ttc a, q;
	uint16_t cntlid;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &a), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&a, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(&a, TT_SUBNQN, 0, 0xffff, &cntlid), 0);
	CU_ASSERT_EQUAL_FATAL(tt_enable(&a), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &q), 0);
	/* ICReq, byte by byte; then the Connect capsule, byte by byte. */
	struct nvme_tcp_icreq ic = {
		.ch = { .type = NVME_TCP_ICREQ, .hlen = sizeof(ic), .plen = htole32(sizeof(ic)) }
	};
	CU_ASSERT_EQUAL_FATAL(send_bytewise(&q, &ic, sizeof(ic)), 0);
	struct nvme_tcp_icresp resp;
	CU_ASSERT_EQUAL_FATAL(tt_recv_pdu(&q, &resp, sizeof(resp)), (int)sizeof(resp));
	CU_ASSERT_EQUAL(resp.ch.type, NVME_TCP_ICRESP);
	struct nvme_tcp_cmd cmd;
	struct nvmf_connect_data d;
	static uint8_t pdu[sizeof(struct nvme_tcp_cmd) + 1024];
	memset(&cmd, 0, sizeof(cmd));
	tt_sqe(&q, &cmd.sqe, nvme_admin_fabrics, true, sizeof(d));
	uint8_t *b = (uint8_t *)&cmd.sqe;
	b[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	b[NVMF_CONNECT_QID] = 1;
	b[NVMF_CONNECT_SQSIZE] = 31;
	fx_connect_data(&d, TT_SUBNQN, TT_HOSTNQN, cntlid);
	cmd.ch = (struct nvme_tcp_ch){ .type = NVME_TCP_CMD,
				       .hlen = sizeof(cmd),
				       .pdo = sizeof(cmd),
				       .plen = htole32(sizeof(cmd) + sizeof(d)) };
	memcpy(pdu, &cmd, sizeof(cmd));
	memcpy(pdu + sizeof(cmd), &d, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(send_bytewise(&q, pdu, sizeof(cmd) + sizeof(d)), 0);
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL_FATAL(tt_rsp(&q, &cqe), 0);
	/* A 1 KiB in-capsule write, byte by byte, then read back. */
	uint8_t *data = pdu + sizeof(cmd);
	memset(&cmd, 0, sizeof(cmd));
	tt_rw_sqe(&q, &cmd.sqe, nvme_cmd_write, true, 10, 2);
	cmd.ch = (struct nvme_tcp_ch){ .type = NVME_TCP_CMD,
				       .hlen = sizeof(cmd),
				       .pdo = sizeof(cmd),
				       .plen = htole32(sizeof(cmd) + 1024) };
	memcpy(pdu, &cmd, sizeof(cmd));
	for (size_t i = 0; i < 1024; i++)
		data[i] = (uint8_t)(i * 13 + 5);
	CU_ASSERT_EQUAL_FATAL(send_bytewise(&q, pdu, sizeof(cmd) + 1024), 0);
	CU_ASSERT_EQUAL(tt_rsp(&q, &cqe), 0);
	static uint8_t r[1024];
	struct nvme_sqe rd;
	tt_rw_sqe(&q, &rd, nvme_cmd_read, false, 10, 2);
	CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &rd, NULL, 0, false, false), 0);
	CU_ASSERT_EQUAL(tt_read_data(&q, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(memcmp(r, data, sizeof(r)), 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* Half an ICReq, or an ICReq and half a Connect capsule, then silence: the target closes
 * those connections once the handshake time (10 s) has passed, and serves another host
 * meanwhile and after. */
static void half_a_pdu_then_silence_is_closed_after_the_handshake_time(void)
{
	struct tt t;
	struct ttc h1, h2, a;
	uint16_t cntlid;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	clock_ms = 5000;
	t.tgt.clock.now_ms = fake_clock;
	tt_drive(&t);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &h1), 0);
	struct nvme_tcp_icreq ic = {
		.ch = { .type = NVME_TCP_ICREQ, .hlen = sizeof(ic), .plen = htole32(sizeof(ic)) }
	};
	CU_ASSERT_EQUAL_FATAL(tt_send(&h1, &ic, 60), 0);
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &h2), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&h2, 0, 0, NULL), 0);
	struct nvme_tcp_cmd cmd = { .ch = { .type = NVME_TCP_CMD,
					    .hlen = sizeof(cmd),
					    .pdo = sizeof(cmd),
					    .plen = htole32(sizeof(cmd) + 1024) } };
	CU_ASSERT_EQUAL_FATAL(tt_send(&h2, &cmd, sizeof(cmd)), 0);
	/* Another host connects while they stall. */
	CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &a), 0);
	CU_ASSERT_EQUAL_FATAL(tt_handshake(&a, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(&a, TT_SUBNQN, 0, 0xffff, &cntlid), 0);
	tt_drive(&t);
	clock_ms += NVMF_TCP_HANDSHAKE_MS / 2;
	tt_drive(&t);
	CU_ASSERT_PTR_NOT_NULL(tt_main_tpg(&t)->pending); /* not yet */
	clock_ms += NVMF_TCP_HANDSHAKE_MS;
	CU_ASSERT_TRUE(tt_closed(&h1));
	CU_ASSERT_TRUE(tt_closed(&h2));
	CU_ASSERT_PTR_NULL(tt_main_tpg(&t)->pending);
	CU_ASSERT_EQUAL(tt_enable(&a), 0);
	CU_ASSERT_EQUAL(keep_alive(&a), 0);
	tt_close(&h1);
	tt_close(&h2);
	tt_close(&a);
	tt_teardown(&t);
}

/* A host that goes away in the middle of an H2CData PDU (FIN, then RST on a second
 * queue) or of an in-capsule write: its queue is released and every data buffer its
 * commands held is back; the admin queue still answers. */
static void host_vanishing_mid_pdu_releases_its_queue_and_buffers(void)
{
	struct tt t;
	struct ttc a, q;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	uint16_t cntlid;
	CU_ASSERT_EQUAL_FATAL(tt_two_queues(&t, &a, &q, &cntlid), 0);
	for (int round = 0; round < 3; round++) {
		if (round) { /* a new I/O queue 1 on the same controller */
			CU_ASSERT_EQUAL_FATAL(tt_dial(&t, &q), 0);
			CU_ASSERT_EQUAL_FATAL(tt_handshake(&q, 0, 0, NULL), 0);
			CU_ASSERT_EQUAL_FATAL(tt_connect(&q, TT_SUBNQN, 1, cntlid, NULL), 0);
		}
		struct nvme_sqe sqe;
		static uint8_t pdu[24 + 65536];
		memset(pdu, 0x5a, sizeof(pdu));
		if (round < 2) {
			/* A 64 KiB write through R2T; 32 KiB of its H2CData PDU arrive. */
			tt_rw_sqe(&q, &sqe, nvme_cmd_write, false, 0, 128);
			CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
			struct nvme_tcp_r2t r2t;
			CU_ASSERT_EQUAL_FATAL(tt_recv_pdu(&q, &r2t, sizeof(r2t)), (int)sizeof(r2t));
			CU_ASSERT_EQUAL_FATAL(r2t.ch.type, NVME_TCP_R2T);
			struct nvme_tcp_data *h = (void *)pdu;
			*h = (struct nvme_tcp_data){ .ch = { .type = NVME_TCP_H2C_DATA,
							     .flags = NVME_TCP_F_DATA_LAST,
							     .hlen = 24,
							     .pdo = 24,
							     .plen = htole32(sizeof(pdu)) },
						     .cccid = sqe.command_id,
						     .ttag = r2t.ttag,
						     .datal = htole32(65536) };
			CU_ASSERT_EQUAL_FATAL(tt_send(&q, pdu, 24 + 32768), 0);
		} else {
			/* An 8 KiB in-capsule write; 3000 bytes of it arrive. */
			struct nvme_tcp_cmd *cmd = (void *)pdu;
			memset(cmd, 0, sizeof(*cmd));
			tt_rw_sqe(&q, &cmd->sqe, nvme_cmd_write, true, 0, 16);
			cmd->ch = (struct nvme_tcp_ch){ .type = NVME_TCP_CMD,
							.hlen = sizeof(*cmd),
							.pdo = sizeof(*cmd),
							.plen = htole32(sizeof(*cmd) + 8192) };
			CU_ASSERT_EQUAL_FATAL(tt_send(&q, pdu, sizeof(*cmd) + 3000), 0);
		}
		tt_drive(&t);
		if (round == 1) { /* close with a reset */
			struct linger lg = { .l_onoff = 1, .l_linger = 0 };
			setsockopt(q.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		}
		tt_close(&q);
		for (int i = 0; i < 10 && nvmf_tgt_live_queues(&t.tgt) != 1; i++)
			tt_drive(&t);
		CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&t.tgt), 1);
		CU_ASSERT_EQUAL(tt_main_tpg(&t)->bufs_held, 0);
		CU_ASSERT_EQUAL(keep_alive(&a), 0);
	}
	tt_close(&a);
	tt_teardown(&t);
}

/* A host that issues reads and does not read its socket: the target's sends stop at the
 * full socket (it waits for room, EPOLLOUT) and keeps serving the admin queue; once the
 * host reads, every read arrives whole and equal to what was written. */
static void host_not_reading_gets_its_data_once_it_reads(void)
{
	enum { READS = 4, LEN = 65536 }; /* 256 KiB: far beyond both 4 KiB socket buffers */
	struct tt t;
	struct ttc a, q;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	uint16_t cntlid;
	CU_ASSERT_EQUAL_FATAL(tt_two_queues(&t, &a, &q, &cntlid), 0);
	static uint8_t w[LEN], r[LEN];
	for (size_t i = 0; i < LEN; i++)
		w[i] = (uint8_t)(i * 31 + 7);
	/* The data, in 8 KiB in-capsule writes. */
	for (uint32_t off = 0; off < LEN; off += 8192) {
		struct nvme_sqe sqe;
		struct nvme_cqe cqe;
		tt_rw_sqe(&q, &sqe, nvme_cmd_write, true, off / 512, 16);
		CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, w + off, 8192, false, false), 0);
		CU_ASSERT_EQUAL_FATAL(tt_rsp(&q, &cqe), 0);
	}
	struct nvmf_tcp_conn *c = tt_main_tpg(&t)->conns;
	while (c && c->qid != 1)
		c = c->next;
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	/* Small socket buffers on both ends: the reads cannot all fit in them. */
	int small = 4096;
	setsockopt(q.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	for (int i = 0; i < READS; i++) {
		struct nvme_sqe sqe;
		tt_rw_sqe(&q, &sqe, nvme_cmd_read, false, 0, LEN / 512);
		CU_ASSERT_EQUAL_FATAL(tt_capsule(&q, &sqe, NULL, 0, false, false), 0);
		tt_drive(&t);
	}
	tt_drive(&t);
	CU_ASSERT_TRUE(c->pollout); /* the socket was full: the target waits */
	CU_ASSERT_EQUAL(keep_alive(&a), 0);
	for (int i = 0; i < READS; i++) {
		memset(r, 0, sizeof(r));
		CU_ASSERT_EQUAL_FATAL(tt_read_data(&q, r, LEN), 0);
		CU_ASSERT_EQUAL(memcmp(r, w, LEN), 0);
	}
	tt_drive(&t);
	CU_ASSERT_FALSE(c->pollout);
	CU_ASSERT_EQUAL(tt_main_tpg(&t)->bufs_held, 0);
	tt_close(&q);
	tt_close(&a);
	tt_teardown(&t);
}

/* A command's data buffer comes from the smallest size class it fits (a power of two
 * from 4 KiB to 8 MiB) and goes back to that class for the next command of the same
 * size: a 1 MiB transfer reuses a 1 MiB buffer, it does not map 8 MiB. */
static void data_buffers_come_in_the_smallest_class_and_are_reused(void)
{
	struct tt t;
	CU_ASSERT_EQUAL_FATAL(tt_boot(&t, "127.0.0.1", 8192, 0), 0);
	struct nvmf_tcp_tpg *tpg = tt_main_tpg(&t);
	const uint32_t lens[] = { 1,      4096,     4097,     100000,  131072,
				  600000, 1u << 20, 5u << 20, 8u << 20 };
	const uint32_t caps[] = { 4096,     4096,     8192,     131072,  131072,
				  1u << 20, 1u << 20, 8u << 20, 8u << 20 };
	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint32_t cap = 0, cap2 = 0;
		void *b = nvmf_tcp_buf_get(tpg, lens[i], &cap);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL(cap, caps[i]);
		CU_ASSERT_EQUAL(tpg->bufs_held, 1);
		memset(b, 0xa5, lens[i]); /* all of it is ours */
		nvmf_tcp_buf_put(tpg, b, cap);
		CU_ASSERT_EQUAL(tpg->bufs_held, 0);
		void *again = nvmf_tcp_buf_get(tpg, lens[i], &cap2);
		CU_ASSERT_PTR_EQUAL(again, b);
		CU_ASSERT_EQUAL(cap2, cap);
		nvmf_tcp_buf_put(tpg, again, cap2);
	}
	/* A class keeps 8 MiB of buffers at most (and 2 at least): the 1 MiB one 8. */
	void *held[10];
	uint32_t cap = 0;
	for (unsigned i = 0; i < 10; i++)
		held[i] = nvmf_tcp_buf_get(tpg, 1u << 20, &cap);
	for (unsigned i = 0; i < 10; i++)
		nvmf_tcp_buf_put(tpg, held[i], cap);
	CU_ASSERT_EQUAL(tpg->cache[8].size, 1u << 20);
	CU_ASSERT_EQUAL(tpg->cache[8].count, 8);
	CU_ASSERT_EQUAL(tpg->cache[11].max, 2);
	tt_teardown(&t);
}

const struct unit_test tcp_target_abuse_tests[] = {
	{ "data_buffers_come_in_the_smallest_class_and_are_reused",
	  data_buffers_come_in_the_smallest_class_and_are_reused },
	{ "accept_without_descriptors_rests_the_listener_then_serves_the_host",
	  accept_without_descriptors_rests_the_listener_then_serves_the_host },
	{ "one_byte_at_a_time_sender_is_served", one_byte_at_a_time_sender_is_served },
	{ "half_a_pdu_then_silence_is_closed_after_the_handshake_time",
	  half_a_pdu_then_silence_is_closed_after_the_handshake_time },
	{ "host_vanishing_mid_pdu_releases_its_queue_and_buffers",
	  host_vanishing_mid_pdu_releases_its_queue_and_buffers },
	{ "host_not_reading_gets_its_data_once_it_reads",
	  host_not_reading_gets_its_data_once_it_reads },
	{ NULL, NULL },
};
