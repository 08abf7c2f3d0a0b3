/* SPDX-License-Identifier: MIT */
/*
 * A poll group's posting thread: it makes the group's large ibv_post_send calls so that
 * the poll loop keeps reaping completions, starting commands and copying data while a
 * chain is sent.
 *
 * Why: on a software device (soft-RoCE, siw) a user-space QP's send work - cutting an
 * RDMA WRITE or READ response into MTU packets, copying, checksumming, and on loopback
 * the peer's receive too - runs inside the post's system call, in the caller's thread
 * (the kernel's rxe runs a user QP's requester in process context). A 128 KiB chain
 * holds the poll loop for the whole transfer; the kernel target's sends run in softirq
 * instead. A hardware NIC does this work itself and a post is a doorbell write: there the
 * thread is pure cost, so it serves only queues on software devices (see
 * nvmf_rdma_device.soft) unless the configuration says otherwise.
 *
 * Only the group's thread decides, only the poster thread posts what was handed over, and
 * each queue's chains are posted in the order they were handed over: a queue's chain goes
 * to the poster when it holds an RDMA WRITE of at least post_bytes (a read command's data:
 * an RDMA READ's own post sends one request packet), or while an earlier chain of the
 * queue is still with the poster (a SEND must not overtake the RDMA WRITE it
 * answers). Small chains of idle queues are posted inline: no wake-up on the 4 KiB path.
 * What a failed post leaves (the WRs the device did not take) comes back to the group's
 * thread, which disconnects the queue and finishes those requests as an inline failure
 * does; every chain the queue hands over until then waits with them, so nothing of the
 * queue reaches the device after a refused WR. A queue is not freed while the poster
 * holds any of its chains. The thread runs on the process's CPUs, not on the one its
 * group is pinned to (the transport reads them at start-up).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/target/internal.h"

/* @q's waiting chains taken off it (the caller keeps what it read). Lock held. */
static void clear_waiting(struct nvmf_rdma_queue *q)
{
	q->post_head = NULL;
	q->post_tailp = &q->post_head;
	q->post_chains = 0;
	q->post_last_send = NULL;
}

/* @q at the end of @p's list of queues to post. Lock held. */
static void list_queue(struct nvmf_rdma_poster *p, struct nvmf_rdma_queue *q)
{
	q->post_listed = true;
	q->post_next = NULL;
	*p->tailp = q;
	p->tailp = &q->post_next;
}

/* Post the chains of the first queue listed, if any: lock held on entry and on return
 * (dropped around the post). Sets *@wake after a failure. false: nothing was listed. */
static bool post_next(struct nvmf_rdma_poster *p, bool *wake)
{
	struct nvmf_rdma_queue *q = p->head;
	if (!q)
		return false;
	p->head = q->post_next;
	if (!p->head)
		p->tailp = &p->head;
	struct ibv_send_wr *wr = q->post_head, *bad = NULL;
	uint32_t chains = q->post_chains;
	clear_waiting(q);
	q->post_listed = false;
	q->post_busy = true;
	pthread_mutex_unlock(&p->lock);

	int rc = p->verbs->post_send(q->qp, wr, &bad);

	pthread_mutex_lock(&p->lock);
	q->post_busy = false;
	p->posts++;
	if (rc) {
		/* From @bad on nothing reached the device, and nothing of the queue may reach
		 * it after them: the chains handed over meanwhile go with them. The group
		 * disconnects the queue and finishes them all (nvmf_rdma_poster_failures);
		 * until then they count as pending, so that every later chain of the queue
		 * comes here too (nvmf_rdma_poster_take) instead of being posted. */
		q->post_bad = bad;
		struct ibv_send_wr **tail = &q->post_bad;
		while (*tail)
			tail = &(*tail)->next;
		*tail = q->post_head;
		q->post_bad_tailp = q->post_tailp == &q->post_head ? tail : q->post_tailp;
		q->post_failed_chains = chains + q->post_chains;
		clear_waiting(q);
		q->post_error = rc;
		q->post_failed = true;
		q->post_failed_next = p->failed;
		p->failed = q;
		__atomic_store_n(&p->has_failed, true, __ATOMIC_RELEASE);
		*wake = true;
		return true;
	}
	/* Chains handed over while this one was posted waited for it: list the queue now. */
	if (q->post_head && !q->post_listed)
		list_queue(p, q);
	__atomic_sub_fetch(&q->post_pending, chains, __ATOMIC_RELEASE);
	return true;
}

