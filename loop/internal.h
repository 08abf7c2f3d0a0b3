/* SPDX-License-Identifier: MIT */
/*
 * Internals of the loop transport shared by its two halves: loop/target/transport.c (the target
 * side: a transport of the core) and loop/host/transport.c (the host side: libnvmf's
 * struct nvmf_host_transport). Not for other users; see loop/loop.h.
 *
 * Who owns what:
 *   struct loop_tq (target queue): its poll group's thread; its slot free list, inbox
 *     and place on the group's ready list are shared with submitting host threads under
 *     the group part's lock (tpg->lock).
 *   struct loop_hq (host queue): the thread libnvmf runs the queue on; its link to the
 *     target queue, completion ring and state are shared with the target group under
 *     hq->lock. The target copies data only into the host queue's own bounce buffers,
 *     only while linked (hq->tq / tq->hq set, on the target group), and the host frees
 *     them only once the target said the queue is released (or leaves them to the
 *     target, "abandoned", when it gives up waiting).
 * Lock order: hq->lock, then tpg->lock; lt->lock, then hq->lock. The group never holds
 * tpg->lock while taking hq->lock.
 */
#ifndef NVMF_LOOP_INTERNAL_H
#define NVMF_LOOP_INTERNAL_H

#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include "initiator/transport.h"
#include "target/transport.h"
#include "loop/loop.h"

#define LOOP_MAX_QUEUE_SIZE 1024u
#define LOOP_MAX_INLINE     16384
#define LOOP_MAX_XFER       (8u << 20)
#define LOOP_KEYED_MAX      ((1u << 24) - 1) /* 24-bit keyed SGL length */
#define LOOP_PAGE           4096u
#define LOOP_DRIVE_ROUNDS   64
#define LOOP_WAIT_SLICE_MS  1     /* driven waits look this often */
#define LOOP_CONNECT_MS     10000 /* when opts->timeout_ms is unset */
#define LOOP_RELEASE_MS     10000 /* queue_disconnect waits this long */

#define LOOP_LOG(...) fprintf(stderr, "nvmf loop: " __VA_ARGS__)

struct loop_tq;
struct loop_hq;

/* The transport: one per target. */
struct loop_transport {
	struct nvmf_transport t;         /* first: the core's handle */
	struct nvmf_host_transport host; /* the host side's ops, handed to libnvmf */
	struct nvmf_tgt *tgt;
	pthread_mutex_t drive_lock; /* driven mode: owner of the groups without thread */
	pthread_mutex_t lock;       /* ports' transport_priv (non-NULL: listening), hqs */
	struct loop_hq *hqs;        /* connected host queues (for nvmf_loop_break) */
	bool destroyed;             /* the target destroyed it while hqs remained: the
					   * last one's disconnect frees it (under lock) */
	struct nvmf_loop_hooks hooks;
	bool hold, auto_drive;         /* atomic */
	unsigned drop_qid, drop_count; /* atomic: nvmf_loop_drop */
};

/* The transport's part of one poll group. */
struct loop_tpg {
	struct nvmf_tpg base; /* first */
	struct loop_transport *lt;
	pthread_mutex_t lock; /* the ready list, every queue's inbox and free slots */
	struct loop_tq *ready_head, *ready_tail;
	struct loop_tq *queues; /* the group's queues (group thread) */
};

/* One command slot of a target queue, where a capsule lands (the "receive buffer"). */
struct loop_req {
	struct nvmf_req req; /* req.transport_priv = this */
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	struct loop_tq *tq;
	struct loop_req *next; /* inbox or free list */
	uint8_t *icd;          /* in-capsule data, tq->inline_size bytes, page aligned */
	uint32_t icd_len;      /* bytes that arrived after the SQE */
	void *buf;             /* keyed: page-aligned data_len bytes (O_DIRECT) */
	uint64_t host_addr;    /* keyed: the host's buffer */
	uint64_t mem_addr;     /* keyed: the host memory the capsule's key reaches, */
	uint32_t mem_len;      /* mem_len bytes at mem_addr (its "memory region") */
	uint32_t xfer_len;
};

struct loop_tq {
	struct nvmf_sq sq;
	struct loop_tpg *tpg;
	struct loop_hq *hq;            /* data link; NULL once dead (changed under hq->lock) */
	struct loop_hq *owner;         /* told at queue_released; never cleared */
	uint16_t qid, size;            /* transport-level qid; slots */
	uint32_t inline_size;          /* in-capsule bytes a slot holds */
	uint32_t key;                  /* the host queue's "rkey" */
	struct sockaddr_storage local; /* what the host dialed */
	struct loop_req *reqs;
	uint8_t *icd_mem;
	/* under tpg->lock */
	struct loop_req *free, *inbox_head, *inbox_tail;
	struct loop_tq *ready_next;
	bool on_ready;
	/* group thread */
	struct loop_tq *next; /* in tpg->queues */
	bool dead, in_kill, released;
};

