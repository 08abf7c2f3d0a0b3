/* SPDX-License-Identifier: MIT */
/*
 * The control method that reads a namespace's reservation (docs/operating.md,
 * namespace_reservation): registrants with their host ID, key and the host NQN and
 * controller ID of every live controller of that host, the holder, the type, the
 * generation, PTPL. On the main group, which owns the state (target/resv.h).
 */
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

void nvmf_ctl_namespace_reservation(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	uint64_t nsid = nvmf_rpc_uint(call, "nsid", 0);
	struct nvmf_subsys *s = nvmf_ctl_subsys_param(ctl, call, true);
	if (call->code)
		return;
	const struct nvmf_ns *ns = nvmf_subsys_ns(s, (uint32_t)nsid);
	if (!ns) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND,
			       "parameter 'nsid': subsystem %s has no enabled "
			       "namespace %llu",
			       s->cfg->nqn, (unsigned long long)nsid);
		return;
	}
	if (!ns->resv) { /* not an error: the answer is that there are none */
		nvmf_rpc_result(call, json_pack("{s:s, s:I, s:b}", "nqn", s->cfg->nqn, "nsid",
						(json_int_t)nsid, "enabled", 0));
		return;
	}
	nvmf_rpc_result(call, resv_json(ctl->tgt, s, ns));
}
