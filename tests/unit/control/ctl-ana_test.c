/* SPDX-License-Identifier: MIT */
/*
 * The control methods of ANA (control/ctl-ana.c) and the ANA rules of the methods that add
 * namespaces, subsystems and ports or remove ports, called as the control socket calls
 * them. Every bad parameter gets -32602 (or -32001 for what does not exist) naming it.
 *
 *   subsystem test1 (FX_SUBNQN): nsid 1 in group 1, nsid 2 in group 2
 *   subsystem test2: nsid 1 in group 5
 *   port 1 (0.0.0.0:4420): test1 and test2; group 2 non-optimized, 5 optimized
 *   port 2 (0.0.0.0:4421): test1; group 2 optimized
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "control/control.h"
#include "tests/unit/suites.h"
#include "tests/unit/control/ctl_fixture.h"
#include "tests/unit/target/fixture.h"

#define SUB2    "nqn.2026-11.io.nvmf-rdma:test2"
#define INVALID NVMF_RPC_INVALID_PARAMS

static struct fx F;
static struct nvmf_ctl Ctl;

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	struct nvmf_subsys_config *s = fx_cfg_subsys(&F.cfg, FX_SUBNQN, FX_HOSTNQN, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, 1u << 20, 512)->anagrpid = 2;
	fx_cfg_ns(fx_cfg_subsys(&F.cfg, SUB2, NULL, 4), 1, NVMF_BACKEND_RAM, 1u << 20, 512)
		->anagrpid = 5;
	struct nvmf_port_config *p1 = fx_cfg_loop_port(&F.cfg, 1, AF_INET, "0.0.0.0", "4420");
	fx_cfg_expose(p1, FX_SUBNQN);
	fx_cfg_expose(p1, SUB2);
	fx_cfg_ana_group(p1, 2, NVME_ANA_STATE_NONOPTIMIZED);
	fx_cfg_ana_group(p1, 5, NVME_ANA_STATE_OPTIMIZED);
	struct nvmf_port_config *p2 = fx_cfg_loop_port(&F.cfg, 2, AF_INET, "0.0.0.0", "4421");
	fx_cfg_expose(p2, FX_SUBNQN);
	fx_cfg_ana_group(p2, 2, NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_FATAL(fx_boot(&F, "127.0.0.1", "4420") == 0);
	memset(&Ctl, 0, sizeof(Ctl));
	Ctl.tgt = &F.tgt;
}

static json_t *result(const char *method, const char *params, json_t **resp)
{
	*resp = ctl_call(&Ctl, method, params);
	return ctl_result(*resp);
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static json_int_t num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* The group @grpid of port @portid in an ana_state_list result, or NULL. */
static json_t *listed(json_t *r, json_int_t portid, json_int_t grpid)
{
	size_t i, k;
	json_t *p, *g;
	json_array_foreach(json_object_get(r, "ports"), i, p) {
		if (num(p, "portid") != portid)
			continue;
		json_array_foreach(json_object_get(p, "groups"), k, g)
			if (num(g, "grpid") == grpid)
				return g;
	}
	return NULL;
}

/* ---- ana_state_set ---- */

static void ana_state_set_changes_a_state_and_answers_the_previous_one(void)
{
	setup();
	json_t *resp, *r = result("ana_state_set",
				  "{\"portid\":1,\"grpid\":2,\"state\":\"inaccessible\"}", &resp);
	CU_ASSERT_EQUAL(num(r, "portid"), 1);
	CU_ASSERT_EQUAL(num(r, "grpid"), 2);
	CU_ASSERT_STRING_EQUAL(str(r, "state"), "inaccessible");
	CU_ASSERT_STRING_EQUAL(str(r, "previous"), "non-optimized");
	CU_ASSERT_TRUE(json_is_true(json_object_get(r, "changed")));
	json_decref(resp);
	CU_ASSERT_EQUAL(nvmf_tgt_find_port(&F.tgt, 1)->ana_state[2], NVME_ANA_STATE_INACCESSIBLE);
	/* again: nothing changes */
	r = result("ana_state_set", "{\"portid\":1,\"grpid\":2,\"state\":\"inaccessible\"}", &resp);
	CU_ASSERT_TRUE(json_is_false(json_object_get(r, "changed")));
	json_decref(resp);
	/* a group the port did not define: defined now */
	r = result("ana_state_set", "{\"portid\":2,\"grpid\":9,\"state\":\"change\"}", &resp);
	CU_ASSERT_STRING_EQUAL(str(r, "previous"), "inaccessible");
	json_decref(resp);
	CU_ASSERT_TRUE(nvmf_port_config_defines(nvmf_tgt_find_port(&F.tgt, 2)->cfg, 9));
	fx_teardown(&F);
}

