/* SPDX-License-Identifier: MIT */
/*
 * DH-HMAC-CHAP cryptography over OpenSSL 3 (see nvme/dhchap.h for the API and the
 * facts each function follows).
 *
 * The key transformation is computed here with EVP_MAC rather than through libnvme's
 * nvme_gen_dhchap_key(), which computes the same HMAC (the unit tests check the two
 * agree): that function creates and tears down a whole OpenSSL library context on every
 * call (about 0.6 ms of CPU, measured here, against microseconds for one EVP_MAC HMAC,
 * and it runs for every queue of every controller), takes its NQN and secret through
 * non-const pointers, and a libnvme built without OpenSSL refuses every hash with it.
 */
#include "nvme/dhchap.h"
#include "nvme/errmsg.h"
#include "nvme/key-text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/dh.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

/* What an id stands for: OpenSSL's digest name (hashes) and the length in bytes (of a
 * digest; of a DH value). The names the kernel's configfs and nvmetcli use (for a DH
 * group also OpenSSL's group name) are dhchap-names.c's. */
struct id_info {
	const char *digest;
	size_t len;
};

static const struct id_info hashes[] = {
	[NVME_AUTH_HASH_SHA256] = { "SHA2-256", 32 },
	[NVME_AUTH_HASH_SHA384] = { "SHA2-384", 48 },
	[NVME_AUTH_HASH_SHA512] = { "SHA2-512", 64 },
};

static const struct id_info dhgroups[] = {
	[NVME_AUTH_DHGROUP_NULL] = { NULL, 0 },   [NVME_AUTH_DHGROUP_2048] = { NULL, 256 },
	[NVME_AUTH_DHGROUP_3072] = { NULL, 384 }, [NVME_AUTH_DHGROUP_4096] = { NULL, 512 },
	[NVME_AUTH_DHGROUP_6144] = { NULL, 768 }, [NVME_AUTH_DHGROUP_8192] = { NULL, 1024 },
};

#define N_HASHES   (sizeof(hashes) / sizeof(hashes[0]))
#define N_DHGROUPS (sizeof(dhgroups) / sizeof(dhgroups[0]))

static const char TRANSFORM_SEED[] = "NVMe-over-Fabrics";

/* An OpenSSL call failed: forget its error queue (it would surface in an unrelated
 * later call) and say so. */
static int ossl_fail(void)
{
	ERR_clear_error();
	return -EIO;
}

/* ---- hash functions ---------------------------------------------------------------- */

/* The entry of @id in table @t of @n entries, or a blank one (length 0). */
static struct id_info lookup(const struct id_info *t, size_t n, uint8_t id)
{
	static const struct id_info none;

	return id < n ? t[id] : none;
}

size_t nvme_dhchap_hash_len(uint8_t hash_id)
{
	return lookup(hashes, N_HASHES, hash_id).len;
}

int nvme_dhchap_hash(uint8_t hash_id, const void *data, size_t len, uint8_t *out)
{
	size_t hl = nvme_dhchap_hash_len(hash_id);
	unsigned int outl = 0;
	EVP_MD *md;
	int ok;

	if (!hl)
		return -EINVAL;
	md = EVP_MD_fetch(NULL, hashes[hash_id].digest, NULL);
	ok = md && EVP_Digest(data, len, out, &outl, md, NULL) && outl == hl;
	EVP_MD_free(md);
	return ok ? 0 : ossl_fail();
}

/* One piece of an HMAC's message. */
struct chunk {
	const void *p;
	size_t n;
};

/* @out = HMAC-H(@key, the concatenation of the @nc chunks). */
static int hmac_chunks(uint8_t hash_id, const void *key, size_t key_len, const struct chunk *c,
		       size_t nc, uint8_t *out)
{
	size_t hl = nvme_dhchap_hash_len(hash_id), outl = 0;
	OSSL_PARAM params[2];
	EVP_MAC_CTX *ctx;
	EVP_MAC *mac;
	int ok;

	if (!hl || !key || !key_len)
		return -EINVAL;
	mac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_HMAC, NULL);
	ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	if (!ctx) {
		EVP_MAC_free(mac);
		ERR_clear_error();
		return -ENOMEM;
	}
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						     (char *)hashes[hash_id].digest, 0);
	params[1] = OSSL_PARAM_construct_end();
	ok = EVP_MAC_init(ctx, key, key_len, params);
	for (size_t i = 0; ok && i < nc; i++)
		ok = EVP_MAC_update(ctx, c[i].p, c[i].n);
	ok = ok && EVP_MAC_final(ctx, out, &outl, hl) && outl == hl;
	/* Freeing the context clears the key and the hash state it holds. */
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return ok ? 0 : ossl_fail();
}

