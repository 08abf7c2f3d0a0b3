/* SPDX-License-Identifier: MIT */
/* The record of the backing files this target created (see created.h). */
#include "subsystem/created.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/atomic-file.h"

#define RECORD_VERSION 1

void nvmf_created_free(struct nvmf_created *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].path);
	free(c->e);
	free(c->file);
	memset(c, 0, sizeof(*c));
}

/* Appends @path created @at (copied). 0 or -ENOMEM. */
static int push(struct nvmf_created *c, const char *path, const char *at)
{
	struct nvmf_created_entry *e = realloc(c->e, (c->n + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	c->e = e;
	e = &c->e[c->n];
	memset(e, 0, sizeof(*e));
	if (!(e->path = strdup(path)))
		return -ENOMEM;
	snprintf(e->at, sizeof(e->at), "%s", at);
	c->n++;
	return 0;
}

static int load(struct nvmf_created *c, json_t *root, char *err, size_t errlen)
{
	json_t *list = json_object_get(root, "created"), *v;
	json_t *ver = json_object_get(root, "version");
	size_t i;
	if (!json_is_object(root) || !json_is_integer(ver) ||
	    json_integer_value(ver) != RECORD_VERSION || !json_is_array(list)) {
		snprintf(err, errlen,
			 "%s: not a record of created files (version %d, \"created\": [...])",
			 c->file, RECORD_VERSION);
		return -1;
	}
	json_array_foreach(list, i, v) {
		const char *path = json_string_value(json_object_get(v, "path"));
		const char *at = json_string_value(json_object_get(v, "at"));
		if (!path || path[0] != '/' || !at || strlen(at) >= sizeof(c->e[0].at)) {
			snprintf(err, errlen,
				 "%s: created[%zu]: needs \"path\" (absolute) and \"at\" (a time)",
				 c->file, i);
			return -1;
		}
		if (push(c, path, at)) {
			snprintf(err, errlen, "%s: out of memory", c->file);
			return -1;
		}
	}
	return 0;
}

int nvmf_created_open(struct nvmf_created *c, const char *file, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (!(c->file = strdup(file))) {
		snprintf(err, errlen, "%s: out of memory", file);
		return -1;
	}
	struct stat st;
	if (stat(file, &st) < 0 && errno == ENOENT)
		return 0; /* nothing created yet */
	json_error_t je;
	json_t *root = json_load_file(file, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		snprintf(err, errlen, "%s: line %d, column %d: %s", file, je.line, je.column,
			 je.text);
		nvmf_created_free(c);
		return -1;
	}
	int rc = load(c, root, err, errlen);
	json_decref(root);
	if (rc)
		nvmf_created_free(c);
	return rc;
}

const char *nvmf_created_when(const struct nvmf_created *c, const char *path)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (!strcmp(c->e[i].path, path))
			return c->e[i].at;
	return NULL;
}

static int save(const struct nvmf_created *c, char *err, size_t errlen)
{
	json_t *list = json_array();
	for (size_t i = 0; list && i < c->n; i++)
		json_array_append_new(list, json_pack("{s:s, s:s}", "path", c->e[i].path, "at",
						      c->e[i].at));
	json_t *root = json_pack("{s:i, s:o}", "version", RECORD_VERSION, "created", list);
	char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(root);
	if (!text) {
		snprintf(err, errlen, "%s: out of memory", c->file);
		return -ENOMEM;
	}
	struct iovec iov[2] = { { .iov_base = text, .iov_len = strlen(text) },
				{ .iov_base = (void *)(uintptr_t) "\n", .iov_len = 1 } };
	int rc = nvmf_atomic_write(c->file, iov, 2, 0644, err, errlen);
	free(text);
	return rc;
}

int nvmf_created_add(struct nvmf_created *c, const char *path, time_t when, char *err,
		     size_t errlen)
{
	char at[32];
	struct tm tm;
	if (!gmtime_r(&when, &tm) || !strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(at, sizeof(at), "%lld", (long long)when);
	bool found = false;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].path, path)) {
			snprintf(c->e[i].at, sizeof(c->e[i].at), "%s", at);
			found = true;
		}
	if (!found && push(c, path, at)) {
		snprintf(err, errlen, "%s: out of memory", c->file);
		return -ENOMEM;
	}
	return save(c, err, errlen);
}

int nvmf_created_check(const struct nvmf_created *c, const struct nvmf_ns_config *nc, char *err,
		       size_t errlen)
{
	struct stat st;
	const char *at = c && nc->create && nc->path ? nvmf_created_when(c, nc->path) : NULL;
	if (!at || lstat(nc->path, &st) == 0 || errno != ENOENT)
		return 0;
	snprintf(err, errlen,
		 "%s: created or served by this target (nvmf_create) since %s, now missing: "
		 "refusing to create an empty one (restore the file, or mount its file system; "
		 "to start empty, create it yourself or remove its entry from %s)",
		 nc->path, at, c->file);
	return -ENOENT;
}

int nvmf_created_check_config(const struct nvmf_created *c, const struct nvmf_config *cfg,
			      char *err, size_t errlen)
{
	char why[1024];
	for (size_t i = 0; i < cfg->n_subsystems; i++) {
		const struct nvmf_subsys_config *s = &cfg->subsystems[i];
		for (size_t k = 0; k < s->n_ns; k++)
			if (nvmf_created_check(c, &s->ns[k], why, sizeof(why))) {
				snprintf(err, errlen,
					 "subsystems[%zu].namespaces[%zu] (subsystem %s, namespace "
					 "%u): %s",
					 i, k, s->nqn, s->ns[k].nsid, why);
				return -ENOENT;
			}
	}
	return 0;
}
