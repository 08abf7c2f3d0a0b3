/*
 * Reloading the configuration (control/reload.c) into a target on the loop transport with
 * a host connected: the difference is applied and nothing else moves; a step that fails
 * leaves everything as it was; what cannot change live is refused by name.
 *
 * The running target is fx_setup's: FX_SUBNQN (host FX_HOSTNQN) with namespaces 1 (RAM,
 * 512 B blocks) and 2 (RAM, 4 KiB blocks) on loop port 1.
 */
#include <CUnit/CUnit.h>
#include <nvme/types.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "target/ana.h"
#include "target/auth.h"
#include "control/control.h"
#include "target/log.h"
#include "target/namespace.h"
#include "control/reload.h"
#include "subsystem/subsystem.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

#define NEW_NQN "nqn.2026-12.io.nvmf-rdma:reloaded"

static struct fx F;
static struct nvmf_config Next; /* what the "file" says */

static struct nvmf_subsys *subsys(const char *nqn)
{
	return nvmf_tgt_find_subsys(&F.tgt, nqn);
}

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
	memset(&Next, 0, sizeof(Next));
	Next.target = F.cfg.target;
}

/* The file as the running target's own config: the same subsystem and port. */
static struct nvmf_subsys_config *same_as_running(void)
{
	struct nvmf_subsys_config *s = fx_cfg_subsys(&Next, FX_SUBNQN, FX_HOSTNQN, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, 1u << 20, 4096);
	fx_cfg_expose(fx_cfg_loop_port(&Next, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	return s;
}

static void teardown(void)
{
	nvmf_config_free(&Next);
	fx_teardown(&F);
}

static const char *change(json_t *changes, size_t i)
{
	const char *c = json_string_value(json_array_get(changes, i));
	return c ? c : "(none)";
}

static void same_file_changes_nothing(void)
{
	setup();
	same_as_running();
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	json_decref(changes);
	teardown();
}

static void difference_is_applied_and_connected_hosts_stay(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&F), 0);
	struct nvmf_tgt_ctrl *ctrl = fx_ctrl(&F);
	struct nvmf_ns *ns1 = nvmf_subsys_ns(subsys(FX_SUBNQN), 1);
	/* The file now: namespace 2 gone, 3 new, namespace 1 grown; a second host; a new
	 * subsystem on the same port. */
	struct nvmf_subsys_config *s = fx_cfg_subsys(&Next, FX_SUBNQN, FX_HOSTNQN, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 2u << 20, 512);
	fx_cfg_ns(s, 3, NVMF_BACKEND_NULL, 1u << 20, 512);
	s->allowed_hosts = realloc(s->allowed_hosts, 2 * sizeof(char *));
	s->allowed_hosts[s->n_allowed_hosts++] = strdup(FX_OTHER_HOSTNQN);
	struct nvmf_subsys_config *n = fx_cfg_subsys(&Next, NEW_NQN, NULL, 4);
	fx_cfg_ns(n, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	struct nvmf_port_config *p = fx_cfg_loop_port(&Next, 1, AF_INET, "0.0.0.0", "4420");
	fx_cfg_expose(p, FX_SUBNQN);
	fx_cfg_expose(p, NEW_NQN);
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	const char *want[] = {
		"subsystem " FX_SUBNQN ": namespace 3 added",
		"subsystem " FX_SUBNQN ": namespace 1 resized to 2097152 bytes",
		"subsystem " FX_SUBNQN ": host " FX_OTHER_HOSTNQN " allowed",
		"subsystem " NEW_NQN " added (1 namespaces)",
		"port 1 exposes " NEW_NQN,
		"subsystem " FX_SUBNQN ": namespace 2 removed",
	};
	CU_ASSERT_EQUAL(json_array_size(changes), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (strcmp(change(changes, i), want[i]))
			fprintf(stderr, "\n  change %zu: got '%s', want '%s'\n", i,
				change(changes, i), want[i]);
		CU_ASSERT_STRING_EQUAL(change(changes, i), want[i]);
	}
	json_decref(changes);
	/* Nothing else moved: the same controller, the same namespace 1 (grown). */
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&F));
	CU_ASSERT_PTR_EQUAL(fx_ctrl(&F), ctrl);
	CU_ASSERT_PTR_EQUAL(nvmf_subsys_ns(subsys(FX_SUBNQN), 1), ns1);
	CU_ASSERT_EQUAL(nvmf_ns_nlb(ns1), (2u << 20) / 512);
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(FX_SUBNQN), 2));
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(subsys(FX_SUBNQN), 3));
	CU_ASSERT_PTR_NOT_NULL_FATAL(subsys(NEW_NQN));
	CU_ASSERT_TRUE(nvmf_port_has_subsys(F.tgt.ports[0], subsys(NEW_NQN)));
	CU_ASSERT_TRUE(nvmf_subsys_host_allowed(subsys(FX_SUBNQN), FX_OTHER_HOSTNQN));
	teardown();
}

static void failing_step_leaves_everything_as_it_was(void)
{
	setup();
	struct nvmf_subsys_config *s = same_as_running();
	fx_cfg_ns(s, 5, NVMF_BACKEND_RAM, 1u << 20, 512); /* would be added */
	struct nvmf_subsys_config *n = fx_cfg_subsys(&Next, NEW_NQN, NULL, 4);
	struct nvmf_ns_config *bad = fx_cfg_ns(n, 1, NVMF_BACKEND_FILE, 0, 512);
	bad->path = strdup("/nonexistent/reload/ns.img");
	json_t *changes = json_array();
	json_array_append_new(changes, json_string("before"));
	char err[512] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EIO);
	CU_ASSERT_STRING_EQUAL(
		err, "subsystems[1] (" NEW_NQN "): namespaces[0] (subsystem " NEW_NQN
		     ", namespace 1): /nonexistent/reload/ns.img: No such file or directory");
	CU_ASSERT_EQUAL(json_array_size(changes), 1); /* only what was there */
	CU_ASSERT_PTR_NULL(subsys(NEW_NQN));
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(FX_SUBNQN), 5));
	CU_ASSERT_EQUAL(subsys(FX_SUBNQN)->cfg->n_ns, 2);
	json_decref(changes);
	teardown();
}

