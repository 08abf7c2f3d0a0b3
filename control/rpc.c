// SPDX-License-Identifier: MIT
/* JSON-RPC 2.0 dispatcher of the control socket (see rpc.h). JSON through jansson. */
#include "control/rpc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Duplicate keys are refused: a request must mean one thing. */
#define PARSE_FLAGS (JSON_DECODE_ANY | JSON_REJECT_DUPLICATES)

bool nvmf_rpc_error(struct nvmf_rpc_call *call, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(call->message, sizeof(call->message), fmt, ap);
	va_end(ap);
	call->code = code;
	json_decref(call->result);
	call->result = NULL;
	return false;
}

void nvmf_rpc_result(struct nvmf_rpc_call *call, json_t *result)
{
	json_decref(call->result);
	call->result = result;
	if (!result)
		nvmf_rpc_error(call, NVMF_RPC_INTERNAL_ERROR, "out of memory building the result");
}

/* ---- parameters ---- */

const char *nvmf_rpc_str(const struct nvmf_rpc_call *call, const char *name)
{
	return json_string_value(json_object_get(call->params, name));
}

uint64_t nvmf_rpc_uint(const struct nvmf_rpc_call *call, const char *name, uint64_t absent)
{
	json_t *v = json_object_get(call->params, name);
	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : absent;
}

bool nvmf_rpc_bool(const struct nvmf_rpc_call *call, const char *name, bool absent)
{
	json_t *v = json_object_get(call->params, name);
	return json_is_boolean(v) ? json_is_true(v) : absent;
}

/* One parameter @p of @call checked: its value (NULL when absent), or NULL with the call
 * failed (*ok false). */
static json_t *param(struct nvmf_rpc_call *call, const struct nvmf_rpc_param *p, bool *ok)
{
	json_t *v = json_object_get(call->params, p->name);
	char msg[sizeof(call->message)];
	*ok = nvmf_rpc_param_check(p, v, msg, sizeof(msg));
	if (!*ok)
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS, "%s", msg);
	return *ok ? v : NULL;
}

bool nvmf_rpc_param_str(struct nvmf_rpc_call *call, const char *name, bool required, size_t max_len,
			const char **out)
{
	struct nvmf_rpc_param p = { name, NVMF_RPC_STRING, required, 1, max_len, NULL, NULL, NULL };
	bool ok;
	json_t *v = param(call, &p, &ok);
	if (v)
		*out = json_string_value(v);
	return ok;
}

bool nvmf_rpc_param_uint(struct nvmf_rpc_call *call, const char *name, bool required, uint64_t min,
			 uint64_t max, uint64_t *out)
{
	struct nvmf_rpc_param p = { name, NVMF_RPC_UINT, required, min, max, NULL, NULL, NULL };
	bool ok;
	json_t *v = param(call, &p, &ok);
	if (v)
		*out = (uint64_t)json_integer_value(v);
	return ok;
}

bool nvmf_rpc_param_bool(struct nvmf_rpc_call *call, const char *name, bool required, bool *out)
{
	struct nvmf_rpc_param p = { name, NVMF_RPC_BOOL, required, 0, 0, NULL, NULL, NULL };
	bool ok;
	json_t *v = param(call, &p, &ok);
	if (v)
		*out = json_is_true(v);
	return ok;
}

/* ---- requests ---- */

static json_t *error_response(json_t *id, int code, const char *message)
{
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			 "error", "code", code, "message", message);
}

/* An id is a string, a number or null (section 4); anything else makes the request invalid. */
static bool id_valid(const json_t *id)
{
	return json_is_string(id) || json_is_number(id) || json_is_null(id);
}

