/* SPDX-License-Identifier: MIT */
/*
 * libnvmf core internals, shared by the initiator/ sources only (never installed). The public
 * API is initiator/nvmf.h; the transport interface is initiator/transport.h.
 *
 * Threads: an I/O queue (struct nvmf_queue) belongs to one thread and takes no lock.
 * The admin queue is shared by the user's admin calls and the controller thread; every
 * admin command runs under ctrl->admin_lock (recursive) from submission to completion
 * (blocking, polled). The controller's association state is one atomic word
 * (nvmf_ctrl.word) each I/O queue's owner compares with its own (recovery.c). Internal
 * symbols are hidden from the shared library.
 */
#ifndef LIBNVMF_INTERNAL_H
#define LIBNVMF_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include "initiator/transport.h"
#include "nvme/fabrics.h"
#include "util/clock.h"
#include "util/deadline.h"

struct nvme_dhchap_key;

#define NVMFH_HIDDEN __attribute__((visibility("hidden")))

#define NVMFH_ADMIN_QUEUE_SIZE           32 /* entries, as the Linux host (NVME_AQ_DEPTH) */
#define NVMFH_DEFAULT_QUEUE_SIZE         128
#define NVMFH_DEFAULT_KATO_MS            5000  /* NVME_DEFAULT_KATO, 5 s */
#define NVMFH_DEFAULT_TIMEOUT_MS         60000 /* the Linux host's admin timeout */
#define NVMFH_DEFAULT_IO_TIMEOUT_MS      30000 /* the Linux host's nvme_io_timeout, 30 s */
#define NVMFH_DEFAULT_RECONNECT_DELAY_MS 10000 /* nvme-cli's reconnect_delay, 10 s */
#define NVMFH_MAX_RETRIES \
	5                               /* sends of one command after the first: the Linux host's
				      nvme_max_retries */
#define NVMFH_MAX_ABORTS     16         /* Abort requests waiting for the controller thread */
#define NVMFH_MAX_XFER       (1u << 20) /* 1 MiB: what the Linux RDMA host moves at most */
#define NVMFH_MAX_NLB        65536u     /* NLB is a 16-bit 0's based field */
#define NVMFH_ERRMSG_MAX     512
#define NVMFH_LOST_WHY_MAX   480 /* struct nvmf_queue.lost_why, bytes with the NUL */
#define NVMFH_NQN_FIELD      256 /* bytes of an NQN field (Connect data, Identify) */
#define NVMFH_NS_CACHE       8   /* nsid -> block size entries per I/O queue */
#define NVMFH_DISC_MAX_TRIES 10u /* discovery log reads before giving up (genctr) */

struct nvmfh_split;

/* One command slot of a queue; its index is the command_id. */
struct nvmfh_slot {
	struct nvmf_hcmd cmd;
	nvmf_io_cb cb; /* NULL: abandoned (timed out), the CQE is dropped */
	void *arg;
	void *owned;         /* bounce buffer freed with the slot (blocking calls) */
	struct nvme_cqe cqe; /* received, not yet delivered */
	uint64_t sent_ms;    /* coarse monotonic ms of the last send (I/O timeouts) */
	uint8_t retries;     /* sends after the first (at most NVMFH_MAX_RETRIES) */
	bool busy;
	bool held;       /* not on the wire: waits for the queue to reconnect (recovery.c) */
	bool abort_sent; /* its timeout expired once: an Abort was asked for */
	bool timed_out;  /* its timeout expired: it fails with -ETIMEDOUT if not retried */
};

