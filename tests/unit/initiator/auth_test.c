/* libnvmf DH-HMAC-CHAP (initiator/auth.c) against our target (target/auth.c) through the
 * loop host transport: every hash and DH group, bidirectional, the failures and their
 * messages, and that nothing reaches the namespace when authentication fails. The
 * controller-message checks of the host are in initiator_auth_bad (a scripted
 * controller). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "initiator/transport.h"
#include "nvme/auth.h"
#include "nvme/dhchap.h"
#include "nvme/fabrics.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

/* `nvme gen-dhchap-key` secrets (the target's auth tests use the same). */
#define HOST_KEY "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define CTRL_KEY "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:"
#define OTHER_KEY \
	"DHHC-1:02:z4TrAW32nxlXcjD1k2MD2dw718ixnFci6MaNJBrlNf4PCs3Moq0GL4ZsU+Gj07JrUw6SIQ==:"

static struct lpf F;

static void setup(const char *key, const char *ctrl_key, const char *hash, const char *group)
{
	struct loop_host_params p = { .dhchap_key = key,
				      .dhchap_ctrl_key = ctrl_key,
				      .dhchap_hash = hash,
				      .dhchap_dhgroup = group };
	lpf_target(&F, &p);
}

static unsigned sends(void)
{
	return loop_host_fabrics_count(F.lh, nvme_fabrics_type_auth_send);
}

static unsigned receives(void)
{
	return loop_host_fabrics_count(F.lh, nvme_fabrics_type_auth_receive);
}

/* Write 8 blocks of a pattern at @slba and read them back. */
static void check_io(uint64_t slba, uint8_t seed)
{
	uint8_t w[4096], r[4096];
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(seed + i * 7);
	memset(r, 0, sizeof(r));
	CU_ASSERT_EQUAL(nvmf_write(F.ctrl, 1, slba, 8, w), 0);
	CU_ASSERT_EQUAL(nvmf_read(F.ctrl, 1, slba, 8, r), 0);
	CU_ASSERT_EQUAL(memcmp(w, r, sizeof(w)), 0);
}

static void every_hash_and_group_authenticates_every_queue(void)
{
	static const char *const hashes[] = { "hmac(sha256)", "hmac(sha384)", "hmac(sha512)" };
	static const char *const groups[] = { "null",      "ffdhe2048", "ffdhe3072",
					      "ffdhe4096", "ffdhe6144", "ffdhe8192" };
	for (unsigned h = 0; h < 3; h++) {
		for (unsigned g = 0; g < 6; g++) {
			setup(HOST_KEY, NULL, hashes[h], groups[g]);
			struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
			o.dhchap_secret = HOST_KEY;
			o.nr_io_queues = 2;
			int rc = nvmf_connect(&o, &F.ctrl);
			CU_ASSERT_EQUAL(rc, 0);
			if (rc) {
				fprintf(stderr, "%s %s: %s\n", hashes[h], groups[g],
					nvmf_last_errmsg());
				lpf_teardown(&F);
				continue;
			}
			struct nvmf_auth_info ai;
			CU_ASSERT_EQUAL(nvmf_ctrl_auth_info(F.ctrl, &ai), 0);
			CU_ASSERT_TRUE(ai.authenticated);
			CU_ASSERT_FALSE(ai.bidirectional);
			CU_ASSERT_EQUAL(ai.hash_id, h + 1);
			CU_ASSERT_EQUAL(ai.dhgroup_id, g);
			/* Admin and both I/O queues: Negotiate and Reply sent, Challenge and
			 * Success1 received; no Success2 without a controller secret. */
			CU_ASSERT_EQUAL(sends(), 3 * 2);
			CU_ASSERT_EQUAL(receives(), 3 * 2);
			check_io(8 * (h * 6 + g), (uint8_t)(h * 6 + g));
			lpf_teardown(&F);
		}
	}
}

