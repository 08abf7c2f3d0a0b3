/* DH-HMAC-CHAP cryptography (nvme/dhchap.c): every computation against known answers
 * from independent code, and every refusal.
 *
 * The known answers and their fixed inputs come from tests/auth/dhchap_kat.py (Python's
 * hashlib, hmac, base64 and zlib, pow(), and the RFC 7919 primes from the RFC's
 * definition), which `make unit` runs to write DHCHAP_KAT_FILE; nvme-cli's
 * gen-dhchap-key made some of the secrets (the script has the commands). A test that
 * needs the file fails when it is missing. The key transformation is also checked
 * against libnvme's nvme_gen_dhchap_key(), and HMAC against RFC 4231's test vectors. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libnvme.h>
#include "nvme/dhchap.h"
#include "tests/unit/nvme/kat_fixture.h"
#include "tests/unit/suites.h"

/* A key as the vectors give it: NN in @hash_field, the bytes in @key_field. */
static struct nvme_dhchap_key key_from(const char *l, const char *hash_field, const char *key_field)
{
	struct nvme_dhchap_key k;

	memset(&k, 0, sizeof(k));
	k.hash = (uint8_t)kat_num(l, hash_field);
	k.len = kat_hex(l, key_field, k.key, sizeof(k.key));
	return k;
}

/* ---- the file itself ----------------------------------------------------------------- */

static void kat_file_has_every_kind_of_vector(void)
{
	static const struct {
		const char *kind;
		size_t min;
	} want[] = {
		{ "group", 5 }, { "secret", 26 },   { "transform", 24 },
		{ "dh", 8 },    { "augmented", 3 }, { "exchange", 12 },
	};
	KAT_OPEN(k);

	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		size_t i = 0, n = 0;

		while (kat_next(&k, want[w].kind, &i))
			n++;
		CU_ASSERT(n >= want[w].min);
	}
	kat_free(&k);
}

/* ---- hashes and groups ------------------------------------------------------------- */

static void hash_ids_have_their_lengths(void)
{
	CU_ASSERT_EQUAL(nvme_dhchap_hash_len(NVME_AUTH_HASH_SHA256), 32);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_len(NVME_AUTH_HASH_SHA384), 48);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_len(NVME_AUTH_HASH_SHA512), 64);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_len(0), 0);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_len(4), 0);
}

static void dhgroup_ids_have_their_sizes(void)
{
	static const size_t len[] = { 0, 256, 384, 512, 768, 1024 };

	for (uint8_t g = 0; g <= NVME_AUTH_DHGROUP_8192; g++)
		CU_ASSERT_EQUAL(nvme_dhchap_dhgroup_len(g), len[g]);
	CU_ASSERT_EQUAL(nvme_dhchap_dhgroup_len(6), 0);
}

/* RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?". */
static void hmac_matches_rfc4231_test_case_2_for_each_hash(void)
{
	static const char *const want[] = {
		NULL,
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		"af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
		"8e2240ca5e69e2c78b3239ecfab21649",
		"164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
		"9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
	};
	static const char data[] = "what do ya want for nothing?";

	for (uint8_t h = 1; h <= 3; h++) {
		uint8_t out[NVME_DHCHAP_MAX_HASH_LEN];
		char hex[2 * NVME_DHCHAP_MAX_HASH_LEN + 1];

		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_hmac(h, "Jefe", 4, data, strlen(data), out), 0);
		for (size_t i = 0; i < nvme_dhchap_hash_len(h); i++)
			sprintf(hex + 2 * i, "%02x", out[i]);
		CU_ASSERT_STRING_EQUAL(hex, want[h]);
	}
}

static void hash_and_hmac_refuse_unknown_hash_and_empty_key(void)
{
	uint8_t out[NVME_DHCHAP_MAX_HASH_LEN];

	CU_ASSERT_EQUAL(nvme_dhchap_hash(0, "x", 1, out), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_hash(4, "x", 1, out), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_hmac(4, "k", 1, "x", 1, out), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_hmac(1, "k", 0, "x", 1, out), -EINVAL);
}

/* ---- secrets ----------------------------------------------------------------------- */

static void check_secret_lines(const char *origin)
{
	KAT_OPEN(k);
	size_t i = 0, n = 0;
	const char *l;

	while ((l = kat_next(&k, "secret", &i))) {
		char text[160], org[16], err[256] = "";
		struct nvme_dhchap_key want = key_from(l, "hash", "key"), *got = NULL;

		kat_str(l, "origin", org, sizeof(org));
		if (strcmp(org, origin))
			continue;
		kat_str(l, "text", text, sizeof(text));
		CU_ASSERT_EQUAL(nvme_dhchap_key_parse(text, &got, err, sizeof(err)), 0);
		CU_ASSERT_FATAL(got != NULL);
		CU_ASSERT_EQUAL(got->hash, want.hash);
		CU_ASSERT_EQUAL(got->len, want.len);
		CU_ASSERT_EQUAL(memcmp(got->key, want.key, want.len), 0);
		nvme_dhchap_key_free(got);
		n++;
	}
	CU_ASSERT(n >= 6);
	kat_free(&k);
}

