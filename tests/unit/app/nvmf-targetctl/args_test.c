/* nvmf-targetctl's command line (app/nvmf-targetctl/args.c): global options anywhere, the
 * command words, arguments and options; each mistake is a usage error whose one line names
 * the argument. What each command builds: request_test.c; what it reads: load_test.c. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "tests/unit/app/nvmf-targetctl/parse_fixture.h"
#include "tests/unit/suites.h"
#include "util/size.h"

static void missing_and_extra_arguments_are_named(void)
{
	struct parsed p;
	expect_usage(parse(&p, "namespace", "remove", "nqn.a", NULL),
		     "namespace remove: missing NSID (usage: namespace remove NQN NSID [--force])");
	expect_usage(parse(&p, "namespace", "resize", NULL),
		     "namespace resize: missing NQN (usage: namespace resize NQN NSID [SIZE])");
	expect_usage(parse(&p, "host", "add", "nqn.a", NULL),
		     "host add: missing HOSTNQN (usage: host add NQN HOSTNQN)");
	expect_usage(parse(&p, "call", NULL),
		     "call: missing METHOD (usage: call METHOD [JSON-PARAMS])");
	expect_usage(parse(&p, "port", "list", "extra", NULL),
		     "port list: unexpected argument 'extra'");
	expect_usage(parse(&p, "namespace", "enable", "nqn.a", "1", "2", NULL),
		     "namespace enable: unexpected argument '2'");
	expect_usage(parse(&p, "controller", "list", "--nqn", NULL),
		     "controller list: option '--nqn' needs a value");
}

static void bad_numbers_and_switches_are_named(void)
{
	struct parsed p;
	expect_usage(parse(&p, "namespace", "remove", "nqn.a", "abc", NULL),
		     "namespace remove: NSID 'abc' is not a number");
	expect_usage(parse(&p, "namespace", "enable", "nqn.a", "-1", NULL),
		     "namespace enable: unknown option '-1'");
	expect_usage(parse(&p, "namespace", "disable", "nqn.a", "4294967295", NULL),
		     "namespace disable: NSID 4294967295 is out of range (1 to 1024)");
	expect_usage(parse(&p, "namespace", "remove", "nqn.a", "1025", NULL),
		     "namespace remove: NSID 1025 is out of range (1 to 1024)");
	expect_usage(parse(&p, "stats", "namespaces", "--nqn", "nqn.a", "--nsid", "1025", NULL),
		     "stats namespaces: --nsid 1025 is out of range (1 to 1024)");
	expect_usage(parse(&p, "namespace", "resize", "nqn.a", "1", "12Q", NULL),
		     "namespace resize: SIZE '12Q' is not a size (" NVMF_SIZE_GRAMMAR ")");
	expect_usage(parse(&p, "namespace", "resize", "nqn.a", "1", "99999999999T", NULL),
		     "namespace resize: SIZE '99999999999T' is too large");
	expect_usage(parse(&p, "controller", "disconnect", "nqn.a", "65520", NULL),
		     "controller disconnect: CNTLID 65520 is out of range (1 to 65519)");
	expect_usage(parse(&p, "subsystem", "allow-any-host", "nqn.a", "maybe", NULL),
		     "subsystem allow-any-host: 'maybe' is not on or off");
	expect_usage(parse(&p, "stats", "namespaces", "--nsid", "1", NULL),
		     "stats namespaces: --nsid needs --nqn");
	expect_usage(parse(&p, "--timeout", "soon", "version", NULL),
		     "--timeout 'soon' is not a number");
	char longnqn[300];
	memset(longnqn, 'n', 224);
	longnqn[224] = 0;
	parse(&p, "host", "add", "nqn.a", longnqn, NULL);
	CU_ASSERT_EQUAL(p.rc, TCTL_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "host add: HOSTNQN 'nnn"));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "' must be 1 to 223 bytes"));
}

static void unknown_commands_and_options_are_usage_errors(void)
{
	struct parsed p;
	expect_usage(parse(&p, NULL), "missing command (see nvmf-targetctl --help)");
	expect_usage(parse(&p, "frobnicate", NULL),
		     "unknown command 'frobnicate' (see nvmf-targetctl --help)");
	expect_usage(
		parse(&p, "namespace", NULL),
		"namespace: missing command (add, remove, enable, disable, resize, ana-group, reservation)");
	expect_usage(
		parse(&p, "namespace", "delete", NULL),
		"namespace: unknown command 'delete' (add, remove, enable, disable, resize, ana-group, reservation)");
	expect_usage(parse(&p, "port", "list", "--verbose", NULL),
		     "port list: unknown option '--verbose'");
	expect_usage(parse(&p, "namespace", "remove", "nqn.a", "1", "--path", "/x", NULL),
		     "namespace remove: unknown option '--path'");
	expect_usage(parse(&p, "version", "--json=yes", NULL),
		     "version: option '--json' takes no value");
}

static void global_options_come_anywhere(void)
{
	struct parsed p;
	parse(&p, "-s", "/tmp/a.sock", "port", "list", "--json", "--timeout", "5", NULL);
	CU_ASSERT_EQUAL_FATAL(p.rc, TCTL_OK);
	CU_ASSERT_STRING_EQUAL(p.req.socket, "/tmp/a.sock");
	CU_ASSERT_TRUE(p.req.json);
	CU_ASSERT_EQUAL(p.req.timeout_s, 5);
	tctl_request_free(&p.req);
	parse(&p, "port", "list", "--socket=/tmp/b.sock", NULL);
	CU_ASSERT_EQUAL_FATAL(p.rc, TCTL_OK);
	CU_ASSERT_STRING_EQUAL(p.req.socket, "/tmp/b.sock");
	CU_ASSERT_FALSE(p.req.json);
	CU_ASSERT_EQUAL(p.req.timeout_s, TCTL_DEFAULT_TIMEOUT_S);
	tctl_request_free(&p.req);
	/* "--" ends the options: an NQN may then start with '-'. */
	expect_call(parse(&p, "host", "add", "--", "nqn.a", "-odd", NULL), "host_add",
		    "{\"nqn\":\"nqn.a\",\"host\":\"-odd\"}");
}

