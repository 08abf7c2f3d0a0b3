/* The scripted NVMe/TCP controller of the host transport's tests (fake_ctrl.h). */
#include "tests/unit/tcp/host/fake_ctrl.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define FC_IO_TIMEOUT_MS 5000

static int fc_fail(struct fake_ctrl *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fc_fail(struct fake_ctrl *f, const char *fmt, ...)
{
	if (!f->errors++) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(f->why, sizeof(f->why), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void *fc_thread(void *arg)
{
	struct fake_ctrl *f = arg;
	struct pollfd p = { .fd = f->lfd, .events = POLLIN };
	if (poll(&p, 1, FC_IO_TIMEOUT_MS) != 1) {
		fc_fail(f, "no connection");
		return NULL;
	}
	f->fd = accept(f->lfd, NULL, NULL);
	if (f->fd < 0) {
		fc_fail(f, "accept: %s", strerror(errno));
		return NULL;
	}
	f->script(f);
	return NULL;
}

int fc_start(struct fake_ctrl *f, const char *addr, fc_script script)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof(ss));
	f->fd = -1;
	if (strchr(addr, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, addr, &a->sin6_addr);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &a->sin_addr);
		sl = sizeof(*a);
	}
	f->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f->lfd < 0)
		return -errno;
	if (bind(f->lfd, (struct sockaddr *)&ss, sl) || listen(f->lfd, 4) ||
	    getsockname(f->lfd, (struct sockaddr *)&ss, &sl)) {
		int rc = -errno;
		close(f->lfd);
		return rc;
	}
	unsigned port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) :
						   ntohs(((struct sockaddr_in *)&ss)->sin_port);
	snprintf(f->port, sizeof(f->port), "%u", port);
	f->script = script;
	if (pthread_create(&f->th, NULL, fc_thread, f)) {
		close(f->lfd);
		return -EAGAIN;
	}
	f->started = true;
	return 0;
}

void fc_join(struct fake_ctrl *f)
{
	if (f->started)
		pthread_join(f->th, NULL);
	f->started = false;
	if (f->fd >= 0)
		close(f->fd);
	close(f->lfd);
	f->fd = -1;
}

int fc_read(struct fake_ctrl *f, void *buf, size_t len)
{
	size_t off = 0;
	while (off < len) {
		struct pollfd p = { .fd = f->fd, .events = POLLIN };
		if (poll(&p, 1, FC_IO_TIMEOUT_MS) != 1)
			return fc_fail(f, "read: timed out after %zu of %zu bytes", off, len);
		ssize_t n = read(f->fd, (uint8_t *)buf + off, len - off);
		if (n == 0)
			return fc_fail(f, "read: EOF after %zu of %zu bytes", off, len);
		if (n < 0 && errno != EINTR)
			return fc_fail(f, "read: %s", strerror(errno));
		if (n > 0)
			off += (size_t)n;
	}
	return 0;
}

int fc_write(struct fake_ctrl *f, const void *buf, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t n = send(f->fd, (const uint8_t *)buf + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno != EINTR)
			return fc_fail(f, "write: %s", strerror(errno));
		if (n > 0)
			off += (size_t)n;
	}
	return 0;
}

bool fc_eof(struct fake_ctrl *f)
{
	uint8_t b[4096];
	for (;;) {
		struct pollfd p = { .fd = f->fd, .events = POLLIN };
		if (poll(&p, 1, FC_IO_TIMEOUT_MS) != 1)
			return false;
		ssize_t n = read(f->fd, b, sizeof(b));
		if (n <= 0)
			return n == 0 || errno == ECONNRESET;
	}
}

void fc_default_icresp(const struct fake_ctrl *f, struct nvme_tcp_icresp *r)
{
	memset(r, 0, sizeof(*r));
	r->ch.type = NVME_TCP_ICRESP;
	r->ch.hlen = sizeof(*r);
	r->ch.plen = htole32(sizeof(*r));
	r->pfv = htole16(0);
	r->cpda = f->cpda;
	r->dgst =
		(uint8_t)((f->hdgst ? NVME_TCP_DGST_HDR : 0) | (f->ddgst ? NVME_TCP_DGST_DATA : 0));
	r->maxh2cdata = htole32(f->maxh2cdata ? f->maxh2cdata : 131072);
}

int fc_icreq(struct fake_ctrl *f, const struct nvme_tcp_icresp *resp)
{
	struct nvme_tcp_icresp def;
	if (fc_read(f, &f->icreq, sizeof(f->icreq)))
		return -1;
	f->icreq_ok = true;
	if (!resp) {
		fc_default_icresp(f, &def);
		resp = &def;
	}
	return fc_write(f, resp, sizeof(*resp));
}