static void *poster_main(void *arg)
{
	struct nvmf_rdma_poster *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		bool wake = false;
		if (post_next(p, &wake)) {
			if (wake && p->wake) {
				/* A sleeping group would not look at its failures: no completion
				 * comes for WRs the device never took. */
				pthread_mutex_unlock(&p->lock);
				nvmf_pg_wake(p->wake);
				pthread_mutex_lock(&p->lock);
			}
			continue;
		}
		if (p->stop)
			break;
		p->sleeping = true;
		pthread_cond_wait(&p->cond, &p->lock);
		p->sleeping = false;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int nvmf_rdma_poster_start(struct nvmf_rdma_poster *p, const struct nvmf_rdma_verbs *verbs,
			   struct nvmf_pg *wake, uint32_t post_bytes, bool threaded,
			   const cpu_set_t *cpus, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->verbs = verbs;
	p->wake = wake;
	p->post_bytes = post_bytes;
	p->tailp = &p->head;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (cpus)
		pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	int rc = threaded ? pthread_create(&p->thread, &attr, poster_main, p) : 0;
	pthread_attr_destroy(&attr);
	if (rc) {
		snprintf(err, errlen, "posting thread: %s", strerror(rc));
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		return -1;
	}
	if (threaded)
		pthread_setname_np(p->thread, "nvmf-post"); /* for top -H and perf; best effort */
	p->threaded = threaded;
	p->running = true;
	return 0;
}

void nvmf_rdma_poster_drain(struct nvmf_rdma_poster *p)
{
	bool wake = false;
	pthread_mutex_lock(&p->lock);
	while (post_next(p, &wake))
		;
	pthread_mutex_unlock(&p->lock);
}

void nvmf_rdma_poster_stop(struct nvmf_rdma_poster *p)
{
	if (!p->running)
		return;
	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	} else {
		nvmf_rdma_poster_drain(p);
	}
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	p->running = false;
}

bool nvmf_rdma_poster_take(struct nvmf_rdma_poster *p, struct nvmf_rdma_queue *q,
			   struct ibv_send_wr *wr, struct ibv_send_wr *send, uint32_t largest)
{
	if (!p->running ||
	    (largest < p->post_bytes && !__atomic_load_n(&q->post_pending, __ATOMIC_ACQUIRE)))
		return false;
	struct ibv_send_wr *last = wr;
	while (last->next)
		last = last->next;
	pthread_mutex_lock(&p->lock);
	__atomic_add_fetch(&q->post_pending, 1, __ATOMIC_RELAXED);
	p->handed++;
	if (q->post_failed) {
		/* A post of the queue failed and the group has not handled it yet: this chain
		 * must not reach the device after the refused WRs. */
		*q->post_bad_tailp = wr;
		q->post_bad_tailp = &last->next;
		q->post_failed_chains++;
		pthread_mutex_unlock(&p->lock);
		return true;
	}
	*q->post_tailp = wr;
	q->post_tailp = &last->next;
	q->post_chains++;
	/* Chains waiting together go in one post, which signals only its last SEND: the
	 * earlier one's completion is then that SEND's (RC completes in order). */
	if (send) {
		if (q->post_last_send)
			q->post_last_send->send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
		q->post_last_send = send;
	}
	if (!q->post_listed && !q->post_busy)
		list_queue(p, q);
	if (p->threaded && p->sleeping)
		pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return true;
}

bool nvmf_rdma_poster_busy(struct nvmf_rdma_poster *p, struct nvmf_rdma_queue *q)
{
	if (!p->running)
		return false;
	if (__atomic_load_n(&q->post_pending, __ATOMIC_ACQUIRE))
		return true;
	pthread_mutex_lock(&p->lock);
	bool failed = q->post_failed;
	pthread_mutex_unlock(&p->lock);
	return failed;
}

int nvmf_rdma_poster_failures(struct nvmf_rdma_poster *p)
{
	if (!p->running || !__atomic_load_n(&p->has_failed, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&p->lock);
	struct nvmf_rdma_queue *q = p->failed;
	p->failed = NULL;
	__atomic_store_n(&p->has_failed, false, __ATOMIC_RELAXED);
	int n = 0;
	while (q) {
		struct nvmf_rdma_queue *next = q->post_failed_next;
		struct ibv_send_wr *bad = q->post_bad;
		int rc = q->post_error;
		q->post_bad = NULL;
		q->post_failed = false;
		__atomic_sub_fetch(&q->post_pending, q->post_failed_chains, __ATOMIC_RELEASE);
		q->post_failed_chains = 0;
		pthread_mutex_unlock(&p->lock);
		char why[64];
		snprintf(why, sizeof(why), "ibv_post_send failed: %s", strerror(rc));
		nvmf_rdma_queue_disconnect(q, why);
		nvmf_rdma_queue_unpost(bad);
		n++;
		pthread_mutex_lock(&p->lock);
		q = next;
	}
	pthread_mutex_unlock(&p->lock);
	return n;
}
