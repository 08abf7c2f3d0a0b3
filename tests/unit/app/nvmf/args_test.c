/* nvmf tool option parsing: numbers (sizes: tests/unit/util/size_test.c), the common
 * options and the messages a user gets for each mistake (exit status 2, "nvmf: CMD: what
 * is wrong"). */
#include <errno.h>
#include <string.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

static void number_outside_its_range_names_the_range(void)
{
	char err[160];
	uint64_t v;
	CU_ASSERT_EQUAL(cli_parse_u64("0", 1, 10, &v, err, sizeof(err)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "0 is out of range (1 to 10)");
	CU_ASSERT_EQUAL(cli_parse_u64("12abc", 0, 100, &v, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "'12abc' is not a number");
	CU_ASSERT_EQUAL(cli_parse_u64("0x10", 0, 100, &v, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(v, 16);
}

static void missing_traddr_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", NULL), 2);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf: discover: -a/--traddr ADDR is required\n"
				      "Try 'nvmf discover --help'.\n");
	CU_ASSERT_EQUAL(t.outlen, 0);
	clit_teardown(&t);
}

static void identify_without_nqn_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", "-a", "127.0.0.1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: identify: -n/--nqn SUBNQN is required\n"));
	clit_teardown(&t);
}

/* Every I/O and namespace subcommand refuses the well-known discovery NQN with one
 * message, before it connects (the target sees no Connect): a discovery controller has
 * no namespaces and no I/O queues, and would only answer INVALID_FIELD. */
static void io_and_namespace_commands_refuse_the_discovery_nqn_before_connecting(void)
{
	static const char *const cmds[][3] = {
		{ "read", "--length", "512" }, { "write", "--length", "512" },
		{ "perf", "--time", "1" },     { "ana-log", NULL, NULL },
		{ "identify", "--ns", "1" },
	};
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char want[256];
		t.in = "0123456789"; /* write: data it never sends */
		t.inlen = 10;
		CU_ASSERT_EQUAL(clit_run(&t, cmds[i][0], "-a", "127.0.0.1", "-n",
					 NVME_DISC_SUBSYS_NAME, cmds[i][1], cmds[i][2], NULL),
				2);
		snprintf(want, sizeof(want),
			 "nvmf: %s: -n/--nqn " NVME_DISC_SUBSYS_NAME " is the "
			 "discovery subsystem: it has no namespaces and no I/O queues; give an NVM "
			 "subsystem's NQN (`nvmf discover` lists them)\nTry 'nvmf %s --help'.\n",
			 cmds[i][0], cmds[i][0]);
		CU_ASSERT_STRING_EQUAL(t.err, want);
		CU_ASSERT_EQUAL(t.outlen, 0);
	}
	CU_ASSERT_EQUAL(loop_host_fabrics_count(t.lh, nvme_fabrics_type_connect), 0);
	clit_teardown(&t);
}

/* Identify Controller is an admin command a discovery controller answers (NVMe-oF 1.1
 * section 5.2): identify without --ns still takes the discovery NQN. */
static void identify_controller_of_the_discovery_subsystem_works(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(
		clit_run(&t, "identify", "-a", "127.0.0.1", "-n", NVME_DISC_SUBSYS_NAME, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "subnqn    : " NVME_DISC_SUBSYS_NAME "\n"));
	clit_teardown(&t);
}

/* A secret given as -q or -n is refused before anything is sent (the target sees no
 * Connect), and the message names the option without showing the secret. */
static void secret_as_hostnqn_or_nqn_is_refused_without_being_shown(void)
{
	static const char key[] = "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G0+/8=:";
	static const char psk[] =
		"NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:";
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", "-a", "127.0.0.1", "-n", "nqn.2024-01.io.x:s",
				 "-q", key, NULL),
			2);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf: identify: -q/--hostnqn: a secret (not shown) is not "
				      "an NQN; a DH-HMAC-CHAP secret goes to -S/--dhchap-secret\n"
				      "Try 'nvmf identify --help'.\n");
	CU_ASSERT_EQUAL(t.outlen, 0);
	/* inside a longer argument too */
	CU_ASSERT_EQUAL(clit_run(&t, "read", "-a", "127.0.0.1", "-n", "nqn.x:", "-q",
				 "nqn.2024-01.io.x:DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G0+/8=:",
				 "--length", "512", NULL),
			2);
	CU_ASSERT_PTR_NULL(strstr(t.err, "ab3CAVbCYQ"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "-q/--hostnqn: a secret (not shown)"));
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "-n", psk, NULL), 2);
	CU_ASSERT_STRING_EQUAL(t.err,
			       "nvmf: discover: -n/--nqn: a secret (not shown) is not an "
			       "NQN; give the subsystem's NQN\nTry 'nvmf discover --help'.\n");
	CU_ASSERT_EQUAL(loop_host_fabrics_count(t.lh, nvme_fabrics_type_connect), 0);
	clit_teardown(&t);
}

static void port_out_of_range_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "-s", "70000", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: discover: -s/--trsvcid: port 70000 is out "
					     "of range (1 to 65535)\n"));
	clit_teardown(&t);
}

