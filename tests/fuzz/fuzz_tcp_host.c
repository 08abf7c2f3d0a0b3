/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: libnvmf's NVMe/TCP host receive path (tcp/host/rx.c, with conn.c's
 * ICResp checks and tx.c's answers to R2Ts) on one queue, fed what a controller would
 * send. The host's queue is set up as the unit tests do (tests/unit/tcp/host/fake_ctrl.h,
 * th_attach: the core's queue, the transport's nvmf_th_queue_attach) on one end of a
 * socketpair; the harness is the controller on the other end. No thread, no listener.
 *
 * Input (tests/fuzz/fuzz_input.h fields):
 *   u8  bit 0 header digests, bit 1 data digests, bit 2 an I/O queue (qid 1; else the
 *       admin queue), bit 3 the stream starts with the controller's own ICResp (or a
 *       C2HTermReq); else the harness answers the ICReq with a well-formed ICResp, bit 4
 *       poll for one completion at a time, bit 5 close the controller's side (EOF) after
 *       the stream
 *   u8  CPDA of the harness's ICResp (mod 32); u32 its MAXH2CDATA (at least 4096, rounded
 *       down to a multiple of 4); u16 IOCCSZ given to set_incapsule (I/O queue)
 *   u8  seed of the chunk sizes the stream is written in (1 byte to 4 KiB, so PDUs split
 *       anywhere: mid-header, mid-data, mid-digest)
 *   u8  commands outstanding (mod 9), then for each a byte: bit 0 write, bits 3:1 its
 *       length (0, 4, 512, 4096, 4100, 8192, 65536, 262144 bytes)
 *   the rest: the stream (ICResp or not, CapsuleResp, C2HData, R2T, C2HTermReq...).
 *   Command ids are handed out from 0 in submission order.
 * Checked beyond the sanitizers: every command completes exactly once (by CQE, C2HData
 * SUCCESS or the queue's failure); a dead queue says why; a failed attach says why and
 * leaves nothing; every PDU the host writes (ICReq, CapsuleCmd, H2CData, H2CTermReq) passes
 * the controller's common-header checks (nvme_tcp_check_ch) with the negotiated digests,
 * and its data stays within MAXH2CDATA or the in-capsule size. FUZZ_TRACE=1 prints steps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "tests/fuzz/fuzz_input.h"
#include "tests/unit/tcp/host/fake_ctrl.h"

#define QSIZE     16
#define MAX_CMDS  8
#define MAX_STEPS 200000

static const uint32_t lens[8] = { 0, 4, 512, 4096, 4100, 8192, 65536, 262144 };

struct cmd {
	int calls; /* completions seen; -1: not submitted */
	void *buf;
	uint32_t len;
};

/* The controller's reading of what the host wrote: header by header. */
struct h2c_walk {
	struct nvme_tcp_conn_params cp;
	bool first;
	uint8_t ch[sizeof(struct nvme_tcp_ch)];
	uint32_t have; /* bytes of @ch */
	uint32_t skip; /* bytes of the current PDU past its common header */
};

static bool trace;

static void done(void *arg, int status, const struct nvme_cqe *cqe)
{
	struct cmd *c = arg;
	(void)cqe;
	if (trace)
		fprintf(stderr, "command %p done: %d\n", arg, status);
	if (++c->calls > 1)
		abort(); /* a command completes once */
}

static void walk_bytes(struct h2c_walk *w, const uint8_t *p, size_t n)
{
	while (n) {
		if (w->skip) {
			size_t k = n < w->skip ? n : w->skip;
			w->skip -= (uint32_t)k;
			p += k;
			n -= k;
			continue;
		}
		size_t k = sizeof(w->ch) - w->have;
		k = k < n ? k : n;
		memcpy(w->ch + w->have, p, k);
		w->have += (uint32_t)k;
		p += k;
		n -= k;
		if (w->have < sizeof(w->ch))
			continue;
		const struct nvme_tcp_ch *ch = (const void *)w->ch;
		uint32_t fei = 0;
		enum nvme_tcp_fes fes = nvme_tcp_check_ch(ch, &w->cp, w->first, &fei, NULL);
		if (trace)
			fprintf(stderr,
				"host PDU: type %02x flags %02x hlen %u pdo %u plen %u -> fes %d\n",
				ch->type, ch->flags, ch->hlen, ch->pdo, le32toh(ch->plen),
				(int)fes);
		if (fes != NVME_TCP_FES_NONE)
			abort(); /* the host wrote a PDU a controller must refuse */
		w->first = false;
		w->have = 0;
		w->skip = le32toh(ch->plen) - (uint32_t)sizeof(w->ch);
	}
}

/* Read and walk whatever the host wrote so far. */
static void drain(int fd, struct h2c_walk *w, bool walk)
{
	uint8_t b[16384];
	for (;;) {
		ssize_t n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
		if (n <= 0)
			return;
		if (walk)
			walk_bytes(w, b, (size_t)n);
	}
}

static void write_all_now(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w <= 0)
			abort(); /* a first PDU of at most 256 bytes always fits */
		p += w;
		n -= (size_t)w;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint8_t sel = fi_u8(&in);
	bool hd = sel & 1, dd = sel & 2, io = sel & 4, raw_ic = sel & 8, one = sel & 16;
	bool eof = sel & 32;
	uint8_t cpda = fi_u8(&in) % (NVME_TCP_MAX_PDA + 1);
	uint32_t maxh2c = fi_u32(&in);
	uint16_t ioccsz = fi_u16(&in);
	uint32_t rnd = fi_u8(&in) * 2654435761u + 1;
	unsigned ncmds = fi_u8(&in) % (MAX_CMDS + 1);
	uint8_t kinds[MAX_CMDS];
	for (unsigned i = 0; i < ncmds; i++)
		kinds[i] = fi_u8(&in);
	const uint8_t *s = in.p;
	size_t slen = in.n, pos = 0;
	trace = getenv("FUZZ_TRACE") != NULL;
	maxh2c = maxh2c < NVME_TCP_MIN_MAXH2CDATA ? NVME_TCP_MIN_MAXH2CDATA : maxh2c & ~3u;

	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	if (fcntl(sv[1], F_SETFL, O_NONBLOCK))
		abort();

	/* The controller's first PDU, alone: the harness's ICResp, or the stream's first. */
	if (raw_ic) {
		size_t take = slen;
		if (slen >= sizeof(struct nvme_tcp_ch)) {
			uint32_t plen = (uint32_t)s[4] | (uint32_t)s[5] << 8 |
					(uint32_t)s[6] << 16 | (uint32_t)s[7] << 24;
			plen = plen < 8 ? 8 : plen > NVMF_TH_HDR_MAX ? NVMF_TH_HDR_MAX : plen;
			take = plen < slen ? plen : slen;
		}
		write_all_now(sv[1], s, take);
		pos = take;
		if (pos == slen)
			shutdown(sv[1], SHUT_WR); /* EOF, not a wait for the rest */
	} else {
		struct fake_ctrl f;
		struct nvme_tcp_icresp r;
		memset(&f, 0, sizeof(f));
		f.hdgst = hd;
		f.ddgst = dd;
		f.cpda = cpda;
		f.maxh2cdata = maxh2c;
		fc_default_icresp(&f, &r);
		write_all_now(sv[1], (const uint8_t *)&r, sizeof(r));
	}

	struct th_host h;
	char err[256];
	int rc = th_attach(&h, sv[0], io ? 1 : 0, QSIZE, hd, dd, 2000, err, sizeof(err));
	if (trace)
		fprintf(stderr, "attach: %d %s\n", rc, err);
	if (rc) {
		if (rc > 0 || !err[0] || th_queue(&h))
			abort(); /* a failure is -errno with a message and leaves nothing */
		th_close(&h);
		close(sv[1]);
		return 0;
	}
	struct nvmf_th_queue *q = th_queue(&h);
	struct h2c_walk w = { .first = true };
	w.cp.rx_is_ctrl = true;
	w.cp.hdgst = hd;
	w.cp.ddgst = dd;
	w.cp.rx_pda = q->cpda;
	if (io)
		h.q.hq.t->set_incapsule(&h.q.hq, ioccsz);
	w.cp.rx_max_data = q->maxh2cdata > q->incapsule ? q->maxh2cdata : q->incapsule;
	/* A queue that died reading what followed the ICResp may have written an H2CTermReq
	 * before its ICReq was walked: the walk starts with the ICReq either way. */

	struct cmd cmds[MAX_CMDS];
	memset(cmds, 0, sizeof(cmds));
	for (unsigned i = 0; i < ncmds; i++) {
		struct cmd *c = &cmds[i];
		bool wr = kinds[i] & 1;
		c->len = lens[(kinds[i] >> 1) & 7];
		c->buf = c->len ? malloc(c->len) : NULL;
		if (c->len && !c->buf)
			abort();
		if (c->buf)
			fc_pattern(c->buf, c->len, i);
		struct nvme_sqe sqe;
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = wr ? 0x01 : 0x02;
		sqe.nsid = htole32(1);
		uint16_t cid = 0;
		int src = nvmfh_queue_submit(&h.q, &sqe, c->buf, c->len, wr, done, c, &cid);
		if (trace)
			fprintf(stderr, "submit %u: %s %u bytes -> %d cid %u\n", i,
				wr ? "write" : "read", c->len, src, cid);
		if (src) {
			c->calls = -1; /* not submitted: no callback is due */
			continue;
		}
		drain(sv[1], &w, true);
	}

	/* The stream in chunks, the host polled after each. */
	bool lost = false;
	for (unsigned step = 0; step < MAX_STEPS && pos < slen && !lost; step++) {
		rnd = rnd * 1103515245u + 12345u;
		size_t chunk = 1 + (rnd >> 8) % (1u << ((rnd >> 4) % 13));
		chunk = chunk < slen - pos ? chunk : slen - pos;
		ssize_t n = send(sv[1], s + pos, chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			pos += (size_t)n;
		else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			break; /* the host closed its end */
		int prc = nvmfh_queue_poll(&h.q, one ? 1 : 0);
		drain(sv[1], &w, true);
		lost = prc < 0;
	}
	if (eof && pos == slen)
		shutdown(sv[1], SHUT_WR);
	for (int i = 0; i < 4 && !lost; i++) {
		lost = nvmfh_queue_poll(&h.q, one ? 1 : 0) < 0;
		drain(sv[1], &w, true);
	}
	q = th_queue(&h);
	if (q && q->dead && !q->err[0])
		abort(); /* a dead queue says why */

	th_close(&h);
	close(sv[1]);
	for (unsigned i = 0; i < ncmds; i++) {
		struct cmd *c = &cmds[i];
		if (c->calls == 0)
			abort(); /* every submitted command completes */
		free(c->buf);
	}
	return 0;
}
