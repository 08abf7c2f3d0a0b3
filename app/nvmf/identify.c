/* SPDX-License-Identifier: MIT */
/*
 * `nvmf identify`: Identify Controller (CNS 01h) or, with --ns, Identify Namespace
 * (CNS 00h) of a fabrics controller (NVMe Base 2.0 section 5.17), printed with the names
 * and number formats of `nvme id-ctrl` / `nvme id-ns` ("mdts      : 8", "sgls      :
 * 0x100005", "nsze    : 0x800"), restricted to the fields that matter over fabrics, or
 * as JSON with nvme-cli's keys.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include "app/nvmf/cli.h"

static const char usage[] =
	"Usage: nvmf identify -a ADDR -n NQN [-s PORT] [--ns NSID] [--json]\n"
	"Connect to subsystem NQN and print its Identify Controller data like `nvme id-ctrl`,\n"
	"or with --ns the Identify Namespace data of NSID like `nvme id-ns`.\n"
	"  -a, --traddr ADDR     target address, required\n"
	"  -s, --trsvcid PORT    port (default 4420)\n"
	"  -t, --transport TYPE  rdma (default) or tcp (NVMe/TCP)\n"
	"  -g, --hdr-digest      tcp: header digests (CRC32C) on every PDU header\n"
	"  -G, --data-digest     tcp: data digests (CRC32C) on every PDU's data\n"
	"      --tls             tcp: a TLS 1.3 secure channel with a PSK (key from\n"
	"                        --tls-key-file, --tls-key or $NVMF_TLS_KEY)\n"
	"      --tls-key-file FILE  tcp: the PSK (\"NVMeTLSkey-1:01:...:\", `nvme\n"
	"                        gen-tls-key`) from FILE; implies --tls\n"
	"      --tls-key KEY     tcp: the PSK itself (others may see it in ps); implies --tls\n"
	"      --tls-identity V  PSK identity version: 0 (default, the Linux host's) or 1\n"
	"      --tls-compat      derive the PSK in libnvme's compat layout (a key nvme-cli\n"
	"                        2.15 or older inserted on the target); with a TLS option\n"
	"      --disable-sqflow  ask every queue's Connect to disable SQ flow control, as\n"
	"                        nvme-cli (over tcp a read may then end without CapsuleResp)\n"
	"  -n, --nqn NQN         subsystem NQN, required\n"
	"  -q, --hostnqn NQN     host NQN (default /etc/nvme/hostnqn)\n"
	"  -I, --hostid UUID     host ID (default /etc/nvme/hostid)\n"
	"  -S, --dhchap-secret SECRET       DH-HMAC-CHAP host secret (default\n"
	"                        $NVMF_DHCHAP_SECRET); answers a controller that requires it\n"
	"  -C, --dhchap-ctrl-secret SECRET  controller secret: authenticate the controller\n"
	"                        too (default $NVMF_DHCHAP_CTRL_SECRET)\n"
	"  -v, --verbose         say on stderr how the connect went (cntlid, queues,\n"
	"                        authentication)\n"
	"      --ns NSID         identify namespace NSID instead of the controller\n"
	"      --json            nvme-cli's JSON output\n";

/* IEEE OUI: stored least significant byte first; nvme-cli prints and reports it as one
 * number, most significant byte first. */
static unsigned ieee(const struct nvme_id_ctrl *id)
{
	return (unsigned)id->ieee[2] << 16 | (unsigned)id->ieee[1] << 8 | id->ieee[0];
}

