/* SPDX-License-Identifier: MIT */
/*
 * The transport interface of the target: the one ops table through which a transport
 * (RDMA in rdma/target/, the in-process loop in loop/target/transport.c) plugs into the core, and
 * the core functions a transport calls. The core never calls verbs or sockets; a
 * transport never edits the core's state (controllers, queues, AERs): it reports events
 * and the core decides.
 *
 * A transport includes this header and no other of the core's: it gets here the queue
 * and request it shares with the core (target/queue.h), the poll groups it runs on
 * (target/poll-group.h: messages, timers, wait descriptors), the target's log
 * (target/log.h) and the USDT probes it fires (target/probes.h). The target, its ports
 * and its configuration are opaque to it: its limits come resolved (struct
 * nvmf_transport_opts, nvmf_port_attrs) and it asks the core the rest through the calls
 * below (scripts/check-includes keeps it so).
 *
 * Like nvmet's struct nvmet_fabrics_ops (add_port/remove_port, queue_response,
 * delete_ctrl, disc_traddr, get_mdts, get_max_queue_size) plus SPDK's transport poll
 * groups (poll_group_create/add/poll).
 *
 * Queue lifecycle, from the transport's side (every call on the queue's group thread):
 *   accept a connection -> nvmf_tgt_new_queue(): the core picks the group (admin queues
 *     the main group, I/O queues the least loaded I/O group) and calls pg_add_queue there
 *   pg_add_queue creates the transport queue and calls nvmf_sq_init()
 *   each capsule: nvmf_req_init(); then, unless it already answered, move host data in
 *     and nvmf_req_execute(), or nvmf_req_abandon() if the queue died first; the core
 *     answers through queue_response()
 *   target stopping: nvmf_sq_accepting() turns false; new capsules are dropped, the core
 *     waits until every started command was answered and no queue_busy() is left (or a
 *     bound passed), then asks each queue to disconnect
 *   connection lost, or the core asked (disconnect_queue) -> nvmf_sq_destroy(): no
 *     further nvmf_req_init() on it; the core drains the queue's commands (parked AERs are
 *     completed with Aborted - SQ Deletion; responses on a dying queue are dropped by the
 *     transport), detaches it from its controller and calls queue_released(): from then
 *     on the transport may free the queue.
 */
#ifndef NVMF_TARGET_TRANSPORT_H
#define NVMF_TARGET_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "target/log.h"
#include "target/poll-group.h"
#include "target/probes.h" /* the connection probes a transport fires */
#include "target/queue.h"
#include "nvme/tls-psk.h"
#include "nvme/wire.h"

struct nvmf_tgt;
struct nvmf_pg;
struct nvmf_port;
struct nvmf_sq;
struct nvmf_req;
struct nvmf_transport;

/* A transport's part of one poll group; embedded first in the transport's own struct. */
struct nvmf_tpg {
	struct nvmf_transport *transport;
	struct nvmf_pg *pg;
};

/* What a transport's part of one poll group holds, for statistics and leak checks
 * (counts, host endian). */
struct nvmf_tpg_stats {
	uint32_t queues;      /* queues of the group, dying ones included */
	uint32_t dying;       /* torn down, not freed yet */
	uint32_t recv_posted; /* receives posted on its shared receive queues */
	uint32_t recv_depth;  /* their size: posted < depth while idle is a leak */
	uint32_t bufs_held;   /* data buffers its requests hold (0 when idle) */
};

/*
 * The limits a transport serves under, resolved once by the core from the configuration
 * and every transport's own bounds (ops->max_*) before ops->create, handed to it and kept
 * in struct nvmf_transport (as SPDK's spdk_nvmf_transport_opts, nvmet's per-port values),
 * so that a transport reads no configuration or target state. Host endian.
 */
