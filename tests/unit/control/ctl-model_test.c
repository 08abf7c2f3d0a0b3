/*
 * Subsystems and ports changed live (control/ctl-model.c; target/model.c
 * directly: tests/unit/target/model_test.c) and the running
 * configuration (config_get, config_save), against a target on the loop transport: what
 * a host can connect to and discover before and after each change.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "initiator/internal.h"
#include "control/control.h"
#include "target/model.h"
#include "target/namespace.h"
#include "tests/unit/suites.h"
#include "tests/unit/control/ctl_fixture.h"
#include "tests/unit/target/fixture.h"
#include "tests/unit/target/passthru_fixture.h"

#define NEW_NQN "nqn.2026-12.io.nvmf-rdma:new"
#define INVALID_SUBNQN \
	((int)(nvme_status(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_PARAM) | NVME_SC_DNR))

static struct fx F;
static struct nvmf_ctl Ctl;

static void setup(void)
{
	ctl_setup(&F, &Ctl);
}

static json_t *call(const char *method, const char *params)
{
	return ctl_call(&Ctl, method, params);
}

static void expect_ok(const char *method, const char *params)
{
	ctl_ok(&Ctl, method, params);
}

static void expect_error(const char *method, const char *params, int code, const char *message)
{
	ctl_expect_error(&Ctl, method, params, code, message);
}

/* Admin Connect to @nqn as FX_HOSTNQN on a fresh queue: its status. */
static int try_connect(struct fxq *q, const char *nqn)
{
	fx_queue_init(&F, q);
	return fx_connect(q, 0, 31, nqn, FX_HOSTNQN, 0xffff, 0, NULL, NULL);
}

static const char new_subsys[] =
	"{\"subsystem\":{\"nqn\":\"" NEW_NQN "\",\"attr\":{\"allow_any_host\":\"1\"},"
	"\"namespaces\":[{\"nsid\":1,\"nvmf_backend\":\"ram\",\"nvmf_size_bytes\":\"1M\"}]}}";

static void added_subsystem_is_served_once_linked_to_a_port(void)
{
	setup();
	uint64_t genctr = F.tgt.disc_genctr;
	expect_ok("subsystem_add", new_subsys);
	struct nvmf_subsys *s = nvmf_tgt_find_subsys(&F.tgt, NEW_NQN);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(s, 1));
	struct fxq q1, q2;
	CU_ASSERT_EQUAL(try_connect(&q1, NEW_NQN), INVALID_SUBNQN); /* on no port yet */
	fx_disconnect(&q1);
	expect_ok("port_link", "{\"portid\":1,\"nqn\":\"" NEW_NQN "\"}");
	CU_ASSERT_TRUE(F.tgt.disc_genctr > genctr);
	CU_ASSERT_EQUAL(F.tgt.ports[0]->cfg->n_subsystems, 2);
	CU_ASSERT_EQUAL(try_connect(&q2, NEW_NQN), 0);
	CU_ASSERT_TRUE(fx_enable(&q2) == 0);
	expect_error("port_link", "{\"portid\":1,\"nqn\":\"" NEW_NQN "\"}", NVMF_RPC_EXISTS,
		     "parameter 'nqn': port 1 already exposes " NEW_NQN);
	/* Unlinked: its controller on that port goes, and connecting is refused again. */
	json_t *resp = call("port_unlink", "{\"portid\":1,\"nqn\":\"" NEW_NQN "\"}");
	CU_ASSERT_EQUAL(json_integer_value(
				json_object_get(json_object_get(resp, "result"), "disconnected")),
			1);
	json_decref(resp);
	nvmf_loop_drive(&F.tgt);
	struct fxq q3;
	CU_ASSERT_EQUAL(try_connect(&q3, NEW_NQN), INVALID_SUBNQN);
	expect_error("port_unlink", "{\"portid\":1,\"nqn\":\"" NEW_NQN "\"}", NVMF_RPC_NOT_FOUND,
		     "parameter 'nqn': port 1 does not expose " NEW_NQN);
	/* Removed: gone from the model, its namespace closed once idle. */
	expect_ok("subsystem_remove", "{\"nqn\":\"" NEW_NQN "\"}");
	CU_ASSERT_PTR_NULL(nvmf_tgt_find_subsys(&F.tgt, NEW_NQN));
	for (int i = 0; i < 3; i++) {
		F.now += 5;
		nvmf_loop_drive(&F.tgt);
	}
	CU_ASSERT_EQUAL(nvmf_tgt_ns_draining(&F.tgt), 0);
	CU_ASSERT_EQUAL(F.tgt.n_retired_subsys, 0); /* freed: nothing pointed at it */
	expect_error("subsystem_remove", "{\"nqn\":\"" NEW_NQN "\"}", NVMF_RPC_NOT_FOUND,
		     "parameter 'nqn': no subsystem " NEW_NQN);
	fx_teardown(&F);
}

