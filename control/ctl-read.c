/* SPDX-License-Identifier: MIT */
/*
 * Control methods that read the target (docs/operating.md): the model, the controllers
 * and the counters. On the main group: the model and the controllers are its own; the
 * I/O groups' counters are read with relaxed atomic loads (each is written by one group).
 */
#define NVMF_LOG_COMPONENT NVMF_LOGC_CONTROL /* target/log.h */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "nvme/dhchap.h"
#include "nvme/identify.h"
#include "control/control.h"
#include "target/auth.h"
#include "target/core.h"
#include "target/namespace.h"
#include "target/log.h"
#include "util/version.h"

static uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

void nvmf_ctl_version(void *ctx, struct nvmf_rpc_call *call)
{
	(void)ctx;
	nvmf_rpc_result(call,
			json_pack("{s:s, s:s}", "program", "nvmf-target", "version", NVMF_VERSION));
}

static unsigned ctrl_count(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
			   const struct nvmf_port *p)
{
	unsigned n = 0;
	for (const struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next)
		if (!c->deleting && (!s || c->subsys == s) && (!p || c->port == p))
			n++;
	return n;
}

static json_t *ns_json(const struct nvmf_subsys *s, const struct nvmf_ns_config *nc)
{
	const struct nvmf_ns *ns = nc->enable ? nvmf_subsys_ns(s, nc->nsid) : NULL;
	char uuid[NVME_UUID_STR_LEN];
	json_t *j = json_pack("{s:I, s:b, s:s, s:s?, s:I}", "nsid", (json_int_t)nc->nsid, "enable",
			      ns != NULL, "backend",
			      nvmf_backend_kind_name(ns ? ns->bdev->kind : nc->kind), "path",
			      nc->path, "ana_grpid", (json_int_t)nvmf_ns_config_anagrpid(nc));
	if (!j)
		return NULL;
	if (ns) {
		json_object_set_new(j, "size_bytes",
				    json_integer((json_int_t)(nvmf_ns_nlb(ns) << ns->lba_shift)));
		json_object_set_new(j, "block_size", json_integer((json_int_t)1 << ns->lba_shift));
		json_object_set_new(j, "uuid", json_string(nvme_uuid_format(ns->uuid, uuid)));
		if (ns->bdev->kind == NVMF_BACKEND_FILE)
			json_object_set_new(j, "backing_file_unlinked", json_boolean(ns->unlinked));
	} else {
		/* Disabled: what the config says (null where it leaves it to the backend). */
		json_object_set_new(j, "size_bytes",
				    nc->size_bytes ? json_integer((json_int_t)nc->size_bytes) :
						     json_null());
		json_object_set_new(j, "block_size",
				    nc->block_size ? json_integer(nc->block_size) : json_null());
		json_object_set_new(j, "uuid",
				    nc->has_uuid ? json_string(nvme_uuid_format(nc->uuid, uuid)) :
						   json_null());
	}
	return j;
}

/* A namespace a passthru subsystem serves from its drive (no config entry: the drive's). */
static json_t *drive_ns_json(const struct nvmf_ns *ns)
{
	return json_pack("{s:I, s:b, s:s, s:s?, s:I, s:I, s:I, s:n}", "nsid", (json_int_t)ns->nsid,
			 "enable", 1, "backend", nvmf_backend_kind_name(ns->bdev->kind), "path",
			 ns->real_path, "ana_grpid", (json_int_t)ns->anagrpid, "size_bytes",
			 (json_int_t)(nvmf_ns_nlb(ns) << ns->lba_shift), "block_size",
			 (json_int_t)1 << ns->lba_shift, "uuid");
}