static void secrets_made_by_nvme_cli_parse_to_their_keys(void)
{
	check_secret_lines("nvme-cli");
}

static void secrets_of_every_nn_and_length_parse_with_or_without_padding(void)
{
	check_secret_lines("python");
}

static void secret_without_closing_colon_is_accepted_like_the_kernel(void)
{
	struct nvme_dhchap_key *k = NULL;

	CU_ASSERT_EQUAL(
		nvme_dhchap_key_parse("DHHC-1:01:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR",
				      &k, NULL, 0),
		0);
	CU_ASSERT_FATAL(k != NULL);
	CU_ASSERT_EQUAL(k->hash, 1);
	CU_ASSERT_EQUAL(k->len, 32);
	CU_ASSERT_EQUAL(k->key[31], 31);
	nvme_dhchap_key_free(k);
	nvme_dhchap_key_free(NULL);
}

/* -EINVAL, no key, and a message holding @fragment but none of the secret's base64. */
static void expect_refused(const char *secret, const char *fragment)
{
	static struct nvme_dhchap_key sentinel;
	struct nvme_dhchap_key *k = &sentinel; /* must come back NULL */
	char err[256] = "";

	CU_ASSERT_EQUAL(nvme_dhchap_key_parse(secret, &k, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(k);
	if (!strstr(err, fragment))
		fprintf(stderr, "\n    \"%s\": message \"%s\" lacks \"%s\"\n",
			secret ? secret : "(null)", err, fragment);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, fragment));
	if (secret && strlen(secret) > 20)
		CU_ASSERT_PTR_NULL(strstr(err, secret + 10));
}

static void empty_secret_is_refused(void)
{
	expect_refused("", "empty DH-HMAC-CHAP secret");
	expect_refused(NULL, "empty DH-HMAC-CHAP secret");
}

static void secret_without_dhhc1_prefix_is_refused(void)
{
	expect_refused("DHHC-2:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "must start with \"DHHC-1:\"");
	expect_refused("dhhc-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "must start with \"DHHC-1:\"");
	expect_refused(" DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "must start with \"DHHC-1:\"");
	expect_refused("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR",
		       "must start with \"DHHC-1:\"");
}

static void secret_with_nn_other_than_two_digits_is_refused(void)
{
	expect_refused("DHHC-1:1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "NN must be two digits");
	expect_refused("DHHC-1:0a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "NN must be two digits");
	expect_refused("DHHC-1:001:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "NN must be two digits");
	expect_refused("DHHC-1:", "NN must be two digits");
}

/* The body is a valid 32-byte key and CRC (python3: base64 of bytes(range(32)) and its
 * zlib.crc32, little endian). */
static void secret_with_nn_04_or_more_is_refused(void)
{
	expect_refused("DHHC-1:04:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "DHHC-1:04: unknown key transformation");
	expect_refused("DHHC-1:99:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "DHHC-1:99: unknown key transformation");
}

static void secret_with_bad_base64_is_refused(void)
{
	expect_refused(
		"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh*KfiaR:",
		"bad base64: character 53 of the secret, '*', is not in its alphabet (A-Z a-z 0-9 + /)");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMU=RYXGBkaGxwdHh+KfiaR:",
		       "character 39 of the secret, '=', is not in its alphabet");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMU RYXGBkaGxwdHh+KfiaR:",
		       "character 39 of the secret is a space, not in its alphabet");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMU\xc3\xa9YXGBkaGxwdHh+KfiaR:",
		       "character 39 of the secret is not ASCII, not in its alphabet");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR===:",
		       "bad base64");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR=:",
		       "padding '=' where no group of 4 ends");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaRA:",
		       "cannot be whole bytes");
	/* A 48-byte key's last character with its unused low bits set ('A' made 'B'). */
	expect_refused(
		"DHHC-1:00:1feEgwrVKPgnnMRGc5pieljqTeVtdpjn4gXBJhnLboLGmPXnvlX80ZRPWm9K6uBAc+Fl5B==:",
		"bits set beyond the data");
}

/* Valid base64 and CRC, wrong key lengths: 40, 31 and 68 bytes (python3, as above, with
 * bytes(range(40)), bytes(range(31)), bytes(range(68))); and nothing at all. */
static void secret_of_wrong_length_is_refused(void)
{
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJzwupg0=:",
		       "decodes to 44 bytes: expected a key of 32, 48 or 64 bytes");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHndteE0=:",
		       "decodes to 35 bytes");
	expect_refused(
		"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1"
		"Njc4OTo7PD0+P0BBQkNY0hhZ:",
		"longer than 64 bytes");
	expect_refused("DHHC-1:00::", "decodes to 0 bytes");
	expect_refused("DHHC-1:00:", "decodes to 0 bytes");
}

