/* SPDX-License-Identifier: MIT */
/*
 * Control methods for subsystems and ports (docs/operating.md), and the running
 * configuration: read, saved. On the main group; the changes are target/model.c's.
 */
#define NVMF_LOG_COMPONENT NVMF_LOGC_CONTROL /* target/log.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "target/ana.h"
#include "control/control.h"
#include "target/core.h"
#include "target/ephemeral.h"
#include "target/log.h"
#include "target/model.h"
#include "target/namespace.h"
#include "control/reload.h"

static int code_of(int rc)
{
	switch (rc) {
	case -ENOENT:
		return NVMF_RPC_NOT_FOUND;
	case -EEXIST:
		return NVMF_RPC_EXISTS;
	case -ENOMEM:
		return NVMF_RPC_INTERNAL_ERROR;
	default:
		return NVMF_RPC_REFUSED;
	}
}

static struct nvmf_port *port_param(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call)
{
	uint64_t portid = nvmf_rpc_uint(call, "portid", 0);
	struct nvmf_port *p = nvmf_tgt_find_port(ctl->tgt, (uint16_t)portid);
	if (!p)
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "parameter 'portid': no port %llu",
			       (unsigned long long)portid);
	return p;
}

/* ---- subsystems ---- */

void nvmf_ctl_subsystem_add(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	json_t *obj = json_object_get(call->params, "subsystem");
	struct nvmf_subsys_config sc;
	char err[768];
	if (nvmf_config_parse_subsys(obj, "subsystem", ctl->tgt->cfg->target.discovery_nqn, &sc,
				     err, sizeof(err))) {
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS, "%s", err);
		return;
	}
	long bad = nvmf_tgt_ana_undefined(ctl->tgt, sc.ns, sc.n_ns);
	if (bad >= 0) {
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
			       "subsystem.namespaces[%ld].ana_grpid: ANA group %u "
			       "is defined on no port (ana_state_set defines it on one)",
			       bad, nvmf_ns_config_anagrpid(&sc.ns[bad]));
		nvmf_config_subsys_clear(&sc);
		return;
	}
	int rc = nvmf_tgt_subsys_add(ctl->tgt, &sc, err, sizeof(err));
	if (rc)
		nvmf_rpc_error(call, code_of(rc), "subsystem: %s", err);
	else {
		nvmf_log(ctl->tgt, NVMF_LOG_INFO, "subsystem %s added (%zu namespaces)", sc.nqn,
			 sc.n_ns);
		nvmf_rpc_result(call, json_pack("{s:s}", "nqn", sc.nqn));
	}
	nvmf_config_subsys_clear(&sc);
}

void nvmf_ctl_subsystem_remove(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s)
		return;
	char err[256], nqn[NVMF_CFG_NQN_MAX];
	snprintf(nqn, sizeof(nqn), "%s", s->cfg->nqn);
	unsigned dropped = 0;
	int rc = nvmf_tgt_subsys_remove(ctl->tgt, s, &dropped, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "parameter 'nqn': %s", err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO, "subsystem %s removed", nqn);
	nvmf_rpc_result(call, json_pack("{s:I}", "disconnected", (json_int_t)dropped));
}

/* ---- ports ---- */

void nvmf_ctl_port_add(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	json_t *obj = json_object_get(call->params, "port");
	struct nvmf_port_config pc;
	char err[768];
	if (nvmf_config_parse_port(obj, "port", &pc, err, sizeof(err))) {
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS, "%s", err);
		return;
	}
	int rc = nvmf_tgt_port_add(ctl->tgt, &pc, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "port: %s", err);
	} else {
		char a[96];
		nvmf_log(ctl->tgt, NVMF_LOG_INFO, "listening on %s %s (port %u)", pc.trtype,
			 nvmf_port_config_addr(&pc, a, sizeof(a)), pc.portid);
		/* What the log warns of, the caller sees too ("warnings": one line each). */
		json_t *res = json_pack("{s:I}", "portid", (json_int_t)pc.portid);
		char warn[512];
		if (res && nvmf_tgt_ephemeral_warning(ctl->tgt, &pc, warn, sizeof(warn)))
			json_object_set_new(res, "warnings", json_pack("[s]", warn));
		nvmf_rpc_result(call, res);
	}
	nvmf_config_port_clear(&pc);
}

