/* The TLS 1.3 PSK channel (tls/channel.c) over a socketpair, both ends non-blocking,
 * driven in this one thread: handshakes with SHA-256 and SHA-384 PSKs, 1 MiB each way
 * through sendv/recv with random iov splits, buffered plaintext (rx_pending), staging
 * under a full socket buffer, and each handshake failure's errno (wrong key, unknown
 * identity, TLS 1.2, garbage, an NVMe/TCP ICReq, a peer gone, a client without PSK). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "tests/unit/suites.h"
#include "tls/channel.h"

#define ID_A "NVMe0R01 nqn.2014-08.org.nvmexpress:uuid:host-a nqn.2014-08.org.example:sub"
#define ID_B "NVMe0R02 nqn.2014-08.org.nvmexpress:uuid:host-b nqn.2014-08.org.example:sub"

static const uint8_t key32[32] = { 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
				   17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };
static uint8_t key48[48];

/* The server's key table: ID_A has key32 (SHA-256), ID_B key48 (SHA-384); "refused"
 * answers -EKEYREJECTED; anything else -ENOKEY. */
struct keys {
	int calls;
	char last[NVMF_TLS_IDENTITY_MAX + 1];
};

static int find_key(void *arg, const char *identity, size_t idlen, uint8_t *psk, size_t *psklen,
		    int *hash, char *why, size_t whylen)
{
	struct keys *k = arg;
	k->calls++;
	memcpy(k->last, identity, idlen);
	k->last[idlen] = '\0';
	if (idlen == strlen(ID_A) && memcmp(identity, ID_A, idlen) == 0) {
		memcpy(psk, key32, sizeof(key32));
		*psklen = sizeof(key32);
		*hash = NVMF_TLS_SHA256;
		return 0;
	}
	if (idlen == strlen(ID_B) && memcmp(identity, ID_B, idlen) == 0) {
		for (size_t i = 0; i < sizeof(key48); i++)
			key48[i] = (uint8_t)(0xa0 + i);
		memcpy(psk, key48, sizeof(key48));
		*psklen = sizeof(key48);
		*hash = NVMF_TLS_SHA384;
		return 0;
	}
	if (idlen == 7 && memcmp(identity, "refused", 7) == 0) {
		snprintf(why, whylen, "host refused");
		return -EKEYREJECTED;
	}
	snprintf(why, whylen, "unknown host");
	return -ENOKEY;
}

static void nonblock(int fd)
{
	CU_ASSERT_FATAL(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0);
}

/* fds[0] the client's end, fds[1] the server's. */
static void pair(int fds[2])
{
	signal(SIGPIPE, SIG_IGN);
	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
	nonblock(fds[0]);
	nonblock(fds[1]);
}

/* Drive both handshakes until each is done or failed (a side that failed is not called
 * again; the other goes on until it fails too or has nothing left to read). */
static void pump_handshake(struct nvmf_tls *c, struct nvmf_tls *s, int *crc, int *src, char *cerr,
			   char *serr)
{
	*crc = *src = -EAGAIN;
	for (int i = 0; i < 1000 && (*crc == -EAGAIN || *src == -EAGAIN); i++) {
		if (c && *crc == -EAGAIN)
			*crc = nvmf_tls_handshake(c, cerr, 256);
		if (s && *src == -EAGAIN)
			*src = nvmf_tls_handshake(s, serr, 256);
	}
}

struct duo {
	int fds[2];
	struct keys keys;
	struct nvmf_tls *c, *s;
	int crc, src;
	char cerr[256], serr[256];
};

static void duo_open(struct duo *d, const char *id, const uint8_t *psk, size_t psklen, int hash)
{
	memset(d, 0, sizeof(*d));
	pair(d->fds);
	char err[256];
	CU_ASSERT_FATAL(nvmf_tls_client_new(d->fds[0], id, psk, psklen, hash, &d->c, err,
					    sizeof(err)) == 0);
	CU_ASSERT_FATAL(
		nvmf_tls_server_new(d->fds[1], find_key, &d->keys, &d->s, err, sizeof(err)) == 0);
	CU_ASSERT_STRING_EQUAL(nvmf_tls_peer_identity(d->s), "");
	CU_ASSERT_STRING_EQUAL(nvmf_tls_cipher(d->s), "");
	pump_handshake(d->c, d->s, &d->crc, &d->src, d->cerr, d->serr);
}