int fc_read_pdu(struct fake_ctrl *f, struct fc_pdu *p)
{
	memset(p, 0, sizeof(*p));
	if (fc_read(f, &p->ch, sizeof(p->ch)))
		return -1;
	p->plen = le32toh(p->ch.plen);
	if (p->plen < sizeof(p->ch) || p->plen > (16u << 20))
		return fc_fail(f, "PDU of %u bytes", p->plen);
	p->raw = malloc(p->plen);
	if (!p->raw)
		return fc_fail(f, "out of memory");
	memcpy(p->raw, &p->ch, sizeof(p->ch));
	if (fc_read(f, p->raw + sizeof(p->ch), p->plen - sizeof(p->ch))) {
		fc_pdu_free(p);
		return -1;
	}
	p->hdgst_ok = p->ddgst_ok = true;
	if (p->ch.flags & NVME_TCP_F_HDGST) {
		uint32_t d;
		memcpy(&d, p->raw + p->ch.hlen, 4);
		p->hdgst_ok = le32toh(d) == nvme_tcp_digest(p->raw, p->ch.hlen);
	}
	if (p->ch.pdo) {
		uint32_t dd = p->ch.flags & NVME_TCP_F_DDGST ? 4 : 0;
		p->data = p->raw + p->ch.pdo;
		p->data_len = p->plen - p->ch.pdo - dd;
		if (dd) {
			uint32_t d;
			memcpy(&d, p->data + p->data_len, 4);
			p->ddgst_ok = le32toh(d) == nvme_tcp_digest(p->data, p->data_len);
		}
	}
	return 0;
}

void fc_pdu_free(struct fc_pdu *p)
{
	free(p->raw);
	p->raw = NULL;
}

/* Header @hdr of @hlen bytes (type, hlen, flags set), then @data: digests and PDO as the
 * connection has them; @bad corrupts a digest. */
static int send_pdu(struct fake_ctrl *f, uint8_t *hdr, uint8_t hlen, const void *data, uint32_t len,
		    unsigned bad)
{
	struct nvme_tcp_ch *ch = (struct nvme_tcp_ch *)hdr;
	bool hd = f->hdgst, dd = f->ddgst && len;
	uint32_t hend = hlen + (hd ? 4u : 0u);
	uint32_t pdo = len ? hend : 0; /* HPDA 0: data right after the header */
	uint32_t plen = len ? pdo + len + (dd ? 4u : 0u) : hend;
	uint8_t *b = malloc(plen);
	if (!b)
		return fc_fail(f, "out of memory");
	ch->hlen = hlen;
	ch->pdo = (uint8_t)pdo;
	ch->flags |= (uint8_t)((hd ? NVME_TCP_F_HDGST : 0) | (dd ? NVME_TCP_F_DDGST : 0));
	ch->plen = htole32(plen);
	memcpy(b, hdr, hlen);
	if (hd) {
		uint32_t d = htole32(nvme_tcp_digest(b, hlen) ^ (bad & FC_BAD_HDGST ? 1u : 0u));
		memcpy(b + hlen, &d, 4);
	}
	if (len) {
		memcpy(b + pdo, data, len);
		if (dd) {
			uint32_t d = htole32(nvme_tcp_digest(data, len) ^
					     (bad & FC_BAD_DDGST ? 1u : 0u));
			memcpy(b + pdo + len, &d, 4);
		}
	}
	int rc = fc_write(f, b, plen);
	free(b);
	return rc;
}

int fc_send_rsp(struct fake_ctrl *f, uint16_t cid, uint16_t status, unsigned bad)
{
	struct nvme_tcp_rsp r;
	memset(&r, 0, sizeof(r));
	r.ch.type = NVME_TCP_RSP;
	r.cqe.command_id = cid;
	r.cqe.status = htole16((uint16_t)(status << 1));
	return send_pdu(f, (uint8_t *)&r, sizeof(r), NULL, 0, bad);
}

int fc_send_c2h(struct fake_ctrl *f, uint16_t cid, uint32_t datao, const void *data, uint32_t len,
		uint32_t datal, unsigned flags)
{
	struct nvme_tcp_data d;
	memset(&d, 0, sizeof(d));
	d.ch.type = NVME_TCP_C2H_DATA;
	d.ch.flags = (uint8_t)(flags & 0xffu);
	d.cccid = cid;
	d.datao = htole32(datao);
	d.datal = htole32(datal);
	return send_pdu(f, (uint8_t *)&d, sizeof(d), data, len, flags & ~0xffu);
}

int fc_send_r2t(struct fake_ctrl *f, uint16_t cid, uint16_t ttag, uint32_t off, uint32_t len)
{
	struct nvme_tcp_r2t r;
	memset(&r, 0, sizeof(r));
	r.ch.type = NVME_TCP_R2T;
	r.cccid = cid;
	r.ttag = htole16(ttag);
	r.r2to = htole32(off);
	r.r2tl = htole32(len);
	return send_pdu(f, (uint8_t *)&r, sizeof(r), NULL, 0, 0);
}

