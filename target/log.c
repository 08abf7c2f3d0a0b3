/* SPDX-License-Identifier: MIT */
/* The target's log (see log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "target/core.h"
#include "target/log.h"

static const char *const names[] = { "error", "warning", "info", "debug" };

void nvmf_log(const struct nvmf_tgt *tgt, enum nvmf_log_level level, const char *fmt, ...)
{
	if ((int)level > __atomic_load_n(&tgt->log_level, __ATOMIC_RELAXED))
		return;
	/* One write per line, so lines of different threads do not interleave. */
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(line, sizeof(line), "nvmf-target: %s", level <= NVMF_LOG_WARNING ?
			 (level == NVMF_LOG_ERROR ? "error: " : "warning: ") : "");
	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

const char *nvmf_log_level_name(enum nvmf_log_level level)
{
	return (unsigned)level < 4 ? names[level] : "?";
}

bool nvmf_log_level_parse(const char *name, enum nvmf_log_level *out)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum nvmf_log_level)i;
			return true;
		}
	return false;
}
