/* Discovery log page layout, reading it back, windows into it, and the content hash
 * behind genctr. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/disc_log.h"
#include "tests/unit/suites.h"

static const char *const nqns[5] = {
	"nqn.2024-01.io.example:disk0", "nqn.2024-01.io.example:disk1",
	"nqn.2024-01.io.example:disk2", "nqn.2024-01.io.example:disk3",
	"nqn.2024-01.io.example:disk4",
};

static struct nvmf_disc_rec rec(size_t i)
{
	struct nvmf_disc_rec r = {
		.trtype = NVMF_TRTYPE_RDMA,
		.adrfam = NVMF_ADDR_FAMILY_IP4,
		.subtype = NVME_NQN_NVME,
		.treq = NVMF_TREQ_NOT_SPECIFIED,
		.portid = (uint16_t)(i + 1),
		.cntlid = 0xffff,
		.asqsz = 32,
		.trsvcid = "4420",
		.traddr = "10.0.0.1",
		.subnqn = nqns[i % 5],
		.rdma_qptype = NVMF_RDMA_QPTYPE_CONNECTED,
		.rdma_prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED,
		.rdma_cms = NVMF_RDMA_CMS_RDMA_CM,
		.rdma_pkey = 0,
	};
	return r;
}

static uint8_t *build(size_t n, uint64_t genctr, size_t *len)
{
	struct nvmf_disc_rec recs[5];

	for (size_t i = 0; i < n; i++)
		recs[i] = rec(i);
	*len = nvmf_disc_log_size(n);
	uint8_t *buf = malloc(*len);
	memset(buf, 0xa5, *len); /* garbage the builder must overwrite */
	nvmf_disc_log_build(buf, genctr, recs, n);
	return buf;
}

static uint64_t le64_at(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void entry_field_offsets_match_wire_contract(void)
{
	CU_ASSERT_EQUAL(offsetof(struct nvmf_disc_log_entry, portid), 4);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_disc_log_entry, cntlid), 6);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_disc_log_entry, asqsz), 8);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_disc_log_entry, eflags), 10);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_disc_log_entry, trsvcid), 32);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_disc_log_entry, subnqn), 256);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_disc_log_entry, traddr), 512);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_disc_log_entry, tsas), 768);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_discovery_log, recfmt), 16);
	CU_ASSERT_EQUAL(offsetof(struct nvmf_discovery_log, entries), 1024);
}

static void log_size_is_header_plus_1024_per_entry(void)
{
	CU_ASSERT_EQUAL(nvmf_disc_log_size(0), 1024);
	CU_ASSERT_EQUAL(nvmf_disc_log_size(1), 2048);
	CU_ASSERT_EQUAL(nvmf_disc_log_size(5), 6144);
	CU_ASSERT_EQUAL(nvmf_disc_log_size(SIZE_MAX / 2), SIZE_MAX);
}

static void empty_log_has_header_only_with_genctr_and_zero_numrec(void)
{
	size_t len;
	uint8_t *b = build(0, 0x0102030405060708ull, &len);

	CU_ASSERT_EQUAL(len, 1024);
	CU_ASSERT_EQUAL(le64_at(b), 0x0102030405060708ull);
	CU_ASSERT_EQUAL(b[0], 0x08); /* little endian on the wire */
	CU_ASSERT_EQUAL(le64_at(b + 8), 0);
	CU_ASSERT_TRUE(all_zero(b + 16, 1024 - 16)); /* recfmt 0 and reserved */
	free(b);
}

