/* SPDX-License-Identifier: MIT */
/* The monotonic clock and the drivable clock (see clock.h). */
#include <time.h>
#include "util/clock.h"

uint64_t nvmf_mono_ns(void)
{
	struct timespec ts;
	/* CLOCK_MONOTONIC cannot fail with a valid pointer (clock_gettime(2)). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t nvmf_mono_us(void)
{
	return nvmf_mono_ns() / 1000u;
}

uint64_t nvmf_mono_ms(void)
{
	return nvmf_mono_ns() / 1000000u;
}

uint64_t nvmf_mono_coarse_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t nvmf_clock_ms(const struct nvmf_clock *clock)
{
	return clock && clock->now_ms ? clock->now_ms(clock) : nvmf_mono_ms();
}
