/* See methods_fixture.h. */
#include "tests/unit/control/methods_fixture.h"
#include <CUnit/CUnit.h>
#include "tests/unit/control/ctl_fixture.h"

struct fx ctlm_fx;
struct nvmf_ctl ctlm_ctl;

void ctlm_setup(void)
{
	ctl_setup(&ctlm_fx, &ctlm_ctl);
}

void ctlm_teardown(void)
{
	fx_teardown(&ctlm_fx);
}

json_t *ctlm_call(const char *method, const char *params)
{
	return ctl_call(&ctlm_ctl, method, params);
}

json_t *ctlm_result(json_t *resp)
{
	return ctl_result(resp);
}

void ctlm_expect_error(const char *method, const char *params, int code, const char *message)
{
	ctl_expect_error(&ctlm_ctl, method, params, code, message);
}

json_int_t ctlm_get_int(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	CU_ASSERT_TRUE_FATAL(json_is_integer(v));
	return json_integer_value(v);
}
