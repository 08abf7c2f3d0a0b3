/* SPDX-License-Identifier: MIT */
/*
 * Types shared by the files of the NVMe/TCP target transport (not a public interface:
 * the rest of the project sees tcp/target/transport.h only; the file list is there).
 *
 * Who owns what: a listener and a connection that has not been handed to the core yet
 * (ICReq, first CapsuleCmd) belong to the main group; a connection handed over belongs to
 * the group the core placed its queue on, with its requests, buffers and send list.
 * Nothing here is shared between threads but the transport's read-only settings.
 */
#ifndef NVMF_TCP_TARGET_INTERNAL_H
#define NVMF_TCP_TARGET_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include "nvme/tcp.h"
#include "nvme/tls-psk.h"
#include "tls/channel.h"
#include "tcp/target/transport.h"

/* NVMF_TCP_LOG - one line in the target's log (target/log.h: its level, its stderr) from
 * the transport @t: "tcp: " then printf's format and arguments, no trailing newline.
 * Lines about a connection name its host ("tcp: host 192.0.2.1:40112, queue 1: ..."). */
#define NVMF_TCP_LOG(t, level, ...) nvmf_log_at((t)->base.tgt, NVMF_LOGC_TCP, (level), __VA_ARGS__)

/* Limits of the transport. */
#define NVMF_TCP_MAX_QUEUE_SIZE 1024u
#define NVMF_TCP_MAX_INLINE     16384u
#define NVMF_TCP_MAX_XFER       (8u << 20)
/* In-capsule data bytes an admin queue takes: the Linux host assumes 8 KiB there
 * (NVME_TCP_ADMIN_CCSZ in its driver) and sends its Connect data in the capsule. */
#ifndef NVME_TCP_ADMIN_CCSZ
#define NVME_TCP_ADMIN_CCSZ 8192u
#endif
/* Page alignment of data buffers (backends may use O_DIRECT). */
#define NVMF_TCP_ALIGN            4096u
/* A listener whose accept() failed for want of a resource (descriptors, memory) rests
 * this long before it is polled again: the connection stays in the backlog. */
#define NVMF_TCP_ACCEPT_REST_MS   100u
/* A connection must send its ICReq and first CapsuleCmd within this time. */
#define NVMF_TCP_HANDSHAKE_MS     10000u
/* Bytes of PDU header a send item holds: a C2HTermReq (24) with the 152 bytes of the
 * offending header, or a data PDU's header, digest and padding up to a PDO of 128. */
#define NVMF_TCP_TX_HDR_MAX       (sizeof(struct nvme_tcp_term) + NVME_TCP_TERM_MAX_DATA)
/* Bytes recv() may put in a connection's buffer ahead of a PDU's data: the largest PDO
 * (255) and a header digest; the buffer holds one whole PDU at least. */
#define NVMF_TCP_RX_SLACK         512u
/* Bytes one recv() into the connection's buffer asks for right after an H2CData PDU's
 * data went straight into its command (rx_direct): write data is flowing, and the next
 * PDU is likely another H2CData whose data should go the same way, not be received
 * into the buffer and copied again. A few PDU headers fit; a whole large one does not. */
#define NVMF_TCP_RX_PEEK          4096u
/* A closed connection whose zero-copy sends the kernel still holds waits this long for
 * their notifications before it is reset (which frees them). */
#define NVMF_TCP_ZC_DRAIN_MS      5000u
/* How often such connections are looked at. */
#define NVMF_TCP_ZC_DRAIN_TICK_MS 50u
/* A connection's send list holding this many bytes is sent at once, not at the end of
 * the pass: read data the backend just wrote into the command's buffer is still in the
 * CPU's cache when sendmsg copies it (eight 1 MiB reads completed in one pass would
 * have pushed the first out of a 4 MiB L2 before the pass's one sendmsg). */
#define NVMF_TCP_TX_EARLY_BYTES   (512u << 10)

