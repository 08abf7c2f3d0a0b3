/* Reading the known-answer files of the DH-HMAC-CHAP and TLS PSK tests (see
 * kat_fixture.h). */
#include "tests/unit/nvme/kat_fixture.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"

#ifndef DHCHAP_KAT_FILE
#define DHCHAP_KAT_FILE "build/gen/dhchap_kat.txt"
#endif
#ifndef TLS_PSK_KAT_FILE
#define TLS_PSK_KAT_FILE "build/gen/tls_psk_kat.txt"
#endif

/* Load @path, which tests/auth/@script writes. */
static bool load(struct kat *k, const char *path, const char *script)
{
	FILE *f = fopen(path, "r");
	long size = 0;
	size_t i = 0;

	memset(k, 0, sizeof(*k));
	if (!f) {
		fprintf(stderr, "\n    %s: %s (make unit writes it: python3 tests/auth/%s %s)\n",
			path, strerror(errno), script, path);
		return false;
	}
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET))
		k->buf = calloc(1, (size_t)size + 1);
	if (!k->buf || fread(k->buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		kat_free(k);
		return false;
	}
	fclose(f);
	for (const char *p = k->buf; *p; p++)
		k->n += *p == '\n';
	k->lines = calloc(k->n + 1, sizeof(*k->lines));
	for (char *p = k->buf, *nl; k->lines && i < k->n && (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		k->lines[i++] = p;
	}
	return k->lines != NULL;
}

bool kat_load(struct kat *k)
{
	return load(k, DHCHAP_KAT_FILE, "dhchap_kat.py");
}

bool kat_load_tls_psk(struct kat *k)
{
	return load(k, TLS_PSK_KAT_FILE, "tls_psk_kat.py");
}

void kat_free(struct kat *k)
{
	free(k->lines);
	free(k->buf);
	memset(k, 0, sizeof(*k));
}

const char *kat_next(const struct kat *k, const char *kind, size_t *i)
{
	size_t len = strlen(kind);

	while (*i < k->n) {
		const char *l = k->lines[(*i)++];

		if (!strncmp(l, kind, len) && l[len] == ' ')
			return l;
	}
	return NULL;
}

/* The value of " name=" in @l and its length, or NULL. */
static const char *field(const char *l, const char *name, size_t *len)
{
	char key[32];
	const char *v;

	snprintf(key, sizeof(key), " %s=", name);
	v = strstr(l, key);
	if (!v)
		return NULL;
	v += strlen(key);
	*len = strcspn(v, " ");
	return v;
}

bool kat_has(const char *l, const char *name)
{
	size_t len;

	return field(l, name, &len) != NULL;
}

void kat_str(const char *l, const char *name, char *out, size_t n)
{
	size_t len = 0;
	const char *v = field(l, name, &len);

	CU_ASSERT_FATAL(v != NULL && len < n);
	memcpy(out, v, len);
	out[len] = '\0';
}

unsigned long kat_num(const char *l, const char *name)
{
	char s[32];

	kat_str(l, name, s, sizeof(s));
	return strtoul(s, NULL, 10);
}

size_t kat_hex(const char *l, const char *name, uint8_t *out, size_t max)
{
	size_t len = 0;
	const char *v = field(l, name, &len);

	CU_ASSERT_FATAL(v != NULL && len % 2 == 0 && len / 2 <= max);
	for (size_t i = 0; i < len / 2; i++) {
		unsigned b;

		CU_ASSERT_FATAL(sscanf(v + 2 * i, "%2x", &b) == 1);
		out[i] = (uint8_t)b;
	}
	return len / 2;
}
