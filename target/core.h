/* SPDX-License-Identifier: MIT */
/*
 * The target core: the target context, controllers, queues and requests. It owns their
 * state, the poll groups that run them (target/poll-group.h) and the locking; transports
 * plug in through target/transport.h and never include this header: the queue and
 * request they share with the core are in target/queue.h.
 *
 * Request lifecycle (like nvmet): the transport receives a capsule and calls
 * nvmf_req_init(); the core decodes and validates the command (opcode, namespace, data
 * direction and length) and picks a handler. The transport then moves host data in
 * (RDMA READ or in-capsule) into req->data and calls nvmf_req_execute(). The handler
 * finishes with nvmf_req_complete(), which hands the request back to the transport
 * (ops->queue_response) to move data out (RDMA WRITE) and send the CQE.
 *
 * Ownership, instead of locks: controllers live on the main poll group (group 0, where
 * every admin queue is); a queue belongs to the group that serves it. A Connect on an I/O
 * queue of another group asks the main group by message to attach it, and the answer
 * comes back by message; so does the detach when the queue goes, and the main group's
 * requests to disconnect a queue. I/O commands read their controller (it outlives its
 * attached queues) and count into their own queue (summed when read); the error log has
 * a lock of its own.
 */
#ifndef NVMF_TARGET_CORE_H
#define NVMF_TARGET_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nvme/wire.h"
#include "subsystem/backend.h"
#include "subsystem/config.h"
#include "subsystem/subsystem.h"
#include "target/poll-group.h"
#include "target/queue.h"
#include "target/transport.h"
#include "util/clock.h"
#include "util/log.h"

#define NVMF_KAS               10 /* Keep Alive granularity: 100 ms units -> 1 s */
#define NVMF_AERL              3  /* 0's based: 4 outstanding AERs */
#define NVMF_ERROR_LOG_ENTRIES 64
#define NVMF_MAX_NSID          NVMF_SUBSYS_MAX_NSID
#define NVMF_CHANGED_NS_MAX    1024 /* Changed Namespace List: 1024 entries, 4 KiB */
#define NVMF_KATO_TICK_MS      100  /* keep-alive timers are checked this often */

struct nvmf_tgt;
struct nvmf_tgt_ctrl;
struct nvmf_sq;
struct nvmf_req;

/* One error log entry kept per controller (NVMe Base 5.16.1.2), host endian fields. */
struct nvmf_error_entry {
	uint64_t error_count;
	uint16_t sqid, cmdid, status; /* status without phase bit */
	uint16_t param_loc;
	uint64_t lba;
	uint32_t nsid;
};

/* Controller state (NVMe Base 3.1 / NVMe-oF dynamic controller model). Owned by its
 * admin queue's poll group (ctrl->pg, the main group); fields marked (atomic) are also
 * read or written by I/O groups. */
