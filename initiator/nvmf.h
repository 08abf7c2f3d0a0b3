/* SPDX-License-Identifier: MIT */
/*
 * libnvmf: an NVMe over Fabrics host library for RDMA (NVMe-oF 1.1, NVMe Base 2.0).
 *
 * A program connects to a controller (nvmf_connect), gets N I/O queues, and submits
 * commands asynchronously on each queue with a completion callback, reaping completions
 * with nvmf_queue_poll(). One thread per I/O queue: the data path takes no locks. The
 * admin queue is shared (a mutex), and a controller thread sends Keep Alive on time, the
 * Aborts of timed-out commands, and reconnects (nvmf_ctrl_opts.ctrl_loss_tmo_ms).
 *
 * Return values: every int-returning call returns
 *   0         success,
 *   > 0       an NVMe status: the CQE status field without the phase bit
 *             ((DNR << 14) | (SCT << 8) | SC), e.g. 0x4182 Connect Invalid Parameters + DNR,
 *   < 0       a negative errno for local and transport errors (-ECONNRESET: the
 *             connection was lost; -ETIMEDOUT; -EINVAL: bad argument; -ENOMEM; ...).
 * nvmf_strerror() names either kind; nvmf_ctrl_errmsg() has the last detailed message.
 *
 * Units: LBAs and block counts are in logical blocks of the namespace (nlb is 1's based
 * here, the library converts); byte counts are bytes; all values are host endian except
 * inside the libnvme structures (nvme_id_ctrl, nvme_id_ns, ...), which are as on the wire.
 */
#ifndef LIBNVMF_NVMF_H
#define LIBNVMF_NVMF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libnvme.h>

