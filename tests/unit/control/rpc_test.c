/* The control socket's JSON-RPC 2.0 dispatcher (control/rpc.c): every error the
 * specification defines, our parameter errors naming the field, notifications and
 * batches (the framing of a byte stream is control/proto). */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "control/rpc.h"
#include "tests/unit/suites.h"

struct ctx {
	unsigned calls; /* methods run */
	uint64_t total; /* what "add" added up */
};

/* add's description: the dispatcher checks every call against it before m_add runs. */
static const struct nvmf_rpc_schema add_schema = {
	"add",
	"add two numbers",
	{ { "a", NVMF_RPC_UINT, true, 1, 1000, NULL, "the first", NULL },
	  { "b", NVMF_RPC_UINT, false, 0, 1000, NULL, "the second (default 0)", NULL },
	  { "tag", NVMF_RPC_STRING, false, 1, 8, NULL, "echoed", NULL },
	  { "strict", NVMF_RPC_BOOL, false, 0, 0, NULL, "echoed", NULL },
	  { NULL, NVMF_RPC_STRING, false, 0, 0, NULL, NULL, NULL } }
};
static const struct nvmf_rpc_schema nothing_schema = { "nothing",
						       "takes no parameters",
						       { { NULL, NVMF_RPC_STRING, false, 0, 0, NULL,
							   NULL, NULL } } };

static void m_add(void *arg, struct nvmf_rpc_call *call)
{
	struct ctx *c = arg;
	uint64_t a = nvmf_rpc_uint(call, "a", 0), b = nvmf_rpc_uint(call, "b", 0);
	const char *tag = nvmf_rpc_str(call, "tag");
	bool strict = nvmf_rpc_bool(call, "strict", false);
	c->calls++;
	c->total += a + b;
	nvmf_rpc_result(call, json_pack("{s:I, s:s, s:b}", "sum", (json_int_t)(a + b), "tag",
					tag ? tag : "", "strict", strict));
}

static void m_nothing(void *arg, struct nvmf_rpc_call *call)
{
	struct ctx *c = arg;
	c->calls++;
	(void)call;
}

static void m_refuse(void *arg, struct nvmf_rpc_call *call)
{
	struct ctx *c = arg;
	c->calls++;
	nvmf_rpc_result(call, json_true()); /* replaced by the error */
	nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "subsystem '%s' not found", "nqn.x");
}

static const struct nvmf_rpc_method methods[] = {
	{ "add", m_add, &add_schema },
	{ "nothing", m_nothing, &nothing_schema },
	{ "refuse", m_refuse, NULL }, /* always fails */
	{ NULL, NULL, NULL },
};

/* The response to @text, parsed (NULL when none); *c counts the calls. */
static json_t *call(struct ctx *c, const char *text)
{
	char *out = nvmf_rpc_handle(methods, c, text, strlen(text));
	if (!out)
		return NULL;
	json_error_t err;
	json_t *v = json_loads(out, 0, &err);
	CU_ASSERT_PTR_NOT_NULL(v);
	CU_ASSERT_PTR_NULL(strchr(out, '\n'));
	free(out);
	return v;
}

static int err_code(const json_t *resp)
{
	return (int)json_integer_value(json_object_get(json_object_get(resp, "error"), "code"));
}

static const char *err_msg(const json_t *resp)
{
	const char *s =
		json_string_value(json_object_get(json_object_get(resp, "error"), "message"));
	return s ? s : "";
}

/* @resp is an error @code with a null id whose message contains @part. */
static void assert_error(json_t *resp, int code, const char *part, bool null_id)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(resp);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(resp, "jsonrpc")), "2.0");
	CU_ASSERT_EQUAL(err_code(resp), code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err_msg(resp), part));
	CU_ASSERT_PTR_NULL(json_object_get(resp, "result"));
	if (null_id)
		CU_ASSERT_TRUE(json_is_null(json_object_get(resp, "id")));
	json_decref(resp);
}

