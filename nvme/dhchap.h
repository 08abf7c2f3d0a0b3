/* SPDX-License-Identifier: MIT */
/*
 * DH-HMAC-CHAP, the cryptography of NVMe in-band authentication (NVMe Base Specification
 * 2.1 section 8.3.5.5, numbered 8.13.5 in Base 2.0), shared by the target and libnvmf:
 * secrets in their DHHC-1 form, the key transformation, the hash and HMAC helpers, the
 * FFDHE key exchange (RFC 7919 groups) and the values the protocol computes (augmented
 * challenge, host response R1, controller response R2). The messages that carry them are
 * in nvme/auth.h; the exchange itself is not here.
 *
 * Pure functions over byte buffers: no I/O, no logging, no global state; safe to call
 * from any thread. The primitives are OpenSSL 3's (EVP_MAC HMAC, EVP_Digest, EVP_PKEY
 * "DH" with its named groups, RAND_bytes); none is our own.
 *
 * Secrets: every buffer this module fills with key material of its own (decoded secrets,
 * transformed keys, hashed DH values, private exponents) is zeroed with OPENSSL_cleanse
 * before it is released; what it writes into the caller's buffers (responses, shared
 * secrets) is the caller's to zero. Error messages never contain key material.
 *
 * Conventions: byte strings are in wire order; DH values (public values and the shared
 * secret g^xy mod p) are unsigned big-endian integers left-padded with zeros to the size
 * of the group's prime, as RFC 7919 and the Linux kernel have them. Functions return 0 or
 * a negative errno: -EINVAL for a bad argument or input (the message says which when
 * there is an err buffer), -ENOMEM when an allocation failed, -EIO when OpenSSL failed
 * on valid input (its error queue is cleared).
 */
#ifndef NVMF_NVME_DHCHAP_H
#define NVMF_NVME_DHCHAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nvme/auth.h"

#define NVME_DHCHAP_MAX_HASH_LEN 64u   /* SHA-512: the largest hl */
#define NVME_DHCHAP_MAX_KEY_LEN  64u   /* secrets are 32, 48 or 64 bytes */
#define NVME_DHCHAP_MAX_DH_LEN   1024u /* ffdhe8192: the largest DH value */

/* ---- hash functions (enum nvme_auth_hash_id) --------------------------------------- */

/* Digest length in bytes of @hash_id: 32, 48 or 64; 0 for any other id. */
size_t nvme_dhchap_hash_len(uint8_t hash_id);

/* The names the kernel's configfs and nvmetcli use, ended by NULL (a control method's
 * choice list, control/schema.c): "hmac(sha256)", "hmac(sha384)", "hmac(sha512)", the
 * ids NVME_AUTH_HASH_SHA256 + index. These and the name/id functions below are
 * dhchap-names.c's, which needs no OpenSSL. */
#define NVME_DHCHAP_HASH_COUNT 3
extern const char *const nvme_dhchap_hash_names[NVME_DHCHAP_HASH_COUNT + 1];

/* The name of @hash_id (one of the above), or NULL for an unknown id. */
const char *nvme_dhchap_hash_name(uint8_t hash_id);

/* The hash id named @name (one of the names above, exactly), or -EINVAL. */
int nvme_dhchap_hash_id(const char *name);

/*
 * nvme_dhchap_hash - @out = H(@data), H the hash of @hash_id.
 * @out: nvme_dhchap_hash_len(@hash_id) bytes.
 * Returns 0, -EINVAL (unknown hash), -EIO.
 */
int nvme_dhchap_hash(uint8_t hash_id, const void *data, size_t len, uint8_t *out);

/*
 * nvme_dhchap_hmac - @out = HMAC-H(@key, @data) (RFC 2104), H the hash of @hash_id.
 * @key:  @key_len bytes, at least 1.
 * @out:  nvme_dhchap_hash_len(@hash_id) bytes.
 * Returns 0, -EINVAL (unknown hash, empty key), -ENOMEM, -EIO.
 */
