/* SPDX-License-Identifier: MIT */
/*
 * Reservations in the target (see target/resv.h): each namespace's state and how every
 * controller learns what it may do, the notifications and their log (80h), the
 * Reservation Notification Mask (82h) and Reservation Persistence (83h) features, what
 * Identify reports. Everything here runs on the main group but nvmf_resv_check_io.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/identify.h"
#include "target/admin.h"
#include "target/log.h"
#include "target/resv.h"

#define ST_CONFLICT (nvme_generic(NVME_SC_RESERVATION_CONFLICT) | NVME_SC_DNR)

/* Feature 82h's mask bits: 1 << the log page type they mask (figure 2.0 "Reservation
 * Notification Mask"). */
#define MASK_ALL \
	(NVME_FEAT_RESV_NOTIFY_REGPRE | NVME_FEAT_RESV_NOTIFY_RESREL | NVME_FEAT_RESV_NOTIFY_RESPRE)

static inline uint32_t cdw11(const struct nvmf_req *req)
{
	return le32toh(req->cmd->cdw11);
}

/* ---- namespaces and controllers ---- */

static void ns_resv_free(struct nvmf_ns_resv *r)
{
	free(r->st.regs);
	free(r);
}

int nvmf_resv_ns_attach(struct nvmf_tgt *tgt, struct nvmf_subsys *s, struct nvmf_ns *ns)
{
	if (!ns->resv_enable || ns->resv)
		return 0;
	struct nvmf_ns_resv *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->tgt = tgt;
	r->subsys = s;
	r->ns = ns;
	int rc = nvmf_resv_store_apply(tgt, s, ns, &r->st);
	if (rc < 0) {
		free(r);
		return rc;
	}
	ns->resv = r;
	ns->resv_free = ns_resv_free;
	/* A namespace new at this nsid: no mask of an earlier one applies to it. */
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (c->subsys == s && c->resv)
			c->resv->mask[ns->nsid] = 0;
	nvmf_resv_publish(ns);
	return 0;
}

static uint8_t access_of(const struct nvmf_ns_resv *r, const struct nvmf_tgt_ctrl *c)
{
	return (uint8_t)(nvme_resv_deny(&r->st, c->hostid) |
			 (r->epoch ? NVMF_RESV_ACCESS_EPOCH : 0));
}

void nvmf_resv_publish(struct nvmf_ns *ns)
{
	struct nvmf_ns_resv *r = ns->resv;
	/* A namespace taken away whose queued commands still run must not speak for the
	 * one that took its nsid since. */
	const struct nvmf_ns *slot = nvmf_subsys_ns(r->subsys, ns->nsid);
	if (slot && slot != ns)
		return;
	for (struct nvmf_tgt_ctrl *c = r->tgt->ctrls; c; c = c->next)
		if (c->subsys == r->subsys)
			__atomic_store_n(&c->resv_access[ns->nsid], access_of(r, c),
					 __ATOMIC_RELEASE);
}

int nvmf_resv_ctrl_init(struct nvmf_tgt_ctrl *ctrl)
{
	ctrl->resv = calloc(1, sizeof(*ctrl->resv));
	if (!ctrl->resv)
		return -ENOMEM;
	const struct nvmf_subsys *s = ctrl->subsys;
	for (uint32_t n = 1; n <= s->max_nsid; n++) {
		const struct nvmf_ns *ns = nvmf_subsys_ns(s, n);
		if (ns && ns->resv)
			__atomic_store_n(&ctrl->resv_access[n], access_of(ns->resv, ctrl),
					 __ATOMIC_RELEASE);
	}
	return 0;
}

void nvmf_resv_ctrl_free(struct nvmf_tgt_ctrl *ctrl)
{
	free(ctrl->resv);
	ctrl->resv = NULL;
}

nvme_status_t nvmf_resv_check_io(uint8_t access, uint8_t opcode)
{
	switch (nvme_resv_cmd_group(opcode)) {
	case NVME_RESV_GROUP_READ:
		return access & NVME_RESV_DENY_READ ? ST_CONFLICT : 0;
	case NVME_RESV_GROUP_WRITE:
		return access & NVME_RESV_DENY_WRITE ? ST_CONFLICT : 0;
	default:
		return 0;
	}
}

