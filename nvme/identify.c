/* SPDX-License-Identifier: MIT */
/* Identify helpers: ASCII fields, version values, UUID/NGUID/EUI-64 text forms. */
#include "nvme/identify.h"
#include "nvme/errmsg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A character as a human reads it in a message: 'x' or \xNN. */
static const char *show_char(char c, char buf[8])
{
	unsigned char u = (unsigned char)c;

	if (u >= 0x20 && u < 0x7f)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "\\x%02x", u);
	return buf;
}

int nvme_ascii_field(char *field, size_t size, const char *src)
{
	size_t n;

	if (!src)
		src = "";
	memset(field, ' ', size);
	for (const char *p = src; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			return -EINVAL;
	n = strlen(src);
	memcpy(field, src, n < size ? n : size);
	return n > size ? -E2BIG : 0;
}

size_t nvme_ascii_field_str(char *dst, size_t dst_len, const char *field, size_t size)
{
	size_t n = strnlen(field, size);

	while (n && field[n - 1] == ' ')
		n--;
	if (!dst_len)
		return 0;
	if (n > dst_len - 1)
		n = dst_len - 1;
	memcpy(dst, field, n);
	dst[n] = '\0';
	return n;
}

/* Decimal digits at *p into *val (up to @max); advances *p. 0, -EINVAL, -ERANGE. */
static int parse_dec(const char **p, unsigned long max, unsigned long *val)
{
	const char *s = *p;
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max) {
			while (*s >= '0' && *s <= '9')
				s++;
			*p = s;
			return -ERANGE;
		}
	}
	*p = s;
	*val = v;
	return 0;
}

int nvme_version_parse(const char *s, uint32_t *vs, char *err, size_t errlen)
{
	static const char *const names[3] = { "major", "minor", "tertiary" };
	static const unsigned long max[3] = { 0xffff, 0xff, 0xff };
	unsigned long part[3] = { 0, 0, 0 };
	const char *p = s ? s : "";
	int i, rc;

	if (!*p)
		return nvme_errmsg(EINVAL, err, errlen,
				   "is empty, expected MAJOR.MINOR[.TERTIARY]");
	for (i = 0; i < 3; i++) {
		rc = parse_dec(&p, max[i], &part[i]);
		if (rc == -ERANGE)
			return nvme_errmsg(ERANGE, err, errlen, "%s version is above %lu", names[i],
					   max[i]);
		if (rc)
			break;
		if (*p != '.' || i == 2)
			break;
		p++;
	}
	/* Stopped on a non-digit, or after one part, or with text left over. */
	if (rc || i == 0 || *p)
		return nvme_errmsg(EINVAL, err, errlen,
				   "is not a version: expected MAJOR.MINOR or MAJOR.MINOR.TERTIARY "
				   "in decimal, e.g. 1.3 or 1.2.1");
	*vs = (uint32_t)(part[0] << 16 | part[1] << 8 | part[2]);
	return 0;
}

char *nvme_version_format(uint32_t vs, char *buf, size_t len)
{
	unsigned major = vs >> 16, minor = (vs >> 8) & 0xff, ter = vs & 0xff;

	if (ter)
		snprintf(buf, len, "%u.%u.%u", major, minor, ter);
	else
		snprintf(buf, len, "%u.%u", major, minor);
	return buf;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Two hex digits at s[i], s[i+1] into *byte; -EINVAL with the position otherwise. */
static int hex_pair(const char *s, size_t i, uint8_t *byte, char *err, size_t errlen)
{
	char cb[8];

	for (size_t k = i; k < i + 2; k++) {
		if (!s[k])
			return nvme_errmsg(EINVAL, err, errlen,
					   "ends after %zu characters, "
					   "in the middle of a hex byte",
					   k);
		if (hexval(s[k]) < 0)
			return nvme_errmsg(EINVAL, err, errlen,
					   "character %zu is %s, expected a hex digit", k + 1,
					   show_char(s[k], cb));
	}
	*byte = (uint8_t)(hexval(s[i]) << 4 | hexval(s[i + 1]));
	return 0;
}

int nvme_uuid_parse(const char *s, uint8_t out[16], char *err, size_t errlen)
{
	/* Positions of the dashes in the 36-character form. */
	static const size_t dash[4] = { 8, 13, 18, 23 };
	uint8_t b[16];
	size_t len, i = 0, n = 0;
	bool dashed;
	char cb[8];
	int rc;

	if (!s || !*s)
		return nvme_errmsg(EINVAL, err, errlen,
				   "is empty, expected a UUID "
				   "like 5a2c6ed0-9c53-4f5a-8d36-0c2b6f3e5d11");
	len = strlen(s);
	if (len != 36 && len != 32)
		return nvme_errmsg(EINVAL, err, errlen,
				   "has %zu characters, expected 36 "
				   "(8-4-4-4-12 with dashes) or 32 hex digits",
				   len);
	dashed = len == 36;
	while (n < 16) {
		if (dashed && n > 0 &&
		    (i == dash[0] || i == dash[1] || i == dash[2] || i == dash[3])) {
			if (s[i] != '-')
				return nvme_errmsg(EINVAL, err, errlen,
						   "character %zu is %s, expected '-' (8-4-4-4-12)",
						   i + 1, show_char(s[i], cb));
			i++;
		}
		rc = hex_pair(s, i, &b[n++], err, errlen);
		if (rc)
			return rc;
		i += 2;
	}
	memcpy(out, b, sizeof(b));
	return 0;
}

/* @n bytes of hex pairs, one optional '-' or ':' after each pair, nothing after. */
static int parse_hex_sep(const char *s, uint8_t *out, size_t n, const char *what, char *err,
			 size_t errlen)
{
	uint8_t b[16];
	size_t i = 0;
	char cb[8];
	int rc;

	if (!s || !*s)
		return nvme_errmsg(EINVAL, err, errlen, "is empty, expected %zu hex digits (%s)",
				   2 * n, what);
	for (size_t k = 0; k < n; k++) {
		rc = hex_pair(s, i, &b[k], err, errlen);
		if (rc)
			return rc;
		i += 2;
		if (k + 1 < n && (s[i] == '-' || s[i] == ':'))
			i++;
	}
	if (s[i])
		return nvme_errmsg(EINVAL, err, errlen,
				   "character %zu is %s after the %zu bytes "
				   "of the %s; expected the end",
				   i + 1, show_char(s[i], cb), n, what);
	memcpy(out, b, n);
	return 0;
}

int nvme_nguid_parse(const char *s, uint8_t out[16], char *err, size_t errlen)
{
	return parse_hex_sep(s, out, 16, "NGUID", err, errlen);
}

int nvme_eui64_parse(const char *s, uint8_t out[8], char *err, size_t errlen)
{
	return parse_hex_sep(s, out, 8, "EUI-64", err, errlen);
}

static const char hexdig[] = "0123456789abcdef";

char *nvme_uuid_format(const uint8_t in[16], char out[NVME_UUID_STR_LEN])
{
	char *p = out;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hexdig[in[i] >> 4];
		*p++ = hexdig[in[i] & 0xf];
	}
	*p = '\0';
	return out;
}

char *nvme_eui64_format(const uint8_t in[8], char out[NVME_EUI64_STR_LEN])
{
	for (int i = 0; i < 8; i++) {
		out[2 * i] = hexdig[in[i] >> 4];
		out[2 * i + 1] = hexdig[in[i] & 0xf];
	}
	out[16] = '\0';
	return out;
}
