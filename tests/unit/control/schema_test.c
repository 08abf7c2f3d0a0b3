/* The control methods' descriptions (control/schema.c): the server's checks made from them
 * (through the real method table, nvmf_ctl_methods: a refused call never reaches its
 * handler, so no target is needed), the table's consistency, and docs/targetctl.md's
 * method reference, which must be what the descriptions say. */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "control/schema.h"
#include "tests/unit/suites.h"

#define DOC_PATH     "docs/targetctl.md"
#define DOC_BEGIN    "<!-- method reference: begin -->\n"
#define DOC_END      "<!-- method reference: end -->\n"
/* Where a failing docs check leaves the text the docs should hold. */
#define DOC_EXPECTED "build/targetctl-method-reference.md"

/* The answer of the real method table to @method with @params (JSON text): its error's
 * code, and its message into @msg. 0: no error. */
static int answer(const char *method, const char *params, char *msg, size_t len)
{
	char req[1024];
	snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":%s}",
		 method, params);
	char *out = nvmf_rpc_handle(nvmf_ctl_methods, NULL, req, strlen(req));
	json_t *resp = out ? json_loads(out, 0, NULL) : NULL;
	json_t *err = json_object_get(resp, "error");
	const char *m = json_string_value(json_object_get(err, "message"));
	snprintf(msg, len, "%s", m ? m : "");
	int code = (int)json_integer_value(json_object_get(err, "code"));
	json_decref(resp);
	free(out);
	return code;
}

static void expect(const char *method, const char *params, const char *message)
{
	char msg[256];
	CU_ASSERT_EQUAL(answer(method, params, msg, sizeof(msg)), NVMF_RPC_INVALID_PARAMS);
	if (strcmp(msg, message))
		fprintf(stderr, "\n  %s %s: got \"%s\"\n  want \"%s\"\n", method, params, msg,
			message);
	CU_ASSERT_STRING_EQUAL(msg, message);
}

static void wrong_type_is_32602_naming_the_parameter_and_both_types(void)
{
	expect("namespace_remove", "{\"nqn\":\"nqn.a\",\"nsid\":\"1\"}",
	       "parameter 'nsid': expected an integer, got a string");
	expect("subsystem_allow_any_host", "{\"nqn\":\"nqn.a\",\"allow\":1}",
	       "parameter 'allow': expected true or false, got an integer");
	expect("host_add", "{\"nqn\":[],\"host\":\"nqn.h\"}",
	       "parameter 'nqn': expected a string, got an array");
	expect("subsystem_add", "{\"subsystem\":\"nqn.a\"}",
	       "parameter 'subsystem': expected an object as in the config file's \"subsystems\", "
	       "got a string");
	expect("namespace_add", "{\"nqn\":\"nqn.a\",\"namespaces\":[]}",
	       "parameter 'namespaces': expected a non-empty array of namespace objects, got an array");
	expect("namespace_resize", "{\"nqn\":\"nqn.a\",\"nsid\":1,\"size_bytes\":true}",
	       "parameter 'size_bytes': expected an integer, or a string like \"64M\", got a boolean");
}

static void out_of_range_is_32602_with_the_range(void)
{
	expect("namespace_remove", "{\"nqn\":\"nqn.a\",\"nsid\":1025}",
	       "parameter 'nsid': 1025 is out of range [1, 1024]");
	expect("namespace_enable", "{\"nqn\":\"nqn.a\",\"nsid\":0}",
	       "parameter 'nsid': 0 is out of range [1, 1024]");
	expect("port_remove", "{\"portid\":65536}",
	       "parameter 'portid': 65536 is out of range [0, 65535]");
	expect("ana_state_list", "{\"portid\":-1}",
	       "parameter 'portid': -1 is out of range [0, 65535]");
	expect("controller_disconnect", "{\"nqn\":\"nqn.a\",\"cntlid\":65520}",
	       "parameter 'cntlid': 65520 is out of range [1, 65519]");
	expect("ana_state_set", "{\"portid\":1,\"grpid\":129,\"state\":\"optimized\"}",
	       "parameter 'grpid': 129 is out of range [1, 128]");
	expect("namespace_resize", "{\"nqn\":\"nqn.a\",\"nsid\":1,\"size_bytes\":0}",
	       "parameter 'size_bytes': 0 is out of range [1, 9223372036854775807]");
	expect("log_level_set", "{\"level\":\"\"}", "parameter 'level': empty");
	char params[400];
	snprintf(params, sizeof(params), "{\"nqn\":\"%0224d\"}", 0);
	expect("subsystem_remove", params, "parameter 'nqn': 224 bytes, longer than 223");
}

