/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/RDMA CM private data, both ways (NVMe-oF 1.1 section 7.3.4, the RDMA transport
 * binding: RDMA_CM_REQUEST, RDMA_CM_ACCEPT and RDMA_CM_REJECT private data). Pure
 * functions, no verbs: the target's listener feeds them the bytes the CM delivered and
 * sends what they build; the host builds the request and reads the reject.
 * Wire structs: struct nvme_rdma_cm_req / _rep / _rej in nvme/wire.h, little endian.
 */
#ifndef NVMF_NVME_RDMA_CM_H
#define NVMF_NVME_RDMA_CM_H

#include <stddef.h>
#include <stdint.h>
#include "nvme/wire.h"

/* What a connecting host may ask for on one port. Entries are 1's based counts. */
struct nvme_rdma_cm_limits {
	uint16_t admin_queue_size; /* max admin SQ entries (32) */
	uint16_t io_queue_size;    /* max I/O SQ entries (the port's max_queue_size) */
	uint16_t max_qid;          /* highest I/O queue id a subsystem on the port allows */
};

/* A validated CM REQ, host endian. */
struct nvme_rdma_cm_conn {
	uint16_t qid;        /* 0 = admin */
	uint16_t recv_depth; /* HSQSIZE + 1: capsules the host may have outstanding,
				     * i.e. RECVs the target posts */
	uint16_t hrqsize;    /* host receive queue entries (1's based): the most
				     * responses the target may have in flight */
	uint16_t cntlid;     /* SPDK hosts fill it; Linux leaves 0; informational */
};

/*
 * nvme_rdma_cm_parse_req - validate the CM REQ private data of a new queue (target).
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
int nvme_rdma_cm_parse_req(const void *pdata, size_t len, const struct nvme_rdma_cm_limits *lim,
			   struct nvme_rdma_cm_conn *out);

/*
 * nvme_rdma_cm_read_depth - the RDMA READ depth (ORD: READs the target has outstanding
 * against the host at once, to fetch write data and the Connect data) of a new queue, from
 * what the CM REQ offers and what the device can do (target).
 * @host_ird:    the host's responder resources, the READs it serves at once: on the
 *               passive side librdmacm reports it as the event's initiator_depth (the
 *               Linux host offers its device's max_qp_rd_atom).
 * @dev_max_ord: the device's max_qp_init_rd_atom.
 * @ord:         set on success: min(@host_ird, @dev_max_ord), 1 at least.
 * The host's own initiator depth (READs it would issue against the target) is no input:
 * the binding never has the host read target memory, so the target grants it no
 * responder resources (0 in the accept, as nvmet and SPDK do) whatever it asked for;
 * granting less than asked is always allowed (the CM REP's depths may be below the REQ's),
 * so no request is refused with NVME_RDMA_CM_INVALID_ORD.
 * Returns 0, or the enum nvme_rdma_cm_status to reject with:
 *   NVME_RDMA_CM_INVALID_IRD  @host_ird 0: no RDMA READ could fetch anything, not even the
 *                             admin Connect's data (always keyed on the admin queue);
 *                             SPDK rejects the same way
 *   NVME_RDMA_CM_NO_RSC       @dev_max_ord 0: the device cannot issue RDMA READs
 * (NVMe-oF 1.1 section 7.3.4, the RDMA_CM_REJECT status values; Linux
 * include/linux/nvme-rdma.h: 07h INVALID_IRD, 08h INVALID_ORD.)
 */
int nvme_rdma_cm_read_depth(uint32_t host_ird, uint32_t dev_max_ord, uint32_t *ord);

/* nvme_rdma_cm_build_req - the CM REQ of queue @qid with @size entries (1's based), as
 * the Linux host sends it: RECFMT 0, HRQSIZE = @size, HSQSIZE = @size - 1 (0's based),
 * CNTLID 0 (host). */
void nvme_rdma_cm_build_req(struct nvme_rdma_cm_req *req, uint16_t qid, uint16_t size);

/* nvme_rdma_cm_build_rep - accept data: RECFMT 0, CRQSIZE = @crqsize (our RECV depth). */
void nvme_rdma_cm_build_rep(struct nvme_rdma_cm_rep *rep, uint16_t crqsize);

/* nvme_rdma_cm_build_rej - reject data: RECFMT 0, STS = @sts. */
void nvme_rdma_cm_build_rej(struct nvme_rdma_cm_rej *rej, int sts);

/* nvme_rdma_cm_parse_rej - the STS of reject data @pdata (@len bytes, may be padded).
 * Returns STS, or -1 when there are fewer than 4 bytes (no NVMe/RDMA reject data). */
int nvme_rdma_cm_parse_rej(const void *pdata, size_t len);

/* nvme_rdma_cm_status_str - "invalid HSQSIZE" etc. for logs ("invalid IRD" and "invalid
 * ORD" say which RDMA READ depth of the host's was refused); "unknown" otherwise. */
const char *nvme_rdma_cm_status_str(int sts);

#endif
