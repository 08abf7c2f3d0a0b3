/* SPDX-License-Identifier: MIT */
/*
 * The native multipath handle: one subsystem reached through several paths (one
 * controller each), as the Linux host's multipath node (drivers/nvme/host/multipath.c)
 * presents one namespace over several controllers. This file: connecting the paths and
 * checking they are one subsystem (Identify Controller SUBNQN and CMIC), the namespace
 * entries with their ANA state per path, path choice, memory registration, what the
 * handle tells about its paths, disconnect. The queues are mpath-io.c, the watcher
 * thread mpath-watch.c; threads and the reconnect handshake: mpath-internal.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/mpath-internal.h"
#include "nvme/ana-state.h"

void nvmfh_mp_errf(struct nvmf_mpath *mp, const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&mp->err_lock);
	va_start(ap, fmt);
	vsnprintf(mp->errmsg, sizeof(mp->errmsg), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&mp->err_lock);
}

void nvmfh_mp_path_errf(struct nvmf_mpath *mp, unsigned p, const char *fmt, ...)
{
	struct mp_path *path = &mp->path[p];
	va_list ap;
	pthread_mutex_lock(&mp->err_lock);
	va_start(ap, fmt);
	vsnprintf(path->msg, sizeof(path->msg), fmt, ap);
	va_end(ap);
	/* Cut to errmsg's size when long (path->msg keeps the whole message); the result is
	 * tested so that gcc's -O0 -Wformat-truncation does not take the cut for a bug. */
	if (snprintf(mp->errmsg, sizeof(mp->errmsg), "path %u (%s:%s): %s", p, path->traddr,
		     path->trsvcid, path->msg) < 0)
		mp->errmsg[0] = '\0';
	pthread_mutex_unlock(&mp->err_lock);
}

int nvmfh_mp_no_path(struct nvmf_mpath *mp, const struct mp_ns *ns, uint64_t waited_ms, int last)
{
	char buf[NVMFH_ERRMSG_MAX];
	size_t n = 0;
	/* Appends while there is room; a cut message still ends with a NUL. */
#define ADD(...)                                                                 \
	do {                                                                     \
		if (n < sizeof(buf)) {                                           \
			int k = snprintf(buf + n, sizeof(buf) - n, __VA_ARGS__); \
			n = k < 0 ? sizeof(buf) : n + (size_t)k;                 \
		}                                                                \
	} while (0)
	ADD("namespace %u: no usable path", ns->nsid);
	if (waited_ms)
		ADD(" for %llu ms", (unsigned long long)waited_ms);
	for (unsigned p = 0; p < mp->npaths; p++) {
		const struct mp_path *path = &mp->path[p];
		bool live = atomic_load(&path->state) == MP_LIVE;
		uint8_t st = atomic_load_explicit(&ns->state[p], memory_order_relaxed);
		ADD("%s path %u (%s:%s) %s", p ? "," : ":", p, path->traddr, path->trsvcid,
		    live ? nvme_ana_state_name(st) : "down");
	}
	if (last)
		ADD("; last error: %s", nvmf_strerror(last));
#undef ADD
	nvmfh_mp_errf(mp, "%s", buf);
	return NVMF_ERR_NO_PATH;
}

const char *nvmf_mpath_errmsg(const struct nvmf_mpath *mp)
{
	return mp ? mp->errmsg : "";
}

int nvmfh_mp_best_path(const struct nvmf_mpath *mp, const struct mp_ns *ns, uint32_t avoid,
		       int *rank)
{
	int best = -1, best_rank = 4;
	for (unsigned p = 0; p < mp->npaths; p++) {
		if (atomic_load(&mp->path[p].state) != MP_LIVE)
			continue;
		uint8_t st = atomic_load_explicit(&ns->state[p], memory_order_relaxed);
		int rk = st == NVME_ANA_STATE_OPTIMIZED    ? 0 :
			 st == NVME_ANA_STATE_NONOPTIMIZED ? 1 :
							     -1;
		if (rk < 0)
			continue; /* inaccessible, persistent loss, change, unknown: never */
		if (avoid & (1u << p))
			rk += 2;
		if (rk < best_rank) {
			best = (int)p;
			best_rank = rk;
		}
	}
	if (rank)
		*rank = best_rank;
	return best;
}

