/* SPDX-License-Identifier: MIT */
/*
 * Option values of the nvmf tool: numbers (sizes are util/size.h's), and the options every
 * subcommand shares (-a -s -n -q -I --json -h, nvme-cli's letters). Messages name the
 * option and the text that was wrong, so a user can fix the command line at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "app/nvmf/cli.h"
#include "nvme/identify.h"
#include "util/read-file.h"
#include "util/secret.h"
#include "util/size.h"

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		  size_t errlen)
{
	uint64_t v;
	if (!s || !*s) {
		snprintf(err, errlen, "empty number");
		return -EINVAL;
	}
	int rc = nvmf_u64_parse(s, &v);
	if (rc == -EINVAL) {
		snprintf(err, errlen, "'%s' is not a number", s);
		return -EINVAL;
	}
	if (rc == -ERANGE || v < min || v > max) {
		snprintf(err, errlen, "%s is out of range (%llu to %llu)", s,
			 (unsigned long long)min, (unsigned long long)max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

int cli_opt_nsid(const char *arg, uint32_t *nsid, const char *cmd, FILE *err)
{
	char msg[256];
	uint64_t v;
	if (cli_parse_u64(arg, 1, 0xfffffffeu, &v, msg, sizeof(msg)))
		return cli_usage_error(err, cmd, "--ns: namespace ID %s", msg);
	*nsid = (uint32_t)v;
	return 0;
}

int cli_usage_error(FILE *err, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(err, "nvmf: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fprintf(err, "\nTry 'nvmf %s --help'.\n", cmd);
	return CLI_USAGE;
}

int cli_read_key_file(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
	size_t len = 0;
	int rc;
	char *text = nvmf_read_secret_line(path, 4096, &len, &rc, err, errlen);
	if (!text)
		return rc;
	rc = 0;
	if (len >= outlen) {
		snprintf(err, errlen,
			 "not one TLS PSK in its interchange form (NVMeTLSkey-1:...:)");
		rc = -EINVAL;
	} else {
		memcpy(out, text, len + 1);
	}
	explicit_bzero(text, len);
	free(text);
	return rc;
}

const char *cli_optname(char **argv, int optind_now)
{
	/* getopt has advanced past the option (and a separate argument): the option text is
	 * the last argv element that starts with '-'. */
	for (int i = optind_now - 1; i > 0; i--)
		if (argv[i][0] == '-')
			return argv[i];
	return "?";
}

