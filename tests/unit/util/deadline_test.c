/* Deadline arithmetic (util/deadline.c): tv_nsec stays below a second, comparisons,
 * deadlines that pass and poll() timeouts that clamp. */
#include <CUnit/CUnit.h>
#include <limits.h>
#include "tests/unit/suites.h"
#include "util/clock.h"
#include "util/deadline.h"

static void add_ms_carries_nanoseconds_into_seconds(void)
{
	struct timespec t = nvmf_timespec_add_ms((struct timespec){ 10, 999999999L }, 1);
	CU_ASSERT_EQUAL(t.tv_sec, 11);
	CU_ASSERT_EQUAL(t.tv_nsec, 999999L);
	t = nvmf_timespec_add_ms((struct timespec){ 10, 500000000L }, 500);
	CU_ASSERT_EQUAL(t.tv_sec, 11); /* exactly 1e9: carried, not left as tv_nsec */
	CU_ASSERT_EQUAL(t.tv_nsec, 0);
	t = nvmf_timespec_add_ms((struct timespec){ 10, 400000000L }, 2599);
	CU_ASSERT_EQUAL(t.tv_sec, 12);
	CU_ASSERT_EQUAL(t.tv_nsec, 999000000L);
	t = nvmf_timespec_add_ms((struct timespec){ 7, 123L }, 0);
	CU_ASSERT_EQUAL(t.tv_sec, 7);
	CU_ASSERT_EQUAL(t.tv_nsec, 123L);
}

static void before_is_strict_and_orders_by_seconds_first(void)
{
	struct timespec a = { 5, 900000000L }, b = { 6, 0 }, c = { 6, 1 };
	CU_ASSERT_TRUE(nvmf_timespec_before(&a, &b));
	CU_ASSERT_FALSE(nvmf_timespec_before(&b, &a));
	CU_ASSERT_TRUE(nvmf_timespec_before(&b, &c));
	CU_ASSERT_FALSE(nvmf_timespec_before(&c, &c));
}

static void deadline_of_now_has_passed_and_one_later_has_not(void)
{
	struct timespec now = nvmf_deadline_in_ms(0);
	CU_ASSERT(now.tv_nsec >= 0 && now.tv_nsec < 1000000000L);
	CU_ASSERT_TRUE(nvmf_deadline_passed(&now));
	struct timespec later = nvmf_deadline_in_ms(3600u * 1000u);
	CU_ASSERT_FALSE(nvmf_deadline_passed(&later));
	CU_ASSERT_TRUE(nvmf_timespec_before(&now, &later));
	CU_ASSERT(later.tv_sec - now.tv_sec >= 3599);
}

static void left_ms_is_clamped_for_poll(void)
{
	int64_t now = (int64_t)nvmf_mono_ms();
	CU_ASSERT_EQUAL(nvmf_deadline_left_ms(now - 5), 0);
	CU_ASSERT_EQUAL(nvmf_deadline_left_ms(INT64_MIN / 2), 0);
	CU_ASSERT_EQUAL(nvmf_deadline_left_ms(now + ((int64_t)1 << 40)), INT32_MAX);
	int left = nvmf_deadline_left_ms(now + 60000);
	CU_ASSERT(left > 50000 && left <= 60000);
}

const struct unit_test util_deadline_tests[] = {
	{ "add_ms_carries_nanoseconds_into_seconds", add_ms_carries_nanoseconds_into_seconds },
	{ "before_is_strict_and_orders_by_seconds_first",
	  before_is_strict_and_orders_by_seconds_first },
	{ "deadline_of_now_has_passed_and_one_later_has_not",
	  deadline_of_now_has_passed_and_one_later_has_not },
	{ "left_ms_is_clamped_for_poll", left_ms_is_clamped_for_poll },
	{ NULL, NULL }
};
