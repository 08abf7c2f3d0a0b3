/* The fake RDMA device and its host (see fake_verbs.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "rdma/target/internal.h"
#include "tests/unit/rdma/fake_verbs.h"

/* Room for @need elements in a growing array. */
static void *grow(void *p, unsigned *alloc, unsigned need, size_t size)
{
	if (need <= *alloc)
		return p;
	unsigned n = *alloc ? *alloc : 16;
	while (n < need)
		n *= 2;
	p = realloc(p, (size_t)n * size);
	if (!p)
		abort();
	*alloc = n;
	return p;
}

void fv_violation(struct fv_dev *d, const char *fmt, ...)
{
	char msg[sizeof(d->why)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fake verbs: VIOLATION: %s\n", msg);
	if (!d->violations++)
		snprintf(d->why, sizeof(d->why), "%s", msg);
}

static struct fv_dev *dev_of_ctx(struct ibv_context *ctx)
{
	return container_of(ctx, struct fv_dev, ctx);
}

static struct fv_dev *dev_of_pd(struct ibv_pd *pd)
{
	return container_of(pd, struct fv_dev, pd);
}

struct fv_qp *fv_qp_of(struct ibv_qp *qp)
{
	return container_of(qp, struct fv_qp, qp);
}

struct fv_srq *fv_srq_of(struct ibv_srq *srq)
{
	return container_of(srq, struct fv_srq, srq);
}

static struct fv_cq *cq_of(struct ibv_cq *cq)
{
	return container_of(cq, struct fv_cq, cq);
}

/* ---- memory ---- */

/* The MR of @lkey holding all of @sge, with LOCAL_WRITE if @write. */
static bool sge_ok(struct fv_dev *d, const struct ibv_sge *sge, bool write)
{
	for (const struct fv_mr *m = d->mrs; m; m = m->next) {
		if (m->mr.lkey != sge->lkey)
			continue;
		uintptr_t lo = (uintptr_t)m->mr.addr, hi = lo + m->mr.length;
		return sge->addr >= lo && sge->addr + sge->length <= hi &&
		       (!write || (m->access & IBV_ACCESS_LOCAL_WRITE));
	}
	return false;
}

static struct ibv_mr *fv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct fv_dev *d = dev_of_pd(pd);
	struct fv_mr *m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	m->mr.pd = pd;
	m->mr.context = &d->ctx;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = m->mr.rkey = d->next_key++;
	m->access = access;
	m->next = d->mrs;
	d->mrs = m;
	return &m->mr;
}

static int fv_dereg_mr(struct ibv_mr *mr)
{
	struct fv_dev *d = dev_of_pd(mr->pd);
	for (struct fv_mr **pp = &d->mrs; *pp; pp = &(*pp)->next) {
		if (&(*pp)->mr == mr) {
			struct fv_mr *m = *pp;
			*pp = m->next;
			free(m);
			return 0;
		}
	}
	fv_violation(d, "dereg_mr of an MR that is not registered");
	return EINVAL;
}

/* ---- completion queues and channels ---- */

static struct ibv_comp_channel *fv_create_channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch = calloc(1, sizeof(*ch));
	if (!ch)
		abort();
	ch->context = ctx;
	ch->fd = eventfd(0, EFD_CLOEXEC);
	if (ch->fd < 0) {
		free(ch);
		return NULL;
	}
	dev_of_ctx(ctx)->nchannel++;
	return ch;
}

static int fv_destroy_channel(struct ibv_comp_channel *ch)
{
	dev_of_ctx(ch->context)->nchannel--;
	close(ch->fd);
	free(ch);
	return 0;
}

static void fv_ack_channel(struct ibv_comp_channel *ch)
{
	uint64_t v;
	while (read(ch->fd, &v, sizeof(v)) > 0)
		;
}

static struct ibv_cq *fv_create_cq(struct ibv_context *ctx, int cqe, void *cq_ctx,
				   struct ibv_comp_channel *ch)
{
	struct fv_cq *cq = calloc(1, sizeof(*cq));
	if (!cq)
		abort();
	cq->dev = dev_of_ctx(ctx);
	cq->cq.context = ctx;
	cq->cq.cq_context = cq_ctx;
	cq->cq.channel = ch;
	cq->cq.cqe = cqe;
	cq->dev->ncq++;
	return &cq->cq;
}

static int fv_resize_cq(struct ibv_cq *cq, int cqe)
{
	struct fv_cq *c = cq_of(cq);
	if (cqe < (int)(c->len - c->head))
		return EINVAL;
	cq->cqe = cqe;
	return 0;
}

