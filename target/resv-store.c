/* SPDX-License-Identifier: MIT */
/*
 * Persist Through Power Loss (NVMe Base 2.0 section 8.19.8): the reservations of the
 * namespaces whose PTPL state is on, kept in one JSON file (nvmf_target.resv_state, by
 * default the config file's name + ".resv.json"; docs/reservations.md shows it):
 *
 *   {"version": 1, "namespaces": [{"subsystem": NQN, "nsid": N, "uuid": UUID,
 *     "nguid": NGUID?, "eui64": EUI64?, "path": PATH?, "ptpl": true, "generation": G,
 *     "type": 0-6, "holder": HOSTID?, "registrants": [{"hostid": HOSTID, "key": "0x.."}]}]}
 *
 * The file is rewritten whole, atomically (a temporary beside it, fsync, rename, fsync
 * of the directory), before the change it records is answered. An entry belongs to the
 * namespace of its subsystem NQN and nsid, and is applied only when that namespace is
 * still the one it was kept for (same UUID, NGUID, EUI-64 and backing file); otherwise
 * the log says so and the entry stays in the file untouched. A file that cannot be read
 * or has any bad field stops the start: dropping it would drop fences.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nvme/identify.h"
#include "target/log.h"
#include "target/resv.h"
#include "util/atomic-file.h"

#define STORE_VERSION 1

/* One namespace's kept reservation and the identity it was kept for. */
struct entry {
	char nqn[NVMF_CFG_NQN_MAX];
	uint32_t nsid;
	uint8_t uuid[16], nguid[16], eui64[8];
	bool has_nguid, has_eui64;
	char *path;                /* backing file or device; NULL: none (ram, null) */
	struct nvme_resv_state st; /* regs malloc'ed */
};

struct nvmf_resv_store {
	char *path;
	struct entry *e;
	size_t n;
};

static void entry_clear(struct entry *e)
{
	free(e->path);
	free(e->st.regs);
	memset(e, 0, sizeof(*e));
}

static void entries_free(struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		entry_clear(&e[i]);
	free(e);
}

/* ---- reading ---- */

/* "reservation state file FILE: namespaces[1].key: message" into @err. */
static void say(char *err, size_t errlen, const char *file, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void say(char *err, size_t errlen, const char *file, const char *where, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "reservation state file %s: %s%s%s", file, where, *where ? ": " : "",
		 msg);
}
/* say(), then -1: visibly so to the static analyzer, which does not follow variadic calls. */
#define bad(...) (say(__VA_ARGS__), -1)

/* Every key of @o is in @known. */
static int only_keys(json_t *o, const char *const *known, const char *file, const char *where,
		     char *err, size_t errlen)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		size_t i;
		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (!known[i])
			return bad(err, errlen, file, where, "unknown key \"%.40s\"", k);
	}
	return 0;
}