/* One request object: its response, or NULL for a notification (or no memory). */
static json_t *handle_one(const struct nvmf_rpc_method *methods, void *ctx, json_t *req)
{
	if (!json_is_object(req)) {
		char msg[64];
		snprintf(msg, sizeof(msg), "request: expected an object, got %s",
			 nvmf_rpc_type_name(req));
		return error_response(NULL, NVMF_RPC_INVALID_REQUEST, msg);
	}
	json_t *id = json_object_get(req, "id");
	json_t *good_id = id && id_valid(id) ? id : NULL;
	char msg[192];
	const char *key;
	json_t *v;
	json_object_foreach(req, key, v) {
		if (strcmp(key, "jsonrpc") && strcmp(key, "method") && strcmp(key, "params") &&
		    strcmp(key, "id")) {
			snprintf(msg, sizeof(msg),
				 "request: unknown member '%.64s' "
				 "(members: jsonrpc, method, params, id)",
				 key);
			return error_response(good_id, NVMF_RPC_INVALID_REQUEST, msg);
		}
	}
	if (id && !good_id) {
		snprintf(msg, sizeof(msg), "request: id must be a string, a number or null, not %s",
			 nvmf_rpc_type_name(id));
		return error_response(NULL, NVMF_RPC_INVALID_REQUEST, msg);
	}
	json_t *ver = json_object_get(req, "jsonrpc");
	if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0"))
		return error_response(id, NVMF_RPC_INVALID_REQUEST,
				      "request: \"jsonrpc\" must be the string \"2.0\"");
	json_t *m = json_object_get(req, "method");
	if (!json_is_string(m)) {
		if (m)
			snprintf(msg, sizeof(msg), "request: \"method\" must be a string, got %s",
				 nvmf_rpc_type_name(m));
		else
			snprintf(msg, sizeof(msg), "request: \"method\" is missing");
		return error_response(id, NVMF_RPC_INVALID_REQUEST, msg);
	}
	json_t *params = json_object_get(req, "params");
	if (params && !json_is_object(params) && !json_is_array(params)) {
		snprintf(msg, sizeof(msg), "request: \"params\" must be an object, not %s",
			 nvmf_rpc_type_name(params));
		return error_response(id, NVMF_RPC_INVALID_REQUEST, msg);
	}

	const char *name = json_string_value(m);
	const struct nvmf_rpc_method *method = methods;
	while (method->name && strcmp(method->name, name))
		method++;
	struct nvmf_rpc_call call = { .method = name };
	if (!method->name) {
		nvmf_rpc_error(&call, NVMF_RPC_METHOD_NOT_FOUND, "method '%.128s' not found", name);
	} else if (json_is_array(params)) {
		nvmf_rpc_error(
			&call, NVMF_RPC_INVALID_PARAMS,
			"params by position are not supported: pass an object of named parameters");
	} else {
		call.params = params ? json_incref(params) : json_object();
		if (!call.params)
			nvmf_rpc_error(&call, NVMF_RPC_INTERNAL_ERROR, "out of memory");
		else if (method->schema &&
			 !nvmf_rpc_schema_check(method->schema, call.params, call.message,
						sizeof(call.message)))
			call.code = NVMF_RPC_INVALID_PARAMS;
		else
			method->fn(ctx, &call);
		json_decref(call.params);
	}
	if (!id) { /* a notification: never answered (section 4.1) */
		json_decref(call.result);
		return NULL;
	}
	if (call.code)
		return error_response(id, call.code, call.message);
	json_t *resp = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result",
				 call.result ? call.result : json_null());
	return resp;
}

static char *dump(json_t *resp)
{
	char *s = resp ? json_dumps(resp, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	json_decref(resp);
	return s;
}

char *nvmf_rpc_error_text(int code, const char *message)
{
	return dump(error_response(NULL, code, message));
}

char *nvmf_rpc_handle(const struct nvmf_rpc_method *methods, void *ctx, const char *text,
		      size_t len)
{
	json_error_t err;
	json_t *req = json_loadb(text, len, PARSE_FLAGS, &err);
	if (!req) {
		char msg[256];
		const char *nul = memchr(text, '\0', len);
		/* jansson would say the input ended early: name the byte instead. */
		if (nul && json_error_code(&err) == json_error_premature_end_of_input)
			snprintf(msg, sizeof(msg),
				 "parse error: a NUL byte at offset %zu (JSON has none)",
				 (size_t)(nul - text));
		else
			snprintf(msg, sizeof(msg), "parse error at line %d, column %d: %s",
				 err.line, err.column, err.text);
		return nvmf_rpc_error_text(NVMF_RPC_PARSE_ERROR, msg);
	}
	return nvmf_rpc_answer(methods, ctx, req);
}

char *nvmf_rpc_answer(const struct nvmf_rpc_method *methods, void *ctx, json_t *req)
{
	json_t *resp;
	if (!json_is_array(req)) {
		resp = handle_one(methods, ctx, req);
	} else if (!json_array_size(req)) {
		resp = error_response(NULL, NVMF_RPC_INVALID_REQUEST, "request: empty batch");
	} else {
		/* A batch: each call in order; the answers in one array, none if all were
		 * notifications (section 6). */
		resp = json_array();
		size_t i;
		json_t *one;
		json_array_foreach(req, i, one) {
			json_t *r = handle_one(methods, ctx, one);
			if (r && resp)
				json_array_append_new(resp, r);
			else
				json_decref(r);
		}
		if (resp && !json_array_size(resp)) {
			json_decref(resp);
			resp = NULL;
		}
	}
	json_decref(req);
	return dump(resp);
}