static void call_returns_result_with_the_same_id(void)
{
	struct ctx c = { 0 };
	json_t *r = call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":{\"a\":2,\"b\":3,"
			     "\"tag\":\"x\",\"strict\":true},\"id\":7}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(r, "id")), 7);
	json_t *res = json_object_get(r, "result");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(res, "sum")), 5);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(res, "tag")), "x");
	CU_ASSERT_TRUE(json_is_true(json_object_get(res, "strict")));
	CU_ASSERT_PTR_NULL(json_object_get(r, "error"));
	CU_ASSERT_EQUAL(c.calls, 1);
	json_decref(r);

	r = call(&c,
		 "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":{\"a\":1},\"id\":\"abc\"}");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "id")), "abc");
	json_decref(r);
	/* no params: an empty object; the method's result defaults to null */
	r = call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"nothing\",\"id\":null}");
	CU_ASSERT_TRUE(json_is_null(json_object_get(r, "id")));
	CU_ASSERT_TRUE(json_is_null(json_object_get(r, "result")));
	CU_ASSERT_PTR_NULL(json_object_get(r, "error"));
	json_decref(r);
	CU_ASSERT_EQUAL(c.total, 6);
}

static void not_json_is_parse_error_32700_with_null_id(void)
{
	struct ctx c = { 0 };
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":{\"a\":1"),
		     NVMF_RPC_PARSE_ERROR, "parse error at line 1", true);
	assert_error(call(&c, "hello"), NVMF_RPC_PARSE_ERROR, "parse error", true);
	assert_error(call(&c, ""), NVMF_RPC_PARSE_ERROR, "parse error", true);
	/* one key twice: which one would the method see? */
	assert_error(
		call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"method\":\"refuse\",\"id\":1}"),
		NVMF_RPC_PARSE_ERROR, "duplicate", true);
	CU_ASSERT_EQUAL(c.calls, 0);
}

static void malformed_request_is_32600_naming_the_member(void)
{
	struct ctx c = { 0 };
	assert_error(call(&c, "1"), NVMF_RPC_INVALID_REQUEST, "expected an object, got an integer",
		     true);
	assert_error(call(&c, "\"add\""), NVMF_RPC_INVALID_REQUEST, "got a string", true);
	assert_error(call(&c, "{\"method\":\"add\",\"id\":1}"), NVMF_RPC_INVALID_REQUEST,
		     "\"jsonrpc\"", false);
	assert_error(call(&c, "{\"jsonrpc\":\"1.0\",\"method\":\"add\",\"id\":1}"),
		     NVMF_RPC_INVALID_REQUEST, "\"2.0\"", false);
	assert_error(call(&c, "{\"jsonrpc\":2.0,\"method\":\"add\",\"id\":1}"),
		     NVMF_RPC_INVALID_REQUEST, "\"2.0\"", false);
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"id\":1}"), NVMF_RPC_INVALID_REQUEST,
		     "request: \"method\" is missing", false);
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":5,\"id\":1}"),
		     NVMF_RPC_INVALID_REQUEST,
		     "request: \"method\" must be a string, got an integer", false);
	assert_error(call(&c,
			  "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":\"a=1\",\"id\":1}"),
		     NVMF_RPC_INVALID_REQUEST, "\"params\" must be an object, not a string", false);
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"param\":{},\"id\":1}"),
		     NVMF_RPC_INVALID_REQUEST, "unknown member 'param'", false);
	/* an id that is neither string, number nor null cannot be echoed */
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"id\":{\"x\":1}}"),
		     NVMF_RPC_INVALID_REQUEST, "id must be", true);
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"id\":[1]}"),
		     NVMF_RPC_INVALID_REQUEST, "not an array", true);
	/* a malformed request is answered even without an id (the spec's own example) */
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":1,\"params\":\"bar\"}"),
		     NVMF_RPC_INVALID_REQUEST, "\"method\"", true);
	CU_ASSERT_EQUAL(c.calls, 0);
}