static json_t *subsys_json(const struct nvmf_tgt *tgt, const struct nvmf_subsys *s)
{
	const struct nvmf_subsys_config *sc = s->cfg;
	char serial[21], model[41];
	snprintf(serial, sizeof(serial), "%s", s->serial);
	snprintf(model, sizeof(model), "%s", s->model);
	for (int i = (int)strlen(serial) - 1; i >= 0 && serial[i] == ' '; i--)
		serial[i] = 0;
	for (int i = (int)strlen(model) - 1; i >= 0 && model[i] == ' '; i--)
		model[i] = 0;
	json_t *hosts = json_array(), *nss = json_array(), *ports = json_array();
	for (size_t i = 0; i < sc->n_allowed_hosts; i++)
		json_array_append_new(hosts, json_string(sc->allowed_hosts[i]));
	for (size_t i = 0; i < sc->n_ns; i++)
		json_array_append_new(nss, ns_json(s, &sc->ns[i]));
	for (uint32_t n = 1; s->drive && n <= s->max_nsid; n++)
		if (nvmf_subsys_ns(s, n))
			json_array_append_new(nss, drive_ns_json(nvmf_subsys_ns(s, n)));
	for (size_t i = 0; i < tgt->n_ports; i++)
		if (nvmf_port_has_subsys(tgt->ports[i], s))
			json_array_append_new(ports, json_integer(tgt->ports[i]->cfg->portid));
	json_t *j = json_pack("{s:s, s:b, s:o, s:s, s:s, s:o, s:o, s:I}", "nqn", sc->nqn,
			      "allow_any_host", sc->allow_any_host, "hosts", hosts, "serial",
			      serial, "model", model, "namespaces", nss, "ports", ports,
			      "controllers", (json_int_t)ctrl_count(tgt, s, NULL));
	if (j && s->drive)
		json_object_set_new(j, "passthru",
				    json_pack("{s:s}", "device", s->cfg->passthru.device_path));
	return j;
}

void nvmf_ctl_subsystem_list(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	struct nvmf_subsys *only = nvmf_ctl_subsys_param(ctl, call, false);
	if (call->code)
		return;
	nvmf_tgt_ns_check_unlinked(ctl->tgt); /* as of now, not of the last tick */
	json_t *list = json_array();
	for (size_t i = 0; i < ctl->tgt->n_subsys; i++)
		if (!only || ctl->tgt->subsys[i] == only)
			json_array_append_new(list, subsys_json(ctl->tgt, ctl->tgt->subsys[i]));
	nvmf_rpc_result(call, json_pack("{s:o}", "subsystems", list));
}

void nvmf_ctl_port_list(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	json_t *list = json_array();
	for (size_t i = 0; i < ctl->tgt->n_ports; i++) {
		const struct nvmf_port *p = ctl->tgt->ports[i];
		json_t *subs = json_array();
		for (size_t k = 0; k < p->n_subsys; k++)
			json_array_append_new(subs, json_string(p->subsys[k]->cfg->nqn));
		json_array_append_new(
			list,
			json_pack("{s:I, s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:I}", "portid",
				  (json_int_t)p->cfg->portid, "trtype", p->cfg->trtype, "adrfam",
				  p->cfg->adrfam == AF_INET6 ? "ipv6" : "ipv4", "traddr",
				  p->cfg->traddr, "trsvcid",
				  p->cfg->trsvcid[0] ? p->cfg->trsvcid : "4420", "subsystems", subs,
				  "controllers", (json_int_t)ctrl_count(ctl->tgt, NULL, p),
				  "connects", (json_int_t)p->connects, "connects_refused",
				  (json_int_t)p->connects_refused));
	}
	nvmf_rpc_result(call, json_pack("{s:o}", "ports", list));
}

/* How @sq authenticated: {"hash", "dhgroup", "bidirectional"} in the config's names, or
 * JSON null when it did not (no key, not yet, or failed). */
static json_t *auth_json(const struct nvmf_sq *sq, struct nvmf_sq_auth_info *info, bool *done)
{
	*done = nvmf_sq_auth_info(sq, info);
	if (!*done)
		return json_null();
	return json_pack("{s:s, s:s, s:b}", "hash", nvme_dhchap_hash_name(info->hash_id), "dhgroup",
			 nvme_dhchap_dhgroup_name(info->dhgroup_id), "bidirectional",
			 info->bidirectional);
}

static bool same_auth(bool a_done, const struct nvmf_sq_auth_info *a, bool b_done,
		      const struct nvmf_sq_auth_info *b)
{
	return a_done == b_done &&
	       (!a_done || (a->hash_id == b->hash_id && a->dhgroup_id == b->dhgroup_id &&
			    a->bidirectional == b->bidirectional));
}

