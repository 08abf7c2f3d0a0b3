/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the files of the RDMA transport (not a public interface: the rest of
 * the project sees rdma/transport.h only).
 *
 *   listener.c  transport object, rdma_cm listeners, CM events (connect/accept/reject)
 *   queue.c     one RC QP + CQ per NVMe queue: buffers, RECV posting, teardown
 *   pool.c      registered data buffers per device (PD), allocated once
 *   request.c   the per-request state machine and the core's ops (queue_response, ...)
 *   poll.c      the poll loop: CQs, aio, timers, idle sleep; shutdown
 */
#ifndef NVMF_RDMA_INTERNAL_H
#define NVMF_RDMA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "rdma/transport.h"
#include "rdma/cm-private.h"
#include "target/core.h"

#define NVMF_RDMA_LOG(...) fprintf(stderr, "nvmf-rdma: " __VA_ARGS__)

/* Page alignment of every buffer handed to a backend (O_DIRECT needs block alignment). */
#define NVMF_RDMA_ALIGN 4096u

struct nvmf_rdma_req;
struct nvmf_rdma_queue;

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
 * now (or @len exceeds max_size). @cls_out receives the class to give back. */
void *nvmf_rdma_pool_get(struct nvmf_rdma_pool *p, uint32_t len, unsigned *cls_out);
void nvmf_rdma_pool_put(struct nvmf_rdma_pool *p, void *buf, unsigned cls);

/* ---- devices ---- */

struct nvmf_rdma_device {
	struct nvmf_rdma_transport *t;
	struct ibv_context *verbs;         /* owned by librdmacm */
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;  /* every CQ of the device; in t->epfd */
	struct ibv_device_attr attr;
	bool send_with_inv;                /* IBV_DEVICE_MEM_MGT_EXTENSIONS */
	struct nvmf_rdma_pool pool;
	TAILQ_HEAD(, nvmf_rdma_req) buf_waiters; /* NEED_BUFFER, FIFO */
	struct nvmf_rdma_device *next;
};

/* ---- requests (request.c) ---- */

/* One posted receive: the SQE and (I/O queues) the in-capsule data area. */
struct nvmf_rdma_recv {
	struct nvmf_rdma_wr wr;            /* first: wr_id points here */
	struct nvmf_rdma_queue *q;
	struct nvme_sqe *sqe;              /* 64 B, registered */
	void *inline_buf;                  /* inline_size bytes, page aligned; NULL on admin */
	uint32_t byte_len;                 /* of the last completion */
	struct ibv_recv_wr rwr;
	struct ibv_sge sge[2];
	STAILQ_ENTRY(nvmf_rdma_recv) link; /* waiting for a free request */
};

/* Like SPDK's spdk_nvmf_rdma_request_state; nvmf_rdma_req_process() advances it. */
enum nvmf_rdma_req_state {
	NVMF_RDMA_REQ_FREE,
	NVMF_RDMA_REQ_NEW,              /* capsule received */
	NVMF_RDMA_REQ_NEED_BUFFER,      /* waiting in dev->buf_waiters */
	NVMF_RDMA_REQ_NEED_READ,        /* waiting for an RDMA READ slot (q->pending_reads) */
	NVMF_RDMA_REQ_TRANSFER_H2C,     /* RDMA READ posted */
	NVMF_RDMA_REQ_READY_TO_EXECUTE,
	NVMF_RDMA_REQ_EXECUTING,        /* owned by the core / backend */
	NVMF_RDMA_REQ_EXECUTED,         /* queue_response called; waiting for a send slot */
	NVMF_RDMA_REQ_COMPLETING,       /* RDMA WRITE + SEND posted */
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
	TAILQ_ENTRY(nvmf_rdma_req) link;   /* free list or one wait list */
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
	struct nvmf_rdma_device *dev;
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	enum nvmf_rdma_queue_state state;
	uint16_t qid;                      /* from the CM REQ */
	uint32_t recv_depth;               /* RECVs posted: HSQSIZE + 1 */
	uint32_t max_sends;                /* responses in flight: min(HRQSIZE, nreq) */
	uint32_t max_reads;                /* RDMA READs in flight: the negotiated ORD */
	uint32_t nreq;                     /* request contexts: 2 x recv_depth */
	uint32_t inline_size;              /* in-capsule bytes (0 on admin queues) */
	bool inline_send;                  /* max_inline_data >= 16: CQE sent inline */
	uint32_t recv_posted, sends_inflight, reads_inflight, executing;
	void *mem;                         /* SQEs, inline areas and CQEs, one registration */
	size_t mem_len;
	struct ibv_mr *mr;
	struct nvmf_rdma_recv *recvs;
	struct nvmf_rdma_req *reqs;
	TAILQ_HEAD(, nvmf_rdma_req) free_reqs;
	TAILQ_HEAD(, nvmf_rdma_req) pending_reads;
	TAILQ_HEAD(, nvmf_rdma_req) pending_sends;
	STAILQ_HEAD(, nvmf_rdma_recv) pending_recvs;
	bool sq_destroyed;                 /* nvmf_sq_destroy() done */
	uint64_t dying_since_ms;
	struct nvmf_rdma_queue *next;      /* in t->queues */
};

