/* SPDX-License-Identifier: MIT */
/*
 * The log's configuration: nvmf_target.log_level, an object of
 * component -> level ({"tcp": "debug", "core": "warning"}) read, checked and written back.
 * A component the object does not name keeps the daemon's --log-level (default info).
 */
#include <string.h>
#include "subsystem/config_json.h"
#include "util/choice.h"

int cfg_parse_log_level(struct cfg_ctx *c, json_t *nt, struct nvmf_target_config *t)
{
	json_t *obj, *v;
	const char *k;
	char b[80], names[80];

	if (cfg_get_typed(c, nt, "nvmf_target", "log_level", JSON_OBJECT, false, &obj))
		return -1;
	if (!obj)
		return 0;
	json_object_foreach(obj, k, v) {
		enum nvmf_log_component comp;
		enum nvmf_log_level level;
		if (!nvmf_log_component_parse(k, &comp))
			return cfg_fail(c, "nvmf_target.log_level", k, "not a log component (%s)",
					nvmf_choice_text(nvmf_log_component_names, names,
							 sizeof(names)));
		if (!json_is_string(v) || !nvmf_log_level_parse(json_string_value(v), &level))
			return cfg_fail(
				c, "nvmf_target.log_level", k, "%s is not a log level (%s)",
				json_is_string(v) ? cfg_quote(json_string_value(v), b, sizeof(b)) :
						    "a non-string",
				nvmf_choice_text(nvmf_log_level_names, names, sizeof(names)));
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
			obj, nvmf_log_component_names[i],
			json_string(nvmf_log_level_name((enum nvmf_log_level)t->log_level[i])));
	}
	return obj;
}
