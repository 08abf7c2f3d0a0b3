/* SPDX-License-Identifier: MIT */
/*
 * NVMe in-band authentication on the wire (NVMe Base Specification 2.1 section 8.3.5,
 * numbered 8.13 in Base 2.0): the messages of the DH-HMAC-CHAP protocol, carried as the
 * data of the Fabrics Authentication Send (fctype 05h, host to controller) and
 * Authentication Receive (fctype 06h, controller to host) commands, which libnvme 1.3
 * does not define (it has the fctypes, nvme_fabrics_type_auth_send/_receive, and the
 * status NVME_SC_AUTH_REQUIRED).
 *
 * An exchange on one queue, after its Connect answered with AUTHREQ set:
 *   host  AUTH_Negotiate               (Send)     transaction id, SC_C, hashes and groups offered
 *   ctrl  DH-HMAC-CHAP_Challenge       (Receive)  hash, group, S1, C1, controller's DH value
 *   host  DH-HMAC-CHAP_Reply           (Send)     R1, optional S2/C2, host's DH value
 *   ctrl  DH-HMAC-CHAP_Success1        (Receive)  R2 when the host asked for it
 *   host  DH-HMAC-CHAP_Success2        (Send)     only after checking R2
 * Either side may end it with AUTH_Failure1 (controller) or AUTH_Failure2 (host).
 * The computations behind the values are in nvme/dhchap.h.
 *
 * Multi-byte fields are little endian. Every message starts with auth_type (AUTH_Negotiate
 * and the failures are common messages, type 00h, as the Linux host and target send them;
 * the others are DH-HMAC-CHAP messages, 01h) and auth_id. Variable parts follow the fixed
 * header: their lengths come from hl and dhvlen (see the _len helpers). Field layout as
 * Linux's include/linux/nvme.h has it; sizes checked with static asserts.
 */
#ifndef NVMF_NVME_AUTH_H
#define NVMF_NVME_AUTH_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <libnvme.h>

/* SECP and SPSP0/SPSP1 of the Authentication Send / Receive SQE (struct nvmf_auth_sqe,
 * nvme/fabrics.h). */
#define NVME_AUTH_SECP_DHCHAP 0xe9 /* "NVMe in-band authentication" security protocol */
#define NVME_AUTH_SPSP        0x01 /* SPSP0 and SPSP1 of every DH-HMAC-CHAP command */

/* Connect response, CQE dword 0 (NVMe-oF): AUTHREQ bits, set when the queue must be
 * authenticated before it takes any other command. */
#define NVMF_CONNECT_AUTHREQ_ATR  (1u << 17) /* authentication required */
#define NVMF_CONNECT_AUTHREQ_ASCR (1u << 18) /* secure channel concatenation required (TCP) */

/* auth_type, byte 0 of every message. */
enum nvme_auth_type {
	NVME_AUTH_COMMON_MESSAGES = 0x00, /* AUTH_Negotiate, AUTH_Failure1, AUTH_Failure2 */
	NVME_AUTH_DHCHAP_MESSAGES = 0x01, /* Challenge, Reply, Success1, Success2 */
};

/* auth_id, byte 1 of every message. */
enum nvme_auth_msg_id {
	NVME_AUTH_MSG_NEGOTIATE = 0x00,
	NVME_AUTH_MSG_CHALLENGE = 0x01,
	NVME_AUTH_MSG_REPLY = 0x02,
	NVME_AUTH_MSG_SUCCESS1 = 0x03,
	NVME_AUTH_MSG_SUCCESS2 = 0x04,
	NVME_AUTH_MSG_FAILURE2 = 0xf0, /* host to controller */
	NVME_AUTH_MSG_FAILURE1 = 0xf1, /* controller to host */
};

/* Authentication protocol identifier of a negotiate descriptor: DH-HMAC-CHAP. */
#define NVME_AUTH_DHCHAP_AUTH_ID 0x01

/* Hash function identifiers (HashID): in the negotiate list, the challenge's hashid,
 * and (same numbers) the NN of a DHHC-1 secret, where 00h means no transformation. */
enum nvme_auth_hash_id {
	NVME_AUTH_HASH_SHA256 = 0x01, /* 32-byte digest */
	NVME_AUTH_HASH_SHA384 = 0x02, /* 48 */
	NVME_AUTH_HASH_SHA512 = 0x03, /* 64 */
};