static void one_entry_has_every_field_at_its_wire_offset(void)
{
	size_t len;
	uint8_t *b = build(1, 7, &len);
	const uint8_t *e = b + 1024;

	CU_ASSERT_EQUAL(len, 2048);
	CU_ASSERT_EQUAL(le64_at(b + 8), 1);
	CU_ASSERT_EQUAL(e[0], 1); /* trtype RDMA */
	CU_ASSERT_EQUAL(e[1], 1); /* adrfam IPv4 */
	CU_ASSERT_EQUAL(e[2], 2); /* subtype NVMe subsystem */
	CU_ASSERT_EQUAL(e[3], 0); /* treq */
	CU_ASSERT_EQUAL(e[4], 1); /* portid 1, le16 */
	CU_ASSERT_EQUAL(e[5], 0);
	CU_ASSERT_EQUAL(e[6], 0xff); /* cntlid 0xffff */
	CU_ASSERT_EQUAL(e[7], 0xff);
	CU_ASSERT_EQUAL(e[8], 32); /* asqsz */
	CU_ASSERT_EQUAL(e[9], 0);
	CU_ASSERT_TRUE(all_zero(e + 10, 22));          /* eflags, reserved */
	CU_ASSERT_EQUAL(memcmp(e + 32, "4420", 5), 0); /* NUL after: nvmet pads with NULs */
	CU_ASSERT_TRUE(all_zero(e + 36, 256 - 36));    /* rest of trsvcid, reserved */
	CU_ASSERT_STRING_EQUAL((const char *)e + 256, nqns[0]);
	CU_ASSERT_TRUE(all_zero(e + 256 + strlen(nqns[0]), 256 - strlen(nqns[0])));
	CU_ASSERT_STRING_EQUAL((const char *)e + 512, "10.0.0.1");
	CU_ASSERT_TRUE(all_zero(e + 512 + 8, 256 - 8));
	CU_ASSERT_EQUAL(e[768], 1);                    /* qptype connected */
	CU_ASSERT_EQUAL(e[769], 1);                    /* prtype not specified */
	CU_ASSERT_EQUAL(e[770], 1);                    /* cms RDMA_CM */
	CU_ASSERT_TRUE(all_zero(e + 771, 1024 - 771)); /* pkey 0, reserved */
	free(b);
}

static void pkey_is_little_endian_at_tsas_plus_8(void)
{
	struct nvmf_disc_rec r = rec(0);
	uint8_t b[2048];

	r.rdma_pkey = 0x8001;
	nvmf_disc_log_build(b, 0, &r, 1);
	CU_ASSERT_EQUAL(b[1024 + 776], 0x01);
	CU_ASSERT_EQUAL(b[1024 + 777], 0x80);
}

static void non_rdma_entry_leaves_tsas_zero(void)
{
	struct nvmf_disc_rec r = rec(0);
	uint8_t b[2048];

	r.trtype = NVMF_TRTYPE_TCP;
	nvmf_disc_log_build(b, 0, &r, 1);
	CU_ASSERT_TRUE(all_zero(b + 1024 + 768, 256));
}

static void overlong_and_null_strings_are_cut_or_empty(void)
{
	struct nvmf_disc_rec r = rec(0);
	char longsvc[64];
	uint8_t b[2048];

	memset(longsvc, '9', sizeof(longsvc) - 1);
	longsvc[63] = '\0';
	r.trsvcid = longsvc;
	r.traddr = NULL;
	nvmf_disc_log_build(b, 0, &r, 1);
	CU_ASSERT_EQUAL(memcmp(b + 1024 + 32, longsvc, 32), 0); /* filled to 32 bytes */
	CU_ASSERT_EQUAL(b[1024 + 64], 0);                       /* rsvd64 untouched */
	CU_ASSERT_TRUE(all_zero(b + 1024 + 512, 256));
}

static void five_entries_are_in_order_with_numrec_5(void)
{
	size_t len;
	uint8_t *b = build(5, 3, &len);

	CU_ASSERT_EQUAL(len, 6144);
	CU_ASSERT_EQUAL(le64_at(b + 8), 5);
	for (size_t i = 0; i < 5; i++) {
		const uint8_t *e = b + 1024 * (i + 1);
		CU_ASSERT_EQUAL(e[4], i + 1);
		CU_ASSERT_STRING_EQUAL((const char *)e + 256, nqns[i]);
	}
	free(b);
}

/* Read [off, off + n) of the 5-entry log through the window helper, compare with the
 * log itself, and check zeroes past the end. */
static void check_window(const uint8_t *log, size_t len, uint64_t off, uint32_t n)
{
	uint8_t *dst = malloc(n);
	size_t expect = off < len ? (len - off < n ? len - off : n) : 0;

	memset(dst, 0x5a, n);
	CU_ASSERT_EQUAL(nvmf_log_window(dst, n, log, len, off), expect);
	if (expect)
		CU_ASSERT_EQUAL(memcmp(dst, log + off, expect), 0);
	CU_ASSERT_TRUE(all_zero(dst + expect, n - expect));
	free(dst);
}

