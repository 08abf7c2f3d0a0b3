/* SPDX-License-Identifier: MIT */
/*
 * The `nvmf` command-line tool on libnvmf: nvme-cli shaped subcommands (discover,
 * identify, read, write, perf) talking to an NVMe-oF RDMA target without the kernel host.
 *
 * Each subcommand is a function `int cli_NAME(int argc, char **argv, const struct
 * cli_env *env)` with argv[0] the subcommand name. It prints to env->out / env->err and
 * returns the process exit status: CLI_OK (0), CLI_ERR (1: the target or the transport
 * failed; one line "nvmf: <what>: <nvmf_strerror(rc)>: <detail>"), CLI_USAGE (2: bad
 * arguments, one line "nvmf: <subcommand>: <what is wrong>"). The streams and the
 * transport come in through env so the unit tests run every subcommand in-process
 * against our target over the loop host transport.
 */
#ifndef NVMF_APP_NVMF_CLI_H
#define NVMF_APP_NVMF_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "initiator/nvmf.h"

/* CLI_INTERRUPTED: `perf` stopped by SIGINT (Ctrl-C) before its --time, with the report
 * of the time it ran printed; 128 + SIGINT, the shell's status for a run Ctrl-C ended, so
 * that a script can tell a cut-short run from a whole one. */
enum { CLI_OK = 0, CLI_ERR = 1, CLI_USAGE = 2, CLI_INTERRUPTED = 130 };

/* Where a subcommand reads and writes, and how it reaches the target. */
struct cli_env {
	FILE *in, *out, *err;                        /* stdin/stdout/stderr normally */
	const struct nvmf_host_transport *transport; /* NULL: RDMA (tests: loop host) */
	const char *hostnqn; /* tests: default host NQN when -q is absent (NULL: lib) */
	/* Secrets when -S/-C are absent: main() takes $NVMF_DHCHAP_SECRET and
	 * $NVMF_DHCHAP_CTRL_SECRET (not visible to other users, unlike arguments). */
	const char *dhchap_secret, *dhchap_ctrl_secret;
	const char *tls_key; /* $NVMF_TLS_KEY: the PSK when --tls is given without a key */
	bool no_progress;    /* perf: no per-second line (tests) */
	/* perf: becomes non-zero when the user asks to stop (main's SIGINT handler sets it;
	 * tests set it from a thread); the run then stops issuing I/O, drains what is in
	 * flight and reports. NULL: never. */
	volatile sig_atomic_t *interrupted;
};

