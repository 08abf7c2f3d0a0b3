/* In-band authentication (DH-HMAC-CHAP, target/auth.c) through the loop transport: the
 * test is the host, computing its side with nvme/dhchap.h (whose values the nvme_dhchap
 * suite checks against independent code), the target in driven mode. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include "nvme/auth.h"
#include "nvme/dhchap.h"
#include "target/auth.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "tests/unit/control/methods_fixture.h"
#include "nvme/fabrics.h"

/* Made with `nvme gen-dhchap-key --hmac=1|0|2 --nqn nqn.2026-11.io.nvmf-rdma:host1`. */
#define HOST_KEY "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define CTRL_KEY "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:"
#define OTHER_KEY \
	"DHHC-1:02:z4TrAW32nxlXcjD1k2MD2dw718ixnFci6MaNJBrlNf4PCs3Moq0GL4ZsU+Gj07JrUw6SIQ==:"

#define AUTH_REQUIRED (nvme_cmd_specific(NVME_SC_AUTH_REQUIRED) | NVME_SC_DNR)
#define INVALID_FIELD (nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR)
#define TID           0x1234

static struct fx F;

/* The target with FX_HOSTNQN's keys in its table. */
static void setup(const char *key, const char *ctrl_key, const char *hash, const char *group)
{
	char err[256];
	CU_ASSERT_FATAL(fx_setup(&F) == 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, key, ctrl_key, hash, group,
						     err, sizeof(err)),
			      0);
}

/* Authentication Send (@fctype 05h) or Receive (06h) of @len bytes. */
static int auth_cmd(struct fxq *q, uint8_t fctype, void *data, uint32_t len, uint32_t sqe_len)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	uint8_t *b = (uint8_t *)&c;
	b[NVMF_SQE_FCTYPE_OFF] = fctype;
	b[NVMF_AUTH_SQE_SECP] = NVME_AUTH_SECP_DHCHAP;
	b[NVMF_AUTH_SQE_SPSP0] = b[NVMF_AUTH_SQE_SPSP1] = NVME_AUTH_SPSP;
	uint32_t l = htole32(sqe_len);
	memcpy(b + NVMF_AUTH_SQE_LEN, &l, 4);
	return fx_cmd(q, &c, data, len, NULL);
}

static int send_msg(struct fxq *q, void *data, uint32_t len)
{
	return auth_cmd(q, nvme_fabrics_type_auth_send, data, len, len);
}

static int recv_msg(struct fxq *q, void *data, uint32_t len)
{
	memset(data, 0xee, len);
	return auth_cmd(q, nvme_fabrics_type_auth_receive, data, len, len);
}

/* AUTH_Negotiate offering @hashes and @groups. */
static int negotiate(struct fxq *q, const uint8_t *hashes, unsigned nh, const uint8_t *groups,
		     unsigned ng)
{
	uint8_t m[sizeof(struct nvme_auth_negotiate) + sizeof(struct nvme_auth_protocol_desc)] = {
		0
	};
	struct nvme_auth_negotiate *n = (void *)m;
	n->auth_type = NVME_AUTH_COMMON_MESSAGES;
	n->auth_id = NVME_AUTH_MSG_NEGOTIATE;
	n->t_id = htole16(TID);
	n->napd = 1;
	n->desc[0].authid = NVME_AUTH_DHCHAP_AUTH_ID;
	n->desc[0].halen = (uint8_t)nh;
	n->desc[0].dhlen = (uint8_t)ng;
	memcpy(n->desc[0].idlist, hashes, nh);
	memcpy(n->desc[0].idlist + NVME_AUTH_IDLIST_DH, groups, ng);
	return send_msg(q, m, sizeof(m));
}

static const uint8_t ALL_HASHES[] = { 1, 2, 3 };
static const uint8_t ALL_GROUPS[] = { 0, 1, 2, 3, 4, 5 };

/* What the host learnt and chose in one transaction. */
struct host_side {
	uint8_t hash, group, hl;
	uint32_t s1;
	uint8_t c1[64], c2[64];
	struct nvme_dhchap_dh *dh;
	uint8_t shared[1024];
	size_t shared_len;
	uint8_t reply[4096];
	uint32_t reply_len;
};

/* Receive the Challenge and build the Reply with @secret (and C2 when @bidi). */
static void challenge_and_reply(struct fxq *q, struct host_side *h, const char *secret, bool bidi,
				const char *subnqn)
{
	uint8_t m[4096];
	struct nvme_dhchap_key *key = NULL;
	CU_ASSERT_EQUAL_FATAL(recv_msg(q, m, sizeof(m)), 0);
	struct nvme_auth_challenge c;
	memcpy(&c, m, sizeof(c));
	CU_ASSERT_EQUAL_FATAL(c.auth_id, NVME_AUTH_MSG_CHALLENGE);
	CU_ASSERT_EQUAL(le16toh(c.t_id), TID);
	h->hash = c.hashid;
	h->group = c.dhgid;
	h->hl = c.hl;
	CU_ASSERT_EQUAL_FATAL(h->hl, nvme_dhchap_hash_len(h->hash));
	h->s1 = le32toh(c.seqnum);
	CU_ASSERT_NOT_EQUAL(h->s1, 0);
	memcpy(h->c1, m + sizeof(c), h->hl);
	unsigned dhvlen = le16toh(c.dhvlen);
	CU_ASSERT_EQUAL_FATAL(dhvlen, nvme_dhchap_dhgroup_len(h->group));

	struct nvme_auth_reply r = { 0 };
	uint8_t *rv = h->reply + sizeof(r), ca[64];
	h->shared_len = 0;
	if (dhvlen) {
		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_dh_generate(h->group, &h->dh), 0);
		CU_ASSERT_EQUAL_FATAL(nvme_dhchap_dh_shared(h->dh, m + sizeof(c) + h->hl, dhvlen,
							    h->shared, sizeof(h->shared), NULL, 0),
				      0);
		h->shared_len = dhvlen;
		CU_ASSERT_EQUAL(nvme_dhchap_dh_public(h->dh, rv + 2 * h->hl, dhvlen), 0);
		CU_ASSERT_EQUAL(
			nvme_dhchap_augmented_challenge(h->hash, h->shared, dhvlen, h->c1, ca), 0);
	} else {
		memcpy(ca, h->c1, h->hl);
	}
	CU_ASSERT_EQUAL_FATAL(nvme_dhchap_key_parse(secret, &key, NULL, 0), 0);
	struct nvme_dhchap_resp_args a = { .hash_id = h->hash,
					   .challenge = ca,
					   .seqnum = h->s1,
					   .t_id = TID,
					   .hostnqn = FX_HOSTNQN,
					   .subsysnqn = subnqn };
	CU_ASSERT_EQUAL(nvme_dhchap_host_response(key, &a, rv), 0);
	nvme_dhchap_key_free(key);
	r.auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	r.auth_id = NVME_AUTH_MSG_REPLY;
	r.t_id = htole16(TID);
	r.hl = h->hl;
	r.dhvlen = htole16((uint16_t)dhvlen);
	if (bidi) {
		r.cvalid = 1;
		r.seqnum = htole32(77);
		CU_ASSERT_EQUAL(nvme_dhchap_random(h->c2, h->hl), 0);
		memcpy(rv + h->hl, h->c2, h->hl);
	}
	memcpy(h->reply, &r, sizeof(r));
	h->reply_len = (uint32_t)nvme_auth_reply_len(h->hl, dhvlen);
}

