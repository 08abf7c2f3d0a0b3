// SPDX-License-Identifier: MIT
/*
 * nvmf-targetctl's output: lists as tables (app/nvmf-targetctl/table.c), changes as one line
 * saying what changed, --json and the raw call as the target's result. The names in a
 * confirmation come from the request (what the administrator typed); counts from the
 * result. A field the result lacks prints "-" rather than failing, so a newer or older
 * target still gives readable output.
 */
#include <inttypes.h>
#include <string.h>

#include "app/nvmf-targetctl/targetctl.h"

#define COLS(a) a, (unsigned)(sizeof(a) / sizeof(a[0]))

int tctl_print_json(FILE *f, json_t *v)
{
	if (json_dumpf(v, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) ||
	    fputc('\n', f) == EOF)
		return TCTL_ERR;
	return TCTL_OK;
}

char *tctl_size_text(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	while (u < 6 && bytes >> (10 * (u + 1)))
		u++;
	uint64_t scale = (uint64_t)1 << (10 * u);
	if (bytes % scale == 0)
		snprintf(buf, len, "%" PRIu64 " %s", bytes / scale, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)scale, unit[u]);
	return buf;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "-";
}

static long long num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* "1 controller" / "2 controllers". */
static const char *plural(long long n)
{
	return n == 1 ? "" : "s";
}

/* The array @key of @result, each element as a row through @row into a table of @cols. */
static int list(FILE *f, json_t *result, const char *key, const struct tctl_col *cols,
		unsigned ncols, void (*row)(struct tctl_table *t, json_t *e))
{
	struct tctl_table t;
	tctl_table_init(&t, cols, ncols);
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(result, key), i, e)
		row(&t, e);
	int rc = tctl_table_print(&t, f);
	tctl_table_free(&t);
	return rc;
}

static void subsystem_row(struct tctl_table *t, json_t *s)
{
	tctl_table_json(t, json_object_get(s, "nqn"));
	tctl_table_json(t, json_object_get(s, "allow_any_host"));
	tctl_table_cell(t, "%zu", json_array_size(json_object_get(s, "hosts")));
	tctl_table_cell(t, "%zu", json_array_size(json_object_get(s, "namespaces")));
	tctl_table_json(t, json_object_get(s, "ports"));
	tctl_table_json(t, json_object_get(s, "controllers"));
	tctl_table_json(t, json_object_get(s, "serial"));
	tctl_table_json(t, json_object_get(s, "model"));
}

static void namespace_row(struct tctl_table *t, json_t *n)
{
	char size[32];
	json_t *bytes = json_object_get(n, "size_bytes");
	tctl_table_json(t, json_object_get(n, "nsid"));
	tctl_table_json(t, json_object_get(n, "enable"));
	tctl_table_json(t, json_object_get(n, "backend"));
	if (json_is_integer(bytes))
		tctl_table_cell(t, "%s",
				tctl_size_text((uint64_t)json_integer_value(bytes), size,
					       sizeof(size)));
	else
		tctl_table_json(t, bytes);
	tctl_table_json(t, json_object_get(n, "block_size"));
	tctl_table_json(t, json_object_get(n, "uuid"));
	/* A backing file deleted while served: the name no longer leads to the data. */
	const char *path = json_string_value(json_object_get(n, "path"));
	if (path && json_is_true(json_object_get(n, "backing_file_unlinked")))
		tctl_table_cell(t, "%s (deleted)", path);
	else
		tctl_table_json(t, json_object_get(n, "path"));
}

static const struct tctl_col subsystem_cols[] = {
	{ "NQN", false },   { "ANY-HOST", false },   { "HOSTS", true },   { "NAMESPACES", true },
	{ "PORTS", false }, { "CONTROLLERS", true }, { "SERIAL", false }, { "MODEL", false },
};
static const struct tctl_col namespace_cols[] = {
	{ "NSID", true },  { "ENABLED", false }, { "BACKEND", false }, { "SIZE", true },
	{ "BLOCK", true }, { "UUID", false },    { "PATH", false },
};