/* A queue as the core sees it; the public struct nvmf_queue. */
struct nvmf_queue {
	struct nvmf_hq hq;        /* hq.core points back here */
	struct nvmfh_slot *slots; /* hq.size of them */
	uint16_t *free_cids;      /* stack of free command ids */
	unsigned nr_free;
	uint16_t *done; /* command ids with a CQE received, in arrival order */
	unsigned nr_done, done_head;
	unsigned outstanding; /* submitted, callback not yet run */
	bool connected;       /* the transport holds a connection (queue_disconnect due) */
	bool lost;            /* connection gone: submit/poll give -ECONNRESET */
	/* What ended the connection, for the errors of every later command ("" while
	 * usable): the transport's reason, or which command timed out. Written and read by
	 * the queue's owner only (an I/O queue's thread; admin: under admin_lock), so one
	 * thread's failure never becomes another's message. */
	char lost_why[NVMFH_LOST_WHY_MAX];
	struct nvmfh_split *pending; /* split requests waiting for free slots, oldest first */
	/* Recovery (recovery.c), I/O queues only. live_word: the controller's word
	 * (nvmf_ctrl.word) this queue's connection belongs to; another value there means
	 * the association moved on (a reset, or a new one is up) and the owner's next call
	 * catches up. */
	unsigned live_word;
	unsigned nr_held;       /* slots held (also counted in outstanding) */
	bool connecting;        /* its Connect runs: no SQ flow control, nothing held */
	int io_timeout_ms;      /* 0: none */
	uint64_t next_tmo_scan; /* coarse ms of the next look for expired commands */
	struct {
		uint32_t nsid, lba_shift;
	} ns_cache[NVMFH_NS_CACHE];
	unsigned ns_cached, ns_next;
};

struct nvmfh_aen;

struct nvmf_ctrl {
	/* Options, copied so reconnect can use them after the caller's are gone. */
	struct nvmf_ctrl_opts opts;
	char traddr[257], trsvcid[33], subnqn[NVMFH_NQN_FIELD], hostnqn[NVMFH_NQN_FIELD];
	uint8_t hostid[16];
	const struct nvmf_host_transport *t;
	bool discovery;

	pthread_mutex_t admin_lock;
	struct nvmf_queue admin;
	struct nvmf_queue *io; /* nr_io of them, allocated once (pointers stay valid) */
	unsigned nr_io;
	unsigned queue_size; /* I/O queue entries, 1's based */

	_Atomic uint16_t cntlid; /* the current association's (a reconnect changes it) */
	uint64_t cap;            /* CAP property, host endian */
	uint32_t vs, cc;         /* VS; CC as last written */
	struct nvme_id_ctrl id;  /* Identify Controller, wire format */
	uint32_t max_xfer;       /* bytes per command */

	/* The controller thread (ctrl.c): Keep Alive every kato/2 (NVMe Base 3.9), the
	 * Aborts the I/O queues ask for, and automatic reconnect (recovery.c). Its state
	 * under ka_lock unless atomic. */
	pthread_t ka_thread;
	bool ka_running, ka_stop;
	pthread_mutex_t ka_lock;
	pthread_cond_t ka_cond;
	unsigned long ka_sent; /* Keep Alive commands completed successfully */
	/* The association as every queue's owner sees it: (generation << 2) | state
	 * (NVMF_CTRL_LIVE, _CONNECTING, _LOST). The generation moves on with each new
	 * association; only the state moves when one ends. Stored with release. */
	_Atomic unsigned word;
	_Atomic bool fast_failed; /* CONNECTING for fast_io_fail_tmo_ms: held commands fail */
	bool auto_reconnect;      /* opts.ctrl_loss_tmo_ms != 0 */
	unsigned notified;        /* the last state given to opts.state_cb (ctrl thread) */
	_Atomic uint64_t lost_ms; /* when the association ended (written under ka_lock; the
				     owners read it for fast_io_fail/ctrl_loss while the
				     controller thread is inside an attempt) */
	uint64_t next_attempt_ms; /* the next reconnect attempt (ka_lock) */
	unsigned long reconnects; /* associations rebuilt automatically (ka_lock) */
	char reset_why[NVMFH_LOST_WHY_MAX]; /* what ended the last association (ka_lock) */
	struct {
		uint16_t sqid, cid;
		uint8_t opcode;
		unsigned word;      /* the association the command was sent on */
	} aborts[NVMFH_MAX_ABORTS]; /* Abort requests of the I/O queues (ka_lock) */
	unsigned nr_aborts;
	char attempt_why[NVMFH_ERRMSG_MAX]; /* why the last reconnect attempt failed (ka_lock) */

