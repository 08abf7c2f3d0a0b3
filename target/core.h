/* SPDX-License-Identifier: MIT */
/*
 * The transport-independent target core: subsystems as served, controllers, queues and
 * requests, and the ops table through which a transport (RDMA, or the in-process loop
 * transport used by the unit tests) plugs in. Nothing here knows about verbs.
 *
 * Request lifecycle (like nvmet): the transport receives a capsule and calls
 * nvmf_req_init(); the core decodes and validates the command (opcode, namespace, data
 * direction and length) and picks a handler. The transport then moves host data in
 * (RDMA READ or in-capsule) into req->data and calls nvmf_req_execute(). The handler
 * finishes with nvmf_req_complete(), which hands the request back to the transport
 * (ops->queue_response) to move data out (RDMA WRITE) and send the CQE.
 */
#ifndef NVMF_TARGET_CORE_H
#define NVMF_TARGET_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "nvme/wire.h"
#include "subsystem/backend.h"
#include "subsystem/config.h"

#define NVMF_ADMIN_QUEUE_SIZE   32     /* entries; the Linux host uses 32 */
#define NVMF_MIN_QUEUE_SIZE     16
#define NVMF_MAX_QUEUE_SIZE     1024
#define NVMF_DEFAULT_QUEUE_SIZE 128
#define NVMF_DEFAULT_INLINE     8192   /* in-capsule data bytes on I/O queues */
#define NVMF_MAX_INLINE         16384
#define NVMF_KAS                10     /* Keep Alive granularity: 100 ms units -> 1 s */
#define NVMF_AERL               3      /* 0's based: 4 outstanding AERs */
#define NVMF_ERROR_LOG_ENTRIES  64
#define NVMF_MAX_NSID           1024
#define NVMF_CHANGED_NS_MAX     1024   /* Changed Namespace List: 1024 entries, 4 KiB */

struct nvmf_tgt;
struct nvmf_tgt_ctrl;
struct nvmf_sq;
struct nvmf_req;

/* Direction of a command's data (NVMe Base 4.1, opcode bits 1:0). */
enum nvmf_xfer_dir {
	NVMF_XFER_NONE = 0,
	NVMF_XFER_H2C,        /* host to controller (write): transport fetches before execute */
	NVMF_XFER_C2H,        /* controller to host (read): transport pushes after completion */
};

/*
 * A transport: the core calls these, never verbs or sockets.
 */
struct nvmf_transport_ops {
	const char *name;                 /* "rdma", "loop" */
	uint8_t trtype;                   /* NVMF_TRTYPE_* for the discovery log */
	uint8_t msdbd;                    /* max SGL data block descriptors (1) */
	bool keyed_sgl;                   /* Identify SGLS bit 2 */
	/* Send the response of a completed request (data first for C2H when status is 0).
	 * The transport owns the request again after this call. */
	void (*queue_response)(struct nvmf_req *req);
	/* Tear down every queue of @ctrl (KATO expiry, fatal error, shutdown). The transport
	 * disconnects them; each disconnected queue later calls nvmf_sq_destroy(). */
	void (*delete_ctrl)(struct nvmf_tgt_ctrl *ctrl);
};

/* A subsystem as served: built from its config, namespaces opened. */
struct nvmf_ns {
	uint32_t nsid;
	struct nvmf_bdev *bdev;
	uint32_t lba_shift;                /* log2(block size) */
	uint64_t nlb;                      /* namespace size in logical blocks */
	uint8_t nguid[16], uuid[16], eui64[8];
	bool has_nguid, has_uuid, has_eui64;
};

enum nvmf_subsys_type {
	NVMF_SUBSYS_NVME,
	NVMF_SUBSYS_DISCOVERY,
};

struct nvmf_subsys {
	enum nvmf_subsys_type type;
	const struct nvmf_subsys_config *cfg; /* NQN, hosts, attributes (owned by the config) */
	char serial[21], model[41], firmware[9]; /* space padded, no NUL needed on the wire */
	uint32_t vs;                       /* NVMe version: major << 16 | minor << 8 */
	struct nvmf_ns **ns;               /* indexed by nsid; NULL = inactive */
	uint32_t max_nsid;                 /* highest nsid with a slot */
	uint16_t next_cntlid;
};

/* A port as served (the listener itself belongs to the transport). */
struct nvmf_port {
	const struct nvmf_port_config *cfg;
	struct nvmf_subsys **subsys;       /* subsystems exposed here */
	size_t n_subsys;
	void *transport_priv;
};

/* One error log entry kept per controller (NVMe Base 5.16.1.2), host endian fields. */
struct nvmf_error_entry {
	uint64_t error_count;
	uint16_t sqid, cmdid, status;      /* status without phase bit */
	uint16_t param_loc;
	uint64_t lba;
	uint32_t nsid;
};

