/* SGL data pointer decoding: each descriptor type and subtype, and every rejection;
 * encoding: the bytes of each descriptor the host builds, and that they decode back. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "nvme/sgl.h"
#include "tests/unit/suites.h"

#define ST_INVALID_FIELD  (NVME_SC_INVALID_FIELD | NVME_SC_DNR)
#define ST_INVALID_TYPE   (NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR)
#define ST_INVALID_OFFSET (NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR)

/* A command with a keyed descriptor, bytes as on the wire. */
static struct nvme_sqe keyed_cmd(uint8_t type, uint64_t addr, uint32_t len, uint32_t key)
{
	struct nvme_sqe c;
	uint8_t *d = (uint8_t *)&c.dptr;

	memset(&c, 0, sizeof(c));
	c.opcode = 0x02; /* Read */
	c.flags = NVME_CMD_PSDT_SGL_MPTR;
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(addr >> (8 * i));
	d[8] = (uint8_t)len;
	d[9] = (uint8_t)(len >> 8);
	d[10] = (uint8_t)(len >> 16);
	for (int i = 0; i < 4; i++)
		d[11 + i] = (uint8_t)(key >> (8 * i));
	d[15] = type;
	return c;
}

/* A command with an unkeyed descriptor (32-bit length). */
static struct nvme_sqe unkeyed_cmd(uint8_t type, uint64_t addr, uint32_t len)
{
	struct nvme_sqe c;
	uint8_t *d = (uint8_t *)&c.dptr;

	memset(&c, 0, sizeof(c));
	c.opcode = 0x01; /* Write */
	c.flags = NVME_CMD_PSDT_SGL_MPTR;
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(addr >> (8 * i));
	for (int i = 0; i < 4; i++)
		d[8 + i] = (uint8_t)(len >> (8 * i));
	d[15] = type;
	return c;
}

static void keyed_address_decodes_addr_len_key_without_invalidate(void)
{
	struct nvme_sqe c = keyed_cmd(0x40, 0x1122334455667788ull, 0x123456, 0xdeadbeef);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_KEYED);
	CU_ASSERT_EQUAL(i.addr, 0x1122334455667788ull);
	CU_ASSERT_EQUAL(i.len, 0x123456);
	CU_ASSERT_EQUAL(i.key, 0xdeadbeef);
	CU_ASSERT_FALSE(i.invalidate);
}

static void keyed_invalidate_sets_invalidate_flag(void)
{
	struct nvme_sqe c = keyed_cmd(0x4F, 0x1000, 4096, 0x12345678);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, true, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_KEYED);
	CU_ASSERT_EQUAL(i.len, 4096);
	CU_ASSERT_EQUAL(i.key, 0x12345678);
	CU_ASSERT_TRUE(i.invalidate);
}

static void keyed_max_24bit_length_decodes(void)
{
	struct nvme_sqe c = keyed_cmd(0x4F, 0, 0xffffff, 1);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), 0);
	CU_ASSERT_EQUAL(i.len, 0xffffffu);
}

static void keyed_with_length_zero_is_no_data(void)
{
	/* What the Linux host sends for commands without data (nvme_rdma_set_sg_null). */
	struct nvme_sqe c = keyed_cmd(0x40, 0, 0, 0);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_NONE);
	CU_ASSERT_EQUAL(i.len, 0);
	c = keyed_cmd(0x4F, 0xabc, 0, 0x55);
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, true, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_NONE);
	CU_ASSERT_FALSE(i.invalidate);
}

static void keyed_with_key_zero_and_data_is_accepted(void)
{
	struct nvme_sqe c = keyed_cmd(0x40, 0x2000, 512, 0);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_KEYED);
	CU_ASSERT_EQUAL(i.key, 0);
}

static void incapsule_write_decodes_offset_and_length(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x01, 0, 4096);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, true, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_INCAPSULE);
	CU_ASSERT_EQUAL(i.offset, 0);
	CU_ASSERT_EQUAL(i.len, 4096);
}

static void incapsule_with_offset_inside_arrived_data_is_accepted(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x01, 512, 512);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 1024, true, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_INCAPSULE);
	CU_ASSERT_EQUAL(i.offset, 512);
	CU_ASSERT_EQUAL(i.len, 512);
}

static void incapsule_on_read_returns_invalid_field(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x01, 0, 512);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, false, &i), ST_INVALID_FIELD);
}

static void incapsule_length_beyond_arrived_data_returns_sgl_invalid_offset(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x01, 0, 4097);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, true, &i), ST_INVALID_OFFSET);
	c = unkeyed_cmd(0x01, 1, 4096); /* offset + length one past the end */
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, true, &i), ST_INVALID_OFFSET);
	c = unkeyed_cmd(0x01, 8192, 16); /* offset itself past the end */
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, true, &i), ST_INVALID_OFFSET);
}

