/* SPDX-License-Identifier: MIT */
/*
 * I/O submission (NVM Command Set 1.0 sections 3.2, 3.3): Read, Write, Compare, Flush,
 * Write Zeroes, Dataset Management, Verify, Copy, fused Compare and Write and raw
 * commands, and the blocking helpers.
 *
 * A transfer larger than the controller's max_xfer (MDTS) or than 65536 blocks (NLB is
 * 16 bits) is split into parts: a struct nvmfh_split tracks them and calls the user's
 * callback once, after the last part, with the first error (or 0). Parts are submitted
 * as queue slots allow; the rest wait on q->pending and go out from nvmf_queue_poll().
 * Nothing here locks: a queue belongs to one thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"

struct nvmfh_split {
	struct nvmf_queue *q;
	nvmf_io_cb cb;
	void *arg;
	struct nvme_sqe sqe; /* template: opcode, nsid */
	uint8_t *buf;        /* NULL for Write Zeroes */
	bool write;
	uint64_t slba;
	uint64_t nlb, nlb_sent; /* blocks in all, blocks submitted so far */
	uint32_t lba_shift, max_nlb;
	unsigned inflight;   /* parts submitted, not completed */
	int status;          /* first failure */
	struct nvme_cqe cqe; /* of the failing part, else of the last one */
	bool have_cqe;
	struct nvmfh_split *next; /* on q->pending */
	bool on_list;
};

static void rw_sqe(struct nvme_sqe *sqe, uint8_t opcode, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->nsid = htole32(nsid);
	sqe->cdw10 = htole32((uint32_t)slba);
	sqe->cdw11 = htole32((uint32_t)(slba >> 32));
	sqe->cdw12 = htole32((nlb - 1) & 0xffff); /* NLB, 0's based */
}

/* log2 of @nsid's block size, from the queue's cache or Identify Namespace. */
static int lba_shift(struct nvmf_queue *q, uint32_t nsid, uint32_t *shift)
{
	for (unsigned i = 0; i < q->ns_cached; i++)
		if (q->ns_cache[i].nsid == nsid) {
			*shift = q->ns_cache[i].lba_shift;
			return 0;
		}
	struct nvmf_ns_info info;
	int rc = nvmf_ns_info(q->hq.ctrl, nsid, &info);
	if (rc)
		return rc;
	unsigned s = (unsigned)__builtin_ctz(info.block_size);
	unsigned slot = q->ns_next++ % NVMFH_NS_CACHE;
	q->ns_cache[slot].nsid = nsid;
	q->ns_cache[slot].lba_shift = s;
	if (q->ns_cached < NVMFH_NS_CACHE)
		q->ns_cached++;
	*shift = s;
	return 0;
}

static void list_remove(struct nvmfh_split *s)
{
	struct nvmfh_split **pp = &s->q->pending;
	while (*pp && *pp != s)
		pp = &(*pp)->next;
	if (*pp)
		*pp = s->next;
	s->next = NULL;
	s->on_list = false;
}

static void list_append(struct nvmfh_split *s)
{
	struct nvmfh_split **pp = &s->q->pending;
	while (*pp)
		pp = &(*pp)->next;
	s->next = NULL;
	*pp = s;
	s->on_list = true;
}

/* Finish @s when nothing is in flight and nothing more will be sent; else make sure it
 * is on the pending list exactly when it still has parts to send. Returns true when @s
 * was freed. */
static bool settle(struct nvmfh_split *s)
{
	bool more = !s->status && s->nlb_sent < s->nlb;
	if (!more && s->on_list)
		list_remove(s);
	if (more && !s->on_list)
		list_append(s);
	if (more || s->inflight)
		return false;
	s->cb(s->arg, s->status, s->have_cqe ? &s->cqe : NULL);
	free(s);
	return true;
}

static void part_done(void *arg, int status, const struct nvme_cqe *cqe);

