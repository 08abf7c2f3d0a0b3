/* SPDX-License-Identifier: MIT */
/*
 * A gateway group (docs/gateway.md): several targets export the same subsystems, each
 * with its own ports; each shared ANA group is optimized on the one gateway that holds the
 * group's lock and non-optimized on the others. The locks are RADOS object locks with a
 * lease (gateway/rados.c), in the pool the config names:
 *   nvmf-gw.<group>.ana.<grpid>   whoever holds it owns the ANA group
 *   nvmf-gw.<group>.alive.<name>  held by gateway <name> while it runs
 * taken and renewed by a thread of the gateway's own (the rules: gateway/decide.h); the
 * states follow on the main poll group, on every port of the target, by message and by a
 * timer that also takes them back when a claim runs out (nvmf_gw_apply).
 *
 * Linked into the daemon and the unit tests only (librados), never into libnvmf or the
 * core library: the control plane reaches it through a hook (control/control.h).
 */
#ifndef NVMF_GATEWAY_GATEWAY_H
#define NVMF_GATEWAY_GATEWAY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "subsystem/config.h"

struct nvmf_tgt;
struct nvmf_gw;

/* The lock service (RADOS, or a fake in the tests). Every call may block (the RADOS
 * one: at most its operation timeout); all run on the gateway's thread, or on the main
 * group's once that thread has stopped. Errors are negative errno values. */
struct nvmf_gw_locks {
	/* connect - reach the cluster (again): 0, or -errno with @err (what failed, where). */
	int (*connect)(void *ctx, char *err, size_t errlen);
	/* lock - take (@renew false) or renew (@renew true) the exclusive lock of object @oid
	 * under @cookie for @lease_s seconds: 0, -EBUSY another holds it, -EEXIST we hold it
	 * already (taking), or another error. */
	int (*lock)(void *ctx, const char *oid, const char *cookie, uint32_t lease_s, bool renew);
	/* unlock - give it up: 0, -ENOENT not ours, or another error. */
	int (*unlock)(void *ctx, const char *oid, const char *cookie);
	/* holder - whether someone holds @oid's lock now: 1 with its cookie in @cookie (@len
	 * bytes), 0 nobody (an expired lease counts as nobody), or an error. */
	int (*holder)(void *ctx, const char *oid, char *cookie, size_t len);
	/* destroy - disconnect and free @ctx. */
	void (*destroy)(void *ctx);
};

/*
 * nvmf_gw_create - the gateway of @tgt per @cfg (enabled), using @ops with @ops_ctx (owned
 * from now on: destroyed by nvmf_gw_stop, or here on failure). On the main group, before
 * the target listens: every group of @cfg is made non-optimized on every port now, so no
 * host sees this gateway optimized before it holds a lock. 0 with *@out, or -errno with
 * @err.
 */
int nvmf_gw_create(struct nvmf_tgt *tgt, const struct nvmf_gateway_config *cfg,
		   const struct nvmf_gw_locks *ops, void *ops_ctx, struct nvmf_gw **out, char *err,
		   size_t errlen);

/* nvmf_gw_start - start the gateway's thread (rounds every lease / 3) and the main
 * group's timer. On the main group. 0, or -errno with @err. */
int nvmf_gw_start(struct nvmf_gw *gw, char *err, size_t errlen);

/* nvmf_gw_stop - a clean stop, on the main group: the groups become non-optimized here,
 * the thread stops, then every lock held is released at once (so that a survivor takes
 * the groups at its next round, not after the lease), and @gw is freed. NULL: nothing. */
void nvmf_gw_stop(struct nvmf_gw *gw);

/* nvmf_gw_round - one round of the thread at @now_ms (monotonic ms): reach the cluster if
 * not yet, take or renew the alive lock, then each group as nvmf_gw_decide says; what
 * changed is posted to the main group. 0 when every call succeeded, else the first
 * error (the round went on with the other groups). For the tests, which run rounds
 * without the thread. */
int nvmf_gw_round(struct nvmf_gw *gw, uint64_t now_ms);

/* nvmf_gw_apply - on the main group at @now_ms: each group's state (optimized while held
 * and its claim lasts, else non-optimized) set on every port of the target, each change
 * logged once with its reason; a port whose state was changed by another hand (reload,
 * ana_state_set) is set back. */
void nvmf_gw_apply(struct nvmf_gw *gw, uint64_t now_ms);

/* nvmf_gw_status - what gateway_status answers (docs/gateway.md): name, group, pool,
 * lease, whether the cluster answered the last round, the alive lock, and per group
 * whether we hold it, its holder's name, its preferred gateway and the state applied.
 * On the main group; a new reference or NULL without memory. */
json_t *nvmf_gw_status(struct nvmf_gw *gw);

/* nvmf_gw_status_hook - nvmf_gw_status for the control plane's hook (@arg the gateway). */
json_t *nvmf_gw_status_hook(void *arg);

/* nvmf_gw_cookie_name - the gateway name in a lock cookie "<name>/<instance>" into @out
 * (@len bytes): the part before '/', all of it when there is none. */
void nvmf_gw_cookie_name(const char *cookie, char *out, size_t len);

/*
 * nvmf_gw_rados_new - the RADOS lock service for @cfg (gateway/rados.c): the cluster of
 * cfg->ceph_conf as client.<client_id> (cfg->keyring when set), objects in cfg->pool,
 * operations timing out after a round's interval. Nothing is contacted yet (connect
 * does). 0 with *@ops and *@ctx, or -errno with @err (ceph.conf or the keyring
 * unreadable).
 */
int nvmf_gw_rados_new(const struct nvmf_gateway_config *cfg, const struct nvmf_gw_locks **ops,
		      void **ctx, char *err, size_t errlen);

#endif
