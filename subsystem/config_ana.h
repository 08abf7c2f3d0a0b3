/* SPDX-License-Identifier: MIT */
/*
 * Internal to the configuration loader and saver: Asymmetric Namespace Access keys as
 * nvmetcli writes them (subsystem/config_ana.c). A port's "ana_groups" (the groups it
 * defines and their state there) and a namespace's group ("ana_grpid", and the same
 * value again under "ana": {"grpid"}). Errors follow subsystem/config_json.h.
 */
#ifndef NVMF_SUBSYSTEM_CONFIG_ANA_H
#define NVMF_SUBSYSTEM_CONFIG_ANA_H

#include <jansson.h>
#include "subsystem/config.h"
#include "subsystem/config_json.h"

/* cfg_parse_ns_ana - "ana_grpid" and "ana": {"grpid"} of namespace object @j into
 * ns->anagrpid (1 when both are absent): each 1-128 (a number, or digits in a string),
 * and equal when both are given. 0 or -1. */
int cfg_parse_ns_ana(struct cfg_ctx *c, json_t *j, const char *base, struct nvmf_ns_config *ns);

/* cfg_parse_port_ana - "ana_groups" of port object @j: an array of {"grpid": 1-128,
 * "ana": {"state": NAME}}, each group once, nothing else in them (a misplaced state
 * would be a path silently left inaccessible). An entry without a state takes the
 * group's default (nvmf_port_config_ana_state). 0 or -1; p->ana_groups is @p's. */
int cfg_parse_port_ana(struct cfg_ctx *c, json_t *j, const char *base, struct nvmf_port_config *p);

/* cfg_check_ns_groups - every namespace of @cfg is in a group some port of @cfg defines
 * (group 1 is on every port): a group no port defines is inaccessible everywhere, most
 * likely a typo. 0, or -1 naming the namespace ("subsystems[0].namespaces[1] (nsid 2):
 * ..."). */
int cfg_check_ns_groups(struct cfg_ctx *c, const struct nvmf_config *cfg);

/* cfg_port_ana_json - @p's "ana_groups" as nvmetcli writes them: group 1 first (always
 * there), then the others ascending. A new reference, or NULL without memory. */
json_t *cfg_port_ana_json(const struct nvmf_port_config *p);

/* cfg_ns_ana_json - set "ana_grpid" (a number) and "ana": {"grpid"} (a string) of @ns in
 * the namespace object @j, as nvmetcli writes both. 0, or -1 without memory. */
int cfg_ns_ana_json(const struct nvmf_ns_config *ns, json_t *j);

#endif
