/* SPDX-License-Identifier: MIT */
/*
 * A configuration written back as JSON in nvmetcli's layout plus our nvmf_* keys (the
 * inverse of config.c), so that the target's running configuration can be saved and
 * loaded again, and nvmetcli can read what it knows of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvme/identify.h"
#include "nvme/wire.h"
#include "subsystem/config.h"
#include "subsystem/config_ana.h"
#include "subsystem/config_json.h"
#include "util/atomic-file.h"

static json_t *nqn_list(char *const *list, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(list[i]));
	return a;
}

/* nvmetcli writes numbers in attr and param as strings: so do we. */
static json_t *num_string(long long v)
{
	char b[24];
	snprintf(b, sizeof(b), "%lld", v);
	return json_string(b);
}

static json_t *ns_to_json(const struct nvmf_ns_config *ns)
{
	char id[NVME_UUID_STR_LEN], eui[NVME_EUI64_STR_LEN];
	json_t *dev = json_object(), *j = json_object();
	if (!dev || !j) {
		json_decref(dev);
		json_decref(j);
		return NULL;
	}
	if (ns->path)
		json_object_set_new(dev, "path", json_string(ns->path));
	if (ns->has_uuid)
		json_object_set_new(dev, "uuid", json_string(nvme_uuid_format(ns->uuid, id)));
	if (ns->has_nguid)
		json_object_set_new(dev, "nguid", json_string(nvme_uuid_format(ns->nguid, id)));
	json_object_set_new(j, "nsid", json_integer(ns->nsid));
	json_object_set_new(j, "enable", json_integer(ns->enable));
	json_object_set_new(j, "device", dev);
	if (ns->kind != NVMF_BACKEND_AUTO)
		json_object_set_new(j, "nvmf_backend",
				    json_string(nvmf_backend_kind_name(ns->kind)));
	if (ns->size_bytes)
		json_object_set_new(j, "nvmf_size_bytes", json_integer((json_int_t)ns->size_bytes));
	if (ns->block_size)
		json_object_set_new(j, "nvmf_block_size", json_integer(ns->block_size));
	if (ns->create)
		json_object_set_new(j, "nvmf_create", json_true());
	if (ns->buffered)
		json_object_set_new(j, "nvmf_buffered", json_true());
	if (ns->has_eui64)
		json_object_set_new(j, "nvmf_eui64",
				    json_string(nvme_eui64_format(ns->eui64, eui)));
	if (ns->kind == NVMF_BACKEND_RBD) {
		const struct nvmf_rbd_config *r = &ns->rbd;
		json_object_set_new(j, "nvmf_rbd_pool", json_string(r->pool));
		json_object_set_new(j, "nvmf_rbd_image", json_string(r->image));
		if (r->rados_ns[0])
			json_object_set_new(j, "nvmf_rbd_namespace", json_string(r->rados_ns));
		if (r->conf[0])
			json_object_set_new(j, "nvmf_rbd_conf", json_string(r->conf));
		if (r->keyring[0])
			json_object_set_new(j, "nvmf_rbd_keyring", json_string(r->keyring));
		if (r->client_id[0])
			json_object_set_new(j, "nvmf_rbd_client_id", json_string(r->client_id));
	}
	if (cfg_ns_ana_json(ns, j)) {
		json_decref(j);
		return NULL;
	}
	/* nvmetcli's group, as it writes it: always, the flag as a string. */
	json_object_set_new(j, "resv", json_pack("{s:s}", "enable", ns->resv_enable ? "1" : "0"));
	return j;
}

/* The passthru group as nvmetcli writes it (numbers), or NULL when it holds nothing but
 * defaults (enable 0, no path, clear_ids 1, timeouts 0): not written then. */
static json_t *passthru_to_json(const struct nvmf_passthru_config *p)
{
	if (!p->enable && !p->device_path[0] && p->clear_ids && !p->admin_timeout && !p->io_timeout)
		return NULL;
	return json_pack("[{s:I, s:I, s:{s:s}, s:I, s:I}]", "admin_timeout",
			 (json_int_t)p->admin_timeout, "clear_ids", (json_int_t)p->clear_ids,
			 "device", "path", p->device_path, "enable", (json_int_t)p->enable,
			 "io_timeout", (json_int_t)p->io_timeout);
}