/* Options every subcommand that connects shares (nvme-cli's names). */
struct cli_common {
	const char *traddr;  /* -a/--traddr, required (the first one) */
	const char *trsvcid; /* -s/--trsvcid, default "4420" (the first one) */
	/* Several paths (read, write, perf, ana-log): -a repeated, and -s once for every
	 * path or once per -a in the same order (cli_path_trsvcid). */
	const char *traddrs[NVMF_MPATH_MAX_PATHS], *trsvcids[NVMF_MPATH_MAX_PATHS];
	unsigned n_traddrs, n_trsvcids;
	bool multipath_ok;        /* set by a subcommand that takes several -a */
	unsigned refresh_ms;      /* --refresh MS: the multipath watcher's period */
	unsigned path_timeout_ms; /* --path-timeout MS: no_path_timeout_ms */
	const char *subnqn;       /* -n/--nqn */
	const char *hostnqn;      /* -q/--hostnqn */
	uint8_t hostid[16];       /* -I/--hostid (UUID text), valid when have_hostid */
	bool have_hostid;
	const char *dhchap_secret;      /* -S/--dhchap-secret "DHHC-1:..." */
	const char *dhchap_ctrl_secret; /* -C/--dhchap-ctrl-secret */
	const char *trtype;             /* -t/--transport rdma|tcp; NULL: rdma */
	bool hdr_digest;                /* -g/--hdr-digest (tcp only) */
	bool data_digest;               /* -G/--data-digest (tcp only) */
	bool disable_sqflow;            /* --disable-sqflow: Connect CATTR bit 2 on every queue */
	/* The NVMe/TCP secure channel: --tls, and its PSK from --tls-key KEY, the file of
	 * --tls-key-file (read into tls_key_buf at parse time), or $NVMF_TLS_KEY; either key
	 * option implies --tls. --tls-identity 0|1 (default 0). --tls-compat: derive in
	 * libnvme's compat layout (nvmf_ctrl_opts.tls_compat); only with a TLS option. */
	bool tls;
	bool tls_compat;
	bool tls_identity_given; /* --tls-identity appeared (needs a TLS option) */
	const char *tls_key;     /* "NVMeTLSkey-1:..." from --tls-key or the file */
	const char *tls_key_opt; /* the option it came from, for messages */
	int tls_identity;
	char tls_key_buf[128];
	bool verbose; /* -v/--verbose: how the connect went, on stderr */
	bool json;    /* --json */
	bool help;    /* -h/--help */
	/* Timeouts and automatic reconnect (nvmf_ctrl_opts), in seconds as nvme-cli's; one
	 * path only (the multipath handle reconnects its paths itself). 0: not given. */
	unsigned io_timeout_s;      /* --io-timeout SEC */
	int ctrl_loss_tmo_s;        /* --ctrl-loss-tmo SEC, -1 for ever */
	unsigned reconnect_delay_s; /* --reconnect-delay SEC */
	unsigned fast_io_fail_s;    /* --fast-io-fail-tmo SEC (0: at once), when _given */
	bool fast_io_fail_given;
};

/* ---- args.c: option and value parsing (pure) ---- */

/* Long option ids above the char range for options with no short form. */
enum {
	OPT_JSON = 0x100,
	OPT_NS,
	OPT_SLBA,
	OPT_NLB,
	OPT_OFFSET,
	OPT_LENGTH,
	OPT_RW,
	OPT_MIX,
	OPT_BS,
	OPT_QD,
	OPT_QUEUES,
	OPT_TIME,
	OPT_SIZE,
	OPT_WAIT,
	OPT_HOLD,
	OPT_PERSISTENT, /* discover.c */
	OPT_CHANGES,
	OPT_GROUPS_ONLY,
	OPT_REFRESH,
	OPT_PATH_TIMEOUT,
	OPT_DISABLE_SQFLOW,
	OPT_CRKEY, /* the reservation commands (resv.c) */
	OPT_NRKEY,
	OPT_PRKEY,
	OPT_RTYPE,
	OPT_RREGA,
	OPT_RACQA,
	OPT_RRELA,
	OPT_CPTPL,
	OPT_IEKEY,
	OPT_TLS,
	OPT_TLS_KEY,
	OPT_TLS_KEY_FILE,
	OPT_TLS_IDENTITY,
	OPT_TLS_COMPAT,
	OPT_SDLBA, /* copy.c */
	OPT_RANGE,
	OPT_IO_TIMEOUT, /* timeouts and reconnect (nvmf_ctrl_opts) */
	OPT_CTRL_LOSS_TMO,
	OPT_RECONNECT_DELAY,
	OPT_FAST_IO_FAIL_TMO,
};

/* The help lines of the timeout and reconnect options (read, write, perf). */
#define CLI_RECOVERY_USAGE                                                                   \
	"  --io-timeout SEC   abort an I/O unanswered this long, then reset (default 30)\n"  \
	"  --ctrl-loss-tmo SEC  reconnect automatically for this long when the connection\n" \
	"                     is lost (-1: for ever; default: no automatic reconnect)\n"     \
	"  --reconnect-delay SEC  between reconnect attempts (default 10)\n"                 \
	"  --fast-io-fail-tmo SEC  fail waiting I/O after this long reconnecting (0: at\n"   \
	"                     once; default: wait until --ctrl-loss-tmo)\n"

