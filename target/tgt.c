/* SPDX-License-Identifier: MIT */
/*
 * The target's model built from a validated configuration: subsystems (plus the
 * discovery subsystem), namespaces with their backends opened, ports; and the keep-alive
 * timer check (NVMe Base 3.9: KATO expiry is a controller fatal condition).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nvme/identify.h"
#include "target/core.h"

#define DEFAULT_MODEL    "nvmf-rdma"
#define DEFAULT_FIRMWARE "0.1"
#define DEFAULT_VS       0x00020000u   /* NVMe 2.0 */

static uint64_t monotonic_ms(const struct nvmf_tgt *tgt)
{
	(void)tgt;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* FNV-1a 64: stable identifiers derived from names (serial numbers, namespace UUIDs). */
static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Identify strings (SN, MN, FR): space padded on the wire, with room for a NUL at [len]
 * for our own printing. The config validated their length and characters already. */
static void pad_copy(char *dst, size_t len, const char *src)
{
	nvme_ascii_field(dst, len, src);
	dst[len] = 0;
}

static void free_subsys(struct nvmf_subsys *s)
{
	if (!s)
		return;
	for (uint32_t n = 0; n <= s->max_nsid && s->ns; n++) {
		if (!s->ns[n])
			continue;
		if (s->ns[n]->bdev)
			nvmf_bdev_close(s->ns[n]->bdev);
		free(s->ns[n]);
	}
	free(s->ns);
	free(s);
}

static int open_ns(struct nvmf_subsys *s, const struct nvmf_ns_config *nc, size_t sidx,
		   size_t idx, char *err, size_t errlen)
{
	char why[512];
	struct nvmf_ns *ns = calloc(1, sizeof(*ns));
	if (!ns) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ns->nsid = nc->nsid;
	ns->bdev = nvmf_bdev_open(nc, why, sizeof(why));
	if (!ns->bdev) {
		snprintf(err, errlen, "subsystems[%zu].namespaces[%zu] (subsystem %s, namespace %u): %s",
			 sidx, idx, s->cfg->nqn, nc->nsid, why);
		free(ns);
		return -1;
	}
	ns->lba_shift = (uint32_t)__builtin_ctz(ns->bdev->block_size);
	ns->nlb = ns->bdev->size >> ns->lba_shift;
	if (nc->has_nguid) {
		memcpy(ns->nguid, nc->nguid, 16);
		ns->has_nguid = true;
	} else if (ns->bdev->has_nguid) {
		memcpy(ns->nguid, ns->bdev->nguid, 16);
		ns->has_nguid = true;
	}
	if (nc->has_eui64) {
		memcpy(ns->eui64, nc->eui64, 8);
		ns->has_eui64 = true;
	} else if (ns->bdev->has_eui64) {
		memcpy(ns->eui64, ns->bdev->eui64, 8);
		ns->has_eui64 = true;
	}
	if (nc->has_uuid) {
		memcpy(ns->uuid, nc->uuid, 16);
	} else {
		/* A stable UUID from subsystem NQN and nsid, so hosts see the same namespace
		 * identity across restarts (RFC 4122 version 8, name based). */
		uint64_t h1 = fnv1a(s->cfg->nqn, strlen(s->cfg->nqn), 0xcbf29ce484222325ull);
		h1 = fnv1a(&nc->nsid, sizeof(nc->nsid), h1);
		uint64_t h2 = fnv1a(&h1, sizeof(h1), 0x84222325cbf29ce4ull);
		memcpy(ns->uuid, &h1, 8);
		memcpy(ns->uuid + 8, &h2, 8);
		ns->uuid[6] = (uint8_t)((ns->uuid[6] & 0x0f) | 0x80);
		ns->uuid[8] = (uint8_t)((ns->uuid[8] & 0x3f) | 0x80);
	}
	ns->has_uuid = true;
	s->ns[nc->nsid] = ns;
	return 0;
}

static struct nvmf_subsys *build_subsys(const struct nvmf_subsys_config *sc, size_t sidx,
					char *err, size_t errlen)
{
	struct nvmf_subsys *s = calloc(1, sizeof(*s));
	uint32_t max = 0;
	for (size_t i = 0; i < sc->n_ns; i++)
		if (sc->ns[i].enable && sc->ns[i].nsid > max)
			max = sc->ns[i].nsid;
	if (!s || !(s->ns = calloc((size_t)max + 1, sizeof(*s->ns)))) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->type = NVMF_SUBSYS_NVME;
	s->cfg = sc;
	s->max_nsid = max;
	s->vs = sc->version ? sc->version : DEFAULT_VS;
	s->next_cntlid = sc->cntlid_min ? sc->cntlid_min : 1;
	for (size_t i = 0; i < sc->n_ns; i++) {
		if (!sc->ns[i].enable)
			continue;
		if (open_ns(s, &sc->ns[i], sidx, i, err, errlen)) {
			free_subsys(s);
			return NULL;
		}
	}
	/* Identity: configured, else from a raw NVMe drive behind it, else defaults. */
	const struct nvmf_bdev *drive = NULL;
	for (uint32_t n = 1; n <= s->max_nsid; n++)
		if (s->ns[n] && s->ns[n]->bdev->kind == NVMF_BACKEND_NVME && !drive)
			drive = s->ns[n]->bdev;
	char serial[21];
	if (sc->serial[0])
		snprintf(serial, sizeof(serial), "%s", sc->serial);
	else if (drive && drive->serial[0])
		snprintf(serial, sizeof(serial), "%s", drive->serial);
	else
		snprintf(serial, sizeof(serial), "%016llx", (unsigned long long)
			 fnv1a(sc->nqn, strlen(sc->nqn), 0xcbf29ce484222325ull));
	pad_copy(s->serial, 20, serial);
	pad_copy(s->model, 40, sc->model[0] ? sc->model : drive && drive->model[0] ? drive->model : DEFAULT_MODEL);
	pad_copy(s->firmware, 8, sc->firmware[0] ? sc->firmware : DEFAULT_FIRMWARE);
	return s;
}

int nvmf_tgt_init(struct nvmf_tgt *tgt, struct nvmf_config *cfg, struct nvmf_aio *aio,
		  char *err, size_t errlen)
{
	memset(tgt, 0, sizeof(*tgt));
	tgt->cfg = cfg;
	tgt->io.aio = aio;
	pthread_mutex_init(&tgt->stats_lock, NULL);
	tgt->now_ms = monotonic_ms;
	tgt->disc_genctr = 1;

	/* The discovery subsystem: any host, no namespaces. Its config is ours to own. */
	struct nvmf_subsys_config *dc = calloc(1, sizeof(*dc));
	tgt->disc = calloc(1, sizeof(*tgt->disc));
	tgt->subsys = calloc(cfg->n_subsystems ? cfg->n_subsystems : 1, sizeof(*tgt->subsys));
	tgt->ports = calloc(cfg->n_ports ? cfg->n_ports : 1, sizeof(*tgt->ports));
	if (!dc || !tgt->disc || !tgt->subsys || !tgt->ports) {
		free(dc);
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	snprintf(dc->nqn, sizeof(dc->nqn), "%s",
		 cfg->target.discovery_nqn[0] ? cfg->target.discovery_nqn : NVMF_DISC_NQN);
	dc->allow_any_host = true;
	tgt->disc->type = NVMF_SUBSYS_DISCOVERY;
	tgt->disc->cfg = dc;
	tgt->disc->vs = 0x00010300;   /* discovery controllers report 1.3 like nvmet */
	tgt->disc->next_cntlid = 1;
	pad_copy(tgt->disc->serial, 20, "discovery");
	pad_copy(tgt->disc->model, 40, DEFAULT_MODEL " discovery");
	pad_copy(tgt->disc->firmware, 8, DEFAULT_FIRMWARE);

	for (size_t i = 0; i < cfg->n_subsystems; i++) {
		tgt->subsys[i] = build_subsys(&cfg->subsystems[i], i, err, errlen);
		if (!tgt->subsys[i])
			goto fail;
		tgt->n_subsys++;
	}
	for (size_t i = 0; i < cfg->n_ports; i++) {
		struct nvmf_port *p = &tgt->ports[i];
		const struct nvmf_port_config *pc = &cfg->ports[i];
		p->cfg = pc;
		p->subsys = calloc(pc->n_subsystems ? pc->n_subsystems : 1, sizeof(*p->subsys));
		if (!p->subsys) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		tgt->n_ports++;
		for (size_t j = 0; j < pc->n_subsystems; j++) {
			struct nvmf_subsys *s = nvmf_tgt_find_subsys(tgt, pc->subsystems[j]);
			if (!s) {   /* the config loader already refuses this */
				snprintf(err, errlen, "ports[%zu].subsystems[%zu]: unknown subsystem %s",
					 i, j, pc->subsystems[j]);
				goto fail;
			}
			p->subsys[p->n_subsys++] = s;
		}
	}
	return 0;
fail:
	nvmf_tgt_fini(tgt);
	return -1;
}

void nvmf_tgt_fini(struct nvmf_tgt *tgt)
{
	while (tgt->ctrls)
		nvmf_tgt_ctrl_free(tgt->ctrls);
	pthread_mutex_destroy(&tgt->stats_lock);
	for (size_t i = 0; i < tgt->n_subsys; i++)
		free_subsys(tgt->subsys[i]);
	free(tgt->subsys);
	for (size_t i = 0; i < tgt->n_ports; i++)
		free(tgt->ports[i].subsys);
	free(tgt->ports);
	if (tgt->disc) {
		free((void *)tgt->disc->cfg);
		free_subsys(tgt->disc);
	}
	tgt->subsys = NULL;
	tgt->ports = NULL;
	tgt->disc = NULL;
	tgt->n_subsys = tgt->n_ports = 0;
}

struct nvmf_subsys *nvmf_tgt_find_subsys(struct nvmf_tgt *tgt, const char *nqn)
{
	if (tgt->disc && !strcmp(tgt->disc->cfg->nqn, nqn))
		return tgt->disc;
	for (size_t i = 0; i < tgt->n_subsys; i++)
		if (!strcmp(tgt->subsys[i]->cfg->nqn, nqn))
			return tgt->subsys[i];
	return NULL;
}

bool nvmf_subsys_host_allowed(const struct nvmf_subsys *s, const char *hostnqn)
{
	if (s->type == NVMF_SUBSYS_DISCOVERY || s->cfg->allow_any_host)
		return true;
	for (size_t i = 0; i < s->cfg->n_allowed_hosts; i++)
		if (!strcmp(s->cfg->allowed_hosts[i], hostnqn))
			return true;
	return false;
}

bool nvmf_port_has_subsys(const struct nvmf_port *port, const struct nvmf_subsys *s)
{
	if (s->type == NVMF_SUBSYS_DISCOVERY)
		return true;
	if (!port)
		return false;
	for (size_t i = 0; i < port->n_subsys; i++)
		if (port->subsys[i] == s)
			return true;
	return false;
}

void nvmf_tgt_poll_timers(struct nvmf_tgt *tgt)
{
	uint64_t now = tgt->now_ms(tgt);
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls, *next; c; c = next) {
		next = c->next;   /* a transport may free c during teardown */
		if (c->deleting || !c->kato_ms)
			continue;
		if (now - __atomic_load_n(&c->last_keep_alive_ms, __ATOMIC_RELAXED) > c->kato_ms) {
			fprintf(stderr, "nvmf-target: controller %u of %s (host %s): keep-alive timeout "
				"(%u ms), tearing the association down\n",
				c->cntlid, c->subsys->cfg->nqn, c->hostnqn, c->kato_ms);
			nvmf_tgt_ctrl_fatal(c);
		}
	}
}
