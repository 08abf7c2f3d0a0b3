/* SPDX-License-Identifier: MIT */
/*
 * Namespaces changed live (see namespace.h): the order of each change is what keeps
 * I/O safe. Add: open, count, publish, notify. Take away: unpublish, notify, let every
 * group see it by message, wait for its in-flight commands, close.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "subsystem/created.h"
#include "target/ana.h"
#include "target/core.h"
#include "target/log.h"
#include "target/namespace.h"
#include "target/lba-lock.h"
#include "target/resv.h"

#define DRAIN_CHECK_MS 1

/* Every controller of @s hears of @nsid (log 04h, and the event where enabled). */
static void notify(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid)
{
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (c->subsys == s && !c->deleting)
			nvmf_tgt_ctrl_notify_ns_changed(c, nsid);
}

static struct nvmf_ns_config *find_cfg(struct nvmf_subsys *s, uint32_t nsid)
{
	for (size_t i = 0; i < s->cfg->n_ns; i++)
		if (s->cfg->ns[i].nsid == nsid)
			return &s->cfg->ns[i];
	return NULL;
}

static bool nsid_taken(struct nvmf_subsys *s, uint32_t nsid, const uint32_t *more, size_t nmore)
{
	if (find_cfg(s, nsid))
		return true;
	for (size_t i = 0; i < nmore; i++)
		if (more[i] == nsid)
			return true;
	return false;
}

/* ---- draining what was taken away ---- */

static void drain_seen(void *arg)
{
	struct nvmf_ns_drain *d = arg;
	d->seen = true;
}

static void drain_visit(struct nvmf_pg *pg, void *arg)
{
	(void)pg; /* having run here is the point: this group's parse saw the empty slot */
	(void)arg;
}

static uint64_t inflight(const struct nvmf_ns *ns)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < ns->npgs; i++)
		n += __atomic_load_n(&ns->stats[i].inflight, __ATOMIC_ACQUIRE);
	return n;
}

/* Commands @ns has answered, on every group. */
static uint64_t answered(const struct nvmf_ns *ns)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < ns->npgs; i++)
		n += __atomic_load_n(&ns->stats[i].reads, __ATOMIC_RELAXED) +
		     __atomic_load_n(&ns->stats[i].writes, __ATOMIC_RELAXED) +
		     __atomic_load_n(&ns->stats[i].other, __ATOMIC_RELAXED);
	return n;
}

/* The close of @d's namespace, said as what it was. A namespace a refused reload had
 * staged was published for a moment; when no command reached it, that reload's
 * "nothing was changed" holds, and its close is only a debug line. */
static void log_closed(struct nvmf_tgt *tgt, const struct nvmf_ns_drain *d)
{
	if (!d->staged)
		nvmf_log(tgt, NVMF_LOG_INFO,
			 "subsystem %s: namespace %u closed after its last command%s", d->nqn,
			 d->ns->nsid,
			 d->ns->bdev->kind == NVMF_BACKEND_RAM && d->ns->bdev->refs ?
				 " (its RAM data is kept until it is removed)" :
				 "");
	else if (answered(d->ns))
		nvmf_log(tgt, NVMF_LOG_INFO,
			 "subsystem %s: namespace %u, staged by a refused reload, "
			 "closed after its last command",
			 d->nqn, d->ns->nsid);
	else
		nvmf_log(tgt, NVMF_LOG_DEBUG,
			 "subsystem %s: namespace %u, staged by a refused reload, "
			 "discarded (it served no command)",
			 d->nqn, d->ns->nsid);
}

static void drain_check(void *arg)
{
	struct nvmf_tgt *tgt = arg;
	for (struct nvmf_ns_drain **pp = &tgt->ns_drains; *pp;) {
		struct nvmf_ns_drain *d = *pp;
		if (!d->round_sent)
			d->round_sent = !nvmf_tgt_for_each_pg(tgt, nvmf_tgt_main_pg(tgt),
							      drain_visit, d, drain_seen);
		if (!d->seen || inflight(d->ns)) {
			pp = &d->next;
			continue;
		}
		*pp = d->next;
		log_closed(tgt, d);
		nvmf_ns_free(d->ns);
		free(d);
	}
	if (!tgt->ns_drains && tgt->drain_timer_on) {
		nvmf_pg_timer_stop(nvmf_tgt_main_pg(tgt), &tgt->drain_timer);
		tgt->drain_timer_on = false;
	}
}

