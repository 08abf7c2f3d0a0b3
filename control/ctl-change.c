/* SPDX-License-Identifier: MIT */
/*
 * Control methods that change the target (docs/operating.md): namespaces, allowed hosts,
 * controllers. On the main group. Each checks everything before it changes anything,
 * so a call that fails leaves the target as it was; what hosts must learn of a change
 * (namespace notices, the discovery log) is sent by the functions doing it.
 */
#define NVMF_LOG_COMPONENT NVMF_LOGC_CONTROL /* target/log.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "target/ana.h"
#include "target/auth.h"
#include "control/control.h"
#include "target/core.h"
#include "target/model.h"
#include "target/log.h"
#include "target/namespace.h"
#include "util/size.h"

/* An errno of target/namespace.c as the call's error code. */
static int code_of(int rc)
{
	switch (rc) {
	case -ENOENT:
		return NVMF_RPC_NOT_FOUND;
	case -EEXIST:
		return NVMF_RPC_EXISTS;
	case -EINVAL:
		return NVMF_RPC_INVALID_PARAMS;
	case -ENOMEM:
		return NVMF_RPC_INTERNAL_ERROR;
	default:
		return NVMF_RPC_REFUSED;
	}
}

/* The required "nsid": its range (1 to NVMF_CTL_NSID_MAX) was checked by the dispatcher
 * from the method's description (control/schema.c). */
static uint32_t param_nsid(const struct nvmf_rpc_call *call)
{
	return (uint32_t)nvmf_rpc_uint(call, "nsid", 0);
}

/* ---- namespaces ---- */

/* What the log warns of when namespace @nsid of @s opened (a thin file beyond its free
 * space, RAM beyond the machine's memory), appended to @warns for the caller too. */
static void space_warning(const struct nvmf_subsys *s, uint32_t nsid, json_t *warns)
{
	char msg[640];
	const struct nvmf_ns *ns = nvmf_subsys_ns(s, nsid);
	if (ns && warns && nvmf_tgt_ns_space_warning(s, ns, msg, sizeof(msg)))
		json_array_append_new(warns, json_string(msg));
}

/* @warns as the result's "warnings" (one line each) when there are any; taken. */
static void add_warnings(json_t *res, json_t *warns)
{
	if (res && json_array_size(warns))
		json_object_set(res, "warnings", warns);
	json_decref(warns);
}

/* One namespace object into @nc; "nsid" may be left out (0: the lowest free one). */
static bool parse_one_ns(struct nvmf_rpc_call *call, json_t *obj, const char *base,
			 struct nvmf_ns_config *nc)
{
	char err[512];
	json_t *o = json_is_object(obj) ? json_deep_copy(obj) : json_incref(obj);
	bool any_nsid = json_is_object(o) && !json_object_get(o, "nsid");
	if (any_nsid)
		json_object_set_new(o, "nsid", json_integer(1)); /* the parser wants one */
	int rc = nvmf_config_parse_ns(o, base, nc, err, sizeof(err));
	json_decref(o);
	if (rc)
		return nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS, "%s", err);
	if (any_nsid)
		nc->nsid = 0;
	return true;
}

