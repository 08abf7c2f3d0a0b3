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

static struct nvmf_transport *fake_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts,
					  char *err, size_t errlen)
{
	(void)tgt, (void)opts;
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
	CU_ASSERT_STRING_EQUAL(out.text, "nvmf-target: fake ports cannot be used on this machine "
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

/* What the fake transport's create was handed. */
static struct nvmf_transport_opts seen_opts;
static unsigned seen_creates;

static struct nvmf_transport *spy_create(struct nvmf_tgt *tgt, const struct nvmf_transport_opts *opts,
					 char *err, size_t errlen)
{
	(void)tgt;
	seen_opts = *opts;
	seen_creates++;
	snprintf(err, errlen, "no fake device");
	return NULL;
}

/* A transport reads no configuration: create gets the limits resolved (max transfer from
 * the MDTS bounded by every transport, the largest in-capsule size of its own ports,
 * bounded by its max_inline) and the settings it needs. */
static void transport_is_created_with_its_resolved_limits(void)
{
	struct nvmf_config c;
	base_config(&c);
	c.target.mdts = 6;                            /* 256 KiB */
	c.target.srq = true;
	c.target.srq_depth = 777;
	c.target.buffers_small = 11;
	c.target.buffers_large = 22;
	c.target.hugepages = false;
	fake_port(&c, 3, AF_INET, "10.0.0.1")->inline_data_size = 4096;
	fake_port(&c, 4, AF_INET, "10.0.0.2")->inline_data_size = 1u << 20; /* above max_inline */
	c.ports[0].inline_data_size = 12288;          /* the loop port's: not the fake's */
	const struct nvmf_transport_ops *ops[] = { &nvmf_loop_ops, fake() };
	fake_ops.create = spy_create;
	fake_ops.max_inline = 8192;
	fake_ops.max_xfer = 128u << 10;               /* bounds MDTS to 5 */
	seen_creates = 0;
	struct nvmf_tgt tgt;
	char err[512] = "";
	struct fx_stderr out;
	fx_stderr_begin(&out);
	int rc = nvmf_tgt_init(&tgt, &c, ops, 2, err, sizeof(err));
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_EQUAL_FATAL(seen_creates, 1);
	CU_ASSERT_EQUAL(seen_opts.max_xfer, 128u << 10);
	CU_ASSERT_EQUAL(seen_opts.nports, 2);
	CU_ASSERT_EQUAL(seen_opts.max_port_inline, 8192);
	CU_ASSERT_TRUE(seen_opts.srq);
	CU_ASSERT_EQUAL(seen_opts.srq_depth, 777);
	CU_ASSERT_EQUAL(seen_opts.buffers_small, 11);
	CU_ASSERT_EQUAL(seen_opts.buffers_large, 22);
	CU_ASSERT_FALSE(seen_opts.hugepages);
	nvmf_config_free(&c);
}

const struct unit_test tgt_start_tests[] = {
	{"transport_is_created_with_its_resolved_limits", transport_is_created_with_its_resolved_limits},
	{"port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports",
	 port_of_a_transport_that_cannot_start_fails_the_start_naming_the_ports},
	{"transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live",
	 transport_no_port_needs_is_one_info_line_and_its_ports_are_refused_live},
	{NULL, NULL},
};