/* Every choice list: a name outside it is refused before the method runs, the message
 * naming the parameter and every name it takes; each name of the list passes the check. */
static void name_outside_a_choice_list_is_32602_listing_the_choices(void)
{
	expect("ana_state_set", "{\"portid\":1,\"grpid\":2,\"state\":\"fast\"}",
	       "parameter 'state': \"fast\" is not an ANA state (optimized, non-optimized, "
	       "inaccessible, persistent-loss or change)");
	expect("log_level_set", "{\"level\":\"loud\"}",
	       "parameter 'level': \"loud\" is not a log level (error, warning, info or debug)");
	expect("log_level_set", "{\"level\":\"INFO\"}",
	       "parameter 'level': \"INFO\" is not a log level (error, warning, info or debug)");
	expect("log_level_set", "{\"level\":\"info\",\"component\":\"disk\"}",
	       "parameter 'component': \"disk\" is not a log component (core, rdma, tcp, auth, "
	       "control, backend or gateway)");
	expect("log_level_get", "{\"component\":\"disk\"}",
	       "parameter 'component': \"disk\" is not a log component (core, rdma, tcp, auth, "
	       "control, backend or gateway)");
	expect("host_dhchap_set", "{\"host\":\"nqn.h\",\"key\":\"k\",\"hash\":\"md5\"}",
	       "parameter 'hash': \"md5\" is not a DH-HMAC-CHAP hash (hmac(sha256), hmac(sha384) "
	       "or hmac(sha512))");
	expect("host_dhchap_set", "{\"host\":\"nqn.h\",\"key\":\"k\",\"dhgroup\":\"ffdhe1024\"}",
	       "parameter 'dhgroup': \"ffdhe1024\" is not a DH group (null, ffdhe2048, ffdhe3072, "
	       "ffdhe4096, ffdhe6144 or ffdhe8192)");
	const struct nvmf_rpc_param *p =
		nvmf_rpc_schema_param(&nvmf_ctl_schema[NVMF_CTL_LOG_LEVEL_SET], "level");
	char msg[256];
	/* a NUL inside (which the server's parser refuses anyway) makes no prefix a name */
	json_t *nul = json_stringn("info\0x", 6);
	CU_ASSERT_FALSE(nvmf_rpc_param_check(p, nul, msg, sizeof(msg)));
	json_decref(nul);
	for (const char *const *c = p->choices; *c; c++) {
		json_t *v = json_string(*c);
		CU_ASSERT(nvmf_rpc_param_check(p, v, msg, sizeof(msg)));
		json_decref(v);
	}
}

static void missing_required_is_32602_saying_what_it_takes(void)
{
	expect("host_add", "{\"nqn\":\"nqn.a\"}", "missing parameter 'host' (a string)");
	expect("namespace_remove", "{\"nqn\":\"nqn.a\"}", "missing parameter 'nsid' (an integer)");
	expect("subsystem_allow_any_host", "{\"nqn\":\"nqn.a\"}",
	       "missing parameter 'allow' (true or false)");
	expect("subsystem_add", "{}",
	       "missing parameter 'subsystem' (an object as in the config file's \"subsystems\")");
	expect("port_add", "{}",
	       "missing parameter 'port' (an object as in the config file's \"ports\")");
	expect("namespace_resize", "{\"nqn\":\"nqn.a\"}", "missing parameter 'nsid' (an integer)");
}

