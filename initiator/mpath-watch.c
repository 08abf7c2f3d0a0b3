/* SPDX-License-Identifier: MIT */
/*
 * The multipath handle's watcher thread. ANA changes are learnt by reading the ANA log
 * again: every refresh_ms, and at once when a path's controller reported an ANA change
 * (an Asynchronous Event, mpath.c's ana_event) or an I/O thread saw an ANA status or lost
 * a path (each posts mp->kick). Each pass:
 *   - a live path: its ANA log read again and every namespace's state through it updated
 *     (a controller without ANA reporting: only whether its admin queue is lost); a log
 *     read that loses the connection takes the path down;
 *   - a path that is down: once no I/O thread uses its queues any more (the handshake of
 *     mpath-internal.h), nvmf_reconnect, the same subsystem checked, its ANA log read,
 *     memory registered, the namespaces' states set, and then the path is live again; a
 *     failed attempt is tried again a refresh period later.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "initiator/mpath-internal.h"

void nvmfh_mp_kick(struct nvmf_mpath *mp)
{
	int v = 0;
	/* One pending wake-up is enough: the pass that takes it reads everything. */
	if (!sem_getvalue(&mp->kick, &v) && v < 1)
		sem_post(&mp->kick);
}

void nvmfh_mp_path_fail(struct nvmf_mpath *mp, unsigned p, int err)
{
	struct mp_path *path = &mp->path[p];
	int live = MP_LIVE;
	if (atomic_compare_exchange_strong(&path->state, &live, MP_DOWN)) {
		atomic_store(&path->last_error, err); /* the watcher writes the message */
		nvmfh_mp_kick(mp);
	}
}

/* Every namespace's state through @p from its log (path lock held). */
static void apply_all(struct nvmf_mpath *mp, unsigned p)
{
	for (struct mp_ns *ns = atomic_load_explicit(&mp->ns_head, memory_order_acquire); ns;
	     ns = ns->next)
		nvmfh_mp_ns_apply(mp, p, ns);
}

static bool connection_error(int rc)
{
	return rc == -ECONNRESET || rc == -ETIMEDOUT || rc == -ECONNABORTED || rc == -ENOTCONN;
}

/* A live path: its ANA log again, or whether its admin queue is lost. */
static void refresh(struct nvmf_mpath *mp, unsigned p)
{
	struct mp_path *path = &mp->path[p];
	int rc = 0;
	pthread_mutex_lock(&path->lock);
	if (!atomic_load(&path->ana)) {
		if (nvmfh_ctrl_lost(path->c))
			rc = -ECONNRESET;
	} else {
		rc = nvmfh_mp_path_read_ana(mp, p);
		if (!rc)
			apply_all(mp, p);
	}
	pthread_mutex_unlock(&path->lock);
	if (connection_error(rc))
		nvmfh_mp_path_fail(mp, p, rc);
}

/* Whether no multipath queue touches path @p's queues (read after it went down). */
static bool quiesced(struct nvmf_mpath *mp, unsigned p)
{
	for (unsigned i = 0; i < mp->nr_queues; i++)
		if (atomic_load(&mp->q[i].busy[p]))
			return false;
	return true;
}

/* Rebuild path @p's association (mem_lock and the path lock held); 0 when it may go
 * live. */
static int revive(struct nvmf_mpath *mp, unsigned p)
{
	struct mp_path *path = &mp->path[p];
	int rc = nvmf_reconnect(path->c);
	if (rc) {
		nvmfh_mp_path_errf(mp, p, "reconnect: %s: %s", nvmf_strerror(rc),
				   nvmf_ctrl_errmsg(path->c));
		return rc;
	}
	const struct nvme_id_ctrl *id = nvmf_ctrl_id(path->c);
	if (strncmp(id->subnqn, mp->subnqn, sizeof(id->subnqn)) ||
	    nvmf_ctrl_nr_io_queues(path->c) < mp->nr_queues) {
		nvmfh_mp_path_errf(mp, p,
				   "after reconnecting it reaches subsystem %.*s with %u I/O "
				   "queues (%s with %u wanted)",
				   (int)sizeof(id->subnqn), id->subnqn,
				   nvmf_ctrl_nr_io_queues(path->c), mp->subnqn, mp->nr_queues);
		return -EPROTO;
	}
	rc = nvmfh_mp_path_read_ana(mp, p);
	if (rc)
		return rc;
	for (unsigned r = 0; r < mp->nregions; r++)
		nvmfh_mp_register_on(mp, p, &mp->regions[r], NULL);
	apply_all(mp, p);
	atomic_store(&path->cntlid, nvmf_ctrl_cntlid(path->c));
	atomic_fetch_add(&path->reconnects, 1);
	return 0;
}