struct nvmf_tcp_tpg;
struct nvmf_tcp_conn;
struct nvmf_tcp_req;

/* What an epoll event of a group points at. */
enum nvmf_tcp_ev_kind { NVMF_TCP_EV_LISTENER, NVMF_TCP_EV_CONN };
struct nvmf_tcp_ev {
	enum nvmf_tcp_ev_kind kind;
};

/* One listening socket: a port of the config (main group). */
struct nvmf_tcp_listener {
	struct nvmf_tcp_ev ev; /* first: epoll data points here */
	int fd;
	struct nvmf_port *port;
	uint16_t portid;     /* the port's ID, for messages */
	bool resting;        /* out of the epoll set until the main group's
					    * accept_resume_ms (accept failed) */
	bool accept_failing; /* the failure was logged; a success logs again */
	struct nvmf_tcp_listener *next;
};

struct nvmf_tcp_transport {
	struct nvmf_transport base;          /* first: the core's handle */
	struct nvmf_tcp_listener *listeners; /* main group */
	bool shutting_down;                  /* the target stops: no new connection (atomic) */
};

/* One PDU (or the tail of one) waiting in a connection's send list: @hlen bytes of
 * @hdr (header, header digest, padding to PDO), then @dlen bytes at @data, then
 * @ddgst_len bytes of @ddgst. */
struct nvmf_tcp_tx {
	struct nvmf_tcp_tx *next;
	struct nvmf_tcp_req *done;   /* released once this item is sent (a command's
					    * last PDU: CapsuleResp, or C2HData with SUCCESS) */
	struct nvmf_tcp_req *zc_req; /* its data may leave with MSG_ZEROCOPY: the
					    * command whose buffer it is (zerocopy.c) */
	uint32_t hlen;
	uint32_t dlen;
	const void *data;
	uint32_t ddgst_len;
	uint8_t ddgst[NVME_TCP_DIGEST_LEN];
	uint8_t hdr[NVMF_TCP_TX_HDR_MAX];
};

/*
 * The life of one command on a connection:
 *   FREE -> (CapsuleCmd) nvmf_req_init: answered at once (-> SENDING), or
 *   H2C_DATA   a write through a transport SGL: R2T sent, H2CData PDUs arriving
 *   EXECUTING  handed to the core (nvmf_req_execute)
 *   SENDING    queue_response queued C2HData (reads) and the CapsuleResp, or only a
 *              C2HData with SUCCESS (req->cqe_optional: SQ flow control disabled)
 *   -> FREE    once the last of them left (sendmsg took it); buffer back to the group
 */
enum nvmf_tcp_req_state {
	NVMF_TCP_REQ_FREE,
	NVMF_TCP_REQ_H2C_DATA,
	NVMF_TCP_REQ_EXECUTING,
	NVMF_TCP_REQ_SENDING,
};

struct nvmf_tcp_req {
	struct nvmf_req req; /* what the core sees */
	struct nvmf_tcp_conn *conn;
	enum nvmf_tcp_req_state state;
	uint16_t ttag; /* its index: the R2T's transfer tag */
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;
	void *buf;                        /* data buffer (NVMF_TCP_ALIGN), or NULL */
	uint32_t buf_len;                 /* bytes of @buf */
	uint32_t h2c_done;                /* bytes of write data received so far */
	uint32_t r2t_end;                 /* the outstanding R2T asks for data up to here */
	bool ddgst_error;                 /* some of its data failed its digest: it completes
					    * with Transient Transport Error, not executed */
	uint32_t zc_refs;                 /* zero-copy sends of its buffer the kernel has not
					    * let go of yet */
	bool zc_release;                  /* answered: released when zc_refs drops to 0 */
	struct nvmf_tcp_tx r2t, c2h, rsp; /* its PDUs */
	struct nvmf_tcp_req *next_free;
};