/* nvmf_rpc_answer given no value at all: an invalid request, not a NULL dereference. */
static void answer_to_no_value_is_32600(void)
{
	struct ctx c = { 0 };
	char *out = nvmf_rpc_answer(methods, &c, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	json_t *resp = json_loads(out, 0, NULL);
	free(out);
	assert_error(resp, NVMF_RPC_INVALID_REQUEST, "request: expected an object, got nothing",
		     true);
	CU_ASSERT_EQUAL(c.calls, 0);
}

static void error_keeps_the_request_id(void)
{
	struct ctx c = { 0 };
	json_t *r = call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"nope\",\"id\":\"q1\"}");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "id")), "q1");
	assert_error(r, NVMF_RPC_METHOD_NOT_FOUND, "method 'nope' not found", false);
}

static void unknown_method_is_32601_and_runs_nothing(void)
{
	struct ctx c = { 0 };
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"Add\",\"id\":1}"),
		     NVMF_RPC_METHOD_NOT_FOUND, "'Add'", false);
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"\",\"id\":1}"),
		     NVMF_RPC_METHOD_NOT_FOUND, "''", false);
	CU_ASSERT_EQUAL(c.calls, 0);
}

static void parameter_errors_are_32602_naming_the_parameter(void)
{
	struct ctx c = { 0 };
#define ADD(p) "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":" p ",\"id\":1}"
	assert_error(call(&c, ADD("{}")), NVMF_RPC_INVALID_PARAMS,
		     "missing parameter 'a' (an integer)", false);
	assert_error(call(&c, ADD("{\"a\":\"1\"}")), NVMF_RPC_INVALID_PARAMS,
		     "parameter 'a': expected an integer, got a string", false);
	assert_error(call(&c, ADD("{\"a\":1.5}")), NVMF_RPC_INVALID_PARAMS,
		     "parameter 'a': expected an integer, got a number with a fraction", false);
	assert_error(call(&c, ADD("{\"a\":0}")), NVMF_RPC_INVALID_PARAMS,
		     "parameter 'a': 0 is out of range [1, 1000]", false);
	assert_error(call(&c, ADD("{\"a\":1001}")), NVMF_RPC_INVALID_PARAMS, "1001 is out of range",
		     false);
	assert_error(call(&c, ADD("{\"a\":-1}")), NVMF_RPC_INVALID_PARAMS, "-1 is out of range",
		     false);
	assert_error(call(&c, ADD("{\"a\":1,\"b\":null}")), NVMF_RPC_INVALID_PARAMS,
		     "parameter 'b': expected an integer, got null", false);
	assert_error(call(&c, ADD("{\"a\":1,\"tag\":\"\"}")), NVMF_RPC_INVALID_PARAMS,
		     "parameter 'tag': empty", false);
	assert_error(call(&c, ADD("{\"a\":1,\"tag\":\"123456789\"}")), NVMF_RPC_INVALID_PARAMS,
		     "parameter 'tag': 9 bytes, longer than 8", false);
	/* jansson refuses \u0000 in any string: never a C string cut short */
	assert_error(call(&c, ADD("{\"a\":1,\"tag\":\"a\\u0000b\"}")), NVMF_RPC_PARSE_ERROR,
		     "u0000", true);
	assert_error(call(&c, ADD("{\"a\":1,\"tag\":7}")), NVMF_RPC_INVALID_PARAMS,
		     "parameter 'tag': expected a string, got an integer", false);
	assert_error(call(&c, ADD("{\"a\":1,\"strict\":1}")), NVMF_RPC_INVALID_PARAMS,
		     "parameter 'strict': expected true or false, got an integer", false);
	assert_error(call(&c, ADD("{\"a\":1,\"c\":2}")), NVMF_RPC_INVALID_PARAMS,
		     "unknown parameter 'c' (add takes: a, b, tag, strict)", false);
	assert_error(call(&c, ADD("[1,2]")), NVMF_RPC_INVALID_PARAMS, "by position", false);
	assert_error(
		call(&c,
		     "{\"jsonrpc\":\"2.0\",\"method\":\"nothing\",\"params\":{\"x\":1},\"id\":1}"),
		NVMF_RPC_INVALID_PARAMS, "unknown parameter 'x' (nothing takes: no parameters)",
		false);
#undef ADD
	CU_ASSERT_EQUAL(c.total, 0); /* no failed call changed anything */
	CU_ASSERT_EQUAL(c.calls, 0); /* the description refused them before the method ran */
}

