/* SPDX-License-Identifier: MIT */
/*
 * Controllers of the dynamic controller model (NVMe-oF 1.1 section 3.3): allocation with
 * a cntlid, the property space (CAP, VS, CC, CSTS) and the CC.EN / CSTS.RDY / shutdown
 * state machine (NVMe Base 3.1.3 and 3.6), the error log, fatal errors.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "target/core.h"

/* CC fields (NVMe Base 3.1.3.5). */
#define CC_EN          (1u << 0)
#define CC_CSS(cc)     (((cc) >> 4) & 0x7)
#define CC_MPS(cc)     (((cc) >> 7) & 0xf)
#define CC_AMS(cc)     (((cc) >> 11) & 0x7)
#define CC_SHN(cc)     (((cc) >> 14) & 0x3)
#define CC_IOSQES(cc)  (((cc) >> 16) & 0xf)
#define CC_IOCQES(cc)  (((cc) >> 20) & 0xf)
/* CSTS fields (3.1.3.6). */
#define CSTS_RDY       (1u << 0)
#define CSTS_CFS       (1u << 1)
#define CSTS_SHST_DONE (2u << 2)

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
	uint16_t lo = s->cfg->cntlid_min ? s->cfg->cntlid_min : 1;
	uint16_t hi = s->cfg->cntlid_max ? s->cfg->cntlid_max : 0xffef;
	uint32_t span = (uint32_t)hi - lo + 1;
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

