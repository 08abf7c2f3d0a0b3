/* `nvmf compare-write` against our target's RAM namespace 1 (loop host, 512 B blocks):
 * a matching compare writes, a miscompare names COMPARE_FAILED, exits 1 and writes
 * nothing; files of the wrong size and missing options are usage errors. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

#define A "-a", "127.0.0.1", "-n", LH_SUBNQN

/* A temporary file of @len bytes of @v; its path in @path (unlink it after). */
static void make_file(char path[32], size_t len, uint8_t v)
{
	strcpy(path, "/tmp/nvmf-caw-XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	uint8_t *buf = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	memset(buf, v, len);
	CU_ASSERT_FATAL(write(fd, buf, len) == (ssize_t)len);
	close(fd);
	free(buf);
}

static void compare_write_writes_on_a_match_and_not_on_a_miscompare(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	char zero[32], ones[32], twos[32];
	make_file(zero, 1024, 0);
	make_file(ones, 1024, 1);
	make_file(twos, 1024, 2);
	/* Fresh RAM reads zeroes: the compare matches, ones are written. */
	CU_ASSERT_EQUAL(clit_run(&t, "compare-write", A, "--slba", "4", "--nlb", "2", "--compare",
				 zero, "--input", ones, NULL),
			0);
	CU_ASSERT_EQUAL(t.errlen, 0);
	/* Zeroes are no longer there: a miscompare, nothing written. */
	CU_ASSERT_EQUAL(clit_run(&t, "compare-write", A, "--slba", "4", "--nlb", "2", "--compare",
				 zero, "--input", twos, NULL),
			1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "COMPARE_FAILED"));
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", A, "--slba", "4", "--nlb", "2", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, 1024);
	for (size_t i = 0; i < 1024; i++)
		CU_ASSERT_EQUAL_FATAL(t.out[i], 1);
	unlink(zero);
	unlink(ones);
	unlink(twos);
	clit_teardown(&t);
}

static void compare_write_usage_errors(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	char small[32];
	make_file(small, 100, 0);
	CU_ASSERT_EQUAL(clit_run(&t, "compare-write", A, "--slba", "0", "--nlb", "1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--compare FILE"));
	CU_ASSERT_EQUAL(clit_run(&t, "compare-write", A, "--nlb", "1", "--compare", small,
				 "--input", small, NULL),
			2);
	CU_ASSERT_EQUAL(clit_run(&t, "compare-write", A, "--slba", "0", "--nlb", "1", "--compare",
				 small, "--input", small, NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "exactly 512 bytes"));
	unlink(small);
	clit_teardown(&t);
}

const struct unit_test cli_caw_tests[] = {
	{ "compare_write_writes_on_a_match_and_not_on_a_miscompare",
	  compare_write_writes_on_a_match_and_not_on_a_miscompare },
	{ "compare_write_usage_errors", compare_write_usage_errors },
	{ NULL, NULL },
};