struct nvmf_transport_opts {
	uint32_t max_xfer;        /* bytes one command may move: 4096 << the target's
					   * MDTS (Identify Controller, NVMe Base 2.0 figure 275;
					   * 4 KiB pages), within every transport's max_xfer */
	unsigned nports;          /* ports of this transport when the target starts */
	uint32_t max_port_inline; /* in-capsule bytes on I/O queues: the largest of
					   * those ports' resolved sizes; 0 when nports is 0 */
	bool srq;                 /* shared receive queues (nvmf_target.srq; RDMA) */
	uint32_t srq_depth;       /* receives of each (nvmf_target.srq_depth) */
	uint32_t buffers_small;   /* data buffers per device, small and large
					   * (nvmf_target.buffers_small/_large; RDMA) */
	uint32_t buffers_large;
	bool hugepages;                 /* data buffers on huge pages when it can
					   * (nvmf_target.hugepages; RDMA) */
	int post_thread;                /* large send chains posted by a thread of each
					   * poll group (nvmf_target.post_thread; RDMA): -1
					   * on software devices only, 0 never, 1 always */
	const struct nvmf_clock *clock; /* the target's clock (tgt->clock, which tests
					   * drive): every timeout a transport keeps reads it */
};

struct nvmf_transport_ops {
	const char *name; /* the config's trtype: "rdma", "loop" */
	uint8_t trtype;   /* NVMF_TRTYPE_*, for the discovery log */
	/* Limits (NVMe-oF 1.1 section 4.1, Identify): the core clamps the configuration to
	 * them once (nvmf_port_resolve, target MDTS). */
	uint8_t msdbd;           /* SGL data block descriptors per command (1) */
	bool keyed_sgl;          /* Identify SGLS bit 2 */
	uint32_t max_queue_size; /* I/O queue entries, 1's based */
	uint32_t max_inline;     /* in-capsule data bytes on I/O queues */
	uint32_t max_xfer;       /* bytes one command may move (bounds MDTS) */

	/* create - the transport for @tgt under @opts (ports and limits resolved, poll
	 * groups made; the core keeps a copy in t->opts after). NULL with @err set.
	 * destroy - free it after every pg_destroy. */
	struct nvmf_transport *(*create)(struct nvmf_tgt *tgt,
					 const struct nvmf_transport_opts *opts, char *err,
					 size_t errlen);
	void (*destroy)(struct nvmf_transport *t);
	/* listen - start accepting on @port (main group thread). 0, or -1 with @err naming
	 * the address and the reason. stop_listen - stop accepting (no-op if not listening). */
	int (*listen)(struct nvmf_transport *t, struct nvmf_port *port, char *err, size_t errlen);
	void (*stop_listen)(struct nvmf_transport *t, struct nvmf_port *port);
	/* numa_node - the NUMA node of the transport's devices (where the core pins I/O
	 * groups), -1 unknown. May be NULL. */
	int (*numa_node)(struct nvmf_transport *t);

	/* Poll groups. pg_create runs before the group's thread starts; every other call
	 * runs on the group's thread. */
	struct nvmf_tpg *(*pg_create)(struct nvmf_transport *t, struct nvmf_pg *pg, char *err,
				      size_t errlen);
	void (*pg_destroy)(struct nvmf_tpg *tpg);
	/* pg_add_queue - take the new connection @conn (what the transport passed to
	 * nvmf_tgt_new_queue) into this group: create the queue, nvmf_sq_init(), accept.
	 * Returns 0, or -1 when it was rejected (the transport told the host). */
	int (*pg_add_queue)(struct nvmf_tpg *tpg, void *conn);
	/* pg_poll - handle what arrived (completions, connection events). Returns work done. */
	int (*pg_poll)(struct nvmf_tpg *tpg);
	/* pg_flush - post what this pass produced (responses, transfers, receives). */
	void (*pg_flush)(struct nvmf_tpg *tpg);
	/* pg_arm - before the group sleeps: ask for an event on the wait descriptors it
	 * added (nvmf_pg_add_wait_fd) when new work arrives. pg_woken - after the sleep:
	 * acknowledge those events. Either may be NULL. */
	void (*pg_arm)(struct nvmf_tpg *tpg);
	void (*pg_woken)(struct nvmf_tpg *tpg);
	/* pg_idle - nothing of a queue is left in this part (a released queue may wait for
	 * its transfers to flush before it is freed); pg_destroy waits for it. NULL: always. */
	bool (*pg_idle)(struct nvmf_tpg *tpg);
	/* pg_stats - fill @out from what the group published at the end of its last pass;
	 * any thread. NULL: nothing to report. */
	void (*pg_stats)(const struct nvmf_tpg *tpg, struct nvmf_tpg_stats *out);

