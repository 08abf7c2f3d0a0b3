/* nvmf-targetctl end to end (app/nvmf-targetctl/run.c, client.c) against the real control socket
 * server (control/rpc-server.c) with a small method table: what the target receives, what
 * the administrator sees, and the exit status for success, a target error (1), a usage
 * error (2), no server (3) and a target that does not answer in time (1). */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "app/nvmf-targetctl/targetctl.h"
#include "control/rpc-server.h"
#include "tests/unit/suites.h"

struct ctl {
	char dir[64], path[96];
	struct nvmf_rpc_server srv;
	json_t *last_params; /* what the last method saw (owned) */
	char *out, *err;     /* what the last run printed */
	size_t outlen, errlen;
	char level[16]; /* log_level_get/set's state */
};

static void keep(struct ctl *t, struct nvmf_rpc_call *call)
{
	json_decref(t->last_params);
	t->last_params = json_deep_copy(call->params);
}

static void m_version(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	nvmf_rpc_result(call,
			json_pack("{s:s, s:s}", "program", "nvmf-target", "version", "0.1.0"));
}

static void m_namespace_remove(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	uint64_t nsid;
	const char *nqn;
	if (!nvmf_rpc_param_str(call, "nqn", true, 223, &nqn) ||
	    !nvmf_rpc_param_uint(call, "nsid", true, 1, 0xfffffffe, &nsid))
		return;
	if (nsid == 9) {
		nvmf_rpc_error(call, NVMF_RPC_NOT_FOUND, "nsid: %s has no namespace 9", nqn);
		return;
	}
	nvmf_rpc_result(call, json_pack("{s:I}", "nsid", (json_int_t)nsid));
}

static void m_port_list(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	nvmf_rpc_result(call, json_loads("{\"ports\":[{\"portid\":1,\"trtype\":\"rdma\",\"adrfam\":"
					 "\"ipv4\",\"traddr\":\"10.0.0.1\",\"trsvcid\":\"4420\","
					 "\"subsystems\":[\"nqn.a\"],\"controllers\":0}]}",
					 0, NULL));
}

static void m_slow(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	struct timespec ts = { .tv_sec = 1, .tv_nsec = 600 * 1000000L };
	nanosleep(&ts, NULL);
	nvmf_rpc_result(call, json_object());
}

/* As the target does: the NQN of the subsystem object it was given. */
static void m_subsystem_add(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	json_t *nqn = json_object_get(json_object_get(call->params, "subsystem"), "nqn");
	if (!json_is_string(nqn)) {
		nvmf_rpc_error(call, NVMF_RPC_INVALID_PARAMS,
			       "subsystem.nqn: required key is missing");
		return;
	}
	nvmf_rpc_result(call, json_pack("{s:O}", "nqn", nqn));
}

static const char running_config[] =
	"{\"subsystems\":[{\"nqn\":\"nqn.a\",\"attr\":{\"allow_any_host\":\"1\",\"serial\":\"a1\"},"
	"\"allowed_hosts\":[],\"namespaces\":[{\"nsid\":1,\"enable\":true,\"nvmf_backend\":\"ram\","
	"\"nvmf_size_bytes\":67108864}]}],\"ports\":[{\"portid\":1,\"addr\":{\"trtype\":\"rdma\","
	"\"adrfam\":\"ipv4\",\"traddr\":\"10.0.0.1\",\"trsvcid\":\"4420\"},\"subsystems\":[\"nqn.a\"]}]}";

static void m_config_get(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	nvmf_rpc_result(call, json_loads(running_config, 0, NULL));
}

static void m_config_save(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	const char *path = NULL;
	if (!nvmf_rpc_param_str(call, "path", false, 4000, &path))
		return;
	nvmf_rpc_result(call, json_pack("{s:s}", "path", path ? path : "/etc/nvmf-target.json"));
}

static void m_config_reload(void *ctx, struct nvmf_rpc_call *call)
{
	keep(ctx, call);
	nvmf_rpc_result(call, json_pack("{s:[s,s]}", "changes", "subsystem nqn.b added",
					"port 2 removed"));
}

