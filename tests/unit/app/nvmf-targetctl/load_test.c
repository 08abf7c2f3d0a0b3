/* What nvmf-targetctl reads beyond argv (app/nvmf-targetctl/load.c): subsystem add --from
 * FILE's one object, config save's relative PATH made absolute, host dhchap's secrets from
 * the environment; a failure is a usage error naming the command, nothing sent. */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/app/nvmf-targetctl/parse_fixture.h"
#include "tests/unit/suites.h"

#define HOST_KEY "DHHC-1:01:ab3CAVbCYQlqRCCRfUBu0G089GZA8HhcV9T62umwfGWxJjD+:"
#define CTRL_KEY "DHHC-1:00:vrp78l4LqWMKP37WYERmImEMVVh4ZoMBpSQ0J9zB8tDjAfgz:"

/* Write @text to @dir/@name; the path into @path. */
static void write_file(const char *dir, const char *name, const char *text, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void subsystem_add_from_sends_the_files_object_as_it_is(void)
{
	char dir[] = "/tmp/nvmf-tctl-from-XXXXXX", path[128], want[256];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	static const char sub[] = "{\"nqn\":\"nqn.f\",\"attr\":{\"allow_any_host\":\"1\"},"
				  "\"namespaces\":[{\"nsid\":1,\"nvmf_backend\":\"ram\","
				  "\"nvmf_size_bytes\":\"64M\"}],\"nvmf_future_key\":7}";
	struct parsed p;
	write_file(dir, "sub.json", sub, path, sizeof(path));
	/* Parsing alone reads nothing: the file name stands in for the object. */
	parse(&p, "subsystem", "add", "--from", path, NULL);
	CU_ASSERT_EQUAL(p.rc, TCTL_OK);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p.req.params, "subsystem")), path);
	snprintf(want, sizeof(want), "{\"subsystem\":%s}", sub);
	expect_call(load(&p), "subsystem_add", want);
	unlink(path);

	char msg[512];
	expect_usage(load(parse(&p, "subsystem", "add", "--from", path, NULL)),
		     (snprintf(msg, sizeof(msg),
			       "subsystem add: --from %s: No such file or directory", path),
		      msg));
	write_file(dir, "list.json", "[{\"nqn\":\"nqn.f\"}]", path, sizeof(path));
	expect_usage(load(parse(&p, "subsystem", "add", "--from", path, NULL)),
		     (snprintf(msg, sizeof(msg),
			       "subsystem add: --from %s: expected one subsystem "
			       "object ({\"nqn\": ...}), got an array",
			       path),
		      msg));
	unlink(path);
	write_file(dir, "whole.json", "{\"ports\":[],\"subsystems\":[{\"nqn\":\"nqn.f\"}]}", path,
		   sizeof(path));
	expect_usage(load(parse(&p, "subsystem", "add", "--from", path, NULL)),
		     (snprintf(msg, sizeof(msg),
			       "subsystem add: --from %s is a whole config file; "
			       "give one object of its \"subsystems\"",
			       path),
		      msg));
	unlink(path);
	write_file(dir, "bad.json", "{\"nqn\": \"nqn.f\",\n \"attr\": }\n", path, sizeof(path));
	load(parse(&p, "subsystem", "add", "--from", path, NULL));
	CU_ASSERT_EQUAL(p.rc, TCTL_USAGE);
	snprintf(msg, sizeof(msg), "subsystem add: --from %s: ", path);
	CU_ASSERT_EQUAL(strncmp(p.err, msg, strlen(msg)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.err, "(line 2, column "));
	CU_ASSERT_PTR_NULL(p.req.params);
	unlink(path);
	/* A directory opens but is no file to read: say so, not "not JSON". */
	expect_usage(load(parse(&p, "subsystem", "add", "--from", dir, NULL)),
		     (snprintf(msg, sizeof(msg), "subsystem add: --from %s: is a directory", dir),
		      msg));
	/* A device or a FIFO would never end (or never start): refused by what it is. */
	expect_usage(load(parse(&p, "subsystem", "add", "--from", "/dev/zero", NULL)),
		     "subsystem add: --from /dev/zero: is a character device, not a regular file");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	expect_usage(load(parse(&p, "subsystem", "add", "--from", path, NULL)),
		     (snprintf(msg, sizeof(msg),
			       "subsystem add: --from %s: is a FIFO, not a regular file", path),
		      msg));
	unlink(path);
	rmdir(dir);
}

