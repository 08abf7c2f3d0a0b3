/* The whole-stack target fixture (see fixture.h). */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "initiator/internal.h"
#include "tests/unit/target/fixture.h"
#include "nvme/fabrics.h"

#define FX_TIMEOUT_MS  10000
/* Command ids of the admin queue's table (the Connect's SQSIZE is the test's): room for
 * the ids tests choose (fx_cmd). */
#define FX_ADMIN_TABLE 512

/* The fake clock: the fixture that embeds @tgt holds the time. */
static uint64_t fake_now(const struct nvmf_clock *clock)
{
	const struct fx *f = (const void *)((const char *)clock - offsetof(struct fx, tgt.clock));
	return f->now;
}

/* Hook: the target tears an admin queue down; remember its controller's registers. */
static void queue_down(void *arg, struct nvmf_sq *sq, uint16_t qid, bool by_host)
{
	struct fx *f = arg;
	if (qid != 0 || by_host)
		return;
	f->admin_downs++;
	if (sq->ctrl) {
		f->down_cc = sq->ctrl->cc;
		f->down_csts = sq->ctrl->csts;
	}
}

static void *grow(void *arr, size_t n, size_t size)
{
	void *p = realloc(arr, (n + 1) * size);
	if (!p)
		abort();
	memset((char *)p + n * size, 0, size);
	return p;
}

