/* The log's names (util/log-names.c): each list is indexed by its enum and ended by NULL
 * (the control methods' choice lists), and every name parses back to its value. */
#include <CUnit/CUnit.h>
#include <stddef.h>
#include "tests/unit/suites.h"
#include "util/log-names.h"

static void lists_follow_their_enums_and_end_with_null(void)
{
	CU_ASSERT_STRING_EQUAL(nvmf_log_level_names[NVMF_LOG_ERROR], "error");
	CU_ASSERT_STRING_EQUAL(nvmf_log_level_names[NVMF_LOG_DEBUG], "debug");
	CU_ASSERT_PTR_NULL(nvmf_log_level_names[NVMF_LOG_DEBUG + 1]);
	CU_ASSERT_STRING_EQUAL(nvmf_log_component_names[NVMF_LOGC_CORE], "core");
	CU_ASSERT_STRING_EQUAL(nvmf_log_component_names[NVMF_LOGC_BACKEND], "backend");
	CU_ASSERT_PTR_NULL(nvmf_log_component_names[NVMF_LOGC_COUNT]);
	for (int i = 0; i < NVMF_LOGC_COUNT; i++)
		CU_ASSERT_PTR_NOT_NULL(nvmf_log_component_names[i]);
}

static void names_parse_back_and_others_leave_the_output_alone(void)
{
	for (int i = NVMF_LOG_ERROR; i <= NVMF_LOG_DEBUG; i++) {
		enum nvmf_log_level l = NVMF_LOG_ERROR;
		CU_ASSERT_TRUE(nvmf_log_level_parse(nvmf_log_level_names[i], &l));
		CU_ASSERT_EQUAL(l, i);
	}
	enum nvmf_log_level l = NVMF_LOG_INFO;
	CU_ASSERT_FALSE(nvmf_log_level_parse("Debug", &l));
	CU_ASSERT_EQUAL(l, NVMF_LOG_INFO);
	enum nvmf_log_component c = NVMF_LOGC_TCP;
	CU_ASSERT_FALSE(nvmf_log_component_parse("disk", &c));
	CU_ASSERT_EQUAL(c, NVMF_LOGC_TCP);
	CU_ASSERT_STRING_EQUAL(nvmf_log_level_name((enum nvmf_log_level)9), "?");
}

const struct unit_test util_log_names_tests[] = {
	{ "lists_follow_their_enums_and_end_with_null",
	  lists_follow_their_enums_and_end_with_null },
	{ "names_parse_back_and_others_leave_the_output_alone",
	  names_parse_back_and_others_leave_the_output_alone },
	{ NULL, NULL }
};
