/* nvmf-targetctl's command table and builders (app/nvmf-targetctl/request.c), through
 * argv as tctl_parse takes it: every command maps to its method and params, each mistake
 * the command line alone shows is a usage error naming the argument; the table's lookups. */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nvme/wire.h"
#include "subsystem/config.h"
#include "tests/unit/app/nvmf-targetctl/parse_fixture.h"
#include "tests/unit/suites.h"
#include "util/size.h"

static void subsystem_add_builds_a_config_subsystem_object(void)
{
	struct parsed p;
	expect_call(parse(&p, "subsystem", "add", "nqn.a", NULL), "subsystem_add",
		    "{\"subsystem\":{\"nqn\":\"nqn.a\",\"attr\":{\"allow_any_host\":\"0\"},"
		    "\"allowed_hosts\":[],\"namespaces\":[]}}");
	expect_call(parse(&p, "subsystem", "add", "--allow-any-host", "nqn.a", NULL),
		    "subsystem_add",
		    "{\"subsystem\":{\"nqn\":\"nqn.a\",\"attr\":{\"allow_any_host\":\"1\"},"
		    "\"allowed_hosts\":[],\"namespaces\":[]}}");
	/* Every --host kept in order; numbers sent as the strings nvmetcli writes. */
	expect_call(parse(&p, "subsystem", "add", "nqn.a", "--host", "nqn.h:1", "--serial", "SN 01",
			  "--model", "Model X", "--qid-max", "08", "--host=nqn.h:2", NULL),
		    "subsystem_add",
		    "{\"subsystem\":{\"nqn\":\"nqn.a\",\"attr\":{\"allow_any_host\":\"0\","
		    "\"serial\":\"SN 01\",\"model\":\"Model X\",\"qid_max\":\"8\"},"
		    "\"allowed_hosts\":[\"nqn.h:1\",\"nqn.h:2\"],\"namespaces\":[]}}");
	/* Both: the target keeps the hosts for when allow_any_host is turned off. */
	expect_call(parse(&p, "subsystem", "add", "nqn.a", "--allow-any-host", "--host", "nqn.h",
			  NULL),
		    "subsystem_add",
		    "{\"subsystem\":{\"nqn\":\"nqn.a\",\"attr\":{\"allow_any_host\":\"1\"},"
		    "\"allowed_hosts\":[\"nqn.h\"],\"namespaces\":[]}}");
}

static void subsystem_add_rejects_what_the_target_would(void)
{
	struct parsed p;
	expect_usage(parse(&p, "subsystem", "add", NULL),
		     "subsystem add: missing NQN or --from FILE");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--host", "nqn.h", "--host", "nqn.h",
			   NULL),
		     "subsystem add: --host 'nqn.h' given twice");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--host", "", NULL),
		     "subsystem add: --host '' must be 1 to 223 bytes");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--serial", "123456789012345678901",
			   NULL),
		     "subsystem add: --serial '123456789012345678901' must be 1 to 20 "
		     "printable ASCII characters");
	expect_usage(
		parse(&p, "subsystem", "add", "nqn.a", "--model", "caf\xc3\xa9", NULL),
		"subsystem add: --model 'caf\xc3\xa9' must be 1 to 40 printable ASCII characters");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--qid-max", "0", NULL),
		     "subsystem add: --qid-max 0 is out of range (1 to 128)");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--qid-max", "129", NULL),
		     "subsystem add: --qid-max 129 is out of range (1 to 128)");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--qid-max", "many", NULL),
		     "subsystem add: --qid-max 'many' is not a number");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--serial", "a", "--serial", "b", NULL),
		     "subsystem add: option '--serial' given twice");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--from", "s.json", NULL),
		     "subsystem add: --from and NQN exclude each other (FILE holds the whole "
		     "subsystem)");
	expect_usage(parse(&p, "subsystem", "add", "--from", "s.json", "--host", "nqn.h", NULL),
		     "subsystem add: --from and --host exclude each other (FILE holds the whole "
		     "subsystem)");
	expect_usage(parse(&p, "subsystem", "add", "--from", "", NULL),
		     "subsystem add: --from is empty");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "--nsid", "1", NULL),
		     "subsystem add: unknown option '--nsid'");
	expect_usage(parse(&p, "subsystem", "add", "nqn.a", "nqn.b", NULL),
		     "subsystem add: unexpected argument 'nqn.b'");
	/* More repeated values than the parser keeps: refused, not cut short. */
	char *argv[TCTL_MAX_REPEAT * 2 + 8] = { "nvmf-targetctl", "subsystem", "add", "nqn.a" };
	char hosts[TCTL_MAX_REPEAT + 1][16];
	int argc = 4;
	for (int i = 0; i <= TCTL_MAX_REPEAT; i++) {
		snprintf(hosts[i], sizeof(hosts[i]), "nqn.h:%d", i);
		argv[argc++] = "--host";
		argv[argc++] = hosts[i];
	}
	memset(&p, 0, sizeof(p));
	p.rc = tctl_parse(argc, argv, &p.req, p.err, sizeof(p.err));
	expect_usage(&p, "subsystem add: option '--host': more than 256 values");
	argc -= 2; /* exactly the limit: all kept */
	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL_FATAL(tctl_parse(argc, argv, &p.req, p.err, sizeof(p.err)), TCTL_OK);
	json_t *list = json_object_get(json_object_get(p.req.params, "subsystem"), "allowed_hosts");
	CU_ASSERT_EQUAL(json_array_size(list), TCTL_MAX_REPEAT);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(list, 255)), "nqn.h:255");
	tctl_request_free(&p.req);
}

