/*
 * Persist Through Power Loss (target/resv-store.c): the reservation of a namespace with
 * PTPL on survives a restart of the target (the fixture built again on the same state
 * file), nothing else is kept, a broken file stops the start with a message naming it,
 * and an entry that no longer matches its namespace is not applied and not lost.
 */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "target/namespace.h"
#include "target/resv.h"
#include "tests/unit/suites.h"
#include "tests/unit/target/resv_fixture.h"

#define WE      NVME_RESERVATION_RTYPE_WE
#define EA      NVME_RESERVATION_RTYPE_EA
#define PERSIST NVME_RESERVATION_CPTPL_PERSIST
#define CLEAR   NVME_RESERVATION_CPTPL_CLEAR

static struct rf R;
static char Dir[32], Path[64];

static void mkdir_tmp(void)
{
	snprintf(Dir, sizeof(Dir), "/tmp/nvmf-resv-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(Dir));
	snprintf(Path, sizeof(Path), "%s/state.json", Dir);
}

static void rm_tmp(void)
{
	unlink(Path);
	rmdir(Dir);
}

static void boot(void)
{
	CU_ASSERT_EQUAL_FATAL(rf_boot(&R, Path), 0);
	rf_host_up(&R, &R.a, FX_HOSTNQN, 0xa1);
	rf_host_up(&R, &R.b, FX_OTHER_HOSTNQN, 0xb2);
}

static void write_file(const char *text)
{
	FILE *f = fopen(Path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static json_t *read_file(void)
{
	json_error_t e;
	json_t *j = json_load_file(Path, 0, &e);
	CU_ASSERT_PTR_NOT_NULL(j);
	return j;
}

struct report {
	struct nvme_resv_status hdr;
	struct nvme_registered_ctrl_ext e[4];
};

/* ---- kept across a restart ---- */

static void ptpl_state_survives_a_target_restart(void)
{
	mkdir_tmp();
	boot();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, rf_cdw10(0, false, 0, PERSIST), 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.b, RF_NS, NVME_RESERVATION_RACQA_ACQUIRE, EA, 0xb, 0),
			      0);
	CU_ASSERT_EQUAL(access(Path, F_OK), 0);
	rf_teardown(&R);

	boot();
	struct report r;
	CU_ASSERT_EQUAL_FATAL(rf_report(&R.a, RF_NS, &r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(le32toh(r.hdr.gen), 2);
	CU_ASSERT_EQUAL(r.hdr.rtype, EA);
	CU_ASSERT_EQUAL(r.hdr.ptpls, 1);
	CU_ASSERT_EQUAL(r.hdr.regctl[0], 2);
	CU_ASSERT_EQUAL(le64toh(r.e[0].rkey), 0xa);
	CU_ASSERT_EQUAL(memcmp(r.e[0].hostid, R.a.id, 16), 0);
	CU_ASSERT_EQUAL(r.e[0].rcsts, 0);
	CU_ASSERT_EQUAL(le64toh(r.e[1].rkey), 0xb);
	CU_ASSERT_EQUAL(r.e[1].rcsts, 1);
	/* Enforced from the first command of the new target. */
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_read), RF_CONFLICT);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_write), 0);
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(rf_get_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, RF_NS, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 1);
	rf_teardown(&R);
	rm_tmp();
}

