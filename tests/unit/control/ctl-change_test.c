/* The changing control methods (control/ctl-change.c) against a whole target on the loop
 * transport: namespaces added, removed and refused, hosts removed, DH-HMAC-CHAP keys set
 * and cleared, allow_any_host, controller_disconnect, and what hosts see afterwards. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "nvme/auth.h"
#include "control/control.h"
#include "target/log.h"
#include "target/namespace.h"
#include "tests/unit/suites.h"
#include "util/size.h"
#include "tests/unit/control/methods_fixture.h"

#define HOST_KEY "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define CTRL_KEY "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:"

/* The AUTHREQ.ATR bit a new admin Connect as FX_HOSTNQN gets (the queues stay the
 * fixture's until teardown). */
static uint32_t connect_atr(void)
{
	static struct fxq qs[8];
	static unsigned next;
	struct nvme_cqe cqe;
	struct fxq *q = &qs[next++ % 8];
	fx_queue_init(&ctlm_fx, q);
	CU_ASSERT_EQUAL_FATAL(fx_connect(q, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, NULL, &cqe),
			      0);
	return le32toh(cqe.result.u32) & NVMF_CONNECT_AUTHREQ_ATR;
}
static void namespace_add_then_remove_changes_what_is_served(void)
{
	ctlm_setup();
	json_t *resp = ctlm_call("namespace_add",
				 "{\"nqn\":" NQN ",\"namespace\":{\"nvmf_backend\":\"ram\","
				 "\"nvmf_size_bytes\":\"2M\"}}");
	CU_ASSERT_EQUAL(
		json_integer_value(json_array_get(json_object_get(ctlm_result(resp), "nsids"), 0)),
		3);
	json_decref(resp);
	struct nvmf_subsys *s = nvmf_tgt_find_subsys(&ctlm_fx.tgt, FX_SUBNQN);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nvmf_subsys_ns(s, 3));
	CU_ASSERT_EQUAL(nvmf_ns_nlb(nvmf_subsys_ns(s, 3)), (2u << 20) / 512);
	resp = ctlm_call("namespace_resize", "{\"nqn\":" NQN ",\"nsid\":3,\"size_bytes\":4194304}");
	CU_ASSERT_EQUAL(ctlm_get_int(ctlm_result(resp), "size_bytes"), 4 << 20);
	json_decref(resp);
	CU_ASSERT_EQUAL(nvmf_ns_nlb(nvmf_subsys_ns(s, 3)), (4u << 20) / 512);
	resp = ctlm_call("namespace_disable", "{\"nqn\":" NQN ",\"nsid\":3}");
	CU_ASSERT_TRUE(json_is_true(json_object_get(ctlm_result(resp), "changed")));
	json_decref(resp);
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(s, 3));
	resp = ctlm_call("namespace_enable", "{\"nqn\":" NQN ",\"nsid\":3}");
	CU_ASSERT_TRUE(json_is_true(json_object_get(ctlm_result(resp), "changed")));
	json_decref(resp);
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(s, 3));
	resp = ctlm_call("namespace_remove", "{\"nqn\":" NQN ",\"nsid\":3}");
	CU_ASSERT_EQUAL(ctlm_get_int(ctlm_result(resp), "nsid"), 3);
	json_decref(resp);
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(s, 3));
	CU_ASSERT_EQUAL(s->cfg->n_ns, 2);
	ctlm_teardown();
}

/* A file namespace whose backing file was deleted while served: disable and remove are
 * refused, naming the namespace and the path and how to restore it, and the data stays
 * readable; with force they go through. */
