/* SPDX-License-Identifier: MIT */
/* Discovery Log Page layout (NVMe-oF 1.1 section 5.3), built and read back, and log
 * page windows. */
#include "nvme/disc_log.h"

#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "nvme/identify.h"
#include "util/addr.h"

static_assert(sizeof(struct nvmf_disc_log_entry) == NVMF_DISC_LOG_ENTRY_SIZE,
	      "discovery log entry is 1024 bytes");
static_assert(sizeof(struct nvmf_discovery_log) == NVMF_DISC_LOG_HDR_SIZE,
	      "discovery log header is 1024 bytes");

size_t nvmf_disc_log_size(size_t nrec)
{
	if (nrec > SIZE_MAX / NVMF_DISC_LOG_ENTRY_SIZE - 1)
		return SIZE_MAX;
	return (nrec + 1) * NVMF_DISC_LOG_ENTRY_SIZE;
}

/* Copy @src into a @size byte field, NUL padded, cut at @size (fields need no NUL). */
static void put_str(char *field, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size) : 0;

	memset(field, 0, size);
	memcpy(field, src ? src : "", n);
}

static void put_entry(struct nvmf_disc_log_entry *e, const struct nvmf_disc_rec *r)
{
	/* The caller zeroed the entry: reserved bytes stay 0. */
	e->trtype = r->trtype;
	e->adrfam = r->adrfam;
	e->subtype = r->subtype;
	e->treq = r->treq;
	e->portid = htole16(r->portid);
	e->cntlid = htole16(r->cntlid);
	e->asqsz = htole16(r->asqsz);
	e->eflags = htole16(r->eflags);
	put_str(e->trsvcid, sizeof(e->trsvcid), r->trsvcid);
	put_str(e->subnqn, sizeof(e->subnqn), r->subnqn);
	put_str(e->traddr, sizeof(e->traddr), r->traddr);
	if (r->trtype == NVMF_TRTYPE_RDMA) {
		e->tsas.rdma.qptype = r->rdma_qptype;
		e->tsas.rdma.prtype = r->rdma_prtype;
		e->tsas.rdma.cms = r->rdma_cms;
		e->tsas.rdma.pkey = htole16(r->rdma_pkey);
	} else if (r->trtype == NVMF_TRTYPE_TCP) {
		e->tsas.tcp.sectype = r->tcp_sectype;
	}
}

void nvmf_disc_log_build(void *buf, uint64_t genctr, const struct nvmf_disc_rec *recs, size_t nrec)
{
	struct nvmf_discovery_log *hdr = buf;

	memset(buf, 0, nvmf_disc_log_size(nrec));
	hdr->genctr = htole64(genctr);
	hdr->numrec = htole64(nrec);
	hdr->recfmt = htole16(0);
	for (size_t i = 0; i < nrec; i++)
		put_entry(&hdr->entries[i], &recs[i]);
}

int nvmf_disc_log_decode_header(const void *buf, size_t len, struct nvmf_disc_log_hdr *out)
{
	struct nvmf_discovery_log hdr;

	if (len < NVMF_DISC_LOG_HDR_FIELDS)
		return -EINVAL;
	memcpy(&hdr, buf, NVMF_DISC_LOG_HDR_FIELDS);
	out->genctr = le64toh(hdr.genctr);
	out->numrec = le64toh(hdr.numrec);
	out->recfmt = le16toh(hdr.recfmt);
	return 0;
}

void nvmf_disc_log_decode_entry(const void *entry, struct nvmf_disc_rec *rec,
				struct nvmf_disc_strs *strs)
{
	struct nvmf_disc_log_entry e;

