/* SPDX-License-Identifier: MIT */
/* The TLS 1.3 PSK channel of NVMe/TCP over OpenSSL 3 (tls/channel.h). */
#include "tls/channel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "tls/error.h"

/* The largest record's plaintext (RFC 8446 section 5.1): what sendv stages at most. */
#define TLS_RECORD_MAX     16384
/* TLS extension numbers (RFC 8446 section 4.2) and the psk_dhe_ke mode (4.2.9). */
#define EXT_PRE_SHARED_KEY 41
#define EXT_PSK_KEX_MODES  45
#define PSK_DHE_KE         1

struct nvmf_tls {
	SSL_CTX *ctx;
	SSL *ssl;
	bool server;
	bool done;
	bool want_write;
	bool psk_offered; /* server: the ClientHello had a pre_shared_key extension */
	bool psk_found;   /* server: find() gave a key for its first identity */
	bool ktls_tx;     /* the kernel does the record layer of transmit (after the handshake) */
	bool ktls_rx;
	int fail; /* a negative errno once the handshake failed, else 0 */
	/* Room for a message naming an NQN (up to 223 bytes) twice. */
	char fail_msg[640];
	nvmf_tls_psk_find_fn find;
	void *find_arg;
	uint8_t psk[NVMF_TLS_PSK_MAX];
	size_t psklen;
	int hash;
	/* The identity as sent (idlen bytes) and NUL terminated for nvmf_tls_peer_identity. */
	char identity[NVMF_TLS_IDENTITY_MAX + 1];
	size_t idlen;
	size_t stage_len; /* staged bytes of one record, from stage[0] */
	uint8_t stage[TLS_RECORD_MAX];
};

static void set_err(char *err, size_t errlen, const char *fmt, const char *arg)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, arg);
}

static const char *suite_of(int hash)
{
	return hash == NVMF_TLS_SHA384 ? "TLS_AES_256_GCM_SHA384" : "TLS_AES_128_GCM_SHA256";
}

/* The session OpenSSL resumes as the external PSK (RFC 8446 section 4.2.11): the key as
 * its master key, the cipher of the key's hash. NULL when out of memory. */
static SSL_SESSION *psk_session(SSL *ssl, const struct nvmf_tls *t)
{
	const unsigned char id[2] = { 0x13, t->hash == NVMF_TLS_SHA384 ? 0x02 : 0x01 };
	const SSL_CIPHER *c = SSL_CIPHER_find(ssl, id);
	SSL_SESSION *s = c ? SSL_SESSION_new() : NULL;
	if (!s)
		return NULL;
	if (!SSL_SESSION_set1_master_key(s, t->psk, t->psklen) || !SSL_SESSION_set_cipher(s, c) ||
	    !SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION)) {
		SSL_SESSION_free(s);
		return NULL;
	}
	return s;
}

/* Client: offer our one identity. @md is the handshake hash after a HelloRetryRequest:
 * a key of another hash cannot be offered then (never the case: one cipher offered). */
static int use_session_cb(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
			  SSL_SESSION **sess)
{
	struct nvmf_tls *t = SSL_get_app_data(ssl);
	const EVP_MD *ours = t->hash == NVMF_TLS_SHA384 ? EVP_sha384() : EVP_sha256();
	*sess = NULL;
	if (md && !EVP_MD_is_a(md, EVP_MD_get0_name(ours)))
		return 1;
	*sess = psk_session(ssl, t);
	if (!*sess)
		return 0;
	*id = (const unsigned char *)t->identity;
	*idlen = t->idlen;
	return 1;
}

/* Server: the key of the identity the ClientHello callback looked up (OpenSSL asks for
 * each identity offered; the others are not ours). */
static int find_session_cb(SSL *ssl, const unsigned char *id, size_t idlen, SSL_SESSION **sess)
{
	struct nvmf_tls *t = SSL_get_app_data(ssl);
	*sess = NULL;
	if (!t->psk_found || idlen != t->idlen || memcmp(id, t->identity, idlen) != 0)
		return 1;
	*sess = psk_session(ssl, t);
	return *sess != NULL;
}

