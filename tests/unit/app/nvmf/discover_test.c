/* `nvmf discover` against our discovery controller (loop host): nvme-cli's text layout
 * and JSON keys, and the one-line error with exit status 1. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

static void discover_prints_the_log_in_nvme_cli_layout(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "discover", "-a", "127.0.0.1", NULL), 0);
	CU_ASSERT_EQUAL(t.errlen, 0);
	/* the generation counter varies: compare from the entry on */
	CU_ASSERT_EQUAL(
		strncmp(t.out, "\nDiscovery Log Number of Records 2, Generation counter ", 55), 0);
	const char *entry = strstr(t.out, "=====");
	CU_ASSERT_PTR_NOT_NULL_FATAL(entry);
	/* The discovery subsystem's own entry first (subtype 3), as nvme-cli prints it. */
	CU_ASSERT_STRING_EQUAL(
		entry, "=====Discovery Log Entry 0======\n"
		       "trtype:  rdma\n"
		       "adrfam:  ipv4\n"
		       "subtype: current discovery subsystem\n"
		       "treq:    not specified, sq flow control disable supported\n"
		       "portid:  1\n"
		       "trsvcid: 4420\n"
		       "subnqn:  " NVME_DISC_SUBSYS_NAME "\n"
		       "traddr:  127.0.0.1\n"
		       "eflags:  explicit discovery connections, duplicate discovery information\n"
		       "rdma_prtype: not specified\n"
		       "rdma_qptype: connected\n"
		       "rdma_cms:    rdma-cm\n"
		       "rdma_pkey: 0x0000\n"
		       "=====Discovery Log Entry 1======\n"
		       "trtype:  rdma\n"
		       "adrfam:  ipv4\n"
		       "subtype: nvme subsystem\n"
		       "treq:    not specified, sq flow control disable supported\n"
		       "portid:  1\n"
		       "trsvcid: 4420\n"
		       "subnqn:  " LH_SUBNQN "\n"
		       "traddr:  127.0.0.1\n"
		       "eflags:  none\n"
		       "rdma_prtype: not specified\n"
		       "rdma_qptype: connected\n"
		       "rdma_cms:    rdma-cm\n"
		       "rdma_pkey: 0x0000\n");
	clit_teardown(&t);
}

static void discover_json_uses_nvme_cli_keys(void)
{
	struct clit t;
	clit_setup(&t, true, &(struct loop_host_params){ .n_subsys = 2 });
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "discover", "-a", "127.0.0.1", "--json", NULL), 0);
	json_error_t je;
	json_t *root = json_loads(t.out, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT(json_is_integer(json_object_get(root, "genctr")));
	json_t *recs = json_object_get(root, "records");
	CU_ASSERT_EQUAL_FATAL(json_array_size(recs), 3);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(json_array_get(recs, 0), "subtype")),
		"current discovery subsystem");
	json_t *r = json_array_get(recs, 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "trtype")), "rdma");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "adrfam")), "ipv4");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "subtype")), "nvme subsystem");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "treq")),
			       "not specified, sq flow control disable supported");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(r, "portid")), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "trsvcid")), "4420");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "subnqn")),
			       "nqn.2026-11.io.nvmf-rdma:lh1");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "traddr")), "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "eflags")), "none");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "rdma_prtype")),
			       "not specified");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "rdma_qptype")), "connected");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "rdma_cms")), "rdma-cm");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(r, "rdma_pkey")), 0);
	json_decref(root);
	clit_teardown(&t);
}

static void discover_refused_prints_one_error_line_and_exits_1(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "-n",
				 "nqn.2026-11.io.nvmf-rdma:nosuch", NULL),
			1);
	CU_ASSERT_EQUAL(t.outlen, 0);
	static const char want[] = "nvmf: discover at 127.0.0.1:4420: CONNECT_INVALID_PARAM "
				   "(sct 0x1, sc 0x82, DNR): ";
	CU_ASSERT_EQUAL(strncmp(t.err, want, strlen(want)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nosuch"));
	CU_ASSERT_PTR_EQUAL(strchr(t.err, '\n'), t.err + t.errlen - 1); /* one line */
	clit_teardown(&t);
}

/* --hold: the same log, then the discovery connection stays open (KATO 0, no Keep Alive
 * sent) for the time asked before the disconnect; a bad time is a usage error. */
static void discover_hold_prints_the_log_and_disconnects_after_the_time(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	time_t t0 = time(NULL);
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "discover", "-a", "127.0.0.1", "--hold", "1", NULL), 0);
	CU_ASSERT(time(NULL) - t0 >= 1);
	CU_ASSERT_EQUAL(
		strncmp(t.out, "\nDiscovery Log Number of Records 2, Generation counter ", 55), 0);
	CU_ASSERT_EQUAL(loop_host_live_ctrls(t.lh), 0);
	CU_ASSERT_EQUAL(loop_host_admin_count(t.lh, nvme_admin_keep_alive), 0);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "--hold", "0", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--hold"));
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "--hold", "x", NULL), 2);
	clit_teardown(&t);
}

