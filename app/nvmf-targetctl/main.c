/* SPDX-License-Identifier: MIT */
/* nvmf-targetctl: the control CLI of nvmf-target (see docs/targetctl.md). */
#include <signal.h>
#include "subsystem/config.h"
#include "app/nvmf-targetctl/targetctl.h"

int main(int argc, char **argv)
{
	/* A reader that goes away (nvmf-targetctl ... | head) gives EPIPE, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	nvmf_config_json_wipe(); /* host dhchap puts secrets in the request */
	struct tctl_env env = { .out = stdout, .err = stderr };
	int rc = tctl_run(argc, argv, &env);
	if (fflush(stdout) && rc == TCTL_OK)
		rc = TCTL_ERR;
	return rc;
}
