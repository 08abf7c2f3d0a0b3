// SPDX-License-Identifier: MIT
/* nvmf_config_json_wipe (subsystem/config.h): jansson frees through us and every block is
 * zeroed first. In a file of its own, libc and jansson only: nvmf-targetctl links it
 * (host dhchap puts secrets in its request) and none of the config loader. */
#include <jansson.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "subsystem/config.h"

static void wipe_free(void *p)
{
	if (p)
		explicit_bzero(p, malloc_usable_size(p));
	free(p);
}

void nvmf_config_json_wipe(void)
{
	json_set_alloc_funcs(malloc, wipe_free);
}