static void m_log_level_get(void *ctx, struct nvmf_rpc_call *call)
{
	struct ctl *t = ctx;
	keep(t, call);
	nvmf_rpc_result(call, json_pack("{s:s}", "level", t->level));
}

static void m_log_level_set(void *ctx, struct nvmf_rpc_call *call)
{
	struct ctl *t = ctx;
	keep(t, call);
	const char *level, *comp = NULL;
	if (!nvmf_rpc_param_str(call, "level", true, 15, &level) ||
	    !nvmf_rpc_param_str(call, "component", false, 15, &comp))
		return;
	json_t *r = json_pack("{s:s, s:s}", "level", level, "previous", t->level);
	if (comp)
		json_object_set_new(r, "component", json_string(comp));
	snprintf(t->level, sizeof(t->level), "%s", level);
	nvmf_rpc_result(call, r);
}

static const struct nvmf_rpc_method methods[] = {
	{ "version", m_version, NULL },                   /* program and version */
	{ "namespace_remove", m_namespace_remove, NULL }, /* remove a namespace */
	{ "port_list", m_port_list, NULL },               /* ports */
	{ "slow", m_slow, NULL },                         /* answers after 1.6 s */
	{ "subsystem_add", m_subsystem_add, NULL },       /* the NQN of the subsystem given */
	{ "config_get", m_config_get, NULL },             /* a fixed configuration */
	{ "config_save", m_config_save, NULL },           /* the path it would save to */
	{ "config_reload", m_config_reload, NULL },       /* two changes */
	{ "log_level_get", m_log_level_get, NULL },       /* the level */
	{ "log_level_set", m_log_level_set, NULL },       /* a new level and the one before */
	{ NULL, NULL, NULL },
};

static void start(struct ctl *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->dir, "/tmp/nvmf-tctl-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/ctl.sock", t->dir);
	strcpy(t->level, "info");
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(nvmf_rpc_server_start(&t->srv, t->path, methods, t, NULL, NULL, err,
						    sizeof(err)),
			      0);
}

static void stop(struct ctl *t)
{
	nvmf_rpc_server_stop(&t->srv);
	rmdir(t->dir);
	json_decref(t->last_params);
	free(t->out);
	free(t->err);
}

/* Run `nvmf-targetctl -s SOCKET ARGS...` (NULL-terminated); returns the exit status. */
static int run(struct ctl *t, ...) __attribute__((sentinel));
static int run(struct ctl *t, ...)
{
	char *argv[32] = { "nvmf-targetctl", "-s", t->path };
	int argc = 3;
	va_list ap;
	va_start(ap, t);
	for (char *a; argc < 31 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	free(t->out);
	free(t->err);
	struct tctl_env env = { .out = open_memstream(&t->out, &t->outlen),
				.err = open_memstream(&t->err, &t->errlen) };
	int rc = tctl_run(argc, argv, &env);
	fclose(env.out);
	fclose(env.err);
	return rc;
}

static void a_command_prints_the_answer_and_exits_0(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf-target 0.1.0\n");
	CU_ASSERT_STRING_EQUAL(t.err, "");
	CU_ASSERT_EQUAL(run(&t, "port", "list", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(
		t.out, "PORTID  TRTYPE  ADRFAM  TRADDR    TRSVCID  CONTROLLERS  SUBSYSTEMS\n"
		       "     1  rdma    ipv4    10.0.0.1     4420            0  nqn.a\n");
	CU_ASSERT_EQUAL(run(&t, "namespace", "remove", "nqn.a", "3", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "namespace 3 removed from nqn.a\n");
	json_t *want = json_pack("{s:s, s:i}", "nqn", "nqn.a", "nsid", 3);
	CU_ASSERT_TRUE(json_equal(t.last_params, want));
	json_decref(want);
	CU_ASSERT_EQUAL(t.srv.calls, 3);
	stop(&t);
}

static void json_prints_the_result_and_call_reaches_any_method(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "--json", "namespace", "remove", "nqn.a", "4", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "{\n  \"nsid\": 4\n}\n");
	CU_ASSERT_EQUAL(run(&t, "call", "namespace_remove", "{\"nqn\":\"nqn.b\",\"nsid\":5}", NULL),
			TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "{\n  \"nsid\": 5\n}\n");
	json_t *want = json_pack("{s:s, s:i}", "nqn", "nqn.b", "nsid", 5);
	CU_ASSERT_TRUE(json_equal(t.last_params, want));
	json_decref(want);
	stop(&t);
}

static void an_error_from_the_target_exits_1_with_its_message_and_code(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "namespace", "remove", "nqn.a", "9", NULL), TCTL_ERR);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: nsid: nqn.a has no namespace 9 (-32001)\n");
	/* A method the target does not have: the dispatcher's own error. */
	CU_ASSERT_EQUAL(run(&t, "call", "no_such_method", NULL), TCTL_ERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "(-32601)\n"));
	CU_ASSERT_EQUAL(strncmp(t.err, "nvmf-targetctl: ", 16), 0);
	/* The target's parameter check: the CLI passes the raw call through unchecked. */
	CU_ASSERT_EQUAL(run(&t, "call", "namespace_remove", "{\"nqn\":\"nqn.a\"}", NULL), TCTL_ERR);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "nsid"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "(-32602)\n"));
	stop(&t);
}

