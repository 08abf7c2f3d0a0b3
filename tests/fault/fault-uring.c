/* SPDX-License-Identifier: MIT */
/*
 * Fault injection for tests: what the real backends hand to the kernel (fault.h). Linked
 * with -Wl,--wrap for nvmf_aio_init, nvmf_aio_read/write/fsync/fallocate, pread, pwrite
 * and io_uring_submit: calls on the fd of a wrapped backend are matched against the
 * SHORT and SQE_FULL rules, io_uring_submit against the SUBMIT rules; everything else
 * passes through unchanged.
 *
 * Every io_uring entry the target queues on a backend's fd is the nvmf_aio_op embedded
 * in a struct nvmf_bdev_io (subsystem/backend.c), so the I/O it belongs to (its op, and
 * whether this entry continues a short transfer) is found from the op.
 */
#include "tests/fault/fault.h"

#include <errno.h>
#include <unistd.h>
#include "nvme/wire.h"

int __real_nvmf_aio_init(struct nvmf_aio *aio, unsigned depth);
int __real_nvmf_aio_read(struct nvmf_aio *aio, int fd, void *buf, uint32_t len, uint64_t off,
			 struct nvmf_aio_op *op);
int __real_nvmf_aio_write(struct nvmf_aio *aio, int fd, const void *buf, uint32_t len, uint64_t off,
			  struct nvmf_aio_op *op);
int __real_nvmf_aio_fsync(struct nvmf_aio *aio, int fd, struct nvmf_aio_op *op);
int __real_nvmf_aio_fallocate(struct nvmf_aio *aio, int fd, int mode, uint64_t off, uint64_t len,
			      struct nvmf_aio_op *op);
int __real_io_uring_submit(struct io_uring *ring);
ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);

int __wrap_nvmf_aio_init(struct nvmf_aio *aio, unsigned depth);
int __wrap_nvmf_aio_read(struct nvmf_aio *aio, int fd, void *buf, uint32_t len, uint64_t off,
			 struct nvmf_aio_op *op);
int __wrap_nvmf_aio_write(struct nvmf_aio *aio, int fd, const void *buf, uint32_t len, uint64_t off,
			  struct nvmf_aio_op *op);
int __wrap_nvmf_aio_fsync(struct nvmf_aio *aio, int fd, struct nvmf_aio_op *op);
int __wrap_nvmf_aio_fallocate(struct nvmf_aio *aio, int fd, int mode, uint64_t off, uint64_t len,
			      struct nvmf_aio_op *op);
int __wrap_io_uring_submit(struct io_uring *ring);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);

int __wrap_nvmf_aio_init(struct nvmf_aio *aio, unsigned depth)
{
	unsigned d = fault_ring_depth();
	return __real_nvmf_aio_init(aio, d ? d : depth);
}

/* Bytes a SHORT rule lets one call move: whole blocks on a direct fd (at least one). */
static uint64_t cut(const struct nvmf_fault_rule *r, uint32_t bs, bool direct)
{
	uint64_t n = r->short_bytes;
	if (direct)
		n = n < bs ? bs : n / bs * bs;
	return n;
}

/*
 * The rule among @actions acting on a call for @len bytes at @off of @fd (no range when
 * @len is 0). @op: the call's io_uring entry, NULL for pread/pwrite (then @bop is the
 * op). Returns false when @fd is no wrapped backend's or no rule acts; else *@r and the
 * fd's block size and direct flag.
 */
static bool call_fault(int fd, struct nvmf_aio_op *op, int bop, uint64_t off, uint64_t len,
		       unsigned actions, struct nvmf_fault_rule *r, uint32_t *bs, bool *direct)
{
	struct nvmf_fault_io what = { .op = bop };
	if (!fault_fd_lookup(fd, &what.nsid, bs, direct))
		return false;
	if (op) {
		/* Only now: on a wrapped backend's fd, op is inside an nvmf_bdev_io. */
		const struct nvmf_bdev_io *io = container_of(op, struct nvmf_bdev_io, aio);
		what.op = (int)io->op;
		what.cont = io->done_bytes > 0;
	}
	if (len) {
		what.has_lba = true;
		what.lba_first = off / *bs;
		what.lba_last = (off + len - 1) / *bs;
	}
	return fault_fire(actions, &what, r);
}

