/* SPDX-License-Identifier: MIT */
/*
 * ANA in the configuration (subsystem/config_ana.c): nvmetcli's ports[].ana_groups and
 * namespaces' ana_grpid / ana.grpid loaded with the kernel target's defaults, one test
 * per bad input with its exact message, and the keys written back so that a saved
 * configuration loads the same groups and states.
 *
 * JSON here is written with single quotes; cfg_test_quoted() turns them into double quotes.
 */
#include <jansson.h>
#include <nvme/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nvme/ana-state.h"
#include "subsystem/config.h"
#include "tests/unit/subsystem/config_util.h"
#include "tests/unit/suites.h"

static bool expect_ok(const char *json, struct nvmf_config *cfg)
{
	char err[512] = "";
	int rc = cfg_test_parse(json, cfg, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "\n    unexpected error: %s\n", err);
	return rc == 0;
}

/* One rdma port (with @ana, e.g. ",'ana_groups':[...]") exposing s1, which holds @ns. */
#define ADDR           "'addr':{'trtype':'rdma','adrfam':'ipv4','traddr':'10.0.0.1','trsvcid':'4420'}"
#define ADDR2          "'addr':{'trtype':'rdma','adrfam':'ipv4','traddr':'10.0.0.2','trsvcid':'4420'}"
#define PORT(ana)      "{'portid':1," ADDR ",'subsystems':['s1']" ana "}"
#define SUB(ns)        "{'nqn':'s1','attr':{'allow_any_host':'1'},'namespaces':[" ns "]}"
#define DOC(p, ns)     "{'ports':[" p "],'subsystems':[" SUB(ns) "]}"
#define NS(extra)      "{'nsid':1,'nvmf_backend':'ram','nvmf_size_bytes':4096" extra "}"
#define GROUPS(g)      ",'ana_groups':[" g "]"
#define WITH_NS(e)     DOC(PORT(GROUPS("{'grpid':2,'ana':{'state':'optimized'}}")), NS(e))
#define WITH_GROUPS(g) DOC(PORT(GROUPS(g)), NS(""))

#define ERROR_TEST(name, json, msg)               \
	static void name(void)                    \
	{                                         \
		cfg_test_expect_error(json, msg); \
	}

/* ---- namespaces ---- */

static void namespace_without_ana_keys_is_in_group_1(void)
{
	struct nvmf_config cfg;
	if (expect_ok(DOC(PORT(""), NS("")), &cfg)) {
		CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].anagrpid, 1);
		CU_ASSERT_EQUAL(nvmf_ns_config_anagrpid(&cfg.subsystems[0].ns[0]), 1);
	}
	nvmf_config_free(&cfg);
}

static void ana_grpid_is_read_as_a_number_or_a_string(void)
{
	struct nvmf_config cfg;
	if (expect_ok(WITH_NS(",'ana_grpid':2"), &cfg))
		CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].anagrpid, 2);
	nvmf_config_free(&cfg);
	if (expect_ok(WITH_NS(",'ana':{'grpid':'2'}"), &cfg))
		CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].anagrpid, 2);
	nvmf_config_free(&cfg);
	/* nvmetcli writes both, the same value */
	if (expect_ok(WITH_NS(",'ana_grpid':2,'ana':{'grpid':'2'}"), &cfg))
		CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].anagrpid, 2);
	nvmf_config_free(&cfg);
}

ERROR_TEST(ana_grpid_0_is_refused, WITH_NS(",'ana_grpid':0"),
	   "subsystems[0].namespaces[0].ana_grpid: 0 is not an ANA group ID (1-128)")
ERROR_TEST(ana_grpid_above_128_is_refused, WITH_NS(",'ana_grpid':129"),
	   "subsystems[0].namespaces[0].ana_grpid: 129 is not an ANA group ID (1-128)")
ERROR_TEST(
	ana_grpid_as_a_boolean_is_refused, WITH_NS(",'ana_grpid':true"),
	"subsystems[0].namespaces[0].ana_grpid: expected an integer or a string of digits, got true")
ERROR_TEST(ana_group_id_text_that_is_not_a_number_is_refused, WITH_NS(",'ana':{'grpid':'two'}"),
	   "subsystems[0].namespaces[0].ana.grpid: \"two\" is not an ANA group ID (1-128)")
ERROR_TEST(namespace_ana_that_is_not_an_object_is_refused, WITH_NS(",'ana':2"),
	   "subsystems[0].namespaces[0].ana: expected an object, got 2")
