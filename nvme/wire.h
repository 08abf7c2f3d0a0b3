/* SPDX-License-Identifier: MIT */
/*
 * NVMe and NVMe over Fabrics wire formats that libnvme does not define: the submission
 * and completion queue entries, SGL descriptors and the NVMe/RDMA CM private data.
 * Everything else (Identify structures, discovery log, Connect data, status codes,
 * opcodes, feature and log ids) comes from <libnvme.h>.
 *
 * All multi-byte fields are little endian on the wire; decode with le16toh()/le32toh()/
 * le64toh() or the accessors below. Sizes are checked with static asserts.
 */
#ifndef NVMF_NVME_WIRE_H
#define NVMF_NVME_WIRE_H

#include <assert.h>
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <libnvme.h>

/* Sizes in bytes (NVMe Base 2.0 section 4.1 / 4.2, NVMe-oF 1.1 section 2.1). */
#define NVME_SQE_SIZE          64u
#define NVME_CQE_SIZE          16u
#define NVMF_CONNECT_DATA_SIZE 1024u
#define NVMF_DISC_NQN          "nqn.2014-08.org.nvmexpress.discovery"
#define NVMF_NQN_MAX           223u /* characters, NUL not counted (NVMe Base 4.5) */

/* SGL descriptor types (high nibble of the type byte) and subtypes (NVMe Base 4.3.2). */
enum nvme_sgl_desc_type {
	NVME_SGL_TYPE_DATA_BLOCK = 0x0,
	NVME_SGL_TYPE_BIT_BUCKET = 0x1,
	NVME_SGL_TYPE_SEGMENT = 0x2,
	NVME_SGL_TYPE_LAST_SEGMENT = 0x3,
	NVME_SGL_TYPE_KEYED_DATA = 0x4,
};
enum nvme_sgl_desc_subtype {
	NVME_SGL_SUBTYPE_ADDRESS = 0x0,
	NVME_SGL_SUBTYPE_OFFSET = 0x1,
	NVME_SGL_SUBTYPE_INVALIDATE = 0xF,
};
/* The type byte values a Linux host actually sends (drivers/nvme/host/rdma.c: 0x4F with a
 * fast-registered MR, 0x40 with the global rkey or a PI MR, 0x01 for in-capsule data). */
#define NVME_SGL_KEYED_ADDR 0x40 /* keyed data block, address */
#define NVME_SGL_KEYED_INV  0x4F /* keyed data block, invalidate the key when done */
#define NVME_SGL_INCAPSULE  0x01 /* data block, offset into the capsule's data */

/* One SGL descriptor, 16 bytes. Keyed form: 24-bit length and 32-bit key. */
struct nvme_sgl_desc {
	__le64 addr;
	union {
		struct {
			__le32 length;
			uint8_t rsvd[3];
			uint8_t type;
		} unkeyed;
		struct {
			uint8_t length[3]; /* little endian, bytes */
			uint8_t key[4];    /* little endian rkey */
			uint8_t type;
		} keyed;
	};
} __attribute__((packed));
static_assert(sizeof(struct nvme_sgl_desc) == 16, "SGL descriptor is 16 bytes");

/* Submission queue entry, 64 bytes (NVMe Base 4.2). PSDT (flags bits 7:6) is 01b (flags
 * 0x40: SGL, MPTR one buffer) on fabrics, as the Linux host sends and nvmet requires; the
 * data pointer is one SGL descriptor. */
struct nvme_sqe {
	uint8_t opcode;
	uint8_t flags;
	uint16_t command_id; /* opaque to the target: echoed back as is */
	__le32 nsid;
	__le32 cdw2;
	__le32 cdw3;
	__le64 mptr;
	struct nvme_sgl_desc dptr;
	__le32 cdw10;
	__le32 cdw11;
	__le32 cdw12;
	__le32 cdw13;
	__le32 cdw14;
	__le32 cdw15;
} __attribute__((packed));
static_assert(sizeof(struct nvme_sqe) == NVME_SQE_SIZE, "SQE is 64 bytes");

/* Completion queue entry, 16 bytes (NVMe Base 4.2.1). status: bit 0 phase (always 0 on
 * fabrics), bits 15:1 the status field: SC 8:1, SCT 11:9, CRD 13:12, M 14, DNR 15. */
struct nvme_cqe {
	union {
		__le32 u32;
		__le64 u64;
	} result;
	__le16 sq_head;
	__le16 sq_id;
	uint16_t command_id;
	__le16 status;
} __attribute__((packed));
static_assert(sizeof(struct nvme_cqe) == NVME_CQE_SIZE, "CQE is 16 bytes");

/* The Fabrics commands' SQEs (Connect, Property Get/Set, Authentication Send/Receive)
 * are typed structs in nvme/fabrics.h. */

