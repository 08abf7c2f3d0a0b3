/* SPDX-License-Identifier: MIT */
/*
 * RDMA device contexts, shared by the target transport and the host transport: one PD
 * per ibv_context with the device's attributes, NUMA node and the memory regions users
 * registered on it (the MR table).
 *
 * Why process-wide state (the one exception to "no global mutable state" here): librdmacm
 * opens each device once per process and hands every cm_id the same ibv_context, and an
 * MR only works with QPs of its own PD. Sharing the PD lets one nvmf_mem_register() serve
 * every host queue (admin and I/O, of every controller) and the target's pools serve
 * every queue of a device. The list is under a mutex touched only at connect, disconnect,
 * device set-up and (un)register; the data path reads the region table lock free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/device.h"

int nvmf_rdma_device_numa_node(const struct ibv_device *device)
{
	char path[IBV_SYSFS_PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/device/numa_node", device->ibdev_path);
	FILE *f = fopen(path, "r");
	int node = -1;
	if (f) {
		if (fscanf(f, "%d", &node) != 1)
			node = -1;
		fclose(f);
	}
	return node;
}

static pthread_mutex_t devs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvmf_rdma_dev *devs;

static void dev_free(struct nvmf_rdma_dev *dev)
{
	struct nvmf_rdma_regions *t = atomic_load(&dev->regions);
	free(t);
	for (struct nvmf_rdma_regions *r = dev->retired, *next; r; r = next) {
		next = r->retired_next;
		free(r);
	}
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	free(dev);
}

struct nvmf_rdma_dev *nvmf_rdma_dev_get(struct ibv_context *verbs, char *err, size_t errlen)
{
	if (!verbs) {
		snprintf(err, errlen, "no RDMA device behind the route");
		return NULL;
	}
	pthread_mutex_lock(&devs_lock);
	struct nvmf_rdma_dev *dev;
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
	dev->send_with_inv = dev->attr.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS;
	dev->numa_node = nvmf_rdma_device_numa_node(verbs->device);
	snprintf(dev->name, sizeof(dev->name), "%s", name);
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
static void dev_put_locked(struct nvmf_rdma_dev *dev)
{
	if (--dev->refs)
		return;
	struct nvmf_rdma_dev **pp = &devs;
	while (*pp && *pp != dev)
		pp = &(*pp)->next;
	if (*pp)
		*pp = dev->next;
	dev_free(dev);
}

void nvmf_rdma_dev_put(struct nvmf_rdma_dev *dev)
{
	if (!dev)
		return;
	pthread_mutex_lock(&devs_lock);
	dev_put_locked(dev);
	pthread_mutex_unlock(&devs_lock);
}

/* Publish @nt in place of the current table (kept on the retired chain: a data-path
 * reader may still be looking at it). Caller holds devs_lock. */
static void publish(struct nvmf_rdma_dev *dev, struct nvmf_rdma_regions *nt)
{
	struct nvmf_rdma_regions *old = atomic_load(&dev->regions);
	atomic_store_explicit(&dev->regions, nt, memory_order_release);
	if (old) {
		old->retired_next = dev->retired;
		dev->retired = old;
	}
}

int nvmf_rdma_dev_register(struct nvmf_rdma_dev *dev, void *addr, size_t len)
{
	if (!dev || !addr || !len)
		return -EINVAL;
	int rc = 0;
	pthread_mutex_lock(&devs_lock);
	struct nvmf_rdma_regions *t = atomic_load(&dev->regions);
	long i = nvmf_rdma_regions_index(t, addr, len);
	if (i >= 0) {
		/* Same range again (e.g. a second controller): count it, one MR. The count is
		 * only read under the lock, so changing it in place is safe. */
		t->r[i].refs++;
		goto out;
	}
	struct ibv_mr *mr = ibv_reg_mr(dev->pd, addr, len,
				       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
					       IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		rc = errno ? -errno : -ENOMEM;
		goto out;
	}
	struct nvmf_rdma_region reg = {
		.addr = (uintptr_t)addr,
		.len = len,
		.lkey = mr->lkey,
		.rkey = mr->rkey,
		.mr = mr,
		.refs = 1,
	};
	struct nvmf_rdma_regions *nt = nvmf_rdma_regions_with(t, &reg);
	if (!nt) {
		ibv_dereg_mr(mr);
		rc = -ENOMEM;
		goto out;
	}
	publish(dev, nt);
	dev->refs++; /* the PD must outlive the MR */
out:
	pthread_mutex_unlock(&devs_lock);
	return rc;
}

