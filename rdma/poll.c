/* SPDX-License-Identifier: MIT */
/*
 * The poll loop of the one poll group: CM events, completions in batches, the backend's
 * io_uring (tgt->io.aio), then one post per QP and SRQ for everything the pass produced,
 * keep-alive timers every 100 ms and the reaping of disconnected queues. After
 * idle_poll_us without work it arms the group's CQs and sleeps in epoll on the CM
 * channel, the completion channels and the aio eventfd, so an idle target uses no CPU.
 * Also the orderly shutdown (SIGTERM).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include "rdma/internal.h"

#define CQ_BUDGET       128   /* completions per CQ per pass */
#define AIO_BATCH       64
#define TIMER_PERIOD_MS 100
#define DEFAULT_IDLE_US 1000

uint64_t nvmf_rdma_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int nvmf_rdma_poll_aio(struct nvmf_io_ctx *io)
{
	struct nvmf_aio *aio = io->aio;
	if (!aio)
		return 0;
	if (aio->queued)
		nvmf_aio_flush(aio);
	int n = 0;
	if (aio->inflight)
		n = (int)nvmf_aio_poll(aio, AIO_BATCH);
	/* Commands the backend refused with a full ring go again now that slots freed. */
	if (io->retry_head) {
		nvmf_io_retry_pending(io);
		n++;
	}
	/* Completions may have queued more (continuations, follow-up I/O). */
	if (aio->queued)
		nvmf_aio_flush(aio);
	return n;
}

int nvmf_rdma_reap_queues(struct nvmf_rdma_poll_group *pg, bool force)
{
	uint64_t now = nvmf_rdma_now_us() / 1000;
	int n = 0;
	struct nvmf_rdma_queue *q = pg->queues, *next;
	for (; q; q = next) {
		next = q->next;
		if (q->state == NVMF_RDMA_Q_DYING && nvmf_rdma_queue_reap(q, now, force))
			n++;
	}
	return n;
}

/* Sleep in epoll up to @timeout_ms, then ack the completion-channel events. */
static int wait_events(struct nvmf_rdma_poll_group *pg, int timeout_ms)
{
	struct epoll_event evs[8];
	int rc = epoll_wait(pg->epfd, evs, 8, timeout_ms);
	if (rc < 0 && errno != EINTR) {
		NVMF_RDMA_LOG("epoll_wait: %s\n", strerror(errno));
		return -1;
	}
	nvmf_rdma_pg_drain_events(pg);
	return 0;
}

int nvmf_rdma_pg_sleep(struct nvmf_rdma_poll_group *pg, int timeout_ms)
{
	/* Arm, then look once more: a completion that arrived before the arm would
	 * otherwise sleep until the next one. */
	nvmf_rdma_pg_arm(pg);
	int n = nvmf_rdma_pg_poll_cqs(pg, CQ_BUDGET);
	if (n) {
		nvmf_rdma_pg_flush(pg);
		pg->last_work_us = nvmf_rdma_now_us();
		return n;
	}
	return wait_events(pg, timeout_ms);
}

/* One pass of the main poll group's work. */
static int main_pass(struct nvmf_rdma_transport *t)
{
	struct nvmf_tgt *tgt = t->tgt;
	struct nvmf_rdma_poll_group *pg = &t->pg;
	int n = 0;
	n += nvmf_rdma_process_cm_events(t, t->ec);
	n += nvmf_rdma_pg_poll_cqs(pg, CQ_BUDGET);
	n += nvmf_rdma_poll_aio(&tgt->io);
	nvmf_rdma_pg_kick_waiters(pg);
	/* Everything this pass produced: one post per QP and SRQ. */
	nvmf_rdma_pg_flush(pg);
	n += nvmf_rdma_reap_queues(pg, false);
	uint64_t now = nvmf_rdma_now_us();
	if (now / 1000 - t->last_timer_ms >= TIMER_PERIOD_MS) {
		t->last_timer_ms = now / 1000;
		if (tgt->now_ms)
			nvmf_tgt_poll_timers(tgt);
		nvmf_rdma_pg_flush(pg);
	}
	return n;
}

