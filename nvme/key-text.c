/* SPDX-License-Identifier: MIT */
/*
 * The "PREFIX:NN:<base64(key || CRC-32)>:" text of NVMe's secrets (see nvme/key-text.h).
 * Base64 is our own (a few lines; OpenSSL's EVP_DecodeBlock neither says which character
 * is wrong nor refuses stray bits); the CRC-32 is isa-l's, already linked for NVMe/TCP's
 * CRC32C.
 */
#include "nvme/key-text.h"
#include "nvme/errmsg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <isa-l/crc.h>
#include <openssl/crypto.h>

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

uint32_t nvme_key_text_crc32(const uint8_t *p, size_t n)
{
	/* isa-l's reflected IEEE CRC takes 0 to start and applies the ~ itself. */
	return crc32_gzip_refl(0, p, n);
}

/* The value of base64 character @c, or -1. */
static int b64_value(char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;

	return p ? (int)(p - b64_alphabet) : -1;
}

/* Decode @n characters of base64 (padding optional; bits left over must be 0) into @out,
 * at most @max bytes (@max_key in messages); @at is where @s starts in the text (messages
 * count characters of the whole text from 1). Returns the byte count, or -EINVAL. */
static int b64_decode(const char *s, size_t n, size_t at, uint8_t *out, size_t max, size_t max_key,
		      char *err, size_t errlen)
{
	uint32_t acc = 0;
	size_t len = 0, pad = 0, bits = 0;

	while (pad < 2 && n > pad && s[n - 1 - pad] == '=')
		pad++;
	/* A character outside the alphabet first: it says more than a length would. */
	for (size_t i = 0; i < n - pad; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (b64_value(s[i]) >= 0)
			continue;
		if (ch > 0x20 && ch < 0x7f)
			return nvme_errmsg(EINVAL, err, errlen,
					   "bad base64: character %zu of the "
					   "secret, '%c', is not in its alphabet (A-Z a-z 0-9 + /)",
					   at + i + 1, ch);
		return nvme_errmsg(EINVAL, err, errlen,
				   "bad base64: character %zu of the secret "
				   "is %s, not in its alphabet (A-Z a-z 0-9 + /)",
				   at + i + 1,
				   ch == ' ' ? "a space" :
				   ch < 0x80 ? "a control character" :
					       "not ASCII");
	}
	if (pad && n % 4)
		return nvme_errmsg(EINVAL, err, errlen,
				   "bad base64: padding '=' where no group of 4 ends");
	n -= pad;
	if (n % 4 == 1)
		return nvme_errmsg(EINVAL, err, errlen,
				   "bad base64: %zu characters cannot be whole bytes", n);
	for (size_t i = 0; i < n; i++) {
		acc = (acc << 6) | (uint32_t)b64_value(s[i]);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (len == max)
				return nvme_errmsg(EINVAL, err, errlen,
						   "the key is longer than %zu bytes", max_key);
			out[len++] = (uint8_t)(acc >> bits);
		}
	}
	if (acc & ((1u << bits) - 1))
		return nvme_errmsg(EINVAL, err, errlen,
				   "bad base64: the last character has bits set beyond the data");
	return (int)len;
}

int nvme_key_text_nn(const char *text, const struct nvme_key_text_form *f, unsigned *nn, char *err,
		     size_t errlen)
{
	size_t plen = strlen(f->prefix);
	const char *p;

	if (!text || !*text)
		return nvme_errmsg(EINVAL, err, errlen, "empty %s (expected %sNN:<base64>:)",
				   f->what, f->prefix);
	if (strncmp(text, f->prefix, plen))
		return nvme_errmsg(EINVAL, err, errlen, "not %s: it must start with \"%s\"",
				   f->a_what, f->prefix);
	p = text + plen;
	if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9' || p[2] != ':')
		return nvme_errmsg(EINVAL, err, errlen,
				   "%sNN: NN must be two digits followed by ':'", f->prefix);
	*nn = (unsigned)(p[0] - '0') * 10 + (unsigned)(p[1] - '0');
	return 0;
}

