/* SPDX-License-Identifier: MIT */
/*
 * The RDMA transport's part of a core poll group: the CQ and SRQ it owns on each device,
 * the map from QP number to queue (completions of a shared CQ and SRQ name their QP only
 * by number), completion reaping in batches, the end-of-pass posting of everything a
 * pass produced, and the reaping of dying queues. Also the poll-group ops of the
 * transport (pg_create ... pg_woken).
 *
 * Completions are looked up by qp_num before their wr_id is touched: a queue torn down
 * after its flush timeout is gone from the map, and a late completion of it is dropped
 * instead of reaching freed memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/target/internal.h"

#define CQ_INITIAL  1024u
#define MAP_INITIAL 64u
#define CQ_BUDGET   128 /* completions per CQ per pass */
#define WC_BATCH    32
#define CM_LOOK_US  1000 /* CM events looked for at least this often while busy */

int nvmf_rdma_pg_init(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_transport *t)
{
	memset(pg, 0, sizeof(*pg));
	pg->t = t;
	pg->ngroups = 1;
	pg->qp_map_size = MAP_INITIAL;
	pg->qp_map = calloc(pg->qp_map_size, sizeof(*pg->qp_map));
	return pg->qp_map ? 0 : -ENOMEM;
}

/* The transport's registry of every group's device parts (async.c looks owners up there). */
static void pgd_register(struct nvmf_rdma_transport *t, struct nvmf_rdma_pg_dev *d)
{
	pthread_mutex_lock(&t->pgd_lock);
	d->all_next = t->pgds;
	t->pgds = d;
	pthread_mutex_unlock(&t->pgd_lock);
}

static void pgd_unregister(struct nvmf_rdma_transport *t, struct nvmf_rdma_pg_dev *d)
{
	pthread_mutex_lock(&t->pgd_lock);
	for (struct nvmf_rdma_pg_dev **pp = &t->pgds; *pp; pp = &(*pp)->all_next) {
		if (*pp == d) {
			*pp = d->all_next;
			break;
		}
	}
	pthread_mutex_unlock(&t->pgd_lock);
}

/* @buf of class @cls back to @d's device pool; a buffer the pool did not lend (released
 * twice) is a bug: logged, ignored. */
static void pool_put(struct nvmf_rdma_transport *t, struct nvmf_rdma_pg_dev *d, void *buf,
		     unsigned cls)
{
	if (!nvmf_rdma_pool_put(&d->dev->pool, buf, cls))
		NVMF_RDMA_LOG(t, NVMF_LOG_ERROR,
			      "BUG: device %s: data buffer %p (class %u) released "
			      "while not in use; ignored",
			      d->dev->dev->name, buf, cls);
}

/* Cached buffers back to the pool, SRQ, CQ and channel destroyed. */
static void pgd_free(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_pg_dev *d)
{
	const struct nvmf_rdma_verbs *v = pg->t->verbs;
	pgd_unregister(pg->t, d);
	for (unsigned i = 0; i < NVMF_RDMA_POOL_CLASSES; i++)
		while (d->cache[i].n)
			pool_put(pg->t, d, d->cache[i].buf[--d->cache[i].n], i);
	if (d->srq) {
		nvmf_rdma_rq_fini(d->srq);
		free(d->srq);
	}
	if (d->cq)
		v->destroy_cq(d->cq);
	if (d->channel) {
		if (pg->base.pg)
			nvmf_pg_del_wait_fd(pg->base.pg, d->channel->fd);
		v->destroy_channel(d->channel);
	}
	free(d);
}

void nvmf_rdma_pg_fini(struct nvmf_rdma_poll_group *pg)
{
	struct nvmf_rdma_pg_dev *d;
	nvmf_rdma_poster_stop(&pg->poster);
	while ((d = pg->devs)) {
		pg->devs = d->next;
		pgd_free(pg, d);
	}
	free(pg->qp_map);
	pg->qp_map = NULL;
}

