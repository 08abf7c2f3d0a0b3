/* SPDX-License-Identifier: MIT */
/*
 * The host-side (initiator) NVMe/TCP transport of libnvmf: types shared by its files. Not
 * a public interface: the library core sees `nvmf_tcp_host_transport`
 * (initiator/transport.h) only. Wire formats and header checks are nvme/tcp.c's.
 *
 *   conn.c  queue_connect / queue_disconnect: TCP connect (non-blocking, bounded by the
 *           connect timeout), TCP_NODELAY, ICReq out, ICResp in and checked
 *   rx.c    the receive state machine: one PDU at a time out of the queue's receive
 *           buffer (CapsuleResp, C2HData, R2T, C2HTermReq), digests checked, read data
 *           copied into the command's buffer at DATAO, CQEs handed to the core
 *   tx.c    the send side: a FIFO of commands with something to send (their CapsuleCmd,
 *           or H2CData PDUs answering an R2T); up to NVMF_TH_TX_BATCH PDUs built ahead
 *           and written with one sendmsg on the non-blocking socket
 *   io.c    the transport ops: submit (queues only, but on the admin queue) / poll
 *           (writes what was queued, then reads) / wait / set_incapsule, memory no-ops
 *
 * One thread per queue (the core's rule): no locks here. Wire behaviour follows the NVMe
 * TCP Transport Specification 1.0 and what the Linux host (drivers/nvme/host/tcp.c) sends:
 * ICReq PFV 0, HPDA 0, MAXR2T 0; admin capsules carry up to 8 KiB of in-capsule data, I/O
 * capsules IOCCSZ * 16 - 64 bytes; other data is described by a Transport SGL (5Ah).
 */
#ifndef NVMF_TCP_HOST_H
#define NVMF_TCP_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include "initiator/transport.h"
#include "nvme/tcp.h"
#include "nvme/tls-psk.h"
#include "tls/channel.h"

#define NVMF_TH_DEFAULT_PORT    "4420"
#define NVMF_TH_CONNECT_TIMEOUT 10000      /* ms, TCP connect + ICResp, when opts give none */
#define NVMF_TH_ADMIN_INCAPSULE 8192u      /* bytes, as the Linux host (NVME_TCP_ADMIN_CCSZ) */
#define NVMF_TH_MAX_INCAPSULE   (1u << 20) /* bytes: cap on IOCCSZ * 16 - 64 */
#define NVMF_TH_RXBUF           65536u     /* bytes of the per-queue receive buffer */
#define NVMF_TH_DIRECT_MIN \
	4096u /* TLS: data left >= this is read straight
						 * into the command's buffer, not through rxbuf */
#define NVMF_TH_MAX_RX_DATA \
	(16u << 20) /* bytes one C2HData PDU may carry (the
						 * command's own length bounds it first) */
#define NVMF_TH_HDR_MAX \
	256u /* header + digest + padding (PDO <= 255),
						 * or a TermReq with its data (<= 176) */
#define NVMF_TH_ERR_MAX 256
#define NVMF_TH_TX_BATCH \
	32u /* PDUs built ahead and written with one
						 * sendmsg (3 iovecs each at most) */

/* Per command (indexed by command id, 0 .. size-1): the transport's view of it. */
struct nvmf_th_cmd {
	struct nvmf_hcmd *cmd;      /* NULL: no command with this id is outstanding */
	uint32_t rcvd;              /* read: bytes of C2HData received (the next DATAO) */
	uint32_t sent;              /* write: end of the data sent so far (in-capsule or R2T) */
	uint32_t r2t_off, r2t_left; /* the R2T being answered: next offset, bytes left */
	uint16_t ttag;              /* its transfer tag */
	bool incapsule;             /* the data went in the CapsuleCmd */
	bool capsule_out;           /* the CapsuleCmd was built (its bytes may still be queued) */
	bool data_err;              /* a data digest mismatch: fails with Data Transfer Error */
	bool in_txq;                /* waiting on q->txq */
	TAILQ_ENTRY(nvmf_th_cmd) link;
};

/* A PDU built and not yet wholly written: header (with digest and padding), data, data
 * digest. Only the oldest of the queue's ring (q->tx[q->tx_head]) can be partly written. */
