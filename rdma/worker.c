/* SPDX-License-Identifier: MIT */
/*
 * Worker threads: with nvmf_target.threads = N > 1, N poll groups on threads of their own
 * serve the I/O queues, while the main thread keeps the rdma_cm listeners, the admin and
 * discovery queues and the keep-alive timers (an admin command never waits behind I/O).
 *
 * A new I/O queue is validated by the main thread, its CM event acked, its cm_id migrated
 * to the least loaded worker's event channel, and handed over through the worker's inbox:
 * the worker creates the QP on its own CQ and SRQ, accepts, and from then on is the only
 * thread touching the queue (CM events included) until it frees it. Other threads reach
 * a worker's queue only by message (disconnect, by QP number and uid).
 *
 * The target core is single threaded except for the I/O command path: workers take the
 * transport's core lock for Fabrics commands (Connect) and queue teardown; the main thread
 * holds it while it runs a pass. Each worker has its own io_uring (nvmf_io_ctx).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <fcntl.h>
#include <unistd.h>
#include <numa.h>
#include "rdma/internal.h"

#define WORKER_CQ_BUDGET  128
#define WORKER_TICK_MS    100
#define AIO_DEPTH         1024

static void wake(struct nvmf_rdma_worker *w)
{
	uint64_t one = 1;
	if (write(w->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		NVMF_RDMA_LOG("worker %u: wake: %s\n", w->index, strerror(errno));
}

void nvmf_rdma_worker_handoff(struct nvmf_rdma_transport *t, struct nvmf_rdma_conn_req *cr)
{
	struct nvmf_rdma_worker *w = &t->workers[0];
	for (unsigned i = 1; i < t->nworkers; i++)
		if (__atomic_load_n(&t->workers[i].nqueues, __ATOMIC_RELAXED) <
		    __atomic_load_n(&w->nqueues, __ATOMIC_RELAXED))
			w = &t->workers[i];
	/* From now on the worker's channel gets this cm_id's events (none is pending: the
	 * CONNECT_REQUEST was acked). */
	if (rdma_migrate_id(cr->id, w->ec)) {
		NVMF_RDMA_LOG("rejecting connect from %s (queue %u): rdma_migrate_id: %s\n", cr->peer,
			      cr->conn.qid, strerror(errno));
		struct nvme_rdma_cm_rej rej;
		nvmf_rdma_cm_build_rej(&rej, NVME_RDMA_CM_NO_RSC);
		rdma_reject(cr->id, &rej, sizeof(rej));
		rdma_destroy_id(cr->id);
		free(cr);
		return;
	}
	__atomic_add_fetch(&w->nqueues, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&w->lock);
	struct nvmf_rdma_conn_req **pp = &w->inbox;
	while (*pp)
		pp = &(*pp)->next;
	cr->next = NULL;
	*pp = cr;
	pthread_mutex_unlock(&w->lock);
	wake(w);
}

void nvmf_rdma_queue_disconnect_any(struct nvmf_rdma_queue *q, const char *why)
{
	struct nvmf_rdma_worker *w = q->pg->worker;
	if (!w || pthread_equal(pthread_self(), w->thread)) {
		nvmf_rdma_queue_disconnect(q, why);
		return;
	}
	struct nvmf_rdma_ctl *c = calloc(1, sizeof(*c));
	if (!c) {
		NVMF_RDMA_LOG("worker %u: out of memory for a disconnect of queue %u\n", w->index, q->qid);
		return;
	}
	c->qp_num = q->qp_num;
	c->uid = q->uid;
	pthread_mutex_lock(&w->lock);
	c->next = w->ctl;
	w->ctl = c;
	pthread_mutex_unlock(&w->lock);
	wake(w);
}