/* The help lines of the multipath options (read, write, perf). */
#define CLI_MULTIPATH_USAGE                                                                     \
	"  -a ADDR repeated: one path each to the same subsystem (multipath, with failover);\n" \
	"  -s PORT then once for every path or once per -a, in the same order\n"                \
	"  --refresh MS       how often the paths' ANA states are read again and lost paths\n"  \
	"                     reconnected (default 1000)\n"                                     \
	"  --path-timeout MS  how long an I/O may wait for a usable path (default twice the\n"  \
	"                     controllers' ANATT, 10000 without ANA)\n"

/* The short options and long options of struct cli_common, for getopt_long tables. */
#define CLI_COMMON_SHORTOPTS ":a:s:n:q:I:S:C:t:gGvh"
#define CLI_COMMON_LONGOPTS                                                                      \
	{ "traddr", required_argument, NULL, 'a' }, { "trsvcid", required_argument, NULL, 's' }, \
		{ "nqn", required_argument, NULL, 'n' },                                         \
		{ "hostnqn", required_argument, NULL, 'q' },                                     \
		{ "hostid", required_argument, NULL, 'I' },                                      \
		{ "dhchap-secret", required_argument, NULL, 'S' },                               \
		{ "dhchap-ctrl-secret", required_argument, NULL, 'C' },                          \
		{ "transport", required_argument, NULL, 't' },                                   \
		{ "hdr-digest", no_argument, NULL, 'g' },                                        \
		{ "data-digest", no_argument, NULL, 'G' },                                       \
		{ "disable-sqflow", no_argument, NULL, OPT_DISABLE_SQFLOW },                     \
		{ "tls", no_argument, NULL, OPT_TLS },                                           \
		{ "tls-key", required_argument, NULL, OPT_TLS_KEY },                             \
		{ "tls-key-file", required_argument, NULL, OPT_TLS_KEY_FILE },                   \
		{ "tls-identity", required_argument, NULL, OPT_TLS_IDENTITY },                   \
		{ "tls-compat", no_argument, NULL, OPT_TLS_COMPAT },                             \
		{ "help", no_argument, NULL, 'h' }, { "verbose", no_argument, NULL, 'v' },       \
		{ "json", no_argument, NULL, OPT_JSON },                                         \
		{ "refresh", required_argument, NULL, OPT_REFRESH },                             \
		{ "io-timeout", required_argument, NULL, OPT_IO_TIMEOUT },                       \
		{ "ctrl-loss-tmo", required_argument, NULL, OPT_CTRL_LOSS_TMO },                 \
		{ "reconnect-delay", required_argument, NULL, OPT_RECONNECT_DELAY },             \
		{ "fast-io-fail-tmo", required_argument, NULL, OPT_FAST_IO_FAIL_TMO },           \
	{                                                                                        \
		"path-timeout", required_argument, NULL, OPT_PATH_TIMEOUT                        \
	}

/* cli_parse_u64 - a plain number (decimal, or 0x hex) from @min to @max inclusive.
 * Returns 0, or -EINVAL / -ERANGE with a message in @err. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		  size_t errlen);

/*
 * cli_common_opt - apply getopt_long result @key (with optarg @arg, the option text
 * @optname for messages) to @c. Returns 0 when @key was a common option, 1 when it is
 * not one (the caller's own), CLI_USAGE after printing "nvmf: CMD: ..." on @err for a
 * bad value, an unknown option ('?') or a missing argument (':').
 */
int cli_common_opt(struct cli_common *c, int key, const char *arg, const char *cmd,
		   const char *optname, FILE *err);

/* cli_opt_nsid - --ns's value @arg: a namespace ID, 1 to FFFFFFFEh, into *@nsid. Returns
 * 0, or CLI_USAGE after printing "nvmf: CMD: --ns: namespace ID <why>" on @err. */
