/* SPDX-License-Identifier: MIT */
/*
 * The Linux drive behind subsystem/nvme-drive.h: a raw NVMe controller's char device
 * /dev/nvmeX for admin commands (NVME_IOCTL_ADMIN64_CMD, synchronous), each namespace's
 * generic char device /dev/ngXnY for I/O through io_uring NVMe passthrough
 * (NVME_URING_CMD_IO, linux/nvme_ioctl.h; Linux 5.19+), like the kernel's nvmet passthru.
 *
 * Which device is which comes from sysfs: /sys/dev/{char,block}/MAJ:MIN/subsystem is
 * class "nvme" for a controller, "nvme-generic" for a namespace's char device, "block"
 * for its block device. A controller's namespaces are the block devices in its device
 * directory /sys/class/nvme/nvmeX: "nvmeXnH" (named from the controller, or with
 * multipath from its subsystem), or the hidden path "nvmeAcXnH" of a multipath head
 * "nvmeAnH"; each has an "nsid" attribute. The char device of the namespace shares the
 * trailing H (the kernel's head instance): "ngXnH" under the controller, "ngAnH" for a
 * multipath head (drivers/nvme/host/core.c nvme_add_ns_cdev, multipath.c).
 *
 * Taking the drive: flock(LOCK_EX | LOCK_NB) on the controller fd (another exporter
 * holds it), and O_EXCL on every served namespace's block device for as long as it is
 * served, so no file system mounts it and no one else opens it exclusively meanwhile.
 */
#include "subsystem/nvme-drive.h"

#include <assert.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nvme_ioctl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "subsystem/backend.h"

/* Bytes one command may move when no namespace's queue limits can be read (a drive
 * without namespaces yet): 128 KiB, what every NVMe drive's MDTS allows in practice. */
#define DRIVE_MAX_TRANSFER_DEFAULT (128u * 1024)
/* And at most this, whatever the drive allows: the target's buffers are per command. */
#define DRIVE_MAX_TRANSFER_CAP     (1024u * 1024)
/* How long ns_open waits for udev to create a new namespace's device nodes. */
#define DRIVE_UDEV_WAIT_MS         2000

/* The O_EXCL fd of one served namespace's block device. */
struct held_bdev {
	uint32_t nsid;
	int fd;
};

struct linux_drive {
	int instance; /* X of nvmeX */
	struct held_bdev *held;
	size_t n_held, cap_held;
};

/* printf into @buf; false when it did not fit (a path too long to be ours). */
__attribute__((format(printf, 3, 4))) static bool pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

/* readlink @path's last component into @out ("" on failure). */
static void link_base(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	out[0] = '\0';
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	const char *slash = strrchr(target, '/');
	if (!pathf(out, len, "%s", slash ? slash + 1 : target))
		out[0] = '\0';
}

/* The first line of sysfs file @path into @out (no newline). 0 or -errno. */
static int read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int rc = fgets(out, (int)len, f) ? 0 : -EIO;
	fclose(f);
	if (!rc)
		out[strcspn(out, "\n")] = '\0';
	return rc;
}

static int read_u64(const char *path, uint64_t *v)
{
	char line[64], *end;
	int rc = read_line(path, line, sizeof(line));
	if (rc)
		return rc;
	errno = 0;
	unsigned long long x = strtoull(line, &end, 10);
	if (errno || end == line)
		return -EINVAL;
	*v = x;
	return 0;
}

/* The controller ("nvme0") a namespace's device directory @sysdir belongs to: its
 * "device" link names the controller, or for a multipath head the subsystem, whose
 * directory lists its controllers. "" when it cannot be told. */
