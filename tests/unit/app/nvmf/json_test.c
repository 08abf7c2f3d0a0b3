/* The nvmf tool's JSON output (app/nvmf/json.c): indented, keys in insertion order, the
 * root consumed; identifiers as hex strings, unsigned values clamped to jansson's signed
 * range, fixed-width ASCII fields without their padding. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "app/nvmf/cli.h"
#include "tests/unit/suites.h"

static void print_writes_indented_json_in_insertion_order_and_a_newline(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	json_t *root = json_object();
	json_object_set_new(root, "zeta", json_integer(1));
	json_object_set_new(root, "alpha", json_string("x"));
	CU_ASSERT_EQUAL(cli_json_print(f, root), CLI_OK); /* root consumed (ASan: no leak) */
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "{\n  \"zeta\": 1,\n  \"alpha\": \"x\"\n}\n");
	free(buf);
}

static void print_of_nothing_is_an_error(void)
{
	/* A builder that ran out of memory hands NULL on: an error, nothing written. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(cli_json_print(f, NULL), CLI_ERR);
	fclose(f);
	CU_ASSERT_EQUAL(len, 0);
	free(buf);
}

static void hex_is_lowercase_digits_without_separators(void)
{
	const uint8_t nguid[4] = { 0x00, 0x9f, 0xa0, 0x0b };
	json_t *j = cli_json_hex(nguid, sizeof(nguid));
	CU_ASSERT_STRING_EQUAL(json_string_value(j), "009fa00b");
	json_decref(j);
	j = cli_json_hex(nguid, 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(j), "");
	json_decref(j);
}

static void uint_above_the_signed_range_is_clamped(void)
{
	json_t *j = cli_json_uint(UINT64_MAX);
	CU_ASSERT_EQUAL(json_integer_value(j), INT64_MAX);
	json_decref(j);
	j = cli_json_uint((uint64_t)INT64_MAX);
	CU_ASSERT_EQUAL(json_integer_value(j), INT64_MAX);
	json_decref(j);
	j = cli_json_uint(4096);
	CU_ASSERT_EQUAL(json_integer_value(j), 4096);
	json_decref(j);
}

static void fixed_field_loses_its_space_and_nul_padding_only(void)
{
	json_t *j = cli_json_fixed("nvmf model   ", 13); /* spaces inside are kept */
	CU_ASSERT_STRING_EQUAL(json_string_value(j), "nvmf model");
	json_decref(j);
	const char nul_padded[8] = { 'S', 'N', '1', 0, 'x', 'x', 0, 0 }; /* stops at the NUL */
	j = cli_json_fixed(nul_padded, sizeof(nul_padded));
	CU_ASSERT_STRING_EQUAL(json_string_value(j), "SN1");
	json_decref(j);
	j = cli_json_fixed("ABCDEFGH", 4); /* no terminator: no byte past len is read */
	CU_ASSERT_STRING_EQUAL(json_string_value(j), "ABCD");
	json_decref(j);
	j = cli_json_fixed("    ", 4);
	CU_ASSERT_STRING_EQUAL(json_string_value(j), "");
	json_decref(j);
}

const struct unit_test cli_json_tests[] = {
	{ "print_writes_indented_json_in_insertion_order_and_a_newline",
	  print_writes_indented_json_in_insertion_order_and_a_newline },
	{ "print_of_nothing_is_an_error", print_of_nothing_is_an_error },
	{ "hex_is_lowercase_digits_without_separators",
	  hex_is_lowercase_digits_without_separators },
	{ "uint_above_the_signed_range_is_clamped", uint_above_the_signed_range_is_clamped },
	{ "fixed_field_loses_its_space_and_nul_padding_only",
	  fixed_field_loses_its_space_and_nul_padding_only },
	{ NULL, NULL },
};