static void deleted_backing_file_is_not_discarded_without_force(void)
{
	ctlm_setup();
	char dir[] = "/tmp/nvmf-unlinked-XXXXXX", img[96], params[256], want[768];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/ns.img", dir);
	snprintf(params, sizeof(params),
		 "{\"nqn\":" NQN ",\"namespace\":{\"nsid\":5,\"device\":{\"path\":\"%s\"},"
		 "\"nvmf_create\":true,\"nvmf_size_bytes\":\"1M\",\"nvmf_buffered\":true}}",
		 img);
	json_decref(ctlm_call("namespace_add", params));
	struct nvmf_subsys *s = nvmf_tgt_find_subsys(&ctlm_fx.tgt, FX_SUBNQN);
	struct nvmf_ns *ns = nvmf_subsys_ns(s, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
	CU_ASSERT_EQUAL(pwrite(ns->bdev->fd, "kept", 4, 0), 4);
	CU_ASSERT_EQUAL_FATAL(unlink(img), 0);
	snprintf(want, sizeof(want),
		 "parameter 'nsid': subsystem " FX_SUBNQN ", namespace 5: its backing file %s "
		 "has been deleted; closing it discards its data: restore it (e.g. ln "
		 "/proc/%d/fd/%d %s) or pass --force",
		 img, (int)getpid(), ns->bdev->fd, img);
	ctlm_expect_error("namespace_disable", "{\"nqn\":" NQN ",\"nsid\":5}", NVMF_RPC_REFUSED,
			  want);
	ctlm_expect_error("namespace_remove", "{\"nqn\":" NQN ",\"nsid\":5}", NVMF_RPC_REFUSED,
			  want);
	CU_ASSERT_PTR_EQUAL(nvmf_subsys_ns(s, 5), ns); /* still served, its data with it */
	char back[4] = "";
	CU_ASSERT_EQUAL(pread(ns->bdev->fd, back, 4, 0), 4);
	CU_ASSERT_EQUAL(memcmp(back, "kept", 4), 0);
	json_decref(ctlm_call("namespace_disable", "{\"nqn\":" NQN ",\"nsid\":5,\"force\":true}"));
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(s, 5));
	json_decref(ctlm_call("namespace_remove", "{\"nqn\":" NQN ",\"nsid\":5,\"force\":true}"));
	CU_ASSERT_EQUAL(s->cfg->n_ns, 2);
	rmdir(dir);
	ctlm_teardown();
}

