/* Unit tests for subsystem/aio.c: the io_uring context. */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "subsystem/aio.h"
#include "tests/fault/fault.h"
#include "tests/unit/suites.h"

/* A scratch file under /tmp, unlinked at once (the fd keeps it alive). */
static int scratch_fd(void)
{
	char path[] = "/tmp/nvmf-aio-XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

struct counted_op {
	struct nvmf_aio_op op;
	int calls;
	int res;
};

static void count_done(struct nvmf_aio_op *op, int res)
{
	struct counted_op *c = (struct counted_op *)op;
	c->calls++;
	c->res = res;
}

/* Flush and reap until @n completions were seen or 5 s passed. */
static unsigned drain(struct nvmf_aio *aio, unsigned n)
{
	unsigned seen = 0;
	for (int spins = 0; seen < n && spins < 5000; spins++) {
		nvmf_aio_flush(aio);
		unsigned got = nvmf_aio_poll(aio, 256);
		seen += got;
		if (!got) {
			struct pollfd p = { .fd = aio->event_fd, .events = POLLIN };
			poll(&p, 1, 1);
		}
	}
	return seen;
}

static void init_rejects_depth_not_power_of_two(void)
{
	struct nvmf_aio aio;
	CU_ASSERT_EQUAL(nvmf_aio_init(&aio, 0), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_aio_init(&aio, 12), -EINVAL);
	nvmf_aio_fini(&aio); /* harmless on a failed init */
}

static void write_then_read_returns_bytes_and_data(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	char out[4096], in[4096] = { 0 };
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (char)(i * 7 + 3);

	struct counted_op w = { .op.done = count_done };
	CU_ASSERT_EQUAL(nvmf_aio_write(&aio, fd, out, sizeof(out), 8192, &w.op), 0);
	CU_ASSERT_EQUAL(aio.queued, 1);
	CU_ASSERT_EQUAL(drain(&aio, 1), 1);
	CU_ASSERT_EQUAL(w.calls, 1);
	CU_ASSERT_EQUAL(w.res, (int)sizeof(out));
	CU_ASSERT_PTR_EQUAL(w.op.aio, &aio);

	struct counted_op r = { .op.done = count_done };
	CU_ASSERT_EQUAL(nvmf_aio_read(&aio, fd, in, sizeof(in), 8192, &r.op), 0);
	CU_ASSERT_EQUAL(drain(&aio, 1), 1);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.res, (int)sizeof(in));
	CU_ASSERT_EQUAL(memcmp(in, out, sizeof(in)), 0);
	CU_ASSERT_EQUAL(aio.inflight, 0);
	nvmf_aio_fini(&aio);
	close(fd);
}

static void errors_come_back_as_negative_errno(void)
{
	struct nvmf_aio aio;
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	char buf[512];
	struct counted_op r = { .op.done = count_done };
	CU_ASSERT_EQUAL(nvmf_aio_read(&aio, 9999, buf, sizeof(buf), 0, &r.op), 0);
	CU_ASSERT_EQUAL(drain(&aio, 1), 1);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.res, -EBADF);
	nvmf_aio_fini(&aio);
}

static void queue_returns_eagain_when_no_sqe_is_free(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 4) == 0);
	struct counted_op ops[5];
	memset(ops, 0, sizeof(ops));
	for (int i = 0; i < 4; i++) {
		ops[i].op.done = count_done;
		CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &ops[i].op), 0);
	}
	ops[4].op.done = count_done;
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &ops[4].op), -EAGAIN);
	CU_ASSERT_EQUAL(drain(&aio, 4), 4);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(ops[i].calls, 1);
	CU_ASSERT_EQUAL(ops[4].calls, 0);
	nvmf_aio_fini(&aio);
	close(fd);
}

/* Submitted but unreaped operations hold CQ slots: the queue functions refuse once
 * queued + in flight would exceed the CQ, so completions can never overflow it. */