static int fv_destroy_cq(struct ibv_cq *cq)
{
	struct fv_cq *c = cq_of(cq);
	for (struct fv_qp *q = c->dev->qps; q; q = q->next)
		if (!q->destroyed && (q->qp.send_cq == cq || q->qp.recv_cq == cq))
			fv_violation(c->dev, "destroy_cq while QP %u still uses it", q->qp.qp_num);
	c->dev->ncq--;
	free(c->e);
	free(c);
	return 0;
}

static int fv_req_notify_cq(struct ibv_cq *cq)
{
	cq_of(cq)->armed = true;
	return 0;
}

static void cq_push(struct ibv_cq *cq, struct fv_qp *qp, int sq_index, const struct ibv_wc *wc)
{
	struct fv_cq *c = cq_of(cq);
	if (c->len - c->head >= (unsigned)cq->cqe)
		fv_violation(c->dev, "CQ overrun: %d entries", cq->cqe);
	c->e = grow(c->e, &c->alloc, c->len + 1, sizeof(*c->e));
	c->e[c->len++] = (struct fv_cqe){ .wc = *wc, .qp = qp, .sq_index = sq_index };
	if (c->armed && cq->channel) {
		uint64_t one = 1;
		c->armed = false;
		if (write(cq->channel->fd, &one, sizeof(one)) != sizeof(one))
			fv_violation(c->dev, "completion channel write failed");
	}
}

/* A completion of @qp's work: send WR @sq_index, or a receive (-1). */
static void complete(struct fv_qp *qp, bool recv, int sq_index, uint64_t wr_id,
		     enum ibv_wc_status st, enum ibv_wc_opcode opcode, uint32_t byte_len)
{
	struct ibv_wc wc = { .wr_id = wr_id,
			     .status = st,
			     .opcode = opcode,
			     .byte_len = byte_len,
			     .qp_num = qp->qp.qp_num };
	cq_push(recv ? qp->qp.recv_cq : qp->qp.send_cq, qp, sq_index, &wc);
}

static int fv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fv_cq *c = cq_of(cq);
	int k = 0;
	while (k < n && c->head < c->len) {
		struct fv_cqe *e = &c->e[c->head++];
		wc[k++] = e->wc;
		/* A completion frees the send queue slots of its WR and of every earlier one. */
		if (e->qp && e->sq_index >= 0 && e->qp->retired < (unsigned)e->sq_index + 1)
			e->qp->retired = (unsigned)e->sq_index + 1;
	}
	if (c->head == c->len)
		c->head = c->len = 0;
	return k;
}

void fv_inject(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	cq_push(cq, NULL, -1, wc);
}

/* ---- receives ---- */

unsigned fv_posted(const struct fv_rq *rq)
{
	return rq->len - rq->head;
}

static int rq_post(struct fv_dev *d, struct fv_rq *rq, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad)
{
	for (; wr; wr = wr->next) {
		bool ok = fv_posted(rq) < rq->max_wr && wr->num_sge >= 1 &&
			  (uint32_t)wr->num_sge <= rq->max_sge && wr->num_sge <= 2;
		for (int i = 0; ok && i < wr->num_sge; i++)
			ok = sge_ok(d, &wr->sg_list[i], true);
		if (!ok) {
			fv_violation(
				d,
				"bad receive WR (%u of %u posted, %d SGEs, or an SGE outside its MR)",
				fv_posted(rq), rq->max_wr, wr->num_sge);
			*bad = wr;
			return ENOMEM;
		}
		if (rq->head == rq->len)
			rq->head = rq->len = 0;
		rq->r = grow(rq->r, &rq->alloc, rq->len + 1, sizeof(*rq->r));
		struct fv_recv *r = &rq->r[rq->len++];
		r->wr_id = wr->wr_id;
		r->num_sge = wr->num_sge;
		memcpy(r->sge, wr->sg_list, (size_t)wr->num_sge * sizeof(*r->sge));
	}
	return 0;
}

static int fv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct fv_srq *s = fv_srq_of(srq);
	return rq_post(s->dev, &s->rq, wr, bad);
}

static void qp_flush(struct fv_qp *qp);

static int fv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct fv_qp *q = fv_qp_of(qp);
	if (qp->srq) {
		fv_violation(q->dev, "post_recv on QP %u, which has an SRQ", qp->qp_num);
		*bad = wr;
		return EINVAL;
	}
	int rc = rq_post(q->dev, &q->rq, wr, bad);
	if (q->error)
		qp_flush(q); /* posted to a QP in error: flushed at once */
	return rc;
}

uint64_t fv_srq_take(struct ibv_srq *srq)
{
	struct fv_rq *rq = &fv_srq_of(srq)->rq;
	return fv_posted(rq) ? rq->r[rq->head++].wr_id : 0;
}

static struct ibv_srq *fv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct fv_srq *s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	s->dev = dev_of_pd(pd);
	s->srq.pd = pd;
	s->srq.context = &s->dev->ctx;
	s->rq.max_wr = attr->attr.max_wr;
	s->rq.max_sge = attr->attr.max_sge;
	s->dev->nsrq++;
	return &s->srq;
}

