/* SPDX-License-Identifier: MIT */
/*
 * The served model: NVM subsystems with their namespaces (backends opened), allowed
 * hosts, the discovery subsystem, and ports with the limits resolved for their transport.
 * Built from a validated configuration (subsystem/config.h); the target core (target/)
 * serves it. Nothing here knows about controllers, queues or transports beyond the
 * transport's limits, which the core hands in when it binds a port.
 *
 * Threads: built and changed on the target's main poll group; I/O poll groups read
 * namespaces (nvmf_subsys_ns) while serving commands. Live changes (the control plane)
 * reach them by message, never while a group reads (target/poll-group.h).
 */
#ifndef NVMF_SUBSYSTEM_SUBSYSTEM_H
#define NVMF_SUBSYSTEM_SUBSYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "subsystem/backend.h"
#include "subsystem/config.h"

struct nvmf_ns_lba;
struct nvmf_transport;
struct nvmf_passthru;

#define NVMF_SUBSYS_MAX_NSID 1024 /* namespace slots per subsystem (Identify NN) */
#define NVMF_LAT_BUCKETS     32   /* latency histogram: bucket i = [2^i, 2^(i+1)) us */

/*
 * What one poll group counted on one namespace. Only that group writes it (relaxed
 * atomic stores, no read-modify-write on the I/O path); any thread may read it with
 * relaxed loads (statistics, and the drain of a namespace being removed). One cache
 * line apart from the other groups' counters.
 */
struct nvmf_ns_pg_stats {
	uint64_t inflight;                /* commands holding the namespace now */
	uint64_t reads, writes, other;    /* commands completed: Read, Write, the rest */
	uint64_t read_bytes, write_bytes; /* data of the Reads and Writes completed */
	uint64_t errors;                  /* commands completed with a non-zero status */
	uint64_t epoch_inflight[2];       /* of inflight, those admitted under reservation
					    * epoch 0 and 1 (namespaces with reservations on:
					    * Preempt and Abort waits for one, target/resv.h) */
	uint64_t lat[NVMF_LAT_BUCKETS];   /* completions by log2 of their latency in us */
} __attribute__((aligned(64)));

/* A namespace as served: its backend and identity. */
struct nvmf_ns {
	uint32_t nsid;
	struct nvmf_bdev *bdev;
	uint32_t lba_shift; /* log2(block size in bytes) */
	uint64_t nlb;       /* namespace size in logical blocks; changed live
					    * by a resize (atomic: nvmf_ns_nlb) */
	uint8_t nguid[16], uuid[16], eui64[8];
	bool has_nguid, has_uuid, has_eui64;
	bool uuid_derived;              /* made from NQN and nsid, not configured */
	bool resv_enable;               /* the config's resv.enable: the target attaches
					    * reservations (resv below) */
	char *real_path;                /* the backing file or device, resolved; an rbd
					 * image's "pool[/namespace]/image"; NULL: none */
	struct nvmf_bdev_watch *watch;  /* the target's listener of bdev->watch (its own
					 * record, target/namespace.c), freed with the ns */
	bool unlinked;                  /* its backing file was deleted while served (no
					    * name links to it: st_nlink 0); main group,
					    * nvmf_tgt_ns_check_unlinked */
	struct nvmf_ns_pg_stats *stats; /* [poll group index], npgs of them; NULL until
					    * the target attaches it (nvmf_ns_stats_alloc) */
	unsigned npgs;
	uint32_t anagrpid;         /* its ANA group, 1..NVMF_MAX_ANAGRPID: moved live
					    * by the main group, read by I/O groups (atomic) */
	struct nvmf_ns_resv *resv; /* reservations (target/resv.h), the main group's;
					    * NULL: off (the config's resv.enable) */
	void (*resv_free)(struct nvmf_ns_resv *resv); /* how nvmf_ns_free frees it (the
					    * target's, which attached it) */
	struct nvmf_ns_lba *lba;                      /* the lock of fused Compare and Write
					    * (target/lba-lock.h); NULL: none attached */
	void (*lba_free)(struct nvmf_ns_lba *lba);    /* how nvmf_ns_free frees it */
	uint64_t err_log_next_ms; /* backend errors: the target's clock (ms) from which the
					    * next one is logged; 0 at first (atomic,
					    * target/io-cmd.c) */
	uint64_t err_unlogged;    /* backend errors not logged since the last line (atomic) */
};

