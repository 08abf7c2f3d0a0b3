/* nvmf-targetctl from argv to exit status (app/nvmf-targetctl/run.c) against the real
 * control socket server with a small method table (ctl_fixture.h): what the target
 * receives, what the administrator sees, and the exit status for success, a target error
 * (1), a usage error (2, nothing sent), an answer to another request (1). */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/app/nvmf-targetctl/ctl_fixture.h"
#include "tests/unit/suites.h"
#include "util/version.h"

/* @t's last params equal the JSON text @want. */
static void expect_params(struct ctl *t, const char *want)
{
	json_t *w = json_loads(want, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_TRUE(json_equal(t->last_params, w));
	if (!json_equal(t->last_params, w)) {
		char *got = json_dumps(t->last_params, JSON_COMPACT);
		fprintf(stderr, "\n  params %s, expected %s\n", got, want);
		free(got);
	}
	json_decref(w);
}

static void a_command_prints_the_answer_and_exits_0(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf-target 0.1.0\n");
	CU_ASSERT_STRING_EQUAL(t.err, "");
	CU_ASSERT_EQUAL(run(&t, "port", "list", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(
		t.out, "PORTID  TRTYPE  ADRFAM  TRADDR    TRSVCID  CONTROLLERS  SUBSYSTEMS\n"
		       "     1  rdma    ipv4    10.0.0.1     4420            0  nqn.a\n");
	CU_ASSERT_EQUAL(run(&t, "namespace", "remove", "nqn.a", "3", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "namespace 3 removed from nqn.a\n");
	json_t *want = json_pack("{s:s, s:i}", "nqn", "nqn.a", "nsid", 3);
	CU_ASSERT_TRUE(json_equal(t.last_params, want));
	json_decref(want);
	CU_ASSERT_EQUAL(t.srv.calls, 3);
	stop(&t);
}

static void json_prints_the_result_and_call_reaches_any_method(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "--json", "namespace", "remove", "nqn.a", "4", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "{\n  \"nsid\": 4\n}\n");
	CU_ASSERT_EQUAL(run(&t, "call", "namespace_remove", "{\"nqn\":\"nqn.b\",\"nsid\":5}", NULL),
			TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "{\n  \"nsid\": 5\n}\n");
	json_t *want = json_pack("{s:s, s:i}", "nqn", "nqn.b", "nsid", 5);
	CU_ASSERT_TRUE(json_equal(t.last_params, want));
	json_decref(want);
	stop(&t);
}

static void an_error_from_the_target_exits_1_with_its_message_and_code(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "namespace", "remove", "nqn.a", "9", NULL), TCTL_ERR);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: nsid: nqn.a has no namespace 9 (-32001)\n");
	/* A method the target does not have: the dispatcher's own error. */
	CU_ASSERT_EQUAL(run(&t, "call", "no_such_method", NULL), TCTL_ERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "(-32601)\n"));
	CU_ASSERT_EQUAL(strncmp(t.err, "nvmf-targetctl: ", 16), 0);
	/* The target's parameter check: the CLI passes the raw call through unchecked. */
	CU_ASSERT_EQUAL(run(&t, "call", "namespace_remove", "{\"nqn\":\"nqn.a\"}", NULL), TCTL_ERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nsid"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "(-32602)\n"));
	stop(&t);
}

static void a_usage_error_exits_2_and_sends_nothing(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "namespace", "remove", "nqn.a", "abc", NULL), TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(t.err,
			       "nvmf-targetctl: namespace remove: NSID 'abc' is not a number\n");
	CU_ASSERT_STRING_EQUAL(t.out, "");
	CU_ASSERT_EQUAL(run(&t, "namespace", "add", "--help", NULL), TCTL_OK);
	static const char usage[] =
		"Usage: nvmf-targetctl [GLOBAL OPTIONS] namespace add NQN "
		"(--path PATH | --ram SIZE | --null SIZE | --rbd POOL/IMAGE) [OPTIONS]\n";
	CU_ASSERT_EQUAL(strncmp(t.out, usage, strlen(usage)), 0);
	CU_ASSERT_STRING_EQUAL(t.err, "");
	CU_ASSERT_EQUAL(t.srv.calls, 0);
	stop(&t);
}

