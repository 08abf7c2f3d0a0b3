/* The reservation rules of nvme/resv.c, one rule per test: what each command does to a
 * namespace's state, what it answers, whom it notifies, what the report says and which
 * I/O each host keeps (NVMe Base 2.0 section 8.19). */
#include <CUnit/CUnit.h>
#include <string.h>
#include "nvme/resv.h"
#include "tests/unit/suites.h"

#define FIELD    (nvme_generic(NVME_SC_INVALID_FIELD) | NVME_SC_DNR)
#define CONFLICT (nvme_generic(NVME_SC_RESERVATION_CONFLICT) | NVME_SC_DNR)

#define WE   NVME_RESERVATION_RTYPE_WE
#define EA   NVME_RESERVATION_RTYPE_EA
#define WERO NVME_RESERVATION_RTYPE_WERO
#define EARO NVME_RESERVATION_RTYPE_EARO
#define WEAR NVME_RESERVATION_RTYPE_WEAR
#define EAAR NVME_RESERVATION_RTYPE_EAAR

#define REG_PREEMPTED NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED
#define RELEASED      NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED
#define PREEMPTED     NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED

/* A state with room for every test's registrants, and hosts 1, 2, 3, ... */
struct t {
	struct nvme_resv_state st;
	struct nvme_resv_reg regs[8];
	struct nvme_resv_notice n[8];
	unsigned nn;
};

static const uint8_t *host(unsigned i)
{
	static uint8_t ids[8][16];
	memset(ids[i], 0, 16);
	ids[i][0] = 0x10;
	ids[i][15] = (uint8_t)i;
	return ids[i];
}

static void init(struct t *t)
{
	memset(t, 0, sizeof(*t));
	t->st.regs = t->regs;
}

static uint32_t c10(unsigned action, bool iekey, uint8_t rtype, unsigned cptpl)
{
	return action | (iekey ? 1u << 3 : 0) | (uint32_t)rtype << 8 | (uint32_t)cptpl << 30;
}

static nvme_status_t reg(struct t *t, unsigned h, unsigned action, bool iekey, uint64_t crkey,
			 uint64_t nrkey)
{
	return nvme_resv_exec_register(&t->st, host(h), c10(action, iekey, 0, 0), crkey, nrkey,
				       true, t->n, &t->nn);
}

static nvme_status_t acq(struct t *t, unsigned h, unsigned action, uint8_t rtype, uint64_t crkey,
			 uint64_t prkey)
{
	return nvme_resv_exec_acquire(&t->st, host(h), c10(action, false, rtype, 0), crkey, prkey,
				      t->n, &t->nn);
}

static nvme_status_t rel(struct t *t, unsigned h, unsigned action, uint8_t rtype, uint64_t crkey)
{
	return nvme_resv_exec_release(&t->st, host(h), c10(action, false, rtype, 0), crkey, t->n,
				      &t->nn);
}

/* Hosts 1..n registered with keys 0x100 + i. */
static void with_regs(struct t *t, unsigned n)
{
	init(t);
	for (unsigned i = 1; i <= n; i++)
		CU_ASSERT_EQUAL_FATAL(reg(t, i, 0, false, 0, 0x100 + i), 0);
}

static bool notified(const struct t *t, unsigned h, uint8_t type)
{
	for (unsigned i = 0; i < t->nn; i++)
		if (!memcmp(t->n[i].hostid, host(h), 16) && t->n[i].type == type)
			return true;
	return false;
}

static bool registered(const struct t *t, unsigned h)
{
	return nvme_resv_find(&t->st, host(h)) >= 0;
}

/* ---- command groups and access ---- */

static void read_group_is_read_compare_verify_and_write_group_the_rest_that_store(void)
{
	CU_ASSERT_EQUAL(nvme_resv_cmd_group(nvme_cmd_read), NVME_RESV_GROUP_READ);
	CU_ASSERT_EQUAL(nvme_resv_cmd_group(nvme_cmd_compare), NVME_RESV_GROUP_READ);
	CU_ASSERT_EQUAL(nvme_resv_cmd_group(nvme_cmd_verify), NVME_RESV_GROUP_READ);
	const uint8_t writes[] = { nvme_cmd_flush,         nvme_cmd_write,     nvme_cmd_write_uncor,
				   nvme_cmd_write_zeroes,  nvme_cmd_dsm,       nvme_cmd_copy,
				   nvme_zns_cmd_mgmt_send, nvme_zns_cmd_append };
	for (size_t i = 0; i < sizeof(writes); i++)
		CU_ASSERT_EQUAL(nvme_resv_cmd_group(writes[i]), NVME_RESV_GROUP_WRITE);
	const uint8_t none[] = { nvme_cmd_resv_register, nvme_cmd_resv_report,
				 nvme_cmd_resv_acquire, nvme_cmd_resv_release, 0x7f };
	for (size_t i = 0; i < sizeof(none); i++)
		CU_ASSERT_EQUAL(nvme_resv_cmd_group(none[i]), NVME_RESV_GROUP_NONE);
}

