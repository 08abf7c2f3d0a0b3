/* A TLS peer for tests/local/tls_interop_test.sh: the channel of tls/channel.h on a TCP
 * socket of 127.0.0.1, against GnuTLS's gnutls-serv and gnutls-cli.
 *   tls-peer pattern BYTES                  the test data on stdout (lines of letters)
 *   tls-peer connect PORT ID HEXKEY HASH BYTES
 *       client: handshake, send BYTES of the pattern, read them back (an echo server),
 *       compare
 *   tls-peer listen PORTFILE ID HEXKEY HASH BYTES
 *       server: listen on an ephemeral port (written to PORTFILE), accept one, handshake
 *       (the key of ID only, HASH 1 SHA-256 or 2 SHA-384), read BYTES, check they are the
 *       pattern and echo each piece back as it comes, then close_notify
 * Prints "cipher NAME", "identity ID" after the handshake, "handshake: ENAME: reason"
 * when it fails (exit 3), "ok" at the end (exit 0); other failures exit 1. Everything
 * waits in poll() with a 20 s limit. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tls/channel.h"

struct key {
	const char *id;
	uint8_t psk[NVMF_TLS_PSK_MAX];
	size_t len;
	int hash;
};

static uint8_t pattern(size_t i)
{
	return i % 64 == 63 ? '\n' : (uint8_t)('a' + (i / 64 + i) % 26);
}

static const char *errname(int e)
{
	switch (e) {
	case ENOKEY:
		return "ENOKEY";
	case EKEYREJECTED:
		return "EKEYREJECTED";
	case EPROTONOSUPPORT:
		return "EPROTONOSUPPORT";
	case EPROTO:
		return "EPROTO";
	case ECONNRESET:
		return "ECONNRESET";
	default:
		return strerror(e);
	}
}

static int parse_key(struct key *k, const char *id, const char *hex, const char *hash)
{
	size_t n = strlen(hex);
	if (n % 2 || n / 2 > sizeof(k->psk) || n == 0)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		k->psk[i] = (uint8_t)v;
	}
	k->id = id;
	k->len = n / 2;
	k->hash = atoi(hash);
	return 0;
}

static int find(void *arg, const char *identity, size_t idlen, uint8_t *psk, size_t *psklen,
		int *hash, char *why, size_t whylen)
{
	const struct key *k = arg;
	if (idlen != strlen(k->id) || memcmp(identity, k->id, idlen) != 0) {
		snprintf(why, whylen, "not the identity of the test");
		return -ENOKEY;
	}
	memcpy(psk, k->psk, k->len);
	*psklen = k->len;
	*hash = k->hash;
	return 0;
}

static bool wait_fd(int fd, bool write)
{
	struct pollfd p = { .fd = fd, .events = write ? POLLOUT : POLLIN };
	return poll(&p, 1, 20000) == 1;
}

static int handshake(struct nvmf_tls *t, int fd, bool server)
{
	char err[256];
	int rc;
	while ((rc = nvmf_tls_handshake(t, err, sizeof(err))) == -EAGAIN)
		if (!wait_fd(fd, nvmf_tls_want_write(t))) {
			printf("handshake: timed out\n");
			return 1;
		}
	if (rc < 0) {
		printf("handshake: %s: %s\n", errname(-rc), err);
		return 3;
	}
	printf("cipher %s\n", nvmf_tls_cipher(t));
	if (server)
		printf("identity %s\n", nvmf_tls_peer_identity(t));
	printf("ktls tx %d rx %d\n", nvmf_tls_ktls_tx(t), nvmf_tls_ktls_rx(t));
	return 0;
}

/* Send @len bytes at @p whole (flushing staged bytes), waiting for POLLOUT. */
static int send_all(struct nvmf_tls *t, int fd, const uint8_t *p, size_t len)
{
	while (len || nvmf_tls_tx_pending(t)) {
		if (nvmf_tls_tx_pending(t) && nvmf_tls_flush(t) < 0) {
			if (errno != EAGAIN || !wait_fd(fd, true))
				return -1;
			continue;
		}
		if (!len)
			break;
		struct iovec iov = { (void *)p, len };
		ssize_t n = nvmf_tls_sendv(t, &iov, 1);
		if (n < 0) {
			if (errno != EAGAIN || !wait_fd(fd, true))
				return -1;
			continue;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read up to @len bytes: >0, 0 closed, -1 error or timeout. */
static ssize_t recv_some(struct nvmf_tls *t, int fd, uint8_t *p, size_t len)
{
	for (;;) {
		ssize_t n = nvmf_tls_recv(t, p, len);
		if (n >= 0)
			return n;
		if (errno != EAGAIN || !wait_fd(fd, false))
			return -1;
	}
}

static int check(const uint8_t *p, size_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pattern(off + i)) {
			printf("data differs at byte %zu\n", off + i);
			return -1;
		}
	return 0;
}

static int run_client(int port, struct key *k, size_t bytes)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return 1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("connect");
		close(fd);
		return 1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	struct nvmf_tls *t;
	char err[256];
	if (nvmf_tls_client_new(fd, k->id, k->psk, k->len, k->hash, &t, err, sizeof(err)) < 0) {
		printf("client: %s\n", err);
		close(fd);
		return 1;
	}
	int rc = handshake(t, fd, false);
	uint8_t *out = malloc(bytes ? bytes : 1), *in = malloc(65536);
	if (!out || !in)
		rc = 1;
	for (size_t i = 0; out && i < bytes; i++)
		out[i] = pattern(i);
	/* Send in 64 KiB steps and read the echo between, so neither side's buffers fill. */
	size_t sent = 0, got = 0;
	while (rc == 0 && got < bytes) {
		if (sent < bytes) {
			size_t n = bytes - sent < 65536 ? bytes - sent : 65536;
			if (send_all(t, fd, out + sent, n) < 0) {
				printf("send failed: %s\n", strerror(errno));
				rc = 1;
				break;
			}
			sent += n;
		}
		while (got < sent) {
			ssize_t n = recv_some(t, fd, in, sent - got < 65536 ? sent - got : 65536);
			if (n <= 0 || check(in, got, (size_t)n) < 0) {
				printf("echo: %s\n", n == 0 ? "closed" :
						     n < 0  ? strerror(errno) :
							      "wrong data");
				rc = 1;
				break;
			}
			got += (size_t)n;
		}
	}
	if (rc == 0)
		printf("ok %zu bytes each way\n", got);
	nvmf_tls_free(t);
	close(fd);
	free(out);
	free(in);
	return rc;
}

static int run_server(const char *portfile, struct key *k, size_t bytes)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof(a);
	if (ls < 0)
		return 1;
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) < 0) {
		perror("listen");
		close(ls);
		return 1;
	}
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	FILE *f = fopen(tmp, "w");
	bool written = f && fprintf(f, "%d\n", ntohs(a.sin_port)) >= 0;
	if (f && fclose(f) != 0)
		written = false;
	if (!written || rename(tmp, portfile) < 0) {
		perror(portfile);
		close(ls);
		return 1;
	}
	if (!wait_fd(ls, false)) {
		printf("no client\n");
		close(ls);
		return 1;
	}
	int fd = accept(ls, NULL, NULL);
	close(ls);
	if (fd < 0) {
		perror("accept");
		return 1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	struct nvmf_tls *t;
	char err[256];
	if (nvmf_tls_server_new(fd, find, k, &t, err, sizeof(err)) < 0) {
		printf("server: %s\n", err);
		close(fd);
		return 1;
	}
	int rc = handshake(t, fd, true);
	uint8_t *in = malloc(65536);
	if (!in)
		rc = 1;
	size_t got = 0;
	while (rc == 0 && got < bytes) {
		ssize_t n = recv_some(t, fd, in, 65536);
		if (n <= 0 || check(in, got, (size_t)n) < 0 || send_all(t, fd, in, (size_t)n) < 0) {
			printf("after %zu bytes: %s\n", got,
			       n == 0 ? "closed" :
			       n < 0  ? strerror(errno) :
					"failed");
			rc = 1;
			break;
		}
		got += (size_t)n;
	}
	if (rc == 0)
		printf("ok %zu bytes each way\n", got);
	nvmf_tls_free(t);
	close(fd);
	free(in);
	return rc;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(argv[1], "pattern") == 0) {
		size_t n = strtoul(argv[2], NULL, 0);
		for (size_t i = 0; i < n; i++)
			putchar(pattern(i));
		return 0;
	}
	struct key k;
	if (argc != 7 || parse_key(&k, argv[3], argv[4], argv[5]) < 0) {
		fprintf(stderr,
			"usage: tls-peer connect PORT|listen PORTFILE ID HEXKEY HASH BYTES\n");
		return 2;
	}
	size_t bytes = strtoul(argv[6], NULL, 0);
	if (strcmp(argv[1], "connect") == 0)
		return run_client(atoi(argv[2]), &k, bytes);
	if (strcmp(argv[1], "listen") == 0)
		return run_server(argv[2], &k, bytes);
	fprintf(stderr, "tls-peer: connect or listen\n");
	return 2;
}