static int fv_destroy_srq(struct ibv_srq *srq)
{
	struct fv_srq *s = fv_srq_of(srq);
	s->dev->nsrq--;
	free(s->rq.r);
	free(s);
	return 0;
}

/* ---- queue pairs ---- */

static struct ibv_qp *fv_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
				   struct ibv_qp_init_attr *attr)
{
	(void)id;
	struct fv_dev *d = dev_of_pd(pd);
	if (attr->qp_type != IBV_QPT_RC || !attr->send_cq || !attr->recv_cq ||
	    attr->cap.max_inline_data > d->max_inline) {
		errno = EINVAL;
		return NULL;
	}
	struct fv_qp *q = calloc(1, sizeof(*q));
	if (!q)
		abort();
	q->dev = d;
	q->qp.context = &d->ctx;
	q->qp.pd = pd;
	q->qp.qp_context = attr->qp_context;
	q->qp.send_cq = attr->send_cq;
	q->qp.recv_cq = attr->recv_cq;
	q->qp.srq = attr->srq;
	q->qp.qp_type = IBV_QPT_RC;
	q->qp.qp_num = d->next_qp_num++;
	q->cap = attr->cap;
	q->rq.max_wr = attr->cap.max_recv_wr;
	q->rq.max_sge = attr->cap.max_recv_sge;
	q->next = d->qps;
	d->qps = q;
	d->nqp++;
	return &q->qp;
}

static void fv_destroy_qp(struct rdma_cm_id *id, struct ibv_qp *qp)
{
	(void)id;
	struct fv_qp *q = fv_qp_of(qp);
	struct fv_dev *d = q->dev;
	if (q->destroyed)
		fv_violation(d, "QP %u destroyed twice", qp->qp_num);
	/* ibv_destroy_qp waits until every event of the QP it reported was acked: this would
	 * never return. */
	if (q->events_unacked)
		fv_violation(d, "QP %u destroyed with %u asynchronous event(s) not acked",
			     qp->qp_num, q->events_unacked);
	/* The kernel drops the events of a destroyed QP nobody took yet. */
	for (struct fv_async **pp = &d->aev_head; *pp;) {
		struct fv_async *a = *pp;
		if (a->ev.element.qp == qp && a->ev.event_type != IBV_EVENT_SRQ_ERR &&
		    a->ev.event_type != IBV_EVENT_SRQ_LIMIT_REACHED &&
		    a->ev.event_type != IBV_EVENT_CQ_ERR) {
			*pp = a->next;
			free(a);
		} else {
			pp = &a->next;
		}
	}
	d->aev_tail = &d->aev_head;
	while (*d->aev_tail)
		d->aev_tail = &(*d->aev_tail)->next;
	/* What it took from the SRQ and never gave back is gone for good. */
	d->srq_lost += fv_posted(&q->srq_held);
	q->srq_held.head = q->srq_held.len;
	q->destroyed = q->error = true;
	d->nqp--;
}

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	default:
		return IBV_WC_SEND;
	}
}

/* What @q took from its SRQ, flushed; then, on a device that raises it, LAST_WQE_REACHED
 * (once per error state). */
static void srq_release(struct fv_qp *q, bool event)
{
	while (fv_posted(&q->srq_held))
		complete(q, true, -1, q->srq_held.r[q->srq_held.head++].wr_id, IBV_WC_WR_FLUSH_ERR,
			 IBV_WC_RECV, 0);
	if (event && !q->last_wqe_sent) {
		q->last_wqe_sent = true;
		fv_async_event(q->dev, IBV_EVENT_QP_LAST_WQE_REACHED, &q->qp);
	}
}

/* Error state: every WR not executed yet, signaled or not, and every own receive; with an
 * SRQ what the QP took from it, and the event that no more will be. */
void fv_flush(struct fv_qp *q)
{
	q->error = true;
	for (; q->exec < q->sq_len; q->exec++) {
		struct fv_send *s = &q->sq[q->exec];
		s->done = s->flushed = true;
		complete(q, false, (int)q->exec, s->wr_id, IBV_WC_WR_FLUSH_ERR,
			 wc_opcode(s->opcode), 0);
	}
	while (fv_posted(&q->rq))
		complete(q, true, -1, q->rq.r[q->rq.head++].wr_id, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV,
			 0);
	if (q->qp.srq && (q->dev->no_last_wqe_events || !q->dev->hold_last_wqe))
		srq_release(q, !q->dev->no_last_wqe_events);
}

