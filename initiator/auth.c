/* SPDX-License-Identifier: MIT */
/*
 * DH-HMAC-CHAP, the host side (NVMe Base 2.1 section 8.3.5.5): the transaction one queue
 * runs after its Connect answered AUTHREQ.ATR, in the Linux host's order (its auth.c):
 *   Send AUTH_Negotiate     every hash (SHA-256/384/512) and DH group (null, ffdhe2048 ..
 *                           8192) offered, SC_C 00h: the controller picks
 *   Receive Challenge       checked: hash and group offered, HL and DHVLEN theirs
 *   Send Reply              R1, and C2/S2 when a controller secret asks for
 *                           bidirectional authentication; our DH value
 *   Receive Success1        (or AUTH_Failure1: the controller refused us)
 *   Send Success2           after R2 checked; AUTH_Failure2 instead when it is wrong
 * A malformed or unexpected controller message also gets AUTH_Failure2 with its reason.
 * The cryptography is nvme/dhchap.c's (OpenSSL); every buffer that held key material or a
 * DH secret is cleansed before it is freed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include "initiator/internal.h"
#include "nvme/auth.h"
#include "nvme/dhchap.h"
#include "nvme/tls-psk.h"

#define AUTH_BUF_LEN 4096u /* Receive allocation length: the Linux host's CHAP_BUF_SIZE */

/* One queue's transaction. */
struct txn {
	struct nvmf_ctrl *c;
	struct nvmf_queue *q;
	uint16_t t_id;
	uint8_t hash_id, dhgroup_id;
	size_t hl;
	uint32_t s1, s2; /* s2 0: unidirectional */
	uint8_t c1[NVME_DHCHAP_MAX_HASH_LEN], c2[NVME_DHCHAP_MAX_HASH_LEN];
	uint8_t shared[NVME_DHCHAP_MAX_DH_LEN]; /* g^xy mod p, dhvlen bytes */
	size_t dhvlen;
	struct nvme_dhchap_dh *dh;
	uint8_t *buf; /* AUTH_BUF_LEN, messages both ways */
	bool replied; /* our Reply is out: Success1 or Failure1 next */
};

int nvmfh_auth_init(struct nvmf_ctrl *c, const struct nvmf_ctrl_opts *o)
{
	char err[160];
	bool have_key = o->dhchap_secret && o->dhchap_secret[0];
	bool have_ckey = o->dhchap_ctrl_secret && o->dhchap_ctrl_secret[0];
	if (have_ckey && !have_key) {
		nvmfh_errf(c, "dhchap_ctrl_secret needs dhchap_secret: bidirectional "
			      "authentication also authenticates the host");
		return -EINVAL;
	}
	if (have_key) {
		int rc = nvme_dhchap_key_parse(o->dhchap_secret, &c->dhchap_key, err, sizeof(err));
		if (rc) {
			nvmfh_errf(c, "dhchap_secret: %s", rc == -EINVAL ? err : nvmf_strerror(rc));
			return rc;
		}
	}
	if (have_ckey) {
		int rc = nvme_dhchap_key_parse(o->dhchap_ctrl_secret, &c->dhchap_ctrl_key, err,
					       sizeof(err));
		if (rc) {
			nvmfh_errf(c, "dhchap_ctrl_secret: %s",
				   rc == -EINVAL ? err : nvmf_strerror(rc));
			nvmfh_auth_fini(c);
			return rc;
		}
	}
	if (o->tls_key && o->tls_key[0]) {
		struct nvme_tls_psk psk;
		int rc = nvme_tls_psk_parse(o->tls_key, &psk, err, sizeof(err));
		explicit_bzero(&psk, sizeof(psk));
		if (!rc && (o->tls_identity < 0 || o->tls_identity > 1)) {
			snprintf(err, sizeof(err), "identity version %d is not 0 or 1",
				 o->tls_identity);
			rc = -EINVAL;
		}
		if (!rc && strlen(o->tls_key) >= sizeof(c->tls_key)) {
			snprintf(err, sizeof(err), "too long for a PSK");
			rc = -EINVAL;
		}
		if (rc) {
			nvmfh_errf(c, "tls_key: %s", err);
			nvmfh_auth_fini(c);
			return -EINVAL;
		}
		snprintf(c->tls_key, sizeof(c->tls_key), "%s", o->tls_key);
		c->opts.tls_key = c->tls_key;
	} else {
		c->opts.tls_key = NULL;
	}
	/* Transaction ids need only differ between transactions; start anywhere. */
	uint16_t tid;
	if (nvme_dhchap_random(&tid, sizeof(tid)))
		tid = 1;
	atomic_store(&c->auth_tid, tid);
	return 0;
}

