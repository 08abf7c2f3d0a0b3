/* Parsing nvmf-targetctl command lines in the tests (see parse_fixture.h). */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/app/nvmf-targetctl/parse_fixture.h"
#include "tests/unit/suites.h"

struct parsed *parse(struct parsed *p, ...)
{
	char *argv[32] = { "nvmf-targetctl" };
	int argc = 1;
	va_list ap;
	va_start(ap, p);
	for (char *a; argc < 31 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	memset(p, 0, sizeof(*p));
	p->rc = tctl_parse(argc, argv, &p->req, p->err, sizeof(p->err));
	return p;
}

/* @p parsed to @method with params equal to the JSON text @params; frees the request. */
void expect_call(struct parsed *p, const char *method, const char *params)
{
	CU_ASSERT_EQUAL(p->rc, TCTL_OK);
	if (p->rc) {
		fprintf(stderr, "\n  unexpected usage error: %s\n", p->err);
		return;
	}
	CU_ASSERT_FALSE(p->req.help);
	CU_ASSERT_STRING_EQUAL(p->req.method, method);
	json_t *want = json_loads(params, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT_TRUE(json_equal(want, p->req.params));
	if (!json_equal(want, p->req.params)) {
		char *got = json_dumps(p->req.params, JSON_COMPACT);
		fprintf(stderr, "\n  params %s, expected %s\n", got, params);
		free(got);
	}
	json_decref(want);
	tctl_request_free(&p->req);
}

void expect_usage(struct parsed *p, const char *msg)
{
	CU_ASSERT_EQUAL(p->rc, TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(p->err, msg);
	if (strcmp(p->err, msg))
		fprintf(stderr, "\n  message \"%s\"\n  expected \"%s\"\n", p->err, msg);
	CU_ASSERT_PTR_NULL(p->req.params);
	tctl_request_free(&p->req);
}

/* Then tctl_load, as run.c does (files read, relative paths resolved). */
struct parsed *load(struct parsed *p)
{
	if (!p->rc)
		p->rc = tctl_load(&p->req, p->err, sizeof(p->err));
	return p;
}
