/* SPDX-License-Identifier: MIT */
/*
 * The gateway group's coordinator (see gateway.h): the thread that takes, renews and
 * gives up the locks, and the main group's side that applies the ANA states.
 *
 * Threads: the thread writes what it learnt (held, holder, claim, reachable) under
 * gw->lock and posts a message to the main group; the main group reads it under the same
 * lock and applies it (nvmf_tgt_ana_state_set runs on the main group only). Giving a
 * group up waits for the main group to have made it non-optimized first, so that the
 * next holder is never optimized beside us.
 */
#include "gateway/gateway.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "gateway/decide.h"
#include "nvme/ana-state.h"
#include "target/ana.h"
#include "target/core.h"
#include "target/log.h"
#include "target/poll-group.h"
#include "util/clock.h"

#define GW_APPLY_PERIOD_MS \
	200                     /* the main group's timer: claims running out, states
				* changed by another hand */
#define GW_RELEASE_WAIT_MS 2000 /* at most this long for the main group before a release */

/* One managed group. The worker's fields are written under gw->lock. */
struct gw_group {
	uint32_t grpid;
	char preferred[NVMF_GW_NAME_MAX + 1];
	char ana_oid[160], alive_oid[160]; /* its lock; its preferred gateway's alive lock */
	bool held;                         /* our last successful call says we hold it */
	uint64_t claim_until;              /* monotonic ms (nvmf_gw_claim_until) */
	bool preferred_alive;
	char holder[NVMF_GW_NAME_MAX + 1]; /* "" nobody, as last seen */
	char why[160];                     /* why held last changed */
	/* The main group's: the state it last applied (0 none yet). */
	uint8_t applied;
};

struct nvmf_gw {
	struct nvmf_tgt *tgt;
	struct nvmf_gateway_config cfg;
	const struct nvmf_gw_locks *ops;
	void *ops_ctx;
	char cookie[NVMF_GW_NAME_MAX + 64]; /* "<name>/<pid>.<start ns>" */
	char alive_oid[160];
	uint64_t lease_ms, interval_ms;
	struct gw_group *groups;
	size_t n_groups;

	pthread_mutex_t lock;
	pthread_cond_t cond; /* the thread's sleep; applied_gen moving on */
	bool stopping;
	bool connected;  /* the thread's own */
	bool alive_busy; /* the thread's own: our alive lock was held by another locker */
	bool reachable;  /* the last round's calls all succeeded */
	bool alive_held;
	char last_error[256];
	/* The errors logged lately (a hash of the line, when): a cluster that stays away
	 * fails several calls each round, each logged once a minute, not every round. */
	struct {
		uint64_t hash, ms;
	} logged[8];
	unsigned logged_next;
	uint64_t round_ms;         /* the thread's own: the clock of the round that runs */
	uint64_t gen, applied_gen; /* posted / applied by the main group */

	pthread_t thread;
	bool threaded;       /* set before the thread starts: rounds run on it, not the main
			      * group's thread */
	bool thread_started; /* the main group's: joined at stop */
	struct nvmf_timer timer;
	bool timer_started;
};

void nvmf_gw_cookie_name(const char *cookie, char *out, size_t len)
{
	size_t n = strcspn(cookie, "/");
	if (n >= len)
		n = len - 1;
	memcpy(out, cookie, n);
	out[n] = '\0';
}

/* ---- the main group's side ---- */

/* Applies one group's state on every port; returns how many ports changed. */
static unsigned set_everywhere(struct nvmf_gw *gw, uint32_t grpid, uint8_t state)
{
	struct nvmf_tgt *tgt = gw->tgt;
	unsigned changed = 0;
	char err[160];
	for (size_t i = 0; i < tgt->n_ports; i++) {
		int rc = nvmf_tgt_ana_state_set(tgt, tgt->ports[i], grpid, state, err, sizeof(err));
		if (rc > 0)
			changed++;
		else if (rc < 0)
			nvmf_log_at(tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_ERROR,
				    "ANA group %u on port %u: %s", grpid,
				    tgt->ports[i]->cfg->portid, err);
	}
	return changed;
}