/* subsystem list: the table; with an NQN also each subsystem's hosts and namespaces. */
static int subsystems(FILE *f, const struct tctl_request *req, json_t *result)
{
	int rc = list(f, result, "subsystems", COLS(subsystem_cols), subsystem_row);
	if (rc || !json_object_get(req->params, "nqn"))
		return rc;
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(result, "subsystems"), i, s) {
		struct tctl_table t;
		tctl_table_init(&t, COLS(namespace_cols));
		fprintf(f, "\nhosts of %s: ", str(s, "nqn"));
		json_t *hosts = json_object_get(s, "hosts");
		if (json_array_size(hosts)) {
			size_t k;
			json_t *h;
			json_array_foreach(hosts, k, h) {
				const char *hn = json_string_value(h);
				fprintf(f, "%s%s", k ? ", " : "", hn ? hn : "-");
			}
		} else {
			fputs("none", f);
		}
		fputs(json_is_true(json_object_get(s, "allow_any_host")) ?
			      " (any host may connect)\n\n" :
			      "\n\n",
		      f);
		size_t k;
		json_t *n;
		json_array_foreach(json_object_get(s, "namespaces"), k, n)
			namespace_row(&t, n);
		rc = tctl_table_print(&t, f);
		tctl_table_free(&t);
		if (rc)
			return rc;
	}
	return TCTL_OK;
}

static void port_row(struct tctl_table *t, json_t *p)
{
	static const char *const keys[] = { "portid",  "trtype",      "adrfam",    "traddr",
					    "trsvcid", "controllers", "subsystems" };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		tctl_table_json(t, json_object_get(p, keys[i]));
}

static void controller_row(struct tctl_table *t, json_t *c)
{
	static const char *const keys[] = { "cntlid", "subnqn",    "hostnqn",
					    "portid", "io_queues", "kato_ms",
					    "reads",  "writes",    "connected_since" };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		tctl_table_json(t, json_object_get(c, keys[i]));
	/* TLS 1.3 of the admin queue (all its queues are admitted by the same PSK): "yes"
	 * or "no"; "-" from a target without the field. */
	json_t *tls = json_object_get(c, "tls");
	if (json_is_boolean(tls))
		tctl_table_cell(t, "%s", json_is_true(tls) ? "yes" : "no");
	else
		tctl_table_json(t, NULL);
	/* DH-HMAC-CHAP of the admin queue: "no", or hash/group/direction; a "*" when some
	 * queue differs (each is in --json). A target without the field: "-". */
	json_t *auth = json_object_get(c, "auth"), *q;
	bool differs = false;
	size_t i;
	json_array_foreach(json_object_get(c, "queues"), i, q)
		differs |= json_object_get(q, "auth") != NULL;
	if (!auth)
		tctl_table_json(t, NULL);
	else if (!json_is_object(auth))
		tctl_table_cell(t, "no%s", differs ? "*" : "");
	else
		tctl_table_cell(t, "%s/%s/%s%s", str(auth, "hash"), str(auth, "dhgroup"),
				json_is_true(json_object_get(auth, "bidirectional")) ?
					"bidirectional" :
					"unidirectional",
				differs ? "*" : "");
}

