/* SPDX-License-Identifier: MIT */
/*
 * Subsystems and ports changed while the target runs (see model.h). On the main group.
 * What is taken away is retired, not freed at once: a subsystem is freed when its last
 * controller is; a port, whose queues not yet connected may still point at it (on their
 * own groups, out of the main group's sight), stays until the target ends (a few hundred
 * bytes).
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "target/ana.h"
#include "target/auth.h"
#include "target/core.h"
#include "target/ephemeral.h"
#include "target/log.h"
#include "subsystem/created.h"
#include "target/model.h"
#include "target/namespace.h"
#include "target/passthru.h"
#include "target/lba-lock.h"
#include "target/resv.h"

static bool retire_subsys(struct nvmf_tgt *tgt, struct nvmf_subsys *s)
{
	struct nvmf_subsys **grown =
		realloc(tgt->retired_subsys, (tgt->n_retired_subsys + 1) * sizeof(*grown));
	if (!grown)
		return false;
	grown[tgt->n_retired_subsys++] = s;
	tgt->retired_subsys = grown;
	return true;
}

static bool retire_port(struct nvmf_tgt *tgt, struct nvmf_port *p)
{
	struct nvmf_port **grown =
		realloc(tgt->retired_ports, (tgt->n_retired_ports + 1) * sizeof(*grown));
	if (!grown)
		return false;
	grown[tgt->n_retired_ports++] = p;
	tgt->retired_ports = grown;
	return true;
}

/* Tear down every controller of @s (NULL: any) reached through @port (NULL: any). */
static unsigned drop_ctrls(struct nvmf_tgt *tgt, struct nvmf_subsys *s, struct nvmf_port *port)
{
	unsigned n = 0;
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (!c->deleting && (!s || c->subsys == s) && (!port || c->port == port)) {
			nvmf_log(tgt, NVMF_LOG_INFO,
				 "control: disconnecting controller %u of %s (host %s)", c->cntlid,
				 c->subsys->cfg->nqn, c->hostnqn);
			nvmf_tgt_ctrl_delete(c);
			n++;
		}
	return n;
}

/* @host has its entry in the running config's hosts[] (which config_save writes): added
 * when missing, as nvmetcli has a host exist before it is allowed and as the loader
 * requires of a file. 0 or -ENOMEM. */
