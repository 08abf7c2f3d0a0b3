/* `nvmf perf`: option parsing and defaults, and short runs against our target (loop
 * host) that report I/Os, latency percentiles in order, and nvme-cli-style errors. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

#define A "-a", "127.0.0.1", "-n", LH_SUBNQN

static int parse(struct cli_perf_opts *o, char **err, ...) __attribute__((sentinel));
static int parse(struct cli_perf_opts *o, char **err, ...)
{
	char *argv[32] = { "perf" };
	int argc = 1;
	va_list ap;
	va_start(ap, err);
	for (char *a; argc < 31 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	size_t len;
	FILE *f = open_memstream(err, &len);
	int rc = cli_perf_parse(argc, argv, o, f);
	fclose(f);
	return rc;
}

static void perf_defaults_are_4k_randread_qd32_one_queue_10s(void)
{
	struct cli_perf_opts o;
	char *err = NULL;
	CU_ASSERT_EQUAL(parse(&o, &err, A, NULL), 0);
	CU_ASSERT_EQUAL(o.rw, CLI_RW_RANDREAD);
	CU_ASSERT_EQUAL(o.bs, 4096);
	CU_ASSERT_EQUAL(o.qd, 32);
	CU_ASSERT_EQUAL(o.queues, 1);
	CU_ASSERT_EQUAL(o.time_s, 10);
	CU_ASSERT_EQUAL(o.mix, 70);
	CU_ASSERT_EQUAL(o.nsid, 1);
	CU_ASSERT_EQUAL(o.size, 0);
	CU_ASSERT_FALSE(o.c.json);
	free(err);
}

static void perf_parses_every_option(void)
{
	struct cli_perf_opts o;
	char *err = NULL;
	CU_ASSERT_EQUAL(parse(&o, &err, A, "-s", "4421", "--ns", "2", "--rw", "randrw", "--mix",
			      "30", "--bs", "128k", "--qd", "64", "--queues", "4", "--time", "3",
			      "--size", "1G", "--wait", "--json", NULL),
			0);
	CU_ASSERT_STRING_EQUAL(o.c.trsvcid, "4421");
	CU_ASSERT_EQUAL(o.nsid, 2);
	CU_ASSERT_EQUAL(o.rw, CLI_RW_RANDRW);
	CU_ASSERT_EQUAL(o.mix, 30);
	CU_ASSERT_EQUAL(o.bs, 128 * 1024);
	CU_ASSERT_EQUAL(o.qd, 64);
	CU_ASSERT_EQUAL(o.queues, 4);
	CU_ASSERT_EQUAL(o.time_s, 3);
	CU_ASSERT_EQUAL(o.size, 1ull << 30);
	CU_ASSERT_TRUE(o.wait);
	CU_ASSERT_TRUE(o.c.json);
	free(err);
	/* Polling without a pause unless asked. */
	err = NULL;
	CU_ASSERT_EQUAL(parse(&o, &err, A, NULL), 0);
	CU_ASSERT_FALSE(o.wait);
	free(err);
}

