/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the files of the RDMA transport (not a public interface: the rest of
 * the project sees rdma/transport.h only).
 *
 *   listener.c  transport object, rdma_cm listeners, CM events (connect/accept/reject)
 *   queue.c     one RC QP per NVMe queue: CQE buffers, WR chains, teardown
 *   rq.c        receive queues: a poll group's SRQ, or a queue's own
 *   poll-group.c  a poll group: CQ + SRQ per device, qp_num map, end-of-pass posting
 *   pool.c      registered data buffers per device (PD), allocated once
 *   request.c   the per-request state machine and the core's ops (queue_response, ...)
 *   poll.c      the poll loop: CQs, aio, timers, idle sleep; shutdown
 */
#ifndef NVMF_RDMA_INTERNAL_H
#define NVMF_RDMA_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "rdma/transport.h"
#include "rdma/cm-private.h"
#include "target/core.h"
#include "subsystem/aio.h"

#define NVMF_RDMA_LOG(...) fprintf(stderr, "nvmf-rdma: " __VA_ARGS__)

/* Page alignment of every buffer handed to a backend (O_DIRECT needs block alignment). */
#define NVMF_RDMA_ALIGN 4096u

struct nvmf_rdma_req;
struct nvmf_rdma_queue;
struct nvmf_rdma_rq;
struct nvmf_rdma_poll_group;
struct nvmf_rdma_pg_dev;

/* What a work completion's wr_id points at: the first member of each context. */
enum nvmf_rdma_wr_type {
	NVMF_RDMA_WR_RECV,
	NVMF_RDMA_WR_SEND,
	NVMF_RDMA_WR_READ,
	NVMF_RDMA_WR_WRITE,   /* unsignaled; seen only as a flush error */
};
struct nvmf_rdma_wr {
	enum nvmf_rdma_wr_type type;
};

/* ---- pool.c: registered data buffers of one device ---- */

#define NVMF_RDMA_POOL_CLASSES 3
#define NVMF_RDMA_CACHE_MAX    32   /* buffers per class a poll group may hold back */

struct nvmf_rdma_buf_class {
	uint32_t size;         /* bytes per buffer, a multiple of NVMF_RDMA_ALIGN */
	uint32_t count;
	uint32_t nfree;
	void **free;           /* stack of free buffers */
	uint8_t *base;         /* first buffer of the class */
	uint8_t *in_use;       /* per buffer: handed out; catches a buffer released twice */
	uint64_t double_puts;  /* releases of a buffer that was already free (a bug) */
};

struct nvmf_rdma_pool {
	void *mem;             /* one mapping for all classes */
	size_t len;            /* bytes */
	bool huge;             /* MAP_HUGETLB worked */
	struct ibv_mr *mr;     /* registered once, LOCAL_WRITE (RDMA READ lands here) */
	struct nvmf_rdma_buf_class cls[NVMF_RDMA_POOL_CLASSES];
	unsigned ncls;         /* classes in ascending size */
	uint32_t max_size;     /* largest buffer: the max transfer size */
	pthread_mutex_t lock;  /* poll groups of several threads share the pool */
};

/*
 * nvmf_rdma_pool_init - map and register buffers for @pd: 4 KiB x @nsmall, 128 KiB x
 * @nlarge and @max_xfer x max(@nlarge/4, 4) (classes not below @max_xfer collapse into
 * the last). Huge pages first when @huge, normal pages otherwise; placed on NUMA @node
 * (the device's; -1 = anywhere). Returns 0 or -1 with @err set.
 */
int nvmf_rdma_pool_init(struct nvmf_rdma_pool *p, struct ibv_pd *pd, int node, uint32_t max_xfer,
			uint32_t nsmall, uint32_t nlarge, bool huge, char *err, size_t errlen);
