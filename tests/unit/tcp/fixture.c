/* The NVMe/TCP target over loopback sockets (see fixture.h). */
#include "tests/unit/tcp/fixture.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "tcp/target/transport.h"
#include "tests/unit/target/fixture.h"
#include "nvme/fabrics.h"
#include "util/clock.h"

#define WAIT_MS 10000

int tt_boot(struct tt *t, const char *traddr, uint32_t inline_size, uint32_t maxh2cdata)
{
	return tt_boot_zc(t, traddr, inline_size, maxh2cdata, NVMF_DEFAULT_ZEROCOPY);
}

struct nvmf_tcp_tpg *tt_main_tpg(struct tt *t)
{
	return (struct nvmf_tcp_tpg *)nvmf_pg_tpg(nvmf_tgt_main_pg(&t->tgt), t->tgt.transports[0]);
}

int tt_two_queues(struct tt *t, struct ttc *a, struct ttc *q, uint16_t *cntlid)
{
	if (tt_dial(t, a) || tt_handshake(a, 0, 0, NULL) ||
	    tt_connect(a, TT_SUBNQN, 0, 0xffff, cntlid) || tt_enable(a))
		return -1;
	if (tt_dial(t, q) || tt_handshake(q, 0, 0, NULL))
		return -1;
	return tt_connect(q, TT_SUBNQN, 1, *cntlid, NULL) == 0 ? 0 : -1;
}

int tt_boot_zc(struct tt *t, const char *traddr, uint32_t inline_size, uint32_t maxh2cdata,
	       uint32_t zc)
{
	static const struct nvmf_transport_ops *const ops[] = { &nvmf_tcp_transport_ops };
	char err[512];
	memset(t, 0, sizeof(*t));
	struct nvmf_subsys_config *s = fx_cfg_subsys(&t->cfg, TT_SUBNQN, NULL, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1u << 20, 512);
	struct nvmf_port_config *p = fx_cfg_loop_port(&t->cfg, 1, AF_INET, traddr, "0");
	snprintf(p->trtype, sizeof(p->trtype), "tcp");
	p->inline_data_size = inline_size;
	p->maxh2cdata = maxh2cdata;
	p->zerocopy_threshold = zc;
	fx_cfg_expose(p, TT_SUBNQN);
	if (nvmf_tgt_init(&t->tgt, &t->cfg, ops, 1, err, sizeof(err)) ||
	    nvmf_tgt_listen(&t->tgt, err, sizeof(err))) {
		fprintf(stderr, "tcp fixture: %s\n", err);
		return -1;
	}
	struct sockaddr_storage ss;
	if (nvmf_tcp_port_bound(t->tgt.ports[0], &ss))
		return -1;
	t->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	/* What the discovery log reports. */
	snprintf(t->tgt.ports[0]->cfg->trsvcid, sizeof(t->tgt.ports[0]->cfg->trsvcid), "%u",
		 t->port);
	return 0;
}

void tt_drive(struct tt *t)
{
	for (int i = 0; i < 64 && nvmf_pg_poll(nvmf_tgt_main_pg(&t->tgt)); i++)
		;
}

void tt_teardown(struct tt *t)
{
	nvmf_tgt_shutdown(&t->tgt, 2000);
	nvmf_tgt_fini(&t->tgt);
	nvmf_config_free(&t->cfg);
}

int tt_dial(struct tt *t, struct ttc *c)
{
	return tt_dial_rcvbuf(t, c, 0);
}

int tt_dial_rcvbuf(struct tt *t, struct ttc *c, int rcvbuf)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->next_cid = 1;
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(t->port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	/* Before connect: the window scale is fixed in the handshake. */
	if (c->fd >= 0 && rcvbuf &&
	    setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) {
		perror("tcp fixture: SO_RCVBUF");
		return -1;
	}
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("tcp fixture: connect");
		return -1;
	}
	tt_drive(t); /* accepted */
	return 0;
}

void tt_close(struct ttc *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	tt_drive(c->t);
}

int tt_send(struct ttc *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			tt_drive(c->t); /* the target reads, room comes back */
			continue;
		}
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* @len bytes, running the target while none come. 1: done, 0: EOF, -1: error/timeout. */
static int recv_all(struct ttc *c, uint8_t *buf, size_t len)
{
	uint64_t until = nvmf_mono_ms() + WAIT_MS;
	size_t got = 0;
	while (got < len) {
		ssize_t n = recv(c->fd, buf + got, len - got, MSG_DONTWAIT);
		if (n == 0)
			return 0;
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == ECONNRESET ? 0 : -1;
		if (nvmf_mono_ms() > until)
			return -1;
		if (!nvmf_pg_poll(nvmf_tgt_main_pg(&c->t->tgt))) {
			struct pollfd pf = { .fd = c->fd, .events = POLLIN };
			poll(&pf, 1, 1);
		}
	}
	return 1;
}