/* The controller's R2 as the host expects it from @ctrl_secret. */
static void expected_r2(const struct host_side *h, const char *ctrl_secret, uint8_t *out)
{
	struct nvme_dhchap_key *key = NULL;
	uint8_t ca[64];
	if (h->shared_len) {
		CU_ASSERT_EQUAL(nvme_dhchap_augmented_challenge(h->hash, h->shared, h->shared_len,
								h->c2, ca),
				0);
	} else {
		memcpy(ca, h->c2, h->hl);
	}
	CU_ASSERT_EQUAL_FATAL(nvme_dhchap_key_parse(ctrl_secret, &key, NULL, 0), 0);
	struct nvme_dhchap_resp_args a = { .hash_id = h->hash,
					   .challenge = ca,
					   .seqnum = 77,
					   .t_id = TID,
					   .hostnqn = FX_HOSTNQN,
					   .subsysnqn = FX_SUBNQN };
	CU_ASSERT_EQUAL(nvme_dhchap_ctrl_response(key, &a, out), 0);
	nvme_dhchap_key_free(key);
}

/* The Failure1 the next Receive gets: its reason (rescode_exp), or -1. */
static int failure_reason(struct fxq *q)
{
	uint8_t m[64];
	struct nvme_auth_failure f;
	if (recv_msg(q, m, sizeof(m)))
		return -1;
	memcpy(&f, m, sizeof(f));
	if (f.auth_type != NVME_AUTH_COMMON_MESSAGES || f.auth_id != NVME_AUTH_MSG_FAILURE1 ||
	    f.rescode != NVME_AUTH_FAILURE_REASON_FAILED)
		return -1;
	return f.rescode_exp;
}

/* A whole transaction on @q with @secret (bidirectional with @ctrl_secret when set),
 * offering @hash and @group only; CU asserts each step. Returns true when it succeeded. */
static bool authenticate(struct fxq *q, const char *secret, const char *ctrl_secret, uint8_t hash,
			 uint8_t group)
{
	struct host_side h = { 0 };
	uint8_t m[4096];
	bool ok = false;
	CU_ASSERT_EQUAL_FATAL(negotiate(q, &hash, 1, &group, 1), 0);
	challenge_and_reply(q, &h, secret, ctrl_secret != NULL, FX_SUBNQN);
	CU_ASSERT_EQUAL(h.hash, hash);
	CU_ASSERT_EQUAL(h.group, group);
	CU_ASSERT_EQUAL_FATAL(send_msg(q, h.reply, h.reply_len), 0);
	CU_ASSERT_EQUAL_FATAL(recv_msg(q, m, sizeof(m)), 0);
	struct nvme_auth_success1 s;
	memcpy(&s, m, sizeof(s));
	if (s.auth_id != NVME_AUTH_MSG_SUCCESS1)
		goto out;
	CU_ASSERT_EQUAL(le16toh(s.t_id), TID);
	CU_ASSERT_EQUAL(s.hl, h.hl);
	if (ctrl_secret) {
		uint8_t r2[64];
		expected_r2(&h, ctrl_secret, r2);
		CU_ASSERT_EQUAL(s.rvalid, 1);
		CU_ASSERT_EQUAL(memcmp(m + sizeof(s), r2, h.hl), 0);
		struct nvme_auth_success2 s2 = { .auth_type = NVME_AUTH_DHCHAP_MESSAGES,
						 .auth_id = NVME_AUTH_MSG_SUCCESS2,
						 .t_id = htole16(TID) };
		CU_ASSERT_EQUAL(send_msg(q, &s2, sizeof(s2)), 0);
	} else {
		CU_ASSERT_EQUAL(s.rvalid, 0);
	}
	ok = true;
out:
	nvme_dhchap_dh_free(h.dh);
	return ok;
}

static int identify(struct fxq *q)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_identify;
	c.cdw10 = htole32(1);
	return fx_cmd(q, &c, NULL, 4096, NULL);
}

static int read_block(struct fxq *q)
{
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_cmd_read;
	c.nsid = htole32(1);
	return fx_cmd(q, &c, NULL, 512, NULL);
}

/* Admin Connect as FX_HOSTNQN: the result's AUTHREQ bits. */
static uint32_t connect_admin(void)
{
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL_FATAL(fx_connect(&F.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 5000,
					 &F.cntlid, &cqe),
			      0);
	return le32toh(cqe.result.u32) & ~0xffffu;
}

/* The keep-alive tick after a failure: the association is gone once the host had its
 * grace to disconnect by itself. */