/* The group's shared receive queue on @d, if the device and the config allow one. */
static void pgd_make_srq(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_pg_dev *d)
{
	struct nvmf_rdma_transport *t = pg->t;
	const struct ibv_device_attr *attr = &d->dev->dev->attr;
	if (!t->use_srq || attr->max_srq <= 0)
		return;
	uint32_t depth = t->srq_depth, inline_size = t->inline_max;
	if (pg->admin_only) {
		/* The main group serves admin queues only: no in-capsule data, few capsules. */
		inline_size = 0;
		depth = depth < 256 ? depth : 256;
	}
	if (depth > (uint32_t)attr->max_srq_wr)
		depth = (uint32_t)attr->max_srq_wr;
	char rerr[200];
	d->srq = calloc(1, sizeof(*d->srq));
	if (!d->srq ||
	    nvmf_rdma_rq_init(d->srq, t->verbs, d->dev->dev->pd, true, NULL, depth, inline_size,
			      rerr, sizeof(rerr)) ||
	    nvmf_rdma_rq_post_all(d->srq) ||
	    nvmf_rdma_pg_reserve_cq(d, depth, rerr, sizeof(rerr))) {
		/* Not fatal: queues fall back to receive queues of their own. */
		NVMF_RDMA_LOG(t, NVMF_LOG_WARNING,
			      "%s: no shared receive queue (%s); one receive queue per QP",
			      d->dev->dev->name, d->srq ? rerr : "out of memory");
		if (d->srq)
			nvmf_rdma_rq_fini(d->srq);
		free(d->srq);
		d->srq = NULL;
	}
}

struct nvmf_rdma_pg_dev *nvmf_rdma_pg_dev_get(struct nvmf_rdma_poll_group *pg,
					      struct nvmf_rdma_device *dev, char *err,
					      size_t errlen)
{
	struct nvmf_rdma_pg_dev *d;
	for (d = pg->devs; d; d = d->next)
		if (d->dev == dev)
			return d;
	const struct nvmf_rdma_verbs *v = pg->t->verbs;
	const char *name = dev->dev->name;
	d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	d->pg = pg;
	d->dev = dev;
	TAILQ_INIT(&d->buf_waiters);
	/* Groups of several threads keep a few buffers of each class out of the shared pool's
	 * lock; a quarter of the class shared among the groups at most. */
	for (unsigned i = 0; pg->ngroups > 1 && i < dev->pool.ncls; i++) {
		uint32_t m = dev->pool.cls[i].count / (4 * pg->ngroups);
		d->cache[i].max = m > NVMF_RDMA_CACHE_MAX ? NVMF_RDMA_CACHE_MAX : m;
	}
	d->channel = v->create_channel(dev->dev->verbs);
	if (!d->channel) {
		snprintf(err, errlen, "%s: ibv_create_comp_channel: %s", name, strerror(errno));
		goto fail;
	}
	int fl = fcntl(d->channel->fd, F_GETFL);
	int rc = fl < 0 ? -errno : fcntl(d->channel->fd, F_SETFL, fl | O_NONBLOCK) ? -errno : 0;
	if (!rc && pg->base.pg)
		rc = nvmf_pg_add_wait_fd(pg->base.pg, d->channel->fd);
	if (rc) {
		snprintf(err, errlen, "%s: completion channel: %s", name, strerror(-rc));
		v->destroy_channel(d->channel);
		d->channel = NULL;
		goto fail;
	}
	d->cq_size = CQ_INITIAL;
	if (d->cq_size > (uint32_t)dev->dev->attr.max_cqe)
		d->cq_size = (uint32_t)dev->dev->attr.max_cqe;
	d->cq = v->create_cq(dev->dev->verbs, (int)d->cq_size, d, d->channel);
	if (!d->cq) {
		snprintf(err, errlen, "%s: ibv_create_cq %u entries: %s", name, d->cq_size,
			 strerror(errno));
		goto fail;
	}
	d->cq_size = (uint32_t)d->cq->cqe;
	pgd_make_srq(pg, d);
	d->next = pg->devs;
	pg->devs = d;
	pgd_register(pg->t, d);
	return d;
fail:
	pgd_free(pg, d);
	return NULL;
}

