/* SPDX-License-Identifier: MIT */
/*
 * The gateway group's configuration (subsystem/config_gateway.c): "nvmf_gateway" loads
 * with its defaults, is written back so that it loads the same, and every bad value is
 * refused by its path with what is wrong (one test each). nvmf_gateway_config_diff names
 * the key a reload would have to change.
 *
 * JSON here is written with single quotes; cfg_test_quoted() turns them into double quotes.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subsystem/config.h"
#include "tests/unit/subsystem/config_util.h"
#include "tests/unit/suites.h"

/* A tcp port defining groups 2 and 3, a namespace in each; @gw the nvmf_gateway object. */
#define ADDR "'addr':{'trtype':'tcp','adrfam':'ipv4','traddr':'127.0.0.1','trsvcid':'4420'}"
#define PORT                                                      \
	"{'portid':1," ADDR ",'subsystems':['s1'],'ana_groups':[" \
	"{'grpid':2,'ana':{'state':'optimized'}},"                \
	"{'grpid':3,'ana':{'state':'non-optimized'}}]}"
#define SUB                                                                     \
	"{'nqn':'s1','attr':{'allow_any_host':'1'},'namespaces':["              \
	"{'nsid':1,'nvmf_backend':'ram','nvmf_size_bytes':4096,'ana_grpid':2}," \
	"{'nsid':2,'nvmf_backend':'ram','nvmf_size_bytes':4096,'ana_grpid':3}]}"
#define DOC(gw) "{'ports':[" PORT "],'subsystems':[" SUB "],'nvmf_gateway':" gw "}"
#define GROUPS  "'ana_groups':[{'grpid':2,'preferred':'gw-a'},{'grpid':3,'preferred':'gw-b'}]"
#define GW(extra) \
	DOC("{'name':'gw-a','group':'g1','ceph_conf':'/etc/ceph/ceph.conf'," GROUPS extra "}")
#define GW_KEYS(keys) DOC("{" keys "}")

#define ERROR_TEST(name, json, msg)               \
	static void name(void)                    \
	{                                         \
		cfg_test_expect_error(json, msg); \
	}

static void gateway_loads_with_its_defaults(void)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse(GW(""), &cfg, err, sizeof(err)), 0);
	const struct nvmf_gateway_config *g = &cfg.gateway;
	CU_ASSERT_TRUE(g->enable);
	CU_ASSERT_STRING_EQUAL(g->name, "gw-a");
	CU_ASSERT_STRING_EQUAL(g->group, "g1");
	CU_ASSERT_STRING_EQUAL(g->ceph_conf, "/etc/ceph/ceph.conf");
	CU_ASSERT_STRING_EQUAL(g->keyring, "");
	CU_ASSERT_STRING_EQUAL(g->client_id, "admin");
	CU_ASSERT_STRING_EQUAL(g->pool, "rbd");
	CU_ASSERT_EQUAL(g->lease_seconds, 10);
	CU_ASSERT_EQUAL_FATAL(g->n_ana_groups, 2);
	CU_ASSERT_EQUAL(g->ana_groups[0].grpid, 2);
	CU_ASSERT_STRING_EQUAL(g->ana_groups[0].preferred, "gw-a");
	CU_ASSERT_EQUAL(g->ana_groups[1].grpid, 3);
	CU_ASSERT_STRING_EQUAL(g->ana_groups[1].preferred, "gw-b");
	nvmf_config_free(&cfg);
}

static void absent_gateway_is_disabled_and_not_saved(void)
{
	struct nvmf_config cfg;
	char err[512] = "";
	char *j = cfg_test_quoted("{'ports':[" PORT "],'subsystems':[" SUB "]}");
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(j, &cfg, err, sizeof(err)), 0);
	free(j);
	CU_ASSERT_FALSE(cfg.gateway.enable);
	json_t *root = nvmf_config_to_json(&cfg);
	CU_ASSERT_PTR_NULL(json_object_get(root, "nvmf_gateway"));
	json_decref(root);
	nvmf_config_free(&cfg);
}

