/* The RDMA target on the fake device, and its host (see fixture.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "nvme/sgl.h"
#include "tests/unit/rdma/fixture.h"
#include "nvme/fabrics.h"

/* ---- the transport as the core sees it: no CM, the fake verbs ---- */

static struct nvmf_transport *
rx_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts, char *err, size_t errlen)
{
	struct rx *x = container_of(tgt, struct rx, tgt);
	struct nvmf_rdma_transport *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	nvmf_rdma_transport_setup(t, opts, &fake_verbs);
	t->ec = &x->fd->cm.ec; /* the fake CM's: the main group takes it */
	return &t->base;
}

static void rx_destroy(struct nvmf_transport *t)
{
	free(t);
}

static int rx_listen(struct nvmf_transport *t, struct nvmf_port *port, char *err, size_t errlen)
{
	(void)t, (void)port, (void)err, (void)errlen;
	return 0;
}

static void rx_stop_listen(struct nvmf_transport *t, struct nvmf_port *port)
{
	(void)t, (void)port;
}

/* Counted, then the transport's own. */
static void rx_queue_released(struct nvmf_sq *sq)
{
	container_of(sq->tgt, struct rx, tgt)->released++;
	nvmf_rdma_transport_ops.queue_released(sq);
}

static uint64_t rx_clock(const struct nvmf_clock *clock)
{
	return ((const struct rx *)(const void *)((const char *)clock -
						  offsetof(struct rx, tgt.clock)))
		->now;
}

/* ---- set-up ---- */

static void build_config(struct nvmf_config *c, const struct rx_opts *o)
{
	nvmf_config_target_defaults(&c->target);
	c->target.hugepages = false;
	c->target.srq = !o->no_srq;
	if (o->threads)
		c->target.threads = o->threads;
	c->target.srq_depth = 256;
	if (o->post_thread_on)
		c->target.post_thread = 1;
	if (o->post_thread_off)
		c->target.post_thread = 0;
	if (o->buffers_small)
		c->target.buffers_small = o->buffers_small;
	if (o->buffers_large)
		c->target.buffers_large = o->buffers_large;

	c->n_subsystems = 1;
	c->subsystems = calloc(1, sizeof(*c->subsystems));
	struct nvmf_subsys_config *s = c->subsystems;
	nvmf_config_subsys_defaults(s);
	snprintf(s->nqn, sizeof(s->nqn), "%s", RX_SUBNQN);
	s->allow_any_host = true;
	s->n_ns = 1;
	s->ns = calloc(1, sizeof(*s->ns));
	s->ns[0].nsid = 1;
	s->ns[0].enable = true;
	s->ns[0].kind = NVMF_BACKEND_RAM;
	s->ns[0].size_bytes = RX_NS_BYTES;
	s->ns[0].block_size = 512;

	c->n_ports = 1;
	c->ports = calloc(1, sizeof(*c->ports));
	struct nvmf_port_config *p = c->ports;
	nvmf_config_port_defaults(p);
	snprintf(p->trtype, sizeof(p->trtype), "rdma");
	p->portid = 1;
	p->adrfam = AF_INET;
	snprintf(p->traddr, sizeof(p->traddr), "0.0.0.0");
	snprintf(p->trsvcid, sizeof(p->trsvcid), "4420");
	p->n_subsystems = 1;
	p->subsystems = calloc(1, sizeof(char *));
	p->subsystems[0] = strdup(RX_SUBNQN);
}

