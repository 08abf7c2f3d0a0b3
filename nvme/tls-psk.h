/* SPDX-License-Identifier: MIT */
/*
 * NVMe/TCP TLS pre-shared keys (NVMe/TCP transport specification 2.0 section 3.6.1, from
 * TP 8011 and TP 8018): the PSK interchange format, the PSK identity, and the derivation
 * configured PSK -> retained PSK -> TLS PSK (the external PSK TLS 1.3 is given), computed
 * as libnvme (src/nvme/linux.c: derive_retained_key, derive_psk_digest,
 * gen_tls_identity, derive_tls_key) and the kernel (drivers/nvme/common/auth.c:
 * nvme_auth_generate_digest, nvme_auth_derive_tls_psk) compute them. No TLS here.
 *
 * Who derives what: `nvme gen-tls-key` prints a configured PSK in the interchange form;
 * with --insert, nvme-cli derives the TLS PSK and stores it in the kernel's ".nvme"
 * keyring under its identity (version 0 unless --identity=1), and the kernel host (6.12:
 * drivers/nvme/common/keyring.c) looks it up by the version 0 identity
 * "NVMe0R0<h> <hostnqn> <subnqn>" (SHA-384 first) and offers that identity and key in
 * its ClientHello. `nvme connect --tls-key=NVMeTLSkey-1:...` (or a JSON config's
 * tls_key) instead has libnvme insert a version 1 identity (it passes the text's
 * version, 1, as the identity version) whose key the kernel is given by serial. The
 * kernel derives nothing from a configured PSK; our target must derive what nvme-cli
 * did.
 *
 * Two HKDF-Expand-Label layouts exist in the field:
 *  - the RFC 8446 section 7.1 HkdfLabel (length big endian; label and context each
 *    after a length byte): libnvme 1.16 / nvme-cli 2.16 and later by default, and the
 *    kernel's nvme_auth_derive_tls_psk. nvme_tls_identity_make / nvme_tls_psk_derive.
 *  - "compat": what libnvme 1.15 / nvme-cli 2.15 and earlier computed for every key,
 *    kept by later ones as nvme_insert_tls_key_compat (nvme-cli --compat): length little
 *    endian, no length bytes. The *_compat functions. (A libnvme <= 1.15 built against
 *    an OpenSSL whose EVP_PKEY_CTX_add1_hkdf_info replaced instead of appending (OpenSSL
 *    issue 23448, fixed in the June 2024 releases, 3.3.1 among them; Debian 12's 3.0.19
 *    appends) hashed only the last piece of its info: neither layout; not supported.)
 *  The layouts give different retained PSKs, hence different digests: for a version 1
 *  identity the digest tells which layout the host used (derive with one, on
 *  -EKEYREJECTED try the other). For version 0 nothing does: the configuration says.
 *
 * Pure functions over caller buffers, no global state, thread safe. Key material this
 * module holds (retained PSKs, HKDF state) is zeroed (OPENSSL_cleanse) before return;
 * what it writes into the caller's structures is the caller's to zero. Messages never
 * contain key material. Crypto: OpenSSL 3's EVP_KDF "HKDF" and EVP_MAC HMAC.
 */
