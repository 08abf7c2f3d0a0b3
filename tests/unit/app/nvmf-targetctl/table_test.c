/* nvmf-targetctl's aligned tables (app/nvmf-targetctl/table.c): each column as wide as its
 * widest cell or header, two spaces apart, numbers right-aligned, nothing after the last
 * cell; JSON values as cell text. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "app/nvmf-targetctl/targetctl.h"
#include "tests/unit/suites.h"

/* What @t prints, in a string the caller frees (NULL when print failed). */
static char *printed(const struct tctl_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	int rc = tctl_table_print(t, f);
	fclose(f);
	if (rc != TCTL_OK) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const struct tctl_col cols[] = { { "NQN", false }, { "NSID", true }, { "PATH", false } };

static void columns_fit_their_widest_cell_numbers_right_and_no_trailing_blanks(void)
{
	struct tctl_table t;
	tctl_table_init(&t, cols, 3);
	tctl_table_cell(&t, "%s", "nqn.a");
	tctl_table_cell(&t, "%u", 1u);
	tctl_table_cell(&t, "%s", "/dev/x");
	tctl_table_cell(&t, "%s", "nqn.longer");
	tctl_table_cell(&t, "%u", 12345u);
	tctl_table_cell(&t, "%s", "/a");
	char *s = printed(&t);
	CU_ASSERT_STRING_EQUAL(s, "NQN          NSID  PATH\n"
				  "nqn.a           1  /dev/x\n"
				  "nqn.longer  12345  /a\n");
	free(s);
	tctl_table_free(&t);
	CU_ASSERT_PTR_NULL(t.cells);
	CU_ASSERT_EQUAL(t.ncells, 0);
}

static void a_table_without_rows_prints_its_header(void)
{
	struct tctl_table t;
	tctl_table_init(&t, cols, 3);
	char *s = printed(&t);
	CU_ASSERT_STRING_EQUAL(s, "NQN  NSID  PATH\n");
	free(s);
	tctl_table_free(&t);
}

static void json_cells_read_as_text(void)
{
	static const struct tctl_col one[] = { { "V", false } };
	struct tctl_table t;
	tctl_table_init(&t, one, 1);
	json_t *v[] = { json_string("text"), json_integer(-42),
			json_real(1.5),      json_true(),
			json_false(),        json_pack("[i,s]", 1, "b"),
			json_array(),        json_pack("{s:i}", "k", 1),
			json_null() };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		tctl_table_json(&t, v[i]);
		json_decref(v[i]);
	}
	tctl_table_json(&t, NULL); /* a missing field */
	char *s = printed(&t);
	CU_ASSERT_STRING_EQUAL(s, "V\ntext\n-42\n1.5\nyes\nno\n1,b\n-\n{...}\n-\n-\n");
	free(s);
	tctl_table_free(&t);
}

static void many_rows_grow_the_table(void)
{
	static const struct tctl_col one[] = { { "N", true } };
	struct tctl_table t;
	tctl_table_init(&t, one, 1);
	for (unsigned i = 0; i < 200; i++) /* past the first allocation of 64 cells */
		tctl_table_cell(&t, "%u", i);
	CU_ASSERT_EQUAL(t.ncells, 200);
	char *s = printed(&t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "N\n  0\n  1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\n199\n"));
	free(s);
	tctl_table_free(&t);
}

static void a_cell_that_could_not_be_stored_fails_the_print(void)
{
	static const struct tctl_col one[] = { { "N", false } };
	struct tctl_table t;
	tctl_table_init(&t, one, 1);
	tctl_table_cell(&t, "%s", "kept");
	t.oom = true; /* what a failed allocation leaves */
	tctl_table_cell(&t, "%s", "dropped");
	CU_ASSERT_EQUAL(t.ncells, 1);
	CU_ASSERT_PTR_NULL(printed(&t));
	tctl_table_free(&t);
}

const struct unit_test targetctl_table_tests[] = {
	{ "columns_fit_their_widest_cell_numbers_right_and_no_trailing_blanks",
	  columns_fit_their_widest_cell_numbers_right_and_no_trailing_blanks },
	{ "a_table_without_rows_prints_its_header", a_table_without_rows_prints_its_header },
	{ "json_cells_read_as_text", json_cells_read_as_text },
	{ "many_rows_grow_the_table", many_rows_grow_the_table },
	{ "a_cell_that_could_not_be_stored_fails_the_print",
	  a_cell_that_could_not_be_stored_fails_the_print },
	{ NULL, NULL },
};
