/* What the RDMA transport tells the core and the host (rdma/target/transport.c): the
 * local address of a queue's connection, from which the discovery controller fills a
 * wildcard port's TRADDR (NVMe-oF 1.1 figure 38); and its
 * answer to a CM connect request, on the fake CM: accepted with which depths, or rejected
 * with which NVMe/RDMA status. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/rdma/fixture.h"

/* The discovery log's TRADDR of a wildcard port is the address the host's connection
 * arrived at (ops->local_addr, from the queue's rdma_cm id); the fixture's queues have no
 * cm id, so the address is unknown (the core then leaves a wildcard port out). The rest of
 * the entry (trtype, RDMA's TSAS) is the core's: tests/unit/target/discovery_test.c. */
static void local_addr_of_a_queue_without_a_cm_id_is_unknown(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	struct rxq *a = rx_admin(&x);
	struct sockaddr_storage ss;
	CU_ASSERT_EQUAL(nvmf_rdma_transport_ops.local_addr(&a->q->sq, &ss), -ENOTCONN);
	rx_teardown(&x);
}

/* A host whose CM REQ offers no RDMA READ responder resources: the target could not fetch
 * anything (the admin Connect's data travels by keyed SGL), so it refuses the queue with
 * NVMe/RDMA status Invalid IRD (07h), as SPDK does, before making anything. */
static void connect_request_without_host_read_resources_is_rejected_with_invalid_ird(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	struct fv_cm_id *a = rx_cm_connect(&x, 0, 32, 0, 0);
	CU_ASSERT_TRUE(a->rejected);
	CU_ASSERT_FALSE(a->accepted);
	CU_ASSERT_EQUAL(a->reject_sts, NVME_RDMA_CM_INVALID_IRD);
	CU_ASSERT_TRUE(a->destroyed);
	struct fv_cm_id *io = rx_cm_connect(&x, 1, 128, 0, 0);
	CU_ASSERT_EQUAL(io->reject_sts, 0x07);
	CU_ASSERT_PTR_NULL(x.pg->queues);
	CU_ASSERT_EQUAL(nvmf_tgt_live_queues(&x.tgt), 0);
	rx_teardown(&x);
}

/* Otherwise the depths are clamped, never refused: the target's RDMA READ depth is the
 * smaller of what the host serves and the device's max_qp_init_rd_atom (16 here), as
 * nvmet's; the host is granted no responder resources of the target's whatever it asked
 * (the binding never has it read target memory: nvmet and SPDK accept with 0 too). */
static void connect_request_read_depths_are_clamped_and_the_host_gets_no_read_resources(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	struct fv_cm_id *big = rx_cm_connect(&x, 0, 32, 64, 4);
	CU_ASSERT_FATAL(big->accepted && !big->rejected);
	CU_ASSERT_EQUAL(big->accept.initiator_depth, 16);
	CU_ASSERT_EQUAL(big->accept.responder_resources, 0);
	CU_ASSERT_EQUAL(le16toh(big->rep.crqsize), 32);
	CU_ASSERT_EQUAL(((struct nvmf_rdma_queue *)big->id.context)->max_reads, 16);
	struct fv_cm_id *small = rx_cm_connect(&x, 0, 32, 3, 0);
	CU_ASSERT_FATAL(small->accepted);
	CU_ASSERT_EQUAL(small->accept.initiator_depth, 3);
	CU_ASSERT_EQUAL(small->accept.responder_resources, 0);
	CU_ASSERT_EQUAL(((struct nvmf_rdma_queue *)small->id.context)->max_reads, 3);
	/* The queue the CM made works: the admin Connect's data comes by RDMA READ. */
	struct rxq *a = rxq_adopt(&x, small, 32);
	uint16_t cid = rxq_connect(a, 0xffff, false);
	rx_run(&x);
	CU_ASSERT_EQUAL(rxq_status(a, cid), 0);
	CU_ASSERT(a->qp->reads_max <= 3);
	/* The host going away ends the other one; its cm_id goes with it. */
	fv_cm_event(big, RDMA_CM_EVENT_DISCONNECTED);
	nvmf_rdma_process_cm_events(x.pg);
	rx_run(&x);
	CU_ASSERT_TRUE(big->destroyed);
	CU_ASSERT_EQUAL(x.pg->nqueues, 1);
	nvmf_rdma_queue_disconnect(a->q, NULL);
	rx_run(&x);
	CU_ASSERT_TRUE(small->destroyed);
	rx_teardown(&x);
}

