/* SPDX-License-Identifier: MIT */
/*
 * NVMe in-band authentication, controller side (DH-HMAC-CHAP, NVMe Base 2.1 section
 * 8.3.5): the target's table of host keys, each controller's copy of its host's keys,
 * each queue's transaction, and the Fabrics Authentication Send/Receive commands
 * (fctype 05h/06h). The messages are nvme/auth.h's, the cryptography nvme/dhchap.h's.
 *
 * Who must authenticate: a host whose NQN has a key in the table, on every queue of a
 * controller of any NVM subsystem (the discovery subsystem never asks, as nvmet; unlike
 * nvmet, allow_any_host does not switch authentication off for a host that has a key).
 * The Connect response sets AUTHREQ.ATR; until the queue's transaction succeeded it takes
 * only Fabrics commands (Property Get/Set on the admin queue, the two authentication
 * commands): anything else gets Authentication Required (SCT 1h, 91h) with DNR.
 *
 * A successful transaction is logged (controller, host, queue, hash, group, direction:
 * the admin queue's at info, the I/O queues' at debug) and kept for controller_list
 * (nvmf_sq_auth_info).
 *
 * A failed transaction (wrong response, unusable hash or group, malformed or unexpected
 * message) answers the next Authentication Receive with AUTH_Failure1 and its reason,
 * then tears the association down, as nvmet does. A transaction that does not move on for
 * NVMF_AUTH_TIMEOUT_MS starts over; an admin queue not authenticated that long after its
 * Connect ends the association.
 *
 * Keys changed in the table (reload, nvmf_tgt_host_auth_set) reach the live controllers
 * of that host that authenticate: each transaction from then on (re-authentication, a new
 * I/O queue) uses the new keys; one under way finishes with the keys it began with. A
 * key removed from the table leaves live controllers their keys (remove the host from
 * the subsystem to end them); a key added applies from the next Connect.
 *
 * Threads: the key table lives on the main group, which also makes and replaces the
 * controllers' copies; a copy is read-only and refcounted, and a transaction (on its
 * queue's group) holds a reference from its AUTH_Negotiate to its end, taken under the
 * controller's auth_lock.
 */
#ifndef NVMF_TARGET_AUTH_H
#define NVMF_TARGET_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nvme/status.h"

struct nvmf_tgt;
struct nvmf_tgt_ctrl;
struct nvmf_sq;
struct nvmf_req;
struct nvme_dhchap_key;
struct nvmf_dhchap_config;

/* A transaction that does not move on for this long starts over; an admin queue not
 * authenticated this long after its Connect ends the association (nvmet: KATO or 120 s). */
#define NVMF_AUTH_TIMEOUT_MS        120000u
/* After a failed transaction the association ends this much later: time for the host to
 * read its AUTH_Failure1 and disconnect by itself. */
#define NVMF_AUTH_FAILURE1_GRACE_MS 2000u
/* Largest Authentication Send/Receive transfer taken: a Reply with SHA-512 and ffdhe8192
 * is 1168 bytes; the Linux host receives into 4 KiB. */
#define NVMF_AUTH_MAX_XFER          4096u
/* Longest secret text taken: "DHHC-1:NN:" and the base64 of 64 bytes of key and 4 of CRC
 * is 102 characters; room for padding variations. */
#define NVMF_AUTH_MAX_SECRET        256u

/* One host's DH-HMAC-CHAP settings (kernel configfs: hosts/NQN/dhchap_*). */
struct nvmf_host_auth {
	char *hostnqn;
	struct nvme_dhchap_key *key;      /* the host's secret, as parsed (not transformed) */
	struct nvme_dhchap_key *ctrl_key; /* the controller's secret: NULL when the host may
					    * not ask for bidirectional authentication */
	uint8_t hash_id;                  /* preferred hash (enum nvme_auth_hash_id) */
	uint8_t dhgroup_id;               /* preferred DH group (enum nvme_auth_dhgroup_id) */
	unsigned refs;                    /* a controller's copy: its own reference and one
					    * per transaction using it (atomic); 0 in the table */
	struct nvmf_host_auth *next;
};

/*
 * nvmf_tgt_host_auth_set - give @hostnqn DH-HMAC-CHAP keys (main group, or before the
 * target starts). Controllers made from now on use them.
 * @key:      the host's secret "DHHC-1:NN:...:" (nvme gen-dhchap-key); NULL or "" removes
 *            the host's entry (it then connects without authentication). Live
 *            controllers take the new keys as with nvmf_tgt_host_auth_replace.
 * @ctrl_key: the controller's secret, NULL or "" for none.
 * @hash:     the hash by its kernel name ("hmac(sha256)", "hmac(sha384)",
 *            "hmac(sha512)"); NULL or "" for hmac(sha256). A host that does not offer it
 *            fails (no fallback: see choose() in auth.c).
 * @dhgroup:  the DH group ("null", "ffdhe2048" ... "ffdhe8192"); NULL or "" for null;
 *            required like @hash.
 * Returns 0, or -1 with @err naming the bad argument (never the secret itself).
 */
