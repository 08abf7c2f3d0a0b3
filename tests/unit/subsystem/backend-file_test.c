/* The file backend (subsystem/backend-file.c) through the backend interface: data round
 * trips, sizes and creation, zeroing, O_DIRECT or buffered, in-memory files, request
 * checks, a full ring. Kind inference is in backend_test.c. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <mntent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"

#define TMPFS_MAGIC_NR 0x01021994

/* ---- fixtures (struct fixture: backend_util.h) ---- */

static bool fs_is_tmpfs(const char *dir)
{
	struct statfs sfs;
	return statfs(dir, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC_NR;
}

/* Whether @dir's filesystem accepts O_DIRECT opens (what the backend should detect). */
static bool fs_takes_o_direct(const char *dir)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/probe", dir);
	int fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0)
		return false;
	close(fd);
	unlink(p);
	return true;
}

/* A writable tmpfs or ramfs mount (its path shorter than @len) of this machine, /dev/shm first, for the tests of the
 * in-memory paths: @dir set and true, or false when there is none. */
static bool find_memory_fs(char *dir, size_t len)
{
	if (fs_is_tmpfs("/dev/shm") && access("/dev/shm", W_OK) == 0) {
		snprintf(dir, len, "/dev/shm");
		return true;
	}
	FILE *m = setmntent("/proc/self/mounts", "r");
	if (!m)
		return false;
	bool found = false;
	for (struct mntent *e; !found && (e = getmntent(m)) != NULL;) {
		if ((!strcmp(e->mnt_type, "tmpfs") || !strcmp(e->mnt_type, "ramfs")) &&
		    !hasmntopt(e, "ro") && access(e->mnt_dir, W_OK) == 0 &&
		    strlen(e->mnt_dir) < len) {
			snprintf(dir, len, "%s", e->mnt_dir);
			found = true;
		}
	}
	endmntent(m);
	return found;
}

/* A writable directory whose filesystem takes O_DIRECT (/tmp, /var/tmp, $TMPDIR or the
 * current directory, the tree the tests run from): @dir set and true, or false. */
static bool find_o_direct_fs(char *dir, size_t len)
{
	const char *tmpdir = getenv("TMPDIR");
	const char *cand[] = { "/tmp", "/var/tmp", tmpdir ? tmpdir : "/tmp", "." };
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		if (access(cand[i], W_OK) == 0 && strlen(cand[i]) < len &&
		    fs_takes_o_direct(cand[i])) {
			snprintf(dir, len, "%s", cand[i]);
			return true;
		}
	}
	return false;
}

/* ---- file backend ---- */

static void file_write_then_read_returns_same_data_512b_blocks(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 8u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->block_size, 512);
	CU_ASSERT_EQUAL(b->size, 8u << 20);
	CU_ASSERT_STRING_EQUAL(b->ops->name, "file");
	CU_ASSERT_TRUE(b->volatile_cache);
	check_round_trip(b, &f.aio, 0, 512, 1);
	check_round_trip(b, &f.aio, 512 * 7, 512, 2);
	check_round_trip(b, &f.aio, 512 * 9, 4096, 3);
	check_round_trip(b, &f.aio, 3u << 20, 1u << 20, 4);
	check_round_trip(b, &f.aio, (8u << 20) - 512, 512, 5); /* last block */
	/* earlier data untouched by later writes */
	void *in = aligned_buf(512), *out = aligned_buf(512);
	fill(out, 512, 1);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_READ, 0, 512, in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, 512), 0);
	free(in);
	free(out);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_with_4k_blocks_round_trips(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 4u << 20, true);
	c.block_size = 4096;
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->block_size, 4096);
	check_round_trip(b, &f.aio, 4096, 4096, 6);
	check_round_trip(b, &f.aio, 1u << 20, 1u << 20, 7);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_data_survives_close_and_reopen(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	void *out = aligned_buf(8192), *in = aligned_buf(8192);
	fill(out, 8192, 9);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_WRITE, 65536, 8192, out), 0);
	nvmf_bdev_close(b);
	c.create = false;
	b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_READ, 65536, 8192, in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, 8192), 0);
	free(out);
	free(in);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