	memcpy(&e, entry, sizeof(e));
	memset(rec, 0, sizeof(*rec));
	rec->trtype = e.trtype;
	rec->adrfam = e.adrfam;
	rec->subtype = e.subtype;
	rec->treq = e.treq;
	rec->portid = le16toh(e.portid);
	rec->cntlid = le16toh(e.cntlid);
	rec->asqsz = le16toh(e.asqsz);
	rec->eflags = le16toh(e.eflags);
	nvme_ascii_field_str(strs->trsvcid, sizeof(strs->trsvcid), e.trsvcid, sizeof(e.trsvcid));
	nvme_ascii_field_str(strs->traddr, sizeof(strs->traddr), e.traddr, sizeof(e.traddr));
	nvme_ascii_field_str(strs->subnqn, sizeof(strs->subnqn), e.subnqn, sizeof(e.subnqn));
	rec->trsvcid = strs->trsvcid;
	rec->traddr = strs->traddr;
	rec->subnqn = strs->subnqn;
	if (e.trtype == NVMF_TRTYPE_RDMA) {
		rec->rdma_qptype = e.tsas.rdma.qptype;
		rec->rdma_prtype = e.tsas.rdma.prtype;
		rec->rdma_cms = e.tsas.rdma.cms;
		rec->rdma_pkey = le16toh(e.tsas.rdma.pkey);
	} else if (e.trtype == NVMF_TRTYPE_TCP) {
		rec->tcp_sectype = e.tsas.tcp.sectype;
	}
}

/* FNV-1a, 64-bit (offset basis and prime from the FNV reference). */
#define FNV64_BASIS 0xcbf29ce484222325ull
#define FNV64_PRIME 0x100000001b3ull

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= FNV64_PRIME;
	}
	return h;
}

static uint64_t fnv_u16(uint64_t h, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	return fnv_bytes(h, b, sizeof(b));
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	if (!s)
		s = "";
	return fnv_bytes(h, s, strlen(s) + 1);
}

uint64_t nvmf_disc_log_hash(const struct nvmf_disc_rec *recs, size_t n)
{
	uint64_t h = FNV64_BASIS;

	for (size_t i = 0; i < n; i++) {
		const struct nvmf_disc_rec *r = &recs[i];
		uint8_t bytes[] = { r->trtype,      r->adrfam,      r->subtype, r->treq,
				    r->rdma_qptype, r->rdma_prtype, r->rdma_cms };

		h = fnv_bytes(h, bytes, sizeof(bytes));
		h = fnv_u16(h, r->portid);
		h = fnv_u16(h, r->cntlid);
		h = fnv_u16(h, r->asqsz);
		h = fnv_u16(h, r->eflags);
		h = fnv_u16(h, r->rdma_pkey);
		h = fnv_bytes(h, &r->tcp_sectype, 1);
		h = fnv_str(h, r->trsvcid);
		h = fnv_str(h, r->traddr);
		h = fnv_str(h, r->subnqn);
	}
	return h;
}

size_t nvmf_log_window(void *dst, uint32_t dst_len, const void *log, size_t log_len,
		       uint64_t offset)
{
	size_t n = 0;

	if (!dst_len)
		return 0;
	if (offset < log_len) {
		n = log_len - (size_t)offset;
		if (n > dst_len)
			n = dst_len;
		memcpy(dst, (const uint8_t *)log + offset, n);
	}
	memset((uint8_t *)dst + n, 0, dst_len - n);
	return n;
}

/* True for an empty, "0.0.0.0" or "::" (any spelling) listen address. */
static bool traddr_is_wildcard(const char *traddr)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (!traddr[0])
		return true;
	if (inet_pton(AF_INET, traddr, &a4) == 1)
		return a4.s_addr == htonl(INADDR_ANY);
	if (inet_pton(AF_INET6, traddr, &a6) == 1)
		return IN6_IS_ADDR_UNSPECIFIED(&a6);
	return false;
}

bool nvmf_disc_ip_traddr(const char *listen, int family, const struct sockaddr *local, char *out,
			 size_t len)
{
	if (!traddr_is_wildcard(listen)) {
		snprintf(out, len, "%s", listen);
		return true;
	}
	if (!local || local->sa_family != family)
		return false;
	return nvmf_sockaddr_host(local, out, len);
}

uint8_t nvmf_disc_adrfam(int family)
{
	return family == AF_INET6 ? NVMF_ADDR_FAMILY_IP6 : NVMF_ADDR_FAMILY_IP4;
}
