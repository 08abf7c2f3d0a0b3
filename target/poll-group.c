/* SPDX-License-Identifier: MIT */
/* Poll groups: the pass, the adaptive sleep, messages, timers, threads (see poll-group.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "target/core.h"
#include "target/log.h"
#include "util/clock.h"

#define AIO_BATCH    64  /* backend completions reaped per call */
#define MAX_SLEEP_MS 100 /* never sleep longer: stop flags, clocks in tests */

static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int nvmf_pg_init(struct nvmf_pg *pg, struct nvmf_tgt *tgt, unsigned index, unsigned aio_depth,
		 uint32_t idle_poll_us, char *err, size_t errlen)
{
	memset(pg, 0, sizeof(*pg));
	pg->tgt = tgt;
	pg->index = index;
	pg->serves_io = true;
	pg->idle_poll_us = idle_poll_us;
	pg->cpu = -1;
	pg->epfd = pg->wake_fd = -1;
	pg->msg_tail = &pg->msg_head;
	pthread_mutex_init(&pg->msg_lock, NULL);
	int e = nvmf_aio_init(&pg->aio, aio_depth);
	if (e) {
		snprintf(err, errlen, "poll group %u: io_uring setup: %s", index, strerror(-e));
		pthread_mutex_destroy(&pg->msg_lock);
		return -1;
	}
	pg->io.aio = &pg->aio;
	pg->epfd = epoll_create1(EPOLL_CLOEXEC);
	pg->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (pg->epfd < 0 || pg->wake_fd < 0 || (e = epoll_add(pg->epfd, pg->wake_fd)) ||
	    (e = epoll_add(pg->epfd, pg->aio.event_fd))) {
		snprintf(err, errlen, "poll group %u: epoll/eventfd: %s", index,
			 strerror(e ? -e : errno));
		nvmf_pg_fini(pg);
		return -1;
	}
	pg->now_us = pg->last_work_us = nvmf_mono_us();
	pg->now_ms = nvmf_tgt_now_ms(tgt);
	return 0;
}

void nvmf_pg_fini(struct nvmf_pg *pg)
{
	struct nvmf_msg *m = pg->msg_head;
	while (m) {
		struct nvmf_msg *next = m->next;
		if (m->heap)
			free(m);
		m = next;
	}
	pg->msg_head = NULL;
	if (pg->epfd >= 0)
		close(pg->epfd);
	if (pg->wake_fd >= 0)
		close(pg->wake_fd);
	if (pg->io.aio)
		nvmf_aio_fini(&pg->aio);
	pg->io.aio = NULL;
	pg->epfd = pg->wake_fd = -1;
	pthread_mutex_destroy(&pg->msg_lock);
}

/* ---- messages ---- */

