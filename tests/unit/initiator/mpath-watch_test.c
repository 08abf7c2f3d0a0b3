/* libnvmf's multipath watcher (initiator/mpath-watch.c): ANA logs read again every
 * period with no I/O, lost paths noticed (a failed log read; without ANA reporting, the
 * admin queue lost by Keep Alive) and reconnected when their port is back, the reconnect
 * waiting for every queue that still holds commands on the lost path (the handshake of
 * initiator/mpath-internal.h), and two queues on two threads keeping their data while a
 * port goes away and comes back, twice. Our target (threaded), loop ports, the
 * ANA-playing wrapper (mpath_fixture.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/initiator/mpath_fixture.h"
#include "tests/unit/suites.h"

static struct mpf F;

/* Wait up to @ms for @nsid's state through @p to be @state. */
static bool wait_state(uint32_t nsid, unsigned p, uint8_t state, int ms)
{
	uint64_t end = nvmf_mono_ms() + (uint64_t)ms;
	for (;;) {
		uint8_t st = 0;
		if (!nvmf_mpath_ns_ana_state(F.mp, nsid, p, &st, NULL) && st == state)
			return true;
		if (nvmf_mono_ms() >= end)
			return false;
		usleep(2000);
	}
}

static unsigned want_reads;

static bool reads_reached(void *arg)
{
	(void)arg;
	return ana_wrap_log_reads() >= want_reads;
}

static bool refused_reconnect(void *arg)
{
	(void)arg;
	struct nvmf_mpath_path_info a;
	return !nvmf_mpath_path_info(F.mp, 0, &a) && a.last_error == -ECONNREFUSED;
}

struct ios_above {
	unsigned path;
	unsigned long ios;
};

static bool ios_above(void *arg)
{
	struct ios_above *x = arg;
	return mpf_ios(F.mp, x->path) > x->ios;
}

static void ana_logs_are_read_every_period_without_io(void)
{
	mpf_target(&F, 2, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	CU_ASSERT_TRUE(wait_state(1, 0, NVME_ANA_STATE_OPTIMIZED, 1000));
	want_reads = ana_wrap_log_reads() + 2 * 3; /* three passes over two paths */
	CU_ASSERT_TRUE(mpf_wait(reads_reached, NULL, 5000));
	ana_wrap_set_state(0, 1, NVME_ANA_STATE_NONOPTIMIZED);
	CU_ASSERT_TRUE(wait_state(1, 0, NVME_ANA_STATE_NONOPTIMIZED, 5000));
	unsigned p = 9;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 1);
	struct nvmf_mpath_path_info a;
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT(a.ana_chgcnt >= 2);
	CU_ASSERT_EQUAL(nvmf_mpath_refresh(NULL, 10), -EINVAL);
	mpf_teardown(&F);
}

static void idle_lost_path_is_reconnected_when_its_port_returns(void)
{
	mpf_target(&F, 2, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	struct nvmf_mpath_path_info a;
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	uint16_t old = a.cntlid;
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, NULL, 0, false, 5000));
	/* Attempts fail meanwhile: nobody listens. */
	CU_ASSERT_TRUE(mpf_wait(refused_reconnect, NULL, 5000));
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_FALSE(a.live);
	CU_ASSERT_EQUAL(a.reconnects, 0);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(nvmf_mpath_errmsg(F.mp), "path 0 (127.0.0.1:4420): reconnect"));
	unsigned p = 9;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 1);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, NULL, 0, true, 5000));
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_EQUAL(a.reconnects, 1);
	CU_ASSERT_NOT_EQUAL(a.cntlid, old);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 0);
	uint8_t w[512] = { 9, 8, 7 }, r[512];
	CU_ASSERT_EQUAL(nvmf_mpath_write(F.mp, 1, 3, 1, w), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 1, 3, 1, r), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_EQUAL(a.ios, 2);
	mpf_teardown(&F);
}

static void without_ana_a_lost_admin_queue_is_noticed_through_keep_alive(void)
{
	mpf_target(&F, 2, NULL, &(struct ana_wrap_id){ .no_ana = true });
	F.paths[0].kato_ms = 200; /* Keep Alive every 100 ms */
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, NULL, 0, false, 5000));
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, NULL, 0, true, 5000));
	CU_ASSERT_EQUAL(ana_wrap_log_reads(), 0);
	mpf_teardown(&F);
}

