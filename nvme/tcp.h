/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/TCP transport binding's wire format (NVMe over Fabrics TCP Transport
 * Specification 1.0, section 3.6 "PDU formats"): the PDU headers both sides exchange,
 * their digests (CRC32C), and the checks a receiver applies to a common header before it
 * trusts its lengths. Pure code: no sockets here (the target's tcp/target/ and libnvmf's
 * tcp/host/ move the bytes).
 *
 * A PDU on the stream is: the header (HLEN bytes, fixed per type, starting with the 8-byte
 * common header), a header digest (4 bytes, when negotiated and the type carries one),
 * padding up to PDO, the data (PLEN - PDO - data digest bytes), a data digest (4 bytes,
 * when negotiated). All multi-byte fields are little endian on the wire.
 */
#ifndef NVMF_NVME_TCP_H
#define NVMF_NVME_TCP_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nvme/wire.h"

/* PDU types (TCP transport 1.0, Figure 7). H2C: host to controller, C2H: the reverse. */
enum nvme_tcp_pdu_type {
	NVME_TCP_ICREQ = 0x00,
	NVME_TCP_ICRESP = 0x01,
	NVME_TCP_H2C_TERM = 0x02,
	NVME_TCP_C2H_TERM = 0x03,
	NVME_TCP_CMD = 0x04, /* CapsuleCmd */
	NVME_TCP_RSP = 0x05, /* CapsuleResp */
	NVME_TCP_H2C_DATA = 0x06,
	NVME_TCP_C2H_DATA = 0x07,
	NVME_TCP_R2T = 0x09,
};

/* Common header FLAGS (Figure 8 and the per-type figures). */
#define NVME_TCP_F_HDGST     0x01u /* a header digest follows the header */
#define NVME_TCP_F_DDGST     0x02u /* a data digest follows the data */
#define NVME_TCP_F_DATA_LAST 0x04u /* H2CData/C2HData: last PDU of the command's transfer */
#define NVME_TCP_F_DATA_SUCCESS \
	0x08u /* C2HData: the command succeeded, no CapsuleResp follows
					* (only with DATA_LAST) */

/* ICReq DGST / ICResp DGST bits: digests the connection uses. */
#define NVME_TCP_DGST_HDR  0x01u
#define NVME_TCP_DGST_DATA 0x02u

/* PDU Format Version (ICReq/ICResp PFV): 0 is version 1.0, the only one defined. */
#define NVME_TCP_PFV_1_0        0u
/* Bytes of a digest. */
#define NVME_TCP_DIGEST_LEN     4u
/* The smallest MAXH2CDATA a controller may announce (ICResp, bytes). */
#define NVME_TCP_MIN_MAXH2CDATA 4096u
/* Largest value of HPDA/CPDA: the data alignment is (value + 1) * 4 bytes (max 128). */
#define NVME_TCP_MAX_PDA        31u

/* Fatal Error Status of a termination request (H2CTermReq/C2HTermReq FES, Figure 13). */
enum nvme_tcp_fes {
	NVME_TCP_FES_NONE = 0x00,               /* not a status: "no error" for our checks */
	NVME_TCP_FES_INVALID_HEADER = 0x01,     /* FEI: byte offset of the bad field */
	NVME_TCP_FES_PDU_SEQUENCE = 0x02,       /* a PDU not allowed at this point */
	NVME_TCP_FES_HDR_DIGEST = 0x03,         /* FEI: the digest received */
	NVME_TCP_FES_DATA_OUT_OF_RANGE = 0x04,  /* data beyond the command's transfer */
	NVME_TCP_FES_R2T_LIMIT_EXCEEDED = 0x05, /* more data than the R2T (or MAXH2CDATA) allows */
	NVME_TCP_FES_UNSUPPORTED_PARAM = 0x06,  /* FEI: byte offset of the field (ICReq PFV, ...) */
};

/* The common header, first 8 bytes of every PDU (Figure 8). */
struct nvme_tcp_ch {
	uint8_t type;  /* enum nvme_tcp_pdu_type */
	uint8_t flags; /* NVME_TCP_F_* */
	uint8_t hlen;  /* header bytes, digest not counted */
	uint8_t pdo;   /* offset of the data from the PDU's start; 0 when none */
	__le32 plen;   /* bytes of the whole PDU: header, digests, padding, data */
} __attribute__((packed));

/* ICReq (Figure 15), 128 bytes: the host's first PDU. */
struct nvme_tcp_icreq {
	struct nvme_tcp_ch ch;
	__le16 pfv;    /* NVME_TCP_PFV_1_0 */
	uint8_t hpda;  /* host PDU data alignment: C2H data at (hpda+1)*4 bytes */
	uint8_t dgst;  /* NVME_TCP_DGST_*: digests the host asks for */
	__le32 maxr2t; /* outstanding R2Ts per command the host takes, 0's based */
	uint8_t rsvd[112];
} __attribute__((packed));

