/* SPDX-License-Identifier: MIT */
/*
 * The namespace lock of fused Compare and Write: the messages between a holder's group,
 * the main group and every poll group (the protocol is in target/lba-lock.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "target/core.h"
#include "target/lba-lock.h"

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

/* main -> group: park what comes; ack once what runs is done. */
static void gate(void *arg)
{
	struct nvmf_lba_pg *g = arg;
	g->gated = true;
	if (g->active)
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
		g->active++;
		req->lba_active = true;
		req->execute(req);
	}
}

/* ---- the main group's side ---- */

static void start_round(struct nvmf_ns_lba *l, bool releasing)
{
	l->releasing = releasing;
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
