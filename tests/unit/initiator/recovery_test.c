/* libnvmf automatic reconnect (ctrl_loss_tmo_ms, reconnect_delay_ms, fast_io_fail_tmo_ms)
 * and the controller states - against our target through the loop host transport: its
 * port removed and added back is a target killed and restarted, loop_host_break a lost
 * connection, loop_host_drop an unanswered command. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

static struct lpf F;

/* The states state_cb was told, in order (the controller thread writes, the test reads
 * after the state it waits for is reached). */
struct states {
	int seen[16];
	_Atomic unsigned n;
};

static void state_cb(void *arg, struct nvmf_ctrl *c, int state)
{
	(void)c;
	struct states *s = arg;
	unsigned i = atomic_load(&s->n);
	if (i < 16)
		s->seen[i] = state;
	atomic_store(&s->n, i + 1);
}

/* The state state_cb was told last (-1: none yet). */
static int last_told(struct states *s)
{
	unsigned n = atomic_load(&s->n);
	return n && n <= 16 ? s->seen[n - 1] : -1;
}

/* Until state_cb was told @state last (a bound of 10 s): the controller thread tells it
 * between its admin commands, a moment after the state changed. */
static bool wait_told(struct states *s, int state)
{
	for (unsigned i = 0; i < 1000 && last_told(s) != state; i++)
		usleep(10 * 1000);
	return last_told(s) == state;
}

/* Options with automatic reconnect on a short scale. */
static struct nvmf_ctrl_opts auto_opts(struct states *st)
{
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.kato_ms = 400;
	o.ctrl_loss_tmo_ms = 5000;
	o.reconnect_delay_ms = 50;
	o.state_cb = state_cb;
	o.state_arg = st;
	return o;
}

/* Until the controller is in @state (a bound of 10 s). */
static bool wait_state(int state)
{
	for (unsigned i = 0; i < 1000 && nvmf_ctrl_state(F.ctrl) != state; i++)
		usleep(10 * 1000);
	return nvmf_ctrl_state(F.ctrl) == state;
}

static void fill(uint8_t *buf, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i * 7);
}

/* The target goes away (its port removed: its controllers torn down) while a write and
 * a read wait, and comes back: the controller reconnects within reconnect_delay_ms, the
 * commands are sent again on the new association and complete once each, and the data
 * read back is what was written. */
static void target_restarted_reconnects_and_resends_reads_and_writes(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	uint16_t cntlid = nvmf_ctrl_cntlid(F.ctrl);
	uint8_t wbuf[4096], rbuf[4096];
	fill(wbuf, sizeof(wbuf), 3);
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 8, rbuf), 0); /* block size known */

	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_FATAL(wait_state(NVMF_CTRL_CONNECTING));
	struct lpf_done dw = { 0 }, dr = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_write(q, 1, 16, 8, wbuf, lpf_done_cb, &dw), 0);
	for (unsigned i = 0; i < 10; i++)
		nvmf_queue_wait(q, 10); /* attempts fail: the port is gone */
	CU_ASSERT_EQUAL(dw.calls, 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_CONNECTING);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	lpf_wait_done(q, &dw);
	CU_ASSERT_EQUAL(dw.calls, 1);
	CU_ASSERT_EQUAL(dw.status, 0);
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 16, 8, rbuf, lpf_done_cb, &dr), 0);
	lpf_wait_done(q, &dr);
	CU_ASSERT_EQUAL(dr.calls, 1);
	CU_ASSERT_EQUAL(dr.status, 0);
	CU_ASSERT_EQUAL(memcmp(rbuf, wbuf, sizeof(wbuf)), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	CU_ASSERT_EQUAL(nvmf_ctrl_reconnects(F.ctrl), 1);
	CU_ASSERT_NOT_EQUAL(nvmf_ctrl_cntlid(F.ctrl), cntlid);
	CU_ASSERT(wait_told(&st, NVMF_CTRL_LIVE));
	CU_ASSERT_EQUAL(atomic_load(&st.n), 2);
	CU_ASSERT_EQUAL(st.seen[0], NVMF_CTRL_CONNECTING);
	CU_ASSERT_EQUAL(st.seen[1], NVMF_CTRL_LIVE);
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(q), "");
	lpf_teardown(&F);
}

