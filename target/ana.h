/* SPDX-License-Identifier: MIT */
/*
 * Asymmetric Namespace Access (NVMe Base 2.0 section 8.1), as the kernel target does it.
 * Every namespace is in one ANA group (1..NVMF_MAX_ANAGRPID, nvmetcli's ana_grpid); every
 * port gives each group a state (optimized, non-optimized, inaccessible, persistent loss,
 * change; group 1 optimized and the others inaccessible until the port defines them).
 * What a host sees through a controller is the state on the port it connected through:
 *   - Identify: CMIC bit 3, ANATT, ANACAP, ANAGRPMAX, NANAGRPID, MNAN; each namespace's
 *     ANAGRPID.
 *   - the ANA log (LID 0Ch, 5.16.1.13): every group that exists (group 1, the groups a
 *     port defines, the groups of namespaces) with its state on that port and, unless
 *     RGO, the active namespaces of the controller's subsystem in it.
 *   - I/O to a namespace whose group is inaccessible, lost or changing on the path fails
 *     with the ANA path status, without DNR, so the host retries on another path.
 *   - a change (a state, a namespace's group, a namespace joining or leaving a group)
 *     moves the change counts on and sends an ANA Change notice to the controllers
 *     concerned (target/aen.c), masked until log 0Ch is read with RAE clear.
 *
 * Threads: the states and the namespaces' groups are written by the main group (control
 * socket, reload) and read by I/O groups with atomic loads, one byte per group and
 * port; everything else here runs on the main group.
 */
#ifndef NVMF_TARGET_ANA_H
#define NVMF_TARGET_ANA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "target/core.h"

/* ANA Transition Time (Identify ANATT): seconds a group may stay in the change state
 * before the host gives up on it; 10 as nvmet (the Linux host resets the controller
 * after twice that). */
#define NVMF_ANATT 10

/* nvmf_ana_state - the ANA state (NVME_ANA_STATE_*) of @ns through @port: its group's
 * state there. Any thread. */
static inline uint8_t nvmf_ana_state(const struct nvmf_port *port, const struct nvmf_ns *ns)
{
	uint32_t grpid = __atomic_load_n(&ns->anagrpid, __ATOMIC_RELAXED);
	return __atomic_load_n(&port->ana_state[grpid], __ATOMIC_RELAXED);
}

/*
 * nvmf_ana_io_status - what ANA says of an I/O command to @ns that came through @port:
 * 0 on an optimized or non-optimized path; otherwise Asymmetric Access Inaccessible
 * (SCT 3h, SC 02h), Persistent Loss (01h) or Transition (03h, the change state), NVMe
 * Base 2.0 8.1.3 and figure 103 (nvmet_check_ana_state). Path statuses are answered
 * without DNR (target/core.c). Any thread.
 */
static inline nvme_status_t nvmf_ana_io_status(const struct nvmf_port *port,
					       const struct nvmf_ns *ns)
{
	switch (nvmf_ana_state(port, ns)) {
	case NVME_ANA_STATE_OPTIMIZED:
	case NVME_ANA_STATE_NONOPTIMIZED:
		return 0;
	case NVME_ANA_STATE_PERSISTENT_LOSS:
		return nvme_status(NVME_SCT_PATH, NVME_SC_ANA_PERSISTENT_LOSS);
	case NVME_ANA_STATE_CHANGE:
		return nvme_status(NVME_SCT_PATH, NVME_SC_ANA_TRANSITION);
	default:
		return nvme_status(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);
	}
}

/* ---- what controllers report (target/ana.c; main group) ---- */

/* nvmf_ana_mnan - the MNAN a controller reports with MDTS @mdts (log2 of 4 KiB units; 0
 * no limit): NVMF_MAX_NSID, or less where the largest ANA log the Linux host sizes from
 * NANAGRPID and MNAN (16 + NANAGRPID x 32 + MNAN x 4 bytes, nvme_mpath_init_identify)
 * would not fit in one transfer (MDTS 1, 8 KiB: 1020). */
uint32_t nvmf_ana_mnan(uint32_t mdts);
/* nvmf_ana_identify_ctrl - CMIC bit 3 (ANA reporting), ANATT, ANACAP (the five states;
 * bit 6 clear: a namespace's group may change while attached; bit 7 clear: no Namespace
 * Management), ANAGRPMAX = NANAGRPID = NVMF_MAX_ANAGRPID, MNAN (figure 275). */
void nvmf_ana_identify_ctrl(const struct nvmf_tgt_ctrl *ctrl, struct nvme_id_ctrl *id);
/* nvmf_ana_identify_ns - ANAGRPID of @ns (bytes 92-95); NUSE 0 when inaccessible or lost
 * through @port (nvmet). */
void nvmf_ana_identify_ns(const struct nvmf_port *port, const struct nvmf_ns *ns,
			  struct nvme_id_ns *id);
