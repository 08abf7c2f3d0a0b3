/* Unit tests for subsystem/backend-ram.c, and the request checks of nvmf_bdev_submit()
 * (shown on the RAM backend, which needs no file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"

/* ---- request checks (shared by every backend) ---- */

static void io_outside_namespace_or_misaligned_completes_with_einval(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 1, .kind = NVMF_BACKEND_RAM, .size_bytes = 1 << 20 };
	struct nvmf_aio aio;
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	char *buf = aligned_buf(8192);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 100, 512, buf), -EINVAL);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 0, 700, buf), -EINVAL);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, (1 << 20) - 512, 1024, buf), -EINVAL);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_WRITE, 1 << 20, 512, buf), -EINVAL);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_DISCARD, UINT64_MAX - 511, 1024, NULL), -EINVAL);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, (1 << 20) - 512, 512, buf), 0);
	free(buf);
	nvmf_bdev_close(b);
	nvmf_aio_fini(&aio);
}

/* ---- ram backend ---- */

static struct nvmf_bdev *open_ram(uint64_t size, uint32_t bs, char *err, size_t errlen)
{
	struct nvmf_ns_config c = {
		.nsid = 1, .kind = NVMF_BACKEND_RAM, .size_bytes = size, .block_size = bs
	};
	return nvmf_bdev_open(&c, err, errlen);
}

static void ram_write_then_read_returns_same_data(void)
{
	char err[256];
	struct nvmf_aio aio;
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	struct nvmf_bdev *b = open_ram(4u << 20, 0, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->block_size, 512);
	CU_ASSERT_EQUAL(b->size, 4u << 20);
	CU_ASSERT_EQUAL(b->fd, -1);
	CU_ASSERT_FALSE(b->volatile_cache);
	CU_ASSERT_STRING_EQUAL(b->ops->name, "ram");
	check_round_trip(b, &aio, 0, 512, 20);
	check_round_trip(b, &aio, 1536, 4096, 21);
	check_round_trip(b, &aio, 2u << 20, 1u << 20, 22);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_FLUSH, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(aio.queued + aio.inflight, 0); /* no io_uring involved */
	nvmf_bdev_close(b);
	nvmf_aio_fini(&aio);
}

static void ram_completes_inside_submit(void)
{
	char err[256];
	struct nvmf_bdev *b = open_ram(1 << 20, 4096, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	char *buf = aligned_buf(4096);
	struct waiter w = { 0 };
	struct nvmf_bdev_io io = { .op = NVMF_BDEV_READ,
				   .offset = 4096,
				   .len = 4096,
				   .buf = buf,
				   .done = io_done,
				   .ctx = &w };
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, NULL, &io), 0);
	CU_ASSERT_EQUAL(w.calls, 1);
	CU_ASSERT_EQUAL(w.status, 0);
	CU_ASSERT_TRUE(all_zero(buf, 4096)); /* fresh memory reads as zeroes */
	free(buf);
	nvmf_bdev_close(b);
}

static void check_ram_zeroing(enum nvmf_bdev_op op)
{
	char err[256];
	struct nvmf_aio aio;
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	struct nvmf_bdev *b = open_ram(1 << 20, 0, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	size_t len = 64 * 1024;
	char *out = aligned_buf(len), *in = aligned_buf(len);
	fill(out, len, 23);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_WRITE, 0, len, out), 0);
	/* inside one page; then spanning pages with partial pages at both ends */
	CU_ASSERT_EQUAL(run_io(b, &aio, op, 1024, 1024, NULL), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, op, 4096 * 3 + 512, 4096 * 5, NULL), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 0, len, in), 0);
	size_t z2 = 4096 * 3 + 512, e2 = z2 + 4096 * 5;
	CU_ASSERT_EQUAL(memcmp(in, out, 1024), 0);
	CU_ASSERT_TRUE(all_zero(in + 1024, 1024));
	CU_ASSERT_EQUAL(memcmp(in + 2048, out + 2048, z2 - 2048), 0);
	CU_ASSERT_TRUE(all_zero(in + z2, e2 - z2));
	CU_ASSERT_EQUAL(memcmp(in + e2, out + e2, len - e2), 0);
	free(out);
	free(in);
	nvmf_bdev_close(b);
	nvmf_aio_fini(&aio);
}

static void ram_discard_reads_back_zeroes(void)
{
	check_ram_zeroing(NVMF_BDEV_DISCARD);
}

static void ram_write_zeroes_reads_back_zeroes(void)
{
	check_ram_zeroing(NVMF_BDEV_WRITE_ZEROES);
}

