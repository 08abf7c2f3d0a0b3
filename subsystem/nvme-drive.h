/* SPDX-License-Identifier: MIT */
/*
 * A raw NVMe drive exported whole by a passthru subsystem (nvmetcli's
 * "passthru": {"device_path": "/dev/nvme0", ...}): its controller's char device for
 * admin commands (NVME_IOCTL_ADMIN64_CMD, synchronous: the target runs them off its poll
 * groups), and each namespace's generic char device /dev/ngXnY for I/O through io_uring
 * NVMe passthrough (IORING_OP_URING_CMD, NVME_URING_CMD_IO, Linux 5.19+; SQE128/CQE32,
 * subsystem/aio.h). The drive knows no fabrics: the target decides what passes and fixes
 * up what it answers (target/passthru-*.c).
 *
 * An ops table stands between the two so the tests can put an in-memory controller in
 * place of a drive (no build machine has one): nvmf_drive_open is the Linux one.
 */
#ifndef NVMF_SUBSYSTEM_NVME_DRIVE_H
#define NVMF_SUBSYSTEM_NVME_DRIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nvme/wire.h"
#include "subsystem/aio.h"

#define NVMF_DRIVE_MAX_NS 1024 /* namespaces a served drive may have (NSIDs 1..this) */

/* One active namespace of the drive, as its Identify Namespace says (host endian). */
struct nvmf_drive_ns {
	uint32_t nsid;      /* the drive's NSID; served under the same NSID */
	int fd;             /* its generic char device /dev/ngXnY (O_RDWR); -1 in a fake */
	char path[64];      /* "/dev/ng0n1"; "" in a fake */
	uint64_t nsze;      /* blocks */
	uint32_t lba_shift; /* log2 of the data size of the current LBA format */
	uint16_t ms;        /* metadata bytes per block of the current format (0: none) */
	bool extended;      /* FLBAS bit 4: metadata travels inside the data buffer (extended
			     * LBA), so a fabrics transport can carry it */
	uint8_t dps;        /* Identify Namespace DPS (protection information type, bits 2:0) */
	/* Not served, and why (one line, no newline: "nsid 2: 8 bytes of metadata in a
	 * separate buffer, which no fabrics transport carries"); "" when served. */
	char refused[160];
};

struct nvmf_drive;

/* What one I/O command's completion carries (NVMe Base 4.2.1). */
struct nvmf_drive_io {
	void (*done)(struct nvmf_drive_io *io, int err); /* err: 0 when the drive answered
			     * (its status in @status), or -errno when the command never
			     * reached it or was lost (-ETIMEDOUT, -EIO, -ENOMEM...) */
	void *ctx;                                       /* free for the caller */
	uint16_t status;        /* the drive's status field (nvme_status_t: SCT/SC, CRD, M, DNR);
			     * 0 = success */
	uint64_t result;        /* CQE dwords 0 and 1, host endian */
	struct nvmf_aio_op aio; /* the drive's use */
};

struct nvmf_drive_ops {
	/*
	 * admin - run one admin command and wait for it. @cmd as on the wire (little
	 * endian; its DPTR, MPTR and fused bits are ignored), @buf of @len bytes moving in
	 * the direction opcode bits 1:0 say (01b to the drive, 10b from it; 11b is refused
	 * with -EINVAL). At most @timeout_ms (0: the drive's default). Returns 0 with the
	 * drive's *@status (0 = success) and *@result (DW0 and DW1), or -errno when it
	 * could not be run: -ETIMEDOUT, -EINVAL, -EIO, -ENODEV (the drive went away).
	 * Blocks: never called on a poll group. Thread safe.
	 */
	int (*admin)(struct nvmf_drive *d, const struct nvme_sqe *cmd, void *buf, uint32_t len,
		     uint32_t timeout_ms, uint16_t *status, uint64_t *result);
	/*
	 * io_submit - queue one I/O command for namespace @ns on @aio (the calling poll
	 * group's ring), @buf of @len bytes (data, and extended-LBA metadata inline),
	 * direction from opcode bits 1:0. @cmd's NSID is replaced by @ns's; DPTR, MPTR and
	 * fused bits are ignored. Completes through io->done exactly once (inline in a
	 * fake). Returns 0, -EAGAIN (ring full: retry after the next poll, done not
	 * called), -EOPNOTSUPP (@aio's ring has no SQE128/CQE32: the kernel is older than
	 * 5.19) or aio->error. Several threads may submit at once, each with its own @aio.
	 */
	int (*io_submit)(struct nvmf_drive *d, const struct nvmf_drive_ns *ns, struct nvmf_aio *aio,
			 const struct nvme_sqe *cmd, void *buf, uint32_t len,
			 struct nvmf_drive_io *io);
	/* ns_open - after nvmf_drive_rescan found @ns (nsid and format filled): open what
	 * its I/O needs (the Linux drive: /dev/ngXnY into ns->fd and ns->path, and O_EXCL on
	 * its block device). 0, or -errno with a line in @err. NULL: nothing to open. */
	int (*ns_open)(struct nvmf_drive *d, struct nvmf_drive_ns *ns, char *err, size_t errlen);
	/* ns_close - undo ns_open (a namespace gone, or the drive closing). NULL: nothing. */
	void (*ns_close)(struct nvmf_drive *d, struct nvmf_drive_ns *ns);
	/* close - release what open took (fds, locks, priv); the namespaces are closed. */
	void (*close)(struct nvmf_drive *d);
};

