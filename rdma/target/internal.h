/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the files of the RDMA target transport (not a public interface: the
 * rest of the project sees rdma/target/transport.h only).
 *
 *   transport.c   the transport object, devices and their pools, rdma_cm listeners and
 *                 CM events (validate, hand to the core, accept or reject)
 *   poll-group.c  the transport's part of a core poll group: CQ + SRQ per device, the
 *                 qp_num map, reaping completions, the end-of-pass posting
 *   queue.c       one RC QP per NVMe queue: CQE buffers, WR chains, teardown
 *   request.c     the per-request state machine and the core's queue_response
 *   rq.c          receive queues: a poll group's SRQ, or a queue's own
 *   async.c       the devices' asynchronous events (QP errors, LAST_WQE_REACHED, SRQ,
 *                 port and device events), read by the main group, handled by the owner
 *   pool.c        registered data buffers per device (PD), allocated once
 *   poster.c      a poll group's posting thread: large send chains on software devices
 *   verbs.c       every verbs call of the data path and of resource set-up, through one
 *                 table (struct nvmf_rdma_verbs) that the unit tests replace with a fake
 */
#ifndef NVMF_RDMA_TARGET_INTERNAL_H
#define NVMF_RDMA_TARGET_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "nvme/rdma-cm.h"
#include "rdma/device.h"
#include "rdma/target/transport.h"
#include "util/clock.h"

/* NVMF_RDMA_LOG - one line in the target's log (target/log.h: its level, its stderr) from
 * the transport @t: "rdma: " then printf's format and arguments, no trailing newline.
 * Lines about a queue name its host ("rdma: host 192.0.2.1:40112, queue 1 ..."). */
#define NVMF_RDMA_LOG(t, level, ...) \
	nvmf_log_at((t)->base.tgt, NVMF_LOGC_RDMA, (level), __VA_ARGS__)

/* Page alignment of every buffer handed to a backend (O_DIRECT needs block alignment). */
#define NVMF_RDMA_ALIGN 4096u

/* Limits of the transport (NVMe/RDMA binding): a keyed SGL length has 24 bits; pools go
 * up to 8 MiB buffers (MDTS 11). */
#define NVMF_RDMA_MAX_QUEUE_SIZE    1024u
#define NVMF_RDMA_MAX_INLINE        16384u
#define NVMF_RDMA_MAX_XFER          (8u << 20)
/* A send chain with an RDMA WRITE (data to the host) of this many bytes goes to the poll
 * group's posting thread (poster.c). Per WR, not per chain: a burst of 4 KiB answers at
 * queue depth 32 is cheaper posted inline than handed over (measured: 0.93x the IOPS).
 * RDMA READs stay inline: posting one sends a request packet only, the data comes back
 * through the host's responder in softirq (measured: handed over, 0.98x on 128 KiB). */
#define NVMF_RDMA_POST_THREAD_BYTES (64u << 10)

struct nvmf_rdma_req;
struct nvmf_rdma_queue;
struct nvmf_rdma_rq;
struct nvmf_rdma_poll_group;
struct nvmf_rdma_pg_dev;
struct nvmf_rdma_transport;

/* ---- verbs.c: the seam between the data path and the device ---- */

/*
 * Every verbs call the target transport makes, so that tests/unit/rdma/ can run the data
 * path against a fake device on a machine without RDMA. nvmf_rdma_verbs_real calls
 * libibverbs / librdmacm. Return values as the verbs they stand for.
 */
struct nvmf_rdma_verbs {
	/* data path */
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
	int (*poll_cq)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	/* qp_error - move @qp to the error state: every posted WR completes with a flush
	 * error (teardown). */
	int (*qp_error)(struct ibv_qp *qp);
	/* req_notify_cq - an event on the CQ's channel at the next completion (before the
	 * poll group sleeps); ack_channel - take and acknowledge the channel's events. */
	int (*req_notify_cq)(struct ibv_cq *cq);
	void (*ack_channel)(struct ibv_comp_channel *ch);
	/* memory registration */
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	/* resources */
	struct ibv_comp_channel *(*create_channel)(struct ibv_context *ctx);
	int (*destroy_channel)(struct ibv_comp_channel *ch);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe, void *cq_ctx,
				    struct ibv_comp_channel *ch);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);
	/* create_qp - an RC QP for @id (NULL in tests) on @pd; fills @attr->cap with what
	 * the device granted. NULL with errno set. */
	struct ibv_qp *(*create_qp)(struct rdma_cm_id *id, struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	void (*destroy_qp)(struct rdma_cm_id *id, struct ibv_qp *qp);
	/* connection management (librdmacm) of the queues' cm_ids and of the poll groups' event
	 * channels (the listeners' own ids and channel are made and destroyed directly: tests
	 * replace ops->create and ops->listen): create/destroy_event_channel; get_cm_event - the next event of @ec (non-blocking: -1 with errno EAGAIN when none);
	 * ack_cm_event - done with it; accept / reject (with NVMe/RDMA private data) /
	 * disconnect / migrate_id (events to @ec from now on) / destroy_id as the rdma_* calls:
	 * 0, or -1 with errno. */
	struct rdma_event_channel *(*create_event_channel)(void);
	void (*destroy_event_channel)(struct rdma_event_channel *ec);
	int (*get_cm_event)(struct rdma_event_channel *ec, struct rdma_cm_event **ev);
	int (*ack_cm_event)(struct rdma_cm_event *ev);
	int (*accept)(struct rdma_cm_id *id, struct rdma_conn_param *param);
	int (*reject)(struct rdma_cm_id *id, const void *pdata, uint8_t len);
	int (*disconnect)(struct rdma_cm_id *id);
	int (*migrate_id)(struct rdma_cm_id *id, struct rdma_event_channel *ec);
	int (*destroy_id)(struct rdma_cm_id *id);
	/* get_async_event - the next asynchronous event of device context @ctx (its async_fd
	 * is non-blocking: -1 with errno EAGAIN when none); every event taken is given back
	 * with ack_async_event (ibv_destroy_qp waits for the acks of its QP's events). */
	int (*get_async_event)(struct ibv_context *ctx, struct ibv_async_event *ev);
	void (*ack_async_event)(struct ibv_async_event *ev);
};