int nvme_dhchap_hmac(uint8_t hash_id, const void *key, size_t key_len, const void *data, size_t len,
		     uint8_t *out);

/* ---- DH groups (enum nvme_auth_dhgroup_id) ----------------------------------------- */

/* Bytes of a DH value of @dhgroup_id (the size of its prime: 256 for ffdhe2048 up to
 * 1024 for ffdhe8192); 0 for the null group and for unknown ids. */
size_t nvme_dhchap_dhgroup_len(uint8_t dhgroup_id);

/* The configfs/nvmetcli names, indexed by id and ended by NULL (a choice list): "null",
 * "ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192" (dhchap-names.c). */
#define NVME_DHCHAP_DHGROUP_COUNT 6
extern const char *const nvme_dhchap_dhgroup_names[NVME_DHCHAP_DHGROUP_COUNT + 1];

/* The name of @dhgroup_id (one of the above), or NULL for an unknown id. */
const char *nvme_dhchap_dhgroup_name(uint8_t dhgroup_id);

/* The group id named @name (exactly as above), or -EINVAL. */
int nvme_dhchap_dhgroup_id(const char *name);

/* What AUTH_Failure1/2's reason code explanation @exp (enum nvme_auth_failure_exp) says,
 * for messages ("authentication failed", "hash function not usable", ...); "unknown
 * reason" for other values. */
const char *nvme_auth_failure_str(uint8_t exp);

/* ---- secrets ------------------------------------------------------------------------ */

/* A DH-HMAC-CHAP secret (a host's key or a controller's key) as parsed from its DHHC-1
 * form. The key bytes are secret: free it with nvme_dhchap_key_free(). */
struct nvme_dhchap_key {
	uint8_t hash;                         /* NN: 0 no transformation, else the hash id
						   the key is transformed with */
	size_t len;                           /* 32, 48 or 64 */
	uint8_t key[NVME_DHCHAP_MAX_KEY_LEN]; /* len bytes */
};

/*
 * nvme_dhchap_key_parse - parse a secret in the representation of NVMe Base 2.1 section
 * 8.3.5.5 ("DHHC-1:NN:<base64>:", what `nvme gen-dhchap-key` prints and the kernel's
 * dhchap_key attributes take).
 * @secret: "DHHC-1:" then NN, two decimal digits 00..03 (the transformation hash: 00 none,
 *          01 SHA-256, 02 SHA-384, 03 SHA-512), ":", the base64 (RFC 4648, padding
 *          optional, as the kernel accepts) of the key followed by the CRC-32 of the key
 *          (4 bytes, little endian; the zlib/IEEE 802.3 CRC-32, which is the kernel's
 *          ~crc32(~0, key, len)), then ":" (which may be left out, as the kernel allows).
 *          The key is 32, 48 or 64 bytes whatever NN is, as the kernel accepts it
 *          (nvme-cli makes a key as long as NN's digest).
 * @out:    set to the new key on success, NULL otherwise.
 * @err:    on -EINVAL, a message naming what is wrong (never any key material); may be
 *          NULL.
 * Returns 0, -EINVAL (empty, wrong prefix, NN not 00..03, bad base64, wrong length,
 * CRC mismatch, text after the closing ':'), -ENOMEM.
 */
int nvme_dhchap_key_parse(const char *secret, struct nvme_dhchap_key **out, char *err,
			  size_t errlen);

/* Zero (OPENSSL_cleanse) and free a key from nvme_dhchap_key_parse(); NULL is a no-op. */
void nvme_dhchap_key_free(struct nvme_dhchap_key *key);

