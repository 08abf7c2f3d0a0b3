/* SPDX-License-Identifier: MIT */
/*
 * Passthru subsystems (target/passthru.h): the drive opened with the subsystem, the
 * admin worker thread, and the served namespaces following the drive's after a rescan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/nvme-drive.h"
#include "target/lba-lock.h"
#include "target/log.h"
#include "target/namespace.h"
#include "target/passthru.h"
#include "target/resv.h"

/* ---- the admin worker ---- */

static void job_answer(void *arg)
{
	struct nvmf_pt_job *job = arg;
	job->done(job);
}

static void *worker(void *arg)
{
	struct nvmf_passthru *pt = arg;
	pthread_mutex_lock(&pt->lock);
	for (;;) {
		while (!pt->head && !pt->stop)
			pthread_cond_wait(&pt->cond, &pt->lock);
		if (!pt->head)
			break; /* stop, and nothing left */
		struct nvmf_pt_job *job = pt->head;
		pt->head = job->next;
		if (!pt->head)
			pt->tail = NULL;
		pthread_mutex_unlock(&pt->lock);
		job->run(job);
		bool rescan = job->rescan;
		job->msg.fn = job_answer;
		job->msg.arg = job;
		job->msg.heap = false;
		pthread_mutex_lock(&pt->lock);
		pt->syncing = rescan;
		pthread_mutex_unlock(&pt->lock);
		nvmf_pg_post(job->pg, &job->msg); /* @job is not ours from here */
		pthread_mutex_lock(&pt->lock);
		/* The main group reads drive->ns while it follows a rescan: the next
		 * command, which may rescan again, waits for that. */
		while (pt->syncing && !pt->stop)
			pthread_cond_wait(&pt->cond, &pt->lock);
	}
	pthread_mutex_unlock(&pt->lock);
	return NULL;
}

void nvmf_pt_submit(struct nvmf_pt_job *job)
{
	struct nvmf_passthru *pt = job->pt;
	job->next = NULL;
	pthread_mutex_lock(&pt->lock);
	if (pt->tail)
		pt->tail->next = job;
	else
		pt->head = job;
	pt->tail = job;
	pthread_cond_signal(&pt->cond);
	pthread_mutex_unlock(&pt->lock);
}

void nvmf_pt_synced(struct nvmf_passthru *pt)
{
	pthread_mutex_lock(&pt->lock);
	pt->syncing = false;
	pthread_cond_broadcast(&pt->cond);
	pthread_mutex_unlock(&pt->lock);
}

/* s->pt_free: the worker finishes what it has and stops. */
static void pt_free(struct nvmf_passthru *pt)
{
	if (pt->thread_started) {
		pthread_mutex_lock(&pt->lock);
		pt->stop = true;
		pthread_cond_broadcast(&pt->cond);
		pthread_mutex_unlock(&pt->lock);
		pthread_join(pt->thread, NULL);
	}
	pthread_cond_destroy(&pt->cond);
	pthread_mutex_destroy(&pt->lock);
	free(pt);
}

/* ---- open ---- */

static void log_refused(struct nvmf_tgt *tgt, const struct nvmf_subsys *s)
{
	for (size_t i = 0; i < s->drive->n_ns; i++)
		if (s->drive->ns[i].refused[0])
			nvmf_log(tgt, NVMF_LOG_WARNING, "subsystem %s: drive %s %s: not served",
				 s->cfg->nqn, s->drive->path, s->drive->ns[i].refused);
}

