/* SPDX-License-Identifier: MIT */
/*
 * `nvmf ana-log`: the Asymmetric Namespace Access log (log page 0Ch, NVMe Base 2.0
 * section 5.16.1.13) of the controller behind each -a, read with nvmf_read_ana_log (so
 * checked), printed in the layout of `nvme ana-log` (one block per path) or as JSON.
 * Each path is its own controller, with its own view of the groups' states: one -a per
 * path shows them side by side.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include "app/nvmf/cli.h"

static const char usage[] =
	"Usage: nvmf ana-log -a ADDR [-a ADDR ...] -n NQN [-s PORT ...] [--groups-only] [--json]\n"
	"Print the Asymmetric Namespace Access log of the controller reached through each\n"
	"address: the change count, and per ANA group its ID, state (optimized,\n"
	"non-optimized, inaccessible, persistent-loss, change), change count and namespaces.\n"
	"  -a ADDR       a path; repeat for several (each is read and printed in turn)\n"
	"  -s PORT       the port of every path, or one -s per -a in the same order\n"
	"  --groups-only read the groups without their namespaces (RGO)\n"
	"  --json        print the result as JSON\n"
	"  -n/--nqn, -q/--hostnqn, -I/--hostid, -S/--dhchap-secret, -C/--dhchap-ctrl-secret,\n"
	"  -t/--transport, -g/--hdr-digest, -G/--data-digest, --tls, --tls-key-file,\n"
	"  --tls-key, --tls-identity, --tls-compat, -v/--verbose as for identify\n"
	"Exit status 1 when a path cannot be read (the others are printed).\n";

static void print_text(FILE *f, const char *where, uint16_t cntlid, const struct nvmf_ana_log *log)
{
	fprintf(f, "Asymmetric Namespace Access Log for NVMe device: %s (cntlid %u)\n", where,
		cntlid);
	fprintf(f, "ANA LOG HEADER :-\n");
	fprintf(f, "chgcnt\t:\t%" PRIu64 "\n", log->chgcnt);
	fprintf(f, "ngrps\t:\t%u\n", log->nr_groups);
	fprintf(f, "ANA Log Desc :-\n");
	for (unsigned i = 0; i < log->nr_groups; i++) {
		const struct nvmf_ana_group *g = &log->groups[i];
		fprintf(f, "grpid\t:\t%u\n", g->grpid);
		fprintf(f, "nnsids\t:\t%u\n", g->nr_nsids);
		fprintf(f, "chgcnt\t:\t%" PRIu64 "\n", g->chgcnt);
		fprintf(f, "state\t:\t%s\n", nvmf_ana_state_str(g->state));
		for (uint32_t k = 0; k < g->nr_nsids; k++)
			fprintf(f, "\tnsid\t:\t%u\n", g->nsids[k]);
		fprintf(f, "\n");
	}
}

static json_t *log_json(const char *traddr, const char *trsvcid, uint16_t cntlid,
			const struct nvmf_ana_log *log)
{
	json_t *j = json_object(), *groups = json_array();
	json_object_set_new(j, "traddr", json_string(traddr));
	json_object_set_new(j, "trsvcid", json_string(trsvcid));
	json_object_set_new(j, "cntlid", json_integer(cntlid));
	json_object_set_new(j, "chgcnt", cli_json_uint(log->chgcnt));
	json_object_set_new(j, "ngrps", json_integer(log->nr_groups));
	for (unsigned i = 0; i < log->nr_groups; i++) {
		const struct nvmf_ana_group *g = &log->groups[i];
		json_t *d = json_object(), *ids = json_array();
		json_object_set_new(d, "grpid", cli_json_uint(g->grpid));
		json_object_set_new(d, "nnsids", cli_json_uint(g->nr_nsids));
		json_object_set_new(d, "chgcnt", cli_json_uint(g->chgcnt));
		json_object_set_new(d, "state", json_string(nvmf_ana_state_str(g->state)));
		for (uint32_t k = 0; k < g->nr_nsids; k++)
			json_array_append_new(ids, cli_json_uint(g->nsids[k]));
		json_object_set_new(d, "nsids", ids);
		json_array_append_new(groups, d);
	}
	json_object_set_new(j, "groups", groups);
	return j;
}

int cli_ana_log(int argc, char **argv, const struct cli_env *env)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "groups-only", no_argument, NULL, OPT_GROUPS_ONLY },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_common c;
	bool groups_only = false;
	int key, rc;
	memset(&c, 0, sizeof(c));
	c.multipath_ok = true;
	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		const char *name = cli_optname(argv, optind);
		rc = cli_common_opt(&c, key, optarg, "ana-log", name, env->err);
		if (rc == 1 && key == OPT_GROUPS_ONLY)
			groups_only = true;
		else if (rc == 1)
			return cli_usage_error(env->err, "ana-log", "unknown option '%s'", name);
		else if (rc)
			return rc;
	}
	if (c.help) {
		fputs(usage, env->out);
		return CLI_OK;
	}
	if (optind < argc)
		return cli_usage_error(env->err, "ana-log", "unexpected argument '%s'",
				       argv[optind]);
	if ((rc = cli_check_common(&c, CLI_NQN_NVM, "ana-log", env->err)))
		return rc;
	if (c.refresh_ms || c.path_timeout_ms)
		return cli_usage_error(env->err, "ana-log",
				       "--refresh and --path-timeout are for "
				       "read, write and perf");

	json_t *paths = json_array();
	int status = CLI_OK;
	for (unsigned i = 0; i < c.n_traddrs; i++) {
		/* One path at a time: each a plain connection, as identify makes. */
		struct cli_common one = c;
		one.traddr = c.traddrs[i];
		one.trsvcid = cli_path_trsvcid(&c, i);
		one.n_traddrs = 1;
		struct nvmf_ctrl *ctrl;
		if ((rc = cli_connect(&one, env, "ana-log", 1, 0, &ctrl))) {
			if (rc == CLI_USAGE) {
				json_decref(paths);
				return rc;
			}
			status = CLI_ERR;
			continue;
		}
		struct nvmf_ana_log *log;
		int lrc = nvmf_read_ana_log(ctrl, groups_only, &log);
		if (lrc) {
			char what[320];
			snprintf(what, sizeof(what), "ana-log of %s:%s (%s)", one.traddr,
				 one.trsvcid, c.subnqn);
			status = cli_lib_error(env->err, what, lrc, nvmf_ctrl_errmsg(ctrl));
		} else if (c.json) {
			json_array_append_new(paths, log_json(one.traddr, one.trsvcid,
							      nvmf_ctrl_cntlid(ctrl), log));
		} else {
			char where[320];
			snprintf(where, sizeof(where), "%s:%s", one.traddr, one.trsvcid);
			print_text(env->out, where, nvmf_ctrl_cntlid(ctrl), log);
		}
		if (!lrc)
			nvmf_ana_log_free(log);
		nvmf_disconnect(ctrl);
	}
	if (c.json) {
		json_t *root = json_object();
		json_object_set_new(root, "paths", paths);
		if (cli_json_print(env->out, root))
			status = CLI_ERR;
	} else {
		json_decref(paths);
	}
	return status;
}