/*
 * nvme_dhchap_transform_key - the transformed key Kh or Kc the responses are keyed with
 * (NVMe Base 2.1 section 8.3.5.5): for NN 00 the key itself, otherwise
 * HMAC-H(key, NQN || "NVMe-over-Fabrics") with H the hash NN names (NQN without its NUL;
 * the host's NQN for the host's key, the subsystem's for the controller's), as the
 * kernel's nvme_auth_transform_key and libnvme's nvme_gen_dhchap_key compute it.
 * @out:     NVME_DHCHAP_MAX_KEY_LEN bytes; the caller zeroes it after use.
 * @out_len: set to the transformed key's length: @key->len for NN 00, else NN's digest
 *           length (as the kernel since its 2023 commit "nvme-auth: use transformed key
 *           size to create resp"; earlier kernels keyed the HMAC with key->len bytes of
 *           it, the same for every secret nvme-cli makes).
 * Returns 0, -EINVAL (bad NN or length, NULL NQN), -ENOMEM, -EIO.
 */
int nvme_dhchap_transform_key(const struct nvme_dhchap_key *key, const char *nqn, uint8_t *out,
			      size_t *out_len);

/* ---- the protocol's values (NVMe Base 2.1 section 8.3.5.5) ------------------------- */

/*
 * nvme_dhchap_augmented_challenge - Ca = HMAC-H(H(g^xy mod p), C) (section 8.3.5.5.4),
 * the challenge a response is computed over when a DH group is in use; H is the
 * negotiated hash. H(g^xy mod p) is also the session key Ks of section 8.3.5.5.9.
 * @shared:    the shared secret, @shared_len bytes (the group's size, see above).
 * @challenge: C1 or C2, nvme_dhchap_hash_len(@hash_id) bytes.
 * @out:       Ca, nvme_dhchap_hash_len(@hash_id) bytes.
 * Returns 0, -EINVAL (unknown hash, empty secret), -ENOMEM, -EIO.
 */
int nvme_dhchap_augmented_challenge(uint8_t hash_id, const uint8_t *shared, size_t shared_len,
				    const uint8_t *challenge, uint8_t *out);

/* What a response covers besides the key. */
struct nvme_dhchap_resp_args {
	uint8_t hash_id;          /* the negotiated hash: the HMAC's and hl */
	const uint8_t *challenge; /* hl bytes: C1 (for R1) or C2 (for R2) with the null DH
				       group, their augmented Ca otherwise */
	uint32_t seqnum;          /* S1 (R1) or S2 (R2); hashed as 4 bytes little endian */
	uint16_t t_id;            /* the transaction id; 2 bytes little endian */
	uint8_t sc_c;             /* SC_C of AUTH_Negotiate; 00h on RDMA */
	const char *hostnqn;      /* NUL-terminated; hashed without the NUL */
	const char *subsysnqn;
};

/*
 * nvme_dhchap_host_response - R1 = HMAC-H(Kh, Ca || S1 || T_ID || SC_C || "HostHost" ||
 * NQNh || 00h || NQNc), Kh the host key transformed with the host NQN: what the host
 * sends in DH-HMAC-CHAP_Reply and the controller recomputes (kernel:
 * nvme_auth_dhchap_setup_host_response, nvmet_auth_host_hash; the kernel hashes the SC_C
 * of AUTH_Negotiate there since its 2025 commit "nvme-auth: update sc_c in host
 * response", a zero byte before: the same on RDMA, where SC_C is always 00h).
 * @out: hl bytes. Returns 0, -EINVAL (unknown hash, NULL argument, bad key), -ENOMEM, -EIO.
 */
int nvme_dhchap_host_response(const struct nvme_dhchap_key *host_key,
			      const struct nvme_dhchap_resp_args *a, uint8_t *out);

/*
 * nvme_dhchap_ctrl_response - R2 = HMAC-H(Kc, Ca || S2 || T_ID || SC_C || "Controller" ||
 * NQNc || 00h || NQNh), Kc the controller key transformed with the subsystem NQN: what
 * the controller sends in DH-HMAC-CHAP_Success1 when the host asked for it (kernel:
 * nvmet_auth_ctrl_hash, nvme_auth_dhchap_setup_ctrl_response, which hash a zero byte for
 * SC_C: pass 0, as RDMA always has).
 * @out: hl bytes. Returns as nvme_dhchap_host_response().
 */
