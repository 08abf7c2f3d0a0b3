/* SPDX-License-Identifier: MIT */
/*
 * `nvmf resv-register`, `resv-acquire`, `resv-release`, `resv-report`: the NVMe reservation
 * commands (NVMe Base 2.0 sections 7.2-7.5, 8.19) from a host, with nvme-cli's long option
 * names (--crkey, --nrkey, --prkey, --rtype, --rrega, --racqa, --rrela, --cptpl, --iekey);
 * nvme-cli's one-letter forms are not taken, as -a, -t, -n and -s already name the
 * connection here. Each connects with one I/O queue, runs one command through libnvmf
 * (nvmf_resv_*) and disconnects. A host is a registrant by its Host Identifier (-I, else
 * /etc/nvme/hostid, else a random one per run: give -I, or every run is another host).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "app/nvmf/cli.h"
#include "nvme/identify.h"
#include "nvme/resv.h"

static const char usage_register[] =
	"Usage: nvmf resv-register -a ADDR -n NQN [--ns NSID] [--rrega 0|1|2] [--crkey KEY]\n"
	"                          [--nrkey KEY] [--iekey] [--cptpl 0|2|3]\n"
	"Reservation Register: register a key for this host (-I/--hostid), unregister or\n"
	"replace it.\n"
	"  --rrega A     0 register NRKEY (default), 1 unregister, 2 replace CRKEY by NRKEY\n"
	"  --crkey KEY   the current key (unregister, replace; default 0)\n"
	"  --nrkey KEY   the new key (register, replace; default 0)\n"
	"  --iekey       ignore the current key (unregister, replace)\n"
	"  --cptpl C     Persist Through Power Loss: 0 unchanged (default), 2 off, 3 on\n"
	"KEYs are 64-bit numbers, decimal or 0x hex. Common options as for identify.\n";

static const char usage_acquire[] =
	"Usage: nvmf resv-acquire -a ADDR -n NQN [--ns NSID] --rtype T [--racqa 0|1|2]\n"
	"                         [--crkey KEY] [--prkey KEY] [--iekey]\n"
	"Reservation Acquire: take a reservation of type T, or preempt other registrants.\n"
	"  --rtype T     1 write exclusive, 2 exclusive access, 3/4 the same for registrants\n"
	"                only, 5/6 the same for all registrants (required)\n"
	"  --racqa A     0 acquire (default), 1 preempt, 2 preempt and abort\n"
	"  --crkey KEY   this host's key (default 0)\n"
	"  --prkey KEY   the key of the registrants to preempt (default 0)\n"
	"  --iekey       ignore the current key\n"
	"Common options as for identify.\n";

static const char usage_release[] =
	"Usage: nvmf resv-release -a ADDR -n NQN [--ns NSID] [--rrela 0|1] [--rtype T]\n"
	"                         [--crkey KEY] [--iekey]\n"
	"Reservation Release: release the reservation this host holds, or clear every\n"
	"registration and the reservation.\n"
	"  --rrela A     0 release (default: --rtype, the type held, is required), 1 clear\n"
	"  --rtype T     the type of the reservation released (1-6)\n"
	"  --crkey KEY   this host's key (default 0)\n"
	"  --iekey       ignore the current key\n"
	"Common options as for identify.\n";

static const char usage_report[] =
	"Usage: nvmf resv-report -a ADDR -n NQN [--ns NSID] [--json]\n"
	"Reservation Report (extended data structure): the generation, the type held, PTPL,\n"
	"and each registrant's host ID, key and whether it holds the reservation.\n"
	"Common options as for identify.\n";

static const struct {
	const char *name;
	const char *usage;
} cmds[] = {
	[CLI_RESV_REGISTER] = { "resv-register", usage_register },
	[CLI_RESV_ACQUIRE] = { "resv-acquire", usage_acquire },
	[CLI_RESV_RELEASE] = { "resv-release", usage_release },
	[CLI_RESV_REPORT] = { "resv-report", usage_report },
};

int cli_resv_parse(int argc, char **argv, enum cli_resv_cmd cmd, struct cli_resv_opts *o, FILE *err)
{
	/* Each command's table holds only its own options: another's is "unknown". */
#define NS_OPTS                                                 \
	{ "ns", required_argument, NULL, OPT_NS },              \
	{                                                       \
		"namespace-id", required_argument, NULL, OPT_NS \
	}