static void incapsule_offset_near_2_pow_64_does_not_wrap(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x01, UINT64_MAX - 15, 32);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, true, &i), ST_INVALID_OFFSET);
}

static void incapsule_data_on_admin_queue_returns_sgl_invalid_offset(void)
{
	/* Admin capsules carry no data: incapsule_len is 0. */
	struct nvme_sqe c = unkeyed_cmd(0x01, 0, 1024);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, true, &i), ST_INVALID_OFFSET);
}

static void incapsule_with_length_zero_is_no_data(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x01, 0, 0);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_NONE);
}

static void data_block_address_subtype_returns_sgl_invalid_type(void)
{
	/* 0x00: a plain host address, meaningless over RDMA. */
	struct nvme_sqe c = unkeyed_cmd(0x00, 0x1000, 512);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, true, &i), ST_INVALID_TYPE);
}

static void keyed_with_offset_or_reserved_subtype_returns_sgl_invalid_type(void)
{
	struct nvme_sqe c = keyed_cmd(0x41, 0, 512, 1);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_TYPE);
	c = keyed_cmd(0x4A, 0, 512, 1);
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_TYPE);
}

static void bit_bucket_returns_sgl_invalid_type(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x10, 0, 512);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_TYPE);
}

static void segment_and_last_segment_return_sgl_invalid_type(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x20, 0x1000, 32);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_TYPE);
	c = unkeyed_cmd(0x30, 0x1000, 32);
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_TYPE);
	c = unkeyed_cmd(0x31, 0, 32); /* last segment, offset subtype */
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, true, &i), ST_INVALID_TYPE);
}

static void unsupported_type_with_length_zero_is_still_rejected(void)
{
	struct nvme_sqe c = unkeyed_cmd(0x20, 0, 0);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_TYPE);
}

static void transport_and_reserved_types_return_sgl_invalid_type(void)
{
	static const uint8_t types[] = { 0x50, 0x60, 0x7F, 0xE0, 0xF0, 0xFF };
	struct nvme_sgl_info i;

	for (size_t k = 0; k < sizeof(types); k++) {
		struct nvme_sqe c = keyed_cmd(types[k], 0, 512, 1);
		CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 4096, true, &i), ST_INVALID_TYPE);
	}
}

static void psdt_prp_or_reserved_returns_invalid_field(void)
{
	struct nvme_sqe c = keyed_cmd(0x4F, 0x1000, 4096, 7);
	struct nvme_sgl_info i;

	c.flags = 0x00; /* PRP */
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_FIELD);
	c.flags = 0xc0; /* reserved */
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_FIELD);
	c.flags = 0x80; /* SGL with MPTR segment: accepted */
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_KEYED);
}

static void psdt_is_checked_before_the_descriptor(void)
{
	/* Even a no-data descriptor is refused under PRP. */
	struct nvme_sqe c = keyed_cmd(0x40, 0, 0, 0);
	struct nvme_sgl_info i;

	c.flags = 0x00;
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), ST_INVALID_FIELD);
}

static void out_is_reset_between_calls(void)
{
	struct nvme_sqe c = keyed_cmd(0x4F, 0x1000, 4096, 7);
	struct nvme_sgl_info i;

	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), 0);
	c = keyed_cmd(0x40, 0, 0, 0);
	CU_ASSERT_EQUAL(nvme_sgl_parse(&c, 0, false, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_NONE);
	CU_ASSERT_EQUAL(i.key, 0);
	CU_ASSERT_EQUAL(i.addr, 0);
	CU_ASSERT_FALSE(i.invalidate);
}

/* ---- encoding ---- */

static void set_keyed_is_type_0x40_with_24_bit_length_and_key_and_psdt_01(void)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	CU_ASSERT_EQUAL(
		nvme_sgl_set_keyed(&sqe, 0x1122334455667788ull, 0x123456, 0xa1b2c3d4, false), 0);
	const uint8_t *d = (const uint8_t *)&sqe + 24; /* DPTR: SQE bytes 24-39 */
	static const uint8_t want[16] = {
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* address, little endian */
		0x56, 0x34, 0x12,                               /* length, 24 bits */
		0xd4, 0xc3, 0xb2, 0xa1,                         /* key */
		0x40,                                           /* keyed data block, address */
	};
	CU_ASSERT_EQUAL(memcmp(d, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(sqe.flags, 0x40);
}

static void set_keyed_with_invalidate_is_type_0x4f(void)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	CU_ASSERT_EQUAL(nvme_sgl_set_keyed(&sqe, 0x1000, 512, 9, true), 0);
	CU_ASSERT_EQUAL(sqe.dptr.keyed.type, 0x4F);
	CU_ASSERT_EQUAL(nvme_sgl_keyed_length(&sqe.dptr), 512);
	CU_ASSERT_EQUAL(nvme_sgl_keyed_key(&sqe.dptr), 9);
}

