/* SPDX-License-Identifier: MIT */
/* The size grammar (see size.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "util/size.h"

/* Digits of @s in @base into *v, *end past them: 0, -EINVAL (none) or -ERANGE. */
static int digits(const char *s, unsigned base, uint64_t *v, const char **end)
{
	uint64_t x = 0;
	const char *p = s;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		else
			break;
		if (x > (UINT64_MAX - d) / base)
			return -ERANGE;
		x = x * base + d;
	}
	if (p == s)
		return -EINVAL;
	*v = x;
	*end = p;
	return 0;
}

int nvmf_size_parse(const char *text, uint64_t *out)
{
	static const char units[] = "kmgtp";
	const char *end;
	uint64_t v;
	if (!text || !*text)
		return -EINVAL;
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		int rc = digits(text + 2, 16, &v, &end);
		if (rc)
			return rc;
		if (*end)
			return -EINVAL;
		*out = v;
		return 0;
	}
	int rc = digits(text, 10, &v, &end);
	if (rc)
		return rc;
	unsigned shift = 0;
	if (*end) {
		const char *u = strchr(units, tolower((unsigned char)*end));
		if (!u || !*u)
			return -EINVAL;
		shift = 10u * (unsigned)(u - units + 1);
		end++;
		if (*end && strcasecmp(end, "b") && strcasecmp(end, "ib"))
			return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

int nvmf_size_parse_msg(const char *text, const char *what, uint64_t *out, char *msg, size_t len)
{
	int rc = nvmf_size_parse(text, out);
	if (rc == -ERANGE)
		snprintf(msg, len, "%s '%s' is too large", what, text);
	else if (rc)
		snprintf(msg, len, "%s '%s' is not a size (" NVMF_SIZE_GRAMMAR ")", what,
			 text ? text : "");
	return rc;
}

int nvmf_u64_parse(const char *text, uint64_t *out)
{
	const char *end;
	uint64_t v;
	if (!text || !*text)
		return -EINVAL;
	bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
	int rc = digits(hex ? text + 2 : text, hex ? 16 : 10, &v, &end);
	if (rc)
		return rc;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}
