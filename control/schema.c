// SPDX-License-Identifier: MIT
/* The control methods' descriptions and the checks made from them (see schema.h). */
#include "control/schema.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "nvme/ana-state.h"
#include "nvme/dhchap.h"
#include "util/secret.h"
#include "util/choice.h"
#include "util/log-names.h"

/* The parameters most methods share. */
#define P_NQN(req, help)                                                           \
	{                                                                          \
		"nqn", NVMF_RPC_STRING, req, 1, NVMF_CTL_NQN_MAX, NULL, help, NULL \
	}
#define P_NSID(req, help)                                                          \
	{                                                                          \
		"nsid", NVMF_RPC_UINT, req, 1, NVMF_CTL_NSID_MAX, NULL, help, NULL \
	}
#define P_PORTID(req, help)                                                            \
	{                                                                              \
		"portid", NVMF_RPC_UINT, req, 0, NVMF_CTL_PORTID_MAX, NULL, help, NULL \
	}
#define P_GRPID(help)                                                                 \
	{                                                                             \
		"grpid", NVMF_RPC_UINT, true, 1, NVMF_CTL_GRPID_MAX, NULL, help, NULL \
	}
#define P_HOST(help)                                                                 \
	{                                                                            \
		"host", NVMF_RPC_STRING, true, 1, NVMF_CTL_NQN_MAX, NULL, help, NULL \
	}
/* A string that is one of the NULL-ended @choices (kind: what one is, "a log level"). */
#define P_CHOICE(name, req, choices, kind, help)                      \
	{                                                             \
		name, NVMF_RPC_STRING, req, 0, 0, kind, help, choices \
	}
#define P_SUBSYS P_NQN(true, "the subsystem's NQN")
/* namespace_remove, namespace_disable: also when the backing file was deleted (its data
 * is then lost: nvmf_tgt_ns_check_discard). */
#define P_FORCE_DISCARD                                                                        \
	{                                                                                      \
		"force", NVMF_RPC_BOOL, false, 0, 0, NULL,                                     \
			"also when its backing file was deleted (its data is then lost)", NULL \
	}
#define P_END                                                        \
	{                                                            \
		NULL, NVMF_RPC_STRING, false, 0, 0, NULL, NULL, NULL \
	}