int rx_setup(struct rx *x, const struct rx_opts *o)
{
	static const struct rx_opts defaults;
	char err[512];
	memset(x, 0, sizeof(*x));
	if (!o)
		o = &defaults;
	build_config(&x->cfg, o);
	x->fd = fv_dev_new();
	x->ops = nvmf_rdma_transport_ops;
	x->ops.create = rx_create;
	x->ops.destroy = rx_destroy;
	x->ops.listen = rx_listen;
	x->ops.stop_listen = rx_stop_listen;
	x->ops.queue_released = rx_queue_released;
	const struct nvmf_transport_ops *ops[] = { &x->ops };
	if (nvmf_tgt_init(&x->tgt, &x->cfg, ops, 1, err, sizeof(err))) {
		fprintf(stderr, "rx_setup: %s\n", err);
		return -1;
	}
	x->now = 1000;
	x->tgt.clock.now_ms = rx_clock;
	x->t = (struct nvmf_rdma_transport *)x->tgt.transports[0];
	x->t->post_manual = true; /* the fake device is the test thread's */
	x->pg = (struct nvmf_rdma_poll_group *)nvmf_pg_tpg(x->tgt.pgs[0], &x->t->base);

	x->fd->send_with_inv = !o->no_send_with_inv;
	if (o->no_inline)
		x->fd->max_inline = 0;
	struct nvmf_rdma_dev *d = &x->rdev;
	d->verbs = &x->fd->ctx;
	d->pd = &x->fd->pd;
	d->attr.max_cqe = 65536;
	d->attr.max_qp_wr = o->max_qp_wr ? o->max_qp_wr : 16384;
	d->attr.max_srq = 1024;
	d->attr.max_srq_wr = 16384;
	d->attr.max_sge = 30;
	d->attr.max_srq_sge = 30;
	d->attr.max_qp_rd_atom = 16;
	d->attr.max_qp_init_rd_atom = 16;
	/* A device that raises LAST_WQE_REACHED (a ConnectX's vendor), or soft RoCE's. */
	d->attr.vendor_id = o->rxe ? 0xffffff : 0x02c9;
	x->fd->no_last_wqe_events = o->rxe;
	snprintf(d->name, sizeof(d->name), "fake0");
	d->numa_node = -1;
	d->send_with_inv = !o->no_send_with_inv;
	d->refs = 1;
	if (nvmf_rdma_device_setup(x->t, &x->dev, d, err, sizeof(err))) {
		fprintf(stderr, "rx_setup: %s\n", err);
		return -1;
	}
	x->dev_ready = true;
	/* The transport's device list and listener, as tr_listen and the first connect make
	 * them: CM requests (fv_cm_connect on x->listen_id) find both. */
	x->dev.next = NULL;
	x->t->devices = &x->dev;
	x->listen_id.channel = x->t->ec;
	x->listen_id.verbs = &x->fd->ctx;
	x->listen_id.context = &x->listener;
	x->listener.id = &x->listen_id;
	x->listener.port = x->tgt.ports[0];
	x->t->listeners = &x->listener;
	if (posix_memalign((void **)&x->host, 4096, RX_HOST_BYTES))
		return -1;
	memset(x->host, 0, RX_HOST_BYTES);
	return 0;
}

void rx_teardown(struct rx *x)
{
	rx_hold_backend(x, false);
	rx_release_backend(x);
	/* Every queue, the host's or one the CM made and no host adopted. */
	for (struct nvmf_rdma_queue *q = x->pg->queues; q; q = q->next)
		nvmf_rdma_queue_disconnect(q, NULL);
	rx_run(x);
	CU_ASSERT_PTR_NULL(x->pg->queues);
	CU_ASSERT_EQUAL(x->pg->ndying, 0);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&x->tgt), 0);
	/* Every buffer back: in the pool, or in a group's cache (several groups). */
	unsigned cached = 0;
	for (unsigned i = 0; i < x->tgt.npgs; i++) {
		struct nvmf_rdma_pg_stats st;
		nvmf_rdma_pg_stats((struct nvmf_rdma_poll_group *)nvmf_pg_tpg(x->tgt.pgs[i],
									      &x->t->base),
				   &st);
		cached += st.bufs_cached;
	}
	CU_ASSERT_EQUAL(rx_pool_free(x) + cached, rx_pool_size(x));
	CU_ASSERT_EQUAL(rx_pool_double_puts(x), 0);
	nvmf_tgt_shutdown(&x->tgt, 0);
	if (x->dev_ready)
		nvmf_rdma_pool_fini(&x->dev.pool);
	CU_ASSERT_EQUAL(fv_dev_live(x->fd), 0);
	CU_ASSERT_EQUAL(x->fd->cm_unacked, 0);
	CU_ASSERT_EQUAL(x->fd->srq_lost, 0);
	CU_ASSERT_EQUAL(x->fd->async_acked, x->fd->async_taken);
	CU_ASSERT_EQUAL(x->fd->violations, 0);
	if (x->fd->violations)
		fprintf(stderr, "first violation: %s\n", x->fd->why);
	nvmf_tgt_fini(&x->tgt);
	fv_dev_free(x->fd);
	nvmf_config_free(&x->cfg);
	for (unsigned i = 0; i < x->nq; i++)
		free(x->queues[i]);
	free(x->host);
}