ERROR_TEST(unknown_key_in_a_namespace_ana_is_refused, WITH_NS(",'ana':{'group':'2'}"),
	   "subsystems[0].namespaces[0].ana.group: unknown key (known here: grpid)")
ERROR_TEST(ana_grpid_and_ana_grpid_string_disagreeing_are_refused,
	   WITH_NS(",'ana_grpid':1,'ana':{'grpid':'2'}"),
	   "subsystems[0].namespaces[0].ana.grpid: 2 differs from ana_grpid 1 (both name the "
	   "namespace's ANA group)")
ERROR_TEST(namespace_in_a_group_no_port_defines_is_refused, WITH_NS(",'ana_grpid':3"),
	   "subsystems[0].namespaces[0] (nsid 1): ANA group 3 is defined on no port (list it in a "
	   "port's \"ana_groups\"; group 1 is on every port)")

static void group_defined_on_a_port_not_exposing_the_subsystem_is_enough(void)
{
	struct nvmf_config cfg;
	const char *json = "{'ports':[" PORT(
		"") ",{'portid':2," ADDR2 ",'subsystems':[],"
		    "'ana_groups':[{'grpid':7,'ana':{'state':'non-optimized'}}]}],"
		    "'subsystems':[" SUB(NS(",'ana_grpid':7")) "]}";
	if (expect_ok(json, &cfg))
		CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].anagrpid, 7);
	nvmf_config_free(&cfg);
}

/* ---- ports ---- */

static void port_groups_and_states_are_read_with_nvmet_defaults(void)
{
	struct nvmf_config cfg;
	const char *json = WITH_GROUPS("{'grpid':1,'ana':{'state':'non-optimized'}},"
				       "{'grpid':'5','ana':{'state':'change'}},{'grpid':9},"
				       "{'grpid':128,'ana':{'state':'persistent-loss'}},"
				       "{'grpid':3,'ana':{}}");
	if (!expect_ok(json, &cfg)) {
		nvmf_config_free(&cfg);
		return;
	}
	const struct nvmf_port_config *p = &cfg.ports[0];
	CU_ASSERT_EQUAL_FATAL(p->n_ana_groups, 5);
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(p, 1), NVME_ANA_STATE_NONOPTIMIZED);
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(p, 5), NVME_ANA_STATE_CHANGE);
	/* listed without a state: what the kernel gives a group a port just defined */
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(p, 9), NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(p, 3), NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(p, 128), NVME_ANA_STATE_PERSISTENT_LOSS);
	/* not listed: inaccessible here */
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(p, 2), NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_TRUE(nvmf_port_config_defines(p, 9));
	CU_ASSERT_FALSE(nvmf_port_config_defines(p, 2));
	nvmf_config_free(&cfg);
}

static void port_without_ana_groups_has_group_1_optimized(void)
{
	struct nvmf_config cfg;
	if (expect_ok(DOC(PORT(""), NS("")), &cfg)) {
		const struct nvmf_port_config *p = &cfg.ports[0];
		CU_ASSERT_EQUAL(p->n_ana_groups, 0);
		CU_ASSERT_TRUE(nvmf_port_config_defines(p, 1));
		CU_ASSERT_EQUAL(nvmf_port_config_ana_state(p, 1), NVME_ANA_STATE_OPTIMIZED);
		for (uint32_t g = 2; g <= NVMF_MAX_ANAGRPID; g++)
			CU_ASSERT_EQUAL(nvmf_port_config_ana_state(p, g),
					NVME_ANA_STATE_INACCESSIBLE);
	}
	nvmf_config_free(&cfg);
}

ERROR_TEST(ana_groups_that_is_not_an_array_is_refused,
	   DOC(PORT(",'ana_groups':{'grpid':1}"), NS("")),
	   "ports[0].ana_groups: expected an array, got an object")
ERROR_TEST(ana_group_that_is_not_an_object_is_refused, WITH_GROUPS("1"),
	   "ports[0].ana_groups[0]: expected an object, got 1")
ERROR_TEST(ana_group_without_grpid_is_refused, WITH_GROUPS("{'ana':{'state':'optimized'}}"),
	   "ports[0].ana_groups[0].grpid: required key is missing")
ERROR_TEST(ana_group_id_0_is_refused, WITH_GROUPS("{'grpid':0}"),
	   "ports[0].ana_groups[0].grpid: 0 is not an ANA group ID (1-128)")