#define SECRET "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define SECRET_WARNING(n)                                                                    \
	"nvmf-targetctl: warning: argument " #n " holds a secret: other users see it in ps " \
	"and it stays in the shell history; give DH-HMAC-CHAP secrets to 'host dhchap' in "  \
	"$NVMF_DHCHAP_SECRET and $NVMF_DHCHAP_CTRL_SECRET instead, and change this one\n"

/* A secret typed on the command line is warned of, and no message repeats it: not a
 * usage error, not a target's error quoting what it was sent, not an NQN check. */
static void a_secret_on_the_command_line_is_warned_of_and_never_echoed(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "host", "dhchap", "nqn.h:1", SECRET, NULL), TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(t.err, SECRET_WARNING(6) "nvmf-targetctl: host dhchap: unexpected "
							"argument '<secret>'\n");
	CU_ASSERT_EQUAL(run(&t, "host", "add", "nqn.a", SECRET, NULL), TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(t.err, SECRET_WARNING(6) "nvmf-targetctl: host add: HOSTNQN is a "
							"secret (not shown), not an NQN\n");
	CU_ASSERT_EQUAL(t.srv.calls, 0);
	/* call sends it (the target decides), but says what the command line exposed. */
	CU_ASSERT_EQUAL(run(&t, "call", "namespace_remove", "{\"nqn\":\"" SECRET "\",\"nsid\":9}",
			    NULL),
			TCTL_ERR);
	CU_ASSERT_STRING_EQUAL(t.err, SECRET_WARNING(5) "nvmf-targetctl: nsid: <secret> has no "
							"namespace 9 (-32001)\n");
	CU_ASSERT_EQUAL(t.srv.calls, 1);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	/* A TLS PSK where its file's path belongs: the advice is the key file's. */
	CU_ASSERT_EQUAL(
		run(&t, "host", "tls-key", "nqn.h:1", "--key-file",
		    "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:", NULL),
		TCTL_ERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "argument 7 holds a secret: other users see it in ps "
					     "and it stays in the shell history; put TLS PSKs in "
					     "a file only root reads (chmod 600) and give its "
					     "path to 'host tls-key HOSTNQN --key-file PATH' "
					     "instead"));
	CU_ASSERT_PTR_NULL(strstr(t.err, "VRLbtn"));
	stop(&t);
}

static void subsystem_add_sends_options_or_a_file_and_confirms(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "subsystem", "add", "nqn.a", "--host", "nqn.h:1", "--host",
			    "nqn.h:2", "--serial", "a1", NULL),
			TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "subsystem nqn.a added\n");
	CU_ASSERT_STRING_EQUAL(t.err, "");
	expect_params(&t, "{\"subsystem\":{\"nqn\":\"nqn.a\",\"attr\":{\"allow_any_host\":\"0\","
			  "\"serial\":\"a1\"},\"allowed_hosts\":[\"nqn.h:1\",\"nqn.h:2\"],"
			  "\"namespaces\":[]}}");
	/* --from: the file's object, sent as it is; the confirmation names its NQN. */
	char file[128], want[256];
	snprintf(file, sizeof(file), "%s/sub.json", t.dir);
	static const char sub[] = "{\"nqn\":\"nqn.f\",\"namespaces\":[{\"nsid\":2,\"nvmf_backend\":"
				  "\"null\",\"nvmf_size_bytes\":\"1G\"}]}";
	FILE *f = fopen(file, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(sub, f);
	fclose(f);
	CU_ASSERT_EQUAL(run(&t, "subsystem", "add", "--from", file, NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "subsystem nqn.f added\n");
	snprintf(want, sizeof(want), "{\"subsystem\":%s}", sub);
	expect_params(&t, want);
	unlink(file);
	/* A file that is not there is the command line's fault: exit 2, nothing sent. */
	CU_ASSERT_EQUAL(run(&t, "subsystem", "add", "--from", file, NULL), TCTL_USAGE);
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: subsystem add: --from %s: No such file or "
		 "directory\n",
		 file);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	CU_ASSERT_EQUAL(t.srv.calls, 2);
	stop(&t);
}

