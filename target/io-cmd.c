/* SPDX-License-Identifier: MIT */
/*
 * The NVM command set on I/O queues (NVM Command Set 1.0 section 3.2; NVMe Base 2.0
 * section 7 for Flush): Read, Write, Compare, Write Zeroes, Dataset Management, Flush,
 * Verify and Copy (format 0h), turned into backend I/O on byte offsets (subsystem/backend.h).
 *
 * Parsing checks everything that can be checked from the SQE (namespace, LBA range,
 * transfer size, and what a reservation lets the host do: target/resv.h) so the handlers
 * only move data. The reservation commands are in the table too; target/resv-cmd.c has
 * them. Every handler ends in exactly one
 * nvmf_req_complete(). A backend whose ring is full refuses a submit with -EAGAIN; the
 * request then waits on its I/O context's retry list and nvmf_io_retry_pending() submits it again,
 * so a busy ring never fails a data command.
 *
 * All backend I/O of a request goes through req->bio, one operation at a time (a Write
 * with FUA is a WRITE then a FLUSH; Dataset Management one DISCARD per range), so a
 * retry only ever needs to resubmit req->bio.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/status.h"
#include "target/admin.h"
#include "target/ana.h"
#include "target/lba-lock.h"
#include "target/log.h"
#include "target/passthru.h"
#include "target/probes.h"
#include "target/resv.h"

/* Command Dword 12 of Read/Write/Compare/Write Zeroes (NVM Command Set 1.0 figures 36,
 * 41, 63): NLB bits 15:0 (0's based), the control field in bits 31:16 (libnvme's
 * NVME_IO_* flags are relative to bit 16). */
#define CDW12_NLB_MASK 0xffffu
#define CDW12_FUA      ((uint32_t)NVME_IO_FUA << 16)
#define CDW12_PRINFO                                                      \
	((uint32_t)(NVME_IO_PRINFO_PRCHK_REF | NVME_IO_PRINFO_PRCHK_APP | \
		    NVME_IO_PRINFO_PRCHK_GUARD | NVME_IO_PRINFO_PRACT)    \
	 << 16)
/* Dataset Management: NR in cdw10 bits 7:0 (0's based), attributes in cdw11. */
#define DSM_NR_MASK    0xffu
#define DSM_RANGE_SIZE sizeof(struct nvme_dsm_range) /* 16 bytes */

/* ---- backend submission and the retry list ---- */

static void retry_enqueue(struct nvmf_io_ctx *io, struct nvmf_req *req)
{
	req->retry_next = NULL;
	if (io->retry_tail)
		io->retry_tail->retry_next = req;
	else
		io->retry_head = req;
	io->retry_tail = req;
}

/*
 * Another error than a full ring (an I/O context that can no longer submit, or a backend
 * breaking its contract) is delivered through done, so callers see one path. The
 * backend_submit probe fires at every hand-over, here and at each retry.
 */
bool nvmf_req_bio_submit(struct nvmf_req *req, enum nvmf_bdev_op op, uint64_t offset, uint64_t len,
			 void *buf, nvmf_bdev_done_fn done)
{
	struct nvmf_bdev_io *bio = &req->bio;
	bio->op = op;
	bio->offset = offset;
	bio->len = len;
	bio->buf = buf;
	bio->done = done;
	bio->ctx = req;
	struct nvmf_io_ctx *io = &req->sq->pg->io;
	NVMF_PROBE_BACKEND_SUBMIT(req, req->ns->nsid, op, offset, len);
	int rc = nvmf_bdev_submit(req->ns->bdev, io->aio, bio);
	if (rc == -EAGAIN) {
		retry_enqueue(io, req);
		return false;
	}
	if (rc)
		done(bio, rc);
	return true;
}

void nvmf_io_retry_pending(struct nvmf_io_ctx *io)
{
	struct nvmf_req *list = io->retry_head, *old_tail = io->retry_tail;
	/* Detach first: a resubmitted request may complete inline and park a new one. */
	io->retry_head = io->retry_tail = NULL;
	while (list) {
		struct nvmf_req *req = list;
		list = req->retry_next;
		req->retry_next = NULL;
		NVMF_PROBE_BACKEND_SUBMIT(req, req->ns->nsid, req->bio.op, req->bio.offset,
					  req->bio.len);
		int rc = nvmf_bdev_submit(req->ns->bdev, io->aio, &req->bio);
		if (rc == -EAGAIN) {
			/* Still full: this one and the rest of the old list (which still ends
			 * at old_tail) go back in front of any parked meanwhile, order kept. */
			req->retry_next = list;
			old_tail->retry_next = io->retry_head;
			if (!io->retry_tail)
				io->retry_tail = old_tail;
			io->retry_head = req;
			return;
		}
		if (rc)
			req->bio.done(&req->bio, rc);
	}
}