/* Unpublish namespace @nsid of @s and close it once nothing holds it. The slot is
 * emptied first, so no command can take the namespace after this returns. */
static void take_away(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid)
{
	struct nvmf_ns *ns = s->ns[nsid];
	if (!ns)
		return;
	nvmf_subsys_ns_publish(s, nsid, NULL);
	struct nvmf_ns_drain *d = calloc(1, sizeof(*d));
	if (!d) {
		/* Without memory to track it, keeping the backend open is the safe leak. */
		nvmf_log(tgt, NVMF_LOG_WARNING,
			 "subsystem %s: namespace %u: out of memory; its backend "
			 "stays open until exit\n",
			 s->cfg->nqn, nsid);
		return;
	}
	d->ns = ns;
	d->staged = tgt->ns_discarding;
	snprintf(d->nqn, sizeof(d->nqn), "%s", s->cfg->nqn);
	/* A group that read the slot before it was emptied has counted its command by the
	 * time it runs this message (both happen within one pass). Without memory for the
	 * round now, the timer tries again. */
	d->round_sent =
		!nvmf_tgt_for_each_pg(tgt, nvmf_tgt_main_pg(tgt), drain_visit, d, drain_seen);
	d->next = tgt->ns_drains;
	tgt->ns_drains = d;
	if (!tgt->drain_timer_on) {
		nvmf_pg_timer_start(nvmf_tgt_main_pg(tgt), &tgt->drain_timer, DRAIN_CHECK_MS,
				    drain_check, tgt);
		tgt->drain_timer_on = true;
	}
}

void nvmf_tgt_ns_take_away(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid)
{
	take_away(tgt, s, nsid);
}

unsigned nvmf_tgt_ns_draining(const struct nvmf_tgt *tgt)
{
	unsigned n = 0;
	for (const struct nvmf_ns_drain *d = tgt->ns_drains; d; d = d->next)
		n++;
	return n;
}

void nvmf_tgt_ns_fini(struct nvmf_tgt *tgt)
{
	while (tgt->ns_drains) {
		struct nvmf_ns_drain *d = tgt->ns_drains;
		tgt->ns_drains = d->next;
		nvmf_ns_free(d->ns);
		free(d);
	}
}

/* ---- what must be unique ---- */

/* The first of @a's identifiers @b has too, or NULL. */
static const char *same_id(const struct nvmf_ns *a, const struct nvmf_ns *b)
{
	if (a->has_nguid && b->has_nguid && !memcmp(a->nguid, b->nguid, 16))
		return "device.nguid";
	if (a->has_uuid && b->has_uuid && !memcmp(a->uuid, b->uuid, 16))
		return "device.uuid";
	if (a->has_eui64 && b->has_eui64 && !memcmp(a->eui64, b->eui64, 8))
		return "nvmf_eui64";
	return NULL;
}

/* @ns against @other, namespace of @os: one backing file for two namespaces (writes of
 * one would land in the other, a resize of one would cut the other), or one identifier
 * for two namespaces of one subsystem (the Linux host refuses such namespaces). */
static int clash(const struct nvmf_subsys *s, const struct nvmf_ns *ns,
		 const struct nvmf_subsys *os, const struct nvmf_ns *other, char *err,
		 size_t errlen)
{
	if (ns->real_path && other->real_path && !strcmp(ns->real_path, other->real_path)) {
		snprintf(err, errlen, "%s already backs namespace %u of %s", ns->real_path,
			 other->nsid, os->cfg->nqn);
		return -EEXIST;
	}
	const char *what = os == s ? same_id(ns, other) : NULL;
	if (what) {
		snprintf(err, errlen,
			 "%s is namespace %u's too (identifiers are unique in a subsystem)", what,
			 other->nsid);
		return -EEXIST;
	}
	return 0;
}

