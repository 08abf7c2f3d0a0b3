/* SPDX-License-Identifier: MIT */
/*
 * The control methods of a namespace's reservation (docs/targetctl.md):
 * namespace_reservation reads it (registrants with their host ID, key and the host NQN
 * and controller ID of every live controller of that host, the holder, the type, the
 * generation, PTPL); namespace_reservation_clear ends it and every registration, for a
 * reservation a host that is gone left behind (nvmf_resv_clear_all). On the main group,
 * which owns the state (target/resv.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "nvme/identify.h"
#include "control/control.h"
#include "target/resv.h"

/* The live controllers of @s whose host is @hostid: their host NQNs (each once) and
 * controller IDs. */
static void host_ctrls(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
		       const uint8_t hostid[16], json_t *nqns, json_t *cntlids)
{
	for (const struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next) {
		if (c->subsys != s || c->deleting || memcmp(c->hostid, hostid, 16))
			continue;
		json_array_append_new(cntlids, json_integer(c->cntlid));
		bool seen = false;
		size_t i;
		json_t *v;
		json_array_foreach(nqns, i, v)
			seen = seen || !strcmp(json_string_value(v), c->hostnqn);
		if (!seen)
			json_array_append_new(nqns, json_string(c->hostnqn));
	}
}

static json_t *resv_json(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
			 const struct nvmf_ns *ns)
{
	const struct nvme_resv_state *st = &ns->resv->st;
	char id[NVME_UUID_STR_LEN], key[24];
	json_t *regs = json_array();
	for (uint32_t i = 0; regs && i < st->nregs; i++) {
		json_t *nqns = json_array(), *cntlids = json_array();
		host_ctrls(tgt, s, st->regs[i].hostid, nqns, cntlids);
		snprintf(key, sizeof(key), "0x%016" PRIx64, st->regs[i].rkey);
		json_array_append_new(regs,
				      json_pack("{s:s, s:s, s:b, s:o, s:o}", "hostid",
						nvme_uuid_format(st->regs[i].hostid, id), "key",
						key, "holder", nvme_resv_is_holder(st, i),
						"hostnqns", nqns, "controllers", cntlids));
	}
	bool single = st->rtype && !nvme_resv_all_regs(st->rtype);
	json_t *holder = single ? json_string(nvme_uuid_format(st->regs[st->holder].hostid, id)) :
				  json_null();
	const char *file = nvmf_resv_store_path(tgt);
	return json_pack("{s:s, s:I, s:b, s:I, s:s, s:I, s:o, s:b, s:o, s:o}", "nqn", s->cfg->nqn,
			 "nsid", (json_int_t)ns->nsid, "enabled", 1, "type", (json_int_t)st->rtype,
			 "type_name", nvme_resv_type_name(st->rtype), "generation",
			 (json_int_t)st->gen, "holder", holder, "ptpl", st->ptpl, "state_file",
			 file ? json_string(file) : json_null(), "registrants", regs);
}

/* The enabled namespace the call's nqn and nsid name, or NULL after the error. */
static struct nvmf_ns *ns_param(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call,
				struct nvmf_subsys **sp)
{
	uint64_t nsid = nvmf_rpc_uint(call, "nsid", 0);
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (call->code)
		return NULL;
	struct nvmf_ns *ns = nvmf_subsys_ns(s, (uint32_t)nsid);
	if (!ns)
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND,
			       "parameter 'nsid': subsystem %s has no enabled "
			       "namespace %llu",
			       s->cfg->nqn, (unsigned long long)nsid);
	*sp = s;
	return ns;
}

void nvmf_ctl_namespace_reservation_clear(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	struct nvmf_subsys *s;
	struct nvmf_ns *ns = ns_param(ctl, call, &s);
	if (!ns)
		return;
	if (!ns->resv) {
		nvmf_rpc_error(call, NVMF_RPC_REFUSED,
			       "namespace %u of %s has no reservations (resv.enable 0): "
			       "nothing to clear",
			       ns->nsid, s->cfg->nqn);
		return;
	}
	struct nvmf_resv_cleared c;
	int rc = nvmf_resv_clear_all(ns, &c);
	if (rc) {
		nvmf_rpc_error(call, rc == -ENOMEM ? NVMF_RPC_INTERNAL_ERROR : NVMF_RPC_REFUSED,
			       "namespace %u of %s: reservation not cleared: %s%s", ns->nsid,
			       s->cfg->nqn, strerror(-rc),
			       rc == -ENOMEM ? "" : " (writing the state file; see the log)");
		return;
	}
	char id[NVME_UUID_STR_LEN];
	nvmf_rpc_result(
		call,
		json_pack("{s:s, s:I, s:b, s:I, s:s, s:o, s:I, s:I}", "nqn", s->cfg->nqn, "nsid",
			  (json_int_t)ns->nsid, "cleared", c.nregs > 0, "type", (json_int_t)c.rtype,
			  "type_name", nvme_resv_type_name(c.rtype), "holder",
			  c.single ? json_string(nvme_uuid_format(c.holder, id)) : json_null(),
			  "registrants", (json_int_t)c.nregs, "generation", (json_int_t)c.gen));
}

void nvmf_ctl_namespace_reservation(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	struct nvmf_subsys *s;
	const struct nvmf_ns *ns = ns_param(ctl, call, &s);
	if (!ns)
		return;
	uint64_t nsid = ns->nsid;
	if (!ns->resv) { /* not an error: the answer is that there are none */
		nvmf_rpc_result(call, json_pack("{s:s, s:I, s:b}", "nqn", s->cfg->nqn, "nsid",
						(json_int_t)nsid, "enabled", 0));
		return;
	}
	nvmf_rpc_result(call, resv_json(ctl->tgt, s, ns));
}