static void namespace_errors_name_the_field_and_change_nothing(void)
{
	ctlm_setup();
	struct nvmf_subsys *s = nvmf_tgt_find_subsys(&ctlm_fx.tgt, FX_SUBNQN);
	ctlm_expect_error("namespace_add", "{\"namespace\":{}}", NVMF_RPC_INVALID_PARAMS,
			  "missing parameter 'nqn' (a string)");
	ctlm_expect_error("namespace_add", "{\"nqn\":7}", NVMF_RPC_INVALID_PARAMS,
			  "parameter 'nqn': expected a string, got an integer");
	ctlm_expect_error(
		"namespace_add", "{\"nqn\":" NQN "}", NVMF_RPC_INVALID_PARAMS,
		"parameter 'namespace': give either \"namespace\" (an object) or \"namespaces\" "
		"(an array of them)");
	ctlm_expect_error("namespace_add",
			  "{\"nqn\":" NQN ",\"namespace\":{\"nsid\":1,\"nvmf_backend\":\"ram\","
			  "\"nvmf_size_bytes\":4096}}",
			  NVMF_RPC_EXISTS, "namespace: nsid 1 is in use in subsystem " FX_SUBNQN);
	ctlm_expect_error("namespace_add",
			  "{\"nqn\":" NQN
			  ",\"namespace\":{\"device\":{\"path\":\"/nonexistent/f\"}}}",
			  NVMF_RPC_REFUSED,
			  "namespace (nsid 3): /nonexistent/f: No such file or directory");
	ctlm_expect_error("namespace_add",
			  "{\"nqn\":" NQN ",\"namespace\":{\"device\":{\"path\":\"rel/f\"}}}",
			  NVMF_RPC_INVALID_PARAMS,
			  "namespace.device.path: \"rel/f\" is not an absolute path");
	ctlm_expect_error("namespace_add",
			  "{\"nqn\":" NQN ",\"namespace\":{\"nvmf_backend\":\"ram\"}}",
			  NVMF_RPC_INVALID_PARAMS,
			  "namespace.nvmf_size_bytes: required key is missing (a \"ram\" "
			  "namespace needs its size)");
	/* The second of three fails: none is added. */
	ctlm_expect_error(
		"namespace_add",
		"{\"nqn\":" NQN ",\"namespaces\":[{\"nsid\":4,\"nvmf_backend\":\"ram\","
		"\"nvmf_size_bytes\":4096},{\"nsid\":5,\"device\":{\"path\":\"/nonexistent/g\"}},"
		"{\"nsid\":6,\"nvmf_backend\":\"null\",\"nvmf_size_bytes\":4096}]}",
		NVMF_RPC_REFUSED,
		"namespaces[1] (nsid 5): /nonexistent/g: No such file or directory");
	ctlm_expect_error(
		"namespace_add",
		"{\"nqn\":" NQN ",\"namespaces\":[{\"nsid\":4,\"nvmf_backend\":\"ram\","
		"\"nvmf_size_bytes\":4096},{\"nsid\":4,\"nvmf_backend\":\"ram\",\"nvmf_size_bytes\":4096}]}",
		NVMF_RPC_EXISTS, "namespaces[1]: nsid 4 is in use in subsystem " FX_SUBNQN);
	for (uint32_t n = 3; n <= 6; n++)
		CU_ASSERT_PTR_NULL(nvmf_subsys_ns(s, n));
	CU_ASSERT_EQUAL(s->cfg->n_ns, 2);
	ctlm_expect_error("namespace_remove", "{\"nqn\":" NQN ",\"nsid\":9}", NVMF_RPC_NOT_FOUND,
			  "parameter 'nsid': subsystem " FX_SUBNQN " has no namespace 9");
	ctlm_expect_error("namespace_remove", "{\"nqn\":" NQN ",\"nsid\":\"1\"}",
			  NVMF_RPC_INVALID_PARAMS,
			  "parameter 'nsid': expected an integer, got a string");
	ctlm_expect_error("namespace_remove", "{\"nqn\":" NQN ",\"nsid\":0}",
			  NVMF_RPC_INVALID_PARAMS, "parameter 'nsid': 0 is out of range [1, 1024]");
	ctlm_expect_error("namespace_remove", "{\"nqn\":" NQN ",\"nsid\":1,\"forced\":true}",
			  NVMF_RPC_INVALID_PARAMS,
			  "unknown parameter 'forced' (namespace_remove takes: nqn, nsid, force)");
	ctlm_expect_error("namespace_resize", "{\"nqn\":" NQN ",\"nsid\":1,\"size_bytes\":\"12Q\"}",
			  NVMF_RPC_INVALID_PARAMS,
			  "parameter 'size_bytes': \"12Q\" is not a size (" NVMF_SIZE_GRAMMAR ")");
	/* Without a size only a device namespace (bdev, nvme) resizes: it follows its device
	 * (tests/unit/target/namespace_test.c). */
	ctlm_expect_error("namespace_resize", "{\"nqn\":" NQN ",\"nsid\":1}", NVMF_RPC_REFUSED,
			  "parameter 'size_bytes': subsystem " FX_SUBNQN ", namespace 1: a \"ram\" "
			  "namespace has no device to follow: give size_bytes");
	ctlm_expect_error("namespace_resize", "{\"nqn\":" NQN ",\"nsid\":2,\"size_bytes\":1000}",
			  NVMF_RPC_INVALID_PARAMS,
			  "parameter 'size_bytes': subsystem " FX_SUBNQN ", namespace 2: "
			  "size 1000 bytes is not a positive multiple of the block size (4096)");
	CU_ASSERT_EQUAL(nvmf_ns_nlb(nvmf_subsys_ns(s, 2)), (1u << 20) / 4096);
	json_decref(ctlm_call("namespace_disable", "{\"nqn\":" NQN ",\"nsid\":2}"));
	ctlm_expect_error("namespace_resize", "{\"nqn\":" NQN ",\"nsid\":2,\"size_bytes\":8192}",
			  NVMF_RPC_REFUSED,
			  "parameter 'nsid': subsystem " FX_SUBNQN ", namespace 2 is disabled: "
			  "enable it first (its nvmf_size_bytes applies then)");
	ctlm_expect_error("no_such_method", NULL, NVMF_RPC_METHOD_NOT_FOUND,
			  "method 'no_such_method' not found");
	ctlm_teardown();
}

