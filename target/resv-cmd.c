/* SPDX-License-Identifier: MIT */
/*
 * The reservation commands (NVMe Base 2.0 sections 7.2 Reservation Acquire, 7.3
 * Reservation Register, 7.4 Reservation Release, 7.5 Reservation Report) on I/O queues.
 *
 * Parsing (on the queue's group) checks what the SQE tells; the rules are nvme/resv.c's.
 * Executing hands the command to the main group, which owns the state, by message: each
 * namespace takes its reservation commands one at a time, in arrival order. A change is
 * built on a copy, persisted when PTPL asks for it, then published (target/resv.c); the
 * notices go out and the answer goes back to the queue's group, again by message.
 *
 * Preempt and Abort: the state changes first (the preempted hosts' new commands meet the
 * new reservation), then the namespace's epoch flips, a message round to every group
 * makes sure each has seen the flip, and the command completes once the commands admitted
 * under the old epoch have finished (counted per group, subsystem.h). Those are all the
 * namespace's commands of that time, not only the preempted hosts': more than the spec
 * needs, never less. The namespace's later reservation commands wait meanwhile.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/identify.h"
#include "nvme/sgl.h"
#include "target/log.h"
#include "target/resv.h"

#define ST_INTERNAL        nvme_generic(NVME_SC_INTERNAL)
/* How often a Preempt and Abort looks at the old epoch's count. */
#define ABORT_CHECK_MS     1
/* The Linux host's block layer (pr_ops) sends Release with 16 bytes (CRKEY and a zero),
 * nvme-cli with the 8 of the spec; nvmet reads the first 8 of any. */
#define RELEASE_DATA_LINUX 16u

static void run_queue(struct nvmf_ns_resv *r);

/* ---- the answer, back on the command's group ---- */

static void answer_msg(void *arg)
{
	struct nvmf_req *req = arg;
	nvmf_req_complete(req, (nvme_status_t)req->step);
}

static void answer(struct nvmf_req *req, nvme_status_t st)
{
	if (req->sq->pg == nvmf_tgt_main_pg(req->sq->tgt)) {
		nvmf_req_complete(req, st);
		return;
	}
	req->step = st; /* the status travels in the handler's field */
	req->msg.fn = answer_msg;
	req->msg.arg = req;
	nvmf_pg_post(req->sq->pg, &req->msg);
}

/* ---- Preempt and Abort: wait for the old epoch ---- */

static uint64_t old_epoch_inflight(const struct nvmf_ns *ns)
{
	unsigned old = !ns->resv->epoch;
	uint64_t n = 0;
	for (unsigned g = 0; g < ns->npgs; g++)
		n += __atomic_load_n(&ns->stats[g].epoch_inflight[old], __ATOMIC_ACQUIRE);
	return n;
}

/* Of those, the reservation commands the main group holds itself: the waiting one and
 * the queue behind it cannot finish before the wait does. */
static uint64_t old_epoch_here(const struct nvmf_ns_resv *r)
{
	unsigned old = !r->epoch;
	uint64_t n = r->aborting && r->aborting->ns_held && r->aborting->ns_epoch == old;
	for (const struct nvmf_req *q = r->head; q; q = q->resv_next)
		n += q->ns_held && q->ns_epoch == old;
	return n;
}

static void abort_visit(struct nvmf_pg *pg, void *arg)
{
	(void)pg; /* having run here is the point: this group's new commands see the flip */
	(void)arg;
}

static void abort_check(void *arg);

static void abort_round_done(void *arg)
{
	struct nvmf_ns_resv *r = arg;
	r->round_seen = true;
	abort_check(r);
}

static void abort_check(void *arg)
{
	struct nvmf_ns_resv *r = arg;
	struct nvmf_pg *main_pg = nvmf_tgt_main_pg(r->tgt);
	if (!r->aborting)
		return;
	if (!r->round_sent) /* no memory for it at the flip: again now */
		r->round_sent =
			!nvmf_tgt_for_each_pg(r->tgt, main_pg, abort_visit, r, abort_round_done);
	if (!r->round_seen || old_epoch_inflight(r->ns) > old_epoch_here(r))
		return;
	nvmf_pg_timer_stop(main_pg, &r->timer);
	struct nvmf_req *req = r->aborting;
	r->aborting = NULL;
	answer(req, 0);
	run_queue(r);
}

static void start_abort(struct nvmf_ns_resv *r, struct nvmf_req *req)
{
	struct nvmf_pg *main_pg = nvmf_tgt_main_pg(r->tgt);
	r->aborting = req;
	r->epoch ^= 1;
	nvmf_resv_publish(r->ns);
	r->round_seen = false;
	r->round_sent = false;
	nvmf_pg_timer_start(main_pg, &r->timer, ABORT_CHECK_MS, abort_check, r);
	r->round_sent = !nvmf_tgt_for_each_pg(r->tgt, main_pg, abort_visit, r, abort_round_done);
}

/* ---- one command on the main group ---- */

static uint64_t key_at(const struct nvmf_req *req, unsigned off)
{
	uint64_t k;
	memcpy(&k, (const uint8_t *)req->data + off, sizeof(k)); /* in-capsule: unaligned */
	return le64toh(k);
}

static bool same_state(const struct nvme_resv_state *a, const struct nvme_resv_state *b)
{
	return a->gen == b->gen && a->rtype == b->rtype && a->ptpl == b->ptpl &&
	       a->holder == b->holder && a->nregs == b->nregs &&
	       (!a->nregs || !memcmp(a->regs, b->regs, a->nregs * sizeof(a->regs[0])));
}

