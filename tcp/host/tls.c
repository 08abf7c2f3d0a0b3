/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/TCP secure channel of a host queue (NVMe/TCP transport spec 1.0 section 3.6),
 * as the Linux host sets it up before the ICReq: the PSK identity for the host and
 * subsystem NQNs (nvme/tls-psk.c), the TLS PSK derived for it from the configured key,
 * and a TLS 1.3 handshake (tls/channel.c) bounded by the connect deadline. Every byte of
 * the queue then goes through the channel (nvmf_th_recv, nvmf_th_sendv).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "tcp/host/host.h"
#include "util/deadline.h"

int nvmf_th_tls_start(struct nvmf_th_queue *q, const struct nvmf_ctrl_opts *opts, int64_t deadline)
{
	struct nvme_tls_psk configured, tls;
	struct nvme_tls_identity id;
	char ident[600], why[200];
	int rc = nvme_tls_psk_parse(opts->tls_key, &configured, why, sizeof(why));
	if (!rc) {
		/* compat: the layout nvme-cli <= 2.15 inserted keys in (nvme/tls-psk.h). */
		rc = opts->tls_compat ?
			     nvme_tls_identity_make_compat(&configured, opts->tls_identity,
							   opts->hostnqn, opts->subnqn, ident,
							   sizeof(ident)) :
			     nvme_tls_identity_make(&configured, opts->tls_identity, opts->hostnqn,
						    opts->subnqn, ident, sizeof(ident));
		rc = rc < 0 ? rc : nvme_tls_identity_parse(ident, (size_t)rc, &id);
		rc = rc               ? rc :
		     opts->tls_compat ? nvme_tls_psk_derive_compat(&configured, &id, &tls) :
					nvme_tls_psk_derive(&configured, &id, &tls);
		snprintf(why, sizeof(why), "cannot derive the TLS PSK: %s", strerror(-rc));
	}
	explicit_bzero(&configured, sizeof(configured));
	if (rc) {
		nvmf_th_fail(q, "TLS: %s", why);
		return -EINVAL;
	}
	rc = nvmf_tls_client_new(q->fd, ident, tls.key, tls.len, tls.hash, &q->tls, why,
				 sizeof(why));
	explicit_bzero(&tls, sizeof(tls));
	if (rc) {
		nvmf_th_fail(q, "TLS: %s", why);
		return rc;
	}
	for (;;) {
		rc = nvmf_tls_handshake(q->tls, why, sizeof(why));
		if (rc != -EAGAIN)
			break;
		struct pollfd p = { .fd = q->fd,
				    .events = nvmf_tls_want_write(q->tls) ? POLLOUT : POLLIN };
		int n = poll(&p, 1, nvmf_deadline_left_ms(deadline));
		if (n < 0 && errno != EINTR) {
			rc = -errno;
			snprintf(why, sizeof(why), "poll: %s", strerror(errno));
			break;
		}
		if (n == 0) {
			rc = -ETIMEDOUT;
			snprintf(why, sizeof(why),
				 "the controller did not finish the handshake in time");
			break;
		}
	}
	if (rc) {
		/* The controller closing on our ClientHello: no TLS there, or no key for us. */
		nvmf_th_fail(q, "TLS handshake: %s%s", why,
			     rc == -ECONNRESET ?
				     " (does the port have TLS, and a PSK for this host?)" :
				     "");
		return rc == -ECONNRESET ? -ECONNREFUSED : rc;
	}
	return 0;
}

ssize_t nvmf_th_recv(struct nvmf_th_queue *q, void *buf, size_t len)
{
	return q->tls ? nvmf_tls_recv(q->tls, buf, len) : recv(q->fd, buf, len, MSG_DONTWAIT);
}

ssize_t nvmf_th_recvv(struct nvmf_th_queue *q, struct iovec *iov, int n)
{
	if (q->tls) {
		errno = EINVAL; /* the channel's records are read with nvmf_th_recv */
		return -1;
	}
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
	return recvmsg(q->fd, &mh, MSG_DONTWAIT);
}

ssize_t nvmf_th_sendv(struct nvmf_th_queue *q, struct iovec *iov, int n)
{
	if (!q->tls) {
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
		return sendmsg(q->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	/* A record staged earlier goes first. */
	if (nvmf_tls_tx_pending(q->tls) && nvmf_tls_flush(q->tls))
		return -1;
	return nvmf_tls_sendv(q->tls, iov, n);
}
