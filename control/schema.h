/* SPDX-License-Identifier: MIT */
/*
 * One description per control method: its name, a one-line summary and its parameters
 * (JSON-RPC 2.0 "by name", section 4.2), each with its type, range, whether it is
 * required and a line of help. Written once, here, and read by:
 * - the server's dispatcher (control/rpc.c), which checks every call against it before
 *   the method runs (unknown, missing, ill-typed and out-of-range parameters, and names
 *   outside a parameter's choice list, are answered -32602 naming the method or the
 *   parameter), so that each handler trusts its input;
 * - nvmf-targetctl (app/nvmf-targetctl/), for the ranges and choice lists of the
 *   arguments it maps to parameters and for the parameter lines of its --help;
 * - docs/targetctl.md's method reference, which tests/unit/control/schema_test.c
 *   compares with this table (it fails when they differ, and writes the expected text).
 * libc and jansson only: nvmf-targetctl links this and no target code.
 */
#ifndef NVMF_CONTROL_SCHEMA_H
#define NVMF_CONTROL_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Public limits of the control methods' parameters (the target's own constants are
 * checked against them at build time, control/control.c). */
#define NVMF_CTL_NQN_MAX    223u    /* bytes of an NQN, NVMe Base 4.5 section 4.7 */
#define NVMF_CTL_NSID_MAX   1024u   /* the target's namespace slots (not the spec's 2^32-2) */
#define NVMF_CTL_CNTLID_MAX 0xffefu /* controller IDs fff0h and above are reserved */
#define NVMF_CTL_PORTID_MAX 0xffffu /* a 16-bit field of the Discovery Log Page entry */
#define NVMF_CTL_GRPID_MAX  128u    /* ANA group IDs 1..128, as the kernel target */
#define NVMF_CTL_SECRET_MAX 256u    /* bytes of a DHHC-1 secret's text */
#define NVMF_CTL_PATH_MAX   4000u   /* bytes of a path config_save writes to */

/* A parameter's JSON type. */
enum nvmf_rpc_type {
	NVMF_RPC_STRING, /* a string of 1 to max bytes */
	NVMF_RPC_UINT,   /* an integer in [min, max] */
	NVMF_RPC_BOOL,   /* true or false */
	NVMF_RPC_SIZE,   /* bytes: an integer in [min, max], or a string like "64M"
				   * (the method parses it) */
	NVMF_RPC_OBJECT, /* an object the method decodes (a config file's piece) */
	NVMF_RPC_ARRAY,  /* a non-empty array the method decodes */
};

/* One parameter. */
struct nvmf_rpc_param {
	const char *name;
	enum nvmf_rpc_type type;
	bool required;
	uint64_t min, max;          /* UINT, SIZE: the value's range; STRING: max is its length
				   * in bytes (at least 1) unless it has choices; others: unused */
	const char *kind;           /* what it is, in messages ("an object as in the config
				   * file's ...", "a log level": required with choices); NULL: the
				   * type's own words */
	const char *help;           /* one line for the docs and --help */
	const char *const *choices; /* STRING: the only values it takes, ended by NULL, from
				     * the table that names them (nvme/ana-state.h,
				     * util/log-names.h, nvme/dhchap.h); NULL: any string */
};

#define NVMF_RPC_MAX_PARAMS 6

/* One method: params ended by a NULL name, in the order they are checked. */
struct nvmf_rpc_schema {
	const char *name;
	const char *summary; /* one line */
	struct nvmf_rpc_param params[NVMF_RPC_MAX_PARAMS];
};

/* The methods of nvmf-target's control socket, ended by a NULL name; the server binds each
 * to its handler (nvmf_ctl_methods, control/control.c) by the index below. */