static void port_add_builds_a_config_port_object(void)
{
	struct parsed p;
	/* Defaults: rdma, 4420, the family left to the target, no param object. */
	expect_call(parse(&p, "port", "add", "1", "--traddr", "192.168.100.1", NULL), "port_add",
		    "{\"port\":{\"portid\":1,\"addr\":{\"trtype\":\"rdma\",\"traddr\":"
		    "\"192.168.100.1\",\"trsvcid\":\"4420\"},\"subsystems\":[]}}");
	expect_call(parse(&p, "port", "add", "0", "--traddr", "fe80::1", "--adrfam", "ipv6",
			  "--trsvcid", "4421", "--trtype", "rdma", "--inline-data-size", "4K",
			  "--max-queue-size", "256", "--subsystem", "nqn.a", "--subsystem", "nqn.b",
			  NULL),
		    "port_add",
		    "{\"port\":{\"portid\":0,\"addr\":{\"trtype\":\"rdma\",\"adrfam\":\"ipv6\","
		    "\"traddr\":\"fe80::1\",\"trsvcid\":\"4421\"},\"param\":{\"inline_data_size\":"
		    "\"4096\",\"max_queue_size\":\"256\"},\"subsystems\":[\"nqn.a\",\"nqn.b\"]}}");
	expect_call(parse(&p, "port", "add", "65535", "--max-queue-size", "16", "--traddr",
			  "10.0.0.1", "--adrfam", "ipv4", NULL),
		    "port_add",
		    "{\"port\":{\"portid\":65535,\"addr\":{\"trtype\":\"rdma\",\"adrfam\":\"ipv4\","
		    "\"traddr\":\"10.0.0.1\",\"trsvcid\":\"4420\"},\"param\":{\"max_queue_size\":"
		    "\"16\"},\"subsystems\":[]}}");
	expect_call(
		parse(&p, "port", "add", "2", "--trtype", "tcp", "--traddr", "127.0.0.1",
		      "--maxh2cdata", "64K", NULL),
		"port_add",
		"{\"port\":{\"portid\":2,\"addr\":{\"trtype\":\"tcp\",\"traddr\":\"127.0.0.1\","
		"\"trsvcid\":\"4420\"},\"param\":{\"nvmf_maxh2cdata\":\"65536\"},\"subsystems\":[]}}");
	expect_call(
		parse(&p, "port", "add", "3", "--trtype", "tcp", "--traddr", "127.0.0.1",
		      "--zerocopy-threshold", "0", NULL),
		"port_add",
		"{\"port\":{\"portid\":3,\"addr\":{\"trtype\":\"tcp\",\"traddr\":\"127.0.0.1\","
		"\"trsvcid\":\"4420\"},\"param\":{\"nvmf_zerocopy_threshold\":\"0\"},\"subsystems\":[]}}");
}

static void port_add_takes_ana_group_states_as_the_config_file_does(void)
{
	struct parsed p;
	expect_call(parse(&p, "port", "add", "4", "--traddr", "10.0.0.1", "--ana-state",
			  "2:inaccessible", "--ana-state", "1:non-optimized", NULL),
		    "port_add",
		    "{\"port\":{\"portid\":4,\"addr\":{\"trtype\":\"rdma\",\"traddr\":"
		    "\"10.0.0.1\",\"trsvcid\":\"4420\"},\"subsystems\":[],\"ana_groups\":["
		    "{\"grpid\":2,\"ana\":{\"state\":\"inaccessible\"}},"
		    "{\"grpid\":1,\"ana\":{\"state\":\"non-optimized\"}}]}}");
	/* What it sends is what the target's config parser takes, with those states. */
	parse(&p, "port", "add", "4", "--traddr", "10.0.0.1", "--ana-state", "7:persistent-loss",
	      "--ana-state", "128:change", NULL);
	CU_ASSERT_EQUAL_FATAL(p.rc, TCTL_OK);
	struct nvmf_port_config pc;
	char err[512];
	CU_ASSERT_EQUAL_FATAL(nvmf_config_parse_port(json_object_get(p.req.params, "port"), "port",
						     &pc, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(pc.n_ana_groups, 2);
	CU_ASSERT_EQUAL(pc.ana_groups[0].grpid, 7);
	CU_ASSERT_EQUAL(pc.ana_groups[0].state, NVME_ANA_STATE_PERSISTENT_LOSS);
	CU_ASSERT_EQUAL(pc.ana_groups[1].grpid, 128);
	CU_ASSERT_EQUAL(pc.ana_groups[1].state, NVME_ANA_STATE_CHANGE);
	nvmf_config_port_clear(&pc);
	tctl_request_free(&p.req);

	expect_usage(parse(&p, "port", "add", "4", "--traddr", "10.0.0.1", "--ana-state", "2",
			   NULL),
		     "port add: --ana-state '2' is not GRPID:STATE (e.g. 2:inaccessible)");
	expect_usage(parse(&p, "port", "add", "4", "--traddr", "10.0.0.1", "--ana-state",
			   "0:optimized", NULL),
		     "port add: --ana-state group 0 is out of range (1 to 128)");
	expect_usage(parse(&p, "port", "add", "4", "--traddr", "10.0.0.1", "--ana-state",
			   "129:optimized", NULL),
		     "port add: --ana-state group 129 is out of range (1 to 128)");
	expect_usage(parse(&p, "port", "add", "4", "--traddr", "10.0.0.1", "--ana-state", "2:slow",
			   NULL),
		     "port add: --ana-state 2:slow: 'slow' is not optimized, non-optimized, "
		     "inaccessible, persistent-loss or change");
	expect_usage(parse(&p, "port", "add", "4", "--traddr", "10.0.0.1", "--ana-state",
			   "2:optimized", "--ana-state", "2:inaccessible", NULL),
		     "port add: --ana-state: group 2 given twice");
	/* only port add takes it */
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--ana-state",
			   "2:optimized", NULL),
		     "namespace add: unknown option '--ana-state'");
}