static void expect_torn_down(void)
{
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&F));
	F.now += NVMF_AUTH_FAILURE1_GRACE_MS;
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&F));
}

/* Negotiate SHA-256 and @group on the admin queue, take the Challenge, send the Reply
 * made with @secret (asking for the controller's response when @bidi). */
static void send_reply(struct host_side *h, const char *secret, bool bidi, uint8_t group)
{
	static const uint8_t hash = NVME_AUTH_HASH_SHA256;
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	challenge_and_reply(&F.admin, h, secret, bidi, FX_SUBNQN);
	CU_ASSERT_EQUAL(send_msg(&F.admin, h->reply, h->reply_len), 0);
}

/* ---- tests ---- */

static void host_with_a_key_gets_atr_and_only_fabrics_commands_until_authenticated(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	CU_ASSERT_EQUAL(connect_admin(), NVMF_CONNECT_AUTHREQ_ATR);
	CU_ASSERT_EQUAL(identify(&F.admin), AUTH_REQUIRED);
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0); /* Property Get/Set are Fabrics commands */
	CU_ASSERT_EQUAL(identify(&F.admin), AUTH_REQUIRED);
	CU_ASSERT_TRUE(authenticate(&F.admin, HOST_KEY, NULL, NVME_AUTH_HASH_SHA256,
				    NVME_AUTH_DHGROUP_NULL));
	CU_ASSERT_EQUAL(identify(&F.admin), 0);
	fx_teardown(&F);
}

static void every_hash_with_null_ffdhe2048_and_ffdhe8192_authenticates_both_ways(void)
{
	static const uint8_t groups[] = { NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048,
					  NVME_AUTH_DHGROUP_8192 };
	for (uint8_t hash = 1; hash <= 3; hash++)
		for (unsigned g = 0; g < 3; g++) {
			setup(HOST_KEY, CTRL_KEY, nvme_dhchap_hash_name(hash),
			      nvme_dhchap_dhgroup_name(groups[g]));
			CU_ASSERT_EQUAL(connect_admin(), NVMF_CONNECT_AUTHREQ_ATR);
			CU_ASSERT_TRUE(authenticate(&F.admin, HOST_KEY, CTRL_KEY, hash, groups[g]));
			CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
			CU_ASSERT_EQUAL(identify(&F.admin), 0);
			fx_teardown(&F);
		}
}

static void wrong_secret_gets_failure1_failed_and_the_association_ends(void)
{
	setup(HOST_KEY, NULL, NULL, "ffdhe2048");
	connect_admin();
	struct host_side h = { 0 };
	send_reply(&h, OTHER_KEY, false, NVME_AUTH_DHGROUP_2048);
	CU_ASSERT_EQUAL(failure_reason(&F.admin), NVME_AUTH_FAILURE_FAILED);
	CU_ASSERT_EQUAL(identify(&F.admin), AUTH_REQUIRED);
	expect_torn_down();
	nvme_dhchap_dh_free(h.dh);
	fx_teardown(&F);
}

static void bidirectional_without_a_controller_key_fails(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	struct host_side h = { 0 };
	send_reply(&h, HOST_KEY, true, NVME_AUTH_DHGROUP_NULL);
	CU_ASSERT_EQUAL(failure_reason(&F.admin), NVME_AUTH_FAILURE_FAILED);
	expect_torn_down();
	fx_teardown(&F);
}

static void host_refusing_the_controller_with_failure2_ends_the_association(void)
{
	setup(HOST_KEY, CTRL_KEY, NULL, NULL);
	connect_admin();
	struct host_side h = { 0 };
	uint8_t m[4096];
	send_reply(&h, HOST_KEY, true, NVME_AUTH_DHGROUP_NULL);
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[1], NVME_AUTH_MSG_SUCCESS1);
	struct nvme_auth_failure f2 = { .auth_type = NVME_AUTH_COMMON_MESSAGES,
					.auth_id = NVME_AUTH_MSG_FAILURE2,
					.t_id = htole16(TID),
					.rescode = NVME_AUTH_FAILURE_REASON_FAILED,
					.rescode_exp = NVME_AUTH_FAILURE_FAILED };
	CU_ASSERT_EQUAL(send_msg(&F.admin, &f2, sizeof(f2)), 0);
	CU_ASSERT_EQUAL(identify(&F.admin), AUTH_REQUIRED);
	expect_torn_down();
	fx_teardown(&F);
}

static void io_queue_cannot_skip_authentication(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	CU_ASSERT_TRUE(authenticate(&F.admin, HOST_KEY, NULL, NVME_AUTH_HASH_SHA256,
				    NVME_AUTH_DHGROUP_NULL));
	struct fxq io;
	struct nvme_cqe cqe;
	fx_queue_init(&F, &io);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&io, 1, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32) & NVMF_CONNECT_AUTHREQ_ATR,
			NVMF_CONNECT_AUTHREQ_ATR);
	CU_ASSERT_EQUAL(read_block(&io), AUTH_REQUIRED);
	CU_ASSERT_TRUE(
		authenticate(&io, HOST_KEY, NULL, NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL));
	CU_ASSERT_EQUAL(read_block(&io), 0);
	fx_teardown(&F);
}

static void host_without_a_key_connects_without_authentication(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	char err[128];
	CU_ASSERT_EQUAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, NULL, NULL, NULL, NULL, err,
					       sizeof(err)),
			0);
	CU_ASSERT_EQUAL(connect_admin(), 0);
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	CU_ASSERT_EQUAL(identify(&F.admin), 0);
	uint8_t m[64];
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)),
			nvme_generic(NVME_SC_CMD_SEQ_ERROR) | NVME_SC_DNR);
	fx_teardown(&F);
}

