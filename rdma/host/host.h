/* SPDX-License-Identifier: MIT */
/*
 * The host-side (initiator) RDMA transport of libnvmf: types shared by its files. Not a
 * public interface: the library core sees `nvmf_rdma_host_transport` (initiator/transport.h)
 * only.
 *
 *   wire.c  pure helpers, no verbs: reject messages, in-capsule size, address parsing
 *           (unit tested); the CM private data (nvme/rdma-cm.c) and the SGL descriptors
 *           (nvme/sgl.c) are encoded by the shared codecs
 *   conn.c  queue_connect / queue_disconnect: rdma_cm, QP, CQ, buffers, RECVs
 *   io.c    submit / poll / wait / set_incapsule / mem_register, bounce buffers
 *
 * The per-device context (PD, attributes, the table of user regions registered with
 * nvmf_mem_register) is rdma/device.c's, shared by every queue of the process on the
 * same ibv_context.
 *
 * Wire behaviour follows what the Linux host sends (drivers/nvme/host/rdma.c), with
 * one deliberate difference: keyed SGLs are type 0x40, never 0x4F, because our memory stays
 * registered for the life of the queue and the target must not invalidate its rkey.
 */
#ifndef NVMF_RDMA_HOST_H
#define NVMF_RDMA_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "initiator/transport.h"
#include "rdma/device.h"
#include "nvme/wire.h"

#define NVMF_RH_CM_TIMEOUT_MS      3000  /* resolve addr/route, like the kernel host */
#define NVMF_RH_CONNECT_TIMEOUT    10000 /* ms, ESTABLISHED when opts give none */
#define NVMF_RH_DEFAULT_PORT       "4420"
#define NVMF_RH_MAX_INCAPSULE      16384u        /* bytes per capsule we are willing to carry */
#define NVMF_RH_SMALL_BUF          4096u         /* bounce class 0: one per queue entry */
#define NVMF_RH_MEDIUM_BUF         (128u * 1024) /* bounce class 1, allocated on first use */
#define NVMF_RH_MEDIUM_COUNT       8u
#define NVMF_RH_BIG_MAX            4u /* bounce buffers > 128 KiB, sized on demand */
#define NVMF_RH_WC_BATCH           32
/* IB CM reject reasons (IBTA 12.6.7.2) as rdma_cm reports them in event->status. */
#define NVMF_RH_IB_REJ_INVALID_SID 8  /* nobody listens on that port */
#define NVMF_RH_IB_REJ_CONSUMER    28 /* the target's own reject, with private data */

/* ---- wire.c: pure helpers ---- */

/*
 * nvmf_rh_reject_msg - describe a CM REJECTED event in @buf: @status is the event status
 * (IB CM reject reason, or -errno on iWARP), @pdata/@len its private data (may be NULL).
 * A consumer reject (reason 28) carrying >= 4 bytes is decoded as NVMe/RDMA reject data
 * (nvme_rdma_cm_parse_rej, nvme/rdma-cm.h):
 * "rejected by target: NVMe/RDMA status 4 (invalid HSQSIZE)". Returns the errno to give
 * the caller: -ECONNREFUSED always (a reject is a refusal, whatever the reason).
 */
int nvmf_rh_reject_msg(int status, const void *pdata, size_t len, char *buf, size_t buflen);

/* nvmf_rh_incapsule_size - in-capsule data bytes for a controller's IOCCSZ (16-byte
 * units, SQE included): IOCCSZ * 16 - 64, capped at NVMF_RH_MAX_INCAPSULE; 0 when IOCCSZ
 * < 4 (no room beyond the SQE). */
uint32_t nvmf_rh_incapsule_size(uint32_t ioccsz);

/*
 * nvmf_rh_parse_addr - @traddr (numeric IPv4 or IPv6, no brackets) and @trsvcid (decimal
 * port, NULL or "" = 4420) into @ss. Returns 0, or -EINVAL with @err naming the bad part
 * ("traddr 'x': not a numeric IPv4 or IPv6 address", "trsvcid 'y': not a port number").
 */
int nvmf_rh_parse_addr(const char *traddr, const char *trsvcid, struct sockaddr_storage *ss,
		       char *err, size_t errlen);