void nvmfh_mp_ns_apply(struct nvmf_mpath *mp, unsigned p, struct mp_ns *ns)
{
	struct mp_path *path = &mp->path[p];
	uint8_t st = 0;
	uint32_t grp = 0;
	if (!atomic_load(&path->ana)) {
		st = NVME_ANA_STATE_OPTIMIZED; /* no ANA reporting: every path is (Linux too) */
	} else {
		const struct nvmf_ana_group *g =
			nvmfh_ana_find(path->log, ns->nsid, ns->anagrpid[p]);
		if (g) {
			st = g->state;
			grp = g->grpid;
		}
	}
	atomic_store_explicit(&ns->grpid[p], grp, memory_order_relaxed);
	atomic_store_explicit(&ns->state[p], st, memory_order_relaxed);
}

static bool same_ids(const struct nvmf_ns_info *a, const struct nvmf_ns_info *b)
{
	return a->block_size == b->block_size && !memcmp(a->nguid, b->nguid, 16) &&
	       !memcmp(a->eui64, b->eui64, 8) && !memcmp(a->uuid, b->uuid, 16);
}

/* Identify @nsid through every live path into @ns (ns_lock held). */
static int ns_identify(struct nvmf_mpath *mp, struct mp_ns *ns)
{
	int first_err = -EHOSTUNREACH, found = -1;
	for (unsigned p = 0; p < mp->npaths; p++) {
		struct mp_path *path = &mp->path[p];
		struct nvmf_ns_info info;
		pthread_mutex_lock(&path->lock);
		int rc = atomic_load(&path->state) == MP_LIVE ?
				 nvmfh_ns_identify(path->c, ns->nsid, &info, &ns->anagrpid[p]) :
				 -EHOSTUNREACH;
		if (first_err == -EHOSTUNREACH && rc && rc != -EHOSTUNREACH)
			nvmfh_mp_errf(mp, "namespace %u through path %u (%s:%s): %s: %s", ns->nsid,
				      p, path->traddr, path->trsvcid, nvmf_strerror(rc),
				      nvmf_ctrl_errmsg(path->c));
		pthread_mutex_unlock(&path->lock);
		if (rc) {
			if (first_err == -EHOSTUNREACH)
				first_err = rc;
			continue;
		}
		if (found < 0) {
			ns->info = info;
			found = (int)p;
		} else if (!same_ids(&ns->info, &info)) {
			nvmfh_mp_errf(mp,
				      "namespace %u: path %u (%s:%s) reports another block size or "
				      "other identifiers (NGUID, EUI-64, UUID) than path %d",
				      ns->nsid, p, path->traddr, path->trsvcid, found);
			return -EPROTO;
		}
	}
	if (found < 0) {
		if (first_err == -EHOSTUNREACH)
			nvmfh_mp_errf(mp, "namespace %u: no live path to identify it through",
				      ns->nsid);
		return first_err;
	}
	ns->lba_shift = (uint32_t)__builtin_ctz(ns->info.block_size);
	return 0;
}

static struct mp_ns *ns_find(struct nvmf_mpath *mp, uint32_t nsid)
{
	for (struct mp_ns *ns = atomic_load_explicit(&mp->ns_head, memory_order_acquire); ns;
	     ns = ns->next)
		if (ns->nsid == nsid)
			return ns;
	return NULL;
}