static json_t *fake_status(void *arg)
{
	return json_pack("{s:s}", "name", (const char *)arg);
}

static void groups_a_gateway_group_shares_are_not_set_by_hand(void)
{
	setup();
	F.cfg.gateway.enable = true;
	strcpy(F.cfg.gateway.group, "g1");
	F.cfg.gateway.n_ana_groups = 1;
	F.cfg.gateway.ana_groups[0].grpid = 2;
	ctl_expect_error(
		&Ctl, "ana_state_set", "{\"portid\":1,\"grpid\":2,\"state\":\"optimized\"}",
		NVMF_RPC_REFUSED,
		"ANA group 2 is shared by gateway group g1 (nvmf_gateway): its state follows "
		"the group's locks (docs/gateway.md)");
	CU_ASSERT_EQUAL(nvmf_tgt_find_port(&F.tgt, 1)->ana_state[2], NVME_ANA_STATE_NONOPTIMIZED);
	/* Other groups as ever. */
	ctl_ok(&Ctl, "ana_state_set", "{\"portid\":1,\"grpid\":5,\"state\":\"inaccessible\"}");
	fx_teardown(&F);
}

static void gateway_status_answers_what_the_gateway_says_or_refuses(void)
{
	setup();
	ctl_expect_error(&Ctl, "gateway_status", "{}", NVMF_RPC_REFUSED,
			 "this target is no gateway: its configuration has no nvmf_gateway "
			 "(docs/gateway.md)");
	Ctl.gateway_status = fake_status;
	Ctl.gateway_arg = (void *)"gw-a";
	json_t *resp, *r = result("gateway_status", "{}", &resp);
	CU_ASSERT_STRING_EQUAL(str(r, "name"), "gw-a");
	json_decref(resp);
	fx_teardown(&F);
}

static void ana_state_set_refuses_bad_parameters_by_name(void)
{
	setup();
	ctl_expect_error(&Ctl, "ana_state_set", "{\"grpid\":2,\"state\":\"optimized\"}", INVALID,
			 "missing parameter 'portid' (an integer)");
	ctl_expect_error(&Ctl, "ana_state_set",
			 "{\"portid\":1,\"grpid\":0,\"state\":\"optimized\"}", INVALID,
			 "parameter 'grpid': 0 is out of range [1, 128]");
	ctl_expect_error(&Ctl, "ana_state_set",
			 "{\"portid\":1,\"grpid\":129,\"state\":\"optimized\"}", INVALID,
			 "parameter 'grpid': 129 is out of range [1, 128]");
	ctl_expect_error(
		&Ctl, "ana_state_set", "{\"portid\":1,\"grpid\":2,\"state\":\"fast\"}", INVALID,
		"parameter 'state': \"fast\" is not an ANA state (optimized, non-optimized, "
		"inaccessible, persistent-loss or change)");
	ctl_expect_error(&Ctl, "ana_state_set", "{\"portid\":1,\"grpid\":2,\"state\":3}", INVALID,
			 "parameter 'state': expected an ANA state, got an integer");
	ctl_expect_error(&Ctl, "ana_state_set", "{\"portid\":1,\"grpid\":2}", INVALID,
			 "missing parameter 'state' (an ANA state)");
	ctl_expect_error(&Ctl, "ana_state_set",
			 "{\"portid\":1,\"group\":2,\"state\":\"optimized\"}", INVALID,
			 "unknown parameter 'group' (ana_state_set takes: portid, grpid, state)");
	ctl_expect_error(&Ctl, "ana_state_set",
			 "{\"portid\":9,\"grpid\":2,\"state\":\"optimized\"}", NVMF_RPC_NOT_FOUND,
			 "parameter 'portid': no port 9");
	CU_ASSERT_EQUAL(nvmf_tgt_find_port(&F.tgt, 1)->ana_state[2], NVME_ANA_STATE_NONOPTIMIZED);
	fx_teardown(&F);
}

