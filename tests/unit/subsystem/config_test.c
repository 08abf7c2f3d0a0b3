/* SPDX-License-Identifier: MIT */
/*
 * Configuration loader: nvmetcli's own files, our shipped examples, defaults, and one
 * test per invalid field asserting the exact one-line message.
 *
 * JSON in this file is written with single quotes for readability; cfg_test_quoted() turns them into
 * double quotes before parsing (no test value contains an apostrophe).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvme/wire.h"
#include "subsystem/config.h"
#include "tests/unit/subsystem/config_util.h"
#include "tests/unit/suites.h"
#include "util/size.h"

static bool expect_ok(const char *json, struct nvmf_config *cfg)
{
	char err[512] = "";
	int rc = cfg_test_parse(json, cfg, err, sizeof(err));

	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "\n    unexpected error: %s\n", err);
	return rc == 0;
}

/* Building blocks: a valid one-port, one-subsystem, one-namespace document, with one
 * part replaced per test. */
#define ADDR          "'trtype':'rdma','adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':'4420'"
#define PORT_A(a)     "{'portid':1,'addr':{" a "},'subsystems':['s1']}"
#define PORT_P(p)     "{'portid':1,'addr':{" ADDR "},'param':{" p "},'subsystems':['s1']}"
#define NS            "{'nsid':1,'device':{'path':'/tmp/x'}}"
#define ANY           "'allow_any_host':'1'"
#define SUB(a, ns)    "{'nqn':'s1','attr':{" a "},'namespaces':[" ns "]}"
#define DOC(p, s)     "{'ports':[" p "],'subsystems':[" s "]}"
#define WITH_NS(ns)   DOC(PORT_A(ADDR), SUB(ANY, ns))
#define WITH_ATTR(a)  DOC(PORT_A(ADDR), SUB(a, NS))
#define WITH_ADDR(a)  DOC(PORT_A(a), SUB(ANY, NS))
#define WITH_PARAM(p) DOC(PORT_P(p), SUB(ANY, NS))
#define RAM(extra)    "{'nsid':1,'nvmf_backend':'ram'" extra "}"

/* One test per invalid field: the document and the exact message. */
#define ERROR_TEST(name, json, msg)               \
	static void name(void)                    \
	{                                         \
		cfg_test_expect_error(json, msg); \
	}

/* ---- nvmetcli's own files (shared/data/nvmetcli) ---------------------------------- */

/* The shared data sits beside the repository (../shared from the repo root, locally and
 * in CI); $NVMF_SHARED may point at that shared/ folder instead. */
static bool shared_file(const char *name, char *out, size_t n)
{
	const char *env = getenv("NVMF_SHARED");
	/* The copy kept in the repository first; NVMF_SHARED or ../shared can point at the
	 * team's shared originals. */
	const char *dirs[4][2] = { { "tests/data", "/nvmetcli/" },
				   { env, "/data/nvmetcli/" },
				   { env, "/" },
				   { "..", "/shared/data/nvmetcli/" } };

	for (int i = 0; i < 4; i++) {
		if (!dirs[i][0])
			continue;
		snprintf(out, n, "%s%s%s", dirs[i][0], dirs[i][1], name);
		if (!access(out, R_OK))
			return true;
	}
	fprintf(stderr, "\n    %s not found (run from the repo root: tests/data/nvmetcli/)\n",
		name);
	return false;
}

static void load_shared_expect_error(const char *name, const char *want)
{
	struct nvmf_config cfg;
	char path[512], err[512] = "";

	CU_ASSERT_FATAL(shared_file(name, path, sizeof(path)));
	CU_ASSERT_EQUAL(nvmf_config_load(path, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	nvmf_config_free(&cfg);
}

static void nvmetcli_rdma_json_loads_unchanged(void)
{
	static const uint8_t nguid[16] = { 0xef, 0x90, 0x68, 0x9c, 0x6c, 0x46, 0xd4, 0x4c,
					   0x89, 0xc1, 0x40, 0x67, 0x80, 0x13, 0x09, 0xa8 };
	struct nvmf_config cfg;
	char path[512], err[512] = "";

	CU_ASSERT_FATAL(shared_file("rdma.json", path, sizeof(path)));
	CU_ASSERT_EQUAL_FATAL(nvmf_config_load(path, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.n_hosts, 1);
	CU_ASSERT_STRING_EQUAL(cfg.hosts[0], "hostnqn");
	CU_ASSERT_EQUAL_FATAL(cfg.n_ports, 1);
	CU_ASSERT_EQUAL(cfg.ports[0].portid, 2);
	CU_ASSERT_EQUAL(cfg.ports[0].adrfam, AF_INET);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].traddr, "192.168.6.68");
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trsvcid, "4420");
	CU_ASSERT_EQUAL(cfg.ports[0].treq, 0);
	CU_ASSERT_EQUAL(cfg.ports[0].inline_data_size, 8192);
	CU_ASSERT_EQUAL(cfg.ports[0].max_queue_size, 128);
	CU_ASSERT_EQUAL_FATAL(cfg.ports[0].n_subsystems, 1);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].subsystems[0], "testnqn");
	CU_ASSERT_EQUAL_FATAL(cfg.n_subsystems, 1);
	CU_ASSERT_STRING_EQUAL(cfg.subsystems[0].nqn, "testnqn");
	CU_ASSERT_TRUE(cfg.subsystems[0].allow_any_host);
	CU_ASSERT_EQUAL(cfg.subsystems[0].n_allowed_hosts, 0);
	CU_ASSERT_EQUAL_FATAL(cfg.subsystems[0].n_ns, 1);
	struct nvmf_ns_config *ns = &cfg.subsystems[0].ns[0];
	CU_ASSERT_EQUAL(ns->nsid, 1);
	CU_ASSERT_TRUE(ns->enable);
	CU_ASSERT_STRING_EQUAL(ns->path, "/dev/nvme0n1");
	CU_ASSERT_EQUAL(ns->kind, NVMF_BACKEND_AUTO);
	CU_ASSERT_TRUE(ns->has_nguid);
	CU_ASSERT_EQUAL(memcmp(ns->nguid, nguid, 16), 0);
	CU_ASSERT_FALSE(ns->has_uuid);
	CU_ASSERT_STRING_EQUAL(cfg.target.discovery_nqn, "nqn.2014-08.org.nvmexpress.discovery");
	nvmf_config_free(&cfg);
}

static void nvmetcli_fc_json_is_refused_for_its_trtype(void)
{
	load_shared_expect_error(
		"fc.json",
		"ports[0].addr.trtype: \"fc\" is not supported (this target serves rdma and tcp)");
}

static void nvmetcli_loop_json_is_refused_for_its_trtype(void)
{
	load_shared_expect_error(
		"loop.json",
		"ports[0].addr.trtype: \"loop\" is not supported (this target serves rdma and tcp)");
}

/* tcp.json carries the most attributes (version, cntlid, serial, uuid, ana, param):
 * every one of them loads, and so does its tcp port; with its trtype changed to rdma the
 * same file loads too. */
static void nvmetcli_tcp_json_loads_with_its_tcp_port(void)
{
	struct nvmf_config cfg;
	char path[512], err[512] = "";

	CU_ASSERT_FATAL(shared_file("tcp.json", path, sizeof(path)));
	CU_ASSERT_EQUAL_FATAL(nvmf_config_load(path, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.n_ports, 1);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trtype, "tcp");
	CU_ASSERT_EQUAL(cfg.ports[0].adrfam, AF_INET);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].traddr, "192.168.122.33");
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trsvcid, "4420");
	CU_ASSERT_EQUAL(cfg.ports[0].inline_data_size, 16384);
	CU_ASSERT_EQUAL(cfg.ports[0].maxh2cdata, 0); /* the default */
	CU_ASSERT_STRING_EQUAL(cfg.subsystems[0].nqn, "nvmet-always");
	nvmf_config_free(&cfg);
}

static void nvmetcli_tcp_json_attributes_load_when_trtype_is_rdma(void)
{
	static const uint8_t uuid[16] = { 0xd5, 0x92, 0xcd, 0xf3, 0x5d, 0x1c, 0x44, 0xe0,
					  0x84, 0x12, 0x3f, 0xcf, 0x7d, 0x99, 0xdf, 0x27 };
	struct nvmf_config cfg;
	char path[512], err[512] = "", *text, *t;
	FILE *f;
	long n;

	CU_ASSERT_FATAL(shared_file("tcp.json", path, sizeof(path)));
	CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "r"));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 2);
	CU_ASSERT_EQUAL(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t = strstr(text, "\"trtype\": \"tcp\""));
	memmove(t + 16, t + 15, strlen(t + 15) + 1); /* "tcp" -> "rdma" */
	memcpy(t + 11, "rdma\"", 5);
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(text, &cfg, err, sizeof(err)), 0);
	struct nvmf_subsys_config *s = &cfg.subsystems[0];
	CU_ASSERT_STRING_EQUAL(s->nqn, "nvmet-always");
	CU_ASSERT_EQUAL(s->version, 0x00010300);
	CU_ASSERT_EQUAL(s->cntlid_min, 1);
	CU_ASSERT_EQUAL(s->cntlid_max, 65519);
	CU_ASSERT_STRING_EQUAL(s->serial, "123456789abcdef");
	CU_ASSERT_STRING_EQUAL(s->model, "Linux");
	CU_ASSERT_TRUE(s->ns[0].has_uuid);
	CU_ASSERT_EQUAL(memcmp(s->ns[0].uuid, uuid, 16), 0);
	CU_ASSERT_FALSE(s->ns[0].has_nguid); /* all-zero NGUID = none */
	CU_ASSERT_EQUAL(cfg.ports[0].inline_data_size, 16384);
	CU_ASSERT_EQUAL(cfg.n_hosts, 0);
	nvmf_config_free(&cfg);
	free(text);
}

/* ---- shipped examples (configs/) ------------------------------------------------- */

static bool load_example(const char *path, struct nvmf_config *cfg)
{
	char err[512] = "";
	int rc = nvmf_config_load(path, cfg, err, sizeof(err));

	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "\n    %s: %s\n", path, err);
	return rc == 0;
}

static void check_example_port(const struct nvmf_config *cfg)
{
	CU_ASSERT_EQUAL_FATAL(cfg->n_ports, 1);
	CU_ASSERT_EQUAL(cfg->ports[0].adrfam, AF_INET);
	CU_ASSERT_STRING_EQUAL(cfg->ports[0].traddr, "0.0.0.0");
	CU_ASSERT_STRING_EQUAL(cfg->ports[0].trsvcid, "4420");
}

static void example_file_json_loads_as_a_created_1gib_file(void)
{
	struct nvmf_config cfg;

	CU_ASSERT_FATAL(load_example("configs/file.json", &cfg));
	check_example_port(&cfg);
	CU_ASSERT_EQUAL_FATAL(cfg.subsystems[0].n_ns, 1);
	struct nvmf_ns_config *ns = &cfg.subsystems[0].ns[0];
	CU_ASSERT_EQUAL(ns->kind, NVMF_BACKEND_FILE);
	CU_ASSERT_STRING_EQUAL(ns->path, "/var/tmp/nvmf-file0.img");
	CU_ASSERT_EQUAL(ns->size_bytes, 1ull << 30);
	CU_ASSERT_EQUAL(ns->block_size, 512);
	CU_ASSERT_TRUE(ns->create);
	CU_ASSERT_TRUE(ns->has_uuid);
	nvmf_config_free(&cfg);
}

static void example_ram_json_loads_a_ram_and_a_null_namespace(void)
{
	struct nvmf_config cfg;

	CU_ASSERT_FATAL(load_example("configs/ram.json", &cfg));
	check_example_port(&cfg);
	CU_ASSERT_EQUAL_FATAL(cfg.subsystems[0].n_ns, 2);
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].kind, NVMF_BACKEND_RAM);
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].size_bytes, 128ull << 20);
	CU_ASSERT_PTR_NULL(cfg.subsystems[0].ns[0].path);
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[1].kind, NVMF_BACKEND_NULL);
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[1].block_size, 4096);
	CU_ASSERT_EQUAL(cfg.target.mdts, 8);
	nvmf_config_free(&cfg);
}

static void example_two_subsystems_json_exposes_both_on_one_port(void)
{
	struct nvmf_config cfg;

	CU_ASSERT_FATAL(load_example("configs/two-subsystems.json", &cfg));
	check_example_port(&cfg);
	CU_ASSERT_EQUAL_FATAL(cfg.n_subsystems, 2);
	CU_ASSERT_EQUAL_FATAL(cfg.ports[0].n_subsystems, 2);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].subsystems[0], cfg.subsystems[0].nqn);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].subsystems[1], cfg.subsystems[1].nqn);
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].kind, NVMF_BACKEND_FILE);
	CU_ASSERT_EQUAL(cfg.subsystems[1].n_ns, 2);
	nvmf_config_free(&cfg);
}

/* The quick start for a machine without RDMA: a tcp port on 127.0.0.1:4420 serving a
 * RAM namespace, nothing that needs root or an RDMA device. */
static void example_tcp_json_is_a_tcp_port_on_loopback_with_a_ram_namespace(void)
{
	struct nvmf_config cfg;

	CU_ASSERT_FATAL(load_example("configs/tcp.json", &cfg));
	CU_ASSERT_EQUAL_FATAL(cfg.n_ports, 1);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trtype, "tcp");
	CU_ASSERT_EQUAL(cfg.ports[0].adrfam, AF_INET);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].traddr, "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trsvcid, "4420");
	CU_ASSERT_EQUAL_FATAL(cfg.n_subsystems, 1);
	CU_ASSERT_STRING_EQUAL(cfg.subsystems[0].nqn, "nqn.2024-01.io.nvmf-rdma:tcp0");
	CU_ASSERT_TRUE(cfg.subsystems[0].allow_any_host);
	CU_ASSERT_EQUAL_FATAL(cfg.subsystems[0].n_ns, 1);
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].kind, NVMF_BACKEND_RAM);
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].size_bytes, 128ull << 20);
	nvmf_config_free(&cfg);
}

/* ---- defaults and accepted forms -------------------------------------------------- */

