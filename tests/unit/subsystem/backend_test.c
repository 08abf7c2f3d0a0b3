/* Backend kinds (subsystem/backend.c, nvmf_bdev_open): the kind inferred from the path
 * when none is given, and what that inference refuses, naming the path and the reason.
 * The bdev and nvme kinds' own refusals are in subsystem/backend-bdev and
 * subsystem/backend-nvme; their data paths are covered by the VM integration tests. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

static void auto_kind_on_regular_file_is_file(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 1 << 20);
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	c.kind = NVMF_BACKEND_AUTO;
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->kind, NVMF_BACKEND_FILE);
	CU_ASSERT_STRING_EQUAL(b->ops->name, "file");
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void auto_kind_with_create_on_missing_path_creates_file(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.path, 1 << 20, true);
	c.kind = NVMF_BACKEND_AUTO;
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->kind, NVMF_BACKEND_FILE);
	CU_ASSERT_EQUAL(access(f.path, F_OK), 0);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

static void auto_kind_on_directory_reports_not_file_or_block_device(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.dir, 0, false);
	c.kind = NVMF_BACKEND_AUTO;
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	char want[256];
	snprintf(want, sizeof(want), "%s: not a regular file or block device", f.dir);
	CU_ASSERT_STRING_EQUAL(f.err, want);
	fixture_fini(&f);
}

static void auto_kind_without_path_is_refused(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 3 };
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "namespace 3: no device.path and no nvmf_backend");
}

static void nvme_kind_is_inferred_only_for_whole_namespace_names(void)
{
	CU_ASSERT_TRUE(nvmf_backend_is_nvme_name("nvme0n1"));
	CU_ASSERT_TRUE(nvmf_backend_is_nvme_name("nvme12n345"));
	CU_ASSERT_FALSE(nvmf_backend_is_nvme_name("nvme0n1p1")); /* partition */
	CU_ASSERT_FALSE(nvmf_backend_is_nvme_name("nvme0"));     /* controller */
	CU_ASSERT_FALSE(nvmf_backend_is_nvme_name("nvme0n"));
	CU_ASSERT_FALSE(nvmf_backend_is_nvme_name("nvmen1"));
	CU_ASSERT_FALSE(nvmf_backend_is_nvme_name("ng0n1")); /* generic char device */
	CU_ASSERT_FALSE(nvmf_backend_is_nvme_name("sda"));
	CU_ASSERT_FALSE(nvmf_backend_is_nvme_name(""));
}

/* What an open says for the target's log: one '\n'-ended line per note, a line that no
 * longer fits dropped whole or cut, never past the buffer. */
static void notes_are_lines_and_never_overflow(void)
{
	struct nvmf_bdev b;
	memset(&b, 0, sizeof(b));
	nvmf_bdev_note(&b, "%s: O_DIRECT not supported here, using buffered I/O", "/x");
	nvmf_bdev_note(&b, "second %d", 2);
	CU_ASSERT_STRING_EQUAL(b.note,
			       "/x: O_DIRECT not supported here, using buffered I/O\nsecond 2\n");
	for (int i = 0; i < 50; i++)
		nvmf_bdev_note(&b, "a line of some length to fill the buffer %d", i);
	size_t n = strlen(b.note);
	CU_ASSERT_TRUE(n < sizeof(b.note));
	CU_ASSERT_EQUAL(b.note[n - 1], '\n');
}

/* ---- space warnings and the device size ---- */

/* A sparse file larger than its file system's free space is a promise writes cannot
 * keep; one within it, or fully allocated, is not warned of. */
