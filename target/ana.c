/* SPDX-License-Identifier: MIT */
/*
 * Asymmetric Namespace Access (see ana.h): what controllers report (Identify, log 0Ch),
 * the groups that exist, and the live changes with the notices hosts get for them.
 * Everything here runs on the main group.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/ana-state.h"
#include "target/admin.h"
#include "target/ana.h"

static_assert(sizeof(struct nvme_ana_log) == 16, "ANA log header is 16 bytes");
static_assert(sizeof(struct nvme_ana_group_desc) == 32, "ANA group descriptor is 32 bytes");

/* The largest log 0Ch: every group, every namespace of a subsystem (each is in one). */
#define ANA_LOG_MAX                                                                             \
	(sizeof(struct nvme_ana_log) + NVMF_MAX_ANAGRPID * sizeof(struct nvme_ana_group_desc) + \
	 NVMF_MAX_NSID * sizeof(__le32))

static bool valid_grpid(uint32_t grpid)
{
	return grpid >= 1 && grpid <= NVMF_MAX_ANAGRPID;
}

static bool valid_state(uint8_t state)
{
	return strcmp(nvme_ana_state_name(state), "?") != 0;
}

/* ---- notices and counts ---- */

/* The log changed for the controllers of @s (NULL: any) reached through @port (NULL:
 * any): each hears of it, where it enabled ANA Change notices (target/aen.c). */
static void notify(struct nvmf_tgt *tgt, const struct nvmf_subsys *s, const struct nvmf_port *port)
{
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (!c->deleting && c->subsys->type == NVMF_SUBSYS_NVME && (!s || c->subsys == s) &&
		    (!port || c->port == port))
			nvmf_tgt_ctrl_aen(c, NVMF_AEN_ANA_CHANGE);
}

/* Group @grpid's descriptor changed (0: only the set of groups did): its count and the
 * log's move on. */
static void changed(struct nvmf_tgt *tgt, uint32_t grpid)
{
	tgt->ana_chgcnt++;
	if (grpid)
		tgt->ana_grp_chgcnt[grpid]++;
}

/* ---- what controllers report ---- */

uint32_t nvmf_ana_mnan(uint32_t mdts)
{
	if (!mdts || mdts >= 20)
		return NVMF_MAX_NSID;
	uint64_t max = 4096ull << mdts;
	uint64_t fixed = sizeof(struct nvme_ana_log) +
			 NVMF_MAX_ANAGRPID * sizeof(struct nvme_ana_group_desc);
	uint64_t room = max > fixed ? (max - fixed) / sizeof(__le32) : 1;
	return room < NVMF_MAX_NSID ? (uint32_t)room : NVMF_MAX_NSID;
}

void nvmf_ana_identify_ctrl(const struct nvmf_tgt_ctrl *ctrl, struct nvme_id_ctrl *id)
{
	id->cmic |= NVME_CTRL_CMIC_MULTI_ANA_REPORTING;
	id->anatt = NVMF_ANATT;
	id->anacap = NVME_CTRL_ANACAP_OPT | NVME_CTRL_ANACAP_NON_OPT |
		     NVME_CTRL_ANACAP_INACCESSIBLE | NVME_CTRL_ANACAP_PERSISTENT_LOSS |
		     NVME_CTRL_ANACAP_CHANGE;
	id->anagrpmax = htole32(NVMF_MAX_ANAGRPID);
	id->nanagrpid = htole32(NVMF_MAX_ANAGRPID);
	id->mnan = htole32(nvmf_ana_mnan(ctrl->mdts));
}

void nvmf_ana_identify_ns(const struct nvmf_port *port, const struct nvmf_ns *ns,
			  struct nvme_id_ns *id)
{
	uint8_t state = nvmf_ana_state(port, ns);
	id->anagrpid = htole32(ns->anagrpid);
	/* nvmet: no capacity is in use where the namespace cannot be reached. */
	if (state == NVME_ANA_STATE_INACCESSIBLE || state == NVME_ANA_STATE_PERSISTENT_LOSS)
		id->nuse = 0;
}