/* A refused reload deletes the file it created for a namespace it staged (nvmf_create),
 * once that namespace is closed; an accepted one keeps it and no longer asks to create
 * it. */
static void refused_reload_deletes_the_file_it_created(void)
{
	setup();
	char dir[] = "/tmp/nvmf-rlmade-XXXXXX", img[96], err[512] = "";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/ns.img", dir);
	struct nvmf_subsys_config *s = same_as_running();
	struct nvmf_ns_config *made = fx_cfg_ns(s, 5, NVMF_BACKEND_FILE, 1u << 20, 512);
	made->path = strdup(img);
	made->create = made->buffered = true;
	struct nvmf_subsys_config *n = fx_cfg_subsys(&Next, NEW_NQN, NULL, 4);
	fx_cfg_ns(n, 1, NVMF_BACKEND_FILE, 0, 512)->path = strdup("/nonexistent/reload/ns.img");
	json_t *changes = json_array();
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EIO);
	for (int i = 0; i < 8 && nvmf_tgt_ns_draining(&F.tgt); i++) {
		F.now += 5;
		nvmf_loop_drive(&F.tgt);
	}
	CU_ASSERT_EQUAL(nvmf_tgt_ns_draining(&F.tgt), 0);
	CU_ASSERT_EQUAL(access(img, F_OK), -1);
	/* The same without the failing subsystem: the file is made and kept. */
	nvmf_config_subsys_clear(&Next.subsystems[1]);
	Next.n_subsystems = 1;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(access(img, F_OK), 0);
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(subsys(FX_SUBNQN), 5));
	CU_ASSERT_FALSE(subsys(FX_SUBNQN)->cfg->ns[2].create);
	json_decref(changes);
	teardown();
	unlink(img);
	rmdir(dir);
}

/* A reload staging namespace 5 of FX_SUBNQN, then refused (a new subsystem's file does
 * not exist), run until the rollback's closes are done; the log from its start goes to
 * @out (begun, not ended). Returns the reload's result. */
static int refused_reload_staging_ns5(struct fx_stderr *out)
{
	struct nvmf_subsys_config *s = same_as_running();
	fx_cfg_ns(s, 5, NVMF_BACKEND_RAM, 1u << 20, 512);
	struct nvmf_subsys_config *n = fx_cfg_subsys(&Next, NEW_NQN, NULL, 4);
	fx_cfg_ns(n, 1, NVMF_BACKEND_FILE, 0, 512)->path = strdup("/nonexistent/reload/ns.img");
	json_t *changes = json_array();
	char err[512] = "";
	fx_stderr_begin(out);
	int rc = nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err));
	for (int i = 0; i < 8 && nvmf_tgt_ns_draining(&F.tgt); i++) {
		F.now += 5;
		nvmf_loop_drive(&F.tgt);
	}
	json_decref(changes);
	return rc;
}

/* A refused reload's staged namespace (5, published until the rollback) served nothing:
 * its close says nothing of a "last command" at the info level; a namespace removed for
 * real afterwards still does. */
static void refused_reload_does_not_log_a_staged_namespace_as_closed_after_commands(void)
{
	setup();
	struct fx_stderr out;
	char err[512] = "";
	int rc = refused_reload_staging_ns5(&out);
	unsigned draining = nvmf_tgt_ns_draining(&F.tgt);
	CU_ASSERT_EQUAL(nvmf_tgt_ns_remove(&F.tgt, subsys(FX_SUBNQN), 2, err, sizeof(err)), 0);
	for (int i = 0; i < 8 && nvmf_tgt_ns_draining(&F.tgt); i++) {
		F.now += 5;
		nvmf_loop_drive(&F.tgt);
	}
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_EQUAL(draining, 0); /* its backend was closed all the same */
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(FX_SUBNQN), 5));
	CU_ASSERT_PTR_NULL(strstr(out.text, "namespace 5"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out.text,
				      "subsystem " FX_SUBNQN ": namespace 2 closed after its "
				      "last command"));
	if (strstr(out.text, "namespace 5") || !strstr(out.text, "namespace 2 closed"))
		fprintf(stderr, "\n  log: %s\n", out.text);
	teardown();
}

/* At debug level the staged namespace's close is said for what it was. */
static void refused_reload_says_at_debug_that_the_staged_namespace_was_discarded(void)
{
	setup();
	nvmf_log_level_set_all(&F.tgt, NVMF_LOG_DEBUG);
	struct fx_stderr out;
	int rc = refused_reload_staging_ns5(&out);
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.text,
				      "subsystem " FX_SUBNQN ": namespace 5, staged by a "
				      "refused reload, discarded (it served no command)"));
	CU_ASSERT_PTR_NULL(strstr(out.text, "last command"));
	CU_ASSERT_FALSE(F.tgt.ns_discarding); /* later removals are real ones */
	teardown();
}

