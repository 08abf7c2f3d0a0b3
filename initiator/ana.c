/* SPDX-License-Identifier: MIT */
/*
 * Asymmetric Namespace Access, host side (NVMe Base 2.0 section 8.1): reading and
 * checking the ANA log page (0Ch, section 5.16.1.13) and a namespace's ANA state.
 *
 * The read is sized as the Linux host sizes it (drivers/nvme/host/multipath.c,
 * nvme_mpath_init_identify): the 16-byte header, NANAGRPID group descriptors of 32 bytes
 * and MNAN NSIDs of 4 bytes (NN when MNAN is 0; none with RGO). The decode trusts nothing
 * the controller sent: every descriptor and NSID list must lie inside the bytes read and
 * every field must be one the spec allows, or the whole log is refused with -EPROTO and a
 * message naming the descriptor and the field (a host acting on half a log would route
 * I/O by states it never read).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "nvme/ana-state.h"

#define ANA_HDR_LEN   16u         /* CHGCNT, NGRPS, reserved */
#define ANA_DESC_LEN  32u         /* ANAGRPID, NNSIDS, CHGCNT, state, reserved */
#define ANA_LOG_MAX   (64u << 20) /* bytes: a larger log means a broken Identify */
#define ANA_MAX_TRIES 10u         /* reads of a log that spans transfers (CHGCNT moved) */

/* One of the five states (nvme/ana-state.h). */
static bool known_state(uint8_t state)
{
	return strcmp(nvme_ana_state_name(state), "?") != 0;
}

