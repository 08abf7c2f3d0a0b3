/* SPDX-License-Identifier: MIT */
/*
 * JSON configuration loader (see subsystem/config.h and docs/configuration.md).
 *
 * nvmetcli writes every configfs attribute as a JSON string ("1", "4420", "-1"), and
 * empty strings for unused address fields, so numeric nvmetcli attributes accept a
 * string of digits or a JSON integer, and "" means "default". ANA groups and states
 * (ports[].ana_groups, namespaces' ana_grpid) are read by config_ana.c, referrals and
 * the discovery keys by config_discovery.c. Every object's keys are checked
 * (cfg_check_keys): a key the loader does not know stops the load by its path, with the
 * known key nearest to it, so nothing written in a file passes unread. The few keys
 * nvmetcli writes that this target does not use (attr.ieee_oui, ...) are listed with
 * each object, and a value other than their default gives a note the start and reload
 * log. Settings whose loss would change who may connect or how (treq "required", tsas
 * "tls1.3") stop the load with a message naming the key. Our own keys start with "nvmf_".
 *
 * Every error is one line "<JSON path>: <what is wrong>". The loader never opens or
 * stats a backing file: the backend checks those when the target starts.
 */
#include "subsystem/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "nvme/dhchap.h"
#include "nvme/identify.h"
#include "nvme/wire.h"
#include "nvme/tls-psk.h"
#include "subsystem/config_ana.h"
#include "subsystem/config_json.h"
#include "util/addr.h"
#include "util/choice.h"
#include "util/read-file.h"
#include "util/size.h"

#define CFG_MAX_NSID      1024 /* = NVMF_MAX_NSID (target/core.h) */
#define CFG_DISCOVERY_NQN "nqn.2014-08.org.nvmexpress.discovery"

/* nvmf_backend's values; passthru is no namespace's (a drive's namespaces are its own). */
static const char *const backend_names[NVMF_BACKEND_RBD + 1] = {
	[NVMF_BACKEND_AUTO] = "auto", [NVMF_BACKEND_FILE] = "file", [NVMF_BACKEND_BDEV] = "bdev",
	[NVMF_BACKEND_NVME] = "nvme", [NVMF_BACKEND_RAM] = "ram",   [NVMF_BACKEND_NULL] = "null",
	[NVMF_BACKEND_RBD] = "rbd",
};

/* The rbd namespace keys (docs/ceph.md). */
static const char *const rbd_keys[] = { "nvmf_rbd_pool",
					"nvmf_rbd_image",
					"nvmf_rbd_namespace",
					"nvmf_rbd_conf",
					"nvmf_rbd_keyring",
					"nvmf_rbd_client_id",
					NULL };

/* A Ceph name (pool, image, RADOS namespace, client id) @key into @dst (@max bytes with
 * its NUL): printable ASCII without '/' or '@' (rbd's pool/namespace/image@snap
 * separators). Absent: @dst untouched. 0 or -1. */