void nvmf_rdma_pool_fini(struct nvmf_rdma_pool *p);
/* nvmf_rdma_pool_get - the smallest free buffer of >= @len bytes; NULL when none is free
 * now (or @len exceeds max_size). @cls_out receives the class to give back. Thread safe
 * (pool lock); poll groups keep a small cache in front (nvmf_rdma_pgd_buf_get). */
void *nvmf_rdma_pool_get(struct nvmf_rdma_pool *p, uint32_t len, unsigned *cls_out);
void nvmf_rdma_pool_put(struct nvmf_rdma_pool *p, void *buf, unsigned cls);

/* ---- devices ---- */

struct nvmf_rdma_device {
	struct nvmf_rdma_transport *t;
	struct ibv_context *verbs;         /* owned by librdmacm */
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	bool send_with_inv;                /* IBV_DEVICE_MEM_MGT_EXTENSIONS */
	int numa_node;                     /* of the PCI function; -1 unknown (soft devices) */
	struct nvmf_rdma_pool pool;
	struct nvmf_rdma_device *next;
};

/* ---- receive queues (rq.c) ---- */

/* One posted receive: the SQE and (I/O queues) the in-capsule data area. */
struct nvmf_rdma_recv {
	struct nvmf_rdma_wr wr;            /* first: wr_id points here */
	struct nvmf_rdma_rq *rq;           /* the receive queue it is posted to */
	struct nvme_sqe *sqe;              /* 64 B, registered */
	void *inline_buf;                  /* rq->inline_size bytes, page aligned; NULL if 0 */
	uint32_t byte_len;                 /* of the last completion */
	struct ibv_recv_wr rwr;
	struct ibv_sge sge[2];
	STAILQ_ENTRY(nvmf_rdma_recv) link; /* waiting for a free request */
};

/*
 * A set of receives: a poll group's shared receive queue (SRQ) on one device, or, where
 * the device has no SRQ (or the config turns it off), one queue's own receive queue.
 * SQEs and in-capsule areas are one allocation registered once. Reposts are chained and
 * posted once per poll pass (nvmf_rdma_pg_flush), before that pass's responses.
 */
struct nvmf_rdma_rq {
	struct ibv_srq *srq;               /* NULL: receives go to @owner's QP */
	struct nvmf_rdma_queue *owner;     /* the queue of a non-shared receive queue */
	void *mem;
	size_t mem_len;                    /* bytes */
	struct ibv_mr *mr;
	struct nvmf_rdma_recv *recvs;
	uint32_t depth;                    /* receives */
	uint32_t inline_size;              /* in-capsule bytes per receive (0: none) */
	uint32_t posted;                   /* receives the device holds */
	struct ibv_recv_wr *head, **tailp; /* reposts batched for this pass */
	bool dirty;
	struct nvmf_rdma_rq *next_dirty;
};

/* nvmf_rdma_rq_init - allocate and register @depth receives of 64 B + @inline_size
 * bytes on @pd; an SRQ when @srq_pd_shared (ibv_create_srq on @pd), else for @owner's QP
 * (posted by nvmf_rdma_rq_post_all once the QP exists). Returns 0 or -1 with @err. */
int nvmf_rdma_rq_init(struct nvmf_rdma_rq *rq, struct ibv_pd *pd, bool shared,
		      struct nvmf_rdma_queue *owner, uint32_t depth, uint32_t inline_size,
		      char *err, size_t errlen);
void nvmf_rdma_rq_fini(struct nvmf_rdma_rq *rq);
/* nvmf_rdma_rq_post_all - post every receive now (set-up). Returns 0 or errno. */
int nvmf_rdma_rq_post_all(struct nvmf_rdma_rq *rq);
/* nvmf_rdma_rq_repost - chain @r for the end-of-pass post of its poll group @pg. */
void nvmf_rdma_rq_repost(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_recv *r);
/* nvmf_rdma_rq_flush - post the chained reposts in one call. Returns 0 or errno (the
 * receives not posted are given back to the chain's owner: its queue is lost). */
