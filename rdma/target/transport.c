/* SPDX-License-Identifier: MIT */
/*
 * The RDMA target transport object: its devices and their registered pools, the rdma_cm
 * listeners (one per port: IPv4, IPv6 or wildcard, RDMA_PS_TCP, RC QPs) and the CM event
 * handling. A CONNECT_REQUEST is validated (nvme/rdma-cm.c against the port's limits),
 * then handed to the core, which places the queue on a poll group; there the queue is
 * created with every RECV posted and accepted with the NVMe/RDMA CM REP, or rejected
 * with the NVMe/RDMA CM REJ status. Also the ops table the core sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "rdma/target/internal.h"
#include "util/addr.h"

#define LISTEN_BACKLOG 128

/* ---- the transport and its devices ---- */

void nvmf_rdma_transport_setup(struct nvmf_rdma_transport *t,
			       const struct nvmf_transport_opts *opts,
			       const struct nvmf_rdma_verbs *verbs)
{
	t->verbs = verbs;
	t->clock = opts->clock;
	pthread_mutex_init(&t->pgd_lock, NULL);
	t->base.opts = *opts;
	t->max_xfer = opts->max_xfer;
	t->use_srq = opts->srq;
	t->srq_depth = opts->srq_depth;
	t->post_thread = opts->post_thread;
	t->post_bytes = NVMF_RDMA_POST_THREAD_BYTES;
	/* The process's CPUs, read here on the main thread: an I/O group pins itself to one
	 * CPU and a thread it starts would inherit that, sharing the core it is meant to
	 * free. */
	t->post_cpus_set = !sched_getaffinity(0, sizeof(t->post_cpus), &t->post_cpus);
	/* SRQ receives are shared by every port's queues: size them for the largest. With
	 * no rdma port yet, for the default, which ports added live then get. */
	t->inline_max = opts->nports ? opts->max_port_inline : NVMF_DEFAULT_INLINE;
	t->base.live_max_inline = t->inline_max;
}

static struct nvmf_transport *
rdma_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts, char *err, size_t errlen)
{
	struct nvmf_rdma_transport *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "rdma transport: out of memory");
		return NULL;
	}
	nvmf_rdma_transport_setup(t, opts, &nvmf_rdma_verbs_real);
	t->base.tgt = tgt; /* the core sets it too, after create: needed now */
	t->ec = rdma_create_event_channel();
	if (!t->ec) {
		snprintf(err, errlen,
			 "rdma_create_event_channel: %s (no RDMA device, or rdma_ucm not loaded?)",
			 strerror(errno));
		free(t);
		return NULL;
	}
	int fl = fcntl(t->ec->fd, F_GETFL);
	int rc = fl < 0 || fcntl(t->ec->fd, F_SETFL, fl | O_NONBLOCK) ?
			 -errno :
			 nvmf_pg_add_wait_fd(nvmf_transport_main_pg(&t->base), t->ec->fd);
	if (rc) {
		snprintf(err, errlen, "rdma transport: event channel: %s", strerror(-rc));
		rdma_destroy_event_channel(t->ec);
		free(t);
		return NULL;
	}
	return &t->base;
}

void nvmf_rdma_device_free(struct nvmf_rdma_device *d)
{
	nvmf_rdma_pool_fini(&d->pool);
	nvmf_rdma_dev_put(d->dev);
	free(d);
}

static void rdma_destroy(struct nvmf_transport *base)
{
	struct nvmf_rdma_transport *t = (struct nvmf_rdma_transport *)base;
	struct nvmf_rdma_device *d;
	while ((d = t->devices)) {
		t->devices = d->next;
		nvmf_rdma_device_free(d);
	}
	if (t->ec)
		rdma_destroy_event_channel(t->ec);
	pthread_mutex_destroy(&t->pgd_lock);
	free(t);
}

