/* NVMe/TCP PDU rules (nvme/tcp.h): CRC32C known answers and header digests, each check of
 * nvme_tcp_check_ch with the FES and FEI it gives, the PDUs a stock Linux host and nvmet-tcp
 * send (which must pass), nvme_tcp_data_len and nvme_tcp_pdo. */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <string.h>
#include "nvme/tcp.h"
#include "tests/unit/suites.h"

/* FEI values: byte offsets of the common header's fields. */
#define FEI_TYPE  0u
#define FEI_FLAGS 1u
#define FEI_HLEN  2u
#define FEI_PDO   3u
#define FEI_PLEN  4u

#define HD      NVME_TCP_F_HDGST
#define DD      NVME_TCP_F_DDGST
#define LAST    NVME_TCP_F_DATA_LAST
#define SUCCESS NVME_TCP_F_DATA_SUCCESS

static struct nvme_tcp_ch ch_of(uint8_t type, uint8_t flags, uint8_t hlen, uint8_t pdo,
				uint32_t plen)
{
	struct nvme_tcp_ch ch = {
		.type = type, .flags = flags, .hlen = hlen, .pdo = pdo, .plen = htole32(plen)
	};
	return ch;
}

static struct nvme_tcp_conn_params params(bool ctrl, bool hdgst, bool ddgst)
{
	struct nvme_tcp_conn_params cp = { .hdgst = hdgst,
					   .ddgst = ddgst,
					   .rx_pda = 0,
					   .rx_max_data = 131072,
					   .rx_is_ctrl = ctrl };
	return cp;
}

/* The check's answer, with *fei checked: 0 unless the FES is INVALID_HEADER. Starts from
 * a stale FEI and data length so that a check which forgets to set one is seen; the data
 * length it gives is nvme_tcp_data_len's for an accepted header, 0 for a refused one. */
static enum nvme_tcp_fes check(const struct nvme_tcp_ch *ch, const struct nvme_tcp_conn_params *cp,
			       bool first, uint32_t *fei)
{
	uint32_t dlen = 0xdeadbeef;
	enum nvme_tcp_fes fes;

	*fei = 0xdeadbeef;
	fes = nvme_tcp_check_ch(ch, cp, first, fei, &dlen);
	CU_ASSERT_EQUAL(dlen, fes == NVME_TCP_FES_NONE ? nvme_tcp_data_len(ch, cp) : 0);
	CU_ASSERT_EQUAL(nvme_tcp_check_ch(ch, cp, first, fei, NULL), fes);
	return fes;
}

/* Accepted with FEI 0. */
static void expect_ok(struct nvme_tcp_ch ch, const struct nvme_tcp_conn_params *cp, bool first)
{
	uint32_t fei;

	CU_ASSERT_EQUAL(check(&ch, cp, first, &fei), NVME_TCP_FES_NONE);
	CU_ASSERT_EQUAL(fei, 0);
}

/* Refused as an invalid header field at @field. */
static void expect_bad(struct nvme_tcp_ch ch, const struct nvme_tcp_conn_params *cp, bool first,
		       uint32_t field)
{
	uint32_t fei;

	CU_ASSERT_EQUAL(check(&ch, cp, first, &fei), NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(fei, field);
}

/* Refused with @fes, FEI 0 (the field is reserved for it). */
static void expect_fes(struct nvme_tcp_ch ch, const struct nvme_tcp_conn_params *cp, bool first,
		       enum nvme_tcp_fes fes)
{
	uint32_t fei;

	CU_ASSERT_EQUAL(check(&ch, cp, first, &fei), fes);
	CU_ASSERT_EQUAL(fei, 0);
}

static uint32_t digest_le_bytes(uint32_t d, uint8_t out[4])
{
	uint32_t le = htole32(d);

	memcpy(out, &le, 4);
	return d;
}

/* ---- CRC32C and digests ---- */

/* RFC 3720 appendix B.4: the CRC as the bytes that go on the wire (little endian). */
static void crc32c_matches_rfc3720_b4_vectors(void)
{
	uint8_t buf[32], wire[4];

	memset(buf, 0, sizeof(buf));
	digest_le_bytes(nvme_tcp_digest(buf, 32), wire);
	CU_ASSERT_EQUAL(memcmp(wire, "\xaa\x36\x91\x8a", 4), 0);

	memset(buf, 0xff, sizeof(buf));
	digest_le_bytes(nvme_tcp_digest(buf, 32), wire);
	CU_ASSERT_EQUAL(memcmp(wire, "\x43\xab\xa8\x62", 4), 0);

	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	digest_le_bytes(nvme_tcp_digest(buf, 32), wire);
	CU_ASSERT_EQUAL(memcmp(wire, "\x4e\x79\xdd\x46", 4), 0);

	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	digest_le_bytes(nvme_tcp_digest(buf, 32), wire);
	CU_ASSERT_EQUAL(memcmp(wire, "\x5c\xdb\x3f\x11", 4), 0);
}

static void crc32c_of_123456789_is_e3069283(void)
{
	CU_ASSERT_EQUAL(nvme_tcp_digest("123456789", 9), 0xe3069283u);
	CU_ASSERT_EQUAL(
		nvme_tcp_crc32c_final(nvme_tcp_crc32c(NVME_TCP_CRC32C_INIT, "123456789", 9)),
		0xe3069283u);
}

static void crc32c_of_nothing_is_zero(void)
{
	CU_ASSERT_EQUAL(nvme_tcp_digest("", 0), 0);
}

static void crc32c_fed_in_pieces_equals_one_pass(void)
{
	uint8_t buf[100];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 37 + 11);
	uint32_t whole = nvme_tcp_digest(buf, sizeof(buf));
	for (size_t cut = 0; cut <= sizeof(buf); cut++) {
		uint32_t c = nvme_tcp_crc32c(NVME_TCP_CRC32C_INIT, buf, cut);
		c = nvme_tcp_crc32c(c, buf + cut, sizeof(buf) - cut);
		CU_ASSERT_EQUAL(nvme_tcp_crc32c_final(c), whole);
	}
}

/* A CapsuleResp header with HDGSTF (the 24 bytes nvmet-tcp would digest) and an R2T one:
 * the digests an independent bitwise CRC32C computes over exactly HLEN bytes. */
