/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous I/O context over io_uring (liburing). One ring per poll group thread;
 * each queued operation carries a struct nvmf_aio_op whose address is the SQE's
 * user_data, so a completion finds its callback without any lookup table.
 *
 * In-flight limit: the completion queue has cq.ring_entries slots (twice the depth by
 * default). We never let queued + in-flight operations exceed it, so the CQ cannot
 * overflow and every completion is delivered in order of posting without the kernel's
 * overflow list. When the limit (or the SQ) is full the queue functions return -EAGAIN.
 *
 * Submission failures: io_uring_enter fails without taking any SQE. EAGAIN and EBUSY are
 * passing shortages and the SQEs are submitted by a later flush. Any other error leaves
 * the ring unusable, and the SQEs it holds would never run: their ops, remembered in
 * sq_ops in queueing order, are completed with the error by the next poll, and nothing
 * is submitted again (the SQEs stay in the ring, unread, until nvmf_aio_fini).
 *
 * Remote completions come from other threads: a Treiber stack (compare-and-swap push on
 * remote_head) that the owner empties with one exchange and reverses, so done() runs in
 * completion order. Only the push that finds the stack empty writes the eventfd: the
 * owner reads the eventfd before it takes the stack, so a push after the take finds it
 * empty again and signals, and no completion waits for a sleeper that is not woken.
 */
#include "subsystem/aio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Completions handled per peek; bounded so the copy below lives on the stack. */
#define AIO_REAP_BATCH 32

