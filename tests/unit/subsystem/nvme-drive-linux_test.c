/* Unit tests for subsystem/nvme-drive-linux.c: what nvmf_drive_open refuses before it
 * touches a drive (no build machine has one; tests/integration/nvme_drive_test.sh runs
 * the drive itself in the VM with QEMU's emulated NVMe controller). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "subsystem/nvme-drive.h"
#include "tests/unit/suites.h"

static void expect_refusal(const char *path, const char *want)
{
	char err[256] = "";
	struct nvmf_drive *d = nvmf_drive_open(path, err, sizeof(err));
	CU_ASSERT_PTR_NULL(d);
	if (d)
		nvmf_drive_close(d);
	CU_ASSERT_STRING_EQUAL(err, want);
}

static void open_refuses_a_missing_path(void)
{
	expect_refusal("/nonexistent/nvme9", "/nonexistent/nvme9: No such file or directory");
}

static void open_refuses_a_regular_file(void)
{
	char path[] = "/tmp/nvmf-drive-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	char want[128];
	snprintf(want, sizeof(want),
		 "%s is not an NVMe controller's char device (it is a regular file)", path);
	expect_refusal(path, want);
	unlink(path);
}

static void open_refuses_a_directory(void)
{
	expect_refusal("/tmp", "/tmp is not an NVMe controller's char device (it is a directory)");
}

/* A char device of another class (mem). */
static void open_refuses_another_char_device(void)
{
	expect_refusal("/dev/null",
		       "/dev/null is not an NVMe controller's char device (it is a char device)");
}

static void open_refuses_a_path_longer_than_the_drive_keeps(void)
{
	char path[300];
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	char err[256] = "";
	CU_ASSERT_PTR_NULL(nvmf_drive_open(path, err, sizeof(err)));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "path too long"));
}

const struct unit_test nvme_drive_linux_tests[] = {
	{ "open_refuses_a_missing_path", open_refuses_a_missing_path },
	{ "open_refuses_a_regular_file", open_refuses_a_regular_file },
	{ "open_refuses_a_directory", open_refuses_a_directory },
	{ "open_refuses_another_char_device", open_refuses_another_char_device },
	{ "open_refuses_a_path_longer_than_the_drive_keeps",
	  open_refuses_a_path_longer_than_the_drive_keeps },
	{ NULL, NULL },
};
