/* SPDX-License-Identifier: MIT */
/*
 * Per-queue command table: command_id allocation, completion delivery, connection loss.
 *
 * Command ids are 0..size-1 and index the slot table. At most size-1 commands are
 * outstanding: with SQ flow control the host must never fill the controller's SQ
 * (NVMe-oF 1.1 section 2.4.1: a full queue holds size-1 entries), so the next one gets
 * -EAGAIN. Completions reported by the transport (nvmf_hq_complete) are only recorded;
 * callbacks run after the transport's poll returned, so a callback may submit again
 * without re-entering the transport.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "initiator/internal.h"

int nvmfh_queue_setup(struct nvmf_queue *q, struct nvmf_ctrl *c, uint16_t qid, uint16_t size)
{
	if (size < 2)
		return -EINVAL;
	struct nvmfh_slot *slots = calloc(size, sizeof(*slots));
	uint16_t *free_cids = calloc(size, sizeof(*free_cids));
	uint16_t *done = calloc(size, sizeof(*done));
	if (!slots || !free_cids || !done) {
		free(slots);
		free(free_cids);
		free(done);
		return -ENOMEM;
	}
	nvmfh_queue_release(q);
	memset(q, 0, sizeof(*q));
	q->hq.ctrl = c;
	q->hq.t = c->t;
	q->hq.qid = qid;
	q->hq.size = size;
	q->hq.core = q;
	q->slots = slots;
	q->free_cids = free_cids;
	q->done = done;
	/* Lowest ids on top of the stack: the first command gets id 0. */
	for (unsigned i = 0; i < size; i++)
		free_cids[i] = (uint16_t)(size - 1 - i);
	q->nr_free = size;
	if (qid && c->opts.io_timeout_ms > 0)
		q->io_timeout_ms = c->opts.io_timeout_ms;
	return 0;
}

void nvmfh_queue_release(struct nvmf_queue *q)
{
	if (q->slots)
		for (unsigned i = 0; i < q->hq.size; i++)
			free(q->slots[i].owned);
	free(q->slots);
	free(q->free_cids);
	free(q->done);
	q->slots = NULL;
	q->free_cids = NULL;
	q->done = NULL;
	q->nr_free = 0;
}

void nvmfh_queue_lost(struct nvmf_queue *q, const char *fmt, ...)
{
	q->lost = true;
	if (q->lost_why[0])
		return; /* the first cause stays: what follows is its consequence */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(q->lost_why, sizeof(q->lost_why), fmt, ap);
	va_end(ap);
}

void nvmfh_queue_transport_lost(struct nvmf_queue *q)
{
	const char *why = q->hq.t->queue_error ? q->hq.t->queue_error(&q->hq) : NULL;
	nvmfh_queue_lost(q, "%s", why && *why ? why : "the connection was lost");
}

void nvmfh_queue_put_cid(struct nvmf_queue *q, uint16_t cid)
{
	struct nvmfh_slot *s = &q->slots[cid];
	free(s->owned);
	if (s->held)
		q->nr_held--;
	memset(s, 0, sizeof(*s));
	q->free_cids[q->nr_free++] = cid;
	q->outstanding--;
}

int nvmfh_queue_submit(struct nvmf_queue *q, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		       bool write, nvmf_io_cb cb, void *arg, uint16_t *cid_out)
{
	bool hold = false;
	if (!q->slots)
		return -ECONNRESET;
	/* A connecting queue's Connect and authentication commands (Fabrics) go out at once;
	 * anything else waits for it like any command of a queue being reconnected. */
	bool conn = __builtin_expect(q->connecting, 0) && sqe->opcode == nvme_admin_fabrics;
	if (__builtin_expect(q->lost || nvmfh_queue_stale(q), 0) && !conn) {
		/* The connection is gone or belongs to an ended association: with automatic
		 * reconnect the command waits for the new one (recovery.c); never half of a
		 * fused pair, whose halves must go out together. */
		int rc = sqe->flags & 3 ? -ECONNRESET : nvmfh_queue_may_hold(q);
		if (rc)
			return rc;
		hold = true;
	}
	if (len && !buf)
		return -EINVAL;
	/* One entry always stays free: size-1 outstanding at most (SQ flow control). A
	 * reconnecting queue's Connect goes out before the commands it holds. */
	if ((q->outstanding + 1 >= q->hq.size && !conn) || !q->nr_free)
		return -EAGAIN;
	uint16_t cid = q->free_cids[--q->nr_free];
	struct nvmfh_slot *s = &q->slots[cid];
	memset(s, 0, sizeof(*s));
	s->cmd.sqe = *sqe;
	s->cmd.sqe.command_id = cid;
	s->cmd.buf = len ? buf : NULL;
	s->cmd.len = len;
	s->cmd.write = write;
	s->cb = cb;
	s->arg = arg;
	s->busy = true;
	q->outstanding++;
	if (hold) {
		s->held = true;
		q->nr_held++;
		if (cid_out)
			*cid_out = cid;
		return 0;
	}
	if (q->io_timeout_ms)
		s->sent_ms = nvmf_mono_coarse_ms();
	int rc = q->hq.t->submit(&q->hq, &s->cmd);
	if (rc == -ECONNRESET && !conn) {
		nvmfh_queue_transport_lost(q);
		if (!(sqe->flags & 3) && !nvmfh_queue_may_hold(q)) { /* waits for the new one */
			s->held = true;
			q->nr_held++;
			rc = 0;
		}
	}
	if (rc) {
		nvmfh_queue_put_cid(q, cid);
		return rc;
	}
	if (cid_out)
		*cid_out = cid;
	return 0;
}

