/* `nvmf verify` and `nvmf copy` against our target (loop host; namespace 1: 512 B blocks,
 * 16 MiB): a copy of two ranges reads back at the destination, a verify succeeds, the
 * target's refusals print their status names, and option parsing names what is wrong. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

#define A "-a", "127.0.0.1", "-n", LH_SUBNQN

static void copy_lands_at_sdlba_and_verify_succeeds(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	uint8_t *data = malloc(16 * 512);
	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	for (size_t i = 0; i < 16 * 512; i++)
		data[i] = (uint8_t)(i * 13 + (i >> 9));
	t.in = data;
	t.inlen = 16 * 512;
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "write", A, "--slba", "0", NULL), 0);
	t.in = NULL;
	CU_ASSERT_EQUAL(clit_run(&t, "copy", A, "--range", "8:8", "--range", "0:8", "--sdlba",
				 "100", NULL),
			0);
	CU_ASSERT_STRING_EQUAL(t.out, "copy of namespace 1: success\n");
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", A, "--slba", "100", "--nlb", "16", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, 16 * 512);
	CU_ASSERT_EQUAL(memcmp(t.out, data + 8 * 512, 8 * 512), 0);
	CU_ASSERT_EQUAL(memcmp(t.out + 8 * 512, data, 8 * 512), 0);
	CU_ASSERT_EQUAL(clit_run(&t, "verify", A, "--slba", "0", "--nlb", "16", NULL), 0);
	CU_ASSERT_STRING_EQUAL(t.out, "verify of namespace 1: success\n");
	free(data);
	clit_teardown(&t);
}

static void refusals_print_the_status_name(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	/* 16 MiB of 512 B blocks: 32768 blocks. */
	CU_ASSERT_EQUAL(clit_run(&t, "verify", A, "--slba", "32767", "--nlb", "2", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "verify of namespace 1: LBA_RANGE"));
	CU_ASSERT_EQUAL(clit_run(&t, "copy", A, "--range", "32767:2", "--sdlba", "0", NULL), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "copy of namespace 1: LBA_RANGE"));
	/* One range over MSSRL (MDTS in blocks). */
	CU_ASSERT_EQUAL(clit_run(&t, "copy", A, "--range", "0:65536", "--sdlba", "0", NULL), 1);
	CU_ASSERT_STRING_EQUAL(t.err,
			       "nvmf: copy of namespace 1: CMD_SIZE_LIMIT_EXCEEDED (sct 0x1, "
			       "sc 0x83, DNR)\n");
	clit_teardown(&t);
}

static void options_are_checked_and_named(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "copy", A, "--range", "0:1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: copy: the destination: --sdlba LBA"));
	CU_ASSERT_EQUAL(clit_run(&t, "copy", A, "--sdlba", "5", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "what to copy: --range SLBA:NLB"));
	CU_ASSERT_EQUAL(clit_run(&t, "copy", A, "--sdlba", "5", "--range", "7", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--range '7': SLBA:NLB expected"));
	CU_ASSERT_EQUAL(clit_run(&t, "copy", A, "--sdlba", "5", "--range", "7:0", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--range '7:0': NLB"));
	CU_ASSERT_EQUAL(clit_run(&t, "copy", A, "--sdlba", "5", "--range", "7:65537", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "--range '7:65537': NLB"));
	CU_ASSERT_EQUAL(clit_run(&t, "verify", A, "--slba", "0", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "how many blocks: --nlb COUNT"));
	CU_ASSERT_EQUAL(clit_run(&t, "verify", A, "--nlb", "1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "the first block: --slba LBA"));
	/* another command's option is unknown here */
	CU_ASSERT_EQUAL(clit_run(&t, "verify", A, "--sdlba", "0", "--nlb", "1", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "unknown option '--sdlba'"));

	/* --range: NLB 1's based on the command line, 0's based on the wire; 256 at most. */
	struct cli_copy_opts *o = malloc(sizeof(*o));
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	char *argv[7 + 2 * 257];
	char args[257][24];
	int argc = 0;
	argv[argc++] = "copy";
	argv[argc++] = "-a";
	argv[argc++] = "127.0.0.1";
	argv[argc++] = "-n";
	argv[argc++] = LH_SUBNQN;
	argv[argc++] = "--sdlba";
	argv[argc++] = "0x10";
	for (int i = 0; i < 256; i++) {
		snprintf(args[i], sizeof(args[i]), "%d:%d", 1000 + i, i + 1);
		argv[argc++] = "--range";
		argv[argc++] = args[i];
	}
	FILE *devnull = fopen("/dev/null", "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(devnull);
	CU_ASSERT_EQUAL(cli_copy_parse(argc, argv, true, o, devnull), CLI_OK);
	CU_ASSERT_EQUAL(o->nr, 256);
	CU_ASSERT_EQUAL(o->slba, 16);
	CU_ASSERT_EQUAL(le64toh(o->ranges[0].slba), 1000);
	CU_ASSERT_EQUAL(le16toh(o->ranges[0].nlb), 0);
	CU_ASSERT_EQUAL(le64toh(o->ranges[255].slba), 1255);
	CU_ASSERT_EQUAL(le16toh(o->ranges[255].nlb), 255);
	snprintf(args[256], sizeof(args[256]), "1:1");
	argv[argc++] = "--range";
	argv[argc++] = args[256];
	CU_ASSERT_EQUAL(cli_copy_parse(argc, argv, true, o, devnull), CLI_USAGE);
	fclose(devnull);
	free(o);
	clit_teardown(&t);
}

const struct unit_test cli_copy_tests[] = {
	{ "copy_lands_at_sdlba_and_verify_succeeds", copy_lands_at_sdlba_and_verify_succeeds },
	{ "refusals_print_the_status_name", refusals_print_the_status_name },
	{ "options_are_checked_and_named", options_are_checked_and_named },
	{ NULL, NULL },
};