static void removed_host_is_disconnected_and_refused(void)
{
	ctlm_setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&ctlm_fx), 0);
	uint64_t genctr = ctlm_fx.tgt.disc_genctr;
	json_t *resp = ctlm_call("host_remove", "{\"nqn\":" NQN ",\"host\":\"" FX_HOSTNQN "\"}");
	CU_ASSERT_EQUAL(ctlm_get_int(ctlm_result(resp), "disconnected"), 1);
	json_decref(resp);
	nvmf_loop_drive(&ctlm_fx.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&ctlm_fx));
	CU_ASSERT_EQUAL(ctlm_fx.tgt.disc_genctr, genctr + 1);
	/* Connecting again is refused as for any host not allowed. */
	struct fxq q;
	fx_queue_init(&ctlm_fx, &q);
	CU_ASSERT_EQUAL(fx_connect(&q, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, NULL, NULL),
			(int)(nvme_status(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST) |
			      NVME_SC_DNR));
	/* The port counted one association and one refusal. */
	resp = ctlm_call("port_list", NULL);
	json_t *port = json_array_get(json_object_get(ctlm_result(resp), "ports"), 0);
	CU_ASSERT_EQUAL(ctlm_get_int(port, "connects"), 1);
	CU_ASSERT_EQUAL(ctlm_get_int(port, "connects_refused"), 1);
	json_decref(resp);
	ctlm_expect_error("host_remove", "{\"nqn\":" NQN ",\"host\":\"" FX_HOSTNQN "\"}",
			  NVMF_RPC_NOT_FOUND,
			  "parameter 'host': " FX_HOSTNQN
			  " is not in the allowed hosts of " FX_SUBNQN);
	/* Allowed again: it connects. */
	resp = ctlm_call("host_add", "{\"nqn\":" NQN ",\"host\":\"" FX_HOSTNQN "\"}");
	ctlm_result(resp);
	json_decref(resp);
	struct fxq q2;
	fx_queue_init(&ctlm_fx, &q2);
	CU_ASSERT_EQUAL(fx_connect(&q2, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, NULL, NULL), 0);
	ctlm_expect_error("host_add", "{\"nqn\":" NQN ",\"host\":\"" FX_HOSTNQN "\"}",
			  NVMF_RPC_EXISTS,
			  "parameter 'host': " FX_HOSTNQN " is already allowed on " FX_SUBNQN);
	ctlm_expect_error("host_add", "{\"nqn\":" NQN ",\"host\":\"bad nqn\"}",
			  NVMF_RPC_INVALID_PARAMS,
			  "host: \"bad nqn\" is not an NQN (no spaces or control characters)");
	fx_disconnect(&q2);
	ctlm_teardown();
}

static void host_dhchap_set_and_clear_change_who_must_authenticate(void)
{
	ctlm_setup();
	CU_ASSERT_EQUAL(connect_atr(), 0);
	json_t *resp = ctlm_call("host_dhchap_set",
				 "{\"host\":\"" FX_HOSTNQN "\",\"key\":\"" HOST_KEY "\","
				 "\"ctrl_key\":\"" CTRL_KEY
				 "\",\"hash\":\"hmac(sha384)\",\"dhgroup\":\"ffdhe2048\"}");
	CU_ASSERT_EQUAL(json_object_size(ctlm_result(resp)), 0);
	json_decref(resp);
	CU_ASSERT_EQUAL(connect_atr(), NVMF_CONNECT_AUTHREQ_ATR);
	/* The running config has it (config_save writes it; config_get hides the secrets). */
	CU_ASSERT_EQUAL_FATAL(ctlm_fx.tgt.cfg->n_dhchap, 1);
	CU_ASSERT_STRING_EQUAL(ctlm_fx.tgt.cfg->dhchap[0].key, HOST_KEY);
	CU_ASSERT_STRING_EQUAL(ctlm_fx.tgt.cfg->dhchap[0].ctrl_key, CTRL_KEY);
	CU_ASSERT_STRING_EQUAL(ctlm_fx.tgt.cfg->dhchap[0].hash, "hmac(sha384)");
	resp = ctlm_call("config_get", NULL);
	char *text = json_dumps(ctlm_result(resp), JSON_COMPACT);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
				      "\"dhchap\":{\"key\":\"(secret)\",\"ctrl_key\":\"(secret)\","
				      "\"hash\":\"hmac(sha384)\",\"dhgroup\":\"ffdhe2048\"}"));
	CU_ASSERT_PTR_NULL(strstr(text, "DHHC-1"));
	free(text);
	json_decref(resp);
	/* Set again: replaced, not added. */
	resp = ctlm_call("host_dhchap_set",
			 "{\"host\":\"" FX_HOSTNQN "\",\"key\":\"" CTRL_KEY "\"}");
	ctlm_result(resp);
	json_decref(resp);
	CU_ASSERT_EQUAL_FATAL(ctlm_fx.tgt.cfg->n_dhchap, 1);
	CU_ASSERT_STRING_EQUAL(ctlm_fx.tgt.cfg->dhchap[0].key, CTRL_KEY);
	CU_ASSERT_PTR_NULL(ctlm_fx.tgt.cfg->dhchap[0].ctrl_key);
	resp = ctlm_call("host_dhchap_clear", "{\"host\":\"" FX_HOSTNQN "\"}");
	ctlm_result(resp);
	json_decref(resp);
	CU_ASSERT_EQUAL(ctlm_fx.tgt.cfg->n_dhchap, 0);
	CU_ASSERT_EQUAL(connect_atr(), 0);
	ctlm_expect_error("host_dhchap_clear", "{\"host\":\"" FX_HOSTNQN "\"}", NVMF_RPC_NOT_FOUND,
			  FX_HOSTNQN " has no DH-HMAC-CHAP key");
	ctlm_teardown();
}

