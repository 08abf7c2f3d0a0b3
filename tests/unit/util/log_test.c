/* The log's lines and levels without a target (util/log.c): the line's shape, a level per
 * component, the config's levels applied only where named, a NULL logger at info, and a
 * line too long cut but still ended. */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "util/log.h"

static void line_is_prefix_component_severity_text(void)
{
	struct nvmf_logger lg;
	nvmf_logger_init(&lg, NVMF_LOG_DEBUG);
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_logger_write(&lg, NVMF_LOGC_BACKEND, NVMF_LOG_ERROR, "file backend: %s", "gone");
	nvmf_logger_write(&lg, NVMF_LOGC_AUTH, NVMF_LOG_WARNING, "readable");
	nvmf_logger_write(&lg, NVMF_LOGC_CORE, NVMF_LOG_INFO, "ready");
	nvmf_logger_write(&lg, NVMF_LOGC_TCP, NVMF_LOG_DEBUG, "pdu %u", 4u);
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text, "nvmf-target: backend: error: file backend: gone\n"
					 "nvmf-target: auth: warning: readable\n"
					 "nvmf-target: core: ready\n"
					 "nvmf-target: tcp: pdu 4\n");
}

/* --log-level error: no info line, whatever component; errors always. */
static void error_level_drops_info_and_warning_lines(void)
{
	struct nvmf_logger lg;
	nvmf_logger_init(&lg, NVMF_LOG_ERROR);
	CU_ASSERT_FALSE(nvmf_logger_on(&lg, NVMF_LOGC_CORE, NVMF_LOG_INFO));
	CU_ASSERT_FALSE(nvmf_logger_on(&lg, NVMF_LOGC_COUNT, NVMF_LOG_ERROR));
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_logger_write(&lg, NVMF_LOGC_CORE, NVMF_LOG_INFO, "ready");
	nvmf_logger_write(&lg, NVMF_LOGC_AUTH, NVMF_LOG_WARNING, "readable");
	nvmf_logger_write(&lg, NVMF_LOGC_CONTROL, NVMF_LOG_ERROR, "refused");
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text, "nvmf-target: control: error: refused\n");
}

/* nvmf_target.log_level: the components it names (not -1) take their level; the others
 * keep theirs. set returns the level before. */
static void config_levels_apply_where_named(void)
{
	struct nvmf_logger lg;
	nvmf_logger_init(&lg, NVMF_LOG_ERROR);
	int8_t levels[NVMF_LOGC_COUNT];
	memset(levels, -1, sizeof(levels));
	levels[NVMF_LOGC_TCP] = NVMF_LOG_DEBUG;
	nvmf_logger_apply(&lg, levels);
	CU_ASSERT_EQUAL(nvmf_logger_get(&lg, NVMF_LOGC_TCP), NVMF_LOG_DEBUG);
	CU_ASSERT_EQUAL(nvmf_logger_get(&lg, NVMF_LOGC_CORE), NVMF_LOG_ERROR);
	CU_ASSERT_EQUAL(nvmf_logger_set(&lg, NVMF_LOGC_CORE, NVMF_LOG_INFO), NVMF_LOG_ERROR);
	CU_ASSERT_TRUE(nvmf_logger_on(&lg, NVMF_LOGC_CORE, NVMF_LOG_INFO));
}

/* No logger (a backend closing, the control socket's thread): the default, info. */
static void null_logger_writes_at_info(void)
{
	CU_ASSERT_TRUE(nvmf_logger_on(NULL, NVMF_LOGC_BACKEND, NVMF_LOG_ERROR));
	CU_ASSERT_TRUE(nvmf_logger_on(NULL, NVMF_LOGC_BACKEND, NVMF_LOG_INFO));
	CU_ASSERT_FALSE(nvmf_logger_on(NULL, NVMF_LOGC_BACKEND, NVMF_LOG_DEBUG));
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_logger_write(NULL, NVMF_LOGC_BACKEND, NVMF_LOG_ERROR, "x");
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text, "nvmf-target: backend: error: x\n");
}

/* A line over 1 KiB is cut, and still one line: the next starts on its own. */
static void long_line_is_cut_and_ended(void)
{
	char big[2000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_logger_write(NULL, NVMF_LOGC_CORE, NVMF_LOG_INFO, "%s", big);
	nvmf_logger_write(NULL, NVMF_LOGC_CORE, NVMF_LOG_INFO, "next");
	fx_stderr_end(&out);
	char *nl = strchr(out.text, '\n');
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
	CU_ASSERT_EQUAL(nl - out.text, 1022); /* 1 KiB with its newline and NUL */
	CU_ASSERT_STRING_EQUAL(nl + 1, "nvmf-target: core: next\n");
}

const struct unit_test util_log_tests[] = {
	{ "line_is_prefix_component_severity_text", line_is_prefix_component_severity_text },
	{ "error_level_drops_info_and_warning_lines", error_level_drops_info_and_warning_lines },
	{ "config_levels_apply_where_named", config_levels_apply_where_named },
	{ "null_logger_writes_at_info", null_logger_writes_at_info },
	{ "long_line_is_cut_and_ended", long_line_is_cut_and_ended },
	{ NULL, NULL }
};