enum nvmf_ctl_method_id {
	NVMF_CTL_VERSION,
	NVMF_CTL_SUBSYSTEM_LIST,
	NVMF_CTL_PORT_LIST,
	NVMF_CTL_CONTROLLER_LIST,
	NVMF_CTL_NAMESPACE_STATS,
	NVMF_CTL_POLL_GROUP_STATS,
	NVMF_CTL_NAMESPACE_ADD,
	NVMF_CTL_NAMESPACE_REMOVE,
	NVMF_CTL_NAMESPACE_ENABLE,
	NVMF_CTL_NAMESPACE_DISABLE,
	NVMF_CTL_NAMESPACE_RESIZE,
	NVMF_CTL_NAMESPACE_RESERVATION,
	NVMF_CTL_NAMESPACE_RESERVATION_CLEAR,
	NVMF_CTL_HOST_ADD,
	NVMF_CTL_HOST_REMOVE,
	NVMF_CTL_HOST_DHCHAP_SET,
	NVMF_CTL_HOST_DHCHAP_CLEAR,
	NVMF_CTL_HOST_TLS_KEY_SET,
	NVMF_CTL_HOST_TLS_KEY_CLEAR,
	NVMF_CTL_SUBSYSTEM_ALLOW_ANY_HOST,
	NVMF_CTL_CONTROLLER_DISCONNECT,
	NVMF_CTL_SUBSYSTEM_ADD,
	NVMF_CTL_SUBSYSTEM_REMOVE,
	NVMF_CTL_PORT_ADD,
	NVMF_CTL_PORT_REMOVE,
	NVMF_CTL_PORT_LINK,
	NVMF_CTL_PORT_UNLINK,
	NVMF_CTL_ANA_STATE_SET,
	NVMF_CTL_ANA_STATE_LIST,
	NVMF_CTL_NAMESPACE_ANA_GROUP_SET,
	NVMF_CTL_CONFIG_GET,
	NVMF_CTL_CONFIG_SAVE,
	NVMF_CTL_CONFIG_RELOAD,
	NVMF_CTL_LOG_LEVEL_GET,
	NVMF_CTL_LOG_LEVEL_SET,
	NVMF_CTL_GATEWAY_STATUS,
	NVMF_CTL_METHOD_COUNT,
};
extern const struct nvmf_rpc_schema nvmf_ctl_schema[NVMF_CTL_METHOD_COUNT + 1];

/* nvmf_ctl_schema_find - the method named @name, or NULL. */
const struct nvmf_rpc_schema *nvmf_ctl_schema_find(const char *name);
/* nvmf_rpc_schema_param - @s's parameter @name, or NULL. */
const struct nvmf_rpc_param *nvmf_rpc_schema_param(const struct nvmf_rpc_schema *s,
						   const char *name);

/*
 * nvmf_rpc_schema_check - @params (an object) against @s: every name is one of @s's
 * ("unknown parameter 'x' (METHOD takes: a, b)"), then each parameter in order with
 * nvmf_rpc_param_check. Returns true, or false with the message in @msg (the JSON-RPC
 * error is -32602 Invalid params).
 */
bool nvmf_rpc_schema_check(const struct nvmf_rpc_schema *s, const json_t *params, char *msg,
			   size_t len);
/*
 * nvmf_rpc_param_check - @v (NULL: absent) against @p: "missing parameter 'x' (KIND)",
 * "parameter 'x': expected KIND, got a string", "parameter 'x': empty", "parameter 'x':
 * N bytes, longer than MAX", "parameter 'x': N is out of range [MIN, MAX]". Returns true
 * (absent and optional included), or false with the message in @msg.
 */
bool nvmf_rpc_param_check(const struct nvmf_rpc_param *p, const json_t *v, char *msg, size_t len);
/* nvmf_rpc_type_name - @v's JSON type in words ("a string"; NULL: "nothing"). */
const char *nvmf_rpc_type_name(const json_t *v);
/* nvmf_rpc_param_text - @p in one line for people, into @buf: "nsid: an integer, 1 to
 * 1024, required"; with choices "level: a log level (error, warning, info or debug),
 * required". Returns @buf. */
char *nvmf_rpc_param_text(const struct nvmf_rpc_param *p, char *buf, size_t len);

#endif