/* nvmf_ns_nlb - @ns's size in logical blocks as of now (a resize may change it). */
static inline uint64_t nvmf_ns_nlb(const struct nvmf_ns *ns)
{
	return __atomic_load_n(&ns->nlb, __ATOMIC_ACQUIRE);
}

enum nvmf_subsys_type {
	NVMF_SUBSYS_NVME,
	NVMF_SUBSYS_DISCOVERY,
};

/* The RAM backend of a disabled namespace, kept so that its data is there again when
 * the namespace is enabled: a RAM namespace's data lives until the namespace is removed
 * or the target stops (docs/operating.md). */
struct nvmf_ns_kept {
	uint32_t nsid;
	struct nvmf_bdev *bdev; /* one hold (nvmf_bdev_hold) */
	struct nvmf_ns_kept *next;
};

/* A subsystem as served (NVMe Base 2.0 section 2.4). */
struct nvmf_subsys {
	enum nvmf_subsys_type type;
	struct nvmf_subsys_config *cfg;          /* NQN, hosts, attributes, namespaces: the running
					    * configuration, the subsystem's own copy; changed live
					    * only on the main group (target/namespace.c, ctl-*.c) */
	char serial[21], model[41], firmware[9]; /* space padded, NUL at [20]/[40]/[8] */
	uint32_t vs;                             /* NVMe version: major << 16 | minor << 8 */
	struct nvmf_ns **ns;                     /* indexed by nsid (1's based); NULL = inactive.
					    * NVMF_SUBSYS_MAX_NSID + 1 slots, never moved, so I/O
					    * groups may read a slot while the main group changes
					    * another (nvmf_subsys_ns, nvmf_subsys_ns_publish) */
	uint32_t max_nsid;                       /* highest nsid with a slot (discovery: 0) */
	uint16_t next_cntlid;                    /* round-robin cntlid allocation (target/ctrl.c) */
	struct nvmf_ns_kept *kept;               /* RAM backends of disabled namespaces (main
					    * group; nvmf_subsys_keep) */
	/* A passthru subsystem (cfg->passthru.enable): the drive it serves whole, its
	 * namespaces published under the drive's NSIDs (nvmf_subsys_passthru_attach);
	 * closed by nvmf_subsys_free after the namespaces. NULL otherwise. */
	struct nvmf_drive *drive;
	struct nvmf_passthru *pt;                  /* what the target runs for it (the admin
					    * worker, target/passthru.h), NULL: none */
	void (*pt_free)(struct nvmf_passthru *pt); /* how nvmf_subsys_free stops and frees
					    * it, before the drive closes */
};

/* A port as served: its config, the subsystems exposed on it and its resolved limits.
 * The listener itself belongs to the transport (transport_priv). Ports are allocated one
 * by one and never move: queues and controllers point at theirs. */
struct nvmf_port {
	struct nvmf_port_config *cfg; /* the running configuration, the port's own copy
					    * (cfg->subsystems follows subsys[]) */
	struct nvmf_subsys **subsys;  /* subsystems exposed here, config order; changed
					    * live on the main group only */
	size_t n_subsys;
	bool retired;                        /* removed live: listens no more, exposes nothing,
					    * kept until the target ends (queues may point here) */
	uint64_t connects, connects_refused; /* admin Connects accepted and refused here
					    * (main group) */
	struct nvmf_transport *transport;    /* the transport serving it (trtype) */
	/* Limits, resolved once from the config and the transport (nvmf_port_resolve). */
	uint16_t queue_size;  /* I/O queue entries, 1's based (CAP.MQES + 1) */
	uint32_t inline_size; /* in-capsule data bytes on I/O queues; 0 = none */
	uint16_t max_qid;     /* highest I/O qid any subsystem here allows */
	uint32_t mdts;        /* MDTS of its controllers, log2(max transfer / 4 KiB): its
			       * param.mdts or nvmf_target.mdts, within the target's buffers
			       * (the core's nvmf_tgt_port_mdts) */
	/* The ANA state of each group on this port (NVME_ANA_STATE_*; [0] unused), as
	 * cfg->ana_groups says (nvmf_port_config_ana_state): written by the main group,
	 * read by I/O groups with one atomic load per command (target/ana.h). */
	uint8_t ana_state[NVMF_MAX_ANAGRPID + 1];
	void *transport_priv;
};

