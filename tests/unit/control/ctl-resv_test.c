/* The namespace_reservation control method (control/ctl-resv.c) against a target whose
 * hosts registered and reserved through real commands (resv_fixture.h). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "control/control.h"
#include "tests/unit/suites.h"
#include "tests/unit/control/ctl_fixture.h"
#include "tests/unit/target/resv_fixture.h"

static struct rf R;
static struct nvmf_ctl Ctl;

static void setup(void)
{
	CU_ASSERT_EQUAL_FATAL(rf_boot(&R, NULL), 0);
	memset(&Ctl, 0, sizeof(Ctl));
	Ctl.tgt = &R.fx.tgt;
	rf_host_up(&R, &R.a, FX_HOSTNQN, 0xa1);
	rf_host_up(&R, &R.a2, FX_HOSTNQN, 0xa1);
	rf_host_up(&R, &R.b, FX_OTHER_HOSTNQN, 0xb2);
}

static const char *s(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	return v;
}

static json_int_t n(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	CU_ASSERT_TRUE_FATAL(json_is_integer(v));
	return json_integer_value(v);
}

#define PARAMS(nsid) "{\"nqn\":\"" FX_SUBNQN "\",\"nsid\":" #nsid "}"

static void namespace_reservation_lists_registrants_holder_and_their_controllers(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.b, RF_NS, NVME_RESERVATION_RACQA_ACQUIRE,
					 NVME_RESERVATION_RTYPE_WERO, 0xb, 0),
			      0);
	json_t *resp = ctl_call(&Ctl, "namespace_reservation", PARAMS(1));
	json_t *r = ctl_result(resp);
	CU_ASSERT_STRING_EQUAL(s(r, "nqn"), FX_SUBNQN);
	CU_ASSERT_EQUAL(n(r, "nsid"), 1);
	CU_ASSERT_TRUE(json_is_true(json_object_get(r, "enabled")));
	CU_ASSERT_EQUAL(n(r, "type"), NVME_RESERVATION_RTYPE_WERO);
	CU_ASSERT_STRING_EQUAL(s(r, "type_name"), "write-exclusive-registrants-only");
	CU_ASSERT_EQUAL(n(r, "generation"), 2);
	CU_ASSERT_TRUE(json_is_false(json_object_get(r, "ptpl")));
	CU_ASSERT_TRUE(json_is_null(json_object_get(r, "state_file")));
	CU_ASSERT_STRING_EQUAL(s(r, "holder"), "b2b2b2b2-b2b2-b2b2-b2b2-b2b2b2b2b2b2");
	json_t *regs = json_object_get(r, "registrants");
	CU_ASSERT_EQUAL_FATAL(json_array_size(regs), 2);
	json_t *a = json_array_get(regs, 0), *b = json_array_get(regs, 1);
	CU_ASSERT_STRING_EQUAL(s(a, "hostid"), "a1a1a1a1-a1a1-a1a1-a1a1-a1a1a1a1a1a1");
	CU_ASSERT_STRING_EQUAL(s(a, "key"), "0x000000000000000a");
	CU_ASSERT_TRUE(json_is_false(json_object_get(a, "holder")));
	/* Host A's two controllers, its NQN once. */
	CU_ASSERT_EQUAL(json_array_size(json_object_get(a, "controllers")), 2);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(a, "hostnqns")), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(a, "hostnqns"), 0)),
			       FX_HOSTNQN);
	CU_ASSERT_TRUE(json_is_true(json_object_get(b, "holder")));
	CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(b, "controllers"), 0)),
			R.b.cntlid);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(b, "hostnqns"), 0)),
			       FX_OTHER_HOSTNQN);
	json_decref(resp);
	rf_teardown(&R);
}

static void namespace_reservation_of_a_registrant_whose_controllers_left(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	fx_disconnect(&R.b.io);
	fx_disconnect(&R.b.admin);
	for (int i = 0; i < 3; i++)
		rf_tick(&R);
	json_t *resp = ctl_call(&Ctl, "namespace_reservation", PARAMS(1));
	json_t *reg = json_array_get(json_object_get(ctl_result(resp), "registrants"), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(reg);
	/* The registration is the host's: it stays without a controller. */
	CU_ASSERT_STRING_EQUAL(s(reg, "key"), "0x000000000000000b");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(reg, "controllers")), 0);
	CU_ASSERT_TRUE(json_is_null(json_object_get(ctl_result(resp), "holder")));
	json_decref(resp);
	rf_teardown(&R);
}