enum nvmf_tcp_conn_state {
	NVMF_TCP_CONN_ICREQ,   /* waiting for the ICReq (main group) */
	NVMF_TCP_CONN_CONNECT, /* ICResp sent; waiting for the first CapsuleCmd */
	NVMF_TCP_CONN_LIVE,    /* a queue of the core, on its group */
	NVMF_TCP_CONN_DEAD,    /* torn down; freed once the core released it */
};

/* Where a connection is in its secure channel (tls.c). */
enum nvmf_tcp_tls_phase {
	NVMF_TCP_TLS_NONE,      /* plain: a port without TLS, or the host's choice */
	NVMF_TCP_TLS_SNIFF,     /* a TLS port: the first byte will tell */
	NVMF_TCP_TLS_HANDSHAKE, /* the handshake runs */
	NVMF_TCP_TLS_UP,        /* every byte goes through conn->tls */
};

/* One zero-copy send (a sendmsg with MSG_ZEROCOPY that took bytes) in a connection's
 * ring; the kernel numbers them 0, 1, 2... per socket. */
struct nvmf_tcp_zc_slot {
	struct nvmf_tcp_req *req; /* whose buffer it sent from */
	bool done;                /* its notification came (maybe out of order) */
};

/* One TCP connection = one NVMe queue. */
struct nvmf_tcp_conn {
	struct nvmf_tcp_ev ev; /* first: epoll data points here */
	struct nvmf_tcp_transport *t;
	struct nvmf_tcp_tpg *tpg; /* its group's part (the main group's before the
					    * hand-over) */
	int fd;
	struct nvmf_port *port;
	struct nvmf_port_attrs pa; /* the port's address and limits, at accept */
	enum nvmf_tcp_conn_state state;
	char peer[64];                 /* "addr:port" of the host */
	struct sockaddr_storage local; /* the address the host connected to */
	uint64_t born_ms;              /* the target's clock at accept */
	uint16_t qid;                  /* from the first CapsuleCmd's Connect */
	/* The secure channel (tls.c): NULL while plain. tls_host/tls_sub: the NQNs of the PSK
	 * identity the handshake used (the core checks the Connect against them);
	 * tls_compat: its TLS PSK came from libnvme's compat layout (logged once). */
	enum nvmf_tcp_tls_phase tls_phase;
	struct nvmf_tls *tls;
	char *tls_host, *tls_sub;
	bool tls_compat;
	/* Negotiated in ICReq/ICResp. */
	struct nvme_tcp_conn_params cp; /* what received PDUs are checked against */
	uint8_t hpda;                   /* the host's alignment for C2H data (0's based) */
	uint32_t maxh2cdata;            /* bytes per H2CData PDU we announced */
	uint32_t icsz;                  /* in-capsule data bytes this queue takes */
	/* Receiving: bytes [roff, rlen) of rbuf are received and not yet consumed. */
	uint8_t *rbuf;
	uint32_t rcap, rlen, roff;
	bool rx_kick;       /* buffered bytes to parse without a socket event */
	bool rx_was_direct; /* the last PDU's data went straight to its command: the next
			     * recv() into rbuf asks for NVMF_TCP_RX_PEEK bytes at most */
	/* An H2CData PDU whose header is checked and whose data goes straight from the
	 * socket into its command's buffer (no copy through rbuf): bytes [0, rx_datal) at
	 * offset rx_datao of rx_req's buffer, rx_got of them here, then the data digest
	 * (rx_ddgst, rx_ddgst_got bytes of it here). NULL: bytes go to rbuf. */
	struct nvmf_tcp_req *rx_req;
	uint32_t rx_datao, rx_datal, rx_got, rx_ddgst_got;
	uint8_t rx_ddgst[NVME_TCP_DIGEST_LEN];
	struct nvmf_tcp_conn *kick_next; /* in tpg->kick */
	/* Requests: one per queue entry, indexed by ttag. */
	struct nvmf_tcp_req *reqs;
	uint32_t nreqs;
	struct nvmf_tcp_req *free_reqs;
	uint32_t busy_reqs; /* not FREE */
	/* Sending: PDUs in order; @tx_off bytes of the head are sent already. */
	struct nvmf_tcp_tx *tx_head, *tx_tail;
	uint32_t tx_off;
	uint64_t tx_bytes; /* bytes of the PDUs in the list (whole, sent part included) */
	bool tx_dirty;     /* in tpg->dirty */
	bool pollout;      /* EPOLLOUT asked: the socket's buffer was full */
	struct nvmf_tcp_conn *dirty_next;
	/* Zero-copy sends (zerocopy.c): C2HData of at least zc_min bytes (0: none; the port
	 * said 0, the socket refused SO_ZEROCOPY, or the kernel copied one anyway). Ring
	 * of the sends not yet notified: zc_count from zc_head, the first numbered
	 * zc_head_id. */
	uint32_t zc_min;
	struct nvmf_tcp_zc_slot *zc;
	uint32_t zc_cap, zc_head, zc_count, zc_head_id;
	uint32_t zc_sends;         /* sends made with MSG_ZEROCOPY */
	bool zc_copied;            /* the kernel reported it copied one */
	bool zc_nobufs;            /* a send was refused ENOBUFS (logged once) */
	uint64_t zc_drain_ms;      /* dead: reset at this pg->now_ms if still held */
	struct nvmf_tcp_tx icresp; /* the ICResp */
	struct nvmf_tcp_tx term;   /* a C2HTermReq */
	/* The core's queue. */
	struct nvmf_sq sq;
	bool sq_inited;
	bool in_kill;               /* inside conn_kill: queue_released must not free */
	bool released;              /* queue_released ran */
	struct nvmf_tcp_conn *next; /* in tpg->conns (or the main group's pending) */
};

