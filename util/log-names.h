/* SPDX-License-Identifier: MIT */
/*
 * The target log's levels and components, and their names: what nvmf_target.log_level
 * (subsystem/config_log.c), --log-level, the log's lines (target/log.h) and the control
 * methods log_level_get/log_level_set (control/schema.c) spell. Here, in util/, so that
 * nvmf-targetctl checks and lists the same names without linking any target code.
 */
#ifndef NVMF_UTIL_LOG_NAMES_H
#define NVMF_UTIL_LOG_NAMES_H

#include <stdbool.h>

/* The log's levels, most severe first: a line is written when its level <= its
 * component's level (target/log.h). */
enum nvmf_log_level {
	NVMF_LOG_ERROR,
	NVMF_LOG_WARNING,
	NVMF_LOG_INFO, /* the default: connects, disconnects, changes */
	NVMF_LOG_DEBUG,
};

/* The log's components: each line names the one it comes from, and each has its own
 * level (target/log.h). */
enum nvmf_log_component {
	NVMF_LOGC_CORE,    /* target/: controllers, queues, namespaces, reservations */
	NVMF_LOGC_RDMA,    /* rdma/target */
	NVMF_LOGC_TCP,     /* tcp/target */
	NVMF_LOGC_AUTH,    /* DH-HMAC-CHAP (target/auth.c) */
	NVMF_LOGC_CONTROL, /* control/: the control socket, reload */
	NVMF_LOGC_BACKEND, /* subsystem/backend*: what a backend chose at open, its close */
	NVMF_LOGC_GATEWAY, /* gateway/: a gateway group's ANA groups taken and given up */
	NVMF_LOGC_COUNT,
};

/* The names, indexed by the enums above and ended by NULL (the control methods'
 * choice lists, control/schema.c): "error", "warning", "info", "debug"; "core", "rdma",
 * "tcp", "auth", "control", "backend". */
extern const char *const nvmf_log_level_names[NVMF_LOG_DEBUG + 2];
extern const char *const nvmf_log_component_names[NVMF_LOGC_COUNT + 1];

/* nvmf_log_level_name - @level's name; "?" out of range. */
const char *nvmf_log_level_name(enum nvmf_log_level level);
/* nvmf_log_level_parse - @name (exactly, lower case) as a level into *@out; false when it
 * is none of the four (*@out untouched). */
bool nvmf_log_level_parse(const char *name, enum nvmf_log_level *out);
/* nvmf_log_component_name - @c's name; "?" out of range. */
const char *nvmf_log_component_name(enum nvmf_log_component c);
/* nvmf_log_component_parse - @name (exactly) as a component into *@out; false when it is
 * none of them (*@out untouched). */
bool nvmf_log_component_parse(const char *name, enum nvmf_log_component *out);

#endif