/* With a controller secret, on both kinds of exchange (a DH group and the null group). */
static void bidirectional_checks_the_controller_and_sends_success2(void)
{
	static const struct {
		const char *hash, *group;
		uint8_t dhgroup_id;
	} pairs[] = {
		{ "hmac(sha384)", "ffdhe2048", 1 },
		{ "hmac(sha512)", "null", 0 },
	};
	for (unsigned i = 0; i < 2; i++) {
		setup(HOST_KEY, CTRL_KEY, pairs[i].hash, pairs[i].group);
		struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
		o.dhchap_secret = HOST_KEY;
		o.dhchap_ctrl_secret = CTRL_KEY;
		CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
		struct nvmf_auth_info ai;
		CU_ASSERT_EQUAL(nvmf_ctrl_auth_info(F.ctrl, &ai), 0);
		CU_ASSERT_TRUE(ai.authenticated);
		CU_ASSERT_TRUE(ai.bidirectional);
		CU_ASSERT_EQUAL(ai.dhgroup_id, pairs[i].dhgroup_id);
		CU_ASSERT_EQUAL(sends(), 2 * 3); /* admin and one I/O queue, with Success2 */
		check_io(16 * i, (uint8_t)(3 + i));
		lpf_teardown(&F);
	}
}

static void wrong_host_secret_is_refused_with_the_controllers_reason(void)
{
	setup(HOST_KEY, NULL, "hmac(sha256)", "ffdhe2048");
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.dhchap_secret = OTHER_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EKEYREJECTED);
	CU_ASSERT_PTR_NULL(F.ctrl);
	const char *m = nvmf_last_errmsg();
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "queue 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "AUTH_Failure1, authentication failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "explanation 01h"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, LH_HOSTNQN));
	/* Nothing past authentication: no Identify, no I/O queue, no I/O. */
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_identify), 0);
	CU_ASSERT_EQUAL(loop_host_io_count(F.lh, nvme_cmd_write), 0);
	CU_ASSERT_EQUAL(loop_host_io_count(F.lh, nvme_cmd_read), 0);
	lpf_teardown(&F);
}

/* The controller has no controller secret for us: its "authentication failed" may mean
 * that or a wrong host secret, and the message says both. */
static void controller_without_a_controller_secret_refuses_bidirectional(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EKEYREJECTED);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "AUTH_Failure1, authentication failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(),
				      "or it has no controller secret for it "
				      "(bidirectional authentication was asked for)"));
	lpf_teardown(&F);
}

static void no_secret_for_a_controller_that_requires_one_is_eacces(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "requires in-band authentication"));
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "--dhchap-secret"));
	CU_ASSERT_EQUAL(sends(), 0);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_identify), 0);
	lpf_teardown(&F);
}

static void wrong_controller_secret_refuses_the_controller(void)
{
	setup(HOST_KEY, CTRL_KEY, "hmac(sha256)", "null");
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = OTHER_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EKEYREJECTED);
	const char *m = nvmf_last_errmsg();
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "response (R2) is wrong"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "sent AUTH_Failure2 (authentication failed)"));
	/* Negotiate, Reply, Failure2: never Success2. */
	CU_ASSERT_EQUAL(sends(), 3);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_identify), 0);
	lpf_teardown(&F);
}

static void controller_secret_with_a_controller_that_does_not_authenticate_is_eacces(void)
{
	setup(NULL, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "does not authenticate"));
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_identify), 0);
	lpf_teardown(&F);
}

static void host_secret_with_a_controller_that_does_not_ask_connects(void)
{
	setup(NULL, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.dhchap_secret = HOST_KEY;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	struct nvmf_auth_info ai;
	nvmf_ctrl_auth_info(F.ctrl, &ai);
	CU_ASSERT_FALSE(ai.authenticated);
	CU_ASSERT_EQUAL(sends(), 0);
	check_io(0, 9);
	lpf_teardown(&F);
}

static void malformed_secrets_are_einval_naming_the_option(void)
{
	setup(NULL, NULL, NULL, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.dhchap_secret = "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD/:"; /* CRC */
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "dhchap_secret: "));
	CU_ASSERT_PTR_NULL(strstr(nvmf_last_errmsg(), "ab3CAVb")); /* never the secret */
	o.dhchap_secret = HOST_KEY;
	o.dhchap_ctrl_secret = "DHHC-1:09:AAAA:";
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "dhchap_ctrl_secret: "));
	o.dhchap_secret = NULL;
	o.dhchap_ctrl_secret = CTRL_KEY;
	CU_ASSERT_EQUAL(nvmf_connect(&o, &F.ctrl), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "needs dhchap_secret"));
	/* Nothing was sent for any of them. */
	CU_ASSERT_EQUAL(loop_host_fabrics_count(F.lh, nvme_fabrics_type_connect), 0);
	lpf_teardown(&F);
}