/* A connection lost while a read and a fused Compare and Write are outstanding: the read
 * is sent again and succeeds; the fused pair, whose effect is unknown, fails once with
 * NVMF_ERR_RESET. */
static void lost_connection_resends_the_read_and_fails_the_fused_pair(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	uint8_t wbuf[512], cmp[512], rbuf[512];
	fill(wbuf, sizeof(wbuf), 9);
	CU_ASSERT_EQUAL_FATAL(nvmf_write(F.ctrl, 1, 40, 1, wbuf), 0);
	memcpy(cmp, wbuf, sizeof(cmp));
	loop_host_hold(F.lh, true); /* nothing is answered before the break */
	struct lpf_done dr = { 0 }, dc = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 40, 1, rbuf, lpf_done_cb, &dr), 0);
	CU_ASSERT_EQUAL(nvmf_submit_compare_and_write(q, 1, 41, 1, cmp, wbuf, lpf_done_cb, &dc), 0);
	loop_host_break(F.lh);
	loop_host_hold(F.lh, false);
	lpf_wait_done(q, &dr);
	lpf_wait_done(q, &dc);
	CU_ASSERT_EQUAL(dr.calls, 1);
	CU_ASSERT_EQUAL(dr.status, 0);
	CU_ASSERT_EQUAL(memcmp(rbuf, wbuf, sizeof(rbuf)), 0);
	CU_ASSERT_EQUAL(dc.calls, 1);
	CU_ASSERT_EQUAL(dc.status, NVMF_ERR_RESET);
	CU_ASSERT_STRING_EQUAL(nvmf_strerror(NVMF_ERR_RESET),
			       "not sent again after a controller reset");
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	CU_ASSERT(nvmf_ctrl_reconnects(F.ctrl) >= 1);
	lpf_teardown(&F);
}

/* An unanswered read with automatic reconnect: Abort (refused by our target), a reset,
 * a new association, the read sent again: it succeeds, its callback runs once. */
static void timed_out_read_is_sent_again_after_the_reset(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.io_timeout_ms = 200;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	uint8_t wbuf[4096], rbuf[4096];
	fill(wbuf, sizeof(wbuf), 5);
	CU_ASSERT_EQUAL_FATAL(nvmf_write(F.ctrl, 1, 0, 8, wbuf), 0);
	loop_host_drop(F.lh, 1, 1);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q, 1, 0, 8, rbuf, lpf_done_cb, &d), 0);
	lpf_wait_done(q, &d);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(memcmp(rbuf, wbuf, sizeof(rbuf)), 0);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_abort_cmd), 1);
	CU_ASSERT_EQUAL(nvmf_ctrl_reconnects(F.ctrl), 1);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	for (unsigned i = 0; i < 5; i++)
		nvmf_queue_poll(q, 0);
	CU_ASSERT_EQUAL(d.calls, 1);
	lpf_teardown(&F);
}

/* The target does not come back: after ctrl_loss_tmo_ms the controller is LOST, the
 * waiting read fails with -ENODEV, new commands too; nvmf_reconnect revives it once the
 * target is back. */
