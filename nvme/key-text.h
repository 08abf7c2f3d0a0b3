/* SPDX-License-Identifier: MIT */
/*
 * The text form shared by NVMe's secrets: "PREFIX" NN ":" base64(key || CRC-32(key)) ":",
 * the DH-HMAC-CHAP secret representation of NVMe Base 2.1 section 8.3.5.5
 * ("DHHC-1:NN:...:", nvme/dhchap.c) and the TLS PSK interchange format of the NVMe/TCP
 * transport specification (TP 8018; "NVMeTLSkey-1:HH:...:", nvme/tls-psk.c).
 * NN is two decimal digits whose meaning (and allowed range) is the caller's; the CRC-32
 * is zlib's (IEEE 802.3, reflected, the kernel's ~crc32(~0, ...)), 4 bytes little
 * endian; base64 is RFC 4648's standard alphabet.
 *
 * Pure functions, no allocation. Messages never contain key material (a character
 * outside the base64 alphabet is named: it cannot be part of a key). Decoded key bytes
 * held on the stack are zeroed (OPENSSL_cleanse) before returning.
 */
#ifndef NVMF_NVME_KEY_TEXT_H
#define NVMF_NVME_KEY_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NVME_KEY_TEXT_MAX_KEY 64u /* the longest key either form carries (SHA-512 size) */

/* What one form is called and what it allows. */
struct nvme_key_text_form {
	const char *prefix;  /* "DHHC-1:", "NVMeTLSkey-1:" (with its ':') */
	const char *what;    /* for messages: "DH-HMAC-CHAP secret" */
	const char *a_what;  /* the same with its article: "a DH-HMAC-CHAP secret" */
	const uint8_t *lens; /* allowed key lengths in bytes, ascending, ended by 0 */
	bool colon_required; /* false: the closing ':' may be left out (as the kernel allows
				for DHHC-1) */
};

/*
 * nvme_key_text_nn - check @text's prefix and NN field (two decimal digits then ':').
 * @nn: set to NN (0..99).
 * Returns 0, or -EINVAL with a message in @err (may be NULL): "empty <what> (expected
 * <prefix>NN:<base64>:)", "not <a_what>: it must start with \"<prefix>\"",
 * "<prefix>NN: NN must be two digits followed by ':'".
 */
int nvme_key_text_nn(const char *text, const struct nvme_key_text_form *f, unsigned *nn, char *err,
		     size_t errlen);

/*
 * nvme_key_text_key - decode the key of @text, whose prefix and NN nvme_key_text_nn()
 * accepted: the base64 after "<prefix>NN:" up to the closing ':' (nothing may follow it),
 * its length (one of @f->lens plus the 4 CRC bytes), then the CRC-32.
 * @key: NVME_KEY_TEXT_MAX_KEY bytes; @len: set to the key's length. On failure @key is
 *       zeroed.
 * Returns 0, or -EINVAL with a message in @err (may be NULL): bad base64 (which
 * character, padding, bits), "the secret decodes to N bytes: expected a key of 32, 48 or
 * 64 bytes and its 4-byte CRC-32", "the secret's CRC-32 does not match its key
 * (mistyped or damaged secret)", "text after the secret's closing ':'", "the secret's
 * closing ':' is missing" (when @f requires it).
 */
int nvme_key_text_key(const char *text, const struct nvme_key_text_form *f, uint8_t *key,
		      size_t *len, char *err, size_t errlen);

/*
 * nvme_key_text_format - write "<prefix><NN>:<base64(key || CRC-32 LE)>:" (base64 with its
 * '=' padding, as nvme-cli writes it) and a NUL into @out.
 * @nn: 0..99; @len: 1..NVME_KEY_TEXT_MAX_KEY bytes of @key.
 * Returns the text's length (without the NUL), -EINVAL (@nn or @len out of range) or
 * -ENOSPC (@outlen too small; @out then holds "" when @outlen > 0).
 */
int nvme_key_text_format(const char *prefix, unsigned nn, const uint8_t *key, size_t len, char *out,
			 size_t outlen);

/* nvme_key_text_base64 - RFC 4648 base64 of @len bytes of @in, with '=' padding, and a NUL
 * into @out. Returns the text's length (4 * ceil(len / 3)) or -ENOSPC (@out then holds ""
 * when @outlen > 0). */
int nvme_key_text_base64(const uint8_t *in, size_t len, char *out, size_t outlen);

/* The zlib/IEEE 802.3 CRC-32 of @n bytes (isa-l's crc32_gzip_refl from 0): "123456789"
 * gives 0xcbf43926. */
uint32_t nvme_key_text_crc32(const uint8_t *p, size_t n);

#endif