static void port_add_rejects_what_the_target_would(void)
{
	struct parsed p;
	expect_usage(parse(&p, "port", "add", "--traddr", "10.0.0.1", NULL),
		     "port add: missing PORTID (usage: port add PORTID --traddr ADDR [OPTIONS])");
	expect_usage(parse(&p, "port", "add", "1", NULL),
		     "port add: missing --traddr ADDR (the address to listen on)");
	expect_usage(parse(&p, "port", "add", "65536", "--traddr", "10.0.0.1", NULL),
		     "port add: PORTID 65536 is out of range (0 to 65535)");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "target.example", NULL),
		     "port add: --traddr 'target.example' is not an IPv4 or IPv6 address");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--adrfam", "ipv6",
			   NULL),
		     "port add: --traddr '10.0.0.1' is an IPv4 address but --adrfam is "
		     "ipv6");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "::1", "--adrfam", "ipv4", NULL),
		     "port add: --traddr '::1' is an IPv6 address but --adrfam is ipv4");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--adrfam", "ib", NULL),
		     "port add: --adrfam 'ib' is not ipv4 or ipv6");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--trtype", "fc", NULL),
		     "port add: --trtype 'fc' is not supported (the target serves rdma and tcp)");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--trsvcid", "0", NULL),
		     "port add: --trsvcid 0 is out of range (1 to 65535)");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--trsvcid", "nvme",
			   NULL),
		     "port add: --trsvcid 'nvme' is not a number");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--inline-data-size",
			   "32K", NULL),
		     "port add: --inline-data-size 32K is out of range (0 to "
		     "16384 on an rdma port)");
	/* A tcp port's range starts at 1024 (the I/O queues' Connect data), said as such. */
	expect_usage(parse(&p, "port", "add", "1", "--trtype", "tcp", "--traddr", "10.0.0.1",
			   "--inline-data-size", "512", NULL),
		     "port add: --inline-data-size 512 is out of "
		     "range (1024 to 16384 on a tcp port)");
	expect_usage(parse(&p, "port", "add", "1", "--trtype", "tcp", "--traddr", "10.0.0.1",
			   "--inline-data-size", "32K", NULL),
		     "port add: --inline-data-size 32K is out of "
		     "range (1024 to 16384 on a tcp port)");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--inline-data-size",
			   "4X", NULL),
		     "port add: --inline-data-size '4X' is not a size (" NVMF_SIZE_GRAMMAR ")");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--max-queue-size", "8",
			   NULL),
		     "port add: --max-queue-size 8 is out of range (16 to 1024)");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--maxh2cdata", "64K",
			   NULL),
		     "port add: --maxh2cdata is for tcp ports only (this one is rdma)");
	expect_usage(parse(&p, "port", "add", "1", "--trtype", "tcp", "--traddr", "10.0.0.1",
			   "--maxh2cdata", "4092", NULL),
		     "port add: --maxh2cdata 4092 is out of range "
		     "(4096 to 16777216 bytes, a multiple of 4)");
	expect_usage(parse(&p, "port", "add", "1", "--trtype", "tcp", "--traddr", "10.0.0.1",
			   "--maxh2cdata", "8190", NULL),
		     "port add: --maxh2cdata 8190 is out of range "
		     "(4096 to 16777216 bytes, a multiple of 4)");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--zerocopy-threshold",
			   "0", NULL),
		     "port add: --zerocopy-threshold is for tcp ports only (this one is rdma)");
	expect_usage(parse(&p, "port", "add", "1", "--trtype", "tcp", "--traddr", "10.0.0.1",
			   "--zerocopy-threshold", "1K", NULL),
		     "port add: --zerocopy-threshold 1K is out "
		     "of range (0 for never, or 4096 to 16777216 bytes)");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--subsystem", "nqn.a",
			   "--subsystem", "nqn.a", NULL),
		     "port add: --subsystem 'nqn.a' given twice");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--traddr", "10.0.0.2",
			   NULL),
		     "port add: option '--traddr' given twice");
	expect_usage(parse(&p, "port", "add", "1", "--traddr", "10.0.0.1", "--host", "nqn.h", NULL),
		     "port add: unknown option '--host'");
	expect_usage(parse(&p, "port", NULL),
		     "port: missing command (list, add, remove, link, unlink)");
}

/* The objects subsystem add and port add build go through the target's own config parser
 * (what subsystem_add and port_add run) and come out as the options said. */