int nvmf_tgt_ns_check_unique(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
			     const struct nvmf_ns *ns, struct nvmf_ns *const *batch, size_t nbatch,
			     char *err, size_t errlen)
{
	int rc;
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		const struct nvmf_subsys *os = tgt->subsys[i];
		for (uint32_t n = 1; n <= os->max_nsid; n++)
			if (os->ns[n] && os->ns[n] != ns &&
			    (rc = clash(s, ns, os, os->ns[n], err, errlen)))
				return rc;
	}
	for (size_t i = 0; i < nbatch; i++)
		if (batch[i] && batch[i] != ns && (rc = clash(s, ns, s, batch[i], err, errlen)))
			return rc;
	return 0;
}

int nvmf_tgt_subsys_check_unique(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s, char *err,
				 size_t errlen)
{
	char why[512];
	for (uint32_t n = 1; n <= s->max_nsid; n++) {
		if (!s->ns[n])
			continue;
		int rc = nvmf_tgt_ns_check_unique(tgt, s, s->ns[n], s->ns + 1, n - 1, why,
						  sizeof(why));
		if (rc) {
			snprintf(err, errlen, "namespace %u: %s", n, why);
			return rc;
		}
	}
	return 0;
}

bool nvmf_tgt_ns_space_warning(const struct nvmf_subsys *s, const struct nvmf_ns *ns, char *msg,
			       size_t len)
{
	char why[400];
	if (!nvmf_bdev_space_warning(ns->bdev, why, sizeof(why)))
		return false;
	snprintf(msg, len, "subsystem %s, namespace %u (%s): %s", s->cfg->nqn, ns->nsid,
		 ns->real_path ? ns->real_path : ns->bdev->ops->name, why);
	return true;
}

/* The backend's notes of @ns, then the space warning, if any. */
static void log_opened(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
		       const struct nvmf_ns *ns)
{
	nvmf_ns_log_notes(tgt, ns);
	char msg[640];
	if (nvmf_tgt_ns_space_warning(s, ns, msg, sizeof(msg)))
		nvmf_log_at(tgt, NVMF_LOGC_BACKEND, NVMF_LOG_WARNING, "%s", msg);
}

void nvmf_ns_log_notes(const struct nvmf_tgt *tgt, const struct nvmf_ns *ns)
{
	for (const char *p = ns->bdev->note, *nl; *p && (nl = strchr(p, '\n')); p = nl + 1)
		nvmf_log_at(tgt, NVMF_LOGC_BACKEND, NVMF_LOG_INFO, "%.*s", (int)(nl - p), p);
}

void nvmf_subsys_log_notes(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s)
{
	for (uint32_t n = 1; n <= s->max_nsid; n++)
		if (s->ns[n])
			log_opened(tgt, s, s->ns[n]);
}

/* ---- created and deleted backing files ---- */

/* How often the main group looks for change notices (ms): a resized rbd image reaches
 * the hosts within this. */
#define WATCH_CHECK_MS 500

/* The target's listener of a backend's change notices (an rbd image resized by a client
 * elsewhere, subsystem/backend.h): the backend's thread (librbd's) only marks it; the
 * main group's watch timer acts on it. So no other thread ever touches the model or a
 * group, and a notice needs nothing freed but this record, which the namespace frees
 * after its backend (whose close ends the notices). */
struct ns_watch {
	struct nvmf_bdev_watch w; /* first: ns->watch points at it */
	unsigned changed;         /* atomic: a notice not yet acted on */
};

static void ns_watch_notice(struct nvmf_bdev_watch *w)
{
	struct ns_watch *nw = (struct ns_watch *)w;
	__atomic_store_n(&nw->changed, 1, __ATOMIC_RELEASE);
}

/* The watch timer: every namespace with a notice takes its device's size, and its
 * subsystem's controllers hear of a change (nvmf_tgt_ns_revalidate). */
static void watch_check(void *arg)
{
	struct nvmf_tgt *tgt = arg;
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		struct nvmf_subsys *s = tgt->subsys[i];
		for (uint32_t n = 1; s->ns && n <= s->max_nsid; n++) {
			struct nvmf_ns *ns = s->ns[n];
			if (!ns || !ns->watch ||
			    !__atomic_exchange_n(&((struct ns_watch *)ns->watch)->changed, 0,
						 __ATOMIC_ACQUIRE))
				continue;
			char err[512];
			if (nvmf_tgt_ns_revalidate(tgt, s, ns, err, sizeof(err)) < 0)
				nvmf_log(tgt, NVMF_LOG_WARNING, "%s", err);
		}
	}
}