static void saved_gateway_loads_back_the_same(void)
{
	struct nvmf_config cfg, back;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(
		cfg_test_parse(GW(",'keyring':'/etc/ceph/k','client_id':'nvmf','pool':'p.x',"
				  "'lease_seconds':30"),
			       &cfg, err, sizeof(err)),
		0);
	json_t *root = nvmf_config_to_json(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	char *text = json_dumps(root, 0);
	json_decref(root);
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(text, &back, err, sizeof(err)), 0);
	free(text);
	CU_ASSERT_PTR_NULL(nvmf_gateway_config_diff(&cfg.gateway, &back.gateway));
	CU_ASSERT_STRING_EQUAL(back.gateway.keyring, "/etc/ceph/k");
	CU_ASSERT_STRING_EQUAL(back.gateway.client_id, "nvmf");
	CU_ASSERT_STRING_EQUAL(back.gateway.pool, "p.x");
	CU_ASSERT_EQUAL(back.gateway.lease_seconds, 30);
	nvmf_config_free(&cfg);
	nvmf_config_free(&back);
}

static void diff_names_the_first_key_that_differs(void)
{
	struct nvmf_config a, b;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse(GW(""), &a, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse(GW(""), &b, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(nvmf_gateway_config_diff(&a.gateway, &b.gateway));
	b.gateway.lease_seconds = 20;
	CU_ASSERT_STRING_EQUAL(nvmf_gateway_config_diff(&a.gateway, &b.gateway),
			       "nvmf_gateway.lease_seconds");
	b.gateway.lease_seconds = 10;
	strcpy(b.gateway.ana_groups[1].preferred, "gw-c");
	CU_ASSERT_STRING_EQUAL(nvmf_gateway_config_diff(&a.gateway, &b.gateway),
			       "nvmf_gateway.ana_groups");
	strcpy(b.gateway.name, "gw-z");
	CU_ASSERT_STRING_EQUAL(nvmf_gateway_config_diff(&a.gateway, &b.gateway),
			       "nvmf_gateway.name");
	b.gateway.enable = false;
	CU_ASSERT_STRING_EQUAL(nvmf_gateway_config_diff(&a.gateway, &b.gateway), "nvmf_gateway");
	a.gateway.enable = false;
	CU_ASSERT_PTR_NULL(nvmf_gateway_config_diff(&a.gateway, &b.gateway));
	nvmf_config_free(&a);
	nvmf_config_free(&b);
}

ERROR_TEST(unknown_key_is_refused_with_a_suggestion, GW(",'lease_secnods':10"),
	   "nvmf_gateway.lease_secnods: unknown key; did you mean 'lease_seconds'? (known here: "
	   "name, group, ceph_conf, keyring, client_id, pool, lease_seconds, ana_groups)")
ERROR_TEST(missing_name_is_refused,
	   GW_KEYS("'group':'g1','ceph_conf':'/etc/ceph/ceph.conf'," GROUPS),
	   "nvmf_gateway.name: required key is missing")
ERROR_TEST(name_with_a_dot_is_refused,
	   GW_KEYS("'name':'gw.a','group':'g1','ceph_conf':'/etc/ceph/ceph.conf'," GROUPS),
	   "nvmf_gateway.name: \"gw.a\" is not a name (1-63 of A-Z a-z 0-9 _ -; it is part of "
	   "the lock objects' names)")
ERROR_TEST(empty_group_is_refused,
	   GW_KEYS("'name':'gw-a','group':'','ceph_conf':'/etc/ceph/ceph.conf'," GROUPS),
	   "nvmf_gateway.group: \"\" is not a name (1-63 of A-Z a-z 0-9 _ -; it is part of "
	   "the lock objects' names)")
ERROR_TEST(relative_ceph_conf_is_refused,
	   GW_KEYS("'name':'gw-a','group':'g1','ceph_conf':'ceph.conf'," GROUPS),
	   "nvmf_gateway.ceph_conf: \"ceph.conf\" is not an absolute path")
ERROR_TEST(relative_keyring_is_refused, GW(",'keyring':'k'"),
	   "nvmf_gateway.keyring: \"k\" is not an absolute path")
ERROR_TEST(client_id_with_its_type_is_refused, GW(",'client_id':'client.admin'"),
	   "nvmf_gateway.client_id: \"client.admin\" is not a Ceph user ID (1-63 of A-Z a-z 0-9 "
	   "_ . -, without \"client.\": \"admin\" is client.admin)")
ERROR_TEST(pool_with_a_space_is_refused, GW(",'pool':'my pool'"),
	   "nvmf_gateway.pool: \"my pool\" is not a pool name (1-127 printable characters, no "
	   "spaces)")
ERROR_TEST(short_lease_is_refused, GW(",'lease_seconds':2"),
	   "nvmf_gateway.lease_seconds: 2 is not a lease in seconds (3-120)")
ERROR_TEST(long_lease_is_refused, GW(",'lease_seconds':121"),
	   "nvmf_gateway.lease_seconds: 121 is not a lease in seconds (3-120)")
ERROR_TEST(missing_ana_groups_is_refused,
	   GW_KEYS("'name':'gw-a','group':'g1','ceph_conf':'/etc/ceph/ceph.conf'"),
	   "nvmf_gateway.ana_groups: required key is missing")
ERROR_TEST(empty_ana_groups_is_refused,
	   GW_KEYS("'name':'gw-a','group':'g1','ceph_conf':'/c','ana_groups':[]"),
	   "nvmf_gateway.ana_groups: empty: a gateway group shares at least one ANA group")
ERROR_TEST(group_listed_twice_is_refused,
	   GW_KEYS("'name':'gw-a','group':'g1','ceph_conf':'/c','ana_groups':["
		   "{'grpid':2,'preferred':'gw-a'},{'grpid':2,'preferred':'gw-b'}]"),
	   "nvmf_gateway.ana_groups[1].grpid: group 2 is listed twice (also ana_groups[0])")
ERROR_TEST(group_no_port_defines_is_refused,
	   GW_KEYS("'name':'gw-a','group':'g1','ceph_conf':'/c','ana_groups':["
		   "{'grpid':7,'preferred':'gw-a'}]"),
	   "nvmf_gateway.ana_groups[0].grpid: group 7 is defined by no port of this target "
	   "(list it in a port's ana_groups)")
ERROR_TEST(group_out_of_range_is_refused,
	   GW_KEYS("'name':'gw-a','group':'g1','ceph_conf':'/c','ana_groups':["
		   "{'grpid':129,'preferred':'gw-a'}]"),
	   "nvmf_gateway.ana_groups[0].grpid: 129 is not an ANA group ID (1-128)")
ERROR_TEST(group_without_preferred_is_refused,
	   GW_KEYS("'name':'gw-a','group':'g1','ceph_conf':'/c','ana_groups':[{'grpid':2}]"),
	   "nvmf_gateway.ana_groups[0].preferred: required key is missing")
ERROR_TEST(gateway_that_is_not_an_object_is_refused, DOC("'gw-a'"),
	   "nvmf_gateway: expected an object, got \"gw-a\"")

const struct unit_test config_gateway_tests[] = {
	{ "gateway_loads_with_its_defaults", gateway_loads_with_its_defaults },
	{ "absent_gateway_is_disabled_and_not_saved", absent_gateway_is_disabled_and_not_saved },
	{ "saved_gateway_loads_back_the_same", saved_gateway_loads_back_the_same },
	{ "diff_names_the_first_key_that_differs", diff_names_the_first_key_that_differs },
	{ "unknown_key_is_refused_with_a_suggestion", unknown_key_is_refused_with_a_suggestion },
	{ "missing_name_is_refused", missing_name_is_refused },
	{ "name_with_a_dot_is_refused", name_with_a_dot_is_refused },
	{ "empty_group_is_refused", empty_group_is_refused },
	{ "relative_ceph_conf_is_refused", relative_ceph_conf_is_refused },
	{ "relative_keyring_is_refused", relative_keyring_is_refused },
	{ "client_id_with_its_type_is_refused", client_id_with_its_type_is_refused },
	{ "pool_with_a_space_is_refused", pool_with_a_space_is_refused },
	{ "short_lease_is_refused", short_lease_is_refused },
	{ "long_lease_is_refused", long_lease_is_refused },
	{ "missing_ana_groups_is_refused", missing_ana_groups_is_refused },
	{ "empty_ana_groups_is_refused", empty_ana_groups_is_refused },
	{ "group_listed_twice_is_refused", group_listed_twice_is_refused },
	{ "group_no_port_defines_is_refused", group_no_port_defines_is_refused },
	{ "group_out_of_range_is_refused", group_out_of_range_is_refused },
	{ "group_without_preferred_is_refused", group_without_preferred_is_refused },
	{ "gateway_that_is_not_an_object_is_refused", gateway_that_is_not_an_object_is_refused },
	{ NULL, NULL },
};
