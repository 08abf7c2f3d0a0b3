/* Helpers shared by the backend unit tests (tests/unit/subsystem/backend*_test.c). */
#ifndef NVMF_TESTS_UNIT_SUBSYSTEM_BACKEND_UTIL_H
#define NVMF_TESTS_UNIT_SUBSYSTEM_BACKEND_UTIL_H
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
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
	struct nvmf_bdev_io io = {
		.op = op, .offset = off, .len = len, .buf = buf, .done = io_done, .ctx = &w
	};
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

/* A scratch folder under @base (removed with what is in it by fixture_fini), the path of a
 * namespace file in it and an io_uring of 64 entries. */
struct fixture {
	char dir[64];
	char path[128]; /* dir/ns.img */
	struct nvmf_aio aio;
	char err[256];
};

static inline void fixture_init(struct fixture *f, const char *base)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "%s/nvmf-backend-XXXXXX", base);
	CU_ASSERT_FATAL(mkdtemp(f->dir) != NULL);
	snprintf(f->path, sizeof(f->path), "%s/ns.img", f->dir);
	CU_ASSERT_FATAL(nvmf_aio_init(&f->aio, 64) == 0);
}

static inline int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static inline void fixture_fini(struct fixture *f)
{
	nvmf_aio_fini(&f->aio);
	nftw(f->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static inline struct nvmf_ns_config file_cfg(const char *path, uint64_t size, bool create)
{
	struct nvmf_ns_config c = { .nsid = 1,
				    .enable = true,
				    .path = (char *)path,
				    .kind = NVMF_BACKEND_FILE,
				    .size_bytes = size,
				    .create = create };
	return c;
}

/* @path as a file of @size bytes (sparse), created or truncated. */
static inline void write_file(const char *path, size_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(ftruncate(fd, (off_t)size), 0);
	close(fd);
}

#endif
