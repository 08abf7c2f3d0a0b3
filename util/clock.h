/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock, written once, and a clock that tests can drive.
 *
 * nvmf_mono_{ns,us,ms} read CLOCK_MONOTONIC (POSIX.1-2008 clock_gettime): for elapsed
 * times and deadlines, never for wall-clock dates. Code whose timers tests must drive
 * without sleeping reads a struct nvmf_clock it holds instead (the target's tgt->clock,
 * which the RDMA transport reads too): a test sets now_ms to its own function and makes
 * time pass by changing what that returns.
 */
#ifndef NVMF_UTIL_CLOCK_H
#define NVMF_UTIL_CLOCK_H
#include <stdint.h>

/* nvmf_mono_ns - CLOCK_MONOTONIC in nanoseconds (an arbitrary origin, never goes back). */
uint64_t nvmf_mono_ns(void);
/* nvmf_mono_us - the same in microseconds (truncated). */
uint64_t nvmf_mono_us(void);
/* nvmf_mono_ms - the same in milliseconds (truncated). */
uint64_t nvmf_mono_ms(void);
/* nvmf_mono_coarse_ms - CLOCK_MONOTONIC_COARSE in milliseconds: the time of the last
 * tick (a few ms old at most), read without a system call; for stamps taken per command
 * where a tick's error does not matter (command timeouts). Same origin as nvmf_mono_ms. */
uint64_t nvmf_mono_coarse_ms(void);

/*
 * struct nvmf_clock - a millisecond clock a test can replace. Embedded in the context
 * struct that owns it (zeroed: the monotonic clock); a test's now_ms finds its own
 * fixture from @clock (container_of) and returns the time it chose.
 */
struct nvmf_clock {
	uint64_t (*now_ms)(const struct nvmf_clock *clock); /* NULL: nvmf_mono_ms */
};

/* nvmf_clock_ms - @clock's time in ms: clock->now_ms(clock), or nvmf_mono_ms() when
 * @clock or its now_ms is NULL. */
uint64_t nvmf_clock_ms(const struct nvmf_clock *clock);

#endif
