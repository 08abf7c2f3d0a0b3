/* SPDX-License-Identifier: MIT */
/*
 * Connecting from the command line and reporting libnvmf errors in the tool's one-line
 * form "nvmf: <what>: <nvmf_strerror(rc)>: <detail>".
 */
#include <string.h>
#include "initiator/cli/cli.h"
#include "nvme/dhchap.h"

int cli_lib_error(FILE *err, const char *what, int rc, const char *detail)
{
	if (detail && *detail)
		fprintf(err, "nvmf: %s: %s: %s\n", what, nvmf_strerror(rc), detail);
	else
		fprintf(err, "nvmf: %s: %s\n", what, nvmf_strerror(rc));
	return CLI_ERR;
}

void cli_fill_opts(const struct cli_common *c, const struct cli_env *env,
		   struct nvmf_ctrl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->traddr = c->traddr;
	o->trsvcid = c->trsvcid;
	o->subnqn = c->subnqn;
	o->hostnqn = c->hostnqn ? c->hostnqn : env->hostnqn;
	o->hostid = c->have_hostid ? c->hostid : NULL;
	o->dhchap_secret = c->dhchap_secret ? c->dhchap_secret : env->dhchap_secret;
	o->dhchap_ctrl_secret = c->dhchap_ctrl_secret ? c->dhchap_ctrl_secret :
				env->dhchap_ctrl_secret;
	o->transport = env->transport;
}

int cli_connect(const struct cli_common *c, const struct cli_env *env, unsigned nr_io_queues,
		unsigned queue_size, struct nvmf_ctrl **out)
{
	struct nvmf_ctrl_opts o;
	cli_fill_opts(c, env, &o);
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
		if (ai.authenticated)
			fprintf(env->err, "authenticated (DH-HMAC-CHAP %s %s, %s)\n",
				nvme_dhchap_hash_name(ai.hash_id),
				nvme_dhchap_dhgroup_name(ai.dhgroup_id),
				ai.bidirectional ? "bidirectional" : "unidirectional");
		else
			fprintf(env->err, "not authenticated (the controller did not ask)\n");
	}
	return CLI_OK;
}
