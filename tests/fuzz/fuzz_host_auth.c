/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: libnvmf's DH-HMAC-CHAP host side (initiator/auth.c) against a
 * controller whose every answer comes from the input: what the host does with malformed,
 * lying or hostile Challenge, Success1 and Failure1 messages.
 *
 * Input (tests/fuzz/fuzz_input.h fields): a flags byte (bit 0: a controller secret is
 * given; bit 1: the Connect response sets AUTHREQ.ASCR; bit 2: it does not set ATR),
 * then one answer per Authentication Receive: a kind byte, then
 *   0  raw: a 16-bit length and that many bytes (the rest zero); with bit 7 of the kind
 *      byte set, bytes 4-5 then get our transaction id (random, unguessable otherwise);
 *   1  a Challenge from fields: hash id, HL, DH group id, DHVLEN, S1, whether its
 *      transaction id is ours, then bytes for C1 and the DH value;
 *   2  AUTH_Failure1 with an explanation byte;
 *   3  the command fails: a 16-bit NVMe status (0 taken as the connection lost).
 * Every other command (Property Get after authentication...) fails, so no connect
 * succeeds.
 * Checked: nvmf_connect fails and leaves no controller; every message the host sends is
 * a well-formed AUTH_Negotiate, Reply, Success2 or Failure2 of its own transaction;
 * nothing follows a Failure2; with a controller secret the host never sends Success2
 * (no input can hold the right R2); a controller that does not ask gets no message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/internal.h"
#include "nvme/auth.h"
#include "tests/fuzz/fuzz_input.h"
#include "nvme/fabrics.h"

#define HOST_KEY "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define CTRL_KEY "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:"

struct fake {
	struct fuzz_in *in;
	uint32_t connect_dw0;
	bool ctrl_secret;
	uint16_t t_id; /* from the Negotiate */
	unsigned sent; /* Authentication Send commands */
	bool failure2_sent;
	struct nvme_cqe cqes[NVMFH_ADMIN_QUEUE_SIZE];
	unsigned ncqes;
};

static struct fake *F; /* the run's fake controller (one run at a time) */

/* What the host sent: it must be one of its four messages, of its transaction. */
static void check_sent(const uint8_t *m, uint32_t len)
{
	if (F->failure2_sent || len < 8)
		abort(); /* nothing after a Failure2; no message is shorter than 8 bytes */
	uint16_t t_id = (uint16_t)(m[4] | m[5] << 8);
	if (F->sent++ == 0) {
		if (m[0] != NVME_AUTH_COMMON_MESSAGES || m[1] != NVME_AUTH_MSG_NEGOTIATE ||
		    len != nvme_auth_negotiate_len(1))
			abort();
		F->t_id = t_id;
		return;
	}
	if (t_id != F->t_id)
		abort();
	if (m[0] == NVME_AUTH_COMMON_MESSAGES && m[1] == NVME_AUTH_MSG_FAILURE2) {
		if (len != sizeof(struct nvme_auth_failure) ||
		    m[6] != NVME_AUTH_FAILURE_REASON_FAILED || m[7] < NVME_AUTH_FAILURE_FAILED ||
		    m[7] > NVME_AUTH_FAILURE_INCORRECT_MESSAGE)
			abort();
		F->failure2_sent = true;
		return;
	}
	if (m[0] != NVME_AUTH_DHCHAP_MESSAGES)
		abort();
	if (m[1] == NVME_AUTH_MSG_REPLY) {
		const struct nvme_auth_reply *r = (const void *)m;
		if ((r->hl != 32 && r->hl != 48 && r->hl != 64) || r->cvalid != F->ctrl_secret ||
		    len != nvme_auth_reply_len(r->hl, le16toh(r->dhvlen)))
			abort();
		return;
	}
	/* A Success2 accepts the controller: never without its secret's R2. */
	if (m[1] != NVME_AUTH_MSG_SUCCESS2 || len != sizeof(struct nvme_auth_success2) ||
	    F->ctrl_secret)
		abort();
}

/* The next Authentication Receive's answer into @buf (@len bytes): 0, an NVMe status,
 * or -ECONNRESET. */