int nvme_dhchap_hmac(uint8_t hash_id, const void *key, size_t key_len, const void *data, size_t len,
		     uint8_t *out)
{
	const struct chunk c = { data, len };

	return hmac_chunks(hash_id, key, key_len, &c, 1, out);
}

/* ---- DH groups --------------------------------------------------------------------- */

size_t nvme_dhchap_dhgroup_len(uint8_t dhgroup_id)
{
	return lookup(dhgroups, N_DHGROUPS, dhgroup_id).len;
}

const char *nvme_auth_failure_str(uint8_t exp)
{
	switch (exp) {
	case NVME_AUTH_FAILURE_FAILED:
		return "authentication failed";
	case NVME_AUTH_FAILURE_NOT_USABLE:
		return "authentication protocol not usable";
	case NVME_AUTH_FAILURE_CONCAT_MISMATCH:
		return "secure channel concatenation mismatch";
	case NVME_AUTH_FAILURE_HASH_UNUSABLE:
		return "hash function not usable";
	case NVME_AUTH_FAILURE_DHGROUP_UNUSABLE:
		return "DH group not usable";
	case NVME_AUTH_FAILURE_INCORRECT_PAYLOAD:
		return "incorrect payload";
	case NVME_AUTH_FAILURE_INCORRECT_MESSAGE:
		return "incorrect protocol message";
	default:
		return "unknown reason";
	}
}

/* ---- secrets ----------------------------------------------------------------------- */

static const uint8_t secret_lens[] = { 32, 48, 64, 0 };

/* The DHHC-1 representation (nvme/key-text.h's shared codec); the closing ':' may be left
 * out, as the kernel allows. */
static const struct nvme_key_text_form secret_form = {
	.prefix = "DHHC-1:",
	.what = "DH-HMAC-CHAP secret",
	.a_what = "a DH-HMAC-CHAP secret",
	.lens = secret_lens,
	.colon_required = false,
};

int nvme_dhchap_key_parse(const char *secret, struct nvme_dhchap_key **out, char *err,
			  size_t errlen)
{
	uint8_t buf[NVME_KEY_TEXT_MAX_KEY];
	struct nvme_dhchap_key *key;
	unsigned nn = 0;
	size_t len = 0;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	rc = nvme_key_text_nn(secret, &secret_form, &nn, err, errlen);
	if (rc)
		return rc;
	/* NN before the key: an unknown transformation says more than a bad body would. */
	if (nn > NVME_AUTH_HASH_SHA512)
		return nvme_errmsg(EINVAL, err, errlen,
				   "DHHC-1:%02u: unknown key transformation "
				   "(00 none, 01 SHA-256, 02 SHA-384, 03 SHA-512)",
				   nn);
	rc = nvme_key_text_key(secret, &secret_form, buf, &len, err, errlen);
	if (rc)
		return rc;
	key = malloc(sizeof(*key));
	if (!key) {
		OPENSSL_cleanse(buf, sizeof(buf));
		return -ENOMEM;
	}
	memset(key, 0, sizeof(*key));
	key->hash = (uint8_t)nn;
	key->len = len;
	memcpy(key->key, buf, len);
	OPENSSL_cleanse(buf, sizeof(buf));
	*out = key;
	return 0;
}

void nvme_dhchap_key_free(struct nvme_dhchap_key *key)
{
	if (!key)
		return;
	OPENSSL_cleanse(key, sizeof(*key));
	free(key);
}

static bool key_valid(const struct nvme_dhchap_key *key)
{
	return key && (key->len == 32 || key->len == 48 || key->len == 64) && key->hash < N_HASHES;
}

int nvme_dhchap_transform_key(const struct nvme_dhchap_key *key, const char *nqn, uint8_t *out,
			      size_t *out_len)
{
	struct chunk c[2];
	int ret;

	if (!key_valid(key) || !nqn || !out || !out_len)
		return -EINVAL;
	if (key->hash == 0) {
		memcpy(out, key->key, key->len);
		*out_len = key->len;
		return 0;
	}
	c[0] = (struct chunk){ nqn, strlen(nqn) };
	c[1] = (struct chunk){ TRANSFORM_SEED, strlen(TRANSFORM_SEED) };
	ret = hmac_chunks(key->hash, key->key, key->len, c, 2, out);
	*out_len = ret ? 0 : nvme_dhchap_hash_len(key->hash);
	return ret;
}