/* Submit parts while slots last. Returns the number submitted. */
static unsigned pump(struct nvmfh_split *s)
{
	unsigned n = 0;
	while (!s->status && s->nlb_sent < s->nlb) {
		uint64_t left = s->nlb - s->nlb_sent;
		uint32_t nlb = left < s->max_nlb ? (uint32_t)left : s->max_nlb;
		struct nvme_sqe sqe = s->sqe;
		uint64_t slba = s->slba + s->nlb_sent;
		sqe.cdw10 = htole32((uint32_t)slba);
		sqe.cdw11 = htole32((uint32_t)(slba >> 32));
		sqe.cdw12 = htole32((nlb - 1) & 0xffff);
		void *buf = s->buf ? s->buf + (s->nlb_sent << s->lba_shift) : NULL;
		uint32_t len = s->buf ? nlb << s->lba_shift : 0;
		int rc = nvmfh_queue_submit(s->q, &sqe, buf, len, s->write, part_done, s, NULL);
		if (rc == -EAGAIN)
			break;
		if (rc) {
			s->status = rc;
			break;
		}
		s->inflight++;
		s->nlb_sent += nlb;
		n++;
	}
	return n;
}

static void part_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct nvmfh_split *s = arg;
	s->inflight--;
	if (status && !s->status) {
		s->status = status;
		s->have_cqe = cqe != NULL;
		if (cqe)
			s->cqe = *cqe;
	} else if (!s->status && cqe) {
		s->cqe = *cqe;
		s->have_cqe = true;
	}
	if (!s->status)
		pump(s);
	settle(s);
}

void nvmfh_io_pump(struct nvmf_queue *q)
{
	/* Take the list: settle() re-appends what still waits, oldest first. */
	struct nvmfh_split *s = q->pending;
	q->pending = NULL;
	while (s) {
		struct nvmfh_split *next = s->next;
		s->on_list = false;
		s->next = NULL;
		pump(s);
		settle(s);
		s = next;
	}
}

void nvmfh_io_fail_pending(struct nvmf_queue *q, int err)
{
	struct nvmfh_split *s = q->pending;
	q->pending = NULL;
	while (s) {
		struct nvmfh_split *next = s->next;
		s->on_list = false;
		s->next = NULL;
		if (!s->status)
			s->status = err;
		settle(s);
		s = next;
	}
}

/*
 * A block command over @nlb blocks: one command when it fits, else a split request.
 * @buf NULL: no data (Write Zeroes).
 */
static int submit_blocks(struct nvmf_queue *q, uint8_t opcode, uint32_t nsid, uint64_t slba,
			 uint32_t nlb, void *buf, bool write, nvmf_io_cb cb, void *arg)
{
	if (!q || !cb || !nlb || !nsid)
		return -EINVAL;
	if (q->lost) { /* automatic reconnect: it waits for the new association */
		int rc = nvmfh_queue_may_hold(q);
		if (rc)
			return rc;
	}
	uint32_t shift = 0;
	if (buf) {
		int rc = lba_shift(q, nsid, &shift);
		if (rc)
			return rc;
	}
	return nvmfh_submit_blocks(q, opcode, nsid, slba, nlb, buf, write, shift, cb, arg);
}

int nvmfh_submit_blocks(struct nvmf_queue *q, uint8_t opcode, uint32_t nsid, uint64_t slba,
			uint32_t nlb, void *buf, bool write, uint32_t shift, nvmf_io_cb cb,
			void *arg)
{
	if (q->lost) { /* automatic reconnect: it waits for the new association */
		int rc = nvmfh_queue_may_hold(q);
		if (rc)
			return rc;
	}
	uint32_t max_nlb = NVMFH_MAX_NLB;
	if (buf) {
		uint32_t by_mdts = q->hq.ctrl->max_xfer >> shift;
		if (by_mdts < max_nlb)
			max_nlb = by_mdts ? by_mdts : 1;
	}
	if (nlb <= max_nlb) {
		struct nvme_sqe sqe;
		rw_sqe(&sqe, opcode, nsid, slba, nlb);
		return nvmfh_queue_submit(q, &sqe, buf, buf ? nlb << shift : 0, write, cb, arg,
					  NULL);
	}
	struct nvmfh_split *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->q = q;
	s->cb = cb;
	s->arg = arg;
	rw_sqe(&s->sqe, opcode, nsid, slba, 1);
	s->buf = buf;
	s->write = write;
	s->slba = slba;
	s->nlb = nlb;
	s->lba_shift = shift;
	s->max_nlb = max_nlb;
	if (!pump(s)) {
		/* Nothing went out: the caller retries the whole request. */
		int rc = s->status ? s->status : -EAGAIN;
		free(s);
		return rc;
	}
	/* A failure after the first part is reported through the callback. */
	settle(s);
	return 0;
}