static int answer(uint8_t *buf, uint32_t len)
{
	struct fuzz_in *in = F->in;
	memset(buf, 0, len);
	uint8_t kind = fi_u8(in);
	switch (kind % 4) {
	case 0: {
		uint16_t n = fi_u16(in);
		fi_bytes(in, buf, n < len ? n : len);
		if (kind & 0x80) {
			buf[4] = (uint8_t)F->t_id;
			buf[5] = (uint8_t)(F->t_id >> 8);
		}
		return 0;
	}
	case 1: {
		struct nvme_auth_challenge c = { .auth_type = NVME_AUTH_DHCHAP_MESSAGES,
						 .auth_id = NVME_AUTH_MSG_CHALLENGE };
		c.hashid = fi_u8(in);
		c.hl = fi_u8(in);
		c.dhgid = fi_u8(in);
		c.dhvlen = htole16(fi_u16(in));
		c.seqnum = htole32(fi_u32(in));
		c.t_id = htole16(fi_u8(in) & 1 ? F->t_id : fi_u16(in));
		memcpy(buf, &c, sizeof(c));
		fi_bytes(in, buf + sizeof(c), len - sizeof(c) < 1200 ? len - sizeof(c) : 1200);
		return 0;
	}
	case 2: {
		struct nvme_auth_failure f = { .auth_type = NVME_AUTH_COMMON_MESSAGES,
					       .auth_id = NVME_AUTH_MSG_FAILURE1,
					       .t_id = htole16(F->t_id),
					       .rescode = NVME_AUTH_FAILURE_REASON_FAILED,
					       .rescode_exp = fi_u8(in) };
		memcpy(buf, &f, sizeof(f));
		return 0;
	}
	default: {
		uint16_t st = fi_u16(in) & 0x7fff;
		return st ? st : -ECONNRESET;
	}
	}
}

static int fake_connect(struct nvmf_hq *q, const struct nvmf_ctrl_opts *o, uint16_t qid,
			uint16_t size, char *err, size_t errlen)
{
	(void)q;
	(void)o;
	(void)qid;
	(void)size;
	(void)err;
	(void)errlen;
	return 0;
}

static void fake_disconnect(struct nvmf_hq *q)
{
	(void)q;
}

static int fake_submit(struct nvmf_hq *q, struct nvmf_hcmd *cmd)
{
	(void)q;
	if (F->ncqes == NVMFH_ADMIN_QUEUE_SIZE)
		return -EAGAIN;
	const uint8_t *b = (const uint8_t *)&cmd->sqe;
	struct nvme_cqe cqe;
	memset(&cqe, 0, sizeof(cqe));
	cqe.command_id = cmd->sqe.command_id;
	int st = NVME_SC_INTERNAL;
	if (cmd->sqe.opcode == nvme_admin_fabrics) {
		switch (b[NVMF_SQE_FCTYPE_OFF]) {
		case nvme_fabrics_type_connect:
			cqe.result.u32 = htole32(F->connect_dw0);
			st = 0;
			break;
		case nvme_fabrics_type_auth_send:
			if (!cmd->write || !cmd->len ||
			    nvme_sqe_le32(&cmd->sqe, NVMF_AUTH_SQE_LEN) != cmd->len)
				abort();
			check_sent(cmd->buf, cmd->len);
			st = 0;
			break;
		case nvme_fabrics_type_auth_receive:
			if (cmd->write || nvme_sqe_le32(&cmd->sqe, NVMF_AUTH_SQE_LEN) != cmd->len)
				abort();
			st = answer(cmd->buf, cmd->len);
			if (st < 0)
				return st;
			break;
		}
	}
	cqe.status = htole16((uint16_t)(st << 1));
	F->cqes[F->ncqes++] = cqe;
	return 0;
}

static int fake_poll(struct nvmf_hq *q, unsigned max)
{
	(void)max;
	unsigned n = F->ncqes;
	F->ncqes = 0;
	for (unsigned i = 0; i < n; i++)
		nvmf_hq_complete(q, &F->cqes[i]);
	return (int)n;
}

static int fake_wait(struct nvmf_hq *q, int timeout_ms)
{
	(void)q;
	(void)timeout_ms;
	return 0;
}

static const struct nvmf_host_transport fake_transport = {
	.name = "fuzz",
	.queue_connect = fake_connect,
	.queue_disconnect = fake_disconnect,
	.submit = fake_submit,
	.poll = fake_poll,
	.wait = fake_wait,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct fake f = { .in = &in };
	F = &f;
	uint8_t flags = fi_u8(&in);
	f.ctrl_secret = flags & 1;
	f.connect_dw0 = 1;
	if (flags & 2)
		f.connect_dw0 |= NVMF_CONNECT_AUTHREQ_ASCR;
	if (!(flags & 4))
		f.connect_dw0 |= NVMF_CONNECT_AUTHREQ_ATR;
	struct nvmf_ctrl_opts o = {
		.transport = &fake_transport,
		.subnqn = "nqn.2026-12.io.nvmf-rdma:fuzz",
		.hostnqn = "nqn.2026-12.io.nvmf-rdma:host",
		.timeout_ms = 1000,
		.dhchap_secret = HOST_KEY,
		.dhchap_ctrl_secret = f.ctrl_secret ? CTRL_KEY : NULL,
	};
	static const uint8_t hostid[16] = { 1 };
	o.hostid = hostid;
	struct nvmf_ctrl *c = NULL;
	int rc = nvmf_connect(&o, &c);
	if (!rc || c)
		abort(); /* every command past authentication fails */
	if (!(f.connect_dw0 & NVMF_CONNECT_AUTHREQ_ATR) && f.sent)
		abort(); /* a controller that does not ask gets no authentication message */
	F = NULL;
	return 0;
}