void nvmfh_auth_fini(struct nvmf_ctrl *c)
{
	nvme_dhchap_key_free(c->dhchap_key);
	nvme_dhchap_key_free(c->dhchap_ctrl_key);
	c->dhchap_key = c->dhchap_ctrl_key = NULL;
	explicit_bzero(c->tls_key, sizeof(c->tls_key));
}

int nvmf_ctrl_auth_info(const struct nvmf_ctrl *c, struct nvmf_auth_info *out)
{
	if (!c || !out)
		return -EINVAL;
	pthread_mutex_lock(&((struct nvmf_ctrl *)c)->err_lock); /* a reconnect rewrites it */
	*out = c->auth;
	pthread_mutex_unlock(&((struct nvmf_ctrl *)c)->err_lock);
	return 0;
}

/* ---- Authentication Send / Receive (NVMe-oF 1.1 section 3, fctypes 05h/06h) ---- */

static int auth_cmd(struct txn *t, uint8_t fctype, uint32_t len, bool write)
{
	struct nvme_sqe sqe;
	const struct nvmf_auth_cmd a = {
		.secp = NVME_AUTH_SECP_DHCHAP,
		.spsp0 = NVME_AUTH_SPSP,
		.spsp1 = NVME_AUTH_SPSP,
		.len = len,
	};
	nvmf_auth_encode(&sqe, fctype, &a);
	int tmo = t->c->opts.timeout_ms > 0 ? t->c->opts.timeout_ms : NVMFH_DEFAULT_TIMEOUT_MS;
	int rc = nvmfh_queue_exec(t->q, &sqe, t->buf, len, write, NULL, tmo);
	/* The kernel target may end the association right after a wrong Reply, before its
	 * AUTH_Failure1 reaches us: say what that most likely means. */
	if (rc)
		nvmfh_errf(t->c, "queue %u: Authentication %s: %s%s", t->q->hq.qid,
			   write ? "Send" : "Receive", nvmf_strerror(rc),
			   rc == -ECONNRESET && t->replied && !write ?
				   " (the controller ended the connection instead of answering our "
				   "Reply: it most likely refused the host secret)" :
				   "");
	return rc;
}

/* Send the @len bytes at t->buf. */
static int auth_send(struct txn *t, size_t len)
{
	return auth_cmd(t, nvme_fabrics_type_auth_send, (uint32_t)len, true);
}

/* Receive into t->buf (zeroed first, so a short transfer reads as zeros). */
static int auth_receive(struct txn *t)
{
	memset(t->buf, 0, AUTH_BUF_LEN);
	return auth_cmd(t, nvme_fabrics_type_auth_receive, AUTH_BUF_LEN, false);
}

/* We found the controller's message wrong (or its R2): tell it with AUTH_Failure2, as the
 * Linux host does, and fail with @rc. Its own errors are not reported: ours is the cause. */
static int failure2(struct txn *t, uint8_t exp, int rc, const char *what)
{
	struct nvme_auth_failure *f = (void *)t->buf;
	memset(f, 0, sizeof(*f));
	f->auth_type = NVME_AUTH_COMMON_MESSAGES;
	f->auth_id = NVME_AUTH_MSG_FAILURE2;
	f->t_id = htole16(t->t_id);
	f->rescode = NVME_AUTH_FAILURE_REASON_FAILED;
	f->rescode_exp = exp;
	auth_send(t, sizeof(*f)); /* (its error message, if any, is replaced) */
	nvmfh_errf(t->c, "queue %u: %s; sent AUTH_Failure2 (%s)", t->q->hq.qid, what,
		   nvme_auth_failure_str(exp));
	return rc;
}

/* A received message: AUTH_Failure1 (the controller refused us), else it must be the
 * DH-HMAC-CHAP message @id of our transaction. */
