// SPDX-License-Identifier: MIT
/* nvmf-targetctl from argv to exit status: parse, load (what a command reads from files),
 * send one request, judge the answer, print. Kept out of main.c so that the tests run
 * whole command lines in-process. */
#include <stdlib.h>
#include <string.h>

#include "app/nvmf-targetctl/targetctl.h"
#include "control/proto.h"
#include "nvme/dhchap.h"
#include "util/secret.h"
#include "util/version.h"

/* One request, with this id: the server answers in order and we send nothing else. */
#define REQUEST_ID 1

/* The answer is to our request: its id is REQUEST_ID, or (an error about a request the
 * server could not read, JSON-RPC 2.0 section 5) null or missing. Else printed here. */
static bool ours(const json_t *root, const char *path, const struct tctl_env *env)
{
	json_t *id = json_object_get(root, "id");
	if (json_is_integer(id) && json_integer_value(id) == REQUEST_ID)
		return true;
	if (json_is_object(json_object_get(root, "error")) && (!id || json_is_null(id)))
		return true;
	char *text = id ? json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	fprintf(env->err, TCTL_PROG ": %s: the target answered another request (id %.64s)\n", path,
		text ? text :
		id   ? "?" :
		       "missing");
	free(text);
	return false;
}

/* The answer line @text: the result (borrowed from *root), or an error printed here. */
static int judge(const char *text, const char *path, json_t **root, json_t **result,
		 const struct tctl_env *env)
{
	json_error_t je;
	*root = json_loads(text, 0, &je);
	bool response = json_object_get(*root, "result") || json_object_get(*root, "error");
	if (response && !ours(*root, path, env))
		return TCTL_ERR;
	json_t *error = json_object_get(*root, "error");
	if (json_is_object(error)) {
		const char *m = json_string_value(json_object_get(error, "message"));
		char shown[1024];
		snprintf(shown, sizeof(shown), "%s", m ? m : "error without a message");
		nvmf_text_redact_secrets(shown);
		fprintf(env->err, TCTL_PROG ": %s (%lld)\n", shown,
			(long long)json_integer_value(json_object_get(error, "code")));
		return TCTL_ERR;
	}
	if (!json_is_object(*root) || !json_object_get(*root, "result")) {
		char shown[201];
		snprintf(shown, sizeof(shown), "%s", text);
		nvmf_text_redact_secrets(shown);
		fprintf(env->err, TCTL_PROG ": %s: the answer is not a JSON-RPC response: %s\n",
			path, shown);
		return TCTL_ERR;
	}
	*result = json_object_get(*root, "result");
	return TCTL_OK;
}

/* A secret on the command line (call's JSON-PARAMS, an argument in the wrong place) is
 * seen by every user in ps and stays in the shell's history: say so, whatever follows. */
static void warn_secret_args(int argc, char **argv, const struct tctl_env *env)
{
	for (int i = 1; i < argc; i++)
		if (nvmf_text_has_secret(argv[i])) {
			/* The way to give it depends on what it is. */
			bool psk = strstr(argv[i], "NVMeTLSkey-1:") != NULL;
			fprintf(env->err,
				TCTL_PROG ": warning: argument %d holds a secret: other users see "
					  "it in ps and it stays in the shell history; %s instead, "
					  "and change this one\n",
				i,
				psk ? "put TLS PSKs in a file only root reads (chmod 600) and "
				      "give its path to 'host tls-key HOSTNQN --key-file PATH'" :
				      "give DH-HMAC-CHAP secrets to 'host dhchap' in "
				      "$NVMF_DHCHAP_SECRET and $NVMF_DHCHAP_CTRL_SECRET");
			return;
		}
}

int tctl_run(int argc, char **argv, const struct tctl_env *env)
{
	struct tctl_request req;
	char err[512], path[128];
	warn_secret_args(argc, argv, env);
	if (tctl_parse(argc, argv, &req, err, sizeof(err)) || tctl_load(&req, err, sizeof(err))) {
		nvmf_text_redact_secrets(err); /* a usage error may quote the argument */
		fprintf(env->err, TCTL_PROG ": %s\n", err);
		return TCTL_USAGE;
	}
	if (req.version && !req.help) {
		fprintf(env->out, TCTL_PROG " %s\n", NVMF_VERSION);
		tctl_request_free(&req);
		return TCTL_OK;
	}
	if (req.help) {
		tctl_usage(env->out, &req);
		tctl_request_free(&req);
		return TCTL_OK;
	}
	if (req.socket)
		snprintf(path, sizeof(path), "%s", req.socket);
	else
		nvmf_rpc_default_path(path, sizeof(path));
	json_t *call = json_pack("{s:s, s:s, s:O, s:i}", "jsonrpc", "2.0", "method", req.method,
				 "params", req.params, "id", REQUEST_ID);
	char *text = call ? json_dumps(call, JSON_COMPACT) : NULL;
	json_decref(call);
	char *answer = NULL;
	json_t *root = NULL, *result = NULL;
	int rc = TCTL_ERR;
	if (!text) {
		fprintf(env->err, TCTL_PROG ": out of memory\n");
		goto out;
	}
	switch (tctl_client_call(path, req.timeout_s, text, strlen(text), &answer, err,
				 sizeof(err))) {
	case TCTL_CLIENT_NOCONN:
		fprintf(env->err,
			TCTL_PROG ": cannot connect to %s: %s (is nvmf-target running? "
				  "--socket PATH)\n",
			path, err);
		rc = TCTL_NOCONN;
		goto out;
	case TCTL_CLIENT_FAILED:
		fprintf(env->err, TCTL_PROG ": %s: %s\n", path, err);
		goto out;
	case TCTL_CLIENT_OK:
		break;
	}
	rc = judge(answer, path, &root, &result, env);
	if (rc == TCTL_OK && (rc = tctl_format(env->out, &req, result)))
		fprintf(env->err, TCTL_PROG ": cannot write the output\n");
	/* A change made with a caveat (a port in the ephemeral range): on stderr, after it. */
	json_t *warns = rc == TCTL_OK && !req.json ? json_object_get(result, "warnings") : NULL;
	for (size_t i = 0; i < json_array_size(warns); i++)
		if (json_is_string(json_array_get(warns, i)))
			fprintf(env->err, TCTL_PROG ": warning: %s\n",
				json_string_value(json_array_get(warns, i)));
out:
	json_decref(root);
	free(answer);
	free(text);
	tctl_request_free(&req);
	return rc;
}
