/* The discovery service's configuration (subsystem/config_discovery.c): a port's
 * referrals as nvmetcli dumps them load with every field, defaults fill what is absent,
 * every bad value stops the load with its one-line message, and what is saved has
 * nvmetcli's layout and loads back the same; nvmf_target.discovery_log and
 * discovery_kato. JSON here is single-quoted for readability (q() below). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "subsystem/config.h"
#include "tests/unit/suites.h"

#define PORT_HEAD                                                                             \
	"{'subsystems':[],'ports':[{'portid':1,'addr':{'trtype':'rdma','traddr':'10.0.0.1'}," \
	"'subsystems':[],'referrals':["
#define PORT_TAIL "]}]}"

static char *q(const char *s)
{
	char *d = strdup(s);
	for (char *p = d; p && *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

/* The config with @refs as ports[0].referrals' elements. */
static int load(const char *refs, struct nvmf_config *cfg, char *err, size_t errlen)
{
	size_t n = strlen(PORT_HEAD) + strlen(refs) + strlen(PORT_TAIL) + 1;
	char *j = malloc(n);
	snprintf(j, n, PORT_HEAD "%s" PORT_TAIL, refs);
	char *d = q(j);
	int rc = nvmf_config_parse(d, cfg, err, errlen);
	free(d);
	free(j);
	return rc;
}

static void expect_error(const char *refs, const char *want)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL(load(refs, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want))
		fprintf(stderr, "\n    got:  %s\n    want: %s\n", err, want);
	CU_ASSERT_PTR_NULL(cfg.ports);
	nvmf_config_free(&cfg);
}

/* As nvmetcli dumps a configfs referral: every attribute a string. */
static void nvmetcli_referral_loads_with_every_field(void)
{
	struct nvmf_config cfg;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(
		load("{'addr':{'adrfam':'ipv6','portid':'9','traddr':'FD00:0::7','treq':'required',"
		     "'trsvcid':'8009','trtype':'tcp'},'enable':1,'name':'east'}",
		     &cfg, err, sizeof(err)),
		0);
	CU_ASSERT_EQUAL_FATAL(cfg.ports[0].n_referrals, 1);
	const struct nvmf_referral_config *r = &cfg.ports[0].referrals[0];
	CU_ASSERT_STRING_EQUAL(r->name, "east");
	CU_ASSERT_STRING_EQUAL(r->trtype, "tcp");
	CU_ASSERT_EQUAL(r->adrfam, AF_INET6);
	CU_ASSERT_STRING_EQUAL(r->traddr, "fd00::7"); /* numeric, canonical */
	CU_ASSERT_STRING_EQUAL(r->trsvcid, "8009");
	CU_ASSERT_EQUAL(r->treq, 1); /* the referred service's: advertised */
	CU_ASSERT_EQUAL(r->portid, 9);
	CU_ASSERT_TRUE(r->enable);
	nvmf_config_free(&cfg);
}

/* Absent fields: adrfam from traddr, the transport's well-known port, port ID 0,
 * enabled; a disabled one is kept. */
static void referral_defaults_fill_what_is_absent(void)
{
	struct nvmf_config cfg;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(
		load("{'addr':{'traddr':'10.2.2.2','trtype':'rdma'},'name':'a'},"
		     "{'addr':{'traddr':'10.2.2.3','trtype':'tcp','trsvcid':'','portid':''},"
		     "'name':'b','enable':'0'}",
		     &cfg, err, sizeof(err)),
		0);
	CU_ASSERT_EQUAL_FATAL(cfg.ports[0].n_referrals, 2);
	const struct nvmf_referral_config *a = &cfg.ports[0].referrals[0],
					  *b = &cfg.ports[0].referrals[1];
	CU_ASSERT_EQUAL(a->adrfam, AF_INET);
	CU_ASSERT_STRING_EQUAL(a->trsvcid, "4420");
	CU_ASSERT_EQUAL(a->portid, 0);
	CU_ASSERT_EQUAL(a->treq, 0);
	CU_ASSERT_TRUE(a->enable);
	CU_ASSERT_STRING_EQUAL(b->trsvcid, "8009");
	CU_ASSERT_FALSE(b->enable);
	nvmf_config_free(&cfg);
}