static uint16_t be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Whether the psk_key_exchange_modes extension offers psk_dhe_ke. */
static bool offers_dhe(SSL *ssl)
{
	const unsigned char *p;
	size_t len;
	if (!SSL_client_hello_get0_ext(ssl, EXT_PSK_KEX_MODES, &p, &len) || len < 1 ||
	    p[0] != len - 1)
		return false;
	for (size_t i = 1; i < len; i++)
		if (p[i] == PSK_DHE_KE)
			return true;
	return false;
}

static int refuse(struct nvmf_tls *t, int *al, int alert, int rc, const char *fmt, const char *arg)
{
	t->fail = rc;
	set_err(t->fail_msg, sizeof(t->fail_msg), fmt, arg);
	*al = alert;
	return SSL_CLIENT_HELLO_ERROR;
}

/* Server, before OpenSSL picks the cipher: look up the first identity offered, so that
 * the cipher of its key's hash is the one chosen (OpenSSL ignores a PSK whose hash is not
 * the chosen cipher's), and refuse PSK without (EC)DHE. Without a PSK extension, let
 * OpenSSL go on and fail for lack of a certificate (after its version checks). */
static int client_hello_cb(SSL *ssl, int *al, void *arg)
{
	struct nvmf_tls *t = arg;
	const unsigned char *p;
	size_t len;
	if (!SSL_client_hello_get0_ext(ssl, EXT_PRE_SHARED_KEY, &p, &len))
		return SSL_CLIENT_HELLO_SUCCESS;
	t->psk_offered = true;
	if (t->psk_found)
		return SSL_CLIENT_HELLO_SUCCESS; /* the second ClientHello, after a HelloRetryRequest */
	/* OfferedPsks: identities<7..2^16-1> of { opaque identity<1..2^16-1>; uint32 age; }. */
	if (len < 4 || be16(p) + 2u > len || be16(p + 2) + 4u > be16(p))
		return SSL_CLIENT_HELLO_SUCCESS; /* OpenSSL's parser names it */
	size_t idlen = be16(p + 2);
	const char *id = (const char *)p + 4;
	size_t shown = idlen < NVMF_TLS_IDENTITY_MAX ? idlen : NVMF_TLS_IDENTITY_MAX;
	memcpy(t->identity, id, shown);
	t->identity[shown] = '\0';
	t->idlen = shown;
	if (idlen == 0 || idlen > NVMF_TLS_IDENTITY_MAX)
		return refuse(t, al, SSL_AD_ILLEGAL_PARAMETER, -EPROTO, "PSK identity of %s length",
			      idlen ? "too large a" : "zero");
	if (!offers_dhe(ssl))
		return refuse(t, al, SSL_AD_HANDSHAKE_FAILURE, -EPROTONOSUPPORT,
			      "the client offers PSK without (EC)DHE (%s)",
			      SSL_client_hello_get0_ext(ssl, EXT_PSK_KEX_MODES, &p, &len) ?
				      "psk_ke only" :
				      "no psk_key_exchange_modes");
	char why[512] = "";
	int hash = 0;
	size_t psklen = 0;
	int rc = t->find(t->find_arg, id, idlen, t->psk, &psklen, &hash, why, sizeof(why));
	if (rc < 0) {
		OPENSSL_cleanse(t->psk, sizeof(t->psk));
		int alert = rc == -ENOKEY       ? SSL_AD_UNKNOWN_PSK_IDENTITY :
			    rc == -EKEYREJECTED ? SSL_AD_DECRYPT_ERROR :
						  SSL_AD_INTERNAL_ERROR;
		const char *what = rc == -ENOKEY       ? "no PSK for the client's identity" :
				   rc == -EKEYREJECTED ? "the client's PSK is refused" :
							 "PSK lookup failed";
		char msg[sizeof(t->fail_msg)];
		snprintf(msg, sizeof(msg), "%s%s%s", what, why[0] ? ": " : "", why);
		return refuse(t, al, alert, rc, "%s", msg);
	}
	if ((hash != NVMF_TLS_SHA256 && hash != NVMF_TLS_SHA384) || psklen == 0 ||
	    psklen > NVMF_TLS_PSK_MAX) {
		OPENSSL_cleanse(t->psk, sizeof(t->psk));
		return refuse(t, al, SSL_AD_INTERNAL_ERROR, -EINVAL,
			      "the PSK lookup gave a bad hash or key length%s", "");
	}
	t->psklen = psklen;
	t->hash = hash;
	t->psk_found = true;
	if (!SSL_set_ciphersuites(ssl, suite_of(hash)))
		return refuse(t, al, SSL_AD_INTERNAL_ERROR, -ENOMEM,
			      "cannot set the cipher suite%s", "");
	return SSL_CLIENT_HELLO_SUCCESS;
}