/* nvmf_port_free - free @port (its config copy and subsystem list); NULL: nothing. */
void nvmf_port_free(struct nvmf_port *port);

/* The defaults of nvmetcli's config and of our nvmf_* keys are applied by the config
 * loader (subsystem/config.c); these are the transport-independent bounds. */
#define NVMF_ADMIN_QUEUE_SIZE 32 /* entries; the Linux host uses 32 */
#define NVMF_MIN_QUEUE_SIZE   16 /* I/O queue entries, smallest a port may set */

/*
 * nvmf_subsys_build - the subsystem @sc describes (copied: s->cfg is its own), every
 * enabled namespace's backend
 * opened (nvmf_bdev_open). @sidx is its index in the config, for messages. Identity
 * strings come from the config, else from a raw NVMe drive behind a namespace, else
 * defaults; a namespace without a configured UUID gets one derived from NQN and nsid.
 * Returns the subsystem, or NULL with @err naming "subsystems[S].namespaces[N]
 * (subsystem NQN, namespace NSID): reason"; everything opened so far is closed again.
 */
struct nvmf_subsys *nvmf_subsys_build(const struct nvmf_subsys_config *sc, size_t sidx, char *err,
				      size_t errlen);

/*
 * nvmf_subsys_passthru_attach - @s (built, not published, no namespaces of its own)
 * serves drive @d from now on (s->drive, closed with @s): identity strings from the drive
 * unless the config's attr sets them (as the nvme backend's), and one namespace per
 * active drive namespace that fabrics can carry (nvmf_ns_open_passthru), in the slot of
 * its NSID. A refused one (d->ns[i].refused) is left out for the caller to log. 0, or
 * -errno with @err ("nsid N: reason"); @s then holds the drive and what it opened, all
 * freed by nvmf_subsys_free.
 */
int nvmf_subsys_passthru_attach(struct nvmf_subsys *s, struct nvmf_drive *d, char *err,
				size_t errlen);

/* nvmf_ns_open_passthru - namespace @nsid of s->drive as a namespace of @s (passthru
 * backend; no identifiers of its own: Identify passes the drive's), not published. NULL
 * with @err. */
struct nvmf_ns *nvmf_ns_open_passthru(struct nvmf_subsys *s, uint32_t nsid, char *err,
				      size_t errlen);

/* nvmf_subsys_discovery_new - the discovery subsystem named @nqn (NVMe-oF 1.1 section 5):
 * any host, no namespaces, version 1.3. NULL when out of memory. */
struct nvmf_subsys *nvmf_subsys_discovery_new(const char *nqn);

/* nvmf_subsys_free - close the backends (files are flushed) and free @s (NULL: nothing). */
void nvmf_subsys_free(struct nvmf_subsys *s);

/* nvmf_subsys_ns - the active namespace @nsid of @s, or NULL (0, above max_nsid, inactive).
 * Any thread; a namespace being removed reads as NULL from then on. */
static inline struct nvmf_ns *nvmf_subsys_ns(const struct nvmf_subsys *s, uint32_t nsid)
{
	if (!s->ns || nsid == 0 || nsid > s->max_nsid)
		return NULL;
	return __atomic_load_n(&s->ns[nsid], __ATOMIC_ACQUIRE);
}

/* nvmf_subsys_ns_publish - make @ns (NULL: none) namespace @nsid of @s for every reader.
 * On the main group. The caller keeps a namespace it unpublishes until nothing holds it. */
