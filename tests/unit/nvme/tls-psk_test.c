/* NVMe/TCP TLS PSKs (nvme/tls-psk.c): the interchange text, identities and the TLS PSK
 * against known answers from independent code, and every refusal.
 *
 * The known answers come from tests/auth/tls_psk_kat.py (Python's hashlib, hmac, base64
 * and zlib, HKDF written out from RFC 5869 and RFC 8446), which `make unit` runs to write
 * TLS_PSK_KAT_FILE; a test that needs the file fails when it is missing. libnvme's own
 * published vectors (its test/psk.c) are also hard-coded here: they check the C code and,
 * in the script, the Python. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "nvme/key-text.h"
#include "nvme/tls-psk.h"
#include "tests/unit/nvme/kat_fixture.h"
#include "tests/unit/suites.h"

#define HOST   "nqn.psk-test-host"
#define SUBSYS "nqn.psk-test-subsys"

/* libnvme test/psk.c's configured keys: 32 bytes, and 48 whose last 16 repeat bytes
 * 16..31. */
static struct nvme_tls_psk libnvme_key(uint8_t hash, uint8_t len)
{
	static const uint8_t k32[32] = { 0x55, 0x12, 0xDB, 0xB6, 0x73, 0x7D, 0x01, 0x06,
					 0xF6, 0x59, 0x75, 0xB7, 0x73, 0xDF, 0xB0, 0x11,
					 0xFF, 0xC3, 0x44, 0xBC, 0xF4, 0x42, 0xE2, 0xDD,
					 0x6D, 0x8B, 0xC4, 0x87, 0x0B, 0x5D, 0x5B, 0x03 };
	struct nvme_tls_psk k = { .hash = hash, .len = len };

	memcpy(k.key, k32, 32);
	memcpy(k.key + 32, k32 + 16, 16);
	return k;
}

/* A configured PSK as the vectors give it. */
static struct nvme_tls_psk psk_from(const char *l)
{
	struct nvme_tls_psk k = { 0 };

	k.hash = (uint8_t)kat_num(l, "hh");
	k.len = (uint8_t)kat_hex(l, "key", k.key, sizeof(k.key));
	return k;
}

static void kat_file_has_every_kind_of_vector(void)
{
	struct kat k;
	size_t i = 0, texts = 0, derives = 0;

	CU_ASSERT_FATAL(kat_load_tls_psk(&k));
	while (kat_next(&k, "interchange", &i))
		texts++;
	i = 0;
	while (kat_next(&k, "derive", &i))
		derives++;
	CU_ASSERT(texts >= 6);
	/* 2 layouts x 6 keys x 2 NQN pairs x 2 versions */
	CU_ASSERT(derives >= 48);
	kat_free(&k);
}

/* ---- the interchange format ------------------------------------------------------- */

