/* `nvmf resv-register`, `resv-acquire`, `resv-release`, `resv-report` against our target
 * (loop host, namespace 1 with reservations on): two hosts (two host IDs), one registers
 * and reserves, the other registers too and gets Reservation Conflict on write, the
 * report shows both; option parsing names what is wrong. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

#define A    "-a", "127.0.0.1", "-n", LH_SUBNQN
#define ID_A "11111111-2222-4333-8444-555555555555"
#define ID_B "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
#define H1   "-q", "nqn.2026-11.io.nvmf-rdma:hostA", "-I", ID_A
#define H2   "-q", "nqn.2026-11.io.nvmf-rdma:hostB", "-I", ID_B

static void setup(struct clit *t)
{
	struct loop_host_params p = { .allow_any_host = true, .resv = true };
	clit_setup(t, true, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->lh);
}

static void one_host_reserves_the_other_is_fenced_and_the_report_shows_both(void)
{
	struct clit t;
	setup(&t);
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, H1, "--nrkey", "0xabcd", NULL), 0);
	CU_ASSERT_STRING_EQUAL(t.out, "resv-register of namespace 1: success\n");
	CU_ASSERT_EQUAL(
		clit_run(&t, "resv-acquire", A, H1, "--crkey", "0xabcd", "--rtype", "1", NULL), 0);
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, H2, "--nrkey", "4660", NULL), 0);

	/* Write Exclusive: the other host may read, not write; the holder writes. */
	static const uint8_t block[512] = { 7 };
	t.in = block;
	t.inlen = sizeof(block);
	CU_ASSERT_EQUAL(clit_run(&t, "write", A, H2, "--slba", "0", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "RESERVATION_CONFLICT"));
	CU_ASSERT_EQUAL(clit_run(&t, "write", A, H1, "--slba", "0", NULL), 0);
	t.in = NULL;
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, H2, "--slba", "0", "--nlb", "1", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, 512);
	CU_ASSERT_EQUAL(memcmp(t.out, block, 512), 0);
	/* and may not take it */
	CU_ASSERT_EQUAL(
		clit_run(&t, "resv-acquire", A, H2, "--crkey", "4660", "--rtype", "1", NULL), 1);
	static const char conflict[] = "nvmf: resv-acquire of namespace 1: RESERVATION_CONFLICT";
	CU_ASSERT_EQUAL(strncmp(t.err, conflict, strlen(conflict)), 0);

	CU_ASSERT_EQUAL(clit_run(&t, "resv-report", A, H2, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "rtype     : 1 (write-exclusive)\nregctl    : 2\n"));
	const char *a = strstr(t.out, "hostid     : " ID_A),
		   *b = strstr(t.out, "hostid     : " ID_B);
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NOT_NULL(b);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "rcsts      : 1\n  rkey       : 0xabcd\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "rcsts      : 0\n  rkey       : 0x1234\n"));

	CU_ASSERT_EQUAL(clit_run(&t, "resv-report", A, H1, "--json", NULL), 0);
	json_t *j = json_loads(t.out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "rtype")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "regctl")), 2);
	json_t *regs = json_object_get(j, "regctlext");
	CU_ASSERT_EQUAL_FATAL(json_array_size(regs), 2);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(json_array_get(regs, 0), "hostid")), ID_A);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(regs, 0), "rkey")),
			       "0x000000000000abcd");
	json_decref(j);

	/* Released, the other host writes; clear drops every registration. */
	CU_ASSERT_EQUAL(
		clit_run(&t, "resv-release", A, H1, "--crkey", "0xabcd", "--rtype", "1", NULL), 0);
	t.in = block;
	CU_ASSERT_EQUAL(clit_run(&t, "write", A, H2, "--slba", "1", NULL), 0);
	t.in = NULL;
	CU_ASSERT_EQUAL(
		clit_run(&t, "resv-release", A, H1, "--rrela", "1", "--crkey", "0xabcd", NULL), 0);
	CU_ASSERT_EQUAL(clit_run(&t, "resv-report", A, H1, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "rtype     : 0 (none)\nregctl    : 0\n"));
	CU_ASSERT_PTR_NULL(strstr(t.out, "regctlext"));
	CU_ASSERT_EQUAL(loop_host_io_count(t.lh, nvme_cmd_resv_acquire), 2);
	clit_teardown(&t);
}