static void secret_with_bad_crc_is_refused(void)
{
	/* The last character changes the CRC's last byte; the first, the key's first. */
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaS:",
		       "CRC-32 does not match");
	expect_refused("DHHC-1:00:BAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		       "CRC-32 does not match");
	/* nvme-cli's SHA-512 secret with its first two characters swapped. */
	expect_refused(
		"DHHC-1:03:LhaYHopD3nh8QPhCJ66MmWSSDl2cjhVpEJmmRQW8XWatOy5RKyTzMZ4B8jsb7plB10HPOJ5fu"
		"n47yVEFGaZSL3znWL8=:",
		"CRC-32 does not match");
}

static void secret_with_text_after_its_closing_colon_is_refused(void)
{
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:x",
		       "after the secret's closing ':'");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR::",
		       "after the secret's closing ':'");
	expect_refused("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:\n",
		       "after the secret's closing ':'");
}

/* ---- key transformation ------------------------------------------------------------ */

/* Each vector's transformed key is the known answer, and what libnvme's
 * nvme_gen_dhchap_key() computes (nvme-cli makes secrets with it; it takes keys as long
 * as the hash's digest only). Debian's libnvme is built with OpenSSL: if it ever is not,
 * this fails rather than checking less. */
static void key_transformation_matches_known_answers_and_libnvme(void)
{
	KAT_OPEN(k);
	size_t i = 0, n = 0, by_libnvme = 0;
	const char *l;

	while ((l = kat_next(&k, "transform", &i))) {
		struct nvme_dhchap_key key = key_from(l, "hash", "key");
		uint8_t want[NVME_DHCHAP_MAX_KEY_LEN], got[NVME_DHCHAP_MAX_KEY_LEN];
		unsigned char secret[NVME_DHCHAP_MAX_KEY_LEN], theirs[NVME_DHCHAP_MAX_KEY_LEN];
		size_t want_len = kat_hex(l, "out", want, sizeof(want)), got_len = 0;
		char nqn[256];

		kat_str(l, "nqn", nqn, sizeof(nqn));
		CU_ASSERT_EQUAL(nvme_dhchap_transform_key(&key, nqn, got, &got_len), 0);
		CU_ASSERT_EQUAL(got_len, want_len);
		CU_ASSERT_EQUAL(memcmp(got, want, want_len), 0);
		n++;
		if (key.hash && key.len != nvme_dhchap_hash_len(key.hash))
			continue;
		memcpy(secret, key.key, key.len);
		CU_ASSERT_EQUAL_FATAL(nvme_gen_dhchap_key(nqn, (enum nvme_hmac_alg)key.hash,
							  (unsigned)key.len, secret, theirs),
				      0);
		CU_ASSERT_EQUAL(memcmp(got, theirs, key.len), 0);
		by_libnvme++;
	}
	CU_ASSERT_EQUAL(n, 24);
	CU_ASSERT_EQUAL(by_libnvme, 12);
	kat_free(&k);
}

static void transformation_refuses_a_malformed_key_or_no_nqn(void)
{
	struct nvme_dhchap_key key = { .hash = 1, .len = 32 };
	uint8_t out[NVME_DHCHAP_MAX_KEY_LEN];
	size_t len;

	CU_ASSERT_EQUAL(nvme_dhchap_transform_key(&key, NULL, out, &len), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_transform_key(NULL, "nqn", out, &len), -EINVAL);
	key.len = 33;
	CU_ASSERT_EQUAL(nvme_dhchap_transform_key(&key, "nqn", out, &len), -EINVAL);
	key.len = 32;
	key.hash = 4;
	CU_ASSERT_EQUAL(nvme_dhchap_transform_key(&key, "nqn", out, &len), -EINVAL);
}

/* ---- augmented challenge and responses --------------------------------------------- */

static void augmented_challenge_matches_known_answers(void)
{
	KAT_OPEN(k);
	size_t i = 0, n = 0;
	const char *l;

	while ((l = kat_next(&k, "augmented", &i))) {
		uint8_t shared[NVME_DHCHAP_MAX_DH_LEN], c[NVME_DHCHAP_MAX_HASH_LEN];
		uint8_t want[NVME_DHCHAP_MAX_HASH_LEN], got[NVME_DHCHAP_MAX_HASH_LEN];
		uint8_t h = (uint8_t)kat_num(l, "hash");
		size_t slen = kat_hex(l, "shared", shared, sizeof(shared));

		CU_ASSERT_EQUAL(kat_hex(l, "challenge", c, sizeof(c)), nvme_dhchap_hash_len(h));
		CU_ASSERT_EQUAL(kat_hex(l, "out", want, sizeof(want)), nvme_dhchap_hash_len(h));
		CU_ASSERT_EQUAL(nvme_dhchap_augmented_challenge(h, shared, slen, c, got), 0);
		CU_ASSERT_EQUAL(memcmp(got, want, nvme_dhchap_hash_len(h)), 0);
		n++;
	}
	CU_ASSERT_EQUAL(n, 3);
	kat_free(&k);
}

