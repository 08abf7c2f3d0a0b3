/* SPDX-License-Identifier: MIT */
/*
 * NVMe reservations in the target (NVMe Base 2.0 section 8.19): the rules are
 * nvme/resv.h's; this is who owns what and how the I/O path learns of it.
 *
 * - A namespace whose config says "resv": {"enable": "1"} (nvmf_ns_config.resv_enable,
 *   default off as nvmet) gets a struct nvmf_ns_resv (ns->resv): its registrants, holder,
 *   type, generation and PTPL state, owned by the main poll group. Without it the
 *   reservation commands get Invalid Opcode (as nvmet) and nothing here costs anything.
 * - The four commands (target/resv-cmd.c) arrive on I/O queues and run on the main group,
 *   by message, one at a time per namespace, in arrival order; the answer goes back to
 *   the queue's group.
 * - The I/O path decides without a lock: each controller has a byte per nsid
 *   (ctrl->resv_access, written by the main group with release stores whenever a
 *   namespace's state or a controller changes) saying which command groups its host may
 *   not use, and the namespace's epoch. One atomic load per command of a namespace with
 *   reservations on; none for the others.
 * - Preempt and Abort (target/resv-cmd.c) flips the namespace's epoch and completes only
 *   after every command admitted to the namespace before the flip has finished (the
 *   per-group counts of subsystem.h's nvmf_ns_pg_stats.epoch_inflight). Commands are not
 *   aborted: they finish (nvmet does the same).
 * - Notifications (Registration Preempted, Reservation Released, Reservation Preempted)
 *   become Reservation Notification log pages (80h) on every controller of the host,
 *   unless its Reservation Notification Mask (feature 82h, per controller and namespace)
 *   masks them, each with a Reservation Log Page Available event (NVMF_AEN_RESV_LOG).
 * - Persist Through Power Loss (feature 83h, Register's CPTPL, RESCAP bit 0) is offered
 *   when the target keeps a state file (target/resv-store.c, nvmf_tgt_resv_open).
 */
#ifndef NVMF_TARGET_RESV_H
#define NVMF_TARGET_RESV_H

#include <stdbool.h>
#include <stdint.h>
#include "nvme/resv.h"
#include "target/core.h"

/* ctrl->resv_access[nsid]: NVME_RESV_DENY_READ / _WRITE (nvme/resv.h), and bit 7 the
 * namespace's epoch, which the command counts under while it holds the namespace. */
#define NVMF_RESV_ACCESS_DENY  (NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE)
#define NVMF_RESV_ACCESS_EPOCH 0x80u

/* Reservation Notification log pages kept per controller; more are lost (counted). */
#define NVMF_RESV_LOG_PAGES 64u

/* A namespace's reservation (main group). */
struct nvmf_ns_resv {
	struct nvme_resv_state st;    /* st.regs: st.nregs entries, malloc'ed */
	uint8_t epoch;                /* 0 or 1: what new commands count under */
	struct nvmf_req *head, *tail; /* reservation commands waiting their turn
					    * (req->resv_next), oldest first */
	struct nvmf_req *aborting;    /* a Preempt and Abort waiting for the commands
					    * of the old epoch; NULL: the queue moves */
	bool round_sent, round_seen;  /* its message round to every group */
	struct nvmf_timer timer;      /* checks the old epoch's count while waiting */
	struct nvmf_tgt *tgt;
	struct nvmf_subsys *subsys; /* the namespace's */
	struct nvmf_ns *ns;         /* whose state this is */
};

/* One Reservation Notification log page waiting to be read. */
struct nvmf_resv_page {
	uint64_t count; /* Log Page Count */
	uint8_t type;   /* enum nvme_resv_notify_rnlpt */
	uint32_t nsid;
};

/* A controller's side (main group). */
struct nvmf_ctrl_resv {
	uint8_t mask[NVMF_MAX_NSID + 1]; /* Reservation Notification Mask by nsid: feature
					    * 82h's bits (1 << log page type) */
	struct nvmf_resv_page pages[NVMF_RESV_LOG_PAGES];
	unsigned head, npages; /* oldest page, pages waiting */
	uint64_t count;        /* Log Page Count of the last page made, lost
					    * ones included (0 is never used) */
};