static int get_ceph_name(struct cfg_ctx *c, json_t *j, const char *base, const char *key, char *dst,
			 size_t max)
{
	const char *v;
	char b[80];
	if (cfg_get_str(c, j, base, key, false, &v))
		return -1;
	if (!v)
		return 0;
	if (!*v)
		return cfg_fail(c, base, key, "is empty");
	if (strlen(v) >= max)
		return cfg_fail(c, base, key, "%s is longer than %zu characters",
				cfg_quote(v, b, sizeof(b)), max - 1);
	for (const char *p = v; *p; p++)
		if (*p <= 0x20 || *p > 0x7e || *p == '/' || *p == '@')
			return cfg_fail(c, base, key,
					"%s is not a Ceph name (printable ASCII without spaces, "
					"'/' or '@')",
					cfg_quote(v, b, sizeof(b)));
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

/* The rbd keys of namespace @j: on an rbd namespace, its image (pool and image
 * required) and nothing of a file's; on any other, none of them. */
static int parse_ns_rbd(struct cfg_ctx *c, json_t *j, const char *base, const char *dbase,
			struct nvmf_ns_config *ns)
{
	if (ns->kind != NVMF_BACKEND_RBD) {
		for (const char *const *k = rbd_keys; *k; k++)
			if (json_object_get(j, *k))
				return cfg_fail(c, base, *k,
						"only an \"rbd\" namespace has it (nvmf_backend "
						"is \"%s\")",
						backend_names[ns->kind]);
		return 0;
	}
	struct nvmf_rbd_config *r = &ns->rbd;
	if (ns->path)
		return cfg_fail(c, dbase, "path",
				"an \"rbd\" namespace has no device path (its image is "
				"nvmf_rbd_pool and nvmf_rbd_image)");
	static const char *const file_keys[] = { "nvmf_size_bytes", "nvmf_buffered", "nvmf_create",
						 NULL };
	for (const char *const *k = file_keys; *k; k++)
		if (json_object_get(j, *k))
			return cfg_fail(c, base, *k,
					"an \"rbd\" namespace has no file: its size is the "
					"image's (rbd resize changes it)");
	if (ns->resv_enable)
		return cfg_fail(c, base, "resv",
				"reservations cannot be enabled on an \"rbd\" namespace: "
				"reservations are per-gateway state, and are not shared with the "
				"other gateways serving the same image, so a host fenced off here "
				"could still write through another gateway");
	if (cfg_get_str(c, j, base, "nvmf_rbd_pool", true, &(const char *){ NULL }) ||
	    cfg_get_str(c, j, base, "nvmf_rbd_image", true, &(const char *){ NULL }) ||
	    get_ceph_name(c, j, base, "nvmf_rbd_pool", r->pool, sizeof(r->pool)) ||
	    get_ceph_name(c, j, base, "nvmf_rbd_image", r->image, sizeof(r->image)) ||
	    get_ceph_name(c, j, base, "nvmf_rbd_namespace", r->rados_ns, sizeof(r->rados_ns)) ||
	    get_ceph_name(c, j, base, "nvmf_rbd_client_id", r->client_id, sizeof(r->client_id)) ||
	    cfg_get_abs_path(c, j, base, "nvmf_rbd_conf", false, r->conf, sizeof(r->conf)) ||
	    cfg_get_abs_path(c, j, base, "nvmf_rbd_keyring", false, r->keyring, sizeof(r->keyring)))
		return -1;
	/* librbd would connect as client.client.ID and fail with "authentication failed" */
	if (!strncmp(r->client_id, "client.", 7))
		return cfg_fail(c, base, "nvmf_rbd_client_id",
				"\"%s\" is not a Ceph user ID: give it without "
				"\"client.\" (\"%s\")",
				r->client_id, r->client_id + 7);
	if (!r->conf[0])
		snprintf(r->conf, sizeof(r->conf), "%s", NVMF_RBD_DEFAULT_CONF);
	if (!r->client_id[0])
		snprintf(r->client_id, sizeof(r->client_id), "%s", NVMF_RBD_DEFAULT_CLIENT);
	return 0;
}

/* device.{path,uuid,nguid} of one namespace. */
static int parse_device(struct cfg_ctx *c, json_t *dev, const char *base, struct nvmf_ns_config *ns)
{
	static const char *const known[] = { "path", "uuid", "nguid", NULL };
	const char *path, *uuid, *nguid;
	char b[80];

	if (cfg_check_keys(c, dev, base, known, NULL) ||
	    cfg_get_str(c, dev, base, "path", false, &path) ||
	    cfg_get_str(c, dev, base, "uuid", false, &uuid) ||
	    cfg_get_str(c, dev, base, "nguid", false, &nguid))
		return -1;
	if (uuid && *uuid) {
		if (nvme_uuid_parse(uuid, ns->uuid, NULL, 0))
			return cfg_fail(c, base, "uuid",
					"%s is not a UUID (8-4-4-4-12 or 32 hex digits)",
					cfg_quote(uuid, b, sizeof(b)));
		ns->has_uuid =
			!cfg_all_zero(ns->uuid, 16); /* all zeroes = none (nvmetcli's default) */
	}
	if (nguid && *nguid) {
		if (nvme_nguid_parse(nguid, ns->nguid, NULL, 0))
			return cfg_fail(c, base, "nguid",
					"%s is not an NGUID (32 hex digits, or "
					"8-4-4-4-12 like a UUID)",
					cfg_quote(nguid, b, sizeof(b)));
		ns->has_nguid = !cfg_all_zero(ns->nguid, 16);
	}
	if (path && *path) {
		if (path[0] != '/')
			return cfg_fail(c, base, "path", "%s is not an absolute path",
					cfg_quote(path, b, sizeof(b)));
		if (!(ns->path = strdup(path)))
			return cfg_fail(c, base, "path", "out of memory");
	}
	return 0;
}

static const struct cfg_irule nsid_rule = { 1, CFG_MAX_NSID, false, "a valid namespace ID",
					    "1-1024" };
static const struct cfg_irule bs_rule = { 512, 4096, false, "a supported block size",
					  "512 or 4096" };

/* One namespaces[] entry, nvmetcli keys plus nvmf_* extensions. */
static int parse_ns(struct cfg_ctx *c, json_t *j, const char *base, struct nvmf_ns_config *ns)
{
	static const char *const known[] = { "nsid",
					     "enable",
					     "device",
					     "ana_grpid",
					     "ana",
					     "resv",
					     "nvmf_backend",
					     "nvmf_size_bytes",
					     "nvmf_block_size",
					     "nvmf_create",
					     "nvmf_buffered",
					     "nvmf_eui64",
					     "nvmf_rbd_pool",
					     "nvmf_rbd_image",
					     "nvmf_rbd_namespace",
					     "nvmf_rbd_conf",
					     "nvmf_rbd_keyring",
					     "nvmf_rbd_client_id",
					     NULL };
	const char *kind = NULL, *eui;
	json_t *dev, *size, *resv;
	char dbase[128], rbase[128], b[80];
	long long v;
	int r;

	if (cfg_check_keys(c, j, base, known, NULL) ||
	    cfg_get_int(c, j, base, "nsid", &nsid_rule, true, &v) < 0)
		return -1;
	ns->nsid = (uint32_t)v;
	ns->enable = true;
	if (cfg_get_bool(c, j, base, "enable", &ns->enable) < 0 ||
	    cfg_get_str(c, j, base, "nvmf_backend", false, &kind))
		return -1;
	if (kind) {
		size_t k;
		for (k = 0; k < sizeof(backend_names) / sizeof(backend_names[0]); k++)
			if (backend_names[k] && !strcmp(kind, backend_names[k]))
				break;
		if (k == sizeof(backend_names) / sizeof(backend_names[0]))
			return cfg_fail(c, base, "nvmf_backend",
					"%s is not a backend (file, bdev, nvme, ram, null or rbd)",
					cfg_quote(kind, b, sizeof(b)));
		ns->kind = (enum nvmf_backend_kind)k;
	}
	snprintf(dbase, sizeof(dbase), "%s.device", base);
	if (cfg_get_typed(c, j, base, "device", JSON_OBJECT, false, &dev) ||
	    (dev && parse_device(c, dev, dbase, ns)))
		return -1;
	/* nvmetcli's resv group (configfs resv_enable). A reservation fences hosts off: a key
	 * of that group we do not know is refused rather than ignored. */
	snprintf(rbase, sizeof(rbase), "%s.resv", base);
	if (cfg_get_typed(c, j, base, "resv", JSON_OBJECT, false, &resv) ||
	    (resv &&
	     (cfg_check_keys(c, resv, rbase, (const char *const[]){ "enable", NULL }, NULL) ||
	      cfg_get_bool(c, resv, rbase, "enable", &ns->resv_enable) < 0)))
		return -1;

	/* nvmf_size_bytes: an integer, or a string by util/size.h's grammar. */
	if ((size = json_object_get(j, "nvmf_size_bytes"))) {
		bool ok;

		if (json_is_string(size))
			ok = nvmf_size_parse(json_string_value(size), &ns->size_bytes) == 0;
		else if (json_is_integer(size))
			ok = json_integer_value(size) >= 0;
		else
			return cfg_fail(c, base, "nvmf_size_bytes",
					"expected an integer or a string like "
					"\"64M\", got %s",
					cfg_show(size, b, sizeof(b)));
		if (!ok)
			return cfg_bad_value(c, base, "nvmf_size_bytes", size, "a size",
					     NVMF_SIZE_GRAMMAR);
		if (json_is_integer(size))
			ns->size_bytes = (uint64_t)json_integer_value(size);
	}
	if ((r = cfg_get_int(c, j, base, "nvmf_block_size", &bs_rule, false, &v)) < 0)
		return -1;
	if (r) {
		if (v != 512 && v != 4096)
			return cfg_bad_value(c, base, "nvmf_block_size",
					     json_object_get(j, "nvmf_block_size"), bs_rule.what,
					     bs_rule.range);
		ns->block_size = (uint32_t)v;
	}
	if (cfg_get_bool(c, j, base, "nvmf_create", &ns->create) < 0 ||
	    cfg_get_bool(c, j, base, "nvmf_buffered", &ns->buffered) < 0 ||
	    cfg_get_str(c, j, base, "nvmf_eui64", false, &eui))
		return -1;
	if (eui) {
		if (nvme_eui64_parse(eui, ns->eui64, NULL, 0))
			return cfg_fail(c, base, "nvmf_eui64",
					"%s is not an EUI-64 (16 hex digits)",
					cfg_quote(eui, b, sizeof(b)));
		ns->has_eui64 = !cfg_all_zero(ns->eui64, 8);
	}
	if (cfg_parse_ns_ana(c, j, base, ns) || parse_ns_rbd(c, j, base, dbase, ns))
		return -1;

	/* Cross-field rules: what each backend kind needs. */
	if (ns->kind == NVMF_BACKEND_RBD) {
		/* parse_ns_rbd checked it: its image, no file */
	} else if (ns->kind == NVMF_BACKEND_RAM || ns->kind == NVMF_BACKEND_NULL) {
		if (ns->path)
			return cfg_fail(c, dbase, "path", "a \"%s\" namespace has no backing path",
					backend_names[ns->kind]);
		if (ns->buffered)
			return cfg_fail(c, base, "nvmf_buffered",
					"a \"%s\" namespace has no file to buffer",
					backend_names[ns->kind]);
		if (!size)
			return cfg_fail(c, base, "nvmf_size_bytes",
					"required key is missing (a \"%s\" namespace "
					"needs its size)",
					backend_names[ns->kind]);
		if (!ns->size_bytes)
			return cfg_fail(c, base, "nvmf_size_bytes",
					"must be greater than 0 for a \"%s\" namespace",
					backend_names[ns->kind]);
	} else if (!ns->path && ns->enable) {
		/* A disabled namespace may lack a path, as nvmetcli saves one never configured. */
		return cfg_fail(
			c, dbase, "path", "%s (needed unless nvmf_backend is \"ram\" or \"null\")",
			dev && json_object_get(dev, "path") ? "empty" : "required key is missing");
	}
	if (ns->size_bytes % (ns->block_size ? ns->block_size : 512))
		return cfg_fail(c, base, "nvmf_size_bytes",
				"%s is not a multiple of the block size (%u)",
				cfg_show(size, b, sizeof(b)),
				ns->block_size ? ns->block_size : 512);
	if (ns->create) {
		if (ns->kind != NVMF_BACKEND_AUTO && ns->kind != NVMF_BACKEND_FILE)
			return cfg_fail(c, base, "nvmf_create",
					"only a \"file\" namespace can be created "
					"(nvmf_backend is \"%s\")",
					backend_names[ns->kind]);
		if (!ns->size_bytes)
			return cfg_fail(c, base, "nvmf_create",
					"needs nvmf_size_bytes (the size of the file to create)");
		ns->kind = NVMF_BACKEND_FILE; /* a path that may not exist yet cannot be inferred */
	}
	return 0;
}

/* An array of NQN strings (allowed_hosts, ports[].subsystems) into a strdup'd list.
 * Returns 0 or -1 (wrong type, bad NQN, listed twice, no memory). */
static int get_nqn_list(struct cfg_ctx *c, json_t *obj, const char *base, const char *key,
			char ***out, size_t *n)
{
	json_t *arr, *v;
	size_t i;
	char k[64], b[80];

	if (cfg_get_typed(c, obj, base, key, JSON_ARRAY, false, &arr))
		return -1;
	if (!arr)
		return 0;
	if (!(*out = calloc(json_array_size(arr) + 1, sizeof(char *))))
		return cfg_fail(c, base, key, "out of memory");
	json_array_foreach(arr, i, v) {
		snprintf(k, sizeof(k), "%s[%zu]", key, i);
		if (!json_is_string(v))
			return cfg_fail(c, base, k, "expected a string, got %s",
					cfg_show(v, b, sizeof(b)));
		if (cfg_check_nqn(c, base, k, json_string_value(v)))
			return -1;
		for (size_t p = 0; p < i; p++)
			if (!strcmp((*out)[p], json_string_value(v)))
				return cfg_fail(c, base, k, "%s is listed twice",
						cfg_show(v, b, sizeof(b)));
		if (!((*out)[i] = strdup(json_string_value(v))))
			return cfg_fail(c, base, k, "out of memory");
		*n = i + 1;
	}
	return 0;
}

static const struct cfg_irule cntlid_rule = { 1, 0xffef, true, "a controller ID", "1-65519" };
static const struct cfg_irule qid_rule = { 1, 128, true, "an I/O queue count", "1-128" };

/* attr{} of a subsystem. */
static int parse_attr(struct cfg_ctx *c, json_t *a, const char *base, struct nvmf_subsys_config *s)
{
	static const char *const known[] = {
		"allow_any_host", "serial",     "model",   "firmware",  "version",
		"cntlid_min",     "cntlid_max", "qid_max", "pi_enable", NULL
	};
	/* Identify Controller fields the kernel fills from these; ours stay 0 (no PCI
	 * vendor: target/identify.c), so a host sees a difference only there. */
	static const struct cfg_unused unused[] = {
		{ "ieee_oui", "Identify Controller reports IEEE OUI 0 on this target" },
		{ "vendor_id", "Identify Controller reports PCI vendor ID 0 on this target" },
		{ "subsys_vendor_id",
		  "Identify Controller reports PCI subsystem vendor ID 0 on this target" },
		{ NULL, NULL }
	};
	const char *ver;
	long long v;
	char b[80];
	int r;

	if (cfg_check_keys(c, a, base, known, unused) ||
	    cfg_get_bool(c, a, base, "allow_any_host", &s->allow_any_host) < 0 ||
	    cfg_get_ascii(c, a, base, "serial", s->serial, 20) ||
	    cfg_get_ascii(c, a, base, "model", s->model, 40) ||
	    cfg_get_ascii(c, a, base, "firmware", s->firmware, 8) ||
	    cfg_get_str(c, a, base, "version", false, &ver) || cfg_check_pi(c, a, base))
		return -1;
	if (ver && *ver && nvme_version_parse(ver, &s->version, NULL, 0))
		return cfg_fail(c, base, "version",
				"%s is not an NVMe version (like \"1.3\", \"2.0\" or \"1.2.1\")",
				cfg_quote(ver, b, sizeof(b)));
	if ((r = cfg_get_int(c, a, base, "cntlid_min", &cntlid_rule, false, &v)) < 0)
		return -1;
	if (r)
		s->cntlid_min = (uint16_t)v;
	if ((r = cfg_get_int(c, a, base, "cntlid_max", &cntlid_rule, false, &v)) < 0)
		return -1;
	if (r)
		s->cntlid_max = (uint16_t)v;
	if (s->cntlid_min > s->cntlid_max)
		return cfg_fail(c, base, "cntlid_min", "%u is greater than cntlid_max %u",
				s->cntlid_min, s->cntlid_max);
	if ((r = cfg_get_int(c, a, base, "qid_max", &qid_rule, false, &v)) < 0)
		return -1;
	if (r)
		s->qid_max = (uint16_t)v;
	return 0;
}

/* ---- defaults: the one place they are set (the loader, and configs built in code) ---- */

void nvmf_config_target_defaults(struct nvmf_target_config *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->discovery_nqn, CFG_DISCOVERY_NQN);
	t->mdts = NVMF_DEFAULT_MDTS;
	t->threads = 1;
	t->buffers_small = 1024;
	t->buffers_large = 64;
	t->hugepages = true;
	t->persist = true;
	t->idle_poll_us = 1000;
	t->srq = true;
	t->srq_depth = 4096;
	t->post_thread = -1;
	memset(t->log_level, -1, sizeof(t->log_level));
	t->numa_node = -1;
	t->discovery_log = NVMF_DISC_LOG_ALL_PORTS;
	t->discovery_kato = NVMF_DEFAULT_DISC_KATO;
}