/* Writes must be durable at completion when the host asked for FUA, or when it turned
 * the volatile write cache off (Set Features 06h) while the backend has one. */
static bool needs_flush(const struct nvmf_req *req)
{
	if (!req->ns->bdev->volatile_cache)
		return false;
	return (le32toh(req->cmd->cdw12) & CDW12_FUA) ||
	       !__atomic_load_n(&req->sq->ctrl->vwc_enabled, __ATOMIC_RELAXED);
}

/* SMART counters (NVMe Base 2.0 figure 207): commands, and data in 512 B units. */
static void count_io(struct nvmf_req *req)
{
	/* Into the queue's own counters: only its group writes them. */
	struct nvmf_io_stats *st = &req->sq->io_stats;
	switch (req->cmd->opcode) {
	case nvme_cmd_read:
	case nvme_cmd_compare:
		NVMF_PG_COUNT(st->host_reads, 1);
		NVMF_PG_COUNT(st->units_read, req->data_len >> 9);
		break;
	case nvme_cmd_write:
		NVMF_PG_COUNT(st->host_writes, 1);
		NVMF_PG_COUNT(st->units_written, req->data_len >> 9);
		break;
	default:
		break;
	}
}

/* ---- backend errors in the log ---- */

/* One line per namespace at most this often (the target's clock, ms); the errors in
 * between are counted and the next line says how many. */
#define IO_ERR_LOG_MS 10000

static const char *bdev_op_name(enum nvmf_bdev_op op)
{
	switch (op) {
	case NVMF_BDEV_READ:
		return "read";
	case NVMF_BDEV_WRITE:
		return "write";
	case NVMF_BDEV_FLUSH:
		return "flush";
	case NVMF_BDEV_WRITE_ZEROES:
		return "write zeroes";
	case NVMF_BDEV_DISCARD:
		return "deallocate";
	case NVMF_BDEV_NVME_CMD:
		return "passthru command";
	case NVMF_BDEV_COMPARE_AND_WRITE:
		return "compare and write";
	}
	return "operation";
}

/*
 * The backend failed @io of @req with @err (-errno), answered with @status: an error line
 * (component backend) naming the subsystem, the namespace, its backing and the errno,
 * since the host only sees the status and the operator only a counter. Rate limited per
 * namespace: the first error is logged, then at most one line per IO_ERR_LOG_MS, which
 * counts the errors not logged since the previous one. Any I/O group may get here at
 * once: the slot is taken with a compare-and-swap of ns->err_log_next_ms.
 */
static void log_backend_error(struct nvmf_req *req, const struct nvmf_bdev_io *io, int err,
			      nvme_status_t status)
{
	struct nvmf_ns *ns = req->ns;
	const struct nvmf_tgt *tgt = req->sq->tgt;
	uint64_t now = nvmf_clock_ms(&tgt->clock);
	uint64_t next = __atomic_load_n(&ns->err_log_next_ms, __ATOMIC_RELAXED);
	if (now < next ||
	    !__atomic_compare_exchange_n(&ns->err_log_next_ms, &next, now + IO_ERR_LOG_MS, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&ns->err_unlogged, 1, __ATOMIC_RELAXED);
		return;
	}
	uint64_t unlogged = __atomic_exchange_n(&ns->err_unlogged, 0, __ATOMIC_RELAXED);
	char more[96] = "", st[NVME_STATUS_STR_MAX];
	if (unlogged)
		snprintf(more, sizeof(more), " (and %llu more errors since the last line)",
			 (unsigned long long)unlogged);
	const struct nvmf_bdev *b = ns->bdev;
	nvmf_log_at(tgt, NVMF_LOGC_BACKEND, NVMF_LOG_ERROR,
		    "subsystem %s: namespace %u (%s %s): %s of %llu bytes at byte %llu failed: "
		    "%s (errno %d); the host gets %s%s",
		    req->sq->ctrl->subsys->cfg->nqn, ns->nsid, b->ops->name,
		    ns->real_path ? ns->real_path : "in memory", bdev_op_name(io->op),
		    (unsigned long long)io->len, (unsigned long long)io->offset, strerror(-err),
		    -err, nvme_status_format(status, false, st, sizeof(st)), more);
}