/* ---- ana_state_list ---- */

static void ana_state_list_gives_each_ports_groups_states_and_namespaces(void)
{
	setup();
	json_t *resp, *r = result("ana_state_list", NULL, &resp);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "ports")), 2);
	json_t *g = listed(r, 1, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_STRING_EQUAL(str(g, "state"), "non-optimized");
	CU_ASSERT_TRUE(json_is_true(json_object_get(g, "defined")));
	json_t *nss = json_object_get(g, "namespaces");
	CU_ASSERT_EQUAL_FATAL(json_array_size(nss), 1);
	CU_ASSERT_STRING_EQUAL(str(json_array_get(nss, 0), "nqn"), FX_SUBNQN);
	CU_ASSERT_EQUAL(num(json_array_get(nss, 0), "nsid"), 2);
	/* group 5 exists (port 1 defines it); port 2 does not expose test2 nor define 5 */
	g = listed(r, 2, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_STRING_EQUAL(str(g, "state"), "inaccessible");
	CU_ASSERT_TRUE(json_is_false(json_object_get(g, "defined")));
	CU_ASSERT_EQUAL(json_array_size(json_object_get(g, "namespaces")), 0);
	g = listed(r, 1, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(g, "namespaces")), 1); /* test2's */
	/* group 1: every port */
	CU_ASSERT_STRING_EQUAL(str(listed(r, 2, 1), "state"), "optimized");
	CU_ASSERT_PTR_NULL(listed(r, 1, 3)); /* no group 3 */
	json_int_t before = num(r, "change_count");
	json_decref(resp);
	ctl_ok(&Ctl, "ana_state_set", "{\"portid\":2,\"grpid\":1,\"state\":\"persistent-loss\"}");
	r = result("ana_state_list", "{\"portid\":2}", &resp);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "ports")), 1);
	CU_ASSERT_STRING_EQUAL(str(listed(r, 2, 1), "state"), "persistent-loss");
	CU_ASSERT_TRUE(num(r, "change_count") > before);
	json_decref(resp);
	ctl_expect_error(&Ctl, "ana_state_list", "{\"portid\":7}", NVMF_RPC_NOT_FOUND,
			 "parameter 'portid': no port 7");
	ctl_expect_error(&Ctl, "ana_state_list", "{\"portid\":\"1\"}", INVALID,
			 "parameter 'portid': expected an integer, got a string");
	fx_teardown(&F);
}

/* ---- namespace_ana_group_set ---- */

static void namespace_ana_group_set_moves_a_namespace(void)
{
	setup();
	json_t *resp, *r = result("namespace_ana_group_set",
				  "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":1,\"grpid\":2}", &resp);
	CU_ASSERT_EQUAL(num(r, "nsid"), 1);
	CU_ASSERT_EQUAL(num(r, "grpid"), 2);
	CU_ASSERT_EQUAL(num(r, "previous"), 1);
	CU_ASSERT_TRUE(json_is_true(json_object_get(r, "changed")));
	json_decref(resp);
	r = result("subsystem_list", "{\"nqn\":\"" FX_SUBNQN "\"}", &resp);
	json_t *ns = json_array_get(
		json_object_get(json_array_get(json_object_get(r, "subsystems"), 0), "namespaces"),
		0);
	CU_ASSERT_EQUAL(num(ns, "ana_grpid"), 2);
	json_decref(resp);
	r = result("ana_state_list", "{\"portid\":1}", &resp);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(listed(r, 1, 2), "namespaces")), 2);
	json_decref(resp);
	fx_teardown(&F);
}

