/* SPDX-License-Identifier: MIT */
/*
 * The loop transport, target side (see loop.h, loop-internal.h): a transport of the core
 * whose "network" is memory. A host queue's capsules land in free command slots of its
 * target queue and wait in the queue's inbox; the group's pg_poll decodes them exactly
 * as the RDMA transport does, copies keyed data in from the host's buffer, and runs
 * them; queue_response copies read data out and hands the CQE to the host queue.
 * Also here: driven mode (host calls running the groups that have no thread) and the
 * hooks of loop.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/sgl.h"
#include "loop/internal.h"

static uint32_t round_page(uint32_t n)
{
	return (n + LOOP_PAGE - 1) & ~(LOOP_PAGE - 1);
}

/* ---- target side: queues ---- */

static struct loop_tq *tq_alloc(struct loop_tpg *tpg, const struct loop_hq *h)
{
	struct loop_tq *tq = calloc(1, sizeof(*tq));
	if (!tq)
		return NULL;
	tq->tpg = tpg;
	tq->qid = h->qid;
	tq->size = h->size;
	tq->key = h->key;
	tq->local = h->local;
	/* Admin capsules carry no data (the Linux host and ours never put any there). */
	struct nvmf_port_attrs pa;
	nvmf_port_attrs(h->port, &pa);
	tq->inline_size = h->qid ? pa.inline_size : 0;
	tq->reqs = calloc(h->size, sizeof(*tq->reqs));
	uint32_t stride = round_page(tq->inline_size);
	if (!tq->reqs || (stride && posix_memalign((void **)&tq->icd_mem, LOOP_PAGE,
						   (size_t)stride * h->size))) {
		free(tq->reqs);
		free(tq);
		return NULL;
	}
	for (unsigned i = h->size; i-- > 0;) {
		struct loop_req *r = &tq->reqs[i];
		r->tq = tq;
		r->icd = tq->icd_mem ? tq->icd_mem + (size_t)i * stride : NULL;
		r->next = tq->free;
		tq->free = r;
	}
	return tq;
}

static void tq_free(struct loop_tq *tq)
{
	free(tq->icd_mem);
	free(tq->reqs);
	free(tq);
}

/* A slot is free again: its capsule (and in-capsule data) is consumed. */
static void slot_put(struct loop_tq *tq, struct loop_req *r)
{
	pthread_mutex_lock(&tq->tpg->lock);
	r->next = tq->free;
	tq->free = r;
	pthread_mutex_unlock(&tq->tpg->lock);
}

/* On the group: the connection is gone. The host queue is broken and unlinked (no copy
 * into its memory from now on), the core destroys the queue and later releases it. */
static void tq_kill(struct loop_tq *tq, bool by_host)
{
	if (tq->dead)
		return;
	tq->dead = true;
	NVMF_PROBE_CONN_DISCONNECT("loop", tq, tq->qid, by_host ? "host" : "target");
	struct loop_hq *h = tq->hq;
	if (h) {
		pthread_mutex_lock(&h->lock);
		h->tq = NULL;
		/* CQEs already in the host's ring stay there to be reaped, as on a network
		 * connection closed after its last SEND (nvmf_loop_break drops them). */
		h->broken = true;
		pthread_cond_broadcast(&h->cond);
		pthread_mutex_unlock(&h->lock);
		tq->hq = NULL;
	}
	const struct nvmf_loop_hooks *hk = &tq->tpg->lt->hooks;
	if (hk->queue_down)
		hk->queue_down(hk->arg, &tq->sq, tq->qid, by_host);
	tq->in_kill = true;
	nvmf_sq_destroy(&tq->sq);
	tq->in_kill = false;
	if (tq->released)
		tq_free(tq);
}

