/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/TCP host transport's ops (initiator/transport.h): submit only queues the
 * command's CapsuleCmd on an I/O queue (the admin queue writes it at once); poll writes
 * what is queued (every capsule submitted since the last pass in one sendmsg: the core's
 * callbacks submit the next commands after poll returned, so they go out together at the
 * start of the next poll), then reads and handles PDUs; wait writes what is queued, then
 * sleeps in poll(2) on the socket (readable, or writable while something still waits to be
 * sent). A command submitted on an I/O queue is on the wire once its queue was polled or
 * waited on. No memory registration on TCP: mem_register and mem_unregister accept
 * everything and do nothing.
 */
#include <errno.h>
#include <poll.h>
#include "tcp/host/host.h"

static int hq_submit(struct nvmf_hq *hq, struct nvmf_hcmd *cmd)
{
	struct nvmf_th_queue *q = hq->tpriv;
	if (!q || q->dead)
		return -ECONNRESET;
	if (cmd->len && !cmd->buf)
		return -EINVAL;
	uint16_t cid = cmd->sqe.command_id;
	if (cid >= q->size || q->cmds[cid].cmd)
		return -EINVAL; /* the core hands out ids below size, each once */
	struct nvmf_th_cmd *c = &q->cmds[cid];
	c->cmd = cmd;
	c->rcvd = c->sent = c->r2t_off = c->r2t_left = 0;
	c->ttag = 0;
	c->incapsule = cmd->write && cmd->len && cmd->len <= q->incapsule;
	c->capsule_out = c->data_err = false;
	cmd->tctx = c;
	/* I/O queues: written by the next poll or wait with whatever else was submitted
	 * before it. The admin queue's few commands (an Asynchronous Event Request nobody
	 * polls for) go out at once; a dead connection shows in the next poll. */
	nvmf_th_tx_queue(q, c);
	if (q->qid == 0)
		nvmf_th_tx_flush(q);
	return 0;
}

static int hq_poll(struct nvmf_hq *hq, unsigned max)
{
	struct nvmf_th_queue *q = hq->tpriv;
	if (!q || q->dead)
		return -ECONNRESET;
	nvmf_th_tx_flush(q);
	nvmf_th_rx(q, max);
	int reaped = (int)q->completions;
	/* R2Ts just read have H2CData to send. */
	if (!q->dead)
		nvmf_th_tx_flush(q);
	if (q->dead && !reaped)
		return -ECONNRESET;
	return reaped;
}

static int hq_wait(struct nvmf_hq *hq, int timeout_ms)
{
	struct nvmf_th_queue *q = hq->tpriv;
	if (!q || q->dead)
		return -ECONNRESET;
	if (q->rx_off < q->rx_len || (q->tls && nvmf_tls_rx_pending(q->tls)))
		return 0; /* bytes received and not yet handled (poll stopped at max) */
	/* Commands submitted since the last poll: out before sleeping on their answers. */
	if (nvmf_th_tx_flush(q))
		return -ECONNRESET;
	struct pollfd p = { .fd = q->fd, .events = POLLIN };
	if (nvmf_th_tx_pending(q))
		p.events |= POLLOUT;
	int rc = poll(&p, 1, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

static void hq_set_incapsule(struct nvmf_hq *hq, uint32_t ioccsz)
{
	struct nvmf_th_queue *q = hq->tpriv;
	if (!q || q->qid == 0)
		return; /* the admin queue keeps its 8 KiB */
	/* IOCCSZ counts 16-byte units, the 64-byte SQE included (NVMe-oF 1.1, Identify). */
	uint64_t bytes = (uint64_t)ioccsz * 16;
	bytes = bytes > 64 ? bytes - 64 : 0;
	q->incapsule = bytes > NVMF_TH_MAX_INCAPSULE ? NVMF_TH_MAX_INCAPSULE : (uint32_t)bytes;
}

static int hq_mem_register(struct nvmf_hq *admin, void *addr, size_t len)
{
	(void)admin;
	(void)addr;
	(void)len;
	return 0; /* data is copied to and from the socket: nothing to register */
}

static int hq_mem_unregister(struct nvmf_hq *admin, void *addr)
{
	(void)admin;
	(void)addr;
	return 0;
}

/* What killed the queue (rx.c's nvmf_th_fail), for the core's error messages. */
static const char *hq_queue_error(struct nvmf_hq *hq)
{
	struct nvmf_th_queue *q = hq->tpriv;
	return q ? q->err : NULL;
}

const struct nvmf_host_transport nvmf_tcp_host_transport = {
	.name = "tcp",
	.no_keyed_sgls = true,
	.queue_connect = nvmf_th_queue_connect,
	.queue_disconnect = nvmf_th_queue_disconnect,
	.submit = hq_submit,
	.poll = hq_poll,
	.wait = hq_wait,
	.set_incapsule = hq_set_incapsule,
	.mem_register = hq_mem_register,
	.mem_unregister = hq_mem_unregister,
	.queue_error = hq_queue_error,
};