static void without_ptpl_nothing_is_kept(void)
{
	mkdir_tmp();
	boot();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, NVME_RESERVATION_RACQA_ACQUIRE, WE, 0xa, 0),
			      0);
	CU_ASSERT_EQUAL(access(Path, F_OK), -1);
	rf_teardown(&R);
	boot();
	struct report r;
	CU_ASSERT_EQUAL_FATAL(rf_report(&R.a, RF_NS, &r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(r.hdr.regctl[0], 0);
	CU_ASSERT_EQUAL(r.hdr.rtype, 0);
	rf_teardown(&R);
	rm_tmp();
}

static void ptpl_turned_off_drops_the_entry(void)
{
	mkdir_tmp();
	boot();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, rf_cdw10(0, false, 0, PERSIST), 0, 0xa), 0);
	json_t *j = read_file();
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "namespaces")), 1);
	json_decref(j);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, rf_cdw10(0, false, 0, CLEAR), 0, 0xa), 0);
	j = read_file();
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "namespaces")), 0);
	json_decref(j);
	/* And on again, by the feature this time; off by it too. */
	uint32_t dw0 = 0;
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, RF_NS, 1, &dw0), 0);
	CU_ASSERT_EQUAL(dw0, 1);
	j = read_file();
	json_t *e = json_array_get(json_object_get(j, "namespaces"), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "subsystem")), FX_SUBNQN);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "nsid")), RF_NS);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(
			json_array_get(json_object_get(e, "registrants"), 0), "key")),
		"0x000000000000000a");
	json_decref(j);
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, NVME_NSID_ALL, 0, NULL), 0);
	j = read_file();
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "namespaces")), 0);
	json_decref(j);
	rf_teardown(&R);
	rm_tmp();
}

static void with_a_state_file_rescap_offers_ptpl(void)
{
	mkdir_tmp();
	boot();
	struct nvme_id_ns ns;
	struct nvme_sqe c = rf_sqe(nvme_admin_identify, RF_NS, NVME_IDENTIFY_CNS_NS, 0);
	CU_ASSERT_EQUAL_FATAL(fx_cmd(&R.a.admin, &c, &ns, sizeof(ns), NULL), 0);
	CU_ASSERT_EQUAL(ns.rescap, 0xff);
	rf_teardown(&R);
	rm_tmp();
}

static void a_reservation_kept_comes_back_when_its_namespace_is_enabled_again(void)
{
	mkdir_tmp();
	boot();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, rf_cdw10(0, false, 0, PERSIST), 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.a, RF_NS, NVME_RESERVATION_RACQA_ACQUIRE, WE, 0xa, 0),
			      0);
	struct nvmf_subsys *s = R.fx.tgt.subsys[0];
	char err[256];
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_enable(&R.fx.tgt, s, RF_NS, false, err, sizeof(err)), 1);
	for (int i = 0; i < 3; i++)
		rf_tick(&R);
	CU_ASSERT_EQUAL_FATAL(nvmf_tgt_ns_enable(&R.fx.tgt, s, RF_NS, true, err, sizeof(err)), 1);
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_write), RF_CONFLICT);
	struct report r;
	CU_ASSERT_EQUAL_FATAL(rf_report(&R.b, RF_NS, &r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(r.hdr.rtype, WE);
	rf_teardown(&R);
	rm_tmp();
}

/* ---- what is not applied, and not lost ---- */

#define ENTRY(nsid, uuid)                                                                                        \
	"{\"subsystem\": \"" FX_SUBNQN "\", \"nsid\": " #nsid ", \"uuid\": \"" uuid "\","                        \
	" \"ptpl\": true, \"generation\": 9, \"type\": 1, \"holder\": \"c3c3c3c3-c3c3-c3c3-c3c3-c3c3c3c3c3c3\"," \
	" \"registrants\": [{\"hostid\": \"c3c3c3c3-c3c3-c3c3-c3c3-c3c3c3c3c3c3\", \"key\": \"0x1\"}]}"

static void an_entry_kept_for_another_namespace_is_not_applied_and_stays(void)
{
	mkdir_tmp();
	write_file(
		"{\"version\": 1, \"namespaces\": [" ENTRY(1, "00000000-0000-0000-0000-000000000001") ", " ENTRY(
			5, "00000000-0000-0000-0000-000000000005") "]}");
	boot();
	/* Namespace 1's UUID is another: nothing restored, host B writes. */
	CU_ASSERT_EQUAL(rf_io(&R.b, RF_NS, nvme_cmd_write), 0);
	struct report r;
	CU_ASSERT_EQUAL_FATAL(rf_report(&R.b, RF_NS, &r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(r.hdr.regctl[0], 0);
	/* The file is untouched until a namespace with PTPL changes; nsid 5's entry (no such
	 * namespace now) survives that, nsid 1's is replaced by the new state. */
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, rf_cdw10(0, false, 0, PERSIST), 0, 0xa), 0);
	json_t *j = read_file(), *nss = json_object_get(j, "namespaces");
	CU_ASSERT_EQUAL_FATAL(json_array_size(nss), 2);
	json_t *e5 = json_array_get(nss, 0), *e1 = json_array_get(nss, 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(e5, "nsid")), 5);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(e5, "generation")), 9);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(e1, "nsid")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(e1, "generation")), 1);
	json_decref(j);
	rf_teardown(&R);
	rm_tmp();
}

