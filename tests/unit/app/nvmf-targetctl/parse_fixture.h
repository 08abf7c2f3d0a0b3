/* Parsing nvmf-targetctl command lines in the tests of args.c, request.c and load.c: argv
 * to a request as tctl_parse makes it, then tctl_load as run.c calls it, and the checks
 * of the method and params built or of the one-line usage error. */
#ifndef NVMF_TESTS_UNIT_TARGETCTL_PARSE_FIXTURE_H
#define NVMF_TESTS_UNIT_TARGETCTL_PARSE_FIXTURE_H
#include "app/nvmf-targetctl/targetctl.h"

struct parsed {
	int rc;
	struct tctl_request req;
	char err[512];
};

/* Parse `nvmf-targetctl ARGS...` (NULL-terminated, at most 30) into @p; returns @p. */
struct parsed *parse(struct parsed *p, ...) __attribute__((sentinel));
/* @p parsed to @method with params equal to the JSON text @params; frees the request. */
void expect_call(struct parsed *p, const char *method, const char *params);
/* @p failed with TCTL_USAGE and exactly @msg, holding no params; frees the request. */
void expect_usage(struct parsed *p, const char *msg);
/* Then tctl_load, as run.c does (files read, relative paths resolved); returns @p. */
struct parsed *load(struct parsed *p);

#endif
