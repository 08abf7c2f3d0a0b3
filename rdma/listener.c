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
	if (tgt->aio && epoll_add(t->epfd, tgt->aio->event_fd, tgt->aio)) {
		snprintf(err, errlen, "rdma transport: epoll add aio eventfd: %s", strerror(errno));
		goto fail;
	}
	t->last_work_us = nvmf_rdma_now_us();
	t->last_timer_ms = t->last_work_us / 1000;
	return t;
fail:
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->ec)
		rdma_destroy_event_channel(t->ec);
	free(t);
	return NULL;
}

/* The NUMA node of the device's PCI function, or -1 (soft devices, no NUMA). */
static int device_numa_node(struct ibv_context *verbs)
{
	char path[IBV_SYSFS_PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/device/numa_node", verbs->device->ibdev_path);
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
	TAILQ_INIT(&dev->buf_waiters);
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
	dev->channel = ibv_create_comp_channel(verbs);
	if (!dev->channel || set_nonblock(dev->channel->fd) ||
	    epoll_add(t->epfd, dev->channel->fd, dev)) {
		snprintf(err, errlen, "%s: completion channel: %s", name, strerror(errno));
		goto fail;
	}
	const struct nvmf_target_config *tc = t->tgt->cfg ? &t->tgt->cfg->target : NULL;
	char perr[200];
	if (nvmf_rdma_pool_init(&dev->pool, dev->pd, device_numa_node(verbs), t->max_xfer,
				tc ? tc->buffers_small : 0, tc ? tc->buffers_large : 0,
				tc ? tc->hugepages : true, perr, sizeof(perr))) {
		snprintf(err, errlen, "%s: %s", name, perr);
		goto fail;
	}
	NVMF_RDMA_LOG("device %s: %zu MiB of data buffers registered (%s pages), remote invalidate %s\n",
		      name, dev->pool.len >> 20, dev->pool.huge ? "huge" : "normal",
		      dev->send_with_inv ? "on" : "off");
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
	if (dev->channel) {
		epoll_ctl(dev->t->epfd, EPOLL_CTL_DEL, dev->channel->fd, NULL);
		ibv_destroy_comp_channel(dev->channel);
	}
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

/* CONNECT_REQUEST on @port. Returns the cm_id to destroy after the ack, if rejected. */
static struct rdma_cm_id *on_connect_request(struct nvmf_rdma_transport *t, struct nvmf_port *port,
					     struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	char peer[64], err[256];
	addr_str(rdma_get_peer_addr(id), peer, sizeof(peer));

	struct nvmf_rdma_cm_limits lim;
	struct nvmf_rdma_cm_conn conn;
	nvmf_rdma_cm_port_limits(port, &lim);
	int sts = nvmf_rdma_cm_parse_req(ev->param.conn.private_data, ev->param.conn.private_data_len,
					 &lim, &conn);
	if (sts) {
		NVMF_RDMA_LOG("rejecting connect from %s: %s\n", peer, nvmf_rdma_cm_status_str(sts));
		reject(id, sts);
		return id;
	}
	if (t->shutting_down) {
		reject(id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	struct nvmf_rdma_device *dev = nvmf_rdma_device_get(t, id->verbs, err, sizeof(err));
	if (!dev) {
		NVMF_RDMA_LOG("rejecting connect from %s (queue %u): %s\n", peer, conn.qid, err);
		reject(id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	/* The CM swaps the fields: initiator_depth here is the host's responder resources,
	 * the most RDMA READs we may have outstanding against it. */
	uint32_t ord = ev->param.conn.initiator_depth;
	if (ord > (uint32_t)dev->attr.max_qp_init_rd_atom)
		ord = (uint32_t)dev->attr.max_qp_init_rd_atom;
	struct nvmf_rdma_queue *q = nvmf_rdma_queue_create(t, dev, port, id, &conn, ord, err, sizeof(err));
	if (!q) {
		NVMF_RDMA_LOG("rejecting connect from %s (queue %u): %s\n", peer, conn.qid, err);
		reject(id, NVME_RDMA_CM_NO_RSC);
		return id;
	}
	struct nvme_rdma_cm_rep rep;
	nvmf_rdma_cm_build_rep(&rep, (uint16_t)q->recv_depth);
	struct rdma_conn_param p;
	memset(&p, 0, sizeof(p));
	p.private_data = &rep;
	p.private_data_len = sizeof(rep);
	p.initiator_depth = (uint8_t)(ord > 255 ? 255 : ord);
	uint32_t ird = ev->param.conn.responder_resources;
	if (ird > (uint32_t)dev->attr.max_qp_rd_atom)
		ird = (uint32_t)dev->attr.max_qp_rd_atom;
	p.responder_resources = (uint8_t)ird;
	p.rnr_retry_count = 7;
	p.retry_count = 7;
	p.flow_control = 1;
	if (rdma_accept(id, &p)) {
		NVMF_RDMA_LOG("rdma_accept from %s: %s\n", peer, strerror(errno));
		nvmf_rdma_queue_disconnect(q, NULL);  /* reaped (and its cm_id destroyed) later */
	}
	return NULL;
}

static struct nvmf_rdma_listener *find_listener(struct nvmf_rdma_transport *t, struct rdma_cm_id *id)
{
	for (struct nvmf_rdma_listener *l = t->listeners; l; l = l->next)
		if (l->id == id)
			return l;
	return NULL;
}

int nvmf_rdma_process_cm_events(struct nvmf_rdma_transport *t)
{
	struct rdma_cm_event *ev;
	int n = 0;
	while (rdma_get_cm_event(t->ec, &ev) == 0) {
		struct rdma_cm_id *destroy = NULL;
		n++;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			struct nvmf_rdma_listener *l = ev->listen_id->context;
			destroy = on_connect_request(t, l->port, ev);
		} else if (find_listener(t, ev->id)) {
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
	}
	return n;
}