static void minimal_config_gets_the_documented_defaults(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(
		    DOC("{'portid':1,'addr':{'trtype':'rdma','adrfam':'','traddr':'10.0.0.1','trsvcid':'',"
			"'treq':''},'param':{'inline_data_size':'-1','max_queue_size':'-1'},'subsystems':['s1']}",
			"{'nqn':'s1','namespaces':[{'nsid':7,'device':{'path':'/tmp/x'}}]}"),
		    &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.ports[0].adrfam, AF_INET);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trsvcid, "4420");
	CU_ASSERT_EQUAL(cfg.ports[0].inline_data_size, 8192);
	CU_ASSERT_EQUAL(cfg.ports[0].max_queue_size, 128);
	struct nvmf_subsys_config *s = &cfg.subsystems[0];
	CU_ASSERT_FALSE(s->allow_any_host); /* the kernel's default for a new subsystem */
	CU_ASSERT_EQUAL(s->cntlid_min, 1);
	CU_ASSERT_EQUAL(s->cntlid_max, 0xffef);
	CU_ASSERT_EQUAL(s->qid_max, 128);
	CU_ASSERT_EQUAL(s->version, 0);
	CU_ASSERT_STRING_EQUAL(s->serial, "");
	CU_ASSERT_TRUE(s->ns[0].enable);
	CU_ASSERT_EQUAL(s->ns[0].kind, NVMF_BACKEND_AUTO);
	CU_ASSERT_EQUAL(s->ns[0].size_bytes, 0);
	CU_ASSERT_EQUAL(s->ns[0].block_size, 0);
	CU_ASSERT_EQUAL(cfg.target.mdts, 8);
	CU_ASSERT_EQUAL(cfg.target.threads, 1);
	CU_ASSERT_EQUAL(cfg.target.buffers_small, 1024);
	CU_ASSERT_EQUAL(cfg.target.buffers_large, 64);
	CU_ASSERT_TRUE(cfg.target.hugepages);
	CU_ASSERT_TRUE(cfg.target.persist); /* live changes written through by default */
	CU_ASSERT_EQUAL(cfg.target.idle_poll_us, 1000);
	CU_ASSERT_TRUE(cfg.target.srq);
	CU_ASSERT_EQUAL(cfg.target.srq_depth, 4096);
	CU_ASSERT_EQUAL(cfg.target.post_thread, -1); /* auto: software devices */
	CU_ASSERT_EQUAL(cfg.target.numa_node, -1);
	CU_ASSERT_STRING_EQUAL(cfg.target.discovery_nqn, "nqn.2014-08.org.nvmexpress.discovery");
	nvmf_config_free(&cfg);
}

static void empty_adrfam_is_inferred_from_an_ipv6_traddr(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(
		    WITH_ADDR("'trtype':'rdma','adrfam':'','traddr':'fe80::0:1','trsvcid':'4420'"),
		    &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.ports[0].adrfam, AF_INET6);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].traddr, "fe80::1");
	nvmf_config_free(&cfg);
}

static void json_numbers_and_booleans_are_accepted_where_nvmetcli_writes_strings(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(
		    DOC("{'portid':1,'addr':{'trtype':'rdma','traddr':'0.0.0.0','trsvcid':4421,'treq':'not required'},"
			"'param':{'inline_data_size':0,'max_queue_size':16},'subsystems':['s1']}",
			"{'nqn':'s1','attr':{'allow_any_host':true,'cntlid_min':5,'qid_max':4},"
			"'namespaces':[{'nsid':1,'enable':false,'device':{'path':'/tmp/x'}}]}"),
		    &cfg))
		return;
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trsvcid, "4421");
	CU_ASSERT_EQUAL(cfg.ports[0].treq, 2);
	CU_ASSERT_EQUAL(cfg.ports[0].inline_data_size, 0);
	CU_ASSERT_EQUAL(cfg.ports[0].max_queue_size, 16);
	CU_ASSERT_TRUE(cfg.subsystems[0].allow_any_host);
	CU_ASSERT_EQUAL(cfg.subsystems[0].cntlid_min, 5);
	CU_ASSERT_EQUAL(cfg.subsystems[0].qid_max, 4);
	CU_ASSERT_FALSE(cfg.subsystems[0].ns[0].enable);
	nvmf_config_free(&cfg);
}

static void unused_nvmetcli_keys_are_ignored(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(
		    "{'discovery':{'nqn':'nqn.2014-08.org.nvmexpress.discovery'},"
		    "'hosts':[{'nqn':'h1','dhchap':{'key':'','ctrl_key':'','hash':'hmac(sha256)','dhgroup':'null'}}],"
		    "'ports':[{'portid':1,'addr':{" ADDR ",'tsas':'connected'},'referrals':[],"
		    "'ana_groups':[{'ana':{'state':'optimized'},'grpid':1}],'param':{'pi_enable':'0'},"
		    "'subsystems':['s1']}],"
		    "'subsystems':[{'nqn':'s1','allowed_hosts':['h1'],'attr':{'allow_any_host':'0',"
		    "'ieee_oui':'0x000000','pi_enable':'0','vendor_id':'0x0','firmware':'6.12.0'},"
		    "'namespaces':[{'nsid':1,'ana_grpid':1,'ana':{'grpid':'1'},'resv':{'enable':'0'},"
		    "'device':{'path':'/dev/nvme0n1','uuid':'','nguid':''}}]}]}",
		    &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.subsystems[0].n_allowed_hosts, 1);
	CU_ASSERT_STRING_EQUAL(cfg.subsystems[0].allowed_hosts[0], "h1");
	CU_ASSERT_STRING_EQUAL(cfg.subsystems[0].firmware, "6.12.0");
	CU_ASSERT_FALSE(cfg.subsystems[0].ns[0].has_uuid);
	CU_ASSERT_EQUAL(cfg.n_notes, 0); /* every unused key at its default */
	nvmf_config_free(&cfg);
}

/* nvmetcli writes a passthru group for every subsystem on a kernel with passthru: one
 * that is off (enable 0, no device path) asks for nothing and loads. */
static void inactive_passthru_as_nvmetcli_writes_it_loads(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[" NS "],"
					 "'passthru':[{'admin_timeout':0,'clear_ids':1,"
					 "'device':{'path':''},'enable':0,'io_timeout':0}]}"),
		       &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.n_subsystems, 1);
	CU_ASSERT_EQUAL(cfg.subsystems[0].n_ns, 1);
	CU_ASSERT_FALSE(cfg.subsystems[0].passthru.enable);
	CU_ASSERT_EQUAL(cfg.n_notes, 0);
	nvmf_config_free(&cfg);
}

static void subsystem_closed_to_all_hosts_is_legal(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(WITH_ATTR("'allow_any_host':'0'"), &cfg))
		return;
	CU_ASSERT_FALSE(cfg.subsystems[0].allow_any_host);
	CU_ASSERT_EQUAL(cfg.subsystems[0].n_allowed_hosts, 0);
	nvmf_config_free(&cfg);
}

static void sizes_take_binary_suffixes_and_plain_integers(void)
{
	static const struct {
		const char *v;
		uint64_t bytes;
	} cases[] = {
		{ "'64M'", 64ull << 20 },     { "'4k'", 4096 },
		{ "'2T'", 2ull << 40 },       { "'1048576'", 1048576 },
		{ "1073741824", 1ull << 30 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nvmf_config cfg;
		char doc[512];

		snprintf(doc, sizeof(doc),
			 WITH_NS("{'nsid':1,'nvmf_backend':'null','nvmf_size_bytes':%s}"),
			 cases[i].v);
		if (!expect_ok(doc, &cfg))
			continue;
		CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].size_bytes, cases[i].bytes);
		nvmf_config_free(&cfg);
	}
}

static void identifiers_parse_in_all_accepted_forms(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(
		    WITH_NS("{'nsid':1,'device':{'path':'/tmp/x','uuid':'D592CDF3-5D1C-44E0-8412-3FCF7D99DF27',"
			    "'nguid':'00112233445566778899aabbccddeeff'},'nvmf_eui64':'0011223344556677'}"),
		    &cfg))
		return;
	struct nvmf_ns_config *ns = &cfg.subsystems[0].ns[0];
	CU_ASSERT_TRUE(ns->has_uuid && ns->has_nguid && ns->has_eui64);
	CU_ASSERT_EQUAL(ns->uuid[0], 0xd5);
	CU_ASSERT_EQUAL(ns->uuid[15], 0x27);
	CU_ASSERT_EQUAL(ns->nguid[1], 0x11);
	CU_ASSERT_EQUAL(ns->nguid[15], 0xff);
	CU_ASSERT_EQUAL(ns->eui64[7], 0x77);
	nvmf_config_free(&cfg);
}

static void version_strings_pack_major_minor_and_tertiary(void)
{
	static const struct {
		const char *v;
		uint32_t vs;
	} cases[] = {
		{ "1.3", 0x00010300 },
		{ "2.0", 0x00020000 },
		{ "1.2.1", 0x00010201 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nvmf_config cfg;
		char doc[512];

		snprintf(doc, sizeof(doc), WITH_ATTR("'version':'%s'"), cases[i].v);
		if (!expect_ok(doc, &cfg))
			continue;
		CU_ASSERT_EQUAL(cfg.subsystems[0].version, cases[i].vs);
		nvmf_config_free(&cfg);
	}
}

static void nvmf_create_without_a_backend_means_a_file(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(WITH_NS("{'nsid':1,'device':{'path':'/tmp/new.img'},'nvmf_create':true,"
			       "'nvmf_size_bytes':'1M','nvmf_buffered':true}"),
		       &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.subsystems[0].ns[0].kind, NVMF_BACKEND_FILE);
	CU_ASSERT_TRUE(cfg.subsystems[0].ns[0].buffered);
	nvmf_config_free(&cfg);
}

static void disabled_namespace_may_have_an_empty_path(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(WITH_NS("{'nsid':1,'enable':0,'device':{'path':'','uuid':''}}"), &cfg))
		return;
	CU_ASSERT_FALSE(cfg.subsystems[0].ns[0].enable);
	CU_ASSERT_PTR_NULL(cfg.subsystems[0].ns[0].path);
	nvmf_config_free(&cfg);
}

static void same_nsid_in_two_subsystems_is_fine(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(DOC(PORT_A(ADDR), SUB(ANY, NS) ",{'nqn':'s2','namespaces':[" NS "]}"), &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.n_subsystems, 2);
	nvmf_config_free(&cfg);
}

/* ---- JSON syntax and files -------------------------------------------------------- */

ERROR_TEST(json_syntax_error_names_line_and_column, "{\n  'ports': [\n    ]]\n}",
	   "line 3, column 6: '}' expected near ']'")
ERROR_TEST(duplicate_json_key_is_refused, "{'ports':[],'ports':[]}",
	   "line 1, column 19: duplicate object key near '\"ports\"'")
ERROR_TEST(document_that_is_not_an_object_is_refused, "[1]",
	   "the configuration must be a JSON object, got an array")

static void load_of_a_missing_file_names_the_file(void)
{
	struct nvmf_config cfg;
	char err[512] = "";

	CU_ASSERT_EQUAL(nvmf_config_load("/nonexistent/nvmf.json", &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err,
			       "cannot open /nonexistent/nvmf.json: No such file or directory");
}

static void load_of_a_broken_file_names_line_and_column(void)
{
	char path[] = "/tmp/nvmf-config-test-XXXXXX";
	struct nvmf_config cfg;
	char err[512] = "";
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "{\n  \"hosts\": [,]\n}\n", 19), 19);
	close(fd);
	CU_ASSERT_EQUAL(nvmf_config_load(path, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "line 2, column 13: unexpected token near ','");
	unlink(path);
}

