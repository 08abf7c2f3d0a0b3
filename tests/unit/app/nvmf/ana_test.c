/* `nvmf ana-log` against our target through the ANA-playing wrapper (loop host, two
 * ports): each path's log in `nvme ana-log`'s layout or as JSON, groups only, and the
 * error line of a controller without ANA reporting or of a path that cannot be read. */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/initiator/ana_wrap.h"
#include "tests/unit/suites.h"

#define TWO "-a", "127.0.0.1", "-a", "127.0.0.2", "-n", LH_SUBNQN

static void setup(struct clit *t, const struct ana_wrap_id *id)
{
	clit_setup(t, true, &(struct loop_host_params){ .n_ports = 2 });
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->lh);
	t->transport = ana_wrap_new(t->lh, id);
}

static void has(const char *text, const char *what)
{
	if (!text || !strstr(text, what))
		fprintf(stderr, "output \"%s\" lacks \"%s\"\n", text ? text : "", what);
	CU_ASSERT_PTR_NOT_NULL(text ? strstr(text, what) : NULL);
}

static void ana_log_prints_each_paths_groups_as_nvme_cli_does(void)
{
	struct clit t;
	setup(&t, NULL);
	ana_wrap_set_state(1, 1, NVME_ANA_STATE_INACCESSIBLE);
	ana_wrap_set_group(2, 2, 0);
	CU_ASSERT_EQUAL(clit_run(&t, "ana-log", TWO, NULL), 0);
	CU_ASSERT_EQUAL(t.errlen, 0);
	has(t.out, "Asymmetric Namespace Access Log for NVMe device: 127.0.0.1:4420 (cntlid ");
	has(t.out,
	    "ANA LOG HEADER :-\nchgcnt\t:\t3\nngrps\t:\t8\nANA Log Desc :-\n"
	    "grpid\t:\t1\nnnsids\t:\t1\nchgcnt\t:\t3\nstate\t:\toptimized\n\tnsid\t:\t1\n\n"
	    "grpid\t:\t2\nnnsids\t:\t1\nchgcnt\t:\t3\nstate\t:\toptimized\n\tnsid\t:\t2\n\n");
	const char *second = strstr(t.out, "NVMe device: 127.0.0.2:4420");
	CU_ASSERT_PTR_NOT_NULL_FATAL(second);
	has(second, "grpid\t:\t1\nnnsids\t:\t1\nchgcnt\t:\t3\nstate\t:\tinaccessible\n");
	clit_teardown(&t);
}

static void ana_log_json_has_every_path_and_group(void)
{
	struct clit t;
	setup(&t, NULL);
	ana_wrap_set_state(0, 3, NVME_ANA_STATE_CHANGE);
	CU_ASSERT_EQUAL(clit_run(&t, "ana-log", TWO, "--json", NULL), 0);
	json_error_t je;
	json_t *j = json_loadb(t.out, t.outlen, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	json_t *paths = json_object_get(j, "paths");
	CU_ASSERT_EQUAL_FATAL(json_array_size(paths), 2);
	json_t *p0 = json_array_get(paths, 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p0, "traddr")), "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p0, "trsvcid")), "4420");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(p0, "chgcnt")), 2);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(p0, "ngrps")), 8);
	json_t *g = json_object_get(p0, "groups");
	CU_ASSERT_EQUAL_FATAL(json_array_size(g), 8);
	json_t *g1 = json_array_get(g, 0), *g3 = json_array_get(g, 2);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(g1, "grpid")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(g1, "nnsids")), 2);
	CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(g1, "nsids"), 1)), 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g3, "state")), "change");
	json_decref(j);
	clit_teardown(&t);
}

static void groups_only_lists_no_namespaces(void)
{
	struct clit t;
	setup(&t, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "ana-log", "-a", "127.0.0.1", "-n", LH_SUBNQN, "--groups-only",
				 NULL),
			0);
	has(t.out, "grpid\t:\t1\nnnsids\t:\t0\n");
	CU_ASSERT_PTR_NULL(strstr(t.out, "nsid\t:\t1"));
	clit_teardown(&t);
}

static void controller_without_ana_or_unreachable_path_is_an_error_line(void)
{
	struct clit t;
	setup(&t, &(struct ana_wrap_id){ .no_ana = true });
	CU_ASSERT_EQUAL(clit_run(&t, "ana-log", "-a", "127.0.0.1", "-n", LH_SUBNQN, NULL), 1);
	has(t.err, "nvmf: ana-log of 127.0.0.1:4420 (" LH_SUBNQN "): Operation not supported: the "
		   "controller does not report ANA (Identify Controller CMIC bit 3 clear)\n");
	CU_ASSERT_EQUAL(t.outlen, 0);
	clit_teardown(&t);
	/* One path of two does not answer: the other is printed, the status is 1. */
	setup(&t, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "ana-log", "-a", "127.0.0.9", "-a", "127.0.0.2", "-n",
				 LH_SUBNQN, NULL),
			1);
	has(t.err, "nvmf: connect to 127.0.0.9:4420 (" LH_SUBNQN "): Connection refused");
	has(t.out, "NVMe device: 127.0.0.2:4420");
	clit_teardown(&t);
}

const struct unit_test cli_ana_tests[] = {
	{ "ana_log_prints_each_paths_groups_as_nvme_cli_does",
	  ana_log_prints_each_paths_groups_as_nvme_cli_does },
	{ "ana_log_json_has_every_path_and_group", ana_log_json_has_every_path_and_group },
	{ "groups_only_lists_no_namespaces", groups_only_lists_no_namespaces },
	{ "controller_without_ana_or_unreachable_path_is_an_error_line",
	  controller_without_ana_or_unreachable_path_is_an_error_line },
	{ NULL, NULL },
};
