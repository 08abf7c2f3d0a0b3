/* SPDX-License-Identifier: MIT */
/*
 * nvmf-targetctl: the control CLI of nvmf-target (see docs/targetctl.md). It turns a
 * command line into one JSON-RPC 2.0 request on the daemon's control socket
 * (control/rpc-server.h) and prints the answer as a table, a confirmation line or JSON.
 *
 * Five parts, each testable alone: args.c + request.c map argv to (method, params) or a
 * usage error (pure); load.c finishes the params of the few commands that need the
 * system (a file to read, a relative path); client.c sends one request and reads one
 * answer line; format.c and table.c print a result; run.c ties them together for main.c
 * and the tests.
 *
 * Exit status: TCTL_OK 0, TCTL_ERR 1 (the target answered an error, or the answer was
 * lost), TCTL_USAGE 2 (bad command line), TCTL_NOCONN 3 (cannot connect to the socket).
 */
#ifndef NVMF_APP_TARGETCTL_H
#define NVMF_APP_TARGETCTL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TCTL_PROG              "nvmf-targetctl"
#define TCTL_DEFAULT_TIMEOUT_S 30

enum { TCTL_OK = 0, TCTL_ERR = 1, TCTL_USAGE = 2, TCTL_NOCONN = 3 };

/* Where a run writes (stdout/stderr normally; memory streams in the tests). */
struct tctl_env {
	FILE *out, *err;
};

/* How a command's result is printed (format.c). */
enum tctl_out {
	TCTL_OUT_VERSION,
	TCTL_OUT_SUBSYSTEMS,
	TCTL_OUT_PORTS,
	TCTL_OUT_CONTROLLERS,
	TCTL_OUT_DISCONNECT,
	TCTL_OUT_NS_ADD,
	TCTL_OUT_NS_REMOVE,
	TCTL_OUT_NS_ENABLE,
	TCTL_OUT_NS_DISABLE,
	TCTL_OUT_NS_RESIZE,
	TCTL_OUT_HOST_ADD,
	TCTL_OUT_HOST_REMOVE,
	TCTL_OUT_ALLOW_ANY_HOST,
	TCTL_OUT_NS_STATS,
	TCTL_OUT_POLL_GROUP_STATS,
	TCTL_OUT_RAW,
	TCTL_OUT_SUBSYSTEM_ADD,
	TCTL_OUT_SUBSYSTEM_REMOVE,
	TCTL_OUT_PORT_ADD,
	TCTL_OUT_PORT_REMOVE,
	TCTL_OUT_PORT_LINK,
	TCTL_OUT_PORT_UNLINK,
	TCTL_OUT_CONFIG,
	TCTL_OUT_CONFIG_SAVE,
	TCTL_OUT_CONFIG_RELOAD,
	TCTL_OUT_LOG_LEVEL,
	TCTL_OUT_DHCHAP_SET,
	TCTL_OUT_DHCHAP_CLEAR,
	TCTL_OUT_TLS_KEY_SET,
	TCTL_OUT_TLS_KEY_CLEAR,
	TCTL_OUT_ANA_LIST,
	TCTL_OUT_ANA_SET,
	TCTL_OUT_NS_ANA_GROUP,
	TCTL_OUT_NS_RESV,
	TCTL_OUT_GATEWAY,
};

/* Options a command may take besides the global ones (bit i of tctl_command.opts). */
enum tctl_opt {
	TCTL_OPT_NQN,
	TCTL_OPT_NSID,
	TCTL_OPT_PATH,
	TCTL_OPT_RAM,
	TCTL_OPT_NULL,
	TCTL_OPT_BACKEND,
	TCTL_OPT_BLOCK_SIZE,
	TCTL_OPT_UUID,
	TCTL_OPT_NGUID,
	TCTL_OPT_SIZE,
	TCTL_OPT_CREATE,
	TCTL_OPT_BUFFERED,
	TCTL_OPT_DISABLED,
	TCTL_OPT_ALLOW_ANY_HOST,
	TCTL_OPT_HOST,
	TCTL_OPT_SERIAL,
	TCTL_OPT_MODEL,
	TCTL_OPT_QID_MAX,
	TCTL_OPT_FROM,
	TCTL_OPT_TRADDR,
	TCTL_OPT_TRSVCID,
	TCTL_OPT_ADRFAM,
	TCTL_OPT_TRTYPE,
	TCTL_OPT_INLINE_DATA_SIZE,
	TCTL_OPT_MAX_QUEUE_SIZE,
	TCTL_OPT_SUBSYSTEM,
	TCTL_OPT_HASH,
	TCTL_OPT_DHGROUP,
	TCTL_OPT_ANA_GROUP,
	TCTL_OPT_MAXH2CDATA,
	TCTL_OPT_ZEROCOPY_THRESHOLD,
	TCTL_OPT_COMPONENT,
	TCTL_OPT_ANA_STATE,
	TCTL_OPT_FORCE,
	TCTL_OPT_TSAS,
	TCTL_OPT_TREQ,
	TCTL_OPT_KEY_FILE,
	TCTL_OPT_COMPAT,
	TCTL_OPT_RBD,
	TCTL_OPT_RBD_CONF,
	TCTL_OPT_RBD_KEYRING,
	TCTL_OPT_RBD_CLIENT,
	TCTL_OPT_COUNT, /* at most 64: tctl_command.opts is a bit mask */
};

