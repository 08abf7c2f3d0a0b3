// SPDX-License-Identifier: MIT
/*
 * nvmf-targetctl's commands: for each, its words, its JSON-RPC method, its usage, and the
 * builder that turns its arguments into the method's params. Builders check what the
 * command line alone can tell (numbers, ranges, which options go together) so that a
 * typo is a usage error naming the argument; everything that needs the target's state
 * is the target's to refuse.
 */
#include <arpa/inet.h>
#include <string.h>

#include "control/schema.h"
#include "nvme/ana-state.h"
#include "nvme/dhchap.h"
#include "util/secret.h"
#include "nvme/identify.h"
#include "util/choice.h"
#include "app/nvmf-targetctl/targetctl.h"

/* The methods' public limits (control/schema.h), for the arguments that map to them. */
#define NQN_MAX    ((int)NVMF_CTL_NQN_MAX)
#define NSID_MAX   NVMF_CTL_NSID_MAX
#define CNTLID_MAX NVMF_CTL_CNTLID_MAX
#define PORTID_MAX NVMF_CTL_PORTID_MAX
#define GRPID_MAX  NVMF_CTL_GRPID_MAX
#define SERIAL_MAX 20 /* Identify Controller SN and MN: ASCII, 20 and 40 bytes */
#define MODEL_MAX  40
#define OPT(o)     (1ull << TCTL_OPT_##o)

/* json_object_set_new that reports failure (no memory, or NULL from a bad string). */
static int put(json_t *o, const char *key, json_t *v, char *msg, size_t len)
{
	if (json_object_set_new(o, key, v)) {
		snprintf(msg, len, "%s: out of memory or not valid UTF-8", key);
		return -1;
	}
	return 0;
}

/* An NQN argument @s named @what (NQN, HOSTNQN, --nqn): 0, or -1 with @msg. */
static int check_nqn(const char *what, const char *s, char *msg, size_t len)
{
	if (nvmf_text_has_secret(s)) {
		snprintf(msg, len, "%s is a secret (not shown), not an NQN", what);
		return -1;
	}
	if (!*s || strlen(s) > NQN_MAX) {
		snprintf(msg, len, "%s '%s' must be 1 to %d bytes", what, s, NQN_MAX);
		return -1;
	}
	return 0;
}

/* An NQN argument @s named @what into @key. */
static int put_nqn(json_t *o, const char *key, const char *what, const char *s, char *msg,
		   size_t len)
{
	return check_nqn(what, s, msg, len) ? -1 : put(o, key, json_string(s), msg, len);
}

/* A new empty object (or array, @array) as @key of @o: borrowed (@o owns it), NULL with
 * @msg when out of memory. */
static json_t *put_new(json_t *o, const char *key, bool array, char *msg, size_t len)
{
	json_t *v = array ? json_array() : json_object();
	return v && !put(o, key, v, msg, len) ? v : NULL;
}

/* Every value of the repeatable option @opt (named @what), in order, as NQNs into the
 * array @arr; one given twice is refused here, as the target would. */
static int put_nqn_list(json_t *arr, const struct tctl_args *a, enum tctl_opt opt, const char *what,
			char *msg, size_t len)
{
	for (unsigned i = 0; i < a->nrep; i++) {
		if (a->rep_opt[i] != (int)opt)
			continue;
		if (check_nqn(what, a->rep[i], msg, len))
			return -1;
		for (unsigned k = 0; k < i; k++)
			if (a->rep_opt[k] == (int)opt && !strcmp(a->rep[k], a->rep[i])) {
				snprintf(msg, len, "%s '%s' given twice", what, a->rep[i]);
				return -1;
			}
		if (json_array_append_new(arr, json_string(a->rep[i]))) {
			snprintf(msg, len, "%s: out of memory or not valid UTF-8", what);
			return -1;
		}
	}
	return 0;
}

/* A number in [@min, @max] as the decimal string nvmetcli's attr and param values are. */
static int put_uint_text(json_t *o, const char *key, const char *what, const char *s, uint64_t min,
			 uint64_t max, char *msg, size_t len)
{
	uint64_t v;
	char text[24];
	if (tctl_parse_uint(s, what, min, max, &v, msg, len))
		return -1;
	snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	return put(o, key, json_string(text), msg, len);
}

/* 1 to @max printable ASCII characters (an Identify string field). */
static int put_ascii(json_t *o, const char *key, const char *what, const char *s, size_t max,
		     char *msg, size_t len)
{
	bool ok = *s && strlen(s) <= max;
	for (const char *c = s; ok && *c; c++)
		ok = *c >= 0x20 && *c <= 0x7e;
	if (!ok) {
		snprintf(msg, len, "%s '%s' must be 1 to %zu printable ASCII characters", what, s,
			 max);
		return -1;
	}
	return put(o, key, json_string(s), msg, len);
}

static int put_uint(json_t *o, const char *key, const char *what, const char *s, uint64_t min,
		    uint64_t max, char *msg, size_t len)
{
	uint64_t v;
	if (tctl_parse_uint(s, what, min, max, &v, msg, len))
		return -1;
	return put(o, key, json_integer((json_int_t)v), msg, len);
}

/* A size that must not be 0 (a namespace of no bytes is no namespace). */
static int put_size(json_t *o, const char *key, const char *what, const char *s, char *msg,
		    size_t len)
{
	uint64_t v;
	if (tctl_parse_size(s, what, &v, msg, len))
		return -1;
	if (!v) {
		snprintf(msg, len, "%s must be greater than 0", what);
		return -1;
	}
	return put(o, key, json_integer((json_int_t)v), msg, len);
}

/* @s, typed as @what, into @o's @key when it is one of the choices of @method's parameter
 * @key (control/schema.c, which takes them from the table that names them); else a usage
 * error naming them all: "STATE 'slow' is not optimized, ..., persistent-loss or change"
 * (a DH-HMAC-CHAP secret typed by mistake is not repeated). */
static int put_choice(json_t *o, const char *method, const char *key, const char *what,
		      const char *s, char *msg, size_t len)
{
	const struct nvmf_rpc_param *p = nvmf_rpc_schema_param(nvmf_ctl_schema_find(method), key);
	char names[160];
	if (nvmf_choice_index(p->choices, s) >= 0)
		return put(o, key, json_string(s), msg, len);
	if (nvmf_text_has_secret(s))
		snprintf(msg, len, "%s (a secret, not shown) is not %s", what,
			 nvmf_choice_text(p->choices, names, sizeof(names)));
	else
		snprintf(msg, len, "%s '%s' is not %s", what, s,
			 nvmf_choice_text(p->choices, names, sizeof(names)));
	return -1;
}

static int b_subsystem_list(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			    char *msg, size_t len)
{
	(void)c;
	return a->npos ? put_nqn(p, "nqn", "NQN", a->pos[0], msg, len) : 0;
}

static int b_controller_list(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			     char *msg, size_t len)
{
	(void)c;
	const char *nqn = a->opt[TCTL_OPT_NQN];
	return nqn ? put_nqn(p, "nqn", "--nqn", nqn, msg, len) : 0;
}

static int b_controller_disconnect(const struct tctl_command *c, const struct tctl_args *a,
				   json_t *p, char *msg, size_t len)
{
	(void)c;
	return put_nqn(p, "nqn", "NQN", a->pos[0], msg, len) ||
			       put_uint(p, "cntlid", "CNTLID", a->pos[1], 1, CNTLID_MAX, msg, len) ?
		       -1 :
		       0;
}

