/* SPDX-License-Identifier: MIT */
/*
 * The generic half of a raw NVMe drive (subsystem/nvme-drive.h): what every opener (the
 * Linux drive, the tests' in-memory one) learns from the drive through ops->admin:
 * Identify Controller, the Commands Supported and Effects log, the active namespaces and
 * their formats. Nothing here touches a file descriptor.
 */
#include "subsystem/nvme-drive.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Admin commands of a load or rescan take the drive's default time. */
#define LOAD_TIMEOUT_MS 0

/* Runs admin command @opcode (reading @len bytes into @buf) with @nsid, CDW10 @cdw10 and
 * CDW11 @cdw11; 0, or -errno with "<path>: <what> failed: ..." in @err (a drive status
 * is -EIO). */
static int admin_read(struct nvmf_drive *d, const char *what, uint8_t opcode, uint32_t nsid,
		      uint32_t cdw10, uint32_t cdw11, void *buf, uint32_t len, char *err,
		      size_t errlen)
{
	struct nvme_sqe c = { .opcode = opcode };
	c.nsid = htole32(nsid);
	c.cdw10 = htole32(cdw10);
	c.cdw11 = htole32(cdw11);
	uint16_t status = 0;
	uint64_t result = 0;
	int rc = d->ops->admin(d, &c, buf, len, LOAD_TIMEOUT_MS, &status, &result);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s failed: %s", d->path, what, strerror(-rc));
		return rc;
	}
	if (status) {
		snprintf(err, errlen, "%s: %s failed: the drive answered status 0x%x", d->path,
			 what, status);
		return -EIO;
	}
	return 0;
}

/* Identify (NVMe Base 5.17): CNS in CDW10 bits 7:0. */
static int identify(struct nvmf_drive *d, const char *what, uint8_t cns, uint32_t nsid, void *buf,
		    char *err, size_t errlen)
{
	return admin_read(d, what, nvme_admin_identify, nsid, cns, 0, buf, 4096, err, errlen);
}

int nvmf_drive_load(struct nvmf_drive *d, char *err, size_t errlen)
{
	int rc = identify(d, "Identify Controller", NVME_IDENTIFY_CNS_CTRL, 0, d->id_ctrl, err,
			  errlen);
	if (rc < 0)
		return rc;
	const struct nvme_id_ctrl *id = (const struct nvme_id_ctrl *)d->id_ctrl;
	memset(d->effects, 0, sizeof(d->effects));
	d->has_effects = false;
	if (id->lpa & NVME_CTRL_LPA_CMD_EFFECTS) {
		/* Get Log Page (NVMe Base 5.16): CDW10 LID 7:0, NUMDL 31:16 (0's based dwords). */
		uint32_t numd = sizeof(d->effects) / 4 - 1;
		rc = admin_read(d, "Get Log Page Commands Supported and Effects",
				nvme_admin_get_log_page, 0xffffffff,
				NVME_LOG_LID_CMD_EFFECTS | (numd & 0xffff) << 16, numd >> 16,
				d->effects, sizeof(d->effects), err, errlen);
		if (rc < 0)
			return rc;
		d->has_effects = true;
	}
	return nvmf_drive_rescan(d, err, errlen);
}

/* The format of namespace @ns from its Identify Namespace @id (NVMe Base / NVM Command
 * Set 4.1.5.1: FLBAS bits 3:0 and 6:5 index lbaf[], bit 4 extended LBA); refused when
 * its metadata would travel in a separate buffer. */
static void read_format(struct nvmf_drive_ns *ns, const struct nvme_id_ns *id)
{
	unsigned idx = (id->flbas & NVME_NS_FLBAS_LOWER_MASK) | ((id->flbas >> 5) & 3u) << 4;
	ns->nsze = le64toh(id->nsze);
	ns->lba_shift = idx < 64 ? id->lbaf[idx].ds : 0;
	ns->ms = idx < 64 ? le16toh(id->lbaf[idx].ms) : 0;
	ns->extended = (id->flbas & NVME_NS_FLBAS_META_EXT) != 0;
	ns->dps = id->dps & 7;
	ns->refused[0] = '\0';
	if (idx > id->nlbaf || ns->lba_shift < 9 || ns->lba_shift > 16)
		snprintf(ns->refused, sizeof(ns->refused),
			 "nsid %u: LBA format %u (data size 2^%u bytes) is not 512 B to 64 KiB",
			 ns->nsid, idx, ns->lba_shift);
	else if (ns->ms && !ns->extended)
		snprintf(ns->refused, sizeof(ns->refused),
			 "nsid %u: %u bytes of metadata in a separate buffer, which no fabrics "
			 "transport carries",
			 ns->nsid, ns->ms);
}