int nvmf_rdma_device_setup(struct nvmf_rdma_transport *t, struct nvmf_rdma_device *d,
			   struct nvmf_rdma_dev *dev, char *err, size_t errlen)
{
	const struct nvmf_transport_opts *o = &t->base.opts;
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	/* The main group reads the context's asynchronous events between its other work. */
	int fl = fcntl(dev->verbs->async_fd, F_GETFL);
	if (fl < 0 || fcntl(dev->verbs->async_fd, F_SETFL, fl | O_NONBLOCK)) {
		snprintf(err, errlen, "%s: asynchronous event descriptor: %s", dev->name,
			 strerror(errno));
		return -1;
	}
	/* SPDK's finding: rxe (soft RoCE, vendor 0 or 0xffffff) and iWARP devices never raise
	 * LAST_WQE_REACHED; their dying queues do not wait for it. */
	uint32_t vendor = dev->attr.vendor_id;
	bool iwarp = dev->verbs->device &&
		     dev->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	d->last_wqe_event = vendor != 0 && vendor != 0xffffff && !iwarp;
	/* The vendor IDs the kernel's software devices report: rxe 0xffffff, siw "bmt". */
	d->soft = vendor == 0xffffff || vendor == 0x626d74;
	char perr[200];
	if (nvmf_rdma_pool_init(&d->pool, t->verbs, dev->pd, dev->numa_node, t->max_xfer,
				o->buffers_small, o->buffers_large, o->hugepages, perr,
				sizeof(perr))) {
		snprintf(err, errlen, "%s: %s", dev->name, perr);
		return -1;
	}
	NVMF_RDMA_LOG(t, NVMF_LOG_INFO,
		      "device %s: %zu MiB of data buffers registered (%s pages, NUMA node %d), "
		      "remote invalidate %s, SRQ %s%s",
		      dev->name, d->pool.len >> 20, d->pool.huge ? "huge" : "normal",
		      dev->numa_node, dev->send_with_inv ? "on" : "off",
		      !t->use_srq           ? "off (config)" :
		      dev->attr.max_srq > 0 ? "on" :
					      "not supported",
		      t->use_srq && dev->attr.max_srq > 0 && !d->last_wqe_event ?
			      " (the device raises no LAST_WQE_REACHED: not waited for)" :
			      "");
	bool poster = t->post_thread > 0 || (t->post_thread < 0 && d->soft);
	NVMF_RDMA_LOG(t, NVMF_LOG_INFO,
		      "device %s: %s device, large sends of I/O queues posted %s (post_thread %s)",
		      dev->name, d->soft ? "software" : "hardware",
		      poster ? "by a thread of each poll group" : "by the poll loop",
		      t->post_thread < 0 ? "auto" :
		      t->post_thread     ? "on" :
					   "off");
	return 0;
}

/* The device context of @verbs with its pool, made on first use (main group only). */
static struct nvmf_rdma_device *device_get(struct nvmf_rdma_transport *t, struct ibv_context *verbs,
					   char *err, size_t errlen)
{
	struct nvmf_rdma_device *d;
	for (d = t->devices; d; d = d->next)
		if (d->dev->verbs == verbs)
			return d;
	struct nvmf_rdma_dev *dev = nvmf_rdma_dev_get(verbs, err, errlen);
	if (!dev)
		return NULL;
	d = malloc(sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "%s: out of memory", dev->name);
		nvmf_rdma_dev_put(dev);
		return NULL;
	}
	if (nvmf_rdma_device_setup(t, d, dev, err, errlen)) {
		nvmf_rdma_dev_put(dev);
		free(d);
		return NULL;
	}
	int rc = nvmf_pg_add_wait_fd(nvmf_transport_main_pg(&t->base), dev->verbs->async_fd);
	if (rc) {
		snprintf(err, errlen, "%s: asynchronous events: %s", dev->name, strerror(-rc));
		nvmf_rdma_device_free(d);
		return NULL;
	}
	d->next = t->devices;
	t->devices = d;
	return d;
}

