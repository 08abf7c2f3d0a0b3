/* SPDX-License-Identifier: MIT */
/*
 * The control plane of a running target: the control socket (control/rpc-server.h) with
 * the methods that read and change the target (control/ctl-read.c, control/ctl-change.c,
 * control/ctl-model.c, control/ctl-ana.c, control/ctl-resv.c; docs/operating.md lists them).
 * Every call runs on the main poll group, by message, one
 * at a time: the main group owns the model and the controllers, so a call sees a
 * consistent target and I/O groups learn of a change only through what the model
 * publishes (target/namespace.h), never a lock.
 */
#ifndef NVMF_CONTROL_CONTROL_H
#define NVMF_CONTROL_CONTROL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>
#include "control/rpc-server.h"

struct nvmf_tgt;

/* The config file as the target last loaded or saved it: a write-through never
 * overwrites a file someone edited since (control/ctl-persist.c). */
struct nvmf_ctl_file_stamp {
	bool known;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/* The control plane's context (the methods' ctx). */
struct nvmf_ctl {
	struct nvmf_tgt *tgt;
	char *config_path; /* the file the target was started from (absolute),
					    * where config_save and config_reload go; NULL: none */
	bool persist;      /* write-through (nvmf_target.persist): each live change is
					    * saved to config_path as it is made */
	json_t *unsaved;   /* live changes config_path does not have, one line each
					    * (strings); NULL or empty: none. A reload refuses while
					    * there are any, unless forced */
	struct nvmf_ctl_file_stamp stamp; /* config_path as last loaded or saved */
	struct nvmf_rpc_server srv;
	/* gateway_status's answer: the daemon's gateway (gateway/gateway.h, which the control
	 * plane does not link) sets it after nvmf_ctl_start; called on the main group, a new
	 * reference or NULL without memory. NULL: no nvmf_gateway in the configuration. */
	json_t *(*gateway_status)(void *arg);
	void *gateway_arg;
	pthread_mutex_t lock; /* call hand-over between the socket's thread and
					    * the main group */
	pthread_cond_t cond;
};

/* The methods (NULL-terminated; index i is nvmf_ctl_schema[i], control/schema.h), for the
 * server and for tests that call them directly with an nvmf_ctl as ctx. */
extern const struct nvmf_rpc_method nvmf_ctl_methods[NVMF_CTL_METHOD_COUNT + 1];

/*
 * nvmf_ctl_start - serve the control socket at @path for @tgt (started from the config
 * file @config_path, may be NULL; made absolute here), whose main poll group
 * the caller's thread runs (nvmf_pg_run_once): calls are posted to it and executed
 * there. Returns 0, or -1 with @err (the path taken by a live target, not a socket, too
 * long, or the socket calls' errors).
 */
int nvmf_ctl_start(struct nvmf_ctl *ctl, struct nvmf_tgt *tgt, const char *path,
		   const char *config_path, char *err, size_t errlen);

/* nvmf_ctl_stop - close the socket (its file removed); a call in progress finishes
 * first, the caller's thread running the main group meanwhile. No-op if not started. */
void nvmf_ctl_stop(struct nvmf_ctl *ctl);

/* Method bodies, one file per concern (for the table above). */
void nvmf_ctl_version(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_subsystem_list(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_port_list(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_controller_list(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_namespace_stats(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_poll_group_stats(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_namespace_add(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_namespace_remove(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_namespace_enable(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_namespace_disable(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_namespace_resize(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_namespace_reservation(void *ctx, struct nvmf_rpc_call *call);       /* ctl-resv.c */
void nvmf_ctl_namespace_reservation_clear(void *ctx, struct nvmf_rpc_call *call); /* ctl-resv.c */
void nvmf_ctl_host_add(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_host_remove(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_host_dhchap_set(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_host_tls_key_set(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_host_tls_key_clear(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_host_dhchap_clear(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_allow_any_host(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_controller_disconnect(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_subsystem_add(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_subsystem_remove(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_port_add(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_port_remove(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_port_link(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_port_unlink(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_ana_state_set(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_ana_state_list(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_namespace_ana_group_set(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_config_get(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_config_save(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_config_reload(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_log_level_get(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_log_level_set(void *ctx, struct nvmf_rpc_call *call);
void nvmf_ctl_gateway_status(void *ctx, struct nvmf_rpc_call *call); /* ctl-read.c */

/* nvmf_ctl_reload - load ctl->config_path again and apply the difference
 * (nvmf_tgt_reload; config_reload and SIGHUP). On the main group. Refused while live
 * changes are unsaved (ctl->unsaved), which the reload would undo, unless @force (they are
 * dropped then). 0 with @changes appended (the file is the truth again: nothing unsaved),
 * or -errno with @err: -ENOENT no file, -EBUSY unsaved live changes (each named),
 * -EINVAL the file is invalid or differs where it cannot change live, others from
 * nvmf_tgt_reload; nothing changed then. */
int nvmf_ctl_reload(struct nvmf_ctl *ctl, json_t *changes, bool force, char *err, size_t errlen);

/* nvmf_ctl_save - write the running configuration to @path (absolute) atomically
 * (nvmf_config_save). Saved to ctl->config_path, nothing is unsaved any more. Namespaces
 * whose backing file was deleted while served are saved too, each with a line in
 * @warnings (a JSON array, may be NULL) and the log: the path they name is gone. 0, or
 * -errno with @err naming the file. On the main group. */
int nvmf_ctl_save(struct nvmf_ctl *ctl, const char *path, json_t *warnings, char *err,
		  size_t errlen);

/* nvmf_ctl_changed - after a method that changes the target (@call has a result): with
 * ctl->persist, save to ctl->config_path (not over a file changed since the target last
 * loaded or saved it); without, or when that fails, the change is added to
 * ctl->unsaved, and a failure is logged and added to the result's "warnings". A target
 * started from no file keeps no account. control/ctl-persist.c. */
void nvmf_ctl_changed(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call);

/* nvmf_ctl_warn_unsaved - at a stop: one warning naming the count and each of
 * ctl->unsaved (as a refused reload names them), which the next start from
 * ctl->config_path will not have; nothing when none. control/ctl-persist.c. */
void nvmf_ctl_warn_unsaved(const struct nvmf_ctl *ctl);

/* nvmf_ctl_stamp - remember ctl->config_path as it is now on disk (after a load or a
 * save). */
void nvmf_ctl_stamp(struct nvmf_ctl *ctl);

/* nvmf_ctl_running_config - what @tgt serves now as a configuration file's JSON
 * (nvmetcli's layout plus nvmf_* keys); a new reference, NULL without memory. */
json_t *nvmf_ctl_running_config(const struct nvmf_tgt *tgt);

/* nvmf_ctl_subsys_param - the subsystem params.nqn names (NVM subsystems only; its type
 * and length checked by the method's description), or NULL: absent (the call failed
 * -32602 "missing parameter 'nqn'" when @required), or the call failed -32001
 * "parameter 'nqn': no subsystem X". */
struct nvmf_subsys *nvmf_ctl_subsys_param(struct nvmf_ctl *ctl, struct nvmf_rpc_call *call,
					  bool required);

#endif
