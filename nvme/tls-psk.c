/* SPDX-License-Identifier: MIT */
/*
 * NVMe/TCP TLS PSKs (see nvme/tls-psk.h for the API and the facts each function follows).
 *
 * HKDF is OpenSSL's EVP_KDF "HKDF" in one extract-and-expand call with no salt (RFC 5869:
 * HashLen zero bytes, the kernel's default_salt) and the whole HkdfLabel given as one
 * info parameter (EVP_PKEY_CTX_add1_hkdf_info, which libnvme called piece by piece,
 * replaced instead of appending in OpenSSL releases before June 2024). The PSK digest's
 * HMAC is nvme/dhchap.c's (the hash ids are the same). Base64 and the interchange text
 * are nvme/key-text.c's.
 */
#include "nvme/tls-psk.h"
#include "nvme/dhchap.h"
#include "nvme/errmsg.h"
#include "nvme/key-text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

static const char DIGEST_SEED[] = "NVMe-over-Fabrics";

/* ---- the interchange format ------------------------------------------------------- */

static const uint8_t psk_lens[] = { 32, 48, 0 };
static const struct nvme_key_text_form psk_form = {
	.prefix = "NVMeTLSkey-1:",
	.what = "NVMe TLS PSK",
	.a_what = "an NVMe TLS PSK",
	.lens = psk_lens,
	.colon_required = true,
};

/* The key length hash @hash (1, 2) takes; 0 for others. */
static size_t hash_key_len(unsigned hash)
{
	return hash == NVME_TLS_HASH_SHA256 ? 32 : hash == NVME_TLS_HASH_SHA384 ? 48 : 0;
}

/* The identity's hash for the configured PSK @k: its HH, or for HH 00 the one of its
 * length (libnvme's default_hmac); 0 when @k is malformed. */
static uint8_t identity_hash(const struct nvme_tls_psk *k)
{
	if (k->hash == 0)
		return k->len == 32 ? NVME_TLS_HASH_SHA256 :
		       k->len == 48 ? NVME_TLS_HASH_SHA384 :
				      0;
	return hash_key_len(k->hash) == k->len ? k->hash : 0;
}

int nvme_tls_psk_parse(const char *text, struct nvme_tls_psk *out, char *why, size_t whylen)
{
	uint8_t key[NVME_KEY_TEXT_MAX_KEY];
	unsigned hh = 0;
	size_t len = 0;
	int rc;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	rc = nvme_key_text_nn(text, &psk_form, &hh, why, whylen);
	if (rc)
		return rc;
	if (hh > NVME_TLS_HASH_SHA384)
		return nvme_errmsg(EINVAL, why, whylen,
				   "NVMeTLSkey-1:%02u: unknown PSK hash (00 none, 01 SHA-256, "
				   "02 SHA-384)",
				   hh);
	rc = nvme_key_text_key(text, &psk_form, key, &len, why, whylen);
	if (rc)
		return rc;
	if (hh && len != hash_key_len(hh)) {
		OPENSSL_cleanse(key, sizeof(key));
		return nvme_errmsg(
			EINVAL, why, whylen,
			"NVMeTLSkey-1:%02u: a key of %zu bytes for hash %02u (%s), got %zu", hh,
			hash_key_len(hh), hh, hh == NVME_TLS_HASH_SHA256 ? "SHA-256" : "SHA-384",
			len);
	}
	out->hash = (uint8_t)hh;
	out->len = (uint8_t)len;
	memcpy(out->key, key, len);
	OPENSSL_cleanse(key, sizeof(key));
	return 0;
}

int nvme_tls_psk_format(const struct nvme_tls_psk *k, char *out, size_t outlen)
{
	if (outlen)
		out[0] = '\0';
	if (!k || !identity_hash(k))
		return -EINVAL;
	return nvme_key_text_format(psk_form.prefix, k->hash, k->key, k->len, out, outlen);
}

/* ---- identities --------------------------------------------------------------------- */

