/* Backend kinds (subsystem/backend.c, nvmf_bdev_open): the kind inferred from the path
 * when none is given, and what that inference refuses, naming the path and the reason.
 * The bdev and nvme kinds' own refusals are in subsystem/backend-bdev and
 * subsystem/backend-nvme; their data paths are covered by the VM integration tests. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"

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

const struct unit_test backend_tests[] = {
	{ "notes_are_lines_and_never_overflow", notes_are_lines_and_never_overflow },
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
