/* SPDX-License-Identifier: MIT */
/*
 * NVMe in-band authentication, controller side (target/auth.h): the DH-HMAC-CHAP
 * transaction of one queue, NVMe Base 2.1 section 8.3.5.5, step by step as the Linux host
 * drives it:
 *
 *   Send  AUTH_Negotiate     -> hash and DH group chosen          step CHALLENGE
 *   Recv  Challenge          <- S1, C1, our DH value              step REPLY
 *   Send  Reply              -> R1 checked, maybe C2/S2           step SUCCESS1
 *   Recv  Success1           <- R2 when the host asked            step SUCCESS2 or done
 *   Send  Success2           -> the host accepted R2              done
 *
 * Any failure sets step FAILURE1 for good: the next Receive gets AUTH_Failure1 with its
 * reason, and the association ends NVMF_AUTH_FAILURE1_GRACE_MS after the failure (the
 * keep-alive tick of the main group does it; the Linux host disconnects before). AUTH_Failure2
 * from the host (after our Challenge or our Success1, with the transaction's id) ends it
 * the same way. Protocol failures never fail the command itself: the NVMe
 * status says only whether the SQE was well formed.
 */
#define NVMF_LOG_COMPONENT NVMF_LOGC_AUTH /* target/log.h */
#include "target/auth.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include "nvme/auth.h"
#include "nvme/dhchap.h"
#include "util/secret.h"
#include "nvme/fabrics.h"
#include "target/core.h"
#include "target/log.h"
#include "util/choice.h"

enum auth_step {
	STEP_NEGOTIATE, /* Send: AUTH_Negotiate expected */
	STEP_CHALLENGE, /* Receive: the Challenge is ours to give */
	STEP_REPLY,     /* Send: Reply expected */
	STEP_SUCCESS1,  /* Receive: Success1 */
	STEP_SUCCESS2,  /* Send: Success2 expected (bidirectional) */
	STEP_FAILURE1,  /* Receive: Failure1, then the association ends */
};

/* One queue's transaction. */
struct nvmf_sq_auth {
	enum auth_step step;
	uint8_t reason; /* rescode_exp of the Failure1 (enum nvme_auth_failure_exp) */
	uint16_t t_id;
	uint8_t hash_id, dhgroup_id;
	uint8_t hl; /* digest length of hash_id */
	uint32_t s1, s2;
	bool c2_valid;
	uint8_t c1[NVME_DHCHAP_MAX_KEY_LEN], c2[NVME_DHCHAP_MAX_KEY_LEN];
	struct nvmf_host_auth *keys; /* the controller's keys when this transaction began
					   (a reference), NULL between transactions */
	struct nvme_dhchap_dh *dh;   /* our key pair when dhgroup_id is not null */
	uint8_t *shared;             /* g^xy mod p, shared_len bytes, after the Reply */
	size_t shared_len;
	uint64_t last_ms; /* the group's clock at the last message */
};

/* ---- the target's key table ---- */

static void refresh_live_ctrls(struct nvmf_tgt *tgt);

static void host_auth_free(struct nvmf_host_auth *h)
{
	if (!h)
		return;
	nvme_dhchap_key_free(h->key);
	nvme_dhchap_key_free(h->ctrl_key);
	free(h->hostnqn);
	free(h);
}

static struct nvmf_host_auth **host_auth_find(struct nvmf_tgt *tgt, const char *hostnqn)
{
	struct nvmf_host_auth **pp = &tgt->host_auth;
	while (*pp && strcmp((*pp)->hostnqn, hostnqn))
		pp = &(*pp)->next;
	return pp;
}

/* A name for a message: quoted, unless it holds a secret given in the wrong place. */
static const char *shown(const char *name, char *buf, size_t len)
{
	if (nvmf_text_has_secret(name))
		return "a secret (not shown)";
	snprintf(buf, len, "\"%.40s\"", name);
	return buf;
}