static void a_usage_error_exits_2_and_sends_nothing(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "namespace", "remove", "nqn.a", "abc", NULL), TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(t.err,
			       "nvmf-targetctl: namespace remove: NSID 'abc' is not a number\n");
	CU_ASSERT_STRING_EQUAL(t.out, "");
	CU_ASSERT_EQUAL(run(&t, "namespace", "add", "--help", NULL), TCTL_OK);
	static const char usage[] = "Usage: nvmf-targetctl [GLOBAL OPTIONS] namespace add NQN "
				    "(--path PATH | --ram SIZE | --null SIZE) [OPTIONS]\n";
	CU_ASSERT_EQUAL(strncmp(t.out, usage, strlen(usage)), 0);
	CU_ASSERT_STRING_EQUAL(t.err, "");
	CU_ASSERT_EQUAL(t.srv.calls, 0);
	stop(&t);
}

static void no_server_exits_3_naming_the_socket(void)
{
	struct ctl t;
	start(&t);
	stop(&t); /* the path is gone now */
	t.out = t.err = NULL;
	t.last_params = NULL;
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_NOCONN);
	char want[256];
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: cannot connect to %s: No such file or "
		 "directory (is nvmf-target running? --socket PATH)\n",
		 t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	free(t.out);
	free(t.err);
}

static void a_target_that_does_not_answer_in_time_exits_1(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "--timeout", "1", "call", "slow", NULL), TCTL_ERR);
	char want[256];
	snprintf(want, sizeof(want), "nvmf-targetctl: %s: no answer within 1 s (--timeout SECS)\n",
		 t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	stop(&t); /* waits for the slow call to finish */
}