static int check_received(struct txn *t, uint8_t id, const char *name)
{
	const uint8_t *m = t->buf;
	uint16_t t_id = (uint16_t)(m[4] | m[5] << 8);
	if (m[0] == NVME_AUTH_COMMON_MESSAGES && m[1] == NVME_AUTH_MSG_FAILURE1) {
		const struct nvme_auth_failure *f = (const void *)m;
		/* "Failed" covers a wrong R1 and a controller with no controller secret to
		 * answer our C2 with: say both when both can be. */
		const char *hint =
			f->rescode_exp != NVME_AUTH_FAILURE_FAILED ? "" :
			t->s2 ? ": the host secret (dhchap_secret) is not the one it has for this "
				"host, or it has no controller secret for it (bidirectional "
				"authentication was asked for)" :
				": the host secret (dhchap_secret) is not the one it has for this host";
		nvmfh_errf(t->c,
			   "queue %u: the controller refused authentication as %s: "
			   "AUTH_Failure1, %s (reason code %02xh, explanation %02xh)%s",
			   t->q->hq.qid, t->c->hostnqn, nvme_auth_failure_str(f->rescode_exp),
			   f->rescode, f->rescode_exp, hint);
		return -EKEYREJECTED;
	}
	if (m[0] != NVME_AUTH_DHCHAP_MESSAGES || m[1] != id) {
		char what[96];
		snprintf(what, sizeof(what), "expected %s, received message type %02xh id %02xh",
			 name, m[0], m[1]);
		return failure2(t, NVME_AUTH_FAILURE_INCORRECT_MESSAGE, -EPROTO, what);
	}
	if (t_id != t->t_id) {
		char what[96];
		snprintf(what, sizeof(what), "%s for transaction %u, ours is %u", name, t_id,
			 t->t_id);
		return failure2(t, NVME_AUTH_FAILURE_INCORRECT_MESSAGE, -EPROTO, what);
	}
	return 0;
}

/* Receive the controller's next message, which must be @id (or a Failure1). */
static int receive_msg(struct txn *t, uint8_t id, const char *name)
{
	int rc = auth_receive(t);
	return rc ? rc : check_received(t, id, name);
}

/* ---- the steps ---- */

static int negotiate(struct txn *t)
{
	static const uint8_t hashes[] = { NVME_AUTH_HASH_SHA256, NVME_AUTH_HASH_SHA384,
					  NVME_AUTH_HASH_SHA512 };
	static const uint8_t groups[] = { NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048,
					  NVME_AUTH_DHGROUP_3072, NVME_AUTH_DHGROUP_4096,
					  NVME_AUTH_DHGROUP_6144, NVME_AUTH_DHGROUP_8192 };
	struct nvme_auth_negotiate *n = (void *)t->buf;
	size_t len = nvme_auth_negotiate_len(1);
	memset(n, 0, len);
	n->auth_type = NVME_AUTH_COMMON_MESSAGES;
	n->auth_id = NVME_AUTH_MSG_NEGOTIATE;
	n->t_id = htole16(t->t_id);
	n->sc_c = NVME_AUTH_SC_NONE;
	n->napd = 1;
	n->desc[0].authid = NVME_AUTH_DHCHAP_AUTH_ID;
	n->desc[0].halen = sizeof(hashes);
	n->desc[0].dhlen = sizeof(groups);
	memcpy(n->desc[0].idlist, hashes, sizeof(hashes));
	memcpy(n->desc[0].idlist + NVME_AUTH_IDLIST_DH, groups, sizeof(groups));
	return auth_send(t, len);
}

/* Receive and check DH-HMAC-CHAP_Challenge; derive the shared secret when a group is used. */
static int challenge(struct txn *t)
{
	int rc = receive_msg(t, NVME_AUTH_MSG_CHALLENGE, "DH-HMAC-CHAP_Challenge");
	if (rc)
		return rc;
	const struct nvme_auth_challenge *ch = (const void *)t->buf;
	char what[160];
	t->hl = nvme_dhchap_hash_len(ch->hashid);
	if (!t->hl) {
		snprintf(what, sizeof(what),
			 "the Challenge names hash %02xh, which we did not offer", ch->hashid);
		return failure2(t, NVME_AUTH_FAILURE_HASH_UNUSABLE, -EPROTO, what);
	}
	if (ch->hl != t->hl) {
		snprintf(what, sizeof(what), "the Challenge's HL is %u, %s has %zu", ch->hl,
			 nvme_dhchap_hash_name(ch->hashid), t->hl);
		return failure2(t, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, -EPROTO, what);
	}
	if (!nvme_dhchap_dhgroup_name(ch->dhgid)) {
		snprintf(what, sizeof(what),
			 "the Challenge names DH group %02xh, which we did not "
			 "offer",
			 ch->dhgid);
		return failure2(t, NVME_AUTH_FAILURE_DHGROUP_UNUSABLE, -EPROTO, what);
	}
	t->dhvlen = le16toh(ch->dhvlen);
	if (t->dhvlen != nvme_dhchap_dhgroup_len(ch->dhgid)) {
		snprintf(what, sizeof(what), "the Challenge's DHVLEN is %zu, %s has %zu", t->dhvlen,
			 nvme_dhchap_dhgroup_name(ch->dhgid), nvme_dhchap_dhgroup_len(ch->dhgid));
		return failure2(t, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, -EPROTO, what);
	}
	t->hash_id = ch->hashid;
	t->dhgroup_id = ch->dhgid;
	t->s1 = le32toh(ch->seqnum);
	memcpy(t->c1, ch->cval, t->hl);
	if (t->dhgroup_id == NVME_AUTH_DHGROUP_NULL)
		return 0;
	rc = nvme_dhchap_dh_generate(t->dhgroup_id, &t->dh);
	if (rc) {
		nvmfh_errf(t->c, "queue %u: DH key generation in %s: %s", t->q->hq.qid,
			   nvme_dhchap_dhgroup_name(t->dhgroup_id), nvmf_strerror(rc));
		return rc;
	}
	char why[128];
	rc = nvme_dhchap_dh_shared(t->dh, ch->cval + t->hl, t->dhvlen, t->shared, sizeof(t->shared),
				   why, sizeof(why));
	if (rc == -EINVAL) {
		snprintf(what, sizeof(what), "the controller's DH value: %s", why);
		return failure2(t, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, -EPROTO, what);
	}
	if (rc)
		nvmfh_errf(t->c, "queue %u: DH shared secret: %s", t->q->hq.qid, nvmf_strerror(rc));
	return rc;
}