static void set_keyed_of_no_data_is_all_zero_but_type_0x40(void)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0xff, sizeof(sqe));
	CU_ASSERT_EQUAL(nvme_sgl_set_keyed(&sqe, 0x1000, 0, 0x55, false), 0);
	const uint8_t *d = (const uint8_t *)&sqe.dptr;
	for (unsigned i = 0; i < 15; i++)
		CU_ASSERT_EQUAL(d[i], 0);
	CU_ASSERT_EQUAL(d[15], 0x40);
	CU_ASSERT_EQUAL(sqe.flags, 0x43);  /* PSDT 01b, FUSE bits kept, 5:2 cleared */
	CU_ASSERT_EQUAL(sqe.opcode, 0xff); /* the rest of the SQE untouched */
	CU_ASSERT_EQUAL(sqe.cdw10, 0xffffffffu);
}

static void set_keyed_longer_than_24_bits_is_einval_and_leaves_the_sqe(void)
{
	struct nvme_sqe sqe, before;
	memset(&sqe, 0x5a, sizeof(sqe));
	before = sqe;
	CU_ASSERT_EQUAL(nvme_sgl_set_keyed(&sqe, 0x1000, NVME_SGL_KEYED_MAX_LEN + 1, 1, false),
			-EINVAL);
	CU_ASSERT_EQUAL(memcmp(&sqe, &before, sizeof(sqe)), 0);
	CU_ASSERT_EQUAL(nvme_sgl_set_keyed(&sqe, 0x1000, NVME_SGL_KEYED_MAX_LEN, 1, false), 0);
	CU_ASSERT_EQUAL(nvme_sgl_keyed_length(&sqe.dptr), 0xffffff);
}

static void set_incapsule_is_type_0x01_with_offset_and_32_bit_length(void)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0xff, sizeof(sqe));
	nvme_sgl_set_incapsule(&sqe, 0, 4096);
	CU_ASSERT_EQUAL(le64toh(sqe.dptr.addr), 0);
	CU_ASSERT_EQUAL(le32toh(sqe.dptr.unkeyed.length), 4096);
	CU_ASSERT_EQUAL(
		sqe.dptr.unkeyed.rsvd[0] | sqe.dptr.unkeyed.rsvd[1] | sqe.dptr.unkeyed.rsvd[2], 0);
	CU_ASSERT_EQUAL(sqe.dptr.unkeyed.type, 0x01);
	CU_ASSERT_EQUAL(sqe.flags, 0x43);
	nvme_sgl_set_incapsule(&sqe, 0x200, 0x10000);
	const uint8_t *d = (const uint8_t *)&sqe.dptr;
	static const uint8_t want[16] = { 0x00, 0x02, 0,    0,    0, 0, 0, 0,
					  0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0x01 };
	CU_ASSERT_EQUAL(memcmp(d, want, sizeof(want)), 0);
}

static void keyed_descriptor_decodes_back_to_what_was_encoded(void)
{
	struct nvme_sqe sqe;
	struct nvme_sgl_info i;
	const bool inv[] = { false, true };
	for (unsigned k = 0; k < 2; k++) {
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = 0x02; /* Read */
		CU_ASSERT_EQUAL(nvme_sgl_set_keyed(&sqe, 0xfedcba9876543210ull,
						   NVME_SGL_KEYED_MAX_LEN, 0x80000001u, inv[k]),
				0);
		CU_ASSERT_EQUAL(nvme_sgl_parse(&sqe, 0, false, &i), 0);
		CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_KEYED);
		CU_ASSERT_EQUAL(i.addr, 0xfedcba9876543210ull);
		CU_ASSERT_EQUAL(i.len, NVME_SGL_KEYED_MAX_LEN);
		CU_ASSERT_EQUAL(i.key, 0x80000001u);
		CU_ASSERT_EQUAL(i.invalidate, inv[k]);
	}
	CU_ASSERT_EQUAL(nvme_sgl_set_keyed(&sqe, 0x1000, 0, 7, false), 0);
	CU_ASSERT_EQUAL(nvme_sgl_parse(&sqe, 0, false, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_NONE);
}