extern const struct nvmf_rdma_verbs nvmf_rdma_verbs_real;

/* What a work completion's wr_id points at: the first member of each context. */
enum nvmf_rdma_wr_type {
	NVMF_RDMA_WR_RECV,
	NVMF_RDMA_WR_SEND,
	NVMF_RDMA_WR_READ,
	NVMF_RDMA_WR_WRITE, /* unsignaled; seen only as a flush error */
};
struct nvmf_rdma_wr {
	enum nvmf_rdma_wr_type type;
};

/* ---- pool.c: registered data buffers of one device ---- */

#define NVMF_RDMA_POOL_CLASSES 3
#define NVMF_RDMA_CACHE_MAX    32 /* buffers per class a poll group may hold back */

struct nvmf_rdma_buf_class {
	uint32_t size; /* bytes per buffer, a multiple of NVMF_RDMA_ALIGN */
	uint32_t count;
	uint32_t nfree;
	void **free;          /* stack of free buffers */
	uint8_t *base;        /* first buffer of the class */
	uint8_t *in_use;      /* per buffer: handed out; catches a buffer released twice */
	uint64_t double_puts; /* releases of a buffer that was already free (a bug) */
};

struct nvmf_rdma_pool {
	const struct nvmf_rdma_verbs *verbs;
	void *mem;         /* one mapping for all classes */
	size_t len;        /* bytes */
	bool huge;         /* MAP_HUGETLB worked */
	struct ibv_mr *mr; /* registered once, LOCAL_WRITE (RDMA READ lands here) */
	struct nvmf_rdma_buf_class cls[NVMF_RDMA_POOL_CLASSES];
	unsigned ncls;        /* classes in ascending size */
	uint32_t max_size;    /* largest buffer: the max transfer size */
	pthread_mutex_t lock; /* poll groups of several threads share the pool */
};

/*
 * nvmf_rdma_pool_init - map and register buffers for @pd: 4 KiB x @nsmall, 128 KiB x
 * @nlarge and @max_xfer x max(@nlarge/4, 4) (classes not below @max_xfer collapse into
 * the last). Huge pages first when @huge, normal pages otherwise; placed on NUMA @node
 * (the device's; -1 = anywhere). Returns 0 or -1 with @err set.
 */
int nvmf_rdma_pool_init(struct nvmf_rdma_pool *p, const struct nvmf_rdma_verbs *verbs,
			struct ibv_pd *pd, int node, uint32_t max_xfer, uint32_t nsmall,
			uint32_t nlarge, bool huge, char *err, size_t errlen);
void nvmf_rdma_pool_fini(struct nvmf_rdma_pool *p);
/* nvmf_rdma_pool_get - the smallest free buffer of >= @len bytes; NULL when none is free
 * now (or @len exceeds max_size). @cls_out receives the class to give back. Thread safe
 * (pool lock); poll groups keep a small cache in front (nvmf_rdma_pgd_buf_get). */
void *nvmf_rdma_pool_get(struct nvmf_rdma_pool *p, uint32_t len, unsigned *cls_out);
/* nvmf_rdma_pool_put - give @buf of class @cls back. Returns false, keeping nothing, when
 * @buf is not a buffer of the pool in use (released twice: a bug the caller logs; the
 * pool counts them in the class's double_puts). */
bool nvmf_rdma_pool_put(struct nvmf_rdma_pool *p, void *buf, unsigned cls);

/* A pool's buffers, all classes added up. */
struct nvmf_rdma_pool_stats {
	uint32_t count;       /* buffers */
	uint32_t nfree;       /* in the pool now (not counting the groups' caches) */
	uint64_t double_puts; /* releases of a buffer already free (a bug if not 0) */
};
/* nvmf_rdma_pool_stats - @p's counts now, under its lock (any thread). */
void nvmf_rdma_pool_stats(struct nvmf_rdma_pool *p, struct nvmf_rdma_pool_stats *st);