/* Diffie-Hellman group identifiers (DHgroupID); the groups are RFC 7919's, g = 2. */
enum nvme_auth_dhgroup_id {
	NVME_AUTH_DHGROUP_NULL = 0x00, /* no DH exchange: C1/C2 are used as they are */
	NVME_AUTH_DHGROUP_2048 = 0x01, /* ffdhe2048, DH values of 256 bytes */
	NVME_AUTH_DHGROUP_3072 = 0x02, /* ffdhe3072, 384 */
	NVME_AUTH_DHGROUP_4096 = 0x03, /* ffdhe4096, 512 */
	NVME_AUTH_DHGROUP_6144 = 0x04, /* ffdhe6144, 768 */
	NVME_AUTH_DHGROUP_8192 = 0x05, /* ffdhe8192, 1024 */
};

/* SC_C of AUTH_Negotiate: secure channel concatenation. Only 00h exists on RDMA; the
 * others ask for TLS after the exchange (NVMe/TCP). */
enum nvme_auth_sc_c {
	NVME_AUTH_SC_NONE = 0x00,
	NVME_AUTH_SC_SECURE = 0x01,
	NVME_AUTH_SC_NEW_TLS_PSK = 0x02,
	NVME_AUTH_SC_REPLACE_TLS_PSK = 0x03,
};

/* AUTH_Failure1/2: reason code and its explanation. */
#define NVME_AUTH_FAILURE_REASON_FAILED 0x01 /* rescode: authentication failure */
enum nvme_auth_failure_exp {
	NVME_AUTH_FAILURE_FAILED = 0x01,            /* authentication failed (wrong response) */
	NVME_AUTH_FAILURE_NOT_USABLE = 0x02,        /* authentication protocol not usable */
	NVME_AUTH_FAILURE_CONCAT_MISMATCH = 0x03,   /* secure channel concatenation mismatch */
	NVME_AUTH_FAILURE_HASH_UNUSABLE = 0x04,     /* hash function not usable */
	NVME_AUTH_FAILURE_DHGROUP_UNUSABLE = 0x05,  /* DH group not usable */
	NVME_AUTH_FAILURE_INCORRECT_PAYLOAD = 0x06, /* a field holds a wrong value */
	NVME_AUTH_FAILURE_INCORRECT_MESSAGE = 0x07, /* unexpected message or transaction id */
};

/* One authentication protocol descriptor of AUTH_Negotiate, 64 bytes. idlist holds halen
 * hash ids from index 0 and dhlen DH group ids from index NVME_AUTH_IDLIST_DH. */
#define NVME_AUTH_IDLIST_DH 30
struct nvme_auth_protocol_desc {
	uint8_t authid; /* NVME_AUTH_DHCHAP_AUTH_ID */
	uint8_t rsvd;
	uint8_t halen; /* hash ids in idlist[0..29] */
	uint8_t dhlen; /* DH group ids in idlist[30..59] */
	uint8_t idlist[60];
} __attribute__((packed));
static_assert(sizeof(struct nvme_auth_protocol_desc) == 64, "negotiate descriptor is 64 bytes");

/* AUTH_Negotiate (host to controller): 8 bytes, then napd descriptors. */
struct nvme_auth_negotiate {
	uint8_t auth_type; /* NVME_AUTH_COMMON_MESSAGES */
	uint8_t auth_id;   /* NVME_AUTH_MSG_NEGOTIATE */
	uint8_t rsvd[2];
	__le16 t_id;  /* transaction id, chosen by the host, echoed in every later message */
	uint8_t sc_c; /* enum nvme_auth_sc_c */
	uint8_t napd; /* number of descriptors (the Linux host sends 1) */
	struct nvme_auth_protocol_desc desc[];
} __attribute__((packed));
static_assert(sizeof(struct nvme_auth_negotiate) == 8, "AUTH_Negotiate header is 8 bytes");

/* DH-HMAC-CHAP_Challenge (controller to host): 16 bytes, C1 (hl bytes), then the
 * controller's DH value g^y mod p (dhvlen bytes, big endian; 0 for the null group). */
struct nvme_auth_challenge {
	uint8_t auth_type; /* NVME_AUTH_DHCHAP_MESSAGES */
	uint8_t auth_id;   /* NVME_AUTH_MSG_CHALLENGE */
	uint8_t rsvd1[2];
	__le16 t_id;
	uint8_t hl; /* hash length: the digest length of hashid */
	uint8_t rsvd2;
	uint8_t hashid; /* enum nvme_auth_hash_id */
	uint8_t dhgid;  /* enum nvme_auth_dhgroup_id */
	__le16 dhvlen;
	__le32 seqnum;  /* S1 */
	uint8_t cval[]; /* C1, then the DH value */
} __attribute__((packed));
static_assert(sizeof(struct nvme_auth_challenge) == 16, "Challenge header is 16 bytes");