static void perf_rejects_bad_values_with_their_option(void)
{
	struct cli_perf_opts o;
	char *err = NULL;
	CU_ASSERT_EQUAL(parse(&o, &err, A, "--rw", "sideways", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nvmf: perf: --rw: unknown mode 'sideways' (randread, "
					   "randwrite, read, write, randrw)\n"));
	free(err);
	CU_ASSERT_EQUAL(parse(&o, &err, A, "--bs", "1000", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nvmf: perf: --bs: 1000 is not a multiple of 512"));
	free(err);
	CU_ASSERT_EQUAL(parse(&o, &err, A, "--mix", "101", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nvmf: perf: --mix: percent reads 101 is out of range "
					   "(0 to 100)\n"));
	free(err);
	CU_ASSERT_EQUAL(parse(&o, &err, A, "--qd", "0", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nvmf: perf: --qd: 0 is out of range (1 to 65535)\n"));
	free(err);
	CU_ASSERT_EQUAL(parse(&o, &err, A, "--time", "0", NULL), 2);
	free(err);
	CU_ASSERT_EQUAL(parse(&o, &err, A, "--bs", "8k", "--size", "4k", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nvmf: perf: --size is smaller than --bs\n"));
	free(err);
}

static void rw_names_round_trip(void)
{
	for (int i = CLI_RW_READ; i <= CLI_RW_RANDRW; i++) {
		enum cli_rw rw;
		CU_ASSERT_EQUAL(cli_rw_parse(cli_rw_name((enum cli_rw)i), &rw), 0);
		CU_ASSERT_EQUAL(rw, (enum cli_rw)i);
	}
	enum cli_rw rw;
	CU_ASSERT_EQUAL(cli_rw_parse("RandRead", &rw), -EINVAL);
}

static void perf_randread_json_reports_ios_and_ordered_latency(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "perf", A, "--time", "1", "--qd", "8", "--json", NULL),
			      0);
	json_t *j = json_loads(t.out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "rw")), "randread");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "bs")), 4096);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "qd")), 8);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "queues")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "errors")), 0);
	json_int_t ios = json_integer_value(json_object_get(j, "ios"));
	CU_ASSERT(ios > 0);
	CU_ASSERT_EQUAL((unsigned)ios, loop_host_io_count(t.lh, nvme_cmd_read));
	double secs = json_real_value(json_object_get(j, "time_s"));
	CU_ASSERT(secs >= 1.0 && secs < 3.0);
	double iops = json_real_value(json_object_get(j, "iops"));
	CU_ASSERT_DOUBLE_EQUAL(iops, (double)ios / secs, iops * 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(j, "mbps")), iops * 4096 / 1e6,
			       1e-3);
	json_t *lat = json_object_get(j, "lat_us");
	double p50 = json_real_value(json_object_get(lat, "p50")),
	       p99 = json_real_value(json_object_get(lat, "p99")),
	       p999 = json_real_value(json_object_get(lat, "p999")),
	       max = json_real_value(json_object_get(lat, "max")),
	       mean = json_real_value(json_object_get(lat, "mean"));
	CU_ASSERT(p50 > 0 && p50 <= p99 && p99 <= p999 && p999 <= max);
	CU_ASSERT(mean > 0 && mean <= max);
	json_decref(j);
	clit_teardown(&t);
}

static void perf_randrw_on_two_queues_reads_and_writes(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "perf", A, "--time", "1", "--queues", "2", "--rw",
				       "randrw", "--mix", "50", "--bs", "8k", NULL),
			      0);
	CU_ASSERT_EQUAL(strncmp(t.out, "randrw: bs=8192 qd=32 queues=2 ns=1 time=", 41), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, ", errors: 0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "\n  latency (us): mean "));
	CU_ASSERT(loop_host_io_count(t.lh, nvme_cmd_read) > 0);
	CU_ASSERT(loop_host_io_count(t.lh, nvme_cmd_write) > 0);
	clit_teardown(&t);
}

static void perf_sequential_write_stays_within_size(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "perf", A, "--time", "1", "--rw", "write", "--size",
				       "64k", "--qd", "4", NULL),
			      0);
	CU_ASSERT(loop_host_io_count(t.lh, nvme_cmd_write) > 16); /* wrapped around */
	/* blocks past 64 KiB are still zero */
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", A, "--offset", "64k", "--length", "4k", NULL),
			      0);
	for (size_t i = 0; i < 4096; i++)
		CU_ASSERT_EQUAL_FATAL(t.out[i], 0);
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", A, "--offset", "60k", "--length", "4k", NULL),
			      0);
	bool nonzero = false;
	for (size_t i = 0; i < 4096; i++)
		nonzero |= t.out[i] != 0;
	CU_ASSERT_TRUE(nonzero);
	clit_teardown(&t);
}

static void perf_bs_below_the_block_size_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "perf", A, "--ns", "2", "--bs", "512", "--time", "1", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: perf: --bs 512 is not a multiple of the block "
					     "size of namespace 2 (4096 bytes)\n"));
	CU_ASSERT_EQUAL(t.outlen, 0);
	clit_teardown(&t);
}