static inline void nvmf_subsys_ns_publish(struct nvmf_subsys *s, uint32_t nsid, struct nvmf_ns *ns)
{
	__atomic_store_n(&s->ns[nsid], ns, __ATOMIC_RELEASE);
}

/* nvmf_ns_derived_uuid - the UUID (RFC 4122 byte order) a namespace of subsystem @nqn
 * with @nsid has when its config gives none. */
void nvmf_ns_derived_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16]);

/*
 * nvmf_ns_open - a namespace of @s as @nc describes it (backend opened, identity from
 * the config or the drive, a UUID derived from NQN and nsid when none is configured),
 * not published. A RAM backend @s kept for @nc's nsid (nvmf_subsys_keep) is taken
 * instead of a new one, resized to nvmf_size_bytes if that changed meanwhile. NULL with
 * @err naming the path and the reason.
 */
struct nvmf_ns *nvmf_ns_open(struct nvmf_subsys *s, const struct nvmf_ns_config *nc, char *err,
			     size_t errlen);

/* nvmf_subsys_keep - keep @b (a hold of it) for namespace @nsid of @s, which is being
 * disabled, until nvmf_ns_open takes it back or nvmf_subsys_drop_kept / nvmf_subsys_free
 * lets it go. 0 or -ENOMEM. Main group. */
int nvmf_subsys_keep(struct nvmf_subsys *s, uint32_t nsid, struct nvmf_bdev *b);
/* nvmf_subsys_drop_kept - let go of what @s keeps for @nsid (nothing: no-op); the memory
 * is freed once no draining namespace holds it. Main group. */
void nvmf_subsys_drop_kept(struct nvmf_subsys *s, uint32_t nsid);
/* nvmf_ns_stats_alloc - give @ns counters for @npgs poll groups. 0 or -ENOMEM. */
int nvmf_ns_stats_alloc(struct nvmf_ns *ns, unsigned npgs);
/* nvmf_ns_free - close @ns's backend (files are flushed) and free it, and what the target
 * attached (NULL: nothing). A file its open created (bdev->created still set: never
 * published, the add, enable, start or subsystem add failed) is deleted with it. */
void nvmf_ns_free(struct nvmf_ns *ns);

/* nvmf_subsys_has_vwc - some namespace of @s has a volatile write cache (Identify VWC). */
bool nvmf_subsys_has_vwc(const struct nvmf_subsys *s);

/* nvmf_subsys_host_allowed - discovery, allow_any_host, or @hostnqn in the allow-list. */
bool nvmf_subsys_host_allowed(const struct nvmf_subsys *s, const char *hostnqn);

/* nvmf_port_has_subsys - @s is exposed on @port (the discovery subsystem: always). */
bool nvmf_port_has_subsys(const struct nvmf_port *port, const struct nvmf_subsys *s);

/* nvmf_subsys_max_qid - I/O queues a controller of @s may have: attr.qid_max (0, unset
 * in a config built in code: NVMF_DEFAULT_QID_MAX); 0 for discovery. */
uint16_t nvmf_subsys_max_qid(const struct nvmf_subsys *s);

/* nvmf_port_config_addr - @pc's listening address for messages into @buf (@len bytes):
 * "10.0.0.1:4420", "[fd00::1]:4420" (an IPv6 address bracketed, as in a URI); an empty
 * trsvcid is the default 4420. Returns @buf. */
char *nvmf_port_config_addr(const struct nvmf_port_config *pc, char *buf, size_t len);

/*
 * nvmf_port_resolve - the one place a port's limits are decided: the configured
 * max_queue_size (0 or -1: NVMF_DEFAULT_QUEUE_SIZE) clamped to [NVMF_MIN_QUEUE_SIZE,
 * @max_queue_size] (the transport's largest queue), inline_data_size (-1: the default;
 * 0: none) clamped to @max_inline (bytes the transport takes in a capsule), and max_qid
 * the largest nvmf_subsys_max_qid of the subsystems exposed (0 when only discovery is).
 * Sets port->queue_size, inline_size, max_qid.
 */
void nvmf_port_resolve(struct nvmf_port *port, uint32_t max_queue_size, uint32_t max_inline);

#endif
