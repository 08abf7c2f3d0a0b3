// SPDX-License-Identifier: MIT
/*
 * DH-HMAC-CHAP's hash functions and DH groups by the names the kernel's configfs and
 * nvmetcli use (declared in dhchap.h): libc only, so that nvmf-targetctl checks and lists
 * them (through control/schema.c) without OpenSSL.
 */
#include "nvme/dhchap.h"

#include <errno.h>
#include <string.h>
#include "util/choice.h"

/* hash id = index + NVME_AUTH_HASH_SHA256; DH group id = index. */
_Static_assert(NVME_AUTH_HASH_SHA384 == NVME_AUTH_HASH_SHA256 + 1 &&
		       NVME_AUTH_HASH_SHA512 == NVME_AUTH_HASH_SHA256 + 2,
	       "hash ids follow each other");
_Static_assert(NVME_AUTH_DHGROUP_NULL == 0 && NVME_AUTH_DHGROUP_8192 == 5,
	       "DH group ids are 0 to 5");

const char *const nvme_dhchap_hash_names[NVME_DHCHAP_HASH_COUNT + 1] = {
	"hmac(sha256)",
	"hmac(sha384)",
	"hmac(sha512)",
	NULL,
};

const char *const nvme_dhchap_dhgroup_names[NVME_DHCHAP_DHGROUP_COUNT + 1] = {
	[NVME_AUTH_DHGROUP_NULL] = "null",      [NVME_AUTH_DHGROUP_2048] = "ffdhe2048",
	[NVME_AUTH_DHGROUP_3072] = "ffdhe3072", [NVME_AUTH_DHGROUP_4096] = "ffdhe4096",
	[NVME_AUTH_DHGROUP_6144] = "ffdhe6144", [NVME_AUTH_DHGROUP_8192] = "ffdhe8192",
	[NVME_DHCHAP_DHGROUP_COUNT] = NULL,
};

const char *nvme_dhchap_hash_name(uint8_t hash_id)
{
	unsigned i = (unsigned)hash_id - NVME_AUTH_HASH_SHA256;
	return i < NVME_DHCHAP_HASH_COUNT ? nvme_dhchap_hash_names[i] : NULL;
}

int nvme_dhchap_hash_id(const char *name)
{
	int i = nvmf_choice_index(nvme_dhchap_hash_names, name);
	return i < 0 ? -EINVAL : i + NVME_AUTH_HASH_SHA256;
}

const char *nvme_dhchap_dhgroup_name(uint8_t dhgroup_id)
{
	return dhgroup_id < NVME_DHCHAP_DHGROUP_COUNT ? nvme_dhchap_dhgroup_names[dhgroup_id] :
							NULL;
}

int nvme_dhchap_dhgroup_id(const char *name)
{
	int i = nvmf_choice_index(nvme_dhchap_dhgroup_names, name);
	return i < 0 ? -EINVAL : i;
}
