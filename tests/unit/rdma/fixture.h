/*
 * A real target core with the RDMA transport on the fake device (fake_verbs.h), driven
 * on the test's thread, and the host's end of its queues.
 *
 * rx_setup builds the configuration in code (one subsystem RX_SUBNQN with a RAM
 * namespace 1 of RX_NS_BYTES in 512-byte blocks, one "rdma" port), runs nvmf_tgt_init
 * with the transport's ops table where only create/destroy/listen/stop_listen are the
 * fixture's (no CM: create is nvmf_rdma_transport_setup on the fake verbs), and sets up a
 * fake device (nvmf_rdma_device_setup: its pool registered), which is the transport's only
 * device; port 1 has a listener whose cm_id (x->listen_id) the fake CM's requests name.
 * Queues are made with nvmf_rdma_queue_create on the main poll group as a CM
 * CONNECT_REQUEST would (or through the fake CM itself: fv_cm_connect, then the
 * transport's own event handling), and the host connects them with real Fabrics Connect
 * capsules. rx_poll is one pass of the main
 * poll group (nvmf_pg_poll), after the device's asynchronous events when some wait; the
 * host acts only when told (rx_host, rx_run). The fake clock never moves: no keep-alive
 * expiry, nothing depends on wall-clock time. The fake device raises LAST_WQE_REACHED
 * (unless rx_opts.rxe), which the transport's SRQ queues wait for when they die.
 *
 * rx_teardown disconnects what is left, runs until every queue is reaped, shuts the
 * target down and asserts that the device is left with no object (cm_ids included), every
 * CM and asynchronous event taken was acked, no SRQ receive was lost with a QP, and it saw
 * no violation.
 */
#ifndef NVMF_TESTS_UNIT_RDMA_FIXTURE_H
#define NVMF_TESTS_UNIT_RDMA_FIXTURE_H

#include "tests/unit/suites.h"
#include "target/core.h"
#include "tests/unit/rdma/fake_verbs.h"

#define RX_SUBNQN      "nqn.2026-11.io.nvmf-rdma:rdmatest"
#define RX_HOSTNQN     "nqn.2026-11.io.nvmf-rdma:host"
#define RX_NS_BYTES    (1u << 20)
#define RX_HOST_BYTES  (4u << 20) /* host memory for data and Connect data */
#define RX_MAX_QUEUES  8
#define RX_MAX_RESP    1024
#define RX_NO_RESPONSE 0xffffu   /* rxq_status: the host has no response */
#define RX_CC_ENABLE   0x460001u /* CC: EN, IOSQES 6, IOCQES 4 */

struct rx_opts {
	bool no_srq;                           /* nvmf_target.srq = false */
	bool no_send_with_inv;                 /* the device cannot SEND_WITH_INV */
	bool no_inline;                        /* the device cannot send inline */
	uint32_t buffers_small, buffers_large; /* 0: the defaults */
	int max_qp_wr;                         /* the device's limit; 0: 16384 */
	bool rxe;                              /* soft RoCE: vendor 0xffffff, no LAST_WQE_REACHED */
	unsigned threads;                      /* nvmf_target.threads (> 1: I/O groups, not run by
					  * rx_poll; the main group serves admin queues only) */
	bool post_thread_on;                   /* nvmf_target.post_thread "on" (default auto:
					  * a poster for rxe only) */
	bool post_thread_off;                  /* "off" */
};

struct rx;

/* One queue and the host's end of it. */
struct rxq {
	struct rx *x;
	struct nvmf_rdma_queue *q; /* NULL once reaped */
	struct fv_qp *qp;          /* kept by the device after the queue is gone */
	uint16_t qid, recv_depth, hrqsize;
	uint16_t next_cid;
	bool hold;                        /* the host leaves its responses unread */
	struct fv_resp resp[RX_MAX_RESP]; /* responses the host read, in order */
	unsigned nresp;
};