static void config_and_log_level_run_end_to_end(void)
{
	struct ctl t;
	start(&t);
	/* config show: JSON that parses back to exactly what the target sent. */
	CU_ASSERT_EQUAL(run(&t, "config", "show", NULL), TCTL_OK);
	json_t *shown = json_loads(t.out, 0, NULL), *sent = json_loads(running_config, 0, NULL);
	CU_ASSERT_TRUE(json_equal(shown, sent));
	CU_ASSERT_EQUAL(strncmp(t.out, "{\n  \"subsystems\": [\n", 19), 0);
	json_decref(shown);
	json_decref(sent);
	CU_ASSERT_EQUAL(run(&t, "config", "reload", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "subsystem nqn.b added\nport 2 removed\n");
	/* config save of a relative path: the target gets it absolute. */
	char cwd[PATH_MAX], want[PATH_MAX + 64];
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(".", cwd));
	CU_ASSERT_EQUAL(run(&t, "config", "save", "t.json", NULL), TCTL_OK);
	snprintf(want, sizeof(want), "running configuration saved to %s/t.json\n", cwd);
	CU_ASSERT_STRING_EQUAL(t.out, want);
	snprintf(want, sizeof(want), "{\"path\":\"%s/t.json\"}", cwd);
	expect_params(&t, want);
	/* Its help names both methods. */
	CU_ASSERT_EQUAL(run(&t, "log-level", "--help", NULL), TCTL_OK);
	static const char usage[] =
		"Usage: nvmf-targetctl [GLOBAL OPTIONS] log-level [--component C] [LEVEL]\n"
		"Print or set the target's log level (method log_level_get; "
		"with LEVEL, log_level_set).\n\nOptions:\n"
		"  --component C        only this component's level (default: every component's);\n"
		"                       C is one of the names listed for component below\n"
		"LEVEL is one of the names listed for level below.\n";
	CU_ASSERT_EQUAL(strncmp(t.out, usage, strlen(usage)), 0);
	CU_ASSERT_EQUAL(run(&t, "log-level", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "info\n");
	CU_ASSERT_EQUAL(run(&t, "log-level", "debug", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "log level debug (was info)\n");
	expect_params(&t, "{\"level\":\"debug\"}");
	CU_ASSERT_EQUAL(run(&t, "log-level", "--component", "tcp", "error", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "log level of tcp error (was debug)\n");
	expect_params(&t, "{\"component\":\"tcp\",\"level\":\"error\"}");
	CU_ASSERT_EQUAL(run(&t, "--json", "log-level", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "{\n  \"level\": \"error\"\n}\n");
	CU_ASSERT_EQUAL(run(&t, "log-level", "verbose", NULL), TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: log-level: LEVEL 'verbose' is not error, "
				      "warning, info or debug\n");
	CU_ASSERT_EQUAL(t.srv.calls, 7);
	stop(&t);
}

static void an_answer_to_another_request_is_an_error(void)
{
	static const struct {
		const char *reply, *why;
	} cases[] = {
		{ "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n", "(id 2)" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\n", "(id \"1\")" },
		{ "{\"jsonrpc\":\"2.0\",\"result\":{}}\n", "(id missing)" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}\n", "(id null)" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32001,\"message\":\"x\"}}\n",
		  "(id 7)" },
	};
	struct ctl t;
	struct tiny s;
	char want[256];
	start_empty(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tiny_start(&s, &t, cases[i].reply, true);
		CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
		tiny_stop(&s, &t);
		snprintf(want, sizeof(want),
			 "nvmf-targetctl: %s: the target answered another "
			 "request %s\n",
			 t.path, cases[i].why);
		CU_ASSERT_STRING_EQUAL(t.err, want);
		CU_ASSERT_STRING_EQUAL(t.out, "");
	}
	/* Ours: id 1; an error about a request the server could not read has id null. */
	tiny_start(&s, &t,
		   "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"program\":\"p\","
		   "\"version\":\"1\"}}\n",
		   true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_OK);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.out, "p 1\n");
	tiny_start(&s, &t,
		   "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
		   "\"message\":\"parse error\"}}\n",
		   true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: parse error (-32700)\n");
	stop_empty(&t);
}

static void a_loader_failure_is_a_usage_error_and_sends_nothing(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "subsystem", "add", "--from", "/nonexistent/sub.json", NULL),
			TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(t.err,
			       "nvmf-targetctl: subsystem add: --from /nonexistent/sub.json: "
			       "No such file or directory\n");
	CU_ASSERT_STRING_EQUAL(t.out, "");
	CU_ASSERT_EQUAL(t.srv.calls, 0);
	stop(&t);
}

static void warnings_follow_the_output_on_stderr_unless_json(void)
{
	static const char reply[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"nsid\":4,"
				    "\"warnings\":[\"port 40000 is in the ephemeral range\",7]}}\n";
	struct ctl t;
	struct tiny s;
	start_empty(&t);
	tiny_start(&s, &t, reply, true);
	CU_ASSERT_EQUAL(run(&t, "namespace", "remove", "nqn.a", "4", NULL), TCTL_OK);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.out, "namespace 4 removed from nqn.a\n");
	/* One line per text warning; what is not text is not printed. */
	CU_ASSERT_STRING_EQUAL(t.err,
			       "nvmf-targetctl: warning: port 40000 is in the ephemeral range\n");
	/* --json: the result holds them; stderr stays empty for a script to read. */
	tiny_start(&s, &t, reply, true);
	CU_ASSERT_EQUAL(run(&t, "--json", "namespace", "remove", "nqn.a", "4", NULL), TCTL_OK);
	tiny_stop(&s, &t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "\"warnings\""));
	CU_ASSERT_STRING_EQUAL(t.err, "");
	stop_empty(&t);
}

static void an_answer_that_is_no_response_or_has_no_message_is_reported(void)
{
	struct ctl t;
	struct tiny s;
	char want[256];
	start_empty(&t);
	tiny_start(&s, &t, "[1,2]\n", true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: %s: the answer is not a JSON-RPC response: [1,2]\n", t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	tiny_start(&s, &t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001}}\n", true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: error without a message (-32001)\n");
	stop_empty(&t);
}

static void version_prints_the_tools_version_and_sends_nothing(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "--version", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf-targetctl " NVMF_VERSION "\n");
	CU_ASSERT_STRING_EQUAL(t.err, "");
	/* anywhere on the line, as --help: the command is not sent */
	CU_ASSERT_EQUAL(run(&t, "port", "list", "--version", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf-targetctl " NVMF_VERSION "\n");
	CU_ASSERT_EQUAL(t.srv.calls, 0);
	/* the version command still asks the target */
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf-target 0.1.0\n");
	CU_ASSERT_EQUAL(t.srv.calls, 1);
	stop(&t);
}

const struct unit_test targetctl_run_tests[] = {
	{ "version_prints_the_tools_version_and_sends_nothing",
	  version_prints_the_tools_version_and_sends_nothing },
	{ "a_secret_on_the_command_line_is_warned_of_and_never_echoed",
	  a_secret_on_the_command_line_is_warned_of_and_never_echoed },
	{ "a_command_prints_the_answer_and_exits_0", a_command_prints_the_answer_and_exits_0 },
	{ "json_prints_the_result_and_call_reaches_any_method",
	  json_prints_the_result_and_call_reaches_any_method },
	{ "an_error_from_the_target_exits_1_with_its_message_and_code",
	  an_error_from_the_target_exits_1_with_its_message_and_code },
	{ "a_usage_error_exits_2_and_sends_nothing", a_usage_error_exits_2_and_sends_nothing },
	{ "subsystem_add_sends_options_or_a_file_and_confirms",
	  subsystem_add_sends_options_or_a_file_and_confirms },
	{ "config_and_log_level_run_end_to_end", config_and_log_level_run_end_to_end },
	{ "an_answer_to_another_request_is_an_error", an_answer_to_another_request_is_an_error },
	{ "a_loader_failure_is_a_usage_error_and_sends_nothing",
	  a_loader_failure_is_a_usage_error_and_sends_nothing },
	{ "warnings_follow_the_output_on_stderr_unless_json",
	  warnings_follow_the_output_on_stderr_unless_json },
	{ "an_answer_that_is_no_response_or_has_no_message_is_reported",
	  an_answer_that_is_no_response_or_has_no_message_is_reported },
	{ NULL, NULL },
};