static void the_targets_config_parser_accepts_what_add_builds(void)
{
	struct parsed p;
	char err[768] = "";
	parse(&p, "subsystem", "add", "nqn.2024-01.io.example:a", "--host", "nqn.h:1", "--host",
	      "nqn.h:2", "--serial", "SN 01", "--model", "Model X", "--qid-max", "8", NULL);
	CU_ASSERT_EQUAL_FATAL(p.rc, TCTL_OK);
	struct nvmf_subsys_config sc;
	memset(&sc, 0, sizeof(sc));
	CU_ASSERT_EQUAL(nvmf_config_parse_subsys(
				json_object_get(p.req.params, "subsystem"), "subsystem",
				"nqn.2014-08.org.nvmexpress.discovery", &sc, err, sizeof(err)),
			0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_STRING_EQUAL(sc.nqn, "nqn.2024-01.io.example:a");
	CU_ASSERT_FALSE(sc.allow_any_host);
	CU_ASSERT_EQUAL_FATAL(sc.n_allowed_hosts, 2);
	CU_ASSERT_STRING_EQUAL(sc.allowed_hosts[1], "nqn.h:2");
	CU_ASSERT_STRING_EQUAL(sc.serial, "SN 01");
	CU_ASSERT_STRING_EQUAL(sc.model, "Model X");
	CU_ASSERT_EQUAL(sc.qid_max, 8);
	CU_ASSERT_EQUAL(sc.n_ns, 0);
	nvmf_config_subsys_clear(&sc);
	tctl_request_free(&p.req);

	parse(&p, "subsystem", "add", "nqn.2024-01.io.example:b", "--allow-any-host", NULL);
	CU_ASSERT_EQUAL_FATAL(p.rc, TCTL_OK);
	memset(&sc, 0, sizeof(sc));
	CU_ASSERT_EQUAL(nvmf_config_parse_subsys(
				json_object_get(p.req.params, "subsystem"), "subsystem",
				"nqn.2014-08.org.nvmexpress.discovery", &sc, err, sizeof(err)),
			0);
	CU_ASSERT_TRUE(sc.allow_any_host);
	nvmf_config_subsys_clear(&sc);
	tctl_request_free(&p.req);

	parse(&p, "port", "add", "7", "--traddr", "fe80::1", "--trsvcid", "4421",
	      "--inline-data-size", "4K", "--max-queue-size", "256", "--subsystem", "nqn.a", NULL);
	CU_ASSERT_EQUAL_FATAL(p.rc, TCTL_OK);
	struct nvmf_port_config pc;
	memset(&pc, 0, sizeof(pc));
	CU_ASSERT_EQUAL(nvmf_config_parse_port(json_object_get(p.req.params, "port"), "port", &pc,
					       err, sizeof(err)),
			0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL(pc.portid, 7);
	CU_ASSERT_STRING_EQUAL(pc.trtype, "rdma");
	CU_ASSERT_EQUAL(pc.adrfam, AF_INET6); /* inferred: --adrfam was not given */
	CU_ASSERT_STRING_EQUAL(pc.traddr, "fe80::1");
	CU_ASSERT_STRING_EQUAL(pc.trsvcid, "4421");
	CU_ASSERT_EQUAL(pc.inline_data_size, 4096);
	CU_ASSERT_EQUAL(pc.max_queue_size, 256);
	CU_ASSERT_EQUAL_FATAL(pc.n_subsystems, 1);
	CU_ASSERT_STRING_EQUAL(pc.subsystems[0], "nqn.a");
	nvmf_config_port_clear(&pc);
	tctl_request_free(&p.req);
}

static void removes_and_links_map_to_their_methods(void)
{
	struct parsed p;
	expect_call(parse(&p, "subsystem", "remove", "nqn.a", NULL), "subsystem_remove",
		    "{\"nqn\":\"nqn.a\"}");
	expect_call(parse(&p, "port", "remove", "3", NULL), "port_remove", "{\"portid\":3}");
	expect_call(parse(&p, "port", "link", "1", "nqn.a", NULL), "port_link",
		    "{\"portid\":1,\"nqn\":\"nqn.a\"}");
	expect_call(parse(&p, "port", "unlink", "0", "nqn.a", NULL), "port_unlink",
		    "{\"portid\":0,\"nqn\":\"nqn.a\"}");
	expect_usage(parse(&p, "subsystem", "remove", NULL),
		     "subsystem remove: missing NQN (usage: subsystem remove NQN)");
	expect_usage(parse(&p, "port", "remove", "one", NULL),
		     "port remove: PORTID 'one' is not a number");
	expect_usage(parse(&p, "port", "remove", "1", "2", NULL),
		     "port remove: unexpected argument '2'");
	expect_usage(parse(&p, "port", "link", "1", NULL),
		     "port link: missing NQN (usage: port link PORTID NQN)");
	expect_usage(parse(&p, "port", "unlink", "70000", "nqn.a", NULL),
		     "port unlink: PORTID 70000 is out of range (0 to 65535)");
	expect_usage(parse(&p, "port", "link", "1", "", NULL),
		     "port link: NQN '' must be 1 to 223 bytes");
}

static void config_and_log_level_map_to_their_methods(void)
{
	struct parsed p;
	char cwd[PATH_MAX], want[PATH_MAX + 64];
	expect_call(parse(&p, "config", "show", NULL), "config_get", "{}");
	expect_call(parse(&p, "config", "reload", NULL), "config_reload", "{}");
	expect_call(parse(&p, "config", "reload", "--force", NULL), "config_reload",
		    "{\"force\":true}");
	expect_call(load(parse(&p, "config", "save", NULL)), "config_save", "{}");
	expect_call(load(parse(&p, "config", "save", "/etc/nvmf-target.json", NULL)), "config_save",
		    "{\"path\":\"/etc/nvmf-target.json\"}");
	/* Relative: parsing keeps it, loading makes it absolute (the target's cwd differs). */
	expect_call(parse(&p, "config", "save", "saved.json", NULL), "config_save",
		    "{\"path\":\"saved.json\"}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(".", cwd));
	snprintf(want, sizeof(want), "{\"path\":\"%s/saved.json\"}", cwd);
	expect_call(load(parse(&p, "config", "save", "saved.json", NULL)), "config_save", want);
	expect_call(load(parse(&p, "config", "save", "./saved.json", NULL)), "config_save", want);
	/* A directory that is not there is the target's to refuse (as for an absolute PATH):
	 * it gets the current directory and PATH as typed. */
	snprintf(want, sizeof(want), "{\"path\":\"%s/no-such-dir/x.json\"}", cwd);
	expect_call(load(parse(&p, "config", "save", "no-such-dir/x.json", NULL)), "config_save",
		    want);
	expect_usage(parse(&p, "config", "save", "", NULL), "config save: PATH is empty");
	expect_usage(parse(&p, "config", "save", "/var/lib/", NULL),
		     "config save: PATH '/var/lib/' names a directory, not a file");
	expect_usage(parse(&p, "config", "save", "..", NULL),
		     "config save: PATH '..' names a directory, not a file");
	expect_usage(parse(&p, "config", "show", "x", NULL),
		     "config show: unexpected argument 'x'");
	expect_usage(parse(&p, "config", "load", NULL),
		     "config: unknown command 'load' (show, save, reload)");

	expect_call(parse(&p, "log-level", NULL), "log_level_get", "{}");
	expect_call(parse(&p, "log-level", "debug", NULL), "log_level_set",
		    "{\"level\":\"debug\"}");
	expect_call(parse(&p, "log-level", "error", NULL), "log_level_set",
		    "{\"level\":\"error\"}");
	expect_call(parse(&p, "log-level", "--component", "tcp", NULL), "log_level_get",
		    "{\"component\":\"tcp\"}");
	expect_call(parse(&p, "log-level", "--component", "auth", "debug", NULL), "log_level_set",
		    "{\"component\":\"auth\",\"level\":\"debug\"}");
	expect_usage(parse(&p, "log-level", "trace", NULL),
		     "log-level: LEVEL 'trace' is not error, warning, info or debug");
	expect_usage(parse(&p, "log-level", "INFO", NULL),
		     "log-level: LEVEL 'INFO' is not error, warning, info or debug");
	expect_usage(parse(&p, "log-level", "info", "debug", NULL),
		     "log-level: unexpected argument 'debug'");
	/* --component's names are the schema's too, checked before anything is sent */
	expect_usage(
		parse(&p, "log-level", "--component", "disk", NULL),
		"log-level: --component 'disk' is not core, rdma, tcp, auth, control, backend or gateway");
	expect_usage(
		parse(&p, "log-level", "--component", "disk", "info", NULL),
		"log-level: --component 'disk' is not core, rdma, tcp, auth, control, backend or gateway");
}

static void every_list_command_maps_to_its_method(void)
{
	struct parsed p;
	expect_call(parse(&p, "version", NULL), "version", "{}");
	expect_call(parse(&p, "subsystem", "list", NULL), "subsystem_list", "{}");
	expect_call(parse(&p, "subsystem", "list", "nqn.a", NULL), "subsystem_list",
		    "{\"nqn\":\"nqn.a\"}");
	expect_call(parse(&p, "port", "list", NULL), "port_list", "{}");
	expect_call(parse(&p, "controller", "list", NULL), "controller_list", "{}");
	expect_call(parse(&p, "controller", "list", "--nqn", "nqn.a", NULL), "controller_list",
		    "{\"nqn\":\"nqn.a\"}");
	expect_call(parse(&p, "stats", "namespaces", NULL), "namespace_stats", "{}");
	expect_call(parse(&p, "stats", "namespaces", "--nqn=nqn.a", "--nsid", "2", NULL),
		    "namespace_stats", "{\"nqn\":\"nqn.a\",\"nsid\":2}");
	expect_call(parse(&p, "stats", "poll-groups", NULL), "poll_group_stats", "{}");
}

static void every_change_command_maps_to_its_method_and_params(void)
{
	struct parsed p;
	expect_call(parse(&p, "controller", "disconnect", "nqn.a", "7", NULL),
		    "controller_disconnect", "{\"nqn\":\"nqn.a\",\"cntlid\":7}");
	expect_call(parse(&p, "namespace", "remove", "nqn.a", "3", NULL), "namespace_remove",
		    "{\"nqn\":\"nqn.a\",\"nsid\":3}");
	expect_call(parse(&p, "namespace", "enable", "nqn.a", "3", NULL), "namespace_enable",
		    "{\"nqn\":\"nqn.a\",\"nsid\":3}");
	expect_call(parse(&p, "namespace", "disable", "nqn.a", "1024", NULL), "namespace_disable",
		    "{\"nqn\":\"nqn.a\",\"nsid\":1024}");
	expect_call(parse(&p, "namespace", "resize", "nqn.a", "1", "64M", NULL), "namespace_resize",
		    "{\"nqn\":\"nqn.a\",\"nsid\":1,\"size_bytes\":67108864}");
	/* The one size grammar (util/size.h): IEC spellings, hex, P; at most INT64_MAX. */
	expect_call(parse(&p, "namespace", "resize", "nqn.a", "1", "64MiB", NULL),
		    "namespace_resize", "{\"nqn\":\"nqn.a\",\"nsid\":1,\"size_bytes\":67108864}");
	expect_call(parse(&p, "namespace", "resize", "nqn.a", "1", "0x4000000", NULL),
		    "namespace_resize", "{\"nqn\":\"nqn.a\",\"nsid\":1,\"size_bytes\":67108864}");
	/* No SIZE: a device namespace takes its device's size (the target decides). */
	expect_call(parse(&p, "namespace", "resize", "nqn.a", "1", NULL), "namespace_resize",
		    "{\"nqn\":\"nqn.a\",\"nsid\":1}");
	expect_call(parse(&p, "namespace", "resize", "nqn.a", "1", "8191P", NULL),
		    "namespace_resize",
		    "{\"nqn\":\"nqn.a\",\"nsid\":1,\"size_bytes\":9222246136947933184}");
	expect_usage(parse(&p, "namespace", "resize", "nqn.a", "1", "8192P", NULL),
		     "namespace resize: SIZE '8192P' is too large");
	expect_call(parse(&p, "namespace", "reservation", "nqn.a", "2", NULL),
		    "namespace_reservation", "{\"nqn\":\"nqn.a\",\"nsid\":2}");
	/* With the word clear, the operator's clear; any other word is refused. */
	expect_call(parse(&p, "namespace", "reservation", "nqn.a", "2", "clear", NULL),
		    "namespace_reservation_clear", "{\"nqn\":\"nqn.a\",\"nsid\":2}");
	expect_usage(parse(&p, "namespace", "reservation", "nqn.a", "2", "clean", NULL),
		     "namespace reservation: 'clean' is not clear (the only word after NSID)");
	expect_usage(parse(&p, "namespace", "reservation", "nqn.a", "2", "clear", "now", NULL),
		     "namespace reservation: unexpected argument 'now'");
	expect_call(parse(&p, "host", "add", "nqn.a", "nqn.h", NULL), "host_add",
		    "{\"nqn\":\"nqn.a\",\"host\":\"nqn.h\"}");
	expect_call(parse(&p, "host", "remove", "nqn.a", "nqn.h", NULL), "host_remove",
		    "{\"nqn\":\"nqn.a\",\"host\":\"nqn.h\"}");
	expect_call(parse(&p, "subsystem", "allow-any-host", "nqn.a", "on", NULL),
		    "subsystem_allow_any_host", "{\"nqn\":\"nqn.a\",\"allow\":true}");
	expect_call(parse(&p, "subsystem", "allow-any-host", "nqn.a", "off", NULL),
		    "subsystem_allow_any_host", "{\"nqn\":\"nqn.a\",\"allow\":false}");
	expect_call(parse(&p, "host", "tls-key", "nqn.h", "--key-file", "/k", NULL),
		    "host_tls_key_set", "{\"host\":\"nqn.h\",\"key_file\":\"/k\"}");
	/* --compat: the key's version 0 identities in libnvme's compat layout */
	expect_call(parse(&p, "host", "tls-key", "nqn.h", "--key-file", "/k", "--compat", NULL),
		    "host_tls_key_set", "{\"host\":\"nqn.h\",\"key_file\":\"/k\",\"compat\":true}");
}

static void namespace_add_builds_an_nvmetcli_namespace_object(void)
{
	struct parsed p;
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--ram", "64M", NULL), "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"nvmf_backend\":\"ram\","
		    "\"nvmf_size_bytes\":67108864}}");
	expect_call(parse(&p, "namespace", "add", "--null", "1g", "nqn.a", "--nsid", "9",
			  "--disabled", "--block-size", "4096", NULL),
		    "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"nsid\":9,\"enable\":false,"
		    "\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":1073741824,"
		    "\"nvmf_block_size\":4096}}");
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--path", "/var/tmp/a.img", "--size",
			  "1G", "--create", "--buffered", "--uuid",
			  "5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11", "--nguid",
			  "00112233445566778899aabbccddeeff", "--backend", "file", NULL),
		    "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"device\":{\"path\":"
		    "\"/var/tmp/a.img\",\"uuid\":\"5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11\","
		    "\"nguid\":\"00112233445566778899aabbccddeeff\"},\"nvmf_backend\":\"file\","
		    "\"nvmf_size_bytes\":1073741824,\"nvmf_create\":true,\"nvmf_buffered\":true}}");
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--path", "/dev/nvme0n1", "--backend",
			  "nvme", NULL),
		    "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"device\":{\"path\":"
		    "\"/dev/nvme0n1\"},\"nvmf_backend\":\"nvme\"}}");
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--rbd", "rbd/vm1", NULL),
		    "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"nvmf_backend\":\"rbd\","
		    "\"nvmf_rbd_pool\":\"rbd\",\"nvmf_rbd_image\":\"vm1\"}}");
	expect_call(
		parse(&p, "namespace", "add", "nqn.a", "--rbd", "p/t1/vm1", "--rbd-conf",
		      "/c/ceph.conf", "--rbd-keyring", "/k/gw.keyring", "--rbd-client", "gw1",
		      "--block-size", "4096", NULL),
		"namespace_add",
		"{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"nvmf_backend\":\"rbd\","
		"\"nvmf_rbd_pool\":\"p\",\"nvmf_rbd_namespace\":\"t1\",\"nvmf_rbd_image\":\"vm1\","
		"\"nvmf_rbd_conf\":\"/c/ceph.conf\",\"nvmf_rbd_keyring\":\"/k/gw.keyring\","
		"\"nvmf_rbd_client_id\":\"gw1\",\"nvmf_block_size\":4096}}");
}

