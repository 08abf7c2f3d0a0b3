/* SPDX-License-Identifier: MIT */
/*
 * The control socket wired to the target (see control.h): each call is handed to the
 * main poll group by message and the socket's thread waits for it to have run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control/control.h"
#include "target/auth.h"
#include "target/core.h"
#include "subsystem/subsystem.h"

/* The public limits of the methods' descriptions are the target's own. */
_Static_assert(NVMF_CTL_NQN_MAX == NVMF_CFG_NQN_MAX - 1, "NQN length");
_Static_assert(NVMF_CTL_NSID_MAX == NVMF_SUBSYS_MAX_NSID, "namespace IDs");
_Static_assert(NVMF_CTL_GRPID_MAX == NVMF_MAX_ANAGRPID, "ANA group IDs");
_Static_assert(NVMF_CTL_SECRET_MAX == NVMF_AUTH_MAX_SECRET, "DH-HMAC-CHAP secrets");

/* The methods that change what the target serves: after each, the change is written
 * through to the config file or counted as unsaved (nvmf_ctl_changed). */
#define PERSISTED(fn)                                                     \
	static void fn##_persisted(void *ctx, struct nvmf_rpc_call *call) \
	{                                                                 \
		fn(ctx, call);                                            \
		nvmf_ctl_changed(ctx, call);                              \
	}
PERSISTED(nvmf_ctl_namespace_add)
PERSISTED(nvmf_ctl_namespace_remove)
PERSISTED(nvmf_ctl_namespace_enable)
PERSISTED(nvmf_ctl_namespace_disable)
PERSISTED(nvmf_ctl_namespace_resize)
PERSISTED(nvmf_ctl_host_add)
PERSISTED(nvmf_ctl_host_remove)
PERSISTED(nvmf_ctl_host_dhchap_set)
PERSISTED(nvmf_ctl_host_dhchap_clear)
PERSISTED(nvmf_ctl_host_tls_key_set)
PERSISTED(nvmf_ctl_host_tls_key_clear)
PERSISTED(nvmf_ctl_allow_any_host)
PERSISTED(nvmf_ctl_subsystem_add)
PERSISTED(nvmf_ctl_subsystem_remove)
PERSISTED(nvmf_ctl_port_add)
PERSISTED(nvmf_ctl_port_remove)
PERSISTED(nvmf_ctl_port_link)
PERSISTED(nvmf_ctl_port_unlink)
PERSISTED(nvmf_ctl_ana_state_set)
PERSISTED(nvmf_ctl_namespace_ana_group_set)

/* Each method's handler, bound to its description (control/schema.c) by its index: the
 * description gives the name and checks the parameters. CHANGE: one of the above. */
#define METHOD(ID, name, fn) [NVMF_CTL_##ID] = { name, fn, &nvmf_ctl_schema[NVMF_CTL_##ID] }
#define CHANGE(ID, name, fn) METHOD(ID, name, fn##_persisted)
const struct nvmf_rpc_method nvmf_ctl_methods[NVMF_CTL_METHOD_COUNT + 1] = {
	METHOD(VERSION, "version", nvmf_ctl_version),
	METHOD(SUBSYSTEM_LIST, "subsystem_list", nvmf_ctl_subsystem_list),
	METHOD(PORT_LIST, "port_list", nvmf_ctl_port_list),
	METHOD(CONTROLLER_LIST, "controller_list", nvmf_ctl_controller_list),
	METHOD(NAMESPACE_STATS, "namespace_stats", nvmf_ctl_namespace_stats),
	METHOD(POLL_GROUP_STATS, "poll_group_stats", nvmf_ctl_poll_group_stats),
	CHANGE(NAMESPACE_ADD, "namespace_add", nvmf_ctl_namespace_add),
	CHANGE(NAMESPACE_REMOVE, "namespace_remove", nvmf_ctl_namespace_remove),
	CHANGE(NAMESPACE_ENABLE, "namespace_enable", nvmf_ctl_namespace_enable),
	CHANGE(NAMESPACE_DISABLE, "namespace_disable", nvmf_ctl_namespace_disable),
	CHANGE(NAMESPACE_RESIZE, "namespace_resize", nvmf_ctl_namespace_resize),
	METHOD(NAMESPACE_RESERVATION, "namespace_reservation", nvmf_ctl_namespace_reservation),
	METHOD(NAMESPACE_RESERVATION_CLEAR, "namespace_reservation_clear",
	       nvmf_ctl_namespace_reservation_clear),
	CHANGE(HOST_ADD, "host_add", nvmf_ctl_host_add),
	CHANGE(HOST_REMOVE, "host_remove", nvmf_ctl_host_remove),
	CHANGE(HOST_DHCHAP_SET, "host_dhchap_set", nvmf_ctl_host_dhchap_set),
	CHANGE(HOST_DHCHAP_CLEAR, "host_dhchap_clear", nvmf_ctl_host_dhchap_clear),
	CHANGE(HOST_TLS_KEY_SET, "host_tls_key_set", nvmf_ctl_host_tls_key_set),
	CHANGE(HOST_TLS_KEY_CLEAR, "host_tls_key_clear", nvmf_ctl_host_tls_key_clear),
	CHANGE(SUBSYSTEM_ALLOW_ANY_HOST, "subsystem_allow_any_host", nvmf_ctl_allow_any_host),
	METHOD(CONTROLLER_DISCONNECT, "controller_disconnect", nvmf_ctl_controller_disconnect),
	CHANGE(SUBSYSTEM_ADD, "subsystem_add", nvmf_ctl_subsystem_add),
	CHANGE(SUBSYSTEM_REMOVE, "subsystem_remove", nvmf_ctl_subsystem_remove),
	CHANGE(PORT_ADD, "port_add", nvmf_ctl_port_add),
	CHANGE(PORT_REMOVE, "port_remove", nvmf_ctl_port_remove),
	CHANGE(PORT_LINK, "port_link", nvmf_ctl_port_link),
	CHANGE(PORT_UNLINK, "port_unlink", nvmf_ctl_port_unlink),
	CHANGE(ANA_STATE_SET, "ana_state_set", nvmf_ctl_ana_state_set),
	METHOD(ANA_STATE_LIST, "ana_state_list", nvmf_ctl_ana_state_list),
	CHANGE(NAMESPACE_ANA_GROUP_SET, "namespace_ana_group_set",
	       nvmf_ctl_namespace_ana_group_set),
	METHOD(CONFIG_GET, "config_get", nvmf_ctl_config_get),
	METHOD(CONFIG_SAVE, "config_save", nvmf_ctl_config_save),
	METHOD(CONFIG_RELOAD, "config_reload", nvmf_ctl_config_reload),
	METHOD(LOG_LEVEL_GET, "log_level_get", nvmf_ctl_log_level_get),
	METHOD(LOG_LEVEL_SET, "log_level_set", nvmf_ctl_log_level_set),
	METHOD(GATEWAY_STATUS, "gateway_status", nvmf_ctl_gateway_status),
	[NVMF_CTL_METHOD_COUNT] = { NULL, NULL, NULL },
};