/* ---- per queue state (q->tpriv) ---- */

/* wr_id of a work request: kind in the high 32 bits, index in the low. */
enum nvmf_rh_wr_kind { NVMF_RH_WR_RECV = 1, NVMF_RH_WR_SEND = 2 };

/* Bounce buffer classes of one queue. */
struct nvmf_rh_bclass {
	uint32_t size; /* bytes per buffer */
	uint32_t count, nfree;
	void *mem; /* count * size bytes, one registration */
	struct ibv_mr *mr;
	void **free; /* stack of free buffers */
};
struct nvmf_rh_big {
	void *mem;
	struct ibv_mr *mr;
	uint32_t size; /* bytes */
	bool busy;
};
struct nvmf_rh_pool {
	struct ibv_pd *pd;
	uint32_t small_count; /* class 0 buffers (queue entries) */
	struct nvmf_rh_bclass cls[2];
	struct nvmf_rh_big big[NVMF_RH_BIG_MAX];
};

/* One capsule in flight: free again once both its SEND completed and its CQE arrived
 * (either may come first). */
struct nvmf_rh_slot {
	struct nvmf_hcmd *cmd; /* until the CQE */
	struct nvme_sqe *sqe;  /* 64 B, registered */
	void *bounce;          /* bounce buffer or NULL */
	int bounce_ref;        /* its class (see nvmf_rh_pool_get) */
	bool copy_back;        /* read through a bounce buffer */
	bool send_done, cqe_done;
	struct ibv_send_wr wr;
	struct ibv_sge sge[2]; /* SQE, in-capsule data */
};

struct nvmf_rh_queue {
	struct nvmf_hq *hq;
	struct nvmf_rdma_dev *dev;
	struct rdma_event_channel *ec; /* this queue's CM events, non-blocking */
	struct rdma_cm_id *id;
	struct ibv_comp_channel *cc; /* non-blocking */
	struct ibv_cq *cq;
	bool qp_created, connected, dead;
	uint16_t qid, size;
	char peer[80]; /* "169.254.77.1:4420" for messages */

	uint32_t nslots; /* 2 x size: a slot may wait for its SEND
					     * completion after its CQE */
	struct nvmf_rh_slot *slots;
	uint32_t *free_slots, nfree;
	void *sqe_mem;
	struct ibv_mr *sqe_mr;
	void *icd_mem; /* nslots x icd_stride, in-capsule data */
	struct ibv_mr *icd_mr;
	uint32_t icd_stride; /* bytes allocated per slot */
	uint32_t incapsule;  /* bytes a write may carry in the capsule */

	struct nvme_cqe *rsp; /* size x 16 B, registered */
	struct ibv_mr *rsp_mr;
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;

	struct nvmf_rh_pool pool;
	/* I/O queues: SENDs submitted since the last pass, linked through wr.next, posted
	 * together by the next poll or wait (one ibv_post_send: one doorbell). */
	struct ibv_send_wr *tx_head, *tx_last;
	bool post_failed;       /* a post failed: the queue ends once the CQ was read */
	uint64_t cm_checked_ms; /* coarse clock of the last look at the CM channel */
	bool cm_pending;        /* wait saw the CM channel readable: look at the next idle poll */
	struct ibv_wc wc[NVMF_RH_WC_BATCH]; /* polled, not yet handled */
	unsigned wc_head, wc_count;
};

/* ---- conn.c: the transport's queue_connect / queue_disconnect ---- */
int nvmf_rh_queue_connect(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			  uint16_t size, char *err, size_t errlen);
void nvmf_rh_queue_disconnect(struct nvmf_hq *hq);

/* ---- io.c ---- */
/* nvmf_rh_pool_init - class 0 (@count x 4 KiB, registered now) on @pd. 0 or -errno. */
int nvmf_rh_pool_init(struct nvmf_rh_pool *p, struct ibv_pd *pd, uint32_t count);
void nvmf_rh_pool_fini(struct nvmf_rh_pool *p);
/* nvmf_rh_post_recv - (re)post receive @i of @q. 0 or errno. */
int nvmf_rh_post_recv(struct nvmf_rh_queue *q, uint32_t i);

#endif