#define CRKEY_OPTS                                       \
	{ "crkey", required_argument, NULL, OPT_CRKEY }, \
	{                                                \
		"iekey", no_argument, NULL, OPT_IEKEY    \
	}
	static const struct option reg[] = { CLI_COMMON_LONGOPTS,
					     NS_OPTS,
					     CRKEY_OPTS,
					     { "nrkey", required_argument, NULL, OPT_NRKEY },
					     { "rrega", required_argument, NULL, OPT_RREGA },
					     { "cptpl", required_argument, NULL, OPT_CPTPL },
					     { NULL, 0, NULL, 0 } };
	static const struct option acq[] = { CLI_COMMON_LONGOPTS,
					     NS_OPTS,
					     CRKEY_OPTS,
					     { "prkey", required_argument, NULL, OPT_PRKEY },
					     { "rtype", required_argument, NULL, OPT_RTYPE },
					     { "racqa", required_argument, NULL, OPT_RACQA },
					     { NULL, 0, NULL, 0 } };
	static const struct option rel[] = { CLI_COMMON_LONGOPTS,
					     NS_OPTS,
					     CRKEY_OPTS,
					     { "rtype", required_argument, NULL, OPT_RTYPE },
					     { "rrela", required_argument, NULL, OPT_RRELA },
					     { NULL, 0, NULL, 0 } };
	static const struct option rep[] = { CLI_COMMON_LONGOPTS, NS_OPTS, { NULL, 0, NULL, 0 } };
	static const struct option *const tables[] = {
		[CLI_RESV_REGISTER] = reg,
		[CLI_RESV_ACQUIRE] = acq,
		[CLI_RESV_RELEASE] = rel,
		[CLI_RESV_REPORT] = rep,
	};
#undef NS_OPTS
#undef CRKEY_OPTS
	const char *name = cmds[cmd].name;
	char msg[160];
	uint64_t v;
	int key, rc;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->nsid = 1;
	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, tables[cmd], NULL)) != -1) {
		const char *opt = cli_optname(argv, optind);
		rc = cli_common_opt(&o->c, key, optarg, name, opt, err);
		if (rc != 1) {
			if (rc)
				return rc;
			continue;
		}
		uint64_t max = key == OPT_RTYPE                     ? 6 :
			       key == OPT_RREGA || key == OPT_RACQA ? 2 :
			       key == OPT_RRELA                     ? 1 :
			       key == OPT_CPTPL                     ? 3 :
								      UINT64_MAX;
		uint64_t min = key == OPT_RTYPE || key == OPT_NS ? 1 : 0;
		if (key == OPT_NS)
			max = 0xfffffffeu;
		if (key != OPT_IEKEY && cli_parse_u64(optarg, min, max, &v, msg, sizeof(msg)))
			return cli_usage_error(err, name, "%s: %s", opt, msg);
		switch (key) {
		case OPT_NS:
			o->nsid = (uint32_t)v;
			break;
		case OPT_CRKEY:
			o->crkey = v;
			break;
		case OPT_NRKEY:
			o->nrkey = v;
			break;
		case OPT_PRKEY:
			o->prkey = v;
			break;
		case OPT_RTYPE:
			o->rtype = (unsigned)v;
			break;
		case OPT_RREGA:
		case OPT_RACQA:
		case OPT_RRELA:
			o->action = (unsigned)v;
			break;
		case OPT_CPTPL:
			if (v == 1)
				return cli_usage_error(
					err, name, "%s: 1 is reserved (0 unchanged, 2 off, 3 on)",
					opt);
			o->cptpl = (unsigned)v;
			break;
		case OPT_IEKEY:
			o->iekey = true;
			break;
		default:
			return cli_usage_error(err, name, "unknown option '%s'", opt);
		}
	}
	if (o->c.help)
		return CLI_OK;
	if (optind < argc)
		return cli_usage_error(err, name, "unexpected argument '%s'", argv[optind]);
	if (!o->rtype && (cmd == CLI_RESV_ACQUIRE ||
			  (cmd == CLI_RESV_RELEASE && o->action == NVMF_RESV_RELEASE)))
		return cli_usage_error(err, name,
				       "--rtype T is required (1-6: the reservation type%s)",
				       cmd == CLI_RESV_RELEASE ? " held" : "");
	return cli_check_common(&o->c, CLI_NQN_NVM, name, err);
}

/* REGCTL of the report in @buf: how many registrants there are. */
static uint32_t regctl_of(const uint8_t *buf)
{
	return (uint32_t)buf[5] | (uint32_t)buf[6] << 8;
}

/* The report's text, in nvme-cli's layout (nvme resv-report with EDS). */
static void report_text(FILE *f, const uint8_t *buf, uint32_t n)
{
	const struct nvme_resv_status *h = (const void *)buf;
	char id[NVME_UUID_STR_LEN];
	fprintf(f, "NVME Reservation status:\n\n");
	fprintf(f, "gen       : %u\n", le32toh(h->gen));
	fprintf(f, "rtype     : %u (%s)\n", h->rtype, nvme_resv_type_name(h->rtype));
	fprintf(f, "regctl    : %u\n", regctl_of(buf));
	fprintf(f, "ptpls     : %u\n", h->ptpls);
	for (uint32_t i = 0; i < n; i++) {
		const struct nvme_registered_ctrl_ext *e = (const void *)(buf + 64 + 64 * i);
		fprintf(f, "\nregctlext[%u] :\n", i);
		fprintf(f, "  cntlid     : %x\n", le16toh(e->cntlid));
		fprintf(f, "  rcsts      : %x\n", e->rcsts);
		fprintf(f, "  rkey       : %#" PRIx64 "\n", le64toh(e->rkey));
		fprintf(f, "  hostid     : %s\n", nvme_uuid_format(e->hostid, id));
	}
}