/* The status for @err of @io, after logging it. */
static nvme_status_t backend_error(struct nvmf_req *req, const struct nvmf_bdev_io *io, int err,
				   bool is_write)
{
	nvme_status_t status = nvme_status_from_errno(err, is_write);
	log_backend_error(req, io, err, status);
	return status;
}

/* ---- Read, Write, Write Zeroes, Flush ---- */

/* The backend finished a READ, WRITE, WRITE_ZEROES or FLUSH of the request. A write the
 * host wants durable goes on with a FLUSH, whose end comes back here. */
static void rw_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *req = io->ctx;
	NVMF_PROBE_BACKEND_COMPLETE(req, req->ns->nsid, io->op, err);
	bool is_write = io->op != NVMF_BDEV_READ;
	if (err) {
		nvmf_req_complete(req, backend_error(req, io, err, is_write));
		return;
	}
	if (is_write && io->op != NVMF_BDEV_FLUSH && needs_flush(req)) {
		nvmf_req_bio_submit(req, NVMF_BDEV_FLUSH, 0, 0, NULL, rw_done);
		return;
	}
	count_io(req);
	nvmf_req_complete(req, 0);
}

/* Read or Write: one backend READ or WRITE of the command's blocks (parse_rw set the
 * direction, the byte length and the starting LBA). */
static void execute_rw(struct nvmf_req *req)
{
	nvmf_req_bio_submit(req, req->dir == NVMF_XFER_C2H ? NVMF_BDEV_READ : NVMF_BDEV_WRITE,
			    req->slba << req->ns->lba_shift, req->data_len, req->data, rw_done);
}

static void execute_write_zeroes(struct nvmf_req *req)
{
	/* DEAC (cdw12 bit 25) may deallocate as well; the backend's WRITE_ZEROES already
	 * frees what it can (punch hole / unmap) and guarantees zeroes either way. */
	uint64_t nlb = (le32toh(req->cmd->cdw12) & CDW12_NLB_MASK) + 1ull;
	uint32_t shift = req->ns->lba_shift;
	nvmf_req_bio_submit(req, NVMF_BDEV_WRITE_ZEROES, req->slba << shift, nlb << shift, NULL,
			    rw_done);
}

/* ---- Compare (NVM Command Set 1.0 section 3.2.1) ---- */

static void compare_read_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *req = io->ctx;
	NVMF_PROBE_BACKEND_COMPLETE(req, req->ns->nsid, io->op, err);
	if (err) {
		nvmf_req_complete(req, backend_error(req, io, err, false));
		return;
	}
	if (memcmp(req->aux, req->data, req->data_len) != 0) {
		/* Compare Failure (media SCT, 85h): retrying yields the same answer. */
		nvmf_req_complete_dnr(req, nvme_status(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED));
		return;
	}
	count_io(req);
	nvmf_req_complete(req, 0);
}

static void execute_compare(struct nvmf_req *req)
{
	/* The stored data is read into a scratch buffer aligned for O_DIRECT backends;
	 * nvmf_req_complete() frees it. */
	size_t align = req->ns->bdev->block_size > 4096 ? req->ns->bdev->block_size : 4096;
	void *buf = NULL;
	if (posix_memalign(&buf, align, req->data_len) != 0) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	req->aux = buf;
	nvmf_req_bio_submit(req, NVMF_BDEV_READ, req->slba << req->ns->lba_shift, req->data_len,
			    buf, compare_read_done);
}

/* ---- Flush (NVMe Base 2.0 section 7.1) ---- */

static void execute_flush(struct nvmf_req *req)
{
	/* Without a volatile cache every completed write is already durable. */
	if (!req->ns->bdev->volatile_cache) {
		nvmf_req_complete(req, 0);
		return;
	}
	nvmf_req_bio_submit(req, NVMF_BDEV_FLUSH, 0, 0, NULL, rw_done);
}

/* ---- Dataset Management (NVM Command Set 1.0 section 3.2.3) ---- */

/* Progress of a deallocate over its ranges, kept in req->aux. */
struct dsm_state {
	uint32_t next;    /* index of the next range to submit */
	uint32_t nr;      /* ranges in req->data (1's based) */
	int err;          /* first backend error, 0 if none */
	bool submitting;  /* inside dsm_issue()'s submit: done() must not recurse */
	bool done_inline; /* done() ran during that submit */
};

static void dsm_issue(struct nvmf_req *req);

/* Range @i of the command's data: copied out, since in-capsule data sits wherever the
 * host's SGL offset put it (no alignment for the 8-byte SLBA). */