static void empty_or_absent_referrals_are_none(void)
{
	struct nvmf_config cfg;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(load("", &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.ports[0].n_referrals, 0);
	CU_ASSERT_PTR_NULL(cfg.ports[0].referrals);
	nvmf_config_free(&cfg);
}

#define ERR(name, refs, msg)             \
	static void name(void)           \
	{                                \
		expect_error(refs, msg); \
	}
ERR(referral_that_is_not_an_object_is_refused, "'r1'",
    "ports[0].referrals[0]: expected an object, got \"r1\"")
ERR(referral_without_name_is_refused, "{'addr':{'traddr':'10.0.0.2','trtype':'rdma'}}",
    "ports[0].referrals[0].name: required key is missing")
ERR(referral_with_empty_name_is_refused, "{'addr':{'traddr':'10.0.0.2','trtype':'rdma'},'name':''}",
    "ports[0].referrals[0].name: empty (a referral needs a name)")
ERR(referral_name_with_a_slash_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'rdma'},'name':'a/b'}",
    "ports[0].referrals[0].name: \"a/b\" is not a configfs name (no '/' or control characters)")
ERR(referral_name_used_twice_in_a_port_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'rdma'},'name':'x'},{'addr':{'traddr':'10.0.0.3','trtype':'rdma'},'name':'x'}",
    "ports[0].referrals[1].name: \"x\" is already used by referrals[0]")
ERR(referral_without_addr_is_refused, "{'name':'a'}",
    "ports[0].referrals[0].addr: required key is missing")
ERR(referral_with_fc_transport_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'fc'},'name':'a'}",
    "ports[0].referrals[0].addr.trtype: \"fc\" is not a referral transport (\"rdma\" or \"tcp\")")
ERR(referral_without_trtype_is_refused, "{'addr':{'traddr':'10.0.0.2'},'name':'a'}",
    "ports[0].referrals[0].addr.trtype: required key is missing")
ERR(referral_with_ib_adrfam_is_refused,
    "{'addr':{'adrfam':'ib','traddr':'10.0.0.2','trtype':'rdma'},'name':'a'}",
    "ports[0].referrals[0].addr.adrfam: \"ib\" is not supported for rdma (use \"ipv4\" or \"ipv6\")")
ERR(referral_with_empty_traddr_is_refused, "{'addr':{'traddr':'','trtype':'rdma'},'name':'a'}",
    "ports[0].referrals[0].addr.traddr: empty (a referral needs the IP address of its discovery service)")
ERR(referral_with_a_hostname_is_refused,
    "{'addr':{'traddr':'disc.example','trtype':'tcp'},'name':'a'}",
    "ports[0].referrals[0].addr.traddr: \"disc.example\" is not an IPv4 or IPv6 address")
ERR(referral_ipv6_address_with_ipv4_adrfam_is_refused,
    "{'addr':{'adrfam':'ipv4','traddr':'fd00::1','trtype':'rdma'},'name':'a'}",
    "ports[0].referrals[0].addr.traddr: \"fd00::1\" is an IPv6 address but adrfam is \"ipv4\"")
ERR(referral_ipv4_address_with_ipv6_adrfam_is_refused,
    "{'addr':{'adrfam':'ipv6','traddr':'10.0.0.2','trtype':'rdma'},'name':'a'}",
    "ports[0].referrals[0].addr.traddr: \"10.0.0.2\" is an IPv4 address but adrfam is \"ipv6\"")
ERR(referral_to_a_wildcard_address_is_refused,
    "{'addr':{'traddr':'0.0.0.0','trtype':'rdma'},'name':'a'}",
    "ports[0].referrals[0].addr.traddr: \"0.0.0.0\" is a wildcard address (a referral names the address "
    "hosts connect to)")
ERR(referral_to_the_ipv6_wildcard_is_refused, "{'addr':{'traddr':'::','trtype':'tcp'},'name':'a'}",
    "ports[0].referrals[0].addr.traddr: \"::\" is a wildcard address (a referral names the address "
    "hosts connect to)")
ERR(referral_trsvcid_out_of_range_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'rdma','trsvcid':'70000'},'name':'a'}",
    "ports[0].referrals[0].addr.trsvcid: \"70000\" is not a port number (1-65535)")
ERR(referral_trsvcid_not_a_number_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'rdma','trsvcid':'44x'},'name':'a'}",
    "ports[0].referrals[0].addr.trsvcid: \"44x\" is not a port number (1-65535)")