/* The challenge a response covers: @c as it is with the null group, else its augmented
 * form Ca = HMAC(H(g^xy), C). */
static int response_challenge(struct txn *t, const uint8_t *c, uint8_t *out)
{
	if (t->dhgroup_id == NVME_AUTH_DHGROUP_NULL) {
		memcpy(out, c, t->hl);
		return 0;
	}
	return nvme_dhchap_augmented_challenge(t->hash_id, t->shared, t->dhvlen, c, out);
}

static int reply(struct txn *t)
{
	uint8_t ca[NVME_DHCHAP_MAX_HASH_LEN];
	struct nvme_auth_reply *r = (void *)t->buf;
	size_t len = nvme_auth_reply_len((unsigned)t->hl, (unsigned)t->dhvlen);
	memset(r, 0, len);
	int rc = response_challenge(t, t->c1, ca);
	if (!rc) {
		struct nvme_dhchap_resp_args a = {
			.hash_id = t->hash_id,
			.challenge = ca,
			.seqnum = t->s1,
			.t_id = t->t_id,
			.sc_c = NVME_AUTH_SC_NONE,
			.hostnqn = t->c->hostnqn,
			.subsysnqn = t->c->subnqn,
		};
		rc = nvme_dhchap_host_response(t->c->dhchap_key, &a, r->rval);
	}
	OPENSSL_cleanse(ca, sizeof(ca));
	if (!rc && t->c->dhchap_ctrl_key) {
		/* S2 must not be 0: 0 says "no controller authentication". */
		do
			rc = nvme_dhchap_random(&t->s2, sizeof(t->s2));
		while (!rc && !t->s2);
		if (!rc)
			rc = nvme_dhchap_random(t->c2, t->hl);
		memcpy(r->rval + t->hl, t->c2, t->hl);
		r->cvalid = 1;
	}
	if (!rc && t->dh)
		rc = nvme_dhchap_dh_public(t->dh, r->rval + 2 * t->hl, t->dhvlen);
	if (rc) {
		nvmfh_errf(t->c, "queue %u: computing the Reply: %s", t->q->hq.qid,
			   nvmf_strerror(rc));
		return rc;
	}
	r->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	r->auth_id = NVME_AUTH_MSG_REPLY;
	r->t_id = htole16(t->t_id);
	r->hl = (uint8_t)t->hl;
	r->dhvlen = htole16((uint16_t)t->dhvlen);
	r->seqnum = htole32(t->s2);
	rc = auth_send(t, len);
	t->replied = !rc;
	return rc;
}

