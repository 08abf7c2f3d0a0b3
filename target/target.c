/* SPDX-License-Identifier: MIT */
/*
 * The target as a whole: the model built from the configuration, the limits resolved
 * once, the poll groups and their threads, the transports and their listeners; start-up
 * in that order and shutdown in reverse.
 */
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "target/ana.h"
#include "target/auth.h"
#include "target/core.h"
#include "target/ephemeral.h"
#include "target/log.h"
#include "target/model.h"
#include "target/namespace.h"
#include "target/lba-lock.h"
#include "target/passthru.h"
#include "target/resv.h"
#include "util/clock.h"

#define AIO_DEPTH 1024 /* io_uring entries per poll group */

uint64_t nvmf_tgt_now_ms(const struct nvmf_tgt *tgt)
{
	return nvmf_clock_ms(&tgt->clock);
}

/* ---- the model ---- */

static int build_model(struct nvmf_tgt *tgt, struct nvmf_config *cfg, char *err, size_t errlen)
{
	/* Counts of what is built so far: on failure nvmf_tgt_fini frees exactly those. */
	tgt->n_subsys = tgt->n_ports = 0;
	tgt->disc = nvmf_subsys_discovery_new(cfg->target.discovery_nqn);
	tgt->subsys = calloc(cfg->n_subsystems ? cfg->n_subsystems : 1, sizeof(*tgt->subsys));
	tgt->ports = calloc(cfg->n_ports ? cfg->n_ports : 1, sizeof(*tgt->ports));
	if (!tgt->disc || !tgt->subsys || !tgt->ports) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cfg->n_subsystems; i++) {
		tgt->subsys[i] = nvmf_subsys_build(&cfg->subsystems[i], i, err, errlen);
		if (!tgt->subsys[i])
			return -1;
		char why[512];
		if (nvmf_tgt_passthru_open(tgt, tgt->subsys[i], why, sizeof(why))) {
			snprintf(err, errlen, "subsystems[%zu] (%s): %s", i, cfg->subsystems[i].nqn,
				 why);
			nvmf_subsys_free(tgt->subsys[i]);
			tgt->subsys[i] = NULL;
			return -1;
		}
		nvmf_subsys_log_notes(tgt, tgt->subsys[i]);
		if (nvmf_tgt_subsys_check_unique(tgt, tgt->subsys[i], why, sizeof(why))) {
			snprintf(err, errlen, "subsystems[%zu] (%s): %s", i, cfg->subsystems[i].nqn,
				 why);
			nvmf_subsys_free(tgt->subsys[i]);
			tgt->subsys[i] = NULL;
			return -1;
		}
		tgt->n_subsys++;
	}
	for (size_t i = 0; i < cfg->n_ports; i++) {
		char why[512];
		struct nvmf_port *p = nvmf_tgt_port_build(tgt, &cfg->ports[i], why, sizeof(why));
		if (!p) { /* the config loader already refuses unknown subsystems */
			snprintf(err, errlen, "ports[%zu]: %s", i, why);
			return -1;
		}
		tgt->ports[tgt->n_ports++] = p;
	}
	return 0;
}