/* A group's cache of data buffers, per size class: powers of two from 4 KiB to 8 MiB (the
 * largest transfer, NVMF_TCP_MAX_XFER), each keeping up to NVMF_TCP_BUF_CACHE_BYTES of
 * buffers (at least 2, at most 256). A command gets the smallest class its data fits:
 * a 1 MiB transfer takes a 1 MiB buffer that the next one reuses, not a fresh mapping of
 * the largest size (the kernel's page faults on every I/O halved 1 MiB throughput). */
#define NVMF_TCP_BUF_CLASSES     12
#define NVMF_TCP_BUF_CACHE_BYTES (8u << 20)
struct nvmf_tcp_buf_cache {
	uint32_t size;
	uint32_t count, max;
	void **free;
};

/* The transport's part of one poll group. */
struct nvmf_tcp_tpg {
	struct nvmf_tpg base; /* first */
	struct nvmf_tcp_transport *t;
	int epfd;                       /* its sockets (and on the main group, listeners) */
	struct nvmf_tcp_conn *conns;    /* live and dying connections of this group */
	struct nvmf_tcp_conn *pending;  /* main group: accepted, not handed over */
	struct nvmf_tcp_conn *kick;     /* connections with buffered bytes to parse */
	struct nvmf_tcp_conn *dirty;    /* connections with PDUs to send this pass */
	struct nvmf_tcp_conn *reap;     /* dead and released: freed at the next pass */
	struct nvmf_tcp_conn *zc_drain; /* dead and released, but the kernel still holds
					    * zero-copy sends of theirs (zerocopy.c) */
	struct nvmf_timer zc_timer;     /* looks at zc_drain while it is not empty */
	bool zc_timer_on;
	uint64_t accept_resume_ms; /* main group: resting listeners go back into the
					    * epoll set at this time (pg->now_ms); 0: none rests */
	struct nvmf_tcp_buf_cache cache[NVMF_TCP_BUF_CLASSES];
	/* Published at the end of each pass for pg_stats (atomic). */
	uint32_t nconns, ndying, bufs_pub;
	uint32_t bufs_held; /* data buffers commands hold now (the group's) */
};