/* A file shrunk under the namespace: reads beyond its end yield zeroes, including a
 * read that starts before EOF and ends after it (a short read, then EOF). */
static void check_read_past_eof(bool buffered)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	c.buffered = buffered;
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->direct, !buffered && fs_takes_o_direct(f.dir));
	void *out = aligned_buf(16384), *in = aligned_buf(16384);
	fill(out, 16384, 11);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_WRITE, 0, 16384, out), 0);
	CU_ASSERT_EQUAL(truncate(f.path, 6000), 0); /* ends mid-block */

	memset(in, 0xee, 16384);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_READ, 0, 16384, in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, 6000), 0);
	CU_ASSERT_TRUE(all_zero((char *)in + 6000, 16384 - 6000));

	memset(in, 0xee, 16384);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_READ, 512 * 100, 16384, in), 0);
	CU_ASSERT_TRUE(all_zero(in, 16384));
	free(out);
	free(in);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_read_past_eof_returns_zeroes_direct(void)
{
	check_read_past_eof(false);
}

static void file_read_past_eof_returns_zeroes_buffered(void)
{
	check_read_past_eof(true);
}

static void check_zeroing(enum nvmf_bdev_op op, const char *base)
{
	struct fixture f;
	fixture_init(&f, base);
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	size_t len = 64 * 1024;
	void *out = aligned_buf(len), *in = aligned_buf(len);
	fill(out, len, 12);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_WRITE, 0, len, out), 0);
	/* an unaligned-to-page range: 3 blocks from block 3, and a large one */
	CU_ASSERT_EQUAL(run_io(b, &f.aio, op, 1536, 1536, NULL), 0);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, op, 16384, 32768, NULL), 0);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_READ, 0, len, in), 0);
	CU_ASSERT_EQUAL(memcmp(in, out, 1536), 0);
	CU_ASSERT_TRUE(all_zero((char *)in + 1536, 1536));
	CU_ASSERT_EQUAL(memcmp((char *)in + 3072, (char *)out + 3072, 16384 - 3072), 0);
	CU_ASSERT_TRUE(all_zero((char *)in + 16384, 32768));
	CU_ASSERT_EQUAL(memcmp((char *)in + 49152, (char *)out + 49152, len - 49152), 0);
	struct stat st;
	CU_ASSERT_EQUAL(stat(f.path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 1 << 20); /* KEEP_SIZE */
	free(out);
	free(in);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_discard_reads_back_zeroes(void)
{
	check_zeroing(NVMF_BDEV_DISCARD, "/tmp");
}

static void file_write_zeroes_reads_back_zeroes(void)
{
	check_zeroing(NVMF_BDEV_WRITE_ZEROES, "/tmp");
}

/* tmpfs has PUNCH_HOLE but not ZERO_RANGE: WRITE_ZEROES falls back to punching. */
static void file_write_zeroes_on_tmpfs_falls_back_to_punch_hole(void)
{
	char dir[40];
	if (!find_memory_fs(dir, sizeof(dir))) {
		unit_not_run("no writable tmpfs or ramfs mounted");
		return;
	}
	check_zeroing(NVMF_BDEV_WRITE_ZEROES, dir);
	check_zeroing(NVMF_BDEV_DISCARD, dir);
}

static void file_flush_completes_with_success(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	c.buffered = true;
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	check_round_trip(b, &f.aio, 0, 4096, 13);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_FLUSH, 0, 0, NULL), 0);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_create_makes_sparse_file_of_size(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 64u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->size, 64u << 20);
	struct stat st;
	CU_ASSERT_EQUAL(stat(f.path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 64 << 20);
	CU_ASSERT_TRUE(st.st_blocks * 512 < (1 << 20)); /* sparse: nothing allocated */
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_missing_without_create_reports_path_and_reason(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[256];
	snprintf(want, sizeof(want), "%s: No such file or directory", f.path);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	/* the same through kind inference */
	c.kind = NVMF_BACKEND_AUTO;
	f.err[0] = '\0';
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	CU_ASSERT_STRING_EQUAL(f.err, want);
	fixture_fini(&f);
}

static void file_create_without_size_is_refused(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 0, true);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[256];
	snprintf(want, sizeof(want), "%s: nvmf_create needs nvmf_size_bytes", f.path);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	CU_ASSERT_NOT_EQUAL(access(f.path, F_OK), 0);
	fixture_fini(&f);
}

