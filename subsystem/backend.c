/* SPDX-License-Identifier: MIT */
/*
 * Backend front end: picks the implementation for a namespace (inferring it from
 * device.path when the config gives no kind), checks every request against the
 * namespace geometry before an implementation sees it, and holds the io_uring data
 * path shared by the fd backends (file, bdev, nvme).
 */
#include "nvme/wire.h"
#include "subsystem/backend.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Largest single read/write handed to the kernel; longer requests continue. */
#define FD_RW_MAX (1u << 30)

static const struct nvmf_bdev_ops *ops_for(enum nvmf_backend_kind kind)
{
	switch (kind) {
	case NVMF_BACKEND_FILE:
		return &nvmf_backend_file_ops;
	case NVMF_BACKEND_BDEV:
		return &nvmf_backend_bdev_ops;
	case NVMF_BACKEND_NVME:
		return &nvmf_backend_nvme_ops;
	case NVMF_BACKEND_RAM:
		return &nvmf_backend_ram_ops;
	case NVMF_BACKEND_NULL:
		return &nvmf_backend_null_ops;
	case NVMF_BACKEND_RBD:
		return &nvmf_backend_rbd_ops;
	case NVMF_BACKEND_AUTO:
	case NVMF_BACKEND_PASSTHRU: /* opened from its drive: nvmf_bdev_open_passthru */
		break;
	}
	return NULL;
}

bool nvmf_backend_is_nvme_name(const char *name)
{
	if (strncmp(name, "nvme", 4) != 0)
		return false;
	const char *p = name + 4;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != 'n' || *p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == '\0';
}

/* Kind of @cfg->path when the config names none: regular file -> file, NVMe namespace
 * block device -> nvme (symlinks such as /dev/disk/by-id are resolved), other block
 * device -> bdev, a missing path with nvmf_create -> file. */
static int infer_kind(const struct nvmf_ns_config *cfg, enum nvmf_backend_kind *kind, char *err,
		      size_t errlen)
{
	struct stat st;
	if (!cfg->path) {
		snprintf(err, errlen, "namespace %u: no device.path and no nvmf_backend",
			 cfg->nsid);
		return -1;
	}
	if (stat(cfg->path, &st) < 0) {
		if (errno == ENOENT && cfg->create) {
			*kind = NVMF_BACKEND_FILE;
			return 0;
		}
		snprintf(err, errlen, "%s: %s", cfg->path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode)) {
		*kind = NVMF_BACKEND_FILE;
		return 0;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file or block device", cfg->path);
		return -1;
	}
	char real[PATH_MAX];
	const char *name = realpath(cfg->path, real) ? real : cfg->path;
	const char *slash = strrchr(name, '/');
	*kind = nvmf_backend_is_nvme_name(slash ? slash + 1 : name) ? NVMF_BACKEND_NVME :
								      NVMF_BACKEND_BDEV;
	return 0;
}

struct nvmf_bdev *nvmf_bdev_open(const struct nvmf_ns_config *cfg, char *err, size_t errlen)
{
	enum nvmf_backend_kind kind = cfg->kind;
	if (kind == NVMF_BACKEND_AUTO && infer_kind(cfg, &kind, err, errlen) < 0)
		return NULL;
	const struct nvmf_bdev_ops *ops = ops_for(kind);
	if (!ops) {
		snprintf(err, errlen, "namespace %u: unknown backend kind %d", cfg->nsid,
			 (int)kind);
		return NULL;
	}
	struct nvmf_bdev *b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "%s: out of memory", cfg->path ? cfg->path : ops->name);
		return NULL;
	}
	b->ops = ops;
	b->kind = kind;
	b->fd = -1;
	if (ops->open(b, cfg, err, errlen) < 0) {
		free(b);
		return NULL;
	}
	return b;
}

