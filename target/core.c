/* SPDX-License-Identifier: MIT */
/*
 * Queues and the request lifecycle: decode a capsule, pick a handler, check the data
 * length against the host's SGL, complete with a CQE (NVMe-oF 1.1 sections 2 and 3); the
 * placement of new queues on poll groups, and a queue's end: drain its commands, detach it
 * from its controller on the controller's group, release it to its transport.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "target/auth.h"
#include "target/core.h"
#include "target/lba-lock.h"
#include "target/probes.h"
#include "target/resv.h"

struct nvmf_tpg *nvmf_pg_tpg(const struct nvmf_pg *pg, const struct nvmf_transport *t)
{
	return pg->tpg[t->index];
}

/* ---- placement ---- */

/* A new connection travelling to its group. */
struct new_queue {
	struct nvmf_msg msg;
	struct nvmf_transport *t;
	struct nvmf_pg *pg;
	void *conn;
};

static void add_queue(struct nvmf_pg *pg, struct nvmf_transport *t, void *conn)
{
	if (t->ops->pg_add_queue(nvmf_pg_tpg(pg, t), conn))
		__atomic_sub_fetch(&pg->nqueues, 1, __ATOMIC_RELAXED);
}

static void add_queue_msg(void *arg)
{
	struct new_queue *nq = arg;
	add_queue(nq->pg, nq->t, nq->conn);
	free(nq);
}

/* Admin and discovery queues on the main group (their controllers live there); I/O
 * queues on the I/O group with the fewest queues. */
static struct nvmf_pg *pick_group(struct nvmf_tgt *tgt, uint16_t qid)
{
	struct nvmf_pg *best = tgt->pgs[0];
	if (qid == 0 || tgt->npgs == 1)
		return best;
	best = tgt->pgs[1];
	for (unsigned i = 2; i < tgt->npgs; i++)
		if (__atomic_load_n(&tgt->pgs[i]->nqueues, __ATOMIC_RELAXED) <
		    __atomic_load_n(&best->nqueues, __ATOMIC_RELAXED))
			best = tgt->pgs[i];
	return best;
}

