/* libnvmf's per-queue command table (initiator/queue.c) on a scripted host transport:
 * command ids from 0 with one entry always free (SQ flow control, NVMe-oF 1.1 section
 * 2.4.1), completions delivered after the transport's poll, stray CQEs dropped, a lost
 * connection failing every command once with the first reason kept, exec's private copy
 * and its timeout naming the command. */
#include <CUnit/CUnit.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "tests/unit/suites.h"

/* The scripted transport's state (hq.tpriv). */
struct fake {
	int submit_rc;     /* what submit returns */
	int poll_rc;       /* what poll returns */
	bool complete_now; /* submit completes the command at once (status 0) */
	const char *why;   /* queue_error's answer */
	uint8_t fill;      /* complete_now: a read's data is this byte */
	unsigned submits, disconnects;
	struct nvmf_hcmd last; /* the last command submitted */
	const void *last_buf;
};

static int f_submit(struct nvmf_hq *hq, struct nvmf_hcmd *cmd)
{
	struct fake *f = hq->tpriv;
	f->submits++;
	f->last = *cmd;
	f->last_buf = cmd->buf;
	if (f->submit_rc)
		return f->submit_rc;
	if (f->complete_now) {
		if (!cmd->write && cmd->len)
			memset(cmd->buf, f->fill, cmd->len);
		struct nvme_cqe cqe = { .command_id = cmd->sqe.command_id };
		nvmf_hq_complete(hq, &cqe);
	}
	return 0;
}

static int f_poll(struct nvmf_hq *hq, unsigned max)
{
	(void)max;
	return ((struct fake *)hq->tpriv)->poll_rc;
}

static int f_wait(struct nvmf_hq *hq, int timeout_ms)
{
	(void)hq;
	(void)timeout_ms;
	return 0;
}

static void f_disconnect(struct nvmf_hq *hq)
{
	((struct fake *)hq->tpriv)->disconnects++;
}

static const char *f_error(struct nvmf_hq *hq)
{
	return ((struct fake *)hq->tpriv)->why;
}

static const struct nvmf_host_transport fake_transport = {
	.name = "fake",
	.queue_disconnect = f_disconnect,
	.submit = f_submit,
	.poll = f_poll,
	.wait = f_wait,
	.queue_error = f_error,
};

/* A queue of @size entries on the fake transport @f (the controller: calloc'd in *c). */
static void setup(struct nvmf_queue *q, struct nvmf_ctrl **c, struct fake *f, uint16_t qid,
		  uint16_t size)
{
	memset(q, 0, sizeof(*q));
	memset(f, 0, sizeof(*f));
	*c = calloc(1, sizeof(**c));
	CU_ASSERT_PTR_NOT_NULL_FATAL(*c);
	(*c)->t = &fake_transport;
	CU_ASSERT_EQUAL_FATAL(nvmfh_queue_setup(q, *c, qid, size), 0);
	q->hq.tpriv = f;
}

static void teardown(struct nvmf_queue *q, struct nvmf_ctrl *c)
{
	nvmfh_queue_release(q);
	free(c);
}

/* Completion record of one command. */
struct done {
	unsigned calls;
	int status;
	bool had_cqe;
};

static void done_cb(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct done *d = arg;
	d->calls++;
	d->status = status;
	d->had_cqe = cqe != NULL;
}

static const struct nvme_sqe read_sqe = { .opcode = 0x02, .nsid = 1 };

/* CQE for @cid with status field @sf (without the phase bit). */
static void complete(struct nvmf_queue *q, uint16_t cid, uint16_t sf)
{
	struct nvme_cqe cqe = { .command_id = cid, .status = htole16((uint16_t)(sf << 1 | 1)) };
	nvmf_hq_complete(&q->hq, &cqe);
}

static void setup_refuses_a_queue_of_one_entry(void)
{
	struct nvmf_queue q = { 0 };
	struct nvmf_ctrl c = { .t = &fake_transport };
	CU_ASSERT_EQUAL(nvmfh_queue_setup(&q, &c, 1, 1), -EINVAL);
	CU_ASSERT_PTR_NULL(q.slots);
	/* A queue never set up takes no command. */
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, NULL, NULL, NULL),
			-ECONNRESET);
}

/* Moved here from initiator/io's full_queue_returns_eagain, on the rule's own source. */
static void command_ids_start_at_zero_and_one_entry_always_stays_free(void)
{
	struct nvmf_queue q;
	struct nvmf_ctrl *c;
	struct fake f;
	struct done d[4] = { 0 };
	uint16_t cid = 99;
	setup(&q, &c, &f, 1, 4);
	for (uint16_t i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(
			nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, done_cb, &d[i], &cid), 0);
		CU_ASSERT_EQUAL(cid, i);
		CU_ASSERT_EQUAL(f.last.sqe.command_id, i); /* the SQE carries its id */
	}
	/* size-1 outstanding: the controller's SQ must never be overrun. */
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, done_cb, &d[3], NULL),
			-EAGAIN);
	CU_ASSERT_EQUAL(f.submits, 3);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&q), 3);
	/* A completion is only recorded until the poll: then its id is free again. */
	complete(&q, 1, 0);
	CU_ASSERT_EQUAL(d[1].calls, 0);
	CU_ASSERT_EQUAL(nvmf_queue_poll(&q, 0), 1);
	CU_ASSERT_EQUAL(d[1].calls, 1);
	CU_ASSERT_EQUAL(d[1].status, 0);
	CU_ASSERT_TRUE(d[1].had_cqe);
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, done_cb, &d[3], &cid), 0);
	CU_ASSERT_EQUAL(cid, 1);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&q), 3);
	teardown(&q, c);
}