/* Receive Success1; check R2 when we asked for it; answer Success2. */
static int success(struct txn *t)
{
	int rc = receive_msg(t, NVME_AUTH_MSG_SUCCESS1, "DH-HMAC-CHAP_Success1");
	if (rc)
		return rc;
	const struct nvme_auth_success1 *s = (const void *)t->buf;
	if (s->hl != t->hl) {
		char what[96];
		snprintf(what, sizeof(what), "the Success1's HL is %u, the Challenge's was %zu",
			 s->hl, t->hl);
		return failure2(t, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, -EPROTO, what);
	}
	if (!t->s2)
		return 0; /* unidirectional: no Success2 (the Linux host sends none either) */
	if (!s->rvalid)
		return failure2(
			t, NVME_AUTH_FAILURE_FAILED, -EKEYREJECTED,
			"the controller did not answer our challenge (Success1 without R2): "
			"it could not be authenticated with dhchap_ctrl_secret");
	uint8_t ca[NVME_DHCHAP_MAX_HASH_LEN], r2[NVME_DHCHAP_MAX_HASH_LEN];
	rc = response_challenge(t, t->c2, ca);
	if (!rc) {
		struct nvme_dhchap_resp_args a = {
			.hash_id = t->hash_id,
			.challenge = ca,
			.seqnum = t->s2,
			.t_id = t->t_id,
			.sc_c = NVME_AUTH_SC_NONE,
			.hostnqn = t->c->hostnqn,
			.subsysnqn = t->c->subnqn,
		};
		rc = nvme_dhchap_ctrl_response(t->c->dhchap_ctrl_key, &a, r2);
	}
	bool ok = !rc && nvme_dhchap_equal(r2, s->rval, t->hl);
	OPENSSL_cleanse(ca, sizeof(ca));
	OPENSSL_cleanse(r2, sizeof(r2));
	if (rc) {
		nvmfh_errf(t->c, "queue %u: computing R2: %s", t->q->hq.qid, nvmf_strerror(rc));
		return rc;
	}
	if (!ok)
		return failure2(t, NVME_AUTH_FAILURE_FAILED, -EKEYREJECTED,
				"the controller's response (R2) is wrong: it does not hold the "
				"controller secret given (dhchap_ctrl_secret)");
	struct nvme_auth_success2 *s2 = (void *)t->buf;
	memset(s2, 0, sizeof(*s2));
	s2->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	s2->auth_id = NVME_AUTH_MSG_SUCCESS2;
	s2->t_id = htole16(t->t_id);
	return auth_send(t, sizeof(*s2));
}

int nvmfh_auth_connected(struct nvmf_ctrl *c, struct nvmf_queue *q, uint32_t dw0)
{
	uint16_t qid = q->hq.qid;
	if (dw0 & NVMF_CONNECT_AUTHREQ_ASCR) {
		nvmfh_errf(c,
			   "queue %u: the controller requires secure channel concatenation "
			   "(AUTHREQ.ASCR), which needs TLS: not on RDMA",
			   qid);
		return -EOPNOTSUPP;
	}
	if (!(dw0 & NVMF_CONNECT_AUTHREQ_ATR)) {
		if (!c->dhchap_ctrl_key)
			return 0;
		nvmfh_errf(c,
			   "queue %u: a controller secret was given (dhchap_ctrl_secret) but "
			   "%s does not authenticate (Connect AUTHREQ.ATR clear), so it cannot be "
			   "verified: refused",
			   qid, c->subnqn);
		return -EACCES;
	}
	if (!c->dhchap_key) {
		nvmfh_errf(c,
			   "queue %u: %s requires in-band authentication (Connect AUTHREQ.ATR) "
			   "and no DH-HMAC-CHAP secret was given (dhchap_secret, nvmf "
			   "--dhchap-secret)",
			   qid, c->subnqn);
		return -EACCES;
	}
	/* atomic: I/O queues reconnect on their own threads (recovery.c) */
	struct txn t = { .c = c, .q = q, .t_id = atomic_fetch_add(&c->auth_tid, 1) };
	t.buf = calloc(1, AUTH_BUF_LEN);
	if (!t.buf) {
		nvmfh_errf(c, "queue %u: out of memory for authentication", qid);
		return -ENOMEM;
	}
	int rc = negotiate(&t);
	if (!rc)
		rc = challenge(&t);
	if (!rc)
		rc = reply(&t);
	if (!rc)
		rc = success(&t);
	if (!rc && qid == 0) {
		pthread_mutex_lock(&c->err_lock); /* nvmf_ctrl_auth_info reads it */
		c->auth = (struct nvmf_auth_info){ .authenticated = true,
						   .bidirectional = t.s2 != 0,
						   .hash_id = t.hash_id,
						   .dhgroup_id = t.dhgroup_id };
		pthread_mutex_unlock(&c->err_lock);
	}
	nvme_dhchap_dh_free(t.dh);
	OPENSSL_cleanse(t.shared, sizeof(t.shared));
	OPENSSL_cleanse(t.c2, sizeof(t.c2));
	OPENSSL_cleanse(t.buf, AUTH_BUF_LEN);
	free(t.buf);
	return rc;
}