static void removed_subsystem_drops_its_controllers(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&F), 0);
	json_t *resp = call("subsystem_remove", "{\"nqn\":\"" FX_SUBNQN "\"}");
	CU_ASSERT_EQUAL(json_integer_value(
				json_object_get(json_object_get(resp, "result"), "disconnected")),
			1);
	json_decref(resp);
	CU_ASSERT_EQUAL(F.tgt.n_retired_subsys, 1); /* its controller still points at it */
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&F));
	CU_ASSERT_EQUAL(F.tgt.n_retired_subsys, 0); /* freed with its last controller */
	CU_ASSERT_EQUAL(F.tgt.ports[0]->n_subsys, 0);
	CU_ASSERT_EQUAL(F.tgt.ports[0]->cfg->n_subsystems, 0);
	fx_teardown(&F);
}

static void subsystem_and_port_errors_change_nothing(void)
{
	setup();
	expect_error("subsystem_add", "{\"subsystem\":{\"nqn\":\"" FX_SUBNQN "\"}}",
		     NVMF_RPC_EXISTS, "subsystem: subsystem " FX_SUBNQN " exists");
	expect_error("subsystem_add",
		     "{\"subsystem\":{\"nqn\":\"nqn.2014-08.org.nvmexpress.discovery\"}}",
		     NVMF_RPC_INVALID_PARAMS,
		     "subsystem.nqn: \"nqn.2014-08.org.nvmexpress.discovery\" is the "
		     "discovery subsystem's NQN");
	expect_error("subsystem_add",
		     "{\"subsystem\":{\"nqn\":\"" NEW_NQN "\",\"namespaces\":[{\"nsid\":1,"
		     "\"device\":{\"path\":\"/nonexistent/x.img\"}}]}}",
		     NVMF_RPC_REFUSED,
		     "subsystem: namespaces[0] (subsystem " NEW_NQN
		     ", namespace 1): /nonexistent/x.img: "
		     "No such file or directory");
	expect_error(
		"subsystem_add", "{}", NVMF_RPC_INVALID_PARAMS,
		"missing parameter 'subsystem' (an object as in the config file's \"subsystems\")");
	CU_ASSERT_PTR_NULL(nvmf_tgt_find_subsys(&F.tgt, NEW_NQN));
	CU_ASSERT_EQUAL(F.tgt.n_subsys, 1);
	static const char rdma_port[] =
		"{\"port\":{\"portid\":%d,\"addr\":{\"trtype\":\"rdma\",\"adrfam\":\"ipv4\","
		"\"traddr\":\"%s\",\"trsvcid\":\"4430\"},\"subsystems\":[\"%s\"]}}";
	char p[512];
	snprintf(p, sizeof(p), rdma_port, 1, "10.1.1.1", FX_SUBNQN);
	expect_error("port_add", p, NVMF_RPC_EXISTS, "port: port 1 exists");
	snprintf(p, sizeof(p), rdma_port, 2, "10.1.1.1", FX_SUBNQN);
	expect_error(
		"port_add", p, NVMF_RPC_REFUSED,
		"port: the rdma transport is not running here (its start-up message says why)");
	/* An address a running port of the same transport holds is refused naming that
	 * port: added_port_listens_and_removed_port_stops below (the core) and
	 * tests/local/tcp_test.sh (over the control socket, tcp next to tcp). Here the
	 * running port is a loop port, which the RPC cannot add. */
	/* Another transport, family or service is no overlap: it gets as far as the
	 * transport (rdma_cm's port space is not TCP's). */
	expect_error("port_add",
		     "{\"port\":{\"portid\":2,\"addr\":{\"trtype\":\"tcp\",\"traddr\":"
		     "\"0.0.0.0\",\"trsvcid\":\"4420\"}}}",
		     NVMF_RPC_REFUSED,
		     "port: the tcp transport is not running here (its start-up message says why)");
	expect_error("port_add",
		     "{\"port\":{\"portid\":2,\"addr\":{\"trtype\":\"tcp\",\"traddr\":"
		     "\"::\",\"trsvcid\":\"4420\"}}}",
		     NVMF_RPC_REFUSED,
		     "port: the tcp transport is not running here (its start-up message says why)");
	snprintf(p, sizeof(p), rdma_port, 2, "10.1.1.x", FX_SUBNQN);
	expect_error("port_add", p, NVMF_RPC_INVALID_PARAMS,
		     "port.addr.traddr: \"10.1.1.x\" is not an IPv4 address");
	/* The same checks as the config file: no unknown security type, no typo in our keys. */
	expect_error(
		"port_add",
		"{\"port\":{\"portid\":2,\"addr\":{\"trtype\":\"tcp\",\"traddr\":"
		"\"10.1.1.1\",\"tsas\":\"tls1.2\"}}}",
		NVMF_RPC_INVALID_PARAMS,
		"port.addr.tsas: \"tls1.2\" is not a security type this target takes on tcp ports "
		"(\"none\" or \"tls1.3\")");
	expect_error(
		"port_add",
		"{\"port\":{\"portid\":2,\"addr\":{\"trtype\":\"tcp\",\"traddr\":"
		"\"10.1.1.1\"},\"param\":{\"nvmf_maxh2cdta\":\"4096\"}}}",
		NVMF_RPC_INVALID_PARAMS,
		"port.param.nvmf_maxh2cdta: unknown key; did you mean 'nvmf_maxh2cdata'? (known here: "
		"inline_data_size, max_queue_size, mdts, pi_enable, nvmf_maxh2cdata, "
		"nvmf_zerocopy_threshold)");
	expect_error("port_remove", "{\"portid\":9}", NVMF_RPC_NOT_FOUND,
		     "parameter 'portid': no port 9");
	expect_error("port_link", "{\"portid\":1,\"nqn\":\"nqn.x:none\"}", NVMF_RPC_NOT_FOUND,
		     "parameter 'nqn': no subsystem nqn.x:none");
	CU_ASSERT_EQUAL(F.tgt.n_ports, 1);
	fx_teardown(&F);
}

