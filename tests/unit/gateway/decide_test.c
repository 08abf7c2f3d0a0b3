/* The gateway group's rules (gateway/decide.c): who tries to hold a group, who gives it
 * back, and until when a held group may be shown optimized. */
#include "gateway/decide.h"
#include "tests/unit/suites.h"

static void preferred_gateway_always_takes_or_renews(void)
{
	/* Whatever it knows of itself as "preferred alive". */
	CU_ASSERT_EQUAL(nvmf_gw_decide(true, false, false), NVMF_GW_ACQUIRE);
	CU_ASSERT_EQUAL(nvmf_gw_decide(true, false, true), NVMF_GW_ACQUIRE);
	CU_ASSERT_EQUAL(nvmf_gw_decide(true, true, false), NVMF_GW_RENEW);
	CU_ASSERT_EQUAL(nvmf_gw_decide(true, true, true), NVMF_GW_RENEW);
}

static void other_gateway_takes_only_while_the_preferred_one_is_not_alive(void)
{
	CU_ASSERT_EQUAL(nvmf_gw_decide(false, false, true), NVMF_GW_WAIT);
	CU_ASSERT_EQUAL(nvmf_gw_decide(false, false, false), NVMF_GW_ACQUIRE);
	CU_ASSERT_EQUAL(nvmf_gw_decide(false, true, false), NVMF_GW_RENEW);
}

static void other_gateway_gives_back_when_the_preferred_one_returns(void)
{
	CU_ASSERT_EQUAL(nvmf_gw_decide(false, true, true), NVMF_GW_RELEASE);
	CU_ASSERT_STRING_EQUAL(nvmf_gw_action_name(NVMF_GW_RELEASE), "release");
	CU_ASSERT_STRING_EQUAL(nvmf_gw_action_name(NVMF_GW_WAIT), "wait");
	CU_ASSERT_STRING_EQUAL(nvmf_gw_action_name(NVMF_GW_ACQUIRE), "acquire");
	CU_ASSERT_STRING_EQUAL(nvmf_gw_action_name(NVMF_GW_RENEW), "renew");
	CU_ASSERT_STRING_EQUAL(nvmf_gw_action_name((enum nvmf_gw_action)9), "?");
}

static void claim_ends_a_margin_before_the_lease_at_the_cluster(void)
{
	/* 10 s lease: a quarter (2.5 s) of margin; renewals every 3.33 s. */
	CU_ASSERT_EQUAL(nvmf_gw_margin_ms(10000), 2500);
	CU_ASSERT_EQUAL(nvmf_gw_claim_until(50000, 10000), 57500);
	CU_ASSERT_EQUAL(nvmf_gw_interval_ms(10000), 3333);
	/* Two renewals may fail before the claim runs out, not three. */
	CU_ASSERT_TRUE(2 * nvmf_gw_interval_ms(10000) < 10000 - nvmf_gw_margin_ms(10000));
	CU_ASSERT_TRUE(3 * nvmf_gw_interval_ms(10000) >= 10000 - nvmf_gw_margin_ms(10000));
	/* Short leases keep a second of margin; never a claim past the lease. */
	CU_ASSERT_EQUAL(nvmf_gw_margin_ms(3000), 1000);
	CU_ASSERT_EQUAL(nvmf_gw_claim_until(0, 3000), 2000);
	CU_ASSERT_EQUAL(nvmf_gw_margin_ms(120000), 30000);
	for (uint64_t l = 3000; l <= 120000; l += 1000) {
		CU_ASSERT_TRUE(nvmf_gw_claim_until(100, l) < 100 + l);
		CU_ASSERT_TRUE(nvmf_gw_claim_until(100, l) > 100 + nvmf_gw_interval_ms(l));
	}
}

static void held_group_is_optimized_only_while_its_claim_lasts(void)
{
	CU_ASSERT_TRUE(nvmf_gw_optimized(true, 57499, 57500));
	CU_ASSERT_FALSE(nvmf_gw_optimized(true, 57500, 57500));
	CU_ASSERT_FALSE(nvmf_gw_optimized(false, 100, 57500));
}

const struct unit_test gateway_decide_tests[] = {
	{ "preferred_gateway_always_takes_or_renews", preferred_gateway_always_takes_or_renews },
	{ "other_gateway_takes_only_while_the_preferred_one_is_not_alive",
	  other_gateway_takes_only_while_the_preferred_one_is_not_alive },
	{ "other_gateway_gives_back_when_the_preferred_one_returns",
	  other_gateway_gives_back_when_the_preferred_one_returns },
	{ "claim_ends_a_margin_before_the_lease_at_the_cluster",
	  claim_ends_a_margin_before_the_lease_at_the_cluster },
	{ "held_group_is_optimized_only_while_its_claim_lasts",
	  held_group_is_optimized_only_while_its_claim_lasts },
	{ NULL, NULL },
};