/* "32, 48 or 64" for the list @lens (ended by 0) into @out. */
static void lens_text(const uint8_t *lens, char *out, size_t outlen)
{
	size_t n = 0, at = 0;

	while (lens[n])
		n++;
	out[0] = '\0';
	for (size_t i = 0; i < n && at < outlen; i++) {
		int w = snprintf(out + at, outlen - at, "%s%u",
				 i == 0     ? "" :
				 i == n - 1 ? " or " :
					      ", ",
				 lens[i]);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

int nvme_key_text_key(const char *text, const struct nvme_key_text_form *f, uint8_t *key,
		      size_t *len, char *err, size_t errlen)
{
	uint8_t buf[NVME_KEY_TEXT_MAX_KEY + 4] = { 0 };
	size_t max_key = 0, klen;
	const char *b64, *end;
	bool allowed = false;
	char lens[40];
	uint32_t crc;
	int n;

	memset(key, 0, NVME_KEY_TEXT_MAX_KEY);
	*len = 0;
	for (const uint8_t *l = f->lens; *l; l++)
		max_key = *l;
	b64 = text + strlen(f->prefix) + 3; /* past "NN:", which nvme_key_text_nn checked */
	end = strchr(b64, ':');
	if (end && end[1])
		return nvme_errmsg(EINVAL, err, errlen, "text after the secret's closing ':'");
	if (!end && f->colon_required)
		return nvme_errmsg(EINVAL, err, errlen, "the secret's closing ':' is missing");
	if (!end)
		end = b64 + strlen(b64);
	n = b64_decode(b64, (size_t)(end - b64), (size_t)(b64 - text), buf, max_key + 4, max_key,
		       err, errlen);
	if (n < 0)
		goto out;
	for (const uint8_t *l = f->lens; *l; l++)
		allowed |= (size_t)n == (size_t)*l + 4;
	if (!allowed) {
		lens_text(f->lens, lens, sizeof(lens));
		n = nvme_errmsg(EINVAL, err, errlen,
				"the secret decodes to %d bytes: expected a key "
				"of %s bytes and its 4-byte CRC-32",
				n, lens);
		goto out;
	}
	klen = (size_t)n - 4;
	crc = (uint32_t)buf[klen] | (uint32_t)buf[klen + 1] << 8 | (uint32_t)buf[klen + 2] << 16 |
	      (uint32_t)buf[klen + 3] << 24;
	if (crc != nvme_key_text_crc32(buf, klen)) {
		n = nvme_errmsg(EINVAL, err, errlen,
				"the secret's CRC-32 does not match its key "
				"(mistyped or damaged secret)");
		goto out;
	}
	memcpy(key, buf, klen);
	*len = klen;
	n = 0;
out:
	OPENSSL_cleanse(buf, sizeof(buf));
	return n;
}

int nvme_key_text_base64(const uint8_t *in, size_t len, char *out, size_t outlen)
{
	size_t need = (len + 2) / 3 * 4, at = 0;

	if (outlen)
		out[0] = '\0';
	if (need >= outlen)
		return -ENOSPC;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t left = len - i;

		if (left > 1)
			v |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			v |= in[i + 2];
		out[at++] = b64_alphabet[v >> 18 & 63];
		out[at++] = b64_alphabet[v >> 12 & 63];
		out[at++] = left > 1 ? b64_alphabet[v >> 6 & 63] : '=';
		out[at++] = left > 2 ? b64_alphabet[v & 63] : '=';
	}
	out[at] = '\0';
	return (int)at;
}

int nvme_key_text_format(const char *prefix, unsigned nn, const uint8_t *key, size_t len, char *out,
			 size_t outlen)
{
	uint8_t buf[NVME_KEY_TEXT_MAX_KEY + 4];
	size_t plen = strlen(prefix), raw, need;
	uint32_t crc;
	int n;

	if (outlen)
		out[0] = '\0';
	if (nn > 99 || !len || len > NVME_KEY_TEXT_MAX_KEY)
		return -EINVAL;
	raw = len + 4;
	need = plen + 3 + (raw + 2) / 3 * 4 + 1; /* prefix, "NN:", base64, ':' */
	if (need >= outlen)
		return -ENOSPC;
	memcpy(buf, key, len);
	crc = nvme_key_text_crc32(key, len);
	for (int i = 0; i < 4; i++)
		buf[len + (size_t)i] = (uint8_t)(crc >> (8 * i));
	snprintf(out, outlen, "%s%02u:", prefix, nn);
	n = nvme_key_text_base64(buf, raw, out + plen + 3, outlen - plen - 3);
	OPENSSL_cleanse(buf, sizeof(buf));
	memcpy(out + need - 1, ":", 2);
	return n < 0 ? n : (int)need;
}