/* ---- tls.c ---- */
/* nvmf_tcp_tls_readable - advance @conn's secure channel set-up (tls_phase SNIFF or
 * HANDSHAKE) on a socket event; kills the connection (logged) when refused. Returns
 * work done; the phase is NONE or UP once the connection may read PDUs. */
int nvmf_tcp_tls_readable(struct nvmf_tcp_conn *conn);
/* nvmf_tcp_tls_recv - recv(MSG_DONTWAIT) through @conn's channel (conn->tls set): >0
 * bytes, 0 the host closed, -1 with errno (EAGAIN: nothing now); decrypted bytes the
 * channel still holds get the connection kicked. */
ssize_t nvmf_tcp_tls_recv(struct nvmf_tcp_conn *conn, void *buf, size_t len);

/* ---- poll-group.c ---- */
/* nvmf_tcp_buf_get - a buffer of >= @len bytes (NVMF_TCP_ALIGN aligned) from @tpg's
 * cache or the heap; *@cap gets its size. NULL when out of memory. */
void *nvmf_tcp_buf_get(struct nvmf_tcp_tpg *tpg, uint32_t len, uint32_t *cap);
/* nvmf_tcp_buf_put - give back @buf (not NULL: callers test whether they hold one), of
 * @cap bytes as nvmf_tcp_buf_get gave. */
void nvmf_tcp_buf_put(struct nvmf_tcp_tpg *tpg, void *buf, uint32_t cap);
/* nvmf_tcp_epoll_add / _mod - @fd in @tpg's epoll set for @ev (EPOLLIN, plus EPOLLOUT
 * when @out). 0 or -errno. */
int nvmf_tcp_epoll_add(struct nvmf_tcp_tpg *tpg, int fd, struct nvmf_tcp_ev *ev, bool out);
int nvmf_tcp_epoll_mod(struct nvmf_tcp_tpg *tpg, int fd, struct nvmf_tcp_ev *ev, bool out);
/* nvmf_tcp_conn_kick - parse @conn's buffered bytes in the next pass of its group. */
void nvmf_tcp_conn_kick(struct nvmf_tcp_conn *conn);
/* nvmf_tcp_tx_queue - append @tx to @conn's send list; sent at the end of the pass (or
 * by queue_response once the list holds NVMF_TCP_TX_EARLY_BYTES). */
void nvmf_tcp_tx_queue(struct nvmf_tcp_conn *conn, struct nvmf_tcp_tx *tx);
/* nvmf_tcp_conn_flush - send what @conn's send list holds until the socket takes no
 * more (then EPOLLOUT is asked for). Returns 0, or -errno when the connection broke. */
int nvmf_tcp_conn_flush(struct nvmf_tcp_conn *conn);
struct nvmf_tpg *nvmf_tcp_pg_create(struct nvmf_transport *t, struct nvmf_pg *pg, char *err,
				    size_t errlen);
void nvmf_tcp_pg_destroy(struct nvmf_tpg *tpg);
int nvmf_tcp_pg_poll(struct nvmf_tpg *tpg);
void nvmf_tcp_pg_flush(struct nvmf_tpg *tpg);
void nvmf_tcp_pg_stats(const struct nvmf_tpg *tpg, struct nvmf_tpg_stats *out);

/* ---- transport.c ---- */
/* nvmf_tcp_accept - accept every pending connection of @l (main group). Returns how many. */
int nvmf_tcp_accept(struct nvmf_tcp_tpg *tpg, struct nvmf_tcp_listener *l);
/* nvmf_tcp_accept_resume - put the listeners that rest (accept failed) back into the main
 * group's epoll set once its accept_resume_ms has come. */
void nvmf_tcp_accept_resume(struct nvmf_tcp_tpg *tpg);
/* nvmf_tcp_pending_expire - close connections of the main group that did not finish
 * their handshake within NVMF_TCP_HANDSHAKE_MS. */
void nvmf_tcp_pending_expire(struct nvmf_tcp_tpg *tpg);
/* nvmf_tcp_handoff - @conn's first CapsuleCmd header is in its buffer: leave the main
 * group's pending list and hand it to the core for queue @qid. */
