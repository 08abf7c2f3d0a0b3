/* SPDX-License-Identifier: MIT */
/*
 * The served model built from a validated configuration: subsystems (and the discovery
 * subsystem), namespaces with their backends opened, and the limits of ports (see
 * subsystem.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvme/identify.h"
#include "subsystem/subsystem.h"

#define DEFAULT_MODEL    "nvmf-rdma"
#define DEFAULT_FIRMWARE "0.1"
#define DISCOVERY_VS     0x00010300u /* discovery controllers report 1.3 like nvmet */

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

void nvmf_subsys_free(struct nvmf_subsys *s)
{
	if (!s)
		return;
	for (uint32_t n = 0; n <= s->max_nsid && s->ns; n++)
		nvmf_ns_free(s->ns[n]);
	while (s->kept)
		nvmf_subsys_drop_kept(s, s->kept->nsid);
	if (s->pt && s->pt_free)
		s->pt_free(s->pt);
	nvmf_drive_close(s->drive);
	free(s->ns);
	if (s->cfg)
		nvmf_config_subsys_clear(s->cfg);
	free(s->cfg);
	free(s);
}

void nvmf_ns_free(struct nvmf_ns *ns)
{
	if (!ns)
		return;
	/* A file this namespace's open created (nvmf_create) and nothing published
	 * (nvmf_tgt_ns_opened clears bdev->created): the operation that created it failed,
	 * so it goes too. Only that very file: the path must still name the inode. */
	struct stat made = { 0 };
	bool discard = ns->bdev && ns->bdev->created && !ns->bdev->refs && ns->real_path &&
		       ns->bdev->fd >= 0 && fstat(ns->bdev->fd, &made) == 0;
	if (ns->bdev)
		nvmf_bdev_close(ns->bdev);
	free(ns->watch); /* the backend calls it no more once closed */
	struct stat now;
	if (discard && lstat(ns->real_path, &now) == 0 && now.st_dev == made.st_dev &&
	    now.st_ino == made.st_ino)
		unlink(ns->real_path);
	if (ns->resv && ns->resv_free)
		ns->resv_free(ns->resv);
	if (ns->lba && ns->lba_free)
		ns->lba_free(ns->lba);
	free(ns->real_path);
	free(ns->stats);
	free(ns);
}

int nvmf_ns_stats_alloc(struct nvmf_ns *ns, unsigned npgs)
{
	size_t len = (size_t)(npgs ? npgs : 1) * sizeof(*ns->stats);
	struct nvmf_ns_pg_stats *st = aligned_alloc(64, len);
	if (!st)
		return -ENOMEM;
	memset(st, 0, len);
	free(ns->stats);
	ns->stats = st;
	ns->npgs = npgs;
	return 0;
}

void nvmf_ns_derived_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16])
{
	/* Stable across restarts, so hosts see the same namespace identity (RFC 4122
	 * version 8, name based). */
	uint64_t h1 = fnv1a(nqn, strlen(nqn), 0xcbf29ce484222325ull);
	h1 = fnv1a(&nsid, sizeof(nsid), h1);
	uint64_t h2 = fnv1a(&h1, sizeof(h1), 0x84222325cbf29ce4ull);
	memcpy(uuid, &h1, 8);
	memcpy(uuid + 8, &h2, 8);
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x80);
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

int nvmf_subsys_keep(struct nvmf_subsys *s, uint32_t nsid, struct nvmf_bdev *b)
{
	struct nvmf_ns_kept *k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->nsid = nsid;
	k->bdev = nvmf_bdev_hold(b);
	k->next = s->kept;
	s->kept = k;
	return 0;
}

/* The entry @s keeps for @nsid, unlinked (its hold is the caller's), or NULL. */
static struct nvmf_ns_kept *take_kept(struct nvmf_subsys *s, uint32_t nsid)
{
	for (struct nvmf_ns_kept **pp = &s->kept; *pp; pp = &(*pp)->next) {
		struct nvmf_ns_kept *k = *pp;
		if (k->nsid == nsid) {
			*pp = k->next;
			return k;
		}
	}
	return NULL;
}

void nvmf_subsys_drop_kept(struct nvmf_subsys *s, uint32_t nsid)
{
	struct nvmf_ns_kept *k = take_kept(s, nsid);
	if (k) {
		nvmf_bdev_close(k->bdev);
		free(k);
	}
}

/* A backend for @nc: the one @s kept for its nsid (sized as @nc now says), else a new one. */
static struct nvmf_bdev *ns_bdev(struct nvmf_subsys *s, const struct nvmf_ns_config *nc, char *err,
				 size_t errlen)
{
	struct nvmf_ns_kept *k = take_kept(s, nc->nsid);
	if (!k)
		return nvmf_bdev_open(nc, err, errlen);
	struct nvmf_bdev *b = k->bdev;
	if (nc->size_bytes && nc->size_bytes != b->size &&
	    nvmf_bdev_resize(b, nc->size_bytes, err, errlen) < 0) {
		k->next = s->kept; /* kept as it was, data and all */
		s->kept = k;
		return NULL;
	}
	free(k);
	return b;
}

