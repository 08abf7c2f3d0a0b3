// SPDX-License-Identifier: MIT
/*
 * The part of building a request that reads the system: subsystem add --from FILE reads
 * FILE, config save resolves a relative PATH, host dhchap reads the secrets from the
 * environment. Kept out of the builders so that argv to
 * request (args.c, request.c) stays pure and tests need no files for it; run.c calls
 * tctl_load between parsing and sending. A failure here is still the command line's
 * (a file that is not there or not a subsystem): a usage error, nothing sent.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/nvmf-targetctl/targetctl.h"
#include "util/read-file.h"

int tctl_load(struct tctl_request *req, char *err, size_t errlen)
{
	char name[64], msg[PATH_MAX + 256];
	if (req->help || !req->cmd || !req->cmd->load ||
	    !req->cmd->load(req->params, msg, sizeof(msg)))
		return TCTL_OK;
	tctl_command_name(req->cmd, name, sizeof(name));
	snprintf(err, errlen, "%s: %s", name, msg);
	tctl_request_free(req);
	return TCTL_USAGE;
}

/* What the value @v is, for a message: "an array", "a string"... */
static const char *kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

int tctl_load_subsystem_file(json_t *params, char *msg, size_t len)
{
	const char *path = json_string_value(json_object_get(params, "subsystem"));
	if (!path) /* built from options: nothing to read */
		return 0;
	/* A regular file of at most NVMF_CONFIG_FILE_MAX, as the target reads its config:
	 * /dev/zero or a FIFO would hang or grow memory without bound. */
	size_t flen;
	int frc;
	char why[160];
	char *text =
		nvmf_read_regular_file(path, NVMF_CONFIG_FILE_MAX, &flen, &frc, why, sizeof(why));
	if (!text) {
		snprintf(msg, len, "--from %s: %s", path, why);
		return -1;
	}
	json_error_t je;
	/* Duplicate keys would make "as in the file" ambiguous: refuse them, as the target's
	 * config loader does. */
	json_t *v = json_loadb(text, flen, JSON_REJECT_DUPLICATES, &je);
	explicit_bzero(text, flen); /* it may hold DH-HMAC-CHAP secrets */
	free(text);
	int rc = -1;
	if (!v)
		snprintf(msg, len, "--from %s: %s (line %d, column %d)", path, je.text, je.line,
			 je.column);
	else if (!json_is_object(v))
		snprintf(msg, len,
			 "--from %s: expected one subsystem object ({\"nqn\": ...}), got %s", path,
			 kind(v));
	else if (json_object_get(v, "subsystems") && !json_object_get(v, "nqn"))
		snprintf(msg, len,
			 "--from %s is a whole config file; give one object of its "
			 "\"subsystems\"",
			 path);
	else if (json_object_set(params, "subsystem", v)) /* frees path */
		snprintf(msg, len, "--from: out of memory");
	else
		rc = 0;
	json_decref(v);
	return rc;
}

/* params.@key, a path, made absolute against this process's current directory. */
static int abs_path(json_t *params, const char *key, char *msg, size_t len)
{
	const char *path = json_string_value(json_object_get(params, key));
	if (!path || path[0] == '/')
		return 0;
	/* The builder made sure the last component names a file: the real path of its
	 * directory, then that name. A directory that cannot be resolved (not there) is the
	 * target's to refuse, as for an absolute PATH: it gets the current directory and
	 * PATH as typed, and its error names them. */
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], real[PATH_MAX], abs[PATH_MAX];
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	const char *base = slash ? slash + 1 : path;
	if (!realpath(dir, real)) {
		if (!getcwd(real, sizeof(real))) {
			snprintf(msg, len, "PATH '%s': the current directory: %s", path,
				 strerror(errno));
			return -1;
		}
		base = path;
	}
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", strcmp(real, "/") ? real : "", base) >=
	    sizeof(abs)) {
		snprintf(msg, len, "PATH '%s': %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	if (json_object_set_new(params, key, json_string(abs))) {
		snprintf(msg, len, "PATH: out of memory or not valid UTF-8");
		return -1;
	}
	return 0;
}

int tctl_load_save_path(json_t *params, char *msg, size_t len)
{
	return abs_path(params, "path", msg, len);
}

int tctl_load_key_file_path(json_t *params, char *msg, size_t len)
{
	return abs_path(params, "key_file", msg, len);
}

int tctl_load_dhchap_secrets(json_t *params, char *msg, size_t len)
{
	const char *key = getenv("NVMF_DHCHAP_SECRET"),
		   *ctrl_key = getenv("NVMF_DHCHAP_CTRL_SECRET");
	if (!key || !*key) {
		snprintf(msg, len,
			 "$NVMF_DHCHAP_SECRET is not set: it holds the host's secret "
			 "(nvme gen-dhchap-key)");
		return -1;
	}
	if (json_object_set_new(params, "key", json_string(key)) ||
	    (ctrl_key && *ctrl_key &&
	     json_object_set_new(params, "ctrl_key", json_string(ctrl_key)))) {
		snprintf(msg, len, "the secrets in the environment are not valid UTF-8");
		return -1;
	}
	return 0;
}