/* An open drive. Fields are read-only once open (nvmf_drive_rescan rewrites ns[]). */
struct nvmf_drive {
	const struct nvmf_drive_ops *ops;
	char path[256];           /* the controller's char device, "/dev/nvme0" */
	char name[32];            /* "nvme0" */
	int fd;                   /* O_RDWR, flock(LOCK_EX) held while open; -1 in a fake */
	uint32_t io_timeout_ms;   /* how long an I/O command may take before the kernel
				    * aborts it (passthru io_timeout); 0: the driver's default.
				    * Set by the opener's caller before any I/O */
	uint32_t max_transfer;    /* bytes one command may move (the kernel's
				    * max_hw_sectors_kb and max_segments for a real drive) */
	uint8_t id_ctrl[4096];    /* Identify Controller as the drive answered it */
	uint8_t effects[4096];    /* Commands Supported and Effects log (05h); zeroes if the
				    * drive has none (LPA bit 1 clear) */
	bool has_effects;         /* the drive returned the effects log */
	struct nvmf_drive_ns *ns; /* active namespaces, ascending NSID, n_ns of them */
	size_t n_ns;
	void *priv; /* the implementation's */
};

/*
 * nvmf_drive_open - open the NVMe controller at @path (a char device such as /dev/nvme0;
 * a namespace's /dev/nvme0n1 or /dev/ng0n1 is refused naming the controller to give
 * instead), take it for this process (flock LOCK_EX | LOCK_NB on the char device, and
 * O_EXCL on each namespace's block device so nothing mounts it meanwhile), read Identify
 * Controller, the effects log and the active namespaces (nvmf_drive_rescan).
 * The Linux drive (subsystem/nvme-drive-linux.c), allocated with calloc.
 * Returns the drive, or NULL with one line in @err naming @path and the reason: missing,
 * not an NVMe controller's char device, in use ("/dev/nvme0n1 is mounted or held by
 * another process" / "/dev/nvme0 is exported by process N"), permission, or an admin
 * command the drive failed.
 */
struct nvmf_drive *nvmf_drive_open(const char *path, char *err, size_t errlen);

/*
 * nvmf_drive_load - fill @d (ops, path, name, fd, max_transfer, priv set by its opener)
 * from the drive itself through ops->admin: Identify Controller (CNS 01h), the effects
 * log when LPA bit 1 says it has one, then nvmf_drive_rescan. The generic half of every
 * open (subsystem/nvme-drive.c), the Linux drive's and the tests' in-memory one alike.
 * 0, or -errno with "<path>: <what failed>" in @err.
 */
int nvmf_drive_load(struct nvmf_drive *d, char *err, size_t errlen);

/*
 * nvmf_drive_rescan - re-read the active namespace list (CNS 02h) and each namespace's
 * Identify (CNS 00h) after a command that changed them (Format, Namespace Management,
 * ...): ns_close for namespaces gone, ns_open for new ones. A namespace whose format no
 * transport can carry stays listed with ns->refused set. Blocks (admin commands; the
 * Linux ns_open waits up to 2 s for udev to create a new /dev/ngXnY). 0, or -errno
 * with @err. Generic (subsystem/nvme-drive.c).
 */
int nvmf_drive_rescan(struct nvmf_drive *d, char *err, size_t errlen);

/* nvmf_drive_ns_find - @d's namespace @nsid, or NULL when it has none. */
const struct nvmf_drive_ns *nvmf_drive_ns_find(const struct nvmf_drive *d, uint32_t nsid);

/* nvmf_drive_close - ns_close of every namespace, ops->close, then free @d and its ns[].
 * NULL: nothing. */
void nvmf_drive_close(struct nvmf_drive *d);

/*
 * nvmf_drive_effects - the drive's effects log entry (NVMe Base 2.0 figure 210: CSUPP
 * bit 0, LBCC 1, NCC 2, NIC 3, CCC 4, CSE 18:16, UUID 19) for admin (@admin true) or I/O
 * opcode @opcode, host endian; 0 when the drive has no effects log or does not list it.
 */
uint32_t nvmf_drive_effects(const struct nvmf_drive *d, bool admin, uint8_t opcode);

#endif
