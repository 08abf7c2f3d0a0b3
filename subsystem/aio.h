/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous I/O context: one io_uring per poll group thread. Backends queue their
 * I/O here; the poll loop calls nvmf_aio_flush() once per pass (one io_uring_submit for
 * everything queued) and nvmf_aio_poll() to reap completions. Not thread safe: owned by
 * one thread.
 *
 * The ring is set up with 128-byte SQEs and 32-byte CQEs (IORING_SETUP_SQE128 |
 * IORING_SETUP_CQE32, Linux 5.19+) so it can also carry NVMe passthrough commands
 * (nvmf_aio_uring_cmd); an older kernel gets the plain ring, aio->big false.
 */
#ifndef NVMF_SUBSYSTEM_AIO_H
#define NVMF_SUBSYSTEM_AIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <liburing.h>

struct nvmf_aio_op;
/* Completion callback: @res is the io_uring result (bytes transferred, or -errno; for a
 * uring command what its driver returns, see nvmf_aio_uring_cmd). */
typedef void (*nvmf_aio_done_fn)(struct nvmf_aio_op *op, int res);

/* One queued operation; the caller owns its memory until @done runs. */
struct nvmf_aio_op {
	nvmf_aio_done_fn done;
	void *ctx;            /* free for the caller */
	struct nvmf_aio *aio; /* set by the queue functions: lets done() queue a continuation */
	uint64_t res2;        /* set before done() runs: the CQE's first extra dword
			       * (big_cqe[0], host endian) of a uring command; 0 for the
			       * other operations and for ops a failed flush ended */
	/* Remote completions (nvmf_aio_complete_remote): the result to give done(), and the
	 * link of the aio's list while it waits there. */
	int remote_res;
	struct nvmf_aio_op *remote_next;
};

struct nvmf_aio {
	struct io_uring ring;
	int event_fd;      /* readable when completions are posted (for idle sleep) */
	unsigned queued;   /* SQEs prepared, not yet submitted */
	unsigned inflight; /* submitted (or failed, see error), not yet reaped */
	unsigned depth;
	bool big;             /* SQE128 | CQE32 ring: nvmf_aio_uring_cmd works (Linux 5.19+) */
	unsigned reaped_last; /* completions the previous poll reaped (eventfd clearing) */
	struct nvmf_aio_op **sq_ops; /* the op of every queued SQE, oldest at sq_first (a ring of
				     * sq_size: the SQ never holds more) */
	unsigned sq_first, sq_size;
	int error;       /* 0, or the -errno io_uring_submit failed with for good:
				     * nothing is submitted any more */
	unsigned failed; /* queued ops the failure ended: the next polls complete
				     * them with error (counted in inflight until then) */
	/* Remote completions (see nvmf_aio_remote_begin): ops another library runs on its
	 * own threads (librbd), whose ends come back here to run on the owner. */
	unsigned remote_outstanding;     /* begun, not yet run (owner thread only) */
	struct nvmf_aio_op *remote_head; /* completed, newest first (lock-free stack, pushed
					  * from any thread; atomic) */
};

/* nvmf_aio_init - set up a ring of @depth entries (power of two, e.g. 256) with an
 * eventfd: SQE128 | CQE32 (aio->big) when the kernel has them, else a plain ring (a
 * kernel before 5.19 refuses the flags with EINVAL). Returns 0 or -errno. */
int nvmf_aio_init(struct nvmf_aio *aio, unsigned depth);
void nvmf_aio_fini(struct nvmf_aio *aio);

/* Queue operations. @off in bytes. Return 0, or -EAGAIN when the ring is full (callers
 * retry after the next poll): no SQE free, or queued + in-flight operations would
 * exceed the completion queue (so it never overflows); or aio->error once the ring
 * cannot submit any more (nvmf_aio_flush): the caller fails its I/O with it. The buffer
 * must stay valid until @op->done. */
int nvmf_aio_read(struct nvmf_aio *aio, int fd, void *buf, uint32_t len, uint64_t off,
		  struct nvmf_aio_op *op);
int nvmf_aio_write(struct nvmf_aio *aio, int fd, const void *buf, uint32_t len, uint64_t off,
		   struct nvmf_aio_op *op);
int nvmf_aio_fsync(struct nvmf_aio *aio, int fd, struct nvmf_aio_op *op);
/* fallocate(@fd, @mode, @off, @len): punch holes / zero ranges on files. */
int nvmf_aio_fallocate(struct nvmf_aio *aio, int fd, int mode, uint64_t off, uint64_t len,
		       struct nvmf_aio_op *op);