static void ctrl_text(FILE *f, const struct nvme_id_ctrl *id)
{
	fprintf(f, "NVME Identify Controller:\n");
	fprintf(f, "vid       : %#x\n", le16toh(id->vid));
	fprintf(f, "ssvid     : %#x\n", le16toh(id->ssvid));
	fprintf(f, "sn        : %-.*s\n", (int)sizeof(id->sn), id->sn);
	fprintf(f, "mn        : %-.*s\n", (int)sizeof(id->mn), id->mn);
	fprintf(f, "fr        : %-.*s\n", (int)sizeof(id->fr), id->fr);
	fprintf(f, "rab       : %d\n", id->rab);
	fprintf(f, "ieee      : %06x\n", ieee(id));
	fprintf(f, "cmic      : %#x\n", id->cmic);
	fprintf(f, "mdts      : %d\n", id->mdts);
	fprintf(f, "cntlid    : %#x\n", le16toh(id->cntlid));
	fprintf(f, "ver       : %#x\n", le32toh(id->ver));
	fprintf(f, "oacs      : %#x\n", le16toh(id->oacs));
	fprintf(f, "acl       : %d\n", id->acl);
	fprintf(f, "aerl      : %d\n", id->aerl);
	fprintf(f, "frmw      : %#x\n", id->frmw);
	fprintf(f, "lpa       : %#x\n", id->lpa);
	fprintf(f, "elpe      : %d\n", id->elpe);
	fprintf(f, "kas       : %d\n", le16toh(id->kas));
	fprintf(f, "sqes      : %#x\n", id->sqes);
	fprintf(f, "cqes      : %#x\n", id->cqes);
	fprintf(f, "maxcmd    : %d\n", le16toh(id->maxcmd));
	fprintf(f, "nn        : %u\n", le32toh(id->nn));
	fprintf(f, "oncs      : %#x\n", le16toh(id->oncs));
	fprintf(f, "fuses     : %#x\n", le16toh(id->fuses));
	fprintf(f, "fna       : %#x\n", id->fna);
	fprintf(f, "vwc       : %#x\n", id->vwc);
	fprintf(f, "awun      : %d\n", le16toh(id->awun));
	fprintf(f, "awupf     : %d\n", le16toh(id->awupf));
	fprintf(f, "acwu      : %d\n", le16toh(id->acwu));
	fprintf(f, "ocfs      : %#x\n", le16toh(id->ocfs));
	fprintf(f, "sgls      : %#x\n", le32toh(id->sgls));
	fprintf(f, "subnqn    : %-.*s\n", (int)sizeof(id->subnqn), id->subnqn);
	fprintf(f, "ioccsz    : %u\n", le32toh(id->ioccsz));
	fprintf(f, "iorcsz    : %u\n", le32toh(id->iorcsz));
	fprintf(f, "icdoff    : %d\n", le16toh(id->icdoff));
	fprintf(f, "fcatt     : %#x\n", id->fcatt);
	fprintf(f, "msdbd     : %d\n", id->msdbd);
}

static json_t *ctrl_json(const struct nvme_id_ctrl *id)
{
	json_t *r = json_object();
#define U(k, v) json_object_set_new(r, k, cli_json_uint(v))
	U("vid", le16toh(id->vid));
	U("ssvid", le16toh(id->ssvid));
	json_object_set_new(r, "sn", cli_json_fixed(id->sn, sizeof(id->sn)));
	json_object_set_new(r, "mn", cli_json_fixed(id->mn, sizeof(id->mn)));
	json_object_set_new(r, "fr", cli_json_fixed(id->fr, sizeof(id->fr)));
	U("rab", id->rab);
	U("ieee", ieee(id));
	U("cmic", id->cmic);
	U("mdts", id->mdts);
	U("cntlid", le16toh(id->cntlid));
	U("ver", le32toh(id->ver));
	U("oacs", le16toh(id->oacs));
	U("acl", id->acl);
	U("aerl", id->aerl);
	U("frmw", id->frmw);
	U("lpa", id->lpa);
	U("elpe", id->elpe);
	U("kas", le16toh(id->kas));
	U("sqes", id->sqes);
	U("cqes", id->cqes);
	U("maxcmd", le16toh(id->maxcmd));
	U("nn", le32toh(id->nn));
	U("oncs", le16toh(id->oncs));
	U("fuses", le16toh(id->fuses));
	U("fna", id->fna);
	U("vwc", id->vwc);
	U("awun", le16toh(id->awun));
	U("awupf", le16toh(id->awupf));
	U("acwu", le16toh(id->acwu));
	U("ocfs", le16toh(id->ocfs));
	U("sgls", le32toh(id->sgls));
	json_object_set_new(r, "subnqn", cli_json_fixed(id->subnqn, sizeof(id->subnqn)));
	U("ioccsz", le32toh(id->ioccsz));
	U("iorcsz", le32toh(id->iorcsz));
	U("icdoff", le16toh(id->icdoff));
	U("fcatt", id->fcatt);
	U("msdbd", id->msdbd);
#undef U
	return r;
}

/* The in-use LBA format (FLBAS bits 3:0, bits 6:5 above them; NVMe Base 2.0 Fig. 276). */
static unsigned flbas_fmt(uint8_t flbas)
{
	return (flbas & 0xfu) | ((flbas & 0x60u) >> 1);
}

