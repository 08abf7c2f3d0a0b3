/* SPDX-License-Identifier: MIT */
/*
 * Multipath queues: submission, the path of each command, failover, polling. A queue
 * belongs to one thread and takes no lock: it reads the paths' states and the
 * namespaces' ANA states the watcher publishes (mpath-internal.h).
 *
 * A command goes to the best path for its namespace (nvmfh_mp_best_path: optimized, else
 * non-optimized; never inaccessible, persistent loss or change). It comes back for another
 * path when it fails with a path error the Linux host fails over on (nvme_decide_disposition:
 * a path-related status, SCT 3, without DNR; nvme_failover_req re-reads ANA for the ANA
 * statuses) or when the path's connection is lost (-ECONNRESET): it then waits on the
 * queue's retry list and goes out again from nvmf_mpath_poll, on a path that did not fail
 * it if there is one (else, after MP_RETRY_MS, on one that did). With no usable path it
 * waits until one comes back or until timeout_ms after its first path error or wait,
 * and then completes with NVMF_ERR_NO_PATH, the handle's message naming each path's
 * state and the last error a path gave it (nvmfh_mp_no_path).
 * The caller's callback runs once, with the status of the path that completed it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "initiator/mpath-internal.h"

enum { SENT, WAIT_PATH, WAIT_SLOT, FAILED };

int nvmfh_mp_queue_init(struct nvmf_mpath *mp, struct nvmf_mpath_queue *q, unsigned idx)
{
	q->mp = mp;
	q->idx = idx;
	q->retry_tail = &q->retry;
	for (unsigned p = 0; p < mp->npaths; p++)
		q->pq[p] = nvmf_io_queue(mp->path[p].c, idx);
	q->reqs = calloc(mp->depth, sizeof(*q->reqs));
	if (!q->reqs)
		return -ENOMEM;
	for (unsigned i = mp->depth; i-- > 0;) {
		q->reqs[i].next = q->free;
		q->free = &q->reqs[i];
	}
	return 0;
}

void nvmfh_mp_queue_fini(struct nvmf_mpath_queue *q)
{
	free(q->reqs);
	q->reqs = q->free = NULL;
}

/* ---- the handshake with the watcher (mpath-internal.h) ---- */

static bool enter(struct nvmf_mpath_queue *q, unsigned p)
{
	atomic_fetch_add(&q->busy[p], 1);
	if (atomic_load(&q->mp->path[p].state) == MP_LIVE)
		return true;
	atomic_fetch_sub_explicit(&q->busy[p], 1, memory_order_release);
	return false;
}

static void leave(struct nvmf_mpath_queue *q, unsigned p)
{
	atomic_fetch_sub_explicit(&q->busy[p], 1, memory_order_release);
}

