/* SPDX-License-Identifier: MIT */
/*
 * libnvmf's native multipath handle, internals shared by mpath.c (the handle, its paths
 * and namespaces), mpath-io.c (the multipath queues: submission, path choice, failover)
 * and mpath-watch.c (the watcher thread: ANA refresh, reconnects). Never installed.
 *
 * Threads and what they share:
 *   - I/O threads: multipath queue i belongs to one thread, which uses I/O queue i of
 *     every path (struct nvmf_queue, owned by that thread like any libnvmf queue). It
 *     takes no lock: it reads what the watcher publishes with atomics.
 *   - The watcher thread: re-reads ANA logs, notices lost admin queues, reconnects lost
 *     paths. It uses a path's controller under path->lock (the admin side: its ANA log,
 *     nvmf_reconnect), as does the creation of a namespace entry (Identify Namespace).
 *
 * Published with atomics:
 *   path->state    MP_LIVE or MP_DOWN. Anyone moves LIVE -> DOWN (compare and swap: an
 *                  I/O thread that saw -ECONNRESET, the watcher that saw the admin queue
 *                  lost); only the watcher moves DOWN -> LIVE, after a reconnect.
 *   q->busy[p]     per multipath queue and path: commands of the queue in flight on the
 *                  path, plus one while its thread is inside a call that touches the
 *                  path's queue. Written by the queue's thread, read by the watcher.
 *   ns->state[p]   the namespace's ANA state through path p (NVME_ANA_STATE_*, 0 when
 *                  unknown): written by the watcher from the ANA logs and by an I/O thread
 *                  that got an ANA status, read by every I/O thread.
 *
 * The reconnect handshake (a reconnect rebuilds the path's I/O queues, which the I/O
 * threads poll, so no thread may touch them meanwhile):
 *   1. path p goes DOWN (seq_cst compare and swap);
 *   2. an I/O thread touches path p's queue only between enter() and leave(): enter adds
 *      1 to busy[p] (seq_cst), then loads the state (seq_cst) and backs out unless LIVE;
 *      a command in flight keeps the count it took at submission until its callback;
 *   3. an I/O thread that has commands in flight on a DOWN path aborts its queue there
 *      (nvmfh_queue_abort: the connection first, so no data moves for them any more, then
 *      their callbacks, which queue them for another path) and so drops its counts;
 *   4. the watcher reconnects path p only once it has read busy[p] == 0 for every queue
 *      after the state became DOWN: by the seq_cst order of (busy += 1; load state) and
 *      (state = DOWN; load busy), a thread that entered later sees DOWN and backs out
 *      without touching the queue;
 *   5. after nvmf_reconnect (and the ANA log read), the watcher stores LIVE (seq_cst:
 *      release of everything the reconnect wrote); an I/O thread that loads LIVE in
 *      enter() sees the new queues.
 * A thread that never calls into its queue while it has commands in flight on a DOWN path
 * holds that path down (its commands are stuck with it).
 */
#ifndef LIBNVMF_MPATH_INTERNAL_H
#define LIBNVMF_MPATH_INTERNAL_H

#include <semaphore.h>
#include <stdatomic.h>
#include "initiator/internal.h"

#define MP_LIVE 0
#define MP_DOWN 1

#define MP_DEFAULT_REFRESH_MS 1000u
#define MP_DEFAULT_TIMEOUT_MS 10000u /* no path: when no path reports an ANATT */
#define MP_RETRY_MS           10u    /* before a path that failed a command gets it again */
#define MP_NS_CACHE           8      /* nsid -> entry, per multipath queue */

/* A namespace as the handle knows it: created on first use, freed with the handle. */
struct mp_ns {
	struct mp_ns *next; /* the handle's list: set before publication */
	uint32_t nsid;
	uint32_t lba_shift;       /* log2 of the block size, the same on every path */
	struct nvmf_ns_info info; /* of the first path that answered */
	uint32_t anagrpid[NVMF_MPATH_MAX_PATHS];      /* Identify Namespace, per path */
	_Atomic uint8_t state[NVMF_MPATH_MAX_PATHS];  /* see above */
	_Atomic uint32_t grpid[NVMF_MPATH_MAX_PATHS]; /* its ANA group through the path */
};

