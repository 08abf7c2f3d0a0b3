/* SPDX-License-Identifier: MIT */
/*
 * Registered data buffers of one device: one mapping, registered once with the device's
 * PD when the device is first seen, carved into size classes (4 KiB, 128 KiB, the max
 * transfer). Nothing on the data path registers memory; a request that finds its class
 * and every larger one empty waits (rdma/request.c) until a buffer comes back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <numa.h>
#include "rdma/target/internal.h"

#define HUGE_2M (2u << 20)

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

int nvmf_rdma_pool_init(struct nvmf_rdma_pool *p, const struct nvmf_rdma_verbs *verbs,
			struct ibv_pd *pd, int node, uint32_t max_xfer, uint32_t nsmall,
			uint32_t nlarge, bool huge, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->verbs = verbs;
	if (max_xfer < NVMF_RDMA_ALIGN)
		max_xfer = NVMF_RDMA_ALIGN;
	max_xfer = (uint32_t)align_up(max_xfer, NVMF_RDMA_ALIGN);
	const uint32_t sizes[NVMF_RDMA_POOL_CLASSES] = { 4096, 128u << 10, max_xfer };
	const uint32_t counts[NVMF_RDMA_POOL_CLASSES] = {
		nsmall ? nsmall : 1024,
		nlarge ? nlarge : 64,
		(nlarge ? nlarge : 64) / 4 < 4 ? 4 : (nlarge ? nlarge : 64) / 4,
	};
	for (unsigned i = 0; i < NVMF_RDMA_POOL_CLASSES; i++) {
		/* A class at or above the max transfer is replaced by the max-transfer class. */
		if (i + 1 < NVMF_RDMA_POOL_CLASSES && sizes[i] >= max_xfer)
			continue;
		p->cls[p->ncls].size = sizes[i];
		p->cls[p->ncls].count = counts[i];
		p->ncls++;
	}
	p->max_size = max_xfer;
	pthread_mutex_init(&p->lock, NULL);
	for (unsigned i = 0; i < p->ncls; i++)
		p->len += (size_t)p->cls[i].size * p->cls[i].count;

	p->mem = MAP_FAILED;
	if (huge) {
		size_t hlen = align_up(p->len, HUGE_2M);
		p->mem = mmap(NULL, hlen, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p->mem != MAP_FAILED) {
			p->len = hlen;
			p->huge = true;
		}
	}
	if (p->mem == MAP_FAILED) {
		p->mem = mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			      0);
		if (p->mem == MAP_FAILED) {
			snprintf(err, errlen, "data buffer pool: mmap %zu bytes: %s", p->len,
				 strerror(errno));
			p->mem = NULL;
			return -1;
		}
	}
	/* Before the first touch (registration pins the pages): place them near the device. */
	if (node >= 0 && numa_available() >= 0)
		numa_tonode_memory(p->mem, p->len, node);
	p->mr = verbs->reg_mr(pd, p->mem, p->len, IBV_ACCESS_LOCAL_WRITE);
	if (!p->mr) {
		snprintf(err, errlen, "data buffer pool: ibv_reg_mr %zu bytes: %s", p->len,
			 strerror(errno));
		goto fail;
	}
	uint8_t *cur = p->mem;
	for (unsigned i = 0; i < p->ncls; i++) {
		struct nvmf_rdma_buf_class *c = &p->cls[i];
		c->free = calloc(c->count, sizeof(void *));
		c->in_use = calloc(c->count, 1);
		c->base = cur;
		if (!c->free || !c->in_use) {
			snprintf(err, errlen, "data buffer pool: out of memory");
			goto fail;
		}
		for (uint32_t j = 0; j < c->count; j++)
			c->free[c->nfree++] = cur + (size_t)(c->count - 1 - j) * c->size;
		cur += (size_t)c->count * c->size;
	}
	return 0;
fail:
	nvmf_rdma_pool_fini(p);
	return -1;
}

void nvmf_rdma_pool_fini(struct nvmf_rdma_pool *p)
{
	if (p->mr)
		p->verbs->dereg_mr(p->mr);
	if (p->mem)
		munmap(p->mem, p->len);
	for (unsigned i = 0; i < p->ncls; i++) {
		free(p->cls[i].free);
		free(p->cls[i].in_use);
	}
	if (p->max_size)
		pthread_mutex_destroy(&p->lock);
	memset(p, 0, sizeof(*p));
}

void *nvmf_rdma_pool_get(struct nvmf_rdma_pool *p, uint32_t len, unsigned *cls_out)
{
	uint8_t *buf = NULL;
	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->ncls; i++) {
		struct nvmf_rdma_buf_class *c = &p->cls[i];
		if (c->size < len || !c->nfree)
			continue;
		*cls_out = i;
		buf = c->free[--c->nfree];
		c->in_use[(size_t)(buf - c->base) / c->size] = 1;
		break;
	}
	pthread_mutex_unlock(&p->lock);
	return buf;
}

bool nvmf_rdma_pool_put(struct nvmf_rdma_pool *p, void *buf, unsigned cls)
{
	struct nvmf_rdma_buf_class *c = &p->cls[cls];
	size_t idx = (size_t)((uint8_t *)buf - c->base) / c->size;
	pthread_mutex_lock(&p->lock);
	/* A second release would hand one buffer to two requests: data of one would land in
	 * the other's. Refuse it; the caller says so, loudly: it is a bug to find. */
	if (idx >= c->count || !c->in_use[idx]) {
		c->double_puts++;
		pthread_mutex_unlock(&p->lock);
		return false;
	}
	c->in_use[idx] = 0;
	c->free[c->nfree++] = buf;
	pthread_mutex_unlock(&p->lock);
	return true;
}

void nvmf_rdma_pool_stats(struct nvmf_rdma_pool *p, struct nvmf_rdma_pool_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!p->max_size)
		return; /* not set up (or finished) */
	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->ncls; i++) {
		st->count += p->cls[i].count;
		st->nfree += p->cls[i].nfree;
		st->double_puts += p->cls[i].double_puts;
	}
	pthread_mutex_unlock(&p->lock);
}