/* NQN NSID, and for resize SIZE when given. */
static int b_nqn_nsid(const struct tctl_command *c, const struct tctl_args *a, json_t *p, char *msg,
		      size_t len)
{
	if (put_nqn(p, "nqn", "NQN", a->pos[0], msg, len) ||
	    put_uint(p, "nsid", "NSID", a->pos[1], 1, NSID_MAX, msg, len))
		return -1;
	if (a->opt[TCTL_OPT_FORCE])
		json_object_set_new(p, "force", json_true()); /* remove, disable */
	if (c->out == TCTL_OUT_NS_RESIZE && a->npos > 2)      /* none: the device's size */
		return put_size(p, "size_bytes", "SIZE", a->pos[2], msg, len);
	/* namespace reservation NQN NSID clear: the one word, spelled out (a typo must not
	 * read the reservation instead, nor clear it by a word meaning something else). */
	if (c->out == TCTL_OUT_NS_RESV && a->npos > 2 && strcmp(a->pos[2], "clear")) {
		snprintf(msg, len, "'%s' is not clear (the only word after NSID)", a->pos[2]);
		return -1;
	}
	return 0;
}

static int b_host(const struct tctl_command *c, const struct tctl_args *a, json_t *p, char *msg,
		  size_t len)
{
	(void)c;
	return put_nqn(p, "nqn", "NQN", a->pos[0], msg, len) ||
			       put_nqn(p, "host", "HOSTNQN", a->pos[1], msg, len) ?
		       -1 :
		       0;
}

/* host dhchap HOSTNQN [--hash H] [--dhgroup G]: the secrets come from the environment
 * (tctl_load_dhchap_secrets). */
static int b_dhchap_set(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			char *msg, size_t len)
{
	const char *hash = a->opt[TCTL_OPT_HASH], *group = a->opt[TCTL_OPT_DHGROUP];
	return put_nqn(p, "host", "HOSTNQN", a->pos[0], msg, len) ||
			       (hash &&
				put_choice(p, c->method, "hash", "--hash", hash, msg, len)) ||
			       (group &&
				put_choice(p, c->method, "dhgroup", "--dhgroup", group, msg, len)) ?
		       -1 :
		       0;
}

static int b_dhchap_clear(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			  char *msg, size_t len)
{
	(void)c;
	return put_nqn(p, "host", "HOSTNQN", a->pos[0], msg, len) ? -1 : 0;
}

/* host tls-key HOSTNQN --key-file PATH [--compat]: the target reads the key from PATH
 * (made absolute by tctl_load_key_file_path), so no secret crosses the socket or the
 * command line; --compat sends "compat": true. */
static int b_tls_key_set(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			 char *msg, size_t len)
{
	(void)c;
	const char *file = a->opt[TCTL_OPT_KEY_FILE];
	if (put_nqn(p, "host", "HOSTNQN", a->pos[0], msg, len))
		return -1;
	if (!file || !*file) {
		snprintf(msg, len,
			 "missing --key-file PATH (the host's key, as nvme gen-tls-key "
			 "prints it, in a file only its owner can read)");
		return -1;
	}
	if (put(p, "key_file", json_string(file), msg, len))
		return -1;
	return a->opt[TCTL_OPT_COMPAT] ? put(p, "compat", json_true(), msg, len) : 0;
}

static int b_allow_any_host(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			    char *msg, size_t len)
{
	(void)c;
	static const char *const on[] = { "on", "yes", "true", "1", NULL };
	static const char *const off[] = { "off", "no", "false", "0", NULL };
	int allow = -1;
	for (unsigned i = 0; on[i]; i++) {
		if (!strcmp(a->pos[1], on[i]))
			allow = 1;
		if (!strcmp(a->pos[1], off[i]))
			allow = 0;
	}
	if (put_nqn(p, "nqn", "NQN", a->pos[0], msg, len))
		return -1;
	if (allow < 0) {
		snprintf(msg, len, "'%s' is not on or off", a->pos[1]);
		return -1;
	}
	return put(p, "allow", json_boolean(allow), msg, len);
}

static int b_namespace_stats(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			     char *msg, size_t len)
{
	(void)c;
	const char *nqn = a->opt[TCTL_OPT_NQN], *nsid = a->opt[TCTL_OPT_NSID];
	if (nsid && !nqn) { /* an nsid means nothing without its subsystem */
		snprintf(msg, len, "--nsid needs --nqn");
		return -1;
	}
	if (nqn && put_nqn(p, "nqn", "--nqn", nqn, msg, len))
		return -1;
	return nsid ? put_uint(p, "nsid", "--nsid", nsid, 1, NSID_MAX, msg, len) : 0;
}

static int b_config_reload(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			   char *msg, size_t len)
{
	(void)c;
	(void)msg;
	(void)len;
	if (a->opt[TCTL_OPT_FORCE])
		json_object_set_new(p, "force", json_true());
	return 0;
}

static int b_call(const struct tctl_command *c, const struct tctl_args *a, json_t *p, char *msg,
		  size_t len)
{
	(void)c;
	if (!a->pos[0][0]) {
		snprintf(msg, len, "METHOD is empty");
		return -1;
	}
	if (a->npos < 2)
		return 0;
	json_error_t je;
	json_t *v = json_loads(a->pos[1], JSON_REJECT_DUPLICATES, &je);
	if (!v) {
		snprintf(msg, len, "JSON-PARAMS: %s (column %d)", je.text, je.column);
		return -1;
	}
	int rc = 0;
	if (!json_is_object(v)) {
		snprintf(msg, len, "JSON-PARAMS must be an object ({\"name\": value, ...})");
		rc = -1;
	} else if (json_object_update(p, v)) {
		snprintf(msg, len, "out of memory");
		rc = -1;
	}
	json_decref(v);
	return rc;
}

/* --rbd POOL/IMAGE or POOL/NAMESPACE/IMAGE and its --rbd-* options into @ns (the loader
 * checks the names and paths, docs/ceph.md). */
static int ns_rbd(const struct tctl_args *a, json_t *ns, char *msg, size_t len)
{
	const char *spec = a->opt[TCTL_OPT_RBD];
	char buf[400], *part[4];
	int n = 0;
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(msg, len, "--rbd is longer than %zu characters", sizeof(buf) - 1);
		return -1;
	}
	strcpy(buf, spec);
	for (char *p = buf, *slash; n < 4; p = slash + 1) {
		part[n++] = p;
		if (!(slash = strchr(p, '/')))
			break;
		*slash = '\0';
	}
	bool empty = false;
	for (int i = 0; i < n; i++)
		empty |= !*part[i];
	if (n < 2 || n > 3 || empty) {
		snprintf(msg, len, "--rbd '%s' is not POOL/IMAGE or POOL/NAMESPACE/IMAGE", spec);
		return -1;
	}
	static const struct {
		int opt;
		const char *key;
	} extra[] = { { TCTL_OPT_RBD_CONF, "nvmf_rbd_conf" },
		      { TCTL_OPT_RBD_KEYRING, "nvmf_rbd_keyring" },
		      { TCTL_OPT_RBD_CLIENT, "nvmf_rbd_client_id" } };
	if (put(ns, "nvmf_backend", json_string("rbd"), msg, len) ||
	    put(ns, "nvmf_rbd_pool", json_string(part[0]), msg, len) ||
	    (n == 3 && put(ns, "nvmf_rbd_namespace", json_string(part[1]), msg, len)) ||
	    put(ns, "nvmf_rbd_image", json_string(part[n - 1]), msg, len))
		return -1;
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		if (a->opt[extra[i].opt] &&
		    put(ns, extra[i].key, json_string(a->opt[extra[i].opt]), msg, len))
			return -1;
	return 0;
}

