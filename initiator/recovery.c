/* SPDX-License-Identifier: MIT */
/*
 * Recovery of a controller's queues after its association ended (a lost connection, a
 * failed Keep Alive, a command timeout): the Linux host's error recovery, split between
 * threads so that no queue is touched by a thread that does not own it.
 *
 *   - Anyone may end the association (nvmfh_ctrl_request_reset): the controller's word
 *     moves to CONNECTING (automatic reconnect) or LOST, and the controller thread
 *     (ctrl.c) disconnects the admin queue and, with automatic reconnect, builds a new
 *     association after reconnect_delay_ms, every reconnect_delay_ms until
 *     ctrl_loss_tmo_ms. A new association bumps the word's generation (release).
 *   - Each I/O queue's owner sees the word change at its next submit or poll (one
 *     acquire load) and catches up there (nvmfh_queue_recover): it disconnects its old
 *     connection, holds the commands that may be sent again and fails the others, and
 *     once the word is LIVE again connects its queue to the new association (blocking,
 *     up to timeout_ms) and sends what it holds.
 * Without automatic reconnect (ctrl_loss_tmo_ms 0) a queue whose connection is lost
 * fails its commands at once, as before; a reset (a timeout) makes the controller LOST.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"

bool nvmfh_retriable(const struct nvmfh_slot *s)
{
	if (s->cmd.sqe.flags & 3) /* FUSE: half of a pair, which cannot be sent alone */
		return false;
	switch (s->cmd.sqe.opcode) {
	case nvme_cmd_flush:
	case nvme_cmd_write:
	case nvme_cmd_read:
	case nvme_cmd_compare:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_dsm:
	case nvme_cmd_verify:
	case nvme_cmd_copy:
		return true; /* the same outcome when executed twice */
	default:
		return false;
	}
}

static void publish(struct nvmf_ctrl *c, unsigned word)
{
	atomic_store_explicit(&c->word, word, memory_order_release);
}

void nvmfh_ctrl_request_reset_locked(struct nvmf_ctrl *c, unsigned word, const char *why,
				     bool same_loss)
{
	unsigned w = atomic_load(&c->word);
	/* Only the association the requester knows, and only once: a queue of an older one
	 * must not end the new one, and the first cause stays. */
	if (w != word || (w & 3) != NVMF_CTRL_LIVE)
		return;
	snprintf(c->reset_why, sizeof(c->reset_why), "%s", why);
	uint64_t now = nvmf_mono_ms();
	/* A new association that could not take its I/O queues back continues the loss it
	 * was to end: ctrl_loss_tmo counts from the first. */
	if (!same_loss || !atomic_load(&c->lost_ms))
		atomic_store(&c->lost_ms, now);
	c->next_attempt_ms = now + c->opts.reconnect_delay_ms;
	atomic_store(&c->fast_failed, false);
	publish(c, (w & ~3u) | (c->auto_reconnect ? NVMF_CTRL_CONNECTING : NVMF_CTRL_LOST));
	pthread_cond_signal(&c->ka_cond);
}

void nvmfh_ctrl_request_reset(struct nvmf_ctrl *c, unsigned word, const char *why, bool same_loss)
{
	pthread_mutex_lock(&c->ka_lock);
	nvmfh_ctrl_request_reset_locked(c, word, why, same_loss);
	pthread_mutex_unlock(&c->ka_lock);
}

int nvmfh_ctrl_waiting_fate(struct nvmf_ctrl *c)
{
	uint64_t lost = atomic_load(&c->lost_ms), now = nvmf_mono_ms();
	if (c->opts.ctrl_loss_tmo_ms > 0 && now >= lost + (uint64_t)c->opts.ctrl_loss_tmo_ms)
		return -ENODEV;
	if (atomic_load(&c->fast_failed) || (c->opts.fast_io_fail_tmo_ms > 0 &&
					     now >= lost + (uint64_t)c->opts.fast_io_fail_tmo_ms))
		return -ECONNRESET;
	return 0;
}