	/* DH-HMAC-CHAP (auth.c): the secrets as parsed from the options (NULL: not given;
	 * zeroed when freed), the next transaction id, what the admin queue's used. */
	struct nvme_dhchap_key *dhchap_key, *dhchap_ctrl_key;
	char tls_key[128]; /* opts.tls_key's copy (opts.tls_key points here); wiped at free */
	_Atomic uint16_t auth_tid;
	struct nvmf_auth_info auth;

	/* The detail of the last failed call the application made on this controller
	 * (nvmf_ctrl_errmsg). Only those calls write it, never the controller thread: a
	 * failed Keep Alive is recorded as the admin queue's lost_why instead, and reaches a
	 * message when a later admin call fails because of it. */
	pthread_mutex_t err_lock;
	char errmsg[NVMFH_ERRMSG_MAX];

	/* Asynchronous events (aen.c); NULL until nvmf_ctrl_set_event_cb. */
	struct nvmfh_aen *aen;
};

/* ---- queue.c: command table and completion delivery ---- */

/* nvmfh_queue_setup - (re)allocate @q's tables for @size entries (admin: 32) and reset
 * its state; keeps the struct itself. 0 or -ENOMEM. */
NVMFH_HIDDEN int nvmfh_queue_setup(struct nvmf_queue *q, struct nvmf_ctrl *c, uint16_t qid,
				   uint16_t size);
/* nvmfh_queue_release - free the tables (after the transport disconnected). */
NVMFH_HIDDEN void nvmfh_queue_release(struct nvmf_queue *q);
/*
 * nvmfh_queue_submit - take a command id, hand @sqe (command_id filled here) with @buf of
 * @len bytes to the transport. @cid_out (may be NULL) gets the id. Returns 0, -EAGAIN
 * (size-1 commands outstanding: SQ flow control, or the transport is out of slots),
 * -ECONNRESET (connection lost), -EINVAL.
 */
NVMFH_HIDDEN int nvmfh_queue_submit(struct nvmf_queue *q, const struct nvme_sqe *sqe, void *buf,
				    uint32_t len, bool write, nvmf_io_cb cb, void *arg,
				    uint16_t *cid_out);