static void reconnect_authenticates_again_with_the_same_secrets(void)
{
	setup(HOST_KEY, CTRL_KEY, "hmac(sha256)", "ffdhe2048");
	char secret[] = HOST_KEY, csecret[] = CTRL_KEY;
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.dhchap_secret = secret;
	o.dhchap_ctrl_secret = csecret;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	/* The library keeps no pointer to the caller's strings. */
	memset(secret, 'x', sizeof(secret) - 1);
	memset(csecret, 'x', sizeof(csecret) - 1);
	check_io(0, 1);
	unsigned before = sends();
	loop_host_break(F.lh);
	CU_ASSERT_EQUAL_FATAL(nvmf_reconnect(F.ctrl), 0);
	CU_ASSERT_EQUAL(sends() - before, 2 * 3);
	struct nvmf_auth_info ai;
	nvmf_ctrl_auth_info(F.ctrl, &ai);
	CU_ASSERT_TRUE(ai.bidirectional);
	check_io(8, 2);
	lpf_teardown(&F);
}

/* libnvmf DH-HMAC-CHAP against a scripted controller: a host transport in this file that
 * answers Connect with AUTHREQ as told and each Authentication Receive with a message
 * the test builds, so every check the host makes of the controller's messages is
 * exercised (a correct target never sends them): each gets the error the library
 * documents and the AUTH_Failure2 with the spec's reason. */

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
	uint16_t t_id;         /* from the Negotiate */
	uint8_t sent[8][2048]; /* Authentication Send data, in order */
	size_t sent_len[8];
	unsigned nsent;
	struct nvme_cqe pending[4];
	unsigned npending;
} S;

static int fk_connect(struct nvmf_hq *q, const struct nvmf_ctrl_opts *o, uint16_t qid,
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
	(void)q;
	(void)timeout_ms;
	return 0;
}

static const struct nvmf_host_transport fake = {
	.name = "scripted",
	.queue_connect = fk_connect,
	.queue_disconnect = fk_disconnect,
	.submit = fk_submit,
	.poll = fk_poll,
	.wait = fk_wait,
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
	(void)n;
	(void)len;
	challenge(t_id, buf);
	((struct nvme_auth_challenge *)buf)->hashid = 4;
	return 0;
}

static int bad_hl(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n;
	(void)len;
	challenge(t_id, buf);
	((struct nvme_auth_challenge *)buf)->hl = 48;
	return 0;
}

static int bad_group(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n;
	(void)len;
	challenge(t_id, buf);
	((struct nvme_auth_challenge *)buf)->dhgid = 6;
	return 0;
}

static int null_group_with_dh_value(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n;
	(void)len;
	challenge(t_id, buf);
	((struct nvme_auth_challenge *)buf)->dhvlen = htole16(256);
	return 0;
}

static int other_transaction(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n;
	(void)len;
	challenge((uint16_t)(t_id + 1), buf);
	return 0;
}

static int success1_first(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n;
	(void)len;
	challenge(t_id, buf);
	buf[1] = NVME_AUTH_MSG_SUCCESS1;
	return 0;
}

/* ffdhe2048 with the DH value 1: refused (a value of 1 gives the shared secret 1). */
static int dh_value_one(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n;
	(void)len;
	challenge(t_id, buf);
	struct nvme_auth_challenge *c = (void *)buf;
	c->dhgid = NVME_AUTH_DHGROUP_2048;
	c->dhvlen = htole16(256);
	c->cval[32 + 255] = 1;
	return 0;
}

