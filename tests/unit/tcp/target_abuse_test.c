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
#include "tests/unit/tcp/fixture.h"

static uint64_t clock_ms;

static uint64_t fake_clock(const struct nvmf_tgt *tgt)
{
	(void)tgt;
	return clock_ms;
}

/* The tcp transport's part of the main poll group (listeners, connections before their
 * Connect). */
static struct nvmf_tcp_tpg *main_tcp_tpg(struct tt *t)
{
	return (struct nvmf_tcp_tpg *)nvmf_pg_tpg(nvmf_tgt_main_pg(&t->tgt), t->tgt.transports[0]);
}

/* Something in @epfd's set is ready: a group polling it has work, or spins. */
static bool epoll_ready(int epfd)
{
	struct pollfd pf = { .fd = epfd, .events = POLLIN };
	return poll(&pf, 1, 0) > 0;
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
	t.tgt.now_ms = fake_clock;
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
	int dialed = tt_dial(&t, &c);   /* accept: EMFILE */
	tt_drive(&t);
	bool spinning = epoll_ready(main_tcp_tpg(&t)->epfd);
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

const struct unit_test tcp_target_abuse_tests[] = {
	{ "accept_without_descriptors_rests_the_listener_then_serves_the_host",
	  accept_without_descriptors_rests_the_listener_then_serves_the_host },
	{ NULL, NULL },
};