/* ICResp (Figure 16), 128 bytes. */
struct nvme_tcp_icresp {
	struct nvme_tcp_ch ch;
	__le16 pfv;
	uint8_t cpda;      /* controller PDU data alignment: H2C data at (cpda+1)*4 */
	uint8_t dgst;      /* NVME_TCP_DGST_*: digests enabled on the connection */
	__le32 maxh2cdata; /* bytes one H2CData PDU may carry (>= 4096, dword multiple) */
	uint8_t rsvd[112];
} __attribute__((packed));

/* H2CTermReq / C2HTermReq header (Figure 12/13), 24 bytes; then up to 128 bytes of the PDU
 * header that caused the error: the whole PDU is at most 152 bytes in either direction (the
 * kernel host's NVME_TCP_MAX_C2HTERM_PLEN, SPDK's SPDK_NVME_TCP_TERM_REQ_PDU_MAX_SIZE). */
struct nvme_tcp_term {
	struct nvme_tcp_ch ch;
	__le16 fes; /* enum nvme_tcp_fes */
	__le32 fei; /* field error information (see enum nvme_tcp_fes) */
	uint8_t rsvd[10];
} __attribute__((packed));
#define NVME_TCP_TERM_MAX_DATA 128u

/* CapsuleCmd (Figure 19), 72 bytes of header; in-capsule data may follow. */
struct nvme_tcp_cmd {
	struct nvme_tcp_ch ch;
	struct nvme_sqe sqe;
} __attribute__((packed));

/* CapsuleResp (Figure 20), 24 bytes. */
struct nvme_tcp_rsp {
	struct nvme_tcp_ch ch;
	struct nvme_cqe cqe;
} __attribute__((packed));

/* H2CData and C2HData (Figure 21/22), 24 bytes of header, then data. */
struct nvme_tcp_data {
	struct nvme_tcp_ch ch;
	uint16_t cccid; /* command id of the capsule (the SQE's CID as sent) */
	__le16 ttag;    /* H2CData: the R2T's transfer tag; C2HData: reserved */
	__le32 datao;   /* offset of this PDU's data in the command's transfer, bytes */
	__le32 datal;   /* bytes of data in this PDU */
	uint8_t rsvd[4];
} __attribute__((packed));

/* R2T (Figure 23), 24 bytes. */
struct nvme_tcp_r2t {
	struct nvme_tcp_ch ch;
	uint16_t cccid;
	__le16 ttag; /* transfer tag the host echoes in its H2CData PDUs */
	__le32 r2to; /* offset of the requested data, bytes */
	__le32 r2tl; /* bytes requested (<= MAXH2CDATA per H2CData PDU) */
	uint8_t rsvd[4];
} __attribute__((packed));

static_assert(sizeof(struct nvme_tcp_ch) == 8, "common header");
static_assert(sizeof(struct nvme_tcp_icreq) == 128, "ICReq");
static_assert(sizeof(struct nvme_tcp_icresp) == 128, "ICResp");
static_assert(sizeof(struct nvme_tcp_term) == 24, "TermReq");
static_assert(sizeof(struct nvme_tcp_cmd) == 72, "CapsuleCmd");
static_assert(sizeof(struct nvme_tcp_rsp) == 24, "CapsuleResp");
static_assert(sizeof(struct nvme_tcp_data) == 24, "H2CData/C2HData");
static_assert(sizeof(struct nvme_tcp_r2t) == 24, "R2T");

/* The SGL a host puts in a CapsuleCmd for data not in the capsule (TCP transport 1.0
 * section 3.3.2): Transport SGL Data Block, type 5, subtype Ah; the target asks for write
 * data with R2T and sends read data in C2HData. In-capsule data uses NVME_SGL_INCAPSULE. */
#define NVME_SGL_TCP_TRANSPORT 0x5A

/* What both ends agreed in ICReq/ICResp; the receiver checks every PDU against it. */
struct nvme_tcp_conn_params {
	bool hdgst;           /* header digests on CapsuleCmd/Resp, Data, R2T PDUs */
	bool ddgst;           /* data digests on PDUs that carry data */
	uint8_t rx_pda;       /* the alignment this receiver asked for: data at a PDO that
				   * is a multiple of (rx_pda + 1) * 4 bytes (0's based; above
				   * NVME_TCP_MAX_PDA counts as NVME_TCP_MAX_PDA) */
	uint32_t rx_max_data; /* bytes of data one received PDU may carry (the target:
				   * max(in-capsule size, MAXH2CDATA); the host: what it can take) */
	bool rx_is_ctrl;      /* the receiver is the controller (takes H2C PDUs) */
};

/* nvme_tcp_hlen - the header length a PDU of @type must carry (bytes), or 0 for a type
 * the binding does not define. */
