/* SPDX-License-Identifier: MIT */
/*
 * Admin commands (NVMe Base 2.0 section 5): Identify, Get Log Page (split by MDTS),
 * Get/Set Features, and the namespace helpers built on Identify. All blocking, one at a
 * time on the admin queue (nvmfh_admin holds the admin lock).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"

int nvmf_identify(struct nvmf_ctrl *c, uint8_t cns, uint32_t nsid, void *buf)
{
	if (!c || !buf)
		return -EINVAL;
	struct nvme_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = nvme_admin_identify;
	sqe.nsid = htole32(nsid);
	sqe.cdw10 = htole32(cns);
	return nvmfh_admin(c, &sqe, buf, NVME_IDENTIFY_DATA_SIZE, false, NULL);
}

int nvmf_get_log_page(struct nvmf_ctrl *c, uint8_t lid, uint32_t nsid, uint64_t offset, void *buf,
		      uint32_t len)
{
	return nvmfh_get_log_page(c, lid, 0, nsid, offset, buf, len);
}

int nvmfh_get_log_page(struct nvmf_ctrl *c, uint8_t lid, uint8_t lsp, uint32_t nsid,
		       uint64_t offset, void *buf, uint32_t len)
{
	if (!c || (len && !buf))
		return -EINVAL;
	/* NUMD counts dwords and LPO must be dword aligned (NVMe Base 5.16). */
	if ((offset & 3) || (len & 3)) {
		nvmfh_errf(c,
			   "Get Log Page 0x%02x: offset %llu and length %u must be multiples of 4",
			   lid, (unsigned long long)offset, len);
		return -EINVAL;
	}
	uint32_t chunk_max = c->max_xfer ? c->max_xfer : NVMFH_MAX_XFER;
	uint32_t done = 0;
	while (done < len) {
		uint32_t n = len - done < chunk_max ? len - done : chunk_max;
		uint32_t numd = n / 4 - 1; /* 0's based */
		uint64_t lpo = offset + done;
		struct nvme_sqe sqe;
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = nvme_admin_get_log_page;
		sqe.nsid = htole32(nsid);
		/* LID bits 7:0, LSP bits 14:8, RAE (bit 15) clear, NUMDL bits 31:16. */
		sqe.cdw10 = htole32(lid | (uint32_t)(lsp & 0x7f) << 8 | (numd & 0xffff) << 16);
		sqe.cdw11 = htole32(numd >> 16); /* NUMDU */
		sqe.cdw12 = htole32((uint32_t)lpo);
		sqe.cdw13 = htole32((uint32_t)(lpo >> 32));
		int rc = nvmfh_admin(c, &sqe, (uint8_t *)buf + done, n, false, NULL);
		if (rc)
			return rc;
		done += n;
	}
	return 0;
}

static int features(struct nvmf_ctrl *c, uint8_t opcode, uint8_t fid, uint32_t nsid, uint32_t cdw11,
		    uint32_t *result)
{
	if (!c)
		return -EINVAL;
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = opcode;
	sqe.nsid = htole32(nsid);
	sqe.cdw10 = htole32(fid);
	sqe.cdw11 = htole32(cdw11);
	int rc = nvmfh_admin(c, &sqe, NULL, 0, false, &cqe);
	if (!rc && result)
		*result = le32toh(cqe.result.u32);
	return rc;
}

int nvmf_get_features(struct nvmf_ctrl *c, uint8_t fid, uint32_t nsid, uint32_t cdw11,
		      uint32_t *result)
{
	return features(c, nvme_admin_get_features, fid, nsid, cdw11, result);
}

int nvmf_set_features(struct nvmf_ctrl *c, uint8_t fid, uint32_t nsid, uint32_t cdw11,
		      uint32_t *result)
{
	return features(c, nvme_admin_set_features, fid, nsid, cdw11, result);
}