/* The well-known discovery NQN is refused before connecting, like every I/O and
 * namespace subcommand (args_test.c): the target never sees a Connect. */
static void perf_on_the_discovery_nqn_is_a_usage_error_before_connecting(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-n", NVME_DISC_SUBSYS_NAME,
				 "--time", "1", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err,
				      "nvmf: perf: -n/--nqn " NVME_DISC_SUBSYS_NAME " is the "
				      "discovery subsystem: it has no namespaces and no I/O "
				      "queues"));
	CU_ASSERT_EQUAL(loop_host_fabrics_count(t.lh, nvme_fabrics_type_connect), 0);
	CU_ASSERT_EQUAL(t.outlen, 0);
	clit_teardown(&t);
}

/* A discovery controller with its own NQN (TP 8013) is known only once connected: it
 * grants no I/O queue, and perf, read and write refuse it then, before any I/O (perf's
 * stripe per queue would divide by zero). */
static void io_on_a_discovery_controller_with_its_own_nqn_is_a_usage_error(void)
{
	static const char disc[] = "nqn.2026-11.io.nvmf-rdma:own-discovery";
	struct clit t;
	clit_setup(&t, true, &(struct loop_host_params){ .discovery_nqn = disc });
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-n", disc, "--time", "1", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err,
				      "nvmf: perf: nqn.2026-11.io.nvmf-rdma:own-discovery is "
				      "a discovery controller: it has no namespaces and no "
				      "I/O queues\n"));
	CU_ASSERT_EQUAL(t.outlen, 0);
	CU_ASSERT_EQUAL(
		clit_run(&t, "read", "-a", "127.0.0.1", "-n", disc, "--length", "512", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err,
				      "nvmf: read: nqn.2026-11.io.nvmf-rdma:own-discovery is "
				      "a discovery controller"));
	CU_ASSERT_EQUAL(t.outlen, 0);
	CU_ASSERT_EQUAL(loop_host_io_count(t.lh, nvme_cmd_read), 0);
	clit_teardown(&t);
}

static void perf_qd_beyond_the_queue_is_capped_with_a_warning(void)
{
	struct clit t;
	clit_setup(&t, true, &(struct loop_host_params){ .max_queue_size = 16 });
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "perf", A, "--qd", "64", "--time", "1", "--json", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: perf: --qd 64 capped to 15 (queue size 16)\n"));
	json_t *j = json_loads(t.out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "qd")), 15);
	json_decref(j);
	clit_teardown(&t);
}

static void *break_later(void *arg)
{
	usleep(300 * 1000);
	loop_host_break(arg);
	return NULL;
}

static void perf_lost_connection_counts_errors_and_exits_1(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, break_later, t.lh), 0);
	CU_ASSERT_EQUAL(clit_run(&t, "perf", A, "--time", "2", "--json", NULL), 1);
	pthread_join(th, NULL);
	json_t *j = json_loads(t.out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT(json_integer_value(json_object_get(j, "errors")) > 0);
	CU_ASSERT(json_integer_value(json_object_get(j, "ios")) > 0);
	json_decref(j);
	CU_ASSERT_EQUAL(strncmp(t.err, "nvmf: perf: read of 8 blocks at lba ", 36), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "(first of "));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, ": connection lost")); /* not strerror(ECONNRESET) */
	CU_ASSERT_PTR_NULL(strstr(t.err, "Connection reset by peer"));
	clit_teardown(&t);
}

static volatile sig_atomic_t stop_flag;

static void *interrupt_later(void *arg)
{
	(void)arg;
	usleep(300 * 1000);
	stop_flag = 1; /* what main's SIGINT handler does */
	return NULL;
}