static void what_cannot_change_live_is_refused_by_name(void)
{
	char err[512];
	json_t *changes = json_array();

	setup();
	same_as_running();
	Next.target.threads = 4;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err, "nvmf_target.threads differs from the running target's (running 1, file 4); "
		     "it takes a restart");
	teardown();

	setup();
	same_as_running();
	Next.target.post_thread = 1;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err,
		"nvmf_target.post_thread differs from the running target's (running -1, file 1); "
		"it takes a restart");
	teardown();

	setup();
	snprintf(same_as_running()->serial, 21, "OTHER");
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	char want[512]; /* the running serial is derived from the NQN (16 hex digits) */
	snprintf(
		want, sizeof(want),
		"subsystems[0] (" FX_SUBNQN "): attr.serial differs (running \"%.16s\", "
		"file \"OTHER\"); a served subsystem keeps its identity (remove it and add it anew)",
		subsys(FX_SUBNQN)->serial);
	CU_ASSERT_STRING_EQUAL(err, want);
	teardown();

	/* A served subsystem does not become a drive's, nor another drive's. */
	setup();
	struct nvmf_subsys_config *pt = same_as_running();
	pt->passthru.enable = true;
	snprintf(pt->passthru.device_path, sizeof(pt->passthru.device_path), "/dev/nvme0");
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "subsystems[0] (" FX_SUBNQN "): passthru.enable differs "
				    "(running 0, file 1); a served subsystem keeps its identity "
				    "(remove it and add it anew)");
	teardown();

	/* A group that is off, changed in the file: refused by name, not passed over (config
	 * save would then write the running, old, values back over the file's). */
	setup();
	pt = same_as_running();
	pt->passthru.admin_timeout = 60;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "subsystems[0] (" FX_SUBNQN "): passthru.admin_timeout differs "
				    "(running 0, file 60); a served subsystem keeps its identity "
				    "(remove it and add it anew)");
	teardown();
	setup();
	pt = same_as_running();
	snprintf(pt->passthru.device_path, sizeof(pt->passthru.device_path), "/dev/nvme1");
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "passthru.device.path differs"));
	teardown();

	setup();
	same_as_running()->ns[1].block_size = 512;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err, "subsystems[0].namespaces[1] (" FX_SUBNQN ", nsid 2): nvmf_block_size "
		     "differs (running 4096, file 512); remove the namespace and add it anew");
	teardown();

	/* An rbd key is part of what backs a namespace: a change is another namespace. (Built
	 * in code on the fixture's RAM namespace: only the comparison is looked at here.) */
	setup();
	snprintf(same_as_running()->ns[1].rbd.image, sizeof(Next.subsystems[0].ns[1].rbd.image),
		 "img2");
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err, "subsystems[0].namespaces[1] (" FX_SUBNQN ", nsid 2): nvmf_rbd_image "
		     "differs (running \"\", file \"img2\"); remove the namespace and add it anew");
	teardown();
	setup();
	snprintf(same_as_running()->ns[1].rbd.keyring, sizeof(Next.subsystems[0].ns[1].rbd.keyring),
		 "/k");
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nvmf_rbd_keyring differs"));
	teardown();

	setup();
	same_as_running();
	snprintf(Next.ports[0].trsvcid, sizeof(Next.ports[0].trsvcid), "4421");
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err, "ports[0] (port 1): addr.trsvcid differs (running \"4420\", file \"4421\"); "
		     "remove the port and add it anew");
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	teardown();

	setup();
	same_as_running();
	Next.ports[0].zerocopy_threshold = 0;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err, "ports[0] (port 1): param.nvmf_zerocopy_threshold differs (running 32768, "
		     "file 0); remove the port and add it anew");
	teardown();

	setup();
	same_as_running();
	Next.ports[0].mdts = 3;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "ports[0] (port 1): param.mdts differs (running 0, file 3); "
				    "remove the port and add it anew");
	teardown();
	json_decref(changes);
}

static void removed_host_and_port_disconnect_on_reload(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&F), 0);
	struct nvmf_subsys_config *s = fx_cfg_subsys(&Next, FX_SUBNQN, "nqn.h:only-this-one", 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, 1u << 20, 4096);
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(change(changes, 0),
			       "subsystem " FX_SUBNQN ": host nqn.h:only-this-one allowed");
	CU_ASSERT_STRING_EQUAL(change(changes, 1), "port 1 removed (1 controllers disconnected)");
	CU_ASSERT_STRING_EQUAL(change(changes, 2), "subsystem " FX_SUBNQN ": host " FX_HOSTNQN
						   " removed (0 controllers disconnected)");
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&F));
	CU_ASSERT_EQUAL(F.tgt.n_ports, 0);
	json_decref(changes);
	teardown();
}

static void config_reload_method_names_the_file_problem(void)
{
	setup();
	struct nvmf_ctl ctl;
	memset(&ctl, 0, sizeof(ctl));
	ctl.tgt = &F.tgt;
	char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"config_reload\"}";
	char *text = nvmf_rpc_handle(nvmf_ctl_methods, &ctl, req, strlen(req));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(
		text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32003,\"message\":"
		      "\"the target was not started from a file (nothing was changed)\"}}");
	free(text);
	char path[] = "/tmp/nvmf-reload-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "{\"ports\": 7}", 12), 12);
	close(fd);
	ctl.config_path = path;
	text = nvmf_rpc_handle(nvmf_ctl_methods, &ctl, req, strlen(req));
	char want[256];
	snprintf(want, sizeof(want),
		 "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":"
		 "\"%s: ports: expected an array, got 7 (nothing was changed)\"}}",
		 path);
	CU_ASSERT_STRING_EQUAL(text, want);
	free(text);
	unlink(path);
	teardown();
}

/* A config_reload refused over the control socket is logged as a refused SIGHUP is,
 * with the reason, not only answered to the client that asked. */