/* One exchange vector: the DH values both sides compute (when a group is used), Ca1 and
 * Ca2, then R1 and R2 from them. */
static void check_exchange(const char *l, int *hashes_seen, int *groups_seen)
{
	uint8_t h = (uint8_t)kat_num(l, "hash"), g = (uint8_t)kat_num(l, "group");
	size_t hl = nvme_dhchap_hash_len(h);
	struct nvme_dhchap_key hk = key_from(l, "hkhash", "hk"), ck = key_from(l, "ckhash", "ck");
	uint8_t c1[NVME_DHCHAP_MAX_HASH_LEN], c2[NVME_DHCHAP_MAX_HASH_LEN];
	uint8_t ca1[NVME_DHCHAP_MAX_HASH_LEN], ca2[NVME_DHCHAP_MAX_HASH_LEN];
	uint8_t want[NVME_DHCHAP_MAX_HASH_LEN], got[NVME_DHCHAP_MAX_HASH_LEN];
	char hostnqn[256], subnqn[256];

	CU_ASSERT_FATAL(hl != 0);
	hashes_seen[h]++;
	groups_seen[g]++;
	CU_ASSERT_EQUAL(kat_hex(l, "c1", c1, sizeof(c1)), hl);
	CU_ASSERT_EQUAL(kat_hex(l, "c2", c2, sizeof(c2)), hl);
	kat_str(l, "hostnqn", hostnqn, sizeof(hostnqn));
	kat_str(l, "subnqn", subnqn, sizeof(subnqn));
	if (g == NVME_AUTH_DHGROUP_NULL) {
		CU_ASSERT_FALSE(kat_has(l, "shared"));
		memcpy(ca1, c1, hl);
		memcpy(ca2, c2, hl);
	} else {
		/* The host holds x and gets g^y in the Challenge; the controller holds y and gets
		 * g^x in the Reply. */
		static uint8_t x[NVME_DHCHAP_MAX_DH_LEN], y[NVME_DHCHAP_MAX_DH_LEN];
		static uint8_t gx[NVME_DHCHAP_MAX_DH_LEN], gy[NVME_DHCHAP_MAX_DH_LEN];
		static uint8_t shared[NVME_DHCHAP_MAX_DH_LEN], s_host[NVME_DHCHAP_MAX_DH_LEN];
		static uint8_t s_ctrl[NVME_DHCHAP_MAX_DH_LEN], pub[NVME_DHCHAP_MAX_DH_LEN];
		size_t xl = kat_hex(l, "x", x, sizeof(x)), yl = kat_hex(l, "y", y, sizeof(y));
		size_t len = kat_hex(l, "shared", shared, sizeof(shared));
		struct nvme_dhchap_dh *host = NULL, *ctrl = NULL;

		CU_ASSERT_EQUAL(kat_hex(l, "gx", gx, sizeof(gx)), len);
		CU_ASSERT_EQUAL(kat_hex(l, "gy", gy, sizeof(gy)), len);
		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_dh_from_private(g, x, xl, &host), 0);
		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_dh_from_private(g, y, yl, &ctrl), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_public(host, pub, len), 0);
		CU_ASSERT_EQUAL(memcmp(pub, gx, len), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_shared(host, gy, len, s_host, len, NULL, 0), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_shared(ctrl, gx, len, s_ctrl, len, NULL, 0), 0);
		CU_ASSERT_EQUAL(memcmp(s_host, shared, len), 0);
		CU_ASSERT_EQUAL(memcmp(s_ctrl, shared, len), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_augmented_challenge(h, s_host, len, c1, ca1), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_augmented_challenge(h, s_ctrl, len, c2, ca2), 0);
		CU_ASSERT_EQUAL(kat_hex(l, "ca1", want, sizeof(want)), hl);
		CU_ASSERT_EQUAL(memcmp(ca1, want, hl), 0);
		CU_ASSERT_EQUAL(kat_hex(l, "ca2", want, sizeof(want)), hl);
		CU_ASSERT_EQUAL(memcmp(ca2, want, hl), 0);
		nvme_dhchap_dh_free(host);
		nvme_dhchap_dh_free(ctrl);
	}

	struct nvme_dhchap_resp_args a = {
		.hash_id = h,
		.challenge = ca1,
		.seqnum = (uint32_t)kat_num(l, "s1"),
		.t_id = (uint16_t)kat_num(l, "tid"),
		.sc_c = (uint8_t)kat_num(l, "scc"),
		.hostnqn = hostnqn,
		.subsysnqn = subnqn,
	};
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(&hk, &a, got), 0);
	CU_ASSERT_EQUAL(kat_hex(l, "r1", want, sizeof(want)), hl);
	CU_ASSERT_TRUE(nvme_dhchap_equal(got, want, hl));

	a.challenge = ca2;
	a.seqnum = (uint32_t)kat_num(l, "s2");
	CU_ASSERT_EQUAL(nvme_dhchap_ctrl_response(&ck, &a, got), 0);
	CU_ASSERT_EQUAL(kat_hex(l, "r2", want, sizeof(want)), hl);
	CU_ASSERT_TRUE(nvme_dhchap_equal(got, want, hl));
}