/* A directory or an empty file is named for what it is, not as JSON ending early. */
static void load_of_a_directory_says_it_is_a_directory(void)
{
	char dir[] = "/tmp/nvmf-config-dir-XXXXXX";
	struct nvmf_config cfg;
	char err[512] = "";

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	CU_ASSERT_EQUAL(nvmf_config_load(dir, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "is a directory, not a configuration file");
	CU_ASSERT_EQUAL(cfg.n_ports, 0);
	rmdir(dir);
}

/* Only a regular file of at most 16 MiB: a device, a FIFO (not waited on for a writer)
 * and a larger file are refused naming what they are, before their bytes could grow
 * memory without bound. */
static void load_refuses_what_is_not_a_regular_file_and_files_past_16_mib(void)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL(nvmf_config_load("/dev/null", &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "is a character device, not a regular file");
	CU_ASSERT_EQUAL(nvmf_config_load("/dev/zero", &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "is a character device, not a regular file");
	char dir[] = "/tmp/nvmf-config-kind-XXXXXX", path[64];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	CU_ASSERT_EQUAL(nvmf_config_load(path, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "is a FIFO, not a regular file");
	unlink(path);
	/* 16 MiB of white space and an object: one byte too many */
	snprintf(path, sizeof(path), "%s/big.json", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	static char spaces[1 << 16];
	memset(spaces, ' ', sizeof(spaces));
	for (unsigned i = 0; i < (16u << 20) / sizeof(spaces); i++)
		CU_ASSERT_EQUAL_FATAL(fwrite(spaces, 1, sizeof(spaces), f), sizeof(spaces));
	fputs("{}", f);
	fclose(f);
	CU_ASSERT_EQUAL(nvmf_config_load(path, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "is larger than 16 MiB (the limit for this file)");
	/* at the limit it loads */
	CU_ASSERT_EQUAL(truncate(path, 16u << 20), 0);
	f = fopen(path, "r+");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, -2, SEEK_END);
	fputs("{}", f);
	fclose(f);
	CU_ASSERT_EQUAL(nvmf_config_load(path, &cfg, err, sizeof(err)), 0);
	nvmf_config_free(&cfg);
	unlink(path);
	rmdir(dir);
}

static void load_of_an_empty_or_blank_file_says_it_is_empty(void)
{
	static const char *const bodies[] = { "", " \n\t\n" };
	for (size_t i = 0; i < 2; i++) {
		char path[] = "/tmp/nvmf-config-test-XXXXXX";
		struct nvmf_config cfg;
		char err[512] = "";
		int fd = mkstemp(path);

		CU_ASSERT_FATAL(fd >= 0);
		CU_ASSERT_EQUAL(write(fd, bodies[i], strlen(bodies[i])),
				(ssize_t)strlen(bodies[i]));
		close(fd);
		CU_ASSERT_EQUAL(nvmf_config_load(path, &cfg, err, sizeof(err)), -1);
		CU_ASSERT_STRING_EQUAL(err, "is empty (a configuration is one JSON object)");
		unlink(path);
	}
}

/* A file larger than the loader's first read buffer loads whole. */
static void load_of_a_file_larger_than_a_page_reads_all_of_it(void)
{
	char path[] = "/tmp/nvmf-config-test-XXXXXX";
	struct nvmf_config cfg;
	char err[512] = "";
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "{\"hosts\": [", 11), 11);
	for (int i = 0; i < 400; i++) {
		char h[96];
		int n = snprintf(h, sizeof(h), "%s{\"nqn\": \"nqn.2014-08.org.example:host-%04d\"}",
				 i ? ", " : "", i);
		CU_ASSERT_EQUAL(write(fd, h, (size_t)n), n);
	}
	CU_ASSERT_EQUAL(write(fd, "]}\n", 3), 3);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(nvmf_config_load(path, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.n_hosts, 400);
	if (cfg.n_hosts == 400)
		CU_ASSERT_STRING_EQUAL(cfg.hosts[399], "nqn.2014-08.org.example:host-0399");
	nvmf_config_free(&cfg);
	unlink(path);
}

/* ---- wrong types and missing keys ------------------------------------------------- */

ERROR_TEST(nsid_as_a_string_names_the_expected_type,
	   WITH_NS("{'nsid':'x','device':{'path':'/tmp/x'}}"),
	   "subsystems[0].namespaces[0].nsid: expected an integer, got \"x\"")
ERROR_TEST(missing_nsid_is_named, WITH_NS("{'device':{'path':'/tmp/x'}}"),
	   "subsystems[0].namespaces[0].nsid: required key is missing")
ERROR_TEST(attr_as_an_array_names_the_expected_type, DOC(PORT_A(ADDR), "{'nqn':'s1','attr':[]}"),
	   "subsystems[0].attr: expected an object, got an array")
ERROR_TEST(subsystems_as_an_object_names_the_expected_type, "{'subsystems':{}}",
	   "subsystems: expected an array, got an object")
ERROR_TEST(namespace_that_is_not_an_object_is_refused, WITH_NS("3"),
	   "subsystems[0].namespaces[0]: expected an object, got 3")
ERROR_TEST(missing_subsystem_nqn_is_named, DOC(PORT_A(ADDR), "{'namespaces':[]}"),
	   "subsystems[0].nqn: required key is missing")
ERROR_TEST(missing_port_addr_is_named, DOC("{'portid':1}", SUB(ANY, NS)),
	   "ports[0].addr: required key is missing")
ERROR_TEST(missing_trtype_is_named, WITH_ADDR("'traddr':'0.0.0.0'"),
	   "ports[0].addr.trtype: required key is missing")
ERROR_TEST(missing_portid_is_named, DOC("{'addr':{" ADDR "}}", SUB(ANY, NS)),
	   "ports[0].portid: required key is missing")
ERROR_TEST(serial_as_a_number_names_the_expected_type, WITH_ATTR("'serial':12"),
	   "subsystems[0].attr.serial: expected a string, got 12")

/* ---- namespaces ------------------------------------------------------------------- */

ERROR_TEST(nsid_0_is_not_a_valid_namespace_id, WITH_NS("{'nsid':0,'device':{'path':'/tmp/x'}}"),
	   "subsystems[0].namespaces[0].nsid: 0 is not a valid namespace ID (1-1024)")
ERROR_TEST(nsid_above_1024_is_not_a_valid_namespace_id,
	   WITH_NS("{'nsid':1025,'device':{'path':'/tmp/x'}}"),
	   "subsystems[0].namespaces[0].nsid: 1025 is not a valid namespace ID (1-1024)")
ERROR_TEST(duplicate_nsid_in_a_subsystem_is_refused, WITH_NS(NS "," NS),
	   "subsystems[0].namespaces[1].nsid: 1 is already used by namespaces[0]")
ERROR_TEST(enable_other_than_0_or_1_is_refused,
	   WITH_NS("{'nsid':1,'enable':2,'device':{'path':'/tmp/x'}}"),
	   "subsystems[0].namespaces[0].enable: expected 0 or 1 (or true/false), got 2")
ERROR_TEST(
	file_namespace_without_a_path_is_refused, WITH_NS("{'nsid':1,'nvmf_backend':'file'}"),
	"subsystems[0].namespaces[0].device.path: required key is missing (needed unless nvmf_backend is \"ram\" or \"null\")")
ERROR_TEST(
	enabled_namespace_with_an_empty_path_is_refused,
	WITH_NS("{'nsid':1,'enable':1,'device':{'path':''}}"),
	"subsystems[0].namespaces[0].device.path: empty (needed unless nvmf_backend is \"ram\" or \"null\")")
/* ---- rbd namespaces ---- */

#define RBD(extra) \
	"{'nsid':1,'nvmf_backend':'rbd','nvmf_rbd_pool':'rbd','nvmf_rbd_image':'img1'" extra "}"
#define RBD_ERR "subsystems[0].namespaces[0]."

static void rbd_namespace_takes_its_keys_and_defaults(void)
{
	struct nvmf_config cfg;
	if (!expect_ok(WITH_NS(RBD("")), &cfg))
		return;
	const struct nvmf_ns_config *ns = &cfg.subsystems[0].ns[0];
	CU_ASSERT_EQUAL(ns->kind, NVMF_BACKEND_RBD);
	CU_ASSERT_STRING_EQUAL(ns->rbd.pool, "rbd");
	CU_ASSERT_STRING_EQUAL(ns->rbd.image, "img1");
	CU_ASSERT_STRING_EQUAL(ns->rbd.rados_ns, "");
	CU_ASSERT_STRING_EQUAL(ns->rbd.conf, "/etc/ceph/ceph.conf");
	CU_ASSERT_STRING_EQUAL(ns->rbd.keyring, "");
	CU_ASSERT_STRING_EQUAL(ns->rbd.client_id, "admin");
	CU_ASSERT_PTR_NULL(ns->path);
	nvmf_config_free(&cfg);
	if (!expect_ok(WITH_NS(RBD(",'nvmf_rbd_namespace':'tenant1','nvmf_rbd_conf':'/c/ceph.conf',"
				   "'nvmf_rbd_keyring':'/k/gw.keyring','nvmf_rbd_client_id':'gw1',"
				   "'nvmf_block_size':4096")),
		       &cfg))
		return;
	ns = &cfg.subsystems[0].ns[0];
	CU_ASSERT_STRING_EQUAL(ns->rbd.rados_ns, "tenant1");
	CU_ASSERT_STRING_EQUAL(ns->rbd.conf, "/c/ceph.conf");
	CU_ASSERT_STRING_EQUAL(ns->rbd.keyring, "/k/gw.keyring");
	CU_ASSERT_STRING_EQUAL(ns->rbd.client_id, "gw1");
	CU_ASSERT_EQUAL(ns->block_size, 4096);
	nvmf_config_free(&cfg);
}

ERROR_TEST(rbd_namespace_without_a_pool_is_refused,
	   WITH_NS("{'nsid':1,'nvmf_backend':'rbd','nvmf_rbd_image':'img1'}"),
	   RBD_ERR "nvmf_rbd_pool: required key is missing")
ERROR_TEST(rbd_namespace_without_an_image_is_refused,
	   WITH_NS("{'nsid':1,'nvmf_backend':'rbd','nvmf_rbd_pool':'rbd'}"),
	   RBD_ERR "nvmf_rbd_image: required key is missing")
ERROR_TEST(rbd_namespace_with_a_device_path_is_refused,
	   WITH_NS(RBD(",'device':{'path':'/dev/rbd0'}")),
	   RBD_ERR "device.path: an \"rbd\" namespace has no device path (its image is "
		   "nvmf_rbd_pool and nvmf_rbd_image)")
ERROR_TEST(rbd_namespace_with_a_size_is_refused, WITH_NS(RBD(",'nvmf_size_bytes':'1G'")),
	   RBD_ERR "nvmf_size_bytes: an \"rbd\" namespace has no file: its size is the image's "
		   "(rbd resize changes it)")
ERROR_TEST(rbd_namespace_buffered_is_refused, WITH_NS(RBD(",'nvmf_buffered':true")),
	   RBD_ERR "nvmf_buffered: an \"rbd\" namespace has no file: its size is the image's "
		   "(rbd resize changes it)")
ERROR_TEST(rbd_namespace_create_is_refused, WITH_NS(RBD(",'nvmf_create':true")),
	   RBD_ERR "nvmf_create: an \"rbd\" namespace has no file: its size is the image's "
		   "(rbd resize changes it)")
ERROR_TEST(rbd_namespace_with_reservations_is_refused, WITH_NS(RBD(",'resv':{'enable':'1'}")),
	   RBD_ERR "resv: reservations cannot be enabled on an \"rbd\" namespace: reservations "
		   "are per-gateway state, and are not shared with the other gateways serving "
		   "the same image, so a host fenced off here could still write through "
		   "another gateway")
ERROR_TEST(rbd_relative_conf_is_refused, WITH_NS(RBD(",'nvmf_rbd_conf':'ceph.conf'")),
	   RBD_ERR "nvmf_rbd_conf: \"ceph.conf\" is not an absolute path")
ERROR_TEST(rbd_relative_keyring_is_refused, WITH_NS(RBD(",'nvmf_rbd_keyring':'k'")),
	   RBD_ERR "nvmf_rbd_keyring: \"k\" is not an absolute path")
ERROR_TEST(rbd_client_id_with_the_client_prefix_is_refused,
	   WITH_NS(RBD(",'nvmf_rbd_client_id':'client.nvmf'")),
	   RBD_ERR "nvmf_rbd_client_id: \"client.nvmf\" is not a Ceph user ID: give it without "
		   "\"client.\" (\"nvmf\")")
ERROR_TEST(rbd_image_name_with_a_slash_is_refused,
	   WITH_NS("{'nsid':1,'nvmf_backend':'rbd','nvmf_rbd_pool':'rbd','nvmf_rbd_image':'a/b'}"),
	   RBD_ERR "nvmf_rbd_image: \"a/b\" is not a Ceph name (printable ASCII without spaces, "
		   "'/' or '@')")
ERROR_TEST(rbd_empty_pool_is_refused,
	   WITH_NS("{'nsid':1,'nvmf_backend':'rbd','nvmf_rbd_pool':'','nvmf_rbd_image':'i'}"),
	   RBD_ERR "nvmf_rbd_pool: is empty")
ERROR_TEST(rbd_key_on_a_file_namespace_is_refused,
	   WITH_NS("{'nsid':1,'device':{'path':'/tmp/x'},'nvmf_rbd_pool':'rbd'}"),
	   RBD_ERR "nvmf_rbd_pool: only an \"rbd\" namespace has it (nvmf_backend is \"auto\")")
ERROR_TEST(rbd_key_on_a_ram_namespace_is_refused,
	   WITH_NS("{'nsid':1,'nvmf_backend':'ram','nvmf_size_bytes':'1M','nvmf_rbd_keyring':'/k'}"),
	   RBD_ERR "nvmf_rbd_keyring: only an \"rbd\" namespace has it (nvmf_backend is \"ram\")")

ERROR_TEST(relative_device_path_is_refused, WITH_NS("{'nsid':1,'device':{'path':'disk.img'}}"),
	   "subsystems[0].namespaces[0].device.path: \"disk.img\" is not an absolute path")
ERROR_TEST(
	unknown_backend_is_refused,
	WITH_NS("{'nsid':1,'nvmf_backend':'spdk','device':{'path':'/x'}}"),
	"subsystems[0].namespaces[0].nvmf_backend: \"spdk\" is not a backend (file, bdev, nvme, ram, null or rbd)")
ERROR_TEST(
	ram_namespace_without_a_size_is_refused, WITH_NS(RAM("")),
	"subsystems[0].namespaces[0].nvmf_size_bytes: required key is missing (a \"ram\" namespace needs its size)")
ERROR_TEST(
	ram_namespace_of_size_0_is_refused, WITH_NS(RAM(",'nvmf_size_bytes':0")),
	"subsystems[0].namespaces[0].nvmf_size_bytes: must be greater than 0 for a \"ram\" namespace")
ERROR_TEST(null_namespace_with_a_path_is_refused,
	   WITH_NS("{'nsid':1,'nvmf_backend':'null','nvmf_size_bytes':4096,'device':{'path':'/x'}}"),
	   "subsystems[0].namespaces[0].device.path: a \"null\" namespace has no backing path")
ERROR_TEST(buffered_ram_namespace_is_refused,
	   WITH_NS(RAM(",'nvmf_size_bytes':4096,'nvmf_buffered':true")),
	   "subsystems[0].namespaces[0].nvmf_buffered: a \"ram\" namespace has no file to buffer")
ERROR_TEST(size_with_an_unknown_suffix_is_refused, WITH_NS(RAM(",'nvmf_size_bytes':'64X'")),
	   "subsystems[0].namespaces[0].nvmf_size_bytes: \"64X\" is not a size (" NVMF_SIZE_GRAMMAR
	   ")")
ERROR_TEST(negative_size_is_refused, WITH_NS(RAM(",'nvmf_size_bytes':-4096")),
	   "subsystems[0].namespaces[0].nvmf_size_bytes: -4096 is not a size (" NVMF_SIZE_GRAMMAR
	   ")")
ERROR_TEST(
	size_that_overflows_is_refused, WITH_NS(RAM(",'nvmf_size_bytes':'99999999T'")),
	"subsystems[0].namespaces[0].nvmf_size_bytes: \"99999999T\" is not a size (" NVMF_SIZE_GRAMMAR
	")")
ERROR_TEST(
	size_as_a_boolean_names_the_expected_type, WITH_NS(RAM(",'nvmf_size_bytes':true")),
	"subsystems[0].namespaces[0].nvmf_size_bytes: expected an integer or a string like \"64M\", got true")
ERROR_TEST(
	size_not_a_multiple_of_the_block_size_is_refused,
	WITH_NS(RAM(",'nvmf_size_bytes':'6K','nvmf_block_size':4096")),
	"subsystems[0].namespaces[0].nvmf_size_bytes: \"6K\" is not a multiple of the block size (4096)")
ERROR_TEST(
	block_size_other_than_512_or_4096_is_refused,
	WITH_NS(RAM(",'nvmf_size_bytes':'1M','nvmf_block_size':1024")),
	"subsystems[0].namespaces[0].nvmf_block_size: 1024 is not a supported block size (512 or 4096)")
ERROR_TEST(
	nvmf_create_on_a_block_device_is_refused,
	WITH_NS("{'nsid':1,'nvmf_backend':'bdev','nvmf_create':true,'nvmf_size_bytes':'1M','device':{'path':'/dev/sdb'}}"),
	"subsystems[0].namespaces[0].nvmf_create: only a \"file\" namespace can be created (nvmf_backend is \"bdev\")")
ERROR_TEST(
	nvmf_create_without_a_size_is_refused,
	WITH_NS("{'nsid':1,'nvmf_create':true,'device':{'path':'/x'}}"),
	"subsystems[0].namespaces[0].nvmf_create: needs nvmf_size_bytes (the size of the file to create)")
ERROR_TEST(
	malformed_uuid_is_refused,
	WITH_NS("{'nsid':1,'device':{'path':'/x','uuid':'d592cdf3-5d1c-44e0-8412'}}"),
	"subsystems[0].namespaces[0].device.uuid: \"d592cdf3-5d1c-44e0-8412\" is not a UUID (8-4-4-4-12 or 32 hex digits)")
ERROR_TEST(
	malformed_nguid_is_refused, WITH_NS("{'nsid':1,'device':{'path':'/x','nguid':'xyz'}}"),
	"subsystems[0].namespaces[0].device.nguid: \"xyz\" is not an NGUID (32 hex digits, or 8-4-4-4-12 like a UUID)")
ERROR_TEST(malformed_eui64_is_refused,
	   WITH_NS("{'nsid':1,'device':{'path':'/x'},'nvmf_eui64':'00112233'}"),
	   "subsystems[0].namespaces[0].nvmf_eui64: \"00112233\" is not an EUI-64 (16 hex digits)")
ERROR_TEST(
	unknown_extension_key_in_a_namespace_is_refused,
	WITH_NS("{'nsid':1,'device':{'path':'/x'},'nvmf_blocksize':512}"),
	"subsystems[0].namespaces[0].nvmf_blocksize: unknown key; did you mean 'nvmf_block_size'? "
	"(known here: nsid, enable, device, ana_grpid, ana, resv, nvmf_backend, nvmf_size_bytes, "
	"nvmf_block_size, nvmf_create, nvmf_buffered, nvmf_eui64, nvmf_rbd_pool, nvmf_rbd_image, nvmf_rbd_namespace, nvmf_rbd_conf, nvmf_rbd_keyring, nvmf_rbd_client_id)")

/* ---- subsystems ------------------------------------------------------------------- */

ERROR_TEST(duplicate_subsystem_nqn_is_refused, DOC(PORT_A(ADDR), SUB(ANY, NS) "," SUB(ANY, NS)),
	   "subsystems[1].nqn: duplicate NQN \"s1\"")
ERROR_TEST(
	subsystem_with_the_discovery_nqn_is_refused,
	"{'subsystems':[{'nqn':'nqn.2014-08.org.nvmexpress.discovery'}]}",
	"subsystems[0].nqn: \"nqn.2014-08.org.nvmexpress.discovery\" is the discovery subsystem's NQN")
/* With discovery.nqn set, hosts still reach discovery with the well-known NQN: no NVM
 * subsystem may take it. */
ERROR_TEST(subsystem_with_the_well_known_discovery_nqn_is_refused_under_a_unique_discovery_nqn,
	   "{'discovery':{'nqn':'nqn.2026-12.io.nvmf-rdma:disc'},"
	   "'subsystems':[{'nqn':'nqn.2014-08.org.nvmexpress.discovery'}]}",
	   "subsystems[0].nqn: \"nqn.2014-08.org.nvmexpress.discovery\" is the well-known discovery "
	   "NQN, which always reaches the discovery service")
/* A passthru subsystem's namespaces are the drive's: namespaces[] beside it is refused
 * by name (the kernel refuses enabling both too). */
ERROR_TEST(
	enabled_passthru_with_namespaces_is_refused_naming_the_subsystem,
	DOC(PORT_A(ADDR),
	    "{'nqn':'s1','attr':{" ANY "},'namespaces':[" NS "],'passthru':[{'admin_timeout':0,"
	    "'clear_ids':1,'device':{'path':'/dev/nvme0'},'enable':1,'io_timeout':0}]}"),
	"subsystems[0].passthru[0]: subsystem \"s1\" serves the drive /dev/nvme0 by passthru, and "
	"also has namespaces[] (nsid 1): a passthru subsystem's namespaces are the drive's; remove "
	"namespaces[] or set enable 0")
ERROR_TEST(enabled_passthru_without_a_device_path_is_refused,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[],'passthru':[{'device':"
			     "{'path':''},'enable':'1'}]}"),
	   "subsystems[0].passthru[0].device.path: required when passthru is enabled: the NVMe "
	   "controller's char device, like \"/dev/nvme0\"")
/* A relative drive path would depend on the daemon's working directory. */
ERROR_TEST(passthru_relative_device_path_is_refused,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[],'passthru':[{'device':"
			     "{'path':'nvme0'},'enable':1}]}"),
	   "subsystems[0].passthru[0].device.path: \"nvme0\" is not an absolute path")
/* A control character would split the log lines that name the drive. */
ERROR_TEST(passthru_device_path_with_a_newline_is_refused,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[],'passthru':[{'device':"
			     "{'path':'/dev/nvme0\\nerror: forged'},'enable':1}]}"),
	   "subsystems[0].passthru[0].device.path: \"/dev/nvme0?error: forged\" has a control "
	   "character")
ERROR_TEST(passthru_negative_timeout_is_refused,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[],'passthru':[{'device':"
			     "{'path':'/dev/nvme0'},'enable':1,'admin_timeout':-1}]}"),
	   "subsystems[0].passthru[0].admin_timeout: -1 is not a timeout in seconds (0-86400, 0 = "
	   "the drive's default)")
ERROR_TEST(passthru_timeout_that_is_not_a_number_is_refused,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[],'passthru':[{'device':"
			     "{'path':'/dev/nvme0'},'enable':1,'io_timeout':'soon'}]}"),
	   "subsystems[0].passthru[0].io_timeout: \"soon\" is not a timeout in seconds (0-86400, 0 "
	   "= the drive's default)")
ERROR_TEST(
	passthru_with_two_entries_is_refused,
	DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[],'passthru':[{'enable':0},"
			  "{'enable':0}]}"),
	"subsystems[0].passthru: has 2 entries; a subsystem has one passthru group (the kernel's "
	"configfs passthru/ directory)")

/* An enabled passthru loads into s->passthru: timeouts as numbers or nvmetcli's strings,
 * clear_ids 1 unless given. */
static void enabled_passthru_loads(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[],"
					 "'passthru':[{'admin_timeout':'30','device':{'path':"
					 "'/dev/nvme0'},'enable':1,'io_timeout':7}]}"),
		       &cfg))
		return;
	const struct nvmf_passthru_config *p = &cfg.subsystems[0].passthru;
	CU_ASSERT_TRUE(p->enable);
	CU_ASSERT_STRING_EQUAL(p->device_path, "/dev/nvme0");
	CU_ASSERT_EQUAL(p->admin_timeout, 30);
	CU_ASSERT_EQUAL(p->io_timeout, 7);
	CU_ASSERT_TRUE(p->clear_ids);
	CU_ASSERT_EQUAL(cfg.subsystems[0].n_ns, 0);
	nvmf_config_free(&cfg);
}

/* Off, with a path kept: the subsystem serves its namespaces[], and a note says so. */
static void disabled_passthru_with_a_path_loads_with_a_note(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[" NS "],"
					 "'passthru':[{'clear_ids':0,'device':{'path':"
					 "'/dev/nvme0'},'enable':'0'}]}"),
		       &cfg))
		return;
	const struct nvmf_passthru_config *p = &cfg.subsystems[0].passthru;
	CU_ASSERT_FALSE(p->enable);
	CU_ASSERT_FALSE(p->clear_ids);
	CU_ASSERT_STRING_EQUAL(p->device_path, "/dev/nvme0");
	CU_ASSERT_EQUAL(cfg.subsystems[0].n_ns, 1);
	CU_ASSERT_EQUAL_FATAL(cfg.n_notes, 1);
	CU_ASSERT_STRING_EQUAL(cfg.notes[0],
			       "subsystems[0].passthru[0]: passthru of \"/dev/nvme0\" is off "
			       "(enable 0): subsystem s1 serves its namespaces[] instead");
	nvmf_config_free(&cfg);
}

/* Off, with a path and no namespaces[]: the note says it serves nothing. */
static void disabled_passthru_without_namespaces_notes_it_serves_nothing(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(DOC(PORT_A(ADDR),
			   "{'nqn':'s1','attr':{" ANY "},'namespaces':[],"
			   "'passthru':[{'device':{'path':'/dev/nvme0'},'enable':0}]}"),
		       &cfg))
		return;
	CU_ASSERT_EQUAL_FATAL(cfg.n_notes, 1);
	CU_ASSERT_STRING_EQUAL(cfg.notes[0],
			       "subsystems[0].passthru[0]: passthru of \"/dev/nvme0\" is off "
			       "(enable 0): subsystem s1 serves no namespace (it has no "
			       "namespaces[]; set enable 1 to serve the drive)");
	nvmf_config_free(&cfg);
}

ERROR_TEST(
	passthru_that_is_not_a_list_is_refused,
	DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[" NS "],'passthru':'on'}"),
	"subsystems[0].passthru: expected a list of one object (as nvmetcli writes it), got \"on\"")