static void window_reads_of_6k_log_at_aligned_and_unaligned_offsets(void)
{
	size_t len;
	uint8_t *b = build(5, 9, &len);

	check_window(b, len, 0, 4096);    /* a 4 KiB first read: header + 3 entries */
	check_window(b, len, 1024, 1024); /* exactly entry 0 */
	check_window(b, len, 1000, 100);  /* unaligned, straddles header and entry 0 */
	check_window(b, len, 4096, 4096); /* second 4 KiB read: 2 KiB of log, then zeroes */
	check_window(b, len, 6000, 512);  /* partially past the end */
	check_window(b, len, 6144, 256);  /* exactly at the end: all zeroes */
	check_window(b, len, 0, 6144);    /* the whole log */
	free(b);
}

static void window_reports_bytes_copied(void)
{
	size_t len;
	uint8_t *b = build(5, 9, &len);
	uint8_t dst[4096];

	CU_ASSERT_EQUAL(nvmf_log_window(dst, 4096, b, len, 0), 4096);
	CU_ASSERT_EQUAL(nvmf_log_window(dst, 4096, b, len, 4096), 2048);
	CU_ASSERT_EQUAL(nvmf_log_window(dst, 512, b, len, 6000), 144);
	CU_ASSERT_EQUAL(nvmf_log_window(dst, 256, b, len, 6144), 0);
	CU_ASSERT_EQUAL(nvmf_log_window(dst, 256, b, len, 1ull << 40), 0);
	CU_ASSERT_EQUAL(nvmf_log_window(dst, 0, b, len, 0), 0);
	free(b);
}

static void window_of_short_read_returns_only_the_header_part(void)
{
	/* A host that first reads only the 16 bytes of genctr/numrec/recfmt. */
	size_t len;
	uint8_t *b = build(1, 0x42, &len);
	uint8_t dst[16];

	CU_ASSERT_EQUAL(nvmf_log_window(dst, sizeof(dst), b, len, 0), 16);
	CU_ASSERT_EQUAL(le64_at(dst), 0x42);
	CU_ASSERT_EQUAL(le64_at(dst + 8), 1);
	free(b);
}

static void hash_is_stable_for_equal_content(void)
{
	struct nvmf_disc_rec a[3] = { rec(0), rec(1), rec(2) };
	struct nvmf_disc_rec b[3] = { rec(0), rec(1), rec(2) };
	char nqn_copy[64];

	strcpy(nqn_copy, nqns[1]); /* same text, other pointer */
	b[1].subnqn = nqn_copy;
	CU_ASSERT_EQUAL(nvmf_disc_log_hash(a, 3), nvmf_disc_log_hash(b, 3));
}

static void hash_changes_when_any_entry_field_changes(void)
{
	struct nvmf_disc_rec base[2] = { rec(0), rec(1) };
	uint64_t h0 = nvmf_disc_log_hash(base, 2);
	struct nvmf_disc_rec m[2];

#define CHANGED(stmt)                                              \
	do {                                                       \
		memcpy(m, base, sizeof(m));                        \
		stmt;                                              \
		CU_ASSERT_NOT_EQUAL(nvmf_disc_log_hash(m, 2), h0); \
	} while (0)
	CHANGED(m[1].trtype = NVMF_TRTYPE_TCP);
	CHANGED(m[1].adrfam = NVMF_ADDR_FAMILY_IP6);
	CHANGED(m[0].subtype = NVME_NQN_DISC);
	CHANGED(m[0].treq = NVMF_TREQ_NOT_REQUIRED);
	CHANGED(m[0].portid = 99);
	CHANGED(m[0].cntlid = 1);
	CHANGED(m[0].asqsz = 31);
	CHANGED(m[0].eflags = 1);
	CHANGED(m[0].trsvcid = "4421");
	CHANGED(m[1].traddr = "10.0.0.2");
	CHANGED(m[1].subnqn = "nqn.2024-01.io.example:other");
	CHANGED(m[0].rdma_prtype = NVMF_RDMA_PRTYPE_ROCEV2);
	CHANGED(m[0].rdma_pkey = 0xffff);
#undef CHANGED
}

static void hash_depends_on_order_count_and_string_boundaries(void)
{
	struct nvmf_disc_rec ab[2] = { rec(0), rec(1) };
	struct nvmf_disc_rec ba[2] = { rec(1), rec(0) };
	struct nvmf_disc_rec x = rec(0), y = rec(0);

	CU_ASSERT_NOT_EQUAL(nvmf_disc_log_hash(ab, 2), nvmf_disc_log_hash(ba, 2));
	CU_ASSERT_NOT_EQUAL(nvmf_disc_log_hash(ab, 2), nvmf_disc_log_hash(ab, 1));
	CU_ASSERT_NOT_EQUAL(nvmf_disc_log_hash(ab, 0), nvmf_disc_log_hash(ab, 1));
	/* "4420" + "10.0.0.1" vs "44201" + "0.0.0.1": same bytes, other fields. */
	y.trsvcid = "44201";
	y.traddr = "0.0.0.1";
	x.traddr = "10.0.0.1";
	CU_ASSERT_NOT_EQUAL(nvmf_disc_log_hash(&x, 1), nvmf_disc_log_hash(&y, 1));
}

