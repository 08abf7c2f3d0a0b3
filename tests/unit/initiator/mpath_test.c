/* libnvmf's multipath handle (initiator/mpath.c): connecting the paths and checking they
 * are one subsystem, the namespaces' geometry through every path, which path a
 * namespace's commands take (ANA states, the order given), what the handle tells about
 * its paths - against our target with two or three loop ports, through the ANA-playing
 * wrapper (mpath_fixture.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/initiator/mpath_fixture.h"
#include "tests/unit/suites.h"

static struct mpf F;

static void has(const char *m, const char *what)
{
	if (!strstr(m, what))
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", m, what);
	CU_ASSERT_PTR_NOT_NULL(strstr(m, what));
}

static void connect_makes_one_handle_over_each_path_to_one_subsystem(void)
{
	mpf_target(&F, 3, NULL, NULL);
	F.paths[2].nr_io_queues = 1;
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 3, NULL), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_nr_paths(F.mp), 3);
	CU_ASSERT_EQUAL(nvmf_mpath_nr_queues(F.mp), 1); /* the fewest of the paths */
	CU_ASSERT_EQUAL(nvmf_mpath_queue_depth(F.mp), 127);
	CU_ASSERT_PTR_NOT_NULL(nvmf_mpath_queue(F.mp, 0));
	CU_ASSERT_PTR_NULL(nvmf_mpath_queue(F.mp, 1));
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 3);
	struct nvmf_mpath_path_info a, b;
	CU_ASSERT_EQUAL_FATAL(nvmf_mpath_path_info(F.mp, 0, &a), 0);
	CU_ASSERT_EQUAL_FATAL(nvmf_mpath_path_info(F.mp, 1, &b), 0);
	CU_ASSERT_STRING_EQUAL(a.traddr, "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(b.traddr, "127.0.0.2");
	CU_ASSERT_STRING_EQUAL(b.trsvcid, "4420");
	CU_ASSERT_TRUE(a.live && b.live);
	CU_ASSERT_TRUE(a.ana && b.ana);
	CU_ASSERT_NOT_EQUAL(a.cntlid, b.cntlid);
	CU_ASSERT_EQUAL(a.reconnects, 0);
	CU_ASSERT_EQUAL(a.last_error, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 3, &a), -EINVAL);
	/* Everything optimized: the first path given. */
	unsigned p = 9;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 0);
	struct nvmf_ns_info info;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_info(F.mp, 2, &info), 0);
	CU_ASSERT_EQUAL(info.block_size, 4096);
	CU_ASSERT_EQUAL(info.nsze, 256);
	CU_ASSERT_EQUAL(nvmf_mpath_disconnect(F.mp), 0);
	F.mp = NULL;
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 0);
	mpf_teardown(&F);
}

static void paths_to_different_subsystems_are_refused(void)
{
	mpf_target(&F, 2, &(struct loop_host_params){ .n_subsys = 2 }, NULL);
	F.paths[1].subnqn = "nqn.2026-11.io.nvmf-rdma:lh1";
	CU_ASSERT_EQUAL(mpf_connect(&F, 2, NULL), -EINVAL);
	CU_ASSERT_PTR_NULL(F.mp);
	has(nvmf_last_errmsg(),
	    "path 1 (127.0.0.2:4420) reaches subsystem nqn.2026-11.io.nvmf-rdma:lh1, "
	    "path 0 reaches nqn.2026-11.io.nvmf-rdma:lh0");
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 0); /* both disconnected again */
	mpf_teardown(&F);
}

/* A path with automatic reconnect of its own would fight the watcher: refused, named. */
static void a_path_with_ctrl_loss_tmo_is_refused(void)
{
	mpf_target(&F, 2, NULL, NULL);
	F.paths[1].ctrl_loss_tmo_ms = 1000;
	CU_ASSERT_EQUAL(mpf_connect(&F, 2, NULL), -EINVAL);
	CU_ASSERT_PTR_NULL(F.mp);
	has(nvmf_last_errmsg(), "path 1 (127.0.0.2:4420): ctrl_loss_tmo_ms and "
				"fast_io_fail_tmo_ms are for single controllers");
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 0);
	mpf_teardown(&F);
}

static void a_path_that_does_not_connect_fails_the_handle_naming_it(void)
{
	mpf_target(&F, 2, NULL, NULL);
	F.paths[1].traddr = "127.0.0.9";
	CU_ASSERT_EQUAL(mpf_connect(&F, 2, NULL), -ECONNREFUSED);
	has(nvmf_last_errmsg(), "path 1 (127.0.0.9:4420): ");
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 0);
	mpf_teardown(&F);
}

