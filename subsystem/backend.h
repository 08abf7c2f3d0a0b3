/* SPDX-License-Identifier: MIT */
/*
 * Backends: the storage behind a namespace. A backend sees byte offsets and one
 * contiguous buffer, never SGLs or NVMe commands. It completes every I/O exactly once
 * through io->done, possibly before submit returns (RAM, null).
 */
#ifndef NVMF_SUBSYSTEM_BACKEND_H
#define NVMF_SUBSYSTEM_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "subsystem/aio.h"
#include "subsystem/config.h"
#include "subsystem/nvme-drive.h"

enum nvmf_bdev_op {
	NVMF_BDEV_READ,
	NVMF_BDEV_WRITE,
	NVMF_BDEV_FLUSH,             /* make completed writes durable */
	NVMF_BDEV_WRITE_ZEROES,      /* range reads back as zeroes afterwards */
	NVMF_BDEV_DISCARD,           /* deallocate; reads back as zeroes (DLFEAT 001b) */
	NVMF_BDEV_NVME_CMD,          /* passthru backend only: the NVMe I/O command io->cmd as
				 * the host sent it, buf/len its data (others: -EOPNOTSUPP) */
	NVMF_BDEV_COMPARE_AND_WRITE, /* backends with caw_atomic only (others: -EOPNOTSUPP):
				 * write buf (len bytes) at offset only if the range holds
				 * io->cmp (len bytes), in one step no other writer of the
				 * storage can come between, whatever process it is in;
				 * -EILSEQ when it does not (nothing written). The range must
				 * not cross a multiple of caw_boundary */
};

struct nvmf_bdev_io;
/* @status: 0, or -errno (-EIO on a short transfer). */
typedef void (*nvmf_bdev_done_fn)(struct nvmf_bdev_io *io, int status);

/* One backend request. offset and len in bytes, multiples of the block size. */
struct nvmf_bdev_io {
	enum nvmf_bdev_op op;
	uint64_t offset;
	uint64_t len;
	void *buf;       /* READ/WRITE/COMPARE_AND_WRITE: len bytes; others: unused */
	const void *cmp; /* COMPARE_AND_WRITE: the len bytes the range must hold */
	nvmf_bdev_done_fn done;
	void *ctx;              /* free for the caller */
	struct nvmf_aio_op aio; /* backend's use */
	uint64_t done_bytes;    /* backend's use (short-transfer continuation) */
	/* NVMF_BDEV_NVME_CMD: the command (little endian, as received; offset unused), and
	 * the drive's answer once done runs with 0: its status field (0 success) and CQE
	 * dwords 0-1. The other ops on a passthru backend set nvme_status too when the drive
	 * failed them (done gets -EIO). */
	const struct nvme_sqe *cmd;
	uint16_t nvme_status;
	uint64_t nvme_result;
	struct nvmf_drive_io dio; /* passthru backend's use */
	uint8_t dsm_range[16];    /* passthru backend's use: a DISCARD's Dataset Management
				   * range (NVMe NVM Command Set 3.3.3: context attributes,
				   * blocks, starting LBA; little endian), which the drive reads
				   * while the command runs */
	struct nvmf_aio *ring;    /* passthru backend's use: where a request the drive takes
				   * in several commands queues the next one */
};

struct nvmf_bdev;

/* Who hears that a backend's device changed under it (an rbd image resized by a client
 * elsewhere): the target embeds this in its own record and sets bdev->watch. @fn runs on
 * whatever thread the backend learns it on (librbd's), never after nvmf_bdev_close
 * returned; it must only post the news to the thread that acts on it. */
struct nvmf_bdev_watch {
	void (*fn)(struct nvmf_bdev_watch *w);
};

