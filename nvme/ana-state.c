// SPDX-License-Identifier: MIT
/* The ANA states by name (see ana-state.h). */
#include "nvme/ana-state.h"

#include <stddef.h>
#include <nvme/types.h>
#include "util/choice.h"

const char *const nvme_ana_state_names[NVME_ANA_STATE_COUNT + 1] = {
	"optimized", "non-optimized", "inaccessible", "persistent-loss", "change", NULL,
};

const uint8_t nvme_ana_state_values[NVME_ANA_STATE_COUNT] = {
	NVME_ANA_STATE_OPTIMIZED,       NVME_ANA_STATE_NONOPTIMIZED, NVME_ANA_STATE_INACCESSIBLE,
	NVME_ANA_STATE_PERSISTENT_LOSS, NVME_ANA_STATE_CHANGE,
};

const char *nvme_ana_state_name(uint8_t state)
{
	for (size_t i = 0; i < NVME_ANA_STATE_COUNT; i++)
		if (nvme_ana_state_values[i] == state)
			return nvme_ana_state_names[i];
	return "?";
}

bool nvme_ana_state_parse(const char *name, uint8_t *state)
{
	int i = nvmf_choice_index(nvme_ana_state_names, name);
	if (i >= 0)
		*state = nvme_ana_state_values[i];
	return i >= 0;
}