static void bad_size_option_names_the_option_and_the_text(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(
		clit_run(&t, "read", "-a", "127.0.0.1", "-n", "nqn.x", "--length", "4x", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err,
				      "nvmf: read: --length '4x' is not a size (bytes: digits, "
				      "0x hex, or digits with a K, M, G, T or P suffix"));
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-n", "nqn.x", "--size",
				 "16777216t", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: perf: --size '16777216t' is too large\n"));
	clit_teardown(&t);
}

static void unknown_option_and_missing_value_are_named(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "--bogus", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: discover: unknown option '--bogus'\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "identify", "-n", "x", "-a", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: identify: option '-a' needs a value\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "stray", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: discover: unexpected argument 'stray'\n"));
	clit_teardown(&t);
}

static void transport_and_digest_options_are_checked_and_passed_on(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "-t", "fc", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: discover: -t/--transport: 'fc' is not a "
					     "transport (rdma or tcp)\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "identify", "-a", "127.0.0.1", "-n", "x", "-G", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: identify: -G/--data-digest: digests are "
					     "NVMe/TCP's: give -t tcp\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "read", "-a", "127.0.0.1", "-n", "x", "--length", "4k",
				 "--transport", "rdma", "--hdr-digest", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "-g/--hdr-digest: digests are NVMe/TCP's"));
	clit_teardown(&t);

	/* What cli_fill_opts hands to nvmf_connect. */
	struct cli_common c = {
		.traddr = "127.0.0.1", .trtype = "tcp", .hdr_digest = true, .data_digest = true
	};
	struct cli_env env = { .err = stderr };
	struct nvmf_ctrl_opts o;
	CU_ASSERT_EQUAL(cli_fill_opts(&c, &env, "identify", false, &o), CLI_OK);
	CU_ASSERT_STRING_EQUAL(o.trtype, "tcp");
	CU_ASSERT_TRUE(o.hdr_digest);
	CU_ASSERT_TRUE(o.data_digest);
	c.trtype = NULL;
	c.hdr_digest = c.data_digest = false;
	CU_ASSERT_EQUAL(cli_fill_opts(&c, &env, "identify", false, &o), CLI_OK);
	CU_ASSERT_PTR_NULL(o.trtype); /* the library's default: rdma */
	CU_ASSERT_FALSE(o.hdr_digest || o.data_digest);
	CU_ASSERT_FALSE(o.disable_sqflow);
	c.disable_sqflow = true; /* --disable-sqflow, on either transport */
	CU_ASSERT_EQUAL(cli_fill_opts(&c, &env, "identify", false, &o), CLI_OK);
	CU_ASSERT_TRUE(o.disable_sqflow);
}

/* --tls-compat says how the PSK is derived: alone it is a usage error; with a key it
 * reaches nvmf_connect as tls_compat. */
static void tls_compat_needs_a_tls_option_and_is_passed_on(void)
{
	static const char key[] =
		"NVMeTLSkey-1:01:kiHrhJ33zILJg+vFgAhNH0dubDZFYwV7vPfNX2AEFczmS22d:";
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", "-a", "127.0.0.1", "-n", "x", "-t", "tcp",
				 "--tls-compat", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: identify: --tls-compat says how the TLS PSK "
					     "is derived: give it with --tls-key-file, --tls-key "
					     "or --tls\n"));
	clit_teardown(&t);
	/* --ns is checked the same way by every command that takes it (cli_opt_nsid). */
	static const char *const ns_cmds[] = { "read", "write", "perf", "copy", "compare-write" };
	for (size_t i = 0; i < sizeof(ns_cmds) / sizeof(ns_cmds[0]); i++) {
		char want[128];
		clit_setup(&t, false, NULL);
		CU_ASSERT_EQUAL(clit_run(&t, ns_cmds[i], "-a", "127.0.0.1", "-n", "x", "--ns", "0",
					 NULL),
				2);
		snprintf(want, sizeof(want),
			 "nvmf: %s: --ns: namespace ID 0 is out of range (1 to 4294967294)\n",
			 ns_cmds[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(t.err, want));
		clit_teardown(&t);
	}
	/* --tls-identity alone would connect in the clear: a usage error too. */
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", "-a", "127.0.0.1", "-n", "x", "-t", "tcp",
				 "--tls-identity", "1", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: identify: --tls-identity says which PSK "
					     "identity the host offers: give it with "
					     "--tls-key-file, --tls-key or --tls\n"));
	clit_teardown(&t);

	struct cli_common c = { .traddr = "127.0.0.1",
				.trtype = "tcp",
				.tls = true,
				.tls_key = key,
				.tls_key_opt = "--tls-key" };
	struct cli_env env = { .err = stderr };
	struct nvmf_ctrl_opts o;
	CU_ASSERT_EQUAL(cli_fill_opts(&c, &env, "identify", false, &o), CLI_OK);
	CU_ASSERT_FALSE(o.tls_compat);
	c.tls_compat = true;
	CU_ASSERT_EQUAL(cli_fill_opts(&c, &env, "identify", false, &o), CLI_OK);
	CU_ASSERT_PTR_EQUAL(o.tls_key, key);
	CU_ASSERT_TRUE(o.tls_compat);
}