static void without_a_reservation_nobody_is_denied(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL(nvme_resv_deny(&t.st, host(1)), 0);
	CU_ASSERT_EQUAL(nvme_resv_deny(&t.st, host(5)), 0);
}

/* Host 1 holds @type, host 2 is registered, host 3 is not: the spec's table. */
static void deny_matrix_follows_the_spec_for_every_type(void)
{
	static const struct {
		uint8_t type, holder, registrant, other;
	} m[] = {
		{ WE, 0, NVME_RESV_DENY_WRITE, NVME_RESV_DENY_WRITE },
		{ EA, 0, NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE,
		  NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE },
		{ WERO, 0, 0, NVME_RESV_DENY_WRITE },
		{ EARO, 0, 0, NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE },
		{ WEAR, 0, 0, NVME_RESV_DENY_WRITE },
		{ EAAR, 0, 0, NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE },
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct t t;
		with_regs(&t, 2);
		CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, m[i].type, 0x101, 0), 0);
		CU_ASSERT_EQUAL(nvme_resv_deny(&t.st, host(1)), m[i].holder);
		CU_ASSERT_EQUAL(nvme_resv_deny(&t.st, host(2)), m[i].registrant);
		CU_ASSERT_EQUAL(nvme_resv_deny(&t.st, host(3)), m[i].other);
	}
}

static void every_registrant_holds_an_all_registrants_reservation(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 2, 0, EAAR, 0x102, 0), 0);
	CU_ASSERT_TRUE(nvme_resv_is_holder(&t.st, 0));
	CU_ASSERT_TRUE(nvme_resv_is_holder(&t.st, 1));
	struct t u;
	with_regs(&u, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&u, 2, 0, EA, 0x102, 0), 0);
	CU_ASSERT_FALSE(nvme_resv_is_holder(&u.st, 0));
	CU_ASSERT_TRUE(nvme_resv_is_holder(&u.st, 1));
}

/* ---- Register ---- */

static void register_adds_the_host_and_bumps_the_generation(void)
{
	struct t t;
	init(&t);
	CU_ASSERT_EQUAL(reg(&t, 1, 0, false, 0, 0xabc), 0);
	CU_ASSERT_EQUAL(t.st.nregs, 1);
	CU_ASSERT_EQUAL(t.st.regs[0].rkey, 0xabc);
	CU_ASSERT_EQUAL(memcmp(t.st.regs[0].hostid, host(1), 16), 0);
	CU_ASSERT_EQUAL(t.st.gen, 1);
	CU_ASSERT_EQUAL(t.nn, 0);
}

static void register_again_with_the_same_key_succeeds(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL(reg(&t, 1, 0, false, 0, 0x101), 0);
	CU_ASSERT_EQUAL(t.st.nregs, 1);
	CU_ASSERT_EQUAL(t.st.gen, 2);
}

static void register_again_with_another_key_is_reservation_conflict(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL(reg(&t, 1, 0, false, 0, 0x999), CONFLICT);
	CU_ASSERT_EQUAL(t.st.regs[0].rkey, 0x101);
	CU_ASSERT_EQUAL(t.st.gen, 1);
}

/* IEKEY disables the CRKEY check, which Register does not make: no key change through it. */
static void register_again_with_another_key_conflicts_even_with_iekey(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL(reg(&t, 1, 0, true, 0x101, 0x999), CONFLICT);
	CU_ASSERT_EQUAL(t.st.regs[0].rkey, 0x101);
}

static void register_reserved_action_or_cptpl_is_invalid_field(void)
{
	struct t t;
	init(&t);
	for (unsigned a = 3; a < 8; a++)
		CU_ASSERT_EQUAL(reg(&t, 1, a, false, 0, 1), FIELD);
	CU_ASSERT_EQUAL(nvme_resv_exec_register(&t.st, host(1), c10(0, false, 0, 1), 0, 1, true,
						t.n, &t.nn),
			FIELD);
	CU_ASSERT_EQUAL(t.st.nregs, 0);
	CU_ASSERT_EQUAL(t.st.gen, 0);
}

static void cptpl_sets_and_clears_ptpl_and_needs_the_capability_to_set(void)
{
	struct t t;
	init(&t);
	uint32_t persist = c10(0, false, 0, NVME_RESERVATION_CPTPL_PERSIST);
	CU_ASSERT_EQUAL(nvme_resv_exec_register(&t.st, host(1), persist, 0, 1, false, t.n, &t.nn),
			FIELD);
	CU_ASSERT_FALSE(t.st.ptpl);
	CU_ASSERT_EQUAL(t.st.nregs, 0);
	CU_ASSERT_EQUAL(nvme_resv_exec_register(&t.st, host(1), persist, 0, 1, true, t.n, &t.nn),
			0);
	CU_ASSERT_TRUE(t.st.ptpl);
	CU_ASSERT_EQUAL(nvme_resv_exec_register(&t.st, host(1),
						c10(0, false, 0, NVME_RESERVATION_CPTPL_CLEAR), 0,
						1, false, t.n, &t.nn),
			0);
	CU_ASSERT_FALSE(t.st.ptpl);
}