ERR(referral_portid_out_of_range_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'rdma','portid':'65536'},'name':'a'}",
    "ports[0].referrals[0].addr.portid: \"65536\" is not a port ID (0-65535)")
ERR(referral_unknown_treq_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'rdma','treq':'maybe'},'name':'a'}",
    "ports[0].referrals[0].addr.treq: \"maybe\" is not \"not specified\", \"required\" or \"not required\"")
ERR(referral_enable_not_a_flag_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'rdma'},'name':'a','enable':2}",
    "ports[0].referrals[0].enable: expected 0 or 1 (or true/false), got 2")
ERR(referral_unknown_extension_key_is_refused,
    "{'addr':{'traddr':'10.0.0.2','trtype':'rdma'},'name':'a','nvmf_x':1}",
    "ports[0].referrals[0].nvmf_x: unknown key (known here: name, addr, enable)")

/* "referrals" itself of the wrong type. */
static void referrals_that_are_not_an_array_are_refused(void)
{
	struct nvmf_config cfg;
	char err[256] = "";
	char *j = q(
		"{'ports':[{'portid':1,'addr':{'trtype':'rdma','traddr':'10.0.0.1'},'referrals':{}}]}");
	CU_ASSERT_EQUAL(nvmf_config_parse(j, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "ports[0].referrals: expected an array, got an object");
	free(j);
	nvmf_config_free(&cfg);
}

/* Saved in nvmetcli's layout (strings where it writes strings), loaded back the same. */
static void saved_referrals_have_nvmetcli_layout_and_load_back(void)
{
	struct nvmf_config a, b;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(
		load("{'addr':{'traddr':'10.2.2.2','trtype':'rdma','portid':3},'name':'a'},"
		     "{'addr':{'adrfam':'ipv6','traddr':'fd00::2','trtype':'tcp','treq':'not required'},"
		     "'name':'b','enable':false}",
		     &a, err, sizeof(err)),
		0);
	json_t *j = nvmf_config_to_json(&a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	json_t *refs = json_object_get(json_array_get(json_object_get(j, "ports"), 0), "referrals");
	CU_ASSERT_EQUAL_FATAL(json_array_size(refs), 2);
	json_t *r0 = json_array_get(refs, 0), *addr = json_object_get(r0, "addr");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r0, "name")), "a");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(r0, "enable")), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(addr, "adrfam")), "ipv4");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(addr, "portid")), "3");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(addr, "traddr")), "10.2.2.2");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(addr, "treq")), "not specified");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(addr, "trsvcid")), "4420");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(addr, "trtype")), "rdma");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(refs, 1), "enable")), 0);
	char *text = json_dumps(j, 0);
	json_decref(j);
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(text, &b, err, sizeof(err)), 0);
	free(text);
	CU_ASSERT_TRUE(nvmf_config_referrals_equal(&a.ports[0], &b.ports[0]));
	nvmf_config_free(&a);
	nvmf_config_free(&b);
}