/* One entry of the table from its settings (see nvmf_tgt_host_auth_set). */
static int host_auth_make(const char *hostnqn, const char *key, const char *ctrl_key,
			  const char *hash, const char *dhgroup, struct nvmf_host_auth **out,
			  char *err, size_t errlen)
{
	char why[160], names[96];
	int id;

	*out = NULL;
	if (!hostnqn || !*hostnqn) {
		snprintf(err, errlen, "no host NQN");
		return -1;
	}
	struct nvmf_host_auth *h = calloc(1, sizeof(*h));
	if (!h || !(h->hostnqn = strdup(hostnqn))) {
		host_auth_free(h);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	h->hash_id = NVME_AUTH_HASH_SHA256;
	h->dhgroup_id = NVME_AUTH_DHGROUP_NULL;
	if (nvme_dhchap_key_parse(key, &h->key, why, sizeof(why))) {
		snprintf(err, errlen, "dhchap key: %s", why);
		goto fail;
	}
	if (ctrl_key && *ctrl_key &&
	    nvme_dhchap_key_parse(ctrl_key, &h->ctrl_key, why, sizeof(why))) {
		snprintf(err, errlen, "dhchap ctrl_key: %s", why);
		goto fail;
	}
	if (hash && *hash) {
		if ((id = nvme_dhchap_hash_id(hash)) < 0) {
			snprintf(err, errlen, "dhchap hash %s is not a DH-HMAC-CHAP hash (%s)",
				 shown(hash, why, sizeof(why)),
				 nvmf_choice_text(nvme_dhchap_hash_names, names, sizeof(names)));
			goto fail;
		}
		h->hash_id = (uint8_t)id;
	}
	if (dhgroup && *dhgroup) {
		if ((id = nvme_dhchap_dhgroup_id(dhgroup)) < 0) {
			snprintf(err, errlen, "dhchap dhgroup %s is not a DH group (%s)",
				 shown(dhgroup, why, sizeof(why)),
				 nvmf_choice_text(nvme_dhchap_dhgroup_names, names, sizeof(names)));
			goto fail;
		}
		h->dhgroup_id = (uint8_t)id;
	}
	*out = h;
	return 0;
fail:
	host_auth_free(h);
	return -1;
}

int nvmf_tgt_host_auth_set(struct nvmf_tgt *tgt, const char *hostnqn, const char *key,
			   const char *ctrl_key, const char *hash, const char *dhgroup, char *err,
			   size_t errlen)
{
	struct nvmf_host_auth *h = NULL;

	if (key && *key && host_auth_make(hostnqn, key, ctrl_key, hash, dhgroup, &h, err, errlen))
		return -1;
	if (!hostnqn || !*hostnqn) {
		snprintf(err, errlen, "no host NQN");
		return -1;
	}
	/* Replace the host's entry, if any, in place; no key removes it. */
	struct nvmf_host_auth **pp = host_auth_find(tgt, hostnqn), *old = *pp;
	if (h) {
		h->next = old ? old->next : NULL;
		*pp = h;
	} else if (old) {
		*pp = old->next;
	}
	host_auth_free(old);
	refresh_live_ctrls(tgt);
	return 0;
}

void nvmf_host_auth_list_free(struct nvmf_host_auth *list)
{
	while (list) {
		struct nvmf_host_auth *h = list;
		list = h->next;
		host_auth_free(h);
	}
}

int nvmf_host_auth_build(const struct nvmf_dhchap_config *d, size_t n, struct nvmf_host_auth **out,
			 char *err, size_t errlen)
{
	struct nvmf_host_auth *list = NULL, **tail = &list;
	char why[200];

	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		if (host_auth_make(d[i].hostnqn, d[i].key, d[i].ctrl_key, d[i].hash, d[i].dhgroup,
				   tail, why, sizeof(why))) {
			snprintf(err, errlen, "host %s: %s", d[i].hostnqn ? d[i].hostnqn : "?",
				 why);
			nvmf_host_auth_list_free(list);
			return -1;
		}
		tail = &(*tail)->next;
	}
	*out = list;
	return 0;
}

void nvmf_tgt_host_auth_replace(struct nvmf_tgt *tgt, struct nvmf_host_auth *list)
{
	nvmf_tgt_host_auth_free(tgt);
	tgt->host_auth = list;
	refresh_live_ctrls(tgt);
}