static int rdma_numa_node(struct nvmf_transport *base)
{
	struct nvmf_rdma_transport *t = (struct nvmf_rdma_transport *)base;
	if (t->devices)
		return t->devices->dev->numa_node;
	/* Nothing bound yet (wildcard listeners): the first device of the machine. */
	int n = 0, node = -1;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list)
		return -1;
	if (n > 0)
		node = nvmf_rdma_device_numa_node(list[0]);
	ibv_free_device_list(list);
	return node;
}

/* ---- listeners ---- */

static int tr_listen(struct nvmf_transport *base, struct nvmf_port *port, char *err, size_t errlen)
{
	struct nvmf_rdma_transport *t = (struct nvmf_rdma_transport *)base;
	struct nvmf_port_attrs pa;
	nvmf_port_attrs(port, &pa);
	const char *svc = pa.trsvcid[0] ? pa.trsvcid : "4420";
	int family = pa.adrfam == AF_INET6 ? AF_INET6 : AF_INET;
	const char *host = pa.traddr[0] ? pa.traddr : (family == AF_INET6 ? "::" : "0.0.0.0");
	struct addrinfo hints = { .ai_family = family,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	int rc = getaddrinfo(host, svc, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "address %s:%s: %s", host, svc, gai_strerror(rc));
		return -1;
	}
	struct nvmf_rdma_listener *l = calloc(1, sizeof(*l));
	if (!l) {
		freeaddrinfo(ai);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	l->port = port;
	const char *what = "rdma_create_id";
	if (rdma_create_id(t->ec, &l->id, l, RDMA_PS_TCP))
		goto fail;
	if (family == AF_INET6) {
		/* "::" must not take the IPv4 port too: a 0.0.0.0 port may exist beside it. */
		int afonly = 1;
		rdma_set_option(l->id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &afonly,
				sizeof(afonly));
	}
	what = "rdma_bind_addr";
	if (rdma_bind_addr(l->id, ai->ai_addr))
		goto fail;
	what = "rdma_listen";
	if (rdma_listen(l->id, LISTEN_BACKLOG))
		goto fail;
	freeaddrinfo(ai);
	/* Bound to one device: register its buffers now rather than on the first connect. */
	if (l->id->verbs) {
		char derr[256];
		if (!device_get(t, l->id->verbs, derr, sizeof(derr)))
			NVMF_RDMA_LOG(t, NVMF_LOG_WARNING,
				      "port %u: %s (retried at the first connect)", pa.portid,
				      derr);
	}
	nvmf_port_set_priv(port, l);
	l->next = t->listeners;
	t->listeners = l;
	return 0; /* the daemon (or the control call) says "listening on", once per port */
fail:
	snprintf(err, errlen, "%s %s%s%s:%s: %s", what, family == AF_INET6 ? "[" : "", host,
		 family == AF_INET6 ? "]" : "", svc, strerror(errno));
	freeaddrinfo(ai);
	if (l->id)
		rdma_destroy_id(l->id);
	free(l);
	return -1;
}

static void tr_stop_listen(struct nvmf_transport *base, struct nvmf_port *port)
{
	struct nvmf_rdma_transport *t = (struct nvmf_rdma_transport *)base;
	/* Only a stopping target takes no new queue at all; a port removed live leaves the
	 * other ports (and the same port added back) accepting. */
	if (nvmf_transport_stopping(base))
		__atomic_store_n(&t->shutting_down, true, __ATOMIC_RELAXED);
	for (struct nvmf_rdma_listener **pp = &t->listeners; *pp; pp = &(*pp)->next) {
		struct nvmf_rdma_listener *l = *pp;
		if (l->port != port)
			continue;
		*pp = l->next;
		nvmf_port_set_priv(port, NULL);
		rdma_destroy_id(l->id);
		free(l);
		return;
	}
}

/* ---- connections ---- */

static void reject(struct nvmf_rdma_transport *t, struct rdma_cm_id *id, int sts)
{
	struct nvme_rdma_cm_rej rej;
	nvme_rdma_cm_build_rej(&rej, sts);
	t->verbs->reject(id, &rej, sizeof(rej));
}

int nvmf_rdma_pg_add_queue_op(struct nvmf_tpg *tpg, void *conn)
{
	struct nvmf_rdma_poll_group *pg = (struct nvmf_rdma_poll_group *)tpg;
	struct nvmf_rdma_conn_req *cr = conn;
	const struct nvmf_rdma_verbs *v = pg->t->verbs;
	struct rdma_cm_id *id = cr->id;
	char err[256] = "";
	int rc = -1;
	if (__atomic_load_n(&pg->t->shutting_down, __ATOMIC_RELAXED)) {
		snprintf(err, sizeof(err), "shutting down");
		goto reject;
	}
	/* From now on this group's channel gets the cm_id's events (none is pending: the
	 * CONNECT_REQUEST was acked before the hand-over). */
	if (id->channel != pg->ec && v->migrate_id(id, pg->ec)) {
		snprintf(err, sizeof(err), "rdma_migrate_id: %s", strerror(errno));
		goto reject;
	}
	struct nvmf_rdma_queue *q = nvmf_rdma_queue_create(pg, cr->dev, cr->port, id, &cr->conn,
							   cr->ord, err, sizeof(err));
	if (!q)
		goto reject;
	snprintf(q->sq.peer, sizeof(q->sq.peer), "%s", cr->peer);
	struct nvme_rdma_cm_rep rep;
	nvme_rdma_cm_build_rep(&rep, (uint16_t)q->recv_depth);
	struct rdma_conn_param p;
	memset(&p, 0, sizeof(p));
	p.private_data = &rep;
	p.private_data_len = sizeof(rep);
	/* Our RDMA READ depth; the host reads nothing of ours (NVMe/RDMA binding): no
	 * responder resources for it, as nvmet and SPDK. */
	p.initiator_depth = (uint8_t)(cr->ord > 255 ? 255 : cr->ord);
	p.responder_resources = 0;
	p.rnr_retry_count = 7;
	p.retry_count = 7;
	p.flow_control = 1;
	NVMF_PROBE_CONN_ACCEPT("rdma", q, cr->peer);
	if (v->accept(id, &p)) {
		NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "rdma_accept from %s: %s", cr->peer,
			      strerror(errno));
		nvmf_rdma_queue_disconnect(q, NULL); /* reaped (and its cm_id destroyed) later */
	}
	free(cr);
	return 0;
reject:
	NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "rejecting connect from %s (queue %u): %s", cr->peer,
		      cr->conn.qid, err);
	reject(pg->t, id, NVME_RDMA_CM_NO_RSC);
	v->destroy_id(id);
	free(cr);
	return rc;
}

