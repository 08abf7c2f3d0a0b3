/* The monotonic clock and the drivable clock (util/clock.c): one reading, in three units,
 * that never goes back; a struct nvmf_clock a test drives without sleeping. */
#include <CUnit/CUnit.h>
#include <stddef.h>
#include <time.h>
#include "tests/unit/suites.h"
#include "util/clock.h"

static void mono_units_agree_and_never_go_back(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t before_ms = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	uint64_t ms = nvmf_mono_ms(), us = nvmf_mono_us(), ns = nvmf_mono_ns();
	CU_ASSERT(ms >= before_ms);
	/* Read in this order, each later value in a finer unit is at least the earlier. */
	CU_ASSERT(us / 1000u >= ms);
	CU_ASSERT(ns / 1000u >= us);
	CU_ASSERT(nvmf_mono_ns() >= ns);
	/* Not a scaled-down clock: within a minute of clock_gettime's own reading. */
	CU_ASSERT(ms - before_ms < 60000u);
}

/* The coarse clock: the same origin, at most a tick or so behind, never ahead. */
static void coarse_ms_is_the_monotonic_clock_a_tick_behind(void)
{
	uint64_t a = nvmf_mono_ms();
	uint64_t c = nvmf_mono_coarse_ms();
	uint64_t b = nvmf_mono_ms();
	CU_ASSERT(c <= b);
	CU_ASSERT(c + 100u >= a); /* a tick is 1-10 ms; 100 ms leaves room for preemption */
}

static void zeroed_or_null_clock_is_the_monotonic_clock(void)
{
	struct nvmf_clock zero = { 0 };
	uint64_t a = nvmf_mono_ms();
	uint64_t b = nvmf_clock_ms(&zero), c = nvmf_clock_ms(NULL);
	uint64_t d = nvmf_mono_ms();
	CU_ASSERT(a <= b && b <= c && c <= d);
}

struct fake {
	int pad;
	struct nvmf_clock clock;
	uint64_t now;
};

static uint64_t fake_ms(const struct nvmf_clock *clock)
{
	const struct fake *f = (const void *)((const char *)clock - offsetof(struct fake, clock));
	return f->now;
}

static void test_clock_moves_only_when_the_test_says(void)
{
	struct fake f = { .clock = { fake_ms }, .now = 5 };
	CU_ASSERT_EQUAL(nvmf_clock_ms(&f.clock), 5);
	CU_ASSERT_EQUAL(nvmf_clock_ms(&f.clock), 5);
	f.now += 3600u * 1000u; /* an hour passes, at once */
	CU_ASSERT_EQUAL(nvmf_clock_ms(&f.clock), 5 + 3600u * 1000u);
}

const struct unit_test util_clock_tests[] = {
	{ "mono_units_agree_and_never_go_back", mono_units_agree_and_never_go_back },
	{ "coarse_ms_is_the_monotonic_clock_a_tick_behind",
	  coarse_ms_is_the_monotonic_clock_a_tick_behind },
	{ "zeroed_or_null_clock_is_the_monotonic_clock",
	  zeroed_or_null_clock_is_the_monotonic_clock },
	{ "test_clock_moves_only_when_the_test_says", test_clock_moves_only_when_the_test_says },
	{ NULL, NULL }
};
