/* SPDX-License-Identifier: MIT */
/*
 * The TLS channel of NVMe/TCP (NVM Express TCP Transport Specification 1.1, section 3.6
 * "Transport Layer Security"): one non-blocking TLS 1.3 session over one connected TCP
 * socket, authenticated by a pre-shared key only. What the spec allows and nothing else:
 * TLS 1.3 only (RFC 8446); PSK with (EC)DHE key exchange (psk_dhe_ke; a client offering
 * only psk_ke is refused); cipher TLS_AES_128_GCM_SHA256 for a SHA-256 PSK and
 * TLS_AES_256_GCM_SHA384 for a SHA-384 PSK; no certificates, no session tickets, no
 * renegotiation, no early data. OpenSSL 3 does the protocol.
 *
 * Each session has its own SSL_CTX: there is no process-wide state of ours, sessions
 * share nothing, and the server's ClientHello callback gets its session as the context's
 * argument. Measured with OpenSSL 3.0.19 on the 2-CPU development machine: a session
 * made and freed costs about 120 us (SSL_CTX_new + free alone about 105 us), a whole
 * handshake of both ends over a socketpair about 580 us (two sessions' set-up included),
 * so the per-session context is about a third of a connection's TLS cost on one CPU,
 * paid once per NVMe/TCP queue.
 *
 * Threads: a session is single-threaded; the thread owning it may change between calls.
 * Every call leaves OpenSSL's per-thread error queue empty, so the thread can serve
 * other sessions.
 *
 * Signals: OpenSSL writes to the socket with write(2) (kernel TLS offload needs its
 * socket BIO), so a peer that has closed raises SIGPIPE: the process must ignore
 * SIGPIPE (our programs do); the calls then fail with EPIPE.
 *
 * Kernel TLS: SSL_OP_ENABLE_KTLS is set. Where the kernel has the "tls" ULP, OpenSSL
 * 3.0 offloads the transmit direction of a TLS 1.3 session (nvmf_tls_ktls_tx()); it has
 * no TLS 1.3 receive offload (3.2 added it), so nvmf_tls_ktls_rx() is false with 3.0.
 *
 * Secrets: keys are copied into OpenSSL sessions and our own copies are wiped with
 * OPENSSL_cleanse; no message (err, why) ever holds key material.
 */
#ifndef NVMF_TLS_CHANNEL_H
#define NVMF_TLS_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* One TLS session on one socket (opaque). */
struct nvmf_tls;

/* The PSK hashes (TLS 1.3 PSKs are bound to a hash, RFC 8446 section 4.2.11). */
enum {
	NVMF_TLS_SHA256 = 1, /* TLS_AES_128_GCM_SHA256; 32-byte keys (NVMe TLS PSKs) */
	NVMF_TLS_SHA384 = 2, /* TLS_AES_256_GCM_SHA384; 48-byte keys */
};
/* Largest PSK in bytes (a SHA-384 one). */
#define NVMF_TLS_PSK_MAX      48
/* Largest identity accepted from a client, in bytes (NVMe's are about 200). */
#define NVMF_TLS_IDENTITY_MAX 512

/* Server: how the channel learns the PSK for a client's identity. @identity is @idlen
 * bytes, not NUL terminated, as the client sent it. Fill @psk (up to NVMF_TLS_PSK_MAX
 * bytes), *@psklen and *@hash (NVMF_TLS_SHA256 or NVMF_TLS_SHA384). Return 0, or a
 * negative errno (-ENOKEY: no key for it; -EKEYREJECTED: known host, wrong key) which
 * the handshake then fails with, and @why (may be NULL; @whylen bytes) a short reason
 * without secrets for the log. Called once per handshake, for the first identity the
 * client offers, on the thread calling nvmf_tls_handshake(). */
typedef int (*nvmf_tls_psk_find_fn)(void *arg, const char *identity, size_t idlen, uint8_t *psk,
				    size_t *psklen, int *hash, char *why, size_t whylen);

/* A server session on @fd (a connected, non-blocking TCP socket; not closed by the
 * channel), which will ask @find(@arg, ...) for the client's key. No I/O yet.
 * Returns 0 and *@out, or -EINVAL (no @find), -ENOMEM / -EIO (OpenSSL failed); @err says
 * what (@errlen bytes, may be NULL/0). */
int nvmf_tls_server_new(int fd, nvmf_tls_psk_find_fn find, void *arg, struct nvmf_tls **out,
			char *err, size_t errlen);