static void header_digest_of_capsule_resp_and_r2t_known_answers(void)
{
	struct nvme_tcp_rsp rsp;
	struct nvme_tcp_r2t r2t;
	uint8_t wire[4];

	memset(&rsp, 0, sizeof(rsp));
	rsp.ch = ch_of(NVME_TCP_RSP, HD, 24, 0, 28);
	rsp.cqe.result.u32 = htole32(0x11223344);
	rsp.cqe.sq_head = htole16(5);
	rsp.cqe.sq_id = htole16(1);
	rsp.cqe.command_id = htole16(0x1234);
	CU_ASSERT_EQUAL(digest_le_bytes(nvme_tcp_digest(&rsp, rsp.ch.hlen), wire), 0xd0a26344u);
	CU_ASSERT_EQUAL(memcmp(wire, "\x44\x63\xa2\xd0", 4), 0);

	memset(&r2t, 0, sizeof(r2t));
	r2t.ch = ch_of(NVME_TCP_R2T, HD, 24, 0, 28);
	r2t.cccid = htole16(7);
	r2t.ttag = htole16(3);
	r2t.r2tl = htole32(0x2000);
	CU_ASSERT_EQUAL(nvme_tcp_digest(&r2t, r2t.ch.hlen), 0xbf69fc6bu);

	/* One bit anywhere in the header changes it. */
	for (size_t i = 0; i < sizeof(r2t) * 8; i++) {
		uint8_t *b = (uint8_t *)&r2t;
		b[i / 8] ^= (uint8_t)(1u << (i % 8));
		CU_ASSERT_NOT_EQUAL(nvme_tcp_digest(&r2t, sizeof(r2t)), 0xbf69fc6bu);
		b[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
}

/* ---- types and header lengths ---- */

static void hlen_is_fixed_per_type_and_0_for_undefined_types(void)
{
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_ICREQ), 128);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_ICRESP), 128);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_H2C_TERM), 24);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_C2H_TERM), 24);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_CMD), 72);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_RSP), 24);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_H2C_DATA), 24);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_C2H_DATA), 24);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(NVME_TCP_R2T), 24);
	CU_ASSERT_EQUAL(nvme_tcp_hlen(0x08), 0);
	for (unsigned t = 0x0a; t <= 0xff; t++)
		CU_ASSERT_EQUAL(nvme_tcp_hlen((uint8_t)t), 0);
}

static void header_digest_only_on_capsule_data_and_r2t_pdus(void)
{
	for (unsigned t = 0; t <= 0xff; t++) {
		bool want = t == NVME_TCP_CMD || t == NVME_TCP_RSP || t == NVME_TCP_H2C_DATA ||
			    t == NVME_TCP_C2H_DATA || t == NVME_TCP_R2T;
		CU_ASSERT_EQUAL(nvme_tcp_pdu_has_hdgst((uint8_t)t), want);
	}
}

/* ---- which side takes which type, and when ---- */

static const uint8_t h2c_types[] = { NVME_TCP_ICREQ, NVME_TCP_H2C_TERM, NVME_TCP_CMD,
				     NVME_TCP_H2C_DATA };
static const uint8_t c2h_types[] = { NVME_TCP_ICRESP, NVME_TCP_C2H_TERM, NVME_TCP_RSP,
				     NVME_TCP_C2H_DATA, NVME_TCP_R2T };

/* A well-formed PDU of @type for @cp (data PDUs carry 512 bytes). */
static struct nvme_tcp_ch good_pdu(uint8_t type, const struct nvme_tcp_conn_params *cp)
{
	uint8_t hlen = nvme_tcp_hlen(type);
	uint8_t hd = cp->hdgst && nvme_tcp_pdu_has_hdgst(type) ? 4 : 0;
	uint8_t dd = cp->ddgst ? 4 : 0;
	uint8_t flags = hd ? HD : 0;

	switch (type) {
	case NVME_TCP_CMD:
	case NVME_TCP_H2C_DATA:
	case NVME_TCP_C2H_DATA:
		if (type != NVME_TCP_CMD)
			flags |= LAST;
		return ch_of(type, flags | (dd ? DD : 0), hlen, (uint8_t)(hlen + hd),
			     hlen + hd + 512u + dd);
	default:
		return ch_of(type, flags, hlen, 0, hlen + hd);
	}
}

static void controller_takes_icreq_first_and_never_again(void)
{
	struct nvme_tcp_conn_params cp = params(true, false, false);

	expect_ok(good_pdu(NVME_TCP_ICREQ, &cp), &cp, true);
	expect_fes(good_pdu(NVME_TCP_ICREQ, &cp), &cp, false, NVME_TCP_FES_PDU_SEQUENCE);
}

static void controller_takes_nothing_else_before_icreq(void)
{
	struct nvme_tcp_conn_params cp = params(true, false, false);

	expect_fes(good_pdu(NVME_TCP_CMD, &cp), &cp, true, NVME_TCP_FES_PDU_SEQUENCE);
	expect_fes(good_pdu(NVME_TCP_H2C_DATA, &cp), &cp, true, NVME_TCP_FES_PDU_SEQUENCE);
	expect_fes(good_pdu(NVME_TCP_H2C_TERM, &cp), &cp, true, NVME_TCP_FES_PDU_SEQUENCE);
	/* ... and takes each of them after it. */
	expect_ok(good_pdu(NVME_TCP_CMD, &cp), &cp, false);
	expect_ok(good_pdu(NVME_TCP_H2C_DATA, &cp), &cp, false);
	expect_ok(good_pdu(NVME_TCP_H2C_TERM, &cp), &cp, false);
}

static void host_takes_icresp_or_c2hterm_first_and_icresp_never_again(void)
{
	struct nvme_tcp_conn_params cp = params(false, false, false);

	expect_ok(good_pdu(NVME_TCP_ICRESP, &cp), &cp, true);
	expect_ok(good_pdu(NVME_TCP_C2H_TERM, &cp), &cp, true);
	expect_fes(good_pdu(NVME_TCP_ICRESP, &cp), &cp, false, NVME_TCP_FES_PDU_SEQUENCE);
	for (size_t i = 2; i < sizeof(c2h_types); i++) {
		expect_fes(good_pdu(c2h_types[i], &cp), &cp, true, NVME_TCP_FES_PDU_SEQUENCE);
		expect_ok(good_pdu(c2h_types[i], &cp), &cp, false);
	}
	expect_ok(good_pdu(NVME_TCP_C2H_TERM, &cp), &cp, false);
}

/* A PDU of the other direction is a bad type (FEI 0), first or not, well-formed or not. */
static void each_side_refuses_the_other_directions_types_as_invalid_type(void)
{
	struct nvme_tcp_conn_params ctrl = params(true, true, true);
	struct nvme_tcp_conn_params host = params(false, true, true);

	for (int first = 0; first < 2; first++) {
		for (size_t i = 0; i < sizeof(c2h_types); i++)
			expect_bad(good_pdu(c2h_types[i], &host), &ctrl, first, FEI_TYPE);
		for (size_t i = 0; i < sizeof(h2c_types); i++)
			expect_bad(good_pdu(h2c_types[i], &ctrl), &host, first, FEI_TYPE);
	}
}

static void undefined_types_are_invalid_type_on_both_sides(void)
{
	struct nvme_tcp_conn_params ctrl = params(true, false, false);
	struct nvme_tcp_conn_params host = params(false, false, false);

	for (unsigned t = 0x08; t <= 0xff; t++) {
		if (t == NVME_TCP_R2T)
			continue;
		/* Whatever the rest says: a 24-byte header, as most types have. */
		struct nvme_tcp_ch ch = ch_of((uint8_t)t, 0, 24, 0, 24);
		for (int first = 0; first < 2; first++) {
			expect_bad(ch, &ctrl, first, FEI_TYPE);
			expect_bad(ch, &host, first, FEI_TYPE);
		}
	}
}

