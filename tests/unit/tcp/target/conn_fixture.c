/* Bad-PDU tests of the NVMe/TCP target: shared steps (see conn_fixture.h). */
#include "tests/unit/suites.h"
#include "tests/unit/tcp/target/conn_fixture.h"

/* The next PDU is a C2HTermReq with @fes and @fei, and the connection then closes. */
void expect_term(struct ttc *c, uint16_t fes, uint32_t fei)
{
	uint16_t got_fes = 0;
	uint32_t got_fei = 0;
	CU_ASSERT_EQUAL_FATAL(tt_term(c, &got_fes, &got_fei), 0);
	CU_ASSERT_EQUAL(got_fes, fes);
	CU_ASSERT_EQUAL(got_fei, fei);
	CU_ASSERT_TRUE(tt_closed(c));
}

int boot_and_dial(struct tt *t, struct ttc *c, uint32_t maxh2cdata)
{
	return tt_boot(t, "127.0.0.1", 8192, maxh2cdata) || tt_dial(t, c) ? -1 : 0;
}

/* An I/O queue on a controller, as transport_test.c does it. */
int io_queue(struct tt *t, struct ttc *a, struct ttc *q, uint8_t dgst)
{
	uint16_t cntlid;
	if (tt_handshake(a, 0, 0, NULL) || tt_connect(a, TT_SUBNQN, 0, 0xffff, &cntlid) ||
	    tt_enable(a))
		return -1;
	if (tt_dial(t, q) || tt_handshake(q, 0, dgst, NULL))
		return -1;
	return tt_connect(q, TT_SUBNQN, 1, cntlid, NULL) == 0 ? 0 : -1;
}