/* ---- devices (transport.c) ---- */

/* A device the transport uses: the shared context (PD, attributes) and its data pool. The
 * list (t->devices) is the main group's; its async_fd is the main group's to read. */
struct nvmf_rdma_device {
	struct nvmf_rdma_dev *dev; /* rdma/device.h */
	struct nvmf_rdma_pool pool;
	bool last_wqe_event;   /* raises IBV_EVENT_QP_LAST_WQE_REACHED: not rxe
					    * (vendor 0 or 0xffffff) nor iWARP, as SPDK tells */
	bool soft;             /* a software device (rxe, siw): its send work runs inside
				    * ibv_post_send, in the caller's thread (poster.c) */
	uint64_t async_events; /* asynchronous events read (main group) */
	struct nvmf_rdma_device *next;
};

/* ---- receive queues (rq.c) ---- */

/* One posted receive: the SQE and (I/O queues) the in-capsule data area. */
struct nvmf_rdma_recv {
	struct nvmf_rdma_wr wr;  /* first: wr_id points here */
	struct nvmf_rdma_rq *rq; /* the receive queue it is posted to */
	struct nvme_sqe *sqe;    /* 64 B, registered */
	void *inline_buf;        /* rq->inline_size bytes, page aligned; NULL if 0 */
	uint32_t byte_len;       /* of the last completion */
	struct ibv_recv_wr rwr;
	struct ibv_sge sge[2];
	STAILQ_ENTRY(nvmf_rdma_recv) link; /* waiting for a free request */
};

/*
 * A set of receives: a poll group's shared receive queue (SRQ) on one device, or, where
 * the device has no SRQ (or the config turns it off), one queue's own receive queue.
 * SQEs and in-capsule areas are one allocation registered once. Reposts are chained and
 * posted once per poll pass (nvmf_rdma_pg_flush_op), before that pass's responses.
 */
struct nvmf_rdma_rq {
	const struct nvmf_rdma_verbs *verbs;
	struct ibv_srq *srq;           /* NULL: receives go to @owner's QP */
	struct nvmf_rdma_queue *owner; /* the queue of a non-shared receive queue */
	void *mem;
	size_t mem_len; /* bytes */
	struct ibv_mr *mr;
	struct nvmf_rdma_recv *recvs;
	uint32_t depth;                    /* receives */
	uint32_t inline_size;              /* in-capsule bytes per receive (0: none) */
	uint32_t posted;                   /* receives the device holds */
	struct ibv_recv_wr *head, **tailp; /* reposts batched for this pass */
	bool dirty;
	struct nvmf_rdma_rq *next_dirty;
};

/* nvmf_rdma_rq_init - allocate and register @depth receives of 64 B + @inline_size bytes
 * on @pd; when @shared: an SRQ (verbs->create_srq on @pd), else for @owner's
 * QP (posted by nvmf_rdma_rq_post_all once the QP exists). Returns 0 or -1 with @err. */
int nvmf_rdma_rq_init(struct nvmf_rdma_rq *rq, const struct nvmf_rdma_verbs *verbs,
		      struct ibv_pd *pd, bool shared, struct nvmf_rdma_queue *owner, uint32_t depth,
		      uint32_t inline_size, char *err, size_t errlen);
void nvmf_rdma_rq_fini(struct nvmf_rdma_rq *rq);
/* nvmf_rdma_rq_post_all - post every receive now (set-up), through nvmf_rdma_rq_flush.
 * Returns 0 or errno (then the caller frees @rq). */
int nvmf_rdma_rq_post_all(struct nvmf_rdma_rq *rq);
/* nvmf_rdma_rq_repost - chain @r for the end-of-pass post of its poll group @pg. */
void nvmf_rdma_rq_repost(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_recv *r);
/* nvmf_rdma_rq_kick - have @rq's chained reposts (if any) posted at the end of @pg's pass,
 * even if none was added in it (after an SRQ event). */
void nvmf_rdma_rq_kick(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_rq *rq);
/* nvmf_rdma_rq_flush - post the chained reposts in one call. Returns 0 or errno (the
 * receives not posted stay chained on an SRQ; a queue's own are lost with its QP). */
int nvmf_rdma_rq_flush(struct nvmf_rdma_rq *rq);

/* ---- requests (request.c) ---- */