static void queue_returns_eagain_when_completion_queue_budget_is_used(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 4) == 0);
	unsigned cq = aio.ring.cq.ring_entries;
	struct counted_op *ops = calloc(cq + 1, sizeof(*ops));
	CU_ASSERT_FATAL(ops != NULL);
	unsigned queued = 0;
	for (unsigned i = 0; i <= cq; i++) {
		ops[i].op.done = count_done;
		int rc = nvmf_aio_fsync(&aio, fd, &ops[i].op);
		if (rc == -EAGAIN) {
			CU_ASSERT_EQUAL(nvmf_aio_flush(&aio), 0);
			rc = nvmf_aio_fsync(&aio, fd, &ops[i].op);
		}
		if (rc == 0)
			queued++;
		else
			CU_ASSERT_EQUAL(rc, -EAGAIN);
	}
	CU_ASSERT_EQUAL(queued, cq);
	CU_ASSERT_EQUAL(drain(&aio, cq), cq);
	CU_ASSERT_EQUAL(ops[cq].calls, 0);
	free(ops);
	nvmf_aio_fini(&aio);
	close(fd);
}

struct chain_op {
	struct nvmf_aio_op op;
	int fd;
	int remaining; /* continuations still to queue */
	int calls;
};

static void chain_done(struct nvmf_aio_op *op, int res)
{
	struct chain_op *c = (struct chain_op *)op;
	CU_ASSERT_EQUAL(res, 0);
	c->calls++;
	if (c->remaining-- > 0)
		CU_ASSERT_EQUAL(nvmf_aio_fsync(op->aio, c->fd, op), 0);
}

static void done_may_queue_a_continuation_during_poll(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 2) == 0);
	struct chain_op a = { .op.done = chain_done, .fd = fd, .remaining = 3 };
	struct chain_op b = { .op.done = chain_done, .fd = fd, .remaining = 3 };
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &a.op), 0);
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &b.op), 0);
	CU_ASSERT_EQUAL(drain(&aio, 8), 8);
	CU_ASSERT_EQUAL(a.calls, 4);
	CU_ASSERT_EQUAL(b.calls, 4);
	CU_ASSERT_EQUAL(aio.queued, 0);
	CU_ASSERT_EQUAL(aio.inflight, 0);
	nvmf_aio_fini(&aio);
	close(fd);
}

static void poll_reaps_at_most_max(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 4) == 0);
	struct counted_op ops[3];
	memset(ops, 0, sizeof(ops));
	for (int i = 0; i < 3; i++) {
		ops[i].op.done = count_done;
		CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &ops[i].op), 0);
	}
	CU_ASSERT_EQUAL(nvmf_aio_flush(&aio), 0);
	CU_ASSERT_EQUAL(aio.inflight, 3);
	/* wait until all three are posted, then take them one at a time */
	for (int i = 0; i < 5000 && io_uring_cq_ready(&aio.ring) < 3; i++)
		usleep(1000);
	CU_ASSERT_EQUAL(nvmf_aio_poll(&aio, 1), 1);
	CU_ASSERT_EQUAL(aio.inflight, 2);
	CU_ASSERT_EQUAL(nvmf_aio_poll(&aio, 5), 2);
	CU_ASSERT_EQUAL(nvmf_aio_poll(&aio, 5), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(ops[i].calls, 1);
	nvmf_aio_fini(&aio);
	close(fd);
}

static bool readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

static void eventfd_wakes_a_sleeper_and_poll_clears_it(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 4) == 0);
	CU_ASSERT_FALSE(readable(aio.event_fd, 0));
	struct counted_op op = { .op.done = count_done };
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &op.op), 0);
	CU_ASSERT_EQUAL(nvmf_aio_flush(&aio), 0);
	CU_ASSERT_TRUE(readable(aio.event_fd, 5000));
	CU_ASSERT_EQUAL(nvmf_aio_poll(&aio, 8), 1);
	nvmf_aio_poll(&aio, 8); /* the pass after reaping clears a late signal */
	CU_ASSERT_FALSE(readable(aio.event_fd, 0));
	CU_ASSERT_EQUAL(op.calls, 1);
	nvmf_aio_fini(&aio);
	close(fd);
}

static void fallocate_punch_hole_reads_back_zeroes(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 4) == 0);
	char buf[8192];
	memset(buf, 0xab, sizeof(buf));
	CU_ASSERT_FATAL(pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	struct counted_op op = { .op.done = count_done };
	CU_ASSERT_EQUAL(nvmf_aio_fallocate(&aio, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					   4096, 4096, &op.op),
			0);
	CU_ASSERT_EQUAL(drain(&aio, 1), 1);
	CU_ASSERT_EQUAL(op.res, 0);
	CU_ASSERT_FATAL(pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf));
	CU_ASSERT_EQUAL((unsigned char)buf[4095], 0xab);
	CU_ASSERT_EQUAL(buf[4096], 0);
	CU_ASSERT_EQUAL(buf[8191], 0);
	nvmf_aio_fini(&aio);
	close(fd);
}