static struct nvme_dsm_range dsm_range(const struct nvmf_req *req, uint32_t i)
{
	struct nvme_dsm_range r;
	memcpy(&r, (const uint8_t *)req->data + (size_t)i * DSM_RANGE_SIZE, sizeof(r));
	return r;
}

static void dsm_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *req = io->ctx;
	NVMF_PROBE_BACKEND_COMPLETE(req, req->ns->nsid, io->op, err);
	struct dsm_state *st = req->aux;
	if (err && !st->err) {
		st->err = err;
		log_backend_error(req, io, err, nvme_status_from_errno(err, true));
	}
	if (st->submitting) {
		st->done_inline = true; /* dsm_issue()'s loop goes on */
		return;
	}
	dsm_issue(req);
}

/* Submit ranges one after another until one completes asynchronously (its done()
 * continues), the ring is full (the retry resubmits, its done() continues), or all are
 * done. A loop rather than recursion, since a RAM backend completes inline. */
static void dsm_issue(struct nvmf_req *req)
{
	struct dsm_state *st = req->aux;
	uint32_t shift = req->ns->lba_shift;
	for (;;) {
		while (st->next < st->nr && le32toh(dsm_range(req, st->next).nlb) == 0)
			st->next++;
		if (st->err || st->next == st->nr) {
			/* Deallocate is not a write of user data: EIO maps to a write fault all
			 * the same, since data may now be partly deallocated. */
			nvmf_req_complete(req, nvme_status_from_errno(st->err, true));
			return;
		}
		struct nvme_dsm_range cur = dsm_range(req, st->next++);
		req->slba = le64toh(cur.slba);
		st->submitting = true;
		st->done_inline = false;
		bool submitted = nvmf_req_bio_submit(req, NVMF_BDEV_DISCARD, req->slba << shift,
						     (uint64_t)le32toh(cur.nlb) << shift, NULL,
						     dsm_done);
		st->submitting = false;
		if (!submitted || !st->done_inline)
			return;
	}
}

/* Range of blocks [slba, slba + nlb) must lie inside the namespace; written without
 * slba + nlb so a huge SLBA cannot wrap around. */
static bool lba_range_ok(const struct nvmf_ns *ns, uint64_t slba, uint64_t nlb)
{
	uint64_t size = nvmf_ns_nlb(ns);
	return slba < size && nlb <= size - slba;
}

static void execute_dsm(struct nvmf_req *req)
{
	/* Only Attribute - Deallocate does anything; IDR/IDW are hints we may ignore. */
	if (!(le32toh(req->cmd->cdw11) & NVME_DSMGMT_AD)) {
		nvmf_req_complete(req, 0);
		return;
	}
	uint32_t nr = req->data_len / DSM_RANGE_SIZE;
	/* Check every range first: an out-of-range entry deallocates nothing at all. */
	for (uint32_t i = 0; i < nr; i++) {
		struct nvme_dsm_range r = dsm_range(req, i);
		uint64_t slba = le64toh(r.slba), nlb = le32toh(r.nlb);
		if (nlb && !lba_range_ok(req->ns, slba, nlb)) {
			req->slba = slba;
			nvmf_req_complete_dnr(req, nvme_generic(NVME_SC_LBA_RANGE));
			return;
		}
	}
	struct dsm_state *st = calloc(1, sizeof(*st));
	if (!st) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	st->nr = nr;
	req->aux = st;
	dsm_issue(req);
}

/* ---- Verify and Copy (NVM Command Set 1.0 sections 3.2.5 and 3.2.2), composed from
 * the backends' READ and WRITE ---- */

/* Copy's Command Dword 12 (NVM Command Set 1.0 section 3.2.2, as libnvme's nvme_copy()
 * encodes it): NR bits 7:0 (0's based), DF 11:8, PRINFOR 15:12, STCW 24, PRINFOW 29:26,
 * FUA 30 (Write's bit, so needs_flush() reads it too). */
#define COPY_NR_MASK       0xffu
#define COPY_DF_SHIFT      8
#define COPY_DF_MASK       0xfu
#define COPY_PRINFOR       (0xfu << 12)
#define COPY_STCW          (1u << 24)
#define COPY_PRINFOW       (0xfu << 26)
#define COPY_RANGE_SIZE    sizeof(struct nvme_copy_range) /* format 0h: 32 bytes */
/* Ranges per Copy we take (MSRC + 1): enough for any host, bounded scratch. */
#define COPY_MAX_RANGES    128u
/* The target buffer of a Copy or Verify without MDTS, and at most: 2^n units of 4 KiB. */
#define XFER_NO_MDTS_SHIFT 8
#define XFER_MAX_SHIFT     14