static char *dup_or_die(const char *s)
{
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

struct nvmf_subsys_config *fx_cfg_subsys(struct nvmf_config *c, const char *nqn,
					 const char *hostnqn, uint16_t qid_max)
{
	if (!c->target.discovery_nqn[0]) /* the first object: the target-wide defaults too */
		nvmf_config_target_defaults(&c->target);
	c->subsystems = grow(c->subsystems, c->n_subsystems, sizeof(*c->subsystems));
	struct nvmf_subsys_config *s = &c->subsystems[c->n_subsystems++];
	nvmf_config_subsys_defaults(s);
	snprintf(s->nqn, sizeof(s->nqn), "%s", nqn);
	s->qid_max = qid_max;
	s->allow_any_host = !hostnqn;
	if (hostnqn) {
		s->allowed_hosts = grow(NULL, 0, sizeof(char *));
		s->allowed_hosts[s->n_allowed_hosts++] = dup_or_die(hostnqn);
		/* An allowed host has its hosts[] entry, as the loader requires. */
		size_t h = 0;
		while (h < c->n_hosts && strcmp(c->hosts[h], hostnqn))
			h++;
		if (h == c->n_hosts) {
			c->hosts = grow(c->hosts, c->n_hosts, sizeof(char *));
			c->hosts[c->n_hosts++] = dup_or_die(hostnqn);
		}
	}
	return s;
}

struct nvmf_ns_config *fx_cfg_ns(struct nvmf_subsys_config *s, uint32_t nsid,
				 enum nvmf_backend_kind kind, uint64_t bytes, uint32_t block_size)
{
	s->ns = grow(s->ns, s->n_ns, sizeof(*s->ns));
	struct nvmf_ns_config *ns = &s->ns[s->n_ns++];
	ns->nsid = nsid;
	ns->enable = true;
	ns->kind = kind;
	ns->size_bytes = bytes;
	ns->block_size = block_size;
	return ns;
}

struct nvmf_port_config *fx_cfg_loop_port(struct nvmf_config *c, uint16_t portid, int family,
					  const char *traddr, const char *trsvcid)
{
	if (!c->target.discovery_nqn[0])
		nvmf_config_target_defaults(&c->target);
	c->ports = grow(c->ports, c->n_ports, sizeof(*c->ports));
	struct nvmf_port_config *p = &c->ports[c->n_ports++];
	nvmf_config_port_defaults(p);
	snprintf(p->trtype, sizeof(p->trtype), "loop");
	p->portid = portid;
	p->adrfam = family;
	snprintf(p->traddr, sizeof(p->traddr), "%s", traddr);
	snprintf(p->trsvcid, sizeof(p->trsvcid), "%s", trsvcid);
	p->inline_data_size = 8192;
	p->max_queue_size = 128;
	return p;
}

void fx_cfg_expose(struct nvmf_port_config *p, const char *nqn)
{
	p->subsystems = grow(p->subsystems, p->n_subsystems, sizeof(char *));
	p->subsystems[p->n_subsystems++] = dup_or_die(nqn);
}

void fx_cfg_ana_group(struct nvmf_port_config *p, uint32_t grpid, uint8_t state)
{
	p->ana_groups = grow(p->ana_groups, p->n_ana_groups, sizeof(*p->ana_groups));
	p->ana_groups[p->n_ana_groups++] = (struct nvmf_ana_group_config){ grpid, state };
}

void fx_cfg_gateway(struct nvmf_gateway_config *g, uint32_t lease_s, bool two_groups)
{
	memset(g, 0, sizeof(*g));
	g->enable = true;
	strcpy(g->name, "gw-a");
	strcpy(g->group, "g1");
	strcpy(g->ceph_conf, "/etc/ceph/ceph.conf");
	strcpy(g->client_id, "admin");
	strcpy(g->pool, "rbd");
	g->lease_seconds = lease_s;
	g->n_ana_groups = two_groups ? 2 : 1;
	g->ana_groups[0].grpid = 2;
	strcpy(g->ana_groups[0].preferred, "gw-a");
	if (two_groups) {
		g->ana_groups[1].grpid = 3;
		strcpy(g->ana_groups[1].preferred, "gw-b");
	}
}

int fx_setup(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	struct nvmf_subsys_config *s = fx_cfg_subsys(&f->cfg, FX_SUBNQN, FX_HOSTNQN, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	fx_cfg_ns(s, 2, NVMF_BACKEND_RAM, 1u << 20, 4096);
	fx_cfg_expose(fx_cfg_loop_port(&f->cfg, 1, AF_INET, "0.0.0.0", "4420"), FX_SUBNQN);
	return fx_boot(f, "127.0.0.1", "4420");
}

int fx_boot(struct fx *f, const char *traddr, const char *trsvcid)
{
	static const struct nvmf_transport_ops *const ops[] = { &nvmf_loop_ops };
	char err[512];
	f->traddr = traddr;
	f->trsvcid = trsvcid;
	if (nvmf_tgt_init_drives(&f->tgt, &f->cfg, ops, 1, f->drive_open, err, sizeof(err))) {
		fprintf(stderr, "fixture: %s\n", err);
		return -1;
	}
	f->now = 1000;
	f->tgt.clock.now_ms = fake_now;
	if (nvmf_tgt_listen(&f->tgt, err, sizeof(err))) {
		fprintf(stderr, "fixture: %s\n", err);
		return -1;
	}
	nvmf_loop_set_auto_drive(&f->tgt, false);
	nvmf_loop_set_hooks(&f->tgt,
			    &(struct nvmf_loop_hooks){ .queue_down = queue_down, .arg = f });
	f->host = calloc(1, sizeof(*f->host));
	if (!f->host)
		return -1;
	f->host->t = nvmf_loop_host_transport(&f->tgt);
	f->host->opts.traddr = traddr;
	f->host->opts.trsvcid = trsvcid;
	f->host->opts.timeout_ms = FX_TIMEOUT_MS;
	fx_queue_init(f, &f->admin);
	return 0;
}

void fx_queue_init(struct fx *f, struct fxq *q)
{
	memset(q, 0, sizeof(*q));
	q->f = f;
	q->next = f->queues;
	f->queues = q;
}

/* The transport connection, made with the qid of the queue's first Connect (0 when its
 * first command is something else). */
static int open_queue(struct fxq *q, uint16_t qid)
{
	struct fx *f = q->f;
	if (q->open)
		return 0;
	if (!q->q && !(q->q = calloc(1, sizeof(*q->q))))
		return -ENOMEM;
	uint16_t size = qid ? f->tgt.ports[0]->queue_size : FX_ADMIN_TABLE;
	int rc = nvmfh_queue_setup(q->q, f->host, qid, size);
	if (rc)
		return rc;
	char err[256];
	rc = f->host->t->queue_connect(&q->q->hq, &f->host->opts, qid, size, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "fixture: %s\n", err);
		return rc;
	}
	q->open = true;
	if (qid)
		f->host->t->set_incapsule(&q->q->hq,
					  (NVME_SQE_SIZE + f->tgt.ports[0]->inline_size) / 16);
	return 0;
}

void fx_disconnect(struct fxq *q)
{
	if (!q->q)
		return;
	nvmfh_queue_fail_all(q->q, -ECONNABORTED);
	if (q->open)
		q->f->host->t->queue_disconnect(&q->q->hq);
	q->open = false;
	nvmfh_queue_release(q->q);
	free(q->q);
	q->q = NULL;
}

void fx_teardown(struct fx *f)
{
	for (struct fxq *q = f->queues; q; q = q->next)
		fx_disconnect(q);
	nvmf_tgt_shutdown(&f->tgt, 1000);
	nvmf_tgt_fini(&f->tgt);
	free(f->host);
	nvmf_config_free(&f->cfg);
}

/* Host to controller: opcode bits 1:0 = 01b, for Fabrics commands the fctype's. */
static bool is_write(const struct nvme_sqe *c)
{
	if (c->opcode == nvme_admin_fabrics)
		return ((const uint8_t *)c)[NVMF_SQE_FCTYPE_OFF] & 1;
	return c->opcode & 1;
}

/* libnvmf numbers commands itself (the lowest free id first): put @cid on top of @q's
 * stack of free ids, so the command goes out with the id its SQE names when it can. */
static void prefer_cid(struct nvmf_queue *q, uint16_t cid)
{
	for (unsigned i = 0; i < q->nr_free; i++)
		if (q->free_cids[i] == cid) {
			q->free_cids[i] = q->free_cids[q->nr_free - 1];
			q->free_cids[q->nr_free - 1] = cid;
			return;
		}
}

int fx_cmd(struct fxq *q, const struct nvme_sqe *c, void *data, uint32_t len, struct nvme_cqe *cqe)
{
	int rc = open_queue(q, 0);
	if (rc)
		return rc;
	prefer_cid(q->q, c->command_id);
	void *scratch = NULL;
	if (len && !data && !(data = scratch = calloc(1, len)))
		return -ENOMEM;
	struct nvme_cqe local;
	rc = nvmfh_queue_exec(q->q, c, data, len, is_write(c), cqe ? cqe : &local, FX_TIMEOUT_MS);
	free(scratch);
	return rc;
}

static void cmd_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct fx_cmd *h = arg;
	h->done = true;
	h->status = status;
	if (cqe)
		h->cqe = *cqe;
}