static int receive_fails(unsigned n, uint16_t t_id, uint8_t *buf, size_t len)
{
	(void)n;
	(void)t_id;
	(void)buf;
	(void)len;
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
	(void)n;
	(void)len;
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
	CU_ASSERT_EQUAL(S.nsent, 2); /* Negotiate, Failure2: no Reply */
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
	CU_ASSERT_EQUAL(S.nsent, 1); /* no Failure2 to a Failure1 */
}

static void connection_lost_after_the_reply_says_the_secret_was_likely_refused(void)
{
	CU_ASSERT_EQUAL(run(lost_after_reply, NULL), -ECONNRESET);
	has("queue 0: Authentication Receive: ");
	has("instead of answering our Reply: it most likely refused the host secret");
	CU_ASSERT_EQUAL(S.nsent, 2); /* Negotiate, Reply */
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

const struct unit_test initiator_auth_tests[] = {
	{ "every_hash_and_group_authenticates_every_queue",
	  every_hash_and_group_authenticates_every_queue },
	{ "bidirectional_checks_the_controller_and_sends_success2",
	  bidirectional_checks_the_controller_and_sends_success2 },
	{ "wrong_host_secret_is_refused_with_the_controllers_reason",
	  wrong_host_secret_is_refused_with_the_controllers_reason },
	{ "controller_without_a_controller_secret_refuses_bidirectional",
	  controller_without_a_controller_secret_refuses_bidirectional },
	{ "no_secret_for_a_controller_that_requires_one_is_eacces",
	  no_secret_for_a_controller_that_requires_one_is_eacces },
	{ "wrong_controller_secret_refuses_the_controller",
	  wrong_controller_secret_refuses_the_controller },
	{ "controller_secret_with_a_controller_that_does_not_authenticate_is_eacces",
	  controller_secret_with_a_controller_that_does_not_authenticate_is_eacces },
	{ "host_secret_with_a_controller_that_does_not_ask_connects",
	  host_secret_with_a_controller_that_does_not_ask_connects },
	{ "malformed_secrets_are_einval_naming_the_option",
	  malformed_secrets_are_einval_naming_the_option },
	{ "reconnect_authenticates_again_with_the_same_secrets",
	  reconnect_authenticates_again_with_the_same_secrets },
	{ "negotiate_offers_every_hash_and_group", negotiate_offers_every_hash_and_group },
	{ "challenge_with_a_hash_not_offered_is_hash_unusable",
	  challenge_with_a_hash_not_offered_is_hash_unusable },
	{ "challenge_with_the_wrong_hl_is_incorrect_payload",
	  challenge_with_the_wrong_hl_is_incorrect_payload },
	{ "challenge_with_an_unknown_group_is_dhgroup_unusable",
	  challenge_with_an_unknown_group_is_dhgroup_unusable },
	{ "challenge_with_a_dh_value_for_the_null_group_is_incorrect_payload",
	  challenge_with_a_dh_value_for_the_null_group_is_incorrect_payload },
	{ "challenge_of_another_transaction_is_incorrect_message",
	  challenge_of_another_transaction_is_incorrect_message },
	{ "success1_instead_of_challenge_is_incorrect_message",
	  success1_instead_of_challenge_is_incorrect_message },
	{ "controller_dh_value_of_one_is_refused", controller_dh_value_of_one_is_refused },
	{ "receive_error_status_is_returned", receive_error_status_is_returned },
	{ "success1_without_r2_when_bidirectional_is_rejected",
	  success1_without_r2_when_bidirectional_is_rejected },
	{ "success1_with_the_wrong_hl_is_incorrect_payload",
	  success1_with_the_wrong_hl_is_incorrect_payload },
	{ "failure1_names_the_controllers_reason", failure1_names_the_controllers_reason },
	{ "connection_lost_after_the_reply_says_the_secret_was_likely_refused",
	  connection_lost_after_the_reply_says_the_secret_was_likely_refused },
	{ "secure_channel_concatenation_is_eopnotsupp",
	  secure_channel_concatenation_is_eopnotsupp },
	{ NULL, NULL },
};