	/* queue_response - send the CQE of @req (data first for a successful C2H command);
	 * on a dying queue, drop it. The transport owns the request again, and may release
	 * it before returning (NVMe/TCP sends at once when much is queued): the core does
	 * not touch @req after this call. When
	 * req->cqe_optional is set (the queue disabled SQ flow control, status 0, DW0/DW1 0)
	 * a transport that can say "success" another way may leave the CQE unsent (NVMe/TCP:
	 * the C2HData SUCCESS flag). */
	void (*queue_response)(struct nvmf_req *req);
	/* queue_busy - answers of @sq (CQEs, read data) are still waiting to be sent or sent
	 * and not delivered (RDMA: SEND not completed; TCP: bytes not acknowledged by the
	 * host). Shutdown waits (bounded) for it to be false before disconnecting, so an
	 * answer the core gave reaches the host. NULL: answers leave in queue_response. */
	bool (*queue_busy)(const struct nvmf_sq *sq);
	/* disconnect_queue - tear the connection of @sq down (controller deleted, keep-alive
	 * expiry, shutdown); the transport then calls nvmf_sq_destroy(). Idempotent. */
	void (*disconnect_queue)(struct nvmf_sq *sq);
	/* queue_released - the core is done with @sq (see the lifecycle above). */
	void (*queue_released)(struct nvmf_sq *sq);

	/* local_addr - the local address (family, IP, port) the connection of @sq, one of
	 * this transport's own queues, arrived at: the discovery log's TRADDR for a port
	 * listening on a wildcard address (nvmet's disc_traddr). The core builds every other
	 * field of the entry itself, TSAS by the transport type (nvme/disc_trtype.h).
	 * Returns 0 with @out filled, or -ENOTCONN when the address is unknown. NULL: never
	 * known (a wildcard port is then left out of the log). */
	int (*local_addr)(const struct nvmf_sq *sq, struct sockaddr_storage *out);
	/* tls_peer - whether the connection of @sq runs in a TLS secure channel (NVMe/TCP
	 * transport spec section 3.6), and then the host and subsystem NQNs of the PSK
	 * identity its handshake used (*@hostnqn, *@subnqn: NUL terminated, the transport's,
	 * valid while the queue is). The core refuses a Connect naming other NQNs: a PSK
	 * admits its own host to its own subsystem only. NULL: never TLS. */
	bool (*tls_peer)(const struct nvmf_sq *sq, const char **hostnqn, const char **subnqn);
};

/* A transport instance: embedded first in the transport's own struct. */
struct nvmf_transport {
	const struct nvmf_transport_ops *ops;
	struct nvmf_tgt *tgt;
	unsigned index;                  /* in tgt->transports[]: pg->tpg[index] is ours */
	struct nvmf_transport_opts opts; /* what create was given */
	uint32_t live_max_inline;        /* in-capsule bytes a port added while the target
					   * runs may take (buffers already sized); set by create */
};

/*
 * What a transport knows of one of its ports: its address and its limits, resolved by the
 * core from the configuration and the transport's bounds (nvmf_port_resolve), host
 * endian. The strings are the port's own and live as long as it does.
 */