int nvmf_rdma_rq_flush(struct nvmf_rdma_rq *rq);

/* ---- requests (request.c) ---- */

/* Like SPDK's spdk_nvmf_rdma_request_state; nvmf_rdma_req_process() advances it. */
enum nvmf_rdma_req_state {
	NVMF_RDMA_REQ_FREE,
	NVMF_RDMA_REQ_NEW,              /* capsule received */
	NVMF_RDMA_REQ_NEED_BUFFER,      /* waiting in pgd->buf_waiters */
	NVMF_RDMA_REQ_NEED_READ,        /* waiting for an RDMA READ slot (q->pending_reads) */
	NVMF_RDMA_REQ_TRANSFER_H2C,     /* RDMA READ chained / posted */
	NVMF_RDMA_REQ_READY_TO_EXECUTE,
	NVMF_RDMA_REQ_EXECUTING,        /* owned by the core / backend */
	NVMF_RDMA_REQ_EXECUTED,         /* queue_response called; waiting for a send slot */
	NVMF_RDMA_REQ_COMPLETING,       /* RDMA WRITE + SEND chained / posted (q->completing) */
};

struct nvmf_rdma_req {
	struct nvmf_req req;               /* what the core sees */
	struct nvmf_rdma_queue *q;
	enum nvmf_rdma_req_state state;
	struct nvmf_rdma_recv *recv;       /* the capsule, until the response is posted */
	struct nvme_cqe *cqe;              /* 16 B, registered */
	void *buf;                         /* pool buffer or NULL */
	unsigned buf_cls;
	uint64_t raddr;                    /* keyed SGL: host address, key, bytes to move */
	uint32_t rkey;
	uint32_t xfer_len;
	bool keyed;
	bool invalidate;                   /* answer with SEND_WITH_INV(rkey) */
	struct nvmf_rdma_wr send_ctx, read_ctx, write_ctx;
	struct ibv_send_wr data_wr, send_wr;
	struct ibv_sge data_sge, send_sge;
	TAILQ_ENTRY(nvmf_rdma_req) link;   /* free list, one wait list, or q->completing */
};

/* ---- queues (queue.c) ---- */

enum nvmf_rdma_queue_state {
	NVMF_RDMA_Q_CONNECTING,         /* accepted, waiting for ESTABLISHED */
	NVMF_RDMA_Q_LIVE,
	NVMF_RDMA_Q_DYING,              /* disconnecting: flushing, then waiting for the backend */
};

struct nvmf_rdma_queue {
	struct nvmf_sq sq;
	struct nvmf_rdma_transport *t;
	struct nvmf_rdma_poll_group *pg;
	struct nvmf_rdma_pg_dev *pgd;      /* the group's CQ (and SRQ) on this queue's device */
	struct nvmf_rdma_device *dev;
	struct rdma_cm_id *id;
	struct nvmf_rdma_rq *rq;           /* pgd->srq, or own_rq */
	struct nvmf_rdma_rq own_rq;        /* used when the device has no SRQ */
	enum nvmf_rdma_queue_state state;
	uint16_t qid;                      /* from the CM REQ */
	uint32_t qp_num;
	uint32_t recv_depth;               /* capsules the host may have outstanding: HSQSIZE + 1 */
	uint32_t max_sends;                /* responses in flight: min(HRQSIZE, nreq) */
	uint32_t max_reads;                /* RDMA READs in flight: the negotiated ORD */
	uint32_t nreq;                     /* request contexts: 2 x recv_depth */
	uint32_t inline_size;              /* in-capsule bytes accepted (0 on admin queues) */
	uint32_t cq_share;                 /* CQ entries reserved in pgd->cq */
	bool inline_send;                  /* max_inline_data >= 16: CQE sent inline */
	uint32_t sends_inflight, reads_inflight, executing;
	void *mem;                         /* CQEs, one registration */
	size_t mem_len;
	struct ibv_mr *mr;
	struct nvmf_rdma_req *reqs;
	TAILQ_HEAD(, nvmf_rdma_req) free_reqs;
	TAILQ_HEAD(, nvmf_rdma_req) pending_reads;
	TAILQ_HEAD(, nvmf_rdma_req) pending_sends;
	TAILQ_HEAD(, nvmf_rdma_req) completing; /* SENDs posted, in order: one signaled
						 * completion retires every earlier one */
	STAILQ_HEAD(, nvmf_rdma_recv) pending_recvs;
	/* Send WRs of this poll pass, posted in one ibv_post_send by nvmf_rdma_pg_flush. */
	struct ibv_send_wr *wr_head, **wr_tailp;
	struct ibv_send_wr *last_send;     /* the chain's last SEND: the one signaled */
	bool dirty;
	struct nvmf_rdma_queue *next_dirty;
	bool sq_destroyed;                 /* nvmf_sq_destroy() done */
	uint64_t uid;                      /* unique over the transport's life */
	uint64_t dying_since_ms;
	struct nvmf_rdma_queue *next;      /* in pg->queues */
};