static int get_uint(json_t *o, const char *key, uint64_t max, uint64_t *out, const char *file,
		    const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return bad(err, errlen, file, where, "%s: %s (an integer 0-%" PRIu64 ")", key,
			   v ? "out of range" : "missing", max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* A string member; NULL when absent and not @required. */
static int get_str(json_t *o, const char *key, bool required, const char **out, const char *file,
		   const char *where, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	*out = NULL;
	if (!v && !required)
		return 0;
	*out = json_string_value(v);
	if (!*out)
		return bad(err, errlen, file, where, "%s: %s (a string)", key,
			   v ? "wrong type" : "missing");
	return 0;
}

static int get_id(json_t *o, const char *key, bool required, uint8_t id[16], bool *has,
		  const char *file, const char *where, char *err, size_t errlen)
{
	const char *s;
	char why[128];
	if (get_str(o, key, required, &s, file, where, err, errlen))
		return -1;
	if (has)
		*has = s != NULL;
	if (s && nvme_uuid_parse(s, id, why, sizeof(why)))
		return bad(err, errlen, file, where, "%s: %s", key, why);
	return 0;
}

static int parse_regs(json_t *regs, struct entry *e, const char *file, const char *where, char *err,
		      size_t errlen)
{
	char sub[96];
	if (!json_is_array(regs))
		return bad(err, errlen, file, where, "registrants: %s (an array)",
			   regs ? "wrong type" : "missing");
	size_t n = json_array_size(regs);
	if (n > NVME_RESV_MAX_REGS)
		return bad(err, errlen, file, where, "registrants: %zu of them (at most %u)", n,
			   NVME_RESV_MAX_REGS);
	if (!(e->st.regs = calloc(n + 1, sizeof(*e->st.regs))))
		return bad(err, errlen, file, where, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_array_get(regs, i);
		struct nvme_resv_reg *reg = &e->st.regs[i];
		const char *key;
		snprintf(sub, sizeof(sub), "%s.registrants[%zu]", where, i);
		if (!json_is_object(r))
			return bad(err, errlen, file, sub, "not an object");
		if (only_keys(r, (const char *const[]){ "hostid", "key", NULL }, file, sub, err,
			      errlen) ||
		    get_id(r, "hostid", true, reg->hostid, NULL, file, sub, err, errlen) ||
		    get_str(r, "key", true, &key, file, sub, err, errlen))
			return -1;
		/* Keys are 64 bits: as "0x" and hex digits, which JSON numbers cannot hold. */
		size_t digits = strlen(key) - 2;
		if (strncmp(key, "0x", 2) || !digits || digits > 16 ||
		    strspn(key + 2, "0123456789abcdefABCDEF") != digits)
			return bad(err, errlen, file, sub,
				   "key: not a reservation key (\"0x\" and 1-16 hex digits)");
		reg->rkey = strtoull(key + 2, NULL, 16);
		for (size_t p = 0; p < i; p++)
			if (!memcmp(e->st.regs[p].hostid, reg->hostid, 16))
				return bad(err, errlen, file, sub,
					   "hostid: registered twice (registrants[%zu])", p);
		e->st.nregs++;
	}
	return 0;
}

static int parse_entry(json_t *o, const char *where, struct entry *e, const char *file, char *err,
		       size_t errlen)
{
	static const char *const keys[] = { "subsystem", "nsid",   "uuid",        "nguid",
					    "eui64",     "path",   "ptpl",        "generation",
					    "type",      "holder", "registrants", NULL };
	const char *nqn, *path, *eui;
	uint64_t v = 0;
	uint8_t holder[16];
	bool has_holder;
	char why[256];
	if (!json_is_object(o))
		return bad(err, errlen, file, where, "not an object");
	if (only_keys(o, keys, file, where, err, errlen) ||
	    get_str(o, "subsystem", true, &nqn, file, where, err, errlen))
		return -1;
	if (nvmf_config_check_nqn("subsystem", nqn, why, sizeof(why)))
		return bad(err, errlen, file, where, "%s", why);
	snprintf(e->nqn, sizeof(e->nqn), "%s", nqn);
	if (get_uint(o, "nsid", NVMF_MAX_NSID, &v, file, where, err, errlen))
		return -1;
	if (!v)
		return bad(err, errlen, file, where, "nsid: 0 is not a namespace ID");
	e->nsid = (uint32_t)v;
	if (get_id(o, "uuid", true, e->uuid, NULL, file, where, err, errlen) ||
	    get_id(o, "nguid", false, e->nguid, &e->has_nguid, file, where, err, errlen) ||
	    get_str(o, "eui64", false, &eui, file, where, err, errlen) ||
	    get_str(o, "path", false, &path, file, where, err, errlen))
		return -1;
	if (eui && nvme_eui64_parse(eui, e->eui64, why, sizeof(why)))
		return bad(err, errlen, file, where, "eui64: %s", why);
	e->has_eui64 = eui != NULL;
	if (path && !(e->path = strdup(path)))
		return bad(err, errlen, file, where, "out of memory");
	if (!json_is_true(json_object_get(o, "ptpl")))
		return bad(err, errlen, file, where,
			   "ptpl: not true (only namespaces with PTPL on are kept)");
	e->st.ptpl = true;
	if (get_uint(o, "generation", UINT32_MAX, &v, file, where, err, errlen))
		return -1;
	e->st.gen = (uint32_t)v;
	if (get_uint(o, "type", NVME_RESERVATION_RTYPE_EAAR, &v, file, where, err, errlen))
		return -1;
	e->st.rtype = (uint8_t)v;
	if (parse_regs(json_object_get(o, "registrants"), e, file, where, err, errlen) ||
	    get_id(o, "holder", false, holder, &has_holder, file, where, err, errlen))
		return -1;
	/* The holder is named for the single-holder types, and is a registrant; an All
	 * Registrants reservation lasts only while there are registrants. */
	bool single = e->st.rtype && !nvme_resv_all_regs(e->st.rtype);
	if (has_holder != single)
		return bad(err, errlen, file, where, "holder: %s for type %u",
			   single ? "missing" : "not expected", e->st.rtype);
	if (single) {
		int h = nvme_resv_find(&e->st, holder);
		if (h < 0)
			return bad(err, errlen, file, where, "holder: not one of the registrants");
		e->st.holder = (uint32_t)h;
	}
	if (nvme_resv_all_regs(e->st.rtype) && !e->st.nregs)
		return bad(err, errlen, file, where, "type: %u without registrants", e->st.rtype);
	return 0;
}

/* The file's entries into *@out (*@n), none when it does not exist. */
static int load(const char *file, struct entry **out, size_t *n, char *err, size_t errlen)
{
	json_error_t jerr;
	*out = NULL;
	*n = 0;
	if (access(file, F_OK) && errno == ENOENT)
		return 0;
	json_t *root = json_load_file(file, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (jerr.line < 0)
			return bad(err, errlen, file, "", "%s", jerr.text);
		return bad(err, errlen, file, "", "line %d, column %d: %s", jerr.line, jerr.column,
			   jerr.text);
	}
	json_t *nss = json_object_get(root, "namespaces"), *ver = json_object_get(root, "version");
	int rc = -1;
	if (!json_is_object(root))
		say(err, errlen, file, "", "not a JSON object");
	else if (!only_keys(root, (const char *const[]){ "version", "namespaces", NULL }, file, "",
			    err, errlen)) {
		if (!json_is_integer(ver) || json_integer_value(ver) != STORE_VERSION)
			say(err, errlen, file, "version",
			    "not %d (a file of another version of nvmf-target?)", STORE_VERSION);
		else if (!json_is_array(nss))
			say(err, errlen, file, "namespaces", "%s (an array)",
			    nss ? "wrong type" : "missing");
		else
			rc = 0;
	}
	size_t count = rc ? 0 : json_array_size(nss);
	struct entry *e = rc ? NULL : calloc(count + 1, sizeof(*e));
	if (!rc && !e)
		rc = bad(err, errlen, file, "", "out of memory");
	for (size_t i = 0; !rc && i < count; i++) {
		char where[48];
		snprintf(where, sizeof(where), "namespaces[%zu]", i);
		rc = parse_entry(json_array_get(nss, i), where, &e[i], file, err, errlen);
		for (size_t p = 0; !rc && p < i; p++)
			if (e[p].nsid == e[i].nsid && !strcmp(e[p].nqn, e[i].nqn))
				rc = bad(err, errlen, file, where,
					 "subsystem %s, nsid %u: kept twice (namespaces[%zu])",
					 e[i].nqn, e[i].nsid, p);
		if (!rc)
			*n = i + 1;
	}
	json_decref(root);
	if (rc) {
		entries_free(e, count);
		*n = 0;
		return -1;
	}
	*out = e;
	return 0;
}

/* ---- writing ---- */

static json_t *entry_json(const struct entry *e)
{
	char id[NVME_UUID_STR_LEN], eui[NVME_EUI64_STR_LEN], key[24];
	json_t *regs = json_array();
	for (uint32_t i = 0; regs && i < e->st.nregs; i++) {
		snprintf(key, sizeof(key), "0x%016" PRIx64, e->st.regs[i].rkey);
		json_array_append_new(regs, json_pack("{s:s, s:s}", "hostid",
						      nvme_uuid_format(e->st.regs[i].hostid, id),
						      "key", key));
	}
	json_t *o = json_pack("{s:s, s:I, s:s, s:b, s:I, s:I, s:o}", "subsystem", e->nqn, "nsid",
			      (json_int_t)e->nsid, "uuid", nvme_uuid_format(e->uuid, id), "ptpl", 1,
			      "generation", (json_int_t)e->st.gen, "type", (json_int_t)e->st.rtype,
			      "registrants", regs);
	if (!o)
		return NULL;
	if (e->has_nguid)
		json_object_set_new(o, "nguid", json_string(nvme_uuid_format(e->nguid, id)));
	if (e->has_eui64)
		json_object_set_new(o, "eui64", json_string(nvme_eui64_format(e->eui64, eui)));
	if (e->path)
		json_object_set_new(o, "path", json_string(e->path));
	if (e->st.rtype && !nvme_resv_all_regs(e->st.rtype))
		json_object_set_new(
			o, "holder",
			json_string(nvme_uuid_format(e->st.regs[e->st.holder].hostid, id)));
	return o;
}

/* @text into @file atomically (util/atomic-file.h), 0600; 0 or -errno with @err. */
static int write_atomic(const char *file, const char *text, char *err, size_t errlen)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)text, .iov_len = strlen(text) };
	return nvmf_atomic_write(file, &iov, 1, 0600, err, errlen);
}