int nvmf_tgt_new_queue(struct nvmf_transport *t, struct nvmf_pg *from, uint16_t qid, void *conn)
{
	struct nvmf_pg *pg = pick_group(t->tgt, qid);
	/* Counted now, so a burst of connects spreads before any queue exists. */
	__atomic_add_fetch(&pg->nqueues, 1, __ATOMIC_RELAXED);
	if (pg == from) {
		add_queue(pg, t, conn);
		return 0;
	}
	struct new_queue *nq = malloc(sizeof(*nq));
	if (!nq) {
		__atomic_sub_fetch(&pg->nqueues, 1, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	nq->t = t;
	nq->pg = pg;
	nq->conn = conn;
	nq->msg.fn = add_queue_msg;
	nq->msg.arg = nq;
	nvmf_pg_post(pg, &nq->msg);
	return 0;
}

unsigned nvmf_tgt_live_queues(const struct nvmf_tgt *tgt)
{
	unsigned n = 0;
	for (unsigned i = 0; i < tgt->npgs; i++)
		n += __atomic_load_n(&tgt->pgs[i]->nqueues, __ATOMIC_RELAXED);
	return n;
}

/* ---- queue lifecycle ---- */

void nvmf_sq_init(struct nvmf_sq *sq, struct nvmf_pg *pg, struct nvmf_port *port,
		  struct nvmf_transport *t)
{
	memset(sq, 0, sizeof(*sq));
	sq->tgt = pg->tgt;
	sq->pg = pg;
	sq->port = port;
	sq->transport = t;
	sq->state = NVMF_SQ_LIVE;
	sq->quiescing = __atomic_load_n(&pg->tgt->stopping, __ATOMIC_ACQUIRE);
	sq->pg_next = pg->sqs;
	pg->sqs = sq;
}

/* On the queue's group: the core is done with it. */
static void sq_release(void *arg)
{
	struct nvmf_sq *sq = arg;
	struct nvmf_pg *pg = sq->pg;
	for (struct nvmf_sq **pp = &pg->sqs; *pp; pp = &(*pp)->pg_next)
		if (*pp == sq) {
			*pp = sq->pg_next;
			break;
		}
	sq->state = NVMF_SQ_RELEASED;
	nvmf_sq_auth_free(sq);
	__atomic_sub_fetch(&pg->nqueues, 1, __ATOMIC_RELAXED);
	sq->transport->ops->queue_released(sq); /* may free sq */
}

/* On the controller's group: forget @sq, then release it on its own group. */
static void sq_detach(void *arg)
{
	struct nvmf_sq *sq = arg;
	struct nvmf_tgt_ctrl *ctrl = sq->ctrl;
	sq->ctrl = NULL;
	nvmf_tgt_ctrl_detach(ctrl, sq);
	sq->msg.fn = sq_release;
	nvmf_pg_post(sq->pg, &sq->msg);
}

/* Advance a draining queue once nothing of it is in flight. Always by message, so that
 * no caller sees its queue or controller freed under it. */
static void sq_drained(struct nvmf_sq *sq)
{
	sq->state = NVMF_SQ_DETACHING;
	sq->msg.arg = sq;
	if (sq->ctrl) {
		sq->msg.fn = sq_detach;
		nvmf_pg_post(sq->ctrl->pg, &sq->msg);
	} else {
		sq->msg.fn = sq_release;
		nvmf_pg_post(sq->pg, &sq->msg);
	}
}

void nvmf_sq_destroy(struct nvmf_sq *sq)
{
	if (sq->state != NVMF_SQ_LIVE)
		return;
	sq->state = NVMF_SQ_DRAINING;
	/* A first half waiting for a second that will not come would hold the drain. */
	if (sq->fused_first)
		nvmf_fused_settle(sq->fused_first, nvme_generic(NVME_SC_FUSED_MISSING));
	sq->fused_first = NULL;
	/* Parked AERs never complete on their own; this queue is their only way out. */
	if (sq->ctrl && sq->qid == 0 && sq->ctrl->nr_aer)
		nvmf_tgt_ctrl_fail_aers(sq->ctrl, nvme_generic(NVME_SC_ABORT_QUEUE));
	if (sq->state == NVMF_SQ_DRAINING && !sq->inflight)
		sq_drained(sq);
}

/* ---- requests ---- */

/* Only the owning group writes its counters (poll-group.h). */
#define STAT_ADD(field, v) NVMF_PG_COUNT(field, v)

void nvmf_req_hold_ns(struct nvmf_req *req, struct nvmf_ns *ns)
{
	nvmf_req_hold_ns_access(req, ns, ns->resv ? nvmf_resv_access(req->sq->ctrl, ns->nsid) : 0);
}

void nvmf_req_hold_ns_access(struct nvmf_req *req, struct nvmf_ns *ns, uint8_t access)
{
	req->ns = ns;
	if (!ns->stats || req->sq->pg->index >= ns->npgs)
		return;
	struct nvmf_ns_pg_stats *st = &ns->stats[req->sq->pg->index];
	STAT_ADD(st->inflight, 1);
	req->ns_held = true;
	req->ns_epoch = (access & NVMF_RESV_ACCESS_EPOCH) != 0;
	if (ns->resv)
		STAT_ADD(st->epoch_inflight[req->ns_epoch], 1);
}

void nvmf_req_release_ns(struct nvmf_req *req, nvme_status_t status)
{
	if (!req->ns_held)
		return;
	req->ns_held = false;
	struct nvmf_pg *pg = req->sq->pg;
	struct nvmf_ns_pg_stats *st = &req->ns->stats[pg->index];
	if (req->sq->qid && req->cmd->opcode == nvme_cmd_read) {
		STAT_ADD(st->reads, 1);
		STAT_ADD(st->read_bytes, status ? 0 : req->data_len);
	} else if (req->sq->qid && req->cmd->opcode == nvme_cmd_write) {
		STAT_ADD(st->writes, 1);
		STAT_ADD(st->write_bytes, status ? 0 : req->data_len);
	} else {
		STAT_ADD(st->other, 1);
	}
	if (status)
		STAT_ADD(st->errors, 1);
	/* Latency bucket: log2 of the microseconds, the last bucket holds the rest. */
	uint64_t us = pg->now_us - req->start_us;
	unsigned b = us ? 63u - (unsigned)__builtin_clzll(us) : 0;
	STAT_ADD(st->lat[b < NVMF_LAT_BUCKETS ? b : NVMF_LAT_BUCKETS - 1], 1);
	/* Read by a Preempt and Abort waiting on the main group (target/resv-cmd.c). */
	if (req->ns->resv)
		__atomic_store_n(
			&st->epoch_inflight[req->ns_epoch],
			__atomic_load_n(&st->epoch_inflight[req->ns_epoch], __ATOMIC_RELAXED) - 1,
			__ATOMIC_RELEASE);
	/* Last: once inflight reads 0 the namespace may be freed (target/namespace.c). */
	__atomic_store_n(&st->inflight, __atomic_load_n(&st->inflight, __ATOMIC_RELAXED) - 1,
			 __ATOMIC_RELEASE);
}

/* Pick the parser: Fabrics commands on any queue; before Connect nothing else. */
static nvme_status_t parse(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	if (req->cmd->opcode == nvme_admin_fabrics) {
		if (!sq->ctrl)
			return nvmf_parse_connect_cmd(req);
		return nvmf_parse_fabrics_cmd(req);
	}
	/* Only Connect is accepted on a queue that is not connected (as nvmet). */
	if (!sq->ctrl)
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	/* Until its authentication succeeded a queue takes Fabrics commands only. */
	if (sq->auth_required && !sq->authenticated)
		return nvme_cmd_specific(NVME_SC_AUTH_REQUIRED) | NVME_SC_DNR;
	if (sq->qid == 0) {
		if (sq->ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY)
			return nvmf_parse_discovery_cmd(req);
		return nvmf_parse_admin_cmd(req);
	}
	return nvmf_parse_io_cmd(req);
}

bool nvmf_sq_tls(const struct nvmf_sq *sq)
{
	const char *h, *s;
	return sq->transport->ops->tls_peer && sq->transport->ops->tls_peer(sq, &h, &s);
}

bool nvmf_sq_accepting(const struct nvmf_sq *sq)
{
	return !sq->quiescing;
}

bool nvmf_req_init(struct nvmf_req *req, struct nvmf_sq *sq, struct nvme_sqe *cmd,
		   struct nvme_cqe *cqe)
{
	req->cmd = cmd;
	req->cqe = cqe;
	req->sq = sq;
	req->ns = NULL;
	req->ns_held = false;
	req->start_us = sq->pg->now_us;
	req->dir = NVMF_XFER_NONE;
	req->data_len = 0;
	req->sgl_len = 0;
	req->execute = NULL;
	req->cqe_optional = false;
	req->aux = NULL;
	req->slba = 0;
	req->step = 0;
	/* The nsid the probes give (target/probes.h): a Fabrics command's bytes 4-7 are none. */
	req->probe_nsid = cmd->opcode == nvme_admin_fabrics ? 0 : le32toh(cmd->nsid);
	memset(cqe, 0, sizeof(*cqe));
	cqe->command_id = cmd->command_id;
	sq->inflight++;
	/* The SQ head moves when a command is fetched, not when it completes (a parked AER
	 * must not hold it back); with SQ flow control the host relies on it. A queue that
	 * disabled it counts on anyway: the CQEs do not show it. */
	sq->sqhd = sq->size ? (uint16_t)((sq->sqhd + 1) % sq->size) : 0;
	NVMF_PROBE_REQUEST_RECEIVE(req, sq->qid, cmd->command_id, cmd->opcode, req->probe_nsid);

	req->fused = 0;
	req->fused_ready = false;
	req->fused_status = 0;
	req->fused_peer = NULL;
	req->lba_active = false;
	/* Fused halves pair in arrival order (target/caw.c); other commands only end a
	 * waiting first half, or the memory of a failed one. */
	if ((cmd->flags & NVMF_FUSED_MASK) || sq->fused_first || sq->fused_first_failed) {
		nvme_status_t fst = nvmf_fused_arrive(req);
		if (fst) {
			nvmf_req_complete(req, fst);
			return false;
		}
	}
	/* Traffic-based keep alive (Identify CTRATT.TBKAS): any command the host sends,
	 * failing ones included, shows it is alive; a Linux host then skips Keep Alive. The
	 * pass's clock reading is precise enough for a timer of seconds. */
	if (sq->ctrl)
		__atomic_store_n(&sq->ctrl->last_keep_alive_ms, sq->pg->now_ms, __ATOMIC_RELAXED);
	nvme_status_t st = parse(req);
	if (req->fused)
		st = nvmf_fused_parsed(req, st);
	if (st) {
		/* What the parsers find is wrong with the command stays wrong when retried
		 * (DNR), except a path-related status (SCT 3: ANA inaccessible, transition):
		 * the host must retry that on another path, or later on this one. */
		if (((st >> 8) & 7) == NVME_SCT_PATH)
			nvmf_req_complete(req, st);
		else
			nvmf_req_complete_dnr(req, st);
		return false;
	}
	return true;
}

void nvmf_req_execute(struct nvmf_req *req)
{
	/* The host's SGL must describe exactly what the command moves: Data SGL Length
	 * Invalid otherwise (NVMe Base 4.3.2; nvmet is equally strict). */
	if (req->sgl_len != req->data_len) {
		nvme_status_t st = nvme_generic(NVME_SC_SGL_INVALID_DATA) | NVME_SC_DNR;
		if (req->fused)
			nvmf_fused_fail(req, st);
		else
			nvmf_req_complete(req, st);
		return;
	}
	NVMF_PROBE_REQUEST_EXECUTE(req, req->sq->qid, req->cmd->command_id, req->cmd->opcode,
				   req->probe_nsid, req->data_len);
	/* Not while a Compare and Write holds the namespace: parked, run at its end. */
	if (req->ns && req->sq->qid && !nvmf_lba_enter(req))
		return;
	req->execute(req);
}

void nvmf_req_complete(struct nvmf_req *req, nvme_status_t status)
{
	struct nvmf_sq *sq = req->sq;
	if (status && sq->ctrl)
		nvmf_tgt_ctrl_add_error(sq->ctrl, req, status);
	/* With SQ flow control disabled SQHD is reserved: left as nvmf_req_init zeroed it
	 * (FFFFh in the Connect response, which set it so), as nvmet and FreeBSD's nvmft. */
	if (!sq->sqflow_disabled)
		req->cqe->sq_head = htole16(sq->sqhd);
	req->cqe->sq_id = htole16(sq->qid);
	req->cqe->status = htole16((uint16_t)(status << 1));
	req->cqe_optional = sq->sqflow_disabled && !status && !req->cqe->result.u64;
	NVMF_PROBE_REQUEST_RESPONSE(req, sq->qid, req->cmd->command_id, req->cmd->opcode,
				    req->probe_nsid, status);
	if (req->lba_active)
		nvmf_lba_exit(req);
	nvmf_req_release_ns(req, status);
	free(req->aux);
	req->aux = NULL;
	sq->inflight--;
	sq->transport->ops->queue_response(req);
	if (sq->state == NVMF_SQ_DRAINING && !sq->inflight)
		sq_drained(sq);
}

void nvmf_req_complete_dnr(struct nvmf_req *req, nvme_status_t status)
{
	nvmf_req_complete(req, status | NVME_SC_DNR);
}

void nvmf_req_abandon(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	NVMF_PROBE_REQUEST_ABANDON(req, sq->qid, req->cmd->command_id);
	if (req->fused)
		nvmf_fused_abandon(req);
	if (req->lba_active)
		nvmf_lba_exit(req);
	nvmf_req_release_ns(req, nvme_generic(NVME_SC_ABORT_REQ));
	free(req->aux);
	req->aux = NULL;
	sq->inflight--;
	if (sq->state == NVMF_SQ_DRAINING && !sq->inflight)
		sq_drained(sq);
}
