/* `nvmf read` / `nvmf write` against our target's RAM namespaces (loop host; ns 1: 512 B
 * blocks, 16 MiB; ns 2: 4 KiB blocks, 1 MiB): data round trips byte for byte, ranges in
 * blocks or bytes, and every bad range is a usage error naming what is wrong. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/app/nvmf/cli_fixture.h"
#include "tests/unit/suites.h"

#define A "-a", "127.0.0.1", "-n", LH_SUBNQN

static uint8_t *pattern(size_t n, unsigned seed)
{
	uint8_t *p = malloc(n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 10));
	return p;
}

static void write_then_read_round_trips_in_blocks(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	uint8_t *data = pattern(8192, 3);
	t.in = data;
	t.inlen = 8192;
	/* no count: the whole input (16 blocks) */
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "write", A, "--slba", "8", NULL), 0);
	CU_ASSERT_EQUAL(t.errlen, 0);
	t.in = NULL;
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", A, "--slba", "8", "--nlb", "16", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, 8192);
	CU_ASSERT_EQUAL(memcmp(t.out, data, 8192), 0);
	/* the blocks before were not touched */
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", A, "--slba", "0", "--nlb", "8", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, 4096);
	for (size_t i = 0; i < 4096; i++)
		CU_ASSERT_EQUAL_FATAL(t.out[i], 0);
	free(data);
	clit_teardown(&t);
}

static void byte_range_on_4k_namespace_uses_offset_and_length(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	uint8_t *data = pattern(3 * 4096, 9);
	t.in = data;
	t.inlen = 3 * 4096;
	/* --length takes only the first 8k of the 12k input */
	CU_ASSERT_EQUAL_FATAL(
		clit_run(&t, "write", A, "--ns", "2", "--offset", "4k", "--length", "8k", NULL), 0);
	t.in = NULL;
	CU_ASSERT_EQUAL_FATAL(
		clit_run(&t, "read", A, "--ns", "2", "--offset", "0", "--length", "16k", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, 16384);
	CU_ASSERT_EQUAL(memcmp(t.out + 4096, data, 8192), 0);
	CU_ASSERT_EQUAL(t.out[0], 0);
	CU_ASSERT_EQUAL(t.out[12288], 0);
	free(data);
	clit_teardown(&t);
}

static void transfer_larger_than_a_chunk_and_mdts_round_trips(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	size_t n = 6u << 20; /* > 4 MiB chunk, > 1 MiB MDTS */
	uint8_t *data = pattern(n, 1);
	t.in = data;
	t.inlen = n;
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "write", A, "--offset", "1m", NULL), 0);
	t.in = NULL;
	CU_ASSERT_EQUAL_FATAL(clit_run(&t, "read", A, "--offset", "1m", "--length", "6m", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t.outlen, n);
	CU_ASSERT_EQUAL(memcmp(t.out, data, n), 0);
	CU_ASSERT(loop_host_max_io_len(t.lh) <= (1u << 20));
	free(data);
	clit_teardown(&t);
}

static void read_to_output_file_and_write_from_input_file(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	char in[] = "/tmp/nvmf-cli-in-XXXXXX", out[] = "/tmp/nvmf-cli-out-XXXXXX";
	int fi = mkstemp(in), fo = mkstemp(out);
	CU_ASSERT_FATAL(fi >= 0 && fo >= 0);
	uint8_t *data = pattern(2048, 5);
	CU_ASSERT_EQUAL_FATAL(write(fi, data, 2048), 2048);
	close(fi);
	close(fo);
	CU_ASSERT_EQUAL(clit_run(&t, "write", A, "--slba", "100", "-i", in, NULL), 0);
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, "--slba", "100", "--nlb", "4", "-o", out, NULL), 0);
	CU_ASSERT_EQUAL(t.outlen, 0);
	FILE *f = fopen(out, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	uint8_t back[4096];
	CU_ASSERT_EQUAL(fread(back, 1, sizeof(back), f), 2048);
	fclose(f);
	CU_ASSERT_EQUAL(memcmp(back, data, 2048), 0);
	unlink(in);
	unlink(out);
	free(data);
	clit_teardown(&t);
}