/* --path / --ram / --null / --rbd, and what goes with each, into the namespace object @ns. */
static int ns_storage(const struct tctl_args *a, json_t *ns, json_t *dev, char *msg, size_t len)
{
	const char *path = a->opt[TCTL_OPT_PATH], *ram = a->opt[TCTL_OPT_RAM];
	const char *null = a->opt[TCTL_OPT_NULL], *backend = a->opt[TCTL_OPT_BACKEND];
	const char *size = a->opt[TCTL_OPT_SIZE], *rbd = a->opt[TCTL_OPT_RBD];
	int kinds = !!path + !!ram + !!null + !!rbd;
	if (kinds != 1) {
		snprintf(
			msg, len,
			kinds ? "--path, --ram, --null and --rbd exclude each other" :
				"one of --path PATH, --ram SIZE, --null SIZE or --rbd POOL/IMAGE is "
				"required");
		return -1;
	}
	const char *rbd_only = a->opt[TCTL_OPT_RBD_CONF]    ? "--rbd-conf" :
			       a->opt[TCTL_OPT_RBD_KEYRING] ? "--rbd-keyring" :
			       a->opt[TCTL_OPT_RBD_CLIENT]  ? "--rbd-client" :
							      NULL;
	if (rbd_only && !rbd) {
		snprintf(msg, len, "%s goes with --rbd only", rbd_only);
		return -1;
	}
	if (!path) {
		const char *what = ram ? "--ram" : null ? "--null" : "--rbd";
		const char *bad = backend                   ? "--backend" :
				  size                      ? "--size" :
				  a->opt[TCTL_OPT_CREATE]   ? "--create" :
				  a->opt[TCTL_OPT_BUFFERED] ? "--buffered" :
							      NULL;
		if (bad) { /* each of these is about a file */
			snprintf(msg, len, "%s goes with --path only (%s takes no file)", bad,
				 what);
			return -1;
		}
		if (rbd)
			return ns_rbd(a, ns, msg, len);
		return put(ns, "nvmf_backend", json_string(ram ? "ram" : "null"), msg, len) ||
				       put_size(ns, "nvmf_size_bytes", what, ram ? ram : null, msg,
						len) ?
			       -1 :
			       0;
	}
	if (!*path) {
		snprintf(msg, len, "--path is empty");
		return -1;
	}
	if (put(dev, "path", json_string(path), msg, len))
		return -1;
	if (backend) {
		if (strcmp(backend, "file") && strcmp(backend, "bdev") && strcmp(backend, "nvme")) {
			snprintf(msg, len, "--backend '%s' is not file, bdev or nvme", backend);
			return -1;
		}
		if (put(ns, "nvmf_backend", json_string(backend), msg, len))
			return -1;
	}
	if (size && put_size(ns, "nvmf_size_bytes", "--size", size, msg, len))
		return -1;
	if (a->opt[TCTL_OPT_CREATE]) {
		if (!size) {
			snprintf(msg, len,
				 "--create needs --size SIZE (the size of the file to create)");
			return -1;
		}
		if (backend && strcmp(backend, "file")) {
			snprintf(msg, len, "--create makes a file, not a '%s' namespace", backend);
			return -1;
		}
		return put(ns, "nvmf_create", json_true(), msg, len);
	}
	return 0;
}

static int b_namespace_add(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			   char *msg, size_t len)
{
	(void)c;
	const char *nsid = a->opt[TCTL_OPT_NSID], *bs = a->opt[TCTL_OPT_BLOCK_SIZE];
	const char *uuid = a->opt[TCTL_OPT_UUID], *nguid = a->opt[TCTL_OPT_NGUID];
	uint8_t id[16];
	char why[160];
	if (put_nqn(p, "nqn", "NQN", a->pos[0], msg, len))
		return -1;
	json_t *ns = json_object(), *dev = json_object();
	int rc = -1;
	if (!ns || !dev || put(p, "namespace", json_incref(ns), msg, len))
		goto out;
	if (nsid && put_uint(ns, "nsid", "--nsid", nsid, 1, NSID_MAX, msg, len))
		goto out;
	if (put(ns, "enable", json_boolean(!a->opt[TCTL_OPT_DISABLED]), msg, len) ||
	    put(ns, "device", json_incref(dev), msg, len) || ns_storage(a, ns, dev, msg, len))
		goto out;
	if (uuid && nvme_uuid_parse(uuid, id, why, sizeof(why))) {
		snprintf(msg, len, "--uuid '%s' %s", uuid, why);
		goto out;
	}
	if (nguid && nvme_nguid_parse(nguid, id, why, sizeof(why))) {
		snprintf(msg, len, "--nguid '%s' %s", nguid, why);
		goto out;
	}
	if ((uuid && put(dev, "uuid", json_string(uuid), msg, len)) ||
	    (nguid && put(dev, "nguid", json_string(nguid), msg, len)))
		goto out;
	if (bs) {
		if (strcmp(bs, "512") && strcmp(bs, "4096")) {
			snprintf(msg, len, "--block-size '%s' is not 512 or 4096", bs);
			goto out;
		}
		if (put(ns, "nvmf_block_size", json_integer(bs[0] == '5' ? 512 : 4096), msg, len))
			goto out;
	}
	if (a->opt[TCTL_OPT_BUFFERED] && put(ns, "nvmf_buffered", json_true(), msg, len))
		goto out;
	if (a->opt[TCTL_OPT_ANA_GROUP] &&
	    put_uint(ns, "ana_grpid", "--ana-group", a->opt[TCTL_OPT_ANA_GROUP], 1, GRPID_MAX, msg,
		     len))
		goto out;
	if (!json_object_size(dev)) /* --ram/--null without ids: nvmetcli leaves it out too */
		json_object_del(ns, "device");
	rc = 0;
out:
	if (rc && (!ns || !dev))
		snprintf(msg, len, "out of memory");
	json_decref(ns);
	json_decref(dev);
	return rc;
}

/* NQN alone (subsystem remove). */
static int b_nqn(const struct tctl_command *c, const struct tctl_args *a, json_t *p, char *msg,
		 size_t len)
{
	(void)c;
	return put_nqn(p, "nqn", "NQN", a->pos[0], msg, len);
}

/* The options a subsystem is built from on the command line; --from FILE replaces them. */
static const struct {
	enum tctl_opt opt;
	const char *name;
} subsys_opts[] = {
	{ TCTL_OPT_ALLOW_ANY_HOST, "--allow-any-host" },
	{ TCTL_OPT_HOST, "--host" },
	{ TCTL_OPT_SERIAL, "--serial" },
	{ TCTL_OPT_MODEL, "--model" },
	{ TCTL_OPT_QID_MAX, "--qid-max" },
};

/* subsystem add --from FILE: only the file name for now (tctl_load_subsystem_file reads
 * it, so that parsing does no I/O). */
static int subsystem_from(const struct tctl_args *a, json_t *p, char *msg, size_t len)
{
	const char *from = a->opt[TCTL_OPT_FROM], *other = a->npos ? "NQN" : NULL;
	for (size_t i = 0; !other && i < sizeof(subsys_opts) / sizeof(subsys_opts[0]); i++)
		if (a->opt[subsys_opts[i].opt])
			other = subsys_opts[i].name;
	if (other) { /* merging the two would leave it unclear which one wins */
		snprintf(msg, len,
			 "--from and %s exclude each other (FILE holds the whole "
			 "subsystem)",
			 other);
		return -1;
	}
	if (!*from) {
		snprintf(msg, len, "--from is empty");
		return -1;
	}
	return put(p, "subsystem", json_string(from), msg, len);
}

/* A config file's subsystem object (nvmetcli layout: attr values are strings), with no
 * namespaces: those come with namespace add once it exists. --allow-any-host and --host
 * go together: the target keeps the hosts for when allow_any_host is turned off. */
