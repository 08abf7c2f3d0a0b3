/* Unit tests for subsystem/backend-null.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"

/* ---- null backend ---- */

static void null_reads_return_zeroes_after_writes(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 1,
				    .kind = NVMF_BACKEND_NULL,
				    .size_bytes = 1ull << 40 };
	struct nvmf_bdev *b = nvmf_bdev_open(&c, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->size, 1ull << 40);
	CU_ASSERT_FALSE(b->volatile_cache);
	CU_ASSERT_STRING_EQUAL(b->ops->name, "null");
	char *buf = aligned_buf(8192);
	memset(buf, 0x77, 8192);
	struct waiter w = { 0 };
	struct nvmf_bdev_io io = { .op = NVMF_BDEV_WRITE,
				   .offset = 1ull << 39,
				   .len = 8192,
				   .buf = buf,
				   .done = io_done,
				   .ctx = &w };
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, NULL, &io), 0);
	CU_ASSERT_EQUAL(w.calls, 1);
	CU_ASSERT_EQUAL(w.status, 0);
	io.op = NVMF_BDEV_READ;
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, NULL, &io), 0);
	CU_ASSERT_EQUAL(w.calls, 2);
	CU_ASSERT_EQUAL(w.status, 0);
	CU_ASSERT_TRUE(all_zero(buf, 8192));
	io.op = NVMF_BDEV_FLUSH;
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, NULL, &io), 0);
	io.op = NVMF_BDEV_DISCARD;
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, NULL, &io), 0);
	CU_ASSERT_EQUAL(w.calls, 4);
	CU_ASSERT_EQUAL(w.status, 0);
	free(buf);
	nvmf_bdev_close(b);
}

static void null_without_size_is_refused(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 1, .kind = NVMF_BACKEND_NULL };
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err,
			       "null: nvmf_size_bytes 0 is smaller than one block of 512 bytes");
}

const struct unit_test backend_null_tests[] = {
	{ "null_reads_return_zeroes_after_writes", null_reads_return_zeroes_after_writes },
	{ "null_without_size_is_refused", null_without_size_is_refused },
	{ NULL, NULL },
};