static void a_failed_register_leaves_ptpl_as_it_was(void)
{
	struct t t;
	with_regs(&t, 1);
	uint32_t persist = c10(0, false, 0, NVME_RESERVATION_CPTPL_PERSIST);
	CU_ASSERT_EQUAL(nvme_resv_exec_register(&t.st, host(1), persist, 0, 0x555, true, t.n,
						&t.nn),
			CONFLICT);
	CU_ASSERT_FALSE(t.st.ptpl);
}

static void unregister_with_wrong_crkey_is_conflict_unless_iekey(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL(reg(&t, 1, 1, false, 0x777, 0), CONFLICT);
	CU_ASSERT_TRUE(registered(&t, 1));
	CU_ASSERT_EQUAL(reg(&t, 1, 1, true, 0x777, 0), 0);
	CU_ASSERT_FALSE(registered(&t, 1));
	CU_ASSERT_EQUAL(t.st.gen, 2);
}

static void unregister_of_a_host_not_registered_is_conflict(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL(reg(&t, 2, 1, true, 0, 0), CONFLICT);
	CU_ASSERT_EQUAL(t.st.nregs, 1);
}

static void unregister_of_the_holder_releases_and_tells_registrants_only_types(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 2, 0, WERO, 0x102, 0), 0);
	CU_ASSERT_EQUAL(reg(&t, 2, 1, false, 0x102, 0), 0);
	CU_ASSERT_EQUAL(t.st.rtype, 0);
	CU_ASSERT_EQUAL(t.nn, 2);
	CU_ASSERT_TRUE(notified(&t, 1, RELEASED));
	CU_ASSERT_TRUE(notified(&t, 3, RELEASED));
}

static void unregister_of_a_write_exclusive_holder_releases_without_notice(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(reg(&t, 1, 1, false, 0x101, 0), 0);
	CU_ASSERT_EQUAL(t.st.rtype, 0);
	CU_ASSERT_EQUAL(t.nn, 0);
}

static void unregister_of_a_non_holder_keeps_the_holder(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 3, 0, EA, 0x103, 0), 0);
	CU_ASSERT_EQUAL(reg(&t, 1, 1, false, 0x101, 0), 0);
	CU_ASSERT_EQUAL(t.st.rtype, EA);
	CU_ASSERT_TRUE(nvme_resv_is_holder(&t.st, (uint32_t)nvme_resv_find(&t.st, host(3))));
}

static void all_registrants_reservation_lasts_until_the_last_registrant_leaves(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WEAR, 0x101, 0), 0);
	CU_ASSERT_EQUAL(reg(&t, 1, 1, false, 0x101, 0), 0);
	CU_ASSERT_EQUAL(t.st.rtype, WEAR);
	CU_ASSERT_EQUAL(t.nn, 0);
	CU_ASSERT_EQUAL(reg(&t, 2, 1, false, 0x102, 0), 0);
	CU_ASSERT_EQUAL(t.st.rtype, 0);
}

static void replace_changes_the_key_and_the_holder_keeps_holding(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 2, 0, EA, 0x102, 0), 0);
	CU_ASSERT_EQUAL(reg(&t, 2, 2, false, 0x102, 0x2222), 0);
	CU_ASSERT_EQUAL(t.st.regs[1].rkey, 0x2222);
	CU_ASSERT_EQUAL(t.st.rtype, EA);
	CU_ASSERT_EQUAL(t.st.holder, 1);
	CU_ASSERT_EQUAL(t.st.gen, 3);
	CU_ASSERT_EQUAL(reg(&t, 2, 2, false, 0x102, 0x3333), CONFLICT);
	CU_ASSERT_EQUAL(reg(&t, 2, 2, true, 0x102, 0x3333), 0);
	CU_ASSERT_EQUAL(t.st.regs[1].rkey, 0x3333);
}

static void replace_by_a_host_not_registered_is_conflict_even_with_iekey(void)
{
	struct t t;
	init(&t);
	CU_ASSERT_EQUAL(reg(&t, 1, 2, true, 0, 0x1), CONFLICT);
	CU_ASSERT_EQUAL(t.st.nregs, 0);
}

static void register_beyond_the_registrant_limit_is_internal_error_without_dnr(void)
{
	static struct nvme_resv_reg many[NVME_RESV_MAX_REGS + 1];
	struct t t;
	init(&t);
	t.st.regs = many;
	t.st.nregs = NVME_RESV_MAX_REGS;
	for (uint32_t i = 0; i < NVME_RESV_MAX_REGS; i++) {
		memset(many[i].hostid, 0xee, 16);
		memcpy(many[i].hostid, &i, sizeof(i));
	}
	CU_ASSERT_EQUAL(reg(&t, 1, 0, false, 0, 1), nvme_generic(NVME_SC_INTERNAL));
	CU_ASSERT_EQUAL(t.st.nregs, NVME_RESV_MAX_REGS);
}