/* The UUID of the Namespace Identification Descriptor list (CNS 03h), if any. */
static void ns_uuid(struct nvmf_ctrl *c, uint32_t nsid, uint8_t uuid[16])
{
	uint8_t *list = malloc(NVME_IDENTIFY_DATA_SIZE);
	if (!list)
		return;
	if (!nvmf_identify(c, NVME_IDENTIFY_CNS_NS_DESC_LIST, nsid, list)) {
		for (size_t off = 0; off + 4 <= NVME_IDENTIFY_DATA_SIZE;) {
			uint8_t nidt = list[off], nidl = list[off + 1];
			if (!nidt || off + 4 + nidl > NVME_IDENTIFY_DATA_SIZE)
				break;
			if (nidt == NVME_NIDT_UUID && nidl == NVME_NIDT_UUID_LEN)
				memcpy(uuid, list + off + 4, 16);
			off += 4 + nidl;
		}
	}
	free(list);
}

int nvmf_ns_info(struct nvmf_ctrl *c, uint32_t nsid, struct nvmf_ns_info *out)
{
	return nvmfh_ns_identify(c, nsid, out, NULL);
}

int nvmfh_ns_identify(struct nvmf_ctrl *c, uint32_t nsid, struct nvmf_ns_info *out,
		      uint32_t *anagrpid)
{
	if (!c || !out || !nsid || nsid == 0xffffffffu)
		return -EINVAL;
	struct nvme_id_ns *id = malloc(sizeof(*id));
	if (!id)
		return -ENOMEM;
	int rc = nvmf_identify(c, NVME_IDENTIFY_CNS_NS, nsid, id);
	if (rc)
		goto out;
	/* An inactive NSID reads as zeroes (NVMe Base 5.17.2.1). */
	if (!id->nsze) {
		rc = nvme_generic(NVME_SC_INVALID_NS) | NVME_SC_DNR;
		nvmfh_errf(c, "namespace %u is not active", nsid);
		goto out;
	}
	/* FLBAS bits 3:0 and, for more than 16 formats, bits 6:5 as the high bits. */
	unsigned fmt = (id->flbas & NVME_NS_FLBAS_LOWER_MASK) |
		       ((id->flbas & NVME_NS_FLBAS_HIGHER_MASK) >> 1);
	unsigned ds = fmt < 64 ? id->lbaf[fmt].ds : 0;
	if (ds < 9 || ds > 16) {
		rc = -EPROTO;
		nvmfh_errf(c, "namespace %u: unsupported LBA data size 2^%u", nsid, ds);
		goto out;
	}
	memset(out, 0, sizeof(*out));
	out->nsid = nsid;
	out->nsze = le64toh(id->nsze);
	out->block_size = 1u << ds;
	memcpy(out->nguid, id->nguid, 16);
	memcpy(out->eui64, id->eui64, 8);
	if (anagrpid)
		*anagrpid = le32toh(id->anagrpid);
	ns_uuid(c, nsid, out->uuid);
out:
	free(id);
	return rc;
}

int nvmf_active_ns(struct nvmf_ctrl *c, uint32_t *nsids, size_t max, size_t *n)
{
	if (!c || !n || (max && !nsids))
		return -EINVAL;
	*n = 0;
	__le32 *list = malloc(NVME_IDENTIFY_DATA_SIZE);
	if (!list)
		return -ENOMEM;
	uint32_t from = 0;
	int rc = 0;
	/* CNS 02h lists up to 1024 active NSIDs greater than the one given, ascending. */
	while (*n < max) {
		rc = nvmf_identify(c, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, from, list);
		if (rc)
			break;
		unsigned i;
		for (i = 0; i < 1024 && *n < max; i++) {
			uint32_t id = le32toh(list[i]);
			if (!id)
				break;
			nsids[(*n)++] = id;
			from = id;
		}
		if (i < 1024 || from >= 0xfffffffeu)
			break;
	}
	free(list);
	return rc;
}