static void interchange_texts_match_known_answers(void)
{
	struct kat k;
	size_t i = 0, n = 0;
	const char *l;

	CU_ASSERT_FATAL(kat_load_tls_psk(&k));
	while ((l = kat_next(&k, "interchange", &i))) {
		struct nvme_tls_psk want = psk_from(l), got;
		char text[NVME_TLS_PSK_TEXT_MAX + 8], out[NVME_TLS_PSK_TEXT_MAX];
		char why[200] = "";

		kat_str(l, "text", text, sizeof(text));
		CU_ASSERT_EQUAL(nvme_tls_psk_parse(text, &got, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(got.hash, want.hash);
		CU_ASSERT_EQUAL(got.len, want.len);
		CU_ASSERT_EQUAL(memcmp(got.key, want.key, want.len), 0);
		CU_ASSERT_EQUAL(nvme_tls_psk_format(&want, out, sizeof(out)), (int)strlen(text));
		CU_ASSERT_STRING_EQUAL(out, text);
		n++;
	}
	CU_ASSERT(n >= 6);
	kat_free(&k);
}

/* libnvme test/psk.c test_data_psk: nvme_export_tls_key's texts of its keys. */
static void libnvme_published_texts_parse_and_format(void)
{
	static const struct {
		uint8_t hash, len;
		const char *text;
	} v[] = {
		{ 0, 32, "NVMeTLSkey-1:00:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:" },
		{ 1, 32, "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:" },
		{ 2, 48,
		  "NVMeTLSkey-1:02:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwP/w0S89ELi3W2LxIcLXVsDn8kX"
		  "ZQ==:" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct nvme_tls_psk want = libnvme_key(v[i].hash, v[i].len), got;
		char out[NVME_TLS_PSK_TEXT_MAX];

		CU_ASSERT_EQUAL(nvme_tls_psk_parse(v[i].text, &got, NULL, 0), 0);
		CU_ASSERT_EQUAL(got.hash, v[i].hash);
		CU_ASSERT_EQUAL(got.len, v[i].len);
		CU_ASSERT_EQUAL(memcmp(got.key, want.key, want.len), 0);
		CU_ASSERT(nvme_tls_psk_format(&want, out, sizeof(out)) > 0);
		CU_ASSERT_STRING_EQUAL(out, v[i].text);
	}
}

/* -EINVAL, a zeroed key, and a message holding @fragment but not the base64. */
static void expect_refused(const char *text, const char *fragment)
{
	struct nvme_tls_psk k;
	char why[256] = "";

	memset(&k, 0xaa, sizeof(k));
	CU_ASSERT_EQUAL(nvme_tls_psk_parse(text, &k, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(k.len, 0);
	CU_ASSERT_EQUAL(k.key[0], 0);
	if (!strstr(why, fragment))
		fprintf(stderr, "\n    \"%s\": message \"%s\" lacks \"%s\"\n",
			text ? text : "(null)", why, fragment);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, fragment));
	if (text && strlen(text) > 30)
		CU_ASSERT_PTR_NULL(strstr(why, text + 16));
}

#define GOOD32 "VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"

static void malformed_interchange_texts_are_refused(void)
{
	uint8_t key[48] = { 0 };
	char text[128];

	expect_refused("", "empty NVMe TLS PSK");
	expect_refused(NULL, "empty NVMe TLS PSK");
	expect_refused("NVMeTLSkey-2:01:" GOOD32, "not an NVMe TLS PSK: it must start with");
	expect_refused("DHHC-1:01:" GOOD32, "not an NVMe TLS PSK");
	expect_refused("NVMeTLSkey-1:1:" GOOD32, "NN must be two digits");
	expect_refused("NVMeTLSkey-1:03:" GOOD32, "NVMeTLSkey-1:03: unknown PSK hash");
	expect_refused("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9Lr*:",
		       "bad base64: character 64");
	/* First character changed: the key no longer matches its CRC. */
	expect_refused("NVMeTLSkey-1:01:WRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:",
		       "CRC-32 does not match");
	expect_refused("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ",
		       "closing ':' is missing");
	expect_refused("NVMeTLSkey-1:01:" GOOD32 "x", "text after the secret's closing ':'");
	/* Valid CRCs, lengths that do not fit HH or any hash. */
	CU_ASSERT_FATAL(nvme_key_text_format("NVMeTLSkey-1:", 1, key, 48, text, sizeof(text)) > 0);
	expect_refused(text, "NVMeTLSkey-1:01: a key of 32 bytes for hash 01 (SHA-256), got 48");
	CU_ASSERT_FATAL(nvme_key_text_format("NVMeTLSkey-1:", 2, key, 32, text, sizeof(text)) > 0);
	expect_refused(text, "NVMeTLSkey-1:02: a key of 48 bytes for hash 02 (SHA-384), got 32");
	CU_ASSERT_FATAL(nvme_key_text_format("NVMeTLSkey-1:", 0, key, 40, text, sizeof(text)) > 0);
	expect_refused(text, "expected a key of 32 or 48 bytes");
	CU_ASSERT_EQUAL(nvme_tls_psk_parse("NVMeTLSkey-1:01:" GOOD32, NULL, NULL, 0), -EINVAL);
}

static void format_refuses_mismatched_keys_and_small_buffers(void)
{
	struct nvme_tls_psk k = libnvme_key(1, 48);
	char out[NVME_TLS_PSK_TEXT_MAX];

	CU_ASSERT_EQUAL(nvme_tls_psk_format(&k, out, sizeof(out)), -EINVAL);
	k = libnvme_key(3, 48);
	CU_ASSERT_EQUAL(nvme_tls_psk_format(&k, out, sizeof(out)), -EINVAL);
	k = libnvme_key(0, 40);
	CU_ASSERT_EQUAL(nvme_tls_psk_format(&k, out, sizeof(out)), -EINVAL);
	k = libnvme_key(2, 48);
	CU_ASSERT_EQUAL(nvme_tls_psk_format(&k, out, sizeof(out)), 89);
	CU_ASSERT_EQUAL(nvme_tls_psk_format(&k, out, 89), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(out, "");
}

/* ---- identities and the TLS PSK ---------------------------------------------------- */

/* libnvme test/psk.c test_data_identity and test_data_identity_compat. */
static void libnvme_published_identities_are_made(void)
{
	static const struct {
		bool compat;
		uint8_t hash, len;
		const char *identity;
	} v[] = {
		{ false, 1, 32,
		  "NVMe1R01 " HOST " " SUBSYS " iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lEU=" },
		{ false, 2, 48,
		  "NVMe1R02 " HOST " " SUBSYS
		  " QhW2+Rp6RzHlNtCslyRxMnwJ11tKKhz8JCAQpQ+XUD8f9td1VeH5h53yz2wKJG1a" },
		{ true, 1, 32,
		  "NVMe1R01 " HOST " " SUBSYS " 66GuqV08TsAGII39teWUfwQwizjv06Jy8jOcX3NAAzM=" },
		{ true, 2, 48,
		  "NVMe1R02 " HOST " " SUBSYS
		  " RsKmYJ3nAn1ApjjMloJFbAkLPivONDAX/xW327YBUsn2eGShXSjCZvBaOxscLqmz" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct nvme_tls_psk k = libnvme_key(v[i].hash, v[i].len), tls;
		struct nvme_tls_identity id;
		char out[600];
		int n = v[i].compat ? nvme_tls_identity_make_compat(&k, 1, HOST, SUBSYS, out,
								    sizeof(out)) :
				      nvme_tls_identity_make(&k, 1, HOST, SUBSYS, out, sizeof(out));

		CU_ASSERT_EQUAL(n, (int)strlen(v[i].identity));
		CU_ASSERT_STRING_EQUAL(out, v[i].identity);
		/* The digest names the layout: the other one rejects it. */
		CU_ASSERT_EQUAL_FATAL(nvme_tls_identity_parse(out, (size_t)n, &id), 0);
		CU_ASSERT_EQUAL(v[i].compat ? nvme_tls_psk_derive(&k, &id, &tls) :
					      nvme_tls_psk_derive_compat(&k, &id, &tls),
				-EKEYREJECTED);
		CU_ASSERT_EQUAL(v[i].compat ? nvme_tls_psk_derive_compat(&k, &id, &tls) :
					      nvme_tls_psk_derive(&k, &id, &tls),
				0);
	}
}

/* The hex of @s into @out (for comparing with the vectors' identity=). */
static void hex_of(const char *s, char *out)
{
	for (; *s; s++, out += 2)
		sprintf(out, "%02x", (unsigned char)*s);
	*out = '\0';
}

static void identities_and_tls_psks_match_known_answers(void)
{
	struct kat k;
	size_t i = 0, n = 0;
	const char *l;

	CU_ASSERT_FATAL(kat_load_tls_psk(&k));
	while ((l = kat_next(&k, "derive", &i))) {
		struct nvme_tls_psk configured = psk_from(l), tls, other;
		struct nvme_tls_identity id;
		char layout[16], host[256], sub[256], digest[128], want_id[1200], got_id[1200];
		char identity[600];
		uint8_t want[NVME_TLS_PSK_MAX];
		int version = (int)kat_num(l, "version"), len;
		bool compat;

		kat_str(l, "layout", layout, sizeof(layout));
		kat_str(l, "hostnqn", host, sizeof(host));
		kat_str(l, "subnqn", sub, sizeof(sub));
		kat_str(l, "digest", digest, sizeof(digest));
		kat_str(l, "identity", want_id, sizeof(want_id));
		CU_ASSERT_EQUAL(kat_hex(l, "tls", want, sizeof(want)), configured.len);
		compat = !strcmp(layout, "compat");

		len = compat ? nvme_tls_identity_make_compat(&configured, version, host, sub,
							     identity, sizeof(identity)) :
			       nvme_tls_identity_make(&configured, version, host, sub, identity,
						      sizeof(identity));
		CU_ASSERT_FATAL(len > 0);
		hex_of(identity, got_id);
		CU_ASSERT_STRING_EQUAL(got_id, want_id);

		CU_ASSERT_EQUAL_FATAL(nvme_tls_identity_parse(identity, (size_t)len, &id), 0);
		CU_ASSERT_EQUAL(id.version, version);
		CU_ASSERT_STRING_EQUAL(id.digest, version ? digest : "");
		CU_ASSERT_EQUAL(compat ? nvme_tls_psk_derive_compat(&configured, &id, &tls) :
					 nvme_tls_psk_derive(&configured, &id, &tls),
				0);
		CU_ASSERT_EQUAL(tls.len, configured.len);
		CU_ASSERT_EQUAL(tls.hash, id.hash);
		CU_ASSERT_EQUAL(memcmp(tls.key, want, configured.len), 0);

		/* The other layout: a version 1 digest of a transformed key rejects it (HH 00
		 * has the same retained PSK in both); otherwise another TLS PSK. */
		int rc = compat ? nvme_tls_psk_derive(&configured, &id, &other) :
				  nvme_tls_psk_derive_compat(&configured, &id, &other);
		if (version == 1 && configured.hash) {
			CU_ASSERT_EQUAL(rc, -EKEYREJECTED);
		} else {
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT(memcmp(other.key, want, configured.len) != 0);
		}
		n++;
	}
	CU_ASSERT(n >= 48);
	kat_free(&k);
}

static void identity_parse_takes_exact_length_not_the_nul(void)
{
	/* The ClientHello's bytes are not NUL terminated: what follows @len is ignored. */
	static const char buf[] = "NVMe0R01 " HOST " " SUBSYS "GARBAGE";
	struct nvme_tls_identity id;

	CU_ASSERT_EQUAL(nvme_tls_identity_parse(buf, sizeof(buf) - 1 - 7, &id), 0);
	CU_ASSERT_EQUAL(id.version, 0);
	CU_ASSERT_EQUAL(id.type, 'R');
	CU_ASSERT_EQUAL(id.hash, 1);
	CU_ASSERT_STRING_EQUAL(id.hostnqn, HOST);
	CU_ASSERT_STRING_EQUAL(id.subnqn, SUBSYS);
	CU_ASSERT_STRING_EQUAL(id.digest, "");
	CU_ASSERT_EQUAL(nvme_tls_identity_parse("NVMe0G02 h s", 12, &id), 0);
	CU_ASSERT_EQUAL(id.type, 'G');
	CU_ASSERT_EQUAL(id.hash, 2);
}

static void expect_bad_identity(const char *s, size_t len)
{
	struct nvme_tls_identity id;

	memset(&id, 0x55, sizeof(id));
	if (nvme_tls_identity_parse(s, len, &id) != -EINVAL)
		fprintf(stderr, "\n    identity \"%.*s\" accepted\n", (int)len, s);
	CU_ASSERT_EQUAL(nvme_tls_identity_parse(s, len, &id), -EINVAL);
	CU_ASSERT_EQUAL(id.hostnqn[0], '\0');
	CU_ASSERT_EQUAL(id.version, 0);
}

#define BAD(s) expect_bad_identity(s, sizeof(s) - 1)

static void malformed_identities_are_refused(void)
{
	char nqn[230], buf[600];
	int n;

	BAD("");
	BAD("NVMe0R01");
	BAD("NVMe0R01" HOST SUBSYS);
	BAD("NVMe0R01 " HOST SUBSYS);
	BAD("NVMe2R01 " HOST " " SUBSYS);
	BAD("NVMe0X01 " HOST " " SUBSYS);
	BAD("NVMe0R00 " HOST " " SUBSYS);
	BAD("NVMe0R03 " HOST " " SUBSYS);
	BAD("NVMe0R1 " HOST " " SUBSYS);
	BAD("nvme0R01 " HOST " " SUBSYS);
	BAD("NVMe0R01  " HOST " " SUBSYS);
	BAD("NVMe0R01 " HOST "  " SUBSYS);
	BAD("NVMe0R01 " HOST " " SUBSYS " ");
	BAD("NVMe0R01 " HOST " " SUBSYS " iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lEU=");
	BAD("NVMe0R01 " HOST "\t" SUBSYS);
	BAD("NVMe0R01 " HOST " " SUBSYS "\0");
	BAD("NVMe0R01 nqn.h\0st " SUBSYS);
	/* Version 1: the digest is required and as long as the hash says. */
	BAD("NVMe1R01 " HOST " " SUBSYS);
	BAD("NVMe1R01 " HOST " " SUBSYS " ");
	BAD("NVMe1R01 " HOST " " SUBSYS " iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lE=");
	BAD("NVMe1R02 " HOST " " SUBSYS " iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lEU=");
	BAD("NVMe1R01 " HOST " " SUBSYS " iSbjiStwJ/1TrTvDlt2fjFmzvsytOJel*dNnA+X5lEU=");
	BAD("NVMe1R01 " HOST " " SUBSYS " iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lEU= x");
	CU_ASSERT_EQUAL(nvme_tls_identity_parse(NULL, 10, NULL), -EINVAL);

	/* NQNs: 223 characters fit, 224 do not. */
	memset(nqn, 'n', 223);
	nqn[223] = '\0';
	n = snprintf(buf, sizeof(buf), "NVMe0R01 %s %s", nqn, SUBSYS);
	struct nvme_tls_identity id;
	CU_ASSERT_EQUAL(nvme_tls_identity_parse(buf, (size_t)n, &id), 0);
	CU_ASSERT_EQUAL(strlen(id.hostnqn), 223);
	n = snprintf(buf, sizeof(buf), "NVMe0R01 %s %sn", SUBSYS, nqn);
	expect_bad_identity(buf, (size_t)n);
	n = snprintf(buf, sizeof(buf), "NVMe0R01 %sn %s", nqn, SUBSYS);
	expect_bad_identity(buf, (size_t)n);
}

static void identity_make_refuses_bad_inputs_and_small_buffers(void)
{
	struct nvme_tls_psk k = libnvme_key(1, 32);
	char out[64], nqn[230];

	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 0, HOST, SUBSYS, out, sizeof(out)), 46);
	CU_ASSERT_STRING_EQUAL(out, "NVMe0R01 " HOST " " SUBSYS);
	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 0, HOST, SUBSYS, out, 46), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 2, HOST, SUBSYS, out, sizeof(out)), -EINVAL);
	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 0, "", SUBSYS, out, sizeof(out)), -EINVAL);
	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 0, "a b", SUBSYS, out, sizeof(out)), -EINVAL);
	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 0, HOST, NULL, out, sizeof(out)), -EINVAL);
	memset(nqn, 'n', 224);
	nqn[224] = '\0';
	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 0, nqn, SUBSYS, out, sizeof(out)), -EINVAL);
	k = libnvme_key(1, 48);
	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 0, HOST, SUBSYS, out, sizeof(out)), -EINVAL);
	/* HH 00: the hash of the key's length. */
	k = libnvme_key(0, 48);
	CU_ASSERT_EQUAL(nvme_tls_identity_make(&k, 0, HOST, SUBSYS, out, sizeof(out)), 46);
	CU_ASSERT_STRING_EQUAL(out, "NVMe0R02 " HOST " " SUBSYS);
}

