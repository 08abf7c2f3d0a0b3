/* SPDX-License-Identifier: MIT */
/*
 * The host-side (initiator) RDMA transport of libnvmf: types shared by its files. Not a
 * public interface: the library core sees `nvmf_rdma_host_transport` (initiator/transport.h)
 * only.
 *
 *   host-wire.c  pure helpers, no verbs: CM private data, reject messages, SGL filling,
 *                address parsing, the sorted table of registered regions (unit tested)
 *   host-dev.c   per-device context (PD, attributes, registered user regions), shared by
 *                every queue of the process on the same ibv_context
 *   host-conn.c  queue_connect / queue_disconnect: rdma_cm, QP, CQ, buffers, RECVs
 *   host-io.c    submit / poll / wait / set_incapsule / mem_register, bounce buffers
 *
 * Wire behaviour follows docs/wire-contract.md section 1 (what the Linux host sends), with
 * one deliberate difference: keyed SGLs are type 0x40, never 0x4F, because our memory stays
 * registered for the life of the queue and the target must not invalidate its rkey.
 */
#ifndef NVMF_RDMA_HOST_H
#define NVMF_RDMA_HOST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "initiator/transport.h"
#include "nvme/wire.h"

#define NVMF_RH_CM_TIMEOUT_MS    3000          /* resolve addr/route, like the kernel host */
#define NVMF_RH_CONNECT_TIMEOUT  10000         /* ms, ESTABLISHED when opts give none */
#define NVMF_RH_DEFAULT_PORT     "4420"
#define NVMF_RH_MAX_KEYED_LEN    0xffffffu     /* bytes: a keyed SGL length has 24 bits */
#define NVMF_RH_MAX_INCAPSULE    16384u        /* bytes per capsule we are willing to carry */
#define NVMF_RH_SMALL_BUF        4096u         /* bounce class 0: one per queue entry */
#define NVMF_RH_MEDIUM_BUF       (128u * 1024)  /* bounce class 1, allocated on first use */
#define NVMF_RH_MEDIUM_COUNT     8u
#define NVMF_RH_BIG_MAX          4u            /* bounce buffers > 128 KiB, sized on demand */
#define NVMF_RH_WC_BATCH         32
/* IB CM reject reasons (IBTA 12.6.7.2) as rdma_cm reports them in event->status. */
#define NVMF_RH_IB_REJ_INVALID_SID   8         /* nobody listens on that port */
#define NVMF_RH_IB_REJ_CONSUMER      28        /* the target's own reject, with private data */

/* ---- host-wire.c: pure helpers ---- */

/* nvmf_rh_build_cm_req - the CM REQ private data of queue @qid with @size entries (1's
 * based): RECFMT 0, HRQSIZE = @size, HSQSIZE = @size - 1 (0's based), CNTLID 0 (as the
 * Linux host), little endian (NVMe-oF 1.1 RDMA binding, wire-contract 1). */
void nvmf_rh_build_cm_req(struct nvme_rdma_cm_req *req, uint16_t qid, uint16_t size);

/*
 * nvmf_rh_reject_msg - describe a CM REJECTED event in @buf: @status is the event status
 * (IB CM reject reason, or -errno on iWARP), @pdata/@len its private data (may be NULL).
 * A consumer reject (reason 28) carrying >= 4 bytes decodes struct nvme_rdma_cm_rej:
 * "rejected by target: NVMe/RDMA status 4 (invalid HSQSIZE)". Returns the errno to give
 * the caller: -ECONNREFUSED always (a reject is a refusal, whatever the reason).
 */
int nvmf_rh_reject_msg(int status, const void *pdata, size_t len, char *buf, size_t buflen);

/* nvmf_rh_sgl_keyed - set @sqe's data pointer to one keyed data block descriptor (type
 * 0x40: keyed, address; no invalidation) of @len bytes (<= 0xffffff) at @addr with @rkey,
 * and PSDT = 01b (flags bits 7:6), keeping the FUSE bits (1:0) and clearing 5:2. len 0
 * gives an all-zero descriptor of type 0x40 (NVMe Base 2.0 4.3.2; wire-contract 1). */
