/* SPDX-License-Identifier: MIT */
/*
 * The transport object, its rdma_cm listeners (one per port: IPv4, IPv6 or wildcard,
 * RDMA_PS_TCP, RC QPs) and the CM event handling: a CONNECT_REQUEST is validated
 * (rdma/cm-private.c), given a queue with every RECV posted, and accepted with the
 * NVMe/RDMA CM REP; or rejected with the NVMe/RDMA CM REJ status.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <numa.h>
#include "rdma/internal.h"

#define LISTEN_BACKLOG 128

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int epoll_add(int epfd, int fd, void *ptr)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ptr };
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* "1.2.3.4:4420" / "[fd77::1]:4420" for messages. */
static void addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;
	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		snprintf(buf, len, "%s:%u", host, port);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
	} else {
		snprintf(buf, len, "?");
	}
}

struct nvmf_rdma_transport *nvmf_rdma_create(struct nvmf_tgt *tgt, char *err, size_t errlen)
{
	struct nvmf_rdma_transport *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "rdma transport: out of memory");
		return NULL;
	}
	t->tgt = tgt;
	t->epfd = -1;
	uint32_t mdts = tgt->cfg && tgt->cfg->target.mdts ? tgt->cfg->target.mdts : 8;
	if (mdts > 11)
		mdts = 11;  /* 8 MiB: a keyed SGL length has 24 bits */
	t->max_xfer = 4096u << mdts;
	const struct nvmf_target_config *tc = tgt->cfg ? &tgt->cfg->target : NULL;
	t->use_srq = tc ? tc->srq : true;
	t->srq_depth = tc && tc->srq_depth ? tc->srq_depth : 4096;
	/* SRQ receives are shared by every port's queues: size them for the largest. */
	for (size_t i = 0; tgt->cfg && i < tgt->cfg->n_ports; i++) {
		uint32_t n = nvmf_rdma_port_inline_size(&tgt->cfg->ports[i]);
		if (n > t->inline_max)
			t->inline_max = n;
	}

	t->ec = rdma_create_event_channel();
	if (!t->ec) {
		snprintf(err, errlen, "rdma_create_event_channel: %s (no RDMA device, or rdma_ucm not loaded?)",
			 strerror(errno));
		goto fail;
	}
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0 || set_nonblock(t->ec->fd) || epoll_add(t->epfd, t->ec->fd, t)) {
		snprintf(err, errlen, "rdma transport: epoll setup: %s", strerror(errno));
		goto fail;
	}
	if (tgt->io.aio && epoll_add(t->epfd, tgt->io.aio->event_fd, tgt->io.aio)) {
		snprintf(err, errlen, "rdma transport: epoll add aio eventfd: %s", strerror(errno));
		goto fail;
	}
	if (nvmf_rdma_pg_init(&t->pg, t, t->epfd)) {
		snprintf(err, errlen, "rdma transport: out of memory");
		goto fail;
	}
	pthread_mutex_init(&t->core_lock, NULL);
	t->last_timer_ms = nvmf_rdma_now_us() / 1000;
	if (tc && tc->numa_node >= 0) {
		int max = numa_available() >= 0 ? numa_max_node() : 0;
		if (tc->numa_node > max) {
			snprintf(err, errlen, "nvmf_target.numa_node: node %d does not exist here (nodes 0-%d)",
				 tc->numa_node, max);
			goto fail;
		}
	}
	if (tc && tc->threads > 1) {
		int node = tc->numa_node >= 0 ? tc->numa_node : nvmf_rdma_first_device_node();
		if (nvmf_rdma_workers_start(t, tc->threads, node, err, errlen))
			goto fail;
	}
	return t;
fail:
	nvmf_rdma_pg_fini(&t->pg);
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->ec)
		rdma_destroy_event_channel(t->ec);
	free(t);
	return NULL;
}