void nvmfh_ctrl_lost_why(struct nvmf_ctrl *c, char *out, size_t len)
{
	pthread_mutex_lock(&c->ka_lock);
	const char *why = c->reset_why[0] ? c->reset_why : "the controller was reset";
	if (strstr(why, "not reconnected within") || c->opts.ctrl_loss_tmo_ms <= 0)
		snprintf(out, len, "%s", why);
	else
		snprintf(out, len, "%s; not reconnected within ctrl_loss_tmo_ms %d ms%s%s%s", why,
			 c->opts.ctrl_loss_tmo_ms, c->attempt_why[0] ? " (last attempt: " : "",
			 c->attempt_why, c->attempt_why[0] ? ")" : "");
	pthread_mutex_unlock(&c->ka_lock);
}

/* What ended the association, for a queue's lost_why. */
static void reset_reason(struct nvmf_ctrl *c, char *out, size_t len)
{
	pthread_mutex_lock(&c->ka_lock);
	snprintf(out, len, "%s", c->reset_why[0] ? c->reset_why : "the controller was reset");
	pthread_mutex_unlock(&c->ka_lock);
}

/* @q's connection belongs to an ended association: name why in its lost_why (no
 * callback runs here: the next poll fails or holds its commands). */
static void mark_stale(struct nvmf_queue *q)
{
	if (q->lost || !nvmfh_queue_stale(q))
		return;
	char why[NVMFH_LOST_WHY_MAX];
	reset_reason(q->hq.ctrl, why, sizeof(why));
	nvmfh_queue_lost(q, "%s", why);
}

int nvmfh_queue_may_hold(struct nvmf_queue *q)
{
	struct nvmf_ctrl *c = q->hq.ctrl;
	int rc = 0;
	unsigned st = atomic_load_explicit(&c->word, memory_order_acquire) & 3;
	if (!q->hq.qid || !c->auto_reconnect)
		rc = -ECONNRESET;
	else if (st == NVMF_CTRL_LOST)
		rc = -ENODEV;
	else if (st == NVMF_CTRL_CONNECTING)
		rc = nvmfh_ctrl_waiting_fate(c);
	if (rc == -ENODEV)
		nvmfh_ctrl_lost_why(c, q->lost_why, sizeof(q->lost_why));
	else if (rc)
		mark_stale(q);
	return rc;
}

/* Complete slot @cid with @err (the one that timed out with -ETIMEDOUT). */
static void fail_slot(struct nvmf_queue *q, uint16_t cid, int err)
{
	struct nvmfh_slot *s = &q->slots[cid];
	nvmf_io_cb cb = s->cb;
	void *arg = s->arg, *owned = s->owned;
	if (s->timed_out)
		err = -ETIMEDOUT;
	s->owned = NULL;
	nvmfh_queue_put_cid(q, cid);
	if (cb)
		cb(arg, err, NULL);
	free(owned);
}

/* After the connection went: hold what may be sent again, fail the rest. */
static int hold_or_fail(struct nvmf_queue *q)
{
	int n = 0;
	for (unsigned cid = 0; cid < q->hq.size; cid++) {
		struct nvmfh_slot *s = &q->slots[cid];
		if (!s->busy || s->held)
			continue;
		if (nvmfh_retriable(s) && s->retries < NVMFH_MAX_RETRIES) {
			s->held = true;
			s->retries++;
			q->nr_held++;
			continue;
		}
		fail_slot(q, (uint16_t)cid, nvmfh_retriable(s) ? -ECONNRESET : NVMF_ERR_RESET);
		n++;
	}
	return n;
}

void nvmfh_queue_fail_sent(struct nvmf_queue *q, int err)
{
	for (unsigned cid = 0; cid < q->hq.size; cid++)
		if (q->slots[cid].busy && !q->slots[cid].held)
			fail_slot(q, (uint16_t)cid, err);
}

/* Fail every held command with @err. */
static int fail_held(struct nvmf_queue *q, int err)
{
	int n = 0;
	for (unsigned cid = 0; cid < q->hq.size && q->nr_held; cid++)
		if (q->slots[cid].busy && q->slots[cid].held) {
			fail_slot(q, (uint16_t)cid, err);
			n++;
		}
	nvmfh_io_fail_pending(q, err);
	return n;
}