/* @t's last params equal the JSON text @want. */
static void expect_params(struct ctl *t, const char *want)
{
	json_t *w = json_loads(want, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_TRUE(json_equal(t->last_params, w));
	if (!json_equal(t->last_params, w)) {
		char *got = json_dumps(t->last_params, JSON_COMPACT);
		fprintf(stderr, "\n  params %s, expected %s\n", got, want);
		free(got);
	}
	json_decref(w);
}

static void subsystem_add_sends_options_or_a_file_and_confirms(void)
{
	struct ctl t;
	start(&t);
	CU_ASSERT_EQUAL(run(&t, "subsystem", "add", "nqn.a", "--host", "nqn.h:1", "--host",
			    "nqn.h:2", "--serial", "a1", NULL),
			TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "subsystem nqn.a added\n");
	CU_ASSERT_STRING_EQUAL(t.err, "");
	expect_params(&t, "{\"subsystem\":{\"nqn\":\"nqn.a\",\"attr\":{\"allow_any_host\":\"0\","
			  "\"serial\":\"a1\"},\"allowed_hosts\":[\"nqn.h:1\",\"nqn.h:2\"],"
			  "\"namespaces\":[]}}");
	/* --from: the file's object, sent as it is; the confirmation names its NQN. */
	char file[128], want[256];
	snprintf(file, sizeof(file), "%s/sub.json", t.dir);
	static const char sub[] = "{\"nqn\":\"nqn.f\",\"namespaces\":[{\"nsid\":2,\"nvmf_backend\":"
				  "\"null\",\"nvmf_size_bytes\":\"1G\"}]}";
	FILE *f = fopen(file, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(sub, f);
	fclose(f);
	CU_ASSERT_EQUAL(run(&t, "subsystem", "add", "--from", file, NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "subsystem nqn.f added\n");
	snprintf(want, sizeof(want), "{\"subsystem\":%s}", sub);
	expect_params(&t, want);
	unlink(file);
	/* A file that is not there is the command line's fault: exit 2, nothing sent. */
	CU_ASSERT_EQUAL(run(&t, "subsystem", "add", "--from", file, NULL), TCTL_USAGE);
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: subsystem add: --from %s: No such file or "
		 "directory\n",
		 file);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	CU_ASSERT_STRING_EQUAL(t.out, "");
	CU_ASSERT_EQUAL(t.srv.calls, 2);
	stop(&t);
}

static void config_and_log_level_run_end_to_end(void)
{
	struct ctl t;
	start(&t);
	/* config show: JSON that parses back to exactly what the target sent. */
	CU_ASSERT_EQUAL(run(&t, "config", "show", NULL), TCTL_OK);
	json_t *shown = json_loads(t.out, 0, NULL), *sent = json_loads(running_config, 0, NULL);
	CU_ASSERT_TRUE(json_equal(shown, sent));
	CU_ASSERT_EQUAL(strncmp(t.out, "{\n  \"subsystems\": [\n", 19), 0);
	json_decref(shown);
	json_decref(sent);
	CU_ASSERT_EQUAL(run(&t, "config", "reload", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "subsystem nqn.b added\nport 2 removed\n");
	/* config save of a relative path: the target gets it absolute. */
	char cwd[PATH_MAX], want[PATH_MAX + 64];
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(".", cwd));
	CU_ASSERT_EQUAL(run(&t, "config", "save", "t.json", NULL), TCTL_OK);
	snprintf(want, sizeof(want), "running configuration saved to %s/t.json\n", cwd);
	CU_ASSERT_STRING_EQUAL(t.out, want);
	snprintf(want, sizeof(want), "{\"path\":\"%s/t.json\"}", cwd);
	expect_params(&t, want);
	/* Its help names both methods. */
	CU_ASSERT_EQUAL(run(&t, "log-level", "--help", NULL), TCTL_OK);
	static const char usage[] =
		"Usage: nvmf-targetctl [GLOBAL OPTIONS] log-level [--component C] [LEVEL]\n"
		"Print or set the target's log level (method log_level_get; "
		"with LEVEL, log_level_set).\n\nOptions:\n"
		"  --component C        only this component's level (default: every component's);\n"
		"                       C is one of the names listed for component below\n"
		"LEVEL is one of the names listed for level below.\n";
	CU_ASSERT_EQUAL(strncmp(t.out, usage, strlen(usage)), 0);
	CU_ASSERT_EQUAL(run(&t, "log-level", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "info\n");
	CU_ASSERT_EQUAL(run(&t, "log-level", "debug", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "log level debug (was info)\n");
	expect_params(&t, "{\"level\":\"debug\"}");
	CU_ASSERT_EQUAL(run(&t, "log-level", "--component", "tcp", "error", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "log level of tcp error (was debug)\n");
	expect_params(&t, "{\"component\":\"tcp\",\"level\":\"error\"}");
	CU_ASSERT_EQUAL(run(&t, "--json", "log-level", NULL), TCTL_OK);
	CU_ASSERT_STRING_EQUAL(t.out, "{\n  \"level\": \"error\"\n}\n");
	CU_ASSERT_EQUAL(run(&t, "log-level", "verbose", NULL), TCTL_USAGE);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: log-level: LEVEL 'verbose' is not error, "
				      "warning, info or debug\n");
	CU_ASSERT_EQUAL(t.srv.calls, 7);
	stop(&t);
}

/* A server of one connection that says what a test needs: it accepts, reads the request
 * (up to its end, the client sending nothing more) unless told not to, writes @reply as
 * it is and closes. For what the real server cannot be made to send. */
struct tiny {
	int lfd;
	pthread_t thread;
	const char *reply;
	bool read_request;
};

static void *tiny_serve(void *arg)
{
	struct tiny *s = arg;
	int fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	char buf[4096];
	if (s->read_request) { /* the request is one JSON object, without a '\n' */
		int depth = 0;
		bool started = false, in_str = false, esc = false;
		for (ssize_t n; (!started || depth) && (n = read(fd, buf, sizeof(buf))) > 0;)
			for (ssize_t i = 0; i < n; i++) {
				char c = buf[i];
				if (in_str) {
					in_str = esc ? true : c != '"';
					esc = !esc && c == '\\';
				} else if (c == '"') {
					in_str = true;
				} else if (c == '{') {
					depth++;
					started = true;
				} else if (c == '}') {
					depth--;
				}
			}
	}
	for (size_t off = 0, len = strlen(s->reply); off < len;) {
		ssize_t n = write(fd, s->reply + off, len - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	return NULL;
}

/* Serve @reply once on @t's socket path (the real server stopped or never started). */
static void tiny_start(struct tiny *s, struct ctl *t, const char *reply, bool read_request)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", t->path);
	unlink(t->path);
	s->reply = reply;
	s->read_request = read_request;
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CU_ASSERT_FATAL(s->lfd >= 0);
	CU_ASSERT_EQUAL_FATAL(bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	CU_ASSERT_EQUAL_FATAL(listen(s->lfd, 4), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&s->thread, NULL, tiny_serve, s), 0);
}

static void tiny_stop(struct tiny *s, struct ctl *t)
{
	pthread_join(s->thread, NULL);
	close(s->lfd);
	unlink(t->path);
}

/* A temporary directory for the socket, no server in it. */
static void start_empty(struct ctl *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->dir, "/tmp/nvmf-tctl-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/ctl.sock", t->dir);
}

static void stop_empty(struct ctl *t)
{
	rmdir(t->dir);
	free(t->out);
	free(t->err);
}

/* `call ping {"pad": "xxx..."}`, @bytes long: more than a socket buffer holds, so the
 * send is still under way when the server closes. */
static char *big_params(size_t bytes)
{
	char *p = malloc(bytes + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memset(p, 'x', bytes);
	memcpy(p, "{\"pad\":\"", 8);
	memcpy(p + bytes - 2, "\"}", 3);
	return p;
}

static const char too_many[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32003,"
			       "\"message\":\"too many clients (16); try again later\"}}\n";

static void a_server_that_closes_before_reading_has_its_error_reported(void)
{
	struct ctl t;
	struct tiny s;
	start_empty(&t);
	/* As the target answers a 17th client: its error, then close, reading nothing. The
	 * request outgrows the socket buffer, so the send fails (EPIPE or ECONNRESET). */
	char *pad = big_params(8u << 20);
	tiny_start(&s, &t, too_many, false);
	CU_ASSERT_EQUAL(run(&t, "call", "ping", pad, NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: too many clients (16); try again later "
				      "(-32003)\n");
	CU_ASSERT_STRING_EQUAL(t.out, "");
	/* A small request: sent before the close, the same answer. */
	tiny_start(&s, &t, too_many, false);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: too many clients (16); try again later "
				      "(-32003)\n");
	/* Closed with nothing said: the send's own error stands. */
	tiny_start(&s, &t, "", false);
	CU_ASSERT_EQUAL(run(&t, "call", "ping", pad, NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	char want[256];
	snprintf(want, sizeof(want), "nvmf-targetctl: %s: send: ", t.path);
	CU_ASSERT_EQUAL(strncmp(t.err, want, strlen(want)), 0);
	free(pad);
	stop_empty(&t);
}

static void a_request_too_long_for_the_server_has_its_error_reported(void)
{
	struct ctl t;
	start(&t);
	/* The real server reads 1 MiB, answers why and closes while the CLI still sends. */
	char *pad = big_params(4u << 20);
	CU_ASSERT_EQUAL(run(&t, "call", "version", pad, NULL), TCTL_ERR);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: request: longer than 1048576 bytes; "
				      "connection closed (-32600)\n");
	CU_ASSERT_EQUAL(t.srv.calls, 0);
	free(pad);
	stop(&t);
}

static void an_answer_to_another_request_is_an_error(void)
{
	static const struct {
		const char *reply, *why;
	} cases[] = {
		{ "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n", "(id 2)" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\n", "(id \"1\")" },
		{ "{\"jsonrpc\":\"2.0\",\"result\":{}}\n", "(id missing)" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}\n", "(id null)" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32001,\"message\":\"x\"}}\n",
		  "(id 7)" },
	};
	struct ctl t;
	struct tiny s;
	char want[256];
	start_empty(&t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tiny_start(&s, &t, cases[i].reply, true);
		CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
		tiny_stop(&s, &t);
		snprintf(want, sizeof(want),
			 "nvmf-targetctl: %s: the target answered another "
			 "request %s\n",
			 t.path, cases[i].why);
		CU_ASSERT_STRING_EQUAL(t.err, want);
		CU_ASSERT_STRING_EQUAL(t.out, "");
	}
	/* Ours: id 1; an error about a request the server could not read has id null. */
	tiny_start(&s, &t,
		   "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"program\":\"p\","
		   "\"version\":\"1\"}}\n",
		   true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_OK);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.out, "p 1\n");
	tiny_start(&s, &t,
		   "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
		   "\"message\":\"parse error\"}}\n",
		   true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.err, "nvmf-targetctl: parse error (-32700)\n");
	stop_empty(&t);
}

static void a_whole_answer_without_its_newline_is_taken_at_close(void)
{
	struct ctl t;
	struct tiny s;
	char want[256];
	start_empty(&t);
	tiny_start(&s, &t,
		   "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"program\":\"nvmf-target\","
		   "\"version\":\"0.1.0\"}}",
		   true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_OK);
	tiny_stop(&s, &t);
	CU_ASSERT_STRING_EQUAL(t.out, "nvmf-target 0.1.0\n");
	CU_ASSERT_STRING_EQUAL(t.err, "");
	/* Cut short: not an answer. */
	tiny_start(&s, &t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"res", true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: %s: the target closed the connection in the "
		 "middle of its answer\n",
		 t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	tiny_start(&s, &t, "", true);
	CU_ASSERT_EQUAL(run(&t, "version", NULL), TCTL_ERR);
	tiny_stop(&s, &t);
	snprintf(want, sizeof(want),
		 "nvmf-targetctl: %s: the target closed the connection "
		 "without answering\n",
		 t.path);
	CU_ASSERT_STRING_EQUAL(t.err, want);
	stop_empty(&t);
}

const struct unit_test targetctl_client_tests[] = {
	{ "a_command_prints_the_answer_and_exits_0", a_command_prints_the_answer_and_exits_0 },
	{ "json_prints_the_result_and_call_reaches_any_method",
	  json_prints_the_result_and_call_reaches_any_method },
	{ "an_error_from_the_target_exits_1_with_its_message_and_code",
	  an_error_from_the_target_exits_1_with_its_message_and_code },
	{ "a_usage_error_exits_2_and_sends_nothing", a_usage_error_exits_2_and_sends_nothing },
	{ "no_server_exits_3_naming_the_socket", no_server_exits_3_naming_the_socket },
	{ "a_target_that_does_not_answer_in_time_exits_1",
	  a_target_that_does_not_answer_in_time_exits_1 },
	{ "subsystem_add_sends_options_or_a_file_and_confirms",
	  subsystem_add_sends_options_or_a_file_and_confirms },
	{ "config_and_log_level_run_end_to_end", config_and_log_level_run_end_to_end },
	{ "a_server_that_closes_before_reading_has_its_error_reported",
	  a_server_that_closes_before_reading_has_its_error_reported },
	{ "a_request_too_long_for_the_server_has_its_error_reported",
	  a_request_too_long_for_the_server_has_its_error_reported },
	{ "an_answer_to_another_request_is_an_error", an_answer_to_another_request_is_an_error },
	{ "a_whole_answer_without_its_newline_is_taken_at_close",
	  a_whole_answer_without_its_newline_is_taken_at_close },
	{ NULL, NULL },
};