int nvmf_tgt_passthru_open(struct nvmf_tgt *tgt, struct nvmf_subsys *s, char *err, size_t errlen)
{
	const struct nvmf_passthru_config *pc = &s->cfg->passthru;
	if (!pc->enable)
		return 0;
	struct nvmf_drive *(*open)(const char *, char *, size_t) =
		tgt->drive_open ? tgt->drive_open : nvmf_drive_open;
	char why[512] = "";
	struct nvmf_drive *d = open(pc->device_path, why, sizeof(why));
	if (!d) {
		snprintf(err, errlen, "passthru %s", why);
		return -1;
	}
	if (nvmf_subsys_passthru_attach(s, d, why, sizeof(why))) {
		snprintf(err, errlen, "passthru %s %s", pc->device_path, why);
		return -1;
	}
	log_refused(tgt, s);
	struct nvmf_passthru *pt = calloc(1, sizeof(*pt));
	if (!pt) {
		snprintf(err, errlen, "passthru %s: out of memory", pc->device_path);
		return -1;
	}
	pt->tgt = tgt;
	pt->s = s;
	pt->admin_timeout_ms = pc->admin_timeout * 1000u;
	pthread_mutex_init(&pt->lock, NULL);
	pthread_cond_init(&pt->cond, NULL);
	s->pt = pt;
	s->pt_free = pt_free;
	int rc = pthread_create(&pt->thread, NULL, worker, pt);
	if (rc) {
		snprintf(err, errlen, "passthru %s: cannot start its admin thread: %s",
			 pc->device_path, strerror(rc));
		return -1;
	}
	pt->thread_started = true;
	nvmf_log(tgt, NVMF_LOG_INFO, "subsystem %s: serving drive %s by passthru (%zu namespaces)",
		 s->cfg->nqn, d->path, d->n_ns);
	return 0;
}

/* ---- following a rescan ---- */

/* Every controller of @s hears of @nsid (log 04h, and the event where enabled). */
static void notify(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid)
{
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (c->subsys == s && !c->deleting)
			nvmf_tgt_ctrl_notify_ns_changed(c, nsid);
}

/* Whether served namespace @ns still matches drive namespace @dn: block size, size and
 * metadata (a Format from 4096 + 8 B to 4096 B changes what a block carries). */
static bool same_geometry(const struct nvmf_ns *ns, const struct nvmf_drive_ns *dn)
{
	const struct nvmf_drive_ns *was = ns->bdev->drive_ns;
	return ns->lba_shift == dn->lba_shift && nvmf_ns_nlb(ns) == dn->nsze && was &&
	       was->ms == dn->ms && was->extended == dn->extended && !dn->refused[0];
}

unsigned nvmf_tgt_passthru_sync(struct nvmf_tgt *tgt, struct nvmf_subsys *s)
{
	unsigned changed = 0;
	for (uint32_t nsid = 1; nsid <= s->max_nsid; nsid++) {
		struct nvmf_ns *ns = s->ns[nsid];
		const struct nvmf_drive_ns *dn = nvmf_drive_ns_find(s->drive, nsid);
		if (ns && dn && same_geometry(ns, dn))
			continue;
		if (!ns && (!dn || dn->refused[0]))
			continue; /* neither served nor servable, before or now (logged then) */
		if (ns)
			nvmf_tgt_ns_take_away(tgt, s, nsid);
		if (dn && dn->refused[0])
			nvmf_log(tgt, NVMF_LOG_WARNING, "subsystem %s: drive %s %s: not served",
				 s->cfg->nqn, s->drive->path, dn->refused);
		if (dn && !dn->refused[0]) {
			char why[512];
			struct nvmf_ns *nn = nvmf_ns_open_passthru(s, nsid, why, sizeof(why));
			if (nn &&
			    (nvmf_ns_stats_alloc(nn, tgt->npgs) || nvmf_lba_ns_attach(tgt, nn) ||
			     nvmf_resv_ns_attach(tgt, s, nn))) {
				nvmf_ns_free(nn);
				nn = NULL;
				snprintf(why, sizeof(why), "out of memory");
			}
			if (!nn)
				nvmf_log(tgt, NVMF_LOG_ERROR,
					 "subsystem %s: drive %s nsid %u: not served: %s",
					 s->cfg->nqn, s->drive->path, nsid, why);
			else
				nvmf_subsys_ns_publish(s, nsid, nn);
		}
		nvmf_log(tgt, NVMF_LOG_INFO, "subsystem %s: drive %s nsid %u %s", s->cfg->nqn,
			 s->drive->path, nsid,
			 !dn ? "is gone" :
			 ns  ? "changed (format or size): served anew" :
			       "is new");
		notify(tgt, s, nsid);
		changed++;
	}
	return changed;
}
