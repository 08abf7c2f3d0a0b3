/* SPDX-License-Identifier: MIT */
/*
 * The data path of the RDMA host transport: capsules out, CQEs in.
 *
 * submit: the SQE (+ in-capsule data for small writes on I/O queues) goes out in one
 * signaled SEND from a registered slot. The admin queue posts it at once; an I/O queue
 * links it behind the others submitted since the last pass, and the next poll (or wait)
 * posts them all with one ibv_post_send, so the callbacks that submit the next commands
 * (nvmf perf, fio) cost one doorbell per pass, not one per command (on soft-RoCE each post
 * is a system call). Data that does not travel in the capsule is
 * described by one keyed SGL (0x40) of either the user's registered region (zero copy) or
 * a bounce buffer of the queue's registered pool (copy in for writes, out for reads).
 * poll: RECV completions carry the CQE; the command is found by command_id through the
 * core, its bounce data copied back, its buffers released, the RECV reposted, then the
 * core told. A slot is free again when both its SEND completion and its CQE were seen (an
 * RC target may answer before our SEND completion is polled). One thread per queue: no
 * locks here.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/sgl.h"
#include "rdma/host/host.h"
#include "util/clock.h"

#define NVMF_RH_LOG(...) fprintf(stderr, "nvmf-rdma host: " __VA_ARGS__)
#define BUF_ACCESS       (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)

/* ---- bounce buffers ---- */

static int class_init(struct nvmf_rh_bclass *c, struct ibv_pd *pd, uint32_t size, uint32_t count)
{
	size_t len = (size_t)size * count;
	c->free = calloc(count, sizeof(*c->free));
	if (!c->free || posix_memalign(&c->mem, 4096, len)) {
		free(c->free);
		c->free = NULL;
		c->mem = NULL;
		return -ENOMEM;
	}
	c->mr = ibv_reg_mr(pd, c->mem, len, BUF_ACCESS);
	if (!c->mr) {
		int rc = errno ? -errno : -ENOMEM;
		free(c->mem);
		free(c->free);
		c->mem = NULL;
		c->free = NULL;
		return rc;
	}
	c->size = size;
	c->count = count;
	c->nfree = 0;
	for (uint32_t i = count; i-- > 0;)
		c->free[c->nfree++] = (uint8_t *)c->mem + (size_t)i * size;
	return 0;
}

static void class_fini(struct nvmf_rh_bclass *c)
{
	if (c->mr)
		ibv_dereg_mr(c->mr);
	free(c->mem);
	free(c->free);
	memset(c, 0, sizeof(*c));
}

int nvmf_rh_pool_init(struct nvmf_rh_pool *p, struct ibv_pd *pd, uint32_t count)
{
	memset(p, 0, sizeof(*p));
	p->pd = pd;
	p->small_count = count;
	return class_init(&p->cls[0], pd, NVMF_RH_SMALL_BUF, count);
}

void nvmf_rh_pool_fini(struct nvmf_rh_pool *p)
{
	for (unsigned i = 0; i < 2; i++)
		class_fini(&p->cls[i]);
	for (unsigned i = 0; i < NVMF_RH_BIG_MAX; i++) {
		if (p->big[i].mr)
			ibv_dereg_mr(p->big[i].mr);
		free(p->big[i].mem);
	}
	memset(p, 0, sizeof(*p));
}

/*
 * A registered buffer of >= @len bytes: *ref is 0 (4 KiB class), 1 (128 KiB class, set up
 * on first use) or 2 + i (big buffer i, allocated or grown on demand, up to
 * NVMF_RH_BIG_MAX). Returns 0, -EAGAIN (all busy: poll and retry) or -ENOMEM.
 */