static void the_status_is_the_cqes_without_the_phase_bit(void)
{
	struct nvmf_queue q;
	struct nvmf_ctrl *c;
	struct fake f;
	struct done d = { 0 };
	setup(&q, &c, &f, 1, 8);
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, done_cb, &d, NULL), 0);
	complete(&q, 0, NVME_SC_LBA_RANGE);
	CU_ASSERT_EQUAL(nvmf_queue_poll(&q, 0), 1);
	CU_ASSERT_EQUAL(d.status, NVME_SC_LBA_RANGE);
	teardown(&q, c);
}

static void a_cqe_for_no_outstanding_command_is_dropped(void)
{
	struct nvmf_queue q;
	struct nvmf_ctrl *c;
	struct fake f;
	struct done d = { 0 };
	setup(&q, &c, &f, 1, 8);
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, done_cb, &d, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(nvmf_hq_cmd_by_cid(&q.hq, 0));
	CU_ASSERT_PTR_NULL(nvmf_hq_cmd_by_cid(&q.hq, 1)); /* free */
	CU_ASSERT_PTR_NULL(nvmf_hq_cmd_by_cid(&q.hq, 8)); /* beyond the queue */
	complete(&q, 1, 0);
	complete(&q, 500, 0);
	CU_ASSERT_EQUAL(nvmf_queue_poll(&q, 0), 0);
	CU_ASSERT_EQUAL(d.calls, 0);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&q), 1);
	teardown(&q, c);
}

static void transport_refusals_give_the_id_back(void)
{
	struct nvmf_queue q;
	struct nvmf_ctrl *c;
	struct fake f;
	uint8_t buf[8];
	setup(&q, &c, &f, 1, 8);
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 8, false, NULL, NULL, NULL),
			-EINVAL); /* data without a buffer */
	CU_ASSERT_EQUAL(f.submits, 0);
	f.submit_rc = -EAGAIN;
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, buf, 8, false, NULL, NULL, NULL),
			-EAGAIN);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&q), 0);
	CU_ASSERT_FALSE(q.lost);
	f.submit_rc = -ECONNRESET;
	f.why = "send: Broken pipe";
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, buf, 8, false, NULL, NULL, NULL),
			-ECONNRESET);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&q), 0);
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(&q), "send: Broken pipe");
	/* Lost: nothing more reaches the transport. */
	f.submit_rc = 0;
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, buf, 8, false, NULL, NULL, NULL),
			-ECONNRESET);
	CU_ASSERT_EQUAL(f.submits, 2);
	teardown(&q, c);
}

static void a_lost_connection_fails_every_command_once_keeping_the_first_reason(void)
{
	struct nvmf_queue q;
	struct nvmf_ctrl *c;
	struct fake f;
	struct done d[2] = { 0 };
	setup(&q, &c, &f, 1, 8);
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, done_cb, &d[0], NULL), 0);
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, done_cb, &d[1], NULL), 0);
	complete(&q, 0, 0); /* arrived before the loss: delivered as it came */
	f.poll_rc = -ECONNRESET;
	f.why = NULL; /* the transport does not know why */
	CU_ASSERT_EQUAL(nvmf_queue_poll(&q, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(d[0].calls, 1);
	CU_ASSERT_EQUAL(d[0].status, 0);
	CU_ASSERT_EQUAL(d[1].calls, 1);
	CU_ASSERT_EQUAL(d[1].status, -ECONNRESET);
	CU_ASSERT_FALSE(d[1].had_cqe);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&q), 0);
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(&q), "the connection was lost");
	nvmfh_queue_lost(&q, "a later %s", "consequence");
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(&q), "the connection was lost");
	/* Polling again fails at once and calls nobody twice. */
	CU_ASSERT_EQUAL(nvmf_queue_poll(&q, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(d[1].calls, 1);
	teardown(&q, c);
}

static void abort_disconnects_before_failing_the_commands(void)
{
	struct nvmf_queue q;
	struct nvmf_ctrl *c;
	struct fake f;
	struct done d = { 0 };
	setup(&q, &c, &f, 1, 8);
	q.connected = true;
	CU_ASSERT_EQUAL(nvmfh_queue_submit(&q, &read_sqe, NULL, 0, false, done_cb, &d, NULL), 0);
	nvmfh_queue_abort(&q, -ECONNABORTED);
	CU_ASSERT_EQUAL(f.disconnects, 1);
	CU_ASSERT_FALSE(q.connected);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, -ECONNABORTED);
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(&q), nvmf_strerror(-ECONNABORTED));
	nvmfh_queue_abort(&q, -ECONNABORTED); /* not connected: no second disconnect */
	CU_ASSERT_EQUAL(f.disconnects, 1);
	teardown(&q, c);
}

