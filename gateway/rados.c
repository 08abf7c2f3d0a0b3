/* SPDX-License-Identifier: MIT */
/*
 * The gateway group's lock service on RADOS (gateway.h, struct nvmf_gw_locks): exclusive
 * object locks (cls_lock) with a duration, the lease, renewed with
 * LIBRADOS_LOCK_FLAG_MAY_RENEW; lockers listed with rados_list_lockers, which leaves out
 * those whose lease has ended. Every operation times out after the gateway's round
 * interval (rados_osd_op_timeout, rados_mon_op_timeout), so that the thread never hangs on
 * a cluster it cannot reach; connecting waits at most a lease (client_mount_timeout).
 */
#include <errno.h>
#include <rados/librados.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "gateway/decide.h"
#include "gateway/gateway.h"

#define GW_LOCK_NAME "nvmf-gw" /* the lock's name on each object (cls_lock's "name") */

struct gw_rados {
	struct nvmf_gateway_config cfg;
	rados_t cluster;
	rados_ioctx_t io;
	bool connected;
};

static void disconnect(struct gw_rados *r)
{
	if (r->io)
		rados_ioctx_destroy(r->io);
	if (r->cluster)
		rados_shutdown(r->cluster);
	r->io = NULL;
	r->cluster = NULL;
	r->connected = false;
}

static int set_opt(struct gw_rados *r, const char *key, const char *val, char *err, size_t errlen)
{
	int rc = rados_conf_set(r->cluster, key, val);
	if (rc)
		snprintf(err, errlen, "setting %s to %s: %s", key, val, strerror(-rc));
	return rc;
}

static int gw_connect(void *ctx, char *err, size_t errlen)
{
	struct gw_rados *r = ctx;
	char secs[24], lease[16];
	int rc;
	disconnect(r);
	snprintf(secs, sizeof(secs), "%llu",
		 (unsigned long long)(nvmf_gw_interval_ms(r->cfg.lease_seconds * 1000ull) + 999) /
			 1000);
	snprintf(lease, sizeof(lease), "%u", r->cfg.lease_seconds);
	if ((rc = rados_create(&r->cluster, r->cfg.client_id))) {
		snprintf(err, errlen, "rados_create(client.%s): %s", r->cfg.client_id,
			 strerror(-rc));
		r->cluster = NULL;
		return rc;
	}
	if ((rc = rados_conf_read_file(r->cluster, r->cfg.ceph_conf))) {
		snprintf(err, errlen, "%s: %s", r->cfg.ceph_conf, strerror(-rc));
		goto fail;
	}
	if ((r->cfg.keyring[0] && (rc = set_opt(r, "keyring", r->cfg.keyring, err, errlen))) ||
	    (rc = set_opt(r, "rados_osd_op_timeout", secs, err, errlen)) ||
	    (rc = set_opt(r, "rados_mon_op_timeout", secs, err, errlen)) ||
	    (rc = set_opt(r, "client_mount_timeout", lease, err, errlen)))
		goto fail;
	if ((rc = rados_connect(r->cluster))) {
		if (rc == -EACCES || rc == -EPERM)
			snprintf(err, errlen,
				 "authentication failed as client.%s (keyring %s): a wrong key "
				 "or user",
				 r->cfg.client_id,
				 r->cfg.keyring[0] ? r->cfg.keyring : "of the conf");
		else
			snprintf(err, errlen, "connecting as client.%s: %s", r->cfg.client_id,
				 strerror(-rc));
		goto fail;
	}
	if ((rc = rados_ioctx_create(r->cluster, r->cfg.pool, &r->io))) {
		snprintf(err, errlen, "pool %s: %s", r->cfg.pool,
			 rc == -ENOENT ? "no such pool" : strerror(-rc));
		r->io = NULL;
		goto fail;
	}
	r->connected = true;
	return 0;
fail:
	disconnect(r);
	return rc;
}

static int gw_lock(void *ctx, const char *oid, const char *cookie, uint32_t lease_s, bool renew)
{
	struct gw_rados *r = ctx;
	struct timeval d = { .tv_sec = lease_s };
	if (!r->connected)
		return -ENOTCONN;
	return rados_lock_exclusive(r->io, oid, GW_LOCK_NAME, cookie, "nvmf gateway", &d,
				    renew ? LIBRADOS_LOCK_FLAG_MAY_RENEW : 0);
}

static int gw_unlock(void *ctx, const char *oid, const char *cookie)
{
	struct gw_rados *r = ctx;
	if (!r->connected)
		return -ENOTCONN;
	return rados_unlock(r->io, oid, GW_LOCK_NAME, cookie);
}

static int gw_holder(void *ctx, const char *oid, char *cookie, size_t len)
{
	struct gw_rados *r = ctx;
	char tag[256], clients[1024], cookies[1024], addrs[1024];
	size_t tag_len = sizeof(tag), clients_len = sizeof(clients), cookies_len = sizeof(cookies),
	       addrs_len = sizeof(addrs);
	int excl = 0;
	if (!r->connected)
		return -ENOTCONN;
	ssize_t n = rados_list_lockers(r->io, oid, GW_LOCK_NAME, &excl, tag, &tag_len, clients,
				       &clients_len, cookies, &cookies_len, addrs, &addrs_len);
	if (n == -ENOENT) /* no such object: never locked */
		return 0;
	if (n < 0)
		return (int)n;
	if (n == 0)
		return 0;
	snprintf(cookie, len, "%.*s", (int)strnlen(cookies, cookies_len), cookies);
	return 1;
}

static void gw_destroy(void *ctx)
{
	struct gw_rados *r = ctx;
	disconnect(r);
	free(r);
}

static const struct nvmf_gw_locks rados_locks = {
	.connect = gw_connect,
	.lock = gw_lock,
	.unlock = gw_unlock,
	.holder = gw_holder,
	.destroy = gw_destroy,
};

int nvmf_gw_rados_new(const struct nvmf_gateway_config *cfg, const struct nvmf_gw_locks **ops,
		      void **ctx, char *err, size_t errlen)
{
	/* Mistakes in the files are the operator's: said now, not retried for ever. */
	if (access(cfg->ceph_conf, R_OK)) {
		int e = errno;
		snprintf(err, errlen, "nvmf_gateway.ceph_conf: %s: %s", cfg->ceph_conf,
			 strerror(e));
		return -e;
	}
	if (cfg->keyring[0] && access(cfg->keyring, R_OK)) {
		int e = errno;
		snprintf(err, errlen, "nvmf_gateway.keyring: %s: %s", cfg->keyring, strerror(e));
		return -e;
	}
	struct gw_rados *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->cfg = *cfg;
	*ops = &rados_locks;
	*ctx = r;
	return 0;
}
