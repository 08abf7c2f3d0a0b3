/*
 * make path-trace: the functions of the target one command passes through, from the poll
 * pass that reaps its capsule's RECV completion to the post of its response SEND, for a
 * 4 KiB keyed write and a 4 KiB in-capsule write on the RDMA transport (the fake device
 * of tests/unit/rdma/, RAM namespace). Built with -finstrument-functions (TRACE=1):
 * every function entry while tracing is on is recorded with its call site, and
 * scripts/path-trace turns the addresses into the list of distinct functions, their
 * files and the calls that cross from one layer to another.
 *
 * Output, one line per recorded entry: "<path> <function address> <call site>" (hex).
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>
#include "tests/unit/rdma/fixture.h"

#define MAX_EVENTS 65536

/* The recorder's state: the one object of this tool. */
static struct trace {
	bool on;
	unsigned n;
	struct { void *fn, *site; } ev[MAX_EVENTS];
} tr;

void __cyg_profile_func_enter(void *fn, void *site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *fn, void *site) __attribute__((no_instrument_function));

void __cyg_profile_func_enter(void *fn, void *site)
{
	if (tr.on && tr.n < MAX_EVENTS) {
		tr.ev[tr.n].fn = fn;
		tr.ev[tr.n].site = site;
		tr.n++;
	}
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

/* Passes of the target (traced) and of the host (not) until @cid's response is read. */
static void trace_until_answered(struct rx *x, struct rxq *io, uint16_t cid, const char *name)
{
	tr.n = 0;
	for (int i = 0; i < 100 && rxq_status(io, cid) == RX_NO_RESPONSE; i++) {
		tr.on = true;
		rx_poll(x);
		tr.on = false;
		rx_host(x);
	}
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);
	for (unsigned i = 0; i < tr.n; i++)
		printf("%s %p %p\n", name, tr.ev[i].fn, tr.ev[i].site);
}

static void trace_writes(void)
{
	struct rx x;
	struct rxq *io = rx_setup_io(&x, NULL, 32, 32, 16);
	uint8_t *data = rx_host_alloc(&x, 4096);
	memset(data, 0x5a, 4096);
	/* One warm-up command each way, so that nothing first-time (pool caches, CQ set-up)
	 * shows up in the traced ones. */
	uint16_t cid = rxq_write(io, 0, data, 4096, NVME_SGL_KEYED_INV, NULL);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(io, cid), 0);   /* else the traces below would mislead */
	cid = rxq_write(io, 8, data, 4096, NVME_SGL_KEYED_INV, NULL);
	trace_until_answered(&x, io, cid, "keyed");
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 8 * 512, data, 4096), 0);
	rx_run(&x);   /* its SEND completion: not part of the next command's path */

	struct nvme_sqe c;
	rx_cmd_rw(&c, nvme_cmd_write, 16, 4096);
	rx_sgl_incapsule(&c, 0, 4096);
	cid = rxq_send(io, &c, data, 4096);
	trace_until_answered(&x, io, cid, "incapsule");
	CU_ASSERT_EQUAL(memcmp(rx_ns_data(&x) + 16 * 512, data, 4096), 0);
	rx_run(&x);
	rx_teardown(&x);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	CU_pSuite s = CU_add_suite("path_trace", NULL, NULL);
	if (!s || !CU_add_test(s, "trace_writes", trace_writes))
		return 2;
	CU_basic_set_mode(CU_BRM_SILENT);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	if (failed)
		fprintf(stderr, "path-trace: %u assertion(s) failed\n", failed);
	return failed ? 1 : 0;
}