ERROR_TEST(nqn_with_a_space_is_refused, "{'subsystems':[{'nqn':'my disk'}]}",
	   "subsystems[0].nqn: \"my disk\" is not an NQN (no spaces or control characters)")
ERROR_TEST(empty_nqn_is_refused, "{'subsystems':[{'nqn':''}]}",
	   "subsystems[0].nqn: empty (an NQN is 1-223 characters)")
ERROR_TEST(
	nqn_longer_than_223_characters_is_refused,
	"{'subsystems':[{'nqn':'nqn.2024-01.io.example:"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"x'}]}",
	"subsystems[0].nqn: NQN of 224 characters is too long (at most 223)")
ERROR_TEST(allow_any_host_yes_is_refused, WITH_ATTR("'allow_any_host':'yes'"),
	   "subsystems[0].attr.allow_any_host: expected 0 or 1 (or true/false), got \"yes\"")
/* Listed hosts are kept with allow_any_host on: they apply once it is turned off (the
 * daemon warns at start-up, docs/configuration.md). */
static void allow_any_host_keeps_its_allowed_hosts(void)
{
	struct nvmf_config cfg;
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse("{'hosts':[{'nqn':'h1'}],'ports':[" PORT_A(
						     ADDR) "],'subsystems':[{'nqn':'s1',"
							   "'attr':{" ANY
							   "},'allowed_hosts':['h1']}]}",
					     &cfg, err, sizeof(err)),
			      0);
	CU_ASSERT_TRUE(cfg.subsystems[0].allow_any_host);
	CU_ASSERT_EQUAL(cfg.subsystems[0].n_allowed_hosts, 1);
	nvmf_config_free(&cfg);
}
/* The host entry holds the key: an allowed host without one, a typo of either NQN, would
 * connect unauthenticated. nvmetcli cannot write it (an allowed host links to hosts/NQN). */
ERROR_TEST(allowed_host_without_a_hosts_entry_is_refused_naming_both,
	   "{'hosts':[{'nqn':'h1'},{'nqn':'nqn.h:tpyo','dhchap':{'key':"
	   "'DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:'}}],"
	   "'ports':[" PORT_A(ADDR) "],'subsystems':[{'nqn':'s1','attr':{'allow_any_host':'0'},"
				    "'allowed_hosts':['h1','nqn.h:typo']}]}",
	   "subsystems[0].allowed_hosts[1]: host \"nqn.h:typo\" of subsystem s1 has no hosts[] "
	   "entry (nvmetcli: an allowed host must exist; were one of the NQNs mistyped, the host "
	   "would connect without the key of its entry)")
ERROR_TEST(allowed_host_with_no_hosts_at_all_is_refused,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'allowed_hosts':['h1']}"),
	   "subsystems[0].allowed_hosts[0]: host \"h1\" of subsystem s1 has no hosts[] entry "
	   "(nvmetcli: an allowed host must exist; were one of the NQNs mistyped, the host would "
	   "connect without the key of its entry)")
ERROR_TEST(secret_given_as_an_nqn_is_refused_without_showing_it,
	   "{'hosts':[{'nqn':'DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:'}]}",
	   "hosts[0].nqn: a secret (not shown) is not an NQN")
ERROR_TEST(allowed_host_listed_twice_is_refused,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','allowed_hosts':['h1','h1']}"),
	   "subsystems[0].allowed_hosts[1]: \"h1\" is listed twice")
ERROR_TEST(serial_longer_than_20_characters_is_refused,
	   WITH_ATTR("'serial':'123456789012345678901'"),
	   "subsystems[0].attr.serial: \"123456789012345678901\" is longer than 20 characters")
ERROR_TEST(serial_with_a_non_ascii_character_is_refused, WITH_ATTR("'serial':'caf\u00e9'"),
	   "subsystems[0].attr.serial: \"caf\xc3\xa9\" is not printable ASCII")
ERROR_TEST(
	model_longer_than_40_characters_is_refused,
	WITH_ATTR("'model':'12345678901234567890123456789012345678901'"),
	"subsystems[0].attr.model: \"12345678901234567890123456789012345678901\" is longer than 40 characters")
ERROR_TEST(firmware_longer_than_8_characters_is_refused, WITH_ATTR("'firmware':'6.12.0-rc1'"),
	   "subsystems[0].attr.firmware: \"6.12.0-rc1\" is longer than 8 characters")
ERROR_TEST(
	malformed_version_is_refused, WITH_ATTR("'version':'1.x'"),
	"subsystems[0].attr.version: \"1.x\" is not an NVMe version (like \"1.3\", \"2.0\" or \"1.2.1\")")
ERROR_TEST(cntlid_min_above_cntlid_max_is_refused,
	   WITH_ATTR("'cntlid_min':'100','cntlid_max':'50'"),
	   "subsystems[0].attr.cntlid_min: 100 is greater than cntlid_max 50")
ERROR_TEST(cntlid_max_above_65519_is_refused, WITH_ATTR("'cntlid_max':'65520'"),
	   "subsystems[0].attr.cntlid_max: \"65520\" is not a controller ID (1-65519)")
ERROR_TEST(cntlid_min_0_is_refused, WITH_ATTR("'cntlid_min':'0'"),
	   "subsystems[0].attr.cntlid_min: \"0\" is not a controller ID (1-65519)")
ERROR_TEST(qid_max_above_128_is_refused, WITH_ATTR("'qid_max':'129'"),
	   "subsystems[0].attr.qid_max: \"129\" is not an I/O queue count (1-128)")
