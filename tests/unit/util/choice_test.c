/* Choice lists (util/choice.c): a name is found only whole and exactly; the list is
 * written "a, b or c" for messages and help, cut rather than overrun. */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "util/choice.h"

static const char *const three[] = { "red", "green", "blue", NULL };

static void a_name_is_found_whole_and_exactly(void)
{
	CU_ASSERT_EQUAL(nvmf_choice_index(three, "red"), 0);
	CU_ASSERT_EQUAL(nvmf_choice_index(three, "blue"), 2);
	CU_ASSERT_EQUAL(nvmf_choice_index(three, "Blue"), -1);
	CU_ASSERT_EQUAL(nvmf_choice_index(three, "gree"), -1);
	CU_ASSERT_EQUAL(nvmf_choice_index(three, "greenish"), -1);
	CU_ASSERT_EQUAL(nvmf_choice_index(three, ""), -1);
	CU_ASSERT_EQUAL(nvmf_choice_index(three, NULL), -1);
}

static void list_is_written_with_or_before_the_last(void)
{
	static const char *const one[] = { "only", NULL };
	static const char *const two[] = { "yes", "no", NULL };
	char buf[64];
	CU_ASSERT_STRING_EQUAL(nvmf_choice_text(three, buf, sizeof(buf)), "red, green or blue");
	CU_ASSERT_STRING_EQUAL(nvmf_choice_text(two, buf, sizeof(buf)), "yes or no");
	CU_ASSERT_STRING_EQUAL(nvmf_choice_text(one, buf, sizeof(buf)), "only");
}

static void a_short_buffer_is_cut_not_overrun(void)
{
	char buf[8];
	memset(buf, 'x', sizeof(buf));
	CU_ASSERT_STRING_EQUAL(nvmf_choice_text(three, buf, 6), "red, ");
	CU_ASSERT_EQUAL(buf[6], 'x');
	CU_ASSERT_STRING_EQUAL(nvmf_choice_text(three, buf, 1), "");
}

const struct unit_test util_choice_tests[] = {
	{ "a_name_is_found_whole_and_exactly", a_name_is_found_whole_and_exactly },
	{ "list_is_written_with_or_before_the_last", list_is_written_with_or_before_the_last },
	{ "a_short_buffer_is_cut_not_overrun", a_short_buffer_is_cut_not_overrun },
	{ NULL, NULL }
};
