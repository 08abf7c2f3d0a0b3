/* SPDX-License-Identifier: MIT */
/*
 * Passthru subsystems: a whole raw NVMe drive served as one subsystem (the Linux
 * kernel's nvmet passthru; nvmetcli "subsystems[].passthru", subsystem/nvme-drive.h).
 *
 * The target opens the drive when it builds the subsystem (at start, or added live) and
 * serves each drive namespace that fabrics can carry under the drive's NSID. I/O
 * commands pass to the drive from the poll groups (target/passthru-io.c); admin commands
 * that need the drive block, so they run on a worker thread of the subsystem's own
 * (below), never on a poll group, and their answer goes back to the admin queue's group
 * by message (target/passthru-admin.c says which pass, which are fixed up, which are
 * refused).
 */
#ifndef NVMF_TARGET_PASSTHRU_H
#define NVMF_TARGET_PASSTHRU_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "target/core.h"

struct nvmf_pt_job;

/* What the target runs for one passthru subsystem (s->pt). */
struct nvmf_passthru {
	struct nvmf_tgt *tgt;
	struct nvmf_subsys *s;
	pthread_t thread; /* the admin worker: runs jobs in order */
	bool thread_started;
	pthread_mutex_t lock; /* head, tail, stop */
	pthread_cond_t cond;
	struct nvmf_pt_job *head, *tail;
	bool stop;
	bool syncing;              /* a rescan's answer is on its way to the main group,
				    * which reads drive->ns until nvmf_pt_synced */
	uint32_t admin_timeout_ms; /* passthru.admin_timeout; 0: the drive's default */
};

/*
 * One admin command for the worker: @run(@job) on the worker thread (it may block on the
 * drive), then @done(@job) on @pg by message. The caller owns @job (e.g. req->aux).
 */
struct nvmf_pt_job {
	void (*run)(struct nvmf_pt_job *job);
	void (*done)(struct nvmf_pt_job *job);
	struct nvmf_passthru *pt;
	struct nvmf_pg *pg;
	struct nvmf_req *req;
	struct nvmf_msg msg; /* the answer to @pg */
	struct nvmf_pt_job *next;
	/* The command's run: its data (len bytes, the drive's buffer), the drive's answer. */
	void *buf;
	uint32_t len;
	int rc;          /* ops->admin's return: 0, or -errno */
	uint16_t status; /* the drive's status field */
	uint64_t result; /* its CQE dwords 0-1 */
	bool rescan;     /* the command's effects change namespaces: rescan after it */
	int rescan_rc;   /* nvmf_drive_rescan's return */
	char rescan_err[256];
};

/*
 * nvmf_tgt_passthru_open - when @s's config enables passthru: open its drive
 * (tgt->drive_open, else nvmf_drive_open), serve its namespaces
 * (nvmf_subsys_passthru_attach; each refused one logged, component core, warning, with
 * the drive's reason) and start the admin worker. No-op for other subsystems. 0, or -1
 * with "passthru device.path: reason" in @err (the caller names the subsystem);
 * what was opened stays in @s for nvmf_subsys_free.
 */
int nvmf_tgt_passthru_open(struct nvmf_tgt *tgt, struct nvmf_subsys *s, char *err, size_t errlen);

/* nvmf_pt_synced - the main group is done with drive->ns after a rescan job's answer:
 * the worker takes the next job. */
void nvmf_pt_synced(struct nvmf_passthru *pt);

/* nvmf_pt_submit - queue @job on its subsystem's worker (job->pt). Any group. */
void nvmf_pt_submit(struct nvmf_pt_job *job);

/*
 * nvmf_tgt_passthru_sync - on the main group, after a rescan of s->drive: the served
 * namespaces follow the drive's. A namespace whose format or size changed is replaced
 * (the old one closed after its last command), one gone is taken away, a new one
 * published; a refused one is logged and not served. Each change reaches the hosts as
 * nvmf_tgt_ns_add's do: the Changed Namespace List and the Namespace Attribute Changed
 * event (target/namespace.h). Returns how many namespaces changed.
 */
unsigned nvmf_tgt_passthru_sync(struct nvmf_tgt *tgt, struct nvmf_subsys *s);

/* ---- the command sets (target/passthru-io.c, target/passthru-admin.c) ---- */

/* nvmf_parse_passthru_io - an I/O command on passthru namespace req->ns (held, ANA and
 * reservation checks done): set data_len, dir and execute, or a status. */
nvme_status_t nvmf_parse_passthru_io(struct nvmf_req *req);

/* nvmf_parse_passthru_admin - an admin command of a passthru subsystem's controller
 * (ready): the target's own handlers for what it owns, the drive for the rest, or a
 * status for what it refuses. */
nvme_status_t nvmf_parse_passthru_admin(struct nvmf_req *req);

/* nvmf_passthru_data_len - the bytes the host's SGL descriptor in @cmd says the command
 * moves (keyed: 24-bit length; in-capsule and transport data blocks: 32-bit length). */
uint32_t nvmf_passthru_data_len(const struct nvme_sqe *cmd);

/* nvmf_passthru_parse_data - for a command passed to the drive: req->dir from opcode
 * bits 1:0 and req->data_len (bytes) from the host's SGL, or Invalid Field in Command for
 * data both ways, data on an opcode that moves none, or more than @max_transfer (the
 * drive's, bytes) or the controller's MDTS (NVMe Base 2.0 figure 275). 0 or the status. */
nvme_status_t nvmf_passthru_parse_data(struct nvmf_req *req, uint32_t max_transfer);

#endif
