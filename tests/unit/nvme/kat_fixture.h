/* The known-answer files of the DH-HMAC-CHAP tests (tests/auth/dhchap_kat.py writes it,
 * `make unit` runs that) and of the TLS PSK tests (tests/auth/tls_psk_kat.py): one vector a line, "KIND name=value ...", values in hex unless
 * they are NQNs, secrets or decimal numbers. Every accessor fails the running test
 * (CU_ASSERT_FATAL) when the field is missing or malformed. */
#ifndef NVMF_TESTS_UNIT_NVME_KAT_FIXTURE_H
#define NVMF_TESTS_UNIT_NVME_KAT_FIXTURE_H
#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kat {
	char *buf; /* the whole file, each line NUL-terminated in place */
	char **lines;
	size_t n;
};

/* Load DHCHAP_KAT_FILE (relative to the repository: run from its root); false, with a
 * line on stderr saying how to make it, when it cannot be read. */
bool kat_load(struct kat *k);
/* The same for TLS_PSK_KAT_FILE. */
bool kat_load_tls_psk(struct kat *k);
void kat_free(struct kat *k);
/* Load the file or fail the test. */
#define KAT_OPEN(k)   \
	struct kat k; \
	CU_ASSERT_FATAL(kat_load(&k))

/* The next line of @kind after index *i (start with *i = 0), or NULL. */
const char *kat_next(const struct kat *k, const char *kind, size_t *i);

bool kat_has(const char *line, const char *name);
/* The field as a string into @out (@n bytes with the NUL). */
void kat_str(const char *line, const char *name, char *out, size_t n);
/* The field as a decimal number. */
unsigned long kat_num(const char *line, const char *name);
/* The field's hex into @out (at most @max bytes); returns the byte count. */
size_t kat_hex(const char *line, const char *name, uint8_t *out, size_t max);

#endif
