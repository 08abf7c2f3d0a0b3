/* The handshake failure -> errno mapping (tls/error.c), on the states OpenSSL leaves. */
#include <errno.h>
#include <string.h>

#include <openssl/ssl.h>

#include "tests/unit/suites.h"
#include "tls/error.h"

static int map(bool server, bool offered, bool found, int ssl_error, int reason, int sys_errno,
	       char *err)
{
	struct nvmf_tls_failure f = {
		.server = server,
		.psk_offered = offered,
		.psk_found = found,
		.ssl_error = ssl_error,
		.reason = reason,
		.sys_errno = sys_errno,
	};
	return nvmf_tls_map_failure(&f, err, 200);
}

static void each_reason_has_its_errno(void)
{
	char err[200];
	CU_ASSERT_EQUAL(map(true, true, true, SSL_ERROR_SSL, SSL_R_BINDER_DOES_NOT_VERIFY, 0, err),
			-EKEYREJECTED);
	CU_ASSERT(strstr(err, "binder does not verify") != NULL);
	CU_ASSERT_EQUAL(map(false, false, true, SSL_ERROR_SSL, SSL_R_TLSV1_ALERT_DECRYPT_ERROR, 0,
			    err),
			-EKEYREJECTED);
	CU_ASSERT_EQUAL(map(true, true, true, SSL_ERROR_SSL,
			    SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC, 0, err),
			-EKEYREJECTED);
	CU_ASSERT_EQUAL(map(false, false, true, SSL_ERROR_SSL, SSL_R_SSLV3_ALERT_ILLEGAL_PARAMETER,
			    0, err),
			-EKEYREJECTED);
	CU_ASSERT_EQUAL(map(true, true, true, SSL_ERROR_SSL, SSL_R_SSLV3_ALERT_ILLEGAL_PARAMETER, 0,
			    err),
			-EPROTO);
	/* No key in play: a bad MAC is just a broken stream. */
	CU_ASSERT_EQUAL(map(true, true, false, SSL_ERROR_SSL,
			    SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC, 0, err),
			-EPROTO);
	CU_ASSERT_EQUAL(map(true, false, false, SSL_ERROR_SSL, SSL_R_UNSUPPORTED_PROTOCOL, 0, err),
			-EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(map(false, false, true, SSL_ERROR_SSL, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION,
			    0, err),
			-EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(map(true, false, false, SSL_ERROR_SSL, SSL_R_WRONG_VERSION_NUMBER, 0, err),
			-EPROTO);
	CU_ASSERT(strstr(err, "wrong version number") != NULL);
	CU_ASSERT_EQUAL(map(true, false, false, SSL_ERROR_SSL, SSL_R_PACKET_LENGTH_TOO_LONG, 0,
			    err),
			-EPROTO);
	CU_ASSERT_EQUAL(map(true, true, true, SSL_ERROR_SSL, SSL_R_NO_SUITABLE_KEY_SHARE, 0, err),
			-EPROTONOSUPPORT);
	CU_ASSERT(strstr(err, "key share") != NULL);
	CU_ASSERT_EQUAL(map(true, true, false, SSL_ERROR_SSL, SSL_R_MISSING_PSK_KEX_MODES_EXTENSION,
			    0, err),
			-EPROTONOSUPPORT);
	CU_ASSERT(strstr(err, "psk_key_exchange_modes") != NULL);
	CU_ASSERT_EQUAL(map(true, true, true, SSL_ERROR_SSL, SSL_R_NO_SHARED_CIPHER, 0, err),
			-EPROTONOSUPPORT);
	/* A TLS 1.3 server without a PSK offered fails for want of a certificate. */
	CU_ASSERT_EQUAL(map(true, false, false, SSL_ERROR_SSL,
			    SSL_R_NO_SUITABLE_SIGNATURE_ALGORITHM, 0, err),
			-ENOKEY);
	CU_ASSERT_EQUAL(map(false, false, true, SSL_ERROR_SSL,
			    SSL_R_TLSV1_ALERT_UNKNOWN_PSK_IDENTITY, 0, err),
			-ENOKEY);
	CU_ASSERT_EQUAL(map(false, false, true, SSL_ERROR_SSL, SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE,
			    0, err),
			-ENOKEY);
	CU_ASSERT_EQUAL(map(true, true, true, SSL_ERROR_SSL, SSL_R_TLSV1_ALERT_INTERNAL_ERROR, 0,
			    err),
			-EPROTO);
}

static void a_gone_peer_is_econnreset(void)
{
	char err[200];
	CU_ASSERT_EQUAL(map(true, false, false, SSL_ERROR_SYSCALL, 0, 0, err), -ECONNRESET);
	CU_ASSERT_EQUAL(map(true, false, false, SSL_ERROR_SYSCALL, 0, EPIPE, err), -ECONNRESET);
	CU_ASSERT_EQUAL(map(true, false, false, SSL_ERROR_SYSCALL, 0, ECONNRESET, err),
			-ECONNRESET);
	CU_ASSERT_EQUAL(map(true, false, false, SSL_ERROR_SYSCALL, 0, EBADF, err), -EBADF);
	CU_ASSERT_EQUAL(map(false, false, true, SSL_ERROR_SSL, SSL_R_UNEXPECTED_EOF_WHILE_READING,
			    0, err),
			-ECONNRESET);
	CU_ASSERT_EQUAL(map(false, false, true, SSL_ERROR_ZERO_RETURN, 0, 0, err), -ECONNRESET);
	CU_ASSERT(strstr(err, "close_notify") != NULL);
	CU_ASSERT_EQUAL(map(false, false, true, SSL_ERROR_ZERO_RETURN, 0, 0, NULL), -ECONNRESET);
}

const struct unit_test tls_error_tests[] = {
	{ "each_reason_has_its_errno", each_reason_has_its_errno },
	{ "a_gone_peer_is_econnreset", a_gone_peer_is_econnreset },
	{ NULL, NULL },
};
