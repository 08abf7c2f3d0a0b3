/* Wire layout of SQE/CQE/SGL/CM private data, and little-endian field decode. */
#include <CUnit/CUnit.h>
#include <stddef.h>
#include <string.h>
#include "nvme/wire.h"
#include "tests/unit/suites.h"
#include "nvme/fabrics.h"

static void sqe_and_cqe_have_spec_sizes_and_offsets(void)
{
	CU_ASSERT_EQUAL(sizeof(struct nvme_sqe), 64);
	CU_ASSERT_EQUAL(sizeof(struct nvme_cqe), 16);
	CU_ASSERT_EQUAL(offsetof(struct nvme_sqe, command_id), 2);
	CU_ASSERT_EQUAL(offsetof(struct nvme_sqe, nsid), 4);
	CU_ASSERT_EQUAL(offsetof(struct nvme_sqe, dptr), 24);
	CU_ASSERT_EQUAL(offsetof(struct nvme_sqe, cdw10), 40);
	CU_ASSERT_EQUAL(offsetof(struct nvme_sqe, cdw15), 60);
	CU_ASSERT_EQUAL(offsetof(struct nvme_cqe, sq_head), 8);
	CU_ASSERT_EQUAL(offsetof(struct nvme_cqe, command_id), 12);
	CU_ASSERT_EQUAL(offsetof(struct nvme_cqe, status), 14);
}

static void libnvme_connect_data_and_disc_entry_are_1024_bytes(void)
{
	CU_ASSERT_EQUAL(sizeof(struct nvmf_connect_data), 1024);
	CU_ASSERT_EQUAL(sizeof(struct nvmf_disc_log_entry), 1024);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_connect_data, subsysnqn), 256);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_connect_data, hostnqn), 512);
}

static void keyed_sgl_length_and_key_decode_little_endian(void)
{
	/* A 0x4F descriptor as a Linux host sends it: 1 MiB at key 0x12345678. */
	const uint8_t raw[16] = { 0x00, 0x10, 0,    0,    0,    0,    0,    0,
				  0x00, 0x00, 0x10, 0x78, 0x56, 0x34, 0x12, 0x4F };
	struct nvme_sgl_desc d;
	memcpy(&d, raw, sizeof(d));
	CU_ASSERT_EQUAL(le64toh(d.addr), 0x1000);
	CU_ASSERT_EQUAL(nvme_sgl_keyed_length(&d), 1u << 20);
	CU_ASSERT_EQUAL(nvme_sgl_keyed_key(&d), 0x12345678u);
	CU_ASSERT_EQUAL(d.keyed.type >> 4, NVME_SGL_TYPE_KEYED_DATA);
	CU_ASSERT_EQUAL(d.keyed.type & 0xF, NVME_SGL_SUBTYPE_INVALIDATE);
}

static void connect_fields_decode_at_fabrics_offsets(void)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	uint8_t *p = (uint8_t *)&c;
	p[0] = 0x7f;
	p[4] = 0x01;  /* fctype Connect */
	p[42] = 3;    /* qid 3 */
	p[44] = 0x7f; /* sqsize 127 (0's based) */
	p[48] = 0x88;
	p[49] = 0x13; /* kato 5000 ms */
	CU_ASSERT_EQUAL(p[NVMF_SQE_FCTYPE_OFF], nvme_fabrics_type_connect);
	CU_ASSERT_EQUAL(nvme_sqe_le16(&c, NVMF_CONNECT_QID), 3);
	CU_ASSERT_EQUAL(nvme_sqe_le16(&c, NVMF_CONNECT_SQSIZE), 127);
	CU_ASSERT_EQUAL(nvme_sqe_le32(&c, NVMF_CONNECT_KATO), 5000);
}

static void status_composes_sct_and_sc_like_libnvme(void)
{
	CU_ASSERT_EQUAL(nvme_status(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_PARAM), 0x182);
	CU_ASSERT_EQUAL(nvme_status(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD), 0x002);
	CU_ASSERT_EQUAL(sizeof(struct nvme_rdma_cm_req), 32);
	CU_ASSERT_EQUAL(sizeof(struct nvme_rdma_cm_rep), 32);
}

const struct unit_test nvme_wire_tests[] = {
	{ "sqe_and_cqe_have_spec_sizes_and_offsets", sqe_and_cqe_have_spec_sizes_and_offsets },
	{ "libnvme_connect_data_and_disc_entry_are_1024_bytes",
	  libnvme_connect_data_and_disc_entry_are_1024_bytes },
	{ "keyed_sgl_length_and_key_decode_little_endian",
	  keyed_sgl_length_and_key_decode_little_endian },
	{ "connect_fields_decode_at_fabrics_offsets", connect_fields_decode_at_fabrics_offsets },
	{ "status_composes_sct_and_sc_like_libnvme", status_composes_sct_and_sc_like_libnvme },
	{ NULL, NULL },
};