static void refused_config_reload_is_logged_with_its_reason(void)
{
	setup();
	struct nvmf_ctl ctl;
	memset(&ctl, 0, sizeof(ctl));
	ctl.tgt = &F.tgt;
	char path[] = "/tmp/nvmf-reload-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "{\"ports\": 7}", 12), 12);
	close(fd);
	ctl.config_path = path;
	char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"config_reload\"}";
	struct fx_stderr out;
	fx_stderr_begin(&out);
	char *text = nvmf_rpc_handle(nvmf_ctl_methods, &ctl, req, strlen(req));
	fx_stderr_end(&out);
	CU_ASSERT_PTR_NOT_NULL(strstr(text ? text : "", "\"code\":-32602"));
	free(text);
	char want[256];
	snprintf(want, sizeof(want),
		 "nvmf-target: control: error: reload (control socket): %s: ports: expected an "
		 "array, got 7 (nothing was changed)\n",
		 path);
	CU_ASSERT_STRING_EQUAL(out.text, want);
	unlink(path);
	teardown();
}

/* A reload reads the file with the loader's rules: an allowed host without its hosts[]
 * entry (where its key would be) refuses the whole reload, naming both, and the target
 * stays as it was. */
static void reload_refuses_an_allowed_host_without_a_hosts_entry(void)
{
	setup();
	struct nvmf_ctl ctl;
	memset(&ctl, 0, sizeof(ctl));
	ctl.tgt = &F.tgt;
	char path[] = "/tmp/nvmf-reload-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	static const char doc[] =
		"{\"hosts\": [{\"nqn\": \"nqn.h:tpyo\", \"dhchap\": {\"key\": "
		"\"DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:\"}}],"
		" \"subsystems\": [{\"nqn\": \"" FX_SUBNQN
		"\", \"allowed_hosts\": [\"nqn.h:typo\"]}]}";
	CU_ASSERT_EQUAL(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	ctl.config_path = path;
	size_t allowed = subsys(FX_SUBNQN)->cfg->n_allowed_hosts;
	json_t *changes = json_array();
	char err[1024] = "", want[1024];
	CU_ASSERT_EQUAL(nvmf_ctl_reload(&ctl, changes, false, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: subsystems[0].allowed_hosts[0]: host \"nqn.h:typo\" of subsystem " FX_SUBNQN
		 " has no hosts[] entry (nvmetcli: an allowed host must exist; were one of the "
		 "NQNs mistyped, the host would connect without the key of its entry)",
		 path);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	CU_ASSERT_EQUAL(subsys(FX_SUBNQN)->cfg->n_allowed_hosts, allowed);
	CU_ASSERT_EQUAL(F.tgt.cfg->n_dhchap, 0);
	json_decref(changes);
	unlink(path);
	teardown();
}

/* A file namespace: nvmf_size_bytes below the file's size serves the whole file, at
 * start-up and on every reload; a reload never cuts the file; growing takes nvmf_create. */
static void reload_never_cuts_a_file_namespace(void)
{
	char dir[] = "/tmp/nvmf-rfile-XXXXXX", path[64];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ns.img", dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, 8 << 20) == 0);
	close(fd);
	memset(&F, 0, sizeof(F));
	struct nvmf_subsys_config *rs = fx_cfg_subsys(&F.cfg, FX_SUBNQN, FX_HOSTNQN, 4);
	struct nvmf_ns_config *rn = fx_cfg_ns(rs, 1, NVMF_BACKEND_FILE, 1 << 20, 512);
	rn->path = strdup(path);
	rn->buffered = true;
	fx_cfg_expose(fx_cfg_loop_port(&F.cfg, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	CU_ASSERT_EQUAL_FATAL(fx_boot(&F, "127.0.0.1", "4420"), 0);
	memset(&Next, 0, sizeof(Next));
	Next.target = F.cfg.target;
	struct nvmf_ns *ns = nvmf_subsys_ns(subsys(FX_SUBNQN), 1);
	CU_ASSERT_EQUAL(nvmf_ns_nlb(ns), (8u << 20) / 512); /* the whole file */
	struct nvmf_subsys_config *s = fx_cfg_subsys(&Next, FX_SUBNQN, FX_HOSTNQN, 4);
	struct nvmf_ns_config *n = fx_cfg_ns(s, 1, NVMF_BACKEND_FILE, 1 << 20, 512);
	n->path = strdup(path);
	n->buffered = true;
	fx_cfg_expose(fx_cfg_loop_port(&Next, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	json_t *changes = json_array();
	char err[512] = "";
	struct stat st;
	/* The same file: nothing. A value still below the file: only the config. */
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	n->size_bytes = 2 << 20;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 8 << 20);
	CU_ASSERT_EQUAL(nvmf_ns_nlb(ns), (8u << 20) / 512);
	/* Above the file: refused without nvmf_create, grown with it. */
	n->size_bytes = 16 << 20;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "subsystem " FX_SUBNQN
				    ", namespace 1: the file is 8388608 bytes, smaller "
				    "than nvmf_size_bytes 16777216 (set nvmf_create to grow it)");
	CU_ASSERT_EQUAL(subsys(FX_SUBNQN)->cfg->ns[0].size_bytes, 2u << 20); /* nothing changed */
	n->create = true; /* a one-time instruction, not how it is backed: no difference */
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(change(changes, 0),
			       "subsystem " FX_SUBNQN ": namespace 1 resized to 16777216 bytes");
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 16 << 20);
	json_decref(changes);
	teardown();
	unlink(path);
	rmdir(dir);
}

/* New DH-HMAC-CHAP keys apply from the next Connect; a connected controller keeps its own. */
static void host_keys_reloaded_apply_to_the_next_connect(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(fx_connect_admin(&F), 0);
	CU_ASSERT_PTR_NULL(fx_ctrl(&F)->auth);
	same_as_running();
	Next.dhchap = calloc(1, sizeof(*Next.dhchap));
	CU_ASSERT_PTR_NOT_NULL_FATAL(Next.dhchap);
	Next.n_dhchap = 1;
	Next.dhchap[0].hostnqn = strdup(FX_HOSTNQN);
	Next.dhchap[0].key = strdup("DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:");
	Next.dhchap[0].dhgroup = strdup("ffdhe2048");
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 1);
	CU_ASSERT_STRING_EQUAL(
		change(changes, 0),
		"hosts: DH-HMAC-CHAP settings changed (used from the next authentication)");
	CU_ASSERT_PTR_NULL(fx_ctrl(&F)->auth); /* the live controller is not touched */
	CU_ASSERT_PTR_NOT_NULL_FATAL(F.tgt.host_auth);
	CU_ASSERT_EQUAL(F.tgt.host_auth->dhgroup_id, 1);
	CU_ASSERT_EQUAL(F.tgt.cfg->n_dhchap, 1); /* what config save writes */
	/* The next association must authenticate. */
	struct fxq q;
	struct nvme_cqe cqe;
	fx_queue_init(&F, &q);
	CU_ASSERT_EQUAL(fx_connect(&q, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 5000, NULL, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32) >> 16, 2); /* AUTHREQ.ATR */
	/* The same file again changes nothing, nor does the default hash written out. */
	json_array_clear(changes);
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	Next.dhchap[0].hash = strdup("hmac(sha256)");
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	json_decref(changes);
	teardown();
}

/* hosts[].nvmf_tls_key_compat alone changing is a TLS PSK change: applied and logged. */
static void tls_key_compat_change_is_reloaded_like_a_key_change(void)
{
	setup();
	same_as_running();
	Next.tls_keys = calloc(1, sizeof(*Next.tls_keys));
	CU_ASSERT_PTR_NOT_NULL_FATAL(Next.tls_keys);
	Next.n_tls_keys = 1;
	Next.tls_keys[0].hostnqn = strdup(FX_HOSTNQN);
	Next.tls_keys[0].key =
		strdup("NVMeTLSkey-1:01:kiHrhJ33zILJg+vFgAhNH0dubDZFYwV7vPfNX2AEFczmS22d:");
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 1);
	CU_ASSERT_FALSE(F.tgt.cfg->tls_keys[0].compat);
	json_array_clear(changes);
	Next.tls_keys[0].compat = true;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 1);
	CU_ASSERT_STRING_EQUAL(change(changes, 0),
			       "hosts: TLS PSKs changed (used from the next connection)");
	CU_ASSERT_EQUAL_FATAL(F.tgt.cfg->n_tls_keys, 1);
	CU_ASSERT_TRUE(F.tgt.cfg->tls_keys[0].compat);
	json_array_clear(changes);
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	json_decref(changes);
	teardown();
}

