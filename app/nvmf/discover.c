/* SPDX-License-Identifier: MIT */
/*
 * `nvmf discover`: read the discovery log (NVMe-oF 1.1 section 5.3) from the discovery
 * controller at -a/-s and print it as `nvme discover` does: the same header, entry
 * separators, field names, column alignment and value strings (libnvme's nvmf_*_str, the
 * ones nvme-cli prints), or nvme-cli's JSON ("genctr", "records").
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include "app/nvmf/cli.h"

static const char usage[] =
	"Usage: nvmf discover -a ADDR [-s PORT] [-t rdma|tcp] [-q HOSTNQN] [-I HOSTID] [--json] [--hold SECONDS]\n"
	"Read the discovery log of the discovery controller at ADDR:PORT over RDMA or TCP and\n"
	"print it like `nvme discover`.\n"
	"  -a, --traddr ADDR     target address (IPv4 or IPv6), required\n"
	"  -s, --trsvcid PORT    port (default 4420, also for tcp)\n"
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
	"  -n, --nqn NQN         discovery subsystem NQN (default the well-known one)\n"
	"  -q, --hostnqn NQN     host NQN (default /etc/nvme/hostnqn)\n"
	"  -I, --hostid UUID     host ID (default /etc/nvme/hostid)\n"
	"  -S, --dhchap-secret SECRET       DH-HMAC-CHAP host secret (default\n"
	"                        $NVMF_DHCHAP_SECRET); answers a controller that requires it\n"
	"  -C, --dhchap-ctrl-secret SECRET  controller secret: authenticate the controller\n"
	"                        too (default $NVMF_DHCHAP_CTRL_SECRET)\n"
	"  -v, --verbose         say on stderr how many records were read\n"
	"      --json            nvme-cli's JSON output\n"
	"      --hold SECONDS    keep the discovery connection (KATO 0, no Keep Alive) open\n"
	"                        this long after printing, then disconnect (1-86400): a\n"
	"                        host that stays connected without a word\n";

/* Read the log on a connection kept open @hold seconds after printing it (KATO 0 and no
 * Keep Alive, as nvmf_discover connects): what a host that went silent looks like to the
 * target, whose discovery KATO decides when it gives up on it. */
static int discover_and_hold(const struct nvmf_ctrl_opts *opts, const char *what, FILE *err,
			     struct nvmf_disc_entry **entries, size_t *n, uint64_t *genctr,
			     struct nvmf_ctrl **held)
{
	struct nvmf_ctrl_opts o = *opts;
	if (!o.subnqn || !o.subnqn[0])
		o.subnqn = NVME_DISC_SUBSYS_NAME;
	o.no_keep_alive = true;
	o.nr_io_queues = 0;
	int rc = nvmf_connect(&o, held);
	if (rc)
		return cli_lib_error(err, what, rc, nvmf_last_errmsg());
	rc = nvmf_read_discovery_log(*held, entries, n, genctr);
	if (rc) {
		cli_lib_error(err, what, rc, nvmf_ctrl_errmsg(*held));
		nvmf_disconnect(*held);
		*held = NULL;
		return CLI_ERR;
	}
	return CLI_OK;
}

/* Sleep @secs seconds, whatever signals interrupt the sleep (SIGSTOP/SIGCONT). */
static void hold_for(unsigned secs)
{
	struct timespec left = { .tv_sec = secs, .tv_nsec = 0 };
	while (nanosleep(&left, &left) != 0)
		;
}

/* TREQ as nvme-cli words it (libnvme's nvmf_treq_str): the secure channel requirement,
 * then ", sq flow control disable supported" for bit 2, which nvmet and our target set
 * on every port. libnvme has words for bit 2 only beside "not specified" (it says
 * "unrecognized" for "not required" with it): the two parts are worded apart here. */
static const char *treq_str(uint8_t treq, char *buf, size_t len)
{
	if (!(treq & NVMF_TREQ_DISABLE_SQFLOW) || (treq & 3) == NVMF_TREQ_NOT_SPECIFIED)
		return nvmf_treq_str(treq);
	snprintf(buf, len, "%s, sq flow control disable supported", nvmf_treq_str(treq & 3));
	return buf;
}

static void print_text(FILE *f, const struct nvmf_disc_entry *e, size_t n, uint64_t genctr)
{
	fprintf(f, "\nDiscovery Log Number of Records %zu, Generation counter %" PRIu64 "\n", n,
		genctr);
	for (size_t i = 0; i < n; i++, e++) {
		fprintf(f, "=====Discovery Log Entry %zu======\n", i);
		fprintf(f, "trtype:  %s\n", nvmf_trtype_str(e->trtype));
		/* nvme-cli leaves adrfam empty for an entry without an address. */
		fprintf(f, "adrfam:  %s\n", e->traddr[0] ? nvmf_adrfam_str(e->adrfam) : "");
		fprintf(f, "subtype: %s\n", nvmf_subtype_str(e->subtype));
		char tb[96];
		fprintf(f, "treq:    %s\n", treq_str(e->treq, tb, sizeof(tb)));
		fprintf(f, "portid:  %u\n", e->portid);
		fprintf(f, "trsvcid: %s\n", e->trsvcid);
		fprintf(f, "subnqn:  %s\n", e->subnqn);
		fprintf(f, "traddr:  %s\n", e->traddr);
		fprintf(f, "eflags:  %s\n", nvmf_eflags_str(e->eflags));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			fprintf(f, "rdma_prtype: %s\n", nvmf_prtype_str(e->rdma_prtype));
			fprintf(f, "rdma_qptype: %s\n", nvmf_qptype_str(e->rdma_qptype));
			fprintf(f, "rdma_cms:    %s\n", nvmf_cms_str(e->rdma_cms));
			fprintf(f, "rdma_pkey: 0x%04x\n", e->rdma_pkey);
		} else if (e->trtype == NVMF_TRTYPE_TCP) {
			fprintf(f, "sectype: %s\n", nvmf_sectype_str(e->tcp_sectype));
		}
	}
}