/* ---- HLEN ---- */

static void wrong_hlen_is_invalid_hlen_for_every_type(void)
{
	for (int side = 0; side < 2; side++) {
		struct nvme_tcp_conn_params cp = params(side == 0, false, false);
		const uint8_t *types = side == 0 ? h2c_types : c2h_types;
		size_t n = side == 0 ? sizeof(h2c_types) : sizeof(c2h_types);

		for (size_t i = 0; i < n; i++) {
			bool first = types[i] == NVME_TCP_ICREQ || types[i] == NVME_TCP_ICRESP;
			uint8_t want = nvme_tcp_hlen(types[i]);
			const uint8_t wrong[] = { 0,
						  8,
						  (uint8_t)(want - 1),
						  (uint8_t)(want + 1),
						  (uint8_t)(want + 4),
						  255 };
			for (size_t w = 0; w < sizeof(wrong); w++) {
				struct nvme_tcp_ch ch = good_pdu(types[i], &cp);
				ch.hlen = wrong[w];
				expect_bad(ch, &cp, first, FEI_HLEN);
			}
		}
	}
}

/* ---- ICReq / ICResp ---- */

static void icreq_and_icresp_take_no_digest_flag_pdo_or_other_plen(void)
{
	struct nvme_tcp_conn_params ctrl = params(true, false, false);
	struct nvme_tcp_conn_params host = params(false, false, false);
	const struct {
		uint8_t type;
		const struct nvme_tcp_conn_params *cp;
	} ic[] = {
		{ NVME_TCP_ICREQ, &ctrl },
		{ NVME_TCP_ICRESP, &host },
	};

	for (size_t i = 0; i < 2; i++) {
		uint8_t t = ic[i].type;
		/* What the Linux host and nvmet-tcp send: flags 0, PDO 0, PLEN 128. */
		expect_ok(ch_of(t, 0, 128, 0, 128), ic[i].cp, true);
		expect_bad(ch_of(t, HD, 128, 0, 128), ic[i].cp, true, FEI_FLAGS);
		expect_bad(ch_of(t, DD, 128, 0, 128), ic[i].cp, true, FEI_FLAGS);
		expect_bad(ch_of(t, 0, 128, 128, 128), ic[i].cp, true, FEI_PDO);
		expect_bad(ch_of(t, 0, 128, 4, 128), ic[i].cp, true, FEI_PDO);
		expect_bad(ch_of(t, 0, 128, 0, 127), ic[i].cp, true, FEI_PLEN);
		expect_bad(ch_of(t, 0, 128, 0, 129), ic[i].cp, true, FEI_PLEN);
		expect_bad(ch_of(t, 0, 128, 0, 132), ic[i].cp, true, FEI_PLEN);
		expect_bad(ch_of(t, 0, 128, 0, 0), ic[i].cp, true, FEI_PLEN);
		expect_bad(ch_of(t, 0, 128, 0, UINT32_MAX), ic[i].cp, true, FEI_PLEN);
		/* Digests negotiated for later do not change the initialization PDUs. */
		struct nvme_tcp_conn_params dg = *ic[i].cp;
		dg.hdgst = dg.ddgst = true;
		expect_ok(ch_of(t, 0, 128, 0, 128), &dg, true);
	}
}

/* ---- TermReq ---- */

/* 24-byte header plus up to 128 bytes of the PDU in error, PLEN at most 152, either way;
 * no digests; PDO is not looked at (a TermReq carries no PDO-addressed data). */
static void termreq_plen_is_24_to_152_in_both_directions(void)
{
	struct nvme_tcp_conn_params ctrl = params(true, true, true);
	struct nvme_tcp_conn_params host = params(false, true, true);
	const struct {
		uint8_t type;
		const struct nvme_tcp_conn_params *cp;
		bool first;
	} t[] = {
		{ NVME_TCP_H2C_TERM, &ctrl, false },
		{ NVME_TCP_C2H_TERM, &host, false },
		{ NVME_TCP_C2H_TERM, &host, true },
	};

	for (size_t i = 0; i < 3; i++) {
		expect_ok(ch_of(t[i].type, 0, 24, 0, 24), t[i].cp, t[i].first);
		expect_ok(ch_of(t[i].type, 0, 24, 0, 24 + 72), t[i].cp, t[i].first);
		expect_ok(ch_of(t[i].type, 0, 24, 0, 152), t[i].cp, t[i].first);
		expect_ok(ch_of(t[i].type, 0, 24, 24, 152), t[i].cp, t[i].first);
		expect_bad(ch_of(t[i].type, 0, 24, 0, 23), t[i].cp, t[i].first, FEI_PLEN);
		expect_bad(ch_of(t[i].type, 0, 24, 0, 0), t[i].cp, t[i].first, FEI_PLEN);
		expect_bad(ch_of(t[i].type, 0, 24, 0, 153), t[i].cp, t[i].first, FEI_PLEN);
		expect_bad(ch_of(t[i].type, 0, 24, 0, 176), t[i].cp, t[i].first, FEI_PLEN);
		expect_bad(ch_of(t[i].type, 0, 24, 0, UINT32_MAX), t[i].cp, t[i].first, FEI_PLEN);
		expect_bad(ch_of(t[i].type, HD, 24, 0, 24), t[i].cp, t[i].first, FEI_FLAGS);
		expect_bad(ch_of(t[i].type, DD, 24, 0, 24), t[i].cp, t[i].first, FEI_FLAGS);
	}
}

/* ---- what the stock Linux host and nvmet-tcp send (drivers/nvme/{host,target}/tcp.c) ---- */

/* The host's CapsuleCmd: PDO 0 without data, header + digest with in-capsule data (it
 * takes only CPDA 0); HDGSTF when header digests are on, DDGSTF only with data. Its
 * H2CData: PDO header + digest, LAST on the last PDU of an R2T (6.1 splits by MAXH2CDATA). */
static void linux_host_pdus_pass_with_every_digest_setting(void)
{
	for (int d = 0; d < 4; d++) {
		bool hd = d & 1, dd = d & 2;
		struct nvme_tcp_conn_params cp = params(true, hd, dd);
		uint8_t hflag = hd ? HD : 0, dflag = dd ? DD : 0;
		uint8_t h4 = hd ? 4 : 0, d4 = dd ? 4 : 0;

		expect_ok(ch_of(NVME_TCP_ICREQ, 0, 128, 0, 128), &cp, true);
		/* Flush, Identify, Read: no data in the capsule. */
		expect_ok(ch_of(NVME_TCP_CMD, hflag, 72, 0, 72u + h4), &cp, false);
		/* Connect (1024 bytes) and a 4 KiB write in the capsule. */
		expect_ok(ch_of(NVME_TCP_CMD, hflag | dflag, 72, (uint8_t)(72 + h4),
				72u + h4 + 1024 + d4),
			  &cp, false);
		expect_ok(ch_of(NVME_TCP_CMD, hflag | dflag, 72, (uint8_t)(72 + h4),
				72u + h4 + 4096 + d4),
			  &cp, false);
		/* H2CData, last and not last. */
		expect_ok(ch_of(NVME_TCP_H2C_DATA, hflag | dflag | LAST, 24, (uint8_t)(24 + h4),
				24u + h4 + 131072 + d4),
			  &cp, false);
		expect_ok(ch_of(NVME_TCP_H2C_DATA, hflag | dflag, 24, (uint8_t)(24 + h4),
				24u + h4 + 4096 + d4),
			  &cp, false);
		expect_ok(ch_of(NVME_TCP_H2C_DATA, hflag | dflag | LAST, 24, (uint8_t)(24 + h4),
				24u + h4 + 1 + d4),
			  &cp, false);
	}
}

