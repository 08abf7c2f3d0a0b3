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
#include "target/core.h"

const struct nvmf_rpc_method nvmf_ctl_methods[] = {
	{ "version", nvmf_ctl_version, "program name and version" },
	{ "subsystem_list", nvmf_ctl_subsystem_list, "subsystems with namespaces, hosts and ports" },
	{ "port_list", nvmf_ctl_port_list, "ports and the subsystems each exposes" },
	{ "controller_list", nvmf_ctl_controller_list, "connected controllers and their queues" },
	{ "namespace_stats", nvmf_ctl_namespace_stats, "commands, bytes, errors, latency per namespace" },
	{ "poll_group_stats", nvmf_ctl_poll_group_stats, "passes, sleeps, messages per poll group" },
	{ "namespace_add", nvmf_ctl_namespace_add, "add namespaces (all or none)" },
	{ "namespace_remove", nvmf_ctl_namespace_remove, "remove a namespace" },
	{ "namespace_enable", nvmf_ctl_namespace_enable, "expose a disabled namespace" },
	{ "namespace_disable", nvmf_ctl_namespace_disable, "hide a namespace, keeping its config" },
	{ "namespace_resize", nvmf_ctl_namespace_resize, "grow or shrink a ram, null or file namespace" },
	{ "namespace_reservation", nvmf_ctl_namespace_reservation,
	  "a namespace's reservation: registrants, keys, holder, type, generation, PTPL" },
	{ "host_add", nvmf_ctl_host_add, "allow a host NQN on a subsystem" },
	{ "host_remove", nvmf_ctl_host_remove, "disallow a host NQN and disconnect it" },
	{ "host_dhchap_set", nvmf_ctl_host_dhchap_set, "set a host's DH-HMAC-CHAP keys, hash and group" },
	{ "host_dhchap_clear", nvmf_ctl_host_dhchap_clear, "remove a host's DH-HMAC-CHAP keys" },
	{ "subsystem_allow_any_host", nvmf_ctl_allow_any_host, "allow_any_host on or off" },
	{ "controller_disconnect", nvmf_ctl_controller_disconnect, "tear a controller down" },
	{ "subsystem_add", nvmf_ctl_subsystem_add, "serve a subsystem (a config file's subsystem object)" },
	{ "subsystem_remove", nvmf_ctl_subsystem_remove, "stop serving a subsystem" },
	{ "port_add", nvmf_ctl_port_add, "listen on a port (a config file's port object)" },
	{ "port_remove", nvmf_ctl_port_remove, "stop listening on a port" },
	{ "port_link", nvmf_ctl_port_link, "expose a subsystem on a port" },
	{ "port_unlink", nvmf_ctl_port_unlink, "stop exposing a subsystem on a port" },
	{ "ana_state_set", nvmf_ctl_ana_state_set, "set an ANA group's state on a port" },
	{ "ana_state_list", nvmf_ctl_ana_state_list, "ANA groups, their states per port, their namespaces" },
	{ "namespace_ana_group_set", nvmf_ctl_namespace_ana_group_set, "move a namespace to another ANA group" },
	{ "config_get", nvmf_ctl_config_get, "the running configuration" },
	{ "config_save", nvmf_ctl_config_save, "write the running configuration to a file" },
	{ "config_reload", nvmf_ctl_config_reload, "apply what the config file says now (as SIGHUP)" },
	{ "log_level_get", nvmf_ctl_log_level_get, "the log level" },
	{ "log_level_set", nvmf_ctl_log_level_set, "set the log level: error, warning, info, debug" },
	{ NULL, NULL, NULL },
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
	pthread_mutex_init(&ctl->lock, NULL);
	pthread_cond_init(&ctl->cond, NULL);
	if (nvmf_rpc_server_start(&ctl->srv, path, nvmf_ctl_methods, ctl, run_on_main, ctl,
				  err, errlen)) {
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
	ctl->tgt = NULL;
}

struct nvmf_subsys *nvmf_ctl_subsys_param(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call,
					  bool required)
{
	const char *nqn = NULL;
	if (!nvmf_rpc_param_str(call, "nqn", required, NVMF_CFG_NQN_MAX - 1, &nqn) || !nqn)
		return NULL;
	struct nvmf_subsys *s = nvmf_tgt_find_subsys(ctl->tgt, nqn);
	if (!s || s->type != NVMF_SUBSYS_NVME) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "parameter 'nqn': no subsystem %s%s", nqn,
			       s ? " (that is the discovery subsystem)" : "");
		return NULL;
	}
	return s;
}