#ifndef NVMF_NVME_TLS_PSK_H
#define NVMF_NVME_TLS_PSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The PSK hash of the interchange format's HH field and of the identity: 1 SHA-256,
 * 2 SHA-384 (the ids of NVMe's DH-HMAC-CHAP hashes; TLS_AES_128_GCM_SHA256 and
 * TLS_AES_256_GCM_SHA384). HH 00 in the interchange format means "no transformation"
 * (the configured PSK is used as the retained PSK; the identity's hash is then the one
 * of the key's length), as libnvme's nvme_import_tls_key accepts and the specification
 * defines. */
enum nvme_tls_hash { NVME_TLS_HASH_SHA256 = 1, NVME_TLS_HASH_SHA384 = 2 };

#define NVME_TLS_PSK_MAX 48u

/* A PSK: @len bytes (32 for SHA-256, 48 for SHA-384) of @key, for @hash. For a configured
 * PSK @hash is the interchange format's HH: 0 (no transformation, @len 32 or 48), 1 or
 * 2; for a TLS PSK it is 1 or 2. */
struct nvme_tls_psk {
	uint8_t hash;
	uint8_t len;
	uint8_t key[NVME_TLS_PSK_MAX];
};

/* Bytes the interchange text of a 48-byte key takes: 89 and the NUL. */
#define NVME_TLS_PSK_TEXT_MAX 90u

/*
 * nvme_tls_psk_parse - parse the interchange form "NVMeTLSkey-1:HH:<base64>:" (what
 * `nvme gen-tls-key` prints; the NVMe/TCP PSK interchange format of TP 8018): HH 00 (32 or 48 bytes),
 * 01 (32) or 02 (48), then base64 of the key and its CRC-32 (zlib's, little endian), and
 * the closing ':' (required, as libnvme requires it). Base64 padding may be left out.
 * @out: set on success; zeroed on failure.
 * @why: on -EINVAL one line naming the fault, never the secret, e.g. "not an NVMe TLS
 *       PSK: it must start with \"NVMeTLSkey-1:\"", "NVMeTLSkey-1:03: unknown PSK hash
 *       (00 none, 01 SHA-256, 02 SHA-384)", "the secret's CRC-32 does not match its key
 *       (mistyped or damaged secret)", "NVMeTLSkey-1:01: a key of 32 bytes for hash 01
 *       (SHA-256), got 48", "the secret's closing ':' is missing"; may be NULL.
 * Returns 0 or -EINVAL.
 */
int nvme_tls_psk_parse(const char *text, struct nvme_tls_psk *out, char *why, size_t whylen);

/*
 * nvme_tls_psk_format - the interchange form of @k (HH = @k->hash) into @out, as
 * libnvme's nvme_export_tls_key_versioned writes it (with base64 padding and ':').
 * @outlen: at least NVME_TLS_PSK_TEXT_MAX for any key.
 * Returns the text's length (65 or 89), -EINVAL (@k's hash and length disagree) or
 * -ENOSPC.
 */
int nvme_tls_psk_format(const struct nvme_tls_psk *k, char *out, size_t outlen);

/* NQNs as NVMe has them: at most 223 bytes, and the NUL. */
#define NVME_TLS_NQN_MAX 223u

/* A parsed PSK identity (NVMe/TCP 2.0 section 3.6.1.3):
 * "NVMe<v><R|G><hh> <hostnqn> <subnqn>[ <digest>]". */
struct nvme_tls_identity {
	int version;  /* 0: no digest; 1: with the PSK digest */
	char type;    /* 'R' retained (configured) PSK, 'G' generated (secure channel
			     concatenation, NVMe Base 2.1 section 8.3.5.5.9) */
	uint8_t hash; /* 1 or 2 */
	char hostnqn[224];
	char subnqn[224];
	char digest[128]; /* base64 (44 characters for hash 1, 64 for 2), "" for version 0 */
};

/*
 * nvme_tls_identity_parse - parse @len bytes of @id (not NUL terminated: it comes from a
 * ClientHello's pre_shared_key extension). Strict, so that the identity rebuilt from
 * @out is byte for byte the one received: "NVMe", version '0' or '1', type 'R' or 'G',
 * hash "01" or "02", single spaces, NQNs of 1..223 printable ASCII characters without
 * spaces, for version 1 a digest of exactly 44 (hash 01) or 64 (02) base64 characters,
 * nothing else (no NUL, no trailing space).
 * Returns 0 or -EINVAL (@out zeroed).
 */
int nvme_tls_identity_parse(const char *id, size_t len, struct nvme_tls_identity *out);

/*
 * nvme_tls_identity_make - the identity a host offers for the configured PSK
 * @configured between @hostnqn and @subnqn (type 'R'; hh the hash of @configured, for
 * HH 00 the one of its length), version 0 ("NVMe0R01 <hostnqn> <subnqn>") or 1 (with the
 * PSK digest base64(HMAC(retained PSK, hostnqn " " subnqn " NVMe-over-Fabrics")), as
 * libnvme's nvme_generate_tls_key_identity; RFC 8446 layout).
 * @out: @outlen bytes; the identity and a NUL.
 * Returns its length, -ENOSPC, -EINVAL (version, hash/length of @configured, NQN empty,
 * longer than 223 or with a space), -EIO (OpenSSL failed).
 */
int nvme_tls_identity_make(const struct nvme_tls_psk *configured, int version, const char *hostnqn,
			   const char *subnqn, char *out, size_t outlen);

/* As nvme_tls_identity_make with libnvme's compat layout (nvme_generate_tls_key_identity_
 * compat): the same for version 0 (no digest), another digest for version 1. */
int nvme_tls_identity_make_compat(const struct nvme_tls_psk *configured, int version,
				  const char *hostnqn, const char *subnqn, char *out,
				  size_t outlen);

/*
 * nvme_tls_psk_derive - the TLS PSK for the configured PSK @configured and the identity
 * @id: retained PSK = HKDF-Expand-Label(HKDF-Extract(0, configured), "HostNQN", hostnqn,
 * len) with @configured's hash (HH 00: the configured PSK itself), then TLS PSK =
 * HKDF-Expand-Label(HKDF-Extract(0, retained), "nvme-tls-psk", context, len) with the
 * identity's hash, context the identity string (version 0) or "<hh> <digest>"
 * (version 1; the identity's digest is first checked, in constant time, against the one
 * computed). RFC 8446 layout.
 * @tls_psk: set on success (hash = the identity's, len = @configured->len); zeroed on
 *           failure.
 * Returns 0, -EINVAL (type 'G', version not 0/1, hash not the one of @configured,
 * malformed @configured or NQNs, a version 0 identity longer than 255 bytes, which an
 * HkdfLabel context cannot hold), -EKEYREJECTED (version 1 digest does not match: another
 * key, or the compat layout), -EIO (OpenSSL failed).
 */
int nvme_tls_psk_derive(const struct nvme_tls_psk *configured, const struct nvme_tls_identity *id,
			struct nvme_tls_psk *tls_psk);

/* As nvme_tls_psk_derive with libnvme's compat layout (what nvme-cli 2.15 and earlier
 * inserted; nvme-cli --compat later). */
int nvme_tls_psk_derive_compat(const struct nvme_tls_psk *configured,
			       const struct nvme_tls_identity *id, struct nvme_tls_psk *tls_psk);

/*
 * nvme_tls_psk_derive_target - the TLS PSK a target gives TLS 1.3 for the identity @id a
 * host offered with the configured PSK @configured, in the layout the host used: a
 * version 1 identity's digest tells it (RFC 8446 tried first, then compat), a version 0
 * one has none, so @compat_v0 (the host's configuration) says: true compat, false RFC 8446.
 * @tls_psk: as nvme_tls_psk_derive.
 * @used_compat: set on success to whether the compat layout gave the PSK; may be NULL.
 * Returns nvme_tls_psk_derive's codes; -EKEYREJECTED when a version 1 digest matches
 * neither layout (another key). A version 0 identity in the wrong layout is not detected
 * here: its TLS PSK differs, and the handshake's binder fails.
 */
int nvme_tls_psk_derive_target(const struct nvme_tls_psk *configured,
			       const struct nvme_tls_identity *id, bool compat_v0,
			       struct nvme_tls_psk *tls_psk, bool *used_compat);

#endif