/* A device that cannot issue RDMA READs serves nobody: No Resources (06h). */
static void device_without_rdma_read_rejects_with_no_resources(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	x.rdev.attr.max_qp_init_rd_atom = 0;
	struct fv_cm_id *c = rx_cm_connect(&x, 0, 32, 16, 0);
	CU_ASSERT_TRUE(c->rejected);
	CU_ASSERT_EQUAL(c->reject_sts, NVME_RDMA_CM_NO_RSC);
	CU_ASSERT_TRUE(c->destroyed);
	rx_teardown(&x);
}

/* The private data's checks reach the host as their exact status (nvme/rdma-cm.c). */
static void connect_request_with_bad_private_data_is_rejected_with_its_status(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	struct nvme_rdma_cm_req r;
	nvme_rdma_cm_build_req(&r, 0, 32);
	CU_ASSERT_EQUAL(rx_cm_request(&x, &r, 16, 16, 0)->reject_sts, NVME_RDMA_CM_INVALID_LEN);
	r.hsqsize = htole16(32); /* 33 admin entries */
	CU_ASSERT_EQUAL(rx_cm_request(&x, &r, sizeof(r), 16, 0)->reject_sts,
			NVME_RDMA_CM_INVALID_HSQSIZE);
	nvme_rdma_cm_build_req(&r, 1, 64);
	r.hrqsize = htole16(32); /* fewer host receives than commands */
	CU_ASSERT_EQUAL(rx_cm_request(&x, &r, sizeof(r), 16, 0)->reject_sts,
			NVME_RDMA_CM_INVALID_HRQSIZE);
	CU_ASSERT_PTR_NULL(x.pg->queues);
	rx_teardown(&x);
}

/* A port removed live (stop_listen while the target runs) leaves the transport taking
 * connections on its other ports and on a port added back; only a stopping target refuses
 * them (No Resources). */
static void removing_a_port_live_keeps_accepting_connects_until_the_target_stops(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	struct nvmf_port gone;
	memset(&gone, 0, sizeof(gone));
	nvmf_rdma_transport_ops.stop_listen(&x.t->base, &gone);
	struct fv_cm_id *c = rx_cm_connect(&x, 0, 32, 16, 0);
	CU_ASSERT_TRUE(c->accepted);
	CU_ASSERT_FALSE(c->rejected);
	__atomic_store_n(&x.tgt.stopping, true, __ATOMIC_RELEASE);
	nvmf_rdma_transport_ops.stop_listen(&x.t->base, &gone);
	struct fv_cm_id *d = rx_cm_connect(&x, 0, 32, 16, 0);
	CU_ASSERT_TRUE(d->rejected);
	CU_ASSERT_EQUAL(d->reject_sts, NVME_RDMA_CM_NO_RSC);
	rx_teardown(&x);
}

const struct unit_test rdma_transport_tests[] = {
	{ "removing_a_port_live_keeps_accepting_connects_until_the_target_stops",
	  removing_a_port_live_keeps_accepting_connects_until_the_target_stops },
	{ "local_addr_of_a_queue_without_a_cm_id_is_unknown",
	  local_addr_of_a_queue_without_a_cm_id_is_unknown },
	{ "connect_request_without_host_read_resources_is_rejected_with_invalid_ird",
	  connect_request_without_host_read_resources_is_rejected_with_invalid_ird },
	{ "connect_request_read_depths_are_clamped_and_the_host_gets_no_read_resources",
	  connect_request_read_depths_are_clamped_and_the_host_gets_no_read_resources },
	{ "device_without_rdma_read_rejects_with_no_resources",
	  device_without_rdma_read_rejects_with_no_resources },
	{ "connect_request_with_bad_private_data_is_rejected_with_its_status",
	  connect_request_with_bad_private_data_is_rejected_with_its_status },
	{ NULL, NULL },
};
