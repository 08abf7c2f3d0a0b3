/* SPDX-License-Identifier: MIT */
/*
 * Fused Compare and Write (NVMe Base 2.0 "Fused Operations"; NVM Command Set 1.0
 * section 3.2.1.1): the pairing of the two halves in SQ arrival order and the pair's
 * execution under the LBA range lock (target/lba-lock.h).
 *
 * Pairing happens at arrival (nvmf_req_init), not at execute: a later command whose data
 * came first must not slip between the halves (spdk#2428). Execution waits until both
 * halves' data is in, then the Write half takes the lock, reads the blocks, compares them
 * with the Compare half's data and writes its own data only when they match. Each half
 * gets its own CQE: match, both 0; miscompare, Compare Failure on the Compare and Failed
 * Fused Command on the Write, nothing written.
 *
 * A backend whose storage other processes write too (rbd: several gateways on one image)
 * gets the pair as one COMPARE_AND_WRITE instead (bdev->caw_atomic), which it does
 * atomically where the data lives; the lock still orders it among this target's
 * commands.
 *
 * A half answered before its data is in would let its transport free a buffer still
 * being filled, so a status decided early (a missing or failed partner) waits in
 * req->fused_status until the half executes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/status.h"
#include "target/core.h"
#include "target/lba-lock.h"
#include "target/probes.h"

#define CDW12_NLB_MASK 0xffffu

static nvme_status_t gen(uint8_t sc)
{
	return nvme_generic(sc);
}

void nvmf_fused_settle(struct nvmf_req *req, nvme_status_t st)
{
	if (req->fused_ready)
		nvmf_req_complete(req, st);
	else
		req->fused_status = st;
}

nvme_status_t nvmf_fused_arrive(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	uint8_t fuse = req->cmd->flags & NVMF_FUSED_MASK;
	struct nvmf_req *first = sq->fused_first;
	bool first_failed = sq->fused_first_failed;
	sq->fused_first = NULL;
	sq->fused_first_failed = false;
	/* The SQE after a first half must be its second. */
	if (first && fuse != NVMF_FUSED_SECOND)
		nvmf_fused_settle(first, gen(NVME_SC_FUSED_MISSING));
	if (!fuse)
		return 0;
	/* Compare and Write is the only fused operation of the NVM command set, and admin
	 * commands have none. */
	bool ok = fuse != NVMF_FUSED_MASK && sq->qid != 0 &&
		  req->cmd->opcode ==
			  (fuse == NVMF_FUSED_FIRST ? nvme_cmd_compare : nvme_cmd_write);
	if (!ok) {
		if (first)
			nvmf_fused_settle(first, gen(NVME_SC_FUSED_MISSING));
		return gen(NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	}
	if (fuse == NVMF_FUSED_SECOND && !first)
		return gen(first_failed ? NVME_SC_FUSED_FAIL : NVME_SC_FUSED_MISSING);
	req->fused = fuse;
	req->fused_peer = first; /* a second's first, linked once both parsed */
	return 0;
}

static void execute_half(struct nvmf_req *req);

/* The halves name the same blocks: NSID, SLBA (CDW10-11) and NLB (CDW12 15:0). */
static bool same_blocks(const struct nvme_sqe *a, const struct nvme_sqe *b)
{
	return a->nsid == b->nsid && a->cdw10 == b->cdw10 && a->cdw11 == b->cdw11 &&
	       ((le32toh(a->cdw12) ^ le32toh(b->cdw12)) & CDW12_NLB_MASK) == 0;
}

nvme_status_t nvmf_fused_parsed(struct nvmf_req *req, nvme_status_t st)
{
	struct nvmf_sq *sq = req->sq;
	if (req->fused == NVMF_FUSED_FIRST) {
		if (st)
			sq->fused_first_failed = true;
		else {
			sq->fused_first = req;
			req->execute = execute_half;
		}
		return st;
	}
	struct nvmf_req *first = req->fused_peer;
	req->fused_peer = NULL;
	if (st) {
		nvmf_fused_settle(first, gen(NVME_SC_FUSED_FAIL));
		return st;
	}
	if (!same_blocks(first->cmd, req->cmd)) {
		nvmf_fused_settle(first, gen(NVME_SC_INVALID_FIELD) | NVME_SC_DNR);
		return gen(NVME_SC_INVALID_FIELD);
	}
	first->fused_peer = req;
	req->fused_peer = first;
	req->execute = execute_half;
	return 0;
}

/* Unlink @req from its partner, which is answered @st. */
static void fail_partner(struct nvmf_req *req, nvme_status_t st)
{
	struct nvmf_sq *sq = req->sq;
	struct nvmf_req *peer = req->fused_peer;
	if (sq->fused_first == req) {
		sq->fused_first = NULL;
		sq->fused_first_failed = true;
	}
	if (!peer)
		return;
	peer->fused_peer = NULL;
	req->fused_peer = NULL;
	nvmf_fused_settle(peer, st);
}

void nvmf_fused_fail(struct nvmf_req *req, nvme_status_t st)
{
	fail_partner(req, gen(NVME_SC_FUSED_FAIL));
	nvmf_req_complete(req, st);
}

void nvmf_fused_abandon(struct nvmf_req *req)
{
	fail_partner(req, gen(NVME_SC_ABORT_REQ));
}

/* ---- the pair under the lock ---- */