int cli_common_opt(struct cli_common *c, int key, const char *arg, const char *cmd,
		   const char *optname, FILE *err)
{
	char msg[160];
	uint64_t port;
	switch (key) {
	case 'a':
		if (c->n_traddrs == NVMF_MPATH_MAX_PATHS)
			return cli_usage_error(err, cmd, "-a/--traddr: at most %u paths",
					       (unsigned)NVMF_MPATH_MAX_PATHS);
		c->traddrs[c->n_traddrs++] = arg;
		if (!c->traddr)
			c->traddr = arg;
		return 0;
	case 's':
		if (cli_parse_u64(arg, 1, 65535, &port, msg, sizeof(msg)))
			return cli_usage_error(err, cmd, "-s/--trsvcid: port %s", msg);
		if (c->n_trsvcids == NVMF_MPATH_MAX_PATHS)
			return cli_usage_error(err, cmd, "-s/--trsvcid: at most %u paths",
					       (unsigned)NVMF_MPATH_MAX_PATHS);
		c->trsvcids[c->n_trsvcids++] = arg;
		if (!c->trsvcid)
			c->trsvcid = arg;
		return 0;
	case OPT_REFRESH:
	case OPT_PATH_TIMEOUT:
		if (cli_parse_u64(arg, 1, 3600000, &port, msg, sizeof(msg)))
			return cli_usage_error(err, cmd, "%s: milliseconds %s", optname, msg);
		if (key == OPT_REFRESH)
			c->refresh_ms = (unsigned)port;
		else
			c->path_timeout_ms = (unsigned)port;
		return 0;
	case OPT_IO_TIMEOUT:
	case OPT_RECONNECT_DELAY:
	case OPT_FAST_IO_FAIL_TMO: {
		/* Seconds, as nvme-cli's; a day at most (the library counts milliseconds in
		 * an int). --fast-io-fail-tmo 0: at once, as nvme-cli's. Named here: a value
		 * such as "-1" looks like an option to cli_optname. */
		const char *name = key == OPT_IO_TIMEOUT      ? "--io-timeout" :
				   key == OPT_RECONNECT_DELAY ? "--reconnect-delay" :
								"--fast-io-fail-tmo";
		uint64_t lo = key == OPT_FAST_IO_FAIL_TMO ? 0 : 1;
		if (arg[0] == '-')
			return cli_usage_error(err, cmd,
					       "%s: seconds '%s' is out of range (%llu to "
					       "86400)",
					       name, arg, (unsigned long long)lo);
		if (cli_parse_u64(arg, lo, 86400, &port, msg, sizeof(msg)))
			return cli_usage_error(err, cmd, "%s: seconds %s", name, msg);
		if (key == OPT_IO_TIMEOUT)
			c->io_timeout_s = (unsigned)port;
		else if (key == OPT_RECONNECT_DELAY)
			c->reconnect_delay_s = (unsigned)port;
		else {
			c->fast_io_fail_s = (unsigned)port;
			c->fast_io_fail_given = true;
		}
		return 0;
	}
	case OPT_CTRL_LOSS_TMO:
		if (!strcmp(arg, "-1")) {
			c->ctrl_loss_tmo_s = -1;
			return 0;
		}
		if (arg[0] == '-')
			return cli_usage_error(
				err, cmd,
				"--ctrl-loss-tmo: seconds '%s' is out of range (1 to "
				"86400, or -1: for ever)",
				arg);
		if (cli_parse_u64(arg, 1, 86400, &port, msg, sizeof(msg)))
			return cli_usage_error(
				err, cmd, "--ctrl-loss-tmo: seconds %s (or -1: for ever)", msg);
		c->ctrl_loss_tmo_s = (int)port;
		return 0;
	case 'n':
		/* A key pasted in a name's place: never sent, and the message does not show it
		 * (the terminal, a shell history search, a support ticket). */
		if (nvmf_text_has_secret(arg))
			return cli_usage_error(err, cmd,
					       "-n/--nqn: a secret (not shown) is not an NQN; give "
					       "the subsystem's NQN");
		if (strlen(arg) > 223) /* NVMe Base 4.5: NQNs are at most 223 bytes */
			return cli_usage_error(err, cmd,
					       "-n/--nqn: the NQN is longer than 223 bytes");
		c->subnqn = arg;
		return 0;
	case 'q':
		if (nvmf_text_has_secret(arg))
			return cli_usage_error(
				err, cmd,
				"-q/--hostnqn: a secret (not shown) is not an NQN; a "
				"DH-HMAC-CHAP secret goes to -S/--dhchap-secret");
		if (strlen(arg) > 223)
			return cli_usage_error(err, cmd,
					       "-q/--hostnqn: the NQN is longer than 223 bytes");
		c->hostnqn = arg;
		return 0;
	case 'I':
		if (nvme_uuid_parse(arg, c->hostid, msg, sizeof(msg)))
			return cli_usage_error(err, cmd, "-I/--hostid: %s", msg);
		c->have_hostid = true;
		return 0;
	case 'S':
		c->dhchap_secret = arg; /* checked by nvmf_connect, which names the option */
		return 0;
	case 'C':
		c->dhchap_ctrl_secret = arg;
		return 0;
	case 't':
		if (strcmp(arg, "rdma") && strcmp(arg, "tcp"))
			return cli_usage_error(err, cmd,
					       "-t/--transport: '%s' is not a transport "
					       "(rdma or tcp)",
					       arg);
		c->trtype = arg;
		return 0;
	case 'g':
		c->hdr_digest = true;
		return 0;
	case 'G':
		c->data_digest = true;
		return 0;
	case OPT_DISABLE_SQFLOW:
		c->disable_sqflow = true;
		return 0;
	case OPT_TLS:
		c->tls = true;
		return 0;
	case OPT_TLS_KEY:
	case OPT_TLS_KEY_FILE:
		if (c->tls_key)
			return cli_usage_error(err, cmd, "%s: the PSK was given already (%s)",
					       optname, c->tls_key_opt);
		c->tls = true;
		c->tls_key_opt = key == OPT_TLS_KEY ? "--tls-key" : "--tls-key-file";
		if (key == OPT_TLS_KEY) {
			c->tls_key = arg; /* checked by cli_fill_opts */
			return 0;
		}
		if (cli_read_key_file(arg, c->tls_key_buf, sizeof(c->tls_key_buf), msg,
				      sizeof(msg)))
			return cli_usage_error(err, cmd, "--tls-key-file %s: %s", arg, msg);
		/* A PSK others can read is theirs too: refused, as the target refuses it. */
		if (nvmf_secret_file_private(arg, msg, sizeof(msg))) {
			explicit_bzero(c->tls_key_buf, sizeof(c->tls_key_buf));
			return cli_usage_error(err, cmd, "--tls-key-file %s %s", arg, msg);
		}
		c->tls_key = c->tls_key_buf;
		return 0;
	case OPT_TLS_IDENTITY:
		if (cli_parse_u64(arg, 0, 1, &port, msg, sizeof(msg)))
			return cli_usage_error(err, cmd, "--tls-identity: version %s", msg);
		c->tls_identity = (int)port;
		c->tls_identity_given = true;
		return 0;
	case OPT_TLS_COMPAT:
		c->tls_compat = true;
		return 0;
	case 'v':
		c->verbose = true;
		return 0;
	case 'h':
		c->help = true;
		return 0;
	case OPT_JSON:
		c->json = true;
		return 0;
	case ':':
		return cli_usage_error(err, cmd, "option '%s' needs a value", optname);
	case '?':
		return cli_usage_error(err, cmd, "unknown option '%s'", optname);
	default:
		return 1;
	}
}