/* Under gw->lock: why @g is in the state it is in at @now_ms (@g->why, unless its claim
 * ran out). */
static const char *reason(const struct nvmf_gw *gw, const struct gw_group *g, uint64_t now_ms,
			  char *buf, size_t len)
{
	/* A group this gateway never held and waits for (its preferred gateway has it):
	 * once a round has seen the holder, say who rather than "starting". */
	if (!g->held && g->holder[0] && strcmp(g->holder, gw->cfg.name) &&
	    !strncmp(g->why, "starting", 8)) {
		snprintf(buf, len, "lock held by %s", g->holder);
		return buf;
	}
	if (!g->held || nvmf_gw_optimized(g->held, now_ms, g->claim_until))
		return g->why;
	/* claim_until is the last successful call's time + lease - margin. */
	snprintf(buf, len,
		 "no lock renewal for %llu ms (cluster unreachable?): given up before the lease "
		 "can end at the cluster",
		 (unsigned long long)(now_ms + gw->lease_ms - nvmf_gw_margin_ms(gw->lease_ms) -
				      g->claim_until));
	return buf;
}

void nvmf_gw_apply(struct nvmf_gw *gw, uint64_t now_ms)
{
	pthread_mutex_lock(&gw->lock);
	uint64_t gen = gw->gen;
	for (size_t i = 0; i < gw->n_groups; i++) {
		struct gw_group *g = &gw->groups[i];
		bool opt = nvmf_gw_optimized(g->held, now_ms, g->claim_until);
		uint8_t want = opt ? NVME_ANA_STATE_OPTIMIZED : NVME_ANA_STATE_NONOPTIMIZED;
		char buf[200];
		const char *why = reason(gw, g, now_ms, buf, sizeof(buf));
		unsigned changed = set_everywhere(gw, g->grpid, want);
		if (want != g->applied)
			nvmf_log_at(gw->tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_INFO,
				    "ANA group %u: %s on this gateway (%s): %s", g->grpid,
				    nvme_ana_state_name(want), gw->cfg.name, why);
		else if (changed)
			nvmf_log_at(gw->tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_WARNING,
				    "ANA group %u: set back to %s on %u port(s): the gateway group "
				    "decides its state (changed by a reload or ana_state_set)",
				    g->grpid, nvme_ana_state_name(want), changed);
		g->applied = want;
	}
	gw->applied_gen = gen;
	pthread_cond_broadcast(&gw->cond);
	pthread_mutex_unlock(&gw->lock);
}

static void apply_msg(void *arg)
{
	struct nvmf_gw *gw = arg;
	nvmf_gw_apply(gw, nvmf_tgt_now_ms(gw->tgt));
}

static void apply_timer(void *arg)
{
	apply_msg(arg);
}

/* ---- the thread's side ---- */

/* Under gw->lock: a new generation for the main group to apply. */
static uint64_t publish_locked(struct nvmf_gw *gw)
{
	return ++gw->gen;
}

static void post_apply(struct nvmf_gw *gw)
{
	if (nvmf_pg_send(nvmf_tgt_main_pg(gw->tgt), apply_msg, gw))
		nvmf_log_at(gw->tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_WARNING,
			    "out of memory posting a state change (the timer applies it)");
}