int fx_start(struct fxq *q, struct fx_cmd *h, const struct nvme_sqe *c, const void *data,
	     uint32_t len)
{
	int rc = fx_submit(q, h, c, data, len);
	if (!rc)
		nvmf_loop_drive(&q->f->tgt);
	return rc;
}

int fx_submit(struct fxq *q, struct fx_cmd *h, const struct nvme_sqe *c, const void *data,
	      uint32_t len)
{
	memset(h, 0, sizeof(*h));
	h->q = q;
	int rc = open_queue(q, 0);
	if (rc || len > sizeof(h->data))
		return rc ? rc : -EINVAL;
	prefer_cid(q->q, c->command_id);
	h->len = len;
	if (data && len)
		memcpy(h->data, data, len);
	rc = nvmfh_queue_submit(q->q, c, len ? h->data : NULL, len, is_write(c), cmd_done, h,
				&h->cid);
	return rc;
}

bool fx_done(struct fx_cmd *h)
{
	if (!h->done && h->q->q)
		nvmfh_queue_poll(h->q->q, 0);
	return h->done;
}

bool fx_is_req(const struct nvmf_req *req, const struct fx_cmd *h)
{
	return req && req->cmd->command_id == h->cid && req->sq->qid == h->q->q->hq.qid;
}