static void host_dhchap_set_refuses_bad_values_without_echoing_secrets(void)
{
	ctlm_setup();
	/* A CRC that does not match: the message names the problem, not the secret. */
	json_t *resp =
		ctlm_call("host_dhchap_set",
			  "{\"host\":\"" FX_HOSTNQN "\",\"key\":"
			  "\"DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD/:\"}");
	json_t *e = json_object_get(resp, "error");
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "code")), NVMF_RPC_INVALID_PARAMS);
	const char *m = json_string_value(json_object_get(e, "message"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "host " FX_HOSTNQN ": dhchap key: "));
	CU_ASSERT_PTR_NULL(strstr(m, "ab3CAV"));
	json_decref(resp);
	ctlm_expect_error("host_dhchap_set",
			  "{\"host\":\"" FX_HOSTNQN "\",\"key\":\"" HOST_KEY "\",\"hash\":\"md5\"}",
			  NVMF_RPC_INVALID_PARAMS,
			  "parameter 'hash': \"md5\" is not a DH-HMAC-CHAP hash (hmac(sha256), "
			  "hmac(sha384) or hmac(sha512))");
	ctlm_expect_error("host_dhchap_set",
			  "{\"host\":\"" FX_HOSTNQN "\",\"key\":\"" HOST_KEY
			  "\",\"dhgroup\":\"ffdhe1024\"}",
			  NVMF_RPC_INVALID_PARAMS,
			  "parameter 'dhgroup': \"ffdhe1024\" is not a DH group (null, "
			  "ffdhe2048, ffdhe3072, ffdhe4096, ffdhe6144 or ffdhe8192)");
	ctlm_expect_error("host_dhchap_set",
			  "{\"host\":\"" FX_HOSTNQN "\",\"ctrl_key\":\"" CTRL_KEY "\"}",
			  NVMF_RPC_INVALID_PARAMS, "missing parameter 'key' (a string)");
	ctlm_expect_error("host_dhchap_set",
			  "{\"host\":\"" FX_HOSTNQN "\",\"key\":\"" HOST_KEY "\",\"secret\":1}",
			  NVMF_RPC_INVALID_PARAMS,
			  "unknown parameter 'secret' (host_dhchap_set takes: host, key, "
			  "ctrl_key, hash, dhgroup)");
	/* A secret passed as a name is not echoed. */
	ctlm_expect_error("host_dhchap_set",
			  "{\"host\":\"" FX_HOSTNQN "\",\"key\":\"" HOST_KEY
			  "\",\"hash\":\"DHHC-1:00:c2VjcmV0:\"}",
			  NVMF_RPC_INVALID_PARAMS,
			  "parameter 'hash': a secret (not shown) is not a "
			  "DH-HMAC-CHAP hash (hmac(sha256), hmac(sha384) or hmac(sha512))");
	/* Nothing changed. */
	CU_ASSERT_EQUAL(ctlm_fx.tgt.cfg->n_dhchap, 0);
	CU_ASSERT_EQUAL(connect_atr(), 0);
	ctlm_teardown();
}

