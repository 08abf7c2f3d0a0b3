/* CUnit suite registration. A test file defines
 *     const struct unit_test NAME_tests[] = { {"rule_name", fn}, ..., {NULL, NULL} };
 * and the build collects every such NAME into build/.../unit_suites.inc (see Makefile),
 * so adding a test file needs no edit here. */
#ifndef NVMF_TESTS_UNIT_SUITES_H
#define NVMF_TESTS_UNIT_SUITES_H
#include <CUnit/CUnit.h>

struct unit_test { const char *name; CU_TestFunc fn; };
struct unit_suite { const char *name; const struct unit_test *tests; };
#endif