int fx_raw_exec(struct fx *f, struct nvmf_loop_raw *q, const struct nvme_sqe *c, const void *icd,
		uint32_t icd_len, void *mem, uint32_t mem_len, struct nvme_cqe *cqe)
{
	int rc = nvmf_loop_raw_send(q, c, icd, icd_len, mem, mem_len);
	if (rc)
		return rc;
	nvmf_loop_drive(&f->tgt);
	struct nvme_cqe local = { 0 };
	if (!cqe)
		cqe = &local;
	rc = nvmf_loop_raw_reap(q, cqe, 1);
	if (rc < 0)
		return rc;
	return rc == 1 ? le16toh(cqe->status) >> 1 : -ETIMEDOUT;
}

void fx_connect_data(struct nvmf_connect_data *d, const char *subnqn, const char *hostnqn,
		     uint16_t cntlid)
{
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < 16; i++)
		d->hostid[i] = (uint8_t)(0xa0 + i);
	d->cntlid = htole16(cntlid);
	strncpy(d->subsysnqn, subnqn, sizeof(d->subsysnqn) - 1);
	strncpy(d->hostnqn, hostnqn, sizeof(d->hostnqn) - 1);
}

int fx_connect(struct fxq *q, uint16_t qid, uint16_t sqsize, const char *subnqn,
	       const char *hostnqn, uint16_t cntlid, uint32_t kato_ms, uint16_t *cntlid_out,
	       struct nvme_cqe *cqe)
{
	return fx_connect_host(q, qid, sqsize, subnqn, hostnqn, NULL, cntlid, kato_ms, cntlid_out,
			       cqe);
}

int fx_connect_host(struct fxq *q, uint16_t qid, uint16_t sqsize, const char *subnqn,
		    const char *hostnqn, const uint8_t *hostid, uint16_t cntlid, uint32_t kato_ms,
		    uint16_t *cntlid_out, struct nvme_cqe *cqe)
{
	int rc = open_queue(q, qid);
	if (rc)
		return rc;
	struct nvme_sqe c;
	struct nvmf_connect_data d;
	struct nvme_cqe local;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c;
	p[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	p[NVMF_CONNECT_QID] = qid & 0xff;
	p[NVMF_CONNECT_QID + 1] = qid >> 8;
	p[NVMF_CONNECT_SQSIZE] = sqsize & 0xff;
	p[NVMF_CONNECT_SQSIZE + 1] = sqsize >> 8;
	p[NVMF_CONNECT_CATTR] = q->f->connect_cattr;
	uint32_t k = htole32(kato_ms);
	memcpy(p + NVMF_CONNECT_KATO, &k, 4);
	fx_connect_data(&d, subnqn, hostnqn, cntlid);
	if (hostid)
		memcpy(d.hostid, hostid, sizeof(d.hostid));
	if (!cqe)
		cqe = &local;
	rc = fx_cmd(q, &c, &d, sizeof(d), cqe);
	if (!rc) {
		snprintf(q->subnqn, sizeof(q->subnqn), "%s", subnqn);
		if (cntlid_out)
			*cntlid_out = le16toh(cqe->result.u32 & 0xffff);
	}
	return rc;
}

static int prop(struct fxq *q, uint8_t fctype, uint32_t off, uint64_t val, uint64_t *out)
{
	struct nvme_sqe c;
	struct nvme_cqe cqe;
	memset(&c, 0, sizeof(c));
	memset(&cqe, 0, sizeof(cqe)); /* a command that never went out reads as 0 */
	c.opcode = nvme_admin_fabrics;
	uint8_t *p = (uint8_t *)&c;
	p[NVMF_SQE_FCTYPE_OFF] = fctype;
	uint32_t o = htole32(off);
	memcpy(p + NVMF_PROP_OFFSET, &o, 4);
	uint64_t v = htole64(val);
	memcpy(p + NVMF_PROP_VALUE, &v, 8);
	int st = fx_cmd(q, &c, NULL, 0, &cqe);
	if (out)
		*out = le64toh(cqe.result.u64);
	return st;
}

int fx_enable(struct fxq *admin)
{
	/* CC: EN (bit 0), IOSQES 6 (bits 19:16), IOCQES 4 (bits 23:20). */
	uint32_t cc = 1u | (6u << 16) | (4u << 20);
	int st = prop(admin, nvme_fabrics_type_property_set, NVMF_PROP_CC, cc, NULL);
	if (st)
		return st;
	uint64_t csts = 0;
	st = prop(admin, nvme_fabrics_type_property_get, NVMF_PROP_CSTS, 0, &csts);
	if (!st && !(csts & 1))
		return nvme_status(NVME_SCT_GENERIC, NVME_SC_INTERNAL);
	return st;
}

int fx_connect_admin(struct fx *f)
{
	int st =
		fx_connect(&f->admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 5000, &f->cntlid, NULL);
	return st ? st : fx_enable(&f->admin);
}

struct nvmf_tgt_ctrl *fx_ctrl(struct fx *f)
{
	return nvmf_tgt_ctrl_find(&f->tgt, f->admin.subnqn, f->cntlid);
}

struct nvmf_io_stats fx_io_stats(struct fx *f)
{
	struct nvmf_io_stats st;
	nvmf_tgt_ctrl_io_stats(fx_ctrl(f), &st);
	return st;
}

struct nvmf_io_ctx *fx_io(struct fx *f)
{
	return &nvmf_tgt_main_pg(&f->tgt)->io;
}

bool fx_admin_deleted(const struct fx *f)
{
	return f->admin_downs > 0;
}

static int held_submit(struct nvmf_bdev *b, struct nvmf_aio *aio, struct nvmf_bdev_io *io)
{
	(void)aio;
	struct fx_held_bdev *h = (struct fx_held_bdev *)b;
	h->io = io;
	h->submits++;
	if (h->nheld < FX_HELD_MAX)
		h->held[h->nheld++] = io;
	return 0;
}

struct nvmf_bdev_io *fx_held_find(struct fx_held_bdev *h, enum nvmf_bdev_op op, uint64_t offset)
{
	for (unsigned i = 0; i < h->nheld; i++)
		if (h->held[i]->op == op && h->held[i]->offset == offset)
			return h->held[i];
	return NULL;
}

struct nvme_sqe fx_rw_sqe(uint8_t opcode, uint8_t fuse, uint32_t nsid, uint64_t slba, uint32_t nlb,
			  uint16_t cid)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = opcode;
	c.flags = fuse;
	c.command_id = cid;
	c.nsid = htole32(nsid);
	c.cdw10 = htole32((uint32_t)slba);
	c.cdw11 = htole32((uint32_t)(slba >> 32));
	c.cdw12 = htole32(nlb - 1);
	return c;
}

