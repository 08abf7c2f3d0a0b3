/* nvmf_config_json_wipe (subsystem/json-wipe.c): jansson allocates with malloc and frees
 * through a function that zeroes the block first. */
#include <jansson.h>
#include <stdlib.h>

#include "subsystem/config.h"
#include "tests/unit/suites.h"

/* jansson frees through a function that zeroes the block first (secrets in configs and
 * requests); JSON still works with it. */
static void json_wipe_makes_jansson_zero_what_it_frees(void)
{
	json_malloc_t m0;
	json_free_t f0;
	json_get_alloc_funcs(&m0, &f0);
	nvmf_config_json_wipe();
	json_malloc_t m;
	json_free_t f;
	json_get_alloc_funcs(&m, &f);
	CU_ASSERT_TRUE(m == malloc);
	CU_ASSERT_TRUE(f != free);
	json_t *j = json_loads(
		"{\"key\": \"DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:\"}", 0,
		NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(json_string_length(json_object_get(j, "key")), 59);
	json_decref(j);
	json_set_alloc_funcs(m0, f0);
}

const struct unit_test json_wipe_tests[] = {
	{ "json_wipe_makes_jansson_zero_what_it_frees",
	  json_wipe_makes_jansson_zero_what_it_frees },
	{ NULL, NULL },
};