/* Counters only the queue's thread writes; others read them relaxed. */
static void count(_Atomic unsigned long *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* ---- completion ---- */

static void finish(struct nvmf_mpath_queue *q, struct mp_req *r, int status,
		   const struct nvme_cqe *cqe)
{
	nvmf_io_cb cb = r->cb;
	void *arg = r->arg;
	r->next = q->free;
	q->free = r;
	q->outstanding--;
	q->completed++;
	cb(arg, status, cqe);
}

static void retry_later(struct nvmf_mpath_queue *q, struct mp_req *r)
{
	r->next = NULL;
	*q->retry_tail = r;
	q->retry_tail = &r->next;
	q->nretry++;
}

/* The statuses the Linux host fails over on: path related (SCT 3), DNR clear. */
static bool is_path_error(int status)
{
	if (status == -ECONNRESET)
		return true;
	return status > 0 && ((status >> NVME_SCT_SHIFT) & NVME_SCT_MASK) == NVME_SCT_PATH &&
	       !(status & NVME_SC_DNR);
}

/* The ANA state an ANA status says the namespace's group is in through the path; 0 for
 * the other path errors (nvme_is_ana_error). */
static uint8_t ana_state_of(int status)
{
	if (status <= 0 || ((status >> NVME_SCT_SHIFT) & NVME_SCT_MASK) != NVME_SCT_PATH)
		return 0;
	switch (status & NVME_SC_MASK) {
	case NVME_SC_ANA_PERSISTENT_LOSS:
		return NVME_ANA_STATE_PERSISTENT_LOSS;
	case NVME_SC_ANA_INACCESSIBLE:
		return NVME_ANA_STATE_INACCESSIBLE;
	case NVME_SC_ANA_TRANSITION:
		return NVME_ANA_STATE_CHANGE;
	default:
		return 0;
	}
}

/* A command that failed with path error @status on path @p: to send again. */
static void path_error(struct nvmf_mpath_queue *q, struct mp_req *r, unsigned p, int status)
{
	struct nvmf_mpath *mp = q->mp;
	uint64_t now = nvmf_mono_ms();
	r->last_status = status;
	r->avoid |= 1u << p;
	r->retry_at_ms = now + MP_RETRY_MS;
	if (!r->deadline_ms)
		r->deadline_ms = now + mp->timeout_ms;
	count(&q->errors[p]);
	uint8_t st = ana_state_of(status);
	if (status == -ECONNRESET) {
		nvmfh_mp_path_fail(mp, p, status);
	} else if (st && r->ns) {
		/* Not through this path until the watcher has read the log again. */
		atomic_store_explicit(&r->ns->state[p], st, memory_order_relaxed);
		nvmfh_mp_kick(mp);
	}
}

/* Every command's callback on a path's queue (on the queue's thread, inside its poll). */
static void path_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct mp_req *r = arg;
	struct nvmf_mpath_queue *q = r->q;
	unsigned p = (unsigned)r->path;
	r->path = -1;
	q->inflight[p]--;
	if (is_path_error(status)) {
		path_error(q, r, p, status); /* before leave(): the path is DOWN by then */
		leave(q, p);
		retry_later(q, r);
		return;
	}
	leave(q, p);
	count(&q->ios[p]);
	finish(q, r, status, cqe);
}

/* ---- dispatch ---- */

static int submit_on(struct nvmf_queue *pq, struct mp_req *r)
{
	uint32_t shift = r->ns ? r->ns->lba_shift : 0;
	switch (r->op) {
	case MP_READ:
		return nvmfh_submit_blocks(pq, nvme_cmd_read, r->nsid, r->slba, r->nlb, r->buf,
					   false, shift, path_done, r);
	case MP_WRITE:
		return nvmfh_submit_blocks(pq, nvme_cmd_write, r->nsid, r->slba, r->nlb, r->buf,
					   true, shift, path_done, r);
	case MP_COMPARE:
		return nvmfh_submit_blocks(pq, nvme_cmd_compare, r->nsid, r->slba, r->nlb, r->buf,
					   true, shift, path_done, r);
	case MP_WRITE_ZEROES:
		return nvmfh_submit_blocks(pq, nvme_cmd_write_zeroes, r->nsid, r->slba, r->nlb,
					   NULL, false, shift, path_done, r);
	case MP_FLUSH:
		return nvmf_submit_flush(pq, r->nsid, path_done, r);
	case MP_VERIFY:
		return nvmf_submit_verify(pq, r->nsid, r->slba, r->nlb, path_done, r);
	case MP_COPY:
		return nvmf_submit_copy(pq, r->nsid, r->slba, r->buf, r->nr, path_done, r);
	case MP_COMPARE_AND_WRITE:
		return nvmf_submit_compare_and_write(pq, r->nsid, r->slba, r->nlb, r->buf, r->buf2,
						     path_done, r);
	default:
		return nvmf_submit_dsm(pq, r->nsid, r->buf, r->nr, r->attributes, path_done, r);
	}
}