static json_t *to_json(const struct nvmf_disc_entry *e, size_t n, uint64_t genctr)
{
	json_t *root = json_object(), *recs = json_array();
	json_object_set_new(root, "genctr", cli_json_uint(genctr));
	json_object_set_new(root, "records", recs);
	for (size_t i = 0; i < n; i++, e++) {
		json_t *r = json_object();
		json_object_set_new(r, "trtype", json_string(nvmf_trtype_str(e->trtype)));
		json_object_set_new(r, "adrfam",
				    json_string(e->traddr[0] ? nvmf_adrfam_str(e->adrfam) : ""));
		json_object_set_new(r, "subtype", json_string(nvmf_subtype_str(e->subtype)));
		char tb[96];
		json_object_set_new(r, "treq", json_string(treq_str(e->treq, tb, sizeof(tb))));
		json_object_set_new(r, "portid", json_integer(e->portid));
		json_object_set_new(r, "trsvcid", json_string(e->trsvcid));
		json_object_set_new(r, "subnqn", json_string(e->subnqn));
		json_object_set_new(r, "traddr", json_string(e->traddr));
		json_object_set_new(r, "eflags", json_string(nvmf_eflags_str(e->eflags)));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			json_object_set_new(r, "rdma_prtype",
					    json_string(nvmf_prtype_str(e->rdma_prtype)));
			json_object_set_new(r, "rdma_qptype",
					    json_string(nvmf_qptype_str(e->rdma_qptype)));
			json_object_set_new(r, "rdma_cms", json_string(nvmf_cms_str(e->rdma_cms)));
			json_object_set_new(r, "rdma_pkey", json_integer(e->rdma_pkey));
		} else if (e->trtype == NVMF_TRTYPE_TCP) {
			json_object_set_new(r, "sectype",
					    json_string(nvmf_sectype_str(e->tcp_sectype)));
		}
		json_array_append_new(recs, r);
	}
	return root;
}

int cli_discover(int argc, char **argv, const struct cli_env *env)
{
	static const struct option longopts[] = { CLI_COMMON_LONGOPTS,
						  { "hold", required_argument, NULL, OPT_HOLD },
						  { NULL, 0, NULL, 0 } };
	struct cli_common c = { 0 };
	unsigned hold = 0;
	int key, rc;

	optind = 0;
	opterr = 0;
	while ((key = getopt_long(argc, argv, CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (key == OPT_HOLD) {
			uint64_t v;
			char msg[160];
			if (cli_parse_u64(optarg, 1, 86400, &v, msg, sizeof(msg)))
				return cli_usage_error(env->err, "discover", "--hold: %s", msg);
			hold = (unsigned)v;
			continue;
		}
		rc = cli_common_opt(&c, key, optarg, "discover", cli_optname(argv, optind),
				    env->err);
		if (rc == 1)
			rc = cli_usage_error(env->err, "discover", "unknown option '%s'",
					     cli_optname(argv, optind));
		if (rc)
			return rc;
	}
	if (c.help) {
		fputs(usage, env->out);
		return CLI_OK;
	}
	if (optind < argc)
		return cli_usage_error(env->err, "discover", "unexpected argument '%s'",
				       argv[optind]);
	if ((rc = cli_check_common(&c, CLI_NQN_OPTIONAL, "discover", env->err)))
		return rc;

	struct nvmf_ctrl_opts o;
	if (cli_fill_opts(&c, env, "discover", true, &o))
		return CLI_USAGE;
	struct nvmf_disc_entry *entries = NULL;
	size_t n = 0;
	uint64_t genctr = 0;
	struct nvmf_ctrl *held = NULL;
	char what[400];
	snprintf(what, sizeof(what), "discover at %s:%s", c.traddr, c.trsvcid ? c.trsvcid : "4420");
	if (hold) {
		if ((rc = discover_and_hold(&o, what, env->err, &entries, &n, &genctr, &held)))
			return rc;
	} else if ((rc = nvmf_discover(&o, &entries, &n, &genctr))) {
		return cli_lib_error(env->err, what, rc, nvmf_last_errmsg());
	}
	if (c.verbose)
		fprintf(env->err,
			"nvmf: discovery log of %s:%s: %zu record(s), generation counter "
			"%" PRIu64 "\n",
			c.traddr, c.trsvcid ? c.trsvcid : "4420", n, genctr);
	if (c.json)
		rc = cli_json_print(env->out, to_json(entries, n, genctr));
	else
		print_text(env->out, entries, n, genctr);
	free(entries);
	if (held) {
		fflush(env->out);
		hold_for(hold);
		nvmf_disconnect(held);
	}
	return rc;
}