bool nvmf_mdts_exceeded(const struct nvmf_tgt_ctrl *ctrl, uint64_t len)
{
	return ctrl->mdts && ctrl->mdts < 32 && len > (1ull << (ctrl->mdts + NVMF_MDTS_UNIT_SHIFT));
}

uint32_t nvmf_io_buf_shift(const struct nvmf_tgt_ctrl *ctrl)
{
	if (!ctrl->mdts)
		return XFER_NO_MDTS_SHIFT;
	return ctrl->mdts < XFER_MAX_SHIFT ? ctrl->mdts : XFER_MAX_SHIFT;
}

void nvmf_copy_limits(const struct nvmf_tgt_ctrl *ctrl, const struct nvmf_ns *ns,
		      struct nvmf_copy_limits *lim)
{
	uint64_t blocks = (1ull << (nvmf_io_buf_shift(ctrl) + NVMF_MDTS_UNIT_SHIFT)) >>
			  ns->lba_shift;
	lim->mcl = (uint32_t)blocks;
	lim->mssrl = (uint16_t)(blocks < 0xffff ? blocks : 0xffff);
	lim->msrc = COPY_MAX_RANGES - 1;
}

/* Verify: the blocks are read into a scratch buffer and dropped; a read that fails is
 * the command's status. */
static void verify_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *req = io->ctx;
	NVMF_PROBE_BACKEND_COMPLETE(req, req->ns->nsid, io->op, err);
	nvmf_req_complete(req, err ? backend_error(req, io, err, false) : 0);
}

static void execute_verify(struct nvmf_req *req)
{
	uint64_t len = ((le32toh(req->cmd->cdw12) & CDW12_NLB_MASK) + 1ull) << req->ns->lba_shift;
	size_t align = req->ns->bdev->block_size > 4096 ? req->ns->bdev->block_size : 4096;
	void *buf = NULL;
	if (posix_memalign(&buf, align, len) != 0) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	req->aux = buf; /* nvmf_req_complete() frees it */
	nvmf_req_bio_submit(req, NVMF_BDEV_READ, req->slba << req->ns->lba_shift, len, buf,
			    verify_done);
}

/* Progress of a Copy, at the start of the one block req->aux holds; the data buffer
 * follows, aligned for O_DIRECT backends. */
struct copy_state {
	uint8_t *buf;     /* every source's blocks, in range order */
	uint64_t len;     /* bytes in buf: the sum of the ranges */
	uint64_t off;     /* bytes read so far */
	uint32_t next;    /* next source range to read */
	uint32_t nr;      /* source ranges (1's based) */
	nvme_status_t st; /* the first read error's status, 0 if none */
	bool submitting;  /* inside copy_issue()'s submit: done() must not recurse */
	bool done_inline; /* done() ran during that submit */
};

static void copy_issue(struct nvmf_req *req);

/* Source range @i of the command's data, copied out as dsm_range() does. */
static struct nvme_copy_range copy_range(const struct nvmf_req *req, uint32_t i)
{
	struct nvme_copy_range r;
	memcpy(&r, (const uint8_t *)req->data + (size_t)i * COPY_RANGE_SIZE, sizeof(r));
	return r;
}

static void copy_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *req = io->ctx;
	NVMF_PROBE_BACKEND_COMPLETE(req, req->ns->nsid, io->op, err);
	struct copy_state *st = req->aux;
	if (io->op != NVMF_BDEV_READ) {
		/* The WRITE at SDLBA, or the FLUSH after it. */
		if (err) {
			nvmf_req_complete(req, backend_error(req, io, err, true));
			return;
		}
		if (io->op == NVMF_BDEV_WRITE && needs_flush(req)) {
			nvmf_req_bio_submit(req, NVMF_BDEV_FLUSH, 0, 0, NULL, copy_done);
			return;
		}
		nvmf_req_complete(req, 0);
		return;
	}
	if (err && !st->st)
		st->st = backend_error(req, io, err, false);
	if (st->submitting) {
		st->done_inline = true; /* copy_issue()'s loop goes on */
		return;
	}
	copy_issue(req);
}

/* Read the sources one after another into the buffer (a loop, as dsm_issue, since RAM
 * completes inline), then write it all at SDLBA: reading everything first makes a
 * destination that overlaps a source get the sources' old blocks. Nothing is written
 * after a failed read. CQE Dword 0 stays 0: on any failure no source range was copied. */