static void exec_moves_data_through_a_private_copy(void)
{
	struct nvmf_queue q;
	struct nvmf_ctrl *c;
	struct fake f;
	uint8_t buf[16];
	struct nvme_cqe cqe;
	setup(&q, &c, &f, 1, 8);
	f.complete_now = true;
	f.fill = 0xa5;
	memset(buf, 0, sizeof(buf));
	CU_ASSERT_EQUAL(nvmfh_queue_exec(&q, &read_sqe, buf, sizeof(buf), false, &cqe, 1000), 0);
	CU_ASSERT_PTR_NOT_EQUAL(f.last_buf, buf);
	CU_ASSERT_EQUAL(buf[0], 0xa5);
	CU_ASSERT_EQUAL(buf[15], 0xa5);
	CU_ASSERT_EQUAL(cqe.command_id, 0);
	struct nvme_sqe wr = { .opcode = 0x01, .nsid = 1 };
	memset(buf, 0x3c, sizeof(buf));
	CU_ASSERT_EQUAL(nvmfh_queue_exec(&q, &wr, buf, sizeof(buf), true, NULL, 1000), 0);
	CU_ASSERT_PTR_NOT_EQUAL(f.last_buf, buf);
	CU_ASSERT_TRUE(f.last.write);
	CU_ASSERT_EQUAL(f.last.len, sizeof(buf));
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&q), 0);
	teardown(&q, c);
}

static void exec_that_gets_no_answer_times_out_naming_the_command(void)
{
	struct nvmf_queue q;
	struct nvmf_ctrl *c;
	struct fake f;
	uint8_t buf[8] = { 0 };
	struct nvme_sqe ka = { .opcode = nvme_admin_keep_alive };
	setup(&q, &c, &f, 0, 8); /* the admin queue */
	CU_ASSERT_EQUAL(nvmfh_queue_exec(&q, &ka, NULL, 0, false, NULL, 5), -ETIMEDOUT);
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(&q), "Keep Alive timed out after 5 ms (the "
						      "controller's state is unknown)");
	CU_ASSERT_TRUE(q.lost);
	teardown(&q, c);
	setup(&q, &c, &f, 1, 8);
	CU_ASSERT_EQUAL(nvmfh_queue_exec(&q, &read_sqe, buf, sizeof(buf), false, NULL, 5),
			-ETIMEDOUT);
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(&q), "command 0x02 timed out after 5 ms (the "
						      "controller's state is unknown)");
	/* A late answer changes nothing: its callback is gone, buf stays untouched, and the
	 * lost queue frees the command at the next poll. */
	memset(q.slots[0].cmd.buf, 0xff, sizeof(buf));
	complete(&q, 0, 0);
	CU_ASSERT_EQUAL(nvmf_queue_poll(&q, 0), -ECONNRESET);
	CU_ASSERT_EQUAL(buf[0], 0);
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(&q), 0);
	teardown(&q, c);
}

static void public_calls_without_a_queue_are_einval(void)
{
	CU_ASSERT_EQUAL(nvmf_queue_poll(NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_queue_wait(NULL, 0), -EINVAL);
	CU_ASSERT_STRING_EQUAL(nvmf_queue_errmsg(NULL), "");
	CU_ASSERT_EQUAL(nvmf_queue_outstanding(NULL), 0);
}

const struct unit_test initiator_queue_tests[] = {
	{ "setup_refuses_a_queue_of_one_entry", setup_refuses_a_queue_of_one_entry },
	{ "command_ids_start_at_zero_and_one_entry_always_stays_free",
	  command_ids_start_at_zero_and_one_entry_always_stays_free },
	{ "the_status_is_the_cqes_without_the_phase_bit",
	  the_status_is_the_cqes_without_the_phase_bit },
	{ "a_cqe_for_no_outstanding_command_is_dropped",
	  a_cqe_for_no_outstanding_command_is_dropped },
	{ "transport_refusals_give_the_id_back", transport_refusals_give_the_id_back },
	{ "a_lost_connection_fails_every_command_once_keeping_the_first_reason",
	  a_lost_connection_fails_every_command_once_keeping_the_first_reason },
	{ "abort_disconnects_before_failing_the_commands",
	  abort_disconnects_before_failing_the_commands },
	{ "exec_moves_data_through_a_private_copy", exec_moves_data_through_a_private_copy },
	{ "exec_that_gets_no_answer_times_out_naming_the_command",
	  exec_that_gets_no_answer_times_out_naming_the_command },
	{ "public_calls_without_a_queue_are_einval", public_calls_without_a_queue_are_einval },
	{ NULL, NULL },
};