int nvmf_bdev_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	io->done_bytes = 0;
	if (io->op == NVMF_BDEV_NVME_CMD) {
		/* A host's raw command: only a drive can run it, and the drive checks it. */
		if (b->kind != NVMF_BACKEND_PASSTHRU) {
			io->done(io, -EOPNOTSUPP);
			return 0;
		}
	} else if (io->op == NVMF_BDEV_COMPARE_AND_WRITE && !b->caw_atomic) {
		io->done(io, -EOPNOTSUPP);
		return 0;
	} else if (io->op != NVMF_BDEV_FLUSH) {
		/* -EINVAL unless @io fits the namespace: a known op, offset and length whole
		 * blocks inside the size, a READ or WRITE with a buffer, block aligned under
		 * O_DIRECT. So the kernel never sees a request that would fail half way or
		 * touch memory it should not. */
		uint64_t bs = b->block_size;
		uint64_t size =
			__atomic_load_n(&b->size, __ATOMIC_ACQUIRE); /* a resize may move it */
		bool caw = io->op == NVMF_BDEV_COMPARE_AND_WRITE;
		bool rw = io->op == NVMF_BDEV_READ || io->op == NVMF_BDEV_WRITE || caw;
		uint64_t cb = b->caw_boundary;
		if ((!rw && io->op != NVMF_BDEV_WRITE_ZEROES && io->op != NVMF_BDEV_DISCARD) ||
		    io->offset % bs || io->len % bs || io->offset > size ||
		    io->len > size - io->offset ||
		    (rw && ((io->len && !io->buf) || (b->direct && (uintptr_t)io->buf % bs))) ||
		    (caw && (!io->len || !io->cmp ||
			     (cb && io->offset / cb != (io->offset + io->len - 1) / cb)))) {
			io->done(io, -EINVAL);
			return 0;
		}
		if (io->len == 0) {
			io->done(io, 0); /* nothing to move; no system call */
			return 0;
		}
	}
	return b->ops->submit(b, aio, io);
}

int nvmf_bdev_resize(struct nvmf_bdev *b, uint64_t size, char *err, size_t errlen)
{
	if (!b->ops->resize) {
		snprintf(err, errlen,
			 "a \"%s\" namespace cannot be resized (ram, null and file can)%s",
			 b->ops->name,
			 b->ops->device_size ? "; it takes its device's size: leave the size out" :
					       "");
		return -ENOTSUP;
	}
	if (size == 0 || size % b->block_size) {
		snprintf(err, errlen,
			 "size %llu bytes is not a positive multiple of the block size (%u)",
			 (unsigned long long)size, b->block_size);
		return -EINVAL;
	}
	return b->ops->resize(b, size, err, errlen);
}

int nvmf_bdev_device_size(struct nvmf_bdev *b, uint64_t *bytes)
{
	return b->ops->device_size ? b->ops->device_size(b, bytes) : -ENOTSUP;
}

bool nvmf_bdev_space_warning(const struct nvmf_bdev *b, char *msg, size_t len)
{
	uint64_t size = __atomic_load_n(&b->size, __ATOMIC_ACQUIRE);
	if (b->kind == NVMF_BACKEND_RAM) {
		long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
		if (pages <= 0 || page <= 0 || size <= (uint64_t)pages * (uint64_t)page)
			return false;
		snprintf(msg, len,
			 "ram namespace of %llu bytes is larger than this machine's memory (%llu "
			 "bytes): once hosts fill it the machine runs out of memory, and the OOM "
			 "killer stops the target with every subsystem",
			 (unsigned long long)size,
			 (unsigned long long)((uint64_t)pages * (uint64_t)page));
		return true;
	}
	struct stat st;
	struct statvfs vfs;
	if (b->kind != NVMF_BACKEND_FILE || b->fd < 0 || fstat(b->fd, &st) < 0 ||
	    fstatvfs(b->fd, &vfs) < 0)
		return false;
	uint64_t have = (uint64_t)st.st_blocks * 512; /* st_blocks: 512-byte units */
	uint64_t free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (size <= have || size - have <= free_bytes)
		return false;
	snprintf(msg, len,
		 "thin file: %llu of its %llu bytes are not allocated yet, and its file "
		 "system has %llu bytes free: writes will fail with ENOSPC (hosts get Capacity "
		 "Exceeded) once it fills",
		 (unsigned long long)(size - have), (unsigned long long)size,
		 (unsigned long long)free_bytes);
	return true;
}