void nvmf_tgt_ana_groups(const struct nvmf_tgt *tgt, bool exists[NVMF_MAX_ANAGRPID + 1])
{
	memset(exists, 0, (NVMF_MAX_ANAGRPID + 1) * sizeof(exists[0]));
	exists[NVMF_DEFAULT_ANAGRPID] = true;
	for (size_t i = 0; i < tgt->n_ports; i++) {
		const struct nvmf_port_config *pc = tgt->ports[i]->cfg;
		for (size_t k = 0; k < pc->n_ana_groups; k++)
			if (valid_grpid(pc->ana_groups[k].grpid))
				exists[pc->ana_groups[k].grpid] = true;
	}
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		const struct nvmf_subsys_config *sc = tgt->subsys[i]->cfg;
		for (size_t k = 0; k < sc->n_ns; k++) {
			uint32_t g = nvmf_ns_config_anagrpid(&sc->ns[k]);
			if (valid_grpid(g))
				exists[g] = true;
		}
	}
}

void nvmf_ana_log(struct nvmf_req *req)
{
	struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_tgt *tgt = ctrl->tgt;
	const struct nvmf_subsys *s = ctrl->subsys;
	const struct nvmf_port *port = req->sq->port;
	bool rgo = nvmf_log_lsp(req) & NVME_LOG_ANA_LSP_RGO_GROUPS_ONLY;
	bool exists[NVMF_MAX_ANAGRPID + 1];
	uint8_t *log = calloc(1, ANA_LOG_MAX);

	if (!log) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	nvmf_tgt_ana_groups(tgt, exists);
	size_t off = sizeof(struct nvme_ana_log);
	uint16_t ngrps = 0;
	for (uint32_t g = 1; g <= NVMF_MAX_ANAGRPID; g++) {
		if (!exists[g])
			continue;
		struct nvme_ana_group_desc d;
		uint32_t n = 0;
		memset(&d, 0, sizeof(d));
		/* Descriptors and NSIDs are copied in: in-place they would be unaligned. */
		for (uint32_t nsid = 1; !rgo && nsid <= s->max_nsid; nsid++) {
			const struct nvmf_ns *ns = nvmf_subsys_ns(s, nsid);
			if (ns && ns->anagrpid == g) {
				__le32 id = htole32(nsid);
				memcpy(log + off + sizeof(d) + n++ * sizeof(id), &id, sizeof(id));
			}
		}
		d.grpid = htole32(g);
		d.nnsids = htole32(n);
		d.chgcnt = htole64(tgt->ana_grp_chgcnt[g]);
		d.state = port->ana_state[g];
		memcpy(log + off, &d, sizeof(d));
		off += sizeof(d) + n * sizeof(__le32);
		ngrps++;
	}
	struct nvme_ana_log hdr;
	memset(&hdr, 0, sizeof(hdr));
	hdr.chgcnt = htole64(tgt->ana_chgcnt);
	hdr.ngrps = htole16(ngrps);
	memcpy(log, &hdr, sizeof(hdr));
	/* The log is as long as a host sizes it from Identify (nvme-cli reads that much in
	 * 4 KiB pieces): past the descriptors it reads zeroes, not Invalid Field. */
	size_t sized = sizeof(struct nvme_ana_log) +
		       NVMF_MAX_ANAGRPID * sizeof(struct nvme_ana_group_desc) +
		       (size_t)nvmf_ana_mnan(ctrl->mdts) * sizeof(__le32);
	nvme_status_t st = nvmf_copy_log(req, log, off > sized ? off : sized);
	free(log);
	if (!st && !nvmf_log_rae(req))
		nvmf_tgt_ctrl_aen_log_read(ctrl, NVMF_AEN_ANA_CHANGE);
	nvmf_req_complete(req, st);
}

/* ---- the model ---- */

void nvmf_ana_port_init(struct nvmf_tgt *tgt, struct nvmf_port *port)
{
	/* [0] is no group; inaccessible, should a bad index ever reach it. */
	port->ana_state[0] = NVME_ANA_STATE_INACCESSIBLE;
	for (uint32_t g = 1; g <= NVMF_MAX_ANAGRPID; g++)
		port->ana_state[g] = nvmf_port_config_ana_state(port->cfg, g);
	for (size_t k = 0; k < port->cfg->n_ana_groups; k++)
		if (port->cfg->ana_groups[k].grpid != NVMF_DEFAULT_ANAGRPID) {
			changed(tgt, 0);
			break;
		}
}

