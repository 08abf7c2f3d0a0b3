/* SPDX-License-Identifier: MIT */
/*
 * Reloading the configuration file while the target runs (config_reload, SIGHUP): the
 * difference between what the target serves and what the file says is applied live,
 * and nothing else moves. All or nothing: what can fail (opening a backend, listening,
 * memory) is done first and undone if a later step fails; what cannot fail (removals,
 * disconnects) comes last. A difference that cannot be applied live is refused with a
 * message naming it, before anything changes:
 *   - nvmf_target.* and discovery.nqn (a restart is needed), except discovery_log and
 *     discovery_kato: those, and a port's referrals, are applied live (hosts connected
 *     to discovery get a Discovery Log Page Change event; the KATO is that of discovery
 *     controllers connecting afterwards),
 *   - a subsystem's identity (attr.serial, model, firmware, version, cntlid_*, qid_max),
 *   - how an existing namespace is backed (device.*, nvmf_backend, nvmf_block_size, ...;
 *     its enable and nvmf_size_bytes may change),
 *   - an enabled namespace's resv.enable (as nvmet: a disabled namespace's may change,
 *     and applies from its next enable),
 *   - an existing port's address or parameters.
 * Those are changed by removing the object and adding it anew.
 */
#ifndef NVMF_CONTROL_RELOAD_H
#define NVMF_CONTROL_RELOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include "subsystem/config.h"

struct nvmf_tgt;

/*
 * nvmf_tgt_reload - make @tgt serve what @next (a loaded, valid configuration) says. On
 * the main group. Appends one line per change made to @changes (a JSON array; nothing
 * when there is no difference). Returns 0, or -errno with @err naming the difference
 * or the step that failed; then nothing was changed: -EINVAL a difference that cannot
 * be applied live, -EIO a backend, -EADDRNOTAVAIL a listener, -ENOMEM, -EBUSY a
 * namespace it would close (removed, disabled, or its subsystem removed) is a file
 * namespace whose backing file was deleted (nvmf_tgt_ns_check_discard), unless @force.
 */
int nvmf_tgt_reload(struct nvmf_tgt *tgt, const struct nvmf_config *next, bool force,
		    json_t *changes, char *err, size_t errlen);

#endif
