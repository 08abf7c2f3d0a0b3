/* SPDX-License-Identifier: MIT */
/*
 * The gateway group's configuration: the top-level "nvmf_gateway" object read, checked
 * and written back (docs/gateway.md). Plain data: nothing here talks to Ceph, nor opens
 * the files it names (the gateway does at start, gateway/gateway.c).
 */
#include <stdio.h>
#include <string.h>
#include "subsystem/config_json.h"

/* Gateway and group names become parts of RADOS object names and lock cookies
 * ("nvmf-gw.<group>.alive.<name>", "<name>/<instance>"): no '.', no '/'. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > NVMF_GW_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

static int get_name(struct cfg_ctx *c, json_t *g, const char *base, const char *key, bool required,
		    char *dst)
{
	const char *s;
	char b[80];
	if (cfg_get_str(c, g, base, key, required, &s))
		return -1;
	if (!s)
		return 0;
	if (!name_ok(s))
		return cfg_fail(c, base, key,
				"%s is not a name (1-%d of A-Z a-z 0-9 _ -; it is part of the "
				"lock objects' names)",
				cfg_quote(s, b, sizeof(b)), NVMF_GW_NAME_MAX);
	strcpy(dst, s);
	return 0;
}

static const struct cfg_irule lease_rule = { NVMF_GW_LEASE_MIN, NVMF_GW_LEASE_MAX, false,
					     "a lease in seconds", "3-120" };
static const struct cfg_irule grpid_rule = { 1, NVMF_MAX_ANAGRPID, false, "an ANA group ID",
					     "1-128" };

/* ana_groups[]: {"grpid", "preferred"}, each group once and defined by a port. */
static int parse_groups(struct cfg_ctx *c, json_t *g, struct nvmf_config *cfg)
{
	struct nvmf_gateway_config *gw = &cfg->gateway;
	json_t *arr, *e;
	size_t i;
	char base[48], b[80];
	if (cfg_get_typed(c, g, "nvmf_gateway", "ana_groups", JSON_ARRAY, true, &arr))
		return -1;
	if (!json_array_size(arr))
		return cfg_fail(c, "nvmf_gateway", "ana_groups",
				"empty: a gateway group shares at least one ANA group");
	if (json_array_size(arr) > NVMF_MAX_ANAGRPID)
		return cfg_fail(c, "nvmf_gateway", "ana_groups", "more than %d groups",
				NVMF_MAX_ANAGRPID);
	json_array_foreach(arr, i, e) {
		snprintf(base, sizeof(base), "nvmf_gateway.ana_groups[%zu]", i);
		if (!json_is_object(e))
			return cfg_fail(c, base, NULL, "expected an object, got %s",
					cfg_show(e, b, sizeof(b)));
		static const char *const known[] = { "grpid", "preferred", NULL };
		struct nvmf_gateway_ana_config *a = &gw->ana_groups[i];
		long long id;
		if (cfg_check_keys(c, e, base, known, NULL) ||
		    cfg_get_int(c, e, base, "grpid", &grpid_rule, true, &id) < 0 ||
		    get_name(c, e, base, "preferred", true, a->preferred))
			return -1;
		a->grpid = (uint32_t)id;
		for (size_t k = 0; k < i; k++)
			if (gw->ana_groups[k].grpid == a->grpid)
				return cfg_fail(c, base, "grpid",
						"group %u is listed twice (also ana_groups[%zu])",
						a->grpid, k);
		bool defined = false;
		for (size_t p = 0; p < cfg->n_ports && !defined; p++)
			defined = nvmf_port_config_defines(&cfg->ports[p], a->grpid);
		if (!defined)
			return cfg_fail(c, base, "grpid",
					"group %u is defined by no port of this target (list it "
					"in a port's ana_groups)",
					a->grpid);
		gw->n_ana_groups = i + 1;
	}
	return 0;
}

