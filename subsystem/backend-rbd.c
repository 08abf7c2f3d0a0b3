/* SPDX-License-Identifier: MIT */
/*
 * RBD backend: a Ceph RBD image through librbd is the namespace (docs/ceph.md).
 *
 * Open: a cluster handle of its own per namespace (rados_create2 as client.<id>, the
 * ceph.conf, an optional keyring, bounded timeouts), the pool's I/O context (and RADOS
 * namespace), the image. Every failure is one line naming the image and the cause.
 *
 * I/O: rbd_aio_read / rbd_aio_write (librbd's cache off: no volatile write cache);
 * rbd_aio_flush if a flush ever reaches it; Write Zeroes and Deallocate are both
 * rbd_aio_write_zeroes, since rbd_aio_discard leaves partial objects as they were (a read
 * after it need not return zeroes, which DLFEAT 001b promises). librbd completes on a
 * thread of its own: the callback hands the op back to the submitting poll group with
 * nvmf_aio_complete_remote (subsystem/aio.h), whose next poll runs io->done there. A
 * one-block fused Compare and Write is rbd_aio_compare_and_write (caw_atomic, one
 * 512-byte sector); longer ones the core does under its LBA lock (target/caw.c).
 *
 * Resize: the image's size can change under us (rbd resize elsewhere). An update watch
 * (rbd_update_watch) calls b->watch from librbd's thread; the target answers by reading
 * the size (device_size: rbd_get_size, called at Identify and on that notice only, never
 * per I/O) and telling the hosts.
 *
 * Close: librbd callbacks still running are waited for (the count of ops handed to
 * librbd whose callback has not returned), then the watch, image and cluster are closed
 * (rbd_close waits for librbd's own work).
 */
#include "subsystem/backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rados/librados.h>
#include <rbd/librbd.h>
#include "util/log.h"

/* Seconds: the first contact with the monitors, then each monitor and OSD operation. */
#define RBD_MOUNT_TIMEOUT   "10"
#define RBD_OP_TIMEOUT      "30"
/* Seconds the close may take before it is left to finish on its own (a cluster that
 * does not answer: rbd_close then waits on it without a bound of its own). */
#define RBD_CLOSE_TIMEOUT_S 5

/* Closes left to finish on their own thread (rbd_close_dev), process-wide as librbd's
 * own state is: the daemon must not run librados' exit-time destructors under one. */
static struct {
	unsigned closing; /* atomic */
} rbd_closes;

/* An open image. */
struct rbd_dev {
	struct nvmf_bdev *b;      /* NULL once closing (under watch_mu) */
	pthread_mutex_t watch_mu; /* the update watch's callback against the close */
	rados_t cluster;
	rados_ioctx_t ioctx;
	rbd_image_t image;
	uint64_t watch_handle;
	bool cluster_made, ioctx_made, watching;
	unsigned outstanding; /* ops handed to librbd whose callback has not returned
			       * (atomic: submitters and librbd's threads) */
	char name[400];       /* "pool[/namespace]/image", for messages */
};

/* "pool[/namespace]/image" of @r into @out. */
static void rbd_name(const struct nvmf_rbd_config *r, char *out, size_t n)
{
	if (r->rados_ns[0])
		snprintf(out, n, "%s/%s/%s", r->pool, r->rados_ns, r->image);
	else
		snprintf(out, n, "%s/%s", r->pool, r->image);
}

/* The message for a failed rados_connect (-@rc). */
static void connect_error(const struct rbd_dev *d, const struct nvmf_rbd_config *r, int rc,
			  char *err, size_t errlen)
{
	const char *keyring = r->keyring[0] ? r->keyring : "as ceph.conf says";
	switch (rc) {
	case -ETIMEDOUT:
		snprintf(err, errlen,
			 "cannot reach the cluster in %s as client.%s: no monitor answered "
			 "within " RBD_MOUNT_TIMEOUT " s",
			 r->conf, r->client_id);
		return;
	case -EACCES:
	case -EPERM:
	case -EKEYREJECTED:
		snprintf(err, errlen, "rbd %s: authentication failed (client.%s, keyring %s)",
			 d->name, r->client_id, keyring);
		return;
	case -ENOENT:
		/* No key for the client in any keyring found, or no monitor address. */
		snprintf(err, errlen,
			 "rbd %s: cannot connect to the cluster in %s as client.%s: no key for "
			 "client.%s (keyring %s) or no monitor address",
			 d->name, r->conf, r->client_id, r->client_id, keyring);
		return;
	default:
		snprintf(err, errlen,
			 "rbd %s: cannot connect to the cluster in %s as client.%s: %s", d->name,
			 r->conf, r->client_id, strerror(-rc));
	}
}