/* A discovery controller of FX_HOSTNQN on @q, CC.EN, Discovery Log Page Change notices
 * enabled and an AER parked in @aer. */
static void discovery_host_waiting(struct fxq *q, struct fx_cmd *aer)
{
	fx_queue_init(&F, q);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(q, 0, 31, NVMF_DISC_NQN, FX_HOSTNQN, 0xffff, 0, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(fx_enable(q), 0);
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_set_features;
	c.cdw10 = htole32(NVME_FEAT_FID_ASYNC_EVENT);
	c.cdw11 = htole32(1u << 31);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(q, &c, NULL, 0, NULL), 0);
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_async_event;
	CU_ASSERT_EQUAL_FATAL(fx_start(q, aer, &c, NULL, 0), 0);
	CU_ASSERT_FALSE(fx_done(aer));
}

/* Referrals and nvmf_target.discovery_log change live: the served port gets the file's
 * referrals, the mode is the file's, and a host connected to discovery hears of it. */
static void reload_applies_referrals_and_listing_mode_with_a_log_change_event(void)
{
	setup();
	struct fxq q;
	struct fx_cmd aer;
	discovery_host_waiting(&q, &aer);
	same_as_running();
	struct nvmf_port_config *p = &Next.ports[0];
	p->referrals = calloc(1, sizeof(*p->referrals));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->referrals);
	p->n_referrals = 1;
	strcpy(p->referrals[0].name, "r");
	strcpy(p->referrals[0].trtype, "rdma");
	p->referrals[0].adrfam = AF_INET;
	strcpy(p->referrals[0].traddr, "10.7.7.7");
	strcpy(p->referrals[0].trsvcid, "4420");
	p->referrals[0].enable = true;
	Next.target.discovery_log = NVMF_DISC_LOG_HOST_PORT;
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 2);
	CU_ASSERT_STRING_EQUAL(change(changes, 0), "port 1: referrals changed (1 configured)");
	CU_ASSERT_STRING_EQUAL(change(changes, 1), "nvmf_target.discovery_log: host-port");
	struct nvmf_port *port = nvmf_tgt_find_port(&F.tgt, 1);
	CU_ASSERT_EQUAL_FATAL(port->cfg->n_referrals, 1);
	CU_ASSERT_STRING_EQUAL(port->cfg->referrals[0].traddr, "10.7.7.7");
	CU_ASSERT_PTR_NOT_EQUAL(port->cfg->referrals, p->referrals); /* the port's own copy */
	CU_ASSERT_EQUAL(F.tgt.cfg->target.discovery_log, NVMF_DISC_LOG_HOST_PORT);
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_TRUE_FATAL(fx_done(&aer));
	CU_ASSERT_EQUAL(le32toh(aer.cqe.result.u32), 0x0070f002u);
	/* The same file again changes nothing. */
	json_array_clear(changes);
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	json_decref(changes);
	teardown();
}

/* nvmf_target.log_level changes live: a component the file now names takes its level,
 * one it no longer names goes back to info, one set live and untouched by the file stays. */