/* ---- namespaces and controllers (target/resv.c) ---- */

/*
 * nvmf_resv_ns_attach - on the main group, for a namespace @ns of @s just opened (start-
 * up, namespace added or enabled live, subsystem added): when its config enables
 * reservations (ns->resv_enable), give it an empty state (the state file's, when it keeps
 * one for @ns: nvmf_resv_store_apply), and make every controller of @s see it (masks of
 * that nsid cleared). 0, or -ENOMEM (nothing attached).
 */
int nvmf_resv_ns_attach(struct nvmf_tgt *tgt, struct nvmf_subsys *s, struct nvmf_ns *ns);
/* nvmf_resv_publish - every controller of @ns's subsystem learns what its current state
 * lets its host do (ctrl->resv_access[nsid], release stores), unless another namespace
 * took the nsid since @ns was taken away. Main group. */
void nvmf_resv_publish(struct nvmf_ns *ns);
/* nvmf_resv_ctrl_init - a new controller's side: no mask, no pages, and its access to
 * every namespace of its subsystem as things stand. 0 or -ENOMEM. nvmf_resv_ctrl_free -
 * its end. Main group (target/ctrl.c). */
int nvmf_resv_ctrl_init(struct nvmf_tgt_ctrl *ctrl);
void nvmf_resv_ctrl_free(struct nvmf_tgt_ctrl *ctrl);

/* nvmf_resv_access - what the host of @ctrl may not do on namespace @nsid (1..
 * NVMF_MAX_NSID) and its epoch: one acquire load, any group. */
static inline uint8_t nvmf_resv_access(const struct nvmf_tgt_ctrl *ctrl, uint32_t nsid)
{
	return __atomic_load_n(&ctrl->resv_access[nsid], __ATOMIC_ACQUIRE);
}

/* nvmf_resv_check_io - the status of I/O command @opcode under @access: Reservation
 * Conflict (with DNR, as nvmet) when its group is denied, else 0. */
nvme_status_t nvmf_resv_check_io(uint8_t access, uint8_t opcode);

/* nvmf_resv_notify - on the main group: deliver @n notices of namespace @nsid of @s to
 * the controllers of their hosts (log page and event, unless masked). */
void nvmf_resv_notify(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid,
		      const struct nvme_resv_notice *notices, unsigned n);

/* nvmf_resv_subsys_enabled - some namespace of @s has reservations on (Identify
 * Controller ONCS bit 5). */
bool nvmf_resv_subsys_enabled(const struct nvmf_subsys *s);
/* nvmf_resv_rescap - Identify Namespace RESCAP of @ns: every type, IEKEY as since 1.3,
 * PTPL when the target keeps a state file; 0 with reservations off. */
uint8_t nvmf_resv_rescap(const struct nvmf_tgt *tgt, const struct nvmf_ns *ns);

/* The Reservation Notification log (80h) and features 82h, 83h (tables of
 * target/log-page.c and target/features.c). */
void nvmf_resv_log_page(struct nvmf_req *req);
nvme_status_t nvmf_resv_check_set_mask(struct nvmf_req *req);
void nvmf_resv_set_mask(struct nvmf_req *req);
nvme_status_t nvmf_resv_check_get_ns(struct nvmf_req *req);
void nvmf_resv_get_mask(struct nvmf_req *req);
nvme_status_t nvmf_resv_check_set_persist(struct nvmf_req *req);
void nvmf_resv_set_persist(struct nvmf_req *req);
void nvmf_resv_get_persist(struct nvmf_req *req);

/*
 * nvmf_resv_commit - make @next (built from @ns's state, its regs the caller's malloc'ed
 * array) @ns's state: when PTPL was or is on and the target keeps a state file, the file
 * is written first (nvmf_resv_store_put); then every controller learns of it. Returns 0
 * (the old regs freed), or -errno with @next's regs freed and nothing changed (the file
 * could not be written: logged). Main group.
 */
int nvmf_resv_commit(struct nvmf_ns *ns, struct nvme_resv_state *next);
/* What nvmf_resv_clear_all took away. */
struct nvmf_resv_cleared {
	uint8_t rtype;      /* the type held, 0: none */
	bool single;        /* rtype 1-4: holder names the one holder */
	uint8_t holder[16]; /* its Host Identifier */
	uint32_t nregs;     /* registrants removed */
	uint32_t gen;       /* the generation after (unchanged when there was nothing) */
};