struct rx {
	struct nvmf_config cfg;
	struct nvmf_tgt tgt;
	struct nvmf_transport_ops ops;
	struct nvmf_rdma_transport *t;
	struct nvmf_rdma_poll_group *pg; /* the RDMA part of the main poll group */
	struct fv_dev *fd;
	struct nvmf_rdma_dev rdev;          /* rdma/device.h's view of the fake device */
	struct nvmf_rdma_device dev;        /* the transport's: its data pool (t->devices) */
	struct nvmf_rdma_listener listener; /* port 1's (t->listeners) */
	struct rdma_cm_id listen_id; /* its cm_id: fv_cm_connect(x->fd, &x->listen_id, ...) */
	bool dev_ready;
	uint64_t now;  /* the target's clock (tgt.clock), ms: moves only
					  * when a test moves it */
	uint8_t *host; /* host memory */
	size_t host_used;
	struct rxq *queues[RX_MAX_QUEUES];
	unsigned nq;
	uint16_t cntlid;
	unsigned released; /* queue_released calls */
	bool hold_backend; /* namespace I/O parks in held[] */
	bool hold_poster;  /* rx_poll leaves what the main group's poster holds (its posts
			    * are made on the test's thread: rx_poll drains it after the pass) */
	struct nvmf_bdev_io *held[64];
	unsigned nheld;
};

/* rx_setup - the target, the fake device and its pool; nothing connected. 0 or -1. */
int rx_setup(struct rx *x, const struct rx_opts *o);
/* rx_teardown - see above (asserts). */
void rx_teardown(struct rx *x);

/* rxq_create - the queue a CM REQ for @qid would make: @recv_depth capsules (HSQSIZE + 1),
 * @hrqsize host receives, @ord RDMA READs in flight; LIVE, host receives posted. */
struct rxq *rxq_create(struct rx *x, uint16_t qid, uint16_t recv_depth, uint16_t hrqsize,
		       uint32_t ord);
/* rx_cm_request - a host's CM REQ with @len bytes of private data @pdata, offering
 * @host_ird RDMA READs it serves and asking for @host_ord of its own (fv_cm_connect),
 * handled at once by the transport's CM event processing on the main group (validation,
 * placement, queue creation, accept or reject). The cm_id tells what became of it:
 * accepted (its queue in id.context, CONNECTING) or rejected (reject_sts), destroyed. */
struct fv_cm_id *rx_cm_request(struct rx *x, const void *pdata, uint8_t len, uint8_t host_ird,
			       uint8_t host_ord);
/* rx_cm_connect - the same with the CM REQ the Linux host sends for queue @qid of @size
 * entries (nvme_rdma_cm_build_req). */
struct fv_cm_id *rx_cm_connect(struct rx *x, uint16_t qid, uint16_t size, uint8_t host_ird,
			       uint8_t host_ord);
/* rxq_adopt - ESTABLISHED on the queue @c was accepted with (delivered and handled), and the
 * host's end of it, with @hrqsize receives posted for responses. Asserts. */
struct rxq *rxq_adopt(struct rx *x, struct fv_cm_id *c, uint16_t hrqsize);

/* rx_admin - the admin queue (32 entries, ORD 16) connected as RX_HOSTNQN (x->cntlid)
 * and enabled (Property Set CC). Asserts. */
struct rxq *rx_admin(struct rx *x);
/* rx_io - I/O queue 1 of x->cntlid, connected with a keyed Connect. Asserts. */
struct rxq *rx_io(struct rx *x, uint16_t recv_depth, uint16_t hrqsize, uint32_t ord);
/* rx_setup_io - rx_setup, rx_admin and rx_io(@recv_depth, @hrqsize, @ord). */
struct rxq *rx_setup_io(struct rx *x, const struct rx_opts *o, uint16_t recv_depth,
			uint16_t hrqsize, uint32_t ord);