static void ram_without_size_is_refused(void)
{
	char err[256];
	CU_ASSERT_PTR_NULL(open_ram(0, 0, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err,
			       "ram: nvmf_size_bytes 0 is smaller than one block of 512 bytes");
	CU_ASSERT_PTR_NULL(open_ram(1 << 20, 3000, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "ram: block size 3000 is not a power of two from 512 to 65536");
}

static void ram_size_is_rounded_down_to_block_size(void)
{
	char err[256];
	struct nvmf_bdev *b = open_ram(10000, 4096, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->size, 8192);
	nvmf_bdev_close(b);
}

/* Resize in place: data below the old end stays, what grows reads zeroes (also after a
 * shrink), past the reservation is refused by name, the memory never moves. */
static void ram_resizes_in_place_and_refuses_past_its_reservation(void)
{
	char err[256] = "";
	struct nvmf_aio aio;
	CU_ASSERT_FATAL(nvmf_aio_init(&aio, 8) == 0);
	struct nvmf_bdev *b = open_ram(1 << 20, 512, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	void *mem = b->mem;
	char *buf = aligned_buf(4096), *back = aligned_buf(4096);
	memset(buf, 0x6b, 4096);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_WRITE, (1 << 20) - 4096, 4096, buf), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_WRITE, 1 << 20, 4096, buf), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(nvmf_bdev_resize(b, 4 << 20, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(b->size, 4u << 20);
	CU_ASSERT_PTR_EQUAL(b->mem, mem);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, (1 << 20) - 4096, 4096, back), 0);
	CU_ASSERT_EQUAL(memcmp(back, buf, 4096), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_WRITE, 3 << 20, 4096, buf), 0);
	/* Shrunk below that write and grown again: zeroes there. */
	CU_ASSERT_EQUAL(nvmf_bdev_resize(b, 2 << 20, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 3 << 20, 4096, back), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_bdev_resize(b, 4 << 20, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(run_io(b, &aio, NVMF_BDEV_READ, 3 << 20, 4096, back), 0);
	static const char zero[4096];
	CU_ASSERT_EQUAL(memcmp(back, zero, 4096), 0);
	CU_ASSERT_EQUAL(nvmf_bdev_resize(b, b->mem_reserved + 4096, err, sizeof(err)), -ENOSPC);
	char want[160];
	snprintf(want, sizeof(want),
		 "ram: cannot grow past the %llu bytes reserved when it was opened",
		 (unsigned long long)b->mem_reserved);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(nvmf_bdev_resize(b, 1000, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err, "size 1000 bytes is not a positive multiple of the block size (512)");
	CU_ASSERT_EQUAL(b->size, 4u << 20);
	free(buf);
	free(back);
	nvmf_bdev_close(b);
	nvmf_aio_fini(&aio);
}

/* Block devices and NVMe drives have the size of their device; a file takes the new one. */
static void resize_of_a_device_is_refused_and_a_file_follows(void)
{
	char err[256] = "";
	struct nvmf_bdev dev = { .ops = &nvmf_backend_bdev_ops,
				 .block_size = 512,
				 .size = 1 << 20 };
	CU_ASSERT_EQUAL(nvmf_bdev_resize(&dev, 2 << 20, err, sizeof(err)), -ENOTSUP);
	CU_ASSERT_STRING_EQUAL(err,
			       "a \"bdev\" namespace cannot be resized (ram, null and file can); "
			       "it takes its device's size: leave the size out");
	char path[] = "/tmp/nvmf-resize-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	struct nvmf_ns_config c = { .nsid = 1,
				    .kind = NVMF_BACKEND_FILE,
				    .path = path,
				    .size_bytes = 1 << 20,
				    .create = true,
				    .buffered = true };
	struct nvmf_bdev *b = nvmf_bdev_open(&c, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	struct stat st;
	CU_ASSERT_EQUAL(nvmf_bdev_resize(b, 3 << 20, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 3 << 20);
	CU_ASSERT_EQUAL(b->size, 3u << 20);
	CU_ASSERT_EQUAL(nvmf_bdev_resize(b, 1 << 20, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 1 << 20);
	nvmf_bdev_close(b);
	unlink(path);
}

/* I/O hints: any write size is fine (0: one block), a deallocate frees whole pages. */
static void ram_hints_say_deallocation_frees_whole_pages(void)
{
	char err[256];
	struct nvmf_bdev *b = open_ram(1u << 20, 512, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->write_granularity, 0);
	CU_ASSERT_EQUAL(b->discard_granularity, (uint32_t)sysconf(_SC_PAGESIZE));
	CU_ASSERT_EQUAL(b->optimal_io, 0);
	nvmf_bdev_close(b);
}

const struct unit_test backend_ram_tests[] = {
	{ "ram_hints_say_deallocation_frees_whole_pages",
	  ram_hints_say_deallocation_frees_whole_pages },
	{ "resize_of_a_device_is_refused_and_a_file_follows",
	  resize_of_a_device_is_refused_and_a_file_follows },
	{ "ram_resizes_in_place_and_refuses_past_its_reservation",
	  ram_resizes_in_place_and_refuses_past_its_reservation },
	{ "io_outside_namespace_or_misaligned_completes_with_einval",
	  io_outside_namespace_or_misaligned_completes_with_einval },
	{ "ram_write_then_read_returns_same_data", ram_write_then_read_returns_same_data },
	{ "ram_completes_inside_submit", ram_completes_inside_submit },
	{ "ram_discard_reads_back_zeroes", ram_discard_reads_back_zeroes },
	{ "ram_write_zeroes_reads_back_zeroes", ram_write_zeroes_reads_back_zeroes },
	{ "ram_without_size_is_refused", ram_without_size_is_refused },
	{ "ram_size_is_rounded_down_to_block_size", ram_size_is_rounded_down_to_block_size },
	{ NULL, NULL },
};
