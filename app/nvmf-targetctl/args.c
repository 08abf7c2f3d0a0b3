// SPDX-License-Identifier: MIT
/*
 * nvmf-targetctl's command line: global options anywhere, the command words, then the
 * command's arguments and options in any order (see targetctl.h). Hand-written rather
 * than getopt so that parsing keeps no state between calls (getopt's optind) and the
 * messages name the command. Every failure is one line naming the bad argument.
 */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "app/nvmf-targetctl/targetctl.h"
#include "util/size.h"

/* Global options, numbered after the command options of enum tctl_opt. */
enum { G_SOCKET = TCTL_OPT_COUNT, G_JSON, G_TIMEOUT, G_HELP, G_VERSION, G_COUNT };

static const struct opt_spec {
	const char *name; /* without "--" */
	char letter;      /* short form, 0: none */
	int id;
	bool value; /* takes a value */
} specs[] = {
	{ "socket", 's', G_SOCKET, true },
	{ "json", 0, G_JSON, false },
	{ "timeout", 0, G_TIMEOUT, true },
	{ "help", 'h', G_HELP, false },
	{ "version", 0, G_VERSION, false },
	{ "nqn", 0, TCTL_OPT_NQN, true },
	{ "nsid", 0, TCTL_OPT_NSID, true },
	{ "path", 0, TCTL_OPT_PATH, true },
	{ "ram", 0, TCTL_OPT_RAM, true },
	{ "null", 0, TCTL_OPT_NULL, true },
	{ "backend", 0, TCTL_OPT_BACKEND, true },
	{ "block-size", 0, TCTL_OPT_BLOCK_SIZE, true },
	{ "uuid", 0, TCTL_OPT_UUID, true },
	{ "nguid", 0, TCTL_OPT_NGUID, true },
	{ "size", 0, TCTL_OPT_SIZE, true },
	{ "create", 0, TCTL_OPT_CREATE, false },
	{ "buffered", 0, TCTL_OPT_BUFFERED, false },
	{ "disabled", 0, TCTL_OPT_DISABLED, false },
	{ "allow-any-host", 0, TCTL_OPT_ALLOW_ANY_HOST, false },
	{ "host", 0, TCTL_OPT_HOST, true },
	{ "serial", 0, TCTL_OPT_SERIAL, true },
	{ "model", 0, TCTL_OPT_MODEL, true },
	{ "qid-max", 0, TCTL_OPT_QID_MAX, true },
	{ "from", 0, TCTL_OPT_FROM, true },
	{ "traddr", 0, TCTL_OPT_TRADDR, true },
	{ "trsvcid", 0, TCTL_OPT_TRSVCID, true },
	{ "adrfam", 0, TCTL_OPT_ADRFAM, true },
	{ "trtype", 0, TCTL_OPT_TRTYPE, true },
	{ "inline-data-size", 0, TCTL_OPT_INLINE_DATA_SIZE, true },
	{ "max-queue-size", 0, TCTL_OPT_MAX_QUEUE_SIZE, true },
	{ "maxh2cdata", 0, TCTL_OPT_MAXH2CDATA, true },
	{ "zerocopy-threshold", 0, TCTL_OPT_ZEROCOPY_THRESHOLD, true },
	{ "component", 0, TCTL_OPT_COMPONENT, true },
	{ "force", 0, TCTL_OPT_FORCE, false },
	{ "subsystem", 0, TCTL_OPT_SUBSYSTEM, true },
	{ "hash", 0, TCTL_OPT_HASH, true },
	{ "dhgroup", 0, TCTL_OPT_DHGROUP, true },
	{ "ana-group", 0, TCTL_OPT_ANA_GROUP, true },
	{ "ana-state", 0, TCTL_OPT_ANA_STATE, true },
	{ "tsas", 0, TCTL_OPT_TSAS, true },
	{ "treq", 0, TCTL_OPT_TREQ, true },
	{ "key-file", 0, TCTL_OPT_KEY_FILE, true },
	{ "compat", 0, TCTL_OPT_COMPAT, false },
	{ "rbd", 0, TCTL_OPT_RBD, true },
	{ "rbd-conf", 0, TCTL_OPT_RBD_CONF, true },
	{ "rbd-keyring", 0, TCTL_OPT_RBD_KEYRING, true },
	{ "rbd-client", 0, TCTL_OPT_RBD_CLIENT, true },
};
#define NSPECS (sizeof(specs) / sizeof(specs[0]))

/* Options that may be given more than once, each value kept (a list of NQNs). */
#define REPEATABLE (1ull << TCTL_OPT_HOST | 1ull << TCTL_OPT_SUBSYSTEM | 1ull << TCTL_OPT_ANA_STATE)

/* Words beyond the command's: kept to name the first unexpected one. */
#define MAX_WORDS (3 + TCTL_MAX_ARGS)

