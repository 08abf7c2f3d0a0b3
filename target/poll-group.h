/* SPDX-License-Identifier: MIT */
/*
 * Poll groups: the threads of the target, owned by the core (like SPDK's poll groups).
 * Each group runs to completion on one thread and owns what it serves: its queues, each
 * transport's part of the group (QPs, CQ, SRQ for RDMA), an io_uring for backend I/O and
 * the list of commands the backend refused with a full ring, timers. Nothing another
 * thread owns is touched; other threads reach a group only by message.
 *
 * One pass (nvmf_pg_poll): messages, every transport's poller, backend completions and
 * retries, due timers, then every transport posts what the pass produced (one post per
 * QP). nvmf_pg_run_once adds the adaptive sleep: busy-poll while work arrives; after
 * idle_poll_us without work, arm the transports' completion events, look once more, and
 * sleep in epoll on the group's wait descriptors (message eventfd, io_uring eventfd, the
 * transports' channels) until something arrives or the next timer is due.
 *
 * Group 0 is the main group: it runs on the daemon's main thread (or a test's), holds
 * the controllers (every admin and discovery queue), the listeners and the keep-alive
 * timer. With nvmf_target.threads = N > 1 there are N more groups for I/O queues, each on
 * a thread of its own pinned to a CPU of the NIC's NUMA node; with 1 the main group
 * serves I/O too.
 */
#ifndef NVMF_TARGET_POLL_GROUP_H
#define NVMF_TARGET_POLL_GROUP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "subsystem/aio.h"

struct nvmf_tgt;
struct nvmf_tpg;
struct nvmf_req;
struct nvmf_sq;

#define NVMF_MAX_TRANSPORTS 4

typedef void (*nvmf_msg_fn)(void *arg);

/*
 * A message: @fn(@arg) run once on the receiving group's thread, in the order messages
 * were posted to that group (FIFO per receiver). The sender owns the memory until @fn
 * runs; @fn may post it again (to any group) or free it.
 */
struct nvmf_msg {
	nvmf_msg_fn fn;
	void *arg;
	struct nvmf_msg *next;
	bool heap; /* from nvmf_pg_send: freed after @fn */
};

/* A periodic timer of a group, on the target's clock (tgt->now_ms). */
struct nvmf_timer {
	uint64_t period_ms;
	uint64_t next_ms; /* due at this tgt->now_ms */
	void (*fn)(void *arg);
	void *arg;
	struct nvmf_timer *next;
};

/*
 * Where a queue's backend I/O goes: the group's io_uring and the commands the backend
 * refused with a full ring (-EAGAIN), oldest first, resubmitted by nvmf_io_retry_pending()
 * each pass. Owned by the group's thread.
 */
struct nvmf_io_ctx {
	struct nvmf_aio *aio;
	struct nvmf_req *retry_head, *retry_tail;
};

struct nvmf_pg {
	struct nvmf_tgt *tgt;
	unsigned index; /* 0: the main group */
	bool serves_io; /* false for the main group when I/O groups exist */
	int epfd;       /* wait descriptors */
	int wake_fd;    /* eventfd: a message arrived, or stop */
	pthread_mutex_t msg_lock;
	struct nvmf_msg *msg_head; /* read without the lock to skip it when empty */
	struct nvmf_msg **msg_tail;
	struct nvmf_aio aio;
	struct nvmf_io_ctx io;                     /* io.aio = &aio */
	bool aio_error_told;                       /* the log says aio.error (once) */
	struct nvmf_tpg *tpg[NVMF_MAX_TRANSPORTS]; /* each transport's part of this group */
	unsigned ntpg;
	struct nvmf_timer *timers;
	struct nvmf_sq *sqs;   /* queues served here (sq->pg_next) */
	uint32_t nqueues;      /* queues placed here; read by placement on other
					    * threads (atomic) */
	uint32_t idle_poll_us; /* busy-poll this long after work before sleeping */
	uint64_t now_us;       /* monotonic µs at the start of this pass */
	uint64_t now_ms;       /* the target's clock (nvmf_tgt_now_ms) then */
	uint64_t last_work_us; /* monotonic µs of the last pass with work */
	int cpu;               /* pinned to; -1 none */
	pthread_t thread;
	bool started; /* runs on a thread of its own (atomic:
					    * nvmf_pg_started) */
	bool stop;    /* atomic: leave nvmf_pg_run */
	/* Statistics: passes, passes that found work, sleeps, messages run, work items
	 * (messages, capsules, completions) found; microseconds spent in passes that found
	 * work, in passes that found none, asleep. Written by the group (NVMF_PG_COUNT), read
	 * by anyone with relaxed atomic loads. */
	uint64_t passes, busy_passes, sleeps, msgs, work;
	uint64_t busy_us, idle_us, sleep_us;
	bool last_pass_work, slept; /* how the time since the last pass is counted */
};