static void bad_arguments_are_einval(void)
{
	mpf_target(&F, 1, NULL, NULL);
	struct nvmf_mpath *mp = (void *)1;
	CU_ASSERT_EQUAL(nvmf_mpath_connect(F.paths, 0, NULL, &mp), -EINVAL);
	CU_ASSERT_PTR_NULL(mp);
	has(nvmf_last_errmsg(), "0 paths given, 1..16 allowed");
	CU_ASSERT_EQUAL(nvmf_mpath_connect(F.paths, NVMF_MPATH_MAX_PATHS + 1, NULL, &mp), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_mpath_connect(NULL, 1, NULL, &mp), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_mpath_connect(F.paths, 1, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_mpath_disconnect(NULL), -EINVAL);
	mpf_teardown(&F);
}

static void a_subsystem_without_several_controllers_or_ports_is_eopnotsupp(void)
{
	mpf_target(&F, 2, NULL, &(struct ana_wrap_id){ .cmic_clear = NVME_CTRL_CMIC_MULTI_CTRL });
	CU_ASSERT_EQUAL(mpf_connect(&F, 2, NULL), -EOPNOTSUPP);
	has(nvmf_last_errmsg(),
	    "does not report several controllers (Identify Controller CMIC bit 1 clear)");
	mpf_teardown(&F);
	mpf_target(&F, 2, NULL, &(struct ana_wrap_id){ .cmic_clear = NVME_CTRL_CMIC_MULTI_PORT });
	CU_ASSERT_EQUAL(mpf_connect(&F, 2, NULL), -EOPNOTSUPP);
	has(nvmf_last_errmsg(),
	    "does not report several ports (Identify Controller CMIC bit 0 clear)");
	mpf_teardown(&F);
	/* One path needs neither. */
	mpf_target(&F, 1, NULL, &(struct ana_wrap_id){ .cmic_clear = 3 });
	CU_ASSERT_EQUAL(mpf_connect(&F, 1, NULL), 0);
	mpf_teardown(&F);
}

/* Path @p's group 1 is @state on the target; the handle reads the logs again. */
static void set_state(unsigned p, uint8_t state)
{
	ana_wrap_set_state(p, 1, state);
	CU_ASSERT_EQUAL(nvmf_mpath_refresh(F.mp, 5000), 0);
}

static void ns_path_is_the_first_optimized_then_non_optimized_never_inaccessible(void)
{
	mpf_target(&F, 3, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 3, NULL), 0);
	unsigned p = 9;
	set_state(0, NVME_ANA_STATE_NONOPTIMIZED);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 1);
	set_state(1, NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 2);
	set_state(2, NVME_ANA_STATE_CHANGE);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 0); /* non-optimized, the last usable */
	uint8_t st = 0;
	uint32_t grp = 0;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_ana_state(F.mp, 1, 1, &st, &grp), 0);
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(grp, 1);
	set_state(0, NVME_ANA_STATE_PERSISTENT_LOSS);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), NVMF_ERR_NO_PATH);
	/* Namespace 2 moved to group 2, optimized everywhere: its own choice. */
	ana_wrap_set_group(2, 2, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_refresh(F.mp, 5000), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 2, &p), 0);
	CU_ASSERT_EQUAL(p, 0);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_ana_state(F.mp, 2, 2, &st, &grp), 0);
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_EQUAL(grp, 2);
	set_state(2, NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(F.mp, 1, &p), 0);
	CU_ASSERT_EQUAL(p, 2);
	mpf_teardown(&F);
}

static void without_ana_reporting_every_path_is_optimized(void)
{
	mpf_target(&F, 2, NULL, &(struct ana_wrap_id){ .no_ana = true });
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	struct nvmf_mpath_path_info a;
	CU_ASSERT_EQUAL(nvmf_mpath_path_info(F.mp, 1, &a), 0);
	CU_ASSERT_FALSE(a.ana);
	uint8_t st = 0;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_ana_state(F.mp, 1, 1, &st, NULL), 0);
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_EQUAL(ana_wrap_log_reads(), 0);
	mpf_teardown(&F);
}

static void ns_with_other_identifiers_through_another_path_is_eproto(void)
{
	mpf_target(&F, 2, NULL, NULL);
	ana_wrap_spoil_ns_ids(1);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	struct nvmf_ns_info info;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_info(F.mp, 1, &info), -EPROTO);
	has(nvmf_mpath_errmsg(F.mp), "namespace 1: path 1 (127.0.0.2:4420) reports another block "
				     "size or other identifiers (NGUID, EUI-64, UUID) than path 0");
	uint8_t buf[512];
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 1, 0, 1, buf), -EPROTO);
	mpf_teardown(&F);
}