void nvmf_ctl_namespace_add(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s)
		return;
	json_t *one = json_object_get(call->params, "namespace");
	json_t *many = json_object_get(call->params, "namespaces");
	if (!one == !many) {
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
			       "parameter 'namespace': give either \"namespace\" "
			       "(an object) or \"namespaces\" (an array of them)");
		return;
	}
	size_t n = one ? 1 : json_array_size(many);
	struct nvmf_ns_config *ncs = calloc(n, sizeof(*ncs));
	uint32_t *nsids = calloc(n, sizeof(*nsids));
	size_t parsed = 0;
	if (!ncs || !nsids) {
		nvmf_rpc_error(call, NVMF_RPC_INTERNAL_ERROR, "out of memory");
		goto out;
	}
	for (; parsed < n; parsed++) {
		char base[48];
		snprintf(base, sizeof(base), one ? "namespace" : "namespaces[%zu]", parsed);
		if (!parse_one_ns(call, one ? one : json_array_get(many, parsed), base,
				  &ncs[parsed]))
			goto out;
	}
	char err[768];
	/* The loader's rule: a namespace in a group no port defines is reachable nowhere. */
	long bad = nvmf_tgt_ana_undefined(ctl->tgt, ncs, n);
	if (bad >= 0) {
		char base[48];
		snprintf(base, sizeof(base), one ? "namespace" : "namespaces[%ld]", bad);
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
			       "%s.ana_grpid: ANA group %u is defined on no "
			       "port (ana_state_set defines it on one)",
			       base, nvmf_ns_config_anagrpid(&ncs[bad]));
		goto out;
	}
	int rc = nvmf_tgt_ns_add(ctl->tgt, s, ncs, n, nsids, err, sizeof(err));
	if (rc) {
		/* "namespaces[1] (nsid 6): ..." names the entry; a single one is "namespace". */
		const char *msg = one && !strncmp(err, "namespaces[0]", 13) ? err + 13 : err;
		nvmf_rpc_error(call, code_of(rc), "%s%s", one ? "namespace" : "",
			       msg); /* "namespace: nsid 1 is in use ..." */
		goto out;
	}
	json_t *ids = json_array(), *warns = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(ids, json_integer(nsids[i]));
		nvmf_log(ctl->tgt, NVMF_LOG_INFO, "subsystem %s: namespace %u added%s", s->cfg->nqn,
			 nsids[i], ncs[i].enable ? "" : " (disabled)");
		space_warning(s, nsids[i], warns);
	}
	json_t *res = json_pack("{s:o}", "nsids", ids);
	add_warnings(res, warns);
	nvmf_rpc_result(call, res);
out:
	for (size_t i = 0; ncs && i < parsed; i++)
		nvmf_config_ns_free(&ncs[i]);
	free(ncs);
	free(nsids);
}

void nvmf_ctl_namespace_remove(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s)
		return;
	uint32_t nsid = param_nsid(call);
	char err[768];
	int rc = nvmf_rpc_bool(call, "force", false) ?
			 0 :
			 nvmf_tgt_ns_check_discard(ctl->tgt, s, nsid, err, sizeof(err));
	if (!rc)
		rc = nvmf_tgt_ns_remove(ctl->tgt, s, nsid, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "parameter 'nsid': %s", err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO, "subsystem %s: namespace %u removed", s->cfg->nqn, nsid);
	nvmf_rpc_result(call, json_pack("{s:I}", "nsid", (json_int_t)nsid));
}

static void namespace_set(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call, bool enable)
{
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s)
		return;
	uint32_t nsid = param_nsid(call);
	char err[768];
	int rc = enable || nvmf_rpc_bool(call, "force", false) ?
			 0 :
			 nvmf_tgt_ns_check_discard(ctl->tgt, s, nsid, err, sizeof(err));
	if (!rc)
		rc = nvmf_tgt_ns_enable(ctl->tgt, s, nsid, enable, err, sizeof(err));
	if (rc < 0) {
		nvmf_rpc_error(call, code_of(rc), "parameter 'nsid': %s", err);
		return;
	}
	if (rc)
		nvmf_log(ctl->tgt, NVMF_LOG_INFO, "subsystem %s: namespace %u %s", s->cfg->nqn,
			 nsid, enable ? "enabled" : "disabled");
	json_t *res = json_pack("{s:b}", "changed", rc > 0), *warns = json_array();
	if (rc > 0 && enable)
		space_warning(s, nsid, warns);
	add_warnings(res, warns);
	nvmf_rpc_result(call, res);
}

void nvmf_ctl_namespace_enable(void *ctx, struct nvmf_rpc_call *call)
{
	namespace_set(ctx, call, true);
}

void nvmf_ctl_namespace_disable(void *ctx, struct nvmf_rpc_call *call)
{
	namespace_set(ctx, call, false);
}

/* "size_bytes": an integer (its range checked by the description), or a string like "64M". */
static bool need_size(struct nvmf_rpc_call *call, uint64_t *out)
{
	json_t *v = json_object_get(call->params, "size_bytes");
	if (json_is_string(v)) {
		if (nvmf_size_parse(json_string_value(v), out))
			return nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
					      "parameter 'size_bytes': \"%s\" is not a size "
					      "(" NVMF_SIZE_GRAMMAR ")",
					      json_string_value(v));
		return true;
	}
	*out = nvmf_rpc_uint(call, "size_bytes", 0);
	return true;
}

