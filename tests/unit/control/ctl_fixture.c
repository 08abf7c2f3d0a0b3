/* See ctl_fixture.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/suites.h"
#include "tests/unit/control/ctl_fixture.h"
#include "tests/unit/target/fixture.h"

void ctl_setup(struct fx *f, struct nvmf_ctl *ctl)
{
	memset(f, 0, sizeof(*f));
	CU_ASSERT_EQUAL_FATAL(fx_setup(f), 0);
	memset(ctl, 0, sizeof(*ctl));
	ctl->tgt = &f->tgt;
}

json_t *ctl_call(struct nvmf_ctl *ctl, const char *method, const char *params)
{
	char req[4096];
	snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"%s%s}", method,
		 params ? ",\"params\":" : "", params ? params : "");
	char *text = nvmf_rpc_handle(nvmf_ctl_methods, ctl, req, strlen(req));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	json_t *resp = json_loads(text, 0, NULL);
	free(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(resp);
	return resp;
}

json_t *ctl_result(json_t *resp)
{
	json_t *r = json_object_get(resp, "result");
	if (!r) {
		char *t = json_dumps(resp, 0);
		fprintf(stderr, "\n  unexpected answer: %s\n", t);
		free(t);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

void ctl_ok(struct nvmf_ctl *ctl, const char *method, const char *params)
{
	json_t *resp = ctl_call(ctl, method, params);
	ctl_result(resp);
	json_decref(resp);
}

void ctl_expect_error(struct nvmf_ctl *ctl, const char *method, const char *params, int code,
		      const char *message)
{
	json_t *resp = ctl_call(ctl, method, params);
	json_t *e = json_object_get(resp, "error");
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(e, "code")), code);
	const char *m = json_string_value(json_object_get(e, "message"));
	if (!m || strcmp(m, message))
		fprintf(stderr, "\n  got:  %s\n  want: %s\n", m ? m : "(none)", message);
	CU_ASSERT_STRING_EQUAL(m ? m : "", message);
	json_decref(resp);
}