/* The store's entries but @skip (-1: none), then @extra (NULL: none), into the file. */
static int write_store(const struct nvmf_resv_store *s, ssize_t skip, const struct entry *extra,
		       char *err, size_t errlen)
{
	json_t *nss = json_array();
	bool ok = nss != NULL;
	for (size_t i = 0; ok && i < s->n; i++)
		if ((ssize_t)i != skip)
			ok = !json_array_append_new(nss, entry_json(&s->e[i]));
	if (ok && extra)
		ok = !json_array_append_new(nss, entry_json(extra));
	if (!ok) {
		json_decref(nss);
		nss = NULL;
	}
	json_t *root = nss ? json_pack("{s:i, s:o}", "version", STORE_VERSION, "namespaces", nss) :
			     NULL;
	char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(root);
	if (!text) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		return -ENOMEM;
	}
	size_t len = strlen(text);
	char *nl = realloc(text, len + 2);
	if (nl) {
		text = nl;
		strcpy(text + len, "\n");
	}
	int rc = write_atomic(s->path, text, err, errlen);
	free(text);
	return rc;
}

/* ---- the store ---- */

bool nvmf_resv_ptpl_capable(const struct nvmf_tgt *tgt)
{
	return tgt->resv_store != NULL;
}

const char *nvmf_resv_store_path(const struct nvmf_tgt *tgt)
{
	return tgt->resv_store ? tgt->resv_store->path : NULL;
}