int fc_send_term(struct fake_ctrl *f, uint16_t fes, uint32_t fei)
{
	struct nvme_tcp_term t;
	memset(&t, 0, sizeof(t));
	t.ch.type = NVME_TCP_C2H_TERM;
	t.ch.hlen = sizeof(t);
	t.ch.plen = htole32(sizeof(t));
	t.fes = htole16(fes);
	t.fei = htole32(fei);
	return fc_write(f, &t, sizeof(t));
}

int fc_read_h2c(struct fake_ctrl *f, uint16_t cid, uint16_t ttag, uint8_t *buf, uint32_t buflen,
		uint32_t max)
{
	int n = 0;
	uint32_t next = UINT32_MAX;
	for (;;) {
		struct fc_pdu p;
		if (fc_read_pdu(f, &p))
			return -1;
		if (!p.raw || p.plen < sizeof(struct nvme_tcp_data)) {
			fc_pdu_free(&p);
			return fc_fail(f, "PDU of %u bytes, not H2CData", p.plen);
		}
		const struct nvme_tcp_data *d = (const void *)p.raw;
		uint32_t off = le32toh(d->datao), len = le32toh(d->datal);
		int bad = p.ch.type != NVME_TCP_H2C_DATA ?
				  fc_fail(f, "PDU type %u, not H2CData", p.ch.type) :
			  d->cccid != cid || le16toh(d->ttag) != ttag ?
				  fc_fail(f, "cccid %u ttag %u", d->cccid, le16toh(d->ttag)) :
			  !p.hdgst_ok || !p.ddgst_ok ?
				  fc_fail(f, "H2CData digest wrong") :
			  len != p.data_len || len > max || !len ?
				  fc_fail(f, "DATAL %u, %u bytes, max %u", len, p.data_len, max) :
			  (next != UINT32_MAX && off != next) || (uint64_t)off + len > buflen ?
				  fc_fail(f, "DATAO %u (expected %u)", off, next) :
				  0;
		if (!bad)
			memcpy(buf + off, p.data, len);
		bool last = p.ch.flags & NVME_TCP_F_DATA_LAST;
		fc_pdu_free(&p);
		if (bad)
			return -1;
		n++;
		next = off + len;
		if (last)
			return n;
	}
}

void fc_pattern(void *buf, size_t len, unsigned seed)
{
	uint8_t *b = buf;
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = (uint8_t)(x >> 16);
	}
}

/* ---- the host side ---- */

int th_connect(struct th_host *h, struct fake_ctrl *f, const char *addr, uint16_t qid, char *err,
	       size_t errlen)
{
	memset(h, 0, sizeof(*h));
	h->ctrl.t = &nvmf_tcp_host_transport;
	int rc = nvmfh_queue_setup(&h->q, &h->ctrl, qid, 32);
	if (rc)
		return rc;
	struct nvmf_ctrl_opts o = { .traddr = addr,
				    .trsvcid = f->port,
				    .timeout_ms = 5000,
				    .hdr_digest = f->hdgst,
				    .data_digest = f->ddgst };
	err[0] = 0;
	rc = nvmf_tcp_host_transport.queue_connect(&h->q.hq, &o, qid, 32, err, errlen);
	if (!rc)
		h->q.connected = true;
	return rc;
}

int th_attach(struct th_host *h, int fd, uint16_t qid, uint16_t size, bool hdgst, bool ddgst,
	      int timeout_ms, char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	h->ctrl.t = &nvmf_tcp_host_transport;
	int rc = nvmfh_queue_setup(&h->q, &h->ctrl, qid, size);
	if (rc) {
		close(fd);
		return rc;
	}
	struct nvmf_ctrl_opts o = { .timeout_ms = timeout_ms,
				    .hdr_digest = hdgst,
				    .data_digest = ddgst };
	err[0] = 0;
	rc = nvmf_th_queue_attach(&h->q.hq, &o, qid, size, fd, err, errlen);
	if (!rc)
		h->q.connected = true;
	return rc;
}

static void th_done(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct th_result *r = arg;
	r->done = true;
	r->status = status;
	if (cqe)
		r->cqe = *cqe;
}

int th_submit(struct th_host *h, uint8_t opc, void *buf, uint32_t len, struct th_result *r,
	      uint16_t *cid)
{
	struct nvme_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = opc;
	sqe.nsid = htole32(1);
	memset(r, 0, sizeof(*r));
	return nvmfh_queue_submit(&h->q, &sqe, buf, len, opc & 1, th_done, r, cid);
}

int th_wait(struct th_host *h, struct th_result *r)
{
	int rc = 0;
	for (int i = 0; i < 500 && !r->done; i++) {
		rc = nvmfh_queue_poll(&h->q, 0);
		if (rc < 0 || r->done)
			break;
		h->q.hq.t->wait(&h->q.hq, 10);
	}
	return rc;
}

struct nvmf_th_queue *th_queue(struct th_host *h)
{
	return h->q.hq.tpriv;
}

void th_close(struct th_host *h)
{
	nvmfh_queue_abort(&h->q, -ECONNABORTED);
	nvmfh_queue_release(&h->q);
}
