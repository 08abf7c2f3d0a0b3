/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous I/O context: one io_uring per poll group thread. Backends queue their
 * I/O here; the poll loop calls nvmf_aio_flush() once per pass (one io_uring_submit for
 * everything queued) and nvmf_aio_poll() to reap completions. Not thread safe: owned by
 * one thread.
 */
#ifndef NVMF_SUBSYSTEM_AIO_H
#define NVMF_SUBSYSTEM_AIO_H

#include <stdint.h>
#include <sys/uio.h>
#include <liburing.h>

struct nvmf_aio_op;
/* Completion callback: @res is the io_uring result (bytes transferred, or -errno). */
typedef void (*nvmf_aio_done_fn)(struct nvmf_aio_op *op, int res);

/* One queued operation; the caller owns its memory until @done runs. */
struct nvmf_aio_op {
	nvmf_aio_done_fn done;
	void *ctx;                  /* free for the caller */
	struct nvmf_aio *aio;       /* set by the queue functions: lets done() queue a continuation */
};

struct nvmf_aio {
	struct io_uring ring;
	int event_fd;               /* readable when completions are posted (for idle sleep) */
	unsigned queued;            /* SQEs prepared, not yet submitted */
	unsigned inflight;          /* submitted, not yet reaped */
	unsigned depth;
	unsigned reaped_last;       /* completions the previous poll reaped (eventfd clearing) */
};

/* nvmf_aio_init - set up a ring of @depth entries (power of two, e.g. 256) with an
 * eventfd. Returns 0 or -errno. */
int nvmf_aio_init(struct nvmf_aio *aio, unsigned depth);
void nvmf_aio_fini(struct nvmf_aio *aio);

/* Queue operations. @off in bytes. Return 0, or -EAGAIN when the ring is full (callers
 * retry after the next poll): no SQE free, or queued + in-flight operations would
 * exceed the completion queue (so it never overflows). The buffer must stay valid until @op->done. */
int nvmf_aio_read(struct nvmf_aio *aio, int fd, void *buf, uint32_t len, uint64_t off, struct nvmf_aio_op *op);
int nvmf_aio_write(struct nvmf_aio *aio, int fd, const void *buf, uint32_t len, uint64_t off, struct nvmf_aio_op *op);
int nvmf_aio_fsync(struct nvmf_aio *aio, int fd, struct nvmf_aio_op *op);
/* fallocate(@fd, @mode, @off, @len): punch holes / zero ranges on files. */
int nvmf_aio_fallocate(struct nvmf_aio *aio, int fd, int mode, uint64_t off, uint64_t len, struct nvmf_aio_op *op);

/* nvmf_aio_flush - submit everything queued in one system call. Returns 0 or -errno. */
int nvmf_aio_flush(struct nvmf_aio *aio);

/* nvmf_aio_poll - reap up to @max completions, calling each op's done(). Returns the
 * number reaped. Also clears the eventfd. */
unsigned nvmf_aio_poll(struct nvmf_aio *aio, unsigned max);

#endif