const struct nvmf_rpc_schema nvmf_ctl_schema[NVMF_CTL_METHOD_COUNT + 1] = {
	[NVMF_CTL_VERSION] = { "version", "program name and version", { P_END } },
	[NVMF_CTL_SUBSYSTEM_LIST] = { "subsystem_list",
				      "subsystems with namespaces, hosts and ports",
				      { P_NQN(false, "only this subsystem"), P_END } },
	[NVMF_CTL_PORT_LIST] = { "port_list", "ports and the subsystems each exposes", { P_END } },
	[NVMF_CTL_CONTROLLER_LIST] = { "controller_list",
				       "connected controllers and their queues",
				       { P_NQN(false,
					       "only the controllers of this subsystem (the discovery one too)"),
					 P_END } },
	[NVMF_CTL_NAMESPACE_STATS] = { "namespace_stats",
				       "commands, bytes, errors, latency per namespace",
				       { P_NQN(false,
					       "only the namespaces of this subsystem (required with nsid)"),
					 P_NSID(false, "only this namespace"), P_END } },
	[NVMF_CTL_POLL_GROUP_STATS] = { "poll_group_stats",
					"passes, sleeps, messages per poll group",
					{ P_END } },
	[NVMF_CTL_NAMESPACE_ADD] = { "namespace_add",
				     "add namespaces (all or none)",
				     { P_SUBSYS,
				       { "namespace", NVMF_RPC_OBJECT, false, 0, 0,
					 "an object as in the config file's \"namespaces\"",
					 "one namespace, as in the config file (give it or namespaces)",
					 NULL },
				       { "namespaces", NVMF_RPC_ARRAY, false, 0, 0,
					 "a non-empty array of namespace objects",
					 "several namespaces, added all or none (give it or namespace)",
					 NULL },
				       P_END } },
	[NVMF_CTL_NAMESPACE_REMOVE] = { "namespace_remove",
					"remove a namespace",
					{ P_SUBSYS, P_NSID(true, "the namespace"), P_FORCE_DISCARD,
					  P_END } },
	[NVMF_CTL_NAMESPACE_ENABLE] = { "namespace_enable",
					"expose a disabled namespace",
					{ P_SUBSYS, P_NSID(true, "the namespace"), P_END } },
	[NVMF_CTL_NAMESPACE_DISABLE] = { "namespace_disable",
					 "hide a namespace, keeping its config",
					 { P_SUBSYS, P_NSID(true, "the namespace"), P_FORCE_DISCARD,
					   P_END } },
	[NVMF_CTL_NAMESPACE_RESIZE] = { "namespace_resize",
					"grow or shrink a ram, null or file namespace; a "
					"bdev or nvme one takes its device's size",
					{ P_SUBSYS,
					  P_NSID(true, "the namespace"),
					  { "size_bytes", NVMF_RPC_SIZE, false, 1, INT64_MAX, NULL,
					    "the new size in bytes (\"64M\": a binary suffix K, M, G or "
					    "T); left out: the size the device has now (bdev, nvme)",
					    NULL },
					  P_END } },
	[NVMF_CTL_NAMESPACE_RESERVATION] = { "namespace_reservation",
					     "a namespace's reservation: registrants, keys, holder, type, generation, PTPL",
					     { P_SUBSYS, P_NSID(true, "the namespace"), P_END } },
	[NVMF_CTL_NAMESPACE_RESERVATION_CLEAR] = { "namespace_reservation_clear",
						   "clear a namespace's reservation and every registration (a host that is gone left them)",
						   { P_SUBSYS, P_NSID(true, "the namespace"),
						     P_END } },
	[NVMF_CTL_HOST_ADD] = { "host_add",
				"allow a host NQN on a subsystem",
				{ P_SUBSYS, P_HOST("the host's NQN"), P_END } },
	[NVMF_CTL_HOST_REMOVE] = { "host_remove",
				   "disallow a host NQN and disconnect it (unless allow_any_host is on)",
				   { P_SUBSYS, P_HOST("the host's NQN"), P_END } },
	[NVMF_CTL_HOST_DHCHAP_SET] = { "host_dhchap_set",
				       "set a host's DH-HMAC-CHAP keys, hash and group",
				       { P_HOST("the host's NQN"),
					 { "key", NVMF_RPC_STRING, true, 1, NVMF_CTL_SECRET_MAX,
					   NULL, "the host's secret, \"DHHC-1:NN:...:\"", NULL },
					 { "ctrl_key", NVMF_RPC_STRING, false, 1,
					   NVMF_CTL_SECRET_MAX, NULL,
					   "the controller's secret (bidirectional authentication)",
					   NULL },
					 P_CHOICE("hash", false, nvme_dhchap_hash_names,
						  "a DH-HMAC-CHAP hash",
						  "the hash (default hmac(sha256))"),
					 P_CHOICE("dhgroup", false, nvme_dhchap_dhgroup_names,
						  "a DH group",
						  "the DH group (default null: no DH exchange)"),
					 P_END } },
	[NVMF_CTL_HOST_DHCHAP_CLEAR] = { "host_dhchap_clear",
					 "remove a host's DH-HMAC-CHAP keys",
					 { P_HOST("the host's NQN"), P_END } },
	[NVMF_CTL_HOST_TLS_KEY_SET] = { "host_tls_key_set",
					"set a host's TLS PSK from a key file the target reads",
					{ P_HOST("the host's NQN"),
					  { "key_file", NVMF_RPC_STRING, true, 1, 4095, NULL,
					    "absolute path of a 0600 file holding the key "
					    "(\"NVMeTLSkey-1:01:...:\")",
					    NULL },
					  { "compat", NVMF_RPC_BOOL, false, 0, 0, NULL,
					    "true: the host's key was inserted by nvme-cli 2.15 or "
					    "older (libnvme's compat derivation) for its version 0 "
					    "identities (default false: RFC 8446)",
					    NULL },
					  P_END } },
	[NVMF_CTL_HOST_TLS_KEY_CLEAR] = { "host_tls_key_clear",
					  "remove a host's TLS PSK",
					  { P_HOST("the host's NQN"), P_END } },
	[NVMF_CTL_SUBSYSTEM_ALLOW_ANY_HOST] = { "subsystem_allow_any_host",
						"allow_any_host on or off",
						{ P_SUBSYS,
						  { "allow", NVMF_RPC_BOOL, true, 0, 0, NULL,
						    "true: any host may connect; false: only the allowed hosts",
						    NULL },
						  P_END } },
	[NVMF_CTL_CONTROLLER_DISCONNECT] = { "controller_disconnect",
					     "tear a controller down",
					     { P_SUBSYS,
					       { "cntlid", NVMF_RPC_UINT, true, 1,
						 NVMF_CTL_CNTLID_MAX, NULL,
						 "the controller's ID", NULL },
					       P_END } },
	[NVMF_CTL_SUBSYSTEM_ADD] = { "subsystem_add",
				     "serve a subsystem (a config file's subsystem object)",
				     { { "subsystem", NVMF_RPC_OBJECT, true, 0, 0,
					 "an object as in the config file's \"subsystems\"",
					 "the subsystem, as in the config file", NULL },
				       P_END } },
	[NVMF_CTL_SUBSYSTEM_REMOVE] = { "subsystem_remove",
					"stop serving a subsystem",
					{ P_SUBSYS, P_END } },
	[NVMF_CTL_PORT_ADD] = { "port_add",
				"listen on a port (a config file's port object)",
				{ { "port", NVMF_RPC_OBJECT, true, 0, 0,
				    "an object as in the config file's \"ports\"",
				    "the port, as in the config file", NULL },
				  P_END } },
	[NVMF_CTL_PORT_REMOVE] = { "port_remove",
				   "stop listening on a port",
				   { P_PORTID(true, "the port"), P_END } },
	[NVMF_CTL_PORT_LINK] = { "port_link",
				 "expose a subsystem on a port",
				 { P_PORTID(true, "the port"), P_SUBSYS, P_END } },
	[NVMF_CTL_PORT_UNLINK] = { "port_unlink",
				   "stop exposing a subsystem on a port",
				   { P_PORTID(true, "the port"), P_SUBSYS, P_END } },
	[NVMF_CTL_ANA_STATE_SET] = { "ana_state_set",
				     "set an ANA group's state on a port",
				     { P_PORTID(true, "the port"), P_GRPID("the ANA group"),
				       P_CHOICE("state", true, nvme_ana_state_names, "an ANA state",
						"the group's state on the port from now on"),
				       P_END } },
	[NVMF_CTL_ANA_STATE_LIST] = { "ana_state_list",
				      "ANA groups, their states per port, their namespaces",
				      { P_PORTID(false, "only this port"), P_END } },
	[NVMF_CTL_NAMESPACE_ANA_GROUP_SET] = { "namespace_ana_group_set",
					       "move a namespace to another ANA group",
					       { P_SUBSYS, P_NSID(true, "the namespace"),
						 P_GRPID("the ANA group (defined on some port)"),
						 P_END } },
	[NVMF_CTL_CONFIG_GET] = { "config_get", "the running configuration", { P_END } },
	[NVMF_CTL_CONFIG_SAVE] = { "config_save",
				   "write the running configuration to a file",
				   { { "path", NVMF_RPC_STRING, false, 1, NVMF_CTL_PATH_MAX, NULL,
				       "an absolute path (default: the file the target was started from)",
				       NULL },
				     P_END } },
	[NVMF_CTL_CONFIG_RELOAD] = { "config_reload",
				     "apply what the config file says now (as SIGHUP)",
				     { { "force", NVMF_RPC_BOOL, false, 0, 0, NULL,
					 "also when live changes are not saved to the file (they are undone), and when it closes a namespace whose backing file was deleted (its data is lost)",
					 NULL },
				       P_END } },
	[NVMF_CTL_LOG_LEVEL_GET] = { "log_level_get",
				     "the log level of one component, or of each and the level they share (or mixed)",
				     { P_CHOICE("component", false, nvmf_log_component_names,
						"a log component",
						"only this component (default: every one)"),
				       P_END } },
	[NVMF_CTL_LOG_LEVEL_SET] = { "log_level_set",
				     "set the log level of one component, or of all",
				     { P_CHOICE("level", true, nvmf_log_level_names, "a log level",
						"the level: lines up to it are written"),
				       P_CHOICE("component", false, nvmf_log_component_names,
						"a log component",
						"only this component (default: all)"),
				       P_END } },
	[NVMF_CTL_GATEWAY_STATUS] = { "gateway_status",
				      "the gateway group: this gateway, the cluster, each shared ANA group's holder and state",
				      { P_END } },
	[NVMF_CTL_METHOD_COUNT] = { NULL, NULL, { P_END } },
};

