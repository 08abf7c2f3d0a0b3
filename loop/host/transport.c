/* SPDX-License-Identifier: MIT */
/*
 * The loop transport, host side (see loop.h, loop-internal.h): libnvmf's
 * struct nvmf_host_transport over the target side in the same process. A submit builds
 * the data pointer the RDMA host would (in-capsule for small writes, else a keyed SGL of
 * a bounce buffer of this queue) and puts the capsule into a slot of the target queue;
 * poll reaps the CQEs the target put into this queue's ring; wait sleeps on the queue's
 * condition variable. In driven mode every call also runs the target (loop.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/sgl.h"
#include "loop/internal.h"
#include "util/deadline.h"

/* Wait on @h->cond (h->lock held) until @until or, when the target needs driving, for
 * a slice after one drive. */
static void hq_wait_slice(struct loop_hq *h, const struct timespec *until)
{
	struct loop_transport *lt = h->lt;
	if (nvmf_loop_drive_needed(lt)) {
		pthread_mutex_unlock(&h->lock);
		int n = nvmf_loop_run_passes(lt);
		pthread_mutex_lock(&h->lock);
		if (n)
			return; /* look again before sleeping */
		struct timespec slice = nvmf_deadline_in_ms(LOOP_WAIT_SLICE_MS);
		if (nvmf_timespec_before(&slice, until))
			until = &slice;
		pthread_cond_timedwait(&h->cond, &h->lock, until);
		return;
	}
	pthread_cond_timedwait(&h->cond, &h->lock, until);
}

static void hq_list_add(struct loop_transport *lt, struct loop_hq *h)
{
	pthread_mutex_lock(&lt->lock);
	h->next = lt->hqs;
	lt->hqs = h;
	pthread_mutex_unlock(&lt->lock);
}

static void hq_list_remove(struct loop_transport *lt, struct loop_hq *h)
{
	pthread_mutex_lock(&lt->lock);
	for (struct loop_hq **pp = &lt->hqs; *pp; pp = &(*pp)->next)
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	bool last = lt->destroyed && !lt->hqs;
	pthread_mutex_unlock(&lt->lock);
	if (last)
		nvmf_loop_free(lt); /* the target is gone and this was the last host queue */
}

void nvmf_loop_hq_free(struct loop_hq *h)
{
	for (unsigned i = 0; i < h->size; i++)
		free(h->cmds[i].bounce);
	free(h->cmds);
	free(h->ring);
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->cond);
	free(h);
}

static struct loop_transport *lt_of_host(const struct nvmf_host_transport *t)
{
	return container_of(t, struct loop_transport, host);
}

static bool is_wildcard(const char *addr, int family)
{
	uint8_t a[16] = { 0 }, zero[16] = { 0 };
	if (!addr[0])
		return true;
	return inet_pton(family, addr, a) == 1 && !memcmp(a, zero, family == AF_INET6 ? 16 : 4);
}

/* @dialed (the host's traddr) reaches a port listening on @listen of @family. */
static bool addr_matches(const char *listen, int family, const char *dialed)
{
	uint8_t a[16], b[16];
	if (inet_pton(family, dialed, a) != 1)
		return !strcmp(listen, dialed);
	if (is_wildcard(listen, family))
		return true;
	return inet_pton(family, listen, b) == 1 && !memcmp(a, b, family == AF_INET6 ? 16 : 4);
}

/* The port a host queue connects to (the rule in loop.h); under lt->lock. */
static struct nvmf_port *find_port(struct loop_transport *lt, const char *traddr,
				   const char *trsvcid)
{
	const char *svc = trsvcid && trsvcid[0] ? trsvcid : "4420";
	for (size_t i = 0; i < nvmf_transport_nports(&lt->t); i++) {
		struct nvmf_port *p = nvmf_transport_port(&lt->t, i);
		struct nvmf_port_attrs pa;
		nvmf_port_attrs(p, &pa);
		const char *psvc = pa.trsvcid[0] ? pa.trsvcid : "4420";
		if (nvmf_port_transport(p) != &lt->t || !nvmf_port_priv(p) || strcmp(psvc, svc))
			continue;
		if (!traddr || !traddr[0] || addr_matches(pa.traddr, pa.adrfam, traddr))
			return p;
	}
	return NULL;
}

static struct loop_hq *hq_alloc(struct loop_transport *lt, struct nvmf_hq *hq,
				struct nvmf_port *port, uint16_t qid, uint16_t size,
				const char *traddr)
{
	struct loop_hq *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->cmds = calloc(size, sizeof(*h->cmds));
	h->ring = calloc(size, sizeof(*h->ring));
	if (!h->cmds || !h->ring) {
		free(h->cmds);
		free(h->ring);
		free(h);
		return NULL;
	}
	h->lt = lt;
	h->hq = hq;
	h->port = port;
	h->qid = qid;
	h->size = size;
	h->key = (uint32_t)((uintptr_t)h >> 4) | 1u;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&h->local;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&h->local;
	if (traddr && inet_pton(AF_INET, traddr, &a4->sin_addr) == 1)
		a4->sin_family = AF_INET;
	else if (traddr && inet_pton(AF_INET6, traddr, &a6->sin6_addr) == 1)
		a6->sin6_family = AF_INET6;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
	h->state = LHQ_CONNECTING;
	return h;
}

