/* nvmf-targetctl's one request over the control socket (app/nvmf-targetctl/client.c),
 * through whole command lines: no server (exit 3), a target that does not answer in time, a
 * server that closes before reading or on a request too long, an answer without its
 * newline or cut short. What the answer then means: run_test.c. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/app/nvmf-targetctl/ctl_fixture.h"
#include "tests/unit/suites.h"

static void no_server_exits_3_naming_the_socket(void)
{
	struct ctl t;
	start(&t);
	stop(&t); /* the path is gone now */
	t.out = t.err = NULL;
	t.last_params = NULL;
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_NOCONN);
	char want[256];
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: cannot connect to %s: No such file or "
		 "directory (is nvmf-target running? --socket PATH)\n",
		 t.path);
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
	stop(&t); /* waits for the slow call to finish */
}

/* `call ping {"pad": "xxx..."}`, @bytes long: more than a socket buffer holds, so the
 * send is still under way when the server closes. */
static char *big_params(size_t bytes)
{
	char *p = malloc(bytes + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memset(p, 'x', bytes);
	memcpy(p, "{\"pad\":\"", 8);
	memcpy(p + bytes - 2, "\"}", 3);
	return p;
}

static const char too_many[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32003,"
			       "\"message\":\"too many clients (16); try again later\"}}\n";

static void a_server_that_closes_before_reading_has_its_error_reported(void)
{
	struct ctl t;
	struct tiny s;
	start_empty(&t);
	/* As the target answers a 17th client: its error, then close, reading nothing. The
	 * request outgrows the socket buffer, so the send fails (EPIPE or ECONNRESET). */
	char *pad = big_params(8u << 20);
	tiny_start(&s, &t, too_many, false);
	CU_ASSERT_EQUAL(run(&t, "call", "ping", pad, NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: too many clients (16); try again later "
				      "(-32003)\n");
	CU_ASSERT_STRING_EQUAL(t.out, "");
	/* A small request: sent before the close, the same answer. */
	tiny_start(&s, &t, too_many, false);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: too many clients (16); try again later "
				      "(-32003)\n");
	/* Closed with nothing said: the send's own error stands. */
	tiny_start(&s, &t, "", false);
	CU_ASSERT_EQUAL(run(&t, "call", "ping", pad, NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	char want[256];
	snprintf(want, sizeof(want), "nvmf-targetctl: %s: send: ", t.path);
	CU_ASSERT_EQUAL(strncmp(t.err, want, strlen(want)), 0);
	free(pad);
	stop_empty(&t);
}

static void a_request_too_long_for_the_server_has_its_error_reported(void)
{
	struct ctl t;
	start(&t);
	/* The real server reads 1 MiB, answers why and closes while the CLI still sends. */
	char *pad = big_params(4u << 20);
	CU_ASSERT_EQUAL(run(&t, "call", "version", pad, NULL), TCTL_ERR);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: request: longer than 1048576 bytes; "
				      "connection closed (-32600)\n");
	CU_ASSERT_EQUAL(t.srv.calls, 0);
	free(pad);
	stop(&t);
}

static void a_whole_answer_without_its_newline_is_taken_at_close(void)
{
	struct ctl t;
	struct tiny s;
	char want[256];
	start_empty(&t);
	tiny_start(&s, &t,
		   "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"program\":\"nvmf-target\","
		   "\"version\":\"0.1.0\"}}",
		   true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_OK);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf-target 0.1.0\n");
	CU_ASSERT_STRING_EQUAL(t.err, "");
	/* Cut short: not an answer. */
	tiny_start(&s, &t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"res", true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: %s: the target closed the connection in the "
		 "middle of its answer\n",
		 t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	tiny_start(&s, &t, "", true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: %s: the target closed the connection "
		 "without answering\n",
		 t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	stop_empty(&t);
}

const struct unit_test targetctl_client_tests[] = {
	{ "no_server_exits_3_naming_the_socket", no_server_exits_3_naming_the_socket },
	{ "a_target_that_does_not_answer_in_time_exits_1",
	  a_target_that_does_not_answer_in_time_exits_1 },
	{ "a_server_that_closes_before_reading_has_its_error_reported",
	  a_server_that_closes_before_reading_has_its_error_reported },
	{ "a_request_too_long_for_the_server_has_its_error_reported",
	  a_request_too_long_for_the_server_has_its_error_reported },
	{ "a_whole_answer_without_its_newline_is_taken_at_close",
	  a_whole_answer_without_its_newline_is_taken_at_close },
	{ NULL, NULL },
};