static void perf_interrupted_reports_the_time_it_ran_and_exits_130(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	stop_flag = 0;
	t.interrupted = &stop_flag;
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, interrupt_later, NULL), 0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	CU_ASSERT_EQUAL(clit_run(&t, "perf", A, "--time", "30", "--qd", "8", NULL), 130);
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(th, NULL);
	/* stopped at the next check (a signal wakes it at once; a plain flag within 1 s) */
	CU_ASSERT(b.tv_sec - a.tv_sec < 5);
	CU_ASSERT_EQUAL(strncmp(t.out, "randread: bs=4096 qd=8 queues=1 ns=1 time=", 42), 0);
	/* the time it ran with one decimal, as a measured time (the flag is seen at the
	 * 1 s tick) */
	const char *cut = strstr(t.out, "s (interrupted after 1.");
	CU_ASSERT_PTR_NOT_NULL_FATAL(cut);
	cut += strlen("s (interrupted after 1.");
	CU_ASSERT(cut[0] >= '0' && cut[0] <= '9');
	CU_ASSERT_EQUAL(strncmp(cut + 1, " s)\n  ios: ", 11), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, ", errors: 0\n  IOPS: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "\n  latency (us): mean "));
	CU_ASSERT_PTR_NULL(strstr(t.out, "IOPS: 0,"));
	CU_ASSERT(loop_host_io_count(t.lh, nvme_cmd_read) > 0);
	CU_ASSERT_EQUAL(t.errlen, 0);

	/* --json says so too */
	stop_flag = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, interrupt_later, NULL), 0);
	CU_ASSERT_EQUAL(clit_run(&t, "perf", A, "--time", "30", "--json", NULL), 130);
	pthread_join(th, NULL);
	json_t *j = json_loads(t.out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_TRUE(json_is_true(json_object_get(j, "interrupted")));
	json_t *after = json_object_get(j, "interrupted_after_s");
	CU_ASSERT_TRUE(json_is_real(after));
	CU_ASSERT(json_real_value(after) >= 1.0 && json_real_value(after) < 2.0);
	CU_ASSERT(json_integer_value(json_object_get(j, "ios")) > 0);
	json_decref(j);

	/* a whole run says it was not */
	stop_flag = 0;
	CU_ASSERT_EQUAL(clit_run(&t, "perf", A, "--time", "1", "--json", NULL), 0);
	j = json_loads(t.out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_TRUE(json_is_false(json_object_get(j, "interrupted")));
	CU_ASSERT_PTR_NULL(json_object_get(j, "interrupted_after_s"));
	json_decref(j);
	clit_teardown(&t);
}

const struct unit_test cli_perf_tests[] = {
	{ "perf_interrupted_reports_the_time_it_ran_and_exits_130",
	  perf_interrupted_reports_the_time_it_ran_and_exits_130 },
	{ "perf_defaults_are_4k_randread_qd32_one_queue_10s",
	  perf_defaults_are_4k_randread_qd32_one_queue_10s },
	{ "perf_parses_every_option", perf_parses_every_option },
	{ "perf_rejects_bad_values_with_their_option", perf_rejects_bad_values_with_their_option },
	{ "rw_names_round_trip", rw_names_round_trip },
	{ "perf_randread_json_reports_ios_and_ordered_latency",
	  perf_randread_json_reports_ios_and_ordered_latency },
	{ "perf_randrw_on_two_queues_reads_and_writes",
	  perf_randrw_on_two_queues_reads_and_writes },
	{ "perf_sequential_write_stays_within_size", perf_sequential_write_stays_within_size },
	{ "perf_bs_below_the_block_size_is_a_usage_error",
	  perf_bs_below_the_block_size_is_a_usage_error },
	{ "perf_on_the_discovery_nqn_is_a_usage_error_before_connecting",
	  perf_on_the_discovery_nqn_is_a_usage_error_before_connecting },
	{ "io_on_a_discovery_controller_with_its_own_nqn_is_a_usage_error",
	  io_on_a_discovery_controller_with_its_own_nqn_is_a_usage_error },
	{ "perf_qd_beyond_the_queue_is_capped_with_a_warning",
	  perf_qd_beyond_the_queue_is_capped_with_a_warning },
	{ "perf_lost_connection_counts_errors_and_exits_1",
	  perf_lost_connection_counts_errors_and_exits_1 },
	{ NULL, NULL },
};