static json_t *subsys_to_json(const struct nvmf_subsys_config *s)
{
	char ver[16];
	json_t *attr = json_object(), *nss = json_array();
	json_object_set_new(attr, "allow_any_host", json_string(s->allow_any_host ? "1" : "0"));
	if (s->serial[0])
		json_object_set_new(attr, "serial", json_string(s->serial));
	if (s->model[0])
		json_object_set_new(attr, "model", json_string(s->model));
	if (s->firmware[0])
		json_object_set_new(attr, "firmware", json_string(s->firmware));
	if (s->version)
		json_object_set_new(attr, "version",
				    json_string(nvme_version_format(s->version, ver, sizeof(ver))));
	json_object_set_new(attr, "cntlid_min", num_string(s->cntlid_min));
	json_object_set_new(attr, "cntlid_max", num_string(s->cntlid_max));
	if (s->qid_max)
		json_object_set_new(attr, "qid_max", num_string(s->qid_max));
	for (size_t i = 0; i < s->n_ns; i++)
		json_array_append_new(nss, ns_to_json(&s->ns[i]));
	json_t *j = json_pack("{s:s, s:o, s:o, s:o}", "nqn", s->nqn, "allowed_hosts",
			      nqn_list(s->allowed_hosts, s->n_allowed_hosts), "attr", attr,
			      "namespaces", nss);
	json_t *pt = passthru_to_json(&s->passthru);
	if (j && pt)
		json_object_set_new(j, "passthru", pt);
	else
		json_decref(pt);
	return j;
}

static json_t *port_to_json(const struct nvmf_port_config *p)
{
	static const char *const treqs[] = { "not specified", "required", "not required" };
	json_t *param = json_object();
	/* UINT32_MAX and 0 are "the default" in our structure; -1 says so in the file. */
	long long in = p->inline_data_size == UINT32_MAX ? -1 : (long long)p->inline_data_size;
	long long mqs = p->max_queue_size == UINT32_MAX || !p->max_queue_size ?
				-1 :
				(long long)p->max_queue_size;
	json_object_set_new(param, "inline_data_size", num_string(in));
	json_object_set_new(param, "max_queue_size", num_string(mqs));
	if (p->mdts)
		json_object_set_new(param, "mdts", num_string(p->mdts));
	if (p->maxh2cdata)
		json_object_set_new(param, "nvmf_maxh2cdata", num_string(p->maxh2cdata));
	if (p->zerocopy_threshold != NVMF_DEFAULT_ZEROCOPY)
		json_object_set_new(param, "nvmf_zerocopy_threshold",
				    num_string(p->zerocopy_threshold));
	json_t *j = json_pack("{s:I, s:{s:s, s:s, s:s, s:s, s:s}, s:o, s:o, s:o, s:o}", "portid",
			      (json_int_t)p->portid, "addr", "adrfam",
			      p->adrfam == AF_INET6 ? "ipv6" : "ipv4", "traddr", p->traddr, "treq",
			      treqs[p->treq < 3 ? p->treq : 0], "trsvcid",
			      p->trsvcid[0] ? p->trsvcid : "4420", "trtype", p->trtype, "param",
			      param, "referrals", cfg_referrals_to_json(p), "subsystems",
			      nqn_list(p->subsystems, p->n_subsystems), "ana_groups",
			      cfg_port_ana_json(p));
	/* Written only when on, as nvmetcli on a kernel without TLS writes none. */
	if (j && p->tsas == NVMF_TCP_SECTYPE_TLS13)
		json_object_set_new(json_object_get(j, "addr"), "tsas", json_string("tls1.3"));
	return j;
}

/* Whether @cfg holds a TLS PSK inline (one from a file is saved as its path). */
static bool secret_keys(const struct nvmf_config *cfg)
{
	for (size_t i = 0; i < cfg->n_tls_keys; i++)
		if (!cfg->tls_keys[i].key_file)
			return true;
	return false;
}