static void duo_close(struct duo *d)
{
	nvmf_tls_free(d->c);
	nvmf_tls_free(d->s);
	close(d->fds[0]);
	close(d->fds[1]);
}

static void sha256_psk_gives_aes128_gcm(void)
{
	struct duo d;
	duo_open(&d, ID_A, key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_EQUAL(d.crc, 0);
	CU_ASSERT_EQUAL(d.src, 0);
	CU_ASSERT_STRING_EQUAL(nvmf_tls_cipher(d.c), "TLS_AES_128_GCM_SHA256");
	CU_ASSERT_STRING_EQUAL(nvmf_tls_cipher(d.s), "TLS_AES_128_GCM_SHA256");
	CU_ASSERT_STRING_EQUAL(nvmf_tls_peer_identity(d.s), ID_A);
	CU_ASSERT_EQUAL(d.keys.calls, 1);
	/* No tls ULP on a Unix socket. */
	CU_ASSERT_FALSE(nvmf_tls_ktls_tx(d.s));
	CU_ASSERT_FALSE(nvmf_tls_ktls_rx(d.s));
	CU_ASSERT_EQUAL(nvmf_tls_handshake(d.s, NULL, 0), 0);
	duo_close(&d);
}

static void sha384_psk_gives_aes256_gcm(void)
{
	struct duo d;
	uint8_t k[48];
	for (size_t i = 0; i < sizeof(k); i++)
		k[i] = (uint8_t)(0xa0 + i);
	duo_open(&d, ID_B, k, sizeof(k), NVMF_TLS_SHA384);
	CU_ASSERT_EQUAL(d.crc, 0);
	CU_ASSERT_EQUAL(d.src, 0);
	CU_ASSERT_STRING_EQUAL(nvmf_tls_cipher(d.c), "TLS_AES_256_GCM_SHA384");
	CU_ASSERT_STRING_EQUAL(nvmf_tls_cipher(d.s), "TLS_AES_256_GCM_SHA384");
	CU_ASSERT_STRING_EQUAL(nvmf_tls_peer_identity(d.s), ID_B);
	duo_close(&d);
}

/* One side's stream: what it sends (src, sent of len) and what it received (dst, got). */
struct stream {
	uint8_t *src, *dst;
	size_t len, sent, got;
	bool saw_staged;
};

/* Offer the next bytes of @st in 1..8 random pieces (empty ones too). */
static void send_some(struct nvmf_tls *t, struct stream *st, unsigned *seed)
{
	if (nvmf_tls_tx_pending(t)) {
		st->saw_staged = true;
		if (nvmf_tls_flush(t) < 0) {
			CU_ASSERT_EQUAL(errno, EAGAIN);
			return;
		}
	}
	size_t window = st->len - st->sent;
	if (window == 0)
		return;
	if (window > 70000)
		window = 1 + (size_t)rand_r(seed) % 70000;
	struct iovec iov[8];
	int cnt = 1 + rand_r(seed) % 8;
	size_t off = st->sent, left = window;
	for (int i = 0; i < cnt; i++) {
		size_t n = i == cnt - 1 ? left : (size_t)rand_r(seed) % (left + 1);
		iov[i].iov_base = st->src + off;
		iov[i].iov_len = n;
		off += n;
		left -= n;
	}
	ssize_t n = nvmf_tls_sendv(t, iov, cnt);
	if (n < 0) {
		CU_ASSERT_EQUAL(errno, EAGAIN);
		return;
	}
	CU_ASSERT(n > 0 && (size_t)n <= window);
	st->sent += (size_t)n;
}

/* Read what is there in random sizes, and what is buffered inside without waiting. */
static void recv_some(struct nvmf_tls *t, struct stream *st, unsigned *seed)
{
	for (;;) {
		size_t want = 1 + (size_t)rand_r(seed) % 40000;
		if (want > st->len - st->got)
			want = st->len - st->got;
		if (want == 0)
			return;
		ssize_t n = nvmf_tls_recv(t, st->dst + st->got, want);
		if (n < 0) {
			CU_ASSERT_EQUAL(errno, EAGAIN);
			CU_ASSERT_FALSE(nvmf_tls_rx_pending(t));
			return;
		}
		CU_ASSERT_FATAL(n > 0);
		st->got += (size_t)n;
	}
}

static uint8_t *random_bytes(size_t len, unsigned *seed)
{
	uint8_t *p = malloc(len);
	CU_ASSERT_FATAL(p != NULL);
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)rand_r(seed);
	return p;
}

