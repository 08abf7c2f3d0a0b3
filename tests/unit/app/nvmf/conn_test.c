/* read, write and perf of the nvmf tool over several paths (-a repeated: a libnvmf
 * multipath handle, app/nvmf/conn.c) against our target with two loop ports: data
 * round trips, -v tells the paths, perf reports each path's I/Os and keeps running
 * without an error while the port it uses goes away; the multipath options' usage
 * errors. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

#define TWO "-a", "127.0.0.1", "-a", "127.0.0.2", "-n", LH_SUBNQN

static void has(const char *text, const char *what)
{
	if (!text || !strstr(text, what))
		fprintf(stderr, "output \"%s\" lacks \"%s\"\n", text ? text : "", what);
	CU_ASSERT_PTR_NOT_NULL(text ? strstr(text, what) : NULL);
}

static void write_and_read_over_two_paths_round_trip(void)
{
	struct clit t;
	clit_setup(&t, true, &(struct loop_host_params){ .n_ports = 2 });
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	uint8_t *data = malloc(3 << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	for (size_t i = 0; i < (3u << 20); i++)
		data[i] = (uint8_t)(i * 11 + (i >> 12));
	t.in = data;
	t.inlen = 3u << 20;
	CU_ASSERT_EQUAL_FATAL(
		clit_run(&t, "write", TWO, "-s", "4420", "--offset", "1m", "-v", NULL), 0);
	has(t.err, "nvmf: path 0: connected to 127.0.0.1:4420 (" LH_SUBNQN "): cntlid ");
	has(t.err, "nvmf: path 1: connected to 127.0.0.2:4420");
	has(t.err, "nvmf: multipath over 2 paths, 1 queue(s) of 127 commands\n");
	has(t.err, "  path 0 127.0.0.1:4420: live, 1 ios, 0 failed over, 0 reconnects\n");
	t.in = NULL;
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", TWO, "-s", "4420", "-s", "4420", "--offset",
				       "1m", "--length", "3m", NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, 3u << 20);
	CU_ASSERT_EQUAL(memcmp(t.out, data, 3u << 20), 0);
	CU_ASSERT_EQUAL(t.errlen, 0);
	free(data);
	clit_teardown(&t);
}

struct flap {
	struct loop_host *lh;
	int rc;
};

static void *remove_port_soon(void *arg)
{
	struct flap *f = arg;
	usleep(400 * 1000);
	f->rc = loop_host_port_remove(f->lh, 1);
	return NULL;
}

static void perf_over_two_paths_fails_over_without_errors_and_counts_each_path(void)
{
	struct clit t;
	clit_setup(&t, true, &(struct loop_host_params){ .n_ports = 2 });
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	struct flap f = { .lh = t.lh, .rc = -1 };
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, remove_port_soon, &f), 0);
	int rc = clit_run(&t, "perf", TWO, "--rw", "randwrite", "--qd", "8", "--queues", "2",
			  "--time", "2", "--size", "1m", "--refresh", "50", "--path-timeout",
			  "5000", "--json", NULL);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(f.rc, 0);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc)
		fprintf(stderr, "%s", t.err);
	json_error_t je;
	json_t *j = json_loadb(t.out, t.outlen, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "errors")), 0);
	json_t *paths = json_object_get(j, "paths");
	CU_ASSERT_EQUAL_FATAL(json_array_size(paths), 2);
	json_t *p0 = json_array_get(paths, 0), *p1 = json_array_get(paths, 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p0, "traddr")), "127.0.0.1");
	CU_ASSERT_FALSE(json_boolean_value(json_object_get(p0, "live")));
	CU_ASSERT_TRUE(json_boolean_value(json_object_get(p1, "live")));
	CU_ASSERT(json_integer_value(json_object_get(p0, "ios")) > 0); /* before */
	CU_ASSERT(json_integer_value(json_object_get(p1, "ios")) > 0); /* after */
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "ios")),
			json_integer_value(json_object_get(p0, "ios")) +
				json_integer_value(json_object_get(p1, "ios")));
	json_decref(j);
	clit_teardown(&t);
}

static void multipath_options_are_checked(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", TWO, NULL), 2);
	has(t.err, "nvmf: identify: -a/--traddr given 2 times: identify takes one path (several: "
		   "read, write, perf, ana-log)\n");
	CU_ASSERT_EQUAL(clit_run(&t, "read", TWO, "-a", "127.0.0.3", "-s", "4420", "-s", "4421",
				 "--nlb", "1", NULL),
			2);
	has(t.err, "nvmf: read: -s/--trsvcid given 2 times for 3 addresses: give it once (every "
		   "path) or once per -a, in the same order\n");
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-n", "x", "--refresh", "10", NULL),
			2);
	has(t.err, "nvmf: perf: --refresh is for several paths (-a given more than once)\n");
	CU_ASSERT_EQUAL(clit_run(&t, "perf", TWO, "--path-timeout", "0", NULL), 2);
	has(t.err, "nvmf: perf: --path-timeout: milliseconds 0 is out of range (1 to 3600000)\n");
	char *argv[40] = { "write" };
	for (int i = 0; i < 17; i++) {
		argv[1 + 2 * i] = "-a";
		argv[2 + 2 * i] = "127.0.0.1";
	}
	CU_ASSERT_EQUAL(clit_run(&t, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6],
				 argv[7], argv[8], argv[9], argv[10], argv[11], argv[12], argv[13],
				 argv[14], argv[15], argv[16], argv[17], argv[18], argv[19],
				 argv[20], argv[21], argv[22], argv[23], argv[24], argv[25],
				 argv[26], argv[27], argv[28], argv[29], argv[30], argv[31],
				 argv[32], argv[33], argv[34], NULL),
			2);
	has(t.err, "nvmf: write: -a/--traddr: at most 16 paths\n");
	clit_teardown(&t);
}

static void a_path_the_target_refuses_is_a_connect_error_naming_it(void)
{
	struct clit t;
	clit_setup(&t, true, &(struct loop_host_params){ .n_ports = 2, .n_subsys = 2 });
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	/* Same NQN on both ports: fine; an unknown one refused by the target. */
	CU_ASSERT_EQUAL(clit_run(&t, "read", "-a", "127.0.0.1", "-a", "127.0.0.2", "-n",
				 "nqn.2026-11.io.nvmf-rdma:nosuch", "--nlb", "1", NULL),
			1);
	has(t.err,
	    "nvmf: connect to 127.0.0.1:4420, 127.0.0.2:4420 (nqn.2026-11.io.nvmf-rdma:nosuch): "
	    "CONNECT_INVALID_PARAM");
	has(t.err, "path 0 (127.0.0.1:4420): ");
	clit_teardown(&t);
}

const struct unit_test cli_conn_tests[] = {
	{ "write_and_read_over_two_paths_round_trip", write_and_read_over_two_paths_round_trip },
	{ "perf_over_two_paths_fails_over_without_errors_and_counts_each_path",
	  perf_over_two_paths_fails_over_without_errors_and_counts_each_path },
	{ "multipath_options_are_checked", multipath_options_are_checked },
	{ "a_path_the_target_refuses_is_a_connect_error_naming_it",
	  a_path_the_target_refuses_is_a_connect_error_naming_it },
	{ NULL, NULL },
};
