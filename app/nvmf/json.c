/* SPDX-License-Identifier: MIT */
/* JSON output of the nvmf tool (jansson): nvme-cli's key names, fields as numbers except
 * identifiers (nguid, eui64) as hex strings and ASCII fields without their padding. */
#include <stdint.h>
#include <stdlib.h>
#include "app/nvmf/cli.h"

int cli_json_print(FILE *f, json_t *root)
{
	if (!root)
		return CLI_ERR;
	int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	json_decref(root);
	if (rc || fputc('\n', f) == EOF)
		return CLI_ERR;
	return CLI_OK;
}

json_t *cli_json_hex(const uint8_t *p, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *s = malloc(len * 2 + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		s[2 * i] = hex[p[i] >> 4];
		s[2 * i + 1] = hex[p[i] & 15];
	}
	s[len * 2] = 0;
	json_t *j = json_string(s);
	free(s);
	return j;
}

json_t *cli_json_uint(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *cli_json_fixed(const char *field, size_t len)
{
	size_t n = 0;
	while (n < len && field[n])
		n++;
	while (n > 0 && field[n - 1] == ' ')
		n--;
	return json_stringn_nocheck(field, n);
}
