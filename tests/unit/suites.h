/* CUnit suite registration. The tests of SOURCE (a path such as target/io-cmd.c) are in
 * tests/unit/SOURCE-without-.c_test.c, which defines
 *     const struct unit_test NAME_tests[] = { {"rule_name", fn}, ..., {NULL, NULL} };
 * (NAME any C identifier, one such array per file). The build collects every such array
 * into build/.../unit_suites.inc (see Makefile) under the suite name the file's path
 * gives, "target/io-cmd", so adding a test file needs no edit here. */
#ifndef NVMF_TESTS_UNIT_SUITES_H
#define NVMF_TESTS_UNIT_SUITES_H
#include <CUnit/CUnit.h>

struct unit_test {
	const char *name;
	CU_TestFunc fn;
};
struct unit_suite {
	const char *name;
	const struct unit_test *tests;
};

/* For a test that cannot run on this machine (it needs something the machine lacks):
 * called before returning from the test, it has the runner print and count the test as
 * "not run: @reason" instead of passed (a test that also failed an assertion stays
 * failed). @reason must outlive the run (a string literal). tests/unit/main.c. */
void unit_not_run(const char *reason);

#ifdef __clang_analyzer__
#include <stdlib.h>
/* For make analyze only: a failed _FATAL assertion does not return (CUnit longjmps out of
 * the test), which scan-build cannot see inside libcunit. Without this it follows every
 * test past its _FATAL guards and reports the NULL dereferences they exist to prevent.
 * Every file that uses the asserts includes this header. */
static inline CU_BOOL unit_assert_analyzed(CU_BOOL value, unsigned line, const char *cond,
					   const char *file, const char *fn, CU_BOOL fatal)
{
	CU_BOOL r = CU_assertImplementation(value, line, cond, file, fn, fatal);
	if (fatal && !value)
		abort();
	return r;
}
#define CU_assertImplementation unit_assert_analyzed
#endif
#endif