void nvmf_config_subsys_defaults(struct nvmf_subsys_config *s)
{
	s->cntlid_min = 1;
	s->cntlid_max = 0xffef;
	s->qid_max = NVMF_DEFAULT_QID_MAX;
	s->passthru.clear_ids = true; /* the kernel's default */
}

void nvmf_config_port_defaults(struct nvmf_port_config *p)
{
	snprintf(p->trtype, sizeof(p->trtype), "rdma");
	p->inline_data_size = NVMF_DEFAULT_INLINE;
	p->max_queue_size = NVMF_DEFAULT_QUEUE_SIZE;
	p->zerocopy_threshold = NVMF_DEFAULT_ZEROCOPY;
}

/* passthru admin_timeout / io_timeout: seconds, numbers or nvmetcli's strings; a day at
 * most, so that milliseconds fit 32 bits. */
static const struct cfg_irule pt_timeout_rule = { 0, 86400, true, "a timeout in seconds",
						  "0-86400, 0 = the drive's default" };

/* subsystems[].passthru: nvmetcli's dump of the configfs passthru group, a list of one
 * object {"device": {"path"}, "enable", "clear_ids", "admin_timeout", "io_timeout"},
 * written for every subsystem on a kernel built with passthru (a bare object is read the
 * same way). Into s->passthru, clear_ids 1 unless given (the kernel's default). One that
 * is on exports the drive at device.path (required then), as the kernel's
 * nvmet_passthru_ctrl_enable does, and the subsystem has no namespaces[] of its own (the
 * kernel refuses both too). One that is off asks for nothing: a path kept there is only
 * noted. Called after namespaces[] is read. */
static int parse_passthru(struct cfg_ctx *c, json_t *j, const char *base, const char *nqn,
			  struct nvmf_subsys_config *s)
{
	json_t *pt = json_object_get(j, "passthru"), *e;
	struct nvmf_passthru_config *p = &s->passthru;
	char sub[112], dsub[128], b[80];
	size_t n;

	if (!pt)
		return 0;
	if (!json_is_array(pt) && !json_is_object(pt))
		return cfg_fail(c, base, "passthru",
				"expected a list of one object (as nvmetcli writes it), got %s",
				cfg_show(pt, b, sizeof(b)));
	n = json_is_array(pt) ? json_array_size(pt) : 1;
	if (n == 0)
		return 0;
	if (n > 1)
		return cfg_fail(c, base, "passthru",
				"has %zu entries; a subsystem has one passthru group (the kernel's "
				"configfs passthru/ directory)",
				n);
	e = json_is_array(pt) ? json_array_get(pt, 0) : pt;
	if (json_is_array(pt))
		snprintf(sub, sizeof(sub), "%s.passthru[0]", base);
	else
		snprintf(sub, sizeof(sub), "%s.passthru", base);
	snprintf(dsub, sizeof(dsub), "%s.device", sub);
	if (!json_is_object(e))
		return cfg_fail(c, sub, NULL, "expected an object, got %s",
				cfg_show(e, b, sizeof(b)));
	static const char *const known[] = { "device",        "enable",     "clear_ids",
					     "admin_timeout", "io_timeout", NULL };
	json_t *dev;
	const char *path = NULL;
	long long v;
	int r;
	if (cfg_check_keys(c, e, sub, known, NULL) ||
	    cfg_get_bool(c, e, sub, "enable", &p->enable) < 0 ||
	    cfg_get_bool(c, e, sub, "clear_ids", &p->clear_ids) < 0 ||
	    cfg_get_typed(c, e, sub, "device", JSON_OBJECT, false, &dev) ||
	    (dev && (cfg_check_keys(c, dev, dsub, (const char *const[]){ "path", NULL }, NULL) ||
		     cfg_get_str(c, dev, dsub, "path", false, &path))))
		return -1;
	if ((r = cfg_get_int(c, e, sub, "admin_timeout", &pt_timeout_rule, false, &v)) < 0)
		return -1;
	if (r)
		p->admin_timeout = (uint32_t)v;
	if ((r = cfg_get_int(c, e, sub, "io_timeout", &pt_timeout_rule, false, &v)) < 0)
		return -1;
	if (r)
		p->io_timeout = (uint32_t)v;
	if (path && strlen(path) >= sizeof(p->device_path))
		return cfg_fail(c, dsub, "path", "is longer than %zu bytes",
				sizeof(p->device_path) - 1);
	/* As a namespace's device.path: a relative one would depend on the daemon's working
	 * directory (/ under systemd), and --check could not tell. */
	if (path && *path && path[0] != '/')
		return cfg_fail(c, dsub, "path", "%s is not an absolute path",
				cfg_quote(path, b, sizeof(b)));
	/* The path goes into log lines and answers as it is: a newline there would forge
	 * another line. No device node is named so. */
	for (const char *q = path; q && *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			return cfg_fail(c, dsub, "path", "%s has a control character",
					cfg_quote(path, b, sizeof(b)));
	if (path)
		snprintf(p->device_path, sizeof(p->device_path), "%s", path);
	if (!p->enable) {
		/* Without namespaces[] it serves nothing: say that, not "its namespaces[]". */
		if (p->device_path[0] &&
		    cfg_note(c, "%s: passthru of %s is off (enable 0): subsystem %s serves %s", sub,
			     cfg_quote(p->device_path, b, sizeof(b)), nqn,
			     s->n_ns ? "its namespaces[] instead" :
				       "no namespace (it has no namespaces[]; set enable 1 to "
				       "serve the drive)") < 0)
			return -1;
		return 0;
	}
	if (!p->device_path[0])
		return cfg_fail(c, dsub, "path",
				"required when passthru is enabled: the NVMe controller's char "
				"device, like \"/dev/nvme0\"");
	if (s->n_ns)
		return cfg_fail(c, sub, NULL,
				"subsystem %s serves the drive %s by passthru, and also has "
				"namespaces[] (nsid %u): a passthru subsystem's namespaces "
				"are the drive's; remove namespaces[] or set enable 0",
				cfg_quote(nqn, b, sizeof(b)), p->device_path, s->ns[0].nsid);
	return 0;
}

/* One subsystems[] entry. */
static int parse_subsys(struct cfg_ctx *c, json_t *j, const char *base,
			struct nvmf_subsys_config *s, const char *disc_nqn)
{
	static const char *const known[] = { "nqn",        "allowed_hosts", "attr",
					     "namespaces", "passthru",      NULL };
	json_t *attr, *nss, *v;
	const char *nqn;
	char sub[96], b[80];
	size_t i;

