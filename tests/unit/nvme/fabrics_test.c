/* Fabrics command SQEs (nvme/fabrics.h): field offsets and little-endian encoding checked
 * against byte layouts written out from NVMe-oF 1.1 section 3 (3.1-3.5). */
#include <CUnit/CUnit.h>
#include <stddef.h>
#include <string.h>
#include "nvme/auth.h"
#include "nvme/fabrics.h"
#include "tests/unit/suites.h"

static void fabrics_sqes_are_64_bytes_with_spec_offsets(void)
{
	CU_ASSERT_EQUAL(offsetof(struct nvmf_fabrics_sqe_head, fctype), 4);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_fabrics_sqe_head, dptr), 24);
	CU_ASSERT_EQUAL(sizeof(struct nvmf_connect_sqe), 64);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_connect_sqe, recfmt), 40);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_connect_sqe, qid), 42);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_connect_sqe, sqsize), 44);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_connect_sqe, cattr), 46);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_connect_sqe, kato), 48);
	CU_ASSERT_EQUAL(sizeof(struct nvmf_property_sqe), 64);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_property_sqe, attrib), 40);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_property_sqe, ofst), 44);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_property_sqe, value), 48);
	CU_ASSERT_EQUAL(sizeof(struct nvmf_auth_sqe), 64);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_auth_sqe, spsp0), 41);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_auth_sqe, spsp1), 42);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_auth_sqe, secp), 43);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_auth_sqe, len), 44);
}

/* An I/O queue Connect: QID 3, SQSIZE 127 (128 entries), CATTR SQ flow control disabled,
 * KATO 0x0001d4c0 (120 s) to see every byte of the le32. */
/* clang-format off */
static const uint8_t connect_bytes[64] = {
	[0] = 0x7f, [4] = 0x01,
	[42] = 0x03, [43] = 0x00, [44] = 0x7f, [45] = 0x00, [46] = 0x04,
	[48] = 0xc0, [49] = 0xd4, [50] = 0x01, [51] = 0x00,
};
/* clang-format on */

static void connect_encodes_to_spec_bytes(void)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0xaa, sizeof(sqe));
	const struct nvmf_connect_cmd c = {
		.qid = 3, .sqsize = 127, .kato = 120000, .cattr = NVMF_CONNECT_CATTR_SQFLOW_DISABLE
	};
	nvmf_connect_encode(&sqe, &c);
	CU_ASSERT_EQUAL(memcmp(&sqe, connect_bytes, sizeof(connect_bytes)), 0);
}

static void connect_decodes_from_spec_bytes(void)
{
	uint8_t raw[65];
	struct nvmf_connect_cmd c;
	/* At an odd address, as a capsule may be in a receive buffer. */
	memcpy(raw + 1, connect_bytes, 64);
	raw[1 + 41] = 0x01; /* RECFMT 0100h: bytes 40-41, the high byte second */
	nvmf_connect_decode((const struct nvme_sqe *)(raw + 1), &c);
	CU_ASSERT_EQUAL(nvmf_sqe_fctype((const struct nvme_sqe *)(raw + 1)),
			nvme_fabrics_type_connect);
	CU_ASSERT_EQUAL(c.recfmt, 0x0100);
	CU_ASSERT_EQUAL(c.qid, 3);
	CU_ASSERT_EQUAL(c.sqsize, 127);
	CU_ASSERT_EQUAL(c.cattr, NVMF_CONNECT_CATTR_SQFLOW_DISABLE);
	CU_ASSERT_EQUAL(c.kato, 120000);
}

/* Property Set of CC (offset 14h) to 0x00460001, 4 bytes; Property Get of CAP, 8 bytes. */
static void property_set_and_get_encode_to_spec_bytes(void)
{
	const uint8_t set[64] = { [0] = 0x7f,  [4] = 0x00,  [44] = 0x14, [48] = 0x01,
				  [49] = 0x00, [50] = 0x46, [51] = 0x00 };
	const uint8_t get[64] = { [0] = 0x7f, [4] = 0x04, [40] = 0x01, [44] = 0x00 };
	struct nvme_sqe sqe;
	nvmf_property_encode(&sqe, nvme_fabrics_type_property_set,
			     &(struct nvmf_property_cmd){ .ofst = NVMF_PROP_CC,
							  .value = 0x00460001 });
	CU_ASSERT_EQUAL(memcmp(&sqe, set, 64), 0);
	nvmf_property_encode(&sqe, nvme_fabrics_type_property_get,
			     &(struct nvmf_property_cmd){ .attrib = NVMF_PROP_ATTRIB_SIZE8,
							  .ofst = NVMF_PROP_CAP });
	CU_ASSERT_EQUAL(memcmp(&sqe, get, 64), 0);
}