void nvmf_pg_wake(struct nvmf_pg *pg)
{
	uint64_t one = 1;
	/* EAGAIN: the counter is saturated, the group is awake anyway. */
	if (write(pg->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		nvmf_log(pg->tgt, NVMF_LOG_ERROR, "poll group %u: wake: %s", pg->index,
			 strerror(errno));
}

static void enqueue(struct nvmf_pg *pg, struct nvmf_msg *m)
{
	m->next = NULL;
	pthread_mutex_lock(&pg->msg_lock);
	/* Atomic: when the queue was empty this is msg_head, which the owner peeks at
	 * without the lock. */
	__atomic_store_n(pg->msg_tail, m, __ATOMIC_RELEASE);
	pg->msg_tail = &m->next;
	pthread_mutex_unlock(&pg->msg_lock);
	nvmf_pg_wake(pg);
}

void nvmf_pg_post(struct nvmf_pg *pg, struct nvmf_msg *m)
{
	m->heap = false;
	enqueue(pg, m);
}

int nvmf_pg_send(struct nvmf_pg *pg, nvmf_msg_fn fn, void *arg)
{
	struct nvmf_msg *m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->fn = fn;
	m->arg = arg;
	m->heap = true;
	enqueue(pg, m);
	return 0;
}

/* Run the messages posted so far (not those they post: the next pass takes those). */
static int run_msgs(struct nvmf_pg *pg)
{
	pthread_mutex_lock(&pg->msg_lock);
	struct nvmf_msg *m = pg->msg_head;
	pg->msg_head = NULL;
	pg->msg_tail = &pg->msg_head;
	pthread_mutex_unlock(&pg->msg_lock);
	int n = 0;
	while (m) {
		struct nvmf_msg *next = m->next;
		bool heap = m->heap;
		m->fn(m->arg); /* may repost or free m */
		if (heap)
			free(m);
		m = next;
		n++;
	}
	NVMF_PG_COUNT(pg->msgs, (uint64_t)n);
	return n;
}

/* ---- for each group ---- */

struct for_each {
	void (*fn)(struct nvmf_pg *pg, void *arg);
	void (*done)(void *arg);
	void *arg;
	struct nvmf_pg *origin;
	unsigned remaining; /* atomic */
	struct nvmf_msg done_msg;
	struct for_each_visit {
		struct nvmf_msg msg;
		struct for_each *fe;
		struct nvmf_pg *pg;
	} visit[];
};

static void for_each_done(void *arg)
{
	struct for_each *fe = arg;
	fe->done(fe->arg);
	free(fe);
}

static void for_each_visit(void *arg)
{
	struct for_each_visit *v = arg;
	struct for_each *fe = v->fe;
	fe->fn(v->pg, fe->arg);
	if (__atomic_sub_fetch(&fe->remaining, 1, __ATOMIC_ACQ_REL) == 0)
		nvmf_pg_post(fe->origin, &fe->done_msg);
}

int nvmf_tgt_for_each_pg(struct nvmf_tgt *tgt, struct nvmf_pg *origin,
			 void (*fn)(struct nvmf_pg *pg, void *arg), void *arg,
			 void (*done)(void *arg))
{
	struct for_each *fe = calloc(1, sizeof(*fe) + tgt->npgs * sizeof(fe->visit[0]));
	if (!fe)
		return -ENOMEM;
	fe->fn = fn;
	fe->done = done;
	fe->arg = arg;
	fe->origin = origin;
	fe->remaining = tgt->npgs;
	fe->done_msg.fn = for_each_done;
	fe->done_msg.arg = fe;
	/* Prepared before the first is posted: a fast group must not free fe under us. */
	unsigned n = tgt->npgs;
	if (!n) { /* no group to visit: all of them have run */
		nvmf_pg_post(origin, &fe->done_msg);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		fe->visit[i].fe = fe;
		fe->visit[i].pg = tgt->pgs[i];
		fe->visit[i].msg.fn = for_each_visit;
		fe->visit[i].msg.arg = &fe->visit[i];
	}
	for (unsigned i = 0; i < n; i++)
		nvmf_pg_post(tgt->pgs[i], &fe->visit[i].msg);
	return 0;
}

/* ---- timers ---- */

void nvmf_pg_timer_start(struct nvmf_pg *pg, struct nvmf_timer *t, uint64_t period_ms,
			 void (*fn)(void *arg), void *arg)
{
	t->period_ms = period_ms;
	t->next_ms = nvmf_tgt_now_ms(pg->tgt) + period_ms;
	t->fn = fn;
	t->arg = arg;
	t->next = pg->timers;
	pg->timers = t;
}

void nvmf_pg_timer_stop(struct nvmf_pg *pg, struct nvmf_timer *t)
{
	for (struct nvmf_timer **pp = &pg->timers; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			return;
		}
}

static void run_timers(struct nvmf_pg *pg)
{
	for (struct nvmf_timer *t = pg->timers, *next; t; t = next) {
		next = t->next;
		if (pg->now_ms < t->next_ms)
			continue;
		t->next_ms = pg->now_ms + t->period_ms;
		t->fn(t->arg);
	}
}

/* Milliseconds until the first timer is due (MAX_SLEEP_MS at most). */
static int timer_wait_ms(const struct nvmf_pg *pg)
{
	uint64_t wait = MAX_SLEEP_MS;
	for (const struct nvmf_timer *t = pg->timers; t; t = t->next) {
		uint64_t w = t->next_ms > pg->now_ms ? t->next_ms - pg->now_ms : 0;
		if (w < wait)
			wait = w;
	}
	return (int)wait;
}

/* ---- the pass ---- */

/* Backend I/O: submit what the pass queued, reap, resubmit what a full ring refused. */
static int run_aio(struct nvmf_pg *pg)
{
	struct nvmf_aio *aio = &pg->aio;
	if (aio->queued)
		nvmf_aio_flush(aio);
	int n = 0;
	/* Once more after the last completion: that clears its eventfd signal, which may
	 * land after the read that reaped it (else an idle group would wake in a loop).
	 * Remote ops (a librbd backend) count as busy: their completions come by the same
	 * eventfd, which the group sleeps on. */
	if (nvmf_aio_busy(aio) || aio->reaped_last)
		n = (int)nvmf_aio_poll(aio, AIO_BATCH);
	if (pg->io.retry_head) {
		/* Work only when something left the list: a ring that still refuses is not,
		 * or the group would busy-poll instead of sleeping until completions arrive. */
		struct nvmf_req *head = pg->io.retry_head;
		nvmf_io_retry_pending(&pg->io);
		if (pg->io.retry_head != head)
			n++;
	}
	/* Completions may have queued more (continuations, follow-up I/O). */
	if (aio->queued)
		nvmf_aio_flush(aio);
	if (aio->error && !pg->aio_error_told) {
		pg->aio_error_told = true;
		nvmf_log(pg->tgt, NVMF_LOG_ERROR,
			 "poll group %u: io_uring submission failed (%s): "
			 "the backend I/O of this group fails from now on",
			 pg->index, strerror(-aio->error));
	}
	/* Ops a failed flush ended: answered in this pass, not after a sleep (no
	 * completion will wake the group for them). */
	if (aio->failed)
		n += (int)nvmf_aio_poll(aio, AIO_BATCH);
	return n;
}

int nvmf_pg_poll(struct nvmf_pg *pg)
{
	/* One clock reading per pass serves the idle policy, timers and keep-alive stamps
	 * (a clock read is a trap to the hypervisor on some virtual machines). */
	uint64_t prev = pg->now_us;
	pg->now_us = nvmf_mono_us();
	/* The target's clock, unless a test drives it: then this same reading. */
	pg->now_ms = pg->tgt->clock.now_ms ? nvmf_clock_ms(&pg->tgt->clock) : pg->now_us / 1000;
	/* The time since the last pass began was spent as that pass ended: working, polling
	 * in vain, or asleep. No extra clock reading for it. */
	if (prev) {
		uint64_t d = pg->now_us - prev;
		if (pg->slept)
			NVMF_PG_COUNT(pg->sleep_us, d);
		else if (pg->last_pass_work)
			NVMF_PG_COUNT(pg->busy_us, d);
		else
			NVMF_PG_COUNT(pg->idle_us, d);
	}
	pg->slept = false;
	/* Peeked without the lock: most passes have no message. */
	int n = __atomic_load_n(&pg->msg_head, __ATOMIC_ACQUIRE) ? run_msgs(pg) : 0;
	for (unsigned i = 0; i < pg->ntpg; i++)
		n += pg->tpg[i]->transport->ops->pg_poll(pg->tpg[i]);
	n += run_aio(pg);
	/* Timers are not work: a tick must not keep an idle group busy-polling. */
	if (pg->timers)
		run_timers(pg);
	/* Everything this pass produced: one post per QP and receive queue. */
	for (unsigned i = 0; i < pg->ntpg; i++)
		pg->tpg[i]->transport->ops->pg_flush(pg->tpg[i]);
	NVMF_PG_COUNT(pg->passes, 1);
	if (n) {
		NVMF_PG_COUNT(pg->busy_passes, 1);
		NVMF_PG_COUNT(pg->work, (uint64_t)n);
	}
	pg->last_pass_work = n > 0;
	return n;
}

static void drain_wake(struct nvmf_pg *pg)
{
	uint64_t v;
	while (read(pg->wake_fd, &v, sizeof(v)) > 0)
		;
}

int nvmf_pg_run_once(struct nvmf_pg *pg, int max_sleep_ms)
{
	int n = nvmf_pg_poll(pg);
	if (n) {
		pg->last_work_us = pg->now_us;
		return n;
	}
	if (pg->now_us - pg->last_work_us < pg->idle_poll_us)
		return 0;
	/* Arm, then look once more: work that arrived before the arm would otherwise wait
	 * for the next event. */
	for (unsigned i = 0; i < pg->ntpg; i++)
		if (pg->tpg[i]->transport->ops->pg_arm)
			pg->tpg[i]->transport->ops->pg_arm(pg->tpg[i]);
	n = nvmf_pg_poll(pg);
	if (n) {
		pg->last_work_us = pg->now_us;
		return n;
	}
	int timeout = timer_wait_ms(pg);
	if (max_sleep_ms >= 0 && max_sleep_ms < timeout)
		timeout = max_sleep_ms;
	struct epoll_event evs[8];
	NVMF_PG_COUNT(pg->sleeps, 1);
	pg->slept = true;
	int rc = epoll_wait(pg->epfd, evs, 8, timeout);
	if (rc < 0 && errno != EINTR) {
		nvmf_log(pg->tgt, NVMF_LOG_ERROR, "poll group %u: epoll_wait: %s", pg->index,
			 strerror(errno));
		return -1;
	}
	drain_wake(pg);
	for (unsigned i = 0; i < pg->ntpg; i++)
		if (pg->tpg[i]->transport->ops->pg_woken)
			pg->tpg[i]->transport->ops->pg_woken(pg->tpg[i]);
	return 0;
}

int nvmf_pg_add_wait_fd(struct nvmf_pg *pg, int fd)
{
	return epoll_add(pg->epfd, fd);
}

void nvmf_pg_del_wait_fd(struct nvmf_pg *pg, int fd)
{
	epoll_ctl(pg->epfd, EPOLL_CTL_DEL, fd, NULL);
}

/* ---- threads ---- */

static void *pg_thread(void *arg)
{
	struct nvmf_pg *pg = arg;
	if (pg->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(pg->cpu, &set);
		int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (rc)
			nvmf_log(pg->tgt, NVMF_LOG_WARNING,
				 "poll group %u: cannot pin to CPU %d: %s", pg->index, pg->cpu,
				 strerror(rc));
	}
	while (!__atomic_load_n(&pg->stop, __ATOMIC_ACQUIRE))
		if (nvmf_pg_run_once(pg, MAX_SLEEP_MS) < 0)
			break;
	return NULL;
}

int nvmf_pg_start(struct nvmf_pg *pg, int cpu, char *err, size_t errlen)
{
	pg->cpu = cpu;
	__atomic_store_n(&pg->stop, false, __ATOMIC_RELEASE);
	/* Marked before the thread exists: whoever drives groups without a thread (a test,
	 * the loop transport's driven mode) must stop before this thread's first pass. */
	__atomic_store_n(&pg->started, true, __ATOMIC_RELEASE);
	int rc = pthread_create(&pg->thread, NULL, pg_thread, pg);
	if (rc) {
		__atomic_store_n(&pg->started, false, __ATOMIC_RELEASE);
		snprintf(err, errlen, "poll group %u: pthread_create: %s", pg->index, strerror(rc));
		return -1;
	}
	return 0;
}

void nvmf_pg_stop(struct nvmf_pg *pg)
{
	if (!pg->started)
		return;
	__atomic_store_n(&pg->stop, true, __ATOMIC_RELEASE);
	nvmf_pg_wake(pg);
	pthread_join(pg->thread, NULL);
	__atomic_store_n(&pg->started, false, __ATOMIC_RELEASE);
}
