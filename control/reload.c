/* SPDX-License-Identifier: MIT */
/*
 * The configuration file reloaded into a running target (see reload.h): refuse what
 * cannot change live, then additions (undone on failure), then removals.
 */
#define NVMF_LOG_COMPONENT NVMF_LOGC_CONTROL /* target/log.h */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "target/ana.h"
#include "target/auth.h"
#include "target/core.h"
#include "target/log.h"
#include "target/model.h"
#include "target/namespace.h"
#include "control/reload.h"
#include "nvme/identify.h"

/* A step of the additions, and how to take it back. */
enum undo_kind {
	U_SUBSYS,
	U_NS,
	U_ENABLE,
	U_RESIZE,
	U_CFG_SIZE,
	U_RESV,
	U_HOST,
	U_ANY_HOST,
	U_PORT,
	U_LINK
};

struct undo {
	enum undo_kind kind;
	struct nvmf_subsys *s;
	struct nvmf_port *p;
	uint32_t nsid;
	uint64_t bytes;    /* U_RESIZE: the size before */
	uint64_t cfg_size; /* U_RESIZE, U_CFG_SIZE: nvmf_size_bytes before */
	const char *host;  /* U_HOST: borrowed from the new config */
	bool resv;         /* U_RESV: resv.enable before */
};

struct plan {
	struct nvmf_tgt *tgt;
	const struct nvmf_config *next;
	struct undo *u;
	size_t n, cap;
	json_t *changes;
	size_t first_change; /* changes[] entries before this reload */
};

static void note(struct plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct plan *pl, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	json_array_append_new(pl->changes, json_string(line));
}

static int push(struct plan *pl, struct undo u)
{
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : 16;
		struct undo *g = realloc(pl->u, cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		pl->u = g;
		pl->cap = cap;
	}
	pl->u[pl->n++] = u;
	return 0;
}

static void rollback(struct plan *pl)
{
	char err[256];
	unsigned dropped;
	pl->tgt->ns_discarding = true; /* what it takes away was only staged */
	while (pl->n) {
		struct undo *u = &pl->u[--pl->n];
		switch (u->kind) {
		case U_SUBSYS:
			nvmf_tgt_subsys_remove(pl->tgt, u->s, &dropped, err, sizeof(err));
			break;
		case U_NS:
			nvmf_tgt_ns_remove(pl->tgt, u->s, u->nsid, err, sizeof(err));
			break;
		case U_ENABLE:
			nvmf_tgt_ns_enable(pl->tgt, u->s, u->nsid, false, err, sizeof(err));
			break;
		case U_RESIZE:
			nvmf_tgt_ns_resize(pl->tgt, u->s, u->nsid, u->bytes, err, sizeof(err));
			__attribute__((fallthrough)); /* and the config's value */
		case U_CFG_SIZE:
			for (size_t i = 0; i < u->s->cfg->n_ns; i++)
				if (u->s->cfg->ns[i].nsid == u->nsid)
					u->s->cfg->ns[i].size_bytes = u->cfg_size;
			break;
		case U_RESV:
			for (size_t i = 0; i < u->s->cfg->n_ns; i++)
				if (u->s->cfg->ns[i].nsid == u->nsid)
					u->s->cfg->ns[i].resv_enable = u->resv;
			break;
		case U_HOST:
			nvmf_tgt_host_remove(pl->tgt, u->s, u->host, &dropped, err, sizeof(err));
			break;
		case U_ANY_HOST:
			nvmf_tgt_allow_any_host(pl->tgt, u->s, false, &dropped);
			break;
		case U_PORT:
			nvmf_tgt_port_remove(pl->tgt, u->p, &dropped, err, sizeof(err));
			break;
		case U_LINK:
			nvmf_tgt_port_unlink(pl->tgt, u->p, u->s, &dropped, err, sizeof(err));
			break;
		}
	}
	pl->tgt->ns_discarding = false;
	while (json_array_size(pl->changes) > pl->first_change)
		json_array_remove(pl->changes, json_array_size(pl->changes) - 1);
}

/* ---- what cannot change live ---- */

static const struct nvmf_subsys_config *next_subsys(const struct nvmf_config *c, const char *nqn)
{
	for (size_t i = 0; i < c->n_subsystems; i++)
		if (!strcmp(c->subsystems[i].nqn, nqn))
			return &c->subsystems[i];
	return NULL;
}

static const struct nvmf_port_config *next_port(const struct nvmf_config *c, uint16_t portid)
{
	for (size_t i = 0; i < c->n_ports; i++)
		if (c->ports[i].portid == portid)
			return &c->ports[i];
	return NULL;
}

