/* Helpers shared by the config loader's unit tests (tests/unit/subsystem/config*_test.c):
 * configurations written with single quotes in C strings, parsed, and refusals checked. */
#ifndef NVMF_TESTS_UNIT_SUBSYSTEM_CONFIG_UTIL_H
#define NVMF_TESTS_UNIT_SUBSYSTEM_CONFIG_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/config.h"
#include "tests/unit/suites.h"

/* cfg_test_quoted - a copy of @s with every ' made " (JSON in C strings without escapes);
 * free() it. */
static inline char *cfg_test_quoted(const char *s)
{
	char *d = strdup(s);
	for (char *p = d; p && *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

/* cfg_test_parse - nvmf_config_parse of @json in its single-quoted form. */
static inline int cfg_test_parse(const char *json, struct nvmf_config *cfg, char *err,
				 size_t errlen)
{
	char *j = cfg_test_quoted(json);
	int rc = nvmf_config_parse(j, cfg, err, errlen);
	free(j);
	return rc;
}

/* cfg_test_expect_error - @json is refused with exactly @want (printed beside what came
 * when they differ), and nothing is left allocated. */
static inline void cfg_test_expect_error(const char *json, const char *want)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL(cfg_test_parse(json, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want))
		fprintf(stderr, "\n    got:  %s\n    want: %s\n", err, want);
	CU_ASSERT_PTR_NULL(cfg.subsystems);
	CU_ASSERT_PTR_NULL(cfg.ports);
	nvmf_config_free(&cfg);
}

#endif