#define TCTL_MAX_ARGS   4
/* Values of the repeatable options (--host, --subsystem) on one command line, in all:
 * more hosts than this go through a file (subsystem add --from) or host add. */
#define TCTL_MAX_REPEAT 256

/* A command line after the command words: positional arguments and options in any
 * order. opt[i] is the value of option i (flags: ""), NULL when absent; for a
 * repeatable option the first value, all of them being rep[k] where rep_opt[k] == i
 * (command-line order; the arrays belong to the parser and live as long as @a). */
struct tctl_args {
	const char *pos[TCTL_MAX_ARGS];
	unsigned npos;
	const char *opt[TCTL_OPT_COUNT];
	const char *const *rep;
	const int *rep_opt;
	unsigned nrep;
};

struct tctl_command;
/* A builder: fill @params (an empty object) from @a (positional count already checked).
 * Returns 0, or -1 with a message naming the bad argument in @msg. */
typedef int (*tctl_build_fn)(const struct tctl_command *c, const struct tctl_args *a,
			     json_t *params, char *msg, size_t len);
/* A loader (load.c): finish @params that the builder left naming something to read
 * (a file, a relative path). Returns 0, or -1 with a message in @msg. */
typedef int (*tctl_load_fn)(json_t *params, char *msg, size_t len);

/* One command of the table in request.c. */
struct tctl_command {
	const char *group;               /* "namespace", or a one-word command ("version") */
	const char *verb;                /* "add"; NULL for a one-word command */
	const char *method;              /* JSON-RPC method; NULL: the first argument (call) */
	const char *synopsis;            /* what follows the command words in its usage line */
	const char *summary;             /* one line for the command list */
	const char *help;                /* option lines and notes for --help (NULL: none) */
	const char *args[TCTL_MAX_ARGS]; /* positional names (NQN, NSID...), NULL-ended */
	unsigned nreq;                   /* how many of them are required */
	uint64_t opts;                   /* 1ull << enum tctl_opt it accepts */
	tctl_build_fn build;
	enum tctl_out out;
	tctl_load_fn load;      /* NULL: the builder's params are complete */
	const char *method_arg; /* with the optional argument (the one after the nreq
				   * required ones) given, this method instead (log-level LEVEL,
				   * namespace reservation NQN NSID clear); NULL: always method */
};

/* The command table, ended by an entry with group NULL. */
extern const struct tctl_command tctl_commands[];

/* A parsed command line. */
struct tctl_request {
	const struct tctl_command *cmd; /* NULL: top-level (help only) */
	const char *group;              /* help for a whole group ("namespace --help"), else NULL */
	bool help;                      /* print usage, send nothing */
	bool version;                   /* --version: print this tool's version, send nothing */
	const char *socket;             /* -s/--socket; NULL: nvmf_rpc_default_path() */
	bool json;                      /* --json */
	unsigned timeout_s;             /* --timeout; 0: wait forever */
	const char *method;             /* the method to call (borrowed from the table or argv) */
	json_t *params;                 /* owned: the params object */
};

/* ---- args.c: the command line (pure: no I/O, no environment) ---- */

/*
 * tctl_parse - map @argc/@argv (argv[0] the program) to @req. Global options (-s/--socket,
 * --json, --timeout, -h/--help, --version) may come anywhere; "--" ends the options. Returns TCTL_OK
 * (req filled; free it with tctl_request_free), or TCTL_USAGE with a one-line message
 * naming the bad argument in @err (no program prefix, no newline; req holds nothing).
 */
int tctl_parse(int argc, char **argv, struct tctl_request *req, char *err, size_t errlen);
/* tctl_request_free - release @req's params (safe on a zeroed request). */
void tctl_request_free(struct tctl_request *req);

/* tctl_parse_size - bytes by util/size.h's grammar (docs/operating.md#sizes),
 * at most INT64_MAX (a JSON integer). Returns 0, or -1 with @msg "@what 'TEXT' is
 * not a size (...)" or "@what 'TEXT' is too large". */
int tctl_parse_size(const char *s, const char *what, uint64_t *out, char *msg, size_t len);
/* tctl_parse_uint - decimal digits in [@min, @max]; -1 with @msg "@what 'TEXT' is not a
 * number" or "@what N is out of range (MIN to MAX)". */
int tctl_parse_uint(const char *s, const char *what, uint64_t min, uint64_t max, uint64_t *out,
		    char *msg, size_t len);

/* ---- request.c: the command table's builders ---- */

/* tctl_find_command - the command @group @verb (@verb ignored for one-word commands),
 * or NULL. */
const struct tctl_command *tctl_find_command(const char *group, const char *verb);
/* tctl_group_exists - some command has @group as its first word. */
bool tctl_group_exists(const char *group);
/* tctl_group_verbs - the verbs of @group as "add, remove, ..." into @buf. */
void tctl_group_verbs(const char *group, char *buf, size_t len);
/* tctl_command_name - "namespace add" / "version" into @buf. */
void tctl_command_name(const struct tctl_command *c, char *buf, size_t len);