struct mp_path {
	struct nvmf_ctrl *c;
	pthread_mutex_t lock;   /* the controller's admin side (see above) */
	_Atomic int state;      /* MP_LIVE, MP_DOWN */
	_Atomic int last_error; /* what took it down last */
	_Atomic unsigned long reconnects;
	_Atomic unsigned cntlid;  /* of the current association */
	_Atomic uint64_t chgcnt;  /* of the last ANA log read */
	_Atomic bool ana;         /* CMIC bit 3 (written under lock) */
	struct nvmf_ana_log *log; /* the last ANA log read (under lock) */
	uint64_t next_attempt_ms; /* the watcher's: next reconnect attempt */
	char traddr[257], trsvcid[33];
	char msg[256]; /* its last message (under mp->err_lock) */
};

enum mp_op {
	MP_READ,
	MP_WRITE,
	MP_COMPARE,
	MP_WRITE_ZEROES,
	MP_FLUSH,
	MP_DSM,
	MP_VERIFY,
	MP_COPY,
	MP_COMPARE_AND_WRITE
};

/* One command of a multipath queue, from submission to its single callback. */
struct mp_req {
	struct nvmf_mpath_queue *q;
	enum mp_op op;
	struct mp_ns *ns; /* NULL for a flush */
	uint32_t nsid;
	uint64_t slba; /* Copy: the destination, SDLBA */
	uint32_t nlb;
	void *buf;           /* data, the DSM or Copy ranges, Compare and Write's compare data */
	void *buf2;          /* Compare and Write's write data */
	unsigned nr;         /* DSM or Copy ranges */
	uint32_t attributes; /* DSM */
	nvmf_io_cb cb;
	void *arg;
	int path;             /* where it is in flight, -1 none */
	uint32_t avoid;       /* paths that failed it: taken last */
	int last_status;      /* the last path error (0 none yet) */
	uint64_t deadline_ms; /* 0 until its first path error or wait */
	uint64_t retry_at_ms; /* an avoided path not before this */
	struct mp_req *next;  /* free list or retry list */
};

struct nvmf_mpath_queue {
	struct nvmf_mpath *mp;
	unsigned idx;
	struct nvmf_queue *pq[NVMF_MPATH_MAX_PATHS];        /* I/O queue idx of each path */
	_Atomic unsigned busy[NVMF_MPATH_MAX_PATHS];        /* see above */
	unsigned inflight[NVMF_MPATH_MAX_PATHS];            /* commands in flight per path */
	_Atomic unsigned long ios[NVMF_MPATH_MAX_PATHS];    /* completed, per path */
	_Atomic unsigned long errors[NVMF_MPATH_MAX_PATHS]; /* failed over from it */
	_Atomic unsigned long failovers;                    /* commands sent again */
	struct mp_req *reqs, *free;                         /* mp->depth of them */
	unsigned outstanding;                               /* submitted, callback not yet run */
	struct mp_req *retry, **retry_tail;                 /* to send (again), oldest first */
	unsigned nretry;
	int completed; /* callbacks run in the current poll */
	bool in_poll;
	struct {
		uint32_t nsid;
		struct mp_ns *ns;
	} ns_cache[MP_NS_CACHE];
	unsigned ns_cached, ns_next;
};

struct mp_region {
	void *addr;
	size_t len;
	bool on[NVMF_MPATH_MAX_PATHS]; /* registered through that path's controller */
};

struct nvmf_mpath {
	unsigned npaths, nr_queues, depth;
	struct mp_path path[NVMF_MPATH_MAX_PATHS];
	struct nvmf_mpath_queue *q; /* nr_queues of them */
	unsigned refresh_ms, timeout_ms;
	char subnqn[NVMFH_NQN_FIELD]; /* Identify Controller SUBNQN of every path */
	uint8_t cmic;                 /* of path 0 */

	_Atomic(struct mp_ns *) ns_head; /* published with release, never unlinked */
	pthread_mutex_t ns_lock;         /* creation of entries; taken before a path lock */

	pthread_mutex_t mem_lock; /* regions (nvmf_mpath_mem_register); taken before a
					     path lock */
	struct mp_region *regions;
	unsigned nregions;

	pthread_t watcher;
	bool watcher_running;
	_Atomic bool stop;
	sem_t kick;                /* wakes the watcher (sem_post takes no lock) */
	pthread_mutex_t pass_lock; /* passes, for nvmf_mpath_refresh */
	pthread_cond_t pass_cond;
	unsigned long passes;

	pthread_mutex_t err_lock;
	char errmsg[NVMFH_ERRMSG_MAX];
};

/* ---- mpath.c ---- */