static void responses_and_dh_match_known_answers_for_each_hash_and_group(void)
{
	int hashes[4] = { 0 }, groups[6] = { 0 };
	KAT_OPEN(k);
	size_t i = 0;
	const char *l;

	while ((l = kat_next(&k, "exchange", &i)))
		check_exchange(l, hashes, groups);
	for (int h = 1; h <= 3; h++)
		CU_ASSERT(hashes[h] >= 4);
	CU_ASSERT(groups[NVME_AUTH_DHGROUP_NULL] >= 3);
	CU_ASSERT(groups[NVME_AUTH_DHGROUP_2048] >= 3);
	CU_ASSERT(groups[NVME_AUTH_DHGROUP_8192] >= 3);
	kat_free(&k);
}

static void response_changes_with_every_input(void)
{
	struct nvme_dhchap_key key = { .hash = 0, .len = 32 };
	uint8_t c[32] = { 1 }, base[32], got[32];
	struct nvme_dhchap_resp_args a = { .hash_id = 1,
					   .challenge = c,
					   .seqnum = 1,
					   .t_id = 2,
					   .sc_c = 0,
					   .hostnqn = "nqn.h",
					   .subsysnqn = "nqn.s" };

	CU_ASSERT_EQUAL_FATAL(nvme_dhchap_host_response(&key, &a, base), 0);
	a.seqnum = 0x100;
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(&key, &a, got), 0);
	CU_ASSERT_FALSE(nvme_dhchap_equal(got, base, 32));
	a.seqnum = 1;
	a.t_id = 0x200;
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(&key, &a, got), 0);
	CU_ASSERT_FALSE(nvme_dhchap_equal(got, base, 32));
	a.t_id = 2;
	/* The NUL between the NQNs: moving a character from one NQN to the other changes it. */
	a.hostnqn = "nqn.hn";
	a.subsysnqn = "qn.s";
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(&key, &a, got), 0);
	CU_ASSERT_FALSE(nvme_dhchap_equal(got, base, 32));
	a.hostnqn = "nqn.h";
	a.subsysnqn = "nqn.s";
	/* The same key and inputs as a controller response: another label, NQNs swapped. */
	CU_ASSERT_EQUAL(nvme_dhchap_ctrl_response(&key, &a, got), 0);
	CU_ASSERT_FALSE(nvme_dhchap_equal(got, base, 32));
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(&key, &a, got), 0);
	CU_ASSERT_TRUE(nvme_dhchap_equal(got, base, 32));
}

static void responses_refuse_unknown_hash_and_missing_inputs(void)
{
	struct nvme_dhchap_key key = { .hash = 0, .len = 32 };
	uint8_t c[64] = { 0 }, out[64];
	struct nvme_dhchap_resp_args a = {
		.hash_id = 4, .challenge = c, .hostnqn = "h", .subsysnqn = "s"
	};

	CU_ASSERT_EQUAL(nvme_dhchap_host_response(&key, &a, out), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_ctrl_response(&key, &a, out), -EINVAL);
	a.hash_id = 1;
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(NULL, &a, out), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(&key, NULL, out), -EINVAL);
	a.hostnqn = NULL;
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(&key, &a, out), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_ctrl_response(&key, &a, out), -EINVAL);
	a.hostnqn = "h";
	a.challenge = NULL;
	CU_ASSERT_EQUAL(nvme_dhchap_ctrl_response(&key, &a, out), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_augmented_challenge(1, NULL, 0, c, out), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_augmented_challenge(0, c, 64, c, out), -EINVAL);
}

static void equal_compares_every_byte_and_random_fills(void)
{
	uint8_t a[64], b[64];

	CU_ASSERT_EQUAL(nvme_dhchap_random(a, sizeof(a)), 0);
	memcpy(b, a, sizeof(b));
	CU_ASSERT_TRUE(nvme_dhchap_equal(a, b, sizeof(a)));
	b[63] ^= 1;
	CU_ASSERT_FALSE(nvme_dhchap_equal(a, b, sizeof(a)));
	CU_ASSERT_TRUE(nvme_dhchap_equal(a, b, 63));
	CU_ASSERT_EQUAL(nvme_dhchap_random(b, sizeof(b)), 0);
	CU_ASSERT_FALSE(nvme_dhchap_equal(a, b, sizeof(a))); /* 2^-512 to fail */
}