unsigned fv_srq_assign(struct fv_qp *q, unsigned n)
{
	if (!q->qp.srq || q->error)
		return 0;
	struct fv_rq *srq = &fv_srq_of(q->qp.srq)->rq;
	unsigned k = 0;
	for (; k < n && fv_posted(srq); k++) {
		if (q->srq_held.head == q->srq_held.len)
			q->srq_held.head = q->srq_held.len = 0;
		q->srq_held.r = grow(q->srq_held.r, &q->srq_held.alloc, q->srq_held.len + 1,
				     sizeof(*q->srq_held.r));
		q->srq_held.r[q->srq_held.len++] = srq->r[srq->head++];
	}
	return k;
}

void fv_last_wqe(struct fv_qp *q)
{
	if (!q->error || !q->qp.srq || q->destroyed) {
		fv_violation(q->dev, "QP %u: LAST_WQE_REACHED asked of a QP not in error on an SRQ",
			     q->qp.qp_num);
		return;
	}
	srq_release(q, true);
}

static void qp_flush(struct fv_qp *q)
{
	q->error = true;
	if (!q->dev->hold_flush)
		fv_flush(q);
}

static int fv_qp_error(struct ibv_qp *qp)
{
	qp_flush(fv_qp_of(qp));
	return 0;
}

static bool is_send(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_INV;
}

unsigned fv_inflight(const struct fv_qp *q, enum ibv_wr_opcode op)
{
	unsigned n = 0;
	for (unsigned i = q->exec; i < q->sq_len; i++)
		n += q->sq[i].opcode == op || (is_send(op) && is_send(q->sq[i].opcode));
	return n;
}

unsigned fv_count(const struct fv_qp *q, enum ibv_wr_opcode op)
{
	unsigned n = 0;
	for (unsigned i = 0; i < q->sq_len; i++)
		n += q->sq[i].opcode == op;
	return n;
}

/* What the device and the transport's rules say about one WR of a post. */
static bool send_wr_ok(struct fv_qp *q, const struct ibv_send_wr *w, bool last_send)
{
	struct fv_dev *d = q->dev;
	unsigned n = q->qp.qp_num;
	bool signaled = w->send_flags & IBV_SEND_SIGNALED;
	if (w->num_sge != 1 || (uint32_t)w->num_sge > q->cap.max_send_sge) {
		fv_violation(d, "QP %u: send WR with %d SGEs", n, w->num_sge);
		return false;
	}
	const struct ibv_sge *sge = w->sg_list;
	switch (w->opcode) {
	case IBV_WR_RDMA_READ:
		if (!signaled)
			fv_violation(d, "QP %u: unsignaled RDMA READ", n);
		if (!sge_ok(d, sge, true))
			fv_violation(d, "QP %u: RDMA READ into memory outside its MR (lkey %#x)", n,
				     sge->lkey);
		return signaled && sge_ok(d, sge, true);
	case IBV_WR_RDMA_WRITE:
		if (signaled)
			fv_violation(d, "QP %u: signaled RDMA WRITE (its SEND reports it)", n);
		if (!sge_ok(d, sge, false))
			fv_violation(d, "QP %u: RDMA WRITE from memory outside its MR (lkey %#x)",
				     n, sge->lkey);
		return !signaled && sge_ok(d, sge, false);
	case IBV_WR_SEND_WITH_INV:
		if (!d->send_with_inv) {
			fv_violation(d, "QP %u: SEND_WITH_INV on a device without it", n);
			return false;
		}
		/* fall through */
	case IBV_WR_SEND:
		if (signaled != last_send)
			fv_violation(d, "QP %u: %s SEND in a post (only the last SEND is signaled)",
				     n, signaled ? "signaled non-last" : "unsignaled last");
		if (sge->length != NVME_CQE_SIZE)
			fv_violation(d, "QP %u: SEND of %u bytes, not a 16-byte CQE", n,
				     sge->length);
		if (w->send_flags & IBV_SEND_INLINE) {
			if (sge->length > q->cap.max_inline_data) {
				fv_violation(d, "QP %u: inline SEND beyond max_inline_data %u", n,
					     q->cap.max_inline_data);
				return false;
			}
		} else if (!sge_ok(d, sge, false)) {
			fv_violation(d, "QP %u: SEND from memory outside its MR (lkey %#x)", n,
				     sge->lkey);
			return false;
		}
		return signaled == last_send && sge->length == NVME_CQE_SIZE;
	default:
		fv_violation(d, "QP %u: opcode %u", n, (unsigned)w->opcode);
		return false;
	}
}