static json_t *ctrl_json(const struct nvmf_tgt_ctrl *c)
{
	char hostid[NVME_UUID_STR_LEN], since[32];
	time_t t = (time_t)c->connected_at;
	struct nvmf_io_stats io_st;
	nvmf_tgt_ctrl_io_stats(c, &io_st);
	struct tm tm;
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	json_t *queues = json_array();
	unsigned io = 0;
	/* The controller's "auth" is its admin queue's; a queue that differs has its own. */
	struct nvmf_sq_auth_info admin = { 0 }, qi;
	bool admin_done = false, q_done;
	json_t *auth = c->sqs[0] ? auth_json(c->sqs[0], &admin, &admin_done) : json_null();
	for (unsigned q = 0; q <= c->max_qid; q++) {
		const struct nvmf_sq *sq = c->sqs[q];
		if (!sq)
			continue;
		io += q > 0;
		json_t *qa = auth_json(sq, &qi, &q_done);
		json_t *one = json_pack("{s:I, s:I, s:I}", "qid", (json_int_t)q, "size",
					(json_int_t)sq->size, "poll_group",
					(json_int_t)sq->pg->index);
		if (one && !same_auth(admin_done, &admin, q_done, &qi))
			json_object_set(one, "auth", qa);
		json_decref(qa);
		json_array_append_new(queues, one);
	}
	/* Bytes: the SMART counters are in 512-byte units. */
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:I, s:b, s:o, s:o, s:I, s:I, "
			 "s:I, s:I}",
			 "cntlid", (json_int_t)c->cntlid, "subnqn", c->subsys->cfg->nqn, "hostnqn",
			 c->hostnqn, "host_address", c->peer, "hostid",
			 nvme_uuid_format(c->hostid, hostid), "portid",
			 (json_int_t)c->port->cfg->portid, "kato_ms", (json_int_t)c->kato_ms,
			 "connected_since", since, "io_queues", (json_int_t)io, "tls",
			 c->sqs[0] && nvmf_sq_tls(c->sqs[0]), "auth", auth, "queues", queues,
			 "reads", (json_int_t)io_st.host_reads, "writes",
			 (json_int_t)io_st.host_writes, "read_bytes",
			 (json_int_t)(io_st.units_read * 512), "write_bytes",
			 (json_int_t)(io_st.units_written * 512));
}

void nvmf_ctl_controller_list(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *nqn = nvmf_rpc_str(call, "nqn");
	/* The discovery subsystem's controllers are listed too, by its NQN or with all. */
	struct nvmf_subsys *only = nqn ? nvmf_tgt_find_subsys(ctl->tgt, nqn) : NULL;
	if (nqn && !only) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "parameter 'nqn': no subsystem %s", nqn);
		return;
	}
	json_t *list = json_array();
	for (const struct nvmf_tgt_ctrl *c = ctl->tgt->ctrls; c; c = c->next)
		if (!c->deleting && (!only || c->subsys == only))
			json_array_append_new(list, ctrl_json(c));
	nvmf_rpc_result(call, json_pack("{s:o}", "controllers", list));
}

/* The upper bound (us) of the histogram bucket holding the @permille-th completion. */
static uint64_t percentile_us(const uint64_t *lat, uint64_t total, unsigned permille)
{
	if (!total)
		return 0;
	uint64_t want = (total * permille + 999) / 1000, seen = 0;
	for (unsigned b = 0; b < NVMF_LAT_BUCKETS; b++) {
		seen += lat[b];
		if (seen >= want)
			return (2ull << b) - 1;
	}
	return (2ull << (NVMF_LAT_BUCKETS - 1)) - 1;
}

