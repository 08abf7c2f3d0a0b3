/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the discovery log (nvme/disc_log.h) at every offset and length, and
 * the initiator's reading of it (initiator/discovery.c).
 *
 * Input (tests/fuzz/fuzz_input.h fields): genctr, up to 8 records (every field, strings
 * longer than their fields), then up to 8 windows (offset, length) read from the built
 * log with nvmf_log_window and decoded with nvmf_disc_log_decode_header/_entry; then what
 * a fake discovery controller serves libnvmf's nvmf_read_discovery_log: the log, its
 * header's numrec possibly lying, a second generation after some reads, failing reads,
 * and the chunk size (MDTS) the host reads with.
 * Checked: a window holds the log's bytes and zeroes past its end; entries decode back
 * to the records (strings cut at their fields); the host gets exactly the records of a
 * consistent log, or an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "nvme/disc_log.h"
#include "tests/fuzz/fuzz_input.h"

#define MAX_RECS    8
#define MAX_WINDOWS 8

/* Records and the strings they point at. */
struct recs {
	struct nvmf_disc_rec r[MAX_RECS];
	char trsvcid[MAX_RECS][41], traddr[MAX_RECS][301], subnqn[MAX_RECS][301];
	size_t n;
};

static void read_recs(struct fuzz_in *in, struct recs *rs)
{
	rs->n = fi_u8(in) % (MAX_RECS + 1);
	for (size_t i = 0; i < rs->n; i++) {
		struct nvmf_disc_rec *r = &rs->r[i];
		r->trtype = fi_u8(in);
		r->adrfam = fi_u8(in);
		r->subtype = fi_u8(in);
		r->treq = fi_u8(in);
		r->portid = fi_u16(in);
		r->cntlid = fi_u16(in);
		r->asqsz = fi_u16(in);
		r->eflags = fi_u16(in);
		r->rdma_qptype = fi_u8(in);
		r->rdma_prtype = fi_u8(in);
		r->rdma_cms = fi_u8(in);
		r->rdma_pkey = fi_u16(in);
		r->trsvcid = fi_str(in, rs->trsvcid[i], 40);
		r->traddr = fi_str(in, rs->traddr[i], 300);
		r->subnqn = fi_u8(in) & 1 ? NULL : fi_str(in, rs->subnqn[i], 300);
	}
}

/* @s as its @field-byte field decodes: cut at the field, trailing spaces dropped. */
static void expect_str(const char *got, const char *s, size_t field)
{
	size_t n = s ? strnlen(s, field) : 0;
	while (n && s[n - 1] == ' ')
		n--;
	if (strlen(got) != n || memcmp(got, s ? s : "", n))
		abort();
}

static void expect_rec(const struct nvmf_disc_rec *got, const struct nvmf_disc_rec *r)
{
	bool rdma = r->trtype == NVMF_TRTYPE_RDMA;
	if (got->trtype != r->trtype || got->adrfam != r->adrfam || got->subtype != r->subtype ||
	    got->treq != r->treq || got->portid != r->portid || got->cntlid != r->cntlid ||
	    got->asqsz != r->asqsz || got->eflags != r->eflags ||
	    got->rdma_qptype != (rdma ? r->rdma_qptype : 0) ||
	    got->rdma_prtype != (rdma ? r->rdma_prtype : 0) ||
	    got->rdma_cms != (rdma ? r->rdma_cms : 0) ||
	    got->rdma_pkey != (rdma ? r->rdma_pkey : 0))
		abort();
	expect_str(got->trsvcid, r->trsvcid, NVMF_TRSVCID_SIZE);
	expect_str(got->traddr, r->traddr, NVMF_TRADDR_SIZE);
	expect_str(got->subnqn, r->subnqn, NVME_NQN_LENGTH);
}