static void bad_secp_spsp_or_length_is_invalid_field(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	uint8_t m[8192] = { 0 };
	struct nvme_sqe c;
	memset(&c, 0, sizeof(c));
	c.opcode = nvme_admin_fabrics;
	uint8_t *b = (uint8_t *)&c;
	b[NVMF_SQE_FCTYPE_OFF] = nvme_fabrics_type_auth_receive;
	b[NVMF_AUTH_SQE_SECP] = 0xea;
	b[NVMF_AUTH_SQE_SPSP0] = b[NVMF_AUTH_SQE_SPSP1] = NVME_AUTH_SPSP;
	uint32_t l = htole32(64);
	memcpy(b + NVMF_AUTH_SQE_LEN, &l, 4);
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, m, 64, NULL), INVALID_FIELD);
	b[NVMF_AUTH_SQE_SECP] = NVME_AUTH_SECP_DHCHAP;
	b[NVMF_AUTH_SQE_SPSP1] = 2;
	CU_ASSERT_EQUAL(fx_cmd(&F.admin, &c, m, 64, NULL), INVALID_FIELD);
	CU_ASSERT_EQUAL(auth_cmd(&F.admin, nvme_fabrics_type_auth_send, m, 0, 0), INVALID_FIELD);
	CU_ASSERT_EQUAL(auth_cmd(&F.admin, nvme_fabrics_type_auth_receive, m, 8192, 8192),
			INVALID_FIELD);
	/* An SGL that does not match the length is the transfer's error. */
	CU_ASSERT_EQUAL(auth_cmd(&F.admin, nvme_fabrics_type_auth_send, m, 64, 72),
			nvme_generic(NVME_SC_SGL_INVALID_DATA) | NVME_SC_DNR);
	/* None of it was a failed transaction: a proper one still works. */
	CU_ASSERT_TRUE(authenticate(&F.admin, HOST_KEY, NULL, NVME_AUTH_HASH_SHA256,
				    NVME_AUTH_DHGROUP_NULL));
	fx_teardown(&F);
}

/* One malformed AUTH_Negotiate: the Failure1 reason it gets. */
static int negotiate_reason(void (*edit)(uint8_t *m, uint32_t *len))
{
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	uint8_t m[sizeof(struct nvme_auth_negotiate) +
		  2 * sizeof(struct nvme_auth_protocol_desc)] = { 0 };
	uint32_t len = (uint32_t)nvme_auth_negotiate_len(1);
	struct nvme_auth_negotiate *n = (void *)m;
	n->auth_type = NVME_AUTH_COMMON_MESSAGES;
	n->auth_id = NVME_AUTH_MSG_NEGOTIATE;
	n->t_id = htole16(TID);
	n->napd = 1;
	n->desc[0].authid = NVME_AUTH_DHCHAP_AUTH_ID;
	n->desc[0].halen = 1;
	n->desc[0].dhlen = 1;
	n->desc[0].idlist[0] = NVME_AUTH_HASH_SHA256;
	n->desc[0].idlist[NVME_AUTH_IDLIST_DH] = NVME_AUTH_DHGROUP_NULL;
	edit(m, &len);
	CU_ASSERT_EQUAL(send_msg(&F.admin, m, len), 0);
	int reason = failure_reason(&F.admin);
	expect_torn_down();
	fx_teardown(&F);
	return reason;
}

static void short_negotiate(uint8_t *m, uint32_t *len)
{
	(void)m;
	*len = 8;
}
static void two_descriptors(uint8_t *m, uint32_t *len)
{
	m[7] = 2;
	*len += 64;
}
static void not_dhchap(uint8_t *m, uint32_t *len)
{
	(void)len;
	m[8] = 2;
}
static void unknown_hash(uint8_t *m, uint32_t *len)
{
	(void)len;
	m[12] = 9;
}
static void unknown_group(uint8_t *m, uint32_t *len)
{
	(void)len;
	m[12 + NVME_AUTH_IDLIST_DH] = 9;
}
static void secure_channel(uint8_t *m, uint32_t *len)
{
	(void)len;
	m[6] = NVME_AUTH_SC_SECURE;
}
static void halen_too_big(uint8_t *m, uint32_t *len)
{
	(void)len;
	m[10] = 31;
}

