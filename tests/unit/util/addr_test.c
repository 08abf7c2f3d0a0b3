/* IP addresses as text (util/addr.c): socket addresses for messages, IPv4 and IPv6, and
 * the canonical form of an address as the config writes it. */
#include <errno.h>
#include <CUnit/CUnit.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/un.h>
#include "tests/unit/suites.h"
#include "util/addr.h"

static void ipv4_sockaddr_is_address_colon_port(void)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(4420) };
	inet_pton(AF_INET, "192.168.7.1", &in.sin_addr);
	char buf[NVMF_SOCKADDR_STRLEN];
	CU_ASSERT_STRING_EQUAL(nvmf_sockaddr_str((struct sockaddr *)&in, buf, sizeof(buf)),
			       "192.168.7.1:4420");
	in.sin_port = htons(65535);
	CU_ASSERT_STRING_EQUAL(nvmf_sockaddr_str((struct sockaddr *)&in, buf, sizeof(buf)),
			       "192.168.7.1:65535");
}

static void ipv6_sockaddr_is_bracketed_and_canonical(void)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(8009) };
	inet_pton(AF_INET6, "FD77:0:0:0:0:0:0:1", &in6.sin6_addr);
	char buf[NVMF_SOCKADDR_STRLEN];
	CU_ASSERT_STRING_EQUAL(nvmf_sockaddr_str((struct sockaddr *)&in6, buf, sizeof(buf)),
			       "[fd77::1]:8009");
	/* The longest there is fits NVMF_SOCKADDR_STRLEN. */
	inet_pton(AF_INET6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", &in6.sin6_addr);
	in6.sin6_port = htons(65535);
	nvmf_sockaddr_str((struct sockaddr *)&in6, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");
	/* A v4-mapped address stays IPv6 text. */
	inet_pton(AF_INET6, "::ffff:10.0.0.1", &in6.sin6_addr);
	in6.sin6_port = htons(1);
	CU_ASSERT_STRING_EQUAL(nvmf_sockaddr_str((struct sockaddr *)&in6, buf, sizeof(buf)),
			       "[::ffff:10.0.0.1]:1");
}

static void unknown_family_or_null_is_a_question_mark(void)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char buf[NVMF_SOCKADDR_STRLEN] = "x";
	CU_ASSERT_STRING_EQUAL(nvmf_sockaddr_str((struct sockaddr *)&un, buf, sizeof(buf)), "?");
	CU_ASSERT_STRING_EQUAL(nvmf_sockaddr_str(NULL, buf, sizeof(buf)), "?");
	CU_ASSERT_FALSE(nvmf_sockaddr_host((struct sockaddr *)&un, buf, sizeof(buf)));
	CU_ASSERT_FALSE(nvmf_sockaddr_host(NULL, buf, sizeof(buf)));
}

static void short_buffer_is_truncated_not_overrun(void)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(4420) };
	inet_pton(AF_INET, "10.0.0.1", &in.sin_addr);
	char buf[8 + 4];
	memset(buf, 'Z', sizeof(buf));
	nvmf_sockaddr_str((struct sockaddr *)&in, buf, 8);
	CU_ASSERT_STRING_EQUAL(buf, "10.0.0.");
	CU_ASSERT_EQUAL(buf[8], 'Z');
	/* The host alone into too small a buffer: refused. */
	CU_ASSERT_FALSE(nvmf_sockaddr_host((struct sockaddr *)&in, buf, 4));
}

static void host_alone_has_no_port_nor_brackets(void)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(4420) };
	inet_pton(AF_INET6, "2001:db8::7", &in6.sin6_addr);
	char buf[INET6_ADDRSTRLEN];
	CU_ASSERT_TRUE(nvmf_sockaddr_host((struct sockaddr *)&in6, buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(buf, "2001:db8::7");
}

static void ip_parse_tells_the_family_and_str_canonicalises(void)
{
	unsigned char bin[16];
	char out[INET6_ADDRSTRLEN];
	CU_ASSERT_EQUAL(nvmf_ip_parse("10.1.2.3", bin), AF_INET);
	CU_ASSERT_TRUE(nvmf_ip_str(AF_INET, bin, out, sizeof(out)));
	CU_ASSERT_STRING_EQUAL(out, "10.1.2.3");
	CU_ASSERT_EQUAL(nvmf_ip_parse("FD00:0000::0001", bin), AF_INET6);
	CU_ASSERT_TRUE(nvmf_ip_str(AF_INET6, bin, out, sizeof(out)));
	CU_ASSERT_STRING_EQUAL(out, "fd00::1");
	CU_ASSERT_EQUAL(nvmf_ip_parse("::", bin), AF_INET6);
	CU_ASSERT_EQUAL(nvmf_ip_parse("", bin), 0);
	CU_ASSERT_EQUAL(nvmf_ip_parse("10.1.2", bin), 0);
	CU_ASSERT_EQUAL(nvmf_ip_parse("[fd00::1]", bin), 0);
	CU_ASSERT_EQUAL(nvmf_ip_parse("fd00::1%eth0", bin), 0);
	CU_ASSERT_EQUAL(nvmf_ip_parse("host.example", bin), 0);
	CU_ASSERT_FALSE(nvmf_ip_str(AF_UNIX, bin, out, sizeof(out)));
}

/* A port number is decimal 1..65535, nothing else: never taken modulo 65536. */
static void port_parse_takes_1_to_65535_only(void)
{
	uint16_t p = 7;
	CU_ASSERT_EQUAL(nvmf_port_parse("4420", &p), 0);
	CU_ASSERT_EQUAL(p, 4420);
	CU_ASSERT_EQUAL(nvmf_port_parse("65535", &p), 0);
	CU_ASSERT_EQUAL(p, 65535);
	CU_ASSERT_EQUAL(nvmf_port_parse("1", &p), 0);
	const char *bad[] = { "0",   "65536", "79956", "4294971716", "-1", "+80",
			      " 80", "80 ",   "8o",    "0x50",       "",   NULL };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = 9;
		CU_ASSERT_EQUAL(nvmf_port_parse(bad[i], &p), -EINVAL);
		CU_ASSERT_EQUAL(p, 9);
	}
}

const struct unit_test util_addr_tests[] = {
	{ "ipv4_sockaddr_is_address_colon_port", ipv4_sockaddr_is_address_colon_port },
	{ "port_parse_takes_1_to_65535_only", port_parse_takes_1_to_65535_only },
	{ "ipv6_sockaddr_is_bracketed_and_canonical", ipv6_sockaddr_is_bracketed_and_canonical },
	{ "unknown_family_or_null_is_a_question_mark", unknown_family_or_null_is_a_question_mark },
	{ "short_buffer_is_truncated_not_overrun", short_buffer_is_truncated_not_overrun },
	{ "host_alone_has_no_port_nor_brackets", host_alone_has_no_port_nor_brackets },
	{ "ip_parse_tells_the_family_and_str_canonicalises",
	  ip_parse_tells_the_family_and_str_canonicalises },
	{ NULL, NULL }
};