static void try_reconnect(struct nvmf_mpath *mp, unsigned p, uint64_t now)
{
	struct mp_path *path = &mp->path[p];
	if (now < path->next_attempt_ms || !quiesced(mp, p))
		return;
	pthread_mutex_lock(&mp->mem_lock); /* the regions to register again; before the path's */
	pthread_mutex_lock(&path->lock);
	int rc = revive(mp, p);
	pthread_mutex_unlock(&path->lock);
	pthread_mutex_unlock(&mp->mem_lock);
	if (rc) {
		atomic_store(&path->last_error, rc);
		path->next_attempt_ms = nvmf_mono_ms() + mp->refresh_ms;
		return;
	}
	pthread_mutex_lock(&mp->err_lock);
	path->msg[0] = 0;
	pthread_mutex_unlock(&mp->err_lock);
	atomic_store(&path->state, MP_LIVE); /* seq_cst: publishes the new queues */
}

static void pass(struct nvmf_mpath *mp)
{
	uint64_t now = nvmf_mono_ms();
	for (unsigned p = 0; p < mp->npaths && !atomic_load(&mp->stop); p++) {
		if (atomic_load(&mp->path[p].state) == MP_LIVE)
			refresh(mp, p);
		else
			try_reconnect(mp, p, now);
	}
	pthread_mutex_lock(&mp->pass_lock);
	mp->passes++;
	pthread_cond_broadcast(&mp->pass_cond);
	pthread_mutex_unlock(&mp->pass_lock);
}

static void *watch_main(void *arg)
{
	struct nvmf_mpath *mp = arg;
	while (!atomic_load(&mp->stop)) {
		struct timespec ts = nvmf_deadline_in_ms(mp->refresh_ms);
		while (sem_clockwait(&mp->kick, CLOCK_MONOTONIC, &ts) && errno == EINTR)
			;
		if (atomic_load(&mp->stop))
			break;
		pass(mp);
	}
	return NULL;
}

int nvmfh_mp_watch_start(struct nvmf_mpath *mp)
{
	int rc = pthread_create(&mp->watcher, NULL, watch_main, mp);
	if (rc)
		return -rc;
	mp->watcher_running = true;
	return 0;
}

void nvmfh_mp_watch_stop(struct nvmf_mpath *mp)
{
	if (!mp->watcher_running)
		return;
	atomic_store(&mp->stop, true);
	sem_post(&mp->kick);
	pthread_join(mp->watcher, NULL);
	mp->watcher_running = false;
	/* nvmf_mpath_refresh callers waiting for a pass: there will be none. */
	pthread_mutex_lock(&mp->pass_lock);
	pthread_cond_broadcast(&mp->pass_cond);
	pthread_mutex_unlock(&mp->pass_lock);
}

int nvmf_mpath_refresh(struct nvmf_mpath *mp, int timeout_ms)
{
	if (!mp)
		return -EINVAL;
	pthread_mutex_lock(&mp->pass_lock);
	/* A pass under way may have read a path before the caller's change: wait for the
	 * one after it. */
	unsigned long want = mp->passes + 2;
	pthread_mutex_unlock(&mp->pass_lock);
	sem_post(&mp->kick);
	struct timespec ts = nvmf_deadline_in_ms(timeout_ms > 0 ? (uint64_t)timeout_ms : 0);
	int rc = 0;
	pthread_mutex_lock(&mp->pass_lock);
	while (mp->passes < want && !atomic_load(&mp->stop) && rc != ETIMEDOUT) {
		rc = pthread_cond_timedwait(&mp->pass_cond, &mp->pass_lock, &ts);
		if (mp->passes + 1 == want)
			sem_post(&mp->kick); /* the second pass at once, not a period later */
	}
	bool done = mp->passes >= want;
	pthread_mutex_unlock(&mp->pass_lock);
	return done ? 0 : -ETIMEDOUT;
}