/* nvmet-tcp: ICResp flags 0 PDO 0; CapsuleResp and R2T PDO 0 PLEN header + digest, HDGSTF
 * only; C2HData PDO header + digest, LAST, SUCCESS with SQ flow control off, DDGSTF. */
static void nvmet_tcp_pdus_pass_with_every_digest_setting(void)
{
	for (int d = 0; d < 4; d++) {
		bool hd = d & 1, dd = d & 2;
		struct nvme_tcp_conn_params cp = params(false, hd, dd);
		uint8_t hflag = hd ? HD : 0, dflag = dd ? DD : 0;
		uint8_t h4 = hd ? 4 : 0, d4 = dd ? 4 : 0;
		uint32_t fei;

		expect_ok(ch_of(NVME_TCP_ICRESP, 0, 128, 0, 128), &cp, true);
		expect_ok(ch_of(NVME_TCP_RSP, hflag, 24, 0, 24u + h4), &cp, false);
		expect_ok(ch_of(NVME_TCP_R2T, hflag, 24, 0, 24u + h4), &cp, false);
		expect_ok(ch_of(NVME_TCP_C2H_DATA, hflag | dflag | LAST, 24, (uint8_t)(24 + h4),
				24u + h4 + 131072 + d4),
			  &cp, false);
		expect_ok(ch_of(NVME_TCP_C2H_DATA, hflag | dflag | LAST | SUCCESS, 24,
				(uint8_t)(24 + h4), 24u + h4 + 512 + d4),
			  &cp, false);

		struct nvme_tcp_ch c2h = ch_of(NVME_TCP_C2H_DATA, hflag | dflag | LAST, 24,
					       (uint8_t)(24 + h4), 24u + h4 + 512 + d4);
		CU_ASSERT_EQUAL(check(&c2h, &cp, false, &fei), NVME_TCP_FES_NONE);
		CU_ASSERT_EQUAL(nvme_tcp_data_len(&c2h, &cp), 512);
	}
}

/* ---- digest flags ---- */

static void header_digest_flag_must_match_negotiation_on_every_type_that_has_one(void)
{
	for (int side = 0; side < 2; side++) {
		for (int hd = 0; hd < 2; hd++) {
			struct nvme_tcp_conn_params cp = params(side == 0, hd, false);
			const uint8_t *types = side == 0 ? h2c_types : c2h_types;
			size_t n = side == 0 ? sizeof(h2c_types) : sizeof(c2h_types);

			for (size_t i = 0; i < n; i++) {
				if (!nvme_tcp_pdu_has_hdgst(types[i]))
					continue;
				struct nvme_tcp_ch ch = good_pdu(types[i], &cp);
				expect_ok(ch, &cp, false);
				ch.flags ^= HD;
				expect_bad(ch, &cp, false, FEI_FLAGS);
			}
		}
	}
}

static void data_digest_flag_must_match_negotiation_when_there_is_data(void)
{
	const struct {
		uint8_t type;
		bool ctrl;
	} t[] = {
		{ NVME_TCP_CMD, true },
		{ NVME_TCP_H2C_DATA, true },
		{ NVME_TCP_C2H_DATA, false },
	};

	for (size_t i = 0; i < 3; i++) {
		for (int dd = 0; dd < 2; dd++) {
			struct nvme_tcp_conn_params cp = params(t[i].ctrl, false, dd);
			struct nvme_tcp_ch ch = good_pdu(t[i].type, &cp);
			expect_ok(ch, &cp, false);
			ch.flags ^= DD;
			expect_bad(ch, &cp, false, FEI_FLAGS);
		}
	}
}

/* Without data there is no data digest: DDGSTF is not looked at (the kernel does not). */
static void data_digest_flag_is_not_checked_without_data(void)
{
	for (int dd = 0; dd < 2; dd++) {
		struct nvme_tcp_conn_params ctrl = params(true, false, dd);
		struct nvme_tcp_conn_params host = params(false, false, dd);

		expect_ok(ch_of(NVME_TCP_CMD, 0, 72, 0, 72), &ctrl, false);
		expect_ok(ch_of(NVME_TCP_CMD, DD, 72, 0, 72), &ctrl, false);
		expect_ok(ch_of(NVME_TCP_RSP, DD, 24, 0, 24), &host, false);
		expect_ok(ch_of(NVME_TCP_R2T, DD, 24, 0, 24), &host, false);
	}
}

/* C2HData SUCCESS only with LAST (TCP transport 1.0, C2HData flags); the kernel host too. */
static void c2h_success_without_last_is_invalid_flags(void)
{
	struct nvme_tcp_conn_params cp = params(false, true, true);

	expect_bad(ch_of(NVME_TCP_C2H_DATA, HD | DD | SUCCESS, 24, 28, 28 + 512 + 4), &cp, false,
		   FEI_FLAGS);
	expect_ok(ch_of(NVME_TCP_C2H_DATA, HD | DD | SUCCESS | LAST, 24, 28, 28 + 512 + 4), &cp,
		  false);
	expect_ok(ch_of(NVME_TCP_C2H_DATA, HD | DD | LAST, 24, 28, 28 + 512 + 4), &cp, false);
	expect_ok(ch_of(NVME_TCP_C2H_DATA, HD | DD, 24, 28, 28 + 512 + 4), &cp, false);
}

/* ---- PDO ---- */

static void pdo_of_capsule_resp_and_r2t_must_be_0(void)
{
	for (int hd = 0; hd < 2; hd++) {
		struct nvme_tcp_conn_params cp = params(false, hd, false);
		uint8_t f = hd ? HD : 0, end = hd ? 28 : 24;
		const uint8_t pdos[] = { 4, 24, 28, 255 };

		for (size_t i = 0; i < sizeof(pdos); i++) {
			expect_bad(ch_of(NVME_TCP_RSP, f, 24, pdos[i], end), &cp, false, FEI_PDO);
			expect_bad(ch_of(NVME_TCP_R2T, f, 24, pdos[i], end), &cp, false, FEI_PDO);
		}
	}
}

