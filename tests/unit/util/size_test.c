/* The one size grammar (util/size.c, docs/operating.md#sizes): every form a user typed
 * before to nvmf, nvmf-targetctl or the config still means the same bytes; the rest is
 * refused with a message naming the text. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "util/size.h"

static uint64_t ok(const char *s)
{
	uint64_t v = 0xdeadbeef;
	CU_ASSERT_EQUAL(nvmf_size_parse(s, &v), 0);
	return v;
}

static void plain_digits_are_bytes(void)
{
	CU_ASSERT_EQUAL(ok("0"), 0);
	CU_ASSERT_EQUAL(ok("512"), 512);
	CU_ASSERT_EQUAL(ok("007"), 7);
	CU_ASSERT_EQUAL(ok("18446744073709551615"), UINT64_MAX);
}

static void every_unit_is_a_power_of_1024_in_either_case(void)
{
	CU_ASSERT_EQUAL(ok("4k"), 4096);
	CU_ASSERT_EQUAL(ok("4K"), 4096);
	CU_ASSERT_EQUAL(ok("64M"), 64ull << 20);
	CU_ASSERT_EQUAL(ok("64m"), 64ull << 20);
	CU_ASSERT_EQUAL(ok("3g"), 3ull << 30);
	CU_ASSERT_EQUAL(ok("1T"), 1ull << 40);
	CU_ASSERT_EQUAL(ok("2p"), 2ull << 50);
}

static void iec_and_b_spellings_mean_the_same(void)
{
	CU_ASSERT_EQUAL(ok("4KiB"), 4096);
	CU_ASSERT_EQUAL(ok("4kib"), 4096);
	CU_ASSERT_EQUAL(ok("2kb"), 2048); /* fio's and nvme-cli's reading */
	CU_ASSERT_EQUAL(ok("2KB"), 2048);
	CU_ASSERT_EQUAL(ok("1MiB"), 1u << 20);
	CU_ASSERT_EQUAL(ok("1GB"), 1u << 30);
	CU_ASSERT_EQUAL(ok("1TiB"), 1ull << 40);
}

static void hex_takes_no_unit(void)
{
	CU_ASSERT_EQUAL(ok("0x1000"), 4096);
	CU_ASSERT_EQUAL(ok("0XfF"), 255);
	CU_ASSERT_EQUAL(ok("0xffffffffffffffff"), UINT64_MAX);
	uint64_t v = 7;
	CU_ASSERT_EQUAL(nvmf_size_parse("0x10k", &v), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_size_parse("0x", &v), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_size_parse("0xg", &v), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_size_parse("0x10000000000000000", &v), -ERANGE);
	CU_ASSERT_EQUAL(v, 7);
}

static void empty_sign_space_and_bad_units_are_refused(void)
{
	static const char *const bad[] = { "",    "k",    "-1",   "+1",    " 4k", "4k ",
					   "4 k", "4x",   "4kx",  "4kibb", "4ki", "4bk",
					   "4e3", "1.5M", "4kB4", "M4" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 7;
		CU_ASSERT_EQUAL(nvmf_size_parse(bad[i], &v), -EINVAL);
		CU_ASSERT_EQUAL(v, 7); /* untouched */
	}
	uint64_t v;
	CU_ASSERT_EQUAL(nvmf_size_parse(NULL, &v), -EINVAL);
}

static void more_than_64_bits_is_out_of_range(void)
{
	uint64_t v = 7;
	CU_ASSERT_EQUAL(nvmf_size_parse("18446744073709551616", &v), -ERANGE);
	CU_ASSERT_EQUAL(nvmf_size_parse("16777216t", &v), -ERANGE);
	CU_ASSERT_EQUAL(nvmf_size_parse("16384P", &v), -ERANGE);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(ok("16777215t"), 16777215ull << 40);
	CU_ASSERT_EQUAL(ok("16383PiB"), 16383ull << 50);
}

static void messages_name_what_and_the_text(void)
{
	char msg[256];
	uint64_t v;
	CU_ASSERT_EQUAL(nvmf_size_parse_msg("64X", "--ram", &v, msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(msg, "--ram '64X' is not a size (" NVMF_SIZE_GRAMMAR ")");
	CU_ASSERT_EQUAL(nvmf_size_parse_msg("99999999999P", "SIZE", &v, msg, sizeof(msg)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(msg, "SIZE '99999999999P' is too large");
	CU_ASSERT_EQUAL(nvmf_size_parse_msg("", "--bs", &v, msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--bs '' is not a size"));
	CU_ASSERT_EQUAL(nvmf_size_parse_msg("1k", "--bs", &v, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(v, 1024);
}

/* A plain number: decimal or 0x hex, nothing after it, no unit; 2^64 - 1 at most. */
static void plain_numbers_take_no_unit(void)
{
	uint64_t v = 7;
	CU_ASSERT_EQUAL(nvmf_u64_parse("0", &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(nvmf_u64_parse("4096", &v), 0);
	CU_ASSERT_EQUAL(v, 4096);
	CU_ASSERT_EQUAL(nvmf_u64_parse("0xFfFf", &v), 0);
	CU_ASSERT_EQUAL(v, 0xffff);
	CU_ASSERT_EQUAL(nvmf_u64_parse("18446744073709551615", &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	static const char *const bad[] = { "", "4k", "0x", "-1", "+1", " 1", "1 ", "12a", "0x1g" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		CU_ASSERT_EQUAL(nvmf_u64_parse(bad[i], &v), -EINVAL);
		CU_ASSERT_EQUAL(v, 7);
	}
	CU_ASSERT_EQUAL(nvmf_u64_parse(NULL, &v), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_u64_parse("18446744073709551616", &v), -ERANGE);
	CU_ASSERT_EQUAL(nvmf_u64_parse("0x10000000000000000", &v), -ERANGE);
	CU_ASSERT_EQUAL(v, 7);
}

const struct unit_test util_size_tests[] = {
	{ "plain_numbers_take_no_unit", plain_numbers_take_no_unit },
	{ "plain_digits_are_bytes", plain_digits_are_bytes },
	{ "every_unit_is_a_power_of_1024_in_either_case",
	  every_unit_is_a_power_of_1024_in_either_case },
	{ "iec_and_b_spellings_mean_the_same", iec_and_b_spellings_mean_the_same },
	{ "hex_takes_no_unit", hex_takes_no_unit },
	{ "empty_sign_space_and_bad_units_are_refused",
	  empty_sign_space_and_bad_units_are_refused },
	{ "more_than_64_bits_is_out_of_range", more_than_64_bits_is_out_of_range },
	{ "messages_name_what_and_the_text", messages_name_what_and_the_text },
	{ NULL, NULL }
};