struct nvmf_tgt_ctrl {
	struct nvmf_tgt *tgt;
	struct nvmf_pg *pg; /* the owner */
	struct nvmf_subsys *subsys;
	struct nvmf_port *port;
	struct nvmf_transport *transport;
	uint16_t cntlid;
	uint64_t uid;         /* unique over the target's life */
	int64_t connected_at; /* wall clock (CLOCK_REALTIME) seconds of the Connect */
	char hostnqn[NVMF_CFG_NQN_MAX];
	uint8_t hostid[16];
	char peer[64];     /* the host's address (its admin queue's sq->peer) */
	uint32_t cc, csts; /* Controller Configuration / Status (atomic) */
	uint64_t cap;
	uint32_t kato_ms;            /* 0 = no keep-alive (never for a discovery
					    * controller after Connect: nvmf_target.discovery_kato) */
	uint64_t last_keep_alive_ms; /* tgt->now_ms of the last command (atomic) */
	uint16_t nr_io_queues;       /* granted by Set Features Number of Queues (1's based) */
	uint16_t queue_size;         /* I/O queue entries the port allows */
	struct nvmf_sq **sqs;        /* [0] admin, [1..max_qid] I/O; written on pg only */
	uint16_t max_qid;
	uint32_t inline_data_size; /* in-capsule bytes on I/O queues */
	uint32_t mdts;             /* log2(max transfer / 4 KiB) */
	uint32_t aen_cfg;          /* Async Event Configuration feature */
	uint32_t arbitration;      /* Arbitration feature (01h): AB, LPW, MPW, HPW as set */
	uint16_t temp_over;        /* Temperature Threshold (04h) of the Composite Temperature, */
	uint16_t temp_under;       /* Kelvin: over and under (target/features.c) */
	uint16_t tler;             /* Error Recovery (05h): TLER, 100 ms units */
	bool write_atomic_dn;      /* Write Atomicity Normal (0Ah): DN */
	struct nvmf_req *aer[NVMF_AERL + 1];
	unsigned nr_aer;
	uint32_t aen_masked;  /* 1 << enum nvmf_aen_kind (target/admin.h): kinds
					    * reported, waiting for their log to be read */
	uint32_t pending_aen; /* 1 << kind: events waiting for an AER */
	uint32_t changed_ns[NVMF_CHANGED_NS_MAX];
	unsigned nr_changed_ns;     /* > NVMF_CHANGED_NS_MAX means overflow */
	pthread_mutex_t error_lock; /* errors[]: failed commands of every group */
	struct nvmf_error_entry errors[NVMF_ERROR_LOG_ENTRIES];
	uint64_t error_count;
	bool vwc_enabled;             /* Volatile Write Cache feature (atomic) */
	struct nvmf_io_stats io_done; /* SMART counters of its queues that are gone
					    * (folded in at their detach; the live ones count in
					    * their own sq->io_stats): nvmf_tgt_ctrl_io_stats sums */
	bool deleting;
	uint8_t resv_access[NVMF_MAX_NSID + 1]; /* by nsid: what a reservation denies this
					    * controller's host, and the namespace's epoch
					    * (target/resv.h; written by the main group, read by
					    * I/O groups: atomic) */
	struct nvmf_ctrl_resv *resv;            /* notification mask and log (target/resv.h) */
	struct nvmf_host_auth *auth;            /* its host's DH-HMAC-CHAP keys: a refcounted copy,
					    * read-only, replaced when the table changes; under
					    * auth_lock (target/auth.c); NULL: no authentication */
	pthread_mutex_t auth_lock;
	uint64_t auth_deadline_ms;      /* the admin queue must be authenticated by then */
	uint64_t auth_fail_deadline_ms; /* a queue's authentication failed: the keep-alive
					    * tick ends the association then (atomic, 0 none) */
	struct nvmf_tgt_ctrl *next;     /* in tgt->ctrls */
};

