/* SPDX-License-Identifier: MIT */
/*
 * The log's names and its configuration: the levels and components of the target's log
 * (subsystem/config.h, target/log.h) by name, and nvmf_target.log_level, an object of
 * component -> level ({"tcp": "debug", "core": "warning"}) read, checked and written back.
 * A component the object does not name keeps the daemon's --log-level (default info).
 */
#include <string.h>
#include "subsystem/config_json.h"

static const char *const level_names[] = {
	[NVMF_LOG_ERROR] = "error",
	[NVMF_LOG_WARNING] = "warning",
	[NVMF_LOG_INFO] = "info",
	[NVMF_LOG_DEBUG] = "debug",
};

static const char *const component_names[NVMF_LOGC_COUNT] = {
	[NVMF_LOGC_CORE] = "core", [NVMF_LOGC_RDMA] = "rdma",       [NVMF_LOGC_TCP] = "tcp",
	[NVMF_LOGC_AUTH] = "auth", [NVMF_LOGC_CONTROL] = "control", [NVMF_LOGC_BACKEND] = "backend",
};

const char *nvmf_log_level_name(enum nvmf_log_level level)
{
	return (unsigned)level <= NVMF_LOG_DEBUG ? level_names[level] : "?";
}

bool nvmf_log_level_parse(const char *name, enum nvmf_log_level *out)
{
	for (unsigned i = 0; i <= NVMF_LOG_DEBUG; i++)
		if (!strcmp(name, level_names[i])) {
			*out = (enum nvmf_log_level)i;
			return true;
		}
	return false;
}

const char *nvmf_log_component_name(enum nvmf_log_component c)
{
	return (unsigned)c < NVMF_LOGC_COUNT ? component_names[c] : "?";
}

bool nvmf_log_component_parse(const char *name, enum nvmf_log_component *out)
{
	for (unsigned i = 0; i < NVMF_LOGC_COUNT; i++)
		if (!strcmp(name, component_names[i])) {
			*out = (enum nvmf_log_component)i;
			return true;
		}
	return false;
}

int cfg_parse_log_level(struct cfg_ctx *c, json_t *nt, struct nvmf_target_config *t)
{
	json_t *obj, *v;
	const char *k;
	char b[80];

	if (cfg_get_typed(c, nt, "nvmf_target", "log_level", JSON_OBJECT, false, &obj))
		return -1;
	if (!obj)
		return 0;
	json_object_foreach(obj, k, v) {
		enum nvmf_log_component comp;
		enum nvmf_log_level level;
		if (!nvmf_log_component_parse(k, &comp))
			return cfg_fail(c, "nvmf_target.log_level", k,
					"not a log component (core, rdma, "
					"tcp, auth, control, backend)");
		if (!json_is_string(v) || !nvmf_log_level_parse(json_string_value(v), &level))
			return cfg_fail(c, "nvmf_target.log_level", k,
					"%s is not a log level (error, "
					"warning, info, debug)",
					json_is_string(v) ?
						cfg_quote(json_string_value(v), b, sizeof(b)) :
						"a non-string");
		t->log_level[comp] = (int8_t)level;
	}
	return 0;
}

json_t *cfg_log_level_json(const struct nvmf_target_config *t)
{
	json_t *obj = NULL;
	for (unsigned i = 0; i < NVMF_LOGC_COUNT; i++) {
		if (t->log_level[i] < 0)
			continue;
		if (!obj && !(obj = json_object()))
			return NULL;
		json_object_set_new(
			obj, component_names[i],
			json_string(nvmf_log_level_name((enum nvmf_log_level)t->log_level[i])));
	}
	return obj;
}