const char *nvmf_ana_state_str(uint8_t state)
{
	return known_state(state) ? nvme_ana_state_name(state) : "unknown";
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

int nvmfh_ana_log_size(const struct nvme_id_ctrl *id, bool groups_only, size_t *len, char *err,
		       size_t errlen)
{
	uint32_t ngrp = le32toh(id->nanagrpid), gmax = le32toh(id->anagrpmax);
	uint32_t nn = le32toh(id->nn), mnan = le32toh(id->mnan);
	if (!(id->cmic & NVME_CTRL_CMIC_MULTI_ANA_REPORTING)) {
		snprintf(err, errlen,
			 "the controller does not report ANA (Identify Controller "
			 "CMIC bit 3 clear)");
		return -EOPNOTSUPP;
	}
	if (!ngrp || ngrp > gmax) {
		snprintf(err, errlen, "Identify Controller NANAGRPID %u must be 1..ANAGRPMAX (%u)",
			 ngrp, gmax);
		return -EPROTO;
	}
	if (mnan > nn) {
		snprintf(err, errlen, "Identify Controller MNAN %u exceeds NN %u", mnan, nn);
		return -EPROTO;
	}
	uint64_t n = ANA_HDR_LEN + (uint64_t)ngrp * ANA_DESC_LEN;
	if (!groups_only)
		n += (uint64_t)(mnan ? mnan : nn) * 4u;
	if (n > ANA_LOG_MAX) {
		snprintf(err, errlen,
			 "the ANA log would be %llu bytes (NANAGRPID %u, %s %u): more "
			 "than the %u MiB read at most",
			 (unsigned long long)n, ngrp, mnan ? "MNAN" : "NN", mnan ? mnan : nn,
			 ANA_LOG_MAX >> 20);
		return -EPROTO;
	}
	*len = (size_t)n;
	return 0;
}

/* A (key, owner) pair: an NSID and its group, or a group ID and its descriptor. */
struct owner {
	uint32_t key, who;
};

static int by_key(const void *a, const void *b)
{
	const struct owner *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Sorts @o (@n pairs); the first key held twice, with both owners, or false. */
static bool find_twice(struct owner *o, size_t n, struct owner *a, struct owner *b)
{
	if (n > 1)
		qsort(o, n, sizeof(*o), by_key);
	for (size_t j = 1; j < n; j++)
		if (o[j].key == o[j - 1].key) {
			*a = o[j - 1];
			*b = o[j];
			return true;
		}
	return false;
}

/* The checks of one descriptor at @off; *@nnsids gets its NSID count. */
static int check_desc(const uint8_t *buf, size_t len, size_t off, unsigned i, uint32_t gmax,
		      bool groups_only, uint32_t *nnsids, char *err, size_t errlen)
{
	if (off > len || len - off < ANA_DESC_LEN) {
		snprintf(err, errlen,
			 "ANA log: descriptor %u at byte %zu runs past the %zu bytes "
			 "read",
			 i, off, len);
		return -EPROTO;
	}
	const uint8_t *d = buf + off;
	uint32_t grpid = get_le32(d), n = get_le32(d + 4);
	uint8_t state = d[16] & 0x0f; /* bits 7:4 reserved */
	if (!grpid || grpid > gmax) {
		snprintf(err, errlen,
			 "ANA log: descriptor %u: ANA group ID %u is outside "
			 "1..ANAGRPMAX (%u)",
			 i, grpid, gmax);
		return -EPROTO;
	}
	if (!known_state(state)) {
		snprintf(err, errlen, "ANA log: descriptor %u (group %u): unknown ANA state 0x%x",
			 i, grpid, state);
		return -EPROTO;
	}
	if (groups_only && n) {
		snprintf(err, errlen,
			 "ANA log: descriptor %u (group %u): NNSIDS %u in a "
			 "groups-only (RGO) read",
			 i, grpid, n);
		return -EPROTO;
	}
	if ((uint64_t)n * 4u > len - off - ANA_DESC_LEN) {
		snprintf(err, errlen,
			 "ANA log: descriptor %u (group %u): NNSIDS %u runs past the "
			 "%zu bytes read",
			 i, grpid, n, len);
		return -EPROTO;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t nsid = get_le32(d + ANA_DESC_LEN + 4 * k);
		uint32_t prev = k ? get_le32(d + ANA_DESC_LEN + 4 * (k - 1)) : 0;
		if (!nsid || nsid == NVME_NSID_ALL || nsid <= prev) {
			snprintf(err, errlen,
				 "ANA log: descriptor %u (group %u): NSID %u at index %u "
				 "is not a valid NSID in ascending order",
				 i, grpid, nsid, k);
			return -EPROTO;
		}
	}
	*nnsids = n;
	return 0;
}

int nvmfh_ana_log_decode(const void *data, size_t len, const struct nvme_id_ctrl *id,
			 bool groups_only, struct nvmf_ana_log **out, char *err, size_t errlen)
{
	const uint8_t *buf = data;
	uint32_t ngrp_max = le32toh(id->nanagrpid), gmax = le32toh(id->anagrpmax);
	*out = NULL;
	if (len < ANA_HDR_LEN) {
		snprintf(err, errlen, "ANA log: %zu bytes, shorter than its header", len);
		return -EPROTO;
	}
	unsigned ngrps = (unsigned)buf[8] | (unsigned)buf[9] << 8;
	if (ngrps > ngrp_max) {
		snprintf(err, errlen, "ANA log: NGRPS %u exceeds NANAGRPID %u", ngrps, ngrp_max);
		return -EPROTO;
	}
	/* First pass: every descriptor checked, NSIDs counted. */
	size_t off = ANA_HDR_LEN, total = 0;
	for (unsigned i = 0; i < ngrps; i++) {
		uint32_t n;
		int rc = check_desc(buf, len, off, i, gmax, groups_only, &n, err, errlen);
		if (rc)
			return rc;
		total += n;
		off += ANA_DESC_LEN + 4u * (size_t)n;
	}
	/* No group described twice; a namespace is in one group (section 8.1.2). Sorted
	 * copies: a hostile controller may send 65535 groups. */
	struct owner *own = malloc((ngrps + total + 1) * sizeof(*own));
	if (!own)
		return -ENOMEM;
	struct owner *ns = own + ngrps, a, b;
	size_t k = 0;
	off = ANA_HDR_LEN;
	for (unsigned i = 0; i < ngrps; i++) {
		uint32_t grpid = get_le32(buf + off), n = get_le32(buf + off + 4);
		own[i] = (struct owner){ grpid, i };
		for (uint32_t j = 0; j < n; j++)
			ns[k++] =
				(struct owner){ get_le32(buf + off + ANA_DESC_LEN + 4 * j), grpid };
		off += ANA_DESC_LEN + 4u * (size_t)n;
	}
	int rc = 0;
	if (find_twice(own, ngrps, &a, &b)) {
		snprintf(err, errlen, "ANA log: descriptors %u and %u both describe group %u",
			 a.who < b.who ? a.who : b.who, a.who < b.who ? b.who : a.who, a.key);
		rc = -EPROTO;
	} else if (find_twice(ns, total, &a, &b)) {
		snprintf(err, errlen, "ANA log: NSID %u is in groups %u and %u", a.key, a.who,
			 b.who);
		rc = -EPROTO;
	}
	free(own);
	if (rc)
		return rc;

	/* One allocation: the log, its groups, then every NSID list. */
	size_t sz = sizeof(struct nvmf_ana_log) + ngrps * sizeof(struct nvmf_ana_group) +
		    total * sizeof(uint32_t);
	struct nvmf_ana_log *log = calloc(1, sz);
	if (!log)
		return -ENOMEM;
	log->chgcnt = get_le64(buf);
	log->nr_groups = (uint16_t)ngrps;
	log->groups = (struct nvmf_ana_group *)(log + 1);
	uint32_t *ids = (uint32_t *)(log->groups + ngrps);
	off = ANA_HDR_LEN;
	for (unsigned i = 0; i < ngrps; i++) {
		const uint8_t *d = buf + off;
		struct nvmf_ana_group *g = &log->groups[i];
		g->grpid = get_le32(d);
		g->nr_nsids = get_le32(d + 4);
		g->chgcnt = get_le64(d + 8);
		g->state = d[16] & 0x0f;
		g->nsids = ids;
		for (uint32_t j = 0; j < g->nr_nsids; j++)
			*ids++ = get_le32(d + ANA_DESC_LEN + 4 * j);
		off += ANA_DESC_LEN + 4u * (size_t)g->nr_nsids;
	}
	*out = log;
	return 0;
}

const struct nvmf_ana_group *nvmfh_ana_find(const struct nvmf_ana_log *log, uint32_t nsid,
					    uint32_t grpid)
{
	if (!log)
		return NULL;
	for (unsigned i = 0; nsid && i < log->nr_groups; i++) {
		const struct nvmf_ana_group *g = &log->groups[i];
		size_t lo = 0, hi = g->nr_nsids; /* ascending: binary search */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (g->nsids[mid] == nsid)
				return g;
			if (g->nsids[mid] < nsid)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (unsigned i = 0; grpid && i < log->nr_groups; i++)
		if (log->groups[i].grpid == grpid)
			return &log->groups[i];
	return NULL;
}

/* Read @len bytes of the log; when they span transfers, make sure they are of one
 * version: the header read again must have the same CHGCNT. */
static int read_consistent(struct nvmf_ctrl *c, bool groups_only, uint8_t *buf, size_t len)
{
	uint8_t lsp = groups_only ? NVME_LOG_ANA_LSP_RGO_GROUPS_ONLY :
				    NVME_LOG_ANA_LSP_RGO_NAMESPACES;
	for (unsigned t = 0; t < ANA_MAX_TRIES; t++) {
		int rc = nvmfh_get_log_page(c, NVME_LOG_LID_ANA, lsp, NVME_NSID_ALL, 0, buf,
					    (uint32_t)len);
		if (rc) {
			nvmfh_errf(c, "Get Log Page ANA (0Ch, %zu bytes): %s", len,
				   nvmf_strerror(rc));
			return rc;
		}
		if (len <= c->max_xfer)
			return 0;
		uint8_t hdr[ANA_HDR_LEN];
		rc = nvmfh_get_log_page(c, NVME_LOG_LID_ANA, lsp, NVME_NSID_ALL, 0, hdr,
					sizeof(hdr));
		if (rc) {
			nvmfh_errf(c, "Get Log Page ANA (0Ch, header): %s", nvmf_strerror(rc));
			return rc;
		}
		if (!memcmp(hdr, buf, 10)) /* CHGCNT and NGRPS */
			return 0;
	}
	nvmfh_errf(c, "ANA log: its Change Count moved during each of %u reads", ANA_MAX_TRIES);
	return -EAGAIN;
}

int nvmf_read_ana_log(struct nvmf_ctrl *c, bool groups_only, struct nvmf_ana_log **out)
{
	if (!c || !out)
		return -EINVAL;
	*out = NULL;
	char err[NVMFH_ERRMSG_MAX - 32];
	size_t len;
	int rc = nvmfh_ana_log_size(&c->id, groups_only, &len, err, sizeof(err));
	if (rc) {
		nvmfh_errf(c, "%s", err);
		return rc;
	}
	uint8_t *buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	rc = read_consistent(c, groups_only, buf, len);
	if (!rc) {
		rc = nvmfh_ana_log_decode(buf, len, &c->id, groups_only, out, err, sizeof(err));
		if (rc)
			nvmfh_errf(c, "%s", rc == -ENOMEM ? "out of memory" : err);
	}
	free(buf);
	return rc;
}

void nvmf_ana_log_free(struct nvmf_ana_log *log)
{
	free(log);
}

int nvmf_ns_ana_state(struct nvmf_ctrl *c, uint32_t nsid, uint8_t *state, uint32_t *grpid)
{
	if (!c || !nsid || nsid == NVME_NSID_ALL)
		return -EINVAL;
	struct nvmf_ana_log *log;
	int rc = nvmf_read_ana_log(c, false, &log);
	if (rc)
		return rc;
	const struct nvmf_ana_group *g = nvmfh_ana_find(log, nsid, 0);
	uint32_t anagrpid = 0;
	if (!g) {
		/* Not listed (or listed nowhere yet): the group Identify Namespace names. */
		struct nvmf_ns_info info;
		rc = nvmfh_ns_identify(c, nsid, &info, &anagrpid);
		if (!rc) {
			g = nvmfh_ana_find(log, 0, anagrpid);
			if (!g) {
				nvmfh_errf(c,
					   "namespace %u: its ANA group %u (Identify Namespace "
					   "ANAGRPID) is in no descriptor of the ANA log",
					   nsid, anagrpid);
				rc = -EPROTO;
			}
		}
	}
	if (!rc) {
		if (state)
			*state = g->state;
		if (grpid)
			*grpid = g->grpid;
	}
	nvmf_ana_log_free(log);
	return rc;
}