static json_t *ns_stats_json(const struct nvmf_subsys *s, const struct nvmf_ns *ns)
{
	uint64_t sum[7] = { 0 }, lat[NVMF_LAT_BUCKETS] = { 0 }, total = 0;
	for (unsigned g = 0; g < ns->npgs; g++) {
		const struct nvmf_ns_pg_stats *st = &ns->stats[g];
		sum[0] += load(&st->reads);
		sum[1] += load(&st->writes);
		sum[2] += load(&st->read_bytes);
		sum[3] += load(&st->write_bytes);
		sum[4] += load(&st->other);
		sum[5] += load(&st->errors);
		sum[6] += load(&st->inflight);
		for (unsigned b = 0; b < NVMF_LAT_BUCKETS; b++) {
			uint64_t v = load(&st->lat[b]);
			lat[b] += v;
			total += v;
		}
	}
	json_t *j = json_pack(
		"{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}}", "nqn",
		s->cfg->nqn, "nsid", (json_int_t)ns->nsid, "reads", (json_int_t)sum[0], "writes",
		(json_int_t)sum[1], "read_bytes", (json_int_t)sum[2], "write_bytes",
		(json_int_t)sum[3], "other", (json_int_t)sum[4], "errors", (json_int_t)sum[5],
		"inflight", (json_int_t)sum[6], "latency_us", "p50",
		(json_int_t)percentile_us(lat, total, 500), "p90",
		(json_int_t)percentile_us(lat, total, 900), "p99",
		(json_int_t)percentile_us(lat, total, 990), "p999",
		(json_int_t)percentile_us(lat, total, 999));
	if (j && ns->bdev->kind == NVMF_BACKEND_FILE)
		json_object_set_new(j, "backing_file_unlinked", json_boolean(ns->unlinked));
	return j;
}

void nvmf_ctl_namespace_stats(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	uint64_t nsid = nvmf_rpc_uint(call, "nsid", 0);
	struct nvmf_subsys *only = nvmf_ctl_subsys_param(ctl, call, nsid != 0);
	if (call->code)
		return;
	if (only && nsid && !nvmf_subsys_ns(only, (uint32_t)nsid)) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND,
			       "parameter 'nsid': subsystem %s has no enabled namespace %llu",
			       only->cfg->nqn, (unsigned long long)nsid);
		return;
	}
	nvmf_tgt_ns_check_unlinked(ctl->tgt);
	json_t *list = json_array();
	for (size_t i = 0; i < ctl->tgt->n_subsys; i++) {
		const struct nvmf_subsys *s = ctl->tgt->subsys[i];
		if (only && s != only)
			continue;
		for (uint32_t n = 1; n <= s->max_nsid; n++) {
			const struct nvmf_ns *ns = s->ns[n];
			if (ns && ns->stats && (!nsid || n == nsid))
				json_array_append_new(list, ns_stats_json(s, ns));
		}
	}
	nvmf_rpc_result(call, json_pack("{s:o}", "namespaces", list));
}

/* Each transport's part of @pg: what it holds (queues, receives, buffers). */
static json_t *tpg_stats(const struct nvmf_pg *pg)
{
	json_t *arr = json_array();
	for (unsigned k = 0; k < pg->ntpg; k++) {
		const struct nvmf_tpg *tpg = pg->tpg[k];
		if (!tpg || !tpg->transport->ops->pg_stats)
			continue;
		struct nvmf_tpg_stats st = { 0 };
		tpg->transport->ops->pg_stats(tpg, &st);
		json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "name",
						     tpg->transport->ops->name, "queues",
						     (json_int_t)st.queues, "dying",
						     (json_int_t)st.dying, "recv_posted",
						     (json_int_t)st.recv_posted, "recv_depth",
						     (json_int_t)st.recv_depth, "bufs_held",
						     (json_int_t)st.bufs_held));
	}
	return arr;
}

void nvmf_ctl_poll_group_stats(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	json_t *list = json_array();
	for (unsigned i = 0; i < ctl->tgt->npgs; i++) {
		const struct nvmf_pg *pg = ctl->tgt->pgs[i];
		uint64_t busy = load(&pg->busy_passes), work = load(&pg->work);
		json_array_append_new(
			list,
			json_pack(
				"{s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:o}",
				"index", (json_int_t)i, "main", i == 0, "queues",
				(json_int_t)__atomic_load_n(&pg->nqueues, __ATOMIC_RELAXED),
				"passes", (json_int_t)load(&pg->passes), "busy_passes",
				(json_int_t)busy, "sleeps", (json_int_t)load(&pg->sleeps),
				"messages", (json_int_t)load(&pg->msgs), "work", (json_int_t)work,
				"work_per_busy_pass", busy ? (double)work / (double)busy : 0.0,
				"busy_us", (json_int_t)load(&pg->busy_us), "idle_us",
				(json_int_t)load(&pg->idle_us), "sleep_us",
				(json_int_t)load(&pg->sleep_us), "transports", tpg_stats(pg)));
	}
	nvmf_rpc_result(call, json_pack("{s:o}", "poll_groups", list));
}

