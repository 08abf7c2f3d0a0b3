/* SPDX-License-Identifier: MIT */
/* The kernel's ephemeral port range (see ephemeral.h). */
#include "util/ephemeral.h"

#include <errno.h>
#include <stdio.h>

int nvmf_ephemeral_range(const char *path, long *lo, long *hi)
{
	FILE *f = fopen(path ? path : NVMF_EPHEMERAL_RANGE_PATH, "r");
	if (!f)
		return -errno;
	int n = fscanf(f, "%ld %ld", lo, hi);
	fclose(f);
	return n == 2 && *lo >= 1 && *lo <= *hi && *hi <= 65535 ? 0 : -EINVAL;
}
