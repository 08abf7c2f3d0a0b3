/* libnvmf controllers: connect sequence, Connect errors, queue negotiation, keep-alive,
 * shutdown, connection loss and reconnect - against our target through the loop host
 * transport. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

static struct lpf F;

/* Stores the status in the int at @arg. */
static void cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	*(int *)arg = status;
}

static void connect_enables_controller_and_gets_cntlid(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.nr_io_queues = 2;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	uint16_t cntlid = nvmf_ctrl_cntlid(F.ctrl);
	CU_ASSERT_NOT_EQUAL(cntlid, 0);
	CU_ASSERT_EQUAL(le16toh(nvmf_ctrl_id(F.ctrl)->cntlid), cntlid);
	uint32_t cc = 0, csts = 0;
	CU_ASSERT_TRUE_FATAL(loop_host_ctrl_regs(F.lh, cntlid, &cc, &csts));
	CU_ASSERT_EQUAL(cc & 1, 1);           /* CC.EN */
	CU_ASSERT_EQUAL((cc >> 16) & 0xf, 6); /* IOSQES 64 B */
	CU_ASSERT_EQUAL((cc >> 20) & 0xf, 4); /* IOCQES 16 B */
	CU_ASSERT_EQUAL(csts & 1, 1);         /* CSTS.RDY */
	CU_ASSERT_EQUAL(nvmf_ctrl_nr_io_queues(F.ctrl), 2);
	CU_ASSERT_EQUAL(nvmf_ctrl_queue_size(F.ctrl), 128);
	CU_ASSERT_EQUAL(nvmf_ctrl_max_xfer(F.ctrl), 1u << 20); /* target MDTS 8 */
	CU_ASSERT_PTR_NOT_NULL(nvmf_io_queue(F.ctrl, 1));
	CU_ASSERT_PTR_NULL(nvmf_io_queue(F.ctrl, 2));
	/* The host sequence: Connect, CAP, CC, CSTS..., VS, Identify, Set Features. */
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_identify), 1);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_set_features), 1);
	/* Three Connects: admin and two I/O queues. */
	CU_ASSERT_EQUAL(loop_host_io_count(F.lh, nvme_admin_fabrics), 2);
	CU_ASSERT_STRING_EQUAL(nvmf_ctrl_errmsg(F.ctrl), "");
	lpf_teardown(&F);
}

static void connect_to_unknown_nqn_returns_connect_invalid_param(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, "nqn.2026-11.io.nvmf-rdma:nosuch");
	int rc = nvmf_connect(&o, &F.ctrl);
	CU_ASSERT_EQUAL(rc, 0x4182);
	CU_ASSERT_PTR_NULL(F.ctrl);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_strerror(rc), "CONNECT_INVALID_PARAM"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_strerror(rc), "DNR"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "subsystem NQN"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "nosuch"));
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 0);
	lpf_teardown(&F);
}

static void connect_from_host_not_allowed_returns_connect_invalid_host(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.hostnqn = LH_OTHER_HOSTNQN;
	int rc = nvmf_connect(&o, &F.ctrl);
	CU_ASSERT_EQUAL(rc, 0x4184);
	CU_ASSERT_PTR_NULL(F.ctrl);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_strerror(rc), "CONNECT_INVALID_HOST"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "host NQN"));
	lpf_teardown(&F);
}

static void connect_without_address_or_transport_returns_einval(void)
{
	struct nvmf_ctrl_opts o;
	memset(&o, 0, sizeof(o));
	struct nvmf_ctrl *c = (void *)1;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &c), -EINVAL);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "traddr"));
}

static void io_queue_count_is_what_the_controller_grants(void)
{
	lpf_target(&F, &(struct loop_host_params){ .qid_max = 2 });
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.nr_io_queues = 4;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_nr_io_queues(F.ctrl), 2);
	lpf_teardown(&F);
}

static void queue_size_is_capped_by_cap_mqes(void)
{
	lpf_target(&F, &(struct loop_host_params){ .max_queue_size = 32 });
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.queue_size = 256;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_queue_size(F.ctrl), 32);
	lpf_teardown(&F);
}