/* Whether @c may be in an NQN of an identity: printable ASCII but the space that
 * separates the fields. */
static bool nqn_char(char c)
{
	return c > 0x20 && c < 0x7f;
}

/* Copy the field of @s (at most @len bytes) up to the next space or the end into @out
 * (@max characters at most, 1 at least, each nqn_char); returns its length or 0. */
static size_t take_field(const char *s, size_t len, char *out, size_t max)
{
	size_t n = 0;

	while (n < len && s[n] != ' ') {
		if (!nqn_char(s[n]) || n == max)
			return 0;
		n++;
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return n;
}

int nvme_tls_identity_parse(const char *id, size_t len, struct nvme_tls_identity *out)
{
	size_t at = 9, n, dlen;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/* "NVMe" v type hh ' ' */
	if (!id || len < 9 || memcmp(id, "NVMe", 4) || (id[4] != '0' && id[4] != '1') ||
	    (id[5] != 'R' && id[5] != 'G') || id[6] != '0' || (id[7] != '1' && id[7] != '2') ||
	    id[8] != ' ')
		goto bad;
	out->version = id[4] - '0';
	out->type = id[5];
	out->hash = (uint8_t)(id[7] - '0');
	n = take_field(id + at, len - at, out->hostnqn, NVME_TLS_NQN_MAX);
	at += n;
	if (!n || at >= len || id[at] != ' ')
		goto bad;
	at++;
	n = take_field(id + at, len - at, out->subnqn, NVME_TLS_NQN_MAX);
	at += n;
	if (!n)
		goto bad;
	if (out->version == 0) {
		if (at != len)
			goto bad;
		return 0;
	}
	/* Version 1: " <digest>", base64 of an HMAC of the identity's hash. */
	dlen = out->hash == NVME_TLS_HASH_SHA256 ? 44 : 64;
	if (at >= len || id[at] != ' ' || len - at - 1 != dlen)
		goto bad;
	at++;
	for (size_t i = 0; i < dlen; i++) {
		char c = id[at + i];
		bool b64 = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			   (c >= '0' && c <= '9') || c == '+' || c == '/' ||
			   (c == '=' && i + 2 >= dlen);

		if (!b64)
			goto bad;
	}
	memcpy(out->digest, id + at, dlen);
	out->digest[dlen] = '\0';
	return 0;
bad:
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

/* ---- derivation --------------------------------------------------------------------- */

/* An OpenSSL call failed: forget its error queue and say so. */
static int ossl_fail(void)
{
	ERR_clear_error();
	return -EIO;
}

/* @out = HKDF-Expand-Label(HKDF-Extract(0, @secret), @label, @ctx, @out_len) with hash
 * @hash (1, 2) in @compat or RFC 8446 layout (see nvme/tls-psk.h). */
static int expand_label(uint8_t hash, bool compat, const uint8_t *secret, size_t secret_len,
			const char *label, const char *ctx, size_t ctx_len, uint8_t *out,
			size_t out_len)
{
	char full[64];
	uint8_t info[2 + 1 + sizeof(full) + 1 + 255];
	size_t flen, n = 0;
	OSSL_PARAM params[5];
	EVP_KDF_CTX *kctx;
	EVP_KDF *kdf;
	int ok;

	flen = (size_t)snprintf(full, sizeof(full), "tls13 %s", label);
	if (ctx_len > 255 || flen >= sizeof(full))
		return -EINVAL;
	/* HkdfLabel: uint16 length; opaque label<7..255>; opaque context<0..255>. */
	info[n++] = (uint8_t)(compat ? out_len : out_len >> 8);
	info[n++] = (uint8_t)(compat ? out_len >> 8 : out_len);
	if (!compat)
		info[n++] = (uint8_t)flen;
	memcpy(info + n, full, flen);
	n += flen;
	if (!compat)
		info[n++] = (uint8_t)ctx_len;
	memcpy(info + n, ctx, ctx_len);
	n += ctx_len;

	kdf = EVP_KDF_fetch(NULL, OSSL_KDF_NAME_HKDF, NULL);
	kctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	EVP_KDF_free(kdf);
	if (!kctx)
		return ossl_fail();
	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_KDF_PARAM_DIGEST, hash == NVME_TLS_HASH_SHA256 ? "SHA2-256" : "SHA2-384", 0);
	params[1] =
		OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, secret_len);
	params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, n);
	params[3] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE,
						     (char *)"EXTRACT_AND_EXPAND", 0);
	params[4] = OSSL_PARAM_construct_end();
	ok = EVP_KDF_derive(kctx, out, out_len, params) > 0;
	/* Freeing the context clears the key it copied. */
	EVP_KDF_CTX_free(kctx);
	return ok ? 0 : ossl_fail();
}

