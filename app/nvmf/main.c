/* SPDX-License-Identifier: MIT */
/* nvmf: the command-line NVMe-oF host tool (RDMA, TCP) (see docs/nvmf-tool.md). */
#include <signal.h>
#include <stdlib.h>
#include "app/nvmf/cli.h"

int main(int argc, char **argv)
{
	/* A reader that goes away (nvmf read ... | head) gives EPIPE, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	struct cli_env env = { .in = stdin,
			       .out = stdout,
			       .err = stderr,
			       .dhchap_secret = getenv("NVMF_DHCHAP_SECRET"),
			       .dhchap_ctrl_secret = getenv("NVMF_DHCHAP_CTRL_SECRET") };
	int rc = cli_run(argc, argv, &env);
	if (fflush(stdout) && rc == CLI_OK)
		rc = CLI_ERR;
	return rc;
}
