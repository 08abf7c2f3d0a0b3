/* The NVMe/TCP target under test over real sockets on the loopback: the core, the RAM
 * backend and the product tcp transport (tcp/target/), built through the config model and
 * nvmf_tgt_init, in driven mode (the test thread runs the main poll group, which serves
 * every queue: nvmf_target.threads is 1). The test is the host: it writes raw PDUs on a
 * plain socket and reads the target's PDUs back, running the target while it waits. */
#ifndef NVMF_TESTS_UNIT_TCP_FIXTURE_H
#define NVMF_TESTS_UNIT_TCP_FIXTURE_H
#include <stdbool.h>
#include <stdint.h>
#include "nvme/tcp.h"
#include "target/core.h"

#define TT_SUBNQN  "nqn.2026-11.io.nvmf-rdma:tcp1"
#define TT_HOSTNQN "nqn.2026-11.io.nvmf-rdma:tcphost"
#define TT_PDU_MAX (2u << 20) /* bytes of the largest PDU a test reads */

struct nvmf_tcp_tpg;

struct tt {
	struct nvmf_config cfg;
	struct nvmf_tgt tgt;
	uint16_t port; /* the listener's port number (kernel-chosen) */
};

/* One host connection (one queue). */
struct ttc {
	struct tt *t;
	int fd;
	bool hd, dd;  /* digests negotiated */
	uint8_t hpda; /* the alignment we asked the target for */
	uint16_t next_cid;
	bool connect_r2t;    /* tt_connect sends its data through R2T/H2CData (a
				    * port without in-capsule data on I/O queues) */
	uint8_t cattr;       /* CATTR of tt_connect's Connect (set after tt_dial) */
	struct nvme_cqe cqe; /* the CQE of the last CapsuleResp tt_connect or
				    * tt_read_data read */
	bool success;        /* tt_read_data's last read ended with a C2HData with
				    * SUCCESS (and LAST_PDU): no CapsuleResp was read */
};

/* tt_boot - a target with TT_SUBNQN (any host) holding namespace 1 (RAM, 1 MiB, 512 B
 * blocks), exposed on tcp port 1 listening on @traddr (IPv4) port 0 (the kernel picks:
 * written back into the port's trsvcid), in-capsule data @inline_size bytes on I/O
 * queues, MAXH2CDATA @maxh2cdata (0: default). 0 or -1. */
int tt_boot(struct tt *t, const char *traddr, uint32_t inline_size, uint32_t maxh2cdata);
/* tt_boot_zc - tt_boot with the port's nvmf_zerocopy_threshold @zc (bytes; 0: never;
 * tt_boot takes the default). */
int tt_boot_zc(struct tt *t, const char *traddr, uint32_t inline_size, uint32_t maxh2cdata,
	       uint32_t zc);
/* tt_main_tpg - the tcp transport's part of the main poll group (listeners, and with
 * nvmf_target.threads 1 every connection). */
struct nvmf_tcp_tpg *tt_main_tpg(struct tt *t);
/* tt_two_queues - an admin queue (enabled) on @a and I/O queue 1 on @q of the same
 * controller, whose id goes to *@cntlid; no digests. 0 or -1. */
int tt_two_queues(struct tt *t, struct ttc *a, struct ttc *q, uint16_t *cntlid);
void tt_teardown(struct tt *t);
/* tt_drive - run the target's passes until one finds no work (at most 64). */
void tt_drive(struct tt *t);

/* tt_dial - a TCP connection to the target (nothing sent). 0 or -1. */
int tt_dial(struct tt *t, struct ttc *c);
/* tt_dial_rcvbuf - the same with the host's receive buffer set to @rcvbuf bytes
 * (SO_RCVBUF, which the kernel doubles; 0: the system's default): a host that does not
 * read then leaves the target's answers unacknowledged in its send queue. */
int tt_dial_rcvbuf(struct tt *t, struct ttc *c, int rcvbuf);
void tt_close(struct ttc *c);
/* tt_send - @len raw bytes. 0 or -1. */
int tt_send(struct ttc *c, const void *buf, size_t len);
/* tt_recv_pdu - the next whole PDU (at most @cap bytes) into @buf, running the target
 * while waiting (10 s at most). Returns its length, 0 when the target closed the
 * connection first, -1 on error or timeout. */