void nvmf_ctl_port_remove(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	struct nvmf_port *p = port_param(ctl, call);
	if (!p)
		return;
	unsigned portid = p->cfg->portid, dropped = 0;
	char err[512];
	int rc = nvmf_tgt_ana_check_port_remove(ctl->tgt, p, err, sizeof(err));
	if (!rc)
		rc = nvmf_tgt_port_remove(ctl->tgt, p, &dropped, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "parameter 'portid': %s", err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO, "port %u removed (no longer listening)", portid);
	nvmf_rpc_result(call, json_pack("{s:I}", "disconnected", (json_int_t)dropped));
}

static void link_call(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call, bool link)
{
	struct nvmf_port *p = port_param(ctl, call);
	struct nvmf_subsys *s = p ? nvmf_ctl_subsys_param(ctl, call, true) : NULL;
	if (!s)
		return;
	char err[512];
	unsigned dropped = 0;
	int rc = link ? nvmf_tgt_port_link(ctl->tgt, p, s, err, sizeof(err)) :
			nvmf_tgt_port_unlink(ctl->tgt, p, s, &dropped, err, sizeof(err));
	if (rc) {
		nvmf_rpc_error(call, code_of(rc), "parameter 'nqn': %s", err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO, "port %u %s %s", p->cfg->portid,
		 link ? "exposes" : "no longer exposes", s->cfg->nqn);
	nvmf_rpc_result(call, link ? json_object() :
				     json_pack("{s:I}", "disconnected", (json_int_t)dropped));
}

void nvmf_ctl_port_link(void *ctx, struct nvmf_rpc_call *call)
{
	link_call(ctx, call, true);
}

void nvmf_ctl_port_unlink(void *ctx, struct nvmf_rpc_call *call)
{
	link_call(ctx, call, false);
}

/* ---- the running configuration ---- */

/* @view: the target's own config with the model's subsystems and ports (shallow copies
 * of their configs: only the two arrays are the view's). 0 or -ENOMEM. */
static int running_view(const struct nvmf_tgt *tgt, struct nvmf_config *view)
{
	*view = *tgt->cfg;
	view->subsystems = calloc(tgt->n_subsys + 1, sizeof(*view->subsystems));
	view->ports = calloc(tgt->n_ports + 1, sizeof(*view->ports));
	if (!view->subsystems || !view->ports) {
		free(view->subsystems);
		free(view->ports);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tgt->n_subsys; i++)
		view->subsystems[i] = *tgt->subsys[i]->cfg;
	for (size_t i = 0; i < tgt->n_ports; i++)
		view->ports[i] = *tgt->ports[i]->cfg;
	view->n_subsystems = tgt->n_subsys;
	view->n_ports = tgt->n_ports;
	return 0;
}

static void view_free(struct nvmf_config *view)
{
	free(view->subsystems);
	free(view->ports);
}

json_t *nvmf_ctl_running_config(const struct nvmf_tgt *tgt)
{
	struct nvmf_config view;
	if (running_view(tgt, &view))
		return NULL;
	json_t *j = nvmf_config_to_json(&view);
	view_free(&view);
	/* Secrets stay in the file (config_save): the socket shows only that they are set. */
	json_t *h;
	size_t i;
	json_array_foreach(json_object_get(j, "hosts"), i, h) {
		json_t *d = json_object_get(h, "dhchap");
		if (d) {
			json_object_set_new(d, "key", json_string("(secret)"));
			if (*json_string_value(json_object_get(d, "ctrl_key")))
				json_object_set_new(d, "ctrl_key", json_string("(secret)"));
		}
		if (json_object_get(h, "nvmf_tls_key"))
			json_object_set_new(h, "nvmf_tls_key", json_string("(secret)"));
	}
	return j;
}

void nvmf_ctl_config_get(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	nvmf_rpc_result(call, nvmf_ctl_running_config(ctl->tgt));
}

int nvmf_ctl_save(struct nvmf_ctl *ctl, const char *path, json_t *warnings, char *err,
		  size_t errlen)
{
	struct nvmf_config view;
	/* Saved anyway, said loudly: the file keeps every other change, and a start from it
	 * refuses the missing file by name rather than serving zeroes. */
	if (nvmf_tgt_ns_check_unlinked(ctl->tgt))
		for (size_t i = 0; i < ctl->tgt->n_subsys; i++) {
			const struct nvmf_subsys *s = ctl->tgt->subsys[i];
			for (uint32_t n = 1; n <= s->max_nsid; n++) {
				if (!s->ns[n] || !s->ns[n]->unlinked)
					continue;
				char w[1024];
				snprintf(w, sizeof(w),
					 "subsystem %s, namespace %u: its backing file %s was "
					 "deleted while served; %s names it anyway, and a start "
					 "from it refuses the namespace until the file is restored",
					 s->cfg->nqn, n, s->ns[n]->real_path, path);
				nvmf_log(ctl->tgt, NVMF_LOG_WARNING, "%s", w);
				if (warnings)
					json_array_append_new(warnings, json_string(w));
			}
		}
	if (running_view(ctl->tgt, &view)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = nvmf_config_save(&view, path, err, errlen);
	view_free(&view);
	if (rc)
		return rc;
	if (ctl->config_path && !strcmp(path, ctl->config_path)) {
		json_array_clear(ctl->unsaved); /* the file has every live change now */
		nvmf_ctl_stamp(ctl);
	}
	return 0;
}

void nvmf_ctl_config_save(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *path = nvmf_rpc_str(call, "path");
	if (!path)
		path = ctl->config_path;
	if (!path) {
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
			       "missing parameter 'path' (the target was "
			       "not started from a file)");
		return;
	}
	if (path[0] != '/') {
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
			       "parameter 'path': \"%s\" is not an absolute path", path);
		return;
	}
	char err[512];
	json_t *warnings = json_array();
	int rc = nvmf_ctl_save(ctl, path, warnings, err, sizeof(err));
	if (rc) {
		json_decref(warnings);
		nvmf_rpc_error(call, rc == -ENOMEM ? NVMF_RPC_INTERNAL_ERROR : NVMF_RPC_REFUSED,
			       "parameter 'path': %s", err);
		return;
	}
	nvmf_log(ctl->tgt, NVMF_LOG_INFO, "running configuration saved to %s", path);
	json_t *res = json_pack("{s:s}", "path", path);
	if (res && json_array_size(warnings))
		json_object_set(res, "warnings", warnings);
	json_decref(warnings);
	nvmf_rpc_result(call, res);
}

void nvmf_ctl_config_reload(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	json_t *changes = json_array();
	char err[2048] = "";
	int rc = nvmf_ctl_reload(ctl, changes, nvmf_rpc_bool(call, "force", false), err,
				 sizeof(err));
	if (rc) {
		json_decref(changes);
		/* Logged as a refused SIGHUP is: whoever reads the log sees the file was not
		 * applied, not only the client that asked. */
		nvmf_log(ctl->tgt, NVMF_LOG_ERROR,
			 "reload (control socket): %s (nothing was changed)", err);
		nvmf_rpc_error(call, rc == -EINVAL ? NVMF_RPC_INVALID_PARAMS : NVMF_RPC_REFUSED,
			       "%s (nothing was changed)", err);
		return;
	}
	nvmf_rpc_result(call, json_pack("{s:o}", "changes", changes));
}