/* Send what @q holds on its (new) connection. Returns the callbacks run. */
static int send_held(struct nvmf_queue *q)
{
	int n = 0;
	for (unsigned cid = 0; cid < q->hq.size && q->nr_held; cid++) {
		struct nvmfh_slot *s = &q->slots[cid];
		if (!s->busy || !s->held)
			continue;
		s->cmd.tctx = NULL;
		s->sent_ms = nvmf_mono_coarse_ms();
		int rc = q->hq.t->submit(&q->hq, &s->cmd);
		if (rc == -EAGAIN)
			break; /* the transport's slots: the next poll goes on */
		if (rc == -ECONNRESET) {
			nvmfh_queue_transport_lost(q);
			break;
		}
		if (rc) {
			fail_slot(q, (uint16_t)cid, rc);
			n++;
			continue;
		}
		s->held = false;
		s->abort_sent = s->timed_out = false; /* a new chance */
		q->nr_held--;
	}
	return n;
}

bool nvmfh_retry_aborted(struct nvmf_queue *q, uint16_t cid)
{
	struct nvmfh_slot *s = &q->slots[cid];
	/* I/O queues only: admin opcodes share values with the I/O ones (0Ch is both
	 * Asynchronous Event Request and Verify). */
	if (!q->hq.qid || !nvmfh_retriable(s) || s->retries >= NVMFH_MAX_RETRIES)
		return false;
	s->held = true;
	s->retries++;
	q->nr_held++;
	return true;
}

int nvmfh_queue_recover(struct nvmf_queue *q, bool *ready)
{
	struct nvmf_ctrl *c = q->hq.ctrl;
	*ready = false;
	if (q->connecting) { /* its own Connect polls: nothing to recover yet */
		*ready = true;
		return 0;
	}
	unsigned w = atomic_load_explicit(&c->word, memory_order_acquire);
	bool stale = q->hq.qid && w != q->live_word;
	if (!q->hq.qid || !c->auto_reconnect) {
		mark_stale(q);
		if (q->lost) {
			nvmfh_queue_abort(q, -ECONNRESET);
			return -ECONNRESET;
		}
		*ready = true;
		return send_held(q); /* aborted commands sent again */
	}
	int n = 0;
	if (q->connected && (q->lost || stale)) {
		n += nvmfh_queue_deliver(q); /* what arrived before, as it came */
		q->hq.t->queue_disconnect(&q->hq);
		q->connected = false;
		if (q->lost) {
			/* Its own connection failed: the association is reset as a whole, as the
			 * Linux host does for an error on any queue (if it is still the one this
			 * queue belonged to). */
			char why[NVMFH_LOST_WHY_MAX + 32];
			snprintf(why, sizeof(why), "I/O queue %u: %s", q->hq.qid, q->lost_why);
			nvmfh_ctrl_request_reset(c, q->live_word, why, false);
		} else {
			mark_stale(q);
		}
		n += hold_or_fail(q);
		w = atomic_load_explicit(&c->word, memory_order_acquire);
	}
	if (!q->connected)
		q->lost = true; /* submit holds, poll comes back here */
	switch (w & 3) {
	case NVMF_CTRL_LOST:
		nvmfh_ctrl_lost_why(c, q->lost_why, sizeof(q->lost_why));
		fail_held(q, -ENODEV);
		return -ENODEV;
	case NVMF_CTRL_CONNECTING:
		/* Decided by the clock: the controller thread may be in a long attempt. */
		switch (nvmfh_ctrl_waiting_fate(c)) {
		case -ENODEV:
			nvmfh_ctrl_lost_why(c, q->lost_why, sizeof(q->lost_why));
			fail_held(q, -ENODEV);
			return -ENODEV;
		case -ECONNRESET:
			n += fail_held(q, -ECONNRESET);
			break;
		}
		return n;
	default:
		break;
	}
	if (!q->connected || w != q->live_word) {
		if (nvmfh_io_queue_reconnect(c, q, w)) {
			char why[NVMFH_LOST_WHY_MAX + 32];
			snprintf(why, sizeof(why), "I/O queue %u: %s", q->hq.qid, q->lost_why);
			nvmfh_ctrl_request_reset(c, w, why, true);
			return n;
		}
	}
	n += send_held(q);
	*ready = q->connected && !q->lost;
	return n;
}