/*
 * The life of one command on an RDMA queue, like SPDK's spdk_nvmf_rdma_request_state;
 * nvmf_rdma_req_process() advances a request as far as it can go:
 *
 *   FREE -> NEW            a capsule arrived (wc_recv)
 *   NEW -> EXECUTED        the core answered at once (nvmf_req_init false, or a bad SGL)
 *   NEW -> READY_TO_EXECUTE  no data, or in-capsule data (zero copy: it stays in the
 *                          receive buffer), or a keyed C2H command once it has a buffer
 *   NEW -> NEED_BUFFER     keyed data: a registered pool buffer of the transfer size
 *   NEED_BUFFER -> NEED_READ (H2C) | READY_TO_EXECUTE (C2H)   a buffer was free
 *   NEED_READ -> TRANSFER_H2C   an RDMA READ slot (the negotiated ORD) was free
 *   TRANSFER_H2C -> READY_TO_EXECUTE   the READ completed
 *   READY_TO_EXECUTE -> EXECUTING      handed to the core (nvmf_req_execute)
 *   EXECUTING -> EXECUTED  the core called queue_response
 *   EXECUTED -> READY_TO_COMPLETE  the capsule's receive was reposted; wait for a send
 *                          slot (never more responses in flight than the host's HRQSIZE)
 *   READY_TO_COMPLETE -> COMPLETING  RDMA WRITE (C2H data) + SEND [WITH_INV] chained for
 *                          the end-of-pass post; only the chain's last SEND is signaled
 *   COMPLETING -> COMPLETED  that SEND (or a later one of the same QP) completed
 *   COMPLETED -> FREE      buffer back to the pool, buffer waiters served
 * On a dying queue a request waiting for a buffer, a READ slot or its READ is abandoned
 * (the core forgets it) and an answer is dropped.
 */
enum nvmf_rdma_req_state {
	NVMF_RDMA_REQ_FREE,
	NVMF_RDMA_REQ_NEW,
	NVMF_RDMA_REQ_NEED_BUFFER,  /* in pgd->buf_waiters */
	NVMF_RDMA_REQ_NEED_READ,    /* in q->pending_reads */
	NVMF_RDMA_REQ_TRANSFER_H2C, /* RDMA READ chained / posted */
	NVMF_RDMA_REQ_READY_TO_EXECUTE,
	NVMF_RDMA_REQ_EXECUTING, /* owned by the core / backend */
	NVMF_RDMA_REQ_EXECUTED,
	NVMF_RDMA_REQ_READY_TO_COMPLETE, /* in q->pending_sends */
	NVMF_RDMA_REQ_COMPLETING,        /* in q->completing */
	NVMF_RDMA_REQ_COMPLETED,
};

TAILQ_HEAD(nvmf_rdma_req_list, nvmf_rdma_req);

struct nvmf_rdma_req {
	struct nvmf_req req; /* what the core sees */
	struct nvmf_rdma_queue *q;
	enum nvmf_rdma_req_state state;
	struct nvmf_rdma_recv *recv; /* the capsule, until it is reposted */
	struct nvme_cqe *cqe;        /* 16 B, registered */
	void *buf;                   /* pool buffer or NULL */
	unsigned buf_cls;
	uint64_t raddr; /* keyed SGL: host address, key, bytes to move */
	uint32_t rkey;
	uint32_t xfer_len;
	bool invalidate; /* answer with SEND_WITH_INV(rkey) */
	bool in_core;    /* nvmf_req_init accepted it, not yet answered */
	bool in_process; /* nvmf_rdma_req_process is advancing it */
	bool queued;     /* in a wait list (buffer, READ slot, send slot) */
	bool resumed;    /* just taken off the head of its wait list */
	struct nvmf_rdma_wr send_ctx, read_ctx, write_ctx;
	struct ibv_send_wr data_wr, send_wr;
	struct ibv_sge data_sge, send_sge;
	TAILQ_ENTRY(nvmf_rdma_req) link; /* free list, one wait list, or q->completing */
};

/* nvmf_rdma_req_process - advance @r as far as it can go (see the states above). */
void nvmf_rdma_req_process(struct nvmf_rdma_req *r);
/* nvmf_rdma_handle_wc - one work completion of @q (NULL: its queue is gone; a shared
 * receive, if that is what completed, goes back to its SRQ). */
void nvmf_rdma_handle_wc(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_queue *q,
			 const struct ibv_wc *wc);
/* nvmf_rdma_pgd_kick - serve the group's requests waiting for a buffer on the device. */
void nvmf_rdma_pgd_kick(struct nvmf_rdma_pg_dev *pgd);
/* nvmf_rdma_queue_drop_waiting - on teardown: abandon requests that never reached the
 * backend (waiting for a buffer, a READ slot or a send slot) and repost receives that
 * never got a request. */
void nvmf_rdma_queue_drop_waiting(struct nvmf_rdma_queue *q);
/* nvmf_rdma_req_unpost - a WR of @r never reached the device (post failed, or the queue
 * died before the post): undo what chaining it counted and finish @r (a SEND: with the
 * SENDs posted before it, which may never complete). */
void nvmf_rdma_req_unpost(struct nvmf_rdma_req *r, enum nvmf_rdma_wr_type type);
/* The core's ops of the transport (request.c). */
void nvmf_rdma_queue_response(struct nvmf_req *req);

/* ---- queues (queue.c) ---- */

enum nvmf_rdma_queue_state {
	NVMF_RDMA_Q_CONNECTING, /* accepted, waiting for ESTABLISHED */
	NVMF_RDMA_Q_LIVE,
	NVMF_RDMA_Q_DYING, /* disconnecting: flushing, then waiting for the core */
};