/* io_uring_submit failing (tests/fault's shim): EAGAIN and EBUSY keep the SQEs for the
 * next flush; an error that leaves the ring unusable ends every queued op with it at the
 * next poll (not inside the flush), refuses new ones, and ops already in the kernel still
 * complete. */
static void submit_failure_keeps_ops_for_a_retry_or_ends_them_for_good(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	nvmf_fault_reset();
	struct counted_op ops[5];
	memset(ops, 0, sizeof(ops));
	for (int i = 0; i < 5; i++) {
		ops[i].op.done = count_done;
		ops[i].op.res2 = 1; /* every completion sets it: 0 for these */
	}

	struct nvmf_fault_rule r = nvmf_fault_rule(0, NVMF_FAULT_ANY_OP, NVMF_FAULT_SUBMIT);
	r.err = -EAGAIN;
	r.count = 1;
	nvmf_fault_add(&r);
	r.err = -EBUSY;
	nvmf_fault_add(&r);
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &ops[0].op), 0);
	CU_ASSERT_EQUAL(nvmf_aio_flush(&aio), -EAGAIN);
	CU_ASSERT_EQUAL(nvmf_aio_flush(&aio), -EBUSY);
	CU_ASSERT_EQUAL(aio.queued, 1);
	CU_ASSERT_EQUAL(drain(&aio, 1), 1); /* the third flush submits it */
	CU_ASSERT_EQUAL(ops[0].calls, 1);
	CU_ASSERT_EQUAL(ops[0].res, 0);

	nvmf_fault_reset();
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &ops[1].op), 0);
	CU_ASSERT_EQUAL(nvmf_aio_flush(&aio), 0); /* in the kernel before the failure */
	r.err = -ENXIO;
	r.count = 0;
	nvmf_fault_add(&r);
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &ops[2].op), 0);
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &ops[3].op), 0);
	CU_ASSERT_EQUAL(nvmf_aio_flush(&aio), -ENXIO);
	CU_ASSERT_EQUAL(ops[2].calls + ops[3].calls, 0); /* not inside the flush */
	CU_ASSERT_EQUAL(aio.error, -ENXIO);
	CU_ASSERT_EQUAL(aio.queued, 0);
	CU_ASSERT_EQUAL(nvmf_aio_fsync(&aio, fd, &ops[4].op), -ENXIO);
	CU_ASSERT_EQUAL(nvmf_aio_flush(&aio), -ENXIO);
	CU_ASSERT_EQUAL(drain(&aio, 3), 3);
	CU_ASSERT_EQUAL(ops[1].calls, 1);
	CU_ASSERT_EQUAL(ops[1].res, 0);
	for (int i = 2; i < 4; i++) {
		CU_ASSERT_EQUAL(ops[i].calls, 1);
		CU_ASSERT_EQUAL(ops[i].res, -ENXIO);
		CU_ASSERT_EQUAL(ops[i].op.res2, 0);
	}
	CU_ASSERT_EQUAL(ops[4].calls, 0);
	CU_ASSERT_EQUAL(aio.inflight, 0);
	CU_ASSERT_EQUAL(aio.failed, 0);
	nvmf_fault_reset();
	nvmf_aio_fini(&aio);
	close(fd);
}

/* This kernel (5.19+) takes SQE128 | CQE32: the ring can carry NVMe passthrough. */
static void init_sets_up_big_entries_when_the_kernel_has_them(void)
{
	struct nvmf_aio aio;
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	if (!aio.big) {
		nvmf_aio_fini(&aio);
		unit_not_run("the kernel has no IORING_SETUP_SQE128 (before 5.19)");
		return;
	}
	CU_ASSERT_TRUE(aio.ring.flags & IORING_SETUP_SQE128);
	CU_ASSERT_TRUE(aio.ring.flags & IORING_SETUP_CQE32);
	nvmf_aio_fini(&aio);
	CU_ASSERT_FALSE(aio.big);
}