/* New queues and disconnect requests. Returns how many. */
static int drain_inbox(struct nvmf_rdma_worker *w)
{
	pthread_mutex_lock(&w->lock);
	struct nvmf_rdma_conn_req *cr = w->inbox;
	struct nvmf_rdma_ctl *ctl = w->ctl;
	w->inbox = NULL;
	w->ctl = NULL;
	pthread_mutex_unlock(&w->lock);
	int n = 0;
	while (cr) {
		struct nvmf_rdma_conn_req *next = cr->next;
		struct rdma_cm_id *destroy = NULL;
		if (w->stop) {
			struct nvme_rdma_cm_rej rej;
			nvmf_rdma_cm_build_rej(&rej, NVME_RDMA_CM_NO_RSC);
			rdma_reject(cr->id, &rej, sizeof(rej));
			destroy = cr->id;
		} else {
			destroy = nvmf_rdma_connect_queue(&w->pg, cr);
		}
		if (destroy) {
			rdma_destroy_id(destroy);
			__atomic_sub_fetch(&w->nqueues, 1, __ATOMIC_RELAXED);
		}
		free(cr);
		cr = next;
		n++;
	}
	while (ctl) {
		struct nvmf_rdma_ctl *next = ctl->next;
		struct nvmf_rdma_queue *q = nvmf_rdma_pg_find_qp(&w->pg, ctl->qp_num);
		if (q && q->uid == ctl->uid)
			nvmf_rdma_queue_disconnect(q, "controller deleted");
		free(ctl);
		ctl = next;
		n++;
	}
	return n;
}

static void drain_wake(struct nvmf_rdma_worker *w)
{
	uint64_t v;
	while (read(w->wake_fd, &v, sizeof(v)) > 0)
		;
}

static void pin(struct nvmf_rdma_worker *w)
{
	if (w->cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc)
		NVMF_RDMA_LOG("worker %u: cannot pin to CPU %d: %s\n", w->index, w->cpu, strerror(rc));
}

static void *worker_main(void *arg)
{
	struct nvmf_rdma_worker *w = arg;
	struct nvmf_rdma_transport *t = w->t;
	struct nvmf_rdma_poll_group *pg = &w->pg;
	uint32_t idle_us = t->tgt->cfg ? t->tgt->cfg->target.idle_poll_us : 1000;
	uint64_t stop_deadline = 0;
	pin(w);
	for (;;) {
		int n = 0;
		n += drain_inbox(w);
		n += nvmf_rdma_process_cm_events(t, w->ec);
		/* No completion can precede its queue in the map: this thread creates the QP
		 * and maps it before it accepts the connection. */
		n += nvmf_rdma_pg_poll_cqs(pg, WORKER_CQ_BUDGET);
		n += nvmf_rdma_poll_aio(&w->io);
		nvmf_rdma_pg_kick_waiters(pg);
		nvmf_rdma_pg_flush(pg);
		int reaped = nvmf_rdma_reap_queues(pg, false);
		if (reaped)
			__atomic_sub_fetch(&w->nqueues, (uint32_t)reaped, __ATOMIC_RELAXED);
		n += reaped;

		pthread_mutex_lock(&w->lock);
		bool stop = w->stop;
		pthread_mutex_unlock(&w->lock);
		if (stop) {
			uint64_t now = nvmf_rdma_now_us() / 1000;
			if (!stop_deadline) {
				stop_deadline = now + 10000;
				for (struct nvmf_rdma_queue *q = pg->queues; q; q = q->next)
					nvmf_rdma_queue_disconnect(q, NULL);
			}
			if (!pg->queues)
				break;
			if (now >= stop_deadline) {
				nvmf_rdma_pg_flush(pg);
				nvmf_rdma_reap_queues(pg, true);
				break;
			}
		}
		uint64_t now = nvmf_rdma_now_us();
		if (n) {
			pg->passes++;
			pg->last_work_us = now;
			continue;
		}
		if (now - pg->last_work_us < idle_us)
			continue;
		if (nvmf_rdma_pg_sleep(pg, stop ? 10 : WORKER_TICK_MS) < 0)
			break;
		drain_wake(w);
	}
	NVMF_RDMA_LOG("poll group %u: %llu completions, %llu posts in %llu busy passes\n", w->index + 1,
		      (unsigned long long)pg->wcs, (unsigned long long)pg->posts,
		      (unsigned long long)pg->passes);
	return NULL;
}

int nvmf_rdma_first_device_node(void)
{
	int n = 0, node = -1;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list)
		return -1;
	if (n > 0)
		node = nvmf_rdma_device_numa_node(list[0]);
	ibv_free_device_list(list);
	return node;
}

/* The CPUs of NUMA @node, or NULL (no NUMA, or unknown node). */
static struct bitmask *node_cpus(int node)
{
	if (node < 0 || numa_available() < 0)
		return NULL;
	struct bitmask *m = numa_allocate_cpumask();
	if (m && numa_node_to_cpus(node, m) == 0)
		return m;
	if (m)
		numa_free_cpumask(m);
	return NULL;
}

