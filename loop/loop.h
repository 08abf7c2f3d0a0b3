/* SPDX-License-Identifier: MIT */
/*
 * The loop transport: a host and our target in one process with no network between
 * them (like the kernel's nvmet loop.c), so libnvmf, the core and the backends are tested
 * together without RDMA. Both halves are here: the target side plugs into the core
 * through struct nvmf_transport_ops, the host side into libnvmf through struct
 * nvmf_host_transport (initiator/transport.h).
 *
 * What travels, as over RDMA (NVMe-oF 1.1 section 7, the RDMA binding):
 *   host submit: the 64-byte SQE, plus in-capsule data for writes up to the queue's
 *     in-capsule size (SGL 0x01 Data Block, Offset 0), is copied into a free command
 *     slot of the target queue (its "receive buffer") and queued in the queue's inbox;
 *     the target queue's poll group is woken (nvmf_pg_wake). Other data is described by
 *     a keyed SGL (0x40: address = a host bounce buffer, key = the queue's key, 24-bit
 *     length) the target copies from (H2C, "RDMA READ") before execute, or into (C2H,
 *     "RDMA WRITE") before the CQE.
 *   target pg_poll: drains the inboxes of its queues: nvmf_req_init, nvme_sgl_parse
 *     exactly as the RDMA transport calls it, data in, nvmf_req_execute.
 *   queue_response: C2H data, then the 16-byte CQE into the host queue's completion
 *     ring (one entry per queue slot: never more responses than the host queue holds).
 *   host poll: reaps the ring (nvmf_hq_complete); wait sleeps on a condition variable.
 *
 * Which port: a host queue connects to the first listening loop port whose trsvcid is
 * opts->trsvcid (default "4420") and whose traddr equals opts->traddr (numerically, when
 * both parse in the port's family), or is a wildcard ("", "0.0.0.0", "::") of the
 * family opts->traddr parses in; an empty opts->traddr takes the first port with that
 * trsvcid. The "local address" of the connection, which discovery reports for wildcard
 * ports (nvmf_disc_ip_traddr), is opts->traddr: the address the host dialed.
 *
 * Threads. Each target queue belongs to its poll group (target/poll-group.h). When the
 * group has a thread of its own (nvmf_pg_start, nvmf_tgt_start) everything is
 * asynchronous. When it has none (driven mode, for deterministic tests), the host-side
 * calls run the target: every call runs passes (nvmf_pg_poll) on every group without a
 * thread until a round finds no work, under one loop-wide mutex (libnvmf's keep-alive
 * thread and the test thread both call in). nvmf_loop_set_auto_drive(false) keeps submit
 * and poll from doing so (the test steps the target with nvmf_loop_drive); calls that
 * wait (queue connect, queue disconnect, wait) always drive.
 *
 * Lifetime: every host queue must be disconnected before nvmf_tgt_shutdown (queues the
 * target disconnects meanwhile read -ECONNRESET); no host call may run during
 * nvmf_tgt_shutdown, which drives the groups itself.
 */
#ifndef NVMF_LOOP_LOOP_H
#define NVMF_LOOP_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include "target/transport.h"

struct nvmf_tgt;
struct nvmf_host_transport;
struct nvme_sqe;

/*
 * The target side: name "loop", trtype NVMF_TRTYPE_LOOP (discovery log), one SGL data
 * block per command, keyed SGLs; I/O queues of up to 1024 entries, up to 16 KiB of
 * in-capsule data on I/O queues (admin capsules carry none), 8 MiB per command. Listens
 * on ports with trtype "loop". Pass it to nvmf_tgt_init in @ops.
 */
extern const struct nvmf_transport_ops nvmf_loop_ops;

/*
 * nvmf_loop_host_transport - the host side of @tgt's loop transport, for
 * nvmf_ctrl_opts.transport (libnvmf connects to @tgt's loop ports with it, after
 * nvmf_tgt_listen). NULL when @tgt has no loop port. Valid until nvmf_tgt_shutdown.
 * Its queue_connect returns -ECONNREFUSED when no port matches (see above) or the port
 * stopped listening, -ETIMEDOUT when the target did not take the queue within
 * opts->timeout_ms; submit -EAGAIN (no free command slot), -ECONNRESET (queue broken),
 * -EINVAL (command id or length the queue cannot carry: keyed SGLs have 24 bits).
 * mem_register is accepted and changes nothing: data always goes through the queue's own
 * bounce buffers, so the target never touches memory libnvmf may free.
 */
const struct nvmf_host_transport *nvmf_loop_host_transport(struct nvmf_tgt *tgt);

/* What the tests watch or change, each called on the target queue's group thread. */
struct nvmf_loop_hooks {
	/* capsule - a command capsule arrived on @sq (transport-level @qid: what the host
	 * connected the queue as; sq->qid is 0 until Connect), before nvmf_req_init. @sqe
	 * (64 bytes, little endian) may be changed; @incapsule_len bytes of data came with
	 * it. */
	void (*capsule)(void *arg, struct nvmf_sq *sq, uint16_t qid, struct nvme_sqe *sqe,
			uint32_t incapsule_len);
	/* queue_down - @sq is about to be destroyed: @by_host, the host disconnected it;
	 * otherwise the core did (controller deleted, keep-alive expiry, shutdown) or
	 * nvmf_loop_break. sq->ctrl is still valid (on the main group for admin queues). */
	void (*queue_down)(void *arg, struct nvmf_sq *sq, uint16_t qid, bool by_host);
	void *arg;
};

/* nvmf_loop_set_hooks - install @hooks (copied; NULL removes them). Before any host
 * queue connects. */
void nvmf_loop_set_hooks(struct nvmf_tgt *tgt, const struct nvmf_loop_hooks *hooks);

