/* SPDX-License-Identifier: MIT */
/*
 * What read, write and perf connect to: one controller (one -a), or a libnvmf multipath
 * handle over one path per -a (nvmf_mpath_connect), behind the same few calls, so those
 * subcommands move data the same way over one path or several.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "app/nvmf/cli.h"

/* "ADDR:PORT, ADDR:PORT ..." of every path, for messages. */
static void paths_text(const struct cli_common *c, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < c->n_traddrs && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s:%s", i ? ", " : "",
					c->traddrs[i], cli_path_trsvcid(c, i));
}

int cli_conn_open(const struct cli_common *c, const struct cli_env *env, const char *cmd,
		  unsigned nr_io_queues, unsigned queue_size, struct cli_conn *k)
{
	memset(k, 0, sizeof(*k));
	if (c->n_traddrs <= 1) {
		int rc = cli_connect(c, env, cmd, nr_io_queues, queue_size, &k->ctrl);
		/* The well-known discovery NQN was refused before connecting (cli_check_common);
		 * this is a discovery controller with its own NQN (TP 8013), known only now:
		 * libnvmf connects no I/O queue to one, and only to one. */
		if (!rc && !nvmf_ctrl_nr_io_queues(k->ctrl)) {
			cli_conn_close(k);
			return cli_usage_error(env->err, cmd,
					       "%s is a discovery controller: it has "
					       "no namespaces and no I/O queues",
					       c->subnqn);
		}
		return rc;
	}
	struct nvmf_ctrl_opts o[NVMF_MPATH_MAX_PATHS];
	for (unsigned i = 0; i < c->n_traddrs; i++) {
		if (cli_fill_opts(c, env, cmd, false, &o[i]))
			return CLI_USAGE;
		o[i].traddr = c->traddrs[i];
		o[i].trsvcid = cli_path_trsvcid(c, i);
		o[i].nr_io_queues = nr_io_queues;
		o[i].queue_size = queue_size;
	}
	struct nvmf_mpath_opts mo = { .refresh_ms = c->refresh_ms,
				      .no_path_timeout_ms = c->path_timeout_ms };
	int rc = nvmf_mpath_connect(o, c->n_traddrs, &mo, &k->mp);
	if (rc) {
		char paths[512], what[800];
		paths_text(c, paths, sizeof(paths));
		snprintf(what, sizeof(what), "connect to %s (%s)", paths, c->subnqn);
		k->mp = NULL;
		return cli_lib_error(env->err, what, rc, nvmf_last_errmsg());
	}
	if (c->verbose) {
		for (unsigned i = 0; i < c->n_traddrs; i++) {
			struct nvmf_mpath_path_info pi;
			nvmf_mpath_path_info(k->mp, i, &pi);
			fprintf(env->err,
				"nvmf: path %u: connected to %s:%s (%s): cntlid %u, ANA %s\n", i,
				pi.traddr, pi.trsvcid, c->subnqn, pi.cntlid,
				pi.ana ? "reported" : "not reported (every path optimized)");
		}
		fprintf(env->err, "nvmf: multipath over %u paths, %u queue(s) of %u commands\n",
			nvmf_mpath_nr_paths(k->mp), nvmf_mpath_nr_queues(k->mp),
			nvmf_mpath_queue_depth(k->mp));
	}
	return CLI_OK;
}

void cli_conn_close(struct cli_conn *k)
{
	if (k->mp)
		nvmf_mpath_disconnect(k->mp);
	if (k->ctrl)
		nvmf_disconnect(k->ctrl);
	k->mp = NULL;
	k->ctrl = NULL;
}

const char *cli_conn_errmsg(const struct cli_conn *k)
{
	return k->mp ? nvmf_mpath_errmsg(k->mp) : nvmf_ctrl_errmsg(k->ctrl);
}

int cli_conn_ns_info(struct cli_conn *k, uint32_t nsid, struct nvmf_ns_info *out)
{
	return k->mp ? nvmf_mpath_ns_info(k->mp, nsid, out) : nvmf_ns_info(k->ctrl, nsid, out);
}

int cli_conn_read(struct cli_conn *k, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf)
{
	return k->mp ? nvmf_mpath_read(k->mp, nsid, slba, nlb, buf) :
		       nvmf_read(k->ctrl, nsid, slba, nlb, buf);
}

int cli_conn_write(struct cli_conn *k, uint32_t nsid, uint64_t slba, uint32_t nlb, const void *buf)
{
	return k->mp ? nvmf_mpath_write(k->mp, nsid, slba, nlb, buf) :
		       nvmf_write(k->ctrl, nsid, slba, nlb, buf);
}

int cli_conn_mem_register(struct cli_conn *k, void *addr, size_t len)
{
	return k->mp ? nvmf_mpath_mem_register(k->mp, addr, len) :
		       nvmf_mem_register(k->ctrl, addr, len);
}

void cli_conn_mem_unregister(struct cli_conn *k, void *addr)
{
	if (k->mp)
		nvmf_mpath_mem_unregister(k->mp, addr);
	else
		nvmf_mem_unregister(k->ctrl, addr);
}

unsigned cli_conn_nr_queues(const struct cli_conn *k)
{
	return k->mp ? nvmf_mpath_nr_queues(k->mp) : nvmf_ctrl_nr_io_queues(k->ctrl);
}

unsigned cli_conn_depth(const struct cli_conn *k)
{
	return k->mp ? nvmf_mpath_queue_depth(k->mp) : nvmf_ctrl_queue_size(k->ctrl) - 1;
}

void cli_conn_print_paths(const struct cli_conn *k, FILE *f)
{
	for (unsigned i = 0; k->mp && i < nvmf_mpath_nr_paths(k->mp); i++) {
		struct nvmf_mpath_path_info pi;
		if (nvmf_mpath_path_info(k->mp, i, &pi))
			continue;
		fprintf(f, "  path %u %s:%s: %s, %lu ios, %lu failed over, %lu reconnects%s%s\n", i,
			pi.traddr, pi.trsvcid, pi.live ? "live" : "down", pi.ios, pi.path_errors,
			pi.reconnects, pi.live || !pi.errmsg[0] ? "" : ": ",
			pi.live ? "" : pi.errmsg);
	}
}

json_t *cli_conn_paths_json(const struct cli_conn *k)
{
	json_t *a = json_array();
	for (unsigned i = 0; k->mp && i < nvmf_mpath_nr_paths(k->mp); i++) {
		struct nvmf_mpath_path_info pi;
		if (nvmf_mpath_path_info(k->mp, i, &pi))
			continue;
		json_t *p = json_object();
		json_object_set_new(p, "traddr", json_string(pi.traddr));
		json_object_set_new(p, "trsvcid", json_string(pi.trsvcid));
		json_object_set_new(p, "live", json_boolean(pi.live));
		json_object_set_new(p, "ios", cli_json_uint(pi.ios));
		json_object_set_new(p, "failed_over", cli_json_uint(pi.path_errors));
		json_object_set_new(p, "reconnects", cli_json_uint(pi.reconnects));
		json_object_set_new(p, "error", json_string(pi.errmsg));
		json_array_append_new(a, p);
	}
	return a;
}