struct nvmf_bdev *nvmf_bdev_hold(struct nvmf_bdev *b)
{
	b->refs++;
	return b;
}

void nvmf_bdev_close(struct nvmf_bdev *b)
{
	if (!b)
		return;
	if (b->refs) {
		b->refs--;
		return;
	}
	b->ops->close(b);
	free(b);
}

/* ---- shared fd data path ---- */

int nvmf_backend_block_size(const struct nvmf_ns_config *cfg, const char *name, uint32_t *bs,
			    char *err, size_t errlen)
{
	uint32_t v = cfg->block_size ? cfg->block_size : 512;
	if (v < 512 || v > 65536 || (v & (v - 1))) {
		snprintf(err, errlen, "%s: block size %u is not a power of two from 512 to 65536",
			 name, v);
		return -1;
	}
	*bs = v;
	return 0;
}

void nvmf_bdev_note(struct nvmf_bdev *b, const char *fmt, ...)
{
	size_t n = strlen(b->note);
	if (n + 2 >= sizeof(b->note))
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(b->note + n, sizeof(b->note) - n - 1, fmt, ap);
	va_end(ap);
	if (w < 0)
		b->note[n] = '\0';
	else
		strcat(b->note, "\n");
}

int nvmf_backend_open_fd(struct nvmf_bdev *b, const char *path, int flags, bool buffered, char *err,
			 size_t errlen)
{
	int fd;
	bool *direct = &b->direct;
	*direct = false;
	if (!buffered) {
		fd = open(path, flags | O_DIRECT | O_CLOEXEC);
		if (fd >= 0) {
			*direct = true;
			return fd;
		}
		if (errno != EINVAL) {
			int e = errno;
			snprintf(err, errlen, "%s: %s", path, strerror(e));
			errno = e; /* the caller may tell EBUSY apart */
			return -1;
		}
		nvmf_bdev_note(b, "%s: O_DIRECT not supported here, using buffered I/O", path);
	}
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
	}
	return fd;
}

int nvmf_backend_lock_holder(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return 0;
	FILE *f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's line has "->"
	 * after the number, an OFD lock pid -1. Device numbers are hex. */
	char line[256];
	int pid = 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		char type[16];
		unsigned maj, min;
		unsigned long ino;
		int p;
		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", type, &p, &maj, &min, &ino) ==
			    5 &&
		    !strcmp(type, "FLOCK") && p > 0 && maj == major(st.st_dev) &&
		    min == minor(st.st_dev) && ino == (unsigned long)st.st_ino)
			pid = p;
	}
	fclose(f);
	return pid;
}

void nvmf_backend_in_use(const char *path, int pid, char *err, size_t errlen)
{
	if (pid == (int)getpid())
		snprintf(err, errlen,
			 "%s is in use by this process (pid %d): another of its namespaces serves "
			 "it, or is closing after its last command",
			 path, pid);
	else if (pid > 0)
		snprintf(err, errlen, "%s is in use by another process (pid %d)", path, pid);
	else
		snprintf(err, errlen, "%s is in use by another process", path);
}

static int rw_queue(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io);

/* Queues the next step of @io from inside a completion. The completion just reaped
 * freed an in-flight slot, so only a full SQ can refuse: submitting what is queued
 * empties it. Returns 0 or -errno. */