int nvmf_loop_hq_connect(struct loop_transport *lt, struct nvmf_hq *hq, const char *traddr,
			 const char *trsvcid, int timeout_ms, uint16_t qid, uint16_t size,
			 char *err, size_t errlen, struct loop_hq **out)
{
	if (size < 2 || size > LOOP_MAX_QUEUE_SIZE) {
		snprintf(err, errlen, "loop: queue size %u is not in 2..%u", size,
			 LOOP_MAX_QUEUE_SIZE);
		return -EINVAL;
	}
	pthread_mutex_lock(&lt->lock);
	struct nvmf_port *port = find_port(lt, traddr, trsvcid);
	pthread_mutex_unlock(&lt->lock);
	if (!port) {
		snprintf(err, errlen, "loop: no listening loop port at %s:%s", traddr ? traddr : "",
			 trsvcid ? trsvcid : "4420");
		return -ECONNREFUSED;
	}
	struct loop_hq *h = hq_alloc(lt, hq, port, qid, size, traddr);
	if (!h) {
		snprintf(err, errlen, "loop: out of memory for queue %u", qid);
		return -ENOMEM;
	}
	hq_list_add(lt, h);
	int rc = nvmf_tgt_new_queue(&lt->t, NULL, qid, h);
	if (rc) {
		hq_list_remove(lt, h);
		nvmf_loop_hq_free(h);
		snprintf(err, errlen, "loop: target cannot place queue %u: %s", qid, strerror(-rc));
		return rc;
	}
	int ms = timeout_ms > 0 ? timeout_ms : LOOP_CONNECT_MS;
	struct timespec until = nvmf_deadline_in_ms((uint64_t)ms);
	pthread_mutex_lock(&h->lock);
	while (h->state == LHQ_CONNECTING && !nvmf_deadline_passed(&until))
		hq_wait_slice(h, &until);
	if (h->state == LHQ_CONNECTING) {
		pthread_mutex_unlock(&h->lock);
		hq_list_remove(lt, h); /* nvmf_loop_break must not find it any more */
		pthread_mutex_lock(&h->lock);
		if (h->state == LHQ_CONNECTING) {
			h->abandoned = true; /* pg_add_queue frees it */
			pthread_mutex_unlock(&h->lock);
			snprintf(err, errlen, "loop: the target did not take queue %u within %d ms",
				 qid, ms);
			return -ETIMEDOUT;
		}
		pthread_mutex_unlock(&h->lock);
		hq_list_add(lt, h); /* answered after all */
		pthread_mutex_lock(&h->lock);
	}
	enum loop_hq_state state = h->state;
	rc = h->reject;
	pthread_mutex_unlock(&h->lock);
	if (state == LHQ_REJECTED) {
		hq_list_remove(lt, h);
		nvmf_loop_hq_free(h);
		struct nvmf_port_attrs pa;
		nvmf_port_attrs(port, &pa);
		snprintf(err, errlen, "loop: port %u refused queue %u: %s", pa.portid, qid,
			 strerror(-rc));
		return rc;
	}
	*out = h;
	return 0;
}

static int lh_queue_connect(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			    uint16_t size, char *err, size_t errlen)
{
	struct loop_hq *h = NULL;
	int rc = nvmf_loop_hq_connect(lt_of_host(hq->t), hq, opts->traddr, opts->trsvcid,
				      opts->timeout_ms, qid, size, err, errlen, &h);
	if (!rc)
		hq->tpriv = h;
	return rc;
}

void nvmf_loop_hq_disconnect(struct loop_hq *h)
{
	struct loop_transport *lt = h->lt;
	hq_list_remove(lt, h);
	pthread_mutex_lock(&h->lock);
	/* Its release comes after this message (FIFO per group, and the target queue is
	 * released only after it was unlinked, which has not happened yet). */
	if (h->tq)
		nvmf_loop_request_detach(h);
	struct timespec until = nvmf_deadline_in_ms(LOOP_RELEASE_MS);
	while (!h->released && !nvmf_deadline_passed(&until))
		hq_wait_slice(h, &until);
	if (!h->released) {
		/* The target still holds the queue; it frees the host side at release. */
		h->abandoned = true;
		pthread_mutex_unlock(&h->lock);
		LOOP_LOG("queue %u: the target did not release it within %d ms\n", h->qid,
			 LOOP_RELEASE_MS);
		return;
	}
	pthread_mutex_unlock(&h->lock);
	nvmf_loop_hq_free(h);
}

static void lh_queue_disconnect(struct nvmf_hq *hq)
{
	struct loop_hq *h = hq->tpriv;
	if (!h)
		return;
	hq->tpriv = NULL;
	nvmf_loop_hq_disconnect(h);
}