	nvmf_config_subsys_defaults(s);
	if (cfg_check_keys(c, j, base, known, NULL) || cfg_get_str(c, j, base, "nqn", true, &nqn) ||
	    cfg_check_nqn(c, base, "nqn", nqn))
		return -1;
	if (!strcmp(nqn, disc_nqn))
		return cfg_fail(c, base, "nqn", "%s is the discovery subsystem's NQN",
				cfg_quote(nqn, b, sizeof(b)));
	/* Hosts reach the discovery service with the well-known NQN even when discovery.nqn
	 * names it otherwise (target/fabrics-cmd.c): no NVM subsystem may take it. */
	if (!strcmp(nqn, CFG_DISCOVERY_NQN))
		return cfg_fail(c, base, "nqn",
				"%s is the well-known discovery NQN, which always reaches the "
				"discovery service",
				cfg_quote(nqn, b, sizeof(b)));
	strcpy(s->nqn, nqn);
	snprintf(sub, sizeof(sub), "%s.attr", base);
	if (cfg_get_typed(c, j, base, "attr", JSON_OBJECT, false, &attr) ||
	    (attr && parse_attr(c, attr, sub, s)) ||
	    get_nqn_list(c, j, base, "allowed_hosts", &s->allowed_hosts, &s->n_allowed_hosts))
		return -1;
	if (cfg_get_typed(c, j, base, "namespaces", JSON_ARRAY, false, &nss))
		return -1;
	if (!nss)
		return parse_passthru(c, j, base, nqn, s);
	if (!(s->ns = calloc(json_array_size(nss) + 1, sizeof(*s->ns))))
		return cfg_fail(c, base, "namespaces", "out of memory");
	s->n_ns = json_array_size(nss);
	json_array_foreach(nss, i, v) {
		snprintf(sub, sizeof(sub), "%s.namespaces[%zu]", base, i);
		if (!json_is_object(v))
			return cfg_fail(c, sub, NULL, "expected an object, got %s",
					cfg_show(v, b, sizeof(b)));
		if (parse_ns(c, v, sub, &s->ns[i]))
			return -1;
		for (size_t p = 0; p < i; p++)
			if (s->ns[p].nsid == s->ns[i].nsid)
				return cfg_fail(c, sub, "nsid",
						"%u is already used by namespaces[%zu]",
						s->ns[i].nsid, p);
	}
	return parse_passthru(c, j, base, nqn, s);
}

static const struct cfg_irule portid_rule = { 0, 65535, false, "a port ID", "0-65535" };
static const struct cfg_irule svc_rule = { 1, 65535, true, "a port number", "1-65535" };
/* param.inline_data_size, whose range depends on the port's trtype: a tcp port's must hold
 * an I/O queue's 1024-byte Connect data (parse_port checks the lower bound). */
static const struct cfg_irule inline_rdma_rule = {
	-1, 16384, true, "an inline data size",
	"0-16384 on an rdma port, or -1 for the default 8192"
};
static const struct cfg_irule inline_tcp_rule = {
	-1, 16384, true, "an inline data size",
	"1024-16384 on a tcp port, or -1 for the default 8192"
};
static const struct cfg_irule mqs_rule = { -1, 1024, true, "a queue size",
					   "16-1024, or -1 for the default 128" };
/* param.mdts as the kernel's param_mdts holds it: log2 of 4 KiB pages, 0 for its "no
 * limit", which this target cannot offer: 0 and -1 take nvmf_target.mdts. */
static const struct cfg_irule port_mdts_rule = {
	-1, 10, true, "an MDTS this target serves",
	"1-10: 2^mdts x 4 KiB, 8 KiB to 4 MiB; 0 or -1 for nvmf_target.mdts"
};
static const struct cfg_irule h2c_rule = {
	-1, 16777216, true, "a MAXH2CDATA",
	"4096-16777216 bytes, a multiple of 4, or -1 for the default 131072"
};
static const struct cfg_irule zc_rule = {
	-1, 16777216, true, "a zero-copy threshold",
	"0 for never, 4096-16777216 bytes, or -1 for the default 32768"
};

/* addr{} of a port: rdma or tcp over IPv4/IPv6. */
static int parse_addr(struct cfg_ctx *c, json_t *a, const char *base, struct nvmf_port_config *p)
{
	static const char *const treqs[] = { "not specified", "required", "not required" };
	static const char *const known[] = { "trtype", "adrfam", "traddr", "trsvcid",
					     "treq",   "tsas",   NULL };
	const char *trtype, *adrfam, *traddr, *treq, *tsas;
	unsigned char bin[16];
	char b[80];
	long long v = 4420;

	if (cfg_check_keys(c, a, base, known, NULL) ||
	    cfg_get_str(c, a, base, "trtype", true, &trtype))
		return -1;
	if (strcmp(trtype, "rdma") && strcmp(trtype, "tcp"))
		return cfg_fail(c, base, "trtype",
				"%s is not supported (this target serves rdma and tcp)",
				cfg_quote(trtype, b, sizeof(b)));
	snprintf(p->trtype, sizeof(p->trtype), "%s", trtype);
	if (cfg_get_str(c, a, base, "adrfam", false, &adrfam) ||
	    cfg_get_str(c, a, base, "traddr", true, &traddr))
		return -1;
	if (adrfam && *adrfam && strcmp(adrfam, "ipv4") && strcmp(adrfam, "ipv6"))
		return cfg_fail(c, base, "adrfam",
				"%s is not supported for %s (use \"ipv4\" or \"ipv6\")",
				cfg_quote(adrfam, b, sizeof(b)), p->trtype);
	if (!*traddr)
		return cfg_fail(c, base, "traddr",
				"empty (%s %s port needs an IPv4 or IPv6 address)",
				strcmp(p->trtype, "rdma") ? "a" : "an", p->trtype);
	int fam = nvmf_ip_parse(traddr, bin);
	bool v4 = fam == AF_INET, v6 = fam == AF_INET6;
	if (adrfam && !strcmp(adrfam, "ipv4") && !v4)
		return cfg_fail(c, base, "traddr",
				v6 ? "%s is an IPv6 address but adrfam is \"ipv4\"" :
				     "%s is not an IPv4 address",
				cfg_quote(traddr, b, sizeof(b)));
	if (adrfam && !strcmp(adrfam, "ipv6") && !v6)
		return cfg_fail(c, base, "traddr",
				v4 ? "%s is an IPv4 address but adrfam is \"ipv6\"" :
				     "%s is not an IPv6 address",
				cfg_quote(traddr, b, sizeof(b)));
	if (!v4 && !v6)
		return cfg_fail(c, base, "traddr", "%s is not an IPv4 or IPv6 address",
				cfg_quote(traddr, b, sizeof(b)));
	p->adrfam = v4 ? AF_INET : AF_INET6; /* an empty adrfam is inferred from traddr */
	nvmf_ip_str(p->adrfam, bin, p->traddr, sizeof(p->traddr));
	if (cfg_get_int(c, a, base, "trsvcid", &svc_rule, false, &v) < 0)
		return -1;
	snprintf(p->trsvcid, sizeof(p->trsvcid), "%lld", v);
	if (cfg_get_str(c, a, base, "treq", false, &treq))
		return -1;
	if (treq && *treq) {
		for (p->treq = 0; p->treq < 3 && strcmp(treq, treqs[p->treq]); p->treq++)
			;
		if (p->treq == 3)
			return cfg_fail(
				c, base, "treq",
				"%s is not \"not specified\", \"required\" or \"not required\"",
				cfg_quote(treq, b, sizeof(b)));
	}
	/* The kernel's addr_tsas as nvmetcli saves it (kernel 6.7 on): "none" or "tls1.3" on
	 * a tcp port, the QP type "connected" on an rdma port (ours are). */
	if (cfg_get_str(c, a, base, "tsas", false, &tsas))
		return -1;
	bool tcp = !strcmp(p->trtype, "tcp");
	if (tsas && *tsas && strcmp(tsas, "none") && (tcp || strcmp(tsas, "connected"))) {
		if (strcmp(tsas, "tls1.3") || !tcp)
			return cfg_fail(
				c, base, "tsas",
				"%s is not a security type this target takes on %s ports (%s)",
				cfg_quote(tsas, b, sizeof(b)), p->trtype,
				tcp ? "\"none\" or \"tls1.3\"" : "\"none\" or \"connected\"");
		p->tsas = NVMF_TCP_SECTYPE_TLS13;
		/* As the kernel: a TLS port requires it unless told the host may choose. */
		if (p->treq == NVMF_TREQ_NOT_SPECIFIED)
			p->treq = NVMF_TREQ_REQUIRED;
	}
	/* Advertising a requirement the port does not enforce would mislead hosts. */
	if (p->treq == NVMF_TREQ_REQUIRED && p->tsas != NVMF_TCP_SECTYPE_TLS13)
		return tcp ? cfg_fail(c, base, "treq",
				      "\"required\" asks for a secure channel: set addr.tsas to "
				      "\"tls1.3\", or use \"not specified\"") :
			     cfg_fail(c, base, "treq",
				      "\"required\" asks for a secure channel, which %s ports do "
				      "not have; use \"not specified\" or \"not required\"",
				      p->trtype);
	return 0;
}

/* One ports[] entry; @cfg->subsystems must be parsed already (for the NQN links). */
static int parse_port(struct cfg_ctx *c, json_t *j, const char *base, struct nvmf_port_config *p,
		      const struct nvmf_config *cfg)
{
	static const char *const known[] = { "portid",    "addr",       "param", "subsystems",
					     "referrals", "ana_groups", NULL };
	json_t *addr, *param;
	char sub[96], k[64];
	long long v;
	int r;

	nvmf_config_port_defaults(p);
	if (cfg_check_keys(c, j, base, known, NULL) ||
	    cfg_get_int(c, j, base, "portid", &portid_rule, true, &v) < 0)
		return -1;
	p->portid = (uint16_t)v;
	snprintf(sub, sizeof(sub), "%s.addr", base);
	if (cfg_get_typed(c, j, base, "addr", JSON_OBJECT, true, &addr) ||
	    parse_addr(c, addr, sub, p))
		return -1;
	snprintf(sub, sizeof(sub), "%s.param", base);
	if (cfg_get_typed(c, j, base, "param", JSON_OBJECT, false, &param))
		return -1;
	if (param) {
		static const char *const param_keys[] = {
			"inline_data_size", "max_queue_size",          "mdts", "pi_enable",
			"nvmf_maxh2cdata",  "nvmf_zerocopy_threshold", NULL
		};
		bool tcp = !strcmp(p->trtype, "tcp");
		const struct cfg_irule *inl = tcp ? &inline_tcp_rule : &inline_rdma_rule;
		if (cfg_check_keys(c, param, sub, param_keys, NULL) ||
		    (r = cfg_get_int(c, param, sub, "inline_data_size", inl, false, &v)) < 0)
			return -1;
		/* A Linux host sends an I/O queue's 1024-byte Connect data in the capsule only
		 * when it fits, else by R2T, which this target does not take for a Connect. */
		if (r && v >= 0 && v < 1024 && tcp)
			return cfg_fail(
				c, sub, "inline_data_size",
				"%lld is below 1024 on a tcp port: the I/O queues' Connect data "
				"(1024 bytes) must fit in the capsule (%s)",
				v, inline_tcp_rule.range);
		if (r && v >= 0)
			p->inline_data_size = (uint32_t)v;
		if ((r = cfg_get_int(c, param, sub, "max_queue_size", &mqs_rule, false, &v)) < 0)
			return -1;
		if (r && v >= 0 && v < 16)
			return cfg_bad_value(c, sub, "max_queue_size",
					     json_object_get(param, "max_queue_size"),
					     mqs_rule.what, mqs_rule.range);
		if (r && v >= 0)
			p->max_queue_size = (uint32_t)v;
		if ((r = cfg_get_int(c, param, sub, "mdts", &port_mdts_rule, false, &v)) < 0)
			return -1;
		if (r && v > 0)
			p->mdts = (uint32_t)v;
		/* ICResp MAXH2CDATA: at least 4096 and a dword multiple (TCP transport 1.0
		 * Figure 16); only a tcp port sends one. */
		if ((r = cfg_get_int(c, param, sub, "nvmf_maxh2cdata", &h2c_rule, false, &v)) < 0)
			return -1;
		if (r && v >= 0 && (v < 4096 || v % 4))
			return cfg_bad_value(c, sub, "nvmf_maxh2cdata",
					     json_object_get(param, "nvmf_maxh2cdata"),
					     h2c_rule.what, h2c_rule.range);
		if (r && v >= 0 && strcmp(p->trtype, "tcp"))
			return cfg_fail(c, sub, "nvmf_maxh2cdata",
					"only a tcp port takes it (this port is %s)", p->trtype);
		if (r && v >= 0)
			p->maxh2cdata = (uint32_t)v;
		/* MSG_ZEROCOPY for large C2HData (tcp/target/zerocopy.c). Below a page the
		 * notification costs more than the copy it saves. */
		if ((r = cfg_get_int(c, param, sub, "nvmf_zerocopy_threshold", &zc_rule, false,
				     &v)) < 0)
			return -1;
		if (r && v > 0 && v < 4096)
			return cfg_bad_value(c, sub, "nvmf_zerocopy_threshold",
					     json_object_get(param, "nvmf_zerocopy_threshold"),
					     zc_rule.what, zc_rule.range);
		if (r && v >= 0 && strcmp(p->trtype, "tcp"))
			return cfg_fail(c, sub, "nvmf_zerocopy_threshold",
					"only a tcp port takes it (this port is %s)", p->trtype);
		if (r && v >= 0)
			p->zerocopy_threshold = (uint32_t)v;
		if (cfg_check_pi(c, param, sub))
			return -1;
	}
	if (get_nqn_list(c, j, base, "subsystems", &p->subsystems, &p->n_subsystems) ||
	    cfg_parse_referrals(c, j, base, p) || cfg_parse_port_ana(c, j, base, p))
		return -1;
	for (size_t i = 0; cfg && i < p->n_subsystems; i++) {
		size_t s;
		char b[80];

		for (s = 0;
		     s < cfg->n_subsystems && strcmp(cfg->subsystems[s].nqn, p->subsystems[i]); s++)
			;
		snprintf(k, sizeof(k), "subsystems[%zu]", i);
		if (s == cfg->n_subsystems)
			return cfg_fail(c, base, k, "%s names no subsystem in \"subsystems\"",
					cfg_quote(p->subsystems[i], b, sizeof(b)));
	}
	return 0;
}

bool nvmf_port_config_overlaps(const struct nvmf_port_config *a, const struct nvmf_port_config *b)
{
	bool any_a = !strcmp(a->traddr, "0.0.0.0") || !strcmp(a->traddr, "::");
	bool any_b = !strcmp(b->traddr, "0.0.0.0") || !strcmp(b->traddr, "::");
	/* rdma_cm's port space is its own (RoCE, InfiniBand): an rdma and a tcp port may
	 * share an address and port number, as on the kernel target. */
	return !strcmp(a->trtype, b->trtype) && a->adrfam == b->adrfam &&
	       !strcmp(a->trsvcid, b->trsvcid) && (!strcmp(a->traddr, b->traddr) || any_a || any_b);
}

/* Two ports cannot listen on the same address and service (or the wildcard of the
 * same family and a specific address on the same service): the bind would fail. */
static int check_port_overlap(struct cfg_ctx *c, const struct nvmf_config *cfg, size_t i)
{
	const struct nvmf_port_config *a = &cfg->ports[i];
	char base[48];

	for (size_t j = 0; j < i; j++) {
		const struct nvmf_port_config *o = &cfg->ports[j];

		if (o->portid == a->portid) {
			snprintf(base, sizeof(base), "ports[%zu]", i);
			return cfg_fail(c, base, "portid", "duplicate port ID %u", a->portid);
		}
		if (!nvmf_port_config_overlaps(a, o))
			continue;
		snprintf(base, sizeof(base), "ports[%zu]", i);
		bool v6 = a->adrfam == AF_INET6;
		return cfg_fail(c, base, "addr", "%s%s%s:%s overlaps ports[%zu] (%s%s%s:%s)",
				v6 ? "[" : "", a->traddr, v6 ? "]" : "", a->trsvcid, j,
				v6 ? "[" : "", o->traddr, v6 ? "]" : "", o->trsvcid);
	}
	return 0;
}

static const struct cfg_irule mdts_rule = { 1, 10, false, "a supported MDTS",
					    "1-10: 2^mdts x 4 KiB, 8 KiB to 4 MiB" };
static const struct cfg_irule threads_rule = { 1, 64, false, "a thread count", "1-64" };
static const struct cfg_irule numa_rule = { -1, 1023, false, "a NUMA node",
					    "-1 for the RDMA device's node, or 0-1023" };
static const struct cfg_irule srq_depth_rule = { 16, 65536, false, "an SRQ depth",
						 "16-65536 receives" };
static const struct cfg_irule small_rule = { 16, 1048576, false, "a buffer count", "16-1048576" };
static const struct cfg_irule large_rule = { 1, 65536, false, "a buffer count", "1-65536" };
static const struct cfg_irule idle_rule = { 0, 1000000, false, "a time in microseconds",
					    "0-1000000" };
/* nvmf_target.post_thread's names, by value + 1 (-1 auto, 0 off, 1 on). */
static const char *const post_thread_names[] = { "auto", "off", "on", NULL };

const char *nvmf_post_thread_name(int post_thread)
{
	return post_thread >= -1 && post_thread <= 1 ? post_thread_names[post_thread + 1] : "?";
}

/* discovery.nqn and the "nvmf_target" extension object. */
static int parse_target(struct cfg_ctx *c, json_t *root, struct nvmf_target_config *t)
{
	json_t *disc, *nt;
	const char *nqn = NULL;
	long long n;
	int r;

	nvmf_config_target_defaults(t);
	if (cfg_get_typed(c, root, "", "discovery", JSON_OBJECT, false, &disc))
		return -1;
	if (disc &&
	    (cfg_check_keys(c, disc, "discovery", (const char *const[]){ "nqn", NULL }, NULL) ||
	     cfg_get_str(c, disc, "discovery", "nqn", false, &nqn) ||
	     (nqn && cfg_check_nqn(c, "discovery", "nqn", nqn))))
		return -1;
	if (disc && nqn)
		strcpy(t->discovery_nqn, nqn);
	if (cfg_get_typed(c, root, "", "nvmf_target", JSON_OBJECT, false, &nt))
		return -1;
	if (!nt)
		return 0;
	static const char *const known[] = {
		"mdts",       "threads",      "buffers_small", "buffers_large",
		"hugepages",  "idle_poll_us", "srq",           "srq_depth",
		"numa_node",  "rpc_socket",   "discovery_log", "discovery_kato",
		"resv_state", "log_level",    "persist",       "post_thread",
		NULL
	};
	if (cfg_check_keys(c, nt, "nvmf_target", known, NULL))
		return -1;
	if ((r = cfg_get_int(c, nt, "nvmf_target", "mdts", &mdts_rule, false, &n)) < 0)
		return -1;
	if (r)
		t->mdts = (uint32_t)n;
	if ((r = cfg_get_int(c, nt, "nvmf_target", "threads", &threads_rule, false, &n)) < 0)
		return -1;
	if (r)
		t->threads = (uint32_t)n;
	if ((r = cfg_get_int(c, nt, "nvmf_target", "buffers_small", &small_rule, false, &n)) < 0)
		return -1;
	if (r)
		t->buffers_small = (uint32_t)n;
	if ((r = cfg_get_int(c, nt, "nvmf_target", "buffers_large", &large_rule, false, &n)) < 0)
		return -1;
	if (r)
		t->buffers_large = (uint32_t)n;
	if ((r = cfg_get_int(c, nt, "nvmf_target", "idle_poll_us", &idle_rule, false, &n)) < 0)
		return -1;
	if (r)
		t->idle_poll_us = (uint32_t)n;
	if ((r = cfg_get_int(c, nt, "nvmf_target", "numa_node", &numa_rule, false, &n)) < 0)
		return -1;
	if (r)
		t->numa_node = (int)n;
	if ((r = cfg_get_int(c, nt, "nvmf_target", "srq_depth", &srq_depth_rule, false, &n)) < 0)
		return -1;
	if (r)
		t->srq_depth = (uint32_t)n;
	const char *post = NULL;
	if (cfg_get_str(c, nt, "nvmf_target", "post_thread", false, &post))
		return -1;
	if (post) {
		char q[80];
		int i = nvmf_choice_index(post_thread_names, post);
		if (i < 0)
			return cfg_fail(c, "nvmf_target", "post_thread",
					"%s is not \"auto\", \"on\" or \"off\"",
					cfg_quote(post, q, sizeof(q)));
		t->post_thread = i - 1;
	}
	if (cfg_get_bool(c, nt, "nvmf_target", "srq", &t->srq) < 0 ||
	    cfg_parse_discovery(c, nt, t) || cfg_parse_log_level(c, nt, t))
		return -1;
	const char *sock = NULL;
	char b[80];
	if (cfg_get_str(c, nt, "nvmf_target", "rpc_socket", false, &sock))
		return -1;
	if (sock) {
		/* "" turns the control socket off; otherwise an absolute path that fits a
		 * Unix socket address (sun_path: 107 bytes and the NUL). */
		if (*sock && sock[0] != '/')
			return cfg_fail(c, "nvmf_target", "rpc_socket",
					"%s is not an absolute path",
					cfg_quote(sock, b, sizeof(b)));
		if (strlen(sock) >= sizeof(t->rpc_socket))
			return cfg_fail(c, "nvmf_target", "rpc_socket",
					"path of %zu bytes is too long for a "
					"Unix socket (at most %zu)",
					strlen(sock), sizeof(t->rpc_socket) - 1);
		strcpy(t->rpc_socket, sock);
		t->rpc_socket_set = true;
	}
	/* "" keeps no reservation state (PTPL unsupported); otherwise an absolute path. */
	const char *rs = NULL;
	if (cfg_get_str(c, nt, "nvmf_target", "resv_state", false, &rs))
		return -1;
	if (rs) {
		if (*rs && rs[0] != '/')
			return cfg_fail(c, "nvmf_target", "resv_state",
					"%s is not an absolute path", cfg_quote(rs, b, sizeof(b)));
		if (strlen(rs) >= sizeof(t->resv_state))
			return cfg_fail(c, "nvmf_target", "resv_state",
					"path of %zu bytes is too long (at most %zu)", strlen(rs),
					sizeof(t->resv_state) - 1);
		strcpy(t->resv_state, rs);
		t->resv_state_set = true;
	}
	if (cfg_get_bool(c, nt, "nvmf_target", "persist", &t->persist) < 0)
		return -1;
	return cfg_get_bool(c, nt, "nvmf_target", "hugepages", &t->hugepages) < 0 ? -1 : 0;
}

/* hosts[].dhchap (nvmetcli's dump of the configfs host attributes dhchap_key,
 * dhchap_ctrl_key, dhchap_hash, dhchap_dhgroup): a host with a key must authenticate
 * (target/auth.h). A keyless dump ("" keys, default hash and group) adds nothing. No
 * message ever shows a secret. */
static int parse_dhchap(struct cfg_ctx *c, json_t *h, const char *base, const char *nqn,
			struct nvmf_config *cfg)
{
	const char *key, *ctrl_key, *hash, *group;
	struct nvme_dhchap_key *k = NULL;
	char where[64], b[80], why[160], names[96];
	json_t *d;