/* host dhchap: the names from the command line, the secrets from the environment only. */
static void host_dhchap_takes_secrets_from_the_environment(void)
{
	struct parsed p;
	unsetenv("NVMF_DHCHAP_SECRET");
	unsetenv("NVMF_DHCHAP_CTRL_SECRET");
	expect_usage(load(parse(&p, "host", "dhchap", "nqn.h", NULL)),
		     "host dhchap: $NVMF_DHCHAP_SECRET is not set: it holds the host's secret "
		     "(nvme gen-dhchap-key)");
	setenv("NVMF_DHCHAP_SECRET", HOST_KEY, 1);
	expect_call(load(parse(&p, "host", "dhchap", "nqn.h", NULL)), "host_dhchap_set",
		    "{\"host\":\"nqn.h\",\"key\":\"" HOST_KEY "\"}");
	setenv("NVMF_DHCHAP_CTRL_SECRET", CTRL_KEY, 1);
	expect_call(load(parse(&p, "host", "dhchap", "nqn.h", "--hash", "hmac(sha512)",
			       "--dhgroup=ffdhe4096", NULL)),
		    "host_dhchap_set",
		    "{\"host\":\"nqn.h\",\"hash\":\"hmac(sha512)\",\"dhgroup\":\"ffdhe4096\","
		    "\"key\":\"" HOST_KEY "\",\"ctrl_key\":\"" CTRL_KEY "\"}");
	unsetenv("NVMF_DHCHAP_SECRET");
	unsetenv("NVMF_DHCHAP_CTRL_SECRET");
	/* --hash and --dhgroup take the schema's names only; a secret typed there is not
	 * repeated */
	expect_usage(parse(&p, "host", "dhchap", "nqn.h", "--hash", "md5", NULL),
		     "host dhchap: --hash 'md5' is not hmac(sha256), hmac(sha384) or hmac(sha512)");
	expect_usage(parse(&p, "host", "dhchap", "nqn.h", "--dhgroup", "ffdhe1024", NULL),
		     "host dhchap: --dhgroup 'ffdhe1024' is not null, ffdhe2048, ffdhe3072, "
		     "ffdhe4096, ffdhe6144 or ffdhe8192");
	expect_usage(parse(&p, "host", "dhchap", "nqn.h", "--hash", HOST_KEY, NULL),
		     "host dhchap: --hash (a secret, not shown) is not hmac(sha256), "
		     "hmac(sha384) or hmac(sha512)");
	/* No option carries a secret. */
	expect_usage(parse(&p, "host", "dhchap", "nqn.h", "--key", HOST_KEY, NULL),
		     "host dhchap: unknown option '--key'");
	expect_usage(
		parse(&p, "host", "dhchap", NULL),
		"host dhchap: missing HOSTNQN (usage: host dhchap HOSTNQN [--hash H] [--dhgroup G])");
	expect_call(parse(&p, "host", "dhchap-clear", "nqn.h", NULL), "host_dhchap_clear",
		    "{\"host\":\"nqn.h\"}");
}

static void save_path_is_made_absolute_through_its_real_directory(void)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16], msg[256] = "";
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(".", cwd));
	json_t *p = json_object();
	CU_ASSERT_EQUAL(tctl_load_save_path(p, msg, sizeof(msg)), 0); /* no PATH: the target's */
	CU_ASSERT_EQUAL(json_object_size(p), 0);
	json_object_set_new(p, "path", json_string("/abs/x.json")); /* absolute: as typed */
	CU_ASSERT_EQUAL(tctl_load_save_path(p, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "path")), "/abs/x.json");
	json_object_set_new(p, "path", json_string("tests/../tests/x.json")); /* ".." resolved */
	CU_ASSERT_EQUAL(tctl_load_save_path(p, msg, sizeof(msg)), 0);
	snprintf(want, sizeof(want), "%s/tests/x.json", cwd);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "path")), want);
	/* Up to the root: one slash, not two. */
	char up[PATH_MAX] = "";
	for (const char *c = cwd; *c; c++)
		if (*c == '/')
			strcat(up, "../");
	strcat(up, "x.json");
	json_object_set_new(p, "path", json_string(up));
	CU_ASSERT_EQUAL(tctl_load_save_path(p, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "path")), "/x.json");
	CU_ASSERT_STRING_EQUAL(msg, "");
	json_decref(p);
}