int nvmf_resv_copy(const struct nvme_resv_state *st, struct nvme_resv_state *out)
{
	*out = *st;
	out->regs = calloc(st->nregs + 1, sizeof(*out->regs));
	if (!out->regs)
		return -ENOMEM;
	if (st->nregs)
		memcpy(out->regs, st->regs, st->nregs * sizeof(*out->regs));
	return 0;
}

int nvmf_resv_commit(struct nvmf_ns *ns, struct nvme_resv_state *next)
{
	struct nvmf_ns_resv *r = ns->resv;
	/* Persisted before anyone sees it: a fence the host was told of survives a crash. */
	if ((r->st.ptpl || next->ptpl) && nvmf_resv_ptpl_capable(r->tgt)) {
		char err[512];
		int rc = nvmf_resv_store_put(r->tgt, r->subsys, ns, next, err, sizeof(err));
		if (rc) {
			nvmf_log(r->tgt, NVMF_LOG_ERROR,
				 "subsystem %s, namespace %u: reservation not changed: %s",
				 r->subsys->cfg->nqn, ns->nsid, err);
			free(next->regs);
			next->regs = NULL;
			return rc;
		}
	}
	free(r->st.regs);
	r->st = *next;
	nvmf_resv_publish(ns);
	return 0;
}

/* "host a1a1...-... (nqn.x, nqn.y)": @hostid and the host NQNs of its live controllers of
 * @s ("no controller connected" when none: the host that left the reservation behind). */
static void name_host(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
		      const uint8_t hostid[16], char *buf, size_t len)
{
	char id[NVME_UUID_STR_LEN];
	int n = snprintf(buf, len, "host %s (", nvme_uuid_format(hostid, id));
	bool any = false;
	for (const struct nvmf_tgt_ctrl *c = tgt->ctrls; c && n > 0 && (size_t)n < len;
	     c = c->next) {
		if (c->subsys != s || c->deleting || memcmp(c->hostid, hostid, 16))
			continue;
		if (any && strstr(buf, c->hostnqn))
			continue; /* several controllers of one host NQN: named once */
		n += snprintf(buf + n, len - (size_t)n, "%s%s", any ? ", " : "", c->hostnqn);
		any = true;
	}
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s)", any ? "" : "no controller connected");
}

int nvmf_resv_clear_all(struct nvmf_ns *ns, struct nvmf_resv_cleared *out)
{
	struct nvmf_ns_resv *r = ns->resv;
	const struct nvme_resv_state *st = &r->st;
	memset(out, 0, sizeof(*out));
	out->gen = st->gen;
	if (!st->nregs)
		return 0; /* no registrant, so no reservation either */
	out->rtype = st->rtype;
	out->single = st->rtype && !nvme_resv_all_regs(st->rtype);
	if (out->single)
		memcpy(out->holder, st->regs[st->holder].hostid, 16);
	out->nregs = st->nregs;
	char holder[512] = "";
	if (out->single)
		name_host(r->tgt, r->subsys, out->holder, holder, sizeof(holder));

	struct nvme_resv_state next;
	struct nvme_resv_notice *notices = calloc(st->nregs, sizeof(*notices));
	if (!notices || nvmf_resv_copy(st, &next)) {
		free(notices);
		return -ENOMEM;
	}
	unsigned nn = 0;
	nvme_resv_clear(&next, NULL, notices, &nn);
	int rc = nvmf_resv_commit(ns, &next);
	if (!rc) {
		out->gen = r->st.gen;
		nvmf_log(r->tgt, NVMF_LOG_WARNING,
			 "subsystem %s, namespace %u: reservation cleared by the operator: %s%s%s, "
			 "%u registrant(s) removed (told Reservation Preempted), generation %u",
			 r->subsys->cfg->nqn, ns->nsid,
			 out->rtype ? nvme_resv_type_name(out->rtype) : "no reservation held",
			 out->single ? " held by " :
			 out->rtype  ? " held by every registrant" :
				       "",
			 holder, out->nregs, out->gen);
		nvmf_resv_notify(r->tgt, r->subsys, ns->nsid, notices, nn);
	}
	free(notices);
	return rc;
}

