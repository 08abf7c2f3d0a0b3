/* nvmf-targetctl's output (app/nvmf-targetctl/format.c, table.c): tables with aligned columns and
 * a header, one confirmation line per change, --json as the target's result indented. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "app/nvmf-targetctl/targetctl.h"
#include "tests/unit/suites.h"

/* The text tctl_format prints for the command line @args (space-separated words, no
 * program name) and the result JSON @result; malloc'ed. */
static char *format(const char *args, const char *result)
{
	char words[512], *argv[16] = { "nvmf-targetctl" };
	int argc = 1;
	snprintf(words, sizeof(words), "%s", args);
	for (char *save, *w = strtok_r(words, " ", &save); w && argc < 15;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	struct tctl_request req;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(tctl_parse(argc, argv, &req, err, sizeof(err)), TCTL_OK);
	json_t *r = json_loads(result, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	CU_ASSERT_EQUAL(tctl_format(f, &req, r), TCTL_OK);
	fclose(f);
	json_decref(r);
	tctl_request_free(&req);
	return out;
}

static void expect(const char *args, const char *result, const char *want)
{
	char *got = format(args, result);
	CU_ASSERT_STRING_EQUAL(got, want);
	if (strcmp(got, want))
		fprintf(stderr, "\n--- got:\n%s--- expected:\n%s", got, want);
	free(got);
}

static const char subsystems[] =
	"{\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.nvmf-rdma:file0\",\"allow_any_host\":true,"
	"\"hosts\":[],\"serial\":\"a1b2\",\"model\":\"nvmf-rdma\",\"namespaces\":[{\"nsid\":1,"
	"\"enable\":true,\"backend\":\"file\",\"path\":\"/var/tmp/file0.img\",\"size_bytes\":"
	"1073741824,\"block_size\":512,\"uuid\":\"5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11\"},"
	"{\"nsid\":12,\"enable\":false,\"backend\":\"ram\",\"path\":null,\"size_bytes\":"
	"100000,\"block_size\":4096,\"uuid\":\"0fd7a2b4-0c5e-4d2b-9a43-7d8b9a1c2e3f\"}],"
	"\"ports\":[1,2],\"controllers\":3},"
	"{\"nqn\":\"nqn.x:b\",\"allow_any_host\":false,\"hosts\":[\"nqn.h:1\",\"nqn.h:2\"],"
	"\"serial\":\"c3\",\"model\":\"m\",\"namespaces\":[],\"ports\":[],\"controllers\":0}]}";

static void subsystem_list_is_a_table_with_a_header(void)
{
	expect("subsystem list", subsystems,
	       "NQN                             ANY-HOST  HOSTS  NAMESPACES  PORTS  CONTROLLERS  SERIAL  MODEL\n"
	       "nqn.2024-01.io.nvmf-rdma:file0  yes           0           2  1,2              3  a1b2    nvmf-rdma\n"
	       "nqn.x:b                         no            2           0  -                0  c3      m\n");
}

static void subsystem_list_of_one_nqn_adds_hosts_and_namespaces(void)
{
	expect("subsystem list nqn.x:b",
	       "{\"subsystems\":[{\"nqn\":\"nqn.x:b\",\"allow_any_host\":false,\"hosts\":"
	       "[\"nqn.h:1\",\"nqn.h:2\"],\"serial\":\"c3\",\"model\":\"m\",\"namespaces\":[{\"nsid\":"
	       "12,\"enable\":false,\"backend\":\"ram\",\"path\":null,\"size_bytes\":100000,"
	       "\"block_size\":4096,\"uuid\":\"0fd7a2b4-0c5e-4d2b-9a43-7d8b9a1c2e3f\"},{\"nsid\":1,"
	       "\"enable\":true,\"backend\":\"file\",\"path\":\"/f.img\",\"size_bytes\":67108864,"
	       "\"block_size\":512,\"uuid\":\"5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11\"}],\"ports\":[1],"
	       "\"controllers\":1}]}",
	       "NQN      ANY-HOST  HOSTS  NAMESPACES  PORTS  CONTROLLERS  SERIAL  MODEL\n"
	       "nqn.x:b  no            2           2  1                1  c3      m\n"
	       "\n"
	       "hosts of nqn.x:b: nqn.h:1, nqn.h:2\n"
	       "\n"
	       "NSID  ENABLED  BACKEND      SIZE  BLOCK  UUID                                  PATH\n"
	       "  12  no       ram      97.7 KiB   4096  0fd7a2b4-0c5e-4d2b-9a43-7d8b9a1c2e3f  -\n"
	       "   1  yes      file       64 MiB    512  5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11  /f.img\n");
}

/* A backing file deleted while served shows as such beside its name. */
static void namespace_whose_file_was_deleted_says_so(void)
{
	expect("subsystem list nqn.x:b",
	       "{\"subsystems\":[{\"nqn\":\"nqn.x:b\",\"allow_any_host\":true,\"hosts\":[],"
	       "\"serial\":\"c3\",\"model\":\"m\",\"namespaces\":[{\"nsid\":1,\"enable\":true,"
	       "\"backend\":\"file\",\"path\":\"/f.img\",\"size_bytes\":67108864,\"block_size\":512,"
	       "\"uuid\":\"5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11\",\"backing_file_unlinked\":true}],"
	       "\"ports\":[],\"controllers\":0}]}",
	       "NQN      ANY-HOST  HOSTS  NAMESPACES  PORTS  CONTROLLERS  SERIAL  MODEL\n"
	       "nqn.x:b  yes           0           1  -                0  c3      m\n"
	       "\n"
	       "hosts of nqn.x:b: none (any host may connect)\n"
	       "\n"
	       "NSID  ENABLED  BACKEND    SIZE  BLOCK  UUID                                  PATH\n"
	       "   1  yes      file     64 MiB    512  5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11  /f.img (deleted)\n");
}

static void port_and_controller_lists_are_tables(void)
{
	expect("port list",
	       "{\"ports\":[{\"portid\":1,\"trtype\":\"rdma\",\"adrfam\":\"ipv4\",\"traddr\":"
	       "\"192.168.100.1\",\"trsvcid\":\"4420\",\"subsystems\":[\"nqn.a\",\"nqn.b\"],"
	       "\"controllers\":2}]}",
	       "PORTID  TRTYPE  ADRFAM  TRADDR         TRSVCID  CONTROLLERS  SUBSYSTEMS\n"
	       "     1  rdma    ipv4    192.168.100.1     4420            2  nqn.a,nqn.b\n");
	expect("controller list",
	       "{\"controllers\":[{\"cntlid\":1,\"subnqn\":\"nqn.a\",\"hostnqn\":\"nqn.h\","
	       "\"hostid\":\"x\",\"portid\":1,\"kato_ms\":120000,\"connected_since\":"
	       "\"2024-05-01T10:00:00Z\",\"io_queues\":4,\"queues\":[],\"reads\":1234,"
	       "\"writes\":56}]}",
	       "CNTLID  SUBNQN  HOSTNQN  PORTID  IO-QUEUES  KATO-MS  READS  WRITES  CONNECTED-SINCE       TLS  AUTH\n"
	       "     1  nqn.a   nqn.h         1          4   120000   1234      56  2024-05-01T10:00:00Z  -    -\n");
	/* Whether it runs over TLS, how it authenticated; "*": a queue differs. */
	expect("controller list",
	       "{\"controllers\":[{\"cntlid\":1,\"subnqn\":\"nqn.a\",\"hostnqn\":\"nqn.h\","
	       "\"portid\":1,\"kato_ms\":5000,\"connected_since\":\"2024-05-01T10:00:00Z\","
	       "\"io_queues\":1,\"reads\":0,\"writes\":0,\"tls\":true,\"auth\":{\"hash\":\"hmac(sha384)\","
	       "\"dhgroup\":\"ffdhe2048\",\"bidirectional\":true},\"queues\":[{\"qid\":0},"
	       "{\"qid\":1,\"auth\":null}]},"
	       "{\"cntlid\":2,\"subnqn\":\"nqn.a\",\"hostnqn\":\"nqn.i\",\"portid\":1,\"kato_ms\":5000,"
	       "\"connected_since\":\"2024-05-01T10:00:00Z\",\"io_queues\":0,\"reads\":0,"
	       "\"writes\":0,\"tls\":false,\"auth\":null,\"queues\":[{\"qid\":0}]}]}",
	       "CNTLID  SUBNQN  HOSTNQN  PORTID  IO-QUEUES  KATO-MS  READS  WRITES  CONNECTED-SINCE       TLS  AUTH\n"
	       "     1  nqn.a   nqn.h         1          1     5000      0       0  2024-05-01T10:00:00Z  yes  hmac(sha384)/ffdhe2048/bidirectional*\n"
	       "     2  nqn.a   nqn.i         1          0     5000      0       0  2024-05-01T10:00:00Z  no   no\n");
	/* An empty list is its header. */
	expect("controller list", "{\"controllers\":[]}",
	       "CNTLID  SUBNQN  HOSTNQN  PORTID  IO-QUEUES  KATO-MS  READS  WRITES  CONNECTED-SINCE  TLS  AUTH\n");
}

static void stats_are_tables_and_missing_fields_print_a_dash(void)
{
	expect("stats namespaces",
	       "{\"namespaces\":[{\"nqn\":\"nqn.a\",\"nsid\":1,\"reads\":10,\"writes\":20,"
	       "\"read_bytes\":40960,\"write_bytes\":81920,\"other\":1,\"errors\":0,\"inflight\":2,"
	       "\"latency_us\":{\"p50\":12,\"p90\":20.5,\"p99\":80,\"p999\":150}},"
	       "{\"nqn\":\"nqn.a\",\"nsid\":2}]}",
	       "NQN    NSID  READS  WRITES  READ-BYTES  WRITE-BYTES  OTHER  ERRORS  INFLIGHT  P50-US  P90-US  P99-US  P99.9-US\n"
	       "nqn.a     1     10      20       40960        81920      1       0         2      12    20.5      80       150\n"
	       "nqn.a     2      -       -           -            -      -       -         -       -       -       -         -\n");
	expect("stats poll-groups",
	       "{\"poll_groups\":[{\"index\":0,\"main\":true,\"queues\":3,\"passes\":1000,"
	       "\"busy_passes\":10,\"sleeps\":900,\"messages\":5},{\"index\":1,\"main\":false,"
	       "\"queues\":4,\"passes\":2000,\"busy_passes\":20,\"sleeps\":1800,\"messages\":0}]}",
	       "INDEX  MAIN  QUEUES  PASSES  BUSY-PASSES  SLEEPS  MESSAGES\n"
	       "    0  yes        3    1000           10     900         5\n"
	       "    1  no         4    2000           20    1800         0\n");
}

static void changes_print_one_confirmation_line(void)
{
	expect("version", "{\"program\":\"nvmf-target\",\"version\":\"0.1.0\"}",
	       "nvmf-target 0.1.0\n");
	expect("namespace add nqn.a --ram 64M", "{\"nsids\":[3]}", "namespace 3 added to nqn.a\n");
	expect("namespace remove nqn.a 3", "{\"nsid\":3}", "namespace 3 removed from nqn.a\n");
	expect("namespace enable nqn.a 3", "{\"changed\":true}", "namespace 3 of nqn.a enabled\n");
	expect("namespace disable nqn.a 3", "{\"changed\":false}",
	       "namespace 3 of nqn.a was already disabled\n");
	expect("namespace resize nqn.a 3 1G", "{\"nsid\":3,\"size_bytes\":1073741824}",
	       "namespace 3 of nqn.a resized to 1073741824 bytes (1 GiB)\n");
	expect("controller disconnect nqn.a 7", "{}", "controller 7 of nqn.a disconnected\n");
	expect("host add nqn.a nqn.h", "{}", "host nqn.h added to nqn.a\n");
	expect("host remove nqn.a nqn.h", "{\"disconnected\":0}",
	       "host nqn.h removed from nqn.a\n");
	expect("host remove nqn.a nqn.h", "{\"disconnected\":2}",
	       "host nqn.h removed from nqn.a; 2 controllers disconnected\n");
	/* allow_any_host on: the list did not admit the host, and it stays. */
	expect("host remove nqn.a nqn.h",
	       "{\"disconnected\":0,\"still_admitted\":true,\"connected\":1}",
	       "host nqn.h removed from nqn.a; allow_any_host is on, so it may still connect "
	       "(1 controller of it still connected)\n");
	expect("subsystem allow-any-host nqn.a on", "{\"changed\":true,\"disconnected\":0}",
	       "nqn.a: any host may connect\n");
	expect("subsystem allow-any-host nqn.a off", "{\"changed\":true,\"disconnected\":1}",
	       "nqn.a: only the listed hosts may connect; 1 controller disconnected\n");
	expect("subsystem allow-any-host nqn.a off", "{\"changed\":false,\"disconnected\":0}",
	       "nqn.a: only the listed hosts may connect (unchanged)\n");
}

static void subsystem_and_port_changes_print_one_line(void)
{
	expect("subsystem add nqn.a --host nqn.h", "{\"nqn\":\"nqn.a\"}",
	       "subsystem nqn.a added\n");
	expect("subsystem remove nqn.a", "{\"disconnected\":0}", "subsystem nqn.a removed\n");
	expect("subsystem remove nqn.a", "{\"disconnected\":3}",
	       "subsystem nqn.a removed; 3 controllers disconnected\n");
	expect("port add 1 --traddr 192.168.100.1", "{\"portid\":1}",
	       "port 1 added (rdma 192.168.100.1:4420)\n");
	expect("port add 2 --traddr fe80::1 --trsvcid 4421", "{\"portid\":2}",
	       "port 2 added (rdma [fe80::1]:4421)\n");
	expect("port remove 1", "{\"disconnected\":1}",
	       "port 1 removed; 1 controller disconnected\n");
	expect("port remove 1", "{\"disconnected\":0}", "port 1 removed\n");
	expect("port link 1 nqn.a", "{}", "port 1 exposes nqn.a\n");
	expect("port unlink 1 nqn.a", "{\"disconnected\":2}",
	       "port 1 no longer exposes nqn.a; 2 controllers disconnected\n");
	expect("port unlink 1 nqn.a", "{\"disconnected\":0}", "port 1 no longer exposes nqn.a\n");
}

static void config_and_log_level_print_what_the_target_says(void)
{
	/* config show is JSON with or without --json: the output is a loadable config file. */
	static const char cfg[] =
		"{\"subsystems\":[{\"nqn\":\"nqn.a\",\"attr\":{\"allow_any_host\":"
		"\"1\"},\"allowed_hosts\":[],\"namespaces\":[]}],\"ports\":[]}";
	static const char pretty[] =
		"{\n  \"subsystems\": [\n    {\n      \"nqn\": \"nqn.a\",\n      \"attr\": {\n"
		"        \"allow_any_host\": \"1\"\n      },\n      \"allowed_hosts\": [],\n"
		"      \"namespaces\": []\n    }\n  ],\n  \"ports\": []\n}\n";
	expect("config show", cfg, pretty);
	expect("--json config show", cfg, pretty);
	expect("config save /etc/t.json", "{\"path\":\"/etc/t.json\"}",
	       "running configuration saved to /etc/t.json\n");
	expect("config save", "{\"path\":\"/etc/nvmf-target.json\"}",
	       "running configuration saved to /etc/nvmf-target.json\n");
	expect("config reload", "{\"changes\":[]}", "no changes\n");
	expect("config reload",
	       "{\"changes\":[\"subsystem nqn.b added\",\"port 2 removed (1 controller "
	       "disconnected)\"]}",
	       "subsystem nqn.b added\nport 2 removed (1 controller disconnected)\n");
	expect("--json config reload", "{\"changes\":[]}", "{\n  \"changes\": []\n}\n");
	expect("log-level", "{\"level\":\"info\"}", "info\n");
	expect("log-level debug", "{\"level\":\"debug\",\"previous\":\"info\"}",
	       "log level debug (was info)\n");
	expect("log-level info", "{\"level\":\"info\",\"previous\":\"info\"}",
	       "log level info (unchanged)\n");
	expect("--json log-level warning", "{\"level\":\"warning\",\"previous\":\"info\"}",
	       "{\n  \"level\": \"warning\",\n  \"previous\": \"info\"\n}\n");
}

static void json_and_call_print_the_result_indented(void)
{
	expect("--json namespace add nqn.a --ram 1M", "{\"nsids\":[1]}",
	       "{\n  \"nsids\": [\n    1\n  ]\n}\n");
	expect("call port_list", "{\"ports\":[]}", "{\n  \"ports\": []\n}\n");
	expect("call host_add", "{}", "{}\n");
}

static void namespace_reservation_prints_the_reservation_then_its_registrants(void)
{
	expect("namespace reservation nqn.a 1",
	       "{\"nqn\":\"nqn.a\",\"nsid\":1,\"enabled\":true,\"type\":1,\"type_name\":"
	       "\"write-exclusive\",\"generation\":3,\"holder\":\"a1a1a1a1-a1a1-a1a1-a1a1-a1a1a1a1a1a1\","
	       "\"ptpl\":true,\"state_file\":\"/etc/c.json.resv.json\",\"registrants\":[{\"hostid\":"
	       "\"a1a1a1a1-a1a1-a1a1-a1a1-a1a1a1a1a1a1\",\"key\":\"0x000000000000000a\",\"holder\":true,"
	       "\"hostnqns\":[\"nqn.h:a\"],\"controllers\":[1,3]},{\"hostid\":"
	       "\"b2b2b2b2-b2b2-b2b2-b2b2-b2b2b2b2b2b2\",\"key\":\"0x000000000000000b\",\"holder\":false,"
	       "\"hostnqns\":[],\"controllers\":[]}]}",
	       "namespace 1 of nqn.a: write-exclusive (type 1), generation 3, PTPL on\n"
	       "\n"
	       "HOSTID                                HOLDER  KEY                 HOSTNQNS  CONTROLLERS\n"
	       "a1a1a1a1-a1a1-a1a1-a1a1-a1a1a1a1a1a1  yes     0x000000000000000a  nqn.h:a   1,3\n"
	       "b2b2b2b2-b2b2-b2b2-b2b2-b2b2b2b2b2b2  no      0x000000000000000b  -         -\n");
	expect("namespace reservation nqn.a 2",
	       "{\"nqn\":\"nqn.a\",\"nsid\":2,\"enabled\":true,\"type\":0,\"type_name\":\"none\","
	       "\"generation\":0,\"holder\":null,\"ptpl\":false,\"registrants\":[]}",
	       "namespace 2 of nqn.a: none, generation 0, PTPL off\nno registrants\n");
	expect("namespace reservation nqn.a 3", "{\"nqn\":\"nqn.a\",\"nsid\":3,\"enabled\":false}",
	       "namespace 3 of nqn.a: reservations off (resv.enable 0)\n");
	/* clear: what went, in one line */
	expect("namespace reservation nqn.a 1 clear",
	       "{\"nqn\":\"nqn.a\",\"nsid\":1,\"cleared\":true,\"type\":2,\"type_name\":"
	       "\"exclusive-access\",\"holder\":\"b2b2b2b2-b2b2-b2b2-b2b2-b2b2b2b2b2b2\","
	       "\"registrants\":2,\"generation\":5}",
	       "namespace 1 of nqn.a: cleared exclusive-access held by host "
	       "b2b2b2b2-b2b2-b2b2-b2b2-b2b2b2b2b2b2 and 2 registration(s), generation 5\n");
	expect("namespace reservation nqn.a 1 clear",
	       "{\"nqn\":\"nqn.a\",\"nsid\":1,\"cleared\":true,\"type\":0,\"type_name\":"
	       "\"none\",\"holder\":null,\"registrants\":1,\"generation\":2}",
	       "namespace 1 of nqn.a: cleared 1 registration(s), generation 2\n");
	expect("namespace reservation nqn.a 1 clear",
	       "{\"nqn\":\"nqn.a\",\"nsid\":1,\"cleared\":false,\"type\":0,\"type_name\":"
	       "\"none\",\"holder\":null,\"registrants\":0,\"generation\":2}",
	       "namespace 1 of nqn.a: nothing to clear (no registrant)\n");
}

static void sizes_read_in_binary_units(void)
{
	char b[32];
	CU_ASSERT_STRING_EQUAL(tctl_size_text(0, b, sizeof(b)), "0 B");
	CU_ASSERT_STRING_EQUAL(tctl_size_text(512, b, sizeof(b)), "512 B");
	CU_ASSERT_STRING_EQUAL(tctl_size_text(4096, b, sizeof(b)), "4 KiB");
	CU_ASSERT_STRING_EQUAL(tctl_size_text(3ull << 39, b, sizeof(b)), "1.5 TiB");
	CU_ASSERT_STRING_EQUAL(tctl_size_text(UINT64_MAX, b, sizeof(b)), "16.0 EiB");
}

static void ana_list_is_a_table_of_ports_and_groups(void)
{
	expect("ana list",
	       "{\"change_count\":4,\"ports\":[{\"portid\":1,\"groups\":["
	       "{\"grpid\":1,\"state\":\"optimized\",\"defined\":true,\"change_count\":0,"
	       "\"namespaces\":[{\"nqn\":\"nqn.a\",\"nsid\":1},{\"nqn\":\"nqn.b\",\"nsid\":3}]},"
	       "{\"grpid\":2,\"state\":\"non-optimized\",\"defined\":true,\"change_count\":2,"
	       "\"namespaces\":[]}]},"
	       "{\"portid\":2,\"groups\":[{\"grpid\":2,\"state\":\"inaccessible\",\"defined\":false,"
	       "\"change_count\":2,\"namespaces\":[{\"nqn\":\"nqn.a\",\"nsid\":2}]}]}]}",
	       "PORTID  GRPID  STATE          DEFINED  NAMESPACES\n"
	       "     1      1  optimized      yes      nqn.a/1,nqn.b/3\n"
	       "     1      2  non-optimized  yes      -\n"
	       "     2      2  inaccessible   no       nqn.a/2\n");
	expect("ana list", "{\"change_count\":0,\"ports\":[]}",
	       "PORTID  GRPID  STATE  DEFINED  NAMESPACES\n");
}

static void gateway_status_is_a_line_and_a_table_of_groups(void)
{
	expect("gateway status",
	       "{\"name\":\"gw-a\",\"group\":\"g1\",\"pool\":\"rbd\",\"lease_seconds\":10,"
	       "\"interval_ms\":3333,\"reachable\":true,\"alive_held\":true,\"last_error\":\"\","
	       "\"groups\":[{\"grpid\":2,\"preferred\":\"gw-a\",\"preferred_is_us\":true,"
	       "\"preferred_alive\":true,\"holder\":\"gw-a\",\"held\":true,\"state\":\"optimized\","
	       "\"claim_ms\":7000,\"reason\":\"lock taken\"},"
	       "{\"grpid\":3,\"preferred\":\"gw-b\",\"preferred_is_us\":false,"
	       "\"preferred_alive\":false,\"holder\":\"\",\"held\":false,"
	       "\"state\":\"non-optimized\",\"claim_ms\":0,\"reason\":\"lock held by another gateway\"}]}",
	       "gateway gw-a of group g1: pool rbd, lease 10 s, cluster reachable\n"
	       "GRPID  STATE          HELD  HOLDER  PREFERRED         REASON\n"
	       "    2  optimized      yes   gw-a    gw-a              lock taken\n"
	       "    3  non-optimized  no    -       gw-b (not alive)  lock held by another gateway\n");
	expect("gateway status",
	       "{\"name\":\"gw-a\",\"group\":\"g1\",\"pool\":\"rbd\",\"lease_seconds\":10,"
	       "\"reachable\":false,\"last_error\":\"cannot reach the Ceph cluster\",\"groups\":[]}",
	       "gateway gw-a of group g1: pool rbd, lease 10 s, cluster unreachable: cannot reach "
	       "the Ceph cluster\n"
	       "GRPID  STATE  HELD  HOLDER  PREFERRED  REASON\n");
	/* Reachable, its alive lock another locker's: said under the first line. */
	expect("gateway status",
	       "{\"name\":\"gw-a\",\"group\":\"g1\",\"pool\":\"rbd\",\"lease_seconds\":10,"
	       "\"reachable\":true,\"alive_held\":false,\"last_error\":\"\",\"groups\":[]}",
	       "gateway gw-a of group g1: pool rbd, lease 10 s, cluster reachable\n"
	       "its alive lock is held by another locker: a former gw-a until its lease ends, or "
	       "another gateway with this name\n"
	       "GRPID  STATE  HELD  HOLDER  PREFERRED  REASON\n");
}

static void ana_changes_print_one_line(void)
{
	expect("ana set 1 2 inaccessible",
	       "{\"portid\":1,\"grpid\":2,\"state\":\"inaccessible\","
	       "\"previous\":\"optimized\",\"changed\":true}",
	       "port 1: ANA group 2 inaccessible (was optimized)\n");
	expect("ana set 1 2 inaccessible",
	       "{\"portid\":1,\"grpid\":2,\"state\":\"inaccessible\","
	       "\"previous\":\"inaccessible\",\"changed\":false}",
	       "port 1: ANA group 2 inaccessible (unchanged)\n");
	expect("namespace ana-group nqn.a 3 2",
	       "{\"nsid\":3,\"grpid\":2,\"previous\":1,\"changed\":true}",
	       "namespace 3 of nqn.a moved to ANA group 2 (was 1)\n");
	expect("namespace ana-group nqn.a 3 2",
	       "{\"nsid\":3,\"grpid\":2,\"previous\":2,\"changed\":false}",
	       "namespace 3 of nqn.a was already in ANA group 2\n");
}

const struct unit_test targetctl_format_tests[] = {
	{ "subsystem_list_is_a_table_with_a_header", subsystem_list_is_a_table_with_a_header },
	{ "subsystem_list_of_one_nqn_adds_hosts_and_namespaces",
	  subsystem_list_of_one_nqn_adds_hosts_and_namespaces },
	{ "namespace_whose_file_was_deleted_says_so", namespace_whose_file_was_deleted_says_so },
	{ "port_and_controller_lists_are_tables", port_and_controller_lists_are_tables },
	{ "stats_are_tables_and_missing_fields_print_a_dash",
	  stats_are_tables_and_missing_fields_print_a_dash },
	{ "changes_print_one_confirmation_line", changes_print_one_confirmation_line },
	{ "subsystem_and_port_changes_print_one_line", subsystem_and_port_changes_print_one_line },
	{ "config_and_log_level_print_what_the_target_says",
	  config_and_log_level_print_what_the_target_says },
	{ "json_and_call_print_the_result_indented", json_and_call_print_the_result_indented },
	{ "sizes_read_in_binary_units", sizes_read_in_binary_units },
	{ "ana_list_is_a_table_of_ports_and_groups", ana_list_is_a_table_of_ports_and_groups },
	{ "gateway_status_is_a_line_and_a_table_of_groups",
	  gateway_status_is_a_line_and_a_table_of_groups },
	{ "ana_changes_print_one_line", ana_changes_print_one_line },
	{ "namespace_reservation_prints_the_reservation_then_its_registrants",
	  namespace_reservation_prints_the_reservation_then_its_registrants },
	{ NULL, NULL },
};