/* A CapsuleCmd without data: PDO 0 (Linux) or the header's end; nothing else. */
static void pdo_of_capsule_cmd_without_data_is_0_or_the_headers_end(void)
{
	for (int hd = 0; hd < 2; hd++) {
		struct nvme_tcp_conn_params cp = params(true, hd, true);
		uint8_t f = hd ? HD : 0, end = hd ? 76 : 72;

		expect_ok(ch_of(NVME_TCP_CMD, f, 72, 0, end), &cp, false);
		expect_ok(ch_of(NVME_TCP_CMD, f, 72, end, end), &cp, false);
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, 4, end), &cp, false, FEI_PDO);
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, (uint8_t)(end - 4), end), &cp, false,
			   FEI_PDO);
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, (uint8_t)(end + 4), end), &cp, false,
			   FEI_PDO);
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, 128, end), &cp, false, FEI_PDO);
	}
}

/* Data: PDO past the header and its digest (0 is no exception), a multiple of the
 * receiver's (rx_pda + 1) * 4. */
static void pdo_of_data_must_be_past_the_header_and_digest(void)
{
	const struct {
		uint8_t type;
		bool ctrl;
		uint8_t hlen;
	} t[] = {
		{ NVME_TCP_CMD, true, 72 },
		{ NVME_TCP_H2C_DATA, true, 24 },
		{ NVME_TCP_C2H_DATA, false, 24 },
	};

	for (size_t i = 0; i < 3; i++) {
		for (int hd = 0; hd < 2; hd++) {
			struct nvme_tcp_conn_params cp = params(t[i].ctrl, hd, false);
			uint8_t f =
				(uint8_t)((hd ? HD : 0) | (t[i].type == NVME_TCP_CMD ? 0 : LAST));
			uint8_t end = (uint8_t)(t[i].hlen + (hd ? 4 : 0));

			expect_ok(ch_of(t[i].type, f, t[i].hlen, end, end + 100u), &cp, false);
			expect_ok(ch_of(t[i].type, f, t[i].hlen, (uint8_t)(end + 4), end + 104u),
				  &cp, false);
			expect_bad(ch_of(t[i].type, f, t[i].hlen, 0, end + 100u), &cp, false,
				   FEI_PDO);
			expect_bad(ch_of(t[i].type, f, t[i].hlen, (uint8_t)(end - 4), end + 100u),
				   &cp, false, FEI_PDO);
			if (hd) /* the digest is not data */
				expect_bad(ch_of(t[i].type, f, t[i].hlen, t[i].hlen, end + 100u),
					   &cp, false, FEI_PDO);
			/* Not a multiple of 4 with PDA 0. */
			expect_bad(ch_of(t[i].type, f, t[i].hlen, (uint8_t)(end + 2), end + 100u),
				   &cp, false, FEI_PDO);
		}
	}
}

/* For every PDA 0..31: the PDO nvme_tcp_pdo gives passes; one dword further passes only
 * when still aligned (PDA 0); the header's end passes only when it is aligned. */
static void pdo_alignment_follows_every_pda_0_to_31(void)
{
	for (unsigned pda = 0; pda <= NVME_TCP_MAX_PDA; pda++) {
		for (int hd = 0; hd < 2; hd++) {
			struct nvme_tcp_conn_params cp = params(false, hd, true);
			cp.rx_pda = (uint8_t)pda;
			uint32_t align = (pda + 1) * 4, end = 24u + (hd ? 4 : 0);
			uint8_t pdo = nvme_tcp_pdo(24, hd, (uint8_t)pda);
			uint8_t f = (uint8_t)((hd ? HD : 0) | DD | LAST);

			expect_ok(ch_of(NVME_TCP_C2H_DATA, f, 24, pdo, pdo + 4096u + 4), &cp,
				  false);
			struct nvme_tcp_ch next = ch_of(NVME_TCP_C2H_DATA, f, 24,
							(uint8_t)(pdo + 4), pdo + 4u + 4096 + 4);
			if (align == 4)
				expect_ok(next, &cp, false);
			else
				expect_bad(next, &cp, false, FEI_PDO);
			struct nvme_tcp_ch at_end =
				ch_of(NVME_TCP_C2H_DATA, f, 24, (uint8_t)end, end + 4096u + 4);
			if (end % align == 0)
				expect_ok(at_end, &cp, false);
			else
				expect_bad(at_end, &cp, false, FEI_PDO);
		}
	}
}

/* HPDA/CPDA above 31 are not defined; such a receiver aligns to 128 like PDA 31. */
static void pda_above_31_aligns_like_31(void)
{
	const uint8_t pdas[] = { 32, 100, 255 };

	for (size_t i = 0; i < sizeof(pdas); i++) {
		struct nvme_tcp_conn_params cp = params(true, true, false);
		cp.rx_pda = pdas[i];
		expect_ok(ch_of(NVME_TCP_CMD, HD, 72, 128, 128 + 512), &cp, false);
		expect_bad(ch_of(NVME_TCP_CMD, HD, 72, 76, 76 + 512), &cp, false, FEI_PDO);
	}
}

/* ---- PLEN ---- */

static void plen_of_pdus_without_data_is_exactly_header_and_digest(void)
{
	for (int hd = 0; hd < 2; hd++) {
		struct nvme_tcp_conn_params ctrl = params(true, hd, false);
		struct nvme_tcp_conn_params host = params(false, hd, false);
		uint8_t f = hd ? HD : 0;
		uint32_t h4 = hd ? 4 : 0;

		expect_bad(ch_of(NVME_TCP_RSP, f, 24, 0, 24 + h4 + 1), &host, false, FEI_PLEN);
		expect_bad(ch_of(NVME_TCP_RSP, f, 24, 0, 24 + h4 - 1), &host, false, FEI_PLEN);
		expect_bad(ch_of(NVME_TCP_R2T, f, 24, 0, 24 + h4 + 4), &host, false, FEI_PLEN);
		expect_bad(ch_of(NVME_TCP_R2T, f, 24, 0, 0), &host, false, FEI_PLEN);
		expect_bad(ch_of(NVME_TCP_R2T, f, 24, 0, UINT32_MAX), &host, false, FEI_PLEN);
		/* A CapsuleCmd shorter than its header. */
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, 0, 72 + h4 - 1), &ctrl, false, FEI_PLEN);
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, 0, 8), &ctrl, false, FEI_PLEN);
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, 0, 0), &ctrl, false, FEI_PLEN);
		/* With data past the header but PDO 0: the PDO is what is wrong. */
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, 0, 72 + h4 + 512), &ctrl, false, FEI_PDO);
	}
}