/* 1 MiB each way, both sides sending and receiving in the same loop. */
static void exchange(struct duo *d, size_t len, unsigned seed, bool *staged)
{
	struct stream a = { .src = random_bytes(len, &seed), .dst = calloc(1, len), .len = len };
	struct stream b = { .src = random_bytes(len, &seed), .dst = calloc(1, len), .len = len };
	CU_ASSERT_FATAL(a.dst && b.dst);
	for (int i = 0; i < 200000 && (a.got < len || b.got < len); i++) {
		send_some(d->c, &a, &seed);
		send_some(d->s, &b, &seed);
		recv_some(d->s, &a, &seed);
		recv_some(d->c, &b, &seed);
	}
	CU_ASSERT_EQUAL(a.got, len);
	CU_ASSERT_EQUAL(b.got, len);
	CU_ASSERT(memcmp(a.src, a.dst, len) == 0);
	CU_ASSERT(memcmp(b.src, b.dst, len) == 0);
	CU_ASSERT_FALSE(nvmf_tls_tx_pending(d->c));
	CU_ASSERT_FALSE(nvmf_tls_tx_pending(d->s));
	if (staged)
		*staged = a.saw_staged || b.saw_staged;
	free(a.src);
	free(a.dst);
	free(b.src);
	free(b.dst);
}