/* nvmf_rdma_queue_create - allocate a queue for @id on @dev in poll group @pg, sized by
 * @conn (QP on the group's CQ and SRQ, CQE buffers). Returns NULL with a reason in @err
 * (the caller rejects with NO_RSC). */
struct nvmf_rdma_queue *nvmf_rdma_queue_create(struct nvmf_rdma_poll_group *pg,
					       struct nvmf_rdma_device *dev, struct nvmf_port *port,
					       struct rdma_cm_id *id,
					       const struct nvmf_rdma_cm_conn *conn,
					       uint32_t ord, char *err, size_t errlen);
/* nvmf_rdma_queue_free - destroy QP and cm_id, free buffers (no core calls). */
void nvmf_rdma_queue_free(struct nvmf_rdma_queue *q);
/* nvmf_rdma_queue_disconnect - start tearing @q down (idempotent): QP to error so every
 * WR flushes, rdma_disconnect; the poll loop finishes the job (nvmf_rdma_queue_reap). */
void nvmf_rdma_queue_disconnect(struct nvmf_rdma_queue *q, const char *why);
/* nvmf_rdma_queue_reap - advance a dying queue; returns true once it is freed. */
bool nvmf_rdma_queue_reap(struct nvmf_rdma_queue *q, uint64_t now_ms, bool force);
/* nvmf_rdma_queue_chain - add @wr (a single WR or a linked pair) to @q's chain for the
 * end-of-pass post; @send is the SEND among them (NULL for an RDMA READ). */
void nvmf_rdma_queue_chain(struct nvmf_rdma_queue *q, struct ibv_send_wr *first,
			   struct ibv_send_wr *last, struct ibv_send_wr *send);
/* nvmf_rdma_queue_flush - post @q's chain in one ibv_post_send, only its last SEND
 * signaled. On failure the queue is disconnected and the unposted requests released. */
void nvmf_rdma_queue_flush(struct nvmf_rdma_queue *q);

/* ---- request.c ---- */
extern const struct nvmf_transport_ops nvmf_rdma_ops;
/* nvmf_rdma_handle_wc - one work completion of @q (NULL: its queue is gone; the receive,
 * if that is what completed, goes back to its SRQ). */
void nvmf_rdma_handle_wc(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_queue *q,
			 const struct ibv_wc *wc);
/* nvmf_rdma_req_release - back to the free list (buffer returned, waiters served). */
void nvmf_rdma_req_release(struct nvmf_rdma_req *r);
/* nvmf_rdma_pgd_kick - serve the group's requests waiting for a buffer on the device. */
void nvmf_rdma_pgd_kick(struct nvmf_rdma_pg_dev *pgd);
/* nvmf_rdma_queue_drop_waiting - on teardown: free requests that never reached the core's
 * backend (waiting for a buffer, a READ slot or a send slot) and receives without one. */
