/* nvmf-targetctl's command line (target/cli/args.c, request.c): every command maps to its
 * method and params; each mistake is a usage error whose one line names the argument. */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <string.h>

#include "target/cli/targetctl.h"
#include "tests/unit/suites.h"

struct parsed {
	int rc;
	struct tctl_request req;
	char err[512];
};

/* Parse `nvmf-targetctl ARGS...` (NULL-terminated). */
static struct parsed *parse(struct parsed *p, ...) __attribute__((sentinel));
static struct parsed *parse(struct parsed *p, ...)
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
static void expect_call(struct parsed *p, const char *method, const char *params)
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

static void expect_usage(struct parsed *p, const char *msg)
{
	CU_ASSERT_EQUAL(p->rc, TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(p->err, msg);
	if (strcmp(p->err, msg))
		fprintf(stderr, "\n  message \"%s\"\n  expected \"%s\"\n", p->err, msg);
	CU_ASSERT_PTR_NULL(p->req.params);
	tctl_request_free(&p->req);
}

static void every_list_command_maps_to_its_method(void)
{
	struct parsed p;
	expect_call(parse(&p, "version", NULL), "version", "{}");
	expect_call(parse(&p, "subsystem", "list", NULL), "subsystem_list", "{}");
	expect_call(parse(&p, "subsystem", "list", "nqn.a", NULL), "subsystem_list",
		    "{\"nqn\":\"nqn.a\"}");
	expect_call(parse(&p, "port", "list", NULL), "port_list", "{}");
	expect_call(parse(&p, "controller", "list", NULL), "controller_list", "{}");
	expect_call(parse(&p, "controller", "list", "--nqn", "nqn.a", NULL), "controller_list",
		    "{\"nqn\":\"nqn.a\"}");
	expect_call(parse(&p, "stats", "namespaces", NULL), "namespace_stats", "{}");
	expect_call(parse(&p, "stats", "namespaces", "--nqn=nqn.a", "--nsid", "2", NULL),
		    "namespace_stats", "{\"nqn\":\"nqn.a\",\"nsid\":2}");
	expect_call(parse(&p, "stats", "poll-groups", NULL), "poll_group_stats", "{}");
}

static void every_change_command_maps_to_its_method_and_params(void)
{
	struct parsed p;
	expect_call(parse(&p, "controller", "disconnect", "nqn.a", "7", NULL),
		    "controller_disconnect", "{\"nqn\":\"nqn.a\",\"cntlid\":7}");
	expect_call(parse(&p, "namespace", "remove", "nqn.a", "3", NULL), "namespace_remove",
		    "{\"nqn\":\"nqn.a\",\"nsid\":3}");
	expect_call(parse(&p, "namespace", "enable", "nqn.a", "3", NULL), "namespace_enable",
		    "{\"nqn\":\"nqn.a\",\"nsid\":3}");
	expect_call(parse(&p, "namespace", "disable", "nqn.a", "4294967294", NULL),
		    "namespace_disable", "{\"nqn\":\"nqn.a\",\"nsid\":4294967294}");
	expect_call(parse(&p, "namespace", "resize", "nqn.a", "1", "64M", NULL), "namespace_resize",
		    "{\"nqn\":\"nqn.a\",\"nsid\":1,\"size_bytes\":67108864}");
	expect_call(parse(&p, "host", "add", "nqn.a", "nqn.h", NULL), "host_add",
		    "{\"nqn\":\"nqn.a\",\"host\":\"nqn.h\"}");
	expect_call(parse(&p, "host", "remove", "nqn.a", "nqn.h", NULL), "host_remove",
		    "{\"nqn\":\"nqn.a\",\"host\":\"nqn.h\"}");
	expect_call(parse(&p, "subsystem", "allow-any-host", "nqn.a", "on", NULL),
		    "subsystem_allow_any_host", "{\"nqn\":\"nqn.a\",\"allow\":true}");
	expect_call(parse(&p, "subsystem", "allow-any-host", "nqn.a", "off", NULL),
		    "subsystem_allow_any_host", "{\"nqn\":\"nqn.a\",\"allow\":false}");
}

static void namespace_add_builds_an_nvmetcli_namespace_object(void)
{
	struct parsed p;
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--ram", "64M", NULL), "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"nvmf_backend\":\"ram\","
		    "\"nvmf_size_bytes\":67108864}}");
	expect_call(parse(&p, "namespace", "add", "--null", "1g", "nqn.a", "--nsid", "9",
			  "--disabled", "--block-size", "4096", NULL), "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"nsid\":9,\"enable\":false,"
		    "\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":1073741824,"
		    "\"nvmf_block_size\":4096}}");
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--path", "/var/tmp/a.img", "--size",
			  "1G", "--create", "--buffered", "--uuid",
			  "5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11", "--nguid",
			  "00112233445566778899aabbccddeeff", "--backend", "file", NULL),
		    "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"device\":{\"path\":"
		    "\"/var/tmp/a.img\",\"uuid\":\"5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11\","
		    "\"nguid\":\"00112233445566778899aabbccddeeff\"},\"nvmf_backend\":\"file\","
		    "\"nvmf_size_bytes\":1073741824,\"nvmf_create\":true,\"nvmf_buffered\":true}}");
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--path", "/dev/nvme0n1", "--backend",
			  "nvme", NULL), "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"device\":{\"path\":"
		    "\"/dev/nvme0n1\"},\"nvmf_backend\":\"nvme\"}}");
}

