/* SPDX-License-Identifier: MIT */
/*
 * `nvmf compare-write`: one fused Compare and Write (NVM Command Set 1.0 section
 * 3.2.1.1) with libnvmf's nvmf_compare_and_write: the blocks are written with --input
 * only when they hold --compare, with no other command between. Both files hold exactly
 * --nlb blocks; one command, so at most what MDTS lets one carry. A miscompare prints the
 * status name (COMPARE_FAILED) and exits 1, as any other failure.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "app/nvmf/cli.h"

/* This command's own long options, clear of the shared enum in cli.h. */
enum { OPT_CAW_COMPARE = 0x400 };

static const char caw_usage[] =
	"Usage: nvmf compare-write -a ADDR -n NQN [-s PORT] [--ns NSID] --slba LBA --nlb COUNT\n"
	"                          --compare FILE --input FILE\n"
	"Fused Compare and Write on namespace NSID (default 1): write the blocks of --input\n"
	"FILE at LBA only when they hold the blocks of --compare FILE, atomically (no other\n"
	"command in between). Each file holds exactly COUNT blocks. A miscompare prints\n"
	"COMPARE_FAILED and exits 1; nothing is written then.\n"
	"  --slba LBA, --nlb COUNT      first block and number of blocks (1's based)\n"
	"  --compare FILE               what the blocks must hold\n"
	"  -i, --input FILE             what to write\n"
	"  -a/--traddr, -s/--trsvcid, -n/--nqn, -q/--hostnqn, -I/--hostid,\n"
	"  -S/--dhchap-secret, -C/--dhchap-ctrl-secret, -t/--transport, -g/--hdr-digest,\n"
	"  -G/--data-digest, --tls, --tls-key-file, --tls-key, --tls-identity, --tls-compat,\n"
	"  -v/--verbose as for identify\n";

struct caw_opts {
	struct cli_common c;
	uint32_t nsid;
	uint64_t slba, nlb;
	bool have_slba;
	const char *compare, *input;
};

static int parse(int argc, char **argv, struct caw_opts *o, FILE *err)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "ns", required_argument, NULL, OPT_NS },
		{ "namespace-id", required_argument, NULL, OPT_NS },
		{ "slba", required_argument, NULL, OPT_SLBA },
		{ "nlb", required_argument, NULL, OPT_NLB },
		{ "compare", required_argument, NULL, OPT_CAW_COMPARE },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "compare-write";
	char msg[256];
	int key, rc;
	memset(o, 0, sizeof(*o));
	o->nsid = 1;
	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS "i:", longopts, NULL)) != -1) {
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
			if (cli_parse_u64(optarg, 0, UINT64_MAX, &o->slba, msg, sizeof(msg)))
				return cli_usage_error(err, cmd, "--slba: %s", msg);
			o->have_slba = true;
			break;
		case OPT_NLB:
			/* NLB is a 16-bit 0's based field: one command, never split. */
			if (cli_parse_u64(optarg, 1, 65536, &o->nlb, msg, sizeof(msg)))
				return cli_usage_error(err, cmd, "--nlb: block count %s", msg);
			break;
		case OPT_CAW_COMPARE:
			o->compare = optarg;
			break;
		case 'i':
			o->input = optarg;
			break;
		default:
			return cli_usage_error(err, cmd, "unknown option '%s'", name);
		}
	}
	if (o->c.help)
		return CLI_OK;
	if (optind < argc)
		return cli_usage_error(err, cmd, "unexpected argument '%s'", argv[optind]);
	if ((rc = cli_check_common(&o->c, CLI_NQN_NVM, cmd, err)))
		return rc;
	if (!o->have_slba || !o->nlb)
		return cli_usage_error(err, cmd, "which blocks: --slba LBA and --nlb COUNT");
	if (!o->compare || !o->input)
		return cli_usage_error(err, cmd, "--compare FILE and --input FILE are both needed");
	return CLI_OK;
}

/* Read exactly @len bytes of @path into a new buffer *@out. CLI_OK or CLI_USAGE / CLI_ERR
 * after a message. */
static int load(const struct cli_env *env, const char *path, size_t len, uint8_t **out)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(env->err, "nvmf: compare-write: cannot open %s: %s\n", path,
			strerror(errno));
		return CLI_ERR;
	}
	uint8_t *buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	size_t got = buf ? fread(buf, 1, len, f) : 0;
	bool more = buf && fgetc(f) != EOF;
	fclose(f);
	if (!buf) {
		fprintf(env->err, "nvmf: compare-write: %s\n", strerror(ENOMEM));
		return CLI_ERR;
	}
	if (got != len || more) {
		free(buf);
		return cli_usage_error(env->err, "compare-write",
				       "%s must hold exactly %zu bytes (--nlb blocks)", path, len);
	}
	*out = buf;
	return CLI_OK;
}

int cli_compare_write(int argc, char **argv, const struct cli_env *env)
{
	const char *cmd = "compare-write";
	struct caw_opts o;
	int rc = parse(argc, argv, &o, env->err);
	if (rc)
		return rc;
	if (o.c.help) {
		fputs(caw_usage, env->out);
		return CLI_OK;
	}
	struct cli_conn k = { 0 };
	uint8_t *cmp = NULL, *data = NULL;
	if ((rc = cli_conn_open(&o.c, env, cmd, 1, 0, &k)))
		goto out;
	struct nvmf_ns_info ns;
	int lrc = cli_conn_ns_info(&k, o.nsid, &ns);
	if (lrc) {
		char what[64];
		snprintf(what, sizeof(what), "%s: namespace %u", cmd, o.nsid);
		rc = cli_lib_error(env->err, what, lrc, cli_conn_errmsg(&k));
		goto out;
	}
	size_t len = (size_t)o.nlb * ns.block_size;
	if ((rc = load(env, o.compare, len, &cmp)) || (rc = load(env, o.input, len, &data)))
		goto out;
	lrc = nvmf_compare_and_write(k.ctrl, o.nsid, o.slba, (uint32_t)o.nlb, cmp, data);
	if (lrc) {
		char what[96];
		snprintf(what, sizeof(what), "%s of %" PRIu64 " blocks at lba %" PRIu64, cmd, o.nlb,
			 o.slba);
		rc = cli_io_error(env->err, what, lrc, cli_conn_errmsg(&k));
	}
out:
	cli_conn_close(&k);
	free(cmp);
	free(data);
	return rc;
}
