/* libnvmf discovery: reading the Discovery Log Page as header, entries (in MDTS chunks),
 * header again, restarting when genctr changes - against our discovery controller
 * through the loop host transport. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

static struct lpf F;
static struct nvmf_disc_entry *e;
static size_t n;

static void setup(const struct loop_host_params *p, const char *hostnqn)
{
	lpf_target(&F, p);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, NULL); /* default: discovery NQN */
	if (hostnqn)
		o.hostnqn = hostnqn;
	e = NULL;
	n = 0;
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
	CU_ASSERT_EQUAL(nvmf_ctrl_nr_io_queues(F.ctrl), 0);
}

static void teardown(void)
{
	free(e);
	lpf_teardown(&F);
}

static void host_allowed_nowhere_reads_only_the_discovery_subsystem_entry(void)
{
	/* lh0 admits only LH_HOSTNQN: a stranger sees the discovery service alone. */
	setup(NULL, LH_OTHER_HOSTNQN);
	uint64_t gen = 0;
	CU_ASSERT_EQUAL(nvmf_read_discovery_log(F.ctrl, &e, &n, &gen), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(e[0].subtype, NVME_NQN_CURR);
	CU_ASSERT_STRING_EQUAL(e[0].subnqn, NVME_DISC_SUBSYS_NAME);
	CU_ASSERT_EQUAL(e[0].eflags, NVMF_DISC_EFLAGS_DUPRETINFO | NVMF_DISC_EFLAGS_EPCSD);
	CU_ASSERT_NOT_EQUAL(gen, 0);
	CU_ASSERT_EQUAL(loop_host_disc_log_reads(F.lh), 3);
	teardown();
}

static void discovery_log_with_one_entry_is_decoded(void)
{
	setup(NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(nvmf_read_discovery_log(F.ctrl, &e, &n, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(e[0].subtype, NVME_NQN_CURR);
	e[0] = e[1]; /* the subsystem's entry */
	CU_ASSERT_EQUAL(e[0].trtype, NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(e[0].adrfam, NVMF_ADDR_FAMILY_IP4);
	CU_ASSERT_EQUAL(e[0].subtype, NVME_NQN_NVME);
	CU_ASSERT_EQUAL(e[0].portid, 1);
	CU_ASSERT_EQUAL(e[0].cntlid, 0xffff);
	CU_ASSERT_EQUAL(e[0].asqsz, 32);
	CU_ASSERT_STRING_EQUAL(e[0].trsvcid, "4420");
	CU_ASSERT_STRING_EQUAL(e[0].traddr, "127.0.0.1");
	CU_ASSERT_STRING_EQUAL(e[0].subnqn, LH_SUBNQN);
	CU_ASSERT_EQUAL(e[0].rdma_qptype, NVMF_RDMA_QPTYPE_CONNECTED);
	CU_ASSERT_EQUAL(e[0].rdma_cms, NVMF_RDMA_CMS_RDMA_CM);
	/* header, entries, header */
	CU_ASSERT_EQUAL(loop_host_disc_log_reads(F.lh), 3);
	teardown();
}

/* The discovery subsystem's entry, then @want subsystems lh0, lh1, ... */
static void check_entries(size_t want)
{
	CU_ASSERT_EQUAL_FATAL(n, want + 1);
	CU_ASSERT_EQUAL(e[0].subtype, NVME_NQN_CURR);
	for (size_t i = 0; i < want; i++) {
		char nqn[64];
		snprintf(nqn, sizeof(nqn), "nqn.2026-11.io.nvmf-rdma:lh%zu", i);
		CU_ASSERT_STRING_EQUAL(e[i + 1].subnqn, nqn);
		CU_ASSERT_STRING_EQUAL(e[i + 1].traddr, "127.0.0.1");
	}
}

static void discovery_log_larger_than_mdts_is_read_in_chunks(void)
{
	/* 11 entries = 11 KiB after the header; MDTS 1 = 8 KiB per command. */
	setup(&(struct loop_host_params){ .n_subsys = 10, .mdts = 1 }, NULL);
	CU_ASSERT_EQUAL(nvmf_ctrl_max_xfer(F.ctrl), 8192);
	CU_ASSERT_EQUAL_FATAL(nvmf_read_discovery_log(F.ctrl, &e, &n, NULL), 0);
	check_entries(10);
	CU_ASSERT_EQUAL(loop_host_disc_log_reads(F.lh), 4); /* header, 8 KiB, 3 KiB, header */
	teardown();
}

static void discovery_log_restarts_when_genctr_changes_between_header_reads(void)
{
	setup(&(struct loop_host_params){ .n_subsys = 6 }, NULL); /* 6 KiB of entries */
	loop_host_bump_genctr(F.lh, 1, false);
	uint64_t gen = 0;
	CU_ASSERT_EQUAL_FATAL(nvmf_read_discovery_log(F.ctrl, &e, &n, &gen), 0);
	check_entries(6);
	/* Two passes of header, entries, header: the first saw genctr change. */
	CU_ASSERT_EQUAL(loop_host_disc_log_reads(F.lh), 6);
	free(e);
	e = NULL;
	uint64_t again = 0;
	CU_ASSERT_EQUAL_FATAL(nvmf_read_discovery_log(F.ctrl, &e, &n, &again), 0);
	CU_ASSERT_EQUAL(again, gen); /* the counter we got is the current one */
	teardown();
}

static void discovery_log_gives_up_when_genctr_changes_every_time(void)
{
	setup(&(struct loop_host_params){ .n_subsys = 2 }, NULL);
	loop_host_bump_genctr(F.lh, 0, true);
	int rc = nvmf_read_discovery_log(F.ctrl, &e, &n, NULL);
	CU_ASSERT_EQUAL(rc, -EAGAIN);
	CU_ASSERT_PTR_NULL(e);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(loop_host_disc_log_reads(F.lh), 30); /* 10 tries of 3 reads */
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_ctrl_errmsg(F.ctrl), "changed while it was read"));
	teardown();
}

static void discover_connects_reads_and_disconnects(void)
{
	lpf_target(&F, &(struct loop_host_params){ .n_subsys = 3 });
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, NULL);
	e = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_discover(&o, &e, &n, NULL), 0);
	check_entries(3);
	CU_ASSERT_EQUAL(loop_host_live_ctrls(F.lh), 0);
	CU_ASSERT_EQUAL(loop_host_admin_count(F.lh, nvme_admin_keep_alive), 0);
	teardown();
}

static void discover_with_unknown_host_connect_error_sets_last_errmsg(void)
{
	lpf_target(&F, NULL);
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, "nqn.2026-11.io.nvmf-rdma:nosuch");
	e = NULL;
	CU_ASSERT_EQUAL(nvmf_discover(&o, &e, &n, NULL), 0x4182);
	CU_ASSERT_PTR_NULL(e);
	CU_ASSERT_PTR_NOT_NULL(strstr(nvmf_last_errmsg(), "nosuch"));
	teardown();
}

const struct unit_test initiator_discovery_tests[] = {
	{ "host_allowed_nowhere_reads_only_the_discovery_subsystem_entry",
	  host_allowed_nowhere_reads_only_the_discovery_subsystem_entry },
	{ "discovery_log_with_one_entry_is_decoded", discovery_log_with_one_entry_is_decoded },
	{ "discovery_log_larger_than_mdts_is_read_in_chunks",
	  discovery_log_larger_than_mdts_is_read_in_chunks },
	{ "discovery_log_restarts_when_genctr_changes_between_header_reads",
	  discovery_log_restarts_when_genctr_changes_between_header_reads },
	{ "discovery_log_gives_up_when_genctr_changes_every_time",
	  discovery_log_gives_up_when_genctr_changes_every_time },
	{ "discover_connects_reads_and_disconnects", discover_connects_reads_and_disconnects },
	{ "discover_with_unknown_host_connect_error_sets_last_errmsg",
	  discover_with_unknown_host_connect_error_sets_last_errmsg },
	{ NULL, NULL },
};