struct mp_ns *nvmfh_mp_ns_get(struct nvmf_mpath *mp, uint32_t nsid, int *rc)
{
	struct mp_ns *ns = ns_find(mp, nsid);
	if (ns)
		return ns;
	pthread_mutex_lock(&mp->ns_lock);
	ns = ns_find(mp, nsid); /* another thread may have made it meanwhile */
	if (ns) {
		pthread_mutex_unlock(&mp->ns_lock);
		return ns;
	}
	ns = calloc(1, sizeof(*ns));
	if (!ns) {
		pthread_mutex_unlock(&mp->ns_lock);
		*rc = -ENOMEM;
		return NULL;
	}
	ns->nsid = nsid;
	*rc = ns_identify(mp, ns);
	if (*rc) {
		pthread_mutex_unlock(&mp->ns_lock);
		free(ns);
		return NULL;
	}
	for (unsigned p = 0; p < mp->npaths; p++) {
		pthread_mutex_lock(&mp->path[p].lock);
		nvmfh_mp_ns_apply(mp, p, ns);
		pthread_mutex_unlock(&mp->path[p].lock);
	}
	ns->next = atomic_load_explicit(&mp->ns_head, memory_order_relaxed);
	atomic_store_explicit(&mp->ns_head, ns, memory_order_release);
	pthread_mutex_unlock(&mp->ns_lock);
	/* A path whose log does not list it yet: the watcher reads the logs again. */
	for (unsigned p = 0; p < mp->npaths; p++)
		if (!atomic_load(&ns->state[p]))
			nvmfh_mp_kick(mp);
	return ns;
}

/* ---- connect ---- */

static void mp_free(struct nvmf_mpath *mp)
{
	for (unsigned i = 0; mp->q && i < mp->nr_queues; i++)
		nvmfh_mp_queue_fini(&mp->q[i]);
	free(mp->q);
	for (unsigned p = 0; p < mp->npaths; p++) {
		nvmf_ana_log_free(mp->path[p].log);
		pthread_mutex_destroy(&mp->path[p].lock);
	}
	struct mp_ns *ns = atomic_load(&mp->ns_head);
	while (ns) {
		struct mp_ns *next = ns->next;
		free(ns);
		ns = next;
	}
	free(mp->regions);
	sem_destroy(&mp->kick);
	pthread_mutex_destroy(&mp->ns_lock);
	pthread_mutex_destroy(&mp->mem_lock);
	pthread_mutex_destroy(&mp->pass_lock);
	pthread_cond_destroy(&mp->pass_cond);
	pthread_mutex_destroy(&mp->err_lock);
	free(mp);
}

static int disconnect_paths(struct nvmf_mpath *mp)
{
	int first = 0;
	for (unsigned p = 0; p < mp->npaths; p++) {
		if (!mp->path[p].c)
			continue;
		int rc = nvmf_disconnect(mp->path[p].c);
		mp->path[p].c = NULL;
		if (rc && !first)
			first = rc;
	}
	return first;
}

/* The paths are one subsystem that says it has several controllers (and ports). */
static int check_subsystem(struct nvmf_mpath *mp)
{
	const struct nvme_id_ctrl *id0 = nvmf_ctrl_id(mp->path[0].c);
	snprintf(mp->subnqn, sizeof(mp->subnqn), "%.*s", (int)sizeof(id0->subnqn), id0->subnqn);
	mp->cmic = id0->cmic;
	bool ports = false;
	for (unsigned p = 0; p < mp->npaths; p++) {
		struct mp_path *path = &mp->path[p];
		const struct nvme_id_ctrl *id = nvmf_ctrl_id(path->c);
		if (id->cntrltype == NVME_CTRL_CNTRLTYPE_DISCOVERY ||
		    !nvmf_ctrl_nr_io_queues(path->c)) {
			nvmfh_mp_errf(mp,
				      "path %u (%s:%s) is a discovery controller (no I/O queues)",
				      p, path->traddr, path->trsvcid);
			return -EINVAL;
		}
		if (strncmp(id->subnqn, mp->subnqn, sizeof(id->subnqn))) {
			nvmfh_mp_errf(mp,
				      "path %u (%s:%s) reaches subsystem %.*s, path 0 reaches %s",
				      p, path->traddr, path->trsvcid, (int)sizeof(id->subnqn),
				      id->subnqn, mp->subnqn);
			return -EINVAL;
		}
		if (strcmp(path->traddr, mp->path[0].traddr) ||
		    strcmp(path->trsvcid, mp->path[0].trsvcid))
			ports = true;
	}
	if (mp->npaths > 1 && !(mp->cmic & NVME_CTRL_CMIC_MULTI_CTRL)) {
		nvmfh_mp_errf(mp,
			      "subsystem %s does not report several controllers (Identify "
			      "Controller CMIC bit 1 clear): it cannot be used over several paths",
			      mp->subnqn);
		return -EOPNOTSUPP;
	}
	if (ports && !(mp->cmic & NVME_CTRL_CMIC_MULTI_PORT)) {
		nvmfh_mp_errf(mp,
			      "subsystem %s does not report several ports (Identify Controller "
			      "CMIC bit 0 clear), but the paths reach it at different addresses",
			      mp->subnqn);
		return -EOPNOTSUPP;
	}
	return 0;
}

