/* SPDX-License-Identifier: MIT */
/*
 * The control socket's protocol: JSON-RPC 2.0 (https://www.jsonrpc.org/specification),
 * requests by name (params an object), single calls and batches, notifications. This file
 * is the dispatcher only: it parses a request text, checks its shape, finds the method in
 * the caller's table and builds the response text. The socket and the methods live apart;
 * a method's parameters are checked against its description (control/schema.h), whose
 * -32602 answers name the method or the parameter and the reason.
 */
#ifndef NVMF_CONTROL_RPC_H
#define NVMF_CONTROL_RPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control/proto.h"
#include "control/schema.h"

/* Error codes. The first five are JSON-RPC 2.0's (section 5.1); ours are in its
 * "implementation-defined server errors" range, -32000 to -32099. */
enum nvmf_rpc_code {
	NVMF_RPC_PARSE_ERROR = -32700,     /* not JSON */
	NVMF_RPC_INVALID_REQUEST = -32600, /* JSON, but not a request object */
	NVMF_RPC_METHOD_NOT_FOUND = -32601,
	NVMF_RPC_INVALID_PARAMS =
		-32602, /* a parameter missing, ill-typed, unknown or out of range */
	NVMF_RPC_INTERNAL_ERROR = -32603,
	NVMF_RPC_NOT_FOUND = -32001, /* an object the call names does not exist (NQN, nsid, port) */
	NVMF_RPC_EXISTS = -32002,  /* the object exists or is in use (duplicate NQN, nsid in use) */
	NVMF_RPC_REFUSED = -32003, /* the target cannot do it now or at all (file missing, busy) */
};

/*
 * One call as a method sees it. @params is the request's object (never NULL: an absent
 * params is an empty object; borrowed). The method sets exactly one of: a result with
 * nvmf_rpc_result (none set: the result is null), or an error with nvmf_rpc_error. A
 * method that fails must have changed nothing: every call applies completely or not at
 * all.
 */
struct nvmf_rpc_call {
	const char *method;
	json_t *params;
	json_t *result;     /* owned; NULL = null */
	int code;           /* 0, or the error's code */
	char message[1024]; /* the error's message: the field and the reason */
};

/* A method: @ctx is the one given to nvmf_rpc_handle. */
typedef void (*nvmf_rpc_fn)(void *ctx, struct nvmf_rpc_call *call);

/* A method table entry; tables end with { NULL }. With a @schema (control/schema.h) the
 * dispatcher checks the call's params against it before @fn runs (-32602 otherwise), and
 * @fn reads them with nvmf_rpc_str/uint/bool; without one, @fn checks its own with
 * nvmf_rpc_param_str/uint/bool. */
struct nvmf_rpc_method {
	const char *name;
	nvmf_rpc_fn fn;
	const struct nvmf_rpc_schema *schema;
};

/*
 * nvmf_rpc_handle - answer one request text of @len bytes (a request object or a batch
 * array, JSON-RPC 2.0 sections 4-6) by calling the methods of @methods with @ctx, in the
 * batch's order, on the caller's thread. Returns the response text (malloc'ed,
 * NUL-terminated, compact JSON, no newline), or NULL when there is nothing to answer
 * (notifications only) or no memory (then nothing ran that an answer would describe).
 */
char *nvmf_rpc_handle(const struct nvmf_rpc_method *methods, void *ctx, const char *text,
		      size_t len);
/* nvmf_rpc_answer - the same for a request already parsed (@req's reference is stolen),
 * e.g. by nvmf_rpc_frame. */
char *nvmf_rpc_answer(const struct nvmf_rpc_method *methods, void *ctx, json_t *req);
/* nvmf_rpc_error_text - the response text of an error @code with @message and a null id
 * (for answers outside any call: a client refused, a request too long); malloc'ed, or
 * NULL without memory. */
char *nvmf_rpc_error_text(int code, const char *message);

/* The framing (nvmf_rpc_frame) is in control/proto.h, shared with the clients. */

/* nvmf_rpc_error - fail @call with @code and a printf-style message (replaces any result).
 * Returns false, for `return nvmf_rpc_error(...)` in helpers. */
bool nvmf_rpc_error(struct nvmf_rpc_call *call, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* nvmf_rpc_result - @result (reference stolen; NULL = no memory: an internal error) is
 * the call's result. */
void nvmf_rpc_result(struct nvmf_rpc_call *call, json_t *result);

/*
 * Parameters a schema has checked (the method's nvmf_rpc_method.schema): read as they are.
 * nvmf_rpc_str - the string @name (borrowed from params), NULL when absent.
 * nvmf_rpc_uint - the integer @name, @absent when absent.
 * nvmf_rpc_bool - true or false @name, @absent when absent.
 */
const char *nvmf_rpc_str(const struct nvmf_rpc_call *call, const char *name);
uint64_t nvmf_rpc_uint(const struct nvmf_rpc_call *call, const char *name, uint64_t absent);
bool nvmf_rpc_bool(const struct nvmf_rpc_call *call, const char *name, bool absent);

/*
 * For methods without a schema: check and read one parameter, JSON-RPC "by name", with
 * the schema's own check (nvmf_rpc_param_check, its messages). Each returns true with
 * *out set (or left alone when the parameter is absent and not @required), or false with
 * the call failed with -32602 and a message naming the parameter and what was wrong.
 */
/* nvmf_rpc_param_str - a string, non-empty, at most @max_len bytes (borrowed from params). */
bool nvmf_rpc_param_str(struct nvmf_rpc_call *call, const char *name, bool required, size_t max_len,
			const char **out);
/* nvmf_rpc_param_uint - a non-negative integer in [@min, @max]. */
bool nvmf_rpc_param_uint(struct nvmf_rpc_call *call, const char *name, bool required, uint64_t min,
			 uint64_t max, uint64_t *out);
/* nvmf_rpc_param_bool - true or false. */
bool nvmf_rpc_param_bool(struct nvmf_rpc_call *call, const char *name, bool required, bool *out);

#endif