void nvmf_tcp_handoff(struct nvmf_tcp_conn *conn);

/* ---- conn.c ---- */
/* nvmf_tcp_conn_alloc - a connection of @t on socket @fd (taken over: closed with it),
 * for @port, in the ICREQ state, owned by @tpg (the main group's part). NULL when out of
 * memory (@fd is then the caller's). */
struct nvmf_tcp_conn *nvmf_tcp_conn_alloc(struct nvmf_tcp_transport *t, struct nvmf_tcp_tpg *tpg,
					  int fd, struct nvmf_port *port);
/* nvmf_tcp_conn_free - close the socket and free everything of @conn. */
void nvmf_tcp_conn_free(struct nvmf_tcp_conn *conn);
/* nvmf_tcp_conn_set_queue - size @conn for queue @qid (requests, receive limits). 0 or
 * -ENOMEM. */
int nvmf_tcp_conn_set_queue(struct nvmf_tcp_conn *conn, uint16_t qid);
/* nvmf_tcp_conn_readable - receive what the socket holds and handle every whole PDU.
 * Returns the PDUs handled (work), 0 when none. May kill the connection; *@gone is set
 * when it was handed to the core (then another group may own it: not to be touched). */
int nvmf_tcp_conn_readable(struct nvmf_tcp_conn *conn, bool *gone);
/* nvmf_tcp_conn_parse - handle every whole PDU buffered in @conn (same contract). */
int nvmf_tcp_conn_parse(struct nvmf_tcp_conn *conn, bool *gone);
/* nvmf_tcp_unlink - take @conn out of the singly linked list at *@pp whose link is the
 * member at @link_off (no-op when absent). */
void nvmf_tcp_unlink(struct nvmf_tcp_conn **pp, struct nvmf_tcp_conn *conn, size_t link_off);
/* nvmf_tcp_conn_reap - @conn (dead) is to be freed at the start of its group's next
 * pass, when no event of this pass can point at it any more. */
void nvmf_tcp_conn_reap(struct nvmf_tcp_conn *conn);
/* nvmf_tcp_conn_fatal - a protocol error: send a C2HTermReq with @fes and @fei (host
 * endian) carrying the offending header @hdr (@hdr_len bytes, cut at 152), then tear the
 * connection down. */
void nvmf_tcp_conn_fatal(struct nvmf_tcp_conn *conn, enum nvme_tcp_fes fes, uint32_t fei,
			 const void *hdr, uint32_t hdr_len);
/* nvmf_tcp_conn_kill - tear @conn down (@why logged at @level with the host's address
 * and the queue, NULL: quietly): no more receiving; a live queue goes to the core
 * (nvmf_sq_destroy), which releases it later; a connection not handed over is freed at
 * once. Idempotent. */
void nvmf_tcp_conn_kill(struct nvmf_tcp_conn *conn, enum nvmf_log_level level, const char *why);

/* ---- zerocopy.c (MSG_ZEROCOPY, Linux Documentation/networking/msg_zerocopy.rst) ---- */
/* nvmf_tcp_zc_setup - after nvmf_tcp_conn_set_queue: turn zero-copy sends on for @conn
 * when its port's nvmf_zerocopy_threshold is not 0 and the socket takes SO_ZEROCOPY
 * (else they stay off, silently: sends copy as before). -ENOMEM when the ring cannot
 * be had. */
int nvmf_tcp_zc_setup(struct nvmf_tcp_conn *conn);
/* nvmf_tcp_zc_room - a zero-copy send may be made now (on, and a free slot). */
bool nvmf_tcp_zc_room(const struct nvmf_tcp_conn *conn);
/* nvmf_tcp_zc_sent - a sendmsg with MSG_ZEROCOPY took bytes from @r's buffer: it holds
 * @r until the kernel's notification for it. */
