/* What the RDMA transport tells the core and the host (rdma/target/transport.c): the
 * transport fields of a discovery log entry (NVMe-oF 1.1 figure 38 and the RDMA TSAS,
 * figure 40), which the discovery controller takes from the port's transport; and its
 * answer to a CM connect request, on the fake CM: accepted with which depths, or rejected
 * with which NVMe/RDMA status. */
#include <CUnit/CUnit.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/rdma/fixture.h"

static void discovery_entry_has_the_rdma_fields_of_the_port(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	struct rxq *a = rx_admin(&x);
	struct nvmf_port *port = x.tgt.ports[0];
	struct nvmf_port_config *pc = (struct nvmf_port_config *)port->cfg;
	snprintf(pc->traddr, sizeof(pc->traddr), "169.254.77.1");
	struct nvmf_disc_rec rec;
	char traddr[NVMF_TRADDR_MAX];
	memset(&rec, 0, sizeof(rec));
	CU_ASSERT_TRUE_FATAL(nvmf_rdma_transport_ops.disc_entry(port, &a->q->sq, &rec, traddr));
	CU_ASSERT_EQUAL(rec.trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(rec.adrfam, NVMF_ADDR_FAMILY_IP4);
	CU_ASSERT_STRING_EQUAL(rec.traddr, "169.254.77.1");
	CU_ASSERT_STRING_EQUAL(rec.trsvcid, "4420");
	CU_ASSERT_EQUAL(rec.rdma_qptype, NVMF_RDMA_QPTYPE_CONNECTED);
	CU_ASSERT_EQUAL(rec.rdma_prtype, NVMF_RDMA_PRTYPE_NOT_SPECIFIED);
	CU_ASSERT_EQUAL(rec.rdma_cms, NVMF_RDMA_CMS_RDMA_CM);
	CU_ASSERT_EQUAL(rec.rdma_pkey, 0);
	pc->adrfam = AF_INET6;
	snprintf(pc->traddr, sizeof(pc->traddr), "fd77::1");
	CU_ASSERT_TRUE(nvmf_rdma_transport_ops.disc_entry(port, &a->q->sq, &rec, traddr));
	CU_ASSERT_EQUAL(rec.adrfam, NVMF_ADDR_FAMILY_IP6);
	CU_ASSERT_STRING_EQUAL(rec.traddr, "fd77::1");
	pc->adrfam = AF_INET;
	snprintf(pc->traddr, sizeof(pc->traddr), "0.0.0.0");
	rx_teardown(&x);
}

static void wildcard_port_without_a_local_address_is_left_out(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	struct rxq *a = rx_admin(&x);
	struct nvmf_disc_rec rec;
	char traddr[NVMF_TRADDR_MAX];
	/* The fixture's port listens on 0.0.0.0 and its queues have no rdma_cm id: there is
	 * no address the host could be told. */
	CU_ASSERT_FALSE(nvmf_rdma_transport_ops.disc_entry(x.tgt.ports[0], &a->q->sq, &rec, traddr));
	rx_teardown(&x);
}

/* The discovery log lists every port, so an rdma port's entry is also asked for by a
 * discovery queue of another transport (a host discovering over tcp): that queue's
 * transport_priv is the other transport's, not an nvmf_rdma_queue. An explicit address
 * needs nothing from it; a wildcard port has no address of that host's connection the
 * rdma transport could know, and is left out without reading it. Before, its cm_id was
 * read from the tcp connection and followed (a wild pointer). */
static void port_asked_by_a_queue_of_another_transport_reads_nothing_of_it(void)
{
	struct rx x;
	CU_ASSERT_FATAL(rx_setup(&x, NULL) == 0);
	struct nvmf_port *port = x.tgt.ports[0];
	struct nvmf_port_config *pc = (struct nvmf_port_config *)port->cfg;
	/* Poison: read as an rdma queue, its cm_id would be 0xa5a5... */
	static uint8_t other_priv[sizeof(struct nvmf_rdma_queue) + 256];
	memset(other_priv, 0xa5, sizeof(other_priv));
	static struct nvmf_transport other;
	struct nvmf_sq sq;
	memset(&sq, 0, sizeof(sq));
	sq.transport = &other;
	sq.transport_priv = other_priv;
	struct nvmf_disc_rec rec;
	char traddr[NVMF_TRADDR_MAX];
	memset(&rec, 0, sizeof(rec));
	CU_ASSERT_FALSE(nvmf_rdma_transport_ops.disc_entry(port, &sq, &rec, traddr));
	snprintf(pc->traddr, sizeof(pc->traddr), "169.254.77.1");
	CU_ASSERT_TRUE(nvmf_rdma_transport_ops.disc_entry(port, &sq, &rec, traddr));
	CU_ASSERT_EQUAL(rec.trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_STRING_EQUAL(rec.traddr, "169.254.77.1");
	snprintf(pc->traddr, sizeof(pc->traddr), "0.0.0.0");
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
	r.hsqsize = htole16(32);   /* 33 admin entries */
	CU_ASSERT_EQUAL(rx_cm_request(&x, &r, sizeof(r), 16, 0)->reject_sts, NVME_RDMA_CM_INVALID_HSQSIZE);
	nvme_rdma_cm_build_req(&r, 1, 64);
	r.hrqsize = htole16(32);   /* fewer host receives than commands */
	CU_ASSERT_EQUAL(rx_cm_request(&x, &r, sizeof(r), 16, 0)->reject_sts, NVME_RDMA_CM_INVALID_HRQSIZE);
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
	{ "discovery_entry_has_the_rdma_fields_of_the_port", discovery_entry_has_the_rdma_fields_of_the_port },
	{ "wildcard_port_without_a_local_address_is_left_out", wildcard_port_without_a_local_address_is_left_out },
	{ "port_asked_by_a_queue_of_another_transport_reads_nothing_of_it",
	  port_asked_by_a_queue_of_another_transport_reads_nothing_of_it },
	{ "connect_request_without_host_read_resources_is_rejected_with_invalid_ird",
	  connect_request_without_host_read_resources_is_rejected_with_invalid_ird },
	{ "connect_request_read_depths_are_clamped_and_the_host_gets_no_read_resources",
	  connect_request_read_depths_are_clamped_and_the_host_gets_no_read_resources },
	{ "device_without_rdma_read_rejects_with_no_resources", device_without_rdma_read_rejects_with_no_resources },
	{ "connect_request_with_bad_private_data_is_rejected_with_its_status",
	  connect_request_with_bad_private_data_is_rejected_with_its_status },
	{ NULL, NULL },
};
