/* SPDX-License-Identifier: MIT */
/*
 * The five Asymmetric Namespace Access states (NVMe Base 2.0 section 8.1.3; libnvme's
 * NVME_ANA_STATE_*, the byte of an ANA log descriptor) by the names nvmetcli and the
 * kernel's configfs ana_state attribute give them. One table, read by the config
 * (ports[].ana_groups[].ana.state), the target's control method ana_state_set and its
 * answers, nvmf-targetctl (ana set STATE, through control/schema.c) and libnvmf
 * (nvmf_ana_state_str).
 */
#ifndef NVMF_NVME_ANA_STATE_H
#define NVMF_NVME_ANA_STATE_H

#include <stdbool.h>
#include <stdint.h>

#define NVME_ANA_STATE_COUNT 5

/* "optimized", "non-optimized", "inaccessible", "persistent-loss", "change", ended by NULL
 * (a control method's choice list, control/schema.c); nvme_ana_state_values[i] is the
 * state nvme_ana_state_names[i] names. */
extern const char *const nvme_ana_state_names[NVME_ANA_STATE_COUNT + 1];
extern const uint8_t nvme_ana_state_values[NVME_ANA_STATE_COUNT];

/* nvme_ana_state_name - the name of ANA state @state; "?" for any other value. */
const char *nvme_ana_state_name(uint8_t state);
/* nvme_ana_state_parse - the state @name (exactly, lower case) gives into *@state; false
 * for any other text (*@state untouched). */
bool nvme_ana_state_parse(const char *name, uint8_t *state);

#endif