uint8_t nvme_tcp_hlen(uint8_t type);

/* nvme_tcp_pdu_has_hdgst - whether a PDU of @type carries a header digest when header
 * digests are on (every type but ICReq, ICResp and the termination requests). */
bool nvme_tcp_pdu_has_hdgst(uint8_t type);

/*
 * nvme_tcp_check_ch - check a received common header @ch against the connection's
 * parameters @cp before trusting its lengths (TCP transport 1.0 sections 3.6.1, 3.6.2).
 * Checks, in order: a type this receiver may get (ICReq/ICResp only as the first PDU, so
 * @first says whether this is it; a host also takes a C2HTermReq there), HLEN for the
 * type, the digest flags as negotiated (none on ICReq/ICResp/TermReq; C2HData SUCCESS
 * only with LAST), PDO (0 without data, or for a CapsuleCmd also the header's end;
 * aligned and past the header and digest with data), PLEN (exactly the header and digest
 * for PDUs without data; data of 1..rx_max_data bytes otherwise; a TermReq 24..152).
 * Returns NVME_TCP_FES_NONE when acceptable; NVME_TCP_FES_PDU_SEQUENCE (FEI 0) for a type
 * of this direction out of turn; NVME_TCP_FES_R2T_LIMIT_EXCEEDED (05h, FEI 0) for an
 * H2CData/C2HData with more than rx_max_data bytes; else NVME_TCP_FES_INVALID_HEADER with
 * *@fei the byte offset of the offending field (0..4, host endian). For a received TermReq
 * the answer is only for the log: the connection ends either way, not with a TermReq.
 * @dlen (may be NULL): set to what nvme_tcp_data_len gives for an acceptable header
 * (bytes of data, 0 for a PDU without), so that a receiver needs one call; 0 otherwise.
 */
enum nvme_tcp_fes nvme_tcp_check_ch(const struct nvme_tcp_ch *ch,
				    const struct nvme_tcp_conn_params *cp, bool first,
				    uint32_t *fei, uint32_t *dlen);

/* nvme_tcp_data_len - bytes of data in a CapsuleCmd, H2CData or C2HData PDU whose common
 * header passed nvme_tcp_check_ch (PLEN - PDO - data digest), 0 when it has none (PLEN
 * ends at the header and its digest) and for every other type. */
uint32_t nvme_tcp_data_len(const struct nvme_tcp_ch *ch, const struct nvme_tcp_conn_params *cp);

/* nvme_tcp_pdo - the PDO a sender uses for data after a header of @hlen bytes with the
 * header digest @hdgst, for a receiver that asked for alignment @pda (0's based, dwords;
 * above NVME_TCP_MAX_PDA counts as NVME_TCP_MAX_PDA): the smallest multiple of
 * (pda + 1) * 4 at or after the header and digest, in bytes; 0 when that does not fit
 * PDO's byte (no PDU type that carries data has such a header). */
uint8_t nvme_tcp_pdo(uint8_t hlen, bool hdgst, uint8_t pda);

/*
 * nvme_tcp_pdu_hdr - complete the header of a PDU to send whose type-specific fields are
 * already at @hdr: the common header (@type, @flags plus the digest flags, HLEN, PDO,
 * PLEN), the header digest when @hdgst and the type carries one, and zero padding up to
 * the PDO for @dlen bytes of data (0: none) aligned as the receiver's @pda asks (0's
 * based, dwords). @ddgst: a data digest follows the data (only counted when @dlen > 0).
 * @hdr must hold nvme_tcp_pdo(hlen, hdgst, pda) bytes (at most 128). Returns the bytes
 * of @hdr to send before the data: the PDO with data, else HLEN plus the digest.
 */
uint32_t nvme_tcp_pdu_hdr(uint8_t *hdr, uint8_t type, uint8_t flags, bool hdgst, bool ddgst,
			  uint8_t pda, uint32_t dlen);

/* nvme_tcp_crc32c - CRC32C (Castagnoli, as iSCSI: reflected, initial and final value
 * ~0) of @len bytes at @buf, continuing @crc (start with NVME_TCP_CRC32C_INIT, finish
 * with nvme_tcp_crc32c_final). Over isa-l's crc32_iscsi. */
#define NVME_TCP_CRC32C_INIT 0xffffffffu
uint32_t nvme_tcp_crc32c(uint32_t crc, const void *buf, size_t len);
static inline uint32_t nvme_tcp_crc32c_final(uint32_t crc)
{
	return crc ^ 0xffffffffu;
}
/* nvme_tcp_digest - the digest of @len bytes (header: the HLEN bytes; data: the data
 * without padding), host endian; store it on the wire with htole32(). */
uint32_t nvme_tcp_digest(const void *buf, size_t len);

#endif