int nvmf_rdma_pg_reserve_cq(struct nvmf_rdma_pg_dev *pgd, uint32_t n, char *err, size_t errlen)
{
	uint32_t need = pgd->cq_used + n;
	if (need > pgd->cq_size) {
		/* Grow by half again at least, so a burst of connects does not resize each time. */
		uint32_t want = need + need / 2;
		uint32_t max = (uint32_t)pgd->dev->dev->attr.max_cqe;
		if (want > max)
			want = max;
		if (want < need || pgd->pg->t->verbs->resize_cq(pgd->cq, (int)want)) {
			snprintf(err, errlen,
				 "completion queue full (%u of %u entries used, %u more needed)",
				 pgd->cq_used, pgd->cq_size, n);
			return -1;
		}
		pgd->cq_size = (uint32_t)pgd->cq->cqe;
	}
	pgd->cq_used = need;
	return 0;
}

void nvmf_rdma_pg_release_cq(struct nvmf_rdma_pg_dev *pgd, uint32_t n)
{
	pgd->cq_used -= n <= pgd->cq_used ? n : pgd->cq_used;
}

void *nvmf_rdma_pgd_buf_get(struct nvmf_rdma_pg_dev *pgd, uint32_t len, unsigned *cls_out)
{
	struct nvmf_rdma_pool *p = &pgd->dev->pool;
	for (unsigned i = 0; i < p->ncls; i++) {
		if (p->cls[i].size < len)
			continue;
		struct nvmf_rdma_buf_cache *c = &pgd->cache[i];
		if (c->n) {
			*cls_out = i;
			pgd->pg->bufs_held++;
			return c->buf[--c->n];
		}
		break;
	}
	void *buf = nvmf_rdma_pool_get(p, len, cls_out);
	pgd->pg->bufs_held += buf != NULL;
	return buf;
}

void nvmf_rdma_pgd_buf_put(struct nvmf_rdma_pg_dev *pgd, void *buf, unsigned cls)
{
	struct nvmf_rdma_buf_cache *c = &pgd->cache[cls];
	pgd->pg->bufs_held--;
	/* Cache only while nobody here waits: a waiter takes the buffer at once (kick). */
	if (c->n < c->max && TAILQ_EMPTY(&pgd->buf_waiters)) {
		for (unsigned i = 0; i < c->n; i++) {
			if (c->buf[i] == buf) {
				NVMF_RDMA_LOG(pgd->pg->t, NVMF_LOG_ERROR,
					      "BUG: data buffer %p released twice; ignored", buf);
				return;
			}
		}
		c->buf[c->n++] = buf;
		return;
	}
	pool_put(pgd->pg->t, pgd, buf, cls);
}

/* Fibonacci hashing of the QP number into a power-of-two table. */
static uint32_t map_slot(uint32_t qp_num, uint32_t size)
{
	return (uint32_t)((qp_num * 2654435769u) >> 8) & (size - 1);
}

static void map_insert(struct nvmf_rdma_queue **map, uint32_t size, struct nvmf_rdma_queue *q)
{
	uint32_t i = map_slot(q->qp_num, size);
	while (map[i])
		i = (i + 1) & (size - 1);
	map[i] = q;
}

/* Rebuild the map at @size from the queue list (on growth, and on removal, which linear
 * probing cannot do in place). */
