/* SPDX-License-Identifier: MIT */
/* nvmf: the command-line NVMe-oF host tool (RDMA, TCP) (see docs/nvmf-tool.md). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "app/nvmf/cli.h"

/* Set by SIGINT during `nvmf perf` (cli_env.interrupted). The one variable outside a
 * context struct: a signal handler can reach nothing else, and sig_atomic_t is the only
 * type it may write (C11 7.14.1.1). */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

int main(int argc, char **argv)
{
	/* A reader that goes away (nvmf read ... | head) gives EPIPE, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	struct cli_env env = { .in = stdin,
			       .out = stdout,
			       .err = stderr,
			       .dhchap_secret = getenv("NVMF_DHCHAP_SECRET"),
			       .dhchap_ctrl_secret = getenv("NVMF_DHCHAP_CTRL_SECRET"),
			       .tls_key = getenv("NVMF_TLS_KEY") };
	/* perf reports what it measured when Ctrl-C stops it (as fio and spdk_nvme_perf);
	 * every other subcommand keeps SIGINT's default (it ends the process at once). No
	 * SA_RESTART: the handler must wake perf's once-a-second sleep. */
	if (argc > 1 && !strcmp(argv[1], "perf")) {
		struct sigaction sa = { .sa_handler = on_sigint };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		env.interrupted = &interrupted;
	}
	int rc = cli_run(argc, argv, &env);
	if (fflush(stdout) && rc == CLI_OK)
		rc = CLI_ERR;
	return rc;
}
