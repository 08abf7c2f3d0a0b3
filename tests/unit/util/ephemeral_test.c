/* The kernel's ephemeral port range read from its /proc file's format (util/ephemeral.c),
 * here from files the test writes: the two ports, and each way the file can be wrong. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/suites.h"
#include "util/ephemeral.h"

/* A file holding @text, its path in @path (at least 64 bytes). */
static void range_file(char *path, const char *text)
{
	snprintf(path, 64, "/tmp/nvmf-ephemeral-XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void range_is_read_from_the_kernels_file_format(void)
{
	char path[64];
	long lo = 0, hi = 0;
	range_file(path, "32768\t60999\n");
	CU_ASSERT_EQUAL(nvmf_ephemeral_range(path, &lo, &hi), 0);
	CU_ASSERT_EQUAL(lo, 32768);
	CU_ASSERT_EQUAL(hi, 60999);
	unlink(path);
	range_file(path, "60999 32768\n"); /* reversed: not a range */
	CU_ASSERT_EQUAL(nvmf_ephemeral_range(path, &lo, &hi), -EINVAL);
	unlink(path);
	range_file(path, "1024 65536\n"); /* beyond the last port */
	CU_ASSERT_EQUAL(nvmf_ephemeral_range(path, &lo, &hi), -EINVAL);
	unlink(path);
	range_file(path, "ephemeral\n");
	CU_ASSERT_EQUAL(nvmf_ephemeral_range(path, &lo, &hi), -EINVAL);
	unlink(path);
	CU_ASSERT_EQUAL(nvmf_ephemeral_range(path, &lo, &hi), -ENOENT);
}

/* The machine's own file, when it has one, reads as a range. */
static void the_kernels_own_file_reads_as_a_range(void)
{
	long lo = 0, hi = 0;
	if (access(NVMF_EPHEMERAL_RANGE_PATH, R_OK)) {
		unit_not_run(NVMF_EPHEMERAL_RANGE_PATH " is not readable here");
		return;
	}
	CU_ASSERT_EQUAL(nvmf_ephemeral_range(NULL, &lo, &hi), 0);
	CU_ASSERT_TRUE(lo >= 1 && lo <= hi && hi <= 65535);
}

const struct unit_test util_ephemeral_tests[] = { { "range_is_read_from_the_kernels_file_format",
						    range_is_read_from_the_kernels_file_format },
						  { "the_kernels_own_file_reads_as_a_range",
						    the_kernels_own_file_reads_as_a_range },
						  { NULL, NULL } };
