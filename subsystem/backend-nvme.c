/* SPDX-License-Identifier: MIT */
/*
 * Raw NVMe drive backend: data moves through the namespace's block device exactly as
 * for a bdev (backend-bdev.c); in addition the drive's own identity is read with
 * libnvme (Identify Controller and Identify Namespace admin passthrough on the
 * namespace fd) so the exported namespace can carry the drive's model, serial,
 * firmware, NGUID and EUI64 (NVMe Base 2.0, 5.17.2.1 and NVM Command Set 4.1.5.1).
 */
#include "subsystem/backend.h"

#include <errno.h>
#include <libnvme.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Names a failed libnvme call: rc > 0 is an NVMe status, rc < 0 an errno. */
static void identify_error(char *err, size_t errlen, const char *path, const char *what, int rc)
{
	if (rc > 0)
		snprintf(err, errlen, "%s: %s failed with NVMe status 0x%x", path, what,
			 (unsigned)rc);
	else
		snprintf(err, errlen, "%s: %s failed: %s", path, what, strerror(errno));
}

/* Copies the drive's identity into @b and checks that the in-use LBA format agrees with
 * the block size the kernel reports (they differ only if the drive was reformatted
 * behind the kernel's back, and then offsets would be wrong). */
static int read_identity(struct nvmf_bdev *b, const char *path, char *err, size_t errlen)
{
	struct nvme_id_ctrl ctrl;
	struct nvme_id_ns ns;
	__u32 nsid;
	int rc;

	if (nvme_get_nsid(b->fd, &nsid) < 0) {
		snprintf(err, errlen, "%s: not an NVMe namespace: %s", path, strerror(errno));
		return -1;
	}
	rc = nvme_identify_ctrl(b->fd, &ctrl);
	if (rc != 0) {
		identify_error(err, errlen, path, "Identify Controller", rc);
		return -1;
	}
	rc = nvme_identify_ns(b->fd, nsid, &ns);
	if (rc != 0) {
		identify_error(err, errlen, path, "Identify Namespace", rc);
		return -1;
	}

	/* ASCII, space padded, not NUL terminated in the Identify data. */
	memcpy(b->model, ctrl.mn, sizeof(ctrl.mn));
	b->model[sizeof(ctrl.mn)] = '\0';
	memcpy(b->serial, ctrl.sn, sizeof(ctrl.sn));
	b->serial[sizeof(ctrl.sn)] = '\0';
	memcpy(b->firmware, ctrl.fr, sizeof(ctrl.fr));
	b->firmware[sizeof(ctrl.fr)] = '\0';
	/* An all-zero NGUID/EUI64 means "not reported" (NVM Command Set 4.1.5.1). */
	memcpy(b->nguid, ns.nguid, sizeof(b->nguid));
	b->has_nguid = !all_zero(ns.nguid, sizeof(ns.nguid));
	memcpy(b->eui64, ns.eui64, sizeof(b->eui64));
	b->has_eui64 = !all_zero(ns.eui64, sizeof(ns.eui64));

	__u8 idx;
	nvme_id_ns_flbas_to_lbaf_inuse(ns.flbas, &idx);
	if (idx > ns.nlbaf || ns.lbaf[idx].ds < 9 || ns.lbaf[idx].ds > 31) {
		snprintf(err, errlen, "%s: Identify Namespace reports an invalid LBA format %u",
			 path, idx);
		return -1;
	}
	uint32_t lbads = 1u << ns.lbaf[idx].ds;
	if (lbads != b->block_size) {
		snprintf(err, errlen,
			 "%s: LBA format %u has %u-byte blocks, the block device "
			 "reports %u",
			 path, idx, lbads, b->block_size);
		return -1;
	}
	return 0;
}

static int nvme_backend_open(struct nvmf_bdev *b, const struct nvmf_ns_config *cfg, char *err,
			     size_t errlen)
{
	if (nvmf_backend_bdev_ops.open(b, cfg, err, errlen) < 0)
		return -1;
	if (read_identity(b, cfg->path, err, errlen) < 0) {
		close(b->fd);
		b->fd = -1;
		return -1;
	}
	return 0;
}

const struct nvmf_bdev_ops nvmf_backend_nvme_ops = {
	.name = "nvme",
	.open = nvme_backend_open,
	.close = nvmf_backend_fd_close,
	.submit = nvmf_backend_fd_submit,
	.device_size = nvmf_backend_fd_device_size,
};
