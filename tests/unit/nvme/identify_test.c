/* ASCII fields, version values and UUID / NGUID / EUI-64 text forms. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "nvme/identify.h"
#include "tests/unit/suites.h"

static const uint8_t uuid_bytes[16] = {
	0x5a, 0x2c, 0x6e, 0xd0, 0x9c, 0x53, 0x4f, 0x5a,
	0x8d, 0x36, 0x0c, 0x2b, 0x6f, 0x3e, 0x5d, 0x11,
};

static void ascii_field_is_left_justified_and_space_padded(void)
{
	char sn[NVME_SN_LEN];

	CU_ASSERT_EQUAL(nvme_ascii_field(sn, sizeof(sn), "abc123"), 0);
	CU_ASSERT_EQUAL(memcmp(sn, "abc123              ", 20), 0);
}

static void ascii_field_exactly_full_has_no_padding(void)
{
	char fr[NVME_FR_LEN];

	CU_ASSERT_EQUAL(nvme_ascii_field(fr, sizeof(fr), "6.12.0-1"), 0);
	CU_ASSERT_EQUAL(memcmp(fr, "6.12.0-1", 8), 0);
}

static void ascii_field_too_long_returns_e2big_and_keeps_prefix(void)
{
	char fr[NVME_FR_LEN];

	CU_ASSERT_EQUAL(nvme_ascii_field(fr, sizeof(fr), "6.12.0-rc1"), -E2BIG);
	CU_ASSERT_EQUAL(memcmp(fr, "6.12.0-r", 8), 0);
}

static void ascii_field_with_control_or_non_ascii_returns_einval_and_blanks(void)
{
	char mn[NVME_MN_LEN];
	char blank[NVME_MN_LEN];

	memset(blank, ' ', sizeof(blank));
	CU_ASSERT_EQUAL(nvme_ascii_field(mn, sizeof(mn), "model\n"), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(mn, blank, sizeof(mn)), 0);
	CU_ASSERT_EQUAL(nvme_ascii_field(mn, sizeof(mn), "mod\xc3\xa9le"), -EINVAL);
	CU_ASSERT_EQUAL(nvme_ascii_field(mn, sizeof(mn), "tab\there"), -EINVAL);
	CU_ASSERT_EQUAL(nvme_ascii_field(mn, sizeof(mn), "del\x7f"), -EINVAL);
}

static void ascii_field_null_or_empty_is_all_spaces(void)
{
	char sn[NVME_SN_LEN];

	CU_ASSERT_EQUAL(nvme_ascii_field(sn, sizeof(sn), NULL), 0);
	CU_ASSERT_EQUAL(memcmp(sn, "                    ", 20), 0);
}

static void ascii_field_str_trims_trailing_spaces_and_nuls(void)
{
	char out[41];

	CU_ASSERT_EQUAL(nvme_ascii_field_str(out, sizeof(out), "Linux   ", 8), 5);
	CU_ASSERT_STRING_EQUAL(out, "Linux");
	CU_ASSERT_EQUAL(nvme_ascii_field_str(out, sizeof(out), "ab c\0\0\0\0", 8), 4);
	CU_ASSERT_STRING_EQUAL(out, "ab c");
	CU_ASSERT_EQUAL(nvme_ascii_field_str(out, 3, "abcdefgh", 8), 2);
	CU_ASSERT_STRING_EQUAL(out, "ab");
}

static void version_parses_two_and_three_part_forms(void)
{
	uint32_t vs = 0;

	CU_ASSERT_EQUAL(nvme_version_parse("1.3", &vs, NULL, 0), 0);
	CU_ASSERT_EQUAL(vs, 0x00010300);
	CU_ASSERT_EQUAL(nvme_version_parse("2.0", &vs, NULL, 0), 0);
	CU_ASSERT_EQUAL(vs, 0x00020000);
	CU_ASSERT_EQUAL(nvme_version_parse("1.2.1", &vs, NULL, 0), 0);
	CU_ASSERT_EQUAL(vs, 0x00010201);
	CU_ASSERT_EQUAL(nvme_version_parse("65535.255.255", &vs, NULL, 0), 0);
	CU_ASSERT_EQUAL(vs, 0xffffffffu);
}

static void version_malformed_returns_einval_with_message(void)
{
	static const char *const bad[] = { "",        "1",    "1.",   ".3",  "v1.3", " 1.3", "1.3 ",
					   "1.3.0.1", "1..3", "1.3.", "1,3", "-1.3", "1.x" };
	uint32_t vs = 0x1234;
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CU_ASSERT_EQUAL(nvme_version_parse(bad[i], &vs, err, sizeof(err)), -EINVAL);
		CU_ASSERT_TRUE(strlen(err) > 0);
	}
	CU_ASSERT_EQUAL(vs, 0x1234); /* untouched on failure */
	CU_ASSERT_EQUAL(nvme_version_parse(NULL, &vs, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "is empty, expected MAJOR.MINOR[.TERTIARY]");
}

