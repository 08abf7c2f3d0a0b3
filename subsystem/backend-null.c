/* SPDX-License-Identifier: MIT */
/*
 * Null backend: a namespace of nvmf_size_bytes that stores nothing (like the kernel's
 * null_blk), for measuring the fabric without storage. Writes, flushes and zeroing
 * succeed at once; reads return zeroes (a memset, so no stale buffer content reaches a
 * host).
 */
#include "subsystem/backend.h"

#include <stdio.h>
#include <string.h>

static int null_open(struct nvmf_bdev *b, const struct nvmf_ns_config *cfg, char *err,
		     size_t errlen)
{
	if (nvmf_backend_block_size(cfg, "null", &b->block_size, err, errlen) < 0)
		return -1;
	b->size = cfg->size_bytes - cfg->size_bytes % b->block_size;
	if (b->size == 0) {
		snprintf(err, errlen,
			 "null: nvmf_size_bytes %llu is smaller than one block of %u bytes",
			 (unsigned long long)cfg->size_bytes, b->block_size);
		return -1;
	}
	b->volatile_cache = false;
	return 0;
}

static void null_close(struct nvmf_bdev *b)
{
	(void)b;
}

static int null_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	(void)b;
	(void)aio;
	if (io->op == NVMF_BDEV_READ)
		memset(io->buf, 0, io->len);
	io->done_bytes = io->len;
	io->done(io, 0);
	return 0;
}

static int null_resize(struct nvmf_bdev *b, uint64_t size, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	__atomic_store_n(&b->size, size, __ATOMIC_RELEASE);
	return 0;
}

const struct nvmf_bdev_ops nvmf_backend_null_ops = {
	.name = "null",
	.open = null_open,
	.close = null_close,
	.submit = null_submit,
	.resize = null_resize,
};