int nvmfh_mp_path_read_ana(struct nvmf_mpath *mp, unsigned p)
{
	struct mp_path *path = &mp->path[p];
	bool ana = nvmf_ctrl_id(path->c)->cmic & NVME_CTRL_CMIC_MULTI_ANA_REPORTING;
	atomic_store(&path->ana, ana);
	if (!ana)
		return 0;
	struct nvmf_ana_log *log;
	int rc = nvmf_read_ana_log(path->c, false, &log);
	if (rc) {
		nvmfh_mp_path_errf(mp, p, "ANA log: %s: %s", nvmf_strerror(rc),
				   nvmf_ctrl_errmsg(path->c));
		return rc;
	}
	nvmf_ana_log_free(path->log);
	path->log = log;
	atomic_store(&path->chgcnt, log->chgcnt);
	return 0;
}

static void apply_defaults(struct nvmf_mpath *mp, const struct nvmf_mpath_opts *o)
{
	mp->refresh_ms = o && o->refresh_ms ? o->refresh_ms : MP_DEFAULT_REFRESH_MS;
	mp->timeout_ms = o ? o->no_path_timeout_ms : 0;
	if (mp->timeout_ms)
		return;
	/* Twice the largest ANATT, as the Linux host's ANATT timer (slack for the transport). */
	unsigned anatt = 0;
	for (unsigned p = 0; p < mp->npaths; p++) {
		const struct nvme_id_ctrl *id = nvmf_ctrl_id(mp->path[p].c);
		if (atomic_load(&mp->path[p].ana) && id->anatt > anatt)
			anatt = id->anatt;
	}
	mp->timeout_ms = anatt ? 2000u * anatt : MP_DEFAULT_TIMEOUT_MS;
}

static int mp_init(struct nvmf_mpath *mp, unsigned npaths)
{
	mp->npaths = npaths;
	pthread_mutex_init(&mp->ns_lock, NULL);
	pthread_mutex_init(&mp->mem_lock, NULL);
	pthread_mutex_init(&mp->pass_lock, NULL);
	pthread_mutex_init(&mp->err_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&mp->pass_cond, &ca);
	pthread_condattr_destroy(&ca);
	for (unsigned p = 0; p < npaths; p++)
		pthread_mutex_init(&mp->path[p].lock, NULL);
	return sem_init(&mp->kick, 0, 0) ? -errno : 0;
}

/* A path's controller reported an ANA change (its event thread): the watcher reads the
 * logs at once instead of at its next period. */
static void ana_event(void *arg, const struct nvmf_event *ev)
{
	(void)ev;
	nvmfh_mp_kick(arg);
}