static void namespace_add_rejects_options_that_do_not_go_together(void)
{
	struct parsed p;
	expect_usage(
		parse(&p, "namespace", "add", "nqn.a", NULL),
		"namespace add: one of --path PATH, --ram SIZE, --null SIZE or --rbd POOL/IMAGE is "
		"required");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--path", "/x", NULL),
		     "namespace add: --path, --ram, --null and --rbd exclude each other");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--size", "2M", NULL),
		     "namespace add: --size goes with --path only (--ram takes no file)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--rbd", "rbd/vm1", "--size", "2M",
			   NULL),
		     "namespace add: --size goes with --path only (--rbd takes no file)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--rbd", "rbd", NULL),
		     "namespace add: --rbd 'rbd' is not POOL/IMAGE or POOL/NAMESPACE/IMAGE");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--rbd", "a/b/c/d", NULL),
		     "namespace add: --rbd 'a/b/c/d' is not POOL/IMAGE or POOL/NAMESPACE/IMAGE");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--rbd", "rbd//vm1", NULL),
		     "namespace add: --rbd 'rbd//vm1' is not POOL/IMAGE or POOL/NAMESPACE/IMAGE");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--rbd-keyring", "/k",
			   NULL),
		     "namespace add: --rbd-keyring goes with --rbd only");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--null", "1M", "--backend", "file",
			   NULL),
		     "namespace add: --backend goes with --path only (--null takes no file)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--path", "/x", "--create", NULL),
		     "namespace add: --create needs --size SIZE (the size of the file to create)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--path", "/x", "--create", "--size",
			   "1M", "--backend", "bdev", NULL),
		     "namespace add: --create makes a file, not a 'bdev' namespace");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--path", "/x", "--backend", "ram",
			   NULL),
		     "namespace add: --backend 'ram' is not file, bdev or nvme");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--block-size", "1024",
			   NULL),
		     "namespace add: --block-size '1024' is not 512 or 4096");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "64X", NULL),
		     "namespace add: --ram '64X' is not a size (" NVMF_SIZE_GRAMMAR ")");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "0", NULL),
		     "namespace add: --ram must be greater than 0");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--nsid", "0", NULL),
		     "namespace add: --nsid 0 is out of range (1 to 1024)");
	/* The target's namespace slots (NVMF_SUBSYS_MAX_NSID), not the spec's 2^32-2. */
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--nsid", "1024", NULL),
		    "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"nsid\":1024,"
		    "\"enable\":true,\"nvmf_backend\":\"ram\",\"nvmf_size_bytes\":1048576}}");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--nsid", "1025", NULL),
		     "namespace add: --nsid 1025 is out of range (1 to 1024)");
	/* A ram or null namespace has no file to open buffered. */
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--buffered", NULL),
		     "namespace add: --buffered goes with --path only (--ram takes no file)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--null", "1M", "--buffered", NULL),
		     "namespace add: --buffered goes with --path only (--null takes no file)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--uuid", "abc", NULL),
		     "namespace add: --uuid 'abc' has 3 characters, expected 36 (8-4-4-4-12 with "
		     "dashes) or 32 hex digits");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--nsid", "1", "--nsid",
			   "2", NULL),
		     "namespace add: option '--nsid' given twice");
}