void nvmf_rh_sgl_keyed(struct nvme_sqe *sqe, uint64_t addr, uint32_t len, uint32_t rkey);
/* nvmf_rh_sgl_incapsule - data block, offset subtype (type 0x01): @len bytes at offset 0
 * of the capsule's data (ICDOFF 0), PSDT = 01b. */
void nvmf_rh_sgl_incapsule(struct nvme_sqe *sqe, uint32_t len);

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

/* One registered user region (mem_register). */
struct nvmf_rh_region {
	uintptr_t addr;           /* first byte */
	size_t len;               /* bytes */
	uint32_t lkey, rkey;
	void *mr;                 /* struct ibv_mr * (opaque here: tests use fakes) */
	unsigned refs;            /* registrations of exactly [addr, addr+len) */
};

/* An immutable table of regions sorted by addr. Tables are replaced, never changed, so
 * data-path readers need no lock (a writer publishes a new table; old ones are kept until
 * the device context goes away). */
struct nvmf_rh_regions {
	size_t n;
	struct nvmf_rh_regions *retired_next;   /* chain of replaced tables (device owns) */
	struct nvmf_rh_region r[];
};

/* nvmf_rh_region_find - the region of @t wholly containing [buf, buf+len), or NULL (also
 * for @t NULL or @len 0). Binary search; when regions overlap, one that contains the
 * whole range is found if the last region starting at or before @buf does. */
const struct nvmf_rh_region *nvmf_rh_region_find(const struct nvmf_rh_regions *t,
						 const void *buf, size_t len);
/* nvmf_rh_regions_with - a new table: @t (may be NULL) plus @reg, kept sorted. NULL when
 * out of memory. */
struct nvmf_rh_regions *nvmf_rh_regions_with(const struct nvmf_rh_regions *t,
					     const struct nvmf_rh_region *reg);
/* nvmf_rh_regions_without - a new table: @t without entry @idx. NULL when out of memory. */
struct nvmf_rh_regions *nvmf_rh_regions_without(const struct nvmf_rh_regions *t, size_t idx);
/* nvmf_rh_regions_index - index of the region starting exactly at @addr (and, when @len
 * is not 0, of that length), or -1. */
long nvmf_rh_regions_index(const struct nvmf_rh_regions *t, const void *addr, size_t len);

/* ---- host-dev.c: device contexts ---- */

/* Per ibv_context: the PD every queue of the process on this device uses (so one MR from
 * mem_register serves every queue), and the registered user regions. */
struct nvmf_rh_dev {
	struct ibv_context *verbs;             /* owned by librdmacm */
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	unsigned refs;                         /* queues + registered regions; under the lock */
	_Atomic(struct nvmf_rh_regions *) regions;
	struct nvmf_rh_regions *retired;       /* replaced tables, freed with the device */
	struct nvmf_rh_dev *next;
};

/* nvmf_rh_dev_get - the context of @verbs (created on first use) with one more reference.
 * NULL with @err set on failure. Thread safe. */
struct nvmf_rh_dev *nvmf_rh_dev_get(struct ibv_context *verbs, char *err, size_t errlen);
/* nvmf_rh_dev_put - drop a reference; the last one frees the PD and the context. */
void nvmf_rh_dev_put(struct nvmf_rh_dev *dev);
/* nvmf_rh_dev_register / unregister - ibv_reg_mr [addr, addr+len) with LOCAL_WRITE |
 * REMOTE_READ | REMOTE_WRITE on the device PD, or drop one registration. The same range
 * registered twice is counted. 0, -EINVAL (NULL/0 length, or unregister of an unknown
 * address), -ENOMEM, or -errno of ibv_reg_mr. Unregister with @dev NULL looks the region
 * up on every device (the queues may be gone already). Thread safe. */
int nvmf_rh_dev_register(struct nvmf_rh_dev *dev, void *addr, size_t len);
int nvmf_rh_dev_unregister(struct nvmf_rh_dev *dev, void *addr);
/* nvmf_rh_dev_lookup - the registered region containing [buf, buf+len), or NULL. Lock
 * free. */