static int b_subsystem_add(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			   char *msg, size_t len)
{
	(void)c;
	const char *serial = a->opt[TCTL_OPT_SERIAL], *model = a->opt[TCTL_OPT_MODEL];
	const char *qid_max = a->opt[TCTL_OPT_QID_MAX];
	bool any = a->opt[TCTL_OPT_ALLOW_ANY_HOST] != NULL;
	if (a->opt[TCTL_OPT_FROM])
		return subsystem_from(a, p, msg, len);
	if (!a->npos) {
		snprintf(msg, len, "missing NQN or --from FILE");
		return -1;
	}
	json_t *sub = put_new(p, "subsystem", false, msg, len);
	if (!sub || put_nqn(sub, "nqn", "NQN", a->pos[0], msg, len))
		return -1;
	json_t *attr = put_new(sub, "attr", false, msg, len);
	if (!attr || put(attr, "allow_any_host", json_string(any ? "1" : "0"), msg, len) ||
	    (serial && put_ascii(attr, "serial", "--serial", serial, SERIAL_MAX, msg, len)) ||
	    (model && put_ascii(attr, "model", "--model", model, MODEL_MAX, msg, len)) ||
	    (qid_max && put_uint_text(attr, "qid_max", "--qid-max", qid_max, 1, 128, msg, len)))
		return -1;
	json_t *hosts = put_new(sub, "allowed_hosts", true, msg, len);
	if (!hosts || put_nqn_list(hosts, a, TCTL_OPT_HOST, "--host", msg, len))
		return -1;
	return put_new(sub, "namespaces", true, msg, len) ? 0 : -1;
}

/* What the target serves rdma and tcp on: an IPv4 or IPv6 address, of --adrfam's family if given
 * (without it the target infers the family from the address). */
static int check_traddr(const char *traddr, const char *adrfam, char *msg, size_t len)
{
	unsigned char bin[16];
	bool v4 = inet_pton(AF_INET, traddr, bin) == 1;
	bool v6 = !v4 && inet_pton(AF_INET6, traddr, bin) == 1;
	if (!v4 && !v6) {
		snprintf(msg, len, "--traddr '%s' is not an IPv4 or IPv6 address", traddr);
		return -1;
	}
	if (adrfam && v4 != !strcmp(adrfam, "ipv4")) {
		snprintf(msg, len, "--traddr '%s' is an %s address but --adrfam is %s", traddr,
			 v4 ? "IPv4" : "IPv6", adrfam);
		return -1;
	}
	return 0;
}

/* --inline-data-size: bytes (suffixes allowed), at most the 16 KiB the target supports;
 * on a tcp port at least 1024, the I/O queues' Connect data (the config loader's rule). */
static int put_inline(json_t *param, const char *s, const char *trtype, char *msg, size_t len)
{
	uint64_t v;
	char text[24];
	bool tcp = !strcmp(trtype, "tcp");
	if (tctl_parse_size(s, "--inline-data-size", &v, msg, len))
		return -1;
	if (v > 16384 || (tcp && v < 1024)) {
		snprintf(msg, len,
			 "--inline-data-size %s is out of range (%s to 16384 on %s %s port)", s,
			 tcp ? "1024" : "0", tcp ? "a" : "an", trtype);
		return -1;
	}
	snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	return put(param, "inline_data_size", json_string(text), msg, len);
}

/* A tcp-only size option @opt (bytes, suffixes allowed) into param @key when @valid
 * takes it; else a usage error naming @range. */
static int put_tcp_size(json_t *param, const char *s, const char *trtype, const char *opt,
			const char *key, bool (*valid)(uint64_t v), const char *range, char *msg,
			size_t len)
{
	uint64_t v;
	char text[24];
	if (strcmp(trtype, "tcp")) {
		snprintf(msg, len, "%s is for tcp ports only (this one is %s)", opt, trtype);
		return -1;
	}
	if (tctl_parse_size(s, opt, &v, msg, len))
		return -1;
	if (!valid(v)) {
		snprintf(msg, len, "%s %s is out of range (%s)", opt, s, range);
		return -1;
	}
	snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	return put(param, key, json_string(text), msg, len);
}

/* --maxh2cdata: the ICResp MAXH2CDATA of a tcp port (ports[].param.nvmf_maxh2cdata),
 * 4096 to 16 MiB in multiples of 4 (NVMe/TCP 1.0 Figure 16). */
static bool maxh2cdata_valid(uint64_t v)
{
	return v >= 4096 && v <= 16777216 && v % 4 == 0;
}

/* --zerocopy-threshold: read data of at least this many bytes leaves a tcp port with
 * MSG_ZEROCOPY (ports[].param.nvmf_zerocopy_threshold): 0 (never) or 4096 to 16 MiB. */
static bool zerocopy_valid(uint64_t v)
{
	return v == 0 || (v >= 4096 && v <= 16777216);
}

/* --ana-state GRPID:STATE (repeated) as the port object's "ana_groups": [{"grpid": N,
 * "ana": {"state": STATE}}], the config file's form (docs/configuration.md); nothing when
 * none is given. The state's names are nvme/ana-state.h's, as for ana set. */
static int put_ana_states(json_t *port, const struct tctl_args *a, char *msg, size_t len)
{
	json_t *groups = NULL;
	bool seen[GRPID_MAX + 1] = { false };
	for (unsigned i = 0; i < a->nrep; i++) {
		if (a->rep_opt[i] != TCTL_OPT_ANA_STATE)
			continue;
		const char *v = a->rep[i], *colon = strchr(v, ':');
		char num[16], names[160];
		uint64_t grpid;
		if (!colon || (size_t)(colon - v) >= sizeof(num)) {
			snprintf(msg, len,
				 "--ana-state '%s' is not GRPID:STATE (e.g. 2:inaccessible)", v);
			return -1;
		}
		snprintf(num, sizeof(num), "%.*s", (int)(colon - v), v);
		if (tctl_parse_uint(num, "--ana-state group", 1, GRPID_MAX, &grpid, msg, len))
			return -1;
		if (nvmf_choice_index(nvme_ana_state_names, colon + 1) < 0) {
			snprintf(msg, len, "--ana-state %s: '%s' is not %s", v, colon + 1,
				 nvmf_choice_text(nvme_ana_state_names, names, sizeof(names)));
			return -1;
		}
		if (seen[grpid]) {
			snprintf(msg, len, "--ana-state: group %llu given twice",
				 (unsigned long long)grpid);
			return -1;
		}
		seen[grpid] = true;
		if (!groups && !(groups = put_new(port, "ana_groups", true, msg, len)))
			return -1;
		json_t *g = json_pack("{s:I, s:{s:s}}", "grpid", (json_int_t)grpid, "ana", "state",
				      colon + 1);
		if (!g || json_array_append_new(groups, g)) {
			snprintf(msg, len, "--ana-state: out of memory");
			return -1;
		}
	}
	return 0;
}

/* A config file's port object (nvmetcli layout: addr and param values are strings). */
/* --tsas none|tls1.3 and --treq required|not-required|not-specified as the port's
 * addr.tsas and addr.treq (the target checks the pair, as for a config file). */