/* Whether nvmf_loop_drop asks for this CQE of @h to be lost. */
static bool drop_this(struct loop_hq *h)
{
	struct loop_transport *lt = h->lt;
	unsigned n = __atomic_load_n(&lt->drop_count, __ATOMIC_ACQUIRE);
	if (!n || h->qid != __atomic_load_n(&lt->drop_qid, __ATOMIC_RELAXED))
		return false;
	while (n && !__atomic_compare_exchange_n(&lt->drop_count, &n, n - 1, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	return n != 0;
}

/* The CQE goes into the host queue's ring (the "SEND"). */
static void hq_push(struct loop_hq *h, const struct nvme_cqe *cqe)
{
	pthread_mutex_lock(&h->lock);
	if (!h->broken) {
		if (drop_this(h))
			h->inflight--; /* never answered: the host's timeout finds it */
		else if (h->count < h->size)
			h->ring[(h->head + h->count++) % h->size] = *cqe;
		else
			LOOP_LOG("queue %u: completion ring full, CQE of command %u dropped\n",
				 h->qid, cqe->command_id);
		pthread_cond_broadcast(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
}

/* ---- target side: commands ---- */

/* [@addr, @addr + @len) lies in the host memory @r's key reaches (no sum overflows). */
static bool in_region(const struct loop_req *r, uint64_t addr, uint32_t len)
{
	return addr >= r->mem_addr && len <= r->mem_len && addr - r->mem_addr <= r->mem_len - len;
}

/* A capsule taken from the inbox, on the group: decode, data in, execute. */
static void req_start(struct loop_tq *tq, struct loop_req *r)
{
	if (tq->dead || !nvmf_sq_accepting(&tq->sq)) { /* stopping: dropped unanswered */
		slot_put(tq, r);
		return;
	}
	const struct nvmf_loop_hooks *hk = &tq->tpg->lt->hooks;
	if (hk->capsule)
		hk->capsule(hk->arg, &tq->sq, tq->qid, &r->sqe, r->icd_len);
	struct nvmf_req *req = &r->req;
	req->transport_priv = r;
	req->data = NULL;
	r->buf = NULL;
	r->xfer_len = 0;
	if (!nvmf_req_init(req, &tq->sq, &r->sqe, &r->cqe))
		return; /* answered with an error already */
	/* As the RDMA transport: only what this queue's capsules may carry counts. */
	uint32_t icd = r->icd_len < tq->inline_size ? r->icd_len : tq->inline_size;
	struct nvme_sgl_info sgl;
	nvme_status_t st =
		nvme_sgl_parse(&r->sqe, tq->inline_size ? icd : 0, req->dir == NVMF_XFER_H2C, &sgl);
	if (st) {
		nvmf_req_complete(req, st);
		return;
	}
	req->sgl_len = sgl.len;
	switch (sgl.kind) {
	case NVME_SGL_KIND_INCAPSULE:
		req->data = r->icd + sgl.offset; /* no second copy */
		break;
	case NVME_SGL_KIND_KEYED:
		/* A length the command does not match fails in nvmf_req_execute() before any
		 * data moves. */
		if (sgl.len != req->data_len || req->dir == NVMF_XFER_NONE)
			break;
		if (sgl.key != tq->key || !in_region(r, sgl.addr, sgl.len)) {
			/* An RDMA READ/WRITE with a foreign rkey, or outside the memory the key
			 * registers, fails: no data moves. */
			nvmf_req_complete_dnr(req, nvme_generic(NVME_SC_DATA_XFER_ERROR));
			return;
		}
		if (posix_memalign(&r->buf, LOOP_PAGE, round_page(sgl.len))) {
			r->buf = NULL;
			nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
			return;
		}
		r->host_addr = sgl.addr;
		r->xfer_len = sgl.len;
		if (req->dir == NVMF_XFER_H2C) /* the "RDMA READ" */
			memcpy(r->buf, (const void *)(uintptr_t)sgl.addr, sgl.len);
		req->data = r->buf;
		break;
	case NVME_SGL_KIND_NONE:
	default:
		break;
	}
	nvmf_req_execute(req);
}

/* ops->queue_response: data out ("RDMA WRITE"), slot back, CQE to the host. */
static void loop_queue_response(struct nvmf_req *req)
{
	struct loop_req *r = req->transport_priv;
	struct loop_tq *tq = r->tq;
	struct loop_hq *h = tq->hq; /* NULL once dying: the response is dropped */
	nvme_status_t st = le16toh(r->cqe.status) >> 1;
	if (h && !st && req->dir == NVMF_XFER_C2H && r->buf && r->xfer_len)
		memcpy((void *)(uintptr_t)r->host_addr, r->buf, r->xfer_len);
	free(r->buf);
	r->buf = NULL;
	struct nvme_cqe cqe = r->cqe;
	/* The slot is free before the host can learn from the CQE that it may send again. */
	slot_put(tq, r);
	if (h)
		hq_push(h, &cqe);
}

/* ops->pg_poll: every capsule queued for this group's queues, in arrival order per
 * queue. */
static int loop_pg_poll(struct nvmf_tpg *base)
{
	struct loop_tpg *tpg = (struct loop_tpg *)base;
	struct loop_req *head = NULL, **tail = &head;
	if (!__atomic_load_n(&tpg->ready_head, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&tpg->lock);
	for (struct loop_tq *tq = tpg->ready_head; tq; tq = tq->ready_next) {
		*tail = tq->inbox_head;
		tail = &tq->inbox_tail->next;
		tq->inbox_head = tq->inbox_tail = NULL;
		tq->on_ready = false;
	}
	*tail = NULL;
	tpg->ready_head = tpg->ready_tail = NULL;
	pthread_mutex_unlock(&tpg->lock);
	int n = 0;
	for (struct loop_req *r = head, *next; r; r = next) {
		next = r->next; /* the slot may be free (and relinked) after this */
		req_start(r->tq, r);
		n++;
	}
	return n;
}

/* ops->pg_flush: nothing to post, CQEs went out in queue_response. */
static void loop_pg_flush(struct nvmf_tpg *base)
{
	(void)base;
}

/* ops->pg_add_queue: on the chosen group, a host queue's connection arrives. */
static int loop_pg_add_queue(struct nvmf_tpg *base, void *conn)
{
	struct loop_tpg *tpg = (struct loop_tpg *)base;
	struct loop_transport *lt = tpg->lt;
	struct loop_hq *h = conn;
	pthread_mutex_lock(&lt->lock);
	bool listening = nvmf_port_priv(h->port) != NULL;
	pthread_mutex_unlock(&lt->lock);

	pthread_mutex_lock(&h->lock);
	if (h->abandoned) { /* the host stopped waiting: ours to free */
		pthread_mutex_unlock(&h->lock);
		nvmf_loop_hq_free(h);
		return -1;
	}
	struct loop_tq *tq = listening ? tq_alloc(tpg, h) : NULL;
	if (!tq) {
		h->state = LHQ_REJECTED;
		h->reject = listening ? -ENOMEM : -ECONNREFUSED;
		pthread_cond_broadcast(&h->cond);
		pthread_mutex_unlock(&h->lock);
		return -1;
	}
	nvmf_sq_init(&tq->sq, base->pg, h->port, &lt->t);
	snprintf(tq->sq.peer, sizeof(tq->sq.peer), "loop");
	tq->sq.transport_priv = tq;
	tq->hq = tq->owner = h;
	tq->next = tpg->queues;
	tpg->queues = tq;
	h->tq = tq;
	h->pg = base->pg;
	h->target_inline = tq->inline_size;
	h->state = LHQ_LINKED;
	NVMF_PROBE_QUEUE_CONNECT("loop", tq, tq->qid);
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

/* ops->disconnect_queue: the core ends the queue (controller deleted, keep-alive
 * expiry, shutdown). */
static void loop_disconnect_queue(struct nvmf_sq *sq)
{
	tq_kill(sq->transport_priv, false);
}

/* ops->queue_released: the core is done; tell the host queue, free the target queue. */
static void loop_queue_released(struct nvmf_sq *sq)
{
	struct loop_tq *tq = sq->transport_priv;
	struct loop_tpg *tpg = tq->tpg;
	pthread_mutex_lock(&tpg->lock);
	if (tq->on_ready) {
		struct loop_tq **pp = &tpg->ready_head, *prev = NULL;
		while (*pp != tq) {
			prev = *pp;
			pp = &(*pp)->ready_next;
		}
		*pp = tq->ready_next;
		if (tpg->ready_tail == tq)
			tpg->ready_tail = prev;
	}
	pthread_mutex_unlock(&tpg->lock);
	for (struct loop_tq **pp = &tpg->queues; *pp; pp = &(*pp)->next)
		if (*pp == tq) {
			*pp = tq->next;
			break;
		}
	struct loop_hq *h = tq->owner;
	pthread_mutex_lock(&h->lock);
	h->released = true;
	bool abandoned = h->abandoned;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	if (abandoned)
		nvmf_loop_hq_free(h);
	tq->released = true;
	if (!tq->in_kill)
		tq_free(tq);
}

/* ---- target side: transport, listeners, groups, discovery ---- */

static struct nvmf_transport *
loop_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts, char *err, size_t errlen);

void nvmf_loop_free(struct loop_transport *lt)
{
	pthread_mutex_destroy(&lt->drive_lock);
	pthread_mutex_destroy(&lt->lock);
	free(lt);
}

static void loop_destroy(struct nvmf_transport *t)
{
	struct loop_transport *lt = (struct loop_transport *)t;
	pthread_mutex_lock(&lt->lock);
	/* A host queue still points here (the target stopped first): the last one to
	 * disconnect frees the transport. */
	bool held = lt->hqs != NULL;
	lt->destroyed = held;
	pthread_mutex_unlock(&lt->lock);
	if (!held)
		nvmf_loop_free(lt);
}

static int loop_listen(struct nvmf_transport *t, struct nvmf_port *port, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	struct loop_transport *lt = (struct loop_transport *)t;
	pthread_mutex_lock(&lt->lock);
	nvmf_port_set_priv(port, lt); /* listening: the port's listener is the transport */
	pthread_mutex_unlock(&lt->lock);
	return 0;
}

static void loop_stop_listen(struct nvmf_transport *t, struct nvmf_port *port)
{
	struct loop_transport *lt = (struct loop_transport *)t;
	pthread_mutex_lock(&lt->lock);
	nvmf_port_set_priv(port, NULL);
	pthread_mutex_unlock(&lt->lock);
}

static struct nvmf_tpg *loop_pg_create(struct nvmf_transport *t, struct nvmf_pg *pg, char *err,
				       size_t errlen)
{
	(void)pg;
	struct loop_tpg *tpg = calloc(1, sizeof(*tpg));
	if (!tpg) {
		snprintf(err, errlen, "loop: out of memory");
		return NULL;
	}
	tpg->lt = (struct loop_transport *)t;
	pthread_mutex_init(&tpg->lock, NULL);
	return &tpg->base;
}

static void loop_pg_destroy(struct nvmf_tpg *base)
{
	struct loop_tpg *tpg = (struct loop_tpg *)base;
	pthread_mutex_destroy(&tpg->lock);
	free(tpg);
}

/* ops->local_addr: the address the host dialed for the queue's connection. */
static int loop_local_addr(const struct nvmf_sq *sq, struct sockaddr_storage *out)
{
	const struct loop_tq *tq = sq->transport_priv;
	if (!tq || !tq->local.ss_family)
		return -ENOTCONN;
	*out = tq->local;
	return 0;
}

const struct nvmf_transport_ops nvmf_loop_ops = {
	.name = "loop",
	.trtype = NVMF_TRTYPE_LOOP,
	.msdbd = 1,
	.keyed_sgl = true,
	.max_queue_size = LOOP_MAX_QUEUE_SIZE,
	.max_inline = LOOP_MAX_INLINE,
	.max_xfer = LOOP_MAX_XFER,
	.create = loop_create,
	.destroy = loop_destroy,
	.listen = loop_listen,
	.stop_listen = loop_stop_listen,
	.pg_create = loop_pg_create,
	.pg_destroy = loop_pg_destroy,
	.pg_add_queue = loop_pg_add_queue,
	.pg_poll = loop_pg_poll,
	.pg_flush = loop_pg_flush,
	.queue_response = loop_queue_response,
	.disconnect_queue = loop_disconnect_queue,
	.queue_released = loop_queue_released,
	.local_addr = loop_local_addr,
};

/* Into a free slot of @tq and its inbox (the "SEND"); -EAGAIN when no slot is free. */
int nvmf_loop_tq_receive(struct loop_tq *tq, const struct nvme_sqe *sqe, const void *data,
			 uint32_t len, uint64_t mem, uint32_t mem_len)
{
	struct loop_tpg *tpg = tq->tpg;
	pthread_mutex_lock(&tpg->lock);
	struct loop_req *r = tq->free;
	if (r)
		tq->free = r->next;
	pthread_mutex_unlock(&tpg->lock);
	if (!r)
		return -EAGAIN;
	if (len > tq->inline_size) { /* more than the receive buffer holds */
		slot_put(tq, r);
		return -EINVAL;
	}
	r->sqe = *sqe;
	r->icd_len = len;
	r->mem_addr = mem;
	r->mem_len = mem_len;
	if (len)
		memcpy(r->icd, data, len);
	r->next = NULL;
	pthread_mutex_lock(&tpg->lock);
	if (tq->inbox_tail)
		tq->inbox_tail->next = r;
	else
		tq->inbox_head = r;
	tq->inbox_tail = r;
	if (!tq->on_ready) {
		tq->on_ready = true;
		tq->ready_next = NULL;
		if (tpg->ready_tail)
			tpg->ready_tail->ready_next = tq;
		else /* pg_poll peeks at it without the lock */
			__atomic_store_n(&tpg->ready_head, tq, __ATOMIC_RELEASE);
		tpg->ready_tail = tq;
	}
	pthread_mutex_unlock(&tpg->lock);
	return 0;
}

/* On the target queue's group: the host asked to disconnect. */
static void detach_msg(void *arg)
{
	struct loop_hq *h = arg;
	pthread_mutex_lock(&h->lock);
	struct loop_tq *tq = h->tq;
	pthread_mutex_unlock(&h->lock);
	if (tq)
		tq_kill(tq, true);
}

void nvmf_loop_request_detach(struct loop_hq *h)
{
	h->msg.fn = detach_msg;
	h->msg.arg = h;
	nvmf_pg_post(h->pg, &h->msg);
}

/* ---- driven mode ---- */

/* Some group of the target has no thread of its own. */
bool nvmf_loop_drive_needed(const struct loop_transport *lt)
{
	for (unsigned i = 0; i < nvmf_transport_npgs(&lt->t); i++)
		if (!nvmf_pg_started(nvmf_transport_pg(&lt->t, i)))
			return true;
	return false;
}

int nvmf_loop_run_passes(struct loop_transport *lt)
{
	int total = 0;
	pthread_mutex_lock(&lt->drive_lock);
	for (unsigned round = 0; round < LOOP_DRIVE_ROUNDS; round++) {
		int n = 0;
		for (unsigned i = 0; i < nvmf_transport_npgs(&lt->t); i++)
			if (!nvmf_pg_started(nvmf_transport_pg(&lt->t, i)))
				n += nvmf_pg_poll(nvmf_transport_pg(&lt->t, i));
		total += n;
		if (!n)
			break;
	}
	pthread_mutex_unlock(&lt->drive_lock);
	return total;
}

/* Submit and poll drive unless the test steps the target itself. */
void nvmf_loop_auto_drive(struct loop_transport *lt)
{
	if (__atomic_load_n(&lt->auto_drive, __ATOMIC_RELAXED) && nvmf_loop_drive_needed(lt))
		nvmf_loop_run_passes(lt);
}

static struct nvmf_transport *
loop_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts, char *err, size_t errlen)
{
	struct loop_transport *lt = calloc(1, sizeof(*lt));
	if (!lt) {
		snprintf(err, errlen, "loop: out of memory");
		return NULL;
	}
	(void)opts; /* per-command buffers: no limit to size */
	lt->tgt = tgt;
	lt->t.live_max_inline = LOOP_MAX_INLINE; /* its buffers are per command */
	lt->auto_drive = true;
	pthread_mutex_init(&lt->drive_lock, NULL);
	pthread_mutex_init(&lt->lock, NULL);
	nvmf_loop_host_init(&lt->host);
	return &lt->t;
}

/* ---- public helpers ---- */

struct loop_transport *nvmf_loop_of_tgt(struct nvmf_tgt *tgt)
{
	for (unsigned i = 0; i < nvmf_tgt_ntransports(tgt); i++)
		if (nvmf_tgt_transport(tgt, i)->ops->create == loop_create)
			return (struct loop_transport *)nvmf_tgt_transport(tgt, i);
	return NULL;
}

const struct nvmf_host_transport *nvmf_loop_host_transport(struct nvmf_tgt *tgt)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	return lt ? &lt->host : NULL;
}

void nvmf_loop_set_hooks(struct nvmf_tgt *tgt, const struct nvmf_loop_hooks *hooks)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	if (!lt)
		return;
	pthread_mutex_lock(&lt->drive_lock);
	if (hooks)
		lt->hooks = *hooks;
	else
		memset(&lt->hooks, 0, sizeof(lt->hooks));
	pthread_mutex_unlock(&lt->drive_lock);
}

void nvmf_loop_drop(struct nvmf_tgt *tgt, uint16_t qid, unsigned n)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	if (!lt)
		return;
	__atomic_store_n(&lt->drop_qid, qid, __ATOMIC_RELAXED);
	__atomic_store_n(&lt->drop_count, n, __ATOMIC_RELEASE);
}

void nvmf_loop_hold(struct nvmf_tgt *tgt, bool hold)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	if (!lt)
		return;
	__atomic_store_n(&lt->hold, hold, __ATOMIC_RELAXED);
	if (!hold) { /* waiters look again */
		pthread_mutex_lock(&lt->lock);
		for (struct loop_hq *h = lt->hqs; h; h = h->next) {
			pthread_mutex_lock(&h->lock);
			pthread_cond_broadcast(&h->cond);
			pthread_mutex_unlock(&h->lock);
		}
		pthread_mutex_unlock(&lt->lock);
	}
}