/* ---- the protocol's values --------------------------------------------------------- */

int nvme_dhchap_augmented_challenge(uint8_t hash_id, const uint8_t *shared, size_t shared_len,
				    const uint8_t *challenge, uint8_t *out)
{
	uint8_t ks[NVME_DHCHAP_MAX_HASH_LEN];
	size_t hl = nvme_dhchap_hash_len(hash_id);
	int ret;

	if (!hl || !shared || !shared_len || !challenge || !out)
		return -EINVAL;
	ret = nvme_dhchap_hash(hash_id, shared, shared_len, ks);
	if (!ret)
		ret = nvme_dhchap_hmac(hash_id, ks, hl, challenge, hl, out);
	OPENSSL_cleanse(ks, sizeof(ks));
	return ret;
}

/*
 * HMAC-H(T(@key, @nqn1), challenge || seqnum || t_id || sc_c || @label || @nqn1 ||
 * 00h || @nqn2): the shape R1 and R2 share.
 */
static int response(const struct nvme_dhchap_key *key, const struct nvme_dhchap_resp_args *a,
		    const char *label, const char *nqn1, const char *nqn2, uint8_t *out)
{
	uint8_t kx[NVME_DHCHAP_MAX_KEY_LEN], hdr[7];
	static const uint8_t zero;
	size_t hl, kx_len = 0;
	int ret;

	if (!a || !out || !nqn1 || !nqn2 || !a->challenge)
		return -EINVAL;
	hl = nvme_dhchap_hash_len(a->hash_id);
	if (!hl)
		return -EINVAL;
	hdr[0] = (uint8_t)a->seqnum;
	hdr[1] = (uint8_t)(a->seqnum >> 8);
	hdr[2] = (uint8_t)(a->seqnum >> 16);
	hdr[3] = (uint8_t)(a->seqnum >> 24);
	hdr[4] = (uint8_t)a->t_id;
	hdr[5] = (uint8_t)(a->t_id >> 8);
	hdr[6] = a->sc_c;
	const struct chunk c[] = {
		{ a->challenge, hl },   { hdr, sizeof(hdr) }, { label, strlen(label) },
		{ nqn1, strlen(nqn1) }, { &zero, 1 },         { nqn2, strlen(nqn2) },
	};
	/* The key is transformed with the NQN of the side it belongs to: nqn1. */
	ret = nvme_dhchap_transform_key(key, nqn1, kx, &kx_len);
	if (!ret)
		ret = hmac_chunks(a->hash_id, kx, kx_len, c, sizeof(c) / sizeof(c[0]), out);
	OPENSSL_cleanse(kx, sizeof(kx));
	return ret;
}

int nvme_dhchap_host_response(const struct nvme_dhchap_key *host_key,
			      const struct nvme_dhchap_resp_args *a, uint8_t *out)
{
	return a ? response(host_key, a, "HostHost", a->hostnqn, a->subsysnqn, out) : -EINVAL;
}

int nvme_dhchap_ctrl_response(const struct nvme_dhchap_key *ctrl_key,
			      const struct nvme_dhchap_resp_args *a, uint8_t *out)
{
	return a ? response(ctrl_key, a, "Controller", a->subsysnqn, a->hostnqn, out) : -EINVAL;
}

bool nvme_dhchap_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

int nvme_dhchap_random(void *buf, size_t len)
{
	if (len > (size_t)INT32_MAX)
		return -EINVAL;
	return RAND_bytes(buf, (int)len) == 1 ? 0 : ossl_fail();
}

/* ---- FFDHE ------------------------------------------------------------------------- */

struct nvme_dhchap_dh {
	uint8_t group;
	size_t len;     /* bytes of p */
	EVP_PKEY *pkey; /* the key pair */
	BIGNUM *p;      /* the group's prime, for checking peer values */
};

/* A DH key from parameters: the group's name and, when not NULL, @priv and/or @pub.
 * @selection: EVP_PKEY_KEY_PARAMETERS, EVP_PKEY_PUBLIC_KEY or EVP_PKEY_KEYPAIR. */
