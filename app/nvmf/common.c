/* SPDX-License-Identifier: MIT */
/*
 * Connecting from the command line and reporting libnvmf errors in the tool's one-line
 * form "nvmf: <what>: <nvmf_strerror(rc)>: <detail>" (the error said once, when the
 * detail names it too).
 */
#include <errno.h>
#include <string.h>
#include "app/nvmf/cli.h"
#include "nvme/dhchap.h"
#include "nvme/tls-psk.h"

static int lib_error(FILE *err, const char *what, int rc, const char *why, const char *detail);

int cli_lib_error(FILE *err, const char *what, int rc, const char *detail)
{
	/* libnvmf's -ECONNRESET means "the queue's connection is gone", however it went (the
	 * detail says how): strerror's "Connection reset by peer" would contradict a
	 * detail of "connection closed by the controller". */
	return lib_error(err, what, rc, rc == -ECONNRESET ? "connection lost" : nvmf_strerror(rc),
			 detail);
}

int cli_io_error(FILE *err, const char *what, int rc, const char *detail)
{
	return lib_error(err, what, rc,
			 rc == -ECONNRESET ? "connection lost" : nvmf_io_strerror(rc), detail);
}

static int lib_error(FILE *err, const char *what, int rc, const char *why, const char *detail)
{
	/* Only RDMA says ENODEV (no RDMA device, or none routes to the address): the first
	 * thing a user of a machine without RDMA meets when they forget -t tcp. */
	const char *hint = rc == -ENODEV ? "; for NVMe/TCP use -t tcp" : "";
	/* The library's detail may name the error again, mid-sentence ("Connect of queue 0
	 * ...: CONNECT_INVALID_HOST (...): the controller rejects the host NQN"): said once,
	 * first. */
	char again[160];
	snprintf(again, sizeof(again), ": %s:", why);
	const char *dup = detail ? strstr(detail, again) : NULL;
	if (dup)
		fprintf(err, "nvmf: %s: %s: %.*s%s%s\n", what, why, (int)(dup - detail), detail,
			dup + strlen(again) - 1, hint);
	else if (detail && *detail)
		fprintf(err, "nvmf: %s: %s: %s%s\n", what, why, detail, hint);
	else
		fprintf(err, "nvmf: %s: %s%s\n", what, why, hint);
	return CLI_ERR;
}

/* A secret from option @opt (@given) or else environment variable @var (@from_env):
 * NULL when neither, else the value once it parses. CLI_USAGE after a message. */
static int pick_secret(const char *given, const char *opt, const char *from_env, const char *var,
		       const char *cmd, FILE *err, const char **out)
{
	char why[160];
	struct nvme_dhchap_key *k = NULL;
	const char *s = given ? given : from_env;
	const char *where = given ? opt : var;
	*out = NULL;
	if (!s)
		return CLI_OK;
	if (!*s)
		return cli_usage_error(err, cmd, "%s is empty (no secret: leave it out)", where);
	if (nvme_dhchap_key_parse(s, &k, why, sizeof(why)))
		return cli_usage_error(err, cmd, "%s: %s", where, why);
	nvme_dhchap_key_free(k);
	*out = s;
	return CLI_OK;
}

