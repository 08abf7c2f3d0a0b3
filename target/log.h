/* SPDX-License-Identifier: MIT */
/*
 * The target's log: lines on stderr, "nvmf-target: " first, kept or dropped by level.
 * The level is the target's (tgt->log_level), set at start (--log-level) and live
 * (log_level_set on the control socket); any thread may log.
 */
#ifndef NVMF_TARGET_LOG_H
#define NVMF_TARGET_LOG_H

#include <stdbool.h>

struct nvmf_tgt;

/* Levels, most severe first: a line is written when its level <= the target's. */
enum nvmf_log_level {
	NVMF_LOG_ERROR,
	NVMF_LOG_WARNING,
	NVMF_LOG_INFO,            /* the default: connects, disconnects, changes */
	NVMF_LOG_DEBUG,
};

/* nvmf_log - one line (@fmt without the trailing newline) at @level. */
void nvmf_log(const struct nvmf_tgt *tgt, enum nvmf_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* nvmf_log_level_name - "error", "warning", "info" or "debug". */
const char *nvmf_log_level_name(enum nvmf_log_level level);
/* nvmf_log_level_parse - @name as a level; false when it is none of the four. */
bool nvmf_log_level_parse(const char *name, enum nvmf_log_level *out);

#endif