/* The served model keeps its own copy (nvmf_config_port_dup); equality is per field. */
static void port_copy_keeps_its_own_referrals(void)
{
	struct nvmf_config a;
	struct nvmf_port_config c;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(load("{'addr':{'traddr':'10.2.2.2','trtype':'rdma'},'name':'a'}", &a,
				   err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(nvmf_config_port_dup(&a.ports[0], &c), 0);
	CU_ASSERT_PTR_NOT_EQUAL(c.referrals, a.ports[0].referrals);
	CU_ASSERT_TRUE(nvmf_config_referrals_equal(&a.ports[0], &c));
	c.referrals[0].enable = false;
	CU_ASSERT_FALSE(nvmf_config_referrals_equal(&a.ports[0], &c));
	c.n_referrals = 0;
	CU_ASSERT_FALSE(nvmf_config_referrals_equal(&a.ports[0], &c));
	nvmf_config_port_clear(&c);
	nvmf_config_free(&a);
}

/* The whole document @json (single-quoted). */
static int parse_root(const char *json, struct nvmf_config *cfg, char *err, size_t errlen)
{
	char *d = q(json);
	int rc = nvmf_config_parse(d, cfg, err, errlen);
	free(d);
	return rc;
}

static void expect_root_error(const char *json, const char *want)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL(parse_root(json, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want))
		fprintf(stderr, "\n    got:  %s\n    want: %s\n", err, want);
	nvmf_config_free(&cfg);
}

#define ROOT_ERR(name, json, msg)             \
	static void name(void)                \
	{                                     \
		expect_root_error(json, msg); \
	}

ROOT_ERR(unknown_discovery_log_mode_is_refused, "{'nvmf_target':{'discovery_log':'this-port'}}",
	 "nvmf_target.discovery_log: \"this-port\" is not \"all-ports\" or \"host-port\"")
ROOT_ERR(discovery_log_not_a_string_is_refused, "{'nvmf_target':{'discovery_log':1}}",
	 "nvmf_target.discovery_log: expected a string, got 1")
ROOT_ERR(discovery_kato_0_is_refused, "{'nvmf_target':{'discovery_kato':0}}",
	 "nvmf_target.discovery_kato: 0 is not a keep-alive timeout (1-3600 seconds)")
ROOT_ERR(discovery_kato_over_an_hour_is_refused, "{'nvmf_target':{'discovery_kato':3601}}",
	 "nvmf_target.discovery_kato: 3601 is not a keep-alive timeout (1-3600 seconds)")

/* Defaults: every port listed, 120 s (nvmet's); both keys read when present. */
static void discovery_log_and_kato_have_defaults_and_are_read(void)
{
	struct nvmf_config cfg;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(parse_root("{}", &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.target.discovery_log, NVMF_DISC_LOG_ALL_PORTS);
	CU_ASSERT_EQUAL(cfg.target.discovery_kato, 120);
	nvmf_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(
		parse_root("{'nvmf_target':{'discovery_log':'host-port','discovery_kato':7}}", &cfg,
			   err, sizeof(err)),
		0);
	CU_ASSERT_EQUAL(cfg.target.discovery_log, NVMF_DISC_LOG_HOST_PORT);
	CU_ASSERT_EQUAL(cfg.target.discovery_kato, 7);
	CU_ASSERT_STRING_EQUAL(nvmf_disc_log_mode_name(cfg.target.discovery_log), "host-port");
	nvmf_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(parse_root("{'nvmf_target':{'discovery_log':'all-ports'}}", &cfg, err,
					 sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(cfg.target.discovery_log, NVMF_DISC_LOG_ALL_PORTS);
	nvmf_config_free(&cfg);
}

#define T(n)          \
	{             \
#n, n \
	}
const struct unit_test config_discovery_tests[] = {
	T(nvmetcli_referral_loads_with_every_field),
	T(referral_defaults_fill_what_is_absent),
	T(empty_or_absent_referrals_are_none),
	T(referral_that_is_not_an_object_is_refused),
	T(referral_without_name_is_refused),
	T(referral_with_empty_name_is_refused),
	T(referral_name_with_a_slash_is_refused),
	T(referral_name_used_twice_in_a_port_is_refused),
	T(referral_without_addr_is_refused),
	T(referral_with_fc_transport_is_refused),
	T(referral_without_trtype_is_refused),
	T(referral_with_ib_adrfam_is_refused),
	T(referral_with_empty_traddr_is_refused),
	T(referral_with_a_hostname_is_refused),
	T(referral_ipv6_address_with_ipv4_adrfam_is_refused),
	T(referral_ipv4_address_with_ipv6_adrfam_is_refused),
	T(referral_to_a_wildcard_address_is_refused),
	T(referral_to_the_ipv6_wildcard_is_refused),
	T(referral_trsvcid_out_of_range_is_refused),
	T(referral_trsvcid_not_a_number_is_refused),
	T(referral_portid_out_of_range_is_refused),
	T(referral_unknown_treq_is_refused),
	T(referral_enable_not_a_flag_is_refused),
	T(referral_unknown_extension_key_is_refused),
	T(referrals_that_are_not_an_array_are_refused),
	T(saved_referrals_have_nvmetcli_layout_and_load_back),
	T(port_copy_keeps_its_own_referrals),
	T(unknown_discovery_log_mode_is_refused),
	T(discovery_log_not_a_string_is_refused),
	T(discovery_kato_0_is_refused),
	T(discovery_kato_over_an_hour_is_refused),
	T(discovery_log_and_kato_have_defaults_and_are_read),
	{ NULL, NULL },
};