static int map_rebuild(struct nvmf_rdma_poll_group *pg, uint32_t size)
{
	struct nvmf_rdma_queue **map = calloc(size, sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (struct nvmf_rdma_queue *q = pg->queues; q; q = q->next)
		map_insert(map, size, q);
	free(pg->qp_map);
	pg->qp_map = map;
	pg->qp_map_size = size;
	return 0;
}

int nvmf_rdma_pg_add_queue(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_queue *q)
{
	if (2 * (pg->nqueues + 1) > pg->qp_map_size) {
		q->next = pg->queues; /* included in the rebuild */
		pg->queues = q;
		if (map_rebuild(pg, pg->qp_map_size * 2)) {
			pg->queues = q->next;
			return -ENOMEM;
		}
	} else {
		q->next = pg->queues;
		pg->queues = q;
		map_insert(pg->qp_map, pg->qp_map_size, q);
	}
	pg->nqueues++;
	return 0;
}

void nvmf_rdma_pg_remove_queue(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_queue *q)
{
	struct nvmf_rdma_queue **pp = &pg->queues;
	while (*pp && *pp != q)
		pp = &(*pp)->next;
	if (!*pp)
		return;
	*pp = q->next;
	pg->nqueues--;
	/* Clear the slot, then reinsert the rest of its probe run. */
	uint32_t size = pg->qp_map_size, i = map_slot(q->qp_num, size);
	while (pg->qp_map[i] && pg->qp_map[i] != q)
		i = (i + 1) & (size - 1);
	if (!pg->qp_map[i])
		return;
	pg->qp_map[i] = NULL;
	for (i = (i + 1) & (size - 1); pg->qp_map[i]; i = (i + 1) & (size - 1)) {
		struct nvmf_rdma_queue *o = pg->qp_map[i];
		pg->qp_map[i] = NULL;
		map_insert(pg->qp_map, size, o);
	}
}

struct nvmf_rdma_queue *nvmf_rdma_pg_find_qp(struct nvmf_rdma_poll_group *pg, uint32_t qp_num)
{
	uint32_t size = pg->qp_map_size;
	for (uint32_t i = map_slot(qp_num, size); pg->qp_map[i]; i = (i + 1) & (size - 1))
		if (pg->qp_map[i]->qp_num == qp_num)
			return pg->qp_map[i];
	return NULL;
}

int nvmf_rdma_pg_poll_cqs(struct nvmf_rdma_poll_group *pg, int budget)
{
	const struct nvmf_rdma_verbs *v = pg->t->verbs;
	struct ibv_wc wc[WC_BATCH];
	int total = 0;
	for (struct nvmf_rdma_pg_dev *d = pg->devs; d; d = d->next) {
		int got = 0;
		while (got < budget) {
			int k = v->poll_cq(d->cq, WC_BATCH, wc);
			if (k <= 0) {
				if (k < 0)
					NVMF_RDMA_LOG(pg->t, NVMF_LOG_ERROR,
						      "ibv_poll_cq: error %d", k);
				break;
			}
			for (int i = 0; i < k; i++)
				nvmf_rdma_handle_wc(pg, nvmf_rdma_pg_find_qp(pg, wc[i].qp_num),
						    &wc[i]);
			got += k;
			if (k < WC_BATCH)
				break;
		}
		total += got;
	}
	pg->wcs += (uint64_t)total;
	return total;
}

#define PUB(field, v) __atomic_store_n(&pg->pub.field, (v), __ATOMIC_RELAXED)

void nvmf_rdma_pg_flush_op(struct nvmf_tpg *tpg)
{
	struct nvmf_rdma_poll_group *pg = (struct nvmf_rdma_poll_group *)tpg;
	/* Posts the posting thread made that failed: their queues go down. */
	if (pg->poster.running)
		nvmf_rdma_poster_failures(&pg->poster);
	/* Requests waiting for a buffer another group (or this one) returned to the pool. */
	for (struct nvmf_rdma_pg_dev *d = pg->devs; d; d = d->next)
		if (!TAILQ_EMPTY(&d->buf_waiters))
			nvmf_rdma_pgd_kick(d);
	/* Receives first: the host may send its next capsule as soon as it sees a CQE. */
	struct nvmf_rdma_rq *rq = pg->dirty_rq, *retry = NULL;
	pg->dirty_rq = NULL;
	while (rq) {
		struct nvmf_rdma_rq *next = rq->next_dirty;
		int rc = nvmf_rdma_rq_flush(rq);
		pg->posts++;
		if (rc && rq->owner) {
			nvmf_rdma_queue_disconnect(rq->owner, "ibv_post_recv failed");
		} else if (rc && rq->head) {
			NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "ibv_post_srq_recv: %s (retried)",
				      strerror(rc));
			rq->dirty = true;
			rq->next_dirty = retry;
			retry = rq;
		}
		rq = next;
	}
	pg->dirty_rq = retry;
	struct nvmf_rdma_queue *q = pg->dirty_q;
	pg->dirty_q = NULL;
	while (q) {
		struct nvmf_rdma_queue *next = q->next_dirty;
		q->dirty = false;
		nvmf_rdma_queue_flush(q);
		pg->posts++;
		q = next;
	}
	/* At the end of each pass, what pg_stats reports (plain stores on x86: cheap). */
	uint32_t posted = 0, depth = 0;
	for (struct nvmf_rdma_pg_dev *d = pg->devs; d; d = d->next)
		if (d->srq) {
			posted += d->srq->posted;
			depth += d->srq->depth;
		}
	PUB(queues, pg->nqueues);
	PUB(dying, pg->ndying);
	PUB(recv_posted, posted);
	PUB(recv_depth, depth);
	PUB(bufs_held, pg->bufs_held);
}