struct nvmf_rdma_queue {
	struct nvmf_sq sq;
	struct nvmf_rdma_transport *t;
	struct nvmf_rdma_poll_group *pg;
	struct nvmf_rdma_pg_dev *pgd; /* the group's CQ (and SRQ) on this queue's device */
	struct nvmf_rdma_device *dev;
	struct rdma_cm_id *id; /* NULL for queues the unit tests build */
	struct ibv_qp *qp;
	struct nvmf_rdma_rq *rq;    /* pgd->srq, or own_rq */
	struct nvmf_rdma_rq own_rq; /* used when the device has no SRQ */
	enum nvmf_rdma_queue_state state;
	uint16_t qid; /* from the CM REQ */
	uint32_t qp_num;
	uint32_t recv_depth;  /* capsules the host may have outstanding: HSQSIZE + 1 */
	uint32_t max_sends;   /* responses in flight: min(HRQSIZE, nreq) */
	uint32_t max_reads;   /* RDMA READs in flight: the negotiated ORD */
	uint32_t nreq;        /* request contexts: 2 x recv_depth */
	uint32_t inline_size; /* in-capsule bytes accepted (0 on admin queues) */
	uint32_t cq_share;    /* CQ entries reserved in pgd->cq */
	bool inline_send;     /* max_inline_data >= 16: CQE sent inline */
	uint32_t sends_inflight, reads_inflight;
	void *mem; /* CQEs, one registration */
	size_t mem_len;
	struct ibv_mr *mr;
	struct nvmf_rdma_req *reqs;
	struct nvmf_rdma_req_list free_reqs;
	struct nvmf_rdma_req_list pending_reads;
	struct nvmf_rdma_req_list pending_sends;
	struct nvmf_rdma_req_list completing; /* SENDs posted, in order: one signaled
						 * completion retires every earlier one */
	STAILQ_HEAD(, nvmf_rdma_recv) pending_recvs;
	/* Send WRs of this poll pass, posted in one post_send by nvmf_rdma_pg_flush_op. */
	struct ibv_send_wr *wr_head, **wr_tailp;
	struct ibv_send_wr *last_send; /* the chain's last SEND: the one signaled */
	uint32_t wr_max;               /* bytes of the chain's largest RDMA WRITE */
	bool post_offload;             /* large chains go to the group's poster (poster.c) */
	/* The poster's part (poster.c): chains handed over and not yet through post_send
	 * (atomic), the chains waiting (under the poster's lock) and what a failed post left. */
	uint32_t post_pending;
	struct ibv_send_wr *post_head, **post_tailp;
	uint32_t post_chains;               /* chains in post_head */
	struct ibv_send_wr *post_last_send; /* their last SEND: the one signaled */
	bool post_listed, post_busy;
	bool post_failed; /* a post failed and the group has not handled it: every
			   * chain of the queue goes to post_bad, none to the device */
	struct nvmf_rdma_queue *post_next, *post_failed_next;
	struct ibv_send_wr *post_bad, **post_bad_tailp; /* the WRs the failed post did not
							 * take, and every chain since */
	uint32_t post_failed_chains; /* chains in post_bad (still in post_pending) */
	int post_error;              /* that post's error (errno) */
	bool dirty;
	struct nvmf_rdma_queue *next_dirty;
	bool released; /* the core called queue_released */
	bool last_wqe; /* IBV_EVENT_QP_LAST_WQE_REACHED seen: the QP takes
					    * no more SRQ receives, all it took have completed */
	uint64_t dying_since_ms;
	struct nvmf_rdma_queue *next; /* in pg->queues */
};

/*
 * nvmf_rdma_queue_create - a queue for connection @id (NULL: a unit test's) on @dev in
 * poll group @pg, sized by @conn (NVMe/RDMA CM REQ) with @ord RDMA READs in flight: CQE
 * buffers registered, a QP on the group's CQ and SRQ (or its own receives, all posted),
 * known to the core (nvmf_sq_init on @port) and in the qp_num map. Returns NULL with a
 * reason in @err (the caller rejects with NO_RSC).
 */
struct nvmf_rdma_queue *nvmf_rdma_queue_create(struct nvmf_rdma_poll_group *pg,
					       struct nvmf_rdma_device *dev, struct nvmf_port *port,
					       struct rdma_cm_id *id,
					       const struct nvme_rdma_cm_conn *conn, uint32_t ord,
					       char *err, size_t errlen);
/* nvmf_rdma_queue_disconnect - start tearing @q down (idempotent): QP to error so every
 * WR flushes, rdma_disconnect, waiting requests abandoned, the core told
 * (nvmf_sq_destroy); nvmf_rdma_queue_reap finishes the job. @why is logged (NULL:
 * quietly). */
void nvmf_rdma_queue_disconnect(struct nvmf_rdma_queue *q, const char *why);
/* nvmf_rdma_queue_reap - free a dying queue once the core released it, its WRs have
 * flushed and, on an SRQ of a device that raises it, LAST_WQE_REACHED came (or once the
 * flush timed out, @force: what the QP still held of the SRQ may then be lost). Returns
 * true once it is freed. */