/* The entry of @nqn, @nsid in @s, or NULL. */
static struct entry *find(const struct nvmf_resv_store *s, const char *nqn, uint32_t nsid)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->e[i].nsid == nsid && !strcmp(s->e[i].nqn, nqn))
			return &s->e[i];
	return NULL;
}

/* What of @ns differs from what @e was kept for, or NULL. */
static const char *identity_diff(const struct entry *e, const struct nvmf_ns *ns)
{
	if (memcmp(e->uuid, ns->uuid, 16))
		return "UUID";
	if (e->has_nguid != ns->has_nguid || (e->has_nguid && memcmp(e->nguid, ns->nguid, 16)))
		return "NGUID";
	if (e->has_eui64 != ns->has_eui64 || (e->has_eui64 && memcmp(e->eui64, ns->eui64, 8)))
		return "EUI-64";
	if ((e->path == NULL) != (ns->real_path == NULL) ||
	    (e->path && strcmp(e->path, ns->real_path)))
		return "backing file";
	return NULL;
}

int nvmf_resv_store_apply(struct nvmf_tgt *tgt, const struct nvmf_subsys *s,
			  const struct nvmf_ns *ns, struct nvme_resv_state *st)
{
	struct nvmf_resv_store *store = tgt->resv_store;
	const struct entry *e = find(store, s->cfg->nqn, ns->nsid);
	if (!e)
		return 0;
	const char *diff = identity_diff(e, ns);
	if (diff) {
		nvmf_log(
			tgt, NVMF_LOG_WARNING,
			"subsystem %s, namespace %u: the reservation kept in %s is not "
			"applied: it was kept for a namespace with another %s (the entry stays in the file)",
			s->cfg->nqn, ns->nsid, store->path, diff);
		return 0;
	}
	struct nvme_resv_state copy = e->st;
	if (!(copy.regs = calloc(e->st.nregs + 1, sizeof(*copy.regs))))
		return -ENOMEM;
	if (e->st.nregs)
		memcpy(copy.regs, e->st.regs, e->st.nregs * sizeof(*copy.regs));
	free(st->regs);
	*st = copy;
	nvmf_log(tgt, NVMF_LOG_INFO,
		 "subsystem %s, namespace %u: reservation restored from %s (%s, %u "
		 "registrant(s), generation %u)",
		 s->cfg->nqn, ns->nsid, store->path, nvme_resv_type_name(st->rtype), st->nregs,
		 st->gen);
	return 1;
}