static void ns_controller(const char *sysdir, char *ctrl, size_t len)
{
	char p[PATH_MAX], dev[64];
	snprintf(p, sizeof(p), "%s/device", sysdir);
	link_base(p, dev, sizeof(dev));
	ctrl[0] = '\0';
	unsigned x;
	char tail;
	if (sscanf(dev, "nvme%u%c", &x, &tail) == 1) {
		pathf(ctrl, len, "%s", dev);
		return;
	}
	if (strncmp(dev, "nvme-subsys", 11) != 0)
		return;
	snprintf(p, sizeof(p), "/sys/class/nvme-subsystem/%s", dev);
	DIR *d = opendir(p);
	if (!d)
		return;
	struct dirent *e;
	while (!ctrl[0] && (e = readdir(d)))
		if (sscanf(e->d_name, "nvme%u%c", &x, &tail) == 1)
			pathf(ctrl, len, "%s", e->d_name);
	closedir(d);
}

/* "<path> is a namespace ...: give its controller /dev/nvmeX" into @err. */
static void refuse_namespace(const char *path, const char *sysdir, char *err, size_t errlen)
{
	char ctrl[64];
	ns_controller(sysdir, ctrl, sizeof(ctrl));
	if (ctrl[0])
		snprintf(err, errlen,
			 "%s is an NVMe namespace, not a controller: a passthru subsystem exports "
			 "the whole drive, give its controller's char device /dev/%s",
			 path, ctrl);
	else
		snprintf(err, errlen,
			 "%s is an NVMe namespace, not a controller: a passthru subsystem exports "
			 "the whole drive, give its controller's char device (/dev/nvmeX)",
			 path);
}

/*
 * Checks that @path is an NVMe controller's char device; its name ("nvme0") into @name.
 * 0, or -errno with "<path>: ..." in @err: -ENOENT missing, -ENODEV not a controller (a
 * namespace is named with its controller).
 */
static int check_controller(const char *path, char *name, size_t namelen, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		int e = errno; /* strerror, as every other backend's open and the docs say */
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	char sysdir[96], p[PATH_MAX], subsys[64];
	const char *what = S_ISREG(st.st_mode)  ? "a regular file" :
			   S_ISDIR(st.st_mode)  ? "a directory" :
			   S_ISBLK(st.st_mode)  ? "a block device" :
			   S_ISCHR(st.st_mode)  ? "a char device" :
			   S_ISFIFO(st.st_mode) ? "a FIFO" :
			   S_ISSOCK(st.st_mode) ? "a socket" :
						  "not a device";
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		snprintf(sysdir, sizeof(sysdir), "/sys/dev/%s/%u:%u",
			 S_ISCHR(st.st_mode) ? "char" : "block", major(st.st_rdev),
			 minor(st.st_rdev));
		snprintf(p, sizeof(p), "%s/subsystem", sysdir);
		link_base(p, subsys, sizeof(subsys));
		if (S_ISCHR(st.st_mode) && !strcmp(subsys, "nvme")) {
			snprintf(p, sizeof(p), "%s", sysdir);
			link_base(p, name, namelen);
			unsigned x;
			char tail;
			if (sscanf(name, "nvme%u%c", &x, &tail) == 1)
				return 0;
		}
		if (S_ISCHR(st.st_mode) && !strcmp(subsys, "nvme-generic")) {
			refuse_namespace(path, sysdir, err, errlen);
			return -ENODEV;
		}
		if (S_ISBLK(st.st_mode)) {
			char blk[64];
			link_base(sysdir, blk, sizeof(blk));
			/* A partition's directory is inside its disk's. */
			snprintf(p, sizeof(p), "%s/partition", sysdir);
			if (!access(p, F_OK))
				snprintf(sysdir + strlen(sysdir), sizeof(sysdir) - strlen(sysdir),
					 "/..");
			if (!strncmp(blk, "nvme", 4)) {
				refuse_namespace(path, sysdir, err, errlen);
				return -ENODEV;
			}
		}
	}
	snprintf(err, errlen, "%s is not an NVMe controller's char device (it is %s)", path, what);
	return -ENODEV;
}

