/* SPDX-License-Identifier: MIT */
/*
 * The loop transport: an in-process host and target with no network, so the whole core
 * (Connect, properties, admin and I/O commands, discovery) is tested without RDMA. Like
 * the kernel's nvmet loop.c. Each queue is a struct nvmf_loop_queue; commands run
 * synchronously: nvmf_loop_submit() returns when the CQE has been "sent".
 */
#ifndef NVMF_TARGET_LOOP_H
#define NVMF_TARGET_LOOP_H

#include "target/core.h"

struct nvmf_loop_queue {
	struct nvmf_sq sq;
	struct nvmf_req req;          /* one command at a time */
	struct nvme_sqe cmd;
	struct nvme_cqe cqe;
	bool done;                    /* response queued */
	bool deleted;                 /* delete_ctrl was called for its controller */
};

extern const struct nvmf_transport_ops nvmf_loop_ops;

/* nvmf_loop_queue_init - a new unconnected queue on @port of @tgt. */
void nvmf_loop_queue_init(struct nvmf_loop_queue *q, struct nvmf_tgt *tgt, struct nvmf_port *port);

/*
 * nvmf_loop_submit - run @cmd on @q and wait for its response in @cqe.
 * @data: host buffer of @len bytes (the SGL length): sent for writes, filled for reads.
 * @incapsule: the data travels as in-capsule data (affects nothing but sgl bookkeeping).
 * Returns the CQE status field without the phase bit (0 = success).
 */
nvme_status_t nvmf_loop_submit(struct nvmf_loop_queue *q, const struct nvme_sqe *cmd,
			       void *data, uint32_t len, struct nvme_cqe *cqe);

/*
 * nvmf_loop_connect - Fabrics Connect on @q: admin when @qid is 0 (cntlid 0xffff),
 * else an I/O queue of controller @cntlid. @sqsize is 0's based. Returns the status;
 * on success *cntlid_out (if not NULL) gets the controller ID.
 */
nvme_status_t nvmf_loop_connect(struct nvmf_loop_queue *q, uint16_t qid, uint16_t sqsize,
				const char *subnqn, const char *hostnqn, uint16_t cntlid,
				uint32_t kato_ms, uint16_t *cntlid_out, struct nvme_cqe *cqe);

/* nvmf_loop_enable - Property Set CC.EN=1 (IOSQES 6, IOCQES 4) and check CSTS.RDY. */
nvme_status_t nvmf_loop_enable(struct nvmf_loop_queue *admin);

/* nvmf_loop_disconnect - the "host" drops the queue (nvmf_sq_destroy). */
void nvmf_loop_disconnect(struct nvmf_loop_queue *q);

#endif
