/* nvmf-targetctl against a control socket in the tests (see ctl_fixture.h). */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/app/nvmf-targetctl/ctl_fixture.h"
#include "tests/unit/suites.h"

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

const char running_config[] =
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

void start(struct ctl *t)
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

void stop(struct ctl *t)
{
	nvmf_rpc_server_stop(&t->srv);
	rmdir(t->dir);
	json_decref(t->last_params);
	free(t->out);
	free(t->err);
}

int run(struct ctl *t, ...)
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
void tiny_start(struct tiny *s, struct ctl *t, const char *reply, bool read_request)
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

void tiny_stop(struct tiny *s, struct ctl *t)
{
	pthread_join(s->thread, NULL);
	close(s->lfd);
	unlink(t->path);
}

/* A temporary directory for the socket, no server in it. */
void start_empty(struct ctl *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->dir, "/tmp/nvmf-tctl-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/ctl.sock", t->dir);
}

void stop_empty(struct ctl *t)
{
	rmdir(t->dir);
	free(t->out);
	free(t->err);
}
