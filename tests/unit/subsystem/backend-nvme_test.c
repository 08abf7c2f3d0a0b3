/* The raw NVMe drive backend (subsystem/backend-nvme.c): it opens the namespace's block
 * device as the bdev backend does, so what is not a block device is refused before any
 * Identify is sent, naming the path, the namespace or the reason. No NVMe drive is
 * available here: its identity mapping is covered by the VM integration tests. */
#include <stdio.h>
#include <string.h>
#include "subsystem/backend.h"
#include "tests/unit/subsystem/backend_util.h"
#include "tests/unit/suites.h"

static void nvme_kind_on_regular_file_reports_not_a_block_device(void)
{
	struct fixture f;
	fixture_init(&f, "/tmp");
	write_file(f.path, 1 << 20);
	struct nvmf_ns_config c = file_cfg(f.path, 0, false);
	char want[256];
	snprintf(want, sizeof(want), "%s: not a block device", f.path);
	c.kind = NVMF_BACKEND_NVME;
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, f.err, sizeof(f.err)));
	CU_ASSERT_STRING_EQUAL(f.err, want);
	fixture_fini(&f);
}

/* The message names this backend, not the bdev one it opens through. */
static void nvme_kind_without_path_names_the_namespace_and_nvme(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 2, .kind = NVMF_BACKEND_NVME };
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "namespace 2: nvme backend needs device.path");
}

static void nvme_kind_on_missing_path_reports_path_and_reason(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 1,
				    .kind = NVMF_BACKEND_NVME,
				    .path = "/nonexistent/nvme0n1" };
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "/nonexistent/nvme0n1: No such file or directory");
}

/* /dev/null is a character device, as the NVMe generic device /dev/ng0n1 is: refused. */
static void nvme_kind_on_char_device_reports_not_a_block_device(void)
{
	char err[256];
	struct nvmf_ns_config c = { .nsid = 1, .kind = NVMF_BACKEND_NVME, .path = "/dev/null" };
	CU_ASSERT_PTR_NULL(nvmf_bdev_open(&c, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "/dev/null: not a block device");
}

/* The ops' own open leaves no descriptor behind when it refuses; the data path is the
 * fd backends' (the same functions as bdev's). */
static void nvme_open_refusal_leaves_no_descriptor(void)
{
	char err[256];
	struct nvmf_bdev b = { .ops = &nvmf_backend_nvme_ops, .fd = -1 };
	struct nvmf_ns_config c = { .nsid = 1, .kind = NVMF_BACKEND_NVME, .path = "/dev/null" };
	CU_ASSERT_EQUAL(nvmf_backend_nvme_ops.open(&b, &c, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(b.fd, -1);
	CU_ASSERT_STRING_EQUAL(nvmf_backend_nvme_ops.name, "nvme");
	CU_ASSERT_TRUE(nvmf_backend_nvme_ops.submit == nvmf_backend_bdev_ops.submit);
	CU_ASSERT_TRUE(nvmf_backend_nvme_ops.close == nvmf_backend_bdev_ops.close);
}

const struct unit_test backend_nvme_tests[] = {
	{ "nvme_kind_on_regular_file_reports_not_a_block_device",
	  nvme_kind_on_regular_file_reports_not_a_block_device },
	{ "nvme_kind_without_path_names_the_namespace_and_nvme",
	  nvme_kind_without_path_names_the_namespace_and_nvme },
	{ "nvme_kind_on_missing_path_reports_path_and_reason",
	  nvme_kind_on_missing_path_reports_path_and_reason },
	{ "nvme_kind_on_char_device_reports_not_a_block_device",
	  nvme_kind_on_char_device_reports_not_a_block_device },
	{ "nvme_open_refusal_leaves_no_descriptor", nvme_open_refusal_leaves_no_descriptor },
	{ NULL, NULL },
};