bool nvmf_rdma_queue_reap(struct nvmf_rdma_queue *q, uint64_t now_ms, bool force);
/* nvmf_rdma_queue_chain - add @first..@last (a single WR or a linked pair) to @q's chain
 * for the end-of-pass post; @send is the SEND among them (NULL for an RDMA READ). */
void nvmf_rdma_queue_chain(struct nvmf_rdma_queue *q, struct ibv_send_wr *first,
			   struct ibv_send_wr *last, struct ibv_send_wr *send);
/* nvmf_rdma_queue_flush - post @q's chain in one post_send, only its last SEND
 * signaled (or hand it to the group's poster: poster.c). On failure the queue is
 * disconnected and the unposted requests finished. */
void nvmf_rdma_queue_flush(struct nvmf_rdma_queue *q);
/* nvmf_rdma_queue_unpost - finish the requests of WRs that never reached the device
 * (@bad: the rest of a chain from the first WR a post refused). */
void nvmf_rdma_queue_unpost(struct ibv_send_wr *bad);

/* ---- the posting thread (poster.c) ---- */

/*
 * A poll group's posting thread: post_send calls of large chains of queues on software
 * devices, made beside the poll loop (why: poster.c). Queues waiting are listed FIFO; the
 * lock guards the list and every queue's post_* fields but post_pending.
 */
struct nvmf_rdma_poster {
	const struct nvmf_rdma_verbs *verbs;
	struct nvmf_pg *wake; /* the core group to wake when a post failed */
	uint32_t post_bytes;  /* chains with an RDMA WRITE this large are handed over */
	bool running;
	bool threaded; /* false (unit tests): nothing posts until nvmf_rdma_poster_drain */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct nvmf_rdma_queue *head, **tailp; /* queues with chains to post */
	struct nvmf_rdma_queue *failed;        /* queues a post failed for */
	bool has_failed;                       /* failed is not empty (atomic) */
	bool sleeping, stop;
	uint64_t handed, posts; /* chains handed over, post_send calls made */
};

/* nvmf_rdma_poster_start - start @p's thread (@threaded; else posts are made by
 * nvmf_rdma_poster_drain, for tests) on @cpus (NULL: the caller's), posting with @verbs;
 * chains with an RDMA WRITE of at least @post_bytes will be taken; @wake (may be NULL) is
 * woken after a failed post. Returns 0 or -1 with @err. */
int nvmf_rdma_poster_start(struct nvmf_rdma_poster *p, const struct nvmf_rdma_verbs *verbs,
			   struct nvmf_pg *wake, uint32_t post_bytes, bool threaded,
			   const cpu_set_t *cpus, char *err, size_t errlen);
/* nvmf_rdma_poster_drain - post everything handed over, on the caller's thread (a poster
 * started without a thread). */
void nvmf_rdma_poster_drain(struct nvmf_rdma_poster *p);
/* nvmf_rdma_poster_stop - post what is still handed over, stop and join the thread (no-op
 * when it never started). */
void nvmf_rdma_poster_stop(struct nvmf_rdma_poster *p);
/* nvmf_rdma_poster_take - hand @q's chain @wr (@send its signaled SEND or NULL, @largest
 * the bytes of its largest RDMA WRITE) to the poster: when that is at least post_bytes,
 * or while an earlier chain of @q is still there (order), or a failed post of @q waits
 * for the group. Chains waiting together are posted in one call with only the last SEND
 * signaled. false: not taken, the caller posts it. Group thread only. */
bool nvmf_rdma_poster_take(struct nvmf_rdma_poster *p, struct nvmf_rdma_queue *q,
			   struct ibv_send_wr *wr, struct ibv_send_wr *send, uint32_t largest);
/* nvmf_rdma_poster_busy - the poster still holds a chain of @q, or a failure of it the
 * group has not handled: @q must not be freed. */
bool nvmf_rdma_poster_busy(struct nvmf_rdma_poster *p, struct nvmf_rdma_queue *q);
/* nvmf_rdma_poster_failures - on the group's thread: disconnect each queue a post failed
 * for and finish the requests of the WRs it left. Returns how many queues. */
int nvmf_rdma_poster_failures(struct nvmf_rdma_poster *p);

/* ---- poll groups (poll-group.c) ---- */

/* One device's resources in one poll group. */
struct nvmf_rdma_pg_dev {
	struct nvmf_rdma_poll_group *pg;
	struct nvmf_rdma_device *dev;
	struct ibv_comp_channel *channel; /* this CQ's events; a wait descriptor of the group */
	struct ibv_cq *cq;                /* every QP of the group on this device */
	uint32_t cq_size, cq_used;        /* entries: allocated, reserved by queues */
	struct nvmf_rdma_rq *srq;         /* NULL: SRQ off or not supported */
	struct nvmf_rdma_req_list buf_waiters; /* NEED_BUFFER, FIFO */
	/* Per-class cache of pool buffers in front of the shared pool (several groups). */
	struct nvmf_rdma_buf_cache {
		void *buf[NVMF_RDMA_CACHE_MAX];
		unsigned n, max;
	} cache[NVMF_RDMA_POOL_CLASSES];
	struct nvmf_rdma_pg_dev *next;     /* in pg->devs */
	struct nvmf_rdma_pg_dev *all_next; /* in t->pgds (under t->pgd_lock) */
};

