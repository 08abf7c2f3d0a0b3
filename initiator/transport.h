/* SPDX-License-Identifier: MIT */
/*
 * libnvmf internals: the host-side transport interface. The RDMA transport
 * (rdma/host/), the NVMe/TCP transport (tcp/host/) and the in-process loop transport
 * (loop/host/transport.c, the host half of the target's loop transport) implement it; the
 * library core (the initiator/ sources) never touches verbs or sockets.
 *
 * A queue (admin or I/O) is a struct nvmf_hq owned by the core; the transport keeps its
 * state in hq->tpriv. The core builds the SQE (opcode, nsid, cdws, command_id) and hands
 * it with its data buffer; the transport fills the data pointer (RDMA: keyed SGL 0x40
 * from registered memory; TCP: Transport SGL 0x5A; either: in-capsule 0x01 for writes up
 * to its in-capsule size), sends it,
 * moves data back for reads, and reports each CQE with nvmf_hq_complete().
 */
#ifndef LIBNVMF_TRANSPORT_H
#define LIBNVMF_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "initiator/nvmf.h"
#include "nvme/wire.h"

struct nvmf_hq;

/* One command handed to the transport. */
struct nvmf_hcmd {
	struct nvme_sqe sqe; /* complete but for dptr/flags (the transport sets them) */
	void *buf;           /* data, @len bytes; NULL when len is 0 */
	uint32_t len;        /* bytes */
	bool write;          /* host to controller */
	void *tctx;          /* transport's per-command state (set by the transport) */
};

struct nvmf_host_transport {
	const char *name; /* "rdma", "tcp", "loop" */
	/* true when data never travels by keyed SGL (TCP: in-capsule or Transport SGL), so
	 * the controller need not report keyed SGL support (Identify SGLS bit 2) */
	bool no_keyed_sgls;
	/*
	 * queue_connect - transport-level connection of queue @qid with @size entries
	 * (admin: 32) to opts->traddr:trsvcid (RDMA: rdma_cm connect with the NVMe/RDMA CM
	 * private data, QP, receives posted). The Fabrics Connect command itself is sent by
	 * the core afterwards. Returns 0 or -errno with @err set ("rdma_resolve_addr
	 * 10.0.0.1:4420: timed out", "rejected by target: NVMe/RDMA status 4 (invalid
	 * HSQSIZE)").
	 */
	int (*queue_connect)(struct nvmf_hq *q, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			     uint16_t size, char *err, size_t errlen);
	/* queue_disconnect - tear the connection down and free transport state; commands
	 * still outstanding are not reported (the core fails them). */
	void (*queue_disconnect)(struct nvmf_hq *q);
	/* submit - send @cmd, or (RDMA and TCP I/O queues) queue it for the queue's next poll
	 * or wait, which sends everything queued since in one post or sendmsg; admin queues
	 * send at once. Returns 0, -EAGAIN (no send slot or buffer: retry after poll),
	 * -ECONNRESET (connection lost), -EINVAL (buffer larger than the transport can move). */
	int (*submit)(struct nvmf_hq *q, struct nvmf_hcmd *cmd);
	/* poll - send what submit queued, then reap up to @max completions (0 = all), calling
	 * nvmf_hq_complete() for each CQE (after copying read data back to cmd->buf when a
	 * bounce buffer was used). Returns the number reaped, or -ECONNRESET when the
	 * connection is gone. Never blocks. */
	int (*poll)(struct nvmf_hq *q, unsigned max);
	/* wait - send what submit queued, then block up to @timeout_ms for the queue to have
	 * something to poll; 0 or -errno. */
	int (*wait)(struct nvmf_hq *q, int timeout_ms);
	/* in-capsule data bytes this queue can carry for writes (0 on admin queues) given the
	 * controller's IOCCSZ (16-byte units, as in Identify) */
	void (*set_incapsule)(struct nvmf_hq *q, uint32_t ioccsz);
	/* mem_register - make [addr, addr+len) usable for zero-copy keyed SGLs on every queue
	 * of @ctrl's transport (RDMA: ibv_reg_mr with remote read/write). 0 or -errno. */
	int (*mem_register)(struct nvmf_hq *admin, void *addr, size_t len);
	int (*mem_unregister)(struct nvmf_hq *admin, void *addr);
	/* queue_error - optional: after submit, poll or wait gave -ECONNRESET, what ended
	 * the connection ("recv: Connection reset by peer", "connection closed by the
	 * controller"); NULL or "" when the transport does not know. */
	const char *(*queue_error)(struct nvmf_hq *q);
};

/* A host queue: the core's view. */
struct nvmf_hq {
	struct nvmf_ctrl *ctrl;
	const struct nvmf_host_transport *t;
	void *tpriv; /* transport state */
	uint16_t qid;
	uint16_t size; /* entries (1's based) */
	void *core;    /* core's request table */
};

/* nvmf_hq_complete - called by the transport for each CQE received on @q, with the
 * command that the CQE's command_id names (the transport looks it up through the core
 * with nvmf_hq_cmd_by_cid() when it needs its buffer first). */
void nvmf_hq_complete(struct nvmf_hq *q, const struct nvme_cqe *cqe);
/* nvmf_hq_cmd_by_cid - the outstanding command of @q with @cid, or NULL. */
struct nvmf_hcmd *nvmf_hq_cmd_by_cid(struct nvmf_hq *q, uint16_t cid);

/* The RDMA host transport (rdma/host/io.c). */
extern const struct nvmf_host_transport nvmf_rdma_host_transport;
/* The NVMe/TCP host transport (tcp/host/io.c). */
extern const struct nvmf_host_transport nvmf_tcp_host_transport;

#endif