/* nvmfh_queue_poll - nvmf_queue_poll without the argument checks. */
NVMFH_HIDDEN int nvmfh_queue_poll(struct nvmf_queue *q, unsigned max);
/* nvmfh_queue_lost - mark @q lost; the first reason given stays (printf format). */
NVMFH_HIDDEN void nvmfh_queue_lost(struct nvmf_queue *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* nvmfh_queue_fail_all - mark @q lost and complete every outstanding command (and split
 * request) with @err (-ECONNRESET, -ECONNABORTED). */
NVMFH_HIDDEN void nvmfh_queue_fail_all(struct nvmf_queue *q, int err);
/* nvmfh_queue_abort - end @q's connection (the transport's queue_disconnect: no data
 * moves for its commands any more), then nvmfh_queue_fail_all with @err. The caller owns
 * @q. */
NVMFH_HIDDEN void nvmfh_queue_abort(struct nvmf_queue *q, int err);
/*
 * nvmfh_queue_exec - run one command to completion on @q (polling; the caller owns the
 * queue: holds admin_lock for the admin queue). Data goes through a private copy, so a
 * command that times out can never write into @buf later. @cqe (may be NULL) gets the
 * completion. Returns the status (0, > 0 NVMe status), -ETIMEDOUT after @timeout_ms (the
 * queue is then marked lost: the controller state is unknown, as the Linux host starts
 * error recovery), -ECONNRESET, -ENOMEM.
 */
NVMFH_HIDDEN int nvmfh_queue_exec(struct nvmf_queue *q, const struct nvme_sqe *sqe, void *buf,
				  uint32_t len, bool write, struct nvme_cqe *cqe, int timeout_ms);

/* nvmfh_queue_deliver - run the callbacks of the CQEs received so far (callbacks may
 * submit); returns how many. */
NVMFH_HIDDEN int nvmfh_queue_deliver(struct nvmf_queue *q);
/* nvmfh_queue_put_cid - free slot @cid (its owned buffer too). */
NVMFH_HIDDEN void nvmfh_queue_put_cid(struct nvmf_queue *q, uint16_t cid);
/* nvmfh_queue_transport_lost - mark @q lost with the transport's reason. */
NVMFH_HIDDEN void nvmfh_queue_transport_lost(struct nvmf_queue *q);

/* nvmfh_queue_stale - whether I/O queue @q's connection belongs to an association that
 * ended or was replaced (the controller's word moved; recovery.c). One acquire load. */
static inline bool nvmfh_queue_stale(const struct nvmf_queue *q)
{
	return q->hq.qid &&
	       atomic_load_explicit(&q->hq.ctrl->word, memory_order_acquire) != q->live_word;
}

/* ---- recovery.c: the association's end and a new one, per queue owner ---- */

/* nvmfh_retriable - whether @s's command may be sent again after a reset (data commands
 * that end the same when executed twice; never one half of a fused pair). */
NVMFH_HIDDEN bool nvmfh_retriable(const struct nvmfh_slot *s);
/* nvmfh_ctrl_request_reset - end @c's association (any thread) if it is still the LIVE
 * one of word @word: CONNECTING with automatic reconnect, else LOST; @why (the first cause
 * stays) names it. @same_loss: the new association could not take a queue back, so
 * ctrl_loss_tmo keeps counting from the loss before. The _locked form with ka_lock held. */
NVMFH_HIDDEN void nvmfh_ctrl_request_reset(struct nvmf_ctrl *c, unsigned word, const char *why,
					   bool same_loss);
NVMFH_HIDDEN void nvmfh_ctrl_request_reset_locked(struct nvmf_ctrl *c, unsigned word,
						  const char *why, bool same_loss);
/* nvmfh_queue_fail_sent - complete with @err every command of @q that is not held (a
 * reconnecting queue's Connect or authentication command, abandoned or not). */
NVMFH_HIDDEN void nvmfh_queue_fail_sent(struct nvmf_queue *q, int err);
/* nvmfh_ctrl_waiting_fate - for commands waiting while @c is CONNECTING, from the clock
 * (the controller thread may be inside an attempt of up to timeout_ms): 0 they wait,
 * -ECONNRESET fast_io_fail_tmo_ms passed, -ENODEV ctrl_loss_tmo_ms passed. */
NVMFH_HIDDEN int nvmfh_ctrl_waiting_fate(struct nvmf_ctrl *c);
/* nvmfh_ctrl_lost_why - what ended @c's association and, once ctrl_loss_tmo_ms passed,
 * that it was not reconnected (and why the last attempt failed), into @out. */
NVMFH_HIDDEN void nvmfh_ctrl_lost_why(struct nvmf_ctrl *c, char *out, size_t len);
/* nvmfh_queue_may_hold - for a submit on I/O queue @q while it is not connected: 0 (the
 * command waits for the new association), -ECONNRESET (no automatic reconnect, or
 * fast_io_fail_tmo passed), -ENODEV (the controller is LOST). */
NVMFH_HIDDEN int nvmfh_queue_may_hold(struct nvmf_queue *q);
/* nvmfh_queue_recover - the owner's catch-up (see recovery.c): returns the callbacks run
 * (>= 0) or the error poll returns (-ECONNRESET without automatic reconnect, -ENODEV
 * once LOST); *@ready when @q is connected to the live association. */
NVMFH_HIDDEN int nvmfh_queue_recover(struct nvmf_queue *q, bool *ready);
/* nvmfh_retry_aborted - slot @cid was answered Command Abort Requested (without DNR):
 * true when it is held to be sent again (retriable, sends left), as the Linux host retries
 * it; whether we asked for the Abort or not (its CID may have been reused). */
NVMFH_HIDDEN bool nvmfh_retry_aborted(struct nvmf_queue *q, uint16_t cid);

/* ---- timeout.c ---- */

/* nvmfh_queue_check_timeouts - look for commands of I/O queue @q sent more than
 * io_timeout_ms before @now (coarse ms): Abort asked, or a reset after the second
 * period. */
NVMFH_HIDDEN void nvmfh_queue_check_timeouts(struct nvmf_queue *q, uint64_t now);
/* nvmfh_ctrl_send_aborts - controller thread: send the Aborts asked for; reset when one
 * is not aborted or fails. */
NVMFH_HIDDEN void nvmfh_ctrl_send_aborts(struct nvmf_ctrl *c);

/* ---- ctrl.c ---- */

/* nvmfh_admin_exec - one admin command under admin_lock with @timeout_ms, leaving the
 * controller's message alone (the controller thread's commands). Returns as
 * nvmfh_queue_exec. */
NVMFH_HIDDEN int nvmfh_admin_exec(struct nvmf_ctrl *c, const struct nvme_sqe *sqe, void *buf,
				  uint32_t len, bool write, struct nvme_cqe *cqe, int timeout_ms);
/* nvmfh_io_queue_reconnect - the owner of I/O queue @q connects it to the association of
 * word @word (transport connect, Fabrics Connect with the new cntlid, authentication),
 * keeping the commands it holds. 0, or an error with @q's lost_why set. */
NVMFH_HIDDEN int nvmfh_io_queue_reconnect(struct nvmf_ctrl *c, struct nvmf_queue *q, unsigned word);

/* nvmfh_admin - nvmfh_queue_exec on the admin queue under admin_lock, with the
 * controller's timeout. */
NVMFH_HIDDEN int nvmfh_admin(struct nvmf_ctrl *c, const struct nvme_sqe *sqe, void *buf,
			     uint32_t len, bool write, struct nvme_cqe *cqe);

/* nvmfh_ctrl_lost - whether @c's admin queue lost its connection (a failed or timed-out
 * admin command, Keep Alive included): the association needs nvmf_reconnect. */
NVMFH_HIDDEN bool nvmfh_ctrl_lost(struct nvmf_ctrl *c);

/* ---- aen.c: Asynchronous Event Requests (NVMe Base 2.0 section 5.2) ----
 * The AERs' state is guarded by admin_lock (their callbacks run inside admin queue
 * polls); aen.c's thread polls the admin queue while AERs are outstanding and runs the
 * log reads and the user's callback outside admin_lock. */

/* nvmfh_aen_start - once the association is up (nvmf_connect, nvmf_reconnect): when
 * events are on, Set Features Asynchronous Event Configuration, post the AERs and start
 * the event thread; nothing otherwise. 0, or an error with @c's message set (the
 * association is then unusable for events; the caller fails). */
NVMFH_HIDDEN int nvmfh_aen_start(struct nvmf_ctrl *c);
/* nvmfh_aen_stop - stop the event thread (waits for a callback in progress); before the
 * queues are torn down. The AERs still posted complete with the teardown's error, are
 * neither delivered nor posted again. Not from the event thread. */
NVMFH_HIDDEN void nvmfh_aen_stop(struct nvmf_ctrl *c);
/* nvmfh_aen_free - free the event state (after the admin queue's commands completed). */
NVMFH_HIDDEN void nvmfh_aen_free(struct nvmf_ctrl *c);
/* nvmfh_aen_poll - when AERs are outstanding, poll the admin queue once under admin_lock
 * (their completions are recorded). Returns the events waiting for nvmfh_aen_work. A
 * controller thread may call it instead of aen.c's own. */
NVMFH_HIDDEN unsigned nvmfh_aen_poll(struct nvmf_ctrl *c);
/* nvmfh_aen_work - for each recorded event: read its log page and call the user's
 * callback (no lock held), then post its AER again. Call without admin_lock. */
NVMFH_HIDDEN void nvmfh_aen_work(struct nvmf_ctrl *c);

/* ---- admin.c ---- */

/* nvmfh_get_log_page - nvmf_get_log_page with Log Specific Parameter @lsp (CDW10 bits
 * 14:8; RAE stays clear). */
NVMFH_HIDDEN int nvmfh_get_log_page(struct nvmf_ctrl *c, uint8_t lid, uint8_t lsp, uint32_t nsid,
				    uint64_t offset, void *buf, uint32_t len);
/* nvmfh_ns_identify - nvmf_ns_info, plus the namespace's ANAGRPID (Identify Namespace
 * bytes 95:92, host endian) into *@anagrpid when not NULL. */
NVMFH_HIDDEN int nvmfh_ns_identify(struct nvmf_ctrl *c, uint32_t nsid, struct nvmf_ns_info *out,
				   uint32_t *anagrpid);

/* ---- ana.c: Asymmetric Namespace Access (NVMe Base 2.0 section 8.1) ---- */

/* nvmfh_ana_log_size - bytes of the ANA log to read for @id (Identify Controller, wire
 * format): 16 + NANAGRPID * 32 (+ MNAN, or NN, * 4 unless @groups_only). Returns 0,
 * -EOPNOTSUPP (CMIC bit 3 clear) or -EPROTO (NANAGRPID 0 or above ANAGRPMAX, MNAN above
 * NN, more than 64 MiB), with @err saying which. */
NVMFH_HIDDEN int nvmfh_ana_log_size(const struct nvme_id_ctrl *id, bool groups_only, size_t *len,
				    char *err, size_t errlen);
/* nvmfh_ana_log_decode - check and decode the @len bytes of ANA log at @data read from the
 * controller @id describes (@groups_only: read with RGO). Returns 0 with *@out (one
 * allocation), -EPROTO with @err naming what is wrong (see nvmf_read_ana_log), -ENOMEM. */
NVMFH_HIDDEN int nvmfh_ana_log_decode(const void *data, size_t len, const struct nvme_id_ctrl *id,
				      bool groups_only, struct nvmf_ana_log **out, char *err,
				      size_t errlen);
/* nvmfh_ana_find - the group of @log whose NSID list holds @nsid, else the group @grpid
 * (0: none), else NULL. */
NVMFH_HIDDEN const struct nvmf_ana_group *nvmfh_ana_find(const struct nvmf_ana_log *log,
							 uint32_t nsid, uint32_t grpid);

/* ---- auth.c: DH-HMAC-CHAP, host side (NVMe Base 2.1 section 8.3.5) ---- */

/* nvmfh_auth_init - parse opts->dhchap_secret and dhchap_ctrl_secret into @c (the
 * controller's secret needs the host's). Returns 0, or -EINVAL / -ENOMEM with @c's
 * message naming the option. */
NVMFH_HIDDEN int nvmfh_auth_init(struct nvmf_ctrl *c, const struct nvmf_ctrl_opts *opts);
/* nvmfh_auth_fini - zero and free @c's secrets. */
NVMFH_HIDDEN void nvmfh_auth_fini(struct nvmf_ctrl *c);
/*
 * nvmfh_auth_connected - after the Fabrics Connect of @q answered CQE dword 0 @dw0: run
 * the DH-HMAC-CHAP transaction on @q when AUTHREQ.ATR is set (every hash and DH group
 * offered; the controller picks), or refuse a controller that does not authenticate
 * when a controller secret was given. The caller owns @q (as for nvmfh_queue_exec).
 * Returns 0, -EACCES, -EKEYREJECTED, -EPROTO, -EOPNOTSUPP (AUTHREQ.ASCR: secure channel
 * concatenation, TCP only), an NVMe status of Authentication Send/Receive, or a
 * transport error; @c's message says which and why (see nvmf_connect).
 */
NVMFH_HIDDEN int nvmfh_auth_connected(struct nvmf_ctrl *c, struct nvmf_queue *q, uint32_t dw0);

/* ---- io.c ---- */

/* nvmfh_submit_blocks - a block command (Read, Write, Compare, Write Zeroes: @buf NULL)
 * over @nlb blocks of 2^@lba_shift bytes, split by MDTS and NLB as nvmf_submit_read;
 * the block size is the caller's (no Identify). Returns as nvmf_submit_read. */
NVMFH_HIDDEN int nvmfh_submit_blocks(struct nvmf_queue *q, uint8_t opcode, uint32_t nsid,
				     uint64_t slba, uint32_t nlb, void *buf, bool write,
				     uint32_t lba_shift, nvmf_io_cb cb, void *arg);
/* nvmfh_io_pump - submit further parts of split requests waiting on @q for slots. */
NVMFH_HIDDEN void nvmfh_io_pump(struct nvmf_queue *q);
/* nvmfh_io_fail_pending - finish, with @err, split requests of @q that have no part in
 * flight (the others finish when their last part fails). */
NVMFH_HIDDEN void nvmfh_io_fail_pending(struct nvmf_queue *q, int err);

/* ---- errors.c ---- */

/* nvmfh_errf - set @c's detailed message (printf format). */
NVMFH_HIDDEN void nvmfh_errf(struct nvmf_ctrl *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* nvmfh_errf_mute - while @mute, nvmfh_errf on this thread writes nothing (a library
 * thread's own commands leave nvmf_ctrl_errmsg to the application's calls). Returns the
 * previous setting, to restore. */
NVMFH_HIDDEN bool nvmfh_errf_mute(bool mute);
/* nvmfh_errf_divert - while @buf is set, nvmfh_errf on this thread writes into @buf
 * (@len bytes; cleared here) instead of the controller's message (the controller thread's
 * reconnect attempts). NULL: back to normal. */
NVMFH_HIDDEN void nvmfh_errf_divert(char *buf, size_t len);
/* nvmfh_set_last_errmsg - the thread's nvmf_last_errmsg() text. */
NVMFH_HIDDEN void nvmfh_set_last_errmsg(const char *msg);
/*
 * nvmfh_host_identity - the host NQN and host ID to connect with (NVMe Base 4.5/5.27.1.24):
 * @nqn/@id given are used as is. Otherwise, as nvme-cli: DIR/hostnqn and DIR/hostid (DIR
 * is /etc/nvme; tests pass another) when readable; a missing hostid is taken from a
 * hostnqn of the form "nqn.2014-08.org.nvmexpress:uuid:<uuid>", else random (UUID v4);
 * a missing hostnqn is "nqn.2014-08.org.nvmexpress:uuid:<hostid as UUID>".
 * @nqn_out holds NVMFH_NQN_FIELD bytes. Returns 0, or -EINVAL with @err set for an NQN
 * longer than 223 characters or an unreadable hostid file content.
 */
NVMFH_HIDDEN int nvmfh_host_identity(const char *dir, const char *nqn, const uint8_t *id,
				     char *nqn_out, uint8_t id_out[16], char *err, size_t errlen);
/* nvmfh_connect_detail - what a Connect failure status means, for messages: which field
 * IATTR/IPO in CQE dword 0 names (NVMe-oF 1.1 section 3.3.2), "" when none. */
NVMFH_HIDDEN const char *nvmfh_connect_detail(int status, uint32_t dw0);

#endif