int nvmf_aio_init(struct nvmf_aio *aio, unsigned depth)
{
	memset(aio, 0, sizeof(*aio));
	aio->event_fd = -1;
	if (depth == 0 || (depth & (depth - 1)))
		return -EINVAL;
	/* Big entries for NVMe passthrough; a kernel before 5.19 knows neither flag and
	 * says EINVAL: the plain ring still serves every other backend. */
	int rc = io_uring_queue_init(depth, &aio->ring, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	aio->big = rc == 0;
	if (rc == -EINVAL)
		rc = io_uring_queue_init(depth, &aio->ring, 0);
	if (rc < 0)
		return rc;
	/* Non-blocking: nvmf_aio_poll() drains it without ever sleeping. */
	aio->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (aio->event_fd < 0) {
		rc = -errno;
		io_uring_queue_exit(&aio->ring);
		return rc;
	}
	rc = io_uring_register_eventfd(&aio->ring, aio->event_fd);
	aio->sq_size = aio->ring.sq.ring_entries;
	if (rc >= 0 && !(aio->sq_ops = calloc(aio->sq_size, sizeof(*aio->sq_ops))))
		rc = -ENOMEM;
	if (rc < 0) {
		close(aio->event_fd);
		aio->event_fd = -1;
		io_uring_queue_exit(&aio->ring);
		return rc;
	}
	aio->depth = depth;
	return 0;
}

void nvmf_aio_fini(struct nvmf_aio *aio)
{
	if (aio->depth == 0)
		return; /* never initialised (or already finished) */
	io_uring_unregister_eventfd(&aio->ring);
	io_uring_queue_exit(&aio->ring);
	close(aio->event_fd);
	aio->event_fd = -1;
	free(aio->sq_ops);
	aio->sq_ops = NULL;
	aio->depth = 0;
	aio->big = false;
}

/* A free SQE tagged with @op in *@sqe. Returns 0, -EAGAIN when the SQ or the in-flight
 * budget is full, or the error of a ring that cannot submit. */
static int aio_sqe(struct nvmf_aio *aio, struct nvmf_aio_op *op, struct io_uring_sqe **sqe)
{
	if (aio->error)
		return aio->error;
	if (aio->queued + aio->inflight >= aio->ring.cq.ring_entries)
		return -EAGAIN;
	if (!(*sqe = io_uring_get_sqe(&aio->ring)))
		return -EAGAIN;
	op->aio = aio;
	io_uring_sqe_set_data(*sqe, op);
	/* The SQ holds at most sq_size SQEs not yet taken by the kernel: queued never
	 * exceeds it. */
	aio->sq_ops[(aio->sq_first + aio->queued) % aio->sq_size] = op;
	aio->queued++;
	return 0;
}

int nvmf_aio_read(struct nvmf_aio *aio, int fd, void *buf, uint32_t len, uint64_t off,
		  struct nvmf_aio_op *op)
{
	struct io_uring_sqe *sqe;
	int rc = aio_sqe(aio, op, &sqe);
	if (rc)
		return rc;
	io_uring_prep_read(sqe, fd, buf, len, off);
	return 0;
}

int nvmf_aio_write(struct nvmf_aio *aio, int fd, const void *buf, uint32_t len, uint64_t off,
		   struct nvmf_aio_op *op)
{
	struct io_uring_sqe *sqe;
	int rc = aio_sqe(aio, op, &sqe);
	if (rc)
		return rc;
	io_uring_prep_write(sqe, fd, buf, len, off);
	return 0;
}

int nvmf_aio_fsync(struct nvmf_aio *aio, int fd, struct nvmf_aio_op *op)
{
	struct io_uring_sqe *sqe;
	int rc = aio_sqe(aio, op, &sqe);
	if (rc)
		return rc;
	io_uring_prep_fsync(sqe, fd, 0);
	return 0;
}

int nvmf_aio_fallocate(struct nvmf_aio *aio, int fd, int mode, uint64_t off, uint64_t len,
		       struct nvmf_aio_op *op)
{
	struct io_uring_sqe *sqe;
	int rc = aio_sqe(aio, op, &sqe);
	if (rc)
		return rc;
	/* liburing 2.3 takes off_t; NVMe offsets fit (LBA counts are 64-bit but a byte
	 * offset past 2^63 cannot name a real device). */
	io_uring_prep_fallocate(sqe, fd, mode, (off_t)off, (off_t)len);
	return 0;
}

int nvmf_aio_uring_cmd(struct nvmf_aio *aio, int fd, uint32_t cmd_op, const void *cmd,
		       size_t cmd_len, struct nvmf_aio_op *op)
{
	if (!aio->big)
		return -EOPNOTSUPP;
	if (cmd_len > NVMF_AIO_URING_CMD_MAX)
		return -EINVAL;
	struct io_uring_sqe *sqe;
	int rc = aio_sqe(aio, op, &sqe);
	if (rc)
		return rc;
	/* liburing 2.3 has no io_uring_prep_uring_cmd: the whole 128-byte entry by hand
	 * (reserved fields zero, the command in the second half). */
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	memcpy(sqe->cmd, cmd, cmd_len);
	io_uring_sqe_set_data(sqe, op);
	return 0;
}

int nvmf_aio_flush(struct nvmf_aio *aio)
{
	if (aio->error)
		return aio->error;
	if (aio->queued == 0)
		return 0; /* nothing to do: no system call */
	int rc;
	do {
		rc = io_uring_submit(&aio->ring);
	} while (rc == -EINTR);
	if (rc == -EAGAIN || rc == -EBUSY)
		return rc; /* the SQEs stay queued for the next flush */
	if (rc < 0) {
		/* None was taken and none ever will be: the next poll completes them. */
		aio->error = rc;
		aio->failed += aio->queued;
		aio->inflight += aio->queued;
		aio->queued = 0;
		return rc;
	}
	unsigned n = (unsigned)rc > aio->queued ? aio->queued : (unsigned)rc;
	aio->sq_first = (aio->sq_first + n) % aio->sq_size;
	aio->queued -= n;
	aio->inflight += n;
	return 0;
}

/* Complete up to @max ops a failed flush ended. Their done() may queue: the queue
 * functions refuse (aio->error), so sq_ops does not change meanwhile. */
static unsigned complete_failed(struct nvmf_aio *aio, unsigned max)
{
	unsigned n = 0;
	while (aio->failed && n < max) {
		struct nvmf_aio_op *op = aio->sq_ops[aio->sq_first];
		aio->sq_first = (aio->sq_first + 1) % aio->sq_size;
		aio->failed--;
		aio->inflight--;
		op->res2 = 0;
		op->done(op, aio->error);
		n++;
	}
	return n;
}

/* Run every remote completion that has arrived, oldest first. Returns how many. */
static unsigned complete_remote(struct nvmf_aio *aio)
{
	if (!__atomic_load_n(&aio->remote_head, __ATOMIC_ACQUIRE))
		return 0;
	struct nvmf_aio_op *op = __atomic_exchange_n(&aio->remote_head, NULL, __ATOMIC_ACQUIRE);
	struct nvmf_aio_op *fifo = NULL;
	while (op) { /* newest first: reverse */
		struct nvmf_aio_op *next = op->remote_next;
		op->remote_next = fifo;
		fifo = op;
		op = next;
	}
	unsigned n = 0;
	while (fifo) {
		op = fifo;
		fifo = op->remote_next; /* done() may free or reuse op */
		aio->remote_outstanding--;
		op->done(op, op->remote_res);
		n++;
	}
	return n;
}

unsigned nvmf_aio_poll(struct nvmf_aio *aio, unsigned max)
{
	/* Clear the eventfd BEFORE looking at the CQ: a completion posted after this read
	 * signals again, so a thread that sleeps on event_fd after a poll that returned
	 * less than @max cannot miss it. The kernel signals just after it posts a CQE, so
	 * the signal of the last completion we reaped may land after our read: one more
	 * read on the pass after reaping clears it (else an idle thread would wake in a
	 * loop). Skipped when nothing is ready or just reaped, so a busy loop waiting on
	 * the disk, and the RAM/null fast path, make no system call here. */
	if (aio->reaped_last || io_uring_cq_ready(&aio->ring) ||
	    __atomic_load_n(&aio->remote_head, __ATOMIC_ACQUIRE)) {
		uint64_t v;
		if (read(aio->event_fd, &v, sizeof(v)) < 0) {
			/* EAGAIN: nothing signalled yet; nothing else can fail here */
		}
	}

	unsigned total = complete_failed(aio, max);
	while (total < max) {
		struct io_uring_cqe *cqes[AIO_REAP_BATCH];
		struct {
			struct nvmf_aio_op *op;
			int res;
			uint64_t res2;
		} batch[AIO_REAP_BATCH];
		unsigned want = max - total < AIO_REAP_BATCH ? max - total : AIO_REAP_BATCH;
		unsigned n = io_uring_peek_batch_cqe(&aio->ring, cqes, want);
		if (n == 0)
			break;
		for (unsigned i = 0; i < n; i++) {
			batch[i].op = io_uring_cqe_get_data(cqes[i]);
			batch[i].res = cqes[i]->res;
			/* A CQE32 ring's entries are 32 bytes: io_uring_peek_batch_cqe steps
			 * by two 16-byte slots (liburing 2.2+), the second half is big_cqe. */
			batch[i].res2 = aio->big ? cqes[i]->big_cqe[0] : 0;
		}
		/* Release the CQ slots and the in-flight budget before any callback runs, so
		 * done() may queue continuations or new operations into the room just made. */
		io_uring_cq_advance(&aio->ring, n);
		aio->inflight -= n;
		for (unsigned i = 0; i < n; i++) {
			batch[i].op->res2 = batch[i].res2;
			batch[i].op->done(batch[i].op, batch[i].res);
		}
		total += n;
	}
	/* A done() above may have flushed (a continuation) and ended the ring. */
	total += complete_failed(aio, max - total);
	total += complete_remote(aio);
	aio->reaped_last = total;
	return total;
}

void nvmf_aio_remote_begin(struct nvmf_aio *aio, struct nvmf_aio_op *op)
{
	op->aio = aio;
	op->res2 = 0;
	op->remote_next = NULL;
	aio->remote_outstanding++;
}

void nvmf_aio_remote_cancel(struct nvmf_aio *aio)
{
	aio->remote_outstanding--;
}

void nvmf_aio_complete_remote(struct nvmf_aio *aio, struct nvmf_aio_op *op, int res)
{
	op->remote_res = res;
	struct nvmf_aio_op *head = __atomic_load_n(&aio->remote_head, __ATOMIC_RELAXED);
	do {
		op->remote_next = head;
	} while (!__atomic_compare_exchange_n(&aio->remote_head, &head, op, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	if (!head) {
		uint64_t one = 1;
		if (write(aio->event_fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: the counter is full, so the fd is readable anyway */
		}
	}
}