bool nvmf_tgt_ana_group_defined(const struct nvmf_tgt *tgt, uint32_t grpid,
				const struct nvmf_port *except)
{
	if (grpid == NVMF_DEFAULT_ANAGRPID)
		return true;
	for (size_t i = 0; i < tgt->n_ports; i++)
		if (tgt->ports[i] != except && nvmf_port_config_defines(tgt->ports[i]->cfg, grpid))
			return true;
	return false;
}

long nvmf_tgt_ana_undefined(const struct nvmf_tgt *tgt, const struct nvmf_ns_config *ncs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!nvmf_tgt_ana_group_defined(tgt, nvmf_ns_config_anagrpid(&ncs[i]), NULL))
			return (long)i;
	return -1;
}

int nvmf_tgt_ana_state_set(struct nvmf_tgt *tgt, struct nvmf_port *port, uint32_t grpid,
			   uint8_t state, char *err, size_t errlen)
{
	struct nvmf_port_config *pc = port->cfg;
	if (!valid_grpid(grpid)) {
		snprintf(err, errlen, "ANA group %u is out of range (1-%d)", grpid,
			 NVMF_MAX_ANAGRPID);
		return -EINVAL;
	}
	if (!valid_state(state)) {
		snprintf(err, errlen, "%u is not an ANA state", state);
		return -EINVAL;
	}
	struct nvmf_ana_group_config *g =
		(struct nvmf_ana_group_config *)nvmf_port_config_ana_group(pc, grpid);
	bool existed = true;
	if (!g) {
		bool exists[NVMF_MAX_ANAGRPID + 1];
		nvmf_tgt_ana_groups(tgt, exists);
		existed = exists[grpid];
		struct nvmf_ana_group_config *grown =
			realloc(pc->ana_groups, (pc->n_ana_groups + 1) * sizeof(*grown));
		if (!grown) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		pc->ana_groups = grown;
		g = &pc->ana_groups[pc->n_ana_groups++];
		g->grpid = grpid;
	}
	g->state = state;
	if (port->ana_state[grpid] == state) {
		if (!existed)
			changed(tgt, grpid); /* listed from now on, holding no namespace */
		return 0;
	}
	/* Commands the I/O groups parse from now on see it; those already past the check
	 * finish as they started. */
	__atomic_store_n(&port->ana_state[grpid], state, __ATOMIC_RELAXED);
	changed(tgt, grpid);
	notify(tgt, NULL, port);
	return 1;
}

int nvmf_tgt_ns_ana_group_set(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid,
			      uint32_t grpid, uint32_t *prev, char *err, size_t errlen)
{
	struct nvmf_ns_config *nc = NULL;
	for (size_t i = 0; i < s->cfg->n_ns && !nc; i++)
		if (s->cfg->ns[i].nsid == nsid)
			nc = &s->cfg->ns[i];
	if (!nc && s->drive) { /* a drive's namespace: no entry, not the socket's to change */
		snprintf(err, errlen,
			 "subsystem %s serves the drive %s by passthru: its namespaces are the "
			 "drive's",
			 s->cfg->nqn, s->cfg->passthru.device_path);
		return -EPERM;
	}
	if (!nc) {
		snprintf(err, errlen, "subsystem %s has no namespace %u", s->cfg->nqn, nsid);
		return -ENOENT;
	}
	if (!valid_grpid(grpid)) {
		snprintf(err, errlen, "ANA group %u is out of range (1-%d)", grpid,
			 NVMF_MAX_ANAGRPID);
		return -EINVAL;
	}
	if (!nvmf_tgt_ana_group_defined(tgt, grpid, NULL)) {
		snprintf(err, errlen,
			 "ANA group %u is defined on no port (ana_state_set defines it on one)",
			 grpid);
		return -EINVAL;
	}
	uint32_t old = nvmf_ns_config_anagrpid(nc);
	*prev = old;
	if (old == grpid)
		return 0;
	nc->anagrpid = grpid;
	struct nvmf_ns *ns = s->ns[nsid];
	if (ns)
		__atomic_store_n(&ns->anagrpid, grpid, __ATOMIC_RELAXED);
	changed(tgt, old);
	changed(tgt, grpid);
	if (ns)
		notify(tgt, s, NULL);
	return 1;
}

