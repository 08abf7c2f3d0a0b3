/* Calling the control methods (control/control.h) as the socket would, for the control
 * plane's tests: a request text in, the parsed answer out, errors compared exactly. */
#ifndef NVMF_TESTS_UNIT_TARGET_CTL_FIXTURE_H
#define NVMF_TESTS_UNIT_TARGET_CTL_FIXTURE_H
#include <jansson.h>
#include "control/control.h"

struct fx;
/* ctl_setup - fx_setup(@f) (a failure fails the test) and @ctl calling into its target. */
void ctl_setup(struct fx *f, struct nvmf_ctl *ctl);
/* ctl_call - the answer of @ctl to @method with @params (JSON object text; NULL: none),
 * parsed; the caller decrefs it. Fails the test when there is none. */
json_t *ctl_call(struct nvmf_ctl *ctl, const char *method, const char *params);
/* ctl_result - the result member of @resp (borrowed); fails the test (printing the
 * answer) when it is an error. */
json_t *ctl_result(json_t *resp);
/* ctl_ok - the call succeeds (its answer is dropped). */
void ctl_ok(struct nvmf_ctl *ctl, const char *method, const char *params);
/* ctl_expect_error - the call fails with @code and exactly @message. */
void ctl_expect_error(struct nvmf_ctl *ctl, const char *method, const char *params, int code,
		      const char *message);
#endif