/* A client session on @fd offering exactly one identity, @identity (NUL terminated,
 * 1..NVMF_TLS_IDENTITY_MAX bytes), with its PSK (@psklen bytes, 1..NVMF_TLS_PSK_MAX) of
 * @hash (NVMF_TLS_SHA256/SHA384); only that hash's cipher is offered. No I/O yet.
 * Returns 0 and *@out, -EINVAL (bad argument), -ENOMEM or -EIO; @err says what. */
int nvmf_tls_client_new(int fd, const char *identity, const uint8_t *psk, size_t psklen, int hash,
			struct nvmf_tls **out, char *err, size_t errlen);

/* Advance the handshake (non-blocking fd). 0 done (again 0 if called after); -EAGAIN:
 * call again when the fd is readable, or writable if nvmf_tls_want_write(); else a
 * negative errno and @err a one-line reason a log can print (never a secret):
 * -ENOKEY (no PSK for the identity / client offered no PSK, e.g. certificates only),
 * -EKEYREJECTED (wrong PSK: the Finished/binder check failed), -EPROTONOSUPPORT (peer
 * wants TLS 1.2 or lower, no common cipher, or PSK without (EC)DHE), -EPROTO (not TLS at
 * all, garbage, malformed), -ECONNRESET (peer closed during it). A failed session stays
 * failed: later calls return the same errno. */
int nvmf_tls_handshake(struct nvmf_tls *t, char *err, size_t errlen);
/* Whether the handshake's last -EAGAIN waits for the fd to become writable. */
bool nvmf_tls_want_write(const struct nvmf_tls *t);

/* After the handshake. Like recv(MSG_DONTWAIT) into @buf (@len bytes): >0 bytes, 0 the
 * peer closed (close_notify or EOF), -1 with errno EAGAIN / ECONNRESET / EPROTO (bad
 * record, alert) / EINVAL (handshake not done). */
ssize_t nvmf_tls_recv(struct nvmf_tls *t, void *buf, size_t len);
/* Decrypted bytes buffered inside (epoll will not report them: the caller reads again
 * without an event). Records not yet decrypted stay in the socket (no read-ahead). */
bool nvmf_tls_rx_pending(const struct nvmf_tls *t);

/* After the handshake. Like sendmsg(MSG_DONTWAIT) on @iov/@cnt: the bytes taken (>0;
 * maybe fewer than offered), or -1 with errno EAGAIN (nothing taken) / EPIPE /
 * ECONNRESET / EINVAL. Bytes taken are the channel's: it copies a record (up to 16 KiB)
 * that could not be written whole into its own staging and writes that first next time.
 * Records are up to 16 KiB; iov elements smaller than that are gathered into one. With
 * kTLS transmit (nvmf_tls_ktls_tx()) none of that: @iov goes to sendmsg(MSG_DONTWAIT |
 * MSG_NOSIGNAL) on the socket as it is, in one call, and the kernel frames, encrypts and
 * keeps a partly sent record; nothing is staged. (Through SSL_write every record would be
 * one system call, from a copy: OpenSSL 3 resumes a half-written kTLS record from the
 * buffer it was first handed.) */
ssize_t nvmf_tls_sendv(struct nvmf_tls *t, const struct iovec *iov, int cnt);
/* Staged bytes not yet written to the socket: the caller keeps asking for POLLOUT and
 * calls nvmf_tls_flush() until false. */
bool nvmf_tls_tx_pending(const struct nvmf_tls *t);
/* Write the staged bytes: 0 all gone (or none), -1 with errno EAGAIN / EPIPE /
 * ECONNRESET. */
int nvmf_tls_flush(struct nvmf_tls *t);

/* The identity the client used (server side: as received, from the ClientHello on, so a
 * failed handshake's log can name it; NUL terminated, cut at NVMF_TLS_IDENTITY_MAX bytes or
 * an embedded NUL; the client's bytes, not necessarily printable; "" before a ClientHello
 * with a PSK was read. Client side: its own). */
const char *nvmf_tls_peer_identity(const struct nvmf_tls *t);
/* The cipher suite's IANA name ("TLS_AES_128_GCM_SHA256"), "" before the handshake. */
const char *nvmf_tls_cipher(const struct nvmf_tls *t);
/* Whether the kernel does the record layer of transmit / receive (kTLS). */
bool nvmf_tls_ktls_tx(const struct nvmf_tls *t);
bool nvmf_tls_ktls_rx(const struct nvmf_tls *t);

/* Send close_notify (best effort, non-blocking, only after a finished handshake) and free.
 * NULL is a no-op. Does not close the fd. */
void nvmf_tls_free(struct nvmf_tls *t);

#endif