int cfg_parse_gateway(struct cfg_ctx *c, json_t *root, struct nvmf_config *cfg)
{
	struct nvmf_gateway_config *gw = &cfg->gateway;
	json_t *g;
	long long n;
	int r;
	memset(gw, 0, sizeof(*gw));
	if (cfg_get_typed(c, root, "", "nvmf_gateway", JSON_OBJECT, false, &g))
		return -1;
	if (!g)
		return 0;
	static const char *const known[] = { "name",          "group",      "ceph_conf",
					     "keyring",       "client_id",  "pool",
					     "lease_seconds", "ana_groups", NULL };
	strcpy(gw->client_id, "admin");
	strcpy(gw->pool, "rbd");
	gw->lease_seconds = NVMF_GW_LEASE_DEFAULT;
	if (cfg_check_keys(c, g, "nvmf_gateway", known, NULL) ||
	    get_name(c, g, "nvmf_gateway", "name", true, gw->name) ||
	    get_name(c, g, "nvmf_gateway", "group", true, gw->group) ||
	    cfg_get_abs_path(c, g, "nvmf_gateway", "ceph_conf", true, gw->ceph_conf,
			     sizeof(gw->ceph_conf)) ||
	    cfg_get_abs_path(c, g, "nvmf_gateway", "keyring", false, gw->keyring,
			     sizeof(gw->keyring)))
		return -1;
	const char *s;
	char b[80];
	if (cfg_get_str(c, g, "nvmf_gateway", "client_id", false, &s))
		return -1;
	if (s) {
		size_t len = strlen(s);
		if (!len || len > NVMF_GW_NAME_MAX ||
		    strspn(s,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
			    len ||
		    !strncmp(s, "client.", 7))
			return cfg_fail(c, "nvmf_gateway", "client_id",
					"%s is not a Ceph user ID (1-%d of A-Z a-z 0-9 _ . -, "
					"without \"client.\": \"admin\" is client.admin)",
					cfg_quote(s, b, sizeof(b)), NVMF_GW_NAME_MAX);
		strcpy(gw->client_id, s);
	}
	if (cfg_get_str(c, g, "nvmf_gateway", "pool", false, &s))
		return -1;
	if (s) {
		size_t len = strlen(s);
		bool ok = len && len < sizeof(gw->pool);
		for (size_t i = 0; ok && i < len; i++)
			ok = s[i] > ' ' && s[i] < 0x7f;
		if (!ok)
			return cfg_fail(c, "nvmf_gateway", "pool",
					"%s is not a pool name (1-%zu printable characters, no "
					"spaces)",
					cfg_quote(s, b, sizeof(b)), sizeof(gw->pool) - 1);
		strcpy(gw->pool, s);
	}
	if ((r = cfg_get_int(c, g, "nvmf_gateway", "lease_seconds", &lease_rule, false, &n)) < 0)
		return -1;
	if (r)
		gw->lease_seconds = (uint32_t)n;
	if (parse_groups(c, g, cfg))
		return -1;
	gw->enable = true;
	return 0;
}

json_t *cfg_gateway_json(const struct nvmf_gateway_config *g)
{
	json_t *groups = json_array();
	for (size_t i = 0; groups && i < g->n_ana_groups; i++)
		json_array_append_new(groups, json_pack("{s:I, s:s}", "grpid",
							(json_int_t)g->ana_groups[i].grpid,
							"preferred", g->ana_groups[i].preferred));
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:o}", "name", g->name, "group",
			      g->group, "ceph_conf", g->ceph_conf, "client_id", g->client_id,
			      "pool", g->pool, "lease_seconds", (json_int_t)g->lease_seconds,
			      "ana_groups", groups);
	if (j && g->keyring[0])
		json_object_set_new(j, "keyring", json_string(g->keyring));
	return j;
}

const char *nvmf_gateway_config_diff(const struct nvmf_gateway_config *a,
				     const struct nvmf_gateway_config *b)
{
	if (a->enable != b->enable)
		return "nvmf_gateway";
	if (!a->enable)
		return NULL;
	if (strcmp(a->name, b->name))
		return "nvmf_gateway.name";
	if (strcmp(a->group, b->group))
		return "nvmf_gateway.group";
	if (strcmp(a->ceph_conf, b->ceph_conf))
		return "nvmf_gateway.ceph_conf";
	if (strcmp(a->keyring, b->keyring))
		return "nvmf_gateway.keyring";
	if (strcmp(a->client_id, b->client_id))
		return "nvmf_gateway.client_id";
	if (strcmp(a->pool, b->pool))
		return "nvmf_gateway.pool";
	if (a->lease_seconds != b->lease_seconds)
		return "nvmf_gateway.lease_seconds";
	if (a->n_ana_groups != b->n_ana_groups)
		return "nvmf_gateway.ana_groups";
	for (size_t i = 0; i < a->n_ana_groups; i++)
		if (a->ana_groups[i].grpid != b->ana_groups[i].grpid ||
		    strcmp(a->ana_groups[i].preferred, b->ana_groups[i].preferred))
			return "nvmf_gateway.ana_groups";
	return NULL;
}

bool nvmf_gateway_config_manages(const struct nvmf_gateway_config *g, uint32_t grpid)
{
	for (size_t i = 0; g->enable && i < g->n_ana_groups; i++)
		if (g->ana_groups[i].grpid == grpid)
			return true;
	return false;
}
