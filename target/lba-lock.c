/* SPDX-License-Identifier: MIT */
/*
 * The LBA range lock of fused Compare and Write: the messages between a holder's group,
 * the main group and every poll group (the protocol is in target/lba-lock.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "target/core.h"
#include "target/lba-lock.h"

bool nvmf_lba_cmd_range(const struct nvme_sqe *cmd, uint64_t *slba, uint64_t *end)
{
	switch (cmd->opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
	case nvme_cmd_compare:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_write_uncor:
	case nvme_cmd_verify: {
		uint64_t s = (uint64_t)le32toh(cmd->cdw10) | (uint64_t)le32toh(cmd->cdw11) << 32;
		uint64_t n = (le32toh(cmd->cdw12) & 0xffff) + 1ull;
		*slba = s;
		/* A range past the top (refused later as out of range) reaches the end. */
		*end = s > UINT64_MAX - n ? UINT64_MAX : s + n;
		return true;
	}
	case nvme_cmd_flush:
		*slba = *end = 0; /* no blocks */
		return true;
	default:
		*slba = 0;
		*end = UINT64_MAX;
		return false;
	}
}

/* ---- a group's side ---- */

void nvmf_lba_park(struct nvmf_lba_pg *g, struct nvmf_req *req)
{
	req->lba_next = NULL;
	if (g->parked_tail)
		g->parked_tail->lba_next = req;
	else
		g->parked = req;
	g->parked_tail = req;
}

static void ack(struct nvmf_lba_pg *g)
{
	nvmf_pg_post(nvmf_tgt_main_pg(g->lba->tgt), &g->ack_msg);
}

void nvmf_lba_exit_slow(struct nvmf_lba_pg *g)
{
	g->ack_due = false;
	ack(g);
}

/* main -> group: park what comes for the holder's blocks; ack once what ran before is
 * done (the old epoch's commands). */
static void gate(void *arg)
{
	struct nvmf_lba_pg *g = arg;
	g->gate_slba = g->lba->gate_slba;
	g->gate_end = g->lba->gate_end;
	g->gated = true;
	g->epoch ^= 1;
	if (g->active[g->epoch ^ 1])
		g->ack_due = true;
	else
		ack(g);
}

/* main -> group: the holder is done; run what parked, in arrival order. */
static void ungate(void *arg)
{
	struct nvmf_lba_pg *g = arg;
	struct nvmf_req *list = g->parked;
	g->gated = false;
	g->parked = g->parked_tail = NULL;
	/* Acked first: after the ack only the parked requests, which hold the namespace,
	 * still reach g. */
	ack(g);
	while (list) {
		struct nvmf_req *req = list;
		list = req->lba_next;
		req->lba_next = NULL;
		req->lba_epoch = g->epoch;
		g->active[g->epoch]++;
		req->lba_active = true;
		req->execute(req);
	}
}

/* ---- the main group's side ---- */

static void start_round(struct nvmf_ns_lba *l, bool releasing)
{
	l->releasing = releasing;
	if (!releasing && l->head->fused) {
		nvmf_lba_cmd_range(l->head->cmd, &l->gate_slba, &l->gate_end);
	} else if (!releasing) {
		/* Not a Compare and Write: an admin command that drains the namespace
		 * (target/passthru-admin.c), whose opcode is no I/O opcode. */
		l->gate_slba = 0;
		l->gate_end = UINT64_MAX;
	}
	l->acks_left = l->npgs;
	for (unsigned i = 0; i < l->npgs; i++)
		nvmf_pg_post(l->pg[i].pg, releasing ? &l->pg[i].ungate_msg : &l->pg[i].gate_msg);
}

static void holder_msg(struct nvmf_req *owner, void (*fn)(void *))
{
	owner->msg.fn = fn;
	owner->msg.arg = owner;
	nvmf_pg_post(owner->sq->pg, &owner->msg);
}

static void run_granted(void *arg)
{
	struct nvmf_req *owner = arg;
	owner->lba_granted(owner);
}

static void run_finished(void *arg)
{
	struct nvmf_req *owner = arg;
	owner->lba_finished(owner);
}

/* main: one group acked the current round. */
static void on_ack(void *arg)
{
	struct nvmf_lba_pg *g = arg;
	struct nvmf_ns_lba *l = g->lba;
	if (--l->acks_left)
		return;
	struct nvmf_req *owner = l->head;
	if (!l->releasing) {
		holder_msg(owner, run_granted);
		return;
	}
	/* Released: the holder finishes, the next one gates. */
	l->head = owner->lba_next;
	if (!l->head)
		l->tail = NULL;
	owner->lba_next = NULL;
	holder_msg(owner, run_finished);
	if (l->head) {
		start_round(l, false);
	}
}

static void lock_on_main(void *arg)
{
	struct nvmf_req *owner = arg;
	struct nvmf_ns_lba *l = owner->ns->lba;
	owner->lba_next = NULL;
	bool idle = !l->head;
	if (l->tail)
		l->tail->lba_next = owner;
	else
		l->head = owner;
	l->tail = owner;
	if (idle) {
		start_round(l, false);
	}
}

static void unlock_on_main(void *arg)
{
	struct nvmf_req *owner = arg;
	struct nvmf_ns_lba *l = owner->ns->lba;
	start_round(l, true);
}

void nvmf_lba_lock(struct nvmf_req *owner, void (*granted)(struct nvmf_req *owner))
{
	owner->lba_granted = granted;
	if (!owner->ns->lba) {
		granted(owner);
		return;
	}
	owner->msg.fn = lock_on_main;
	owner->msg.arg = owner;
	nvmf_pg_post(nvmf_tgt_main_pg(owner->ns->lba->tgt), &owner->msg);
}

void nvmf_lba_unlock(struct nvmf_req *owner, void (*finished)(struct nvmf_req *owner))
{
	owner->lba_finished = finished;
	if (!owner->ns->lba) {
		finished(owner);
		return;
	}
	owner->msg.fn = unlock_on_main;
	owner->msg.arg = owner;
	nvmf_pg_post(nvmf_tgt_main_pg(owner->ns->lba->tgt), &owner->msg);
}

/* ---- attach ---- */

static void lba_free(struct nvmf_ns_lba *l)
{
	free(l);
}

int nvmf_lba_ns_attach(struct nvmf_tgt *tgt, struct nvmf_ns *ns)
{
	/* A target without groups (unit fixtures) serves no I/O: nothing to lock. */
	if (ns->lba || !tgt->npgs || !tgt->pgs)
		return 0;
	unsigned n = tgt->npgs;
	size_t len = sizeof(struct nvmf_ns_lba) + n * sizeof(struct nvmf_lba_pg);
	/* Rounded up: aligned_alloc wants a multiple of the alignment. */
	struct nvmf_ns_lba *l = aligned_alloc(64, (len + 63) & ~(size_t)63);
	if (!l)
		return -ENOMEM;
	memset(l, 0, len);
	l->tgt = tgt;
	l->npgs = n;
	for (unsigned i = 0; i < n; i++) {
		struct nvmf_lba_pg *g = &l->pg[i];
		g->lba = l;
		g->pg = tgt->pgs[i];
		g->gate_msg = (struct nvmf_msg){ .fn = gate, .arg = g };
		g->ungate_msg = (struct nvmf_msg){ .fn = ungate, .arg = g };
		g->ack_msg = (struct nvmf_msg){ .fn = on_ack, .arg = g };
	}
	ns->lba = l;
	ns->lba_free = lba_free;
	return 0;
}
