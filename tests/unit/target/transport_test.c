/* The core's answers to a transport (target/transport.c): a port's address and resolved
 * limits as a transport sees them (nvmf_port_attrs), its pointer for the port, the groups
 * and ports it may walk, a queue's controller ID, whether the target is stopping; through
 * the loop transport on the fixture's target. */
#include <CUnit/CUnit.h>
#include <string.h>
#include <sys/socket.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

static void port_attrs_are_the_resolved_address_and_limits(void)
{
	struct fx f;
	CU_ASSERT_FATAL(fx_setup(&f) == 0);
	struct nvmf_port *port = f.tgt.ports[0];
	struct nvmf_port_config *pc = (struct nvmf_port_config *)port->cfg;
	struct nvmf_port_attrs pa;
	memset(&pa, 0xa5, sizeof(pa));
	nvmf_port_attrs(port, &pa);
	CU_ASSERT_EQUAL(pa.portid, 1);
	CU_ASSERT_STRING_EQUAL(pa.trtype, "loop");
	CU_ASSERT_EQUAL(pa.adrfam, AF_INET);
	CU_ASSERT_STRING_EQUAL(pa.traddr, "0.0.0.0");
	CU_ASSERT_STRING_EQUAL(pa.trsvcid, "4420");
	CU_ASSERT_EQUAL(pa.admin_queue_size, 32);
	CU_ASSERT_EQUAL(pa.queue_size, port->queue_size);
	CU_ASSERT_EQUAL(pa.queue_size, 128);
	CU_ASSERT_EQUAL(pa.inline_size, 8192);
	CU_ASSERT_EQUAL(pa.max_qid, port->max_qid);
	CU_ASSERT_EQUAL(pa.zerocopy_threshold, pc->zerocopy_threshold);
	/* An unset MAXH2CDATA comes resolved to the default; a set one as it is. */
	pc->maxh2cdata = 0;
	nvmf_port_attrs(port, &pa);
	CU_ASSERT_EQUAL(pa.maxh2cdata, NVMF_DEFAULT_MAXH2CDATA);
	pc->maxh2cdata = 65536;
	nvmf_port_attrs(port, &pa);
	CU_ASSERT_EQUAL(pa.maxh2cdata, 65536);
	fx_teardown(&f);
}

static void port_priv_and_transport_are_the_ports_own(void)
{
	struct fx f;
	CU_ASSERT_FATAL(fx_setup(&f) == 0);
	struct nvmf_port *port = f.tgt.ports[0];
	struct nvmf_transport *t = f.tgt.transports[0];
	CU_ASSERT_PTR_EQUAL(nvmf_port_transport(port), t);
	CU_ASSERT_PTR_EQUAL(nvmf_port_priv(port), port->transport_priv);
	CU_ASSERT_PTR_NOT_NULL(nvmf_port_priv(port)); /* the loop listens */
	void *was = nvmf_port_priv(port);
	int mine;
	nvmf_port_set_priv(port, &mine);
	CU_ASSERT_PTR_EQUAL(port->transport_priv, &mine);
	nvmf_port_set_priv(port, was);
	CU_ASSERT_EQUAL(nvmf_transport_nports(t), f.tgt.n_ports);
	CU_ASSERT_PTR_EQUAL(nvmf_transport_port(t, 0), port);
	CU_ASSERT_EQUAL(nvmf_tgt_ntransports(&f.tgt), f.tgt.ntransports);
	CU_ASSERT_PTR_EQUAL(nvmf_tgt_transport(&f.tgt, 0), t);
	fx_teardown(&f);
}

static void groups_are_the_targets_with_the_main_one_first(void)
{
	struct fx f;
	CU_ASSERT_FATAL(fx_setup(&f) == 0);
	struct nvmf_transport *t = f.tgt.transports[0];
	CU_ASSERT_EQUAL(nvmf_transport_npgs(t), f.tgt.npgs);
	CU_ASSERT_PTR_EQUAL(nvmf_transport_main_pg(t), f.tgt.pgs[0]);
	for (unsigned i = 0; i < f.tgt.npgs; i++)
		CU_ASSERT_PTR_EQUAL(nvmf_transport_pg(t, i), f.tgt.pgs[i]);
	fx_teardown(&f);
}

static void queue_cntlid_is_zero_until_its_connect(void)
{
	struct fx f;
	CU_ASSERT_FATAL(fx_setup(&f) == 0);
	struct nvmf_sq unconnected;
	memset(&unconnected, 0, sizeof(unconnected));
	CU_ASSERT_EQUAL(nvmf_sq_cntlid(&unconnected), 0);
	uint16_t cntlid = 0;
	CU_ASSERT_EQUAL_FATAL(
		fx_connect(&f.admin, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, &cntlid, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.tgt.ctrls);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f.tgt.ctrls->sqs[0]);
	CU_ASSERT_NOT_EQUAL(cntlid, 0);
	CU_ASSERT_EQUAL(nvmf_sq_cntlid(f.tgt.ctrls->sqs[0]), cntlid);
	fx_teardown(&f);
}

static void stopping_turns_true_with_the_shutdown(void)
{
	struct fx f;
	CU_ASSERT_FATAL(fx_setup(&f) == 0);
	struct nvmf_transport *t = f.tgt.transports[0];
	CU_ASSERT_FALSE(nvmf_transport_stopping(t));
	__atomic_store_n(&f.tgt.stopping, true, __ATOMIC_RELEASE); /* as nvmf_tgt_shutdown */
	CU_ASSERT_TRUE(nvmf_transport_stopping(t));
	__atomic_store_n(&f.tgt.stopping, false, __ATOMIC_RELEASE);
	fx_teardown(&f);
}

const struct unit_test tgt_transport_tests[] = {
	{ "port_attrs_are_the_resolved_address_and_limits",
	  port_attrs_are_the_resolved_address_and_limits },
	{ "port_priv_and_transport_are_the_ports_own", port_priv_and_transport_are_the_ports_own },
	{ "groups_are_the_targets_with_the_main_one_first",
	  groups_are_the_targets_with_the_main_one_first },
	{ "queue_cntlid_is_zero_until_its_connect", queue_cntlid_is_zero_until_its_connect },
	{ "stopping_turns_true_with_the_shutdown", stopping_turns_true_with_the_shutdown },
	{ NULL, NULL },
};