static void ctrl_loss_tmo_fails_everything_with_enodev(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.ctrl_loss_tmo_ms = 300;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	/* The target's teardown of the queues runs on its groups: a read sent before it
	 * reached them would be answered. */
	CU_ASSERT_FATAL(wait_state(NVMF_CTRL_CONNECTING));
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 8, buf, lpf_done_cb, &d), 0);
	lpf_wait_done(q, &d);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, -ENODEV);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LOST);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_queue_errmsg(q), "not reconnected within "
							    "ctrl_loss_tmo_ms 300 ms"));
	struct lpf_done d2 = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 8, buf, lpf_done_cb, &d2), -ENODEV);
	CU_ASSERT_EQUAL(nvmf_queue_poll(q, 0), -ENODEV);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d2.calls, 0);
	/* state_cb is told by the controller thread, which may still be in its last attempt
	 * when the commands failed by the clock. */
	CU_ASSERT(wait_told(&st, NVMF_CTRL_LOST));
	CU_ASSERT_EQUAL(st.seen[0], NVMF_CTRL_CONNECTING);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	CU_ASSERT_EQUAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	lpf_teardown(&F);
}

/* fast_io_fail_tmo_ms: waiting commands fail with -ECONNRESET while the controller keeps
 * reconnecting; once the target is back, I/O works again. */
static void fast_io_fail_fails_waiting_commands_and_keeps_reconnecting(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.fast_io_fail_tmo_ms = 150;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_FATAL(wait_state(NVMF_CTRL_CONNECTING)); /* the queues torn down first */
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 8, buf, lpf_done_cb, &d), 0);
	lpf_wait_done(q, &d);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_CONNECTING);
	struct lpf_done d2 = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 8, buf, lpf_done_cb, &d2), -ECONNRESET);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	CU_ASSERT_FATAL(wait_state(NVMF_CTRL_LIVE));
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	lpf_teardown(&F);
}

/* Milliseconds of CLOCK_MONOTONIC. */
static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A controller that stops answering (a target stopped with SIGSTOP: its TCP connections
 * stay, nothing is answered) makes a reconnect attempt hang up to timeout_ms in its
 * Connect. fast_io_fail_tmo_ms and ctrl_loss_tmo_ms are wall-clock times from the loss
 * (docs/libnvmf.md "Timeouts and reconnect"): the waiting write fails with -ECONNRESET
 * about fast_io_fail_tmo_ms after the reset, and the controller is lost about
 * ctrl_loss_tmo_ms after it, however long the attempt under way takes. */
static void fast_io_fail_and_ctrl_loss_tmo_bound_a_hanging_attempt(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.no_keep_alive = true; /* the I/O timeout is what resets */
	o.kato_ms = 0;
	o.io_timeout_ms = 100;
	o.timeout_ms = 6000; /* an attempt's unanswered Connect waits that long */
	o.ctrl_loss_tmo_ms = 1000;
	o.fast_io_fail_tmo_ms = 300;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	fill(buf, sizeof(buf), 5);
	loop_host_hold(F.lh, true);
	uint64_t t0 = mono_ms();
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_write(q, 1, 16, 8, buf, lpf_done_cb, &d), 0);
	/* The queue's thread finds the timeout while it polls: poll (a bound of 10 s). */
	uint64_t reset = 0, failed = 0, lost = 0;
	while (mono_ms() - t0 < 10000 && !(failed && lost)) {
		nvmf_queue_wait(q, 10);
		int state = nvmf_ctrl_state(F.ctrl);
		if (!reset && state != NVMF_CTRL_LIVE)
			reset = mono_ms();
		if (!failed && d.calls)
			failed = mono_ms();
		if (!lost && state == NVMF_CTRL_LOST)
			lost = mono_ms();
	}
	CU_ASSERT_FATAL(reset != 0);
	CU_ASSERT_EQUAL(d.calls, 1);
	/* The write is the command that timed out: not sent again, it says so. */
	CU_ASSERT_EQUAL(d.status, -ETIMEDOUT);
	/* fast_io_fail_tmo_ms 300 after the reset; a second of slack for a loaded machine */
	CU_ASSERT(failed && failed - reset < 1300);
	CU_ASSERT(lost != 0);
	/* ctrl_loss_tmo_ms 1000 after the reset, with the same slack */
	CU_ASSERT(lost - reset < 2000);
	loop_host_hold(F.lh, false);
	lpf_teardown(&F);
}

