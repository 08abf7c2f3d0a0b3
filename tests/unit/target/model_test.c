/* The target model changed live (target/model.c) on the loop transport: a port added
 * listens and serves its subsystems, refused when its ID or address is taken, and removed
 * it drops its controllers and stops. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A port added live takes its param.mdts, within what the transports' buffers were
 * sized for at start: one asking for more is refused, saying why and what to do. */
static void added_port_takes_its_mdts_within_the_target_buffers(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(F.tgt.mdts, NVMF_DEFAULT_MDTS);
	struct nvmf_port_config pc;
	memset(&pc, 0, sizeof(pc));
	nvmf_config_port_defaults(&pc);
	pc.portid = 2;
	snprintf(pc.trtype, sizeof(pc.trtype), "loop");
	pc.adrfam = AF_INET;
	snprintf(pc.traddr, sizeof(pc.traddr), "10.2.2.2");
	snprintf(pc.trsvcid, sizeof(pc.trsvcid), "4421");
	char err[512] = "";
	pc.mdts = NVMF_DEFAULT_MDTS + 1;
	CU_ASSERT_EQUAL(nvmf_tgt_port_add(&F.tgt, &pc, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "param.mdts 9 is above 8, the largest MDTS the target's data "
				    "buffers were sized for at start (nvmf_target.mdts and the "
				    "ports' param.mdts then); restart the target to serve it");
	CU_ASSERT_PTR_NULL(nvmf_tgt_find_port(&F.tgt, 2));
	pc.mdts = 2;
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_port_add(&F.tgt, &pc, err, sizeof(err)), 0);
	struct nvmf_port *p2 = nvmf_tgt_find_port(&F.tgt, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p2);
	CU_ASSERT_EQUAL(p2->mdts, 2);
	CU_ASSERT_EQUAL(F.tgt.ports[0]->mdts, NVMF_DEFAULT_MDTS);
	fx_teardown(&F);
}

/* Keys of a host no subsystem admits protect nothing: a mistyped NQN, most likely. The
 * target says so at start and after a reload; a host some subsystem admits is not named. */
static void keys_of_a_host_no_subsystem_admits_are_warned_of(void)
{
	setup();
	F.cfg.dhchap = calloc(2, sizeof(*F.cfg.dhchap));
	CU_ASSERT_PTR_NOT_NULL_FATAL(F.cfg.dhchap);
	F.cfg.n_dhchap = 2;
	F.cfg.dhchap[0].hostnqn = strdup(FX_HOSTNQN);
	F.cfg.dhchap[0].key = strdup("DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:");
	F.cfg.dhchap[1].hostnqn = strdup("nqn.h:tpyo");
	F.cfg.dhchap[1].key = strdup("DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:");
	struct fx_stderr out;
	fx_stderr_begin(&out);
	unsigned n = nvmf_tgt_warn_unadmitted_keys(&F.tgt);
	fx_stderr_end(&out);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_STRING_EQUAL(out.text,
			       "nvmf-target: auth: warning: host nqn.h:tpyo has DH-HMAC-CHAP keys, "
			       "but no subsystem admits it (none lists it in allowed_hosts or has "
			       "allow_any_host on): is one of the NQNs mistyped?\n");
	CU_ASSERT_FALSE(nvmf_tgt_host_admitted(&F.tgt, "nqn.h:tpyo"));
	unsigned dropped;
	nvmf_tgt_allow_any_host(&F.tgt, nvmf_tgt_find_subsys(&F.tgt, FX_SUBNQN), true, &dropped);
	CU_ASSERT_TRUE(nvmf_tgt_host_admitted(&F.tgt, "nqn.h:tpyo"));
	CU_ASSERT_EQUAL(nvmf_tgt_warn_unadmitted_keys(&F.tgt), 0);
	fx_teardown(&F);
}

const struct unit_test target_model_tests[] = {
	{ "added_port_takes_its_mdts_within_the_target_buffers",
	  added_port_takes_its_mdts_within_the_target_buffers },
	{ "added_port_listens_and_removed_port_stops", added_port_listens_and_removed_port_stops },
	{ "keys_of_a_host_no_subsystem_admits_are_warned_of",
	  keys_of_a_host_no_subsystem_admits_are_warned_of },
	{ NULL, NULL },
};