ERROR_TEST(ana_group_id_above_128_is_refused, WITH_GROUPS("{'grpid':'129'}"),
	   "ports[0].ana_groups[0].grpid: \"129\" is not an ANA group ID (1-128)")
ERROR_TEST(ana_group_listed_twice_on_a_port_is_refused,
	   WITH_GROUPS("{'grpid':2},{'grpid':3},{'grpid':'2','ana':{'state':'optimized'}}"),
	   "ports[0].ana_groups[2].grpid: group 2 is already listed (ana_groups[0])")
ERROR_TEST(
	unknown_ana_state_name_is_refused, WITH_GROUPS("{'grpid':2,'ana':{'state':'fast'}}"),
	"ports[0].ana_groups[0].ana.state: \"fast\" is not an ANA state (optimized, non-optimized, "
	"inaccessible, persistent-loss or change)")
ERROR_TEST(ana_state_that_is_not_a_string_is_refused, WITH_GROUPS("{'grpid':2,'ana':{'state':1}}"),
	   "ports[0].ana_groups[0].ana.state: expected a string, got 1")
ERROR_TEST(ana_state_outside_its_ana_object_is_refused,
	   WITH_GROUPS("{'grpid':2,'state':'optimized'}"),
	   "ports[0].ana_groups[0].state: unknown key (known here: grpid, ana)")
ERROR_TEST(unknown_key_in_a_group_ana_object_is_refused,
	   WITH_GROUPS("{'grpid':2,'ana':{'stat':'optimized'}}"),
	   "ports[0].ana_groups[0].ana.stat: unknown key; did you mean 'state'? (known here: state)")

static void every_state_name_parses_back_to_itself(void)
{
	static const char *const names[] = { "optimized", "non-optimized", "inaccessible",
					     "persistent-loss", "change" };
	static const uint8_t values[] = { 1, 2, 3, 4, 15 };
	for (size_t i = 0; i < 5; i++) {
		uint8_t st = 0;
		CU_ASSERT_TRUE(nvme_ana_state_parse(names[i], &st));
		CU_ASSERT_EQUAL(st, values[i]);
		CU_ASSERT_STRING_EQUAL(nvme_ana_state_name(values[i]), names[i]);
	}
	uint8_t st = 0;
	CU_ASSERT_FALSE(nvme_ana_state_parse("Optimized", &st));
	CU_ASSERT_FALSE(nvme_ana_state_parse("", &st));
	CU_ASSERT_STRING_EQUAL(nvme_ana_state_name(0), "?");
	CU_ASSERT_STRING_EQUAL(nvme_ana_state_name(5), "?");
}

/* The control socket's port_add and namespace_add parse with the same code. */
static void port_and_namespace_objects_alone_take_the_ana_keys(void)
{
	char err[256] = "";
	char *pj = cfg_test_quoted("{'portid':4," ADDR
				   ",'ana_groups':[{'grpid':2,'ana':{'state':'inaccessible'}}]}");
	char *nj = cfg_test_quoted(
		"{'nsid':3,'nvmf_backend':'null','nvmf_size_bytes':4096,'ana_grpid':2}");
	char *bad = cfg_test_quoted(
		"{'nsid':3,'nvmf_backend':'null','nvmf_size_bytes':4096,'ana_grpid':200}");
	json_t *po = json_loads(pj, 0, NULL), *no = json_loads(nj, 0, NULL),
	       *bo = json_loads(bad, 0, NULL);
	struct nvmf_port_config p;
	struct nvmf_ns_config ns;
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse_port(po, "port", &p, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(p.n_ana_groups, 1);
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(&p, 2), NVME_ANA_STATE_INACCESSIBLE);
	nvmf_config_port_clear(&p);
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse_ns(no, "namespace", &ns, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ns.anagrpid, 2);
	nvmf_config_ns_free(&ns);
	CU_ASSERT_EQUAL(nvmf_config_parse_ns(bo, "namespace", &ns, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "namespace.ana_grpid: 200 is not an ANA group ID (1-128)");
	json_decref(po);
	json_decref(no);
	json_decref(bo);
	free(pj);
	free(nj);
	free(bad);
}

static void port_copy_owns_its_ana_groups(void)
{
	struct nvmf_config cfg;
	struct nvmf_port_config copy;
	if (!expect_ok(WITH_GROUPS("{'grpid':2,'ana':{'state':'change'}}"), &cfg)) {
		nvmf_config_free(&cfg);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(nvmf_config_port_dup(&cfg.ports[0], &copy), 0);
	CU_ASSERT_EQUAL(copy.n_ana_groups, 1);
	CU_ASSERT_PTR_NOT_EQUAL(copy.ana_groups, cfg.ports[0].ana_groups);
	cfg.ports[0].ana_groups[0].state = NVME_ANA_STATE_OPTIMIZED;
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(&copy, 2), NVME_ANA_STATE_CHANGE);
	nvmf_config_port_clear(&copy);
	nvmf_config_free(&cfg);
}

/* nvmetcli's own tcp.json holds its ANA layout (ana_groups, ana_grpid); with its trtype
 * made rdma it loads, group 1 optimized. */
static void nvmetcli_tcp_json_ana_keys_load_once_its_trtype_is_rdma(void)
{
	FILE *f = fopen("tests/data/nvmetcli/tcp.json", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char text[4096];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	char *t = strstr(text, "\"tcp\"");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	memmove(t + 6, t + 5, strlen(t + 5) + 1);
	memcpy(t, "\"rdma\"", 6);
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(text, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.ports[0].n_ana_groups, 1);
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(&cfg.ports[0], 1), NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].anagrpid, 1);
	nvmf_config_free(&cfg);
}

