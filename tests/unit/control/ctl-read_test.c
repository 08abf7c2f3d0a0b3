/* The reading control methods (control/ctl-read.c) against a whole target on the loop
 * transport: subsystem, controller and port lists, namespace and poll group statistics,
 * version and log levels, answers compared field by field. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control/control.h"
#include "target/log.h"
#include "target/namespace.h"
#include "tests/unit/suites.h"
#include "util/size.h"
#include "tests/unit/control/ctl_fixture.h"
#include "tests/unit/control/methods_fixture.h"
#include "tests/unit/target/passthru_fixture.h"

static void subsystem_list_shows_namespaces_hosts_and_ports(void)
{
	ctlm_setup();
	json_t *resp = ctlm_call("subsystem_list", NULL);
	json_t *subs = json_object_get(ctlm_result(resp), "subsystems");
	CU_ASSERT_EQUAL_FATAL(json_array_size(subs), 1);
	json_t *s = json_array_get(subs, 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "nqn")), FX_SUBNQN);
	CU_ASSERT_TRUE(json_is_false(json_object_get(s, "allow_any_host")));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(s, "hosts"), 0)),
			       FX_HOSTNQN);
	json_t *ns = json_object_get(s, "namespaces");
	CU_ASSERT_EQUAL_FATAL(json_array_size(ns), 2);
	CU_ASSERT_EQUAL(ctlm_get_int(json_array_get(ns, 1), "nsid"), 2);
	CU_ASSERT_EQUAL(ctlm_get_int(json_array_get(ns, 1), "block_size"), 4096);
	CU_ASSERT_EQUAL(ctlm_get_int(json_array_get(ns, 1), "size_bytes"), 1 << 20);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(ns, 0), "backend")),
			       "ram");
	CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(s, "ports"), 0)), 1);
	json_decref(resp);
	ctlm_expect_error("subsystem_list", "{\"nqn\":\"nqn.x:none\"}", NVMF_RPC_NOT_FOUND,
			  "parameter 'nqn': no subsystem nqn.x:none");
	ctlm_expect_error(
		"subsystem_list", "{\"nqn\":\"nqn.2014-08.org.nvmexpress.discovery\"}",
		NVMF_RPC_NOT_FOUND,
		"parameter 'nqn': no subsystem nqn.2014-08.org.nvmexpress.discovery (that is the "
		"discovery subsystem)");
	ctlm_teardown();
}

static void controller_list_shows_the_host_its_queues_and_kato(void)
{
	ctlm_setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&ctlm_fx), 0);
	struct fxq q;
	fx_queue_init(&ctlm_fx, &q);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&q, 1, 63, FX_SUBNQN, FX_HOSTNQN, ctlm_fx.cntlid, 0, NULL, NULL), 0);
	json_t *resp = ctlm_call("controller_list", "{\"nqn\":" NQN "}");
	json_t *list = json_object_get(ctlm_result(resp), "controllers");
	CU_ASSERT_EQUAL_FATAL(json_array_size(list), 1);
	json_t *c = json_array_get(list, 0);
	CU_ASSERT_EQUAL(ctlm_get_int(c, "cntlid"), ctlm_fx.cntlid);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "hostnqn")), FX_HOSTNQN);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "hostid")),
			       "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf");
	CU_ASSERT_EQUAL(ctlm_get_int(c, "kato_ms"), 5000);
	CU_ASSERT_EQUAL(ctlm_get_int(c, "io_queues"), 1);
	CU_ASSERT_EQUAL(ctlm_get_int(c, "portid"), 1);
	json_t *qs = json_object_get(c, "queues");
	CU_ASSERT_EQUAL_FATAL(json_array_size(qs), 2);
	CU_ASSERT_EQUAL(ctlm_get_int(json_array_get(qs, 0), "size"),
			32); /* admin: the host's 31 + 1 */
	CU_ASSERT_EQUAL(ctlm_get_int(json_array_get(qs, 1), "qid"), 1);
	CU_ASSERT_EQUAL(ctlm_get_int(json_array_get(qs, 1), "size"), 64);
	json_decref(resp);
	fx_disconnect(&q);
	ctlm_teardown();
}

