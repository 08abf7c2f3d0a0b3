/* SPDX-License-Identifier: MIT */
/*
 * RAM backend: the namespace is anonymous memory of nvmf_size_bytes, lost at exit.
 * Every request completes inside submit with a memcpy. Pages are reserved lazily
 * (MAP_NORESERVE), so a large namespace costs only what has been written. Address space
 * for RAM_RESERVE bytes (or the size, if larger) is reserved at open, inaccessible past
 * the size, so the namespace grows in place while I/O runs: its memory never moves.
 */
#include "subsystem/backend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RAM_RESERVE (1ull << 40) /* 1 TiB of address space: costs nothing until used */

static int ram_open(struct nvmf_bdev *b, const struct nvmf_ns_config *cfg, char *err, size_t errlen)
{
	if (nvmf_backend_block_size(cfg, "ram", &b->block_size, err, errlen) < 0)
		return -1;
	b->size = cfg->size_bytes - cfg->size_bytes % b->block_size;
	if (b->size == 0) {
		snprintf(err, errlen,
			 "ram: nvmf_size_bytes %llu is smaller than one block of %u bytes",
			 (unsigned long long)cfg->size_bytes, b->block_size);
		return -1;
	}
	uint64_t reserve = b->size > RAM_RESERVE ? b->size : RAM_RESERVE;
	void *mem =
		mmap(NULL, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) { /* a small address space (ulimit -v): no room to grow */
		reserve = b->size;
		mem = mmap(NULL, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			   -1, 0);
	}
	if (mem == MAP_FAILED || mprotect(mem, b->size, PROT_READ | PROT_WRITE) < 0) {
		snprintf(err, errlen, "ram: cannot map %llu bytes: %s", (unsigned long long)b->size,
			 strerror(errno));
		if (mem != MAP_FAILED)
			munmap(mem, reserve);
		return -1;
	}
	b->mem = mem;
	b->mem_reserved = reserve;
	b->volatile_cache = false; /* nothing outlives the process anyway */
	/* Any write size is fine (write_granularity 0: one block); a deallocate frees whole
	 * pages (MADV_DONTNEED), the rest of a page is only zeroed. */
	b->discard_granularity = (uint32_t)sysconf(_SC_PAGESIZE);
	return 0;
}

static void ram_close(struct nvmf_bdev *b)
{
	if (b->mem)
		munmap(b->mem, b->mem_reserved);
	b->mem = NULL;
}

/* Zeroes [off, off+len): whole pages are dropped (anonymous private pages read back as
 * zeroes and stop using memory, which is what a deallocate should do), edges memset. */
static void ram_zero(struct nvmf_bdev *b, uint64_t off, uint64_t len)
{
	char *p = (char *)b->mem + off, *end = p + len;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	char *first = (char *)(((uintptr_t)p + page - 1) & ~(page - 1));
	char *last = (char *)((uintptr_t)end & ~(page - 1));
	if (first < last && madvise(first, (size_t)(last - first), MADV_DONTNEED) == 0) {
		memset(p, 0, (size_t)(first - p));
		memset(last, 0, (size_t)(end - last));
	} else {
		memset(p, 0, len);
	}
}

static int ram_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	(void)aio;
	char *at = (char *)b->mem + io->offset;
	switch (io->op) {
	case NVMF_BDEV_READ:
		memcpy(io->buf, at, io->len);
		break;
	case NVMF_BDEV_WRITE:
		memcpy(at, io->buf, io->len);
		break;
	case NVMF_BDEV_FLUSH:
		break;
	case NVMF_BDEV_WRITE_ZEROES:
	case NVMF_BDEV_DISCARD:
		ram_zero(b, io->offset, io->len);
		break;
	case NVMF_BDEV_NVME_CMD: /* never reaches here: nvmf_bdev_submit */
	case NVMF_BDEV_COMPARE_AND_WRITE:
		io->done(io, -EOPNOTSUPP);
		return 0;
	}
	io->done_bytes = io->len;
	io->done(io, 0);
	return 0;
}

/* Growing opens more of the reservation (its pages read as zeroes); shrinking drops the
 * tail's pages but leaves them mapped, so an I/O checked against the old size still lands
 * in memory that exists. */
static int ram_resize(struct nvmf_bdev *b, uint64_t size, char *err, size_t errlen)
{
	uint64_t old = b->size;
	if (size > b->mem_reserved) {
		snprintf(err, errlen,
			 "ram: cannot grow past the %llu bytes reserved when it was opened",
			 (unsigned long long)b->mem_reserved);
		return -ENOSPC;
	}
	if (size > old) {
		if (mprotect(b->mem, size, PROT_READ | PROT_WRITE) < 0) {
			int e = errno;
			snprintf(err, errlen, "ram: cannot grow to %llu bytes: %s",
				 (unsigned long long)size, strerror(e));
			return -e;
		}
		/* A write that raced an earlier shrink may have landed past the end: what the
		 * host sees grow must read as zeroes. Pages never touched cost nothing here. */
		ram_zero(b, old, size - old);
		__atomic_store_n(&b->size, size, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&b->size, size, __ATOMIC_RELEASE);
		ram_zero(b, size, old - size); /* a later grow reads zeroes there */
	}
	return 0;
}

const struct nvmf_bdev_ops nvmf_backend_ram_ops = {
	.name = "ram",
	.open = ram_open,
	.close = ram_close,
	.submit = ram_submit,
	.resize = ram_resize,
};