int nvmf_submit_read(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf,
		     nvmf_io_cb cb, void *arg)
{
	if (!buf)
		return -EINVAL;
	return submit_blocks(q, nvme_cmd_read, nsid, slba, nlb, buf, false, cb, arg);
}

int nvmf_submit_write(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
		      const void *buf, nvmf_io_cb cb, void *arg)
{
	if (!buf)
		return -EINVAL;
	return submit_blocks(q, nvme_cmd_write, nsid, slba, nlb, (void *)buf, true, cb, arg);
}

int nvmf_submit_compare(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			const void *buf, nvmf_io_cb cb, void *arg)
{
	if (!buf)
		return -EINVAL;
	return submit_blocks(q, nvme_cmd_compare, nsid, slba, nlb, (void *)buf, true, cb, arg);
}

int nvmf_submit_write_zeroes(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			     nvmf_io_cb cb, void *arg)
{
	return submit_blocks(q, nvme_cmd_write_zeroes, nsid, slba, nlb, NULL, false, cb, arg);
}

int nvmf_submit_flush(struct nvmf_queue *q, uint32_t nsid, nvmf_io_cb cb, void *arg)
{
	if (!q || !cb)
		return -EINVAL;
	struct nvme_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = nvme_cmd_flush;
	sqe.nsid = htole32(nsid);
	return nvmfh_queue_submit(q, &sqe, NULL, 0, false, cb, arg, NULL);
}

int nvmf_submit_dsm(struct nvmf_queue *q, uint32_t nsid, const struct nvme_dsm_range *ranges,
		    unsigned nr, uint32_t attributes, nvmf_io_cb cb, void *arg)
{
	if (!q || !cb || !ranges || nr < 1 || nr > 256)
		return -EINVAL;
	struct nvme_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = nvme_cmd_dsm;
	sqe.nsid = htole32(nsid);
	sqe.cdw10 = htole32(nr - 1); /* NR, 0's based */
	sqe.cdw11 = htole32(attributes);
	return nvmfh_queue_submit(q, &sqe, (void *)ranges, nr * (uint32_t)sizeof(*ranges), true, cb,
				  arg, NULL);
}

/* Verify: Read's SLBA and NLB (0's based) fields; -EINVAL when @nlb does not fit. */
static int verify_sqe(struct nvme_sqe *sqe, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	if (nlb < 1 || nlb > 0x10000)
		return -EINVAL;
	rw_sqe(sqe, nvme_cmd_verify, nsid, slba, nlb);
	return 0;
}

/* Copy: SDLBA in cdw10-11, NR (0's based) in cdw12 bits 7:0, DF 0h and no protection
 * information or FUA (the other cdw12 bits 0); -EINVAL for @nr out of 1..256. */
static int copy_sqe(struct nvme_sqe *sqe, uint32_t nsid, uint64_t sdlba, unsigned nr)
{
	if (nr < 1 || nr > 256)
		return -EINVAL;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = nvme_cmd_copy;
	sqe->nsid = htole32(nsid);
	sqe->cdw10 = htole32((uint32_t)sdlba);
	sqe->cdw11 = htole32((uint32_t)(sdlba >> 32));
	sqe->cdw12 = htole32(nr - 1);
	return 0;
}

int nvmf_submit_verify(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
		       nvmf_io_cb cb, void *arg)
{
	struct nvme_sqe sqe;
	if (!q || !cb || verify_sqe(&sqe, nsid, slba, nlb))
		return -EINVAL;
	return nvmfh_queue_submit(q, &sqe, NULL, 0, false, cb, arg, NULL);
}

int nvmf_submit_copy(struct nvmf_queue *q, uint32_t nsid, uint64_t sdlba,
		     const struct nvme_copy_range *ranges, unsigned nr, nvmf_io_cb cb, void *arg)
{
	struct nvme_sqe sqe;
	if (!q || !cb || !ranges || copy_sqe(&sqe, nsid, sdlba, nr))
		return -EINVAL;
	return nvmfh_queue_submit(q, &sqe, (void *)ranges, nr * (uint32_t)sizeof(*ranges), true, cb,
				  arg, NULL);
}