static int connect_paths(struct nvmf_mpath *mp, const struct nvmf_ctrl_opts *paths)
{
	for (unsigned p = 0; p < mp->npaths; p++) {
		struct mp_path *path = &mp->path[p];
		snprintf(path->traddr, sizeof(path->traddr), "%s",
			 paths[p].traddr ? paths[p].traddr : "");
		snprintf(path->trsvcid, sizeof(path->trsvcid), "%s",
			 paths[p].trsvcid && paths[p].trsvcid[0] ? paths[p].trsvcid : "4420");
		if (paths[p].ctrl_loss_tmo_ms || paths[p].fast_io_fail_tmo_ms) {
			/* The watcher reconnects paths and the queues fail over: a path that
			 * also reconnected on its own would hold commands another path can take. */
			nvmfh_mp_errf(
				mp,
				"path %u (%s:%s): ctrl_loss_tmo_ms and fast_io_fail_tmo_ms are "
				"for single controllers; the multipath handle reconnects its "
				"paths itself (refresh_ms, no_path_timeout_ms)",
				p, path->traddr, path->trsvcid);
			return -EINVAL;
		}
		int rc = nvmf_connect(&paths[p], &path->c);
		if (rc) {
			nvmfh_mp_errf(mp, "path %u (%s:%s): %s", p, path->traddr, path->trsvcid,
				      nvmf_last_errmsg());
			return rc;
		}
		atomic_store(&path->cntlid, nvmf_ctrl_cntlid(path->c));
	}
	int rc = check_subsystem(mp);
	for (unsigned p = 0; !rc && p < mp->npaths; p++)
		rc = nvmfh_mp_path_read_ana(mp, p);
	/* ANA change events kick the watcher (kept over the watcher's nvmf_reconnect); the
	 * periodic read stays for controllers that send none, so a failure here is not one
	 * of the handle's. */
	for (unsigned p = 0; !rc && p < mp->npaths; p++)
		if (atomic_load(&mp->path[p].ana))
			nvmf_ctrl_set_event_cb(mp->path[p].c, NVMF_EVENT_BIT(NVMF_EVENT_ANA_CHANGE),
					       ana_event, mp);
	return rc;
}

int nvmf_mpath_connect(const struct nvmf_ctrl_opts *paths, unsigned npaths,
		       const struct nvmf_mpath_opts *opts, struct nvmf_mpath **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	nvmfh_set_last_errmsg("");
	if (!paths || !npaths || npaths > NVMF_MPATH_MAX_PATHS) {
		char m[96];
		snprintf(m, sizeof(m), "nvmf_mpath_connect: %u paths given, 1..%u allowed",
			 paths ? npaths : 0u, (unsigned)NVMF_MPATH_MAX_PATHS);
		nvmfh_set_last_errmsg(m);
		return -EINVAL;
	}
	struct nvmf_mpath *mp = calloc(1, sizeof(*mp));
	if (!mp) {
		nvmfh_set_last_errmsg("nvmf_mpath_connect: out of memory");
		return -ENOMEM;
	}
	int rc = mp_init(mp, npaths);
	if (!rc)
		rc = connect_paths(mp, paths);
	if (!rc) {
		apply_defaults(mp, opts);
		mp->nr_queues = UINT32_MAX;
		mp->depth = UINT32_MAX;
		for (unsigned p = 0; p < npaths; p++) {
			unsigned n = nvmf_ctrl_nr_io_queues(mp->path[p].c);
			unsigned d = nvmf_ctrl_queue_size(mp->path[p].c) - 1;
			mp->nr_queues = n < mp->nr_queues ? n : mp->nr_queues;
			mp->depth = d < mp->depth ? d : mp->depth;
		}
		mp->q = calloc(mp->nr_queues, sizeof(*mp->q));
		rc = mp->q ? 0 : -ENOMEM;
		for (unsigned i = 0; !rc && i < mp->nr_queues; i++)
			rc = nvmfh_mp_queue_init(mp, &mp->q[i], i);
		if (rc == -ENOMEM)
			nvmfh_mp_errf(mp, "out of memory");
	}
	if (!rc) {
		rc = nvmfh_mp_watch_start(mp);
		if (rc)
			nvmfh_mp_errf(mp, "cannot start the watcher thread: %s", nvmf_strerror(rc));
	}
	if (rc) {
		nvmfh_set_last_errmsg(mp->errmsg);
		disconnect_paths(mp);
		mp_free(mp);
		return rc;
	}
	*out = mp;
	return 0;
}