/* Bytes of driver command an SQE128 entry carries (its sqe->cmd: 128 - 48). */
#define NVMF_AIO_URING_CMD_MAX 80

/*
 * nvmf_aio_uring_cmd - queue an IORING_OP_URING_CMD: the driver behind @fd runs command
 * @cmd_op with the @cmd_len bytes at @cmd (copied into the SQE; @cmd need not outlive the
 * call, but any buffer it points to must stay valid until @op->done). For NVMe
 * passthrough (linux/nvme_ioctl.h): @cmd_op NVME_URING_CMD_IO on a /dev/ngXnY fd, @cmd a
 * struct nvme_uring_cmd (72 bytes); done() gets @res 0 (success), > 0 the NVMe status
 * field (nvme_status_t, no phase bit) or -errno, and op->res2 the CQE's dwords 0-1.
 * A file without uring commands completes with -EOPNOTSUPP (or -ENOTTY / -EINVAL per
 * driver) through done(), like any other failed op.
 * Returns 0, -EOPNOTSUPP (!aio->big: no 128-byte SQEs on this kernel), -EINVAL (@cmd_len
 * over NVMF_AIO_URING_CMD_MAX), -EAGAIN or aio->error as the other queue functions.
 */
int nvmf_aio_uring_cmd(struct nvmf_aio *aio, int fd, uint32_t cmd_op, const void *cmd,
		       size_t cmd_len, struct nvmf_aio_op *op);

/*
 * nvmf_aio_flush - submit everything queued in one system call. Returns 0 or -errno.
 * -EAGAIN and -EBUSY (the kernel is short of resources; io_uring_enter(2) says to try
 * again): the SQEs stay queued for the next flush. Any other error means the ring cannot
 * be used (the kernel took none of the SQEs): it is recorded in aio->error, every op
 * queued completes with it at the next nvmf_aio_poll (never inside this call), and from
 * then on nothing is submitted and the queue functions return that error, so no I/O
 * waits for a ring that will not run it.
 */
int nvmf_aio_flush(struct nvmf_aio *aio);

/* nvmf_aio_poll - reap up to @max completions, calling each op's done() (first the ops
 * a failed flush ended, with aio->error), then every remote completion that has arrived
 * (see below; these are not bounded by @max). Returns the number reaped. Also clears the
 * eventfd. */
unsigned nvmf_aio_poll(struct nvmf_aio *aio, unsigned max);

/*
 * Remote completions: for a backend whose library completes I/O on threads of its own
 * (librbd's callback thread) rather than through the ring. The owner says an op has
 * begun (nvmf_aio_remote_begin) before handing it to the library; the library's thread
 * ends it with nvmf_aio_complete_remote, which pushes it on a lock-free list and signals
 * event_fd when the list was empty (the thread sleeping on that fd wakes); the owner's
 * next nvmf_aio_poll takes the whole list and runs each op's done(op, res) in the order
 * the ops completed. Outstanding remote ops count in nvmf_aio_busy, so the owner keeps
 * polling, and nothing owning the aio may be torn down, until the last one has run.
 */
/* nvmf_aio_remote_begin - @op of @aio starts: sets op->aio, counts it outstanding. Owner
 * thread. */
void nvmf_aio_remote_begin(struct nvmf_aio *aio, struct nvmf_aio_op *op);
/* nvmf_aio_remote_cancel - the op begun last never went out (the library refused it):
 * uncount it; its done() will not run. Owner thread. */
void nvmf_aio_remote_cancel(struct nvmf_aio *aio);
/* nvmf_aio_complete_remote - @op (begun on @aio) ended with @res (bytes or -errno): its
 * done(op, res) runs on @aio's owner at its next poll. Any thread, lock free; @op must
 * not be touched by the caller afterwards. */
void nvmf_aio_complete_remote(struct nvmf_aio *aio, struct nvmf_aio_op *op, int res);
/* nvmf_aio_busy - whether @aio has work that will complete: ops queued or in flight on
 * the ring, or remote ops begun and not yet run. Owner thread. Inline: every poll
 * group pass asks. */
static inline bool nvmf_aio_busy(const struct nvmf_aio *aio)
{
	return aio->queued || aio->inflight || aio->remote_outstanding;
}

#endif
