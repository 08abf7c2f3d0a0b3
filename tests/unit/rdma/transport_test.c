/* What the RDMA transport tells the core (rdma/target/transport.c): the transport fields
 * of a discovery log entry (NVMe-oF 1.1 figure 38 and the RDMA TSAS, figure 40), which
 * the discovery controller takes from the port's transport. */
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

const struct unit_test rdma_transport_tests[] = {
	{ "discovery_entry_has_the_rdma_fields_of_the_port", discovery_entry_has_the_rdma_fields_of_the_port },
	{ "wildcard_port_without_a_local_address_is_left_out", wildcard_port_without_a_local_address_is_left_out },
	{ NULL, NULL },
};