/* Without "size_bytes" a bdev or nvme namespace takes its device's size now (the target
 * logs a change); the answer gives the size either way. */
void nvmf_ctl_namespace_resize(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	uint64_t bytes = 0; /* set unless need_size fails (then unused); 0: the device's */
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s || !need_size(call, &bytes))
		return;
	uint32_t nsid = param_nsid(call);
	char err[768];
	int rc = nvmf_tgt_ns_resize(ctl->tgt, s, nsid, bytes, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "parameter '%s': %s",
			       rc == -ENOENT || rc == -ENODEV || rc == -EPERM ? "nsid" :
										"size_bytes",
			       err);
		return;
	}
	if (bytes)
		nvmf_log(ctl->tgt, NVMF_LOG_INFO,
			 "subsystem %s: namespace %u resized to %llu bytes", s->cfg->nqn, nsid,
			 (unsigned long long)bytes);
	else
		bytes = __atomic_load_n(&s->ns[nsid]->bdev->size, __ATOMIC_ACQUIRE);
	nvmf_rpc_result(call, json_pack("{s:I, s:I}", "nsid", (json_int_t)nsid, "size_bytes",
					(json_int_t)bytes));
}

/* ---- hosts and controllers ---- */

static bool need_host(struct nvmf_rpc_call *call, const char **host)
{
	char err[256];
	*host = nvmf_rpc_str(call, "host");
	if (nvmf_config_check_nqn("host", *host, err, sizeof(err)))
		return nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS, "%s", err);
	return true;
}

void nvmf_ctl_host_add(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *host;
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s || !need_host(call, &host))
		return;
	char err[512];
	int rc = nvmf_tgt_host_add(ctl->tgt, s, host, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "parameter 'host': %s", err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO, "subsystem %s: host %s allowed", s->cfg->nqn, host);
	if (s->cfg->allow_any_host)
		nvmf_log(ctl->tgt, NVMF_LOG_WARNING,
			 "subsystem %s: allow_any_host is on, so any host "
			 "may connect; the allowed hosts apply once it is turned off",
			 s->cfg->nqn);
	nvmf_rpc_result(call, json_object());
}

void nvmf_ctl_host_remove(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *host;
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s || !need_host(call, &host))
		return;
	char err[512];
	unsigned dropped = 0;
	int rc = nvmf_tgt_host_remove(ctl->tgt, s, host, &dropped, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "parameter 'host': %s", err);
		return;
	}
	if (!s->cfg->allow_any_host) {
		nvmf_log(ctl->tgt, NVMF_LOG_INFO,
			 "subsystem %s: host %s removed (%u controllers "
			 "disconnected)",
			 s->cfg->nqn, host, dropped);
		nvmf_rpc_result(call, json_pack("{s:I}", "disconnected", (json_int_t)dropped));
		return;
	}
	/* As nvmet: with allow_any_host on, the list is not what admits the host. Its
	 * controllers stay, and it may connect again: the answer says so. */
	unsigned live = 0;
	for (const struct nvmf_tgt_ctrl *c = ctl->tgt->ctrls; c; c = c->next)
		live += c->subsys == s && !c->deleting && !strcmp(c->hostnqn, host);
	nvmf_log(ctl->tgt, NVMF_LOG_WARNING,
		 "subsystem %s: host %s removed from the allowed hosts, but allow_any_host is "
		 "on: it may still connect, and its %u controllers stay connected",
		 s->cfg->nqn, host, live);
	nvmf_rpc_result(call, json_pack("{s:I, s:b, s:I}", "disconnected", (json_int_t)dropped,
					"still_admitted", true, "connected", (json_int_t)live));
}

/* The result of a key change for @host: {} and, when no subsystem admits the host (keys
 * for it protect nothing: a mistyped NQN, most likely), a warning logged and listed in
 * "warnings". */
static json_t *unadmitted_warning(struct nvmf_ctl *ctl, const char *host)
{
	json_t *res = json_object();
	if (res && !nvmf_tgt_host_admitted(ctl->tgt, host)) {
		char warn[400];
		snprintf(
			warn, sizeof(warn),
			"host %s: no subsystem admits it (none lists it in allowed_hosts or has "
			"allow_any_host on): is the NQN mistyped? (host add NQN HOSTNQN allows it)",
			host);
		nvmf_log_at(ctl->tgt, NVMF_LOGC_AUTH, NVMF_LOG_WARNING, "%s", warn);
		json_object_set_new(res, "warnings", json_pack("[s]", warn));
	}
	return res;
}

