/* The block device backend (subsystem/backend-bdev.c): what it refuses before it opens
 * anything, naming the namespace or the path and the reason. No block device is
 * available here: its data path is covered by the VM integration tests. */
#include <stdio.h>
#include <string.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"

static void bdev_kind_on_regular_file_reports_not_a_block_device(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 1 << 20);
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	char want[256];
	snprintf(want, sizeof(want), "%s: not a block device", f.path);
	c.kind = NVMF_BACKEND_BDEV;
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	CU_ASSERT_STRING_EQUAL(f.err, want);
	fixture_fini(&f);
}

static void bdev_kind_on_missing_path_reports_path_and_reason(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 1,
				    .kind = NVMF_BACKEND_BDEV,
				    .path = "/nonexistent/nvmf-dev" };
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "/nonexistent/nvmf-dev: No such file or directory");
}

static void bdev_kind_without_path_names_the_namespace(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 4, .kind = NVMF_BACKEND_BDEV };
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "namespace 4: bdev backend needs device.path");
}

/* A folder and a character device are no more block devices than a regular file. */
static void bdev_kind_on_directory_or_char_device_reports_not_a_block_device(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	struct nvmf_ns_config c = file_cfg(f.dir, 0, false);
	char want[256];
	c.kind = NVMF_BACKEND_BDEV;
	snprintf(want, sizeof(want), "%s: not a block device", f.dir);
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	CU_ASSERT_STRING_EQUAL(f.err, want);
	c.path = "/dev/null";
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	CU_ASSERT_STRING_EQUAL(f.err, "/dev/null: not a block device");
	fixture_fini(&f);
}

/* The ops' own open leaves no descriptor behind when it refuses. */
static void bdev_open_refusal_leaves_no_descriptor(void)
{
	char err[256];
	struct nvmf_bdev b = { .ops = &nvmf_backend_bdev_ops, .fd = -1 };
	struct nvmf_ns_config c = { .nsid = 1, .kind = NVMF_BACKEND_BDEV, .path = "/dev/null" };
	CU_ASSERT_EQUAL(nvmf_backend_bdev_ops.open(&b, &c, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(b.fd, -1);
	CU_ASSERT_STRING_EQUAL(nvmf_backend_bdev_ops.name, "bdev");
}

const struct unit_test backend_bdev_tests[] = {
	{ "bdev_kind_on_regular_file_reports_not_a_block_device",
	  bdev_kind_on_regular_file_reports_not_a_block_device },
	{ "bdev_kind_on_missing_path_reports_path_and_reason",
	  bdev_kind_on_missing_path_reports_path_and_reason },
	{ "bdev_kind_without_path_names_the_namespace",
	  bdev_kind_without_path_names_the_namespace },
	{ "bdev_kind_on_directory_or_char_device_reports_not_a_block_device",
	  bdev_kind_on_directory_or_char_device_reports_not_a_block_device },
	{ "bdev_open_refusal_leaves_no_descriptor", bdev_open_refusal_leaves_no_descriptor },
	{ NULL, NULL },
};
