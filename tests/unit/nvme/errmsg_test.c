/* The nvme/ parsers' error messages (nvme/errmsg.c): the reason formatted into the
 * caller's buffer, truncated to it, skipped without one, and -code returned. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "nvme/errmsg.h"
#include "tests/unit/suites.h"

static void formats_the_reason_and_returns_the_negated_code(void)
{
	char err[64];
	CU_ASSERT_EQUAL(nvme_errmsg(EINVAL, err, sizeof(err), "bad %s at %d", "digest", 7),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "bad digest at 7");
}

static void a_long_reason_is_cut_to_the_buffer_and_terminated(void)
{
	char err[8];
	memset(err, 'x', sizeof(err));
	CU_ASSERT_EQUAL(nvme_errmsg(ERANGE, err, sizeof(err), "%s", "far too long a reason"),
			-ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "far too");
}

static void no_buffer_or_an_empty_one_is_left_alone(void)
{
	CU_ASSERT_EQUAL(nvme_errmsg(EPROTO, NULL, 16, "ignored %d", 1), -EPROTO);
	char err[4] = "abc";
	CU_ASSERT_EQUAL(nvme_errmsg(ENOMEM, err, 0, "ignored"), -ENOMEM);
	CU_ASSERT_STRING_EQUAL(err, "abc");
}

const struct unit_test nvme_errmsg_tests[] = {
	{ "formats_the_reason_and_returns_the_negated_code",
	  formats_the_reason_and_returns_the_negated_code },
	{ "a_long_reason_is_cut_to_the_buffer_and_terminated",
	  a_long_reason_is_cut_to_the_buffer_and_terminated },
	{ "no_buffer_or_an_empty_one_is_left_alone", no_buffer_or_an_empty_one_is_left_alone },
	{ NULL, NULL }
};