int tt_recv_pdu(struct ttc *c, void *buf, size_t cap)
{
	uint8_t *p = buf;
	int rc = recv_all(c, p, sizeof(struct nvme_tcp_ch));
	if (rc <= 0)
		return rc;
	uint32_t plen = le32toh(((struct nvme_tcp_ch *)p)->plen);
	if (plen < sizeof(struct nvme_tcp_ch) || plen > cap)
		return -1;
	rc = recv_all(c, p + sizeof(struct nvme_tcp_ch), plen - sizeof(struct nvme_tcp_ch));
	return rc <= 0 ? -1 : (int)plen;
}

bool tt_closed(struct ttc *c)
{
	uint8_t b[256];
	for (;;) {
		int rc = recv_all(c, b, sizeof(b));
		if (rc == 0)
			return true;
		if (rc < 0)
			return false;
	}
}

int tt_icreq(struct ttc *c, uint16_t pfv, uint8_t hpda, uint8_t dgst)
{
	struct nvme_tcp_icreq r;
	memset(&r, 0, sizeof(r));
	r.ch.type = NVME_TCP_ICREQ;
	r.ch.hlen = sizeof(r);
	r.ch.plen = htole32(sizeof(r));
	r.pfv = htole16(pfv);
	r.hpda = hpda;
	r.dgst = dgst;
	r.maxr2t = 0;
	return tt_send(c, &r, sizeof(r));
}

int tt_handshake(struct ttc *c, uint8_t hpda, uint8_t dgst, uint32_t *maxh2cdata)
{
	struct nvme_tcp_icresp r;
	if (tt_icreq(c, 0, hpda, dgst) || tt_recv_pdu(c, &r, sizeof(r)) != (int)sizeof(r))
		return -1;
	if (r.ch.type != NVME_TCP_ICRESP || r.ch.hlen != sizeof(r) || le16toh(r.pfv) != 0 ||
	    r.cpda != 0 || r.dgst != dgst)
		return -1;
	if (maxh2cdata)
		*maxh2cdata = le32toh(r.maxh2cdata);
	c->hd = dgst & NVME_TCP_DGST_HDR;
	c->dd = dgst & NVME_TCP_DGST_DATA;
	c->hpda = hpda;
	return 0;
}

static uint32_t put_digest(uint8_t *at, const void *buf, size_t len, bool bad)
{
	uint32_t d = htole32(nvme_tcp_digest(buf, len) ^ (bad ? 1u : 0u));
	memcpy(at, &d, sizeof(d));
	return sizeof(d);
}

int tt_capsule(struct ttc *c, const struct nvme_sqe *sqe, const void *data, uint32_t dlen,
	       bool bad_hdgst, bool bad_ddgst)
{
	uint8_t *pdu = calloc(1, 128 + dlen + 8);
	if (!pdu)
		return -1;
	struct nvme_tcp_cmd *cmd = (void *)pdu;
	uint32_t hend = sizeof(*cmd) + (c->hd ? NVME_TCP_DIGEST_LEN : 0);
	cmd->ch.type = NVME_TCP_CMD;
	cmd->ch.flags =
		(uint8_t)((c->hd ? NVME_TCP_F_HDGST : 0) | (dlen && c->dd ? NVME_TCP_F_DDGST : 0));
	cmd->ch.hlen = sizeof(*cmd);
	cmd->ch.pdo = dlen ? (uint8_t)hend : 0;
	uint32_t plen = dlen ? hend + dlen + (c->dd ? NVME_TCP_DIGEST_LEN : 0) : hend;
	cmd->ch.plen = htole32(plen);
	cmd->sqe = *sqe;
	if (c->hd)
		put_digest(pdu + sizeof(*cmd), pdu, sizeof(*cmd), bad_hdgst);
	if (dlen) {
		memcpy(pdu + hend, data, dlen);
		if (c->dd)
			put_digest(pdu + hend + dlen, data, dlen, bad_ddgst);
	}
	int rc = tt_send(c, pdu, plen);
	free(pdu);
	return rc;
}