static void reload_applies_changed_log_levels(void)
{
	setup();
	same_as_running();
	nvmf_log_level_set(&F.tgt, NVMF_LOGC_RDMA, NVMF_LOG_ERROR);     /* set live */
	F.tgt.cfg->target.log_level[NVMF_LOGC_AUTH] = NVMF_LOG_WARNING; /* as if loaded */
	nvmf_log_level_set(&F.tgt, NVMF_LOGC_AUTH, NVMF_LOG_WARNING);
	Next.target.log_level[NVMF_LOGC_TCP] = NVMF_LOG_DEBUG;
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 2);
	CU_ASSERT_STRING_EQUAL(change(changes, 0), "nvmf_target.log_level: tcp debug");
	CU_ASSERT_STRING_EQUAL(change(changes, 1), "nvmf_target.log_level: auth info");
	CU_ASSERT_EQUAL(nvmf_log_level_get(&F.tgt, NVMF_LOGC_TCP), NVMF_LOG_DEBUG);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&F.tgt, NVMF_LOGC_AUTH), NVMF_LOG_INFO);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&F.tgt, NVMF_LOGC_RDMA), NVMF_LOG_ERROR);
	json_decref(changes);
	teardown();
}

/* Started with --log-level error (log_level_base): a component the file no longer names
 * goes back to that level, not to info. */
static void reload_returns_an_unnamed_component_to_the_command_line_level(void)
{
	setup();
	same_as_running();
	F.tgt.cfg->target.log_level_base_set = true;
	F.tgt.cfg->target.log_level_base = NVMF_LOG_ERROR;
	F.tgt.cfg->target.log_level[NVMF_LOGC_AUTH] = NVMF_LOG_DEBUG; /* as if loaded */
	nvmf_log_level_set(&F.tgt, NVMF_LOGC_AUTH, NVMF_LOG_DEBUG);
	Next.target.log_level[NVMF_LOGC_AUTH] = -1;
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(change(changes, 0), "nvmf_target.log_level: auth error");
	CU_ASSERT_EQUAL(nvmf_log_level_get(&F.tgt, NVMF_LOGC_AUTH), NVMF_LOG_ERROR);
	json_decref(changes);
	teardown();
}

/* nvmf_target.discovery_kato changes live for discovery controllers that connect from
 * then on; one already connected keeps the timeout it got. */
static void reload_changes_discovery_kato_of_later_discovery_controllers(void)
{
	setup();
	struct fxq q1, q2;
	fx_queue_init(&F, &q1);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&q1, 0, 31, NVMF_DISC_NQN, FX_HOSTNQN, 0xffff, 0, NULL, NULL), 0);
	struct nvmf_tgt_ctrl *first = F.tgt.ctrls;
	CU_ASSERT_EQUAL_FATAL(first->kato_ms, 120000);
	same_as_running();
	Next.target.discovery_kato = 9;
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_array_size(changes), 1);
	CU_ASSERT_STRING_EQUAL(
		change(changes, 0),
		"nvmf_target.discovery_kato: 9 s (discovery controllers connecting from now on)");
	fx_queue_init(&F, &q2);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&q2, 0, 31, NVMF_DISC_NQN, FX_HOSTNQN, 0xffff, 0, NULL, NULL), 0);
	CU_ASSERT_TRUE(F.tgt.ctrls->kato_ms == 9000 || F.tgt.ctrls->next->kato_ms == 9000);
	CU_ASSERT_EQUAL(first->kato_ms, 120000);
	json_decref(changes);
	teardown();
}

/* resv.enable as nvmet's resv_enable: refused on an enabled namespace, taken by a
 * disabled one from its next enable (then Identify shows RESCAP). */
static void resv_enable_changes_only_on_a_disabled_namespace(void)
{
	char err[512] = "";
	json_t *changes = json_array();
	setup();
	same_as_running()->ns[0].resv_enable = true;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err,
		"subsystems[0].namespaces[0] (" FX_SUBNQN ", nsid 1): resv.enable differs "
		"on an enabled namespace; disable it first (a reload with enable 0), or remove "
		"the namespace and add it anew");
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(FX_SUBNQN), 1)->resv);
	nvmf_config_free(&Next);
	memset(&Next, 0, sizeof(Next));
	Next.target = F.cfg.target;

	/* Disabled first, then on with reservations. */
	same_as_running()->ns[0].enable = false;
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	Next.subsystems[0].ns[0].enable = true;
	Next.subsystems[0].ns[0].resv_enable = true;
	json_array_clear(changes);
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(change(changes, 0),
			       "subsystem " FX_SUBNQN ": namespace 1: reservations on");
	CU_ASSERT_STRING_EQUAL(change(changes, 1), "subsystem " FX_SUBNQN ": namespace 1 enabled");
	CU_ASSERT_PTR_NOT_NULL(nvmf_subsys_ns(subsys(FX_SUBNQN), 1)->resv);
	CU_ASSERT_TRUE(subsys(FX_SUBNQN)->cfg->ns[0].resv_enable);
	json_decref(changes);
	teardown();
}

static void resv_enable_change_is_undone_with_a_failed_reload(void)
{
	char err[512] = "";
	json_t *changes = json_array();
	setup();
	struct nvmf_subsys_config *s = same_as_running();
	char ignored[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_enable(&F.tgt, subsys(FX_SUBNQN), 1, false, ignored,
						 sizeof(ignored)),
			      1);
	s->ns[0].enable = false;
	s->ns[0].resv_enable = true;
	struct nvmf_subsys_config *n = fx_cfg_subsys(&Next, NEW_NQN, NULL, 4);
	fx_cfg_ns(n, 1, NVMF_BACKEND_FILE, 0, 512)->path = strdup("/nonexistent/reload/ns.img");
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EIO);
	CU_ASSERT_FALSE(subsys(FX_SUBNQN)->cfg->ns[0].resv_enable);
	json_decref(changes);
	teardown();
}