static void keep_alive_is_sent_every_half_kato(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.kato_ms = 200;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	usleep(550 * 1000);
	unsigned n = loop_host_admin_count(F.lh, nvme_admin_keep_alive);
	/* every 100 ms: 5 in 550 ms, allowing for a slow machine */
	CU_ASSERT(n >= 3 && n <= 6);
	/* The target's 200 ms timer did not expire: the association still works. */
	uint32_t feat = 0;
	CU_ASSERT_EQUAL(nvmf_get_features(F.ctrl, NVME_FEAT_FID_KATO, 0, 0, &feat), 0);
	CU_ASSERT_EQUAL(feat, 200);
	uint8_t buf[512] = { 1 };
	CU_ASSERT_EQUAL(nvmf_write(F.ctrl, 1, 0, 1, buf), 0);
	lpf_teardown(&F);
}

static void no_keep_alive_connects_with_kato_zero_and_sends_none(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.no_keep_alive = true;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	usleep(100 * 1000);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_keep_alive), 0);
	uint32_t feat = 1;
	CU_ASSERT_EQUAL(nvmf_get_features(F.ctrl, NVME_FEAT_FID_KATO, 0, 0, &feat), 0);
	CU_ASSERT_EQUAL(feat, 0);
	lpf_teardown(&F);
}

static void disconnect_sets_shn_and_sees_shst_complete(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 1);
	CU_ASSERT_EQUAL(nvmf_disconnect(F.ctrl), 0);
	F.ctrl = NULL;
	uint32_t cc = 0, csts = 0;
	CU_ASSERT_TRUE_FATAL(loop_host_last_admin_regs(F.lh, &cc, &csts));
	CU_ASSERT_EQUAL((cc >> 14) & 3, 1);  /* CC.SHN normal */
	CU_ASSERT_EQUAL((csts >> 2) & 3, 2); /* CSTS.SHST complete */
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 0);
	lpf_teardown(&F);
}

static void disconnect_fails_outstanding_commands_with_econnaborted(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	static uint8_t buf[4096];
	int st[3] = { 1, 1, 1 };
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	uint8_t warm[512];
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 1, warm), 0); /* block size cached */
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 8, buf, cb, &st[i]), 0);
	}
	CU_ASSERT_EQUAL(nvmf_disconnect(F.ctrl), 0);
	F.ctrl = NULL;
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(st[i], -ECONNABORTED);
	lpf_teardown(&F);
}

struct loss {
	int calls, resets;
};

static void loss_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct loss *l = arg;
	l->calls++;
	if (status == -ECONNRESET && !cqe)
		l->resets++;
}

static void connection_loss_fails_every_outstanding_command_with_econnreset(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	static uint8_t buf[8][4096];
	struct loss l = { 0, 0 };
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL_FATAL(
			nvmf_submit_write(q, 1, (uint64_t)i * 8, 8, buf[i], loss_cb, &l), 0);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), 8);
	loop_host_break(F.lh);
	CU_ASSERT_EQUAL(nvmf_queue_poll(q, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(l.calls, 8);
	CU_ASSERT_EQUAL(l.resets, 8);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(q), 0);
	CU_ASSERT_EQUAL(nvmf_submit_write(q, 1, 0, 8, buf[0], loss_cb, &l), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_queue_poll(q, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(l.calls, 8);
	lpf_teardown(&F);
}

static void reconnect_restores_io_with_the_same_queue_pointers(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.nr_io_queues = 2;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q0 = nvmf_io_queue(F.ctrl, 0), *q1 = nvmf_io_queue(F.ctrl, 1);
	uint16_t old = nvmf_ctrl_cntlid(F.ctrl);
	uint8_t data[4096], back[4096];
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	CU_ASSERT_EQUAL_FATAL(nvmf_write(F.ctrl, 1, 100, 8, data), 0);

	loop_host_break(F.lh);
	CU_ASSERT_EQUAL(nvmf_queue_poll(q0, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 100, 8, back), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_reconnect(F.ctrl), 0);

	CU_ASSERT_PTR_EQUAL(nvmf_io_queue(F.ctrl, 0), q0);
	CU_ASSERT_PTR_EQUAL(nvmf_io_queue(F.ctrl, 1), q1);
	CU_ASSERT_NOT_EQUAL(nvmf_ctrl_cntlid(F.ctrl), old); /* a new association */
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 1);     /* the old one is gone */
	memset(back, 0, sizeof(back));
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 100, 8, back), 0);
	CU_ASSERT_EQUAL(memcmp(data, back, sizeof(data)), 0);
	int st = 1;
	CU_ASSERT_EQUAL(nvmf_submit_read(q1, 1, 100, 8, back, cb, &st), 0);
	while (st == 1)
		CU_ASSERT_FATAL(nvmf_queue_poll(q1, 0) >= 0);
	CU_ASSERT_EQUAL(st, 0);
	lpf_teardown(&F);
}