/* The target-wide context: everything the daemon holds, nothing global outside it. */
struct nvmf_tgt {
	struct nvmf_config *cfg;
	struct nvmf_subsys *disc; /* the discovery subsystem */
	struct nvmf_subsys **subsys;
	size_t n_subsys;
	struct nvmf_port **ports; /* ports served (live ones; retired ones are in
					    * retired_ports), each allocated on its own */
	size_t n_ports;
	struct nvmf_port **retired_ports; /* removed live, freed by nvmf_tgt_fini */
	size_t n_retired_ports;
	struct nvmf_subsys **retired_subsys; /* removed live, freed by nvmf_tgt_fini */
	size_t n_retired_subsys;
	uint32_t mdts;               /* resolved at start: the largest of nvmf_target.mdts and
					    * the ports' param.mdts, bounded by every transport; the
					    * transports size their data buffers by it */
	struct nvmf_tgt_ctrl *ctrls; /* live controllers (main group) */
	uint64_t next_ctrl_uid;
	uint64_t disc_genctr; /* discovery log generation counter */
	struct nvmf_pg **pgs; /* [0] the main group, then the I/O groups */
	unsigned npgs;
	struct nvmf_transport *transports[NVMF_MAX_TRANSPORTS];
	unsigned ntransports;
	struct nvmf_timer kato_timer;
	struct nvmf_ns_drain *ns_drains; /* namespaces taken away, not closed yet (main group) */
	struct nvmf_timer drain_timer;   /* checks them while there are any */
	bool drain_timer_on;
	struct nvmf_timer watch_timer; /* acts on backends' change notices (an rbd image
					  * resized elsewhere) once any namespace listens */
	bool watch_timer_on;
	bool ns_opened_later;             /* a reload is adding: nvmf_tgt_ns_opened waits
					    * for its end, so a file it created (nvmf_create)
					    * is deleted, unrecorded, if it is refused */
	bool ns_discarding;               /* a refused reload is undoing what it added: the
					    * namespaces taken away meanwhile were only staged
					    * (control/reload.c; their close is logged so) */
	const char *ephemeral_range_path; /* the kernel's ephemeral port range; NULL:
					    * /proc/sys/net/ipv4/ip_local_port_range (tests
					    * set a file; target/ephemeral.h) */
	struct nvmf_clock clock;          /* the target's clock in ms (timers, keep-alive, the
					    * RDMA transport's teardown); zeroed: the monotonic
					    * clock, tests set now_ms (util/clock.h) */
	struct nvmf_logger log;           /* each component's level (target/log.h): after
					    * nvmf_tgt_init the config's nvmf_target.log_level,
					    * the others at its log_level_base (else info) */
	bool started;                     /* nvmf_tgt_start succeeded: shutdown reports the
					    * groups' statistics. A start that failed has none to
					    * give; a program whose own start-up fails after it
					    * (the daemon's control socket) clears it */
	bool stopping;                    /* nvmf_tgt_shutdown began: queues made from now on
					    * start quiescing (atomic) */
	struct nvmf_host_auth *host_auth; /* hosts' DH-HMAC-CHAP keys (main group;
					    * nvmf_tgt_host_auth_set, target/auth.h) */
	uint64_t ana_chgcnt;              /* ANA log change count, and each group's */
	uint64_t ana_grp_chgcnt[NVMF_MAX_ANAGRPID + 1]; /* descriptor's (main group, target/ana.h) */
	struct nvmf_resv_store *resv_store;             /* the reservations' state file (main group;
					    * nvmf_tgt_resv_open, target/resv.h); NULL: none */
	struct nvmf_created *created; /* the record of the backing files this target
					    * created (subsystem/created.h; the program's, set
					    * after nvmf_tgt_init); NULL: none kept */
	uint64_t unlink_check_ms;     /* when backing files were last checked for deletion
					    * (nvmf_tgt_ns_check_unlinked) */
	/* How a passthru subsystem opens its drive (target/passthru.h): NULL is
	 * nvmf_drive_open (subsystem/nvme-drive.h); tests give an in-memory one
	 * (nvmf_tgt_init_drives). */
	struct nvmf_drive *(*drive_open)(const char *path, char *err, size_t errlen);
};

/* nvmf_tgt_main_pg - the main poll group (controllers, admin queues, listeners). */
static inline struct nvmf_pg *nvmf_tgt_main_pg(const struct nvmf_tgt *tgt)
{
	return tgt->pgs[0];
}

/* ---- the target (target/target.c) ---- */

/*
 * nvmf_tgt_init - set the log's levels before anything logs (with
 * cfg->target.log_level_base_set: nvmf_target.log_level, the others at log_level_base;
 * else every component at info), then build the model from
 * a validated @cfg (subsystems, namespaces with
 * backends opened, ports), resolve every limit once (MDTS bounded by the transports' max
 * transfer; each port's queue and in-capsule sizes by its transport: nvmf_port_resolve),
 * make the poll groups (the main group, plus nvmf_target.threads I/O groups when that is
 * above 1; not started) and create the transports from @ops (@nops tables), each with
 * its part of every group: those the ports name must start (a port whose trtype none of
 * them has, or whose transport fails to start, is an error: "port 3 (rdma
 * 10.0.0.1:4420): the rdma transport cannot start: ..."); the others are started when
 * they can, for ports added live, and one that cannot is logged at info level. Nothing
 * listens yet. Returns 0, or -1 with @err naming what failed; everything made so far is
 * undone, silently.
 */