/* Send @r on the best path it may take now. */
static int dispatch(struct nvmf_mpath_queue *q, struct mp_req *r, uint64_t now)
{
	struct nvmf_mpath *mp = q->mp;
	for (unsigned tries = 0; tries <= mp->npaths; tries++) {
		int rank;
		int p = nvmfh_mp_best_path(mp, r->ns, r->avoid, &rank);
		if (p < 0)
			return WAIT_PATH;
		if (rank >= 2 && now < r->retry_at_ms)
			return WAIT_PATH; /* only paths that failed it: not at once */
		if (!enter(q, (unsigned)p))
			continue; /* down meanwhile */
		r->path = p;      /* before the submit: a callback may run in it */
		q->inflight[p]++;
		int rc = submit_on(q->pq[p], r);
		if (!rc)
			return SENT; /* the command keeps the count enter() took */
		r->path = -1;
		q->inflight[p]--;
		leave(q, (unsigned)p);
		if (rc == -EAGAIN)
			return WAIT_SLOT;
		if (rc == -ECONNRESET) {
			r->last_status = rc;
			nvmfh_mp_path_fail(mp, (unsigned)p, rc);
			continue;
		}
		r->last_status = rc;
		return FAILED;
	}
	return WAIT_PATH;
}

/* Send what waits on the retry list, or end what waited too long. */
static void run_retries(struct nvmf_mpath_queue *q)
{
	if (!q->retry)
		return;
	uint64_t now = nvmf_mono_ms();
	struct mp_req *list = q->retry;
	q->retry = NULL;
	q->retry_tail = &q->retry;
	q->nretry = 0;
	while (list) {
		struct mp_req *r = list;
		list = r->next;
		if (r->deadline_ms && now >= r->deadline_ms) {
			/* The waiting started timeout_ms before the deadline. */
			finish(q, r,
			       nvmfh_mp_no_path(q->mp, r->ns, q->mp->timeout_ms, r->last_status),
			       NULL);
			continue;
		}
		int d = dispatch(q, r, now);
		if (d == SENT) {
			if (r->last_status)
				count(&q->failovers);
			continue;
		}
		if (d == FAILED) {
			finish(q, r, r->last_status, NULL);
			continue;
		}
		if (d == WAIT_PATH && !r->deadline_ms)
			r->deadline_ms = now + q->mp->timeout_ms;
		retry_later(q, r);
	}
}

/* ---- submission ---- */

static struct mp_ns *ns_lookup(struct nvmf_mpath_queue *q, uint32_t nsid, int *rc)
{
	for (unsigned i = 0; i < q->ns_cached; i++)
		if (q->ns_cache[i].nsid == nsid)
			return q->ns_cache[i].ns;
	struct mp_ns *ns = nvmfh_mp_ns_get(q->mp, nsid, rc);
	if (!ns)
		return NULL;
	unsigned slot = q->ns_next++ % MP_NS_CACHE;
	q->ns_cache[slot].nsid = nsid;
	q->ns_cache[slot].ns = ns;
	if (q->ns_cached < MP_NS_CACHE)
		q->ns_cached++;
	return ns;
}

static int submit(struct nvmf_mpath_queue *q, const struct mp_req *tmpl)
{
	if (!q || !tmpl->cb || !tmpl->nsid || tmpl->nsid == NVME_NSID_ALL)
		return -EINVAL;
	if (!q->free)
		return -EAGAIN;
	int rc = 0;
	struct mp_ns *ns = ns_lookup(q, tmpl->nsid, &rc);
	if (!ns)
		return rc;
	struct mp_req *r = q->free;
	q->free = r->next;
	q->outstanding++;
	*r = *tmpl;
	r->q = q;
	r->ns = ns;
	r->path = -1;
	uint64_t now = nvmf_mono_ms();
	int d = dispatch(q, r, now);
	if (d == FAILED) {
		rc = r->last_status;
		r->next = q->free;
		q->free = r;
		q->outstanding--;
		return rc;
	}
	if (d == WAIT_PATH)
		r->deadline_ms = now + q->mp->timeout_ms;
	if (d != SENT)
		retry_later(q, r);
	return 0;
}

int nvmf_mpath_submit_read(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			   void *buf, nvmf_io_cb cb, void *arg)
{
	if (!buf || !nlb)
		return -EINVAL;
	return submit(q, &(struct mp_req){ .op = MP_READ,
					   .nsid = nsid,
					   .slba = slba,
					   .nlb = nlb,
					   .buf = buf,
					   .cb = cb,
					   .arg = arg });
}

int nvmf_mpath_submit_write(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			    const void *buf, nvmf_io_cb cb, void *arg)
{
	if (!buf || !nlb)
		return -EINVAL;
	return submit(q, &(struct mp_req){ .op = MP_WRITE,
					   .nsid = nsid,
					   .slba = slba,
					   .nlb = nlb,
					   .buf = (void *)buf,
					   .cb = cb,
					   .arg = arg });
}