struct nvmf_bdev_ops {
	const char *name; /* "file", "bdev", "nvme", "ram", "null", "passthru", "rbd" */
	/* Open per @cfg. Fill size/block_size (and identity for nvme). Returns 0 or -1 with
	 * a message naming the path in @err. */
	int (*open)(struct nvmf_bdev *b, const struct nvmf_ns_config *cfg, char *err,
		    size_t errlen);
	void (*close)(struct nvmf_bdev *b);
	/* Queue @io on @aio (or complete it inline). Returns 0, or -EAGAIN (ring full: retry
	 * later; io->done not called), or aio->error when @aio can no longer submit
	 * (subsystem/aio.h: io->done not called; the caller fails the I/O with it). Several
	 * threads may submit to one backend at once, each with its own @aio: backends keep
	 * no per-I/O state outside @io. */
	int (*submit)(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io);
	/* Grow or shrink to @size bytes (a positive multiple of block_size) while I/O runs:
	 * an I/O already past the new end may fail (-EINVAL) but never touches freed memory.
	 * Sets b->size (atomic store). 0 or -errno with @err. NULL: not resizable. */
	int (*resize)(struct nvmf_bdev *b, uint64_t size, char *err, size_t errlen);
	/* The size in bytes its device has now (bdev, nvme: the device decides, and an
	 * lvextend or a drive's resize changes it under the open fd); a cheap ioctl (rbd:
	 * rbd_get_size, a cluster round trip after the image changed). 0 or -errno. Does not
	 * change b->size. Called by the main group only (Identify, a watch notice), never
	 * per I/O. NULL: the namespace decides its size (file, ram, null). */
	int (*device_size)(struct nvmf_bdev *b, uint64_t *bytes);
};

/* An open backend. */
struct nvmf_bdev {
	const struct nvmf_bdev_ops *ops;
	enum nvmf_backend_kind kind;
	int fd;                /* -1 for ram/null */
	uint64_t size;         /* bytes, a multiple of block_size (atomic: resize) */
	uint32_t block_size;   /* bytes: 512 or 4096 */
	bool volatile_cache;   /* needs FLUSH for durability (files, most devices) */
	bool caw_atomic;       /* takes NVMF_BDEV_COMPARE_AND_WRITE: atomic against every
			      * writer of the storage, not only this target's (rbd: several
			      * gateways on one image). Others: the target's LBA lock makes
			      * Compare and Write atomic among its own commands */
	uint32_t caw_boundary; /* bytes (a power of two): a COMPARE_AND_WRITE range may not
				* cross a multiple of it (rbd: the stripe unit, one object);
				* 0 none. The target does a range that does cross as the
				* others do */
	bool direct;           /* opened with O_DIRECT: buffers must be block aligned */
	bool created;          /* file: this open created it (nvmf_create); the target records
			      * that (subsystem/created.h) and clears it */
	bool in_memory;        /* file on tmpfs/ramfs: reads and writes are page-cache
				      * copies that never wait for a disk, done inline in submit
				      * (io_uring would hand each one to a worker thread) */
	/* I/O hints, bytes, 0 = unknown (one logical block); Identify Namespace reports them
	 * as NPWG/NPWA, NPDG/NPDA and NOWS (target/identify-cs.c): */
	uint32_t write_granularity;   /* the smallest write that needs no read-modify-write:
				      * a device's physical block (BLKPBSZGET), a file
				      * system's block */
	uint32_t discard_granularity; /* the smallest deallocation that frees space: the
				      * device's discard_granularity, the file system's
				      * block, a RAM page */
	uint32_t optimal_io;          /* the optimal write size: the device's BLKIOOPT, the
				      * file system's preferred I/O size (st_blksize) */
	void *mem;                    /* ram: the data */
	uint64_t mem_reserved;        /* ram: bytes of address space reserved at mem (the most
				      * it can grow to) */
	/* Identity read from a raw NVMe drive (nvme backend), space padded, else empty. */
	char model[41], serial[21], firmware[9];
	uint8_t nguid[16], eui64[8];
	bool has_nguid, has_eui64;
	/* passthru: the drive and the namespace it serves (subsystem/nvme-drive.h); the
	 * subsystem owns the drive and outlives its namespaces. */
	struct nvmf_drive *drive;
	uint32_t drive_nsid;
	struct nvmf_drive_ns *drive_ns; /* passthru: its own copy of the drive's namespace as
				      * opened (geometry; fd a dup of the drive's, closed with
				      * the backend), so that I/O never reads drive->ns, which a
				      * rescan rewrites on the admin worker */
	/* What the open chose that the operator should hear of (O_DIRECT refused, direct
	 * I/O alignment, a file in memory), one line each, '\n' ended; "" when nothing. A
	 * backend knows no target, so the target logs it (component backend) once the
	 * namespace is open: nvmf_ns_log_notes, target/namespace.h. */
	char note[320];
	void *priv; /* the implementation's own state (rbd: cluster, image, watch) */
	struct nvmf_bdev_watch *watch; /* told when the device changes (atomic; NULL: no one
					* listens); set by the target once it serves it */
	unsigned refs; /* holders beyond the one that opened it (nvmf_bdev_hold): a RAM
			* namespace's memory kept while it is disabled (subsystem.h). Main
			* group only */
};

