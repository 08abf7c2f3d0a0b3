/* SPDX-License-Identifier: MIT */
/*
 * Connection of one host queue over TCP (TCP transport 1.0 section 3.5, connection
 * establishment; what the Linux host does in nvme_tcp_alloc_queue/nvme_tcp_init_connection):
 * the address resolved numerically with getaddrinfo (IPv4 or IPv6), a non-blocking
 * connect bounded by the connect timeout, TCP_NODELAY (capsules are small and latency
 * bound), then ICReq {PFV 0, HPDA 0, DGST as the options ask, MAXR2T 0} and the ICResp
 * checked: PFV 0, CPDA in range, exactly the digests requested, MAXH2CDATA at least 4 KiB
 * and a multiple of 4. A C2HTermReq instead of ICResp is the controller's refusal, reported
 * with its FES.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include "tcp/host/host.h"
#include "util/addr.h"
#include "util/clock.h"
#include "util/deadline.h"

/* A connected non-blocking socket to @ai within @deadline, or -errno. */
static int tcp_connect(const struct addrinfo *ai, int64_t deadline)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			ai->ai_protocol);
	if (fd < 0)
		return -errno;
	int rc = 0;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		rc = -errno;
		goto fail;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int n = poll(&p, 1, nvmf_deadline_left_ms(deadline));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto fail;
		}
		if (n == 0) {
			rc = -ETIMEDOUT;
			goto fail;
		}
		break;
	}
	int soerr = 0;
	socklen_t sl = sizeof(soerr);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl))
		soerr = errno;
	if (soerr) {
		rc = -soerr;
		goto fail;
	}
	int one = 1;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		rc = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return rc;
}