static int requeue(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io,
		   int (*queue)(struct nvmf_bdev *, struct nvmf_aio *, struct nvmf_bdev_io *))
{
	int rc = queue(b, aio, io);
	if (rc == -EAGAIN && nvmf_aio_flush(aio) == 0)
		rc = queue(b, aio, io);
	return rc;
}

static void zero_tail(struct nvmf_bdev_io *io)
{
	memset((char *)io->buf + io->done_bytes, 0, io->len - io->done_bytes);
	io->done_bytes = io->len;
}

static void rw_done(struct nvmf_aio_op *op, int res)
{
	struct nvmf_bdev_io *io = container_of(op, struct nvmf_bdev_io, aio);
	struct nvmf_bdev *b = op->ctx;
	bool file_read = io->op == NVMF_BDEV_READ && b->kind == NVMF_BACKEND_FILE;

	if (res < 0) {
		io->done(io, res);
		return;
	}
	if (res == 0) {
		/* End of file inside the namespace (sparse or shrunk file): zeroes. On a
		 * device, no progress means something is wrong. */
		if (!file_read) {
			io->done(io, -EIO);
			return;
		}
		zero_tail(io);
	}
	io->done_bytes += (uint64_t)res;
	if (io->done_bytes < io->len && file_read && b->direct && io->done_bytes % b->block_size) {
		/* A direct read that stopped mid-block hit EOF; continuing from an unaligned
		 * offset would fail with EINVAL. */
		zero_tail(io);
	}
	if (io->done_bytes >= io->len) {
		io->done(io, 0);
		return;
	}
	int rc = requeue(b, op->aio, io, rw_queue);
	if (rc < 0)
		io->done(io, rc == -EAGAIN ? -EIO : rc);
}

static int rw_queue(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	uint64_t left = io->len - io->done_bytes;
	uint32_t n = left > FD_RW_MAX ? FD_RW_MAX : (uint32_t)left;
	char *p = (char *)io->buf + io->done_bytes;
	uint64_t off = io->offset + io->done_bytes;
	io->aio.done = rw_done;
	io->aio.ctx = b;
	if (io->op == NVMF_BDEV_READ)
		return nvmf_aio_read(aio, b->fd, p, n, off, &io->aio);
	return nvmf_aio_write(aio, b->fd, p, n, off, &io->aio);
}

static void fsync_done(struct nvmf_aio_op *op, int res)
{
	struct nvmf_bdev_io *io = container_of(op, struct nvmf_bdev_io, aio);
	io->done(io, res < 0 ? res : 0);
}

/*
 * Zeroing strategies in order of preference. DISCARD prefers PUNCH_HOLE (files:
 * deallocate; block devices: Write Zeroes with unmap, no fallback to writing zero
 * buffers); WRITE_ZEROES prefers ZERO_RANGE (files: allocated zeroes; block devices:
 * zeroout that may write zero buffers). Both read back as zeroes, so each may stand in
 * for the other when the filesystem or device lacks one (tmpfs has no ZERO_RANGE).
 * BLKDISCARD is never used: it does not promise zeroes, which DLFEAT 001b does.
 * io->done_bytes counts the strategies tried (it is unused for these ops otherwise).
 */
#define ZERO_PUNCH (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
#define ZERO_RANGE (FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE)

static int zero_queue(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io);

static void zero_done(struct nvmf_aio_op *op, int res)
{
	struct nvmf_bdev_io *io = container_of(op, struct nvmf_bdev_io, aio);
	struct nvmf_bdev *b = op->ctx;
	if (res != -EOPNOTSUPP) {
		io->done(io, res < 0 ? res : 0);
		return;
	}
	io->done_bytes++;
	if (io->done_bytes < 2) {
		int rc = requeue(b, op->aio, io, zero_queue);
		if (rc < 0)
			io->done(io, rc == -EAGAIN ? -EIO : rc);
		return;
	}
	if (b->kind == NVMF_BACKEND_FILE) {
		io->done(io, -EOPNOTSUPP);
		return;
	}
	/* Old kernels without fallocate on block devices: BLKZEROOUT writes zeroes
	 * synchronously, stalling this thread for the duration. Acceptable as a last
	 * resort; modern kernels (4.9+) never get here. */
	uint64_t range[2] = { io->offset, io->len };
	io->done(io, ioctl(b->fd, BLKZEROOUT, range) < 0 ? -errno : 0);
}

