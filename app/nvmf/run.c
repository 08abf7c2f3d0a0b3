/* SPDX-License-Identifier: MIT */
/* `nvmf SUBCOMMAND ...` dispatch and the top-level help (kept out of main.c so the unit
 * tests can run whole command lines). */
#include <string.h>
#include "app/nvmf/cli.h"
#include "util/version.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv, const struct cli_env *env);
	const char *what;
} commands[] = {
	{ "discover", cli_discover, "print the discovery log of a discovery controller" },
	{ "identify", cli_identify, "print Identify Controller or Identify Namespace data" },
	{ "read", cli_read, "read blocks of a namespace to a file or stdout" },
	{ "write", cli_write, "write a file or stdin to blocks of a namespace" },
	{ "compare-write", cli_compare_write,
	  "write blocks only if they hold what a file holds (fused Compare and Write)" },
	{ "perf", cli_perf, "measure IOPS, bandwidth and latency with a load of async I/O" },
	{ "ana-log", cli_ana_log, "print the ANA log (group states) through each path" },
	{ "resv-register", cli_resv_register, "register, unregister or replace a reservation key" },
	{ "resv-acquire", cli_resv_acquire, "acquire a reservation or preempt registrants" },
	{ "resv-release", cli_resv_release, "release the reservation, or clear it and every key" },
	{ "resv-report", cli_resv_report, "print the reservation and its registrants" },
	{ "verify", cli_verify, "have the controller read and check blocks (no data moves)" },
	{ "copy", cli_copy, "copy ranges of blocks to another place in the namespace" },
};

static void help(FILE *f)
{
	fprintf(f,
		"Usage: nvmf SUBCOMMAND [OPTIONS]\n"
		"NVMe over Fabrics (RDMA or TCP) host tool on libnvmf; no kernel NVMe host needed.\n\n"
		"Subcommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].what);
	fprintf(f,
		"\nCommon options: -a/--traddr ADDR (required), -s/--trsvcid PORT (4420),\n"
		"-t/--transport rdma|tcp (rdma), -g/--hdr-digest, -G/--data-digest (tcp),\n"
		"--disable-sqflow (Connects ask to disable SQ flow control, as nvme-cli),\n"
		"--tls with --tls-key-file FILE, --tls-key KEY or $NVMF_TLS_KEY (tcp: TLS 1.3\n"
		"with a PSK; --tls-identity 0|1, --tls-compat for a key nvme-cli <= 2.15 inserted),\n"
		"-n/--nqn SUBNQN, -q/--hostnqn NQN, -I/--hostid UUID, --json, -v/--verbose,\n"
		"-S/--dhchap-secret SECRET, -C/--dhchap-ctrl-secret SECRET (DH-HMAC-CHAP; or\n"
		"$NVMF_DHCHAP_SECRET / $NVMF_DHCHAP_CTRL_SECRET, which other users cannot see).\n"
		"--io-timeout SEC, --ctrl-loss-tmo SEC|-1, --reconnect-delay SEC,\n"
		"--fast-io-fail-tmo SEC (timeouts and automatic reconnect, as nvme-cli's).\n"
		"read, write and perf go over several paths to one subsystem (multipath, with\n"
		"failover) when -a is repeated; -s once for all or once per -a.\n"
		"Run 'nvmf SUBCOMMAND --help' for the options of one subcommand;\n"
		"'nvmf --version' prints the version.\n"
		"Exit status: 0 success, 1 error from the target or the transport, 2 usage error,\n"
		"130 perf stopped by Ctrl-C (its report printed).\n");
}

int cli_run(int argc, char **argv, const struct cli_env *env)
{
	if (argc < 2) {
		help(env->err);
		return CLI_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		help(env->out);
		return CLI_OK;
	}
	if (!strcmp(cmd, "--version")) {
		fprintf(env->out, "nvmf %s\n", NVMF_VERSION);
		return CLI_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1, env);
	fprintf(env->err, "nvmf: unknown subcommand '%s'\nTry 'nvmf --help'.\n", cmd);
	return CLI_USAGE;
}
