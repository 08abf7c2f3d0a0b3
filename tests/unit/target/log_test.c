/* The target's log (target/log.c): each line names its component, warnings and errors
 * say so after it, and each component is kept or dropped by its own level; a file's
 * NVMF_LOG_COMPONENT picks the component of its nvmf_log() lines. */
#define NVMF_LOG_COMPONENT NVMF_LOGC_BACKEND /* this file's lines, as a backend's would be */
#include <string.h>
#include "target/core.h"
#include "target/log.h"
#include "target/namespace.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

static void line_names_its_component_then_its_severity(void)
{
	struct nvmf_tgt tgt;
	memset(&tgt, 0, sizeof(tgt));
	nvmf_log_level_set_all(&tgt, NVMF_LOG_INFO);
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_log_at(&tgt, NVMF_LOGC_TCP, NVMF_LOG_WARNING, "queue %u: %s", 3u, "slow");
	nvmf_log_at(&tgt, NVMF_LOGC_AUTH, NVMF_LOG_ERROR, "failed");
	nvmf_log_at(&tgt, NVMF_LOGC_CONTROL, NVMF_LOG_INFO, "port 1 removed");
	nvmf_log(&tgt, NVMF_LOG_INFO, "from this file");
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text, "nvmf-target: tcp: warning: queue 3: slow\n"
					 "nvmf-target: auth: error: failed\n"
					 "nvmf-target: control: port 1 removed\n"
					 "nvmf-target: backend: from this file\n");
}

/* A name a request or a host gave is logged as it came: a key given in its place is not. */
static void secret_in_a_logged_name_is_replaced(void)
{
	struct nvmf_tgt tgt;
	memset(&tgt, 0, sizeof(tgt));
	nvmf_log_level_set_all(&tgt, NVMF_LOG_INFO);
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_log_at(&tgt, NVMF_LOGC_CONTROL, NVMF_LOG_INFO, "subsystem %s: host %s allowed",
		    "nqn.s:a", "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:");
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text,
			       "nvmf-target: control: subsystem nqn.s:a: host <secret> allowed\n");
}

static void each_component_keeps_its_own_level(void)
{
	struct nvmf_tgt tgt;
	memset(&tgt, 0, sizeof(tgt));
	nvmf_log_level_set_all(&tgt, NVMF_LOG_WARNING);
	CU_ASSERT_EQUAL(nvmf_log_level_set(&tgt, NVMF_LOGC_RDMA, NVMF_LOG_DEBUG), NVMF_LOG_WARNING);
	CU_ASSERT_TRUE(nvmf_log_on(&tgt, NVMF_LOGC_RDMA, NVMF_LOG_DEBUG));
	CU_ASSERT_FALSE(nvmf_log_on(&tgt, NVMF_LOGC_TCP, NVMF_LOG_INFO));
	CU_ASSERT_FALSE(nvmf_log_on(&tgt, NVMF_LOGC_COUNT, NVMF_LOG_ERROR));
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_log_at(&tgt, NVMF_LOGC_TCP, NVMF_LOG_INFO, "dropped");
	nvmf_log_at(&tgt, NVMF_LOGC_RDMA, NVMF_LOG_DEBUG, "kept");
	nvmf_log_at(&tgt, NVMF_LOGC_CORE, NVMF_LOG_DEBUG, "dropped too");
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text, "nvmf-target: rdma: kept\n");
}

static void config_levels_apply_only_where_named(void)
{
	struct nvmf_tgt tgt;
	memset(&tgt, 0, sizeof(tgt));
	nvmf_log_level_set_all(&tgt, NVMF_LOG_ERROR);
	struct nvmf_target_config t;
	nvmf_config_target_defaults(&t);
	t.log_level[NVMF_LOGC_AUTH] = NVMF_LOG_DEBUG;
	nvmf_log_level_apply(&tgt, &t);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&tgt, NVMF_LOGC_AUTH), NVMF_LOG_DEBUG);
	CU_ASSERT_EQUAL(nvmf_log_level_get(&tgt, NVMF_LOGC_CORE), NVMF_LOG_ERROR);
}

/* A backend's notes from its open become one backend line each. */
static void backend_notes_are_logged_one_line_each(void)
{
	struct nvmf_tgt tgt;
	memset(&tgt, 0, sizeof(tgt));
	nvmf_log_level_set_all(&tgt, NVMF_LOG_INFO);
	struct nvmf_bdev b;
	memset(&b, 0, sizeof(b));
	nvmf_bdev_note(&b, "/f: file in memory (tmpfs): reads and writes served inline");
	nvmf_bdev_note(&b, "/f: second");
	struct nvmf_ns ns;
	memset(&ns, 0, sizeof(ns));
	ns.bdev = &b;
	struct fx_stderr out;
	fx_stderr_begin(&out);
	nvmf_ns_log_notes(&tgt, &ns);
	nvmf_log_level_set(&tgt, NVMF_LOGC_BACKEND, NVMF_LOG_WARNING);
	nvmf_ns_log_notes(&tgt, &ns); /* info: dropped at warning */
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text,
			       "nvmf-target: backend: /f: file in memory (tmpfs): reads and "
			       "writes served inline\nnvmf-target: backend: /f: second\n");
}

const struct unit_test log_tests[] = {
	{ "backend_notes_are_logged_one_line_each", backend_notes_are_logged_one_line_each },
	{ "line_names_its_component_then_its_severity",
	  line_names_its_component_then_its_severity },
	{ "secret_in_a_logged_name_is_replaced", secret_in_a_logged_name_is_replaced },
	{ "each_component_keeps_its_own_level", each_component_keeps_its_own_level },
	{ "config_levels_apply_only_where_named", config_levels_apply_only_where_named },
	{ NULL, NULL },
};