static void rbd_dev_free(struct rbd_dev *d)
{
	pthread_mutex_destroy(&d->watch_mu);
	free(d);
}

static void rbd_teardown(struct rbd_dev *d)
{
	if (d->watching)
		rbd_update_unwatch(d->image, d->watch_handle);
	d->watching = false;
	if (d->image)
		rbd_close(d->image);
	d->image = NULL;
	if (d->ioctx_made)
		rados_ioctx_destroy(d->ioctx);
	d->ioctx_made = false;
	if (d->cluster_made)
		rados_shutdown(d->cluster);
	d->cluster_made = false;
}

/* librbd's update watch: the image header changed (a resize among others). */
static void rbd_watch_cb(void *arg)
{
	struct rbd_dev *d = arg;
	pthread_mutex_lock(&d->watch_mu);
	struct nvmf_bdev_watch *w = d->b ? __atomic_load_n(&d->b->watch, __ATOMIC_ACQUIRE) : NULL;
	if (w)
		w->fn(w);
	pthread_mutex_unlock(&d->watch_mu);
}

static int rbd_open_dev(struct nvmf_bdev *b, const struct nvmf_ns_config *cfg, char *err,
			size_t errlen)
{
	const struct nvmf_rbd_config *r = &cfg->rbd;
	if (!r->pool[0] || !r->image[0]) {
		snprintf(err, errlen,
			 "namespace %u: an rbd namespace needs nvmf_rbd_pool and "
			 "nvmf_rbd_image",
			 cfg->nsid);
		return -1;
	}
	struct rbd_dev *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "rbd %s/%s: out of memory", r->pool, r->image);
		return -1;
	}
	d->b = b;
	pthread_mutex_init(&d->watch_mu, NULL);
	rbd_name(r, d->name, sizeof(d->name));
	const char *conf = r->conf[0] ? r->conf : NVMF_RBD_DEFAULT_CONF;
	const char *id = r->client_id[0] ? r->client_id : NVMF_RBD_DEFAULT_CLIENT;
	char client[80];
	snprintf(client, sizeof(client), "client.%s", id);
	if (nvmf_backend_block_size(cfg, d->name, &b->block_size, err, errlen) < 0)
		goto fail;
	/* Checked here so that a missing or unreadable keyring is named as such, not as
	 * a failed authentication. Only its path is ever shown, never what it holds. */
	if (r->keyring[0] && access(r->keyring, R_OK) < 0) {
		snprintf(err, errlen, "rbd %s: keyring %s: %s", d->name, r->keyring,
			 strerror(errno));
		goto fail;
	}
	int rc = rados_create2(&d->cluster, "ceph", client, 0);
	if (rc < 0) {
		snprintf(err, errlen, "rbd %s: cannot create a cluster handle for %s: %s", d->name,
			 client, strerror(-rc));
		goto fail;
	}
	d->cluster_made = true;
	if ((rc = rados_conf_read_file(d->cluster, conf)) < 0) {
		snprintf(err, errlen, "rbd %s: cannot read %s: %s", d->name, conf, strerror(-rc));
		goto fail;
	}
	/* Bounded waits: an unreachable cluster fails the open in seconds, and an I/O the
	 * cluster does not answer fails (-ETIMEDOUT) instead of hanging a host's command.
	 * librados' own log lines stay off our stderr: what failed is said here. */
	static const char *const opts[][2] = {
		{ "client_mount_timeout", RBD_MOUNT_TIMEOUT },
		{ "rados_osd_op_timeout", RBD_OP_TIMEOUT },
		{ "rados_mon_op_timeout", RBD_OP_TIMEOUT },
		{ "log_to_stderr", "false" },
		{ "err_to_stderr", "false" },
		/* No write-back cache in the gateway: a write is answered once the OSDs have
		 * it. Another gateway serving the image reads from the OSDs, so a write
		 * answered from this process's memory and lost with it (a crash, a kill)
		 * would be a write the host saw complete and then not there through the
		 * other path, not a volatile cache lost to a power failure. */
		{ "rbd_cache", "false" },
	};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if ((rc = rados_conf_set(d->cluster, opts[i][0], opts[i][1])) < 0) {
			snprintf(err, errlen, "rbd %s: cannot set %s: %s", d->name, opts[i][0],
				 strerror(-rc));
			goto fail;
		}
	if (r->keyring[0] && (rc = rados_conf_set(d->cluster, "keyring", r->keyring)) < 0) {
		snprintf(err, errlen, "rbd %s: cannot use keyring %s: %s", d->name, r->keyring,
			 strerror(-rc));
		goto fail;
	}
	if ((rc = rados_connect(d->cluster)) < 0) {
		connect_error(d, r, rc, err, errlen);
		goto fail;
	}
	if ((rc = rados_ioctx_create(d->cluster, r->pool, &d->ioctx)) < 0) {
		if (rc == -ENOENT)
			snprintf(err, errlen, "rbd %s: no such pool", d->name);
		else
			snprintf(err, errlen, "rbd %s: cannot open pool %s: %s", d->name, r->pool,
				 strerror(-rc));
		goto fail;
	}
	d->ioctx_made = true;
	if (r->rados_ns[0]) {
		/* Said as such: rbd_open would call a missing namespace a missing image. */
		bool exists = true;
		if (rbd_namespace_exists(d->ioctx, r->rados_ns, &exists) == 0 && !exists) {
			snprintf(err, errlen,
				 "rbd %s: pool %s has no RADOS namespace %s (rbd namespace ls %s)",
				 d->name, r->pool, r->rados_ns, r->pool);
			goto fail;
		}
		rados_ioctx_set_namespace(d->ioctx, r->rados_ns);
	}
	if ((rc = rbd_open(d->ioctx, r->image, &d->image, NULL)) < 0) {
		d->image = NULL;
		if (rc == -ENOENT)
			snprintf(err, errlen, "rbd %s: no such image", d->name);
		else if (rc == -EACCES || rc == -EPERM)
			snprintf(err, errlen, "rbd %s: client.%s may not open it (its caps): %s",
				 d->name, id, strerror(-rc));
		else
			snprintf(err, errlen, "rbd %s: cannot open the image: %s", d->name,
				 strerror(-rc));
		goto fail;
	}
	uint64_t size;
	rbd_image_info_t info;
	if ((rc = rbd_get_size(d->image, &size)) < 0 ||
	    (rc = rbd_stat(d->image, &info, sizeof(info))) < 0) {
		snprintf(err, errlen, "rbd %s: cannot read its size: %s", d->name, strerror(-rc));
		goto fail;
	}
	b->size = size - size % b->block_size;
	if (b->size == 0) {
		snprintf(err, errlen,
			 "rbd %s: the image is %llu bytes, smaller than one block of %u "
			 "bytes",
			 d->name, (unsigned long long)size, b->block_size);
		goto fail;
	}
	/* rbd_cache is off (above): a completed write is on the OSDs, so the namespace has
	 * no volatile write cache and a host's Flush needs no backend call. */
	b->volatile_cache = false;
	if (info.obj_size && info.obj_size <= UINT32_MAX)
		b->optimal_io = (uint32_t)info.obj_size;
	/* Compare and Write through librbd, which takes one whose range lies inside one
	 * 512-byte sector (hence one object) and refuses others with -EINVAL: the
	 * one-block Compare and Write of a 512-byte namespace (VMware's ATS heartbeat and
	 * locks). Longer ones the target does itself. */
	b->caw_atomic = true;
	b->caw_boundary = 512;
	b->priv = d;
	if ((rc = rbd_update_watch(d->image, &d->watch_handle, rbd_watch_cb, d)) < 0)
		nvmf_bdev_note(b,
			       "rbd %s: cannot watch the image for resizes (%s): run Identify "
			       "(nvme ns-rescan) after an rbd resize",
			       d->name, strerror(-rc));
	else
		d->watching = true;
	nvmf_bdev_note(b,
		       "rbd %s: %llu bytes, objects of %llu bytes, as client.%s through %s; "
		       "librbd's cache off whatever the conf says (docs/ceph.md)",
		       d->name, (unsigned long long)size, (unsigned long long)info.obj_size, id,
		       conf);
	return 0;