/*
 * nvmf_resv_clear_all - the operator's clear (control method namespace_reservation_clear),
 * for a reservation a host that is gone left behind: @ns's reservation and every
 * registration end as a Reservation Release with Clear would end them (nvme_resv_clear:
 * the generation moves on, every registrant's controllers get a Reservation Preempted
 * notice, the state file is written first when PTPL is on), and a warning names the
 * holder (host ID and the host NQNs of its live controllers) and how many registrants
 * went. Nothing happens, and nothing is logged, when nothing is registered. @ns has
 * reservations on. Returns 0 with *@out, -ENOMEM, or the state file's -errno (nothing
 * changed; logged). Main group.
 */
int nvmf_resv_clear_all(struct nvmf_ns *ns, struct nvmf_resv_cleared *out);

/* nvmf_resv_copy - @st with room for one more registrant into @out. 0 or -ENOMEM. */
int nvmf_resv_copy(const struct nvme_resv_state *st, struct nvme_resv_state *out);

/* ---- the commands (target/resv-cmd.c, NVMe Base 2.0 sections 7.2-7.5) ---- */

/* nvmf_parse_resv_cmd - Reservation Register, Report, Acquire, Release (the I/O command
 * table's parser for those opcodes): Invalid Opcode on a namespace without reservations;
 * data of 16, 16, 8 bytes; Report: EDS clear -> Host Identifier Inconsistent Format (the
 * host IDs are 128 bits), NUMD below the 64-byte header or above MDTS -> Invalid Field. */
nvme_status_t nvmf_parse_resv_cmd(struct nvmf_req *req);

/* ---- the state file (target/resv-store.c) ---- */

/*
 * nvmf_tgt_resv_open - keep the reservations of namespaces with PTPL on in the file
 * @path (JSON; created when first needed) and restore what it holds into the namespaces
 * it matches (subsystem NQN, nsid and identity: UUID, NGUID, EUI-64, backing path). A
 * namespace whose entry does not match is logged and keeps none (the entry stays in the
 * file). Call once, after nvmf_tgt_init, before hosts connect. Returns 0, or -1 with @err
 * naming the file and what is wrong with it (unreadable, not JSON, a bad field): a
 * broken file must stop the start, never be dropped (it holds fences).
 */
int nvmf_tgt_resv_open(struct nvmf_tgt *tgt, const char *path, char *err, size_t errlen);
/* nvmf_resv_store_check - only read and check the file at @path (missing is fine):
 * nvmf-target --check. 0 or -1 with @err. */
int nvmf_resv_store_check(const char *path, char *err, size_t errlen);
/* nvmf_tgt_resv_close - free what nvmf_tgt_resv_open kept (nvmf_tgt_fini). */
void nvmf_tgt_resv_close(struct nvmf_tgt *tgt);
/* nvmf_resv_ptpl_capable - the target keeps a state file: PTPL can be turned on. */
bool nvmf_resv_ptpl_capable(const struct nvmf_tgt *tgt);
/* nvmf_resv_store_path - that file, or NULL. */
const char *nvmf_resv_store_path(const struct nvmf_tgt *tgt);
/* nvmf_resv_store_apply - the file's state for @ns of @s into @st (regs malloc'ed) when
 * its entry matches @ns; 0 (nothing kept: @st untouched), 1 (restored), -ENOMEM. An entry
 * for (NQN, nsid) that does not match @ns is logged, not applied. */
int nvmf_resv_store_apply(struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
			  const struct nvmf_ns *ns, struct nvme_resv_state *st);
/* nvmf_resv_store_put - @st as @ns's entry (none when PTPL is off), the file written
 * atomically (temporary, fsync, rename, fsync of the directory). 0, or -errno with @err
 * naming the file; the file and the kept entries are as before then. */
int nvmf_resv_store_put(struct nvmf_tgt *tgt, const struct nvmf_subsys *s, const struct nvmf_ns *ns,
			const struct nvme_resv_state *st, char *err, size_t errlen);

#endif