static int put_security(json_t *addr, const struct tctl_args *a, char *msg, size_t len)
{
	const char *tsas = a->opt[TCTL_OPT_TSAS], *treq = a->opt[TCTL_OPT_TREQ];
	static const char *const treqs[][2] = { { "required", "required" },
						{ "not-required", "not required" },
						{ "not-specified", "not specified" } };
	if (tsas && strcmp(tsas, "none") && strcmp(tsas, "tls1.3")) {
		snprintf(msg, len, "--tsas '%s' is not none or tls1.3", tsas);
		return -1;
	}
	if (tsas && put(addr, "tsas", json_string(tsas), msg, len))
		return -1;
	if (!treq)
		return 0;
	for (size_t i = 0; i < sizeof(treqs) / sizeof(treqs[0]); i++)
		if (!strcmp(treq, treqs[i][0]) || !strcmp(treq, treqs[i][1]))
			return put(addr, "treq", json_string(treqs[i][1]), msg, len);
	snprintf(msg, len, "--treq '%s' is not required, not-required or not-specified", treq);
	return -1;
}

static int b_port_add(const struct tctl_command *c, const struct tctl_args *a, json_t *p, char *msg,
		      size_t len)
{
	(void)c;
	const char *traddr = a->opt[TCTL_OPT_TRADDR], *adrfam = a->opt[TCTL_OPT_ADRFAM];
	const char *trtype = a->opt[TCTL_OPT_TRTYPE] ? a->opt[TCTL_OPT_TRTYPE] : "rdma";
	const char *svc = a->opt[TCTL_OPT_TRSVCID] ? a->opt[TCTL_OPT_TRSVCID] : "4420";
	const char *inl = a->opt[TCTL_OPT_INLINE_DATA_SIZE], *mqs = a->opt[TCTL_OPT_MAX_QUEUE_SIZE];
	const char *h2c = a->opt[TCTL_OPT_MAXH2CDATA], *zc = a->opt[TCTL_OPT_ZEROCOPY_THRESHOLD];
	json_t *port = put_new(p, "port", false, msg, len);
	if (!port || put_uint(port, "portid", "PORTID", a->pos[0], 0, PORTID_MAX, msg, len))
		return -1;
	if (!traddr) {
		snprintf(msg, len, "missing --traddr ADDR (the address to listen on)");
		return -1;
	}
	if (strcmp(trtype, "rdma") && strcmp(trtype, "tcp")) {
		snprintf(msg, len,
			 "--trtype '%s' is not supported (the target serves rdma and tcp)", trtype);
		return -1;
	}
	if (adrfam && strcmp(adrfam, "ipv4") && strcmp(adrfam, "ipv6")) {
		snprintf(msg, len, "--adrfam '%s' is not ipv4 or ipv6", adrfam);
		return -1;
	}
	if (check_traddr(traddr, adrfam, msg, len))
		return -1;
	json_t *addr = put_new(port, "addr", false, msg, len);
	if (!addr || put(addr, "trtype", json_string(trtype), msg, len) ||
	    (adrfam && put(addr, "adrfam", json_string(adrfam), msg, len)) ||
	    put(addr, "traddr", json_string(traddr), msg, len) ||
	    put_uint_text(addr, "trsvcid", "--trsvcid", svc, 1, 65535, msg, len) ||
	    put_security(addr, a, msg, len))
		return -1;
	if (inl || mqs || h2c || zc) {
		json_t *param = put_new(port, "param", false, msg, len);
		if (!param || (inl && put_inline(param, inl, trtype, msg, len)) ||
		    (mqs && put_uint_text(param, "max_queue_size", "--max-queue-size", mqs, 16,
					  1024, msg, len)) ||
		    (h2c && put_tcp_size(param, h2c, trtype, "--maxh2cdata", "nvmf_maxh2cdata",
					 maxh2cdata_valid,
					 "4096 to 16777216 bytes, a multiple of 4", msg, len)) ||
		    (zc && put_tcp_size(param, zc, trtype, "--zerocopy-threshold",
					"nvmf_zerocopy_threshold", zerocopy_valid,
					"0 for never, or 4096 to 16777216 bytes", msg, len)))
			return -1;
	}
	json_t *subs = put_new(port, "subsystems", true, msg, len);
	if (!subs || put_nqn_list(subs, a, TCTL_OPT_SUBSYSTEM, "--subsystem", msg, len))
		return -1;
	return put_ana_states(port, a, msg, len);
}

/* PORTID, and for link/unlink NQN. */
static int b_port(const struct tctl_command *c, const struct tctl_args *a, json_t *p, char *msg,
		  size_t len)
{
	if (put_uint(p, "portid", "PORTID", a->pos[0], 0, PORTID_MAX, msg, len))
		return -1;
	return c->nreq > 1 ? put_nqn(p, "nqn", "NQN", a->pos[1], msg, len) : 0;
}

/* ana list [PORTID] */
static int b_ana_list(const struct tctl_command *c, const struct tctl_args *a, json_t *p, char *msg,
		      size_t len)
{
	(void)c;
	return a->npos ? put_uint(p, "portid", "PORTID", a->pos[0], 0, PORTID_MAX, msg, len) : 0;
}

/* ana set PORTID GRPID STATE: the state's name as nvmetcli and the target spell it. */
static int b_ana_set(const struct tctl_command *c, const struct tctl_args *a, json_t *p, char *msg,
		     size_t len)
{
	return put_uint(p, "portid", "PORTID", a->pos[0], 0, PORTID_MAX, msg, len) ||
			       put_uint(p, "grpid", "GRPID", a->pos[1], 1, GRPID_MAX, msg, len) ||
			       put_choice(p, c->method, "state", "STATE", a->pos[2], msg, len) ?
		       -1 :
		       0;
}

/* namespace ana-group NQN NSID GRPID */
static int b_ns_ana_group(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			  char *msg, size_t len)
{
	(void)c;
	return put_nqn(p, "nqn", "NQN", a->pos[0], msg, len) ||
			       put_uint(p, "nsid", "NSID", a->pos[1], 1, NSID_MAX, msg, len) ||
			       put_uint(p, "grpid", "GRPID", a->pos[2], 1, GRPID_MAX, msg, len) ?
		       -1 :
		       0;
}

/* [PATH]: kept as typed here; tctl_load_save_path makes a relative one absolute. */
static int b_config_save(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			 char *msg, size_t len)
{
	(void)c;
	if (!a->npos)
		return 0;
	const char *path = a->pos[0], *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!*path) {
		snprintf(msg, len, "PATH is empty");
		return -1;
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		snprintf(msg, len, "PATH '%s' names a directory, not a file", path);
		return -1;
	}
	return put(p, "path", json_string(path), msg, len);
}

/* log-level [--component C] [LEVEL]: without LEVEL log_level_get, with it log_level_set
 * (c->method_arg); both take the same components. */
static int b_log_level(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
		       char *msg, size_t len)
{
	const char *comp = a->opt[TCTL_OPT_COMPONENT];
	if (comp && put_choice(p, c->method, "component", "--component", comp, msg, len))
		return -1;
	return a->npos ? put_choice(p, c->method_arg, "level", "LEVEL", a->pos[0], msg, len) : 0;
}

#define SUBSYSTEM_ADD_HELP                                                                         \
	"  --allow-any-host     let any host connect (default: only the --host ones); the\n"       \
	"                       --host ones are kept for when it is turned off\n"                  \
	"  --host HOSTNQN       allow this host to connect; repeat for more\n"                     \
	"  --serial S           the serial number, 1 to 20 ASCII characters (default: from\n"      \
	"                       the NQN)\n"                                                        \
	"  --model M            the model number, 1 to 40 ASCII characters (default nvmf-rdma)\n"  \
	"  --qid-max N          I/O queues per controller, 1 to 128 (default 128)\n"               \
	"  --from FILE          the whole subsystem from FILE: one JSON object as in the config\n" \
	"                       file's \"subsystems\" (namespaces too); no NQN or other options\n" \
	"The subsystem starts with no namespaces (add them with namespace add) and on no port\n"   \
	"(port link PORTID NQN).\n"

