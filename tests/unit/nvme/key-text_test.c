/* The shared secret text codec (nvme/key-text.c). Its DHHC-1 messages are checked through
 * nvme_dhchap_key_parse in dhchap_test.c, its TLS PSK use in tls-psk_test.c; here the
 * codec's own rules: the CRC, the encoder, a required closing ':' and the length list. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "nvme/key-text.h"
#include "tests/unit/suites.h"

static const uint8_t lens_32_48[] = { 32, 48, 0 };
static const struct nvme_key_text_form strict = {
	.prefix = "TEST-1:",
	.what = "test key",
	.a_what = "a test key",
	.lens = lens_32_48,
	.colon_required = true,
};

static void crc32_is_zlibs(void)
{
	/* The CRC-32 check value (the catalogue's CRC-32/ISO-HDLC, zlib's crc32). */
	CU_ASSERT_EQUAL(nvme_key_text_crc32((const uint8_t *)"123456789", 9), 0xcbf43926u);
	CU_ASSERT_EQUAL(nvme_key_text_crc32((const uint8_t *)"", 0), 0);
}

/* python3: "DHHC-1:00:" + base64(bytes(range(32)) + zlib.crc32(...).to_bytes(4, 'little')) */
static void format_writes_nvme_clis_text(void)
{
	uint8_t key[48];
	char out[128];

	for (int i = 0; i < 48; i++)
		key[i] = (uint8_t)i;
	CU_ASSERT_EQUAL(nvme_key_text_format("DHHC-1:", 0, key, 32, out, sizeof(out)), 59);
	CU_ASSERT_STRING_EQUAL(out, "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:");
	/* 52 bytes: base64 ends in "==" as nvme-cli writes it. */
	CU_ASSERT_EQUAL(nvme_key_text_format("TEST-1:", 2, key, 48, out, sizeof(out)), 83);
	CU_ASSERT_EQUAL(strncmp(out, "TEST-1:02:", 10), 0);
	CU_ASSERT_EQUAL(strcmp(out + 80, "==:"), 0);
}

static void format_refuses_small_buffers_and_bad_fields(void)
{
	uint8_t key[32] = { 1 };
	char out[59];

	memset(out, 'x', sizeof(out));
	CU_ASSERT_EQUAL(nvme_key_text_format("DHHC-1:", 0, key, 32, out, sizeof(out)), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_EQUAL(nvme_key_text_format("DHHC-1:", 100, key, 32, out, sizeof(out)), -EINVAL);
	CU_ASSERT_EQUAL(nvme_key_text_format("DHHC-1:", 0, key, 0, out, sizeof(out)), -EINVAL);
	CU_ASSERT_EQUAL(nvme_key_text_format("DHHC-1:", 0, key, 65, out, sizeof(out)), -EINVAL);
}

/* RFC 4648 section 10's test vectors. */
static void base64_matches_rfc4648_vectors(void)
{
	static const char *const want[] = { "",         "Zg==",     "Zm8=",    "Zm9v",
					    "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	char out[16];

	for (size_t n = 0; n < 7; n++) {
		CU_ASSERT_EQUAL(nvme_key_text_base64((const uint8_t *)"foobar", n, out,
						     sizeof(out)),
				(int)strlen(want[n]));
		CU_ASSERT_STRING_EQUAL(out, want[n]);
	}
	CU_ASSERT_EQUAL(nvme_key_text_base64((const uint8_t *)"foobar", 6, out, 8), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(out, "");
}

static void decode_round_trips_every_allowed_length(void)
{
	static const size_t lens[] = { 32, 48 };

	for (size_t l = 0; l < 2; l++) {
		uint8_t key[48], got[NVME_KEY_TEXT_MAX_KEY];
		char text[128], err[160] = "";
		unsigned nn = 99;
		size_t len = 0;

		for (size_t i = 0; i < lens[l]; i++)
			key[i] = (uint8_t)(0xa5 ^ (i * 7));
		CU_ASSERT_FATAL(
			nvme_key_text_format("TEST-1:", 7, key, lens[l], text, sizeof(text)) > 0);
		CU_ASSERT_EQUAL(nvme_key_text_nn(text, &strict, &nn, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(nn, 7);
		CU_ASSERT_EQUAL(nvme_key_text_key(text, &strict, got, &len, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(len, lens[l]);
		CU_ASSERT_EQUAL(memcmp(got, key, lens[l]), 0);
	}
}

static void required_closing_colon_and_length_list_are_enforced(void)
{
	uint8_t key[64] = { 0 }, got[NVME_KEY_TEXT_MAX_KEY];
	char text[128], err[160] = "";
	size_t len = 1;
	int n;

	n = nvme_key_text_format("TEST-1:", 1, key, 32, text, sizeof(text));
	CU_ASSERT_FATAL(n > 0);
	text[n - 1] = '\0';
	CU_ASSERT_EQUAL(nvme_key_text_key(text, &strict, got, &len, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "the secret's closing ':' is missing");
	CU_ASSERT_EQUAL(len, 0);

	CU_ASSERT_FATAL(nvme_key_text_format("TEST-1:", 1, key, 64, text, sizeof(text)) > 0);
	CU_ASSERT_EQUAL(nvme_key_text_key(text, &strict, got, &len, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "the key is longer than 48 bytes");
	CU_ASSERT_FATAL(nvme_key_text_format("TEST-1:", 1, key, 40, text, sizeof(text)) > 0);
	CU_ASSERT_EQUAL(nvme_key_text_key(text, &strict, got, &len, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "the secret decodes to 44 bytes: expected a key of 32 or 48 "
				    "bytes and its 4-byte CRC-32");
}

static void prefix_messages_name_the_form(void)
{
	char err[160] = "";
	unsigned nn;

	CU_ASSERT_EQUAL(nvme_key_text_nn("", &strict, &nn, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "empty test key (expected TEST-1:NN:<base64>:)");
	CU_ASSERT_EQUAL(nvme_key_text_nn("TEST-2:01:", &strict, &nn, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "not a test key: it must start with \"TEST-1:\"");
	CU_ASSERT_EQUAL(nvme_key_text_nn("TEST-1:1:", &strict, &nn, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "TEST-1:NN: NN must be two digits followed by ':'");
}

const struct unit_test nvme_key_text_tests[] = {
	{ "crc32_is_zlibs", crc32_is_zlibs },
	{ "format_writes_nvme_clis_text", format_writes_nvme_clis_text },
	{ "format_refuses_small_buffers_and_bad_fields",
	  format_refuses_small_buffers_and_bad_fields },
	{ "base64_matches_rfc4648_vectors", base64_matches_rfc4648_vectors },
	{ "decode_round_trips_every_allowed_length", decode_round_trips_every_allowed_length },
	{ "required_closing_colon_and_length_list_are_enforced",
	  required_closing_colon_and_length_list_are_enforced },
	{ "prefix_messages_name_the_form", prefix_messages_name_the_form },
	{ NULL, NULL },
};