/* ---- Acquire ---- */

static void acquire_by_a_host_not_registered_or_with_a_wrong_key_is_conflict(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL(acq(&t, 2, 0, WE, 0x102, 0), CONFLICT);
	CU_ASSERT_EQUAL(acq(&t, 1, 0, WE, 0x999, 0), CONFLICT);
	CU_ASSERT_EQUAL(t.st.rtype, 0);
}

static void acquire_with_iekey_reserved_action_or_bad_rtype_is_invalid_field(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL(nvme_resv_exec_acquire(&t.st, host(1), c10(0, true, WE, 0), 0x101, 0, t.n,
					       &t.nn),
			FIELD);
	CU_ASSERT_EQUAL(acq(&t, 1, 3, WE, 0x101, 0), FIELD);
	CU_ASSERT_EQUAL(acq(&t, 1, 7, WE, 0x101, 0), FIELD);
	CU_ASSERT_EQUAL(acq(&t, 1, 0, 0, 0x101, 0), FIELD);
	CU_ASSERT_EQUAL(acq(&t, 1, 0, 7, 0x101, 0), FIELD);
	CU_ASSERT_EQUAL(acq(&t, 1, 1, 0xff, 0x101, 0x101), FIELD);
	CU_ASSERT_EQUAL(t.st.rtype, 0);
}

static void acquire_makes_the_host_holder_without_a_new_generation(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL(acq(&t, 2, 0, EARO, 0x102, 0), 0);
	CU_ASSERT_EQUAL(t.st.rtype, EARO);
	CU_ASSERT_EQUAL(t.st.holder, 1);
	CU_ASSERT_EQUAL(t.st.gen, 2);
}

static void acquire_again_by_the_holder_of_that_type_succeeds(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(t.st.rtype, WE);
}

static void acquire_of_another_type_by_the_holder_is_conflict(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 1, 0, EA, 0x101, 0), CONFLICT);
	CU_ASSERT_EQUAL(t.st.rtype, WE);
}

static void acquire_while_another_host_holds_is_conflict(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 0, WE, 0x102, 0), CONFLICT);
	CU_ASSERT_EQUAL(t.st.holder, 0);
}

static void any_registrant_acquiring_the_all_registrants_type_held_succeeds(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, EAAR, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 0, EAAR, 0x102, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 0, WEAR, 0x102, 0), CONFLICT);
}

/* ---- Preempt ---- */

static void preempt_without_a_reservation_unregisters_the_key_s_registrants(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL(acq(&t, 1, 1, WE, 0x101, 0x102), 0);
	CU_ASSERT_FALSE(registered(&t, 2));
	CU_ASSERT_TRUE(registered(&t, 3));
	CU_ASSERT_EQUAL(t.st.rtype, 0);
	CU_ASSERT_EQUAL(t.st.gen, 4);
	CU_ASSERT_EQUAL(t.nn, 1);
	CU_ASSERT_TRUE(notified(&t, 2, REG_PREEMPTED));
}

static void preempt_with_a_key_no_one_has_is_conflict_and_changes_nothing(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL(acq(&t, 1, 1, WE, 0x101, 0x999), CONFLICT);
	CU_ASSERT_EQUAL(t.st.nregs, 2);
	CU_ASSERT_EQUAL(t.st.gen, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 2, 0, WE, 0x102, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 1, 1, EA, 0x101, 0x999), CONFLICT);
	CU_ASSERT_EQUAL(t.st.rtype, WE);
	CU_ASSERT_EQUAL(t.st.gen, 2);
	CU_ASSERT_EQUAL(t.nn, 0);
}

static void preempt_of_the_holder_s_key_takes_the_reservation_and_unregisters_the_holder(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, EA, 0x102, 0x101), 0);
	CU_ASSERT_FALSE(registered(&t, 1));
	CU_ASSERT_EQUAL(t.st.rtype, EA);
	CU_ASSERT_TRUE(nvme_resv_is_holder(&t.st, (uint32_t)nvme_resv_find(&t.st, host(2))));
	CU_ASSERT_EQUAL(t.st.gen, 4);
	CU_ASSERT_TRUE(notified(&t, 1, REG_PREEMPTED));
	CU_ASSERT_TRUE(notified(&t, 3, RELEASED)); /* the type changed under host 3 */
	CU_ASSERT_FALSE(notified(&t, 2, RELEASED));
}

static void preempt_of_the_holder_s_key_of_the_same_type_sends_no_released_notice(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, WE, 0x102, 0x101), 0);
	CU_ASSERT_EQUAL(t.nn, 1);
	CU_ASSERT_TRUE(notified(&t, 1, REG_PREEMPTED));
}

