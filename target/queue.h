/* SPDX-License-Identifier: MIT */
/*
 * What the core and a transport share of a queue and of a command: the submission queue
 * (one per transport connection) and the request a transport embeds in its own. Part of
 * the transport interface (target/transport.h includes it); the core owns every field a
 * comment does not give the transport (the lifecycle is in target/transport.h).
 */
#ifndef NVMF_TARGET_QUEUE_H
#define NVMF_TARGET_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include "nvme/wire.h"
#include "subsystem/backend.h"
#include "target/poll-group.h"

struct nvmf_tgt;
struct nvmf_tgt_ctrl;
struct nvmf_port;
struct nvmf_transport;
struct nvmf_sq_auth;
struct nvmf_ns;

/* Direction of a command's data (NVMe Base 4.1, opcode bits 1:0). */
enum nvmf_xfer_dir {
	NVMF_XFER_NONE = 0,
	NVMF_XFER_H2C, /* host to controller (write): transport fetches before execute */
	NVMF_XFER_C2H, /* controller to host (read): transport pushes after completion */
};

/* Where a queue is in its life (see target/transport.h). */
enum nvmf_sq_state {
	NVMF_SQ_LIVE,      /* commands may arrive */
	NVMF_SQ_DRAINING,  /* nvmf_sq_destroy called; commands still in flight */
	NVMF_SQ_DETACHING, /* asked the controller's group to detach it */
	NVMF_SQ_RELEASED,  /* queue_released called */
};

/* SMART I/O counters (NVMe Base 2.0 figure 207) of one queue, or summed for a
 * controller: commands, and data in 512-byte units (Read and Compare / Write). A queue's
 * are written by its own group only (NVMF_PG_COUNT: no locked instruction per I/O) and
 * read by the controller's group with relaxed atomic loads (nvmf_tgt_ctrl_io_stats). */
struct nvmf_io_stats {
	uint64_t host_reads, host_writes;
	uint64_t units_read, units_written;
};

/* A submission queue: one per transport connection. Owned by its poll group. */
struct nvmf_sq {
	struct nvmf_tgt_ctrl *ctrl; /* NULL until Connect succeeds: the queue is
					    * connected while it is set */
	struct nvmf_port *port;
	struct nvmf_tgt *tgt;
	struct nvmf_pg *pg; /* the group serving it */
	struct nvmf_transport *transport;
	uint16_t qid;         /* valid after Connect */
	uint16_t size;        /* entries, 1's based */
	uint16_t sqhd;        /* reported in CQEs (unless sqflow_disabled) */
	bool sqflow_disabled; /* its Connect set CATTR bit 2, SQ flow control
					    * disable: CQEs carry no SQHD (target/core.c) */
	char peer[64];        /* the host's address as the transport reports it
					    * ("addr:port"), for messages; "" unknown */
	enum nvmf_sq_state state;
	uint32_t inflight;             /* commands between nvmf_req_init and their answer */
	bool quiescing;                /* the target is stopping: new commands are not
					    * started (nvmf_sq_accepting), those in flight finish */
	struct nvmf_msg msg;           /* its own detach/release messages */
	struct nvmf_msg ctl_msg;       /* the controller group's disconnect request */
	bool disconnect_sent;          /* ctl_msg posted (controller group's flag) */
	bool auth_required;            /* its Connect answered AUTHREQ.ATR */
	bool authenticated;            /* its DH-HMAC-CHAP transaction succeeded */
	uint32_t auth_done;            /* how it authenticated, packed (target/auth.c); 0 while
					    * not: written by its group, read by any (atomic) */
	struct nvmf_sq_auth *auth;     /* the transaction (target/auth.c), NULL before */
	struct nvmf_sq *pg_next;       /* in pg->sqs */
	struct nvmf_req *fused_first;  /* a parsed first half (FUSE 01b) waiting for its
					    * second, the next command (target/core.c) */
	bool fused_first_failed;       /* the previous command was a first half that failed:
					    * a second now gets Failed Fused Command */
	struct nvmf_io_stats io_stats; /* its commands' SMART counters (above) */
	void *transport_priv;
};

/* One command in flight. Embedded by the transport in its own request structure. */
struct nvmf_req {
	struct nvme_sqe *cmd; /* the command as received (valid until response sent) */
	struct nvme_cqe *cqe; /* response being built */
	struct nvmf_sq *sq;
	struct nvmf_ns *ns;  /* I/O commands: the namespace (held: nvmf_req_hold_ns) */
	bool ns_held;        /* ns counted in its inflight until the answer */
	uint8_t ns_epoch;    /* the reservation epoch it is counted under (0, 1) */
	uint64_t start_us;   /* the group's pass clock when the command arrived */
	uint32_t probe_nsid; /* the SQE's NSID as the probes give it: 0 for a Fabrics
					    * command, whose bytes 4-7 are none (target/probes.h) */
	enum nvmf_xfer_dir dir;
	uint32_t data_len; /* bytes the command moves, set at init (host SGL must match) */
	uint32_t sgl_len;  /* bytes the host's SGL describes, set by the transport */
	void *data;        /* transport buffer of data_len bytes (registered memory);
					    * in-capsule data sits at the host's SGL offset, so no
					    * alignment: handlers copy structures out (memcpy) */
	void (*execute)(struct nvmf_req *req);
	bool cqe_optional;       /* set by nvmf_req_complete for the transport: the
					    * CQE says no more than "success" (status 0, DW0 and
					    * DW1 0, no SQHD: its queue disabled SQ flow control),
					    * so a transport that signals success otherwise may
					    * leave it unsent (NVMe/TCP's C2HData SUCCESS flag) */
	struct nvmf_bdev_io bio; /* backend I/O of this command */
	void *aux;               /* handler scratch (Compare's read buffer), freed at complete */
	uint64_t slba;           /* I/O commands: for the error log */
	uint32_t step;           /* handler's progress (shutdown flush: next nsid) */
	struct nvmf_msg msg;     /* handler's messages (I/O queue Connect) */
	struct nvmf_tgt_ctrl *connect_ctrl; /* Connect: the controller the main group found */
	nvme_status_t connect_status;
	void *transport_priv;
	struct nvmf_req *retry_next; /* in its nvmf_io_ctx retry list while the ring is full */
	struct nvmf_req *resv_next;  /* in its namespace's queue of reservation commands
					    * (target/resv-cmd.c) */
	/* Fused Compare and Write (target/core.c, target/caw.c). */
	uint8_t fused;               /* its FUSE field: 0, NVMF_FUSED_FIRST, NVMF_FUSED_SECOND */
	bool fused_ready;            /* its execute ran: its data is here */
	nvme_status_t fused_status;  /* its answer, decided before it could be given */
	struct nvmf_req *fused_peer; /* the other half, once both are parsed */
	/* The LBA range lock of Compare and Write (target/lba-lock.h). */
	bool lba_active;                           /* counted in its group's executing commands */
	uint8_t lba_epoch;                         /* ... under this epoch (target/lba-lock.h) */
	struct nvmf_req *lba_next;                 /* parked, or in the main group's holder FIFO */
	void (*lba_granted)(struct nvmf_req *req); /* a holder's continuations */
	void (*lba_finished)(struct nvmf_req *req);
};

/* Command Dword 0 FUSE (bits 9:8, byte 1 bits 1:0; NVMe Base 2.0 figure 88). */
#define NVMF_FUSED_FIRST  1
#define NVMF_FUSED_SECOND 2
#define NVMF_FUSED_MASK   3

#endif
