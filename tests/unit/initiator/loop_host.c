/* The LOOP host transport (see loop_host.h). */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "initiator/transport.h"
#include "nvme/sgl.h"
#include "target/core.h"
#include "tests/unit/initiator/loop_host.h"

struct lq_slot {
	struct nvmf_req req;
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	struct nvmf_hcmd *hcmd;
	struct loop_hq *lq;
	bool busy;
};

/* One host queue = one target queue. */
struct loop_hq {
	struct loop_host *lh;
	struct nvmf_hq *hq;
	struct nvmf_sq sq;
	struct lq_slot *slots;     /* indexed by command_id */
	unsigned size;
	struct nvme_cqe *ring;     /* CQEs "sent", not yet polled */
	unsigned head, count;
	uint32_t incapsule;        /* in-capsule bytes for writes */
	bool broken;
	struct loop_hq *next;
};

struct loop_host {
	struct nvmf_host_transport t;      /* first: the core hands us &t back */
	struct nvmf_transport_ops ops;     /* the target side */
	struct nvmf_config cfg;
	struct nvmf_aio aio;
	struct nvmf_tgt tgt;
	pthread_mutex_t lock;              /* every call into the target core */
	struct loop_hq *queues;
	unsigned admin_ops[256], io_ops[256];
	unsigned disc_reads, bump_after;
	bool bump_every;
	bool hold;                         /* responses wait in the rings, unseen */
	bool have_regs;
	uint32_t last_cc, last_csts;
	uint32_t max_io_len;
	unsigned incapsule_writes;
};

static struct loop_host *lh_of(const struct nvmf_host_transport *t)
{
	return (struct loop_host *)((const char *)t - offsetof(struct loop_host, t));
}