static int lh_submit(struct nvmf_hq *hq, struct nvmf_hcmd *cmd)
{
	struct loop_hq *h = hq->tpriv;
	uint16_t cid = cmd->sqe.command_id;
	if (cid >= h->size || (cmd->len && !cmd->buf) || cmd->len > LOOP_KEYED_MAX ||
	    h->cmds[cid].busy)
		return -EINVAL;
	bool incapsule = cmd->write && cmd->len && cmd->len <= h->incapsule;
	struct loop_cmd *c = &h->cmds[cid];
	c->bounce = NULL;
	if (cmd->len && !incapsule) {
		c->bounce = malloc(cmd->len);
		if (!c->bounce)
			return -EAGAIN;
		if (cmd->write)
			memcpy(c->bounce, cmd->buf, cmd->len);
	}
	c->len = cmd->len;
	c->read = !cmd->write;
	c->busy = true;
	struct nvme_sqe sqe = cmd->sqe;
	/* The data pointer the RDMA host builds: in-capsule for small writes, else keyed
	 * (the length fits: LOOP_KEYED_MAX). */
	if (incapsule)
		nvme_sgl_set_incapsule(&sqe, 0, cmd->len);
	else
		nvme_sgl_set_keyed(&sqe, (uintptr_t)c->bounce, cmd->len, h->key, false);

	pthread_mutex_lock(&h->lock);
	int rc;
	if (h->broken || !h->tq)
		rc = -ECONNRESET;
	else if (h->inflight >= h->size)
		rc = -EAGAIN;
	else
		rc = nvmf_loop_tq_receive(h->tq, &sqe, incapsule ? cmd->buf : NULL,
					  incapsule ? cmd->len : 0, (uintptr_t)c->bounce,
					  c->bounce ? cmd->len : 0);
	if (!rc)
		h->inflight++;
	struct nvmf_pg *pg = h->pg;
	pthread_mutex_unlock(&h->lock);
	if (rc) {
		free(c->bounce);
		memset(c, 0, sizeof(*c));
		return rc;
	}
	if (nvmf_pg_started(pg))
		nvmf_pg_wake(pg);
	nvmf_loop_auto_drive(h->lt);
	return 0;
}

/* A reaped CQE: read data out of the bounce buffer, then the core learns of it. */
static void deliver(struct loop_hq *h, const struct nvme_cqe *cqe)
{
	uint16_t cid = cqe->command_id;
	if (cid < h->size && h->cmds[cid].busy) {
		struct loop_cmd *c = &h->cmds[cid];
		struct nvmf_hcmd *hc = nvmf_hq_cmd_by_cid(h->hq, cid);
		if (c->read && c->bounce && !(le16toh(cqe->status) >> 1) && hc && hc->buf &&
		    hc->len == c->len)
			memcpy(hc->buf, c->bounce, c->len);
		free(c->bounce);
		memset(c, 0, sizeof(*c));
	}
	nvmf_hq_complete(h->hq, cqe);
}

static int lh_poll(struct nvmf_hq *hq, unsigned max)
{
	struct loop_hq *h = hq->tpriv;
	nvmf_loop_auto_drive(h->lt);
	bool hold = __atomic_load_n(&h->lt->hold, __ATOMIC_RELAXED);
	struct nvme_cqe got[64];
	int total = 0;
	for (;;) {
		unsigned n = 0;
		pthread_mutex_lock(&h->lock);
		if (h->broken && (!h->count || hold)) {
			pthread_mutex_unlock(&h->lock);
			return total ? total : -ECONNRESET;
		}
		while (!hold && h->count && n < 64 && (!max || (unsigned)total + n < max)) {
			got[n++] = h->ring[h->head];
			h->head = (h->head + 1) % h->size;
			h->count--;
			h->inflight--;
		}
		pthread_mutex_unlock(&h->lock);
		for (unsigned i = 0; i < n; i++)
			deliver(h, &got[i]);
		total += (int)n;
		if (n < 64 || (max && (unsigned)total >= max))
			return total;
	}
}

static int lh_wait(struct nvmf_hq *hq, int timeout_ms)
{
	struct loop_hq *h = hq->tpriv;
	struct timespec until = nvmf_deadline_in_ms(timeout_ms > 0 ? (uint64_t)timeout_ms : 0);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		bool hold = __atomic_load_n(&h->lt->hold, __ATOMIC_RELAXED);
		if (h->broken || (h->count && !hold) || nvmf_deadline_passed(&until))
			break;
		hq_wait_slice(h, &until);
	}
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static void lh_set_incapsule(struct nvmf_hq *hq, uint32_t ioccsz)
{
	struct loop_hq *h = hq->tpriv;
	uint32_t n = ioccsz * 16 > NVME_SQE_SIZE ? ioccsz * 16 - NVME_SQE_SIZE : 0;
	/* Never more than a slot of the target queue holds (the receive buffer size). */
	h->incapsule = n < h->target_inline ? n : h->target_inline;
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

void nvmf_loop_host_init(struct nvmf_host_transport *t)
{
	*t = (struct nvmf_host_transport){
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
}