int nvmf_tgt_init(struct nvmf_tgt *tgt, struct nvmf_config *cfg,
		  const struct nvmf_transport_ops *const *ops, unsigned nops, char *err,
		  size_t errlen);
/* nvmf_tgt_init_drives - nvmf_tgt_init with passthru subsystems opening their drives
 * through @drive_open (kept in tgt->drive_open; NULL: nvmf_drive_open): the tests' in-memory
 * drive. */
int nvmf_tgt_init_drives(struct nvmf_tgt *tgt, struct nvmf_config *cfg,
			 const struct nvmf_transport_ops *const *ops, unsigned nops,
			 struct nvmf_drive *(*drive_open)(const char *path, char *err,
							  size_t errlen),
			 char *err, size_t errlen);
/* nvmf_tgt_transport_opts - the limits transport @ops serves under on @tgt (its ports
 * resolved, MDTS bounded): what nvmf_tgt_init hands its create; tests that create a
 * transport themselves call it too. */
void nvmf_tgt_transport_opts(const struct nvmf_tgt *tgt, const struct nvmf_transport_ops *ops,
			     struct nvmf_transport_opts *out);
/* nvmf_tgt_listen - every port listens on its transport. 0, or -1 with @err
 * ("port 1: rdma_bind_addr 1.2.3.4:4420: Cannot assign requested address"). */
int nvmf_tgt_listen(struct nvmf_tgt *tgt, char *err, size_t errlen);
/* nvmf_tgt_start - start the I/O groups' threads, pinned to the CPUs of NUMA node
 * nvmf_target.numa_node, or when that is -1 of the first transport's devices (not pinned
 * when unknown). 0, or -1 with @err (a node the machine lacks, a thread that failed). */
int nvmf_tgt_start(struct nvmf_tgt *tgt, char *err, size_t errlen);
/* nvmf_tgt_shutdown - stop listening, disconnect every queue, let the groups run until
 * every queue is released or @timeout_ms passed (the caller's thread runs every group
 * that has no thread of its own: the main group unless the embedding program started
 * it with nvmf_pg_start), stop the threads, destroy the transports and groups. A group whose queues are
 * still busy is left allocated (an I/O may still complete into its memory), with a log
 * line. Safe on a target that never started. */
void nvmf_tgt_shutdown(struct nvmf_tgt *tgt, int timeout_ms);
/* nvmf_tgt_fini - free the model (backends closed and flushed); after shutdown. */
void nvmf_tgt_fini(struct nvmf_tgt *tgt);
/* nvmf_tgt_port_build - a port as @pc describes it (copied), exposing the subsystems it
 * names (found by NQN among tgt->subsys); not listening, not in tgt->ports. NULL with
 * @err naming an unknown subsystem, or out of memory. */
struct nvmf_port *nvmf_tgt_port_build(struct nvmf_tgt *tgt, const struct nvmf_port_config *pc,
				      char *err, size_t errlen);
/* nvmf_tgt_port_mdts - the MDTS (log2 of the max transfer / 4 KiB) of the controllers of
 * a port configured as @pc: its param.mdts, else nvmf_target.mdts, within tgt->mdts
 * (resolved at start, nvmf_tgt_init). */
uint32_t nvmf_tgt_port_mdts(const struct nvmf_tgt *tgt, const struct nvmf_port_config *pc);
/* nvmf_tgt_find_port - the port @portid among tgt->ports, or NULL. */
struct nvmf_port *nvmf_tgt_find_port(struct nvmf_tgt *tgt, uint16_t portid);
/* nvmf_tgt_find_subsys - the subsystem (or discovery) named @nqn, or NULL. */
struct nvmf_subsys *nvmf_tgt_find_subsys(struct nvmf_tgt *tgt, const char *nqn);
/* nvmf_tgt_now_ms - the target's clock in ms: tgt->clock (util/clock.h). Poll
 * groups read it once per pass (pg->now_ms). */