/*
 * Bytes one command may move through namespace device directory @sysdir's queue: the
 * kernel maps the user buffer page by page (each page a segment unless it bounces an
 * unaligned buffer), and a buffer not page aligned touches one page more than its
 * length needs, so (max_segments - 1) pages always fit; max_hw_sectors_kb bounds the
 * size. At most DRIVE_MAX_TRANSFER_CAP; 0 when the queue cannot be read.
 */
static uint32_t queue_max_transfer(const char *sysdir)
{
	char p[PATH_MAX];
	uint64_t kb, segs;
	if (!pathf(p, sizeof(p), "%s/queue/max_hw_sectors_kb", sysdir) || read_u64(p, &kb) ||
	    kb == 0)
		return 0;
	if (!pathf(p, sizeof(p), "%s/queue/max_segments", sysdir) || read_u64(p, &segs) || segs < 2)
		return 0;
	uint64_t bytes = kb * 1024;
	if ((segs - 1) * 4096 < bytes)
		bytes = (segs - 1) * 4096;
	return bytes > DRIVE_MAX_TRANSFER_CAP ? DRIVE_MAX_TRANSFER_CAP : (uint32_t)bytes;
}

/* Whether @e names a namespace disk in a controller's directory: "nvmeAnH" or the hidden
 * path "nvmeAcXnH". *@a = A, *@h = H, *@path_disk for the second form. */
static bool ns_entry(const char *e, unsigned *a, unsigned *h, bool *path_disk)
{
	unsigned x;
	int n = 0;
	if (sscanf(e, "nvme%uc%un%u%n", a, &x, h, &n) == 3 && e[n] == '\0') {
		*path_disk = true;
		return true;
	}
	n = 0;
	if (sscanf(e, "nvme%un%u%n", a, h, &n) == 2 && e[n] == '\0') {
		*path_disk = false;
		return true;
	}
	return false;
}

/* The smallest max transfer of the controller @name's namespaces (they share its
 * limits), or the default when it has none. */
static uint32_t drive_max_transfer(const char *name)
{
	char dir[96], p[PATH_MAX];
	snprintf(dir, sizeof(dir), "/sys/class/nvme/%s", name);
	uint32_t best = 0;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			unsigned a, h;
			bool path_disk;
			if (!ns_entry(e->d_name, &a, &h, &path_disk))
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			uint32_t mt = queue_max_transfer(p);
			if (mt && (!best || mt < best))
				best = mt;
		}
		closedir(d);
	}
	return best ? best : DRIVE_MAX_TRANSFER_DEFAULT;
}

/* Waits up to DRIVE_UDEV_WAIT_MS for @path to appear. */
static bool wait_for_node(const char *path)
{
	for (int ms = 0; ms < DRIVE_UDEV_WAIT_MS; ms += 50) {
		if (!access(path, F_OK))
			return true;
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	return !access(path, F_OK);
}

/* "(holders: dm-0 md1)" of block device @blk, or "" when it lists none. */
static void holders(const char *blk, char *out, size_t len)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/sys/block/%s/holders", blk);
	out[0] = '\0';
	DIR *d = opendir(p);
	if (!d)
		return;
	size_t used = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && used < len) {
			int n = snprintf(out + used, len - used, "%s%s",
					 used ? " " : " (holders: ", e->d_name);
			used += n > 0 ? (size_t)n : 0;
		}
	closedir(d);
	if (used && used + 1 < len)
		snprintf(out + used, len - used, ")");
}

/* The kernel's passthrough command for @cmd (little endian, as on the wire) to NSID
 * @nsid: its dwords in host order, @buf of @len bytes (none when NULL), @timeout_ms (0:
 * the driver's default); flags, metadata and result zero. Both the admin ioctl and the
 * io_uring command take it: struct nvme_uring_cmd is its first 72 bytes. */
