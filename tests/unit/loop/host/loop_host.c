/* The loop host test target (see loop_host.h): the product target and loop transport,
 * plus counters fed by the transport's capsule hook. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/disc_log.h"
#include "nvme/sgl.h"
#include "target/ana.h"
#include "target/auth.h"
#include "target/core.h"
#include "loop/loop.h"
#include "target/model.h"
#include "target/namespace.h"
#include "tests/unit/loop/host/loop_host.h"
#include "tests/unit/target/fixture.h"
#include "nvme/fabrics.h"

struct loop_host {
	struct nvmf_config cfg;
	struct nvmf_tgt tgt;
	struct loop_host_params params; /* as given, defaults applied */
	struct nvmf_transport_ops ops;  /* nvmf_loop_ops, discovery entries as RDMA's */
	const struct nvmf_host_transport *t;
	/* Counted by the groups (atomic). */
	unsigned admin_ops[256], io_ops[256], fabrics_ops[256];
	unsigned disc_reads, bump_after;
	bool bump_every;
	uint32_t max_io_len;
	unsigned incapsule_writes;
	/* Main group's (queue_down on admin queues). */
	bool have_regs;
	uint32_t last_cc, last_csts;
};

/* Bytes the capsule's data pointer describes. */
static uint32_t sgl_len(const struct nvme_sqe *sqe)
{
	if (sqe->dptr.keyed.type == NVME_SGL_INCAPSULE)
		return le32toh(sqe->dptr.unkeyed.length);
	return nvme_sgl_keyed_length(&sqe->dptr);
}