const struct nvmf_rpc_schema *nvmf_ctl_schema_find(const char *name)
{
	for (const struct nvmf_rpc_schema *s = nvmf_ctl_schema; s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

const struct nvmf_rpc_param *nvmf_rpc_schema_param(const struct nvmf_rpc_schema *s,
						   const char *name)
{
	for (const struct nvmf_rpc_param *p = s->params; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

const char *nvmf_rpc_type_name(const json_t *v)
{
	if (!v)
		return "nothing";
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number with a fraction";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "?";
}

/* What @p is, in the words of messages. */
static const char *kind(const struct nvmf_rpc_param *p)
{
	if (p->kind)
		return p->kind;
	switch (p->type) {
	case NVMF_RPC_STRING:
		return "a string";
	case NVMF_RPC_UINT:
		return "an integer";
	case NVMF_RPC_BOOL:
		return "true or false";
	case NVMF_RPC_SIZE:
		return "an integer, or a string like \"64M\"";
	case NVMF_RPC_OBJECT:
		return "an object";
	case NVMF_RPC_ARRAY:
		return "an array";
	}
	return "?";
}

static bool fail(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return false;
}

/* A string parameter with a choice list: @v (a string) is one of them, whole (no NUL
 * inside). The value is quoted (cut to 40 bytes) unless it holds a secret: a key pasted
 * into the wrong parameter must not reach a message, a log or a terminal. */
static bool choice_check(const struct nvmf_rpc_param *p, const json_t *v, char *msg, size_t len)
{
	const char *s = json_string_value(v);
	if (json_string_length(v) == strlen(s) && nvmf_choice_index(p->choices, s) >= 0)
		return true;
	char names[160], quoted[48];
	if (nvmf_text_has_secret(s))
		snprintf(quoted, sizeof(quoted), "a secret (not shown)");
	else
		snprintf(quoted, sizeof(quoted), "\"%.40s\"", s);
	return fail(msg, len, "parameter '%s': %s is not %s (%s)", p->name, quoted,
		    p->kind ? p->kind : "one of",
		    nvmf_choice_text(p->choices, names, sizeof(names)));
}

bool nvmf_rpc_param_check(const struct nvmf_rpc_param *p, const json_t *v, char *msg, size_t len)
{
	if (!v)
		return !p->required ||
		       fail(msg, len, "missing parameter '%s' (%s)", p->name, kind(p));
	bool typed;
	switch (p->type) {
	case NVMF_RPC_STRING:
		typed = json_is_string(v);
		break;
	case NVMF_RPC_UINT:
		typed = json_is_integer(v);
		break;
	case NVMF_RPC_BOOL:
		typed = json_is_boolean(v);
		break;
	case NVMF_RPC_SIZE:
		typed = json_is_integer(v) || json_is_string(v);
		break;
	case NVMF_RPC_OBJECT:
		typed = json_is_object(v);
		break;
	case NVMF_RPC_ARRAY:
		typed = json_is_array(v) && json_array_size(v);
		break;
	default:
		typed = false;
		break;
	}
	if (!typed)
		return fail(msg, len, "parameter '%s': expected %s, got %s", p->name, kind(p),
			    nvmf_rpc_type_name(v));
	if (json_is_string(v) && p->type == NVMF_RPC_STRING) {
		size_t n = json_string_length(v);
		if (!n)
			return fail(msg, len, "parameter '%s': empty", p->name);
		if (p->choices)
			return choice_check(p, v, msg, len);
		if (n > p->max)
			return fail(msg, len, "parameter '%s': %zu bytes, longer than %" PRIu64,
				    p->name, n, p->max);
	}
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		if (i < 0 || (uint64_t)i < p->min || (uint64_t)i > p->max)
			return fail(msg, len,
				    "parameter '%s': %" JSON_INTEGER_FORMAT
				    " is out of range [%" PRIu64 ", %" PRIu64 "]",
				    p->name, i, p->min, p->max);
	}
	return true;
}

bool nvmf_rpc_schema_check(const struct nvmf_rpc_schema *s, const json_t *params, char *msg,
			   size_t len)
{
	const char *key;
	json_t *v;
	/* json_object_foreach takes a non-const object; it is only read here. */
	json_object_foreach((json_t *)params, key, v) {
		if (nvmf_rpc_schema_param(s, key))
			continue;
		char list[160] = "";
		size_t off = 0;
		for (const struct nvmf_rpc_param *p = s->params; p->name && off < sizeof(list); p++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						p == s->params ? "" : ", ", p->name);
		return fail(msg, len, "unknown parameter '%s' (%s takes: %s)", key, s->name,
			    s->params[0].name ? list : "no parameters");
	}
	for (const struct nvmf_rpc_param *p = s->params; p->name; p++)
		if (!nvmf_rpc_param_check(p, json_object_get(params, p->name), msg, len))
			return false;
	return true;
}

char *nvmf_rpc_param_text(const struct nvmf_rpc_param *p, char *buf, size_t len)
{
	char range[64] = "", names[160];
	if (p->choices) {
		snprintf(buf, len, "%s: %s (%s), %s", p->name, kind(p),
			 nvmf_choice_text(p->choices, names, sizeof(names)),
			 p->required ? "required" : "optional");
		return buf;
	}
	if (p->type == NVMF_RPC_STRING)
		snprintf(range, sizeof(range), ", 1 to %" PRIu64 " bytes", p->max);
	else if (p->type == NVMF_RPC_UINT || p->type == NVMF_RPC_SIZE)
		snprintf(range, sizeof(range), ", %" PRIu64 " to %" PRIu64, p->min, p->max);
	snprintf(buf, len, "%s: %s%s, %s", p->name, kind(p), range,
		 p->required ? "required" : "optional");
	return buf;
}