/* ---- queues ---- */

struct rxq *rxq_create(struct rx *x, uint16_t qid, uint16_t recv_depth, uint16_t hrqsize,
		       uint32_t ord)
{
	CU_ASSERT_FATAL(x->nq < RX_MAX_QUEUES);
	struct nvme_rdma_cm_conn conn = { .qid = qid,
					  .recv_depth = recv_depth,
					  .hrqsize = hrqsize };
	struct nvmf_pg *core_pg = x->tgt.pgs[0];
	char err[256];
	/* Placed on the main group, counted as nvmf_tgt_new_queue counts. */
	__atomic_add_fetch(&core_pg->nqueues, 1, __ATOMIC_RELAXED);
	struct nvmf_rdma_queue *q = nvmf_rdma_queue_create(x->pg, &x->dev, x->tgt.ports[0], NULL,
							   &conn, ord, err, sizeof(err));
	if (!q) {
		__atomic_sub_fetch(&core_pg->nqueues, 1, __ATOMIC_RELAXED);
		fprintf(stderr, "rxq_create: %s\n", err);
		return NULL;
	}
	struct rxq *h = calloc(1, sizeof(*h));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	q->state = NVMF_RDMA_Q_LIVE; /* RDMA_CM_EVENT_ESTABLISHED */
	h->x = x;
	h->q = q;
	h->qp = fv_qp_of(q->qp);
	h->qid = qid;
	h->recv_depth = recv_depth;
	h->hrqsize = hrqsize;
	h->next_cid = 1;
	fv_host_credits(h->qp, hrqsize);
	x->queues[x->nq++] = h;
	return h;
}

struct fv_cm_id *rx_cm_request(struct rx *x, const void *pdata, uint8_t len, uint8_t host_ird,
			       uint8_t host_ord)
{
	struct fv_cm_id *c = fv_cm_connect(x->fd, &x->listen_id, pdata, len, host_ird, host_ord);
	CU_ASSERT(nvmf_rdma_process_cm_events(x->pg) >= 1);
	return c;
}

struct fv_cm_id *rx_cm_connect(struct rx *x, uint16_t qid, uint16_t size, uint8_t host_ird,
			       uint8_t host_ord)
{
	struct nvme_rdma_cm_req req;
	nvme_rdma_cm_build_req(&req, qid, size);
	return rx_cm_request(x, &req, sizeof(req), host_ird, host_ord);
}

struct rxq *rxq_adopt(struct rx *x, struct fv_cm_id *c, uint16_t hrqsize)
{
	CU_ASSERT_FATAL(c->accepted && !c->destroyed && x->nq < RX_MAX_QUEUES);
	struct nvmf_rdma_queue *q = c->id.context;
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	fv_cm_event(c, RDMA_CM_EVENT_ESTABLISHED);
	nvmf_rdma_process_cm_events(x->pg);
	CU_ASSERT_EQUAL_FATAL(q->state, NVMF_RDMA_Q_LIVE);
	struct rxq *h = calloc(1, sizeof(*h));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	h->x = x;
	h->q = q;
	h->qp = fv_qp_of(q->qp);
	h->qid = q->qid;
	h->recv_depth = (uint16_t)q->recv_depth;
	h->hrqsize = hrqsize;
	h->next_cid = 1;
	fv_host_credits(h->qp, hrqsize);
	x->queues[x->nq++] = h;
	return h;
}