static int fv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct fv_qp *q = fv_qp_of(qp);
	struct fv_dev *d = q->dev;
	if (d->on_post) {
		void (*fn)(void *) = d->on_post;
		d->on_post = NULL;
		fn(d->on_post_arg);
	}
	unsigned post = ++d->posts;
	int fail_at = d->fail_post_send_at;
	d->fail_post_send_at = -1;
	const struct ibv_send_wr *last_send = NULL;
	for (const struct ibv_send_wr *w = wr; w; w = w->next)
		if (is_send(w->opcode))
			last_send = w;
	int i = 0, err = 0;
	for (struct ibv_send_wr *w = wr; w; w = w->next, i++) {
		if (i == fail_at) {
			err = ENOMEM;
		} else if (q->sq_len - q->retired >= q->cap.max_send_wr) {
			fv_violation(d, "QP %u: send queue overflow (%u WRs)", qp->qp_num,
				     q->cap.max_send_wr);
			err = ENOMEM;
		} else if (!send_wr_ok(q, w, w == last_send)) {
			err = EINVAL;
		}
		if (err) {
			*bad = w;
			break;
		}
		q->sq = grow(q->sq, &q->sq_alloc, q->sq_len + 1, sizeof(*q->sq));
		struct fv_send *s = &q->sq[q->sq_len++];
		*s = (struct fv_send){ .opcode = w->opcode,
				       .flags = w->send_flags,
				       .wr_id = w->wr_id,
				       .sge = w->sg_list[0],
				       .remote_addr = w->wr.rdma.remote_addr,
				       .rkey = w->wr.rdma.rkey,
				       .post = post,
				       .recvs_posted = fv_posted(qp->srq ? &fv_srq_of(qp->srq)->rq :
									   &q->rq) };
		if (w->opcode == IBV_WR_SEND_WITH_INV)
			s->invalidate_rkey = w->invalidate_rkey;
		if ((w->send_flags & IBV_SEND_INLINE) && s->sge.length <= sizeof(s->inline_data))
			memcpy(s->inline_data, (const void *)(uintptr_t)s->sge.addr, s->sge.length);
		unsigned reads = fv_inflight(q, IBV_WR_RDMA_READ),
			 sends = fv_inflight(q, IBV_WR_SEND);
		if (reads > q->reads_max)
			q->reads_max = reads;
		if (sends > q->sends_max)
			q->sends_max = sends;
	}
	if (d->exec_on_post)
		fv_host_run(q, UINT_MAX); /* what was posted ran, even if the rest failed */
	if (q->error)
		qp_flush(q); /* posted to a QP in error: flushed at once */
	return err;
}

/* ---- the host ---- */

uint32_t fv_host_reg(struct fv_dev *d, void *addr, size_t len)
{
	d->hmr = grow(d->hmr, &d->hmr_alloc, d->nhmr + 1, sizeof(*d->hmr));
	d->hmr[d->nhmr] = (struct fv_host_mr){ addr, len, 0x10000u + d->nhmr, true };
	return d->hmr[d->nhmr++].rkey;
}

static struct fv_host_mr *host_mr(const struct fv_dev *d, uint32_t rkey)
{
	for (unsigned i = 0; i < d->nhmr; i++)
		if (d->hmr[i].rkey == rkey)
			return &d->hmr[i];
	return NULL;
}

bool fv_host_key_valid(const struct fv_dev *d, uint32_t rkey)
{
	const struct fv_host_mr *m = host_mr(d, rkey);
	return m && m->valid;
}

/* Host memory [@addr, @addr + @len) under @rkey, or NULL (remote access error). */
static uint8_t *host_range(const struct fv_dev *d, uint32_t rkey, uint64_t addr, uint32_t len)
{
	const struct fv_host_mr *m = host_mr(d, rkey);
	if (!m || !m->valid || addr < (uintptr_t)m->addr ||
	    addr + len > (uintptr_t)m->addr + m->len)
		return NULL;
	return (uint8_t *)(uintptr_t)addr;
}

void fv_host_credits(struct fv_qp *qp, unsigned n)
{
	qp->credits += n;
}

int fv_host_send(struct fv_qp *qp, const void *buf, size_t len)
{
	if (qp->error)
		return -EPIPE;
	struct fv_rq *rq = qp->qp.srq ? &fv_srq_of(qp->qp.srq)->rq : &qp->rq;
	if (!fv_posted(rq))
		return -EAGAIN;
	struct fv_recv *r = &rq->r[rq->head++];
	size_t off = 0;
	for (int i = 0; i < r->num_sge && off < len; i++) {
		size_t k = len - off < r->sge[i].length ? len - off : r->sge[i].length;
		memcpy((void *)(uintptr_t)r->sge[i].addr, (const uint8_t *)buf + off, k);
		off += k;
	}
	if (off < len) {
		complete(qp, true, -1, r->wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0);
		qp_flush(qp);
		return 0;
	}
	complete(qp, true, -1, r->wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, (uint32_t)len);
	return 0;
}