int nvmf_mpath_submit_compare(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba,
			      uint32_t nlb, const void *buf, nvmf_io_cb cb, void *arg)
{
	if (!buf || !nlb)
		return -EINVAL;
	return submit(q, &(struct mp_req){ .op = MP_COMPARE,
					   .nsid = nsid,
					   .slba = slba,
					   .nlb = nlb,
					   .buf = (void *)buf,
					   .cb = cb,
					   .arg = arg });
}

int nvmf_mpath_submit_write_zeroes(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba,
				   uint32_t nlb, nvmf_io_cb cb, void *arg)
{
	if (!nlb)
		return -EINVAL;
	return submit(q, &(struct mp_req){ .op = MP_WRITE_ZEROES,
					   .nsid = nsid,
					   .slba = slba,
					   .nlb = nlb,
					   .cb = cb,
					   .arg = arg });
}

int nvmf_mpath_submit_flush(struct nvmf_mpath_queue *q, uint32_t nsid, nvmf_io_cb cb, void *arg)
{
	return submit(q, &(struct mp_req){ .op = MP_FLUSH, .nsid = nsid, .cb = cb, .arg = arg });
}

int nvmf_mpath_submit_dsm(struct nvmf_mpath_queue *q, uint32_t nsid,
			  const struct nvme_dsm_range *ranges, unsigned nr, uint32_t attributes,
			  nvmf_io_cb cb, void *arg)
{
	if (!ranges || nr < 1 || nr > 256)
		return -EINVAL;
	return submit(q, &(struct mp_req){ .op = MP_DSM,
					   .nsid = nsid,
					   .buf = (void *)ranges,
					   .nr = nr,
					   .attributes = attributes,
					   .cb = cb,
					   .arg = arg });
}

int nvmf_mpath_submit_verify(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			     nvmf_io_cb cb, void *arg)
{
	if (!nlb || nlb > 65536)
		return -EINVAL;
	return submit(q, &(struct mp_req){ .op = MP_VERIFY,
					   .nsid = nsid,
					   .slba = slba,
					   .nlb = nlb,
					   .cb = cb,
					   .arg = arg });
}

int nvmf_mpath_submit_copy(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t sdlba,
			   const struct nvme_copy_range *ranges, unsigned nr, nvmf_io_cb cb,
			   void *arg)
{
	if (!ranges || nr < 1 || nr > 256)
		return -EINVAL;
	return submit(q, &(struct mp_req){ .op = MP_COPY,
					   .nsid = nsid,
					   .slba = sdlba,
					   .buf = (void *)ranges,
					   .nr = nr,
					   .cb = cb,
					   .arg = arg });
}

int nvmf_mpath_submit_compare_and_write(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba,
					uint32_t nlb, const void *cmp, const void *data,
					nvmf_io_cb cb, void *arg)
{
	if (!cmp || !data || !nlb || nlb > 65536)
		return -EINVAL;
	return submit(q, &(struct mp_req){ .op = MP_COMPARE_AND_WRITE,
					   .nsid = nsid,
					   .slba = slba,
					   .nlb = nlb,
					   .buf = (void *)cmp,
					   .buf2 = (void *)data,
					   .cb = cb,
					   .arg = arg });
}

/* ---- polling ---- */

/* Reap path @p's queue; on a path that is down or whose connection is lost, end its
 * connection and hand its commands back for another path. */
static void poll_path(struct nvmf_mpath_queue *q, unsigned p, unsigned max)
{
	struct nvmf_mpath *mp = q->mp;
	struct nvmf_queue *pq = q->pq[p];
	/* Our commands there hold the watcher off, but their callbacks drop their counts
	 * while we still use the queue: hold one of our own meanwhile. */
	atomic_fetch_add(&q->busy[p], 1);
	if (atomic_load(&mp->path[p].state) != MP_LIVE) {
		nvmfh_queue_abort(pq, -ECONNRESET);
	} else if (nvmfh_queue_poll(pq, max) < 0 || pq->lost) {
		nvmfh_mp_path_fail(mp, p, -ECONNRESET);
		nvmfh_queue_abort(pq, -ECONNRESET);
	}
	leave(q, p);
	if (!q->inflight[p] && atomic_load(&mp->path[p].state) != MP_LIVE)
		nvmfh_mp_kick(mp); /* our part of the handshake is done */
}