/* Listen to @ns's backend when it can tell of changes (rbd). A failure to allocate only
 * costs the notices: Identify still reads the size. */
static void watch_start(struct nvmf_tgt *tgt, struct nvmf_ns *ns)
{
	if (ns->watch || ns->bdev->kind != NVMF_BACKEND_RBD)
		return;
	struct ns_watch *nw = calloc(1, sizeof(*nw));
	if (!nw) {
		nvmf_log(tgt, NVMF_LOG_WARNING,
			 "namespace %u: out of memory to follow its image's size: hosts see a "
			 "resize at their next Identify",
			 ns->nsid);
		return;
	}
	nw->w.fn = ns_watch_notice;
	ns->watch = &nw->w;
	__atomic_store_n(&ns->bdev->watch, &nw->w, __ATOMIC_RELEASE);
	if (!tgt->watch_timer_on && tgt->npgs) { /* groups exist once the target is built */
		nvmf_pg_timer_start(nvmf_tgt_main_pg(tgt), &tgt->watch_timer, WATCH_CHECK_MS,
				    watch_check, tgt);
		tgt->watch_timer_on = true;
	}
}

void nvmf_tgt_ns_opened(struct nvmf_tgt *tgt, struct nvmf_subsys *s, struct nvmf_ns *ns)
{
	if (!tgt->ns_opened_later)
		watch_start(tgt, ns);
	struct nvmf_ns_config *nc = find_cfg(s, ns->nsid);
	if (!nc || !nc->path || ns->bdev->kind != NVMF_BACKEND_FILE || tgt->ns_opened_later)
		return;
	bool may_create = nc->create;
	/* Creating is done: the running config (what config_save writes) says so no more. */
	nc->create = false;
	if (ns->bdev->created)
		nvmf_log(tgt, NVMF_LOG_INFO, "subsystem %s: namespace %u: created %s (%llu bytes)",
			 s->cfg->nqn, ns->nsid, nc->path, (unsigned long long)ns->bdev->size);
	ns->bdev->created = false;
	/* Served under nvmf_create: should it go missing, the config would create it empty. */
	char err[512];
	if (may_create && tgt->created && !nvmf_created_when(tgt->created, nc->path) &&
	    nvmf_created_add(tgt->created, nc->path, time(NULL), err, sizeof(err)))
		nvmf_log(tgt, NVMF_LOG_WARNING,
			 "subsystem %s: namespace %u: %s is served under nvmf_create, but could "
			 "not be recorded (%s): should it go missing, a later start would create "
			 "it empty",
			 s->cfg->nqn, ns->nsid, nc->path, err);
}

void nvmf_tgt_subsys_opened(struct nvmf_tgt *tgt, struct nvmf_subsys *s)
{
	for (uint32_t n = 1; n <= s->max_nsid; n++)
		if (s->ns[n])
			nvmf_tgt_ns_opened(tgt, s, s->ns[n]);
}

unsigned nvmf_tgt_ns_check_unlinked(struct nvmf_tgt *tgt)
{
	unsigned count = 0;
	tgt->unlink_check_ms = nvmf_tgt_now_ms(tgt);
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		struct nvmf_subsys *s = tgt->subsys[i];
		for (uint32_t n = 1; n <= s->max_nsid; n++) {
			struct nvmf_ns *ns = s->ns[n];
			struct stat st;
			if (!ns || ns->bdev->kind != NVMF_BACKEND_FILE || ns->bdev->fd < 0 ||
			    fstat(ns->bdev->fd, &st) < 0)
				continue;
			bool gone = st.st_nlink == 0;
			if (gone && !ns->unlinked)
				nvmf_log(
					tgt, NVMF_LOG_WARNING,
					"subsystem %s: namespace %u: its backing file %s was "
					"deleted while served; hosts still use the open file, which "
					"is lost when the namespace closes or the target stops: copy "
					"it out of /proc/%d/fd/%d now",
					s->cfg->nqn, n, ns->real_path ? ns->real_path : "?",
					(int)getpid(), ns->bdev->fd);
			ns->unlinked = gone;
			count += gone;
		}
	}
	return count;
}