/* A uring command on a file whose driver has none completes through done() with a
 * -errno, not at queue time, and the ring goes on: several reads queued around it (each
 * in a 32-byte CQE) come back with their own op and data, and res2 is 0 for them. */
static void uring_cmd_on_a_plain_file_fails_through_done_and_the_ring_goes_on(void)
{
	struct nvmf_aio aio;
	int fd = scratch_fd();
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	if (!aio.big) {
		nvmf_aio_fini(&aio);
		close(fd);
		unit_not_run("the kernel has no IORING_SETUP_SQE128 (before 5.19)");
		return;
	}
	char data[4][512], in[4][512];
	for (int i = 0; i < 4; i++) {
		memset(data[i], 'a' + i, sizeof(data[i]));
		CU_ASSERT_FATAL(pwrite(fd, data[i], 512, i * 512) == 512);
	}
	memset(in, 0, sizeof(in));
	struct counted_op r[4], c = { .op.done = count_done, .op.res2 = 77 };
	uint8_t cmd[72];
	memset(cmd, 0x5a, sizeof(cmd));
	for (int i = 0; i < 2; i++) {
		r[i] = (struct counted_op){ .op.done = count_done, .op.res2 = 99 };
		CU_ASSERT_EQUAL(nvmf_aio_read(&aio, fd, in[i], 512, i * 512, &r[i].op), 0);
	}
	CU_ASSERT_EQUAL(nvmf_aio_uring_cmd(&aio, fd, 0x80, cmd, sizeof(cmd), &c.op), 0);
	for (int i = 2; i < 4; i++) {
		r[i] = (struct counted_op){ .op.done = count_done, .op.res2 = 99 };
		CU_ASSERT_EQUAL(nvmf_aio_read(&aio, fd, in[i], 512, i * 512, &r[i].op), 0);
	}
	CU_ASSERT_EQUAL(drain(&aio, 5), 5);
	CU_ASSERT_EQUAL(c.calls, 1);
	CU_ASSERT_TRUE(c.res == -EOPNOTSUPP || c.res == -ENOTTY || c.res == -EINVAL);
	CU_ASSERT_EQUAL(c.op.res2, 0);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(r[i].calls, 1);
		CU_ASSERT_EQUAL(r[i].res, 512);
		CU_ASSERT_EQUAL(r[i].op.res2, 0);
		CU_ASSERT_EQUAL(memcmp(in[i], data[i], 512), 0);
	}
	CU_ASSERT_EQUAL(aio.inflight, 0);
	CU_ASSERT_EQUAL(aio.error, 0);
	nvmf_aio_fini(&aio);
	close(fd);
}

/* Refused at queue time, nothing queued: a command longer than the SQE's 80 bytes, and
 * any command on a plain ring (a kernel before 5.19). */
static void uring_cmd_refuses_a_long_command_and_a_plain_ring(void)
{
	struct nvmf_aio aio;
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	uint8_t cmd[NVMF_AIO_URING_CMD_MAX + 1] = { 0 };
	struct counted_op c = { .op.done = count_done };
	bool big = aio.big;
	if (big)
		CU_ASSERT_EQUAL(nvmf_aio_uring_cmd(&aio, 0, 0x80, cmd, sizeof(cmd), &c.op),
				-EINVAL);
	aio.big = false; /* what init leaves on an older kernel */
	CU_ASSERT_EQUAL(nvmf_aio_uring_cmd(&aio, 0, 0x80, cmd, 72, &c.op), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(aio.queued, 0);
	CU_ASSERT_EQUAL(c.calls, 0);
	aio.big = big;
	nvmf_aio_fini(&aio);
}

/* ---- remote completions ---- */

struct remote_op {
	struct nvmf_aio_op op;
	unsigned producer, seq;
};

/* What the owner saw: ops in the order their done() ran. */
struct remote_log {
	unsigned n;
	unsigned next_seq[8]; /* per producer: the seq expected next */
	bool out_of_order;
	int last_res;
};

static void remote_done(struct nvmf_aio_op *op, int res)
{
	struct remote_op *r = (struct remote_op *)op;
	struct remote_log *log = op->ctx;
	if (r->seq != log->next_seq[r->producer])
		log->out_of_order = true;
	log->next_seq[r->producer] = r->seq + 1;
	log->last_res = res;
	log->n++;
}

static bool fd_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, timeout_ms) == 1;
}

