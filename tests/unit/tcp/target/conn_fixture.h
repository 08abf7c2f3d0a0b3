/* The NVMe/TCP target's bad-PDU tests (tests/unit/tcp/target/conn_test.c, request_test.c):
 * the steps they share over the loopback fixture (tests/unit/tcp/fixture.h). */
#ifndef NVMF_TESTS_UNIT_TCP_TARGET_CONN_FIXTURE_H
#define NVMF_TESTS_UNIT_TCP_TARGET_CONN_FIXTURE_H
#include <stdint.h>
#include "tests/unit/tcp/fixture.h"

/* expect_term - the next PDU on @c is a C2HTermReq with @fes and @fei, and the connection
 * then closes (CUnit assertions). */
void expect_term(struct ttc *c, uint16_t fes, uint32_t fei);
/* boot_and_dial - a target on 127.0.0.1 (8 KiB in capsule, @maxh2cdata; 0: default) and
 * @c connected to it, before ICReq. 0 or -1. */
int boot_and_dial(struct tt *t, struct ttc *c, uint32_t maxh2cdata);
/* io_queue - on @a (dialed): an admin queue, a controller enabled; then @q dialed,
 * handshaken with digests @dgst and connected as its I/O queue 1. 0 or -1. */
int io_queue(struct tt *t, struct ttc *a, struct ttc *q, uint8_t dgst);

#endif