static void malformed_negotiate_gets_the_specs_failure_reason(void)
{
	CU_ASSERT_EQUAL(negotiate_reason(short_negotiate), NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(negotiate_reason(two_descriptors), NVME_AUTH_FAILURE_HASH_UNUSABLE);
	CU_ASSERT_EQUAL(negotiate_reason(not_dhchap), NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(negotiate_reason(unknown_hash), NVME_AUTH_FAILURE_HASH_UNUSABLE);
	CU_ASSERT_EQUAL(negotiate_reason(unknown_group), NVME_AUTH_FAILURE_DHGROUP_UNUSABLE);
	CU_ASSERT_EQUAL(negotiate_reason(secure_channel), NVME_AUTH_FAILURE_CONCAT_MISMATCH);
	CU_ASSERT_EQUAL(negotiate_reason(halen_too_big), NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
}

/* One Reply edited after it was computed right: the Failure1 reason it gets. */
static int reply_reason(uint8_t group, void (*edit)(struct host_side *h))
{
	setup(HOST_KEY, NULL, NULL, nvme_dhchap_dhgroup_name(group));
	connect_admin();
	struct host_side h = { 0 };
	static const uint8_t hash = NVME_AUTH_HASH_SHA256;
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	challenge_and_reply(&F.admin, &h, HOST_KEY, false, FX_SUBNQN);
	edit(&h);
	CU_ASSERT_EQUAL(send_msg(&F.admin, h.reply, h.reply_len), 0);
	int reason = failure_reason(&F.admin);
	expect_torn_down();
	nvme_dhchap_dh_free(h.dh);
	fx_teardown(&F);
	return reason;
}

static void bad_tid(struct host_side *h)
{
	h->reply[4] ^= 1;
}
static void bad_hl(struct host_side *h)
{
	h->reply[6] = 48;
}
static void short_reply(struct host_side *h)
{
	h->reply_len -= 1;
}
static void flipped_response(struct host_side *h)
{
	h->reply[16] ^= 0x80;
}
static void dh_value_above_p(struct host_side *h)
{
	memset(h->reply + 16 + 2 * h->hl, 0xff, 256); /* 2^2048 - 1 > ffdhe2048's p */
}
static void dh_value_with_null_group(struct host_side *h)
{
	h->reply[10] = 1;
	h->reply_len += 1;
}
static void wrong_message_id(struct host_side *h)
{
	h->reply[1] = NVME_AUTH_MSG_SUCCESS2;
}

static void malformed_reply_gets_the_specs_failure_reason(void)
{
	CU_ASSERT_EQUAL(reply_reason(NVME_AUTH_DHGROUP_NULL, bad_tid),
			NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(reply_reason(NVME_AUTH_DHGROUP_NULL, bad_hl),
			NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(reply_reason(NVME_AUTH_DHGROUP_2048, short_reply),
			NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(reply_reason(NVME_AUTH_DHGROUP_NULL, flipped_response),
			NVME_AUTH_FAILURE_FAILED);
	CU_ASSERT_EQUAL(reply_reason(NVME_AUTH_DHGROUP_2048, dh_value_above_p),
			NVME_AUTH_FAILURE_DHGROUP_UNUSABLE);
	CU_ASSERT_EQUAL(reply_reason(NVME_AUTH_DHGROUP_NULL, dh_value_with_null_group),
			NVME_AUTH_FAILURE_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(reply_reason(NVME_AUTH_DHGROUP_NULL, wrong_message_id),
			NVME_AUTH_FAILURE_INCORRECT_MESSAGE);
}

static void messages_out_of_sequence_get_incorrect_message(void)
{
	/* A Reply before any Negotiate. */
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	struct nvme_auth_reply r = { .auth_type = NVME_AUTH_DHCHAP_MESSAGES,
				     .auth_id = NVME_AUTH_MSG_REPLY,
				     .t_id = htole16(TID),
				     .hl = 32 };
	uint8_t m[sizeof(r) + 64] = { 0 };
	memcpy(m, &r, sizeof(r));
	CU_ASSERT_EQUAL(send_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(failure_reason(&F.admin), NVME_AUTH_FAILURE_INCORRECT_MESSAGE);
	expect_torn_down();
	fx_teardown(&F);
	/* A Receive where the host owes a message (after Negotiate and Challenge). */
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	static const uint8_t hash = NVME_AUTH_HASH_SHA256, group = NVME_AUTH_DHGROUP_NULL;
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[1], NVME_AUTH_MSG_CHALLENGE);
	CU_ASSERT_EQUAL(failure_reason(&F.admin), NVME_AUTH_FAILURE_INCORRECT_MESSAGE);
	expect_torn_down();
	fx_teardown(&F);
}

static void replayed_reply_in_a_new_transaction_fails(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	struct host_side h = { 0 };
	uint8_t m[4096];
	static const uint8_t hash = NVME_AUTH_HASH_SHA256, group = NVME_AUTH_DHGROUP_NULL;
	send_reply(&h, HOST_KEY, false, group);
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[1], NVME_AUTH_MSG_SUCCESS1);
	/* Re-authentication: a new challenge; the old Reply does not answer it. */
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[1], NVME_AUTH_MSG_CHALLENGE);
	CU_ASSERT_NOT_EQUAL(memcmp(m + 16, h.c1, 32), 0);
	CU_ASSERT_EQUAL(send_msg(&F.admin, h.reply, h.reply_len), 0);
	CU_ASSERT_EQUAL(failure_reason(&F.admin), NVME_AUTH_FAILURE_FAILED);
	expect_torn_down();
	fx_teardown(&F);
}

static void reauthentication_succeeds_and_the_queue_stays_usable(void)
{
	setup(HOST_KEY, CTRL_KEY, "hmac(sha384)", "ffdhe3072");
	connect_admin();
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	CU_ASSERT_TRUE(authenticate(&F.admin, HOST_KEY, NULL, NVME_AUTH_HASH_SHA384,
				    NVME_AUTH_DHGROUP_3072));
	CU_ASSERT_TRUE(authenticate(&F.admin, HOST_KEY, CTRL_KEY, NVME_AUTH_HASH_SHA384,
				    NVME_AUTH_DHGROUP_3072));
	CU_ASSERT_EQUAL(identify(&F.admin), 0);
	fx_teardown(&F);
}

/* The configured hash and group, or nothing: no downgrade to a weaker one the host
 * offers, no costlier group a host could pick. */
static void configured_hash_and_group_are_required(void)
{
	setup(HOST_KEY, NULL, "hmac(sha384)", "ffdhe3072");
	connect_admin();
	uint8_t m[4096];
	CU_ASSERT_EQUAL(negotiate(&F.admin, ALL_HASHES, 3, ALL_GROUPS, 6), 0);
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[8], NVME_AUTH_HASH_SHA384);
	CU_ASSERT_EQUAL(m[9], NVME_AUTH_DHGROUP_3072);
	static const uint8_t sha512 = NVME_AUTH_HASH_SHA512, sha384 = NVME_AUTH_HASH_SHA384;
	CU_ASSERT_EQUAL(negotiate(&F.admin, &sha512, 1, ALL_GROUPS, 6), 0); /* starts over */
	CU_ASSERT_EQUAL(failure_reason(&F.admin), NVME_AUTH_FAILURE_HASH_UNUSABLE);
	expect_torn_down();
	fx_teardown(&F);
	setup(HOST_KEY, NULL, "hmac(sha384)", "ffdhe3072");
	connect_admin();
	CU_ASSERT_EQUAL(negotiate(&F.admin, &sha384, 1, ALL_GROUPS, 3), 0); /* null, 2048, 3072 */
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[9], NVME_AUTH_DHGROUP_3072);
	static const uint8_t cheap[] = { NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048 };
	CU_ASSERT_EQUAL(negotiate(&F.admin, &sha384, 1, cheap, 2), 0);
	CU_ASSERT_EQUAL(failure_reason(&F.admin), NVME_AUTH_FAILURE_DHGROUP_UNUSABLE);
	expect_torn_down();
	fx_teardown(&F);
}

/* A failed queue takes no new AUTH_Negotiate (no retries to make the target compute),
 * and the association ends even if the host never reads its Failure1. */
static void failed_queue_cannot_retry_and_ends_without_reading_failure1(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	struct host_side h = { 0 };
	send_reply(&h, OTHER_KEY, false, NVME_AUTH_DHGROUP_NULL); /* wrong: fails */
	static const uint8_t hash = NVME_AUTH_HASH_SHA256, group = NVME_AUTH_DHGROUP_NULL;
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	uint8_t m[64];
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[1], NVME_AUTH_MSG_FAILURE1); /* not a new Challenge */
	/* Nor after the Failure1 was read. */
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[1], NVME_AUTH_MSG_FAILURE1);
	fx_teardown(&F);

	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	send_reply(&h, OTHER_KEY, false, NVME_AUTH_DHGROUP_NULL);
	F.now += NVMF_AUTH_FAILURE1_GRACE_MS - 1;
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0); /* the groups' clock moves */
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&F));
	F.now += 1;
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&F));
	fx_teardown(&F);
}

