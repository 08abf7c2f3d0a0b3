/* SPDX-License-Identifier: MIT */
/* The target's log (see log.h). */
#include <stdarg.h>
#include <stdio.h>
#include "target/core.h"
#include "target/log.h"

bool nvmf_log_on(const struct nvmf_tgt *tgt, enum nvmf_log_component comp,
		 enum nvmf_log_level level)
{
	return (unsigned)comp < NVMF_LOGC_COUNT &&
	       (int)level <= __atomic_load_n(&tgt->log_level[comp], __ATOMIC_RELAXED);
}

void nvmf_log_at(const struct nvmf_tgt *tgt, enum nvmf_log_component comp,
		 enum nvmf_log_level level, const char *fmt, ...)
{
	if (!nvmf_log_on(tgt, comp, level))
		return;
	/* One write per line, so lines of different threads do not interleave. */
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(line, sizeof(line), "nvmf-target: %s: %s", nvmf_log_component_name(comp),
			 level <= NVMF_LOG_WARNING ?
				 (level == NVMF_LOG_ERROR ? "error: " : "warning: ") :
				 "");
	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

enum nvmf_log_level nvmf_log_level_get(const struct nvmf_tgt *tgt, enum nvmf_log_component comp)
{
	return (enum nvmf_log_level)__atomic_load_n(&tgt->log_level[comp], __ATOMIC_RELAXED);
}

enum nvmf_log_level nvmf_log_level_set(struct nvmf_tgt *tgt, enum nvmf_log_component comp,
				       enum nvmf_log_level level)
{
	return (enum nvmf_log_level)__atomic_exchange_n(&tgt->log_level[comp], (int)level,
							__ATOMIC_RELAXED);
}

void nvmf_log_level_set_all(struct nvmf_tgt *tgt, enum nvmf_log_level level)
{
	for (unsigned i = 0; i < NVMF_LOGC_COUNT; i++)
		nvmf_log_level_set(tgt, (enum nvmf_log_component)i, level);
}

void nvmf_log_level_apply(struct nvmf_tgt *tgt, const struct nvmf_target_config *t)
{
	for (unsigned i = 0; i < NVMF_LOGC_COUNT; i++)
		if (t->log_level[i] >= 0)
			nvmf_log_level_set(tgt, (enum nvmf_log_component)i,
					   (enum nvmf_log_level)t->log_level[i]);
}