uint8_t *tt_h2c_pdu(struct ttc *c, uint16_t cccid, uint16_t ttag, uint32_t datao, const void *data,
		    uint32_t dlen, bool last, bool bad_ddgst, uint32_t *plen_out)
{
	uint8_t *pdu = calloc(1, 64 + dlen);
	if (!pdu)
		return NULL;
	struct nvme_tcp_data *h = (void *)pdu;
	uint32_t hend = sizeof(*h) + (c->hd ? NVME_TCP_DIGEST_LEN : 0);
	h->ch.type = NVME_TCP_H2C_DATA;
	h->ch.flags = (uint8_t)((c->hd ? NVME_TCP_F_HDGST : 0) | (c->dd ? NVME_TCP_F_DDGST : 0) |
				(last ? NVME_TCP_F_DATA_LAST : 0));
	h->ch.hlen = sizeof(*h);
	h->ch.pdo = (uint8_t)hend;
	uint32_t plen = hend + dlen + (c->dd ? NVME_TCP_DIGEST_LEN : 0);
	h->ch.plen = htole32(plen);
	h->cccid = cccid;
	h->ttag = htole16(ttag);
	h->datao = htole32(datao);
	h->datal = htole32(dlen);
	if (c->hd)
		put_digest(pdu + sizeof(*h), pdu, sizeof(*h), false);
	memcpy(pdu + hend, data, dlen);
	if (c->dd)
		put_digest(pdu + hend + dlen, data, dlen, bad_ddgst);
	*plen_out = plen;
	return pdu;
}

int tt_h2c_data(struct ttc *c, uint16_t cccid, uint16_t ttag, uint32_t datao, const void *data,
		uint32_t dlen, bool last)
{
	uint32_t plen;
	uint8_t *pdu = tt_h2c_pdu(c, cccid, ttag, datao, data, dlen, last, false, &plen);
	if (!pdu)
		return -1;
	int rc = tt_send(c, pdu, plen);
	free(pdu);
	return rc;
}

void tt_sqe(struct ttc *c, struct nvme_sqe *sqe, uint8_t opcode, bool incapsule, uint32_t len)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->flags = 0x40; /* PSDT 01b: SGL */
	sqe->command_id = c->next_cid++;
	sqe->dptr.unkeyed.length = htole32(len);
	sqe->dptr.unkeyed.type = incapsule ? NVME_SGL_INCAPSULE : NVME_SGL_TCP_TRANSPORT;
}

void tt_rw_sqe(struct ttc *c, struct nvme_sqe *sqe, uint8_t opcode, bool incapsule, uint64_t slba,
	       uint32_t blocks)
{
	tt_sqe(c, sqe, opcode, incapsule, blocks * 512);
	sqe->nsid = htole32(1);
	sqe->cdw10 = htole32((uint32_t)slba);
	sqe->cdw11 = htole32((uint32_t)(slba >> 32));
	sqe->cdw12 = htole32(blocks - 1);
}