static uint64_t mono_ms(const struct nvmf_tgt *tgt)
{
	(void)tgt;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- target side ---- */

static void lt_queue_response(struct nvmf_req *req)
{
	struct lq_slot *s = (struct lq_slot *)((char *)req - offsetof(struct lq_slot, req));
	struct loop_hq *lq = s->lq;
	/* Read data moves before the CQE, as an RDMA WRITE would. */
	if (req->dir == NVMF_XFER_C2H && !req->cqe->status && req->data && s->hcmd->buf) {
		uint32_t n = s->hcmd->len < req->data_len ? s->hcmd->len : req->data_len;
		memcpy(s->hcmd->buf, req->data, n);
	}
	free(req->data);
	req->data = NULL;
	if (!lq->broken) {
		if (lq->count >= lq->size)
			abort();   /* more responses than the host can have outstanding */
		lq->ring[(lq->head + lq->count++) % lq->size] = *req->cqe;
	}
	s->busy = false;
}

static void lt_delete_ctrl(struct nvmf_tgt_ctrl *ctrl)
{
	for (unsigned i = 0; i <= ctrl->max_qid; i++)
		if (ctrl->sqs[i])
			((struct loop_hq *)ctrl->sqs[i]->transport_priv)->broken = true;
}

/* Let the target's backends progress (RAM completes inline; files would need this). */
static void drive_target(struct loop_host *lh)
{
	if (lh->tgt.io.retry_head)
		nvmf_io_retry_pending(&lh->tgt.io);
	nvmf_aio_flush(&lh->aio);
	nvmf_aio_poll(&lh->aio, 64);
	nvmf_tgt_poll_timers(&lh->tgt);
}

/* ---- host side: struct nvmf_host_transport ---- */

static int lh_queue_connect(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			    uint16_t size, char *err, size_t errlen)
{
	(void)opts;
	struct loop_host *lh = lh_of(hq->t);
	struct loop_hq *lq = calloc(1, sizeof(*lq));
	if (lq) {
		lq->slots = calloc(size, sizeof(*lq->slots));
		lq->ring = calloc(size, sizeof(*lq->ring));
	}
	if (!lq || !lq->slots || !lq->ring) {
		if (lq) {
			free(lq->slots);
			free(lq->ring);
		}
		free(lq);
		snprintf(err, errlen, "loop: out of memory for queue %u", qid);
		return -ENOMEM;
	}
	lq->lh = lh;
	lq->hq = hq;
	lq->size = size;
	pthread_mutex_lock(&lh->lock);
	nvmf_sq_init(&lq->sq, &lh->tgt, &lh->tgt.ports[0], &lh->ops);
	lq->sq.transport_priv = lq;
	struct sockaddr_in *sin = (struct sockaddr_in *)&lq->sq.local_addr;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lq->next = lh->queues;
	lh->queues = lq;
	pthread_mutex_unlock(&lh->lock);
	hq->tpriv = lq;
	return 0;
}

static void lh_queue_disconnect(struct nvmf_hq *hq)
{
	struct loop_hq *lq = hq->tpriv;
	struct loop_host *lh = lq->lh;
	pthread_mutex_lock(&lh->lock);
	for (unsigned i = 0; i < lq->size; i++)
		while (lq->slots[i].busy)
			drive_target(lh);
	if (lq->sq.ctrl && lq->sq.qid == 0 && lq->sq.connected) {
		lh->have_regs = true;
		lh->last_cc = lq->sq.ctrl->cc;
		lh->last_csts = lq->sq.ctrl->csts;
	}
	nvmf_sq_destroy(&lq->sq);
	for (struct loop_hq **pp = &lh->queues; *pp; pp = &(*pp)->next)
		if (*pp == lq) {
			*pp = lq->next;
			break;
		}
	pthread_mutex_unlock(&lh->lock);
	free(lq->slots);
	free(lq->ring);
	free(lq);
	hq->tpriv = NULL;
}

/* The data pointer the RDMA host would build: in-capsule for small writes, else keyed. */
static void set_dptr(struct nvme_sqe *sqe, const struct nvmf_hcmd *cmd, bool incapsule)
{
	sqe->flags = (uint8_t)((sqe->flags & ~NVME_CMD_PSDT_MASK) | NVME_CMD_PSDT_SGL_MPTR);
	memset(&sqe->dptr, 0, sizeof(sqe->dptr));
	if (incapsule) {
		sqe->dptr.unkeyed.length = htole32(cmd->len);
		sqe->dptr.unkeyed.type = NVME_SGL_INCAPSULE;
		return;
	}
	sqe->dptr.addr = htole64((uint64_t)(uintptr_t)cmd->buf);
	sqe->dptr.keyed.length[0] = (uint8_t)cmd->len;
	sqe->dptr.keyed.length[1] = (uint8_t)(cmd->len >> 8);
	sqe->dptr.keyed.length[2] = (uint8_t)(cmd->len >> 16);
	sqe->dptr.keyed.key[0] = 0x5a;
	sqe->dptr.keyed.type = NVME_SGL_KEYED_ADDR;
}

static int lh_submit(struct nvmf_hq *hq, struct nvmf_hcmd *cmd)
{
	struct loop_hq *lq = hq->tpriv;
	struct loop_host *lh = lq->lh;
	uint16_t cid = cmd->sqe.command_id;

	if (cid >= lq->size || (cmd->len && !cmd->buf))
		return -EINVAL;
	if (cmd->len > (1u << 24) - 1)
		return -EINVAL;   /* a keyed SGL length has 24 bits */
	pthread_mutex_lock(&lh->lock);
	struct lq_slot *s = &lq->slots[cid];
	if (lq->broken || s->busy) {
		pthread_mutex_unlock(&lh->lock);
		return lq->broken ? -ECONNRESET : -EINVAL;
	}
	memset(s, 0, sizeof(*s));
	s->busy = true;
	s->lq = lq;
	s->hcmd = cmd;
	s->sqe = cmd->sqe;
	bool incapsule = cmd->write && cmd->len && cmd->len <= lq->incapsule;
	set_dptr(&s->sqe, cmd, incapsule);
	if (hq->qid == 0)
		lh->admin_ops[s->sqe.opcode]++;
	else
		lh->io_ops[s->sqe.opcode]++;
	if (hq->qid && cmd->len > lh->max_io_len)
		lh->max_io_len = cmd->len;
	if (hq->qid && incapsule && s->sqe.opcode != nvme_admin_fabrics)
		lh->incapsule_writes++;

	struct nvmf_req *req = &s->req;
	struct nvme_sgl_info sgl;
	bool is_write = s->sqe.opcode == nvme_admin_fabrics ?
			(((uint8_t *)&s->sqe)[NVMF_SQE_FCTYPE_OFF] & 1) : (s->sqe.opcode & 1);
	nvme_status_t st = nvme_sgl_parse(&s->sqe, incapsule ? cmd->len : 0, is_write, &sgl);
	if (!nvmf_req_init(req, &lq->sq, &s->sqe, &s->cqe)) {
		/* completed with an error already */
	} else if (st) {
		nvmf_req_complete_dnr(req, st);
	} else {
		req->sgl_len = sgl.len;
		uint32_t alloc = req->data_len > sgl.len ? req->data_len : sgl.len;
		void *buf = NULL;
		if (alloc) {
			if (posix_memalign(&buf, 4096, (alloc + 4095) & ~4095u))
				abort();
			memset(buf, 0, alloc);
			if (req->dir == NVMF_XFER_H2C)
				memcpy(buf, cmd->buf, sgl.len < alloc ? sgl.len : alloc);
		}
		req->data = buf;
		nvmf_req_execute(req);
	}
	if (hq->qid == 0 && s->sqe.opcode == nvme_admin_get_log_page &&
	    (le32toh(s->sqe.cdw10) & 0xff) == NVME_LOG_LID_DISCOVER) {
		lh->disc_reads++;
		if (lh->bump_every || lh->disc_reads == lh->bump_after)
			lh->tgt.disc_genctr++;
	}
	drive_target(lh);
	pthread_mutex_unlock(&lh->lock);
	return 0;
}

static int lh_poll(struct nvmf_hq *hq, unsigned max)
{
	struct loop_hq *lq = hq->tpriv;
	struct loop_host *lh = lq->lh;
	struct nvme_cqe got[64];
	int total = 0;

	for (;;) {
		unsigned n = 0;
		pthread_mutex_lock(&lh->lock);
		if (lq->broken) {
			pthread_mutex_unlock(&lh->lock);
			return -ECONNRESET;
		}
		if (!total)
			drive_target(lh);
		while (!lh->hold && lq->count && n < 64 && (!max || (unsigned)total + n < max)) {
			got[n++] = lq->ring[lq->head];
			lq->head = (lq->head + 1) % lq->size;
			lq->count--;
		}
		pthread_mutex_unlock(&lh->lock);
		for (unsigned i = 0; i < n; i++)
			nvmf_hq_complete(hq, &got[i]);
		total += (int)n;
		if (n < 64 || (max && (unsigned)total >= max))
			return total;
	}
}

static int lh_wait(struct nvmf_hq *hq, int timeout_ms)
{
	struct loop_hq *lq = hq->tpriv;
	pthread_mutex_lock(&lq->lh->lock);
	bool ready = lq->count || lq->broken;
	pthread_mutex_unlock(&lq->lh->lock);
	if (!ready && timeout_ms > 0)
		usleep(200);
	return 0;
}

static void lh_set_incapsule(struct nvmf_hq *hq, uint32_t ioccsz)
{
	struct loop_hq *lq = hq->tpriv;
	lq->incapsule = ioccsz * 16 > NVME_SQE_SIZE ? ioccsz * 16 - NVME_SQE_SIZE : 0;
}

static int lh_mem_register(struct nvmf_hq *admin, void *addr, size_t len)
{
	(void)admin;
	(void)addr;
	(void)len;
	return 0;
}

static int lh_mem_unregister(struct nvmf_hq *admin, void *addr)
{
	(void)admin;
	(void)addr;
	return 0;
}

#define LOCKED(lh, expr)                                  \
	do {                                              \
		pthread_mutex_lock(&(lh)->lock);          \
		expr;                                     \
		pthread_mutex_unlock(&(lh)->lock);        \
	} while (0)

/* ---- setup ---- */

struct loop_host *loop_host_new(const struct loop_host_params *p)
{
	struct loop_host_params d = { 0 };
	if (p)
		d = *p;
	if (!d.n_subsys)
		d.n_subsys = 1;
	if (!d.qid_max)
		d.qid_max = 4;
	if (!d.ns1_bytes)
		d.ns1_bytes = 16u << 20;

	struct loop_host *lh = calloc(1, sizeof(*lh));
	if (!lh)
		return NULL;
	pthread_mutex_init(&lh->lock, NULL);
	lh->t = (struct nvmf_host_transport){
		.name = "loop",
		.queue_connect = lh_queue_connect,
		.queue_disconnect = lh_queue_disconnect,
		.submit = lh_submit,
		.poll = lh_poll,
		.wait = lh_wait,
		.set_incapsule = lh_set_incapsule,
		.mem_register = lh_mem_register,
		.mem_unregister = lh_mem_unregister,
	};
	lh->ops = (struct nvmf_transport_ops){
		.name = "loop",
		.trtype = NVMF_TRTYPE_LOOP,
		.msdbd = 1,
		.keyed_sgl = true,
		.queue_response = lt_queue_response,
		.delete_ctrl = lt_delete_ctrl,
	};

	struct nvmf_config *c = &lh->cfg;
	c->target.mdts = d.mdts;
	c->n_subsystems = d.n_subsys;
	c->subsystems = calloc(d.n_subsys, sizeof(*c->subsystems));
	c->n_ports = 1;
	c->ports = calloc(1, sizeof(*c->ports));
	if (!c->subsystems || !c->ports)
		goto fail;
	c->ports[0].portid = 1;
	c->ports[0].adrfam = AF_INET;
	strcpy(c->ports[0].traddr, "127.0.0.1");
	strcpy(c->ports[0].trsvcid, "4420");
	c->ports[0].inline_data_size = d.inline_size ? d.inline_size : 8192;
	c->ports[0].max_queue_size = d.max_queue_size ? d.max_queue_size : 128;
	c->ports[0].n_subsystems = d.n_subsys;
	c->ports[0].subsystems = calloc(d.n_subsys, sizeof(char *));
	if (!c->ports[0].subsystems)
		goto fail;
	for (unsigned i = 0; i < d.n_subsys; i++) {
		struct nvmf_subsys_config *s = &c->subsystems[i];
		snprintf(s->nqn, sizeof(s->nqn), "nqn.2026-11.io.nvmf-rdma:lh%u", i);
		c->ports[0].subsystems[i] = strdup(s->nqn);
		s->qid_max = d.qid_max;
		s->allow_any_host = i > 0 || d.allow_any_host;
		if (!s->allow_any_host) {
			s->n_allowed_hosts = 1;
			s->allowed_hosts = calloc(1, sizeof(char *));
			if (!s->allowed_hosts)
				goto fail;
			s->allowed_hosts[0] = strdup(LH_HOSTNQN);
		}
		if (i)
			continue;
		s->n_ns = 2;
		s->ns = calloc(2, sizeof(*s->ns));
		if (!s->ns)
			goto fail;
		for (unsigned j = 0; j < 2; j++) {
			s->ns[j].nsid = j + 1;
			s->ns[j].enable = true;
			s->ns[j].kind = NVMF_BACKEND_RAM;
			s->ns[j].size_bytes = j ? 1u << 20 : d.ns1_bytes;
			s->ns[j].block_size = j ? 4096 : 512;
			s->ns[j].has_uuid = true;
			for (unsigned k = 0; k < 16; k++)
				s->ns[j].uuid[k] = (uint8_t)(0x10 * (j + 1) + k);
		}
	}
	if (nvmf_aio_init(&lh->aio, 64))
		goto fail;
	char err[512];
	if (nvmf_tgt_init(&lh->tgt, c, &lh->aio, err, sizeof(err))) {
		fprintf(stderr, "loop_host: %s\n", err);
		nvmf_aio_fini(&lh->aio);
		goto fail;
	}
	lh->tgt.now_ms = mono_ms;
	return lh;
fail:
	nvmf_config_free(&lh->cfg);
	pthread_mutex_destroy(&lh->lock);
	free(lh);
	return NULL;
}

void loop_host_free(struct loop_host *lh)
{
	if (!lh)
		return;
	nvmf_tgt_fini(&lh->tgt);
	nvmf_aio_fini(&lh->aio);
	nvmf_config_free(&lh->cfg);
	pthread_mutex_destroy(&lh->lock);
	free(lh);
}

const struct nvmf_host_transport *loop_host_transport(struct loop_host *lh)
{
	return &lh->t;
}

struct nvmf_ctrl_opts loop_host_opts(struct loop_host *lh, const char *subnqn)
{
	struct nvmf_ctrl_opts o;
	memset(&o, 0, sizeof(o));
	o.traddr = "127.0.0.1";
	o.subnqn = subnqn;
	o.hostnqn = LH_HOSTNQN;
	o.transport = &lh->t;
	o.timeout_ms = 2000;
	return o;
}

void loop_host_hold(struct loop_host *lh, bool hold)
{
	LOCKED(lh, lh->hold = hold);
}

void loop_host_break(struct loop_host *lh)
{
	pthread_mutex_lock(&lh->lock);
	for (struct loop_hq *q = lh->queues; q; q = q->next) {
		q->broken = true;
		q->count = 0;
	}
	pthread_mutex_unlock(&lh->lock);
}

unsigned loop_host_admin_count(struct loop_host *lh, uint8_t opcode)
{
	unsigned n;
	LOCKED(lh, n = lh->admin_ops[opcode]);
	return n;
}

unsigned loop_host_io_count(struct loop_host *lh, uint8_t opcode)
{
	unsigned n;
	LOCKED(lh, n = lh->io_ops[opcode]);
	return n;
}

unsigned loop_host_disc_log_reads(struct loop_host *lh)
{
	unsigned n;
	LOCKED(lh, n = lh->disc_reads);
	return n;
}

void loop_host_bump_genctr(struct loop_host *lh, unsigned after, bool every)
{
	LOCKED(lh, (lh->bump_after = after, lh->bump_every = every));
}

bool loop_host_last_admin_regs(struct loop_host *lh, uint32_t *cc, uint32_t *csts)
{
	bool have;
	LOCKED(lh, (have = lh->have_regs, *cc = lh->last_cc, *csts = lh->last_csts));
	return have;
}

unsigned loop_host_live_ctrls(struct loop_host *lh)
{
	unsigned n = 0;
	LOCKED(lh, for (struct nvmf_tgt_ctrl *c = lh->tgt.ctrls; c; c = c->next) n++);
	return n;
}

uint32_t loop_host_max_io_len(struct loop_host *lh)
{
	uint32_t n;
	LOCKED(lh, n = lh->max_io_len);
	return n;
}

unsigned loop_host_incapsule_writes(struct loop_host *lh)
{
	unsigned n;
	LOCKED(lh, n = lh->incapsule_writes);
	return n;
}

bool loop_host_ctrl_regs(struct loop_host *lh, uint16_t cntlid, uint32_t *cc, uint32_t *csts)
{
	bool found = false;
	pthread_mutex_lock(&lh->lock);
	for (struct nvmf_tgt_ctrl *c = lh->tgt.ctrls; c; c = c->next)
		if (c->cntlid == cntlid && !c->deleting) {
			*cc = c->cc;
			*csts = c->csts;
			found = true;
		}
	pthread_mutex_unlock(&lh->lock);
	return found;
}