int nvmf_mpath_disconnect(struct nvmf_mpath *mp)
{
	if (!mp)
		return -EINVAL;
	nvmfh_mp_watch_stop(mp);
	/* Commands waiting for a path end first, then those in flight (nvmf_disconnect
	 * completes them with -ECONNABORTED): no callback runs after we return. */
	for (unsigned i = 0; i < mp->nr_queues; i++)
		nvmfh_mp_queue_abandon(&mp->q[i]);
	pthread_mutex_lock(&mp->mem_lock);
	for (unsigned r = 0; r < mp->nregions; r++)
		for (unsigned p = 0; p < mp->npaths; p++)
			if (mp->regions[r].on[p])
				nvmf_mem_unregister(mp->path[p].c, mp->regions[r].addr);
	mp->nregions = 0;
	pthread_mutex_unlock(&mp->mem_lock);
	int rc = disconnect_paths(mp);
	/* A path error that arrived before the disconnect was queued to go out again. */
	for (unsigned i = 0; i < mp->nr_queues; i++)
		nvmfh_mp_queue_abandon(&mp->q[i]);
	mp_free(mp);
	return rc;
}

/* ---- what the handle tells ---- */

unsigned nvmf_mpath_nr_paths(const struct nvmf_mpath *mp)
{
	return mp ? mp->npaths : 0;
}

unsigned nvmf_mpath_nr_queues(const struct nvmf_mpath *mp)
{
	return mp ? mp->nr_queues : 0;
}

unsigned nvmf_mpath_queue_depth(const struct nvmf_mpath *mp)
{
	return mp ? mp->depth : 0;
}

struct nvmf_mpath_queue *nvmf_mpath_queue(struct nvmf_mpath *mp, unsigned idx)
{
	return mp && idx < mp->nr_queues ? &mp->q[idx] : NULL;
}

int nvmf_mpath_path_info(struct nvmf_mpath *mp, unsigned idx, struct nvmf_mpath_path_info *out)
{
	if (!mp || !out || idx >= mp->npaths)
		return -EINVAL;
	struct mp_path *path = &mp->path[idx];
	memset(out, 0, sizeof(*out));
	snprintf(out->traddr, sizeof(out->traddr), "%s", path->traddr);
	snprintf(out->trsvcid, sizeof(out->trsvcid), "%s", path->trsvcid);
	out->live = atomic_load(&path->state) == MP_LIVE;
	out->cntlid = (uint16_t)atomic_load(&path->cntlid);
	out->ana = atomic_load(&path->ana);
	out->ana_chgcnt = atomic_load(&path->chgcnt);
	out->reconnects = atomic_load(&path->reconnects);
	out->last_error = atomic_load(&path->last_error);
	pthread_mutex_lock(&mp->err_lock);
	snprintf(out->errmsg, sizeof(out->errmsg), "%s", path->msg);
	pthread_mutex_unlock(&mp->err_lock);
	for (unsigned i = 0; i < mp->nr_queues; i++) {
		out->ios += atomic_load_explicit(&mp->q[i].ios[idx], memory_order_relaxed);
		out->path_errors +=
			atomic_load_explicit(&mp->q[i].errors[idx], memory_order_relaxed);
	}
	return 0;
}

int nvmf_mpath_ns_path(struct nvmf_mpath *mp, uint32_t nsid, unsigned *path)
{
	if (!mp || !path || !nsid || nsid == NVME_NSID_ALL)
		return -EINVAL;
	int rc = 0;
	struct mp_ns *ns = nvmfh_mp_ns_get(mp, nsid, &rc);
	if (!ns)
		return rc;
	int p = nvmfh_mp_best_path(mp, ns, 0, NULL);
	if (p < 0)
		return nvmfh_mp_no_path(mp, ns, 0, 0);
	*path = (unsigned)p;
	return 0;
}

