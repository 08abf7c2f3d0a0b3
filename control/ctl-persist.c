/* SPDX-License-Identifier: MIT */
/*
 * Live changes and the config file (see control.h, docs/operating.md "Reload and save"):
 * the file is reloaded as the whole truth, so a live change it does not have would be
 * undone by the next reload or restart. With nvmf_target.persist (the default) every
 * change made through the socket is written through to the file at once; without it,
 * or when the write fails, the change is remembered as unsaved and a reload refuses
 * (naming each) until it is saved or the reload is forced. On the main group.
 */
#define NVMF_LOG_COMPONENT NVMF_LOGC_CONTROL /* target/log.h */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "control/control.h"
#include "control/reload.h"
#include "target/core.h"
#include "target/log.h"

void nvmf_ctl_stamp(struct nvmf_ctl *ctl)
{
	struct stat st;
	memset(&ctl->stamp, 0, sizeof(ctl->stamp));
	if (!ctl->config_path || stat(ctl->config_path, &st) < 0)
		return;
	ctl->stamp.known = true;
	ctl->stamp.dev = st.st_dev;
	ctl->stamp.ino = st.st_ino;
	ctl->stamp.size = st.st_size;
	ctl->stamp.mtime = st.st_mtim;
}

/* Whether the file is as the target last loaded or saved it (or gone, or never seen:
 * nothing of anyone's to overwrite). */
static bool file_unchanged(const struct nvmf_ctl *ctl)
{
	struct stat st;
	if (!ctl->stamp.known || stat(ctl->config_path, &st) < 0)
		return true;
	return st.st_dev == ctl->stamp.dev && st.st_ino == ctl->stamp.ino &&
	       st.st_size == ctl->stamp.size && st.st_mtim.tv_sec == ctl->stamp.mtime.tv_sec &&
	       st.st_mtim.tv_nsec == ctl->stamp.mtime.tv_nsec;
}

/* " nqn X" etc.: one named thing of the call, appended to @out at *@n. */
static void add_part(char *out, size_t len, int *n, const char *fmt, const char *name,
		     const char *sval, long long ival)
{
	if (*n < 0 || (size_t)*n >= len)
		return;
	const char *sep = strchr(out, '(') ? ", " : " (";
	int w = sval ? snprintf(out + *n, len - (size_t)*n, "%s%s %s", sep, name, sval) :
		       snprintf(out + *n, len - (size_t)*n, fmt, sep, name, ival);
	*n = w < 0 ? -1 : *n + w;
}

/* What @call changed, in one line that names it without its secrets: the method and the
 * objects it names, "namespace_add (nqn nqn.x, nsid 2)". */
static void describe(const struct nvmf_rpc_call *call, char *out, size_t len)
{
	int n = snprintf(out, len, "%s", call->method);
	json_t *p = call->params, *r = call->result;
	json_t *nqn = json_object_get(p, "nqn");
	if (!nqn)
		nqn = json_object_get(json_object_get(p, "subsystem"), "nqn");
	if (json_is_string(nqn))
		add_part(out, len, &n, NULL, "nqn", json_string_value(nqn), 0);
	json_t *nsid = json_object_get(p, "nsid");
	json_t *nsids = json_object_get(r, "nsids");
	if (json_is_integer(nsid))
		add_part(out, len, &n, "%s%s %lld", "nsid", NULL, json_integer_value(nsid));
	for (size_t i = 0; i < json_array_size(nsids); i++)
		add_part(out, len, &n, "%s%s %lld", "nsid", NULL,
			 json_integer_value(json_array_get(nsids, i)));
	json_t *portid = json_object_get(p, "portid");
	if (!portid)
		portid = json_object_get(json_object_get(p, "port"), "portid");
	if (json_is_integer(portid))
		add_part(out, len, &n, "%s%s %lld", "port", NULL, json_integer_value(portid));
	json_t *host = json_object_get(p, "host");
	if (json_is_string(host))
		add_part(out, len, &n, NULL, "host", json_string_value(host), 0);
	json_t *grpid = json_object_get(p, "grpid");
	if (json_is_integer(grpid))
		add_part(out, len, &n, "%s%s %lld", "ANA group", NULL, json_integer_value(grpid));
	if (n > 0 && (size_t)n + 1 < len && strchr(out, '('))
		strcat(out, ")");
}

/* @line as one of the call's result "warnings" (the result an object). */
static void warn_result(struct nvmf_rpc_call *call, const char *line)
{
	if (!json_is_object(call->result))
		return;
	json_t *w = json_object_get(call->result, "warnings");
	if (!w) {
		w = json_array();
		json_object_set_new(call->result, "warnings", w);
	}
	json_array_append_new(w, json_string(line));
}