static void preempt_of_the_holder_s_key_also_unregisters_others_of_that_key(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(reg(&t, 3, 0, false, 0, 0x101), 0); /* host 3 shares host 1's key */
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, WE, 0x102, 0x101), 0);
	CU_ASSERT_FALSE(registered(&t, 1));
	CU_ASSERT_FALSE(registered(&t, 3));
	CU_ASSERT_TRUE(notified(&t, 3, REG_PREEMPTED));
}

static void holder_preempting_its_own_key_changes_the_type(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 1, 1, EA, 0x101, 0x101), 0);
	CU_ASSERT_TRUE(registered(&t, 1));
	CU_ASSERT_EQUAL(t.st.rtype, EA);
	CU_ASSERT_EQUAL(t.st.gen, 3);
	CU_ASSERT_EQUAL(t.nn, 1);
	CU_ASSERT_TRUE(notified(&t, 2, RELEASED));
}

static void preempt_of_another_registrant_s_key_leaves_the_reservation(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, EA, 0x102, 0x103), 0);
	CU_ASSERT_FALSE(registered(&t, 3));
	CU_ASSERT_EQUAL(t.st.rtype, WE);
	CU_ASSERT_TRUE(nvme_resv_is_holder(&t.st, (uint32_t)nvme_resv_find(&t.st, host(1))));
	CU_ASSERT_TRUE(notified(&t, 3, REG_PREEMPTED));
}

static void preempt_with_prkey_zero_of_a_single_holder_is_invalid_field(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, WE, 0x102, 0), FIELD);
	CU_ASSERT_EQUAL(t.st.nregs, 2);
	CU_ASSERT_EQUAL(t.st.gen, 2);
}

static void preempt_with_prkey_zero_of_all_registrants_takes_it_alone(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WEAR, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, EA, 0x102, 0), 0);
	CU_ASSERT_EQUAL(t.st.nregs, 1);
	CU_ASSERT_TRUE(registered(&t, 2));
	CU_ASSERT_EQUAL(t.st.rtype, EA);
	CU_ASSERT_EQUAL(t.st.holder, 0);
	CU_ASSERT_TRUE(notified(&t, 1, REG_PREEMPTED));
	CU_ASSERT_TRUE(notified(&t, 3, REG_PREEMPTED));
	CU_ASSERT_EQUAL(nvme_resv_deny(&t.st, host(1)), NVME_RESV_DENY_READ | NVME_RESV_DENY_WRITE);
}

static void preempt_with_a_key_under_all_registrants_unregisters_only_that_key(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, EAAR, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, EAAR, 0x102, 0x103), 0);
	CU_ASSERT_FALSE(registered(&t, 3));
	CU_ASSERT_EQUAL(t.st.rtype, EAAR);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, EAAR, 0x102, 0x999), CONFLICT);
}

static void preempt_of_one_s_own_key_by_a_non_holder_unregisters_oneself(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 1, WE, 0x102, 0x102), 0);
	CU_ASSERT_FALSE(registered(&t, 2));
	CU_ASSERT_EQUAL(t.nn, 0); /* never a notice for the issuer */
	CU_ASSERT_EQUAL(t.st.rtype, WE);
}

static void preempt_and_abort_changes_the_state_like_preempt(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, NVME_RESERVATION_RACQA_PREEMPT_AND_ABORT, EA, 0x102, 0x101), 0);
	CU_ASSERT_FALSE(registered(&t, 1));
	CU_ASSERT_EQUAL(t.st.rtype, EA);
	CU_ASSERT_EQUAL(t.st.gen, 3);
}

/* ---- Release ---- */

static void release_by_the_holder_tells_the_others_unless_write_exclusive_or_exclusive_access(void)
{
	static const struct {
		uint8_t type;
		bool told;
	} m[] = {
		{ WE, false },  { EA, false },  { WERO, true },
		{ EARO, true }, { WEAR, true }, { EAAR, true },
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct t t;
		with_regs(&t, 2);
		CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, m[i].type, 0x101, 0), 0);
		CU_ASSERT_EQUAL(rel(&t, 1, 0, m[i].type, 0x101), 0);
		CU_ASSERT_EQUAL(t.st.rtype, 0);
		CU_ASSERT_EQUAL(t.st.nregs, 2);
		CU_ASSERT_EQUAL(t.st.gen, 2); /* release is no generation */
		CU_ASSERT_EQUAL(notified(&t, 2, RELEASED), m[i].told);
		CU_ASSERT_FALSE(notified(&t, 1, RELEASED));
	}
}

static void release_by_a_registrant_that_does_not_hold_changes_nothing(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, EA, 0x101, 0), 0);
	CU_ASSERT_EQUAL(rel(&t, 2, 0, EA, 0x102), 0);
	CU_ASSERT_EQUAL(rel(&t, 2, 0, WE, 0x102), 0);
	CU_ASSERT_EQUAL(t.st.rtype, EA);
	CU_ASSERT_EQUAL(t.nn, 0);
}

