/* SPDX-License-Identifier: MIT */
/*
 * `nvmf verify` and `nvmf copy`: the NVM commands Verify (the controller reads and checks
 * blocks, no data moves) and Copy (source ranges of a namespace concatenated at a
 * destination block, descriptor format 0h), NVM Command Set 1.0 sections 3.2.5 and 3.2.2,
 * through libnvmf's blocking nvmf_verify / nvmf_copy on one I/O queue. Counts on the
 * command line are 1's based as --nlb elsewhere; the library sends them 0's based.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "app/nvmf/cli.h"

static const char verify_usage[] =
	"Usage: nvmf verify -a ADDR -n NQN [--ns NSID] --slba LBA --nlb COUNT\n"
	"Verify: the controller reads COUNT blocks (1's based, up to 65536 and its VSL) from\n"
	"block LBA of namespace NSID (default 1) and checks them; no data moves.\n"
	"Common options as for identify.\n";

static const char copy_usage[] =
	"Usage: nvmf copy -a ADDR -n NQN [--ns NSID] --sdlba LBA --range SLBA:NLB\n"
	"                 [--range SLBA:NLB ...]\n"
	"Copy: the controller copies each source range (NLB blocks from block SLBA; NLB 1's\n"
	"based, up to 65536), in the order given, to consecutive blocks from LBA of namespace\n"
	"NSID (default 1). Up to 256 ranges; the namespace's MSRC, MSSRL and MCL (identify\n"
	"--ns) bound them.\n"
	"Common options as for identify.\n";

/* "SLBA:NLB" of --range into @r (nlb 0's based as on the wire). Returns 0, or CLI_USAGE
 * after a message. */
static int parse_range(const char *s, struct nvme_copy_range *r, FILE *err)
{
	char slba[32], msg[128];
	const char *colon = strchr(s, ':');
	uint64_t first, nlb;
	if (!colon || (size_t)(colon - s) >= sizeof(slba))
		return cli_usage_error(err, "copy", "--range '%s': SLBA:NLB expected", s);
	memcpy(slba, s, (size_t)(colon - s));
	slba[colon - s] = '\0';
	if (cli_parse_u64(slba, 0, UINT64_MAX, &first, msg, sizeof(msg)))
		return cli_usage_error(err, "copy", "--range '%s': SLBA %s", s, msg);
	if (cli_parse_u64(colon + 1, 1, 0x10000, &nlb, msg, sizeof(msg)))
		return cli_usage_error(err, "copy", "--range '%s': NLB %s", s, msg);
	memset(r, 0, sizeof(*r));
	r->slba = htole64(first);
	r->nlb = htole16((uint16_t)(nlb - 1));
	return 0;
}

int cli_copy_parse(int argc, char **argv, bool copy, struct cli_copy_opts *o, FILE *err)
{
	static const struct option verify_opts[] = {
		CLI_COMMON_LONGOPTS,
		{ "ns", required_argument, NULL, OPT_NS },
		{ "namespace-id", required_argument, NULL, OPT_NS },
		{ "slba", required_argument, NULL, OPT_SLBA },
		{ "nlb", required_argument, NULL, OPT_NLB },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option copy_opts[] = {
		CLI_COMMON_LONGOPTS,
		{ "ns", required_argument, NULL, OPT_NS },
		{ "namespace-id", required_argument, NULL, OPT_NS },
		{ "sdlba", required_argument, NULL, OPT_SDLBA },
		{ "range", required_argument, NULL, OPT_RANGE },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = copy ? "copy" : "verify";
	char msg[160];
	uint64_t v;
	int key, rc;

	memset(o, 0, sizeof(*o));
	o->nsid = 1;
	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, copy ? copy_opts : verify_opts,
				  NULL)) != -1) {
		const char *name = cli_optname(argv, optind);
		rc = cli_common_opt(&o->c, key, optarg, cmd, name, err);
		if (rc != 1) {
			if (rc)
				return rc;
			continue;
		}
		switch (key) {
		case OPT_NS:
			if ((rc = cli_opt_nsid(optarg, &o->nsid, cmd, err)))
				return rc;
			break;
		case OPT_SLBA:
		case OPT_SDLBA:
			if (cli_parse_u64(optarg, 0, UINT64_MAX, &o->slba, msg, sizeof(msg)))
				return cli_usage_error(err, cmd, "%s: %s", name, msg);
			o->have_slba = true;
			break;
		case OPT_NLB:
			if (cli_parse_u64(optarg, 1, 0x10000, &v, msg, sizeof(msg)))
				return cli_usage_error(err, cmd, "--nlb: block count %s", msg);
			o->nlb = (uint32_t)v;
			break;
		case OPT_RANGE:
			if (o->nr == CLI_COPY_MAX_RANGES)
				return cli_usage_error(err, cmd, "more than %u --range",
						       CLI_COPY_MAX_RANGES);
			if ((rc = parse_range(optarg, &o->ranges[o->nr], err)))
				return rc;
			o->nr++;
			break;
		default:
			return cli_usage_error(err, cmd, "unknown option '%s'", name);
		}
	}
	if (o->c.help)
		return CLI_OK;
	if (optind < argc)
		return cli_usage_error(err, cmd, "unexpected argument '%s'", argv[optind]);
	if (!o->have_slba)
		return cli_usage_error(err, cmd,
				       copy ? "the destination: --sdlba LBA" :
					      "the first block: --slba LBA");
	if (copy && !o->nr)
		return cli_usage_error(err, cmd, "what to copy: --range SLBA:NLB");
	if (!copy && !o->nlb)
		return cli_usage_error(err, cmd, "how many blocks: --nlb COUNT");
	return cli_check_common(&o->c, CLI_NQN_NVM, cmd, err);
}

static int run(int argc, char **argv, const struct cli_env *env, bool copy)
{
	struct cli_copy_opts *o = malloc(sizeof(*o));
	if (!o) {
		fprintf(env->err, "nvmf: out of memory\n");
		return CLI_ERR;
	}
	int rc = cli_copy_parse(argc, argv, copy, o, env->err);
	if (rc || o->c.help) {
		if (!rc)
			fputs(copy ? copy_usage : verify_usage, env->out);
		free(o);
		return rc;
	}
	struct nvmf_ctrl *ctrl;
	const char *cmd = copy ? "copy" : "verify";
	if ((rc = cli_connect(&o->c, env, cmd, 1, 0, &ctrl))) {
		free(o);
		return rc;
	}
	rc = copy ? nvmf_copy(ctrl, o->nsid, o->slba, o->ranges, o->nr) :
		    nvmf_verify(ctrl, o->nsid, o->slba, o->nlb);
	char what[64];
	snprintf(what, sizeof(what), "%s of namespace %u", cmd, o->nsid);
	if (rc)
		rc = cli_io_error(env->err, what, rc, nvmf_ctrl_errmsg(ctrl));
	else
		fprintf(env->out, "%s: success\n", what);
	nvmf_disconnect(ctrl);
	free(o);
	return rc;
}

int cli_verify(int argc, char **argv, const struct cli_env *env)
{
	return run(argc, argv, env, false);
}

int cli_copy(int argc, char **argv, const struct cli_env *env)
{
	return run(argc, argv, env, true);
}