static int zero_queue(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	bool punch_first = io->op == NVMF_BDEV_DISCARD;
	bool punch = io->done_bytes == 0 ? punch_first : !punch_first;
	io->aio.done = zero_done;
	io->aio.ctx = b;
	return nvmf_aio_fallocate(aio, b->fd, punch ? ZERO_PUNCH : ZERO_RANGE, io->offset, io->len,
				  &io->aio);
}

/* READ/WRITE of an in-memory file: copies, done here. Same results as rw_done(): a read
 * past the end of the file reads zeroes, a write that makes no progress fails. */
static void rw_inline(struct nvmf_bdev *b, struct nvmf_bdev_io *io)
{
	while (io->done_bytes < io->len) {
		char *p = (char *)io->buf + io->done_bytes;
		uint64_t left = io->len - io->done_bytes;
		size_t n = left > FD_RW_MAX ? FD_RW_MAX : (size_t)left;
		off_t off = (off_t)(io->offset + io->done_bytes);
		ssize_t r = io->op == NVMF_BDEV_READ ? pread(b->fd, p, n, off) :
						       pwrite(b->fd, p, n, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			io->done(io, -errno);
			return;
		}
		if (r == 0) {
			if (io->op != NVMF_BDEV_READ) {
				io->done(io, -EIO);
				return;
			}
			zero_tail(io);
			break;
		}
		io->done_bytes += (uint64_t)r;
	}
	io->done(io, 0);
}

int nvmf_backend_fd_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	switch (io->op) {
	case NVMF_BDEV_READ:
	case NVMF_BDEV_WRITE:
		if (b->in_memory) {
			rw_inline(b, io);
			return 0;
		}
		return rw_queue(b, aio, io);
	case NVMF_BDEV_FLUSH:
		io->aio.done = fsync_done;
		io->aio.ctx = b;
		return nvmf_aio_fsync(aio, b->fd, &io->aio);
	case NVMF_BDEV_WRITE_ZEROES:
	case NVMF_BDEV_DISCARD:
		return zero_queue(b, aio, io);
	case NVMF_BDEV_NVME_CMD:          /* nvmf_bdev_submit lets it reach passthru only */
	case NVMF_BDEV_COMPARE_AND_WRITE: /* and this the caw_atomic ones */
		break;
	}
	io->done(io, -EINVAL);
	return 0;
}

int nvmf_backend_fd_size(int fd, uint64_t *bytes)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode)) {
		*bytes = (uint64_t)st.st_size;
		return 0;
	}
	if (!S_ISBLK(st.st_mode))
		return -ENOTTY;
	return ioctl(fd, BLKGETSIZE64, bytes) < 0 ? -errno : 0;
}

int nvmf_backend_fd_device_size(struct nvmf_bdev *b, uint64_t *bytes)
{
	return nvmf_backend_fd_size(b->fd, bytes);
}

void nvmf_backend_fd_close(struct nvmf_bdev *b)
{
	if (b->fd < 0)
		return;
	/* A backend knows no target, and nvmf_bdev_close runs where none is at hand (a
	 * namespace freed with its subsystem): a line of the log without a target's levels,
	 * which an error needs none of (every level writes errors). */
	if (fsync(b->fd) < 0)
		nvmf_logger_write(NULL, NVMF_LOGC_BACKEND, NVMF_LOG_ERROR,
				  "%s backend: fsync at close failed: %s", b->ops->name,
				  strerror(errno));
	close(b->fd);
	b->fd = -1;
}