static int pool_get(struct nvmf_rh_pool *p, uint32_t len, void **buf, uint32_t *rkey, int *ref)
{
	for (int c = 0; c < 2; c++) {
		uint32_t size = c ? NVMF_RH_MEDIUM_BUF : NVMF_RH_SMALL_BUF;
		if (len > size)
			continue;
		struct nvmf_rh_bclass *k = &p->cls[c];
		if (!k->mem && c == 1) {
			int rc = class_init(k, p->pd, NVMF_RH_MEDIUM_BUF, NVMF_RH_MEDIUM_COUNT);
			if (rc)
				return rc;
		}
		if (!k->nfree)
			continue; /* a larger class may have room */
		*buf = k->free[--k->nfree];
		*rkey = k->mr->rkey;
		*ref = c;
		return 0;
	}
	/* Big: the smallest idle buffer that fits, else grow an idle one or take a new slot. */
	int pick = -1, spare = -1;
	for (int i = 0; i < (int)NVMF_RH_BIG_MAX; i++) {
		struct nvmf_rh_big *b = &p->big[i];
		if (b->busy)
			continue;
		if (b->mem && b->size >= len && (pick < 0 || b->size < p->big[pick].size))
			pick = i;
		else if (spare < 0 || !b->mem)
			spare = i;
	}
	if (pick < 0) {
		if (spare < 0)
			return -EAGAIN;
		struct nvmf_rh_big *b = &p->big[spare];
		if (b->mr)
			ibv_dereg_mr(b->mr);
		free(b->mem);
		b->mr = NULL;
		b->mem = NULL;
		size_t size = ((size_t)len + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
		if (posix_memalign(&b->mem, 4096, size)) {
			b->mem = NULL;
			return -ENOMEM;
		}
		b->mr = ibv_reg_mr(p->pd, b->mem, size, BUF_ACCESS);
		if (!b->mr) {
			free(b->mem);
			b->mem = NULL;
			return -ENOMEM;
		}
		b->size = (uint32_t)size;
		pick = spare;
	}
	p->big[pick].busy = true;
	*buf = p->big[pick].mem;
	*rkey = p->big[pick].mr->rkey;
	*ref = 2 + pick;
	return 0;
}

static void pool_put(struct nvmf_rh_pool *p, void *buf, int ref)
{
	if (ref < 2)
		p->cls[ref].free[p->cls[ref].nfree++] = buf;
	else
		p->big[ref - 2].busy = false;
}

/* ---- slots ---- */

static void slot_release_data(struct nvmf_rh_queue *q, struct nvmf_rh_slot *s)
{
	if (s->bounce)
		pool_put(&q->pool, s->bounce, s->bounce_ref);
	s->bounce = NULL;
	s->copy_back = false;
}

static void slot_free(struct nvmf_rh_queue *q, struct nvmf_rh_slot *s)
{
	s->cmd = NULL;
	q->free_slots[q->nfree++] = (uint32_t)(s - q->slots);
}

int nvmf_rh_post_recv(struct nvmf_rh_queue *q, uint32_t i)
{
	struct ibv_recv_wr *bad;
	return ibv_post_recv(q->id->qp, &q->rwr[i], &bad);
}

/* ibv_post_send's "send queue full" (providers differ in the sign). */
static bool post_full(int rc)
{
	return rc == ENOMEM || rc == -ENOMEM;
}

/*
 * Post the SENDs linked since the last pass. A full send queue (bad is the first WR not
 * taken) keeps the rest for the next pass. Any other failure sets post_failed: the poll
 * still reads what the CQ holds (answers that came before are answers), then ends the
 * queue, and the core fails what is left.
 */
static void tx_flush(struct nvmf_rh_queue *q)
{
	if (!q->tx_head || q->post_failed)
		return;
	struct ibv_send_wr *bad = NULL;
	int rc = ibv_post_send(q->id->qp, q->tx_head, &bad);
	if (!rc) {
		q->tx_head = q->tx_last = NULL;
		return;
	}
	if (post_full(rc) && bad) {
		q->tx_head = bad;
		return;
	}
	NVMF_RH_LOG("queue %u: ibv_post_send: %s\n", q->qid, strerror(rc < 0 ? -rc : rc));
	q->post_failed = true;
}

/* ---- the transport ops ---- */

static int hq_submit(struct nvmf_hq *hq, struct nvmf_hcmd *cmd)
{
	struct nvmf_rh_queue *q = hq->tpriv;
	if (!q || q->dead || !q->connected)
		return -ECONNRESET;
	if (cmd->len && !cmd->buf)
		return -EINVAL;
	if (!q->nfree)
		return -EAGAIN;
	struct nvmf_rh_slot *s = &q->slots[q->free_slots[q->nfree - 1]];
	memcpy(s->sqe, &cmd->sqe, sizeof(*s->sqe));
	s->wr.num_sge = 1;
	s->bounce = NULL;
	s->copy_back = false;
	const struct nvmf_rdma_region *reg =
		cmd->len ? nvmf_rdma_dev_lookup(q->dev, cmd->buf, cmd->len) : NULL;

	if (!cmd->len) {
		nvme_sgl_set_keyed(s->sqe, 0, 0, 0, false);
	} else if (cmd->write && cmd->len <= q->incapsule) {
		/* In-capsule: the data follows the SQE in the same SEND. */
		struct ibv_sge *d = &s->sge[1];
		if (reg) {
			d->addr = (uintptr_t)cmd->buf;
			d->lkey = reg->lkey;
		} else {
			void *icd = (uint8_t *)q->icd_mem + (size_t)(s - q->slots) * q->icd_stride;
			memcpy(icd, cmd->buf, cmd->len);
			d->addr = (uintptr_t)icd;
			d->lkey = q->icd_mr->lkey;
		}
		d->length = cmd->len;
		s->wr.num_sge = 2;
		nvme_sgl_set_incapsule(s->sqe, 0, cmd->len); /* ICDOFF 0 */
	} else if (cmd->len > NVME_SGL_KEYED_MAX_LEN) {
		return -EINVAL;
	} else if (reg) {
		nvme_sgl_set_keyed(s->sqe, (uintptr_t)cmd->buf, cmd->len, reg->rkey, false);
	} else {
		void *b;
		uint32_t rkey;
		int rc = pool_get(&q->pool, cmd->len, &b, &rkey, &s->bounce_ref);
		if (rc)
			return rc;
		s->bounce = b;
		if (cmd->write)
			memcpy(b, cmd->buf, cmd->len);
		else
			s->copy_back = true;
		nvme_sgl_set_keyed(s->sqe, (uintptr_t)b, cmd->len, rkey, false);
	}
	s->cmd = cmd;
	s->send_done = s->cqe_done = false;
	cmd->tctx = s;
	s->wr.next = NULL;
	if (q->qid) {
		/* Posted by the next poll or wait, with the pass's other commands. */
		if (q->tx_last)
			q->tx_last->next = &s->wr;
		else
			q->tx_head = &s->wr;
		q->tx_last = &s->wr;
		q->nfree--;
		return 0;
	}
	/* The admin queue's few commands (an Asynchronous Event Request nobody polls for)
	 * go out at once. */
	struct ibv_send_wr *bad;
	int rc = ibv_post_send(q->id->qp, &s->wr, &bad);
	if (rc) {
		slot_release_data(q, s);
		s->cmd = NULL;
		cmd->tctx = NULL;
		if (post_full(rc))
			return -EAGAIN; /* send queue full */
		q->dead = true;
		return -ECONNRESET;
	}
	q->nfree--;
	return 0;
}

/* A CM event on the queue's channel (non-blocking): DISCONNECTED and friends kill it. */
static void check_cm(struct nvmf_rh_queue *q)
{
	struct rdma_cm_event *ev;
	while (rdma_get_cm_event(q->ec, &ev) == 0) {
		switch (ev->event) {
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			q->dead = true;
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
}

/* One RECV completion: the CQE. Returns 0, or -1 when the queue is broken. */
static int on_recv(struct nvmf_rh_queue *q, const struct ibv_wc *wc, uint32_t idx)
{
	if (idx >= q->size || wc->byte_len < NVME_CQE_SIZE) {
		NVMF_RH_LOG("queue %u: receive of %u bytes is not a CQE\n", q->qid, wc->byte_len);
		return -1;
	}
	/* WITH_INV cannot concern us: we never send 0x4F, so nothing of ours is invalidated. */
	struct nvme_cqe cqe;
	memcpy(&cqe, &q->rsp[idx], sizeof(cqe));
	int rc = nvmf_rh_post_recv(q, idx);
	if (rc) {
		NVMF_RH_LOG("queue %u: ibv_post_recv: %s\n", q->qid, strerror(rc));
		return -1;
	}
	struct nvmf_hcmd *cmd = nvmf_hq_cmd_by_cid(q->hq, cqe.command_id);
	struct nvmf_rh_slot *s = cmd ? cmd->tctx : NULL;
	if (s && s >= q->slots && s < q->slots + q->nslots && s->cmd == cmd) {
		if (s->copy_back)
			memcpy(cmd->buf, s->bounce, cmd->len);
		slot_release_data(q, s);
		s->cmd = NULL;
		s->cqe_done = true;
		if (s->send_done)
			slot_free(q, s);
	}
	nvmf_hq_complete(q->hq, &cqe);
	return 0;
}

static int hq_poll(struct nvmf_hq *hq, unsigned max)
{
	struct nvmf_rh_queue *q = hq->tpriv;
	if (!q || q->dead)
		return -ECONNRESET;
	tx_flush(q);
	int reaped = 0;
	while (!max || (unsigned)reaped < max) {
		if (q->wc_head == q->wc_count) {
			q->wc_head = q->wc_count = 0;
			int n = ibv_poll_cq(q->cq, NVMF_RH_WC_BATCH, q->wc);
			if (n < 0) {
				q->dead = true;
				break;
			}
			if (n == 0) {
				if (q->post_failed) {
					q->dead = true; /* the CQ read to its end: now it ends */
					break;
				}
				/* Idle: look for a disconnect, at most once per tick of the coarse
				 * clock (a few ms): each look is a system call, and a polling loop
				 * finds the CQ empty many times per command. Only now: what the CQ
				 * held came before the disconnect. */
				uint64_t now = nvmf_mono_coarse_ms();
				if (q->cm_pending || now != q->cm_checked_ms) {
					q->cm_pending = false;
					q->cm_checked_ms = now;
					check_cm(q);
				}
				break;
			}
			q->wc_count = (unsigned)n;
		}
		const struct ibv_wc *wc = &q->wc[q->wc_head++];
		uint32_t kind = (uint32_t)(wc->wr_id >> 32), idx = (uint32_t)wc->wr_id;
		if (wc->status != IBV_WC_SUCCESS) {
			if (wc->status != IBV_WC_WR_FLUSH_ERR)
				NVMF_RH_LOG("queue %u: %s completion: %s\n", q->qid,
					    kind == NVMF_RH_WR_RECV ? "receive" : "send",
					    ibv_wc_status_str(wc->status));
			q->dead = true;
			break;
		}
		if (kind == NVMF_RH_WR_RECV) {
			if (on_recv(q, wc, idx)) {
				q->dead = true;
				break;
			}
			reaped++;
			/* The core's callback may have torn the queue down. */
			if (hq->tpriv != q)
				return reaped;
			if (q->dead)
				break;
		} else if (kind == NVMF_RH_WR_SEND && idx < q->nslots) {
			struct nvmf_rh_slot *s = &q->slots[idx];
			s->send_done = true;
			if (s->cqe_done)
				slot_free(q, s);
		}
	}
	if (q->dead && !reaped)
		return -ECONNRESET;
	return reaped;
}

static int hq_wait(struct nvmf_hq *hq, int timeout_ms)
{
	struct nvmf_rh_queue *q = hq->tpriv;
	if (!q || q->dead)
		return -ECONNRESET;
	if (q->wc_head < q->wc_count)
		return 0;
	/* Commands submitted since the last poll: out before sleeping on their answers. */
	tx_flush(q);
	if (q->post_failed)
		return 0; /* the next poll reads the CQ, then ends the queue */
	if (ibv_req_notify_cq(q->cq, 0)) {
		q->dead = true;
		return -ECONNRESET;
	}
	/* Completions that arrived before the arming raise no event: look once more. */
	int n = ibv_poll_cq(q->cq, NVMF_RH_WC_BATCH, q->wc);
	if (n > 0) {
		q->wc_head = 0;
		q->wc_count = (unsigned)n;
		return 0;
	}
	struct pollfd pfd[2] = {
		{ .fd = q->cc->fd, .events = POLLIN },
		{ .fd = q->ec->fd, .events = POLLIN },
	};
	int rc = poll(pfd, 2, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	if (rc == 0)
		return -ETIMEDOUT;
	if (pfd[0].revents) {
		struct ibv_cq *cq;
		void *ctx;
		if (ibv_get_cq_event(q->cc, &cq, &ctx) == 0)
			ibv_ack_cq_events(cq, 1);
	}
	/* A CM event: the next poll looks at it once the CQ is empty (not here: a CQE may
	 * have come before the disconnect, and it is an answer). */
	if (pfd[1].revents)
		q->cm_pending = true;
	return 0;
}

static void hq_set_incapsule(struct nvmf_hq *hq, uint32_t ioccsz)
{
	struct nvmf_rh_queue *q = hq->tpriv;
	if (!q || q->qid == 0)
		return; /* admin capsules are always 64 bytes */
	uint32_t want = nvmf_rh_incapsule_size(ioccsz);
	if (q->icd_mem) {
		/* Slots in flight may use the area: never reallocate, only shrink. */
		q->incapsule = want < q->icd_stride ? want : q->icd_stride;
		return;
	}
	if (!want) {
		q->incapsule = 0;
		return;
	}
	uint32_t stride = (want + 63) / 64 * 64;
	size_t len = (size_t)stride * q->nslots;
	void *mem;
	if (posix_memalign(&mem, 4096, len))
		return; /* keyed SGLs work without it */
	struct ibv_mr *mr = ibv_reg_mr(q->dev->pd, mem, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		free(mem);
		return;
	}
	q->icd_mem = mem;
	q->icd_mr = mr;
	q->icd_stride = stride;
	q->incapsule = want;
}

static int hq_mem_register(struct nvmf_hq *admin, void *addr, size_t len)
{
	struct nvmf_rh_queue *q = admin ? admin->tpriv : NULL;
	if (!q || !q->dev)
		return -ENOTCONN;
	return nvmf_rdma_dev_register(q->dev, addr, len);
}

static int hq_mem_unregister(struct nvmf_hq *admin, void *addr)
{
	struct nvmf_rh_queue *q = admin ? admin->tpriv : NULL;
	return nvmf_rdma_dev_unregister(q ? q->dev : NULL, addr);
}

const struct nvmf_host_transport nvmf_rdma_host_transport = {
	.name = "rdma",
	.queue_connect = nvmf_rh_queue_connect,
	.queue_disconnect = nvmf_rh_queue_disconnect,
	.submit = hq_submit,
	.poll = hq_poll,
	.wait = hq_wait,
	.set_incapsule = hq_set_incapsule,
	.mem_register = hq_mem_register,
	.mem_unregister = hq_mem_unregister,
};