int nvmf_tgt_ns_check_discard(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
			      uint32_t nsid, char *err, size_t errlen)
{
	(void)tgt;
	const struct nvmf_ns *ns = nsid <= s->max_nsid ? s->ns[nsid] : NULL;
	struct stat st;
	if (!ns || ns->bdev->kind != NVMF_BACKEND_FILE || ns->bdev->fd < 0 ||
	    fstat(ns->bdev->fd, &st) < 0 || st.st_nlink > 0)
		return 0;
	const char *path = ns->real_path ? ns->real_path : "?";
	snprintf(err, errlen,
		 "subsystem %s, namespace %u: its backing file %s has been deleted; closing it "
		 "discards its data: restore it (e.g. ln /proc/%d/fd/%d %s) or pass --force",
		 s->cfg->nqn, nsid, path, (int)getpid(), ns->bdev->fd, path);
	return -EBUSY;
}

/* ---- add ---- */

/* Frees @ns, opened and never published. @enabling: @ns is a disabled namespace of @s
 * being enabled, so its RAM data goes back to what @s keeps, as before the attempt. */
static void unopen(struct nvmf_subsys *s, struct nvmf_ns *ns, bool enabling)
{
	if (enabling && ns->bdev->kind == NVMF_BACKEND_RAM)
		nvmf_subsys_keep(s, ns->nsid, ns->bdev); /* out of memory: lost with it */
	nvmf_ns_free(ns);
}

/* Whether @nc's backing file already backs a namespace of @tgt (or one of the @nbatch of
 * @batch, NULL entries skipped): said as nvmf_tgt_ns_check_unique says it, before the open
 * would only find the file locked by ourselves. -EEXIST with @err, or 0. */
static int path_taken(const struct nvmf_tgt *tgt, const struct nvmf_ns_config *nc,
		      struct nvmf_ns *const *batch, size_t nbatch, const char *nqn, char *err,
		      size_t errlen)
{
	char *real = nc->path ? realpath(nc->path, NULL) : NULL;
	if (!real)
		return 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < tgt->n_subsys; i++) {
		const struct nvmf_subsys *os = tgt->subsys[i];
		for (uint32_t n = 1; !rc && n <= os->max_nsid; n++) {
			const struct nvmf_ns *o = os->ns[n];
			if (o && o->real_path && !strcmp(o->real_path, real)) {
				snprintf(err, errlen, "%s already backs namespace %u of %s", real,
					 n, os->cfg->nqn);
				rc = -EEXIST;
			}
		}
	}
	for (size_t i = 0; !rc && i < nbatch; i++)
		if (batch[i] && batch[i]->real_path && !strcmp(batch[i]->real_path, real)) {
			snprintf(err, errlen, "%s already backs namespace %u of %s", real,
				 batch[i]->nsid, nqn);
			rc = -EEXIST;
		}
	free(real);
	return rc;
}