/* rx_poll - one pass of the main poll group. Returns its work. */
int rx_poll(struct rx *x);
/* rx_host - every queue's host executes its posted WRs and reads its responses (unless
 * hold). Returns what it did. */
unsigned rx_host(struct rx *x);
/* rx_run - target and host in turn until neither has anything to do. */
void rx_run(struct rx *x);
/* rxq_read_responses - the host reads what arrived on @h (even if hold). */
unsigned rxq_read_responses(struct rxq *h);

/* Host memory, zeroed, page aligned. */
void *rx_host_alloc(struct rx *x, size_t len);
/* rx_key - a fresh rkey for host memory [@p, @p + @len), as the Linux host registers per
 * command. */
uint32_t rx_key(struct rx *x, void *p, size_t len);

/* Commands. PSDT is SGL; @sgl_type is NVME_SGL_KEYED_ADDR or NVME_SGL_KEYED_INV. */
void rx_cmd_rw(struct nvme_sqe *c, uint8_t opcode, uint64_t slba, uint32_t bytes);
void rx_sgl_keyed(struct nvme_sqe *c, uint8_t sgl_type, const void *addr, uint32_t len,
		  uint32_t key);
void rx_sgl_incapsule(struct nvme_sqe *c, uint32_t offset, uint32_t len);
/* rxq_send - @c (its command_id assigned) with @dlen bytes of in-capsule data. Returns
 * the command id. Asserts the host had a receive to send into. */
uint16_t rxq_send(struct rxq *h, struct nvme_sqe *c, const void *data, size_t dlen);
/* rxq_write / rxq_read - a keyed Write / Read of @len bytes at @slba (512-byte blocks)
 * from / into host memory @buf under a fresh key (*@key, may be NULL). Command id. */
uint16_t rxq_write(struct rxq *h, uint64_t slba, void *buf, uint32_t len, uint8_t sgl_type,
		   uint32_t *key);
uint16_t rxq_read(struct rxq *h, uint64_t slba, void *buf, uint32_t len, uint8_t sgl_type,
		  uint32_t *key);
/* rxq_flush - a Flush of namespace 1 (no data). Command id. */
uint16_t rxq_flush(struct rxq *h);
/* rxq_connect - Connect @h (qid from rxq_create) to controller @cntlid (0xffff: new).
 * With @incapsule the Connect data travels in the capsule, else by keyed SGL. Command id. */
uint16_t rxq_connect(struct rxq *h, uint16_t cntlid, bool incapsule);
/* rxq_prop_set_cc - Property Set CC = @cc. Command id. */
uint16_t rxq_prop_set_cc(struct rxq *h, uint32_t cc);

/* rxq_resp - the last response the host read for @cid, or NULL. */
const struct fv_resp *rxq_resp(const struct rxq *h, uint16_t cid);
/* rxq_status - its status (CQE status field without the phase bit), or RX_NO_RESPONSE. */
uint16_t rxq_status(const struct rxq *h, uint16_t cid);

/* Target side. */
uint8_t *rx_ns_data(struct rx *x); /* namespace 1's bytes (the RAM backend) */
unsigned rxq_reqs_in(const struct rxq *h, enum nvmf_rdma_req_state st);
unsigned rx_pool_free(const struct rx *x); /* data buffers free in the pool */
unsigned rx_pool_size(const struct rx *x);
uint64_t rx_pool_double_puts(const struct rx *x);
/* rx_stats - the main group's RDMA counts (nvmf_rdma_pg_stats): SRQ fill, queues. */
struct nvmf_rdma_pg_stats rx_stats(const struct rx *x);
/* rx_srq_on_device - receives the fake device holds posted on the main group's SRQ. */
unsigned rx_srq_on_device(const struct rx *x);
/* rx_hold_backend - from now on namespace I/O waits in x->held (in the backend) until
 * rx_release_backend performs it (RAM) and completes it. Returns how many it released. */
void rx_hold_backend(struct rx *x, bool hold);
unsigned rx_release_backend(struct rx *x);

#endif