/* Data PDUs carry at least one byte besides the data digest; PLEN may not end before PDO. */
static void plen_of_data_pdus_leaves_at_least_one_byte_of_data(void)
{
	for (int dd = 0; dd < 2; dd++) {
		struct nvme_tcp_conn_params cp = params(true, true, dd);
		uint8_t f = (uint8_t)(HD | (dd ? DD : 0));
		uint32_t d4 = dd ? 4 : 0;

		expect_ok(ch_of(NVME_TCP_H2C_DATA, f | LAST, 24, 28, 28 + 1 + d4), &cp, false);
		expect_bad(ch_of(NVME_TCP_H2C_DATA, f | LAST, 24, 28, 28 + d4), &cp, false,
			   FEI_PLEN);
		expect_bad(ch_of(NVME_TCP_H2C_DATA, f | LAST, 24, 28, 27), &cp, false, FEI_PLEN);
		expect_bad(ch_of(NVME_TCP_H2C_DATA, f | LAST, 24, 28, 0), &cp, false, FEI_PLEN);
		expect_ok(ch_of(NVME_TCP_CMD, f, 72, 76, 76 + 1 + d4), &cp, false);
		/* Only a data digest after the header: data of 0 bytes. (Without data
		 * digests the same PLEN is a CapsuleCmd without data.) */
		if (dd)
			expect_bad(ch_of(NVME_TCP_CMD, f, 72, 76, 80), &cp, false, FEI_PLEN);
		else
			expect_ok(ch_of(NVME_TCP_CMD, f, 72, 76, 76), &cp, false);
	}
}

/* PLEN near 2^32: no wrap-around makes a huge PDU look small, and a receiver that takes
 * that much gets the exact length. */
static void plen_near_2_to_the_32_does_not_wrap(void)
{
	struct nvme_tcp_conn_params cp = params(true, true, true);
	struct nvme_tcp_ch ch;
	uint32_t fei;

	const uint32_t plens[] = { UINT32_MAX, UINT32_MAX - 3, 0x80000000u, 0x80000000u + 28 + 4 };
	for (size_t i = 0; i < 4; i++) {
		ch = ch_of(NVME_TCP_H2C_DATA, HD | DD | LAST, 24, 28, plens[i]);
		expect_fes(ch, &cp, false, NVME_TCP_FES_R2T_LIMIT_EXCEEDED);
		ch = ch_of(NVME_TCP_CMD, HD | DD, 72, 76, plens[i]);
		expect_bad(ch, &cp, false, FEI_PLEN);
	}

	cp.rx_max_data = UINT32_MAX;
	ch = ch_of(NVME_TCP_H2C_DATA, HD | DD | LAST, 24, 28, UINT32_MAX);
	CU_ASSERT_EQUAL(check(&ch, &cp, false, &fei), NVME_TCP_FES_NONE);
	CU_ASSERT_EQUAL(nvme_tcp_data_len(&ch, &cp), UINT32_MAX - 28 - 4);
	/* The largest PDO with a data digest, and a PLEN one short of a byte of data. */
	cp.rx_pda = 0;
	expect_ok(ch_of(NVME_TCP_H2C_DATA, HD | DD | LAST, 24, 252, 252 + 1 + 4), &cp, false);
	expect_bad(ch_of(NVME_TCP_H2C_DATA, HD | DD | LAST, 24, 252, 252 + 4), &cp, false,
		   FEI_PLEN);
	expect_bad(ch_of(NVME_TCP_H2C_DATA, HD | DD | LAST, 24, 252, 255), &cp, false, FEI_PLEN);
}

/* ---- rx_max_data ---- */

/* Data up to rx_max_data passes; one byte more is Data Transfer Limit Exceeded (05h) for
 * H2CData/C2HData (MAXH2CDATA, or what the host takes) and a bad PLEN for a CapsuleCmd
 * (more in-capsule data than the controller's capsule holds). */
static void data_beyond_rx_max_data_is_limit_exceeded_or_bad_plen(void)
{
	for (int d = 0; d < 4; d++) {
		bool hd = d & 1, dd = d & 2;
		uint32_t h4 = hd ? 4 : 0, d4 = dd ? 4 : 0;
		uint8_t f = (uint8_t)((hd ? HD : 0) | (dd ? DD : 0));
		struct nvme_tcp_conn_params ctrl = params(true, hd, dd);
		struct nvme_tcp_conn_params host = params(false, hd, dd);
		ctrl.rx_max_data = host.rx_max_data = 8192;

		expect_ok(ch_of(NVME_TCP_H2C_DATA, f | LAST, 24, (uint8_t)(24 + h4),
				24 + h4 + 8192 + d4),
			  &ctrl, false);
		expect_fes(ch_of(NVME_TCP_H2C_DATA, f | LAST, 24, (uint8_t)(24 + h4),
				 24 + h4 + 8193 + d4),
			   &ctrl, false, NVME_TCP_FES_R2T_LIMIT_EXCEEDED);
		expect_ok(ch_of(NVME_TCP_C2H_DATA, f | LAST, 24, (uint8_t)(24 + h4),
				24 + h4 + 8192 + d4),
			  &host, false);
		expect_fes(ch_of(NVME_TCP_C2H_DATA, f | LAST, 24, (uint8_t)(24 + h4),
				 24 + h4 + 8193 + d4),
			   &host, false, NVME_TCP_FES_R2T_LIMIT_EXCEEDED);
		expect_ok(ch_of(NVME_TCP_CMD, f, 72, (uint8_t)(72 + h4), 72 + h4 + 8192 + d4),
			  &ctrl, false);
		expect_bad(ch_of(NVME_TCP_CMD, f, 72, (uint8_t)(72 + h4), 72 + h4 + 8193 + d4),
			   &ctrl, false, FEI_PLEN);
	}
	/* A receiver that takes no data at all. */
	struct nvme_tcp_conn_params none = params(true, false, false);
	none.rx_max_data = 0;
	expect_bad(ch_of(NVME_TCP_CMD, 0, 72, 72, 73), &none, false, FEI_PLEN);
	expect_ok(ch_of(NVME_TCP_CMD, 0, 72, 0, 72), &none, false);
}

/* Fields are checked in the order type, HLEN, flags, PDO, PLEN: the first wrong one is
 * what the FEI names. */
static void first_wrong_field_is_the_one_reported(void)
{
	struct nvme_tcp_conn_params cp = params(true, true, true);

	expect_bad(ch_of(NVME_TCP_RSP, 0, 0, 1, 0), &cp, false, FEI_TYPE);
	expect_bad(ch_of(NVME_TCP_CMD, 0, 0, 1, 0), &cp, false, FEI_HLEN);
	expect_bad(ch_of(NVME_TCP_CMD, 0, 72, 1, 0), &cp, false, FEI_FLAGS);
	expect_bad(ch_of(NVME_TCP_CMD, HD, 72, 1, 0), &cp, false, FEI_PDO);
	expect_bad(ch_of(NVME_TCP_H2C_DATA, HD, 24, 28, 28 + 4 + 4), &cp, false, FEI_FLAGS);
	expect_bad(ch_of(NVME_TCP_H2C_DATA, HD | DD, 24, 27, 0), &cp, false, FEI_PDO);
	expect_bad(ch_of(NVME_TCP_H2C_DATA, HD | DD, 24, 28, 0), &cp, false, FEI_PLEN);
}

/* ---- nvme_tcp_data_len ---- */