/* The file's nsids [1,2,3,4], 3 and 4 new, 4 on a missing file: named by its index in
 * the file (3, not 1 of the two added), as the loader names it at start. */
static void refused_new_namespace_is_named_by_its_index_in_the_file(void)
{
	setup();
	struct nvmf_subsys_config *s = same_as_running();
	fx_cfg_ns(s, 3, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_ns(s, 4, NVMF_BACKEND_FILE, 0, 512)->path = strdup("/nonexistent/reload/ns4.img");
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EIO);
	CU_ASSERT_STRING_EQUAL(err, "subsystems[0].namespaces[3] (subsystem " FX_SUBNQN
				    ", namespace 4): "
				    "/nonexistent/reload/ns4.img: No such file or directory");
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(subsys(FX_SUBNQN), 3)); /* all or none */
	CU_ASSERT_EQUAL(subsys(FX_SUBNQN)->cfg->n_ns, 2);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	json_decref(changes);
	teardown();
}

/* The config keeps 0, -1 or "" for a default; the file writing out the value that stands
 * for is no change (issue 14: param.nvmf_maxh2cdata 131072 on a port loaded without it). */
static void defaults_written_out_change_nothing(void)
{
	setup();
	struct nvmf_subsys *run = subsys(FX_SUBNQN);
	CU_ASSERT_EQUAL_FATAL(F.tgt.ports[0]->cfg->maxh2cdata, 0); /* loaded without the key */
	struct nvmf_subsys_config *s = same_as_running();
	Next.ports[0].maxh2cdata = NVMF_DEFAULT_MAXH2CDATA;
	Next.ports[0].max_queue_size = UINT32_MAX; /* "-1" */
	Next.ports[0].inline_data_size = UINT32_MAX;
	s->version = NVMF_DEFAULT_VERSION; /* "2.0" */
	s->cntlid_min = 0;
	s->cntlid_max = 0;
	snprintf(s->serial, sizeof(s->serial), "%.16s", run->serial); /* the derived serial */
	s->ns[1].block_size = 0;                                      /* the device's: 4096 */
	s->ns[0].has_uuid = true;                                     /* the derived UUID */
	nvmf_ns_derived_uuid(FX_SUBNQN, 1, s->ns[0].uuid);
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	json_decref(changes);
	teardown();
}

/* A real change of a defaulted setting is refused, both values in effect named. */
static void changed_default_is_refused_with_both_values(void)
{
	char err[512] = "";
	json_t *changes = json_array();

	setup();
	same_as_running();
	Next.ports[0].maxh2cdata = 65536;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(
		err,
		"ports[0] (port 1): param.nvmf_maxh2cdata differs (running 131072, file 65536); "
		"remove the port and add it anew");
	CU_ASSERT_EQUAL(F.tgt.ports[0]->cfg->maxh2cdata, 0);
	teardown();

	setup();
	same_as_running()->version = 0x00010300;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err,
			       "subsystems[0] (" FX_SUBNQN
			       "): attr.version differs (running 2.0, file 1.3); "
			       "a served subsystem keeps its identity (remove it and add it anew)");
	teardown();

	setup();
	struct nvmf_subsys_config *s = same_as_running();
	s->ns[0].has_uuid = true;
	memset(s->ns[0].uuid, 0x11, 16);
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "subsystems[0].namespaces[0] (" FX_SUBNQN
				    ", nsid 1): device.uuid differs; "
				    "remove the namespace and add it anew");
	teardown();
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	json_decref(changes);
}

/* A reload that would close a file namespace whose backing file was deleted (the file
 * no longer names it) is refused naming it, nothing changed; forced, it goes through. */
static void reload_closing_a_deleted_file_is_refused_unless_forced(void)
{
	setup();
	same_as_running();
	char dir[] = "/tmp/nvmf-rlgone-XXXXXX", img[96], err[768] = "", want[768];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/ns.img", dir);
	struct nvmf_ns_config nc = { .nsid = 5,
				     .enable = true,
				     .path = img,
				     .kind = NVMF_BACKEND_FILE,
				     .size_bytes = 1u << 20,
				     .create = true,
				     .buffered = true };
	uint32_t nsid;
	struct nvmf_subsys *s = subsys(FX_SUBNQN);
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_add(&F.tgt, s, &nc, 1, &nsid, err, sizeof(err)), 0);
	struct nvmf_ns *ns = nvmf_subsys_ns(s, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
	CU_ASSERT_EQUAL_FATAL(unlink(img), 0);
	json_t *changes = json_array();
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EBUSY);
	snprintf(want, sizeof(want),
		 "subsystem " FX_SUBNQN ", namespace 5: its backing file %s has been deleted; "
		 "closing it discards its data: restore it (e.g. ln /proc/%d/fd/%d %s) or pass "
		 "--force",
		 img, (int)getpid(), ns->bdev->fd, img);
	CU_ASSERT_STRING_EQUAL(err, want);
	CU_ASSERT_PTR_EQUAL(nvmf_subsys_ns(s, 5), ns);
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, true, changes, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(nvmf_subsys_ns(s, 5));
	json_decref(changes);
	rmdir(dir);
	teardown();
}

static void changed_nvmf_gateway_is_refused_it_takes_a_restart(void)
{
	setup();
	same_as_running();
	fx_cfg_gateway(&F.cfg.gateway, 10, false);
	fx_cfg_gateway(&Next.gateway, 10, false);
	Next.gateway.lease_seconds = 20;
	json_t *changes = json_array();
	char err[512] = "";
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "nvmf_gateway.lease_seconds differs from the running target's; "
				    "the gateway group's settings take a restart");
	Next.gateway.enable = false;
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "nvmf_gateway differs from the running target's; the gateway "
				    "group's settings take a restart");
	CU_ASSERT_EQUAL(json_array_size(changes), 0);
	/* The same section: reloaded as any file. */
	fx_cfg_gateway(&Next.gateway, 10, false);
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	json_decref(changes);
	teardown();
}