/* ---- the log level ---- */

/* The level every component shares, or "mixed". */
static const char *common_level(const struct nvmf_tgt *tgt)
{
	enum nvmf_log_level l = nvmf_log_level_get(tgt, NVMF_LOGC_CORE);
	for (unsigned i = 1; i < NVMF_LOGC_COUNT; i++)
		if (nvmf_log_level_get(tgt, (enum nvmf_log_component)i) != l)
			return "mixed";
	return nvmf_log_level_name(l);
}

/* The optional parameter 'component' into *@out (one of the names: the schema checked
 * it); false when it is absent (every component). */
static bool param_component(struct nvmf_rpc_call *call, enum nvmf_log_component *out)
{
	const char *name = nvmf_rpc_str(call, "component");
	*out = NVMF_LOGC_CORE;
	return name && nvmf_log_component_parse(name, out);
}

void nvmf_ctl_log_level_get(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	enum nvmf_log_component comp;
	if (param_component(call, &comp)) {
		nvmf_rpc_result(call,
				json_pack("{s:s, s:s}", "component", nvmf_log_component_name(comp),
					  "level",
					  nvmf_log_level_name(nvmf_log_level_get(ctl->tgt, comp))));
		return;
	}
	json_t *each = json_object();
	for (unsigned i = 0; each && i < NVMF_LOGC_COUNT; i++)
		json_object_set_new(each, nvmf_log_component_name((enum nvmf_log_component)i),
				    json_string(nvmf_log_level_name(nvmf_log_level_get(
					    ctl->tgt, (enum nvmf_log_component)i))));
	nvmf_rpc_result(call, json_pack("{s:s, s:o*}", "level", common_level(ctl->tgt),
					"components", each));
}

void nvmf_ctl_log_level_set(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	const char *name = nvmf_rpc_str(call, "level");
	enum nvmf_log_level level = NVMF_LOG_INFO;
	enum nvmf_log_component comp;
	bool all = !param_component(call, &comp);
	nvmf_log_level_parse(name, &level); /* one of the names: the schema checked it */
	if (all) {
		char prev[16];
		snprintf(prev, sizeof(prev), "%s", common_level(ctl->tgt));
		nvmf_log_level_set_all(ctl->tgt, level);
		nvmf_log(ctl->tgt, NVMF_LOG_INFO, "log level %s (was %s)",
			 nvmf_log_level_name(level), prev);
		nvmf_rpc_result(call, json_pack("{s:s, s:s}", "level", nvmf_log_level_name(level),
						"previous", prev));
		return;
	}
	enum nvmf_log_level prev = nvmf_log_level_set(ctl->tgt, comp, level);
	nvmf_log(ctl->tgt, NVMF_LOG_INFO, "log level of %s %s (was %s)",
		 nvmf_log_component_name(comp), nvmf_log_level_name(level),
		 nvmf_log_level_name(prev));
	nvmf_rpc_result(call,
			json_pack("{s:s, s:s, s:s}", "component", nvmf_log_component_name(comp),
				  "level", nvmf_log_level_name(level), "previous",
				  nvmf_log_level_name(prev)));
}

void nvmf_ctl_gateway_status(void *ctx, struct nvmf_rpc_call *call)
{
	struct nvmf_ctl *ctl = ctx;
	if (!ctl->gateway_status) {
		nvmf_rpc_error(call, NVMF_RPC_REFUSED,
			       "this target is no gateway: its configuration has no nvmf_gateway "
			       "(docs/gateway.md)");
		return;
	}
	nvmf_rpc_result(call, ctl->gateway_status(ctl->gateway_arg));
}
