/* The NVMe/TCP host data-path tests' shared steps (see io_fixture.h). */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tests/unit/suites.h"
#include "tests/unit/tcp/host/io_fixture.h"

/* Read one CapsuleCmd, record its SGL; 0 with *cid or -1. */
int read_capsule(struct fake_ctrl *f, int i, uint16_t *cid)
{
	struct io_case *c = f->arg;
	struct fc_pdu p;
	if (fc_read_pdu(f, &p))
		return -1;
	if (p.ch.type != NVME_TCP_CMD || p.plen < sizeof(struct nvme_tcp_cmd)) {
		fc_pdu_free(&p);
		return -1;
	}
	const struct nvme_tcp_cmd *cmd = (const void *)p.raw;
	*cid = cmd->sqe.command_id;
	c->sgl_type[i] = cmd->sqe.dptr.unkeyed.type;
	c->sgl_len[i] = le32toh(cmd->sqe.dptr.unkeyed.length);
	c->icd_len[i] = p.data_len;
	c->icd_ok[i] = p.data_len && p.data_len <= c->len && !memcmp(p.data, c->data, p.data_len);
	if (!p.hdgst_ok || !p.ddgst_ok)
		c->digests_ok = false;
	fc_pdu_free(&p);
	return 0;
}

/* After a bad PDU: the host's H2CTermReq (if any), then its close. */
void read_term(struct fake_ctrl *f)
{
	struct io_case *c = f->arg;
	struct fc_pdu p;
	if (!fc_read_pdu(f, &p)) {
		if (p.ch.type == NVME_TCP_H2C_TERM && p.plen >= sizeof(struct nvme_tcp_term)) {
			const struct nvme_tcp_term *t = (const void *)p.raw;
			c->term_fes = le16toh(t->fes);
			c->term_fei = le32toh(t->fei);
		}
		fc_pdu_free(&p);
	}
	c->eof = fc_eof(f);
}

struct th_host *connect_host(struct fake_ctrl *f, struct io_case *c, fc_script s, uint16_t qid)
{
	static struct th_host h; /* large (the core's controller struct): not on the stack */
	char err[256];
	f->arg = c;
	c->digests_ok = true;
	if (fc_start(f, "127.0.0.1", s))
		return NULL;
	if (th_connect(&h, f, "127.0.0.1", qid, err, sizeof(err))) {
		fc_join(f);
		return NULL;
	}
	return &h;
}

/* Queue @qid of @size entries attached to one end of a socketpair, the ICReq read off the
 * other (@peer). The host on the heap (large). */
struct th_host *attach_pair(int *peer, uint16_t qid, uint16_t size)
{
	int sv[2];
	struct fake_ctrl f;
	struct nvme_tcp_icresp r;
	struct nvme_tcp_icreq ic;
	char err[256];
	struct th_host *h = calloc(1, sizeof(*h));
	if (!h || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		free(h);
		return NULL;
	}
	memset(&f, 0, sizeof(f));
	f.fd = sv[1];
	fc_default_icresp(&f, &r);
	if (fc_write(&f, &r, sizeof(r)) ||
	    th_attach(h, sv[0], qid, size, false, false, 2000, err, sizeof(err)) ||
	    fc_read(&f, &ic, sizeof(ic))) {
		close(sv[1]);
		free(h);
		return NULL;
	}
	*peer = sv[1];
	return h;
}

/* Read what @fd has now (non-blocking) onto @buf at *@len (at most @cap in all). */
void drain_peer(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	while (*len < cap) {
		ssize_t n = recv(fd, buf + *len, cap - *len, MSG_DONTWAIT);
		if (n <= 0)
			return;
		*len += (size_t)n;
	}
}