uint64_t nvmf_tgt_now_ms(const struct nvmf_tgt *tgt);
/* nvmf_tgt_live_queues - queues placed on every group and not yet released (any thread). */
unsigned nvmf_tgt_live_queues(const struct nvmf_tgt *tgt);

/* ---- requests (target/core.c) ---- */

/*
 * nvmf_req_hold_ns - @req works on @ns until it is answered: counted in the namespace's
 * in-flight commands of the request's poll group, so a namespace being removed is closed
 * only after its last command (target/namespace.c). Released, with the command counted
 * in the namespace's statistics, by nvmf_req_complete / nvmf_req_abandon, or earlier by
 * nvmf_req_release_ns.
 */
void nvmf_req_hold_ns(struct nvmf_req *req, struct nvmf_ns *ns);
/* nvmf_req_hold_ns_access - the same, where the caller already read the controller's
 * reservation access byte of @ns (target/resv.h): the command counts under its epoch. */
void nvmf_req_hold_ns_access(struct nvmf_req *req, struct nvmf_ns *ns, uint8_t access);
/* nvmf_req_release_ns - the end of nvmf_req_hold_ns, counting @status (no-op unheld). */
void nvmf_req_release_ns(struct nvmf_req *req, nvme_status_t status);

/* nvmf_req_bio_submit - describe req->bio (@op on @len bytes at byte @offset of req->ns,
 * @buf for a READ or WRITE, @done to run with req->bio.ctx = @req) and hand it to the
 * namespace's backend on the I/O context of the queue's poll group. Returns true when
 * @done will run (maybe already has: a backend error, -EINVAL for I/O outside the
 * namespace, included); false when the ring was full and the request waits on the
 * group's retry list. (target/io-cmd.c) */
bool nvmf_req_bio_submit(struct nvmf_req *req, enum nvmf_bdev_op op, uint64_t offset, uint64_t len,
			 void *buf, nvmf_bdev_done_fn done);

/* ---- controllers (target/ctrl.c) ---- */

/* nvmf_tgt_ctrl_alloc - a controller of @s for @hostnqn on @port, owned by @pg: the next
 * free cntlid in [cntlid_min, cntlid_max]; limits from the port; keep-alive timeout
 * @kato_ms (the Connect's KATO; 0 on a discovery subsystem becomes the config's
 * nvmf_target.discovery_kato, 120 s by default as nvmet's NVMET_DISC_KATO_MS: a host that
 * went away without a word does not hold its discovery controller forever, NVMe Base
 * 2.1 section 3.9).
 * NULL when none is free or out of memory. */
struct nvmf_tgt_ctrl *nvmf_tgt_ctrl_alloc(struct nvmf_tgt *tgt, struct nvmf_pg *pg,
					  struct nvmf_subsys *s, struct nvmf_port *port,
					  struct nvmf_transport *transport, const char *hostnqn,
					  const uint8_t hostid[16], uint32_t kato_ms);
/* nvmf_tgt_ctrl_find - the live controller @cntlid of subsystem @subnqn, or NULL. */
struct nvmf_tgt_ctrl *nvmf_tgt_ctrl_find(struct nvmf_tgt *tgt, const char *subnqn, uint16_t cntlid);
/* nvmf_tgt_ctrl_attach - on ctrl->pg: @sq becomes queue @qid of @ctrl (Connect). */
void nvmf_tgt_ctrl_attach(struct nvmf_tgt_ctrl *ctrl, struct nvmf_sq *sq, uint16_t qid);
/* nvmf_tgt_ctrl_detach - on ctrl->pg: @sq is gone. The association ends with its admin
 * queue (the others are disconnected); the controller is freed with its last queue. */
void nvmf_tgt_ctrl_detach(struct nvmf_tgt_ctrl *ctrl, struct nvmf_sq *sq);
/* nvmf_tgt_ctrl_io_stats - on ctrl->pg: @ctrl's SMART I/O counters in *@out, those of
 * its queues gone and those of its attached queues (read while their groups count). */