/* The identity @s parsed (or the test fails). */
static struct nvme_tls_identity parsed(const char *s)
{
	struct nvme_tls_identity id;

	CU_ASSERT_EQUAL_FATAL(nvme_tls_identity_parse(s, strlen(s), &id), 0);
	return id;
}

static void derive_refuses_wrong_digest_type_g_and_hash_mismatch(void)
{
	struct nvme_tls_psk k = libnvme_key(1, 32), tls;
	struct nvme_tls_identity id =
		parsed("NVMe1R01 " HOST " " SUBSYS " iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lEU=");
	char nqn[224], buf[600];

	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, &id, &tls), 0);
	/* One character of the digest changed; then the right digest with another key. */
	id.digest[0] = 'j';
	memset(&tls, 0x55, sizeof(tls));
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, &id, &tls), -EKEYREJECTED);
	CU_ASSERT_EQUAL(tls.len, 0);
	CU_ASSERT_EQUAL(tls.key[0], 0);
	id.digest[0] = 'i';
	k.key[5] ^= 1;
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, &id, &tls), -EKEYREJECTED);
	/* Another subsystem: the digest covers the NQNs. */
	k.key[5] ^= 1;
	strcpy(id.subnqn, "nqn.psk-test-other");
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, &id, &tls), -EKEYREJECTED);

	id = parsed("NVMe0G01 " HOST " " SUBSYS);
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, &id, &tls), -EINVAL);
	id = parsed("NVMe0R02 " HOST " " SUBSYS);
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, &id, &tls), -EINVAL);
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, NULL, &tls), -EINVAL);
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(NULL, &id, &tls), -EINVAL);

	/* Version 0 with two long NQNs: the identity exceeds an HkdfLabel's 255-byte
	 * context; version 1 carries only "01 <digest>" there. */
	memset(nqn, 'n', 223);
	nqn[223] = '\0';
	snprintf(buf, sizeof(buf), "NVMe0R01 %s %s", nqn, nqn);
	id = parsed(buf);
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, &id, &tls), -EINVAL);
	CU_ASSERT(nvme_tls_identity_make(&k, 1, nqn, nqn, buf, sizeof(buf)) > 0);
	id = parsed(buf);
	CU_ASSERT_EQUAL(nvme_tls_psk_derive(&k, &id, &tls), 0);
}

