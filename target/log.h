/* SPDX-License-Identifier: MIT */
/*
 * The target's log: lines on stderr, "nvmf-target: <component>: " first, kept or dropped
 * by the level of their component (core, rdma, tcp, auth, control, backend; the enums and
 * their names are in util/log-names.h, shared with the config and nvmf-targetctl). The
 * lines and levels are util/log.h's, those of the target's logger (tgt->log), set by
 * nvmf_tgt_init (nvmf_target.log_level, the others the daemon's --log-level), live
 * (log_level_set on the control socket) and on reload; any thread may log.
 *
 * A file of a component other than core says so once, before its includes:
 *	#define NVMF_LOG_COMPONENT NVMF_LOGC_CONTROL
 * and its nvmf_log() lines carry that component. Defining it after this header was
 * included is a compile error (a redefined macro), so a file cannot half-switch.
 */
#ifndef NVMF_TARGET_LOG_H
#define NVMF_TARGET_LOG_H

#include <stdbool.h>
#include "subsystem/config.h"

struct nvmf_tgt;

#ifndef NVMF_LOG_COMPONENT
#define NVMF_LOG_COMPONENT NVMF_LOGC_CORE
#endif

/* nvmf_log - one line (@fmt without the trailing newline) at @level, from this file's
 * component (NVMF_LOG_COMPONENT). */
#define nvmf_log(tgt, level, ...) nvmf_log_at((tgt), NVMF_LOG_COMPONENT, (level), __VA_ARGS__)

/* nvmf_log_at - one line from component @comp at @level: written, as one write(2) so
 * threads do not interleave, when @level <= the component's level; lines longer than
 * 1 KiB are cut. A secret in the line (a key given where a name goes) is written as
 * "<secret>" (nvmf_text_redact_secrets). */
void nvmf_log_at(const struct nvmf_tgt *tgt, enum nvmf_log_component comp,
		 enum nvmf_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* nvmf_log_on - a line of @comp at @level would be written (to skip costly arguments). */
bool nvmf_log_on(const struct nvmf_tgt *tgt, enum nvmf_log_component comp,
		 enum nvmf_log_level level);

/* nvmf_log_level_get - @comp's level now. */
enum nvmf_log_level nvmf_log_level_get(const struct nvmf_tgt *tgt, enum nvmf_log_component comp);

/* nvmf_log_level_set - @comp's level becomes @level, for every thread from its next line;
 * returns the level before. */
enum nvmf_log_level nvmf_log_level_set(struct nvmf_tgt *tgt, enum nvmf_log_component comp,
				       enum nvmf_log_level level);

/* nvmf_log_level_set_all - every component's level becomes @level. */
void nvmf_log_level_set_all(struct nvmf_tgt *tgt, enum nvmf_log_level level);

/* nvmf_log_level_apply - the levels @t names (nvmf_target.log_level; the -1 ones are left
 * alone). */
void nvmf_log_level_apply(struct nvmf_tgt *tgt, const struct nvmf_target_config *t);

#endif