static void reload_keeps_the_state_the_gateway_gave_a_shared_group(void)
{
	setup();
	fx_cfg_gateway(&F.cfg.gateway, 10, false);
	fx_cfg_gateway(&Next.gateway, 10, false);
	struct nvmf_port *port = nvmf_tgt_find_port(&F.tgt, 1);
	char err[512] = "";
	/* The gateway holds group 2: optimized here. */
	CU_ASSERT_EQUAL(nvmf_tgt_ana_state_set(&F.tgt, port, 2, NVME_ANA_STATE_OPTIMIZED, err,
					       sizeof(err)),
			1);
	struct nvmf_subsys_config *s = fx_cfg_subsys(&Next, FX_SUBNQN, FX_HOSTNQN, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, 1u << 20, 4096);
	struct nvmf_port_config *p = fx_cfg_loop_port(&Next, 1, AF_INET, "0.0.0.0", "4420");
	fx_cfg_expose(p, FX_SUBNQN);
	/* The file: group 2 non-optimized (not its say), group 3 inaccessible (its say). */
	p->ana_groups = calloc(2, sizeof(*p->ana_groups));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->ana_groups);
	p->ana_groups[0] = (struct nvmf_ana_group_config){ 2, NVME_ANA_STATE_NONOPTIMIZED };
	p->ana_groups[1] = (struct nvmf_ana_group_config){ 3, NVME_ANA_STATE_NONOPTIMIZED };
	p->n_ana_groups = 2;
	json_t *changes = json_array();
	CU_ASSERT_EQUAL(nvmf_tgt_reload(&F.tgt, &Next, false, changes, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(port->ana_state[2], NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_EQUAL(port->ana_state[3], NVME_ANA_STATE_NONOPTIMIZED);
	CU_ASSERT_EQUAL(nvmf_port_config_ana_state(port->cfg, 2), NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_EQUAL(json_array_size(changes), 1);
	CU_ASSERT_STRING_EQUAL(change(changes, 0), "port 1: ANA group 3 non-optimized (was "
						   "inaccessible)");
	json_decref(changes);
	teardown();
}

const struct unit_test reload_tests[] = {
	{ "changed_nvmf_gateway_is_refused_it_takes_a_restart",
	  changed_nvmf_gateway_is_refused_it_takes_a_restart },
	{ "reload_keeps_the_state_the_gateway_gave_a_shared_group",
	  reload_keeps_the_state_the_gateway_gave_a_shared_group },
	{ "refused_reload_deletes_the_file_it_created",
	  refused_reload_deletes_the_file_it_created },
	{ "reload_closing_a_deleted_file_is_refused_unless_forced",
	  reload_closing_a_deleted_file_is_refused_unless_forced },
	{ "reload_applies_referrals_and_listing_mode_with_a_log_change_event",
	  reload_applies_referrals_and_listing_mode_with_a_log_change_event },
	{ "reload_changes_discovery_kato_of_later_discovery_controllers",
	  reload_changes_discovery_kato_of_later_discovery_controllers },
	{ "reload_applies_changed_log_levels", reload_applies_changed_log_levels },
	{ "resv_enable_changes_only_on_a_disabled_namespace",
	  resv_enable_changes_only_on_a_disabled_namespace },
	{ "resv_enable_change_is_undone_with_a_failed_reload",
	  resv_enable_change_is_undone_with_a_failed_reload },
	{ "tls_key_compat_change_is_reloaded_like_a_key_change",
	  tls_key_compat_change_is_reloaded_like_a_key_change },
	{ "host_keys_reloaded_apply_to_the_next_connect",
	  host_keys_reloaded_apply_to_the_next_connect },
	{ "reload_never_cuts_a_file_namespace", reload_never_cuts_a_file_namespace },
	{ "same_file_changes_nothing", same_file_changes_nothing },
	{ "difference_is_applied_and_connected_hosts_stay",
	  difference_is_applied_and_connected_hosts_stay },
	{ "failing_step_leaves_everything_as_it_was", failing_step_leaves_everything_as_it_was },
	{ "refused_new_namespace_is_named_by_its_index_in_the_file",
	  refused_new_namespace_is_named_by_its_index_in_the_file },
	{ "refused_reload_does_not_log_a_staged_namespace_as_closed_after_commands",
	  refused_reload_does_not_log_a_staged_namespace_as_closed_after_commands },
	{ "refused_reload_says_at_debug_that_the_staged_namespace_was_discarded",
	  refused_reload_says_at_debug_that_the_staged_namespace_was_discarded },
	{ "what_cannot_change_live_is_refused_by_name",
	  what_cannot_change_live_is_refused_by_name },
	{ "defaults_written_out_change_nothing", defaults_written_out_change_nothing },
	{ "changed_default_is_refused_with_both_values",
	  changed_default_is_refused_with_both_values },
	{ "removed_host_and_port_disconnect_on_reload",
	  removed_host_and_port_disconnect_on_reload },
	{ "config_reload_method_names_the_file_problem",
	  config_reload_method_names_the_file_problem },
	{ "refused_config_reload_is_logged_with_its_reason",
	  refused_config_reload_is_logged_with_its_reason },
	{ "reload_returns_an_unnamed_component_to_the_command_line_level",
	  reload_returns_an_unnamed_component_to_the_command_line_level },
	{ "reload_refuses_an_allowed_host_without_a_hosts_entry",
	  reload_refuses_an_allowed_host_without_a_hosts_entry },
	{ NULL, NULL },
};