/* A namespace opened and counted for every group, not yet published. */
static struct nvmf_ns *open_counted(struct nvmf_tgt *tgt, struct nvmf_subsys *s,
				    const struct nvmf_ns_config *nc, bool enabling, char *err,
				    size_t errlen)
{
	if (nvmf_created_check(tgt->created, nc, err, errlen))
		return NULL; /* never created again empty */
	struct nvmf_ns *ns = nvmf_ns_open(s, nc, err, errlen);
	if (ns)
		log_opened(tgt, s, ns);
	if (ns && (nvmf_ns_stats_alloc(ns, tgt->npgs) || nvmf_lba_ns_attach(tgt, ns) ||
		   nvmf_resv_ns_attach(tgt, s, ns))) {
		unopen(s, ns, enabling);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return ns;
}

static uint32_t lowest_free(struct nvmf_subsys *s, const uint32_t *more, size_t nmore)
{
	for (uint32_t id = 1; id <= NVMF_SUBSYS_MAX_NSID; id++)
		if (!nsid_taken(s, id, more, nmore))
			return id;
	return 0;
}

/* How a message names entry @i: "namespaces[1]", or @base with the index @index gives. */
static void entry_name(char *out, size_t len, const char *base, const size_t *index, size_t i)
{
	snprintf(out, len, "%s[%zu]", base ? base : "namespaces", index ? index[i] : i);
}

int nvmf_tgt_ns_add(struct nvmf_tgt *tgt, struct nvmf_subsys *s, const struct nvmf_ns_config *ncs,
		    size_t n, uint32_t *nsids, char *err, size_t errlen)
{
	return nvmf_tgt_ns_add_at(tgt, s, ncs, n, nsids, NULL, NULL, err, errlen);
}

int nvmf_tgt_ns_add_at(struct nvmf_tgt *tgt, struct nvmf_subsys *s,
		       const struct nvmf_ns_config *ncs, size_t n, uint32_t *nsids,
		       const char *base, const size_t *index, char *err, size_t errlen)
{
	/* A passthru subsystem's namespaces are its drive's (target/passthru.h). */
	if (s->drive && n) {
		snprintf(err, errlen,
			 "subsystem %s serves the drive %s by passthru: its namespaces are the "
			 "drive's",
			 s->cfg->nqn, s->drive->path);
		return -EPERM;
	}
	struct nvmf_ns **opened = calloc(n ? n : 1, sizeof(*opened));
	struct nvmf_ns_config *copies = calloc(n ? n : 1, sizeof(*copies));
	struct nvmf_ns_config *grown = NULL;
	int rc = -ENOMEM;
	size_t i;
	if (!opened || !copies) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* Check and open everything first: a failure leaves nothing behind. */
	for (i = 0; i < n; i++) {
		char why[512], at[128];
		entry_name(at, sizeof(at), base, index, i);
		copies[i] = ncs[i];
		copies[i].path = NULL;
		if (ncs[i].path && !(copies[i].path = strdup(ncs[i].path))) {
			snprintf(err, errlen, "%s: out of memory", at);
			rc = -ENOMEM;
			goto fail;
		}
		if (!copies[i].nsid) {
			copies[i].nsid = lowest_free(s, nsids, i);
			if (!copies[i].nsid) {
				snprintf(err, errlen, "%s: subsystem %s has no free nsid (1-%d)",
					 at, s->cfg->nqn, NVMF_SUBSYS_MAX_NSID);
				rc = -ENOSPC;
				goto fail;
			}
		} else if (copies[i].nsid > NVMF_SUBSYS_MAX_NSID) {
			snprintf(err, errlen, "%s: nsid %u is out of range (1-%d)", at,
				 copies[i].nsid, NVMF_SUBSYS_MAX_NSID);
			rc = -EINVAL;
			goto fail;
		} else if (nsid_taken(s, copies[i].nsid, nsids, i)) {
			snprintf(err, errlen, "%s: nsid %u is in use in subsystem %s", at,
				 copies[i].nsid, s->cfg->nqn);
			rc = -EEXIST;
			goto fail;
		}
		nsids[i] = copies[i].nsid;
		int bad = 0;
		if (copies[i].enable &&
		    !(bad = path_taken(tgt, &copies[i], opened, i, s->cfg->nqn, why,
				       sizeof(why))) &&
		    !(opened[i] = open_counted(tgt, s, &copies[i], false, why, sizeof(why))))
			bad = -EIO;
		else if (opened[i])
			bad = nvmf_tgt_ns_check_unique(tgt, s, opened[i], opened, i, why,
						       sizeof(why));
		if (bad) {
			rc = bad;
			/* As the loader names a namespace that does not open, when @base is the file's. */
			if (base)
				snprintf(err, errlen, "%s (subsystem %s, namespace %u): %s", at,
					 s->cfg->nqn, copies[i].nsid, why);
			else
				snprintf(err, errlen, "%s (nsid %u): %s", at, copies[i].nsid, why);
			goto fail;
		}
	}
	grown = realloc(s->cfg->ns, (s->cfg->n_ns + n) * sizeof(*grown));
	if (!grown && s->cfg->n_ns + n) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto fail;
	}
	/* Commit: nothing below can fail. */
	s->cfg->ns = grown;
	memcpy(&s->cfg->ns[s->cfg->n_ns], copies, n * sizeof(*copies));
	s->cfg->n_ns += n;
	for (i = 0; i < n; i++) {
		if (!opened[i])
			continue;
		nvmf_subsys_ns_publish(s, nsids[i], opened[i]);
		nvmf_tgt_ns_opened(tgt, s, opened[i]);
		notify(tgt, s, nsids[i]);
		nvmf_tgt_ana_ns_changed(tgt, s, opened[i]->anagrpid); /* it joined its group */
	}
	free(opened);
	free(copies);
	return 0;
fail:
	for (i = 0; opened && copies && i < n; i++) {
		nvmf_ns_free(opened[i]);
		free(copies[i].path);
	}
	free(opened);
	free(copies);
	return rc;
}