struct nvmf_port_attrs {
	uint16_t portid;             /* the config's port ID (for messages) */
	const char *trtype;          /* "rdma", "tcp", "loop" */
	int adrfam;                  /* AF_INET or AF_INET6 */
	const char *traddr;          /* numeric; "" or 0.0.0.0 / :: listens on any */
	const char *trsvcid;         /* decimal port; "" the transport's default */
	uint16_t admin_queue_size;   /* admin queue entries, 1's based (32) */
	uint16_t queue_size;         /* I/O queue entries, 1's based (CAP.MQES + 1) */
	uint16_t max_qid;            /* highest I/O qid any subsystem here allows */
	uint32_t inline_size;        /* in-capsule data bytes on I/O queues; 0 none */
	uint32_t maxh2cdata;         /* NVMe/TCP: bytes one H2CData PDU may carry (ICResp
					   * MAXH2CDATA), the default applied */
	uint32_t zerocopy_threshold; /* NVMe/TCP: bytes from which C2HData payloads are
					   * sent with MSG_ZEROCOPY; 0 never */
	uint8_t tls;                 /* NVMe/TCP secure channel (addr.tsas, addr.treq):
					   * NVMF_PORT_TLS_OFF plain only, _REQUIRED TLS 1.3
					   * only, _OPTIONAL the host chooses */
};

enum { NVMF_PORT_TLS_OFF = 0, NVMF_PORT_TLS_REQUIRED = 1, NVMF_PORT_TLS_OPTIONAL = 2 };

/* nvmf_port_attrs - @port's address and limits into @out. */
void nvmf_port_attrs(const struct nvmf_port *port, struct nvmf_port_attrs *out);
/* nvmf_transport_tls_psk - the configured TLS PSK of host @hostnqn (hosts[].nvmf_tls_key
 * or nvmf_tls_key_file of the running configuration) into @out, which the caller zeroes
 * after use, and into *@compat its hosts[].nvmf_tls_key_compat (version 0 identities in
 * libnvme's compat layout: nvme_tls_psk_derive_target's @compat_v0). On the main group
 * (where connections are accepted and their handshakes run). Returns 0, or -ENOKEY when
 * the host has none. */
int nvmf_transport_tls_psk(const struct nvmf_transport *t, const char *hostnqn,
			   struct nvme_tls_psk *out, bool *compat);

/* nvmf_port_priv / nvmf_port_set_priv - the transport's own pointer for @port (its
 * listener), NULL until set. On the main group. */
void *nvmf_port_priv(const struct nvmf_port *port);
void nvmf_port_set_priv(struct nvmf_port *port, void *priv);
/* nvmf_port_transport - the transport serving @port (NULL: none of this target's). */
struct nvmf_transport *nvmf_port_transport(const struct nvmf_port *port);

/* nvmf_sq_cntlid - the controller ID @sq is a queue of (for messages); 0 before its
 * Connect succeeded. */
uint16_t nvmf_sq_cntlid(const struct nvmf_sq *sq);

/* nvmf_transport_main_pg - the main poll group of @t's target (controllers, admin
 * queues, listeners: where a transport's connection events are read).
 * nvmf_transport_npgs - how many groups the target has, the main one included. */
struct nvmf_pg *nvmf_transport_main_pg(const struct nvmf_transport *t);
unsigned nvmf_transport_npgs(const struct nvmf_transport *t);
/* nvmf_transport_pg - group @i of @t's target, 0 the main one; @i < npgs. */
struct nvmf_pg *nvmf_transport_pg(const struct nvmf_transport *t, unsigned i);
/* nvmf_transport_nports / nvmf_transport_port - the target's live ports, every
 * transport's (nvmf_port_transport tells whose), @i < nports. The main group changes
 * them: a caller elsewhere keeps its own lock against its listen/stop_listen (the loop's
 * host half). */