int nvme_dhchap_ctrl_response(const struct nvme_dhchap_key *ctrl_key,
			      const struct nvme_dhchap_resp_args *a, uint8_t *out);

/* Compare two responses in constant time (CRYPTO_memcmp): true when the @len bytes are
 * the same. */
bool nvme_dhchap_equal(const uint8_t *a, const uint8_t *b, size_t len);

/* Fill @buf with @len bytes from OpenSSL's CSPRNG (challenges C1/C2, sequence numbers,
 * transaction ids). Returns 0 or -EIO. */
int nvme_dhchap_random(void *buf, size_t len);

/* ---- FFDHE key exchange (RFC 7919 groups through OpenSSL) -------------------------- */

/* One side's DH key pair in one group; opaque, holds a private exponent. */
struct nvme_dhchap_dh;

/*
 * nvme_dhchap_dh_generate - a new key pair in @dhgroup_id (ffdhe2048..8192), private
 * exponent from OpenSSL's generator (its length: twice the group's security strength in
 * bits, as OpenSSL picks for the named groups).
 * Returns 0, -EINVAL (null or unknown group), -ENOMEM, -EIO.
 */
int nvme_dhchap_dh_generate(uint8_t dhgroup_id, struct nvme_dhchap_dh **out);

/*
 * nvme_dhchap_dh_from_private - the key pair of a given private exponent, for known-answer
 * tests: public value g^x mod p computed by OpenSSL.
 * @priv: x, @len bytes big endian, 1 <= x < q = (p - 1) / 2.
 * Returns 0, -EINVAL (null or unknown group, x out of range), -ENOMEM, -EIO.
 */
int nvme_dhchap_dh_from_private(uint8_t dhgroup_id, const uint8_t *priv, size_t len,
				struct nvme_dhchap_dh **out);

/* The size in bytes of this pair's DH values (nvme_dhchap_dhgroup_len of its group). */
size_t nvme_dhchap_dh_len(const struct nvme_dhchap_dh *dh);

/*
 * nvme_dhchap_dh_public - our DH value g^x mod p, the DH value of the Challenge (controller)
 * or of the Reply (host).
 * @out: @len bytes, @len = nvme_dhchap_dh_len(); big endian, left-padded with zeros.
 * Returns 0, -EINVAL (wrong @len), -ENOMEM, -EIO.
 */
int nvme_dhchap_dh_public(const struct nvme_dhchap_dh *dh, uint8_t *out, size_t len);

/*
 * nvme_dhchap_dh_shared - the shared secret (g^y)^x mod p from the peer's DH value.
 * The peer's value is refused unless it is exactly nvme_dhchap_dh_len() bytes and
 * 1 < y < p - 1 (0, 1, p - 1 and anything >= p are refused with a message saying so),
 * and then unless OpenSSL's full public key check passes (y^q mod p = 1: y lies in the
 * prime-order subgroup).
 * @out:     @out_len bytes, at least nvme_dhchap_dh_len(); the first dh_len bytes get the
 *           secret, big endian, left-padded with zeros (as the kernel's). The caller zeroes
 *           it after use.
 * @err:     on -EINVAL, what is wrong with the peer's value; may be NULL.
 * Returns 0, -EINVAL (bad peer value, @out too small), -ENOMEM, -EIO.
 */
int nvme_dhchap_dh_shared(const struct nvme_dhchap_dh *dh, const uint8_t *peer, size_t peer_len,
			  uint8_t *out, size_t out_len, char *err, size_t errlen);

/* Free a key pair (OpenSSL zeroes the private exponent); NULL is a no-op. */
void nvme_dhchap_dh_free(struct nvme_dhchap_dh *dh);

#endif