/* nvmf_rdma_queue_create - allocate a queue for @id on @dev sized by @conn (QP, CQ,
 * buffers, RECVs posted). Returns NULL with a reason in @err (reject with NO_RSC). */
struct nvmf_rdma_queue *nvmf_rdma_queue_create(struct nvmf_rdma_transport *t,
					       struct nvmf_rdma_device *dev, struct nvmf_port *port,
					       struct rdma_cm_id *id,
					       const struct nvmf_rdma_cm_conn *conn,
					       uint32_t ord, char *err, size_t errlen);
/* nvmf_rdma_queue_free - destroy QP, CQ and cm_id, free buffers (no core calls). */
void nvmf_rdma_queue_free(struct nvmf_rdma_queue *q);
/* nvmf_rdma_queue_post_recv - (re)post one receive. Returns 0 or errno. */
int nvmf_rdma_queue_post_recv(struct nvmf_rdma_queue *q, struct nvmf_rdma_recv *r);
/* nvmf_rdma_queue_disconnect - start tearing @q down (idempotent): QP to error so every
 * WR flushes, rdma_disconnect; the poll loop finishes the job (nvmf_rdma_queue_reap). */
void nvmf_rdma_queue_disconnect(struct nvmf_rdma_queue *q, const char *why);
/* nvmf_rdma_queue_reap - advance a dying queue; returns true once it is freed. */
bool nvmf_rdma_queue_reap(struct nvmf_rdma_queue *q, uint64_t now_ms, bool force);

/* ---- request.c ---- */
extern const struct nvmf_transport_ops nvmf_rdma_ops;
/* nvmf_rdma_handle_wc - one work completion of @q. Returns 1 (work done). */
void nvmf_rdma_handle_wc(struct nvmf_rdma_queue *q, const struct ibv_wc *wc);
/* nvmf_rdma_req_release - back to the free list (buffer returned, waiters served). */
void nvmf_rdma_req_release(struct nvmf_rdma_req *r);
/* nvmf_rdma_dev_kick - serve requests waiting for a buffer. */
void nvmf_rdma_dev_kick(struct nvmf_rdma_device *dev);
/* nvmf_rdma_queue_drop_waiting - on teardown: free requests that never reached the core's
 * backend (waiting for a buffer, a READ slot or a send slot) and receives without one. */
void nvmf_rdma_queue_drop_waiting(struct nvmf_rdma_queue *q);

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
	struct nvmf_rdma_queue *queues;
	uint64_t last_work_us;
	uint64_t last_timer_ms;
	uint32_t max_xfer;                 /* bytes: 4 KiB << mdts */
	bool shutting_down;
};

/* nvmf_rdma_process_cm_events - handle every pending CM event. Returns how many. */
int nvmf_rdma_process_cm_events(struct nvmf_rdma_transport *t);
/* nvmf_rdma_device_get - the device context of @verbs, created on first use. */
struct nvmf_rdma_device *nvmf_rdma_device_get(struct nvmf_rdma_transport *t,
					      struct ibv_context *verbs, char *err, size_t errlen);
void nvmf_rdma_device_free(struct nvmf_rdma_device *dev);
/* Monotonic clocks. */
uint64_t nvmf_rdma_now_us(void);

#endif