static int dh_fromdata(uint8_t group, const BIGNUM *priv, const BIGNUM *pub, int selection,
		       EVP_PKEY **out)
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	OSSL_PARAM *params = NULL;
	int ok;

	*out = NULL;
	ok = bld && ctx &&
	     OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
					     nvme_dhchap_dhgroup_names[group], 0) &&
	     (!priv || OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv)) &&
	     (!pub || OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PUB_KEY, pub)) &&
	     (params = OSSL_PARAM_BLD_to_param(bld)) != NULL && EVP_PKEY_fromdata_init(ctx) > 0 &&
	     EVP_PKEY_fromdata(ctx, out, selection, params) > 0;
	/* A private exponent went into the builder's secure part (priv is a secure BIGNUM),
	 * which OSSL_PARAM_free clears. */
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EVP_PKEY_CTX_free(ctx);
	return ok ? 0 : ossl_fail();
}

static int dh_new(uint8_t group, EVP_PKEY *pkey, struct nvme_dhchap_dh **out)
{
	struct nvme_dhchap_dh *dh = calloc(1, sizeof(*dh));

	if (!dh) {
		EVP_PKEY_free(pkey);
		return -ENOMEM;
	}
	dh->group = group;
	dh->len = dhgroups[group].len;
	dh->pkey = pkey;
	if (!EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_FFC_P, &dh->p) ||
	    (size_t)BN_num_bytes(dh->p) != dh->len) {
		nvme_dhchap_dh_free(dh);
		return ossl_fail();
	}
	*out = dh;
	return 0;
}

static bool group_valid(uint8_t group)
{
	return group != NVME_AUTH_DHGROUP_NULL && group < N_DHGROUPS;
}

int nvme_dhchap_dh_generate(uint8_t dhgroup_id, struct nvme_dhchap_dh **out)
{
	EVP_PKEY_CTX *ctx;
	EVP_PKEY *pkey = NULL;
	OSSL_PARAM params[2];
	int ok;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!group_valid(dhgroup_id))
		return -EINVAL;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_PKEY_PARAM_GROUP_NAME, (char *)nvme_dhchap_dhgroup_names[dhgroup_id], 0);
	params[1] = OSSL_PARAM_construct_end();
	ok = ctx && EVP_PKEY_keygen_init(ctx) > 0 && EVP_PKEY_CTX_set_params(ctx, params) > 0 &&
	     EVP_PKEY_generate(ctx, &pkey) > 0;
	EVP_PKEY_CTX_free(ctx);
	if (!ok) {
		EVP_PKEY_free(pkey);
		return ossl_fail();
	}
	return dh_new(dhgroup_id, pkey, out);
}

int nvme_dhchap_dh_from_private(uint8_t dhgroup_id, const uint8_t *priv, size_t len,
				struct nvme_dhchap_dh **out)
{
	EVP_PKEY *params = NULL, *pkey = NULL;
	BIGNUM *x = NULL, *p = NULL, *g = NULL, *q = NULL, *pub = NULL;
	BN_CTX *bn = NULL;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!group_valid(dhgroup_id) || !priv || !len || len > NVME_DHCHAP_MAX_DH_LEN)
		return -EINVAL;
	ret = dh_fromdata(dhgroup_id, NULL, NULL, EVP_PKEY_KEY_PARAMETERS, &params);
	if (ret)
		return ret;
	ret = -EIO;
	x = BN_secure_new();
	bn = BN_CTX_secure_new();
	q = BN_new();
	pub = BN_new();
	if (!x || !bn || !q || !pub || !BN_bin2bn(priv, (int)len, x) ||
	    !EVP_PKEY_get_bn_param(params, OSSL_PKEY_PARAM_FFC_P, &p) ||
	    !EVP_PKEY_get_bn_param(params, OSSL_PKEY_PARAM_FFC_G, &g) || !BN_rshift1(q, p))
		goto out;
	if (BN_is_zero(x) || BN_cmp(x, q) >= 0) {
		ret = -EINVAL;
		goto out;
	}
	BN_set_flags(x, BN_FLG_CONSTTIME);
	if (!BN_mod_exp_mont_consttime(pub, g, x, p, bn, NULL))
		goto out;
	ret = dh_fromdata(dhgroup_id, x, pub, EVP_PKEY_KEYPAIR, &pkey);
	if (!ret)
		ret = dh_new(dhgroup_id, pkey, out);
