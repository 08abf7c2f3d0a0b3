/* libnvmf I/O command timeouts: a command the controller never answers is aborted, then
 * the controller is reset; the callback runs exactly once - against our target through
 * the loop host transport, which can lose chosen answers (loop_host_drop). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

static struct lpf F;

/* Without automatic reconnect: the unanswered read gets an Abort, which our target
 * answers "not aborted"; unanswered for a second period, the controller is reset: the
 * read fails once with -ETIMEDOUT, the controller is LOST, and nvmf_reconnect brings it
 * back. */
static void unanswered_read_is_aborted_then_the_controller_is_lost(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.io_timeout_ms = 200;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0); /* block size known */
	loop_host_drop(F.lh, 1, 1);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q, 1, 0, 8, buf, lpf_done_cb, &d), 0);
	lpf_wait_done(q, &d);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_abort_cmd), 1);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LOST);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_queue_errmsg(q), "not answered within io_timeout_ms "
							    "200 ms, nor 200 ms after its Abort"));
	/* Later polls and submits fail at once, and no callback runs again. */
	for (unsigned i = 0; i < 5; i++)
		nvmf_queue_poll(q, 0);
	CU_ASSERT_EQUAL(d.calls, 1);
	struct lpf_done d2 = { 0 };
	CU_ASSERT_EQUAL(nvmf_submit_read(q, 1, 0, 8, buf, lpf_done_cb, &d2), -ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	lpf_teardown(&F);
}

/* Answers that arrive in time are never aborted: many reads on a short timeout. */
static void answered_commands_are_never_aborted(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.io_timeout_ms = 100;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	uint8_t buf[4096];
	for (unsigned i = 0; i < 50; i++) {
		CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, i * 8, 8, buf), 0);
		usleep(5000); /* across several scans */
	}
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_abort_cmd), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	lpf_teardown(&F);
}

/* A negative io_timeout_ms: no timeout at all; the read waits for as long as it takes. */
static void negative_io_timeout_waits_for_ever(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.io_timeout_ms = -1;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_queue *q = nvmf_io_queue(F.ctrl, 0);
	CU_ASSERT_EQUAL(q->io_timeout_ms, 0);
	uint8_t buf[4096];
	CU_ASSERT_EQUAL_FATAL(nvmf_read(F.ctrl, 1, 0, 8, buf), 0);
	loop_host_drop(F.lh, 1, 1);
	struct lpf_done d = { 0 };
	CU_ASSERT_EQUAL_FATAL(nvmf_submit_read(q, 1, 0, 8, buf, lpf_done_cb, &d), 0);
	for (unsigned i = 0; i < 30; i++)
		nvmf_queue_wait(q, 10);
	CU_ASSERT_EQUAL(d.calls, 0);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_abort_cmd), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_state(F.ctrl), NVMF_CTRL_LIVE);
	lpf_teardown(&F); /* disconnect completes it with -ECONNABORTED */
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, -ECONNABORTED);
}

/* The defaults are the Linux host's: 30 s for I/O, 60 s for admin commands. */
static void defaults_are_the_linux_hosts(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.timeout_ms = 0; /* loop_host_opts chooses a shorter one */
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	CU_ASSERT_EQUAL(F.ctrl->opts.io_timeout_ms, 30000);
	CU_ASSERT_EQUAL(F.ctrl->opts.timeout_ms, 60000);
	CU_ASSERT_EQUAL(nvmf_io_queue(F.ctrl, 0)->io_timeout_ms, 30000);
	CU_ASSERT_FALSE(F.ctrl->auto_reconnect);
	CU_ASSERT_EQUAL(F.ctrl->opts.reconnect_delay_ms, 10000);
	nvmf_disconnect(F.ctrl);
	F.ctrl = NULL;
	/* Reconnect settings without automatic reconnect would be ignored: refused. */
	o.reconnect_delay_ms = 100;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "reconnect_delay_ms is for automatic "
							  "reconnect: set ctrl_loss_tmo_ms too"));
	o.reconnect_delay_ms = 0;
	o.fast_io_fail_tmo_ms = 100;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "fast_io_fail_tmo_ms is for"));
	/* A reconnect_delay_ms longer than ctrl_loss_tmo_ms would never try: refused. */
	o.fast_io_fail_tmo_ms = 0;
	o.ctrl_loss_tmo_ms = 3000; /* and the default reconnect_delay_ms, 10000 */
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(nvmf_last_errmsg(),
		       "reconnect_delay_ms 10000 is longer than ctrl_loss_tmo_ms 3000: "
		       "no reconnect would ever be tried"));
	o.fast_io_fail_tmo_ms = -1;
	o.reconnect_delay_ms = 1000;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "fast_io_fail_tmo_ms -1"));
	/* A port is a port (rdma and tcp): not taken modulo 65536. */
	struct nvmf_ctrl_opts t = { .trtype = "tcp", .traddr = "127.0.0.1", .trsvcid = "79956" };
	CU_ASSERT_EQUAL(nvmf_connect(&t, &F.ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(nvmf_last_errmsg(), "trsvcid '79956': not a port number (1-65535)"));
	lpf_teardown(&F);
}

const struct unit_test initiator_timeout_tests[] = {
	{ "unanswered_read_is_aborted_then_the_controller_is_lost",
	  unanswered_read_is_aborted_then_the_controller_is_lost },
	{ "answered_commands_are_never_aborted", answered_commands_are_never_aborted },
	{ "negative_io_timeout_waits_for_ever", negative_io_timeout_waits_for_ever },
	{ "defaults_are_the_linux_hosts", defaults_are_the_linux_hosts },
	{ NULL, NULL },
};