/* ---- load.c: what a command needs from the system beyond argv ---- */

/*
 * tctl_load - run @req's loader, if its command has one (after tctl_parse, before the
 * call; nothing for --help). Returns TCTL_OK, or TCTL_USAGE with "COMMAND: message" in
 * @err (no program prefix; req freed).
 */
int tctl_load(struct tctl_request *req, char *err, size_t errlen);
/* tctl_load_subsystem_file - subsystem add --from: params.subsystem is the FILE name (a
 * string); replace it with the one JSON object FILE holds. -1: "--from FILE: <why>"
 * (cannot open or read: strerror; a directory; not JSON; not one subsystem object). */
int tctl_load_subsystem_file(json_t *params, char *msg, size_t len);
/* tctl_load_save_path - config save: a relative params.path becomes absolute (the
 * realpath of its directory, then its last component; when the directory cannot be
 * resolved, the current directory then PATH as typed, for the target to refuse) since
 * the target resolves paths in its own working directory. -1 only when neither fits in
 * PATH_MAX or the current directory is unknown. */
int tctl_load_save_path(json_t *params, char *msg, size_t len);
/* tctl_load_key_file_path - host tls-key: a relative params.key_file becomes absolute
 * likewise (the target reads the file, from its own directory). */
int tctl_load_key_file_path(json_t *params, char *msg, size_t len);
/* tctl_load_dhchap_secrets - host dhchap: params.key from $NVMF_DHCHAP_SECRET (required)
 * and params.ctrl_key from $NVMF_DHCHAP_CTRL_SECRET (when set): secrets never travel on
 * the command line, where other users see them. Returns 0, or -1 with @msg. */
int tctl_load_dhchap_secrets(json_t *params, char *msg, size_t len);

/* ---- usage.c ---- */

/* tctl_usage - the help @req asks for (top level, a group, or one command) on @f. */
void tctl_usage(FILE *f, const struct tctl_request *req);

/* ---- client.c: one request over the control socket ---- */

enum tctl_client_rc {
	TCTL_CLIENT_OK,
	TCTL_CLIENT_NOCONN, /* socket() or connect() failed: @err is strerror */
	TCTL_CLIENT_FAILED, /* sending or the answer failed (timeout, closed, too long) */
};
/*
 * tctl_client_call - connect to the Unix socket @path, send the @len bytes of @request and
 * read the first answer line, waiting at most @timeout_s seconds in all (0: no limit).
 * A whole JSON value the server wrote before closing counts as that line without its
 * '\n', and is read even when the close made the send fail (EPIPE, ECONNRESET).
 * Returns TCTL_CLIENT_OK with *answer (malloc'ed, NUL-terminated, without the '\n'), or
 * another code with the reason in @err.
 */
enum tctl_client_rc tctl_client_call(const char *path, unsigned timeout_s, const char *request,
				     size_t len, char **answer, char *err, size_t errlen);

/* ---- format.c: printing a result ---- */

/* tctl_format - @result (borrowed) of @req's command, as a table or a confirmation line on
 * @f (--json or the raw call: indented JSON). Fields missing in @result print as "-".
 * Returns TCTL_OK, or TCTL_ERR when @f could not be written. */
int tctl_format(FILE *f, const struct tctl_request *req, json_t *result);
/* tctl_print_json - @v (borrowed) with JSON_INDENT(2) and a newline. */
int tctl_print_json(FILE *f, json_t *v);
/* tctl_size_text - @bytes for people: "512 B", "64 MiB", "1.5 GiB"; returns @buf. */
char *tctl_size_text(uint64_t bytes, char *buf, size_t len);

/* ---- table.c: aligned columns ---- */

struct tctl_col {
	const char *name; /* the header */
	bool right;       /* right-aligned (numbers) */
};
/* A table filled cell by cell, row after row; cells are copies. */
struct tctl_table {
	const struct tctl_col *cols;
	unsigned ncols;
	char **cells; /* nrows * ncols after complete rows */
	size_t ncells, cap;
	bool oom; /* a cell could not be stored: print fails */
};
void tctl_table_init(struct tctl_table *t, const struct tctl_col *cols, unsigned ncols);
/* tctl_table_cell - the next cell, printf-style. */
void tctl_table_cell(struct tctl_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* tctl_table_json - the next cell from a JSON value: strings as they are, integers in
 * decimal, reals %g, true/false as yes/no, arrays joined with ",", null or NULL "-". */
void tctl_table_json(struct tctl_table *t, json_t *v);
/* tctl_table_print - the header and the rows, columns two spaces apart, no trailing
 * blanks. Returns TCTL_OK or TCTL_ERR (no memory, write error). */
int tctl_table_print(const struct tctl_table *t, FILE *f);
void tctl_table_free(struct tctl_table *t);

/* ---- run.c ---- */

/* tctl_run - the whole program: parse, call, print. Returns the exit status. */
int tctl_run(int argc, char **argv, const struct tctl_env *env);

#endif