/* Whether @nqn can be put in an identity: 1..223 characters, each nqn_char. */
static bool nqn_ok(const char *nqn)
{
	size_t n = 0;

	if (!nqn)
		return false;
	for (; nqn[n]; n++)
		if (n == NVME_TLS_NQN_MAX || !nqn_char(nqn[n]))
			return false;
	return n > 0;
}

/* The retained PSK of @k for @hostnqn into @out (@k->len bytes). */
static int retained_psk(const struct nvme_tls_psk *k, const char *hostnqn, bool compat,
			uint8_t *out)
{
	if (k->hash == 0) {
		memcpy(out, k->key, k->len);
		return 0;
	}
	return expand_label(k->hash, compat, k->key, k->len, "HostNQN", hostnqn, strlen(hostnqn),
			    out, k->len);
}

/* The PSK digest of @retained (@len bytes) for the identity's @hash and NQNs, base64,
 * into @out (128 bytes). */
static int psk_digest(uint8_t hash, const uint8_t *retained, size_t len, const char *hostnqn,
		      const char *subnqn, char *out)
{
	char msg[2 * NVME_TLS_NQN_MAX + sizeof(DIGEST_SEED) + 2];
	uint8_t mac[NVME_DHCHAP_MAX_HASH_LEN];
	int rc, n;

	n = snprintf(msg, sizeof(msg), "%s %s %s", hostnqn, subnqn, DIGEST_SEED);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -EINVAL;
	rc = nvme_dhchap_hmac(hash, retained, len, msg, (size_t)n, mac);
	if (!rc)
		rc = nvme_key_text_base64(mac, nvme_dhchap_hash_len(hash), out, 128);
	OPENSSL_cleanse(mac, sizeof(mac));
	return rc < 0 ? rc : 0;
}

/* Check @k, @version and the NQNs; the identity's hash, or -EINVAL. */
static int check_inputs(const struct nvme_tls_psk *k, int version, const char *hostnqn,
			const char *subnqn)
{
	uint8_t hash = k ? identity_hash(k) : 0;

	if (!hash || (version != 0 && version != 1) || !nqn_ok(hostnqn) || !nqn_ok(subnqn))
		return -EINVAL;
	return hash;
}

static int identity_make(const struct nvme_tls_psk *configured, int version, const char *hostnqn,
			 const char *subnqn, bool compat, char *out, size_t outlen)
{
	uint8_t retained[NVME_TLS_PSK_MAX];
	char digest[128] = "";
	int hash, rc, n;

	if (outlen)
		out[0] = '\0';
	hash = check_inputs(configured, version, hostnqn, subnqn);
	if (hash < 0)
		return hash;
	if (version == 1) {
		rc = retained_psk(configured, hostnqn, compat, retained);
		if (!rc)
			rc = psk_digest((uint8_t)hash, retained, configured->len, hostnqn, subnqn,
					digest);
		OPENSSL_cleanse(retained, sizeof(retained));
		if (rc)
			return rc;
	}
	n = snprintf(out, outlen, "NVMe%dR%02d %s %s%s%s", version, hash, hostnqn, subnqn,
		     version ? " " : "", digest);
	if (n < 0 || (size_t)n >= outlen) {
		if (outlen)
			out[0] = '\0';
		return -ENOSPC;
	}
	return n;
}