static void remote_completions_run_at_poll_in_completion_order(void)
{
	struct nvmf_aio aio;
	CU_ASSERT_EQUAL_FATAL(nvmf_aio_init(&aio, 8), 0);
	struct remote_log log = { 0 };
	struct remote_op ops[3];
	CU_ASSERT_FALSE(nvmf_aio_busy(&aio));
	for (unsigned i = 0; i < 3; i++) {
		ops[i] = (struct remote_op){ .op = { .done = remote_done, .ctx = &log }, .seq = i };
		nvmf_aio_remote_begin(&aio, &ops[i].op);
	}
	CU_ASSERT_TRUE(nvmf_aio_busy(&aio));
	CU_ASSERT_EQUAL(nvmf_aio_poll(&aio, 64), 0); /* none completed yet */
	CU_ASSERT_FALSE(fd_readable(aio.event_fd, 0));
	for (unsigned i = 0; i < 3; i++)
		nvmf_aio_complete_remote(&aio, &ops[i].op, 4096 * (int)i);
	CU_ASSERT_EQUAL(log.n, 0); /* never inside complete_remote */
	CU_ASSERT_TRUE(fd_readable(aio.event_fd, 0));
	CU_ASSERT_EQUAL(nvmf_aio_poll(&aio, 64), 3);
	CU_ASSERT_EQUAL(log.n, 3);
	CU_ASSERT_FALSE(log.out_of_order);
	CU_ASSERT_EQUAL(log.last_res, 8192);
	CU_ASSERT_FALSE(nvmf_aio_busy(&aio));
	CU_ASSERT_FALSE(fd_readable(aio.event_fd, 0)); /* the poll cleared it */
	nvmf_aio_fini(&aio);
}

static void remote_cancel_uncounts_an_op_that_never_went_out(void)
{
	struct nvmf_aio aio;
	CU_ASSERT_EQUAL_FATAL(nvmf_aio_init(&aio, 8), 0);
	struct remote_log log = { 0 };
	struct remote_op op = { .op = { .done = remote_done, .ctx = &log } };
	nvmf_aio_remote_begin(&aio, &op.op);
	CU_ASSERT_TRUE(nvmf_aio_busy(&aio));
	nvmf_aio_remote_cancel(&aio);
	CU_ASSERT_FALSE(nvmf_aio_busy(&aio));
	CU_ASSERT_EQUAL(nvmf_aio_poll(&aio, 64), 0);
	CU_ASSERT_EQUAL(log.n, 0);
	nvmf_aio_fini(&aio);
}

#define REMOTE_THREADS 4
#define REMOTE_PER     2000

struct producer {
	struct nvmf_aio *aio;
	struct remote_op *ops; /* REMOTE_PER of them, completed in seq order */
};

static void *producer_run(void *arg)
{
	struct producer *p = arg;
	for (unsigned i = 0; i < REMOTE_PER; i++)
		nvmf_aio_complete_remote(p->aio, &p->ops[i].op, 0);
	return NULL;
}

static void remote_completions_from_many_threads_all_run_once_in_order(void)
{
	struct nvmf_aio aio;
	CU_ASSERT_EQUAL_FATAL(nvmf_aio_init(&aio, 8), 0);
	struct remote_log log = { 0 };
	struct remote_op *ops = calloc(REMOTE_THREADS * REMOTE_PER, sizeof(*ops));
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	struct producer prod[REMOTE_THREADS];
	pthread_t th[REMOTE_THREADS];
	for (unsigned t = 0; t < REMOTE_THREADS; t++) {
		prod[t] = (struct producer){ &aio, ops + t * REMOTE_PER };
		for (unsigned i = 0; i < REMOTE_PER; i++) {
			struct remote_op *r = &prod[t].ops[i];
			*r = (struct remote_op){ .op = { .done = remote_done, .ctx = &log },
						 .producer = t,
						 .seq = i };
			nvmf_aio_remote_begin(&aio, &r->op);
		}
	}
	for (unsigned t = 0; t < REMOTE_THREADS; t++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[t], NULL, producer_run, &prod[t]), 0);
	/* The owner sleeps on the eventfd like a poll group, and polls as it is woken. */
	for (int spins = 0; nvmf_aio_busy(&aio) && spins < 10000; spins++)
		if (!nvmf_aio_poll(&aio, 64))
			fd_readable(aio.event_fd, 1000);
	for (unsigned t = 0; t < REMOTE_THREADS; t++)
		pthread_join(th[t], NULL);
	CU_ASSERT_EQUAL(log.n, REMOTE_THREADS * REMOTE_PER);
	CU_ASSERT_FALSE(log.out_of_order);
	for (unsigned t = 0; t < REMOTE_THREADS; t++)
		CU_ASSERT_EQUAL(log.next_seq[t], REMOTE_PER);
	CU_ASSERT_FALSE(nvmf_aio_busy(&aio));
	free(ops);
	nvmf_aio_fini(&aio);
}

