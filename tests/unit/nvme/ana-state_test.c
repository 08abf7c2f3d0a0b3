/* The ANA states by name (nvme/ana-state.c): nvmetcli's five names, each with its state
 * value (NVMe Base 2.0 8.1.3), in one NULL-ended list. */
#include <CUnit/CUnit.h>
#include <nvme/types.h>
#include <stddef.h>
#include "nvme/ana-state.h"
#include "tests/unit/suites.h"

static void each_name_is_its_states_and_parses_back(void)
{
	static const uint8_t values[] = { NVME_ANA_STATE_OPTIMIZED, NVME_ANA_STATE_NONOPTIMIZED,
					  NVME_ANA_STATE_INACCESSIBLE,
					  NVME_ANA_STATE_PERSISTENT_LOSS, NVME_ANA_STATE_CHANGE };
	static const char *const names[] = { "optimized", "non-optimized", "inaccessible",
					     "persistent-loss", "change" };
	for (size_t i = 0; i < NVME_ANA_STATE_COUNT; i++) {
		uint8_t st = 0;
		CU_ASSERT_STRING_EQUAL(nvme_ana_state_names[i], names[i]);
		CU_ASSERT_STRING_EQUAL(nvme_ana_state_name(values[i]), names[i]);
		CU_ASSERT_TRUE(nvme_ana_state_parse(names[i], &st));
		CU_ASSERT_EQUAL(st, values[i]);
	}
	CU_ASSERT_PTR_NULL(nvme_ana_state_names[NVME_ANA_STATE_COUNT]);
}

static void other_values_and_names_are_not_states(void)
{
	uint8_t st = 7;
	CU_ASSERT_STRING_EQUAL(nvme_ana_state_name(0), "?");
	CU_ASSERT_STRING_EQUAL(nvme_ana_state_name(5), "?");
	CU_ASSERT_FALSE(nvme_ana_state_parse("Optimized", &st));
	CU_ASSERT_FALSE(nvme_ana_state_parse("persistent loss", &st));
	CU_ASSERT_EQUAL(st, 7);
}

const struct unit_test nvme_ana_state_tests[] = {
	{ "each_name_is_its_states_and_parses_back", each_name_is_its_states_and_parses_back },
	{ "other_values_and_names_are_not_states", other_values_and_names_are_not_states },
	{ NULL, NULL }
};