int nvmf_rdma_dev_unregister(struct nvmf_rdma_dev *dev, void *addr)
{
	if (!addr)
		return -EINVAL;
	int rc = 0;
	pthread_mutex_lock(&devs_lock);
	if (!dev) {
		/* Queues already gone: the device that holds a region at @addr. */
		for (dev = devs; dev; dev = dev->next)
			if (nvmf_rdma_regions_index(atomic_load(&dev->regions), addr, 0) >= 0)
				break;
		if (!dev) {
			rc = -EINVAL;
			goto out;
		}
	}
	struct nvmf_rdma_regions *t = atomic_load(&dev->regions);
	long i = nvmf_rdma_regions_index(t, addr, 0);
	if (i < 0) {
		rc = -EINVAL;
		goto out;
	}
	if (--t->r[i].refs)
		goto out;
	struct nvmf_rdma_regions *nt = nvmf_rdma_regions_without(t, (size_t)i);
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

const struct nvmf_rdma_region *nvmf_rdma_dev_lookup(struct nvmf_rdma_dev *dev, const void *buf,
						    size_t len)
{
	struct nvmf_rdma_regions *t = atomic_load_explicit(&dev->regions, memory_order_acquire);
	return nvmf_rdma_region_find(t, buf, len);
}

/* ---- the MR table ---- */

/* Index of the last region starting at or before @a, or -1. */
static long last_at_or_before(const struct nvmf_rdma_regions *t, uintptr_t a)
{
	size_t lo = 0, hi = t->n; /* answer in [lo, hi) + 1 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->r[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

const struct nvmf_rdma_region *nvmf_rdma_region_find(const struct nvmf_rdma_regions *t,
						     const void *buf, size_t len)
{
	if (!t || !len || !buf)
		return NULL;
	uintptr_t a = (uintptr_t)buf;
	if (a + len < a)
		return NULL;
	/* Walk back over regions that start at or before @buf (few overlap in practice). */
	for (long i = last_at_or_before(t, a); i >= 0; i--) {
		const struct nvmf_rdma_region *r = &t->r[i];
		if (a + len <= r->addr + r->len)
			return r;
	}
	return NULL;
}

static struct nvmf_rdma_regions *alloc_table(size_t n)
{
	struct nvmf_rdma_regions *t = calloc(1, sizeof(*t) + n * sizeof(t->r[0]));
	if (t)
		t->n = n;
	return t;
}

struct nvmf_rdma_regions *nvmf_rdma_regions_with(const struct nvmf_rdma_regions *t,
						 const struct nvmf_rdma_region *reg)
{
	size_t n = t ? t->n : 0;
	struct nvmf_rdma_regions *nt = alloc_table(n + 1);
	if (!nt)
		return NULL;
	size_t pos = (size_t)(t ? last_at_or_before(t, reg->addr) + 1 : 0);
	if (pos)
		memcpy(nt->r, t->r, pos * sizeof(t->r[0]));
	nt->r[pos] = *reg;
	if (n > pos)
		memcpy(&nt->r[pos + 1], &t->r[pos], (n - pos) * sizeof(t->r[0]));
	return nt;
}

struct nvmf_rdma_regions *nvmf_rdma_regions_without(const struct nvmf_rdma_regions *t, size_t idx)
{
	struct nvmf_rdma_regions *nt = alloc_table(t->n - 1);
	if (!nt)
		return NULL;
	memcpy(nt->r, t->r, idx * sizeof(t->r[0]));
	memcpy(&nt->r[idx], &t->r[idx + 1], (t->n - idx - 1) * sizeof(t->r[0]));
	return nt;
}

long nvmf_rdma_regions_index(const struct nvmf_rdma_regions *t, const void *addr, size_t len)
{
	if (!t)
		return -1;
	for (long i = last_at_or_before(t, (uintptr_t)addr); i >= 0; i--) {
		if (t->r[i].addr != (uintptr_t)addr)
			break;
		if (!len || t->r[i].len == len)
			return i;
	}
	return -1;
}