static void saved_running_configuration_loads_back_with_the_changes(void)
{
	setup();
	expect_ok("namespace_add",
		  "{\"nqn\":\"" FX_SUBNQN "\",\"namespace\":{\"nsid\":9,\"nvmf_backend\":\"null\","
		  "\"nvmf_size_bytes\":4096}}");
	expect_ok("host_add", "{\"nqn\":\"" FX_SUBNQN "\",\"host\":\"nqn.h:second\"}");
	expect_ok("subsystem_add", new_subsys);
	json_t *resp = call("config_get", "{}");
	json_t *subs = json_object_get(json_object_get(resp, "result"), "subsystems");
	CU_ASSERT_EQUAL(json_array_size(subs), 2);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(json_array_get(subs, 0), "namespaces")), 3);
	json_decref(resp);
	/* The loader takes rdma ports only: save without the loop port. */
	unsigned dropped;
	char err[256], dir[] = "/tmp/nvmf-cfg-XXXXXX", path[64], params[128];
	CU_ASSERT_EQUAL_FATAL(
		nvmf_tgt_port_remove(&F.tgt, F.tgt.ports[0], &dropped, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/saved.json", dir);
	snprintf(params, sizeof(params), "{\"path\":\"%s\"}", path);
	expect_ok("config_save", params);
	struct nvmf_config back;
	CU_ASSERT_EQUAL_FATAL(nvmf_config_load(path, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(back.n_subsystems, 2);
	CU_ASSERT_EQUAL(back.subsystems[0].n_ns, 3);
	CU_ASSERT_EQUAL(back.subsystems[0].ns[2].nsid, 9);
	CU_ASSERT_EQUAL(back.subsystems[0].n_allowed_hosts, 2);
	CU_ASSERT_STRING_EQUAL(back.subsystems[0].allowed_hosts[1], "nqn.h:second");
	CU_ASSERT_STRING_EQUAL(back.subsystems[1].nqn, NEW_NQN);
	nvmf_config_free(&back);
	expect_error("config_save", "{\"path\":\"relative.json\"}", NVMF_RPC_INVALID_PARAMS,
		     "parameter 'path': \"relative.json\" is not an absolute path");
	expect_error("config_save", "{}", NVMF_RPC_INVALID_PARAMS,
		     "missing parameter 'path' (the target was not started from a file)");
	unlink(path);
	rmdir(dir);
	fx_teardown(&F);
}

/* A file namespace added with nvmf_create: the saved configuration names the file
 * without asking to create it again. Its file deleted while served: namespace list and
 * statistics say so, and config_save writes the file with a warning naming it. */
static void deleted_backing_file_is_listed_and_saved_with_a_warning(void)
{
	setup();
	char dir[] = "/tmp/nvmf-cfgdel-XXXXXX", img[96], path[96], req[512];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/ns.img", dir);
	snprintf(path, sizeof(path), "%s/saved.json", dir);
	snprintf(req, sizeof(req),
		 "{\"nqn\":\"" FX_SUBNQN "\",\"namespace\":{\"nsid\":5,\"device\":{\"path\":"
		 "\"%s\"},\"nvmf_create\":true,\"nvmf_size_bytes\":\"1M\",\"nvmf_buffered\":true}}",
		 img);
	expect_ok("namespace_add", req);
	json_t *resp = call("config_get", "{}");
	json_t *ns = json_array_get(
		json_object_get(json_array_get(json_object_get(ctl_result(resp), "subsystems"), 0),
				"namespaces"),
		2);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(ns, "nsid")), 5);
	CU_ASSERT_PTR_NULL(json_object_get(ns, "nvmf_create"));
	json_decref(resp);

	unlink(img);
	resp = call("subsystem_list", "{}");
	ns = json_array_get(
		json_object_get(json_array_get(json_object_get(ctl_result(resp), "subsystems"), 0),
				"namespaces"),
		2);
	CU_ASSERT_TRUE(json_is_true(json_object_get(ns, "backing_file_unlinked")));
	json_decref(resp);
	resp = call("namespace_stats", "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":5}");
	ns = json_array_get(json_object_get(ctl_result(resp), "namespaces"), 0);
	CU_ASSERT_TRUE(json_is_true(json_object_get(ns, "backing_file_unlinked")));
	json_decref(resp);
	snprintf(req, sizeof(req), "{\"path\":\"%s\"}", path);
	resp = call("config_save", req);
	json_t *w = json_object_get(ctl_result(resp), "warnings");
	CU_ASSERT_EQUAL_FATAL(json_array_size(w), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_array_get(w, 0)),
				      "subsystem " FX_SUBNQN ", namespace 5: its backing file "));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(json_string_value(json_array_get(w, 0)), "was deleted while served"));
	json_decref(resp);
	CU_ASSERT_EQUAL(access(path, F_OK), 0);
	/* Its data goes with it: only by force (ctl-change_test.c). */
	expect_ok("namespace_remove", "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":5,\"force\":true}");
	unlink(path);
	rmdir(dir);
	fx_teardown(&F);
}