/* nvmf_bdev_note - append one line (printf @fmt, no newline) to b->note; a line that does
 * not fit is cut. */
void nvmf_bdev_note(struct nvmf_bdev *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * nvmf_bdev_open_passthru - a backend for namespace @nsid of @drive (kind
 * NVMF_BACKEND_PASSTHRU): size and block size from the drive's Identify Namespace; READ,
 * WRITE, FLUSH, WRITE_ZEROES, DISCARD become the NVMe commands (Read, Write, Flush, Write
 * Zeroes, DSM deallocate) and NVMF_BDEV_NVME_CMD passes a host's command as it is.
 * Returns NULL with "<drive path> nsid N: <reason>" in @err (no such namespace, a format
 * refused: drive->ns[].refused).
 */
struct nvmf_bdev *nvmf_bdev_open_passthru(struct nvmf_drive *drive, uint32_t nsid, char *err,
					  size_t errlen);

/*
 * nvmf_bdev_open - open the backend @cfg describes (kind AUTO: regular file -> file,
 * block device named nvme* -> nvme, other block device -> bdev).
 * Returns a backend or NULL with a message in @err naming the path and the reason
 * (missing, not a file or device, size not a multiple of the block size, too small).
 */
struct nvmf_bdev *nvmf_bdev_open(const struct nvmf_ns_config *cfg, char *err, size_t errlen);

/* nvmf_bdev_submit - queue @io. Returns 0, -EAGAIN or the I/O context's error (see
 * ops->submit). */
int nvmf_bdev_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io);

/* nvmf_bdev_resize - grow or shrink @b to @size bytes (see ops->resize). 0, or -ENOTSUP
 * (bdev, nvme: the device decides its size, nvmf_bdev_device_size reads it), -EINVAL (not a multiple of the block size),
 * -ENOSPC (ram past its reservation), -errno from the file, each with @err. */
int nvmf_bdev_resize(struct nvmf_bdev *b, uint64_t size, char *err, size_t errlen);

/* nvmf_bdev_device_size - the size in bytes @b's device has now into *@bytes (see
 * ops->device_size): 0, -ENOTSUP (file, ram, null: no device decides their size) or
 * -errno of the query. b->size is left alone: the caller decides whether to follow. */
int nvmf_bdev_device_size(struct nvmf_bdev *b, uint64_t *bytes);

/*
 * nvmf_bdev_space_warning - whether @b may be promised more than the machine has: a file
 * (thin: created sparse, or with holes) whose unallocated part (its size minus the
 * blocks it has) is more than the free space of its file system, so writes would fail
 * with ENOSPC once it fills; a RAM namespace larger than the machine's physical memory
 * (sysconf _SC_PHYS_PAGES), which filling would run out of memory, and the OOM killer
 * would take the whole target with it. True with one line (no newline) in @msg giving
 * the sizes in bytes (the caller names the namespace and its path); false when neither
 * holds or the file system cannot tell.
 */
bool nvmf_bdev_space_warning(const struct nvmf_bdev *b, char *msg, size_t len);

/* nvmf_bdev_hold - one more holder of @b: the next nvmf_bdev_close only drops it.
 * Returns @b. Main group only. */
struct nvmf_bdev *nvmf_bdev_hold(struct nvmf_bdev *b);

