/* SPDX-License-Identifier: MIT */
/*
 * Asymmetric Namespace Access in the configuration (see config_ana.h): nvmetcli's keys
 * read and written (the state names are nvme/ana-state.h's), and the defaults the kernel target gives a port
 * (group 1 optimized, every other group inaccessible until the port defines it).
 */
#include "subsystem/config_ana.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvme/types.h>
#include "nvme/ana-state.h"
#include "util/choice.h"

static const struct cfg_irule grpid_rule = { 1, NVMF_MAX_ANAGRPID, true, "an ANA group ID",
					     "1-128" };

uint32_t nvmf_ns_config_anagrpid(const struct nvmf_ns_config *ns)
{
	return ns->anagrpid ? ns->anagrpid : NVMF_DEFAULT_ANAGRPID;
}

const struct nvmf_ana_group_config *nvmf_port_config_ana_group(const struct nvmf_port_config *p,
							       uint32_t grpid)
{
	for (size_t i = 0; i < p->n_ana_groups; i++)
		if (p->ana_groups[i].grpid == grpid)
			return &p->ana_groups[i];
	return NULL;
}

bool nvmf_port_config_defines(const struct nvmf_port_config *p, uint32_t grpid)
{
	return grpid == NVMF_DEFAULT_ANAGRPID || nvmf_port_config_ana_group(p, grpid);
}

uint8_t nvmf_port_config_ana_state(const struct nvmf_port_config *p, uint32_t grpid)
{
	const struct nvmf_ana_group_config *g = nvmf_port_config_ana_group(p, grpid);
	if (g)
		return g->state;
	return grpid == NVMF_DEFAULT_ANAGRPID ? NVME_ANA_STATE_OPTIMIZED :
						NVME_ANA_STATE_INACCESSIBLE;
}

int nvmf_config_ana_groups_dup(const struct nvmf_ana_group_config *src, size_t n,
			       struct nvmf_ana_group_config **out)
{
	*out = NULL;
	if (!n)
		return 0;
	if (!(*out = malloc(n * sizeof(**out))))
		return -ENOMEM;
	memcpy(*out, src, n * sizeof(**out));
	return 0;
}

/* ---- loading ---- */

int cfg_parse_ns_ana(struct cfg_ctx *c, json_t *j, const char *base, struct nvmf_ns_config *ns)
{
	static const char *const ana_keys[] = { "grpid", NULL };
	long long a = 0, b = 0;
	json_t *ana;
	char sub[160];
	int ra = 0, rb = 0;

	snprintf(sub, sizeof(sub), "%s.ana", base);
	if ((ra = cfg_get_int(c, j, base, "ana_grpid", &grpid_rule, false, &a)) < 0 ||
	    cfg_get_typed(c, j, base, "ana", JSON_OBJECT, false, &ana) ||
	    (ana && cfg_check_keys(c, ana, sub, ana_keys, NULL)) ||
	    (rb = ana ? cfg_get_int(c, ana, sub, "grpid", &grpid_rule, false, &b) : 0) < 0)
		return -1;
	/* nvmetcli writes the one configfs attribute twice; two values would leave it unclear
	 * which one was meant (nvmetcli's restore lets the later one win). */
	if (ra && rb && a != b)
		return cfg_fail(c, sub, "grpid",
				"%lld differs from ana_grpid %lld (both name the "
				"namespace's ANA group)",
				b, a);
	ns->anagrpid = (uint32_t)(ra ? a : rb ? b : NVMF_DEFAULT_ANAGRPID);
	return 0;
}

/* One ana_groups[] entry into @g. */
static int parse_group(struct cfg_ctx *c, json_t *e, const char *base,
		       struct nvmf_ana_group_config *g)
{
	static const char *const entry_keys[] = { "grpid", "ana", NULL };
	static const char *const ana_keys[] = { "state", NULL };
	const char *name = NULL;
	json_t *ana;
	long long v;
	char sub[200], b[80];