/* ---- notifications and the Reservation Notification log (80h) ---- */

/* A page for @c; when its queue is full the page is lost, but counted, so the host sees
 * the gap in Log Page Count (NVMe Base 2.0 section 5.16, Reservation Notification log
 * page). */
static bool add_page(struct nvmf_ctrl_resv *c, uint8_t type, uint32_t nsid)
{
	if (++c->count == 0)
		c->count = 1; /* 0 marks the empty page */
	if (c->npages == NVMF_RESV_LOG_PAGES)
		return false;
	struct nvmf_resv_page *p = &c->pages[(c->head + c->npages++) % NVMF_RESV_LOG_PAGES];
	p->count = c->count;
	p->type = type;
	p->nsid = nsid;
	return true;
}

void nvmf_resv_notify(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid,
		      const struct nvme_resv_notice *notices, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next) {
			if (c->subsys != s || c->deleting || !c->resv ||
			    memcmp(c->hostid, notices[i].hostid, 16))
				continue;
			if (c->resv->mask[nsid] & (1u << notices[i].type))
				continue;
			if (add_page(c->resv, notices[i].type, nsid))
				nvmf_tgt_ctrl_aen(c, NVMF_AEN_RESV_LOG);
			else
				nvmf_log(tgt, NVMF_LOG_WARNING,
					 "controller %u of %s: reservation notification log "
					 "full (%u pages): a page is lost",
					 c->cntlid, s->cfg->nqn, NVMF_RESV_LOG_PAGES);
		}
}

/* LID 80h: one page per read, the oldest, then it is gone (nvmet); an empty page when
 * none waits. Read with RAE clear, the event is re-armed. */
void nvmf_resv_log_page(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_ctrl_resv *c = ctrl->resv;
	struct nvme_resv_notification_log log;
	memset(&log, 0, sizeof(log));
	if (c->npages) {
		const struct nvmf_resv_page *p = &c->pages[c->head];
		log.lpc = htole64(p->count);
		log.rnlpt = p->type;
		log.nalp = (uint8_t)(c->npages - 1 < 255 ? c->npages - 1 : 255);
		log.nsid = htole32(p->nsid);
	}
	nvme_status_t st = nvmf_copy_log(req, &log, sizeof(log));
	if (!st && c->npages) {
		c->head = (c->head + 1) % NVMF_RESV_LOG_PAGES;
		c->npages--;
	}
	if (!st && !nvmf_log_rae(req))
		nvmf_tgt_ctrl_aen_log_read(ctrl, NVMF_AEN_RESV_LOG);
	nvmf_req_complete(req, st);
}

/* ---- features 82h, 83h (NVMe Base 2.0 section 5.27: Reservation Notification Mask,
 * Reservation Persistence): namespace specific; FFFFFFFFh sets every namespace with
 * reservations, as nvmet ---- */

/* The namespace a Get or a single-namespace Set names: active (else Invalid Namespace or
 * Format) with reservations (else Invalid Field, as nvmet). */
static nvme_status_t named_ns(const struct nvmf_req *req)
{
	const struct nvmf_ns *ns = nvmf_subsys_ns(req->sq->ctrl->subsys, le32toh(req->cmd->nsid));
	if (!ns)
		return nvme_generic(NVME_SC_INVALID_NS);
	return ns->resv ? 0 : nvme_generic(NVME_SC_INVALID_FIELD);
}

nvme_status_t nvmf_resv_check_get_ns(struct nvmf_req *req)
{
	return named_ns(req);
}

static nvme_status_t check_set_ns(const struct nvmf_req *req)
{
	return le32toh(req->cmd->nsid) == NVME_NSID_ALL ? 0 : named_ns(req);
}

/* Every namespace Set Features @req applies to: the one it names, or all with
 * reservations. Calls @fn(req, ns) for each until one returns non-zero, which is
 * returned. */
