/* Helpers shared by the backend unit tests (tests/unit/subsystem/backend*_test.c). */
#ifndef NVMF_TESTS_UNIT_SUBSYSTEM_BACKEND_UTIL_H
#define NVMF_TESTS_UNIT_SUBSYSTEM_BACKEND_UTIL_H
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/backend.h"
#include "tests/unit/suites.h"

static inline void *aligned_buf(size_t len)
{
	void *p = aligned_alloc(4096, len < 4096 ? 4096 : len);
	CU_ASSERT_FATAL(p != NULL);
	return p;
}

static inline void fill(void *buf, size_t len, unsigned seed)
{
	unsigned char *p = buf;
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)((i * 31 + seed * 17 + (i >> 9)) & 0xff);
}

static inline bool all_zero(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

struct waiter {
	int calls;
	int status;
};

static inline void io_done(struct nvmf_bdev_io *io, int status)
{
	struct waiter *w = io->ctx;
	w->calls++;
	w->status = status;
}

/* Submits one request and drives the ring until it completes (5 s at most). Returns its
 * status, or 1000 if it never completed. */
static inline int run_io(struct nvmf_bdev *b, struct nvmf_aio *aio, enum nvmf_bdev_op op,
		  uint64_t off, uint64_t len, void *buf)
{
	struct waiter w = { 0 };
	struct nvmf_bdev_io io = { .op = op, .offset = off, .len = len, .buf = buf,
				   .done = io_done, .ctx = &w };
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, aio, &io), 0);
	for (int i = 0; w.calls == 0 && i < 5000; i++) {
		nvmf_aio_flush(aio);
		if (nvmf_aio_poll(aio, 64) == 0 && w.calls == 0) {
			struct pollfd p = { .fd = aio->event_fd, .events = POLLIN };
			poll(&p, 1, 1);
		}
	}
	CU_ASSERT_EQUAL(w.calls, 1);
	return w.calls ? w.status : 1000;
}

/* Writes a pattern at @off and reads it back into a second buffer. */
static inline void check_round_trip(struct nvmf_bdev *b, struct nvmf_aio *aio, uint64_t off,
			     size_t len, unsigned seed)
{
	void *out = aligned_buf(len), *in = aligned_buf(len);
	fill(out, len, seed);
	memset(in, 0xee, len);
	CU_ASSERT_EQUAL(run_io(b, aio, NVMF_BDEV_WRITE, off, len, out), 0);
	CU_ASSERT_EQUAL(run_io(b, aio, NVMF_BDEV_READ, off, len, in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
	free(out);
	free(in);
}

#endif