	if (!json_is_object(e))
		return cfg_fail(c, base, NULL, "expected an object, got %s",
				cfg_show(e, b, sizeof(b)));
	snprintf(sub, sizeof(sub), "%s.ana", base);
	if (cfg_check_keys(c, e, base, entry_keys, NULL) ||
	    cfg_get_int(c, e, base, "grpid", &grpid_rule, true, &v) < 0 ||
	    cfg_get_typed(c, e, base, "ana", JSON_OBJECT, false, &ana) ||
	    (ana && (cfg_check_keys(c, ana, sub, ana_keys, NULL) ||
		     cfg_get_str(c, ana, sub, "state", false, &name))))
		return -1;
	g->grpid = (uint32_t)v;
	if (!name) {
		/* What the kernel gives a group a port has just defined. */
		g->state = g->grpid == NVMF_DEFAULT_ANAGRPID ? NVME_ANA_STATE_OPTIMIZED :
							       NVME_ANA_STATE_INACCESSIBLE;
		return 0;
	}
	char names[96];
	if (!nvme_ana_state_parse(name, &g->state))
		return cfg_fail(c, sub, "state", "%s is not an ANA state (%s)",
				cfg_quote(name, b, sizeof(b)),
				nvmf_choice_text(nvme_ana_state_names, names, sizeof(names)));
	return 0;
}

int cfg_parse_port_ana(struct cfg_ctx *c, json_t *j, const char *base, struct nvmf_port_config *p)
{
	json_t *arr, *e;
	char sub[160];
	size_t i;

	if (cfg_get_typed(c, j, base, "ana_groups", JSON_ARRAY, false, &arr))
		return -1;
	if (!arr || !json_array_size(arr))
		return 0;
	if (!(p->ana_groups = calloc(json_array_size(arr), sizeof(*p->ana_groups))))
		return cfg_fail(c, base, "ana_groups", "out of memory");
	json_array_foreach(arr, i, e) {
		snprintf(sub, sizeof(sub), "%s.ana_groups[%zu]", base, i);
		if (parse_group(c, e, sub, &p->ana_groups[i]))
			return -1;
		for (size_t k = 0; k < i; k++)
			if (p->ana_groups[k].grpid == p->ana_groups[i].grpid)
				return cfg_fail(c, sub, "grpid",
						"group %u is already listed (ana_groups[%zu])",
						p->ana_groups[i].grpid, k);
		p->n_ana_groups = i + 1;
	}
	return 0;
}

int cfg_check_ns_groups(struct cfg_ctx *c, const struct nvmf_config *cfg)
{
	for (size_t s = 0; s < cfg->n_subsystems; s++)
		for (size_t n = 0; n < cfg->subsystems[s].n_ns; n++) {
			const struct nvmf_ns_config *ns = &cfg->subsystems[s].ns[n];
			uint32_t g = nvmf_ns_config_anagrpid(ns);
			bool defined = g ==
				       NVMF_DEFAULT_ANAGRPID; /* on every port, even none yet */
			for (size_t p = 0; p < cfg->n_ports && !defined; p++)
				defined = nvmf_port_config_defines(&cfg->ports[p], g);
			if (defined)
				continue;
			char base[96];
			snprintf(base, sizeof(base), "subsystems[%zu].namespaces[%zu] (nsid %u)", s,
				 n, ns->nsid);
			return cfg_fail(c, base, NULL,
					"ANA group %u is defined on no port (list it in a "
					"port's \"ana_groups\"; group 1 is on every port)",
					g);
		}
	return 0;
}

/* ---- saving ---- */

static json_t *group_json(uint32_t grpid, uint8_t state)
{
	return json_pack("{s:{s:s}, s:I}", "ana", "state", nvme_ana_state_name(state), "grpid",
			 (json_int_t)grpid);
}

json_t *cfg_port_ana_json(const struct nvmf_port_config *p)
{
	json_t *a = json_array();
	for (uint32_t g = 1; a && g <= NVMF_MAX_ANAGRPID; g++)
		if (nvmf_port_config_defines(p, g) &&
		    json_array_append_new(a, group_json(g, nvmf_port_config_ana_state(p, g)))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int cfg_ns_ana_json(const struct nvmf_ns_config *ns, json_t *j)
{
	char text[16];
	uint32_t g = nvmf_ns_config_anagrpid(ns);
	snprintf(text, sizeof(text), "%u", g);
	return json_object_set_new(j, "ana_grpid", json_integer(g)) ||
			       json_object_set_new(j, "ana", json_pack("{s:s}", "grpid", text)) ?
		       -1 :
		       0;
}