/* A SEND arriving at the host: the CQE lands in one of its receives. */
static void host_deliver(struct fv_qp *q, const struct fv_send *s)
{
	struct fv_resp r = { .with_inv = s->opcode == IBV_WR_SEND_WITH_INV,
			     .inv_rkey = s->invalidate_rkey };
	const void *src = (s->flags & IBV_SEND_INLINE) ? s->inline_data :
							 (const void *)(uintptr_t)s->sge.addr;
	memcpy(&r.cqe, src, sizeof(r.cqe));
	if (r.with_inv) {
		struct fv_host_mr *m = host_mr(q->dev, r.inv_rkey);
		if (!m || !m->valid)
			fv_violation(q->dev,
				     "QP %u: SEND_WITH_INV of rkey %#x, not a valid host key",
				     q->qp.qp_num, r.inv_rkey);
		else
			m->valid = false;
	}
	q->resp = grow(q->resp, &q->resp_alloc, q->resp_len + 1, sizeof(*q->resp));
	q->resp[q->resp_len++] = r;
}

unsigned fv_host_run(struct fv_qp *q, unsigned max)
{
	unsigned n = 0;
	while (n < max && !q->error && q->exec < q->sq_len) {
		struct fv_send *s = &q->sq[q->exec];
		enum ibv_wc_status st = IBV_WC_SUCCESS;
		if (s->opcode == IBV_WR_RDMA_READ || s->opcode == IBV_WR_RDMA_WRITE) {
			uint8_t *host = host_range(q->dev, s->rkey, s->remote_addr, s->sge.length);
			void *local = (void *)(uintptr_t)s->sge.addr;
			if (!host)
				st = IBV_WC_REM_ACCESS_ERR;
			else if (s->opcode == IBV_WR_RDMA_READ)
				memcpy(local, host, s->sge.length);
			else
				memcpy(host, local, s->sge.length);
		} else {
			if (!q->credits) {
				q->rnr++; /* RNR NAK: the device retries later */
				break;
			}
			q->credits--;
			host_deliver(q, s);
		}
		s->done = true;
		int idx = (int)q->exec++;
		n++;
		if (st != IBV_WC_SUCCESS) {
			complete(q, false, idx, s->wr_id, st, wc_opcode(s->opcode), 0);
			qp_flush(q);
		} else if (s->flags & IBV_SEND_SIGNALED) {
			complete(q, false, idx, s->wr_id, st, wc_opcode(s->opcode),
				 s->opcode == IBV_WR_RDMA_READ ? s->sge.length : 0);
		}
	}
	return n;
}

bool fv_host_take(struct fv_qp *q, struct fv_resp *out)
{
	if (q->resp_head == q->resp_len)
		return false;
	*out = q->resp[q->resp_head++];
	q->credits++;
	return true;
}

/* ---- the connection manager ---- */

static struct fv_cm_id *cm_id_of(struct rdma_cm_id *id)
{
	return container_of(id, struct fv_cm_id, id);
}

static void cm_push(struct fv_dev *d, struct fv_cm_event *e)
{
	e->next = NULL;
	*d->cm_tail = e;
	d->cm_tail = &e->next;
}

struct fv_cm_id *fv_cm_connect(struct fv_dev *d, struct rdma_cm_id *listen_id, const void *pdata,
			       uint8_t len, uint8_t initiator_depth, uint8_t responder_resources)
{
	struct fv_cm_id *c = calloc(1, sizeof(*c));
	struct fv_cm_event *e = calloc(1, sizeof(*e));
	if (!c || !e || len > sizeof(e->pdata))
		abort();
	c->dev = d;
	c->reject_sts = -1;
	c->id.verbs = &d->ctx;
	c->id.channel = listen_id->channel;
	c->id.ps = RDMA_PS_TCP;
	struct sockaddr_in *peer = (struct sockaddr_in *)&c->id.route.addr.dst_addr;
	peer->sin_family = AF_INET;
	peer->sin_port = htons(4242);
	peer->sin_addr.s_addr = htonl(0x0a000002); /* 10.0.0.2 */
	c->next = d->cm_ids;
	d->cm_ids = c;
	d->ncm_id++;
	memcpy(e->pdata, pdata, len);
	e->ev.id = &c->id;
	e->ev.listen_id = listen_id;
	e->ev.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	e->ev.param.conn.private_data = e->pdata;
	e->ev.param.conn.private_data_len = len;
	e->ev.param.conn.initiator_depth = initiator_depth;
	e->ev.param.conn.responder_resources = responder_resources;
	cm_push(d, e);
	return c;
}

void fv_cm_event(struct fv_cm_id *c, enum rdma_cm_event_type type)
{
	struct fv_cm_event *e = calloc(1, sizeof(*e));
	if (!e)
		abort();
	e->ev.id = &c->id;
	e->ev.event = type;
	cm_push(c->dev, e);
}

static struct fv_dev *dev_of_channel(struct rdma_event_channel *ec)
{
	return container_of(ec, struct fv_channel, ec)->dev;
}

/* The channel an event comes out of: its id's (a request's: the listener's). */
static struct rdma_event_channel *event_channel(const struct fv_cm_event *e)
{
	return e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST ? e->ev.listen_id->channel :
							      e->ev.id->channel;
}