void nvmf_ctl_changed(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call)
{
	if (call->code || !ctl->config_path ||
	    json_is_false(json_object_get(call->result, "changed")))
		return;
	char line[512], err[768];
	describe(call, line, sizeof(line));
	if (ctl->persist) {
		json_t *warnings = json_array();
		int rc;
		if (!file_unchanged(ctl)) {
			snprintf(
				err, sizeof(err),
				"%s changed on disk since the target loaded or saved it; not "
				"overwritten (config save writes the running configuration over "
				"it, config reload --force applies the file and drops live changes)",
				ctl->config_path);
			rc = -EBUSY;
		} else {
			rc = nvmf_ctl_save(ctl, ctl->config_path, warnings, err, sizeof(err));
		}
		size_t i;
		json_t *w;
		json_array_foreach(warnings, i, w)
			warn_result(call, json_string_value(w));
		json_decref(warnings);
		if (!rc)
			return;
		char msg[1400];
		snprintf(msg, sizeof(msg),
			 "%s: not saved: %s; the change is live, but a reload or restart would "
			 "undo it",
			 line, err);
		nvmf_log(ctl->tgt, NVMF_LOG_WARNING, "%s", msg);
		warn_result(call, msg);
	}
	if (!ctl->unsaved)
		ctl->unsaved = json_array();
	json_array_append_new(ctl->unsaved, json_string(line));
}

/* "@lead N live change(s) not saved to FILE @what: a; b @tail" into @out. */
static void unsaved_list(const struct nvmf_ctl *ctl, const char *lead, const char *what,
			 const char *tail, char *out, size_t len)
{
	size_t k = json_array_size(ctl->unsaved);
	int n = snprintf(out, len, "%s%zu live change%s not saved to %s %s: ", lead, k,
			 k == 1 ? "" : "s", ctl->config_path, what);
	for (size_t i = 0; i < k && n > 0 && (size_t)n < len; i++) {
		int w = snprintf(out + n, len - (size_t)n, "%s%s", i ? "; " : "",
				 json_string_value(json_array_get(ctl->unsaved, i)));
		n = w < 0 ? -1 : n + w;
	}
	if (n > 0 && (size_t)n < len)
		snprintf(out + n, len - (size_t)n, " %s", tail);
}

/* "N live change(s) ...: a; b" into @out: what a reload would undo. */
static void unsaved_text(const struct nvmf_ctl *ctl, char *out, size_t len)
{
	unsaved_list(ctl, "", "would be undone",
		     "(config save writes them to the file; a forced reload drops them)", out, len);
}

void nvmf_ctl_warn_unsaved(const struct nvmf_ctl *ctl)
{
	if (!json_array_size(ctl->unsaved))
		return;
	char line[2048];
	unsaved_list(ctl, "stopping with ", "(the next start loads the file without them)",
		     "(config save before a stop keeps them)", line, sizeof(line));
	nvmf_log(ctl->tgt, NVMF_LOG_WARNING, "%s", line);
}

int nvmf_ctl_reload(struct nvmf_ctl *ctl, json_t *changes, bool force, char *err, size_t errlen)
{
	if (!ctl->config_path) {
		snprintf(err, errlen, "the target was not started from a file");
		return -ENOENT;
	}
	if (json_array_size(ctl->unsaved) && !force) {
		unsaved_text(ctl, err, errlen);
		return -EBUSY;
	}
	struct nvmf_config next;
	char why[1024];
	if (nvmf_config_load(ctl->config_path, &next, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", ctl->config_path, why);
		return -EINVAL;
	}
	for (size_t i = 0; i < next.n_notes; i++)
		nvmf_log_at(ctl->tgt, NVMF_LOGC_CONTROL, NVMF_LOG_WARNING, "%s: %s",
			    ctl->config_path, next.notes[i]);
	int rc = nvmf_tgt_reload(ctl->tgt, &next, force, changes, err, errlen);
	nvmf_config_free(&next);
	if (!rc) {
		if (json_array_size(ctl->unsaved))
			nvmf_log(ctl->tgt, NVMF_LOG_WARNING,
				 "reload forced: %zu live change(s) not in %s dropped",
				 json_array_size(ctl->unsaved), ctl->config_path);
		json_array_clear(ctl->unsaved);
		nvmf_ctl_stamp(ctl);
	}
	return rc;
}