static int known_host(struct nvmf_tgt *tgt, const char *host)
{
	struct nvmf_config *cfg = tgt->cfg;
	for (size_t h = 0; h < cfg->n_hosts; h++)
		if (!strcmp(cfg->hosts[h], host))
			return 0;
	char *copy = strdup(host);
	char **grown = copy ? realloc(cfg->hosts, (cfg->n_hosts + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(copy);
		return -ENOMEM;
	}
	cfg->hosts = grown;
	cfg->hosts[cfg->n_hosts++] = copy;
	return 0;
}

/* ---- subsystems ---- */

void nvmf_tgt_subsys_reap(struct nvmf_tgt *tgt)
{
	for (size_t i = 0; i < tgt->n_retired_subsys;) {
		struct nvmf_subsys *s = tgt->retired_subsys[i];
		bool held = false;
		for (const struct nvmf_tgt_ctrl *c = tgt->ctrls; c && !held; c = c->next)
			held = c->subsys == s;
		if (held) {
			i++;
			continue;
		}
		/* No controller: no queue can read its namespace slots any more. */
		tgt->retired_subsys[i] = tgt->retired_subsys[--tgt->n_retired_subsys];
		nvmf_subsys_free(s);
	}
}

int nvmf_tgt_subsys_add(struct nvmf_tgt *tgt, const struct nvmf_subsys_config *sc, char *err,
			size_t errlen)
{
	if (nvmf_tgt_find_subsys(tgt, sc->nqn)) {
		snprintf(err, errlen, "subsystem %s exists", sc->nqn);
		return -EEXIST;
	}
	struct nvmf_subsys **grown = realloc(tgt->subsys, (tgt->n_subsys + 1) * sizeof(*grown));
	if (!grown) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	tgt->subsys = grown;
	/* Its allowed hosts join hosts[] (an entry left there by a failure is harmless). */
	for (size_t i = 0; i < sc->n_allowed_hosts; i++)
		if (known_host(tgt, sc->allowed_hosts[i])) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	char why[768];
	for (size_t k = 0; k < sc->n_ns; k++)
		if (nvmf_created_check(tgt->created, &sc->ns[k], why, sizeof(why))) {
			snprintf(err, errlen, "namespaces[%zu] (subsystem %s, namespace %u): %s", k,
				 sc->nqn, sc->ns[k].nsid, why);
			return -EIO;
		}
	struct nvmf_subsys *s = nvmf_subsys_build(sc, tgt->n_subsys, why, sizeof(why));
	if (!s) {
		/* "subsystems[N].namespaces[M] (subsystem X, namespace Y): reason" */
		const char *msg = strstr(why, ".namespaces[");
		snprintf(err, errlen, "%s", msg ? msg + 1 : why);
		return -EIO;
	}
	if (nvmf_tgt_passthru_open(tgt, s, why, sizeof(why))) {
		snprintf(err, errlen, "subsystem %s: %s", sc->nqn, why);
		nvmf_subsys_free(s);
		return -EIO;
	}
	nvmf_subsys_log_notes(tgt, s);
	int rc = nvmf_tgt_subsys_check_unique(tgt, s, err, errlen);
	if (rc) {
		nvmf_subsys_free(s);
		return rc;
	}
	for (uint32_t n = 1; n <= s->max_nsid; n++)
		if (s->ns[n] &&
		    (nvmf_ns_stats_alloc(s->ns[n], tgt->npgs) ||
		     nvmf_lba_ns_attach(tgt, s->ns[n]) || nvmf_resv_ns_attach(tgt, s, s->ns[n]))) {
			nvmf_subsys_free(s);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	tgt->subsys[tgt->n_subsys++] = s;
	nvmf_tgt_subsys_opened(tgt, s);
	return 0;
}

/* Take @s out of @port's list (and its config's). */
static void unlink_one(struct nvmf_port *port, struct nvmf_subsys *s)
{
	for (size_t i = 0; i < port->n_subsys; i++)
		if (port->subsys[i] == s) {
			memmove(&port->subsys[i], &port->subsys[i + 1],
				(port->n_subsys - i - 1) * sizeof(s));
			port->n_subsys--;
			break;
		}
	struct nvmf_port_config *pc = port->cfg;
	for (size_t i = 0; i < pc->n_subsystems; i++)
		if (!strcmp(pc->subsystems[i], s->cfg->nqn)) {
			free(pc->subsystems[i]);
			memmove(&pc->subsystems[i], &pc->subsystems[i + 1],
				(pc->n_subsystems - i - 1) * sizeof(pc->subsystems[0]));
			pc->n_subsystems--;
			break;
		}
}

int nvmf_tgt_subsys_remove(struct nvmf_tgt *tgt, struct nvmf_subsys *s, unsigned *dropped,
			   char *err, size_t errlen)
{
	size_t idx;
	for (idx = 0; idx < tgt->n_subsys && tgt->subsys[idx] != s; idx++)
		;
	if (idx == tgt->n_subsys) {
		snprintf(err, errlen, "no such subsystem");
		return -ENOENT;
	}
	if (!retire_subsys(tgt, s)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* No new host finds it, then the ones connected go, then its storage. */
	memmove(&tgt->subsys[idx], &tgt->subsys[idx + 1], (tgt->n_subsys - idx - 1) * sizeof(s));
	tgt->n_subsys--;
	for (size_t i = 0; i < tgt->n_ports; i++)
		unlink_one(tgt->ports[i], s);
	*dropped = drop_ctrls(tgt, s, NULL);
	while (s->cfg->n_ns) {
		char why[256];
		nvmf_tgt_ns_remove(tgt, s, s->cfg->ns[0].nsid, why, sizeof(why));
	}
	nvmf_tgt_disc_changed(tgt);
	nvmf_tgt_subsys_reap(tgt); /* at once when no host was connected */
	return 0;
}

/* ---- ports ---- */

/* The running transport named @trtype, or NULL. */
static struct nvmf_transport *find_transport(struct nvmf_tgt *tgt, const char *trtype)
{
	for (unsigned i = 0; i < tgt->ntransports; i++)
		if (!strcmp(tgt->transports[i]->ops->name, trtype))
			return tgt->transports[i];
	return NULL;
}

int nvmf_tgt_port_add(struct nvmf_tgt *tgt, const struct nvmf_port_config *pc, char *err,
		      size_t errlen)
{
	if (nvmf_tgt_find_port(tgt, pc->portid)) {
		snprintf(err, errlen, "port %u exists", pc->portid);
		return -EEXIST;
	}
	/* The loader's rule against the running ports: the port that holds the address is
	 * named, where the bind would only say "Address already in use". */
	for (size_t i = 0; i < tgt->n_ports; i++) {
		const struct nvmf_port_config *o = tgt->ports[i]->cfg;
		char a[96], b[96];
		if (!nvmf_port_config_overlaps(pc, o))
			continue;
		snprintf(err, errlen, "%s overlaps port %u (%s %s), which listens there already",
			 nvmf_port_config_addr(pc, a, sizeof(a)), o->portid, o->trtype,
			 nvmf_port_config_addr(o, b, sizeof(b)));
		return -EADDRINUSE;
	}
	struct nvmf_transport *t = find_transport(tgt, pc->trtype);
	if (!t) {
		snprintf(err, errlen,
			 "the %s transport is not running here (its start-up message says why)",
			 pc->trtype);
		return -ENOTSUP;
	}
	struct nvmf_port **grown = realloc(tgt->ports, (tgt->n_ports + 1) * sizeof(*grown));
	if (!grown) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	tgt->ports = grown;
	char why[512];
	struct nvmf_port *p = nvmf_tgt_port_build(tgt, pc, why, sizeof(why));
	if (!p) {
		snprintf(err, errlen, "%s", why);
		return strstr(why, "no subsystem") ? -ENOENT : -ENOMEM;
	}
	p->transport = t;
	uint32_t inl = t->ops->max_inline < t->live_max_inline ? t->ops->max_inline :
								 t->live_max_inline;
	nvmf_port_resolve(p, t->ops->max_queue_size, inl);
	/* The transports' data buffers were sized at start for tgt->mdts: a larger MDTS
	 * would promise transfers they cannot hold. */
	if (pc->mdts > tgt->mdts) {
		snprintf(err, errlen,
			 "param.mdts %u is above %u, the largest MDTS the target's data buffers "
			 "were sized for at start (nvmf_target.mdts and the ports' param.mdts "
			 "then); restart the target to serve it",
			 pc->mdts, tgt->mdts);
		nvmf_port_free(p);
		return -EINVAL;
	}
	p->mdts = nvmf_tgt_port_mdts(tgt, p->cfg);
	if (t->ops->listen(t, p, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		nvmf_port_free(p);
		return -EADDRNOTAVAIL;
	}
	tgt->ports[tgt->n_ports++] = p;
	nvmf_tgt_warn_ephemeral(tgt, p->cfg);
	nvmf_tgt_disc_changed(tgt);
	return 0;
}

int nvmf_tgt_port_remove(struct nvmf_tgt *tgt, struct nvmf_port *port, unsigned *dropped, char *err,
			 size_t errlen)
{
	size_t idx;
	for (idx = 0; idx < tgt->n_ports && tgt->ports[idx] != port; idx++)
		;
	if (idx == tgt->n_ports) {
		snprintf(err, errlen, "no such port");
		return -ENOENT;
	}
	if (!retire_port(tgt, port)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	port->transport->ops->stop_listen(port->transport, port);
	memmove(&tgt->ports[idx], &tgt->ports[idx + 1], (tgt->n_ports - idx - 1) * sizeof(port));
	tgt->n_ports--;
	port->retired = true;
	port->n_subsys = 0; /* a queue still connecting through it finds nothing */
	nvmf_tgt_ana_port_removed(tgt, port);
	*dropped = drop_ctrls(tgt, NULL, port);
	nvmf_tgt_disc_changed(tgt);
	return 0;
}

int nvmf_tgt_port_link(struct nvmf_tgt *tgt, struct nvmf_port *port, struct nvmf_subsys *s,
		       char *err, size_t errlen)
{
	if (nvmf_port_has_subsys(port, s)) {
		snprintf(err, errlen, "port %u already exposes %s", port->cfg->portid, s->cfg->nqn);
		return -EEXIST;
	}
	struct nvmf_port_config *pc = port->cfg;
	struct nvmf_subsys **subs = realloc(port->subsys, (port->n_subsys + 1) * sizeof(*subs));
	if (subs)
		port->subsys = subs;
	char **names = subs ? realloc(pc->subsystems, (pc->n_subsystems + 1) * sizeof(*names)) :
			      NULL;
	if (names)
		pc->subsystems = names;
	char *name = names ? strdup(s->cfg->nqn) : NULL;
	if (!name) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	port->subsys[port->n_subsys++] = s;
	pc->subsystems[pc->n_subsystems++] = name;
	/* A subsystem with more I/O queues raises what new controllers here may have. */
	uint16_t q = nvmf_subsys_max_qid(s);
	if (q > port->max_qid)
		port->max_qid = q;
	nvmf_tgt_disc_changed(tgt);
	return 0;
}

int nvmf_tgt_port_unlink(struct nvmf_tgt *tgt, struct nvmf_port *port, struct nvmf_subsys *s,
			 unsigned *dropped, char *err, size_t errlen)
{
	if (!nvmf_port_has_subsys(port, s)) {
		snprintf(err, errlen, "port %u does not expose %s", port->cfg->portid, s->cfg->nqn);
		return -ENOENT;
	}
	unlink_one(port, s);
	*dropped = drop_ctrls(tgt, s, port);
	nvmf_tgt_disc_changed(tgt);
	return 0;
}

/* ---- allowed hosts ---- */

/* Disconnect every controller of @s whose host may no longer connect. Returns how many. */
static unsigned drop_refused_hosts(struct nvmf_tgt *tgt, struct nvmf_subsys *s)
{
	unsigned n = 0;
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (c->subsys == s && !c->deleting && !nvmf_subsys_host_allowed(s, c->hostnqn)) {
			nvmf_log(tgt, NVMF_LOG_INFO,
				 "control: subsystem %s: host %s no longer allowed, "
				 "disconnecting controller %u",
				 s->cfg->nqn, c->hostnqn, c->cntlid);
			nvmf_tgt_ctrl_delete(c);
			n++;
		}
	return n;
}

bool nvmf_tgt_host_admitted(const struct nvmf_tgt *tgt, const char *host)
{
	for (size_t i = 0; i < tgt->n_subsys; i++)
		if (tgt->subsys[i]->type != NVMF_SUBSYS_DISCOVERY &&
		    nvmf_subsys_host_allowed(tgt->subsys[i], host))
			return true;
	return false;
}

unsigned nvmf_tgt_warn_unadmitted_keys(struct nvmf_tgt *tgt)
{
	unsigned n = 0;
	for (size_t i = 0; i < tgt->cfg->n_dhchap; i++) {
		const char *host = tgt->cfg->dhchap[i].hostnqn;
		if (nvmf_tgt_host_admitted(tgt, host))
			continue;
		nvmf_log_at(tgt, NVMF_LOGC_AUTH, NVMF_LOG_WARNING,
			    "host %s has DH-HMAC-CHAP keys, but no subsystem admits it (none "
			    "lists it in allowed_hosts or has allow_any_host on): is one of the "
			    "NQNs mistyped?",
			    host);
		n++;
	}
	return n;
}

static ssize_t host_index(const struct nvmf_subsys_config *sc, const char *host)
{
	for (size_t i = 0; i < sc->n_allowed_hosts; i++)
		if (!strcmp(sc->allowed_hosts[i], host))
			return (ssize_t)i;
	return -1;
}

int nvmf_tgt_host_add(struct nvmf_tgt *tgt, struct nvmf_subsys *s, const char *host, char *err,
		      size_t errlen)
{
	struct nvmf_subsys_config *sc = s->cfg;
	if (host_index(sc, host) >= 0) {
		snprintf(err, errlen, "%s is already allowed on %s", host, sc->nqn);
		return -EEXIST;
	}
	if (known_host(tgt, host)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	char *copy = strdup(host);
	char **grown =
		copy ? realloc(sc->allowed_hosts, (sc->n_allowed_hosts + 1) * sizeof(*grown)) :
		       NULL;
	if (!grown) {
		free(copy);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	sc->allowed_hosts = grown;
	sc->allowed_hosts[sc->n_allowed_hosts++] = copy;
	nvmf_tgt_disc_changed(tgt);
	return 0;
}

int nvmf_tgt_host_remove(struct nvmf_tgt *tgt, struct nvmf_subsys *s, const char *host,
			 unsigned *dropped, char *err, size_t errlen)
{
	struct nvmf_subsys_config *sc = s->cfg;
	ssize_t i = host_index(sc, host);
	if (i < 0) {
		snprintf(err, errlen, "%s is not in the allowed hosts of %s", host, sc->nqn);
		return -ENOENT;
	}
	free(sc->allowed_hosts[i]);
	memmove(&sc->allowed_hosts[i], &sc->allowed_hosts[i + 1],
		(sc->n_allowed_hosts - (size_t)i - 1) * sizeof(*sc->allowed_hosts));
	sc->n_allowed_hosts--;
	*dropped = drop_refused_hosts(tgt, s);
	nvmf_tgt_disc_changed(tgt);
	return 0;
}

/* Room in @cfg's hosts[] for one more, and *@copy a copy of @host to put there (the
 * caller appends it once nothing else can fail). true when out of memory. */
static bool hosts_room(struct nvmf_config *cfg, const char *host, char **copy)
{
	char **grown = realloc(cfg->hosts, (cfg->n_hosts + 1) * sizeof(*grown));
	if (grown)
		cfg->hosts = grown;
	return !grown || !(*copy = strdup(host));
}

int nvmf_tgt_host_tls_key_set(struct nvmf_tgt *tgt, const char *host, const char *key_file,
			      bool compat, char *err, size_t errlen)
{
	struct nvmf_config *cfg = tgt->cfg;
	struct nvmf_tls_key_config e = { .compat = compat };
	int rc = nvmf_tls_key_file_read(key_file, &e.key, err, errlen);
	if (rc)
		return rc;
	size_t i = 0, h = 0;
	while (i < cfg->n_tls_keys && strcmp(cfg->tls_keys[i].hostnqn, host))
		i++;
	while (h < cfg->n_hosts && strcmp(cfg->hosts[h], host))
		h++;
	char *hcopy = NULL;
	bool oom = !(e.hostnqn = strdup(host)) || !(e.key_file = strdup(key_file));
	/* Room first, so that nothing fails once the table has the new key. */
	if (!oom && i == cfg->n_tls_keys) {
		struct nvmf_tls_key_config *grown =
			realloc(cfg->tls_keys, (i + 1) * sizeof(*grown));
		oom = !grown;
		if (grown)
			cfg->tls_keys = grown;
	}
	if (!oom && h == cfg->n_hosts)
		oom = hosts_room(cfg, host, &hcopy);
	if (oom) {
		explicit_bzero(e.key, strlen(e.key));
		free(e.key);
		free(e.hostnqn);
		free(e.key_file);
		free(hcopy);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (hcopy)
		cfg->hosts[cfg->n_hosts++] = hcopy;
	if (i < cfg->n_tls_keys) {
		nvmf_config_tls_keys_clear(&cfg->tls_keys[i]);
	} else {
		cfg->n_tls_keys++;
	}
	cfg->tls_keys[i] = e;
	return 0;
}

int nvmf_tgt_host_tls_key_clear(struct nvmf_tgt *tgt, const char *host, char *err, size_t errlen)
{
	struct nvmf_config *cfg = tgt->cfg;
	size_t i = 0;
	while (i < cfg->n_tls_keys && strcmp(cfg->tls_keys[i].hostnqn, host))
		i++;
	if (i == cfg->n_tls_keys) {
		snprintf(err, errlen, "%s has no TLS PSK", host);
		return -ENOENT;
	}
	nvmf_config_tls_keys_clear(&cfg->tls_keys[i]);
	memmove(&cfg->tls_keys[i], &cfg->tls_keys[i + 1],
		(cfg->n_tls_keys - i - 1) * sizeof(*cfg->tls_keys));
	cfg->n_tls_keys--;
	return 0;
}

/* Index of @host's entry in the running config's hosts[].dhchap, or n_dhchap. */
static size_t dhchap_index(const struct nvmf_config *cfg, const char *host)
{
	size_t i = 0;
	while (i < cfg->n_dhchap && strcmp(cfg->dhchap[i].hostnqn, host))
		i++;
	return i;
}

static bool dup_opt(const char *s, char **out)
{
	*out = s && *s ? strdup(s) : NULL;
	return !(s && *s) || *out;
}

int nvmf_tgt_host_dhchap_set(struct nvmf_tgt *tgt, const char *host, const char *key,
			     const char *ctrl_key, const char *hash, const char *dhgroup, char *err,
			     size_t errlen)
{
	struct nvmf_config *cfg = tgt->cfg;
	struct nvmf_dhchap_config e = { 0 };
	size_t i = dhchap_index(cfg, host), h = 0;
	while (h < cfg->n_hosts && strcmp(cfg->hosts[h], host))
		h++;
	char *hcopy = NULL;
	bool oom = !dup_opt(host, &e.hostnqn) || !dup_opt(key, &e.key) ||
		   !dup_opt(ctrl_key, &e.ctrl_key) || !dup_opt(hash, &e.hash) ||
		   !dup_opt(dhgroup, &e.dhgroup);
	/* Room first, so that nothing fails once the table has the new keys. */
	if (!oom && i == cfg->n_dhchap) {
		struct nvmf_dhchap_config *grown = realloc(cfg->dhchap, (i + 1) * sizeof(*grown));
		oom = !grown;
		if (grown)
			cfg->dhchap = grown;
	}
	if (!oom && h == cfg->n_hosts)
		oom = hosts_room(cfg, host, &hcopy);
	if (oom) {
		nvmf_config_dhchap_clear(&e);
		free(hcopy);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (nvmf_tgt_host_auth_set(tgt, host, key, ctrl_key, hash, dhgroup, err, errlen)) {
		nvmf_config_dhchap_clear(&e);
		free(hcopy);
		return -EINVAL;
	}
	if (hcopy)
		cfg->hosts[cfg->n_hosts++] = hcopy;
	if (i < cfg->n_dhchap)
		nvmf_config_dhchap_clear(&cfg->dhchap[i]);
	else
		cfg->n_dhchap++;
	cfg->dhchap[i] = e;
	return 0;
}

int nvmf_tgt_host_dhchap_clear(struct nvmf_tgt *tgt, const char *host, char *err, size_t errlen)
{
	struct nvmf_config *cfg = tgt->cfg;
	size_t i = dhchap_index(cfg, host);
	if (i == cfg->n_dhchap) {
		snprintf(err, errlen, "%s has no DH-HMAC-CHAP key", host);
		return -ENOENT;
	}
	nvmf_tgt_host_auth_set(tgt, host, NULL, NULL, NULL, NULL, err, errlen); /* cannot fail */
	nvmf_config_dhchap_clear(&cfg->dhchap[i]);
	memmove(&cfg->dhchap[i], &cfg->dhchap[i + 1],
		(cfg->n_dhchap - i - 1) * sizeof(*cfg->dhchap));
	cfg->n_dhchap--;
	return 0;
}

bool nvmf_tgt_allow_any_host(struct nvmf_tgt *tgt, struct nvmf_subsys *s, bool allow,
			     unsigned *dropped)
{
	*dropped = 0;
	if (s->cfg->allow_any_host == allow)
		return false;
	s->cfg->allow_any_host = allow;
	if (!allow)
		*dropped = drop_refused_hosts(tgt, s);
	nvmf_tgt_disc_changed(tgt);
	return true;
}