static void file_smaller_than_size_without_create_is_refused(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 4096);
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, false);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[256];
	snprintf(want, sizeof(want),
		 "%s: file is 4096 bytes, smaller than nvmf_size_bytes "
		 "1048576 (set nvmf_create to grow it)",
		 f.path);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	struct stat st;
	CU_ASSERT_EQUAL(stat(f.path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 4096); /* untouched */
	fixture_fini(&f);
}

static void file_smaller_than_size_with_create_is_grown(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 4096);
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->size, 1u << 20);
	struct stat st;
	CU_ASSERT_EQUAL(stat(f.path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 1 << 20);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_size_is_rounded_down_to_block_size(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 5000);
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->size, 4608);
	nvmf_bdev_close(b);

	c.block_size = 4096;
	b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->size, 4096);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_smaller_than_one_block_is_refused(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 100);
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[256];
	snprintf(want, sizeof(want), "%s: size 100 bytes is smaller than one block of 512 bytes",
		 f.path);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	fixture_fini(&f);
}

static void file_with_bad_block_size_is_refused(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 1 << 20);
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	c.block_size = 1000;
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[256];
	snprintf(want, sizeof(want), "%s: block size 1000 is not a power of two from 512 to 65536",
		 f.path);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	fixture_fini(&f);
}

static void file_kind_on_directory_is_refused(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.dir, 0, false);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[256];
	snprintf(want, sizeof(want), "%s: not a regular file", f.dir);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	fixture_fini(&f);
}

static void file_buffered_config_does_not_use_o_direct(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	c.buffered = true;
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_FALSE(b->direct);
	int fl = fcntl(b->fd, F_GETFL);
	CU_ASSERT_EQUAL(fl & O_DIRECT, 0);
	check_round_trip(b, &f.aio, 512, 512, 14);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_uses_o_direct_where_the_filesystem_allows(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	bool want = fs_takes_o_direct(f.dir);
	CU_ASSERT_EQUAL(b->direct, want);
	CU_ASSERT_EQUAL((fcntl(b->fd, F_GETFL) & O_DIRECT) != 0, want);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

/* tmpfs refuses O_DIRECT before Linux 6.6 (EINVAL at open): the backend must then open
 * buffered and still work; on newer kernels it uses O_DIRECT there too. */
static void file_on_tmpfs_uses_o_direct_only_if_the_kernel_allows(void)
{
	const char *base = fs_is_tmpfs("/dev/shm") ? "/dev/shm" : "/tmp";
	struct fixture f;
	fixture_init(&f, base);
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->direct, fs_takes_o_direct(f.dir));
	check_round_trip(b, &f.aio, 4096, 8192, 15);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

/* A buffered file on tmpfs is memory: reads and writes complete inside submit, with no
 * io_uring round trip; data reads back, and a read past the end of a shorter file is
 * zeroes like on the io_uring path. */
static void file_in_memory_is_served_inline(void)
{
	char dir[40]; /* room for the fixture's /nvmf-backend-XXXXXX in its 64 */
	if (!find_memory_fs(dir, sizeof(dir))) {
		unit_not_run("no writable tmpfs or ramfs mounted");
		return;
	}
	struct fixture f;
	fixture_init(&f, dir);
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	c.buffered = true;
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_TRUE(b->in_memory);
	char *out = aligned_buf(8192), *in = aligned_buf(8192);
	fill(out, 8192, 21);
	struct waiter w = { 0, 1 };
	struct nvmf_bdev_io io = { .op = NVMF_BDEV_WRITE,
				   .offset = 4096,
				   .len = 8192,
				   .buf = out,
				   .done = io_done,
				   .ctx = &w };
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, &f.aio, &io), 0);
	CU_ASSERT_EQUAL(w.calls, 1); /* done already: nothing to poll */
	CU_ASSERT_EQUAL(w.status, 0);
	CU_ASSERT_EQUAL(f.aio.queued + f.aio.inflight, 0);
	memset(&w, 0, sizeof(w));
	io = (struct nvmf_bdev_io){ .op = NVMF_BDEV_READ,
				    .offset = 4096,
				    .len = 8192,
				    .buf = in,
				    .done = io_done,
				    .ctx = &w };
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, &f.aio, &io), 0);
	CU_ASSERT_EQUAL(w.calls, 1);
	CU_ASSERT_EQUAL(w.status, 0);
	CU_ASSERT_EQUAL(memcmp(in, out, 8192), 0);
	/* The file shrinks under us: the namespace still reads zeroes there. */
	CU_ASSERT_EQUAL(ftruncate(b->fd, 8192), 0);
	memset(in, 0xaa, 8192);
	memset(&w, 0, sizeof(w));
	CU_ASSERT_EQUAL(nvmf_bdev_submit(b, &f.aio, &io), 0);
	CU_ASSERT_EQUAL(w.status, 0);
	CU_ASSERT_EQUAL(memcmp(in, out, 4096), 0);
	CU_ASSERT_TRUE(all_zero(in + 4096, 4096));
	free(out);
	free(in);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