static void admin_timeout_returns_etimedout_and_reconnect_recovers(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.timeout_ms = 150;
	o.no_keep_alive = true;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	uint8_t id[4096];
	loop_host_hold(F.lh, true);
	CU_ASSERT_EQUAL(nvmf_identify(F.ctrl, NVME_IDENTIFY_CNS_CTRL, 0, id), -ETIMEDOUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_ctrl_errmsg(F.ctrl), "timed out after 150 ms"));
	loop_host_hold(F.lh, false);
	/* The late answer is dropped; the admin queue stays unusable until reconnect. */
	CU_ASSERT_EQUAL(nvmf_identify(F.ctrl, NVME_IDENTIFY_CNS_CTRL, 0, id), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_identify(F.ctrl, NVME_IDENTIFY_CNS_CTRL, 0, id), 0);
	lpf_teardown(&F);
}

/* Until the keep-alive thread found the admin queue lost (at most 5 s: a bound, not a
 * measurement). */
static bool wait_admin_lost(void)
{
	for (unsigned i = 0; i < 500 && !nvmfh_ctrl_lost(F.ctrl); i++)
		usleep(10 * 1000);
	return nvmfh_ctrl_lost(F.ctrl);
}

/* The connection drops, the keep-alive thread fails first, then a read fails: the read's
 * message names its own queue, not the other thread's Keep Alive. */
static void io_failure_names_its_queue_not_a_failed_keep_alive(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.kato_ms = 200; /* Keep Alive every 100 ms */
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0); /* the block size is known now */
	loop_host_break(F.lh);
	CU_ASSERT_FATAL(wait_admin_lost());
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), -ECONNRESET);
	const char *m = nvmf_ctrl_errmsg(F.ctrl);
	CU_ASSERT_EQUAL(strncmp(m, "I/O queue 1: ", 13), 0);
	CU_ASSERT_PTR_NULL(strstr(m, "Keep Alive"));
	CU_ASSERT_STRING_EQUAL(m + 13, nvmf_queue_errmsg(nvmf_io_queue(F.ctrl, 0)));
	CU_ASSERT_STRING_NOT_EQUAL(m + 13, "");
	lpf_teardown(&F);
}

/* Connected with KATO 200 ms and a 150 ms command timeout, then the controller holds
 * every admin command: the keep-alive thread sees the admin queue lost. */
static void connect_then_lose_the_admin_queue(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.kato_ms = 200;
	o.timeout_ms = 150;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	loop_host_hold(F.lh, true);
	CU_ASSERT_FATAL(wait_admin_lost());
}

/* A first read must learn the block size on the admin queue: when that fails, the
 * message says the admin queue, not the I/O queue that still works. */
static void read_failing_in_its_namespace_lookup_names_the_admin_queue(void)
{
	connect_then_lose_the_admin_queue();
	loop_host_hold(F.lh, false);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), -ECONNRESET);
	CU_ASSERT_STRING_EQUAL(nvmf_ctrl_errmsg(F.ctrl),
			       "admin queue: Keep Alive timed out after "
			       "200 ms (the controller's state is unknown); the association needs "
			       "nvmf_reconnect()");
	lpf_teardown(&F);
}

/* A Keep Alive that timed out is what the next admin call reports: there it is the
 * cause. The I/O queue, whose connection still works, is not touched by it. */
