// SPDX-License-Identifier: MIT
/*
 * nvmf-targetctl's commands: for each, its words, its JSON-RPC method, its usage, and the
 * builder that turns its arguments into the method's params. Builders check what the
 * command line alone can tell (numbers, ranges, which options go together) so that a
 * typo is a usage error naming the argument; everything that needs the target's state
 * is the target's to refuse.
 */
#include <string.h>

#include "nvme/identify.h"
#include "target/cli/targetctl.h"

#define NQN_MAX   223                /* NVMe Base 4.5 section 4.7: NQNs are at most 223 bytes */
#define NSID_MAX  0xfffffffeull      /* 0 and ffffffffh are not namespace IDs */
#define CNTLID_MAX 0xffefull         /* fff0h and above are reserved */
#define OPT(o)    (1u << TCTL_OPT_##o)

/* json_object_set_new that reports failure (no memory, or NULL from a bad string). */
static int put(json_t *o, const char *key, json_t *v, char *msg, size_t len)
{
	if (json_object_set_new(o, key, v)) {
		snprintf(msg, len, "%s: out of memory or not valid UTF-8", key);
		return -1;
	}
	return 0;
}

/* An NQN argument @s named @what (NQN, HOSTNQN, --nqn) into @key. */
static int put_nqn(json_t *o, const char *key, const char *what, const char *s, char *msg,
		   size_t len)
{
	if (!*s || strlen(s) > NQN_MAX) {
		snprintf(msg, len, "%s '%s' must be 1 to %d bytes", what, s, NQN_MAX);
		return -1;
	}
	return put(o, key, json_string(s), msg, len);
}

static int put_uint(json_t *o, const char *key, const char *what, const char *s,
		    uint64_t min, uint64_t max, char *msg, size_t len)
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

static int b_subsystem_list(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
			    char *msg, size_t len)
{
	(void)c;
	return a->npos ? put_nqn(p, "nqn", "NQN", a->pos[0], msg, len) : 0;
}

static int b_controller_list(const struct tctl_command *c, const struct tctl_args *a,
			     json_t *p, char *msg, size_t len)
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
	       put_uint(p, "cntlid", "CNTLID", a->pos[1], 1, CNTLID_MAX, msg, len) ? -1 : 0;
}

/* NQN NSID, and for resize SIZE. */
static int b_nqn_nsid(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
		      char *msg, size_t len)
{
	if (put_nqn(p, "nqn", "NQN", a->pos[0], msg, len) ||
	    put_uint(p, "nsid", "NSID", a->pos[1], 1, NSID_MAX, msg, len))
		return -1;
	if (c->out == TCTL_OUT_NS_RESIZE)
		return put_size(p, "size_bytes", "SIZE", a->pos[2], msg, len);
	return 0;
}

static int b_host(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
		  char *msg, size_t len)
{
	(void)c;
	return put_nqn(p, "nqn", "NQN", a->pos[0], msg, len) ||
	       put_nqn(p, "host", "HOSTNQN", a->pos[1], msg, len) ? -1 : 0;
}

static int b_allow_any_host(const struct tctl_command *c, const struct tctl_args *a,
			    json_t *p, char *msg, size_t len)
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

static int b_namespace_stats(const struct tctl_command *c, const struct tctl_args *a,
			     json_t *p, char *msg, size_t len)
{
	(void)c;
	const char *nqn = a->opt[TCTL_OPT_NQN], *nsid = a->opt[TCTL_OPT_NSID];
	if (nsid && !nqn) {   /* an nsid means nothing without its subsystem */
		snprintf(msg, len, "--nsid needs --nqn");
		return -1;
	}
	if (nqn && put_nqn(p, "nqn", "--nqn", nqn, msg, len))
		return -1;
	return nsid ? put_uint(p, "nsid", "--nsid", nsid, 1, NSID_MAX, msg, len) : 0;
}

static int b_call(const struct tctl_command *c, const struct tctl_args *a, json_t *p,
		  char *msg, size_t len)
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