static void kernel_cmd(struct nvme_passthru_cmd64 *c, const struct nvme_sqe *cmd, uint32_t nsid,
		       void *buf, uint32_t len, uint32_t timeout_ms)
{
	*c = (struct nvme_passthru_cmd64){
		.opcode = cmd->opcode,
		.nsid = nsid,
		.cdw2 = le32toh(cmd->cdw2),
		.cdw3 = le32toh(cmd->cdw3),
		.addr = buf ? (uint64_t)(uintptr_t)buf : 0,
		.data_len = buf ? len : 0,
		.cdw10 = le32toh(cmd->cdw10),
		.cdw11 = le32toh(cmd->cdw11),
		.cdw12 = le32toh(cmd->cdw12),
		.cdw13 = le32toh(cmd->cdw13),
		.cdw14 = le32toh(cmd->cdw14),
		.cdw15 = le32toh(cmd->cdw15),
		.timeout_ms = timeout_ms,
	};
}
static_assert(offsetof(struct nvme_uring_cmd, timeout_ms) ==
			      offsetof(struct nvme_passthru_cmd64, timeout_ms) &&
		      sizeof(struct nvme_uring_cmd) + 8 == sizeof(struct nvme_passthru_cmd64),
	      "nvme_uring_cmd is nvme_passthru_cmd64 without its result");

static int drive_admin(struct nvmf_drive *d, const struct nvme_sqe *cmd, void *buf, uint32_t len,
		       uint32_t timeout_ms, uint16_t *status, uint64_t *result)
{
	if ((cmd->opcode & 3) == 3)
		return -EINVAL; /* bidirectional: the ioctl has one buffer */
	struct nvme_passthru_cmd64 c;
	kernel_cmd(&c, cmd, le32toh(cmd->nsid), buf, len, timeout_ms);
	int rc = ioctl(d->fd, NVME_IOCTL_ADMIN64_CMD, &c);
	if (rc < 0) {
		/* EINTR: the kernel cancelled the command (it timed out and the controller
		 * was reset, or it is going away): nvme_execute_rq's NVME_REQ_CANCELLED. */
		if (errno == EINTR)
			return -ETIMEDOUT;
		if (errno == ENXIO)
			return -ENODEV;
		return -errno;
	}
	/* > 0: the CQE's status field without the phase bit (the kernel's
	 * nvme_req(rq)->status, le16 status >> 1), the layout of nvme_status_t. */
	*status = (uint16_t)(rc & 0x7fff);
	*result = c.result;
	return 0;
}

static void uring_done(struct nvmf_aio_op *op, int res)
{
	struct nvmf_drive_io *io = container_of(op, struct nvmf_drive_io, aio);
	io->result = op->res2;
	io->status = res > 0 ? (uint16_t)(res & 0x7fff) : 0;
	/* -EINTR: cancelled by the kernel (timeout and reset), as in drive_admin. */
	io->done(io, res >= 0 ? 0 : res == -EINTR ? -ETIMEDOUT : res);
}

static int drive_io_submit(struct nvmf_drive *d, const struct nvmf_drive_ns *ns,
			   struct nvmf_aio *aio, const struct nvme_sqe *cmd, void *buf,
			   uint32_t len, struct nvmf_drive_io *io)
{
	if ((cmd->opcode & 3) == 3)
		return -EINVAL;
	if (ns->fd < 0)
		return -ENODEV;
	/* The uring command is the ioctl's without its trailing result (linux/nvme_ioctl.h). */
	struct nvme_passthru_cmd64 c;
	kernel_cmd(&c, cmd, ns->nsid, buf, len, d->io_timeout_ms); /* 0: the driver's */
	io->aio.done = uring_done;
	return nvmf_aio_uring_cmd(aio, ns->fd, NVME_URING_CMD_IO, &c, sizeof(struct nvme_uring_cmd),
				  &io->aio);
}

