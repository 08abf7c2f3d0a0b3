/* SPDX-License-Identifier: MIT */
/*
 * Why a TLS handshake failed, as the errno the channel returns (tls/channel.h) and a
 * one-line reason for the log. Pure: the channel reduces OpenSSL's state after the failed
 * call (SSL_get_error, the reason of the first error queued, errno) to a struct
 * nvmf_tls_failure and this maps it; OpenSSL is asked only for its reason text.
 */
#ifndef NVMF_TLS_ERROR_H
#define NVMF_TLS_ERROR_H

#include <stdbool.h>
#include <stddef.h>

/* What a failed SSL_do_handshake left, reduced to what the mapping needs. */
struct nvmf_tls_failure {
	bool server;      /* our side of the handshake */
	bool psk_offered; /* server: the ClientHello carried a pre_shared_key extension */
	bool psk_found;   /* server: a key was found for it; client: always (we offer one) */
	int ssl_error;    /* SSL_get_error() of the failed call (SSL_ERROR_*) */
	int reason;       /* ERR_GET_REASON() of the first error queued by libssl, 0 none */
	int sys_errno;    /* errno after the call, for SSL_ERROR_SYSCALL (0: EOF) */
};

/* The negative errno of tls/channel.h's nvmf_tls_handshake() for @f (-ENOKEY,
 * -EKEYREJECTED, -EPROTONOSUPPORT, -EPROTO, -ECONNRESET, or -sys_errno for another
 * socket error) and in @err (@errlen bytes, may be NULL) one line saying why, with
 * OpenSSL's reason when it gave one (never key material). */
int nvmf_tls_map_failure(const struct nvmf_tls_failure *f, char *err, size_t errlen);

#endif