/* READ/WRITE entries: refused, or cut short. Returns -EAGAIN to refuse, else 0 with
 * *@len possibly lowered. */
static int rw_fault(int fd, struct nvmf_aio_op *op, uint64_t off, uint32_t *len)
{
	struct nvmf_fault_rule r;
	uint32_t bs;
	bool direct;
	if (!call_fault(fd, op, 0, off, *len,
			FAULT_BIT(NVMF_FAULT_SHORT) | FAULT_BIT(NVMF_FAULT_SQE_FULL), &r, &bs,
			&direct))
		return 0;
	if (r.action == NVMF_FAULT_SQE_FULL)
		return -EAGAIN;
	uint64_t n = cut(&r, bs, direct);
	if (n < *len)
		*len = (uint32_t)n;
	return 0;
}

int __wrap_nvmf_aio_read(struct nvmf_aio *aio, int fd, void *buf, uint32_t len, uint64_t off,
			 struct nvmf_aio_op *op)
{
	if (rw_fault(fd, op, off, &len))
		return -EAGAIN;
	return __real_nvmf_aio_read(aio, fd, buf, len, off, op);
}

int __wrap_nvmf_aio_write(struct nvmf_aio *aio, int fd, const void *buf, uint32_t len, uint64_t off,
			  struct nvmf_aio_op *op)
{
	if (rw_fault(fd, op, off, &len))
		return -EAGAIN;
	return __real_nvmf_aio_write(aio, fd, buf, len, off, op);
}

/* Other entries (fsync, fallocate) can only be refused. */
static bool refused(int fd, struct nvmf_aio_op *op, uint64_t off, uint64_t len)
{
	struct nvmf_fault_rule r;
	uint32_t bs;
	bool direct;
	return call_fault(fd, op, 0, off, len, FAULT_BIT(NVMF_FAULT_SQE_FULL), &r, &bs, &direct);
}

int __wrap_nvmf_aio_fsync(struct nvmf_aio *aio, int fd, struct nvmf_aio_op *op)
{
	if (refused(fd, op, 0, 0))
		return -EAGAIN;
	return __real_nvmf_aio_fsync(aio, fd, op);
}

int __wrap_nvmf_aio_fallocate(struct nvmf_aio *aio, int fd, int mode, uint64_t off, uint64_t len,
			      struct nvmf_aio_op *op)
{
	if (refused(fd, op, off, len))
		return -EAGAIN;
	return __real_nvmf_aio_fallocate(aio, fd, mode, off, len, op);
}

int __wrap_io_uring_submit(struct io_uring *ring)
{
	struct nvmf_fault_io none = { .op = NVMF_FAULT_ANY_OP };
	struct nvmf_fault_rule r;
	/* Failed before the kernel saw anything: the entries stay queued in the ring, as
	 * when io_uring_enter fails. */
	if (fault_fire(FAULT_BIT(NVMF_FAULT_SUBMIT), &none, &r))
		return r.err;
	return __real_io_uring_submit(ring);
}

/* The in-memory files' inline path (subsystem/backend.c rw_inline): cut short only. The
 * op is the call's; a call never counts as a continuation here. */
static size_t inline_len(int fd, int op, size_t n, off_t off)
{
	struct nvmf_fault_rule r;
	uint32_t bs;
	bool direct;
	if (!call_fault(fd, NULL, op, (uint64_t)off, n, FAULT_BIT(NVMF_FAULT_SHORT), &r, &bs,
			&direct))
		return n;
	uint64_t c = cut(&r, bs, direct);
	return c < n ? (size_t)c : n;
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	return __real_pread(fd, buf, inline_len(fd, NVMF_BDEV_READ, n, off), off);
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return __real_pwrite(fd, buf, inline_len(fd, NVMF_BDEV_WRITE, n, off), off);
}
