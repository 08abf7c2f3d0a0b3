/* SPDX-License-Identifier: MIT */
/*
 * Device contexts of the RDMA host transport: one PD per ibv_context, shared by every
 * queue of the process on that device, with the user regions registered on it.
 *
 * Why process-wide state (the one exception to "no global mutable state" here): librdmacm
 * opens each device once per process and hands every cm_id the same ibv_context, and an
 * MR only works with QPs of its own PD. Sharing the PD lets one nvmf_mem_register() serve
 * every queue (admin and I/O, of every controller) without knowing the core's controller
 * layout. The list is under a mutex touched only at connect/disconnect/(un)register; the
 * data path reads the region table lock free (rdma/host.h, struct nvmf_rh_regions).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/host.h"

static pthread_mutex_t devs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvmf_rh_dev *devs;

static void dev_free(struct nvmf_rh_dev *dev)
{
	struct nvmf_rh_regions *t = atomic_load(&dev->regions);
	free(t);
	for (struct nvmf_rh_regions *r = dev->retired, *next; r; r = next) {
		next = r->retired_next;
		free(r);
	}
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	free(dev);
}

struct nvmf_rh_dev *nvmf_rh_dev_get(struct ibv_context *verbs, char *err, size_t errlen)
{
	if (!verbs) {
		snprintf(err, errlen, "no RDMA device behind the route");
		return NULL;
	}
	pthread_mutex_lock(&devs_lock);
	struct nvmf_rh_dev *dev;
	for (dev = devs; dev; dev = dev->next)
		if (dev->verbs == verbs) {
			dev->refs++;
			pthread_mutex_unlock(&devs_lock);
			return dev;
		}
	const char *name = ibv_get_device_name(verbs->device);
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto fail;
	}
	dev->verbs = verbs;
	atomic_init(&dev->regions, NULL);
	if (ibv_query_device(verbs, &dev->attr)) {
		snprintf(err, errlen, "%s: ibv_query_device: %s", name, strerror(errno));
		goto fail;
	}
	dev->pd = ibv_alloc_pd(verbs);
	if (!dev->pd) {
		snprintf(err, errlen, "%s: ibv_alloc_pd: %s", name, strerror(errno));
		goto fail;
	}
	dev->refs = 1;
	dev->next = devs;
	devs = dev;
	pthread_mutex_unlock(&devs_lock);
	return dev;
fail:
	pthread_mutex_unlock(&devs_lock);
	if (dev)
		dev_free(dev);
	return NULL;
}

/* Caller holds devs_lock. */
static void dev_put_locked(struct nvmf_rh_dev *dev)
{
	if (--dev->refs)
		return;
	struct nvmf_rh_dev **pp = &devs;
	while (*pp && *pp != dev)
		pp = &(*pp)->next;
	if (*pp)
		*pp = dev->next;
	dev_free(dev);
}

void nvmf_rh_dev_put(struct nvmf_rh_dev *dev)
{
	if (!dev)
		return;
	pthread_mutex_lock(&devs_lock);
	dev_put_locked(dev);
	pthread_mutex_unlock(&devs_lock);
}

/* Publish @nt in place of the current table (kept on the retired chain: a data-path
 * reader may still be looking at it). Caller holds devs_lock. */
static void publish(struct nvmf_rh_dev *dev, struct nvmf_rh_regions *nt)
{
	struct nvmf_rh_regions *old = atomic_load(&dev->regions);
	atomic_store_explicit(&dev->regions, nt, memory_order_release);
	if (old) {
		old->retired_next = dev->retired;
		dev->retired = old;
	}
}

int nvmf_rh_dev_register(struct nvmf_rh_dev *dev, void *addr, size_t len)
{
	if (!dev || !addr || !len)
		return -EINVAL;
	int rc = 0;
	pthread_mutex_lock(&devs_lock);
	struct nvmf_rh_regions *t = atomic_load(&dev->regions);
	long i = nvmf_rh_regions_index(t, addr, len);
	if (i >= 0) {
		/* Same range again (e.g. a second controller): count it, one MR. The count is
		 * only read under the lock, so changing it in place is safe. */
		t->r[i].refs++;
		goto out;
	}
	struct ibv_mr *mr = ibv_reg_mr(dev->pd, addr, len, IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		rc = errno ? -errno : -ENOMEM;
		goto out;
	}
	struct nvmf_rh_region reg = {
		.addr = (uintptr_t)addr, .len = len, .lkey = mr->lkey, .rkey = mr->rkey,
		.mr = mr, .refs = 1,
	};
	struct nvmf_rh_regions *nt = nvmf_rh_regions_with(t, &reg);
	if (!nt) {
		ibv_dereg_mr(mr);
		rc = -ENOMEM;
		goto out;
	}
	publish(dev, nt);
	dev->refs++;   /* the PD must outlive the MR */
out:
	pthread_mutex_unlock(&devs_lock);
	return rc;
}

int nvmf_rh_dev_unregister(struct nvmf_rh_dev *dev, void *addr)
{
	if (!addr)
		return -EINVAL;
	int rc = 0;
	pthread_mutex_lock(&devs_lock);
	if (!dev) {
		/* Queues already gone: the device that holds a region at @addr. */
		for (dev = devs; dev; dev = dev->next)
			if (nvmf_rh_regions_index(atomic_load(&dev->regions), addr, 0) >= 0)
				break;
		if (!dev) {
			rc = -EINVAL;
			goto out;
		}
	}
	struct nvmf_rh_regions *t = atomic_load(&dev->regions);
	long i = nvmf_rh_regions_index(t, addr, 0);
	if (i < 0) {
		rc = -EINVAL;
		goto out;
	}
	if (--t->r[i].refs)
		goto out;
	struct nvmf_rh_regions *nt = nvmf_rh_regions_without(t, (size_t)i);
	if (!nt) {
		t->r[i].refs++;
		rc = -ENOMEM;
		goto out;
	}
	struct ibv_mr *mr = t->r[i].mr;
	publish(dev, nt);
	int e = ibv_dereg_mr(mr);
	rc = e ? -e : 0;
	dev_put_locked(dev);
out:
	pthread_mutex_unlock(&devs_lock);
	return rc;
}

const struct nvmf_rh_region *nvmf_rh_dev_lookup(struct nvmf_rh_dev *dev, const void *buf,
						size_t len)
{
	struct nvmf_rh_regions *t = atomic_load_explicit(&dev->regions, memory_order_acquire);
	return nvmf_rh_region_find(t, buf, len);
}