static void copy_issue(struct nvmf_req *req)
{
	struct copy_state *st = req->aux;
	uint32_t shift = req->ns->lba_shift;
	for (;;) {
		if (st->st) {
			nvmf_req_complete(req, st->st);
			return;
		}
		if (st->next == st->nr) {
			nvmf_req_bio_submit(req, NVMF_BDEV_WRITE, req->slba << shift, st->len,
					    st->buf, copy_done);
			return;
		}
		struct nvme_copy_range r = copy_range(req, st->next++);
		uint64_t len = (le16toh(r.nlb) + 1ull) << shift;
		uint64_t off = st->off;
		st->off += len;
		st->submitting = true;
		st->done_inline = false;
		bool submitted = nvmf_req_bio_submit(req, NVMF_BDEV_READ, le64toh(r.slba) << shift,
						     len, st->buf + off, copy_done);
		st->submitting = false;
		if (!submitted || !st->done_inline)
			return;
	}
}

/* Copy, once its descriptors are in: every range is checked before anything moves (a
 * bad one copies nothing), then one block holds the state and the sources' data. */
static void execute_copy(struct nvmf_req *req)
{
	struct nvmf_copy_limits lim;
	nvmf_copy_limits(req->sq->ctrl, req->ns, &lim);
	uint32_t nr = req->data_len / COPY_RANGE_SIZE;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < nr; i++) {
		struct nvme_copy_range r = copy_range(req, i);
		uint64_t nlb = le16toh(r.nlb) + 1ull;
		sum += nlb;
		/* MSSRL, MCL: Command Size Limit Exceeded (command specific 83h). */
		if (nlb > lim.mssrl || sum > lim.mcl) {
			nvmf_req_complete_dnr(req,
					      nvme_cmd_specific(NVME_SC_CMD_SIZE_LIMIT_EXCEEDED));
			return;
		}
		if (!lba_range_ok(req->ns, le64toh(r.slba), nlb)) {
			nvmf_req_complete_dnr(req, nvme_generic(NVME_SC_LBA_RANGE));
			return;
		}
	}
	if (!lba_range_ok(req->ns, req->slba, sum)) {
		nvmf_req_complete_dnr(req, nvme_generic(NVME_SC_LBA_RANGE));
		return;
	}
	size_t align = req->ns->bdev->block_size > 4096 ? req->ns->bdev->block_size : 4096;
	static_assert(sizeof(struct copy_state) <= 4096, "the state fits before the data");
	void *p = NULL;
	if (posix_memalign(&p, align, align + (sum << req->ns->lba_shift)) != 0) {
		nvmf_req_complete(req, nvme_generic(NVME_SC_INTERNAL));
		return;
	}
	struct copy_state *st = p;
	*st = (struct copy_state){ .buf = (uint8_t *)p + align,
				   .len = sum << req->ns->lba_shift,
				   .nr = nr };
	req->aux = p; /* nvmf_req_complete() frees it */
	copy_issue(req);
}

/* ---- parsing ---- */

/* Read, Write, Compare, Write Zeroes: SLBA (cdw10 low, cdw11 high), NLB, PRINFO (NVM
 * Command Set 1.0 figures 34-36). Write Zeroes moves no data and ends there. For the
 * others the data length from NLB, against MDTS; the direction is the opcode's data
 * transfer bits 1:0 (NVMe Base 2.0, Command Dword 0's opcode: 01b host to controller for
 * Write and Compare, 10b controller to host for Read); executed by execute_rw
 * (parse_compare puts its own). */
static nvme_status_t parse_rw(struct nvmf_req *req)
{
	const struct nvmf_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t cdw12 = le32toh(req->cmd->cdw12);
	uint64_t nlb = (cdw12 & CDW12_NLB_MASK) + 1ull;
	req->slba = (uint64_t)le32toh(req->cmd->cdw11) << 32 | le32toh(req->cmd->cdw10);
	/* No namespace is formatted with protection information: PRINFO must be 0. */
	if (cdw12 & CDW12_PRINFO)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (!lba_range_ok(req->ns, req->slba, nlb))
		return nvme_generic(NVME_SC_LBA_RANGE);
	if (req->cmd->opcode == nvme_cmd_write_zeroes) {
		req->dir = NVMF_XFER_NONE;
		req->data_len = 0;
		req->execute = execute_write_zeroes;
		return 0;
	}
	uint64_t len = nlb << req->ns->lba_shift;
	/* MDTS (NVMe Base 2.0 figure 275): "If a command is submitted that exceeds this
	 * transfer size, then the command is aborted with a status code of Invalid Field in
	 * Command." A length that does not fit data_len cannot be served either. */
	if (nvmf_mdts_exceeded(ctrl, len))
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (len > UINT32_MAX)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	req->dir = (req->cmd->opcode & 3) == 2 ? NVMF_XFER_C2H : NVMF_XFER_H2C;
	req->data_len = (uint32_t)len;
	req->execute = execute_rw;
	return 0;
}