static void register_with_the_wrong_key_and_unregister_report_conflicts(void)
{
	struct clit t;
	setup(&t);
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, H1, "--nrkey", "1", NULL), 0);
	/* replace with a wrong current key: Reservation Conflict; with --iekey it works */
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, H1, "--rrega", "2", "--crkey", "9",
				 "--nrkey", "2", NULL),
			1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "RESERVATION_CONFLICT"));
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, H1, "--rrega", "2", "--iekey", "--nrkey",
				 "2", NULL),
			0);
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, H1, "--rrega", "1", "--crkey", "2", NULL),
			0);
	CU_ASSERT_EQUAL(clit_run(&t, "resv-report", A, H1, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "regctl    : 0\n"));
	clit_teardown(&t);
}

static void a_namespace_without_reservations_answers_invalid_opcode(void)
{
	struct clit t;
	setup(&t);
	CU_ASSERT_EQUAL(clit_run(&t, "resv-report", A, H1, "--ns", "2", NULL), 1);
	static const char invalid[] = "nvmf: resv-report of namespace 2: INVALID_OPCODE";
	CU_ASSERT_EQUAL(strncmp(t.err, invalid, strlen(invalid)), 0);
	clit_teardown(&t);
}

static void options_are_checked_and_named(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "resv-acquire", A, "--crkey", "1", NULL), 2);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf: resv-acquire: --rtype T is required (1-6: the "
				      "reservation type)\nTry 'nvmf resv-acquire --help'.\n");
	CU_ASSERT_EQUAL(clit_run(&t, "resv-release", A, "--crkey", "1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(t.err, "--rtype T is required (1-6: the reservation type held)"));
	CU_ASSERT_EQUAL(clit_run(&t, "resv-acquire", A, "--rtype", "7", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(t.err, "nvmf: resv-acquire: --rtype: 7 is out of range (1 to 6)"));
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, "--cptpl", "1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--cptpl: 1 is reserved"));
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, "--crkey", "key", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--crkey: 'key' is not a number"));
	/* another command's option is unknown here */
	CU_ASSERT_EQUAL(clit_run(&t, "resv-register", A, "--rtype", "1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "unknown option '--rtype'"));
	CU_ASSERT_EQUAL(clit_run(&t, "resv-report", A, "--crkey", "1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "unknown option '--crkey'"));

	struct cli_resv_opts o;
	char *argv[] = { "resv-acquire",
			 "-a",
			 "10.0.0.1",
			 "-n",
			 "nqn.x",
			 "--ns",
			 "3",
			 "--racqa",
			 "2",
			 "--rtype",
			 "6",
			 "--crkey",
			 "0xffffffffffffffff",
			 "--prkey",
			 "5",
			 "--iekey",
			 NULL };
	FILE *devnull = fopen("/dev/null", "w");
	CU_ASSERT_EQUAL(cli_resv_parse(16, argv, CLI_RESV_ACQUIRE, &o, devnull), 0);
	fclose(devnull);
	CU_ASSERT_EQUAL(o.nsid, 3);
	CU_ASSERT_EQUAL(o.action, 2);
	CU_ASSERT_EQUAL(o.rtype, 6);
	CU_ASSERT_EQUAL(o.crkey, UINT64_MAX);
	CU_ASSERT_EQUAL(o.prkey, 5);
	CU_ASSERT_TRUE(o.iekey);
	clit_teardown(&t);
}

const struct unit_test cli_resv_tests[] = {
	{ "one_host_reserves_the_other_is_fenced_and_the_report_shows_both",
	  one_host_reserves_the_other_is_fenced_and_the_report_shows_both },
	{ "register_with_the_wrong_key_and_unregister_report_conflicts",
	  register_with_the_wrong_key_and_unregister_report_conflicts },
	{ "a_namespace_without_reservations_answers_invalid_opcode",
	  a_namespace_without_reservations_answers_invalid_opcode },
	{ "options_are_checked_and_named", options_are_checked_and_named },
	{ NULL, NULL },
};