static const char *what(const struct nvmf_req *req)
{
	uint32_t action = NVME_RESV_ACTION(le32toh(req->cmd->cdw10));
	switch (req->cmd->opcode) {
	case nvme_cmd_resv_register:
		return action == 0 ? "register" : action == 1 ? "unregister" : "replace";
	case nvme_cmd_resv_acquire:
		return action == 0 ? "acquire" : action == 1 ? "preempt" : "preempt and abort";
	default:
		return action == 0 ? "release" : "clear";
	}
}

static void run_one(struct nvmf_ns_resv *r, struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_ns *ns = r->ns;
	uint32_t cdw10 = le32toh(req->cmd->cdw10);
	if (req->cmd->opcode == nvme_cmd_resv_report) {
		nvme_resv_report_fill(&r->st, req->data, req->data_len);
		answer(req, 0);
		return;
	}
	struct nvme_resv_state next;
	struct nvme_resv_notice *notices = calloc(r->st.nregs + 1, sizeof(*notices));
	if (!notices || nvmf_resv_copy(&r->st, &next)) {
		free(notices);
		answer(req, ST_INTERNAL);
		return;
	}
	unsigned nn = 0;
	nvme_status_t st;
	switch (req->cmd->opcode) {
	case nvme_cmd_resv_register:
		st = nvme_resv_exec_register(&next, ctrl->hostid, cdw10, key_at(req, 0),
					     key_at(req, 8), nvmf_resv_ptpl_capable(r->tgt),
					     notices, &nn);
		break;
	case nvme_cmd_resv_acquire:
		st = nvme_resv_exec_acquire(&next, ctrl->hostid, cdw10, key_at(req, 0),
					    key_at(req, 8), notices, &nn);
		break;
	default:
		st = nvme_resv_exec_release(&next, ctrl->hostid, cdw10, key_at(req, 0), notices,
					    &nn);
		break;
	}
	if (!st && !same_state(&r->st, &next)) {
		if (nvmf_resv_commit(ns, &next))
			st = ST_INTERNAL;
		else {
			char hostid[NVME_UUID_STR_LEN];
			nvmf_log(r->tgt, NVMF_LOG_INFO,
				 "subsystem %s, namespace %u: reservation %s by host %s "
				 "(%s): %s, %u registrant(s), generation %u",
				 r->subsys->cfg->nqn, ns->nsid, what(req),
				 nvme_uuid_format(ctrl->hostid, hostid), ctrl->hostnqn,
				 nvme_resv_type_name(r->st.rtype), r->st.nregs, r->st.gen);
		}
	} else {
		free(next.regs);
	}
	if (!st)
		nvmf_resv_notify(r->tgt, r->subsys, ns->nsid, notices, nn);
	free(notices);
	if (!st && req->cmd->opcode == nvme_cmd_resv_acquire &&
	    NVME_RESV_ACTION(cdw10) == NVME_RESERVATION_RACQA_PREEMPT_AND_ABORT) {
		start_abort(r, req);
		return;
	}
	answer(req, st);
}

static void run_queue(struct nvmf_ns_resv *r)
{
	while (r->head && !r->aborting) {
		struct nvmf_req *req = r->head;
		r->head = req->resv_next;
		if (!r->head)
			r->tail = NULL;
		run_one(r, req);
	}
}

/* On the main group: the command joins its namespace's queue. */
static void enqueue(void *arg)
{
	struct nvmf_req *req = arg;
	struct nvmf_ns_resv *r = req->ns->resv;
	req->resv_next = NULL;
	if (r->tail)
		r->tail->resv_next = req;
	else
		r->head = req;
	r->tail = req;
	run_queue(r);
}

static void execute_resv(struct nvmf_req *req)
{
	struct nvmf_pg *main_pg = nvmf_tgt_main_pg(req->sq->tgt);
	if (req->sq->pg == main_pg) {
		enqueue(req);
		return;
	}
	req->msg.fn = enqueue;
	req->msg.arg = req;
	nvmf_pg_post(main_pg, &req->msg);
}

/* ---- parsing ---- */

/* Bytes the host's SGL describes (0 when it is not one we read; the transport refuses
 * it then). */
static uint32_t sgl_len(const struct nvmf_req *req)
{
	struct nvme_sgl_info sgl;
	return nvme_sgl_parse(req->cmd, UINT32_MAX, true, &sgl) ? 0 : sgl.len;
}

nvme_status_t nvmf_parse_resv_cmd(struct nvmf_req *req)
{
	/* Without reservations the commands do not exist for this namespace (nvmet). */
	if (!req->ns->resv)
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	req->execute = execute_resv;
	req->dir = NVMF_XFER_H2C;
	switch (req->cmd->opcode) {
	case nvme_cmd_resv_register:
		req->data_len = NVME_RESV_REGISTER_DATA;
		return 0;
	case nvme_cmd_resv_acquire:
		req->data_len = NVME_RESV_ACQUIRE_DATA;
		return 0;
	case nvme_cmd_resv_release:
		req->data_len = sgl_len(req) == RELEASE_DATA_LINUX ? RELEASE_DATA_LINUX :
								     NVME_RESV_RELEASE_DATA;
		return 0;
	default:
		break;
	}
	/* Report: the extended structure only, since host IDs are 128 bits here (nvmet and
	 * SPDK answer the same); NUMD (0's based dwords) at least the header, within MDTS. */
	uint64_t len = ((uint64_t)le32toh(req->cmd->cdw10) + 1) * 4;
	uint64_t max = ctrl->mdts ? (uint64_t)4096 << ctrl->mdts : (1u << 24) - 1;
	if (!(le32toh(req->cmd->cdw11) & NVME_RESV_REPORT_EDS))
		return nvme_generic(NVME_SC_HOSTID_FORMAT);
	if (len < NVME_RESV_REPORT_HDR || len > max)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	req->dir = NVMF_XFER_C2H;
	req->data_len = (uint32_t)len;
	return 0;
}