int tt_recv_pdu(struct ttc *c, void *buf, size_t cap);
/* tt_closed - the target closed the connection: EOF after whatever was pending, running
 * the target while waiting (10 s at most). */
bool tt_closed(struct ttc *c);

/* tt_icreq - send an ICReq (@pfv, @hpda, @dgst as given). */
int tt_icreq(struct ttc *c, uint16_t pfv, uint8_t hpda, uint8_t dgst);
/* tt_handshake - ICReq asking @dgst digests and alignment @hpda, then the ICResp
 * checked (type, PFV 0, CPDA 0, the digests); *@maxh2cdata gets its MAXH2CDATA (may be
 * NULL). 0 or -1. */
int tt_handshake(struct ttc *c, uint8_t hpda, uint8_t dgst, uint32_t *maxh2cdata);
/* tt_capsule - send a CapsuleCmd with @sqe and @dlen bytes of in-capsule data, digests
 * as negotiated; @bad_hdgst/@bad_ddgst corrupt the digest sent. */
int tt_capsule(struct ttc *c, const struct nvme_sqe *sqe, const void *data, uint32_t dlen,
	       bool bad_hdgst, bool bad_ddgst);
/* tt_h2c_pdu - an H2CData PDU for @cccid/@ttag at @datao with @dlen bytes, digests as
 * negotiated (@bad_ddgst corrupts the data digest): malloc'd, *@plen bytes; NULL when out
 * of memory. */
uint8_t *tt_h2c_pdu(struct ttc *c, uint16_t cccid, uint16_t ttag, uint32_t datao, const void *data,
		    uint32_t dlen, bool last, bool bad_ddgst, uint32_t *plen);
/* tt_h2c_data - send an H2CData PDU for @cccid/@ttag at @datao with @dlen bytes. */
int tt_h2c_data(struct ttc *c, uint16_t cccid, uint16_t ttag, uint32_t datao, const void *data,
		uint32_t dlen, bool last);

/* tt_sqe_* - SQEs as a Linux host builds them: PSDT SGL, a command id, the data pointer
 * in-capsule (0x01, offset 0) or transport (0x5A) with @len bytes. */
void tt_sqe(struct ttc *c, struct nvme_sqe *sqe, uint8_t opcode, bool incapsule, uint32_t len);
/* tt_rw_sqe - a Read or Write of namespace 1: @blocks 512-byte blocks (1's based) at @slba,
 * data in the capsule or through the transport (R2T / C2HData). */
void tt_rw_sqe(struct ttc *c, struct nvme_sqe *sqe, uint8_t opcode, bool incapsule, uint64_t slba,
	       uint32_t blocks);
/* tt_connect - Fabrics Connect for queue @qid (in-capsule data: 1024 bytes), cntlid
 * @cntlid (0xffff: dynamic); returns the CQE status (SC+SCT) and *@cntlid_out, or -1. */
int tt_connect(struct ttc *c, const char *subnqn, uint16_t qid, uint16_t cntlid,
	       uint16_t *cntlid_out);
/* tt_enable - Property Set CC.EN = 1 on the admin connection. Status or -1. */
int tt_enable(struct ttc *c);
/* tt_rsp - read the next PDU, which must be a CapsuleResp (digest checked): its CQE into
 * @cqe. Status (CQE status >> 1) or -1. */
int tt_rsp(struct ttc *c, struct nvme_cqe *cqe);
/* tt_read_data - read C2HData PDUs into @buf (@len bytes expected, digests checked) and
 * then the CapsuleResp, unless the last C2HData had SUCCESS (c->success; SUCCESS without
 * LAST_PDU, or before the last byte, is -1). Status or -1. */
int tt_read_data(struct ttc *c, void *buf, uint32_t len);
/* tt_term - read the next PDU, which must be a C2HTermReq; its FES and FEI out. 0 or -1. */
int tt_term(struct ttc *c, uint16_t *fes, uint32_t *fei);

#endif