int nvmf_tgt_host_auth_load(struct nvmf_tgt *tgt, const struct nvmf_dhchap_config *d, size_t n,
			    char *err, size_t errlen)
{
	struct nvmf_host_auth *list;
	if (nvmf_host_auth_build(d, n, &list, err, errlen))
		return -1;
	nvmf_tgt_host_auth_replace(tgt, list);
	return 0;
}

void nvmf_tgt_host_auth_free(struct nvmf_tgt *tgt)
{
	nvmf_host_auth_list_free(tgt->host_auth);
	tgt->host_auth = NULL;
}

/* ---- controllers ---- */

/* A controller's copy of table entry @h, holding one reference; NULL out of memory. */
static struct nvmf_host_auth *ctrl_copy(const struct nvmf_host_auth *h)
{
	struct nvmf_host_auth *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->key = h->key ? malloc(sizeof(*c->key)) : NULL;
	c->ctrl_key = h->ctrl_key ? malloc(sizeof(*c->ctrl_key)) : NULL;
	if ((h->key && !c->key) || (h->ctrl_key && !c->ctrl_key)) {
		host_auth_free(c);
		return NULL;
	}
	if (c->key)
		memcpy(c->key, h->key, sizeof(*c->key));
	if (c->ctrl_key)
		memcpy(c->ctrl_key, h->ctrl_key, sizeof(*c->ctrl_key));
	c->hash_id = h->hash_id;
	c->dhgroup_id = h->dhgroup_id;
	c->refs = 1;
	return c;
}

/* Drop a reference to a controller's copy; the last one frees it (secrets zeroed). */
static void keys_put(struct nvmf_host_auth *k)
{
	if (k && __atomic_sub_fetch(&k->refs, 1, __ATOMIC_ACQ_REL) == 0)
		host_auth_free(k);
}

/* A reference to @ctrl's current keys (NULL: it does not authenticate), for a
 * transaction on any group. */
static struct nvmf_host_auth *keys_get(struct nvmf_tgt_ctrl *ctrl)
{
	pthread_mutex_lock(&ctrl->auth_lock);
	struct nvmf_host_auth *k = ctrl->auth;
	if (k)
		__atomic_add_fetch(&k->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ctrl->auth_lock);
	return k;
}

/* Install @k (its reference becomes the controller's) in place of @ctrl's keys (main
 * group). Transactions under way keep the old ones until they end. */
static void keys_set(struct nvmf_tgt_ctrl *ctrl, struct nvmf_host_auth *k)
{
	pthread_mutex_lock(&ctrl->auth_lock);
	struct nvmf_host_auth *old = ctrl->auth;
	ctrl->auth = k;
	pthread_mutex_unlock(&ctrl->auth_lock);
	keys_put(old);
}

/* The table changed: live controllers that authenticate and whose host still has an
 * entry take its keys (from their next transaction on). */
static void refresh_live_ctrls(struct nvmf_tgt *tgt)
{
	for (struct nvmf_tgt_ctrl *c = tgt->ctrls; c; c = c->next) {
		if (!c->auth) /* the main group is the only writer: no lock to read */
			continue;
		struct nvmf_host_auth *h = *host_auth_find(tgt, c->hostnqn), *k;
		if (h && (k = ctrl_copy(h)))
			keys_set(c, k);
	}
}

int nvmf_ctrl_auth_setup(struct nvmf_tgt_ctrl *ctrl)
{
	if (ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY)
		return 0;
	struct nvmf_host_auth *h = *host_auth_find(ctrl->tgt, ctrl->hostnqn);
	if (!h)
		return 0;
	struct nvmf_host_auth *c = ctrl_copy(h);
	if (!c)
		return -1;
	ctrl->auth = c;
	ctrl->auth_deadline_ms = ctrl->pg->now_ms + NVMF_AUTH_TIMEOUT_MS;
	return 0;
}

void nvmf_ctrl_auth_free(struct nvmf_tgt_ctrl *ctrl)
{
	keys_set(ctrl, NULL);
}

bool nvmf_ctrl_auth_expired(const struct nvmf_tgt_ctrl *ctrl, uint64_t now_ms)
{
	uint64_t fail_by = __atomic_load_n(&ctrl->auth_fail_deadline_ms, __ATOMIC_ACQUIRE);
	if (fail_by && now_ms >= fail_by)
		return true;
	return ctrl->auth && ctrl->sqs[0] && !ctrl->sqs[0]->authenticated &&
	       now_ms > ctrl->auth_deadline_ms;
}