struct nvmf_th_txpdu {
	bool dropped;              /* its command ended before a byte of it went out: skipped */
	struct nvmf_th_cmd *owner; /* whose data @data points at; NULL when owned here */
	uint8_t hdr[NVMF_TH_HDR_MAX];
	uint32_t hdr_len; /* bytes of @hdr to send */
	const uint8_t *data;
	uint32_t data_len;
	uint8_t ddgst[NVME_TCP_DIGEST_LEN];
	uint32_t ddgst_len; /* 0 or 4 */
	uint32_t off;       /* bytes of the PDU written so far */
	void *copy;         /* the data, copied when its command ended mid-PDU */
};

enum nvmf_th_rx_phase {
	NVMF_TH_RX_HDR,   /* the common header, then the rest up to PDO or PLEN */
	NVMF_TH_RX_DATA,  /* C2HData payload into the command's buffer */
	NVMF_TH_RX_DDGST, /* its data digest */
};

struct nvmf_th_queue {
	struct nvmf_hq *hq;
	int fd;               /* non-blocking TCP socket, -1 when none */
	struct nvmf_tls *tls; /* its secure channel (tls.c); NULL: plain */
	uint16_t qid, size;
	bool dead;                 /* connection error: nothing more moves */
	char peer[80];             /* "127.0.0.1:4420" or "[::1]:4420", for messages */
	char err[NVMF_TH_ERR_MAX]; /* what killed the queue ("" while alive) */

	/* Negotiated in ICReq/ICResp. */
	struct nvme_tcp_conn_params rxp; /* what we accept (rx_is_ctrl false, rx_pda = HPDA 0) */
	bool ic_done;                    /* ICResp received and accepted */
	int ic_rc;                       /* set with ic_done or on a refusal: 0 or -errno */
	uint8_t cpda;                    /* the controller's alignment for our H2C data */
	uint32_t maxh2cdata;             /* bytes per H2CData PDU */
	uint32_t incapsule;              /* bytes a write may carry in its CapsuleCmd */

	struct nvmf_th_cmd *cmds; /* @size of them */
	TAILQ_HEAD(, nvmf_th_cmd) txq;
	struct nvmf_th_txpdu tx[NVMF_TH_TX_BATCH]; /* ring of PDUs built, oldest first */
	unsigned tx_head, tx_count;                /* oldest's index, PDUs in the ring */

	/* Receive side. */
	uint8_t *rxbuf; /* NVMF_TH_RXBUF bytes; [rx_off, rx_len) not yet consumed */
	uint32_t rx_off, rx_len;
	enum nvmf_th_rx_phase phase;
	uint8_t hdr[NVMF_TH_HDR_MAX];
	uint32_t hdr_have, hdr_need;
	struct nvmf_th_cmd *rx_cmd; /* C2HData: the command the data is for */
	uint8_t rx_flags;           /* C2HData: its flags (LAST, SUCCESS) */
	uint16_t rx_cid;
	uint32_t data_left;
	uint8_t *data_dst;
	uint32_t crc; /* running CRC32C of the data (ddgst) */
	uint8_t dd[NVME_TCP_DIGEST_LEN];
	uint32_t dd_have;
	unsigned completions; /* CQEs handed to the core in this poll */
};

/* ---- tls.c ---- */
/* nvmf_th_tls_start - the TLS 1.3 secure channel on @q's connected socket with
 * opts->tls_key, within @deadline (ms of nvmf_mono_ms). 0, or -errno with q->err set:
 * -EINVAL a key or NQN the PSK cannot be derived from, -EKEYREJECTED the controller
 * refused our PSK, -ECONNREFUSED it closed on the handshake, -ETIMEDOUT, -EPROTO. */
int nvmf_th_tls_start(struct nvmf_th_queue *q, const struct nvmf_ctrl_opts *opts, int64_t deadline);
/* nvmf_th_recv / nvmf_th_sendv - recv(MSG_DONTWAIT) and sendmsg(MSG_DONTWAIT) on @q,
 * through its channel when it has one: bytes, 0 (recv: closed), or -1 with errno. */
