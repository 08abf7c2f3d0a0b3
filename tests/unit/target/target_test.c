/*
 * Start-up of the target as a whole (nvmf_tgt_init, target/target.c) on a machine where a
 * transport cannot start, as RDMA on one without an RDMA device: a port the config asks
 * for on it fails the start with a message naming the port and why, and nothing else is
 * printed (no shutdown or statistics lines from undoing the start); a transport no port
 * needs is one info line, and a port of it added live is refused by name.
 *
 * The transport that cannot start is "fake": the loop transport's table with a create
 * that fails the way rdma's does without a device.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"
#include "target/model.h"

#define TT_NQN "nqn.2024-01.io.nvmf-rdma:start"

static struct nvmf_transport *fake_create(struct nvmf_tgt *tgt, char *err, size_t errlen)
{
	(void)tgt;
	snprintf(err, errlen, "no fake device");
	return NULL;
}

static struct nvmf_transport_ops fake_ops;

static const struct nvmf_transport_ops *fake(void)
{
	fake_ops = nvmf_loop_ops;
	fake_ops.name = "fake";
	fake_ops.create = fake_create;
	return &fake_ops;
}

/* A config with subsystem TT_NQN (a RAM namespace) on loop port 1. */
static void base_config(struct nvmf_config *c)
{
	memset(c, 0, sizeof(*c));
	struct nvmf_subsys_config *s = fx_cfg_subsys(c, TT_NQN, NULL, 4);
	fx_cfg_ns(s, 1, NVMF_BACKEND_RAM, 1 << 20, 512);
	fx_cfg_expose(fx_cfg_loop_port(c, 1, AF_INET, "127.0.0.1", "4420"), TT_NQN);
}

static struct nvmf_port_config *fake_port(struct nvmf_config *c, uint16_t portid, int family,
					  const char *traddr)
{
	struct nvmf_port_config *p = fx_cfg_loop_port(c, portid, family, traddr, "4420");
	snprintf(p->trtype, sizeof(p->trtype), "fake");
	fx_cfg_expose(p, TT_NQN);
	return p;
}

static void port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports(void)
{
	struct nvmf_config c;
	base_config(&c);
	fake_port(&c, 3, AF_INET, "10.0.0.1");
	fake_port(&c, 4, AF_INET6, "fd00::1");
	const struct nvmf_transport_ops *ops[] = { &nvmf_loop_ops, fake() };
	struct nvmf_tgt tgt;
	char err[512] = "";
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int rc = nvmf_tgt_init(&tgt, &c, ops, 2, err, sizeof(err));
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_STRING_EQUAL(err, "port 3 (fake 10.0.0.1:4420), port 4 (fake [fd00::1]:4420): "
			       "the fake transport cannot start: no fake device");
	/* Undoing the start says nothing: no queue was busy, no group has statistics. */
	CU_ASSERT_STRING_EQUAL(out.text, "");
	nvmf_config_free(&c);
}

static void transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live(void)
{
	struct nvmf_config c;
	base_config(&c);
	const struct nvmf_transport_ops *ops[] = { &nvmf_loop_ops, fake() };
	struct nvmf_tgt tgt;
	char err[512] = "";
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int rc = nvmf_tgt_init(&tgt, &c, ops, 2, err, sizeof(err));
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(out.text, "nvmf-target: core: fake ports cannot be used on this machine "
			       "(no fake device)\n");
	CU_ASSERT_EQUAL(tgt.ntransports, 1);

	struct nvmf_config more;
	memset(&more, 0, sizeof(more));
	struct nvmf_port_config *p = fake_port(&more, 5, AF_INET, "10.0.0.5");
	CU_ASSERT_EQUAL(nvmf_tgt_port_add(&tgt, p, err, sizeof(err)), -ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "the fake transport is not running here"));
	CU_ASSERT_EQUAL(tgt.n_ports, 1);

	/* A target that never started stops without statistics either. */
	fx_stderr_begin(&out);
	nvmf_tgt_shutdown(&tgt, 1000);
	fx_stderr_end(&out);
	CU_ASSERT_STRING_EQUAL(out.text, "");
	nvmf_tgt_fini(&tgt);
	nvmf_config_free(&more);
	nvmf_config_free(&c);
}

const struct unit_test tgt_start_tests[] = {
	{"port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports",
	 port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports},
	{"transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live",
	 transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live},
	{NULL, NULL},
};