/* AUTH_Failure2 counts only within the transaction (its id, after our Challenge or
 * Success1); any other is an unexpected message. */
static void failure2_with_a_wrong_transaction_id_is_unexpected(void)
{
	setup(HOST_KEY, CTRL_KEY, NULL, NULL);
	connect_admin();
	static const uint8_t hash = NVME_AUTH_HASH_SHA256, group = NVME_AUTH_DHGROUP_NULL;
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	uint8_t m[4096];
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	struct nvme_auth_failure f2 = { .auth_type = NVME_AUTH_COMMON_MESSAGES,
					.auth_id = NVME_AUTH_MSG_FAILURE2,
					.t_id = htole16(TID + 1),
					.rescode = NVME_AUTH_FAILURE_REASON_FAILED,
					.rescode_exp = NVME_AUTH_FAILURE_FAILED };
	CU_ASSERT_EQUAL(send_msg(&F.admin, &f2, sizeof(f2)), 0);
	CU_ASSERT_EQUAL(failure_reason(&F.admin), NVME_AUTH_FAILURE_INCORRECT_MESSAGE);
	fx_teardown(&F);
}

/* A Reply with C2 but SEQNUM 0 asks for no controller response (NVMe Base 2.2
 * 8.3.4.5.4), even without a controller key. */
static void reply_with_c2_and_seqnum_0_is_unidirectional(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	struct host_side h = { 0 };
	static const uint8_t hash = NVME_AUTH_HASH_SHA256, group = NVME_AUTH_DHGROUP_NULL;
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	challenge_and_reply(&F.admin, &h, HOST_KEY, true, FX_SUBNQN);
	memset(h.reply + 12, 0, 4); /* SEQNUM 0 */
	CU_ASSERT_EQUAL(send_msg(&F.admin, h.reply, h.reply_len), 0);
	uint8_t m[4096];
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[1], NVME_AUTH_MSG_SUCCESS1);
	CU_ASSERT_EQUAL(m[8], 0); /* rvalid */
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	CU_ASSERT_EQUAL(identify(&F.admin), 0);
	fx_teardown(&F);
}

static void admin_queue_not_authenticated_in_time_ends_the_association(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	F.now += NVMF_AUTH_TIMEOUT_MS;
	/* Traffic keeps the keep-alive timer happy, not the authentication deadline. */
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_FALSE(fx_admin_deleted(&F));
	F.now += 1;
	nvmf_tgt_check_keep_alive(&F.tgt);
	CU_ASSERT_TRUE(fx_admin_deleted(&F));
	fx_teardown(&F);
}

static void discovery_controller_does_not_ask_for_authentication(void)
{
	setup(HOST_KEY, NULL, NULL, NULL);
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL_FATAL(fx_connect(&F.admin, 0, 31, NVME_DISC_SUBSYS_NAME, FX_HOSTNQN, 0xffff,
					 5000, &F.cntlid, &cqe),
			      0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32) & NVMF_CONNECT_AUTHREQ_ATR, 0);
	fx_teardown(&F);
}

static void bad_key_or_name_is_refused_without_showing_the_secret(void)
{
	CU_ASSERT_FATAL(fx_setup(&F) == 0);
	char err[256];
	CU_ASSERT_EQUAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, "DHHC-1:00:AAAA:", NULL, NULL,
					       NULL, err, sizeof(err)),
			-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "dhchap key: "));
	CU_ASSERT_PTR_NULL(strstr(err, "AAAA"));
	CU_ASSERT_EQUAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, HOST_KEY, "DHHC-1:07:x:", NULL,
					       NULL, err, sizeof(err)),
			-1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "dhchap ctrl_key: "));
	CU_ASSERT_EQUAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, HOST_KEY, NULL, "hmac(md5)",
					       NULL, err, sizeof(err)),
			-1);
	CU_ASSERT_STRING_EQUAL(
		err,
		"dhchap hash \"hmac(md5)\" is not a DH-HMAC-CHAP hash (hmac(sha256), hmac(sha384) or hmac(sha512))");
	CU_ASSERT_EQUAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, HOST_KEY, NULL, NULL,
					       "ffdhe1024", err, sizeof(err)),
			-1);
	CU_ASSERT_STRING_EQUAL(err,
			       "dhchap dhgroup \"ffdhe1024\" is not a DH group (null, ffdhe2048, "
			       "ffdhe3072, ffdhe4096, ffdhe6144 or ffdhe8192)");
	CU_ASSERT_PTR_NULL(F.tgt.host_auth); /* nothing half-set */
	fx_teardown(&F);
}

/* A key changed in the table (reload goes through the same path) reaches the live
 * controller: every transaction from then on uses the new settings, the old key fails. */