ssize_t nvmf_th_recv(struct nvmf_th_queue *q, void *buf, size_t len);
ssize_t nvmf_th_sendv(struct nvmf_th_queue *q, struct iovec *iov, int n);
/* nvmf_th_recvv - recvmsg(MSG_DONTWAIT) into @n iovecs on @q's plain socket: bytes, 0
 * (closed), or -1 with errno (EINVAL on a queue with a TLS channel). */
ssize_t nvmf_th_recvv(struct nvmf_th_queue *q, struct iovec *iov, int n);

/* ---- conn.c ---- */
int nvmf_th_queue_connect(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			  uint16_t size, char *err, size_t errlen);
/*
 * nvmf_th_queue_attach - what nvmf_th_queue_connect does after the TCP connect, on a
 * stream socket @fd the caller connected (a test's socketpair, or a TCP socket): @fd is
 * taken (made non-blocking; closed on failure), the queue state set up for @qid/@size,
 * ICReq sent and ICResp awaited within opts->timeout_ms (NVMF_TH_CONNECT_TIMEOUT when 0).
 * The digests come from opts->hdr_digest/data_digest; the address fields are not read.
 * Returns 0, -EINVAL (size below 2), -ENOMEM, -ETIMEDOUT, -EPROTO (a bad ICResp),
 * -ECONNREFUSED (a C2HTermReq), -ECONNRESET; @err says which. The seam of the unit tests
 * and of tests/fuzz/fuzz_tcp_host.c, which feed the controller's side themselves.
 */
int nvmf_th_queue_attach(struct nvmf_hq *hq, const struct nvmf_ctrl_opts *opts, uint16_t qid,
			 uint16_t size, int fd, char *err, size_t errlen);
void nvmf_th_queue_disconnect(struct nvmf_hq *hq);

/* ---- rx.c ---- */
/*
 * nvmf_th_rx - read what the socket has and handle the PDUs in it (as many as one recv of
 * up to NVMF_TH_RXBUF bytes brought), until the socket has nothing more (EAGAIN, or a plain
 * socket's recv filled less than asked), @max CQEs were handed to the core (0: no limit) or
 * the queue died. Before ICResp (q->ic_done false) only ICResp or C2HTermReq are taken.
 * Returns 0, or -1 when the queue is dead (q->err says why; an H2CTermReq was sent when the
 * controller broke the protocol).
 */
int nvmf_th_rx(struct nvmf_th_queue *q, unsigned max);
/* nvmf_th_fail - kill @q with the message @fmt (kept in q->err, printed on stderr once).
 * Always returns -1. */
int nvmf_th_fail(struct nvmf_th_queue *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- tx.c ---- */
/* nvmf_th_tx_queue - put @c on the send FIFO (its CapsuleCmd, or its R2T's H2CData). */
void nvmf_th_tx_queue(struct nvmf_th_queue *q, struct nvmf_th_cmd *c);
/* nvmf_th_tx_flush - write queued PDUs until the socket takes no more: up to
 * NVMF_TH_TX_BATCH of them (CapsuleCmds of several commands, H2CData) built ahead and
 * handed to one sendmsg, again while the socket takes them whole. 0, or -1 when the
 * connection failed (q dead). */
int nvmf_th_tx_flush(struct nvmf_th_queue *q);
/* nvmf_th_tx_pending - whether anything waits to be written. */
bool nvmf_th_tx_pending(const struct nvmf_th_queue *q);
/* nvmf_th_tx_forget - @c ends (answered or failed): take it off the FIFO, drop its PDUs
 * built but not begun; a PDU of it already partly written keeps going from a copy of its
 * data (the stream must stay whole, and the caller may free the buffer). 0, or -1 (out
 * of memory: q dead). */
int nvmf_th_tx_forget(struct nvmf_th_queue *q, struct nvmf_th_cmd *c);
/* nvmf_th_send_term - best effort: an H2CTermReq with @fes/@fei carrying the first
 * @hlen bytes of the offending header @hdr, if no other PDU is half written. */
void nvmf_th_send_term(struct nvmf_th_queue *q, enum nvme_tcp_fes fes, uint32_t fei,
		       const void *hdr, uint32_t hlen);
/* nvmf_th_fes_str - "invalid header field", ... for messages. */
const char *nvmf_th_fes_str(unsigned fes);

#endif
