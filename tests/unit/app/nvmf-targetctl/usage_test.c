/* nvmf-targetctl --help (app/nvmf-targetctl/usage.c): a command's help ends with its
 * method's parameters as the method's description (control/schema.c) gives them, and
 * call --help lists every method the descriptions hold. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/nvmf-targetctl/targetctl.h"
#include "control/schema.h"
#include "tests/unit/suites.h"

/* The help of @group @verb (malloc'ed). */
static char *help_of(const char *group, const char *verb)
{
	struct tctl_request req = { .cmd = tctl_find_command(group, verb), .help = true };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL(req.cmd);
	if (f && req.cmd)
		tctl_usage(f, &req);
	if (f)
		fclose(f);
	return text;
}

static void command_help_lists_its_methods_parameters_from_the_description(void)
{
	char *h = help_of("namespace", "remove");
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "Parameters of method namespace_remove:\n"
					 "  nqn: a string, 1 to 223 bytes, required\n"
					 "      the subsystem's NQN\n"
					 "  nsid: an integer, 1 to 1024, required\n"
					 "      the namespace\n"));
	free(h);
	h = help_of("port", "list");
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "Parameters of method port_list: none\n"));
	free(h);
	/* log-level: both of its methods */
	h = help_of("log-level", NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "Parameters of method log_level_get:\n"
					 "  component: a log component (core, rdma, tcp, auth, "
					 "control, backend or gateway), optional\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "Parameters of method log_level_set:\n"
					 "  level: a log level (error, warning, info or debug), "
					 "required\n"));
	free(h);
}

static void every_command_names_a_described_method(void)
{
	for (const struct tctl_command *c = tctl_commands; c->group; c++) {
		if (!c->method)
			continue; /* call: any method */
		CU_ASSERT_PTR_NOT_NULL(nvmf_ctl_schema_find(c->method));
		if (c->method_arg)
			CU_ASSERT_PTR_NOT_NULL(nvmf_ctl_schema_find(c->method_arg));
	}
}

static void call_help_lists_every_method(void)
{
	char *h = help_of("call", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	for (const struct nvmf_rpc_schema *s = nvmf_ctl_schema; s->name; s++) {
		char line[160];
		snprintf(line, sizeof(line), "  %-26s %s\n", s->name, s->summary);
		CU_ASSERT_PTR_NOT_NULL(strstr(h, line));
	}
	free(h);
}

const struct unit_test targetctl_usage_tests[] = {
	{ "command_help_lists_its_methods_parameters_from_the_description",
	  command_help_lists_its_methods_parameters_from_the_description },
	{ "every_command_names_a_described_method", every_command_names_a_described_method },
	{ "call_help_lists_every_method", call_help_lists_every_method },
	{ NULL, NULL },
};