static void changed_key_applies_to_the_next_transaction_of_a_live_controller(void)
{
	char err[128];
	setup(HOST_KEY, CTRL_KEY, NULL, NULL);
	connect_admin();
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	CU_ASSERT_TRUE(authenticate(&F.admin, HOST_KEY, CTRL_KEY, NVME_AUTH_HASH_SHA256,
				    NVME_AUTH_DHGROUP_NULL));
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, OTHER_KEY, HOST_KEY,
						     "hmac(sha384)", "ffdhe2048", err, sizeof(err)),
			      0);
	/* The admin queue stays authenticated; a new I/O queue uses the new key and pair. */
	CU_ASSERT_EQUAL(identify(&F.admin), 0);
	struct fxq io, io2;
	struct nvme_cqe cqe;
	fx_queue_init(&F, &io);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&io, 1, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe), 0);
	CU_ASSERT_TRUE(authenticate(&io, OTHER_KEY, HOST_KEY, NVME_AUTH_HASH_SHA384,
				    NVME_AUTH_DHGROUP_2048));
	CU_ASSERT_EQUAL(read_block(&io), 0);
	/* Re-authentication of the admin queue too. */
	CU_ASSERT_TRUE(authenticate(&F.admin, OTHER_KEY, NULL, NVME_AUTH_HASH_SHA384,
				    NVME_AUTH_DHGROUP_2048));
	/* The old secret no longer passes. */
	fx_queue_init(&F, &io2);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&io2, 2, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe), 0);
	CU_ASSERT_FALSE(
		authenticate(&io2, HOST_KEY, NULL, NVME_AUTH_HASH_SHA384, NVME_AUTH_DHGROUP_2048));
	expect_torn_down();
	fx_teardown(&F);
}

/* A transaction under way when the key changes finishes with the key it began with. */
static void transaction_under_way_finishes_with_its_keys(void)
{
	char err[128];
	uint8_t m[4096];
	setup(HOST_KEY, NULL, NULL, "ffdhe2048");
	connect_admin();
	static const uint8_t hash = NVME_AUTH_HASH_SHA256, group = NVME_AUTH_DHGROUP_2048;
	struct host_side h = { 0 };
	CU_ASSERT_EQUAL(negotiate(&F.admin, &hash, 1, &group, 1), 0);
	challenge_and_reply(&F.admin, &h, HOST_KEY, false, FX_SUBNQN);
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, OTHER_KEY, NULL, NULL,
						     "ffdhe2048", err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(send_msg(&F.admin, h.reply, h.reply_len), 0);
	CU_ASSERT_EQUAL(recv_msg(&F.admin, m, sizeof(m)), 0);
	CU_ASSERT_EQUAL(m[1], NVME_AUTH_MSG_SUCCESS1);
	nvme_dhchap_dh_free(h.dh);
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	CU_ASSERT_EQUAL(identify(&F.admin), 0);
	/* The next one takes the new key. */
	CU_ASSERT_TRUE(authenticate(&F.admin, OTHER_KEY, NULL, hash, group));
	fx_teardown(&F);
}

/* A key removed from the table: live controllers keep theirs, new ones do without. */
static void removed_key_leaves_live_controllers_their_keys(void)
{
	char err[128];
	setup(HOST_KEY, NULL, NULL, NULL);
	connect_admin();
	CU_ASSERT_EQUAL(fx_enable(&F.admin), 0);
	CU_ASSERT_TRUE(authenticate(&F.admin, HOST_KEY, NULL, NVME_AUTH_HASH_SHA256,
				    NVME_AUTH_DHGROUP_NULL));
	CU_ASSERT_EQUAL(nvmf_tgt_host_auth_set(&F.tgt, FX_HOSTNQN, NULL, NULL, NULL, NULL, err,
					       sizeof(err)),
			0);
	struct fxq io, admin2;
	struct nvme_cqe cqe;
	fx_queue_init(&F, &io);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&io, 1, 31, FX_SUBNQN, FX_HOSTNQN, F.cntlid, 0, NULL, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32) & NVMF_CONNECT_AUTHREQ_ATR,
			NVMF_CONNECT_AUTHREQ_ATR);
	CU_ASSERT_TRUE(
		authenticate(&io, HOST_KEY, NULL, NVME_AUTH_HASH_SHA256, NVME_AUTH_DHGROUP_NULL));
	CU_ASSERT_EQUAL(read_block(&io), 0);
	uint16_t cntlid2 = 0;
	fx_queue_init(&F, &admin2);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&admin2, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 5000, &cntlid2, &cqe), 0);
	CU_ASSERT_EQUAL(le32toh(cqe.result.u32) & NVMF_CONNECT_AUTHREQ_ATR, 0);
	fx_teardown(&F);
}

/* The JSON object of @want ({"hash", "dhgroup", "bidirectional"}) equals @got. */
static void expect_auth(json_t *got, const char *want)
{
	json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_TRUE(json_equal(got, w));
	if (!json_equal(got, w)) {
		char *g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
		fprintf(stderr, "\n  auth %s, expected %s\n", g ? g : "(none)", want);
		free(g);
	}
	json_decref(w);
}

/* Success is logged after the Connect line (hash, group, direction), and controller_list
 * says how the controller authenticated, and how each queue that differs did. */