/* nvmf_rdma_pgd_buf_get/put - a data buffer through the group's cache. */
void *nvmf_rdma_pgd_buf_get(struct nvmf_rdma_pg_dev *pgd, uint32_t len, unsigned *cls_out);
void nvmf_rdma_pgd_buf_put(struct nvmf_rdma_pg_dev *pgd, void *buf, unsigned cls);

/*
 * The transport's part of one core poll group: run to completion by the group's thread,
 * owning its queues' QPs, a CQ and an SRQ per device. Work produced during one pass
 * (responses, READs, receive reposts) is chained per QP / SRQ and posted once at the end
 * of the pass (nvmf_rdma_pg_flush_op).
 */
struct nvmf_rdma_poll_group {
	struct nvmf_tpg base; /* first: the core's view */
	struct nvmf_rdma_transport *t;
	const struct nvmf_rdma_verbs *verbs;
	const struct nvmf_clock *clock; /* the target's (tgt->clock): teardown timeouts,
					    * driven by tests like the core's timers */
	struct rdma_event_channel *ec;  /* CM events of this group's queues (and, on the
					    * main group, the listeners'): t->ec there */
	uint64_t cm_next_us;            /* look at ec again from this pass time on */
	struct nvmf_rdma_pg_dev *devs;
	struct nvmf_rdma_queue *queues;
	uint32_t nqueues, ndying;
	struct nvmf_rdma_queue **qp_map; /* qp_num -> queue, open addressing */
	uint32_t qp_map_size;            /* slots, a power of two, >= 2 x nqueues */
	struct nvmf_rdma_queue *dirty_q; /* queues with chained send WRs */
	struct nvmf_rdma_rq *dirty_rq;   /* receive queues with chained reposts */
	unsigned ngroups;                /* groups sharing the device pools (caches if > 1) */
	bool admin_only;                 /* the main group beside I/O groups */
	uint64_t wcs, posts;             /* counters: completions, post calls */
	uint32_t bufs_held;              /* pool buffers its requests hold */
	struct nvmf_rdma_poster poster;  /* running when t->post_thread allows it */
	struct nvmf_tpg_stats pub;       /* published for pg_stats each pass (atomics) */
	uint64_t last_wqe_events;        /* LAST_WQE_REACHED of this group's QPs */
	uint64_t last_wqe_timeouts;      /* queues on an SRQ freed at the flush timeout
					    * without it (their SRQ receives may be lost) */
};

/* What one poll group's RDMA part holds now (all its devices added up), for tests and
 * statistics. */
struct nvmf_rdma_pg_stats {
	uint32_t srq_depth;        /* receives of the group's SRQs */
	uint32_t srq_posted;       /* of them posted: the device holds them */
	uint32_t srq_chained;      /* waiting for the end-of-pass post */
	uint32_t queues, dying;    /* queues, and those being torn down */
	uint32_t waiting_last_wqe; /* dying ones waiting for LAST_WQE_REACHED */
	uint32_t bufs_cached;      /* pool buffers in the group's caches */
	uint64_t last_wqe_events, last_wqe_timeouts;
	uint64_t wcs, posts;
};
/* nvmf_rdma_pg_stats - @pg's counts now. On the group's thread (or while it is stopped):
 * nothing here is atomic. */
void nvmf_rdma_pg_stats(const struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_pg_stats *st);
/* nvmf_rdma_is_qp_event - @type is an asynchronous event about one QP (ibv_async_event's
 * element is a QP: IB spec 11.6.3, affiliated asynchronous events). */
bool nvmf_rdma_is_qp_event(enum ibv_event_type type);

/* nvmf_rdma_pg_init - an empty group of @t (no core group: the map only, for tests of
 * the map). Returns 0 or -ENOMEM. nvmf_rdma_pg_fini frees what it holds. */
int nvmf_rdma_pg_init(struct nvmf_rdma_poll_group *pg, struct nvmf_rdma_transport *t);
void nvmf_rdma_pg_fini(struct nvmf_rdma_poll_group *pg);
/* nvmf_rdma_pg_dev_get - the group's CQ/SRQ on @dev, created on first use. */
struct nvmf_rdma_pg_dev *nvmf_rdma_pg_dev_get(struct nvmf_rdma_poll_group *pg,
					      struct nvmf_rdma_device *dev, char *err,
					      size_t errlen);
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
/* nvmf_rdma_pg_reap - free dying queues that are done (@force: after the flush timeout
 * regardless). Returns how many were freed. */
int nvmf_rdma_pg_reap(struct nvmf_rdma_poll_group *pg, bool force);