static void method_error_replaces_its_result(void)
{
	struct ctx c = { 0 };
	assert_error(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"refuse\",\"id\":3}"),
		     NVMF_RPC_NOT_FOUND, "subsystem 'nqn.x' not found", false);
	CU_ASSERT_EQUAL(c.calls, 1);
}

static void notification_runs_and_is_never_answered(void)
{
	struct ctx c = { 0 };
	CU_ASSERT_PTR_NULL(
		call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":{\"a\":4}}"));
	CU_ASSERT_EQUAL(c.total, 4);
	/* failing notifications are not answered either */
	CU_ASSERT_PTR_NULL(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"refuse\"}"));
	CU_ASSERT_PTR_NULL(call(&c, "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}"));
	CU_ASSERT_EQUAL(c.calls, 2);
}

static void batch_answers_each_call_in_order_without_notifications(void)
{
	struct ctx c = { 0 };
	json_t *r = call(
		&c, "[{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":{\"a\":1},\"id\":1},"
		    " 1,"
		    " {\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":{\"a\":10}},"
		    " {\"jsonrpc\":\"2.0\",\"method\":\"nope\",\"id\":4},"
		    " {\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":{\"a\":100},\"id\":5}]");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_TRUE_FATAL(json_is_array(r));
	CU_ASSERT_EQUAL_FATAL(json_array_size(r), 4);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(r, 0), "id")), 1);
	CU_ASSERT_EQUAL(err_code(json_array_get(r, 1)), NVMF_RPC_INVALID_REQUEST);
	CU_ASSERT_TRUE(json_is_null(json_object_get(json_array_get(r, 1), "id")));
	CU_ASSERT_EQUAL(err_code(json_array_get(r, 2)), NVMF_RPC_METHOD_NOT_FOUND);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(r, 2), "id")), 4);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(
				json_object_get(json_array_get(r, 3), "result"), "sum")),
			100);
	CU_ASSERT_EQUAL(c.total, 111);
	json_decref(r);

	assert_error(call(&c, "[]"), NVMF_RPC_INVALID_REQUEST, "empty batch", true);
	CU_ASSERT_PTR_NULL(call(&c,
				"[{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":{\"a\":1}},"
				" {\"jsonrpc\":\"2.0\",\"method\":\"nothing\"}]"));
	CU_ASSERT_EQUAL(c.total, 112);
}

const struct unit_test rpc_tests[] = {
	{ "call_returns_result_with_the_same_id", call_returns_result_with_the_same_id },
	{ "not_json_is_parse_error_32700_with_null_id",
	  not_json_is_parse_error_32700_with_null_id },
	{ "malformed_request_is_32600_naming_the_member",
	  malformed_request_is_32600_naming_the_member },
	{ "answer_to_no_value_is_32600", answer_to_no_value_is_32600 },
	{ "error_keeps_the_request_id", error_keeps_the_request_id },
	{ "unknown_method_is_32601_and_runs_nothing", unknown_method_is_32601_and_runs_nothing },
	{ "parameter_errors_are_32602_naming_the_parameter",
	  parameter_errors_are_32602_naming_the_parameter },
	{ "method_error_replaces_its_result", method_error_replaces_its_result },
	{ "notification_runs_and_is_never_answered", notification_runs_and_is_never_answered },
	{ "batch_answers_each_call_in_order_without_notifications",
	  batch_answers_each_call_in_order_without_notifications },
	{ NULL, NULL },
};