int cli_opt_nsid(const char *arg, uint32_t *nsid, const char *cmd, FILE *err);

/* cli_usage_error - print "nvmf: CMD: <fmt...>" and "Try 'nvmf CMD --help'." on @err;
 * returns CLI_USAGE. */
int cli_usage_error(FILE *err, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What a subcommand's -n/--nqn must name. */
enum cli_nqn {
	CLI_NQN_OPTIONAL, /* discover: -n may be left out (the well-known discovery NQN) */
	CLI_NQN_ANY,      /* identify (controller): any subsystem, the discovery one too */
	/* read, write, perf, ana-log, identify --ns: an NVM subsystem. The well-known
	 * discovery NQN (NVMe-oF 1.1 section 7.2) is refused before connecting: a discovery
	 * controller has no namespaces and no I/O queues (NVMe Base 2.0 section 3.1.2). */
	CLI_NQN_NVM,
};

/* cli_check_common - after parsing: -a present, -n as @need says; several -a only when
 * c->multipath_ok, with -s given once or once per -a; --refresh and --path-timeout only
 * with several -a; -g/-G only with -t tcp. Returns 0 or CLI_USAGE after a message. */
int cli_check_common(const struct cli_common *c, enum cli_nqn need, const char *cmd, FILE *err);
/* cli_path_trsvcid - the port of path @i (its own -s, else the one -s, else "4420"). */
const char *cli_path_trsvcid(const struct cli_common *c, unsigned i);

/* cli_read_key_file - the one line of key file @path (at most 4 KiB, trailing white space
 * dropped) into @out (@outlen bytes, NUL terminated). 0, or -errno with @err (not naming
 * @path, not showing the file's text). */
int cli_read_key_file(const char *path, char *out, size_t outlen, char *err, size_t errlen);

/* cli_optname - the text of the option getopt just returned (for messages). */
const char *cli_optname(char **argv, int optind_now);

/* ---- common.c: connecting and reporting library errors ---- */

/* cli_connect - nvmf_connect with @c (plus @nr_io_queues, @queue_size; 0 = library
 * default) through env->transport, for subcommand @cmd. Returns 0 with *out, CLI_USAGE
 * after cli_fill_opts refused a secret, or CLI_ERR after printing "nvmf: connect to
 * ADDR:PORT (NQN): <strerror>: <detail>". With -v, a connect that worked prints "nvmf:
 * connected to ADDR:PORT (NQN): cntlid N, N I/O queue(s), <how it authenticated>" on
 * env->err. */
int cli_connect(const struct cli_common *c, const struct cli_env *env, const char *cmd,
		unsigned nr_io_queues, unsigned queue_size, struct nvmf_ctrl **out);
/*
 * cli_fill_opts - the connect options from @c (the strings stay @c's and @env's). The
 * DH-HMAC-CHAP secrets are -S/-C, else $NVMF_DHCHAP_SECRET / $NVMF_DHCHAP_CTRL_SECRET
 * (not the latter for @discovery: discovery controllers do not authenticate, and a
 * controller secret exported for the NVM subsystems would refuse them); each is checked
 * here, so that a malformed or empty one, or a controller secret without a host secret,
 * is a usage error naming where it came from. Returns CLI_OK or CLI_USAGE (message
 * printed on env->err).
 */
int cli_fill_opts(const struct cli_common *c, const struct cli_env *env, const char *cmd,
		  bool discovery, struct nvmf_ctrl_opts *o);

/* cli_lib_error - print "nvmf: <what>: <nvmf_strerror(rc)>: <detail>" (": <detail>" left
 * out when @detail is NULL or empty), with a hint to use -t tcp when @rc is -ENODEV (no
 * RDMA device), and return CLI_ERR. */
int cli_lib_error(FILE *err, const char *what, int rc, const char *detail);

/* cli_io_error - cli_lib_error for what an I/O command returned: its status named by
 * nvmf_io_strerror (80h-85h as the NVM command set's codes). Returns CLI_ERR. */
int cli_io_error(FILE *err, const char *what, int rc, const char *detail);

/* ---- conn.c: one controller, or a multipath handle over one path per -a ---- */

struct cli_conn {
	struct nvmf_ctrl *ctrl; /* one -a */
	struct nvmf_mpath *mp;  /* several */
};

/* cli_conn_open - cli_connect for one -a; for several, nvmf_mpath_connect over one path
 * per -a (each with @nr_io_queues, @queue_size), with --refresh and --path-timeout.
 * Returns CLI_OK, CLI_USAGE (also for a discovery controller: no I/O queues) or CLI_ERR (after "nvmf: connect to ADDR:PORT, ... (NQN):
 * <strerror>: <detail>"). With -v, a line per path and one for the handle on env->err. */
int cli_conn_open(const struct cli_common *c, const struct cli_env *env, const char *cmd,
		  unsigned nr_io_queues, unsigned queue_size, struct cli_conn *k);
void cli_conn_close(struct cli_conn *k);
/* The libnvmf calls of either kind (see nvmf.h). */
const char *cli_conn_errmsg(const struct cli_conn *k);
int cli_conn_ns_info(struct cli_conn *k, uint32_t nsid, struct nvmf_ns_info *out);
int cli_conn_read(struct cli_conn *k, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf);
int cli_conn_write(struct cli_conn *k, uint32_t nsid, uint64_t slba, uint32_t nlb, const void *buf);
int cli_conn_mem_register(struct cli_conn *k, void *addr, size_t len);
void cli_conn_mem_unregister(struct cli_conn *k, void *addr);
unsigned cli_conn_nr_queues(const struct cli_conn *k);
/* cli_conn_depth - commands one queue takes (queue size - 1, or the handle's depth). */
unsigned cli_conn_depth(const struct cli_conn *k);
/* cli_conn_print_paths - for a multipath handle, a line per path: "  path N ADDR:PORT:
 * live|down, N ios, N failed over, N reconnects"; nothing for one controller. */
void cli_conn_print_paths(const struct cli_conn *k, FILE *f);
/* cli_conn_paths_json - the same as an array of {"traddr", "trsvcid", "live", "ios",
 * "failed_over", "reconnects"} (empty for one controller). */
json_t *cli_conn_paths_json(const struct cli_conn *k);

/* ---- json.c ---- */

/* cli_json_print - @root (consumed) as indented JSON, keys in insertion order, reals with
 * 9 significant digits, and a newline on @f. Returns CLI_OK, or CLI_ERR when it could
 * not be written. */
int cli_json_print(FILE *f, json_t *root);
/* cli_json_hex - @len bytes as lowercase hex digits, no separators (nvme-cli's nguid and
 * eui64 style). */
json_t *cli_json_hex(const uint8_t *p, size_t len);
/* cli_json_uint - an unsigned value (jansson integers are signed 64 bit: larger values
 * clamp to INT64_MAX; no field printed here reaches that). */
json_t *cli_json_uint(uint64_t v);
/* cli_json_fixed - a fixed-width, space or NUL padded ASCII field as a string with the
 * padding removed. */
json_t *cli_json_fixed(const char *field, size_t len);

/* ---- hist.c: latency histogram (log-linear buckets, HdrHistogram style) ---- */

/* Values below 2^CLI_HIST_SUB_BITS are exact; above, each power of two is split into
 * 2^CLI_HIST_SUB_BITS buckets, so a bucket's width is at most 1/128 of its value. */
#define CLI_HIST_SUB_BITS 7
#define CLI_HIST_SUB      (1u << CLI_HIST_SUB_BITS)
#define CLI_HIST_BUCKETS  ((64 - CLI_HIST_SUB_BITS + 1) * CLI_HIST_SUB)

struct cli_hist {
	uint64_t count, sum, min, max; /* of the recorded values (any unit; perf: ns) */
	uint64_t bucket[CLI_HIST_BUCKETS];
};

void cli_hist_init(struct cli_hist *h);
void cli_hist_record(struct cli_hist *h, uint64_t v);
/* cli_hist_merge - add @src's values to @dst. */
void cli_hist_merge(struct cli_hist *dst, const struct cli_hist *src);
/* cli_hist_bucket - bucket index of @v; cli_hist_bucket_low/width: the values it holds
 * are [low, low + width). */
unsigned cli_hist_bucket(uint64_t v);
uint64_t cli_hist_bucket_low(unsigned idx);
uint64_t cli_hist_bucket_width(unsigned idx);
/* cli_hist_percentile - the value at or below which @pct percent (0 < pct <= 100) of the
 * recorded values lie: the middle of the bucket holding the ceil(pct/100 * count)-th
 * smallest value, clamped to [min, max]. 0 when empty. */
double cli_hist_percentile(const struct cli_hist *h, double pct);
/* cli_hist_mean - sum / count, 0 when empty. */
double cli_hist_mean(const struct cli_hist *h);

/* ---- the subcommands ---- */
int cli_discover(int argc, char **argv, const struct cli_env *env);
int cli_identify(int argc, char **argv, const struct cli_env *env);
int cli_read(int argc, char **argv, const struct cli_env *env);
int cli_write(int argc, char **argv, const struct cli_env *env);
int cli_perf(int argc, char **argv, const struct cli_env *env);
int cli_ana_log(int argc, char **argv, const struct cli_env *env);
int cli_resv_register(int argc, char **argv, const struct cli_env *env);
int cli_resv_acquire(int argc, char **argv, const struct cli_env *env);
int cli_resv_release(int argc, char **argv, const struct cli_env *env);
int cli_resv_report(int argc, char **argv, const struct cli_env *env);
int cli_verify(int argc, char **argv, const struct cli_env *env);
int cli_copy(int argc, char **argv, const struct cli_env *env);
int cli_compare_write(int argc, char **argv, const struct cli_env *env); /* caw.c */

/* cli_run - dispatch "nvmf SUBCOMMAND ..." (argv[0] is the program name); handles
 * --help, --version and no arguments. Returns the exit status. */
int cli_run(int argc, char **argv, const struct cli_env *env);

/* ---- perf.c: parsing exposed for tests ---- */

enum cli_rw { CLI_RW_READ, CLI_RW_WRITE, CLI_RW_RANDREAD, CLI_RW_RANDWRITE, CLI_RW_RANDRW };

struct cli_perf_opts {
	struct cli_common c;
	uint32_t nsid;   /* --ns, default 1 */
	enum cli_rw rw;  /* --rw, default randread */
	unsigned mix;    /* --mix: percent reads for randrw, default 70 */
	uint64_t bs;     /* --bs bytes, default 4096 */
	unsigned qd;     /* --qd, outstanding I/Os per queue, default 32 */
	unsigned queues; /* --queues, default 1 (one thread each) */
	unsigned time_s; /* --time seconds, default 10 */
	uint64_t size;   /* --size bytes of the namespace to use; 0 = all */
	bool wait;       /* --wait: sleep on the connection when nothing completed (less
			  * CPU, more latency) instead of polling without a pause */
};

/* cli_perf_parse - parse `perf` arguments into @o (defaults first). Returns CLI_OK,
 * CLI_USAGE after a message on @err; o->c.help set when --help was given. */
int cli_perf_parse(int argc, char **argv, struct cli_perf_opts *o, FILE *err);
/* cli_rw_name / cli_rw_parse - "randread" ... ; parse returns -EINVAL when unknown. */
const char *cli_rw_name(enum cli_rw rw);
int cli_rw_parse(const char *s, enum cli_rw *out);

/* ---- resv.c: parsing exposed for tests ---- */

enum cli_resv_cmd { CLI_RESV_REGISTER, CLI_RESV_ACQUIRE, CLI_RESV_RELEASE, CLI_RESV_REPORT };

/* A reservation command's options (nvme-cli's long names; initiator/nvmf.h's values). */
struct cli_resv_opts {
	struct cli_common c;
	enum cli_resv_cmd cmd;
	uint32_t nsid;                /* --ns, default 1 */
	unsigned action;              /* --rrega / --racqa / --rrela, default 0 */
	unsigned rtype;               /* --rtype 1-6; 0: not given */
	unsigned cptpl;               /* --cptpl 0, 2, 3 */
	bool iekey;                   /* --iekey */
	uint64_t crkey, nrkey, prkey; /* --crkey, --nrkey, --prkey, default 0 */
};

/* cli_resv_parse - the arguments of `resv-register` ... `resv-report` (@cmd) into @o: each
 * takes only its own options (another's is unknown), values in their field's range,
 * --rtype required for acquire and for release (not clear). Returns CLI_OK (o->c.help set
 * for --help) or CLI_USAGE after a message on @err. */
int cli_resv_parse(int argc, char **argv, enum cli_resv_cmd cmd, struct cli_resv_opts *o,
		   FILE *err);

/* ---- rw.c: parsing exposed for tests ---- */

struct cli_rw_opts {
	struct cli_common c;
	uint32_t nsid;                            /* --ns, default 1 */
	uint64_t slba, nlb;                       /* --slba / --nlb (blocks, nlb 1's based) */
	uint64_t offset, length;                  /* --offset / --length (bytes) */
	bool have_blocks, have_bytes, have_count; /* which form was used; count given */
	const char *file;                         /* -o (read) / -i (write); NULL: stdout/stdin */
};

/* cli_rw_parse_args - parse `read`/`write` arguments (@write selects -i or -o). Returns
 * CLI_OK or CLI_USAGE after a message. */
int cli_rw_parse_args(int argc, char **argv, bool write, struct cli_rw_opts *o, FILE *err);
/* cli_rw_extent - the blocks to move from @o for a namespace of @nsze blocks of
 * @block_size bytes; @input_len: the input's length for a write without a count
 * (UINT64_MAX unknown). Returns 0 with *slba and *nlb, or CLI_USAGE after a message (not a
 * multiple of the block size, beyond the namespace end, nothing to move). */
int cli_rw_extent(const struct cli_rw_opts *o, const char *cmd, uint64_t nsze, uint32_t block_size,
		  uint64_t input_len, uint64_t *slba, uint64_t *nlb, FILE *err);

/* ---- copy.c: parsing exposed for tests ---- */

#define CLI_COPY_MAX_RANGES 256 /* Copy's NR field: 8 bits, 0's based */

/* `verify` / `copy` options. */
struct cli_copy_opts {
	struct cli_common c;
	uint32_t nsid;  /* --ns, default 1 */
	uint64_t slba;  /* verify --slba, copy --sdlba (blocks) */
	bool have_slba; /* it was given (required) */
	uint32_t nlb;   /* verify --nlb: 1's based, 1..65536; 0 not given */
	unsigned nr;    /* copy: --range given (1..256) */
	struct nvme_copy_range ranges[CLI_COPY_MAX_RANGES]; /* as on the wire: nlb 0's based */
};

/* cli_copy_parse - `copy` (@copy) or `verify` arguments into @o: --range SLBA:NLB with NLB
 * 1's based (1..65536), at most 256; --sdlba and a --range required for copy, --slba and
 * --nlb for verify. Returns CLI_OK (o->c.help set for --help) or CLI_USAGE after a message
 * on @err. */
int cli_copy_parse(int argc, char **argv, bool copy, struct cli_copy_opts *o, FILE *err);

#endif