static void allow_any_host_off_drops_hosts_not_listed(void)
{
	ctlm_setup();
	json_t *resp = ctlm_call("subsystem_allow_any_host", "{\"nqn\":" NQN ",\"allow\":true}");
	CU_ASSERT_TRUE(json_is_true(json_object_get(ctlm_result(resp), "changed")));
	json_decref(resp);
	struct fxq q;
	fx_queue_init(&ctlm_fx, &q);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&q, 0, 31, FX_SUBNQN, FX_OTHER_HOSTNQN, 0xffff, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&ctlm_fx), 0);
	resp = ctlm_call("subsystem_allow_any_host", "{\"nqn\":" NQN ",\"allow\":false}");
	CU_ASSERT_EQUAL(ctlm_get_int(ctlm_result(resp), "disconnected"),
			1); /* the intruder, not host1 */
	json_decref(resp);
	nvmf_loop_drive(&ctlm_fx.tgt);
	resp = ctlm_call("controller_list", NULL);
	json_t *list = json_object_get(ctlm_result(resp), "controllers");
	CU_ASSERT_EQUAL_FATAL(json_array_size(list), 1);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(json_array_get(list, 0), "hostnqn")), FX_HOSTNQN);
	json_decref(resp);
	ctlm_expect_error("subsystem_allow_any_host", "{\"nqn\":" NQN ",\"allow\":\"no\"}",
			  NVMF_RPC_INVALID_PARAMS,
			  "parameter 'allow': expected true or false, got a string");
	fx_disconnect(&q);
	ctlm_teardown();
}

/* nvmet's truth: with allow_any_host on, the list is not what admits a host, so taking it
 * off the list leaves it connected. The answer and the log say so, never "disconnected". */
static void host_removed_while_allow_any_host_is_on_stays_and_the_answer_says_so(void)
{
	ctlm_setup();
	json_t *resp = ctlm_call("subsystem_allow_any_host", "{\"nqn\":" NQN ",\"allow\":true}");
	json_decref(resp);
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&ctlm_fx), 0);
	struct fx_stderr out;
	fx_stderr_begin(&out);
	resp = ctlm_call("host_remove", "{\"nqn\":" NQN ",\"host\":\"" FX_HOSTNQN "\"}");
	fx_stderr_end(&out);
	json_t *r = ctlm_result(resp);
	CU_ASSERT_EQUAL(ctlm_get_int(r, "disconnected"), 0);
	CU_ASSERT_TRUE(json_is_true(json_object_get(r, "still_admitted")));
	CU_ASSERT_EQUAL(ctlm_get_int(r, "connected"), 1);
	json_decref(resp);
	CU_ASSERT_STRING_EQUAL(out.text,
			       "nvmf-target: control: warning: subsystem " FX_SUBNQN
			       ": host " FX_HOSTNQN
			       " removed from the allowed hosts, but allow_any_host is on: it may "
			       "still connect, and its 1 controllers stay connected\n");
	nvmf_loop_drive(&ctlm_fx.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&ctlm_fx));
	CU_ASSERT_EQUAL(fx_enable(&ctlm_fx.admin), 0); /* still served */
	ctlm_teardown();
}

/* A host allowed live gets its hosts[] entry (config_save then writes a file the loader
 * takes); a secret given as the host NQN is refused, and neither the answer nor the log
 * shows it. */
static void host_add_makes_the_host_known_and_refuses_a_secret_as_its_nqn(void)
{
	ctlm_setup();
	json_t *resp = ctlm_call("host_add", "{\"nqn\":" NQN ",\"host\":\"nqn.h:new\"}");
	ctlm_result(resp);
	json_decref(resp);
	size_t h = 0;
	while (h < ctlm_fx.tgt.cfg->n_hosts && strcmp(ctlm_fx.tgt.cfg->hosts[h], "nqn.h:new"))
		h++;
	CU_ASSERT_TRUE(h < ctlm_fx.tgt.cfg->n_hosts);
	struct fx_stderr out;
	fx_stderr_begin(&out);
	ctlm_expect_error("host_add", "{\"nqn\":" NQN ",\"host\":\"" HOST_KEY "\"}",
			  NVMF_RPC_INVALID_PARAMS, "host: a secret (not shown) is not an NQN");
	fx_stderr_end(&out);
	CU_ASSERT_PTR_NULL(strstr(out.text, "DHHC-1"));
	CU_ASSERT_EQUAL(nvmf_tgt_find_subsys(&ctlm_fx.tgt, FX_SUBNQN)->cfg->n_allowed_hosts,
			2); /* FX_HOSTNQN and nqn.h:new, nothing more */
	ctlm_teardown();
}

/* Keys for a host no subsystem admits protect nothing (an NQN mistyped, most likely): the
 * answer and the log warn. */
