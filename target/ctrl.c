/* SPDX-License-Identifier: MIT */
/*
 * Controllers of the dynamic controller model (NVMe-oF 1.1 section 3.3): allocation with
 * a cntlid, the property space (CAP, VS, CC, CSTS) and the CC.EN / CSTS.RDY / shutdown
 * state machine (NVMe Base 3.1.3 and 3.6), the error log, fatal errors.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include "target/admin.h"
#include "target/auth.h"
#include "target/core.h"
#include "target/model.h"
#include "target/log.h"
#include "target/resv.h"

/* CC / CSTS fields: libnvme's NVME_CC_* / NVME_CSTS_* (NVMe Base 3.1.3.5-6). */
#define CSTS_RDY     ((uint32_t)NVME_CSTS_RDY_MASK << NVME_CSTS_RDY_SHIFT)
#define CSTS_CFS     ((uint32_t)NVME_CSTS_CFS_MASK << NVME_CSTS_CFS_SHIFT)
#define CSTS_SHST(v) ((uint32_t)(v) << NVME_CSTS_SHST_SHIFT)

static bool cntlid_in_use(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint16_t id)
{
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (c->subsys == s && c->cntlid == id)
			return true;
	return false;
}

/* Next free cntlid of @s in [cntlid_min, cntlid_max], round robin; 0 when exhausted. */
static uint16_t alloc_cntlid(struct nvmf_tgt *tgt, struct nvmf_subsys *s)
{
	/* 0: unset in a config built in code; the loader writes the defaults. */
	uint16_t lo = s->cfg->cntlid_min ? s->cfg->cntlid_min : 1;
	uint16_t hi = s->cfg->cntlid_max ? s->cfg->cntlid_max : 0xffef;
	uint32_t span = hi >= lo ? (uint32_t)hi - lo + 1 : 0;
	for (uint32_t i = 0; i < span; i++) {
		uint16_t id = s->next_cntlid;
		if (id < lo || id > hi)
			id = lo;
		s->next_cntlid = (uint16_t)(id + 1);
		if (!cntlid_in_use(tgt, s, id))
			return id;
	}
	return 0;
}

struct nvmf_tgt_ctrl *nvmf_tgt_ctrl_alloc(struct nvmf_tgt *tgt, struct nvmf_pg *pg,
					  struct nvmf_subsys *s, struct nvmf_port *port,
					  struct nvmf_transport *transport, const char *hostnqn,
					  const uint8_t hostid[16], uint32_t kato_ms)
{
	uint16_t cntlid = alloc_cntlid(tgt, s);
	if (!cntlid)
		return NULL;
	struct nvmf_tgt_ctrl *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->max_qid = nvmf_subsys_max_qid(s);
	c->sqs = calloc((size_t)c->max_qid + 1, sizeof(*c->sqs));
	if (!c->sqs) {
		free(c);
		return NULL;
	}
	c->tgt = tgt;
	c->pg = pg;
	c->subsys = s;
	c->port = port;
	c->transport = transport;
	c->cntlid = cntlid;
	c->uid = ++tgt->next_ctrl_uid;
	c->connected_at = (int64_t)time(NULL);
	snprintf(c->hostnqn, sizeof(c->hostnqn), "%s", hostnqn);
	memcpy(c->hostid, hostid, 16);
	/* A discovery host that asked for no keep-alive still gets one, long: it may vanish
	 * without a disconnect (nvmet does the same, 120 s). nvmf_target.discovery_kato says
	 * how long; Set Features KATO may change it later. */
	if (s->type == NVMF_SUBSYS_DISCOVERY && !kato_ms)
		kato_ms = (tgt->cfg->target.discovery_kato ? tgt->cfg->target.discovery_kato :
							     NVMF_DEFAULT_DISC_KATO) *
			  1000u;
	c->kato_ms = kato_ms;
	c->last_keep_alive_ms = pg->now_ms;
	c->queue_size = port->queue_size;
	c->inline_data_size = port->inline_size;
	c->mdts = port->mdts; /* the port's (param.mdts), as nvmet's param_mdts */
	c->nr_io_queues = c->max_qid;
	nvmf_ctrl_features_init(c);
	pthread_mutex_init(&c->error_lock, NULL);
	pthread_mutex_init(&c->auth_lock, NULL);
	/* Identify reports a volatile write cache, enabled until the host turns it off. */
	c->vwc_enabled = true;
	if (nvmf_ctrl_auth_setup(c) || nvmf_resv_ctrl_init(c)) {
		nvmf_ctrl_auth_free(c);
		nvmf_resv_ctrl_free(c);
		pthread_mutex_destroy(&c->error_lock);
		pthread_mutex_destroy(&c->auth_lock);
		free(c->sqs);
		free(c);
		return NULL;
	}
	/* CAP (3.1.3.1): MQES 0's based, CQR=1, TO=15 (7.5 s), CSS bit 37 NVM command set. */
	c->cap = (uint64_t)(c->queue_size - 1) << NVME_CAP_MQES_SHIFT |
		 (uint64_t)1 << NVME_CAP_CQR_SHIFT | (uint64_t)15 << NVME_CAP_TO_SHIFT |
		 (uint64_t)NVME_CAP_CSS_NVM << NVME_CAP_CSS_SHIFT;
	c->next = tgt->ctrls;
	tgt->ctrls = c;
	return c;
}