/* Controller state (NVMe Base 3.1 / NVMe-oF dynamic controller model). */
struct nvmf_tgt_ctrl {
	struct nvmf_tgt *tgt;
	struct nvmf_subsys *subsys;
	struct nvmf_port *port;
	const struct nvmf_transport_ops *ops;
	uint16_t cntlid;
	char hostnqn[NVMF_CFG_NQN_MAX];
	uint8_t hostid[16];
	uint32_t cc, csts;                 /* Controller Configuration / Status properties */
	uint64_t cap;
	uint32_t kato_ms;                  /* 0 = no keep-alive */
	uint64_t last_keep_alive_ms;       /* monotonic ms of last command or Keep Alive */
	uint16_t nr_io_queues;             /* granted by Set Features Number of Queues (1's based) */
	uint16_t queue_size;               /* I/O queue entries the port allows */
	struct nvmf_sq **sqs;              /* [0] admin, [1..nr_io_queues] I/O */
	uint16_t max_qid;
	uint32_t inline_data_size;         /* in-capsule bytes on I/O queues */
	uint32_t mdts;                     /* log2(max transfer / 4 KiB) */
	uint32_t aen_cfg;                  /* Async Event Configuration feature */
	struct nvmf_req *aer[NVMF_AERL + 1];
	unsigned nr_aer;
	uint32_t aen_masked;               /* event types waiting for their log to be read */
	uint32_t pending_aen;              /* CQE dword 0 of events not yet reported */
	uint32_t changed_ns[NVMF_CHANGED_NS_MAX];
	unsigned nr_changed_ns;            /* > NVMF_CHANGED_NS_MAX means overflow */
	struct nvmf_error_entry errors[NVMF_ERROR_LOG_ENTRIES];
	uint64_t error_count;
	bool vwc_enabled;                  /* Volatile Write Cache feature */
	uint64_t host_reads, host_writes;  /* commands, for SMART */
	uint64_t units_read, units_written;/* 512 B units of data (Read+Compare / Write); the
					    * SMART log reports thousands, rounded up */
	bool deleting;
	struct nvmf_tgt_ctrl *next;            /* in tgt->ctrls */
	/* Discovery controller: the local address the host connected to, for wildcard ports. */
	struct sockaddr_storage local_addr;
};

/*
 * Where a queue's backend I/O goes: one per thread running I/O (a poll group). The
 * io_uring and the list of commands the backend refused with a full ring (-EAGAIN),
 * oldest first, resubmitted by nvmf_io_retry_pending(). Owned by one thread.
 */
struct nvmf_io_ctx {
	struct nvmf_aio *aio;
	struct nvmf_req *retry_head, *retry_tail;
};

/* A submission queue: one per transport connection. */
struct nvmf_sq {
	struct nvmf_tgt_ctrl *ctrl;            /* NULL until Connect succeeds */
	struct nvmf_port *port;
	struct nvmf_tgt *tgt;
	const struct nvmf_transport_ops *ops;
	uint16_t qid;                      /* valid after Connect */
	uint16_t size;                     /* entries, 1's based */
	uint16_t sqhd;                     /* reported in CQEs */
	bool connected;
	struct nvmf_io_ctx *io;            /* NULL: the target's (tgt->io) */
	void *transport_priv;
	struct sockaddr_storage local_addr; /* where the host reached us (discovery traddr) */
};

/* One command in flight. Embedded by the transport in its own request structure. */
struct nvmf_req {
	struct nvme_sqe *cmd;              /* the command as received (valid until response sent) */
	struct nvme_cqe *cqe;              /* response being built */
	struct nvmf_sq *sq;
	struct nvmf_ns *ns;                /* I/O commands: the namespace */
	enum nvmf_xfer_dir dir;
	uint32_t data_len;                 /* bytes the command moves, set at init (host SGL must match) */
	uint32_t sgl_len;                  /* bytes the host's SGL describes, set by the transport */
	void *data;                        /* transport buffer of data_len bytes (registered memory) */
	void (*execute)(struct nvmf_req *req);
	struct nvmf_bdev_io bio;           /* backend I/O of this command */
	void *aux;                         /* handler scratch (Compare's read buffer), freed at complete */
	uint64_t slba;                     /* I/O commands: for the error log */
	void *transport_priv;
	struct nvmf_req *retry_next;       /* in its nvmf_io_ctx retry list while the ring is full */
};

