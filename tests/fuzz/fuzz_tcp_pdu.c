/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the NVMe/TCP receiver's common-header checks (nvme/tcp.h) over a
 * byte stream of PDUs.
 *
 * Input (tests/fuzz/fuzz_input.h fields): a byte of connection parameters (bit 0 the
 * receiver is the controller, bit 1 header digests, bit 2 data digests, bit 3 the stream
 * starts after the initialization PDUs), the receiver's PDA (any byte, above 31 too), its
 * rx_max_data (le32); then the stream: an 8-byte common header, PLEN - 8 more bytes of
 * that PDU (skipped), the next header, ... until the input ends or a header is refused
 * (the connection would end there).
 * Checked, for each header: an accepted one is of this receiver's direction and turn,
 * with the type's HLEN, digest flags as negotiated, and its lengths add up: data within
 * rx_max_data, PLEN = PDO + data + data digest with PDO past the header and digest and
 * aligned, or PLEN = header + digest without data (a TermReq: 24..152); cutting
 * rx_max_data below its data refuses it. A refused one has a FES the check may give and
 * an FEI inside the common header for INVALID_HEADER (0 otherwise). The same answer twice.
 * Also, per input: a data PDU built with nvme_tcp_pdo for this receiver is accepted, and
 * a digest fed in two pieces equals one pass. FUZZ_TRACE=1 prints each header and verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/tcp.h"
#include "tests/fuzz/fuzz_input.h"

/* How many headers one input may walk (each at least 8 bytes anyway). */
#define MAX_PDUS 4096

static uint32_t align_of(uint8_t pda)
{
	return ((uint32_t)(pda > NVME_TCP_MAX_PDA ? NVME_TCP_MAX_PDA : pda) + 1) * 4;
}

static bool is_h2c(uint8_t type)
{
	return type == NVME_TCP_ICREQ || type == NVME_TCP_H2C_TERM || type == NVME_TCP_CMD ||
	       type == NVME_TCP_H2C_DATA;
}

static bool is_term(uint8_t type)
{
	return type == NVME_TCP_H2C_TERM || type == NVME_TCP_C2H_TERM;
}

static bool carries_data(uint8_t type)
{
	return type == NVME_TCP_CMD || type == NVME_TCP_H2C_DATA || type == NVME_TCP_C2H_DATA;
}

/* What an accepted header must be. */
static void check_accepted(const struct nvme_tcp_ch *ch, const struct nvme_tcp_conn_params *cp,
			   bool first)
{
	uint8_t t = ch->type;
	uint32_t plen = le32toh(ch->plen);
	bool hd = cp->hdgst && nvme_tcp_pdu_has_hdgst(t);
	uint32_t hdr_end = (uint32_t)ch->hlen + (hd ? NVME_TCP_DIGEST_LEN : 0);
	uint32_t dd = cp->ddgst ? NVME_TCP_DIGEST_LEN : 0;
	uint32_t data = nvme_tcp_data_len(ch, cp);

	if (!nvme_tcp_hlen(t) || ch->hlen != nvme_tcp_hlen(t) || is_h2c(t) != cp->rx_is_ctrl)
		abort();
	bool init = t == NVME_TCP_ICREQ || t == NVME_TCP_ICRESP;
	if (init != first && !(first && t == NVME_TCP_C2H_TERM))
		abort();
	if (nvme_tcp_pdu_has_hdgst(t) && !!(ch->flags & NVME_TCP_F_HDGST) != cp->hdgst)
		abort();
	if (!nvme_tcp_pdu_has_hdgst(t) && (ch->flags & (NVME_TCP_F_HDGST | NVME_TCP_F_DDGST)))
		abort();
	if (t == NVME_TCP_C2H_DATA && (ch->flags & NVME_TCP_F_DATA_SUCCESS) &&
	    !(ch->flags & NVME_TCP_F_DATA_LAST))
		abort();
	if (is_term(t)) {
		if (plen < ch->hlen || plen > ch->hlen + NVME_TCP_TERM_MAX_DATA || data)
			abort();
		return;
	}
	if (plen < hdr_end)
		abort(); /* PLEN covers the header and its digest */
	if (!data) {
		/* No data: exactly the header and digest; only a CapsuleCmd may lack it. */
		if (plen != hdr_end || (carries_data(t) && t != NVME_TCP_CMD))
			abort();
		if (ch->pdo && (t != NVME_TCP_CMD || ch->pdo != hdr_end))
			abort();
		return;
	}
	if (!carries_data(t) || data > cp->rx_max_data ||
	    !!(ch->flags & NVME_TCP_F_DDGST) != cp->ddgst)
		abort();
	if (ch->pdo < hdr_end || ch->pdo % align_of(cp->rx_pda) ||
	    (uint64_t)ch->pdo + data + dd != plen)
		abort(); /* PLEN covers the header, digest, padding up to PDO, data and digest */

	/* One byte less room refuses it: a limit for data PDUs, PLEN for a capsule. */
	struct nvme_tcp_conn_params less = *cp;
	uint32_t fei = 1;
	less.rx_max_data = data - 1;
	enum nvme_tcp_fes fes = nvme_tcp_check_ch(ch, &less, first, &fei, NULL);
	if (t == NVME_TCP_CMD ? fes != NVME_TCP_FES_INVALID_HEADER || fei != 4 :
				fes != NVME_TCP_FES_R2T_LIMIT_EXCEEDED || fei != 0)
		abort();
}

