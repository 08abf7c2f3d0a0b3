/* nvmf-targetctl's whole command lines in-process against a control socket, for the tests
 * of run.c and client.c: the real server (control/rpc-server.c) with a small method table,
 * or a one-connection server that sends what the real one cannot be made to. */
#ifndef NVMF_TESTS_UNIT_TARGETCTL_CTL_FIXTURE_H
#define NVMF_TESTS_UNIT_TARGETCTL_CTL_FIXTURE_H
#include <pthread.h>
#include <stdbool.h>
#include "app/nvmf-targetctl/targetctl.h"
#include "control/rpc-server.h"

struct ctl {
	char dir[64], path[96];
	struct nvmf_rpc_server srv;
	json_t *last_params; /* what the last method saw (owned) */
	char *out, *err;     /* what the last run printed */
	size_t outlen, errlen;
	char level[16]; /* log_level_get/set's state */
};

/* The configuration config_get answers with (JSON text). */
extern const char running_config[];

/* start - a temporary directory and the real server on its socket, with these methods:
 * version, namespace_remove, port_list, slow (answers after 1.6 s), subsystem_add,
 * config_get, config_save, config_reload, log_level_get, log_level_set. */
void start(struct ctl *t);
/* stop - the server stopped, the directory and what @t holds freed. */
void stop(struct ctl *t);
/* run - `nvmf-targetctl -s SOCKET ARGS...` (NULL-terminated) through tctl_run; returns the
 * exit status, t->out and t->err what it printed. */
int run(struct ctl *t, ...) __attribute__((sentinel));

/* A server of one connection that says what a test needs: it accepts, reads the request
 * (up to its end, the client sending nothing more) unless told not to, writes @reply as
 * it is and closes. For what the real server cannot be made to send. */
struct tiny {
	int lfd;
	pthread_t thread;
	const char *reply;
	bool read_request;
};

/* tiny_start - serve @reply once on @t's socket path (the real server stopped or never
 * started), reading the request first when @read_request. */
void tiny_start(struct tiny *s, struct ctl *t, const char *reply, bool read_request);
/* tiny_stop - wait for the one connection to end, then remove the socket. */
void tiny_stop(struct tiny *s, struct ctl *t);
/* start_empty - a temporary directory for the socket, no server in it; stop_empty removes
 * it and frees what @t holds. */
void start_empty(struct ctl *t);
void stop_empty(struct ctl *t);

#endif