struct nvmf_tgt_ctrl *nvmf_tgt_ctrl_find(struct nvmf_tgt *tgt, const char *subnqn, uint16_t cntlid)
{
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (c->cntlid == cntlid && !strcmp(c->subsys->cfg->nqn, subnqn))
			return c;
	return NULL;
}

static void ctrl_free(struct nvmf_tgt_ctrl *ctrl)
{
	nvmf_log(ctrl->tgt, NVMF_LOG_INFO, "controller %u of %s: host %s disconnected",
		 ctrl->cntlid, ctrl->subsys->cfg->nqn, ctrl->hostnqn);
	struct nvmf_tgt_ctrl **pp = &ctrl->tgt->ctrls;
	while (*pp && *pp != ctrl)
		pp = &(*pp)->next;
	if (*pp)
		*pp = ctrl->next;
	struct nvmf_tgt *tgt = ctrl->tgt;
	bool retired = false;
	for (size_t i = 0; i < tgt->n_retired_subsys && !retired; i++)
		retired = tgt->retired_subsys[i] == ctrl->subsys;
	pthread_mutex_destroy(&ctrl->error_lock);
	nvmf_ctrl_auth_free(ctrl);
	nvmf_resv_ctrl_free(ctrl);
	pthread_mutex_destroy(&ctrl->auth_lock);
	free(ctrl->sqs);
	free(ctrl);
	if (retired)
		nvmf_tgt_subsys_reap(tgt); /* its subsystem was removed: maybe the last user */
}

void nvmf_tgt_ctrl_attach(struct nvmf_tgt_ctrl *ctrl, struct nvmf_sq *sq, uint16_t qid)
{
	ctrl->sqs[qid] = sq;
}

static void io_stats_add(struct nvmf_io_stats *sum, const struct nvmf_io_stats *q)
{
	sum->host_reads += __atomic_load_n(&q->host_reads, __ATOMIC_RELAXED);
	sum->host_writes += __atomic_load_n(&q->host_writes, __ATOMIC_RELAXED);
	sum->units_read += __atomic_load_n(&q->units_read, __ATOMIC_RELAXED);
	sum->units_written += __atomic_load_n(&q->units_written, __ATOMIC_RELAXED);
}

void nvmf_tgt_ctrl_io_stats(const struct nvmf_tgt_ctrl *ctrl, struct nvmf_io_stats *out)
{
	*out = ctrl->io_done;
	for (unsigned i = 0; i <= ctrl->max_qid; i++)
		if (ctrl->sqs[i])
			io_stats_add(out, &ctrl->sqs[i]->io_stats);
}

void nvmf_tgt_ctrl_detach(struct nvmf_tgt_ctrl *ctrl, struct nvmf_sq *sq)
{
	/* Drained: nothing of it counts any more. */
	io_stats_add(&ctrl->io_done, &sq->io_stats);
	if (sq->qid <= ctrl->max_qid && ctrl->sqs[sq->qid] == sq)
		ctrl->sqs[sq->qid] = NULL;
	/* The association ends with its admin queue: take the I/O queues down too. */
	if (sq->qid == 0)
		nvmf_tgt_ctrl_delete(ctrl);
	for (unsigned i = 0; i <= ctrl->max_qid; i++)
		if (ctrl->sqs[i])
			return;
	ctrl_free(ctrl);
}