/* On each group: every target queue there loses its connection. tq_kill may free the
 * queue (if the core releases it before nvmf_sq_destroy returns): next is read first. */
static void break_msg(void *arg)
{
	struct loop_tpg *tpg = arg;
	for (struct loop_tq *tq = tpg->queues, *next; tq; tq = next) {
		next = tq->next;
		tq_kill(tq, false);
	}
}

void nvmf_loop_break(struct nvmf_tgt *tgt)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	if (!lt)
		return;
	pthread_mutex_lock(&lt->lock);
	for (struct loop_hq *h = lt->hqs; h; h = h->next) {
		pthread_mutex_lock(&h->lock);
		h->broken = true;
		h->count = 0;
		pthread_cond_broadcast(&h->cond);
		pthread_mutex_unlock(&h->lock);
	}
	pthread_mutex_unlock(&lt->lock);
	for (unsigned i = 0; i < nvmf_transport_npgs(&lt->t); i++)
		if (nvmf_pg_send(nvmf_transport_pg(&lt->t, i), break_msg,
				 nvmf_pg_tpg(nvmf_transport_pg(&lt->t, i), &lt->t)))
			LOOP_LOG("break: out of memory for poll group %u\n", i);
}

void nvmf_loop_set_auto_drive(struct nvmf_tgt *tgt, bool on)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	if (lt)
		__atomic_store_n(&lt->auto_drive, on, __ATOMIC_RELAXED);
}