static void host_dhchap_set_for_a_host_no_subsystem_admits_warns(void)
{
	ctlm_setup();
	struct fx_stderr out;
	fx_stderr_begin(&out);
	json_t *resp =
		ctlm_call("host_dhchap_set", "{\"host\":\"nqn.h:tpyo\",\"key\":\"" HOST_KEY "\"}");
	fx_stderr_end(&out);
	static const char warn[] =
		"host nqn.h:tpyo: no subsystem admits it (none lists it in allowed_hosts or has "
		"allow_any_host on): is the NQN mistyped? (host add NQN HOSTNQN allows it)";
	json_t *w = json_object_get(ctlm_result(resp), "warnings");
	CU_ASSERT_EQUAL_FATAL(json_array_size(w), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(w, 0)), warn);
	json_decref(resp);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.text, "nvmf-target: auth: warning: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out.text, warn));
	CU_ASSERT_PTR_NULL(strstr(out.text, "DHHC-1"));
	/* Once a subsystem admits it, the warning is gone; the keys were set all along. */
	resp = ctlm_call("host_add", "{\"nqn\":" NQN ",\"host\":\"nqn.h:tpyo\"}");
	json_decref(resp);
	resp = ctlm_call("host_dhchap_set", "{\"host\":\"nqn.h:tpyo\",\"key\":\"" HOST_KEY "\"}");
	CU_ASSERT_PTR_NULL(json_object_get(ctlm_result(resp), "warnings"));
	json_decref(resp);
	ctlm_teardown();
}

static void controller_disconnect_tears_the_association_down(void)
{
	ctlm_setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&ctlm_fx), 0);
	char p[256];
	snprintf(p, sizeof(p), "{\"nqn\":" NQN ",\"cntlid\":%u}", ctlm_fx.cntlid);
	json_t *resp = ctlm_call("controller_disconnect", p);
	ctlm_result(resp);
	json_decref(resp);
	nvmf_loop_drive(&ctlm_fx.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&ctlm_fx));
	snprintf(p, sizeof(p), "{\"nqn\":" NQN ",\"cntlid\":%u}", ctlm_fx.cntlid + 7u);
	char want[256];
	snprintf(want, sizeof(want),
		 "parameter 'cntlid': subsystem " FX_SUBNQN " has no controller %u",
		 ctlm_fx.cntlid + 7u);
	ctlm_expect_error("controller_disconnect", p, NVMF_RPC_NOT_FOUND, want);
	ctlm_teardown();
}

/* The first string of array @a, "" when there is none. */
static const char *first_string(json_t *a)
{
	const char *s = json_string_value(json_array_get(a, 0));
	return s ? s : "";
}

/* What the log warns of at add and enable, the caller reads too: a RAM namespace larger
 * than the machine's memory (it opens: pages are taken as written). */
static void namespace_add_and_enable_return_the_space_warning(void)
{
	ctlm_setup();
	uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t size = (phys + (1u << 20)) & ~(uint64_t)0xfffff;
	char params[200], want[400];
	snprintf(params, sizeof(params),
		 "{\"nqn\":" NQN ",\"namespace\":{\"nsid\":5,\"nvmf_backend\":\"ram\","
		 "\"nvmf_size_bytes\":%llu}}",
		 (unsigned long long)size);
	snprintf(want, sizeof(want),
		 "subsystem " FX_SUBNQN ", namespace 5 (ram): ram namespace of %llu bytes is "
		 "larger than this machine's memory (%llu bytes): once hosts fill it the machine "
		 "runs out of memory, and the OOM killer stops the target with every subsystem",
		 (unsigned long long)size, (unsigned long long)phys);
	json_t *resp = ctlm_call("namespace_add", params);
	json_t *w = json_object_get(ctlm_result(resp), "warnings");
	CU_ASSERT_EQUAL(json_array_size(w), 1);
	CU_ASSERT_STRING_EQUAL(first_string(w), want);
	json_decref(resp);
	json_decref(ctlm_call("namespace_disable", "{\"nqn\":" NQN ",\"nsid\":5}"));
	resp = ctlm_call("namespace_enable", "{\"nqn\":" NQN ",\"nsid\":5}");
	w = json_object_get(ctlm_result(resp), "warnings");
	CU_ASSERT_EQUAL(json_array_size(w), 1);
	CU_ASSERT_STRING_EQUAL(first_string(w), want);
	json_decref(resp);
	/* One that fits: no warnings at all. */
	resp = ctlm_call("namespace_add", "{\"nqn\":" NQN ",\"namespace\":{\"nsid\":6,"
					  "\"nvmf_backend\":\"ram\",\"nvmf_size_bytes\":\"1M\"}}");
	CU_ASSERT_PTR_NULL(json_object_get(ctlm_result(resp), "warnings"));
	json_decref(resp);
	ctlm_teardown();
}