	if (cfg_get_typed(c, h, base, "dhchap", JSON_OBJECT, false, &d))
		return -1;
	if (!d)
		return 0;
	snprintf(where, sizeof(where), "%s.dhchap", base);
	static const char *const known[] = { "key", "ctrl_key", "hash", "dhgroup", NULL };
	if (cfg_check_keys(c, d, where, known, NULL))
		return -1;
	if (cfg_get_str(c, d, where, "key", false, &key) ||
	    cfg_get_str(c, d, where, "ctrl_key", false, &ctrl_key) ||
	    cfg_get_str(c, d, where, "hash", false, &hash) ||
	    cfg_get_str(c, d, where, "dhgroup", false, &group))
		return -1;
	if (hash && *hash && nvme_dhchap_hash_id(hash) < 0)
		return cfg_fail(c, where, "hash", "%s is not a DH-HMAC-CHAP hash (%s)",
				cfg_quote(hash, b, sizeof(b)),
				nvmf_choice_text(nvme_dhchap_hash_names, names, sizeof(names)));
	if (group && *group && nvme_dhchap_dhgroup_id(group) < 0)
		return cfg_fail(c, where, "dhgroup", "%s is not a DH group (%s)",
				cfg_quote(group, b, sizeof(b)),
				nvmf_choice_text(nvme_dhchap_dhgroup_names, names, sizeof(names)));
	if (ctrl_key && *ctrl_key && !(key && *key))
		return cfg_fail(c, where, "ctrl_key",
				"set without a host key: the host would connect "
				"without authentication (set dhchap.key too)");
	if (!key || !*key)
		return 0;
	if (!strcmp(key, "(secret)") || (ctrl_key && !strcmp(ctrl_key, "(secret)")))
		return cfg_fail(
			c, where, strcmp(key, "(secret)") ? "ctrl_key" : "key",
			"\"(secret)\" is the placeholder config show (config_get) prints; the file "
			"needs the secret itself (config save writes it)");
	if (nvme_dhchap_key_parse(key, &k, why, sizeof(why)))
		return cfg_fail(c, where, "key", "%s", why);
	nvme_dhchap_key_free(k);
	if (ctrl_key && *ctrl_key) {
		if (nvme_dhchap_key_parse(ctrl_key, &k, why, sizeof(why)))
			return cfg_fail(c, where, "ctrl_key", "%s", why);
		nvme_dhchap_key_free(k);
	}
	struct nvmf_dhchap_config *e = &cfg->dhchap[cfg->n_dhchap];
	if (!(e->hostnqn = strdup(nqn)) || !(e->key = strdup(key)) ||
	    (ctrl_key && *ctrl_key && !(e->ctrl_key = strdup(ctrl_key))) ||
	    (hash && *hash && !(e->hash = strdup(hash))) ||
	    (group && *group && !(e->dhgroup = strdup(group)))) {
		cfg->n_dhchap++; /* freed with the config */
		return cfg_fail(c, where, NULL, "out of memory");
	}
	cfg->n_dhchap++;
	return 0;
}

int nvmf_tls_key_file_read(const char *path, char **out, char *err, size_t errlen)
{
	size_t len = 0;
	int rc;
	char why[160];
	*out = NULL;
	if (path[0] != '/') {
		snprintf(err, errlen, "\"%.200s\" is not an absolute path", path);
		return -EINVAL;
	}
	/* As nvme gen-tls-key writes it: one line. */
	char *text = nvmf_read_secret_line(path, 4096, &len, &rc, why, sizeof(why));
	if (!text) {
		snprintf(err, errlen, "%s: %s", path, why);
		return rc;
	}
	if ((rc = nvmf_secret_file_private(path, why, sizeof(why)))) {
		snprintf(err, errlen, "%s %s", path, why);
	} else {
		struct nvme_tls_psk psk;
		rc = nvme_tls_psk_parse(text, &psk, why, sizeof(why));
		explicit_bzero(&psk, sizeof(psk));
		if (rc)
			snprintf(err, errlen, "%s: %s", path, why);
	}
	if (rc) {
		explicit_bzero(text, len);
		free(text);
		return rc;
	}
	*out = text;
	return 0;
}

/* hosts[].nvmf_tls_key / nvmf_tls_key_file: the host's configured TLS PSK, inline or in
 * a file, and nvmf_tls_key_compat (a boolean, only beside one of them): derive version 0
 * identities' PSK in libnvme's compat layout (nvme/tls-psk.h). A secret must not be
 * readable by others: the file named, or the configuration holding it inline, must have
 * no group or other permission bits. No message shows it. */
static int parse_tls_key(struct cfg_ctx *c, json_t *h, const char *base, const char *nqn,
			 struct nvmf_config *cfg)
{
	const char *key, *file;
	char why[300];
	struct stat st;
	struct nvme_tls_psk psk;
	char *text = NULL;

