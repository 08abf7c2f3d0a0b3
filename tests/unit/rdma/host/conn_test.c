/* RDMA host transport connect (rdma/host/conn.c): arguments refused before any RDMA call,
 * so these run on a machine without a device. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "rdma/host/host.h"
#include "tests/unit/suites.h"

static int try_connect(const char *traddr, const char *trsvcid, uint16_t size, char *err,
		       size_t len)
{
	struct nvmf_hq hq = { .t = &nvmf_rdma_host_transport };
	struct nvmf_ctrl_opts o = { .traddr = traddr, .trsvcid = trsvcid };
	err[0] = 0;
	int rc = nvmf_rdma_host_transport.queue_connect(&hq, &o, 1, size, err, len);
	CU_ASSERT_PTR_NULL(hq.tpriv); /* nothing left behind */
	return rc;
}

static void queue_of_fewer_than_2_entries_is_einval(void)
{
	char err[200];
	CU_ASSERT_EQUAL(try_connect("10.0.0.1", NULL, 1, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "queue 1: size 1: a queue has at least 2 entries");
	CU_ASSERT_EQUAL(try_connect("10.0.0.1", NULL, 0, err, sizeof(err)), -EINVAL);
}

static void hostname_traddr_is_einval_before_any_rdma_call(void)
{
	char err[200];
	CU_ASSERT_EQUAL(try_connect("target.example", "4420", 32, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "traddr 'target.example': not a numeric IPv4 or IPv6 address");
}

static void bad_trsvcid_is_einval_before_any_rdma_call(void)
{
	char err[200];
	CU_ASSERT_EQUAL(try_connect("10.0.0.1", "nvme", 32, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "trsvcid 'nvme': not a port number (1-65535)");
}

static void disconnect_of_a_queue_never_connected_is_harmless(void)
{
	struct nvmf_hq hq = { .t = &nvmf_rdma_host_transport };
	nvmf_rdma_host_transport.queue_disconnect(&hq);
	nvmf_rdma_host_transport.queue_disconnect(&hq);
	CU_ASSERT_PTR_NULL(hq.tpriv);
}

const struct unit_test rdma_host_conn_tests[] = {
	{ "queue_of_fewer_than_2_entries_is_einval", queue_of_fewer_than_2_entries_is_einval },
	{ "hostname_traddr_is_einval_before_any_rdma_call",
	  hostname_traddr_is_einval_before_any_rdma_call },
	{ "bad_trsvcid_is_einval_before_any_rdma_call",
	  bad_trsvcid_is_einval_before_any_rdma_call },
	{ "disconnect_of_a_queue_never_connected_is_harmless",
	  disconnect_of_a_queue_never_connected_is_harmless },
	{ NULL, NULL },
};