/* ICReq out, ICResp (or C2HTermReq) in, within @deadline. 0 or -errno with q->err set. */
static int init_connection(struct nvmf_th_queue *q, int64_t deadline)
{
	struct nvme_tcp_icreq ic;
	memset(&ic, 0, sizeof(ic));
	ic.ch.type = NVME_TCP_ICREQ;
	ic.ch.hlen = sizeof(ic);
	ic.ch.plen = htole32(sizeof(ic));
	ic.pfv = htole16(NVME_TCP_PFV_1_0);
	ic.hpda = 0; /* C2H data right after the header and digest */
	ic.dgst = (uint8_t)((q->rxp.hdgst ? NVME_TCP_DGST_HDR : 0) |
			    (q->rxp.ddgst ? NVME_TCP_DGST_DATA : 0));
	ic.maxr2t = htole32(0); /* one R2T outstanding per command (0's based) */

	size_t off = 0;
	while (off < sizeof(ic)) {
		struct iovec iov = { .iov_base = (uint8_t *)&ic + off,
				     .iov_len = sizeof(ic) - off };
		ssize_t w = nvmf_th_sendv(q, &iov, 1);
		if (w >= 0) {
			off += (size_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			int rc = -errno;
			nvmf_th_fail(q, "send ICReq: %s", strerror(errno));
			return rc;
		}
		struct pollfd p = { .fd = q->fd, .events = POLLOUT };
		if (poll(&p, 1, nvmf_deadline_left_ms(deadline)) == 0) {
			nvmf_th_fail(q, "send ICReq: timed out");
			return -ETIMEDOUT;
		}
	}
	while (!q->ic_done) {
		if (nvmf_th_rx(q, 0))
			return q->ic_rc ? q->ic_rc : -ECONNRESET;
		if (q->ic_done)
			break;
		struct pollfd p = { .fd = q->fd, .events = POLLIN };
		int n = poll(&p, 1, nvmf_deadline_left_ms(deadline));
		if (n < 0 && errno != EINTR) {
			int rc = -errno;
			nvmf_th_fail(q, "poll: %s", strerror(errno));
			return rc;
		}
		if (n == 0) {
			nvmf_th_fail(q, "no ICResp: timed out");
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* The queue state of @hq on the connected stream socket @fd (taken: closed on failure),
 * then ICReq/ICResp within @deadline. 0 or -errno with @err set. */
static int queue_open(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
		      uint16_t size, int fd, const char *peer, int64_t deadline, char *err,
		      size_t errlen)
{
	struct nvmf_th_queue *q = calloc(1, sizeof(*q));
	struct nvmf_th_cmd *cmds = calloc(size, sizeof(*cmds));
	uint8_t *rxbuf = malloc(NVMF_TH_RXBUF);
	if (!q || !cmds || !rxbuf) {
		free(q);
		free(cmds);
		free(rxbuf);
		close(fd);
		snprintf(err, errlen, "out of memory for queue %u", qid);
		return -ENOMEM;
	}
	hq->tpriv = q;
	q->hq = hq;
	q->fd = fd;
	q->qid = qid;
	q->size = size;
	q->cmds = cmds;
	q->rxbuf = rxbuf;
	TAILQ_INIT(&q->txq);
	q->rxp.hdgst = opts->hdr_digest;
	q->rxp.ddgst = opts->data_digest;
	q->rxp.rx_pda = 0;
	q->rxp.rx_max_data = NVMF_TH_MAX_RX_DATA;
	q->rxp.rx_is_ctrl = false;
	q->incapsule = qid ? 0 : NVMF_TH_ADMIN_INCAPSULE; /* I/O: set_incapsule */
	q->hdr_need = sizeof(struct nvme_tcp_ch);
	snprintf(q->peer, sizeof(q->peer), "%s", peer);

	int rc = opts->tls_key ? nvmf_th_tls_start(q, opts, deadline) : 0;
	if (rc) {
		snprintf(err, errlen, "%s: %s", q->peer, q->err);
		nvmf_th_queue_disconnect(hq);
		return rc;
	}
	rc = init_connection(q, deadline);
	if (rc) {
		/* A port that requires TLS closes a plain ICReq without a word (NVMe/TCP 1.0
		 * section 3.6.1.3): the one cause the host can name for a close before any
		 * byte came back. */
		bool plain_closed = !opts->tls_key && rc == -ECONNRESET && !q->ic_rc &&
				    !q->hdr_have && !q->rx_len;
		snprintf(err, errlen, "icresp from %s: %s%s", q->peer, q->err,
			 plain_closed ? " (a port that requires TLS does this to a host "
					"without a PSK)" :
					"");
		nvmf_th_queue_disconnect(hq);
	}
	return rc;
}

static int64_t deadline_of(const struct nvmf_ctrl_opts *opts)
{
	return (int64_t)nvmf_mono_ms() +
	       (opts->timeout_ms > 0 ? opts->timeout_ms : NVMF_TH_CONNECT_TIMEOUT);
}

int nvmf_th_queue_connect(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			  uint16_t size, char *err, size_t errlen)
{
	if (size < 2) {
		snprintf(err, errlen, "queue %u: size %u: a queue has at least 2 entries", qid,
			 size);
		return -EINVAL;
	}
	const char *svc = opts->trsvcid && opts->trsvcid[0] ? opts->trsvcid : NVMF_TH_DEFAULT_PORT;
	uint16_t port;
	if (nvmf_port_parse(svc, &port)) { /* getaddrinfo would take "79956" as 14420 */
		snprintf(err, errlen, "trsvcid '%s': not a port number (1-65535)", svc);
		return -EINVAL;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	int gai = getaddrinfo(opts->traddr ? opts->traddr : "", svc, &hints, &res);
	if (gai) {
		snprintf(err, errlen,
			 "traddr '%s' trsvcid '%s': %s (a numeric IPv4 or IPv6 address "
			 "and port number)",
			 opts->traddr ? opts->traddr : "", svc, gai_strerror(gai));
		return -EINVAL;
	}
	char peer[sizeof(((struct nvmf_th_queue *)0)->peer)];
	nvmf_sockaddr_str(res->ai_addr, peer, sizeof(peer));
	int64_t deadline = deadline_of(opts);
	int fd = tcp_connect(res, deadline);
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "connect %s: %s", peer,
			 fd == -ETIMEDOUT ? "timed out" : strerror(-fd));
		return fd;
	}
	return queue_open(hq, opts, qid, size, fd, peer, deadline, err, errlen);
}

int nvmf_th_queue_attach(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			 uint16_t size, int fd, char *err, size_t errlen)
{
	if (size < 2) {
		close(fd);
		snprintf(err, errlen, "queue %u: size %u: a queue has at least 2 entries", qid,
			 size);
		return -EINVAL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK)) {
		int rc = -errno;
		close(fd);
		snprintf(err, errlen, "queue %u: socket: %s", qid, strerror(-rc));
		return rc;
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char peer[sizeof(((struct nvmf_th_queue *)0)->peer)] = "local";
	memset(&ss, 0, sizeof(ss));
	if (!getpeername(fd, (struct sockaddr *)&ss, &sl) &&
	    (ss.ss_family == AF_INET || ss.ss_family == AF_INET6))
		nvmf_sockaddr_str((const struct sockaddr *)&ss, peer, sizeof(peer));
	return queue_open(hq, opts, qid, size, fd, peer, deadline_of(opts), err, errlen);
}

void nvmf_th_queue_disconnect(struct nvmf_hq *hq)
{
	struct nvmf_th_queue *q = hq->tpriv;
	if (!q)
		return;
	nvmf_tls_free(q->tls);
	if (q->fd >= 0)
		close(q->fd); /* FIN to the controller: it tears the queue down */
	for (unsigned i = 0; i < NVMF_TH_TX_BATCH; i++)
		free(q->tx[i].copy);
	free(q->cmds);
	free(q->rxbuf);
	free(q);
	hq->tpriv = NULL;
}