/* ---- decoding ---- */

static void rec_equal(const struct nvmf_disc_rec *a, const struct nvmf_disc_rec *b)
{
	CU_ASSERT_EQUAL(a->trtype, b->trtype);
	CU_ASSERT_EQUAL(a->adrfam, b->adrfam);
	CU_ASSERT_EQUAL(a->subtype, b->subtype);
	CU_ASSERT_EQUAL(a->treq, b->treq);
	CU_ASSERT_EQUAL(a->portid, b->portid);
	CU_ASSERT_EQUAL(a->cntlid, b->cntlid);
	CU_ASSERT_EQUAL(a->asqsz, b->asqsz);
	CU_ASSERT_EQUAL(a->eflags, b->eflags);
	CU_ASSERT_STRING_EQUAL(a->trsvcid, b->trsvcid);
	CU_ASSERT_STRING_EQUAL(a->traddr, b->traddr);
	CU_ASSERT_STRING_EQUAL(a->subnqn, b->subnqn);
	CU_ASSERT_EQUAL(a->rdma_qptype, b->rdma_qptype);
	CU_ASSERT_EQUAL(a->rdma_prtype, b->rdma_prtype);
	CU_ASSERT_EQUAL(a->rdma_cms, b->rdma_cms);
	CU_ASSERT_EQUAL(a->rdma_pkey, b->rdma_pkey);
}