static void *late_complete(void *arg)
{
	struct remote_op *r = arg;
	usleep(50 * 1000);
	nvmf_aio_complete_remote(r->op.aio, &r->op, -5);
	return NULL;
}

static void remote_completion_wakes_a_sleeper_on_the_eventfd(void)
{
	struct nvmf_aio aio;
	CU_ASSERT_EQUAL_FATAL(nvmf_aio_init(&aio, 8), 0);
	struct remote_log log = { 0 };
	struct remote_op r = { .op = { .done = remote_done, .ctx = &log } };
	nvmf_aio_remote_begin(&aio, &r.op);
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, late_complete, &r), 0);
	/* Asleep on the fd a poll group waits on: woken by the other thread's completion. */
	CU_ASSERT_TRUE(fd_readable(aio.event_fd, 5000));
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(nvmf_aio_poll(&aio, 64), 1);
	CU_ASSERT_EQUAL(log.n, 1);
	CU_ASSERT_EQUAL(log.last_res, -5);
	CU_ASSERT_FALSE(nvmf_aio_busy(&aio));
	nvmf_aio_poll(&aio, 64);
	CU_ASSERT_FALSE(fd_readable(aio.event_fd, 0)); /* no wake loop afterwards */
	nvmf_aio_fini(&aio);
}

const struct unit_test aio_tests[] = {
	{ "init_rejects_depth_not_power_of_two", init_rejects_depth_not_power_of_two },
	{ "write_then_read_returns_bytes_and_data", write_then_read_returns_bytes_and_data },
	{ "errors_come_back_as_negative_errno", errors_come_back_as_negative_errno },
	{ "queue_returns_eagain_when_no_sqe_is_free", queue_returns_eagain_when_no_sqe_is_free },
	{ "queue_returns_eagain_when_completion_queue_budget_is_used",
	  queue_returns_eagain_when_completion_queue_budget_is_used },
	{ "done_may_queue_a_continuation_during_poll", done_may_queue_a_continuation_during_poll },
	{ "poll_reaps_at_most_max", poll_reaps_at_most_max },
	{ "eventfd_wakes_a_sleeper_and_poll_clears_it",
	  eventfd_wakes_a_sleeper_and_poll_clears_it },
	{ "fallocate_punch_hole_reads_back_zeroes", fallocate_punch_hole_reads_back_zeroes },
	{ "submit_failure_keeps_ops_for_a_retry_or_ends_them_for_good",
	  submit_failure_keeps_ops_for_a_retry_or_ends_them_for_good },
	{ "init_sets_up_big_entries_when_the_kernel_has_them",
	  init_sets_up_big_entries_when_the_kernel_has_them },
	{ "uring_cmd_on_a_plain_file_fails_through_done_and_the_ring_goes_on",
	  uring_cmd_on_a_plain_file_fails_through_done_and_the_ring_goes_on },
	{ "uring_cmd_refuses_a_long_command_and_a_plain_ring",
	  uring_cmd_refuses_a_long_command_and_a_plain_ring },
	{ "remote_completions_run_at_poll_in_completion_order",
	  remote_completions_run_at_poll_in_completion_order },
	{ "remote_cancel_uncounts_an_op_that_never_went_out",
	  remote_cancel_uncounts_an_op_that_never_went_out },
	{ "remote_completions_from_many_threads_all_run_once_in_order",
	  remote_completions_from_many_threads_all_run_once_in_order },
	{ "remote_completion_wakes_a_sleeper_on_the_eventfd",
	  remote_completion_wakes_a_sleeper_on_the_eventfd },
	{ NULL, NULL },
};