/* nvmf_loop_hold - while @hold, host polls find no completion (the CQEs wait in their
 * rings): a controller that stopped answering. Any thread. */
void nvmf_loop_hold(struct nvmf_tgt *tgt, bool hold);

/* nvmf_loop_drop - the next @n CQEs the target sends on queues connected as transport
 * qid @qid (any controller) are lost: the command ran, its host never hears of it (a
 * controller that stopped answering some commands). 0: none more. Any thread. */
void nvmf_loop_drop(struct nvmf_tgt *tgt, uint16_t qid, unsigned n);

/* nvmf_loop_break - every connection fails at once: each host queue drops the CQEs it
 * has not reaped and answers submit and poll with -ECONNRESET; each target queue is
 * destroyed on its group (by message) as when a host vanishes. Any thread. */
void nvmf_loop_break(struct nvmf_tgt *tgt);

/* nvmf_loop_set_auto_drive - in driven mode, whether host submit and poll run target
 * passes (default true). */
void nvmf_loop_set_auto_drive(struct nvmf_tgt *tgt, bool on);

/* nvmf_loop_drive - run passes on every group of @tgt without a thread of its own until
 * a round finds no work (64 rounds at most), under the loop-wide mutex. Returns the work
 * found (messages, capsules, completions). Any thread. */
int nvmf_loop_drive(struct nvmf_tgt *tgt);

/* nvmf_loop_run_on - run @fn(@arg) on group @pg_index (0: the main group, owner of the
 * controllers) and return when it has run: by message when the group has a thread, else
 * on the caller's thread under the loop-wide mutex. Lets a test read target state from
 * any thread but a group's own (it would wait for itself). Returns 0, or -EINVAL (no
 * such group or no loop transport). */
int nvmf_loop_run_on(struct nvmf_tgt *tgt, unsigned pg_index, void (*fn)(void *arg), void *arg);

/*
 * Raw host queues, for tests and fuzzers: capsules go to the target exactly as the caller
 * built them (command id, flags, data pointer, in-capsule data and all), which libnvmf's
 * queues never send, and the CQEs come back as they are (loop/host/raw.c). Everything
 * else is as for libnvmf's queues: the same target queues, driven mode, hooks, break, and
 * the lifetime rule above (disconnect every raw queue before nvmf_tgt_shutdown).
 *
 * Host memory. A keyed SGL (0x40, 0x4F) carries the queue's key (nvmf_loop_raw_key) and
 * the address of host memory, as over RDMA; each capsule names the memory its key reaches
 * (@mem, @mem_len: the "memory region"). A transfer outside it, or with another key, fails
 * with Data Transfer Error as an RDMA READ/WRITE with a bad rkey or address does; no byte
 * outside the region is read or written.
 */
struct nvmf_loop_raw;

/*
 * nvmf_loop_raw_connect - a transport connection of queue @qid (the transport-level qid:
 * 0 admin, else I/O; the Fabrics Connect that names a qid is the caller's capsule) with
 * @size entries (2..1024) to @tgt's loop port that @traddr:@trsvcid reaches (the rule
 * above; NULL or "" as there). Waits for the target to take it (driving it in driven
 * mode). Returns 0 with *@out, or -EINVAL (size, or no loop transport), -ECONNREFUSED
 * (no such listening port), -ENOMEM, -ETIMEDOUT (10 s).
 */
int nvmf_loop_raw_connect(struct nvmf_tgt *tgt, const char *traddr, const char *trsvcid,
			  uint16_t qid, uint16_t size, struct nvmf_loop_raw **out);

/* nvmf_loop_raw_key - the key keyed SGLs of @q's capsules must carry. */
uint32_t nvmf_loop_raw_key(const struct nvmf_loop_raw *q);

/* nvmf_loop_raw_inline - bytes of in-capsule data a capsule of @q may carry (the target
 * queue's receive buffer: the port's in-capsule size on I/O queues, 0 on admin queues). */
uint32_t nvmf_loop_raw_inline(const struct nvmf_loop_raw *q);

/*
 * nvmf_loop_raw_send - send the 64-byte @sqe as it is, followed by @icd_len bytes of
 * in-capsule data @icd (NULL when 0). Keyed transfers of the command may reach the
 * @mem_len bytes at @mem only (NULL, 0: none), which must stay valid until its CQE is
 * reaped or @q is disconnected. At most @q's size commands may wait for their CQE to be
 * reaped. Returns 0, -EAGAIN (that many wait, or no free command slot), -EINVAL (more
 * in-capsule data than nvmf_loop_raw_inline), -ECONNRESET (the connection is gone). With
 * auto drive on (driven mode), the target runs before it returns.
 */
int nvmf_loop_raw_send(struct nvmf_loop_raw *q, const struct nvme_sqe *sqe, const void *icd,
		       uint32_t icd_len, void *mem, uint32_t mem_len);

/*
 * nvmf_loop_raw_reap - move up to @max CQEs (16 bytes each, little endian, as the target
 * sent them) that arrived on @q into @cqes, oldest first. With auto drive on, the target
 * runs first; while nvmf_loop_hold holds, none arrive. Returns how many (0: none), or
 * -ECONNRESET when the connection is gone and none is left: the CQEs the target sent
 * before it closed the queue are still reaped first; nvmf_loop_break drops them.
 */
int nvmf_loop_raw_reap(struct nvmf_loop_raw *q, struct nvme_cqe *cqes, unsigned max);

/* nvmf_loop_raw_disconnect - the host drops the connection: the target ends the queue
 * (commands in flight finish, their CQEs dropped) and @q is freed. NULL: no-op. */
void nvmf_loop_raw_disconnect(struct nvmf_loop_raw *q);

#endif