/* Both halves answered, under the lock's "finished" (nothing of the lock left). */
static void caw_finished(struct nvmf_req *wr)
{
	struct nvmf_req *cmp = wr->fused_peer;
	nvme_status_t cst = cmp->fused_status, wst = wr->fused_status;
	cmp->fused_peer = wr->fused_peer = NULL;
	if (!cst)
		nvmf_io_count(cmp);
	if (!wst)
		nvmf_io_count(wr);
	nvmf_req_complete(cmp, cst);
	nvmf_req_complete(wr, wst);
}

/* The pair's outcome is known: release the lock, answer at its end. */
static void caw_decided(struct nvmf_req *wr, nvme_status_t cst, nvme_status_t wst)
{
	wr->fused_peer->fused_status = cst;
	wr->fused_status = wst;
	nvmf_lba_unlock(wr, caw_finished);
}

static void caw_write_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *wr = io->ctx;
	NVMF_PROBE_BACKEND_COMPLETE(wr, wr->ns->nsid, io->op, err);
	if (err) {
		/* The compare matched; the write's failure is the Write's. */
		caw_decided(wr, 0, nvmf_io_backend_status(wr, io, err, true));
		return;
	}
	if (io->op != NVMF_BDEV_FLUSH && nvmf_io_needs_flush(wr)) {
		nvmf_req_bio_submit(wr, NVMF_BDEV_FLUSH, 0, 0, NULL, caw_write_done);
		return;
	}
	caw_decided(wr, 0, 0);
}

static void caw_read_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *wr = io->ctx;
	struct nvmf_req *cmp = wr->fused_peer;
	NVMF_PROBE_BACKEND_COMPLETE(wr, wr->ns->nsid, io->op, err);
	if (err) {
		caw_decided(wr, nvmf_io_backend_status(wr, io, err, false),
			    gen(NVME_SC_FUSED_FAIL));
		return;
	}
	if (memcmp(wr->aux, cmp->data, wr->data_len) != 0) {
		/* Compare Failure (media SCT, 85h): nothing is written. */
		caw_decided(wr, nvme_status(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED) | NVME_SC_DNR,
			    gen(NVME_SC_FUSED_FAIL));
		return;
	}
	nvmf_req_bio_submit(wr, NVMF_BDEV_WRITE, wr->slba << wr->ns->lba_shift, wr->data_len,
			    wr->data, caw_write_done);
}

/* The backend's atomic compare-and-write ended: -EILSEQ is the miscompare (nothing
 * written); another error fails the pair as a failed read would, since the backend
 * writes nothing unless the compare matched. */
static void caw_atomic_done(struct nvmf_bdev_io *io, int err)
{
	struct nvmf_req *wr = io->ctx;
	if (err == -EILSEQ) {
		NVMF_PROBE_BACKEND_COMPLETE(wr, wr->ns->nsid, io->op, 0);
		caw_decided(wr, nvme_status(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED) | NVME_SC_DNR,
			    gen(NVME_SC_FUSED_FAIL));
		return;
	}
	if (err) {
		NVMF_PROBE_BACKEND_COMPLETE(wr, wr->ns->nsid, io->op, err);
		caw_decided(wr, nvmf_io_backend_status(wr, io, err, false),
			    gen(NVME_SC_FUSED_FAIL));
		return;
	}
	caw_write_done(io, 0);
}

/* The pair fits one atomic compare-and-write of the backend. */
static bool caw_backend_atomic(const struct nvmf_req *wr)
{
	const struct nvmf_bdev *b = wr->ns->bdev;
	uint64_t off = wr->slba << wr->ns->lba_shift, cb = b->caw_boundary;
	return b->caw_atomic && (!cb || off / cb == (off + wr->data_len - 1) / cb);
}

/* The namespace is ours: the backend's atomic compare-and-write where it has one, else
 * read the blocks (into a buffer aligned for O_DIRECT backends, freed with the Write
 * half). */
static void caw_granted(struct nvmf_req *wr)
{
	if (caw_backend_atomic(wr)) {
		wr->bio.cmp = wr->fused_peer->data;
		nvmf_req_bio_submit(wr, NVMF_BDEV_COMPARE_AND_WRITE, wr->slba << wr->ns->lba_shift,
				    wr->data_len, wr->data, caw_atomic_done);
		return;
	}
	size_t align = wr->ns->bdev->block_size > 4096 ? wr->ns->bdev->block_size : 4096;
	void *buf = NULL;
	if (posix_memalign(&buf, align, wr->data_len) != 0) {
		caw_decided(wr, gen(NVME_SC_INTERNAL), gen(NVME_SC_FUSED_FAIL));
		return;
	}
	wr->aux = buf;
	nvmf_req_bio_submit(wr, NVMF_BDEV_READ, wr->slba << wr->ns->lba_shift, wr->data_len, buf,
			    caw_read_done);
}

/* A half's data is in: answer a status decided early, else wait for the partner, else
 * run the pair (the Write half holds the lock). */
static void execute_half(struct nvmf_req *req)
{
	req->fused_ready = true;
	if (req->fused_status) {
		nvmf_req_complete(req, req->fused_status);
		return;
	}
	struct nvmf_req *peer = req->fused_peer;
	if (!peer || !peer->fused_ready)
		return;
	nvmf_lba_lock(req->fused == NVMF_FUSED_SECOND ? req : peer, caw_granted);
}