static int fv_get_cm_event(struct rdma_event_channel *ec, struct rdma_cm_event **ev)
{
	struct fv_dev *d = dev_of_channel(ec);
	struct fv_cm_event **pp = &d->cm_head;
	while (*pp && event_channel(*pp) != ec)
		pp = &(*pp)->next;
	struct fv_cm_event *e = *pp;
	if (!e) {
		errno = EAGAIN;
		return -1;
	}
	*pp = e->next;
	d->cm_tail = &d->cm_head;
	while (*d->cm_tail)
		d->cm_tail = &(*d->cm_tail)->next;
	d->cm_unacked++;
	*ev = &e->ev;
	return 0;
}

/* The device the poll groups' channels belong to: the latest made (tests use one). */
static struct fv_dev *current_dev;

static struct rdma_event_channel *fv_create_event_channel(void)
{
	struct fv_channel *c = calloc(1, sizeof(*c));
	if (!c || !current_dev)
		abort();
	c->dev = current_dev;
	c->ec.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->ec.fd < 0)
		abort();
	current_dev->nec++;
	return &c->ec;
}

static void fv_destroy_event_channel(struct rdma_event_channel *ec)
{
	struct fv_channel *c = container_of(ec, struct fv_channel, ec);
	if (c == &c->dev->cm) {
		fv_violation(c->dev, "the transport's own event channel destroyed by a poll group");
		return;
	}
	c->dev->nec--;
	close(ec->fd);
	free(c);
}

static int fv_ack_cm_event(struct rdma_cm_event *ev)
{
	struct fv_cm_event *e = container_of(ev, struct fv_cm_event, ev);
	struct fv_dev *d = ev->id ? cm_id_of(ev->id)->dev : NULL;
	if (d)
		d->cm_unacked--;
	free(e);
	return 0;
}

static int fv_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct fv_cm_id *c = cm_id_of(id);
	if (c->accepted || c->rejected || c->destroyed)
		fv_violation(c->dev, "rdma_accept of a cm_id already %s",
			     c->destroyed ? "destroyed" :
			     c->accepted  ? "accepted" :
					    "rejected");
	c->accepted = true;
	c->accept = *param;
	if (param->private_data && param->private_data_len >= sizeof(c->rep))
		memcpy(&c->rep, param->private_data, sizeof(c->rep));
	c->accept.private_data = &c->rep;
	if (c->dev->fail_accept) {
		errno = ECONNREFUSED;
		return -1;
	}
	return 0;
}

static int fv_reject(struct rdma_cm_id *id, const void *pdata, uint8_t len)
{
	struct fv_cm_id *c = cm_id_of(id);
	if (c->accepted || c->rejected || c->destroyed)
		fv_violation(c->dev, "rdma_reject of a cm_id already %s",
			     c->destroyed ? "destroyed" :
			     c->accepted  ? "accepted" :
					    "rejected");
	c->rejected = true;
	c->reject_sts = nvme_rdma_cm_parse_rej(pdata, len);
	return 0;
}

static int fv_disconnect(struct rdma_cm_id *id)
{
	cm_id_of(id)->disconnected = true;
	return 0;
}

static int fv_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *ec)
{
	id->channel = ec;
	return 0;
}

static int fv_destroy_id(struct rdma_cm_id *id)
{
	struct fv_cm_id *c = cm_id_of(id);
	if (c->destroyed)
		fv_violation(c->dev, "cm_id destroyed twice");
	c->destroyed = true;
	c->dev->ncm_id--;
	return 0;
}

/* ---- asynchronous events ---- */

void fv_async_event(struct fv_dev *d, enum ibv_event_type type, void *element)
{
	struct fv_async *a = calloc(1, sizeof(*a));
	if (!a)
		abort();
	a->ev.event_type = type;
	if (nvmf_rdma_is_qp_event(type))
		a->ev.element.qp = element;
	else if (type == IBV_EVENT_SRQ_ERR || type == IBV_EVENT_SRQ_LIMIT_REACHED)
		a->ev.element.srq = element;
	else if (type == IBV_EVENT_CQ_ERR)
		a->ev.element.cq = element;
	else
		a->ev.element.port_num = 1;
	*d->aev_tail = a;
	d->aev_tail = &a->next;
	uint64_t one = 1;
	if (write(d->ctx.async_fd, &one, sizeof(one)) != sizeof(one))
		fv_violation(d, "async event fd write failed");
}

unsigned fv_async_pending(const struct fv_dev *d)
{
	unsigned n = 0;
	for (const struct fv_async *a = d->aev_head; a; a = a->next)
		n++;
	return n;
}