/* The entry of @nsid in @v (@n of them), or NULL: a namespace still active keeps what
 * ns_open took (its fd) when found again. */
static struct nvmf_drive_ns *find_in(struct nvmf_drive_ns *v, size_t n, uint32_t nsid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].nsid == nsid)
			return &v[i];
	return NULL;
}

int nvmf_drive_rescan(struct nvmf_drive *d, char *err, size_t errlen)
{
	/* The active list (CNS 02h): ascending NSIDs above the NSID given, 0 ended; 1024 of
	 * them fill one page, which is our limit anyway. */
	__le32 *list = calloc(1024, sizeof(*list));
	struct nvme_id_ns *id = calloc(1, sizeof(*id));
	struct nvmf_drive_ns *v = calloc(NVMF_DRIVE_MAX_NS, sizeof(*v));
	bool *kept = calloc(d->n_ns + 1, sizeof(*kept));         /* d->ns[i] found again */
	bool *fresh = calloc(NVMF_DRIVE_MAX_NS, sizeof(*fresh)); /* v[i] opened here */
	int rc = -ENOMEM;
	size_t n = 0;
	if (!list || !id || !v || !kept || !fresh) {
		snprintf(err, errlen, "%s: out of memory", d->path);
		goto out;
	}
	rc = identify(d, "Identify Active Namespace ID list", NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0,
		      list, err, errlen);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < 1024 && list[i]; i++) {
		uint32_t nsid = le32toh(list[i]);
		if (nsid > NVMF_DRIVE_MAX_NS || (n && nsid <= v[n - 1].nsid))
			continue; /* beyond what we serve, or not ascending: ignored */
		char what[64];
		snprintf(what, sizeof(what), "Identify Namespace %u", nsid);
		rc = identify(d, what, NVME_IDENTIFY_CNS_NS, nsid, id, err, errlen);
		if (rc < 0)
			goto out;
		struct nvmf_drive_ns *ns = &v[n];
		struct nvmf_drive_ns *old = find_in(d->ns, d->n_ns, nsid);
		if (old) {
			*ns = *old; /* keeps its fd and path */
			kept[old - d->ns] = true;
		} else {
			ns->nsid = nsid;
			ns->fd = -1;
		}
		read_format(ns, id);
		if (!old && d->ops->ns_open) {
			rc = d->ops->ns_open(d, ns, err, errlen);
			if (rc < 0)
				goto out;
			fresh[n] = true;
		}
		n++;
	}
	/* Namespaces gone: closed. */
	for (size_t i = 0; i < d->n_ns; i++)
		if (!kept[i] && d->ops->ns_close)
			d->ops->ns_close(d, &d->ns[i]);
	free(d->ns);
	d->ns = v;
	d->n_ns = n;
	v = NULL;
	rc = 0;
out:
	/* Failed half way: the namespaces opened here are closed; d->ns stays as it was. */
	for (size_t i = 0; v && fresh && i < n; i++)
		if (fresh[i] && d->ops->ns_close)
			d->ops->ns_close(d, &v[i]);
	free(fresh);
	free(kept);
	free(v);
	free(id);
	free(list);
	return rc;
}

const struct nvmf_drive_ns *nvmf_drive_ns_find(const struct nvmf_drive *d, uint32_t nsid)
{
	for (size_t i = 0; i < d->n_ns; i++)
		if (d->ns[i].nsid == nsid)
			return &d->ns[i];
	return NULL;
}

void nvmf_drive_close(struct nvmf_drive *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_ns; i++)
		if (d->ops->ns_close)
			d->ops->ns_close(d, &d->ns[i]);
	free(d->ns);
	d->ns = NULL;
	d->n_ns = 0;
	if (d->ops->close)
		d->ops->close(d);
	free(d);
}

uint32_t nvmf_drive_effects(const struct nvmf_drive *d, bool admin, uint8_t opcode)
{
	if (!d->has_effects)
		return 0;
	const struct nvme_cmd_effects_log *log = (const struct nvme_cmd_effects_log *)d->effects;
	return le32toh(admin ? log->acs[opcode] : log->iocs[opcode]);
}