static void data_len_is_plen_less_pdo_and_data_digest(void)
{
	for (int d = 0; d < 4; d++) {
		bool hd = d & 1, dd = d & 2;
		uint32_t h4 = hd ? 4 : 0, d4 = dd ? 4 : 0;
		uint8_t f = (uint8_t)((hd ? HD : 0) | (dd ? DD : 0));
		struct nvme_tcp_conn_params cp = params(true, hd, dd);
		cp.rx_pda = 7; /* 32-byte alignment: padding after the header */
		uint8_t pdo = nvme_tcp_pdo(72, hd, 7);
		struct nvme_tcp_ch ch;
		uint32_t fei;

		CU_ASSERT_EQUAL(pdo, 96);
		ch = ch_of(NVME_TCP_CMD, f, 72, pdo, pdo + 4096 + d4);
		CU_ASSERT_EQUAL(check(&ch, &cp, false, &fei), NVME_TCP_FES_NONE);
		CU_ASSERT_EQUAL(nvme_tcp_data_len(&ch, &cp), 4096);
		ch = ch_of(NVME_TCP_H2C_DATA, f | LAST, 24, nvme_tcp_pdo(24, hd, 7), 32 + 1 + d4);
		CU_ASSERT_EQUAL(check(&ch, &cp, false, &fei), NVME_TCP_FES_NONE);
		CU_ASSERT_EQUAL(nvme_tcp_data_len(&ch, &cp), 1);
		/* Without data, whatever the PDO of the CapsuleCmd (the header digest is
		 * not data). */
		ch = ch_of(NVME_TCP_CMD, hd ? HD : 0, 72, 0, 72 + h4);
		CU_ASSERT_EQUAL(nvme_tcp_data_len(&ch, &cp), 0);
		ch = ch_of(NVME_TCP_CMD, hd ? HD : 0, 72, 72, 72 + h4);
		CU_ASSERT_EQUAL(nvme_tcp_data_len(&ch, &cp), 0);
		ch = ch_of(NVME_TCP_CMD, hd ? HD : 0, 72, (uint8_t)(72 + h4), 72 + h4);
		CU_ASSERT_EQUAL(nvme_tcp_data_len(&ch, &cp), 0);
	}
}

/* nvme_tcp_check_ch gives the data length with its answer: the bytes between PDO and the
 * data digest when accepted, 0 for a PDU without data and for a refused header. */
static void check_ch_gives_the_data_length(void)
{
	struct nvme_tcp_conn_params cp = params(true, true, true);
	struct nvme_tcp_ch ch = ch_of(NVME_TCP_CMD, HD | DD, 72, 76, 76 + 4096 + 4);
	uint32_t fei, dlen = 7;

	CU_ASSERT_EQUAL(nvme_tcp_check_ch(&ch, &cp, false, &fei, &dlen), NVME_TCP_FES_NONE);
	CU_ASSERT_EQUAL(dlen, 4096);
	ch = ch_of(NVME_TCP_CMD, HD, 72, 0, 76);
	dlen = 7;
	CU_ASSERT_EQUAL(nvme_tcp_check_ch(&ch, &cp, false, &fei, &dlen), NVME_TCP_FES_NONE);
	CU_ASSERT_EQUAL(dlen, 0);
	ch = ch_of(NVME_TCP_CMD, HD | DD, 71, 76, 76 + 4096 + 4);
	dlen = 7;
	CU_ASSERT_EQUAL(nvme_tcp_check_ch(&ch, &cp, false, &fei, &dlen),
			NVME_TCP_FES_INVALID_HEADER);
	CU_ASSERT_EQUAL(fei, 2);
	CU_ASSERT_EQUAL(dlen, 0);
}

static void data_len_of_types_without_data_is_0(void)
{
	struct nvme_tcp_conn_params cp = params(false, true, true);
	const struct nvme_tcp_ch chs[] = {
		ch_of(NVME_TCP_ICREQ, 0, 128, 0, 128),   ch_of(NVME_TCP_ICRESP, 0, 128, 0, 128),
		ch_of(NVME_TCP_H2C_TERM, 0, 24, 0, 152), ch_of(NVME_TCP_C2H_TERM, 0, 24, 24, 152),
		ch_of(NVME_TCP_RSP, HD, 24, 0, 28),      ch_of(NVME_TCP_R2T, HD, 24, 28, 4096),
	};

	for (size_t i = 0; i < sizeof(chs) / sizeof(chs[0]); i++)
		CU_ASSERT_EQUAL(nvme_tcp_data_len(&chs[i], &cp), 0);
}

/* ---- nvme_tcp_pdo ---- */

static void pdo_is_the_header_end_rounded_up_for_every_pda(void)
{
	const uint8_t hlens[] = { 24, 72 };

	for (size_t h = 0; h < 2; h++) {
		for (int hd = 0; hd < 2; hd++) {
			uint32_t end = hlens[h] + (hd ? 4u : 0u);
			for (unsigned pda = 0; pda <= NVME_TCP_MAX_PDA; pda++) {
				uint32_t align = (pda + 1) * 4;
				uint8_t pdo = nvme_tcp_pdo(hlens[h], hd, (uint8_t)pda);
				CU_ASSERT_EQUAL(pdo % align, 0);
				CU_ASSERT(pdo >= end);
				CU_ASSERT(pdo < end + align);
			}
		}
	}
	CU_ASSERT_EQUAL(nvme_tcp_pdo(24, false, 0), 24);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(24, true, 0), 28);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(72, false, 0), 72);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(72, true, 0), 76);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(24, true, 1), 32);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(24, false, 5), 24);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(72, true, 3), 80);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(24, false, 31), 128);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(72, true, 31), 128);
}

static void pdo_for_a_pda_above_31_is_that_of_31(void)
{
	const uint8_t pdas[] = { 32, 33, 63, 128, 255 };

	for (size_t i = 0; i < sizeof(pdas); i++) {
		CU_ASSERT_EQUAL(nvme_tcp_pdo(24, false, pdas[i]), 128);
		CU_ASSERT_EQUAL(nvme_tcp_pdo(72, true, pdas[i]), 128);
	}
}

static void pdo_past_255_is_0(void)
{
	CU_ASSERT_EQUAL(nvme_tcp_pdo(128, true, 31), 0);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(255, true, 0), 0);
	CU_ASSERT_EQUAL(nvme_tcp_pdo(252, false, 0), 252);
}

/* nvme_tcp_pdu_hdr: a C2HData with header and data digests for a receiver asking for
 * 32-byte alignment (PDA 7) passes the receiver's own checks, its digest is the header's,
 * its padding is zero; without data the PDU ends after the header digest. */