/* The timeout and reconnect options: seconds (-1 for ever for --ctrl-loss-tmo), checked,
 * refused without --ctrl-loss-tmo or with several paths, and handed on in ms. */
static void recovery_options_are_checked_and_passed_on(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "read", "-a", "127.0.0.1", "-n", "x", "--length", "4k",
				 "--io-timeout", "0", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: read: --io-timeout: seconds 0 is out of "
					     "range (1 to 86400)\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-n", "x", "--ctrl-loss-tmo", "-2",
				 NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: perf: --ctrl-loss-tmo: seconds '-2' is out of "
					     "range (1 to 86400, or -1: for ever)\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-n", "x", "--ctrl-loss-tmo", "9",
				 "--fast-io-fail-tmo", "-1", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: perf: --fast-io-fail-tmo: seconds '-1' is out "
					     "of range (0 to 86400)\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-n", "x", "--reconnect-delay", "1",
				 NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: perf: --reconnect-delay is for automatic "
					     "reconnect: give --ctrl-loss-tmo too\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-n", "x", "--fast-io-fail-tmo",
				 "1", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--fast-io-fail-tmo is for automatic reconnect"));
	CU_ASSERT_EQUAL(clit_run(&t, "perf", "-a", "127.0.0.1", "-a", "127.0.0.2", "-n", "x",
				 "--ctrl-loss-tmo", "60", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: perf: --ctrl-loss-tmo is for one path"));
	clit_teardown(&t);

	struct cli_common c = { .traddr = "127.0.0.1" };
	struct cli_env env = { .err = stderr };
	struct nvmf_ctrl_opts o;
	CU_ASSERT_EQUAL(cli_fill_opts(&c, &env, "perf", false, &o), CLI_OK);
	CU_ASSERT_EQUAL(o.io_timeout_ms, 0); /* the library's defaults */
	CU_ASSERT_EQUAL(o.ctrl_loss_tmo_ms, 0);
	c.io_timeout_s = 5;
	c.ctrl_loss_tmo_s = -1;
	c.reconnect_delay_s = 2;
	c.fast_io_fail_s = 3;
	c.fast_io_fail_given = true;
	CU_ASSERT_EQUAL(cli_fill_opts(&c, &env, "perf", false, &o), CLI_OK);
	CU_ASSERT_EQUAL(o.io_timeout_ms, 5000);
	CU_ASSERT_EQUAL(o.ctrl_loss_tmo_ms, -1);
	CU_ASSERT_EQUAL(o.reconnect_delay_ms, 2000);
	CU_ASSERT_EQUAL(o.fast_io_fail_tmo_ms, 3000);
	c.ctrl_loss_tmo_s = 600;
	c.fast_io_fail_s = 0; /* --fast-io-fail-tmo 0: at once */
	CU_ASSERT_EQUAL(cli_fill_opts(&c, &env, "perf", false, &o), CLI_OK);
	CU_ASSERT_EQUAL(o.ctrl_loss_tmo_ms, 600000);
	CU_ASSERT_EQUAL(o.fast_io_fail_tmo_ms, 1);
}

static void bad_hostid_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "-I", "not-a-uuid", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: discover: -I/--hostid: "));
	clit_teardown(&t);
}

const struct unit_test cli_args_tests[] = {
	{ "io_and_namespace_commands_refuse_the_discovery_nqn_before_connecting",
	  io_and_namespace_commands_refuse_the_discovery_nqn_before_connecting },
	{ "identify_controller_of_the_discovery_subsystem_works",
	  identify_controller_of_the_discovery_subsystem_works },
	{ "number_outside_its_range_names_the_range", number_outside_its_range_names_the_range },
	{ "missing_traddr_is_a_usage_error", missing_traddr_is_a_usage_error },
	{ "identify_without_nqn_is_a_usage_error", identify_without_nqn_is_a_usage_error },
	{ "secret_as_hostnqn_or_nqn_is_refused_without_being_shown",
	  secret_as_hostnqn_or_nqn_is_refused_without_being_shown },
	{ "port_out_of_range_is_a_usage_error", port_out_of_range_is_a_usage_error },
	{ "bad_size_option_names_the_option_and_the_text",
	  bad_size_option_names_the_option_and_the_text },
	{ "unknown_option_and_missing_value_are_named",
	  unknown_option_and_missing_value_are_named },
	{ "transport_and_digest_options_are_checked_and_passed_on",
	  transport_and_digest_options_are_checked_and_passed_on },
	{ "recovery_options_are_checked_and_passed_on",
	  recovery_options_are_checked_and_passed_on },
	{ "bad_hostid_is_a_usage_error", bad_hostid_is_a_usage_error },
	{ "tls_compat_needs_a_tls_option_and_is_passed_on",
	  tls_compat_needs_a_tls_option_and_is_passed_on },
	{ NULL, NULL },
};