/* ---- FFDHE --------------------------------------------------------------------------- */

static void dh_values_match_known_answers_in_every_group(void)
{
	static uint8_t x[NVME_DHCHAP_MAX_DH_LEN], y[NVME_DHCHAP_MAX_DH_LEN];
	static uint8_t gx[NVME_DHCHAP_MAX_DH_LEN], gy[NVME_DHCHAP_MAX_DH_LEN];
	static uint8_t shared[NVME_DHCHAP_MAX_DH_LEN], pub[NVME_DHCHAP_MAX_DH_LEN];
	static uint8_t got[NVME_DHCHAP_MAX_DH_LEN + 1];
	int groups[6] = { 0 }, zero_gx = 0, zero_shared = 0;
	KAT_OPEN(k);
	size_t i = 0;
	const char *l;

	while ((l = kat_next(&k, "dh", &i))) {
		uint8_t g = (uint8_t)kat_num(l, "group");
		size_t xl = kat_hex(l, "x", x, sizeof(x)), yl = kat_hex(l, "y", y, sizeof(y));
		size_t len = kat_hex(l, "shared", shared, sizeof(shared));
		struct nvme_dhchap_dh *a = NULL, *b = NULL;
		char err[128] = "";

		CU_ASSERT_FATAL(g <= NVME_AUTH_DHGROUP_8192);
		groups[g]++;
		CU_ASSERT_EQUAL(len, nvme_dhchap_dhgroup_len(g));
		CU_ASSERT_EQUAL(kat_hex(l, "gx", gx, sizeof(gx)), len);
		CU_ASSERT_EQUAL(kat_hex(l, "gy", gy, sizeof(gy)), len);
		zero_gx += gx[0] == 0;
		zero_shared += shared[0] == 0;
		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_dh_from_private(g, x, xl, &a), 0);
		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_dh_from_private(g, y, yl, &b), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_len(a), len);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_public(a, pub, len), 0);
		CU_ASSERT_EQUAL(memcmp(pub, gx, len), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_public(b, pub, len), 0);
		CU_ASSERT_EQUAL(memcmp(pub, gy, len), 0);
		/* A larger buffer gets the secret in its first len bytes. */
		memset(got, 0xee, sizeof(got));
		CU_ASSERT_EQUAL(
			nvme_dhchap_dh_shared(a, gy, len, got, sizeof(got), err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(memcmp(got, shared, len), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_shared(b, gx, len, got, len, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(memcmp(got, shared, len), 0);
		nvme_dhchap_dh_free(a);
		nvme_dhchap_dh_free(b);
	}
	for (int g = 1; g <= 5; g++)
		CU_ASSERT(groups[g] >= 1);
	/* The vectors whose public value and shared secret start with a zero byte: both come
	 * out padded to the group's size. */
	CU_ASSERT(zero_gx >= 1);
	CU_ASSERT(zero_shared >= 1);
	kat_free(&k);
}

static void generated_key_pairs_agree_on_a_shared_secret(void)
{
	static const uint8_t groups[] = { NVME_AUTH_DHGROUP_2048, NVME_AUTH_DHGROUP_8192 };
	static uint8_t pa[NVME_DHCHAP_MAX_DH_LEN], pb[NVME_DHCHAP_MAX_DH_LEN];
	static uint8_t sa[NVME_DHCHAP_MAX_DH_LEN], sb[NVME_DHCHAP_MAX_DH_LEN];

	for (size_t i = 0; i < sizeof(groups); i++) {
		struct nvme_dhchap_dh *a = NULL, *b = NULL;
		size_t len = nvme_dhchap_dhgroup_len(groups[i]);

		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_dh_generate(groups[i], &a), 0);
		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_dh_generate(groups[i], &b), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_len(a), len);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_public(a, pa, len), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_public(b, pb, len), 0);
		CU_ASSERT_NOT_EQUAL(memcmp(pa, pb, len), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_shared(a, pb, len, sa, len, NULL, 0), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_shared(b, pa, len, sb, len, NULL, 0), 0);
		CU_ASSERT_EQUAL(memcmp(sa, sb, len), 0);
		CU_ASSERT_EQUAL(nvme_dhchap_dh_public(a, pa, len - 1), -EINVAL);
		nvme_dhchap_dh_free(a);
		nvme_dhchap_dh_free(b);
	}
	nvme_dhchap_dh_free(NULL);
}

/* A key pair of ffdhe2048, the group's p and p - 2 from the vectors (NULL and zeros, the
 * test failed, when the file lacks them). */