out:
	if (ret == -EIO)
		ERR_clear_error();
	BN_clear_free(x);
	BN_CTX_free(bn);
	BN_free(q);
	BN_free(p);
	BN_free(g);
	BN_free(pub);
	EVP_PKEY_free(params);
	return ret;
}

size_t nvme_dhchap_dh_len(const struct nvme_dhchap_dh *dh)
{
	return dh ? dh->len : 0;
}

int nvme_dhchap_dh_public(const struct nvme_dhchap_dh *dh, uint8_t *out, size_t len)
{
	BIGNUM *pub = NULL;
	int ok;

	if (!dh || !out || len != dh->len)
		return -EINVAL;
	ok = EVP_PKEY_get_bn_param(dh->pkey, OSSL_PKEY_PARAM_PUB_KEY, &pub) &&
	     BN_bn2binpad(pub, out, (int)len) == (int)len;
	BN_free(pub);
	return ok ? 0 : ossl_fail();
}

/* Refuse a peer value outside 1 < y < p - 1 (NIST SP 800-56A's range check), naming
 * which way it is out. */
static int check_peer_range(const struct nvme_dhchap_dh *dh, const BIGNUM *y, char *err,
			    size_t errlen)
{
	BIGNUM *pm1 = BN_dup(dh->p);
	int ret = 0;

	if (!pm1 || !BN_sub_word(pm1, 1)) {
		BN_free(pm1);
		return ossl_fail();
	}
	if (BN_is_zero(y))
		ret = nvme_errmsg(EINVAL, err, errlen, "the peer's DH value is 0");
	else if (BN_is_one(y))
		ret = nvme_errmsg(EINVAL, err, errlen, "the peer's DH value is 1");
	else if (!BN_cmp(y, pm1))
		ret = nvme_errmsg(EINVAL, err, errlen, "the peer's DH value is p - 1");
	else if (BN_cmp(y, pm1) > 0)
		ret = nvme_errmsg(EINVAL, err, errlen,
				  "the peer's DH value is not below the group's prime p");
	BN_free(pm1);
	return ret;
}

int nvme_dhchap_dh_shared(const struct nvme_dhchap_dh *dh, const uint8_t *peer, size_t peer_len,
			  uint8_t *out, size_t out_len, char *err, size_t errlen)
{
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *peer_key = NULL;
	BIGNUM *y = NULL;
	size_t len;
	int ret;

	if (!dh || !peer || !out)
		return -EINVAL;
	if (out_len < dh->len)
		return nvme_errmsg(EINVAL, err, errlen, "%zu bytes for a shared secret of %zu",
				   out_len, dh->len);
	if (peer_len != dh->len)
		return nvme_errmsg(EINVAL, err, errlen,
				   "the peer's DH value is %zu bytes, %s's are %zu", peer_len,
				   nvme_dhchap_dhgroup_names[dh->group], dh->len);
	y = BN_bin2bn(peer, (int)peer_len, NULL);
	if (!y)
		return ossl_fail();
	ret = check_peer_range(dh, y, err, errlen);
	if (!ret)
		ret = dh_fromdata(dh->group, NULL, y, EVP_PKEY_PUBLIC_KEY, &peer_key);
	if (ret)
		goto out;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, dh->pkey, NULL);
	/* pad: the secret keeps its leading zero bytes, p's size in all (OpenSSL's default
	 * strips them). */
	if (!ctx || EVP_PKEY_derive_init(ctx) <= 0 || EVP_PKEY_CTX_set_dh_pad(ctx, 1) <= 0) {
		ret = ossl_fail();
		goto out;
	}
	/* validate = 1: OpenSSL's full public key check, y^q mod p = 1. */
	if (EVP_PKEY_derive_set_peer_ex(ctx, peer_key, 1) <= 0) {
		ERR_clear_error();
		ret = nvme_errmsg(EINVAL, err, errlen,
				  "the peer's DH value is not in %s's prime-order subgroup",
				  nvme_dhchap_dhgroup_names[dh->group]);
		goto out;
	}
	len = dh->len;
	if (EVP_PKEY_derive(ctx, out, &len) <= 0 || len != dh->len) {
		OPENSSL_cleanse(out, dh->len);
		ret = ossl_fail();
	}
out:
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(peer_key);
	BN_free(y);
	return ret;
}

void nvme_dhchap_dh_free(struct nvme_dhchap_dh *dh)
{
	if (!dh)
		return;
	EVP_PKEY_free(dh->pkey);
	BN_free(dh->p);
	free(dh);
}
