/*
 * Live changes and the config file (control/ctl-persist.c): written through by default,
 * so a reload keeps them; without nvmf_target.persist, a reload refuses while one is
 * unsaved, naming it, unless forced; a file edited on disk is never overwritten by a
 * write-through. The target is fx_setup's without its loop port (the loader takes rdma
 * and tcp ports only), started "from" a file in a temporary directory.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "control/control.h"
#include "target/model.h"
#include "tests/unit/control/ctl_fixture.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

static struct fx F;
static struct nvmf_ctl Ctl;
static char Dir[64], Path[96];

#define ADD_NS3                                                                          \
	"{\"nqn\":\"" FX_SUBNQN "\",\"namespace\":{\"nsid\":3,\"nvmf_backend\":\"ram\"," \
	"\"nvmf_size_bytes\":1048576}}"

static void setup(bool persist)
{
	ctl_setup(&F, &Ctl);
	unsigned dropped;
	char err[512];
	CU_ASSERT_EQUAL_FATAL(
		nvmf_tgt_port_remove(&F.tgt, F.tgt.ports[0], &dropped, err, sizeof(err)), 0);
	snprintf(Dir, sizeof(Dir), "/tmp/nvmf-persist-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(Dir));
	snprintf(Path, sizeof(Path), "%s/config.json", Dir);
	Ctl.config_path = Path;
	Ctl.persist = persist;
	/* The file the target "started from": its running configuration. */
	CU_ASSERT_EQUAL_FATAL(nvmf_ctl_save(&Ctl, Path, NULL, err, sizeof(err)), 0);
}

static void teardown(void)
{
	json_decref(Ctl.unsaved);
	unlink(Path);
	rmdir(Dir);
	fx_teardown(&F);
}

/* Namespaces of FX_SUBNQN the file at Path has. */
static size_t file_ns_count(void)
{
	struct nvmf_config c;
	char err[512];
	CU_ASSERT_EQUAL_FATAL(nvmf_config_load(Path, &c, err, sizeof(err)), 0);
	size_t n = c.n_subsystems ? c.subsystems[0].n_ns : 0;
	nvmf_config_free(&c);
	return n;
}

static bool served(uint32_t nsid)
{
	return nvmf_subsys_ns(nvmf_tgt_find_subsys(&F.tgt, FX_SUBNQN), nsid) != NULL;
}

static void live_change_is_written_through_and_kept_by_a_reload(void)
{
	setup(true);
	json_t *resp = ctl_call(&Ctl, "namespace_add", ADD_NS3);
	CU_ASSERT_PTR_NULL(json_object_get(ctl_result(resp), "warnings"));
	json_decref(resp);
	CU_ASSERT_EQUAL(file_ns_count(), 3);
	resp = ctl_call(&Ctl, "config_reload", "{}");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(ctl_result(resp), "changes")), 0);
	json_decref(resp);
	CU_ASSERT_TRUE(served(3));
	teardown();
}

static void without_persist_a_reload_is_refused_naming_the_change_unless_forced(void)
{
	setup(false);
	ctl_ok(&Ctl, "namespace_add", ADD_NS3);
	CU_ASSERT_EQUAL(file_ns_count(), 2); /* not written */
	char want[512];
	snprintf(want, sizeof(want),
		 "1 live change not saved to %s would be undone: namespace_add (nqn " FX_SUBNQN
		 ", nsid 3) (config save writes them to the file; a forced reload drops them) "
		 "(nothing was changed)",
		 Path);
	ctl_expect_error(&Ctl, "config_reload", "{}", NVMF_RPC_REFUSED, want);
	CU_ASSERT_TRUE(served(3));
	/* A change that changed nothing is none. */
	ctl_ok(&Ctl, "namespace_enable", "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":3}");
	CU_ASSERT_EQUAL(json_array_size(Ctl.unsaved), 1);
	/* Forced: the file is the truth, the live namespace goes. */
	json_t *resp = ctl_call(&Ctl, "config_reload", "{\"force\":true}");
	json_t *changes = json_object_get(ctl_result(resp), "changes");
	CU_ASSERT_EQUAL(json_array_size(changes), 1);
	json_decref(resp);
	CU_ASSERT_FALSE(served(3));
	ctl_ok(&Ctl, "config_reload", "{}"); /* nothing unsaved any more */
	/* Saved, it is in the file and a reload keeps it. */
	ctl_ok(&Ctl, "namespace_add", ADD_NS3);
	ctl_ok(&Ctl, "config_save", "{}");
	ctl_ok(&Ctl, "config_reload", "{}");
	CU_ASSERT_TRUE(served(3));
	teardown();
}