/* Under O_DIRECT an unaligned buffer would fail in the kernel or (buffered fallback
 * elsewhere) hide bugs: it completes with -EINVAL and nothing is written. */
static void direct_io_with_unaligned_buffer_completes_with_einval(void)
{
	char dir[40]; /* room for the fixture's /nvmf-backend-XXXXXX in its 64 */
	if (!find_o_direct_fs(dir, sizeof(dir))) {
		unit_not_run("no writable filesystem here takes O_DIRECT");
		return;
	}
	struct fixture f;
	fixture_init(&f, dir);
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_TRUE(b->direct);
	char *buf = aligned_buf(8192);
	memset(buf, 0x5a, 8192);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_WRITE, 0, 4096, buf + 8), -EINVAL);
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_READ, 0, 4096, buf), 0);
	CU_ASSERT_TRUE(all_zero(buf, 4096));
	free(buf);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

struct counter {
	int calls[64];
	int bad_status;
};

static void count_done(struct nvmf_bdev_io *io, int status)
{
	struct counter *c = io->ctx;
	int i = (int)(io->offset / 65536);
	c->calls[i]++;
	if (status)
		c->bad_status++;
}

static void many_concurrent_ios_complete_exactly_once(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 64 * 65536, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (int pass = 0; pass < 2; pass++) {
		enum nvmf_bdev_op op = pass == 0 ? NVMF_BDEV_WRITE : NVMF_BDEV_READ;
		struct nvmf_bdev_io ios[64];
		char *bufs = aligned_buf(64 * 65536);
		struct counter cnt = { { 0 }, 0 };
		if (op == NVMF_BDEV_WRITE)
			for (int i = 0; i < 64; i++)
				fill(bufs + (size_t)i * 65536, 65536, 100 + i);
		else
			memset(bufs, 0, 64 * 65536);
		for (int i = 0; i < 64; i++) {
			ios[i] = (struct nvmf_bdev_io){ .op = op,
							.offset = (uint64_t)i * 65536,
							.len = 65536,
							.buf = bufs + (size_t)i * 65536,
							.done = count_done,
							.ctx = &cnt };
			CU_ASSERT_EQUAL(nvmf_bdev_submit(b, &f.aio, &ios[i]), 0);
		}
		CU_ASSERT_EQUAL(f.aio.queued, 64);
		unsigned reaped = 0;
		for (int i = 0; reaped < 64 && i < 5000; i++) {
			nvmf_aio_flush(&f.aio);
			unsigned got = nvmf_aio_poll(&f.aio, 256);
			reaped += got;
			if (!got)
				usleep(1000);
		}
		usleep(2000);
		nvmf_aio_poll(&f.aio, 256); /* nothing more may arrive */
		for (int i = 0; i < 64; i++)
			CU_ASSERT_EQUAL(cnt.calls[i], 1);
		CU_ASSERT_EQUAL(cnt.bad_status, 0);
		if (op == NVMF_BDEV_READ) {
			char *want = aligned_buf(65536);
			for (int i = 0; i < 64; i++) {
				fill(want, 65536, 100 + i);
				CU_ASSERT_EQUAL(memcmp(bufs + (size_t)i * 65536, want, 65536), 0);
			}
			free(want);
		}
		free(bufs);
	}
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void submit_returns_eagain_when_the_ring_is_full(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	nvmf_aio_fini(&f.aio);
	CU_ASSERT_FATAL(nvmf_aio_init(&f.aio, 4) == 0);
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	char *buf = aligned_buf(5 * 4096);
	struct nvmf_bdev_io ios[5];
	struct waiter w[5];
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 5; i++) {
		ios[i] = (struct nvmf_bdev_io){ .op = NVMF_BDEV_READ,
						.offset = (uint64_t)i * 4096,
						.len = 4096,
						.buf = buf + i * 4096,
						.done = io_done,
						.ctx = &w[i] };
		int rc = nvmf_bdev_submit(b, &f.aio, &ios[i]);
		CU_ASSERT_EQUAL(rc, i < 4 ? 0 : -EAGAIN);
	}
	for (int i = 0; i < 1000 && f.aio.queued + f.aio.inflight; i++) {
		nvmf_aio_flush(&f.aio);
		if (!nvmf_aio_poll(&f.aio, 16))
			usleep(1000);
	}
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(w[i].calls, 1);
	CU_ASSERT_EQUAL(w[4].calls, 0); /* refused: done never called */
	/* room again: the retry goes through */
	CU_ASSERT_EQUAL(run_io(b, &f.aio, NVMF_BDEV_READ, 4 * 4096, 4096, buf), 0);
	free(buf);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void file_create_failure_removes_the_created_file(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 100, true);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[256];
	snprintf(want, sizeof(want), "%s: size 100 bytes is smaller than one block of 512 bytes",
		 f.path);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	CU_ASSERT_NOT_EQUAL(access(f.path, F_OK), 0);
	fixture_fini(&f);
}