int nvmf_mpath_poll(struct nvmf_mpath_queue *q, unsigned max)
{
	if (!q)
		return -EINVAL;
	if (q->in_poll)
		return 0; /* from a callback: the outer poll goes on */
	q->in_poll = true;
	q->completed = 0;
	for (unsigned p = 0; p < q->mp->npaths; p++)
		if (q->inflight[p])
			poll_path(q, p, max);
	run_retries(q);
	q->in_poll = false;
	return q->completed;
}

unsigned nvmf_mpath_outstanding(const struct nvmf_mpath_queue *q)
{
	return q ? q->outstanding : 0;
}

int nvmf_mpath_wait(struct nvmf_mpath_queue *q, int timeout_ms)
{
	if (!q)
		return -EINVAL;
	uint64_t deadline = nvmf_mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		int n = nvmf_mpath_poll(q, 0);
		if (n)
			return n;
		uint64_t now = nvmf_mono_ms();
		if (now >= deadline)
			return 0;
		unsigned left = (unsigned)(deadline - now), busy = 0, only = 0;
		for (unsigned p = 0; p < q->mp->npaths; p++)
			if (q->inflight[p]) {
				busy++;
				only = p;
			}
		/* One path to wait on: sleep on it; else (several, or commands waiting for a
		 * path) look again every millisecond. */
		if (busy == 1 && !q->retry && enter(q, only)) {
			struct nvmf_queue *pq = q->pq[only];
			pq->hq.t->wait(&pq->hq, left < 100 ? (int)left : 100);
			leave(q, only);
		} else if (busy || q->retry) {
			usleep(1000);
		} else {
			return 0;
		}
	}
}

void nvmfh_mp_queue_abandon(struct nvmf_mpath_queue *q)
{
	struct mp_req *list = q->retry;
	q->retry = NULL;
	q->retry_tail = &q->retry;
	q->nretry = 0;
	while (list) {
		struct mp_req *r = list;
		list = r->next;
		finish(q, r, -ECONNABORTED, NULL);
	}
}

/* ---- blocking helpers on queue 0 ---- */

struct mp_sync {
	bool done;
	int status;
};

static void sync_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct mp_sync *w = arg;
	w->done = true;
	w->status = status;
}

static int run_sync(struct nvmf_mpath *mp, enum mp_op op, uint32_t nsid, uint64_t slba,
		    uint32_t nlb, void *buf)
{
	struct nvmf_mpath_queue *q = nvmf_mpath_queue(mp, 0);
	if (!q)
		return -EINVAL;
	struct mp_sync w = { 0 };
	int rc;
	for (;;) {
		switch (op) {
		case MP_READ:
			rc = nvmf_mpath_submit_read(q, nsid, slba, nlb, buf, sync_done, &w);
			break;
		case MP_WRITE:
			rc = nvmf_mpath_submit_write(q, nsid, slba, nlb, buf, sync_done, &w);
			break;
		default:
			rc = nvmf_mpath_submit_flush(q, nsid, sync_done, &w);
			break;
		}
		if (rc != -EAGAIN)
			break;
		nvmf_mpath_wait(q, 100);
	}
	if (rc)
		return rc;
	while (!w.done)
		nvmf_mpath_wait(q, 100);
	return w.status;
}

int nvmf_mpath_read(struct nvmf_mpath *mp, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf)
{
	return run_sync(mp, MP_READ, nsid, slba, nlb, buf);
}

int nvmf_mpath_write(struct nvmf_mpath *mp, uint32_t nsid, uint64_t slba, uint32_t nlb,
		     const void *buf)
{
	return run_sync(mp, MP_WRITE, nsid, slba, nlb, (void *)buf);
}

int nvmf_mpath_flush(struct nvmf_mpath *mp, uint32_t nsid)
{
	return run_sync(mp, MP_FLUSH, nsid, 0, 0, NULL);
}