int nvmf_submit_raw(struct nvmf_queue *q, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		    bool write, nvmf_io_cb cb, void *arg)
{
	if (!q || !sqe || !cb || (len && !buf))
		return -EINVAL;
	if (len > q->hq.ctrl->max_xfer)
		return -EINVAL;
	return nvmfh_queue_submit(q, sqe, buf, len, write, cb, arg, NULL);
}

/* ---- blocking helpers on I/O queue 0 ---- */

enum sync_op { SYNC_READ, SYNC_WRITE, SYNC_FLUSH, SYNC_RAW, SYNC_CAW };

struct sync_cmd {
	enum sync_op op;
	uint32_t nsid;
	uint64_t slba;
	uint32_t nlb;
	void *buf;
	bool done;
	int status;
	/* SYNC_RAW: the command (nsid inside), @len bytes of @buf moved in direction @write */
	struct nvme_sqe sqe;
	uint32_t len;
	bool write;
	const void *cmp; /* SYNC_CAW: the compare buffer (buf: the data written) */
};

static void sync_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	(void)cqe;
	struct sync_cmd *w = arg;
	w->done = true;
	w->status = status;
}

static int sync_submit(struct nvmf_queue *q, struct sync_cmd *w)
{
	switch (w->op) {
	case SYNC_READ:
		return nvmf_submit_read(q, w->nsid, w->slba, w->nlb, w->buf, sync_done, w);
	case SYNC_WRITE:
		return nvmf_submit_write(q, w->nsid, w->slba, w->nlb, w->buf, sync_done, w);
	case SYNC_RAW:
		return nvmf_submit_raw(q, &w->sqe, w->buf, w->len, w->write, sync_done, w);
	case SYNC_CAW:
		return nvmf_submit_compare_and_write(q, w->nsid, w->slba, w->nlb, w->cmp, w->buf,
						     sync_done, w);
	default:
		return nvmf_submit_flush(q, w->nsid, sync_done, w);
	}
}

/* Submit (retrying while the queue is full) and poll until the callback ran. */
static int sync_wait(struct nvmf_queue *q, struct sync_cmd *w)
{
	int rc;
	while ((rc = sync_submit(q, w)) == -EAGAIN)
		if ((rc = nvmf_queue_wait(q, 100)) < 0)
			return rc;
	if (rc)
		return rc;
	while (!w->done) {
		rc = nvmf_queue_wait(q, 100);
		if (rc < 0 && !w->done)
			return rc;
	}
	return w->status;
}

/* sync_wait, and the controller's message for this call: for a local or transport error
 * what failed on this queue (never another thread's failure, e.g. a Keep Alive's); none
 * for an NVMe status, which names itself. */
static int run_sync(struct nvmf_ctrl *c, struct sync_cmd *w)
{
	struct nvmf_queue *q = nvmf_io_queue(c, 0);
	if (!q)
		return -EINVAL;
	nvmfh_errf(c, "%s", "");
	int rc = sync_wait(q, w);
	/* A lost I/O queue names its cause; a failure before it (the namespace's block size
	 * from Identify on the admin queue) left its own message, else the errno names it. */
	if (rc < 0 && q->lost)
		nvmfh_errf(c, "I/O queue %u: %s", q->hq.qid,
			   q->lost_why[0] ? q->lost_why : nvmf_strerror(rc));
	else if (rc < 0 && !nvmf_ctrl_errmsg(c)[0])
		nvmfh_errf(c, "I/O queue %u: %s", q->hq.qid, nvmf_strerror(rc));
	return rc;
}

int nvmf_read(struct nvmf_ctrl *c, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf)
{
	struct sync_cmd w = { .op = SYNC_READ, .nsid = nsid, .slba = slba, .nlb = nlb, .buf = buf };
	return run_sync(c, &w);
}

int nvmf_write(struct nvmf_ctrl *c, uint32_t nsid, uint64_t slba, uint32_t nlb, const void *buf)
{
	struct sync_cmd w = {
		.op = SYNC_WRITE, .nsid = nsid, .slba = slba, .nlb = nlb, .buf = (void *)buf
	};
	return run_sync(c, &w);
}