static void release_of_another_type_than_held_is_invalid_field(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, EA, 0x101, 0), 0);
	CU_ASSERT_EQUAL(rel(&t, 1, 0, WE, 0x101), FIELD);
	CU_ASSERT_EQUAL(t.st.rtype, EA);
}

static void release_any_registrant_of_all_registrants_releases_it(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WEAR, 0x101, 0), 0);
	CU_ASSERT_EQUAL(rel(&t, 2, 0, WEAR, 0x102), 0);
	CU_ASSERT_EQUAL(t.st.rtype, 0);
	CU_ASSERT_TRUE(notified(&t, 1, RELEASED));
}

static void release_malformed_or_unregistered_or_wrong_key_is_refused(void)
{
	struct t t;
	with_regs(&t, 1);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, WE, 0x101, 0), 0);
	CU_ASSERT_EQUAL(nvme_resv_exec_release(&t.st, host(1), c10(0, true, WE, 0), 0x101, t.n,
					       &t.nn),
			FIELD);
	CU_ASSERT_EQUAL(rel(&t, 1, 2, WE, 0x101), FIELD);
	CU_ASSERT_EQUAL(rel(&t, 1, 0, 0, 0x101), FIELD);
	CU_ASSERT_EQUAL(rel(&t, 1, 0, 9, 0x101), FIELD);
	CU_ASSERT_EQUAL(rel(&t, 2, 0, WE, 0x101), CONFLICT);
	CU_ASSERT_EQUAL(rel(&t, 1, 0, WE, 0x102), CONFLICT);
	CU_ASSERT_EQUAL(t.st.rtype, WE);
}

static void clear_drops_everything_and_tells_the_others_reservation_preempted(void)
{
	struct t t;
	with_regs(&t, 3);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, EA, 0x101, 0), 0);
	CU_ASSERT_EQUAL(rel(&t, 2, 1, 0, 0x102), 0);
	CU_ASSERT_EQUAL(t.st.nregs, 0);
	CU_ASSERT_EQUAL(t.st.rtype, 0);
	CU_ASSERT_EQUAL(t.st.gen, 4);
	CU_ASSERT_EQUAL(t.nn, 2);
	CU_ASSERT_TRUE(notified(&t, 1, PREEMPTED));
	CU_ASSERT_TRUE(notified(&t, 3, PREEMPTED));
	CU_ASSERT_EQUAL(rel(&t, 2, 1, 0, 0x102), CONFLICT); /* no longer registered */
}

/* ---- Report ---- */

static void report_has_the_generation_type_registrants_and_holder(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 2, 0, WERO, 0x102, 0), 0);
	t.st.ptpl = true;
	uint8_t buf[256];
	memset(buf, 0xaa, sizeof(buf));
	CU_ASSERT_EQUAL(nvme_resv_report_fill(&t.st, buf, sizeof(buf)), 64 + 2 * 64);
	const struct nvme_resv_status *h = (const void *)buf;
	CU_ASSERT_EQUAL(le32toh(h->gen), 2);
	CU_ASSERT_EQUAL(h->rtype, WERO);
	CU_ASSERT_EQUAL(h->regctl[0] | h->regctl[1] << 8, 2);
	CU_ASSERT_EQUAL(h->ptpls, 1);
	const struct nvme_registered_ctrl_ext *e = (const void *)(buf + 64);
	CU_ASSERT_EQUAL(le16toh(e[0].cntlid), 0xffff);
	CU_ASSERT_EQUAL(e[0].rcsts, 0);
	CU_ASSERT_EQUAL(le64toh(e[0].rkey), 0x101);
	CU_ASSERT_EQUAL(memcmp(e[0].hostid, host(1), 16), 0);
	CU_ASSERT_EQUAL(e[1].rcsts, 1);
	CU_ASSERT_EQUAL(le64toh(e[1].rkey), 0x102);
	CU_ASSERT_EQUAL(memcmp(e[1].hostid, host(2), 16), 0);
	for (size_t i = 192; i < sizeof(buf); i++)
		CU_ASSERT_EQUAL_FATAL(buf[i], 0);
}

static void report_cut_by_numd_still_counts_every_registrant(void)
{
	struct t t;
	with_regs(&t, 3);
	uint8_t buf[128];
	memset(buf, 0xaa, sizeof(buf));
	CU_ASSERT_EQUAL(nvme_resv_report_fill(&t.st, buf, 100), 64 + 3 * 64);
	const struct nvme_resv_status *h = (const void *)buf;
	CU_ASSERT_EQUAL(h->regctl[0], 3);
	const struct nvme_registered_ctrl_ext *e = (const void *)(buf + 64);
	CU_ASSERT_EQUAL(le16toh(e->cntlid), 0xffff);
	CU_ASSERT_EQUAL(le64toh(e->rkey), 0x101); /* the first 36 bytes of entry 0 */
	CU_ASSERT_EQUAL(buf[100], 0xaa);          /* and not a byte more */
}

