/* libnvmf's ANA log read (NVMe Base 2.0 section 8.1, log page 0Ch section 5.16.1.13):
 * sizing, RGO, decoding, every malformed log refused with -EPROTO naming the field, and a
 * namespace's state - against our target through the ANA-playing wrapper (ana_wrap.h),
 * which answers the log as told. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/initiator/ana_wrap.h"
#include "tests/unit/initiator/loop_fixture.h"
#include "tests/unit/suites.h"

static struct lpf F;

static void setup_with(const struct ana_wrap_id *id, uint32_t mdts)
{
	lpf_target(&F, &(struct loop_host_params){ .driven = true, .mdts = mdts });
	struct nvmf_ctrl_opts o = loop_host_opts(F.lh, LH_SUBNQN);
	o.transport = ana_wrap_new(F.lh, id);
	CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &F.ctrl), 0);
}

static void setup(void)
{
	setup_with(NULL, 0);
}

static void msg_has(const char *what)
{
	const char *m = nvmf_ctrl_errmsg(F.ctrl);
	if (!strstr(m, what))
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", m, what);
	CU_ASSERT_PTR_NOT_NULL(strstr(m, what));
}

static void log_lists_each_group_with_its_state_and_ascending_nsids(void)
{
	setup();
	ana_wrap_set_group(2, 3, 0);
	ana_wrap_set_group(5, 3, 0);
	ana_wrap_set_state(0, 3, NVME_ANA_STATE_NONOPTIMIZED);
	ana_wrap_set_state(0, 4, NVME_ANA_STATE_INACCESSIBLE);
	struct nvmf_ana_log *log = NULL;
	CU_ASSERT_EQUAL_FATAL(nvmf_read_ana_log(F.ctrl, false, &log), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	CU_ASSERT_EQUAL(log->chgcnt, 5); /* 1, then four changes */
	CU_ASSERT_EQUAL_FATAL(log->nr_groups, AW_MAX_GROUPS);
	CU_ASSERT_EQUAL(log->groups[0].grpid, 1);
	CU_ASSERT_EQUAL(log->groups[0].state, NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_EQUAL_FATAL(log->groups[0].nr_nsids, 1);
	CU_ASSERT_EQUAL(log->groups[0].nsids[0], 1);
	CU_ASSERT_EQUAL(log->groups[2].grpid, 3);
	CU_ASSERT_EQUAL(log->groups[2].state, NVME_ANA_STATE_NONOPTIMIZED);
	CU_ASSERT_EQUAL(log->groups[2].chgcnt, 5);
	CU_ASSERT_EQUAL_FATAL(log->groups[2].nr_nsids, 2);
	CU_ASSERT_EQUAL(log->groups[2].nsids[0], 2);
	CU_ASSERT_EQUAL(log->groups[2].nsids[1], 5);
	CU_ASSERT_EQUAL(log->groups[3].state, NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(log->groups[3].nr_nsids, 0);
	nvmf_ana_log_free(log);
	lpf_teardown(&F);
}

static void read_is_sized_by_nanagrpid_and_mnan_or_nn_with_nsid_all(void)
{
	setup_with(&(struct ana_wrap_id){ .mnan = 100, .nn = 200 }, 0);
	struct nvmf_ana_log *log;
	CU_ASSERT_EQUAL_FATAL(nvmf_read_ana_log(F.ctrl, false, &log), 0);
	CU_ASSERT_EQUAL(ana_wrap_last_log_len(), 16 + AW_MAX_GROUPS * 32 + 100 * 4);
	CU_ASSERT_EQUAL(ana_wrap_last_log_cdw10() & 0xffff, NVME_LOG_LID_ANA); /* LSP 0, RAE 0 */
	nvmf_ana_log_free(log);
	lpf_teardown(&F);
	setup_with(&(struct ana_wrap_id){ .nn = 200 }, 0); /* MNAN 0: NN */
	CU_ASSERT_EQUAL_FATAL(nvmf_read_ana_log(F.ctrl, false, &log), 0);
	CU_ASSERT_EQUAL(ana_wrap_last_log_len(), 16 + AW_MAX_GROUPS * 32 + 200 * 4);
	nvmf_ana_log_free(log);
	lpf_teardown(&F);
}

static void groups_only_read_sets_rgo_and_reads_no_nsids(void)
{
	setup();
	struct nvmf_ana_log *log;
	CU_ASSERT_EQUAL_FATAL(nvmf_read_ana_log(F.ctrl, true, &log), 0);
	CU_ASSERT_EQUAL(ana_wrap_last_log_cdw10() & 0xff00, 1u << 8); /* LSP bit 0: RGO */
	CU_ASSERT_EQUAL(ana_wrap_last_log_len(), 16 + AW_MAX_GROUPS * 32);
	CU_ASSERT_EQUAL_FATAL(log->nr_groups, AW_MAX_GROUPS);
	for (unsigned i = 0; i < log->nr_groups; i++)
		CU_ASSERT_EQUAL(log->groups[i].nr_nsids, 0);
	nvmf_ana_log_free(log);
	lpf_teardown(&F);
}

static void controller_without_ana_reporting_returns_eopnotsupp(void)
{
	setup_with(&(struct ana_wrap_id){ .no_ana = true }, 0);
	struct nvmf_ana_log *log = (void *)1;
	CU_ASSERT_EQUAL(nvmf_read_ana_log(F.ctrl, false, &log), -EOPNOTSUPP);
	CU_ASSERT_PTR_NULL(log);
	msg_has("CMIC bit 3 clear");
	uint8_t st;
	CU_ASSERT_EQUAL(nvmf_ns_ana_state(F.ctrl, 1, &st, NULL), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(ana_wrap_log_reads(), 0);
	lpf_teardown(&F);
}

/* Identify fields the size comes from, when they make no sense. */
static void bad_identify(const struct ana_wrap_id *id, const char *what)
{
	setup_with(id, 0);
	struct nvmf_ana_log *log;
	CU_ASSERT_EQUAL(nvmf_read_ana_log(F.ctrl, false, &log), -EPROTO);
	msg_has(what);
	CU_ASSERT_EQUAL(ana_wrap_log_reads(), 0);
	lpf_teardown(&F);
}

static void nanagrpid_above_anagrpmax_or_mnan_above_nn_is_eproto(void)
{
	bad_identify(&(struct ana_wrap_id){ .nanagrpid = 9, .anagrpmax = 8 },
		     "NANAGRPID 9 must be 1..ANAGRPMAX (8)");
	bad_identify(&(struct ana_wrap_id){ .mnan = 300, .nn = 200 }, "MNAN 300 exceeds NN 200");
	bad_identify(&(struct ana_wrap_id){ .nn = 0xfffffffe }, "more than the 64 MiB");
}

/* A raw log (on a controller with NANAGRPID 2, ANAGRPMAX 4, MNAN 4: 16 + 64 + 16 = 96
 * bytes read) is refused with -EPROTO and a message holding @what. */
static void refused(const uint8_t *raw, size_t len, bool groups_only, const char *what)
{
	setup_with(&(struct ana_wrap_id){ .nanagrpid = 2, .anagrpmax = 4, .mnan = 4 }, 0);
	ana_wrap_set_raw(raw, len);
	struct nvmf_ana_log *log = (void *)1;
	CU_ASSERT_EQUAL(nvmf_read_ana_log(F.ctrl, groups_only, &log), -EPROTO);
	CU_ASSERT_PTR_NULL(log);
	msg_has(what);
	lpf_teardown(&F);
}

static void malformed_logs_are_refused_naming_the_field(void)
{
	uint8_t b[256];
	const uint32_t one[] = { 1 }, two[] = { 2, 1 }, five[] = { 1, 2, 3, 4, 5 }, zero[] = { 0 },
		       all[] = { 0xffffffffu };
	size_t o;

	aw_log_header(b, 1, 3);
	refused(b, 16, false, "NGRPS 3 exceeds NANAGRPID 2");

	aw_log_header(b, 1, 2); /* 5 NSIDs push descriptor 1 to byte 68: ends at 100 > 96 */
	o = 16 + aw_log_desc(b + 16, 1, NVME_ANA_STATE_OPTIMIZED, 1, 5, five);
	aw_log_desc(b + o, 2, NVME_ANA_STATE_OPTIMIZED, 1, 0, NULL);
	refused(b, o + 32, false, "descriptor 1 at byte 68 runs past the 96 bytes read");

	aw_log_header(b, 1, 1);
	aw_log_desc(b + 16, 1, NVME_ANA_STATE_OPTIMIZED, 1, 20, NULL);
	refused(b, 48, false, "descriptor 0 (group 1): NNSIDS 20 runs past the 96 bytes read");

	aw_log_header(b, 1, 1);
	aw_log_desc(b + 16, 0, NVME_ANA_STATE_OPTIMIZED, 1, 0, NULL);
	refused(b, 48, false, "descriptor 0: ANA group ID 0 is outside 1..ANAGRPMAX (4)");
	aw_log_desc(b + 16, 5, NVME_ANA_STATE_OPTIMIZED, 1, 0, NULL);
	refused(b, 48, false, "descriptor 0: ANA group ID 5 is outside 1..ANAGRPMAX (4)");

	aw_log_header(b, 1, 2);
	aw_log_desc(b + 16, 3, NVME_ANA_STATE_OPTIMIZED, 1, 0, NULL);
	aw_log_desc(b + 48, 3, NVME_ANA_STATE_INACCESSIBLE, 1, 0, NULL);
	refused(b, 80, false, "descriptors 0 and 1 both describe group 3");

	aw_log_header(b, 1, 1);
	aw_log_desc(b + 16, 1, 0x5, 1, 0, NULL);
	refused(b, 48, false, "descriptor 0 (group 1): unknown ANA state 0x5");
	aw_log_desc(b + 16, 1, 0x0, 1, 0, NULL);
	refused(b, 48, false, "unknown ANA state 0x0");

	aw_log_desc(b + 16, 1, NVME_ANA_STATE_OPTIMIZED, 1, 1, one);
	refused(b, 52, true, "descriptor 0 (group 1): NNSIDS 1 in a groups-only (RGO) read");

	aw_log_desc(b + 16, 1, NVME_ANA_STATE_OPTIMIZED, 1, 2, two);
	refused(b, 56, false, "NSID 1 at index 1 is not a valid NSID in ascending order");
	aw_log_desc(b + 16, 1, NVME_ANA_STATE_OPTIMIZED, 1, 1, zero);
	refused(b, 52, false, "NSID 0 at index 0 is not a valid NSID");
	aw_log_desc(b + 16, 1, NVME_ANA_STATE_OPTIMIZED, 1, 1, all);
	refused(b, 52, false, "NSID 4294967295 at index 0 is not a valid NSID");

	aw_log_header(b, 1, 2);
	aw_log_desc(b + 16, 1, NVME_ANA_STATE_OPTIMIZED, 1, 1, one);
	aw_log_desc(b + 52, 2, NVME_ANA_STATE_OPTIMIZED, 1, 1, one);
	refused(b, 88, false, "NSID 1 is in groups");
}

static void reserved_bits_of_the_state_byte_are_ignored(void)
{
	setup_with(&(struct ana_wrap_id){ .nanagrpid = 2, .anagrpmax = 4, .mnan = 4 }, 0);
	uint8_t b[64];
	const uint32_t ids[] = { 1, 2 };
	aw_log_header(b, 7, 1);
	aw_log_desc(b + 16, 4, 0xa0 | NVME_ANA_STATE_NONOPTIMIZED, 9, 2, ids);
	ana_wrap_set_raw(b, 56);
	struct nvmf_ana_log *log;
	CU_ASSERT_EQUAL_FATAL(nvmf_read_ana_log(F.ctrl, false, &log), 0);
	CU_ASSERT_EQUAL(log->chgcnt, 7);
	CU_ASSERT_EQUAL_FATAL(log->nr_groups, 1);
	CU_ASSERT_EQUAL(log->groups[0].grpid, 4);
	CU_ASSERT_EQUAL(log->groups[0].chgcnt, 9);
	CU_ASSERT_EQUAL(log->groups[0].state, NVME_ANA_STATE_NONOPTIMIZED);
	CU_ASSERT_EQUAL(log->groups[0].nr_nsids, 2);
	nvmf_ana_log_free(log);
	lpf_teardown(&F);
}

static void log_larger_than_mdts_is_read_in_parts_and_again_when_chgcnt_moved(void)
{
	/* MDTS 1: 8 KiB per command; 16 + 8 * 32 + 4096 * 4 bytes take three. */
	setup_with(&(struct ana_wrap_id){ .mnan = 4096, .nn = 4096 }, 1);
	CU_ASSERT_EQUAL_FATAL(nvmf_ctrl_max_xfer(F.ctrl), 8192);
	struct nvmf_ana_log *log;
	CU_ASSERT_EQUAL_FATAL(nvmf_read_ana_log(F.ctrl, false, &log), 0);
	CU_ASSERT_EQUAL(ana_wrap_log_reads(), 4); /* three parts, the header again */
	CU_ASSERT_EQUAL(log->groups[0].nsids[0], 1);
	nvmf_ana_log_free(log);
	/* The change count moves before the 7th read: the second round starts with it. */
	ana_wrap_bump_every(7);
	CU_ASSERT_EQUAL_FATAL(nvmf_read_ana_log(F.ctrl, false, &log), 0);
	CU_ASSERT_EQUAL(ana_wrap_log_reads(), 4 + 8);
	nvmf_ana_log_free(log);
	/* Moving before every read: given up after ten rounds. */
	ana_wrap_bump_every(1);
	CU_ASSERT_EQUAL(nvmf_read_ana_log(F.ctrl, false, &log), -EAGAIN);
	msg_has("Change Count moved during each of 10 reads");
	lpf_teardown(&F);
}

static void ns_state_comes_from_its_nsid_list_or_its_anagrpid(void)
{
	setup();
	ana_wrap_set_state(0, 2, NVME_ANA_STATE_INACCESSIBLE);
	ana_wrap_set_group(2, 2, 0);
	uint8_t st = 0;
	uint32_t grp = 0;
	CU_ASSERT_EQUAL(nvmf_ns_ana_state(F.ctrl, 1, &st, &grp), 0);
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_OPTIMIZED);
	CU_ASSERT_EQUAL(grp, 1);
	CU_ASSERT_EQUAL(nvmf_ns_ana_state(F.ctrl, 2, &st, &grp), 0);
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(grp, 2);
	/* Listed in no descriptor: Identify Namespace's ANAGRPID names the group. */
	ana_wrap_set_group(2, 0, 2);
	st = 0;
	CU_ASSERT_EQUAL(nvmf_ns_ana_state(F.ctrl, 2, &st, &grp), 0);
	CU_ASSERT_EQUAL(st, NVME_ANA_STATE_INACCESSIBLE);
	CU_ASSERT_EQUAL(grp, 2);
	ana_wrap_set_group(2, 0, 7);
	ana_wrap_set_raw((uint8_t[16]){ 1 }, 16); /* CHGCNT 1, no descriptor */
	CU_ASSERT_EQUAL(nvmf_ns_ana_state(F.ctrl, 2, &st, &grp), -EPROTO);
	msg_has("namespace 2: its ANA group 7 (Identify Namespace ANAGRPID) is in no descriptor");
	CU_ASSERT_EQUAL(nvmf_ns_ana_state(F.ctrl, 9, &st, &grp),
			(NVME_SC_INVALID_NS | NVME_SC_DNR));
	CU_ASSERT_EQUAL(nvmf_ns_ana_state(F.ctrl, 0, &st, &grp), -EINVAL);
	lpf_teardown(&F);
}

/* Our target's own ANA (target/ana.c), without the wrapper: each port reports its own
 * state of group 1, which holds both namespaces. */
static void our_targets_log_gives_each_ports_state_of_the_group(void)
{
	lpf_target(&F, &(struct loop_host_params){ .n_ports = 2 });
	CU_ASSERT_EQUAL_FATAL(loop_host_ana_set(F.lh, 2, 1, NVME_ANA_STATE_NONOPTIMIZED), 0);
	struct nvmf_ctrl *c[2] = { NULL, NULL };
	for (unsigned p = 0; p < 2; p++) {
		struct nvmf_ctrl_opts o = loop_host_path_opts(F.lh, LH_SUBNQN, p);
		CU_ASSERT_EQUAL_FATAL(nvmf_connect(&o, &c[p]), 0);
	}
	static const uint8_t want[2] = { NVME_ANA_STATE_OPTIMIZED, NVME_ANA_STATE_NONOPTIMIZED };
	for (unsigned p = 0; p < 2; p++) {
		struct nvmf_ana_log *log = NULL;
		CU_ASSERT_EQUAL_FATAL(nvmf_read_ana_log(c[p], false, &log), 0);
		CU_ASSERT_FATAL(log->nr_groups >= 1);
		CU_ASSERT_EQUAL(log->groups[0].grpid, 1);
		CU_ASSERT_EQUAL(log->groups[0].state, want[p]);
		CU_ASSERT_EQUAL_FATAL(log->groups[0].nr_nsids, 2);
		CU_ASSERT_EQUAL(log->groups[0].nsids[0], 1);
		CU_ASSERT_EQUAL(log->groups[0].nsids[1], 2);
		CU_ASSERT(log->chgcnt >= 1);
		nvmf_ana_log_free(log);
		CU_ASSERT_EQUAL(nvmf_read_ana_log(c[p], true, &log), 0);
		CU_ASSERT_EQUAL(log->groups[0].nr_nsids, 0);
		nvmf_ana_log_free(log);
		uint8_t st = 0;
		uint32_t grp = 0;
		CU_ASSERT_EQUAL(nvmf_ns_ana_state(c[p], 2, &st, &grp), 0);
		CU_ASSERT_EQUAL(st, want[p]);
		CU_ASSERT_EQUAL(grp, 1);
	}
	for (unsigned p = 0; p < 2; p++)
		nvmf_disconnect(c[p]);
	lpf_teardown(&F);
}

static void state_names_are_the_linux_hosts(void)
{
	CU_ASSERT_STRING_EQUAL(nvmf_ana_state_str(NVME_ANA_STATE_OPTIMIZED), "optimized");
	CU_ASSERT_STRING_EQUAL(nvmf_ana_state_str(NVME_ANA_STATE_NONOPTIMIZED), "non-optimized");
	CU_ASSERT_STRING_EQUAL(nvmf_ana_state_str(NVME_ANA_STATE_INACCESSIBLE), "inaccessible");
	CU_ASSERT_STRING_EQUAL(nvmf_ana_state_str(NVME_ANA_STATE_PERSISTENT_LOSS),
			       "persistent-loss");
	CU_ASSERT_STRING_EQUAL(nvmf_ana_state_str(NVME_ANA_STATE_CHANGE), "change");
	CU_ASSERT_STRING_EQUAL(nvmf_ana_state_str(0), "unknown");
	CU_ASSERT_STRING_EQUAL(nvmf_ana_state_str(5), "unknown");
}

const struct unit_test initiator_ana_tests[] = {
	{ "log_lists_each_group_with_its_state_and_ascending_nsids",
	  log_lists_each_group_with_its_state_and_ascending_nsids },
	{ "read_is_sized_by_nanagrpid_and_mnan_or_nn_with_nsid_all",
	  read_is_sized_by_nanagrpid_and_mnan_or_nn_with_nsid_all },
	{ "groups_only_read_sets_rgo_and_reads_no_nsids",
	  groups_only_read_sets_rgo_and_reads_no_nsids },
	{ "controller_without_ana_reporting_returns_eopnotsupp",
	  controller_without_ana_reporting_returns_eopnotsupp },
	{ "nanagrpid_above_anagrpmax_or_mnan_above_nn_is_eproto",
	  nanagrpid_above_anagrpmax_or_mnan_above_nn_is_eproto },
	{ "malformed_logs_are_refused_naming_the_field",
	  malformed_logs_are_refused_naming_the_field },
	{ "reserved_bits_of_the_state_byte_are_ignored",
	  reserved_bits_of_the_state_byte_are_ignored },
	{ "log_larger_than_mdts_is_read_in_parts_and_again_when_chgcnt_moved",
	  log_larger_than_mdts_is_read_in_parts_and_again_when_chgcnt_moved },
	{ "ns_state_comes_from_its_nsid_list_or_its_anagrpid",
	  ns_state_comes_from_its_nsid_list_or_its_anagrpid },
	{ "our_targets_log_gives_each_ports_state_of_the_group",
	  our_targets_log_gives_each_ports_state_of_the_group },
	{ "state_names_are_the_linux_hosts", state_names_are_the_linux_hosts },
	{ NULL, NULL },
};