void nvmf_tgt_ctrl_io_stats(const struct nvmf_tgt_ctrl *ctrl, struct nvmf_io_stats *out);
/* nvmf_tgt_ctrl_delete - on ctrl->pg: disconnect every queue of @ctrl (each on its own
 * group, by message); it is freed when the last one has been released. Idempotent. */
void nvmf_tgt_ctrl_delete(struct nvmf_tgt_ctrl *ctrl);
/* nvmf_tgt_ctrl_fatal - CSTS.CFS and tear the association down. */
void nvmf_tgt_ctrl_fatal(struct nvmf_tgt_ctrl *ctrl);
/* nvmf_tgt_ctrl_prop_get / set: property space access (NVMe-oF 1.1 sections 3.3/3.4).
 * Set of CC.SHN is asynchronous (the backends are flushed): @req is then completed by
 * the core when the shutdown is done, and set returns NVMF_PROP_PENDING. */
#define NVMF_PROP_PENDING 0xffffu
nvme_status_t nvmf_tgt_ctrl_prop_get(struct nvmf_tgt_ctrl *ctrl, uint32_t off, bool size8,
				     uint64_t *val);
nvme_status_t nvmf_tgt_ctrl_prop_set(struct nvmf_tgt_ctrl *ctrl, struct nvmf_req *req, uint32_t off,
				     bool size8, uint64_t val);
/* nvmf_tgt_ctrl_add_error - record a failed command in the error log (any group). */
void nvmf_tgt_ctrl_add_error(struct nvmf_tgt_ctrl *ctrl, struct nvmf_req *req, nvme_status_t st);
/* nvmf_tgt_ctrl_ready - CC.EN = 1 and CSTS.RDY = 1 (I/O and most admin need it; any group). */
bool nvmf_tgt_ctrl_ready(const struct nvmf_tgt_ctrl *ctrl);
/* nvmf_tgt_check_keep_alive - the keep-alive timer (every NVMF_KATO_TICK_MS on the main
 * group): tear down controllers whose KATO expired (NVMe Base 3.9). */
void nvmf_tgt_check_keep_alive(struct nvmf_tgt *tgt);

/* ---- command parsers: set execute/dir/data_len or return a status ---- */
nvme_status_t nvmf_parse_fabrics_cmd(struct nvmf_req *req);   /* target/fabrics-cmd.c */
nvme_status_t nvmf_parse_connect_cmd(struct nvmf_req *req);   /* before the queue is connected */
nvme_status_t nvmf_parse_admin_cmd(struct nvmf_req *req);     /* target/admin-cmd.c */
nvme_status_t nvmf_parse_discovery_cmd(struct nvmf_req *req); /* target/discovery.c */
nvme_status_t nvmf_parse_io_cmd(struct nvmf_req *req);        /* target/io-cmd.c */

/* What target/caw.c borrows of target/io-cmd.c's handlers: the status of backend
 * error @err (-errno) of @io, logged as the others; whether a write of @req must be
 * flushed (FUA, or the host turned the volatile cache off); the SMART counters of a
 * completed Read/Compare/Write @req. */
nvme_status_t nvmf_io_backend_status(struct nvmf_req *req, const struct nvmf_bdev_io *io, int err,
				     bool is_write);
bool nvmf_io_needs_flush(const struct nvmf_req *req);
void nvmf_io_count(struct nvmf_req *req);

/* ---- fused Compare and Write (target/caw.c; NVMe Base 2.0 "Fused Operations", NVM
 * Command Set 1.0 section 3.2.1.1) ---- */

/*
 * nvmf_fused_arrive - in nvmf_req_init, before parsing @req: pair it with the queue's
 * waiting first half by SQ order. A waiting first that @req does not complete is
 * answered Command Aborted due to Missing Fused Command (when its data is in). Returns
 * 0 (go on parsing), or @req's own status: Invalid Field | DNR for FUSE 11b, a fused
 * command on the admin queue, a first that is not Compare or a second that is not
 * Write; Missing Fused Command for a lone second, Failed Fused Command when the first
 * before it failed (no DNR: the host resends the pair).
 */