/* DH-HMAC-CHAP settings of a host (hosts[].dhchap): the secrets travel in the request
 * over the control socket (root's) and are never logged or echoed. */
void nvmf_ctl_host_dhchap_set(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *host, *key = nvmf_rpc_str(call, "key"),
			  *ctrl_key = nvmf_rpc_str(call, "ctrl_key");
	const char *hash = nvmf_rpc_str(call, "hash"), *dhgroup = nvmf_rpc_str(call, "dhgroup");
	if (!need_host(call, &host))
		return;
	char err[512];
	int rc = nvmf_tgt_host_dhchap_set(ctl->tgt, host, key, ctrl_key, hash, dhgroup, err,
					  sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "host %s: %s", host, err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO,
		 "host %s: DH-HMAC-CHAP %s %s%s (used from the "
		 "next authentication)",
		 host, hash ? hash : "hmac(sha256)", dhgroup ? dhgroup : "null",
		 ctrl_key ? ", with a controller key" : "");
	nvmf_rpc_result(call, unadmitted_warning(ctl, host));
}

void nvmf_ctl_host_dhchap_clear(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *host;
	if (!need_host(call, &host))
		return;
	char err[512];
	int rc = nvmf_tgt_host_dhchap_clear(ctl->tgt, host, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "%s", err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO,
		 "host %s: DH-HMAC-CHAP key removed (new "
		 "associations connect without authentication)",
		 host);
	nvmf_rpc_result(call, json_object());
}

/* The TLS PSK of a host (hosts[].nvmf_tls_key_file, and nvmf_tls_key_compat from the
 * optional "compat"): the target reads the key file named; no secret crosses the socket. */
void nvmf_ctl_host_tls_key_set(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *host, *file = nvmf_rpc_str(call, "key_file");
	if (!need_host(call, &host))
		return;
	bool compat = nvmf_rpc_bool(call, "compat", false);
	char err[512];
	int rc = nvmf_tgt_host_tls_key_set(ctl->tgt, host, file, compat, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "host %s: %s", host, err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO,
		 "host %s: TLS PSK from %s%s (used from its next TLS connection)", host, file,
		 compat ? ", compat layout for version 0 identities" : "");
	nvmf_rpc_result(call, unadmitted_warning(ctl, host));
}

void nvmf_ctl_host_tls_key_clear(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *host;
	if (!need_host(call, &host))
		return;
	char err[512];
	int rc = nvmf_tgt_host_tls_key_clear(ctl->tgt, host, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "%s", err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO,
		 "host %s: TLS PSK removed (its next TLS connection is refused)", host);
	nvmf_rpc_result(call, json_object());
}

void nvmf_ctl_allow_any_host(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	bool allow;
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s)
		return;
	allow = nvmf_rpc_bool(call, "allow", false);
	unsigned dropped = 0;
	bool changed = nvmf_tgt_allow_any_host(ctl->tgt, s, allow, &dropped);
	if (changed)
		nvmf_log(ctl->tgt, NVMF_LOG_INFO, "subsystem %s: allow_any_host %s", s->cfg->nqn,
			 allow ? "on" : "off");
	nvmf_rpc_result(call, json_pack("{s:b, s:I}", "changed", changed, "disconnected",
					(json_int_t)dropped));
}

void nvmf_ctl_controller_disconnect(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	uint64_t cntlid = nvmf_rpc_uint(call, "cntlid", 0);
	const char *nqn = nvmf_rpc_str(call, "nqn");
	struct nvmf_tgt_ctrl *c = nvmf_tgt_ctrl_find(ctl->tgt, nqn, (uint16_t)cntlid);
	if (!c || c->deleting) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND,
			       "parameter 'cntlid': subsystem %s has no controller %llu", nqn,
			       (unsigned long long)cntlid);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO, "disconnecting controller %u of %s (host %s)", c->cntlid,
		 nqn, c->hostnqn);
	nvmf_tgt_ctrl_delete(c);
	nvmf_rpc_result(call, json_object());
}