int nvmf_flush(struct nvmf_ctrl *c, uint32_t nsid)
{
	struct sync_cmd w = { .op = SYNC_FLUSH, .nsid = nsid };
	return run_sync(c, &w);
}

int nvmf_verify(struct nvmf_ctrl *c, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	struct sync_cmd w = { .op = SYNC_RAW };
	if (!c || verify_sqe(&w.sqe, nsid, slba, nlb))
		return -EINVAL;
	return run_sync(c, &w);
}

int nvmf_copy(struct nvmf_ctrl *c, uint32_t nsid, uint64_t sdlba,
	      const struct nvme_copy_range *ranges, unsigned nr)
{
	struct sync_cmd w = { .op = SYNC_RAW,
			      .buf = (void *)ranges,
			      .len = nr * (uint32_t)sizeof(*ranges),
			      .write = true };
	if (!c || !ranges || copy_sqe(&w.sqe, nsid, sdlba, nr))
		return -EINVAL;
	return run_sync(c, &w);
}

int nvmf_compare_and_write(struct nvmf_ctrl *c, uint32_t nsid, uint64_t slba, uint32_t nlb,
			   const void *cmp, const void *data)
{
	struct sync_cmd w = { .op = SYNC_CAW,
			      .nsid = nsid,
			      .slba = slba,
			      .nlb = nlb,
			      .buf = (void *)data,
			      .cmp = cmp };
	return run_sync(c, &w);
}

/* ---- fused Compare and Write (NVM Command Set 1.0 section 3.2.1.1) ---- */

/* Command Dword 0 FUSE, bits 1:0 of the flags byte (NVMe Base 2.0 figure 88). */
#define FUSE_FIRST  1
#define FUSE_SECOND 2

/* The pair's state until both halves completed. */
struct caw_pair {
	nvmf_io_cb cb;
	void *arg;
	unsigned left;          /* halves not completed */
	int st[2];              /* Compare's, Write's status */
	struct nvme_cqe cqe[2]; /* their CQEs */
	bool have_cqe[2];
	struct caw_half {
		struct caw_pair *p;
		unsigned idx;
	} half[2];
};

/* One half completed; the second completion reports the pair: the Compare's failure
 * first (a miscompare shows there, the Write then has Failed Fused Command), else the
 * Write's. */
static void caw_half_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct caw_half *h = arg;
	struct caw_pair *p = h->p;
	p->st[h->idx] = status;
	p->have_cqe[h->idx] = cqe != NULL;
	if (cqe)
		p->cqe[h->idx] = *cqe;
	if (--p->left)
		return;
	unsigned i = p->st[0] ? 0 : 1;
	p->cb(p->arg, p->st[i], p->have_cqe[i] ? &p->cqe[i] : NULL);
	free(p);
}

int nvmf_submit_compare_and_write(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
				  const void *cmp, const void *data, nvmf_io_cb cb, void *arg)
{
	if (!q || !cb || !cmp || !data || !nsid || !nlb || nlb > NVMFH_MAX_NLB)
		return -EINVAL;
	if (q->lost) { /* a fused pair cannot wait for a new association */
		int rc = nvmfh_queue_may_hold(q);
		return rc ? rc : -ECONNRESET;
	}
	uint32_t shift;
	int rc = lba_shift(q, nsid, &shift);
	if (rc)
		return rc;
	uint64_t len = (uint64_t)nlb << shift;
	if (len > q->hq.ctrl->max_xfer)
		return -EINVAL;
	/* Both halves or neither: a lone first would wait at the controller for its second
	 * until the next command. */
	if (q->outstanding + 2 >= q->hq.size || q->nr_free < 2)
		return -EAGAIN;
	struct caw_pair *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cb = cb;
	p->arg = arg;
	p->left = 2;
	struct nvme_sqe sqe[2];
	rw_sqe(&sqe[0], nvme_cmd_compare, nsid, slba, nlb);
	rw_sqe(&sqe[1], nvme_cmd_write, nsid, slba, nlb);
	sqe[0].flags = FUSE_FIRST;
	sqe[1].flags = FUSE_SECOND;
	const void *buf[2] = { cmp, data };
	for (unsigned i = 0; i < 2; i++) {
		p->half[i] = (struct caw_half){ .p = p, .idx = i };
		rc = nvmfh_queue_submit(q, &sqe[i], (void *)buf[i], (uint32_t)len, true,
					caw_half_done, &p->half[i], NULL);
		if (rc && i == 0) {
			free(p);
			return rc;
		}
		if (rc) /* the first went out: the pair reports this through @cb */
			caw_half_done(&p->half[1], rc, NULL);
	}
	return 0;
}