static struct nvme_dhchap_dh *dh2048(uint8_t *p, uint8_t *nonsub)
{
	struct nvme_dhchap_dh *dh = NULL;
	const uint8_t x[] = { 0x12, 0x34, 0x56, 0x78, 0x9a };
	const char *l, *group = NULL;
	KAT_OPEN(k);
	size_t i = 0;

	memset(p, 0, 256);
	memset(nonsub, 0, 256);
	while (!group && (l = kat_next(&k, "group", &i)))
		if (kat_num(l, "id") == NVME_AUTH_DHGROUP_2048)
			group = l;
	if (group) {
		CU_ASSERT_EQUAL(kat_hex(group, "p", p, 256), 256);
		CU_ASSERT_EQUAL(kat_hex(group, "nonsub", nonsub, 256), 256);
	}
	CU_ASSERT_PTR_NOT_NULL(group);
	kat_free(&k);
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(NVME_AUTH_DHGROUP_2048, x, sizeof(x), &dh), 0);
	return dh;
}

/* The peer's value @y (256 bytes) is refused with a message holding @fragment. */
static void expect_peer_refused(const struct nvme_dhchap_dh *dh, const uint8_t *y, size_t len,
				const char *fragment)
{
	static uint8_t out[NVME_DHCHAP_MAX_DH_LEN];
	char err[128] = "";

	CU_ASSERT_EQUAL(nvme_dhchap_dh_shared(dh, y, len, out, sizeof(out), err, sizeof(err)),
			-EINVAL);
	if (!strstr(err, fragment))
		fprintf(stderr, "\n    message \"%s\" lacks \"%s\"\n", err, fragment);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, fragment));
}

static void peer_dh_value_0_1_p_minus_1_and_p_or_more_are_refused(void)
{
	uint8_t p[256], nonsub[256], y[256];
	struct nvme_dhchap_dh *dh = dh2048(p, nonsub);

	memset(y, 0, sizeof(y));
	expect_peer_refused(dh, y, sizeof(y), "DH value is 0");
	y[255] = 1;
	expect_peer_refused(dh, y, sizeof(y), "DH value is 1");
	memcpy(y, p, sizeof(y));
	y[255] -= 1; /* p is odd: no borrow */
	expect_peer_refused(dh, y, sizeof(y), "DH value is p - 1");
	memcpy(y, p, sizeof(y));
	expect_peer_refused(dh, y, sizeof(y), "not below the group's prime");
	y[255] += 1; /* p + 1: p ends in ff..ff, so carry */
	for (int i = 255; i > 0 && y[i] == 0; i--)
		y[i - 1] += 1;
	expect_peer_refused(dh, y, sizeof(y), "not below the group's prime");
	memset(y, 0xff, sizeof(y));
	expect_peer_refused(dh, y, sizeof(y), "not below the group's prime");
	nvme_dhchap_dh_free(dh);
}

static void peer_dh_value_of_the_wrong_length_is_refused(void)
{
	uint8_t p[256], nonsub[256], y[257];
	struct nvme_dhchap_dh *dh = dh2048(p, nonsub);
	uint8_t out[256];

	memset(y, 0, sizeof(y));
	y[100] = 2;
	expect_peer_refused(dh, y, 255, "DH value is 255 bytes, ffdhe2048's are 256");
	expect_peer_refused(dh, y, 257, "DH value is 257 bytes");
	expect_peer_refused(dh, y, 0, "DH value is 0 bytes");
	/* And the secret's buffer must hold it. */
	CU_ASSERT_EQUAL(nvme_dhchap_dh_shared(dh, y, 256, out, 255, NULL, 0), -EINVAL);
	nvme_dhchap_dh_free(dh);
}

static void peer_dh_value_outside_the_prime_order_subgroup_is_refused(void)
{
	uint8_t p[256], nonsub[256];
	struct nvme_dhchap_dh *dh = dh2048(p, nonsub);

	/* p - 2: in range, but not a quadratic residue (the script checks why). */
	expect_peer_refused(dh, nonsub, sizeof(nonsub), "not in ffdhe2048's prime-order subgroup");
	nvme_dhchap_dh_free(dh);
}

