/* SPDX-License-Identifier: MIT */
/*
 * The Fabrics command SQEs (opcode 7Fh, NVMe-oF 1.1 section 3; NVMe Base 2.0 section 6)
 * as typed structs, in place of byte offsets into the 64-byte SQE: Connect (3.3),
 * Property Get (3.4), Property Set (3.5), Authentication Receive (3.1) and Send (3.2).
 * libnvme 1.3 has the fctypes (enum nvme_fabrics_type) and the 1024-byte Connect data
 * (struct nvmf_connect_data, checked below), but no SQE of these commands.
 *
 * The wire structs are little endian and packed, their sizes and offsets checked with
 * static asserts. The nvmf_*_cmd structs hold the same fields in host endian; the
 * _decode functions fill one from an SQE (any alignment: they copy), the _encode
 * functions write a whole SQE (zeroed, opcode 7Fh, FCTYPE, the fields; CID, PSDT and
 * the SGL are the transport's). Neither fails: reserved fields are ignored on decode.
 */
#ifndef NVMF_NVME_FABRICS_H
#define NVMF_NVME_FABRICS_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include "nvme/wire.h"

/* Bytes 0-39 of every Fabrics command (NVMe-oF 1.1 section 3, Figure "Fabrics Command"). */
struct nvmf_fabrics_sqe_head {
	uint8_t opcode;      /* 0: nvme_admin_fabrics (7Fh) */
	uint8_t flags;       /* 1: PSDT, bits 7:6 */
	uint16_t command_id; /* 2 */
	uint8_t fctype;      /* 4: enum nvme_fabrics_type */
	uint8_t rsvd5[19];
	struct nvme_sgl_desc dptr; /* 24: SGL1 */
} __attribute__((packed));
static_assert(sizeof(struct nvmf_fabrics_sqe_head) == 40, "Fabrics SQE head is 40 bytes");

/* Connect (NVMe-oF 1.1 section 3.3): creates the admin queue (QID 0, and a controller)
 * or an I/O queue. The 1024-byte data is libnvme's struct nvmf_connect_data. */
struct nvmf_connect_sqe {
	struct nvmf_fabrics_sqe_head head;
	__le16 recfmt; /* 40: record format, 0 */
	__le16 qid;    /* 42: 0 = admin queue */
	__le16 sqsize; /* 44: entries, 0's based */
	uint8_t cattr; /* 46: NVMF_CONNECT_CATTR_* */
	uint8_t rsvd47;
	__le32 kato; /* 48: keep-alive timeout, milliseconds (admin queue) */
	uint8_t rsvd52[12];
} __attribute__((packed));
static_assert(sizeof(struct nvmf_connect_sqe) == NVME_SQE_SIZE, "Connect SQE is 64 bytes");
static_assert(offsetof(struct nvmf_connect_sqe, recfmt) == 40, "RECFMT at byte 40");
static_assert(offsetof(struct nvmf_connect_sqe, qid) == 42, "QID at byte 42");
static_assert(offsetof(struct nvmf_connect_sqe, sqsize) == 44, "SQSIZE at byte 44");
static_assert(offsetof(struct nvmf_connect_sqe, cattr) == 46, "CATTR at byte 46");
static_assert(offsetof(struct nvmf_connect_sqe, kato) == 48, "KATO at byte 48");
static_assert(sizeof(struct nvmf_connect_data) == NVMF_CONNECT_DATA_SIZE, "Connect data");
static_assert(offsetof(struct nvmf_connect_data, cntlid) == 16, "CNTLID at data byte 16");
static_assert(offsetof(struct nvmf_connect_data, subsysnqn) == 256, "SUBNQN at data byte 256");
static_assert(offsetof(struct nvmf_connect_data, hostnqn) == 512, "HOSTNQN at data byte 512");

/* Property Get (3.4) and Property Set (3.5): one property of the controller
 * (enum nvmf_property). Property Get leaves value reserved. */
struct nvmf_property_sqe {
	struct nvmf_fabrics_sqe_head head;
	uint8_t attrib; /* 40: bit 0 (NVMF_PROP_ATTRIB_SIZE8): 8-byte property */
	uint8_t rsvd41[3];
	__le32 ofst;  /* 44: offset in the property space, bytes */
	__le64 value; /* 48: Property Set only */
	uint8_t rsvd56[8];
} __attribute__((packed));
static_assert(sizeof(struct nvmf_property_sqe) == NVME_SQE_SIZE, "Property SQE is 64 bytes");
static_assert(offsetof(struct nvmf_property_sqe, attrib) == 40, "ATTRIB at byte 40");
static_assert(offsetof(struct nvmf_property_sqe, ofst) == 44, "OFST at byte 44");
static_assert(offsetof(struct nvmf_property_sqe, value) == 48, "VALUE at byte 48");

/* Authentication Send (3.2) and Receive (3.1): one in-band authentication message
 * (nvme/auth.h) as the data, SECP/SPSP naming the protocol. */