static void a_mebibyte_each_way_in_random_pieces_arrives_whole(void)
{
	struct duo d;
	duo_open(&d, ID_A, key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_FATAL(d.crc == 0 && d.src == 0);
	exchange(&d, 1 << 20, 42, NULL);
	duo_close(&d);
}

/* A record read in small pieces: the rest is inside the channel, the socket is empty
 * (poll reports nothing), and rx_pending says to read on. */
static void buffered_plaintext_is_read_without_an_event(void)
{
	struct duo d;
	duo_open(&d, ID_A, key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_FATAL(d.crc == 0 && d.src == 0);
	uint8_t out[10000], in[10000];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7);
	struct iovec iov = { out, sizeof(out) };
	CU_ASSERT_EQUAL(nvmf_tls_sendv(d.c, &iov, 1), (ssize_t)sizeof(out));
	CU_ASSERT_FALSE(nvmf_tls_rx_pending(d.s));
	CU_ASSERT_EQUAL(nvmf_tls_recv(d.s, in, 100), 100);
	size_t got = 100;
	struct pollfd p = { .fd = d.fds[1], .events = POLLIN };
	CU_ASSERT_EQUAL(poll(&p, 1, 0), 0);
	while (nvmf_tls_rx_pending(d.s)) {
		ssize_t n = nvmf_tls_recv(d.s, in + got, 333);
		CU_ASSERT_FATAL(n > 0);
		got += (size_t)n;
	}
	CU_ASSERT_EQUAL(got, sizeof(out));
	CU_ASSERT(memcmp(in, out, sizeof(out)) == 0);
	CU_ASSERT_EQUAL(nvmf_tls_recv(d.s, in, 1), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	duo_close(&d);
}

/* Small socket buffers: records are left half written, staged, and still every byte
 * arrives in order. */
static void staging_under_a_full_socket_keeps_every_byte_in_order(void)
{
	struct duo d;
	duo_open(&d, ID_A, key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_FATAL(d.crc == 0 && d.src == 0);
	int small = 4096;
	for (int i = 0; i < 2; i++) {
		CU_ASSERT(setsockopt(d.fds[i], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) == 0);
		CU_ASSERT(setsockopt(d.fds[i], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) == 0);
	}
	/* Fill the client's socket: the first record that does not fit whole is staged
	 * (taken), and then nothing more is taken until it is flushed. */
	static uint8_t big[1 << 16];
	struct iovec iov = { big, sizeof(big) };
	ssize_t n = 0;
	int rounds = 0;
	while ((n = nvmf_tls_sendv(d.c, &iov, 1)) > 0 && rounds++ < 100)
		;
	CU_ASSERT_EQUAL(n, -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_TRUE(nvmf_tls_tx_pending(d.c));
	CU_ASSERT_EQUAL(nvmf_tls_flush(d.c), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	duo_close(&d);

	duo_open(&d, ID_A, key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_FATAL(d.crc == 0 && d.src == 0);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT(setsockopt(d.fds[i], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) == 0);
		CU_ASSERT(setsockopt(d.fds[i], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) == 0);
	}
	bool staged = false;
	exchange(&d, 1 << 20, 7, &staged);
	CU_ASSERT_TRUE(staged);
	duo_close(&d);
}

static void a_wrong_psk_is_rejected_on_both_sides(void)
{
	struct duo d;
	uint8_t wrong[32];
	memcpy(wrong, key32, sizeof(wrong));
	wrong[31] ^= 1;
	duo_open(&d, ID_A, wrong, sizeof(wrong), NVMF_TLS_SHA256);
	CU_ASSERT_EQUAL(d.src, -EKEYREJECTED);
	CU_ASSERT_EQUAL(d.crc, -EKEYREJECTED);
	CU_ASSERT(strstr(d.serr, "wrong PSK") != NULL);
	CU_ASSERT(strstr(d.cerr, "wrong PSK") != NULL);
	/* A failed session stays failed. */
	CU_ASSERT_EQUAL(nvmf_tls_handshake(d.s, NULL, 0), -EKEYREJECTED);
	char buf[4];
	CU_ASSERT_EQUAL(nvmf_tls_recv(d.s, buf, sizeof(buf)), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	duo_close(&d);
}

static void an_unknown_identity_is_enokey(void)
{
	struct duo d;
	duo_open(&d, "NVMe0R01 nqn.nobody nqn.sub", key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_EQUAL(d.src, -ENOKEY);
	CU_ASSERT_EQUAL(d.crc, -ENOKEY);
	CU_ASSERT(strstr(d.serr, "unknown host") != NULL);
	CU_ASSERT_STRING_EQUAL(d.keys.last, "NVMe0R01 nqn.nobody nqn.sub");
	CU_ASSERT_STRING_EQUAL(nvmf_tls_peer_identity(d.s), "NVMe0R01 nqn.nobody nqn.sub");
	duo_close(&d);
	duo_open(&d, "refused", key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_EQUAL(d.src, -EKEYREJECTED);
	CU_ASSERT(strstr(d.serr, "host refused") != NULL);
	CU_ASSERT(d.crc < 0 && d.crc != -EAGAIN);
	duo_close(&d);
}

/* A plain OpenSSL client on fds[0]: @max the highest version, with or without a PSK. */
struct raw {
	SSL_CTX *ctx;
	SSL *ssl;
};

static void raw_client(struct raw *r, int fd, int max)
{
	r->ctx = SSL_CTX_new(TLS_client_method());
	CU_ASSERT_FATAL(r->ctx != NULL);
	SSL_CTX_set_max_proto_version(r->ctx, max);
	r->ssl = SSL_new(r->ctx);
	CU_ASSERT_FATAL(r->ssl != NULL);
	SSL_set_fd(r->ssl, fd);
	SSL_set_connect_state(r->ssl);
}

static void raw_free(struct raw *r)
{
	SSL_free(r->ssl);
	SSL_CTX_free(r->ctx);
}

static int server_against_raw(int max, struct duo *d)
{
	struct raw r;
	memset(d, 0, sizeof(*d));
	pair(d->fds);
	raw_client(&r, d->fds[0], max);
	char err[256];
	CU_ASSERT_FATAL(
		nvmf_tls_server_new(d->fds[1], find_key, &d->keys, &d->s, err, sizeof(err)) == 0);
	int rc = -EAGAIN;
	for (int i = 0; i < 100 && rc == -EAGAIN; i++) {
		SSL_do_handshake(r.ssl);
		rc = nvmf_tls_handshake(d->s, d->serr, sizeof(d->serr));
	}
	raw_free(&r);
	return rc;
}

static void a_tls12_client_is_eprotonosupport(void)
{
	struct duo d;
	CU_ASSERT_EQUAL(server_against_raw(TLS1_2_VERSION, &d), -EPROTONOSUPPORT);
	CU_ASSERT(strstr(d.serr, "TLS 1.3") != NULL);
	duo_close(&d);
}

static void a_client_without_psk_is_enokey(void)
{
	struct duo d;
	CU_ASSERT_EQUAL(server_against_raw(TLS1_3_VERSION, &d), -ENOKEY);
	CU_ASSERT(strstr(d.serr, "no PSK") != NULL);
	CU_ASSERT_EQUAL(d.keys.calls, 0);
	duo_close(&d);
}

static int server_reading(const void *bytes, size_t len, struct duo *d)
{
	memset(d, 0, sizeof(*d));
	pair(d->fds);
	char err[256];
	CU_ASSERT_FATAL(
		nvmf_tls_server_new(d->fds[1], find_key, &d->keys, &d->s, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(write(d->fds[0], bytes, len) == (ssize_t)len);
	return nvmf_tls_handshake(d->s, d->serr, sizeof(d->serr));
}

/* The raw client's PSK: ID_A's key, SHA-256 (TLS_AES_128_GCM_SHA256's hash). */
static int raw_use_session(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
			   SSL_SESSION **sess)
{
	(void)md;
	const unsigned char aes128[2] = { 0x13, 0x01 };
	*sess = SSL_SESSION_new();
	if (!*sess)
		return 0;
	SSL_SESSION_set1_master_key(*sess, key32, sizeof(key32));
	SSL_SESSION_set_cipher(*sess, SSL_CIPHER_find(ssl, aes128));
	SSL_SESSION_set_protocol_version(*sess, TLS1_3_VERSION);
	*id = (const unsigned char *)ID_A;
	*idlen = strlen(ID_A);
	return 1;
}

/* A client preferring TLS_AES_256_GCM_SHA384 (as GnuTLS does) with a SHA-256 key: the
 * server picks the cipher of the key's hash, else OpenSSL would skip the PSK. */
static void the_cipher_follows_the_key_not_the_client_preference(void)
{
	struct duo d;
	struct raw r;
	memset(&d, 0, sizeof(d));
	pair(d.fds);
	raw_client(&r, d.fds[0], TLS1_3_VERSION);
	CU_ASSERT(SSL_set_ciphersuites(r.ssl, "TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256") ==
		  1);
	SSL_set_psk_use_session_callback(r.ssl, raw_use_session);
	char err[256];
	CU_ASSERT_FATAL(nvmf_tls_server_new(d.fds[1], find_key, &d.keys, &d.s, err, sizeof(err)) ==
			0);
	int rc = -EAGAIN, crc = -1;
	for (int i = 0; i < 100 && (rc == -EAGAIN || crc != 1); i++) {
		if (crc != 1)
			crc = SSL_do_handshake(r.ssl);
		if (rc == -EAGAIN)
			rc = nvmf_tls_handshake(d.s, d.serr, sizeof(d.serr));
	}
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(crc, 1);
	CU_ASSERT_STRING_EQUAL(nvmf_tls_cipher(d.s), "TLS_AES_128_GCM_SHA256");
	raw_free(&r);
	duo_close(&d);
}

static void garbage_or_an_icreq_is_eproto(void)
{
	struct duo d;
	uint8_t junk[300];
	unsigned seed = 3;
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rand_r(&seed);
	junk[0] = 0x17; /* a record type OpenSSL reads on, then the version is wrong */
	CU_ASSERT_EQUAL(server_reading(junk, sizeof(junk), &d), -EPROTO);
	duo_close(&d);
	/* NVMe/TCP ICReq: PDU type 0, flags 0, HLEN 128, PDO 0, PLEN 128, PFV 0, ... */
	uint8_t icreq[128] = { 0x00, 0x00, 128, 0x00, 128, 0, 0, 0 };
	CU_ASSERT_EQUAL(server_reading(icreq, sizeof(icreq), &d), -EPROTO);
	CU_ASSERT(strstr(d.serr, "not a TLS") != NULL);
	duo_close(&d);
	const char http[] = "GET / HTTP/1.1\r\n\r\n";
	CU_ASSERT_EQUAL(server_reading(http, sizeof(http) - 1, &d), -EPROTO);
	duo_close(&d);

	/* A client whose ClientHello a plain NVMe/TCP port answers (C2HTermReq: PDU type 3,
	 * HLEN 24, PLEN 24): told the port has no TLS. */
	memset(&d, 0, sizeof(d));
	pair(d.fds);
	char err[256];
	CU_ASSERT_FATAL(nvmf_tls_client_new(d.fds[0], ID_A, key32, sizeof(key32), NVMF_TLS_SHA256,
					    &d.c, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(nvmf_tls_handshake(d.c, err, sizeof(err)), -EAGAIN);
	uint8_t term[24] = { 0x03, 0x00, 24, 0x00, 24, 0, 0, 0, 0x01 };
	CU_ASSERT_EQUAL_FATAL(write(d.fds[1], term, sizeof(term)), (ssize_t)sizeof(term));
	CU_ASSERT_EQUAL(nvmf_tls_handshake(d.c, err, sizeof(err)), -EPROTO);
	CU_ASSERT(strstr(err, "the port answered without TLS") != NULL);
	duo_close(&d);
}

static void a_peer_gone_mid_handshake_is_econnreset(void)
{
	struct duo d;
	memset(&d, 0, sizeof(d));
	pair(d.fds);
	char err[256];
	CU_ASSERT_FATAL(nvmf_tls_client_new(d.fds[0], ID_A, key32, sizeof(key32), NVMF_TLS_SHA256,
					    &d.c, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(nvmf_tls_server_new(d.fds[1], find_key, &d.keys, &d.s, err, sizeof(err)) ==
			0);
	CU_ASSERT_EQUAL(nvmf_tls_handshake(d.c, err, sizeof(err)), -EAGAIN); /* ClientHello out */
	nvmf_tls_free(d.c);
	d.c = NULL;
	close(d.fds[0]);
	d.fds[0] = -1;
	CU_ASSERT_EQUAL(nvmf_tls_handshake(d.s, d.serr, sizeof(d.serr)), -ECONNRESET);
	CU_ASSERT(d.serr[0] != '\0');
	duo_close(&d);

	/* Closed before a byte. */
	memset(&d, 0, sizeof(d));
	pair(d.fds);
	CU_ASSERT_FATAL(nvmf_tls_server_new(d.fds[1], find_key, &d.keys, &d.s, err, sizeof(err)) ==
			0);
	CU_ASSERT_EQUAL(nvmf_tls_handshake(d.s, err, sizeof(err)), -EAGAIN);
	CU_ASSERT_FALSE(nvmf_tls_want_write(d.s));
	close(d.fds[0]);
	d.fds[0] = -1;
	CU_ASSERT_EQUAL(nvmf_tls_handshake(d.s, err, sizeof(err)), -ECONNRESET);
	duo_close(&d);
}

/* After close_notify, or a plain EOF, recv says 0. */
static void a_closed_peer_reads_as_zero(void)
{
	struct duo d;
	duo_open(&d, ID_A, key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_FATAL(d.crc == 0 && d.src == 0);
	nvmf_tls_free(d.c); /* close_notify */
	d.c = NULL;
	char buf[16];
	CU_ASSERT_EQUAL(nvmf_tls_recv(d.s, buf, sizeof(buf)), 0);
	duo_close(&d);
	duo_open(&d, ID_A, key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_FATAL(d.crc == 0 && d.src == 0);
	close(d.fds[0]);
	d.fds[0] = -1;
	CU_ASSERT_EQUAL(nvmf_tls_recv(d.s, buf, sizeof(buf)), 0);
	duo_close(&d);
}

/* A record that does not decrypt (bytes written past the channel) fails the read. */
static void a_forged_record_is_eproto(void)
{
	struct duo d;
	duo_open(&d, ID_A, key32, sizeof(key32), NVMF_TLS_SHA256);
	CU_ASSERT_FATAL(d.crc == 0 && d.src == 0);
	uint8_t forged[5 + 40] = { 0x17, 0x03, 0x03, 0x00, 40 };
	memset(forged + 5, 0x5a, 40);
	CU_ASSERT_FATAL(write(d.fds[0], forged, sizeof(forged)) == (ssize_t)sizeof(forged));
	char buf[64];
	CU_ASSERT_EQUAL(nvmf_tls_recv(d.s, buf, sizeof(buf)), -1);
	CU_ASSERT_EQUAL(errno, EPROTO);
	duo_close(&d);
}

static void bad_parameters_are_einval(void)
{
	struct nvmf_tls *t = NULL;
	char err[128];
	CU_ASSERT_EQUAL(nvmf_tls_client_new(0, "", key32, 32, NVMF_TLS_SHA256, &t, err,
					    sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(nvmf_tls_client_new(0, "id", key32, 0, NVMF_TLS_SHA256, &t, err,
					    sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(nvmf_tls_client_new(0, "id", key32, 32, 3, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_tls_server_new(0, NULL, NULL, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT(t == NULL);
	nvmf_tls_free(NULL);
}

const struct unit_test tls_channel_tests[] = {
	{ "sha256_psk_gives_aes128_gcm", sha256_psk_gives_aes128_gcm },
	{ "sha384_psk_gives_aes256_gcm", sha384_psk_gives_aes256_gcm },
	{ "a_mebibyte_each_way_in_random_pieces_arrives_whole",
	  a_mebibyte_each_way_in_random_pieces_arrives_whole },
	{ "buffered_plaintext_is_read_without_an_event",
	  buffered_plaintext_is_read_without_an_event },
	{ "staging_under_a_full_socket_keeps_every_byte_in_order",
	  staging_under_a_full_socket_keeps_every_byte_in_order },
	{ "a_wrong_psk_is_rejected_on_both_sides", a_wrong_psk_is_rejected_on_both_sides },
	{ "an_unknown_identity_is_enokey", an_unknown_identity_is_enokey },
	{ "a_tls12_client_is_eprotonosupport", a_tls12_client_is_eprotonosupport },
	{ "a_client_without_psk_is_enokey", a_client_without_psk_is_enokey },
	{ "the_cipher_follows_the_key_not_the_client_preference",
	  the_cipher_follows_the_key_not_the_client_preference },
	{ "garbage_or_an_icreq_is_eproto", garbage_or_an_icreq_is_eproto },
	{ "a_peer_gone_mid_handshake_is_econnreset", a_peer_gone_mid_handshake_is_econnreset },
	{ "a_closed_peer_reads_as_zero", a_closed_peer_reads_as_zero },
	{ "a_forged_record_is_eproto", a_forged_record_is_eproto },
	{ "bad_parameters_are_einval", bad_parameters_are_einval },
	{ NULL, NULL },
};