/* NVMF_PG_COUNT - add @v to a counter only its owner writes: a relaxed load and store,
 * no locked instruction on the poll path, and readers on other threads see whole values. */
#define NVMF_PG_COUNT(field, v)                                                       \
	__atomic_store_n(&(field), __atomic_load_n(&(field), __ATOMIC_RELAXED) + (v), \
			 __ATOMIC_RELAXED)

/*
 * nvmf_pg_init - group @index of @tgt with an io_uring of @aio_depth entries (a power of
 * two) and the idle policy @idle_poll_us. The caller adds the transports' parts (tpg[]).
 * Returns 0, or -1 with @err naming what failed (io_uring, eventfd, epoll).
 */
int nvmf_pg_init(struct nvmf_pg *pg, struct nvmf_tgt *tgt, unsigned index, unsigned aio_depth,
		 uint32_t idle_poll_us, char *err, size_t errlen);
/* nvmf_pg_fini - free what nvmf_pg_init made (the thread is stopped, tpgs destroyed);
 * pending heap messages are freed without running. */
void nvmf_pg_fini(struct nvmf_pg *pg);

/* nvmf_pg_poll - one pass on the caller's thread (it must own the group). Returns the
 * work found: messages, completions, commands; 0 when idle. */
int nvmf_pg_poll(struct nvmf_pg *pg);
/* nvmf_pg_run_once - one pass, then, when the group has been idle for idle_poll_us, the
 * arm-look-sleep described above for at most @max_sleep_ms (< 0: until the next timer).
 * Returns the work found (0 after sleeping), -1 when epoll fails. */
int nvmf_pg_run_once(struct nvmf_pg *pg, int max_sleep_ms);

/* nvmf_pg_start - run the group on a thread of its own (pinned to @cpu if >= 0) until
 * nvmf_pg_stop. Returns 0 or -1 with @err. */
int nvmf_pg_start(struct nvmf_pg *pg, int cpu, char *err, size_t errlen);
/* nvmf_pg_stop - ask the thread to leave its loop and join it (no-op if not started). */
void nvmf_pg_stop(struct nvmf_pg *pg);
/* nvmf_pg_started - @pg runs on a thread of its own (between nvmf_pg_start and
 * nvmf_pg_stop); otherwise whoever calls nvmf_pg_poll on it owns it. Any thread. */
static inline bool nvmf_pg_started(const struct nvmf_pg *pg)
{
	return __atomic_load_n(&pg->started, __ATOMIC_ACQUIRE);
}

/* nvmf_pg_post - queue @m (fn/arg set by the caller) for @pg's thread; any thread may
 * post. Wakes the group if it sleeps. */
void nvmf_pg_post(struct nvmf_pg *pg, struct nvmf_msg *m);
/* nvmf_pg_send - the same with a message allocated here (freed after it runs). Returns 0
 * or -ENOMEM (nothing queued). */
int nvmf_pg_send(struct nvmf_pg *pg, nvmf_msg_fn fn, void *arg);
/* nvmf_pg_wake - make a sleeping group run a pass (e.g. a transport queued work for it). */
void nvmf_pg_wake(struct nvmf_pg *pg);

/* nvmf_pg_add_wait_fd / del - a descriptor the group sleeps on (readable = work for one
 * of its pollers). Call on the group's thread. 0 or -errno. */
int nvmf_pg_add_wait_fd(struct nvmf_pg *pg, int fd);
void nvmf_pg_del_wait_fd(struct nvmf_pg *pg, int fd);

/* nvmf_pg_timer_start - run @fn(@arg) every @period_ms of tgt->now_ms on @pg, first after
 * one period; @t is the caller's until nvmf_pg_timer_stop. On the group's thread. */
void nvmf_pg_timer_start(struct nvmf_pg *pg, struct nvmf_timer *t, uint64_t period_ms,
			 void (*fn)(void *arg), void *arg);
void nvmf_pg_timer_stop(struct nvmf_pg *pg, struct nvmf_timer *t);

/*
 * nvmf_tgt_for_each_pg - run @fn(pg, @arg) on every poll group of @tgt, each on its own
 * thread, then @done(@arg) on @origin's thread once all have run (the control plane's
 * "change every group, then answer"). Messages are allocated up front: returns 0, or
 * -ENOMEM with nothing sent.
 */
int nvmf_tgt_for_each_pg(struct nvmf_tgt *tgt, struct nvmf_pg *origin,
			 void (*fn)(struct nvmf_pg *pg, void *arg), void *arg,
			 void (*done)(void *arg));

#endif