/* The command line split into words and options, before the command is known. */
struct split {
	const char *word[MAX_WORDS];
	unsigned nwords;
	const char *extra;                /* the first word past MAX_WORDS */
	const char *val[G_COUNT];         /* option values (flags: "") */
	const char *name[G_COUNT];        /* each option's long name, for messages */
	const char *rep[TCTL_MAX_REPEAT]; /* the values of repeatable options, in order */
	int rep_opt[TCTL_MAX_REPEAT];     /* the option each belongs to */
	unsigned nrep;
	char first_err[256]; /* the first problem found ("" none): reported unless --help */
};

int tctl_parse_size(const char *s, const char *what, uint64_t *out, char *msg, size_t len)
{
	uint64_t v;
	if (nvmf_size_parse_msg(s, what, &v, msg, len))
		return -1;
	/* The request carries it as a JSON integer: signed 64 bits. */
	if (v > (uint64_t)INT64_MAX) {
		snprintf(msg, len, "%s '%s' is too large", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

int tctl_parse_uint(const char *s, const char *what, uint64_t min, uint64_t max, uint64_t *out,
		    char *msg, size_t len)
{
	uint64_t v = 0;
	const char *p = s;
	bool big = false;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			big = true;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s || *p) {
		snprintf(msg, len, "%s '%s' is not a number", what, s);
		return -1;
	}
	if (big || v < min || v > max) {
		snprintf(msg, len, "%s %s is out of range (%llu to %llu)", what, s,
			 (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

__attribute__((format(printf, 2, 3))) static void note(struct split *sp, const char *fmt, ...)
{
	if (sp->first_err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sp->first_err, sizeof(sp->first_err), fmt, ap);
	va_end(ap);
}

static const struct opt_spec *find_spec(const char *arg, size_t *namelen)
{
	for (size_t i = 0; i < NSPECS; i++) {
		const struct opt_spec *o = &specs[i];
		if (arg[1] != '-') {
			if (o->letter && arg[1] == o->letter) {
				*namelen = 2;
				return o;
			}
			continue;
		}
		size_t n = strlen(o->name);
		if (!strncmp(arg + 2, o->name, n) && (arg[2 + n] == 0 || arg[2 + n] == '=')) {
			*namelen = 2 + n;
			return o;
		}
	}
	return NULL;
}

/* One option at argv[*i]; advances *i past a separate value. */
static void split_option(struct split *sp, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	size_t n;
	const struct opt_spec *o = find_spec(arg, &n);
	if (!o) {
		note(sp, "unknown option '%s'", arg);
		return;
	}
	const char *val = "";
	if (o->value) {
		if (arg[n]) /* --name=VALUE, or -sPATH */
			val = arg[n] == '=' ? arg + n + 1 : arg + n;
		else if (*i + 1 < argc)
			val = argv[++*i];
		else {
			note(sp, "option '%s' needs a value", arg);
			return;
		}
	} else if (arg[n]) {
		note(sp, "option '--%s' takes no value", o->name);
		return;
	}
	bool repeatable = o->id < TCTL_OPT_COUNT && (REPEATABLE & (1ull << o->id));
	if (repeatable) {
		if (sp->nrep == TCTL_MAX_REPEAT) {
			note(sp, "option '--%s': more than %d values", o->name, TCTL_MAX_REPEAT);
			return;
		}
		sp->rep[sp->nrep] = val;
		sp->rep_opt[sp->nrep++] = o->id;
		if (sp->val[o->id]) /* opt[] keeps the first */
			return;
	} else if (o->value && sp->val[o->id]) {
		note(sp, "option '--%s' given twice", o->name);
		return;
	}
	sp->val[o->id] = val;
	sp->name[o->id] = o->name;
}

static void split(struct split *sp, int argc, char **argv)
{
	memset(sp, 0, sizeof(*sp));
	bool options = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (options && !strcmp(a, "--")) {
			options = false;
		} else if (options && a[0] == '-' && a[1]) {
			split_option(sp, argc, argv, &i);
		} else if (sp->nwords < MAX_WORDS) {
			sp->word[sp->nwords++] = a;
		} else if (!sp->extra) {
			sp->extra = a;
		}
	}
}

/* The global options into @req; -1 with @msg for a bad value. */
static int globals(const struct split *sp, struct tctl_request *req, char *msg, size_t len)
{
	req->json = sp->val[G_JSON] != NULL;
	req->help = sp->val[G_HELP] != NULL;
	req->version = sp->val[G_VERSION] != NULL;
	if ((req->socket = sp->val[G_SOCKET])) {
		/* sun_path is 108 bytes with its NUL. */
		if (!req->socket[0] || strlen(req->socket) > 107) {
			snprintf(msg, len, "--socket: the path must be 1 to 107 bytes");
			return -1;
		}
	}
	if (sp->val[G_TIMEOUT]) {
		uint64_t t;
		if (tctl_parse_uint(sp->val[G_TIMEOUT], "--timeout", 0, 86400, &t, msg, len))
			return -1;
		req->timeout_s = (unsigned)t;
	}
	return 0;
}

/* The command's own arguments: options allowed, the positional count, then its builder. */
static int command_args(const struct split *sp, unsigned first, struct tctl_request *req, char *err,
			size_t errlen)
{
	const struct tctl_command *c = req->cmd;
	char name[64], msg[384];
	tctl_command_name(c, name, sizeof(name));
	struct tctl_args a = { .rep = sp->rep, .rep_opt = sp->rep_opt, .nrep = sp->nrep };
	for (int i = 0; i < TCTL_OPT_COUNT; i++) {
		if (sp->val[i] && !(c->opts & (1ull << i))) {
			snprintf(err, errlen, "%s: unknown option '--%s'", name, sp->name[i]);
			return TCTL_USAGE;
		}
		a.opt[i] = sp->val[i];
	}
	unsigned nargs = 0;
	while (nargs < TCTL_MAX_ARGS && c->args[nargs])
		nargs++;
	unsigned given = sp->nwords - first;
	if (given < c->nreq) {
		snprintf(err, errlen, "%s: missing %s (usage: %s %s)", name, c->args[given], name,
			 c->synopsis);
		return TCTL_USAGE;
	}
	if (given > nargs || sp->extra) {
		snprintf(err, errlen, "%s: unexpected argument '%s'", name,
			 given > nargs ? sp->word[first + nargs] : sp->extra);
		return TCTL_USAGE;
	}
	for (unsigned i = 0; i < given; i++)
		a.pos[a.npos++] = sp->word[first + i];
	if (!c->method) /* call: the first argument */
		req->method = a.pos[0];
	else
		req->method = c->method_arg && a.npos > c->nreq ? c->method_arg : c->method;
	if (!(req->params = json_object())) {
		snprintf(err, errlen, "%s: out of memory", name);
		return TCTL_USAGE;
	}
	if (c->build && c->build(c, &a, req->params, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s", name, msg);
		tctl_request_free(req);
		return TCTL_USAGE;
	}
	return TCTL_OK;
}

int tctl_parse(int argc, char **argv, struct tctl_request *req, char *err, size_t errlen)
{
	struct split sp;
	split(&sp, argc, argv);
	*req = (struct tctl_request){ .timeout_s = TCTL_DEFAULT_TIMEOUT_S };
	unsigned w = 0;
	if (sp.nwords && !strcmp(sp.word[0], "help")) { /* "help CMD..." = "CMD... --help" */
		sp.val[G_HELP] = "";
		w = 1;
	}
	char msg[384];
	if (globals(&sp, req, msg, sizeof(msg)) && !req->help && !req->version) {
		snprintf(err, errlen, "%s", msg);
		return TCTL_USAGE;
	}
	/* As --help: the tool's own version, whatever else is on the line (the target's
	 * is the version command's). */
	if (req->version && !req->help)
		return TCTL_OK;
	const char *group = w < sp.nwords ? sp.word[w] : NULL;
	if (!group) {
		if (req->help)
			return TCTL_OK;
		snprintf(err, errlen, "%s",
			 sp.first_err[0] ? sp.first_err :
					   "missing command (see " TCTL_PROG " --help)");
		return TCTL_USAGE;
	}
	if (!tctl_group_exists(group)) {
		snprintf(err, errlen, "unknown command '%s' (see " TCTL_PROG " --help)", group);
		return TCTL_USAGE;
	}
	const struct tctl_command *c = tctl_find_command(group, NULL);
	if (!c) { /* a group: the next word is the verb */
		const char *verb = w + 1 < sp.nwords ? sp.word[w + 1] : NULL;
		char verbs[160];
		tctl_group_verbs(group, verbs, sizeof(verbs));
		if (!verb && req->help) {
			req->group = group;
			return TCTL_OK;
		}
		if (!verb || !(c = tctl_find_command(group, verb))) {
			if (verb)
				snprintf(err, errlen, "%s: unknown command '%s' (%s)", group, verb,
					 verbs);
			else
				snprintf(err, errlen, "%s: missing command (%s)", group, verbs);
			return TCTL_USAGE;
		}
		w++;
	}
	req->cmd = c;
	if (req->help)
		return TCTL_OK;
	if (sp.first_err[0]) {
		char name[64];
		tctl_command_name(c, name, sizeof(name));
		snprintf(err, errlen, "%s: %s", name, sp.first_err);
		return TCTL_USAGE;
	}
	return command_args(&sp, w + 1, req, err, errlen);
}

void tctl_request_free(struct tctl_request *req)
{
	json_decref(req->params);
	req->params = NULL;
}