/* The target-wide context: everything the daemon holds, nothing global outside it. */
struct nvmf_tgt {
	struct nvmf_config *cfg;
	struct nvmf_subsys *disc;          /* the discovery subsystem */
	struct nvmf_subsys **subsys;
	size_t n_subsys;
	struct nvmf_port *ports;
	size_t n_ports;
	struct nvmf_tgt_ctrl *ctrls;           /* live controllers */
	uint64_t disc_genctr;              /* discovery log generation counter */
	struct nvmf_io_ctx io;             /* I/O context of the thread running the core; queues
					    * served by other threads bring their own (sq->io) */
	uint64_t (*now_ms)(const struct nvmf_tgt *tgt); /* monotonic ms; tests replace it */
	pthread_mutex_t stats_lock;        /* error logs: written by I/O threads, read by admin */
};

/* nvmf_sq_io - the I/O context serving @sq: its own, or the target's. */
static inline struct nvmf_io_ctx *nvmf_sq_io(struct nvmf_sq *sq)
{
	return sq->io ? sq->io : &sq->tgt->io;
}

/* ---- target lifecycle (target/tgt.c) ---- */

/*
 * nvmf_tgt_init - build subsystems, namespaces and ports from a validated config; opens
 * every backend. Returns 0, or -1 with @err naming the namespace and the reason (on
 * error everything opened so far is closed again).
 */
int nvmf_tgt_init(struct nvmf_tgt *tgt, struct nvmf_config *cfg, struct nvmf_aio *aio,
		  char *err, size_t errlen);
/* nvmf_tgt_fini - close backends (files are flushed) and free the model. */
void nvmf_tgt_fini(struct nvmf_tgt *tgt);
/* nvmf_tgt_find_subsys - the subsystem (or discovery) named @nqn, or NULL. */
struct nvmf_subsys *nvmf_tgt_find_subsys(struct nvmf_tgt *tgt, const char *nqn);
/* nvmf_subsys_host_allowed - allow_any_host or @hostnqn in the allow-list. */
bool nvmf_subsys_host_allowed(const struct nvmf_subsys *s, const char *hostnqn);
/* nvmf_port_has_subsys - @s is exposed on @port (discovery: always). */
bool nvmf_port_has_subsys(const struct nvmf_port *port, const struct nvmf_subsys *s);
/* nvmf_tgt_poll_timers - tear down controllers whose keep-alive timer expired. */
void nvmf_tgt_poll_timers(struct nvmf_tgt *tgt);

/* ---- queues and requests (target/core.c) ---- */

/* nvmf_sq_init - a new, unconnected queue on @port served by @ops. */
void nvmf_sq_init(struct nvmf_sq *sq, struct nvmf_tgt *tgt, struct nvmf_port *port,
		  const struct nvmf_transport_ops *ops);
/* nvmf_sq_destroy - the transport's queue is gone: detach from its controller; the
 * controller goes away with its admin queue. */
void nvmf_sq_destroy(struct nvmf_sq *sq);

/*
 * nvmf_req_init - decode and validate a received command. Sets req->execute, dir and
 * data_len. Returns true when the transport should move data and call nvmf_req_execute();
 * false when the request was already completed with an error status (queue_response has
 * been called).
 */
bool nvmf_req_init(struct nvmf_req *req, struct nvmf_sq *sq, struct nvme_sqe *cmd,
		   struct nvme_cqe *cqe);
/* nvmf_req_execute - run the command; checks sgl_len against data_len first. */
void nvmf_req_execute(struct nvmf_req *req);
/* nvmf_req_complete - finish with @status (0 = success) and hand back to the transport. */
void nvmf_req_complete(struct nvmf_req *req, nvme_status_t status);
/* nvmf_req_complete_dnr - the same with the Do Not Retry bit set (invalid commands). */
void nvmf_req_complete_dnr(struct nvmf_req *req, nvme_status_t status);

/* ---- controllers (target/ctrl.c) ---- */
struct nvmf_tgt_ctrl *nvmf_tgt_ctrl_alloc(struct nvmf_tgt *tgt, struct nvmf_subsys *s,
				  struct nvmf_port *port, const struct nvmf_transport_ops *ops,
				  const char *hostnqn, const uint8_t hostid[16], uint32_t kato_ms);
struct nvmf_tgt_ctrl *nvmf_tgt_ctrl_find(struct nvmf_tgt *tgt, const char *subnqn, uint16_t cntlid);
void nvmf_tgt_ctrl_free(struct nvmf_tgt_ctrl *ctrl);
/* nvmf_tgt_ctrl_fatal - CSTS.CFS and tear the association down. */
void nvmf_tgt_ctrl_fatal(struct nvmf_tgt_ctrl *ctrl);
/* nvmf_tgt_ctrl_prop_get / set: property space access (NVMe-oF 3.3/3.4). */
nvme_status_t nvmf_tgt_ctrl_prop_get(struct nvmf_tgt_ctrl *ctrl, uint32_t off, bool size8, uint64_t *val);
nvme_status_t nvmf_tgt_ctrl_prop_set(struct nvmf_tgt_ctrl *ctrl, uint32_t off, bool size8, uint64_t val);
/* nvmf_tgt_ctrl_add_error - record a failed command in the error log. */
void nvmf_tgt_ctrl_add_error(struct nvmf_tgt_ctrl *ctrl, struct nvmf_req *req, nvme_status_t st);
/* nvmf_tgt_ctrl_ready - CC.EN = 1 and CSTS.RDY = 1 (I/O and most admin need it). */
bool nvmf_tgt_ctrl_ready(const struct nvmf_tgt_ctrl *ctrl);