static int fv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	struct fv_dev *d = dev_of_ctx(ctx);
	struct fv_async *a = d->aev_head;
	if (!a) {
		uint64_t v;
		while (read(ctx->async_fd, &v, sizeof(v)) > 0)
			;
		errno = EAGAIN;
		return -1;
	}
	d->aev_head = a->next;
	if (!d->aev_head)
		d->aev_tail = &d->aev_head;
	*ev = a->ev;
	free(a);
	d->async_taken++;
	if (nvmf_rdma_is_qp_event(ev->event_type))
		fv_qp_of(ev->element.qp)->events_unacked++;
	return 0;
}

static void fv_ack_async_event(struct ibv_async_event *ev)
{
	if (nvmf_rdma_is_qp_event(ev->event_type)) {
		struct fv_qp *q = fv_qp_of(ev->element.qp);
		if (!q->events_unacked)
			fv_violation(q->dev, "QP %u: async event acked twice", q->qp.qp_num);
		else
			q->events_unacked--;
		q->dev->async_acked++;
	} else if (ev->event_type == IBV_EVENT_SRQ_ERR ||
		   ev->event_type == IBV_EVENT_SRQ_LIMIT_REACHED) {
		fv_srq_of(ev->element.srq)->dev->async_acked++;
	} else if (ev->event_type == IBV_EVENT_CQ_ERR) {
		container_of(ev->element.cq, struct fv_cq, cq)->dev->async_acked++;
	} else if (current_dev) {
		/* device and port events carry no pointer back: the device of the test */
		current_dev->async_acked++;
	}
}

/* ---- the device ---- */

struct fv_dev *fv_dev_new(void)
{
	struct fv_dev *d = calloc(1, sizeof(*d));
	if (!d)
		abort();
	d->pd.context = &d->ctx;
	d->send_with_inv = true;
	d->max_inline = 64;
	d->fail_post_send_at = -1;
	d->next_key = 0x100;
	d->next_qp_num = 0x11;
	d->ctx.async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->ctx.async_fd < 0)
		abort();
	d->cm.dev = d;
	d->cm.ec.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->cm.ec.fd < 0)
		abort();
	d->cm_tail = &d->cm_head;
	d->aev_tail = &d->aev_head;
	current_dev = d;
	return d;
}

unsigned fv_dev_live(const struct fv_dev *d)
{
	unsigned n = d->nqp + d->ncq + d->nsrq + d->nchannel + d->ncm_id + d->nec;
	for (const struct fv_mr *m = d->mrs; m; m = m->next)
		n++;
	return n;
}

void fv_dev_free(struct fv_dev *d)
{
	while (d->mrs) {
		struct fv_mr *m = d->mrs;
		d->mrs = m->next;
		free(m);
	}
	while (d->qps) {
		struct fv_qp *q = d->qps;
		d->qps = q->next;
		free(q->rq.r);
		free(q->srq_held.r);
		free(q->sq);
		free(q->resp);
		free(q);
	}
	free(d->hmr);
	while (d->cm_ids) {
		struct fv_cm_id *c = d->cm_ids;
		d->cm_ids = c->next;
		free(c);
	}
	while (d->cm_head) {
		struct fv_cm_event *e = d->cm_head;
		d->cm_head = e->next;
		free(e);
	}
	while (d->aev_head) {
		struct fv_async *a = d->aev_head;
		d->aev_head = a->next;
		free(a);
	}
	close(d->ctx.async_fd);
	close(d->cm.ec.fd);
	if (current_dev == d)
		current_dev = NULL;
	free(d);
}

const struct nvmf_rdma_verbs fake_verbs = {
	.post_send = fv_post_send,
	.post_recv = fv_post_recv,
	.post_srq_recv = fv_post_srq_recv,
	.poll_cq = fv_poll_cq,
	.qp_error = fv_qp_error,
	.req_notify_cq = fv_req_notify_cq,
	.ack_channel = fv_ack_channel,
	.reg_mr = fv_reg_mr,
	.dereg_mr = fv_dereg_mr,
	.create_channel = fv_create_channel,
	.destroy_channel = fv_destroy_channel,
	.create_cq = fv_create_cq,
	.resize_cq = fv_resize_cq,
	.destroy_cq = fv_destroy_cq,
	.create_srq = fv_create_srq,
	.destroy_srq = fv_destroy_srq,
	.create_qp = fv_create_qp,
	.destroy_qp = fv_destroy_qp,
	.create_event_channel = fv_create_event_channel,
	.destroy_event_channel = fv_destroy_event_channel,
	.get_cm_event = fv_get_cm_event,
	.ack_cm_event = fv_ack_cm_event,
	.accept = fv_accept,
	.reject = fv_reject,
	.disconnect = fv_disconnect,
	.migrate_id = fv_migrate_id,
	.destroy_id = fv_destroy_id,
	.get_async_event = fv_get_async_event,
	.ack_async_event = fv_ack_async_event,
};
