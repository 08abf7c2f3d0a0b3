/* The log's names and nvmf_target.log_level (subsystem/config_log.c): levels and
 * components by name both ways, the key loads into per-component levels (the rest left
 * unset), unknown components and levels are refused by name, and what is saved loads
 * back the same. JSON here is single-quoted for readability (cfg_test_quoted() below). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/config.h"
#include "tests/unit/subsystem/config_util.h"
#include "tests/unit/suites.h"

static void every_level_and_component_name_parses_back(void)
{
	for (int i = NVMF_LOG_ERROR; i <= NVMF_LOG_DEBUG; i++) {
		enum nvmf_log_level l;
		CU_ASSERT_TRUE(
			nvmf_log_level_parse(nvmf_log_level_name((enum nvmf_log_level)i), &l));
		CU_ASSERT_EQUAL(l, i);
	}
	for (int i = 0; i < NVMF_LOGC_COUNT; i++) {
		enum nvmf_log_component c;
		CU_ASSERT_TRUE(nvmf_log_component_parse(
			nvmf_log_component_name((enum nvmf_log_component)i), &c));
		CU_ASSERT_EQUAL(c, i);
	}
	CU_ASSERT_STRING_EQUAL(nvmf_log_component_name(NVMF_LOGC_BACKEND), "backend");
	CU_ASSERT_STRING_EQUAL(nvmf_log_component_name(NVMF_LOGC_COUNT), "?");
	CU_ASSERT_STRING_EQUAL(nvmf_log_level_name((enum nvmf_log_level)4), "?");
	enum nvmf_log_component c;
	enum nvmf_log_level l;
	CU_ASSERT_FALSE(nvmf_log_component_parse("TCP", &c));
	CU_ASSERT_FALSE(nvmf_log_level_parse("verbose", &l));
}

static void log_level_names_some_components_and_leaves_the_rest_unset(void)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(
		cfg_test_parse("{'nvmf_target':{'log_level':{'tcp':'debug','backend':'error'}}}",
			       &cfg, err, sizeof(err)),
		0);
	CU_ASSERT_EQUAL(cfg.target.log_level[NVMF_LOGC_TCP], NVMF_LOG_DEBUG);
	CU_ASSERT_EQUAL(cfg.target.log_level[NVMF_LOGC_BACKEND], NVMF_LOG_ERROR);
	CU_ASSERT_EQUAL(cfg.target.log_level[NVMF_LOGC_CORE], -1);
	CU_ASSERT_EQUAL(cfg.target.log_level[NVMF_LOGC_RDMA], -1);
	nvmf_config_free(&cfg);
}

static void absent_log_level_leaves_every_component_unset(void)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse("{'nvmf_target':{}}", &cfg, err, sizeof(err)), 0);
	for (int i = 0; i < NVMF_LOGC_COUNT; i++)
		CU_ASSERT_EQUAL(cfg.target.log_level[i], -1);
	nvmf_config_free(&cfg);
}

static void unknown_log_component_is_refused_by_name(void)
{
	cfg_test_expect_error(
		"{'nvmf_target':{'log_level':{'disk':'debug'}}}",
		"nvmf_target.log_level.disk: not a log component (core, rdma, tcp, auth, control, backend or gateway)");
}

static void unknown_log_level_is_refused_by_name(void)
{
	cfg_test_expect_error(
		"{'nvmf_target':{'log_level':{'tcp':'loud'}}}",
		"nvmf_target.log_level.tcp: \"loud\" is not a log level (error, warning, info or debug)");
	cfg_test_expect_error(
		"{'nvmf_target':{'log_level':{'tcp':3}}}",
		"nvmf_target.log_level.tcp: a non-string is not a log level (error, warning, info or debug)");
}

static void log_level_that_is_not_an_object_is_refused(void)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL(cfg_test_parse("{'nvmf_target':{'log_level':'debug'}}", &cfg, err,
				       sizeof(err)),
			-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nvmf_target.log_level"));
	nvmf_config_free(&cfg);
}

static void saved_log_level_loads_back_and_is_absent_when_unset(void)
{
	struct nvmf_config cfg, back;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(
		cfg_test_parse("{'nvmf_target':{'log_level':{'auth':'warning','control':'debug'}}}",
			       &cfg, err, sizeof(err)),
		0);
	json_t *j = nvmf_config_to_json(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	json_t *ll = json_object_get(json_object_get(j, "nvmf_target"), "log_level");
	CU_ASSERT_EQUAL(json_object_size(ll), 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ll, "auth")), "warning");
	char *text = json_dumps(j, 0);
	json_decref(j);
	memset(&back, 0, sizeof(back));
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(text, &back, err, sizeof(err)), 0);
	free(text);
	CU_ASSERT_EQUAL(memcmp(back.target.log_level, cfg.target.log_level,
			       sizeof(cfg.target.log_level)),
			0);
	nvmf_config_free(&back);
	nvmf_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(cfg_test_parse("{'nvmf_target':{}}", &cfg, err, sizeof(err)), 0);
	j = nvmf_config_to_json(&cfg);
	CU_ASSERT_PTR_NULL(json_object_get(json_object_get(j, "nvmf_target"), "log_level"));
	json_decref(j);
	nvmf_config_free(&cfg);
}

#define T(n)          \
	{             \
#n, n \
	}
const struct unit_test config_log_tests[] = {
	T(every_level_and_component_name_parses_back),
	T(log_level_names_some_components_and_leaves_the_rest_unset),
	T(absent_log_level_leaves_every_component_unset),
	T(unknown_log_component_is_refused_by_name),
	T(unknown_log_level_is_refused_by_name),
	T(log_level_that_is_not_an_object_is_refused),
	T(saved_log_level_loads_back_and_is_absent_when_unset),
	{ NULL, NULL },
};
