/* SPDX-License-Identifier: MIT */
/* The target's log (see log.h): its logger's, util/log.h. */
#include <stdarg.h>
#include "target/core.h"
#include "target/log.h"

bool nvmf_log_on(const struct nvmf_tgt *tgt, enum nvmf_log_component comp,
		 enum nvmf_log_level level)
{
	return nvmf_logger_on(&tgt->log, comp, level);
}

void nvmf_log_at(const struct nvmf_tgt *tgt, enum nvmf_log_component comp,
		 enum nvmf_log_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	nvmf_logger_vwrite(&tgt->log, comp, level, fmt, ap);
	va_end(ap);
}

enum nvmf_log_level nvmf_log_level_get(const struct nvmf_tgt *tgt, enum nvmf_log_component comp)
{
	return nvmf_logger_get(&tgt->log, comp);
}

enum nvmf_log_level nvmf_log_level_set(struct nvmf_tgt *tgt, enum nvmf_log_component comp,
				       enum nvmf_log_level level)
{
	return nvmf_logger_set(&tgt->log, comp, level);
}

void nvmf_log_level_set_all(struct nvmf_tgt *tgt, enum nvmf_log_level level)
{
	nvmf_logger_init(&tgt->log, level);
}

void nvmf_log_level_apply(struct nvmf_tgt *tgt, const struct nvmf_target_config *t)
{
	nvmf_logger_apply(&tgt->log, t->log_level);
}