int nvmf_loop_drive(struct nvmf_tgt *tgt)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	return lt ? nvmf_loop_run_passes(lt) : 0;
}

/* A call waiting for its group. */
struct loop_call {
	struct nvmf_msg msg;
	void (*fn)(void *arg);
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

static void call_msg(void *arg)
{
	struct loop_call *c = arg;
	c->fn(c->arg);
	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

int nvmf_loop_run_on(struct nvmf_tgt *tgt, unsigned pg_index, void (*fn)(void *arg), void *arg)
{
	struct loop_transport *lt = nvmf_loop_of_tgt(tgt);
	if (!lt || pg_index >= nvmf_transport_npgs(&lt->t))
		return -EINVAL;
	struct nvmf_pg *pg = nvmf_transport_pg(&lt->t, pg_index);
	if (!nvmf_pg_started(pg)) {
		pthread_mutex_lock(&lt->drive_lock);
		fn(arg);
		pthread_mutex_unlock(&lt->drive_lock);
		return 0;
	}
	struct loop_call c = { .msg = { .fn = call_msg }, .fn = fn, .arg = arg };
	c.msg.arg = &c;
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	nvmf_pg_post(pg, &c.msg);
	pthread_mutex_lock(&c.lock);
	while (!c.done)
		pthread_cond_wait(&c.cond, &c.lock);
	pthread_mutex_unlock(&c.lock);
	pthread_mutex_destroy(&c.lock);
	pthread_cond_destroy(&c.cond);
	return 0;
}