static void unknown_parameter_is_32602_listing_the_methods_own(void)
{
	expect("namespace_remove", "{\"nqn\":\"nqn.a\",\"nsid\":1,\"forced\":true}",
	       "unknown parameter 'forced' (namespace_remove takes: nqn, nsid, force)");
	expect("version", "{\"x\":1}", "unknown parameter 'x' (version takes: no parameters)");
	expect("host_dhchap_set", "{\"host\":\"nqn.h\",\"secret\":\"x\"}",
	       "unknown parameter 'secret' (host_dhchap_set takes: host, key, ctrl_key, hash, dhgroup)");
	/* unknown names first: a typo is named before what it left missing */
	expect("host_add", "{\"nqn\":\"nqn.a\",\"hots\":\"nqn.h\"}",
	       "unknown parameter 'hots' (host_add takes: nqn, host)");
}

static void every_method_is_bound_to_its_own_description(void)
{
	size_t n = 0;
	for (const struct nvmf_rpc_method *m = nvmf_ctl_methods; m->name; m++, n++) {
		CU_ASSERT_PTR_EQUAL(m->schema, &nvmf_ctl_schema[n]);
		CU_ASSERT_PTR_NOT_NULL(m->fn);
		CU_ASSERT_STRING_EQUAL(m->name, nvmf_ctl_schema[n].name);
		CU_ASSERT_PTR_EQUAL(nvmf_ctl_schema_find(m->name), &nvmf_ctl_schema[n]);
	}
	CU_ASSERT_EQUAL(n, NVMF_CTL_METHOD_COUNT);
	CU_ASSERT_PTR_NULL(nvmf_ctl_schema[NVMF_CTL_METHOD_COUNT].name);
	CU_ASSERT_PTR_NULL(nvmf_ctl_schema_find("no_such_method"));
	/* each description: a summary, and every parameter named once with help and a range
	 * that holds something */
	for (const struct nvmf_rpc_schema *s = nvmf_ctl_schema; s->name; s++) {
		CU_ASSERT(s->summary && *s->summary);
		for (const struct nvmf_rpc_param *p = s->params; p->name; p++) {
			CU_ASSERT_PTR_EQUAL(nvmf_rpc_schema_param(s, p->name), p);
			CU_ASSERT(p->help && *p->help);
			if (p->type == NVMF_RPC_STRING)
				CU_ASSERT(p->max >= 1 || (p->choices && p->choices[0]));
			if (p->choices) /* a list of names, for strings only */
				CU_ASSERT(p->type == NVMF_RPC_STRING && p->kind);
			if (p->type == NVMF_RPC_UINT || p->type == NVMF_RPC_SIZE)
				CU_ASSERT(p->min <= p->max);
		}
	}
}

static void param_text_gives_type_range_and_need(void)
{
	char buf[160];
	const struct nvmf_rpc_schema *s = &nvmf_ctl_schema[NVMF_CTL_NAMESPACE_REMOVE];
	CU_ASSERT_STRING_EQUAL(nvmf_rpc_param_text(&s->params[0], buf, sizeof(buf)),
			       "nqn: a string, 1 to 223 bytes, required");
	CU_ASSERT_STRING_EQUAL(nvmf_rpc_param_text(&s->params[1], buf, sizeof(buf)),
			       "nsid: an integer, 1 to 1024, required");
	s = &nvmf_ctl_schema[NVMF_CTL_SUBSYSTEM_ALLOW_ANY_HOST];
	CU_ASSERT_STRING_EQUAL(nvmf_rpc_param_text(&s->params[1], buf, sizeof(buf)),
			       "allow: true or false, required");
	s = &nvmf_ctl_schema[NVMF_CTL_HOST_DHCHAP_SET];
	CU_ASSERT_STRING_EQUAL(nvmf_rpc_param_text(&s->params[3], buf, sizeof(buf)),
			       "hash: a DH-HMAC-CHAP hash (hmac(sha256), hmac(sha384) or "
			       "hmac(sha512)), optional");
	s = &nvmf_ctl_schema[NVMF_CTL_ANA_STATE_LIST];
	CU_ASSERT_STRING_EQUAL(nvmf_rpc_param_text(&s->params[0], buf, sizeof(buf)),
			       "portid: an integer, 0 to 65535, optional");
}

/* ---- docs/targetctl.md's method reference ---- */