#define PORT_ADD_HELP                                                                           \
	"  --traddr ADDR        the IPv4 or IPv6 address to listen on (required)\n"             \
	"  --trsvcid SVC        the port number (default 4420)\n"                               \
	"  --adrfam ipv4|ipv6   the address family (default: that of ADDR)\n"                   \
	"  --trtype rdma|tcp    the transport (default rdma)\n"                                 \
	"  --inline-data-size BYTES\n"                                                          \
	"                       in-capsule data per command, 0 to 16384 (tcp: 1024 to\n"        \
	"                       16384; default 8192)\n"                                         \
	"  --max-queue-size N   queue entries a host may ask for, 16 to 1024 (default 128)\n"   \
	"  --maxh2cdata BYTES   tcp only: bytes one H2CData PDU may carry (the ICResp\n"        \
	"                       MAXH2CDATA), 4096 to 16M, a multiple of 4 (default 128K)\n"     \
	"  --zerocopy-threshold BYTES\n"                                                        \
	"                       tcp only: read data of at least this size is sent with\n"       \
	"                       MSG_ZEROCOPY; 0 never, or 4096 to 16M (default 32K)\n"          \
	"  --tsas none|tls1.3   tcp only: tls1.3 serves TLS 1.3 with a PSK per host (host\n"    \
	"                       tls-key); default none\n"                                       \
	"  --treq required|not-required\n"                                                      \
	"                       with --tsas tls1.3: whether a host must use TLS (default\n"     \
	"                       required)\n"                                                    \
	"  --subsystem NQN      expose this subsystem on the port; repeat for more\n"           \
	"  --ana-state GRPID:STATE\n"                                                           \
	"                       ANA group GRPID (1 to 128) has STATE on the port: optimized,\n" \
	"                       non-optimized, inaccessible, persistent-loss or change;\n"      \
	"                       repeat for more groups (default: group 1 optimized)\n"          \
	"PORTID is 0 to 65535.\n"

#define NS_ADD_HELP                                                                                  \
	"  --path PATH          a file, block device or NVMe drive (/dev/nvme0n1)\n"                 \
	"  --ram SIZE           a RAM namespace of SIZE bytes (lost when the target stops)\n"        \
	"  --null SIZE          a namespace of SIZE bytes that reads zeros and drops writes\n"       \
	"  --rbd POOL/IMAGE     a Ceph RBD image (POOL/NAMESPACE/IMAGE: in a RADOS namespace)\n"     \
	"  --rbd-conf PATH      with --rbd: the cluster's ceph.conf (default /etc/ceph/ceph.conf)\n" \
	"  --rbd-keyring PATH   with --rbd: the keyring with the client's key\n"                     \
	"  --rbd-client ID      with --rbd: the cephx user without client. (default admin)\n"        \
	"  --nsid N             the namespace ID, 1 to 1024 (default: the lowest free one)\n"        \
	"  --backend KIND       file, bdev or nvme, for --path (default: from the path)\n"           \
	"  --block-size B       512 or 4096 (default: the device's; files 512)\n"                    \
	"  --uuid UUID          the namespace UUID (8-4-4-4-12)\n"                                   \
	"  --nguid NGUID        the namespace NGUID (32 hex digits)\n"                               \
	"  --size SIZE          with --create: the size of the file to create, or to grow a\n"       \
	"                       smaller one to; without: the file must be at least SIZE (a\n"        \
	"                       larger one is served whole)\n"                                       \
	"  --create             create the file at PATH, --size bytes, if it does not exist\n"       \
	"  --buffered           with --path: open without O_DIRECT (through the page cache)\n"       \
	"  --disabled           add it disabled (enable it later with namespace enable)\n"           \
	"  --ana-group N        its ANA group, 1 to 128 (default 1); some port must define it\n"     \
	"SIZE is bytes, 0x hex, or digits with a K, M, G, T or P suffix (64M = 64 MiB;\n"            \
	"powers of 1024, docs/operating.md#sizes).\n"

