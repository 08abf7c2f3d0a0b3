/* SPDX-License-Identifier: MIT */
/*
 * The poll loop of the one poll group: CM events, completions in batches, the backend's
 * io_uring (tgt->aio), keep-alive timers every 100 ms and the reaping of disconnected
 * queues. After idle_poll_us without work it arms every CQ and sleeps in epoll on the CM
 * channel, the devices' completion channels and the aio eventfd, so an idle target uses
 * no CPU. Also the orderly shutdown (SIGTERM).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include "rdma/internal.h"

#define CQ_BATCH        32
#define AIO_BATCH       64
#define TIMER_PERIOD_MS 100
#define DEFAULT_IDLE_US 200

uint64_t nvmf_rdma_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* One batch from every queue's CQ (no queue is freed while completions are handled). */
static int poll_cqs(struct nvmf_rdma_transport *t)
{
	struct ibv_wc wc[CQ_BATCH];
	int n = 0;
	for (struct nvmf_rdma_queue *q = t->queues; q; q = q->next) {
		int k = ibv_poll_cq(q->cq, CQ_BATCH, wc);
		if (k < 0) {
			nvmf_rdma_queue_disconnect(q, "ibv_poll_cq failed");
			continue;
		}
		for (int i = 0; i < k; i++)
			nvmf_rdma_handle_wc(q, &wc[i]);
		n += k;
	}
	return n;
}

static int poll_aio(struct nvmf_rdma_transport *t)
{
	struct nvmf_aio *aio = t->tgt->aio;
	if (!aio)
		return 0;
	if (aio->queued)
		nvmf_aio_flush(aio);
	int n = 0;
	if (aio->inflight)
		n = (int)nvmf_aio_poll(aio, AIO_BATCH);
	/* Commands the backend refused with a full ring go again now that slots freed. */
	if (t->tgt->retry_head) {
		nvmf_tgt_retry_pending(t->tgt);
		n++;
	}
	/* Completions may have queued more (continuations, follow-up I/O). */
	if (aio->queued)
		nvmf_aio_flush(aio);
	return n;
}

static int reap_queues(struct nvmf_rdma_transport *t, bool force)
{
	uint64_t now = nvmf_rdma_now_us() / 1000;
	int n = 0;
	struct nvmf_rdma_queue *q = t->queues, *next;
	for (; q; q = next) {
		next = q->next;
		if (q->state == NVMF_RDMA_Q_DYING && nvmf_rdma_queue_reap(q, now, force))
			n++;
	}
	return n;
}

/* Arm notification on every CQ, then look once more: a completion that arrived before
 * the arm would otherwise sleep until the next one. Returns the work found. */
static int arm_cqs(struct nvmf_rdma_transport *t)
{
	for (struct nvmf_rdma_queue *q = t->queues; q; q = q->next)
		ibv_req_notify_cq(q->cq, 0);
	return poll_cqs(t);
}

/* Consume completion-channel events so the fds stop being readable. */
static void drain_channels(struct nvmf_rdma_transport *t)
{
	for (struct nvmf_rdma_device *d = t->devices; d; d = d->next) {
		struct ibv_cq *cq;
		void *ctx;
		while (ibv_get_cq_event(d->channel, &cq, &ctx) == 0)
			ibv_ack_cq_events(cq, 1);
	}
}

int nvmf_rdma_poll(struct nvmf_rdma_transport *t, int max_sleep_ms)
{
	struct nvmf_tgt *tgt = t->tgt;
	int n = 0;
	n += nvmf_rdma_process_cm_events(t);
	n += poll_cqs(t);
	n += poll_aio(t);
	n += reap_queues(t, false);

	uint64_t now = nvmf_rdma_now_us();
	if (now / 1000 - t->last_timer_ms >= TIMER_PERIOD_MS) {
		t->last_timer_ms = now / 1000;
		if (tgt->now_ms)
			nvmf_tgt_poll_timers(tgt);
	}
	if (n) {
		t->last_work_us = now;
		return n;
	}
	uint32_t idle_us = tgt->cfg ? tgt->cfg->target.idle_poll_us : DEFAULT_IDLE_US;
	if (now - t->last_work_us < idle_us)
		return 0;

	n = arm_cqs(t);
	if (n) {
		t->last_work_us = now;
		return n;
	}
	/* Sleep, but wake for the next timer tick (keep-alive, dying queues). */
	uint64_t since = now / 1000 - t->last_timer_ms;
	int timeout = (int)(since >= TIMER_PERIOD_MS ? 0 : TIMER_PERIOD_MS - since);
	if (max_sleep_ms >= 0 && max_sleep_ms < timeout)
		timeout = max_sleep_ms;
	struct epoll_event evs[8];
	int rc = epoll_wait(t->epfd, evs, 8, timeout);
	if (rc < 0 && errno != EINTR) {
		NVMF_RDMA_LOG("epoll_wait: %s\n", strerror(errno));
		return -1;
	}
	drain_channels(t);
	return 0;
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
	for (struct nvmf_rdma_queue *q = t->queues; q; q = q->next)
		nvmf_rdma_queue_disconnect(q, NULL);
	uint64_t deadline = nvmf_rdma_now_us() / 1000 + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	while (t->queues && nvmf_rdma_now_us() / 1000 < deadline) {
		if (nvmf_rdma_poll(t, 10) < 0)
			break;
	}
	reap_queues(t, true);
	if (t->queues) {
		/* Something is still in a backend after the timeout: leak rather than free
		 * memory an I/O will still complete into. */
		unsigned left = 0;
		for (struct nvmf_rdma_queue *q = t->queues; q; q = q->next)
			left++;
		NVMF_RDMA_LOG("shutdown: %u queue(s) still busy after %d ms, left allocated\n", left, timeout_ms);
		return;
	}
	struct nvmf_rdma_device *d;
	while ((d = t->devices)) {
		t->devices = d->next;
		nvmf_rdma_device_free(d);
	}
	close(t->epfd);
	rdma_destroy_event_channel(t->ec);
	free(t);
}