	if (cfg_get_str(c, h, base, "nvmf_tls_key", false, &key) ||
	    cfg_get_str(c, h, base, "nvmf_tls_key_file", false, &file))
		return -1;
	if (key && !*key)
		key = NULL;
	if (file && !*file)
		file = NULL;
	json_t *compat = json_object_get(h, "nvmf_tls_key_compat");
	char b[80];
	/* Our own key, not one of nvmetcli's: JSON true or false, no "0"/"1" strings. */
	if (compat && !json_is_boolean(compat))
		return cfg_fail(c, base, "nvmf_tls_key_compat", "expected true or false, got %s",
				cfg_show(compat, b, sizeof(b)));
	if (!key && !file)
		return compat ? cfg_fail(c, base, "nvmf_tls_key_compat",
					 "says how the host's TLS PSK is derived: it needs "
					 "nvmf_tls_key or nvmf_tls_key_file beside it") :
				0;
	if (key && file)
		return cfg_fail(c, base, "nvmf_tls_key_file",
				"set beside nvmf_tls_key: give the key one way");
	if (key && !strcmp(key, "(secret)"))
		return cfg_fail(c, base, "nvmf_tls_key",
				"\"(secret)\" is the placeholder config show prints; the file "
				"needs the key itself (config save writes it)");
	if (key && c->path && stat(c->path, &st) == 0 && (st.st_mode & 077))
		return cfg_fail(c, base, "nvmf_tls_key",
				"a TLS PSK inline in a file others can read (%s has mode %04o): "
				"chmod 600 it, or put the key in a file named by nvmf_tls_key_file",
				c->path, (unsigned)(st.st_mode & 07777));
	if (file && nvmf_tls_key_file_read(file, &text, why, sizeof(why)))
		return cfg_fail(c, base, "nvmf_tls_key_file", "%s", why);
	if (!file) {
		int rc = nvme_tls_psk_parse(key, &psk, why, sizeof(why));
		explicit_bzero(&psk, sizeof(psk));
		if (rc)
			return cfg_fail(c, base, "nvmf_tls_key", "%s", why);
		text = strdup(key);
	}
	struct nvmf_tls_key_config *e = &cfg->tls_keys[cfg->n_tls_keys++];
	e->hostnqn = strdup(nqn);
	e->key = text;
	e->key_file = file ? strdup(file) : NULL;
	e->compat = json_is_true(compat);
	if (!e->hostnqn || !e->key || (file && !e->key_file))
		return cfg_fail(c, base, NULL, "out of memory");
	return 0;
}

/* hosts[].nqn (informational: access control is each subsystem's allowed_hosts). */
static int parse_hosts(struct cfg_ctx *c, json_t *root, struct nvmf_config *cfg)
{
	json_t *arr, *h;
	const char *nqn;
	char base[48], b[80];
	size_t i;

	if (cfg_get_typed(c, root, "", "hosts", JSON_ARRAY, false, &arr))
		return -1;
	if (!arr)
		return 0;
	if (!(cfg->hosts = calloc(json_array_size(arr) + 1, sizeof(char *))) ||
	    !(cfg->dhchap = calloc(json_array_size(arr) + 1, sizeof(*cfg->dhchap))) ||
	    !(cfg->tls_keys = calloc(json_array_size(arr) + 1, sizeof(*cfg->tls_keys))))
		return cfg_fail(c, "hosts", NULL, "out of memory");
	json_array_foreach(arr, i, h) {
		snprintf(base, sizeof(base), "hosts[%zu]", i);
		if (!json_is_object(h))
			return cfg_fail(c, base, NULL, "expected an object, got %s",
					cfg_show(h, b, sizeof(b)));
		/* nvmetcli's host: its NQN and the dhchap attribute group; our TLS PSK. */
		static const char *const known[] = {
			"nqn", "dhchap", "nvmf_tls_key", "nvmf_tls_key_file", "nvmf_tls_key_compat",
			NULL
		};
		if (cfg_check_keys(c, h, base, known, NULL))
			return -1;
		if (cfg_get_str(c, h, base, "nqn", true, &nqn) ||
		    cfg_check_nqn(c, base, "nqn", nqn) || parse_dhchap(c, h, base, nqn, cfg) ||
		    parse_tls_key(c, h, base, nqn, cfg))
			return -1;
		for (size_t p = 0; p < i; p++)
			if (!strcmp(cfg->hosts[p], nqn))
				return cfg_fail(c, base, "nqn", "duplicate NQN %s",
						cfg_quote(nqn, b, sizeof(b)));
		if (!(cfg->hosts[i] = strdup(nqn)))
			return cfg_fail(c, base, "nqn", "out of memory");
		cfg->n_hosts = i + 1;
	}
	return 0;
}

/* Every allowed host of subsystems[@i] has its hosts[] entry. nvmetcli cannot express
 * otherwise (an allowed host is a link to hosts/NQN), and the entry is where the host's
 * DH-HMAC-CHAP key is: an NQN mistyped in either place would let the host connect without
 * authentication. */
static int check_allowed_hosts_known(struct cfg_ctx *c, const struct nvmf_config *cfg, size_t i)
{
	const struct nvmf_subsys_config *s = &cfg->subsystems[i];
	char base[48], k[48], b[80];
	for (size_t a = 0; a < s->n_allowed_hosts; a++) {
		size_t h = 0;
		while (h < cfg->n_hosts && strcmp(cfg->hosts[h], s->allowed_hosts[a]))
			h++;
		if (h < cfg->n_hosts)
			continue;
		snprintf(base, sizeof(base), "subsystems[%zu]", i);
		snprintf(k, sizeof(k), "allowed_hosts[%zu]", a);
		return cfg_fail(c, base, k,
				"host %s of subsystem %s has no hosts[] entry (nvmetcli: an "
				"allowed host must exist; were one of the NQNs mistyped, the "
				"host would connect without the key of its entry)",
				cfg_quote(s->allowed_hosts[a], b, sizeof(b)), s->nqn);
	}
	return 0;
}

/* The whole document: target settings, hosts, subsystems, then ports (which link to
 * subsystems by NQN). */
static bool has_tls_key(const struct nvmf_config *cfg, const char *host)
{
	for (size_t k = 0; k < cfg->n_tls_keys; k++)
		if (!strcmp(cfg->tls_keys[k].hostnqn, host))
			return true;
	return false;
}

/* A port that requires TLS admits only hosts with a TLS PSK: a subsystem there whose
 * hosts have none is served to nobody, which --check and each load say (a warning: the
 * keys may come live, host tls-key). */
static int check_tls_reach(struct cfg_ctx *c, const struct nvmf_config *cfg)
{
	for (size_t i = 0; i < cfg->n_ports; i++) {
		const struct nvmf_port_config *p = &cfg->ports[i];
		if (p->tsas != NVMF_TCP_SECTYPE_TLS13 || p->treq != NVMF_TREQ_REQUIRED)
			continue;
		for (size_t j = 0; j < p->n_subsystems; j++) {
			const struct nvmf_subsys_config *s = NULL;
			for (size_t k = 0; k < cfg->n_subsystems && !s; k++)
				if (!strcmp(cfg->subsystems[k].nqn, p->subsystems[j]))
					s = &cfg->subsystems[k];
			if (!s)
				continue;
			size_t keyed = 0, first = SIZE_MAX;
			for (size_t h = 0; h < s->n_allowed_hosts; h++) {
				if (has_tls_key(cfg, s->allowed_hosts[h]))
					keyed++;
				else if (first == SIZE_MAX)
					first = h;
			}
			int rc = 0;
			if (s->allow_any_host && !cfg->n_tls_keys)
				rc = cfg_note(
					c,
					"ports[%zu] requires TLS (addr.treq \"required\") and "
					"subsystem %s admits any host, but no host has a TLS PSK "
					"(hosts[].nvmf_tls_key_file): no host can connect to it "
					"there",
					i, s->nqn);
			else if (!s->allow_any_host && first != SIZE_MAX && !keyed)
				rc = cfg_note(
					c,
					"ports[%zu] requires TLS (addr.treq \"required\"), and none "
					"of subsystem %s's allowed hosts has a TLS PSK "
					"(hosts[].nvmf_tls_key_file): no host can connect to it "
					"there",
					i, s->nqn);
			else if (!s->allow_any_host && first != SIZE_MAX)
				rc = cfg_note(
					c,
					"ports[%zu] requires TLS (addr.treq \"required\"): host %s, "
					"allowed in subsystem %s, has no TLS PSK "
					"(hosts[].nvmf_tls_key_file) and cannot connect to it there "
					"(%zu of its %zu allowed hosts have none)",
					i, s->allowed_hosts[first], s->nqn,
					s->n_allowed_hosts - keyed, s->n_allowed_hosts);
			if (rc)
				return -1;
		}
	}
	return 0;
}

static int parse_root(struct cfg_ctx *c, json_t *root, struct nvmf_config *cfg)
{
	json_t *subs, *ports, *v;
	char base[48], b[80];
	size_t i;

	if (!json_is_object(root)) {
		if (c->err && c->errlen)
			snprintf(c->err, c->errlen,
				 "the configuration must be a JSON object, got %s",
				 cfg_show(root, b, sizeof(b)));
		return -1;
	}
	static const char *const known[] = { "hosts",     "ports",       "subsystems",
					     "discovery", "nvmf_target", "nvmf_gateway",
					     NULL };
	if (cfg_check_keys(c, root, "", known, NULL) || parse_target(c, root, &cfg->target) ||
	    parse_hosts(c, root, cfg) ||
	    cfg_get_typed(c, root, "", "subsystems", JSON_ARRAY, false, &subs) ||
	    cfg_get_typed(c, root, "", "ports", JSON_ARRAY, false, &ports))
		return -1;
	if (subs &&
	    !(cfg->subsystems = calloc(json_array_size(subs) + 1, sizeof(*cfg->subsystems))))
		return cfg_fail(c, "subsystems", NULL, "out of memory");
	cfg->n_subsystems = subs ? json_array_size(subs) : 0;
	json_array_foreach(subs, i, v) {
		snprintf(base, sizeof(base), "subsystems[%zu]", i);
		if (!json_is_object(v))
			return cfg_fail(c, base, NULL, "expected an object, got %s",
					cfg_show(v, b, sizeof(b)));
		if (parse_subsys(c, v, base, &cfg->subsystems[i], cfg->target.discovery_nqn) ||
		    check_allowed_hosts_known(c, cfg, i))
			return -1;
		for (size_t p = 0; p < i; p++)
			if (!strcmp(cfg->subsystems[p].nqn, cfg->subsystems[i].nqn))
				return cfg_fail(c, base, "nqn", "duplicate NQN %s",
						cfg_quote(cfg->subsystems[i].nqn, b, sizeof(b)));
	}
	if (ports && !(cfg->ports = calloc(json_array_size(ports) + 1, sizeof(*cfg->ports))))
		return cfg_fail(c, "ports", NULL, "out of memory");
	cfg->n_ports = ports ? json_array_size(ports) : 0;
	json_array_foreach(ports, i, v) {
		snprintf(base, sizeof(base), "ports[%zu]", i);
		if (!json_is_object(v))
			return cfg_fail(c, base, NULL, "expected an object, got %s",
					cfg_show(v, b, sizeof(b)));
		if (parse_port(c, v, base, &cfg->ports[i], cfg) || check_port_overlap(c, cfg, i))
			return -1;
	}
	if (cfg_check_ns_groups(c, cfg) || cfg_parse_gateway(c, root, cfg))
		return -1;
	return check_tls_reach(c, cfg);
}

static int finish(json_t *root, json_error_t *jerr, struct nvmf_config *cfg, const char *path,
		  char *err, size_t errlen)
{
	struct cfg_ctx c = { .err = err, .errlen = errlen, .path = path };
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (!root) {
		if (err && errlen)
			snprintf(err, errlen, "line %d, column %d: %s", jerr->line, jerr->column,
				 jerr->text);
		return -1;
	}
	rc = parse_root(&c, root, cfg);
	json_decref(root);
	if (rc) {
		cfg_notes_free(&c);
		nvmf_config_free(cfg);
		return rc;
	}
	cfg->notes = c.notes;
	cfg->n_notes = c.n_notes;
	return 0;
}

/* Duplicate keys are refused: json.dumps never writes them, so one is a hand edit whose
 * intent (first or last wins?) is unclear. */
int nvmf_config_parse(const char *json, struct nvmf_config *cfg, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);