static void pdu_hdr_builds_what_the_receiver_accepts(void)
{
	uint8_t hdr[128];
	struct nvme_tcp_conn_params rx = {
		.hdgst = true, .ddgst = true, .rx_pda = 7, .rx_max_data = 4096, .rx_is_ctrl = false
	};
	struct nvme_tcp_data *d = (struct nvme_tcp_data *)hdr;
	uint32_t fei, dig;

	memset(hdr, 0xee, sizeof(hdr));
	memset(d, 0, sizeof(*d));
	d->datal = htole32(512);
	CU_ASSERT_EQUAL(nvme_tcp_pdu_hdr(hdr, NVME_TCP_C2H_DATA, NVME_TCP_F_DATA_LAST, true, true,
					 7, 512),
			32);
	CU_ASSERT_EQUAL(d->ch.pdo, 32);
	CU_ASSERT_EQUAL(le32toh(d->ch.plen), 32 + 512 + 4);
	CU_ASSERT_EQUAL(d->ch.flags, NVME_TCP_F_DATA_LAST | NVME_TCP_F_HDGST | NVME_TCP_F_DDGST);
	memcpy(&dig, hdr + 24, 4);
	CU_ASSERT_EQUAL(le32toh(dig), nvme_tcp_digest(hdr, 24));
	CU_ASSERT_EQUAL(hdr[28] | hdr[29] | hdr[30] | hdr[31], 0);
	CU_ASSERT_EQUAL(check(&d->ch, &rx, false, &fei), NVME_TCP_FES_NONE);
	CU_ASSERT_EQUAL(nvme_tcp_data_len(&d->ch, &rx), 512);

	/* No data: no PDO, no data digest flag, PLEN = header + digest. */
	memset(hdr, 0, sizeof(hdr));
	CU_ASSERT_EQUAL(nvme_tcp_pdu_hdr(hdr, NVME_TCP_RSP, 0, true, true, 7, 0), 28);
	CU_ASSERT_EQUAL(d->ch.pdo, 0);
	CU_ASSERT_EQUAL(le32toh(d->ch.plen), 28);
	CU_ASSERT_EQUAL(d->ch.flags, NVME_TCP_F_HDGST);
	CU_ASSERT_EQUAL(check(&d->ch, &rx, false, &fei), NVME_TCP_FES_NONE);
}

const struct unit_test nvme_tcp_tests[] = {
	{ "pdu_hdr_builds_what_the_receiver_accepts", pdu_hdr_builds_what_the_receiver_accepts },
	{ "crc32c_matches_rfc3720_b4_vectors", crc32c_matches_rfc3720_b4_vectors },
	{ "crc32c_of_123456789_is_e3069283", crc32c_of_123456789_is_e3069283 },
	{ "crc32c_of_nothing_is_zero", crc32c_of_nothing_is_zero },
	{ "crc32c_fed_in_pieces_equals_one_pass", crc32c_fed_in_pieces_equals_one_pass },
	{ "header_digest_of_capsule_resp_and_r2t_known_answers",
	  header_digest_of_capsule_resp_and_r2t_known_answers },
	{ "hlen_is_fixed_per_type_and_0_for_undefined_types",
	  hlen_is_fixed_per_type_and_0_for_undefined_types },
	{ "header_digest_only_on_capsule_data_and_r2t_pdus",
	  header_digest_only_on_capsule_data_and_r2t_pdus },
	{ "controller_takes_icreq_first_and_never_again",
	  controller_takes_icreq_first_and_never_again },
	{ "controller_takes_nothing_else_before_icreq",
	  controller_takes_nothing_else_before_icreq },
	{ "host_takes_icresp_or_c2hterm_first_and_icresp_never_again",
	  host_takes_icresp_or_c2hterm_first_and_icresp_never_again },
	{ "each_side_refuses_the_other_directions_types_as_invalid_type",
	  each_side_refuses_the_other_directions_types_as_invalid_type },
	{ "undefined_types_are_invalid_type_on_both_sides",
	  undefined_types_are_invalid_type_on_both_sides },
	{ "wrong_hlen_is_invalid_hlen_for_every_type", wrong_hlen_is_invalid_hlen_for_every_type },
	{ "icreq_and_icresp_take_no_digest_flag_pdo_or_other_plen",
	  icreq_and_icresp_take_no_digest_flag_pdo_or_other_plen },
	{ "termreq_plen_is_24_to_152_in_both_directions",
	  termreq_plen_is_24_to_152_in_both_directions },
	{ "linux_host_pdus_pass_with_every_digest_setting",
	  linux_host_pdus_pass_with_every_digest_setting },
	{ "nvmet_tcp_pdus_pass_with_every_digest_setting",
	  nvmet_tcp_pdus_pass_with_every_digest_setting },
	{ "header_digest_flag_must_match_negotiation_on_every_type_that_has_one",
	  header_digest_flag_must_match_negotiation_on_every_type_that_has_one },
	{ "data_digest_flag_must_match_negotiation_when_there_is_data",
	  data_digest_flag_must_match_negotiation_when_there_is_data },
	{ "data_digest_flag_is_not_checked_without_data",
	  data_digest_flag_is_not_checked_without_data },
	{ "c2h_success_without_last_is_invalid_flags", c2h_success_without_last_is_invalid_flags },
	{ "pdo_of_capsule_resp_and_r2t_must_be_0", pdo_of_capsule_resp_and_r2t_must_be_0 },
	{ "pdo_of_capsule_cmd_without_data_is_0_or_the_headers_end",
	  pdo_of_capsule_cmd_without_data_is_0_or_the_headers_end },
	{ "pdo_of_data_must_be_past_the_header_and_digest",
	  pdo_of_data_must_be_past_the_header_and_digest },
	{ "pdo_alignment_follows_every_pda_0_to_31", pdo_alignment_follows_every_pda_0_to_31 },
	{ "pda_above_31_aligns_like_31", pda_above_31_aligns_like_31 },
	{ "plen_of_pdus_without_data_is_exactly_header_and_digest",
	  plen_of_pdus_without_data_is_exactly_header_and_digest },
	{ "plen_of_data_pdus_leaves_at_least_one_byte_of_data",
	  plen_of_data_pdus_leaves_at_least_one_byte_of_data },
	{ "plen_near_2_to_the_32_does_not_wrap", plen_near_2_to_the_32_does_not_wrap },
	{ "data_beyond_rx_max_data_is_limit_exceeded_or_bad_plen",
	  data_beyond_rx_max_data_is_limit_exceeded_or_bad_plen },
	{ "first_wrong_field_is_the_one_reported", first_wrong_field_is_the_one_reported },
	{ "data_len_is_plen_less_pdo_and_data_digest", data_len_is_plen_less_pdo_and_data_digest },
	{ "check_ch_gives_the_data_length", check_ch_gives_the_data_length },
	{ "data_len_of_types_without_data_is_0", data_len_of_types_without_data_is_0 },
	{ "pdo_is_the_header_end_rounded_up_for_every_pda",
	  pdo_is_the_header_end_rounded_up_for_every_pda },
	{ "pdo_for_a_pda_above_31_is_that_of_31", pdo_for_a_pda_above_31_is_that_of_31 },
	{ "pdo_past_255_is_0", pdo_past_255_is_0 },
	{ NULL, NULL },
};