int nvmf_mpath_ns_ana_state(struct nvmf_mpath *mp, uint32_t nsid, unsigned path, uint8_t *state,
			    uint32_t *grpid)
{
	if (!mp || !nsid || nsid == NVME_NSID_ALL || path >= mp->npaths)
		return -EINVAL;
	int rc = 0;
	struct mp_ns *ns = nvmfh_mp_ns_get(mp, nsid, &rc);
	if (!ns)
		return rc;
	if (state)
		*state = atomic_load(&ns->state[path]);
	if (grpid)
		*grpid = atomic_load(&ns->grpid[path]);
	return 0;
}

int nvmf_mpath_ns_info(struct nvmf_mpath *mp, uint32_t nsid, struct nvmf_ns_info *out)
{
	if (!mp || !out || !nsid || nsid == NVME_NSID_ALL)
		return -EINVAL;
	int rc = 0;
	struct mp_ns *ns = nvmfh_mp_ns_get(mp, nsid, &rc);
	if (ns)
		*out = ns->info;
	return ns ? 0 : rc;
}

/* ---- memory ---- */

void nvmfh_mp_register_on(struct nvmf_mpath *mp, unsigned p, struct mp_region *r, int *err)
{
	if (r->on[p])
		return;
	int rc = nvmf_mem_register(mp->path[p].c, r->addr, r->len);
	if (!rc)
		r->on[p] = true;
	else if (err && !*err && rc != -EOPNOTSUPP)
		*err = rc;
}

int nvmf_mpath_mem_register(struct nvmf_mpath *mp, void *addr, size_t len)
{
	if (!mp || !addr || !len)
		return -EINVAL;
	pthread_mutex_lock(&mp->mem_lock);
	struct mp_region *grown = realloc(mp->regions, (mp->nregions + 1) * sizeof(*grown));
	if (!grown) {
		pthread_mutex_unlock(&mp->mem_lock);
		return -ENOMEM;
	}
	mp->regions = grown;
	struct mp_region *r = &mp->regions[mp->nregions];
	memset(r, 0, sizeof(*r));
	r->addr = addr;
	r->len = len;
	int err = 0;
	for (unsigned p = 0; p < mp->npaths; p++) {
		pthread_mutex_lock(&mp->path[p].lock);
		if (atomic_load(&mp->path[p].state) == MP_LIVE) /* else when it comes back */
			nvmfh_mp_register_on(mp, p, r, &err);
		pthread_mutex_unlock(&mp->path[p].lock);
	}
	if (err) {
		for (unsigned p = 0; p < mp->npaths; p++) {
			pthread_mutex_lock(&mp->path[p].lock);
			if (r->on[p])
				nvmf_mem_unregister(mp->path[p].c, addr);
			pthread_mutex_unlock(&mp->path[p].lock);
		}
		nvmfh_mp_errf(mp, "registering %zu bytes at %p: %s", len, addr, nvmf_strerror(err));
	} else {
		mp->nregions++;
	}
	pthread_mutex_unlock(&mp->mem_lock);
	return err;
}

int nvmf_mpath_mem_unregister(struct nvmf_mpath *mp, void *addr)
{
	if (!mp || !addr)
		return -EINVAL;
	pthread_mutex_lock(&mp->mem_lock);
	int rc = -ENOENT;
	for (unsigned i = 0; i < mp->nregions; i++) {
		struct mp_region *r = &mp->regions[i];
		if (r->addr != addr)
			continue;
		for (unsigned p = 0; p < mp->npaths; p++) {
			pthread_mutex_lock(&mp->path[p].lock);
			if (r->on[p])
				nvmf_mem_unregister(mp->path[p].c, addr);
			pthread_mutex_unlock(&mp->path[p].lock);
		}
		mp->regions[i] = mp->regions[--mp->nregions];
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&mp->mem_lock);
	return rc;
}