static void an_empty_secret_in_the_environment_is_none(void)
{
	char msg[256];
	json_t *p = json_object();
	setenv("NVMF_DHCHAP_SECRET", "", 1);
	CU_ASSERT_EQUAL(tctl_load_dhchap_secrets(p, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "$NVMF_DHCHAP_SECRET is not set"));
	CU_ASSERT_EQUAL(json_object_size(p), 0);
	setenv("NVMF_DHCHAP_SECRET", HOST_KEY, 1);
	setenv("NVMF_DHCHAP_CTRL_SECRET", "", 1); /* empty: no controller secret sent */
	CU_ASSERT_EQUAL(tctl_load_dhchap_secrets(p, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "key")), HOST_KEY);
	CU_ASSERT_PTR_NULL(json_object_get(p, "ctrl_key"));
	unsetenv("NVMF_DHCHAP_SECRET");
	unsetenv("NVMF_DHCHAP_CTRL_SECRET");
	json_decref(p);
}

static void subsystem_file_with_a_key_twice_is_refused_and_options_need_no_file(void)
{
	char dir[] = "/tmp/nvmf-tctl-dup-XXXXXX", path[128], msg[512];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	/* Built from options (an object, not a file name): nothing to read. */
	json_t *p = json_pack("{s:{s:s}}", "subsystem", "nqn", "nqn.o");
	CU_ASSERT_EQUAL(tctl_load_subsystem_file(p, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(json_object_get(p, "subsystem"), "nqn")),
		"nqn.o");
	json_decref(p);
	write_file(dir, "dup.json", "{\"nqn\":\"nqn.a\",\"nqn\":\"nqn.b\"}", path, sizeof(path));
	p = json_pack("{s:s}", "subsystem", path);
	CU_ASSERT_EQUAL(tctl_load_subsystem_file(p, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "duplicate object key"));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "subsystem")), path);
	json_decref(p);
	unlink(path);
	rmdir(dir);
}

static void load_runs_only_the_commands_loader_and_not_for_help(void)
{
	struct parsed p;
	char msg[512];
	/* --help: the file is never read, however wrong. */
	load(parse(&p, "subsystem", "add", "--from", "/nonexistent/x.json", "--help", NULL));
	CU_ASSERT_EQUAL(p.rc, TCTL_OK);
	CU_ASSERT_TRUE(p.req.help);
	tctl_request_free(&p.req);
	/* A command without a loader keeps its params as built. */
	expect_call(load(parse(&p, "namespace", "remove", "nqn.a", "3", NULL)), "namespace_remove",
		    "{\"nqn\":\"nqn.a\",\"nsid\":3}");
	/* A loader's failure names the command, and the request is freed. */
	unsetenv("NVMF_DHCHAP_SECRET");
	load(parse(&p, "host", "dhchap", "nqn.h", NULL));
	CU_ASSERT_EQUAL(p.rc, TCTL_USAGE);
	snprintf(msg, sizeof(msg), "%.11s", p.err);
	CU_ASSERT_STRING_EQUAL(msg, "host dhchap");
	CU_ASSERT_PTR_NULL(p.req.params);
}

const struct unit_test targetctl_load_tests[] = {
	{ "subsystem_add_from_sends_the_files_object_as_it_is",
	  subsystem_add_from_sends_the_files_object_as_it_is },
	{ "host_dhchap_takes_secrets_from_the_environment",
	  host_dhchap_takes_secrets_from_the_environment },
	{ "save_path_is_made_absolute_through_its_real_directory",
	  save_path_is_made_absolute_through_its_real_directory },
	{ "an_empty_secret_in_the_environment_is_none",
	  an_empty_secret_in_the_environment_is_none },
	{ "subsystem_file_with_a_key_twice_is_refused_and_options_need_no_file",
	  subsystem_file_with_a_key_twice_is_refused_and_options_need_no_file },
	{ "load_runs_only_the_commands_loader_and_not_for_help",
	  load_runs_only_the_commands_loader_and_not_for_help },
	{ NULL, NULL },
};