/* Hook, on the queue's group: count what arrives; bump genctr between discovery reads. */
static void on_capsule(void *arg, struct nvmf_sq *sq, uint16_t qid, struct nvme_sqe *sqe,
		       uint32_t incapsule_len)
{
	struct loop_host *lh = arg;
	(void)sq;
	if (sqe->opcode == nvme_admin_fabrics)
		__atomic_fetch_add(&lh->fabrics_ops[((uint8_t *)sqe)[NVMF_SQE_FCTYPE_OFF]], 1,
				   __ATOMIC_RELAXED);
	if (qid == 0) {
		__atomic_fetch_add(&lh->admin_ops[sqe->opcode], 1, __ATOMIC_RELAXED);
		if (sqe->opcode == nvme_admin_get_log_page &&
		    (le32toh(sqe->cdw10) & 0xff) == NVME_LOG_LID_DISCOVER) {
			/* "After read N" is "before read N + 1": nothing reads genctr between. */
			unsigned prev = __atomic_fetch_add(&lh->disc_reads, 1, __ATOMIC_RELAXED);
			if (prev && (__atomic_load_n(&lh->bump_every, __ATOMIC_RELAXED) ||
				     prev == __atomic_load_n(&lh->bump_after, __ATOMIC_RELAXED)))
				lh->tgt.disc_genctr++; /* admin queues are on the main group */
		}
		return;
	}
	__atomic_fetch_add(&lh->io_ops[sqe->opcode], 1, __ATOMIC_RELAXED);
	uint32_t len = sgl_len(sqe), max = __atomic_load_n(&lh->max_io_len, __ATOMIC_RELAXED);
	while (len > max && !__atomic_compare_exchange_n(&lh->max_io_len, &max, len, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (incapsule_len && sqe->opcode != nvme_admin_fabrics)
		__atomic_fetch_add(&lh->incapsule_writes, 1, __ATOMIC_RELAXED);
}

/* Hook, on the main group for admin queues: the association's last registers. */
static void on_queue_down(void *arg, struct nvmf_sq *sq, uint16_t qid, bool by_host)
{
	struct loop_host *lh = arg;
	(void)by_host;
	if (qid || !sq->ctrl)
		return;
	lh->have_regs = true;
	lh->last_cc = sq->ctrl->cc;
	lh->last_csts = sq->ctrl->csts;
}

/* Port @portid's address: 127.0.0.@portid. */
static const char *port_addr(unsigned portid)
{
	static const char *const addr[] = { "127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4" };
	return addr[(portid - 1) % 4];
}

/* The config: subsystems lh0.. on loop ports 1..n (127.0.0.1..n:4420). */
static void build_config(struct nvmf_config *c, const struct loop_host_params *d)
{
	/* Ports first: the first one sets the target defaults. */
	for (unsigned i = 0; i < d->n_ports; i++) {
		struct nvmf_port_config *p =
			fx_cfg_loop_port(c, (uint16_t)(i + 1), AF_INET, port_addr(i + 1), "4420");
		if (d->inline_size)
			p->inline_data_size = d->inline_size;
		if (d->max_queue_size)
			p->max_queue_size = d->max_queue_size;
	}
	if (d->mdts)
		c->target.mdts = d->mdts;
	if (d->discovery_nqn)
		snprintf(c->target.discovery_nqn, sizeof(c->target.discovery_nqn), "%s",
			 d->discovery_nqn);
	c->target.threads = d->threads;
	for (unsigned i = 0; i < d->n_subsys; i++) {
		char nqn[64];
		snprintf(nqn, sizeof(nqn), "nqn.2026-11.io.nvmf-rdma:lh%u", i);
		struct nvmf_subsys_config *s = fx_cfg_subsys(
			c, nqn, i > 0 || d->allow_any_host ? NULL : LH_HOSTNQN, d->qid_max);
		for (unsigned k = 0; k < d->n_ports; k++)
			fx_cfg_expose(&c->ports[k], nqn);
		if (i)
			continue;
		for (unsigned j = 0; j < 2; j++) {
			struct nvmf_ns_config *ns = fx_cfg_ns(s, j + 1, NVMF_BACKEND_RAM,
							      j ? 1u << 20 : d->ns1_bytes,
							      j ? 4096 : 512);
			ns->has_uuid = true;
			ns->resv_enable = d->resv && !j;
			for (unsigned k = 0; k < 16; k++)
				ns->uuid[k] = (uint8_t)(0x10 * (j + 1) + k);
		}
	}
}

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
	if (!d.threads)
		d.threads = 2;
	if (!d.n_ports)
		d.n_ports = 1;
	if (d.n_ports > 4)
		d.n_ports = 4;

	struct loop_host *lh = calloc(1, sizeof(*lh));
	if (!lh)
		return NULL;
	lh->params = d;
	lh->ops = nvmf_loop_ops;
	/* Its ports are listed as RDMA ports, with RDMA's TSAS (NVMe-oF 1.1 section 7.4). */
	lh->ops.trtype = NVMF_TRTYPE_RDMA;
	const struct nvmf_transport_ops *ops[] = { &lh->ops };
	char err[512];
	build_config(&lh->cfg, &d);
	if (nvmf_tgt_init(&lh->tgt, &lh->cfg, ops, 1, err, sizeof(err))) {
		fprintf(stderr, "loop_host: %s\n", err);
		nvmf_config_free(&lh->cfg);
		free(lh);
		return NULL;
	}
	if (d.dhchap_key &&
	    nvmf_tgt_host_auth_set(&lh->tgt, LH_HOSTNQN, d.dhchap_key, d.dhchap_ctrl_key,
				   d.dhchap_hash, d.dhchap_dhgroup, err, sizeof(err))) {
		fprintf(stderr, "loop_host: %s\n", err);
		nvmf_tgt_fini(&lh->tgt);
		nvmf_config_free(&lh->cfg);
		free(lh);
		return NULL;
	}
	nvmf_loop_set_hooks(&lh->tgt, &(struct nvmf_loop_hooks){ .capsule = on_capsule,
								 .queue_down = on_queue_down,
								 .arg = lh });
	lh->t = nvmf_loop_host_transport(&lh->tgt);
	if (nvmf_tgt_listen(&lh->tgt, err, sizeof(err)) ||
	    (!d.driven && (nvmf_pg_start(nvmf_tgt_main_pg(&lh->tgt), -1, err, sizeof(err)) ||
			   nvmf_tgt_start(&lh->tgt, err, sizeof(err))))) {
		fprintf(stderr, "loop_host: %s\n", err);
		loop_host_free(lh);
		return NULL;
	}
	return lh;
}

void loop_host_free(struct loop_host *lh)
{
	if (!lh)
		return;
	nvmf_tgt_shutdown(&lh->tgt, 2000);
	nvmf_tgt_fini(&lh->tgt);
	nvmf_config_free(&lh->cfg);
	free(lh);
}

const struct nvmf_host_transport *loop_host_transport(struct loop_host *lh)
{
	return lh->t;
}

struct nvmf_ctrl_opts loop_host_opts(struct loop_host *lh, const char *subnqn)
{
	struct nvmf_ctrl_opts o;
	memset(&o, 0, sizeof(o));
	o.traddr = "127.0.0.1";
	o.subnqn = subnqn;
	o.hostnqn = LH_HOSTNQN;
	o.transport = lh->t;
	o.timeout_ms = 2000;
	return o;
}

struct nvmf_ctrl_opts loop_host_path_opts(struct loop_host *lh, const char *subnqn, unsigned path)
{
	struct nvmf_ctrl_opts o = loop_host_opts(lh, subnqn);
	o.traddr = port_addr(path + 1);
	return o;
}

/* Port changes: on the main group, which owns the model. */
struct port_change {
	struct loop_host *lh;
	uint16_t portid;
	bool add;
	int rc;
	char err[256];
};

static void port_change_on_main(void *arg)
{
	struct port_change *pc = arg;
	struct loop_host *lh = pc->lh;
	if (!pc->add) {
		struct nvmf_port *port = nvmf_tgt_find_port(&lh->tgt, pc->portid);
		unsigned dropped = 0;
		pc->rc = port ? nvmf_tgt_port_remove(&lh->tgt, port, &dropped, pc->err,
						     sizeof(pc->err)) :
				-ENOENT;
		return;
	}
	struct nvmf_port_config p;
	memset(&p, 0, sizeof(p));
	nvmf_config_port_defaults(&p);
	snprintf(p.trtype, sizeof(p.trtype), "loop");
	p.portid = pc->portid;
	p.adrfam = AF_INET;
	snprintf(p.traddr, sizeof(p.traddr), "%s", port_addr(pc->portid));
	snprintf(p.trsvcid, sizeof(p.trsvcid), "4420");
	p.inline_data_size = lh->params.inline_size ? lh->params.inline_size : 8192;
	p.max_queue_size = lh->params.max_queue_size ? lh->params.max_queue_size : 128;
	char nqns[4][64], *subs[4];
	unsigned n = lh->params.n_subsys < 4 ? lh->params.n_subsys : 4;
	for (unsigned i = 0; i < n; i++) {
		snprintf(nqns[i], sizeof(nqns[i]), "nqn.2026-11.io.nvmf-rdma:lh%u", i);
		subs[i] = nqns[i];
	}
	p.subsystems = subs;
	p.n_subsystems = n;
	pc->rc = nvmf_tgt_port_add(&lh->tgt, &p, pc->err, sizeof(pc->err));
}

static int port_change(struct loop_host *lh, uint16_t portid, bool add)
{
	struct port_change pc = { .lh = lh, .portid = portid, .add = add };
	if (!portid || portid > lh->params.n_ports)
		return -EINVAL;
	nvmf_loop_run_on(&lh->tgt, 0, port_change_on_main, &pc);
	if (pc.rc)
		fprintf(stderr, "loop_host: port %u %s: %s\n", portid, add ? "add" : "remove",
			pc.err);
	return pc.rc;
}

int loop_host_port_remove(struct loop_host *lh, uint16_t portid)
{
	return port_change(lh, portid, false);
}

int loop_host_port_add(struct loop_host *lh, uint16_t portid)
{
	return port_change(lh, portid, true);
}

struct ana_change {
	struct loop_host *lh;
	uint16_t portid;
	uint32_t grpid;
	uint8_t state;
	int rc;
	char err[256];
};

static void ana_set_on_main(void *arg)
{
	struct ana_change *a = arg;
	struct nvmf_port *port = nvmf_tgt_find_port(&a->lh->tgt, a->portid);
	a->rc = port ? nvmf_tgt_ana_state_set(&a->lh->tgt, port, a->grpid, a->state, a->err,
					      sizeof(a->err)) :
		       -ENOENT;
}

int loop_host_ana_set(struct loop_host *lh, uint16_t portid, uint32_t grpid, uint8_t state)
{
	struct ana_change a = { .lh = lh, .portid = portid, .grpid = grpid, .state = state };
	nvmf_loop_run_on(&lh->tgt, 0, ana_set_on_main, &a);
	if (a.rc < 0)
		fprintf(stderr, "loop_host: ANA state of group %u on port %u: %s\n", grpid, portid,
			a.err);
	return a.rc < 0 ? a.rc : 0;
}

/* Namespace changes of lh0: on the main group, which owns the model. */
enum ns_op { NS_ADD, NS_REMOVE, NS_RESIZE };

struct ns_change {
	struct loop_host *lh;
	enum ns_op op;
	uint32_t nsid;
	uint64_t bytes;
	int rc;
	char err[256];
};

static void ns_change_on_main(void *arg)
{
	struct ns_change *n = arg;
	struct nvmf_subsys *s = nvmf_tgt_find_subsys(&n->lh->tgt, LH_SUBNQN);
	if (!s) {
		n->rc = -ENOENT;
		snprintf(n->err, sizeof(n->err), "no subsystem %s", LH_SUBNQN);
		return;
	}
	if (n->op == NS_REMOVE) {
		n->rc = nvmf_tgt_ns_remove(&n->lh->tgt, s, n->nsid, n->err, sizeof(n->err));
		return;
	}
	if (n->op == NS_RESIZE) {
		n->rc = nvmf_tgt_ns_resize(&n->lh->tgt, s, n->nsid, n->bytes, n->err,
					   sizeof(n->err));
		return;
	}
	struct nvmf_ns_config nc;
	memset(&nc, 0, sizeof(nc));
	nc.nsid = n->nsid;
	nc.enable = true;
	nc.kind = NVMF_BACKEND_RAM;
	nc.size_bytes = n->bytes;
	nc.block_size = 512;
	uint32_t got = 0;
	n->rc = nvmf_tgt_ns_add(&n->lh->tgt, s, &nc, 1, &got, n->err, sizeof(n->err));
}

static int ns_change(struct loop_host *lh, enum ns_op op, uint32_t nsid, uint64_t bytes)
{
	struct ns_change n = { .lh = lh, .op = op, .nsid = nsid, .bytes = bytes };
	nvmf_loop_run_on(&lh->tgt, 0, ns_change_on_main, &n);
	if (n.rc)
		fprintf(stderr, "loop_host: namespace %u: %s\n", nsid, n.err);
	return n.rc;
}

int loop_host_ns_add(struct loop_host *lh, uint32_t nsid, uint64_t bytes)
{
	return ns_change(lh, NS_ADD, nsid, bytes);
}

int loop_host_ns_remove(struct loop_host *lh, uint32_t nsid)
{
	return ns_change(lh, NS_REMOVE, nsid, 0);
}

int loop_host_ns_resize(struct loop_host *lh, uint32_t nsid, uint64_t bytes)
{
	return ns_change(lh, NS_RESIZE, nsid, bytes);
}

void loop_host_hold(struct loop_host *lh, bool hold)
{
	nvmf_loop_hold(&lh->tgt, hold);
}

void loop_host_drop(struct loop_host *lh, uint16_t qid, unsigned n)
{
	nvmf_loop_drop(&lh->tgt, qid, n);
}

void loop_host_break(struct loop_host *lh)
{
	nvmf_loop_break(&lh->tgt);
}

unsigned loop_host_fabrics_count(struct loop_host *lh, uint8_t fctype)
{
	return __atomic_load_n(&lh->fabrics_ops[fctype], __ATOMIC_RELAXED);
}

unsigned loop_host_admin_count(struct loop_host *lh, uint8_t opcode)
{
	return __atomic_load_n(&lh->admin_ops[opcode], __ATOMIC_RELAXED);
}

unsigned loop_host_io_count(struct loop_host *lh, uint8_t opcode)
{
	return __atomic_load_n(&lh->io_ops[opcode], __ATOMIC_RELAXED);
}

unsigned loop_host_disc_log_reads(struct loop_host *lh)
{
	return __atomic_load_n(&lh->disc_reads, __ATOMIC_RELAXED);
}

void loop_host_bump_genctr(struct loop_host *lh, unsigned after, bool every)
{
	__atomic_store_n(&lh->bump_after, after, __ATOMIC_RELAXED);
	__atomic_store_n(&lh->bump_every, every, __ATOMIC_RELAXED);
}

uint32_t loop_host_max_io_len(struct loop_host *lh)
{
	return __atomic_load_n(&lh->max_io_len, __ATOMIC_RELAXED);
}

unsigned loop_host_incapsule_writes(struct loop_host *lh)
{
	return __atomic_load_n(&lh->incapsule_writes, __ATOMIC_RELAXED);
}

/* Reading the main group's state: on the main group (nvmf_loop_run_on). */
struct regs_query {
	struct loop_host *lh;
	uint16_t cntlid;
	bool found;
	uint32_t cc, csts;
	unsigned n;
};

static void last_regs_on_main(void *arg)
{
	struct regs_query *q = arg;
	q->found = q->lh->have_regs;
	q->cc = q->lh->last_cc;
	q->csts = q->lh->last_csts;
}

bool loop_host_last_admin_regs(struct loop_host *lh, uint32_t *cc, uint32_t *csts)
{
	struct regs_query q = { .lh = lh };
	nvmf_loop_run_on(&lh->tgt, 0, last_regs_on_main, &q);
	*cc = q.cc;
	*csts = q.csts;
	return q.found;
}

static void ctrls_on_main(void *arg)
{
	struct regs_query *q = arg;
	for (struct nvmf_tgt_ctrl *c = q->lh->tgt.ctrls; c; c = c->next) {
		q->n++;
		if (c->cntlid == q->cntlid && !c->deleting &&
		    !strcmp(c->subsys->cfg->nqn, LH_SUBNQN)) {
			q->found = true;
			q->cc = c->cc;
			q->csts = c->csts;
		}
	}
}

unsigned loop_host_live_ctrls(struct loop_host *lh)
{
	struct regs_query q = { .lh = lh };
	nvmf_loop_run_on(&lh->tgt, 0, ctrls_on_main, &q);
	return q.n;
}

bool loop_host_ctrl_regs(struct loop_host *lh, uint16_t cntlid, uint32_t *cc, uint32_t *csts)
{
	struct regs_query q = { .lh = lh, .cntlid = cntlid };
	nvmf_loop_run_on(&lh->tgt, 0, ctrls_on_main, &q);
	if (q.found) {
		*cc = q.cc;
		*csts = q.csts;
	}
	return q.found;
}