static void namespace_reservation_without_reservations_or_namespace(void)
{
	setup();
	json_t *resp = ctl_call(&Ctl, "namespace_reservation", PARAMS(2));
	json_t *r = ctl_result(resp);
	CU_ASSERT_TRUE(json_is_false(json_object_get(r, "enabled")));
	CU_ASSERT_PTR_NULL(json_object_get(r, "registrants"));
	json_decref(resp);
	ctl_expect_error(&Ctl, "namespace_reservation", PARAMS(7), NVMF_RPC_NOT_FOUND,
			 "parameter 'nsid': subsystem " FX_SUBNQN " has no enabled namespace 7");
	ctl_expect_error(&Ctl, "namespace_reservation", "{\"nqn\":\"nqn.x:none\",\"nsid\":1}",
			 NVMF_RPC_NOT_FOUND, "parameter 'nqn': no subsystem nqn.x:none");
	ctl_expect_error(&Ctl, "namespace_reservation", "{\"nqn\":\"" FX_SUBNQN "\"}",
			 NVMF_RPC_INVALID_PARAMS, "missing parameter 'nsid' (an integer)");
	rf_teardown(&R);
}

/* namespace_add takes the config's resv object, as the loader does. */
static void namespace_added_with_resv_enable_takes_reservations(void)
{
	setup();
	ctl_ok(&Ctl, "namespace_add",
	       "{\"nqn\":\"" FX_SUBNQN "\",\"namespace\":{\"nsid\":3,"
	       "\"nvmf_backend\":\"ram\",\"nvmf_size_bytes\":\"1M\",\"resv\":{\"enable\":\"1\"}}}");
	json_t *resp = ctl_call(&Ctl, "namespace_reservation", PARAMS(3));
	CU_ASSERT_TRUE(json_is_true(json_object_get(ctl_result(resp), "enabled")));
	json_decref(resp);
	CU_ASSERT_EQUAL(rf_register(&R.a, 3, 0, 0, 0x33), 0);
	ctl_expect_error(
		&Ctl, "namespace_add",
		"{\"nqn\":\"" FX_SUBNQN "\",\"namespace\":{\"nsid\":4,"
		"\"nvmf_backend\":\"ram\",\"nvmf_size_bytes\":\"1M\",\"resv\":{\"enable\":\"2\"}}}",
		NVMF_RPC_INVALID_PARAMS,
		"namespace.resv.enable: expected 0 or 1 (or true/false), got \"2\"");
	rf_teardown(&R);
}

/* ---- namespace_reservation_clear ---- */

#define PREEMPTED NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED

static void clear_ends_the_reservation_tells_the_registrants_and_logs_the_holder(void)
{
	setup();
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.a, RF_NS, 0, 0, 0xa), 0);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS, 0, 0, 0xb), 0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.b, RF_NS, NVME_RESERVATION_RACQA_ACQUIRE,
					 NVME_RESERVATION_RTYPE_EA, 0xb, 0),
			      0);
	/* Host A is fenced off (Exclusive Access held by B) until the operator clears it. */
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_write), RF_CONFLICT);
	struct fx_stderr log;
	fx_stderr_begin(&log);
	json_t *resp = ctl_call(&Ctl, "namespace_reservation_clear", PARAMS(1));
	fx_stderr_end(&log);
	json_t *r = ctl_result(resp);
	CU_ASSERT_TRUE(json_is_true(json_object_get(r, "cleared")));
	CU_ASSERT_EQUAL(n(r, "type"), NVME_RESERVATION_RTYPE_EA);
	CU_ASSERT_STRING_EQUAL(s(r, "holder"), "b2b2b2b2-b2b2-b2b2-b2b2-b2b2b2b2b2b2");
	CU_ASSERT_EQUAL(n(r, "registrants"), 2);
	CU_ASSERT_EQUAL(n(r, "generation"), 3); /* two registers, then the clear */
	json_decref(resp);
	/* One warning naming the holder by host ID and NQN. */
	CU_ASSERT_PTR_NOT_NULL(strstr(log.text, "warning"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
		log.text, "subsystem " FX_SUBNQN ", namespace 1: reservation cleared by the "
			  "operator: exclusive-access held by host "
			  "b2b2b2b2-b2b2-b2b2-b2b2-b2b2b2b2b2b2 (" FX_OTHER_HOSTNQN "), 2 "
			  "registrant(s) removed (told Reservation Preempted), generation 3"));

	/* Gone: no registrant, no type; A writes again. */
	resp = ctl_call(&Ctl, "namespace_reservation", PARAMS(1));
	r = ctl_result(resp);
	CU_ASSERT_EQUAL(n(r, "type"), 0);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "registrants")), 0);
	CU_ASSERT_EQUAL(n(r, "generation"), 3);
	json_decref(resp);
	CU_ASSERT_EQUAL(rf_io(&R.a, RF_NS, nvme_cmd_write), 0);
	/* Every controller of every registrant heard Reservation Preempted, once. */
	struct rf_host *ctrls[] = { &R.a, &R.a2, &R.b };
	struct nvme_resv_notification_log l;
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(rf_log80(ctrls[i], &l, false), 0);
		CU_ASSERT_EQUAL(l.rnlpt, PREEMPTED);
		CU_ASSERT_EQUAL(le32toh(l.nsid), RF_NS);
		CU_ASSERT_EQUAL(l.nalp, 0);
	}

	/* Again: nothing to clear, nothing changes, nothing logged. */
	fx_stderr_begin(&log);
	resp = ctl_call(&Ctl, "namespace_reservation_clear", PARAMS(1));
	fx_stderr_end(&log);
	r = ctl_result(resp);
	CU_ASSERT_TRUE(json_is_false(json_object_get(r, "cleared")));
	CU_ASSERT_EQUAL(n(r, "generation"), 3);
	CU_ASSERT_EQUAL(log.text[0], 0);
	json_decref(resp);
	rf_teardown(&R);
}

