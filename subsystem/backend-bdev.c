/* SPDX-License-Identifier: MIT */
/*
 * Block device backend (like nvmet's io-cmd-bdev.c, through io_uring): the device's
 * size and logical block size are the namespace's; data moves with O_DIRECT. The size is
 * read again when the target asks (device_size: target/namespace.c follows it). Also the
 * data path of the raw NVMe backend (backend-nvme.c). Opened exclusively (O_EXCL): refused
 * while mounted or claimed by another exclusive opener.
 */
#include "subsystem/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The device's discard granularity in bytes (sysfs queue/discard_granularity, 0 when it
 * has no discard or sysfs cannot tell), a partition's from its disk one directory up. */
static uint32_t discard_granularity(dev_t rdev)
{
	static const char *const fmt[] = {
		"/sys/dev/block/%u:%u/queue/discard_granularity",
		"/sys/dev/block/%u:%u/../queue/discard_granularity",
	};
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		char path[96];
		unsigned long v = 0;
		snprintf(path, sizeof(path), fmt[i], major(rdev), minor(rdev));
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		int n = fscanf(f, "%lu", &v);
		fclose(f);
		if (n == 1)
			return v > UINT32_MAX ? 0 : (uint32_t)v;
	}
	return 0;
}

/* Whether the device caches writes (sysfs queue/write_cache "write back"): then FLUSH
 * matters (the VWC bit). A partition's queue is its disk's, one directory up. When
 * sysfs cannot tell, assume a cache: an unneeded flush costs less than lost data. */
static bool has_write_cache(dev_t rdev)
{
	static const char *const fmt[] = {
		"/sys/dev/block/%u:%u/queue/write_cache",
		"/sys/dev/block/%u:%u/../queue/write_cache",
	};
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		char path[96], line[32] = "";
		snprintf(path, sizeof(path), fmt[i], major(rdev), minor(rdev));
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		bool ok = fgets(line, sizeof(line), f) != NULL;
		fclose(f);
		if (ok)
			return strncmp(line, "write through", 13) != 0;
	}
	return true;
}

static int bdev_open(struct nvmf_bdev *b, const struct nvmf_ns_config *cfg, char *err,
		     size_t errlen)
{
	const char *path = cfg->path;
	struct stat st;
	uint64_t bytes;
	int lbs;

	if (!path) {
		snprintf(err, errlen, "namespace %u: %s backend needs device.path", cfg->nsid,
			 b->ops->name);
		return -1;
	}
	/* Check the type before opening: opening with O_DIRECT may fail on a regular file
	 * in a way that would hide the real mistake. */
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s: not a block device", path);
		return -1;
	}
	/* O_EXCL claims the device as the kernel's exclusive openers do (a mount, md, LVM,
	 * another target): EBUSY while one holds it. */
	b->fd = nvmf_backend_open_fd(b, path, O_RDWR | O_EXCL, cfg->buffered, err, errlen);
	if (b->fd < 0) {
		if (errno == EBUSY)
			snprintf(err, errlen,
				 "%s is in use by another process or namespace (mounted, or "
				 "opened exclusively: see lsblk and fuser -v)",
				 path);
		return -1;
	}
	int rc = nvmf_backend_fd_size(b->fd, &bytes);
	if (rc < 0 || ioctl(b->fd, BLKSSZGET, &lbs) < 0) {
		snprintf(err, errlen, "%s: cannot read the device geometry: %s", path,
			 strerror(rc < 0 ? -rc : errno));
		goto fail;
	}
	if (cfg->block_size && cfg->block_size != (uint32_t)lbs) {
		snprintf(err, errlen, "%s: logical block size is %d, config says %u", path, lbs,
			 cfg->block_size);
		goto fail;
	}
	b->block_size = (uint32_t)lbs;
	b->size = bytes - bytes % b->block_size;
	if (b->size == 0) {
		snprintf(err, errlen, "%s: size %llu bytes is smaller than one block of %u bytes",
			 path, (unsigned long long)bytes, b->block_size);
		goto fail;
	}
	b->volatile_cache = has_write_cache(st.st_rdev);
	/* Hints for the host's I/O sizes, as nvmet's nvmet_bdev_set_limits reads them. */
	unsigned int pbs = 0, opt = 0;
	if (ioctl(b->fd, BLKPBSZGET, &pbs) == 0)
		b->write_granularity = pbs;
	if (ioctl(b->fd, BLKIOOPT, &opt) == 0)
		b->optimal_io = opt;
	b->discard_granularity = discard_granularity(st.st_rdev);
	return 0;

fail:
	close(b->fd);
	b->fd = -1;
	return -1;
}

const struct nvmf_bdev_ops nvmf_backend_bdev_ops = {
	.name = "bdev",
	.open = bdev_open,
	.close = nvmf_backend_fd_close,
	.submit = nvmf_backend_fd_submit,
	.device_size = nvmf_backend_fd_device_size,
};