void nvmf_rdma_queue_drop_waiting(struct nvmf_rdma_queue *q);
/* nvmf_rdma_req_retire - a SEND completed (or was never posted): release @r and every
 * request posted before it on its queue (their SENDs were unsignaled). */
void nvmf_rdma_req_retire(struct nvmf_rdma_req *r);

/* ---- poll groups (poll-group.c) ---- */

/* One device's resources in one poll group. */
struct nvmf_rdma_pg_dev {
	struct nvmf_rdma_poll_group *pg;
	struct nvmf_rdma_device *dev;
	struct ibv_comp_channel *channel;  /* this CQ's events; in pg->epfd */
	struct ibv_cq *cq;                 /* every QP of the group on this device */
	uint32_t cq_size, cq_used;         /* entries: allocated, reserved by queues */
	struct nvmf_rdma_rq *srq;          /* NULL: SRQ off or not supported */
	TAILQ_HEAD(, nvmf_rdma_req) buf_waiters; /* NEED_BUFFER, FIFO */
	/* Per-class cache of pool buffers in front of the shared pool (threaded groups). */
	struct nvmf_rdma_buf_cache {
		void *buf[NVMF_RDMA_CACHE_MAX];
		unsigned n, max;
	} cache[NVMF_RDMA_POOL_CLASSES];
	struct nvmf_rdma_pg_dev *next;
};

/* nvmf_rdma_pgd_buf_get/put - a data buffer through the group's cache. */
void *nvmf_rdma_pgd_buf_get(struct nvmf_rdma_pg_dev *pgd, uint32_t len, unsigned *cls_out);
void nvmf_rdma_pgd_buf_put(struct nvmf_rdma_pg_dev *pgd, void *buf, unsigned cls);

/*
 * A poll group: run to completion by one thread, owning its queues' QPs, a CQ and an SRQ
 * per device. Work produced during one pass (responses, READs, receive reposts) is
 * chained per QP / SRQ and posted once at the end of the pass (nvmf_rdma_pg_flush).
 */
struct nvmf_rdma_poll_group {
	struct nvmf_rdma_transport *t;
	int epfd;                          /* completion channels (+ the transport's fds) */
	struct nvmf_rdma_pg_dev *devs;
	struct nvmf_rdma_queue *queues;
	uint32_t nqueues;
	struct nvmf_rdma_queue **qp_map;   /* qp_num -> queue, open addressing */
	uint32_t qp_map_size;              /* slots, a power of two, >= 2 x nqueues */
	struct nvmf_rdma_queue *dirty_q;   /* queues with chained send WRs */
	struct nvmf_rdma_rq *dirty_rq;     /* receive queues with chained reposts */
	uint64_t last_work_us;
	uint64_t wcs, posts, passes;       /* counters: completions, post calls, passes with work */
	unsigned nthreads;                 /* threads sharing the device pools (caches if > 1) */
	struct nvmf_io_ctx *io;            /* backend I/O of this group's queues (NULL: tgt->io) */
	struct nvmf_rdma_worker *worker;   /* the thread running it; NULL: the main thread */
};

int nvmf_rdma_pg_init(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_transport *t, int epfd);
void nvmf_rdma_pg_fini(struct nvmf_rdma_poll_group *pg);
/* nvmf_rdma_pg_dev_get - the group's CQ/SRQ on @dev, created on first use. */
struct nvmf_rdma_pg_dev *nvmf_rdma_pg_dev_get(struct nvmf_rdma_poll_group *pg,
					      struct nvmf_rdma_device *dev, char *err, size_t errlen);
/* nvmf_rdma_pg_reserve_cq - reserve @n CQ entries in @pgd->cq, resizing it if needed.
 * Returns 0 or -1 with @err. nvmf_rdma_pg_release_cq gives them back. */
