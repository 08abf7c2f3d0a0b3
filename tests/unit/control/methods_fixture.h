/* Helpers of the control method tests (control, ctl-read, ctl-change): one whole target on
 * the loop transport (tests/unit/target/fixture.h) with its control context
 * (ctl_fixture.h), and requests to it as the socket delivers them. */
#ifndef NVMF_TESTS_UNIT_CONTROL_METHODS_FIXTURE_H
#define NVMF_TESTS_UNIT_CONTROL_METHODS_FIXTURE_H
#include <jansson.h>
#include "control/control.h"
#include "tests/unit/target/fixture.h"

/* The subsystem NQN of the fixture as a JSON string. */
#define NQN "\"" FX_SUBNQN "\""

extern struct fx ctlm_fx;
extern struct nvmf_ctl ctlm_ctl;

/* Sets ctlm_fx and ctlm_ctl up (CUnit fatal on failure); ctlm_teardown tears them down. */
void ctlm_setup(void);
void ctlm_teardown(void);
/* The answer to @method with @params (JSON text or NULL); the caller frees it. */
json_t *ctlm_call(const char *method, const char *params);
/* The "result" of @resp (CUnit fatal when it has none). */
json_t *ctlm_result(json_t *resp);
/* @method with @params fails with @code and @message. */
void ctlm_expect_error(const char *method, const char *params, int code, const char *message);
/* The integer @key of @obj (CUnit fatal when it is not one). */
json_int_t ctlm_get_int(json_t *obj, const char *key);

#endif