/* The block and generic char device names of namespace @nsid of controller @ctrl. */
static int ns_names(const char *ctrl, unsigned instance, uint32_t nsid, char *blk, size_t blen,
		    char *ng, size_t nglen)
{
	char dir[96], p[PATH_MAX];
	snprintf(dir, sizeof(dir), "/sys/class/nvme/%s", ctrl);
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	int rc = -ENOENT;
	struct dirent *e;
	while (rc && (e = readdir(d))) {
		unsigned a, h;
		bool path_disk;
		uint64_t id;
		if (!ns_entry(e->d_name, &a, &h, &path_disk))
			continue;
		snprintf(p, sizeof(p), "%s/%s/nsid", dir, e->d_name);
		if (read_u64(p, &id) || id != nsid)
			continue;
		rc = 0;
		if (path_disk) {
			snprintf(blk, blen, "nvme%un%u", a, h);
			snprintf(ng, nglen, "ng%un%u", a, h);
		} else {
			pathf(blk, blen, "%s", e->d_name);
			/* The char device is named from the controller even when the disk is
			 * named from the subsystem (multipath on, namespace not shared). */
			snprintf(ng, nglen, "ng%un%u", instance, h);
			snprintf(p, sizeof(p), "%s/%s", dir, ng);
			if (access(p, F_OK))
				snprintf(ng, nglen, "ng%un%u", a, h);
		}
	}
	closedir(d);
	return rc;
}

static void hold_bdev(struct linux_drive *ld, uint32_t nsid, int fd)
{
	for (size_t i = 0; i < ld->n_held; i++)
		if (ld->held[i].fd < 0) {
			ld->held[i] = (struct held_bdev){ nsid, fd };
			return;
		}
	ld->held[ld->n_held++] = (struct held_bdev){ nsid, fd };
}

