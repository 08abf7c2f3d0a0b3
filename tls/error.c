/* SPDX-License-Identifier: MIT */
/* The handshake failure -> errno mapping (tls/error.h). The reasons are libssl's
 * (openssl/sslerr.h); a received alert is SSL_AD_REASON_OFFSET + its code (RFC 8446
 * section 6). */
#include "tls/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

static const char *reason_text(int reason)
{
	/* The strings are loaded on first use of libssl, which a caller may not have made. */
	OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS, NULL);
	const char *s = reason ? ERR_reason_error_string(ERR_PACK(ERR_LIB_SSL, 0, reason)) : NULL;
	return s ? s : "no reason given";
}

static int fail(char *err, size_t errlen, int rc, const char *what, int reason)
{
	if (err && errlen) {
		if (reason)
			snprintf(err, errlen, "%s (OpenSSL: %s)", what, reason_text(reason));
		else
			snprintf(err, errlen, "%s", what);
	}
	return rc;
}

static bool is_version(int r)
{
	return r == SSL_R_UNSUPPORTED_PROTOCOL || r == SSL_R_VERSION_TOO_LOW ||
	       r == SSL_R_UNSUPPORTED_SSL_VERSION || r == SSL_R_NO_PROTOCOLS_AVAILABLE ||
	       r == SSL_R_TLSV1_ALERT_PROTOCOL_VERSION;
}

/* Not a TLS record stream, or a malformed message. */
static bool is_garbage(int r)
{
	static const int garbage[] = {
		SSL_R_WRONG_VERSION_NUMBER,
		SSL_R_PACKET_LENGTH_TOO_LONG,
		SSL_R_UNKNOWN_PROTOCOL,
		SSL_R_HTTP_REQUEST,
		SSL_R_HTTPS_PROXY_REQUEST,
		SSL_R_BAD_PACKET_LENGTH,
		SSL_R_RECORD_LENGTH_MISMATCH,
		SSL_R_UNEXPECTED_RECORD,
		SSL_R_LENGTH_MISMATCH,
		SSL_R_BAD_RECORD_TYPE,
		SSL_R_UNEXPECTED_MESSAGE,
		SSL_R_BAD_PACKET,
		SSL_R_LENGTH_TOO_SHORT,
		SSL_R_BAD_EXTENSION,
		SSL_R_BAD_LENGTH,
		SSL_R_TLSV1_ALERT_DECODE_ERROR,
		SSL_R_SSLV3_ALERT_ILLEGAL_PARAMETER,
		SSL_R_SSLV3_ALERT_UNEXPECTED_MESSAGE,
	};
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++)
		if (r == garbage[i])
			return true;
	return false;
}

static bool is_bad_key(int r)
{
	return r == SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC ||
	       r == SSL_R_TLSV1_ALERT_DECRYPT_ERROR || r == SSL_R_SSLV3_ALERT_BAD_RECORD_MAC ||
	       r == SSL_R_TLSV1_ALERT_DECRYPTION_FAILED;
}

int nvmf_tls_map_failure(const struct nvmf_tls_failure *f, char *err, size_t errlen)
{
	int r = f->reason;

	if (f->ssl_error == SSL_ERROR_ZERO_RETURN)
		return fail(err, errlen, -ECONNRESET, "peer sent close_notify during the handshake",
			    0);
	if (f->ssl_error == SSL_ERROR_SYSCALL && r == 0) {
		if (f->sys_errno == 0)
			return fail(err, errlen, -ECONNRESET,
				    "peer closed the connection during the handshake", 0);
		char what[96];
		snprintf(what, sizeof(what), "socket error during the handshake: %s",
			 strerror(f->sys_errno));
		bool reset = f->sys_errno == ECONNRESET || f->sys_errno == EPIPE;
		return fail(err, errlen, reset ? -ECONNRESET : -f->sys_errno, what, 0);
	}
	if (r == SSL_R_UNEXPECTED_EOF_WHILE_READING)
		return fail(err, errlen, -ECONNRESET,
			    "peer closed the connection during the handshake", 0);
	if (is_version(r))
		return fail(err, errlen, -EPROTONOSUPPORT,
			    "peer does not speak TLS 1.3 (NVMe/TCP needs it)", r);
	/* OpenSSL servers answer a binder that does not verify with illegal_parameter (RFC
	 * 8446 says decrypt_error); our ClientHello is well formed, so the key is what is
	 * wrong. */
	if (!f->server && r == SSL_R_SSLV3_ALERT_ILLEGAL_PARAMETER)
		return fail(err, errlen, -EKEYREJECTED, "wrong PSK: the server rejected ours", r);
	if (is_garbage(r))
		return fail(err, errlen, -EPROTO,
			    f->server ? "not a TLS 1.3 handshake (garbage or malformed message)" :
					/* what a port without TLS answers a ClientHello with */
					"the port answered without TLS (a port without addr.tsas "
					"tls1.3, or not NVMe/TCP)",
			    r);
	if (r == SSL_R_BINDER_DOES_NOT_VERIFY)
		return fail(err, errlen, -EKEYREJECTED,
			    "wrong PSK: the client's binder does not verify", r);
	if (is_bad_key(r) && f->psk_found)
		return fail(err, errlen, -EKEYREJECTED,
			    f->server ? "wrong PSK: the client's messages do not decrypt" :
					"wrong PSK: the server rejected ours",
			    r);
	if (f->server && !f->psk_offered)
		return fail(err, errlen, -ENOKEY,
			    "the client offered no PSK (NVMe/TCP TLS needs one)", r);
	if (r == SSL_R_TLSV1_ALERT_UNKNOWN_PSK_IDENTITY)
		return fail(err, errlen, -ENOKEY, "the server has no PSK for our identity", r);
	if (!f->server && r == SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE)
		return fail(
			err, errlen, -ENOKEY,
			"the server refused the handshake (no PSK for our identity, or none of our parameters)",
			r);
	if (r == SSL_R_NO_SHARED_CIPHER || r == SSL_R_NO_CIPHERS_AVAILABLE)
		return fail(err, errlen, -EPROTONOSUPPORT, "no common cipher suite", r);
	if (r == SSL_R_NO_SUITABLE_KEY_SHARE)
		return fail(err, errlen, -EPROTONOSUPPORT,
			    "no common (EC)DHE group for the key share", r);
	if (r == SSL_R_MISSING_PSK_KEX_MODES_EXTENSION)
		return fail(err, errlen, -EPROTONOSUPPORT,
			    "the client offered a PSK without psk_key_exchange_modes", r);
	if (r == SSL_R_TLSV13_ALERT_MISSING_EXTENSION)
		return fail(err, errlen, -EPROTONOSUPPORT,
			    "the peer misses a TLS 1.3 extension it needs", r);
	return fail(err, errlen, -EPROTO, "TLS handshake failed", r);
}
