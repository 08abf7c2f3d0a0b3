// SPDX-License-Identifier: MIT
/* The control socket's default path and framing, shared by the server and nvmf-targetctl
 * (see proto.h). */
#include "control/proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void nvmf_rpc_default_path(char *buf, size_t len)
{
	uid_t uid = geteuid();
	const char *run = getenv("XDG_RUNTIME_DIR");
	if (uid == 0)
		snprintf(buf, len, "%s", NVMF_RPC_DEFAULT_SOCKET);
	else if (run && run[0] == '/' && strlen(run) + sizeof("/nvmf-target.sock") <= 108)
		snprintf(buf, len, "%s/nvmf-target.sock", run);
	else
		snprintf(buf, len, "/tmp/nvmf-target-%u.sock", (unsigned)uid);
}

enum nvmf_rpc_frame nvmf_rpc_frame(const char *buf, size_t len, size_t *used, json_t **value)
{
	json_error_t err;
	json_t *v = json_loadb(
		buf, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &err);
	if (value)
		*value = NULL;
	if (v) {
		if (value)
			*value = v;
		else
			json_decref(v);
		*used = (size_t)err.position;
		return NVMF_RPC_FRAME_VALUE;
	}
	/* jansson reads a NUL byte as the end of its input, which would leave the request
	 * waiting forever for the rest. JSON has no raw NUL anywhere (not even in a string),
	 * so one before the first complete value makes the stream bad. */
	if (json_error_code(&err) == json_error_premature_end_of_input && !memchr(buf, '\0', len)) {
		*used = 0;
		return NVMF_RPC_FRAME_MORE;
	}
	*used = len;
	return NVMF_RPC_FRAME_BAD;
}