json_t *nvmf_config_to_json(const struct nvmf_config *cfg)
{
	const struct nvmf_target_config *t = &cfg->target;
	json_t *hosts = json_array(), *ports = json_array(), *subs = json_array();
	for (size_t i = 0; i < cfg->n_hosts; i++) {
		json_t *h = json_pack("{s:s}", "nqn", cfg->hosts[i]);
		for (size_t k = 0; h && k < cfg->n_dhchap; k++) {
			const struct nvmf_dhchap_config *d = &cfg->dhchap[k];
			if (strcmp(d->hostnqn, cfg->hosts[i]))
				continue;
			/* nvmetcli's layout, defaults written out as the kernel shows them */
			json_object_set_new(h, "dhchap",
					    json_pack("{s:s, s:s, s:s, s:s}", "key", d->key,
						      "ctrl_key", d->ctrl_key ? d->ctrl_key : "",
						      "hash", d->hash ? d->hash : "hmac(sha256)",
						      "dhgroup", d->dhgroup ? d->dhgroup : "null"));
		}
		const struct nvmf_tls_key_config *k = nvmf_config_tls_key(cfg, cfg->hosts[i]);
		if (h && k)
			json_object_set_new(h, k->key_file ? "nvmf_tls_key_file" : "nvmf_tls_key",
					    json_string(k->key_file ? k->key_file : k->key));
		if (h && k && k->compat) /* written only when on: the default is RFC 8446 */
			json_object_set_new(h, "nvmf_tls_key_compat", json_true());
		json_array_append_new(hosts, h);
	}
	for (size_t i = 0; i < cfg->n_ports; i++)
		json_array_append_new(ports, port_to_json(&cfg->ports[i]));
	for (size_t i = 0; i < cfg->n_subsystems; i++)
		json_array_append_new(subs, subsys_to_json(&cfg->subsystems[i]));
	json_t *nt = json_pack("{s:I, s:I, s:I, s:I, s:b, s:I, s:b, s:I, s:I}", "mdts",
			       (json_int_t)t->mdts, "threads", (json_int_t)t->threads,
			       "buffers_small", (json_int_t)t->buffers_small, "buffers_large",
			       (json_int_t)t->buffers_large, "hugepages", t->hugepages,
			       "idle_poll_us", (json_int_t)t->idle_poll_us, "srq", t->srq,
			       "srq_depth", (json_int_t)t->srq_depth, "numa_node",
			       (json_int_t)t->numa_node);
	if (nt) {
		json_object_set_new(nt, "discovery_log",
				    json_string(nvmf_disc_log_mode_name(t->discovery_log)));
		json_object_set_new(nt, "discovery_kato", json_integer(t->discovery_kato));
		json_object_set_new(nt, "post_thread",
				    json_string(nvmf_post_thread_name(t->post_thread)));
	}
	if (nt && t->rpc_socket_set)
		json_object_set_new(nt, "rpc_socket", json_string(t->rpc_socket));
	if (nt && !t->persist)
		json_object_set_new(nt, "persist", json_false());
	if (nt && t->resv_state_set)
		json_object_set_new(nt, "resv_state", json_string(t->resv_state));
	json_t *levels = cfg_log_level_json(t);
	if (nt && levels)
		json_object_set_new(nt, "log_level", levels);
	else
		json_decref(levels);
	json_t *root = json_pack("{s:o, s:o, s:o, s:o}", "hosts", hosts, "ports", ports,
				 "subsystems", subs, "nvmf_target", nt);
	struct nvmf_target_config def;
	nvmf_config_target_defaults(&def);
	if (root && cfg->gateway.enable)
		json_object_set_new(root, "nvmf_gateway", cfg_gateway_json(&cfg->gateway));
	if (root && strcmp(t->discovery_nqn, def.discovery_nqn))
		json_object_set_new(root, "discovery", json_pack("{s:s}", "nqn", t->discovery_nqn));
	return root;
}

/* The document may hold secrets: zeroed before it is freed. */
static void free_text(char *text)
{
	explicit_bzero(text, strlen(text));
	free(text);
}

int nvmf_config_save(const struct nvmf_config *cfg, const char *path, char *err, size_t errlen)
{
	json_t *root = nvmf_config_to_json(cfg);
	char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(root);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct stat st;
	size_t plen = strlen(path);
	if (!plen || path[plen - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "%s: is a directory (give the file's name)", path);
		free_text(text);
		return -EISDIR;
	}
	/* A file saved over keeps its permission bits (an operator's 0600 must not become
	 * 0644 at a live change's write-back); secrets (DH-HMAC-CHAP, inline TLS PSKs) are
	 * for root's eyes only, whatever the file had (nvmetcli writes 0600 too). */
	mode_t mode = stat(path, &st) == 0 ? st.st_mode & 0666 : 0644;
	if (cfg->n_dhchap || secret_keys(cfg))
		mode &= 0600;
	struct iovec iov[2] = { { .iov_base = text, .iov_len = strlen(text) },
				{ .iov_base = (void *)(uintptr_t) "\n", .iov_len = 1 } };
	int e = nvmf_atomic_write(path, iov, 2, mode, err, errlen);
	free_text(text);
	return e;
}