size_t nvmf_transport_nports(const struct nvmf_transport *t);
struct nvmf_port *nvmf_transport_port(const struct nvmf_transport *t, size_t i);
/* nvmf_tgt_ntransports / nvmf_tgt_transport - the transports @tgt runs, @i < ntransports
 * (an embedding API such as the loop's, called with the target, finds its own). */
unsigned nvmf_tgt_ntransports(const struct nvmf_tgt *tgt);
struct nvmf_transport *nvmf_tgt_transport(const struct nvmf_tgt *tgt, unsigned i);

/* nvmf_transport_stopping - whether @t's target is stopping (nvmf_tgt_shutdown began):
 * a transport accepts no new connection then. Any thread. */
bool nvmf_transport_stopping(const struct nvmf_transport *t);

/* nvmf_pg_tpg - @t's part of poll group @pg. */
struct nvmf_tpg *nvmf_pg_tpg(const struct nvmf_pg *pg, const struct nvmf_transport *t);

/*
 * nvmf_tgt_new_queue - place a new connection of @t for queue @qid (0 = admin): the main
 * group for admin queues, the I/O group with the fewest queues otherwise; then
 * ops->pg_add_queue(tpg, @conn) runs on that group's thread (by message, or at once when
 * it is the caller's group @from). Returns 0, or -ENOMEM (the caller rejects @conn).
 */
int nvmf_tgt_new_queue(struct nvmf_transport *t, struct nvmf_pg *from, uint16_t qid, void *conn);

/* nvmf_sq_init - a new, unconnected queue served by @t on its group @pg (the caller's
 * thread), on @port. Counted in pg->sqs until queue_released. */
void nvmf_sq_init(struct nvmf_sq *sq, struct nvmf_pg *pg, struct nvmf_port *port,
		  struct nvmf_transport *t);
/* nvmf_sq_destroy - the transport will start no more commands on @sq. The core drains,
 * detaches and calls queue_released (maybe before this returns: the transport must not
 * free the queue inside queue_released if it still needs it; marking it is enough). */
void nvmf_sq_destroy(struct nvmf_sq *sq);

/*
 * nvmf_sq_accepting - whether a capsule that arrives on @sq now may start. False once the
 * target is stopping (nvmf_tgt_shutdown): the transport then drops the capsule unanswered
 * and gives its receive back, as nvmet does with commands on a queue being torn down;
 * the host resubmits it when it reconnects. Commands already started finish and are
 * answered. Call before nvmf_req_init.
 */
bool nvmf_sq_accepting(const struct nvmf_sq *sq);

/*
 * nvmf_req_init - decode and validate a received command (64-byte @cmd; @cqe is the
 * transport's 16-byte response buffer). Sets req->execute, dir and data_len (bytes).
 * Returns true when the transport should move data (req->data) and call
 * nvmf_req_execute(); false when the command was already answered with an error status
 * (queue_response ran).
 */
bool nvmf_req_init(struct nvmf_req *req, struct nvmf_sq *sq, struct nvme_sqe *cmd,
		   struct nvme_cqe *cqe);
/* nvmf_req_execute - run the command; first checks req->sgl_len (set by the transport:
 * bytes the host's SGL describes) against data_len (Data SGL Length Invalid). */
void nvmf_req_execute(struct nvmf_req *req);
/* nvmf_req_complete - finish @req with @status (0 = success): the CQE is filled and
 * handed to ops->queue_response. nvmf_req_complete_dnr - the same with Do Not Retry set:
 * a transport answers with it what it finds wrong before execute (SGL type or offset, a
 * transfer no buffer can hold). */
void nvmf_req_complete(struct nvmf_req *req, nvme_status_t status);
void nvmf_req_complete_dnr(struct nvmf_req *req, nvme_status_t status);
/* nvmf_req_abandon - the queue died before @req could execute: the core forgets it
 * without an answer. */
void nvmf_req_abandon(struct nvmf_req *req);

#endif
