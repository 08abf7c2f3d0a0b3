/* The nvmf tool's error lines (app/nvmf/common.c): a library error is one line
 * naming what failed, the error and the library's detail; on a machine without RDMA
 * (ENODEV) it says how to reach an NVMe/TCP target instead. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/nvmf/cli.h"
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

/* What cli_lib_error(@rc, @detail) prints for "connect to 127.0.0.1:4420", into @out. */
static void printed(int rc, const char *detail, char *out, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(cli_lib_error(f, "connect to 127.0.0.1:4420", rc, detail), CLI_ERR);
	fclose(f);
	snprintf(out, len, "%s", text ? text : "");
	free(text);
}

static void no_rdma_device_error_says_to_use_tcp(void)
{
	char out[512];
	printed(-ENODEV,
		"rdma connect of queue 0 to 127.0.0.1:4420: rdma_create_event_channel: "
		"No such device (no RDMA device, or rdma_ucm not loaded?)",
		out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(
		out, "nvmf: connect to 127.0.0.1:4420: No such device: rdma connect "
		     "of queue 0 to 127.0.0.1:4420: rdma_create_event_channel: No such device "
		     "(no RDMA device, or rdma_ucm not loaded?); for NVMe/TCP use -t tcp\n");
	printed(-ENODEV, NULL, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "nvmf: connect to 127.0.0.1:4420: No such device; for NVMe/TCP "
				    "use -t tcp\n");
}

/* A detail that names the error again mid-sentence (a Connect refused with its status):
 * the error is said once, first. */
static void an_error_the_detail_names_is_said_once(void)
{
	char out[512], detail[256];
	const char *why = nvmf_strerror(-ECONNREFUSED);
	snprintf(detail, sizeof(detail), "Connect of queue 0 to nqn.s as nqn.h: %s: rejected", why);
	printed(-ECONNREFUSED, detail, out, sizeof(out));
	char want[512];
	snprintf(want, sizeof(want),
		 "nvmf: connect to 127.0.0.1:4420: %s: Connect of queue 0 to nqn.s as nqn.h: "
		 "rejected\n",
		 why);
	CU_ASSERT_STRING_EQUAL(out, want);
	/* Named at the end (no colon after it): a different sentence, printed whole. */
	snprintf(detail, sizeof(detail), "tcp connect: %s", why);
	printed(-ECONNREFUSED, detail, out, sizeof(out));
	snprintf(want, sizeof(want), "nvmf: connect to 127.0.0.1:4420: %s: tcp connect: %s\n", why,
		 why);
	CU_ASSERT_STRING_EQUAL(out, want);
}

static void other_errors_have_no_transport_hint(void)
{
	char out[512];
	printed(-ECONNREFUSED, "tcp connect to 127.0.0.1:4420", out, sizeof(out));
	CU_ASSERT_PTR_NULL(strstr(out, "-t tcp"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "nvmf: connect to 127.0.0.1:4420: "));
}

/* `nvmf` with DH-HMAC-CHAP (-S/--dhchap-secret, -C/--dhchap-ctrl-secret and their
 * $NVMF_DHCHAP_* defaults) against our target requiring it (loop host): data round trips
 * when the secrets are right; each refusal is one line naming why, exit status 1. */

#define HOST_KEY "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define CTRL_KEY "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:"
#define OTHER_KEY \
	"DHHC-1:02:z4TrAW32nxlXcjD1k2MD2dw718ixnFci6MaNJBrlNf4PCs3Moq0GL4ZsU+Gj07JrUw6SIQ==:"
#define A "-a", "127.0.0.1", "-n", LH_SUBNQN

static void setup(struct clit *t)
{
	struct loop_host_params p = { .dhchap_key = HOST_KEY,
				      .dhchap_ctrl_key = CTRL_KEY,
				      .dhchap_hash = "hmac(sha512)",
				      .dhchap_dhgroup = "ffdhe3072" };
	clit_setup(t, true, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->lh);
}

/* Exactly one line on stderr, holding @what. */
static void one_error_line(const struct clit *t, const char *what)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->err);
	if (!strstr(t->err, what))
		fprintf(stderr, "stderr \"%s\" lacks \"%s\"\n", t->err, what);
	CU_ASSERT_PTR_NOT_NULL(strstr(t->err, what));
	CU_ASSERT_PTR_NOT_NULL(strchr(t->err, '\n'));
	CU_ASSERT_EQUAL(strchr(t->err, '\n') - t->err + 1, (long)t->errlen);
	CU_ASSERT_EQUAL(strncmp(t->err, "nvmf: connect to 127.0.0.1:4420", 31), 0);
}

static void write_and_read_with_both_secrets_round_trip(void)
{
	struct clit t;
	setup(&t);
	uint8_t data[4096];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13 + 5);
	t.in = data;
	t.inlen = sizeof(data);
	CU_ASSERT_EQUAL(clit_run(&t, "write", A, "--slba", "16", "-S", HOST_KEY,
				 "--dhchap-ctrl-secret", CTRL_KEY, NULL),
			0);
	t.in = NULL;
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", A, "--slba", "16", "--nlb", "8",
				       "--dhchap-secret", HOST_KEY, "-C", CTRL_KEY, NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, sizeof(data));
	CU_ASSERT_EQUAL(memcmp(t.out, data, sizeof(data)), 0);
	clit_teardown(&t);
}