/* config_get shows that a host has DH-HMAC-CHAP secrets, never the secrets; config_save
 * writes them (the file is the place for them, 0600). */
static void config_get_hides_secrets_that_config_save_keeps(void)
{
	static const char key[] = "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:";
	setup();
	struct nvmf_config *cfg = F.tgt.cfg;
	/* The fixture's allowed host has its hosts[] entry, as a loaded file's would. */
	CU_ASSERT_EQUAL_FATAL(cfg->n_hosts, 1);
	CU_ASSERT_STRING_EQUAL(cfg->hosts[0], FX_HOSTNQN);
	CU_ASSERT_PTR_NULL_FATAL(cfg->dhchap);
	cfg->dhchap = calloc(1, sizeof(*cfg->dhchap));
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg->dhchap);
	cfg->dhchap[0].hostnqn = strdup(FX_HOSTNQN);
	cfg->dhchap[0].key = strdup(key);
	cfg->n_dhchap = 1;
	json_t *resp = call("config_get", "{}");
	json_t *d = json_object_get(
		json_array_get(json_object_get(json_object_get(resp, "result"), "hosts"), 0),
		"dhchap");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(d, "key")), "(secret)");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(d, "ctrl_key")), "");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(d, "dhgroup")), "null");
	char *text = json_dumps(resp, 0);
	CU_ASSERT_PTR_NULL(strstr(text, "DHHC-1"));
	free(text);
	json_decref(resp);
	unsigned dropped;
	char err[256], dir[] = "/tmp/nvmf-cfg-XXXXXX", path[64], params[128];
	CU_ASSERT_EQUAL_FATAL(
		nvmf_tgt_port_remove(&F.tgt, F.tgt.ports[0], &dropped, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/saved.json", dir);
	snprintf(params, sizeof(params), "{\"path\":\"%s\"}", path);
	expect_ok("config_save", params);
	struct nvmf_config back;
	CU_ASSERT_EQUAL_FATAL(nvmf_config_load(path, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(back.n_dhchap, 1);
	CU_ASSERT_STRING_EQUAL(back.dhchap[0].key, key);
	nvmf_config_free(&back);
	unlink(path);
	rmdir(dir);
	fx_teardown(&F);
}

/* config show (config_get) of a passthru subsystem: its passthru group as the file
 * would hold it, so that a config written from it starts the same target. */
static void running_config_shows_the_passthru_group(void)
{
	struct pt_fx *f = pt_setup("/dev/fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct nvmf_ctl ctl = { .tgt = &f->fx.tgt };
	json_t *resp = ctl_call(&ctl, "config_get", NULL);
	json_t *s = json_array_get(json_object_get(ctl_result(resp), "subsystems"), 0);
	json_t *pt = json_array_get(json_object_get(s, "passthru"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pt);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(pt, "enable")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(pt, "clear_ids")), 1);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(json_object_get(pt, "device"), "path")),
		"/dev/fake0");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(s, "namespaces")), 0);
	json_decref(resp);
	pt_teardown(f);
}

const struct unit_test control_model_tests[] = {
	{ "running_config_shows_the_passthru_group", running_config_shows_the_passthru_group },
	{ "added_subsystem_is_served_once_linked_to_a_port",
	  added_subsystem_is_served_once_linked_to_a_port },
	{ "removed_subsystem_drops_its_controllers", removed_subsystem_drops_its_controllers },
	{ "subsystem_and_port_errors_change_nothing", subsystem_and_port_errors_change_nothing },
	{ "saved_running_configuration_loads_back_with_the_changes",
	  saved_running_configuration_loads_back_with_the_changes },
	{ "config_get_hides_secrets_that_config_save_keeps",
	  config_get_hides_secrets_that_config_save_keeps },
	{ "deleted_backing_file_is_listed_and_saved_with_a_warning",
	  deleted_backing_file_is_listed_and_saved_with_a_warning },
	{ NULL, NULL },
};
