/* SPDX-License-Identifier: MIT */
/*
 * NVMe/TCP PDU header rules and digests (nvme/tcp.h; TCP transport 1.0 section 3.6).
 */
#include "nvme/tcp.h"

#include <isa-l/crc.h>
#include <stddef.h>
#include <string.h>

/* Offsets of the common header fields, for FEI (byte offset of the bad field). */
#define FEI_TYPE  offsetof(struct nvme_tcp_ch, type)
#define FEI_FLAGS offsetof(struct nvme_tcp_ch, flags)
#define FEI_HLEN  offsetof(struct nvme_tcp_ch, hlen)
#define FEI_PDO   offsetof(struct nvme_tcp_ch, pdo)
#define FEI_PLEN  offsetof(struct nvme_tcp_ch, plen)

/* What the binding says of each PDU type (TCP transport 1.0 Figure 7 and the per-type
 * figures), indexed by the type byte: its header length (bytes; 0: not a type) and
 * whether it carries a header digest when those are on (every type but ICReq, ICResp
 * and the termination requests). */
static const struct {
	uint8_t hlen;
	bool hdgst;
} pdu_types[UINT8_MAX + 1] = {
	[NVME_TCP_ICREQ] = { sizeof(struct nvme_tcp_icreq), false },
	[NVME_TCP_ICRESP] = { sizeof(struct nvme_tcp_icresp), false },
	[NVME_TCP_H2C_TERM] = { sizeof(struct nvme_tcp_term), false },
	[NVME_TCP_C2H_TERM] = { sizeof(struct nvme_tcp_term), false },
	[NVME_TCP_CMD] = { sizeof(struct nvme_tcp_cmd), true },
	[NVME_TCP_RSP] = { sizeof(struct nvme_tcp_rsp), true },
	[NVME_TCP_H2C_DATA] = { sizeof(struct nvme_tcp_data), true },
	[NVME_TCP_C2H_DATA] = { sizeof(struct nvme_tcp_data), true },
	[NVME_TCP_R2T] = { sizeof(struct nvme_tcp_r2t), true },
};

/* The types a receiver takes, a bit per type: [rx_is_ctrl][first PDU]. The first PDU
 * must be the initialization PDU; the host also takes a C2HTermReq there (a controller
 * refuses an ICReq that way). */
#define T(type) (1u << (type))
static const uint16_t rx_types[2][2] = {
	[false] = { [false] = T(NVME_TCP_RSP) | T(NVME_TCP_C2H_DATA) | T(NVME_TCP_R2T) |
			      T(NVME_TCP_C2H_TERM),
		    [true] = T(NVME_TCP_ICRESP) | T(NVME_TCP_C2H_TERM) },
	[true] = { [false] = T(NVME_TCP_CMD) | T(NVME_TCP_H2C_DATA) | T(NVME_TCP_H2C_TERM),
		   [true] = T(NVME_TCP_ICREQ) },
};
#undef T

uint8_t nvme_tcp_hlen(uint8_t type)
{
	return pdu_types[type].hlen;
}

bool nvme_tcp_pdu_has_hdgst(uint8_t type)
{
	return pdu_types[type].hdgst;
}

/* Bytes of data alignment for a PDA (0's based dwords); values above 31 count as 31
 * (128 bytes, the largest the ICReq/ICResp fields define), as SPDK clamps them. */
static uint32_t pda_bytes(uint8_t pda)
{
	return ((uint32_t)(pda > NVME_TCP_MAX_PDA ? NVME_TCP_MAX_PDA : pda) + 1) * 4;
}

static enum nvme_tcp_fes bad(uint32_t *fei, uint32_t field)
{
	*fei = field;
	return NVME_TCP_FES_INVALID_HEADER;
}