	return finish(root, &jerr, cfg, NULL, err, errlen);
}

int nvmf_config_load(const char *path, struct nvmf_config *cfg, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root;
	size_t len = 0;
	int rc;
	char why[160];

	memset(cfg, 0, sizeof(*cfg));
	/* Only a regular file, and at most NVMF_CONFIG_FILE_MAX of it: /dev/zero, a FIFO or
	 * a huge file would block the start or grow memory without bound. */
	char *text =
		nvmf_read_regular_file(path, NVMF_CONFIG_FILE_MAX, &len, &rc, why, sizeof(why));
	if (!text) {
		if (!err || !errlen)
			return -1;
		if (rc == -EISDIR) /* jansson would call it JSON that ends early */
			snprintf(err, errlen, "is a directory, not a configuration file");
		else if (rc == -EINVAL || rc == -EFBIG || rc == -ENOMEM)
			snprintf(err, errlen, "%s", why);
		else if (!strncmp(why, "read: ", 6))
			snprintf(err, errlen, "cannot read %s: %s", path, why + 6);
		else
			snprintf(err, errlen, "cannot open %s: %s", path, why);
		return -1;
	}
	/* Nothing but white space: jansson's "'[' or '{' expected near end of file" would
	 * send the user looking for a syntax error. */
	if (!text[strspn(text, " \t\r\n")] && strlen(text) == len) {
		free(text);
		if (err && errlen)
			snprintf(err, errlen, "is empty (a configuration is one JSON object)");
		return -1;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	explicit_bzero(text, len); /* it may hold DH-HMAC-CHAP secrets */
	free(text);
	return finish(root, &jerr, cfg, path, err, errlen);
}

const char *nvmf_backend_kind_name(enum nvmf_backend_kind kind)
{
	if (kind == NVMF_BACKEND_PASSTHRU)
		return "passthru"; /* not a namespace's nvmf_backend: never parsed */
	return (unsigned)kind <= NVMF_BACKEND_RBD && backend_names[kind] ? backend_names[kind] :
									   "?";
}

int nvmf_config_parse_ns(json_t *obj, const char *base, struct nvmf_ns_config *ns, char *err,
			 size_t errlen)
{
	struct cfg_ctx c = { .err = err, .errlen = errlen };
	char b[80];
	memset(ns, 0, sizeof(*ns));
	if (!json_is_object(obj))
		return cfg_fail(&c, base, NULL, "expected an object, got %s",
				cfg_show(obj, b, sizeof(b)));
	int rc = parse_ns(&c, obj, base, ns);
	cfg_notes_free(&c);
	if (rc)
		nvmf_config_ns_free(ns);
	return rc ? -1 : 0;
}

int nvmf_config_parse_subsys(json_t *obj, const char *base, const char *disc_nqn,
			     struct nvmf_subsys_config *s, char *err, size_t errlen)
{
	struct cfg_ctx c = { .err = err, .errlen = errlen };
	char b[80];
	memset(s, 0, sizeof(*s));
	if (!json_is_object(obj))
		return cfg_fail(&c, base, NULL, "expected an object, got %s",
				cfg_show(obj, b, sizeof(b)));
	int rc = parse_subsys(&c, obj, base, s, disc_nqn);
	cfg_notes_free(&c);
	if (rc)
		nvmf_config_subsys_clear(s);
	return rc ? -1 : 0;
}

int nvmf_config_parse_port(json_t *obj, const char *base, struct nvmf_port_config *p, char *err,
			   size_t errlen)
{
	struct cfg_ctx c = { .err = err, .errlen = errlen };
	char b[80];
	memset(p, 0, sizeof(*p));
	if (!json_is_object(obj))
		return cfg_fail(&c, base, NULL, "expected an object, got %s",
				cfg_show(obj, b, sizeof(b)));
	int rc = parse_port(&c, obj, base, p, NULL);
	cfg_notes_free(&c);
	if (rc)
		nvmf_config_port_clear(p);
	return rc ? -1 : 0;
}

int nvmf_config_check_nqn(const char *what, const char *nqn, char *err, size_t errlen)
{
	struct cfg_ctx c = { .err = err, .errlen = errlen };
	return cfg_check_nqn(&c, what, NULL, nqn);
}

void nvmf_config_ns_free(struct nvmf_ns_config *ns)
{
	free(ns->path);
	ns->path = NULL;
}

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void nvmf_config_dhchap_clear(struct nvmf_dhchap_config *e)
{
	free(e->hostnqn);
	free_secret(e->key);
	free_secret(e->ctrl_key);
	free(e->hash);
	free(e->dhgroup);
	memset(e, 0, sizeof(*e));
}

void nvmf_config_dhchap_free(struct nvmf_dhchap_config *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++)
		nvmf_config_dhchap_clear(&d[i]);
	free(d);
}

