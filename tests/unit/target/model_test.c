/* The target model changed live (target/model.c) on the loop transport: a port added
 * listens and serves its subsystems, refused when its ID or address is taken, and removed
 * it drops its controllers and stops. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "initiator/internal.h"
#include "target/model.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/fixture.h"

static struct fx F;

static void setup(void)
{
	memset(&F, 0, sizeof(F));
	CU_ASSERT_EQUAL_FATAL(fx_setup(&F), 0);
}

/* Admin Connect to @nqn as FX_HOSTNQN on a fresh queue: its status. */
static int try_connect(struct fxq *q, const char *nqn)
{
	fx_queue_init(&F, q);
	return fx_connect(q, 0, 31, nqn, FX_HOSTNQN, 0xffff, 0, NULL, NULL);
}

/* Ports through the core (the loop transport has no file syntax): a second port
 * listens, its controllers go with it, and it stops listening. */
static void added_port_listens_and_removed_port_stops(void)
{
	setup();
	struct nvmf_port_config pc;
	memset(&pc, 0, sizeof(pc));
	nvmf_config_port_defaults(&pc);
	pc.portid = 2;
	snprintf(pc.trtype, sizeof(pc.trtype), "loop");
	pc.adrfam = AF_INET;
	snprintf(pc.traddr, sizeof(pc.traddr), "10.2.2.2");
	snprintf(pc.trsvcid, sizeof(pc.trsvcid), "4421");
	char *sub = FX_SUBNQN;
	pc.subsystems = &sub;
	pc.n_subsystems = 1;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_port_add(&F.tgt, &pc, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(nvmf_tgt_port_add(&F.tgt, &pc, err, sizeof(err)), -EEXIST);
	pc.portid = 3; /* port 2's address under another ID */
	CU_ASSERT_EQUAL(nvmf_tgt_port_add(&F.tgt, &pc, err, sizeof(err)), -EADDRINUSE);
	CU_ASSERT_STRING_EQUAL(err,
			       "10.2.2.2:4421 overlaps port 2 (loop 10.2.2.2:4421), which listens "
			       "there already");
	CU_ASSERT_PTR_NULL(nvmf_tgt_find_port(&F.tgt, 3));
	pc.portid = 2;
	struct nvmf_port *p2 = nvmf_tgt_find_port(&F.tgt, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p2);
	CU_ASSERT_EQUAL(p2->inline_size, NVMF_DEFAULT_INLINE);
	F.host->opts.traddr = "10.2.2.2";
	F.host->opts.trsvcid = "4421";
	struct fxq q;
	CU_ASSERT_EQUAL(try_connect(&q, FX_SUBNQN), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(F.tgt.ctrls);
	CU_ASSERT_PTR_EQUAL(F.tgt.ctrls->port, p2);
	unsigned dropped = 0;
	CU_ASSERT_EQUAL(nvmf_tgt_port_remove(&F.tgt, p2, &dropped, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(dropped, 1);
	nvmf_loop_drive(&F.tgt);
	CU_ASSERT_PTR_NULL(nvmf_tgt_find_port(&F.tgt, 2));
	struct fxq q2;
	fx_queue_init(&F, &q2);
	CU_ASSERT_TRUE(fx_connect(&q2, 0, 31, FX_SUBNQN, FX_HOSTNQN, 0xffff, 0, NULL, NULL) < 0);
	F.host->opts.traddr = F.traddr;
	F.host->opts.trsvcid = F.trsvcid;
	fx_teardown(&F);
}

const struct unit_test target_model_tests[] = {
	{ "added_port_listens_and_removed_port_stops", added_port_listens_and_removed_port_stops },
	{ NULL, NULL },
};
