/* SPDX-License-Identifier: MIT */
/*
 * RDMA device contexts shared by the target transport (rdma/target/) and the host
 * transport (rdma/host/): one PD per ibv_context, its attributes and NUMA node, and the
 * table of memory regions registered on it (rdma/device.c).
 */
#ifndef NVMF_RDMA_DEVICE_H
#define NVMF_RDMA_DEVICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/* One registered user region (mem_register). */
struct nvmf_rdma_region {
	uintptr_t addr; /* first byte */
	size_t len;     /* bytes */
	uint32_t lkey, rkey;
	void *mr;      /* struct ibv_mr * (opaque here: tests use fakes) */
	unsigned refs; /* registrations of exactly [addr, addr+len) */
};

/* An immutable table of regions sorted by addr. Tables are replaced, never changed, so
 * data-path readers need no lock (a writer publishes a new table; old ones are kept until
 * the device context goes away). */
struct nvmf_rdma_regions {
	size_t n;
	struct nvmf_rdma_regions *retired_next; /* chain of replaced tables (device owns) */
	struct nvmf_rdma_region r[];
};

/* nvmf_rdma_region_find - the region of @t wholly containing [buf, buf+len), or NULL (also
 * for @t NULL or @len 0). Binary search; when regions overlap, one that contains the
 * whole range is found if the last region starting at or before @buf does. */
const struct nvmf_rdma_region *nvmf_rdma_region_find(const struct nvmf_rdma_regions *t,
						     const void *buf, size_t len);
/* nvmf_rdma_regions_with - a new table: @t (may be NULL) plus @reg, kept sorted. NULL when
 * out of memory. */
struct nvmf_rdma_regions *nvmf_rdma_regions_with(const struct nvmf_rdma_regions *t,
						 const struct nvmf_rdma_region *reg);
/* nvmf_rdma_regions_without - a new table: @t without entry @idx. NULL when out of memory. */
struct nvmf_rdma_regions *nvmf_rdma_regions_without(const struct nvmf_rdma_regions *t, size_t idx);
/* nvmf_rdma_regions_index - index of the region starting exactly at @addr (and, when @len
 * is not 0, of that length), or -1. */
long nvmf_rdma_regions_index(const struct nvmf_rdma_regions *t, const void *addr, size_t len);

/* ---- device contexts ---- */

/* Per ibv_context: the PD every queue of the process on this device uses (so one MR
 * serves every queue, the target's and the host's), and the registered user regions. */
struct nvmf_rdma_dev {
	struct ibv_context *verbs; /* owned by librdmacm */
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	char name[64];      /* "rxe0", for messages */
	int numa_node;      /* of the PCI function; -1 unknown (soft devices) */
	bool send_with_inv; /* IBV_DEVICE_MEM_MGT_EXTENSIONS: SEND_WITH_INV */
	unsigned refs;      /* queues + registered regions; under the lock */
	_Atomic(struct nvmf_rdma_regions *) regions;
	struct nvmf_rdma_regions *retired; /* replaced tables, freed with the device */
	struct nvmf_rdma_dev *next;
};

/* nvmf_rdma_dev_get - the context of @verbs (created on first use) with one more reference.
 * NULL with @err set on failure. Thread safe. */
struct nvmf_rdma_dev *nvmf_rdma_dev_get(struct ibv_context *verbs, char *err, size_t errlen);
/* nvmf_rdma_dev_put - drop a reference; the last one frees the PD and the context. */
void nvmf_rdma_dev_put(struct nvmf_rdma_dev *dev);
/* nvmf_rdma_dev_register / unregister - ibv_reg_mr [addr, addr+len) with LOCAL_WRITE |
 * REMOTE_READ | REMOTE_WRITE on the device PD, or drop one registration. The same range
 * registered twice is counted. 0, -EINVAL (NULL/0 length, or unregister of an unknown
 * address), -ENOMEM, or -errno of ibv_reg_mr. Unregister with @dev NULL looks the region
 * up on every device (the queues may be gone already). Thread safe. */
int nvmf_rdma_dev_register(struct nvmf_rdma_dev *dev, void *addr, size_t len);
int nvmf_rdma_dev_unregister(struct nvmf_rdma_dev *dev, void *addr);
/* nvmf_rdma_dev_lookup - the registered region containing [buf, buf+len), or NULL. Lock
 * free. */
const struct nvmf_rdma_region *nvmf_rdma_dev_lookup(struct nvmf_rdma_dev *dev, const void *buf,
						    size_t len);

/* nvmf_rdma_device_numa_node - NUMA node of @device's PCI function (sysfs), -1 if
 * unknown (soft devices, no NUMA). */
int nvmf_rdma_device_numa_node(const struct ibv_device *device);

#endif