static void private_exponent_out_of_range_or_group_without_dh_is_refused(void)
{
	uint8_t p[256], nonsub[256], q[256];
	struct nvme_dhchap_dh *dh = dh2048(p, nonsub), *other = dh; /* must come back NULL */
	const uint8_t zero[8] = { 0 }, one[1] = { 1 };
	/* q = (p - 1) / 2 = p >> 1 */
	for (int i = 0; i < 256; i++)
		q[i] = (uint8_t)((p[i] >> 1) | (i ? (p[i - 1] & 1) << 7 : 0));
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(NVME_AUTH_DHGROUP_2048, zero, sizeof(zero),
						    &other),
			-EINVAL);
	CU_ASSERT_PTR_NULL(other);
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(NVME_AUTH_DHGROUP_2048, q, sizeof(q), &other),
			-EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(NVME_AUTH_DHGROUP_2048, p, sizeof(p), &other),
			-EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(NVME_AUTH_DHGROUP_2048, one, 0, &other),
			-EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(NVME_AUTH_DHGROUP_NULL, one, 1, &other),
			-EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(6, one, 1, &other), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dh_generate(NVME_AUTH_DHGROUP_NULL, &other), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dh_generate(6, &other), -EINVAL);
	CU_ASSERT_PTR_NULL(other);
	nvme_dhchap_dh_free(dh);
	/* 1 is the smallest exponent allowed, q - 1 the largest. */
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(NVME_AUTH_DHGROUP_2048, one, 1, &other), 0);
	nvme_dhchap_dh_free(other);
	q[255] -= 1; /* q is odd (p = 7 mod 8): no borrow */
	CU_ASSERT_EQUAL(nvme_dhchap_dh_from_private(NVME_AUTH_DHGROUP_2048, q, sizeof(q), &other),
			0);
	nvme_dhchap_dh_free(other);
}

const struct unit_test nvme_dhchap_tests[] = {
	{ "kat_file_has_every_kind_of_vector", kat_file_has_every_kind_of_vector },
	{ "hash_ids_have_their_lengths", hash_ids_have_their_lengths },
	{ "dhgroup_ids_have_their_sizes", dhgroup_ids_have_their_sizes },
	{ "hmac_matches_rfc4231_test_case_2_for_each_hash",
	  hmac_matches_rfc4231_test_case_2_for_each_hash },
	{ "hash_and_hmac_refuse_unknown_hash_and_empty_key",
	  hash_and_hmac_refuse_unknown_hash_and_empty_key },
	{ "secrets_made_by_nvme_cli_parse_to_their_keys",
	  secrets_made_by_nvme_cli_parse_to_their_keys },
	{ "secrets_of_every_nn_and_length_parse_with_or_without_padding",
	  secrets_of_every_nn_and_length_parse_with_or_without_padding },
	{ "secret_without_closing_colon_is_accepted_like_the_kernel",
	  secret_without_closing_colon_is_accepted_like_the_kernel },
	{ "empty_secret_is_refused", empty_secret_is_refused },
	{ "secret_without_dhhc1_prefix_is_refused", secret_without_dhhc1_prefix_is_refused },
	{ "secret_with_nn_other_than_two_digits_is_refused",
	  secret_with_nn_other_than_two_digits_is_refused },
	{ "secret_with_nn_04_or_more_is_refused", secret_with_nn_04_or_more_is_refused },
	{ "secret_with_bad_base64_is_refused", secret_with_bad_base64_is_refused },
	{ "secret_of_wrong_length_is_refused", secret_of_wrong_length_is_refused },
	{ "secret_with_bad_crc_is_refused", secret_with_bad_crc_is_refused },
	{ "secret_with_text_after_its_closing_colon_is_refused",
	  secret_with_text_after_its_closing_colon_is_refused },
	{ "key_transformation_matches_known_answers_and_libnvme",
	  key_transformation_matches_known_answers_and_libnvme },
	{ "transformation_refuses_a_malformed_key_or_no_nqn",
	  transformation_refuses_a_malformed_key_or_no_nqn },
	{ "augmented_challenge_matches_known_answers", augmented_challenge_matches_known_answers },
	{ "responses_and_dh_match_known_answers_for_each_hash_and_group",
	  responses_and_dh_match_known_answers_for_each_hash_and_group },
	{ "response_changes_with_every_input", response_changes_with_every_input },
	{ "responses_refuse_unknown_hash_and_missing_inputs",
	  responses_refuse_unknown_hash_and_missing_inputs },
	{ "equal_compares_every_byte_and_random_fills",
	  equal_compares_every_byte_and_random_fills },
	{ "dh_values_match_known_answers_in_every_group",
	  dh_values_match_known_answers_in_every_group },
	{ "generated_key_pairs_agree_on_a_shared_secret",
	  generated_key_pairs_agree_on_a_shared_secret },
	{ "peer_dh_value_0_1_p_minus_1_and_p_or_more_are_refused",
	  peer_dh_value_0_1_p_minus_1_and_p_or_more_are_refused },
	{ "peer_dh_value_of_the_wrong_length_is_refused",
	  peer_dh_value_of_the_wrong_length_is_refused },
	{ "peer_dh_value_outside_the_prime_order_subgroup_is_refused",
	  peer_dh_value_outside_the_prime_order_subgroup_is_refused },
	{ "private_exponent_out_of_range_or_group_without_dh_is_refused",
	  private_exponent_out_of_range_or_group_without_dh_is_refused },
	{ NULL, NULL },
};