int cli_check_common(const struct cli_common *c, enum cli_nqn need, const char *cmd, FILE *err)
{
	if (!c->traddr || !*c->traddr)
		return cli_usage_error(err, cmd, "-a/--traddr ADDR is required");
	for (unsigned i = 0; i < c->n_traddrs; i++)
		if (!*c->traddrs[i])
			return cli_usage_error(err, cmd, "-a/--traddr number %u is empty", i + 1);
	if (need != CLI_NQN_OPTIONAL && (!c->subnqn || !*c->subnqn))
		return cli_usage_error(err, cmd, "-n/--nqn SUBNQN is required");
	/* Connecting would only get the discovery controller's INVALID_FIELD for the first
	 * namespace or I/O command, which does not say that the NQN was the mistake. */
	if (need == CLI_NQN_NVM && !strcmp(c->subnqn, NVME_DISC_SUBSYS_NAME))
		return cli_usage_error(err, cmd,
				       "-n/--nqn %s is the discovery subsystem: it has "
				       "no namespaces and no I/O queues; give an NVM subsystem's "
				       "NQN (`nvmf discover` lists them)",
				       NVME_DISC_SUBSYS_NAME);
	if (c->n_traddrs > 1 && !c->multipath_ok)
		return cli_usage_error(err, cmd,
				       "-a/--traddr given %u times: %s takes one path "
				       "(several: read, write, perf, ana-log)",
				       c->n_traddrs, cmd);
	if (c->n_trsvcids > 1 && c->n_trsvcids != c->n_traddrs)
		return cli_usage_error(err, cmd,
				       "-s/--trsvcid given %u times for %u addresses: give "
				       "it once (every path) or once per -a, in the same order",
				       c->n_trsvcids, c->n_traddrs);
	if (c->tls && (!c->trtype || strcmp(c->trtype, "tcp")))
		return cli_usage_error(err, cmd,
				       "%s: TLS is NVMe/TCP's secure channel: give -t tcp",
				       c->tls_key_opt ? c->tls_key_opt : "--tls");
	if (c->tls_identity_given && !c->tls)
		return cli_usage_error(err, cmd,
				       "--tls-identity says which PSK identity the host offers: "
				       "give it with --tls-key-file, --tls-key or --tls");
	if (c->tls_compat && !c->tls)
		return cli_usage_error(err, cmd,
				       "--tls-compat says how the TLS PSK is derived: give it "
				       "with --tls-key-file, --tls-key or --tls");
	if ((c->hdr_digest || c->data_digest) && (!c->trtype || strcmp(c->trtype, "tcp")))
		return cli_usage_error(err, cmd, "%s: digests are NVMe/TCP's: give -t tcp",
				       c->hdr_digest ? "-g/--hdr-digest" : "-G/--data-digest");
	if ((c->reconnect_delay_s || c->fast_io_fail_given) && !c->ctrl_loss_tmo_s)
		return cli_usage_error(
			err, cmd, "%s is for automatic reconnect: give --ctrl-loss-tmo too",
			c->reconnect_delay_s ? "--reconnect-delay" : "--fast-io-fail-tmo");
	if ((c->ctrl_loss_tmo_s || c->fast_io_fail_given) && c->n_traddrs > 1)
		return cli_usage_error(err, cmd,
				       "--ctrl-loss-tmo is for one path: with several -a the "
				       "paths are reconnected by the multipath handle "
				       "(--refresh, --path-timeout)");
	if ((c->refresh_ms || c->path_timeout_ms) && c->n_traddrs < 2)
		return cli_usage_error(err, cmd,
				       "%s is for several paths (-a given more than once)",
				       c->refresh_ms ? "--refresh" : "--path-timeout");
	return 0;
}

const char *cli_path_trsvcid(const struct cli_common *c, unsigned i)
{
	if (c->n_trsvcids > 1 && i < c->n_trsvcids)
		return c->trsvcids[i];
	return c->trsvcid ? c->trsvcid : "4420";
}