static const struct nvmf_ns_config *find_ns(const struct nvmf_subsys_config *sc, uint32_t nsid)
{
	for (size_t i = 0; i < sc->n_ns; i++)
		if (sc->ns[i].nsid == nsid)
			return &sc->ns[i];
	return NULL;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* A setting the file changes that cannot change live: its name and, for numbers and short
 * strings, both values in effect (" (running 131072, file 65536)"; "" otherwise). The
 * config keeps 0, -1 or "" for "the default" in some fields, so each is compared as the
 * value it stands for: a default written out is no change. */
struct diff {
	const char *name;
	char values[192];
};

static bool differs_num(struct diff *d, const char *name, long long running, long long file)
{
	if (running == file)
		return false;
	d->name = name;
	snprintf(d->values, sizeof(d->values), " (running %lld, file %lld)", running, file);
	return true;
}

/* Strings (NULL: none); values shown when both are short. */
static bool differs_str(struct diff *d, const char *name, const char *running, const char *file)
{
	if (same_str(running, file))
		return false;
	d->name = name;
	d->values[0] = '\0';
	if ((!running || strlen(running) <= 64) && (!file || strlen(file) <= 64))
		snprintf(d->values, sizeof(d->values), " (running %s%s%s, file %s%s%s)",
			 running ? "\"" : "", running ? running : "none", running ? "\"" : "",
			 file ? "\"" : "", file ? file : "none", file ? "\"" : "");
	return true;
}

static bool differs(struct diff *d, const char *name, bool differ)
{
	if (differ) {
		d->name = name;
		d->values[0] = '\0';
	}
	return differ;
}

/* The first target-wide setting that differs. */
static bool target_diff(const struct nvmf_target_config *a, const struct nvmf_target_config *b,
			struct diff *d)
{
	return differs_str(d, "discovery.nqn", a->discovery_nqn, b->discovery_nqn) ||
	       differs_num(d, "nvmf_target.mdts", a->mdts, b->mdts) ||
	       differs_num(d, "nvmf_target.threads", a->threads, b->threads) ||
	       differs_num(d, "nvmf_target.buffers_small", a->buffers_small, b->buffers_small) ||
	       differs_num(d, "nvmf_target.buffers_large", a->buffers_large, b->buffers_large) ||
	       differs_num(d, "nvmf_target.hugepages", a->hugepages, b->hugepages) ||
	       differs_num(d, "nvmf_target.idle_poll_us", a->idle_poll_us, b->idle_poll_us) ||
	       differs_num(d, "nvmf_target.srq", a->srq, b->srq) ||
	       differs_num(d, "nvmf_target.srq_depth", a->srq_depth, b->srq_depth) ||
	       differs_num(d, "nvmf_target.post_thread", a->post_thread, b->post_thread) ||
	       differs_num(d, "nvmf_target.numa_node", a->numa_node, b->numa_node) ||
	       differs_num(d, "nvmf_target.persist", a->persist, b->persist) ||
	       differs_str(d, "nvmf_target.rpc_socket", a->rpc_socket_set ? a->rpc_socket : NULL,
			   b->rpc_socket_set ? b->rpc_socket : NULL) ||
	       differs_str(d, "nvmf_target.resv_state", a->resv_state_set ? a->resv_state : NULL,
			   b->resv_state_set ? b->resv_state : NULL);
}

/* An identity string of the served subsystem: @served (space padded) is what "" in the
 * running config stood for, so the file may write it out; "" in the file where the
 * running config names one is a change (the default would be derived anew). */
static bool differs_ident(struct diff *d, const char *name, const char *running_cfg,
			  const char *served, const char *file)
{
	char run[48];
	size_t n = strlen(served);
	while (n && served[n - 1] == ' ')
		n--;
	snprintf(run, sizeof(run), "%.*s", (int)n, served);
	if (!strcmp(running_cfg, file) || (file[0] && !strcmp(run, file)))
		return false;
	return differs_str(d, name, run, file);
}

static bool attr_diff(const struct nvmf_subsys *s, const struct nvmf_subsys_config *b,
		      struct diff *d)
{
	const struct nvmf_subsys_config *a = s->cfg;
	uint32_t vs = b->version ? b->version : NVMF_DEFAULT_VERSION;
	if (differs_ident(d, "attr.serial", a->serial, s->serial, b->serial) ||
	    differs_ident(d, "attr.model", a->model, s->model, b->model) ||
	    differs_ident(d, "attr.firmware", a->firmware, s->firmware, b->firmware))
		return true;
	/* A passthru subsystem is its drive: which drive, and how, is its identity too. A
	 * group that is off is compared as well: the running config is what config_save
	 * writes back, so a change to it passed over here would be lost silently. */
	const struct nvmf_passthru_config *pa = &a->passthru, *pb = &b->passthru;
	if (differs_num(d, "passthru.enable", pa->enable, pb->enable) ||
	    differs_str(d, "passthru.device.path", pa->device_path, pb->device_path) ||
	    differs_num(d, "passthru.clear_ids", pa->clear_ids, pb->clear_ids) ||
	    differs_num(d, "passthru.admin_timeout", pa->admin_timeout, pb->admin_timeout) ||
	    differs_num(d, "passthru.io_timeout", pa->io_timeout, pb->io_timeout))
		return true;
	if (vs != s->vs) {
		char x[16], y[16];
		d->name = "attr.version";
		snprintf(d->values, sizeof(d->values), " (running %s, file %s)",
			 nvme_version_format(s->vs, x, sizeof(x)),
			 nvme_version_format(vs, y, sizeof(y)));
		return true;
	}
	return differs_num(d, "attr.cntlid_min", a->cntlid_min ? a->cntlid_min : 1,
			   b->cntlid_min ? b->cntlid_min : 1) ||
	       differs_num(d, "attr.cntlid_max", a->cntlid_max ? a->cntlid_max : 0xffef,
			   b->cntlid_max ? b->cntlid_max : 0xffef) ||
	       differs_num(d, "attr.qid_max", a->qid_max ? a->qid_max : NVMF_DEFAULT_QID_MAX,
			   b->qid_max ? b->qid_max : NVMF_DEFAULT_QID_MAX);
}

/* The backend kind and block size in effect: "auto" and 0 are what the open namespace
 * @ns found (NULL: not open; file, RAM and null blocks default to 512 bytes). */
static enum nvmf_backend_kind ns_kind(const struct nvmf_ns_config *c, const struct nvmf_ns *ns)
{
	return c->kind != NVMF_BACKEND_AUTO ? c->kind : ns ? ns->bdev->kind : NVMF_BACKEND_AUTO;
}

static uint32_t ns_block_size(const struct nvmf_ns_config *c, const struct nvmf_ns *ns)
{
	enum nvmf_backend_kind k = ns_kind(c, ns);
	if (c->block_size)
		return c->block_size;
	if (ns)
		return ns->bdev->block_size;
	return k == NVMF_BACKEND_FILE || k == NVMF_BACKEND_RAM || k == NVMF_BACKEND_NULL ? 512 : 0;
}

/* An identifier in effect: the configured one, else (@dflt, @has_dflt) what the
 * namespace takes without one (the drive's, or the derived UUID). */
static const uint8_t *ns_id(bool has, const uint8_t *cfg, bool has_dflt, const uint8_t *dflt)
{
	return has ? cfg : has_dflt ? dflt : NULL;
}

static bool same_id(const uint8_t *a, const uint8_t *b, size_t n)
{
	return (!a && !b) || (a && b && !memcmp(a, b, n));
}

/* @a is the running config of namespace @ns (NULL: disabled) of subsystem @nqn. */
static bool backing_diff(const char *nqn, const struct nvmf_ns_config *a, const struct nvmf_ns *ns,
			 const struct nvmf_ns_config *b, struct diff *d)
{
	if (differs_str(d, "device.path", a->path, b->path))
		return true;
	enum nvmf_backend_kind ka = ns_kind(a, ns), kb = ns_kind(b, ns);
	if (ka != kb)
		return differs_str(d, "nvmf_backend", nvmf_backend_kind_name(ka),
				   nvmf_backend_kind_name(kb));
	if (differs_num(d, "nvmf_block_size", ns_block_size(a, ns), ns_block_size(b, ns)))
		return true;
	/* Another image, or the same reached another way (cluster, user): a new backend. */
	if (differs_str(d, "nvmf_rbd_pool", a->rbd.pool, b->rbd.pool) ||
	    differs_str(d, "nvmf_rbd_image", a->rbd.image, b->rbd.image) ||
	    differs_str(d, "nvmf_rbd_namespace", a->rbd.rados_ns, b->rbd.rados_ns) ||
	    differs_str(d, "nvmf_rbd_conf", a->rbd.conf, b->rbd.conf) ||
	    differs_str(d, "nvmf_rbd_keyring", a->rbd.keyring, b->rbd.keyring) ||
	    differs_str(d, "nvmf_rbd_client_id", a->rbd.client_id, b->rbd.client_id))
		return true;
	uint8_t derived[16];
	nvmf_ns_derived_uuid(nqn, a->nsid, derived);
	const struct nvmf_bdev *bd = ns ? ns->bdev : NULL;
	return differs(d, "device.uuid",
		       !same_id(ns_id(a->has_uuid, a->uuid, true, derived),
				ns_id(b->has_uuid, b->uuid, true, derived), 16)) ||
	       differs(d, "device.nguid",
		       !same_id(ns_id(a->has_nguid, a->nguid, bd && bd->has_nguid,
				      bd ? bd->nguid : NULL),
				ns_id(b->has_nguid, b->nguid, bd && bd->has_nguid,
				      bd ? bd->nguid : NULL),
				16)) ||
	       differs(d, "nvmf_eui64",
		       !same_id(ns_id(a->has_eui64, a->eui64, bd && bd->has_eui64,
				      bd ? bd->eui64 : NULL),
				ns_id(b->has_eui64, b->eui64, bd && bd->has_eui64,
				      bd ? bd->eui64 : NULL),
				8)) ||
	       differs_num(d, "nvmf_buffered", a->buffered, b->buffered);
}

/* Port parameters in effect: max_queue_size 0 or -1, inline_data_size -1 and
 * nvmf_maxh2cdata 0 are the defaults (nvmf_port_resolve, the tcp transport). */
static long long eff_queue_size(uint32_t v)
{
	return v == 0 || v == UINT32_MAX ? NVMF_DEFAULT_QUEUE_SIZE : v;
}
static long long eff_inline(uint32_t v)
{
	return v == UINT32_MAX ? NVMF_DEFAULT_INLINE : v;
}
static long long eff_maxh2cdata(uint32_t v)
{
	return v ? v : NVMF_DEFAULT_MAXH2CDATA;
}

static bool port_diff(const struct nvmf_port_config *a, const struct nvmf_port_config *b,
		      struct diff *d)
{
	return differs_str(d, "addr.trtype", a->trtype, b->trtype) ||
	       differs(d, "addr.adrfam", a->adrfam != b->adrfam) ||
	       differs_str(d, "addr.traddr", a->traddr, b->traddr) ||
	       differs_str(d, "addr.trsvcid", a->trsvcid[0] ? a->trsvcid : "4420",
			   b->trsvcid[0] ? b->trsvcid : "4420") ||
	       differs_num(d, "addr.treq", a->treq, b->treq) ||
	       differs_str(d, "addr.tsas", a->tsas ? "tls1.3" : "none",
			   b->tsas ? "tls1.3" : "none") ||
	       differs_num(d, "param.inline_data_size", eff_inline(a->inline_data_size),
			   eff_inline(b->inline_data_size)) ||
	       differs_num(d, "param.max_queue_size", eff_queue_size(a->max_queue_size),
			   eff_queue_size(b->max_queue_size)) ||
	       differs_num(d, "param.mdts", a->mdts, b->mdts) ||
	       differs_num(d, "param.nvmf_maxh2cdata", eff_maxh2cdata(a->maxh2cdata),
			   eff_maxh2cdata(b->maxh2cdata)) ||
	       differs_num(d, "param.nvmf_zerocopy_threshold", a->zerocopy_threshold,
			   b->zerocopy_threshold);
}

static int refuse(const struct nvmf_tgt *tgt, const struct nvmf_config *next, char *err,
		  size_t errlen)
{
	struct diff d;
	if (target_diff(&tgt->cfg->target, &next->target, &d)) {
		snprintf(err, errlen, "%s differs from the running target's%s; it takes a restart",
			 d.name, d.values);
		return -EINVAL;
	}
	/* The gateway's coordination (its Ceph session, locks, groups) is set up once at start
	 * (gateway/gateway.h): a change would be silently ignored, so it is refused. */
	const char *gw = nvmf_gateway_config_diff(&tgt->cfg->gateway, &next->gateway);
	if (gw) {
		snprintf(err, errlen,
			 "%s differs from the running target's; the gateway group's settings "
			 "take a restart",
			 gw);
		return -EINVAL;
	}
	for (size_t i = 0; i < next->n_subsystems; i++) {
		const struct nvmf_subsys_config *nc = &next->subsystems[i];
		struct nvmf_subsys *s = nvmf_tgt_find_subsys((struct nvmf_tgt *)tgt, nc->nqn);
		if (!s)
			continue;
		if (attr_diff(s, nc, &d)) {
			snprintf(err, errlen,
				 "subsystems[%zu] (%s): %s differs%s; a served subsystem keeps its "
				 "identity (remove it and add it anew)",
				 i, nc->nqn, d.name, d.values);
			return -EINVAL;
		}
		for (size_t k = 0; k < nc->n_ns; k++) {
			const struct nvmf_ns_config *old = find_ns(s->cfg, nc->ns[k].nsid);
			if (old && backing_diff(nc->nqn, old, nvmf_subsys_ns(s, old->nsid),
						&nc->ns[k], &d)) {
				snprintf(
					err, errlen,
					"subsystems[%zu].namespaces[%zu] (%s, nsid %u): %s differs%s; "
					"remove the namespace and add it anew",
					i, k, nc->nqn, nc->ns[k].nsid, d.name, d.values);
				return -EINVAL;
			}
			/* As nvmet's resv_enable: changed only while the namespace is disabled (its
			 * reservations live with it). */
			if (old && old->resv_enable != nc->ns[k].resv_enable &&
			    nvmf_subsys_ns(s, old->nsid)) {
				snprintf(
					err, errlen,
					"subsystems[%zu].namespaces[%zu] (%s, nsid %u): resv.enable differs "
					"on an enabled namespace; disable it first (a reload with enable 0), or remove "
					"the namespace and add it anew",
					i, k, nc->nqn, nc->ns[k].nsid);
				return -EINVAL;
			}
		}
	}
	for (size_t i = 0; i < next->n_ports; i++) {
		struct nvmf_port *p =
			nvmf_tgt_find_port((struct nvmf_tgt *)tgt, next->ports[i].portid);
		if (p && port_diff(p->cfg, &next->ports[i], &d)) {
			snprintf(
				err, errlen,
				"ports[%zu] (port %u): %s differs%s; remove the port and add it anew",
				i, next->ports[i].portid, d.name, d.values);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- additions (undone on failure) ---- */

/* @nc is next->subsystems[@sidx]. */
static int grow_subsys(struct plan *pl, struct nvmf_subsys *s, const struct nvmf_subsys_config *nc,
		       size_t sidx, char *err, size_t errlen)
{
	struct nvmf_tgt *tgt = pl->tgt;
	char why[768], base[64];
	int rc;
	/* New namespaces, all at once (nvmf_tgt_ns_add is all or none itself), each named
	 * by its index in the file (at[]). */
	size_t nnew = 0;
	struct nvmf_ns_config *add = calloc(nc->n_ns + 1, sizeof(*add));
	uint32_t *ids = calloc(nc->n_ns + 1, sizeof(*ids));
	size_t *at = calloc(nc->n_ns + 1, sizeof(*at));
	if (!add || !ids || !at) {
		free(add);
		free(ids);
		free(at);
		return -ENOMEM;
	}
	for (size_t k = 0; k < nc->n_ns; k++)
		if (!find_ns(s->cfg, nc->ns[k].nsid)) {
			at[nnew] = k;
			add[nnew++] = nc->ns[k];
		}
	snprintf(base, sizeof(base), "subsystems[%zu].namespaces", sidx);
	rc = nnew ? nvmf_tgt_ns_add_at(tgt, s, add, nnew, ids, base, at, why, sizeof(why)) : 0;
	for (size_t k = 0; !rc && k < nnew; k++) {
		if ((rc = push(pl, (struct undo){ .kind = U_NS, .s = s, .nsid = ids[k] })))
			nvmf_tgt_ns_remove(tgt, s, ids[k], why, sizeof(why));
		else
			note(pl, "subsystem %s: namespace %u added", s->cfg->nqn, ids[k]);
	}
	free(add);
	free(ids);
	free(at);
	if (rc) {
		/* Entries are named as the loader names them; anything else by the subsystem. */
		if (rc != -ENOMEM && !strncmp(why, base, strlen(base)))
			snprintf(err, errlen, "%s", why);
		else
			snprintf(err, errlen, "subsystem %s: %s", s->cfg->nqn,
				 rc == -ENOMEM ? "out of memory" : why);
		return rc;
	}
	/* Existing namespaces: size, then enable. */
	for (size_t k = 0; k < nc->n_ns; k++) {
		const struct nvmf_ns_config *want = &nc->ns[k];
		struct nvmf_ns_config *have = (struct nvmf_ns_config *)find_ns(s->cfg, want->nsid);
		struct nvmf_ns *ns = nvmf_subsys_ns(s, want->nsid);
		if (!have)
			continue;
		/* nvmf_size_bytes means here what it means at start-up: the size of a RAM or
		 * null namespace; for a file, the size to create it with or (nvmf_create) to
		 * grow it to, a larger file being served whole. So only a changed value does
		 * anything, and a file is never cut by a reload. */
		if (want->size_bytes != have->size_bytes) {
			uint64_t cur = ns ? nvmf_ns_nlb(ns) << ns->lba_shift : 0;
			bool file = ns && ns->bdev->kind == NVMF_BACKEND_FILE;
			bool resize = ns && want->enable && want->size_bytes &&
				      (ns->bdev->kind == NVMF_BACKEND_RAM ||
				       ns->bdev->kind == NVMF_BACKEND_NULL ||
				       (file && want->size_bytes > cur));
			if (resize && file && !want->create) {
				snprintf(
					err, errlen,
					"subsystem %s, namespace %u: the file is %llu bytes, smaller "
					"than nvmf_size_bytes %llu (set nvmf_create to grow it)",
					s->cfg->nqn, want->nsid, (unsigned long long)cur,
					(unsigned long long)want->size_bytes);
				return -EINVAL;
			}
			if ((rc = push(pl, (struct undo){ .kind = resize ? U_RESIZE : U_CFG_SIZE,
							  .s = s,
							  .nsid = want->nsid,
							  .bytes = cur,
							  .cfg_size = have->size_bytes })))
				return rc;
			if (resize && (rc = nvmf_tgt_ns_resize(tgt, s, want->nsid, want->size_bytes,
							       why, sizeof(why)))) {
				pl->n--;
				snprintf(err, errlen, "%s", why);
				return rc;
			}
			have->size_bytes = want->size_bytes;
			if (resize)
				note(pl, "subsystem %s: namespace %u resized to %llu bytes",
				     s->cfg->nqn, want->nsid, (unsigned long long)want->size_bytes);
		}
		/* Reservations on or off: a disabled namespace (refuse() saw to it), from its
		 * next enable. */
		if (want->resv_enable != have->resv_enable) {
			if ((rc = push(pl, (struct undo){ .kind = U_RESV,
							  .s = s,
							  .nsid = want->nsid,
							  .resv = have->resv_enable })))
				return rc;
			have->resv_enable = want->resv_enable;
			note(pl, "subsystem %s: namespace %u: reservations %s", s->cfg->nqn,
			     want->nsid, want->resv_enable ? "on" : "off");
		}
		if (want->enable && !ns) {
			if ((rc = push(pl, (struct undo){
						   .kind = U_ENABLE, .s = s, .nsid = want->nsid })))
				return rc;
			if ((rc = nvmf_tgt_ns_enable(tgt, s, want->nsid, true, why, sizeof(why))) <
			    0) {
				pl->n--;
				snprintf(err, errlen, "%s", why);
				return rc;
			}
			note(pl, "subsystem %s: namespace %u enabled", s->cfg->nqn, want->nsid);
		}
	}
	/* Hosts allowed now, and allow_any_host turned on. */
	for (size_t h = 0; h < nc->n_allowed_hosts; h++) {
		bool known = false;
		for (size_t j = 0; j < s->cfg->n_allowed_hosts && !known; j++)
			known = !strcmp(s->cfg->allowed_hosts[j], nc->allowed_hosts[h]);
		if (known)
			continue;
		if ((rc = push(pl, (struct undo){
					   .kind = U_HOST, .s = s, .host = nc->allowed_hosts[h] })))
			return rc;
		if ((rc = nvmf_tgt_host_add(tgt, s, nc->allowed_hosts[h], why, sizeof(why)))) {
			pl->n--;
			snprintf(err, errlen, "subsystem %s: %s", s->cfg->nqn, why);
			return rc;
		}
		note(pl, "subsystem %s: host %s allowed", s->cfg->nqn, nc->allowed_hosts[h]);
	}
	if (nc->allow_any_host && !s->cfg->allow_any_host) {
		unsigned dropped;
		if ((rc = push(pl, (struct undo){ .kind = U_ANY_HOST, .s = s })))
			return rc;
		nvmf_tgt_allow_any_host(tgt, s, true, &dropped);
		note(pl, "subsystem %s: allow_any_host on", s->cfg->nqn);
	}
	return 0;
}

static int additions(struct plan *pl, char *err, size_t errlen)
{
	struct nvmf_tgt *tgt = pl->tgt;
	const struct nvmf_config *next = pl->next;
	char why[768];
	int rc;
	for (size_t i = 0; i < next->n_subsystems; i++) {
		const struct nvmf_subsys_config *nc = &next->subsystems[i];
		struct nvmf_subsys *s = nvmf_tgt_find_subsys(tgt, nc->nqn);
		if (s) {
			if ((rc = grow_subsys(pl, s, nc, i, err, errlen)))
				return rc;
			continue;
		}
		if ((rc = nvmf_tgt_subsys_add(tgt, nc, why, sizeof(why)))) {
			snprintf(err, errlen, "subsystems[%zu] (%s): %s", i, nc->nqn, why);
			return rc;
		}
		s = nvmf_tgt_find_subsys(tgt, nc->nqn);
		if ((rc = push(pl, (struct undo){ .kind = U_SUBSYS, .s = s }))) {
			unsigned dropped;
			nvmf_tgt_subsys_remove(tgt, s, &dropped, why, sizeof(why));
			return rc;
		}
		note(pl, "subsystem %s added (%zu namespaces)", nc->nqn, nc->n_ns);
	}
	for (size_t i = 0; i < next->n_ports; i++) {
		const struct nvmf_port_config *pc = &next->ports[i];
		struct nvmf_port *p = nvmf_tgt_find_port(tgt, pc->portid);
		if (!p) {
			if ((rc = nvmf_tgt_port_add(tgt, pc, why, sizeof(why)))) {
				snprintf(err, errlen, "ports[%zu] (port %u): %s", i, pc->portid,
					 why);
				return rc;
			}
			p = nvmf_tgt_find_port(tgt, pc->portid);
			if ((rc = push(pl, (struct undo){ .kind = U_PORT, .p = p }))) {
				unsigned dropped;
				nvmf_tgt_port_remove(tgt, p, &dropped, why, sizeof(why));
				return rc;
			}
			char a[96];
			note(pl, "port %u added (listening on %s)", pc->portid,
			     nvmf_port_config_addr(pc, a, sizeof(a)));
			continue;
		}
		for (size_t k = 0; k < pc->n_subsystems; k++) {
			struct nvmf_subsys *s = nvmf_tgt_find_subsys(tgt, pc->subsystems[k]);
			if (!s || nvmf_port_has_subsys(p, s))
				continue;
			if ((rc = push(pl, (struct undo){ .kind = U_LINK, .p = p, .s = s })))
				return rc;
			if ((rc = nvmf_tgt_port_link(tgt, p, s, why, sizeof(why)))) {
				pl->n--;
				snprintf(err, errlen, "ports[%zu] (port %u): %s", i, pc->portid,
					 why);
				return rc;
			}
			note(pl, "port %u exposes %s", pc->portid, s->cfg->nqn);
		}
	}
	return 0;
}

/* ---- removals (cannot fail) ---- */

static void removals(struct plan *pl)
{
	struct nvmf_tgt *tgt = pl->tgt;
	const struct nvmf_config *next = pl->next;
	char why[512];
	unsigned dropped;
	/* Ports first: what they no longer expose, then the ports the file dropped. */
	for (size_t i = tgt->n_ports; i-- > 0;) {
		struct nvmf_port *p = tgt->ports[i];
		const struct nvmf_port_config *pc = next_port(next, p->cfg->portid);
		if (!pc) {
			unsigned portid = p->cfg->portid;
			nvmf_tgt_port_remove(tgt, p, &dropped, why, sizeof(why));
			note(pl, "port %u removed (%u controllers disconnected)", portid, dropped);
			continue;
		}
		for (size_t k = p->n_subsys; k-- > 0;) {
			struct nvmf_subsys *s = p->subsys[k];
			bool keep = false;
			for (size_t j = 0; j < pc->n_subsystems && !keep; j++)
				keep = !strcmp(pc->subsystems[j], s->cfg->nqn);
			if (keep)
				continue;
			nvmf_tgt_port_unlink(tgt, p, s, &dropped, why, sizeof(why));
			note(pl, "port %u no longer exposes %s (%u controllers disconnected)",
			     pc->portid, s->cfg->nqn, dropped);
		}
	}
	for (size_t i = tgt->n_subsys; i-- > 0;) {
		struct nvmf_subsys *s = tgt->subsys[i];
		const struct nvmf_subsys_config *nc = next_subsys(next, s->cfg->nqn);
		if (!nc) {
			char nqn[NVMF_CFG_NQN_MAX];
			snprintf(nqn, sizeof(nqn), "%s", s->cfg->nqn);
			nvmf_tgt_subsys_remove(tgt, s, &dropped, why, sizeof(why));
			note(pl, "subsystem %s removed (%u controllers disconnected)", nqn,
			     dropped);
			continue;
		}
		if (!nc->allow_any_host && s->cfg->allow_any_host) {
			nvmf_tgt_allow_any_host(tgt, s, false, &dropped);
			note(pl, "subsystem %s: allow_any_host off (%u controllers disconnected)",
			     nc->nqn, dropped);
		}
		for (size_t h = s->cfg->n_allowed_hosts; h-- > 0;) {
			const char *host = s->cfg->allowed_hosts[h];
			bool keep = false;
			for (size_t j = 0; j < nc->n_allowed_hosts && !keep; j++)
				keep = !strcmp(nc->allowed_hosts[j], host);
			if (keep)
				continue;
			char gone[NVMF_CFG_NQN_MAX];
			snprintf(gone, sizeof(gone), "%s", host);
			nvmf_tgt_host_remove(tgt, s, gone, &dropped, why, sizeof(why));
			note(pl, "subsystem %s: host %s removed (%u controllers disconnected)",
			     nc->nqn, gone, dropped);
		}
		for (size_t k = s->cfg->n_ns; k-- > 0;) {
			uint32_t nsid = s->cfg->ns[k].nsid;
			const struct nvmf_ns_config *want = find_ns(nc, nsid);
			if (!want) {
				nvmf_tgt_ns_remove(tgt, s, nsid, why, sizeof(why));
				note(pl, "subsystem %s: namespace %u removed", nc->nqn, nsid);
			} else if (!want->enable && s->cfg->ns[k].enable) {
				nvmf_tgt_ns_enable(tgt, s, nsid, false, why, sizeof(why));
				note(pl, "subsystem %s: namespace %u disabled", nc->nqn, nsid);
			}
		}
	}
}

/* ---- the discovery service: referrals, listing mode, KATO (applied live) ---- */

/* New referral lists of the ports the running target and @next both have, copied before
 * anything changes: refs[i] for next->ports[i], changed[i] when it differs. */
struct disc_plan {
	struct nvmf_referral_config **refs;
	bool *changed;
};

static void disc_plan_free(struct disc_plan *d, size_t n)
{
	for (size_t i = 0; d->refs && i < n; i++)
		free(d->refs[i]);
	free(d->refs);
	free(d->changed);
}

static int disc_prepare(const struct nvmf_tgt *tgt, const struct nvmf_config *next,
			struct disc_plan *d)
{
	d->refs = calloc(next->n_ports + 1, sizeof(*d->refs));
	d->changed = calloc(next->n_ports + 1, sizeof(*d->changed));
	if (!d->refs || !d->changed)
		return -ENOMEM;
	for (size_t i = 0; i < next->n_ports; i++) {
		const struct nvmf_port *p =
			nvmf_tgt_find_port((struct nvmf_tgt *)tgt, next->ports[i].portid);
		if (!p || nvmf_config_referrals_equal(p->cfg, &next->ports[i]))
			continue;
		if (nvmf_config_referrals_dup(next->ports[i].referrals, next->ports[i].n_referrals,
					      &d->refs[i]))
			return -ENOMEM;
		d->changed[i] = true;
	}
	return 0;
}

/* After the model changed: the prepared referrals, the mode and the KATO of discovery
 * controllers that connect from now on; hosts connected to discovery hear of a change. */
static void disc_apply(struct plan *pl, struct disc_plan *d)
{
	struct nvmf_tgt *tgt = pl->tgt;
	struct nvmf_target_config *t = &tgt->cfg->target;
	const struct nvmf_config *next = pl->next;
	bool changed = false;

	for (size_t i = 0; i < next->n_ports; i++) {
		struct nvmf_port *p =
			d->changed[i] ? nvmf_tgt_find_port(tgt, next->ports[i].portid) : NULL;
		if (!p)
			continue;
		free(p->cfg->referrals);
		p->cfg->referrals = d->refs[i];
		p->cfg->n_referrals = next->ports[i].n_referrals;
		d->refs[i] = NULL;
		note(pl, "port %u: referrals changed (%zu configured)", p->cfg->portid,
		     p->cfg->n_referrals);
		changed = true;
	}
	if (t->discovery_log != next->target.discovery_log) {
		t->discovery_log = next->target.discovery_log;
		note(pl, "nvmf_target.discovery_log: %s",
		     nvmf_disc_log_mode_name(t->discovery_log));
		changed = true;
	}
	if (t->discovery_kato != next->target.discovery_kato) {
		t->discovery_kato = next->target.discovery_kato;
		note(pl,
		     "nvmf_target.discovery_kato: %u s (discovery controllers connecting from now on)",
		     t->discovery_kato);
	}
	if (changed)
		nvmf_tgt_disc_changed(tgt);
}

/* nvmf_target.log_level: each component whose level the file changed takes it now; one
 * the file no longer names goes back to the daemon's --log-level (log_level_base, else
 * info). Levels set live and not in the file stay. */
static void log_level_apply(struct plan *pl)
{
	struct nvmf_target_config *t = &pl->tgt->cfg->target;
	for (unsigned i = 0; i < NVMF_LOGC_COUNT; i++) {
		int8_t next = pl->next->target.log_level[i];
		if (t->log_level[i] == next)
			continue;
		t->log_level[i] = next;
		enum nvmf_log_level level = next >= 0             ? (enum nvmf_log_level)next :
					    t->log_level_base_set ? t->log_level_base :
								    NVMF_LOG_INFO;
		nvmf_log_level_set(pl->tgt, (enum nvmf_log_component)i, level);
		note(pl, "nvmf_target.log_level: %s %s",
		     nvmf_log_component_name((enum nvmf_log_component)i),
		     nvmf_log_level_name(level));
	}
}

/* The informational hosts[] list: a copy prepared before anything changes. */
static int copy_hosts(const struct nvmf_config *next, char ***out)
{
	*out = calloc(next->n_hosts + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < next->n_hosts; i++)
		if (!((*out)[i] = strdup(next->hosts[i]))) {
			while (i--)
				free((*out)[i]);
			free(*out);
			return -ENOMEM;
		}
	return 0;
}

/* Whether the hosts' DH-HMAC-CHAP settings differ (compared in order; the file's). */
static bool dhchap_changed(const struct nvmf_config *a, const struct nvmf_config *b)
{
	if (a->n_dhchap != b->n_dhchap)
		return true;
	for (size_t i = 0; i < a->n_dhchap; i++) {
		const struct nvmf_dhchap_config *x = &a->dhchap[i], *y = &b->dhchap[i];
		/* An absent hash or group is hmac(sha256) or null (nvmf_dhchap_config). */
		if (!same_str(x->hostnqn, y->hostnqn) || !same_str(x->key, y->key) ||
		    !same_str(x->ctrl_key, y->ctrl_key) ||
		    strcmp(x->hash ? x->hash : "hmac(sha256)",
			   y->hash ? y->hash : "hmac(sha256)") ||
		    strcmp(x->dhgroup ? x->dhgroup : "null", y->dhgroup ? y->dhgroup : "null"))
			return true;
	}
	return false;
}

/* Whether the hosts' TLS PSKs differ (compared in order; the file's). */
static bool tls_keys_changed(const struct nvmf_config *a, const struct nvmf_config *b)
{
	if (a->n_tls_keys != b->n_tls_keys)
		return true;
	for (size_t i = 0; i < a->n_tls_keys; i++)
		if (strcmp(a->tls_keys[i].hostnqn, b->tls_keys[i].hostnqn) ||
		    strcmp(a->tls_keys[i].key, b->tls_keys[i].key) ||
		    a->tls_keys[i].compat != b->tls_keys[i].compat)
			return true;
	return false;
}

/* Whether a namespace the reload would close (removals below) is a file namespace whose
 * backing file was deleted: its data would go with the close. -EBUSY with @err, or 0. */
static int refuse_discard(const struct nvmf_tgt *tgt, const struct nvmf_config *next, char *err,
			  size_t errlen)
{
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		const struct nvmf_subsys *s = tgt->subsys[i];
		const struct nvmf_subsys_config *nc = next_subsys(next, s->cfg->nqn);
		for (size_t k = 0; k < s->cfg->n_ns; k++) {
			uint32_t nsid = s->cfg->ns[k].nsid;
			const struct nvmf_ns_config *want = nc ? find_ns(nc, nsid) : NULL;
			if (want && want->enable)
				continue;
			int rc = nvmf_tgt_ns_check_discard(tgt, s, nsid, err, errlen);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int nvmf_tgt_reload(struct nvmf_tgt *tgt, const struct nvmf_config *next, bool force,
		    json_t *changes, char *err, size_t errlen)
{
	int rc = refuse(tgt, next, err, errlen);
	if (!rc && !force)
		rc = refuse_discard(tgt, next, err, errlen);
	if (rc)
		return rc;
	char **hosts;
	struct nvmf_dhchap_config *dhchap;
	/* The hosts' keys are prepared before anything changes: a reload that could not
	 * enforce them must not happen at all. */
	bool keys_changed = dhchap_changed(tgt->cfg, next);
	struct nvmf_host_auth *keys = NULL;
	if (keys_changed && nvmf_host_auth_build(next->dhchap, next->n_dhchap, &keys, err, errlen))
		return -EINVAL;
	struct disc_plan disc = { 0 };
	if (disc_prepare(tgt, next, &disc) || copy_hosts(next, &hosts)) {
		disc_plan_free(&disc, next->n_ports);
		nvmf_host_auth_list_free(keys);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct nvmf_tls_key_config *tls_keys = NULL;
	if (nvmf_config_dhchap_dup(next->dhchap, next->n_dhchap, &dhchap) ||
	    nvmf_config_tls_keys_dup(next->tls_keys, next->n_tls_keys, &tls_keys)) {
		nvmf_config_dhchap_free(dhchap, next->n_dhchap);
		for (size_t i = 0; i < next->n_hosts; i++)
			free(hosts[i]);
		free(hosts);
		nvmf_host_auth_list_free(keys);
		disc_plan_free(&disc, next->n_ports);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* ANA groups, states and namespaces' groups: prepared now, applied last. */
	struct nvmf_ana_reload *ana;
	if (nvmf_ana_reload_prepare(tgt, next, &ana)) {
		for (size_t i = 0; i < next->n_hosts; i++)
			free(hosts[i]);
		free(hosts);
		nvmf_config_dhchap_free(dhchap, next->n_dhchap);
		nvmf_config_tls_keys_free(tls_keys, next->n_tls_keys);
		nvmf_host_auth_list_free(keys);
		disc_plan_free(&disc, next->n_ports);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct plan pl = { .tgt = tgt,
			   .next = next,
			   .changes = changes,
			   .first_change = json_array_size(changes) };
	/* A file the additions create stays unrecorded (bdev->created set) until the
	 * reload is through: a rollback then deletes it with its namespace. */
	tgt->ns_opened_later = true;
	rc = additions(&pl, err, errlen);
	if (rc)
		rollback(&pl);
	tgt->ns_opened_later = false;
	for (size_t i = 0; !rc && i < tgt->n_subsys; i++)
		nvmf_tgt_subsys_opened(tgt, tgt->subsys[i]);
	if (rc) {
		if (rc == -ENOMEM && !err[0])
			snprintf(err, errlen, "out of memory");
		free(pl.u);
		for (size_t i = 0; i < next->n_hosts; i++)
			free(hosts[i]);
		free(hosts);
		nvmf_config_dhchap_free(dhchap, next->n_dhchap);
		nvmf_config_tls_keys_free(tls_keys, next->n_tls_keys);
		nvmf_host_auth_list_free(keys);
		disc_plan_free(&disc, next->n_ports);
		nvmf_ana_reload_free(ana);
		return rc;
	}
	removals(&pl);
	disc_apply(&pl, &disc);
	log_level_apply(&pl);
	disc_plan_free(&disc, next->n_ports);
	nvmf_ana_reload_apply(tgt, ana, changes);
	free(pl.u);
	for (size_t i = 0; i < tgt->cfg->n_hosts; i++)
		free(tgt->cfg->hosts[i]);
	free(tgt->cfg->hosts);
	tgt->cfg->hosts = hosts;
	tgt->cfg->n_hosts = next->n_hosts;
	/* Host keys: new controllers and every new transaction of live ones use them. */
	if (keys_changed) {
		nvmf_tgt_host_auth_replace(tgt, keys);
		note(&pl,
		     "hosts: DH-HMAC-CHAP settings changed (used from the next authentication)");
	}
	nvmf_config_dhchap_free(tgt->cfg->dhchap, tgt->cfg->n_dhchap);
	tgt->cfg->dhchap = dhchap;
	tgt->cfg->n_dhchap = next->n_dhchap;
	/* TLS PSKs: every handshake from now on (connected queues keep their session). */
	if (tls_keys_changed(tgt->cfg, next))
		note(&pl, "hosts: TLS PSKs changed (used from the next connection)");
	nvmf_config_tls_keys_free(tgt->cfg->tls_keys, tgt->cfg->n_tls_keys);
	tgt->cfg->tls_keys = tls_keys;
	tgt->cfg->n_tls_keys = next->n_tls_keys;
	for (size_t i = pl.first_change; i < json_array_size(changes); i++)
		nvmf_log(tgt, NVMF_LOG_INFO, "reload: %s",
			 json_string_value(json_array_get(changes, i)));
	nvmf_tgt_warn_unadmitted_keys(tgt);
	return 0;
}