/* Keep Alive loss leads to a reconnect too: the controller stops answering everything
 * for a while (the Keep Alive times out after KATO); once it answers again the new
 * association is up and a read works. */
static void keep_alive_loss_reconnects(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.kato_ms = 200;
	o.timeout_ms = 300;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	loop_host_hold(F.lh, true);
	CU_ASSERT_FATAL(wait_state(NVMF_CTRL_CONNECTING));
	loop_host_hold(F.lh, false);
	CU_ASSERT_FATAL(wait_state(NVMF_CTRL_LIVE));
	uint8_t buf[4096];
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	CU_ASSERT(nvmf_ctrl_reconnects(F.ctrl) >= 1);
	lpf_teardown(&F);
}

/* DH-HMAC-CHAP again on every queue of the new association. */
static void reconnect_authenticates_again(void)
{
	static const char key[] = "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:";
	struct loop_host_params p = { .dhchap_key = key };
	lpf_target(&F, &p);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.dhchap_secret = key;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	unsigned sends = loop_host_fabrics_count(F.lh, nvme_fabrics_type_auth_send);
	CU_ASSERT(sends > 0);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	loop_host_break(F.lh);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(nvmf_io_queue(F.ctrl, 0), 1, 0, 8, buf, lpf_done_cb, &d),
			0);
	lpf_wait_done(nvmf_io_queue(F.ctrl, 0), &d);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(loop_host_fabrics_count(F.lh, nvme_fabrics_type_auth_send), 2 * sends);
	struct nvmf_auth_info ai;
	CU_ASSERT_EQUAL(nvmf_ctrl_auth_info(F.ctrl, &ai), 0);
	CU_ASSERT_TRUE(ai.authenticated);
	lpf_teardown(&F);
}

/* One I/O thread of the test below: write a block, read it back, compare, on its own
 * queue and its own blocks, until told to stop. */
struct io_thread {
	struct nvmf_queue *q;
	uint64_t base;
	_Atomic bool stop;
	unsigned rounds, errors, mismatches;
	int last_error;
};

/* Submit one command and wait for it on @t's queue; its status. */
static int one(struct io_thread *t, bool write, uint64_t lba, uint8_t *buf)
{
	struct lpf_done d = { 0 };
	int rc = write ? nvmf_submit_write(t->q, 1, lba, 1, buf, lpf_done_cb, &d) :
			 nvmf_submit_read(t->q, 1, lba, 1, buf, lpf_done_cb, &d);
	if (rc)
		return rc;
	while (!d.calls)
		nvmf_queue_wait(t->q, 10);
	return d.calls == 1 ? d.status : -EPROTO;
}

static void *io_main(void *arg)
{
	struct io_thread *t = arg;
	uint8_t w[512], r[512];
	while (!atomic_load(&t->stop)) {
		uint64_t lba = t->base + t->rounds % 64;
		fill(w, sizeof(w), (uint8_t)(t->rounds + t->base));
		int rc = one(t, true, lba, w);
		if (!rc)
			rc = one(t, false, lba, r);
		if (rc) {
			t->errors++;
			t->last_error = rc;
		} else if (memcmp(w, r, sizeof(w))) {
			t->mismatches++;
		}
		t->rounds++;
	}
	return NULL;
}

/* Two I/O threads verify data on their own queues while the target goes away and comes
 * back twice: each catches up on its own queue, no command fails or completes twice,
 * every block reads back as written. */
