/* SPDX-License-Identifier: MIT */
/*
 * Control methods for Asymmetric Namespace Access (docs/multipath.md): a group's state on
 * a port, the states of every port and group, a namespace's group. On the main group; the
 * changes and the notices hosts get are target/ana.c's.
 */
#define NVMF_LOG_COMPONENT NVMF_LOGC_CONTROL /* target/log.h */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "nvme/ana-state.h"
#include "target/ana.h"
#include "control/control.h"
#include "target/core.h"
#include "target/log.h"

static int code_of(int rc)
{
	switch (rc) {
	case -ENOENT:
		return NVMF_RPC_NOT_FOUND;
	case -EINVAL:
		return NVMF_RPC_INVALID_PARAMS;
	case -ENOMEM:
		return NVMF_RPC_INTERNAL_ERROR;
	default:
		return NVMF_RPC_REFUSED;
	}
}

void nvmf_ctl_ana_state_set(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	uint64_t portid = nvmf_rpc_uint(call, "portid", 0), grpid = nvmf_rpc_uint(call, "grpid", 0);
	const char *name = nvmf_rpc_str(call, "state");
	uint8_t state = 0;
	nvme_ana_state_parse(name, &state); /* one of the names: the schema checked it */
	struct nvmf_port *p = nvmf_tgt_find_port(ctl->tgt, (uint16_t)portid);
	if (!p) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "parameter 'portid': no port %llu",
			       (unsigned long long)portid);
		return;
	}
	const struct nvmf_gateway_config *gw = &ctl->tgt->cfg->gateway;
	if (nvmf_gateway_config_manages(gw, (uint32_t)grpid)) {
		nvmf_rpc_error(call, NVMF_RPC_REFUSED,
			       "ANA group %llu is shared by gateway group %s (nvmf_gateway): its "
			       "state follows the group's locks (docs/gateway.md)",
			       (unsigned long long)grpid, gw->group);
		return;
	}
	uint8_t prev = p->ana_state[grpid];
	char err[256];
	int rc = nvmf_tgt_ana_state_set(ctl->tgt, p, (uint32_t)grpid, state, err, sizeof(err));
	if (rc < 0) {
		nvmf_rpc_error(call, code_of(rc), "%s", err);
		return;
	}
	if (rc)
		nvmf_log(ctl->tgt, NVMF_LOG_INFO, "port %u: ANA group %u %s (was %s)",
			 p->cfg->portid, (unsigned)grpid, nvme_ana_state_name(state),
			 nvme_ana_state_name(prev));
	nvmf_rpc_result(call,
			json_pack("{s:I, s:I, s:s, s:s, s:b}", "portid", (json_int_t)portid,
				  "grpid", (json_int_t)grpid, "state", nvme_ana_state_name(state),
				  "previous", nvme_ana_state_name(prev), "changed", rc > 0));
}

/* The enabled namespaces in group @g of the subsystems @p exposes. */
static json_t *group_namespaces(const struct nvmf_port *p, uint32_t g)
{
	json_t *list = json_array();
	for (size_t i = 0; list && i < p->n_subsys; i++) {
		const struct nvmf_subsys *s = p->subsys[i];
		for (uint32_t nsid = 1; nsid <= s->max_nsid; nsid++) {
			const struct nvmf_ns *ns = s->ns[nsid];
			if (ns && ns->anagrpid == g)
				json_array_append_new(list,
						      json_pack("{s:s, s:I}", "nqn", s->cfg->nqn,
								"nsid", (json_int_t)nsid));
		}
	}
	return list;
}

static json_t *port_groups(const struct nvmf_tgt *tgt, const struct nvmf_port *p,
			   const bool exists[NVMF_MAX_ANAGRPID + 1])
{
	json_t *groups = json_array();
	for (uint32_t g = 1; groups && g <= NVMF_MAX_ANAGRPID; g++)
		if (exists[g])
			json_array_append_new(
				groups,
				json_pack("{s:I, s:s, s:b, s:I, s:o}", "grpid", (json_int_t)g,
					  "state", nvme_ana_state_name(p->ana_state[g]), "defined",
					  nvmf_port_config_defines(p->cfg, g), "change_count",
					  (json_int_t)tgt->ana_grp_chgcnt[g], "namespaces",
					  group_namespaces(p, g)));
	return json_pack("{s:I, s:o}", "portid", (json_int_t)p->cfg->portid, "groups", groups);
}

void nvmf_ctl_ana_state_list(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	uint64_t portid = nvmf_rpc_uint(call, "portid", 0);
	bool only = json_object_get(call->params, "portid") != NULL;
	if (only && !nvmf_tgt_find_port(ctl->tgt, (uint16_t)portid)) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "parameter 'portid': no port %llu",
			       (unsigned long long)portid);
		return;
	}
	bool exists[NVMF_MAX_ANAGRPID + 1];
	nvmf_tgt_ana_groups(ctl->tgt, exists);
	json_t *ports = json_array();
	for (size_t i = 0; ports && i < ctl->tgt->n_ports; i++) {
		const struct nvmf_port *p = ctl->tgt->ports[i];
		if (!only || p->cfg->portid == portid)
			json_array_append_new(ports, port_groups(ctl->tgt, p, exists));
	}
	nvmf_rpc_result(call, json_pack("{s:I, s:o}", "change_count",
					(json_int_t)ctl->tgt->ana_chgcnt, "ports", ports));
}

void nvmf_ctl_namespace_ana_group_set(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	uint64_t nsid = nvmf_rpc_uint(call, "nsid", 0), grpid = nvmf_rpc_uint(call, "grpid", 0);
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (!s)
		return;
	char err[256];
	uint32_t prev = 0;
	int rc = nvmf_tgt_ns_ana_group_set(ctl->tgt, s, (uint32_t)nsid, (uint32_t)grpid, &prev, err,
					   sizeof(err));
	if (rc < 0) {
		nvmf_rpc_error(call, code_of(rc), "parameter '%s': %s",
			       rc == -ENOENT || rc == -EPERM ? "nsid" : "grpid", err);
		return;
	}
	if (rc)
		nvmf_log(ctl->tgt, NVMF_LOG_INFO,
			 "subsystem %s: namespace %u moved to ANA group %u "
			 "(was %u)",
			 s->cfg->nqn, (unsigned)nsid, (unsigned)grpid, prev);
	nvmf_rpc_result(call, json_pack("{s:I, s:I, s:I, s:b}", "nsid", (json_int_t)nsid, "grpid",
					(json_int_t)grpid, "previous", (json_int_t)prev, "changed",
					rc > 0));
}
