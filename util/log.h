/* SPDX-License-Identifier: MIT */
/*
 * The daemon's log lines and the levels that keep or drop them, knowing no target: the
 * target's log (target/log.h) is one of these, and what writes before a target exists
 * (the daemon's start: the config's errors and warnings) or where none is at hand (a
 * backend closing, the control socket's thread) writes through one too, or through
 * none (NULL: the default levels, info).
 *
 * A line is "nvmf-target: <component>: [warning: |error: ]<text>\n" on stderr, one
 * write(2) each so that threads do not interleave, cut at 1 KiB. It is written when its
 * level <= its component's level; errors, the lowest level, always are.
 */
#ifndef NVMF_UTIL_LOG_H
#define NVMF_UTIL_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include "util/log-names.h"

/* Each component's level (an enum nvmf_log_level, atomic: any thread may log while the
 * control socket's thread sets one). */
struct nvmf_logger {
	int level[NVMF_LOGC_COUNT];
};

/* nvmf_logger_init - every component of @lg at @level. */
void nvmf_logger_init(struct nvmf_logger *lg, enum nvmf_log_level level);

/* nvmf_logger_apply - the levels @levels names (NVMF_LOGC_COUNT entries, an enum
 * nvmf_log_level each, -1 for one left alone: nvmf_target.log_level). */
void nvmf_logger_apply(struct nvmf_logger *lg, const int8_t *levels);

/* nvmf_logger_on - a line of @comp at @level would be written (@lg NULL: at info);
 * false for a component out of range. */
bool nvmf_logger_on(const struct nvmf_logger *lg, enum nvmf_log_component comp,
		    enum nvmf_log_level level);

/* nvmf_logger_get - @comp's level now (@comp in range). */
enum nvmf_log_level nvmf_logger_get(const struct nvmf_logger *lg, enum nvmf_log_component comp);

/* nvmf_logger_set - @comp's level becomes @level, for every thread from its next line;
 * returns the level before (@comp in range). */
enum nvmf_log_level nvmf_logger_set(struct nvmf_logger *lg, enum nvmf_log_component comp,
				    enum nvmf_log_level level);

/* nvmf_logger_write - one line (@fmt without its newline) of @comp at @level, when
 * nvmf_logger_on(@lg, @comp, @level). */
void nvmf_logger_write(const struct nvmf_logger *lg, enum nvmf_log_component comp,
		       enum nvmf_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* nvmf_logger_vwrite - nvmf_logger_write with a va_list. */
void nvmf_logger_vwrite(const struct nvmf_logger *lg, enum nvmf_log_component comp,
			enum nvmf_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

#endif