/* Controller properties (NVMe Base 3.1.3), offsets in the property space. */
enum nvmf_property {
	NVMF_PROP_CAP = 0x00, /* 8 bytes */
	NVMF_PROP_VS = 0x08,
	NVMF_PROP_CC = 0x14,
	NVMF_PROP_CSTS = 0x1c,
};

/* NVMe/RDMA CM private data (NVMe-oF 1.1 section 7.3.x, RDMA transport binding).
 * All little endian. */
struct nvme_rdma_cm_req {
	__le16 recfmt;  /* 0 */
	__le16 qid;     /* 0 = admin */
	__le16 hrqsize; /* host receive queue size, 1's based */
	__le16 hsqsize; /* host send queue size, 0's based */
	__le16 cntlid;  /* SPDK reads this; Linux leaves 0 */
	uint8_t rsvd[22];
} __attribute__((packed));
static_assert(sizeof(struct nvme_rdma_cm_req) == 32, "CM REQ private data is 32 bytes");

struct nvme_rdma_cm_rep {
	__le16 recfmt;
	__le16 crqsize; /* controller receive queue size */
	uint8_t rsvd[28];
} __attribute__((packed));
static_assert(sizeof(struct nvme_rdma_cm_rep) == 32, "CM REP private data is 32 bytes");

struct nvme_rdma_cm_rej {
	__le16 recfmt;
	__le16 sts; /* enum nvme_rdma_cm_status */
} __attribute__((packed));

/* Reject status codes in nvme_rdma_cm_rej.sts. */
enum nvme_rdma_cm_status {
	NVME_RDMA_CM_INVALID_LEN = 0x01,
	NVME_RDMA_CM_INVALID_RECFMT = 0x02,
	NVME_RDMA_CM_INVALID_QID = 0x03,
	NVME_RDMA_CM_INVALID_HSQSIZE = 0x04,
	NVME_RDMA_CM_INVALID_HRQSIZE = 0x05,
	NVME_RDMA_CM_NO_RSC = 0x06,
	NVME_RDMA_CM_INVALID_IRD = 0x07,
	NVME_RDMA_CM_INVALID_ORD = 0x08,
};

/* Status as the project carries it: the CQE status field without the phase bit, i.e.
 * (DNR << 14) | (SCT << 8) | SC, the same encoding as libnvme's NVME_SC_* | NVME_SCT_*. */
typedef uint16_t nvme_status_t;

/* nvme_status: compose a status from SCT and SC (host endian). */
static inline nvme_status_t nvme_status(unsigned sct, unsigned sc)
{
	return (nvme_status_t)(((sct & NVME_SCT_MASK) << NVME_SCT_SHIFT) | (sc & NVME_SC_MASK));
}
/* nvme_generic / nvme_cmd_specific: a status of the Generic / Command Specific type. */
static inline nvme_status_t nvme_generic(unsigned sc)
{
	return nvme_status(NVME_SCT_GENERIC, sc);
}
static inline nvme_status_t nvme_cmd_specific(unsigned sc)
{
	return nvme_status(NVME_SCT_CMD_SPECIFIC, sc);
}

/* container_of - the struct of @type whose @member @p points at. */
#define container_of(p, type, member) ((type *)((char *)(p)-offsetof(type, member)))

/* 24-bit little-endian keyed SGL length, in bytes. */
static inline uint32_t nvme_sgl_keyed_length(const struct nvme_sgl_desc *d)
{
	return (uint32_t)d->keyed.length[0] | (uint32_t)d->keyed.length[1] << 8 |
	       (uint32_t)d->keyed.length[2] << 16;
}

/* 32-bit little-endian keyed SGL key (the host's rkey). */
static inline uint32_t nvme_sgl_keyed_key(const struct nvme_sgl_desc *d)
{
	return (uint32_t)d->keyed.key[0] | (uint32_t)d->keyed.key[1] << 8 |
	       (uint32_t)d->keyed.key[2] << 16 | (uint32_t)d->keyed.key[3] << 24;
}

/* Read a little-endian field at a byte offset of an SQE (Fabrics commands use these). */
static inline uint16_t nvme_sqe_le16(const struct nvme_sqe *c, unsigned off)
{
	const uint8_t *p = (const uint8_t *)c + off;
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t nvme_sqe_le32(const struct nvme_sqe *c, unsigned off)
{
	const uint8_t *p = (const uint8_t *)c + off;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t nvme_sqe_le64(const struct nvme_sqe *c, unsigned off)
{
	return (uint64_t)nvme_sqe_le32(c, off) | (uint64_t)nvme_sqe_le32(c, off + 4) << 32;
}

#endif