/* The reference the descriptions give: one table row per method (malloc'ed). */
static char *reference(void)
{
	char *text = NULL, line[160];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	fprintf(f, "| method | what it does | parameters |\n|---|---|---|\n");
	for (const struct nvmf_rpc_schema *s = nvmf_ctl_schema; s->name; s++) {
		fprintf(f, "| `%s` | %s | ", s->name, s->summary);
		if (!s->params[0].name)
			fprintf(f, "none");
		for (const struct nvmf_rpc_param *p = s->params; p->name; p++) {
			nvmf_rpc_param_text(p, line, sizeof(line));
			fprintf(f, "%s`%s`%s: %s", p == s->params ? "" : "<br>", p->name,
				line + strlen(p->name), p->help);
		}
		fprintf(f, " |\n");
	}
	fclose(f);
	return text;
}

/* The text between @doc's reference markers equals @want. */
static bool doc_holds(const char *doc, const char *want)
{
	const char *b = doc ? strstr(doc, DOC_BEGIN) : NULL;
	const char *e = b ? strstr(b, DOC_END) : NULL;
	if (!e)
		return false;
	b += strlen(DOC_BEGIN);
	return (size_t)(e - b) == strlen(want) && !memcmp(b, want, strlen(want));
}

static char *read_doc(void)
{
	FILE *f = fopen(DOC_PATH, "r");
	char *text = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *m = f ? open_memstream(&text, &len) : NULL;
	while (m && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	if (m)
		fclose(m);
	if (f)
		fclose(f);
	return text;
}

static void docs_method_reference_is_what_the_descriptions_say(void)
{
	char *want = reference(), *doc = read_doc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT_PTR_NOT_NULL(doc);
	bool ok = doc_holds(doc, want);
	if (!ok) {
		FILE *f = fopen(DOC_EXPECTED, "w");
		if (f) {
			fputs(want, f);
			fclose(f);
		}
		fprintf(stderr,
			"\n  " DOC_PATH ": the method reference differs from control/schema.c; "
			"put " DOC_EXPECTED " between its markers\n");
	}
	CU_ASSERT(ok);
	free(want);
	free(doc);
}

/* The check above is not one that cannot fail: a reference that differs in one range,
 * lacks a method or lost its markers is refused. */
static void docs_check_fails_when_the_reference_differs(void)
{
	char *want = reference();
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	size_t n = strlen(want);
	char *doc = malloc(n + 256), *p;
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	snprintf(doc, n + 256, "# x\n" DOC_BEGIN "%s" DOC_END "tail\n", want);
	CU_ASSERT(doc_holds(doc, want));
	p = strstr(doc, "1 to 1024");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p[7] = '3'; /* 1 to 1023 */
	CU_ASSERT_FALSE(doc_holds(doc, want));
	size_t cut = n - 1; /* the last method's row left out */
	while (cut && want[cut - 1] != '\n')
		cut--;
	snprintf(doc, n + 256, DOC_BEGIN "%.*s" DOC_END, (int)cut, want);
	CU_ASSERT_FALSE(doc_holds(doc, want));
	snprintf(doc, n + 256, "%s" DOC_END, want);
	CU_ASSERT_FALSE(doc_holds(doc, want));
	free(doc);
	free(want);
}

const struct unit_test schema_tests[] = {
	{ "wrong_type_is_32602_naming_the_parameter_and_both_types",
	  wrong_type_is_32602_naming_the_parameter_and_both_types },
	{ "out_of_range_is_32602_with_the_range", out_of_range_is_32602_with_the_range },
	{ "name_outside_a_choice_list_is_32602_listing_the_choices",
	  name_outside_a_choice_list_is_32602_listing_the_choices },
	{ "missing_required_is_32602_saying_what_it_takes",
	  missing_required_is_32602_saying_what_it_takes },
	{ "unknown_parameter_is_32602_listing_the_methods_own",
	  unknown_parameter_is_32602_listing_the_methods_own },
	{ "every_method_is_bound_to_its_own_description",
	  every_method_is_bound_to_its_own_description },
	{ "param_text_gives_type_range_and_need", param_text_gives_type_range_and_need },
	{ "docs_method_reference_is_what_the_descriptions_say",
	  docs_method_reference_is_what_the_descriptions_say },
	{ "docs_check_fails_when_the_reference_differs",
	  docs_check_fails_when_the_reference_differs },
	{ NULL, NULL },
};