/* On the queue's own group. */
static void disconnect_msg(void *arg)
{
	struct nvmf_sq *sq = arg;
	sq->transport->ops->disconnect_queue(sq);
}

void nvmf_tgt_ctrl_delete(struct nvmf_tgt_ctrl *ctrl)
{
	if (ctrl->deleting)
		return;
	ctrl->deleting = true;
	/* A queue stays attached (and alive) until its detach reaches this group, which
	 * comes after any message sent to it from here: the pointers are safe to use. */
	for (unsigned i = 0; i <= ctrl->max_qid; i++) {
		struct nvmf_sq *sq = ctrl->sqs[i];
		if (!sq || sq->disconnect_sent)
			continue;
		sq->disconnect_sent = true;
		if (sq->pg == ctrl->pg) {
			sq->transport->ops->disconnect_queue(sq);
		} else {
			sq->ctl_msg.fn = disconnect_msg;
			sq->ctl_msg.arg = sq;
			nvmf_pg_post(sq->pg, &sq->ctl_msg);
		}
	}
}

bool nvmf_tgt_ctrl_ready(const struct nvmf_tgt_ctrl *ctrl)
{
	uint32_t cc = __atomic_load_n(&ctrl->cc, __ATOMIC_RELAXED);
	uint32_t csts = __atomic_load_n(&ctrl->csts, __ATOMIC_RELAXED);
	return NVME_CC_EN(cc) && (csts & CSTS_RDY);
}

static void set_csts(struct nvmf_tgt_ctrl *ctrl, uint32_t csts)
{
	__atomic_store_n(&ctrl->csts, csts, __ATOMIC_RELAXED);
}

void nvmf_tgt_ctrl_fatal(struct nvmf_tgt_ctrl *ctrl)
{
	set_csts(ctrl, ctrl->csts | CSTS_CFS);
	nvmf_tgt_ctrl_delete(ctrl);
}

nvme_status_t nvmf_tgt_ctrl_prop_get(struct nvmf_tgt_ctrl *ctrl, uint32_t off, bool size8,
				     uint64_t *val)
{
	/* CAP is the only 8-byte property we expose; the others are 4 bytes. */
	if (size8) {
		if (off != NVMF_PROP_CAP)
			return nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
		*val = ctrl->cap;
		return 0;
	}
	switch (off) {
	case NVMF_PROP_VS:
		*val = ctrl->subsys->vs;
		return 0;
	case NVMF_PROP_CC:
		*val = ctrl->cc;
		return 0;
	case NVMF_PROP_CSTS:
		*val = ctrl->csts;
		return 0;
	default:
		return nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	}
}

/* CC.EN 0 -> 1: check the configuration; a bad one is a controller fatal status. */
static void ctrl_enable(struct nvmf_tgt_ctrl *ctrl)
{
	uint32_t cc = ctrl->cc;
	bool io = ctrl->subsys->type != NVMF_SUBSYS_DISCOVERY;
	if ((io && (NVME_CC_IOSQES(cc) != 6 || NVME_CC_IOCQES(cc) != 4)) || NVME_CC_MPS(cc) != 0 ||
	    NVME_CC_AMS(cc) != NVME_CC_AMS_RR ||
	    (NVME_CC_CSS(cc) != NVME_CC_CSS_NVM && NVME_CC_CSS(cc) != NVME_CC_CSS_CSI)) {
		set_csts(ctrl, CSTS_CFS);
		return;
	}
	set_csts(ctrl, CSTS_RDY);
}

/* Shutdown (3.6.2): make completed writes durable, one namespace after the other through
 * the backend's FLUSH, then report it done and answer the Property Set. */
static void shutdown_flush_next(struct nvmf_req *req);

static void shutdown_flush_done(struct nvmf_bdev_io *io, int status)
{
	struct nvmf_req *req = io->ctx;
	if (status)
		nvmf_log(req->sq->tgt, NVMF_LOG_ERROR,
			 "controller %u: shutdown flush of namespace %u: %s", req->sq->ctrl->cntlid,
			 req->ns->nsid, strerror(-status));
	nvmf_req_release_ns(req, status ? nvme_generic(NVME_SC_INTERNAL) : 0);
	shutdown_flush_next(req);
}