static void ns_stats_row(struct tctl_table *t, json_t *n)
{
	static const char *const keys[] = { "nqn",    "nsid",       "reads",
					    "writes", "read_bytes", "write_bytes",
					    "other",  "errors",     "inflight" };
	static const char *const pct[] = { "p50", "p90", "p99", "p999" };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		tctl_table_json(t, json_object_get(n, keys[i]));
	json_t *lat = json_object_get(n, "latency_us");
	for (unsigned i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		tctl_table_json(t, json_object_get(lat, pct[i]));
}

static void poll_group_row(struct tctl_table *t, json_t *g)
{
	static const char *const keys[] = { "index",       "main",   "queues",  "passes",
					    "busy_passes", "sleeps", "messages" };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		tctl_table_json(t, json_object_get(g, keys[i]));
}

static const struct tctl_col port_cols[] = {
	{ "PORTID", true },  { "TRTYPE", false },     { "ADRFAM", false },     { "TRADDR", false },
	{ "TRSVCID", true }, { "CONTROLLERS", true }, { "SUBSYSTEMS", false },
};
static const struct tctl_col controller_cols[] = {
	{ "CNTLID", true },           { "SUBNQN", false }, { "HOSTNQN", false }, { "PORTID", true },
	{ "IO-QUEUES", true },        { "KATO-MS", true }, { "READS", true },    { "WRITES", true },
	{ "CONNECTED-SINCE", false }, { "TLS", false },    { "AUTH", false },
};
static const struct tctl_col ns_stats_cols[] = {
	{ "NQN", false },       { "NSID", true },        { "READS", true },  { "WRITES", true },
	{ "READ-BYTES", true }, { "WRITE-BYTES", true }, { "OTHER", true },  { "ERRORS", true },
	{ "INFLIGHT", true },   { "P50-US", true },      { "P90-US", true }, { "P99-US", true },
	{ "P99.9-US", true },
};
static const struct tctl_col poll_group_cols[] = {
	{ "INDEX", true },       { "MAIN", false },  { "QUEUES", true },   { "PASSES", true },
	{ "BUSY-PASSES", true }, { "SLEEPS", true }, { "MESSAGES", true },
};

/* ana list: one row per port and group; its namespaces as NQN/NSID. */
static const struct tctl_col ana_cols[] = {
	{ "PORTID", true },   { "GRPID", true },       { "STATE", false },
	{ "DEFINED", false }, { "NAMESPACES", false },
};

static int ana_list(FILE *f, json_t *r)
{
	struct tctl_table t;
	tctl_table_init(&t, COLS(ana_cols));
	size_t i, k, n;
	json_t *p, *g, *ns;
	json_array_foreach(json_object_get(r, "ports"), i, p)
		json_array_foreach(json_object_get(p, "groups"), k, g) {
			char cell[512] = "";
			size_t off = 0;
			json_array_foreach(json_object_get(g, "namespaces"), n, ns)
				if (off < sizeof(cell))
					off += (size_t)snprintf(cell + off, sizeof(cell) - off,
								"%s%s/%lld", n ? "," : "",
								str(ns, "nqn"), num(ns, "nsid"));
			tctl_table_json(&t, json_object_get(p, "portid"));
			tctl_table_json(&t, json_object_get(g, "grpid"));
			tctl_table_json(&t, json_object_get(g, "state"));
			tctl_table_json(&t, json_object_get(g, "defined"));
			tctl_table_cell(&t, "%s", cell[0] ? cell : "-");
		}
	int rc = tctl_table_print(&t, f);
	tctl_table_free(&t);
	return rc;
}

/* gateway status: a line for the gateway and the cluster, then one row per shared group. */
static const struct tctl_col gateway_cols[] = {
	{ "GRPID", true },   { "STATE", false },     { "HELD", false },
	{ "HOLDER", false }, { "PREFERRED", false }, { "REASON", false },
};

static int gateway(FILE *f, json_t *r)
{
	const char *e = str(r, "last_error");
	fprintf(f, "gateway %s of group %s: pool %s, lease %lld s, cluster %s%s%s\n",
		str(r, "name"), str(r, "group"), str(r, "pool"), num(r, "lease_seconds"),
		json_is_true(json_object_get(r, "reachable")) ? "reachable" : "unreachable",
		*e ? ": " : "", e);
	/* Reachable but without its alive lock: another locker has it (the gateway takes no
	 * group then). */
	if (json_is_true(json_object_get(r, "reachable")) &&
	    json_is_false(json_object_get(r, "alive_held")))
		fprintf(f,
			"its alive lock is held by another locker: a former %s until its lease "
			"ends, or another gateway with this name\n",
			str(r, "name"));
	struct tctl_table t;
	tctl_table_init(&t, COLS(gateway_cols));
	size_t i;
	json_t *g;
	json_array_foreach(json_object_get(r, "groups"), i, g) {
		tctl_table_json(&t, json_object_get(g, "grpid"));
		tctl_table_json(&t, json_object_get(g, "state"));
		tctl_table_json(&t, json_object_get(g, "held"));
		tctl_table_cell(&t, "%s", *str(g, "holder") ? str(g, "holder") : "-");
		tctl_table_cell(
			&t, "%s%s", str(g, "preferred"),
			json_is_true(json_object_get(g, "preferred_alive")) ? "" : " (not alive)");
		tctl_table_json(&t, json_object_get(g, "reason"));
	}
	int rc = tctl_table_print(&t, f);
	tctl_table_free(&t);
	return rc;
}

static void registrant_row(struct tctl_table *t, json_t *r)
{
	static const char *const keys[] = { "hostid", "holder", "key", "hostnqns", "controllers" };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		tctl_table_json(t, json_object_get(r, keys[i]));
}

static const struct tctl_col registrant_cols[] = {
	{ "HOSTID", false },   { "HOLDER", false },      { "KEY", false },
	{ "HOSTNQNS", false }, { "CONTROLLERS", false },
};

/* namespace reservation: one line for the reservation, then its registrants. */
static int reservation(FILE *f, const struct tctl_request *req, json_t *r)
{
	long long nsid = json_object_get(r, "nsid") ? num(r, "nsid") : num(req->params, "nsid");
	const char *nqn = json_object_get(r, "nqn") ? str(r, "nqn") : str(req->params, "nqn");
	if (!strcmp(req->method, "namespace_reservation_clear")) {
		if (!json_is_true(json_object_get(r, "cleared")))
			fprintf(f, "namespace %lld of %s: nothing to clear (no registrant)\n", nsid,
				nqn);
		else if (json_is_string(json_object_get(r, "holder")))
			fprintf(f,
				"namespace %lld of %s: cleared %s held by host %s and %lld "
				"registration(s), generation %lld\n",
				nsid, nqn, str(r, "type_name"), str(r, "holder"),
				num(r, "registrants"), num(r, "generation"));
		else
			fprintf(f,
				"namespace %lld of %s: cleared %s%s%lld registration(s), "
				"generation %lld\n",
				nsid, nqn, num(r, "type") ? str(r, "type_name") : "",
				num(r, "type") ? " (held by every registrant) and " : "",
				num(r, "registrants"), num(r, "generation"));
		return ferror(f) ? TCTL_ERR : TCTL_OK;
	}
	if (json_is_false(json_object_get(r, "enabled"))) {
		fprintf(f, "namespace %lld of %s: reservations off (resv.enable 0)\n", nsid, nqn);
		return ferror(f) ? TCTL_ERR : TCTL_OK;
	}
	fprintf(f, "namespace %lld of %s: %s", nsid, nqn, str(r, "type_name"));
	if (num(r, "type"))
		fprintf(f, " (type %lld)", num(r, "type"));
	fprintf(f, ", generation %lld, PTPL %s\n", num(r, "generation"),
		json_is_true(json_object_get(r, "ptpl")) ? "on" : "off");
	if (!json_array_size(json_object_get(r, "registrants"))) {
		fputs("no registrants\n", f);
		return ferror(f) ? TCTL_ERR : TCTL_OK;
	}
	fputc('\n', f);
	return list(f, r, "registrants", COLS(registrant_cols), registrant_row);
}

/* "namespace 3" / "namespaces 1, 2" from the nsids array of namespace_add. */
static void nsids(FILE *f, json_t *arr)
{
	size_t i;
	json_t *e;
	fprintf(f, "namespace%s ", json_array_size(arr) == 1 ? "" : "s");
	json_array_foreach(arr, i, e)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)json_integer_value(e));
	if (!json_array_size(arr))
		fputc('?', f);
}