/* ---- saving ---- */

static void saved_ana_keys_are_nvmetclis_and_load_back_the_same(void)
{
	struct nvmf_config a, b;
	const char *json =
		"{'ports':[{'portid':1," ADDR ",'subsystems':['s1'],'ana_groups':["
		"{'grpid':9,'ana':{'state':'change'}},{'grpid':2,'ana':{'state':'inaccessible'}}]},"
		"{'portid':2," ADDR2 ",'subsystems':['s1']}],'subsystems':[" SUB(
			"{'nsid':1,'nvmf_backend':'ram','nvmf_size_bytes':4096,'ana_grpid':9},"
			"{'nsid':2,'nvmf_backend':'ram','nvmf_size_bytes':4096}") "]}";
	if (!expect_ok(json, &a)) {
		nvmf_config_free(&a);
		return;
	}
	json_t *j = nvmf_config_to_json(&a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	/* Port 1: group 1 (default, always written), then 2 and 9. */
	json_t *groups =
		json_object_get(json_array_get(json_object_get(j, "ports"), 0), "ana_groups");
	CU_ASSERT_EQUAL_FATAL(json_array_size(groups), 3);
	static const json_int_t ids[] = { 1, 2, 9 };
	static const char *const names[] = { "optimized", "inaccessible", "change" };
	for (size_t i = 0; i < 3; i++) {
		json_t *g = json_array_get(groups, i);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(g, "grpid")), ids[i]);
		CU_ASSERT_STRING_EQUAL(
			json_string_value(json_object_get(json_object_get(g, "ana"), "state")),
			names[i]);
	}
	/* Port 2 defines only group 1. */
	groups = json_object_get(json_array_get(json_object_get(j, "ports"), 1), "ana_groups");
	CU_ASSERT_EQUAL(json_array_size(groups), 1);
	/* Both keys of a namespace, as nvmetcli writes them. */
	json_t *ns = json_array_get(
		json_object_get(json_array_get(json_object_get(j, "subsystems"), 0), "namespaces"),
		0);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(ns, "ana_grpid")), 9);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(json_object_get(ns, "ana"), "grpid")), "9");
	char *text = json_dumps(j, 0);
	json_decref(j);
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(text, &b, err, sizeof(err)), 0);
	free(text);
	for (uint32_t g = 1; g <= NVMF_MAX_ANAGRPID; g++)
		for (size_t p = 0; p < 2; p++) {
			CU_ASSERT_EQUAL(nvmf_port_config_ana_state(&a.ports[p], g),
					nvmf_port_config_ana_state(&b.ports[p], g));
			CU_ASSERT_EQUAL(nvmf_port_config_defines(&a.ports[p], g),
					nvmf_port_config_defines(&b.ports[p], g));
		}
	CU_ASSERT_EQUAL(b.subsystems[0].ns[0].anagrpid, 9);
	CU_ASSERT_EQUAL(b.subsystems[0].ns[1].anagrpid, 1);
	nvmf_config_free(&a);
	nvmf_config_free(&b);
}