void nvmf_hq_complete(struct nvmf_hq *hq, const struct nvme_cqe *cqe)
{
	struct nvmf_queue *q = hq->core;
	uint16_t cid = cqe->command_id;
	/* A CQE for no outstanding command (a confused target) is dropped. */
	if (cid >= hq->size || !q->slots[cid].busy || q->nr_done >= hq->size)
		return;
	q->slots[cid].cqe = *cqe;
	q->done[q->nr_done++] = cid;
}

struct nvmf_hcmd *nvmf_hq_cmd_by_cid(struct nvmf_hq *hq, uint16_t cid)
{
	struct nvmf_queue *q = hq->core;
	if (!q->slots || cid >= hq->size || !q->slots[cid].busy)
		return NULL;
	return &q->slots[cid].cmd;
}

int nvmfh_queue_deliver(struct nvmf_queue *q)
{
	int n = 0;
	while (q->done_head < q->nr_done) {
		uint16_t cid = q->done[q->done_head++];
		struct nvmfh_slot *s = &q->slots[cid];
		nvmf_io_cb cb = s->cb;
		void *arg = s->arg, *owned = s->owned;
		struct nvme_cqe cqe = s->cqe;
		int status = le16toh(cqe.status) >> 1;
		/* Aborted (Command Abort Requested, no DNR): sent again when it may be. */
		if (__builtin_expect(status == NVME_SC_ABORT_REQ, 0) && nvmfh_retry_aborted(q, cid))
			continue;
		s->owned = NULL;
		nvmfh_queue_put_cid(q, cid);
		if (cb)
			cb(arg, status, &cqe);
		free(owned);
		n++;
	}
	q->nr_done = q->done_head = 0;
	return n;
}

void nvmfh_queue_fail_all(struct nvmf_queue *q, int err)
{
	nvmfh_queue_lost(q, "%s", nvmf_strerror(err));
	if (!q->slots)
		return;
	/* What did arrive is delivered as it came; the rest fails. */
	nvmfh_queue_deliver(q);
	for (unsigned cid = 0; cid < q->hq.size; cid++) {
		struct nvmfh_slot *s = &q->slots[cid];
		if (!s->busy)
			continue;
		nvmf_io_cb cb = s->cb;
		void *arg = s->arg, *owned = s->owned;
		int why = s->timed_out ? -ETIMEDOUT : err; /* the one that timed out says so */
		s->owned = NULL;
		nvmfh_queue_put_cid(q, (uint16_t)cid);
		if (cb)
			cb(arg, why, NULL);
		free(owned);
	}
	nvmfh_io_fail_pending(q, err);
}

void nvmfh_queue_abort(struct nvmf_queue *q, int err)
{
	/* The connection first: no data may move for a command after it was failed. */
	if (q->connected)
		q->hq.t->queue_disconnect(&q->hq);
	q->connected = false;
	nvmfh_queue_fail_all(q, err);
}

int nvmfh_queue_poll(struct nvmf_queue *q, unsigned max)
{
	int n = 0;
	if (__builtin_expect(q->lost || q->nr_held || nvmfh_queue_stale(q), 0)) {
		bool ready = false;
		n = nvmfh_queue_recover(q, &ready);
		if (n < 0 || !ready)
			return n;
	}
	int rc = q->hq.t->poll(&q->hq, max);
	n += nvmfh_queue_deliver(q);
	if (rc < 0) {
		nvmfh_queue_transport_lost(q);
		if (q->hq.qid && q->hq.ctrl->auto_reconnect) {
			if (q->connecting) { /* its Connect fails; what it holds waits */
				nvmfh_queue_fail_sent(q, -ECONNRESET);
				return -ECONNRESET;
			}
			bool ready;
			int r = nvmfh_queue_recover(q, &ready); /* holds what may be sent again */
			return r < 0 ? r : n + r;
		}
		nvmfh_queue_fail_all(q, -ECONNRESET);
		return -ECONNRESET;
	}
	if (__builtin_expect(q->connecting, 0))
		return n; /* its Connect's own poll: no split parts, no timeouts yet */
	if (q->io_timeout_ms && q->outstanding) {
		uint64_t now = nvmf_mono_coarse_ms();
		if (now >= q->next_tmo_scan)
			nvmfh_queue_check_timeouts(q, now);
	}
	if (q->pending)
		nvmfh_io_pump(q);
	return n;
}