const struct tctl_command tctl_commands[] = {
	{ "version",
	  NULL,
	  "version",
	  "",
	  "the target's program name and version",
	  NULL,
	  { NULL },
	  0,
	  0,
	  NULL,
	  TCTL_OUT_VERSION,
	  NULL,
	  NULL },
	{ "subsystem",
	  "list",
	  "subsystem_list",
	  "[NQN]",
	  "subsystems; with NQN one subsystem, its namespaces and hosts",
	  NULL,
	  { "NQN", NULL },
	  0,
	  0,
	  b_subsystem_list,
	  TCTL_OUT_SUBSYSTEMS,
	  NULL,
	  NULL },
	{ "subsystem",
	  "add",
	  "subsystem_add",
	  "(NQN [OPTIONS] | --from FILE)",
	  "serve a new subsystem",
	  SUBSYSTEM_ADD_HELP,
	  { "NQN", NULL },
	  0,
	  OPT(ALLOW_ANY_HOST) | OPT(HOST) | OPT(SERIAL) | OPT(MODEL) | OPT(QID_MAX) | OPT(FROM),
	  b_subsystem_add,
	  TCTL_OUT_SUBSYSTEM_ADD,
	  tctl_load_subsystem_file,
	  NULL },
	{ "subsystem",
	  "remove",
	  "subsystem_remove",
	  "NQN",
	  "stop serving a subsystem (its controllers are disconnected)",
	  NULL,
	  { "NQN", NULL },
	  1,
	  0,
	  b_nqn,
	  TCTL_OUT_SUBSYSTEM_REMOVE,
	  NULL,
	  NULL },
	{ "subsystem",
	  "allow-any-host",
	  "subsystem_allow_any_host",
	  "NQN on|off",
	  "let any host connect, or only the listed hosts",
	  "off disconnects the controllers of "
	  "hosts that are not listed.\n",
	  { "NQN", "on|off", NULL },
	  2,
	  0,
	  b_allow_any_host,
	  TCTL_OUT_ALLOW_ANY_HOST,
	  NULL,
	  NULL },
	{ "port",
	  "list",
	  "port_list",
	  "",
	  "ports and the subsystems they serve",
	  NULL,
	  { NULL },
	  0,
	  0,
	  NULL,
	  TCTL_OUT_PORTS,
	  NULL,
	  NULL },
	{ "port",
	  "add",
	  "port_add",
	  "PORTID --traddr ADDR [OPTIONS]",
	  "listen on a new port",
	  PORT_ADD_HELP,
	  { "PORTID", NULL },
	  1,
	  OPT(TRADDR) | OPT(TRSVCID) | OPT(ADRFAM) | OPT(TRTYPE) | OPT(INLINE_DATA_SIZE) |
		  OPT(MAX_QUEUE_SIZE) | OPT(MAXH2CDATA) | OPT(ZEROCOPY_THRESHOLD) | OPT(SUBSYSTEM) |
		  OPT(ANA_STATE) | OPT(TSAS) | OPT(TREQ),
	  b_port_add,
	  TCTL_OUT_PORT_ADD,
	  NULL,
	  NULL },
	{ "port",
	  "remove",
	  "port_remove",
	  "PORTID",
	  "stop listening on a port (its controllers are disconnected)",
	  NULL,
	  { "PORTID", NULL },
	  1,
	  0,
	  b_port,
	  TCTL_OUT_PORT_REMOVE,
	  NULL,
	  NULL },
	{ "port",
	  "link",
	  "port_link",
	  "PORTID NQN",
	  "expose a subsystem on a port",
	  NULL,
	  { "PORTID", "NQN", NULL },
	  2,
	  0,
	  b_port,
	  TCTL_OUT_PORT_LINK,
	  NULL,
	  NULL },
	{ "port",
	  "unlink",
	  "port_unlink",
	  "PORTID NQN",
	  "stop exposing a subsystem on a port",
	  "The subsystem's controllers connected through the port are disconnected.\n",
	  { "PORTID", "NQN", NULL },
	  2,
	  0,
	  b_port,
	  TCTL_OUT_PORT_UNLINK,
	  NULL,
	  NULL },
	{ "controller",
	  "list",
	  "controller_list",
	  "[--nqn NQN]",
	  "connected controllers (hosts)",
	  "  --nqn NQN            only the controllers of NQN\n",
	  { NULL },
	  0,
	  OPT(NQN),
	  b_controller_list,
	  TCTL_OUT_CONTROLLERS,
	  NULL,
	  NULL },
	{ "controller",
	  "disconnect",
	  "controller_disconnect",
	  "NQN CNTLID",
	  "disconnect a controller (the host may reconnect)",
	  NULL,
	  { "NQN", "CNTLID", NULL },
	  2,
	  0,
	  b_controller_disconnect,
	  TCTL_OUT_DISCONNECT,
	  NULL,
	  NULL },
	{ "namespace",
	  "add",
	  "namespace_add",
	  "NQN (--path PATH | --ram SIZE | --null SIZE | --rbd POOL/IMAGE) [OPTIONS]",
	  "add a namespace to a running subsystem",
	  NS_ADD_HELP,
	  { "NQN", NULL },
	  1,
	  OPT(NSID) | OPT(PATH) | OPT(RAM) | OPT(NULL) | OPT(BACKEND) | OPT(BLOCK_SIZE) |
		  OPT(UUID) | OPT(NGUID) | OPT(SIZE) | OPT(CREATE) | OPT(BUFFERED) | OPT(DISABLED) |
		  OPT(ANA_GROUP) | OPT(RBD) | OPT(RBD_CONF) | OPT(RBD_KEYRING) | OPT(RBD_CLIENT),
	  b_namespace_add,
	  TCTL_OUT_NS_ADD,
	  NULL,
	  NULL },
	{ "namespace",
	  "remove",
	  "namespace_remove",
	  "NQN NSID [--force]",
	  "remove a namespace (commands in flight finish first)",
	  "Refused when the namespace's backing file was deleted (the target holds the\n"
	  "only copy of its data): restore it first, as the message says; or\n"
	  "  --force              remove anyway, discarding that data\n",
	  { "NQN", "NSID", NULL },
	  2,
	  OPT(FORCE),
	  b_nqn_nsid,
	  TCTL_OUT_NS_REMOVE,
	  NULL,
	  NULL },
	{ "namespace",
	  "enable",
	  "namespace_enable",
	  "NQN NSID",
	  "enable a namespace",
	  NULL,
	  { "NQN", "NSID", NULL },
	  2,
	  0,
	  b_nqn_nsid,
	  TCTL_OUT_NS_ENABLE,
	  NULL,
	  NULL },
	{ "namespace",
	  "disable",
	  "namespace_disable",
	  "NQN NSID [--force]",
	  "disable a namespace (hosts no longer see it)",
	  "Refused when the namespace's backing file was deleted (the target holds the\n"
	  "only copy of its data): restore it first, as the message says; or\n"
	  "  --force              disable anyway, discarding that data\n",
	  { "NQN", "NSID", NULL },
	  2,
	  OPT(FORCE),
	  b_nqn_nsid,
	  TCTL_OUT_NS_DISABLE,
	  NULL,
	  NULL },
	{ "namespace",
	  "resize",
	  "namespace_resize",
	  "NQN NSID [SIZE]",
	  "change a namespace's size (ram, null, file), or follow its device's (bdev, nvme)",
	  "SIZE is bytes, 0x hex, or digits with a K, M, G, T or P suffix (64M = 64 MiB;\n"
	  "powers of 1024, docs/operating.md#sizes). Without SIZE a block device or NVMe\n"
	  "namespace takes the size its device has now (after an lvextend).\n",
	  { "NQN", "NSID", "SIZE", NULL },
	  2,
	  0,
	  b_nqn_nsid,
	  TCTL_OUT_NS_RESIZE,
	  NULL,
	  NULL },
	{ "namespace",
	  "ana-group",
	  "namespace_ana_group_set",
	  "NQN NSID GRPID",
	  "move a namespace to another ANA group",
	  "GRPID is 1 to 128 and must be defined on some port (ana set defines it). The hosts\n"
	  "of the subsystem get an ANA Change notice and route by the group's states.\n",
	  { "NQN", "NSID", "GRPID", NULL },
	  3,
	  0,
	  b_ns_ana_group,
	  TCTL_OUT_NS_ANA_GROUP,
	  NULL,
	  NULL },
	{ "namespace",
	  "reservation",
	  "namespace_reservation",
	  "NQN NSID [clear]",
	  "a namespace's reservation: registrants, holder, type, generation, PTPL",
	  "With the word clear: end the reservation and every registration, for a reservation\n"
	  "a host that is gone left behind (as a Reservation Release with Clear: the\n"
	  "registrants' controllers are told Reservation Preempted). The target logs a\n"
	  "warning naming the holder.\n",
	  { "NQN", "NSID", "clear", NULL },
	  2,
	  0,
	  b_nqn_nsid,
	  TCTL_OUT_NS_RESV,
	  NULL,
	  "namespace_reservation_clear" },
	{ "host",
	  "add",
	  "host_add",
	  "NQN HOSTNQN",
	  "allow a host to connect to a subsystem",
	  NULL,
	  { "NQN", "HOSTNQN", NULL },
	  2,
	  0,
	  b_host,
	  TCTL_OUT_HOST_ADD,
	  NULL,
	  NULL },
	{ "host",
	  "remove",
	  "host_remove",
	  "NQN HOSTNQN",
	  "stop allowing a host (its controllers are disconnected)",
	  "With allow_any_host on, the list is not what admits the host: it stays\n"
	  "connected and may connect again (the answer says so). Turn allow_any_host\n"
	  "off to keep it out.\n",
	  { "NQN", "HOSTNQN", NULL },
	  2,
	  0,
	  b_host,
	  TCTL_OUT_HOST_REMOVE,
	  NULL,
	  NULL },
	{ "host",
	  "dhchap",
	  "host_dhchap_set",
	  "HOSTNQN [--hash H] [--dhgroup G]",
	  "set a host's DH-HMAC-CHAP secrets (from the environment), hash and group",
	  "The host's secret is read from $NVMF_DHCHAP_SECRET and, for bidirectional\n"
	  "authentication, the controller's from $NVMF_DHCHAP_CTRL_SECRET (\"DHHC-1:NN:...:\",\n"
	  "as nvme gen-dhchap-key prints them), never from the command line.\n"
	  "  --hash H             the hash: one of those listed for hash below (default\n"
	  "                       hmac(sha256))\n"
	  "  --dhgroup G          the DH group: one of those listed for dhgroup below (default\n"
	  "                       null)\n"
	  "Used from the next authentication: new associations, and every new transaction\n"
	  "of live ones (re-authentication, I/O queues connecting).\n",
	  { "HOSTNQN", NULL },
	  1,
	  OPT(HASH) | OPT(DHGROUP),
	  b_dhchap_set,
	  TCTL_OUT_DHCHAP_SET,
	  tctl_load_dhchap_secrets,
	  NULL },
	{ "host",
	  "dhchap-clear",
	  "host_dhchap_clear",
	  "HOSTNQN",
	  "remove a host's DH-HMAC-CHAP secrets",
	  "New associations of the host connect without authentication; live ones keep\n"
	  "their keys (remove the host from its subsystems to end them).\n",
	  { "HOSTNQN", NULL },
	  1,
	  0,
	  b_dhchap_clear,
	  TCTL_OUT_DHCHAP_CLEAR,
	  NULL,
	  NULL },
	{ "host",
	  "tls-key",
	  "host_tls_key_set",
	  "HOSTNQN --key-file PATH [--compat]",
	  "set a host's TLS PSK (NVMe/TCP secure channel) from a key file",
	  "The target reads PATH (absolute, or made so here): one key as nvme gen-tls-key\n"
	  "prints it (\"NVMeTLSkey-1:01:...:\"), in a file no one but its owner can read.\n"
	  "The key never crosses the control socket. Used from the host's next TLS\n"
	  "connection; connected queues keep their sessions. Replaces a key the host had.\n"
	  "--compat: the host's key was inserted by nvme-cli 2.15 or older (libnvme's\n"
	  "compat derivation): its version 0 identities get that layout's PSK (version 1\n"
	  "identities are told by their digest either way).\n",
	  { "HOSTNQN", NULL },
	  1,
	  OPT(KEY_FILE) | OPT(COMPAT),
	  b_tls_key_set,
	  TCTL_OUT_TLS_KEY_SET,
	  tctl_load_key_file_path,
	  NULL },
	{ "host",
	  "tls-key-clear",
	  "host_tls_key_clear",
	  "HOSTNQN",
	  "remove a host's TLS PSK",
	  "The host's next TLS connection is refused (no PSK for it); connected queues keep\n"
	  "their sessions (remove the host from its subsystems to end them).\n",
	  { "HOSTNQN", NULL },
	  1,
	  0,
	  b_dhchap_clear,
	  TCTL_OUT_TLS_KEY_CLEAR,
	  NULL,
	  NULL },
	{ "ana",
	  "list",
	  "ana_state_list",
	  "[PORTID]",
	  "ANA groups: their state on each port (or PORTID) and their namespaces",
	  "DEFINED says whether the port defines the group; a group it does not define is\n"
	  "inaccessible through it (group 1 is defined on every port).\n",
	  { "PORTID", NULL },
	  0,
	  0,
	  b_ana_list,
	  TCTL_OUT_ANA_LIST,
	  NULL,
	  NULL },
	{ "ana",
	  "set",
	  "ana_state_set",
	  "PORTID GRPID STATE",
	  "set an ANA group's state on a port (the port defines the group from then on)",
	  "STATE is one of the names listed for state below.\n"
	  "Hosts connected through the port get an ANA Change notice; I/O on a path that is\n"
	  "inaccessible, persistent-loss or change fails with an ANA status, and the host's\n"
	  "multipath sends it to another path.\n",
	  { "PORTID", "GRPID", "STATE", NULL },
	  3,
	  0,
	  b_ana_set,
	  TCTL_OUT_ANA_SET,
	  NULL,
	  NULL },
	{ "stats",
	  "namespaces",
	  "namespace_stats",
	  "[--nqn NQN [--nsid N]]",
	  "I/O counts and latency percentiles per namespace",
	  "  --nqn NQN            only the namespaces of NQN\n"
	  "  --nsid N             only namespace N (needs --nqn)\n",
	  { NULL },
	  0,
	  OPT(NQN) | OPT(NSID),
	  b_namespace_stats,
	  TCTL_OUT_NS_STATS,
	  NULL,
	  NULL },
	{ "stats",
	  "poll-groups",
	  "poll_group_stats",
	  "",
	  "what each poll-group thread did",
	  NULL,
	  { NULL },
	  0,
	  0,
	  NULL,
	  TCTL_OUT_POLL_GROUP_STATS,
	  NULL,
	  NULL },
	{ "config",
	  "show",
	  "config_get",
	  "",
	  "the running configuration, as a config file",
	  "Always JSON: 'config show > FILE' gives a file nvmf-target can start from, unless\n"
	  "hosts have DH-HMAC-CHAP secrets: they show as \"(secret)\" (config save writes them).\n",
	  { NULL },
	  0,
	  0,
	  NULL,
	  TCTL_OUT_CONFIG,
	  NULL,
	  NULL },
	{ "config",
	  "save",
	  "config_save",
	  "[PATH]",
	  "write the running configuration to a file (atomically)",
	  "Without PATH, to the file the target was started from. A relative PATH is taken\n"
	  "from the current directory.\n",
	  { "PATH", NULL },
	  0,
	  0,
	  b_config_save,
	  TCTL_OUT_CONFIG_SAVE,
	  tctl_load_save_path,
	  NULL },
	{ "config",
	  "reload",
	  "config_reload",
	  "[--force]",
	  "apply the target's config file again; print what changed",
	  "Refused while live changes are not saved to the file (it names them): they would\n"
	  "be undone. config save writes them first. Refused too when it would close a\n"
	  "namespace whose backing file was deleted (its data would be lost); or\n"
	  "  --force              reload anyway, undoing them, closing such namespaces\n",
	  { NULL },
	  0,
	  OPT(FORCE),
	  b_config_reload,
	  TCTL_OUT_CONFIG_RELOAD,
	  NULL,
	  NULL },
	{ "log-level",
	  NULL,
	  "log_level_get",
	  "[--component C] [LEVEL]",
	  "print or set the target's log level",
	  "  --component C        only this component's level (default: every component's);\n"
	  "                       C is one of the names listed for component below\n"
	  "LEVEL is one of the names listed for level below.\n",
	  { "LEVEL", NULL },
	  0,
	  OPT(COMPONENT),
	  b_log_level,
	  TCTL_OUT_LOG_LEVEL,
	  NULL,
	  "log_level_set" },
	{ "gateway",
	  "status",
	  "gateway_status",
	  "",
	  "the gateway group: each shared ANA group's state here, and who holds it",
	  "HELD: this gateway holds the group's lock (the group is optimized here); HOLDER:\n"
	  "the gateway that holds it as the cluster says; PREFERRED: the gateway it belongs\n"
	  "to while alive (docs/gateway.md). Refused by a target without nvmf_gateway.\n",
	  { NULL },
	  0,
	  0,
	  NULL,
	  TCTL_OUT_GATEWAY,
	  NULL,
	  NULL },
	{ "call",
	  NULL,
	  NULL,
	  "METHOD [JSON-PARAMS]",
	  "call any method; print its result as JSON",
	  "JSON-PARAMS is one JSON object, e.g. '{\"nqn\": \"nqn.2024-01.io.example:a\"}'.\n",
	  { "METHOD", "JSON-PARAMS", NULL },
	  1,
	  0,
	  b_call,
	  TCTL_OUT_RAW,
	  NULL,
	  NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL, { NULL }, 0, 0, NULL, TCTL_OUT_RAW, NULL, NULL },
};

const struct tctl_command *tctl_find_command(const char *group, const char *verb)
{
	for (const struct tctl_command *c = tctl_commands; c->group; c++)
		if (!strcmp(c->group, group) && (!c->verb || (verb && !strcmp(c->verb, verb))))
			return c;
	return NULL;
}

bool tctl_group_exists(const char *group)
{
	for (const struct tctl_command *c = tctl_commands; c->group; c++)
		if (!strcmp(c->group, group))
			return true;
	return false;
}

void tctl_command_name(const struct tctl_command *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", c->group, c->verb ? " " : "", c->verb ? c->verb : "");
}

void tctl_group_verbs(const char *group, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (const struct tctl_command *c = tctl_commands; c->group; c++)
		if (c->verb && !strcmp(c->group, group) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", c->verb);
}
