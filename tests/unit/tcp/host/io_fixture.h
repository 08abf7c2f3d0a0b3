/* The NVMe/TCP host transport's data-path tests (tests/unit/tcp/host/io_test.c, rx_test.c,
 * tx_test.c): a scripted controller's case record and the steps its scripts share. */
#ifndef NVMF_TESTS_UNIT_TCP_HOST_IO_FIXTURE_H
#define NVMF_TESTS_UNIT_TCP_HOST_IO_FIXTURE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tests/unit/tcp/host/fake_ctrl.h"

#define OPC_WRITE 0x01
#define OPC_READ  0x02

/* What a script knows and records. */
struct io_case {
	uint8_t *data; /* the controller's copy of the namespace bytes */
	uint32_t len;
	int step; /* which bad PDU (error cases) */
	/* recorded */
	uint8_t sgl_type[4];
	uint32_t sgl_len[4];
	uint32_t icd_len[4]; /* in-capsule bytes of each capsule */
	bool icd_ok[4];      /* in-capsule data equal to data */
	bool digests_ok;
	int h2c_pdus[4];
	bool h2c_ok;
	uint16_t term_fes; /* H2CTermReq the host sent, 0 when none */
	uint32_t term_fei;
	bool eof;
};

/* read_capsule - read one CapsuleCmd into capsule record @i of f->arg (a struct io_case):
 * its SGL, in-capsule length, whether that data equals c->data, digests; 0 with *cid or
 * -1. */
int read_capsule(struct fake_ctrl *f, int i, uint16_t *cid);
/* read_term - after a bad PDU: the host's H2CTermReq (FES, FEI) if any, then its close. */
void read_term(struct fake_ctrl *f);
/* connect_host - run script @s on @f with @c as its record and connect queue @qid to it;
 * the host (one static instance), or NULL. */
struct th_host *connect_host(struct fake_ctrl *f, struct io_case *c, fc_script s, uint16_t qid);
/* attach_pair - queue @qid (@size entries, no digests) attached to one end of a
 * socketpair, its ICReq read off the other end, which is left in *@peer for the test to
 * play the controller on, single-threaded. The host (calloc'd: free it after th_close),
 * or NULL. */
struct th_host *attach_pair(int *peer, uint16_t qid, uint16_t size);
/* drain_peer - append what @fd holds now (non-blocking reads) to @buf at *@len, @cap
 * bytes in all at most. */
void drain_peer(int fd, uint8_t *buf, size_t cap, size_t *len);

#endif