#define GET(field) __atomic_load_n(&pg->pub.field, __ATOMIC_RELAXED)

void nvmf_rdma_pg_stats_op(const struct nvmf_tpg *tpg, struct nvmf_tpg_stats *out)
{
	const struct nvmf_rdma_poll_group *pg = (const struct nvmf_rdma_poll_group *)tpg;
	out->queues = GET(queues);
	out->dying = GET(dying);
	out->recv_posted = GET(recv_posted);
	out->recv_depth = GET(recv_depth);
	out->bufs_held = GET(bufs_held);
}

void nvmf_rdma_pg_stats(const struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_pg_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (const struct nvmf_rdma_pg_dev *d = pg->devs; d; d = d->next) {
		for (unsigned i = 0; i < NVMF_RDMA_POOL_CLASSES; i++)
			st->bufs_cached += d->cache[i].n;
		if (!d->srq)
			continue;
		st->srq_depth += d->srq->depth;
		st->srq_posted += d->srq->posted;
		for (const struct ibv_recv_wr *w = d->srq->head; w; w = w->next)
			st->srq_chained++;
	}
	for (const struct nvmf_rdma_queue *q = pg->queues; q; q = q->next) {
		st->queues++;
		if (q->state != NVMF_RDMA_Q_DYING)
			continue;
		st->dying++;
		if (q->rq->srq && q->dev->last_wqe_event && !q->last_wqe)
			st->waiting_last_wqe++;
	}
	st->last_wqe_events = pg->last_wqe_events;
	st->last_wqe_timeouts = pg->last_wqe_timeouts;
	st->wcs = pg->wcs;
	st->posts = pg->posts;
}

int nvmf_rdma_pg_reap(struct nvmf_rdma_poll_group *pg, bool force)
{
	uint64_t now = nvmf_clock_ms(pg->t->clock);
	int n = 0;
	for (struct nvmf_rdma_queue *q = pg->queues, *next; q && pg->ndying; q = next) {
		next = q->next;
		if (q->state == NVMF_RDMA_Q_DYING && nvmf_rdma_queue_reap(q, now, force))
			n++;
	}
	return n;
}

/* ---- the poll-group ops of the transport ---- */

struct nvmf_tpg *nvmf_rdma_pg_create_op(struct nvmf_transport *base, struct nvmf_pg *core_pg,
					char *err, size_t errlen)
{
	struct nvmf_rdma_transport *t = (struct nvmf_rdma_transport *)base;
	struct nvmf_rdma_poll_group *pg = malloc(sizeof(*pg));
	if (!pg || nvmf_rdma_pg_init(pg, t)) {
		free(pg);
		snprintf(err, errlen, "rdma transport: out of memory");
		return NULL;
	}
	pg->base.pg = core_pg;
	pg->ngroups = nvmf_transport_npgs(base);
	pg->admin_only = !core_pg->serves_io;
	/* The main group takes the listeners' channel; others one of their own for the
	 * queues migrated to them (none without a CM, as in the unit tests). */
	if (core_pg->index == 0 || !t->ec) {
		pg->ec = t->ec;
		return &pg->base;
	}
	pg->ec = t->verbs->create_event_channel();
	int fl = pg->ec ? fcntl(pg->ec->fd, F_GETFL) : -1;
	if (fl < 0 || fcntl(pg->ec->fd, F_SETFL, fl | O_NONBLOCK) ||
	    nvmf_pg_add_wait_fd(core_pg, pg->ec->fd)) {
		snprintf(err, errlen, "poll group %u: rdma event channel: %s", core_pg->index,
			 strerror(errno));
		if (pg->ec)
			t->verbs->destroy_event_channel(pg->ec);
		nvmf_rdma_pg_fini(pg);
		free(pg);
		return NULL;
	}
	return &pg->base;
}