/* A stop with unsaved live changes says how many and which (as a refused reload names
 * them): the next start loads the file without them. Nothing when all are saved. */
static void stop_with_unsaved_changes_warns_naming_each(void)
{
	setup(false);
	struct fx_stderr c;
	fx_stderr_begin(&c);
	nvmf_ctl_warn_unsaved(&Ctl);
	fx_stderr_end(&c);
	CU_ASSERT_STRING_EQUAL(c.text, "");
	ctl_ok(&Ctl, "namespace_add", ADD_NS3);
	ctl_ok(&Ctl, "namespace_disable", "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":1}");
	fx_stderr_begin(&c);
	nvmf_ctl_warn_unsaved(&Ctl);
	fx_stderr_end(&c);
	char want[768];
	snprintf(want, sizeof(want),
		 "warning: stopping with 2 live changes not saved to %s (the next start loads "
		 "the file without them): namespace_add (nqn " FX_SUBNQN
		 ", nsid 3); namespace_disable (nqn " FX_SUBNQN
		 ", nsid 1) (config save before a stop keeps them)\n",
		 Path);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.text, want));
	if (!strstr(c.text, want))
		printf("\n%s", c.text);
	ctl_ok(&Ctl, "config_save", "{}");
	fx_stderr_begin(&c);
	nvmf_ctl_warn_unsaved(&Ctl);
	fx_stderr_end(&c);
	CU_ASSERT_STRING_EQUAL(c.text, "");
	teardown();
}

static void write_through_never_overwrites_a_file_edited_since(void)
{
	setup(true);
	FILE *f = fopen(Path, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("\n", f); /* an operator's edit */
	fclose(f);
	json_t *resp = ctl_call(&Ctl, "namespace_add", ADD_NS3);
	json_t *w = json_object_get(ctl_result(resp), "warnings");
	CU_ASSERT_EQUAL_FATAL(json_array_size(w), 1);
	const char *msg = json_string_value(json_array_get(w, 0));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(msg, "namespace_add (nqn " FX_SUBNQN ", nsid 3): not saved: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "changed on disk since the target loaded or saved it"));
	json_decref(resp);
	CU_ASSERT_EQUAL(file_ns_count(), 2);
	json_t *r = ctl_call(&Ctl, "config_reload", "{}");
	CU_ASSERT_PTR_NOT_NULL(json_object_get(r, "error"));
	json_decref(r);
	CU_ASSERT_TRUE(served(3));
	/* config save is the operator's word: it writes, and the next change goes through. */
	ctl_ok(&Ctl, "config_save", "{}");
	ctl_ok(&Ctl, "namespace_remove", "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":3}");
	CU_ASSERT_EQUAL(file_ns_count(), 2);
	CU_ASSERT_EQUAL(json_array_size(Ctl.unsaved), 0);
	teardown();
}

const struct unit_test ctl_persist_tests[] = {
	{ "live_change_is_written_through_and_kept_by_a_reload",
	  live_change_is_written_through_and_kept_by_a_reload },
	{ "without_persist_a_reload_is_refused_naming_the_change_unless_forced",
	  without_persist_a_reload_is_refused_naming_the_change_unless_forced },
	{ "write_through_never_overwrites_a_file_edited_since",
	  write_through_never_overwrites_a_file_edited_since },
	{ "stop_with_unsaved_changes_warns_naming_each",
	  stop_with_unsaved_changes_warns_naming_each },
	{ NULL, NULL },
};