/* --persistent in a thread of its own: the test changes the target meanwhile. */
struct persistent_run {
	struct clit *t;
	const char *changes; /* --changes N, NULL: until a signal */
	int rc;
};

static void *run_persistent(void *arg)
{
	struct persistent_run *r = arg;
	if (r->changes)
		r->rc = clit_run(r->t, "discover", "-a", "127.0.0.1", "--persistent", "--changes",
				 r->changes, NULL);
	else
		r->rc = clit_run(r->t, "discover", "-a", "127.0.0.1", "--persistent", NULL);
	return NULL;
}

/* Until the tool's AERs reached the target: its events are asked for then. */
static bool wait_aers(struct loop_host *lh, unsigned want)
{
	for (unsigned i = 0; i < 500 && loop_host_admin_count(lh, nvme_admin_async_event) < want;
	     i++)
		usleep(10000);
	return loop_host_admin_count(lh, nvme_admin_async_event) >= want;
}

/* --persistent: the log, then at each discovery log change event the log again with the
 * entries added and removed; Keep Alive on; --changes N ends it after N changes. */
static void discover_persistent_prints_each_change_until_the_count(void)
{
	struct clit t;
	clit_setup(&t, true, &(struct loop_host_params){ .n_ports = 2 });
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	struct persistent_run r = { .t = &t, .changes = "2" };
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, run_persistent, &r), 0);
	CU_ASSERT_FATAL(wait_aers(t.lh, 1));
	usleep(100000); /* the rest of the AERs */
	CU_ASSERT_EQUAL(loop_host_port_remove(t.lh, 2), 0);
	usleep(500000); /* printed before the next change */
	CU_ASSERT_EQUAL(loop_host_port_add(t.lh, 2), 0);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(r.rc, 0);
	CU_ASSERT_EQUAL(t.errlen, 0);
	const char *first = strstr(t.out, "Discovery log changed");
	CU_ASSERT_PTR_NOT_NULL_FATAL(first);
	CU_ASSERT_PTR_NOT_NULL(strstr(first, "removed: nvme subsystem " LH_SUBNQN
					     " at rdma 127.0.0.2:4420 (port 2)\n"));
	const char *second = strstr(first + 1, "Discovery log changed");
	CU_ASSERT_PTR_NOT_NULL_FATAL(second);
	CU_ASSERT_PTR_NOT_NULL(strstr(second, "added: nvme subsystem " LH_SUBNQN
					      " at rdma 127.0.0.2:4420 (port 2)\n"));
	CU_ASSERT_PTR_NULL(strstr(second, "removed:"));
	CU_ASSERT_PTR_NULL(strstr(second + 1, "Discovery log changed"));
	/* The connection kept itself alive and is gone. */
	CU_ASSERT_EQUAL(loop_host_live_ctrls(t.lh), 0);
	clit_teardown(&t);
}

/* SIGINT ends --persistent with status 0; bad combinations are usage errors. */
static void discover_persistent_stops_at_sigint(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	struct persistent_run r = { .t = &t };
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, run_persistent, &r), 0);
	/* Its handler is installed before it connects, so before its AERs arrive. */
	CU_ASSERT_FATAL(wait_aers(t.lh, 1));
	pthread_kill(th, SIGINT);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(r.rc, 0);
	CU_ASSERT_EQUAL(
		strncmp(t.out, "\nDiscovery Log Number of Records 2, Generation counter ", 55), 0);
	CU_ASSERT_PTR_NULL(strstr(t.out, "Discovery log changed"));
	CU_ASSERT_EQUAL(loop_host_live_ctrls(t.lh), 0);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "--persistent", "--hold", "1",
				 NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--persistent"));
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "--changes", "1", NULL), 2);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "--persistent", "--changes",
				 "0", NULL),
			2);
	clit_teardown(&t);
}

const struct unit_test cli_discover_tests[] = {
	{ "discover_persistent_prints_each_change_until_the_count",
	  discover_persistent_prints_each_change_until_the_count },
	{ "discover_persistent_stops_at_sigint", discover_persistent_stops_at_sigint },
	{ "discover_hold_prints_the_log_and_disconnects_after_the_time",
	  discover_hold_prints_the_log_and_disconnects_after_the_time },
	{ "discover_prints_the_log_in_nvme_cli_layout",
	  discover_prints_the_log_in_nvme_cli_layout },
	{ "discover_json_uses_nvme_cli_keys", discover_json_uses_nvme_cli_keys },
	{ "discover_refused_prints_one_error_line_and_exits_1",
	  discover_refused_prints_one_error_line_and_exits_1 },
	{ NULL, NULL },
};