static void clear_of_a_namespace_without_reservations_is_refused(void)
{
	setup();
	ctl_expect_error(&Ctl, "namespace_reservation_clear", PARAMS(2), NVMF_RPC_REFUSED,
			 "namespace 2 of " FX_SUBNQN " has no reservations (resv.enable 0): "
			 "nothing to clear");
	ctl_expect_error(&Ctl, "namespace_reservation_clear", PARAMS(7), NVMF_RPC_NOT_FOUND,
			 "parameter 'nsid': subsystem " FX_SUBNQN " has no enabled namespace 7");
	rf_teardown(&R);
}

/* With PTPL on, the state file says the clear too: a restart does not bring it back. */
static void clear_is_written_to_the_state_file(void)
{
	char dir[32] = "/tmp/nvmf-ctlresv-XXXXXX", path[64];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.json", dir);
	CU_ASSERT_EQUAL_FATAL(rf_boot(&R, path), 0);
	memset(&Ctl, 0, sizeof(Ctl));
	Ctl.tgt = &R.fx.tgt;
	rf_host_up(&R, &R.b, FX_OTHER_HOSTNQN, 0xb2);
	CU_ASSERT_EQUAL_FATAL(rf_register(&R.b, RF_NS,
					  rf_cdw10(0, false, 0, NVME_RESERVATION_CPTPL_PERSIST), 0,
					  0xb),
			      0);
	CU_ASSERT_EQUAL_FATAL(rf_acquire(&R.b, RF_NS, NVME_RESERVATION_RACQA_ACQUIRE,
					 NVME_RESERVATION_RTYPE_WE, 0xb, 0),
			      0);
	ctl_ok(&Ctl, "namespace_reservation_clear", PARAMS(1));
	rf_teardown(&R);

	CU_ASSERT_EQUAL_FATAL(rf_boot(&R, path), 0);
	memset(&Ctl, 0, sizeof(Ctl));
	Ctl.tgt = &R.fx.tgt;
	json_t *resp = ctl_call(&Ctl, "namespace_reservation", PARAMS(1));
	json_t *r = ctl_result(resp);
	CU_ASSERT_EQUAL(n(r, "type"), 0);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "registrants")), 0);
	CU_ASSERT_EQUAL(n(r, "generation"), 2);                   /* the register, then the clear */
	CU_ASSERT_TRUE(json_is_true(json_object_get(r, "ptpl"))); /* a clear keeps PTPL */
	json_decref(resp);
	rf_teardown(&R);
	unlink(path);
	rmdir(dir);
}

const struct unit_test ctl_resv_tests[] = {
	{ "clear_ends_the_reservation_tells_the_registrants_and_logs_the_holder",
	  clear_ends_the_reservation_tells_the_registrants_and_logs_the_holder },
	{ "clear_of_a_namespace_without_reservations_is_refused",
	  clear_of_a_namespace_without_reservations_is_refused },
	{ "clear_is_written_to_the_state_file", clear_is_written_to_the_state_file },
	{ "namespace_added_with_resv_enable_takes_reservations",
	  namespace_added_with_resv_enable_takes_reservations },
	{ "namespace_reservation_lists_registrants_holder_and_their_controllers",
	  namespace_reservation_lists_registrants_holder_and_their_controllers },
	{ "namespace_reservation_of_a_registrant_whose_controllers_left",
	  namespace_reservation_of_a_registrant_whose_controllers_left },
	{ "namespace_reservation_without_reservations_or_namespace",
	  namespace_reservation_without_reservations_or_namespace },
	{ NULL, NULL },
};