enum nvme_tcp_fes nvme_tcp_check_ch(const struct nvme_tcp_ch *ch,
				    const struct nvme_tcp_conn_params *cp, bool first,
				    uint32_t *fei, uint32_t *dlen)
{
	uint8_t hlen = pdu_types[ch->type].hlen;
	uint32_t plen = le32toh(ch->plen);
	uint32_t hdr_end, dd, align, data;
	bool hd;

	*fei = 0;
	if (dlen)
		*dlen = 0;
	/* A type this side never receives is a bad field; a valid one out of turn (a
	 * second ICReq, a CapsuleCmd before it) is a sequence error. The other phase is
	 * looked at only for a type this one does not take. */
	if (!hlen)
		return bad(fei, FEI_TYPE);
	/* A defined type is below 16: its bit is in the masks. */
	if (!(rx_types[cp->rx_is_ctrl][first] & (1u << ch->type)))
		return rx_types[cp->rx_is_ctrl][!first] & (1u << ch->type) ?
			       NVME_TCP_FES_PDU_SEQUENCE :
			       bad(fei, FEI_TYPE);
	if (ch->hlen != hlen)
		return bad(fei, FEI_HLEN);

	switch (ch->type) {
	case NVME_TCP_ICREQ:
	case NVME_TCP_ICRESP:
		/* No digests before they are negotiated. */
		if (ch->flags & (NVME_TCP_F_HDGST | NVME_TCP_F_DDGST))
			return bad(fei, FEI_FLAGS);
		if (ch->pdo)
			return bad(fei, FEI_PDO);
		if (plen != hlen)
			return bad(fei, FEI_PLEN);
		return NVME_TCP_FES_NONE;
	case NVME_TCP_H2C_TERM:
	case NVME_TCP_C2H_TERM:
		if (ch->flags & (NVME_TCP_F_HDGST | NVME_TCP_F_DDGST))
			return bad(fei, FEI_FLAGS);
		if (plen < hlen || plen > hlen + NVME_TCP_TERM_MAX_DATA)
			return bad(fei, FEI_PLEN);
		return NVME_TCP_FES_NONE;
	default:
		break;
	}

	hd = cp->hdgst;
	if (!!(ch->flags & NVME_TCP_F_HDGST) != hd)
		return bad(fei, FEI_FLAGS);
	hdr_end = hlen + (hd ? NVME_TCP_DIGEST_LEN : 0);

	if (ch->type == NVME_TCP_RSP || ch->type == NVME_TCP_R2T ||
	    (ch->type == NVME_TCP_CMD && plen <= hdr_end)) {
		/* No data. A Linux host sends PDO 0 on a CapsuleCmd without data; the
		 * kernel's and SPDK's targets do not look at it, FreeBSD's takes 0 or the
		 * header's end (where the empty data starts): so do we. CapsuleResp and
		 * R2T never carry data: PDO 0, as nvmet-tcp and SPDK send. */
		if (ch->pdo && (ch->type != NVME_TCP_CMD || ch->pdo != hdr_end))
			return bad(fei, FEI_PDO);
		if (plen != hdr_end)
			return bad(fei, FEI_PLEN);
		return NVME_TCP_FES_NONE;
	}

	/* CapsuleCmd with in-capsule data, H2CData, C2HData. */
	if (ch->type == NVME_TCP_C2H_DATA && (ch->flags & NVME_TCP_F_DATA_SUCCESS) &&
	    !(ch->flags & NVME_TCP_F_DATA_LAST))
		return bad(fei, FEI_FLAGS);
	if (!!(ch->flags & NVME_TCP_F_DDGST) != cp->ddgst)
		return bad(fei, FEI_FLAGS);
	dd = cp->ddgst ? NVME_TCP_DIGEST_LEN : 0;
	align = pda_bytes(cp->rx_pda);
	if (ch->pdo < hdr_end || ch->pdo % align)
		return bad(fei, FEI_PDO);
	if (plen <= (uint32_t)ch->pdo + dd)
		return bad(fei, FEI_PLEN);
	data = plen - ch->pdo - dd;
	if (data > cp->rx_max_data)
		return ch->type == NVME_TCP_CMD ? bad(fei, FEI_PLEN) :
						  NVME_TCP_FES_R2T_LIMIT_EXCEEDED;
	if (dlen)
		*dlen = data;
	return NVME_TCP_FES_NONE;
}

uint32_t nvme_tcp_data_len(const struct nvme_tcp_ch *ch, const struct nvme_tcp_conn_params *cp)
{
	uint32_t plen = le32toh(ch->plen), dd = cp->ddgst ? NVME_TCP_DIGEST_LEN : 0;
	uint32_t hdr_end = (uint32_t)ch->hlen + (cp->hdgst ? NVME_TCP_DIGEST_LEN : 0);

	/* Only these carry data; a CapsuleCmd has none when PLEN ends at the header
	 * (whatever its PDO: see nvme_tcp_check_ch). */
	if (ch->type != NVME_TCP_CMD && ch->type != NVME_TCP_H2C_DATA &&
	    ch->type != NVME_TCP_C2H_DATA)
		return 0;
	if (plen <= hdr_end || ch->pdo < hdr_end || plen <= (uint32_t)ch->pdo + dd)
		return 0;
	return plen - ch->pdo - dd;
}

uint8_t nvme_tcp_pdo(uint8_t hlen, bool hdgst, uint8_t pda)
{
	uint32_t end = hlen + (hdgst ? NVME_TCP_DIGEST_LEN : 0);
	uint32_t align = pda_bytes(pda);
	uint32_t pdo = (end + align - 1) / align * align;

	/* PDO is one byte: no header that carries data (at most 72 + 4 bytes) gets
	 * here, but a 128-byte one with a digest would. */
	return pdo > UINT8_MAX ? 0 : (uint8_t)pdo;
}

uint32_t nvme_tcp_pdu_hdr(uint8_t *hdr, uint8_t type, uint8_t flags, bool hdgst, bool ddgst,
			  uint8_t pda, uint32_t dlen)
{
	struct nvme_tcp_ch *ch = (struct nvme_tcp_ch *)hdr;
	uint8_t hlen = pdu_types[type].hlen;
	bool hd = hdgst && pdu_types[type].hdgst;
	bool dd = dlen && ddgst;
	uint32_t end = hlen + (hd ? NVME_TCP_DIGEST_LEN : 0);
	uint8_t pdo = dlen ? nvme_tcp_pdo(hlen, hd, pda) : 0;

	ch->type = type;
	ch->flags = (uint8_t)(flags | (hd ? NVME_TCP_F_HDGST : 0) | (dd ? NVME_TCP_F_DDGST : 0));
	ch->hlen = hlen;
	ch->pdo = pdo;
	ch->plen = htole32(dlen ? pdo + dlen + (dd ? NVME_TCP_DIGEST_LEN : 0) : end);
	if (hd) {
		uint32_t d = htole32(nvme_tcp_digest(hdr, hlen));
		memcpy(hdr + hlen, &d, sizeof(d));
	}
	if (dlen && pdo > end)
		memset(hdr + end, 0, pdo - end);
	return dlen ? pdo : end;
}

uint32_t nvme_tcp_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	/* crc32_iscsi takes an int length: feed it in pieces. */
	while (len) {
		int n = len > (1u << 30) ? (1 << 30) : (int)len;

		crc = crc32_iscsi((unsigned char *)p, n, crc);
		p += n;
		len -= (size_t)n;
	}
	return crc;
}

uint32_t nvme_tcp_digest(const void *buf, size_t len)
{
	return nvme_tcp_crc32c_final(nvme_tcp_crc32c(NVME_TCP_CRC32C_INIT, buf, len));
}