/* The NUMA node of the device's PCI function, or -1 (soft devices, no NUMA). */
int nvmf_rdma_device_numa_node(const struct ibv_device *device)
{
	char path[IBV_SYSFS_PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/device/numa_node", device->ibdev_path);
	FILE *f = fopen(path, "r");
	int node = -1;
	if (f) {
		if (fscanf(f, "%d", &node) != 1)
			node = -1;
		fclose(f);
	}
	return node;
}

struct nvmf_rdma_device *nvmf_rdma_device_get(struct nvmf_rdma_transport *t,
					      struct ibv_context *verbs, char *err, size_t errlen)
{
	struct nvmf_rdma_device *dev;
	for (dev = t->devices; dev; dev = dev->next)
		if (dev->verbs == verbs)
			return dev;
	if (!verbs) {
		snprintf(err, errlen, "no RDMA device behind the connection");
		return NULL;
	}
	const char *name = ibv_get_device_name(verbs->device);
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	dev->t = t;
	dev->verbs = verbs;
	if (ibv_query_device(verbs, &dev->attr)) {
		snprintf(err, errlen, "%s: ibv_query_device: %s", name, strerror(errno));
		goto fail;
	}
	dev->send_with_inv = dev->attr.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS;
	dev->pd = ibv_alloc_pd(verbs);
	if (!dev->pd) {
		snprintf(err, errlen, "%s: ibv_alloc_pd: %s", name, strerror(errno));
		goto fail;
	}
	dev->numa_node = nvmf_rdma_device_numa_node(verbs->device);
	const struct nvmf_target_config *tc = t->tgt->cfg ? &t->tgt->cfg->target : NULL;
	char perr[200];
	if (nvmf_rdma_pool_init(&dev->pool, dev->pd, dev->numa_node, t->max_xfer,
				tc ? tc->buffers_small : 0, tc ? tc->buffers_large : 0,
				tc ? tc->hugepages : true, perr, sizeof(perr))) {
		snprintf(err, errlen, "%s: %s", name, perr);
		goto fail;
	}
	NVMF_RDMA_LOG("device %s: %zu MiB of data buffers registered (%s pages, NUMA node %d), "
		      "remote invalidate %s, SRQ %s\n",
		      name, dev->pool.len >> 20, dev->pool.huge ? "huge" : "normal", dev->numa_node,
		      dev->send_with_inv ? "on" : "off",
		      !t->use_srq ? "off (config)" : dev->attr.max_srq > 0 ? "on" : "not supported");
	dev->next = t->devices;
	t->devices = dev;
	return dev;
fail:
	nvmf_rdma_device_free(dev);
	return NULL;
}

void nvmf_rdma_device_free(struct nvmf_rdma_device *dev)
{
	nvmf_rdma_pool_fini(&dev->pool);
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	free(dev);
}

int nvmf_rdma_listen(struct nvmf_rdma_transport *t, struct nvmf_port *port, char *err, size_t errlen)
{
	const struct nvmf_port_config *pc = port->cfg;
	const char *svc = pc->trsvcid[0] ? pc->trsvcid : "4420";
	int family = pc->adrfam == AF_INET6 ? AF_INET6 : AF_INET;
	const char *host = pc->traddr[0] ? pc->traddr : (family == AF_INET6 ? "::" : "0.0.0.0");
	struct addrinfo hints = { .ai_family = family, .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
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
		rdma_set_option(l->id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &afonly, sizeof(afonly));
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
		if (!nvmf_rdma_device_get(t, l->id->verbs, derr, sizeof(derr)))
			NVMF_RDMA_LOG("port %u: %s (retried at the first connect)\n", pc->portid, derr);
	}
	port->transport_priv = l;
	l->next = t->listeners;
	t->listeners = l;
	NVMF_RDMA_LOG("port %u: listening on %s%s%s:%s\n", pc->portid, family == AF_INET6 ? "[" : "",
		      host, family == AF_INET6 ? "]" : "", svc);
	return 0;
fail:
	snprintf(err, errlen, "%s %s%s%s:%s: %s", what, family == AF_INET6 ? "[" : "", host,
		 family == AF_INET6 ? "]" : "", svc, strerror(errno));
	freeaddrinfo(ai);
	if (l->id)
		rdma_destroy_id(l->id);
	free(l);
	return -1;
}

static void reject(struct rdma_cm_id *id, int sts)
{
	struct nvme_rdma_cm_rej rej;
	nvmf_rdma_cm_build_rej(&rej, sts);
	rdma_reject(id, &rej, sizeof(rej));
}

struct rdma_cm_id *nvmf_rdma_connect_queue(struct nvmf_rdma_poll_group *pg,
					   const struct nvmf_rdma_conn_req *cr)
{
	struct rdma_cm_id *id = cr->id;
	struct nvmf_rdma_device *dev = cr->dev;
	char err[256];
	struct nvmf_rdma_queue *q = nvmf_rdma_queue_create(pg, dev, cr->port, id, &cr->conn, cr->ord,
							   err, sizeof(err));
	if (!q) {
		NVMF_RDMA_LOG("rejecting connect from %s (queue %u): %s\n", cr->peer, cr->conn.qid, err);
		reject(id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	struct nvme_rdma_cm_rep rep;
	nvmf_rdma_cm_build_rep(&rep, (uint16_t)q->recv_depth);
	struct rdma_conn_param p;
	memset(&p, 0, sizeof(p));
	p.private_data = &rep;
	p.private_data_len = sizeof(rep);
	p.initiator_depth = (uint8_t)(cr->ord > 255 ? 255 : cr->ord);
	p.responder_resources = (uint8_t)(cr->ird > 255 ? 255 : cr->ird);
	p.rnr_retry_count = 7;
	p.retry_count = 7;
	p.flow_control = 1;
	if (rdma_accept(id, &p)) {
		NVMF_RDMA_LOG("rdma_accept from %s: %s\n", cr->peer, strerror(errno));
		nvmf_rdma_queue_disconnect(q, NULL);  /* reaped (and its cm_id destroyed) later */
	}
	return NULL;
}

/* CONNECT_REQUEST on @port: validated here; the queue is created and accepted on the
 * main poll group, or (I/O queues when there are worker threads) handed over in @handoff
 * to be migrated to the least loaded worker after the event is acked. Returns the cm_id
 * to destroy after the ack, if rejected. */
static struct rdma_cm_id *on_connect_request(struct nvmf_rdma_transport *t, struct nvmf_port *port,
					     struct rdma_cm_event *ev, struct nvmf_rdma_conn_req **handoff)
{
	struct rdma_cm_id *id = ev->id;
	struct nvmf_rdma_conn_req cr;
	char err[256];
	memset(&cr, 0, sizeof(cr));
	cr.id = id;
	cr.port = port;
	addr_str(rdma_get_peer_addr(id), cr.peer, sizeof(cr.peer));

	struct nvmf_rdma_cm_limits lim;
	nvmf_rdma_cm_port_limits(port, &lim);
	int sts = nvmf_rdma_cm_parse_req(ev->param.conn.private_data, ev->param.conn.private_data_len,
					 &lim, &cr.conn);
	if (sts) {
		NVMF_RDMA_LOG("rejecting connect from %s: %s\n", cr.peer, nvmf_rdma_cm_status_str(sts));
		reject(id, sts);
		return id;
	}
	if (t->shutting_down) {
		reject(id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	struct nvmf_rdma_device *dev = nvmf_rdma_device_get(t, id->verbs, err, sizeof(err));
	if (!dev) {
		NVMF_RDMA_LOG("rejecting connect from %s (queue %u): %s\n", cr.peer, cr.conn.qid, err);
		reject(id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	cr.dev = dev;
	/* The CM swaps the fields: initiator_depth here is the host's responder resources,
	 * the most RDMA READs we may have outstanding against it. */
	cr.ord = ev->param.conn.initiator_depth;
	if (cr.ord > (uint32_t)dev->attr.max_qp_init_rd_atom)
		cr.ord = (uint32_t)dev->attr.max_qp_init_rd_atom;
	cr.ird = ev->param.conn.responder_resources;
	if (cr.ird > (uint32_t)dev->attr.max_qp_rd_atom)
		cr.ird = (uint32_t)dev->attr.max_qp_rd_atom;
	if (t->nworkers && cr.conn.qid > 0) {
		/* Until the worker creates the queue, an event of this cm_id has no queue. */
		id->context = NULL;
		*handoff = malloc(sizeof(cr));
		if (!*handoff) {
			reject(id, NVME_RDMA_CM_NO_RSC);
			return id;
		}
		**handoff = cr;
		return NULL;
	}
	return nvmf_rdma_connect_queue(&t->pg, &cr);
}

static struct nvmf_rdma_listener *find_listener(struct nvmf_rdma_transport *t, struct rdma_cm_id *id)
{
	for (struct nvmf_rdma_listener *l = t->listeners; l; l = l->next)
		if (l->id == id)
			return l;
	return NULL;
}

int nvmf_rdma_process_cm_events(struct nvmf_rdma_transport *t, struct rdma_event_channel *ec)
{
	struct rdma_cm_event *ev;
	int n = 0;
	while (rdma_get_cm_event(ec, &ev) == 0) {
		struct rdma_cm_id *destroy = NULL;
		struct nvmf_rdma_conn_req *handoff = NULL;
		n++;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			struct nvmf_rdma_listener *l = ev->listen_id->context;
			destroy = on_connect_request(t, l->port, ev, &handoff);
		} else if (ec == t->ec && find_listener(t, ev->id)) {
			/* (Listeners live on the main channel only; workers never walk the list.) */
			NVMF_RDMA_LOG("listener event: %s\n", rdma_event_str(ev->event));
		} else {
			struct nvmf_rdma_queue *q = ev->id->context;
			switch (ev->event) {
			case RDMA_CM_EVENT_ESTABLISHED:
				if (q && q->state == NVMF_RDMA_Q_CONNECTING)
					q->state = NVMF_RDMA_Q_LIVE;
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
		rdma_ack_cm_event(ev);
		if (destroy)
			rdma_destroy_id(destroy);
		if (handoff)
			nvmf_rdma_worker_handoff(t, handoff);
	}
	return n;
}
