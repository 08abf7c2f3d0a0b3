/* libnvmf DH-HMAC-CHAP against a scripted controller: a host transport in this file that
 * answers Connect with AUTHREQ as told and each Authentication Receive with a message
 * the test builds, so every check the host makes of the controller's messages is
 * exercised (a correct target never sends them): each gets the error the library
 * documents and the AUTH_Failure2 with the spec's reason. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/transport.h"
#include "nvme/auth.h"
#include "nvme/dhchap.h"
#include "tests/unit/suites.h"
#include "nvme/fabrics.h"

#define HOST_KEY "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define CTRL_KEY "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:"

/* Builds the @n-th (0-based) Authentication Receive answer into @buf (@len bytes) given
 * the transaction id the host negotiated; returns an NVMe status to fail it instead, or
 * LOST: the connection goes away instead of an answer. */
#define LOST (-1)
typedef int (*answer_fn)(unsigned n, uint16_t t_id, uint8_t *buf, size_t len);

static struct {
	uint32_t connect_dw0;
	answer_fn answer;
	unsigned receives;
	uint16_t t_id;                 /* from the Negotiate */
	uint8_t sent[8][2048];         /* Authentication Send data, in order */
	size_t sent_len[8];
	unsigned nsent;
	struct nvme_cqe pending[4];
	unsigned npending;
} S;

static int fk_connect(struct nvmf_hq *q, const struct nvmf_ctrl_opts *o, uint16_t qid,
		      uint16_t size, char *err, size_t errlen)
{
	(void)q; (void)o; (void)qid; (void)size; (void)err; (void)errlen;
	return 0;
}

static void fk_disconnect(struct nvmf_hq *q)
{
	(void)q;
}

static int fk_submit(struct nvmf_hq *q, struct nvmf_hcmd *cmd)
{
	(void)q;
	const uint8_t *b = (const uint8_t *)&cmd->sqe;
	struct nvme_cqe cqe;
	memset(&cqe, 0, sizeof(cqe));
	cqe.command_id = cmd->sqe.command_id;
	uint16_t status = 0;
	if (cmd->sqe.opcode != nvme_admin_fabrics) {
		status = NVME_SC_AUTH_REQUIRED | 0x100 | NVME_SC_DNR;
	} else if (b[NVMF_SQE_FCTYPE_OFF] == nvme_fabrics_type_connect) {
		cqe.result.u32 = htole32(S.connect_dw0);
	} else if (b[NVMF_SQE_FCTYPE_OFF] == nvme_fabrics_type_auth_send) {
		CU_ASSERT_FATAL(S.nsent < 8 && cmd->len <= sizeof(S.sent[0]));
		memcpy(S.sent[S.nsent], cmd->buf, cmd->len);
		S.sent_len[S.nsent++] = cmd->len;
		if (S.nsent == 1)
			S.t_id = (uint16_t)(S.sent[0][4] | S.sent[0][5] << 8);
	} else if (b[NVMF_SQE_FCTYPE_OFF] == nvme_fabrics_type_auth_receive) {
		memset(cmd->buf, 0, cmd->len);
		int a = S.answer(S.receives++, S.t_id, cmd->buf, cmd->len);
		if (a == LOST)
			return -ECONNRESET;
		status = (uint16_t)a;
	} else {
		status = NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	cqe.status = htole16((uint16_t)(status << 1));
	S.pending[S.npending++] = cqe;
	return 0;
}

static int fk_poll(struct nvmf_hq *q, unsigned max)
{
	(void)max;
	unsigned n = S.npending;
	S.npending = 0;
	for (unsigned i = 0; i < n; i++)
		nvmf_hq_complete(q, &S.pending[i]);
	return (int)n;
}

static int fk_wait(struct nvmf_hq *q, int timeout_ms)
{
	(void)q; (void)timeout_ms;
	return 0;
}

static const struct nvmf_host_transport fake = {
	.name = "scripted", .queue_connect = fk_connect, .queue_disconnect = fk_disconnect,
	.submit = fk_submit, .poll = fk_poll, .wait = fk_wait,
};

/* Connect with @ctrl_secret (or none) to a controller answering with @fn; the rc. */
static int run(answer_fn fn, const char *ctrl_secret)
{
	memset(&S, 0, sizeof(S));
	S.connect_dw0 = 1 | NVMF_CONNECT_AUTHREQ_ATR;
	S.answer = fn;
	struct nvmf_ctrl_opts o;
	memset(&o, 0, sizeof(o));
	o.transport = &fake;
	o.subnqn = "nqn.2026-11.io.nvmf-rdma:scripted";
	o.hostnqn = "nqn.2026-11.io.nvmf-rdma:host1";
	o.timeout_ms = 1000;
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = ctrl_secret;
	struct nvmf_ctrl *c = NULL;
	int rc = nvmf_connect(&o, &c);
	CU_ASSERT_PTR_NULL(c);
	if (c)
		nvmf_disconnect(c);
	return rc;
}

/* The last message the host sent is AUTH_Failure2 of our transaction with @exp. */
static void assert_failure2(uint8_t exp)
{
	CU_ASSERT_FATAL(S.nsent > 0);
	const struct nvme_auth_failure *f = (const void *)S.sent[S.nsent - 1];
	CU_ASSERT_EQUAL(S.sent_len[S.nsent - 1], sizeof(*f));
	CU_ASSERT_EQUAL(f->auth_type, NVME_AUTH_COMMON_MESSAGES);
	CU_ASSERT_EQUAL(f->auth_id, NVME_AUTH_MSG_FAILURE2);
	CU_ASSERT_EQUAL(le16toh(f->t_id), S.t_id);
	CU_ASSERT_EQUAL(f->rescode, NVME_AUTH_FAILURE_REASON_FAILED);
	CU_ASSERT_EQUAL(f->rescode_exp, exp);
}

static void has(const char *what)
{
	const char *m = nvmf_last_errmsg();
	if (!strstr(m, what))
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", m, what);
	CU_ASSERT_PTR_NOT_NULL(strstr(m, what));
}

/* A Challenge: SHA-256, the null group, S1 7, C1 all 0x5a; the caller spoils it. */
static size_t challenge(uint16_t t_id, uint8_t *buf)
{
	struct nvme_auth_challenge *c = (void *)buf;
	c->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	c->auth_id = NVME_AUTH_MSG_CHALLENGE;
	c->t_id = htole16(t_id);
	c->hl = 32;
	c->hashid = NVME_AUTH_HASH_SHA256;
	c->dhgid = NVME_AUTH_DHGROUP_NULL;
	c->seqnum = htole32(7);
	memset(c->cval, 0x5a, 32);
	return nvme_auth_challenge_len(32, 0);
}

static int bad_hash(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)len;
	challenge(t_id, buf);
	((struct nvme_auth_challenge *)buf)->hashid = 4;
	return 0;
}