int nvmf_resv_store_put(struct nvmf_tgt *tgt, const struct nvmf_subsys *s, const struct nvmf_ns *ns,
			const struct nvme_resv_state *st, char *err, size_t errlen)
{
	struct nvmf_resv_store *store = tgt->resv_store;
	const struct entry *kept = find(store, s->cfg->nqn, ns->nsid);
	ssize_t i = kept ? kept - store->e : -1;
	struct entry e;
	memset(&e, 0, sizeof(e));
	if (st->ptpl) {
		snprintf(e.nqn, sizeof(e.nqn), "%s", s->cfg->nqn);
		e.nsid = ns->nsid;
		memcpy(e.uuid, ns->uuid, 16);
		memcpy(e.nguid, ns->nguid, 16);
		memcpy(e.eui64, ns->eui64, 8);
		e.has_nguid = ns->has_nguid;
		e.has_eui64 = ns->has_eui64;
		e.st = *st;
		e.st.regs = calloc(st->nregs + 1, sizeof(*e.st.regs));
		if (!e.st.regs || (ns->real_path && !(e.path = strdup(ns->real_path)))) {
			entry_clear(&e);
			snprintf(err, errlen, "%s: out of memory", store->path);
			return -ENOMEM;
		}
		if (st->nregs)
			memcpy(e.st.regs, st->regs, st->nregs * sizeof(*e.st.regs));
	} else if (i < 0) {
		return 0; /* nothing kept, nothing to keep */
	}
	/* Room first, so that nothing can fail once the file says it. */
	struct entry *grown =
		st->ptpl && i < 0 ? realloc(store->e, (store->n + 1) * sizeof(*grown)) : store->e;
	if (!grown) {
		entry_clear(&e);
		snprintf(err, errlen, "%s: out of memory", store->path);
		return -ENOMEM;
	}
	store->e = grown;
	int rc = write_store(store, i, st->ptpl ? &e : NULL, err, errlen);
	if (rc) {
		entry_clear(&e);
		return rc;
	}
	if (i >= 0) {
		if (identity_diff(&store->e[i], ns))
			nvmf_log(tgt, NVMF_LOG_WARNING,
				 "subsystem %s, namespace %u: the reservation kept in %s "
				 "for an earlier namespace of that nsid is replaced",
				 s->cfg->nqn, ns->nsid, store->path);
		entry_clear(&store->e[i]);
		memmove(&store->e[i], &store->e[i + 1],
			(store->n - (size_t)i - 1) * sizeof(*store->e));
		store->n--;
	}
	if (st->ptpl)
		store->e[store->n++] = e;
	return 0;
}

int nvmf_resv_store_check(const char *path, char *err, size_t errlen)
{
	struct entry *e;
	size_t n;
	if (load(path, &e, &n, err, errlen))
		return -1;
	entries_free(e, n);
	return 0;
}

/* Entries no namespace takes now: the log says why; they stay in the file. */
static void report_unmatched(struct nvmf_tgt *tgt)
{
	const struct nvmf_resv_store *store = tgt->resv_store;
	for (size_t i = 0; i < store->n; i++) {
		const struct entry *e = &store->e[i];
		struct nvmf_subsys *s = nvmf_tgt_find_subsys(tgt, e->nqn);
		const struct nvmf_ns *ns =
			s && s->type == NVMF_SUBSYS_NVME ? nvmf_subsys_ns(s, e->nsid) : NULL;
		const char *why = !s        ? "no such subsystem" :
				  !ns       ? "no such namespace enabled (it applies when "
					      "one is enabled)" :
				  !ns->resv ? "the namespace has reservations off" :
					      NULL;
		if (why)
			nvmf_log(tgt, NVMF_LOG_WARNING,
				 "%s: subsystem %s, namespace %u: the reservation kept is not "
				 "applied: %s (the entry stays in the file)",
				 store->path, e->nqn, e->nsid, why);
	}
}

int nvmf_tgt_resv_open(struct nvmf_tgt *tgt, const char *path, char *err, size_t errlen)
{
	struct nvmf_resv_store *store = calloc(1, sizeof(*store));
	if (!store || !(store->path = strdup(path))) {
		free(store);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (load(path, &store->e, &store->n, err, errlen)) {
		free(store->path);
		free(store);
		return -1;
	}
	tgt->resv_store = store;
	for (size_t i = 0; i < tgt->n_subsys; i++) {
		struct nvmf_subsys *s = tgt->subsys[i];
		for (uint32_t n = 1; n <= s->max_nsid; n++) {
			struct nvmf_ns *ns = nvmf_subsys_ns(s, n);
			if (!ns || !ns->resv)
				continue;
			if (nvmf_resv_store_apply(tgt, s, ns, &ns->resv->st) < 0) {
				snprintf(err, errlen, "%s: out of memory", path);
				nvmf_tgt_resv_close(tgt);
				return -1;
			}
			nvmf_resv_publish(ns);
		}
	}
	report_unmatched(tgt);
	return 0;
}

void nvmf_tgt_resv_close(struct nvmf_tgt *tgt)
{
	struct nvmf_resv_store *store = tgt->resv_store;
	if (!store)
		return;
	entries_free(store->e, store->n);
	free(store->path);
	free(store);
	tgt->resv_store = NULL;
}