/* The target's choice of layout: a version 1 identity's digest names it whatever the
 * configuration says; a version 0 identity gets the one configured. */
static void target_derivation_follows_the_digest_or_the_configuration(void)
{
	struct nvme_tls_psk k = libnvme_key(1, 32), other = libnvme_key(1, 32), tls, want;
	struct nvme_tls_identity id;
	char out[600];
	bool compat;
	other.key[0] ^= 1;
	for (int v = 0; v <= 1; v++)
		for (int layout = 0; layout <= 1; layout++)
			for (int cfg = 0; cfg <= 1; cfg++) {
				int n = layout ? nvme_tls_identity_make_compat(&k, v, HOST, SUBSYS,
									       out, sizeof(out)) :
						 nvme_tls_identity_make(&k, v, HOST, SUBSYS, out,
									sizeof(out));
				CU_ASSERT_EQUAL_FATAL(nvme_tls_identity_parse(out, (size_t)n, &id),
						      0);
				/* version 1: the host's layout; version 0: the configured one */
				bool expect = v == 1 ? layout : cfg;
				CU_ASSERT_EQUAL_FATAL(expect ? nvme_tls_psk_derive_compat(&k, &id,
											  &want) :
							       nvme_tls_psk_derive(&k, &id, &want),
						      0);
				compat = !expect;
				CU_ASSERT_EQUAL(
					nvme_tls_psk_derive_target(&k, &id, cfg, &tls, &compat), 0);
				CU_ASSERT_EQUAL(compat, expect);
				CU_ASSERT_EQUAL(tls.len, 32);
				CU_ASSERT_EQUAL(memcmp(tls.key, want.key, 32), 0);
				/* Another key: a version 1 digest matches neither layout. */
				if (v == 1)
					CU_ASSERT_EQUAL(nvme_tls_psk_derive_target(&other, &id, cfg,
										   &tls, NULL),
							-EKEYREJECTED);
			}
}