int nvmf_rdma_pg_reserve_cq(struct nvmf_rdma_pg_dev *pgd, uint32_t n, char *err, size_t errlen);
void nvmf_rdma_pg_release_cq(struct nvmf_rdma_pg_dev *pgd, uint32_t n);
/* Queue membership: the list and the qp_num map. Returns 0 or -ENOMEM. */
int nvmf_rdma_pg_add_queue(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_queue *q);
void nvmf_rdma_pg_remove_queue(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_queue *q);
struct nvmf_rdma_queue *nvmf_rdma_pg_find_qp(struct nvmf_rdma_poll_group *pg, uint32_t qp_num);
/* nvmf_rdma_pg_poll_cqs - reap up to @budget completions per CQ. Returns how many. */
int nvmf_rdma_pg_poll_cqs(struct nvmf_rdma_poll_group *pg, int budget);
/* nvmf_rdma_pg_flush - post everything chained this pass: receives first, then one
 * ibv_post_send per QP. */
void nvmf_rdma_pg_flush(struct nvmf_rdma_poll_group *pg);
/* nvmf_rdma_pg_kick_waiters - once per pass: serve requests waiting for a buffer that
 * another group (or this one) may have returned to the pool. */
void nvmf_rdma_pg_kick_waiters(struct nvmf_rdma_poll_group *pg);
/* nvmf_rdma_pg_arm - request an event on every CQ of the group (before sleeping). */
void nvmf_rdma_pg_arm(struct nvmf_rdma_poll_group *pg);
/* nvmf_rdma_pg_drain_events - ack pending completion-channel events. */
void nvmf_rdma_pg_drain_events(struct nvmf_rdma_poll_group *pg);

/* ---- the transport (listener.c / poll.c) ---- */

struct nvmf_rdma_listener {
	struct rdma_cm_id *id;
	struct nvmf_port *port;
	struct nvmf_rdma_listener *next;
};

struct nvmf_rdma_transport {
	struct nvmf_tgt *tgt;
	struct rdma_event_channel *ec;     /* all cm_ids, non-blocking */
	int epfd;                          /* ec, device channels, aio eventfd */
	struct nvmf_rdma_listener *listeners;
	struct nvmf_rdma_device *devices;
	struct nvmf_rdma_poll_group pg;    /* the poll group run by nvmf_rdma_poll() */
	uint64_t last_timer_ms;
	uint32_t max_xfer;                 /* bytes: 4 KiB << mdts */
	bool use_srq;                      /* nvmf_target.srq (where the device has SRQs) */
	uint32_t srq_depth;                /* receives per SRQ (nvmf_target.srq_depth) */
	uint32_t inline_max;               /* largest in-capsule size of any port: SRQ receives */
	struct nvmf_rdma_worker *workers;  /* nworkers poll groups on their own threads */
	unsigned nworkers;
	pthread_mutex_t core_lock;         /* the core is single threaded: held by the main
					    * thread while it runs a pass, by workers for
					    * Fabrics commands and queue teardown */
	uint64_t next_uid;
	bool shutting_down;
};

/* nvmf_rdma_process_cm_events - handle every pending CM event on @ec (the transport's,
 * or a worker's for the queues migrated to it). Returns how many. */
int nvmf_rdma_process_cm_events(struct nvmf_rdma_transport *t, struct rdma_event_channel *ec);

/* A validated CONNECT_REQUEST, as handed from the CM thread to the queue's poll group. */
struct nvmf_rdma_conn_req {
	struct rdma_cm_id *id;
	struct nvmf_port *port;
	struct nvmf_rdma_device *dev;
	struct nvmf_rdma_cm_conn conn;
	uint32_t ord, ird;                 /* RDMA READ depths, capped by the device */
	char peer[64];                     /* "addr:port" for messages */
	struct nvmf_rdma_conn_req *next;   /* in a worker's inbox */
};
/* nvmf_rdma_connect_queue - create @cr's queue in @pg and accept it. Returns the cm_id
 * to destroy (once its event is acked) when it was rejected, else NULL. */