static nvme_status_t each_ns(struct nvmf_req *req,
			     nvme_status_t (*fn)(struct nvmf_req *, struct nvmf_ns *))
{
	struct nvmf_subsys *s = req->sq->ctrl->subsys;
	uint32_t nsid = le32toh(req->cmd->nsid);
	for (uint32_t n = 1; n <= s->max_nsid; n++) {
		struct nvmf_ns *ns = nvmf_subsys_ns(s, n);
		if (!ns || !ns->resv || (nsid != NVME_NSID_ALL && n != nsid))
			continue;
		nvme_status_t st = fn(req, ns);
		if (st)
			return st;
	}
	return 0;
}

nvme_status_t nvmf_resv_check_set_mask(struct nvmf_req *req)
{
	if (cdw11(req) & ~(uint32_t)MASK_ALL)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	return check_set_ns(req);
}

static nvme_status_t set_mask_one(struct nvmf_req *req, struct nvmf_ns *ns)
{
	req->sq->ctrl->resv->mask[ns->nsid] = (uint8_t)cdw11(req);
	return 0;
}

void nvmf_resv_set_mask(struct nvmf_req *req)
{
	each_ns(req, set_mask_one);
	nvmf_feature_result(req, cdw11(req));
	nvmf_req_complete(req, 0);
}

void nvmf_resv_get_mask(struct nvmf_req *req)
{
	nvmf_feature_result(req, req->sq->ctrl->resv->mask[le32toh(req->cmd->nsid)]);
	nvmf_req_complete(req, 0);
}

nvme_status_t nvmf_resv_check_set_persist(struct nvmf_req *req)
{
	uint32_t v = cdw11(req);
	/* Bit 0 PTPL, the rest reserved; PTPL on needs the state file. */
	if ((v & ~1u) || ((v & 1) && !nvmf_resv_ptpl_capable(req->sq->tgt)))
		return nvme_generic(NVME_SC_INVALID_FIELD);
	return check_set_ns(req);
}

static nvme_status_t set_persist_one(struct nvmf_req *req, struct nvmf_ns *ns)
{
	bool ptpl = cdw11(req) & 1;
	struct nvme_resv_state next;
	if (ns->resv->st.ptpl == ptpl)
		return 0;
	if (nvmf_resv_copy(&ns->resv->st, &next))
		return nvme_generic(NVME_SC_INTERNAL);
	next.ptpl = ptpl;
	return nvmf_resv_commit(ns, &next) ? nvme_generic(NVME_SC_INTERNAL) : 0;
}

void nvmf_resv_set_persist(struct nvmf_req *req)
{
	nvme_status_t st = each_ns(req, set_persist_one);
	if (!st)
		nvmf_feature_result(req, cdw11(req) & 1);
	nvmf_req_complete(req, st);
}

void nvmf_resv_get_persist(struct nvmf_req *req)
{
	const struct nvmf_ns *ns = nvmf_subsys_ns(req->sq->ctrl->subsys, le32toh(req->cmd->nsid));
	nvmf_feature_result(req, ns->resv->st.ptpl);
	nvmf_req_complete(req, 0);
}

/* ---- Identify ---- */

bool nvmf_resv_subsys_enabled(const struct nvmf_subsys *s)
{
	/* From the configuration, so that it does not come and go with namespaces. */
	for (size_t i = 0; s->cfg && i < s->cfg->n_ns; i++)
		if (s->cfg->ns[i].resv_enable)
			return true;
	return false;
}

uint8_t nvmf_resv_rescap(const struct nvmf_tgt *tgt, const struct nvmf_ns *ns)
{
	if (!ns->resv)
		return 0;
	uint8_t cap = NVME_NS_RESCAP_WE | NVME_NS_RESCAP_EA | NVME_NS_RESCAP_WERO |
		      NVME_NS_RESCAP_EARO | NVME_NS_RESCAP_WEAR | NVME_NS_RESCAP_EAAR |
		      NVME_NS_RESCAP_IEK_13;
	return (uint8_t)(cap | (nvmf_resv_ptpl_capable(tgt) ? NVME_NS_RESCAP_PTPL : 0));
}
