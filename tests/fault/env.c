/* SPDX-License-Identifier: MIT */
/*
 * build/tests/nvmf-target-fault only: the daemon (app/nvmf-target/main.c) with the fault
 * injection of tests/fault, its rules read from the environment variable NVMF_FAULT
 * (fault.h gives the text) before main runs. A spec that does not parse stops the
 * program with exit status 2. The production build/nvmf-target has none of this and
 * ignores the variable.
 */
#include <stdio.h>
#include <stdlib.h>
#include "tests/fault/fault.h"

__attribute__((constructor)) static void fault_env_load(void)
{
	const char *spec = getenv("NVMF_FAULT");
	if (!spec || !*spec) {
		fprintf(stderr, "nvmf-target-fault: NVMF_FAULT is not set: no faults injected\n");
		return;
	}
	char err[256];
	if (nvmf_fault_load(spec, err, sizeof(err))) {
		fprintf(stderr, "nvmf-target-fault: NVMF_FAULT: %s\n", err);
		exit(2);
	}
	fprintf(stderr, "nvmf-target-fault: fault injection: %s\n", spec);
}
