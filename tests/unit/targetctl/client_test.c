/* nvmf-targetctl end to end (target/cli/run.c, client.c) against the real control socket
 * server (target/rpc-server.c) with a small method table: what the target receives, what
 * the administrator sees, and the exit status for success, a target error (1), a usage
 * error (2), no server (3) and a target that does not answer in time (1). */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "target/cli/targetctl.h"
#include "target/rpc-server.h"
#include "tests/unit/suites.h"

struct ctl {
	char dir[64], path[96];
	struct nvmf_rpc_server srv;
	json_t *last_params;      /* what the last method saw (owned) */
	char *out, *err;          /* what the last run printed */
	size_t outlen, errlen;
};

static void keep(struct ctl *t, struct nvmf_rpc_call *call)
{
	json_decref(t->last_params);
	t->last_params = json_deep_copy(call->params);
}

static void m_version(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	nvmf_rpc_result(call, json_pack("{s:s, s:s}", "program", "nvmf-target", "version", "0.1.0"));
}

static void m_namespace_remove(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	uint64_t nsid;
	const char *nqn;
	if (!nvmf_rpc_param_str(call, "nqn", true, 223, &nqn) ||
	    !nvmf_rpc_param_uint(call, "nsid", true, 1, 0xfffffffe, &nsid))
		return;
	if (nsid == 9) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "nsid: %s has no namespace 9", nqn);
		return;
	}
	nvmf_rpc_result(call, json_pack("{s:I}", "nsid", (json_int_t)nsid));
}

static void m_port_list(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	nvmf_rpc_result(call, json_loads("{\"ports\":[{\"portid\":1,\"trtype\":\"rdma\",\"adrfam\":"
					 "\"ipv4\",\"traddr\":\"10.0.0.1\",\"trsvcid\":\"4420\","
					 "\"subsystems\":[\"nqn.a\"],\"controllers\":0}]}", 0, NULL));
}

static void m_slow(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	struct timespec ts = { .tv_sec = 1, .tv_nsec = 600 * 1000000L };
	nanosleep(&ts, NULL);
	nvmf_rpc_result(call, json_object());
}

static const struct nvmf_rpc_method methods[] = {
	{ "version", m_version, "program and version" },
	{ "namespace_remove", m_namespace_remove, "remove a namespace" },
	{ "port_list", m_port_list, "ports" },
	{ "slow", m_slow, "answers after 1.6 s" },
	{ NULL, NULL, NULL },
};

static void start(struct ctl *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->dir, "/tmp/nvmf-tctl-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/ctl.sock", t->dir);
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_rpc_server_start(&t->srv, t->path, methods, t, NULL, NULL, err,
						    sizeof(err)), 0);
}

static void stop(struct ctl *t)
{
	nvmf_rpc_server_stop(&t->srv);
	rmdir(t->dir);
	json_decref(t->last_params);
	free(t->out);
	free(t->err);
}

/* Run `nvmf-targetctl -s SOCKET ARGS...` (NULL-terminated); returns the exit status. */
static int run(struct ctl *t, ...) __attribute__((sentinel));
static int run(struct ctl *t, ...)
{
	char *argv[32] = { "nvmf-targetctl", "-s", t->path };
	int argc = 3;
	va_list ap;
	va_start(ap, t);
	for (char *a; argc < 31 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	free(t->out);
	free(t->err);
	struct tctl_env env = { .out = open_memstream(&t->out, &t->outlen),
				.err = open_memstream(&t->err, &t->errlen) };
	int rc = tctl_run(argc, argv, &env);
	fclose(env.out);
	fclose(env.err);
	return rc;
}

static void a_command_prints_the_answer_and_exits_0(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf-target 0.1.0\n");
	CU_ASSERT_STRING_EQUAL(t.err, "");
	CU_ASSERT_EQUAL(run(&t, "port", "list", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out,
		"PORTID  TRTYPE  ADRFAM  TRADDR    TRSVCID  CONTROLLERS  SUBSYSTEMS\n"
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
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: namespace remove: NSID 'abc' is not a number\n");
	CU_ASSERT_STRING_EQUAL(t.out, "");
	CU_ASSERT_EQUAL(run(&t, "namespace", "add", "--help", NULL), TCTL_OK);
	static const char usage[] = "Usage: nvmf-targetctl [GLOBAL OPTIONS] namespace add NQN "
				    "(--path PATH | --ram SIZE | --null SIZE) [OPTIONS]\n";
	CU_ASSERT_EQUAL(strncmp(t.out, usage, strlen(usage)), 0);
	CU_ASSERT_STRING_EQUAL(t.err, "");
	CU_ASSERT_EQUAL(t.srv.calls, 0);
	stop(&t);
}

static void no_server_exits_3_naming_the_socket(void)
{
	struct ctl t;
	start(&t);
	stop(&t);   /* the path is gone now */
	t.out = t.err = NULL;
	t.last_params = NULL;
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_NOCONN);
	char want[256];
	snprintf(want, sizeof(want), "nvmf-targetctl: cannot connect to %s: No such file or "
		 "directory (is nvmf-target running? --socket PATH)\n", t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	free(t.out);
	free(t.err);
}

static void a_target_that_does_not_answer_in_time_exits_1(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "--timeout", "1", "call", "slow", NULL), TCTL_ERR);
	char want[256];
	snprintf(want, sizeof(want), "nvmf-targetctl: %s: no answer within 1 s (--timeout SECS)\n",
		 t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	stop(&t);   /* waits for the slow call to finish */
}

const struct unit_test targetctl_client_tests[] = {
	{ "a_command_prints_the_answer_and_exits_0", a_command_prints_the_answer_and_exits_0 },
	{ "json_prints_the_result_and_call_reaches_any_method",
	  json_prints_the_result_and_call_reaches_any_method },
	{ "an_error_from_the_target_exits_1_with_its_message_and_code",
	  an_error_from_the_target_exits_1_with_its_message_and_code },
	{ "a_usage_error_exits_2_and_sends_nothing", a_usage_error_exits_2_and_sends_nothing },
	{ "no_server_exits_3_naming_the_socket", no_server_exits_3_naming_the_socket },
	{ "a_target_that_does_not_answer_in_time_exits_1",
	  a_target_that_does_not_answer_in_time_exits_1 },
	{ NULL, NULL },
};