int cli_fill_opts(const struct cli_common *c, const struct cli_env *env, const char *cmd,
		  bool discovery, struct nvmf_ctrl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->traddr = c->traddr;
	o->trsvcid = c->trsvcid;
	o->subnqn = c->subnqn;
	o->hostnqn = c->hostnqn ? c->hostnqn : env->hostnqn;
	o->hostid = c->have_hostid ? c->hostid : NULL;
	o->transport = env->transport;
	o->trtype = c->trtype;
	o->hdr_digest = c->hdr_digest;
	o->data_digest = c->data_digest;
	o->disable_sqflow = c->disable_sqflow;
	o->io_timeout_ms = (int)c->io_timeout_s * 1000;
	o->ctrl_loss_tmo_ms = c->ctrl_loss_tmo_s < 0 ? -1 : c->ctrl_loss_tmo_s * 1000;
	o->reconnect_delay_ms = c->reconnect_delay_s * 1000;
	if (c->fast_io_fail_given) /* the library's 1 ms is "at once" (its 0 is the default) */
		o->fast_io_fail_tmo_ms = c->fast_io_fail_s ? (int)c->fast_io_fail_s * 1000 : 1;
	const char *ckey_env = discovery ? NULL : env->dhchap_ctrl_secret;
	if (pick_secret(c->dhchap_secret, "-S/--dhchap-secret", env->dhchap_secret,
			"$NVMF_DHCHAP_SECRET", cmd, env->err, &o->dhchap_secret) ||
	    pick_secret(c->dhchap_ctrl_secret, "-C/--dhchap-ctrl-secret", ckey_env,
			"$NVMF_DHCHAP_CTRL_SECRET", cmd, env->err, &o->dhchap_ctrl_secret))
		return CLI_USAGE;
	if (c->tls) {
		const char *where = c->tls_key ? c->tls_key_opt : "$NVMF_TLS_KEY";
		const char *key = c->tls_key ? c->tls_key : env->tls_key;
		char why[160];
		struct nvme_tls_psk psk;
		if (!key)
			return cli_usage_error(
				env->err, cmd,
				"--tls needs the PSK: --tls-key-file FILE, --tls-key KEY "
				"or $NVMF_TLS_KEY (\"NVMeTLSkey-1:01:...:\", from `nvme "
				"gen-tls-key`)");
		int rc = nvme_tls_psk_parse(key, &psk, why, sizeof(why));
		explicit_bzero(&psk, sizeof(psk));
		if (rc)
			return cli_usage_error(env->err, cmd, "%s: %s", where, why);
		o->tls_key = key;
		o->tls_identity = c->tls_identity;
		o->tls_compat = c->tls_compat;
	}
	if (o->dhchap_ctrl_secret && !o->dhchap_secret)
		return cli_usage_error(env->err, cmd,
				       "a controller secret (%s) needs a host secret "
				       "(-S/--dhchap-secret or $NVMF_DHCHAP_SECRET): bidirectional "
				       "authentication also authenticates the host",
				       c->dhchap_ctrl_secret ? "-C/--dhchap-ctrl-secret" :
							       "$NVMF_DHCHAP_CTRL_SECRET");
	return CLI_OK;
}

int cli_connect(const struct cli_common *c, const struct cli_env *env, const char *cmd,
		unsigned nr_io_queues, unsigned queue_size, struct nvmf_ctrl **out)
{
	struct nvmf_ctrl_opts o;
	*out = NULL;
	if (cli_fill_opts(c, env, cmd, false, &o))
		return CLI_USAGE;
	o.nr_io_queues = nr_io_queues;
	o.queue_size = queue_size;
	int rc = nvmf_connect(&o, out);
	if (rc) {
		char what[600];
		snprintf(what, sizeof(what), "connect to %s:%s (%s)", c->traddr,
			 c->trsvcid ? c->trsvcid : "4420",
			 c->subnqn ? c->subnqn : NVME_DISC_SUBSYS_NAME);
		*out = NULL;
		return cli_lib_error(env->err, what, rc, nvmf_last_errmsg());
	}
	if (c->verbose) {
		struct nvmf_auth_info ai;
		nvmf_ctrl_auth_info(*out, &ai);
		fprintf(env->err, "nvmf: connected to %s:%s (%s): cntlid %u, %u I/O queue(s), ",
			c->traddr, c->trsvcid ? c->trsvcid : "4420",
			c->subnqn ? c->subnqn : NVME_DISC_SUBSYS_NAME, nvmf_ctrl_cntlid(*out),
			nvmf_ctrl_nr_io_queues(*out));
		/* A TLS connection is the PSK's proof of the host: say so before the in-band
		 * authentication's state (nvmf_connect fails when the handshake does). */
		if (c->tls)
			fprintf(env->err, "TLS 1.3 (PSK, version %d identity%s), ", c->tls_identity,
				c->tls_compat ? ", compat layout" : "");
		if (ai.authenticated)
			fprintf(env->err, "authenticated (DH-HMAC-CHAP %s %s, %s)\n",
				nvme_dhchap_hash_name(ai.hash_id),
				nvme_dhchap_dhgroup_name(ai.dhgroup_id),
				ai.bidirectional ? "bidirectional" : "unidirectional");
		else
			fprintf(env->err, "%s (the controller did not ask)\n",
				c->tls ? "no in-band authentication" : "not authenticated");
	}
	return CLI_OK;
}