fail:
	rbd_teardown(d);
	rbd_dev_free(d);
	b->priv = NULL;
	return -1;
}

/* A close on a thread of its own, so that the caller can stop waiting for it. */
struct rbd_closer {
	struct rbd_dev *d;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done, abandoned; /* under mu */
};

static void closer_free(struct rbd_closer *c)
{
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	rbd_dev_free(c->d);
	free(c);
}

static void *closer_run(void *arg)
{
	struct rbd_closer *c = arg;
	rbd_teardown(c->d);
	pthread_mutex_lock(&c->mu);
	c->done = true;
	bool abandoned = c->abandoned;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	/* Abandoned: the caller is gone and this thread owns @c; else the caller frees it
	 * and @c must not be touched after the unlock. */
	if (abandoned) {
		nvmf_logger_write(NULL, NVMF_LOGC_BACKEND, NVMF_LOG_INFO, "rbd %s: closed (late)",
				  c->d->name);
		closer_free(c);
		__atomic_sub_fetch(&rbd_closes.closing, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Tear @d down within RBD_CLOSE_TIMEOUT_S; past it the close goes on alone and frees
 * @d when it ends. Frees @d. */
static void rbd_close_bounded(struct rbd_dev *d)
{
	struct rbd_closer *c = calloc(1, sizeof(*c));
	pthread_attr_t at;
	pthread_t t;
	bool started = false;
	if (c && pthread_attr_init(&at) == 0) {
		c->d = d;
		pthread_mutex_init(&c->mu, NULL);
		pthread_cond_init(&c->cv, NULL);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		started = pthread_create(&t, &at, closer_run, c) == 0;
		pthread_attr_destroy(&at);
		if (!started) {
			pthread_mutex_destroy(&c->mu);
			pthread_cond_destroy(&c->cv);
		}
	}
	if (!started) { /* no thread: close here, however long it takes */
		free(c);
		rbd_teardown(d);
		rbd_dev_free(d);
		return;
	}
	struct timespec end;
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += RBD_CLOSE_TIMEOUT_S;
	pthread_mutex_lock(&c->mu);
	while (!c->done && pthread_cond_timedwait(&c->cv, &c->mu, &end) != ETIMEDOUT)
		;
	bool done = c->done;
	if (!done) {
		c->abandoned = true;
		__atomic_add_fetch(&rbd_closes.closing, 1, __ATOMIC_ACQUIRE);
	}
	pthread_mutex_unlock(&c->mu);
	if (done) {
		closer_free(c);
		return;
	}
	nvmf_logger_write(NULL, NVMF_LOGC_BACKEND, NVMF_LOG_WARNING,
			  "rbd %s: the cluster did not answer the close within %d s: it "
			  "goes on without the target waiting (the image's exclusive lock is "
			  "released when it ends, or broken by the next owner)",
			  d->name, RBD_CLOSE_TIMEOUT_S);
}

unsigned nvmf_bdev_rbd_closing(void)
{
	return __atomic_load_n(&rbd_closes.closing, __ATOMIC_ACQUIRE);
}

static void rbd_close_dev(struct nvmf_bdev *b)
{
	struct rbd_dev *d = b->priv;
	if (!d)
		return;
	/* The target closes a namespace after its last command has answered, so no op
	 * should be out; should one be (a callback between its hand-back and its return),
	 * wait for it: it still reads this structure. */
	for (unsigned ms = 0; __atomic_load_n(&d->outstanding, __ATOMIC_ACQUIRE); ms++) {
		if (ms == 1000)
			nvmf_logger_write(NULL, NVMF_LOGC_BACKEND, NVMF_LOG_WARNING,
					  "rbd %s: waiting for %u librbd operation(s) before "
					  "closing",
					  d->name,
					  __atomic_load_n(&d->outstanding, __ATOMIC_ACQUIRE));
		usleep(1000);
	}
	/* From here the update watch calls into nothing (its unwatch may wait on the
	 * cluster, so it is part of the bounded close). */
	pthread_mutex_lock(&d->watch_mu);
	d->b = NULL;
	pthread_mutex_unlock(&d->watch_mu);
	b->priv = NULL;
	rbd_close_bounded(d);
}

/* On the submitting poll group (nvmf_aio_poll): the op's end. */
static void rbd_op_done(struct nvmf_aio_op *op, int res)
{
	struct nvmf_bdev_io *io = container_of(op, struct nvmf_bdev_io, aio);
	io->done(io, res < 0 ? res : 0);
}

/* On a librbd thread: hand the op back to its poll group. */
static void rbd_cb(rbd_completion_t c, void *arg)
{
	struct nvmf_bdev_io *io = arg;
	struct rbd_dev *d = io->aio.ctx;
	ssize_t r = rbd_aio_get_return_value(c);
	rbd_aio_release(c);
	/* A read or write returns its length, a flush or zeroing 0: only < 0 is an error. */
	nvmf_aio_complete_remote(io->aio.aio, &io->aio, r < 0 ? (int)r : 0);
	/* io may be gone now; d lives until this count drops (rbd_close_dev). */
	__atomic_sub_fetch(&d->outstanding, 1, __ATOMIC_RELEASE);
}

static int rbd_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	struct rbd_dev *d = b->priv;
	rbd_completion_t c;
	io->aio.done = rbd_op_done;
	io->aio.ctx = d;
	int rc = rbd_aio_create_completion(io, rbd_cb, &c);
	if (rc < 0) {
		io->done(io, rc);
		return 0;
	}
	nvmf_aio_remote_begin(aio, &io->aio);
	__atomic_add_fetch(&d->outstanding, 1, __ATOMIC_ACQUIRE);
	switch (io->op) {
	case NVMF_BDEV_READ:
		rc = rbd_aio_read(d->image, io->offset, io->len, io->buf, c);
		break;
	case NVMF_BDEV_WRITE:
		rc = rbd_aio_write(d->image, io->offset, io->len, io->buf, c);
		break;
	case NVMF_BDEV_FLUSH:
		rc = rbd_aio_flush(d->image, c);
		break;
	case NVMF_BDEV_WRITE_ZEROES:
	case NVMF_BDEV_DISCARD:
		rc = rbd_aio_write_zeroes(d->image, io->offset, io->len, c, 0, 0);
		break;
	case NVMF_BDEV_COMPARE_AND_WRITE:
		/* The OSD compares and writes in one object operation: atomic against every
		 * gateway on the image. librbd returns -EILSEQ on a miscompare; where it was
		 * (nvme_result, unused here) the host is not told. */
		rc = (int)rbd_aio_compare_and_write(d->image, io->offset, io->len, io->cmp, io->buf,
						    c, &io->nvme_result, 0);
		break;
	default:
		rc = -EINVAL;
		break;
	}
	if (rc < 0) {
		/* Refused at once: the callback never runs. */
		__atomic_sub_fetch(&d->outstanding, 1, __ATOMIC_RELEASE);
		nvmf_aio_remote_cancel(aio);
		rbd_aio_release(c);
		io->done(io, rc);
	}
	return 0;
}

/* The image's size now: librbd refreshes the header first when a notice said it
 * changed (one round trip then, none otherwise). */
static int rbd_device_size(struct nvmf_bdev *b, uint64_t *bytes)
{
	struct rbd_dev *d = b->priv;
	int rc = rbd_get_size(d->image, bytes);
	return rc < 0 ? rc : 0;
}

const struct nvmf_bdev_ops nvmf_backend_rbd_ops = {
	.name = "rbd",
	.open = rbd_open_dev,
	.close = rbd_close_dev,
	.submit = rbd_submit,
	.device_size = rbd_device_size,
};