/* "; 2 controllers disconnected" after a change that tore some down; nothing for none. */
static void dropped(FILE *f, long long n)
{
	if (n)
		fprintf(f, "; %lld controller%s disconnected", n, plural(n));
}

/* port add: "rdma 192.168.100.1:4420", "rdma [fe80::1]:4420" from the request's addr. */
static void port_address(FILE *f, json_t *addr)
{
	const char *traddr = str(addr, "traddr");
	bool v6 = strchr(traddr, ':') != NULL;
	fprintf(f, "%s %s%s%s:%s", str(addr, "trtype"), v6 ? "[" : "", traddr, v6 ? "]" : "",
		str(addr, "trsvcid"));
}

/* config reload: each change the target made on its own line, or that there was none. */
static int reloaded(FILE *f, json_t *r)
{
	json_t *changes = json_object_get(r, "changes"), *c;
	size_t i;
	json_array_foreach(changes, i, c) {
		const char *t = json_string_value(c);
		fprintf(f, "%s\n", t ? t : "-");
	}
	if (!json_array_size(changes))
		fputs("no changes\n", f);
	return ferror(f) ? TCTL_ERR : TCTL_OK;
}

/* log-level: the level ("mixed" then each component's); after a change also the one
 * before. */
static int log_level(FILE *f, const struct tctl_request *req, json_t *r)
{
	const char *level = str(r, "level"), *prev = str(r, "previous");
	const char *comp = json_string_value(json_object_get(r, "component"));
	char what[32] = "log level";
	if (comp)
		snprintf(what, sizeof(what), "log level of %s", comp);
	if (!json_object_get(req->params, "level")) {
		fprintf(f, "%s\n", level);
		const char *k;
		json_t *v;
		if (!strcmp(level, "mixed"))
			json_object_foreach(json_object_get(r, "components"), k, v)
				fprintf(f, "  %-8s %s\n", k,
					json_string_value(v) ? json_string_value(v) : "-");
	} else if (!strcmp(level, prev))
		fprintf(f, "%s %s (unchanged)\n", what, level);
	else
		fprintf(f, "%s %s (was %s)\n", what, level, prev);
	return ferror(f) ? TCTL_ERR : TCTL_OK;
}