struct nvmf_port *nvmf_tgt_port_build(struct nvmf_tgt *tgt, const struct nvmf_port_config *pc,
				      char *err, size_t errlen)
{
	struct nvmf_port *p = calloc(1, sizeof(*p));
	struct nvmf_port_config *copy = calloc(1, sizeof(*copy));
	if (!p || !copy || nvmf_config_port_dup(pc, copy) ||
	    !(p->subsys = calloc(pc->n_subsystems ? pc->n_subsystems : 1, sizeof(*p->subsys)))) {
		free(copy);
		nvmf_port_free(p);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->cfg = copy;
	nvmf_ana_port_init(tgt, p);
	for (size_t j = 0; j < pc->n_subsystems; j++) {
		struct nvmf_subsys *s = nvmf_tgt_find_subsys(tgt, pc->subsystems[j]);
		if (!s || s->type != NVMF_SUBSYS_NVME) {
			snprintf(err, errlen, "subsystems[%zu]: no subsystem %s", j,
				 pc->subsystems[j]);
			nvmf_port_free(p);
			return NULL;
		}
		p->subsys[p->n_subsys++] = s;
	}
	return p;
}

struct nvmf_port *nvmf_tgt_find_port(struct nvmf_tgt *tgt, uint16_t portid)
{
	for (size_t i = 0; i < tgt->n_ports; i++)
		if (tgt->ports[i]->cfg->portid == portid)
			return tgt->ports[i];
	return NULL;
}

/* ---- transports and limits ---- */

static const struct nvmf_transport_ops *find_ops(const struct nvmf_transport_ops *const *ops,
						 unsigned nops, const char *name)
{
	for (unsigned i = 0; i < nops; i++)
		if (!strcmp(ops[i]->name, name))
			return ops[i];
	return NULL;
}

static uint32_t default_mdts(const struct nvmf_tgt *tgt)
{
	return tgt->cfg->target.mdts ? tgt->cfg->target.mdts : NVMF_DEFAULT_MDTS;
}

uint32_t nvmf_tgt_port_mdts(const struct nvmf_tgt *tgt, const struct nvmf_port_config *pc)
{
	uint32_t m = pc->mdts ? pc->mdts : default_mdts(tgt);
	return m < tgt->mdts ? m : tgt->mdts;
}

/* Every limit in one place: the target's MDTS (what the transports size their buffers
 * for) is the largest a port asks for, bounded by the smallest max transfer of the
 * transports in use; each port's MDTS within it, its queue and in-capsule sizes by its
 * transport. */
static int resolve_limits(struct nvmf_tgt *tgt, const struct nvmf_transport_ops *const *ops,
			  unsigned nops, const struct nvmf_transport_ops **used, unsigned *nused,
			  char *err, size_t errlen)
{
	tgt->mdts = default_mdts(tgt);
	for (size_t i = 0; i < tgt->n_ports; i++)
		if (tgt->ports[i]->cfg->mdts > tgt->mdts)
			tgt->mdts = tgt->ports[i]->cfg->mdts;
	for (size_t i = 0; i < tgt->n_ports; i++) {
		struct nvmf_port *p = tgt->ports[i];
		const struct nvmf_transport_ops *o = find_ops(ops, nops, p->cfg->trtype);
		if (!o) {
			snprintf(err, errlen,
				 "ports[%zu] (port %u): transport \"%s\" is not available here", i,
				 p->cfg->portid, p->cfg->trtype);
			return -1;
		}
		nvmf_port_resolve(p, o->max_queue_size, o->max_inline);
		while (tgt->mdts > 0 && (4096ull << tgt->mdts) > o->max_xfer)
			tgt->mdts--;
		unsigned k;
		for (k = 0; k < *nused && used[k] != o; k++)
			;
		if (k == *nused) {
			if (*nused == NVMF_MAX_TRANSPORTS) {
				snprintf(err, errlen, "more than %d transports",
					 NVMF_MAX_TRANSPORTS);
				return -1;
			}
			used[(*nused)++] = o;
		}
	}
	for (size_t i = 0; i < tgt->n_ports; i++)
		tgt->ports[i]->mdts = nvmf_tgt_port_mdts(tgt, tgt->ports[i]->cfg);
	return 0;
}

static int make_groups(struct nvmf_tgt *tgt, char *err, size_t errlen)
{
	const struct nvmf_target_config *tc = &tgt->cfg->target;
	unsigned io_groups = tc->threads > 1 ? tc->threads : 0;
	tgt->pgs = calloc(1 + io_groups, sizeof(*tgt->pgs));
	if (!tgt->pgs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i <= io_groups; i++) {
		struct nvmf_pg *pg = calloc(1, sizeof(*pg));
		if (!pg) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (nvmf_pg_init(pg, tgt, i, AIO_DEPTH, tc->idle_poll_us, err, errlen)) {
			free(pg);
			return -1;
		}
		tgt->pgs[tgt->npgs++] = pg;
	}
	/* With I/O groups, the main group keeps admin and discovery queues only. */
	if (io_groups)
		tgt->pgs[0]->serves_io = false;
	return 0;
}

/* "port 1 (rdma 0.0.0.0:4420), port 3 (rdma [fd00::1]:4420)": the ports of @trtype, for
 * a message saying why they cannot be served. */
static void ports_of(const struct nvmf_tgt *tgt, const char *trtype, char *out, size_t len)
{
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < tgt->n_ports && n < len; i++) {
		const struct nvmf_port_config *pc = tgt->ports[i]->cfg;
		if (strcmp(pc->trtype, trtype))
			continue;
		char a[96];
		int w = snprintf(out + n, len - n, "%sport %u (%s %s)", n ? ", " : "", pc->portid,
				 pc->trtype, nvmf_port_config_addr(pc, a, sizeof(a)));
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

void nvmf_tgt_transport_opts(const struct nvmf_tgt *tgt, const struct nvmf_transport_ops *ops,
			     struct nvmf_transport_opts *out)
{
	const struct nvmf_target_config *tc = &tgt->cfg->target;
	memset(out, 0, sizeof(*out));
	out->max_xfer = 4096u << tgt->mdts;
	for (size_t i = 0; i < tgt->n_ports; i++)
		if (!strcmp(tgt->ports[i]->cfg->trtype, ops->name)) {
			out->nports++;
			if (tgt->ports[i]->inline_size > out->max_port_inline)
				out->max_port_inline = tgt->ports[i]->inline_size;
		}
	out->srq = tc->srq;
	out->srq_depth = tc->srq_depth;
	out->buffers_small = tc->buffers_small;
	out->buffers_large = tc->buffers_large;
	out->hugepages = tc->hugepages;
	out->post_thread = tc->post_thread;
	out->clock = &tgt->clock;
}

/* Transports @used by the config's ports must start: a port the config asks for that
 * cannot be served fails the start, as a bind failure does, with a message naming the
 * ports. The others (@nused up to @nall) are started when they can, so that ports of
 * theirs can be added while the target runs; one that cannot is a fact about this
 * machine (no RDMA device), said once at info level. */
static int make_transports(struct nvmf_tgt *tgt, const struct nvmf_transport_ops **used,
			   unsigned nused, unsigned nall, char *err, size_t errlen)
{
	for (unsigned i = 0; i < nall; i++) {
		char why[512];
		struct nvmf_transport_opts opts;
		nvmf_tgt_transport_opts(tgt, used[i], &opts);
		struct nvmf_transport *t = used[i]->create(tgt, &opts, why, sizeof(why));
		if (!t && i >= nused) {
			nvmf_log(tgt, NVMF_LOG_INFO, "%s ports cannot be used on this machine (%s)",
				 used[i]->name, why);
			continue;
		}
		if (!t) {
			char ports[256];
			ports_of(tgt, used[i]->name, ports, sizeof(ports));
			snprintf(err, errlen, "%s: the %s transport cannot start: %s", ports,
				 used[i]->name, why);
			return -1;
		}
		t->ops = used[i];
		t->tgt = tgt;
		t->opts = opts;
		t->index = tgt->ntransports;
		tgt->transports[tgt->ntransports++] = t;
		for (unsigned g = 0; g < tgt->npgs; g++) {
			struct nvmf_pg *pg = tgt->pgs[g];
			struct nvmf_tpg *tpg = used[i]->pg_create(t, pg, err, errlen);
			if (!tpg)
				return -1;
			tpg->transport = t;
			tpg->pg = pg;
			pg->tpg[t->index] = tpg;
			pg->ntpg = t->index + 1;
		}
	}
	for (size_t i = 0; i < tgt->n_ports; i++)
		for (unsigned k = 0; k < tgt->ntransports; k++)
			if (!strcmp(tgt->transports[k]->ops->name, tgt->ports[i]->cfg->trtype))
				tgt->ports[i]->transport = tgt->transports[k];
	return 0;
}

/* Every namespace counts its commands per poll group, now that the groups exist, and
 * gets its reservations when it has them on (target/resv.h). */
static int count_namespaces(struct nvmf_tgt *tgt, char *err, size_t errlen)
{
	for (size_t i = 0; i < tgt->n_subsys; i++)
		for (uint32_t n = 1; n <= tgt->subsys[i]->max_nsid; n++)
			if (tgt->subsys[i]->ns[n] &&
			    (nvmf_ns_stats_alloc(tgt->subsys[i]->ns[n], tgt->npgs) ||
			     nvmf_lba_ns_attach(tgt, tgt->subsys[i]->ns[n]) ||
			     nvmf_resv_ns_attach(tgt, tgt->subsys[i], tgt->subsys[i]->ns[n]))) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
	return 0;
}

static void kato_tick(void *arg)
{
	struct nvmf_tgt *tgt = arg;
	nvmf_tgt_check_keep_alive(tgt);
	/* A backing file deleted while served is said within a second: one fstat per file
	 * namespace then, nothing on the I/O path. */
	if (nvmf_tgt_now_ms(tgt) - tgt->unlink_check_ms >= 1000)
		nvmf_tgt_ns_check_unlinked(tgt);
}

int nvmf_tgt_init(struct nvmf_tgt *tgt, struct nvmf_config *cfg,
		  const struct nvmf_transport_ops *const *ops, unsigned nops, char *err,
		  size_t errlen)
{
	return nvmf_tgt_init_drives(tgt, cfg, ops, nops, NULL, err, errlen);
}

int nvmf_tgt_init_drives(struct nvmf_tgt *tgt, struct nvmf_config *cfg,
			 const struct nvmf_transport_ops *const *ops, unsigned nops,
			 struct nvmf_drive *(*drive_open)(const char *path, char *err,
							  size_t errlen),
			 char *err, size_t errlen)
{
	memset(tgt, 0, sizeof(*tgt));
	tgt->cfg = cfg;
	tgt->drive_open = drive_open;
	/* The levels first: what the build below logs is kept or dropped by them. A config
	 * built in code (log_level_base unset) may have a zeroed log_level: info then. */
	nvmf_log_level_set_all(tgt, cfg->target.log_level_base_set ? cfg->target.log_level_base :
								     NVMF_LOG_INFO);
	if (cfg->target.log_level_base_set)
		nvmf_log_level_apply(tgt, &cfg->target);
	tgt->disc_genctr = 1;
	const struct nvmf_transport_ops *used[NVMF_MAX_TRANSPORTS];
	unsigned nused = 0, nall;
	int rc = build_model(tgt, cfg, err, errlen) ||
		 resolve_limits(tgt, ops, nops, used, &nused, err, errlen);
	/* Then the transports no port names, after those that must start. */
	nall = nused;
	for (unsigned i = 0; !rc && i < nops && nall < NVMF_MAX_TRANSPORTS; i++) {
		unsigned k;
		for (k = 0; k < nall && used[k] != ops[i]; k++)
			;
		if (k == nall)
			used[nall++] = ops[i];
	}
	if (rc || nvmf_tgt_host_auth_load(tgt, cfg->dhchap, cfg->n_dhchap, err, errlen) ||
	    make_groups(tgt, err, errlen) || count_namespaces(tgt, err, errlen) ||
	    make_transports(tgt, used, nused, nall, err, errlen)) {
		nvmf_tgt_shutdown(tgt, 0);
		nvmf_tgt_fini(tgt);
		return -1;
	}
	nvmf_pg_timer_start(tgt->pgs[0], &tgt->kato_timer, NVMF_KATO_TICK_MS, kato_tick, tgt);
	nvmf_tgt_warn_unadmitted_keys(tgt);
	return 0;
}

int nvmf_tgt_listen(struct nvmf_tgt *tgt, char *err, size_t errlen)
{
	for (size_t i = 0; i < tgt->n_ports; i++) {
		struct nvmf_port *p = tgt->ports[i];
		char why[512];
		if (p->transport->ops->listen(p->transport, p, why, sizeof(why))) {
			snprintf(err, errlen, "port %u: %s", p->cfg->portid, why);
			return -1;
		}
		nvmf_tgt_warn_ephemeral(tgt, p->cfg);
	}
	return 0;
}

/* ---- threads ---- */

/* The CPUs of NUMA @node into @cpus (at most @max). Returns how many; 0 when unknown. */
static int node_cpus(int node, int *cpus, int max)
{
	if (node < 0 || numa_available() < 0)
		return 0;
	struct bitmask *m = numa_allocate_cpumask();
	int n = 0;
	if (m && numa_node_to_cpus(node, m) == 0)
		for (unsigned c = 0; c < m->size && n < max; c++)
			if (numa_bitmask_isbitset(m, c))
				cpus[n++] = (int)c;
	if (m)
		numa_free_cpumask(m);
	return n;
}

int nvmf_tgt_start(struct nvmf_tgt *tgt, char *err, size_t errlen)
{
	int node = tgt->cfg->target.numa_node;
	if (node >= 0) {
		int max = numa_available() >= 0 ? numa_max_node() : 0;
		if (node > max) {
			snprintf(err, errlen,
				 "nvmf_target.numa_node: node %d does not exist here (nodes 0-%d)",
				 node, max);
			return -1;
		}
	}
	if (tgt->npgs == 1) {
		tgt->started = true;
		return 0;
	}
	/* Where the NICs are, unless the config says. */
	for (unsigned i = 0; node < 0 && i < tgt->ntransports; i++)
		if (tgt->transports[i]->ops->numa_node)
			node = tgt->transports[i]->ops->numa_node(tgt->transports[i]);
	int cpus[1024];
	int ncpu = node_cpus(node, cpus, 1024);
	for (unsigned i = 1; i < tgt->npgs; i++)
		if (nvmf_pg_start(tgt->pgs[i], ncpu ? cpus[(i - 1) % (unsigned)ncpu] : -1, err,
				  errlen))
			return -1;
	if (ncpu)
		nvmf_log(tgt, NVMF_LOG_INFO,
			 "%u I/O poll group thread(s), pinned to the CPUs of NUMA node %d",
			 tgt->npgs - 1, node);
	else
		nvmf_log(tgt, NVMF_LOG_INFO,
			 "%u I/O poll group thread(s), not pinned (NUMA node unknown)",
			 tgt->npgs - 1);
	tgt->started = true;
	return 0;
}

/* ---- shutdown ---- */

/* On @arg's own thread (a message, or the caller's group): every queue it serves. */
static void disconnect_all(void *arg)
{
	struct nvmf_pg *pg = arg;
	for (struct nvmf_sq *sq = pg->sqs; sq; sq = sq->pg_next)
		sq->transport->ops->disconnect_queue(sq);
}

/* On @arg's own thread: its queues start no new command from now on. */
static void quiesce_all(void *arg)
{
	struct nvmf_pg *pg = arg;
	for (struct nvmf_sq *sq = pg->sqs; sq; sq = sq->pg_next)
		sq->quiescing = true;
}

/* A queue with a started command not answered yet, or an answer not yet on the wire.
 * Parked AERs do not count: they are answered only by an event (the host aborts them
 * when it reconnects). */
static bool sq_busy(const struct nvmf_sq *sq)
{
	if (sq->state != NVMF_SQ_LIVE)
		return false;
	uint32_t parked = sq->ctrl && sq->qid == 0 && sq->ctrl->sqs && sq->ctrl->sqs[0] == sq ?
				  sq->ctrl->nr_aer :
				  0;
	if (sq->inflight > parked)
		return true;
	return sq->transport->ops->queue_busy && sq->transport->ops->queue_busy(sq);
}

/* One round of "how many of your queues are busy?" to every group. */
struct busy_round {
	unsigned pending; /* groups yet to answer (atomic) */
	unsigned busy;    /* queues found busy (atomic) */
};

struct busy_ask {
	struct nvmf_pg *pg;
	struct busy_round *round;
};

static void count_busy(void *arg)
{
	struct busy_ask *a = arg;
	unsigned n = 0;
	for (struct nvmf_sq *sq = a->pg->sqs; sq; sq = sq->pg_next)
		n += sq_busy(sq);
	__atomic_add_fetch(&a->round->busy, n, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&a->round->pending, 1, __ATOMIC_RELEASE);
}

/* Run the groups the caller drives (all but those with a thread of their own) once;
 * the main group waits up to a millisecond for work. -1 when it failed. */
static int drive_groups(struct nvmf_tgt *tgt)
{
	for (unsigned i = 1; i < tgt->npgs; i++)
		if (!nvmf_pg_started(tgt->pgs[i]))
			nvmf_pg_poll(tgt->pgs[i]);
	if (nvmf_pg_started(tgt->pgs[0])) {
		usleep(1000);
		return 0;
	}
	return nvmf_pg_run_once(tgt->pgs[0], 1) < 0 ? -1 : 0;
}

/*
 * Shutdown's first step: no queue starts a command any more; wait until every command
 * started was answered and every answer (with its read data) is on the wire, at most
 * until @deadline_ms (nvmf_mono_ms clock). Returns the queues still busy at the end.
 */
static unsigned quiesce(struct nvmf_tgt *tgt, uint64_t deadline_ms)
{
	__atomic_store_n(&tgt->stopping, true, __ATOMIC_RELEASE);
	unsigned n = tgt->npgs; /* the groups stay as they are until nvmf_tgt_fini */
	if (!n)
		return 0; /* no group, no queue (nvmf_tgt_shutdown returns before) */
	for (unsigned i = 0; i < n; i++)
		if (nvmf_pg_send(tgt->pgs[i], quiesce_all, tgt->pgs[i]))
			nvmf_log(tgt, NVMF_LOG_ERROR, "shutdown: out of memory for poll group %u",
				 i);
	struct busy_ask *asks = calloc(n, sizeof(*asks));
	struct busy_round round = { 0 };
	/* Until a round answers, every queue counts as busy; none at all (a start that
	 * failed before any host came) is nothing to wait for or report. */
	unsigned busy = nvmf_tgt_live_queues(tgt);
	bool asked = false;
	uint64_t asked_ms = 0;
	while (asks && busy) {
		if (asked && !__atomic_load_n(&round.pending, __ATOMIC_ACQUIRE)) {
			busy = __atomic_load_n(&round.busy, __ATOMIC_RELAXED);
			asked = false;
			if (!busy)
				break;
		}
		uint64_t now = nvmf_mono_ms();
		if (now >= deadline_ms)
			break;
		if (!asked && now != asked_ms) { /* a round per millisecond at most */
			asked_ms = now;
			round.busy = 0;
			round.pending = n;
			for (unsigned i = 0; i < n; i++) {
				asks[i] = (struct busy_ask){ tgt->pgs[i], &round };
				if (nvmf_pg_send(tgt->pgs[i], count_busy, &asks[i]))
					__atomic_sub_fetch(&round.pending, 1, __ATOMIC_RELEASE);
			}
			asked = true;
		}
		if (drive_groups(tgt) < 0)
			break;
	}
	/* A round still out refers to @round and @asks: let it finish (messages are never
	 * dropped; a group that stopped answering is stuck anyway). */
	while (asked && __atomic_load_n(&round.pending, __ATOMIC_ACQUIRE))
		if (drive_groups(tgt) < 0)
			break;
	free(asks);
	return busy;
}

static void log_group(const struct nvmf_pg *pg)
{
	nvmf_log(pg->tgt, NVMF_LOG_INFO,
		 "poll group %u%s: %llu passes (%llu with work, %llu sleeps), %llu messages",
		 pg->index, pg->index ? "" : " (main)", (unsigned long long)pg->passes,
		 (unsigned long long)pg->busy_passes, (unsigned long long)pg->sleeps,
		 (unsigned long long)pg->msgs);
}

/* Run the messages still queued on the groups this thread drives (all, once stopped):
 * a change's message round or a queue hand-over would otherwise be lost with its memory. */
static void flush_messages(struct nvmf_tgt *tgt)
{
	for (int round = 0; round < 64; round++) {
		bool pending = false;
		for (unsigned i = 0; i < tgt->npgs; i++) {
			struct nvmf_pg *pg = tgt->pgs[i];
			if (!nvmf_pg_started(pg) &&
			    __atomic_load_n(&pg->msg_head, __ATOMIC_ACQUIRE)) {
				pending = true;
				nvmf_pg_poll(pg);
			}
		}
		if (!pending)
			return;
	}
}

static bool groups_idle(const struct nvmf_tgt *tgt)
{
	for (unsigned i = 0; i < tgt->npgs; i++) {
		/* Backend I/O still out (a librbd op completes into memory of this group):
		 * not idle, whatever the transports say. */
		if (tgt->pgs[i]->io.aio && nvmf_aio_busy(tgt->pgs[i]->io.aio))
			return false;
		for (unsigned k = 0; k < tgt->pgs[i]->ntpg; k++) {
			struct nvmf_tpg *tpg = tgt->pgs[i]->tpg[k];
			if (tpg && tpg->transport->ops->pg_idle &&
			    !tpg->transport->ops->pg_idle(tpg))
				return false;
		}
	}
	return true;
}

void nvmf_tgt_shutdown(struct nvmf_tgt *tgt, int timeout_ms)
{
	if (!tgt->npgs) {
		free(tgt->pgs); /* make_groups may have failed at its first group */
		tgt->pgs = NULL;
		return;
	}
	/* Stopping before the ports go: the transports then refuse new connections. */
	__atomic_store_n(&tgt->stopping, true, __ATOMIC_RELEASE);
	for (size_t i = 0; i < tgt->n_ports; i++)
		if (tgt->ports[i]->transport)
			tgt->ports[i]->transport->ops->stop_listen(tgt->ports[i]->transport,
								   tgt->ports[i]);
	flush_messages(tgt);
	/* Half of the time for the answers in flight, the rest for the disconnects. */
	uint64_t start_ms = nvmf_mono_ms();
	uint64_t bound = (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	unsigned busy = quiesce(tgt, start_ms + bound / 2);
	if (busy)
		nvmf_log(tgt, NVMF_LOG_WARNING,
			 "shutdown: %u queue(s) still had commands in flight after %llu ms; "
			 "disconnecting them",
			 busy, (unsigned long long)(bound / 2));
	/* Each group disconnects its own queues: by message when it runs on a thread of its
	 * own (the main group too, if the embedding program started it), at once when the
	 * caller's thread runs it. */
	for (unsigned i = 0; i < tgt->npgs; i++) {
		struct nvmf_pg *pg = tgt->pgs[i];
		if (!nvmf_pg_started(pg))
			disconnect_all(pg);
		else if (nvmf_pg_send(pg, disconnect_all, pg))
			nvmf_log(tgt, NVMF_LOG_ERROR, "shutdown: out of memory for poll group %u",
				 i);
	}
	uint64_t deadline = start_ms + bound;
	while (nvmf_tgt_live_queues(tgt) && nvmf_mono_ms() < deadline)
		if (drive_groups(tgt) < 0)
			break;
	/* Every group is this thread's from now on: let the transports' released queues
	 * flush, then take everything down. */
	for (unsigned i = 0; i < tgt->npgs; i++)
		nvmf_pg_stop(tgt->pgs[i]);
	flush_messages(tgt);
	while (!groups_idle(tgt) && nvmf_mono_ms() < deadline)
		for (unsigned i = 0; i < tgt->npgs; i++)
			nvmf_pg_poll(tgt->pgs[i]);
	nvmf_pg_timer_stop(tgt->pgs[0], &tgt->kato_timer);
	if (tgt->drain_timer_on)
		nvmf_pg_timer_stop(tgt->pgs[0], &tgt->drain_timer);
	tgt->drain_timer_on = false;
	if (tgt->watch_timer_on)
		nvmf_pg_timer_stop(tgt->pgs[0], &tgt->watch_timer);
	tgt->watch_timer_on = false;
	unsigned left = nvmf_tgt_live_queues(tgt);
	if (left || !groups_idle(tgt)) {
		/* Something is still in a backend or on the wire: leak rather than free memory
		 * an I/O will still complete into. */
		nvmf_log(tgt, NVMF_LOG_WARNING,
			 "shutdown: %u queue(s) still busy after %d ms, left allocated", left,
			 timeout_ms);
		return;
	}
	for (unsigned i = 0; i < tgt->npgs; i++) {
		struct nvmf_pg *pg = tgt->pgs[i];
		if (pg->passes && tgt->started) /* a start that failed has nothing to report */
			log_group(pg);
		for (unsigned k = 0; k < pg->ntpg; k++)
			if (pg->tpg[k])
				pg->tpg[k]->transport->ops->pg_destroy(pg->tpg[k]);
		nvmf_pg_fini(pg);
		free(pg);
	}
	free(tgt->pgs);
	tgt->pgs = NULL;
	tgt->npgs = 0;
	for (unsigned i = 0; i < tgt->ntransports; i++)
		tgt->transports[i]->ops->destroy(tgt->transports[i]);
	tgt->ntransports = 0;
	for (size_t i = 0; i < tgt->n_ports; i++)
		tgt->ports[i]->transport = NULL;
}

void nvmf_tgt_fini(struct nvmf_tgt *tgt)
{
	/* Groups left by a shutdown that timed out still point into the model. */
	if (tgt->npgs)
		return;
	nvmf_tgt_ns_fini(tgt);
	for (size_t i = 0; i < tgt->n_subsys; i++)
		nvmf_subsys_free(tgt->subsys[i]);
	free(tgt->subsys);
	for (size_t i = 0; i < tgt->n_ports; i++)
		nvmf_port_free(tgt->ports[i]);
	free(tgt->ports);
	for (size_t i = 0; i < tgt->n_retired_ports; i++)
		nvmf_port_free(tgt->retired_ports[i]);
	free(tgt->retired_ports);
	for (size_t i = 0; i < tgt->n_retired_subsys; i++)
		nvmf_subsys_free(tgt->retired_subsys[i]);
	free(tgt->retired_subsys);
	tgt->retired_ports = NULL;
	tgt->retired_subsys = NULL;
	tgt->n_retired_ports = tgt->n_retired_subsys = 0;
	nvmf_subsys_free(tgt->disc);
	nvmf_tgt_host_auth_free(tgt);
	nvmf_tgt_resv_close(tgt);
	tgt->subsys = NULL;
	tgt->ports = NULL;
	tgt->disc = NULL;
	tgt->n_subsys = tgt->n_ports = 0;
}

struct nvmf_subsys *nvmf_tgt_find_subsys(struct nvmf_tgt *tgt, const char *nqn)
{
	if (tgt->disc && !strcmp(tgt->disc->cfg->nqn, nqn))
		return tgt->disc;
	for (size_t i = 0; i < tgt->n_subsys; i++)
		if (!strcmp(tgt->subsys[i]->cfg->nqn, nqn))
			return tgt->subsys[i];
	return NULL;
}