int nvmf_tgt_host_auth_set(struct nvmf_tgt *tgt, const char *hostnqn, const char *key,
			   const char *ctrl_key, const char *hash, const char *dhgroup, char *err,
			   size_t errlen);
/*
 * nvmf_tgt_host_auth_load - replace the whole table with the @n hosts of @d (the config's
 * hosts[].dhchap, checked by the loader): at start and on reload; live controllers take
 * changed keys as with nvmf_tgt_host_auth_replace. Returns 0, or -1 with @err ("host NQN: dhchap key: ...") and the
 * table as it was.
 */
int nvmf_tgt_host_auth_load(struct nvmf_tgt *tgt, const struct nvmf_dhchap_config *d, size_t n,
			    char *err, size_t errlen);
/* nvmf_host_auth_build - a table of the @n hosts of @d into *@out, not installed (a
 * reload prepares it before it changes anything). 0, or -1 with @err as above. */
int nvmf_host_auth_build(const struct nvmf_dhchap_config *d, size_t n, struct nvmf_host_auth **out,
			 char *err, size_t errlen);
/* nvmf_tgt_host_auth_replace - install @list (from nvmf_host_auth_build) as the table,
 * freeing the old one, and give the live controllers of its hosts the new keys (see
 * above; a controller whose copy cannot be made, out of memory, keeps its keys). */
void nvmf_tgt_host_auth_replace(struct nvmf_tgt *tgt, struct nvmf_host_auth *list);
/* nvmf_host_auth_list_free - free a table not installed (secrets zeroed). */
void nvmf_host_auth_list_free(struct nvmf_host_auth *list);
/* nvmf_tgt_host_auth_free - drop the whole table, secrets zeroed (nvmf_tgt_fini). */
void nvmf_tgt_host_auth_free(struct nvmf_tgt *tgt);

/*
 * nvmf_ctrl_auth_setup - at admin Connect (main group): copy the table's keys for
 * ctrl->hostnqn into @ctrl when it must authenticate (see above). Returns 0, or -1 out
 * of memory (the Connect then fails as Controller Busy).
 */
int nvmf_ctrl_auth_setup(struct nvmf_tgt_ctrl *ctrl);
/* nvmf_ctrl_auth_free - free @ctrl's copy (secrets zeroed); with the controller. */
void nvmf_ctrl_auth_free(struct nvmf_tgt_ctrl *ctrl);
/* nvmf_ctrl_auth_expired - @ctrl's admin queue was not authenticated in time, or a failed
 * transaction's grace ran out (main group, keep-alive timer). */
bool nvmf_ctrl_auth_expired(const struct nvmf_tgt_ctrl *ctrl, uint64_t now_ms);

/*
 * nvmf_sq_auth_connected - @sq just became a queue of its controller: whether it must
 * authenticate (the AUTHREQ.ATR bit of the Connect response, NVMF_CONNECT_AUTHREQ_ATR,
 * or 0).
 */
uint32_t nvmf_sq_auth_connected(struct nvmf_sq *sq);
/* nvmf_sq_auth_free - drop @sq's transaction state (its DH key pair, challenges); with
 * the queue. */
void nvmf_sq_auth_free(struct nvmf_sq *sq);

/* How a queue authenticated: its last successful DH-HMAC-CHAP transaction. */
struct nvmf_sq_auth_info {
	uint8_t hash_id;    /* NVME_AUTH_HASH_SHA256.. (nvme_dhchap_hash_name) */
	uint8_t dhgroup_id; /* NVME_AUTH_DHGROUP_NULL.. (nvme_dhchap_dhgroup_name) */
	bool bidirectional; /* the host checked the controller's response (R2) too */
};
/* nvmf_sq_auth_info - whether @sq is authenticated now (a transaction succeeded and no
 * later one failed); if so *@out says with what. Any thread (controller_list reads it on
 * the main group while the queue's group authenticates). */
bool nvmf_sq_auth_info(const struct nvmf_sq *sq, struct nvmf_sq_auth_info *out);

/*
 * nvmf_parse_auth_cmd - Authentication Send (05h) or Receive (06h) on any connected queue:
 * SECP E9h, SPSP0 and SPSP1 01h, a length from 1 to NVMF_AUTH_MAX_XFER bytes, else
 * Invalid Field in Command with DNR. Sets the transfer and the handler.
 */
nvme_status_t nvmf_parse_auth_cmd(struct nvmf_req *req);

#endif