void nvmf_tgt_ana_ns_changed(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t grpid)
{
	changed(tgt, valid_grpid(grpid) ? grpid : 0);
	notify(tgt, s, NULL);
}

int nvmf_tgt_ana_check_port_remove(const struct nvmf_tgt *tgt, const struct nvmf_port *port,
				   char *err, size_t errlen)
{
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		const struct nvmf_subsys_config *sc = tgt->subsys[i]->cfg;
		for (size_t k = 0; k < sc->n_ns; k++) {
			uint32_t g = nvmf_ns_config_anagrpid(&sc->ns[k]);
			if (nvmf_tgt_ana_group_defined(tgt, g, port))
				continue;
			snprintf(err, errlen,
				 "port %u is the only port defining ANA group %u, the group "
				 "of namespace %u of %s: move the namespace to another group "
				 "(namespace_ana_group_set) or define the group on another port "
				 "(ana_state_set) first",
				 port->cfg->portid, g, sc->ns[k].nsid, sc->nqn);
			return -EBUSY;
		}
	}
	return 0;
}

void nvmf_tgt_ana_port_removed(struct nvmf_tgt *tgt, const struct nvmf_port *port)
{
	for (size_t k = 0; k < port->cfg->n_ana_groups; k++)
		if (port->cfg->ana_groups[k].grpid != NVMF_DEFAULT_ANAGRPID) {
			changed(tgt, 0);
			return;
		}
}

/* ---- reload ---- */

/* A port whose groups the reload changes: its new list (owned). */
struct ana_port_change {
	uint16_t portid;
	struct nvmf_ana_group_config *groups;
	size_t n;
};

/* A namespace the reload moves to another group. */
struct ana_ns_change {
	const struct nvmf_subsys *s;
	uint32_t nsid, grpid;
};

struct nvmf_ana_reload {
	struct ana_port_change *ports;
	size_t nports;
	struct ana_ns_change *ns;
	size_t nns;
};

static struct nvmf_port *live_port(const struct nvmf_tgt *tgt, uint16_t portid)
{
	for (size_t i = 0; i < tgt->n_ports; i++)
		if (tgt->ports[i]->cfg->portid == portid)
			return tgt->ports[i];
	return NULL;
}

/* @a and @b define the same groups with the same states. */
static bool same_groups(const struct nvmf_port_config *a, const struct nvmf_port_config *b)
{
	for (uint32_t g = 1; g <= NVMF_MAX_ANAGRPID; g++)
		if (nvmf_port_config_defines(a, g) != nvmf_port_config_defines(b, g) ||
		    nvmf_port_config_ana_state(a, g) != nvmf_port_config_ana_state(b, g))
			return false;
	return true;
}

void nvmf_ana_reload_free(struct nvmf_ana_reload *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nports; i++)
		free(r->ports[i].groups);
	free(r->ports);
	free(r->ns);
	free(r);
}

static int prepare_ports(const struct nvmf_tgt *tgt, const struct nvmf_config *next,
			 struct nvmf_ana_reload *r)
{
	for (size_t i = 0; i < next->n_ports; i++) {
		const struct nvmf_port_config *pc = &next->ports[i];
		const struct nvmf_port *p = live_port(tgt, pc->portid);
		if (!p || same_groups(p->cfg, pc))
			continue; /* a new port starts with its groups */
		struct ana_port_change *c = &r->ports[r->nports];
		if (nvmf_config_ana_groups_dup(pc->ana_groups, pc->n_ana_groups, &c->groups))
			return -ENOMEM;
		c->portid = pc->portid;
		c->n = pc->n_ana_groups;
		r->nports++;
	}
	return 0;
}

static void prepare_ns(const struct nvmf_tgt *tgt, const struct nvmf_config *next,
		       struct nvmf_ana_reload *r)
{
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		const struct nvmf_subsys *s = tgt->subsys[i];
		const struct nvmf_subsys_config *want = NULL;
		for (size_t k = 0; k < next->n_subsystems && !want; k++)
			if (!strcmp(next->subsystems[k].nqn, s->cfg->nqn))
				want = &next->subsystems[k];
		for (size_t k = 0; want && k < s->cfg->n_ns; k++)
			for (size_t m = 0; m < want->n_ns; m++) {
				const struct nvmf_ns_config *a = &s->cfg->ns[k], *b = &want->ns[m];
				uint32_t g = nvmf_ns_config_anagrpid(b);
				if (a->nsid == b->nsid && nvmf_ns_config_anagrpid(a) != g)
					r->ns[r->nns++] = (struct ana_ns_change){ s, a->nsid, g };
			}
	}
}