static void thin_file_beyond_free_space_is_warned_of(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct statvfs v;
	CU_ASSERT_EQUAL_FATAL(statvfs(f.dir, &v), 0);
	uint64_t free_bytes = (uint64_t)v.f_bavail * v.f_frsize;
	uint64_t big = (free_bytes + (4u << 20)) & ~(uint64_t)0xfffff;
	write_file(f.path, (size_t)big);
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	char msg[400] = "", want[200];
	CU_ASSERT_TRUE(nvmf_bdev_space_warning(b, msg, sizeof(msg)));
	snprintf(want, sizeof(want), "thin file: %llu of its %llu bytes are not allocated yet",
		 (unsigned long long)big, (unsigned long long)big);
	CU_ASSERT_EQUAL(strncmp(msg, want, strlen(want)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "writes will fail with ENOSPC (hosts get Capacity "
					   "Exceeded) once it fills"));
	nvmf_bdev_close(b);
	write_file(f.path, 1 << 20); /* 1 MiB unallocated: fits */
	b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_FALSE(nvmf_bdev_space_warning(b, msg, sizeof(msg)));
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

/* RAM larger than the machine's memory (pages are taken lazily, so it opens) is warned
 * of; one that fits is not. */
static void ram_beyond_physical_memory_is_warned_of(void)
{
	uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	struct nvmf_ns_config c = { .nsid = 1,
				    .enable = true,
				    .kind = NVMF_BACKEND_RAM,
				    .size_bytes = (phys + (1u << 20)) & ~(uint64_t)0xfffff };
	char err[256], msg[400] = "", want[300];
	struct nvmf_bdev *b = nvmf_bdev_open(&c, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_TRUE(nvmf_bdev_space_warning(b, msg, sizeof(msg)));
	snprintf(want, sizeof(want),
		 "ram namespace of %llu bytes is larger than this machine's memory (%llu bytes): "
		 "once hosts fill it the machine runs out of memory, and the OOM killer stops "
		 "the target with every subsystem",
		 (unsigned long long)c.size_bytes, (unsigned long long)phys);
	CU_ASSERT_STRING_EQUAL(msg, want);
	nvmf_bdev_close(b);
	c.size_bytes = 1 << 20;
	b = nvmf_bdev_open(&c, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_FALSE(nvmf_bdev_space_warning(b, msg, sizeof(msg)));
	nvmf_bdev_close(b);
}

/* The size query: a regular file's size follows the file, a block device's is
 * BLKGETSIZE64 (VM tests), other kinds have no device; nothing changes b->size. */
static void device_size_reads_the_size_now_and_changes_nothing(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 1 << 20);
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	struct nvmf_bdev *b = nvmf_bdev_open(&c, f.err, sizeof(f.err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	uint64_t bytes = 0;
	CU_ASSERT_EQUAL(nvmf_bdev_device_size(b, &bytes), -ENOTSUP); /* a file decides */
	CU_ASSERT_EQUAL(truncate(f.path, 3 << 20), 0);
	CU_ASSERT_EQUAL(nvmf_backend_fd_size(b->fd, &bytes), 0);
	CU_ASSERT_EQUAL(bytes, 3u << 20);
	CU_ASSERT_EQUAL(b->size, 1u << 20);
	CU_ASSERT_EQUAL(nvmf_backend_fd_size(-1, &bytes), -EBADF);
	int fd = open("/dev/null", O_RDONLY);
	CU_ASSERT_EQUAL(nvmf_backend_fd_size(fd, &bytes), -ENOTTY); /* a char device */
	close(fd);
	CU_ASSERT_PTR_NOT_NULL(nvmf_backend_bdev_ops.device_size);
	CU_ASSERT_PTR_NOT_NULL(nvmf_backend_nvme_ops.device_size);
	nvmf_bdev_close(b);
	fixture_fini(&f);
}

/* A failed fsync at close is a line of the log: its prefix, component and severity (it
 * was a bare "file backend: ..." on stderr). fsync of a pipe fails with EINVAL. */
static void failed_fsync_at_close_is_a_log_error_line(void)
{
	int p[2];
	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	struct nvmf_bdev b;
	memset(&b, 0, sizeof(b));
	b.ops = &nvmf_backend_file_ops;
	b.fd = p[0];
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_backend_fd_close(&b);
	fx_stderr_end(&out);
	close(p[1]);
	CU_ASSERT_EQUAL(b.fd, -1);
	CU_ASSERT_STRING_EQUAL(out.text, "nvmf-target: backend: error: file backend: fsync at "
					 "close failed: Invalid argument\n");
}

const struct unit_test backend_tests[] = {
	{ "notes_are_lines_and_never_overflow", notes_are_lines_and_never_overflow },
	{ "thin_file_beyond_free_space_is_warned_of", thin_file_beyond_free_space_is_warned_of },
	{ "ram_beyond_physical_memory_is_warned_of", ram_beyond_physical_memory_is_warned_of },
	{ "device_size_reads_the_size_now_and_changes_nothing",
	  device_size_reads_the_size_now_and_changes_nothing },
	{ "failed_fsync_at_close_is_a_log_error_line", failed_fsync_at_close_is_a_log_error_line },
	{ "auto_kind_on_regular_file_is_file", auto_kind_on_regular_file_is_file },
	{ "auto_kind_with_create_on_missing_path_creates_file",
	  auto_kind_with_create_on_missing_path_creates_file },
	{ "auto_kind_on_directory_reports_not_file_or_block_device",
	  auto_kind_on_directory_reports_not_file_or_block_device },
	{ "auto_kind_without_path_is_refused", auto_kind_without_path_is_refused },
	{ "nvme_kind_is_inferred_only_for_whole_namespace_names",
	  nvme_kind_is_inferred_only_for_whole_namespace_names },
	{ NULL, NULL },
};