/* Two namespaces of one process on one file: the second open is refused, naming the
 * path and this process; once the first closes (its lock goes with it), it opens. */
static void file_second_open_in_this_process_is_refused_until_the_first_closes(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	c.create = false;
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[512];
	snprintf(want, sizeof(want),
		 "%s is in use by this process (pid %d): another of its namespaces serves it, "
		 "or is closing after its last command",
		 f.path, (int)getpid());
	CU_ASSERT_STRING_EQUAL(f.err, want);
	CU_ASSERT_EQUAL(access(f.path, F_OK), 0); /* not created by the refused open: kept */
	nvmf_bdev_close(b);
	b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL(b);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

/* A file another process has open (another nvmf-target): refused, naming its pid. */
static void file_locked_by_another_process_is_refused_naming_its_pid(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 1u << 20);
	int ready[2], hold[2];
	CU_ASSERT_FATAL(pipe(ready) == 0 && pipe(hold) == 0);
	pid_t child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		close(hold[1]); /* so the parent's close is the end of the pipe */
		struct nvmf_ns_config cc = file_cfg(f.path, 0, false);
		char e[256];
		struct nvmf_bdev *cb = nvmf_bdev_open(&cc, e, sizeof(e));
		char ok = cb ? 'y' : 'n', x;
		if (write(ready[1], &ok, 1) != 1 || read(hold[0], &x, 1) < 0)
			_exit(1);
		_exit(0); /* the lock goes with the process */
	}
	char ok = 0;
	CU_ASSERT_EQUAL(read(ready[0], &ok, 1), 1);
	CU_ASSERT_EQUAL(ok, 'y');
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[512];
	snprintf(want, sizeof(want), "%s is in use by another process (pid %d)", f.path,
		 (int)child);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	close(hold[1]); /* the child exits */
	int status;
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL(b);
	if (b)
		nvmf_bdev_close(b);
	close(ready[0]);
	close(ready[1]);
	close(hold[0]);
	fixture_fini(&f);
}

