/* `nvmf identify` against our target (loop host): `nvme id-ctrl` / `nvme id-ns` names
 * and number formats, nvme-cli's JSON keys, errors as one line with exit status 1. */
#include <string.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

static void has_line(const char *out, const char *line)
{
	char want[400];
	snprintf(want, sizeof(want), "\n%s\n", line);
	if (!strstr(out, want))
		fprintf(stderr, "\nmissing line '%s' in:\n%s", line, out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
}

static void identify_prints_controller_fields_like_id_ctrl(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "identify", "-a", "127.0.0.1", "-n", LH_SUBNQN, NULL),
			      0);
	/* %#x as nvme-cli: 0 prints as "0" */
	CU_ASSERT_EQUAL(strncmp(t.out, "NVME Identify Controller:\nvid       : 0\n", 40), 0);
	has_line(t.out, "mdts      : 8");
	has_line(t.out, "subnqn    : " LH_SUBNQN);
	has_line(t.out, "sqes      : 0x66");
	has_line(t.out, "cqes      : 0x44");
	has_line(t.out, "ioccsz    : 516"); /* (64 + 8192) / 16 */
	has_line(t.out, "iorcsz    : 1");
	has_line(t.out, "icdoff    : 0");
	has_line(t.out, "cmic      : 0xb");  /* two ports, two controllers, ANA */
	has_line(t.out, "ocfs      : 0x1");  /* Copy descriptor format 0h */
	has_line(t.out, "fuses     : 0x1");  /* fused Compare and Write */
	has_line(t.out, "acwu      : 2047"); /* 0's based: MDTS 8 = 1 MiB of 512 B blocks */
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "\nsgls      : 0x"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "\ncntlid    : 0x"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "\nmsdbd     : "));
	clit_teardown(&t);
}

static void identify_ns_prints_namespace_fields_like_id_ns(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	/* namespace 2: 1 MiB of 4 KiB blocks */
	CU_ASSERT_EQUAL_FATAL(
		clit_run(&t, "identify", "-a", "127.0.0.1", "-n", LH_SUBNQN, "--ns", "2", NULL), 0);
	CU_ASSERT_EQUAL(strncmp(t.out, "NVME Identify Namespace 2:\nnsze    : 0x100\n", 43), 0);
	has_line(t.out, "ncap    : 0x100");
	has_line(t.out, "nlbaf   : 0");
	has_line(t.out, "flbas   : 0");
	has_line(t.out, "lbaf  0 : ms:0   lbads:12 rp:0 (in use)");
	has_line(t.out, "mssrl   : 256"); /* MDTS (1 MiB) in 4 KiB blocks */
	has_line(t.out, "mcl     : 256");
	has_line(t.out, "msrc    : 127");
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "\nnguid   : "));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.out, "\neui64   : "));
	clit_teardown(&t);
}

static void identify_of_inactive_namespace_prints_zeroes_like_nvme_cli(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL_FATAL(
		clit_run(&t, "identify", "-a", "127.0.0.1", "-n", LH_SUBNQN, "--ns", "9", NULL), 0);
	CU_ASSERT_EQUAL(strncmp(t.out, "NVME Identify Namespace 9:\nnsze    : 0\n", 39), 0);
	CU_ASSERT_EQUAL(t.errlen, 0);
	clit_teardown(&t);
}

static void identify_json_uses_nvme_cli_keys(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL_FATAL(
		clit_run(&t, "identify", "-a", "127.0.0.1", "-n", LH_SUBNQN, "--json", NULL), 0);
	json_t *root = json_loads(t.out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	static const char *const keys[] = {
		"vid",    "ssvid",  "sn",     "mn",     "fr",    "rab",   "ieee", "cmic",
		"mdts",   "cntlid", "ver",    "oacs",   "acl",   "aerl",  "frmw", "lpa",
		"elpe",   "sqes",   "cqes",   "maxcmd", "nn",    "oncs",  "vwc",  "sgls",
		"subnqn", "ioccsz", "iorcsz", "icdoff", "fcatt", "msdbd", "kas",  "ocfs",
		"fuses",  "fna",    "awun",   "awupf",  "acwu"
	};
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(json_object_get(root, keys[i]));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "mdts")), 8);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "sqes")), 0x66);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "oncs")) & 0x180, 0x180);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "ocfs")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "fuses")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "acwu")), 2047);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "subnqn")), LH_SUBNQN);
	const char *sn = json_string_value(json_object_get(root, "sn"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(sn);
	CU_ASSERT(sn[0] && sn[strlen(sn) - 1] != ' '); /* padding removed */
	json_decref(root);

	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "identify", "-a", "127.0.0.1", "-n", LH_SUBNQN, "--ns",
				       "1", "--json", NULL),
			      0);
	root = json_loads(t.out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "nsze")), 32768); /* 16 MiB/512 */
	/* Copy limits: MDTS 8 (1 MiB) in 512 B blocks, 128 ranges (0's based). */
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "mssrl")), 2048);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "mcl")), 2048);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(root, "msrc")), 127);
	CU_ASSERT_EQUAL(json_string_length(json_object_get(root, "nguid")), 32);
	CU_ASSERT_EQUAL(json_string_length(json_object_get(root, "eui64")), 16);
	json_t *l0 = json_array_get(json_object_get(root, "lbafs"), 0);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(l0, "ds")), 9);
	json_decref(root);
	clit_teardown(&t);
}

static void identify_of_unknown_subsystem_exits_1_with_one_line(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", "-a", "127.0.0.1", "-n",
				 "nqn.2026-11.io.nvmf-rdma:nosuch", NULL),
			1);
	static const char want[] =
		"nvmf: connect to 127.0.0.1:4420 "
		"(nqn.2026-11.io.nvmf-rdma:nosuch): CONNECT_INVALID_PARAM (sct 0x1, sc 0x82, DNR): ";
	CU_ASSERT_EQUAL(strncmp(t.err, want, strlen(want)), 0);
	CU_ASSERT_PTR_EQUAL(strchr(t.err, '\n'), t.err + t.errlen - 1);
	CU_ASSERT_EQUAL(t.outlen, 0);
	clit_teardown(&t);
}

static void identify_as_unknown_host_names_the_host(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "identify", "-a", "127.0.0.1", "-n", LH_SUBNQN, "-q",
				 LH_OTHER_HOSTNQN, NULL),
			1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "CONNECT_INVALID_HOST (sct 0x1, sc 0x84, DNR): "));
	/* said once, in the library's detail */
	const char *first = strstr(t.err, "CONNECT_INVALID_HOST");
	CU_ASSERT_PTR_NULL(first ? strstr(first + 1, "CONNECT_INVALID_HOST") : NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, LH_OTHER_HOSTNQN));
	clit_teardown(&t);
}

const struct unit_test cli_identify_tests[] = {
	{ "identify_prints_controller_fields_like_id_ctrl",
	  identify_prints_controller_fields_like_id_ctrl },
	{ "identify_ns_prints_namespace_fields_like_id_ns",
	  identify_ns_prints_namespace_fields_like_id_ns },
	{ "identify_of_inactive_namespace_prints_zeroes_like_nvme_cli",
	  identify_of_inactive_namespace_prints_zeroes_like_nvme_cli },
	{ "identify_json_uses_nvme_cli_keys", identify_json_uses_nvme_cli_keys },
	{ "identify_of_unknown_subsystem_exits_1_with_one_line",
	  identify_of_unknown_subsystem_exits_1_with_one_line },
	{ "identify_as_unknown_host_names_the_host", identify_as_unknown_host_names_the_host },
	{ NULL, NULL },
};