static int drive_ns_open(struct nvmf_drive *d, struct nvmf_drive_ns *ns, char *err, size_t errlen)
{
	struct linux_drive *ld = d->priv;
	char blk[48] = "", ng[48] = "", dev[64];
	ns->fd = -1;
	ns->path[0] = '\0';
	/* A namespace just created or attached: the kernel scans it asynchronously. */
	int rc = -ENOENT;
	for (int ms = 0; rc && ms <= DRIVE_UDEV_WAIT_MS; ms += 50) {
		rc = ns_names(d->name, (unsigned)ld->instance, ns->nsid, blk, sizeof(blk), ng,
			      sizeof(ng));
		if (rc)
			nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	if (rc) {
		snprintf(err, errlen, "%s nsid %u: the kernel lists no block device for it",
			 d->path, ns->nsid);
		return rc;
	}
	if (ld->n_held == ld->cap_held) {
		size_t cap = ld->cap_held ? 2 * ld->cap_held : 8;
		struct held_bdev *h = realloc(ld->held, cap * sizeof(*h));
		if (!h) {
			snprintf(err, errlen, "%s nsid %u: out of memory", d->path, ns->nsid);
			return -ENOMEM;
		}
		ld->held = h;
		ld->cap_held = cap;
	}

	snprintf(dev, sizeof(dev), "/dev/%s", blk);
	if (!wait_for_node(dev)) {
		snprintf(err, errlen, "%s nsid %u: %s did not appear (udev)", d->path, ns->nsid,
			 dev);
		return -ENOENT;
	}
	/* O_EXCL on a block device: refused while mounted, used by dm/md, or opened
	 * O_EXCL by anyone else; held while served so none of that starts meanwhile. */
	int bfd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (bfd < 0) {
		rc = -errno;
		if (rc == -EBUSY) {
			char who[200];
			holders(blk, who, sizeof(who));
			snprintf(err, errlen, "%s is mounted or held by another user%s", dev, who);
		} else {
			snprintf(err, errlen, "%s: %s", dev, strerror(-rc));
		}
		return rc;
	}

	snprintf(ns->path, sizeof(ns->path), "/dev/%s", ng);
	if (!wait_for_node(ns->path)) {
		snprintf(err, errlen, "%s nsid %u: %s did not appear (udev)", d->path, ns->nsid,
			 ns->path);
		close(bfd);
		ns->path[0] = '\0';
		return -ENOENT;
	}
	int fd = open(ns->path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", ns->path, strerror(-rc));
		close(bfd);
		ns->path[0] = '\0';
		return rc;
	}
	/* The name is derived: make sure the device is the namespace asked for. */
	int id = ioctl(fd, NVME_IOCTL_ID);
	if (id < 0 || (uint32_t)id != ns->nsid) {
		snprintf(err, errlen, "%s is namespace %d, not nsid %u of %s", ns->path, id,
			 ns->nsid, d->path);
		close(fd);
		close(bfd);
		ns->path[0] = '\0';
		return -ENODEV;
	}
	ns->fd = fd;
	hold_bdev(ld, ns->nsid, bfd);
	return 0;
}

static void drive_ns_close(struct nvmf_drive *d, struct nvmf_drive_ns *ns)
{
	struct linux_drive *ld = d->priv;
	if (ns->fd >= 0)
		close(ns->fd);
	ns->fd = -1;
	for (size_t i = 0; ld && i < ld->n_held; i++)
		if (ld->held[i].fd >= 0 && ld->held[i].nsid == ns->nsid) {
			close(ld->held[i].fd);
			ld->held[i].fd = -1;
		}
}

static void drive_close(struct nvmf_drive *d)
{
	struct linux_drive *ld = d->priv;
	if (ld) {
		for (size_t i = 0; i < ld->n_held; i++)
			if (ld->held[i].fd >= 0)
				close(ld->held[i].fd);
		free(ld->held);
		free(ld);
		d->priv = NULL;
	}
	if (d->fd >= 0)
		close(d->fd); /* releases the flock */
	d->fd = -1;
}

static const struct nvmf_drive_ops linux_drive_ops = {
	.admin = drive_admin,
	.io_submit = drive_io_submit,
	.ns_open = drive_ns_open,
	.ns_close = drive_ns_close,
	.close = drive_close,
};

struct nvmf_drive *nvmf_drive_open(const char *path, char *err, size_t errlen)
{
	char name[32];
	if (strlen(path) >= sizeof(((struct nvmf_drive *)0)->path)) {
		snprintf(err, errlen, "%.64s...: path too long", path);
		return NULL;
	}
	if (check_controller(path, name, sizeof(name), err, errlen))
		return NULL;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == EACCES || e == EPERM)
			snprintf(err, errlen, "%s: %s (NVMe passthrough needs root: CAP_SYS_ADMIN)",
				 path, strerror(e));
		else
			snprintf(err, errlen, "%s: %s", path, strerror(e));
		return NULL;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		int pid = nvmf_backend_lock_holder(fd);
		if (e != EWOULDBLOCK)
			snprintf(err, errlen, "%s: flock: %s", path, strerror(e));
		else if (pid == (int)getpid())
			snprintf(err, errlen, "%s is exported by this process (pid %d) already",
				 path, pid);
		else if (pid > 0)
			snprintf(err, errlen, "%s is exported by another process (pid %d)", path,
				 pid);
		else
			snprintf(err, errlen, "%s is exported by another process", path);
		close(fd);
		return NULL;
	}
	struct nvmf_drive *d = calloc(1, sizeof(*d));
	struct linux_drive *ld = calloc(1, sizeof(*ld));
	if (!d || !ld) {
		snprintf(err, errlen, "%s: out of memory", path);
		free(d);
		free(ld);
		close(fd);
		return NULL;
	}
	sscanf(name, "nvme%d", &ld->instance);
	d->ops = &linux_drive_ops;
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->fd = fd;
	d->max_transfer = drive_max_transfer(name);
	d->priv = ld;
	if (nvmf_drive_load(d, err, errlen) < 0) {
		nvmf_drive_close(d); /* the namespaces it opened, the fd, the lock */
		return NULL;
	}
	return d;
}