struct rdma_cm_id *nvmf_rdma_connect_queue(struct nvmf_rdma_poll_group *pg,
					   const struct nvmf_rdma_conn_req *cr);

/* ---- worker threads (worker.c): poll groups for I/O queues when threads > 1 ---- */

struct nvmf_rdma_worker {
	struct nvmf_rdma_poll_group pg;
	struct nvmf_rdma_transport *t;
	unsigned index;
	int cpu;                           /* pinned to; -1 none */
	pthread_t thread;
	bool started;
	struct rdma_event_channel *ec;     /* CM events of the queues migrated here */
	struct nvmf_aio aio;
	struct nvmf_io_ctx io;
	int wake_fd;                       /* eventfd: something in the inbox, or stop */
	pthread_mutex_t lock;              /* inbox and stop */
	struct nvmf_rdma_conn_req *inbox;  /* new queues, FIFO */
	struct nvmf_rdma_ctl *ctl;         /* disconnect requests */
	bool stop;
	uint32_t nqueues;                  /* queues placed here (atomic): placement */
};

/* A request to disconnect a queue of another thread, named by QP number and uid so that
 * a queue freed meanwhile is recognized. */
struct nvmf_rdma_ctl {
	uint32_t qp_num;
	uint64_t uid;
	struct nvmf_rdma_ctl *next;
};

/* nvmf_rdma_workers_start - @n worker threads (pinned to CPUs of NUMA @node when >= 0).
 * Returns 0 or -1 with @err. */
int nvmf_rdma_workers_start(struct nvmf_rdma_transport *t, unsigned n, int node, char *err, size_t errlen);
/* nvmf_rdma_device_numa_node - NUMA node of @device's PCI function (sysfs), -1 if
 * unknown (soft devices, no NUMA). */
int nvmf_rdma_device_numa_node(const struct ibv_device *device);
/* nvmf_rdma_first_device_node - NUMA node of the first RDMA device, -1 if unknown. */
int nvmf_rdma_first_device_node(void);
/* nvmf_rdma_workers_stop - disconnect every worker queue, wait up to @timeout_ms, join. */
void nvmf_rdma_workers_stop(struct nvmf_rdma_transport *t, int timeout_ms);
/* nvmf_rdma_worker_handoff - place @cr on the least loaded worker (takes ownership). */
void nvmf_rdma_worker_handoff(struct nvmf_rdma_transport *t, struct nvmf_rdma_conn_req *cr);
/* nvmf_rdma_queue_disconnect_any - disconnect @q from whichever thread: directly on its own
 * thread, by message otherwise. Call with the core lock held (keeps @q attached). */
void nvmf_rdma_queue_disconnect_any(struct nvmf_rdma_queue *q, const char *why);
/* Poll-loop pieces shared by the main thread and the workers (poll.c). */
int nvmf_rdma_poll_aio(struct nvmf_io_ctx *io);
int nvmf_rdma_reap_queues(struct nvmf_rdma_poll_group *pg, bool force);
/* nvmf_rdma_pg_sleep - arm the CQs, look once more, else epoll_wait on pg->epfd up to
 * @timeout_ms. Returns work found (> 0), 0 after sleeping, -1 on error. */
int nvmf_rdma_pg_sleep(struct nvmf_rdma_poll_group *pg, int timeout_ms);
/* nvmf_rdma_device_get - the device context of @verbs, created on first use. */
struct nvmf_rdma_device *nvmf_rdma_device_get(struct nvmf_rdma_transport *t,
					      struct ibv_context *verbs, char *err, size_t errlen);
void nvmf_rdma_device_free(struct nvmf_rdma_device *dev);
/* Monotonic clocks. */
uint64_t nvmf_rdma_now_us(void);

#endif