/* ---- command parsers: set execute/dir/data_len or return a status ---- */
nvme_status_t nvmf_parse_fabrics_cmd(struct nvmf_req *req);   /* target/fabrics-cmd.c */
nvme_status_t nvmf_parse_connect_cmd(struct nvmf_req *req);   /* before the queue is connected */
nvme_status_t nvmf_parse_admin_cmd(struct nvmf_req *req);     /* target/admin-cmd.c */
nvme_status_t nvmf_parse_discovery_cmd(struct nvmf_req *req); /* target/discovery.c */
nvme_status_t nvmf_parse_io_cmd(struct nvmf_req *req);        /* target/io-cmd.c */

/*
 * nvmf_io_retry_pending - resubmit, oldest first, the backend I/O of requests parked on
 * @io's retry list because the backend's ring was full (-EAGAIN). Stops at the first that
 * is refused again (it stays queued, order kept). The poll loop calls this once per pass,
 * after nvmf_aio_flush()/nvmf_aio_poll() made room. (target/io-cmd.c)
 */
void nvmf_io_retry_pending(struct nvmf_io_ctx *io);

/* Admin helpers shared with discovery (target/admin-cmd.c). */
/* nvmf_identify_ctrl_common - zero @id (4 KiB) and fill what both controller types report
 * the same way: SN/MN/FR, MDTS, CNTLID, VER, AERL, KAS, SGLS (keyed per transport), SUBNQN,
 * IOCCSZ/IORCSZ for admin-only capsules, MSDBD (NVMe Base 2.0 figure 276, NVMe-oF 1.1
 * section 4.1). Little endian on the wire. */
void nvmf_identify_ctrl_common(const struct nvmf_tgt_ctrl *ctrl, struct nvme_id_ctrl *id);
void nvmf_execute_keep_alive(struct nvmf_req *req);
void nvmf_execute_aer(struct nvmf_req *req);
/* nvmf_get_log_len - Get Log Page NUMD (cdw10/11) as bytes; LPO (cdw12/13) as offset. */
uint32_t nvmf_get_log_len(const struct nvme_sqe *cmd);
uint64_t nvmf_get_log_offset(const struct nvme_sqe *cmd);
/* nvmf_copy_log - copy @len bytes of a log at req's offset into req->data, zero filling
 * past the end of the log; fails with INVALID_FIELD when the offset is past the end. */
nvme_status_t nvmf_copy_log(struct nvmf_req *req, const void *log, size_t len);
/* nvmf_parse_get_log - Get Log Page checks common to all LIDs: LPO dword aligned and the
 * length within MDTS, else INVALID_FIELD; sets dir C2H and data_len. The LID is the
 * caller's. (NVMe Base 2.0 section 5.16) */
nvme_status_t nvmf_parse_get_log(struct nvmf_req *req);
/* nvmf_parse_features - Set/Get Features for either controller type (discovery: Keep
 * Alive Timer and Async Event Configuration only). SV -> FEATURE_NOT_SAVEABLE, unknown
 * FID -> INVALID_FIELD. (NVMe Base 2.0 sections 5.21, 5.27) */
nvme_status_t nvmf_parse_features(struct nvmf_req *req);
/* nvmf_parse_shared_admin_cmd - the admin commands both controller types take the same
 * way (Set/Get Features, Asynchronous Event Request, Keep Alive); INVALID_OPCODE for any
 * other opcode. */
nvme_status_t nvmf_parse_shared_admin_cmd(struct nvmf_req *req);
/* nvmf_tgt_ctrl_notify_ns_changed - namespace @nsid changed (attached, detached, resized):
 * add it to the Changed Namespace List log (04h) and, when enabled in the Async Event
 * Configuration and not masked, complete a parked AER with a Namespace Attribute
 * Changed notice (dword 0 = 0x00040002). Further notices wait until log 04h is read. */
void nvmf_tgt_ctrl_notify_ns_changed(struct nvmf_tgt_ctrl *ctrl, uint32_t nsid);
/* nvmf_tgt_ctrl_fail_aers - complete every parked AER with ABORT_REQ (controller reset or
 * shutdown while its queues can still send). A transport tearing queues down without
 * sending just sets ctrl->nr_aer = 0 and frees its requests itself. */
void nvmf_tgt_ctrl_fail_aers(struct nvmf_tgt_ctrl *ctrl);

#endif