/* --path / --ram / --null, and what goes with each, into the namespace object @ns. */
static int ns_storage(const struct tctl_args *a, json_t *ns, json_t *dev, char *msg, size_t len)
{
	const char *path = a->opt[TCTL_OPT_PATH], *ram = a->opt[TCTL_OPT_RAM];
	const char *null = a->opt[TCTL_OPT_NULL], *backend = a->opt[TCTL_OPT_BACKEND];
	const char *size = a->opt[TCTL_OPT_SIZE];
	int kinds = !!path + !!ram + !!null;
	if (kinds != 1) {
		snprintf(msg, len, kinds ? "--path, --ram and --null exclude each other" :
			 "one of --path PATH, --ram SIZE or --null SIZE is required");
		return -1;
	}
	if (!path) {
		const char *what = ram ? "--ram" : "--null";
		if (backend || size || a->opt[TCTL_OPT_CREATE]) {
			snprintf(msg, len, "%s goes with --path only (%s takes no file)",
				 backend ? "--backend" : size ? "--size" : "--create", what);
			return -1;
		}
		return put(ns, "nvmf_backend", json_string(ram ? "ram" : "null"), msg, len) ||
		       put_size(ns, "nvmf_size_bytes", what, ram ? ram : null, msg, len) ? -1 : 0;
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
			snprintf(msg, len, "--create needs --size SIZE (the size of the file to create)");
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
	if (!json_object_size(dev))   /* --ram/--null without ids: nvmetcli leaves it out too */
		json_object_del(ns, "device");
	rc = 0;
out:
	if (rc && (!ns || !dev))
		snprintf(msg, len, "out of memory");
	json_decref(ns);
	json_decref(dev);
	return rc;
}

#define NS_ADD_HELP \
	"  --path PATH          a file, block device or NVMe drive (/dev/nvme0n1)\n" \
	"  --ram SIZE           a RAM namespace of SIZE bytes (lost when the target stops)\n" \
	"  --null SIZE          a namespace of SIZE bytes that reads zeros and drops writes\n" \
	"  --nsid N             the namespace ID (default: the lowest free one)\n" \
	"  --backend KIND       file, bdev or nvme, for --path (default: from the path)\n" \
	"  --block-size B       512 or 4096 (default: the device's; files 512)\n" \
	"  --uuid UUID          the namespace UUID (8-4-4-4-12)\n" \
	"  --nguid NGUID        the namespace NGUID (32 hex digits)\n" \
	"  --size SIZE          with --path: the size to use, or of the file --create makes\n" \
	"  --create             create the file at PATH, --size bytes, if it does not exist\n" \
	"  --buffered           open without O_DIRECT (through the page cache)\n" \
	"  --disabled           add it disabled (enable it later with namespace enable)\n" \
	"SIZE is bytes or digits with a binary suffix K, M, G or T (64M = 64 MiB).\n"

const struct tctl_command tctl_commands[] = {
	{ "version", NULL, "version", "", "the target's program name and version", NULL,
	  { NULL }, 0, 0, NULL, TCTL_OUT_VERSION },
	{ "subsystem", "list", "subsystem_list", "[NQN]",
	  "subsystems; with NQN one subsystem, its namespaces and hosts", NULL,
	  { "NQN", NULL }, 0, 0, b_subsystem_list, TCTL_OUT_SUBSYSTEMS },
	{ "subsystem", "allow-any-host", "subsystem_allow_any_host", "NQN on|off",
	  "let any host connect, or only the listed hosts", "off disconnects the controllers of "
	  "hosts that are not listed.\n",
	  { "NQN", "on|off", NULL }, 2, 0, b_allow_any_host, TCTL_OUT_ALLOW_ANY_HOST },
	{ "port", "list", "port_list", "", "ports and the subsystems they serve", NULL,
	  { NULL }, 0, 0, NULL, TCTL_OUT_PORTS },
	{ "controller", "list", "controller_list", "[--nqn NQN]",
	  "connected controllers (hosts)", "  --nqn NQN            only the controllers of NQN\n",
	  { NULL }, 0, OPT(NQN), b_controller_list, TCTL_OUT_CONTROLLERS },
	{ "controller", "disconnect", "controller_disconnect", "NQN CNTLID",
	  "disconnect a controller (the host may reconnect)", NULL,
	  { "NQN", "CNTLID", NULL }, 2, 0, b_controller_disconnect, TCTL_OUT_DISCONNECT },
	{ "namespace", "add", "namespace_add",
	  "NQN (--path PATH | --ram SIZE | --null SIZE) [OPTIONS]",
	  "add a namespace to a running subsystem", NS_ADD_HELP,
	  { "NQN", NULL }, 1, OPT(NSID) | OPT(PATH) | OPT(RAM) | OPT(NULL) | OPT(BACKEND) |
	  OPT(BLOCK_SIZE) | OPT(UUID) | OPT(NGUID) | OPT(SIZE) | OPT(CREATE) | OPT(BUFFERED) |
	  OPT(DISABLED), b_namespace_add, TCTL_OUT_NS_ADD },
	{ "namespace", "remove", "namespace_remove", "NQN NSID",
	  "remove a namespace (commands in flight finish first)", NULL,
	  { "NQN", "NSID", NULL }, 2, 0, b_nqn_nsid, TCTL_OUT_NS_REMOVE },
	{ "namespace", "enable", "namespace_enable", "NQN NSID", "enable a namespace", NULL,
	  { "NQN", "NSID", NULL }, 2, 0, b_nqn_nsid, TCTL_OUT_NS_ENABLE },
	{ "namespace", "disable", "namespace_disable", "NQN NSID",
	  "disable a namespace (hosts no longer see it)", NULL,
	  { "NQN", "NSID", NULL }, 2, 0, b_nqn_nsid, TCTL_OUT_NS_DISABLE },
	{ "namespace", "resize", "namespace_resize", "NQN NSID SIZE",
	  "change a namespace's size (ram, null and file namespaces)",
	  "SIZE is bytes or digits with a binary suffix K, M, G or T (64M = 64 MiB).\n",
	  { "NQN", "NSID", "SIZE", NULL }, 3, 0, b_nqn_nsid, TCTL_OUT_NS_RESIZE },
	{ "host", "add", "host_add", "NQN HOSTNQN", "allow a host to connect to a subsystem", NULL,
	  { "NQN", "HOSTNQN", NULL }, 2, 0, b_host, TCTL_OUT_HOST_ADD },
	{ "host", "remove", "host_remove", "NQN HOSTNQN",
	  "stop allowing a host (its controllers are disconnected)", NULL,
	  { "NQN", "HOSTNQN", NULL }, 2, 0, b_host, TCTL_OUT_HOST_REMOVE },
	{ "stats", "namespaces", "namespace_stats", "[--nqn NQN [--nsid N]]",
	  "I/O counts and latency percentiles per namespace",
	  "  --nqn NQN            only the namespaces of NQN\n"
	  "  --nsid N             only namespace N (needs --nqn)\n",
	  { NULL }, 0, OPT(NQN) | OPT(NSID), b_namespace_stats, TCTL_OUT_NS_STATS },
	{ "stats", "poll-groups", "poll_group_stats", "", "what each poll-group thread did", NULL,
	  { NULL }, 0, 0, NULL, TCTL_OUT_POLL_GROUP_STATS },
	{ "call", NULL, NULL, "METHOD [JSON-PARAMS]",
	  "call any method; print its result as JSON",
	  "JSON-PARAMS is one JSON object, e.g. '{\"nqn\": \"nqn.2024-01.io.example:a\"}'.\n",
	  { "METHOD", "JSON-PARAMS", NULL }, 1, 0, b_call, TCTL_OUT_RAW },
	{ NULL, NULL, NULL, NULL, NULL, NULL, { NULL }, 0, 0, NULL, TCTL_OUT_RAW },
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

void tctl_group_verbs(const char *group, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (const struct tctl_command *c = tctl_commands; c->group; c++)
		if (c->verb && !strcmp(c->group, group) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", c->verb);
}