ERROR_TEST(
	subsystem_pi_enable_1_is_refused, WITH_ATTR("'pi_enable':'1'"),
	"subsystems[0].attr.pi_enable: \"1\" is not supported (this target has no T10 protection information)")

/* ---- ports ------------------------------------------------------------------------ */

ERROR_TEST(port_naming_an_unknown_subsystem_is_refused,
	   DOC("{'portid':1,'addr':{" ADDR "},'subsystems':['foo']}", SUB(ANY, NS)),
	   "ports[0].subsystems[0]: \"foo\" names no subsystem in \"subsystems\"")
ERROR_TEST(port_listing_a_subsystem_twice_is_refused,
	   DOC("{'portid':1,'addr':{" ADDR "},'subsystems':['s1','s1']}", SUB(ANY, NS)),
	   "ports[0].subsystems[1]: \"s1\" is listed twice")
ERROR_TEST(fc_trtype_is_refused, WITH_ADDR("'trtype':'fc','traddr':'0.0.0.0'"),
	   "ports[0].addr.trtype: \"fc\" is not supported (this target serves rdma and tcp)")
ERROR_TEST(tcp_empty_traddr_is_refused, WITH_ADDR("'trtype':'tcp','traddr':''"),
	   "ports[0].addr.traddr: empty (a tcp port needs an IPv4 or IPv6 address)")
ERROR_TEST(
	tcp_treq_required_is_refused, WITH_ADDR("'trtype':'tcp','traddr':'::','treq':'required'"),
	"ports[0].addr.treq: \"required\" asks for a secure channel: set addr.tsas to \"tls1.3\", "
	"or use \"not specified\"")
#define TCP_PARAM(p)                                                                          \
	DOC("{'portid':1,'addr':{'trtype':'tcp','traddr':'::1','trsvcid':'4420'},'param':{" p \
	    "},'subsystems':['s1']}",                                                         \
	    SUB(ANY, NS))
ERROR_TEST(
	maxh2cdata_below_4096_is_refused, TCP_PARAM("'nvmf_maxh2cdata':'4092'"),
	"ports[0].param.nvmf_maxh2cdata: \"4092\" is not a MAXH2CDATA (4096-16777216 bytes, a multiple "
	"of 4, or -1 for the default 131072)")
ERROR_TEST(
	maxh2cdata_not_a_dword_multiple_is_refused, TCP_PARAM("'nvmf_maxh2cdata':8190"),
	"ports[0].param.nvmf_maxh2cdata: 8190 is not a MAXH2CDATA (4096-16777216 bytes, a multiple "
	"of 4, or -1 for the default 131072)")
ERROR_TEST(maxh2cdata_on_an_rdma_port_is_refused, WITH_PARAM("'nvmf_maxh2cdata':65536"),
	   "ports[0].param.nvmf_maxh2cdata: only a tcp port takes it (this port is rdma)")

ERROR_TEST(
	zerocopy_threshold_below_4096_is_refused, TCP_PARAM("'nvmf_zerocopy_threshold':'1024'"),
	"ports[0].param.nvmf_zerocopy_threshold: \"1024\" is not a zero-copy threshold (0 for never, "
	"4096-16777216 bytes, or -1 for the default 32768)")
ERROR_TEST(zerocopy_threshold_on_an_rdma_port_is_refused, WITH_PARAM("'nvmf_zerocopy_threshold':0"),
	   "ports[0].param.nvmf_zerocopy_threshold: only a tcp port takes it (this port is rdma)")

ERROR_TEST(
	tcp_inline_data_size_below_1024_is_refused, TCP_PARAM("'inline_data_size':'512'"),
	"ports[0].param.inline_data_size: 512 is below 1024 on a tcp port: the I/O queues' Connect "
	"data (1024 bytes) must fit in the capsule (1024-16384 on a tcp port, or -1 for the default 8192)")
/* The range in the message is the one of the port's trtype (an rdma port's is below). */
ERROR_TEST(
	tcp_inline_data_size_above_16384_names_the_tcp_range,
	TCP_PARAM("'inline_data_size':'16385'"),
	"ports[0].param.inline_data_size: \"16385\" is not an inline data size (1024-16384 on a tcp "
	"port, or -1 for the default 8192)")
ERROR_TEST(tcp_inline_data_size_not_a_number_names_the_tcp_range,
	   TCP_PARAM("'inline_data_size':'8k'"),
	   "ports[0].param.inline_data_size: \"8k\" is not an inline data size (1024-16384 on a tcp "
	   "port, or -1 for the default 8192)")

ERROR_TEST(tcp_tsas_tls12_is_refused, WITH_ADDR("'trtype':'tcp','traddr':'::','tsas':'tls1.2'"),
	   "ports[0].addr.tsas: \"tls1.2\" is not a security type this target takes on tcp ports "
	   "(\"none\" or \"tls1.3\")")
ERROR_TEST(rdma_tsas_tls13_is_refused,
	   WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','tsas':'tls1.3'"),
	   "ports[0].addr.tsas: \"tls1.3\" is not a security type this target takes on rdma ports "
	   "(\"none\" or \"connected\")")
ERROR_TEST(unknown_tsas_is_refused, WITH_ADDR("'trtype':'tcp','traddr':'::','tsas':'bogus'"),
	   "ports[0].addr.tsas: \"bogus\" is not a security type this target takes on tcp ports "
	   "(\"none\" or \"tls1.3\")")
ERROR_TEST(rdma_tsas_datagram_is_refused,
	   WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','tsas':'datagram'"),
	   "ports[0].addr.tsas: \"datagram\" is not a security type this target takes on rdma "
	   "ports (\"none\" or \"connected\")")
ERROR_TEST(tcp_tsas_connected_is_refused,
	   WITH_ADDR("'trtype':'tcp','traddr':'::','tsas':'connected'"),
	   "ports[0].addr.tsas: \"connected\" is not a security type this target takes on tcp "
	   "ports (\"none\" or \"tls1.3\")")
/* TLS 1.3 on a tcp port: required unless the host may choose (as the kernel's). */
static void tcp_tsas_tls13_loads_required_by_default(void)
{
	struct nvmf_config cfg;
	if (!expect_ok(WITH_ADDR("'trtype':'tcp','traddr':'::','tsas':'tls1.3'"), &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.ports[0].tsas, NVMF_TCP_SECTYPE_TLS13);
	CU_ASSERT_EQUAL(cfg.ports[0].treq, NVMF_TREQ_REQUIRED);
	nvmf_config_free(&cfg);
	if (!expect_ok(WITH_ADDR("'trtype':'tcp','traddr':'::','tsas':'tls1.3','treq':'not "
				 "required'"),
		       &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.ports[0].tsas, NVMF_TCP_SECTYPE_TLS13);
	CU_ASSERT_EQUAL(cfg.ports[0].treq, NVMF_TREQ_NOT_REQUIRED);
	nvmf_config_free(&cfg);
}
ERROR_TEST(unknown_extension_key_in_param_is_refused, TCP_PARAM("'nvmf_maxh2cdta':'4096'"),
	   "ports[0].param.nvmf_maxh2cdta: unknown key; did you mean 'nvmf_maxh2cdata'? (known "
	   "here: inline_data_size, max_queue_size, mdts, pi_enable, nvmf_maxh2cdata, "
	   "nvmf_zerocopy_threshold)")
ERROR_TEST(unknown_extension_key_in_addr_is_refused,
	   WITH_ADDR("'trtype':'tcp','traddr':'::','nvmf_maxh2cdata':'4096'"),
	   "ports[0].addr.nvmf_maxh2cdata: unknown key (known here: trtype, adrfam, traddr, "
	   "trsvcid, treq, tsas)")

/* What the kernel's addr_tsas shows (nvmetcli saves it): "none" on a tcp port,
 * "connected" on an rdma port; "" and an absent key are nvmetcli's "not set". */
static void tsas_as_the_kernel_saves_it_loads(void)
{
	static const char *const docs[] = {
		WITH_ADDR("'trtype':'tcp','traddr':'::','tsas':'none'"),
		WITH_ADDR("'trtype':'tcp','traddr':'::','tsas':''"),
		WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','tsas':'connected'"),
		WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','tsas':'none'"),
	};
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct nvmf_config cfg;
		if (expect_ok(docs[i], &cfg))
			nvmf_config_free(&cfg);
	}
}

static void tcp_ipv6_port_with_maxh2cdata_loads(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(TCP_PARAM("'nvmf_maxh2cdata':'65536','inline_data_size':'4096'"), &cfg))
		return;
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trtype, "tcp");
	CU_ASSERT_EQUAL(cfg.ports[0].adrfam, AF_INET6);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].traddr, "::1");
	CU_ASSERT_EQUAL(cfg.ports[0].maxh2cdata, 65536);
	CU_ASSERT_EQUAL(cfg.ports[0].inline_data_size, 4096);
	CU_ASSERT_EQUAL(cfg.ports[0].zerocopy_threshold, NVMF_DEFAULT_ZEROCOPY);
	nvmf_config_free(&cfg);
}

/* nvmf_zerocopy_threshold: 0 is never, -1 the default, bytes otherwise. */
static void tcp_zerocopy_threshold_loads(void)
{
	const char *const text[] = { TCP_PARAM("'nvmf_zerocopy_threshold':'0'"),
				     TCP_PARAM("'nvmf_zerocopy_threshold':-1"),
				     TCP_PARAM("'nvmf_zerocopy_threshold':'131072'") };
	static const uint32_t want[] = { 0, NVMF_DEFAULT_ZEROCOPY, 131072 };
	for (int i = 0; i < 3; i++) {
		struct nvmf_config cfg;
		if (!expect_ok(text[i], &cfg))
			return;
		CU_ASSERT_EQUAL(cfg.ports[0].zerocopy_threshold, want[i]);
		nvmf_config_free(&cfg);
	}
}
/* param.mdts as the kernel's param_mdts (newer nvmetcli saves it): 1-10 kept, 0 (the
 * kernel's "no limit") and -1 take nvmf_target.mdts, more than this target serves is
 * refused. */
static void port_mdts_loads_as_nvmetcli_writes_it(void)
{
	const char *const text[] = { WITH_PARAM("'mdts':'3'"), WITH_PARAM("'mdts':10"),
				     WITH_PARAM("'mdts':'0'"), WITH_PARAM("'mdts':'-1'"),
				     WITH_PARAM("'inline_data_size':'-1'") };
	static const uint32_t want[] = { 3, 10, 0, 0, 0 };
	for (int i = 0; i < 5; i++) {
		struct nvmf_config cfg;
		if (!expect_ok(text[i], &cfg))
			return;
		CU_ASSERT_EQUAL(cfg.ports[0].mdts, want[i]);
		nvmf_config_free(&cfg);
	}
}
ERROR_TEST(port_mdts_above_what_the_target_serves_is_refused, WITH_PARAM("'mdts':'12'"),
	   "ports[0].param.mdts: \"12\" is not an MDTS this target serves (1-10: 2^mdts x 4 KiB, "
	   "8 KiB to 4 MiB; 0 or -1 for nvmf_target.mdts)")
ERROR_TEST(ipv4_traddr_with_three_parts_is_refused,
	   WITH_ADDR("'trtype':'rdma','adrfam':'ipv4','traddr':'1.2.3'"),
	   "ports[0].addr.traddr: \"1.2.3\" is not an IPv4 address")
ERROR_TEST(ipv6_traddr_with_adrfam_ipv4_is_refused,
	   WITH_ADDR("'trtype':'rdma','adrfam':'ipv4','traddr':'::'"),
	   "ports[0].addr.traddr: \"::\" is an IPv6 address but adrfam is \"ipv4\"")
ERROR_TEST(ipv4_traddr_with_adrfam_ipv6_is_refused,
	   WITH_ADDR("'trtype':'rdma','adrfam':'ipv6','traddr':'10.0.0.1'"),
	   "ports[0].addr.traddr: \"10.0.0.1\" is an IPv4 address but adrfam is \"ipv6\"")
ERROR_TEST(malformed_ipv6_traddr_is_refused,
	   WITH_ADDR("'trtype':'rdma','adrfam':'ipv6','traddr':'fe80:::1'"),
	   "ports[0].addr.traddr: \"fe80:::1\" is not an IPv6 address")
ERROR_TEST(host_name_traddr_is_refused, WITH_ADDR("'trtype':'rdma','traddr':'localhost'"),
	   "ports[0].addr.traddr: \"localhost\" is not an IPv4 or IPv6 address")
ERROR_TEST(empty_traddr_is_refused, WITH_ADDR("'trtype':'rdma','traddr':''"),
	   "ports[0].addr.traddr: empty (an rdma port needs an IPv4 or IPv6 address)")
ERROR_TEST(adrfam_ib_is_refused, WITH_ADDR("'trtype':'rdma','adrfam':'ib','traddr':'0.0.0.0'"),
	   "ports[0].addr.adrfam: \"ib\" is not supported for rdma (use \"ipv4\" or \"ipv6\")")
ERROR_TEST(trsvcid_with_letters_is_not_a_port_number,
	   WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','trsvcid':'44x'"),
	   "ports[0].addr.trsvcid: \"44x\" is not a port number (1-65535)")
ERROR_TEST(trsvcid_0_is_not_a_port_number,
	   WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','trsvcid':'0'"),
	   "ports[0].addr.trsvcid: \"0\" is not a port number (1-65535)")
ERROR_TEST(trsvcid_above_65535_is_not_a_port_number,
	   WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','trsvcid':65536"),
	   "ports[0].addr.trsvcid: 65536 is not a port number (1-65535)")
ERROR_TEST(
	unknown_treq_is_refused, WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','treq':'maybe'"),
	"ports[0].addr.treq: \"maybe\" is not \"not specified\", \"required\" or \"not required\"")
/* Security settings are never ignored: a secure-channel requirement we cannot honour
 * stops the load; a DH-HMAC-CHAP setting that is wrong names what is wrong (never the
 * secret). */
ERROR_TEST(treq_required_is_refused,
	   WITH_ADDR("'trtype':'rdma','traddr':'0.0.0.0','treq':'required'"),
	   "ports[0].addr.treq: \"required\" asks for a secure channel, which rdma ports do not "
	   "have; use \"not specified\" or \"not required\"")
#define HOST_DHCHAP(d)                                    \
	"{'hosts':[{'nqn':'h0'},{'nqn':'h1','dhchap':{" d \
	"}}],'ports':[" PORT_A(ADDR) "],'subsystems':[" SUB(ANY, NS) "]}"