static void namespace_ana_group_set_refuses_bad_parameters_by_name(void)
{
	setup();
	ctl_expect_error(&Ctl, "namespace_ana_group_set",
			 "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":9,\"grpid\":2}", NVMF_RPC_NOT_FOUND,
			 "parameter 'nsid': subsystem " FX_SUBNQN " has no namespace 9");
	ctl_expect_error(
		&Ctl, "namespace_ana_group_set",
		"{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":1,\"grpid\":7}", INVALID,
		"parameter 'grpid': ANA group 7 is defined on no port (ana_state_set defines it on one)");
	ctl_expect_error(&Ctl, "namespace_ana_group_set",
			 "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":1,\"grpid\":200}", INVALID,
			 "parameter 'grpid': 200 is out of range [1, 128]");
	ctl_expect_error(&Ctl, "namespace_ana_group_set",
			 "{\"nqn\":\"nqn.x\",\"nsid\":1,\"grpid\":2}", NVMF_RPC_NOT_FOUND,
			 "parameter 'nqn': no subsystem nqn.x");
	ctl_expect_error(&Ctl, "namespace_ana_group_set", "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":1}",
			 INVALID, "missing parameter 'grpid' (an integer)");
	fx_teardown(&F);
}

/* ---- the other methods keep the loader's rules ---- */

static void namespace_add_takes_a_group_some_port_defines(void)
{
	setup();
	ctl_ok(&Ctl, "namespace_add",
	       "{\"nqn\":\"" FX_SUBNQN "\",\"namespace\":{\"nsid\":3,"
	       "\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":4096,\"ana_grpid\":5}}");
	CU_ASSERT_EQUAL(nvmf_subsys_ns(nvmf_tgt_find_subsys(&F.tgt, FX_SUBNQN), 3)->anagrpid, 5);
	ctl_expect_error(
		&Ctl, "namespace_add",
		"{\"nqn\":\"" FX_SUBNQN "\",\"namespace\":{\"nsid\":4,"
		"\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":4096,\"ana_grpid\":7}}",
		INVALID,
		"namespace.ana_grpid: ANA group 7 is defined on no port (ana_state_set defines it on one)");
	ctl_expect_error(
		&Ctl, "namespace_add",
		"{\"nqn\":\"" FX_SUBNQN "\",\"namespaces\":["
		"{\"nsid\":4,\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":4096},"
		"{\"nsid\":5,\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":4096,\"ana\":{\"grpid\":\"8\"}}]}",
		INVALID,
		"namespaces[1].ana_grpid: ANA group 8 is defined on no port (ana_state_set "
		"defines it on one)");
	ctl_expect_error(
		&Ctl, "namespace_add",
		"{\"nqn\":\"" FX_SUBNQN "\",\"namespace\":{\"nsid\":4,"
		"\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":4096,\"ana_grpid\":1,\"ana\":{\"grpid\":\"2\"}}}",
		INVALID,
		"namespace.ana.grpid: 2 differs from ana_grpid 1 (both name the namespace's ANA group)");
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(nvmf_tgt_find_subsys(&F.tgt, FX_SUBNQN), 4));
	fx_teardown(&F);
}

static void subsystem_add_takes_groups_some_port_defines(void)
{
	setup();
	ctl_expect_error(
		&Ctl, "subsystem_add",
		"{\"subsystem\":{\"nqn\":\"nqn.new\",\"namespaces\":["
		"{\"nsid\":1,\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":4096,\"ana_grpid\":3}]}}",
		INVALID,
		"subsystem.namespaces[0].ana_grpid: ANA group 3 is defined on no port "
		"(ana_state_set defines it on one)");
	CU_ASSERT_PTR_NULL(nvmf_tgt_find_subsys(&F.tgt, "nqn.new"));
	ctl_ok(&Ctl, "subsystem_add",
	       "{\"subsystem\":{\"nqn\":\"nqn.new\",\"namespaces\":["
	       "{\"nsid\":1,\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":4096,\"ana_grpid\":2}]}}");
	fx_teardown(&F);
}

static void port_add_defines_its_groups(void)
{
	setup();
	ctl_expect_error(
		&Ctl, "port_add",
		"{\"port\":{\"portid\":3,\"addr\":{\"trtype\":\"rdma\",\"traddr\":"
		"\"10.0.0.1\"},\"ana_groups\":[{\"grpid\":7,\"ana\":{\"state\":\"slow\"}}]}}",
		INVALID,
		"port.ana_groups[0].ana.state: \"slow\" is not an ANA state (optimized, non-optimized, "
		"inaccessible, persistent-loss or change)");
	/* A valid object parses; the loop target has no rdma transport to listen with. */
	json_t *resp = ctl_call(
		&Ctl, "port_add",
		"{\"port\":{\"portid\":3,\"addr\":{\"trtype\":\"rdma\","
		"\"traddr\":\"10.0.0.1\"},\"ana_groups\":[{\"grpid\":7,\"ana\":{\"state\":\"optimized\"}}]}}");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(resp, "error"), "code")),
			NVMF_RPC_REFUSED);
	json_decref(resp);
	fx_teardown(&F);
}