/* I/O hints of a file: its file system's block (st_blksize) for writes, hole punching
 * and the preferred I/O size. */
static void file_hints_are_the_file_system_block(void)
{
	struct fixture f;
	fixture_init(&f, "/var/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 1u << 20, true);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	struct stat st;
	CU_ASSERT_EQUAL_FATAL(stat(f.path, &st), 0);
	CU_ASSERT_TRUE(st.st_blksize > 0);
	CU_ASSERT_EQUAL(b->write_granularity, (uint32_t)st.st_blksize);
	CU_ASSERT_EQUAL(b->discard_granularity, (uint32_t)st.st_blksize);
	CU_ASSERT_EQUAL(b->optimal_io, (uint32_t)st.st_blksize);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

const struct unit_test backend_file_tests[] = {
	{ "file_hints_are_the_file_system_block", file_hints_are_the_file_system_block },
	{ "file_write_then_read_returns_same_data_512b_blocks",
	  file_write_then_read_returns_same_data_512b_blocks },
	{ "file_with_4k_blocks_round_trips", file_with_4k_blocks_round_trips },
	{ "file_data_survives_close_and_reopen", file_data_survives_close_and_reopen },
	{ "file_read_past_eof_returns_zeroes_direct", file_read_past_eof_returns_zeroes_direct },
	{ "file_read_past_eof_returns_zeroes_buffered",
	  file_read_past_eof_returns_zeroes_buffered },
	{ "file_discard_reads_back_zeroes", file_discard_reads_back_zeroes },
	{ "file_write_zeroes_reads_back_zeroes", file_write_zeroes_reads_back_zeroes },
	{ "file_write_zeroes_on_tmpfs_falls_back_to_punch_hole",
	  file_write_zeroes_on_tmpfs_falls_back_to_punch_hole },
	{ "file_flush_completes_with_success", file_flush_completes_with_success },
	{ "file_create_makes_sparse_file_of_size", file_create_makes_sparse_file_of_size },
	{ "file_missing_without_create_reports_path_and_reason",
	  file_missing_without_create_reports_path_and_reason },
	{ "file_create_without_size_is_refused", file_create_without_size_is_refused },
	{ "file_smaller_than_size_without_create_is_refused",
	  file_smaller_than_size_without_create_is_refused },
	{ "file_smaller_than_size_with_create_is_grown",
	  file_smaller_than_size_with_create_is_grown },
	{ "file_size_is_rounded_down_to_block_size", file_size_is_rounded_down_to_block_size },
	{ "file_smaller_than_one_block_is_refused", file_smaller_than_one_block_is_refused },
	{ "file_with_bad_block_size_is_refused", file_with_bad_block_size_is_refused },
	{ "file_kind_on_directory_is_refused", file_kind_on_directory_is_refused },
	{ "file_buffered_config_does_not_use_o_direct",
	  file_buffered_config_does_not_use_o_direct },
	{ "file_uses_o_direct_where_the_filesystem_allows",
	  file_uses_o_direct_where_the_filesystem_allows },
	{ "file_in_memory_is_served_inline", file_in_memory_is_served_inline },
	{ "file_on_tmpfs_uses_o_direct_only_if_the_kernel_allows",
	  file_on_tmpfs_uses_o_direct_only_if_the_kernel_allows },
	{ "direct_io_with_unaligned_buffer_completes_with_einval",
	  direct_io_with_unaligned_buffer_completes_with_einval },
	{ "many_concurrent_ios_complete_exactly_once", many_concurrent_ios_complete_exactly_once },
	{ "submit_returns_eagain_when_the_ring_is_full",
	  submit_returns_eagain_when_the_ring_is_full },
	{ "file_second_open_in_this_process_is_refused_until_the_first_closes",
	  file_second_open_in_this_process_is_refused_until_the_first_closes },
	{ "file_locked_by_another_process_is_refused_naming_its_pid",
	  file_locked_by_another_process_is_refused_naming_its_pid },
	{ "file_create_failure_removes_the_created_file",
	  file_create_failure_removes_the_created_file },
	{ NULL, NULL },
};