/* ---- queues ---- */

/* sq->auth_done: bit 24 set when authenticated, bit 16 bidirectional, then the hash and
 * group ids; one word, so that another thread reads a whole answer. */
#define AUTH_DONE_VALID (1u << 24)
#define AUTH_DONE_BIDI  (1u << 16)

static void auth_done_set(struct nvmf_sq *sq, uint32_t v)
{
	__atomic_store_n(&sq->auth_done, v, __ATOMIC_RELEASE);
}

bool nvmf_sq_auth_info(const struct nvmf_sq *sq, struct nvmf_sq_auth_info *out)
{
	uint32_t v = __atomic_load_n(&sq->auth_done, __ATOMIC_ACQUIRE);
	if (!(v & AUTH_DONE_VALID))
		return false;
	out->hash_id = (uint8_t)(v >> 8);
	out->dhgroup_id = (uint8_t)v;
	out->bidirectional = v & AUTH_DONE_BIDI;
	return true;
}

/* The transaction on @sq succeeded: the queue may be used; said in the log (the Connect
 * line came before it) and kept for controller_list. */
static void succeeded(struct nvmf_sq *sq, bool bidirectional)
{
	const struct nvmf_sq_auth *a = sq->auth;
	sq->authenticated = true;
	auth_done_set(sq, AUTH_DONE_VALID | (bidirectional ? AUTH_DONE_BIDI : 0) |
				  (uint32_t)a->hash_id << 8 | a->dhgroup_id);
	nvmf_log(sq->tgt, sq->qid ? NVMF_LOG_DEBUG : NVMF_LOG_INFO,
		 "controller %u of %s: host %s authenticated on queue %u (DH-HMAC-CHAP %s %s, "
		 "%s)",
		 sq->ctrl->cntlid, sq->ctrl->subsys->cfg->nqn, sq->ctrl->hostnqn, sq->qid,
		 nvme_dhchap_hash_name(a->hash_id), nvme_dhchap_dhgroup_name(a->dhgroup_id),
		 bidirectional ? "bidirectional" : "unidirectional");
}

/* The queue is not (or no longer) authenticated. */
static void unauthenticated(struct nvmf_sq *sq)
{
	sq->authenticated = false;
	auth_done_set(sq, 0);
}

uint32_t nvmf_sq_auth_connected(struct nvmf_sq *sq)
{
	struct nvmf_host_auth *k = keys_get(sq->ctrl);
	sq->auth_required = k != NULL;
	keys_put(k);
	unauthenticated(sq);
	return sq->auth_required ? NVMF_CONNECT_AUTHREQ_ATR : 0;
}

/* Forget the transaction's secrets; the queue's authenticated state stays. */
static void transaction_clear(struct nvmf_sq_auth *a)
{
	keys_put(a->keys);
	a->keys = NULL;
	nvme_dhchap_dh_free(a->dh);
	a->dh = NULL;
	if (a->shared) {
		OPENSSL_cleanse(a->shared, a->shared_len);
		free(a->shared);
		a->shared = NULL;
	}
	OPENSSL_cleanse(a->c1, sizeof(a->c1));
	OPENSSL_cleanse(a->c2, sizeof(a->c2));
	a->c2_valid = false;
	a->step = STEP_NEGOTIATE;
}

void nvmf_sq_auth_free(struct nvmf_sq *sq)
{
	if (!sq->auth)
		return;
	transaction_clear(sq->auth);
	free(sq->auth);
	sq->auth = NULL;
}

static void log_failure(struct nvmf_sq *sq, const char *what)
{
	nvmf_log(sq->tgt, NVMF_LOG_WARNING,
		 "controller %u of %s: host %s failed authentication on "
		 "queue %u: %s",
		 sq->ctrl->cntlid, sq->ctrl->subsys->cfg->nqn, sq->ctrl->hostnqn, sq->qid, what);
}