static void two_io_threads_ride_through_two_target_restarts(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.nr_io_queues = 2;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_ctrl_nr_io_queues(F.ctrl), 2);
	uint8_t buf[512];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 1, buf), 0); /* queue 0's block size */
	struct io_thread t[2] = { { .q = nvmf_io_queue(F.ctrl, 0), .base = 1000 },
				  { .q = nvmf_io_queue(F.ctrl, 1), .base = 2000 } };
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(t[1].q, 1, 0, 1, buf, lpf_done_cb, &d), 0);
	while (!d.calls)
		nvmf_queue_wait(t[1].q, 10); /* queue 1's block size, before its thread owns it */
	pthread_t th[2];
	for (unsigned i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, io_main, &t[i]), 0);
	for (unsigned round = 0; round < 2; round++) {
		usleep(50 * 1000);
		CU_ASSERT_EQUAL(loop_host_port_remove(F.lh, 1), 0);
		CU_ASSERT(wait_state(NVMF_CTRL_CONNECTING));
		usleep(100 * 1000);
		CU_ASSERT_EQUAL(loop_host_port_add(F.lh, 1), 0);
		CU_ASSERT(wait_state(NVMF_CTRL_LIVE));
	}
	unsigned before[2] = { t[0].rounds, t[1].rounds };
	usleep(100 * 1000);
	for (unsigned i = 0; i < 2; i++) {
		atomic_store(&t[i].stop, true);
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(t[i].errors, 0);
		CU_ASSERT_EQUAL(t[i].mismatches, 0);
		CU_ASSERT(t[i].rounds > before[i]); /* I/O went on after the last restart */
	}
	CU_ASSERT_EQUAL(nvmf_ctrl_reconnects(F.ctrl), 2);
	lpf_teardown(&F);
}

/* A queue whose connection broke under the old association, polled only after the new
 * one is up, catches up without resetting the new one. */
static void a_queue_of_the_old_association_does_not_reset_the_new_one(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.nr_io_queues = 2;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q1 = nvmf_io_queue(F.ctrl, 1);
	uint8_t buf[512];
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q1, 1, 0, 1, buf, lpf_done_cb, &d), 0);
	while (!d.calls)
		nvmf_queue_wait(q1, 10); /* queue 1 knows the block size */
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 1, buf), 0); /* queue 0 too */
	loop_host_break(F.lh);
	CU_ASSERT_FATAL(wait_state(NVMF_CTRL_CONNECTING));
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 1, buf), 0); /* queue 0 on the new one */
	CU_ASSERT_EQUAL(nvmf_ctrl_reconnects(F.ctrl), 1);
	struct lpf_done d1 = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(q1, 1, 0, 1, buf, lpf_done_cb, &d1), 0);
	lpf_wait_done(q1, &d1);
	CU_ASSERT_EQUAL(d1.calls, 1);
	CU_ASSERT_EQUAL(d1.status, 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	CU_ASSERT_EQUAL(nvmf_ctrl_reconnects(F.ctrl), 1);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 1, buf), 0);
	lpf_teardown(&F);
}

/* nvmf_reconnect failing (the target is gone) leaves the controller LOST: commands fail
 * at once instead of waiting for attempts nobody makes; a later one that works revives
 * it. */
static void failed_explicit_reconnect_leaves_the_controller_lost(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	uint8_t buf[512];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 1, buf), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_NOT_EQUAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LOST);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(nvmf_io_queue(F.ctrl, 0), 1, 0, 1, buf, lpf_done_cb, &d),
			-ENODEV);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	CU_ASSERT_EQUAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 1, buf), 0);
	lpf_teardown(&F);
}

/* state_cb is "told each state the controller enters" (nvmf.h): after ctrl_loss_tmo_ms
 * the controller is lost (told), and the program's nvmf_reconnect makes it live again,
 * which state_cb is told too (within a second: it runs on the controller thread). */
static void explicit_reconnect_after_ctrl_loss_tells_state_cb_live(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	o.ctrl_loss_tmo_ms = 300;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	uint8_t buf[512];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 1, buf), 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_port_remove(F.lh, 1), 0);
	CU_ASSERT_FATAL(wait_state(NVMF_CTRL_LOST));
	CU_ASSERT(wait_told(&st, NVMF_CTRL_LOST));
	CU_ASSERT_EQUAL_FATAL(loop_host_port_add(F.lh, 1), 0);
	CU_ASSERT_EQUAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	CU_ASSERT(wait_told(&st, NVMF_CTRL_LIVE));
	lpf_teardown(&F);
}