static void built_log_decodes_back_to_its_header_and_records(void)
{
	struct nvmf_disc_rec recs[5];
	for (size_t i = 0; i < 5; i++)
		recs[i] = rec(i);
	recs[1].adrfam = NVMF_ADDR_FAMILY_IP6;
	recs[1].traddr = "fd77::1";
	recs[2].subtype = NVME_NQN_DISC;
	recs[2].treq = NVMF_TREQ_DISABLE_SQFLOW;
	recs[3].eflags = 0x0003;
	recs[3].rdma_pkey = 0xbeef;
	recs[4].cntlid = 0x1234;
	recs[4].trsvcid = "4421";
	size_t len = nvmf_disc_log_size(5);
	uint8_t *buf = malloc(len);
	nvmf_disc_log_build(buf, 0x0102030405060708ull, recs, 5);

	struct nvmf_disc_log_hdr h;
	CU_ASSERT_EQUAL(nvmf_disc_log_decode_header(buf, NVMF_DISC_LOG_HDR_SIZE, &h), 0);
	CU_ASSERT_EQUAL(h.genctr, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(h.numrec, 5);
	CU_ASSERT_EQUAL(h.recfmt, 0);
	for (size_t i = 0; i < 5; i++) {
		struct nvmf_disc_rec r;
		struct nvmf_disc_strs s;
		memset(&r, 0xee, sizeof(r));
		nvmf_disc_log_decode_entry(
			buf + NVMF_DISC_LOG_HDR_SIZE + i * NVMF_DISC_LOG_ENTRY_SIZE, &r, &s);
		rec_equal(&r, &recs[i]);
		CU_ASSERT_PTR_EQUAL(r.subnqn, s.subnqn); /* strings live in @strs */
	}
	free(buf);
}

static void header_shorter_than_its_fields_is_einval(void)
{
	uint8_t hdr[NVMF_DISC_LOG_HDR_SIZE];
	nvmf_disc_log_build(hdr, 7, NULL, 0);
	struct nvmf_disc_log_hdr h = { .genctr = 99, .numrec = 99, .recfmt = 99 };
	CU_ASSERT_EQUAL(nvmf_disc_log_decode_header(hdr, NVMF_DISC_LOG_HDR_FIELDS - 1, &h),
			-EINVAL);
	CU_ASSERT_EQUAL(h.genctr, 99); /* not written */
	CU_ASSERT_EQUAL(nvmf_disc_log_decode_header(hdr, NVMF_DISC_LOG_HDR_FIELDS, &h), 0);
	CU_ASSERT_EQUAL(h.genctr, 7);
	CU_ASSERT_EQUAL(h.numrec, 0);
}

static void space_padded_and_unterminated_fields_decode_to_c_strings(void)
{
	uint8_t raw[NVMF_DISC_LOG_ENTRY_SIZE + 1];
	struct nvmf_disc_log_entry e;
	memset(&e, 0, sizeof(e));
	e.trtype = NVMF_TRTYPE_RDMA;
	memset(e.trsvcid, ' ', sizeof(e.trsvcid)); /* SPDK: "4420" then spaces, no NUL */
	memcpy(e.trsvcid, "4420", 4);
	memset(e.traddr, 'a', sizeof(e.traddr)); /* all 256 bytes used, no NUL */
	memcpy(e.subnqn, "nqn.x  ", 7);          /* trailing spaces before the NUL */
	memcpy(raw + 1, &e, sizeof(e));          /* and not aligned */
	struct nvmf_disc_rec r;
	struct nvmf_disc_strs s;
	nvmf_disc_log_decode_entry(raw + 1, &r, &s);
	CU_ASSERT_STRING_EQUAL(r.trsvcid, "4420");
	CU_ASSERT_EQUAL(strlen(r.traddr), 256);
	CU_ASSERT_EQUAL(r.traddr[255], 'a');
	CU_ASSERT_STRING_EQUAL(r.subnqn, "nqn.x");
}

static void non_rdma_entry_decodes_with_rdma_fields_zero(void)
{
	struct nvmf_disc_log_entry e;
	memset(&e, 0, sizeof(e));
	e.trtype = NVMF_TRTYPE_TCP;
	memset(&e.tsas, 0xff, sizeof(e.tsas)); /* TCP's TSAS is not RDMA's */
	struct nvmf_disc_rec r;
	struct nvmf_disc_strs s;
	nvmf_disc_log_decode_entry(&e, &r, &s);
	CU_ASSERT_EQUAL(r.trtype, NVMF_TRTYPE_TCP);
	CU_ASSERT_EQUAL(r.rdma_qptype | r.rdma_prtype | r.rdma_cms, 0);
	CU_ASSERT_EQUAL(r.rdma_pkey, 0);
	CU_ASSERT_STRING_EQUAL(r.traddr, "");
}

const struct unit_test nvme_disc_log_tests[] = {
	{ "entry_field_offsets_match_wire_contract", entry_field_offsets_match_wire_contract },
	{ "log_size_is_header_plus_1024_per_entry", log_size_is_header_plus_1024_per_entry },
	{ "empty_log_has_header_only_with_genctr_and_zero_numrec",
	  empty_log_has_header_only_with_genctr_and_zero_numrec },
	{ "one_entry_has_every_field_at_its_wire_offset",
	  one_entry_has_every_field_at_its_wire_offset },
	{ "pkey_is_little_endian_at_tsas_plus_8", pkey_is_little_endian_at_tsas_plus_8 },
	{ "non_rdma_entry_leaves_tsas_zero", non_rdma_entry_leaves_tsas_zero },
	{ "overlong_and_null_strings_are_cut_or_empty",
	  overlong_and_null_strings_are_cut_or_empty },
	{ "five_entries_are_in_order_with_numrec_5", five_entries_are_in_order_with_numrec_5 },
	{ "window_reads_of_6k_log_at_aligned_and_unaligned_offsets",
	  window_reads_of_6k_log_at_aligned_and_unaligned_offsets },
	{ "window_reports_bytes_copied", window_reports_bytes_copied },
	{ "window_of_short_read_returns_only_the_header_part",
	  window_of_short_read_returns_only_the_header_part },
	{ "hash_is_stable_for_equal_content", hash_is_stable_for_equal_content },
	{ "hash_changes_when_any_entry_field_changes", hash_changes_when_any_entry_field_changes },
	{ "hash_depends_on_order_count_and_string_boundaries",
	  hash_depends_on_order_count_and_string_boundaries },
	{ "built_log_decodes_back_to_its_header_and_records",
	  built_log_decodes_back_to_its_header_and_records },
	{ "header_shorter_than_its_fields_is_einval", header_shorter_than_its_fields_is_einval },
	{ "space_padded_and_unterminated_fields_decode_to_c_strings",
	  space_padded_and_unterminated_fields_decode_to_c_strings },
	{ "non_rdma_entry_decodes_with_rdma_fields_zero",
	  non_rdma_entry_decodes_with_rdma_fields_zero },
	{ NULL, NULL },
};
