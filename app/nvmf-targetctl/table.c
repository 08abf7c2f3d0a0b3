// SPDX-License-Identifier: MIT
/* Aligned text tables for nvmf-targetctl: a header line, then rows; each column as wide as
 * its widest cell, two spaces apart, numbers right-aligned, nothing after the last cell. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "app/nvmf-targetctl/targetctl.h"

void tctl_table_init(struct tctl_table *t, const struct tctl_col *cols, unsigned ncols)
{
	*t = (struct tctl_table){ .cols = cols, .ncols = ncols };
}

static void add(struct tctl_table *t, char *cell)
{
	if (!cell || t->oom) {
		free(cell);
		t->oom = true;
		return;
	}
	if (t->ncells == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **c = realloc(t->cells, cap * sizeof(*c));
		if (!c) {
			free(cell);
			t->oom = true;
			return;
		}
		t->cells = c;
		t->cap = cap;
	}
	t->cells[t->ncells++] = cell;
}

void tctl_table_cell(struct tctl_table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	add(t, n < 0 ? NULL : s);
}

/* @v as cell text appended to the memory stream @f. */
static void json_text(FILE *f, json_t *v)
{
	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_STRING:
		fputs(json_string_value(v), f);
		break;
	case JSON_INTEGER:
		fprintf(f, "%lld", (long long)json_integer_value(v));
		break;
	case JSON_REAL:
		fprintf(f, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		fputs("yes", f);
		break;
	case JSON_FALSE:
		fputs("no", f);
		break;
	case JSON_ARRAY: {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			if (i)
				fputc(',', f);
			json_text(f, e);
		}
		if (!json_array_size(v))
			fputc('-', f);
		break;
	}
	case JSON_OBJECT:
		fputs("{...}", f);
		break;
	default:
		fputc('-', f);
	}
}

void tctl_table_json(struct tctl_table *t, json_t *v)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	if (!f) {
		add(t, NULL);
		return;
	}
	json_text(f, v);
	if (fclose(f)) {
		free(s);
		s = NULL;
	}
	add(t, s);
}

int tctl_table_print(const struct tctl_table *t, FILE *f)
{
	if (t->oom)
		return TCTL_ERR;
	size_t rows = t->ncells / t->ncols, w[32] = { 0 };
	unsigned nc = t->ncols < 32 ? t->ncols : 32;
	for (unsigned c = 0; c < nc; c++) {
		w[c] = strlen(t->cols[c].name);
		for (size_t r = 0; r < rows; r++) {
			size_t n = strlen(t->cells[r * t->ncols + c]);
			w[c] = n > w[c] ? n : w[c];
		}
	}
	for (size_t r = 0; r <= rows; r++) {
		for (unsigned c = 0; c < nc; c++) {
			const char *s = r ? t->cells[(r - 1) * t->ncols + c] : t->cols[c].name;
			int pad = (int)(w[c] - strlen(s));
			bool last = c + 1 == nc;
			if (t->cols[c].right)
				fprintf(f, "%*s%s", pad, "", s);
			else
				fprintf(f, "%s%*s", s, last ? 0 : pad, "");
			fputs(last ? "\n" : "  ", f);
		}
	}
	return ferror(f) ? TCTL_ERR : TCTL_OK;
}

void tctl_table_free(struct tctl_table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->ncells = t->cap = 0;
}