static void shutdown_flush_next(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	const struct nvmf_subsys *s = ctrl->subsys;
	while (++req->step <= s->max_nsid) {
		struct nvmf_ns *ns = nvmf_subsys_ns(s, req->step);
		if (!ns || !ns->bdev->volatile_cache)
			continue;
		nvmf_req_hold_ns(req, ns);
		/* done runs now, later, or after a retry */
		nvmf_req_bio_submit(req, NVMF_BDEV_FLUSH, 0, 0, NULL, shutdown_flush_done);
		return;
	}
	req->ns = NULL;
	set_csts(ctrl, (ctrl->csts & ~(CSTS_RDY | CSTS_SHST(NVME_CSTS_SHST_MASK))) |
			       CSTS_SHST(NVME_CSTS_SHST_CMPLT));
	nvmf_req_complete(req, 0);
}

nvme_status_t nvmf_tgt_ctrl_prop_set(struct nvmf_tgt_ctrl *ctrl, struct nvmf_req *req, uint32_t off,
				     bool size8, uint64_t val)
{
	if (size8 || off != NVMF_PROP_CC)
		return nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	uint32_t old = ctrl->cc, cc = (uint32_t)val;
	__atomic_store_n(&ctrl->cc, cc, __ATOMIC_RELAXED);
	if (NVME_CC_EN(cc) && !NVME_CC_EN(old))
		ctrl_enable(ctrl);
	else if (!NVME_CC_EN(cc) && NVME_CC_EN(old))
		set_csts(ctrl, 0); /* controller reset: not ready, no shutdown status */
	if (NVME_CC_SHN(cc) && !NVME_CC_SHN(old)) {
		set_csts(ctrl, (ctrl->csts & ~CSTS_SHST(NVME_CSTS_SHST_MASK)) |
				       CSTS_SHST(NVME_CSTS_SHST_OCCUR));
		req->step = 0;
		shutdown_flush_next(req);
		return NVMF_PROP_PENDING;
	}
	if (!NVME_CC_SHN(cc) && NVME_CC_SHN(old))
		set_csts(ctrl, ctrl->csts & ~CSTS_SHST(NVME_CSTS_SHST_MASK));
	return 0;
}

void nvmf_tgt_ctrl_add_error(struct nvmf_tgt_ctrl *ctrl, struct nvmf_req *req, nvme_status_t st)
{
	/* I/O groups of one controller may fail commands at the same time. */
	pthread_mutex_lock(&ctrl->error_lock);
	struct nvmf_error_entry *e = &ctrl->errors[ctrl->error_count % NVMF_ERROR_LOG_ENTRIES];
	ctrl->error_count++;
	e->error_count = ctrl->error_count;
	e->sqid = req->sq->qid;
	e->cmdid = req->cmd->command_id;
	e->status = st;
	e->param_loc = 0xffff;
	e->lba = req->slba;
	e->nsid = le32toh(req->cmd->nsid);
	pthread_mutex_unlock(&ctrl->error_lock);
}

void nvmf_tgt_check_keep_alive(struct nvmf_tgt *tgt)
{
	uint64_t now = nvmf_tgt_now_ms(tgt);
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next) {
		if (c->deleting)
			continue;
		/* A failed authentication (its grace over), or none in time. */
		if (nvmf_ctrl_auth_expired(c, now)) {
			bool failed =
				__atomic_load_n(&c->auth_fail_deadline_ms, __ATOMIC_ACQUIRE) != 0;
			nvmf_log(tgt, NVMF_LOG_WARNING,
				 "controller %u of %s (host %s): %s, tearing the "
				 "association down",
				 c->cntlid, c->subsys->cfg->nqn, c->hostnqn,
				 failed ? "authentication failed" : "not authenticated in time");
			nvmf_tgt_ctrl_fatal(c);
			continue;
		}
		if (!c->kato_ms)
			continue;
		/* An I/O group's pass may have read the clock after we did: not expired. */
		uint64_t last = __atomic_load_n(&c->last_keep_alive_ms, __ATOMIC_RELAXED);
		if (now > last && now - last > c->kato_ms) {
			nvmf_log(tgt, NVMF_LOG_WARNING,
				 "controller %u of %s (host %s): keep-alive timeout "
				 "(%u ms), tearing the association down",
				 c->cntlid, c->subsys->cfg->nqn, c->hostnqn, c->kato_ms);
			nvmf_tgt_ctrl_fatal(c);
		}
	}
}