/* The context and session both sides share: TLS 1.3 only, no tickets, no renegotiation,
 * no early data (OpenSSL's default 0), kTLS when the kernel has it, and writes that may
 * be partial and resumed from another buffer (our staging). */
static int session_new(struct nvmf_tls *t, int fd, const char *suites, char *err, size_t errlen)
{
	t->ctx = SSL_CTX_new(t->server ? TLS_server_method() : TLS_client_method());
	if (!t->ctx)
		goto fail;
	if (!SSL_CTX_set_min_proto_version(t->ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_max_proto_version(t->ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_ciphersuites(t->ctx, suites) || !SSL_CTX_set_num_tickets(t->ctx, 0))
		goto fail;
	SSL_CTX_set_options(t->ctx,
			    SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION | SSL_OP_ENABLE_KTLS);
	SSL_CTX_set_mode(t->ctx,
			 SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_session_cache_mode(t->ctx, SSL_SESS_CACHE_OFF);
	if (t->server)
		SSL_CTX_set_client_hello_cb(t->ctx, client_hello_cb, t);
	t->ssl = SSL_new(t->ctx);
	if (!t->ssl || !SSL_set_fd(t->ssl, fd))
		goto fail;
	SSL_set_app_data(t->ssl, t);
	if (t->server) {
		SSL_set_accept_state(t->ssl);
		SSL_set_psk_find_session_callback(t->ssl, find_session_cb);
	} else {
		SSL_set_connect_state(t->ssl);
		SSL_set_psk_use_session_callback(t->ssl, use_session_cb);
	}
	return 0;
fail:;
	unsigned long e = ERR_get_error();
	bool oom = ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE;
	char why[128];
	ERR_error_string_n(e, why, sizeof(why));
	set_err(err, errlen, "cannot set up the TLS session: %s", why);
	ERR_clear_error();
	return oom ? -ENOMEM : -EIO;
}

static struct nvmf_tls *tls_alloc(bool server, char *err, size_t errlen)
{
	struct nvmf_tls *t = calloc(1, sizeof(*t));
	if (!t)
		set_err(err, errlen, "%s", "out of memory");
	else
		t->server = server;
	return t;
}

int nvmf_tls_server_new(int fd, nvmf_tls_psk_find_fn find, void *arg, struct nvmf_tls **out,
			char *err, size_t errlen)
{
	if (!find) {
		set_err(err, errlen, "%s", "a TLS server needs a PSK lookup");
		return -EINVAL;
	}
	struct nvmf_tls *t = tls_alloc(true, err, errlen);
	if (!t)
		return -ENOMEM;
	t->find = find;
	t->find_arg = arg;
	int rc = session_new(t, fd, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384", err, errlen);
	if (rc < 0) {
		nvmf_tls_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int nvmf_tls_client_new(int fd, const char *identity, const uint8_t *psk, size_t psklen, int hash,
			struct nvmf_tls **out, char *err, size_t errlen)
{
	size_t idlen = identity ? strlen(identity) : 0;
	if (idlen == 0 || idlen > NVMF_TLS_IDENTITY_MAX || !psk || psklen == 0 ||
	    psklen > NVMF_TLS_PSK_MAX || (hash != NVMF_TLS_SHA256 && hash != NVMF_TLS_SHA384)) {
		set_err(err, errlen, "%s",
			"bad TLS client parameters (identity, PSK length or hash)");
		return -EINVAL;
	}
	struct nvmf_tls *t = tls_alloc(false, err, errlen);
	if (!t)
		return -ENOMEM;
	memcpy(t->identity, identity, idlen + 1);
	t->idlen = idlen;
	memcpy(t->psk, psk, psklen);
	t->psklen = psklen;
	t->hash = hash;
	int rc = session_new(t, fd, suite_of(hash), err, errlen);
	if (rc < 0) {
		nvmf_tls_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int nvmf_tls_handshake(struct nvmf_tls *t, char *err, size_t errlen)
{
	if (t->done)
		return 0;
	if (t->fail) {
		set_err(err, errlen, "%s", t->fail_msg);
		return t->fail;
	}
	ERR_clear_error();
	errno = 0;
	int r = SSL_do_handshake(t->ssl);
	int sys_errno = errno;
	int e = r == 1 ? SSL_ERROR_NONE : SSL_get_error(t->ssl, r);
	t->want_write = e == SSL_ERROR_WANT_WRITE;
	if (r == 1) {
		t->done = true;
		t->ktls_tx = BIO_get_ktls_send(SSL_get_wbio(t->ssl));
		t->ktls_rx = BIO_get_ktls_recv(SSL_get_rbio(t->ssl));
		/* The key stays in OpenSSL's session; ours is no longer needed. */
		OPENSSL_cleanse(t->psk, sizeof(t->psk));
	} else if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		ERR_clear_error();
		return -EAGAIN;
	} else if (!t->fail) {
		unsigned long first = ERR_peek_error();
		struct nvmf_tls_failure f = {
			.server = t->server,
			.psk_offered = t->psk_offered,
			.psk_found = t->server ? t->psk_found : true,
			.ssl_error = e,
			.reason = ERR_GET_LIB(first) == ERR_LIB_SSL ? ERR_GET_REASON(first) : 0,
			.sys_errno = sys_errno,
		};
		t->fail = nvmf_tls_map_failure(&f, t->fail_msg, sizeof(t->fail_msg));
	}
	ERR_clear_error();
	if (t->fail) {
		OPENSSL_cleanse(t->psk, sizeof(t->psk));
		set_err(err, errlen, "%s", t->fail_msg);
		return t->fail;
	}
	return 0;
}

bool nvmf_tls_want_write(const struct nvmf_tls *t)
{
	return t->want_write;
}

ssize_t nvmf_tls_recv(struct nvmf_tls *t, void *buf, size_t len)
{
	if (!t->done) {
		errno = EINVAL;
		return -1;
	}
	if (len == 0)
		return 0;
	ERR_clear_error();
	errno = 0;
	size_t n = 0;
	int r = SSL_read_ex(t->ssl, buf, len, &n);
	int sys_errno = errno;
	if (r == 1)
		return (ssize_t)n;
	int e = SSL_get_error(t->ssl, r);
	int reason = ERR_GET_REASON(ERR_peek_error());
	ERR_clear_error();
	switch (e) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_SYSCALL:
		if (sys_errno == 0)
			return 0;
		errno = sys_errno == EPIPE ? ECONNRESET : sys_errno;
		return -1;
	default:
		/* OpenSSL 3 reports an EOF without close_notify as this error. */
		if (reason == SSL_R_UNEXPECTED_EOF_WHILE_READING)
			return 0;
		errno = EPROTO;
		return -1;
	}
}

bool nvmf_tls_rx_pending(const struct nvmf_tls *t)
{
	return t->done && SSL_pending(t->ssl) > 0;
}

/* Write @len bytes (one record at most) at @p: 1 all written, 0 OpenSSL kept them for a
 * retry with the same bytes (EAGAIN), -1 errno set. */
static int write_record(struct nvmf_tls *t, const void *p, size_t len, size_t *written)
{
	ERR_clear_error();
	errno = 0;
	int r = SSL_write_ex(t->ssl, p, len, written);
	int sys_errno = errno;
	if (r == 1)
		return 1;
	int e = SSL_get_error(t->ssl, r);
	ERR_clear_error();
	if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ)
		return 0;
	if (e == SSL_ERROR_SYSCALL && sys_errno != 0)
		errno = sys_errno == ECONNRESET ? ECONNRESET : EPIPE;
	else
		errno = EPIPE;
	return -1;
}

int nvmf_tls_flush(struct nvmf_tls *t)
{
	while (t->stage_len) {
		size_t w = 0;
		int r = write_record(t, t->stage, t->stage_len, &w);
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = EAGAIN;
			return -1;
		}
		memmove(t->stage, t->stage + w, t->stage_len - w);
		t->stage_len -= w;
	}
	return 0;
}

bool nvmf_tls_tx_pending(const struct nvmf_tls *t)
{
	return t->stage_len > 0;
}

ssize_t nvmf_tls_sendv(struct nvmf_tls *t, const struct iovec *iov, int cnt)
{
	if (!t->done) {
		errno = EINVAL;
		return -1;
	}
	if (nvmf_tls_flush(t) < 0)
		return -1;
	if (t->ktls_tx) {
		/* The kernel frames and encrypts what is sent on the socket: the caller's iovecs
		 * go out as in the clear, in one call and with no copy. (SSL_write would send a
		 * record a call, each first copied into stage: see the header.) */
		struct msghdr msg = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)cnt };
		ssize_t n;
		do
			n = sendmsg(SSL_get_wfd(t->ssl), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		return n;
	}
	size_t taken = 0, off = 0; /* off: into iov[i] */
	int i = 0;
	for (;;) {
		while (i < cnt && off == iov[i].iov_len) {
			i++;
			off = 0;
		}
		if (i == cnt)
			return (ssize_t)taken;
		/* One record: straight from the caller's buffer when it holds it whole (a full
		 * record, or the last bytes offered), else small pieces gathered into stage. */
		const uint8_t *p = (const uint8_t *)iov[i].iov_base + off;
		size_t len = iov[i].iov_len - off;
		bool last = true;
		for (int j = i + 1; j < cnt && last; j++)
			last = iov[j].iov_len == 0;
		if (len >= TLS_RECORD_MAX) {
			len = TLS_RECORD_MAX;
			off += len;
		} else if (last) {
			off += len;
		} else {
			len = 0;
			while (i < cnt && len < TLS_RECORD_MAX) {
				size_t n = iov[i].iov_len - off;
				if (n > TLS_RECORD_MAX - len)
					n = TLS_RECORD_MAX - len;
				memcpy(t->stage + len, (const uint8_t *)iov[i].iov_base + off, n);
				len += n;
				off += n;
				if (off == iov[i].iov_len) {
					i++;
					off = 0;
				}
			}
			p = t->stage;
		}
		size_t w = 0;
		int r = write_record(t, p, len, &w);
		if (r < 0)
			return taken ? (ssize_t)taken : -1;
		if (r == 0) {
			/* OpenSSL holds the record half written: keep its bytes for the retry. */
			if (p != t->stage)
				memcpy(t->stage, p, len);
			t->stage_len = len;
			return (ssize_t)(taken + len);
		}
		if (w < len) {
			/* A partial write of one record: keep the rest staged. */
			memmove(t->stage, p + w, len - w);
			t->stage_len = len - w;
			return (ssize_t)(taken + len);
		}
		taken += len;
	}
}

const char *nvmf_tls_peer_identity(const struct nvmf_tls *t)
{
	return t->identity;
}

const char *nvmf_tls_cipher(const struct nvmf_tls *t)
{
	const SSL_CIPHER *c = t->done ? SSL_get_current_cipher(t->ssl) : NULL;
	const char *name = c ? SSL_CIPHER_standard_name(c) : NULL;
	return name ? name : "";
}

bool nvmf_tls_ktls_tx(const struct nvmf_tls *t)
{
	return t->ktls_tx;
}

bool nvmf_tls_ktls_rx(const struct nvmf_tls *t)
{
	return t->ktls_rx;
}

void nvmf_tls_free(struct nvmf_tls *t)
{
	if (!t)
		return;
	if (t->ssl && t->done && !t->fail) {
		/* close_notify, best effort: a full socket or a gone peer just loses it. */
		SSL_shutdown(t->ssl);
	}
	ERR_clear_error();
	SSL_free(t->ssl);
	SSL_CTX_free(t->ctx);
	OPENSSL_cleanse(t->psk, sizeof(t->psk));
	free(t);
}