static nvme_status_t parse_dsm(struct nvmf_req *req)
{
	uint32_t nr = (le32toh(req->cmd->cdw10) & DSM_NR_MASK) + 1;
	req->dir = NVMF_XFER_H2C;
	req->data_len = nr * (uint32_t)DSM_RANGE_SIZE;
	req->execute = execute_dsm;
	return 0;
}

static nvme_status_t parse_flush(struct nvmf_req *req)
{
	req->execute = execute_flush;
	return 0;
}

static nvme_status_t parse_compare(struct nvmf_req *req)
{
	nvme_status_t st = parse_rw(req);
	if (!st)
		req->execute = execute_compare;
	return st;
}

/* Verify: the Read checks (PRINFO, LBA range) and VSL in place of MDTS (too long:
 * Invalid Field, as a transfer over MDTS); no data moves. FUA is ignored: a buffered
 * backend cannot read past its page cache (docs/target.md). */
static nvme_status_t parse_verify(struct nvmf_req *req)
{
	uint32_t cdw12 = le32toh(req->cmd->cdw12);
	uint64_t nlb = (cdw12 & CDW12_NLB_MASK) + 1ull;
	req->slba = (uint64_t)le32toh(req->cmd->cdw11) << 32 | le32toh(req->cmd->cdw10);
	if (cdw12 & CDW12_PRINFO)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (!lba_range_ok(req->ns, req->slba, nlb))
		return nvme_generic(NVME_SC_LBA_RANGE);
	if (nlb << req->ns->lba_shift >
	    1ull << (nvmf_io_buf_shift(req->sq->ctrl) + NVMF_MDTS_UNIT_SHIFT))
		return nvme_generic(NVME_SC_INVALID_FIELD);
	req->dir = NVMF_XFER_NONE;
	req->data_len = 0;
	req->execute = execute_verify;
	return 0;
}

/* Copy: SDLBA in cdw10-11; descriptor format 0h only (OCFS bit 0), no protection
 * information, no storage tags; NR over MSRC is a size limit. The (NR + 1) descriptors
 * come from the host; execute_copy checks the ranges. */
static nvme_status_t parse_copy(struct nvmf_req *req)
{
	uint32_t cdw12 = le32toh(req->cmd->cdw12);
	uint32_t nr = (cdw12 & COPY_NR_MASK) + 1;
	req->slba = (uint64_t)le32toh(req->cmd->cdw11) << 32 | le32toh(req->cmd->cdw10);
	if ((cdw12 >> COPY_DF_SHIFT & COPY_DF_MASK) ||
	    (cdw12 & (COPY_PRINFOR | COPY_PRINFOW | COPY_STCW)))
		return nvme_generic(NVME_SC_INVALID_FIELD);
	if (nr > COPY_MAX_RANGES)
		return nvme_cmd_specific(NVME_SC_CMD_SIZE_LIMIT_EXCEEDED);
	req->dir = NVMF_XFER_H2C;
	req->data_len = nr * (uint32_t)COPY_RANGE_SIZE;
	req->execute = execute_copy;
	return 0;
}

/* The NVM command set as served, indexed by opcode (no parse: Invalid Opcode), so a
 * command finds its entry without a search; commands that may change what a namespace's
 * blocks read have LBCC in the Commands Supported and Effects log. */
