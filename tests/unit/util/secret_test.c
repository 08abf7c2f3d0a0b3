/* Secrets in text (util/secret.c): found anywhere in a line, and replaced by "<secret>"
 * with the rest of the line kept. */
#include <stddef.h>
#include "tests/unit/suites.h"
#include "util/secret.h"

static void text_with_a_secret_anywhere_is_found(void)
{
	CU_ASSERT_TRUE(nvmf_text_has_secret("DHHC-1:00:abcd:"));
	CU_ASSERT_TRUE(nvmf_text_has_secret("key=DHHC-1:01:abcd:"));
	CU_ASSERT_FALSE(nvmf_text_has_secret("nqn.2014-08.org.nvmexpress:uuid:1"));
	CU_ASSERT_FALSE(nvmf_text_has_secret("DHHC-1"));
	CU_ASSERT_FALSE(nvmf_text_has_secret(""));
	CU_ASSERT_FALSE(nvmf_text_has_secret(NULL));
	CU_ASSERT_TRUE(nvmf_text_has_secret(
		"NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"));
}

static void secrets_in_a_line_are_replaced_and_the_rest_kept(void)
{
	char line[] = "host add: HOSTNQN 'DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G0+/8=:' and "
		      "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ: end";
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(line), 2);
	CU_ASSERT_STRING_EQUAL(line, "host add: HOSTNQN '<secret>' and <secret> end");
	char bare[] = "DHHC-1: is the prefix", none[] = "nqn.2014-08.org.nvmexpress:uuid:1";
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(bare), 0);
	CU_ASSERT_STRING_EQUAL(bare, "DHHC-1: is the prefix");
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(none), 0);
	CU_ASSERT_STRING_EQUAL(none, "nqn.2014-08.org.nvmexpress:uuid:1");
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(NULL), 0);
	/* Messages saying what a key looks like stay readable: the bare prefix, and the
	 * format's placeholder; a key whose fields start "NN:" is still hidden. */
	char hint[] = "empty NVMe TLS PSK (expected NVMeTLSkey-1:NN:<base64>:)",
	     start[] = "not an NVMe TLS PSK: it must start with \"NVMeTLSkey-1:\"",
	     nn[] = "key NVMeTLSkey-1:NN:VRLbtnN9AQb2: here", frag[] = "x NVMeTLSkey-1:0 y";
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(hint), 0);
	CU_ASSERT_STRING_EQUAL(hint, "empty NVMe TLS PSK (expected NVMeTLSkey-1:NN:<base64>:)");
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(start), 0);
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(nn), 1);
	CU_ASSERT_STRING_EQUAL(nn, "key <secret> here");
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(frag), 1);
	CU_ASSERT_STRING_EQUAL(frag, "x <secret> y");
	/* The secret ends at its closing ':': a message's own ':' after it stays. */
	char path[] = "/tmp/NVMeTLSkey-1:01:VRLbtnN9AQb2:: No such file or directory";
	CU_ASSERT_EQUAL(nvmf_text_redact_secrets(path), 1);
	CU_ASSERT_STRING_EQUAL(path, "/tmp/<secret>: No such file or directory");
}

const struct unit_test util_secret_tests[] = {
	{ "text_with_a_secret_anywhere_is_found", text_with_a_secret_anywhere_is_found },
	{ "secrets_in_a_line_are_replaced_and_the_rest_kept",
	  secrets_in_a_line_are_replaced_and_the_rest_kept },
	{ NULL, NULL },
};
