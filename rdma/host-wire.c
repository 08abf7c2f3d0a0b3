/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers of the RDMA host transport (see rdma/host.h): what goes into the CM REQ,
 * how a reject reads, how a capsule's data pointer is filled, address parsing and the
 * sorted table of registered regions. No verbs calls: unit tested directly.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/cm-private.h"
#include "rdma/host.h"

void nvmf_rh_build_cm_req(struct nvme_rdma_cm_req *req, uint16_t qid, uint16_t size)
{
	memset(req, 0, sizeof(*req));
	req->recfmt = htole16(0);
	req->qid = htole16(qid);
	req->hrqsize = htole16(size);
	req->hsqsize = htole16((uint16_t)(size ? size - 1 : 0));
}

/* Names of the IB CM reject reasons a host meets in practice (IBTA 12.6.7.2). */
static const char *ib_rej_reason(int status)
{
	switch (status) {
	case 1:  return "no QP";
	case 2:  return "no EEC";
	case 3:  return "no resources";
	case 4:  return "timeout";
	case 5:  return "unsupported request";
	case NVMF_RH_IB_REJ_INVALID_SID: return "nothing listens on that port (invalid service ID)";
	case 14: return "invalid transport type";
	case 26: return "invalid private data length";
	case 27: return "port redirect";
	case NVMF_RH_IB_REJ_CONSUMER: return "consumer reject";
	default: return NULL;
	}
}

int nvmf_rh_reject_msg(int status, const void *pdata, size_t len, char *buf, size_t buflen)
{
	/* iWARP reports -ECONNREFUSED with the private data; IB/RoCE reason 28. */
	bool consumer = status == NVMF_RH_IB_REJ_CONSUMER || status == -ECONNREFUSED;
	if (consumer && pdata && len >= sizeof(struct nvme_rdma_cm_rej)) {
		struct nvme_rdma_cm_rej rej;
		memcpy(&rej, pdata, sizeof(rej));
		unsigned sts = le16toh(rej.sts);
		snprintf(buf, buflen, "rejected by target: NVMe/RDMA status %u (%s)", sts,
			 nvmf_rdma_cm_status_str((int)sts));
	} else if (consumer) {
		snprintf(buf, buflen, "rejected by target (no NVMe/RDMA status)");
	} else {
		const char *why = ib_rej_reason(status);
		if (why)
			snprintf(buf, buflen, "rejected: %s (CM reason %d)", why, status);
		else
			snprintf(buf, buflen, "rejected: CM reason %d", status);
	}
	return -ECONNREFUSED;
}

static void set_psdt(struct nvme_sqe *sqe)
{
	/* PSDT 01b: SGLs, MPTR a single buffer; FUSE (bits 1:0) kept, reserved bits 5:2 cleared. */
	sqe->flags = (uint8_t)((sqe->flags & 0x03u) | 0x40u);
}

void nvmf_rh_sgl_keyed(struct nvme_sqe *sqe, uint64_t addr, uint32_t len, uint32_t rkey)
{
	struct nvme_sgl_desc *d = &sqe->dptr;
	memset(d, 0, sizeof(*d));
	if (len) {
		d->addr = htole64(addr);
		d->keyed.length[0] = (uint8_t)len;
		d->keyed.length[1] = (uint8_t)(len >> 8);
		d->keyed.length[2] = (uint8_t)(len >> 16);
		d->keyed.key[0] = (uint8_t)rkey;
		d->keyed.key[1] = (uint8_t)(rkey >> 8);
		d->keyed.key[2] = (uint8_t)(rkey >> 16);
		d->keyed.key[3] = (uint8_t)(rkey >> 24);
	}
	d->keyed.type = NVME_SGL_KEYED_ADDR;
	set_psdt(sqe);
}

void nvmf_rh_sgl_incapsule(struct nvme_sqe *sqe, uint32_t len)
{
	struct nvme_sgl_desc *d = &sqe->dptr;
	memset(d, 0, sizeof(*d));
	d->addr = htole64(0);          /* offset into the in-capsule data: ICDOFF 0 */
	d->unkeyed.length = htole32(len);
	d->unkeyed.type = NVME_SGL_INCAPSULE;
	set_psdt(sqe);
}

uint32_t nvmf_rh_incapsule_size(uint32_t ioccsz)
{
	if (ioccsz < 4 || ioccsz > (UINT32_MAX - 64) / 16)
		return ioccsz < 4 ? 0 : NVMF_RH_MAX_INCAPSULE;
	uint32_t n = ioccsz * 16 - NVME_SQE_SIZE;
	return n > NVMF_RH_MAX_INCAPSULE ? NVMF_RH_MAX_INCAPSULE : n;
}

int nvmf_rh_parse_addr(const char *traddr, const char *trsvcid, struct sockaddr_storage *ss,
		       char *err, size_t errlen)
{
	memset(ss, 0, sizeof(*ss));
	const char *svc = trsvcid && *trsvcid ? trsvcid : NVMF_RH_DEFAULT_PORT;
	char *end;
	errno = 0;
	unsigned long port = strtoul(svc, &end, 10);
	if (*svc < '0' || *svc > '9' || *end || errno || port == 0 || port > 65535) {
		snprintf(err, errlen, "trsvcid '%s': not a port number (1-65535)", svc);
		return -EINVAL;
	}
	if (!traddr || !*traddr) {
		snprintf(err, errlen, "traddr missing");
		return -EINVAL;
	}
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, traddr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		return 0;
	}
	if (inet_pton(AF_INET6, traddr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		return 0;
	}
	snprintf(err, errlen, "traddr '%s': not a numeric IPv4 or IPv6 address", traddr);
	return -EINVAL;
}

/* Index of the last region starting at or before @a, or -1. */
static long last_at_or_before(const struct nvmf_rh_regions *t, uintptr_t a)
{
	size_t lo = 0, hi = t->n;   /* answer in [lo, hi) + 1 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->r[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

const struct nvmf_rh_region *nvmf_rh_region_find(const struct nvmf_rh_regions *t,
						 const void *buf, size_t len)
{
	if (!t || !len || !buf)
		return NULL;
	uintptr_t a = (uintptr_t)buf;
	if (a + len < a)
		return NULL;
	/* Walk back over regions that start at or before @buf (few overlap in practice). */
	for (long i = last_at_or_before(t, a); i >= 0; i--) {
		const struct nvmf_rh_region *r = &t->r[i];
		if (a + len <= r->addr + r->len)
			return r;
	}
	return NULL;
}

static struct nvmf_rh_regions *alloc_table(size_t n)
{
	struct nvmf_rh_regions *t = calloc(1, sizeof(*t) + n * sizeof(t->r[0]));
	if (t)
		t->n = n;
	return t;
}

struct nvmf_rh_regions *nvmf_rh_regions_with(const struct nvmf_rh_regions *t,
					     const struct nvmf_rh_region *reg)
{
	size_t n = t ? t->n : 0;
	struct nvmf_rh_regions *nt = alloc_table(n + 1);
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

struct nvmf_rh_regions *nvmf_rh_regions_without(const struct nvmf_rh_regions *t, size_t idx)
{
	struct nvmf_rh_regions *nt = alloc_table(t->n - 1);
	if (!nt)
		return NULL;
	memcpy(nt->r, t->r, idx * sizeof(t->r[0]));
	memcpy(&nt->r[idx], &t->r[idx + 1], (t->n - idx - 1) * sizeof(t->r[0]));
	return nt;
}

long nvmf_rh_regions_index(const struct nvmf_rh_regions *t, const void *addr, size_t len)
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