/* A callback that submits again when its command failed. */
struct resubmit {
	struct nvmf_queue *q;
	uint8_t buf[512];
	int calls, accepted;
};

static void resubmit_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	(void)status;
	struct resubmit *r = arg;
	r->calls++;
	if (r->calls < 3 && !nvmf_submit_read(r->q, 1, 0, 1, r->buf, resubmit_cb, r))
		r->accepted++;
}

/* nvmf_disconnect with commands outstanding whose callbacks submit again: every command
 * accepted gets its callback, none after nvmf_disconnect returns. */
static void disconnect_runs_every_accepted_commands_callback(void)
{
	lpf_target(&F, NULL);
	struct states st = { 0 };
	struct nvmf_ctrl_opts o = auto_opts(&st);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct resubmit r = { .q = nvmf_io_queue(F.ctrl, 0) };
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 1, r.buf), 0);
	loop_host_hold(F.lh, true);
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(r.q, 1, 0, 1, r.buf, resubmit_cb, &r), 0);
	r.accepted = 1;
	nvmf_disconnect(F.ctrl); /* the read still unanswered */
	F.ctrl = NULL;
	CU_ASSERT_EQUAL(r.calls, r.accepted);
	loop_host_hold(F.lh, false);
	lpf_teardown(&F);
}

/* The state names. */
static void state_names(void)
{
	CU_ASSERT_STRING_EQUAL(nvmf_ctrl_state_str(NVMF_CTRL_LIVE), "live");
	CU_ASSERT_STRING_EQUAL(nvmf_ctrl_state_str(NVMF_CTRL_CONNECTING), "connecting");
	CU_ASSERT_STRING_EQUAL(nvmf_ctrl_state_str(NVMF_CTRL_LOST), "lost");
	CU_ASSERT_STRING_EQUAL(nvmf_ctrl_state_str(7), "unknown");
}

const struct unit_test initiator_recovery_tests[] = {
	{ "target_restarted_reconnects_and_resends_reads_and_writes",
	  target_restarted_reconnects_and_resends_reads_and_writes },
	{ "lost_connection_resends_the_read_and_fails_the_fused_pair",
	  lost_connection_resends_the_read_and_fails_the_fused_pair },
	{ "timed_out_read_is_sent_again_after_the_reset",
	  timed_out_read_is_sent_again_after_the_reset },
	{ "ctrl_loss_tmo_fails_everything_with_enodev",
	  ctrl_loss_tmo_fails_everything_with_enodev },
	{ "fast_io_fail_fails_waiting_commands_and_keeps_reconnecting",
	  fast_io_fail_fails_waiting_commands_and_keeps_reconnecting },
	{ "fast_io_fail_and_ctrl_loss_tmo_bound_a_hanging_attempt",
	  fast_io_fail_and_ctrl_loss_tmo_bound_a_hanging_attempt },
	{ "keep_alive_loss_reconnects", keep_alive_loss_reconnects },
	{ "reconnect_authenticates_again", reconnect_authenticates_again },
	{ "two_io_threads_ride_through_two_target_restarts",
	  two_io_threads_ride_through_two_target_restarts },
	{ "a_queue_of_the_old_association_does_not_reset_the_new_one",
	  a_queue_of_the_old_association_does_not_reset_the_new_one },
	{ "explicit_reconnect_after_ctrl_loss_tells_state_cb_live",
	  explicit_reconnect_after_ctrl_loss_tells_state_cb_live },
	{ "failed_explicit_reconnect_leaves_the_controller_lost",
	  failed_explicit_reconnect_leaves_the_controller_lost },
	{ "disconnect_runs_every_accepted_commands_callback",
	  disconnect_runs_every_accepted_commands_callback },
	{ "state_names", state_names },
	{ NULL, NULL },
};
