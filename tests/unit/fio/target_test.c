/* The fio engine's target string (fio/target.c): SPDK's filename form, the engine's
 * options filling in, SPDK's digest_enable; every refusal names what is wrong. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "fio/target.h"
#include "tests/unit/suites.h"

static void spdk_form_is_read(void)
{
	struct nvmf_fio_target t;
	char msg[256];
	CU_ASSERT_EQUAL(nvmf_fio_target_parse("trtype=TCP adrfam=IPv4 traddr=127.0.0.1 "
					      "trsvcid=4420 subnqn=nqn.2016-06.io.spdk:cnode1 ns=3",
					      &t, msg, sizeof(msg)),
			0);
	CU_ASSERT_STRING_EQUAL(t.trtype, "tcp");
	CU_ASSERT_STRING_EQUAL(t.adrfam, "ipv4");
	CU_ASSERT_STRING_EQUAL(t.traddr, "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(t.trsvcid, "4420");
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.2016-06.io.spdk:cnode1");
	CU_ASSERT_STRING_EQUAL(t.hostnqn, "");
	CU_ASSERT_EQUAL(t.nsid, 3);
}

static void escaped_colons_spaces_and_case(void)
{
	struct nvmf_fio_target t;
	char msg[256];
	CU_ASSERT_EQUAL(nvmf_fio_target_parse("  TRADDR=fe80\\:\\:1\tSubNQN=nqn.x\\:y  "
					      "hostnqn=nqn.h\\:1 ns=0x10 ",
					      &t, msg, sizeof(msg)),
			0);
	CU_ASSERT_STRING_EQUAL(t.traddr, "fe80::1");
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.x:y");
	CU_ASSERT_STRING_EQUAL(t.hostnqn, "nqn.h:1");
	CU_ASSERT_EQUAL(t.nsid, 16);
}

static void a_name_without_equals_names_no_target(void)
{
	struct nvmf_fio_target t;
	char msg[64] = "x";
	CU_ASSERT_EQUAL(nvmf_fio_target_parse("job.0.0", &t, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(t.traddr, "");
	CU_ASSERT_EQUAL(t.nsid, 0);
	CU_ASSERT_EQUAL(nvmf_fio_target_parse(NULL, &t, msg, sizeof(msg)), 0);
}

static void refuse(const char *text, const char *want)
{
	struct nvmf_fio_target t;
	char msg[256] = "";
	CU_ASSERT_EQUAL(nvmf_fio_target_parse(text, &t, msg, sizeof(msg)), -EINVAL);
	if (!strstr(msg, want))
		fprintf(stderr, "'%s': message '%s' lacks '%s'\n", text, msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
}

static void bad_words_are_refused_by_name(void)
{
	refuse("trtype=tcp traddr", "'traddr' is not key=value");
	refuse("traddr=1.2.3.4 =x", "'=x' has no key");
	refuse("traddr=1.2.3.4 colour=blue", "unknown key 'colour' (known: trtype, adrfam");
	refuse("traddr=1.2.3.4 traddr=5.6.7.8", "key 'traddr' given twice");
	refuse("ns=1 ns=2", "key 'ns' given twice");
	refuse("traddr=", "key 'traddr' has no value");
	refuse("trtype=fc", "trtype 'fc' is not tcp or rdma");
	refuse("adrfam=IB", "adrfam 'IB' is not IPv4 or IPv6");
	refuse("ns=0", "ns '0' is not a namespace ID");
	refuse("ns=-1", "ns '-1' is not a namespace ID");
	refuse("ns=4294967295", "ns '4294967295' is not a namespace ID");
	refuse("ns=1x", "ns '1x' is not a namespace ID");
	char longer[400];
	memset(longer, 'a', sizeof(longer));
	memcpy(longer, "subnqn=", 7);
	longer[sizeof(longer) - 1] = '\0';
	refuse(longer, "...' is too long (392 characters, at most 223)");
}

static void options_fill_what_the_filename_leaves(void)
{
	struct nvmf_fio_target t, d;
	char msg[128];
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL(nvmf_fio_target_set(&d, "traddr", "10.0.0.1", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(nvmf_fio_target_set(&d, "subnqn", "nqn.d", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(nvmf_fio_target_set(&d, "ns", "2", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(nvmf_fio_target_set(&d, "ns", "3", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_fio_target_parse("traddr=10.0.0.9 trsvcid=4421", &t, msg, sizeof(msg)),
			0);
	nvmf_fio_target_merge(&t, &d);
	CU_ASSERT_STRING_EQUAL(t.traddr, "10.0.0.9"); /* the filename's wins */
	CU_ASSERT_STRING_EQUAL(t.trsvcid, "4421");
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.d");
	CU_ASSERT_EQUAL(t.nsid, 2);
}

static void digest_enable_as_spdk(void)
{
	int h, d;
	char msg[160];
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse(NULL, &h, &d, msg, sizeof(msg)), 0);
	CU_ASSERT(!h && !d);
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse("NONE", &h, &d, msg, sizeof(msg)), 0);
	CU_ASSERT(!h && !d);
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse("HEADER", &h, &d, msg, sizeof(msg)), 0);
	CU_ASSERT(h && !d);
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse("data", &h, &d, msg, sizeof(msg)), 0);
	CU_ASSERT(!h && d);
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse("BOTH", &h, &d, msg, sizeof(msg)), 0);
	CU_ASSERT(h && d);
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse("HEADER,DATA", &h, &d, msg, sizeof(msg)), 0);
	CU_ASSERT(h && d);
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse("DATA|HEADER", &h, &d, msg, sizeof(msg)), 0);
	CU_ASSERT(h && d);
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse("HEADER,CRC", &h, &d, msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "digest_enable 'HEADER,CRC' is not NONE"));
	CU_ASSERT_EQUAL(nvmf_fio_digests_parse("HEADER,", &h, &d, msg, sizeof(msg)), 0);
}

const struct unit_test fio_target_tests[] = {
	{ "spdk_form_is_read", spdk_form_is_read },
	{ "escaped_colons_spaces_and_case", escaped_colons_spaces_and_case },
	{ "a_name_without_equals_names_no_target", a_name_without_equals_names_no_target },
	{ "bad_words_are_refused_by_name", bad_words_are_refused_by_name },
	{ "options_fill_what_the_filename_leaves", options_fill_what_the_filename_leaves },
	{ "digest_enable_as_spdk", digest_enable_as_spdk },
	{ NULL, NULL }
};