int nvme_tls_identity_make(const struct nvme_tls_psk *configured, int version, const char *hostnqn,
			   const char *subnqn, char *out, size_t outlen)
{
	return identity_make(configured, version, hostnqn, subnqn, false, out, outlen);
}

int nvme_tls_identity_make_compat(const struct nvme_tls_psk *configured, int version,
				  const char *hostnqn, const char *subnqn, char *out, size_t outlen)
{
	return identity_make(configured, version, hostnqn, subnqn, true, out, outlen);
}

static int derive(const struct nvme_tls_psk *configured, const struct nvme_tls_identity *id,
		  bool compat, struct nvme_tls_psk *tls_psk)
{
	uint8_t retained[NVME_TLS_PSK_MAX];
	char digest[128], ctx[2 * NVME_TLS_NQN_MAX + 16];
	int hash, rc = 0, n;

	if (!tls_psk)
		return -EINVAL;
	memset(tls_psk, 0, sizeof(*tls_psk));
	if (!id || id->type != 'R')
		return -EINVAL;
	hash = check_inputs(configured, id->version, id->hostnqn, id->subnqn);
	if (hash < 0 || hash != id->hash)
		return -EINVAL;
	rc = retained_psk(configured, id->hostnqn, compat, retained);
	if (rc)
		goto out;
	if (id->version == 1) {
		size_t dlen = strlen(id->digest);

		rc = psk_digest((uint8_t)hash, retained, configured->len, id->hostnqn, id->subnqn,
				digest);
		if (rc)
			goto out;
		if (dlen != strlen(digest) || CRYPTO_memcmp(digest, id->digest, dlen)) {
			rc = -EKEYREJECTED;
			goto out;
		}
		n = snprintf(ctx, sizeof(ctx), "%02d %s", hash, digest);
	} else {
		n = snprintf(ctx, sizeof(ctx), "NVMe0R%02d %s %s", hash, id->hostnqn, id->subnqn);
	}
	/* An HkdfLabel context holds 255 bytes: a version 0 identity of long NQNs does
	 * not fit (libnvme fails on it too). */
	if (n < 0 || n > 255) {
		rc = -EINVAL;
		goto out;
	}
	rc = expand_label((uint8_t)hash, compat, retained, configured->len, "nvme-tls-psk", ctx,
			  (size_t)n, tls_psk->key, configured->len);
	if (!rc) {
		tls_psk->hash = (uint8_t)hash;
		tls_psk->len = configured->len;
	}
out:
	OPENSSL_cleanse(retained, sizeof(retained));
	if (rc)
		OPENSSL_cleanse(tls_psk, sizeof(*tls_psk));
	return rc;
}

int nvme_tls_psk_derive(const struct nvme_tls_psk *configured, const struct nvme_tls_identity *id,
			struct nvme_tls_psk *tls_psk)
{
	return derive(configured, id, false, tls_psk);
}

int nvme_tls_psk_derive_compat(const struct nvme_tls_psk *configured,
			       const struct nvme_tls_identity *id, struct nvme_tls_psk *tls_psk)
{
	return derive(configured, id, true, tls_psk);
}

int nvme_tls_psk_derive_target(const struct nvme_tls_psk *configured,
			       const struct nvme_tls_identity *id, bool compat_v0,
			       struct nvme_tls_psk *tls_psk, bool *used_compat)
{
	bool compat = id->version == 0 && compat_v0;
	int rc = derive(configured, id, compat, tls_psk);
	/* Only a version 1 digest can say the host used the other layout. */
	if (rc == -EKEYREJECTED && id->version == 1) {
		compat = true;
		rc = derive(configured, id, true, tls_psk);
	}
	if (!rc && used_compat)
		*used_compat = compat;
	return rc;
}