static void help_is_recognised_at_every_level(void)
{
	struct parsed p;
	parse(&p, "--help", NULL);
	CU_ASSERT_EQUAL(p.rc, TCTL_OK);
	CU_ASSERT_TRUE(p.req.help);
	CU_ASSERT_PTR_NULL(p.req.cmd);
	CU_ASSERT_PTR_NULL(p.req.group);
	parse(&p, "namespace", "-h", NULL);
	CU_ASSERT_EQUAL(p.rc, TCTL_OK);
	CU_ASSERT_TRUE(p.req.help);
	CU_ASSERT_STRING_EQUAL(p.req.group, "namespace");
	/* --help wins over anything wrong in the rest of the line. */
	for (const struct tctl_command *c = tctl_commands; c->group; c++) {
		char *argv[] = {
			"nvmf-targetctl", (char *)c->group, (char *)(c->verb ? c->verb : "--bogus"),
			"--help",         "--bogus",        NULL
		};
		struct tctl_request req;
		char err[256] = "";
		CU_ASSERT_EQUAL(tctl_parse(5, argv, &req, err, sizeof(err)), TCTL_OK);
		CU_ASSERT_TRUE(req.help);
		CU_ASSERT_PTR_EQUAL(req.cmd, c);
		CU_ASSERT_PTR_NULL(req.params);
	}
	parse(&p, "help", "host", "remove", NULL);
	CU_ASSERT_EQUAL(p.rc, TCTL_OK);
	CU_ASSERT_TRUE(p.req.help);
	CU_ASSERT_PTR_EQUAL(p.req.cmd, tctl_find_command("host", "remove"));
}

const struct unit_test targetctl_args_tests[] = {
	{ "missing_and_extra_arguments_are_named", missing_and_extra_arguments_are_named },
	{ "bad_numbers_and_switches_are_named", bad_numbers_and_switches_are_named },
	{ "unknown_commands_and_options_are_usage_errors",
	  unknown_commands_and_options_are_usage_errors },
	{ "global_options_come_anywhere", global_options_come_anywhere },
	{ "help_is_recognised_at_every_level", help_is_recognised_at_every_level },
	{ NULL, NULL },
};
