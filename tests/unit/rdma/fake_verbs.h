/*
 * A fake RDMA device, and the host at the other end of its QPs, in memory: the verbs
 * table of the target transport (struct nvmf_rdma_verbs, rdma/target/internal.h) for
 * machines without RDMA.
 *
 * The device keeps what the transport posts and checks it as a device and the transport's
 * own rules would: registered memory behind every SGE (lkeys), send queue and SRQ
 * capacity, opcodes, one SGE, the inline limit, READs signaled, WRITEs unsignaled, and in
 * each post_send only the last SEND signaled. A breach is counted in fv_dev.violations
 * (the tests assert none) and printed.
 *
 * The host side is driven by the test: it delivers capsules into the next posted receive
 * (a RECV completion with byte_len and qp_num), executes the posted send WRs in order
 * (RDMA READ copies host memory named by an rkey into the local SGE, RDMA WRITE the other
 * way, SEND hands the 16-byte CQE to the host, SEND_WITH_INV also invalidates the rkey),
 * and produces completions only for signaled WRs. Moving a QP to the error state flushes
 * every WR not executed yet, signaled or not, and (without SRQ) every posted receive with
 * IBV_WC_WR_FLUSH_ERR. poll_cq returns completions in the order they were produced.
 *
 * Nothing here runs by itself: the test decides when the host acts (fv_host_run), so a
 * WR can be held "in flight" for as long as a test needs.
 */
#ifndef NVMF_TESTS_UNIT_RDMA_FAKE_VERBS_H
#define NVMF_TESTS_UNIT_RDMA_FAKE_VERBS_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include "nvme/rdma-cm.h"
#include "nvme/wire.h"
#include "rdma/target/internal.h"

extern const struct nvmf_rdma_verbs fake_verbs;

/* A send WR as the device holds it: a copy made when it was posted. */
struct fv_send {
	enum ibv_wr_opcode opcode;
	unsigned flags; /* IBV_SEND_* */
	uint64_t wr_id;
	struct ibv_sge sge;
	uint64_t remote_addr; /* READ / WRITE */
	uint32_t rkey;
	uint32_t invalidate_rkey;           /* SEND_WITH_INV */
	uint8_t inline_data[NVME_CQE_SIZE]; /* IBV_SEND_INLINE: the payload, taken at post */
	unsigned post;                      /* the device's post_send call that posted it (1...) */
	unsigned recvs_posted;              /* receives posted for the QP (SRQ or own) then */
	bool done;                          /* executed by the host, or flushed */
	bool flushed;
};

/* A posted receive. */
struct fv_recv {
	uint64_t wr_id;
	struct ibv_sge sge[2];
	int num_sge;
};

/* Posted receives in FIFO order: an SRQ's or a QP's own. */
struct fv_rq {
	struct fv_recv *r;
	unsigned head, len, alloc; /* r[head..len) are posted */
	uint32_t max_wr, max_sge;
};

/* A response as the host received it. */
struct fv_resp {
	struct nvme_cqe cqe;
	bool with_inv; /* SEND_WITH_INV */
	uint32_t inv_rkey;
};

struct fv_dev;

struct fv_qp {
	struct ibv_qp qp;
	struct fv_dev *dev;
	struct ibv_qp_cap cap; /* as granted */
	struct fv_rq rq;       /* own receives (no SRQ) */
	struct fv_send *sq;    /* every send WR ever posted, in order */
	unsigned sq_len, sq_alloc;
	unsigned exec;    /* sq[0..exec) executed or flushed */
	unsigned retired; /* sq[0..retired): slots free again (a completion of
					    * theirs or of a later WR was polled) */
	bool error, destroyed;
	unsigned credits;     /* receives the host has posted for responses */
	struct fv_resp *resp; /* delivered, not read yet: resp[resp_head..resp_len) */
	unsigned resp_head, resp_len, resp_alloc;
	unsigned reads_max, sends_max; /* most READs / SENDs posted and not executed at once */
	unsigned rnr;                  /* SENDs that found no host receive (retried later) */
	unsigned events_unacked;       /* its asynchronous events taken and not acked */
	struct fv_rq srq_held;         /* receives taken from its SRQ for messages in flight
					    * (fv_srq_assign): given back, flushed, only in the
					    * error state, before LAST_WQE_REACHED */
	bool last_wqe_sent;            /* the error state's LAST_WQE_REACHED raised */
	struct fv_qp *next;
};

struct fv_srq {
	struct ibv_srq srq;
	struct fv_dev *dev;
	struct fv_rq rq;
};