static void call_takes_a_method_and_a_json_object(void)
{
	struct parsed p;
	expect_call(parse(&p, "call", "port_list", NULL), "port_list", "{}");
	expect_call(parse(&p, "call", "namespace_remove", "{\"nqn\":\"nqn.a\",\"nsid\":2}", NULL),
		    "namespace_remove", "{\"nqn\":\"nqn.a\",\"nsid\":2}");
	expect_usage(parse(&p, "call", "x", "[1,2]", NULL),
		     "call: JSON-PARAMS must be an object ({\"name\": value, ...})");
	expect_usage(parse(&p, "call", "x", "{\"a\" 1}", NULL),
		     "call: JSON-PARAMS: ':' expected near '1' (column 6)");
}

static void ana_commands_build_their_params(void)
{
	struct parsed p;
	expect_call(parse(&p, "ana", "list", NULL), "ana_state_list", "{}");
	expect_call(parse(&p, "ana", "list", "2", NULL), "ana_state_list", "{\"portid\":2}");
	expect_call(parse(&p, "ana", "set", "1", "2", "inaccessible", NULL), "ana_state_set",
		    "{\"portid\":1,\"grpid\":2,\"state\":\"inaccessible\"}");
	expect_call(parse(&p, "ana", "set", "0", "128", "persistent-loss", NULL), "ana_state_set",
		    "{\"portid\":0,\"grpid\":128,\"state\":\"persistent-loss\"}");
	expect_call(parse(&p, "namespace", "ana-group", "nqn.a", "3", "2", NULL),
		    "namespace_ana_group_set", "{\"nqn\":\"nqn.a\",\"nsid\":3,\"grpid\":2}");
	expect_call(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--ana-group", "4", NULL),
		    "namespace_add",
		    "{\"nqn\":\"nqn.a\",\"namespace\":{\"enable\":true,\"nvmf_backend\":"
		    "\"ram\",\"nvmf_size_bytes\":1048576,\"ana_grpid\":4}}");
}