static void secrets_come_from_the_environment_when_not_given(void)
{
	struct clit t;
	setup(&t);
	t.env_secret = HOST_KEY;
	t.env_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, NULL), 0);
	CU_ASSERT_EQUAL(t.errlen, 0);
	/* An option wins over the environment. */
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, "-S", OTHER_KEY, NULL), 1);
	one_error_line(&t, "AUTH_Failure1, authentication failed");
	clit_teardown(&t);
}

static void no_secret_is_one_line_saying_authentication_is_required(void)
{
	struct clit t;
	setup(&t);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, NULL), 1);
	one_error_line(&t, "requires in-band authentication");
	CU_ASSERT_EQUAL(t.outlen, 0);
	clit_teardown(&t);
}

static void wrong_secrets_are_one_line_naming_the_side_that_failed(void)
{
	struct clit t;
	setup(&t);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, "-S", OTHER_KEY, NULL), 1);
	one_error_line(&t, "the controller refused authentication");
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, "-S", HOST_KEY, "-C", OTHER_KEY, NULL), 1);
	one_error_line(&t, "response (R2) is wrong");
	CU_ASSERT_EQUAL(loop_host_io_count(t.lh, nvme_cmd_read), 0);
	clit_teardown(&t);
}

/* A secret that cannot be one is the command line's fault (exit 2), named by where it
 * came from; nothing is sent. */
static void bad_secrets_are_usage_errors_naming_their_origin(void)
{
	struct clit t;
	setup(&t);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, "-S", "DHHC-1:01:notbase64!:", NULL), 2);
	CU_ASSERT_EQUAL(strncmp(t.err, "nvmf: identify: -S/--dhchap-secret: ", 36), 0);
	CU_ASSERT_PTR_NULL(strstr(t.err, "notbase64"));
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, "--slba", "0", "--nlb", "1", "-S", "", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: read: -S/--dhchap-secret is empty"));
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, "-C", CTRL_KEY, NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(t.err, "nvmf: identify: a controller secret (-C/--dhchap-ctrl-secret) "
			      "needs a host secret"));
	t.env_secret = "DHHC-1:01:AAAA:";
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, NULL), 2);
	CU_ASSERT_EQUAL(strncmp(t.err, "nvmf: identify: $NVMF_DHCHAP_SECRET: ", 37), 0);
	t.env_secret = NULL;
	t.env_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(clit_run(&t, "perf", A, "--time", "1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(
		t.err, "a controller secret ($NVMF_DHCHAP_CTRL_SECRET) needs a host secret"));
	CU_ASSERT_EQUAL(loop_host_fabrics_count(t.lh, nvme_fabrics_type_connect), 0);
	clit_teardown(&t);
}

/* Discovery controllers do not authenticate: an exported controller secret is for the
 * NVM subsystems and does not refuse them; -C given to discover still asks for it. */
static void discover_leaves_the_exported_controller_secret_alone(void)
{
	struct clit t;
	setup(&t);
	t.env_secret = HOST_KEY;
	t.env_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "subnqn:  " LH_SUBNQN));
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "-C", CTRL_KEY, NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "does not authenticate"));
	clit_teardown(&t);
}

static void verbose_says_how_the_connect_authenticated(void)
{
	struct clit t;
	setup(&t);
	CU_ASSERT_EQUAL_FATAL(
		clit_run(&t, "identify", A, "-v", "-S", HOST_KEY, "-C", CTRL_KEY, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(t.err, "nvmf: connected to 127.0.0.1:4420 (" LH_SUBNQN "): cntlid "));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, ", 1 I/O queue(s), authenticated (DH-HMAC-CHAP "
					     "hmac(sha512) ffdhe3072, bidirectional)\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, "--verbose", "-S", HOST_KEY, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(t.err, "(DH-HMAC-CHAP hmac(sha512) ffdhe3072, unidirectional)"));
	clit_teardown(&t);
	/* A target that does not ask. */
	clit_setup(&t, true, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", A, "-v", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "not authenticated (the controller did not ask)"));
	CU_ASSERT_EQUAL(clit_run(&t, "discover", "-a", "127.0.0.1", "-v", NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: discovery log of 127.0.0.1:4420: "));
	clit_teardown(&t);
}

const struct unit_test cli_common_tests[] = {
	{ "no_rdma_device_error_says_to_use_tcp", no_rdma_device_error_says_to_use_tcp },
	{ "an_error_the_detail_names_is_said_once", an_error_the_detail_names_is_said_once },
	{ "other_errors_have_no_transport_hint", other_errors_have_no_transport_hint },
	{ "bad_secrets_are_usage_errors_naming_their_origin",
	  bad_secrets_are_usage_errors_naming_their_origin },
	{ "discover_leaves_the_exported_controller_secret_alone",
	  discover_leaves_the_exported_controller_secret_alone },
	{ "verbose_says_how_the_connect_authenticated",
	  verbose_says_how_the_connect_authenticated },
	{ "write_and_read_with_both_secrets_round_trip",
	  write_and_read_with_both_secrets_round_trip },
	{ "secrets_come_from_the_environment_when_not_given",
	  secrets_come_from_the_environment_when_not_given },
	{ "no_secret_is_one_line_saying_authentication_is_required",
	  no_secret_is_one_line_saying_authentication_is_required },
	{ "wrong_secrets_are_one_line_naming_the_side_that_failed",
	  wrong_secrets_are_one_line_naming_the_side_that_failed },
	{ NULL, NULL },
};