/* One window of the log, checked byte for byte, and what decodes from it. */
static void window(struct fuzz_in *in, const uint8_t *log, size_t log_len)
{
	uint8_t sel = fi_u8(in);
	uint64_t offset = sel & 0x80 ? fi_u64(in) : fi_u16(in) % (log_len + 2048);
	uint32_t len = fi_u16(in) % (uint32_t)(log_len + 4096);
	if (sel & 0x40)
		len = (len + 3) & ~3u; /* dword multiples, as Get Log Page asks */
	uint8_t *dst = malloc(len ? len : 1);
	if (!dst)
		return;
	memset(dst, 0xee, len);
	size_t n = nvmf_log_window(dst, len, log, log_len, offset);
	size_t want = offset < log_len ? log_len - (size_t)offset : 0;
	if (want > len)
		want = len;
	if (n != want || memcmp(dst, log + (n ? offset : 0), n))
		abort();
	for (size_t i = n; i < len; i++)
		if (dst[i])
			abort();
	struct nvmf_disc_log_hdr h;
	if (nvmf_disc_log_decode_header(dst, len, &h) !=
	    (len < NVMF_DISC_LOG_HDR_FIELDS ? -EINVAL : 0))
		abort();
	/* Every whole entry-sized piece of the window decodes, wherever it starts. */
	for (size_t at = 0; at + NVMF_DISC_LOG_ENTRY_SIZE <= len;
	     at += NVMF_DISC_LOG_ENTRY_SIZE / 2) {
		struct nvmf_disc_rec r;
		struct nvmf_disc_strs s;
		nvmf_disc_log_decode_entry(dst + at, &r, &s);
		if (strlen(r.trsvcid) > NVMF_TRSVCID_SIZE || strlen(r.traddr) > NVMF_TRADDR_SIZE ||
		    strlen(r.subnqn) > NVME_NQN_LENGTH)
			abort();
	}
	free(dst);
}

/* ---- a fake discovery controller for libnvmf ---- */

struct fake {
	const uint8_t *img[2]; /* the log of each generation */
	size_t len[2];
	unsigned reads, next_gen_at; /* from read next_gen_at on, generation 1 is served */
	uint32_t fail_mask;          /* read k fails when bit k is set */
	struct nvme_cqe cqes[NVMFH_ADMIN_QUEUE_SIZE];
	unsigned ncqes;
};

static int fake_submit(struct nvmf_hq *hq, struct nvmf_hcmd *cmd)
{
	struct fake *f = hq->tpriv;
	if (f->ncqes == NVMFH_ADMIN_QUEUE_SIZE)
		return -EAGAIN;
	const struct nvme_sqe *s = &cmd->sqe;
	struct nvme_cqe *cqe = &f->cqes[f->ncqes++];
	memset(cqe, 0, sizeof(*cqe));
	cqe->command_id = s->command_id;
	uint32_t cdw10 = le32toh(s->cdw10);
	uint64_t numd = ((cdw10 >> 16) | (uint64_t)(le32toh(s->cdw11) & 0xffff) << 16) + 1;
	uint64_t lpo = le32toh(s->cdw12) | (uint64_t)le32toh(s->cdw13) << 32;
	if (s->opcode != nvme_admin_get_log_page || (cdw10 & 0xff) != NVME_LOG_LID_DISCOVER ||
	    cmd->write || numd * 4 != cmd->len || (lpo & 3))
		abort(); /* libnvmf asked for something else than it reads */
	unsigned k = f->reads++;
	unsigned gen = k >= f->next_gen_at;
	uint16_t st = 0;
	if (k < 32 && (f->fail_mask >> k & 1))
		st = NVME_SC_INTERNAL;
	else if (lpo > f->len[gen])
		st = NVME_SC_INVALID_FIELD | NVME_SC_DNR; /* as the target answers */
	else
		nvmf_log_window(cmd->buf, cmd->len, f->img[gen], f->len[gen], lpo);
	cqe->status = htole16((uint16_t)(st << 1));
	return 0;
}

static int fake_poll(struct nvmf_hq *hq, unsigned max)
{
	struct fake *f = hq->tpriv;
	(void)max;
	unsigned n = f->ncqes;
	f->ncqes = 0;
	for (unsigned i = 0; i < n; i++)
		nvmf_hq_complete(hq, &f->cqes[i]);
	return (int)n;
}

static int fake_wait(struct nvmf_hq *hq, int timeout_ms)
{
	(void)hq;
	(void)timeout_ms;
	return 0;
}

static const struct nvmf_host_transport fake_transport = {
	.name = "fuzz",
	.submit = fake_submit,
	.poll = fake_poll,
	.wait = fake_wait,
};

/* The numrec a lying header claims, from @sel; the truth when @sel says so. */
static uint64_t numrec_claim(struct fuzz_in *in, uint64_t truth)
{
	switch (fi_u8(in) % 6) {
	case 0:
		return truth;
	case 1:
		return truth + 1 + fi_u8(in) % 4;
	case 2:
		return truth ? truth - 1 : 0;
	case 3:
		return 16385; /* one more than libnvmf takes */
	case 4:
		return UINT64_MAX;
	default:
		return fi_u8(in) % 64;
	}
}

