/* The ANA-playing host transport of libnvmf's tests (see ana_wrap.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "tests/unit/initiator/ana_wrap.h"

#define AW_MAX_NS      16
#define AW_MAX_PENDING 4096
#define AW_RAW_MAX     (64u << 10)

struct aw_pending { /* a CQE of ours, delivered at the queue's next poll */
	struct nvmf_hq *hq;
	struct nvme_cqe cqe;
};

enum aw_kind { AW_ID_CTRL, AW_ID_NS, AW_LOG };

struct aw_patch { /* an answer to rewrite once it arrived */
	struct nvmf_hq *hq;
	uint16_t cid;
	enum aw_kind kind;
};

static struct {
	pthread_mutex_t lock;
	const struct nvmf_host_transport *inner;
	struct nvmf_host_transport t;
	struct ana_wrap_id id;
	uint8_t state[AW_MAX_PATHS][AW_MAX_GROUPS + 1];
	uint32_t grp[AW_MAX_NS + 1], anagrpid[AW_MAX_NS + 1];
	uint64_t chgcnt;
	uint8_t *raw;
	size_t raw_len;
	unsigned bump_every, log_reads;
	uint32_t last_cdw10, last_len;
	unsigned passed[AW_MAX_PATHS], refused[AW_MAX_PATHS];
	uint16_t fail_next[AW_MAX_PATHS]; /* status for the next I/O command there */
	struct aw_pending pending[AW_MAX_PENDING];
	unsigned npending;
	struct aw_patch patch[64];
	unsigned npatch;
	bool spoil_ids;
	unsigned spoil_path;
} W = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Path N dialed 127.0.0.(N+1). */
static unsigned path_of(const struct nvmf_hq *hq)
{
	unsigned a, b, c, d;
	if (sscanf(hq->ctrl->traddr, "%u.%u.%u.%u", &a, &b, &c, &d) != 4 || d < 1 ||
	    d > AW_MAX_PATHS)
		return 0;
	return d - 1;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

void aw_log_header(uint8_t *p, uint64_t chgcnt, uint16_t ngrps)
{
	memset(p, 0, 16);
	put_le64(p, chgcnt);
	p[8] = (uint8_t)ngrps;
	p[9] = (uint8_t)(ngrps >> 8);
}

size_t aw_log_desc(uint8_t *p, uint32_t grpid, uint8_t state, uint64_t chgcnt, uint32_t n,
		   const uint32_t *nsids)
{
	memset(p, 0, 32);
	put_le32(p, grpid);
	put_le32(p + 4, n);
	put_le64(p + 8, chgcnt);
	p[16] = state;
	for (uint32_t i = 0; nsids && i < n; i++)
		put_le32(p + 32 + 4 * i, nsids[i]);
	return 32 + 4 * (size_t)n;
}

/* The log of @path as a target with these groups would send it (lock held). */
static size_t build_log(unsigned path, bool rgo, uint8_t *out)
{
	size_t off = 16;
	for (uint32_t g = 1; g <= AW_MAX_GROUPS; g++) {
		uint32_t ids[AW_MAX_NS], n = 0;
		for (uint32_t ns = 1; !rgo && ns <= AW_MAX_NS; ns++)
			if (W.grp[ns] == g)
				ids[n++] = ns;
		off += aw_log_desc(out + off, g, W.state[path][g], W.chgcnt, n, ids);
	}
	aw_log_header(out, W.chgcnt, AW_MAX_GROUPS);
	return off;
}

static void add_pending(struct nvmf_hq *hq, uint16_t cid, uint16_t status)
{
	if (W.npending == AW_MAX_PENDING)
		abort();
	struct aw_pending *p = &W.pending[W.npending++];
	memset(p, 0, sizeof(*p));
	p->hq = hq;
	p->cqe.command_id = cid;
	p->cqe.status = htole16((uint16_t)(status << 1));
}

/* Get Log Page 0Ch, arrived: the bytes at LPO of the built or raw log (lock held). */
static void fill_log(struct nvmf_hq *hq, struct nvmf_hcmd *cmd)
{
	static uint8_t full[AW_RAW_MAX];
	uint32_t cdw10 = le32toh(cmd->sqe.cdw10);
	uint64_t lpo = le32toh(cmd->sqe.cdw12) | (uint64_t)le32toh(cmd->sqe.cdw13) << 32;
	memset(full, 0, sizeof(full));
	size_t n;
	if (W.raw) {
		memcpy(full, W.raw, W.raw_len);
		n = W.raw_len;
	} else {
		n = build_log(path_of(hq), (cdw10 >> 8) & 1, full);
	}
	memset(cmd->buf, 0, cmd->len);
	if (lpo < n)
		memcpy(cmd->buf, full + lpo, n - lpo < cmd->len ? n - lpo : cmd->len);
}

/* The path status for @nsid on @path, 0 when its group is usable (lock held). */
static uint16_t io_status(unsigned path, uint32_t nsid)
{
	if (W.id.no_ana || !nsid || nsid > AW_MAX_NS || !W.grp[nsid])
		return 0;
	switch (W.state[path][W.grp[nsid]]) {
	case NVME_ANA_STATE_INACCESSIBLE:
		return NVME_SCT_PATH << 8 | NVME_SC_ANA_INACCESSIBLE;
	case NVME_ANA_STATE_PERSISTENT_LOSS:
		return NVME_SCT_PATH << 8 | NVME_SC_ANA_PERSISTENT_LOSS;
	case NVME_ANA_STATE_CHANGE:
		return NVME_SCT_PATH << 8 | NVME_SC_ANA_TRANSITION;
	default:
		return 0;
	}
}

static int aw_submit(struct nvmf_hq *hq, struct nvmf_hcmd *cmd)
{
	const struct nvme_sqe *sqe = &cmd->sqe;
	uint8_t cns = (uint8_t)le32toh(sqe->cdw10);
	int kind = -1;
	pthread_mutex_lock(&W.lock);
	if (hq->qid && sqe->opcode != nvme_admin_fabrics) {
		unsigned p = path_of(hq);
		uint16_t st = io_status(p, le32toh(sqe->nsid));
		if (!st && W.fail_next[p]) {
			st = W.fail_next[p];
			W.fail_next[p] = 0;
		}
		if (st) {
			pthread_mutex_unlock(&W.lock);
			/* A target would answer only over a live connection. */
			if (W.inner->poll(hq, 0) < 0)
				return -ECONNRESET;
			pthread_mutex_lock(&W.lock);
			W.refused[p]++;
			add_pending(hq, sqe->command_id, st);
			pthread_mutex_unlock(&W.lock);
			return 0;
		}
		W.passed[p]++;
	} else if (!hq->qid && sqe->opcode == nvme_admin_get_log_page && cns == NVME_LOG_LID_ANA) {
		/* Passed on (a lost connection shows), answered when it comes back. */
		W.log_reads++;
		W.last_cdw10 = le32toh(sqe->cdw10);
		W.last_len = cmd->len;
		if (W.bump_every && W.log_reads % W.bump_every == 0)
			W.chgcnt++;
		kind = AW_LOG;
	} else if (!hq->qid && sqe->opcode == nvme_admin_identify &&
		   cns == NVME_IDENTIFY_CNS_CTRL) {
		kind = AW_ID_CTRL;
	} else if (!hq->qid && sqe->opcode == nvme_admin_identify && cns == NVME_IDENTIFY_CNS_NS) {
		kind = AW_ID_NS;
	}
	pthread_mutex_unlock(&W.lock);
	int rc = W.inner->submit(hq, cmd);
	if (!rc && kind >= 0) {
		pthread_mutex_lock(&W.lock);
		if (W.npatch < 64)
			W.patch[W.npatch++] =
				(struct aw_patch){ hq, sqe->command_id, (enum aw_kind)kind };
		pthread_mutex_unlock(&W.lock);
	}
	return rc;
}

static void patch_ctrl(struct nvme_id_ctrl *id)
{
	if (W.id.nn)
		id->nn = htole32(W.id.nn);
	id->cmic &= (uint8_t)~W.id.cmic_clear;
	if (W.id.aerl_set)
		id->aerl = W.id.aerl;
	if (W.id.no_ana) {
		/* Our target reports ANA: play one that does not. */
		id->cmic &= (uint8_t)~NVME_CTRL_CMIC_MULTI_ANA_REPORTING;
		id->anatt = id->anacap = 0;
		id->anagrpmax = id->nanagrpid = id->mnan = 0;
		return;
	}
	id->cmic |= NVME_CTRL_CMIC_MULTI_ANA_REPORTING;
	id->anatt = W.id.anatt ? W.id.anatt : 10;
	id->anacap = NVME_CTRL_ANACAP_OPT | NVME_CTRL_ANACAP_NON_OPT |
		     NVME_CTRL_ANACAP_INACCESSIBLE | NVME_CTRL_ANACAP_PERSISTENT_LOSS |
		     NVME_CTRL_ANACAP_CHANGE;
	id->anagrpmax = htole32(W.id.anagrpmax ? W.id.anagrpmax : AW_MAX_GROUPS);
	id->nanagrpid = htole32(W.id.nanagrpid ? W.id.nanagrpid : AW_MAX_GROUPS);
	id->mnan = htole32(W.id.mnan);
}

/* Rewrite the answers that arrived on @hq (lock held). */
static void patch_arrived(struct nvmf_hq *hq)
{
	struct nvmf_queue *q = hq->core;
	for (unsigned i = 0; i < W.npatch;) {
		struct aw_patch *p = &W.patch[i];
		bool arrived = false;
		for (unsigned k = q->done_head; p->hq == hq && k < q->nr_done; k++)
			arrived |= q->done[k] == p->cid;
		if (!arrived) {
			i++;
			continue;
		}
		struct nvmf_hcmd *cmd = nvmf_hq_cmd_by_cid(hq, p->cid);
		if (cmd && p->kind == AW_ID_CTRL) {
			patch_ctrl(cmd->buf);
		} else if (cmd && p->kind == AW_LOG) {
			fill_log(hq, cmd);
			q->slots[p->cid].cqe.status = 0; /* whatever the target said */
		} else if (cmd) {
			struct nvme_id_ns *ns = cmd->buf;
			uint32_t nsid = le32toh(cmd->sqe.nsid);
			if (ns->nsze && nsid <= AW_MAX_NS && !W.id.no_ana)
				ns->anagrpid =
					htole32(W.grp[nsid] ? W.grp[nsid] : W.anagrpid[nsid]);
			if (ns->nsze && W.spoil_ids && path_of(hq) == W.spoil_path)
				ns->nguid[0] ^= 0xff;
		}
		*p = W.patch[--W.npatch];
	}
}

static int aw_poll(struct nvmf_hq *hq, unsigned max)
{
	int rc = W.inner->poll(hq, max);
	pthread_mutex_lock(&W.lock);
	patch_arrived(hq);
	int n = 0;
	for (unsigned i = 0; rc >= 0 && i < W.npending;) {
		if (W.pending[i].hq != hq) {
			i++;
			continue;
		}
		struct nvme_cqe cqe = W.pending[i].cqe;
		W.pending[i] = W.pending[--W.npending];
		nvmf_hq_complete(hq, &cqe);
		n++;
	}
	pthread_mutex_unlock(&W.lock);
	return rc < 0 ? rc : rc + n;
}

static int aw_wait(struct nvmf_hq *hq, int timeout_ms)
{
	pthread_mutex_lock(&W.lock);
	bool mine = false;
	for (unsigned i = 0; i < W.npending && !mine; i++)
		mine = W.pending[i].hq == hq;
	pthread_mutex_unlock(&W.lock);
	return mine ? 0 : W.inner->wait(hq, timeout_ms);
}

/* The loop host finds its target through hq->t at connect: give it its own. */
static int aw_connect(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *o, uint16_t qid,
		      uint16_t size, char *err, size_t errlen)
{
	const struct nvmf_host_transport *self = hq->t;
	hq->t = W.inner;
	int rc = W.inner->queue_connect(hq, o, qid, size, err, errlen);
	hq->t = self;
	return rc;
}

static void aw_disconnect(struct nvmf_hq *hq)
{
	pthread_mutex_lock(&W.lock);
	for (unsigned i = 0; i < W.npending;)
		if (W.pending[i].hq == hq)
			W.pending[i] = W.pending[--W.npending];
		else
			i++;
	for (unsigned i = 0; i < W.npatch;)
		if (W.patch[i].hq == hq)
			W.patch[i] = W.patch[--W.npatch];
		else
			i++;
	pthread_mutex_unlock(&W.lock);
	W.inner->queue_disconnect(hq);
}

static void aw_set_incapsule(struct nvmf_hq *hq, uint32_t ioccsz)
{
	if (W.inner->set_incapsule)
		W.inner->set_incapsule(hq, ioccsz);
}

static int aw_mem_register(struct nvmf_hq *hq, void *addr, size_t len)
{
	return W.inner->mem_register ? W.inner->mem_register(hq, addr, len) : -EOPNOTSUPP;
}

static int aw_mem_unregister(struct nvmf_hq *hq, void *addr)
{
	return W.inner->mem_unregister ? W.inner->mem_unregister(hq, addr) : -EOPNOTSUPP;
}

const struct nvmf_host_transport *ana_wrap_new(struct loop_host *lh, const struct ana_wrap_id *id)
{
	pthread_mutex_lock(&W.lock);
	free(W.raw);
	W.raw = NULL;
	W.raw_len = 0;
	W.inner = loop_host_transport(lh);
	W.id = id ? *id : (struct ana_wrap_id){ 0 };
	memset(W.grp, 0, sizeof(W.grp));
	memset(W.anagrpid, 0, sizeof(W.anagrpid));
	W.grp[1] = W.grp[2] = 1;
	for (unsigned p = 0; p < AW_MAX_PATHS; p++)
		for (unsigned g = 0; g <= AW_MAX_GROUPS; g++)
			W.state[p][g] = NVME_ANA_STATE_OPTIMIZED;
	W.chgcnt = 1;
	W.bump_every = W.log_reads = 0;
	W.last_cdw10 = W.last_len = 0;
	memset(W.passed, 0, sizeof(W.passed));
	memset(W.refused, 0, sizeof(W.refused));
	memset(W.fail_next, 0, sizeof(W.fail_next));
	W.spoil_ids = false;
	W.npending = W.npatch = 0;
	W.t = (struct nvmf_host_transport){
		.name = "ana-wrap",
		.queue_connect = aw_connect,
		.queue_disconnect = aw_disconnect,
		.submit = aw_submit,
		.poll = aw_poll,
		.wait = aw_wait,
		.set_incapsule = aw_set_incapsule,
		.mem_register = aw_mem_register,
		.mem_unregister = aw_mem_unregister,
	};
	pthread_mutex_unlock(&W.lock);
	return &W.t;
}

void ana_wrap_set_state(unsigned path, uint32_t grpid, uint8_t state)
{
	pthread_mutex_lock(&W.lock);
	if (path < AW_MAX_PATHS && grpid >= 1 && grpid <= AW_MAX_GROUPS) {
		W.state[path][grpid] = state;
		W.chgcnt++;
	}
	pthread_mutex_unlock(&W.lock);
}

void ana_wrap_set_group(uint32_t nsid, uint32_t grpid, uint32_t anagrpid)
{
	pthread_mutex_lock(&W.lock);
	if (nsid >= 1 && nsid <= AW_MAX_NS) {
		W.grp[nsid] = grpid;
		W.anagrpid[nsid] = anagrpid;
		W.chgcnt++;
	}
	pthread_mutex_unlock(&W.lock);
}

void ana_wrap_set_raw(const void *bytes, size_t len)
{
	pthread_mutex_lock(&W.lock);
	free(W.raw);
	W.raw = NULL;
	W.raw_len = 0;
	if (bytes && len <= AW_RAW_MAX && (W.raw = malloc(len ? len : 1))) {
		memcpy(W.raw, bytes, len);
		W.raw_len = len;
	}
	pthread_mutex_unlock(&W.lock);
}

void ana_wrap_bump_every(unsigned n)
{
	pthread_mutex_lock(&W.lock);
	W.bump_every = n;
	pthread_mutex_unlock(&W.lock);
}

void ana_wrap_fail_next_io(unsigned path, uint16_t status)
{
	pthread_mutex_lock(&W.lock);
	if (path < AW_MAX_PATHS)
		W.fail_next[path] = status;
	pthread_mutex_unlock(&W.lock);
}

void ana_wrap_spoil_ns_ids(unsigned path)
{
	pthread_mutex_lock(&W.lock);
	W.spoil_ids = true;
	W.spoil_path = path;
	pthread_mutex_unlock(&W.lock);
}

#define AW_GETTER(type, name, expr)            \
	type name                              \
	{                                      \
		pthread_mutex_lock(&W.lock);   \
		type v = (expr);               \
		pthread_mutex_unlock(&W.lock); \
		return v;                      \
	}

AW_GETTER(unsigned, ana_wrap_log_reads(void), W.log_reads)
AW_GETTER(uint32_t, ana_wrap_last_log_cdw10(void), W.last_cdw10)
AW_GETTER(uint32_t, ana_wrap_last_log_len(void), W.last_len)
AW_GETTER(unsigned, ana_wrap_io_passed(unsigned path), path < AW_MAX_PATHS ? W.passed[path] : 0)
AW_GETTER(unsigned, ana_wrap_io_refused(unsigned path), path < AW_MAX_PATHS ? W.refused[path] : 0)