int nvmf_queue_poll(struct nvmf_queue *q, unsigned max)
{
	if (!q)
		return -EINVAL;
	return nvmfh_queue_poll(q, max);
}

const char *nvmf_queue_errmsg(const struct nvmf_queue *q)
{
	return q ? q->lost_why : "";
}

unsigned nvmf_queue_outstanding(const struct nvmf_queue *q)
{
	return q ? q->outstanding : 0;
}

int nvmf_queue_wait(struct nvmf_queue *q, int timeout_ms)
{
	if (!q)
		return -EINVAL;
	int n = nvmfh_queue_poll(q, 0);
	if (n)
		return n;
	if (!q->connected || q->lost || q->nr_held) {
		/* Reconnecting (recovery.c): no connection to sleep on, only time. */
		int ms = timeout_ms < 10 ? timeout_ms : 10;
		if (ms > 0)
			usleep((useconds_t)ms * 1000u);
		return nvmfh_queue_poll(q, 0);
	}
	int rc = q->hq.t->wait(&q->hq, timeout_ms);
	if (rc == -ECONNRESET) {
		nvmfh_queue_transport_lost(q);
		if (q->hq.qid && q->hq.ctrl->auto_reconnect)
			return nvmfh_queue_poll(q, 0); /* holds what may be sent again */
		nvmfh_queue_fail_all(q, -ECONNRESET);
		return rc;
	}
	return nvmfh_queue_poll(q, 0);
}

struct exec_wait {
	bool done;
	int status;
	struct nvme_cqe cqe;
	void *buf, *bounce; /* read data is copied from bounce to buf on success */
	uint32_t len;
	bool write;
};

/* Runs before the slot's bounce buffer is freed. */
static void exec_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct exec_wait *w = arg;
	w->done = true;
	w->status = status;
	if (cqe)
		w->cqe = *cqe;
	if (!status && !w->write && w->len)
		memcpy(w->buf, w->bounce, w->len);
}

/* "Keep Alive" or "admin command 0x06" / "command 0x02", for the timeout's reason. */
static const char *command_name(const struct nvmf_queue *q, const struct nvme_sqe *sqe)
{
	static __thread char name[32];
	if (!q->hq.qid && sqe->opcode == nvme_admin_keep_alive)
		return "Keep Alive";
	snprintf(name, sizeof(name), "%scommand 0x%02x", q->hq.qid ? "" : "admin ", sqe->opcode);
	return name;
}

int nvmfh_queue_exec(struct nvmf_queue *q, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		     bool write, struct nvme_cqe *cqe, int timeout_ms)
{
	struct exec_wait w = { .buf = buf, .len = len, .write = write };
	void *bounce = NULL;
	uint16_t cid;
	int rc;

	if (len) {
		bounce = malloc(len);
		if (!bounce)
			return -ENOMEM;
		if (write)
			memcpy(bounce, buf, len);
		else
			memset(bounce, 0, len);
	}
	w.bounce = bounce;
	rc = nvmfh_queue_submit(q, sqe, bounce, len, write, exec_done, &w, &cid);
	if (rc) {
		free(bounce);
		return rc;
	}
	q->slots[cid].owned = bounce; /* freed with the slot, whatever happens */
	uint64_t deadline = nvmf_mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	while (!w.done) {
		rc = nvmfh_queue_poll(q, 0);
		if (w.done)
			break;
		if (rc < 0)
			return rc;
		uint64_t now = nvmf_mono_ms();
		if (now >= deadline) {
			/* Abandon the command: its late CQE, if any, is dropped. */
			q->slots[cid].cb = NULL;
			nvmfh_queue_lost(q,
					 "%s timed out after %d ms (the controller's state is "
					 "unknown)",
					 command_name(q, sqe), timeout_ms);
			return -ETIMEDOUT;
		}
		if (rc == 0) {
			uint64_t left = deadline - now;
			q->hq.t->wait(&q->hq, left < 10 ? (int)left : 10);
		}
	}
	if (cqe)
		*cqe = w.cqe;
	return w.status;
}