static void reconnect_waits_for_the_queue_holding_commands_on_the_lost_path(void)
{
	mpf_target(&F, 2, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(F.mp, 0);
	uint8_t w[512] = { 5, 6, 7 }, r[512];
	CU_ASSERT_EQUAL(nvmf_mpath_write(F.mp, 1, 9, 1, w), 0);
	/* A read on path 0 that its thread does not poll for. */
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL(nvmf_mpath_submit_read(q, 1, 9, 1, r, lpf_done_cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, NULL, 0, false, 5000));
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	usleep(300 * 1000); /* fifteen periods: the port is back, the queue still uses it */
	struct nvmf_mpath_path_info a;
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_FALSE(a.live);
	CU_ASSERT_EQUAL(a.reconnects, 0);
	CU_ASSERT_EQUAL(d.calls, 0);
	/* The thread polls: its command goes to path 1, then path 0 comes back. */
	memset(r, 0, sizeof(r));
	while (!d.calls)
		nvmf_mpath_wait(q, 10);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(mpf_ios(F.mp, 1), 1);
	CU_ASSERT_TRUE(mpf_wait_live(F.mp, q, 0, true, 5000));
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_EQUAL(a.reconnects, 1);
	mpf_teardown(&F);
}

struct worker {
	pthread_t t;
	struct mpf_stream st;
	_Atomic bool stop;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	while (!w->stop)
		mpf_stream_run(&w->st, 10);
	mpf_stream_drain(&w->st, 10000);
	return NULL;
}

static void two_queues_on_two_threads_keep_their_data_while_a_port_flaps(void)
{
	mpf_target(&F, 2, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_mpath_nr_queues(F.mp), 2);
	struct worker w[2];
	memset(w, 0, sizeof(w));
	for (unsigned i = 0; i < 2; i++) {
		mpf_stream_start(&w[i].st, nvmf_mpath_queue(F.mp, i), 1024 * (i + 1));
		CU_ASSERT_EQUAL_FATAL(pthread_create(&w[i].t, NULL, worker_main, &w[i]), 0);
	}
	CU_ASSERT_TRUE(mpf_wait(ios_above, &(struct ios_above){ 0, 20 }, 5000));
	for (int round = 0; round < 2; round++) {
		struct nvmf_mpath_path_info a;
		CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
		CU_ASSERT_TRUE(mpf_wait_live(F.mp, NULL, 0, false, 5000));
		CU_ASSERT_TRUE(
			mpf_wait(ios_above, &(struct ios_above){ 1, mpf_ios(F.mp, 1) }, 5000));
		CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
		CU_ASSERT_TRUE(mpf_wait_live(F.mp, NULL, 0, true, 5000));
		CU_ASSERT_TRUE(
			mpf_wait(ios_above, &(struct ios_above){ 0, mpf_ios(F.mp, 0) }, 5000));
		CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
		CU_ASSERT_EQUAL(a.reconnects, (unsigned long)round + 1);
	}
	for (unsigned i = 0; i < 2; i++) {
		w[i].stop = true;
		pthread_join(w[i].t, NULL);
		CU_ASSERT_EQUAL(nvmf_mpath_outstanding(w[i].st.q), 0);
		CU_ASSERT_EQUAL(w[i].st.errors, 0);
		CU_ASSERT(w[i].st.reads > MPF_SLOTS);
	}
	mpf_teardown(&F);
}

const struct unit_test initiator_mpath_watch_tests[] = {
	{ "ana_logs_are_read_every_period_without_io", ana_logs_are_read_every_period_without_io },
	{ "idle_lost_path_is_reconnected_when_its_port_returns",
	  idle_lost_path_is_reconnected_when_its_port_returns },
	{ "without_ana_a_lost_admin_queue_is_noticed_through_keep_alive",
	  without_ana_a_lost_admin_queue_is_noticed_through_keep_alive },
	{ "reconnect_waits_for_the_queue_holding_commands_on_the_lost_path",
	  reconnect_waits_for_the_queue_holding_commands_on_the_lost_path },
	{ "two_queues_on_two_threads_keep_their_data_while_a_port_flaps",
	  two_queues_on_two_threads_keep_their_data_while_a_port_flaps },
	{ NULL, NULL },
};