int nvmf_rdma_poll(struct nvmf_rdma_transport *t, int max_sleep_ms)
{
	struct nvmf_tgt *tgt = t->tgt;
	struct nvmf_rdma_poll_group *pg = &t->pg;
	/* With workers the core is shared: the main thread holds it while it works, never
	 * while it sleeps. */
	if (t->nworkers)
		pthread_mutex_lock(&t->core_lock);
	int n = main_pass(t);
	uint64_t now = nvmf_rdma_now_us();
	uint32_t idle_us = tgt->cfg ? tgt->cfg->target.idle_poll_us : DEFAULT_IDLE_US;
	bool sleep = !n && now - pg->last_work_us >= idle_us;
	if (sleep) {
		/* Arm, then look once more: a completion that arrived before the arm would
		 * otherwise sleep until the next one. */
		nvmf_rdma_pg_arm(pg);
		n = nvmf_rdma_pg_poll_cqs(pg, CQ_BUDGET);
		if (n)
			nvmf_rdma_pg_flush(pg);
	}
	if (t->nworkers)
		pthread_mutex_unlock(&t->core_lock);
	if (n) {
		pg->passes++;
		pg->last_work_us = now;
		return n;
	}
	if (!sleep)
		return 0;
	/* Sleep, but wake for the next timer tick (keep-alive, dying queues). */
	uint64_t since = now / 1000 - t->last_timer_ms;
	int timeout = (int)(since >= TIMER_PERIOD_MS ? 0 : TIMER_PERIOD_MS - since);
	if (max_sleep_ms >= 0 && max_sleep_ms < timeout)
		timeout = max_sleep_ms;
	return wait_events(pg, timeout);
}

void nvmf_rdma_shutdown(struct nvmf_rdma_transport *t, int timeout_ms)
{
	if (!t)
		return;
	t->shutting_down = true;
	struct nvmf_rdma_listener *l;
	while ((l = t->listeners)) {
		t->listeners = l->next;
		l->port->transport_priv = NULL;
		rdma_destroy_id(l->id);
		free(l);
	}
	struct nvmf_rdma_poll_group *pg = &t->pg;
	/* Workers first: their I/O queues go, then the admin queues here. */
	nvmf_rdma_workers_stop(t, timeout_ms);
	for (struct nvmf_rdma_queue *q = pg->queues; q; q = q->next)
		nvmf_rdma_queue_disconnect(q, NULL);
	uint64_t deadline = nvmf_rdma_now_us() / 1000 + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	while (pg->queues && nvmf_rdma_now_us() / 1000 < deadline) {
		if (nvmf_rdma_poll(t, 10) < 0)
			break;
	}
	nvmf_rdma_pg_flush(pg);
	nvmf_rdma_reap_queues(pg, true);
	if (pg->queues) {
		/* Something is still in a backend after the timeout: leak rather than free
		 * memory an I/O will still complete into. */
		unsigned left = 0;
		for (struct nvmf_rdma_queue *q = pg->queues; q; q = q->next)
			left++;
		NVMF_RDMA_LOG("shutdown: %u queue(s) still busy after %d ms, left allocated\n", left, timeout_ms);
		return;
	}
	NVMF_RDMA_LOG("poll group 0 (main): %llu completions, %llu posts in %llu busy passes\n",
		      (unsigned long long)pg->wcs, (unsigned long long)pg->posts,
		      (unsigned long long)pg->passes);
	nvmf_rdma_pg_fini(pg);
	pthread_mutex_destroy(&t->core_lock);
	struct nvmf_rdma_device *d;
	while ((d = t->devices)) {
		t->devices = d->next;
		nvmf_rdma_device_free(d);
	}
	close(t->epfd);
	rdma_destroy_event_channel(t->ec);
	free(t);
}