void nvmf_config_tls_keys_clear(struct nvmf_tls_key_config *e)
{
	if (e->key) {
		explicit_bzero(e->key, strlen(e->key));
		free(e->key);
	}
	free(e->hostnqn);
	free(e->key_file);
	memset(e, 0, sizeof(*e));
}

void nvmf_config_tls_keys_free(struct nvmf_tls_key_config *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++)
		nvmf_config_tls_keys_clear(&k[i]);
	free(k);
}

int nvmf_config_tls_keys_dup(const struct nvmf_tls_key_config *src, size_t n,
			     struct nvmf_tls_key_config **out)
{
	*out = NULL;
	if (!n)
		return 0;
	struct nvmf_tls_key_config *d = calloc(n, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		d[i].compat = src[i].compat;
		if (!(d[i].hostnqn = strdup(src[i].hostnqn)) || !(d[i].key = strdup(src[i].key)) ||
		    (src[i].key_file && !(d[i].key_file = strdup(src[i].key_file)))) {
			nvmf_config_tls_keys_free(d, n);
			return -ENOMEM;
		}
	}
	*out = d;
	return 0;
}

const struct nvmf_tls_key_config *nvmf_config_tls_key(const struct nvmf_config *cfg,
						      const char *host)
{
	for (size_t i = 0; i < cfg->n_tls_keys; i++)
		if (!strcmp(cfg->tls_keys[i].hostnqn, host))
			return &cfg->tls_keys[i];
	return NULL;
}

static bool dup_opt(const char *s, char **out)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out;
}

int nvmf_config_dhchap_dup(const struct nvmf_dhchap_config *src, size_t n,
			   struct nvmf_dhchap_config **out)
{
	*out = NULL;
	if (!n)
		return 0;
	struct nvmf_dhchap_config *d = calloc(n, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!dup_opt(src[i].hostnqn, &d[i].hostnqn) || !dup_opt(src[i].key, &d[i].key) ||
		    !dup_opt(src[i].ctrl_key, &d[i].ctrl_key) ||
		    !dup_opt(src[i].hash, &d[i].hash) || !dup_opt(src[i].dhgroup, &d[i].dhgroup)) {
			nvmf_config_dhchap_free(d, n);
			return -ENOMEM;
		}
	*out = d;
	return 0;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		free(list[i]);
	free(list);
}

/* A strdup'd copy of @n strings (NULL for none); false without memory. */
static bool dup_list(char *const *src, size_t n, char ***out)
{
	*out = NULL;
	if (!n)
		return true;
	char **l = calloc(n, sizeof(*l));
	for (size_t i = 0; l && i < n; i++)
		if (!(l[i] = strdup(src[i]))) {
			free_list(l, i);
			return false;
		}
	*out = l;
	return l != NULL;
}

void nvmf_config_subsys_clear(struct nvmf_subsys_config *s)
{
	free_list(s->allowed_hosts, s->n_allowed_hosts);
	for (size_t n = 0; s->ns && n < s->n_ns; n++)
		free(s->ns[n].path);
	free(s->ns);
	memset(s, 0, sizeof(*s));
}

int nvmf_config_subsys_dup(const struct nvmf_subsys_config *src, struct nvmf_subsys_config *dst)
{
	*dst = *src;
	dst->allowed_hosts = NULL;
	dst->ns = NULL;
	dst->n_allowed_hosts = dst->n_ns = 0;
	if (!dup_list(src->allowed_hosts, src->n_allowed_hosts, &dst->allowed_hosts))
		goto nomem;
	dst->n_allowed_hosts = src->n_allowed_hosts;
	if (src->n_ns && !(dst->ns = calloc(src->n_ns, sizeof(*dst->ns))))
		goto nomem;
	for (size_t i = 0; i < src->n_ns; i++) {
		dst->ns[i] = src->ns[i];
		dst->ns[i].path = NULL;
		dst->n_ns = i + 1;
		if (src->ns[i].path && !(dst->ns[i].path = strdup(src->ns[i].path)))
			goto nomem;
	}
	return 0;
nomem:
	nvmf_config_subsys_clear(dst);
	return -ENOMEM;
}

void nvmf_config_port_clear(struct nvmf_port_config *p)
{
	free_list(p->subsystems, p->n_subsystems);
	free(p->referrals);
	free(p->ana_groups);
	memset(p, 0, sizeof(*p));
}

int nvmf_config_port_dup(const struct nvmf_port_config *src, struct nvmf_port_config *dst)
{
	*dst = *src;
	dst->referrals = NULL;
	if (!dup_list(src->subsystems, src->n_subsystems, &dst->subsystems)) {
		memset(dst, 0, sizeof(*dst));
		return -ENOMEM;
	}
	dst->ana_groups = NULL;
	if (nvmf_config_referrals_dup(src->referrals, src->n_referrals, &dst->referrals) ||
	    nvmf_config_ana_groups_dup(src->ana_groups, src->n_ana_groups, &dst->ana_groups)) {
		free(dst->referrals);
		free_list(dst->subsystems, dst->n_subsystems);
		memset(dst, 0, sizeof(*dst));
		return -ENOMEM;
	}
	return 0;
}

void nvmf_config_free(struct nvmf_config *cfg)
{
	if (!cfg)
		return;
	free_list(cfg->hosts, cfg->n_hosts);
	nvmf_config_dhchap_free(cfg->dhchap, cfg->n_dhchap);
	nvmf_config_tls_keys_free(cfg->tls_keys, cfg->n_tls_keys);
	for (size_t i = 0; cfg->ports && i < cfg->n_ports; i++)
		nvmf_config_port_clear(&cfg->ports[i]);
	free(cfg->ports);
	for (size_t i = 0; cfg->subsystems && i < cfg->n_subsystems; i++)
		nvmf_config_subsys_clear(&cfg->subsystems[i]);
	free(cfg->subsystems);
	free_list(cfg->notes, cfg->n_notes);
	memset(cfg, 0, sizeof(*cfg));
}