struct fv_cqe {
	struct ibv_wc wc;
	struct fv_qp *qp; /* NULL: injected */
	int sq_index;     /* the send WR it completes, -1 for a receive */
};

struct fv_cq {
	struct ibv_cq cq;
	struct fv_dev *dev;
	struct fv_cqe *e;
	unsigned head, len, alloc;
	bool armed; /* req_notify_cq: signal the channel on the next one */
};

struct fv_mr {
	struct ibv_mr mr;
	int access;
	struct fv_mr *next;
};

/* Host memory the host made remotely accessible under an rkey. */
struct fv_host_mr {
	uint8_t *addr;
	size_t len;
	uint32_t rkey;
	bool valid; /* false once invalidated (SEND_WITH_INV) */
};

/* A connection's rdma_cm_id as the fake CM made it (fv_cm_connect), and what the
 * transport did with it. Kept until fv_dev_free, destroyed or not. */
struct fv_cm_id {
	struct rdma_cm_id id;
	struct fv_dev *dev;
	bool accepted, rejected, disconnected, destroyed;
	struct rdma_conn_param accept; /* as rdma_accept got it; private data in rep */
	struct nvme_rdma_cm_rep rep;
	int reject_sts; /* NVMe/RDMA STS of the reject data; -1 none */
	struct fv_cm_id *next;
};

/* A CM event not taken yet, and (CONNECT_REQUEST) its private data. */
struct fv_cm_event {
	struct rdma_cm_event ev;
	uint8_t pdata[64];
	struct fv_cm_event *next;
};

/* An rdma_cm event channel: the device's own (fv_dev.cm, the transport's t->ec) or one a
 * poll group made (create_event_channel). An event comes out of the channel its id is on
 * (the listener's for a CONNECT_REQUEST). */
struct fv_channel {
	struct rdma_event_channel ec; /* ec.fd: an eventfd, for the group's epoll */
	struct fv_dev *dev;
};

/* An asynchronous event of the device not taken yet. */
struct fv_async {
	struct ibv_async_event ev;
	struct fv_async *next;
};

struct fv_dev {
	struct ibv_context ctx; /* ctx.async_fd: an eventfd, readable while async
					    * events wait */
	struct ibv_pd pd;
	bool send_with_inv;      /* the device can SEND_WITH_INV */
	uint32_t max_inline;     /* largest inline data a QP may ask for */
	int fail_post_send_at;   /* -1; k >= 0: the next post_send fails at its WR k */
	bool exec_on_post;       /* the host runs each post at once (a fast peer) */
	bool hold_flush;         /* the error state flushes nothing until fv_flush */
	bool hold_last_wqe;      /* a QP on an SRQ in error keeps what it took from the
					    * SRQ, and raises no LAST_WQE_REACHED, until fv_last_wqe */
	bool no_last_wqe_events; /* like rxe and iWARP: SRQ receives held by a QP are
					    * flushed at once in the error state, no event */
	unsigned srq_lost;       /* SRQ receives a QP held when it was destroyed: lost
					    * to the SRQ for good (IB spec: destroy only after
					    * LAST_WQE_REACHED, or WQEs may leak) */
	unsigned posts;          /* post_send calls */
	void (*on_post)(void *); /* called (once: then cleared) when post_send is entered,
				  * before it takes any WR: a peer acting meanwhile */
	void *on_post_arg;
	unsigned violations;
	char why[256]; /* the first violation */
	uint32_t next_key, next_qp_num;
	struct fv_mr *mrs;
	struct fv_qp *qps;                 /* destroyed ones too (tests read their WRs) */
	unsigned nqp, ncq, nsrq, nchannel; /* live objects */
	struct fv_host_mr *hmr;
	unsigned nhmr, hmr_alloc;
	/* the CM: one event channel (the transport's), its events in order, the ids */
	struct fv_channel cm; /* the transport's channel (the listeners') */
	unsigned nec;         /* channels made by create_event_channel, live */
	struct fv_cm_event *cm_head, **cm_tail;
	struct fv_cm_id *cm_ids;
	unsigned ncm_id;     /* ids not destroyed */
	unsigned cm_unacked; /* events taken, not acked */
	bool fail_accept;    /* rdma_accept fails (ECONNREFUSED) */
	/* asynchronous events, in order; how many were taken and acked */
	struct fv_async *aev_head, **aev_tail;
	unsigned async_taken, async_acked;
};

struct fv_dev *fv_dev_new(void);
/* fv_dev_free - free the device and everything left on it. */
void fv_dev_free(struct fv_dev *d);
/* fv_dev_live - MRs, QPs, CQs, SRQs, channels (completion and CM) and connection cm_ids
 * still allocated. */