void nvmf_tcp_zc_sent(struct nvmf_tcp_conn *conn, struct nvmf_tcp_req *r);
/* nvmf_tcp_zc_complete - the kernel let go of sends @lo..@hi (inclusive, its 32-bit
 * numbering, may wrap); @copied: it copied them (SO_EE_CODE_ZEROCOPY_COPIED), so no
 * more are made on @conn. Commands whose last send this was and whose answer left are
 * released. Ids outside the ring are ignored. */
void nvmf_tcp_zc_complete(struct nvmf_tcp_conn *conn, uint32_t lo, uint32_t hi, bool copied);
/* nvmf_tcp_zc_reap - read @conn's socket error queue for zero-copy notifications (each
 * to nvmf_tcp_zc_complete). Returns how many were read. */
int nvmf_tcp_zc_reap(struct nvmf_tcp_conn *conn);
/* nvmf_tcp_zc_park - @conn is dead and released but the kernel holds sends of its:
 * keep it (socket open, shut down) on its group's zc_drain list until they come back
 * or NVMF_TCP_ZC_DRAIN_MS pass; then it is reset and freed. */
void nvmf_tcp_zc_park(struct nvmf_tcp_conn *conn);
/* nvmf_tcp_zc_drain_all - the group ends: reset and free every parked connection. */
void nvmf_tcp_zc_drain_all(struct nvmf_tcp_tpg *tpg);

/* ---- request.c ---- */
/* nvmf_tcp_capsule - a whole CapsuleCmd PDU at @pdu (header digest checked): start the
 * command. @data/@dlen: its in-capsule data (@dlen 0: none); @ddgst_ok: its data digest
 * matched. */
void nvmf_tcp_capsule(struct nvmf_tcp_conn *conn, const struct nvme_tcp_cmd *pdu,
		      const uint8_t *data, uint32_t dlen, bool ddgst_ok);
/* nvmf_tcp_h2c_check - the H2CData header at @pdu (@dlen data bytes) against its command
 * and R2T (TCP transport 1.0 section 3.6.2.9): its request, or NULL when the connection
 * was terminated (bad ttag, cccid, length or offset; C2HTermReq sent). */
struct nvmf_tcp_req *nvmf_tcp_h2c_check(struct nvmf_tcp_conn *conn, const struct nvme_tcp_data *pdu,
					uint32_t dlen);
/* nvmf_tcp_h2c_arrived - @datal bytes of @r's data are in its buffer (at the offset its
 * checked header gave); @ddgst_ok: their digest matched. Asks for more or executes. */
void nvmf_tcp_h2c_arrived(struct nvmf_tcp_conn *conn, struct nvmf_tcp_req *r, uint32_t datal,
			  bool ddgst_ok);
/* nvmf_tcp_req_release - @r is done (its last PDU left or was dropped, or it is
 * abandoned): buffer back, slot free; or, while the kernel holds zero-copy sends of its
 * buffer (zc_refs), marked so that nvmf_tcp_zc_complete releases it when they return. */
void nvmf_tcp_req_release(struct nvmf_tcp_req *r);
/* nvmf_tcp_conn_drop_reqs - the connection is dying: commands waiting for write data are
 * abandoned to the core, queued PDUs dropped and their commands released. */
void nvmf_tcp_conn_drop_reqs(struct nvmf_tcp_conn *conn);
void nvmf_tcp_queue_response(struct nvmf_req *req);
/* nvmf_tcp_pdu_build - finish the PDU of @type in @tx whose type-specific header fields
 * the caller wrote in @tx->hdr: the common header (@flags plus the digest flags, HLEN,
 * PDO for @conn's HPDA, PLEN), the header digest when negotiated and @type has one,
 * zero padding up to PDO, and @dlen bytes of data at @data with their digest when
 * negotiated. */
void nvmf_tcp_pdu_build(struct nvmf_tcp_conn *conn, struct nvmf_tcp_tx *tx, uint8_t type,
			uint8_t flags, const void *data, uint32_t dlen);

#endif