ERROR_TEST(
	dhchap_ctrl_key_without_a_host_key_is_refused,
	HOST_DHCHAP(
		"'key':'','ctrl_key':'DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:'"),
	"hosts[1].dhchap.ctrl_key: set without a host key: the host would connect without "
	"authentication (set dhchap.key too)")
ERROR_TEST(
	dhchap_key_with_a_bad_crc_is_refused_without_showing_it,
	HOST_DHCHAP("'key':'DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2m:'"),
	"hosts[1].dhchap.key: the secret's CRC-32 does not match its key (mistyped or damaged secret)")
ERROR_TEST(
	dhchap_unknown_hash_is_refused, HOST_DHCHAP("'hash':'hmac(md5)'"),
	"hosts[1].dhchap.hash: \"hmac(md5)\" is not a DH-HMAC-CHAP hash (hmac(sha256), hmac(sha384) or hmac(sha512))")
ERROR_TEST(dhchap_unknown_dhgroup_is_refused, HOST_DHCHAP("'dhgroup':'ffdhe1024'"),
	   "hosts[1].dhchap.dhgroup: \"ffdhe1024\" is not a DH group (null, ffdhe2048, "
	   "ffdhe3072, ffdhe4096, ffdhe6144 or ffdhe8192)")

static void dhchap_keys_load_as_nvmetcli_writes_them(void)
{
	struct nvmf_config cfg;
	if (!expect_ok(
		    HOST_DHCHAP(
			    "'key':'DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:',"
			    "'ctrl_key':'DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:',"
			    "'hash':'hmac(sha512)','dhgroup':'ffdhe4096'"),
		    &cfg))
		return;
	CU_ASSERT_EQUAL_FATAL(cfg.n_dhchap, 1); /* h0 has none */
	CU_ASSERT_STRING_EQUAL(cfg.dhchap[0].hostnqn, "h1");
	CU_ASSERT_STRING_EQUAL(cfg.dhchap[0].key,
			       "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:");
	CU_ASSERT_STRING_EQUAL(cfg.dhchap[0].ctrl_key,
			       "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:");
	CU_ASSERT_STRING_EQUAL(cfg.dhchap[0].hash, "hmac(sha512)");
	CU_ASSERT_STRING_EQUAL(cfg.dhchap[0].dhgroup, "ffdhe4096");
	nvmf_config_free(&cfg);
}

ERROR_TEST(dhchap_key_of_wrong_type_is_refused, HOST_DHCHAP("'key':7"),
	   "hosts[1].dhchap.key: expected a string, got 7")
ERROR_TEST(dhchap_that_is_not_an_object_is_refused,
	   "{'hosts':[{'nqn':'h1','dhchap':'x'}],'ports':[" PORT_A(ADDR) "],'subsystems':[" SUB(
		   ANY, NS) "]}",
	   "hosts[0].dhchap: expected an object, got \"x\"")
/* A misspelt key in a security setting would pass for an absent one: refused. */
ERROR_TEST(dhchap_unknown_key_is_refused,
	   HOST_DHCHAP("'kye':'DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:'"),
	   "hosts[1].dhchap.kye: unknown key; did you mean 'key'? (known here: key, ctrl_key, hash, "
	   "dhgroup)")
ERROR_TEST(host_entry_unknown_key_is_refused,
	   "{'hosts':[{'nqn':'h1','dhchap_key':'x'}],'ports':[" PORT_A(ADDR) "],'subsystems':[" SUB(
		   ANY, NS) "]}",
	   "hosts[0].dhchap_key: unknown key (known here: nqn, dhchap, nvmf_tls_key, "
	   "nvmf_tls_key_file, nvmf_tls_key_compat)")
/* hosts[].nvmf_tls_key_compat: which HKDF layout a host's version 0 identities use. */
#define TLS_KEY      "'NVMeTLSkey-1:01:kiHrhJ33zILJg+vFgAhNH0dubDZFYwV7vPfNX2AEFczmS22d:'"
#define TLS_HOSTS(h) "{'hosts':[" h "],'ports':[" PORT_A(ADDR) "],'subsystems':[" SUB(ANY, NS) "]}"
static void tls_key_compat_is_read_per_host_and_off_by_default(void)
{
	struct nvmf_config cfg;
	if (!expect_ok(TLS_HOSTS("{'nqn':'h1','nvmf_tls_key':" TLS_KEY
				 ",'nvmf_tls_key_compat':true},"
				 "{'nqn':'h2','nvmf_tls_key':" TLS_KEY "},"
				 "{'nqn':'h3','nvmf_tls_key':" TLS_KEY
				 ",'nvmf_tls_key_compat':false}"),
		       &cfg))
		return;
	CU_ASSERT_EQUAL_FATAL(cfg.n_tls_keys, 3);
	CU_ASSERT_TRUE(nvmf_config_tls_key(&cfg, "h1")->compat);
	CU_ASSERT_FALSE(nvmf_config_tls_key(&cfg, "h2")->compat);
	CU_ASSERT_FALSE(nvmf_config_tls_key(&cfg, "h3")->compat);
	struct nvmf_tls_key_config *dup;
	CU_ASSERT_EQUAL_FATAL(nvmf_config_tls_keys_dup(cfg.tls_keys, cfg.n_tls_keys, &dup), 0);
	CU_ASSERT_TRUE(dup[0].compat); /* what a reload installs keeps it */
	CU_ASSERT_FALSE(dup[1].compat);
	nvmf_config_tls_keys_free(dup, cfg.n_tls_keys);
	nvmf_config_free(&cfg);
}
/* A TLS-only port whose subsystem's hosts have no PSK serves nobody: a warning, not an
 * error (the keys may come live). */
#define TLS_PORT        PORT_A("'trtype':'tcp','traddr':'::','tsas':'tls1.3'")
#define TLS_PORT_DOC(h) "{'hosts':[" h "],'ports':[" TLS_PORT "],'subsystems':[" SUB(ANY, NS) "]}"
#define TLS_LISTED(h, allowed)                \
	"{'hosts':[" h "],'ports':[" TLS_PORT \
	"],'subsystems':[{'nqn':'s1','allowed_hosts':[" allowed "],'namespaces':[" NS "]}]}"