static void report_marks_every_registrant_of_all_registrants_as_holder(void)
{
	struct t t;
	with_regs(&t, 2);
	CU_ASSERT_EQUAL_FATAL(acq(&t, 1, 0, EAAR, 0x101, 0), 0);
	uint8_t buf[192];
	nvme_resv_report_fill(&t.st, buf, sizeof(buf));
	const struct nvme_registered_ctrl_ext *e = (const void *)(buf + 64);
	CU_ASSERT_EQUAL(e[0].rcsts, 1);
	CU_ASSERT_EQUAL(e[1].rcsts, 1);
}

static void type_names_are_the_spec_s(void)
{
	CU_ASSERT_STRING_EQUAL(nvme_resv_type_name(0), "none");
	CU_ASSERT_STRING_EQUAL(nvme_resv_type_name(WE), "write-exclusive");
	CU_ASSERT_STRING_EQUAL(nvme_resv_type_name(EAAR), "exclusive-access-all-registrants");
	CU_ASSERT_STRING_EQUAL(nvme_resv_type_name(7), "?");
}

/* The operator's clear (no host): every registrant hears Reservation Preempted, the
 * reservation and the registrations go, the generation moves on, PTPL stays. */
static void clear_without_a_host_tells_every_registrant(void)
{
	struct t t;
	init(&t);
	CU_ASSERT_EQUAL(reg(&t, 1, 0, false, 0, 0xa), 0);
	CU_ASSERT_EQUAL(reg(&t, 2, 0, false, 0, 0xb), 0);
	CU_ASSERT_EQUAL(acq(&t, 2, 0, WE, 0xb, 0), 0);
	t.st.ptpl = true;
	uint32_t gen = t.st.gen;
	nvme_resv_clear(&t.st, NULL, t.n, &t.nn);
	CU_ASSERT_EQUAL(t.st.nregs, 0);
	CU_ASSERT_EQUAL(t.st.rtype, 0);
	CU_ASSERT_EQUAL(t.st.gen, gen + 1);
	CU_ASSERT_TRUE(t.st.ptpl);
	CU_ASSERT_EQUAL_FATAL(t.nn, 2);
	CU_ASSERT_EQUAL(memcmp(t.n[0].hostid, host(1), 16), 0);
	CU_ASSERT_EQUAL(t.n[0].type, PREEMPTED);
	CU_ASSERT_EQUAL(memcmp(t.n[1].hostid, host(2), 16), 0);
	CU_ASSERT_EQUAL(t.n[1].type, PREEMPTED);
}

