// SPDX-License-Identifier: MIT
/* The daemon's log lines and their levels (see log.h). */
#include "util/log.h"
#include "util/secret.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void nvmf_logger_init(struct nvmf_logger *lg, enum nvmf_log_level level)
{
	for (unsigned i = 0; i < NVMF_LOGC_COUNT; i++)
		nvmf_logger_set(lg, (enum nvmf_log_component)i, level);
}

void nvmf_logger_apply(struct nvmf_logger *lg, const int8_t *levels)
{
	for (unsigned i = 0; i < NVMF_LOGC_COUNT; i++)
		if (levels[i] >= 0)
			nvmf_logger_set(lg, (enum nvmf_log_component)i,
					(enum nvmf_log_level)levels[i]);
}

bool nvmf_logger_on(const struct nvmf_logger *lg, enum nvmf_log_component comp,
		    enum nvmf_log_level level)
{
	if ((unsigned)comp >= NVMF_LOGC_COUNT)
		return false;
	int at = lg ? __atomic_load_n(&lg->level[comp], __ATOMIC_RELAXED) : NVMF_LOG_INFO;
	return (int)level <= at;
}

enum nvmf_log_level nvmf_logger_get(const struct nvmf_logger *lg, enum nvmf_log_component comp)
{
	return (enum nvmf_log_level)__atomic_load_n(&lg->level[comp], __ATOMIC_RELAXED);
}

enum nvmf_log_level nvmf_logger_set(struct nvmf_logger *lg, enum nvmf_log_component comp,
				    enum nvmf_log_level level)
{
	return (enum nvmf_log_level)__atomic_exchange_n(&lg->level[comp], (int)level,
							__ATOMIC_RELAXED);
}

void nvmf_logger_vwrite(const struct nvmf_logger *lg, enum nvmf_log_component comp,
			enum nvmf_log_level level, const char *fmt, va_list ap)
{
	if (!nvmf_logger_on(lg, comp, level))
		return;
	/* One write per line, so lines of different threads do not interleave; the
	 * newline is kept even when the text is cut. */
	char line[1024];
	line[0] = '\0';
	int n = snprintf(line, sizeof(line) - 1, "nvmf-target: %s: %s",
			 nvmf_log_component_name(comp),
			 level == NVMF_LOG_ERROR   ? "error: " :
			 level == NVMF_LOG_WARNING ? "warning: " :
						     "");
	if (n > 0 && (size_t)n < sizeof(line) - 1)
		vsnprintf(line + n, sizeof(line) - 1 - (size_t)n, fmt, ap);
	/* A name quoted from a request or a host may be a key typed in the wrong place. */
	nvmf_text_redact_secrets(line);
	size_t len = strnlen(line, sizeof(line) - 1);
	line[len++] = '\n';
	for (size_t off = 0; off < len;) {
		ssize_t w = write(STDERR_FILENO, line + off, len - off);
		if (w <= 0)
			return; /* nowhere to say it */
		off += (size_t)w;
	}
}

void nvmf_logger_write(const struct nvmf_logger *lg, enum nvmf_log_component comp,
		       enum nvmf_log_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	nvmf_logger_vwrite(lg, comp, level, fmt, ap);
	va_end(ap);
}