struct rxq *rx_admin(struct rx *x)
{
	struct rxq *a = rxq_create(x, 0, 32, 32, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	uint16_t cid = rxq_connect(a, 0xffff, false);
	rx_run(x);
	CU_ASSERT_EQUAL_FATAL(rxq_status(a, cid), 0);
	x->cntlid = (uint16_t)le32toh(rxq_resp(a, cid)->cqe.result.u32);
	cid = rxq_prop_set_cc(a, RX_CC_ENABLE);
	rx_run(x);
	CU_ASSERT_EQUAL_FATAL(rxq_status(a, cid), 0);
	return a;
}

struct rxq *rx_io(struct rx *x, uint16_t recv_depth, uint16_t hrqsize, uint32_t ord)
{
	uint16_t qid = 1;
	for (unsigned i = 0; i < x->nq; i++)
		if (x->queues[i]->qid >= qid)
			qid = (uint16_t)(x->queues[i]->qid + 1);
	struct rxq *h = rxq_create(x, qid, recv_depth, hrqsize, ord);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	uint16_t cid = rxq_connect(h, x->cntlid, false);
	rx_run(x);
	CU_ASSERT_EQUAL_FATAL(rxq_status(h, cid), 0);
	return h;
}

struct rxq *rx_setup_io(struct rx *x, const struct rx_opts *o, uint16_t recv_depth,
			uint16_t hrqsize, uint32_t ord)
{
	CU_ASSERT_EQUAL_FATAL(rx_setup(x, o), 0);
	rx_admin(x);
	return rx_io(x, recv_depth, hrqsize, ord);
}

/* ---- driving ---- */

/* A queue reaped during the pass is gone: forget it (compared, never followed). */
static void forget_reaped(struct rx *x)
{
	for (unsigned i = 0; i < x->nq; i++) {
		struct rxq *h = x->queues[i];
		bool alive = false;
		for (struct nvmf_rdma_queue *q = x->pg->queues; q && h->q && !alive; q = q->next)
			alive = q == h->q;
		if (!alive)
			h->q = NULL;
	}
}

int rx_poll(struct rx *x)
{
	/* The pass reads the device's events every millisecond; the tests do not wait. */
	int n = fv_async_pending(x->fd) ? nvmf_rdma_process_async_events(x->pg) : 0;
	n += nvmf_pg_poll(x->tgt.pgs[0]);
	if (!x->hold_poster && x->pg->poster.running)
		nvmf_rdma_poster_drain(&x->pg->poster);
	forget_reaped(x);
	return n;
}

unsigned rxq_read_responses(struct rxq *h)
{
	unsigned n = 0;
	struct fv_resp r;
	while (fv_host_take(h->qp, &r)) {
		CU_ASSERT_FATAL(h->nresp < RX_MAX_RESP);
		h->resp[h->nresp++] = r;
		n++;
	}
	return n;
}

unsigned rx_host(struct rx *x)
{
	unsigned n = 0;
	for (unsigned i = 0; i < x->nq; i++) {
		struct rxq *h = x->queues[i];
		n += fv_host_run(h->qp, UINT_MAX);
		if (!h->hold)
			n += rxq_read_responses(h);
	}
	return n;
}

void rx_run(struct rx *x)
{
	int idle = 0;
	for (int i = 0; i < 10000 && idle < 2; i++) {
		unsigned n = (unsigned)rx_poll(x);
		n += rx_host(x);
		idle = n ? 0 : idle + 1;
	}
	CU_ASSERT_EQUAL(idle, 2); /* it settled */
}

/* ---- the host's memory and commands ---- */

void *rx_host_alloc(struct rx *x, size_t len)
{
	size_t at = (x->host_used + 4095) & ~(size_t)4095;
	CU_ASSERT_FATAL(at + len <= RX_HOST_BYTES);
	x->host_used = at + len;
	memset(x->host + at, 0, len);
	return x->host + at;
}

uint32_t rx_key(struct rx *x, void *p, size_t len)
{
	return fv_host_reg(x->fd, p, len);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

void rx_cmd_rw(struct nvme_sqe *c, uint8_t opcode, uint64_t slba, uint32_t bytes)
{
	memset(c, 0, sizeof(*c));
	c->opcode = opcode;
	c->flags = NVME_CMD_PSDT_SGL_MPTR;
	c->nsid = htole32(1);
	c->cdw10 = htole32((uint32_t)slba);
	c->cdw11 = htole32((uint32_t)(slba >> 32));
	c->cdw12 = htole32(bytes / 512 - 1);
}

void rx_sgl_keyed(struct nvme_sqe *c, uint8_t sgl_type, const void *addr, uint32_t len,
		  uint32_t key)
{
	memset(&c->dptr, 0, sizeof(c->dptr));
	c->dptr.addr = htole64((uintptr_t)addr);
	c->dptr.keyed.length[0] = (uint8_t)len;
	c->dptr.keyed.length[1] = (uint8_t)(len >> 8);
	c->dptr.keyed.length[2] = (uint8_t)(len >> 16);
	put32(c->dptr.keyed.key, key);
	c->dptr.keyed.type = sgl_type;
}

void rx_sgl_incapsule(struct nvme_sqe *c, uint32_t offset, uint32_t len)
{
	memset(&c->dptr, 0, sizeof(c->dptr));
	c->dptr.addr = htole64(offset);
	c->dptr.unkeyed.length = htole32(len);
	c->dptr.unkeyed.type = NVME_SGL_INCAPSULE;
}

uint16_t rxq_send(struct rxq *h, struct nvme_sqe *c, const void *data, size_t dlen)
{
	static uint8_t buf[NVME_SQE_SIZE + NVMF_RDMA_MAX_INLINE + 4096];
	CU_ASSERT_FATAL(dlen <= sizeof(buf) - NVME_SQE_SIZE);
	c->command_id = h->next_cid++;
	memcpy(buf, c, NVME_SQE_SIZE);
	if (dlen)
		memcpy(buf + NVME_SQE_SIZE, data, dlen);
	CU_ASSERT_EQUAL(fv_host_send(h->qp, buf, NVME_SQE_SIZE + dlen), 0);
	return c->command_id;
}

static uint16_t keyed_rw(struct rxq *h, uint8_t opcode, uint64_t slba, void *buf, uint32_t len,
			 uint8_t sgl_type, uint32_t *key)
{
	struct nvme_sqe c;
	uint32_t k = rx_key(h->x, buf, len);
	if (key)
		*key = k;
	rx_cmd_rw(&c, opcode, slba, len);
	rx_sgl_keyed(&c, sgl_type, buf, len, k);
	return rxq_send(h, &c, NULL, 0);
}

uint16_t rxq_write(struct rxq *h, uint64_t slba, void *buf, uint32_t len, uint8_t sgl_type,
		   uint32_t *key)
{
	return keyed_rw(h, nvme_cmd_write, slba, buf, len, sgl_type, key);
}

uint16_t rxq_read(struct rxq *h, uint64_t slba, void *buf, uint32_t len, uint8_t sgl_type,
		  uint32_t *key)
{
	return keyed_rw(h, nvme_cmd_read, slba, buf, len, sgl_type, key);
}

uint16_t rxq_flush(struct rxq *h)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_cmd_flush;
	c.flags = NVME_CMD_PSDT_SGL_MPTR;
	c.nsid = htole32(1);
	rx_sgl_keyed(&c, NVME_SGL_KEYED_ADDR, NULL, 0, 0);
	return rxq_send(h, &c, NULL, 0);
}

/* A Fabrics command of type @fctype (PSDT SGL): its bytes, to fill in. */
static uint8_t *fabrics_cmd(struct nvme_sqe *c, uint8_t fctype)
{
	memset(c, 0, sizeof(*c));
	c->opcode = nvme_admin_fabrics;
	c->flags = NVME_CMD_PSDT_SGL_MPTR;
	uint8_t *b = (uint8_t *)c;
	b[NVMF_SQE_FCTYPE_OFF] = fctype;
	return b;
}

uint16_t rxq_connect(struct rxq *h, uint16_t cntlid, bool incapsule)
{
	struct nvmf_connect_data local = { 0 }; /* rx_host_alloc zeroes its memory too */
	struct nvmf_connect_data *d = incapsule ? &local : rx_host_alloc(h->x, sizeof(*d));
	memset(d->hostid, 0x5a, sizeof(d->hostid));
	d->cntlid = htole16(cntlid);
	snprintf(d->subsysnqn, sizeof(d->subsysnqn), "%s", RX_SUBNQN);
	snprintf(d->hostnqn, sizeof(d->hostnqn), "%s", RX_HOSTNQN);
	struct nvme_sqe c;
	uint8_t *b = fabrics_cmd(&c, nvme_fabrics_type_connect);
	put16(b + NVMF_CONNECT_QID, h->qid);
	put16(b + NVMF_CONNECT_SQSIZE, (uint16_t)(h->recv_depth - 1));
	put32(b + NVMF_CONNECT_KATO, h->qid ? 0 : 5000);
	if (incapsule) {
		rx_sgl_incapsule(&c, 0, sizeof(*d));
		return rxq_send(h, &c, d, sizeof(*d));
	}
	rx_sgl_keyed(&c, NVME_SGL_KEYED_INV, d, sizeof(*d), rx_key(h->x, d, sizeof(*d)));
	return rxq_send(h, &c, NULL, 0);
}

uint16_t rxq_prop_set_cc(struct rxq *h, uint32_t cc)
{
	struct nvme_sqe c;
	uint8_t *b = fabrics_cmd(&c, nvme_fabrics_type_property_set);
	put32(b + NVMF_PROP_OFFSET, NVMF_PROP_CC);
	put32(b + NVMF_PROP_VALUE, cc);
	rx_sgl_keyed(&c, NVME_SGL_KEYED_ADDR, NULL, 0, 0);
	return rxq_send(h, &c, NULL, 0);
}

const struct fv_resp *rxq_resp(const struct rxq *h, uint16_t cid)
{
	for (unsigned i = h->nresp; i-- > 0;)
		if (h->resp[i].cqe.command_id == cid)
			return &h->resp[i];
	return NULL;
}

uint16_t rxq_status(const struct rxq *h, uint16_t cid)
{
	const struct fv_resp *r = rxq_resp(h, cid);
	return r ? (uint16_t)(le16toh(r->cqe.status) >> 1) : RX_NO_RESPONSE;
}

/* ---- the target's side ---- */

uint8_t *rx_ns_data(struct rx *x)
{
	return x->tgt.subsys[0]->ns[1]->bdev->mem;
}

unsigned rxq_reqs_in(const struct rxq *h, enum nvmf_rdma_req_state st)
{
	unsigned n = 0;
	for (uint32_t i = 0; h->q && i < h->q->nreq; i++)
		n += h->q->reqs[i].state == st;
	return n;
}

/* The transport's own count of the pool (nvmf_rdma_pool_stats). */
static struct nvmf_rdma_pool_stats pool_counts(const struct rx *x)
{
	struct nvmf_rdma_pool_stats st;
	nvmf_rdma_pool_stats((struct nvmf_rdma_pool *)&x->dev.pool, &st);
	return st;
}

unsigned rx_pool_free(const struct rx *x)
{
	return pool_counts(x).nfree;
}

unsigned rx_pool_size(const struct rx *x)
{
	return pool_counts(x).count;
}

uint64_t rx_pool_double_puts(const struct rx *x)
{
	return pool_counts(x).double_puts;
}

struct nvmf_rdma_pg_stats rx_stats(const struct rx *x)
{
	struct nvmf_rdma_pg_stats st;
	nvmf_rdma_pg_stats(x->pg, &st);
	return st;
}

unsigned rx_srq_on_device(const struct rx *x)
{
	const struct nvmf_rdma_pg_dev *d = x->pg->devs;
	return d && d->srq ? fv_posted(&fv_srq_of(d->srq->srq)->rq) : 0;
}

/* A backend that holds every I/O until the test releases it. The submit has no context
 * of its own: the fixture holding it is this one (tests run one at a time). */
static struct rx *held_rx;

static int held_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	(void)b, (void)aio;
	CU_ASSERT_FATAL(held_rx->nheld < sizeof(held_rx->held) / sizeof(held_rx->held[0]));
	held_rx->held[held_rx->nheld++] = io;
	return 0;
}

static void held_close(struct nvmf_bdev *b)
{
	nvmf_backend_ram_ops.close(b);
}

static const struct nvmf_bdev_ops held_ops = {
	.name = "held",
	.close = held_close,
	.submit = held_submit,
};

void rx_hold_backend(struct rx *x, bool hold)
{
	x->tgt.subsys[0]->ns[1]->bdev->ops = hold ? &held_ops : &nvmf_backend_ram_ops;
	x->hold_backend = hold;
	held_rx = x;
}

unsigned rx_release_backend(struct rx *x)
{
	struct nvmf_bdev *b = x->tgt.subsys[0]->ns[1]->bdev;
	struct nvmf_bdev_io *io[sizeof(x->held) / sizeof(x->held[0])];
	unsigned n = x->nheld;
	memcpy(io, x->held, n * sizeof(io[0]));
	x->nheld = 0;
	for (unsigned i = 0; i < n; i++)
		nvmf_backend_ram_ops.submit(b, &x->tgt.pgs[0]->aio, io[i]);
	return n;
}