#define IO_CMD(op, effects, parse, resv) [op] = { op, effects, parse, resv }
static const struct nvmf_cmd_def io_cmds[256] = {
	IO_CMD(nvme_cmd_flush, NVME_CMD_EFFECTS_CSUPP, parse_flush, false),
	IO_CMD(nvme_cmd_write, NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC, parse_rw, false),
	IO_CMD(nvme_cmd_read, NVME_CMD_EFFECTS_CSUPP, parse_rw, false),
	IO_CMD(nvme_cmd_compare, NVME_CMD_EFFECTS_CSUPP, parse_compare, false),
	IO_CMD(nvme_cmd_write_zeroes, NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC, parse_rw,
	       false),
	IO_CMD(nvme_cmd_dsm, NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC, parse_dsm, false),
	IO_CMD(nvme_cmd_verify, NVME_CMD_EFFECTS_CSUPP, parse_verify, false),
	IO_CMD(nvme_cmd_copy, NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC, parse_copy, false),
	/* Reservations (target/resv-cmd.c); Invalid Opcode where the namespace has none. */
	IO_CMD(nvme_cmd_resv_register, NVME_CMD_EFFECTS_CSUPP, nvmf_parse_resv_cmd, true),
	IO_CMD(nvme_cmd_resv_report, NVME_CMD_EFFECTS_CSUPP, nvmf_parse_resv_cmd, true),
	IO_CMD(nvme_cmd_resv_acquire, NVME_CMD_EFFECTS_CSUPP, nvmf_parse_resv_cmd, true),
	IO_CMD(nvme_cmd_resv_release, NVME_CMD_EFFECTS_CSUPP, nvmf_parse_resv_cmd, true),
};

void nvmf_io_cmd_effects(const struct nvmf_subsys *s, __le32 iocs[256])
{
	bool resv = nvmf_resv_subsys_enabled(s);
	for (size_t i = 0; i < 256; i++)
		if (io_cmds[i].parse && (resv || !io_cmds[i].resv))
			iocs[i] = htole32(io_cmds[i].effects);
}

nvme_status_t nvmf_parse_io_cmd(struct nvmf_req *req)
{
	/* I/O needs an enabled, ready controller (nvmet_check_ctrl_status). */
	if (!nvmf_tgt_ctrl_ready(req->sq->ctrl))
		return nvme_generic(NVME_SC_CMD_SEQ_ERROR);

	const struct nvmf_cmd_def *d = &io_cmds[req->cmd->opcode];
	/* A passthru subsystem takes what its drive supports (target/passthru-io.c): the
	 * table only decides once the namespace is known. */
	bool passthru = req->sq->ctrl->subsys->drive != NULL;
	if (!d->parse && !passthru)
		return nvme_generic(NVME_SC_INVALID_OPCODE);
	/* The namespace, active in the controller's subsystem, else Invalid Namespace or
	 * Format (nvmet_req_find_ns; NSID 0 and FFFFFFFFh included: no I/O command here
	 * takes the broadcast value, Identify VWC bits 2:1 do not claim a broadcast Flush). */
	struct nvmf_ns *ns = nvmf_subsys_ns(req->sq->ctrl->subsys, le32toh(req->cmd->nsid));
	if (!ns)
		return nvme_generic(NVME_SC_INVALID_NS);
	/* One load tells what a reservation denies this host and the epoch the command
	 * counts under (target/resv.h); namespaces without reservations skip it. */
	uint8_t access = ns->resv ? nvmf_resv_access(req->sq->ctrl, ns->nsid) : 0;
	nvmf_req_hold_ns_access(req, ns, access);
	/* A path whose ANA group is inaccessible, lost or changing takes no I/O: the path
	 * status (no DNR) sends the host to another path (nvmet_check_ana_state). Then a
	 * reservation conflict, before the command's own checks, as nvmet's. */
	nvme_status_t st = nvmf_ana_io_status(req->sq->port, ns);
	if (!st && (access & NVMF_RESV_ACCESS_DENY))
		st = nvmf_resv_check_io(access, req->cmd->opcode);
	if (st)
		return st;
	/* Reservations and the fused Compare and Write stay the core's (target/passthru.h). */
	if (passthru && ns->bdev->kind == NVMF_BACKEND_PASSTHRU && !req->fused &&
	    !nvmf_lba_resv_opcode(req->cmd->opcode))
		return nvmf_parse_passthru_io(req);
	/* The core's Compare and Write moves data blocks only: a drive namespace with
	 * metadata inline would need it in the buffers (subsystem/backend-passthru.c). */
	if (req->fused && ns->bdev->kind == NVMF_BACKEND_PASSTHRU && ns->bdev->drive_ns->ms)
		return nvme_generic(NVME_SC_INVALID_FIELD);
	return d->parse ? d->parse(req) : nvme_generic(NVME_SC_INVALID_OPCODE);
}

/* ---- for fused Compare and Write (target/caw.c) ---- */

nvme_status_t nvmf_io_backend_status(struct nvmf_req *req, const struct nvmf_bdev_io *io, int err,
				     bool is_write)
{
	return backend_error(req, io, err, is_write);
}

bool nvmf_io_needs_flush(const struct nvmf_req *req)
{
	return needs_flush(req);
}

void nvmf_io_count(struct nvmf_req *req)
{
	count_io(req);
}