static void port_remove_refuses_to_leave_a_namespaces_group_undefined(void)
{
	setup();
	ctl_expect_error(
		&Ctl, "port_remove", "{\"portid\":1}", NVMF_RPC_REFUSED,
		"parameter 'portid': port 1 is the only port defining ANA group 5, the group of "
		"namespace 1 of " SUB2
		": move the namespace to another group (namespace_ana_group_set) "
		"or define the group on another port (ana_state_set) first");
	CU_ASSERT_PTR_NOT_NULL(nvmf_tgt_find_port(&F.tgt, 1));
	ctl_ok(&Ctl, "ana_state_set", "{\"portid\":2,\"grpid\":5,\"state\":\"optimized\"}");
	ctl_ok(&Ctl, "port_remove", "{\"portid\":1}");
	CU_ASSERT_PTR_NULL(nvmf_tgt_find_port(&F.tgt, 1));
	fx_teardown(&F);
}

static void running_configuration_shows_the_states_and_groups_as_they_are(void)
{
	setup();
	ctl_ok(&Ctl, "ana_state_set", "{\"portid\":2,\"grpid\":2,\"state\":\"change\"}");
	ctl_ok(&Ctl, "namespace_ana_group_set",
	       "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":1,\"grpid\":2}");
	json_t *resp, *r = result("config_get", NULL, &resp);
	json_t *p2 = json_array_get(json_object_get(r, "ports"), 1);
	json_t *groups = json_object_get(p2, "ana_groups");
	CU_ASSERT_EQUAL_FATAL(json_array_size(groups), 2);
	CU_ASSERT_EQUAL(num(json_array_get(groups, 1), "grpid"), 2);
	CU_ASSERT_STRING_EQUAL(str(json_object_get(json_array_get(groups, 1), "ana"), "state"),
			       "change");
	json_t *ns1 = json_array_get(
		json_object_get(json_array_get(json_object_get(r, "subsystems"), 0), "namespaces"),
		0);
	CU_ASSERT_EQUAL(num(ns1, "ana_grpid"), 2);
	json_decref(resp);
	fx_teardown(&F);
}

const struct unit_test ctl_ana_tests[] = {
	{ "groups_a_gateway_group_shares_are_not_set_by_hand",
	  groups_a_gateway_group_shares_are_not_set_by_hand },
	{ "gateway_status_answers_what_the_gateway_says_or_refuses",
	  gateway_status_answers_what_the_gateway_says_or_refuses },
	{ "ana_state_set_changes_a_state_and_answers_the_previous_one",
	  ana_state_set_changes_a_state_and_answers_the_previous_one },
	{ "ana_state_set_refuses_bad_parameters_by_name",
	  ana_state_set_refuses_bad_parameters_by_name },
	{ "ana_state_list_gives_each_ports_groups_states_and_namespaces",
	  ana_state_list_gives_each_ports_groups_states_and_namespaces },
	{ "namespace_ana_group_set_moves_a_namespace", namespace_ana_group_set_moves_a_namespace },
	{ "namespace_ana_group_set_refuses_bad_parameters_by_name",
	  namespace_ana_group_set_refuses_bad_parameters_by_name },
	{ "namespace_add_takes_a_group_some_port_defines",
	  namespace_add_takes_a_group_some_port_defines },
	{ "subsystem_add_takes_groups_some_port_defines",
	  subsystem_add_takes_groups_some_port_defines },
	{ "port_add_defines_its_groups", port_add_defines_its_groups },
	{ "port_remove_refuses_to_leave_a_namespaces_group_undefined",
	  port_remove_refuses_to_leave_a_namespaces_group_undefined },
	{ "running_configuration_shows_the_states_and_groups_as_they_are",
	  running_configuration_shows_the_states_and_groups_as_they_are },
	{ NULL, NULL },
};