static int worker_init(struct nvmf_rdma_worker *w, struct nvmf_rdma_transport *t, unsigned index,
		       unsigned nthreads, char *err, size_t errlen)
{
	w->t = t;
	w->index = index;
	w->wake_fd = -1;
	pthread_mutex_init(&w->lock, NULL);
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0 || nvmf_rdma_pg_init(&w->pg, t, epfd)) {
		snprintf(err, errlen, "worker %u: %s", index, strerror(errno));
		if (epfd >= 0)
			close(epfd);
		return -1;
	}
	w->pg.worker = w;
	w->pg.nthreads = nthreads;
	w->pg.io = &w->io;
	int e = nvmf_aio_init(&w->aio, AIO_DEPTH);
	if (e) {
		snprintf(err, errlen, "worker %u: io_uring: %s", index, strerror(-e));
		return -1;
	}
	w->io.aio = &w->aio;
	w->ec = rdma_create_event_channel();
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!w->ec || w->wake_fd < 0) {
		snprintf(err, errlen, "worker %u: %s", index, strerror(errno));
		return -1;
	}
	int fl = fcntl(w->ec->fd, F_GETFL);
	struct epoll_event ev = { .events = EPOLLIN };
	if (fl < 0 || fcntl(w->ec->fd, F_SETFL, fl | O_NONBLOCK) ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, w->ec->fd, &ev) ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, w->wake_fd, &ev) ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, w->aio.event_fd, &ev)) {
		snprintf(err, errlen, "worker %u: epoll: %s", index, strerror(errno));
		return -1;
	}
	return 0;
}

static void worker_fini(struct nvmf_rdma_worker *w)
{
	nvmf_rdma_pg_fini(&w->pg);
	if (w->pg.epfd >= 0)
		close(w->pg.epfd);
	if (w->ec)
		rdma_destroy_event_channel(w->ec);
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	if (w->io.aio)
		nvmf_aio_fini(&w->aio);
	pthread_mutex_destroy(&w->lock);
}

int nvmf_rdma_workers_start(struct nvmf_rdma_transport *t, unsigned n, int node, char *err, size_t errlen)
{
	t->workers = calloc(n, sizeof(*t->workers));
	if (!t->workers) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct bitmask *cpus = node_cpus(node);
	int ncpu = 0, cpu_list[1024];
	for (unsigned c = 0; cpus && c < cpus->size && ncpu < 1024; c++)
		if (numa_bitmask_isbitset(cpus, c))
			cpu_list[ncpu++] = (int)c;
	if (cpus)
		numa_free_cpumask(cpus);
	t->pg.nthreads = n + 1;
	for (unsigned i = 0; i < n; i++) {
		struct nvmf_rdma_worker *w = &t->workers[i];
		w->pg.epfd = -1;
		w->cpu = ncpu ? cpu_list[i % (unsigned)ncpu] : -1;
		if (worker_init(w, t, i, n + 1, err, errlen))
			goto fail;
		t->nworkers = i + 1;  /* counted for the clean-up below */
		int rc = pthread_create(&w->thread, NULL, worker_main, w);
		if (rc) {
			snprintf(err, errlen, "worker %u: pthread_create: %s", i, strerror(rc));
			goto fail;
		}
		w->started = true;
	}
	if (ncpu)
		NVMF_RDMA_LOG("%u I/O poll group thread(s), pinned to the CPUs of NUMA node %d\n", n, node);
	else
		NVMF_RDMA_LOG("%u I/O poll group thread(s), not pinned (NUMA node unknown)\n", n);
	return 0;
fail:
	nvmf_rdma_workers_stop(t, 0);
	return -1;
}

void nvmf_rdma_workers_stop(struct nvmf_rdma_transport *t, int timeout_ms)
{
	(void)timeout_ms;  /* each worker bounds its own wait (10 s) */
	for (unsigned i = 0; i < t->nworkers; i++) {
		struct nvmf_rdma_worker *w = &t->workers[i];
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_mutex_unlock(&w->lock);
		wake(w);
	}
	bool left = false;
	for (unsigned i = 0; i < t->nworkers; i++) {
		struct nvmf_rdma_worker *w = &t->workers[i];
		if (w->started)
			pthread_join(w->thread, NULL);
		if (w->pg.queues) {
			/* Memory an I/O may still complete into is not freed. */
			NVMF_RDMA_LOG("worker %u: queues still busy at shutdown, left allocated\n", i);
			left = true;
			continue;
		}
		worker_fini(w);
	}
	if (!left)
		free(t->workers);
	t->workers = NULL;
	t->nworkers = 0;
}