static void property_decodes_8_byte_value_little_endian(void)
{
	uint8_t raw[64] = { [0] = 0x7f, [4] = 0x00, [40] = 0x01, [44] = 0x1c, [45] = 0x01 };
	for (int i = 0; i < 8; i++)
		raw[48 + i] = (uint8_t)(0x11 * (i + 1));
	struct nvmf_property_cmd p;
	nvmf_property_decode((const struct nvme_sqe *)raw, &p);
	CU_ASSERT_EQUAL(p.attrib, NVMF_PROP_ATTRIB_SIZE8);
	CU_ASSERT_EQUAL(p.ofst, 0x011c);
	CU_ASSERT_EQUAL(p.value, 0x8877665544332211ull);
}

/* Authentication Send of 0x0104 bytes with DH-HMAC-CHAP (SECP E9h, SPSP0/1 01h). */
static void auth_send_encodes_and_decodes_spec_bytes(void)
{
	const uint8_t want[64] = { [0] = 0x7f,  [4] = 0x05,  [41] = 0x01, [42] = 0x01,
				   [43] = 0xe9, [44] = 0x04, [45] = 0x01 };
	struct nvme_sqe sqe;
	struct nvmf_auth_cmd a;
	nvmf_auth_encode(&sqe, nvme_fabrics_type_auth_send,
			 &(struct nvmf_auth_cmd){ .secp = NVME_AUTH_SECP_DHCHAP,
						  .spsp0 = NVME_AUTH_SPSP,
						  .spsp1 = NVME_AUTH_SPSP,
						  .len = 0x0104 });
	CU_ASSERT_EQUAL(memcmp(&sqe, want, 64), 0);
	nvmf_auth_decode((const struct nvme_sqe *)want, &a);
	CU_ASSERT_EQUAL(a.secp, 0xe9);
	CU_ASSERT_EQUAL(a.spsp0, 1);
	CU_ASSERT_EQUAL(a.spsp1, 1);
	CU_ASSERT_EQUAL(a.len, 0x0104);
}

static void fabrics_sqe_init_zeroes_and_sets_opcode_and_fctype(void)
{
	struct nvme_sqe sqe;
	const uint8_t want[64] = { [0] = 0x7f, [4] = 0x06 };
	memset(&sqe, 0xff, sizeof(sqe));
	nvmf_fabrics_sqe_init(&sqe, nvme_fabrics_type_auth_receive);
	CU_ASSERT_EQUAL(memcmp(&sqe, want, 64), 0);
	CU_ASSERT_EQUAL(nvmf_sqe_fctype(&sqe), nvme_fabrics_type_auth_receive);
}

const struct unit_test nvme_fabrics_tests[] = {
	{ "fabrics_sqes_are_64_bytes_with_spec_offsets",
	  fabrics_sqes_are_64_bytes_with_spec_offsets },
	{ "connect_encodes_to_spec_bytes", connect_encodes_to_spec_bytes },
	{ "connect_decodes_from_spec_bytes", connect_decodes_from_spec_bytes },
	{ "property_set_and_get_encode_to_spec_bytes", property_set_and_get_encode_to_spec_bytes },
	{ "property_decodes_8_byte_value_little_endian",
	  property_decodes_8_byte_value_little_endian },
	{ "auth_send_encodes_and_decodes_spec_bytes", auth_send_encodes_and_decodes_spec_bytes },
	{ "fabrics_sqe_init_zeroes_and_sets_opcode_and_fctype",
	  fabrics_sqe_init_zeroes_and_sets_opcode_and_fctype },
	{ NULL, NULL },
};
