/* SPDX-License-Identifier: MIT */
/*
 * Deadlines, written once: absolute CLOCK_MONOTONIC times as struct timespec for
 * pthread_cond_timedwait on a condition variable set to CLOCK_MONOTONIC
 * (pthread_condattr_setclock) and for sem_clockwait, and as milliseconds of
 * nvmf_mono_ms (util/clock.h) for poll() timeouts.
 */
#ifndef NVMF_UTIL_DEADLINE_H
#define NVMF_UTIL_DEADLINE_H
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* nvmf_timespec_add_ms - @ts plus @ms milliseconds, tv_nsec kept in [0, 1e9) (a tv_nsec
 * of 1e9 or more is rejected by pthread_cond_timedwait with EINVAL). @ts must be
 * normalised itself. */
struct timespec nvmf_timespec_add_ms(struct timespec ts, uint64_t ms);
/* nvmf_timespec_before - @a is strictly earlier than @b (both normalised). */
bool nvmf_timespec_before(const struct timespec *a, const struct timespec *b);
/* nvmf_deadline_in_ms - CLOCK_MONOTONIC now plus @ms, as an absolute timespec. */
struct timespec nvmf_deadline_in_ms(uint64_t ms);
/* nvmf_deadline_passed - CLOCK_MONOTONIC now is at or after @deadline. */
bool nvmf_deadline_passed(const struct timespec *deadline);
/* nvmf_deadline_left_ms - milliseconds from nvmf_mono_ms() until @deadline_ms (a time of
 * nvmf_mono_ms), clamped to [0, INT32_MAX]: a poll() timeout, 0 once passed. */
int nvmf_deadline_left_ms(int64_t deadline_ms);

#endif