const struct nvmf_rh_region *nvmf_rh_dev_lookup(struct nvmf_rh_dev *dev, const void *buf,
						size_t len);

/* ---- per queue state (q->tpriv) ---- */

/* wr_id of a work request: kind in the high 32 bits, index in the low. */
enum nvmf_rh_wr_kind { NVMF_RH_WR_RECV = 1, NVMF_RH_WR_SEND = 2 };

/* Bounce buffer classes of one queue. */
struct nvmf_rh_bclass {
	uint32_t size;            /* bytes per buffer */
	uint32_t count, nfree;
	void *mem;                /* count * size bytes, one registration */
	struct ibv_mr *mr;
	void **free;              /* stack of free buffers */
};
struct nvmf_rh_big {
	void *mem;
	struct ibv_mr *mr;
	uint32_t size;            /* bytes */
	bool busy;
};
struct nvmf_rh_pool {
	struct ibv_pd *pd;
	uint32_t small_count;     /* class 0 buffers (queue entries) */
	struct nvmf_rh_bclass cls[2];
	struct nvmf_rh_big big[NVMF_RH_BIG_MAX];
};

/* One capsule in flight: free again once both its SEND completed and its CQE arrived
 * (either may come first). */
struct nvmf_rh_slot {
	struct nvmf_hcmd *cmd;    /* until the CQE */
	struct nvme_sqe *sqe;     /* 64 B, registered */
	void *bounce;             /* bounce buffer or NULL */
	int bounce_ref;           /* its class (see nvmf_rh_pool_get) */
	bool copy_back;           /* read through a bounce buffer */
	bool send_done, cqe_done;
	struct ibv_send_wr wr;
	struct ibv_sge sge[2];    /* SQE, in-capsule data */
};

struct nvmf_rh_queue {
	struct nvmf_hq *hq;
	struct nvmf_rh_dev *dev;
	struct rdma_event_channel *ec;      /* this queue's CM events, non-blocking */
	struct rdma_cm_id *id;
	struct ibv_comp_channel *cc;        /* non-blocking */
	struct ibv_cq *cq;
	bool qp_created, connected, dead;
	uint16_t qid, size;
	char peer[80];                      /* "169.254.77.1:4420" for messages */

	uint32_t nslots;                    /* 2 x size: a slot may wait for its SEND
					     * completion after its CQE */
	struct nvmf_rh_slot *slots;
	uint32_t *free_slots, nfree;
	void *sqe_mem;
	struct ibv_mr *sqe_mr;
	void *icd_mem;                      /* nslots x icd_stride, in-capsule data */
	struct ibv_mr *icd_mr;
	uint32_t icd_stride;                /* bytes allocated per slot */
	uint32_t incapsule;                 /* bytes a write may carry in the capsule */

	struct nvme_cqe *rsp;               /* size x 16 B, registered */
	struct ibv_mr *rsp_mr;
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;

	struct nvmf_rh_pool pool;
	struct ibv_wc wc[NVMF_RH_WC_BATCH]; /* polled, not yet handled */
	unsigned wc_head, wc_count;
};

/* ---- host-conn.c: the transport's queue_connect / queue_disconnect ---- */
int nvmf_rh_queue_connect(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			  uint16_t size, char *err, size_t errlen);
void nvmf_rh_queue_disconnect(struct nvmf_hq *hq);

/* ---- host-io.c ---- */
/* nvmf_rh_pool_init - class 0 (@count x 4 KiB, registered now) on @pd. 0 or -errno. */
int nvmf_rh_pool_init(struct nvmf_rh_pool *p, struct ibv_pd *pd, uint32_t count);
void nvmf_rh_pool_fini(struct nvmf_rh_pool *p);
/* nvmf_rh_post_recv - (re)post receive @i of @q. 0 or errno. */
int nvmf_rh_post_recv(struct nvmf_rh_queue *q, uint32_t i);

#endif