/* ---- reservations (NVMe Base 2.0 sections 7.2-7.5) ---- */

/* One reservation command with @n bytes of @data to the controller (Register, Acquire,
 * Release: the keys, little endian) on I/O queue 0. */
static int resv_cmd(struct nvmf_ctrl *c, uint8_t opcode, uint32_t nsid, uint32_t cdw10,
		    const uint64_t *keys, unsigned nkeys)
{
	uint64_t le[2];
	for (unsigned i = 0; i < nkeys; i++)
		le[i] = htole64(keys[i]);
	struct sync_cmd w = { .op = SYNC_RAW, .buf = le, .len = nkeys * 8u, .write = true };
	w.sqe.opcode = opcode;
	w.sqe.nsid = htole32(nsid);
	w.sqe.cdw10 = htole32(cdw10);
	return run_sync(c, &w);
}

/* Command Dword 10 of Register, Acquire, Release: the action in bits 2:0, IEKEY bit 3,
 * RTYPE bits 15:8 (Acquire, Release), CPTPL bits 31:30 (Register). */
static uint32_t resv_cdw10(unsigned action, bool iekey, unsigned rtype, unsigned cptpl)
{
	return action | (iekey ? 1u << 3 : 0) | rtype << 8 | cptpl << 30;
}

int nvmf_resv_register(struct nvmf_ctrl *c, uint32_t nsid, unsigned rrega, bool iekey,
		       unsigned cptpl, uint64_t crkey, uint64_t nrkey)
{
	if (!c || rrega > NVMF_RESV_REPLACE || cptpl > 3 || cptpl == 1)
		return -EINVAL;
	return resv_cmd(c, nvme_cmd_resv_register, nsid, resv_cdw10(rrega, iekey, 0, cptpl),
			(const uint64_t[]){ crkey, nrkey }, 2);
}

int nvmf_resv_acquire(struct nvmf_ctrl *c, uint32_t nsid, unsigned racqa, unsigned rtype,
		      bool iekey, uint64_t crkey, uint64_t prkey)
{
	if (!c || racqa > NVMF_RESV_PREEMPT_ABORT || rtype < 1 || rtype > 6)
		return -EINVAL;
	return resv_cmd(c, nvme_cmd_resv_acquire, nsid, resv_cdw10(racqa, iekey, rtype, 0),
			(const uint64_t[]){ crkey, prkey }, 2);
}

int nvmf_resv_release(struct nvmf_ctrl *c, uint32_t nsid, unsigned rrela, unsigned rtype,
		      bool iekey, uint64_t crkey)
{
	/* Clear ignores RTYPE (7.4); a release names the type it releases. */
	if (!c || rrela > NVMF_RESV_CLEAR || rtype > 6 || (rrela == NVMF_RESV_RELEASE && !rtype))
		return -EINVAL;
	return resv_cmd(c, nvme_cmd_resv_release, nsid, resv_cdw10(rrela, iekey, rtype, 0),
			(const uint64_t[]){ crkey }, 1);
}

int nvmf_resv_report(struct nvmf_ctrl *c, uint32_t nsid, void *buf, uint32_t len)
{
	if (!c || !buf || len < 64 || len % 4)
		return -EINVAL;
	struct sync_cmd w = { .op = SYNC_RAW, .buf = buf, .len = len };
	w.sqe.opcode = nvme_cmd_resv_report;
	w.sqe.nsid = htole32(nsid);
	w.sqe.cdw10 = htole32(len / 4 - 1); /* NUMD, 0's based dwords */
	w.sqe.cdw11 = htole32(1);           /* EDS: 128-bit host IDs */
	return run_sync(c, &w);
}