/* The transaction failed: the next Receive answers Failure1 with @reason, and the
 * association ends then, or NVMF_AUTH_FAILURE1_GRACE_MS from now if the host never asks.
 * There is no retry on a failed queue (no new AUTH_Negotiate), so a host without the
 * secret cannot make the target compute again and again. */
/* The association ends NVMF_AUTH_FAILURE1_GRACE_MS from now (the first failure's time
 * counts), unless the host, which knows it failed, disconnects first: tearing it down
 * under the host while the Failure1 is on its way left the Linux host's error recovery
 * hung for minutes. */
static void end_association_soon(struct nvmf_sq *sq)
{
	uint64_t none = 0;
	__atomic_compare_exchange_n(&sq->ctrl->auth_fail_deadline_ms, &none,
				    sq->pg->now_ms + NVMF_AUTH_FAILURE1_GRACE_MS, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static void fail(struct nvmf_sq *sq, uint8_t reason, const char *what)
{
	struct nvmf_sq_auth *a = sq->auth;
	transaction_clear(a);
	a->step = STEP_FAILURE1;
	a->reason = reason;
	unauthenticated(sq);
	end_association_soon(sq);
	log_failure(sq, what);
}

/* ---- AUTH_Negotiate ---- */

/* The configured id when @offer lists it, else -1. No fallback to another the host
 * offers (nvmet takes the host's first): not to a weaker one, which would be a downgrade,
 * nor to a costlier group a host could pick to load the target. The Linux host offers
 * every hash and group. */
static int choose(uint8_t configured, const uint8_t *offer, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (offer[i] == configured)
			return configured;
	return -1;
}

static void negotiate(struct nvmf_sq *sq, const uint8_t *buf, uint32_t tl)
{
	struct nvmf_sq_auth *a = sq->auth;
	struct nvme_auth_negotiate n;
	struct nvme_auth_protocol_desc d;

	transaction_clear(a);
	/* The keys of the moment, for the whole transaction (a reload may replace them). */
	const struct nvmf_host_auth *keys = a->keys = keys_get(sq->ctrl);
	if (!keys) /* cannot happen: a controller that authenticates keeps keys */
		return fail(sq, NVME_AUTH_FAILURE_NOT_USABLE, "no key");
	if (tl < nvme_auth_negotiate_len(1))
		return fail(sq, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, "AUTH_Negotiate too short");
	memcpy(&n, buf, sizeof(n));
	memcpy(&d, buf + sizeof(n), sizeof(d));
	a->t_id = le16toh(n.t_id);
	/* Secure channel concatenation needs TLS, which RDMA does not have. */
	if (n.sc_c != NVME_AUTH_SC_NONE)
		return fail(sq, NVME_AUTH_FAILURE_CONCAT_MISMATCH,
			    "secure channel concatenation asked for");
	if (n.napd != 1)
		return fail(sq, NVME_AUTH_FAILURE_HASH_UNUSABLE,
			    "not exactly one protocol descriptor");
	if (tl < nvme_auth_negotiate_len(n.napd))
		return fail(sq, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, "AUTH_Negotiate too short");
	if (d.authid != NVME_AUTH_DHCHAP_AUTH_ID)
		return fail(sq, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD,
			    "protocol is not DH-HMAC-CHAP");
	if (d.halen > NVME_AUTH_IDLIST_DH || d.dhlen > sizeof(d.idlist) - NVME_AUTH_IDLIST_DH)
		return fail(sq, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, "HALEN or DHLEN out of range");
	int hash = choose(keys->hash_id, d.idlist, d.halen);
	if (hash < 0)
		return fail(sq, NVME_AUTH_FAILURE_HASH_UNUSABLE,
			    "the host does not offer the configured hash");
	int group = choose(keys->dhgroup_id, d.idlist + NVME_AUTH_IDLIST_DH, d.dhlen);
	if (group < 0)
		return fail(sq, NVME_AUTH_FAILURE_DHGROUP_UNUSABLE,
			    "the host does not offer the configured DH group");
	a->hash_id = (uint8_t)hash;
	a->dhgroup_id = (uint8_t)group;
	a->hl = (uint8_t)nvme_dhchap_hash_len(a->hash_id);
	a->step = STEP_CHALLENGE;
}

/* ---- DH-HMAC-CHAP_Reply ---- */

/* The challenge a response covers: @c itself with the null group, else Ca. */
static int challenge_for(const struct nvmf_sq_auth *a, const uint8_t *c, uint8_t *out)
{
	if (!a->shared) {
		memcpy(out, c, a->hl);
		return 0;
	}
	return nvme_dhchap_augmented_challenge(a->hash_id, a->shared, a->shared_len, c, out);
}

static void reply(struct nvmf_sq *sq, const uint8_t *buf, uint32_t tl)
{
	struct nvmf_sq_auth *a = sq->auth;
	struct nvmf_tgt_ctrl *ctrl = sq->ctrl;
	struct nvme_auth_reply r;
	uint8_t ca[NVME_DHCHAP_MAX_KEY_LEN], expect[NVME_DHCHAP_MAX_KEY_LEN];
	char why[160];

	memcpy(&r, buf, sizeof(r));
	unsigned dhvlen = le16toh(r.dhvlen);
	if (r.hl != a->hl || tl < nvme_auth_reply_len(r.hl, dhvlen))
		return fail(sq, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, "Reply HL or length wrong");
	const uint8_t *rval = buf + sizeof(r), *c2 = rval + a->hl, *dhv = c2 + a->hl;
	if (a->dh) {
		if (dhvlen != nvme_dhchap_dh_len(a->dh))
			return fail(sq, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD,
				    "Reply DH value of the wrong size");
		a->shared_len = dhvlen;
		if (!(a->shared = malloc(dhvlen)))
			return fail(sq, NVME_AUTH_FAILURE_FAILED, "out of memory");
		if (nvme_dhchap_dh_shared(a->dh, dhv, dhvlen, a->shared, dhvlen, why,
					  sizeof(why))) {
			free(a->shared);
			a->shared = NULL;
			return fail(sq, NVME_AUTH_FAILURE_DHGROUP_UNUSABLE, why);
		}
	} else if (dhvlen) {
		return fail(sq, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD,
			    "Reply DH value with the null group");
	}
	struct nvme_dhchap_resp_args args = {
		.hash_id = a->hash_id,
		.challenge = ca,
		.seqnum = a->s1,
		.t_id = a->t_id,
		.sc_c = NVME_AUTH_SC_NONE,
		.hostnqn = ctrl->hostnqn,
		.subsysnqn = ctrl->subsys->cfg->nqn,
	};
	bool ok = !challenge_for(a, a->c1, ca) &&
		  !nvme_dhchap_host_response(a->keys->key, &args, expect) &&
		  nvme_dhchap_equal(expect, rval, a->hl);
	OPENSSL_cleanse(ca, sizeof(ca));
	OPENSSL_cleanse(expect, sizeof(expect));
	if (!ok)
		return fail(sq, NVME_AUTH_FAILURE_FAILED, "wrong response (R1)");
	/* SEQNUM 0 with a C2 means no bidirectional authentication (NVMe Base 2.2
	 * section 8.3.4.5.4: the C2 is only for a secure channel's key, as nvmet reads it). */
	if (r.cvalid && le32toh(r.seqnum)) {
		if (!a->keys->ctrl_key)
			return fail(
				sq, NVME_AUTH_FAILURE_FAILED,
				"bidirectional authentication asked for, but no controller key is set");
		memcpy(a->c2, c2, a->hl);
		a->c2_valid = true;
		a->s2 = le32toh(r.seqnum);
	} else {
		succeeded(sq, false); /* unidirectional: done once Success1 is out */
	}
	a->step = STEP_SUCCESS1;
}

/* ---- Authentication Send ---- */

static void execute_auth_send(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	struct nvmf_sq_auth *a = sq->auth;
	uint32_t tl = req->data_len;
	uint8_t buf[NVMF_AUTH_MAX_XFER];

	memcpy(buf, req->data, tl);
	a->last_ms = sq->pg->now_ms;
	uint8_t type = buf[0], id = tl > 1 ? buf[1] : 0xff;
	uint16_t t_id = tl >= 6 ? (uint16_t)(buf[4] | buf[5] << 8) : 0;

	if (a->step == STEP_FAILURE1) {
		/* failed: nothing but the Failure1 read and the end of the association */
	} else if (type == NVME_AUTH_COMMON_MESSAGES && id == NVME_AUTH_MSG_NEGOTIATE) {
		negotiate(sq, buf, tl); /* a new transaction, or re-authentication */
	} else if (type == NVME_AUTH_COMMON_MESSAGES && id == NVME_AUTH_MSG_FAILURE2 &&
		   tl >= sizeof(struct nvme_auth_failure) && t_id == a->t_id &&
		   (a->step == STEP_REPLY || a->step == STEP_SUCCESS2)) {
		/* The host refused us (our R2, most likely): the association ends. */
		transaction_clear(a);
		unauthenticated(sq);
		log_failure(sq, "the host sent AUTH_Failure2 (it did not accept the controller)");
		end_association_soon(sq);
	} else if (type != NVME_AUTH_DHCHAP_MESSAGES || tl < 16 ||
		   !((id == NVME_AUTH_MSG_REPLY && a->step == STEP_REPLY) ||
		     (id == NVME_AUTH_MSG_SUCCESS2 && a->step == STEP_SUCCESS2))) {
		fail(sq, NVME_AUTH_FAILURE_INCORRECT_MESSAGE, "unexpected message");
	} else if (t_id != a->t_id) {
		fail(sq, NVME_AUTH_FAILURE_INCORRECT_PAYLOAD, "wrong transaction id");
	} else if (id == NVME_AUTH_MSG_REPLY) {
		reply(sq, buf, tl);
	} else {
		transaction_clear(a); /* Success2: the host accepted our R2 */
		succeeded(sq, true);
	}
	OPENSSL_cleanse(buf, tl);
	nvmf_req_complete(req, 0);
}

/* ---- Authentication Receive ---- */

/* The Challenge into @buf (@al bytes). Returns false when @al cannot hold it. */
static bool build_challenge(struct nvmf_sq *sq, uint8_t *buf, uint32_t al)
{
	struct nvmf_sq_auth *a = sq->auth;
	struct nvme_auth_challenge c = { 0 };
	size_t dhvlen = nvme_dhchap_dhgroup_len(a->dhgroup_id);

	if (al < nvme_auth_challenge_len(a->hl, (unsigned)dhvlen))
		return false;
	if (dhvlen && (nvme_dhchap_dh_generate(a->dhgroup_id, &a->dh) ||
		       nvme_dhchap_dh_public(a->dh, buf + sizeof(c) + a->hl, dhvlen))) {
		fail(sq, NVME_AUTH_FAILURE_FAILED, "DH key generation failed");
		return true;
	}
	do {
		if (nvme_dhchap_random(&a->s1, sizeof(a->s1)) || nvme_dhchap_random(a->c1, a->hl)) {
			fail(sq, NVME_AUTH_FAILURE_FAILED, "no random bytes");
			return true;
		}
	} while (!a->s1); /* S1 0 is not a sequence number */
	c.auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	c.auth_id = NVME_AUTH_MSG_CHALLENGE;
	c.t_id = htole16(a->t_id);
	c.hl = a->hl;
	c.hashid = a->hash_id;
	c.dhgid = a->dhgroup_id;
	c.dhvlen = htole16((uint16_t)dhvlen);
	c.seqnum = htole32(a->s1);
	memcpy(buf, &c, sizeof(c));
	memcpy(buf + sizeof(c), a->c1, a->hl);
	a->step = STEP_REPLY;
	return true;
}

static void build_success1(struct nvmf_sq *sq, uint8_t *buf)
{
	struct nvmf_sq_auth *a = sq->auth;
	struct nvmf_tgt_ctrl *ctrl = sq->ctrl;
	struct nvme_auth_success1 s = { 0 };
	uint8_t ca[NVME_DHCHAP_MAX_KEY_LEN];

	s.auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	s.auth_id = NVME_AUTH_MSG_SUCCESS1;
	s.t_id = htole16(a->t_id);
	s.hl = a->hl;
	if (a->c2_valid) {
		struct nvme_dhchap_resp_args args = {
			.hash_id = a->hash_id,
			.challenge = ca,
			.seqnum = a->s2,
			.t_id = a->t_id,
			.sc_c = NVME_AUTH_SC_NONE,
			.hostnqn = ctrl->hostnqn,
			.subsysnqn = ctrl->subsys->cfg->nqn,
		};
		int rc = challenge_for(a, a->c2, ca);
		if (!rc)
			rc = nvme_dhchap_ctrl_response(a->keys->ctrl_key, &args, buf + sizeof(s));
		OPENSSL_cleanse(ca, sizeof(ca));
		if (rc)
			return fail(sq, NVME_AUTH_FAILURE_FAILED,
				    "controller response (R2) failed");
		s.rvalid = 1;
		a->step = STEP_SUCCESS2;
	} else {
		transaction_clear(a); /* unidirectional: authenticated since the Reply */
	}
	memcpy(buf, &s, sizeof(s));
}

static void build_failure1(struct nvmf_sq *sq, uint8_t *buf)
{
	struct nvme_auth_failure f = {
		.auth_type = NVME_AUTH_COMMON_MESSAGES,
		.auth_id = NVME_AUTH_MSG_FAILURE1,
		.t_id = htole16(sq->auth->t_id),
		.rescode = NVME_AUTH_FAILURE_REASON_FAILED,
		.rescode_exp = sq->auth->reason,
	};
	memcpy(buf, &f, sizeof(f));
	transaction_clear(sq->auth);
	sq->auth->step = STEP_FAILURE1; /* for good: no retry; fail() set the end */
}

static void execute_auth_receive(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	struct nvmf_sq_auth *a = sq->auth;
	uint32_t al = req->data_len;
	uint8_t buf[NVMF_AUTH_MAX_XFER];

	memset(buf, 0, al);
	a->last_ms = sq->pg->now_ms;
	switch (a->step) {
	case STEP_CHALLENGE:
		if (!build_challenge(sq, buf, al)) {
			nvmf_req_complete_dnr(req, nvme_generic(NVME_SC_INVALID_FIELD));
			return;
		}
		break;
	case STEP_SUCCESS1:
		if (al < nvme_auth_success1_len(a->hl, a->c2_valid)) {
			nvmf_req_complete_dnr(req, nvme_generic(NVME_SC_INVALID_FIELD));
			return;
		}
		build_success1(sq, buf);
		break;
	case STEP_FAILURE1:
		break;
	default: /* nothing is ours to send: the host is out of step */
		fail(sq, NVME_AUTH_FAILURE_INCORRECT_MESSAGE,
		     "Authentication Receive out of sequence");
		break;
	}
	/* A failure found while building (or before) is what the host reads now. */
	if (a->step == STEP_FAILURE1) {
		memset(buf, 0, al);
		build_failure1(sq, buf);
	}
	memcpy(req->data, buf, al);
	OPENSSL_cleanse(buf, al);
	nvmf_req_complete(req, 0);
}

/* ---- parsing ---- */

nvme_status_t nvmf_parse_auth_cmd(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	struct nvmf_auth_cmd a;
	nvmf_auth_decode(req->cmd, &a);
	uint32_t len = a.len;
	bool send = nvmf_sqe_fctype(req->cmd) == nvme_fabrics_type_auth_send;

	if (a.secp != NVME_AUTH_SECP_DHCHAP || a.spsp0 != NVME_AUTH_SPSP ||
	    a.spsp1 != NVME_AUTH_SPSP || !len || len > NVMF_AUTH_MAX_XFER)
		return nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR;
	/* A queue whose host has no key has no transaction to take part in. */
	if (!sq->auth_required)
		return nvme_generic(NVME_SC_CMD_SEQ_ERROR) | NVME_SC_DNR;
	if (!sq->auth && !(sq->auth = calloc(1, sizeof(*sq->auth))))
		return nvme_generic(NVME_SC_INTERNAL);
	/* A transaction left hanging starts over (nvmet: after KATO or 120 s). */
	if (sq->auth->step != STEP_NEGOTIATE &&
	    sq->pg->now_ms - sq->auth->last_ms > NVMF_AUTH_TIMEOUT_MS)
		transaction_clear(sq->auth);
	req->dir = send ? NVMF_XFER_H2C : NVMF_XFER_C2H;
	req->data_len = len;
	req->execute = send ? execute_auth_send : execute_auth_receive;
	return 0;
}