static void set_error(struct nvmf_gw *gw, int *first, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set_error(struct nvmf_gw *gw, int *first, int rc, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!*first)
		*first = rc;
	pthread_mutex_lock(&gw->lock);
	gw->reachable = false;
	snprintf(gw->last_error, sizeof(gw->last_error), "%s", msg);
	pthread_mutex_unlock(&gw->lock);
	uint64_t h = 14695981039346656037ull, now = gw->round_ms; /* FNV-1a */
	for (const char *p = msg; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	const unsigned n = sizeof(gw->logged) / sizeof(gw->logged[0]);
	for (unsigned i = 0; i < n; i++)
		if (gw->logged[i].ms && gw->logged[i].hash == h && now - gw->logged[i].ms < 60000)
			return; /* said within the last minute */
	gw->logged[gw->logged_next].hash = h;
	gw->logged[gw->logged_next].ms = now ? now : 1;
	gw->logged_next = (gw->logged_next + 1) % n;
	nvmf_log_at(gw->tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_ERROR, "%s", msg);
}

/* A group's holder as seen now, for the status. */
static void look_holder(struct nvmf_gw *gw, struct gw_group *g, int *first)
{
	char cookie[256], name[NVMF_GW_NAME_MAX + 1] = "";
	int rc = gw->ops->holder(gw->ops_ctx, g->ana_oid, cookie, sizeof(cookie));
	if (rc < 0) {
		set_error(gw, first, rc, "%s: cannot list its lockers: %s", g->ana_oid,
			  strerror(-rc));
		return;
	}
	if (rc > 0)
		nvmf_gw_cookie_name(cookie, name, sizeof(name));
	pthread_mutex_lock(&gw->lock);
	snprintf(g->holder, sizeof(g->holder), "%s", name);
	pthread_mutex_unlock(&gw->lock);
}

/* Gives @g up: non-optimized here first (the main group confirms, or the wait ends),
 * then the lock. */
static int release(struct nvmf_gw *gw, struct gw_group *g, const char *why, uint64_t now_ms)
{
	pthread_mutex_lock(&gw->lock);
	g->held = false;
	snprintf(g->why, sizeof(g->why), "%s", why);
	uint64_t gen = publish_locked(gw);
	pthread_mutex_unlock(&gw->lock);
	if (!gw->threaded) { /* a round run by the main group itself (tests) */
		nvmf_gw_apply(gw, now_ms);
		return gw->ops->unlock(gw->ops_ctx, g->ana_oid, gw->cookie);
	}
	post_apply(gw);
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += GW_RELEASE_WAIT_MS / 1000;
	pthread_mutex_lock(&gw->lock);
	while (gw->applied_gen < gen && !gw->stopping)
		if (pthread_cond_timedwait(&gw->cond, &gw->lock, &until) == ETIMEDOUT)
			break;
	bool applied = gw->applied_gen >= gen;
	pthread_mutex_unlock(&gw->lock);
	/* Not confirmed (stopping: nvmf_gw_stop releases it; the main group stuck): the lock
	 * is kept, unrenewed, and ends with its lease. */
	if (!applied)
		return 0;
	return gw->ops->unlock(gw->ops_ctx, g->ana_oid, gw->cookie);
}

static void one_group(struct nvmf_gw *gw, struct gw_group *g, uint64_t now_ms, int *first)
{
	bool preferred = !strcmp(g->preferred, gw->cfg.name);
	bool alive = false;
	if (!preferred) {
		char cookie[256];
		int rc = gw->ops->holder(gw->ops_ctx, g->alive_oid, cookie, sizeof(cookie));
		if (rc < 0) {
			set_error(gw, first, rc, "%s: cannot list its lockers: %s", g->alive_oid,
				  strerror(-rc));
			return; /* what we hold runs out with its claim */
		}
		alive = rc > 0;
	}
	pthread_mutex_lock(&gw->lock);
	bool held = g->held;
	g->preferred_alive = preferred || alive;
	pthread_mutex_unlock(&gw->lock);
	enum nvmf_gw_action a = nvmf_gw_decide(preferred, held, alive);
	char why[160];
	int rc = 0;
	switch (a) {
	case NVMF_GW_WAIT:
		break;
	case NVMF_GW_ACQUIRE:
	case NVMF_GW_RENEW:
		rc = gw->ops->lock(gw->ops_ctx, g->ana_oid, gw->cookie, gw->cfg.lease_seconds,
				   a == NVMF_GW_RENEW);
		if (rc == 0 || rc == -EEXIST) {
			if (preferred)
				snprintf(why, sizeof(why), "lock taken (its preferred gateway)");
			else
				snprintf(why, sizeof(why),
					 "lock taken: its preferred gateway %s is not alive",
					 g->preferred);
			pthread_mutex_lock(&gw->lock);
			if (!g->held)
				snprintf(g->why, sizeof(g->why), "%s", why);
			g->held = true;
			g->claim_until = nvmf_gw_claim_until(now_ms, gw->lease_ms);
			publish_locked(gw);
			pthread_mutex_unlock(&gw->lock);
		} else if (rc == -EBUSY || rc == -ENOENT) {
			pthread_mutex_lock(&gw->lock);
			if (g->held)
				snprintf(g->why, sizeof(g->why),
					 "lock lost: another gateway holds it (our lease ran out)");
			else
				snprintf(g->why, sizeof(g->why), "lock held by another gateway");
			g->held = false;
			publish_locked(gw);
			pthread_mutex_unlock(&gw->lock);
		} else {
			set_error(gw, first, rc, "%s: cannot %s its lock: %s", g->ana_oid,
				  a == NVMF_GW_RENEW ? "renew" : "take", strerror(-rc));
		}
		break;
	case NVMF_GW_RELEASE:
		snprintf(why, sizeof(why), "given back to its preferred gateway %s (failback)",
			 g->preferred);
		rc = release(gw, g, why, now_ms);
		if (rc && rc != -ENOENT)
			set_error(gw, first, rc, "%s: cannot release its lock: %s", g->ana_oid,
				  strerror(-rc));
		break;
	}
	look_holder(gw, g, first);
}

int nvmf_gw_round(struct nvmf_gw *gw, uint64_t now_ms)
{
	int first = 0;
	gw->round_ms = now_ms;
	char err[256];
	if (!gw->connected) {
		int rc = gw->ops->connect(gw->ops_ctx, err, sizeof(err));
		if (rc) {
			/* A refusal is a mistake to fix (the user, its key, the pool), not an
			 * outage to wait out: say which. */
			bool refused = rc == -EACCES || rc == -EPERM || rc == -ENOENT;
			set_error(gw, &first, rc,
				  "%s the Ceph cluster (%s): %s; every group stays "
				  "non-optimized here, retrying every %llu ms",
				  refused ? "refused by" : "cannot reach", gw->cfg.ceph_conf, err,
				  (unsigned long long)gw->interval_ms);
			pthread_mutex_lock(&gw->lock);
			gw->reachable = false;
			pthread_mutex_unlock(&gw->lock);
			return first;
		}
		gw->connected = true;
		nvmf_log_at(gw->tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_INFO,
			    "gateway %s of group %s: connected to the cluster as client.%s, pool "
			    "%s, lease %u s",
			    gw->cfg.name, gw->cfg.group, gw->cfg.client_id, gw->cfg.pool,
			    gw->cfg.lease_seconds);
	}
	pthread_mutex_lock(&gw->lock);
	bool alive = gw->alive_held;
	pthread_mutex_unlock(&gw->lock);
	int rc =
		gw->ops->lock(gw->ops_ctx, gw->alive_oid, gw->cookie, gw->cfg.lease_seconds, alive);
	if (rc == 0 || rc == -EEXIST || rc == -EBUSY || rc == -ENOENT) {
		/* -EBUSY: a former instance of ours (killed) until its lease ends. */
		bool busy = rc == -EBUSY;
		if (busy && !gw->alive_busy)
			nvmf_log_at(gw->tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_WARNING,
				    "%s is held by another locker: a former %s until its lease "
				    "ends (%u s), or another gateway with this name",
				    gw->alive_oid, gw->cfg.name, gw->cfg.lease_seconds);
		gw->alive_busy = busy;
		pthread_mutex_lock(&gw->lock);
		gw->alive_held = rc == 0 || rc == -EEXIST;
		pthread_mutex_unlock(&gw->lock);
	} else {
		set_error(gw, &first, rc, "%s: cannot %s its lock: %s", gw->alive_oid,
			  alive ? "renew" : "take", strerror(-rc));
	}
	for (size_t i = 0; i < gw->n_groups; i++) {
		pthread_mutex_lock(&gw->lock);
		bool stop = gw->stopping;
		pthread_mutex_unlock(&gw->lock);
		if (stop)
			break;
		one_group(gw, &gw->groups[i], now_ms, &first);
	}
	pthread_mutex_lock(&gw->lock);
	bool was = gw->reachable;
	gw->reachable = !first;
	if (!first && gw->last_error[0]) {
		gw->last_error[0] = '\0';
		pthread_mutex_unlock(&gw->lock);
		if (!was)
			nvmf_log_at(gw->tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_INFO,
				    "the cluster answers again");
	} else {
		pthread_mutex_unlock(&gw->lock);
	}
	post_apply(gw);
	return first;
}

static void *thread_main(void *arg)
{
	struct nvmf_gw *gw = arg;
	pthread_mutex_lock(&gw->lock);
	while (!gw->stopping) {
		pthread_mutex_unlock(&gw->lock);
		uint64_t start = nvmf_tgt_now_ms(gw->tgt);
		nvmf_gw_round(gw, start);
		/* The next round one interval after this one began. */
		uint64_t next = start + gw->interval_ms;
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		uint64_t now = nvmf_tgt_now_ms(gw->tgt);
		uint64_t wait = next > now ? next - now : 0;
		until.tv_sec += (time_t)(wait / 1000);
		until.tv_nsec += (long)(wait % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&gw->lock);
		while (!gw->stopping &&
		       pthread_cond_timedwait(&gw->cond, &gw->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&gw->lock);
	return NULL;
}

/* ---- life cycle ---- */

int nvmf_gw_create(struct nvmf_tgt *tgt, const struct nvmf_gateway_config *cfg,
		   const struct nvmf_gw_locks *ops, void *ops_ctx, struct nvmf_gw **out, char *err,
		   size_t errlen)
{
	*out = NULL;
	struct nvmf_gw *gw = calloc(1, sizeof(*gw));
	if (gw)
		gw->groups = calloc(cfg->n_ana_groups ? cfg->n_ana_groups : 1, sizeof(*gw->groups));
	if (!gw || !gw->groups) {
		if (gw)
			free(gw);
		ops->destroy(ops_ctx);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	gw->tgt = tgt;
	gw->cfg = *cfg;
	gw->ops = ops;
	gw->ops_ctx = ops_ctx;
	gw->lease_ms = (uint64_t)cfg->lease_seconds * 1000;
	gw->interval_ms = nvmf_gw_interval_ms(gw->lease_ms);
	/* The instance: a restarted gateway is another locker than the one it replaces. */
	snprintf(gw->cookie, sizeof(gw->cookie), "%s/%ld.%llu", cfg->name, (long)getpid(),
		 (unsigned long long)nvmf_mono_ns());
	snprintf(gw->alive_oid, sizeof(gw->alive_oid), "nvmf-gw.%s.alive.%s", cfg->group,
		 cfg->name);
	gw->n_groups = cfg->n_ana_groups;
	for (size_t i = 0; i < gw->n_groups; i++) {
		struct gw_group *g = &gw->groups[i];
		g->grpid = cfg->ana_groups[i].grpid;
		snprintf(g->preferred, sizeof(g->preferred), "%s", cfg->ana_groups[i].preferred);
		snprintf(g->ana_oid, sizeof(g->ana_oid), "nvmf-gw.%s.ana.%u", cfg->group, g->grpid);
		snprintf(g->alive_oid, sizeof(g->alive_oid), "nvmf-gw.%s.alive.%s", cfg->group,
			 g->preferred);
		snprintf(g->why, sizeof(g->why), "starting: no lock held yet");
	}
	pthread_mutex_init(&gw->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&gw->cond, &ca);
	pthread_condattr_destroy(&ca);
	nvmf_gw_apply(gw, nvmf_tgt_now_ms(gw->tgt)); /* non-optimized before the first lock */
	*out = gw;
	return 0;
}

int nvmf_gw_start(struct nvmf_gw *gw, char *err, size_t errlen)
{
	nvmf_pg_timer_start(nvmf_tgt_main_pg(gw->tgt), &gw->timer, GW_APPLY_PERIOD_MS, apply_timer,
			    gw);
	gw->timer_started = true;
	gw->threaded = true;
	int rc = pthread_create(&gw->thread, NULL, thread_main, gw);
	if (rc) {
		gw->threaded = false;
		snprintf(err, errlen, "cannot start the gateway's thread: %s", strerror(rc));
		return -rc;
	}
	gw->thread_started = true;
	return 0;
}

static void barrier_done(void *arg)
{
	*(bool *)arg = true;
}

void nvmf_gw_stop(struct nvmf_gw *gw)
{
	if (!gw)
		return;
	struct nvmf_pg *main_pg = nvmf_tgt_main_pg(gw->tgt);
	pthread_mutex_lock(&gw->lock);
	gw->stopping = true;
	pthread_cond_broadcast(&gw->cond);
	pthread_mutex_unlock(&gw->lock);
	if (gw->thread_started)
		pthread_join(gw->thread, NULL);
	if (gw->timer_started)
		nvmf_pg_timer_stop(main_pg, &gw->timer);
	/* Every message the thread posted (they name @gw) runs before @gw goes: the main
	 * group's messages run in order. */
	bool done = false;
	if (!nvmf_pg_send(main_pg, barrier_done, &done))
		while (!done)
			nvmf_pg_poll(main_pg);
	/* Non-optimized here first, then the locks go: a survivor may take them at once. */
	bool any = false;
	for (size_t i = 0; i < gw->n_groups; i++) {
		any |= gw->groups[i].held;
		gw->groups[i].held = false;
		snprintf(gw->groups[i].why, sizeof(gw->groups[i].why), "this gateway stops");
	}
	nvmf_gw_apply(gw, nvmf_tgt_now_ms(gw->tgt));
	if (gw->connected) {
		for (size_t i = 0; i < gw->n_groups; i++)
			gw->ops->unlock(gw->ops_ctx, gw->groups[i].ana_oid, gw->cookie);
		gw->ops->unlock(gw->ops_ctx, gw->alive_oid, gw->cookie);
		nvmf_log_at(gw->tgt, NVMF_LOGC_GATEWAY, NVMF_LOG_INFO,
			    "gateway %s stops: its locks are released%s", gw->cfg.name,
			    any ? " (the other gateways take its groups at their next round)" : "");
	}
	gw->ops->destroy(gw->ops_ctx);
	pthread_cond_destroy(&gw->cond);
	pthread_mutex_destroy(&gw->lock);
	free(gw->groups);
	free(gw);
}

json_t *nvmf_gw_status(struct nvmf_gw *gw)
{
	uint64_t now = nvmf_tgt_now_ms(gw->tgt);
	json_t *groups = json_array();
	pthread_mutex_lock(&gw->lock);
	for (size_t i = 0; groups && i < gw->n_groups; i++) {
		const struct gw_group *g = &gw->groups[i];
		bool opt = nvmf_gw_optimized(g->held, now, g->claim_until);
		char buf[200];
		json_array_append_new(
			groups, json_pack("{s:I, s:s, s:b, s:b, s:s, s:b, s:s, s:I, s:s}", "grpid",
					  (json_int_t)g->grpid, "preferred", g->preferred,
					  "preferred_is_us", !strcmp(g->preferred, gw->cfg.name),
					  "preferred_alive", g->preferred_alive, "holder",
					  g->holder, "held", opt, "state",
					  g->applied ? nvme_ana_state_name(g->applied) : "none",
					  "claim_ms", (json_int_t)(opt ? g->claim_until - now : 0),
					  "reason", reason(gw, g, now, buf, sizeof(buf))));
	}
	json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:I, s:b, s:b, s:s, s:o}", "name", gw->cfg.name,
			      "group", gw->cfg.group, "pool", gw->cfg.pool, "lease_seconds",
			      (json_int_t)gw->cfg.lease_seconds, "interval_ms",
			      (json_int_t)gw->interval_ms, "reachable", gw->reachable, "alive_held",
			      gw->alive_held, "last_error", gw->last_error, "groups", groups);
	pthread_mutex_unlock(&gw->lock);
	return j;
}

json_t *nvmf_gw_status_hook(void *arg)
{
	return nvmf_gw_status(arg);
}
