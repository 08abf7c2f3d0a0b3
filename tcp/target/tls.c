/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/TCP secure channel of a target connection (NVMe/TCP transport spec 1.0,
 * section 3.6): on a port with addr.tsas "tls1.3", the connection's first byte tells a
 * TLS handshake record (a ClientHello) from a plain ICReq (PDU type 0). A ClientHello
 * starts a TLS 1.3 handshake (tls/channel.c) that runs a step per socket event on the
 * main group, never blocking it, under the connection's ICReq deadline; its PSK comes from
 * the identity the host offers (nvme/tls-psk.c) and the host's configured key (the core:
 * nvmf_transport_tls_psk). After it, every byte in and out goes through the channel.
 * A plain connection to a port that requires TLS is closed, as the kernel target does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "tcp/target/internal.h"

/* The first byte of a TLS record carrying a handshake message (RFC 8446 section 5.1). */
#define TLS_CONTENT_HANDSHAKE 0x16

/* The channel's PSK lookup for the identity @identity (@idlen bytes from the ClientHello):
 * the identity names the host, the host's configured PSK gives the TLS PSK. */
static int psk_find(void *arg, const char *identity, size_t idlen, uint8_t *psk, size_t *psklen,
		    int *hash, char *why, size_t whylen)
{
	struct nvmf_tcp_conn *conn = arg;
	struct nvme_tls_identity id;
	struct nvme_tls_psk configured, tls;
	if (nvme_tls_identity_parse(identity, idlen, &id)) {
		snprintf(why, whylen,
			 "its PSK identity is not an NVMe one (NVMe0R01 <host NQN> "
			 "<subsystem NQN>, ...)");
		return -ENOKEY;
	}
	if (id.type != 'R') {
		snprintf(why, whylen,
			 "host %s offers a generated PSK (secure channel concatenation), which "
			 "this target does not take",
			 id.hostnqn);
		return -ENOKEY;
	}
	bool compat_v0;
	if (nvmf_transport_tls_psk(&conn->t->base, id.hostnqn, &configured, &compat_v0)) {
		snprintf(why, whylen, "host %s has no TLS PSK here (hosts[].nvmf_tls_key)",
			 id.hostnqn);
		return -ENOKEY;
	}
	/* The layout the host derived in (nvme-cli <= 2.15: compat): a version 1 digest
	 * tells it, the host's configuration does for version 0. */
	int rc = nvme_tls_psk_derive_target(&configured, &id, compat_v0, &tls, &conn->tls_compat);
	unsigned bits = configured.hash == NVME_TLS_HASH_SHA384 ? 384u : 256u;
	explicit_bzero(&configured, sizeof(configured));
	if (rc == -EINVAL) {
		snprintf(why, whylen, "host %s offers a SHA-%u PSK identity; its key is SHA-%u",
			 id.hostnqn, id.hash == NVME_TLS_HASH_SHA384 ? 384u : 256u, bits);
		return -EKEYREJECTED;
	}
	if (rc) {
		snprintf(why, whylen,
			 "host %s: the PSK digest of its identity does not match its key here "
			 "(in either derivation layout, RFC 8446 or libnvme's compat)",
			 id.hostnqn);
		return -EKEYREJECTED;
	}
	free(conn->tls_host);
	free(conn->tls_sub);
	conn->tls_host = strdup(id.hostnqn);
	conn->tls_sub = strdup(id.subnqn);
	if (!conn->tls_host || !conn->tls_sub) {
		snprintf(why, whylen, "out of memory");
		explicit_bzero(&tls, sizeof(tls));
		return -ENOMEM;
	}
	memcpy(psk, tls.key, tls.len);
	*psklen = tls.len;
	*hash = tls.hash;
	explicit_bzero(&tls, sizeof(tls));
	return 0;
}

/* The first byte decides: a ClientHello starts the handshake; a plain connection goes on
 * to its ICReq where the port allows it. Returns work done. */
