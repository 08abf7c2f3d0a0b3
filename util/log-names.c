// SPDX-License-Identifier: MIT
/* The target log's level and component names (see log-names.h). */
#include "util/log-names.h"

#include "util/choice.h"

const char *const nvmf_log_level_names[NVMF_LOG_DEBUG + 2] = {
	[NVMF_LOG_ERROR] = "error", [NVMF_LOG_WARNING] = "warning", [NVMF_LOG_INFO] = "info",
	[NVMF_LOG_DEBUG] = "debug", [NVMF_LOG_DEBUG + 1] = NULL,
};

const char *const nvmf_log_component_names[NVMF_LOGC_COUNT + 1] = {
	[NVMF_LOGC_CORE] = "core",       [NVMF_LOGC_RDMA] = "rdma",
	[NVMF_LOGC_TCP] = "tcp",         [NVMF_LOGC_AUTH] = "auth",
	[NVMF_LOGC_CONTROL] = "control", [NVMF_LOGC_BACKEND] = "backend",
	[NVMF_LOGC_GATEWAY] = "gateway", [NVMF_LOGC_COUNT] = NULL,
};

const char *nvmf_log_level_name(enum nvmf_log_level level)
{
	return (unsigned)level <= NVMF_LOG_DEBUG ? nvmf_log_level_names[level] : "?";
}

bool nvmf_log_level_parse(const char *name, enum nvmf_log_level *out)
{
	int i = nvmf_choice_index(nvmf_log_level_names, name);
	if (i >= 0)
		*out = (enum nvmf_log_level)i;
	return i >= 0;
}

const char *nvmf_log_component_name(enum nvmf_log_component c)
{
	return (unsigned)c < NVMF_LOGC_COUNT ? nvmf_log_component_names[c] : "?";
}

bool nvmf_log_component_parse(const char *name, enum nvmf_log_component *out)
{
	int i = nvmf_choice_index(nvmf_log_component_names, name);
	if (i >= 0)
		*out = (enum nvmf_log_component)i;
	return i >= 0;
}