static void success_is_logged_and_controller_list_shows_it_per_queue(void)
{
	ctlm_setup();
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_host_auth_set(&ctlm_fx.tgt, FX_HOSTNQN, HOST_KEY, CTRL_KEY,
						     "hmac(sha384)", "ffdhe2048", err, sizeof(err)),
			      0);
	struct nvme_cqe cqe;
	CU_ASSERT_EQUAL_FATAL(fx_connect(&ctlm_fx.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 5000,
					 &ctlm_fx.cntlid, &cqe),
			      0);
	CU_ASSERT_EQUAL(fx_enable(&ctlm_fx.admin), 0);
	json_t *resp = ctlm_call("controller_list", NULL);
	json_t *c = json_array_get(json_object_get(ctlm_result(resp), "controllers"), 0);
	expect_auth(json_object_get(c, "auth"), "null"); /* not yet */
	json_decref(resp);

	struct fx_stderr out;
	fx_stderr_begin(&out);
	bool ok = authenticate(&ctlm_fx.admin, HOST_KEY, CTRL_KEY, NVME_AUTH_HASH_SHA384,
			       NVME_AUTH_DHGROUP_2048);
	fx_stderr_end(&out);
	CU_ASSERT_TRUE_FATAL(ok);
	char want[256];
	snprintf(want, sizeof(want),
		 "nvmf-target: auth: controller %u of " FX_SUBNQN ": host " FX_HOSTNQN
		 " authenticated on queue 0 (DH-HMAC-CHAP hmac(sha384) ffdhe2048, bidirectional)\n",
		 ctlm_fx.cntlid);
	CU_ASSERT_STRING_EQUAL(out.text, want);

	struct fxq io;
	fx_queue_init(&ctlm_fx, &io);
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&io, 1, 31, FX_SUBNQN, FX_HOSTNQN, ctlm_fx.cntlid, 0, NULL, &cqe), 0);
	resp = ctlm_call("controller_list", NULL);
	c = json_array_get(json_object_get(ctlm_result(resp), "controllers"), 0);
	static const char bidi[] =
		"{\"hash\": \"hmac(sha384)\", \"dhgroup\": \"ffdhe2048\", \"bidirectional\": true}";
	expect_auth(json_object_get(c, "auth"), bidi);
	json_t *qs = json_object_get(c, "queues");
	CU_ASSERT_PTR_NULL(json_object_get(json_array_get(qs, 0), "auth"));  /* as the controller */
	expect_auth(json_object_get(json_array_get(qs, 1), "auth"), "null"); /* differs: not yet */
	json_decref(resp);

	/* The I/O queue authenticates one way only: it differs from the admin queue. */
	CU_ASSERT_TRUE(
		authenticate(&io, HOST_KEY, NULL, NVME_AUTH_HASH_SHA384, NVME_AUTH_DHGROUP_2048));
	struct nvmf_sq_auth_info info;
	CU_ASSERT_TRUE(nvmf_sq_auth_info(ctlm_fx.tgt.ctrls->sqs[1], &info));
	CU_ASSERT_FALSE(info.bidirectional);
	resp = ctlm_call("controller_list", NULL);
	c = json_array_get(json_object_get(ctlm_result(resp), "controllers"), 0);
	expect_auth(json_object_get(c, "auth"), bidi);
	qs = json_object_get(c, "queues");
	expect_auth(json_object_get(json_array_get(qs, 1), "auth"),
		    "{\"hash\": \"hmac(sha384)\", \"dhgroup\": \"ffdhe2048\", "
		    "\"bidirectional\": false}");
	json_decref(resp);
	fx_disconnect(&io);
	ctlm_teardown();
}

const struct unit_test target_auth_tests[] = {
	{ "success_is_logged_and_controller_list_shows_it_per_queue",
	  success_is_logged_and_controller_list_shows_it_per_queue },
	{ "changed_key_applies_to_the_next_transaction_of_a_live_controller",
	  changed_key_applies_to_the_next_transaction_of_a_live_controller },
	{ "transaction_under_way_finishes_with_its_keys",
	  transaction_under_way_finishes_with_its_keys },
	{ "removed_key_leaves_live_controllers_their_keys",
	  removed_key_leaves_live_controllers_their_keys },
	{ "host_with_a_key_gets_atr_and_only_fabrics_commands_until_authenticated",
	  host_with_a_key_gets_atr_and_only_fabrics_commands_until_authenticated },
	{ "every_hash_with_null_ffdhe2048_and_ffdhe8192_authenticates_both_ways",
	  every_hash_with_null_ffdhe2048_and_ffdhe8192_authenticates_both_ways },
	{ "wrong_secret_gets_failure1_failed_and_the_association_ends",
	  wrong_secret_gets_failure1_failed_and_the_association_ends },
	{ "bidirectional_without_a_controller_key_fails",
	  bidirectional_without_a_controller_key_fails },
	{ "host_refusing_the_controller_with_failure2_ends_the_association",
	  host_refusing_the_controller_with_failure2_ends_the_association },
	{ "io_queue_cannot_skip_authentication", io_queue_cannot_skip_authentication },
	{ "host_without_a_key_connects_without_authentication",
	  host_without_a_key_connects_without_authentication },
	{ "bad_secp_spsp_or_length_is_invalid_field", bad_secp_spsp_or_length_is_invalid_field },
	{ "malformed_negotiate_gets_the_specs_failure_reason",
	  malformed_negotiate_gets_the_specs_failure_reason },
	{ "malformed_reply_gets_the_specs_failure_reason",
	  malformed_reply_gets_the_specs_failure_reason },
	{ "messages_out_of_sequence_get_incorrect_message",
	  messages_out_of_sequence_get_incorrect_message },
	{ "replayed_reply_in_a_new_transaction_fails", replayed_reply_in_a_new_transaction_fails },
	{ "reauthentication_succeeds_and_the_queue_stays_usable",
	  reauthentication_succeeds_and_the_queue_stays_usable },
	{ "configured_hash_and_group_are_required", configured_hash_and_group_are_required },
	{ "failed_queue_cannot_retry_and_ends_without_reading_failure1",
	  failed_queue_cannot_retry_and_ends_without_reading_failure1 },
	{ "failure2_with_a_wrong_transaction_id_is_unexpected",
	  failure2_with_a_wrong_transaction_id_is_unexpected },
	{ "reply_with_c2_and_seqnum_0_is_unidirectional",
	  reply_with_c2_and_seqnum_0_is_unidirectional },
	{ "admin_queue_not_authenticated_in_time_ends_the_association",
	  admin_queue_not_authenticated_in_time_ends_the_association },
	{ "discovery_controller_does_not_ask_for_authentication",
	  discovery_controller_does_not_ask_for_authentication },
	{ "bad_key_or_name_is_refused_without_showing_the_secret",
	  bad_key_or_name_is_refused_without_showing_the_secret },
	{ NULL, NULL },
};
