/* SPDX-License-Identifier: MIT */
/* Deadline arithmetic (see deadline.h). */
#include "util/clock.h"
#include "util/deadline.h"

#define NS_PER_S 1000000000L

struct timespec nvmf_timespec_add_ms(struct timespec ts, uint64_t ms)
{
	ts.tv_sec += (time_t)(ms / 1000u);
	ts.tv_nsec += (long)(ms % 1000u) * 1000000L;
	/* Both parts were below 1 s, so one carry is enough. */
	if (ts.tv_nsec >= NS_PER_S) {
		ts.tv_sec++;
		ts.tv_nsec -= NS_PER_S;
	}
	return ts;
}

bool nvmf_timespec_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

struct timespec nvmf_deadline_in_ms(uint64_t ms)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return nvmf_timespec_add_ms(now, ms);
}

bool nvmf_deadline_passed(const struct timespec *deadline)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return !nvmf_timespec_before(&now, deadline);
}

int nvmf_deadline_left_ms(int64_t deadline_ms)
{
	int64_t left = deadline_ms - (int64_t)nvmf_mono_ms();
	return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}