static void ana_command_mistakes_are_usage_errors_naming_the_argument(void)
{
	struct parsed p;
	expect_usage(parse(&p, "ana", "set", "1", "2", "slow", NULL),
		     "ana set: STATE 'slow' is not optimized, non-optimized, inaccessible, "
		     "persistent-loss or change");
	expect_usage(parse(&p, "ana", "set", "1", "2", "Optimized", NULL),
		     "ana set: STATE 'Optimized' is not optimized, non-optimized, inaccessible, "
		     "persistent-loss or change");
	expect_usage(parse(&p, "ana", "set", "1", "0", "optimized", NULL),
		     "ana set: GRPID 0 is out of range (1 to 128)");
	expect_usage(parse(&p, "ana", "set", "1", "2", NULL),
		     "ana set: missing STATE (usage: ana set PORTID GRPID STATE)");
	expect_usage(parse(&p, "ana", "set", "65536", "2", "optimized", NULL),
		     "ana set: PORTID 65536 is out of range (0 to 65535)");
	expect_usage(parse(&p, "ana", "list", "x", NULL), "ana list: PORTID 'x' is not a number");
	expect_usage(parse(&p, "namespace", "ana-group", "nqn.a", "3", "129", NULL),
		     "namespace ana-group: GRPID 129 is out of range (1 to 128)");
	expect_usage(parse(&p, "namespace", "ana-group", "nqn.a", "0", "1", NULL),
		     "namespace ana-group: NSID 0 is out of range (1 to 1024)");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--ana-group", "x",
			   NULL),
		     "namespace add: --ana-group 'x' is not a number");
	expect_usage(parse(&p, "namespace", "add", "nqn.a", "--ram", "1M", "--ana-group", "0",
			   NULL),
		     "namespace add: --ana-group 0 is out of range (1 to 128)");
}

