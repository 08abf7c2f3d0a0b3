/* SPDX-License-Identifier: MIT */
/*
 * File backend: a regular file is the namespace (like nvmet's io-cmd-file.c). Created
 * sparse when nvmf_create asks, O_DIRECT where the filesystem supports it, and sized to
 * whole blocks: a tail shorter than one block is not exposed. Locked (flock LOCK_EX) while
 * open, so no other process or namespace writes it beside us.
 */
#include "subsystem/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

/* Creates @path sparse with @size bytes. Returns 0 or -1 with @err set. */
static int create_file(const char *path, uint64_t size, char *err, size_t errlen)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		snprintf(err, errlen, "%s: cannot size to %llu bytes: %s", path,
			 (unsigned long long)size, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

/* Direct I/O needs offsets aligned to what the filesystem asks (statx DIOALIGN, Linux
 * 6.1+). A block size finer than that (512-byte blocks on a 4Kn disk) would fail every
 * read, so such a file is served buffered instead. Returns false to go buffered. */
static bool direct_fits(struct nvmf_bdev *b, uint32_t block_size, const char *path)
{
#ifdef STATX_DIOALIGN
	struct statx stx;
	if (statx(b->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN)) {
		if (stx.stx_dio_offset_align == 0 || stx.stx_dio_offset_align > block_size ||
		    stx.stx_dio_mem_align > 4096) {
			nvmf_bdev_note(b,
				       "%s: direct I/O needs %u-byte alignment, more than the "
				       "block size %u; using buffered I/O",
				       path, stx.stx_dio_offset_align, block_size);
			return false;
		}
	}
#else
	(void)b;
	(void)block_size;
	(void)path;
#endif
	return true;
}

static int file_open(struct nvmf_bdev *b, const struct nvmf_ns_config *cfg, char *err,
		     size_t errlen)
{
	const char *path = cfg->path;
	bool created = false;
	struct stat st;

	if (!path) {
		snprintf(err, errlen, "namespace %u: file backend needs device.path", cfg->nsid);
		return -1;
	}
	if (nvmf_backend_block_size(cfg, path, &b->block_size, err, errlen) < 0)
		return -1;
	if (stat(path, &st) < 0) {
		if (errno != ENOENT || !cfg->create) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		if (cfg->size_bytes == 0) {
			snprintf(err, errlen, "%s: nvmf_create needs nvmf_size_bytes", path);
			return -1;
		}
		if (create_file(path, cfg->size_bytes, err, errlen) < 0)
			return -1;
		created = true;
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}

	b->fd = nvmf_backend_open_fd(b, path, O_RDWR, cfg->buffered, err, errlen);
	if (b->fd < 0)
		goto fail;
	if (b->direct && !direct_fits(b, b->block_size, path)) {
		close(b->fd);
		b->fd = nvmf_backend_open_fd(b, path, O_RDWR, true, err, errlen);
		if (b->fd < 0)
			goto fail;
	}
	/* One writer per file: a second target, or a second namespace of this one, would
	 * interleave writes with ours. The lock goes with the fd when it closes. */
	if (flock(b->fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			nvmf_backend_in_use(path, nvmf_backend_lock_holder(b->fd), err, errlen);
		else
			snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(b->fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	uint64_t size = (uint64_t)st.st_size;
	if (cfg->size_bytes && size < cfg->size_bytes) {
		/* Growing someone's file is only done when the config says it may write the
		 * file's shape (nvmf_create); otherwise a typo in the size would silently
		 * extend a disk image. */
		if (!cfg->create) {
			snprintf(err, errlen,
				 "%s: file is %llu bytes, smaller than nvmf_size_bytes "
				 "%llu (set nvmf_create to grow it)",
				 path, (unsigned long long)size,
				 (unsigned long long)cfg->size_bytes);
			goto fail;
		}
		if (ftruncate(b->fd, (off_t)cfg->size_bytes) < 0) {
			snprintf(err, errlen, "%s: cannot grow to %llu bytes: %s", path,
				 (unsigned long long)cfg->size_bytes, strerror(errno));
			goto fail;
		}
		size = cfg->size_bytes;
	}
	b->size = size - size % b->block_size;
	if (b->size == 0) {
		snprintf(err, errlen, "%s: size %llu bytes is smaller than one block of %u bytes",
			 path, (unsigned long long)size, b->block_size);
		goto fail;
	}
	/* Writes land in the page cache or the disk's cache: FLUSH is needed. */
	b->volatile_cache = true;
	/* The file system allocates, punches holes and prefers I/O in its blocks. */
	if (st.st_blksize > 0 && (uint64_t)st.st_blksize <= UINT32_MAX)
		b->write_granularity = b->discard_granularity = b->optimal_io =
			(uint32_t)st.st_blksize;
	struct statfs sfs;
	if (fstatfs(b->fd, &sfs) == 0 && (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)) {
		b->in_memory = true;
		nvmf_bdev_note(b, "%s: file in memory (tmpfs): reads and writes served inline",
			       path);
	}
	b->created = created;
	return 0;

fail:
	if (b->fd >= 0) {
		close(b->fd);
		b->fd = -1;
	}
	if (created)
		unlink(path);
	return -1;
}

/* The file takes the new size; a write in flight past a new, smaller end may extend it
 * again, which only leaves unused bytes after the namespace. */
static int file_resize(struct nvmf_bdev *b, uint64_t size, char *err, size_t errlen)
{
	if (size < b->size)
		__atomic_store_n(&b->size, size, __ATOMIC_RELEASE); /* no new I/O past it */
	if (ftruncate(b->fd, (off_t)size) < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot resize the file to %llu bytes: %s",
			 (unsigned long long)size, strerror(e));
		return -e;
	}
	__atomic_store_n(&b->size, size, __ATOMIC_RELEASE);
	return 0;
}

const struct nvmf_bdev_ops nvmf_backend_file_ops = {
	.name = "file",
	.open = file_open,
	.close = nvmf_backend_fd_close,
	.submit = nvmf_backend_fd_submit,
	.resize = file_resize,
};