/* nvmf_ana_log - Get Log Page LID 0Ch (figures 261-262): header (change count, number of
 * descriptors), then per existing group, ascending: group ID, NSID count, the group's
 * change count, its state on the request's port, and (LSP bit 0 RGO clear) the active
 * NSIDs of the controller's subsystem in it, ascending. Its length is what a host sizes
 * from Identify (16 + NANAGRPID x 32 + MNAN x 4 bytes), zeroes past the descriptors: an
 * offset beyond that is Invalid Field. Read with RAE clear, it re-arms the ANA Change
 * notice. */
void nvmf_ana_log(struct nvmf_req *req);

/* ---- the model (target/ana.c; main group) ---- */

/* nvmf_ana_port_init - @port's states from its config (nvmf_port_config_ana_state); a
 * port defining groups besides 1 moves the log's change count on (groups may appear). */
void nvmf_ana_port_init(struct nvmf_tgt *tgt, struct nvmf_port *port);
/* nvmf_tgt_ana_groups - which groups exist: @exists[g] for g 1..NVMF_MAX_ANAGRPID (group
 * 1, those a live port defines, those namespaces are in; [0] false). */
void nvmf_tgt_ana_groups(const struct nvmf_tgt *tgt, bool exists[NVMF_MAX_ANAGRPID + 1]);
/* nvmf_tgt_ana_group_defined - group 1, or a live port other than @except (NULL: none)
 * defines @grpid. */
bool nvmf_tgt_ana_group_defined(const struct nvmf_tgt *tgt, uint32_t grpid,
				const struct nvmf_port *except);
/* nvmf_tgt_ana_undefined - the index of the first of @n namespace configs @ncs whose
 * group no live port defines, or -1: namespaces added live keep the loader's rule. */
long nvmf_tgt_ana_undefined(const struct nvmf_tgt *tgt, const struct nvmf_ns_config *ncs, size_t n);

/*
 * nvmf_tgt_ana_state_set - group @grpid's state on @port becomes @state (NVME_ANA_STATE_*),
 * the port defining the group from now on (its running config too). The I/O groups see
 * it at their next command; the change counts move on and the controllers reached
 * through @port hear of it. Returns 1 (changed), 0 (it already was), or with @err
 * -EINVAL (@grpid out of 1..NVMF_MAX_ANAGRPID, @state not a state) or -ENOMEM.
 */
int nvmf_tgt_ana_state_set(struct nvmf_tgt *tgt, struct nvmf_port *port, uint32_t grpid,
			   uint8_t state, char *err, size_t errlen);
/*
 * nvmf_tgt_ns_ana_group_set - namespace @nsid of @s (enabled or not) moves to group
 * @grpid (*@prev: the one before): in its config and, enabled, for the I/O groups at
 * their next command; the counts move on and the controllers of @s hear of it. Returns
 * 1 (moved), 0 (it was there), or with @err -ENOENT (no such namespace), -EPERM (a
 * passthru subsystem: its namespaces are the drive's) or -EINVAL
 * (@grpid out of range, or defined on no port).
 */
int nvmf_tgt_ns_ana_group_set(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t nsid,
			      uint32_t grpid, uint32_t *prev, char *err, size_t errlen);
/* nvmf_tgt_ana_ns_changed - a namespace of @s joined or left group @grpid (added,
 * removed, enabled, disabled: target/namespace.c): the counts move on and the
 * controllers of @s hear of it. */
void nvmf_tgt_ana_ns_changed(struct nvmf_tgt *tgt, struct nvmf_subsys *s, uint32_t grpid);
/* nvmf_tgt_ana_check_port_remove - @port may go unless it is the only port defining the
 * group of some namespace (which would then be inaccessible everywhere, and the saved
 * configuration would not load): -EBUSY with @err naming the namespace and group. */
int nvmf_tgt_ana_check_port_remove(const struct nvmf_tgt *tgt, const struct nvmf_port *port,
				   char *err, size_t errlen);
/* nvmf_tgt_ana_port_removed - @port stopped serving: the groups it alone defined are gone
 * from the log (its change count moves on). */
void nvmf_tgt_ana_port_removed(struct nvmf_tgt *tgt, const struct nvmf_port *port);

/* ---- reload (target/ana.c; main group) ---- */

/* What a reload changes in ANA, prepared before anything changes (it needs memory) and
 * applied after the reload's other steps (it cannot fail). */
struct nvmf_ana_reload;
/* nvmf_ana_reload_prepare - the differences between what @tgt serves and @next (a
 * loaded, valid configuration): the ana_groups of ports both have, the groups of
 * namespaces both have. 0 with *@out (NULL: nothing to do), or -ENOMEM. */
int nvmf_ana_reload_prepare(const struct nvmf_tgt *tgt, const struct nvmf_config *next,
			    struct nvmf_ana_reload **out);
/* nvmf_ana_reload_apply - make them so, as nvmf_tgt_ana_state_set and
 * nvmf_tgt_ns_ana_group_set would, with one line per change appended to @changes. Frees
 * @r. */
void nvmf_ana_reload_apply(struct nvmf_tgt *tgt, struct nvmf_ana_reload *r, json_t *changes);
/* nvmf_ana_reload_free - drop @r unapplied (the reload failed). NULL: nothing. */
void nvmf_ana_reload_free(struct nvmf_ana_reload *r);

#endif