static void keep_alive_timeout_is_named_by_the_next_admin_call(void)
{
	connect_then_lose_the_admin_queue();
	/* The keep-alive thread wrote nothing into the application's message. */
	CU_ASSERT_STRING_EQUAL(nvmf_ctrl_errmsg(F.ctrl), "");
	loop_host_hold(F.lh, false);
	uint8_t id[4096];
	CU_ASSERT_EQUAL(nvmf_identify(F.ctrl, NVME_IDENTIFY_CNS_CTRL, 0, id), -ECONNRESET);
	CU_ASSERT_STRING_EQUAL(nvmf_ctrl_errmsg(F.ctrl),
			       "admin queue: Keep Alive timed out after "
			       "200 ms (the controller's state is unknown); the association needs "
			       "nvmf_reconnect()");
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(nvmf_io_queue(F.ctrl, 0)), "");
	lpf_teardown(&F);
}

static void *identify_in_another_thread(void *arg)
{
	static uint8_t id[4096];
	(void)arg;
	int rc = nvmf_identify(F.ctrl, NVME_IDENTIFY_CNS_CTRL, 0, id);
	(void)nvmf_ctrl_errmsg(F.ctrl); /* fills that thread's copy */
	return (void *)(intptr_t)rc;
}

/* nvmf_ctrl_errmsg hands out this thread's copy: another thread's failure (and its own
 * nvmf_ctrl_errmsg) does not rewrite a message this thread is printing. */
static void ctrl_errmsg_is_this_threads_copy(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.no_keep_alive = true;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	loop_host_break(F.lh);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), -ECONNRESET);
	const char *mine = nvmf_ctrl_errmsg(F.ctrl);
	CU_ASSERT_EQUAL(strncmp(mine, "I/O queue 1: ", 13), 0);
	pthread_t t;
	void *rc;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, identify_in_another_thread, NULL), 0);
	pthread_join(t, &rc);
	CU_ASSERT_EQUAL((intptr_t)rc, -ECONNRESET);
	CU_ASSERT_EQUAL(strncmp(mine, "I/O queue 1: ", 13), 0); /* unchanged */
	CU_ASSERT_EQUAL(strncmp(nvmf_ctrl_errmsg(F.ctrl), "admin queue: ", 13), 0);
	lpf_teardown(&F);
}

const struct unit_test initiator_ctrl_tests[] = {
	{ "connect_enables_controller_and_gets_cntlid",
	  connect_enables_controller_and_gets_cntlid },
	{ "connect_to_unknown_nqn_returns_connect_invalid_param",
	  connect_to_unknown_nqn_returns_connect_invalid_param },
	{ "connect_from_host_not_allowed_returns_connect_invalid_host",
	  connect_from_host_not_allowed_returns_connect_invalid_host },
	{ "connect_without_address_or_transport_returns_einval",
	  connect_without_address_or_transport_returns_einval },
	{ "io_queue_count_is_what_the_controller_grants",
	  io_queue_count_is_what_the_controller_grants },
	{ "queue_size_is_capped_by_cap_mqes", queue_size_is_capped_by_cap_mqes },
	{ "keep_alive_is_sent_every_half_kato", keep_alive_is_sent_every_half_kato },
	{ "no_keep_alive_connects_with_kato_zero_and_sends_none",
	  no_keep_alive_connects_with_kato_zero_and_sends_none },
	{ "disconnect_sets_shn_and_sees_shst_complete",
	  disconnect_sets_shn_and_sees_shst_complete },
	{ "disconnect_fails_outstanding_commands_with_econnaborted",
	  disconnect_fails_outstanding_commands_with_econnaborted },
	{ "connection_loss_fails_every_outstanding_command_with_econnreset",
	  connection_loss_fails_every_outstanding_command_with_econnreset },
	{ "reconnect_restores_io_with_the_same_queue_pointers",
	  reconnect_restores_io_with_the_same_queue_pointers },
	{ "admin_timeout_returns_etimedout_and_reconnect_recovers",
	  admin_timeout_returns_etimedout_and_reconnect_recovers },
	{ "io_failure_names_its_queue_not_a_failed_keep_alive",
	  io_failure_names_its_queue_not_a_failed_keep_alive },
	{ "keep_alive_timeout_is_named_by_the_next_admin_call",
	  keep_alive_timeout_is_named_by_the_next_admin_call },
	{ "read_failing_in_its_namespace_lookup_names_the_admin_queue",
	  read_failing_in_its_namespace_lookup_names_the_admin_queue },
	{ "ctrl_errmsg_is_this_threads_copy", ctrl_errmsg_is_this_threads_copy },
	{ NULL, NULL },
};