struct nvmf_auth_sqe {
	struct nvmf_fabrics_sqe_head head;
	uint8_t rsvd40;
	uint8_t spsp0; /* 41: security protocol specific 0 */
	uint8_t spsp1; /* 42: security protocol specific 1 */
	uint8_t secp;  /* 43: security protocol (NVME_AUTH_SECP_DHCHAP) */
	__le32 len;    /* 44: Send: TL (transfer length), Receive: AL (allocation
	                              length), bytes */
	uint8_t rsvd48[16];
} __attribute__((packed));
static_assert(sizeof(struct nvmf_auth_sqe) == NVME_SQE_SIZE, "Auth SQE is 64 bytes");
static_assert(offsetof(struct nvmf_auth_sqe, spsp0) == 41, "SPSP0 at byte 41");
static_assert(offsetof(struct nvmf_auth_sqe, spsp1) == 42, "SPSP1 at byte 42");
static_assert(offsetof(struct nvmf_auth_sqe, secp) == 43, "SECP at byte 43");
static_assert(offsetof(struct nvmf_auth_sqe, len) == 44, "TL/AL at byte 44");

/* CATTR bit 2, SQ Flow Control Disable (NVMe-oF 1.1 Figure 20): the host will not read
 * SQHD and needs no SQ flow control on this queue (libnvme's NVME_CONNECT_DISABLE_SQFLOW). */
#define NVMF_CONNECT_CATTR_SQFLOW_DISABLE 0x04u
/* ATTRIB bit 0 of Property Get/Set: the property is 8 bytes wide (else 4). */
#define NVMF_PROP_ATTRIB_SIZE8            0x01u

/* Byte offsets of the fields in the SQE, for the tests and fuzzers that write a capsule
 * byte by byte (and IPO, the offset a Connect error names). */
#define NVMF_SQE_FCTYPE_OFF offsetof(struct nvmf_fabrics_sqe_head, fctype)
#define NVMF_CONNECT_RECFMT offsetof(struct nvmf_connect_sqe, recfmt)
#define NVMF_CONNECT_QID    offsetof(struct nvmf_connect_sqe, qid)
#define NVMF_CONNECT_SQSIZE offsetof(struct nvmf_connect_sqe, sqsize)
#define NVMF_CONNECT_CATTR  offsetof(struct nvmf_connect_sqe, cattr)
#define NVMF_CONNECT_KATO   offsetof(struct nvmf_connect_sqe, kato)
#define NVMF_PROP_ATTRIB    offsetof(struct nvmf_property_sqe, attrib)
#define NVMF_PROP_OFFSET    offsetof(struct nvmf_property_sqe, ofst)
#define NVMF_PROP_VALUE     offsetof(struct nvmf_property_sqe, value)
#define NVMF_AUTH_SQE_SPSP0 offsetof(struct nvmf_auth_sqe, spsp0)
#define NVMF_AUTH_SQE_SPSP1 offsetof(struct nvmf_auth_sqe, spsp1)
#define NVMF_AUTH_SQE_SECP  offsetof(struct nvmf_auth_sqe, secp)
#define NVMF_AUTH_SQE_LEN   offsetof(struct nvmf_auth_sqe, len)

/* Connect's fields, host endian. */
struct nvmf_connect_cmd {
	uint16_t recfmt;
	uint16_t qid;
	uint16_t sqsize; /* entries, 0's based */
	uint8_t cattr;
	uint32_t kato; /* milliseconds */
};

/* Property Get/Set's fields, host endian. */
struct nvmf_property_cmd {
	uint8_t attrib;
	uint32_t ofst;  /* bytes into the property space */
	uint64_t value; /* Property Set only; 0 on Property Get */
};

/* Authentication Send/Receive's fields, host endian. */
struct nvmf_auth_cmd {
	uint8_t secp;
	uint8_t spsp0;
	uint8_t spsp1;
	uint32_t len; /* TL (Send) or AL (Receive), bytes */
};

/* nvmf_sqe_fctype - FCTYPE (byte 4) of a Fabrics command SQE. */
uint8_t nvmf_sqe_fctype(const struct nvme_sqe *sqe);

/* nvmf_fabrics_sqe_init - zero @sqe, set opcode 7Fh and FCTYPE @fctype. */
void nvmf_fabrics_sqe_init(struct nvme_sqe *sqe, uint8_t fctype);

/* nvmf_connect_decode / nvmf_connect_encode - a Connect SQE from/to host endian. */
void nvmf_connect_decode(const struct nvme_sqe *sqe, struct nvmf_connect_cmd *c);
void nvmf_connect_encode(struct nvme_sqe *sqe, const struct nvmf_connect_cmd *c);

/* nvmf_property_decode / nvmf_property_encode - a Property Get or Set SQE; encode writes
 * FCTYPE @fctype (nvme_fabrics_type_property_get or _set). */
void nvmf_property_decode(const struct nvme_sqe *sqe, struct nvmf_property_cmd *p);
void nvmf_property_encode(struct nvme_sqe *sqe, uint8_t fctype, const struct nvmf_property_cmd *p);

/* nvmf_auth_decode / nvmf_auth_encode - an Authentication Send or Receive SQE; encode
 * writes FCTYPE @fctype (nvme_fabrics_type_auth_send or _receive). */
void nvmf_auth_decode(const struct nvme_sqe *sqe, struct nvmf_auth_cmd *a);
void nvmf_auth_encode(struct nvme_sqe *sqe, uint8_t fctype, const struct nvmf_auth_cmd *a);

#endif