/* DH-HMAC-CHAP_Reply (host to controller): 16 bytes, R1 (hl), C2 (hl, zero unless
 * cvalid), then the host's DH value g^x mod p (dhvlen bytes, big endian). */
struct nvme_auth_reply {
	uint8_t auth_type; /* NVME_AUTH_DHCHAP_MESSAGES */
	uint8_t auth_id;   /* NVME_AUTH_MSG_REPLY */
	uint8_t rsvd1[2];
	__le16 t_id;
	uint8_t hl;
	uint8_t rsvd2;
	uint8_t cvalid; /* 1: C2 is valid, the host wants the controller authenticated */
	uint8_t rsvd3;
	__le16 dhvlen;
	__le32 seqnum;  /* S2, 0 when cvalid is 0 */
	uint8_t rval[]; /* R1, then C2, then the DH value */
} __attribute__((packed));
static_assert(sizeof(struct nvme_auth_reply) == 16, "Reply header is 16 bytes");

/* DH-HMAC-CHAP_Success1 (controller to host): 16 bytes, then R2 (hl) if rvalid. */
struct nvme_auth_success1 {
	uint8_t auth_type; /* NVME_AUTH_DHCHAP_MESSAGES */
	uint8_t auth_id;   /* NVME_AUTH_MSG_SUCCESS1 */
	uint8_t rsvd1[2];
	__le16 t_id;
	uint8_t hl;
	uint8_t rsvd2;
	uint8_t rvalid; /* 1: R2 follows */
	uint8_t rsvd3[7];
	uint8_t rval[];
} __attribute__((packed));
static_assert(sizeof(struct nvme_auth_success1) == 16, "Success1 header is 16 bytes");

/* DH-HMAC-CHAP_Success2 (host to controller), 16 bytes: the host accepted R2. */
struct nvme_auth_success2 {
	uint8_t auth_type; /* NVME_AUTH_DHCHAP_MESSAGES */
	uint8_t auth_id;   /* NVME_AUTH_MSG_SUCCESS2 */
	uint8_t rsvd1[2];
	__le16 t_id;
	uint8_t rsvd2[10];
} __attribute__((packed));
static_assert(sizeof(struct nvme_auth_success2) == 16, "Success2 is 16 bytes");

/* AUTH_Failure1 (controller to host) and AUTH_Failure2 (host to controller), 8 bytes. */
struct nvme_auth_failure {
	uint8_t auth_type; /* NVME_AUTH_COMMON_MESSAGES */
	uint8_t auth_id;   /* NVME_AUTH_MSG_FAILURE1 or _FAILURE2 */
	uint8_t rsvd1[2];
	__le16 t_id;
	uint8_t rescode;     /* NVME_AUTH_FAILURE_REASON_FAILED */
	uint8_t rescode_exp; /* enum nvme_auth_failure_exp */
} __attribute__((packed));
static_assert(sizeof(struct nvme_auth_failure) == 8, "Failure1/2 is 8 bytes");

static_assert(offsetof(struct nvme_auth_challenge, seqnum) == 12, "Challenge S1 at byte 12");
static_assert(offsetof(struct nvme_auth_reply, dhvlen) == 10, "Reply DHVLEN at byte 10");

/* Whole message lengths in bytes, from the header's hl and dhvlen. */
static inline size_t nvme_auth_negotiate_len(unsigned napd)
{
	return sizeof(struct nvme_auth_negotiate) + napd * sizeof(struct nvme_auth_protocol_desc);
}
static inline size_t nvme_auth_challenge_len(unsigned hl, unsigned dhvlen)
{
	return sizeof(struct nvme_auth_challenge) + hl + dhvlen;
}
static inline size_t nvme_auth_reply_len(unsigned hl, unsigned dhvlen)
{
	return sizeof(struct nvme_auth_reply) + 2 * (size_t)hl + dhvlen;
}
static inline size_t nvme_auth_success1_len(unsigned hl, int rvalid)
{
	return sizeof(struct nvme_auth_success1) + (rvalid ? hl : 0);
}

#endif