static int bad_hl(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)len;
	challenge(t_id, buf);
	((struct nvme_auth_challenge *)buf)->hl = 48;
	return 0;
}

static int bad_group(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)len;
	challenge(t_id, buf);
	((struct nvme_auth_challenge *)buf)->dhgid = 6;
	return 0;
}

static int null_group_with_dh_value(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)len;
	challenge(t_id, buf);
	((struct nvme_auth_challenge *)buf)->dhvlen = htole16(256);
	return 0;
}

static int other_transaction(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)len;
	challenge((uint16_t)(t_id + 1), buf);
	return 0;
}

static int success1_first(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)len;
	challenge(t_id, buf);
	buf[1] = NVME_AUTH_MSG_SUCCESS1;
	return 0;
}

/* ffdhe2048 with the DH value 1: refused (a value of 1 gives the shared secret 1). */
static int dh_value_one(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)len;
	challenge(t_id, buf);
	struct nvme_auth_challenge *c = (void *)buf;
	c->dhgid = NVME_AUTH_DHGROUP_2048;
	c->dhvlen = htole16(256);
	c->cval[32 + 255] = 1;
	return 0;
}

static int receive_fails(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)t_id; (void)buf; (void)len;
	return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
}

/* A good Challenge, then Success1 spoiled by @n's caller through these two. */
static int success1_without_r2(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)len;
	if (n == 0) {
		challenge(t_id, buf);
		return 0;
	}
	struct nvme_auth_success1 *s = (void *)buf;
	s->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	s->auth_id = NVME_AUTH_MSG_SUCCESS1;
	s->t_id = htole16(t_id);
	s->hl = 32;
	s->rvalid = 0;
	return 0;
}