static void ns_text(FILE *f, const struct nvme_id_ns *ns, uint32_t nsid)
{
	fprintf(f, "NVME Identify Namespace %u:\n", nsid);
	fprintf(f, "nsze    : %#" PRIx64 "\n", (uint64_t)le64toh(ns->nsze));
	fprintf(f, "ncap    : %#" PRIx64 "\n", (uint64_t)le64toh(ns->ncap));
	fprintf(f, "nuse    : %#" PRIx64 "\n", (uint64_t)le64toh(ns->nuse));
	fprintf(f, "nsfeat  : %#x\n", ns->nsfeat);
	fprintf(f, "nlbaf   : %d\n", ns->nlbaf);
	fprintf(f, "flbas   : %#x\n", ns->flbas);
	fprintf(f, "mc      : %#x\n", ns->mc);
	fprintf(f, "dpc     : %#x\n", ns->dpc);
	fprintf(f, "dps     : %#x\n", ns->dps);
	fprintf(f, "nmic    : %#x\n", ns->nmic);
	fprintf(f, "dlfeat  : %d\n", ns->dlfeat);
	fprintf(f, "mssrl   : %u\n", le16toh(ns->mssrl));
	fprintf(f, "mcl     : %u\n", le32toh(ns->mcl));
	fprintf(f, "msrc    : %u\n", ns->msrc);
	fprintf(f, "nguid   : ");
	for (int i = 0; i < 16; i++)
		fprintf(f, "%02x", ns->nguid[i]);
	fprintf(f, "\neui64   : ");
	for (int i = 0; i < 8; i++)
		fprintf(f, "%02x", ns->eui64[i]);
	fprintf(f, "\n");
	unsigned inuse = flbas_fmt(ns->flbas);
	for (unsigned i = 0; i <= ns->nlbaf && i < 64; i++)
		fprintf(f, "lbaf %2u : ms:%-3d lbads:%-2d rp:%#x %s\n", i, le16toh(ns->lbaf[i].ms),
			ns->lbaf[i].ds, ns->lbaf[i].rp, i == inuse ? "(in use)" : "");
}

static json_t *ns_json(const struct nvme_id_ns *ns)
{
	json_t *r = json_object(), *lbafs = json_array();
#define U(k, v) json_object_set_new(r, k, cli_json_uint(v))
	U("nsze", le64toh(ns->nsze));
	U("ncap", le64toh(ns->ncap));
	U("nuse", le64toh(ns->nuse));
	U("nsfeat", ns->nsfeat);
	U("nlbaf", ns->nlbaf);
	U("flbas", ns->flbas);
	U("mc", ns->mc);
	U("dpc", ns->dpc);
	U("dps", ns->dps);
	U("nmic", ns->nmic);
	U("dlfeat", ns->dlfeat);
	U("mssrl", le16toh(ns->mssrl));
	U("mcl", le32toh(ns->mcl));
	U("msrc", ns->msrc);
#undef U
	json_object_set_new(r, "nguid", cli_json_hex(ns->nguid, 16));
	json_object_set_new(r, "eui64", cli_json_hex(ns->eui64, 8));
	for (unsigned i = 0; i <= ns->nlbaf && i < 64; i++) {
		json_t *l = json_object();
		json_object_set_new(l, "ms", json_integer(le16toh(ns->lbaf[i].ms)));
		json_object_set_new(l, "ds", json_integer(ns->lbaf[i].ds));
		json_object_set_new(l, "rp", json_integer(ns->lbaf[i].rp));
		json_array_append_new(lbafs, l);
	}
	json_object_set_new(r, "lbafs", lbafs);
	return r;
}

int cli_identify(int argc, char **argv, const struct cli_env *env)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "ns", required_argument, NULL, OPT_NS },
		{ "namespace-id", required_argument, NULL, OPT_NS },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_common c = { 0 };
	uint64_t nsid = 0;
	char msg[160];
	int key, rc;

	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		const char *name = cli_optname(argv, optind);
		rc = cli_common_opt(&c, key, optarg, "identify", name, env->err);
		if (rc != 1) {
			if (rc)
				return rc;
			continue;
		}
		if (cli_parse_u64(optarg, 1, 0xfffffffeu, &nsid, msg, sizeof(msg)))
			return cli_usage_error(env->err, "identify", "--ns: namespace ID %s", msg);
	}
	if (c.help) {
		fputs(usage, env->out);
		return CLI_OK;
	}
	if (optind < argc)
		return cli_usage_error(env->err, "identify", "unexpected argument '%s'",
				       argv[optind]);
	if ((rc = cli_check_common(&c, nsid ? CLI_NQN_NVM : CLI_NQN_ANY, "identify", env->err)))
		return rc;

	struct nvmf_ctrl *ctrl;
	if ((rc = cli_connect(&c, env, "identify", 1, 0, &ctrl)))
		return rc;
	if (!nsid) {
		const struct nvme_id_ctrl *id = nvmf_ctrl_id(ctrl);
		if (c.json)
			rc = cli_json_print(env->out, ctrl_json(id));
		else
			ctrl_text(env->out, id);
	} else {
		struct nvme_id_ns *ns = aligned_alloc(4096, 4096);
		if (!ns) {
			rc = cli_lib_error(env->err, "identify", -ENOMEM, NULL);
		} else if ((rc = nvmf_identify(ctrl, NVME_IDENTIFY_CNS_NS, (uint32_t)nsid, ns))) {
			snprintf(msg, sizeof(msg), "identify namespace %llu",
				 (unsigned long long)nsid);
			rc = cli_lib_error(env->err, msg, rc, nvmf_ctrl_errmsg(ctrl));
		} else if (c.json) {
			rc = cli_json_print(env->out, ns_json(ns));
		} else {
			ns_text(env->out, ns, (uint32_t)nsid);
		}
		free(ns);
	}
	nvmf_disconnect(ctrl);
	return rc;
}