/* One line for a change. */
static int changed(FILE *f, const struct tctl_request *req, json_t *r)
{
	json_t *p = req->params;
	const char *nqn = str(p, "nqn");
	long long nsid = json_object_get(r, "nsid") ? num(r, "nsid") : num(p, "nsid");
	long long disc = num(r, "disconnected");
	bool ch = json_is_true(json_object_get(r, "changed"));
	char size[32];
	json_t *port = json_object_get(p, "port"), *sub = json_object_get(p, "subsystem");
	long long portid = json_object_get(r, "portid") ? num(r, "portid") :
			   port                         ? num(port, "portid") :
							  num(p, "portid");
	switch (req->cmd->out) {
	case TCTL_OUT_SUBSYSTEM_ADD: /* with --from the NQN is in the file: the target's */
		fprintf(f, "subsystem %s added\n",
			json_object_get(r, "nqn") ? str(r, "nqn") : str(sub, "nqn"));
		break;
	case TCTL_OUT_SUBSYSTEM_REMOVE:
		fprintf(f, "subsystem %s removed", nqn);
		dropped(f, disc);
		fputc('\n', f);
		break;
	case TCTL_OUT_PORT_ADD:
		fprintf(f, "port %lld added (", portid);
		port_address(f, json_object_get(port, "addr"));
		fputs(")\n", f);
		break;
	case TCTL_OUT_PORT_REMOVE:
		fprintf(f, "port %lld removed", portid);
		dropped(f, disc);
		fputc('\n', f);
		break;
	case TCTL_OUT_PORT_LINK:
		fprintf(f, "port %lld exposes %s\n", portid, nqn);
		break;
	case TCTL_OUT_PORT_UNLINK:
		fprintf(f, "port %lld no longer exposes %s", portid, nqn);
		dropped(f, disc);
		fputc('\n', f);
		break;
	case TCTL_OUT_CONFIG_SAVE:
		fprintf(f, "running configuration saved to %s\n",
			json_object_get(r, "path") ? str(r, "path") : str(p, "path"));
		break;
	case TCTL_OUT_CONFIG_RELOAD:
		return reloaded(f, r);
	case TCTL_OUT_LOG_LEVEL:
		return log_level(f, req, r);
	case TCTL_OUT_DISCONNECT:
		fprintf(f, "controller %lld of %s disconnected\n", num(p, "cntlid"), nqn);
		break;
	case TCTL_OUT_NS_ADD:
		nsids(f, json_object_get(r, "nsids"));
		fprintf(f, " added to %s\n", nqn);
		break;
	case TCTL_OUT_NS_REMOVE:
		fprintf(f, "namespace %lld removed from %s\n", nsid, nqn);
		break;
	case TCTL_OUT_NS_ENABLE:
	case TCTL_OUT_NS_DISABLE:
		fprintf(f, "namespace %lld of %s %s%s\n", nsid, nqn, ch ? "" : "was already ",
			req->cmd->out == TCTL_OUT_NS_ENABLE ? "enabled" : "disabled");
		break;
	case TCTL_OUT_NS_RESIZE: {
		long long b = json_object_get(r, "size_bytes") ? num(r, "size_bytes") :
								 num(p, "size_bytes");
		fprintf(f, "namespace %lld of %s resized to %lld bytes (%s)\n", nsid, nqn, b,
			tctl_size_text((uint64_t)b, size, sizeof(size)));
		break;
	}
	case TCTL_OUT_HOST_ADD:
		fprintf(f, "host %s added to %s\n", str(p, "host"), nqn);
		break;
	case TCTL_OUT_HOST_REMOVE:
		fprintf(f, "host %s removed from %s", str(p, "host"), nqn);
		dropped(f, disc);
		/* allow_any_host on: the list did not admit it, so it stays (nvmet's way). */
		if (json_is_true(json_object_get(r, "still_admitted")))
			fprintf(f,
				"; allow_any_host is on, so it may still connect (%lld controller%s "
				"of it still connected)",
				num(r, "connected"), plural(num(r, "connected")));
		fputc('\n', f);
		break;
	case TCTL_OUT_DHCHAP_SET:
		fprintf(f, "host %s: DH-HMAC-CHAP %s %s%s, from the next authentication\n",
			str(p, "host"),
			json_object_get(p, "hash") ? str(p, "hash") : "hmac(sha256)",
			json_object_get(p, "dhgroup") ? str(p, "dhgroup") : "null",
			json_object_get(p, "ctrl_key") ? ", bidirectional" : "");
		break;
	case TCTL_OUT_DHCHAP_CLEAR:
		fprintf(f, "host %s: DH-HMAC-CHAP secrets removed\n", str(p, "host"));
		break;
	case TCTL_OUT_TLS_KEY_SET:
		fprintf(f, "host %s: TLS PSK from %s%s, from its next TLS connection\n",
			str(p, "host"), str(p, "key_file"),
			json_is_true(json_object_get(p, "compat")) ?
				" (compat layout for version 0 identities)" :
				"");
		break;
	case TCTL_OUT_TLS_KEY_CLEAR:
		fprintf(f, "host %s: TLS PSK removed\n", str(p, "host"));
		break;
	case TCTL_OUT_ANA_SET:
		fprintf(f, "port %lld: ANA group %lld %s", num(p, "portid"), num(p, "grpid"),
			str(p, "state"));
		if (ch)
			fprintf(f, " (was %s)\n", str(r, "previous"));
		else
			fputs(" (unchanged)\n", f);
		break;
	case TCTL_OUT_NS_ANA_GROUP:
		if (ch)
			fprintf(f, "namespace %lld of %s moved to ANA group %lld (was %lld)\n",
				nsid, nqn, num(p, "grpid"), num(r, "previous"));
		else
			fprintf(f, "namespace %lld of %s was already in ANA group %lld\n", nsid,
				nqn, num(p, "grpid"));
		break;
	case TCTL_OUT_ALLOW_ANY_HOST:
		fprintf(f, "%s: %s%s", nqn,
			json_is_true(json_object_get(p, "allow")) ?
				"any host may connect" :
				"only the listed hosts may connect",
			ch ? "" : " (unchanged)");
		dropped(f, disc);
		fputc('\n', f);
		break;
	default:
		return tctl_print_json(f, r);
	}
	return ferror(f) ? TCTL_ERR : TCTL_OK;
}