static void tls_port_whose_hosts_have_no_psk_is_warned_of(void)
{
	struct nvmf_config cfg;
	if (!expect_ok(TLS_PORT_DOC("{'nqn':'h1'}"), &cfg))
		return;
	CU_ASSERT_EQUAL_FATAL(cfg.n_notes, 1);
	CU_ASSERT_STRING_EQUAL(cfg.notes[0],
			       "ports[0] requires TLS (addr.treq \"required\") and subsystem s1 "
			       "admits any host, but no host has a TLS PSK "
			       "(hosts[].nvmf_tls_key_file): no host can connect to it there");
	nvmf_config_free(&cfg);
	if (!expect_ok(TLS_LISTED("{'nqn':'h1'}", "'h1'"), &cfg))
		return;
	CU_ASSERT_EQUAL_FATAL(cfg.n_notes, 1);
	CU_ASSERT_STRING_EQUAL(cfg.notes[0],
			       "ports[0] requires TLS (addr.treq \"required\"), and none of "
			       "subsystem s1's allowed hosts has a TLS PSK "
			       "(hosts[].nvmf_tls_key_file): no host can connect to it there");
	nvmf_config_free(&cfg);
	if (!expect_ok(TLS_LISTED("{'nqn':'h1','nvmf_tls_key':" TLS_KEY "},{'nqn':'h2'}",
				  "'h1','h2'"),
		       &cfg))
		return;
	CU_ASSERT_EQUAL_FATAL(cfg.n_notes, 1);
	CU_ASSERT_STRING_EQUAL(
		cfg.notes[0], "ports[0] requires TLS (addr.treq \"required\"): host h2, allowed in "
			      "subsystem s1, has no TLS PSK (hosts[].nvmf_tls_key_file) and cannot "
			      "connect to it there (1 of its 2 allowed hosts have none)");
	nvmf_config_free(&cfg);
	/* Keyed hosts, or a port where TLS is the host's choice: nothing to say. */
	if (!expect_ok(TLS_PORT_DOC("{'nqn':'h1','nvmf_tls_key':" TLS_KEY "}"), &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.n_notes, 0);
	nvmf_config_free(&cfg);
	if (!expect_ok(WITH_ADDR("'trtype':'tcp','traddr':'::','tsas':'tls1.3','treq':'not "
				 "required'"),
		       &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.n_notes, 0);
	nvmf_config_free(&cfg);
}
ERROR_TEST(tls_key_compat_that_is_not_a_boolean_is_refused,
	   TLS_HOSTS("{'nqn':'h1','nvmf_tls_key':" TLS_KEY ",'nvmf_tls_key_compat':'1'}"),
	   "hosts[0].nvmf_tls_key_compat: expected true or false, got \"1\"")
ERROR_TEST(tls_key_compat_without_a_key_is_refused,
	   TLS_HOSTS("{'nqn':'h1','nvmf_tls_key_compat':true}"),
	   "hosts[0].nvmf_tls_key_compat: says how the host's TLS PSK is derived: it needs "
	   "nvmf_tls_key or nvmf_tls_key_file beside it")
/* A secret in the wrong place is not printed either. */
ERROR_TEST(
	secret_in_the_wrong_place_is_not_shown,
	"{'hosts':[{'nqn':'h1','dhchap':'DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:'}],"
	"'ports':[" PORT_A(ADDR) "],'subsystems':[" SUB(ANY, NS) "]}",
	"hosts[0].dhchap: expected an object, got a secret (not shown)")
ERROR_TEST(secret_as_the_hash_is_not_shown,
	   HOST_DHCHAP("'hash':'DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:'"),
	   "hosts[1].dhchap.hash: a secret (not shown) is not a DH-HMAC-CHAP "
	   "hash (hmac(sha256), hmac(sha384) or hmac(sha512))")
ERROR_TEST(
	secret_as_a_host_entry_is_not_shown,
	"{'hosts':['DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:'],'ports':[" PORT_A(
		ADDR) "],'subsystems':[" SUB(ANY, NS) "]}",
	"hosts[0]: expected an object, got a secret (not shown)")
/* What config show prints in place of a secret does not load as one. */
ERROR_TEST(secret_placeholder_of_config_show_is_refused, HOST_DHCHAP("'key':'(secret)'"),
	   "hosts[1].dhchap.key: \"(secret)\" is the placeholder config show (config_get) prints; "
	   "the file needs the secret itself (config save writes it)")
ERROR_TEST(portid_above_65535_is_refused, DOC("{'portid':65536,'addr':{" ADDR "}}", SUB(ANY, NS)),
	   "ports[0].portid: 65536 is not a port ID (0-65535)")
ERROR_TEST(duplicate_portid_is_refused,
	   DOC(PORT_A(ADDR) ",{'portid':1,'addr':{'trtype':'rdma','traddr':'10.0.0.1'}}",
	       SUB(ANY, NS)),
	   "ports[1].portid: duplicate port ID 1")
ERROR_TEST(two_ports_on_the_same_address_are_refused,
	   DOC(PORT_A(ADDR) ",{'portid':2,'addr':{'trtype':'rdma','traddr':'0.0.0.0'}}",
	       SUB(ANY, NS)),
	   "ports[1].addr: 0.0.0.0:4420 overlaps ports[0] (0.0.0.0:4420)")
ERROR_TEST(
	port_inside_a_wildcard_port_is_refused,
	DOC(PORT_A(ADDR) ",{'portid':2,'addr':{'trtype':'rdma','traddr':'10.0.0.1','trsvcid':'4420'}}",
	    SUB(ANY, NS)),
	"ports[1].addr: 10.0.0.1:4420 overlaps ports[0] (0.0.0.0:4420)")
/* rdma_cm has its own port space: rdma and tcp on one address and port both listen. */
static void rdma_and_tcp_ports_on_the_same_address_load(void)
{
	struct nvmf_config cfg;
	if (!expect_ok(
		    DOC(PORT_A(ADDR) ",{'portid':2,'addr':{'trtype':'tcp','traddr':'0.0.0.0','trsvcid':'4420'}}",
			SUB(ANY, NS)),
		    &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.n_ports, 2);
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trtype, "rdma");
	CU_ASSERT_STRING_EQUAL(cfg.ports[1].trtype, "tcp");
	CU_ASSERT_STRING_EQUAL(cfg.ports[0].trsvcid, cfg.ports[1].trsvcid);
	nvmf_config_free(&cfg);
}
ERROR_TEST(
	inline_data_size_above_16384_is_refused, WITH_PARAM("'inline_data_size':'16385'"),
	"ports[0].param.inline_data_size: \"16385\" is not an inline data size (0-16384 on an rdma port, "
	"or -1 for the default 8192)")
ERROR_TEST(
	max_queue_size_below_16_is_refused, WITH_PARAM("'max_queue_size':'8'"),
	"ports[0].param.max_queue_size: \"8\" is not a queue size (16-1024, or -1 for the default 128)")
ERROR_TEST(
	max_queue_size_above_1024_is_refused, WITH_PARAM("'max_queue_size':2048"),
	"ports[0].param.max_queue_size: 2048 is not a queue size (16-1024, or -1 for the default 128)")
ERROR_TEST(
	port_pi_enable_1_is_refused, WITH_PARAM("'pi_enable':'1'"),
	"ports[0].param.pi_enable: \"1\" is not supported (this target has no T10 protection information)")
ERROR_TEST(
	unknown_extension_key_on_a_port_is_refused,
	DOC("{'portid':1,'addr':{" ADDR "},'nvmf_mdts':8}", SUB(ANY, NS)),
	"ports[0].nvmf_mdts: unknown key (known here: portid, addr, param, subsystems, referrals, "
	"ana_groups)")

/* ---- hosts, discovery, nvmf_target ------------------------------------------------ */

ERROR_TEST(duplicate_host_nqn_is_refused, "{'hosts':[{'nqn':'h1'},{'nqn':'h1'}]}",
	   "hosts[1].nqn: duplicate NQN \"h1\"")
ERROR_TEST(host_without_an_nqn_is_refused, "{'hosts':[{}]}",
	   "hosts[0].nqn: required key is missing")
ERROR_TEST(discovery_nqn_with_a_space_is_refused, "{'discovery':{'nqn':'a b'}}",
	   "discovery.nqn: \"a b\" is not an NQN (no spaces or control characters)")
ERROR_TEST(mdts_above_10_is_refused, "{'nvmf_target':{'mdts':11}}",
	   "nvmf_target.mdts: 11 is not a supported MDTS (1-10: 2^mdts x 4 KiB, 8 KiB to 4 MiB)")
ERROR_TEST(threads_as_a_string_names_the_expected_type, "{'nvmf_target':{'threads':'2'}}",
	   "nvmf_target.threads: expected an integer, got \"2\"")
ERROR_TEST(threads_as_a_real_number_is_shown_as_one, "{'nvmf_target':{'threads':2.0}}",
	   "nvmf_target.threads: expected an integer, got 2.0")
ERROR_TEST(buffers_small_below_16_is_refused, "{'nvmf_target':{'buffers_small':8}}",
	   "nvmf_target.buffers_small: 8 is not a buffer count (16-1048576)")
ERROR_TEST(srq_depth_below_16_is_refused, "{'nvmf_target':{'srq_depth':8}}",
	   "nvmf_target.srq_depth: 8 is not an SRQ depth (16-65536 receives)")
ERROR_TEST(srq_as_a_string_names_the_expected_type, "{'nvmf_target':{'srq':'no'}}",
	   "nvmf_target.srq: expected 0 or 1 (or true/false), got \"no\"")
ERROR_TEST(persist_that_is_not_a_flag_is_refused, "{'nvmf_target':{'persist':'sometimes'}}",
	   "nvmf_target.persist: expected 0 or 1 (or true/false), got \"sometimes\"")
ERROR_TEST(numa_node_below_minus_1_is_refused, "{'nvmf_target':{'numa_node':-2}}",
	   "nvmf_target.numa_node: -2 is not a NUMA node (-1 for the RDMA device's node, or 0-1023)")
ERROR_TEST(
	unknown_nvmf_target_key_is_refused, "{'nvmf_target':{'poll_us':1}}",
	"nvmf_target.poll_us: unknown key (known here: mdts, threads, buffers_small, buffers_large, "
	"hugepages, idle_poll_us, srq, srq_depth, numa_node, rpc_socket, discovery_log, discovery_kato, "
	"resv_state, log_level, persist, post_thread)")
ERROR_TEST(post_thread_other_than_auto_on_off_is_refused, "{'nvmf_target':{'post_thread':'yes'}}",
	   "nvmf_target.post_thread: \"yes\" is not \"auto\", \"on\" or \"off\"")

/* "auto", "on" and "off" are -1, 1 and 0, and nvmf_post_thread_name gives them back. */
static void post_thread_takes_auto_on_and_off(void)
{
	static const struct {
		const char *json;
		int want;
	} cases[] = { { "{\"nvmf_target\":{\"post_thread\":\"auto\"}}", -1 },
		      { "{\"nvmf_target\":{\"post_thread\":\"on\"}}", 1 },
		      { "{\"nvmf_target\":{\"post_thread\":\"off\"}}", 0 } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nvmf_config cfg;
		char err[256] = "";
		CU_ASSERT_EQUAL_FATAL(nvmf_config_parse(cases[i].json, &cfg, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(cfg.target.post_thread, cases[i].want);
		CU_ASSERT_PTR_NOT_NULL(strstr(cases[i].json, nvmf_post_thread_name(cases[i].want)));
		nvmf_config_free(&cfg);
	}
	CU_ASSERT_STRING_EQUAL(nvmf_post_thread_name(2), "?");
}
ERROR_TEST(relative_rpc_socket_is_refused, "{'nvmf_target':{'rpc_socket':'run/t.sock'}}",
	   "nvmf_target.rpc_socket: \"run/t.sock\" is not an absolute path")
ERROR_TEST(
	rpc_socket_longer_than_a_socket_address_is_refused,
	"{'nvmf_target':{'rpc_socket':'/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'}}",
	"nvmf_target.rpc_socket: path of 110 bytes is too long for a Unix socket (at most 107)")

/* "" turns the socket off; a path is kept; absent leaves the default to the daemon. */
static void rpc_socket_is_a_path_or_empty_for_none(void)
{
	struct nvmf_config cfg;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(
		cfg_test_parse("{'nvmf_target':{'rpc_socket':''}}", &cfg, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(cfg.target.rpc_socket_set);
	CU_ASSERT_STRING_EQUAL(cfg.target.rpc_socket, "");
	nvmf_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse("{'nvmf_target':{'rpc_socket':'/run/a.sock'}}", &cfg,
					     err, sizeof(err)),
			      0);
	CU_ASSERT_STRING_EQUAL(cfg.target.rpc_socket, "/run/a.sock");
	nvmf_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse("{}", &cfg, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(cfg.target.rpc_socket_set);
	nvmf_config_free(&cfg);
}

/* nvmetcli's resv group: "1" turns reservations on, off by default as nvmet. */
static void resv_enable_loads_and_is_off_by_default(void)
{
	struct nvmf_config cfg;
	if (!expect_ok(WITH_NS("{'nsid':1,'device':{'path':'/tmp/x'},'resv':{'enable':'1'}},"
			       "{'nsid':2,'device':{'path':'/tmp/y'},'resv':{'enable':'0'}},"
			       "{'nsid':3,'device':{'path':'/tmp/z'}}"),
		       &cfg))
		return;
	CU_ASSERT_TRUE(cfg.subsystems[0].ns[0].resv_enable);
	CU_ASSERT_FALSE(cfg.subsystems[0].ns[1].resv_enable);
	CU_ASSERT_FALSE(cfg.subsystems[0].ns[2].resv_enable);
	nvmf_config_free(&cfg);
}

ERROR_TEST(resv_enable_other_than_0_or_1_is_refused,
	   WITH_NS("{'nsid':1,'device':{'path':'/tmp/x'},'resv':{'enable':'yes'}}"),
	   "subsystems[0].namespaces[0].resv.enable: expected 0 or 1 (or true/false), got \"yes\"")
ERROR_TEST(resv_that_is_not_an_object_is_refused,
	   WITH_NS("{'nsid':1,'device':{'path':'/tmp/x'},'resv':'1'}"),
	   "subsystems[0].namespaces[0].resv: expected an object, got \"1\"")
ERROR_TEST(unknown_key_in_resv_is_refused_not_ignored,
	   WITH_NS("{'nsid':1,'device':{'path':'/tmp/x'},'resv':{'enable':'1','ptpl':'1'}}"),
	   "subsystems[0].namespaces[0].resv.ptpl: unknown key (known here: enable)")
ERROR_TEST(relative_resv_state_is_refused, "{'nvmf_target':{'resv_state':'state.json'}}",
	   "nvmf_target.resv_state: \"state.json\" is not an absolute path")

/* The reservations' state file: a path, "" for none, unset for the daemon's default. */
static void resv_state_is_a_path_or_empty_for_none(void)
{
	struct nvmf_config cfg;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(
		cfg_test_parse("{'nvmf_target':{'resv_state':''}}", &cfg, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(cfg.target.resv_state_set);
	CU_ASSERT_STRING_EQUAL(cfg.target.resv_state, "");
	nvmf_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse("{'nvmf_target':{'resv_state':'/var/lib/r.json'}}",
					     &cfg, err, sizeof(err)),
			      0);
	CU_ASSERT_STRING_EQUAL(cfg.target.resv_state, "/var/lib/r.json");
	nvmf_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(cfg_test_parse("{}", &cfg, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(cfg.target.resv_state_set);
	nvmf_config_free(&cfg);
}

ERROR_TEST(unknown_top_level_extension_key_is_refused, "{'nvmf_targets':{}}",
	   "nvmf_targets: unknown key; did you mean 'nvmf_target'? (known here: hosts, ports, "
	   "subsystems, discovery, nvmf_target, nvmf_gateway)")

/* ---- keys the loader does not know ------------------------------------------------ */

/* Nothing written in a file passes unread: a misspelt key stops the load by its JSON
 * path, with the known key it is nearest to (within 2 edits). */
#define SUB_KEYS "nqn, allowed_hosts, attr, namespaces, passthru"
ERROR_TEST(
	misspelt_allowed_hosts_is_refused_with_a_suggestion,
	DOC(PORT_A(ADDR), "{'nqn':'s1','allowed_host':[],'namespaces':[" NS "]}"),
	"subsystems[0].allowed_host: unknown key; did you mean 'allowed_hosts'? (known here: " SUB_KEYS
	")")
ERROR_TEST(
	misspelt_attr_key_is_refused_with_a_suggestion, WITH_ATTR("'allow_any_hots':1"),
	"subsystems[0].attr.allow_any_hots: unknown key; did you mean 'allow_any_host'? (known "
	"here: allow_any_host, serial, model, firmware, version, cntlid_min, cntlid_max, qid_max, "
	"pi_enable)")
ERROR_TEST(
	misspelt_extension_key_is_refused_with_a_suggestion,
	WITH_NS("{'nsid':1,'device':{'path':'/x'},'nvmf_creat':true,'nvmf_size_bytes':'1M'}"),
	"subsystems[0].namespaces[0].nvmf_creat: unknown key; did you mean 'nvmf_create'? (known "
	"here: nsid, enable, device, ana_grpid, ana, resv, nvmf_backend, nvmf_size_bytes, "
	"nvmf_block_size, nvmf_create, nvmf_buffered, nvmf_eui64, nvmf_rbd_pool, nvmf_rbd_image, nvmf_rbd_namespace, nvmf_rbd_conf, nvmf_rbd_keyring, nvmf_rbd_client_id)")
/* The path names the second namespace and the object inside it. */
ERROR_TEST(misspelt_key_deep_in_a_namespace_is_named_by_its_path,
	   WITH_NS(NS ",{'nsid':2,'device':{'pth':'/tmp/y'}}"),
	   "subsystems[0].namespaces[1].device.pth: unknown key; did you mean 'path'? (known here: "
	   "path, uuid, nguid)")
ERROR_TEST(misspelt_port_key_is_refused_with_a_suggestion,
	   DOC("{'portid':1,'adrr':{" ADDR "},'subsystems':['s1']}", SUB(ANY, NS)),
	   "ports[0].adrr: unknown key; did you mean 'addr'? (known here: portid, addr, param, "
	   "subsystems, referrals, ana_groups)")
ERROR_TEST(misspelt_addr_key_is_refused_with_a_suggestion, WITH_ADDR(ADDR ",'tsa':'none'"),
	   "ports[0].addr.tsa: unknown key; did you mean 'tsas'? (known here: trtype, adrfam, "
	   "traddr, trsvcid, treq, tsas)")
ERROR_TEST(misspelt_discovery_nqn_is_refused_with_a_suggestion,
	   "{'discovery':{'nqm':'nqn.2024-01.io.x:disc'}}",
	   "discovery.nqm: unknown key; did you mean 'nqn'? (known here: nqn)")
ERROR_TEST(misspelt_passthru_key_is_refused_with_a_suggestion,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[" NS "],"
			     "'passthru':[{'device':{'pth':'/dev/nvme0'},'enable':0}]}"),
	   "subsystems[0].passthru[0].device.pth: unknown key; did you mean 'path'? (known here: "
	   "path)")
/* A key near no known one gets no guess. */
ERROR_TEST(
	unknown_top_level_key_is_refused_without_a_guess, "{'colour':'blue'}",
	"colour: unknown key (known here: hosts, ports, subsystems, discovery, nvmf_target, nvmf_gateway)")
ERROR_TEST(unknown_object_in_a_subsystem_is_refused_with_what_it_holds,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','attr':{" ANY "},'namespaces':[" NS "],'extra':{'a':1}}"),
	   "subsystems[0].extra: unknown key (known here: " SUB_KEYS ")")

/* A value of the wrong JSON type is refused by its path, naming the type expected. */
ERROR_TEST(device_as_a_string_names_the_expected_type, WITH_NS("{'nsid':1,'device':'/tmp/x'}"),
	   "subsystems[0].namespaces[0].device: expected an object, got \"/tmp/x\"")
ERROR_TEST(allowed_hosts_as_a_string_names_the_expected_type,
	   DOC(PORT_A(ADDR), "{'nqn':'s1','allowed_hosts':'h1','namespaces':[" NS "]}"),
	   "subsystems[0].allowed_hosts: expected an array, got \"h1\"")
ERROR_TEST(flag_as_a_word_names_the_expected_type,
	   WITH_NS("{'nsid':1,'device':{'path':'/x'},'nvmf_buffered':'yes'}"),
	   "subsystems[0].namespaces[0].nvmf_buffered: expected 0 or 1 (or true/false), got \"yes\"")
ERROR_TEST(portid_as_a_string_names_the_expected_type,
	   DOC("{'portid':'1','addr':{" ADDR "},'subsystems':['s1']}", SUB(ANY, NS)),
	   "ports[0].portid: expected an integer, got \"1\"")
ERROR_TEST(unused_nvmetcli_key_of_the_wrong_type_is_refused, WITH_ATTR(ANY ",'ieee_oui':[1]"),
	   "subsystems[0].attr.ieee_oui: expected a string or an integer, got an array")

/* nvmetcli's attr.ieee_oui (and the vendor IDs) are not used: at their default they
 * load without a word; with a value, they load and the load leaves a note naming the key
 * and why, which the start and each reload log. */
static void unused_nvmetcli_key_with_a_value_loads_with_a_note(void)
{
	struct nvmf_config cfg;

	if (!expect_ok(WITH_ATTR(ANY ",'ieee_oui':'0x001b21','vendor_id':'0x0000'"), &cfg))
		return;
	CU_ASSERT_EQUAL_FATAL(cfg.n_notes, 1);
	CU_ASSERT_STRING_EQUAL(cfg.notes[0], "subsystems[0].attr.ieee_oui: \"0x001b21\" is not "
					     "used: Identify Controller reports IEEE OUI 0 on this "
					     "target");
	nvmf_config_free(&cfg);
	CU_ASSERT_PTR_NULL(cfg.notes);
	if (!expect_ok(WITH_ATTR(ANY ",'ieee_oui':'0x000000','subsys_vendor_id':0"), &cfg))
		return;
	CU_ASSERT_EQUAL(cfg.n_notes, 0);
	nvmf_config_free(&cfg);
}

/* The saves of nvmetcli in tests/data load without a single unknown key or note. */
static void nvmetcli_saves_load_without_notes(void)
{
	const char *files[] = { "rdma.json", "tcp.json" };
	for (size_t i = 0; i < 2; i++) {
		struct nvmf_config cfg;
		char path[512], err[512] = "";
		CU_ASSERT_FATAL(shared_file(files[i], path, sizeof(path)));
		CU_ASSERT_EQUAL_FATAL(nvmf_config_load(path, &cfg, err, sizeof(err)), 0);
		CU_ASSERT_STRING_EQUAL(err, "");
		CU_ASSERT_EQUAL(cfg.n_notes, 0);
		nvmf_config_free(&cfg);
	}
}

const struct unit_test config_tests[] = {
	{ "nvmetcli_rdma_json_loads_unchanged", nvmetcli_rdma_json_loads_unchanged },
	{ "nvmetcli_tcp_json_loads_with_its_tcp_port", nvmetcli_tcp_json_loads_with_its_tcp_port },
	{ "nvmetcli_fc_json_is_refused_for_its_trtype",
	  nvmetcli_fc_json_is_refused_for_its_trtype },
	{ "nvmetcli_loop_json_is_refused_for_its_trtype",
	  nvmetcli_loop_json_is_refused_for_its_trtype },
	{ "nvmetcli_tcp_json_attributes_load_when_trtype_is_rdma",
	  nvmetcli_tcp_json_attributes_load_when_trtype_is_rdma },
	{ "example_file_json_loads_as_a_created_1gib_file",
	  example_file_json_loads_as_a_created_1gib_file },
	{ "example_ram_json_loads_a_ram_and_a_null_namespace",
	  example_ram_json_loads_a_ram_and_a_null_namespace },
	{ "example_two_subsystems_json_exposes_both_on_one_port",
	  example_two_subsystems_json_exposes_both_on_one_port },
	{ "example_tcp_json_is_a_tcp_port_on_loopback_with_a_ram_namespace",
	  example_tcp_json_is_a_tcp_port_on_loopback_with_a_ram_namespace },
	{ "minimal_config_gets_the_documented_defaults",
	  minimal_config_gets_the_documented_defaults },
	{ "empty_adrfam_is_inferred_from_an_ipv6_traddr",
	  empty_adrfam_is_inferred_from_an_ipv6_traddr },
	{ "json_numbers_and_booleans_are_accepted_where_nvmetcli_writes_strings",
	  json_numbers_and_booleans_are_accepted_where_nvmetcli_writes_strings },
	{ "unused_nvmetcli_keys_are_ignored", unused_nvmetcli_keys_are_ignored },
	{ "inactive_passthru_as_nvmetcli_writes_it_loads",
	  inactive_passthru_as_nvmetcli_writes_it_loads },
	{ "subsystem_closed_to_all_hosts_is_legal", subsystem_closed_to_all_hosts_is_legal },
	{ "sizes_take_binary_suffixes_and_plain_integers",
	  sizes_take_binary_suffixes_and_plain_integers },
	{ "identifiers_parse_in_all_accepted_forms", identifiers_parse_in_all_accepted_forms },
	{ "version_strings_pack_major_minor_and_tertiary",
	  version_strings_pack_major_minor_and_tertiary },
	{ "nvmf_create_without_a_backend_means_a_file",
	  nvmf_create_without_a_backend_means_a_file },
	{ "same_nsid_in_two_subsystems_is_fine", same_nsid_in_two_subsystems_is_fine },
	{ "disabled_namespace_may_have_an_empty_path", disabled_namespace_may_have_an_empty_path },
#define T(name)             \
	{                   \
#name, name \
	}
	T(json_syntax_error_names_line_and_column),
	T(relative_rpc_socket_is_refused),
	T(rpc_socket_longer_than_a_socket_address_is_refused),
	T(rpc_socket_is_a_path_or_empty_for_none),
	T(duplicate_json_key_is_refused),
	T(document_that_is_not_an_object_is_refused),
	T(load_of_a_missing_file_names_the_file),
	T(load_of_a_broken_file_names_line_and_column),
	T(load_of_a_directory_says_it_is_a_directory),
	T(load_refuses_what_is_not_a_regular_file_and_files_past_16_mib),
	T(load_of_an_empty_or_blank_file_says_it_is_empty),
	T(load_of_a_file_larger_than_a_page_reads_all_of_it),
	T(nsid_as_a_string_names_the_expected_type),
	T(missing_nsid_is_named),
	T(attr_as_an_array_names_the_expected_type),
	T(subsystems_as_an_object_names_the_expected_type),
	T(namespace_that_is_not_an_object_is_refused),
	T(missing_subsystem_nqn_is_named),
	T(missing_port_addr_is_named),
	T(missing_trtype_is_named),
	T(missing_portid_is_named),
	T(serial_as_a_number_names_the_expected_type),
	T(nsid_0_is_not_a_valid_namespace_id),
	T(nsid_above_1024_is_not_a_valid_namespace_id),
	T(duplicate_nsid_in_a_subsystem_is_refused),
	T(enable_other_than_0_or_1_is_refused),
	T(file_namespace_without_a_path_is_refused),
	T(enabled_namespace_with_an_empty_path_is_refused),
	T(relative_device_path_is_refused),
	T(rbd_namespace_takes_its_keys_and_defaults),
	T(rbd_namespace_without_a_pool_is_refused),
	T(rbd_namespace_without_an_image_is_refused),
	T(rbd_namespace_with_a_device_path_is_refused),
	T(rbd_namespace_with_a_size_is_refused),
	T(rbd_namespace_buffered_is_refused),
	T(rbd_namespace_create_is_refused),
	T(rbd_namespace_with_reservations_is_refused),
	T(rbd_client_id_with_the_client_prefix_is_refused),
	T(rbd_relative_conf_is_refused),
	T(rbd_relative_keyring_is_refused),
	T(rbd_image_name_with_a_slash_is_refused),
	T(rbd_empty_pool_is_refused),
	T(rbd_key_on_a_file_namespace_is_refused),
	T(rbd_key_on_a_ram_namespace_is_refused),
	T(unknown_backend_is_refused),
	T(ram_namespace_without_a_size_is_refused),
	T(ram_namespace_of_size_0_is_refused),
	T(null_namespace_with_a_path_is_refused),
	T(buffered_ram_namespace_is_refused),
	T(size_with_an_unknown_suffix_is_refused),
	T(negative_size_is_refused),
	T(size_that_overflows_is_refused),
	T(size_as_a_boolean_names_the_expected_type),
	T(size_not_a_multiple_of_the_block_size_is_refused),
	T(block_size_other_than_512_or_4096_is_refused),
	T(nvmf_create_on_a_block_device_is_refused),
	T(nvmf_create_without_a_size_is_refused),
	T(malformed_uuid_is_refused),
	T(malformed_nguid_is_refused),
	T(malformed_eui64_is_refused),
	T(unknown_extension_key_in_a_namespace_is_refused),
	T(duplicate_subsystem_nqn_is_refused),
	T(subsystem_with_the_discovery_nqn_is_refused),
	T(enabled_passthru_with_namespaces_is_refused_naming_the_subsystem),
	T(enabled_passthru_without_a_device_path_is_refused),
	T(passthru_negative_timeout_is_refused),
	T(passthru_timeout_that_is_not_a_number_is_refused),
	T(passthru_with_two_entries_is_refused),
	T(passthru_relative_device_path_is_refused),
	T(passthru_device_path_with_a_newline_is_refused),
	T(enabled_passthru_loads),
	T(disabled_passthru_with_a_path_loads_with_a_note),
	T(disabled_passthru_without_namespaces_notes_it_serves_nothing),
	T(passthru_that_is_not_a_list_is_refused),
	T(subsystem_with_the_well_known_discovery_nqn_is_refused_under_a_unique_discovery_nqn),
	T(nqn_with_a_space_is_refused),
	T(empty_nqn_is_refused),
	T(nqn_longer_than_223_characters_is_refused),
	T(allow_any_host_yes_is_refused),
	T(allow_any_host_keeps_its_allowed_hosts),
	T(allowed_host_without_a_hosts_entry_is_refused_naming_both),
	T(allowed_host_with_no_hosts_at_all_is_refused),
	T(secret_given_as_an_nqn_is_refused_without_showing_it),
	T(allowed_host_listed_twice_is_refused),
	T(serial_longer_than_20_characters_is_refused),
	T(serial_with_a_non_ascii_character_is_refused),
	T(model_longer_than_40_characters_is_refused),
	T(firmware_longer_than_8_characters_is_refused),
	T(malformed_version_is_refused),
	T(cntlid_min_above_cntlid_max_is_refused),
	T(cntlid_max_above_65519_is_refused),
	T(cntlid_min_0_is_refused),
	T(qid_max_above_128_is_refused),
	T(subsystem_pi_enable_1_is_refused),
	T(port_naming_an_unknown_subsystem_is_refused),
	T(port_listing_a_subsystem_twice_is_refused),
	T(fc_trtype_is_refused),
	T(tcp_empty_traddr_is_refused),
	T(tcp_treq_required_is_refused),
	T(tcp_tsas_tls12_is_refused),
	T(rdma_tsas_tls13_is_refused),
	T(tcp_tsas_tls13_loads_required_by_default),
	T(tls_port_whose_hosts_have_no_psk_is_warned_of),
	T(tls_key_compat_is_read_per_host_and_off_by_default),
	T(tls_key_compat_that_is_not_a_boolean_is_refused),
	T(tls_key_compat_without_a_key_is_refused),
	T(unknown_tsas_is_refused),
	T(rdma_tsas_datagram_is_refused),
	T(tcp_tsas_connected_is_refused),
	T(unknown_extension_key_in_param_is_refused),
	T(unknown_extension_key_in_addr_is_refused),
	T(tsas_as_the_kernel_saves_it_loads),
	T(maxh2cdata_below_4096_is_refused),
	T(maxh2cdata_not_a_dword_multiple_is_refused),
	T(maxh2cdata_on_an_rdma_port_is_refused),
	T(tcp_inline_data_size_below_1024_is_refused),
	T(tcp_inline_data_size_above_16384_names_the_tcp_range),
	T(tcp_inline_data_size_not_a_number_names_the_tcp_range),
	T(tcp_ipv6_port_with_maxh2cdata_loads),
	T(zerocopy_threshold_below_4096_is_refused),
	T(zerocopy_threshold_on_an_rdma_port_is_refused),
	T(tcp_zerocopy_threshold_loads),
	T(port_mdts_loads_as_nvmetcli_writes_it),
	T(port_mdts_above_what_the_target_serves_is_refused),
	T(ipv4_traddr_with_three_parts_is_refused),
	T(ipv6_traddr_with_adrfam_ipv4_is_refused),
	T(ipv4_traddr_with_adrfam_ipv6_is_refused),
	T(malformed_ipv6_traddr_is_refused),
	T(host_name_traddr_is_refused),
	T(empty_traddr_is_refused),
	T(adrfam_ib_is_refused),
	T(trsvcid_with_letters_is_not_a_port_number),
	T(trsvcid_0_is_not_a_port_number),
	T(trsvcid_above_65535_is_not_a_port_number),
	T(unknown_treq_is_refused),
	T(treq_required_is_refused),
	T(dhchap_ctrl_key_without_a_host_key_is_refused),
	T(dhchap_key_with_a_bad_crc_is_refused_without_showing_it),
	T(dhchap_unknown_hash_is_refused),
	T(dhchap_unknown_dhgroup_is_refused),
	T(dhchap_keys_load_as_nvmetcli_writes_them),
	T(dhchap_key_of_wrong_type_is_refused),
	T(dhchap_unknown_key_is_refused),
	T(host_entry_unknown_key_is_refused),
	T(secret_in_the_wrong_place_is_not_shown),
	T(secret_as_the_hash_is_not_shown),
	T(secret_as_a_host_entry_is_not_shown),
	T(secret_placeholder_of_config_show_is_refused),
	T(dhchap_that_is_not_an_object_is_refused),
	T(portid_above_65535_is_refused),
	T(duplicate_portid_is_refused),
	T(two_ports_on_the_same_address_are_refused),
	T(port_inside_a_wildcard_port_is_refused),
	T(rdma_and_tcp_ports_on_the_same_address_load),
	T(inline_data_size_above_16384_is_refused),
	T(max_queue_size_below_16_is_refused),
	T(max_queue_size_above_1024_is_refused),
	T(port_pi_enable_1_is_refused),
	T(unknown_extension_key_on_a_port_is_refused),
	T(duplicate_host_nqn_is_refused),
	T(host_without_an_nqn_is_refused),
	T(discovery_nqn_with_a_space_is_refused),
	T(mdts_above_10_is_refused),
	T(threads_as_a_string_names_the_expected_type),
	T(threads_as_a_real_number_is_shown_as_one),
	T(buffers_small_below_16_is_refused),
	T(srq_depth_below_16_is_refused),
	T(srq_as_a_string_names_the_expected_type),
	T(persist_that_is_not_a_flag_is_refused),
	T(numa_node_below_minus_1_is_refused),
	T(unknown_nvmf_target_key_is_refused),
	T(post_thread_other_than_auto_on_off_is_refused),
	T(post_thread_takes_auto_on_and_off),
	T(unknown_top_level_extension_key_is_refused),
	T(resv_enable_loads_and_is_off_by_default),
	T(resv_enable_other_than_0_or_1_is_refused),
	T(resv_that_is_not_an_object_is_refused),
	T(unknown_key_in_resv_is_refused_not_ignored),
	T(relative_resv_state_is_refused),
	T(resv_state_is_a_path_or_empty_for_none),
	T(misspelt_allowed_hosts_is_refused_with_a_suggestion),
	T(misspelt_attr_key_is_refused_with_a_suggestion),
	T(misspelt_extension_key_is_refused_with_a_suggestion),
	T(misspelt_key_deep_in_a_namespace_is_named_by_its_path),
	T(misspelt_port_key_is_refused_with_a_suggestion),
	T(misspelt_addr_key_is_refused_with_a_suggestion),
	T(misspelt_discovery_nqn_is_refused_with_a_suggestion),
	T(misspelt_passthru_key_is_refused_with_a_suggestion),
	T(unknown_top_level_key_is_refused_without_a_guess),
	T(unknown_object_in_a_subsystem_is_refused_with_what_it_holds),
	T(device_as_a_string_names_the_expected_type),
	T(allowed_hosts_as_a_string_names_the_expected_type),
	T(flag_as_a_word_names_the_expected_type),
	T(portid_as_a_string_names_the_expected_type),
	T(unused_nvmetcli_key_of_the_wrong_type_is_refused),
	T(unused_nvmetcli_key_with_a_value_loads_with_a_note),
	T(nvmetcli_saves_load_without_notes),
#undef T
	{ NULL, NULL },
};
