/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/RDMA CM private data exchange (NVMe-oF 1.1 section 7.3.4 / the RDMA transport
 * binding: RDMA_CM_REQUEST, RDMA_CM_ACCEPT and RDMA_CM_REJECT private data). Pure
 * functions, no verbs: the listener (rdma/listener.c) feeds them the bytes the CM
 * delivered and sends what they build.
 */
#ifndef NVMF_RDMA_CM_PRIVATE_H
#define NVMF_RDMA_CM_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include "nvme/wire.h"
#include "subsystem/config.h"

struct nvmf_port;

/* What a connecting host may ask for on one port. Entries are 1's based counts. */
struct nvmf_rdma_cm_limits {
	uint16_t admin_queue_size;  /* max admin SQ entries (NVMF_ADMIN_QUEUE_SIZE, 32) */
	uint16_t io_queue_size;     /* max I/O SQ entries (the port's max_queue_size) */
	uint16_t max_qid;           /* highest I/O queue id a subsystem on the port allows */
};

/* A validated CM REQ, host endian. */
struct nvmf_rdma_cm_conn {
	uint16_t qid;               /* 0 = admin */
	uint16_t recv_depth;        /* HSQSIZE + 1: capsules the host may have outstanding,
				     * i.e. RECVs the target posts */
	uint16_t hrqsize;           /* host receive queue entries (1's based): the most
				     * responses the target may have in flight */
	uint16_t cntlid;            /* SPDK hosts fill it; Linux leaves 0; informational */
};

/*
 * nvmf_rdma_cm_parse_req - validate the CM REQ private data of a new queue.
 * @pdata/@len: the private data as the CM delivered it (the CM may pad it, so @len can be
 *              more than 32 bytes; only the first 32 are read).
 * @lim:        the port's limits.
 * @out:        filled on success.
 * Returns 0, or the enum nvme_rdma_cm_status to reject with:
 *   NVME_RDMA_CM_INVALID_LEN      @pdata NULL or @len < 32
 *   NVME_RDMA_CM_INVALID_RECFMT   RECFMT != 0
 *   NVME_RDMA_CM_INVALID_QID      QID > @lim->max_qid
 *   NVME_RDMA_CM_INVALID_HSQSIZE  HSQSIZE 0 (a queue has at least 2 entries, NVMe Base
 *                                 3.3.1), or HSQSIZE+1 above the admin (32) or I/O limit
 *   NVME_RDMA_CM_INVALID_HRQSIZE  HRQSIZE < HSQSIZE+1: the host could not take a response
 *                                 for every command it may have outstanding
 * The checks run in that order (nvmet checks length, recfmt, then admin HSQSIZE the same way).
 */
int nvmf_rdma_cm_parse_req(const void *pdata, size_t len, const struct nvmf_rdma_cm_limits *lim,
			   struct nvmf_rdma_cm_conn *out);

/* nvmf_rdma_cm_build_rep - accept data: RECFMT 0, CRQSIZE = @crqsize (our RECV depth). */
void nvmf_rdma_cm_build_rep(struct nvme_rdma_cm_rep *rep, uint16_t crqsize);

/* nvmf_rdma_cm_build_rej - reject data: RECFMT 0, STS = @sts. */
void nvmf_rdma_cm_build_rej(struct nvme_rdma_cm_rej *rej, int sts);

/* nvmf_rdma_cm_status_str - "invalid HSQSIZE" etc. for logs; "unknown" otherwise. */
const char *nvmf_rdma_cm_status_str(int sts);

/* nvmf_rdma_port_queue_size - the port's max I/O queue entries: max_queue_size, with 0
 * or (uint32_t)-1 meaning NVMF_DEFAULT_QUEUE_SIZE, clamped to NVMF_MIN/MAX_QUEUE_SIZE. */
uint32_t nvmf_rdma_port_queue_size(const struct nvmf_port_config *cfg);

/* nvmf_rdma_port_inline_size - in-capsule data bytes on I/O queues: inline_data_size,
 * (uint32_t)-1 meaning NVMF_DEFAULT_INLINE, clamped to NVMF_MAX_INLINE; 0 = none. */
uint32_t nvmf_rdma_port_inline_size(const struct nvmf_port_config *cfg);

/* nvmf_rdma_cm_port_limits - limits for @port: admin 32, I/O from the port config, max
 * qid the largest qid_max (0 = 128) of the subsystems exposed (discovery only: 0). */
void nvmf_rdma_cm_port_limits(const struct nvmf_port *port, struct nvmf_rdma_cm_limits *lim);

#endif