/* ---- remove, enable, resize ---- */

/* The config entry of namespace @nsid of @s into *@nc: 0, -ENOENT (none), or -EPERM for
 * a passthru subsystem (its namespaces are its drive's: they have no entry, and the
 * control socket does not change them; "has no namespace" would contradict
 * subsystem_list, which lists them). */
static int need_cfg(struct nvmf_subsys *s, uint32_t nsid, struct nvmf_ns_config **nc, char *err,
		    size_t errlen)
{
	*nc = find_cfg(s, nsid);
	if (*nc)
		return 0;
	if (s->drive) {
		snprintf(err, errlen,
			 "subsystem %s serves the drive %s by passthru: its namespaces are the "
			 "drive's",
			 s->cfg->nqn, s->drive->path);
		return -EPERM;
	}
	snprintf(err, errlen, "subsystem %s has no namespace %u", s->cfg->nqn, nsid);
	return -ENOENT;
}

int nvmf_tgt_ns_remove(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid, char *err,
		       size_t errlen)
{
	struct nvmf_ns_config *nc;
	int need = need_cfg(s, nsid, &nc, err, errlen);
	if (need)
		return need;
	bool active = s->ns[nsid] != NULL;
	uint32_t grpid = nvmf_ns_config_anagrpid(nc);
	take_away(tgt, s, nsid);
	nvmf_subsys_drop_kept(s, nsid); /* a disabled RAM namespace's data goes now */
	free(nc->path);
	size_t idx = (size_t)(nc - s->cfg->ns);
	memmove(nc, nc + 1, (s->cfg->n_ns - idx - 1) * sizeof(*nc));
	s->cfg->n_ns--;
	if (active) {
		notify(tgt, s, nsid);
		nvmf_tgt_ana_ns_changed(tgt, s, grpid);
	}
	return 0;
}

int nvmf_tgt_ns_enable(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid, bool enable,
		       char *err, size_t errlen)
{
	struct nvmf_ns_config *nc;
	int need = need_cfg(s, nsid, &nc, err, errlen);
	if (need)
		return need;
	if (nc->enable == enable && (s->ns[nsid] != NULL) == enable)
		return 0;
	if (enable) {
		char why[512];
		int taken = path_taken(tgt, nc, NULL, 0, s->cfg->nqn, why, sizeof(why));
		if (taken) {
			snprintf(err, errlen, "subsystem %s, namespace %u: %s", s->cfg->nqn, nsid,
				 why);
			return taken;
		}
		struct nvmf_ns *ns = open_counted(tgt, s, nc, true, why, sizeof(why));
		if (!ns) {
			snprintf(err, errlen, "subsystem %s, namespace %u: %s", s->cfg->nqn, nsid,
				 why);
			return -EIO;
		}
		int rc = nvmf_tgt_ns_check_unique(tgt, s, ns, NULL, 0, why, sizeof(why));
		if (rc) {
			unopen(s, ns, true);
			snprintf(err, errlen, "subsystem %s, namespace %u: %s", s->cfg->nqn, nsid,
				 why);
			return rc;
		}
		nc->enable = true;
		nvmf_subsys_ns_publish(s, nsid, ns);
		nvmf_tgt_ns_opened(tgt, s, ns);
	} else {
		/* A RAM namespace's data lives until it is removed: its memory is kept for
		 * the next enable (the draining namespace holds it meanwhile too). */
		struct nvmf_ns *ns = s->ns[nsid];
		if (ns && ns->bdev->kind == NVMF_BACKEND_RAM &&
		    nvmf_subsys_keep(s, nsid, ns->bdev)) {
			snprintf(err, errlen,
				 "subsystem %s, namespace %u: out of memory to keep its RAM "
				 "data while disabled; still enabled",
				 s->cfg->nqn, nsid);
			return -ENOMEM;
		}
		nc->enable = false;
		take_away(tgt, s, nsid);
	}
	notify(tgt, s, nsid);
	nvmf_tgt_ana_ns_changed(tgt, s, nvmf_ns_config_anagrpid(nc));
	return 1;
}

