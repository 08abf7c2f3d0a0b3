// SPDX-License-Identifier: MIT
/*
 * Secrets in text (declared in secret.h): found and hidden wherever a user's words may be
 * shown, in util/ so that the log itself (util/log.c) hides them from every line.
 */
#include "util/secret.h"

#include <string.h>

/* The representations' prefixes: DH-HMAC-CHAP (NVMe Base 2.1 section 8.3.5.5) and the TLS
 * PSK interchange format of the NVMe/TCP transport specification. */
static const char *const secret_prefixes[] = { "DHHC-1:", "NVMeTLSkey-1:", NULL };

/* The first secret prefix in @s, or NULL. */
static char *find_secret(const char *s)
{
	char *first = NULL;
	for (const char *const *p = secret_prefixes; *p; p++) {
		char *at = strstr(s, *p);
		if (at && (!first || at < first))
			first = at;
	}
	return first;
}

bool nvmf_text_has_secret(const char *s)
{
	return s && find_secret(s);
}

/* A secret's field after its prefix: the NN field, then base64. */
static bool secret_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '/' || c == '=';
}

/* The end of a secret's text from @p, just past its prefix: "NN:base64:" (the two
 * fields and their closing ':'s, as far as they go), so a ':' that follows it, as in
 * "PATH: No such file", stays. */
static char *secret_end(char *p)
{
	for (int field = 0; field < 2; field++) {
		while (secret_char(*p))
			p++;
		if (*p != ':')
			break;
		p++;
	}
	return p;
}

unsigned nvmf_text_redact_secrets(char *s)
{
	static const char mark[] = "<secret>";
	unsigned n = 0;
	char *at;
	while (s && (at = find_secret(s))) {
		char *body = strchr(at, ':') + 1; /* past the prefix, which ends in ':' */
		char *end = secret_end(body);
		size_t m = sizeof(mark) - 1;
		/* A bare prefix, or the format's placeholder "NN:" (a message saying what a key
		 * looks like): nothing to hide. */
		if (end == body || (end - body == 3 && memcmp(body, "NN:", 3) == 0)) {
			s = end;
			continue;
		}
		/* "<secret>" is shorter than what it replaces: it fits in place. */
		memmove(at + m, end, strlen(end) + 1);
		memcpy(at, mark, m);
		s = at + m;
		n++;
	}
	return n;
}
