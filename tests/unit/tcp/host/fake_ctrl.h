/* A scripted NVMe/TCP controller for the host transport's unit tests: a thread listening
 * on 127.0.0.1 (or ::1), which accepts one connection and runs a script with blocking
 * helpers that read the host's PDUs and send whatever the test wants (well-formed PDUs,
 * or broken ones). Everything the script saw is left in the struct for the test to assert
 * on after fc_join. Every read is bounded (5 s): a broken host fails the test, never hangs it. */
#ifndef NVMF_TESTS_FAKE_TCP_CTRL_H
#define NVMF_TESTS_FAKE_TCP_CTRL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "initiator/internal.h"
#include "nvme/tcp.h"
#include "tcp/host/host.h"

struct fake_ctrl;
typedef void (*fc_script)(struct fake_ctrl *f);

/* One PDU received from the host, whole (malloc'd in @raw). */
struct fc_pdu {
	uint8_t *raw;
	uint32_t plen;
	struct nvme_tcp_ch ch;
	uint8_t *data; /* NULL when none */
	uint32_t data_len;
	bool hdgst_ok, ddgst_ok; /* digests as received match (true when absent) */
};

struct fake_ctrl {
	int lfd, fd;
	char port[8];
	pthread_t th;
	bool started;
	fc_script script;
	void *arg; /* the test's own state */
	/* What the connection uses after ICResp (set by the test before fc_start). */
	bool hdgst, ddgst;
	uint8_t cpda;
	uint32_t maxh2cdata; /* 0: 131072 */
	/* Recorded by the helpers. */
	struct nvme_tcp_icreq icreq;
	bool icreq_ok;
	int errors;    /* a helper failed (read timeout, EOF, ...) */
	char why[256]; /* the first failure */
};

/* fc_start - listen on @addr ("127.0.0.1" or "::1") port 0 and run @script on the
 * connection in a thread. 0 or -errno. */
int fc_start(struct fake_ctrl *f, const char *addr, fc_script script);
/* fc_join - wait for the script to end; close the sockets. */
void fc_join(struct fake_ctrl *f);

/* Blocking helpers for scripts; each returns 0, or -1 after recording why. */
int fc_read(struct fake_ctrl *f, void *buf, size_t len);
int fc_write(struct fake_ctrl *f, const void *buf, size_t len);
/* fc_icreq - read the ICReq (kept in f->icreq) and answer with @resp, or with the default
 * ICResp (PFV 0, f->cpda, f->hdgst/ddgst, f->maxh2cdata) when @resp is NULL. */
int fc_icreq(struct fake_ctrl *f, const struct nvme_tcp_icresp *resp);
void fc_default_icresp(const struct fake_ctrl *f, struct nvme_tcp_icresp *r);
/* fc_read_pdu - one whole PDU from the host (free with fc_pdu_free). */
int fc_read_pdu(struct fake_ctrl *f, struct fc_pdu *p);
void fc_pdu_free(struct fc_pdu *p);
/* fc_eof - whether the host closed the connection (reads until EOF, 5 s at most). */
bool fc_eof(struct fake_ctrl *f);

/* Sending PDUs with the connection's digests. FC_BAD_* corrupt what they name. */
#define FC_BAD_HDGST 0x100u
#define FC_BAD_DDGST 0x200u
int fc_send_rsp(struct fake_ctrl *f, uint16_t cid, uint16_t status, unsigned bad);
/* @flags: NVME_TCP_F_DATA_LAST / _SUCCESS; @datal: the DATAL field (normally @len). */
int fc_send_c2h(struct fake_ctrl *f, uint16_t cid, uint32_t datao, const void *data, uint32_t len,
		uint32_t datal, unsigned flags);
int fc_send_r2t(struct fake_ctrl *f, uint16_t cid, uint16_t ttag, uint32_t off, uint32_t len);
int fc_send_term(struct fake_ctrl *f, uint16_t fes, uint32_t fei);
/* fc_read_h2c - read H2CData PDUs for @cid / @ttag into @buf (@buflen bytes) until one
 * with LAST; each must carry at most @max bytes, at increasing offsets. Returns the number
 * of PDUs, or -1. */
int fc_read_h2c(struct fake_ctrl *f, uint16_t cid, uint16_t ttag, uint8_t *buf, uint32_t buflen,
		uint32_t max);

/* The host side of a test: one queue of the core with the TCP transport. */
struct th_host {
	struct nvmf_ctrl ctrl;
	struct nvmf_queue q;
};
struct th_result {
	bool done;
	int status;
	struct nvme_cqe cqe;
};
/* th_connect - set up @qid (32 entries) and connect to @f; 0 or -errno (@err). */
int th_connect(struct th_host *h, struct fake_ctrl *f, const char *addr, uint16_t qid, char *err,
	       size_t errlen);
/* th_attach - set up @qid (@size entries) on the connected stream socket @fd (taken), as
 * th_connect does but through nvmf_th_queue_attach: no listener and no thread, the
 * caller plays the controller on the other end (a socketpair), ICResp included, which
 * must already be written (@timeout_ms bounds the wait for it). 0 or -errno (@err). */
int th_attach(struct th_host *h, int fd, uint16_t qid, uint16_t size, bool hdgst, bool ddgst,
	      int timeout_ms, char *err, size_t errlen);
/* th_submit - a command with opcode @opc (write when bit 0 set) on @buf/@len. */
int th_submit(struct th_host *h, uint8_t opc, void *buf, uint32_t len, struct th_result *r,
	      uint16_t *cid);
/* th_wait - poll until @r is done or the queue fails (5 s at most); the poll's last rc. */
int th_wait(struct th_host *h, struct th_result *r);
/* th_queue - the transport's queue state (NULL after disconnect). */
struct nvmf_th_queue *th_queue(struct th_host *h);
void th_close(struct th_host *h);

/* Fill @buf with a pattern from @seed. */
void fc_pattern(void *buf, size_t len, unsigned seed);

#endif