static void incapsule_descriptor_decodes_back_to_what_was_encoded(void)
{
	struct nvme_sqe sqe;
	struct nvme_sgl_info i;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = 0x01; /* Write */
	nvme_sgl_set_incapsule(&sqe, 0, 8192);
	CU_ASSERT_EQUAL(nvme_sgl_parse(&sqe, 8192, true, &i), 0);
	CU_ASSERT_EQUAL(i.kind, NVME_SGL_KIND_INCAPSULE);
	CU_ASSERT_EQUAL(i.offset, 0);
	CU_ASSERT_EQUAL(i.len, 8192);
	nvme_sgl_set_incapsule(&sqe, 512, 1024);
	CU_ASSERT_EQUAL(nvme_sgl_parse(&sqe, 1536, true, &i), 0);
	CU_ASSERT_EQUAL(i.offset, 512);
	CU_ASSERT_EQUAL(i.len, 1024);
	/* One byte more than arrived: the decoder's bound holds for encoded descriptors too. */
	CU_ASSERT_EQUAL(nvme_sgl_parse(&sqe, 1535, true, &i), ST_INVALID_OFFSET);
}

const struct unit_test nvme_sgl_tests[] = {
	{ "keyed_address_decodes_addr_len_key_without_invalidate",
	  keyed_address_decodes_addr_len_key_without_invalidate },
	{ "keyed_invalidate_sets_invalidate_flag", keyed_invalidate_sets_invalidate_flag },
	{ "keyed_max_24bit_length_decodes", keyed_max_24bit_length_decodes },
	{ "keyed_with_length_zero_is_no_data", keyed_with_length_zero_is_no_data },
	{ "keyed_with_key_zero_and_data_is_accepted", keyed_with_key_zero_and_data_is_accepted },
	{ "incapsule_write_decodes_offset_and_length", incapsule_write_decodes_offset_and_length },
	{ "incapsule_with_offset_inside_arrived_data_is_accepted",
	  incapsule_with_offset_inside_arrived_data_is_accepted },
	{ "incapsule_on_read_returns_invalid_field", incapsule_on_read_returns_invalid_field },
	{ "incapsule_length_beyond_arrived_data_returns_sgl_invalid_offset",
	  incapsule_length_beyond_arrived_data_returns_sgl_invalid_offset },
	{ "incapsule_offset_near_2_pow_64_does_not_wrap",
	  incapsule_offset_near_2_pow_64_does_not_wrap },
	{ "incapsule_data_on_admin_queue_returns_sgl_invalid_offset",
	  incapsule_data_on_admin_queue_returns_sgl_invalid_offset },
	{ "incapsule_with_length_zero_is_no_data", incapsule_with_length_zero_is_no_data },
	{ "data_block_address_subtype_returns_sgl_invalid_type",
	  data_block_address_subtype_returns_sgl_invalid_type },
	{ "keyed_with_offset_or_reserved_subtype_returns_sgl_invalid_type",
	  keyed_with_offset_or_reserved_subtype_returns_sgl_invalid_type },
	{ "bit_bucket_returns_sgl_invalid_type", bit_bucket_returns_sgl_invalid_type },
	{ "segment_and_last_segment_return_sgl_invalid_type",
	  segment_and_last_segment_return_sgl_invalid_type },
	{ "unsupported_type_with_length_zero_is_still_rejected",
	  unsupported_type_with_length_zero_is_still_rejected },
	{ "transport_and_reserved_types_return_sgl_invalid_type",
	  transport_and_reserved_types_return_sgl_invalid_type },
	{ "psdt_prp_or_reserved_returns_invalid_field",
	  psdt_prp_or_reserved_returns_invalid_field },
	{ "psdt_is_checked_before_the_descriptor", psdt_is_checked_before_the_descriptor },
	{ "out_is_reset_between_calls", out_is_reset_between_calls },
	{ "set_keyed_is_type_0x40_with_24_bit_length_and_key_and_psdt_01",
	  set_keyed_is_type_0x40_with_24_bit_length_and_key_and_psdt_01 },
	{ "set_keyed_with_invalidate_is_type_0x4f", set_keyed_with_invalidate_is_type_0x4f },
	{ "set_keyed_of_no_data_is_all_zero_but_type_0x40",
	  set_keyed_of_no_data_is_all_zero_but_type_0x40 },
	{ "set_keyed_longer_than_24_bits_is_einval_and_leaves_the_sqe",
	  set_keyed_longer_than_24_bits_is_einval_and_leaves_the_sqe },
	{ "set_incapsule_is_type_0x01_with_offset_and_32_bit_length",
	  set_incapsule_is_type_0x01_with_offset_and_32_bit_length },
	{ "keyed_descriptor_decodes_back_to_what_was_encoded",
	  keyed_descriptor_decodes_back_to_what_was_encoded },
	{ "incapsule_descriptor_decodes_back_to_what_was_encoded",
	  incapsule_descriptor_decodes_back_to_what_was_encoded },
	{ NULL, NULL },
};
