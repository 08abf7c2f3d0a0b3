/* `nvmf SUBCOMMAND ...` dispatch (app/nvmf/run.c): each subcommand reached by its name,
 * the top-level help on stdout when asked for and on stderr with status 2 when no
 * subcommand is given, an unknown one a usage error naming it. */
#include <string.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"
#include "util/version.h"

static void unknown_subcommand_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "frobnicate", NULL), 2);
	CU_ASSERT_STRING_EQUAL(t.err,
			       "nvmf: unknown subcommand 'frobnicate'\nTry 'nvmf --help'.\n");
	CU_ASSERT_EQUAL(clit_run(&t, NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "Usage: nvmf SUBCOMMAND"));
	clit_teardown(&t);
}

static void help_goes_to_stdout_with_status_0(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "--help", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "  perf "));
	static const char *const cmds[] = { "discover", "identify", "read",
					    "write",    "perf",     "ana-log" };
	for (unsigned i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(clit_run(&t, cmds[i], "--help", NULL), 0);
		char want[64];
		snprintf(want, sizeof(want), "Usage: nvmf %s ", cmds[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(t.out, want));
		CU_ASSERT_EQUAL(t.errlen, 0);
	}
	clit_teardown(&t);
}

static void every_help_spelling_prints_the_subcommand_list_on_stdout(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	static const char *const spellings[] = { "--help", "-h", "help" };
	for (unsigned i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(clit_run(&t, spellings[i], NULL), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "Usage: nvmf SUBCOMMAND"));
		CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "  ana-log "));
		CU_ASSERT_EQUAL(t.errlen, 0);
	}
	clit_teardown(&t);
}

static void the_subcommand_gets_the_arguments_after_its_name(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	/* Reached with its own name first: its usage message names it and the missing -a. */
	CU_ASSERT_EQUAL(clit_run(&t, "ana-log", "-n", "nqn.2014-08.org.example:x", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: ana-log: "));
	CU_ASSERT_EQUAL(t.outlen, 0);
	/* A name is matched whole, not by prefix. */
	CU_ASSERT_EQUAL(clit_run(&t, "ana", NULL), 2);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf: unknown subcommand 'ana'\nTry 'nvmf --help'.\n");
	clit_teardown(&t);
}

static void version_prints_the_version_on_stdout_with_status_0(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "--version", NULL), 0);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf " NVMF_VERSION "\n");
	CU_ASSERT_EQUAL(t.errlen, 0);
	clit_teardown(&t);
}

const struct unit_test cli_run_tests[] = {
	{ "version_prints_the_version_on_stdout_with_status_0",
	  version_prints_the_version_on_stdout_with_status_0 },
	{ "unknown_subcommand_is_a_usage_error", unknown_subcommand_is_a_usage_error },
	{ "help_goes_to_stdout_with_status_0", help_goes_to_stdout_with_status_0 },
	{ "every_help_spelling_prints_the_subcommand_list_on_stdout",
	  every_help_spelling_prints_the_subcommand_list_on_stdout },
	{ "the_subcommand_gets_the_arguments_after_its_name",
	  the_subcommand_gets_the_arguments_after_its_name },
	{ NULL, NULL },
};