static json_t *report_json(const uint8_t *buf, uint32_t n)
{
	const struct nvme_resv_status *h = (const void *)buf;
	char id[NVME_UUID_STR_LEN], key[24];
	json_t *regs = json_array();
	for (uint32_t i = 0; i < n; i++) {
		const struct nvme_registered_ctrl_ext *e = (const void *)(buf + 64 + 64 * i);
		/* The key as text: a JSON number loses the bits of a 64-bit key above 2^53. */
		snprintf(key, sizeof(key), "0x%016" PRIx64, le64toh(e->rkey));
		json_array_append_new(regs,
				      json_pack("{s:i, s:i, s:s, s:s}", "cntlid",
						le16toh(e->cntlid), "rcsts", e->rcsts, "rkey", key,
						"hostid", nvme_uuid_format(e->hostid, id)));
	}
	return json_pack("{s:I, s:i, s:s, s:i, s:i, s:o}", "gen", (json_int_t)le32toh(h->gen),
			 "rtype", h->rtype, "rtype_name", nvme_resv_type_name(h->rtype), "regctl",
			 (int)regctl_of(buf), "ptpls", h->ptpls, "regctlext", regs);
}

/* Read the report: the header for REGCTL, then all of it (as much as one command moves). */
static int report(struct nvmf_ctrl *ctrl, const struct cli_resv_opts *o, const struct cli_env *env)
{
	uint8_t *buf = malloc(64);
	int rc = buf ? nvmf_resv_report(ctrl, o->nsid, buf, 64) : -ENOMEM;
	uint32_t n = 0;
	if (!rc) {
		uint32_t len = 64 + 64 * regctl_of(buf), max = nvmf_ctrl_max_xfer(ctrl) & ~63u;
		if (max && len > max)
			len = max;
		n = (len - 64) / 64;
	}
	if (!rc && n) {
		uint8_t *all = realloc(buf, 64 + 64 * n);
		if (!all) {
			rc = -ENOMEM;
		} else {
			buf = all;
			rc = nvmf_resv_report(ctrl, o->nsid, buf, 64 + 64 * n);
			if (regctl_of(buf) < n) /* some left meanwhile */
				n = regctl_of(buf);
		}
	}
	char what[64];
	snprintf(what, sizeof(what), "resv-report of namespace %u", o->nsid);
	if (rc)
		rc = cli_lib_error(env->err, what, rc, nvmf_ctrl_errmsg(ctrl));
	else if (o->c.json)
		rc = cli_json_print(env->out, report_json(buf, n));
	else
		report_text(env->out, buf, n);
	free(buf);
	return rc;
}

static int run(int argc, char **argv, const struct cli_env *env, enum cli_resv_cmd cmd)
{
	struct cli_resv_opts o;
	int rc = cli_resv_parse(argc, argv, cmd, &o, env->err);
	if (rc)
		return rc;
	if (o.c.help) {
		fputs(cmds[cmd].usage, env->out);
		return CLI_OK;
	}
	struct nvmf_ctrl *ctrl;
	if ((rc = cli_connect(&o.c, env, cmds[cmd].name, 1, 0, &ctrl)))
		return rc;
	switch (cmd) {
	case CLI_RESV_REGISTER:
		rc = nvmf_resv_register(ctrl, o.nsid, o.action, o.iekey, o.cptpl, o.crkey, o.nrkey);
		break;
	case CLI_RESV_ACQUIRE:
		rc = nvmf_resv_acquire(ctrl, o.nsid, o.action, o.rtype, o.iekey, o.crkey, o.prkey);
		break;
	case CLI_RESV_RELEASE:
		rc = nvmf_resv_release(ctrl, o.nsid, o.action, o.rtype, o.iekey, o.crkey);
		break;
	default:
		rc = report(ctrl, &o, env);
		nvmf_disconnect(ctrl);
		return rc;
	}
	char what[64];
	snprintf(what, sizeof(what), "%s of namespace %u", cmds[cmd].name, o.nsid);
	if (rc)
		rc = cli_lib_error(env->err, what, rc, nvmf_ctrl_errmsg(ctrl));
	else
		fprintf(env->out, "%s: success\n", what);
	nvmf_disconnect(ctrl);
	return rc;
}

int cli_resv_register(int argc, char **argv, const struct cli_env *env)
{
	return run(argc, argv, env, CLI_RESV_REGISTER);
}

int cli_resv_acquire(int argc, char **argv, const struct cli_env *env)
{
	return run(argc, argv, env, CLI_RESV_ACQUIRE);
}

int cli_resv_release(int argc, char **argv, const struct cli_env *env)
{
	return run(argc, argv, env, CLI_RESV_RELEASE);
}

int cli_resv_report(int argc, char **argv, const struct cli_env *env)
{
	return run(argc, argv, env, CLI_RESV_REPORT);
}