int tctl_format(FILE *f, const struct tctl_request *req, json_t *result)
{
	/* config show is a config file whatever the options: redirected, it loads. */
	if (req->json || req->cmd->out == TCTL_OUT_RAW || req->cmd->out == TCTL_OUT_CONFIG)
		return tctl_print_json(f, result ? result : json_null());
	switch (req->cmd->out) {
	case TCTL_OUT_VERSION:
		fprintf(f, "%s %s\n", str(result, "program"), str(result, "version"));
		return ferror(f) ? TCTL_ERR : TCTL_OK;
	case TCTL_OUT_SUBSYSTEMS:
		return subsystems(f, req, result);
	case TCTL_OUT_PORTS:
		return list(f, result, "ports", COLS(port_cols), port_row);
	case TCTL_OUT_CONTROLLERS:
		return list(f, result, "controllers", COLS(controller_cols), controller_row);
	case TCTL_OUT_NS_STATS:
		return list(f, result, "namespaces", COLS(ns_stats_cols), ns_stats_row);
	case TCTL_OUT_POLL_GROUP_STATS:
		return list(f, result, "poll_groups", COLS(poll_group_cols), poll_group_row);
	case TCTL_OUT_ANA_LIST:
		return ana_list(f, result);
	case TCTL_OUT_NS_RESV:
		return reservation(f, req, result);
	case TCTL_OUT_GATEWAY:
		return gateway(f, result);
	default:
		return changed(f, req, result);
	}
}