struct nvmf_ns *nvmf_ns_open(struct nvmf_subsys *s, const struct nvmf_ns_config *nc, char *err,
			     size_t errlen)
{
	struct nvmf_ns *ns = calloc(1, sizeof(*ns));
	if (!ns) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ns->nsid = nc->nsid;
	ns->anagrpid = nvmf_ns_config_anagrpid(nc);
	ns->resv_enable = nc->resv_enable;
	ns->bdev = ns_bdev(s, nc, err, errlen);
	if (!ns->bdev) {
		free(ns);
		return NULL;
	}
	/* Resolved, so two names of one file (a symlink, "..") are seen as one. */
	if (nc->path && !(ns->real_path = realpath(nc->path, NULL)) &&
	    !(ns->real_path = strdup(nc->path))) {
		nvmf_ns_free(ns);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* An rbd image by rbd's own spelling, pool[/namespace]/image: no file path starts
	 * so, and two namespaces of one image are told apart (nvmf_tgt_ns_check_unique). */
	if (ns->bdev->kind == NVMF_BACKEND_RBD) {
		const struct nvmf_rbd_config *r = &nc->rbd;
		size_t n = strlen(r->pool) + strlen(r->rados_ns) + strlen(r->image) + 3;
		if (!(ns->real_path = malloc(n))) {
			nvmf_ns_free(ns);
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		snprintf(ns->real_path, n, "%s%s%s/%s", r->pool, r->rados_ns[0] ? "/" : "",
			 r->rados_ns, r->image);
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
		ns->uuid_derived = true;
		nvmf_ns_derived_uuid(s->cfg->nqn, nc->nsid, ns->uuid);
	}
	ns->has_uuid = true;
	return ns;
}

struct nvmf_ns *nvmf_ns_open_passthru(struct nvmf_subsys *s, uint32_t nsid, char *err,
				      size_t errlen)
{
	struct nvmf_ns *ns = calloc(1, sizeof(*ns));
	if (!ns) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ns->nsid = nsid;
	ns->anagrpid = 1;
	ns->bdev = nvmf_bdev_open_passthru(s->drive, nsid, err, errlen);
	if (!ns->bdev) {
		free(ns);
		return NULL;
	}
	const struct nvmf_drive_ns *dn = nvmf_drive_ns_find(s->drive, nsid);
	if (dn && dn->path[0] && !(ns->real_path = strdup(dn->path))) {
		nvmf_ns_free(ns);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ns->lba_shift = (uint32_t)__builtin_ctz(ns->bdev->block_size);
	ns->nlb = ns->bdev->size >> ns->lba_shift;
	return ns;
}

/* An Identify Controller text field of the drive (space padded, not NUL ended) into
 * @dst (@n + 1 bytes), trailing spaces dropped. */
static void drive_text(char *dst, size_t n, const char *src)
{
	memcpy(dst, src, n);
	dst[n] = 0;
	while (n && (dst[n - 1] == ' ' || dst[n - 1] == 0))
		dst[--n] = 0;
}

int nvmf_subsys_passthru_attach(struct nvmf_subsys *s, struct nvmf_drive *d, char *err,
				size_t errlen)
{
	s->drive = d;
	const struct nvme_id_ctrl *id = (const struct nvme_id_ctrl *)d->id_ctrl;
	char sn[21], mn[41], fr[9];
	drive_text(sn, 20, id->sn);
	drive_text(mn, 40, id->mn);
	drive_text(fr, 8, id->fr);
	pad_copy(s->serial, 20, s->cfg->serial[0] ? s->cfg->serial : sn);
	pad_copy(s->model, 40, s->cfg->model[0] ? s->cfg->model : mn);
	pad_copy(s->firmware, 8, s->cfg->firmware[0] ? s->cfg->firmware : fr);
	for (size_t i = 0; i < d->n_ns; i++) {
		if (d->ns[i].refused[0] || d->ns[i].nsid > NVMF_SUBSYS_MAX_NSID)
			continue;
		char why[256];
		struct nvmf_ns *ns = nvmf_ns_open_passthru(s, d->ns[i].nsid, why, sizeof(why));
		if (!ns) {
			snprintf(err, errlen, "nsid %u: %s", d->ns[i].nsid, why);
			return -EIO;
		}
		s->ns[ns->nsid] = ns;
	}
	return 0;
}

struct nvmf_subsys *nvmf_subsys_build(const struct nvmf_subsys_config *src, size_t sidx, char *err,
				      size_t errlen)
{
	struct nvmf_subsys *s = calloc(1, sizeof(*s));
	struct nvmf_subsys_config *sc = calloc(1, sizeof(*sc));
	/* Every slot up front: a namespace added live never moves the array under a reader. */
	if (!s || !sc || !(s->ns = calloc(NVMF_SUBSYS_MAX_NSID + 1, sizeof(*s->ns))) ||
	    nvmf_config_subsys_dup(src, sc)) {
		if (s)
			free(s->ns);
		free(s);
		free(sc);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->type = NVMF_SUBSYS_NVME;
	s->cfg = sc;
	s->max_nsid = NVMF_SUBSYS_MAX_NSID;
	s->vs = sc->version ? sc->version : NVMF_DEFAULT_VERSION;
	s->next_cntlid = sc->cntlid_min ? sc->cntlid_min : 1;
	for (size_t i = 0; i < sc->n_ns; i++) {
		if (!sc->ns[i].enable)
			continue;
		char why[512];
		struct nvmf_ns *ns = nvmf_ns_open(s, &sc->ns[i], why, sizeof(why));
		if (!ns) {
			snprintf(err, errlen,
				 "subsystems[%zu].namespaces[%zu] (subsystem %s, namespace %u): %s",
				 sidx, i, sc->nqn, sc->ns[i].nsid, why);
			nvmf_subsys_free(s);
			return NULL;
		}
		s->ns[ns->nsid] = ns;
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
		snprintf(serial, sizeof(serial), "%016llx",
			 (unsigned long long)fnv1a(sc->nqn, strlen(sc->nqn),
						   0xcbf29ce484222325ull));
	pad_copy(s->serial, 20, serial);
	pad_copy(s->model, 40,
		 sc->model[0]             ? sc->model :
		 drive && drive->model[0] ? drive->model :
					    DEFAULT_MODEL);
	pad_copy(s->firmware, 8, sc->firmware[0] ? sc->firmware : DEFAULT_FIRMWARE);
	return s;
}

struct nvmf_subsys *nvmf_subsys_discovery_new(const char *nqn)
{
	/* Its config (NQN, any host) is the subsystem's own, freed with it. */
	struct nvmf_subsys_config *dc = calloc(1, sizeof(*dc));
	struct nvmf_subsys *s = calloc(1, sizeof(*s));
	if (!dc || !s) {
		free(dc);
		free(s);
		return NULL;
	}
	snprintf(dc->nqn, sizeof(dc->nqn), "%s", nqn);
	dc->allow_any_host = true;
	s->type = NVMF_SUBSYS_DISCOVERY;
	s->cfg = dc;
	s->vs = DISCOVERY_VS;
	s->next_cntlid = 1;
	pad_copy(s->serial, 20, "discovery");
	pad_copy(s->model, 40, DEFAULT_MODEL " discovery");
	pad_copy(s->firmware, 8, DEFAULT_FIRMWARE);
	return s;
}

bool nvmf_subsys_has_vwc(const struct nvmf_subsys *s)
{
	for (uint32_t n = 1; s->ns && n <= s->max_nsid; n++)
		if (s->ns[n] && s->ns[n]->bdev && s->ns[n]->bdev->volatile_cache)
			return true;
	return false;
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

uint16_t nvmf_subsys_max_qid(const struct nvmf_subsys *s)
{
	if (s->type == NVMF_SUBSYS_DISCOVERY)
		return 0;
	return s->cfg->qid_max ? s->cfg->qid_max : NVMF_DEFAULT_QID_MAX;
}

void nvmf_port_free(struct nvmf_port *port)
{
	if (!port)
		return;
	if (port->cfg)
		nvmf_config_port_clear(port->cfg);
	free(port->cfg);
	free(port->subsys);
	free(port);
}

char *nvmf_port_config_addr(const struct nvmf_port_config *pc, char *buf, size_t len)
{
	bool v6 = pc->adrfam == AF_INET6;
	snprintf(buf, len, "%s%s%s:%s", v6 ? "[" : "", pc->traddr, v6 ? "]" : "",
		 pc->trsvcid[0] ? pc->trsvcid : "4420");
	return buf;
}

void nvmf_port_resolve(struct nvmf_port *port, uint32_t max_queue_size, uint32_t max_inline)
{
	uint32_t qs = port->cfg->max_queue_size;
	if (qs == 0 || qs == UINT32_MAX)
		qs = NVMF_DEFAULT_QUEUE_SIZE;
	if (qs < NVMF_MIN_QUEUE_SIZE)
		qs = NVMF_MIN_QUEUE_SIZE;
	if (qs > max_queue_size)
		qs = max_queue_size;
	port->queue_size = (uint16_t)qs;
	uint32_t in = port->cfg->inline_data_size;
	if (in == UINT32_MAX)
		in = NVMF_DEFAULT_INLINE;
	port->inline_size = in < max_inline ? in : max_inline;
	port->max_qid = 0;
	for (size_t i = 0; i < port->n_subsys; i++) {
		uint16_t q = nvmf_subsys_max_qid(port->subsys[i]);
		if (q > port->max_qid)
			port->max_qid = q;
	}
}