static void check_refused(const struct nvme_tcp_ch *ch, const struct nvme_tcp_conn_params *cp,
			  enum nvme_tcp_fes fes, uint32_t fei)
{
	switch (fes) {
	case NVME_TCP_FES_INVALID_HEADER:
		if (fei >= sizeof(struct nvme_tcp_ch))
			abort(); /* FEI names a field of the common header */
		break;
	case NVME_TCP_FES_PDU_SEQUENCE:
		if (fei || !nvme_tcp_hlen(ch->type) || is_h2c(ch->type) != cp->rx_is_ctrl)
			abort();
		break;
	case NVME_TCP_FES_R2T_LIMIT_EXCEEDED:
		if (fei || (ch->type != NVME_TCP_H2C_DATA && ch->type != NVME_TCP_C2H_DATA))
			abort();
		break;
	default:
		abort();
	}
}

/* A data PDU the way a sender builds it for this receiver is accepted. */
static void sender_and_receiver_agree(const struct nvme_tcp_conn_params *cp, uint32_t n)
{
	uint8_t t = cp->rx_is_ctrl ? NVME_TCP_H2C_DATA : NVME_TCP_C2H_DATA;
	uint8_t hlen = nvme_tcp_hlen(t);
	uint8_t pdo = nvme_tcp_pdo(hlen, cp->hdgst, cp->rx_pda);
	uint32_t end = hlen + (cp->hdgst ? NVME_TCP_DIGEST_LEN : 0);
	uint32_t align = align_of(cp->rx_pda), dd = cp->ddgst ? NVME_TCP_DIGEST_LEN : 0;
	uint32_t fei = 1;

	if (!pdo || pdo % align || pdo < end || pdo >= end + align)
		abort();
	if (!cp->rx_max_data)
		return;
	n = n % cp->rx_max_data + 1;
	if (n > UINT32_MAX - pdo - dd)
		n = UINT32_MAX - pdo - dd;
	struct nvme_tcp_ch ch = {
		.type = t,
		.hlen = hlen,
		.pdo = pdo,
		.plen = htole32(pdo + n + dd),
		.flags = (uint8_t)((cp->hdgst ? NVME_TCP_F_HDGST : 0) |
				   (cp->ddgst ? NVME_TCP_F_DDGST : 0) | NVME_TCP_F_DATA_LAST),
	};
	uint32_t dlen = 0;
	if (nvme_tcp_check_ch(&ch, cp, false, &fei, &dlen) != NVME_TCP_FES_NONE || fei ||
	    nvme_tcp_data_len(&ch, cp) != n || dlen != n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint8_t sel = fi_u8(&in);
	struct nvme_tcp_conn_params cp = {
		.rx_is_ctrl = sel & 1,
		.hdgst = sel & 2,
		.ddgst = sel & 4,
	};
	bool first = !(sel & 8);
	bool trace = getenv("FUZZ_TRACE") != NULL;
	cp.rx_pda = fi_u8(&in);
	cp.rx_max_data = fi_u32(&in);

	/* The digest of what is left, in one pass and in two pieces. */
	size_t cut = size ? data[size - 1] % (in.n + 1) : 0;
	uint32_t c = nvme_tcp_crc32c(NVME_TCP_CRC32C_INIT, in.p, cut);
	c = nvme_tcp_crc32c(c, in.p + cut, in.n - cut);
	if (nvme_tcp_crc32c_final(c) != nvme_tcp_digest(in.p, in.n))
		abort();

	sender_and_receiver_agree(&cp, (uint32_t)size * 2654435761u);

	for (unsigned i = 0; i < MAX_PDUS && !fi_done(&in); i++) {
		struct nvme_tcp_ch ch;
		uint32_t fei = 0xdeadbeef, fei2 = 0xfeedface, dlen = 0xdeadbeef;

		fi_bytes(&in, &ch, sizeof(ch));
		enum nvme_tcp_fes fes = nvme_tcp_check_ch(&ch, &cp, first, &fei, &dlen);
		if (nvme_tcp_check_ch(&ch, &cp, first, &fei2, NULL) != fes || fei2 != fei)
			abort();
		/* The data length it gives is nvme_tcp_data_len's, 0 when refused. */
		if (dlen != (fes ? 0 : nvme_tcp_data_len(&ch, &cp)))
			abort();
		if (trace)
			fprintf(stderr,
				"pdu %u: type %02x flags %02x hlen %u pdo %u plen %u -> fes %d fei %u data %u\n",
				i, ch.type, ch.flags, ch.hlen, ch.pdo, le32toh(ch.plen), (int)fes,
				fei, fes ? 0 : nvme_tcp_data_len(&ch, &cp));
		if (fes != NVME_TCP_FES_NONE) {
			check_refused(&ch, &cp, fes, fei);
			break;
		}
		if (fei)
			abort();
		check_accepted(&ch, &cp, first);
		first = false;
		/* The rest of this PDU: header past the common one, digests, data. */
		uint32_t rest = le32toh(ch.plen) - (uint32_t)sizeof(ch);
		size_t skip = rest < in.n ? rest : in.n;
		in.p += skip;
		in.n -= skip;
	}
	return 0;
}
