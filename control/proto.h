/* SPDX-License-Identifier: MIT */
/*
 * What the control socket's server (control/rpc-server.h) and its clients (nvmf-targetctl)
 * share, apart from the method descriptions (control/schema.h): where the socket is by
 * default, how long a request may be, and how requests follow each other on the stream.
 * libc and jansson only: nvmf-targetctl links this and no target code.
 */
#ifndef NVMF_CONTROL_PROTO_H
#define NVMF_CONTROL_PROTO_H

#include <jansson.h>
#include <stddef.h>

/* The control socket when neither --rpc-socket nor nvmf_target.rpc_socket names one. */
#define NVMF_RPC_DEFAULT_SOCKET "/run/nvmf-target.sock"

/* Bytes a request may take before it is complete: past that the client is answered
 * -32600 and dropped (its stream cannot be resynchronised). */
#define NVMF_RPC_MAX_REQUEST (1u << 20)

/*
 * nvmf_rpc_default_path - where the daemon listens and the CLI connects by default:
 * NVMF_RPC_DEFAULT_SOCKET for root; for another user $XDG_RUNTIME_DIR/nvmf-target.sock,
 * or /tmp/nvmf-target-UID.sock without it (a user cannot create files in /run). Into
 * @buf of @len bytes (at least 108, sizeof(sun_path)).
 */
void nvmf_rpc_default_path(char *buf, size_t len);

/* Framing on a byte stream: requests follow each other with optional whitespace between. */
enum nvmf_rpc_frame {
	NVMF_RPC_FRAME_MORE,  /* no complete value yet: read more (or only whitespace) */
	NVMF_RPC_FRAME_VALUE, /* bytes [0, *used) hold one value */
	NVMF_RPC_FRAME_BAD,   /* bytes [0, *used) are not JSON: answer -32700 and drop them */
};
/*
 * nvmf_rpc_frame - where the first JSON value in @buf (@len bytes) ends. For VALUE and BAD
 * *used is the number of bytes to consume (for BAD: through the end of the buffer, since
 * a stream that lost its framing cannot be resynchronised). MORE sets *used to 0. For
 * VALUE, *value (if @value is not NULL) is the parsed value, the caller's reference (for
 * nvmf_rpc_answer); otherwise it is set to NULL. Duplicate keys are refused (BAD): a
 * request must mean one thing. A NUL byte before the end of the first value is BAD at
 * once (jansson would read it as the end of the input: MORE forever).
 */
enum nvmf_rpc_frame nvmf_rpc_frame(const char *buf, size_t len, size_t *used, json_t **value);

#endif