/* One call handed to the main group. */
struct handover {
	struct nvmf_ctl *ctl;
	void (*fn)(void *arg);
	void *arg;
	bool done;
	struct nvmf_msg msg;
};

static void on_main(void *p)
{
	struct handover *h = p;
	h->fn(h->arg);
	pthread_mutex_lock(&h->ctl->lock);
	h->done = true;
	pthread_cond_broadcast(&h->ctl->cond);
	pthread_mutex_unlock(&h->ctl->lock);
}

/* nvmf_rpc_run_fn: the socket's thread waits while the main group runs the call. */
static void run_on_main(void *run_ctx, void (*fn)(void *arg), void *arg)
{
	struct nvmf_ctl *ctl = run_ctx;
	struct handover h = { .ctl = ctl, .fn = fn, .arg = arg };
	h.msg.fn = on_main;
	h.msg.arg = &h;
	nvmf_pg_post(nvmf_tgt_main_pg(ctl->tgt), &h.msg);
	pthread_mutex_lock(&ctl->lock);
	while (!h.done)
		pthread_cond_wait(&ctl->cond, &ctl->lock);
	pthread_mutex_unlock(&ctl->lock);
}

int nvmf_ctl_start(struct nvmf_ctl *ctl, struct nvmf_tgt *tgt, const char *path,
		   const char *config_path, char *err, size_t errlen)
{
	memset(ctl, 0, sizeof(*ctl));
	/* Absolute: the daemon may change directory, and save writes beside the file. */
	if (config_path && !(ctl->config_path = realpath(config_path, NULL))) {
		snprintf(err, errlen, "%s: %s", config_path, strerror(errno));
		return -1;
	}
	ctl->tgt = tgt;
	ctl->persist = tgt->cfg->target.persist;
	nvmf_ctl_stamp(ctl);
	pthread_mutex_init(&ctl->lock, NULL);
	pthread_cond_init(&ctl->cond, NULL);
	if (nvmf_rpc_server_start(&ctl->srv, path, nvmf_ctl_methods, ctl, run_on_main, ctl, err,
				  errlen)) {
		pthread_cond_destroy(&ctl->cond);
		pthread_mutex_destroy(&ctl->lock);
		free(ctl->config_path);
		ctl->config_path = NULL;
		ctl->tgt = NULL;
		return -1;
	}
	return 0;
}

static void pump_main(void *arg)
{
	struct nvmf_ctl *ctl = arg;
	nvmf_pg_run_once(nvmf_tgt_main_pg(ctl->tgt), 10);
}

void nvmf_ctl_stop(struct nvmf_ctl *ctl)
{
	if (!ctl->tgt)
		return;
	nvmf_rpc_server_stop_pumping(&ctl->srv, pump_main, ctl);
	pthread_cond_destroy(&ctl->cond);
	pthread_mutex_destroy(&ctl->lock);
	free(ctl->config_path);
	ctl->config_path = NULL;
	json_decref(ctl->unsaved);
	ctl->unsaved = NULL;
	ctl->tgt = NULL;
}

struct nvmf_subsys *nvmf_ctl_subsys_param(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call,
					  bool required)
{
	/* Checked by the method's description; required here when the description cannot
	 * say it (namespace_stats: with nsid). */
	const char *nqn = nvmf_rpc_str(call, "nqn");
	if (!nqn) {
		if (required)
			nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
				       "missing parameter 'nqn' (a string)");
		return NULL;
	}
	struct nvmf_subsys *s = nvmf_tgt_find_subsys(ctl->tgt, nqn);
	if (!s || s->type != NVMF_SUBSYS_NVME) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "parameter 'nqn': no subsystem %s%s", nqn,
			       s ? " (that is the discovery subsystem)" : "");
		return NULL;
	}
	return s;
}