/* Host side: one command id of a host queue. */
struct loop_cmd {
	void *bounce; /* keyed data, len bytes; NULL for in-capsule/none */
	uint32_t len;
	bool busy, read;
};

enum loop_hq_state { LHQ_CONNECTING, LHQ_LINKED, LHQ_REJECTED };

struct loop_hq {
	struct loop_transport *lt;
	struct nvmf_hq *hq; /* libnvmf's queue; NULL for a raw queue (loop-raw.c),
					   * whose CQEs wait in the ring for nvmf_loop_raw_reap */
	struct nvmf_port *port;
	uint16_t qid, size;
	uint32_t key;
	struct sockaddr_storage local;
	struct loop_cmd *cmds;  /* [size]: the host thread's */
	uint32_t incapsule;     /* write bytes sent in the capsule */
	uint32_t target_inline; /* what the target queue's slots hold */
	struct nvmf_pg *pg;     /* the target queue's group, once linked */
	struct nvmf_msg msg;    /* the detach request */
	struct loop_hq *next;   /* in lt->hqs */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* under lock */
	enum loop_hq_state state;
	int reject;     /* -errno when REJECTED */
	bool abandoned; /* the host gave up waiting: the target frees it */
	bool broken, released;
	struct loop_tq *tq;
	struct nvme_cqe *ring; /* [size] CQEs not yet reaped */
	unsigned head, count;
	unsigned inflight; /* submitted, CQE not yet reaped */
};

/* ---- target side (loop/target/transport.c) ---- */

/* nvmf_loop_tq_receive - put the 64-byte @sqe and @len bytes of in-capsule @data into a
 * free slot of @tq and its inbox (the "SEND"); the caller holds the host queue's lock
 * (so @tq is alive) and wakes the group. A keyed SGL of the capsule may reach the
 * @mem_len bytes of host memory at @mem only (as an rkey reaches its memory region; 0
 * bytes: none): outside them the transfer fails. 0, -EAGAIN (no free slot), -EINVAL
 * (more in-capsule data than a slot holds). */
int nvmf_loop_tq_receive(struct loop_tq *tq, const struct nvme_sqe *sqe, const void *data,
			 uint32_t len, uint64_t mem, uint32_t mem_len);
/* nvmf_loop_request_detach - ask @h's target queue's group to end the queue (by message
 * in @h); under h->lock, while h->tq is set. */
void nvmf_loop_request_detach(struct loop_hq *h);
/* nvmf_loop_drive_needed - some group of the target has no thread of its own. */
bool nvmf_loop_drive_needed(const struct loop_transport *lt);
/* nvmf_loop_of_tgt - @tgt's loop transport, or NULL when it has none. */
struct loop_transport *nvmf_loop_of_tgt(struct nvmf_tgt *tgt);
/* nvmf_loop_run_passes - nvmf_loop_drive for @lt: passes until a round finds no work. */
int nvmf_loop_run_passes(struct loop_transport *lt);
/* nvmf_loop_auto_drive - the same, from submit and poll, unless switched off. */
void nvmf_loop_auto_drive(struct loop_transport *lt);

/* ---- host side (loop/host/transport.c) ---- */

/* nvmf_loop_host_init - fill @t with the host side's operations. */
void nvmf_loop_host_init(struct nvmf_host_transport *t);
/* nvmf_loop_free - free the transport itself (no host queue, no group refers to it). */
void nvmf_loop_free(struct loop_transport *lt);
/* nvmf_loop_hq_free - free a host queue and its bounce buffers (nobody else refers to
 * it: released by the target, never linked, or abandoned and now released). */
void nvmf_loop_hq_free(struct loop_hq *h);
/* nvmf_loop_hq_connect - a new host queue @qid of @size entries (2..LOOP_MAX_QUEUE_SIZE)
 * for libnvmf's @hq (NULL: a raw queue, loop/host/raw.c) linked to a target queue on
 * the port @traddr:@trsvcid reaches (loop.h), waiting up to @timeout_ms (<= 0: the
 * default) for the target to take it. 0 with *@out, or -errno with @err: -EINVAL (size),
 * -ECONNREFUSED, -ENOMEM, -ETIMEDOUT, or the target's refusal. */
int nvmf_loop_hq_connect(struct loop_transport *lt, struct nvmf_hq *hq, const char *traddr,
			 const char *trsvcid, int timeout_ms, uint16_t qid, uint16_t size,
			 char *err, size_t errlen, struct loop_hq **out);
/* nvmf_loop_hq_disconnect - end @h's target queue, wait for its release and free @h
 * (left to the target when the release does not come within LOOP_RELEASE_MS). */
void nvmf_loop_hq_disconnect(struct loop_hq *h);

#endif