static void namespace_stats_count_exactly_the_commands_issued(void)
{
	ctlm_setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&ctlm_fx), 0);
	struct fxq q;
	fx_queue_init(&ctlm_fx, &q);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&q, 1, 31, FX_SUBNQN, FX_HOSTNQN, ctlm_fx.cntlid, 0, NULL, NULL), 0);
	uint8_t b[4096];
	memset(b, 0x11, sizeof(b));
	for (unsigned i = 0; i < 100; i++) {
		struct nvme_sqe w;
		memset(&w, 0, sizeof(w));
		w.opcode = nvme_cmd_write;
		w.nsid = htole32(2);
		w.cdw10 = htole32(i);
		CU_ASSERT_EQUAL(fx_cmd(&q, &w, b, sizeof(b), NULL), 0);
	}
	json_t *resp = ctlm_call("namespace_stats", "{\"nqn\":" NQN ",\"nsid\":2}");
	json_t *list = json_object_get(ctlm_result(resp), "namespaces");
	CU_ASSERT_EQUAL_FATAL(json_array_size(list), 1);
	json_t *s = json_array_get(list, 0);
	CU_ASSERT_EQUAL(ctlm_get_int(s, "writes"), 100);
	CU_ASSERT_EQUAL(ctlm_get_int(s, "write_bytes"), 409600);
	CU_ASSERT_EQUAL(ctlm_get_int(s, "reads"), 0);
	CU_ASSERT_EQUAL(ctlm_get_int(s, "errors"), 0);
	CU_ASSERT_EQUAL(ctlm_get_int(s, "inflight"), 0);
	json_decref(resp);
	ctlm_expect_error("namespace_stats", "{\"nsid\":2}", NVMF_RPC_INVALID_PARAMS,
			  "missing parameter 'nqn' (a string)");
	ctlm_expect_error("namespace_stats", "{\"nqn\":" NQN ",\"nsid\":9}", NVMF_RPC_NOT_FOUND,
			  "parameter 'nsid': subsystem " FX_SUBNQN " has no enabled namespace 9");
	fx_disconnect(&q);
	ctlm_teardown();
}

/* log_level_set with a component changes that one; log_level_get then says "mixed" and
 * lists each; an unknown component is refused by name and changes nothing. */
static void log_level_of_one_component_is_set_and_read_alone(void)
{
	ctlm_setup();
	json_t *resp = ctlm_call("log_level_set", "{\"level\":\"debug\",\"component\":\"tcp\"}");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "component")),
			       "tcp");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "level")),
			       "debug");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "previous")),
			       "info");
	json_decref(resp);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&ctlm_fx.tgt, NVMF_LOGC_TCP), NVMF_LOG_DEBUG);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&ctlm_fx.tgt, NVMF_LOGC_RDMA), NVMF_LOG_INFO);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&ctlm_fx.tgt, NVMF_LOGC_CORE), NVMF_LOG_INFO);
	resp = ctlm_call("log_level_get", NULL);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "level")),
			       "mixed");
	json_t *each = json_object_get(ctlm_result(resp), "components");
	CU_ASSERT_EQUAL(json_object_size(each), NVMF_LOGC_COUNT);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(each, "tcp")), "debug");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(each, "backend")), "info");
	json_decref(resp);
	resp = ctlm_call("log_level_get", "{\"component\":\"tcp\"}");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "level")),
			       "debug");
	json_decref(resp);
	ctlm_expect_error(
		"log_level_set", "{\"level\":\"error\",\"component\":\"disk\"}",
		NVMF_RPC_INVALID_PARAMS,
		"parameter 'component': \"disk\" is not a log component (core, rdma, tcp, auth, control, backend or gateway)");
	CU_ASSERT_EQUAL(nvmf_log_level_get(&ctlm_fx.tgt, NVMF_LOGC_CORE), NVMF_LOG_INFO);
	/* Without a component every one takes the level; "previous" was mixed. */
	resp = ctlm_call("log_level_set", "{\"level\":\"warning\"}");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "previous")),
			       "mixed");
	json_decref(resp);
	for (unsigned i = 0; i < NVMF_LOGC_COUNT; i++)
		CU_ASSERT_EQUAL(nvmf_log_level_get(&ctlm_fx.tgt, (enum nvmf_log_component)i),
				NVMF_LOG_WARNING);
	ctlm_teardown();
}