static int sniff(struct nvmf_tcp_conn *conn)
{
	uint8_t b;
	ssize_t n = recv(conn->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (n <= 0) {
		nvmf_tcp_conn_kill(conn, NVMF_LOG_INFO, NULL);
		return 1;
	}
	if (b != TLS_CONTENT_HANDSHAKE) {
		if (conn->pa.tls == NVMF_PORT_TLS_REQUIRED) {
			nvmf_tcp_conn_kill(conn, NVMF_LOG_WARNING,
					   "a plain connection (no TLS ClientHello) to a port that "
					   "requires TLS (addr.treq \"required\"): closed");
			return 1;
		}
		conn->tls_phase = NVMF_TCP_TLS_NONE; /* plain, by the host's choice */
		return 0;
	}
	char err[160];
	if (nvmf_tls_server_new(conn->fd, psk_find, conn, &conn->tls, err, sizeof(err))) {
		char why[220];
		snprintf(why, sizeof(why), "TLS: %s: connection closed", err);
		nvmf_tcp_conn_kill(conn, NVMF_LOG_ERROR, why);
		return 1;
	}
	conn->tls_phase = NVMF_TCP_TLS_HANDSHAKE;
	return 0;
}

int nvmf_tcp_tls_readable(struct nvmf_tcp_conn *conn)
{
	int work = 0;
	if (conn->tls_phase == NVMF_TCP_TLS_SNIFF && !(work = sniff(conn)) &&
	    conn->tls_phase == NVMF_TCP_TLS_SNIFF)
		return 0; /* nothing arrived yet */
	if (conn->tls_phase != NVMF_TCP_TLS_HANDSHAKE)
		return work;
	char err[640]; /* the channel's messages name NQNs (up to 223 bytes) */
	int rc = nvmf_tls_handshake(conn->tls, err, sizeof(err));
	if (rc == -EAGAIN) {
		bool out = nvmf_tls_want_write(conn->tls);
		if (out != conn->pollout) {
			conn->pollout = out;
			nvmf_tcp_epoll_mod(conn->tpg, conn->fd, &conn->ev, out);
		}
		return work + 1;
	}
	if (rc) {
		char why[700];
		snprintf(why, sizeof(why), "TLS handshake refused: %s: connection closed", err);
		nvmf_tcp_conn_kill(conn, NVMF_LOG_WARNING, why);
		return work + 1;
	}
	conn->tls_phase = NVMF_TCP_TLS_UP;
	if (conn->pollout) {
		conn->pollout = false;
		nvmf_tcp_epoll_mod(conn->tpg, conn->fd, &conn->ev, false);
	}
	bool tx = nvmf_tls_ktls_tx(conn->tls), rx = nvmf_tls_ktls_rx(conn->tls);
	NVMF_TCP_LOG(conn->t, NVMF_LOG_INFO,
		     "host %s (port %u): TLS 1.3 secure channel (%s, PSK of host %s for %s "
		     "derived in the %s layout; records %s)",
		     conn->peer, conn->pa.portid, nvmf_tls_cipher(conn->tls), conn->tls_host,
		     conn->tls_sub, conn->tls_compat ? "libnvme compat" : "RFC 8446",
		     tx && rx ? "by the kernel (kTLS)" :
		     tx       ? "sent by the kernel (kTLS), received in user space" :
		     rx       ? "received by the kernel (kTLS), sent in user space" :
				"in user space: this kernel has no kTLS");
	/* The ICReq may have come with the last handshake flight. */
	if (nvmf_tls_rx_pending(conn->tls))
		nvmf_tcp_conn_kick(conn);
	return work + 1;
}

ssize_t nvmf_tcp_tls_recv(struct nvmf_tcp_conn *conn, void *buf, size_t len)
{
	ssize_t n = nvmf_tls_recv(conn->tls, buf, len);
	/* Decrypted bytes the channel still holds make no socket event: come back. */
	if (n > 0 && nvmf_tls_rx_pending(conn->tls))
		nvmf_tcp_conn_kick(conn);
	return n;
}
