/* DH-HMAC-CHAP's hash functions and DH groups by name (nvme/dhchap-names.c): the names
 * the kernel's configfs and nvmetcli use, both ways, and the test that keeps a secret
 * from being echoed. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stddef.h>
#include "nvme/dhchap.h"
#include "tests/unit/suites.h"

static void hash_ids_have_their_kernel_names_both_ways(void)
{
	CU_ASSERT_STRING_EQUAL(nvme_dhchap_hash_name(1), "hmac(sha256)");
	CU_ASSERT_STRING_EQUAL(nvme_dhchap_hash_name(2), "hmac(sha384)");
	CU_ASSERT_STRING_EQUAL(nvme_dhchap_hash_name(3), "hmac(sha512)");
	CU_ASSERT_PTR_NULL(nvme_dhchap_hash_name(0));
	CU_ASSERT_PTR_NULL(nvme_dhchap_hash_name(4));
	CU_ASSERT_PTR_NULL(nvme_dhchap_hash_name(0xff));
	CU_ASSERT_EQUAL(nvme_dhchap_hash_id("hmac(sha256)"), NVME_AUTH_HASH_SHA256);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_id("hmac(sha384)"), NVME_AUTH_HASH_SHA384);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_id("hmac(sha512)"), NVME_AUTH_HASH_SHA512);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_id("sha384"), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_id("hmac(sha384) "), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_hash_id(NULL), -EINVAL);
	/* The list the schema and the CLI print: the three names, NULL-ended. */
	CU_ASSERT_STRING_EQUAL(nvme_dhchap_hash_names[0], "hmac(sha256)");
	CU_ASSERT_PTR_NULL(nvme_dhchap_hash_names[NVME_DHCHAP_HASH_COUNT]);
}

static void dhgroup_ids_have_their_kernel_names_both_ways(void)
{
	static const char *const name[] = { "null",      "ffdhe2048", "ffdhe3072",
					    "ffdhe4096", "ffdhe6144", "ffdhe8192" };
	for (uint8_t g = 0; g <= NVME_AUTH_DHGROUP_8192; g++) {
		CU_ASSERT_STRING_EQUAL(nvme_dhchap_dhgroup_name(g), name[g]);
		CU_ASSERT_EQUAL(nvme_dhchap_dhgroup_id(name[g]), g);
	}
	CU_ASSERT_PTR_NULL(nvme_dhchap_dhgroup_name(6));
	CU_ASSERT_PTR_NULL(nvme_dhchap_dhgroup_names[NVME_DHCHAP_DHGROUP_COUNT]);
	CU_ASSERT_EQUAL(nvme_dhchap_dhgroup_id("ffdhe1024"), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dhgroup_id("FFDHE2048"), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dhgroup_id(""), -EINVAL);
	CU_ASSERT_EQUAL(nvme_dhchap_dhgroup_id(NULL), -EINVAL);
}

const struct unit_test nvme_dhchap_names_tests[] = {
	{ "hash_ids_have_their_kernel_names_both_ways",
	  hash_ids_have_their_kernel_names_both_ways },
	{ "dhgroup_ids_have_their_kernel_names_both_ways",
	  dhgroup_ids_have_their_kernel_names_both_ways },
	{ NULL, NULL }
};