static void version_log_level_and_poll_group_stats_answer(void)
{
	ctlm_setup();
	json_t *resp = ctlm_call("version", NULL);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "version")),
			       "0.1.0");
	json_decref(resp);
	ctlm_expect_error("version", "{\"x\":1}", NVMF_RPC_INVALID_PARAMS,
			  "unknown parameter 'x' (version takes: no parameters)");
	resp = ctlm_call("log_level_set", "{\"level\":\"debug\"}");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "previous")),
			       "info");
	json_decref(resp);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&ctlm_fx.tgt, NVMF_LOGC_CORE), NVMF_LOG_DEBUG);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&ctlm_fx.tgt, NVMF_LOGC_BACKEND), NVMF_LOG_DEBUG);
	resp = ctlm_call("log_level_get", NULL);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ctlm_result(resp), "level")),
			       "debug");
	json_decref(resp);
	ctlm_expect_error(
		"log_level_set", "{\"level\":\"loud\"}", NVMF_RPC_INVALID_PARAMS,
		"parameter 'level': \"loud\" is not a log level (error, warning, info or debug)");
	CU_ASSERT_EQUAL(nvmf_log_level_get(&ctlm_fx.tgt, NVMF_LOGC_TCP), NVMF_LOG_DEBUG);
	/* The fixture's target ran passes to boot; each found work or not. */
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&ctlm_fx), 0);
	resp = ctlm_call("poll_group_stats", NULL);
	json_t *groups = json_object_get(ctlm_result(resp), "poll_groups");
	CU_ASSERT_EQUAL_FATAL(json_array_size(groups), 1);
	json_t *g = json_array_get(groups, 0);
	CU_ASSERT_TRUE(json_is_true(json_object_get(g, "main")));
	CU_ASSERT_EQUAL(ctlm_get_int(g, "queues"), 1);
	CU_ASSERT_TRUE(ctlm_get_int(g, "busy_passes") > 0);
	CU_ASSERT_TRUE(ctlm_get_int(g, "passes") >= ctlm_get_int(g, "busy_passes"));
	CU_ASSERT_TRUE(ctlm_get_int(g, "work") >= ctlm_get_int(g, "busy_passes"));
	CU_ASSERT_EQUAL(ctlm_get_int(g, "sleeps"), 0); /* driven: it never sleeps */
	CU_ASSERT_EQUAL(ctlm_get_int(g, "sleep_us"), 0);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(g, "transports")), 0); /* loop: none */
	json_decref(resp);
	ctlm_teardown();
}

/* A passthru subsystem lists the drive's namespaces it serves, and its drive. */
static void subsystem_list_shows_a_drive_and_its_namespaces(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct nvmf_ctl ctl = { .tgt = &f->fx.tgt };
	json_t *resp = ctl_call(&ctl, "subsystem_list", NULL);
	json_t *s = json_array_get(json_object_get(ctl_result(resp), "subsystems"), 0);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(json_object_get(s, "passthru"), "device")),
		"/dev/fake0");
	json_t *ns = json_object_get(s, "namespaces");
	CU_ASSERT_EQUAL_FATAL(json_array_size(ns), 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(ns, 1), "backend")),
			       "passthru");
	CU_ASSERT_EQUAL(ctlm_get_int(json_array_get(ns, 1), "block_size"), 4096);
	CU_ASSERT_EQUAL(ctlm_get_int(json_array_get(ns, 0), "size_bytes"), 1 << 20);
	json_decref(resp);
	pt_teardown(f);
}

const struct unit_test ctl_read_tests[] = {
	{ "subsystem_list_shows_a_drive_and_its_namespaces",
	  subsystem_list_shows_a_drive_and_its_namespaces },
	{ "subsystem_list_shows_namespaces_hosts_and_ports",
	  subsystem_list_shows_namespaces_hosts_and_ports },
	{ "controller_list_shows_the_host_its_queues_and_kato",
	  controller_list_shows_the_host_its_queues_and_kato },
	{ "namespace_stats_count_exactly_the_commands_issued",
	  namespace_stats_count_exactly_the_commands_issued },
	{ "log_level_of_one_component_is_set_and_read_alone",
	  log_level_of_one_component_is_set_and_read_alone },
	{ "version_log_level_and_poll_group_stats_answer",
	  version_log_level_and_poll_group_stats_answer },
	{ NULL, NULL },
};