/* host_tls_key_set's "compat" (hosts[].nvmf_tls_key_compat): kept in the running config
 * (config_get shows it, config_save writes it), off when left out. */
static void host_tls_key_set_takes_compat_and_config_get_shows_it(void)
{
	char dir[] = "/tmp/nvmf-tlskey-XXXXXX", path[64], params[256];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/host.key", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("NVMeTLSkey-1:01:kiHrhJ33zILJg+vFgAhNH0dubDZFYwV7vPfNX2AEFczmS22d:\n", f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(chmod(path, 0600), 0);
	ctlm_setup();
	snprintf(params, sizeof(params),
		 "{\"host\":\"" FX_HOSTNQN "\",\"key_file\":\"%s\",\"compat\":true}", path);
	json_decref(ctlm_call("host_tls_key_set", params));
	CU_ASSERT_EQUAL_FATAL(ctlm_fx.tgt.cfg->n_tls_keys, 1);
	CU_ASSERT_TRUE(ctlm_fx.tgt.cfg->tls_keys[0].compat);
	json_t *resp = ctlm_call("config_get", NULL);
	char *text = json_dumps(ctlm_result(resp), JSON_COMPACT);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"nvmf_tls_key_compat\":true"));
	CU_ASSERT_PTR_NULL(strstr(text, "NVMeTLSkey-1")); /* the path only */
	free(text);
	json_decref(resp);
	/* Set again without it: the RFC 8446 layout. */
	snprintf(params, sizeof(params), "{\"host\":\"" FX_HOSTNQN "\",\"key_file\":\"%s\"}", path);
	json_decref(ctlm_call("host_tls_key_set", params));
	CU_ASSERT_EQUAL_FATAL(ctlm_fx.tgt.cfg->n_tls_keys, 1);
	CU_ASSERT_FALSE(ctlm_fx.tgt.cfg->tls_keys[0].compat);
	snprintf(params, sizeof(params),
		 "{\"host\":\"" FX_HOSTNQN "\",\"key_file\":\"%s\",\"compat\":\"yes\"}", path);
	ctlm_expect_error("host_tls_key_set", params, NVMF_RPC_INVALID_PARAMS,
			  "parameter 'compat': expected true or false, got a string");
	ctlm_teardown();
	unlink(path);
	rmdir(dir);
}

const struct unit_test ctl_change_tests[] = {
	{ "deleted_backing_file_is_not_discarded_without_force",
	  deleted_backing_file_is_not_discarded_without_force },
	{ "namespace_add_and_enable_return_the_space_warning",
	  namespace_add_and_enable_return_the_space_warning },
	{ "namespace_add_then_remove_changes_what_is_served",
	  namespace_add_then_remove_changes_what_is_served },
	{ "namespace_errors_name_the_field_and_change_nothing",
	  namespace_errors_name_the_field_and_change_nothing },
	{ "removed_host_is_disconnected_and_refused", removed_host_is_disconnected_and_refused },
	{ "host_dhchap_set_and_clear_change_who_must_authenticate",
	  host_dhchap_set_and_clear_change_who_must_authenticate },
	{ "host_dhchap_set_refuses_bad_values_without_echoing_secrets",
	  host_dhchap_set_refuses_bad_values_without_echoing_secrets },
	{ "allow_any_host_off_drops_hosts_not_listed", allow_any_host_off_drops_hosts_not_listed },
	{ "controller_disconnect_tears_the_association_down",
	  controller_disconnect_tears_the_association_down },
	{ "host_removed_while_allow_any_host_is_on_stays_and_the_answer_says_so",
	  host_removed_while_allow_any_host_is_on_stays_and_the_answer_says_so },
	{ "host_add_makes_the_host_known_and_refuses_a_secret_as_its_nqn",
	  host_add_makes_the_host_known_and_refuses_a_secret_as_its_nqn },
	{ "host_dhchap_set_for_a_host_no_subsystem_admits_warns",
	  host_dhchap_set_for_a_host_no_subsystem_admits_warns },
	{ "host_tls_key_set_takes_compat_and_config_get_shows_it",
	  host_tls_key_set_takes_compat_and_config_get_shows_it },
	{ NULL, NULL },
};