#ifdef __cplusplus
extern "C" {
#endif

struct nvmf_ctrl;
struct nvmf_queue;
struct nvmf_host_transport; /* internal; NULL selects RDMA */
/* The SQE/CQE layouts: include <nvmf-wire.h> (installed with this header) to build raw
 * commands or read CQE fields. */
struct nvme_sqe;
struct nvme_cqe;

/* Connection options. Zeroed fields take the defaults given. */
struct nvmf_ctrl_opts {
	const char *traddr;    /* target address, IPv4 or IPv6, numeric (required) */
	const char *trsvcid;   /* port; default "4420" */
	const char *subnqn;    /* subsystem NQN; default: the discovery NQN */
	const char *hostnqn;   /* default: /etc/nvme/hostnqn, else generated from hostid */
	const uint8_t *hostid; /* 16 bytes; default: /etc/nvme/hostid, else generated */
	unsigned nr_io_queues; /* default 1; the controller may grant fewer */
	unsigned queue_size;   /* I/O queue entries; default 128, capped at CAP.MQES+1 */
	unsigned kato_ms;      /* keep-alive timeout; default 5000 (0 with no_keep_alive) */
	bool no_keep_alive;    /* connect with KATO 0 and send no Keep Alive */
	int timeout_ms;        /* connect and admin command timeout; default 60000 (the
				  Linux host's admin timeout) */
	const struct nvmf_host_transport *transport; /* tests: an in-process transport (then
					   trtype is not read) */
	/* NVMe in-band authentication, DH-HMAC-CHAP (NVMe Base 2.1 section 8.3.5), as
	 * `nvme connect --dhchap-secret/--dhchap-ctrl-secret`. Secrets in their "DHHC-1:NN:
	 * <base64>:" form (`nvme gen-dhchap-key`); parsed and checked by nvmf_connect, which
	 * keeps no pointer to these strings (the caller may wipe them once it returns). */
	const char *dhchap_secret;      /* the host's secret: answers a controller whose
					   Connect response asks for authentication (AUTHREQ.ATR),
					   on the admin queue and every I/O queue; NULL: none */
	const char *dhchap_ctrl_secret; /* the controller's secret: also authenticate the
					   controller (bidirectional), refuse it when it cannot
					   prove it holds this secret or does not authenticate at
					   all; needs dhchap_secret; NULL: unidirectional */
	/* The transport, as nvme-cli's -t: "rdma" (NULL or "" too: the default) or "tcp"
	 * (NVMe/TCP, TCP transport 1.0; the discovery log names it trtype 3). Anything else
	 * makes nvmf_connect fail with -EINVAL. */
	const char *trtype;
	/* NVMe/TCP only, as nvme-cli's -g/-G: ask for header digests (CRC32C over every
	 * PDU header but ICReq/ICResp/TermReq) and data digests (over every PDU's data) in
	 * ICReq; the controller must grant exactly what was asked or the connect fails. A
	 * data digest mismatch fails its command with Data Transfer Error (the connection
	 * stays); a header digest mismatch is a connection error. Default off. */
	bool hdr_digest;
	bool data_digest;
	/* As nvme-cli's --disable-sqflow (and its connect-all, where the discovery entry's
	 * TREQ bit 2 says the port supports it): every Connect (admin and I/O queues) sets
	 * CATTR bit 2, SQ flow control disable (NVMe-oF 1.1 Figure 20). The controller then
	 * reports no SQ head; the library never reads it anyway (it keeps one entry of each
	 * queue free). Over NVMe/TCP a controller may then end a successful read with a
	 * C2HData PDU carrying SUCCESS and send no CapsuleResp, which is taken as status 0.
	 * A controller that refuses it fails the Connect (its status is returned). Default
	 * off. */
	bool disable_sqflow;
	/* NVMe/TCP only, as nvme-cli's --tls with --tls-key: a TLS 1.3 secure channel on
	 * every queue (NVMe/TCP transport spec 1.0 section 3.6: PSK with (EC)DHE, no
	 * certificates). tls_key: the host's configured PSK in its interchange form
	 * ("NVMeTLSkey-1:01:<base64>:" or ":02:", as `nvme gen-tls-key` prints it), checked by
	 * nvmf_connect (-EINVAL naming what is wrong), which keeps its own copy (the caller
	 * may wipe the string once it returns). The handshake offers the identity
	 * "NVMe<v>R<hh> <hostnqn> <subnqn>[ <digest>]" of tls_identity, 0 (the default,
	 * what the Linux host offers) or 1 (with the PSK digest), and the TLS PSK derived
	 * from the key for it, as the Linux host and libnvme derive them. A controller that
	 * refuses the handshake fails nvmf_connect with -EKEYREJECTED (wrong key) or
	 * -ECONNREFUSED (no TLS there, or no key for this host). NULL: no TLS. */
	const char *tls_key;
	int tls_identity;
	/* With tls_key: derive the identity's PSK digest (version 1) and the TLS PSK in
	 * libnvme's older "compat" HKDF layout (nvme/tls-psk.h), as nvme-cli 2.15 and earlier
	 * did for every key they inserted into the kernel keyring (nvme-cli 2.16 on: its
	 * --compat). Needed to reach a kernel target (nvmet-tcp) whose key such an nvme-cli
	 * inserted; a controller that derived in the RFC 8446 layout refuses it
	 * (-EKEYREJECTED). Default false: RFC 8446, as the kernel and nvme-cli 2.16 on. */
	bool tls_compat;
	/* Timeouts and recovery, as the Linux host's (docs/libnvmf.md "Timeouts and
	 * reconnect"). io_timeout_ms: an I/O command the controller has not answered after
	 * this long is aborted (Abort, NVMe Base 2.0 section 5.1), and when the controller
	 * does not abort it, or it stays unanswered for io_timeout_ms more, the controller is
	 * reset (every queue disconnected; see ctrl_loss_tmo_ms). Default 30000; < 0: never.
	 * The admin queue's commands time out after timeout_ms. */
	int io_timeout_ms;
	/* Automatic reconnect. When a queue's connection is lost, Keep Alive fails or a
	 * command timed out, the controller enters NVMF_CTRL_CONNECTING: every queue is
	 * disconnected; commands that may be sent again (Read, Write, Write Zeroes, Flush,
	 * Dataset Management, Verify, Compare, Copy; not fused or other commands: those fail
	 * with NVMF_ERR_RESET) wait, as do new ones, and are sent again once a new
	 * association is up (at most 5 sends after the first; then the loss's error).
	 * reconnect_delay_ms after the loss and then every reconnect_delay_ms, a new
	 * association is tried (DH-HMAC-CHAP and TLS as at connect). ctrl_loss_tmo_ms: how
	 * long to try: 0 (the default) never (a lost queue's commands fail with
	 * -ECONNRESET and the program calls nvmf_reconnect, as before), > 0 that long, < 0
	 * for ever; when it passes, the controller is NVMF_CTRL_LOST and every waiting and
	 * new command fails with -ENODEV. reconnect_delay_ms: default 10000.
	 * fast_io_fail_tmo_ms: > 0: waiting commands fail with -ECONNRESET once the
	 * controller has been reconnecting this long, and new ones fail at once until it is
	 * live again; 0 (the default): they wait until ctrl_loss_tmo_ms (the Linux host's 0,
	 * at once, is 1 here). */
	int ctrl_loss_tmo_ms;
	unsigned reconnect_delay_ms;
	int fast_io_fail_tmo_ms;
	/* state_cb: told each state the controller enters (nvmf_ctrl_state), on the
	 * library's controller thread: it must not block for long nor call nvmf_disconnect
	 * or nvmf_reconnect. NULL: none. */
	void (*state_cb)(void *arg, struct nvmf_ctrl *ctrl, int state);
	void *state_arg;
};

/* Controller states (nvmf_ctrl_state), as the Linux host's. */
enum {
	NVMF_CTRL_LIVE = 0,       /* associated: commands go out */
	NVMF_CTRL_CONNECTING = 1, /* the association ended; reconnecting automatically */
	NVMF_CTRL_LOST = 2,       /* ended and not reconnecting (ctrl_loss_tmo_ms passed, or
				     no automatic reconnect after a reset): nvmf_reconnect or
				     nvmf_disconnect */
};

/* ---- controllers ---- */

/*
 * nvmf_connect - associate with a controller: admin queue Connect, CC.EN and CSTS.RDY,
 * Identify Controller, Set Features Number of Queues, I/O queue Connects (NVMe-oF 1.1
 * section 3.3; the sequence a Linux host uses). A discovery NQN gets an admin queue only.
 * Returns 0 with *out set, or an error (a Connect status such as Connect Invalid Host
 * (0x4184) when the target refuses; -ECONNREFUSED, -ETIMEDOUT, -EHOSTUNREACH ... when the
 * transport fails); *out is NULL then and nvmf_last_errmsg() says what failed.
 * Authentication errors: -EINVAL a malformed secret (the message names which);
 * -EACCES the controller requires authentication and no dhchap_secret was given, or a
 * dhchap_ctrl_secret was given and the controller does not authenticate;
 * -EKEYREJECTED the exchange failed: the controller refused ours (its AUTH_Failure1
 * reason is in the message) or it failed to prove the controller secret (we sent
 * AUTH_Failure2); -EPROTO a malformed message from the controller.
 */
int nvmf_connect(const struct nvmf_ctrl_opts *opts, struct nvmf_ctrl **out);

/* nvmf_disconnect - shut the controller down (CC.SHN, wait for CSTS.SHST complete, up to
 * the timeout), disconnect every queue, free @ctrl. Outstanding commands complete with
 * -ECONNABORTED first. Returns 0 or the error of the shutdown (the ctrl is freed anyway). */
int nvmf_disconnect(struct nvmf_ctrl *ctrl);

/* nvmf_reconnect - after a lost connection (-ECONNRESET from a queue), or to replace a
 * live one (it is torn down first; outstanding commands get -ECONNRESET), establish a new
 * association with the same options and the same number of I/O queues; the nvmf_queue
 * pointers stay valid. Returns 0 or an error as nvmf_connect. */
int nvmf_reconnect(struct nvmf_ctrl *ctrl);

/* nvmf_ctrl_state - NVMF_CTRL_LIVE, _CONNECTING or _LOST (any thread). */
int nvmf_ctrl_state(const struct nvmf_ctrl *ctrl);
/* nvmf_ctrl_state_str - "live", "connecting", "lost"; "unknown" for another value. */
const char *nvmf_ctrl_state_str(int state);
/* nvmf_ctrl_reconnects - associations the library rebuilt automatically. */
unsigned long nvmf_ctrl_reconnects(struct nvmf_ctrl *ctrl);

/* nvmf_ctrl_id - Identify Controller data read at connect (wire format, little endian). */
const struct nvme_id_ctrl *nvmf_ctrl_id(const struct nvmf_ctrl *ctrl);
/* nvmf_ctrl_cntlid - controller ID assigned by Connect. */
uint16_t nvmf_ctrl_cntlid(const struct nvmf_ctrl *ctrl);
/* nvmf_ctrl_nr_io_queues - I/O queues connected (granted by the controller). */
unsigned nvmf_ctrl_nr_io_queues(const struct nvmf_ctrl *ctrl);
/* nvmf_ctrl_queue_size - entries per I/O queue (1's based). */
unsigned nvmf_ctrl_queue_size(const struct nvmf_ctrl *ctrl);
/* nvmf_ctrl_max_xfer - largest transfer of one command in bytes: 2^MDTS * 4 KiB, at most
 * 1 MiB as the Linux RDMA host (MDTS 0 = no limit reported: 1 MiB). Larger requests are
 * split by the library. */
uint32_t nvmf_ctrl_max_xfer(const struct nvmf_ctrl *ctrl);
/* What the DH-HMAC-CHAP transaction of the admin queue used (NVMe Base 2.1 section
 * 8.3.5.5); the I/O queues authenticate the same way, each with its own transaction. */
struct nvmf_auth_info {
	bool authenticated; /* the controller required authentication; it succeeded */
	bool bidirectional; /* the controller proved it holds dhchap_ctrl_secret */
	uint8_t hash_id;    /* HashID: 1 SHA-256, 2 SHA-384, 3 SHA-512; 0 when not
				      authenticated */
	uint8_t dhgroup_id; /* DHgroupID: 0 null, 1 ffdhe2048, 2 ffdhe3072, 3 ffdhe4096,
				      4 ffdhe6144, 5 ffdhe8192 */
};
/* nvmf_ctrl_auth_info - how @ctrl's association authenticated into @out. 0 or -EINVAL. */
int nvmf_ctrl_auth_info(const struct nvmf_ctrl *ctrl, struct nvmf_auth_info *out);
/* nvmf_ctrl_errmsg - the detail of the last failed call made on @ctrl ("" when none):
 * what was being done and, for a lost connection, what ended it ("I/O queue 1:
 * connection closed by the controller", "admin queue: Keep Alive timed out after 10000
 * ms ..."). Only the application's calls set it (an event callback's calls too): the
 * controller thread and the event thread's own log reads never do (a Keep Alive failure
 * is named when a later admin call fails because of it; a failed event log read is the
 * event's status). The text is
 * a copy in a thread-local buffer, valid until this thread's next call of
 * nvmf_ctrl_errmsg; calls failing in several threads at once each leave theirs, the
 * last one stays. */
const char *nvmf_ctrl_errmsg(const struct nvmf_ctrl *ctrl);
/* nvmf_last_errmsg - detailed message of the last failed nvmf_connect/nvmf_discover in
 * this thread. */
const char *nvmf_last_errmsg(void);
/* NVMF_ERR_NO_PATH - a multipath command (or nvmf_mpath_ns_path) found no usable path:
 * every path was down or in an ANA state that takes no I/O (inaccessible, persistent
 * loss, change) for no_path_timeout_ms. Negative, outside the errno range; nvmf_strerror
 * names it, nvmf_mpath_errmsg lists each path and its state ("namespace 1: no usable path
 * for 10000 ms: path 0 (10.0.0.1:4420) inaccessible, path 1 (10.0.0.2:4420)
 * persistent-loss; last error: ..."). */
#define NVMF_ERR_NO_PATH (-1000)
/* NVMF_ERR_RESET - the controller was reset (a lost connection, a timeout) while the
 * command was outstanding, and it was not sent again: a fused or raw command whose effect
 * is unknown (see nvmf_ctrl_opts.ctrl_loss_tmo_ms). Negative, outside the errno range. */
#define NVMF_ERR_RESET   (-1001)

/* nvmf_strerror - "CONNECT_INVALID_HOST (sct 0x1, sc 0x84, DNR)" for an NVMe status,
 * "no usable path" for NVMF_ERR_NO_PATH, strerror() text for a negative errno, "success"
 * for 0. Command specific codes 80h-85h are read as the Fabrics command set's (NVMe-oF
 * 1.1 section 3.5: what nvmf_connect returns); for what an I/O call returned use
 * nvmf_io_strerror. Thread safe (static strings or a thread-local buffer). */
const char *nvmf_strerror(int rc);

/* nvmf_io_strerror - nvmf_strerror for the status of an I/O command (read, write, copy,
 * compare and write, ...): command specific codes 80h-85h read as the NVM command set's
 * (NVMe NVM Command Set 1.0 figure 31: 0x183 "CMD_SIZE_LIMIT_EXCEEDED" from a Copy past
 * MCL), which share their values with Connect's. Thread safe like nvmf_strerror. */
const char *nvmf_io_strerror(int rc);

/* ---- admin commands (serialized on the admin queue; blocking) ---- */

/* nvmf_identify - Identify with @cns (NVME_IDENTIFY_CNS_*) for @nsid into @buf (4096
 * bytes). */
int nvmf_identify(struct nvmf_ctrl *ctrl, uint8_t cns, uint32_t nsid, void *buf);
/* nvmf_get_log_page - Get Log Page @lid (NVME_LOG_LID_*) for @nsid: @len bytes at byte
 * @offset (dword aligned) into @buf; @len is split by MDTS. */
int nvmf_get_log_page(struct nvmf_ctrl *ctrl, uint8_t lid, uint32_t nsid, uint64_t offset,
		      void *buf, uint32_t len);
/* nvmf_get_features / nvmf_set_features - @fid (NVME_FEAT_FID_*), cdw11 value; dword 0
 * of the completion in *result (may be NULL). */
int nvmf_get_features(struct nvmf_ctrl *ctrl, uint8_t fid, uint32_t nsid, uint32_t cdw11,
		      uint32_t *result);
int nvmf_set_features(struct nvmf_ctrl *ctrl, uint8_t fid, uint32_t nsid, uint32_t cdw11,
		      uint32_t *result);

/* Namespace geometry (from Identify Namespace, in-use LBA format). */
struct nvmf_ns_info {
	uint32_t nsid;
	uint64_t nsze;       /* size in logical blocks */
	uint32_t block_size; /* bytes per logical block */
	uint8_t nguid[16], eui64[8], uuid[16];
};
/* nvmf_ns_info - geometry of @nsid; INVALID_NS status if inactive (nsze 0). */
int nvmf_ns_info(struct nvmf_ctrl *ctrl, uint32_t nsid, struct nvmf_ns_info *out);
/* nvmf_active_ns - up to @max active NSIDs (ascending) in @nsids; *n gets the count. */
int nvmf_active_ns(struct nvmf_ctrl *ctrl, uint32_t *nsids, size_t max, size_t *n);

/* ---- Asymmetric Namespace Access (NVMe Base 2.0 section 8.1) ---- */

/* One ANA Group Descriptor of log page 0Ch (section 5.16.1.13), decoded, host endian. */
struct nvmf_ana_group {
	uint32_t grpid;        /* ANA Group ID, 1..ANAGRPMAX */
	uint8_t state;         /* NVME_ANA_STATE_* (optimized 1h, non-optimized 2h,
					inaccessible 3h, persistent loss 4h, change Fh) */
	uint64_t chgcnt;       /* the group's Change Count */
	uint32_t nr_nsids;     /* NSIDs listed; 0 in a groups-only read */
	const uint32_t *nsids; /* @nr_nsids NSIDs, strictly ascending (inside the log's
					allocation) */
};

/* The ANA log page, decoded: one allocation (free with nvmf_ana_log_free). */
struct nvmf_ana_log {
	uint64_t chgcnt;               /* Change Count of the log */
	uint16_t nr_groups;            /* descriptors (NGRPS), at most NANAGRPID */
	struct nvmf_ana_group *groups; /* in the order the controller sent them */
};

/*
 * nvmf_read_ana_log - read and check the ANA log page (0Ch, NSID FFFFFFFFh, RAE 0) of
 * @ctrl, sized as the Linux host sizes it: a 16-byte header, NANAGRPID descriptors of 32
 * bytes and, unless @groups_only, MNAN 4-byte NSIDs (NN when MNAN is 0). @groups_only
 * sets LSP bit 0 (RGO): descriptors without NSIDs. A log larger than one transfer (MDTS)
 * is read in parts and read again when its Change Count moved meanwhile (up to 10 times).
 * Returns 0 with *@out (free with nvmf_ana_log_free), an NVMe status of Get Log Page,
 * -EOPNOTSUPP when the controller does not report ANA (Identify Controller CMIC bit 3
 * clear), -EPROTO when what the controller sent is inconsistent (Identify fields NANAGRPID,
 * ANAGRPMAX or MNAN; NGRPS above NANAGRPID; a descriptor or its NSID list running past the
 * data; a group ID of 0 or above ANAGRPMAX, or listed twice; an unknown state; NSIDs in a
 * groups-only read, not ascending, or in two groups), -EAGAIN when the Change Count kept
 * moving, -ENOMEM; nvmf_ctrl_errmsg() names the field.
 */
int nvmf_read_ana_log(struct nvmf_ctrl *ctrl, bool groups_only, struct nvmf_ana_log **out);
/* nvmf_ana_log_free - free a log of nvmf_read_ana_log (NULL: no-op). */
void nvmf_ana_log_free(struct nvmf_ana_log *log);
/*
 * nvmf_ns_ana_state - the ANA state (NVME_ANA_STATE_*) of namespace @nsid through @ctrl
 * into *@state, its ANA group into *@grpid (either may be NULL): the group whose NSID list
 * holds @nsid, else the group Identify Namespace names (ANAGRPID). Returns 0, INVALID_NS |
 * DNR for an inactive @nsid, -EPROTO when its group is in no descriptor, or an error of
 * nvmf_read_ana_log (-EOPNOTSUPP: no ANA reporting).
 */
int nvmf_ns_ana_state(struct nvmf_ctrl *ctrl, uint32_t nsid, uint8_t *state, uint32_t *grpid);
/* nvmf_ana_state_str - "optimized", "non-optimized", "inaccessible", "persistent-loss",
 * "change" (the Linux host's sysfs names), "unknown" for any other value. */
const char *nvmf_ana_state_str(uint8_t state);

/* ---- discovery ---- */

/* One discovery log entry, decoded (NVMe-oF 1.1 section 5.3), host endian, strings NUL
 * terminated with trailing spaces removed. */
struct nvmf_disc_entry {
	uint8_t trtype, adrfam, subtype, treq;
	uint16_t portid, cntlid, asqsz;
	char trsvcid[33];
	char traddr[257];
	char subnqn[257];
	uint8_t rdma_qptype, rdma_prtype, rdma_cms;
	uint16_t rdma_pkey;
	uint16_t eflags;     /* EFLAGS (NVMF_DISC_EFLAGS_*), host endian */
	uint8_t tcp_sectype; /* trtype tcp: TSAS SECTYPE (0 none, 1 TLS 1.2, 2 TLS 1.3) */
};

/*
 * nvmf_discover - connect to the discovery controller at opts->traddr:trsvcid and read the
 * whole discovery log the way the spec intends (header, entries in chunks of at most
 * MDTS, header again; start over when genctr changed, up to 10 times). Returns 0 with
 * *entries (free with free()) and *n; *genctr (may be NULL) gets the generation counter.
 */
int nvmf_discover(const struct nvmf_ctrl_opts *opts, struct nvmf_disc_entry **entries, size_t *n,
		  uint64_t *genctr);
/* nvmf_read_discovery_log - the same on an already connected discovery controller.
 * (Not "nvmf_get_discovery_log": libnvme, included above, has a function of that name.)
 * Gives -EAGAIN (nvmf_ctrl_errmsg says why) when genctr changed during each of 10 reads. */
int nvmf_read_discovery_log(struct nvmf_ctrl *ctrl, struct nvmf_disc_entry **entries, size_t *n,
			    uint64_t *genctr);

/* ---- asynchronous events (NVMe Base 2.0 section 5.2, Asynchronous Event Request) ---- */

/* The events the library decodes; a mask holds NVMF_EVENT_BIT(kind) of each wanted. */
enum nvmf_event_kind {
	/* type 2h (Notice), info 00h: Namespace Attribute Changed */
	NVMF_EVENT_NS_CHANGED = 0,
	/* type 2h (Notice), info 03h: Asymmetric Namespace Access Change */
	NVMF_EVENT_ANA_CHANGE = 1,
	/* type 2h (Notice), info F0h: Discovery Log Page Change (a discovery controller) */
	NVMF_EVENT_DISC_CHANGED = 2,
	/* type 6h (I/O Command Specific), info 00h: Reservation Log Page Available */
	NVMF_EVENT_RESV_LOG = 3,
	/* any other event (error, SMART / health, ...): dword 0 only, no log page read */
	NVMF_EVENT_OTHER = 4,
};
#define NVMF_EVENT_BIT(kind) (1u << (kind))
#define NVMF_EVENT_ALL       0x1fu /* every kind above */

/* One asynchronous event as the callback gets it. Pointers point into memory the library
 * frees when the callback returns: copy what you keep. */
struct nvmf_event {
	enum nvmf_event_kind kind;
	uint32_t dw0; /* the AER's CQE dword 0, host endian */
	uint8_t type; /* Asynchronous Event Type, dword 0 bits 2:0 */
	uint8_t info; /* Asynchronous Event Information, bits 15:8 */
	uint8_t lid;  /* Log Page Identifier, bits 23:16 */
	int status;   /* 0: the payload below was read; else the error (NVMe status or
				-errno) of reading the log page, and the payload is empty */
	/* NVMF_EVENT_NS_CHANGED: the Changed Namespace List log (04h), read with RAE 0. */
	uint32_t nr_nsids;     /* NSIDs in @nsids (up to 1024) */
	const uint32_t *nsids; /* the NSIDs attached, detached or resized, as listed */
	bool nsids_overflow;   /* more than 1024 changed (first entry FFFFFFFFh; @nsids empty):
				 look at every namespace */
	/* NVMF_EVENT_ANA_CHANGE: the ANA log (0Ch) as nvmf_read_ana_log reads it. */
	const struct nvmf_ana_log *ana;
	/* NVMF_EVENT_DISC_CHANGED: the discovery log, read again (nvmf_read_discovery_log). */
	const struct nvmf_disc_entry *disc_entries;
	size_t nr_disc_entries;
	uint64_t disc_genctr;
	/* NVMF_EVENT_RESV_LOG: one Reservation Notification log page (80h, section 5.16.1.26),
	 * decoded; one event per page read. */
	uint64_t resv_count;   /* Log Page Count */
	uint8_t resv_type;     /* Reservation Notification Log Page Type: 1 registration
				  preempted, 2 reservation released, 3 reservation preempted */
	uint8_t resv_nr_avail; /* Number of Available Log Pages after this one */
	uint32_t resv_nsid;    /* the namespace */
};

/* The event callback: @ev valid during the call only. */
typedef void (*nvmf_event_cb)(void *arg, const struct nvmf_event *ev);

/*
 * nvmf_ctrl_set_event_cb - deliver the asynchronous events of @mask (NVMF_EVENT_BIT of
 * each kind; NVMF_EVENT_ALL) to @cb. Enables the matching notices with Set Features
 * Asynchronous Event Configuration (fid 0Bh: bit 8 namespace attribute, bit 11 ANA
 * change, bit 31 discovery log change; only those Identify OAES reports; Reservation Log
 * Page Available needs none) and keeps Asynchronous Event Requests outstanding on the
 * admin queue: min(AERL + 1, 4). For each event the library first reads the log page
 * named above with RAE 0 (which clears the event on the controller so it can report the
 * next), then calls @cb. Events not in @mask are not delivered (nor their logs read).
 * Kept over nvmf_reconnect (configured and posted again). @mask 0 or @cb NULL: events
 * off (AEC 0; the AERs already posted stay with the controller until the association
 * ends); a callback already under way when this returns may still finish with the old
 * @cb and @arg (nvmf_disconnect waits for it). Call from the application's threads, one
 * at a time, not from @cb.
 *
 * @cb runs on a thread of the library (one per controller with events on), outside the
 * admin lock: it may make blocking admin calls on this controller (nvmf_identify, ...),
 * but must not call nvmf_disconnect, nvmf_reconnect or nvmf_ctrl_set_event_cb on it (they
 * wait for that thread: deadlock). Events of one controller are delivered one at a time,
 * in the order they completed. Returns 0, -EINVAL, the status of Set Features, the error
 * of posting the AERs, or -errno (thread creation); nvmf_ctrl_errmsg says which. On an
 * error nothing is kept (events off, as with @mask 0). nvmf_reconnect fails when events
 * are on and the new association refuses them.
 */
int nvmf_ctrl_set_event_cb(struct nvmf_ctrl *ctrl, unsigned mask, nvmf_event_cb cb, void *arg);
/* nvmf_ctrl_aers_outstanding - Asynchronous Event Requests of @ctrl now waiting on the
 * controller: min(AERL + 1, 4) while events are on, fewer for a moment while an event is
 * handled, 0 before events were first turned on and once the association is lost (its
 * AERs failed). With events turned off, those already posted stay until they complete. */
unsigned nvmf_ctrl_aers_outstanding(struct nvmf_ctrl *ctrl);

/* ---- memory ---- */

/* nvmf_mem_register - register [addr, addr+len) once for zero-copy I/O: buffers inside
 * it are sent by keyed SGL without a copy. Other buffers go through the library's own
 * registered pool (one copy). A registration outlives reconnects (the RDMA device keeps
 * it). While an automatic reconnect runs, RDMA has no connection to register through:
 * -ENOTCONN (try again once nvmf_ctrl_state is live). Returns 0 or -errno. */
int nvmf_mem_register(struct nvmf_ctrl *ctrl, void *addr, size_t len);
int nvmf_mem_unregister(struct nvmf_ctrl *ctrl, void *addr);

/* ---- asynchronous I/O, one thread per queue ---- */

/* nvmf_io_queue - I/O queue @idx (0 .. nr_io_queues-1). */
struct nvmf_queue *nvmf_io_queue(struct nvmf_ctrl *ctrl, unsigned idx);

/*
 * Completion callback: @status is 0, an NVMe status (> 0), or -errno (-ECONNRESET when
 * the connection was lost, -ECONNABORTED at disconnect). @cqe is NULL for -errno. It runs
 * inside nvmf_queue_poll() on the queue's thread and may submit more commands.
 */
typedef void (*nvmf_io_cb)(void *arg, int status, const struct nvme_cqe *cqe);

/*
 * Submission. @slba/@nlb in logical blocks (nlb 1's based, any size: transfers larger
 * than max_xfer are split and complete once). @buf holds nlb * block size bytes. The
 * block size is the namespace's (looked up once per nsid and queue, with a blocking
 * Identify Namespace on the admin queue). Returns 0 when queued, -EAGAIN when the queue
 * is full (size-1 commands outstanding, or no slot for even the first part of a split
 * request: poll and retry), -ECONNRESET when the connection is gone, -EINVAL, or the
 * error of that Identify (e.g. INVALID_NS | DNR for an inactive nsid). Writes up to the
 * controller's in-capsule size travel in the capsule. The command is queued and sent by
 * the queue's next nvmf_queue_poll() or nvmf_queue_wait(), with every command submitted
 * since: over RDMA in one ibv_post_send, over NVMe/TCP in one sendmsg (so submit a batch,
 * then poll; a program that submits and neither polls nor waits leaves its commands
 * unsent). Every buffer a submit names (@buf, Dataset Management and Copy
 * ranges, compare data) must stay valid and unchanged until the command's callback ran:
 * NVMe/TCP reads it at the next poll, the RDMA controller reads it when it wants it, and
 * a command sent again after a reconnect reads it again.
 */
int nvmf_submit_read(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf,
		     nvmf_io_cb cb, void *arg);
int nvmf_submit_write(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
		      const void *buf, nvmf_io_cb cb, void *arg);
int nvmf_submit_compare(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			const void *buf, nvmf_io_cb cb, void *arg);
int nvmf_submit_flush(struct nvmf_queue *q, uint32_t nsid, nvmf_io_cb cb, void *arg);
int nvmf_submit_write_zeroes(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			     nvmf_io_cb cb, void *arg);
/* DSM with @nr ranges (1..256; libnvme struct nvme_dsm_range, little endian as on the
 * wire, nlb 1's based); @attributes: NVME_DSMGMT_AD etc. */
int nvmf_submit_dsm(struct nvmf_queue *q, uint32_t nsid, const struct nvme_dsm_range *ranges,
		    unsigned nr, uint32_t attributes, nvmf_io_cb cb, void *arg);
/* nvmf_submit_verify - Verify (NVM Command Set 1.0 section 3.2.5): the controller reads
 * @nlb blocks (1's based, 1..65536, never split) at @slba and checks them, no data moves.
 * Returns as nvmf_submit_read (-EINVAL for @nlb out of range); @cb gets 0 or the read's
 * status: LBA Out of Range, Unrecovered Read Error, Invalid Field when @nlb blocks exceed
 * the controller's VSL (NVM Command Set Identify Controller). */
int nvmf_submit_verify(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
		       nvmf_io_cb cb, void *arg);
/* nvmf_submit_copy - Copy (NVM Command Set 1.0 section 3.2.2), descriptor format 0h: the
 * @nr source ranges (1..256; libnvme struct nvme_copy_range, 32 bytes each, little endian
 * as on the wire, so nlb 0's based) in order, concatenated at @sdlba (logical blocks) of
 * namespace @nsid. @ranges are the command's data: valid until @cb. Returns 0 when queued,
 * -EAGAIN, -ECONNRESET, -EINVAL; @cb gets 0 or a status: Command Size Limit Exceeded
 * (0x183) past the namespace's MSRC, MSSRL or MCL (Identify Namespace), LBA Out of Range,
 * Invalid Field where the controller has no format 0h (OCFS bit 0); nvmf_io_strerror
 * names them (nvmf_strerror reads 0x183 as Connect's CONNECT_RESTART_DISC). */
int nvmf_submit_copy(struct nvmf_queue *q, uint32_t nsid, uint64_t sdlba,
		     const struct nvme_copy_range *ranges, unsigned nr, nvmf_io_cb cb, void *arg);
/*
 * nvmf_submit_compare_and_write - fused Compare and Write (NVM Command Set 1.0 section
 * 3.2.1.1; the controller's Identify FUSES bit 0): a Compare of @cmp and a Write of
 * @data, @nlb blocks (1's based, at most 65536) at @slba, each @nlb * block size bytes,
 * sent in two adjacent submission queue slots (never split: one command's transfer,
 * > max_xfer is -EINVAL). The controller writes only when the blocks equal @cmp, with
 * no other command between. @cb runs once, after both halves: 0, the NVMe status
 * Compare Failure (SCT 2h, SC 85h, DNR set: nothing written), or the pair's first error
 * (the Compare's, else the Write's). Returns 0 when queued, -EAGAIN unless two slots are
 * free, -ECONNRESET, -EINVAL, or the error of the namespace's Identify (as
 * nvmf_submit_read). Should the second half fail to go out after the first did (the
 * connection lost), @cb runs once the lone first is answered: with the first's status
 * (Missing Fused Command, at the queue's next command) or -ECONNRESET.
 */
int nvmf_submit_compare_and_write(struct nvmf_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
				  const void *cmp, const void *data, nvmf_io_cb cb, void *arg);
/* nvmf_submit_raw - any I/O command: @sqe (command_id and data pointer are filled by the
 * library), @buf of @len bytes moved in direction @write (host to controller). */
int nvmf_submit_raw(struct nvmf_queue *q, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		    bool write, nvmf_io_cb cb, void *arg);

/* nvmf_queue_poll - send what was submitted since the last call, then reap up
 * to @max completions (0 = all available), calling their callbacks. Returns the number
 * reaped, or -ECONNRESET once the connection is lost (every outstanding command has then
 * completed with -ECONNRESET). Never blocks. */
int nvmf_queue_poll(struct nvmf_queue *q, unsigned max);
/* nvmf_queue_errmsg - what ended @q's connection once its commands fail with
 * -ECONNRESET or -ETIMEDOUT: the transport's reason ("connection closed by the
 * controller", "recv: Connection reset by peer"; "the connection was lost" when the
 * transport does not say) or "command 0x01 timed out after N ms ..."; "" while @q is
 * usable. Read it from the thread that polls @q; valid until nvmf_reconnect(). */
const char *nvmf_queue_errmsg(const struct nvmf_queue *q);
/* nvmf_queue_outstanding - commands submitted and not yet completed. */
unsigned nvmf_queue_outstanding(const struct nvmf_queue *q);
/* nvmf_queue_wait - block up to @timeout_ms for at least one completion (sleeps on the
 * completion channel); returns as nvmf_queue_poll. */
int nvmf_queue_wait(struct nvmf_queue *q, int timeout_ms);

/* ---- blocking helpers (use I/O queue 0; not to be mixed with async use of queue 0
 * from another thread) ---- */
int nvmf_read(struct nvmf_ctrl *ctrl, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf);
int nvmf_write(struct nvmf_ctrl *ctrl, uint32_t nsid, uint64_t slba, uint32_t nlb, const void *buf);
int nvmf_flush(struct nvmf_ctrl *ctrl, uint32_t nsid);
/* nvmf_verify / nvmf_copy - nvmf_submit_verify / nvmf_submit_copy, waiting: 0, an NVMe
 * status (> 0) or -errno. */
int nvmf_verify(struct nvmf_ctrl *ctrl, uint32_t nsid, uint64_t slba, uint32_t nlb);
int nvmf_copy(struct nvmf_ctrl *ctrl, uint32_t nsid, uint64_t sdlba,
	      const struct nvme_copy_range *ranges, unsigned nr);
/* nvmf_compare_and_write - nvmf_submit_compare_and_write, blocking: 0, Compare
 * Failure | DNR (the blocks differ from @cmp; nothing written), another NVMe status, or
 * -errno. */
int nvmf_compare_and_write(struct nvmf_ctrl *ctrl, uint32_t nsid, uint64_t slba, uint32_t nlb,
			   const void *cmp, const void *data);

/* ---- reservations (NVMe Base 2.0 section 8.19; commands 7.2-7.5): blocking, on I/O
 * queue 0 like the helpers above. Each returns 0, an NVMe status (> 0: Reservation
 * Conflict 0x83 when a key does not match, the host is not registered or another host
 * holds the reservation; Invalid Field; Invalid Opcode when the namespace has no
 * reservations), or -errno (-EINVAL for a value out of its field's range, as below).
 * Keys are host endian (sent little endian). Registrants are hosts by their Host
 * Identifier (nvmf_ctrl_opts.hostid): every controller of a host shares a registration. */

/* Reservation Register actions (RREGA), Acquire actions (RACQA), Release actions (RRELA). */
enum { NVMF_RESV_REGISTER = 0, NVMF_RESV_UNREGISTER = 1, NVMF_RESV_REPLACE = 2 };
enum { NVMF_RESV_ACQUIRE = 0, NVMF_RESV_PREEMPT = 1, NVMF_RESV_PREEMPT_ABORT = 2 };
enum { NVMF_RESV_RELEASE = 0, NVMF_RESV_CLEAR = 1 };

/* nvmf_resv_register - Reservation Register (7.3) of namespace @nsid: action @rrega
 * (0..2), @crkey the current key (checked for unregister and replace unless @iekey),
 * @nrkey the new key (register, replace), @cptpl the Change Persist Through Power Loss
 * State field (0 no change, 2 clear, 3 set; 1 is reserved: -EINVAL). */
int nvmf_resv_register(struct nvmf_ctrl *ctrl, uint32_t nsid, unsigned rrega, bool iekey,
		       unsigned cptpl, uint64_t crkey, uint64_t nrkey);
/* nvmf_resv_acquire - Reservation Acquire (7.2): action @racqa (0 acquire, 1 preempt,
 * 2 preempt and abort) of type @rtype (1..6: Write Exclusive, Exclusive Access, their
 * Registrants Only and All Registrants forms) with this host's key @crkey; @prkey the key
 * of the registrants to preempt. */
int nvmf_resv_acquire(struct nvmf_ctrl *ctrl, uint32_t nsid, unsigned racqa, unsigned rtype,
		      bool iekey, uint64_t crkey, uint64_t prkey);
/* nvmf_resv_release - Reservation Release (7.4): action @rrela (0 release the reservation
 * of type @rtype, 1..6; 1 clear: every registration and the reservation) with this host's
 * key @crkey. */
int nvmf_resv_release(struct nvmf_ctrl *ctrl, uint32_t nsid, unsigned rrela, unsigned rtype,
		      bool iekey, uint64_t crkey);
/* nvmf_resv_report - Reservation Report (7.5) with the extended data structure (EDS 1,
 * 128-bit host IDs) into @buf, @len bytes (a multiple of 4, at least 64 and at most the
 * controller's MDTS): the 64-byte header (libnvme's struct nvme_resv_status: GEN, RTYPE,
 * REGCTL, PTPLS) then 64 bytes per registrant (struct nvme_registered_ctrl_ext: CNTLID,
 * RCSTS bit 0 holder, RKEY, HOSTID), little endian, cut to @len (REGCTL still counts
 * them all). */
int nvmf_resv_report(struct nvmf_ctrl *ctrl, uint32_t nsid, void *buf, uint32_t len);

/* ---- native multipath: one subsystem through several paths ---- */

#define NVMF_MPATH_MAX_PATHS 16

struct nvmf_mpath;
struct nvmf_mpath_queue;

/* Multipath options. Zeroed fields take the defaults given. */
struct nvmf_mpath_opts {
	unsigned refresh_ms;         /* the watcher's period: ANA logs read again, lost paths
					 reconnected; default 1000 */
	unsigned no_path_timeout_ms; /* how long a command may wait for a usable path,
					 counted from its first path error or wait; then it
					 completes with its last error. Default: twice the
					 largest ANATT of the paths (as the Linux host's ANATT
					 timer), 10000 when none reports ANA */
};

/*
 * nvmf_mpath_connect - one handle over @npaths (1..NVMF_MPATH_MAX_PATHS) paths to one
 * NVM subsystem: nvmf_connect with each of @paths (e.g. the same subnqn through
 * different addresses or ports; each path's nr_io_queues, queue_size... as given there),
 * then checks that every path reaches the same subsystem (Identify Controller SUBNQN)
 * and that it reports several controllers (CMIC bit 1) and, for paths to different
 * addresses or ports, several ports (CMIC bit 0), and reads each path's ANA log (NVMe
 * Base 2.0 section 8.1; a controller without ANA reporting has every namespace
 * optimized). @opts may be NULL. Every path must connect. The handle has as many
 * multipath queues as the path with the fewest I/O queues, each taking up to the
 * smallest queue size - 1 commands (nvmf_mpath_queue_depth), and a watcher thread (see
 * docs/libnvmf.md). Returns 0 with *@out, the error of the path that failed
 * (nvmf_last_errmsg() names the path), -EINVAL (bad arguments, a discovery controller,
 * paths to different subsystems), -EOPNOTSUPP (CMIC does not allow several paths), or an
 * error of nvmf_read_ana_log.
 */
int nvmf_mpath_connect(const struct nvmf_ctrl_opts *paths, unsigned npaths,
		       const struct nvmf_mpath_opts *opts, struct nvmf_mpath **out);
/* nvmf_mpath_disconnect - stop the watcher, complete every outstanding command with
 * -ECONNABORTED (callbacks run on the caller's thread), disconnect every path, free @mp.
 * No other thread may use @mp meanwhile. Returns 0 or the first path's nvmf_disconnect
 * error (@mp is freed anyway). */
int nvmf_mpath_disconnect(struct nvmf_mpath *mp);
/* nvmf_mpath_errmsg - the handle's last detailed message ("" when none). */
const char *nvmf_mpath_errmsg(const struct nvmf_mpath *mp);
unsigned nvmf_mpath_nr_paths(const struct nvmf_mpath *mp);
/* nvmf_mpath_nr_queues - multipath queues (I/O queue i of every path is queue i's). */
unsigned nvmf_mpath_nr_queues(const struct nvmf_mpath *mp);
/* nvmf_mpath_queue_depth - commands one multipath queue takes at most (-EAGAIN beyond). */
unsigned nvmf_mpath_queue_depth(const struct nvmf_mpath *mp);
/* nvmf_mpath_queue - multipath queue @idx (0 .. nr_queues-1), for one thread. */
struct nvmf_mpath_queue *nvmf_mpath_queue(struct nvmf_mpath *mp, unsigned idx);
/* nvmf_mpath_mem_register / unregister - nvmf_mem_register through every path (a path
 * that is down gets it when it comes back). 0 or -errno. */
int nvmf_mpath_mem_register(struct nvmf_mpath *mp, void *addr, size_t len);
int nvmf_mpath_mem_unregister(struct nvmf_mpath *mp, void *addr);
/* nvmf_mpath_ns_info - geometry of namespace @nsid, the same through every live path
 * (Identify Namespace through each; another block size or other identifiers: -EPROTO).
 * INVALID_NS | DNR when inactive, -EHOSTUNREACH when no path is live. */
int nvmf_mpath_ns_info(struct nvmf_mpath *mp, uint32_t nsid, struct nvmf_ns_info *out);

/*
 * Submission on a multipath queue, as on an nvmf_queue (units, limits, callback). Each
 * command goes to the first path (in the order given at connect) that is connected and
 * where the namespace's ANA group is optimized, else non-optimized; never inaccessible,
 * persistent loss or change. A command that fails with a path error (a path-related
 * status, SCT 3, without DNR: ANA Inaccessible, Persistent Loss, Transition...) or whose
 * path's connection is lost is sent again on another usable path (the ANA log is read
 * again for the ANA statuses); with none, it waits for one up to no_path_timeout_ms and
 * then completes with NVMF_ERR_NO_PATH (nvmf_mpath_errmsg: each path's state and the
 * last error a path gave it). The callback runs once, with the final status, inside nvmf_mpath_poll on the queue's
 * thread; it may submit, not poll. Returns 0 when accepted (also when it waits for a
 * path), -EAGAIN when the queue holds queue_depth commands, -EINVAL, or the error of the
 * namespace's first use (nvmf_mpath_ns_info). Flush needs a namespace (not FFFFFFFFh).
 */
int nvmf_mpath_submit_read(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			   void *buf, nvmf_io_cb cb, void *arg);
int nvmf_mpath_submit_write(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			    const void *buf, nvmf_io_cb cb, void *arg);
int nvmf_mpath_submit_compare(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba,
			      uint32_t nlb, const void *buf, nvmf_io_cb cb, void *arg);
int nvmf_mpath_submit_write_zeroes(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba,
				   uint32_t nlb, nvmf_io_cb cb, void *arg);
int nvmf_mpath_submit_flush(struct nvmf_mpath_queue *q, uint32_t nsid, nvmf_io_cb cb, void *arg);
int nvmf_mpath_submit_dsm(struct nvmf_mpath_queue *q, uint32_t nsid,
			  const struct nvme_dsm_range *ranges, unsigned nr, uint32_t attributes,
			  nvmf_io_cb cb, void *arg);
/* Verify, Copy and fused Compare and Write as nvmf_submit_verify, nvmf_submit_copy and
 * nvmf_submit_compare_and_write, on the namespace's best path, failing over as the others.
 * A Compare and Write whose path was lost before its answer is sent again on another
 * path: if the first pair had written, the second's Compare fails (Compare Failure), as
 * a host that retries any write would see it; @ranges, @cmp and @data stay valid until
 * @cb. */
int nvmf_mpath_submit_verify(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
			     nvmf_io_cb cb, void *arg);
int nvmf_mpath_submit_copy(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t sdlba,
			   const struct nvme_copy_range *ranges, unsigned nr, nvmf_io_cb cb,
			   void *arg);
int nvmf_mpath_submit_compare_and_write(struct nvmf_mpath_queue *q, uint32_t nsid, uint64_t slba,
					uint32_t nlb, const void *cmp, const void *data,
					nvmf_io_cb cb, void *arg);
/* nvmf_mpath_poll - reap completions on every path of @q (up to @max per path, 0 = all),
 * send again what failed over or waits for a path, end what waited too long; callbacks
 * run here. Also where @q gives up a path that went down (its commands there are taken
 * back: see docs/libnvmf.md). Returns the callbacks run. Never blocks. */
int nvmf_mpath_poll(struct nvmf_mpath_queue *q, unsigned max);
/* nvmf_mpath_wait - poll until at least one callback ran or @timeout_ms passed; returns
 * as nvmf_mpath_poll. */
int nvmf_mpath_wait(struct nvmf_mpath_queue *q, int timeout_ms);
/* nvmf_mpath_outstanding - commands submitted whose callback has not run. */
unsigned nvmf_mpath_outstanding(const struct nvmf_mpath_queue *q);

/* Blocking helpers on multipath queue 0 (not to be mixed with its async use from another
 * thread). */
int nvmf_mpath_read(struct nvmf_mpath *mp, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf);
int nvmf_mpath_write(struct nvmf_mpath *mp, uint32_t nsid, uint64_t slba, uint32_t nlb,
		     const void *buf);
int nvmf_mpath_flush(struct nvmf_mpath *mp, uint32_t nsid);

/* A path as the handle sees it now. */
struct nvmf_mpath_path_info {
	char traddr[257], trsvcid[33];
	bool live;                 /* connected and in use; false: lost, being reconnected */
	uint16_t cntlid;           /* controller of its current (or last) association */
	bool ana;                  /* the controller reports ANA */
	uint64_t ana_chgcnt;       /* Change Count of its last ANA log */
	unsigned long reconnects;  /* associations rebuilt by the watcher */
	unsigned long ios;         /* commands completed through it (any status but a path
					error) */
	unsigned long path_errors; /* commands that failed over from it */
	int last_error;            /* what took it down last, or why the last reconnect
					failed (0: nothing yet) */
	char errmsg[256];          /* the handle's last message about it ("" none) */
};
/* nvmf_mpath_path_info - path @idx's state into @out. 0 or -EINVAL. */
int nvmf_mpath_path_info(struct nvmf_mpath *mp, unsigned idx, struct nvmf_mpath_path_info *out);
/* nvmf_mpath_ns_path - the path the next command for @nsid goes to. 0 with *@path,
 * NVMF_ERR_NO_PATH when none is usable now (nvmf_mpath_errmsg says why), or an error of
 * nvmf_mpath_ns_info. */
int nvmf_mpath_ns_path(struct nvmf_mpath *mp, uint32_t nsid, unsigned *path);
/* nvmf_mpath_ns_ana_state - @nsid's ANA state (NVME_ANA_STATE_*; 0: unknown) and group
 * through path @path, as the handle knows it. 0 or as nvmf_mpath_ns_info. */
int nvmf_mpath_ns_ana_state(struct nvmf_mpath *mp, uint32_t nsid, unsigned path, uint8_t *state,
			    uint32_t *grpid);
/* nvmf_mpath_refresh - have the watcher run a whole pass (ANA logs, reconnects) that
 * starts after this call, and wait for it up to @timeout_ms. 0, -ETIMEDOUT. */
int nvmf_mpath_refresh(struct nvmf_mpath *mp, int timeout_ms);

#ifdef __cplusplus
}
#endif
#endif