struct nvmf_tgt_ctrl *nvmf_tgt_ctrl_alloc(struct nvmf_tgt *tgt, struct nvmf_subsys *s,
				  struct nvmf_port *port, const struct nvmf_transport_ops *ops,
				  const char *hostnqn, const uint8_t hostid[16], uint32_t kato_ms)
{
	uint16_t cntlid = alloc_cntlid(tgt, s);
	if (!cntlid)
		return NULL;
	struct nvmf_tgt_ctrl *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->max_qid = s->type == NVMF_SUBSYS_DISCOVERY ? 0 :
		     (s->cfg->qid_max ? s->cfg->qid_max : 128);
	c->sqs = calloc((size_t)c->max_qid + 1, sizeof(*c->sqs));
	if (!c->sqs) {
		free(c);
		return NULL;
	}
	c->tgt = tgt;
	c->subsys = s;
	c->port = port;
	c->ops = ops;
	c->cntlid = cntlid;
	snprintf(c->hostnqn, sizeof(c->hostnqn), "%s", hostnqn);
	memcpy(c->hostid, hostid, 16);
	c->kato_ms = kato_ms;
	c->last_keep_alive_ms = tgt->now_ms(tgt);
	c->queue_size = port && port->cfg && port->cfg->max_queue_size ?
			(uint16_t)port->cfg->max_queue_size : NVMF_DEFAULT_QUEUE_SIZE;
	c->inline_data_size = port && port->cfg ? port->cfg->inline_data_size : NVMF_DEFAULT_INLINE;
	c->mdts = tgt->cfg && tgt->cfg->target.mdts ? tgt->cfg->target.mdts : 8;
	c->nr_io_queues = c->max_qid;
	/* Identify reports a volatile write cache, enabled until the host turns it off. */
	c->vwc_enabled = true;
	/* CAP (3.1.3.1): MQES 0's based, CQR=1, TO=15 (7.5 s), CSS bit 37 NVM command set. */
	c->cap = (uint64_t)(c->queue_size - 1) | (1ull << 16) | (15ull << 24) | (1ull << 37);
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

void nvmf_tgt_ctrl_free(struct nvmf_tgt_ctrl *ctrl)
{
	struct nvmf_tgt_ctrl **pp = &ctrl->tgt->ctrls;
	while (*pp && *pp != ctrl)
		pp = &(*pp)->next;
	if (*pp)
		*pp = ctrl->next;
	free(ctrl->sqs);
	free(ctrl);
}

bool nvmf_tgt_ctrl_ready(const struct nvmf_tgt_ctrl *ctrl)
{
	return (ctrl->cc & CC_EN) && (ctrl->csts & CSTS_RDY);
}

void nvmf_tgt_ctrl_fatal(struct nvmf_tgt_ctrl *ctrl)
{
	ctrl->csts |= CSTS_CFS;
	if (!ctrl->deleting) {
		ctrl->deleting = true;
		ctrl->ops->delete_ctrl(ctrl);
	}
}

nvme_status_t nvmf_tgt_ctrl_prop_get(struct nvmf_tgt_ctrl *ctrl, uint32_t off, bool size8, uint64_t *val)
{
	/* CAP is the only 8-byte property we expose; the others are 4 bytes. */
	if (size8) {
		if (off != NVMF_PROP_CAP)
			return nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
		*val = ctrl->cap;
		return 0;
	}
	switch (off) {
	case NVMF_PROP_VS:   *val = ctrl->subsys->vs; return 0;
	case NVMF_PROP_CC:   *val = ctrl->cc; return 0;
	case NVMF_PROP_CSTS: *val = ctrl->csts; return 0;
	default:
		return nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	}
}

/* CC.EN 0 -> 1: check the configuration; a bad one is a controller fatal status. */
static void ctrl_enable(struct nvmf_tgt_ctrl *ctrl)
{
	uint32_t cc = ctrl->cc;
	bool io = ctrl->subsys->type != NVMF_SUBSYS_DISCOVERY;
	if ((io && (CC_IOSQES(cc) != 6 || CC_IOCQES(cc) != 4)) || CC_MPS(cc) != 0 ||
	    CC_AMS(cc) != 0 || (CC_CSS(cc) != 0 && CC_CSS(cc) != 6)) {
		ctrl->csts = CSTS_CFS;
		return;
	}
	ctrl->csts = CSTS_RDY;
}

nvme_status_t nvmf_tgt_ctrl_prop_set(struct nvmf_tgt_ctrl *ctrl, uint32_t off, bool size8, uint64_t val)
{
	if (size8 || off != NVMF_PROP_CC)
		return nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	uint32_t old = ctrl->cc, cc = (uint32_t)val;
	ctrl->cc = cc;
	if ((cc & CC_EN) && !(old & CC_EN))
		ctrl_enable(ctrl);
	else if (!(cc & CC_EN) && (old & CC_EN))
		ctrl->csts = 0;        /* controller reset: not ready, no shutdown status */
	if (CC_SHN(cc) && !CC_SHN(old)) {
		/* Shutdown (3.6.2): make completed writes durable, then report it done. Rare
		 * and short, so a synchronous fdatasync per namespace is acceptable here. */
		for (uint32_t n = 1; n <= ctrl->subsys->max_nsid; n++) {
			struct nvmf_ns *ns = ctrl->subsys->ns[n];
			if (ns && ns->bdev && ns->bdev->volatile_cache && ns->bdev->fd >= 0)
				fdatasync(ns->bdev->fd);
		}
		ctrl->csts |= CSTS_SHST_DONE;
		ctrl->csts &= ~CSTS_RDY;
	} else if (!CC_SHN(cc) && CC_SHN(old)) {
		ctrl->csts &= ~CSTS_SHST_DONE;
	}
	return 0;
}

void nvmf_tgt_ctrl_add_error(struct nvmf_tgt_ctrl *ctrl, struct nvmf_req *req, nvme_status_t st)
{
	/* I/O threads of one controller may fail commands at the same time. */
	pthread_mutex_lock(&ctrl->tgt->stats_lock);
	struct nvmf_error_entry *e = &ctrl->errors[ctrl->error_count % NVMF_ERROR_LOG_ENTRIES];
	ctrl->error_count++;
	e->error_count = ctrl->error_count;
	e->sqid = req->sq->qid;
	e->cmdid = req->cmd->command_id;
	e->status = st;
	e->param_loc = 0xffff;
	e->lba = req->slba;
	e->nsid = le32toh(req->cmd->nsid);
	pthread_mutex_unlock(&ctrl->tgt->stats_lock);
}