static void version_parts_out_of_range_return_erange(void)
{
	uint32_t vs;
	char err[128];

	CU_ASSERT_EQUAL(nvme_version_parse("65536.0", &vs, err, sizeof(err)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "major version is above 65535");
	CU_ASSERT_EQUAL(nvme_version_parse("1.256", &vs, err, sizeof(err)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "minor version is above 255");
	CU_ASSERT_EQUAL(nvme_version_parse("1.2.999999999999999999999", &vs, err, sizeof(err)),
			-ERANGE);
	CU_ASSERT_STRING_EQUAL(err, "tertiary version is above 255");
}

static void version_formats_back(void)
{
	char buf[NVME_VS_STR_LEN];

	CU_ASSERT_STRING_EQUAL(nvme_version_format(0x00010300, buf, sizeof(buf)), "1.3");
	CU_ASSERT_STRING_EQUAL(nvme_version_format(0x00020100, buf, sizeof(buf)), "2.1");
	CU_ASSERT_STRING_EQUAL(nvme_version_format(0x00010201, buf, sizeof(buf)), "1.2.1");
}

static void uuid_parses_dashed_and_plain_forms_in_either_case(void)
{
	uint8_t u[16];

	CU_ASSERT_EQUAL(nvme_uuid_parse("5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11", u, NULL, 0), 0);
	CU_ASSERT_EQUAL(memcmp(u, uuid_bytes, 16), 0);
	memset(u, 0, sizeof(u));
	CU_ASSERT_EQUAL(nvme_uuid_parse("5A2C6ED09C534F5A8D360C2B6F3E5D11", u, NULL, 0), 0);
	CU_ASSERT_EQUAL(memcmp(u, uuid_bytes, 16), 0);
}

static void uuid_with_wrong_length_returns_einval_naming_the_length(void)
{
	uint8_t u[16];
	char err[128];

	CU_ASSERT_EQUAL(nvme_uuid_parse("5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d1", u, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "has 35 characters, expected 36 (8-4-4-4-12 with dashes) "
				    "or 32 hex digits");
	CU_ASSERT_EQUAL(nvme_uuid_parse("", u, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(nvme_uuid_parse(NULL, u, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(nvme_uuid_parse("{5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11}", u, err,
					sizeof(err)),
			-EINVAL);
}

static void uuid_with_non_hex_character_names_its_position(void)
{
	uint8_t u[16];
	char err[128];

	CU_ASSERT_EQUAL(nvme_uuid_parse("5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5dg1", u, err,
					sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "character 35 is 'g', expected a hex digit");
	CU_ASSERT_EQUAL(nvme_uuid_parse("5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d\x01"
					"1",
					u, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "character 35 is \\x01, expected a hex digit");
}

static void uuid_with_misplaced_dash_names_its_position(void)
{
	uint8_t u[16];
	char err[128];

	/* 36 characters, but 9-4-4-4-11. */
	CU_ASSERT_EQUAL(nvme_uuid_parse("5a2c6ed09-c53-4f5a-8d36-0c2b6f3e5d11", u, err,
					sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "character 9 is '9', expected '-' (8-4-4-4-12)");
	/* 32 characters with a dash inside. */
	CU_ASSERT_EQUAL(nvme_uuid_parse("5a2c6ed0-9c534f5a8d360c2b6f3e5d1", u, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "character 9 is '-', expected a hex digit");
}

static void uuid_failure_leaves_output_untouched(void)
{
	uint8_t u[16];

	memset(u, 0xee, sizeof(u));
	CU_ASSERT_EQUAL(nvme_uuid_parse("5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5dxx", u, NULL, 0),
			-EINVAL);
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(u[i], 0xee);
}

static void uuid_formats_lower_case_dashed_and_round_trips(void)
{
	char s[NVME_UUID_STR_LEN];
	uint8_t u[16];

	CU_ASSERT_STRING_EQUAL(nvme_uuid_format(uuid_bytes, s),
			       "5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11");
	CU_ASSERT_EQUAL(nvme_uuid_parse(s, u, NULL, 0), 0);
	CU_ASSERT_EQUAL(memcmp(u, uuid_bytes, 16), 0);
}

static void nguid_takes_dashed_plain_and_colon_forms_like_nvmet(void)
{
	static const uint8_t want[16] = {
		0xef, 0x90, 0x68, 0x9c, 0x6c, 0x46, 0xd4, 0x4c,
		0x89, 0xc1, 0x40, 0x67, 0x80, 0x13, 0x09, 0xa8,
	};
	uint8_t g[16];

	CU_ASSERT_EQUAL(nvme_nguid_parse("ef90689c-6c46-d44c-89c1-4067801309a8", g, NULL, 0), 0);
	CU_ASSERT_EQUAL(memcmp(g, want, 16), 0);
	memset(g, 0, sizeof(g));
	CU_ASSERT_EQUAL(nvme_nguid_parse("EF90689C6C46D44C89C14067801309A8", g, NULL, 0), 0);
	CU_ASSERT_EQUAL(memcmp(g, want, 16), 0);
	memset(g, 0, sizeof(g));
	CU_ASSERT_EQUAL(
		nvme_nguid_parse("ef:90:68:9c:6c:46:d4:4c:89:c1:40:67:80:13:09:a8", g, NULL, 0), 0);
	CU_ASSERT_EQUAL(memcmp(g, want, 16), 0);
}

static void nguid_errors_name_short_input_bad_digit_and_trailing_text(void)
{
	uint8_t g[16];
	char err[128];

	CU_ASSERT_EQUAL(nvme_nguid_parse("ef90689c-6c46", g, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "ends after 13 characters, in the middle of a hex byte");
	CU_ASSERT_EQUAL(nvme_nguid_parse("ef90689c--6c46d44c89c14067801309a8", g, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "character 10 is '-', expected a hex digit");
	CU_ASSERT_EQUAL(nvme_nguid_parse("ef90689c6c46d44c89c14067801309a800", g, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "character 33 is '0' after the 16 bytes of the NGUID; "
				    "expected the end");
	CU_ASSERT_EQUAL(nvme_nguid_parse("ef90689c6c46d44c89c14067801309a8-", g, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(nvme_nguid_parse("", g, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "is empty, expected 32 hex digits (NGUID)");
}

static void eui64_parses_plain_and_separated_and_formats_back(void)
{
	static const uint8_t want[8] = { 0x00, 0x25, 0x38, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5 };
	uint8_t e[8];
	char s[NVME_EUI64_STR_LEN];
	char err[128];

	CU_ASSERT_EQUAL(nvme_eui64_parse("00:25:38:b1:c2:d3:e4:f5", e, NULL, 0), 0);
	CU_ASSERT_EQUAL(memcmp(e, want, 8), 0);
	CU_ASSERT_EQUAL(nvme_eui64_parse("002538B1C2D3E4F5", e, NULL, 0), 0);
	CU_ASSERT_EQUAL(memcmp(e, want, 8), 0);
	CU_ASSERT_STRING_EQUAL(nvme_eui64_format(want, s), "002538b1c2d3e4f5");
	CU_ASSERT_EQUAL(nvme_eui64_parse("002538b1c2d3e4", e, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "ends after 14 characters, in the middle of a hex byte");
}

const struct unit_test nvme_identify_tests[] = {
	{ "ascii_field_is_left_justified_and_space_padded",
	  ascii_field_is_left_justified_and_space_padded },
	{ "ascii_field_exactly_full_has_no_padding", ascii_field_exactly_full_has_no_padding },
	{ "ascii_field_too_long_returns_e2big_and_keeps_prefix",
	  ascii_field_too_long_returns_e2big_and_keeps_prefix },
	{ "ascii_field_with_control_or_non_ascii_returns_einval_and_blanks",
	  ascii_field_with_control_or_non_ascii_returns_einval_and_blanks },
	{ "ascii_field_null_or_empty_is_all_spaces", ascii_field_null_or_empty_is_all_spaces },
	{ "ascii_field_str_trims_trailing_spaces_and_nuls",
	  ascii_field_str_trims_trailing_spaces_and_nuls },
	{ "version_parses_two_and_three_part_forms", version_parses_two_and_three_part_forms },
	{ "version_malformed_returns_einval_with_message",
	  version_malformed_returns_einval_with_message },
	{ "version_parts_out_of_range_return_erange", version_parts_out_of_range_return_erange },
	{ "version_formats_back", version_formats_back },
	{ "uuid_parses_dashed_and_plain_forms_in_either_case",
	  uuid_parses_dashed_and_plain_forms_in_either_case },
	{ "uuid_with_wrong_length_returns_einval_naming_the_length",
	  uuid_with_wrong_length_returns_einval_naming_the_length },
	{ "uuid_with_non_hex_character_names_its_position",
	  uuid_with_non_hex_character_names_its_position },
	{ "uuid_with_misplaced_dash_names_its_position",
	  uuid_with_misplaced_dash_names_its_position },
	{ "uuid_failure_leaves_output_untouched", uuid_failure_leaves_output_untouched },
	{ "uuid_formats_lower_case_dashed_and_round_trips",
	  uuid_formats_lower_case_dashed_and_round_trips },
	{ "nguid_takes_dashed_plain_and_colon_forms_like_nvmet",
	  nguid_takes_dashed_plain_and_colon_forms_like_nvmet },
	{ "nguid_errors_name_short_input_bad_digit_and_trailing_text",
	  nguid_errors_name_short_input_bad_digit_and_trailing_text },
	{ "eui64_parses_plain_and_separated_and_formats_back",
	  eui64_parses_plain_and_separated_and_formats_back },
	{ NULL, NULL },
};