const struct unit_test nvme_tls_psk_tests[] = {
	{ "kat_file_has_every_kind_of_vector", kat_file_has_every_kind_of_vector },
	{ "interchange_texts_match_known_answers", interchange_texts_match_known_answers },
	{ "libnvme_published_texts_parse_and_format", libnvme_published_texts_parse_and_format },
	{ "malformed_interchange_texts_are_refused", malformed_interchange_texts_are_refused },
	{ "format_refuses_mismatched_keys_and_small_buffers",
	  format_refuses_mismatched_keys_and_small_buffers },
	{ "libnvme_published_identities_are_made", libnvme_published_identities_are_made },
	{ "identities_and_tls_psks_match_known_answers",
	  identities_and_tls_psks_match_known_answers },
	{ "identity_parse_takes_exact_length_not_the_nul",
	  identity_parse_takes_exact_length_not_the_nul },
	{ "malformed_identities_are_refused", malformed_identities_are_refused },
	{ "identity_make_refuses_bad_inputs_and_small_buffers",
	  identity_make_refuses_bad_inputs_and_small_buffers },
	{ "derive_refuses_wrong_digest_type_g_and_hash_mismatch",
	  derive_refuses_wrong_digest_type_g_and_hash_mismatch },
	{ "target_derivation_follows_the_digest_or_the_configuration",
	  target_derivation_follows_the_digest_or_the_configuration },
	{ NULL, NULL },
};