nvme_status_t nvmf_fused_arrive(struct nvmf_req *req);
/*
 * nvmf_fused_parsed - after parsing fused half @req with status @st: a first waits for
 * its second; a second is checked against its first (same NSID, SLBA and NLB, else
 * Invalid Field for both) and linked. A refused half fails its partner (Failed Fused
 * Command). Returns @req's status (0: it executes through target/caw.c).
 */
nvme_status_t nvmf_fused_parsed(struct nvmf_req *req, nvme_status_t st);
/* nvmf_fused_settle - answer fused half @req with @st now if its data is in, else at its
 * execute. @req has no partner linked. */
void nvmf_fused_settle(struct nvmf_req *req, nvme_status_t st);
/* nvmf_fused_fail - fused half @req fails with @st before its pair ran (a bad SGL): its
 * partner gets Failed Fused Command, a second not yet arrived too. */
void nvmf_fused_fail(struct nvmf_req *req, nvme_status_t st);
/* nvmf_fused_abandon - fused half @req is abandoned (its queue died before it
 * executed): its partner is answered Command Abort Requested. */
void nvmf_fused_abandon(struct nvmf_req *req);

/*
 * nvmf_io_retry_pending - resubmit, oldest first, the backend I/O of requests parked on
 * @io's retry list because the backend's ring was full (-EAGAIN). Stops at the first that
 * is refused again (it stays queued, order kept). The poll group calls this once per
 * pass, after nvmf_aio_flush()/nvmf_aio_poll() made room. (target/io-cmd.c)
 */
void nvmf_io_retry_pending(struct nvmf_io_ctx *io);

/* Asynchronous events a controller's host hears of (target/aen.c; the rest of the admin
 * command set is in target/admin.h). */
/* nvmf_tgt_ctrl_notify_ns_changed - namespace @nsid changed (attached, detached, resized):
 * add it to the Changed Namespace List log (04h) and, when enabled in the Async Event
 * Configuration and not masked, complete a parked AER with a Namespace Attribute
 * Changed notice (dword 0 = 0x00040002). Further notices wait until log 04h is read. */
void nvmf_tgt_ctrl_notify_ns_changed(struct nvmf_tgt_ctrl *ctrl, uint32_t nsid);
/* nvmf_tgt_ctrl_notify_disc_changed - the discovery log @ctrl (a discovery controller)
 * reports has changed: when the host enabled it (AEC bit 31) and it is not masked,
 * complete a parked AER with a Discovery Log Page Change notice (dword 0 0x0070f002);
 * further notices wait until the host reads log 70h with RAE clear
 * (nvmf_tgt_ctrl_disc_log_read). NVMe-oF 1.1 section 5.3. */
void nvmf_tgt_ctrl_notify_disc_changed(struct nvmf_tgt_ctrl *ctrl);
void nvmf_tgt_ctrl_disc_log_read(struct nvmf_tgt_ctrl *ctrl);
/* nvmf_tgt_disc_changed - what some host may discover changed (a subsystem, a port's
 * subsystems, an allowed host): the generation counter moves on and every discovery
 * controller hears of it. On the main group. (target/discovery.c) */
void nvmf_tgt_disc_changed(struct nvmf_tgt *tgt);
/* nvmf_tgt_ctrl_fail_aers - complete every parked AER of @ctrl with @status (ABORT_REQ on
 * a controller reset; ABORT_QUEUE when the admin queue goes: the transport drops those). */
void nvmf_tgt_ctrl_fail_aers(struct nvmf_tgt_ctrl *ctrl, nvme_status_t status);

/* nvmf_sq_tls - whether @sq's connection runs in a TLS secure channel (its transport's
 * tls_peer; NVMe/TCP transport spec section 3.6). For the controller list. */
bool nvmf_sq_tls(const struct nvmf_sq *sq);

#endif