int tt_connect(struct ttc *c, const char *subnqn, uint16_t qid, uint16_t cntlid,
	       uint16_t *cntlid_out)
{
	struct nvme_sqe sqe;
	struct nvmf_connect_data d;
	tt_sqe(c, &sqe, nvme_admin_fabrics, !c->connect_r2t, sizeof(d));
	uint8_t *b = (uint8_t *)&sqe;
	b[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_connect;
	b[NVMF_CONNECT_QID] = (uint8_t)qid;
	b[NVMF_CONNECT_QID + 1] = (uint8_t)(qid >> 8);
	b[NVMF_CONNECT_SQSIZE] = 31; /* 32 entries */
	b[NVMF_CONNECT_CATTR] = c->cattr;
	uint32_t kato = htole32(qid ? 0 : 30000);
	memcpy(b + NVMF_CONNECT_KATO, &kato, sizeof(kato));
	fx_connect_data(&d, subnqn, TT_HOSTNQN, cntlid);
	struct nvme_cqe cqe;
	memset(&cqe, 0, sizeof(cqe));
	if (tt_capsule(c, &sqe, &d, c->connect_r2t ? 0 : sizeof(d), false, false))
		return -1;
	if (c->connect_r2t) {
		struct nvme_tcp_r2t r;
		int n = tt_recv_pdu(c, &r, sizeof(r));
		if (n < (int)sizeof(r) || r.ch.type != NVME_TCP_R2T || le32toh(r.r2to) != 0 ||
		    le32toh(r.r2tl) != sizeof(d) ||
		    tt_h2c_data(c, sqe.command_id, le16toh(r.ttag), 0, &d, sizeof(d), true))
			return -1;
	}
	int st = tt_rsp(c, &cqe);
	c->cqe = cqe;
	if (cntlid_out)
		*cntlid_out = le16toh((uint16_t)le32toh(cqe.result.u32));
	return st;
}

int tt_enable(struct ttc *c)
{
	struct nvme_sqe sqe;
	tt_sqe(c, &sqe, nvme_admin_fabrics, false, 0);
	uint8_t *b = (uint8_t *)&sqe;
	b[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_property_set;
	uint32_t off = htole32(NVME_REG_CC);
	memcpy(b + 44, &off, sizeof(off));
	uint64_t cc = htole64(1u | (6u << 16) | (4u << 20)); /* EN, IOSQES 6, IOCQES 4 */
	memcpy(b + 48, &cc, sizeof(cc));
	if (tt_capsule(c, &sqe, NULL, 0, false, false))
		return -1;
	struct nvme_cqe cqe;
	return tt_rsp(c, &cqe);
}

/* The header digest of a received PDU at @p is right (or none was negotiated). */
static bool hdgst_ok(const struct ttc *c, const uint8_t *p)
{
	const struct nvme_tcp_ch *ch = (const void *)p;
	if (!c->hd)
		return !(ch->flags & NVME_TCP_F_HDGST);
	uint32_t d;
	memcpy(&d, p + ch->hlen, sizeof(d));
	return (ch->flags & NVME_TCP_F_HDGST) && le32toh(d) == nvme_tcp_digest(p, ch->hlen);
}

int tt_rsp(struct ttc *c, struct nvme_cqe *cqe)
{
	uint8_t p[64];
	int n = tt_recv_pdu(c, p, sizeof(p));
	const struct nvme_tcp_rsp *r = (const void *)p;
	if (n != (int)(sizeof(*r) + (c->hd ? NVME_TCP_DIGEST_LEN : 0)) ||
	    r->ch.type != NVME_TCP_RSP || !hdgst_ok(c, p)) {
		fprintf(stderr, "tcp fixture: expected a CapsuleResp, got %d bytes of type %u\n", n,
			(unsigned)p[0]);
		return -1;
	}
	*cqe = r->cqe;
	return le16toh(cqe->status) >> 1;
}

int tt_read_data(struct ttc *c, void *buf, uint32_t len)
{
	uint8_t *p = malloc(TT_PDU_MAX);
	uint32_t done = 0;
	if (!p)
		return -1;
	c->success = false;
	while (done < len) {
		int n = tt_recv_pdu(c, p, TT_PDU_MAX);
		const struct nvme_tcp_data *h = (const void *)p;
		if (n <= 0 || h->ch.type != NVME_TCP_C2H_DATA || !hdgst_ok(c, p)) {
			/* A failed command answers with its CapsuleResp only. */
			int st = n > 0 && h->ch.type == NVME_TCP_RSP ?
					 le16toh(((const struct nvme_tcp_rsp *)p)->cqe.status) >>
						 1 :
					 -1;
			free(p);
			return st;
		}
		uint32_t datao = le32toh(h->datao), datal = le32toh(h->datal);
		uint32_t align = ((uint32_t)c->hpda + 1) * 4;
		bool dd = h->ch.flags & NVME_TCP_F_DDGST;
		/* PDO honours our HPDA; the data is where PLEN says; the digest matches. */
		uint32_t d = 0;
		bool sized = (uint32_t)n == h->ch.pdo + datal + (dd ? NVME_TCP_DIGEST_LEN : 0);
		if (sized && dd)
			memcpy(&d, p + h->ch.pdo + datal, sizeof(d));
		if (h->ch.pdo % align || dd != c->dd || datao != done || datal > len - done ||
		    !sized || (dd && le32toh(d) != nvme_tcp_digest(p + h->ch.pdo, datal))) {
			fprintf(stderr, "tcp fixture: bad C2HData (pdo %u datao %u datal %u)\n",
				h->ch.pdo, datao, datal);
			free(p);
			return -1;
		}
		memcpy((uint8_t *)buf + done, p + h->ch.pdo, datal);
		done += datal;
		bool last = h->ch.flags & NVME_TCP_F_DATA_LAST;
		c->success = h->ch.flags & NVME_TCP_F_DATA_SUCCESS;
		if ((done == len && !last) || (c->success && (!last || done != len))) {
			fprintf(stderr, "tcp fixture: C2HData flags 0x%02x at %u of %u bytes\n",
				h->ch.flags, done, len);
			free(p);
			return -1;
		}
	}
	free(p);
	if (c->success)
		return 0;
	int st = tt_rsp(c, &c->cqe);
	return st;
}

int tt_term(struct ttc *c, uint16_t *fes, uint32_t *fei)
{
	uint8_t p[256];
	int n = tt_recv_pdu(c, p, sizeof(p));
	const struct nvme_tcp_term *t = (const void *)p;
	if (n < (int)sizeof(*t) || t->ch.type != NVME_TCP_C2H_TERM || t->ch.hlen != sizeof(*t)) {
		fprintf(stderr, "tcp fixture: expected a C2HTermReq, got %d bytes of type %d\n", n,
			n > 0 ? (int)p[0] : 0);
		return -1;
	}
	*fes = le16toh(t->fes);
	*fei = le32toh(t->fei);
	return 0;
}