static void inactive_ns_is_invalid_ns_at_submission(void)
{
	mpf_target(&F, 2, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	struct nvmf_ns_info info;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_info(F.mp, 7, &info), NVME_SC_INVALID_NS | NVME_SC_DNR);
	has(nvmf_mpath_errmsg(F.mp), "namespace 7 through path 0 (127.0.0.1:4420)");
	uint8_t buf[512];
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 7, 0, 1, buf), NVME_SC_INVALID_NS | NVME_SC_DNR);
	CU_ASSERT_EQUAL(nvmf_mpath_read(F.mp, 0, 0, 1, buf), -EINVAL);
	CU_ASSERT_EQUAL(nvmf_mpath_flush(F.mp, 0xffffffffu), -EINVAL);
	mpf_teardown(&F);
}

static void an_ana_change_event_is_applied_before_the_next_refresh(void)
{
	struct loop_host *lh = loop_host_new(&(struct loop_host_params){ .n_ports = 2 });
	CU_ASSERT_PTR_NOT_NULL_FATAL(lh);
	struct nvmf_ctrl_opts p[2] = { loop_host_path_opts(lh, LH_SUBNQN, 0),
				       loop_host_path_opts(lh, LH_SUBNQN, 1) };
	struct nvmf_mpath *mp = NULL;
	/* A period far beyond the test: only the event can bring the change in time. */
	CU_ASSERT_EQUAL_FATAL(
		nvmf_mpath_connect(p, 2, &(struct nvmf_mpath_opts){ .refresh_ms = 600000 }, &mp),
		0);
	unsigned path = 9;
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(mp, 1, &path), 0);
	CU_ASSERT_EQUAL(path, 0);
	CU_ASSERT_EQUAL_FATAL(loop_host_ana_set(lh, 1, 1, NVME_ANA_STATE_INACCESSIBLE), 0);
	uint8_t st = 0;
	for (unsigned i = 0; i < 300; i++) {
		CU_ASSERT_EQUAL(nvmf_mpath_ns_ana_state(mp, 1, 0, &st, NULL), 0);
		if (st == NVME_ANA_STATE_INACCESSIBLE)
			break;
		usleep(10000);
	}
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(nvmf_mpath_ns_path(mp, 1, &path), 0);
	CU_ASSERT_EQUAL(path, 1);
	nvmf_mpath_disconnect(mp);
	loop_host_free(lh);
}

static void memory_is_registered_through_every_path(void)
{
	mpf_target(&F, 2, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(mpf_connect(&F, 2, NULL), 0);
	static uint8_t region[1 << 16];
	CU_ASSERT_EQUAL(nvmf_mpath_mem_register(F.mp, region, sizeof(region)), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_write(F.mp, 1, 0, 8, region), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_mem_unregister(F.mp, region), 0);
	CU_ASSERT_EQUAL(nvmf_mpath_mem_unregister(F.mp, region), -ENOENT);
	CU_ASSERT_EQUAL(nvmf_mpath_mem_register(F.mp, NULL, 1), -EINVAL);
	mpf_teardown(&F);
}

const struct unit_test initiator_mpath_tests[] = {
	{ "connect_makes_one_handle_over_each_path_to_one_subsystem",
	  connect_makes_one_handle_over_each_path_to_one_subsystem },
	{ "paths_to_different_subsystems_are_refused", paths_to_different_subsystems_are_refused },
	{ "a_path_with_ctrl_loss_tmo_is_refused", a_path_with_ctrl_loss_tmo_is_refused },
	{ "a_path_that_does_not_connect_fails_the_handle_naming_it",
	  a_path_that_does_not_connect_fails_the_handle_naming_it },
	{ "bad_arguments_are_einval", bad_arguments_are_einval },
	{ "a_subsystem_without_several_controllers_or_ports_is_eopnotsupp",
	  a_subsystem_without_several_controllers_or_ports_is_eopnotsupp },
	{ "ns_path_is_the_first_optimized_then_non_optimized_never_inaccessible",
	  ns_path_is_the_first_optimized_then_non_optimized_never_inaccessible },
	{ "without_ana_reporting_every_path_is_optimized",
	  without_ana_reporting_every_path_is_optimized },
	{ "ns_with_other_identifiers_through_another_path_is_eproto",
	  ns_with_other_identifiers_through_another_path_is_eproto },
	{ "inactive_ns_is_invalid_ns_at_submission", inactive_ns_is_invalid_ns_at_submission },
	{ "an_ana_change_event_is_applied_before_the_next_refresh",
	  an_ana_change_event_is_applied_before_the_next_refresh },
	{ "memory_is_registered_through_every_path", memory_is_registered_through_every_path },
	{ NULL, NULL },
};