void fx_held_end(struct fx_held_bdev *h, struct nvmf_bdev_io *io, uint8_t fill)
{
	for (unsigned i = 0; i < h->nheld; i++)
		if (h->held[i] == io) {
			h->held[i] = h->held[--h->nheld];
			break;
		}
	if (io->op == NVMF_BDEV_READ)
		memset(io->buf, fill, io->len);
	io->done_bytes = io->len;
	io->done(io, 0);
}

static void held_close(struct nvmf_bdev *b)
{
	struct fx_held_bdev *h = (struct fx_held_bdev *)b;
	if (h->closed)
		*h->closed = true;
}

static const struct nvmf_bdev_ops held_ops = { .name = "held",
					       .submit = held_submit,
					       .close = held_close };

struct fx_held_bdev *fx_held_bdev_new(uint32_t block_size, uint64_t size, bool *closed)
{
	struct fx_held_bdev *h = calloc(1, sizeof(*h));
	if (!h)
		abort();
	h->b.ops = &held_ops;
	h->b.fd = -1;
	h->b.block_size = block_size;
	h->b.size = size;
	h->closed = closed;
	return h;
}

void fx_stderr_begin(struct fx_stderr *c)
{
	memset(c, 0, sizeof(*c));
	fflush(stderr);
	/* No CUnit here: the fuzzers link this file too. */
	c->file = tmpfile();
	if (!c->file)
		abort();
	c->saved = dup(STDERR_FILENO);
	if (c->saved < 0 || dup2(fileno(c->file), STDERR_FILENO) < 0)
		abort();
}

void fx_stderr_end(struct fx_stderr *c)
{
	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	rewind(c->file);
	size_t n = fread(c->text, 1, sizeof(c->text) - 1, c->file);
	c->text[n] = '\0';
	fclose(c->file);
}