static int success1_bad_hl(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	int rc = success1_without_r2(n, t_id, buf, len);
	if (n == 1)
		((struct nvme_auth_success1 *)buf)->hl = 64;
	return rc;
}

static int failure1_hash(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n; (void)len;
	struct nvme_auth_failure *f = (void *)buf;
	f->auth_type = NVME_AUTH_COMMON_MESSAGES;
	f->auth_id = NVME_AUTH_MSG_FAILURE1;
	f->t_id = htole16(t_id);
	f->rescode = NVME_AUTH_FAILURE_REASON_FAILED;
	f->rescode_exp = NVME_AUTH_FAILURE_HASH_UNUSABLE;
	return 0;
}

/* A good Challenge, then the connection is gone (the kernel target after a wrong Reply). */
static int lost_after_reply(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)len;
	if (n)
		return LOST;
	challenge(t_id, buf);
	return 0;
}

static void negotiate_offers_every_hash_and_group(void)
{
	CU_ASSERT_EQUAL(run(bad_hash, NULL), -EPROTO);
	const struct nvme_auth_negotiate *n = (const void *)S.sent[0];
	CU_ASSERT_EQUAL(S.sent_len[0], nvme_auth_negotiate_len(1));
	CU_ASSERT_EQUAL(n->auth_type, NVME_AUTH_COMMON_MESSAGES);
	CU_ASSERT_EQUAL(n->auth_id, NVME_AUTH_MSG_NEGOTIATE);
	CU_ASSERT_EQUAL(n->sc_c, NVME_AUTH_SC_NONE);
	CU_ASSERT_EQUAL(n->napd, 1);
	CU_ASSERT_EQUAL(n->desc[0].authid, NVME_AUTH_DHCHAP_AUTH_ID);
	CU_ASSERT_EQUAL(n->desc[0].halen, 3);
	CU_ASSERT_EQUAL(n->desc[0].dhlen, 6);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(n->desc[0].idlist[i], i + 1);
	for (unsigned i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(n->desc[0].idlist[NVME_AUTH_IDLIST_DH + i], i);
}

static void challenge_with_a_hash_not_offered_is_hash_unusable(void)
{
	CU_ASSERT_EQUAL(run(bad_hash, NULL), -EPROTO);
	assert_failure2(NVME_AUTH_FAILURE_HASH_UNUSABLE);
	has("hash 04h");
	has("sent AUTH_Failure2 (hash function not usable)");
}

static void challenge_with_the_wrong_hl_is_incorrect_payload(void)
{
	CU_ASSERT_EQUAL(run(bad_hl, NULL), -EPROTO);
	assert_failure2(NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	has("HL is 48");
}

static void challenge_with_an_unknown_group_is_dhgroup_unusable(void)
{
	CU_ASSERT_EQUAL(run(bad_group, NULL), -EPROTO);
	assert_failure2(NVME_AUTH_FAILURE_DHGROUP_UNUSABLE);
	has("DH group 06h");
}

static void challenge_with_a_dh_value_for_the_null_group_is_incorrect_payload(void)
{
	CU_ASSERT_EQUAL(run(null_group_with_dh_value, NULL), -EPROTO);
	assert_failure2(NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	has("DHVLEN is 256, null has 0");
}

static void challenge_of_another_transaction_is_incorrect_message(void)
{
	CU_ASSERT_EQUAL(run(other_transaction, NULL), -EPROTO);
	assert_failure2(NVME_AUTH_FAILURE_INCORRECT_MESSAGE);
	has("transaction");
}

static void success1_instead_of_challenge_is_incorrect_message(void)
{
	CU_ASSERT_EQUAL(run(success1_first, NULL), -EPROTO);
	assert_failure2(NVME_AUTH_FAILURE_INCORRECT_MESSAGE);
	has("expected DH-HMAC-CHAP_Challenge, received message type 01h id 03h");
}

static void controller_dh_value_of_one_is_refused(void)
{
	CU_ASSERT_EQUAL(run(dh_value_one, NULL), -EPROTO);
	assert_failure2(NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	has("the controller's DH value");
	CU_ASSERT_EQUAL(S.nsent, 2);   /* Negotiate, Failure2: no Reply */
}

static void receive_error_status_is_returned(void)
{
	CU_ASSERT_EQUAL(run(receive_fails, NULL), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	has("queue 0: Authentication Receive");
	CU_ASSERT_EQUAL(S.nsent, 1);
}

static void success1_without_r2_when_bidirectional_is_rejected(void)
{
	CU_ASSERT_EQUAL(run(success1_without_r2, CTRL_KEY), -EKEYREJECTED);
	assert_failure2(NVME_AUTH_FAILURE_FAILED);
	has("without R2");
	/* The Reply asked for it: cvalid, S2 not 0. */
	const struct nvme_auth_reply *r = (const void *)S.sent[1];
	CU_ASSERT_EQUAL(r->auth_id, NVME_AUTH_MSG_REPLY);
	CU_ASSERT_EQUAL(r->cvalid, 1);
	CU_ASSERT_NOT_EQUAL(r->seqnum, 0);
	CU_ASSERT_EQUAL(S.sent_len[1], nvme_auth_reply_len(32, 0));
}

static void success1_with_the_wrong_hl_is_incorrect_payload(void)
{
	CU_ASSERT_EQUAL(run(success1_bad_hl, NULL), -EPROTO);
	assert_failure2(NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	has("Success1's HL is 64");
}

static void failure1_names_the_controllers_reason(void)
{
	CU_ASSERT_EQUAL(run(failure1_hash, NULL), -EKEYREJECTED);
	has("AUTH_Failure1, hash function not usable (reason code 01h, explanation 04h)");
	CU_ASSERT_EQUAL(S.nsent, 1);   /* no Failure2 to a Failure1 */
}

static void connection_lost_after_the_reply_says_the_secret_was_likely_refused(void)
{
	CU_ASSERT_EQUAL(run(lost_after_reply, NULL), -ECONNRESET);
	has("queue 0: Authentication Receive: ");
	has("instead of answering our Reply: it most likely refused the host secret");
	CU_ASSERT_EQUAL(S.nsent, 2);   /* Negotiate, Reply */
}

static void secure_channel_concatenation_is_eopnotsupp(void)
{
	memset(&S, 0, sizeof(S));
	S.connect_dw0 = 1 | NVMF_CONNECT_AUTHREQ_ATR | NVMF_CONNECT_AUTHREQ_ASCR;
	S.answer = bad_hash;
	struct nvmf_ctrl_opts o;
	memset(&o, 0, sizeof(o));
	o.transport = &fake;
	o.subnqn = "nqn.2026-11.io.nvmf-rdma:scripted";
	o.dhchap_secret = HOST_KEY;
	struct nvmf_ctrl *c = NULL;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &c), -EOPNOTSUPP);
	has("AUTHREQ.ASCR");
	CU_ASSERT_EQUAL(S.nsent, 0);
}

const struct unit_test initiator_auth_bad_tests[] = {
	{"negotiate_offers_every_hash_and_group", negotiate_offers_every_hash_and_group},
	{"challenge_with_a_hash_not_offered_is_hash_unusable", challenge_with_a_hash_not_offered_is_hash_unusable},
	{"challenge_with_the_wrong_hl_is_incorrect_payload", challenge_with_the_wrong_hl_is_incorrect_payload},
	{"challenge_with_an_unknown_group_is_dhgroup_unusable", challenge_with_an_unknown_group_is_dhgroup_unusable},
	{"challenge_with_a_dh_value_for_the_null_group_is_incorrect_payload", challenge_with_a_dh_value_for_the_null_group_is_incorrect_payload},
	{"challenge_of_another_transaction_is_incorrect_message", challenge_of_another_transaction_is_incorrect_message},
	{"success1_instead_of_challenge_is_incorrect_message", success1_instead_of_challenge_is_incorrect_message},
	{"controller_dh_value_of_one_is_refused", controller_dh_value_of_one_is_refused},
	{"receive_error_status_is_returned", receive_error_status_is_returned},
	{"success1_without_r2_when_bidirectional_is_rejected", success1_without_r2_when_bidirectional_is_rejected},
	{"success1_with_the_wrong_hl_is_incorrect_payload", success1_with_the_wrong_hl_is_incorrect_payload},
	{"failure1_names_the_controllers_reason", failure1_names_the_controllers_reason},
	{"connection_lost_after_the_reply_says_the_secret_was_likely_refused", connection_lost_after_the_reply_says_the_secret_was_likely_refused},
	{"secure_channel_concatenation_is_eopnotsupp", secure_channel_concatenation_is_eopnotsupp},
	{NULL, NULL},
};