int nvmf_tgt_ns_revalidate(struct nvmf_tgt *tgt, struct nvmf_subsys *s, struct nvmf_ns *ns,
			   char *err, size_t errlen)
{
	struct nvmf_bdev *b = ns->bdev;
	uint64_t bytes;
	int rc = nvmf_bdev_device_size(b, &bytes);
	if (rc == -ENOTSUP) {
		snprintf(err, errlen,
			 "subsystem %s, namespace %u: a \"%s\" namespace has no device to follow: "
			 "give size_bytes",
			 s->cfg->nqn, ns->nsid, b->ops->name);
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "subsystem %s, namespace %u (%s): cannot read its size: %s",
			 s->cfg->nqn, ns->nsid, ns->real_path ? ns->real_path : b->ops->name,
			 strerror(-rc));
		return rc;
	}
	uint64_t old = __atomic_load_n(&b->size, __ATOMIC_ACQUIRE);
	uint64_t now = bytes - bytes % b->block_size;
	if (now == old)
		return 0;
	const char *path = ns->real_path ? ns->real_path : b->ops->name;
	if (now == 0) {
		snprintf(
			err, errlen,
			"subsystem %s, namespace %u (%s): the device now has %llu bytes, less than "
			"one block: kept at %llu bytes",
			s->cfg->nqn, ns->nsid, path, (unsigned long long)bytes,
			(unsigned long long)old);
		return -EIO;
	}
	/* The order of nvmf_tgt_ns_resize: a shrink is seen before the backend checks
	 * against it, a growth only once the backend takes it. */
	if (now < old) {
		__atomic_store_n(&ns->nlb, now >> ns->lba_shift, __ATOMIC_RELEASE);
		__atomic_store_n(&b->size, now, __ATOMIC_RELEASE);
		nvmf_log(tgt, NVMF_LOG_ERROR,
			 "subsystem %s: namespace %u (%s): the device shrank from %llu to %llu "
			 "bytes; hosts now see the new size, and the data past it is gone for them",
			 s->cfg->nqn, ns->nsid, path, (unsigned long long)old,
			 (unsigned long long)now);
	} else {
		__atomic_store_n(&b->size, now, __ATOMIC_RELEASE);
		__atomic_store_n(&ns->nlb, now >> ns->lba_shift, __ATOMIC_RELEASE);
		nvmf_log(tgt, NVMF_LOG_INFO,
			 "subsystem %s: namespace %u (%s): the device grew from %llu to %llu bytes",
			 s->cfg->nqn, ns->nsid, path, (unsigned long long)old,
			 (unsigned long long)now);
	}
	notify(tgt, s, ns->nsid);
	return 1;
}

int nvmf_tgt_ns_resize(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid, uint64_t bytes,
		       char *err, size_t errlen)
{
	struct nvmf_ns_config *nc;
	int need = need_cfg(s, nsid, &nc, err, errlen);
	if (need)
		return need;
	struct nvmf_ns *ns = s->ns[nsid];
	if (!ns) {
		snprintf(err, errlen,
			 "subsystem %s, namespace %u is disabled: enable it first (its "
			 "nvmf_size_bytes applies then)",
			 s->cfg->nqn, nsid);
		return -ENODEV;
	}
	if (bytes == 0) {
		int rc = nvmf_tgt_ns_revalidate(tgt, s, ns, err, errlen);
		return rc < 0 ? rc : 0;
	}
	char why[512];
	uint64_t nlb = bytes >> ns->lba_shift;
	/* A shrink is seen before the backend shrinks; a grow only once it has grown. */
	if (nlb < ns->nlb)
		__atomic_store_n(&ns->nlb, nlb, __ATOMIC_RELEASE);
	int rc = nvmf_bdev_resize(ns->bdev, bytes, why, sizeof(why));
	if (rc) {
		__atomic_store_n(&ns->nlb, ns->bdev->size >> ns->lba_shift, __ATOMIC_RELEASE);
		snprintf(err, errlen, "subsystem %s, namespace %u: %s", s->cfg->nqn, nsid, why);
		return rc;
	}
	__atomic_store_n(&ns->nlb, nlb, __ATOMIC_RELEASE);
	if (nc->size_bytes)
		nc->size_bytes = bytes;
	notify(tgt, s, nsid);
	return 0;
}