/* A namespace built in code (anagrpid 0) is saved in group 1. */
static void namespace_built_in_code_is_saved_in_group_1(void)
{
	struct nvmf_config c;
	memset(&c, 0, sizeof(c));
	nvmf_config_target_defaults(&c.target);
	struct nvmf_subsys_config s;
	memset(&s, 0, sizeof(s));
	nvmf_config_subsys_defaults(&s);
	snprintf(s.nqn, sizeof(s.nqn), "s1");
	struct nvmf_ns_config ns;
	memset(&ns, 0, sizeof(ns));
	ns.nsid = 1;
	ns.kind = NVMF_BACKEND_RAM;
	ns.size_bytes = 4096;
	s.ns = &ns;
	s.n_ns = 1;
	c.subsystems = &s;
	c.n_subsystems = 1;
	json_t *j = nvmf_config_to_json(&c);
	json_t *o = json_array_get(
		json_object_get(json_array_get(json_object_get(j, "subsystems"), 0), "namespaces"),
		0);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o, "ana_grpid")), 1);
	json_decref(j);
}

const struct unit_test config_ana_tests[] = {
	{ "namespace_without_ana_keys_is_in_group_1", namespace_without_ana_keys_is_in_group_1 },
	{ "ana_grpid_is_read_as_a_number_or_a_string", ana_grpid_is_read_as_a_number_or_a_string },
	{ "ana_grpid_0_is_refused", ana_grpid_0_is_refused },
	{ "ana_grpid_above_128_is_refused", ana_grpid_above_128_is_refused },
	{ "ana_grpid_as_a_boolean_is_refused", ana_grpid_as_a_boolean_is_refused },
	{ "ana_group_id_text_that_is_not_a_number_is_refused",
	  ana_group_id_text_that_is_not_a_number_is_refused },
	{ "namespace_ana_that_is_not_an_object_is_refused",
	  namespace_ana_that_is_not_an_object_is_refused },
	{ "unknown_key_in_a_namespace_ana_is_refused", unknown_key_in_a_namespace_ana_is_refused },
	{ "ana_grpid_and_ana_grpid_string_disagreeing_are_refused",
	  ana_grpid_and_ana_grpid_string_disagreeing_are_refused },
	{ "namespace_in_a_group_no_port_defines_is_refused",
	  namespace_in_a_group_no_port_defines_is_refused },
	{ "group_defined_on_a_port_not_exposing_the_subsystem_is_enough",
	  group_defined_on_a_port_not_exposing_the_subsystem_is_enough },
	{ "port_groups_and_states_are_read_with_nvmet_defaults",
	  port_groups_and_states_are_read_with_nvmet_defaults },
	{ "port_without_ana_groups_has_group_1_optimized",
	  port_without_ana_groups_has_group_1_optimized },
	{ "ana_groups_that_is_not_an_array_is_refused",
	  ana_groups_that_is_not_an_array_is_refused },
	{ "ana_group_that_is_not_an_object_is_refused",
	  ana_group_that_is_not_an_object_is_refused },
	{ "ana_group_without_grpid_is_refused", ana_group_without_grpid_is_refused },
	{ "ana_group_id_0_is_refused", ana_group_id_0_is_refused },
	{ "ana_group_id_above_128_is_refused", ana_group_id_above_128_is_refused },
	{ "ana_group_listed_twice_on_a_port_is_refused",
	  ana_group_listed_twice_on_a_port_is_refused },
	{ "unknown_ana_state_name_is_refused", unknown_ana_state_name_is_refused },
	{ "ana_state_that_is_not_a_string_is_refused", ana_state_that_is_not_a_string_is_refused },
	{ "ana_state_outside_its_ana_object_is_refused",
	  ana_state_outside_its_ana_object_is_refused },
	{ "unknown_key_in_a_group_ana_object_is_refused",
	  unknown_key_in_a_group_ana_object_is_refused },
	{ "every_state_name_parses_back_to_itself", every_state_name_parses_back_to_itself },
	{ "port_and_namespace_objects_alone_take_the_ana_keys",
	  port_and_namespace_objects_alone_take_the_ana_keys },
	{ "port_copy_owns_its_ana_groups", port_copy_owns_its_ana_groups },
	{ "nvmetcli_tcp_json_ana_keys_load_once_its_trtype_is_rdma",
	  nvmetcli_tcp_json_ana_keys_load_once_its_trtype_is_rdma },
	{ "saved_ana_keys_are_nvmetclis_and_load_back_the_same",
	  saved_ana_keys_are_nvmetclis_and_load_back_the_same },
	{ "namespace_built_in_code_is_saved_in_group_1",
	  namespace_built_in_code_is_saved_in_group_1 },
	{ NULL, NULL },
};