/* The port's limits for a connecting host (resolved by the core: nvmf_port_resolve). */
static void port_limits(const struct nvmf_port *port, struct nvme_rdma_cm_limits *lim)
{
	struct nvmf_port_attrs pa;
	nvmf_port_attrs(port, &pa);
	lim->admin_queue_size = pa.admin_queue_size;
	lim->io_queue_size = pa.queue_size;
	lim->max_qid = pa.max_qid;
}

/* CONNECT_REQUEST on @port: validated here, handed to the core after the event is acked
 * (*handoff). Returns the cm_id to destroy after the ack, if rejected. */
static struct rdma_cm_id *on_connect_request(struct nvmf_rdma_transport *t, struct nvmf_port *port,
					     struct rdma_cm_event *ev,
					     struct nvmf_rdma_conn_req **handoff)
{
	struct rdma_cm_id *id = ev->id;
	struct nvmf_rdma_conn_req cr;
	char err[256];
	memset(&cr, 0, sizeof(cr));
	cr.id = id;
	cr.port = port;
	nvmf_sockaddr_str(rdma_get_peer_addr(id), cr.peer, sizeof(cr.peer));

	struct nvme_rdma_cm_limits lim;
	port_limits(port, &lim);
	int sts = nvme_rdma_cm_parse_req(ev->param.conn.private_data,
					 ev->param.conn.private_data_len, &lim, &cr.conn);
	if (sts) {
		NVMF_RDMA_LOG(t, NVMF_LOG_WARNING, "rejecting connect from %s: %s", cr.peer,
			      nvme_rdma_cm_status_str(sts));
		reject(t, id, sts);
		return id;
	}
	if (__atomic_load_n(&t->shutting_down, __ATOMIC_RELAXED)) {
		reject(t, id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	struct nvmf_rdma_device *dev = device_get(t, id->verbs, err, sizeof(err));
	if (!dev) {
		NVMF_RDMA_LOG(t, NVMF_LOG_WARNING, "rejecting connect from %s (queue %u): %s",
			      cr.peer, cr.conn.qid, err);
		reject(t, id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	cr.dev = dev;
	/* The CM swaps the fields: initiator_depth here is the host's responder resources,
	 * the most RDMA READs we may have outstanding against it; clamped to the device's,
	 * refused only when the host serves none (nvme/rdma-cm.c). What the host asked for
	 * itself (responder_resources here) is never granted: see rdma_accept below. */
	int max_ord = dev->dev->attr.max_qp_init_rd_atom;
	sts = nvme_rdma_cm_read_depth(ev->param.conn.initiator_depth,
				      max_ord > 0 ? (uint32_t)max_ord : 0, &cr.ord);
	if (sts) {
		NVMF_RDMA_LOG(
			t, NVMF_LOG_WARNING,
			"rejecting connect from %s (queue %u): %s (the host serves %u RDMA READs, "
			"%s issues %d)",
			cr.peer, cr.conn.qid, nvme_rdma_cm_status_str(sts),
			ev->param.conn.initiator_depth, dev->dev->name, max_ord);
		reject(t, id, sts);
		return id;
	}
	/* Until its group creates the queue, an event of this cm_id has no queue. */
	id->context = NULL;
	*handoff = malloc(sizeof(cr));
	if (!*handoff) {
		reject(t, id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	**handoff = cr;
	return NULL;
}

static bool is_listener(struct nvmf_rdma_transport *t, struct rdma_cm_id *id)
{
	for (struct nvmf_rdma_listener *l = t->listeners; l; l = l->next)
		if (l->id == id)
			return true;
	return false;
}

int nvmf_rdma_process_cm_events(struct nvmf_rdma_poll_group *pg)
{
	struct nvmf_rdma_transport *t = pg->t;
	struct rdma_cm_event *ev;
	int n = 0;
	const struct nvmf_rdma_verbs *v = t->verbs;
	while (v->get_cm_event(pg->ec, &ev) == 0) {
		struct rdma_cm_id *destroy = NULL;
		struct nvmf_rdma_conn_req *handoff = NULL;
		n++;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			struct nvmf_rdma_listener *l = ev->listen_id->context;
			destroy = on_connect_request(t, l->port, ev, &handoff);
		} else if (pg->ec == t->ec && is_listener(t, ev->id)) {
			NVMF_RDMA_LOG(pg->t, NVMF_LOG_WARNING, "listener event: %s",
				      rdma_event_str(ev->event));
		} else {
			struct nvmf_rdma_queue *q = ev->id->context;
			switch (ev->event) {
			case RDMA_CM_EVENT_ESTABLISHED:
				if (q && q->state == NVMF_RDMA_Q_CONNECTING) {
					q->state = NVMF_RDMA_Q_LIVE;
					NVMF_PROBE_QUEUE_CONNECT("rdma", q, q->qid);
				}
				break;
			case RDMA_CM_EVENT_DISCONNECTED:
			case RDMA_CM_EVENT_TIMEWAIT_EXIT:
				if (q)
					nvmf_rdma_queue_disconnect(q, NULL);
				break;
			case RDMA_CM_EVENT_CONNECT_ERROR:
			case RDMA_CM_EVENT_UNREACHABLE:
			case RDMA_CM_EVENT_REJECTED:
			case RDMA_CM_EVENT_DEVICE_REMOVAL:
				if (q)
					nvmf_rdma_queue_disconnect(q, rdma_event_str(ev->event));
				break;
			default:
				break;
			}
		}
		v->ack_cm_event(ev);
		if (destroy)
			v->destroy_id(destroy);
		if (handoff &&
		    nvmf_tgt_new_queue(&t->base, pg->base.pg, handoff->conn.qid, handoff)) {
			NVMF_RDMA_LOG(pg->t, NVMF_LOG_ERROR,
				      "rejecting connect from %s (queue %u): out of memory",
				      handoff->peer, handoff->conn.qid);
			reject(t, handoff->id, NVME_RDMA_CM_NO_RSC);
			v->destroy_id(handoff->id);
			free(handoff);
		}
	}
	return n;
}

/* ---- the core's queue ops ---- */

static void rdma_disconnect_queue(struct nvmf_sq *sq)
{
	struct nvmf_rdma_queue *q = sq->transport_priv;
	bool quiet = __atomic_load_n(&q->t->shutting_down, __ATOMIC_RELAXED);
	nvmf_rdma_queue_disconnect(q, quiet ? NULL : "controller deleted");
}

/* Answers chained but not posted, waiting for a send slot, or posted and not completed
 * (an unsignaled SEND retires with the signaled one after it). */
static bool rdma_queue_busy(const struct nvmf_sq *sq)
{
	const struct nvmf_rdma_queue *q = sq->transport_priv;
	return q->dirty || q->sends_inflight || !TAILQ_EMPTY(&q->pending_sends);
}

static void rdma_queue_released(struct nvmf_sq *sq)
{
	struct nvmf_rdma_queue *q = sq->transport_priv;
	q->released = true; /* freed by the reaper once its WRs have flushed */
}

/* ops->local_addr: the address the queue's rdma_cm id is bound to (the host's connect
 * arrived there). */
static int rdma_local_addr(const struct nvmf_sq *sq, struct sockaddr_storage *out)
{
	const struct nvmf_rdma_queue *q = sq->transport_priv;
	const struct sockaddr *local = q && q->id ? rdma_get_local_addr(q->id) : NULL;
	if (!local || (local->sa_family != AF_INET && local->sa_family != AF_INET6))
		return -ENOTCONN;
	memset(out, 0, sizeof(*out));
	memcpy(out, local,
	       local->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
					     sizeof(struct sockaddr_in6));
	return 0;
}

const struct nvmf_transport_ops nvmf_rdma_transport_ops = {
	.name = "rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.msdbd = 1,
	.keyed_sgl = true,
	.max_queue_size = NVMF_RDMA_MAX_QUEUE_SIZE,
	.max_inline = NVMF_RDMA_MAX_INLINE,
	.max_xfer = NVMF_RDMA_MAX_XFER,
	.create = rdma_create,
	.destroy = rdma_destroy,
	.listen = tr_listen,
	.stop_listen = tr_stop_listen,
	.numa_node = rdma_numa_node,
	.pg_create = nvmf_rdma_pg_create_op,
	.pg_destroy = nvmf_rdma_pg_destroy_op,
	.pg_add_queue = nvmf_rdma_pg_add_queue_op,
	.pg_poll = nvmf_rdma_pg_poll_op,
	.pg_flush = nvmf_rdma_pg_flush_op,
	.pg_arm = nvmf_rdma_pg_arm_op,
	.pg_woken = nvmf_rdma_pg_woken_op,
	.pg_idle = nvmf_rdma_pg_idle_op,
	.pg_stats = nvmf_rdma_pg_stats_op,
	.queue_response = nvmf_rdma_queue_response,
	.queue_busy = rdma_queue_busy,
	.disconnect_queue = rdma_disconnect_queue,
	.queue_released = rdma_queue_released,
	.local_addr = rdma_local_addr,
};