int nvmf_ana_reload_prepare(const struct nvmf_tgt *tgt, const struct nvmf_config *next,
			    struct nvmf_ana_reload **out)
{
	size_t nns = 0;
	*out = NULL;
	for (size_t i = 0; i < tgt->n_subsys; i++)
		nns += tgt->subsys[i]->cfg->n_ns;
	struct nvmf_ana_reload *r = calloc(1, sizeof(*r));
	if (!r || !(r->ports = calloc(next->n_ports + 1, sizeof(*r->ports))) ||
	    !(r->ns = calloc(nns + 1, sizeof(*r->ns))) || prepare_ports(tgt, next, r)) {
		nvmf_ana_reload_free(r);
		return -ENOMEM;
	}
	prepare_ns(tgt, next, r);
	if (!r->nports && !r->nns) {
		nvmf_ana_reload_free(r);
		return 0;
	}
	*out = r;
	return 0;
}

static void note(json_t *changes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(json_t *changes, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	json_array_append_new(changes, json_string(line));
}

/* Port @p takes the groups of @c (the list moves into its config). */
static void apply_port(struct nvmf_tgt *tgt, struct nvmf_port *p, struct ana_port_change *c,
		       json_t *changes)
{
	struct nvmf_port_config want = { .ana_groups = c->groups, .n_ana_groups = c->n };
	bool any = false;
	/* A gateway group's shared groups keep the state the gateway gave them
	 * (gateway/gateway.h): the file's is not theirs. */
	const struct nvmf_gateway_config *gw = &tgt->cfg->gateway;
	for (size_t i = 0; i < c->n; i++)
		if (nvmf_gateway_config_manages(gw, c->groups[i].grpid))
			c->groups[i].state = p->ana_state[c->groups[i].grpid];
	for (uint32_t g = 1; g <= NVMF_MAX_ANAGRPID; g++) {
		uint8_t old = p->ana_state[g], st = nvmf_port_config_ana_state(&want, g);
		if (nvmf_gateway_config_manages(gw, g) && nvmf_port_config_defines(&want, g))
			st = old;
		bool was = nvmf_port_config_defines(p->cfg, g),
		     is = nvmf_port_config_defines(&want, g);
		if (old != st) {
			__atomic_store_n(&p->ana_state[g], st, __ATOMIC_RELAXED);
			changed(tgt, g);
			any = true;
			note(changes, "port %u: ANA group %u %s (was %s)", p->cfg->portid, g,
			     nvme_ana_state_name(st), nvme_ana_state_name(old));
		} else if (was != is) {
			changed(tgt, 0);
			note(changes, "port %u: ANA group %u %s", p->cfg->portid, g,
			     is ? "defined" : "no longer defined");
		}
	}
	free(p->cfg->ana_groups);
	p->cfg->ana_groups = c->groups;
	p->cfg->n_ana_groups = c->n;
	c->groups = NULL;
	c->n = 0;
	if (any)
		notify(tgt, NULL, p);
}

void nvmf_ana_reload_apply(struct nvmf_tgt *tgt, struct nvmf_ana_reload *r, json_t *changes)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nports; i++) {
		struct nvmf_port *p = live_port(tgt, r->ports[i].portid);
		if (p)
			apply_port(tgt, p, &r->ports[i], changes);
	}
	/* After the ports: a namespace may move to a group the reload just defined. */
	for (size_t i = 0; i < r->nns; i++) {
		const struct ana_ns_change *c = &r->ns[i];
		char err[256];
		uint32_t prev = 0;
		for (size_t k = 0; k < tgt->n_subsys; k++) {
			if (tgt->subsys[k] != c->s)
				continue;
			if (nvmf_tgt_ns_ana_group_set(tgt, tgt->subsys[k], c->nsid, c->grpid, &prev,
						      err, sizeof(err)) > 0)
				note(changes,
				     "subsystem %s: namespace %u moved to ANA group %u (was %u)",
				     c->s->cfg->nqn, c->nsid, c->grpid, prev);
		}
	}
	nvmf_ana_reload_free(r);
}
