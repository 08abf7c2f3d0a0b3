/* SPDX-License-Identifier: MIT */
/*
 * The control socket: a Unix stream socket on which clients send JSON-RPC 2.0 requests
 * (control/rpc.h), one after another with optional whitespace between, and read one
 * response line (compact JSON and '\n') per answered request. One thread of its own
 * serves every client; the calls themselves run where the owner says (@run: in the
 * target, on the main poll group), one at a time, so each call sees and leaves a
 * consistent state.
 */
#ifndef NVMF_CONTROL_RPC_SERVER_H
#define NVMF_CONTROL_RPC_SERVER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "control/rpc.h"

#define NVMF_RPC_MAX_CLIENTS 16u

/* nvmf_rpc_run_fn - run @fn(@arg) on the owner's thread and return when it has run. */
typedef void (*nvmf_rpc_run_fn)(void *run_ctx, void (*fn)(void *arg), void *arg);

/* A client that sends nothing for this long is closed: idle connections must not hold
 * the slots an administrator needs. */
#define NVMF_RPC_IDLE_MS 60000

struct nvmf_rpc_client {
	int fd;    /* -1: slot free */
	char *buf; /* received, not yet framed */
	size_t len, cap;
	uint64_t last_ms; /* monotonic ms of its last bytes */
	/* Where an object or array being received ends, scanned once per byte, so a large
	 * request arriving in pieces is parsed once, when it is complete. */
	size_t scanned; /* bytes of buf looked at */
	unsigned depth; /* open braces and brackets */
	bool started, in_str, esc;
};

struct nvmf_rpc_server {
	char path[108];   /* sizeof(sun_path) */
	int lfd;          /* listening socket */
	int stop_fd;      /* eventfd: the thread leaves */
	uid_t uid;        /* only this user (and root) may connect */
	uint32_t idle_ms; /* NVMF_RPC_IDLE_MS (atomic: tests shorten it) */
	const struct nvmf_rpc_method *methods;
	void *ctx;           /* for the methods */
	nvmf_rpc_run_fn run; /* NULL: on the server's thread */
	void *run_ctx;
	pthread_t thread;
	bool started;
	bool exited; /* the thread has left its loop (atomic) */
	struct nvmf_rpc_client clients[NVMF_RPC_MAX_CLIENTS];
	unsigned long calls,
		refused; /* requests handled (notifications too), connections refused */
};

/* NVMF_RPC_MAX_REQUEST, NVMF_RPC_DEFAULT_SOCKET and nvmf_rpc_default_path: control/proto.h. */

/*
 * nvmf_rpc_server_start - listen on @path (mode 0600, owned by the caller's user) and
 * serve it on a thread until nvmf_rpc_server_stop. A socket left at @path by a target
 * that died is removed; a path where a live server answers, or that is not a socket, is
 * left alone and refused. Returns 0, or -1 with @err naming the path and the reason.
 */
int nvmf_rpc_server_start(struct nvmf_rpc_server *srv, const char *path,
			  const struct nvmf_rpc_method *methods, void *ctx, nvmf_rpc_run_fn run,
			  void *run_ctx, char *err, size_t errlen);

/* nvmf_rpc_server_stop - stop the thread, close every client, remove the socket file.
 * Calls in progress finish first. No-op when not started. */
void nvmf_rpc_server_stop(struct nvmf_rpc_server *srv);
/* nvmf_rpc_server_stop_pumping - the same, calling @pump(@arg) until the thread has left:
 * when @run executes calls on the caller's own thread (the target's main poll group), a
 * call in progress needs the caller to keep running it. */
void nvmf_rpc_server_stop_pumping(struct nvmf_rpc_server *srv, void (*pump)(void *arg), void *arg);

#endif