/* The poll-group ops of the transport (ops->pg_create ... pg_woken; target/transport.h). */
struct nvmf_tpg *nvmf_rdma_pg_create_op(struct nvmf_transport *base, struct nvmf_pg *core_pg,
					char *err, size_t errlen);
void nvmf_rdma_pg_destroy_op(struct nvmf_tpg *tpg);
int nvmf_rdma_pg_poll_op(struct nvmf_tpg *tpg);
/* nvmf_rdma_pg_flush_op - ops->pg_flush: serve buffer waiters, then post everything
 * chained this pass: receives first, then one post_send per QP. */
void nvmf_rdma_pg_flush_op(struct nvmf_tpg *tpg);
void nvmf_rdma_pg_arm_op(struct nvmf_tpg *tpg);
void nvmf_rdma_pg_woken_op(struct nvmf_tpg *tpg);
bool nvmf_rdma_pg_idle_op(struct nvmf_tpg *tpg);
void nvmf_rdma_pg_stats_op(const struct nvmf_tpg *tpg, struct nvmf_tpg_stats *out);

/* ---- the transport (transport.c) ---- */

struct nvmf_rdma_listener {
	struct rdma_cm_id *id;
	struct nvmf_port *port;
	struct nvmf_rdma_listener *next;
};

struct nvmf_rdma_transport {
	struct nvmf_transport base; /* first: the core's view */
	const struct nvmf_rdma_verbs *verbs;
	const struct nvmf_clock *clock; /* the target's (tgt->clock): teardown timeouts,
					    * driven by tests like the core's timers */
	struct rdma_event_channel *ec;  /* listeners and main-group queues, non-blocking */
	struct nvmf_rdma_listener *listeners;
	struct nvmf_rdma_device *devices; /* created on the main group only */
	uint32_t max_xfer;                /* bytes: 4 KiB << the target's MDTS */
	bool use_srq;                     /* nvmf_target.srq (where the device has SRQs) */
	uint32_t srq_depth;               /* receives per SRQ (nvmf_target.srq_depth) */
	uint32_t inline_max;              /* largest in-capsule size of any port: SRQ receives */
	int post_thread;                  /* nvmf_target.post_thread: -1 auto (software devices),
					    * 0 never, 1 every device */
	uint32_t post_bytes;              /* chains of this many RDMA bytes go to the poster */
	bool post_manual;                 /* unit tests: posters without a thread */
	cpu_set_t post_cpus;              /* where posting threads run: the process's CPUs */
	bool post_cpus_set;
	bool shutting_down;            /* no new queues (atomic) */
	pthread_mutex_t pgd_lock;      /* pgds, for the main group's look-ups */
	struct nvmf_rdma_pg_dev *pgds; /* every group's device parts: who owns a QP's CQ or
					    * an SRQ an asynchronous event names */
};

/* A validated CONNECT_REQUEST, as handed from the main group to the queue's group. */
struct nvmf_rdma_conn_req {
	struct rdma_cm_id *id;
	struct nvmf_port *port;
	struct nvmf_rdma_device *dev;
	struct nvme_rdma_cm_conn conn;
	uint32_t ord;  /* our RDMA READ depth: the host's IRD, capped by
					    * the device (nvme_rdma_cm_read_depth) */
	char peer[64]; /* "addr:port" for messages */
};

/* nvmf_rdma_transport_setup - what ops->create sets up that needs no RDMA device: the
 * settings and limits of @opts (resolved by the core), @verbs the table to use. The unit tests make
 * a transport with a fake table this way (and no CM channel). */
void nvmf_rdma_transport_setup(struct nvmf_rdma_transport *t,
			       const struct nvmf_transport_opts *opts,
			       const struct nvmf_rdma_verbs *verbs);
/* nvmf_rdma_device_setup - @d for the device context @dev: its data pool registered
 * (sizes from the config), its async_fd made non-blocking, whether it raises
 * LAST_WQE_REACHED. 0, or -1 with @err naming the device. nvmf_rdma_device_free
 * releases a device made by the transport (pool, context reference, memory). */
int nvmf_rdma_device_setup(struct nvmf_rdma_transport *t, struct nvmf_rdma_device *d,
			   struct nvmf_rdma_dev *dev, char *err, size_t errlen);
void nvmf_rdma_device_free(struct nvmf_rdma_device *d);

/* nvmf_rdma_process_cm_events - handle every pending CM event on @pg's channel. Returns
 * how many. (transport.c) */
int nvmf_rdma_process_cm_events(struct nvmf_rdma_poll_group *pg);
/* nvmf_rdma_process_async_events - on the main group @pg: read every device's pending
 * asynchronous events (at most 64 each), handle or hand each to the group owning its
 * object, ack it. Returns how many. (async.c) */
int nvmf_rdma_process_async_events(struct nvmf_rdma_poll_group *pg);
/* nvmf_rdma_pg_add_queue_op - ops->pg_add_queue: create @conn's queue and accept. */
int nvmf_rdma_pg_add_queue_op(struct nvmf_tpg *tpg, void *conn);

#endif