static void a_state_file_that_cannot_be_written_fails_the_command_and_changes_nothing(void)
{
	mkdir_tmp();
	char missing[96];
	snprintf(missing, sizeof(missing), "%s/no-such-dir/state.json", Dir);
	CU_ASSERT_EQUAL_FATAL(rf_boot(&R, missing), 0);
	rf_host_up(&R, &R.a, FX_HOSTNQN, 0xa1);
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_NS, rf_cdw10(0, false, 0, PERSIST), 0, 0xa),
			nvme_generic(NVME_SC_INTERNAL));
	struct report r;
	CU_ASSERT_EQUAL_FATAL(rf_report(&R.a, RF_NS, &r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(r.hdr.regctl[0], 0);
	CU_ASSERT_EQUAL(r.hdr.ptpls, 0);
	/* Without PTPL nothing is written, so nothing fails. */
	CU_ASSERT_EQUAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL(rf_set_feat(&R.a, NVME_FEAT_FID_RESV_PERSIST, RF_NS, 1, NULL),
			nvme_generic(NVME_SC_INTERNAL));
	rf_teardown(&R);
	rm_tmp();
}

/* ---- a broken file stops the start ---- */

static void expect_broken(const char *text, const char *why)
{
	char want[512], err[512] = "";
	write_file(text);
	snprintf(want, sizeof(want), "reservation state file %s: %s", Path, why);
	CU_ASSERT_EQUAL(nvmf_resv_store_check(Path, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want))
		fprintf(stderr, "\n    got:  %s\n    want: %s\n", err, want);
	/* The target's start refuses it the same way. */
	CU_ASSERT_EQUAL(rf_boot(&R, Path), -1);
	rf_teardown(&R);
}

#define REG(h, k) "{\"hostid\": \"" h "\", \"key\": \"" k "\"}"
#define H1        "a1a1a1a1-a1a1-a1a1-a1a1-a1a1a1a1a1a1"
#define H2        "b2b2b2b2-b2b2-b2b2-b2b2-b2b2b2b2b2b2"
#define NS_(extra, regs)                                                                                \
	"{\"version\": 1, \"namespaces\": [{\"subsystem\": \"s\", \"nsid\": 1, "                        \
	"\"uuid\": \"00000000-0000-0000-0000-000000000001\", \"ptpl\": true, \"generation\": 1, " extra \
	"\"registrants\": [" regs "]}]}"

static void a_broken_state_file_stops_the_start_naming_the_file_and_the_field(void)
{
	mkdir_tmp();
	expect_broken("{\"version\": 1,",
		      "line 1, column 14: string or '}' expected near end of file");
	expect_broken("[]", "not a JSON object");
	expect_broken("{\"version\": 2, \"namespaces\": []}",
		      "version: not 1 (a file of another version of nvmf-target?)");
	expect_broken("{\"version\": 1, \"namespaces\": [], \"x\": 1}", "unknown key \"x\"");
	expect_broken("{\"version\": 1}", "namespaces: missing (an array)");
	expect_broken(NS_("\"type\": 0, \"color\": 1, ", ""),
		      "namespaces[0]: unknown key \"color\"");
	expect_broken(NS_("\"type\": 7, ", ""),
		      "namespaces[0]: type: out of range (an integer 0-6)");
	expect_broken(
		NS_("\"type\": 0, ", REG(H1, "12")),
		"namespaces[0].registrants[0]: key: not a reservation key (\"0x\" and 1-16 hex digits)");
	expect_broken(
		NS_("\"type\": 0, ", REG(H1, "0x12345678901234567")),
		"namespaces[0].registrants[0]: key: not a reservation key (\"0x\" and 1-16 hex digits)");
	expect_broken(
		NS_("\"type\": 0, ", REG(H1, "0x-1")),
		"namespaces[0].registrants[0]: key: not a reservation key (\"0x\" and 1-16 hex digits)");
	expect_broken(NS_("\"type\": 0, ", REG(H1, "0x1") "," REG(H1, "0x2")),
		      "namespaces[0].registrants[1]: hostid: registered twice (registrants[0])");
	expect_broken(NS_("\"type\": 1, ", REG(H1, "0x1")),
		      "namespaces[0]: holder: missing for type 1");
	expect_broken(NS_("\"type\": 1, \"holder\": \"" H2 "\", ", REG(H1, "0x1")),
		      "namespaces[0]: holder: not one of the registrants");
	expect_broken(NS_("\"type\": 5, \"holder\": \"" H1 "\", ", REG(H1, "0x1")),
		      "namespaces[0]: holder: not expected for type 5");
	expect_broken(NS_("\"type\": 6, ", ""), "namespaces[0]: type: 6 without registrants");
	expect_broken(NS_("\"type\": 0, \"uuid\": \"xyz\", ", ""),
		      "line 1, column 156: duplicate object key near '\"uuid\"'");
	rm_tmp();
}

static void a_missing_state_file_is_an_empty_state(void)
{
	mkdir_tmp();
	char err[256];
	CU_ASSERT_EQUAL(nvmf_resv_store_check(Path, err, sizeof(err)), 0);
	boot();
	CU_ASSERT_STRING_EQUAL(nvmf_resv_store_path(&R.fx.tgt), Path);
	CU_ASSERT_TRUE(nvmf_resv_ptpl_capable(&R.fx.tgt));
	rf_teardown(&R);
	CU_ASSERT_EQUAL(access(Path, F_OK), -1); /* nothing to keep, nothing written */
	rm_tmp();
}

const struct unit_test resv_store_tests[] = {
	{ "ptpl_state_survives_a_target_restart", ptpl_state_survives_a_target_restart },
	{ "without_ptpl_nothing_is_kept", without_ptpl_nothing_is_kept },
	{ "ptpl_turned_off_drops_the_entry", ptpl_turned_off_drops_the_entry },
	{ "with_a_state_file_rescap_offers_ptpl", with_a_state_file_rescap_offers_ptpl },
	{ "a_reservation_kept_comes_back_when_its_namespace_is_enabled_again",
	  a_reservation_kept_comes_back_when_its_namespace_is_enabled_again },
	{ "an_entry_kept_for_another_namespace_is_not_applied_and_stays",
	  an_entry_kept_for_another_namespace_is_not_applied_and_stays },
	{ "a_state_file_that_cannot_be_written_fails_the_command_and_changes_nothing",
	  a_state_file_that_cannot_be_written_fails_the_command_and_changes_nothing },
	{ "a_broken_state_file_stops_the_start_naming_the_file_and_the_field",
	  a_broken_state_file_stops_the_start_naming_the_file_and_the_field },
	{ "a_missing_state_file_is_an_empty_state", a_missing_state_file_is_an_empty_state },
	{ NULL, NULL },
};