static void read_without_a_count_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, false, NULL);
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, "--slba", "0", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: read: how much to read: --nlb COUNT or "
					     "--length BYTES\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, "--slba", "0", "--length", "4k", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err,
				      "nvmf: read: give the range in blocks (--slba, "
				      "--nlb) or in bytes (--offset, --length), not both\n"));
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, "--nlb", "0", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: read: --nlb: block count 0 is out of range"));
	clit_teardown(&t);
}

static void length_not_a_block_multiple_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, "--ns", "2", "--length", "512", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: read: --length 512 is not a multiple of the "
					     "block size (4096 bytes)\n"));
	CU_ASSERT_EQUAL(
		clit_run(&t, "read", A, "--ns", "2", "--offset", "100", "--length", "4k", NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: read: --offset 100 is not a multiple of the "
					     "block size (4096 bytes)\n"));
	uint8_t junk[1000] = { 1 };
	t.in = junk;
	t.inlen = sizeof(junk);
	CU_ASSERT_EQUAL(clit_run(&t, "write", A, NULL), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: write: the input length 1000 is not a "
					     "multiple of the block size (512 bytes)\n"));
	clit_teardown(&t);
}

static void range_beyond_the_namespace_end_is_a_usage_error(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, "--ns", "2", "--slba", "255", "--nlb", "2", NULL),
			2);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nvmf: read: blocks 255..256 are beyond the end of "
					     "namespace 2 (256 blocks of 4096 bytes)\n"));
	CU_ASSERT_EQUAL(loop_host_io_count(t.lh, nvme_cmd_read), 0);
	clit_teardown(&t);
}

static void short_input_for_the_count_fails_with_status_1(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	uint8_t data[1024] = { 0 };
	t.in = data;
	t.inlen = sizeof(data);
	CU_ASSERT_EQUAL(clit_run(&t, "write", A, "--slba", "0", "--nlb", "4", NULL), 1);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf: write: stdin ended after 1024 bytes; 2048 expected\n");
	clit_teardown(&t);
}

static void inactive_namespace_fails_with_status_1(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "read", A, "--ns", "7", "--nlb", "1", NULL), 1);
	CU_ASSERT_EQUAL(strncmp(t.err, "nvmf: read: namespace 7: ", 25), 0);
	CU_ASSERT_PTR_EQUAL(strchr(t.err, '\n'), t.err + t.errlen - 1);
	CU_ASSERT_EQUAL(t.outlen, 0);
	clit_teardown(&t);
}

static void missing_input_file_fails_before_connecting(void)
{
	struct clit t;
	clit_setup(&t, true, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.lh);
	CU_ASSERT_EQUAL(clit_run(&t, "write", A, "-i", "/nonexistent/x", NULL), 1);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf: write: cannot open /nonexistent/x: No such file or "
				      "directory\n");
	CU_ASSERT_EQUAL(loop_host_admin_count(t.lh, nvme_admin_identify), 0);
	clit_teardown(&t);
}

const struct unit_test cli_rw_tests[] = {
	{ "write_then_read_round_trips_in_blocks", write_then_read_round_trips_in_blocks },
	{ "byte_range_on_4k_namespace_uses_offset_and_length",
	  byte_range_on_4k_namespace_uses_offset_and_length },
	{ "transfer_larger_than_a_chunk_and_mdts_round_trips",
	  transfer_larger_than_a_chunk_and_mdts_round_trips },
	{ "read_to_output_file_and_write_from_input_file",
	  read_to_output_file_and_write_from_input_file },
	{ "read_without_a_count_is_a_usage_error", read_without_a_count_is_a_usage_error },
	{ "length_not_a_block_multiple_is_a_usage_error",
	  length_not_a_block_multiple_is_a_usage_error },
	{ "range_beyond_the_namespace_end_is_a_usage_error",
	  range_beyond_the_namespace_end_is_a_usage_error },
	{ "short_input_for_the_count_fails_with_status_1",
	  short_input_for_the_count_fails_with_status_1 },
	{ "inactive_namespace_fails_with_status_1", inactive_namespace_fails_with_status_1 },
	{ "missing_input_file_fails_before_connecting",
	  missing_input_file_fails_before_connecting },
	{ NULL, NULL },
};