static void namespace_add_rejects_options_that_do_not_go_together(void)
{
	struct parsed p;
	expect_usage(parse(&p, "namespace", "add", "nqn.a", NULL),
		     "namespace add: one of --path PATH, --ram SIZE or --null SIZE is required");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--path", "/x", NULL),
		     "namespace add: --path, --ram and --null exclude each other");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--size", "2M", NULL),
		     "namespace add: --size goes with --path only (--ram takes no file)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--null", "1M", "--backend", "file",
			   NULL),
		     "namespace add: --backend goes with --path only (--null takes no file)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--path", "/x", "--create", NULL),
		     "namespace add: --create needs --size SIZE (the size of the file to create)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--path", "/x", "--create", "--size",
			   "1M", "--backend", "bdev", NULL),
		     "namespace add: --create makes a file, not a 'bdev' namespace");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--path", "/x", "--backend", "ram",
			   NULL), "namespace add: --backend 'ram' is not file, bdev or nvme");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--block-size", "1024",
			   NULL), "namespace add: --block-size '1024' is not 512 or 4096");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "64X", NULL),
		     "namespace add: --ram '64X' is not a size (bytes, or digits with a K, M, G or T "
		     "suffix)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "0", NULL),
		     "namespace add: --ram must be greater than 0");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--nsid", "0", NULL),
		     "namespace add: --nsid 0 is out of range (1 to 4294967294)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--uuid", "abc", NULL),
		     "namespace add: --uuid 'abc' has 3 characters, expected 36 (8-4-4-4-12 with "
		     "dashes) or 32 hex digits");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--nsid", "1", "--nsid",
			   "2", NULL), "namespace add: option '--nsid' given twice");
}

static void missing_and_extra_arguments_are_named(void)
{
	struct parsed p;
	expect_usage(parse(&p, "namespace", "remove", "nqn.a", NULL),
		     "namespace remove: missing NSID (usage: namespace remove NQN NSID)");
	expect_usage(parse(&p, "namespace", "resize", NULL),
		     "namespace resize: missing NQN (usage: namespace resize NQN NSID SIZE)");
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
		     "namespace disable: NSID 4294967295 is out of range (1 to 4294967294)");
	expect_usage(parse(&p, "namespace", "resize", "nqn.a", "1", "12Q", NULL),
		     "namespace resize: SIZE '12Q' is not a size (bytes, or digits with a K, M, G or "
		     "T suffix)");
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
	expect_usage(parse(&p, "namespace", NULL),
		     "namespace: missing command (add, remove, enable, disable, resize)");
	expect_usage(parse(&p, "namespace", "delete", NULL),
		     "namespace: unknown command 'delete' (add, remove, enable, disable, resize)");
	expect_usage(parse(&p, "port", "list", "--verbose", NULL),
		     "port list: unknown option '--verbose'");
	expect_usage(parse(&p, "namespace", "remove", "nqn.a", "1", "--path", "/x", NULL),
		     "namespace remove: unknown option '--path'");
	expect_usage(parse(&p, "version", "--json=yes", NULL),
		     "version: option '--json' takes no value");
}

static void call_takes_a_method_and_a_json_object(void)
{
	struct parsed p;
	expect_call(parse(&p, "call", "port_list", NULL), "port_list", "{}");
	expect_call(parse(&p, "call", "namespace_remove", "{\"nqn\":\"nqn.a\",\"nsid\":2}", NULL),
		    "namespace_remove", "{\"nqn\":\"nqn.a\",\"nsid\":2}");
	expect_usage(parse(&p, "call", "x", "[1,2]", NULL),
		     "call: JSON-PARAMS must be an object ({\"name\": value, ...})");
	expect_usage(parse(&p, "call", "x", "{\"a\" 1}", NULL),
		     "call: JSON-PARAMS: ':' expected near '1' (column 6)");
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
		char *argv[] = { "nvmf-targetctl", (char *)c->group,
				 (char *)(c->verb ? c->verb : "--bogus"), "--help", "--bogus", NULL };
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
	{ "every_list_command_maps_to_its_method", every_list_command_maps_to_its_method },
	{ "every_change_command_maps_to_its_method_and_params",
	  every_change_command_maps_to_its_method_and_params },
	{ "namespace_add_builds_an_nvmetcli_namespace_object",
	  namespace_add_builds_an_nvmetcli_namespace_object },
	{ "namespace_add_rejects_options_that_do_not_go_together",
	  namespace_add_rejects_options_that_do_not_go_together },
	{ "missing_and_extra_arguments_are_named", missing_and_extra_arguments_are_named },
	{ "bad_numbers_and_switches_are_named", bad_numbers_and_switches_are_named },
	{ "unknown_commands_and_options_are_usage_errors",
	  unknown_commands_and_options_are_usage_errors },
	{ "call_takes_a_method_and_a_json_object", call_takes_a_method_and_a_json_object },
	{ "global_options_come_anywhere", global_options_come_anywhere },
	{ "help_is_recognised_at_every_level", help_is_recognised_at_every_level },
	{ NULL, NULL },
};