/* nvmfh_mp_errf - set the handle's message. */
NVMFH_HIDDEN void nvmfh_mp_errf(struct nvmf_mpath *mp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* nvmfh_mp_path_errf - a message about path @p: "path N (ADDR:PORT): ..." as the
 * handle's message, and the path's own (nvmf_mpath_path_info). */
NVMFH_HIDDEN void nvmfh_mp_path_errf(struct nvmf_mpath *mp, unsigned p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* nvmfh_mp_no_path - NVMF_ERR_NO_PATH, after setting the handle's message to what made
 * every path unusable for namespace @ns: "namespace N: no usable path[ for MS ms]: path 0
 * (ADDR:PORT) inaccessible, path 1 (ADDR:PORT) down[; last error: ...]" (each path's ANA
 * state as nvmetcli names it, or down when its connection is not live). @waited_ms: how
 * long the command waited (0: not said); @last: the last error a path gave it (0: none). */
NVMFH_HIDDEN int nvmfh_mp_no_path(struct nvmf_mpath *mp, const struct mp_ns *ns, uint64_t waited_ms,
				  int last);
/* nvmfh_mp_ns_get - the entry of @nsid, created on first use (Identify Namespace through
 * every live path: the same block size and identifiers, or -EPROTO). NULL with *@rc: the
 * Identify status (INVALID_NS | DNR), -EHOSTUNREACH (no live path), -EPROTO, -ENOMEM. */
NVMFH_HIDDEN struct mp_ns *nvmfh_mp_ns_get(struct nvmf_mpath *mp, uint32_t nsid, int *rc);
/* nvmfh_mp_ns_apply - set @ns's state through path @p from what the path knows (its ANA
 * log; optimized without ANA reporting). Path lock held. */
NVMFH_HIDDEN void nvmfh_mp_ns_apply(struct nvmf_mpath *mp, unsigned p, struct mp_ns *ns);
/* nvmfh_mp_path_read_ana - path @p's CMIC bit 3 and, when set, its ANA log read again
 * into path->log (path lock held, or the path not shared yet). 0 or the read's error
 * (the handle's message says which path). */
NVMFH_HIDDEN int nvmfh_mp_path_read_ana(struct nvmf_mpath *mp, unsigned p);
/* nvmfh_mp_register_on - register @r through path @p unless done (mem_lock and the path
 * lock held); *@err (may be NULL) gets the first error that is not -EOPNOTSUPP. */
NVMFH_HIDDEN void nvmfh_mp_register_on(struct nvmf_mpath *mp, unsigned p, struct mp_region *r,
				       int *err);
/* nvmfh_mp_best_path - the path a command of @ns goes to now: live, its group optimized
 * (else non-optimized), paths in @avoid last, the first in the caller's order on ties.
 * -1 when none; *@rank (may be NULL): 0 optimized, 1 non-optimized, +2 when avoided. */
NVMFH_HIDDEN int nvmfh_mp_best_path(const struct nvmf_mpath *mp, const struct mp_ns *ns,
				    uint32_t avoid, int *rank);

/* ---- mpath-watch.c ---- */

/* nvmfh_mp_path_fail - path @p is lost (@err): LIVE -> DOWN once, the watcher woken. */
NVMFH_HIDDEN void nvmfh_mp_path_fail(struct nvmf_mpath *mp, unsigned p, int err);
/* nvmfh_mp_kick - wake the watcher (an ANA status was seen). No lock. */
NVMFH_HIDDEN void nvmfh_mp_kick(struct nvmf_mpath *mp);
/* nvmfh_mp_watch_start / stop - the watcher thread. start: 0 or -errno. */
NVMFH_HIDDEN int nvmfh_mp_watch_start(struct nvmf_mpath *mp);
NVMFH_HIDDEN void nvmfh_mp_watch_stop(struct nvmf_mpath *mp);

/* ---- mpath-io.c ---- */

/* nvmfh_mp_queue_init - queue @idx of @mp: its paths' I/O queues, its pool of mp->depth
 * commands. 0 or -ENOMEM. */
NVMFH_HIDDEN int nvmfh_mp_queue_init(struct nvmf_mpath *mp, struct nvmf_mpath_queue *q,
				     unsigned idx);
/* nvmfh_mp_queue_abandon - complete every command of @q waiting to be sent (again) with
 * -ECONNABORTED; the caller's thread runs the callbacks. */
NVMFH_HIDDEN void nvmfh_mp_queue_abandon(struct nvmf_mpath_queue *q);
/* nvmfh_mp_queue_fini - free @q's pool (nothing outstanding any more). */
NVMFH_HIDDEN void nvmfh_mp_queue_fini(struct nvmf_mpath_queue *q);

#endif