void nvmf_rdma_pg_destroy_op(struct nvmf_tpg *tpg)
{
	struct nvmf_rdma_poll_group *pg = (struct nvmf_rdma_poll_group *)tpg;
	if (pg->queues)
		NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "poll group %u: %u queue(s) still allocated",
			      tpg->pg->index, pg->nqueues);
	NVMF_RDMA_LOG(pg->t, NVMF_LOG_INFO, "poll group %u%s: %llu completions, %llu posts",
		      tpg->pg->index, tpg->pg->index ? "" : " (main)", (unsigned long long)pg->wcs,
		      (unsigned long long)pg->posts);
	if (pg->poster.running) {
		nvmf_rdma_poster_stop(&pg->poster);
		NVMF_RDMA_LOG(pg->t, NVMF_LOG_INFO,
			      "poll group %u: posting thread: %llu chains handed over, %llu posts",
			      tpg->pg->index, (unsigned long long)pg->poster.handed,
			      (unsigned long long)pg->poster.posts);
	}
	/* The main group read the devices' asynchronous events. */
	for (struct nvmf_rdma_device *d = tpg->pg->index ? NULL : pg->t->devices; d; d = d->next)
		nvmf_pg_del_wait_fd(tpg->pg, d->dev->verbs->async_fd);
	nvmf_rdma_pg_fini(pg);
	if (pg->ec && pg->ec != pg->t->ec) {
		nvmf_pg_del_wait_fd(tpg->pg, pg->ec->fd);
		pg->t->verbs->destroy_event_channel(pg->ec);
	}
	free(pg);
}

int nvmf_rdma_pg_poll_op(struct nvmf_tpg *tpg)
{
	struct nvmf_rdma_poll_group *pg = (struct nvmf_rdma_poll_group *)tpg;
	/* The CM channel and (main group) the devices' asynchronous events cost a system call
	 * per look: while busy, look every millisecond (and at once after a sleep: their
	 * descriptors may be what woke the group). Events first: a LAST_WQE_REACHED is then
	 * followed by this pass's look at the CQ before its queue may be reaped. */
	int n = 0;
	uint64_t now = tpg->pg->now_us;
	if (now >= pg->cm_next_us) {
		if (pg->ec)
			n = nvmf_rdma_process_cm_events(pg);
		if (tpg->pg->index == 0)
			n += nvmf_rdma_process_async_events(pg);
		pg->cm_next_us = now + CM_LOOK_US;
	}
	n += nvmf_rdma_pg_poll_cqs(pg, CQ_BUDGET);
	if (pg->ndying)
		n += nvmf_rdma_pg_reap(pg, false);
	return n;
}

bool nvmf_rdma_pg_idle_op(struct nvmf_tpg *tpg)
{
	return !((struct nvmf_rdma_poll_group *)tpg)->queues;
}

void nvmf_rdma_pg_arm_op(struct nvmf_tpg *tpg)
{
	struct nvmf_rdma_poll_group *pg = (struct nvmf_rdma_poll_group *)tpg;
	for (struct nvmf_rdma_pg_dev *d = pg->devs; d; d = d->next)
		pg->t->verbs->req_notify_cq(d->cq);
}

void nvmf_rdma_pg_woken_op(struct nvmf_tpg *tpg)
{
	struct nvmf_rdma_poll_group *pg = (struct nvmf_rdma_poll_group *)tpg;
	for (struct nvmf_rdma_pg_dev *d = pg->devs; d; d = d->next)
		pg->t->verbs->ack_channel(d->channel);
	pg->cm_next_us = 0;
}