/* nvmf_bdev_close - drop one holder (nvmf_bdev_hold); the last one closes and frees @b
 * (a file backend fsyncs first). */
void nvmf_bdev_close(struct nvmf_bdev *b);

/* ---- shared by the backend implementations (subsystem/backend*.c), not for callers ---- */

/* One ops table per kind (subsystem/backend-<kind>.c). */
extern const struct nvmf_bdev_ops nvmf_backend_file_ops, nvmf_backend_bdev_ops,
	nvmf_backend_nvme_ops, nvmf_backend_ram_ops, nvmf_backend_null_ops,
	nvmf_backend_passthru_ops, nvmf_backend_rbd_ops;

/* nvmf_bdev_rbd_closing - rbd namespaces whose close outlived its bound (5 s: a cluster
 * that does not answer) and still runs on a thread of its own. A program must not exit
 * through exit() while one does (librados' destructors would run under it): the daemon
 * uses _exit then. */
unsigned nvmf_bdev_rbd_closing(void);

/* nvmf_backend_is_nvme_name - whether a block device's name (no directory) is a whole
 * NVMe namespace, "nvme<digits>n<digits>": kind inference picks the nvme backend for it.
 * The controller's char device "nvme0" and partitions "nvme0n1p1" do not match. */
bool nvmf_backend_is_nvme_name(const char *name);

/* nvmf_backend_block_size - the logical block size @cfg asks for (0 = 512) in *@bs,
 * bytes. Returns 0, or -1 with "<name>: block size N is not a power of two from 512 to
 * 65536" in @err. */
int nvmf_backend_block_size(const struct nvmf_ns_config *cfg, const char *name, uint32_t *bs,
			    char *err, size_t errlen);

/*
 * nvmf_backend_open_fd - open @path with @flags for @b, adding O_DIRECT unless @buffered.
 * When the filesystem refuses O_DIRECT (EINVAL, e.g. tmpfs) it says so in b->note and
 * opens buffered. Sets b->direct. Returns the fd, or -1 with "<path>: <strerror>" in @err
 * and errno kept.
 */
int nvmf_backend_open_fd(struct nvmf_bdev *b, const char *path, int flags, bool buffered, char *err,
			 size_t errlen);

/*
 * nvmf_backend_fd_submit - submit for the fd backends (file, bdev, nvme) through io_uring:
 * READ/WRITE continue short transfers (a file read at EOF yields zeroes), FLUSH is fsync,
 * WRITE_ZEROES/DISCARD are fallocate (ZERO_RANGE / PUNCH_HOLE, each falling back to the
 * other, block devices last to the synchronous BLKZEROOUT ioctl). @io is already checked
 * by nvmf_bdev_submit(). Returns 0, -EAGAIN or aio->error (see ops->submit).
 */
int nvmf_backend_fd_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io);

/* nvmf_backend_fd_size - the size in bytes of what @fd opens into *@bytes: a block
 * device's (BLKGETSIZE64), a regular file's (st_size). 0, or -errno (-ENOTTY for anything
 * else). The bdev and nvme backends' device_size. */
int nvmf_backend_fd_size(int fd, uint64_t *bytes);

/* nvmf_backend_fd_device_size - ops->device_size of the bdev and nvme backends:
 * nvmf_backend_fd_size of b->fd. */
int nvmf_backend_fd_device_size(struct nvmf_bdev *b, uint64_t *bytes);

/* nvmf_backend_lock_holder - the pid of the process holding a flock(2) lock on the file
 * @fd opens (found in /proc/locks by device and inode), or 0 when it cannot be told (no
 * such lock, an OFD lock, /proc not mounted). For the message of a refused open. */
int nvmf_backend_lock_holder(int fd);

/* nvmf_backend_in_use - "PATH is in use by another process (pid N)" (no pid when @pid is
 * 0; "... by this process" when @pid is our own: another of its namespaces, or one still
 * closing after its last command) into @err. */
void nvmf_backend_in_use(const char *path, int pid, char *err, size_t errlen);

/* nvmf_backend_fd_close - fsync (push out the volatile cache) and close b->fd. */
void nvmf_backend_fd_close(struct nvmf_bdev *b);

#endif