static void find_command_matches_both_words_or_a_one_word_command(void)
{
	const struct tctl_command *c = tctl_find_command("namespace", "add");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->method, "namespace_add");
	c = tctl_find_command("version", "anything"); /* a one-word command ignores the verb */
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(c->method, "version");
	CU_ASSERT_PTR_NULL(tctl_find_command("namespace", NULL));
	CU_ASSERT_PTR_NULL(tctl_find_command("namespace", "delete"));
	CU_ASSERT_PTR_NULL(tctl_find_command("names", "add")); /* words match whole */
	CU_ASSERT_PTR_NULL(tctl_find_command("frobnicate", "add"));
}

static void group_lookups_name_the_group_and_its_verbs(void)
{
	char buf[128];
	CU_ASSERT_TRUE(tctl_group_exists("namespace"));
	CU_ASSERT_TRUE(tctl_group_exists("version"));
	CU_ASSERT_FALSE(tctl_group_exists("namespaces"));
	tctl_group_verbs("namespace", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "add, remove, enable, disable, resize, ana-group, reservation");
	tctl_group_verbs("version", buf, sizeof(buf)); /* a one-word command has no verbs */
	CU_ASSERT_STRING_EQUAL(buf, "");
	/* A buffer too small holds the start of the list, terminated. */
	char small[10];
	tctl_group_verbs("namespace", small, sizeof(small));
	CU_ASSERT_STRING_EQUAL(small, "add, remo");
}

static void command_name_is_its_words(void)
{
	char buf[64];
	tctl_command_name(tctl_find_command("namespace", "ana-group"), buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "namespace ana-group");
	tctl_command_name(tctl_find_command("version", NULL), buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "version");
}

const struct unit_test targetctl_request_tests[] = {
	{ "subsystem_add_builds_a_config_subsystem_object",
	  subsystem_add_builds_a_config_subsystem_object },
	{ "subsystem_add_rejects_what_the_target_would",
	  subsystem_add_rejects_what_the_target_would },
	{ "port_add_builds_a_config_port_object", port_add_builds_a_config_port_object },
	{ "port_add_takes_ana_group_states_as_the_config_file_does",
	  port_add_takes_ana_group_states_as_the_config_file_does },
	{ "port_add_rejects_what_the_target_would", port_add_rejects_what_the_target_would },
	{ "the_targets_config_parser_accepts_what_add_builds",
	  the_targets_config_parser_accepts_what_add_builds },
	{ "removes_and_links_map_to_their_methods", removes_and_links_map_to_their_methods },
	{ "config_and_log_level_map_to_their_methods", config_and_log_level_map_to_their_methods },
	{ "every_list_command_maps_to_its_method", every_list_command_maps_to_its_method },
	{ "every_change_command_maps_to_its_method_and_params",
	  every_change_command_maps_to_its_method_and_params },
	{ "namespace_add_builds_an_nvmetcli_namespace_object",
	  namespace_add_builds_an_nvmetcli_namespace_object },
	{ "namespace_add_rejects_options_that_do_not_go_together",
	  namespace_add_rejects_options_that_do_not_go_together },
	{ "call_takes_a_method_and_a_json_object", call_takes_a_method_and_a_json_object },
	{ "ana_commands_build_their_params", ana_commands_build_their_params },
	{ "ana_command_mistakes_are_usage_errors_naming_the_argument",
	  ana_command_mistakes_are_usage_errors_naming_the_argument },
	{ "find_command_matches_both_words_or_a_one_word_command",
	  find_command_matches_both_words_or_a_one_word_command },
	{ "group_lookups_name_the_group_and_its_verbs",
	  group_lookups_name_the_group_and_its_verbs },
	{ "command_name_is_its_words", command_name_is_its_words },
	{ NULL, NULL },
};