static void host_reads(struct fuzz_in *in, const struct recs *rs, uint8_t *log, size_t log_len,
		       uint64_t genctr)
{
	struct recs second;
	read_recs(in, &second);
	size_t len2 = nvmf_disc_log_size(second.n);
	uint8_t *log2 = malloc(len2);
	if (!log2)
		return;
	nvmf_disc_log_build(log2, genctr + 1 + fi_u8(in) % 2, second.r, second.n);
	uint64_t claim = numrec_claim(in, rs->n);
	uint64_t claim_le = htole64(claim);
	memcpy(log + 8, &claim_le, 8);
	struct fake f = { .img = { log, log2 }, .len = { log_len, len2 } };
	f.next_gen_at = fi_u8(in);
	f.fail_mask = fi_u8(in) & 1 ? fi_u32(in) : 0;
	static const uint32_t xfers[] = { 0, 4096, 1024, 2048, 8192, 65536, 4, 1028 };

	struct nvmf_ctrl *c = calloc(1, sizeof(*c));
	if (!c) {
		free(log2);
		return;
	}
	c->t = &fake_transport;
	c->discovery = true;
	c->max_xfer = xfers[fi_u8(in) % 8];
	pthread_mutex_init(&c->admin_lock, NULL);
	pthread_mutex_init(&c->err_lock, NULL);
	if (nvmfh_queue_setup(&c->admin, c, 0, NVMFH_ADMIN_QUEUE_SIZE) == 0) {
		c->admin.hq.tpriv = &f;
		struct nvmf_disc_entry *e = NULL;
		size_t n = 99;
		uint64_t gen = 0;
		int rc = nvmf_read_discovery_log(c, &e, &n, &gen);
		if (rc) {
			/* -errno or the NVMe status of a failed read (initiator/nvmf.h). */
			if (e || n)
				abort();
		} else {
			/* The host took a log whose header read the same before and after
			 * the entries: what it returns has that many entries. */
			if (!e || n > 16384)
				abort();
			if (f.next_gen_at >= f.reads && claim == rs->n) {
				if (n != rs->n || gen != genctr)
					abort();
				for (size_t i = 0; i < n; i++) {
					if (e[i].trtype != rs->r[i].trtype ||
					    e[i].portid != rs->r[i].portid)
						abort();
					expect_str(e[i].subnqn, rs->r[i].subnqn, NVME_NQN_LENGTH);
					expect_str(e[i].traddr, rs->r[i].traddr, NVMF_TRADDR_SIZE);
					expect_str(e[i].trsvcid, rs->r[i].trsvcid,
						   NVMF_TRSVCID_SIZE);
				}
			}
			free(e);
		}
		nvmfh_queue_release(&c->admin);
	}
	pthread_mutex_destroy(&c->admin_lock);
	pthread_mutex_destroy(&c->err_lock);
	free(c);
	free(log2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	static struct recs rs;
	memset(&rs, 0, sizeof(rs));
	uint64_t genctr = fi_u64(&in);
	read_recs(&in, &rs);
	size_t log_len = nvmf_disc_log_size(rs.n);
	uint8_t *log = malloc(log_len);
	if (!log)
		return 0;
	nvmf_disc_log_build(log, genctr, rs.r, rs.n);
	struct nvmf_disc_log_hdr h;
	if (nvmf_disc_log_decode_header(log, log_len, &h) || h.genctr != genctr ||
	    h.numrec != rs.n || h.recfmt != 0)
		abort();
	for (size_t i = 0; i < rs.n; i++) {
		struct nvmf_disc_rec got;
		struct nvmf_disc_strs s;
		nvmf_disc_log_decode_entry(
			log + NVMF_DISC_LOG_HDR_SIZE + i * NVMF_DISC_LOG_ENTRY_SIZE, &got, &s);
		expect_rec(&got, &rs.r[i]);
	}
	/* The same records hash the same, whatever the input left in unused bytes. */
	if (nvmf_disc_log_hash(rs.r, rs.n) != nvmf_disc_log_hash(rs.r, rs.n))
		abort();
	unsigned nwin = fi_u8(&in) % (MAX_WINDOWS + 1);
	for (unsigned i = 0; i < nwin; i++)
		window(&in, log, log_len);
	host_reads(&in, &rs, log, log_len, genctr);
	free(log);
	return 0;
}