unsigned fv_dev_live(const struct fv_dev *d);
/* fv_violation - count and print a broken rule (printf format). */
void fv_violation(struct fv_dev *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct fv_qp *fv_qp_of(struct ibv_qp *qp);
struct fv_srq *fv_srq_of(struct ibv_srq *srq);
/* fv_posted - receives posted on @rq now. */
unsigned fv_posted(const struct fv_rq *rq);
/* fv_count - send WRs of @opcode ever posted on @qp. */
unsigned fv_count(const struct fv_qp *qp, enum ibv_wr_opcode opcode);
/* fv_inflight - send WRs of @opcode posted on @qp and not executed (or flushed) yet. */
unsigned fv_inflight(const struct fv_qp *qp, enum ibv_wr_opcode opcode);

/* ---- the host ---- */

/* fv_host_reg - make [@addr, @addr + @len) of host memory remotely accessible: its rkey. */
uint32_t fv_host_reg(struct fv_dev *d, void *addr, size_t len);
/* fv_host_key_valid - @rkey is registered and not invalidated. */
bool fv_host_key_valid(const struct fv_dev *d, uint32_t rkey);
/* fv_host_credits - the host posts @n more receives for responses on @qp. */
void fv_host_credits(struct fv_qp *qp, unsigned n);
/* fv_host_send - a message of @len bytes from the host into the next receive posted for
 * @qp (its SRQ's or its own) and its RECV completion (a local length error when the
 * receive is too small). 0, -EAGAIN when no receive is posted, -EPIPE on a QP in error. */
int fv_host_send(struct fv_qp *qp, const void *buf, size_t len);
/* fv_host_run - execute up to @max send WRs of @qp in order; stops at a SEND the host has
 * no receive for (RNR: it is retried at the next call). Returns how many ran. */
unsigned fv_host_run(struct fv_qp *qp, unsigned max);
/* fv_host_take - the oldest response delivered on @qp and not read yet into @out; the
 * host posts its receive again. false when there is none. */
bool fv_host_take(struct fv_qp *qp, struct fv_resp *out);

/* ---- late events ---- */

/* fv_flush - the flush completions of @qp, in error, that hold_flush kept back (with an
 * SRQ: then, unless hold_last_wqe, what it took from the SRQ and LAST_WQE_REACHED). */
void fv_flush(struct fv_qp *qp);
/* fv_srq_assign - the device takes up to @n receives from @qp's SRQ for messages arriving
 * on @qp (its oldest posted; no completion yet): they leave the SRQ, held by the QP.
 * Returns how many. */
unsigned fv_srq_assign(struct fv_qp *qp, unsigned n);
/* fv_last_wqe - @qp (in error, on an SRQ) gives back what it held: a flush completion
 * (IBV_WC_WR_FLUSH_ERR) for each, then the asynchronous IBV_EVENT_QP_LAST_WQE_REACHED. */
void fv_last_wqe(struct fv_qp *qp);

/* ---- the connection manager ---- */

/* fv_cm_connect - a host's CM REQ arriving on listener @listen_id: a new cm_id (from
 * 10.0.0.2:4242, on the device) and its RDMA_CM_EVENT_CONNECT_REQUEST with @len bytes of
 * private data @pdata and the depths as the passive side sees them (librdmacm swaps the
 * host's): @initiator_depth = the host's responder resources (RDMA READs it serves),
 * @responder_resources = the host's initiator depth. */
struct fv_cm_id *fv_cm_connect(struct fv_dev *d, struct rdma_cm_id *listen_id, const void *pdata,
			       uint8_t len, uint8_t initiator_depth, uint8_t responder_resources);
/* fv_cm_event - queue event @type (ESTABLISHED, DISCONNECTED, ...) of @c. */
void fv_cm_event(struct fv_cm_id *c, enum rdma_cm_event_type type);

/* ---- asynchronous events ---- */

/* fv_async_event - queue an asynchronous event of the device: @element is the ibv_qp,
 * ibv_srq or ibv_cq it concerns (NULL for device and port events; port events name port
 * 1). */
void fv_async_event(struct fv_dev *d, enum ibv_event_type type, void *element);
/* fv_async_pending - events queued and not taken yet. */
unsigned fv_async_pending(const struct fv_dev *d);

/* fv_inject - queue @wc on @cq as if the device produced it now. */
void fv_inject(struct ibv_cq *cq, const struct ibv_wc *wc);
/* fv_srq_take - consume the oldest receive posted on @srq without a completion (its
 * completion is the test's to inject). Its wr_id, or 0 when none is posted. */
uint64_t fv_srq_take(struct ibv_srq *srq);

#endif