const struct unit_test nvme_resv_tests[] = {
	{ "clear_without_a_host_tells_every_registrant",
	  clear_without_a_host_tells_every_registrant },
	{ "read_group_is_read_compare_verify_and_write_group_the_rest_that_store",
	  read_group_is_read_compare_verify_and_write_group_the_rest_that_store },
	{ "without_a_reservation_nobody_is_denied", without_a_reservation_nobody_is_denied },
	{ "deny_matrix_follows_the_spec_for_every_type",
	  deny_matrix_follows_the_spec_for_every_type },
	{ "every_registrant_holds_an_all_registrants_reservation",
	  every_registrant_holds_an_all_registrants_reservation },
	{ "register_adds_the_host_and_bumps_the_generation",
	  register_adds_the_host_and_bumps_the_generation },
	{ "register_again_with_the_same_key_succeeds", register_again_with_the_same_key_succeeds },
	{ "register_again_with_another_key_is_reservation_conflict",
	  register_again_with_another_key_is_reservation_conflict },
	{ "register_again_with_another_key_conflicts_even_with_iekey",
	  register_again_with_another_key_conflicts_even_with_iekey },
	{ "register_reserved_action_or_cptpl_is_invalid_field",
	  register_reserved_action_or_cptpl_is_invalid_field },
	{ "cptpl_sets_and_clears_ptpl_and_needs_the_capability_to_set",
	  cptpl_sets_and_clears_ptpl_and_needs_the_capability_to_set },
	{ "a_failed_register_leaves_ptpl_as_it_was", a_failed_register_leaves_ptpl_as_it_was },
	{ "unregister_with_wrong_crkey_is_conflict_unless_iekey",
	  unregister_with_wrong_crkey_is_conflict_unless_iekey },
	{ "unregister_of_a_host_not_registered_is_conflict",
	  unregister_of_a_host_not_registered_is_conflict },
	{ "unregister_of_the_holder_releases_and_tells_registrants_only_types",
	  unregister_of_the_holder_releases_and_tells_registrants_only_types },
	{ "unregister_of_a_write_exclusive_holder_releases_without_notice",
	  unregister_of_a_write_exclusive_holder_releases_without_notice },
	{ "unregister_of_a_non_holder_keeps_the_holder",
	  unregister_of_a_non_holder_keeps_the_holder },
	{ "all_registrants_reservation_lasts_until_the_last_registrant_leaves",
	  all_registrants_reservation_lasts_until_the_last_registrant_leaves },
	{ "replace_changes_the_key_and_the_holder_keeps_holding",
	  replace_changes_the_key_and_the_holder_keeps_holding },
	{ "replace_by_a_host_not_registered_is_conflict_even_with_iekey",
	  replace_by_a_host_not_registered_is_conflict_even_with_iekey },
	{ "register_beyond_the_registrant_limit_is_internal_error_without_dnr",
	  register_beyond_the_registrant_limit_is_internal_error_without_dnr },
	{ "acquire_by_a_host_not_registered_or_with_a_wrong_key_is_conflict",
	  acquire_by_a_host_not_registered_or_with_a_wrong_key_is_conflict },
	{ "acquire_with_iekey_reserved_action_or_bad_rtype_is_invalid_field",
	  acquire_with_iekey_reserved_action_or_bad_rtype_is_invalid_field },
	{ "acquire_makes_the_host_holder_without_a_new_generation",
	  acquire_makes_the_host_holder_without_a_new_generation },
	{ "acquire_again_by_the_holder_of_that_type_succeeds",
	  acquire_again_by_the_holder_of_that_type_succeeds },
	{ "acquire_of_another_type_by_the_holder_is_conflict",
	  acquire_of_another_type_by_the_holder_is_conflict },
	{ "acquire_while_another_host_holds_is_conflict",
	  acquire_while_another_host_holds_is_conflict },
	{ "any_registrant_acquiring_the_all_registrants_type_held_succeeds",
	  any_registrant_acquiring_the_all_registrants_type_held_succeeds },
	{ "preempt_without_a_reservation_unregisters_the_key_s_registrants",
	  preempt_without_a_reservation_unregisters_the_key_s_registrants },
	{ "preempt_with_a_key_no_one_has_is_conflict_and_changes_nothing",
	  preempt_with_a_key_no_one_has_is_conflict_and_changes_nothing },
	{ "preempt_of_the_holder_s_key_takes_the_reservation_and_unregisters_the_holder",
	  preempt_of_the_holder_s_key_takes_the_reservation_and_unregisters_the_holder },
	{ "preempt_of_the_holder_s_key_of_the_same_type_sends_no_released_notice",
	  preempt_of_the_holder_s_key_of_the_same_type_sends_no_released_notice },
	{ "preempt_of_the_holder_s_key_also_unregisters_others_of_that_key",
	  preempt_of_the_holder_s_key_also_unregisters_others_of_that_key },
	{ "holder_preempting_its_own_key_changes_the_type",
	  holder_preempting_its_own_key_changes_the_type },
	{ "preempt_of_another_registrant_s_key_leaves_the_reservation",
	  preempt_of_another_registrant_s_key_leaves_the_reservation },
	{ "preempt_with_prkey_zero_of_a_single_holder_is_invalid_field",
	  preempt_with_prkey_zero_of_a_single_holder_is_invalid_field },
	{ "preempt_with_prkey_zero_of_all_registrants_takes_it_alone",
	  preempt_with_prkey_zero_of_all_registrants_takes_it_alone },
	{ "preempt_with_a_key_under_all_registrants_unregisters_only_that_key",
	  preempt_with_a_key_under_all_registrants_unregisters_only_that_key },
	{ "preempt_of_one_s_own_key_by_a_non_holder_unregisters_oneself",
	  preempt_of_one_s_own_key_by_a_non_holder_unregisters_oneself },
	{ "preempt_and_abort_changes_the_state_like_preempt",
	  preempt_and_abort_changes_the_state_like_preempt },
	{ "release_by_the_holder_tells_the_others_unless_write_exclusive_or_exclusive_access",
	  release_by_the_holder_tells_the_others_unless_write_exclusive_or_exclusive_access },
	{ "release_by_a_registrant_that_does_not_hold_changes_nothing",
	  release_by_a_registrant_that_does_not_hold_changes_nothing },
	{ "release_of_another_type_than_held_is_invalid_field",
	  release_of_another_type_than_held_is_invalid_field },
	{ "release_any_registrant_of_all_registrants_releases_it",
	  release_any_registrant_of_all_registrants_releases_it },
	{ "release_malformed_or_unregistered_or_wrong_key_is_refused",
	  release_malformed_or_unregistered_or_wrong_key_is_refused },
	{ "clear_drops_everything_and_tells_the_others_reservation_preempted",
	  clear_drops_everything_and_tells_the_others_reservation_preempted },
	{ "report_has_the_generation_type_registrants_and_holder",
	  report_has_the_generation_type_registrants_and_holder },
	{ "report_cut_by_numd_still_counts_every_registrant",
	  report_cut_by_numd_still_counts_every_registrant },
	{ "report_marks_every_registrant_of_all_registrants_as_holder",
	  report_marks_every_registrant_of_all_registrants_as_holder },
	{ "type_names_are_the_spec_s", type_names_are_the_spec_s },
	{ NULL, NULL },
};
